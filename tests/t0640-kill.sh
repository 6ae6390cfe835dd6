#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# SIGKILL at random moments while inject rewrites a large file (a fixture
# with 200 MiB appended; tests/robust/run_kills.py): the path always holds
# the original or the complete new file, a rerun converges on the result
# of an undisturbed run, and removes the temporaries the killed run left.
# The same with --in-place, where a torn file is allowed only while its
# journal is there for the rerun to undo.
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

kills() { # LABEL RUNS [--in-place]
	local label=$1 n=$2 problems=$SCRATCH/problems-$1.tsv
	shift 2
	: >"$problems"
	python3 "$TOP/tests/robust/run_kills.py" --tool "$EBID" \
		--fixture "$FIXTURES/nobuildid" --work "$SCRATCH/work" --runs "$n" \
		--problems "$problems" --summary "$summary" "$@" \
		>"$SCRATCH/run.out" 2>&1
	local rc=$?
	echo "# $(cat "$SCRATCH/run.out")"
	t_begin "$label: $n kills run to the end"
	case $rc in 0 | 1) ;; *) t_fail "run_kills.py exited $rc: $(tail -n 5 "$SCRATCH/run.out")" ;; esac
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
		[ "$n" -gt 10 ] && t_fail "(and $((n - 10)) more in ${problems#"$TOP"/})"
		t_end
	done
}

kills replace "$runs"
kills in-place "$inplace_runs" --in-place
t_done
