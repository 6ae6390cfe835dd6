#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# tier: slow
# after: t0300-matrix-build-a t0301-matrix-build-b
# The planner's unit test over the compatibility-matrix shapes
# (build/unit/test_plan --matrix): each shape planned, applied in memory and
# judged by the test's own readers, move-note, move-head and new-load
# outputs tampered with and refused by the self-check, --no-move refused.
# `make test` runs test_plan over the synthetic files and the fixtures
# only; this half needs the matrix, so it runs in the slow tier once t0300
# and t0301 have built it (tests/run.sh honours the "after" line above). A
# shape that is missing fails here: it is never skipped.
. "$(dirname "$0")/lib.sh"

unit=$EBID_BUILD/unit/test_plan
if [ ! -x "$unit" ]; then
	echo "not ok 1 - $unit not built (make unit)"
	exit 1
fi
# test_plan prints TAP itself, one line per check.
exec "$unit" --matrix "${EBID_MATRIX:-$TOP/build/matrix}"
