#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# tier: slow (cross builds for seven targets, and the matrix shapes)
# after: t0300-matrix-build-a t0301-matrix-build-b
# The moving strategies (move-note, move-head, docs/build-id.md) and
# relocations: a relocation whose result points into what would move, or
# that the loader applies inside it, makes inject refuse, name the
# relocation and leave the file byte-identical; the same file uncrafted is
# injected. Crafted by tests/robust/craft_relocs.py, which computes the
# relocation's name, type and addresses from the file itself:
#
# 1. fixtures/relocs/ptr.c linked by lld as a PIE without a C library for
#    x86_64, aarch64, riscv64 (ELF64 LSB, RELA), powerpc64 (ELF64 MSB,
#    RELA), armv7 and i386 (ELF32 LSB, REL: the implicit addend in the
#    word) and mips (ELF32 MSB, REL32, and a local GOT entry with no
#    relocation); aarch64 and x86_64 with RELR (--pack-dyn-relocs=relr);
#    x86_64 with the relocation section's header made PROGBITS (only the
#    dynamic table's DT_RELA names it); x86_64, i386 and armv7 with
#    --emit-relocs and code that takes the note's address (a static
#    relocation in .rela.text/.rel.text).
# 2. build/matrix shapes (bfd, gold: move-note, .note.ABI-tag as target;
#    lld, mold, gold libraries: move-head, the first moved section, and
#    .dynsym where move-head takes it, as target), built here when missing
#    (need_shapes, a few seconds).
. "$(dirname "$0")/lib.sh"
require_tool

matrix=${EBID_MATRIX:-$TOP/build/matrix}
craft=$TOP/tests/robust/craft_relocs.py
src=$TOP/fixtures/relocs/ptr.c

if ! have python3 || ! have readelf; then
	t_skip "$T_NAME" "needs python3 and readelf"
	t_done
fi

