#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# tier: slow (compat-matrix over every Go shape)
# Issue 3: elf-buildid over Go's internal linking for every GOARCH: each
# shape is injected, backfilled or repaired with every independent check
# passing (never refused); big-endian and 32-bit files pass them byte-exactly;
# foreign binaries still run under qemu-user with the same output.
. "$(dirname "$0")/lib.sh"
. "$TOP/tests/matrix-lib.sh"
require_tool

matrix_run go

go_shape_checks

t_done
