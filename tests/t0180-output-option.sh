#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# (l) -o OUT / --output=OUT writes the result elsewhere: the input is left
# exactly as it was (bytes, inode, mtime), and OUT has the same bytes as an
# in-place inject of another copy.
. "$(dirname "$0")/lib.sh"
require_tool
require_fixtures "${VARIANTS[@]}"

for v in "${VARIANTS[@]}"; do
	for opt in -o --output=; do
		d=$SCRATCH/${opt//[-=]/}
		mkdir -p "$d/out"
		f=$(copy_fixture "$v" "$d/$v")
		o=$d/out/$v
		state=$(file_state "$f")
		t_begin "$v: inject $opt OUT leaves the input untouched"
		if [ "$opt" = -o ]; then
			expect_exit 0 "$EBID" inject -o "$o" "$f"
		else
			expect_exit 0 "$EBID" inject --output="$o" "$f"
		fi
		# The result line names the output (the file that now has the id).
		oid=${out%%  *}
		expect_match "result line" "$out" "^[0-9a-f]{40}  $o\$"
		expect_eq "input inode mtime size" "$(file_state "$f")" "$state"
		expect_same_file "input bytes" "$f" "$FIXTURES/$v"
		t_end

		t_begin "$v: $opt OUT has the same bytes as an in-place inject"
		g=$(copy_fixture "$v" "$d/inplace/$v")
		expect_exit 0 "$EBID" inject "$g"
		expect_same_file "OUT vs in-place" "$o" "$g"
		expect_eq "ebid.py note" "$(py_note "$o")" "$oid"
		[ -x "$o" ] || t_fail "OUT is not executable: $(stat -c %A "$o")"
		t_end
	done
done

t_begin "-o over an existing file replaces it"
f=$(copy_fixture plain "$SCRATCH/over/plain")
echo "old content" >"$SCRATCH/over/out"
expect_exit 0 "$EBID" inject -o "$SCRATCH/over/out" "$f"
expect_same_file "input bytes" "$f" "$FIXTURES/plain"
expect_eq "ebid.py kernel" "$(py_kernel "$SCRATCH/over/out")" "${out%%  *}"
t_end

t_begin "-o with --dry-run writes no output file"
f=$(copy_fixture plain "$SCRATCH/dry/plain")
expect_exit 0 "$EBID" inject --dry-run -o "$SCRATCH/dry/out" "$f"
[ -e "$SCRATCH/dry/out" ] && t_fail "OUT was written"
expect_same_file "input bytes" "$f" "$FIXTURES/plain"
t_end

t_begin "-o on an already-correct input still writes OUT, input untouched"
f=$(copy_fixture plain "$SCRATCH/done/plain")
expect_exit 0 "$EBID" inject "$f"
cp "$f" "$SCRATCH/done/saved"
state=$(file_state "$f")
expect_exit 0 "$EBID" inject -o "$SCRATCH/done/out" "$f"
expect_same_file "OUT" "$SCRATCH/done/out" "$SCRATCH/done/saved"
expect_eq "input inode mtime size" "$(file_state "$f")" "$state"
t_end

t_done
