#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# Runs elf-buildid's tests: builds the Go fixtures, then runs the C unit
# binaries in $EBID_BUILD/unit/ (if any) and every tests/t[0-9]*.sh of the
# tier asked for (below). All of them print TAP; this counts the results
# and ends with the line
#   N passed, N failed[, N skipped]
# and exits non-zero when anything failed. A skipped test is never counted
# as passed; a script that dies, times out or prints no result is a failure.
#
# Programs run in parallel, N at a time; each one's output goes to its own
# file (build/tests/NAME.tap and .tap.stderr) and is printed whole, in name
# order (units first), as soon as it and those before it are done. The
# scripts in ALONE below run with nothing else running. The longest
# programs of the last run (build/tests/.durations) are started first.
#
# Two tiers, each script's declared once in its own header: a line
#   # tier: slow
# puts it in the slow tier (make check-slow: the matrix builds and the
# checks over every shape, valgrind, the long fuzzing, the kill campaign,
# the release artifacts); every other script, and the unit binaries, are
# the fast tier (make test). A line
#   # after: t0300-matrix-build-a t0301-matrix-build-b
# makes a script start only when those scripts of the same run have ended
# (a script named there that is not in the run is not waited for).
#
# Usage: tests/run.sh [-q] [-j N] [--tier=fast|slow|all]
#                     [tests/tNNNN-what.sh | UNIT-BINARY ...]
#   -q    print only failures, skips and the summary
#   -j N  run N programs at once (default: $EBID_TEST_JOBS, else the
#         number of CPUs); -j 1 runs them one after another
#   --tier=T  the programs of tier T: with no program named, the unit
#         binaries and scripts of that tier (default fast); with programs
#         named, T must be theirs (default all: what is named runs)
# Environment: EBID_BUILD (default build), EBID (the binary under test),
#   EBID_TEST_TIMEOUT (seconds per script, default 600: a script may first
#   wait for another's build of a shared fixture), EBID_TEST_JOBS,
#   EBID_NO_SKIP=1 (a skipped test fails the run; .ci/run sets it)
set -u
set -o pipefail

export LC_ALL=C

top=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
cd "$top" || exit 1
export EBID_BUILD=${EBID_BUILD:-build}
case "$EBID_BUILD" in
/*) build=$EBID_BUILD ;;
*) build=$top/$EBID_BUILD ;;
esac
timeout_s=${EBID_TEST_TIMEOUT:-600}

# Scripts that must not share the machine: their checks bound how long a
# lock wait or a race takes (t0700: --lock-timeout to the 100 ms; t0710:
# 200 racing runs within EBID_RACE_SECONDS).
ALONE=(t0700-concurrency t0710-hostile-tree)

quiet=0
tier=
jobs=${EBID_TEST_JOBS:-$(nproc 2>/dev/null || echo 1)}
while [ $# -gt 0 ]; do
	case "$1" in
	-q) quiet=1 ;;
	--tier=*) tier=${1#--tier=} ;;
	-j) jobs=${2:-}; shift ;;
	-j*) jobs=${1#-j} ;;
	*) break ;;
	esac
	shift
done
case "$jobs" in
'' | *[!0-9]* | 0)
	echo "tests/run.sh: -j wants a number of jobs, 1 or more (got '$jobs')" >&2
	exit 64
	;;
esac

case "$tier" in
'' | fast | slow | all) ;;
*)
	echo "tests/run.sh: --tier wants fast, slow or all (got '$tier')" >&2
	exit 64
	;;
esac

# tier_of FILE: the tier of a script (its header's first "# tier:" line,
# else fast) or of a unit binary (fast). A word other than fast or slow
# stops the run: a script of no tier would silently never run.
tier_of() {
	local t=
	case "$1" in
	*.sh) t=$(sed -n '1,40{/^# tier: /{s/^# tier: \([^ ]*\).*/\1/p;q}}' "$1") ;;
	esac
	case "${t:-fast}" in
	fast | slow) echo "${t:-fast}" ;;
	*)
		echo "tests/run.sh: $1: unknown tier '$t' (fast or slow)" >&2
		exit 64
		;;
	esac
}

# after_of FILE: the scripts FILE's "# after:" line names.
after_of() {
	case "$1" in
	*.sh) sed -n '1,40{s/^# after: //p}' "$1" ;;
	esac
}

