#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# Hostile file names (leading '-', '--help', spaces, a newline, a tab,
# non-UTF-8 bytes, shell syntax) are just names: inject, show and verify
# handle exactly that file and run nothing else. A hostile `perf` earlier
# in PATH, a ~/.perfconfig (read or not: its access time tells) and
# PERF_CONFIG (a FIFO that would block perf) or PERF_EXEC_PATH in the
# environment have no effect on what verify runs: /usr/bin/perf, with its
# own environment.
. "$(dirname "$0")/lib.sh"
require_tool
require_fixtures nobuildid

names=(
	'-leading-dash'
	'--help'
	'-f'
	'with space'
	$'new\nline'
	$'tab\there'
	$'non-utf8-\xff\xfe'
	'$(touch PWNED1)'
	'; touch PWNED2'
	"quote'd\"name"
	'*glob?[x]'
)
d=$SCRATCH/names
mkdir -p "$d"
cd "$d" || exit 1
for name in "${names[@]}"; do
	shown=$(printf '%q' "$name")
	t_begin "inject, show, verify on the file named $shown"
	rm -rf "$d"/* "$d"/.[!.]* 2>/dev/null
	cp "$FIXTURES/nobuildid" "./$name"
	run "$EBID" inject -- "$name"
	if [ "$rc" = 0 ]; then
		want=$(python3 "$EBID_PY" id "./$name" 2>&1)
		expect_eq "stdout" "$out" "$want  $name"
		run "$EBID" show -- "$name"
		expect_eq "show exit" "$rc" 0
		expect_eq "show's first line" "$(head -n "$(printf '%s\n' "$name" | wc -l)" "$SCRATCH/.out")" "$name"
		run "$EBID" verify -- "$name"
		expect_eq "verify" "$out" "PASS  $name  $want"
		expect_eq "verify exit" "$rc" 0
	else
		t_fail "inject exit $rc: $err"
	fi
	left=$(find "$d" -mindepth 1 -maxdepth 1 -printf '%f\n' | grep -vxF -- "$name" | tr '\n' ' ')
	expect_eq "other files in the directory" "$left" ""
	t_end
done

t_begin "./-leading-dash and a name made only of dashes work without --"
rm -rf "$d"/* "$d"/.[!.]* 2>/dev/null
cp "$FIXTURES/nobuildid" ./-x && cp "$FIXTURES/nobuildid" ./---
run "$EBID" inject ./-x ./---
expect_eq "exit" "$rc" 0
expect_eq "ebid.py ./-x" "$(py_id ./-x)" "$(printf '%s\n' "$out" | sed -n 1p | cut -d' ' -f1)"
expect_eq "ebid.py ./---" "$(py_id ./---)" "$(printf '%s\n' "$out" | sed -n 2p | cut -d' ' -f1)"
t_end
cd "$SCRATCH" || exit 1

# --- what verify runs ------------------------------------------------------
f=$SCRATCH/prog
cp "$FIXTURES/nobuildid" "$f"
"$EBID" inject -q "$f"
want=$(py_id "$f")
evil=$SCRATCH/evil
mkdir -p "$evil/bin" "$evil/home" "$evil/exec"
cat >"$evil/bin/perf" <<EOS
#!/bin/sh
touch "$evil/PERF-FROM-PATH-RAN"
echo 0000000000000000000000000000000000000bad
EOS
cp "$evil/bin/perf" "$evil/exec/perf"
chmod +x "$evil/bin/perf" "$evil/exec/perf"
mkfifo "$evil/fifo-config"
# perf reads ~/.perfconfig when it is a regular file (it ignores a FIFO
# there); whether it was read shows in its access time, set far back.
printf '[buildid]\n\tdir = %s\n' "$evil/cache" >"$evil/home/.perfconfig"
atime() { stat -c %X "$1"; }

t_begin "the ~/.perfconfig check can see a read (perf itself reads it)"
mkdir -p "$SCRATCH/probe-home" && cp "$evil/home/.perfconfig" "$SCRATCH/probe-home/"
touch -a -d '2000-01-01 00:00:00' "$SCRATCH/probe-home/.perfconfig"
p0=$(atime "$SCRATCH/probe-home/.perfconfig")
expect_exit 0 env HOME="$SCRATCH/probe-home" perf buildid-list -i "$f"
expect_ne "atime of ~/.perfconfig after perf read it (mounted noatime?)" \
	"$(atime "$SCRATCH/probe-home/.perfconfig")" "$p0"
t_end

t_begin "a hostile perf first in PATH and a ~/.perfconfig do not change what verify runs"
touch -a -d '2000-01-01 00:00:00' "$evil/home/.perfconfig"
a0=$(atime "$evil/home/.perfconfig")
run env PATH="$evil/bin:$PATH" HOME="$evil/home" timeout 60 "$EBID" verify --perf=require "$f"
expect_eq "verify" "$out" "PASS  $f  $want"
expect_eq "exit" "$rc" 0
[ -e "$evil/PERF-FROM-PATH-RAN" ] && t_fail "the perf in PATH ran"
expect_eq "atime of ~/.perfconfig (was it read?)" "$(atime "$evil/home/.perfconfig")" "$a0"
t_end

t_begin "PERF_CONFIG, PERF_EXEC_PATH and PERF_BUILDID_DIR in the environment do not reach perf"
start=$(date +%s)
run env PERF_CONFIG="$evil/fifo-config" PERF_EXEC_PATH="$evil/exec" \
	PERF_BUILDID_DIR="$evil/cache" PERF_PAGER="$evil/bin/perf" \
	timeout 60 "$EBID" verify --perf=require "$f"
took=$(($(date +%s) - start))
expect_eq "verify's exit status" "$rc" 0
expect_eq "verify" "$out" "PASS  $f  $want"
[ -e "$evil/PERF-FROM-PATH-RAN" ] && t_fail "a hostile perf ran"
[ -e "$evil/cache" ] && t_fail "perf used PERF_BUILDID_DIR from the environment"
[ "$took" -lt 15 ] || t_fail "verify took ${took}s: perf read the FIFO PERF_CONFIG"
t_end

t_begin "verify of a file named like an option reaches perf as a file name"
cp "$f" "$SCRATCH/-i"
run "$EBID" verify --perf=require -- "$SCRATCH/-i"
expect_eq "verify" "$out" "PASS  $SCRATCH/-i  $want"
cd "$SCRATCH" && run "$EBID" verify --perf=require -- -i
expect_eq "verify, relative" "$out" "PASS  -i  $want"
t_end

t_done
