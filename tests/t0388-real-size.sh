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
# In make test, the two gcc lld programs: new-load, and insert-gap with
# move-head past the first page (built here when out of date, a few
# seconds); t0389, in the slow tier, sources this script with
# EBID_SHAPES=all for the whole real group.
if [ "${EBID_SHAPES:-}" = all ]; then
	group=real
else
	group='real-gcc-lld-pie*-nobuildid'
fi
mapfile -t run_shapes < <("$TOP/scripts/build-matrix.sh" -l "$group" | cut -f1)
# in_run NAME: NAME is one of this run's shapes.
in_run() { [[ " ${run_shapes[*]} " == *" $1 "* ]]; }

matrix_run "$group"

# The shapes are what they claim, by readelf: the first PT_LOAD runs past
# the first page, and the dynamic symbol table has the 400 functions
# (none: the pielibc programs have them linked in and import only libc).
t_begin "real-size shapes: first PT_LOAD past the first page, 400 dynamic symbols"
n=0
while IFS=$'\t' read -r name _; do
	n=$((n + 1))
	f=$matrix/$name
	load=$(readelf -lW "$f" | awk '$1 == "LOAD" { print $5; exit }')
	expect_true "$name: first PT_LOAD is ${load:-missing} bytes, not past the first page" \
		eval '[ -n "$load" ] && [ $((load)) -gt 4096 ]'
	syms=$(readelf --dyn-syms -W "$f" | grep -c ' real_f1[0-9][0-9][0-9]$')
	want=400
	[[ $name == *-pielibc-* ]] && want=0
	expect_eq "$name: dynamic real_f* symbols" "$syms" "$want"
done < <("$TOP/scripts/build-matrix.sh" -l "$group")
expect_ne "shapes listed" "$n" 0
t_end

# section FILE NAME: the section's address and file offset (hex, no 0x).
section() {
	readelf -SW "$1" | sed -n 's/^ *\[ *[0-9]*\] *//p' |
		awk -v n="$2" '$1 == n { print $3, $4; exit }'
}

# The lld program that needs only libc: the run after the program headers
# (.interp, .note.ABI-tag, .dynsym) goes behind the first PT_LOAD, past the
# first page; the note stays in the first page under a PT_NOTE of its own;
# DT_SYMTAB names .dynsym's new address. Judged by readelf on the result
# compat-matrix wrote (its run directory keeps it).
t_begin "lld real-size PIE: .dynsym moved behind the first PT_LOAD, note in page 0"
for name in real-gcc-lld-pielibc-nobuildid real-clang-lld-pielibc-nobuildid; do
	in_run "$name" || continue
	f=$SCRATCH/run/$name/$name
	words=$(awk -F'\t' -v n="$name" '$1 == n { print $7 }' "$tsv")
	expect_eq "$name: outcome" "$words" injected || continue
	expect_match "$name: plan" "$(cat "$SCRATCH/run/$name/dry-run.out")" \
		'insert-gap,move-head'
	note=$(readelf -lW "$f" | awk '$1 == "NOTE" { print $2, $5; exit }')
	read -r noff nsz <<<"$note"
	expect_true "$name: first PT_NOTE ($note) not in the first page" \
		eval '[ -n "$noff" ] && [ $((noff + nsz)) -le 4096 ]'
	bid=$(section "$f" .note.gnu.build-id | cut -d' ' -f2)
	expect_eq "$name: the first PT_NOTE is .note.gnu.build-id" "$((noff))" "$((0x${bid:-0}))"
	dynsym=$(section "$f" .dynsym | cut -d' ' -f1)
	symtab=$(readelf -dW "$f" | awk '$2 == "(SYMTAB)" { print $3 }')
	load=$(readelf -lW "$matrix/$name" | awk '$1 == "LOAD" { print $5; exit }')
	expect_true "$name: .dynsym at 0x$dynsym, not behind the first PT_LOAD ($load)" \
		eval '[ -n "$dynsym" ] && [ $((0x$dynsym)) -ge $((load)) ]'
	expect_eq "$name: DT_SYMTAB is .dynsym's address" "$((symtab))" "$((0x$dynsym))"
	expect_eq "$name: readelf -D --dyn-syms through DT_SYMTAB" \
		"$(readelf -DW --dyn-syms "$f" | grep -c ' puts\| printf\| strlen')" \
		"$(readelf -DW --dyn-syms "$matrix/$name" | grep -c ' puts\| printf\| strlen')"
