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

. "$TOP/tests/fuzz-lib.sh"
# The seeds reach both readers: pprof (gzip'd and plain) and perf.data.
fuzz_campaign "profile readers" "$TOP/build/fuzz/fuzz_pprof" "${EBID_FUZZ_PPROF_SECONDS:-30}" \
	"$TOP/build/fuzz/pprof" fuzz-pprof pprof-ids.pb.gz pprof-ids.pb perf-le perf-be perf-pipe
t_done