passed=0
failed=0
skipped=0
failures=()
skips=()
slowest=()
logdir=$top/build/tests
mkdir -p "$logdir"

# The TAP directives, matched in lower case by bash itself: a grep per
# line cost a fork for each of the suite's thousands of results.
todo_or_skip='#[[:space:]]*(todo|skip)'
skip_re='#[[:space:]]*skip'

# count NAME < TAP: tally one program's TAP output, echoing it.
count() {
	local name=$1 line last_bad=0
	while IFS= read -r line; do
		case "$line" in
		"not ok"*)
			last_bad=1
			if [[ ${line,,} =~ $todo_or_skip ]]; then
				skipped=$((skipped + 1))
				skips+=("$name: $line")
				[ "$quiet" = 1 ] && echo "$name: $line"
			else
				failed=$((failed + 1))
				failures+=("$name: $line")
				[ "$quiet" = 1 ] && echo "$name: $line"
			fi
			;;
		"ok"*)
			last_bad=0
			if [[ ${line,,} =~ $skip_re ]]; then
				skipped=$((skipped + 1))
				skips+=("$name: $line")
				[ "$quiet" = 1 ] && echo "$name: $line"
			else
				passed=$((passed + 1))
			fi
			;;
		"#"*)
			[ "$quiet" = 1 ] && [ "$last_bad" = 1 ] && echo "$name: $line"
			;;
		esac
		[ "$quiet" = 0 ] && printf '%s\n' "$line"
	done
	return 0
}

# The programs, in the order their results are printed.
names=()    # unit/NAME or the script's name
progs=()    # the file to run
if [ $# -gt 0 ]; then
	# Shell tests by their .sh name; anything else is a TAP program.
	# Named programs: all of them run; with --tier, each must be of it.
	scripts=()
	units=()
	for f in "$@"; do
		t=fast
		if [ -f "$f" ]; then
			t=$(tier_of "$f") || exit 64
		fi
		if [ -n "$tier" ] && [ "$tier" != all ] && [ "$t" != "$tier" ]; then
			echo "tests/run.sh: $f is not in the $tier tier (its tier: $t)" >&2
			exit 64
		fi
		case "$f" in
		*.sh) scripts+=("$f") ;;
		*) units+=("$f") ;;
		esac
	done
