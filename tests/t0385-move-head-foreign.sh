#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# tier: slow (cross builds run under qemu)
# move-head and insert-gap on foreign architectures, 32-bit and big-endian
# files, with the 64 KiB segment alignment of their lld layouts:
# fixtures/nolibc/hello.c (no C library, system calls only) linked by lld
# with --build-id=none for aarch64 (ELF64 LSB), armv7 (ELF32 LSB) and mips
# (ELF32 MSB). Judged by tools we did not write: qemu-user runs each before
# and after with the same output, readelf, eu-readelf and ebid.py (section
# rule, kernel rule, content hash) agree, eu-elflint --gnu-ld says nothing
# new, the addresses and the sample note's bytes are the same, and a
# second inject changes nothing.
. "$(dirname "$0")/lib.sh"
require_tool
require_deps matrix

src=$TOP/fixtures/nolibc/hello.c
want="hello from the elf-buildid nolibc fixture"
# TARGET QEMU EXTRA-FLAGS...
targets=("aarch64-linux-gnu qemu-aarch64"
	"armv7a-linux-gnueabihf qemu-arm"
	"mips-linux-gnu qemu-mips -fno-pic -mno-abicalls -Wl,-e,__start")

# Section name and address of every allocated section but the moved note
# and the new one.
addrs() { # FILE
	readelf -SW "$1" | awk '/^ *\[ *[0-9]+\]/ {
		sub(/^ *\[ *[0-9]+\] */, "")
		if ($1 != ".note.sample" && $1 != ".note.gnu.build-id" && $1 != "NULL") print $1, $3
	}'
}

for t in "${targets[@]}"; do
	read -r target qemu extra <<<"$t"
	orig=$SCRATCH/$target.orig
	f=$SCRATCH/$target
	t_begin "$target: clang and lld link the fixture, and $qemu runs it"
	# shellcheck disable=SC2086 # the flags' words
	expect_exit 0 clang --target="$target" -O2 -nostdlib -static -fuse-ld=lld \
		-Wl,--build-id=none $extra -o "$orig" "$src"
	expect_eq "output" "$("$qemu" "$orig" 2>&1)" "$want"
	t_end
	[ -f "$orig" ] || continue
	cp "$orig" "$f"

	t_begin "$target: inject inserts a 64 KiB gap and moves the note (insert-gap, move-head)"
	expect_exit 0 "$EBID" inject -n "$f"
	expect_match "dry-run" "$(head -n 1 <<<"$out")" ": add-note,fill,add-pt-note,add-section-name,insert-gap,move-head$"
	expect_match "gap" "$out" "
  insert 0x[0-9a-f]+ 65536 zero bytes "
	inject_ok "$f"
	t_end
	injected=$id
	[ -n "$injected" ] || continue

	t_begin "$target: readers agree on the id, the content hash; it runs as before"
	expect_eq "readelf -n" "$(readelf_ids "$f")" "$injected"
	expect_eq "eu-readelf -n" "$(eu_readelf_ids "$f")" "$injected"
	expect_eq "ebid.py note" "$(py_note "$f")" "$injected"
	expect_eq "ebid.py kernel" "$(py_kernel "$f")" "$injected"
	expect_eq "ebid.py id" "$(py_id "$f")" "$injected"
	expect_eq "output under $qemu" "$("$qemu" "$f" 2>&1)" "$want"
	t_end

	t_begin "$target: addresses kept, the sample note's bytes and PT_NOTE moved with it"
	expect_eq "sections and addresses (by name: inject renumbers)" "$(addrs "$f" | sort)" "$(addrs "$orig" | sort)"
	expect_eq "section headers in the linkers' order (or numbered as before)" \
		"$(shdr_order_kept "$orig" "$f")" ""
	# readelf -x dumps any architecture's section (objcopy only the
	# host's); the address column differs, the bytes must not.
	note_bytes=$(readelf -x .note.sample "$f" | awk '$1 ~ /^0x/ { $1 = ""; print }')
	expect_match "the note's bytes" "$note_bytes" "73616d70"
	expect_eq "the note's bytes" "$note_bytes" \
		"$(readelf -x .note.sample "$orig" | awk '$1 ~ /^0x/ { $1 = ""; print }')"
	expect_match "readelf -n: the sample note" "$(readelf -nW "$f")" "sample"
	expect_eq "program headers" "$(readelf -lW "$f" | grep -c '^  [A-Z]')" \
		"$(($(readelf -lW "$orig" | grep -c '^  [A-Z]') + 1))"
	t_end

	t_begin "$target: eu-elflint --gnu-ld reports nothing new; a second inject changes nothing"
	pt=$(new_note_pt "$f")
	expect_ne "the new PT_NOTE" "$pt" ""
	if have eu-elflint && [ -n "$pt" ]; then
		expect_eq "new complaints" "$(comm -13 <(elflint_renumbered "$orig" "$pt" | sort -u) \
			<(elflint_of "$f" | sort -u))" ""
	fi
	cp "$f" "$SCRATCH/again"
	expect_exit 0 "$EBID" inject -v "$f"
	expect_match "second run" "$err" "unchanged"
	expect_true "bytes changed" cmp -s "$f" "$SCRATCH/again"
	t_end
done

t_done
