#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# tier: slow (a fuzzing campaign)
# A short libFuzzer campaign (EBID_FUZZ_ARTIFACT_SECONDS, default 30) over
# the artifact reader: tests/fuzz/fuzz_artifact.c reads its input as a
# Debian package, an RPM package or a tarball (an OCI image tar among
# them) with artifact_read() under small limits, and checks that a failed
# read says why with a negative code, that every member's name is in
# normal form (no '..', no leading '/' or './') under the artifact's, that
# every member has an outcome and a message when skipped or failed, and
# that each ELF member reaches the judge as a sealed memfd of its declared
# size with its SHA-256. Built with clang -fsanitize=fuzzer,address,
# undefined by `make fuzz-build`; seeds: the corrupt-input corpus's
# artifacts (scripts/mkcorrupt_artifacts.py). A finding fails the test;
# the input is kept in build/fuzz/artifact/artifacts/.
. "$(dirname "$0")/lib.sh"

require_deps robust

secs=${EBID_FUZZ_ARTIFACT_SECONDS:-30}
fuzzout=$TOP/build/fuzz/artifact
bin=$TOP/build/fuzz/fuzz_artifact
t_begin "make fuzz-build builds the artifact harness with clang and the sanitizers"
t_check
build_locked fuzz make -C "$TOP" --no-print-directory fuzz-build >"$SCRATCH/make.out" 2>&1 ||
	t_fail "make fuzz-build failed: $(tail -n 8 "$SCRATCH/make.out")"
expect_true "build/fuzz/fuzz_artifact is not executable" [ -x "$bin" ]
t_end

t_begin "a ${secs}s campaign over the artifact reader finds nothing"
if [ -x "$bin" ]; then
	build_locked fuzz-artifact "$TOP/tests/fuzz/run-fuzz.sh" "$bin" "$secs" "$fuzzout" \
		>"$SCRATCH/stats.txt" 2>&1
	frc=$?
	sed 's/^/# /' "$SCRATCH/stats.txt"
	if ! expect_eq "run-fuzz.sh exit status (1: findings in build/fuzz/artifact/artifacts/)" "$frc" 0; then
		t_fail "$(grep -h -m 5 'FINDING\|SUMMARY:\|runtime error' "$fuzzout/fuzz.log")"
	fi
	execs=$(sed -n 's/^execs: //p' "$SCRATCH/stats.txt")
	expect_match "inputs the campaign ran (execs)" "${execs:-none}" '^[1-9][0-9]*$'
	# The seeds reach every reader: a .deb, an .rpm, tarballs, an image.
	for s in deb.good rpm.garbage tar.good targz.good oci.good; do
		expect_true "seed $s was not made" [ -s "$fuzzout/seeds/$s" ]
	done
else
	t_fail "build/fuzz/fuzz_artifact was not built"
fi
t_end
t_done
