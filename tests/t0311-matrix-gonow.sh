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

t_begin "big-endian and 32-bit shapes pass the independent id, section and kernel checks"
check_rows "big-endian or 32-bit" '$6 == "big" || $5 == "ELF32"' printed action id section kernel planned
t_end

t_begin "foreign binaries still run under qemu-user with identical output"
check_rows "run under qemu-user" '$4 ~ /^qemu-/' runs
t_end

t_begin "native binaries: the real kernel (perf record --buildid-mmap MMAP2) sees the id"
check_rows "native" '$4 == "native" && $7 != "refused"' kernel
perf_record_works || t_skip_if "$perf_record_why (only tests/ebid.py kernel ran)"
t_end

t_begin "a second inject leaves every result alone (same bytes, inode, mtime)"
check_rows "handled" '$7 != "refused"' again
t_end

t_done