done
t_end

# mold puts p_offset 0 in PT_GNU_RELRO and PT_TLS (and PT_GNU_STACK holds no
# file bytes): the loader applies them by address, so they are no reason
# to refuse, and they come out as they went in.
name=real-gcc-mold-shlib-nobuildid
if in_run "$name"; then
	t_begin "mold real-size library: PT_GNU_RELRO and PT_TLS at p_offset 0 kept as they were"
	f=$SCRATCH/run/$name/$name
	relro_in=$(readelf -lW "$matrix/$name" | awk '$1 == "GNU_RELRO" || $1 == "TLS"')
	expect_match "$name: input has PT_GNU_RELRO at p_offset 0" "$relro_in" \
		'GNU_RELRO +0x000000 '
	expect_eq "$name: outcome" "$(awk -F'\t' -v n="$name" '$1 == n { print $7 }' "$tsv")" injected
	expect_eq "$name: PT_GNU_RELRO and PT_TLS after inject" \
		"$(readelf -lW "$f" | awk '$1 == "GNU_RELRO" || $1 == "TLS"')" "$relro_in"
	t_end
fi

# A .dynsym of 400 symbols (about 10 KiB) right after .interp and the
# notes: the run would have to leave the first page, and lld leaves about
# one page of address room behind the first PT_LOAD, so move-head cannot
# take it. new-load copies the run into a new read-only PT_LOAD at the end
# of the file, above every segment; the first page keeps the note. Judged
# by readelf, eu-readelf and perf on the result compat-matrix wrote (it
# also ran it, recorded the kernel's MMAP2 id, ran eu-elflint and injected
# again: the rows checked below), and by strip on a copy.
t_begin "real-size shapes whose .dynsym leaves the first page: new-load"
for name in real-gcc-lld-pie-nobuildid real-gcc-lld-nopie-nobuildid \
	real-clang-lld-pie-nobuildid real-gcc-lld-shlib-nobuildid \
	real-clang-lld-shlib-nobuildid real-gcc-gold-shlib-nobuildid; do
	in_run "$name" || continue
	f=$SCRATCH/run/$name/$name
	words=$(awk -F'\t' -v n="$name" '$1 == n { print $7 }' "$tsv")
	expect_eq "$name: outcome" "$words" injected || continue
	expect_match "$name: plan" "$(cat "$SCRATCH/run/$name/dry-run.out")" \
		'add-pt-note,.*new-load'
	# The PT_LOADs in ascending address order; the last one new, read-only,
	# mapping .dynsym (moved there) and nothing the input's loads had.
	loads=$(readelf -lW "$f" | awk '$1 == "LOAD" { print $2, $3, $5, $7 }')
	expect_eq "$name: one PT_LOAD more" "$(wc -l <<<"$loads")" \
		"$(($(readelf -lW "$matrix/$name" | grep -c '^ *LOAD ') + 1))"
	expect_eq "$name: PT_LOADs in ascending address order" \
		"$(awk '{ print $2 }' <<<"$loads" | while read -r a; do echo $((a)); done | sort -n -c 2>&1 && echo sorted)" sorted
	read -r loff laddr lsz lflg <<<"$(tail -n 1 <<<"$loads")"
	expect_eq "$name: the new PT_LOAD is read-only" "$lflg" R
	dynsym=$(section "$f" .dynsym)
	read -r daddr doff <<<"$dynsym"
	expect_true "$name: .dynsym (0x$doff, 0x$daddr) not in the new PT_LOAD ($loff $laddr $lsz)" \
		eval '[ -n "$doff" ] && [ $((0x$doff)) -ge $((loff)) ] &&
			[ $((0x$doff - loff)) -eq $((0x$daddr - laddr)) ] &&
			[ $((0x$doff)) -lt $((loff + lsz)) ]'
	# Behind every segment's bytes of the input, and before every
	# non-allocated section (dwz wants the allocated ones first).
	segs_end=$(readelf -lW "$matrix/$name" | while read -r _ o _ _ fs _; do
		[[ "$o" == 0x* ]] && echo $((o + fs)); done | sort -n | tail -n 1)
	expect_true "$name: the new PT_LOAD ($loff) not behind the input's segments' bytes ($segs_end)" \
		[ $((loff)) -ge "$segs_end" ]
	expect_eq "$name: non-allocated sections before the new PT_LOAD's end" \
		"$(readelf -SW "$f" | sed -n 's/^ *\[ *[0-9]*\] //p' | while read -r sn st _ so _ _ sf _; do
			[ "$sn" = NULL ] || [ "$st" = NOBITS ] || [[ "$sf" == *A* ]] && continue
			[ $((0x$so)) -lt $((loff + lsz)) ] && echo "$sn"
		done)" ""
	symtab=$(readelf -dW "$f" | awk '$2 == "(SYMTAB)" { print $3 }')
	expect_eq "$name: DT_SYMTAB is .dynsym's address" "$((symtab))" "$((0x$daddr))"
	note=$(readelf -lW "$f" | awk '$1 == "NOTE" { print $2, $5; exit }')
	read -r noff nsz <<<"$note"
	expect_true "$name: first PT_NOTE ($note) not in the first page" \
		eval '[ -n "$noff" ] && [ $((noff + nsz)) -le 4096 ]'
	id=$(readelf -nW "$f" | sed -n 's/.*Build ID: *\([0-9a-f]*\).*/\1/p')
	expect_match "$name: readelf -n shows a build id" "$id" '^[0-9a-f]{40}$'
	expect_match "$name: perf buildid-list -i" \
		"$(perf buildid-list -i "$f" 2>/dev/null)" "^$id"
	# strip keeps the note and the new segment; the stripped copy runs.
	strip -o "$SCRATCH/$name.stripped" "$f"
	expect_eq "$name: strip keeps the id" \
		"$(readelf -nW "$SCRATCH/$name.stripped" | sed -n 's/.*Build ID: *\([0-9a-f]*\).*/\1/p')" "$id"
	# A library is loaded by the matrix's loader (dlopen), which takes
	# only its path; a program gets three arguments.
	if [[ $name == *-shlib-* ]]; then
		run=("$matrix/loader") args=()
	else
		run=() args=(a b c)
	fi
	want=$(LD_LIBRARY_PATH=$matrix "${run[@]}" "$matrix/$name" "${args[@]}" 2>&1; echo "exit $?")
	got=$(LD_LIBRARY_PATH=$matrix "${run[@]}" "$SCRATCH/$name.stripped" "${args[@]}" 2>&1; echo "exit $?")
	expect_match "$name: the original runs" "$want" 'hello'
	expect_eq "$name: the stripped copy's output" "$got" "$want"
done
t_end

t_begin "injected real-size shapes: id, readers, kernel, runs, elflint, plan"
check_rows "injected" '$7 == "injected"' action id section kernel runs planned again headers elflint
t_end

# Since new-load, no real-size shape is refused; one that is must still
# leave its file untouched and name a linker flag.
t_begin "refused real-size shapes: none; any would exit 2, name a linker flag, untouched"
expect_eq "real-size shapes refused" "$(awk -F'\t' '$7 == "refused"' "$tsv" | wc -l)" 0
check_rows "?refused" '$7 == "refused"' message untouched dry-run policy
t_end

t_done
