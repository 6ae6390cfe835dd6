#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# Fault injection at every system call of the write path (and of the read
# paths of verify and show): tests/fault/faultshim.so, preloaded, fails the
# Nth open/read/write/fsync/fchown/fsetxattr/rename/... call with an errno,
# or makes it short; tests/robust/run_faults.py lists the calls of an
# undisturbed run and injects one fault per run at each of them. A hard
# fault: exit 2, one error line saying what failed and why, the original's
# bytes intact before the commit point (the complete new file after it), no
# temporary left. A short write, EINTR or a fallback the tool may take: the
# same result as an undisturbed run. Another process changing the file
# between the read and the rename: detected, its change kept.
. "$(dirname "$0")/lib.sh"
require_tool
require_fixtures nobuildid

"$TOP/scripts/install-robust-deps.sh" >&2 || {
	echo "not ok 1 - scripts/install-robust-deps.sh failed"
	exit 1
}
shim=$TOP/build/robust/faultshim.so
make -C "$TOP" --no-print-directory faultshim >"$SCRATCH/make.out" 2>&1 || {
	echo "not ok 1 - make faultshim failed: $(tail -n 5 "$SCRATCH/make.out")"
	exit 1
}

summary=$SCRATCH/summary.txt
: >"$summary"
declare -A what=(
	[crash]="no run dies of a signal"
	[hang]="no run hangs"
	[fired]="every planned fault was really injected"
	[exit]="exit 2 for a fault, 0 for one to survive"
	[message]="one error line naming what failed and the errno's text"
	[intact]="the original intact before the commit point, the new file after"
	[result]="a survived fault gives the undisturbed run's result"
	[tempfile]="no temporary, journal or backup left"
	[links]="hard links stay one inode"
	[mutate]="a change by another process is detected and kept"
	[output]="verify prints no PASS or SKIP for a file it could not read"
	[setup]="the call list has what the test needs"
)
props=(crash hang fired exit message intact result tempfile links output)

run_scenario() { # NAME [--mutate]
	local name=$1 mode=${2:-} problems=$SCRATCH/problems-$1${2:+-mutate}.tsv
	: >"$problems"
	python3 "$TOP/tests/robust/run_faults.py" --tool "$EBID" --shim "$shim" \
		--fixture "$FIXTURES/nobuildid" --work "$SCRATCH/work-$name" \
		--scenario "$name" --problems "$problems" --summary "$summary" \
		${mode:+"$mode"} >"$SCRATCH/run.out" 2>&1
	local rc=$?
	t_begin "$name${mode:+ $mode}: the fault runs complete"
	case $rc in
	0 | 1) ;;
	*) t_fail "run_faults.py exited $rc: $(tail -n 5 "$SCRATCH/run.out")" ;;
	esac
	t_end
	echo "# $(cat "$SCRATCH/run.out")"
	local list=("${props[@]}")
	[ -n "$mode" ] && list=(crash hang fired tempfile mutate setup)
	local prop n
	for prop in "${list[@]}"; do
		t_begin "$name${mode:+ $mode}: ${what[$prop]}"
		n=$(awk -F'\t' -v p="$prop" '$1 == p' "$problems" | wc -l)
		if [ "$n" -gt 0 ]; then
			t_fail "$n problems (all in ${problems#"$TOP"/}):"
			while IFS=$'\t' read -r _ point action detail; do
				t_fail "$point $action: $detail"
			done < <(awk -F'\t' -v p="$prop" '$1 == p' "$problems" | head -n 12)
		fi
		t_end
	done
}

run_scenario replace
run_scenario replace --mutate
run_scenario inplace
run_scenario inplace --mutate
run_scenario verify
run_scenario show

# The figures for docs/reliability.md.
grep -E '^scenario|window:' "$summary" | sed 's/^ */# /'
t_done
