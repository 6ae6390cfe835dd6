#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# (m) A running executable can be injected (the file is replaced by rename,
# so there is no ETXTBSY): the running process finishes with its normal
# output, and the file on disk has the id.
. "$(dirname "$0")/lib.sh"
require_tool
require_fixtures plain pie

for v in plain pie; do
	t_begin "$v: inject while the program runs; it finishes normally"
	f=$(copy_fixture "$v")
	id=
	# The reference output comes from an untouched copy, run alongside.
	"$FIXTURES/$v" spin 4 >"$SCRATCH/$v.want" 2>&1 &
	ref=$!
	"$f" spin 4 >"$SCRATCH/$v.running.out" 2>&1 &
	pid=$!
	# Wait (at most 2 s) until the process runs the fixture's code.
	for _ in $(seq 200); do
		[ "$(readlink "/proc/$pid/exe" 2>/dev/null)" = "$f" ] && break
		sleep 0.01
	done
	expect_eq "running executable" "$(readlink "/proc/$pid/exe" 2>&1)" "$f"
	inject_ok "$f"
	# 4 rounds take about a second: the program must still be running.
	kill -0 "$pid" 2>/dev/null || t_fail "the program ended before inject did"
	wait "$ref"
	want=$(cat "$SCRATCH/$v.want")
	wait "$pid"
	expect_eq "exit status" "$?" 0
	expect_eq "output" "$(cat "$SCRATCH/$v.running.out")" "$want"
	expect_match "output" "$want" 'spin rounds=4 sum='
	[ -n "$id" ] && expect_eq "ebid.py id" "$(py_id "$f")" "$id"
	expect_eq "the injected file still runs" "$("$f" 2>&1 | head -n 1)" \
		"hello from the elf-buildid fixture"
	t_end
done

t_done
