#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# Issue 29: no check that cannot fail. tests/lint/checks-can-fail.py finds
# three kinds that kept coming back ($? read after a command substitution,
# a loop variable tested after its loop, a `run` whose exit status is never
# read). It must flag each bad example in tests/lint/ with its pattern and
# only there, pass the good one, and find nothing in tests/*.sh. And
# tests/lint/layers.py: no file in src/ includes a header of a folder
# that docs/hacking.md's table of layers does not allow it, nor names a
# plan in elf/; and
# tests/lint/sizes.py: no .c file in src/ over 900 lines, no function in
# src/ over 80, none of the tests' or helpers' over 120.
. "$(dirname "$0")/lib.sh"

lint=$TOP/tests/lint/checks-can-fail.py
for kind in status-after-subst loop-var-after-loop status-unread check-and-chain; do
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

# The layers: every include in src/ by docs/hacking.md's table (issue 29).
layers=$TOP/tests/lint/layers.py
t_begin "layers.py flags an include of a folder above the file's own, internal.h in cli/, a plan read in elf/, the planner's header in check/, the plan's in job/"
mkdir -p "$SCRATCH/tree/src/elf" "$SCRATCH/tree/src/cli" "$SCRATCH/tree/docs"
cp "$TOP/docs/hacking.md" "$SCRATCH/tree/docs/"
printf '#include "internal.h"\n#include "elf/layout.h"\n#include "check/check.h"\n' >"$SCRATCH/tree/src/elf/up.c"
printf 'int f(const struct ebid_plan *plan);\n' >"$SCRATCH/tree/src/elf/reads.c"
printf '#include "cli/cli.h"\n#include "internal.h"\n' >"$SCRATCH/tree/src/cli/in.c"
mkdir -p "$SCRATCH/tree/src/check"
printf '#include "plan/plan.h"\n#include "plan/planner.h"\n' >"$SCRATCH/tree/src/check/state.c"
mkdir -p "$SCRATCH/tree/src/job"
printf '#include "internal.h"\n#include "plan/plan.h"\n' >"$SCRATCH/tree/src/job/fields.c"
expect_exit 1 python3 "$layers" "$SCRATCH/tree"
expect_match "the plan's fields in job/" "$out" '^src/job/fields\.c:2: uses "plan/plan\.h": src/job/ may call plan/ but not read its headers'
expect_match "the planner's state in check/" "$out" '^src/check/state\.c:2: uses "plan/planner\.h": src/check/ may read plan/plan\.h only'
expect_match "the upward include" "$out" '^src/elf/up\.c:3: uses "check/check\.h"'
expect_match "internal.h in cli/" "$out" '^src/cli/in\.c:2: uses "internal\.h"'
expect_match "a plan read in elf/" "$out" '^src/elf/reads\.c:1: uses "struct ebid_plan"'
expect_eq "findings" "$(wc -l <<<"$out")" 5
t_end

t_begin "layers.py --objects flags a call into a folder the table does not allow, and cli/'s call into the library past its public API"
st=$SCRATCH/stree
mkdir -p "$SCRATCH/objs/plan" "$SCRATCH/objs/id" "$SCRATCH/objs/cli" "$st/docs" "$st/include" \
	"$st/src/plan" "$st/src/id" "$st/src/cli"
cp "$TOP/docs/hacking.md" "$st/docs/"
printf 'int ebid_public_fn(void);\n' >"$st/include/pub.h"
printf 'int ebid_id_inner(void) { return 1; }\nint ebid_public_fn(void) { return 2; }\n' >"$st/src/id/b.c"
printf 'int ebid_id_inner(void);\nint p(void) { return ebid_id_inner(); }\n' >"$st/src/plan/a.c"
printf 'int ebid_id_inner(void);\nint ebid_public_fn(void);\nint c(void) { return ebid_id_inner() + ebid_public_fn(); }\n' >"$st/src/cli/c.c"
for f in id/b plan/a cli/c; do
	cc -c -o "$SCRATCH/objs/$f.o" "$st/src/$f.c" || t_fail "cc $f.c"
