#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# tier: slow (rounds of racing runs, alone on the machine)
# Issue 11, concurrent runs: 8 to 10 elf-buildid processes released at the
# same moment (a fifo barrier) on one file, 24 rounds: inject only (replace,
# --in-place, both), a mix of inject, reserve, verify, show and link, one
# backfill among readers and reserves, reserve only. Every run exits as it
# would have alone, the writers agree on one id, the file ends byte for byte
# as one undisturbed run leaves it (and passes verify --content-hash and
# tests/ebid.py), and nothing but the file is left in its directory. Then
# the per-file lock itself: --lock-timeout against a lock held from the
# shell with flock(1), exclusive and shared.
#
# Which mixes are in a round: only those whose outcome is exit 0 for every
# writer in every order. `backfill` of a file that is already filled exits
# 2, so a round has at most one backfill and no inject. `reserve` keeps a
# note that is there, so it prints zeros when it ran before the fill and the
# final id after it; both are right, nothing else is.
. "$(dirname "$0")/lib.sh"
require_tool
require_fixtures nobuildid reserved

sha() { sha256sum <"$1" | cut -d' ' -f1; }
now_ms() { date +%s%3N; }

# The results of undisturbed runs, to compare every round with.
REF=$SCRATCH/ref
mkdir -p "$REF"
cp "$FIXTURES/nobuildid" "$REF/inject-nobuildid"
cp "$FIXTURES/reserved" "$REF/inject-reserved"
cp "$FIXTURES/nobuildid" "$REF/reserve-nobuildid"
"$EBID" inject -q "$REF/inject-nobuildid" &&
	"$EBID" inject -q "$REF/inject-reserved" &&
	"$EBID" reserve -q "$REF/reserve-nobuildid" || {
	echo "not ok 1 - cannot make the reference files (plain inject/reserve failed)"
	exit 1
}
ID_NOBUILDID=$(readelf_ids "$REF/inject-nobuildid")
ID_RESERVED=$(readelf_ids "$REF/inject-reserved")

