#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# Power loss at any point of inject leaves the old file or the new one
# (issue 34): each write mode's real run is recorded (writes, copies,
# fsyncs, creates, renames, unlinks), every state that ext4 (data=ordered)
# and XFS may leave after a crash at each call is built from the log, and
# each is checked: the old bytes or the new ones, where a journal is left
# after the recovery every later run makes first, and the new bytes once
# the run has returned (tests/crash/states.py). Then each sync the promise
# rests on is dropped from the log, and the checker must find the broken
# promise. make test: a header-only change (one sector) and a hashed id
# in the default mode, the hashed id with --replace; t0647 (slow) runs the
# rest, with every state of the dropped-sync runs too.
. "$(dirname "$0")/lib.sh"
. "$TOP/tests/crash-lib.sh"
require_tool
require_fixtures existing plain

crash_build
crash_case "existing, default" "$FIXTURES/existing" default 4096 64
crash_case "plain, default" "$FIXTURES/plain" default 4096 64
crash_case "plain, --replace" "$FIXTURES/plain" --replace 4096 64

# One such state laid out by hand from the recorded run: the new bytes
# written, the journal (as the run wrote it) still beside the file. The
# readers refuse it; the next inject undoes the edit and does it again.
t_begin "a state with the journal left: verify and show refuse it, inject undoes and redoes the edit"
w="$SCRATCH/plain, default"
jino=$(awk -F'\t' '$1 == "CREATE" && $3 ~ /ebid-journal$/ { print $2; exit }' "$w/log")
d=$SCRATCH/left && rm -rf "$d" && mkdir -p "$d"
cp "$w/new" "$d/f"
awk -F'\t' -v j="$jino" '$1 == "WRITE" && $2 == j { print $4; exit }' "$w/log" |
	xxd -r -p >"$d/.f.ebid-journal"
# The journal names the inode it was made for: this copy's.
python3 - "$d/f" "$d/.f.ebid-journal" <<'PY'
import os, sys
st = os.stat(sys.argv[1])
j = bytearray(open(sys.argv[2], "rb").read())
j[8:16] = st.st_dev.to_bytes(8, "little")
j[16:24] = st.st_ino.to_bytes(8, "little")
h = 0xcbf29ce484222325
for c in j[:-16]:
    h = ((h ^ c) * 0x100000001b3) & 0xffffffffffffffff
j[-8:] = h.to_bytes(8, "little")
open(sys.argv[2], "wb").write(j)
PY
expect_exit 2 "$EBID" verify --perf=off "$d/f"
expect_match "verify" "$out" "^ERROR  $(re_quote "$d/f")  an interrupted in-place edit left its journal"
expect_exit 2 "$EBID" show "$d/f"
expect_match "show" "$err" "interrupted in-place edit"
expect_exit 0 "$EBID" inject -v "$d/f"
# Restored first: the run found the old file to inject, not the new one
# (which it would leave unchanged).
expect_match "inject -v" "$err" ": injected \\("
expect_same_file "after inject" "$d/f" "$w/new"
expect_eq "files left" "$(ls -A "$d")" f
t_end
t_done
