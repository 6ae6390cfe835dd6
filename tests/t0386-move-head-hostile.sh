#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# tier: slow (crafted hostile move-head inputs over matrix shapes)
# after: t0300-matrix-build-a t0301-matrix-build-b
# move-head (docs/build-id.md, "Moving .interp and the notes") against the
# inputs of an adversarial review (fixed in 2c21356), crafted by
# tests/robust/craft_movehead.py from build/matrix shapes:
#
# 1. a shared library whose PT_DYNAMIC p_offset names a copy of the dynamic
#    table (dyn-offset), or with two PT_DYNAMICs, the first naming a copy
#    (two-dynamic): the library still loads (build/matrix/loader), and
#    inject refuses it, leaving the bytes as they were. (Before, inject
#    patched the copy and the loaded library crashed.)
# 2. a mold PIE with a local .text symbol pointing into the padding
#    between .interp and .note.gnu.property: refused, file untouched; the
#    same symbol pointing into .text is injected as usual.
# 3. an lld library with a large .dynsym (fixtures/movehead/many.c, 40
#    functions), which was refused by the tool's own self-check ("old place
#    is not cleared"): injected with insert-gap and move-head, the 40
#    functions (called through python3 ctypes) return what they did, the
#    kernel's reader and the content hash give the printed id, and an
#    independent reading finds the moved run's old place zero but for the
#    new program header and the note.
#
# The shapes come from build/matrix; need_shapes builds those missing (a
# few seconds). Case 3 needs clang and lld.
. "$(dirname "$0")/lib.sh"
require_tool

matrix=${EBID_MATRIX:-$TOP/build/matrix}
# Loads a library (dlopen), calls it and says "loader: done".
loader=$matrix/loader
craft=$TOP/tests/robust/craft_movehead.py
shlib="c-gcc-lld-shlib-nobuildid"
pie="c-gcc-mold-pie-nobuildid"
refused="the sections after the program headers cannot move"

if ! have python3 || ! have readelf; then
	t_skip "$T_NAME" "needs python3 and readelf"
	t_done
fi
need_shapes "$shlib" "$pie" c-gcc-lld-pie-nobuildid

# What loading a library with the loader prints, and its exit status.
load() { # FILE
	local status=0
	"$loader" "$1" 2>&1 || status=$?
	echo "exit $status"
}
loaded_re=$'^hello from the elf-buildid C library \\(call 1\\)\nloader: done\nexit 0$'

# sec FILE NAME: the address, offset and size of section NAME (hex, no 0x).
sec() {
	readelf -SW "$1" 2>/dev/null | sed 's/^ *\[ *[0-9]*\] *//' |
		awk -v n="$2" '$1 == n { print $3, $4, $5; exit }'
}

# The program headers of type TYPE, one "offset vaddr" line each.
phdrs_of() { # FILE TYPE
	readelf -lW "$1" 2>/dev/null | awk -v t="$2" '/^Program Headers:/ { on = 1; next }
		on && /^ *$/ { exit }
		on && $1 == t { print $2, $3 }'
}

# The bytes of FILE at OFFSET, SIZE of them, in hex.
bytes_at() { # FILE OFFSET SIZE
	od -An -v -tx1 -j "$2" -N "$3" -- "$1" | tr -d ' \n'
}

# symtab_entry FILE K: symbol K of .symtab (not .dynsym) as readelf -sW
# prints it.
symtab_entry() {
	readelf -sW "$1" 2>/dev/null | awk -v k="$2:" '/^Symbol table / { on = ($0 ~ /\x27\.symtab\x27/); next }
		on && $1 == k { print; exit }'
}

# --- 1. the loader's dynamic table is not the one p_offset names ---------

