#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# Issue 15, second strategy (move-head, docs/build-id.md): lld, mold and
# externally linked Go programs pack .interp and the notes right after the
# program headers with no byte free. inject moves that run behind the end
# of the first PT_LOAD, which grows over it (for lld and mold after
# inserting a gap of one segment alignment there), with its PT_INTERP,
# PT_NOTE and PT_GNU_PROPERTY headers and local symbols, and adds a
# PT_NOTE and the note. Judged by tools we did not write: readelf,
# eu-readelf, file, objcopy, eu-elflint --gnu-ld (which says nothing new),
# strip, eu-strip, perf buildid-list, the kernel's MMAP2 record, go tool
# buildid and the program's own output; a second run changes nothing,
# --no-move refuses, --in-place refuses an inserted gap, and a shape no
# strategy fits stays refused and says why.
#
# Shared libraries linked with --build-id=none have the dynamic tables
# (.gnu.hash or .hash, .dynsym, ...) right after the program headers:
# move-head moves as many of them as it takes to free room for one program
# header, in file order, and moves their DT_ entries with them. For these,
# readelf -d judges the dynamic table, readelf --dyn-syms, nm -D and
# readelf -D (through the DT_ entries alone) the dynamic symbols, and the
# library runs through build/matrix/loader (dlopen), also under perf record.
#
# The shapes come from build/matrix. In make test this script checks an
# lld executable (insert-gap and move-head) and a bfd library (its dynamic
# tables move), built here if missing (need_shapes); in the slow tier,
# after t0300 and t0301 have built the matrix, t0381 sources it with
# EBID_SHAPES=exe (every executable shape below) and t0382 with
# EBID_SHAPES=lib (every library shape): two scripts, that each fits the
# timeout on a loaded machine.
. "$(dirname "$0")/lib.sh"
require_tool

matrix=${EBID_MATRIX:-$TOP/build/matrix}
case "${EBID_SHAPES:-}" in
exe)
	shapes=(c-gcc-lld-pie-nobuildid c-gcc-lld-nopie-nobuildid
		c-clang-lld-pie-nobuildid c-clang-lld-nopie-nobuildid
		c-gcc-bfd-nopie-nobuildid c-clang-gold-nopie-nobuildid
		c-gcc-mold-pie-nobuildid c-gcc-mold-nopie-nobuildid
		c-clang-mold-pie-nobuildid c-clang-mold-nopie-nobuildid
		go-amd64-linkext-nobuildid go-amd64-cgo-external-nobuildid)
	;;
lib)
	shapes=(c-gcc-bfd-shlib-nobuildid c-gcc-gold-shlib-nobuildid
		c-gcc-lld-shlib-nobuildid c-gcc-mold-shlib-nobuildid
		c-clang-bfd-shlib-nobuildid c-clang-gold-shlib-nobuildid
		c-clang-lld-shlib-nobuildid c-clang-mold-shlib-nobuildid
		go-amd64-cshared-nobuildid)
	;;
*) shapes=(c-gcc-lld-pie-nobuildid c-gcc-bfd-shlib-nobuildid) ;;
esac
# Loads a library (dlopen), calls it and says "loader: done".
loader=$matrix/loader
# The shape whose --in-place refusal is checked (one with insert-gap).
in_place_shape=c-gcc-lld-pie-nobuildid
# A shape no strategy fits: its first PT_LOAD runs past the first page.
refused_shape=c-gcc-lld-static-nobuildid
need_shapes "${shapes[@]}" "$refused_shape"
# The gap inserted behind the first PT_LOAD: one segment alignment.
gap_size=4096

# Go's own tool reads the Go build id (.note.go.buildid).
gotool=
if have go; then
	gotool=go
elif [ -x /usr/lib/go/bin/go ]; then
	gotool=/usr/lib/go/bin/go
fi

# The program headers, one per line: index, type, offset, vaddr, paddr,
# filesz, memsz, flags (no spaces, "-" if none), align.
phdrs() { # FILE
	readelf -lW "$1" | awk '/^Program Headers:/ { on = 1; next }
		on && /^ *$/ { exit }
		on && $1 ~ /^[A-Z]/ && $1 != "Type" {
			fl = ""
			for (i = 7; i < NF; i++) fl = fl $i
			print n++, $1, $2, $3, $4, $5, $6, (fl == "" ? "-" : fl), $NF
		}'
}

