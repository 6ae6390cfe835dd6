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