# shape_dyn_offset / shape_two_dynamic FILE: the crafted shape is there.
shape_dyn_offset() {
	local dyn p dyn_addr dyn_off dyn_size p_off p_vaddr
	read -r dyn_addr dyn_off dyn_size < <(sec "$1" .dynamic)
	mapfile -t p < <(phdrs_of "$1" DYNAMIC)
	expect_eq "PT_DYNAMIC headers" "${#p[@]}" 1
	read -r p_off p_vaddr <<<"${p[0]-}"
	expect_eq "PT_DYNAMIC p_vaddr (.dynamic's address)" "$((p_vaddr))" "$((0x$dyn_addr))"
	expect_ne "PT_DYNAMIC p_offset (not .dynamic's)" "$((p_off))" "$((0x$dyn_off))"
	dyn=$(bytes_at "$1" "$((0x$dyn_off))" "$((0x$dyn_size))")
	expect_eq "the bytes p_offset names (a copy of .dynamic)" \
		"$(bytes_at "$1" "$((p_off))" "$((0x$dyn_size))")" "$dyn"
}
shape_two_dynamic() {
	local dyn p dyn_addr dyn_off dyn_size p_off p_vaddr
	read -r dyn_addr dyn_off dyn_size < <(sec "$1" .dynamic)
	mapfile -t p < <(phdrs_of "$1" DYNAMIC)
	expect_eq "PT_DYNAMIC headers" "${#p[@]}" 2
	expect_eq "PT_GNU_EH_FRAME headers" "$(phdrs_of "$1" GNU_EH_FRAME)" ""
	read -r p_off p_vaddr <<<"${p[0]-}"
	expect_ne "the first PT_DYNAMIC's p_offset (not .dynamic's)" "$((p_off))" "$((0x$dyn_off))"
	dyn=$(bytes_at "$1" "$((0x$dyn_off))" "$((0x$dyn_size))")
	expect_eq "the bytes the first names (a copy of .dynamic)" \
		"$(bytes_at "$1" "$((p_off))" "$((0x$dyn_size))")" "$dyn"
	read -r p_off p_vaddr <<<"${p[1]-}"
	expect_eq "the last PT_DYNAMIC's p_offset (.dynamic's)" "$((p_off))" "$((0x$dyn_off))"
	expect_eq "the last PT_DYNAMIC's p_vaddr (.dynamic's)" "$((p_vaddr))" "$((0x$dyn_addr))"
}

for c in dyn-offset two-dynamic; do
	if [ ! -f "$matrix/$shlib" ] || [ ! -x "$loader" ]; then
		t_skip "$c: move-head" "$matrix/$shlib or $loader not built (make matrix)"
		continue
	fi
	f=$SCRATCH/$c.so
	keep=$SCRATCH/$c.so.crafted

	t_begin "$c ($shlib): the crafted library has the shape and still loads (dlopen)"
	expect_exit 0 python3 "$craft" "$c" "$matrix/$shlib" "$f"
	if [ -f "$f" ]; then
		case $c in
		dyn-offset) shape_dyn_offset "$f" ;;
		two-dynamic) shape_two_dynamic "$f" ;;
		esac
		expect_match "loader output and exit" "$(load "$f")" "$loaded_re"
		expect_exit 0 "$EBID" inject -n "$matrix/$shlib"
		expect_match "the uncrafted shape (move-head)" "$(head -n 1 <<<"$out")" ",move-head$"
	fi
	t_end
	[ -f "$f" ] || continue
	cp "$f" "$keep"

	t_begin "$c: inject refuses it (exit 2, one line: $refused), bytes untouched, still loads"
	expect_exit 2 "$EBID" inject "$f"
	expect_one_error_line "$f"
	expect_match "message" "$err" "$refused: [^;]*dynamic table"
	expect_true "file changed" cmp -s "$keep" "$f"
	expect_match "loader output and exit after" "$(load "$f")" "$loaded_re"
	t_end
done

# --- 2. a symbol of another section points into the padding ---------------

if [ ! -f "$matrix/$pie" ]; then
	t_skip "sym-in-padding: move-head" "$matrix/$pie not built (make matrix)"