# The sections, one per line: index, name, type, address, offset, size,
# flags ("-" if none), with the numbers as 0x... .
sections() { # FILE
	readelf -SW "$1" | awk '/^ *\[ *[0-9]+\]/ {
		sub(/^ *\[ */, ""); idx = $0; sub(/\].*/, "", idx); sub(/^[0-9]+\] */, "")
		if (idx == 0) next
		fl = (NF == 10 ? $7 : "-")
		print idx, $1, $2, "0x" $3, "0x" $4, "0x" $5, fl
	}'
}

# sec_field FILE-SECTIONS NAME COLUMN: a column of one section's line.
sec_field() { awk -v n="$2" -v c="$3" '$2 == n { print $c; exit }' <<<"$1"; }

# The lines of sections() on standard input but those of the sections in
# ${moved[@]} and of the new note.
unmoved() { awk -v m=" ${moved[*]-} .note.gnu.build-id " 'index(m, " " $2 " ") == 0'; }

# The symbols of .symtab (not .dynsym), one per line: number, value, size,
# type, bind, section (by name: inject may renumber the sections), name.
symtab() { # FILE
	syms_by_name --syms "$1" | awk '/^Symbol table / { on = ($0 ~ /\x27\.symtab\x27/); next }
		on && $1 ~ /^[0-9]+:$/ { print $1, $2, $3, $4, $5, $7, $8 }'
}

# elflint_of and elflint_renumbered are in tests/lib.sh.

# What running FILE prints (stdout and stderr) and its exit status: a
# program runs with the arguments a b c, a library is loaded by the loader.
run_it() { # FILE
	local status=0
	if [ "$is_lib" = 1 ]; then
		"$loader" "$1" 2>&1 || status=$?
	else
		"$1" a b c 2>&1 || status=$?
	fi
	echo "exit $status"
}

# The sections move-head is to move in a library (sections as sections()
# prints them): the allocated ones from the end of the program header
# table on, in file order, while the bytes freed so far (up to the next
# section) could not take one more program header.
lib_moved() { # SECTIONS PHDR-TABLE-END PHENTSIZE
	local name typ off size fl
	while read -r _ name typ _ off size fl; do
		[ "$typ" != NOBITS ] && [[ "$fl" == *A* ]] && [ $((size)) -gt 0 ] &&
			[ $((off)) -ge "$2" ] && echo "$((off)) $name"
	done <<<"$1" | sort -n | awk -v end="$2" -v ent="$3" '$1 - end >= ent { exit } { print $2 }'
}

# The sections inject moved in an executable (sections as sections() prints
# them, before and after): .interp and every note that follow the program
# header table, and the dynamic tables that follow those in file order
# while their address changed. A non-PIE program with a .dynstr gets them
# moved too where patchelf would leave the note behind a shorter run
# (docs/build-id.md: move-head takes tables until the freed bytes hold the
# note too). So the moved ones are a prefix of the sections after the
# table, of those kinds; the check below then proves every other section
# kept its address. Whether a table had to move is the planner's: not
# judged here.
exe_moved() { # SECTIONS-BEFORE SECTIONS-AFTER PHDR-TABLE-END
	local name typ addr off size fl now
	while read -r _ name typ addr off size fl; do
		[ "$typ" != NOBITS ] && [[ "$fl" == *A* ]] && [ $((size)) -gt 0 ] &&
			[ $((off)) -ge "$3" ] && echo "$((off)) $name $typ $addr"
	done <<<"$1" | sort -n | while read -r _ name typ addr; do
		if [ "$name" = .interp ] || [[ "$name" == .note.* ]]; then
			echo "$name"
			continue
		fi
		case "$typ" in
		GNU_HASH | HASH | DYNSYM | VERSYM | VERNEED | VERDEF) ;;
		STRTAB) [ "$name" = .dynstr ] || break ;;
		*) break ;;
		esac
		now=$(awk -v n="$name" '$2 == n { print $4; exit }' <<<"$2")
		[ -n "$now" ] && [ $((now)) != $((addr)) ] || break
		echo "$name"
	done
}

# The end of the program header table and the size of one header.
phdr_table() { # FILE
	readelf -hW "$1" | awk -F: '
		/Start of program headers/ { off = $2 + 0 }
		/Size of program headers/ { ent = $2 + 0 }
		/Number of program headers/ { n = $2 + 0 }
		END { print off + n * ent, ent }'
}

