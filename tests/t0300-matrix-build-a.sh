#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# tier: slow (the matrix's Go builds, minutes from a cold Go cache)
# Issue 3, part 1 of the matrix build: Go internal linking for 386, amd64,
# arm, arm64, loong64 and the four MIPS (with amd64's cgo, external and
# c-shared shapes, whose names start go-amd64). A cold Go cache compiles
# the standard library once per GOARCH, so the build is split over this
# script and t0301 to keep each well inside tests/run.sh's timeout; both
# are no-ops when build/matrix/ is up to date.
. "$(dirname "$0")/lib.sh"
. "$TOP/tests/matrix-lib.sh"

matrix_build 'go-386*' 'go-amd64*' 'go-arm*' 'go-loong64*' 'go-mips*'

t_done