# round NAME FIXTURE REFERENCE FINAL_ID CMD...: one round. Each CMD is a
# word like "inject" or "inject--in-place" (see spawn); all of them are
# started at once on a fresh copy of FIXTURE at $SCRATCH/NAME/w/prog, and
# the round's checks are added to the current block.
round_no=0
round() {
	local name=$1 fixture=$2 reference=$3 final=$4
	shift 4
	local r=$SCRATCH/$name f i n=$# fifo pids=() kinds=() t0
	round_no=$((round_no + 1))
	rm -rf "$r"
	mkdir -p "$r/w" "$r/res" "$r/out"
	f=$r/w/prog
	case $fixture in
	/*) cp "$fixture" "$f" ;;
	*) cp "$FIXTURES/$fixture" "$f" ;;
	esac
	fifo=$r/res/go
	mkfifo "$fifo"
	# The parent holds the fifo open read-write; every child opens it to
	# read, says it is ready and blocks in read until the last writer (the
	# parent) closes it: then all of them see EOF at once.
	exec 9<>"$fifo"
	i=0
	for kind in "$@"; do
		i=$((i + 1))
		kinds[i]=$kind
		mkdir -p "$r/res/link$i"
		(
			exec 9>&-
			exec 3<"$fifo"
			: >"$r/res/ready.$i"
			read -r -u 3 _
			exec 3<&-
			spawn "$kind" "$f" "$r/res/link$i" >"$r/res/out.$i" 2>"$r/res/err.$i" </dev/null
		) &
		pids[i]=$!
	done
	t0=$SECONDS
	while [ "$(find "$r/res" -name 'ready.*' | wc -l)" -lt "$n" ]; do
		if [ $((SECONDS - t0)) -gt 20 ]; then
			t_fail "$name: the processes did not reach the barrier in 20 s"
			break
		fi
		sleep 0.01
	done
	exec 9>&-
	for ((i = 1; i <= n; i++)); do
		wait "${pids[i]}"
		echo $? >"$r/res/rc.$i"
	done
	check_round "$name" "$f" "$reference" "$final" "${kinds[@]}"
}

# spawn KIND FILE LINKDIR: exec the command KIND stands for.
spawn() {
	local kind=$1 f=$2 l=$3
	case $kind in
	inject) exec "$EBID" inject "$f" ;;
	inject--in-place) exec "$EBID" inject --in-place "$f" ;;
	inject-tree) exec "$EBID" inject --hash=sha1-tree "$f" ;;
	inject-tree--in-place) exec "$EBID" inject --hash=sha1-tree --in-place "$f" ;;
	reserve) exec "$EBID" reserve "$f" ;;
	reserve--in-place) exec "$EBID" reserve --in-place "$f" ;;
	backfill) exec "$EBID" backfill "$f" ;;
	backfill--in-place) exec "$EBID" backfill --in-place "$f" ;;
	verify) exec "$EBID" verify --content-hash --perf=off "$f" ;;
	show) exec "$EBID" show "$f" ;;
	link) exec "$EBID" link --debug-dir="$l" "$f" ;;
	# -o into one OUT shared by every such process of the round.
	inject-o) exec "$EBID" inject -o "${f%/w/prog}/out/prog" "$f" ;;
	inject-r) exec "$EBID" inject -r -j 2 "${f%/prog}" ;;
	verify-r) exec "$EBID" verify -r --content-hash --perf=off "${f%/prog}" ;;
	*) echo "spawn: unknown kind $kind" >&2 && exit 99 ;;
	esac
}

check_round() { # NAME FILE REFERENCE FINAL_ID KINDS...
	local name=$1 f=$2 reference=$3 final=$4
	shift 4
	local r=$SCRATCH/$name i=0 kind rc o e what id_re
	id_re=$(re_quote "$f")
	for kind in "$@"; do
		i=$((i + 1))
		rc=$(cat "$r/res/rc.$i")
		o=$(cat "$r/res/out.$i")
		e=$(cat "$r/res/err.$i")
		what="$name: process $i ($kind): exit $rc"
		[ "$rc" -ge 128 ] && t_fail "$what: killed by a signal; stderr: $e" && continue
		case $kind in
		inject-o)
			# The input as it was when this run read it, stamped: the
			# same bytes whichever run wrote OUT last.
			[ "$rc" = 0 ] || { t_fail "$what, want 0; stderr: $e"; continue; }
			expect_eq "$what: output" "$o" "$final  $r/out/prog"
			expect_eq "$what: stderr" "$e" ""
			;;
		inject-r)
			[ "$rc" = 0 ] || { t_fail "$what, want 0; stderr: $e"; continue; }
			expect_eq "$what: output" "$o" "$final  $f"
			;;
		verify-r)
			case $rc in
			0) expect_eq "$what: output" "$o" "PASS  $f  $final" ;;
			1) expect_match "$what: output (a FAIL must be the unfilled note)" "$o" \
				"^FAIL  $id_re  .*nonzero: " ;;
			*) t_fail "$what, want 0 (after the fill) or 1 (before it); stdout: $o; stderr: $e" ;;
			esac
			;;
		inject* | backfill*)
			[ "$rc" = 0 ] || { t_fail "$what, want 0; stderr: $e"; continue; }
			expect_eq "$what: output" "$o" "$final  $f"
			expect_eq "$what: stderr" "$e" ""
			;;
		reserve*)
			[ "$rc" = 0 ] || { t_fail "$what, want 0; stderr: $e"; continue; }
			# Zeros when it ran before the fill, the final id after it.
			if [ "$o" != "$ZERO_ID  $f" ] && [ "$o" != "$final  $f" ]; then
				t_fail "$what: output '$o', want '$ZERO_ID  ...' (ran before the fill) or '$final  ...' (after it)"
			fi
			expect_eq "$what: stderr" "$e" ""
			;;
		verify)
			# 0 with the final id (ran after the fill), or 1 having seen
			# the reserved, all-zero note (before it). Never 2, and never
			# a non-zero id that is not the hash (a torn read).
			case $rc in
			0) expect_eq "$what: output" "$o" "PASS  $f  $final" ;;
			1) expect_match "$what: output (a FAIL must be the unfilled note)" "$o" \
				"^FAIL  $id_re  .*nonzero: " ;;
			*) t_fail "$what, want 0 (after the fill) or 1 (before it); stdout: $o; stderr: $e" ;;
			esac
			;;
		show)
			expect_eq "$what: exit" "$rc" 0
			if ! printf '%s\n' "$o" | grep_q -E "^  gnu-build-id: ($ZERO_ID|$final)\$"; then
				t_fail "$what: gnu-build-id is neither zeros (before the fill) nor $final: $o"
			fi
			;;
		link)
			# 0 with the final file in place (after the fill), or 2
			# because the note was still all zero (before it).
			local l=$r/res/link$i placed
			placed=$l/.build-id/${final:0:2}/${final:2}.debug
			case $rc in
			0)
				expect_eq "$what: output" "$o" "$final  $placed"
				expect_same_file "$what: the placed copy is the final file" "$placed" "$reference"
				;;
			2)
				expect_match "$what: a refusal must be the unfilled note" "$e" \
					"^elf-buildid: '$id_re': link: no usable GNU build-id"
				expect_eq "$what: files placed" "$(find "$l" -type f | wc -l)" 0
				;;
			*) t_fail "$what, want 0 (after the fill) or 2 (before it); stderr: $e" ;;
			esac
			;;
		esac
	done
	expect_same_file "$name: the file is what one undisturbed run leaves" "$f" "$reference"
	expect_eq "$name: files in its directory" "$(ls -A "$r/w" | tr '\n' ' ')" "prog "
	if [ -e "$r/out/prog" ]; then
		expect_same_file "$name: -o's OUT is the stamped file" "$r/out/prog" "$reference"
	fi
	expect_match "$name: files in -o's directory" "$(ls -A "$r/out" | tr '\n' ' ')" '^(prog )?$'
	expect_eq "$name: link count" "$(stat -c %h "$f")" 1
	if [ "$final" != "$ZERO_ID" ]; then
		run "$EBID" verify --content-hash --hash="$ROUND_HASH" --perf=off "$f"
		expect_eq "$name: verify --content-hash afterwards" "$rc:$out" "0:PASS  $f  $final"
		expect_eq "$name: ebid.py id" "$(py_id "$f" --hash="$ROUND_HASH")" "$final"
	fi
}

ROUND_HASH=sha1 # the hash the rounds' writers use
rounds_total=0
n_procs_min=99
block() { # DESC ROUNDS FIXTURE REFERENCE FINAL KINDS...
	local desc=$1 k=$2 fixture=$3 reference=$4 final=$5 j
	shift 5
	t_begin "$desc"
	for ((j = 1; j <= k; j++)); do
		round "r$((round_no + 1))" "$fixture" "$reference" "$final" "$@"
	done
	rounds_total=$((rounds_total + k))
	[ $# -lt "$n_procs_min" ] && n_procs_min=$#
	# Keep the TAP readable: the first 20 reasons and a count.
	local nwhy=${#t_why[@]}
	if [ "$nwhy" -gt 20 ]; then
		t_why=("${t_why[@]:0:20}" "(and $((nwhy - 20)) more)")
	fi
	t_end
}

I8=(inject inject inject inject inject inject inject inject)
P8=(inject--in-place inject--in-place inject--in-place inject--in-place
	inject--in-place inject--in-place inject--in-place inject--in-place)
block "8 x inject at once (replace), 5 rounds: all exit 0 with one id, file as one run leaves it, nothing beside it" \
	5 nobuildid "$REF/inject-nobuildid" "$ID_NOBUILDID" "${I8[@]}"
block "8 x inject --in-place at once, 5 rounds: all exit 0 with one id, no journal left" \
	5 nobuildid "$REF/inject-nobuildid" "$ID_NOBUILDID" "${P8[@]}"
block "4 x inject + 4 x inject --in-place at once, 4 rounds" \
	4 nobuildid "$REF/inject-nobuildid" "$ID_NOBUILDID" \
	inject inject--in-place inject inject--in-place inject inject--in-place inject inject--in-place
block "mixed on a reserved note, 4 rounds: inject, inject --in-place, reserve, reserve --in-place, verify, show, link" \
	4 reserved "$REF/inject-reserved" "$ID_RESERVED" \
	inject inject--in-place reserve verify inject link reserve--in-place inject--in-place show verify
block "mixed with -o into one shared OUT, -r and verify -r, 3 rounds" \
	3 reserved "$REF/inject-reserved" "$ID_RESERVED" \
	inject inject-o inject-r verify-r inject--in-place inject-o inject-r show verify
# The threaded hash (two threads over 4 MiB chunks) on a file of four
# chunks: a Go binary with random bytes after it.
BIG=$SCRATCH/big-input
cp "$FIXTURES/nobuildid" "$BIG" && head -c 13000000 /dev/urandom >>"$BIG"
cp "$BIG" "$REF/inject-big-tree"
"$EBID" inject -q --hash=sha1-tree "$REF/inject-big-tree" || {
	echo "not ok $((t_num + 1)) - cannot make the sha1-tree reference (a plain inject failed)"
	exit 1
}
ID_BIG_TREE=$(readelf_ids "$REF/inject-big-tree")
ROUND_HASH=sha1-tree
block "--hash=sha1-tree on a 15 MB file, 8 at once (4 --in-place), 2 rounds" \
	2 "$BIG" "$REF/inject-big-tree" "$ID_BIG_TREE" \
	inject-tree inject-tree--in-place inject-tree inject-tree--in-place \
	inject-tree inject-tree--in-place inject-tree inject-tree--in-place
ROUND_HASH=sha1
block "one backfill among reserves and readers, 2 rounds" \
	2 reserved "$REF/inject-reserved" "$ID_RESERVED" \
	reserve verify backfill show reserve--in-place link verify reserve
block "one backfill --in-place among reserves and readers, 2 rounds" \
	2 reserved "$REF/inject-reserved" "$ID_RESERVED" \
	reserve verify backfill--in-place show reserve--in-place link verify reserve
block "8 x reserve at once (4 --in-place), 2 rounds: all print zeros, file as one reserve leaves it" \
	2 nobuildid "$REF/reserve-nobuildid" "$ZERO_ID" \
	reserve reserve--in-place reserve reserve--in-place reserve reserve--in-place reserve reserve--in-place

t_begin "the concurrency rounds: at least 20 rounds of at least 8 processes"
expect_match "rounds" "$rounds_total" '^([2-9][0-9]|[1-9][0-9]{2,})$'
expect_match "fewest processes in a round" "$n_procs_min" '^([89]|[1-9][0-9]+)$'
t_end

# ---- the lock itself --------------------------------------------------

# hold MODE FILE SECONDS: flock(1) holds flock(MODE) on FILE in the
# background while its child sleeps SECONDS (-o: the child does not share
# the lock, so the lock is flock(1)'s own and /proc/locks names its pid).
# Sets $holder (flock(1)'s pid) and $sleeper; returns once the lock is held.
holder=
sleeper=
hold() {
	local mode=$1 f=$2 s=$3 k
	rm -f "$SCRATCH/held"
	flock -o "-$mode" "$f" sh -c 'echo $$ >"$0.tmp" && mv "$0.tmp" "$0" && exec sleep "$1"' \
		"$SCRATCH/held" "$s" &
	holder=$!
	sleeper=
	for k in $(seq 200); do
		if [ -s "$SCRATCH/held" ]; then
			sleeper=$(cat "$SCRATCH/held")
			return 0
		fi
		sleep 0.02
	done
	t_fail "the flock(1) holder did not get its lock"
}
release() {
	[ -n "$sleeper" ] && kill "$sleeper" 2>/dev/null
	wait "$holder" 2>/dev/null
	holder=""
	sleeper=""
}

# lock_error FILE: stderr of the last run is the one lock-timeout line,
# naming FILE, and the holder's pid when /proc/locks shows it.
lock_error() {
	local f=$1 ino
	expect_one_error_line "$f"
	expect_match "the error says it is the lock" "$err" "[Ll]ock"
	ino=$(stat -c %i "$f")
	if grep -Eq "^[0-9]+: FLOCK +ADVISORY +[A-Z]+ +$holder +[0-9a-f]+:[0-9a-f]+:$ino " /proc/locks 2>/dev/null; then
		# Known to /proc/locks, so the message must give that pid.
		expect_match "the error names the holder's pid ($holder, in /proc/locks)" "$err" \
			"(^|[^0-9])$holder([^0-9]|\$)"
	else
		echo "# /proc/locks does not show flock(1)'s lock: the pid in the message is not checked"
	fi
}

L=$SCRATCH/lock
mkdir -p "$L"

t_begin "exclusive lock held from the shell: inject --lock-timeout=1 gives up after ~1 s, exit 2, file untouched"
f=$L/prog
cp "$FIXTURES/nobuildid" "$f"
s0=$(sha "$f") st0=$(file_state "$f")
hold x "$f" 10
t0=$(now_ms)
run "$EBID" inject --lock-timeout=1 "$f"
dt=$(($(now_ms) - t0))
expect_eq "exit" "$rc" 2
expect_eq "stdout" "$out" ""
lock_error "$f"
[ "$dt" -ge 900 ] || t_fail "gave up after $dt ms, before the 1 s timeout"
[ "$dt" -lt 5000 ] || t_fail "took $dt ms for a 1 s timeout"
expect_eq "sha256" "$(sha "$f")" "$s0"
expect_eq "inode, mtime, size" "$(file_state "$f")" "$st0"
expect_eq "files in its directory" "$(ls -A "$L" | tr '\n' ' ')" "prog "
t_end

t_begin "exclusive lock held: --lock-timeout=0 does not wait; --in-place and verify (a reader) also give up"
t0=$(now_ms)
run "$EBID" inject --lock-timeout=0 "$f"
dt=$(($(now_ms) - t0))
expect_eq "inject --lock-timeout=0: exit" "$rc" 2
lock_error "$f"
[ "$dt" -lt 800 ] || t_fail "--lock-timeout=0 took $dt ms"
run "$EBID" inject --in-place --lock-timeout=1 "$f"
expect_eq "inject --in-place --lock-timeout=1: exit" "$rc" 2
lock_error "$f"
run "$EBID" verify --perf=off --lock-timeout=1 "$f"
expect_eq "verify --lock-timeout=1: exit" "$rc" 2
lock_error "$f"
expect_eq "sha256" "$(sha "$f")" "$s0"
expect_eq "inode, mtime, size" "$(file_state "$f")" "$st0"
expect_eq "files in its directory" "$(ls -A "$L" | tr '\n' ' ')" "prog "
release
t_end

for mode in replace in-place; do
	t_begin "inject ($mode) with a bigger --lock-timeout waits for the holder, then succeeds"
	opt=()
	[ "$mode" = in-place ] && opt=(--in-place)
	cp "$FIXTURES/nobuildid" "$f"
	s0=$(sha "$f")
	hold x "$f" 2
	t0=$(now_ms)
	run "$EBID" inject ${opt[@]+"${opt[@]}"} --lock-timeout=30 "$f"
	dt=$(($(now_ms) - t0))
	expect_eq "exit" "$rc" 0
	expect_eq "output" "$out" "$ID_NOBUILDID  $f"
	expect_eq "stderr" "$err" ""
	# The holder had 2 s left when it started: it must have waited.
	[ "$dt" -ge 1200 ] || t_fail "finished after $dt ms, while the lock was still held"
	release
	expect_same_file "the file is what one undisturbed run leaves" "$f" "$REF/inject-nobuildid"
	expect_eq "ebid.py id" "$(py_id "$f")" "$ID_NOBUILDID"
	expect_eq "files in its directory" "$(ls -A "$L" | tr '\n' ' ')" "prog "
	t_end
done

t_begin "a shared lock from the shell: verify and show (readers) go ahead, inject (a writer) times out"
cp "$FIXTURES/reserved" "$f"
"$EBID" inject -q "$f"
hold s "$f" 10
t0=$(now_ms)
run "$EBID" verify --content-hash --perf=off --lock-timeout=5 "$f"
dt=$(($(now_ms) - t0))
expect_eq "verify: exit and output" "$rc:$out" "0:PASS  $f  $ID_RESERVED"
[ "$dt" -lt 2000 ] || t_fail "verify took $dt ms under a shared lock (it waited)"
run "$EBID" show --lock-timeout=5 "$f"
expect_eq "show: exit" "$rc" 0
expect_match "show: id" "$out" "gnu-build-id: $ID_RESERVED"
run "$EBID" inject --lock-timeout=1 -f "$f"
expect_eq "inject -f under a shared lock: exit" "$rc" 2
lock_error "$f"
release
expect_same_file "the file is unchanged" "$f" "$REF/inject-reserved"
expect_eq "files in its directory" "$(ls -A "$L" | tr '\n' ' ')" "prog "
t_end

t_done
