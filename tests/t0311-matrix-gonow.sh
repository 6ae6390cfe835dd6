#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# tier: slow (compat-matrix over every shape of today's Go)
# Issue 27: elf-buildid over what the machine's go (Go >= 1.24) builds
# today, for every GOARCH and the amd64 variants users meet: a default
# build's GNU note outside the PT_NOTE is repaired (the linker's id kept),
# -B none and an empty Go build id get a content hash, and a placeholder Go
# build id's constant GNU id (the same in two shapes linked with it, as the
# real linker wrote them) is replaced by the content hash. Foreign binaries
# still run under qemu-user; a second inject changes nothing. Go 1.19's
# shapes are t0310's.
. "$(dirname "$0")/lib.sh"
. "$TOP/tests/matrix-lib.sh"
require_tool

echo "# go: $(go version)"
matrix_run gonow

t_begin "the placeholder shapes: go tool buildid prints the placeholder, one GNU id, replaced"
check_rows "placeholder" '$1 ~ /placeholder/' placeholder constant action id
t_end

go_shape_checks

t_done
