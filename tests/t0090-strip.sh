#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# tier: slow (strip, eu-strip and objcopy --strip-debug over every Go variant, each run)
# (f) strip, eu-strip and objcopy --strip-debug keep the note, its section
# and its PT_NOTE in the first page: readelf -n and the kernel's reader
# still give the id, and the stripped binary still runs.
. "$(dirname "$0")/lib.sh"
require_tool
require_fixtures "${VARIANTS[@]}"

for v in "${VARIANTS[@]}"; do
	f=$(copy_fixture "$v")
	t_begin "$v: inject"
	inject_ok "$f"
	t_end
	# The id of that inject, which the blocks below check against.
	injected=$id
	[ -n "$injected" ] || continue
	want_out=$("$f" 2>&1)

	for tool in strip eu-strip "objcopy --strip-debug"; do
		s=$SCRATCH/$v.${tool// /_}
		t_begin "$v: after $tool the id is still in the section and kernel-visible"
		if ! have "${tool%% *}"; then
			t_skip_if "${tool%% *} not installed"
			t_end
			continue
		fi
		cp "$f" "$s"
		# shellcheck disable=SC2086 # the tool's words
		expect_exit 0 $tool "$s"
		expect_eq "readelf -n" "$(readelf_ids "$s")" "$injected"
		expect_eq "ebid.py note" "$(py_note "$s")" "$injected"
		expect_eq "ebid.py kernel" "$(py_kernel "$s")" "$injected"
		expect_eq "output of the stripped binary" "$("$s" 2>&1)" "$want_out"
		t_end
	done
done

t_done