# refused NAME FILE MODE SECTION WHAT: crafts FILE (MODE, SECTION), then
# inject must refuse it naming the relocation, "WHAT (...)".
refused() {
	local name=$1 f=$2 mode=$3 sec=$4 what=$5 c want
	c=$SCRATCH/$name.$mode${sec#@}
	t_begin "$name: $mode into $sec is refused, named, the file untouched"
	expect_exit 0 python3 "$craft" "$mode" "$f" "$c" "$sec"
	want=$out
	if [ -f "$c" ]; then
		cp "$c" "$c.keep"
		expect_exit 2 "$EBID" inject "$c"
		expect_one_error_line "$c"
		expect_match "message" "$err" "$(re_quote "$what $want")"
		expect_true "file changed" cmp -s "$c.keep" "$c"
		expect_exit 2 "$EBID" inject -n "$c"
	fi
	t_end
}

# accepted NAME FILE STRATEGY: the uncrafted file is injected by STRATEGY.
accepted() {
	local name=$1 f=$2 how=$3 c=$SCRATCH/$1.plain
	t_begin "$name: the uncrafted file is injected ($how)"
	expect_exit 0 "$EBID" inject -n "$f"
	expect_match "dry-run" "$(head -n 1 <<<"$out")" ",$how$"
	cp "$f" "$c"
	inject_ok "$c"
	[ -n "$id" ] && expect_eq "ebid.py kernel" "$(py_kernel "$c")" "$id"
	t_end
}

# --- 1. fixtures/relocs/ptr.c on every class and byte order ---------------

# NAME TARGET "CRAFTS" EXTRA-FLAGS...
builds=("x86_64 x86_64-linux-gnu addend,at,hide"
	"aarch64 aarch64-linux-gnu addend"
	"riscv64 riscv64-linux-gnu addend"
	"ppc64 powerpc64-linux-gnu addend,at"
	"armv7 armv7a-linux-gnueabihf addend,at"
	"i386 i386-linux-gnu addend"
	"mips mips-linux-gnu addend,got,hide"
	"aarch64-relr aarch64-linux-gnu relr -Wl,--pack-dyn-relocs=relr"
	"x86_64-relr x86_64-linux-gnu relr -Wl,--pack-dyn-relocs=relr"
	"x86_64-q x86_64-linux-gnu code -Wl,-q -DCODE_REF"
	"i386-q i386-linux-gnu code -Wl,-q -DCODE_REF"
	"armv7-q armv7a-linux-gnueabihf code -Wl,-q -DCODE_REF")

if ! have clang || ! have ld.lld; then
	t_skip "ptr.c: every class and byte order" "needs clang and ld.lld"
else
	for b in "${builds[@]}"; do
		read -r name target crafts extra <<<"$b"
		f=$SCRATCH/$name
		t_begin "$name: clang --target=$target and lld link ptr.c as a PIE"
		# shellcheck disable=SC2086 # the flags' words
		expect_exit 0 clang --target="$target" -O2 -fPIE -pie -nostdlib \
			-fuse-ld=lld -Wl,--no-dynamic-linker -Wl,--build-id=none \
			$extra -o "$f" "$src"
		t_end
		[ -f "$f" ] || continue
		if [ "$crafts" = code ]; then
			# The code's own reference, seen only through --emit-relocs.
			t_begin "$name: a static relocation into .note.sample is refused, named, the file untouched"
			cp "$f" "$f.keep"
			expect_exit 2 "$EBID" inject "$f"
			expect_one_error_line "$f"
			rel=$(readelf -rW "$f" | awk '/^Relocation section / { sec = $3; gsub(/\x27/, "", sec); n = 0; next }
				$1 ~ /^[0-9a-f]+$/ && /sample/ { print sec, n, $1; exit } $1 ~ /^[0-9a-f]+$/ { n++ }')
			read -r rsec rn rat <<<"$rel"
			expect_ne "readelf: a relocation names the note" "$rel" ""
			expect_match "message" "$err" \
				"a relocation points into them \\($(re_quote "$rsec") entry $rn, type [0-9]+, at 0x0*${rat#"${rat%%[!0]*}"}, to 0x"
			expect_true "file changed" cmp -s "$f.keep" "$f"
			t_end
			continue
		fi
		cp "$f" "$f.orig"
		accepted "$name" "$f.orig" move-head
		for m in ${crafts//,/ }; do
			case $m in
			at) refused "$name" "$f" at .note.sample "a relocation is applied inside them" ;;
			*) refused "$name" "$f" "$m" .note.sample "a relocation points into them" ;;
			esac
		done
	done
fi

# --- 2. matrix shapes -------------------------------------------------------

shapes=(c-gcc-bfd-pie-nobuildid c-gcc-gold-pie-nobuildid
	c-gcc-lld-pie-nobuildid c-gcc-lld-shlib-nobuildid
	c-gcc-mold-pie-nobuildid c-gcc-mold-shlib-nobuildid
	c-gcc-gold-shlib-nobuildid)
need_shapes "${shapes[@]}"
for s in "${shapes[@]}"; do
	if [ ! -f "$matrix/$s" ]; then
		t_skip "$s: relocations into moved sections" "$matrix/$s not built (make matrix)"
		continue
	fi
	run "$EBID" inject -n "$matrix/$s"
	how=$(head -n 1 <<<"$out" | sed -n 's/.*,\(move-[a-z]*\)$/\1/p')
	tables=0
	grep_q "dynamic entry (tag 0x6," <<<"$out" && tables=1
	if [ -z "$how" ]; then
		t_begin "$s: the uncrafted shape moves something"
		expect_ne "strategy of: $(head -n 1 <<<"$out")" "$how" ""
		t_end
		continue
	fi
	accepted "$s" "$matrix/$s" "$how"
	what="a relocation points into them" sec=@head
	if [ "$how" = move-note ]; then
		what="a relocation points into the note" sec=.note.ABI-tag
	fi
	refused "$s" "$matrix/$s" addend "$sec" "$what"
	[ "$tables" = 1 ] && refused "$s" "$matrix/$s" addend .dynsym "$what"
done

t_done
