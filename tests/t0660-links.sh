#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# Hard links and symlinks. A file with several hard links is refused by
# default (exit 2, the link count in the message, nothing changed);
# --in-place edits the one inode all links share (no journal left behind).
# A symlink: the target is edited and the link stays the same link, also
# through a chain of links and into another directory.
. "$(dirname "$0")/lib.sh"
require_tool
require_fixtures nobuildid

sha() { sha256sum <"$1" | cut -d' ' -f1; }
listing() { find "$1" -mindepth 1 -maxdepth 1 -printf '%f %i %s %y\n' | sort; }
orig=$(sha "$FIXTURES/nobuildid")

for n in 2 3; do
	t_begin "a file with $n hard links is refused, with the link count, nothing changed"
	d=$SCRATCH/hard$n
	mkdir -p "$d" && cp "$FIXTURES/nobuildid" "$d/a"
	for ((k = 2; k <= n; k++)); do ln "$d/a" "$d/link$k"; done
	l0=$(listing "$d")
	run "$EBID" inject "$d/a"
	expect_eq "exit" "$rc" 2
	expect_one_error_line "$d/a"
	expect_match "message names the link count" "$err" "(^|[^0-9])$n hard links"
	expect_eq "sha256" "$(sha "$d/a")" "$orig"
	expect_eq "directory listing" "$(listing "$d")" "$l0"
	t_end
done

t_begin "--in-place on a file with 2 hard links edits the shared inode"
d=$SCRATCH/inplace
mkdir -p "$d" && cp "$FIXTURES/nobuildid" "$d/a" && ln "$d/a" "$d/b"
ino=$(stat -c %i "$d/a")
if inject_ok "$d/a" --in-place; then
	expect_eq "ebid.py id" "$(py_id "$d/a")" "$id"
	expect_eq "inode of a" "$(stat -c %i "$d/a")" "$ino"
	expect_eq "inode of b" "$(stat -c %i "$d/b")" "$ino"
	expect_eq "link count" "$(stat -c %h "$d/a")" 2
	expect_eq "files in the directory" "$(ls -A "$d" | tr '\n' ' ')" "a b "
fi
t_end

t_begin "--in-place is a no-op the second time"
if inject_ok "$d/a" --in-place; then
	expect_eq "ebid.py id" "$(py_id "$d/b")" "$id"
	expect_eq "files in the directory" "$(ls -A "$d" | tr '\n' ' ')" "a b "
fi
t_end

check_symlink() { # LINK TARGET_TEXT REAL_FILE DIRS...
	local link=$1 text=$2 real=$3
	shift 3
	local ino0
	ino0=$(stat -c %i "$link")
	if inject_ok "$link"; then
		[ -L "$link" ] || t_fail "$link is no longer a symlink"
		expect_eq "link text" "$(readlink "$link")" "$text"
		expect_eq "ebid.py id of the target" "$(py_id "$real")" "$id"
		[ -L "$real" ] && t_fail "the target became a symlink"
		local dd
		for dd in "$@"; do
			left=$(find "$dd" -mindepth 1 -maxdepth 1 -name '.*ebid*' -printf '%f ')
			expect_eq "temporaries in $dd" "$left" ""
		done
	fi
}

t_begin "relative symlink: the target is edited, the link stays"
d=$SCRATCH/sym
mkdir -p "$d" && cp "$FIXTURES/nobuildid" "$d/real" && ln -s real "$d/link"
check_symlink "$d/link" real "$d/real" "$d"
t_end

t_begin "absolute symlink into another directory: temporaries go beside the target"
d=$SCRATCH/symabs
mkdir -p "$d/bin" "$d/store" && cp "$FIXTURES/nobuildid" "$d/store/prog" &&
	ln -s "$d/store/prog" "$d/bin/prog"
check_symlink "$d/bin/prog" "$d/store/prog" "$d/store/prog" "$d/bin" "$d/store"
expect_eq "files in bin" "$(ls -A "$d/bin")" "prog"
t_end

t_begin "a chain of symlinks (l2 -> l1 -> ../store/prog): both links stay"
d=$SCRATCH/symchain
mkdir -p "$d/bin" "$d/store" && cp "$FIXTURES/nobuildid" "$d/store/prog" &&
	ln -s ../store/prog "$d/bin/l1" && ln -s l1 "$d/bin/l2"
check_symlink "$d/bin/l2" l1 "$d/store/prog" "$d/bin" "$d/store"
expect_eq "l1 text" "$(readlink "$d/bin/l1")" ../store/prog
t_end

t_begin "a journal an interrupted --in-place run left: -o refuses, a plain inject undoes it first"
# A journal as ebid_inplace_write() writes it (src/fs/inplace.c): the original
# bytes of a range the run had already overwritten.
d=$SCRATCH/journal
mkdir -p "$d" && cp "$FIXTURES/nobuildid" "$d/k"
python3 - "$d/k" <<'PY'
import os, struct, sys
f = sys.argv[1]
st = os.stat(f)
data = open(f, "rb").read()
off = 200
with open(f, "r+b") as w:
    w.seek(off)
    w.write(b"XXXXXXXX")
j = b"EBIDJNL1" + struct.pack("<QQQQ", st.st_dev, st.st_ino, len(data), 1)
j += struct.pack("<QQ", off, 8) + data[off:off + 8]
open(os.path.join(os.path.dirname(f), ".k.ebid-journal"), "wb").write(j)
PY
torn=$(sha "$d/k")
run "$EBID" inject -o "$d/out" "$d/k"
expect_eq "-o: exit" "$rc" 2
expect_match "-o: says why" "$err" "interrupted in-place edit"
expect_eq "-o: input untouched" "$(sha "$d/k")" "$torn"
[ -e "$d/out" ] && t_fail "-o wrote $d/out"
cp "$FIXTURES/nobuildid" "$d/clean"
run "$EBID" inject -q "$d/clean"
expect_eq "clean inject: exit" "$rc" 0
run "$EBID" inject -q "$d/k"
expect_eq "inject: exit" "$rc" 0
expect_same_file "undone, then injected like an untouched copy" "$d/k" "$d/clean"
expect_eq "files in the directory" "$(ls -A "$d" | tr '\n' ' ')" "clean k "
t_end

t_done
