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

. "$TOP/tests/fuzz-lib.sh"
# The seeds reach every reader: a .deb, an .rpm, tarballs, an image.
fuzz_campaign "artifact reader" "$TOP/build/fuzz/fuzz_artifact" "${EBID_FUZZ_ARTIFACT_SECONDS:-30}" \
	"$TOP/build/fuzz/artifact" fuzz-artifact deb.good rpm.garbage tar.good targz.good oci.good
t_done
