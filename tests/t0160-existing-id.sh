#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# (j) A non-zero id that the linker wrote (fixture `existing`, Go -B) is
# kept, but made kernel-visible; --force recomputes it as a content id.
. "$(dirname "$0")/lib.sh"
require_tool
require_fixtures existing

t_begin "existing: before inject the id is in the section but not kernel-visible"
expect_eq "ebid.py note" "$(py_note "$FIXTURES/existing")" "$EXISTING_ID"
expect_exit 1 python3 "$EBID_PY" kernel "$FIXTURES/existing"
t_end

f=$(copy_fixture existing)
t_begin "existing: inject keeps the id and makes it kernel-visible"
if inject_ok "$f"; then
	expect_eq "printed id" "$id" "$EXISTING_ID"
fi
expect_eq "ebid.py note" "$(py_note "$f")" "$EXISTING_ID"
expect_eq "ebid.py kernel" "$(py_kernel "$f")" "$EXISTING_ID"
expect_eq "readelf -n" "$(readelf_ids "$f")" "$EXISTING_ID"
expect_exit 0 "$EBID" verify "$f"
t_end

t_begin "existing: only the PT_NOTE changed; the note bytes are the same"
expect_eq "size" "$(stat -c %s "$f")" "$(stat -c %s "$FIXTURES/existing")"
# Bytes that differ: all inside the program header table.
diffs=$(cmp -l "$FIXTURES/existing" "$f" | awk '{ print $1 - 1 }')
phend=$(python3 -c 'import struct,sys; d=open(sys.argv[1],"rb").read(); print(struct.unpack_from("<Q",d,32)[0] + 56*struct.unpack_from("<H",d,56)[0])' "$f")
for off in $diffs; do
	[ "$off" -lt "$phend" ] || t_fail "byte 0x$(printf %x "$off") changed, outside the program headers"
done
[ -n "$diffs" ] || t_fail "nothing changed"
t_end

for opt in -f --force; do
	t_begin "existing: inject $opt recomputes the id from the content"
	g=$(copy_fixture existing "$SCRATCH/$opt/existing")
	if inject_ok "$g" "$opt"; then
		expect_ne "id" "$id" "$EXISTING_ID"
		expect_eq "ebid.py id" "$(py_id "$g")" "$id"
		expect_eq "ebid.py kernel" "$(py_kernel "$g")" "$id"
		expect_exit 0 "$EBID" verify "$g"
	fi
	t_end
done

t_begin "plain: --force on an injected file gives the same content id again"
f=$(copy_fixture plain)
inject_ok "$f"
first=$id
if inject_ok "$f" --force; then
	expect_eq "id" "$id" "$first"
	expect_eq "ebid.py id" "$(py_id "$f")" "$first"
fi
t_end

t_done
