#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# An id in a section that is not named .note.gnu.build-id (issue 12). perf
# looks the id up in the first section named .note.gnu.build-id, else
# .notes, else .note (tools/perf/util/symbol-elf.c, elf_read_build_id);
# older toolchains (ppc64 among them) put every note in one section named
# .note. Such a file's id is seen by perf, file and the kernel, so verify
# passes it and inject keeps or rewrites it where it is. Where perf's lookup
# stops at another section first, or the name is none of the three, perf
# sees no id, and neither does verify. Each case is judged by perf itself.
. "$(dirname "$0")/lib.sh"
require_tool
require_deps base

cd "$SCRATCH" || exit 1
printf '#include <stdio.h>\nint main(void) { puts("hello"); return 0; }\n' >h.c

# The linker's default script with .note.gnu.build-id and .note.ABI-tag
# merged into one output section named .note, as old ppc64 links have it.
t_begin "a C program linked with one .note section holding two notes"
gcc -Wl,--build-id -Wl,--verbose h.c -o h0 2>/dev/null |
	sed -n '/^==========/,/^==========/p' | sed '1d;$d' >default.ld
sed 's/^  \.note\.gnu\.build-id  *: { \*(\.note\.gnu\.build-id) }/  .note : { *(.note.gnu.build-id) *(.note.ABI-tag) }/' \
	default.ld >merged.ld
expect_exit 1 cmp -s default.ld merged.ld
expect_exit 0 gcc -Wl,--build-id -Wl,-T,merged.ld h.c -o merged
expect_eq "its output" "$(./merged)" hello
expect_match "readelf -S" "$(readelf -SW merged)" ' \.note +NOTE '
expect_eq ".note.gnu.build-id sections" "$(readelf -SW merged | grep -c 'note\.gnu\.build-id')" 0
linker_id=$(readelf_ids merged)
expect_match "readelf -n" "$linker_id" '^[0-9a-f]{40}$'
expect_eq "perf buildid-list" "$(perf_id merged)" "$linker_id"
expect_eq "the kernel's reader (ebid.py kernel)" "$(py_kernel merged)" "$linker_id"
t_end

t_begin ".note: verify passes the linker's id"
run "$EBID" verify --perf=require merged
expect_eq "exit" "$rc" 0
expect_match "output" "$out" "^PASS  merged  $linker_id"
t_end

t_begin ".note: show names the section"
expect_exit 0 "$EBID" show merged
expect_match "gnu-note" "$out" 'gnu-note: section \[[0-9]+\] \.note,'
t_end

t_begin ".note: inject keeps the linker's id, changing nothing"
cp merged kept
inject_ok kept && expect_eq "printed id" "$id" "$linker_id"
expect_same_file "file" kept merged
t_end

t_begin ".note: inject -f rewrites the id in that section, as a content id"
cp merged forced
if inject_ok forced -f; then
	expect_ne "printed id" "$id" "$linker_id"
	expect_eq "perf buildid-list" "$(perf_id forced)" "$id"
	expect_eq "readelf -n" "$(readelf_ids forced)" "$id"
	expect_eq "ebid.py id (recomputed)" "$(py_id forced)" "$id"
	expect_eq "ebid.py kernel" "$(py_kernel forced)" "$id"
	expect_eq "size" "$(stat -c %s forced)" "$(stat -c %s merged)"
	expect_eq "its output" "$(./forced)" hello
	expect_exit 0 "$EBID" verify --perf=require forced
fi
t_end

t_begin ".note alone (renamed by objcopy): verify passes, perf agrees"
gcc -Wl,--build-id h.c -o plain
objcopy --rename-section .note.gnu.build-id=.note plain renamed
expect_eq "perf buildid-list" "$(perf_id renamed)" "$(readelf_ids plain)"
expect_exit 0 "$EBID" verify --perf=require renamed
t_end

# perf stops at the first name any section has: a .notes section without
# the id hides the .note that holds it.
t_begin ".notes before .note: perf sees no id, and verify says why"
objcopy --rename-section .note.gnu.property=.notes merged hidden
expect_eq "perf buildid-list" "$(perf_id hidden)" ""
run "$EBID" verify --perf=off hidden
expect_eq "exit" "$rc" 1
expect_match "reason" "$out" "section: section header \[[0-9]+\] \.notes comes first in perf's lookup"
run "$EBID" inject -f hidden
expect_eq "inject exit" "$rc" 2
expect_one_error_line hidden
t_end

t_begin "a name perf never reads: perf sees no id, verify and inject refuse"
objcopy --rename-section .note.gnu.build-id=.note.other plain other
expect_eq "perf buildid-list" "$(perf_id other)" ""
run "$EBID" verify --perf=off other
expect_eq "exit" "$rc" 1
expect_match "reason" "$out" "perf reads the id only from a section named \.note\.gnu\.build-id, \.notes or \.note"
cp other other.orig
run "$EBID" inject other
expect_eq "inject exit" "$rc" 2
expect_same_file "file left alone" other other.orig
t_end

t_done