else
	orig=$SCRATCH/$pie.orig
	f=$SCRATCH/$pie-padding
	ctl=$SCRATCH/$pie-text
	cp "$matrix/$pie" "$orig"
	want_out=$("$orig" a b c 2>&1)
	read -r interp_addr _ interp_size < <(sec "$orig" .interp)
	read -r prop_addr _ _ < <(sec "$orig" .note.gnu.property)
	read -r text_addr _ text_size < <(sec "$orig" .text)
	pad=$((0x${interp_addr:-0} + 0x${interp_size:-0}))
	mid=$((0x${text_addr:-0} + 0x${text_size:-0} / 2))

	t_begin "sym-in-padding ($pie): a .text symbol at the padding after .interp; it runs"
	expect_ne ".interp" "${interp_addr-}" ""
	expect_true "no padding between .interp (ends $(printf 0x%x "$pad")) and .note.gnu.property (0x${prop_addr-})" \
		test "$pad" -lt "$((0x${prop_addr:-0}))"
	expect_exit 0 python3 "$craft" sym-in-padding "$orig" "$f" "$(printf 0x%x "$pad")"
	sym=$(sed -n 's/^symbol \([0-9]*\) .*/\1/p' <<<"$out")
	text_idx=$(readelf -SW "$orig" | sed -n 's/^ *\[ *\([0-9]*\)\] \.text .*/\1/p')
	expect_eq "the symbol in readelf -s (value, bind, section)" \
		"$(symtab_entry "$f" "$sym" | awk '{ print $2, $5, $7 }')" \
		"$(printf '%016x' "$pad") LOCAL $text_idx"
	[ -f "$f" ] && expect_eq "output" "$("$f" a b c 2>&1)" "$want_out"
	t_end

	if [ -f "$f" ]; then
		cp "$f" "$f.crafted"
		t_begin "sym-in-padding: inject refuses it (a symbol of another section points into them), file untouched"
		expect_exit 2 "$EBID" inject "$f"
		expect_one_error_line "$f"
		expect_match "message" "$err" "$refused: a symbol of another section points into them"
		expect_true "file changed" cmp -s "$f.crafted" "$f"
		t_end
	fi

	t_begin "sym-in-padding control: the same symbol inside .text is injected (move-head), runs, keeps its value"
	expect_exit 0 python3 "$craft" sym-in-padding "$orig" "$ctl" "$(printf 0x%x "$mid")"
	expect_match "the symbol changed" "$out" "^symbol ${sym:-none} \(section $text_idx, \.text\): st_value 0x[0-9a-f]+ -> $(printf 0x%x "$mid")$"
	if [ -f "$ctl" ]; then
		expect_exit 0 "$EBID" inject -n "$ctl"
		expect_match "dry-run" "$(head -n 1 <<<"$out")" ",move-head$"
		inject_ok "$ctl"
		[ -n "$id" ] && expect_eq "ebid.py kernel" "$(py_kernel "$ctl")" "$id"
		expect_eq "the symbol's value after" \
			"$(symtab_entry "$ctl" "$sym" | awk '{ print $2 }')" "$(printf '%016x' "$mid")"
		expect_eq "output" "$("$ctl" a b c 2>&1)" "$want_out"
	fi
	t_end
fi

# --- 3. an lld library with a large .dynsym ------------------------------

# The functions f0..f39 of a library called through ctypes: one
# "fN(X) = Y" line each.
calls_py='
import ctypes, sys
lib = ctypes.CDLL(sys.argv[1])
for n in range(40):
    f = getattr(lib, "f%d" % n)
    f.argtypes, f.restype = [ctypes.c_int], ctypes.c_int
    x = 1000 + 7 * n
    print("f%d(%d) = %d" % (n, x, f(x)))
'
want_calls=$(for n in $(seq 0 39); do echo "f$n($((1000 + 7 * n))) = $((1000 + 8 * n))"; done)

# An independent reading of the moved run's old place: in NEW, every byte
# from the end of ORIG's program header table to the end of the run ORIG
# had there (the allocated sections whose address NEW changed) is zero,
# but for NEW's PT_NOTE entry over .note.gnu.build-id and that section.
# Prints "span START END phdr OFF+N note OFF+N free OFF" (FREE: the last
# byte that must be zero) and one line per stray byte; exit 1 if any.
zero_py='
import struct, sys

