#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# (a) inject prints "ID  FILE", and the id is what an independent
# recomputation of the definition gives (the existing non-zero id is kept).
# The note is an SHF_ALLOC SHT_NOTE section .note.gnu.build-id, align 4.
. "$(dirname "$0")/lib.sh"
require_tool
require_fixtures "${VARIANTS[@]}"

for v in "${VARIANTS[@]}"; do
	t_begin "$v: inject prints 'ID  FILE' and python recomputes the id"
	f=$(copy_fixture "$v")
	if inject_ok "$f"; then
		expect_match "id" "$id" '^[0-9a-f]{40}$'
		if [ "$v" = existing ]; then
			expect_eq "kept id" "$id" "$EXISTING_ID"
		else
			expect_ne "id" "$id" "$ZERO_ID"
			expect_eq "ebid.py id" "$(py_id "$f")" "$id"
		fi
		expect_eq "ebid.py note" "$(py_note "$f")" "$id"
		expect_eq "stderr" "$err" ""
	fi
	t_end

	# Its own copy: a block checks only what it ran itself.
	t_begin "$v: the note is an SHF_ALLOC SHT_NOTE .note.gnu.build-id of alignment 4"
	f=$(copy_fixture "$v" "$SCRATCH/note/$v")
	inject_ok "$f"
	got=$(python3 "$EBID_PY" note -v "$f" 2>&1 | sed -n 2p)
	expect_match "ebid.py note -v" "$got" \
		'^section=[0-9]+ type=7 flags=0x[0-9a-f]*[2367abef] addralign=4 offset=0x[0-9a-f]+ size=36 '
	sec=$(readelf -SW "$f" | grep -F ' .note.gnu.build-id ')
	expect_match "readelf -S" "$sec" \
		'\] \.note\.gnu\.build-id +NOTE +[0-9a-f]+ [0-9a-f]+ 000024 00 +A +0 +0 +4$'
	[ "$(printf '%s\n' "$sec" | grep -c .)" = 1 ] ||
		t_fail "want one .note.gnu.build-id section, readelf -S shows: $sec"
	t_end
done

t_done
