# SPDX-License-Identifier: MIT
# The short fuzzing campaigns of the slow tier (t0612, t0613); source after
# lib.sh. Not a test itself.
# shellcheck shell=bash

# fuzz_campaign WHAT BIN SECS DIR LOCK SEED...: two checks. `make
# fuzz-build` builds BIN (clang, libFuzzer, ASan, UBSan); then
# tests/fuzz/run-fuzz.sh runs it SECS seconds into DIR under the lock
# LOCK: it must find nothing (the findings' lines are shown), run inputs,
# and have made every SEED below DIR/seeds/ (the seeds reach every
# reader the harness has).
fuzz_campaign() {
	local what=$1 bin=$2 secs=$3 dir=$4 lock=$5 frc execs s
	shift 5
	t_begin "make fuzz-build builds the $what harness with clang and the sanitizers"
	t_check
	build_locked fuzz make -C "$TOP" --no-print-directory fuzz-build >"$SCRATCH/make.out" 2>&1 ||
		t_fail "make fuzz-build failed: $(tail -n 8 "$SCRATCH/make.out")"
	expect_true "$bin is not executable" [ -x "$bin" ]
	t_end

	t_begin "a ${secs}s campaign over the $what finds nothing"
	if [ -x "$bin" ]; then
		build_locked "$lock" "$TOP/tests/fuzz/run-fuzz.sh" "$bin" "$secs" "$dir" \
			>"$SCRATCH/stats.txt" 2>&1
		frc=$?
		sed 's/^/# /' "$SCRATCH/stats.txt"
		if ! expect_eq "run-fuzz.sh exit status (1: findings in $dir/artifacts/)" "$frc" 0; then
			t_fail "$(grep -h -m 5 'FINDING\|SUMMARY:\|runtime error' "$dir/fuzz.log")"
		fi
		execs=$(sed -n 's/^execs: //p' "$SCRATCH/stats.txt")
		expect_match "inputs the campaign ran (execs)" "${execs:-none}" '^[1-9][0-9]*$'
		for s in "$@"; do
			expect_true "seed $s was not made" [ -s "$dir/seeds/$s" ]
		done
	else
		t_fail "$bin was not built"
	fi
	t_end
}
