#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# Issue 28, first point (damage): a shared library that glibc refuses to
# load after inject. gold links the read-write PT_LOAD of a library at the
# page after the end of the first PT_LOAD in memory, often with its file
# offset right behind it; move-head grew the first PT_LOAD over the moved
# run (.dynsym) and, past a page boundary, into the page where the
# read-write segment starts. glibc 2.36's _dl_map_segments then says "ELF
# load command address/offset not page-aligned" and every program linked
# against it exits 127 (snappy 1.1.9's libsnappy_test_support.so).
#
# Here: libraries from gold with 40 exported functions (a .dynsym of 1 KiB
# that move-head moves) and a read-only pad swept so the first PT_LOAD ends
# at every eighth of a page. Each is judged by tools we did not write:
# glibc itself (dlopen through fixtures/c/loader.c, and a ctypes call of
# all 40 functions), readelf -l (no two PT_LOADs in one 4 KiB page of
# memory, offsets and addresses congruent), readelf -n and the kernel's
# reader in tests/ebid.py. The sweep must hold the damaging shape (the
# first segment plus the moved .dynsym, by readelf's sizes, would reach the
# read-write segment's page) at least once, or it proves nothing.
. "$(dirname "$0")/lib.sh"
require_tool

if ! have ld.gold; then
	t_skip "gold libraries near a page boundary" "needs ld.gold (binutils)"
	t_done
fi

loader=$SCRATCH/loader
t_begin "the loader (fixtures/c/loader.c) builds"
expect_exit 0 gcc -O1 -o "$loader" "$TOP/fixtures/c/loader.c" -ldl
t_end

# LOADs of FILE, one per line: offset vaddr filesz memsz (decimal; readelf
# prints them in hex with 0x).
loads() {
	local t o v p fs ms rest
	readelf -lW "$1" | while read -r t o v p fs ms rest; do
		[ "$t" = LOAD ] && echo "$((o)) $((v)) $((fs)) $((ms))"
	done
}

# The loaders' page rule, by readelf: prints the first broken rule or
# nothing; fewer than two PT_LOADs read is a failure of its own.
page_rule() { # FILE
	loads "$1" | awk -v P=4096 'END { if (NR < 2) print "fewer than two LOADs read" } {
		if (($2 - $1) % P) { print "LOAD " NR-1 ": offset and address differ modulo the page"; exit }
		if (NR > 1 && $2 < pv) { print "LOAD " NR-1 ": below the one before"; exit }
		if (NR > 1 && int((pe + P - 1) / P) * P > int($2 / P) * P) {
			printf "LOAD %d ends at 0x%x, in the page of LOAD %d at 0x%x\n", NR-2, pe, NR-1, $2; exit }
		pv = $2; pe = $2 + $4 }'
}

# Would the first PT_LOAD grown by .dynsym (aligned to 8) reach the page of
# the next PT_LOAD? "yes" or "no", from readelf's numbers alone.
damaging_shape() { # FILE
	local dynsym
	dynsym=$(readelf -SW "$1" | awk '{ for (i = 1; i < NF; i++) if ($i == ".dynsym") print $(i + 4) }')
	[ -n "$dynsym" ] || { echo "no .dynsym read"; return; }
	loads "$1" | awk -v D="$((16#${dynsym:-0}))" -v P=4096 '
		NR == 1 { e = $2 + $3 + D + 8 }
		NR == 2 { print (int((e + P - 1) / P) * P > int($2 / P) * P) ? "yes" : "no" }'
}

calls_py='
import ctypes, sys
lib = ctypes.CDLL(sys.argv[1])
print(" ".join(str(getattr(lib, "f%d" % i)(100)) for i in range(40)))
'

hits=0
ids=0
for pad in 0 512 1024 1280 1408 1536 1664 1792 1920 2048 2560 3072 3584 4096; do
	so=$SCRATCH/pad$pad.so
	printf 'const char fixture_pad[%d] = "x";\n' "$((pad + 1))" >"$SCRATCH/pad$pad.c"
	t_begin "pad $pad: gold links the library (--build-id=none); glibc loads it"
	expect_exit 0 gcc -O1 -fPIC -shared -fuse-ld=gold -Wl,--build-id=none \
		-o "$so.orig" "$TOP/fixtures/movehead/many.c" "$TOP/fixtures/c/lib.c" "$SCRATCH/pad$pad.c"
	expect_exit 0 "$loader" "$so.orig"
	expect_match "dlopen" "$out" "loader: done$"
	expect_exit 0 python3 -c "$calls_py" "$so.orig"
	want_calls=$out
	expect_eq "readelf's page rule on the linker's layout" "$(page_rule "$so.orig")" ""
	t_end
	[ -f "$so.orig" ] || continue
	shape=$(damaging_shape "$so.orig")
	t_begin "pad $pad: readelf gives the sizes the shape is judged by"
	expect_match "shape" "$shape" "^(yes|no)$"
	t_end
	[ "$shape" = yes ] && hits=$((hits + 1))
	cp "$so.orig" "$so"

	t_begin "pad $pad (damaging shape: $shape): inject gives an id glibc loads, or refuses and leaves the file"
	run "$EBID" inject -v "$so"
	echo "# $(head -n 1 <<<"$err")"
	if [ "$rc" = 0 ]; then
		ids=$((ids + 1))
		parse_id_line "$out" "$so"
		expect_eq "readelf's page rule after inject" "$(page_rule "$so")" ""
		expect_exit 0 "$loader" "$so"
		expect_match "dlopen after inject" "$out" "loader: done$"
		expect_exit 0 python3 -c "$calls_py" "$so"
		expect_eq "f0..f39 after inject" "$out" "$want_calls"
		expect_eq "readelf -n" "$(readelf_ids "$so")" "$id"
		expect_eq "ebid.py kernel" "$(py_kernel "$so")" "$id"
		expect_exit 0 "$EBID" verify "$so"
	else
		expect_eq "exit status of a refusal" "$rc" 2
		expect_match "the refusal names the page rule" "$err" "inside the page where"
		expect_same_file "the refused file is untouched" "$so" "$so.orig"
	fi
	t_end
done

t_begin "the sweep holds the damaging shape, and every library gets an id"
echo "# damaging shapes: $hits; ids: $ids"
expect_true "at least one library whose grown first PT_LOAD reaches the next page" test "$hits" -ge 1
expect_eq "libraries with an id" "$ids" "$(ls "$SCRATCH"/pad*.so.orig | wc -l)"
t_end

t_done
