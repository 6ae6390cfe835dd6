#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# (j) reserve adds a zero-filled, kernel-visible note and prints
# "0000...  FILE"; backfill then fills it with the content id, which python
# recomputes, and verify passes. backfill without a reserved note exits 2.
. "$(dirname "$0")/lib.sh"
require_tool
require_fixtures "${VARIANTS[@]}"

for v in plain sw pie nobuildid reserved; do
	f=$(copy_fixture "$v")
	t_begin "$v: reserve prints a zero id; the note is zero and kernel-visible"
	if expect_exit 0 "$EBID" reserve "$f" && parse_id_line "$out" "$f"; then
		expect_eq "printed id" "$id" "$ZERO_ID"
	fi
	expect_eq "ebid.py note" "$(py_note "$f")" "$ZERO_ID"
	expect_eq "ebid.py kernel" "$(py_kernel "$f")" "$ZERO_ID"
	expect_eq "readelf -n" "$(readelf_ids "$f")" "$ZERO_ID"
	t_end

	t_begin "$v: backfill fills the content id; python recomputes it; verify passes"
	if expect_exit 0 "$EBID" backfill "$f" && parse_id_line "$out" "$f"; then
		expect_ne "id" "$id" "$ZERO_ID"
		expect_eq "ebid.py id" "$(py_id "$f")" "$id"
		expect_eq "ebid.py kernel" "$(py_kernel "$f")" "$id"
		expect_exit 0 "$EBID" verify "$f"
		expect_eq "verify" "$out" "PASS  $f  $id"
	fi
	t_end

	t_begin "$v: reserve+backfill gives the same bytes as inject"
	g=$(copy_fixture "$v" "$SCRATCH/inject/$v")
	expect_exit 0 "$EBID" inject "$g"
	expect_same_file "reserve+backfill vs inject" "$f" "$g"
	t_end
done

t_begin "reserved: backfill alone fills the linker's zero note and makes it kernel-visible"
f=$(copy_fixture reserved "$SCRATCH/backfill-only/reserved")
if expect_exit 0 "$EBID" backfill "$f" && parse_id_line "$out" "$f"; then
	expect_eq "ebid.py id" "$(py_id "$f")" "$id"
	expect_eq "ebid.py kernel" "$(py_kernel "$f")" "$id"
	expect_exit 0 "$EBID" verify "$f"
fi
t_end

t_begin "plain: reserve --hash=md5 then backfill --hash=md5: a 16-byte id that recomputes"
f=$(copy_fixture plain "$SCRATCH/md5/plain")
if expect_exit 0 "$EBID" reserve --hash=md5 "$f" && parse_id_line "$out" "$f"; then
	expect_eq "printed id" "$id" "00000000000000000000000000000000"
fi
if expect_exit 0 "$EBID" backfill --hash=md5 "$f" && parse_id_line "$out" "$f"; then
	expect_match "id" "$id" '^[0-9a-f]{32}$'
	expect_eq "ebid.py id --hash=md5" "$(py_id "$f" --hash=md5)" "$id"
	expect_eq "ebid.py kernel" "$(py_kernel "$f")" "$id"
fi
t_end

# backfill with nothing to fill: no note at all, or a non-zero one.
for v in plain nobuildid existing; do
	t_begin "$v: backfill without a reserved note exits 2, file untouched"
	f=$(copy_fixture "$v" "$SCRATCH/noreserve/$v")
	state=$(file_state "$f")
	expect_exit 2 "$EBID" backfill "$f"
	expect_one_error_line "$f"
	expect_eq "stdout" "$out" ""
	expect_eq "inode mtime size" "$(file_state "$f")" "$state"
	expect_same_file "bytes" "$f" "$FIXTURES/$v"
	t_end
done

# A note that is there keeps its size: reserve --hash must fit it.
t_begin "existing: reserve -f --hash=md5 on a 20-byte note exits 2 and says why, file untouched"
f=$(copy_fixture existing "$SCRATCH/resize/existing")
state=$(file_state "$f")
expect_exit 2 "$EBID" reserve -f --hash=md5 "$f"
expect_one_error_line "$f"
expect_match "message" "$err" "note holds 20 bytes but the md5 gives 16"
expect_eq "inode mtime size" "$(file_state "$f")" "$state"
expect_same_file "bytes" "$f" "$FIXTURES/existing"
t_end

t_begin "existing: reserve -f --hash=sha256 then backfill --hash=sha256: the id recomputes"
if expect_exit 0 "$EBID" reserve -f --hash=sha256 "$f" && parse_id_line "$out" "$f"; then
	expect_eq "printed id" "$id" "0000000000000000000000000000000000000000"
fi
if expect_exit 0 "$EBID" backfill --hash=sha256 "$f" && parse_id_line "$out" "$f"; then
	expect_eq "ebid.py id --hash=sha256" "$(py_id "$f" --hash=sha256)" "$id"
fi
t_end

t_done
