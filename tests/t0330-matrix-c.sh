#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# tier: slow (compat-matrix over every C shape)
# Issue 3: elf-buildid over C programs and shared libraries from gcc and
# clang with GNU ld, gold, lld and mold: static, dynamic, PIE and not, with
# and without --build-id. Linker ids (lld's 8 bytes too) are left alone
# byte-identical; reserved ones backfilled; no room: refused with a hint.
. "$(dirname "$0")/lib.sh"
. "$TOP/tests/matrix-lib.sh"
require_tool

matrix_run c

t_begin "linker ids are left byte-identical (same inode and mtime)"
check_rows "with a valid kernel-visible id" '$8 == "left alone"' action untouched again
t_end

t_begin "refusals: exit 2, one line naming a linker flag, file untouched"
check_rows "?refused" '$7 == "refused"' message untouched dry-run policy
t_end

t_begin "reserved (all-zero) linker notes are backfilled with the content id"
check_rows "reserved by the linker" '$8 == "backfilled"' action id section kernel runs planned
t_end

t_done
