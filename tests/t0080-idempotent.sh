#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# (e) inject on an already-correct file is a no-op: same line printed, same
# bytes, same inode, same mtime. inject is reproducible: two copies give
# identical bytes.
. "$(dirname "$0")/lib.sh"
require_tool
require_fixtures "${VARIANTS[@]}"

for v in "${VARIANTS[@]}"; do
	f=$(copy_fixture "$v")
	g=$(copy_fixture "$v" "$SCRATCH/other-dir/$v.copy")
	t_begin "$v: inject"
	inject_ok "$f"
	t_end
	first=$id
	[ -n "$first" ] || continue

	t_begin "$v: inject again prints the same id and does not rewrite the file"
	cp -p "$f" "$SCRATCH/$v.after1"
	# An old mtime: any rewrite would show.
	touch -d '2001-02-03 04:05:06' "$f"
	state=$(file_state "$f")
	if inject_ok "$f"; then
		expect_eq "id" "$id" "$first"
	fi
	expect_eq "inode mtime size" "$(file_state "$f")" "$state"
	expect_same_file "bytes" "$f" "$SCRATCH/$v.after1"
	t_end

	t_begin "$v: reserve, backfill and verify on the injected file change nothing"
	# Each one's exit status too: backfill refuses a filled note (2).
	for cmd_st in reserve:0 backfill:2 verify:0 show:0; do
		cmd=${cmd_st%:*}
		expect_exit "${cmd_st#*:}" "$EBID" "$cmd" "$f"
		expect_eq "$cmd: inode mtime size" "$(file_state "$f")" "$state"
	done
	expect_same_file "bytes" "$f" "$SCRATCH/$v.after1"
	t_end

	t_begin "$v: two copies at different paths inject to identical bytes"
	if inject_ok "$g"; then
		expect_eq "id" "$id" "$first"
	fi
	expect_same_file "bytes" "$g" "$SCRATCH/$v.after1"
	t_end
done

t_done
