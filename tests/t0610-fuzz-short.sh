#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# tier: slow (a fuzzing campaign)
# A short libFuzzer campaign (EBID_FUZZ_SECONDS, default 60) over the
# library's in-memory path: tests/fuzz/fuzz_inject.c parses, plans every
# mode, applies, re-reads and checks (ebid_check_result, only planned bytes
# changed, the id is the hash, perf's section and the kernel's reader agree,
# a rerun converges). Built with clang -fsanitize=fuzzer,address,undefined
# by `make fuzz-build`; seeds from the fixtures (tests/fuzz/run-fuzz.sh). A
# finding fails the test; the input is kept in build/fuzz/artifacts/ (add
# it to tests/fuzz/regress/ once understood).
. "$(dirname "$0")/lib.sh"
require_fixtures plain sw nobuildid pie reserved existing

require_deps robust

secs=${EBID_FUZZ_SECONDS:-60}
t_begin "make fuzz-build builds the harness with clang and the sanitizers"
t_check
build_locked fuzz make -C "$TOP" --no-print-directory fuzz-build >"$SCRATCH/make.out" 2>&1 ||
	t_fail "make fuzz-build failed: $(tail -n 8 "$SCRATCH/make.out")"
expect_true "build/fuzz/fuzz_inject is not executable" [ -x "$TOP/build/fuzz/fuzz_inject" ]
# The seeds' small bases (shared with t0600 and t0620), made under the lock
# so that run-fuzz.sh finds them up to date and only reads them.
expect_true "mkcorrupt.py --small-only failed" build_locked robust python3 "$TOP/scripts/mkcorrupt.py" \
	--small-only --small-dir "$TOP/build/robust/small" >/dev/null
t_end

t_begin "a ${secs}s campaign finds nothing"
if [ -x "$TOP/build/fuzz/fuzz_inject" ]; then
	"$TOP/tests/fuzz/run-fuzz.sh" "$TOP/build/fuzz/fuzz_inject" "$secs" \
		"$TOP/build/fuzz" >"$SCRATCH/stats.txt" 2>&1
	frc=$?
	sed 's/^/# /' "$SCRATCH/stats.txt"
	if ! expect_eq "run-fuzz.sh exit status (1: findings in build/fuzz/artifacts/)" "$frc" 0; then
		t_fail "$(grep -h -m 5 'FINDING\|SUMMARY:\|runtime error' "$TOP/build/fuzz/fuzz.log")"
	fi
	execs=$(sed -n 's/^execs: //p' "$SCRATCH/stats.txt")
	expect_match "inputs the campaign ran (execs)" "${execs:-none}" '^[1-9][0-9]*$'
else
	t_fail "build/fuzz/fuzz_inject was not built"
fi
t_end
t_done
