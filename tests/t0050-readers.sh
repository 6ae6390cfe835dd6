#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# (b) readelf -n, eu-readelf -n, file and perf buildid-list all show the id
# inject printed, and only that one.
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

	t_begin "$v: readelf -n shows the id"
	expect_eq "readelf -n" "$(readelf_ids "$f")" "$injected"
	t_end

	t_begin "$v: eu-readelf -n shows the id"
	if have eu-readelf; then
		expect_eq "eu-readelf -n" "$(eu_readelf_ids "$f")" "$injected"
	else
		t_skip_if "eu-readelf not installed"
	fi
	t_end

	t_begin "$v: file shows BuildID[sha1]=id"
	if have file; then
		expect_eq "file" "$(file_id "$f")" "$injected"
		expect_match "file" "$(file -b "$f")" 'BuildID\[sha1\]='
	else
		t_skip_if "file not installed"
	fi
	t_end

	t_begin "$v: perf buildid-list -i shows the id"
	if have perf; then
		expect_exit 0 perf buildid-list -i "$f"
		expect_eq "perf buildid-list" "$out" "$injected"
	else
		t_skip_if "perf not installed"
	fi
	t_end
done

t_done