def read(path):
    b = open(path, "rb").read()
    c64, e = b[4] == 2, "<" if b[5] == 1 else ">"
    if c64:
        phoff, shoff = struct.unpack_from(e + "QQ", b, 0x20)
        phent, phnum, shent, shnum, shstrndx = struct.unpack_from(e + "HHHHH", b, 0x36)
    else:
        phoff, shoff = struct.unpack_from(e + "II", b, 0x1c)
        phent, phnum, shent, shnum, shstrndx = struct.unpack_from(e + "HHHHH", b, 0x2a)
    ph = []
    for i in range(phnum):
        o = phoff + i * phent
        if c64:
            t, _, off = struct.unpack_from(e + "IIQ", b, o)
        else:
            t, off = struct.unpack_from(e + "II", b, o)
        ph.append((t, off, o))
    sh = []
    for i in range(shnum):
        o = shoff + i * shent
        if c64:
            name, typ, flags, addr, off, size = struct.unpack_from(e + "IIQQQQ", b, o)
        else:
            name, typ, flags, addr, off, size = struct.unpack_from(e + "IIIIII", b, o)
        sh.append([name, typ, flags, addr, off, size])
    stroff = sh[shstrndx][4]
    secs = {}
    for s in sh[1:]:
        n = b[stroff + s[0]:b.index(0, stroff + s[0])].decode()
        secs.setdefault(n, s[1:])
    return b, phoff + phnum * phent, phent, ph, secs

_, start, _, _, osecs = read(sys.argv[1])
b, _, phent, ph, nsecs = read(sys.argv[2])
moved = [n for n, (typ, flags, addr, off, size) in osecs.items()
         if flags & 2 and typ != 8 and size and n in nsecs and nsecs[n][2] != addr]
if not moved:
    sys.exit("no allocated section changed its address")
end = max(osecs[n][3] + osecs[n][4] for n in moved)
note = nsecs.get(".note.gnu.build-id")
if note is None:
    sys.exit("no .note.gnu.build-id in the output")
n_off, n_size = note[3], note[4]
entries = [o for (t, off, o) in ph if t == 4 and off == n_off]
if len(entries) != 1:
    sys.exit("%d PT_NOTE entries over .note.gnu.build-id" % len(entries))
allowed = set(range(entries[0], entries[0] + phent)) | set(range(n_off, n_off + n_size))
free = max(i for i in range(start, end) if i not in allowed)
print("span 0x%x 0x%x phdr 0x%x+%d note 0x%x+%d free 0x%x moved %s" %
      (start, end, entries[0], phent, n_off, n_size, free, ",".join(sorted(moved))))
stray = [i for i in range(start, end) if i not in allowed and b[i]]
for i in stray[:10]:
    print("stray byte 0x%02x at 0x%x" % (b[i], i))
sys.exit(1 if stray else 0)
'

if ! have clang || ! have ld.lld; then
	t_skip "many.c (lld library, 40 functions): move-head" "needs clang and ld.lld"
