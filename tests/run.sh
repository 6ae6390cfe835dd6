#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# Runs elf-buildid's tests: the C unit binaries in $EBID_BUILD/unit/ (if
# any), then builds the Go fixtures and runs every tests/t[0-9]*.sh. All of
# them print TAP; this counts the results and ends with the line
#   N passed, N failed[, N skipped]
# and exits non-zero when anything failed. A skipped test is never counted
# as passed; a script that dies, times out or prints no result is a failure.
#
# Usage: tests/run.sh [-q] [tests/tNNNN-what.sh | UNIT-BINARY ...]
#   -q  print only failures, skips and the summary
# Environment: EBID_BUILD (default build), EBID (the binary under test),
#   EBID_TEST_TIMEOUT (seconds per script, default 300)
set -u
set -o pipefail

# grep_q [GREP-OPTIONS] PATTERN: grep -q on standard input, but reading all
# of it first. "producer | grep_q" under pipefail fails at random when grep
# exits at its first match and the producer then dies of SIGPIPE.
grep_q() {
	local in
	in=$(cat)
	grep -q "$@" <<<"$in"
}
export LC_ALL=C

top=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
cd "$top" || exit 1
export EBID_BUILD=${EBID_BUILD:-build}
case "$EBID_BUILD" in
/*) build=$EBID_BUILD ;;
*) build=$top/$EBID_BUILD ;;
esac
timeout_s=${EBID_TEST_TIMEOUT:-300}

quiet=0
if [ "${1:-}" = "-q" ]; then
	quiet=1
	shift
fi

passed=0
failed=0
skipped=0
failures=()
times=()
logdir=$top/build/tests
mkdir -p "$logdir"

# count NAME < TAP: tally one program's TAP output, echoing it.
count() {
	local name=$1 line last_bad=0
	while IFS= read -r line; do
		case "$line" in
		"not ok"*)
			last_bad=1
			if printf '%s' "$line" | grep_q -iE '#[[:space:]]*(TODO|SKIP)'; then
				skipped=$((skipped + 1))
				[ "$quiet" = 1 ] && echo "$name: $line"
			else
				failed=$((failed + 1))
				failures+=("$name: $line")
				[ "$quiet" = 1 ] && echo "$name: $line"
			fi
			;;
		"ok"*)
			last_bad=0
			if printf '%s' "$line" | grep_q -iE '#[[:space:]]*SKIP'; then
				skipped=$((skipped + 1))
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

# run_one NAME CMD...: run one TAP program under a timeout and count it.
run_one() {
	local name=$1 log f0 rc
	shift
	log=$logdir/${name//\//-}.tap
	[ "$quiet" = 0 ] && echo "# $name"
	f0=$failed
	local p0=$passed s0=$skipped t0=$SECONDS
	timeout -k 10 "$timeout_s" "$@" >"$log" 2>"$log.stderr" </dev/null
	rc=$?
	times+=("$((SECONDS - t0))s $name")
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

if [ $# -gt 0 ]; then
	# Shell tests by their .sh name; anything else is a TAP program.
	scripts=()
	units=()
	for f in "$@"; do
		case "$f" in
		*.sh) scripts+=("$f") ;;
		*) units+=("$f") ;;
		esac
	done
else
	scripts=()
	for f in "$top"/tests/t[0-9]*.sh; do
		[ -f "$f" ] && scripts+=("$f")
	done
	units=()
	for f in "$build"/unit/*; do
		[ -f "$f" ] && [ -x "$f" ] && units+=("$f")
	done
fi

for u in ${units[@]+"${units[@]}"}; do
	run_one "unit/$(basename "$u")" "$u"
done

if [ ${#scripts[@]} -gt 0 ]; then
	if ! "$top/scripts/build-fixtures.sh"; then
		failed=$((failed + 1))
		failures+=("scripts/build-fixtures.sh failed")
		echo "not ok - scripts/build-fixtures.sh failed"
	fi
fi

for s in ${scripts[@]+"${scripts[@]}"}; do
	run_one "$(basename "$s" .sh)" bash "$s"
done

# The slowest programs, to keep the suite quick.
printf '%s\n' ${times[@]+"${times[@]}"} | sort -rn | head -n 5 |
	sed 's/^/# slowest: /'
if [ ${#failures[@]} -gt 0 ]; then
	echo "# failures:"
	printf '#   %s\n' "${failures[@]}"
fi
summary="$passed passed, $failed failed"
[ "$skipped" -gt 0 ] && summary="$summary, $skipped skipped"
echo "$summary"
[ "$failed" -eq 0 ]
