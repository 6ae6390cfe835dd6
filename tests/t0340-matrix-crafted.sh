#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# tier: slow (compat-matrix over the crafted shapes)
# Issue 3: elf-buildid over crafted files: no section headers (handled
# through program headers, or refused clearly), extended numbering (e_shnum
# 0, SHN_XINDEX, PN_XNUM) read and written correctly, .shstrtab at the end
# of the file, and data appended after the last section or the section
# header table preserved exactly.
. "$(dirname "$0")/lib.sh"
. "$TOP/tests/matrix-lib.sh"
require_tool

matrix_run crafted

t_begin "trailing data after the last section or the section header table is preserved"
check_rows "with trailing data, handled" '$1 ~ /^trail-/ && $7 != "refused"' trailing planned runs
check_rows "?with trailing data, refused" '$1 ~ /^trail-/ && $7 == "refused"' untouched
t_end

t_begin "extended numbering: results keep section 0 consistent and pass every check"
check_rows "with extended numbering" '$1 ~ /^(xnum|pnxnum|many)-/ && $7 != "refused"' numbering section kernel runs
t_end

t_begin "no section headers: left alone, or refused with exit 2 and a linker-flag hint"
check_rows "?without section headers, refused" '$1 ~ /^noshdr-/ && $7 == "refused"' message untouched
check_rows "?without section headers, handled" '$1 ~ /^noshdr-/ && $7 != "refused"' id section kernel runs
t_end

t_done