else
	tier=${tier:-fast}
	scripts=()
	for f in "$top"/tests/t[0-9]*.sh; do
		[ -f "$f" ] || continue
		t=$(tier_of "$f") || exit 64
		[ "$tier" = all ] || [ "$t" = "$tier" ] && scripts+=("$f")
	done
	units=()
	if [ "$tier" != slow ]; then
		for f in "$build"/unit/*; do
			[ -f "$f" ] && [ -x "$f" ] && units+=("$f")
		done
	fi
fi
for u in ${units[@]+"${units[@]}"}; do
	names+=("unit/$(basename "$u")")
	progs+=("$u")
done
for s in ${scripts[@]+"${scripts[@]}"}; do
	names+=("$(basename "$s" .sh)")
	progs+=("$s")
done
total=${#names[@]}

# The Go fixtures, before any program starts: the scripts use the default
# set, and the unit test_plan also plans the cross-built existing-386 and
# existing-s390x (32-bit, big-endian), which it would otherwise find
# missing whenever it starts before t0010 has built them.
fixture_sets=()
# Which Go releases the run uses: the machine's `go` (the current fixture
# set, tests of what `go build` gives today) and Debian's Go 1.19 by path
# (the other fixtures, tests of a Go binary with no id).
go119=${EBID_GO119:-/usr/lib/go-1.19/bin/go}
gv() { "$1" version 2>/dev/null | awk '{ print $3 }' | grep . || echo missing; }
echo "# go: $(gv go) (PATH), $(gv "$go119") ($go119)"
[ ${#scripts[@]} -gt 0 ] || [ ${#units[@]} -gt 0 ] && fixture_sets+=("")
[ ${#units[@]} -gt 0 ] && fixture_sets+=("existing-386 existing-s390x")
for set in ${fixture_sets[@]+"${fixture_sets[@]}"}; do
	# shellcheck disable=SC2086 # the set is words
	if ! "$top/scripts/build-fixtures.sh" $set; then
		failed=$((failed + 1))
		failures+=("scripts/build-fixtures.sh $set failed")
		echo "not ok - scripts/build-fixtures.sh $set failed"
	fi
done

log_of() { local n=${names[$1]}; echo "$logdir/${n//\//-}.tap"; }

is_alone() {
	local a
	for a in "${ALONE[@]}"; do [ "$a" = "${names[$1]}" ] && return 0; done
	return 1
}

# Start order: alone scripts first (nothing else runs then), then the
# others, longest first by the last run's durations (build/tests/
# .durations), else by tests/durations (measured once, committed: a fresh
# clone that ran nothing yet would otherwise start a long script last and
# wait for it alone), else in name order.
declare -A last_secs=()
for f in "$top/tests/durations" "$logdir/.durations"; do
	[ -f "$f" ] || continue
	while read -r secs name; do
		[ -n "${name:-}" ] && last_secs[$name]=$secs
	done <"$f"
done
order=()
for ((i = 0; i < total; i++)); do
	is_alone "$i" && order+=("$i")
done
while read -r _ i; do
	order+=("$i")
done < <(for ((i = 0; i < total; i++)); do
	is_alone "$i" || echo "${last_secs[${names[$i]}]:-0} $i"
done | sort -s -k1,1nr)

# start I: run program I in the background; its exit status and duration
# go to LOG.rc when it ends.
start() {
	local i=$1 log prog=${progs[$1]}
	log=$(log_of "$i")
	rm -f "$log.rc"
	(
		t0=$SECONDS
		if [[ "$prog" == *.sh ]]; then
			timeout -k 10 "$timeout_s" bash "$prog" >"$log" 2>"$log.stderr" </dev/null
		else
			timeout -k 10 "$timeout_s" "$prog" >"$log" 2>"$log.stderr" </dev/null
		fi
		rc=$?
		# The CPU time of the program and its children (user + system).
		# (times in this shell: in a pipe it would see no children.)
		times >"$log.times"
		cpu=$(awk 'END { for (i = 1; i <= 2; i++) {
			split($i, t, /[ms]/); s += t[1] * 60 + t[2] }; printf "%d", s + 0.5 }' "$log.times")
		rm -f "$log.times"
		echo "$rc $((SECONDS - t0)) $cpu" >"$log.rc"
	) &
	pids[i]=$!
}

# Interrupted: stop the programs still running (timeout(1), in its own
# process group, passes the signal on to its program).
stop_all() {
	local i
	for i in ${running[@]+"${running[@]}"}; do
		pkill -TERM -P "${pids[i]}" 2>/dev/null
		kill -TERM "${pids[i]}" 2>/dev/null
	done
}
trap 'stop_all; exit 130' INT
trap 'stop_all; exit 143' TERM

# report I: count program I's finished output, as run_one used to.
report() {
	local i=$1 name=${names[$1]} log rc secs cpu f0=$failed p0=$passed s0=$skipped
	log=$(log_of "$i")
	read -r rc secs cpu <"$log.rc"
	slowest+=("${secs}s $name (CPU ${cpu}s)")
	durations+=("$secs $name")
	[ "$quiet" = 0 ] && echo "# $name"
	count "$name" <"$log"
	if [ $((passed + failed + skipped - p0 - f0 - s0)) -eq 0 ]; then
		failed=$((failed + 1))
		failures+=("$name: printed no test result (exit $rc)")
		echo "not ok - $name printed no test result (exit $rc)"
	elif [ "$rc" != 0 ] && [ "$failed" = "$f0" ]; then
		failed=$((failed + 1))
		failures+=("$name: exited $rc without reporting a failure")
		echo "not ok - $name exited $rc without reporting a failure"
	fi
	if [ "$rc" = 124 ] || [ "$rc" = 137 ]; then
		echo "# $name: timed out after ${timeout_s}s"
	fi
	if [ -s "$log.stderr" ] && { [ "$quiet" = 0 ] || [ "$failed" != "$f0" ]; }; then
		sed "s/^/# $name stderr: /" "$log.stderr" | head -n 20
	fi
}

# waits_for[I]: the indexes of the programs of this run that program I
# starts after (its "# after:" line).
waits_for=()
declare -A index_of=()
for ((i = 0; i < total; i++)); do index_of[${names[$i]}]=$i; done
for ((i = 0; i < total; i++)); do
	w=
	for a in $(after_of "${progs[$i]}"); do
		[ -n "${index_of[$a]:-}" ] && w="$w ${index_of[$a]}"
	done
	waits_for[i]=$w
done

# ready I: every program I waits for has ended.
ready() {
	local j
	for j in ${waits_for[$1]}; do
		[ "${done_[j]:-0}" = 1 ] || return 1
	done
}

# stuck I: program I cannot start: what it waits for waits, directly or
# not, for something that waits for it. It ends as a failure, unrun.
stuck() {
	local i=$1 log
	log=$(log_of "$i")
	echo "not ok 1 - ${names[$i]} never started: the '# after:' lines of this run wait in a cycle" >"$log"
	: >"$log.stderr"
	echo "1 0 0" >"$log.rc"
	done_[i]=1
}

pids=()     # the background shell of program I
done_=()    # 1 when program I has ended
running=()  # the indexes of the programs running
durations=()
pending=(${order[@]+"${order[@]}"}) # the programs not started yet, in start order
shown=0     # the programs reported so far, in name order
alone_running=0
while [ "$shown" -lt "$total" ]; do
	# Start what may start: the first pending programs whose turn has
	# come (an alone script waits for an empty machine, and nothing
	# starts beside it).
	while [ ${#pending[@]} -gt 0 ] && [ "$alone_running" = 0 ] &&
		[ ${#running[@]} -lt "$jobs" ]; do
		pick=-1
		for k in "${!pending[@]}"; do
			i=${pending[$k]}
			ready "$i" || continue
			if is_alone "$i" && [ ${#running[@]} -gt 0 ]; then
				break
			fi
			pick=$k
			break
		done
		[ "$pick" -ge 0 ] || break
		i=${pending[$pick]}
		unset 'pending[pick]'
		pending=(${pending[@]+"${pending[@]}"})
		is_alone "$i" && alone_running=1
		start "$i"
		running+=("$i")
	done
	if [ ${#running[@]} -eq 0 ] && [ ${#pending[@]} -gt 0 ]; then
		for i in "${pending[@]}"; do stuck "$i"; done
		pending=()
	fi
	# Wait for one to end (its .rc is written just before it exits).
	if [ ${#running[@]} -gt 0 ]; then
		wait -n 2>/dev/null
		still=()
		for i in "${running[@]}"; do
			if [ -f "$(log_of "$i").rc" ]; then
				done_[i]=1
				is_alone "$i" && alone_running=0
			else
				still+=("$i")
			fi
		done
		running=(${still[@]+"${still[@]}"})
	fi
	# Print, in name order, everything whose turn has come.
	while [ "$shown" -lt "$total" ] && [ "${done_[shown]:-0}" = 1 ]; do
		report "$shown"
		shown=$((shown + 1))
	done
done
wait

# Durations, to start the longest first next time (a run of some programs
# updates theirs and keeps the others').
if [ ${#durations[@]} -gt 0 ]; then
	for d in "${durations[@]}"; do
		last_secs[${d#* }]=${d%% *}
	done
	for name in "${!last_secs[@]}"; do
		echo "${last_secs[$name]} $name"
	done | sort -k2 >"$logdir/.durations.tmp" &&
		mv "$logdir/.durations.tmp" "$logdir/.durations"
fi

# The slowest programs, to keep the suite quick.
printf '%s\n' ${slowest[@]+"${slowest[@]}"} | sort -rn | head -n 5 |
	sed 's/^/# slowest: /'
if [ ${#failures[@]} -gt 0 ]; then
	echo "# failures:"
	printf '#   %s\n' "${failures[@]}"
fi
summary="$passed passed, $failed failed"
[ "$skipped" -gt 0 ] && summary="$summary, $skipped skipped"
echo "$summary"
# CI (.ci/run) installs every tool the suite needs: there a skip is a
# check that did not run, and fails the run.
if [ "${EBID_NO_SKIP:-0}" = 1 ] && [ "$skipped" -gt 0 ]; then
	echo "# EBID_NO_SKIP=1: every test must run, and these did not:"
	printf '#   %s\n' "${skips[@]}"
	exit 1
fi
[ "$failed" -eq 0 ]
