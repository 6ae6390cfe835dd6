#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# Issue 3: elf-buildid over Go cgo (internal and external linking),
# -linkmode=external with and without --build-id, and -buildmode=c-shared:
# a linker id is left alone byte-identical, a reserved one backfilled, and
# a file without room refused with exit 2, a linker-flag hint, untouched.
. "$(dirname "$0")/lib.sh"
. "$TOP/tests/matrix-lib.sh"
require_tool

matrix_run goext

t_begin "linker ids are left byte-identical (same inode and mtime)"
check_rows "with a valid kernel-visible id" '$8 == "left alone"' action untouched again
t_end

t_begin "refusals: exit 2, one line naming a linker flag, file untouched"
check_rows "?refused" '$7 == "refused"' message untouched dry-run policy
t_end

t_begin "shared libraries still load (dlopen) and the kernel sees their id"
check_rows "a shared library, handled" '$3 == "lib" && $7 != "refused"' runs kernel
t_end

t_done
