#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# (l) Several files: each is processed and reported once, a bad one does not
# stop the others, and the exit status is the worst (2 > 1 > 0). The order
# of the result lines is not part of the contract (the tool prints them in
# path order), so lines are compared sorted.
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
expect_eq "stdout (sorted)" "$(printf '%s\n' "$out" | sort)" \
	"$(printf '%s\n' "$ida  $a" "$idc  $c" | sort)"
expect_eq "stderr lines" "$(wc -l <"$SCRATCH/.err")" 2
grep -q "^elf-buildid: '$b': " "$SCRATCH/.err" || t_fail "no error line for $b: $err"
grep -q "^elf-buildid: '$m': " "$SCRATCH/.err" || t_fail "no error line for $m: $err"
expect_eq "non-ELF file" "$(cat "$b")" "not an ELF file"
t_end

t_begin "inject of two good files: exit 0, one line each"
d=$(copy_fixture pie)
e=$(copy_fixture existing)
expect_exit 0 "$EBID" inject "$d" "$e"
expect_eq "stdout (sorted)" "$(printf '%s\n' "$out" | sort)" \
	"$(printf '%s\n' "$(py_id "$d")  $d" "$EXISTING_ID  $e" | sort)"
t_end

u=$(copy_fixture plain "$SCRATCH/uninjected")
t_begin "verify injected + injected: exit 0"
expect_exit 0 "$EBID" verify "$a" "$c"
expect_eq "lines" "$(printf '%s\n' "$out" | grep -c '^PASS  ')" 2
t_end

t_begin "verify injected + un-injected + injected: exit 1, a line for each"
expect_exit 1 "$EBID" verify "$a" "$u" "$c"
expect_eq "stdout (sorted)" "$(printf '%s\n' "$out" | sed 's/^\([A-Z]*\)  \([^ ]*\).*/\2 \1/' | sort)" \
	"$(printf '%s\n' "$a PASS" "$u FAIL" "$c PASS" | sort)"
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