else
	orig=$SCRATCH/many.orig.so
	f=$SCRATCH/many.so

	t_begin "many.c: clang and lld link it (.dynsym right after the program headers); ctypes calls f0..f39"
	expect_exit 0 clang -shared -fPIC -O1 -fuse-ld=lld -Wl,--build-id=none \
		-o "$orig" "$TOP/fixtures/movehead/many.c"
	if [ -f "$orig" ]; then
		read -r _ dynsym_off dynsym_size < <(sec "$orig" .dynsym)
		expect_eq ".dynsym's offset (the end of the program header table)" "$((0x${dynsym_off:-0}))" \
			"$(readelf -hW "$orig" | awk -F: '/Start of program headers/ { o = $2 + 0 }
				/Size of program headers/ { s = $2 + 0 } /Number of program headers/ { n = $2 + 0 }
				END { print o + s * n }')"
		expect_true ".dynsym holds 40 functions (size 0x${dynsym_size-})" test "$((0x${dynsym_size:-0}))" -ge $((40 * 24))
		expect_eq "readelf -n (no id yet)" "$(readelf_ids "$orig")" ""
		expect_exit 0 python3 -c "$calls_py" "$orig"
		expect_eq "calls" "$out" "$want_calls"
		cp "$orig" "$f"
	fi
	t_end

	if [ -f "$f" ]; then
		t_begin "many.c: inject inserts a gap and moves the head (insert-gap,move-head)"
		expect_exit 0 "$EBID" inject -n "$f"
		expect_match "dry-run" "$(head -n 1 <<<"$out")" ": [a-z,-]*insert-gap,move-head$"
		inject_ok "$f"
		t_end
		injected=$id

		if [ -n "$injected" ]; then
			t_begin "many.c: f0..f39 return what they did; readers agree on the id"
			expect_exit 0 python3 -c "$calls_py" "$f"
			expect_eq "calls after" "$out" "$want_calls"
			expect_eq "ebid.py kernel" "$(py_kernel "$f")" "$injected"
			expect_eq "ebid.py id (the content hash)" "$(py_id "$f")" "$injected"
			expect_eq "readelf -n" "$(readelf_ids "$f")" "$injected"
			t_end

			t_begin "many.c: the moved run's old place is zero but for the new program header and the note"
			expect_exit 0 python3 -c "$zero_py" "$orig" "$f"
			span=$out
			expect_match "what was read" "$span" "^span 0x[0-9a-f]+ 0x[0-9a-f]+ phdr .* free 0x[0-9a-f]+ moved .*\.dynsym"
			t_end
			echo "# $span"

			t_begin "many.c: the same reading sees one stray byte put into the old place"
			free=$(sed -n 's/.* free \(0x[0-9a-f]*\) .*/\1/p' <<<"$span")
			expect_ne "a byte that must be zero" "$free" ""
			if [ -n "$free" ]; then
				cp "$f" "$SCRATCH/stray.so"
				printf '\132' | dd of="$SCRATCH/stray.so" bs=1 seek="$((free))" conv=notrunc status=none
				expect_exit 1 python3 -c "$zero_py" "$orig" "$SCRATCH/stray.so"
				expect_match "reported" "$out" "stray byte 0x5a at $free"
			fi
			t_end
		fi
	fi
fi

# A gap moves every byte behind it: bytes appended behind the last section
# (a payload, a self-extracting archive) may name their own offsets, so
# such a file is refused when it needs a gap; the same bytes as a section
# of their own (objcopy --add-section) move with the headers and are fine.
lld=$matrix/c-gcc-lld-pie-nobuildid
if [ ! -f "$lld" ]; then
	t_skip "appended payload: refused when a gap is needed" "$lld not built (make matrix)"
else
	t_begin "appended payload: refused when a gap is needed, the file untouched"
	cp "$lld" "$SCRATCH/payload-appended"
	printf 'PAYLOAD at offset %s\n' "$(stat -c %s "$lld")" >>"$SCRATCH/payload-appended"
	cp "$SCRATCH/payload-appended" "$SCRATCH/payload-appended.orig"
	expect_exit 2 "$EBID" inject "$SCRATCH/payload-appended"
	expect_one_error_line "$SCRATCH/payload-appended"
	expect_match "message" "$err" "cannot move: data follows everything the headers describe"
	expect_true "file changed" cmp -s "$SCRATCH/payload-appended" "$SCRATCH/payload-appended.orig"
	t_end

	t_begin "the same bytes as a section of their own: injected, the section's bytes intact"
	printf 'PAYLOAD\n' >"$SCRATCH/payload.bin"
	expect_exit 0 objcopy --add-section .payload="$SCRATCH/payload.bin" "$lld" "$SCRATCH/payload-section"
	expect_exit 0 "$EBID" inject -n "$SCRATCH/payload-section"
	expect_match "dry-run" "$(head -n 1 <<<"$out")" ",insert-gap,move-head$"
	inject_ok "$SCRATCH/payload-section"
	rm -f "$SCRATCH/payload.out"
	expect_exit 0 objcopy --dump-section .payload="$SCRATCH/payload.out" \
		"$SCRATCH/payload-section" "$SCRATCH/payload-dumped"
	expect_eq "the section's bytes" "$(cat "$SCRATCH/payload.out" 2>&1)" "PAYLOAD"
	expect_eq "ebid.py kernel" "$(py_kernel "$SCRATCH/payload-section")" "$id"
	t_end
fi

t_done
