#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# The file is replaced safely (docs/build-id.md, "How the file is written"):
# mode and owner are kept, no temporary file is left behind, a file with
# several hard links is refused (replacing it would split them) but can go
# through -o, and a symlink argument is followed (the link stays a link).
. "$(dirname "$0")/lib.sh"
require_tool
require_fixtures plain

t_begin "mode 0750 and owner 1234:5678 are kept"
f=$(copy_fixture plain "$SCRATCH/mode/plain")
chmod 0750 "$f"
chown 1234:5678 "$f" 2>/dev/null || t_skip_if "chown not permitted"
before=$(stat -c '%a %u %g' "$f")
inject_ok "$f"
expect_eq "mode uid gid" "$(stat -c '%a %u %g' "$f")" "$before"
expect_eq "directory" "$(ls -A "$SCRATCH/mode")" plain
t_end

t_begin "a file with two hard links is refused (exit 2), both links untouched"
f=$(copy_fixture plain "$SCRATCH/link/plain")
ln "$f" "$SCRATCH/link/hard"
state=$(file_state "$f")
expect_exit 2 "$EBID" inject "$f"
expect_one_error_line "$f"
expect_eq "inode mtime size" "$(file_state "$f")" "$state"
expect_same_file "hard link" "$SCRATCH/link/hard" "$FIXTURES/plain"
expect_eq "link count" "$(stat -c %h "$f")" 2
# An option the message suggests must be one the tool knows.
help=$("$EBID" inject --help 2>&1)
for o in $(grep -oE -- '--[a-z][a-z-]*' "$SCRATCH/.err" | sort -u); do
	printf '%s\n' "$help" | grep_q -e "$o" ||
		t_fail "the error suggests $o, which inject --help does not list: $err"
done
t_end

t_begin "a file with two hard links can be injected with -o"
o=$SCRATCH/link/out
expect_exit 0 "$EBID" inject -o "$o" "$f"
expect_eq "ebid.py id" "$(py_id "$o")" "${out%%  *}"
expect_same_file "input" "$f" "$FIXTURES/plain"
t_end

t_begin "a symlink argument: the target gets the id, the link stays a link"
f=$(copy_fixture plain "$SCRATCH/sym/real")
ln -s real "$SCRATCH/sym/link"
expect_exit 0 "$EBID" inject "$SCRATCH/sym/link"
[ -L "$SCRATCH/sym/link" ] || t_fail "the symlink was replaced by a file"
expect_match "ebid.py id" "$(py_id "$f")" '^[0-9a-f]{40}$'
expect_eq "directory" "$(ls -A "$SCRATCH/sym" | tr '\n' ' ')" "link real "
t_end

t_done