# The dynamic entries as readelf -dW shows them, one per line: index, tag,
# tag name (NEEDED, GNU_HASH, ...) and value.
dynamic() { # FILE
	readelf -dW "$1" | awk '$1 ~ /^0x[0-9a-f]+$/ && $2 ~ /^\(.*\)$/ {
		tag = $1; t = $2; gsub(/[()]/, "", t); $1 = ""; $2 = ""; sub(/^ +/, "")
		print n++, tag, t, $0
	}'
}

# The section type (readelf -S) of the table each address entry names.
declare -A dt_sec_type=([GNU_HASH]=GNU_HASH [HASH]=HASH [SYMTAB]=DYNSYM
	[STRTAB]=STRTAB [VERSYM]=VERSYM [VERNEED]=VERNEED [VERDEF]=VERDEF)

# A copy of FILE (ELF64, little-endian) without section headers: e_shoff,
# e_shnum and e_shstrndx zeroed. readelf -D then finds the dynamic symbols
# only through the DT_ entries, as the dynamic loader does.
no_shdrs() { # FILE COPY
	[ "$(od -An -tx1 -j4 -N2 "$1" | tr -d ' ')" = 0201 ] || return 1
	cp "$1" "$2" &&
		printf '\0\0\0\0\0\0\0\0' | dd of="$2" bs=1 seek=40 conv=notrunc status=none &&
		printf '\0\0\0\0' | dd of="$2" bs=1 seek=60 conv=notrunc status=none
}

# The library's own blocks, for shape $s: $orig and $f (injected), their
# sections $so and $sn, the moved sections ${moved[@]} and the dry run
# $dry.
lib_dynamic_block() {
	local dyn_o dyn_n name styp old new hits i tag t v got want skip=" " bad=()
	local dyn_off dry_want dry_got

	t_begin "$s: each moved table's DT_ entry follows it; the other dynamic entries stay"
	dyn_o=$(dynamic "$orig")
	dyn_n=$(dynamic "$f")
	dyn_off=$(sec_field "$sn" .dynamic 5)
	dry_want=
	expect_ne "dynamic entries of the input" "$dyn_o" ""
	expect_eq "dynamic entry count" "$(wc -l <<<"$dyn_n")" "$(wc -l <<<"$dyn_o")"
	for name in "${moved[@]}"; do
		styp=$(sec_field "$so" "$name" 3)
		old=$(sec_field "$so" "$name" 4)
		new=$(sec_field "$sn" "$name" 4)
		want=$(printf '%#x' $((new)))
		hits=0
		while read -r i tag t v; do
			if [ "${dt_sec_type[$t]-}" != "$styp" ] || [[ "$v" != 0x* ]] ||
				[ $((v)) != $((old)) ]; then
				continue
			fi
			hits=$((hits + 1))
			skip+="$i "
			got=$(awk -v i="$i" '$1 == i { print $3, $4 }' <<<"$dyn_n")
			[ "$got" = "$t $want" ] ||
				bad+=("$name: entry $i is '$got', want '$t $want'")
			# The dry run names the value it patches (ELF64: entries of
			# 16 bytes, the 8-byte tag then the value).
			dry_want+="$(printf 'patch %#x 8 dynamic entry (tag %#x, moved)' \
				$((dyn_off + 16 * i + 8)) $((tag)))"$'\n'
		done <<<"$dyn_o"
		[ "$hits" -gt 0 ] || bad+=("$name ($styp at $old): no dynamic entry named it in the input")
	done
	expect_eq "entries of the moved tables" "$(printf '%s\n' "${bad[@]-}")" ""
	expect_eq "the other entries" \
		"$(awk -v s="$skip" 'index(s, " " $1 " ") == 0' <<<"$dyn_n")" \
		"$(awk -v s="$skip" 'index(s, " " $1 " ") == 0' <<<"$dyn_o")"
	dry_got=$(grep -E '^ *patch .* dynamic entry ' <<<"$dry" | sed 's/^ *//' | sort)
	expect_eq "dry run: the dynamic entries it patches" \
		"$dry_got" "$(sort <<<"${dry_want%$'\n'}")"
	t_end

	t_begin "$s: the same dynamic symbols and relocations (readelf, nm -D, readelf -D without section headers)"
	expect_eq "readelf --dyn-syms -W (sections by name)" \
		"$(syms_by_name --dyn-syms "$f")" "$(syms_by_name --dyn-syms "$orig")"
	expect_ne "dynamic symbols of the input" "$(readelf --dyn-syms -W "$orig" 2>/dev/null)" ""
	expect_eq "nm -D" "$(nm -D "$f" 2>&1)" "$(nm -D "$orig" 2>&1)"
	expect_eq "readelf -rW" \
		"$(readelf -rW "$f" 2>&1 | sed 's/ at offset 0x[0-9a-f]*//')" \
		"$(readelf -rW "$orig" 2>&1 | sed 's/ at offset 0x[0-9a-f]*//')"
	if no_shdrs "$orig" "$SCRATCH/$s.orig.noshdr" && no_shdrs "$f" "$SCRATCH/$s.noshdr"; then
		got=$(syms_by_name "-D -s" "$SCRATCH/$s.noshdr" "$f")
		expect_match "readelf -D -sW: found through DT_SYMTAB" "$got" "^Symbol table for image contains [0-9]+ entries:"
		expect_eq "readelf -D -sW (no section headers; sections named by the files' tables)" \
			"$got" "$(syms_by_name "-D -s" "$SCRATCH/$s.orig.noshdr" "$orig")"
	else
		t_fail "no copy without section headers (not ELF64 LSB?)"
	fi
	t_end
}

