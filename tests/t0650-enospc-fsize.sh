#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# No room to write the new file: a small tmpfs (no space, no inodes) and a
# file size limit (ulimit -f, which also raises SIGXFSZ). With --replace,
# which needs room for a whole copy, each time: exit 2, one error line with
# the cause, the original's bytes intact, no temporary left in the
# directory. The default mode edits the file in place (nobody else has it
# open) and needs room only for its journal: it succeeds where a copy
# cannot be made, and fails as cleanly where it cannot write at all.
. "$(dirname "$0")/lib.sh"
require_tool
require_fixtures nobuildid

mnt=$SCRATCH/mnt
cleanup() { mountpoint -q "$mnt" 2>/dev/null && umount "$mnt"; }
trap cleanup EXIT

sha() { sha256sum <"$1" | cut -d' ' -f1; }
want_sha=$(sha "$FIXTURES/nobuildid")
size=$(stat -c %s "$FIXTURES/nobuildid")

# Checks after a failed inject of $1: exit 2, the cause, bytes kept, no temp.
failed_cleanly() { # FILE CAUSE_ERE
	local f=$1 d
	d=$(dirname "$f")
	[ "$rc" = 2 ] || t_fail "exit $rc, want 2; stderr: $err"
	expect_one_error_line "$f"
	expect_match "cause" "$err" "$2"
	expect_eq "sha256 of $(basename "$f")" "$(sha "$f")" "$want_sha"
	local left
	left=$(find "$d" -mindepth 1 -maxdepth 1 ! -name "$(basename "$f")" -printf '%f ')
	expect_eq "files left beside it" "$left" ""
}

can_mount=1
mkdir -p "$mnt"
if ! mount -t tmpfs -o size=64k tmpfs "$mnt" 2>"$SCRATCH/mount.err"; then
	can_mount=0
	why="cannot mount a tmpfs here: $(cat "$SCRATCH/mount.err")"
else
	umount "$mnt"
fi
if [ "$can_mount" = 0 ] && [ "$(id -u)" = 0 ]; then
	echo "not ok 1 - running as root but $why"
	exit 1
fi

for kb in $(((size + 4095) / 4096 * 4 + 64)) $(((size + 4095) / 4096 * 4 + 1100)); do
	t_begin "tmpfs of ${kb} KiB, a $size-byte file: ENOSPC while writing the new file"
	if [ "$can_mount" = 1 ]; then
		mount -t tmpfs -o "size=${kb}k" tmpfs "$mnt" &&
			cp "$FIXTURES/nobuildid" "$mnt/prog" || t_fail "setup failed"
		run "$EBID" inject --replace "$mnt/prog"
		failed_cleanly "$mnt/prog" 'No space left on device'
		# In place: a journal of a few KiB is all it needs.
		cp "$FIXTURES/nobuildid" "$mnt/prog" || t_fail "setup failed"
		if inject_ok "$mnt/prog"; then
			expect_eq "in place: ebid.py id" "$(py_id "$mnt/prog")" "$id"
			expect_eq "in place: files beside it" "$(ls -A "$mnt")" prog
		fi
		umount "$mnt"
	else
		t_skip_if "$why"
	fi
	t_end
done

t_begin "tmpfs without a free inode: no temporary file can be made"
if [ "$can_mount" = 1 ]; then
	mount -t tmpfs -o size=8m,nr_inodes=2 tmpfs "$mnt" &&
		cp "$FIXTURES/nobuildid" "$mnt/prog" || t_fail "setup failed"
	run "$EBID" inject --replace "$mnt/prog"
	failed_cleanly "$mnt/prog" 'No space left on device'
	# Nor a journal, in place.
	run "$EBID" inject "$mnt/prog"
	failed_cleanly "$mnt/prog" 'No space left on device'
	umount "$mnt"
else
	t_skip_if "$why"
fi
t_end

for kb in 1 1024 $((size / 1024 - 1)); do
	t_begin "ulimit -f $kb (KiB) on a $size-byte file, --replace: no signal, a clear error"
	d=$SCRATCH/fsize-$kb
	mkdir -p "$d" && cp "$FIXTURES/nobuildid" "$d/prog"
	run bash -c 'ulimit -f "$1" && exec "$2" inject --replace "$3"' _ "$kb" "$EBID" "$d/prog"
	if [ "$rc" -ge 128 ]; then
		t_fail "killed by signal $((rc - 128)) ($(kill -l $((rc - 128)) 2>/dev/null)); stderr: $err"
	fi
	failed_cleanly "$d/prog" 'File too large'
	t_end
done

# In place, every write lies in the first pages: a limit below them
# fails cleanly, one above them is enough.
t_begin "ulimit -f 1 (KiB), in place: no signal, a clear error"
d=$SCRATCH/fsize-inplace-1
mkdir -p "$d" && cp "$FIXTURES/nobuildid" "$d/prog"
run bash -c 'ulimit -f 1 && exec "$1" inject "$2"' _ "$EBID" "$d/prog"
if [ "$rc" -ge 128 ]; then
	t_fail "killed by signal $((rc - 128)); stderr: $err"
fi
failed_cleanly "$d/prog" 'File too large'
t_end

t_begin "ulimit -f 64 (KiB), in place, below the file's size: inject succeeds"
d=$SCRATCH/fsize-inplace-64
mkdir -p "$d" && cp "$FIXTURES/nobuildid" "$d/prog"
run bash -c 'ulimit -f 64 && exec "$1" inject "$2"' _ "$EBID" "$d/prog"
if [ "$rc" = 0 ]; then
	parse_id_line "$out" "$d/prog" && expect_eq "ebid.py id" "$(py_id "$d/prog")" "$id"
else
	t_fail "exit $rc; stderr: $err"
fi
t_end

kb=$((size / 1024 + 8))
t_begin "ulimit -f $kb (KiB), just above the file's size: inject succeeds"
d=$SCRATCH/fsize-$kb
mkdir -p "$d" && cp "$FIXTURES/nobuildid" "$d/prog"
run bash -c 'ulimit -f "$1" && exec "$2" inject "$3"' _ "$kb" "$EBID" "$d/prog"
if [ "$rc" = 0 ]; then
	parse_id_line "$out" "$d/prog" && expect_eq "ebid.py id" "$(py_id "$d/prog")" "$id"
else
	t_fail "exit $rc; stderr: $err"
fi
t_end

t_done
