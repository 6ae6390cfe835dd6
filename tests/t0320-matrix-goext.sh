#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# tier: slow (compat-matrix over the cgo and external-linking shapes)
# Issue 3: elf-buildid over Go cgo (internal and external linking),
# -linkmode=external with and without --build-id, and -buildmode=c-shared:
# a linker id is left alone byte-identical, a reserved one backfilled, and
# a file without a build-id injected (move-head, issue 15), none refused.
. "$(dirname "$0")/lib.sh"
. "$TOP/tests/matrix-lib.sh"
require_tool

matrix_run goext

t_begin "linker ids are left byte-identical (same inode and mtime)"
check_rows "with a valid kernel-visible id" '$8 == "left alone"' action untouched again
t_end

# Issue 15: move-head gives the external-linking shapes without a build-id
# (linkext, cgo-external, c-shared) a note; none may be refused now.
t_begin "no shape is refused: each one without a build-id is injected"
expect_eq "refused shapes" "$(awk -F'\t' '$7 == "refused" { print $1 }' "$tsv")" ""
check_rows "injected" '$7 == "injected"' action planned again
t_end

t_begin "shared libraries still load (dlopen) and the kernel sees their id"
check_rows "a shared library, handled" '$3 == "lib" && $7 != "refused"' runs kernel
t_end

t_done
