#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# tier: slow (a fuzzing campaign)
# A short libFuzzer campaign (EBID_FUZZ_PPROF_SECONDS, default 30) over the
# profile readers: tests/fuzz/fuzz_pprof.c parses pprof profiles from
# memory (ebid_pprof_parse; every binary has a path among the profile's
# strings, an id in lower-case hex or none, at most one per mapping, and a
# gzip'd profile reads as its inflated bytes) and checks perf.data headers
# through ebid_profile_read with perf replaced at link time. Built with
# clang -fsanitize=fuzzer,address,undefined by `make fuzz-build`; seeds from
# tests/fuzz/pprof_seeds.py (tests/pprof.py, Go's runtime/pprof, perf.data
# headers). A finding fails the test; the input is kept in
# build/fuzz/pprof/artifacts/ (add it to tests/fuzz/regress/ once
# understood).
. "$(dirname "$0")/lib.sh"

require_deps robust

secs=${EBID_FUZZ_PPROF_SECONDS:-30}
fuzzout=$TOP/build/fuzz/pprof
bin=$TOP/build/fuzz/fuzz_pprof
t_begin "make fuzz-build builds the profile harness with clang and the sanitizers"
t_check
build_locked fuzz make -C "$TOP" --no-print-directory fuzz-build >"$SCRATCH/make.out" 2>&1 ||
	t_fail "make fuzz-build failed: $(tail -n 8 "$SCRATCH/make.out")"
expect_true "build/fuzz/fuzz_pprof is not executable" [ -x "$bin" ]
t_end

t_begin "a ${secs}s campaign over the profile readers finds nothing"
if [ -x "$bin" ]; then
	build_locked fuzz-pprof "$TOP/tests/fuzz/run-fuzz.sh" "$bin" "$secs" "$fuzzout" \
		>"$SCRATCH/stats.txt" 2>&1
	frc=$?
	sed 's/^/# /' "$SCRATCH/stats.txt"
	if ! expect_eq "run-fuzz.sh exit status (1: findings in build/fuzz/pprof/artifacts/)" "$frc" 0; then
		t_fail "$(grep -h -m 5 'FINDING\|SUMMARY:\|runtime error' "$fuzzout/fuzz.log")"
	fi
	execs=$(sed -n 's/^execs: //p' "$SCRATCH/stats.txt")
	expect_match "inputs the campaign ran (execs)" "${execs:-none}" '^[1-9][0-9]*$'
	# The seeds reach both readers: pprof (gzip'd and plain) and perf.data.
	for s in pprof-ids.pb.gz pprof-ids.pb perf-le perf-be perf-pipe; do
		expect_true "seed $s was not made" [ -s "$fuzzout/seeds/$s" ]
	done
else
	t_fail "build/fuzz/fuzz_pprof was not built"
fi
t_end
t_done