done
# An object whose source is gone (a file that moved) is not read.
cp "$SCRATCH/objs/plan/a.o" "$SCRATCH/objs/plan/stale.o"
expect_exit 1 python3 "$layers" --objects "$SCRATCH/objs" "$SCRATCH/stree"
expect_match "plan/ calls into id/" "$out" "^src/plan/a\.c: calls ebid_id_inner of src/id/: src/plan/ may use elf"
expect_match "cli/ past the public API" "$out" "^src/cli/c\.c: calls ebid_id_inner of src/id/: src/cli/ may call only the public API"
expect_eq "findings (cli's public call is none)" "$(wc -l <<<"$out")" 2
t_end

t_begin "layers.py finds nothing in src/, by the table in docs/hacking.md: includes, and the calls of the built objects"
expect_exit 0 python3 "$layers" "$TOP"
expect_eq "findings" "$out" ""
expect_exit 0 python3 "$layers" --objects "$(dirname "$EBID")/obj" "$TOP"
expect_eq "findings of the objects" "$out" ""
t_end

# The sizes the house agreed on (docs/hacking.md, "Sizes").
sizes=$TOP/tests/lint/sizes.py
t_begin "sizes.py flags a .c file over 900 lines, a src/ function over 80 and a helper's over 120"
mkdir -p "$SCRATCH/big/src/elf" "$SCRATCH/big/scripts"
{
	printf 'int long_one(void)\n{\n'
	for i in $(seq 81); do printf '\t(void)%d;\n' "$i"; done
	printf '}\n'
	for i in $(seq 820); do printf '/* filler %d */\n' "$i"; done
} >"$SCRATCH/big/src/elf/big.c"
{
	printf '#!/usr/bin/env python3\ndef long_helper():\n'
	for i in $(seq 121); do printf '    x = %d\n' "$i"; done
} >"$SCRATCH/big/scripts/helper"
# A test helper in a folder of tests/ (tests/robust/run_kills.py had a main
# of 177 lines that the lint did not see).
mkdir -p "$SCRATCH/big/tests/robust"
{
	printf 'def long_main():\n'
	for i in $(seq 121); do printf '    x = %d\n' "$i"; done
} >"$SCRATCH/big/tests/robust/campaign.py"
expect_exit 1 python3 "$sizes" "$SCRATCH/big"
expect_match "the file" "$out" '^src/elf/big\.c:1: 9[0-9][0-9] lines \(at most 900\)'
expect_match "the C function" "$out" '^src/elf/big\.c:1: function long_one: 84 lines \(at most 80\)'
expect_match "the helper's function" "$out" '^scripts/helper:2: function long_helper: 122 lines \(at most 120\)'
expect_match "the test helper's function" "$out" '^tests/robust/campaign\.py:1: function long_main: 122 lines \(at most 120\)'
expect_eq "findings" "$(wc -l <<<"$out")" 4
t_end

t_begin "sizes.py finds nothing in src/, tests/ and scripts/"
expect_exit 0 python3 "$sizes" "$TOP"
expect_eq "findings" "$out" ""
t_end

# expect_false (lib.sh) takes only a clean failure: what it makes of each
# exit status, counted in a subshell so the probes' failures stay there.
t_begin "expect_false passes a status of 1 to 125 only: 0, 126 (not executable), 127 (not found), 128 and a signal fail the check"
probe_false() { # ARGV...: 'pass' or 'fail', what expect_false made of ARGV
	(
		t_why=()
		expect_false probe "$@" >/dev/null 2>&1
		[ ${#t_why[@]} -eq 0 ] && echo pass || echo fail
	)
}
for s in 1 2 125; do
	expect_eq "exit $s" "$(probe_false sh -c "exit $s")" pass
done
for s in 0 126 127 128 129 137 255; do
	expect_eq "exit $s" "$(probe_false sh -c "exit $s")" fail
done
expect_eq "killed by SIGTERM" "$(probe_false sh -c 'kill -TERM $$')" fail
expect_eq "a command not found" "$(probe_false "$SCRATCH/no-such-command")" fail
: >"$SCRATCH/not-executable"
expect_eq "a file not executable" "$(probe_false "$SCRATCH/not-executable")" fail
t_end

t_done
