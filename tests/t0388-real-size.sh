#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# Real-size C programs and shared libraries (the matrix's real group,
# fixtures/real): tens of KiB of constants put the first, read-only
# PT_LOAD past the first page, and 400 functions the program imports from
# its library give both a real program's dynamic tables. Each shape is
# injected on a copy by scripts/compat-matrix and judged by tools we did
# not write: readelf, eu-readelf and perf buildid-list show the id, the
# kernel's MMAP2 record carries it (perf record --buildid-mmap, the
# program run, the library loaded by build/matrix/loader), the output is
# the original's, eu-elflint --gnu-ld and readelf say nothing new, only
# the planned bytes change and a second run changes nothing. A refusal
# leaves the file untouched and says which linker flag gives an id.
. "$(dirname "$0")/lib.sh"
. "$TOP/tests/matrix-lib.sh"
require_tool

matrix=${EBID_MATRIX:-$TOP/build/matrix}

matrix_run real

# The shapes are what they claim, by readelf: the first PT_LOAD runs past
# the first page, and the dynamic symbol table has the 400 functions.
t_begin "real-size shapes: first PT_LOAD past the first page, 400+ dynamic symbols"
n=0
while IFS=$'\t' read -r name _; do
	n=$((n + 1))
	f=$matrix/$name
	load=$(readelf -lW "$f" | awk '$1 == "LOAD" { print $5; exit }')
	expect_true "$name: first PT_LOAD is ${load:-missing} bytes, not past the first page" \
		[ -n "$load" ] && [ $((load)) -gt 4096 ]
	syms=$(readelf --dyn-syms -W "$f" | grep -c ' real_f1[0-9][0-9][0-9]$')
	expect_eq "$name: dynamic real_f* symbols" "$syms" 400
done < <("$TOP/scripts/build-matrix.sh" -l real)
expect_ne "shapes listed" "$n" 0
t_end

t_begin "injected real-size shapes: id, readers, kernel, runs, elflint, plan"
check_rows "injected" '$7 == "injected"' action id section kernel runs planned again headers elflint
t_end

t_begin "refused real-size shapes: exit 2, one line naming a linker flag, untouched"
check_rows "?refused" '$7 == "refused"' message untouched dry-run policy
t_end

t_done
