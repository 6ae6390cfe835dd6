#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# (g) eu-elflint --gnu-ld reports nothing new on the output compared with the
# input. Lines are compared whole (only the file's own name is replaced), so
# a section renumbering counts as new.
#
# One change is explained, not new: eu-elflint complains about the Go note
# (type 4, unknown to it) "at offset N", N being where the walk of that
# PT_NOTE stands after the note. When the GNU note is put in front of the
# Go note and the PT_NOTE grown down over it, N grows by exactly the size of
# the GNU note, in the same phdr. That line is accepted as moved (and shown
# as a comment) only when both the phdr index and that exact shift match.
. "$(dirname "$0")/lib.sh"
require_tool
require_fixtures "${VARIANTS[@]}"

lint() { # FILE: eu-elflint's lines, file name replaced by FILE, sorted
	eu-elflint --gnu-ld "$1" 2>&1 | sed "s|$1|FILE|g" | LC_ALL=C sort -u
}

for v in "${VARIANTS[@]}"; do
	t_begin "$v: eu-elflint --gnu-ld reports nothing new after inject"
	if ! have eu-elflint; then
		t_skip_if "eu-elflint not installed"
		t_end
		continue
	fi
	f=$(copy_fixture "$v")
	lint "$f" >"$v.before"
	if inject_ok "$f"; then
		lint "$f" >"$v.after"
		note_size=$(python3 "$EBID_PY" note -v "$f" |
			sed -n 's/.* size=\([0-9]*\) .*/\1/p')
		new=
		while IFS= read -r line; do
			[ -n "$line" ] || continue
			if [[ "$line" =~ ^(phdr\[[0-9]+\]: unknown object file note type 4 with owner name \'Go\' at offset )([0-9]+)$ ]] &&
				[ -n "$note_size" ] &&
				grep -qxF "${BASH_REMATCH[1]}$((BASH_REMATCH[2] - note_size))" "$v.before"; then
				echo "# moved by the ${note_size}-byte note in front of it: $line"
				continue
			fi
			new+="$line"$'\n'
		done < <(LC_ALL=C comm -13 "$v.before" "$v.after")
		if [ -n "$new" ]; then
			t_fail "new eu-elflint lines:" "$new" \
				"gone eu-elflint lines:" "$(LC_ALL=C comm -23 "$v.before" "$v.after")"
		fi
	fi
	t_end
done

t_done
