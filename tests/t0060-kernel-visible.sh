#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# (c) The kernel sees the id: ebid.py's emulation of lib/buildid.c, and for
# real, the MMAP2 record of `perf record --buildid-mmap`. Before inject the
# kernel sees no id in any fixture (so the check can fail). perf report
# still resolves the hot function in the injected binary.
. "$(dirname "$0")/lib.sh"
require_tool
require_fixtures "${VARIANTS[@]}"

perf_ok=1
perf_record_works || perf_ok=0

for v in "${VARIANTS[@]}"; do
	f=$(copy_fixture "$v")

	t_begin "$v: before inject neither ebid.py kernel nor the real kernel sees an id"
	expect_exit 1 python3 "$EBID_PY" kernel "$f"
	if [ "$perf_ok" = 1 ]; then
		expect_eq "perf MMAP2 build-id" "$(mmap2_id "$f")" none
	else
		t_skip_if "$perf_record_why"
	fi
	t_end

	t_begin "$v: inject"
	inject_ok "$f"
	t_end
	# The id of that inject, which the blocks below check against.
	injected=$id
	[ -n "$injected" ] || continue

	t_begin "$v: ebid.py kernel (first page, PT_NOTE walk) finds the id"
	expect_eq "ebid.py kernel" "$(py_kernel "$f")" "$injected"
	t_end

	t_begin "$v: perf record --buildid-mmap: the MMAP2 record carries the id"
	if [ "$perf_ok" = 1 ]; then
		expect_eq "perf MMAP2 build-id" "$(mmap2_id "$f" spin)" "$injected"
	else
		t_skip_if "$perf_record_why"
	fi
	t_end

	if [ "$v" = sw ]; then
		# -s -w drops .symtab: perf cannot name functions, so there is
		# no attribution to check; what is checked is that premise (a
		# block that skipped for it in every run checked nothing).
		t_begin "$v: -s -w left no .symtab, so perf has no function names to give"
		expect_false "readelf -S shows a .symtab" grep_q -F ' .symtab ' \
			< <(readelf -SW "$f")
		t_end
		continue
	fi
	t_begin "$v: perf report attributes samples to main.spinHotLoop"
	if [ "$perf_ok" = 1 ]; then
		# The data of the MMAP2 check above, which ran "$f" spin.
		top=$(perf report -i "$SCRATCH/.perf.data" --stdio --sort sym 2>/dev/null |
			grep -v '^#' | grep -m1 '%')
		expect_match "hottest symbol" "$top" 'main\.spinHotLoop'
	else
		t_skip_if "$perf_record_why"
	fi
	t_end
done

t_done
