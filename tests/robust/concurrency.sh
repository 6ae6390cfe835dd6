#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# The concurrency campaign of docs/reliability.md ("Concurrency"): 8
# `elf-buildid inject FILE` released at once by a FIFO on a fresh copy of a
# Go binary, ROUNDS rounds in each mode (replace, --in-place, mixed: every
# second one --in-place). Prints one line a mode: how many runs exited 0,
# how many rounds printed more than one distinct line, how many left
# anything beside the file. Exit 1 when any run failed.
#
# Usage: tests/robust/concurrency.sh [ROUNDS]   (default 50)
# Environment: EBID (the binary), EBID_FIXTURE (the input).
set -u
top=$(cd "$(dirname "$0")/../.." && pwd)
ebid=${EBID:-$top/build/elf-buildid}
fixture=${EBID_FIXTURE:-$top/build/fixtures/nobuildid}
rounds=${1:-50}
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
cd "$work" || exit 2
status=0
for mode in replace in-place mixed; do
	good=0 bad=0 split=0 left=0
	for ((r = 1; r <= rounds; r++)); do
		rm -rf w res go && mkdir w res && cp "$fixture" w/prog && mkfifo go
		for i in 1 2 3 4 5 6 7 8; do
			case $mode in
			replace) a=() ;;
			in-place) a=(--in-place) ;;
			mixed) if ((i % 2)); then a=(); else a=(--in-place); fi ;;
			esac
			(
				read -r _ <go
				"$ebid" inject "${a[@]}" w/prog >res/out.$i 2>res/err.$i
				echo $? >res/rc.$i
			) &
		done
		sleep 0.05
		echo >go &
		wait
		for i in 1 2 3 4 5 6 7 8; do
			if [ "$(cat res/rc.$i)" = 0 ]; then good=$((good + 1)); else bad=$((bad + 1)); fi
		done
		[ "$(sort -u res/out.* | wc -l)" = 1 ] || split=$((split + 1))
		[ "$(ls -A w)" = prog ] || left=$((left + 1))
	done
	echo "$mode: $rounds rounds x 8: $good exit 0, $bad non-zero, $split rounds with more than one distinct line, $left rounds with something left beside the file"
	[ "$bad$split$left" = 000 ] || status=1
done
exit $status
