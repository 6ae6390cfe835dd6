#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# show prints, per file, "FILE" and then indented "gnu-build-id: HEX|none",
# "kernel-visible: yes|no" and "go-build-id: STRING|none"; the Go build-id
# is the one `go tool buildid` reads. show never changes the file.
. "$(dirname "$0")/lib.sh"
require_tool
require_fixtures "${VARIANTS[@]}"

field() { # NAME: the value of "  NAME: value" in $out (first word)
	printf '%s\n' "$out" | sed -n "s/^[[:space:]]\{1,\}$1: \([^ ]*\).*/\1/p"
}

for v in "${VARIANTS[@]}"; do
	f=$(copy_fixture "$v")
	gobid=none
	if have go; then
		gobid=$(go tool buildid "$f" 2>/dev/null)
		[ -n "$gobid" ] || gobid=none
	fi
	case "$v" in
	plain | sw | pie | nobuildid) gnu=none ;;
	reserved) gnu=$ZERO_ID ;;
	existing) gnu=$EXISTING_ID ;;
	esac

	t_begin "$v: show before inject"
	state=$(file_state "$f")
	expect_exit 0 "$EBID" show "$f"
	expect_eq "first line" "$(printf '%s\n' "$out" | head -n 1)" "$f"
	expect_eq "gnu-build-id" "$(field gnu-build-id)" "$gnu"
	expect_eq "kernel-visible" "$(field kernel-visible)" no
	if have go; then
		expect_eq "go-build-id" "$(field go-build-id)" "$gobid"
	fi
	expect_eq "inode mtime size" "$(file_state "$f")" "$state"
	t_end

	t_begin "$v: show after inject"
	if inject_ok "$f"; then
		expect_exit 0 "$EBID" show "$f"
		expect_eq "first line" "$(printf '%s\n' "$out" | head -n 1)" "$f"
		expect_eq "gnu-build-id" "$(field gnu-build-id)" "$id"
		expect_eq "kernel-visible" "$(field kernel-visible)" yes
		if have go; then
			expect_eq "go-build-id" "$(field go-build-id)" "$gobid"
		fi
	fi
	t_end
done

t_done
