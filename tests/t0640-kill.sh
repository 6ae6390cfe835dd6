#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# tier: slow (hundreds of SIGKILLed runs)
# SIGKILL at random moments while inject rewrites a large file (a fixture
# with 200 MiB appended; tests/robust/run_kills.py): the path always holds
# the original or the complete new file, a rerun converges on the result
# of an undisturbed run, and removes the temporaries the killed run left.
# That with --replace; the same with --in-place and in the default mode
# (in place under a write lease), where a torn file is allowed only while
# its journal is there for the rerun to undo, and for an lld executable
# whose plan inserts a gap (move-head, which the default replaces).
# make test: EBID_KILL_RUNS (default 30) and 10 with --in-place; make
# robust (EBID_ROBUST_FULL=1): 200 and 50.
. "$(dirname "$0")/lib.sh"
require_tool
require_fixtures nobuildid

if [ "${EBID_ROBUST_FULL:-0}" = 1 ]; then
	runs=${EBID_KILL_RUNS:-200} inplace_runs=${EBID_KILL_INPLACE_RUNS:-50}
else
	runs=${EBID_KILL_RUNS:-30} inplace_runs=${EBID_KILL_INPLACE_RUNS:-10}
fi
summary=$SCRATCH/summary.txt
: >"$summary"

fixture=$FIXTURES/nobuildid
kills() { # LABEL RUNS [--in-place]
	local label=$1 n=$2 problems=$SCRATCH/problems-$1.tsv
	shift 2
	: >"$problems"
	python3 "$TOP/tests/robust/run_kills.py" --tool "$EBID" \
		--fixture "$fixture" --work "$SCRATCH/work" --runs "$n" \
		--problems "$problems" --summary "$summary" "$@" \
		>"$SCRATCH/run.out" 2>&1
	local krc=$? want=0
	echo "# $(cat "$SCRATCH/run.out")"
	t_begin "$label: $n kills run to the end"
	# run_kills.py exits 1 exactly when it found problems.
	[ -s "$problems" ] && want=1
	expect_eq "run_kills.py exit status ($(tail -n 5 "$SCRATCH/run.out"))" "$krc" "$want"
	expect_match "run_kills.py summary" "$(cat "$SCRATCH/run.out")" "^run_kills: [^ ]+: $n kills of inject "
	t_end
	local prop desc
	for prop in state rerun stale journal; do
		case $prop in
		state) desc="after each kill the path holds the original or the complete new file" ;;
		rerun) desc="a rerun exits 0 with the undisturbed run's result" ;;
		stale) desc="a rerun removes the temporaries a killed run left" ;;
		journal) desc="no journal is left after a rerun" ;;
		esac
		t_begin "$label: $desc"
		while IFS=$'\t' read -r _ which detail; do
			t_fail "$which: $detail"
		done < <(awk -F'\t' -v p="$prop" '$1 == p' "$problems" | head -n 10)
		n=$(awk -F'\t' -v p="$prop" '$1 == p' "$problems" | wc -l)
		expect_eq "problems" "$n" 0
		[ "$n" -gt 10 ] && t_fail "(and $((n - 10)) more in ${problems#"$TOP"/})"
		t_end
	done
}

kills replace "$runs"
kills lease "$inplace_runs" --lease
kills in-place "$inplace_runs" --in-place
# An lld executable (insert-gap, move-head): the 200 MiB behind the gap are
# copied to other offsets than they had. They are a section of their own
# (objcopy --add-section): bytes appended past every section would make
# the gap a refusal (an appended payload may name its own offsets).
need_shapes c-gcc-lld-pie-nobuildid
movehead=${EBID_MATRIX:-$TOP/build/matrix}/c-gcc-lld-pie-nobuildid
if [ -f "$movehead" ]; then
	python3 -c 'import sys
p = bytes(range(1, 256)) * 4200
for _ in range(200):
	sys.stdout.buffer.write(p[:1 << 20])' >"$SCRATCH/payload"
	objcopy --add-section .payload="$SCRATCH/payload" "$movehead" "$SCRATCH/lld-big"
	rm -f "$SCRATCH/payload"
	fixture=$SCRATCH/lld-big
	kills move-head "$inplace_runs" --mb 0
	fixture=$FIXTURES/nobuildid
	rm -f "$SCRATCH/lld-big"
else
	t_skip "move-head: the kill runs" "$movehead not built (make matrix)"
fi
# Which temporaries a run removes: only ".NAME.ebid-XXXXXX" of a file it
# writes, and only when no live run holds its lock. A tree run reads each
# directory once for them, however many files it writes there.
t_begin "stale temporaries: a tree run removes a dead one, keeps a locked one and one of a file it does not write"
d=$SCRATCH/temps
rm -rf "$d"
mkdir -p "$d/dir"
for i in $(seq -w 1 40); do cp "$FIXTURES/nobuildid" "$d/dir/f$i"; done
echo dead >"$d/dir/.f07.ebid-AAAAAA"
echo live >"$d/dir/.f08.ebid-BBBBBB"
echo other >"$d/dir/.unrelated.ebid-CCCCCC"
# The holder is sleep itself, so killing it releases the lock.
(exec 9<"$d/dir/.f08.ebid-BBBBBB" && flock -x 9 && exec sleep 60) &
holder=$!
for _ in $(seq 50); do # until the holder has its lock
	flock -n -x "$d/dir/.f08.ebid-BBBBBB" true || break
	sleep 0.1
done
run "$EBID" inject -r -q -j 2 "$d/dir"
expect_eq "exit status" "$rc" 0
expect_false "the dead temporary of f07 is still there" [ -e "$d/dir/.f07.ebid-AAAAAA" ]
expect_true "the locked temporary of f08 was removed" [ -e "$d/dir/.f08.ebid-BBBBBB" ]
expect_true "a temporary of a file the run did not write was removed" [ -e "$d/dir/.unrelated.ebid-CCCCCC" ]
kill "$holder" 2>/dev/null
wait "$holder" 2>/dev/null
run "$EBID" reserve -f "$d/dir/f08" # rewrites f08
expect_eq "exit status of a run on f08 once the lock is gone" "$rc" 0
expect_false "the temporary of f08 outlived its lock and a run on f08" [ -e "$d/dir/.f08.ebid-BBBBBB" ]
t_end

t_done
