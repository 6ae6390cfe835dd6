#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# -q prints no result lines (errors still go to stderr), -v describes the
# work on stderr without changing stdout, and --preserve-times keeps the
# file's modification time across the rewrite.
. "$(dirname "$0")/lib.sh"
require_tool
require_fixtures plain

for opt in -q --quiet; do
	t_begin "inject $opt: no stdout, exit 0, the file gets its id"
	f=$(copy_fixture plain "$SCRATCH/$opt/plain")
	expect_exit 0 "$EBID" inject "$opt" "$f"
	expect_eq "stdout" "$out" ""
	expect_eq "stderr" "$err" ""
	expect_match "ebid.py id" "$(py_id "$f")" '^[0-9a-f]{40}$'
	t_end

	t_begin "verify $opt: no stdout; the exit status still tells"
	expect_exit 0 "$EBID" verify "$opt" "$f"
	expect_eq "stdout" "$out" ""
	expect_exit 1 "$EBID" verify "$opt" "$FIXTURES/plain"
	expect_eq "stdout" "$out" ""
	t_end

	t_begin "inject $opt on a missing file: exit 2 and the error line still on stderr"
	expect_exit 2 "$EBID" inject "$opt" "$SCRATCH/missing"
	expect_one_error_line "$SCRATCH/missing"
	t_end
done

for opt in -v --verbose; do
	t_begin "inject $opt: the same stdout as without it, a description on stderr"
	f=$(copy_fixture plain "$SCRATCH/$opt/plain")
	g=$(copy_fixture plain "$SCRATCH/$opt/ref/plain")
	expect_exit 0 "$EBID" inject "$g"
	want=${out%%  *}
	expect_exit 0 "$EBID" inject "$opt" "$f"
	expect_eq "stdout" "$out" "$want  $f"
	[ -n "$err" ] || t_fail "nothing on stderr"
	# What was done, with the action words of --dry-run.
	h=$(copy_fixture plain "$SCRATCH/$opt/dry/plain")
	words=$("$EBID" inject -n "$h" 2>/dev/null | head -n 1)
	expect_match "dry-run words" "${words#"$h": }" "^add-note,fill"
	# ... and how the file was written: nobody has it open, so in place.
	expect_eq "stderr" "$err" "elf-buildid: '$f': injected (${words#"$h": }), edited in place under a write lease"
	expect_same_file "bytes" "$f" "$g"
	t_end
done

for mode in default --replace --in-place; do
	t_begin "--preserve-times keeps the modification time ($mode)"
	f=$(copy_fixture plain "$SCRATCH/times-$mode/plain")
	touch -d '2001-02-03 04:05:06.123456789' "$f"
	mtime=$(stat -c %.9Y "$f")
	inode=$(stat -c %i "$f")
	m=(); [ "$mode" = default ] || m=("$mode")
	expect_exit 0 "$EBID" inject "${m[@]}" --preserve-times "$f"
	expect_eq "mtime" "$(stat -c %.9Y "$f")" "$mtime"
	# --replace gives a new inode; the default (nobody has the file open)
	# and --in-place edit the same one.
	if [ "$mode" = --replace ]; then
		expect_ne "inode" "$(stat -c %i "$f")" "$inode"
	else
		expect_eq "inode" "$(stat -c %i "$f")" "$inode"
	fi
	t_end
done

t_begin "without --preserve-times the rewritten file has a new modification time"
f=$(copy_fixture plain "$SCRATCH/times2/plain")
touch -d '2001-02-03 04:05:06' "$f"
mtime=$(stat -c %.9Y "$f")
expect_exit 0 "$EBID" inject "$f"
expect_ne "mtime" "$(stat -c %.9Y "$f")" "$mtime"
t_end

t_done
