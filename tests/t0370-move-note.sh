#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# Issue 15, first strategy (move-note, docs/build-id.md): bfd and gold
# executables linked with --build-id=none get a kernel-visible id without a
# new program header. Judged by tools we did not write: the ABI tag moved
# with its symbol, PT_GNU_PROPERTY unchanged, eu-elflint --gnu-ld says
# nothing new, strip, eu-strip and objcopy (--strip-debug,
# --only-keep-debug) keep the id, perf buildid-list and the kernel's MMAP2
# record show it, the program runs, a second run changes nothing, and
# --no-move refuses as before.
#
# The shapes come from build/matrix. In make test this script checks one
# shape, built here if missing (need_shapes); t0371, in the slow tier,
# sources it with EBID_SHAPES=all after t0300 and t0301 have built the
# matrix, and checks every bfd and gold shape.
. "$(dirname "$0")/lib.sh"
require_tool

matrix=${EBID_MATRIX:-$TOP/build/matrix}
if [ "${EBID_SHAPES:-}" = all ]; then
	# The bfd and gold non-PIEs are move-head's now (t0381).
	shapes=(c-gcc-bfd-pie-nobuildid c-gcc-bfd-static-nobuildid
		c-clang-bfd-pie-nobuildid c-gcc-gold-pie-nobuildid
		c-clang-bfd-static-nobuildid c-clang-gold-pie-nobuildid)
else
	shapes=(c-gcc-bfd-pie-nobuildid)
fi
need_shapes "${shapes[@]}"

# The program headers but the one at index SKIP..., one per line.
phdrs_but() { # FILE INDEX...
	local f=$1
	shift
	readelf -lW "$f" | awk '/^Program Headers:/ { on = 1; next }
		on && /^ *$/ { exit }
		on && $1 ~ /^[A-Z]/ && $1 != "Type" { print n++ "\t" $0 }' |
		awk -F'\t' -v skip=" $* " 'index(skip, " " $1 " ") == 0 { print $2 }'
}

perf_ok=0
perf_record_works && perf_ok=1

for s in "${shapes[@]}"; do
	[ -f "$matrix/$s" ] || continue # need_shapes failed
	orig=$SCRATCH/$s.orig
	f=$SCRATCH/$s
	cp "$matrix/$s" "$orig"
	cp "$matrix/$s" "$f"
	chmod u+w "$f"
	want_out=$("$orig" a b c 2>&1)

	t_begin "$s: --no-move refuses it, naming the rule and a linker flag; file untouched"
	expect_exit 2 "$EBID" inject --no-move "$f"
	expect_one_error_line "$f"
	expect_match "message" "$err" "no note can move: --no-move forbids moving a note; the sections after the program headers cannot move: --no-move forbids moving them; relink with -Wl,--build-id"
	expect_true "file changed" cmp -s "$orig" "$f"
	t_end

	t_begin "$s: inject moves the ABI tag and adds the note (move-note)"
	expect_exit 0 "$EBID" inject -n "$f"
	expect_match "dry-run" "$(head -n 1 <<<"$out")" ": add-note,fill,(move-section-headers,)?add-section-name,move-note$"
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

	t_begin "$s: the ABI tag is the same note, under a PT_NOTE, and __abi_tag points at it"
	abi_addr=$(readelf -SW "$f" | sed -n 's/^ *\[ *[0-9]*\] *\.note\.ABI-tag  *NOTE  *\([0-9a-f]*\) .*/\1/p')
	sym_addr=$(readelf -sW "$f" | awk '$8 == "__abi_tag" { print $2 }')
	expect_ne ".note.ABI-tag address" "$abi_addr" ""
	expect_eq "__abi_tag value" "$sym_addr" "$abi_addr"
	expect_eq "the ABI tag's bytes" \
		"$(objcopy -O binary --only-section=.note.ABI-tag "$f" /dev/stdout | od -An -tx1)" \
		"$(objcopy -O binary --only-section=.note.ABI-tag "$orig" /dev/stdout | od -An -tx1)"
	expect_match "readelf -n: ABI tag" "$(readelf -nW "$f")" "NT_GNU_ABI_TAG"
	t_end

	t_begin "$s: only the ABI tag's PT_NOTE and the first PT_LOAD changed; PT_GNU_PROPERTY did not"
	mapfile -t a < <(phdrs_but "$orig")
	mapfile -t b < <(phdrs_but "$f")
	changed=()
	for i in "${!a[@]}"; do
		[ "${a[$i]}" = "${b[$i]-}" ] || changed+=("$(awk '{ print $1 }' <<<"${a[$i]}")")
	done
	expect_eq "program header count" "${#b[@]}" "${#a[@]}"
	expect_eq "program headers changed" "${changed[*]-}" "$(
		readelf -lW "$orig" | awk '/^Program Headers:/ { on = 1; next } on && /^ *$/ { exit }
			on && $1 == "LOAD" && !l++ { print "LOAD" }
			on && $1 == "NOTE" && $NF == "0x4" { print "NOTE" }' | paste -sd' ')"
	expect_eq "PT_GNU_PROPERTY" "$(readelf -lW "$f" | grep GNU_PROPERTY)" "$(readelf -lW "$orig" | grep GNU_PROPERTY)"
	expect_eq "sections at the same addresses (but the ABI tag's)" \
		"$(readelf -SW "$f" | awk '/^ *\[ *[0-9]+\]/ && !/ABI-tag|build-id/ { sub(/^ *\[ *[0-9]+\] */, ""); print $1, $3 }' | sort)" \
		"$(readelf -SW "$orig" | awk '/^ *\[ *[0-9]+\]/ && !/ABI-tag|build-id/ { sub(/^ *\[ *[0-9]+\] */, ""); print $1, $3 }' | sort)"
	expect_eq "section headers in the linkers' order (or numbered as before)" \
		"$(shdr_order_kept "$orig" "$f")" ""
	t_end

	t_begin "$s: runs as before; a second inject changes nothing"
	expect_eq "output" "$("$f" a b c 2>&1)" "$want_out"
	cp "$f" "$SCRATCH/again"
	expect_exit 0 "$EBID" inject -v "$f"
	expect_match "second run" "$err" "unchanged"
	expect_true "bytes changed" cmp -s "$f" "$SCRATCH/again"
	t_end

	t_begin "$s: eu-elflint --gnu-ld reports nothing new"
	if have eu-elflint; then
		new=$(comm -13 <(eu-elflint --gnu-ld "$orig" 2>&1 | sed 's/^[^:]*: //' | sort -u) \
			<(eu-elflint --gnu-ld "$f" 2>&1 | sed 's/^[^:]*: //' | sort -u))
		expect_eq "new complaints" "$new" ""
	else
		t_skip_if "eu-elflint not installed"
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
		expect_eq "output" "$("$st" a b c 2>&1)" "$want_out"
		t_end
	done

	t_begin "$s: objcopy --only-keep-debug keeps the id"
	expect_exit 0 objcopy --only-keep-debug "$f" "$SCRATCH/$s.debug"
	expect_eq "readelf -n" "$(readelf_ids "$SCRATCH/$s.debug")" "$injected"
	t_end

	t_begin "$s: perf buildid-list and the kernel's MMAP2 record show the id"
	if [ "$perf_ok" = 1 ]; then
		expect_match "perf buildid-list -i" "$(perf_id "$f")" "^$injected( |\$)"
		expect_eq "MMAP2 record" "$(mmap2_id "$f" "$f" a b c)" "$injected"
	else
		t_skip_if "$perf_record_why"
	fi
	t_end
done

t_done
