#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# Issue 29: no check that cannot fail. tests/lint/checks-can-fail.py finds
# three kinds that kept coming back ($? read after a command substitution,
# a loop variable tested after its loop, a `run` whose exit status is never
# read). It must flag each bad example in tests/lint/ with its pattern and
# only there, pass the good one, and find nothing in tests/*.sh.
. "$(dirname "$0")/lib.sh"

lint=$TOP/tests/lint/checks-can-fail.py
for kind in status-after-subst loop-var-after-loop status-unread; do
	t_begin "the lint flags tests/lint/bad-$kind.sh, with that pattern only"
	expect_exit 1 python3 "$lint" "$TOP/tests/lint/bad-$kind.sh"
	expect_match "finding" "$out" "bad-$kind.sh:[0-9]+: $kind: "
	expect_eq "findings" "$(wc -l <<<"$out")" 1
	t_end
done

t_begin "the lint passes tests/lint/good.sh"
expect_exit 0 python3 "$lint" "$TOP/tests/lint/good.sh"
expect_eq "findings" "$out" ""
t_end

t_begin "the lint finds nothing in the shell tests"
expect_exit 0 python3 "$lint" "$TOP"/tests/t[0-9]*.sh "$TOP"/tests/*lib.sh
expect_eq "findings" "$out" ""
t_end

t_done