# The advice a refusal must end with, as README.md shows it.
zeros=0000000000000000000000000000000000000000
advice_c="relink with -Wl,--build-id (C) or -ldflags=-B=0x$zeros (Go)"
advice_go="relink with -ldflags=-B=0x$zeros to reserve a note"
refusals=() # "SHAPE<TAB>WANTED-ADVICE<TAB>MESSAGE" of each refusal seen

perf_ok=0
perf_record_works && perf_ok=1

for s in "${shapes[@]}"; do
	case "$s" in
	*-shlib-* | *-cshared-*) is_lib=1 ;;
	*) is_lib=0 ;;
	esac
	[ -f "$matrix/$s" ] || continue # need_shapes failed
	if [ "$is_lib" = 1 ] && [ ! -x "$loader" ]; then
		t_begin "$s: move-head"
		t_fail "$loader not built (scripts/build-matrix.sh builds it with any shape)"
		t_end
		continue
	fi
	orig=$SCRATCH/$s.orig
	f=$SCRATCH/$s
	cp "$matrix/$s" "$orig"
	cp "$matrix/$s" "$f"
	chmod u+w "$f"
	want_out=$(run_it "$orig")
	case "$s" in
	go-*)
		is_go=1
		advice=$advice_go
		flag_re="relink with -ldflags=-B=0x"
		;;
	*)
		is_go=0
		advice=$advice_c
		flag_re="relink with -Wl,--build-id"
		;;
	esac
	# bfd and gold (and Go's internal layout) leave padding behind the
	# first PT_LOAD; lld and mold do not, and get a gap inserted there.
	case "$s" in
	go-* | c-*-bfd-* | c-*-gold-*)
		want_actions="add-note,fill,add-pt-note,add-section-name,move-head"
		gap=0
		;;
	*)
		want_actions="add-note,fill,add-pt-note,add-section-name,insert-gap,move-head"
		gap=$gap_size
		;;
	esac

	t_begin "$s: --no-move refuses it, naming the rule and a linker flag; file untouched"
	expect_exit 2 "$EBID" inject --no-move "$f"
	expect_one_error_line "$f"
	expect_match "message" "$err" "the sections after the program headers cannot move: --no-move forbids moving them"
	expect_match "message" "$err" "$flag_re"
	expect_true "file changed" cmp -s "$orig" "$f"
	t_end
	refusals+=("$s	$advice	$err")

	if [ "$is_lib" = 1 ]; then
		t_begin "$s: inject moves the first dynamic tables and adds the note (move-head)"
	else
		t_begin "$s: inject moves .interp and the notes and adds the note (move-head)"
	fi
	expect_exit 0 "$EBID" inject -n "$f"
	dry=$out
	expect_match "dry-run" "$(head -n 1 <<<"$out")" ": $want_actions\$"
	expect_true "dry run changed the file" cmp -s "$orig" "$f"
	inject_ok "$f"
	t_end
	injected=$id
	[ -n "$injected" ] || continue

	t_begin "$s: readers see the id: readelf, eu-readelf, file, ebid.py (section and kernel rules)"
	expect_eq "readelf -n" "$(readelf_ids "$f")" "$injected"
	expect_eq "eu-readelf -n" "$(eu_readelf_ids "$f")" "$injected"
	expect_eq "file" "$(file_id "$f")" "$injected"
	expect_eq "ebid.py note" "$(py_note "$f")" "$injected"
	expect_eq "ebid.py kernel" "$(py_kernel "$f")" "$injected"
	expect_eq "ebid.py id (the content hash)" "$(py_id "$f")" "$injected"
	t_end

	so=$(sections "$orig")
	sn=$(sections "$f")
	po=$(phdrs "$orig")
	pn=$(phdrs "$f")
	if [ "$is_lib" = 1 ]; then
		# The moved sections: the first dynamic tables (lib_moved).
		# shellcheck disable=SC2046 # the two numbers
		mapfile -t moved < <(lib_moved "$so" $(phdr_table "$orig"))
	else
		# The moved sections: .interp, every note, tables behind them.
		read -r ph_end _ < <(phdr_table "$orig")
		mapfile -t moved < <(exe_moved "$so" "$sn" "$ph_end")
	fi
	# The first PT_LOAD, before and after.
	read -r _ _ l0_off _ _ l0_fsz _ _ _ < <(awk '$2 == "LOAD" { print; exit }' <<<"$po")
	read -r _ _ n0_off n0_va _ n0_fsz _ _ _ < <(awk '$2 == "LOAD" { print; exit }' <<<"$pn")
	l0_end=$((l0_off + l0_fsz))
	bid_off=$(sec_field "$sn" .note.gnu.build-id 5)
	bid_addr=$(sec_field "$sn" .note.gnu.build-id 4)
	bid_size=$(sec_field "$sn" .note.gnu.build-id 6)
	# The new PT_NOTE: the NOTE at the note's offset.
	new_pt=
	if [ -n "$bid_off" ]; then
		new_pt=$(while read -r i t o _; do
			[ "$t" = NOTE ] && [ $((o)) = $((bid_off)) ] && echo "$i"
		done <<<"$pn")
	fi

	t_begin "$s: sections that did not move keep their addresses; alloc ones move in the file only by the gap"
	expect_ne "moved sections" "${moved[*]-}" ""
	expect_eq "sections at the same addresses (but the moved ones: ${moved[*]-})" \
		"$(unmoved <<<"$sn" | awk '{ print $2, $4 }' | sort)" \
		"$(unmoved <<<"$so" | awk '{ print $2, $4 }' | sort)"
	expect_eq "section headers in the linkers' order (or numbered as before)" \
		"$(shdr_order_kept "$orig" "$f")" ""
	bad=()
	while read -r _ name _ _ off _ fl; do
		[[ "$fl" == *A* ]] || continue
		new_off=$(sec_field "$sn" "$name" 5)
		want=$((off))
		[ "$want" -ge "$l0_end" ] && want=$((want + gap))
		[ -n "$new_off" ] && [ $((new_off)) = "$want" ] ||
			bad+=("$name: offset $off -> ${new_off:-gone}, want $(printf '%#x' "$want")")
	done < <(unmoved <<<"$so")
	expect_eq "alloc section offsets" "${bad[*]-}" ""
	t_end

	t_begin "$s: the moved sections (${moved[*]-}) keep their bytes, under their program headers and symbols"
	for name in "${moved[@]}"; do
		if [ "$(sec_field "$so" "$name" 3)" = DYNSYM ]; then
			# Its st_shndx fields follow the sections' new numbers.
			expect_eq "$name's symbols (sections by name)" \
				"$(syms_by_name --dyn-syms "$f")" \
				"$(syms_by_name --dyn-syms "$orig")"
		else
			expect_eq "$name's bytes" \
				"$(objcopy -O binary --only-section="$name" "$f" /dev/stdout | od -An -tx1)" \
				"$(objcopy -O binary --only-section="$name" "$orig" /dev/stdout | od -An -tx1)"
		fi
		addr=$(sec_field "$sn" "$name" 4)
		off=$(sec_field "$sn" "$name" 5)
		size=$(sec_field "$sn" "$name" 6)
		expect_eq "$name's size" "$size" "$(sec_field "$so" "$name" 6)"
		expect_ne "$name's address" "$addr" "$(sec_field "$so" "$name" 4)"
		# Mapped where the grown first PT_LOAD maps its bytes.
		expect_true "$name ($off+$size at $addr) is not where the first PT_LOAD maps it" \
			[ $((off)) -ge $((n0_off)) -a $((off + size)) -le $((n0_off + n0_fsz)) \
			-a $((addr - off)) = $((n0_va - n0_off)) ]
		if [ "$name" = .interp ]; then
			read -r _ _ i_off i_va _ i_fsz _ _ _ < <(awk '$2 == "INTERP"' <<<"$pn")
			expect_eq "PT_INTERP offset" "$((i_off))" "$((off))"
			expect_eq "PT_INTERP vaddr" "$((i_va))" "$((addr))"
			expect_eq "PT_INTERP filesz" "$((i_fsz))" "$((size))"
		elif [[ "$name" == .note.* ]]; then
			# The PT_NOTE that covered it covers it at its new place.
			expect_true "no PT_NOTE maps $name at $off+$size, $addr" \
				grep -q . <<<"$(while read -r _ t o v _ fs _; do
					[ "$t" = NOTE ] && [ $((o)) -le $((off)) ] &&
						[ $((off + size)) -le $((o + fs)) ] &&
						[ $((v - o)) = $((addr - off)) ] && echo y
				done <<<"$pn")"
		fi
	done
	expect_eq "program interpreter" \
		"$(readelf -lW "$f" | grep 'Requesting program interpreter')" \
		"$(readelf -lW "$orig" | grep 'Requesting program interpreter')"
	if grep -q GNU_PROPERTY <<<"$po"; then
		read -r _ _ g_off g_va _ g_fsz _ _ _ < <(awk '$2 == "GNU_PROPERTY"' <<<"$pn")
		expect_eq "PT_GNU_PROPERTY offset" "$((${g_off:-0}))" "$(($(sec_field "$sn" .note.gnu.property 5)))"
		expect_eq "PT_GNU_PROPERTY vaddr" "$((${g_va:-0}))" "$(($(sec_field "$sn" .note.gnu.property 4)))"
		expect_eq "PT_GNU_PROPERTY filesz" "$((${g_fsz:-0}))" "$(($(sec_field "$sn" .note.gnu.property 6)))"
	fi
	if readelf -nW "$orig" | grep_q NT_GNU_ABI_TAG; then
		expect_match "readelf -nW: the ABI tag under a PT_NOTE" "$(readelf -nW "$f")" "NT_GNU_ABI_TAG"
	fi
	# Every .symtab symbol of a moved section that points into it (or at
	# its end) moved with it; the others kept their values. mold gives
	# __ehdr_start, __executable_start and _TLS_MODULE_BASE_ the index of
	# .interp, with the ELF header's address (and 0): those stay.
	to=$(symtab "$orig")
	tn=$(symtab "$f")
	if grep -q ' __abi_tag$' <<<"$to"; then
		expect_eq "__abi_tag value" \
			"$(awk '$7 == "__abi_tag" { print "0x" $2 }' <<<"$tn")" \
			"$(printf '0x%016x' $(($(sec_field "$sn" .note.ABI-tag 4))))"
	fi
	moved_idx=" ${moved[*]-} "
	bad=()
	while read -r num val _ _ _ ndx name; do
		[[ "$moved_idx" == *" $ndx "* ]] || continue
		sec=$ndx
		lo=$(($(sec_field "$so" "$sec" 4)))
		if [ $((0x$val)) -ge "$lo" ] && [ $((0x$val)) -le $((lo + $(sec_field "$so" "$sec" 6))) ]; then
			want=$((0x$val - lo + $(sec_field "$sn" "$sec" 4)))
		else
			want=$((0x$val))
		fi
		got=$(awk -v n="$num" '$1 == n { print "0x" $2 }' <<<"$tn")
		[ -n "$got" ] && [ $((got)) = "$want" ] ||
			bad+=("$num $name ($sec): ${got:-gone}, want $(printf '%#x' "$want")")
	done <<<"$to"
	expect_eq "symbols of moved sections" "${bad[*]-}" ""
	expect_eq "symbols of the other sections" \
		"$(awk -v m="$moved_idx" 'index(m, " " $6 " ") == 0' <<<"$tn")" \
		"$(awk -v m="$moved_idx" 'index(m, " " $6 " ") == 0' <<<"$to")"
	t_end

	t_begin "$s: one PT_NOTE more, for the note in the first page; the other segments stay"
	expect_eq "program header count" "$(wc -l <<<"$pn")" "$(($(wc -l <<<"$po") + 1))"
	expect_ne "the new PT_NOTE (at .note.gnu.build-id's offset)" "$new_pt" ""
	if [ -n "$new_pt" ]; then
		read -r _ _ _ b_va _ b_fsz _ _ _ < <(awk -v i="$new_pt" '$1 == i' <<<"$pn")
		expect_eq "new PT_NOTE vaddr" "$((b_va))" "$((bid_addr))"
		expect_eq "new PT_NOTE filesz" "$((b_fsz))" "$((bid_size))"
		expect_true "the note ($bid_off+$bid_size) is not in the first page of the first PT_LOAD" \
			[ $((bid_off + bid_size)) -le 4096 -a $((bid_off)) -ge $((n0_off)) \
			-a $((bid_off + bid_size)) -le $((n0_off + n0_fsz)) \
			-a $((bid_addr - bid_off)) = $((n0_va - n0_off)) ]
		# The output's headers but the new one, in the input's order.
		pm=$(awk -v i="$new_pt" '$1 != i' <<<"$pn")
		expect_eq "program header types" "$(awk '{ print $2 }' <<<"$pm")" "$(awk '{ print $2 }' <<<"$po")"
		bad=()
		first_load=1
		while IFS=' ' read -r -u 3 _ t o v p fs ms fl al && IFS=' ' read -r -u 4 _ t2 o2 v2 p2 fs2 ms2 fl2 al2; do
			what="$t at $o"
			if [ "$t2" != "$t" ]; then
				bad+=("$what: is $t2 in the output")
				continue
			fi
			case "$t" in
			PHDR)
				[ "$o2 $v2 $fl2 $al2" = "$o $v $fl $al" ] &&
					[ $((fs2)) = $((fs + 56)) ] && [ $((ms2)) = $((ms + 56)) ] ||
					bad+=("$what: $o2 $v2 $fs2 $ms2 $fl2 $al2")
				;;
			INTERP | NOTE | GNU_PROPERTY)
				# Moved with their sections (checked above), sizes kept.
				[ "$fs2 $ms2 $fl2 $al2" = "$fs $ms $fl $al" ] &&
					[ $((v2 - v)) = $((o2 - o)) ] && [ $((p2 - p)) = $((o2 - o)) ] ||
					bad+=("$what: $o2 $v2 $p2 $fs2 $ms2 $fl2 $al2")
				;;
			LOAD)
				if [ "$first_load" = 1 ]; then
					first_load=0
					[ "$o2 $v2 $p2 $fl2 $al2" = "$o $v $p $fl $al" ] &&
						[ $((fs2)) -gt $((fs)) ] && [ $((ms2)) = $((fs2)) ] ||
						bad+=("first $what: $o2 $v2 $p2 $fs2 $ms2 $fl2 $al2")
					continue
				fi
				;&
			*)
				want=$((o))
				[ "$want" -ge "$l0_end" ] && want=$((want + gap))
				[ "$v2 $p2 $fs2 $ms2 $fl2 $al2" = "$v $p $fs $ms $fl $al" ] &&
					[ $((o2)) = "$want" ] ||
					bad+=("$what: $o2 $v2 $p2 $fs2 $ms2 $fl2 $al2, want offset $(printf '%#x' "$want")")
				if [ "$t" = LOAD ] && [ $((al2)) -gt 1 ]; then
					[ $((o2 % al2)) = $((v2 % al2)) ] ||
						bad+=("$what: offset $o2 is not congruent to vaddr $v2 modulo $al2")
				fi
				;;
			esac
		done 3<<<"$po" 4<<<"$pm"
		expect_eq "program headers (input -> output)" "$(printf '%s\n' "${bad[@]-}")" ""
	fi
	t_end

	if [ "$is_lib" = 1 ]; then
		lib_dynamic_block
		t_begin "$s: loads and runs as before (loader, dlopen); a second inject changes nothing"
		expect_match "loader output and exit of the input" "$want_out" $'loader: done\nexit 0$'
	else
		t_begin "$s: runs as before; a second inject changes nothing"
	fi
	expect_eq "output" "$(run_it "$f")" "$want_out"
	cp "$f" "$SCRATCH/again"
	expect_exit 0 "$EBID" inject -v "$f"
	expect_match "second run" "$err" "unchanged"
	expect_true "bytes changed" cmp -s "$f" "$SCRATCH/again"
	t_end

	t_begin "$s: eu-elflint --gnu-ld reports nothing new (program header numbers mapped)"
	if ! have eu-elflint; then
		t_skip_if "eu-elflint not installed"
	elif [ -z "$new_pt" ]; then
		t_fail "no new PT_NOTE found, so no program header numbers to map"
	else
		new=$(comm -13 <(elflint_renumbered "$orig" "$new_pt" | sort -u) \
			<(elflint_of "$f" | sort -u))
		expect_eq "new complaints" "$new" ""
	fi
	t_end

	for tool in strip eu-strip "objcopy --strip-debug"; do
		t_begin "$s: after $tool the id is in the section, kernel-visible, and it runs"
		if ! have "${tool%% *}"; then
			t_skip_if "${tool%% *} not installed"
			t_end
			continue
		fi
		st=$SCRATCH/$s.${tool// /_}
		cp "$f" "$st"
		# shellcheck disable=SC2086 # the tool's words
		expect_exit 0 $tool "$st"
		expect_eq "readelf -n" "$(readelf_ids "$st")" "$injected"
		expect_eq "ebid.py kernel" "$(py_kernel "$st")" "$injected"
		expect_eq "output" "$(run_it "$st")" "$want_out"
		t_end
	done

	t_begin "$s: objcopy --only-keep-debug keeps the id"
	expect_exit 0 objcopy --only-keep-debug "$f" "$SCRATCH/$s.debug"
	expect_eq "readelf -n" "$(readelf_ids "$SCRATCH/$s.debug")" "$injected"
	t_end

	t_begin "$s: perf buildid-list and the kernel's MMAP2 record show the id"
	if [ "$perf_ok" = 1 ] && [ "$is_lib" = 1 ]; then
		expect_match "perf buildid-list -i" "$(perf_id "$f")" "^$injected( |\$)"
		# The library's r-xp mapping, made by the loader's dlopen; the
		# input's has device and inode numbers, no id.
		expect_eq "MMAP2 record of the input" \
			"$(mmap2_id_of "$(realpath -- "$orig")" "$loader" "$orig")" none
		expect_eq "MMAP2 record" \
			"$(mmap2_id_of "$(realpath -- "$f")" "$loader" "$f")" "$injected"
	elif [ "$perf_ok" = 1 ]; then
		expect_match "perf buildid-list -i" "$(perf_id "$f")" "^$injected( |\$)"
		expect_eq "MMAP2 record" "$(mmap2_id "$f" a b c)" "$injected"
	else
		t_skip_if "$perf_record_why"
	fi
	t_end

	if [ "$is_go" = 1 ]; then
		t_begin "$s: go tool buildid reads the same Go build id"
		if [ -n "$gotool" ]; then
			expect_exit 0 "$gotool" tool buildid "$orig"
			goid=$out
			expect_match "Go build id of the input" "$goid" '^[A-Za-z0-9_-]+(/[A-Za-z0-9_-]+)+$'
			expect_exit 0 "$gotool" tool buildid "$f"
			expect_eq "go tool buildid" "$out" "$goid"
		else
			t_skip_if "go not installed"
		fi
		t_end
	fi

	if [ "$s" = "$in_place_shape" ]; then
		t_begin "$s: --in-place refuses the inserted gap, clearly, and leaves the file alone"
		ip=$SCRATCH/$s.in-place
		cp "$orig" "$ip"
		chmod u+w "$ip"
		before=$(file_state "$ip")
		files_before=$(ls -A "$SCRATCH")
		expect_exit 2 "$EBID" inject --in-place "$ip"
		expect_one_error_line "$ip"
		expect_match "message" "$err" "inserts [0-9]+ bytes at 0x[0-9a-f]+ \(insert-gap\), which --in-place cannot do; run without --in-place"
		expect_true "file changed" cmp -s "$orig" "$ip"
		expect_eq "inode, mtime, size" "$(file_state "$ip")" "$before"
		expect_eq "files in the directory" "$(ls -A "$SCRATCH")" "$files_before"
		t_end
	fi
done

t_begin "$refused_shape: stays refused, naming the rule; file untouched"
if [ -f "$matrix/$refused_shape" ]; then
	f=$SCRATCH/$refused_shape
	cp "$matrix/$refused_shape" "$f"
	chmod u+w "$f"
	expect_exit 2 "$EBID" inject "$f"
	expect_one_error_line "$f"
	expect_match "message" "$err" "the first PT_LOAD runs past the first page"
	expect_true "file changed" cmp -s "$matrix/$refused_shape" "$f"
	refusals+=("$refused_shape	$advice_c	$err")
else
	t_fail "$matrix/$refused_shape not built"
fi
t_end

t_begin "every refusal above ends with the whole relink advice, as README.md shows it"
if [ ${#refusals[@]} -gt 0 ]; then
	for r in "${refusals[@]}"; do
		IFS=$'\t' read -r s advice msg <<<"$r"
		expect_match "$s" "$msg" "; $(re_quote "$advice")\$"
	done
else
	t_fail "no shape was built, so nothing was refused"
fi
t_end

t_done
