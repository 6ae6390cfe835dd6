#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# (j) --id=0xHEX writes exactly that id (1 to 20 bytes), as readelf and the
# kernel (emulated and real) see it. perf buildid-list -i prints only
# 20-byte ids, so for shorter ones the kernel's MMAP2 record stands in and
# verify runs with --perf=off (see t0140).
. "$(dirname "$0")/lib.sh"
require_tool
require_fixtures "${VARIANTS[@]}"

perf_ok=1
perf_record_works || perf_ok=0

ids=(00112233445566778899aabbccddeeff01234567 0102030405060708 5a)
for v in plain pie nobuildid reserved; do
	for want in "${ids[@]}"; do
		f=$(copy_fixture "$v" "$SCRATCH/${#want}/$v")
		if [ "$v" = reserved ] && [ "${#want}" != 40 ]; then
			t_begin "$v: --id=0x$want into the linker's 20-byte note exits 2, file untouched"
			state=$(file_state "$f")
			expect_exit 2 "$EBID" inject --id=0x"$want" "$f"
			expect_one_error_line "$f"
			expect_eq "inode mtime size" "$(file_state "$f")" "$state"
			t_end
			continue
		fi
		t_begin "$v: --id=0x$want writes exactly that id"
		if inject_ok "$f" --id=0x"$want"; then
			expect_eq "printed id" "$id" "$want"
			expect_eq "ebid.py note" "$(py_note "$f")" "$want"
			expect_eq "readelf -n" "$(readelf_ids "$f")" "$want"
			expect_eq "ebid.py kernel" "$(py_kernel "$f")" "$want"
			expect_exit 0 "$EBID" verify --perf=off "$f"
		fi
		t_end

		if [ "${#want}" = 40 ]; then
			t_begin "$v: --id=0x$want: perf buildid-list shows it; verify passes"
			if have perf; then
				expect_eq "perf buildid-list" "$(perf_id "$f")" "$want"
				expect_exit 0 "$EBID" verify --perf=require "$f"
			else
				t_skip_if "perf not installed"
			fi
		else
			t_begin "$v: --id=0x$want: the real kernel's MMAP2 record carries it"
			if [ "$perf_ok" = 1 ]; then
				expect_eq "perf MMAP2 build-id" "$(mmap2_id "$f")" "$want"
			else
				t_skip_if "$perf_record_why"
			fi
		fi
		t_end
	done
done

t_begin "plain: --id accepts upper-case hex and prints it in lower case"
f=$(copy_fixture plain "$SCRATCH/upper/plain")
if inject_ok "$f" --id=0xDEADBEEF; then
	expect_eq "printed id" "$id" deadbeef
	expect_eq "ebid.py note" "$(py_note "$f")" deadbeef
fi
t_end

t_begin "existing: --force --id replaces the linker's id"
f=$(copy_fixture existing "$SCRATCH/force/existing")
if inject_ok "$f" --force --id=0x"${ids[0]}"; then
	expect_eq "printed id" "$id" "${ids[0]}"
	expect_eq "ebid.py note" "$(py_note "$f")" "${ids[0]}"
	expect_eq "ebid.py kernel" "$(py_kernel "$f")" "${ids[0]}"
fi
t_end

t_done
