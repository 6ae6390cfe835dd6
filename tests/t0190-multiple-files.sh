#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# (l) Several files: each is processed and reported in order, a bad one does
# not stop the others, and the exit status is the worst (2 > 1 > 0).
. "$(dirname "$0")/lib.sh"
require_tool
require_fixtures plain pie nobuildid existing

a=$(copy_fixture plain)
b=$SCRATCH/not-elf
echo "not an ELF file" >"$b"
c=$(copy_fixture nobuildid)
m=$SCRATCH/missing

t_begin "inject good, non-ELF, good, missing: exit 2, both good files injected"
expect_exit 2 "$EBID" inject "$a" "$b" "$c" "$m"
ida=$(py_id "$a")
idc=$(py_id "$c")
expect_match "a recomputes" "$ida" '^[0-9a-f]{40}$'
expect_match "c recomputes" "$idc" '^[0-9a-f]{40}$'
expect_eq "stdout" "$out" "$ida  $a"$'\n'"$idc  $c"
expect_eq "stderr lines" "$(wc -l <"$SCRATCH/.err")" 2
grep -q "^elf-buildid: '$b': " "$SCRATCH/.err" || t_fail "no error line for $b: $err"
grep -q "^elf-buildid: '$m': " "$SCRATCH/.err" || t_fail "no error line for $m: $err"
expect_eq "non-ELF file" "$(cat "$b")" "not an ELF file"
t_end

t_begin "inject of two good files: exit 0, one line each, in order"
d=$(copy_fixture pie)
e=$(copy_fixture existing)
expect_exit 0 "$EBID" inject "$d" "$e"
expect_eq "stdout" "$out" "$(py_id "$d")  $d"$'\n'"$EXISTING_ID  $e"
t_end

u=$(copy_fixture plain "$SCRATCH/uninjected")
t_begin "verify injected + injected: exit 0"
expect_exit 0 "$EBID" verify "$a" "$c"
expect_eq "lines" "$(printf '%s\n' "$out" | grep -c '^PASS  ')" 2
t_end

t_begin "verify injected + un-injected + injected: exit 1, a line for each"
expect_exit 1 "$EBID" verify "$a" "$u" "$c"
expect_eq "stdout" "$(printf '%s\n' "$out" | cut -c1-4 | tr '\n' ' ')" "PASS FAIL PASS "
t_end

t_begin "verify un-injected + missing: exit 2 (the worst)"
expect_exit 2 "$EBID" verify "$u" "$m"
expect_match "stdout" "$out" "^FAIL  $u  "
grep -q "^elf-buildid: '$m': " "$SCRATCH/.err" || t_fail "no error line for $m: $err"
t_end

t_begin "verify missing + un-injected: exit 2 whatever the order"
expect_exit 2 "$EBID" verify "$m" "$u"
t_end

t_begin "show of two files: a block for each, exit 0"
expect_exit 0 "$EBID" show "$a" "$u"
expect_eq "file lines" "$(printf '%s\n' "$out" | grep -c -e "^$a\$" -e "^$u\$")" 2
t_end

t_done
