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

require_deps robust
shim=$TOP/build/robust/faultshim.so
build_locked robust make -C "$TOP" --no-print-directory faultshim >"$SCRATCH/make.out" 2>&1 || {
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

# The input: the nobuildid fixture (add-pt-note), or $fixture with its
# $label (move-note, below).
fixture=$FIXTURES/nobuildid
label=
run_scenario() { # NAME [--mutate]
	local name=$1 mode=${2:-} problems=$SCRATCH/problems-$label$1${2:+-mutate}.tsv
	: >"$problems"
	python3 "$TOP/tests/robust/run_faults.py" --tool "$EBID" --shim "$shim" \
		--fixture "$fixture" --work "$SCRATCH/work-$label$name" \
		--scenario "$name" --problems "$problems" --summary "$summary" \
		${mode:+"$mode"} >"$SCRATCH/run.out" 2>&1
	local prc=$? want=0
	t_begin "$label$name${mode:+ $mode}: the fault runs complete"
	# run_faults.py exits 1 exactly when it found problems.
	[ -s "$problems" ] && want=1
	expect_eq "run_faults.py exit status ($(tail -n 5 "$SCRATCH/run.out"))" "$prc" "$want"
	expect_match "run_faults.py summary" "$(cat "$SCRATCH/run.out")" ' [1-9][0-9]* runs'
	t_end
	echo "# $(cat "$SCRATCH/run.out")"
	local list=("${props[@]}")
	[ -n "$mode" ] && list=(crash hang fired tempfile mutate setup)
	local prop n
	for prop in "${list[@]}"; do
		t_begin "$label$name${mode:+ $mode}: ${what[$prop]}"
		n=$(awk -F'\t' -v p="$prop" '$1 == p' "$problems" | wc -l)
		if ! expect_eq "problems" "$n" 0; then
			t_fail "(all in ${problems#"$TOP"/}):"
			while IFS=$'\t' read -r _ point action detail; do
				t_fail "$point $action: $detail"
			done < <(awk -F'\t' -v p="$prop" '$1 == p' "$problems" | head -n 12)
		fi
		t_end
	done
}

# make test runs the fault runs on the nobuildid fixture and the shrinking
# file; t0631, in the slow tier, sources this script with
# EBID_FAULT_PART=moves for those on the move-note and move-head shapes.
if [ "${EBID_FAULT_PART:-}" != moves ]; then
	run_scenario replace
	run_scenario replace --mutate
	# The default mode edits in place under a write lease, which holds
	# every other opener off until it is done: the shim's "another process"
	# runs inside this one, and would wait for its own lease. Concurrent
	# writers and readers of the default mode are t0646's (real processes).
	run_scenario lease
	run_scenario inplace
	run_scenario inplace --mutate
	run_scenario verify
	run_scenario show

	# The hash reads the input through mapped windows (src/fs/mapped.c). Another
	# process truncating the file under a window makes the next touch of it
	# raise SIGBUS: each reader must say that the file shrank and exit with its
	# error status (verify: ERROR, exit 2), not die of the signal. "mmap:N:shrink" maps the Nth window,
	# then truncates the file to that window's start.
	big=$SCRATCH/shrink-src
	cp "$FIXTURES/nobuildid" "$big"
	head -c $((10 << 20)) /dev/zero | tr '\0' 'x' >>"$big" # 3 windows or more
	shrink_case() { # DESC NTH WANT_RC SRC ARGS...
		local desc=$1 nth=$2 want=$3 src=$4 dir=$SCRATCH/shrink
		shift 4
		rm -rf "$dir"
		mkdir -p "$dir"
		cp "$src" "$dir/f"
		case "$*" in verify*) "$EBID" inject -q "$dir/f" ;; esac
		t_begin "file shrunk under the hash's window ($desc): exit $want, 'shrank', no signal"
		# With a sanitizer build the shim comes before libasan: allowed.
		EBID_FAULT=mmap:$nth:shrink EBID_FAULT_SCOPE=$dir LD_PRELOAD=$shim \
			EBID_FAULT_LOG=$SCRATCH/shrink.log \
			ASAN_OPTIONS="${ASAN_OPTIONS:+$ASAN_OPTIONS:}verify_asan_link_order=0" \
			"$EBID" "$@" "$dir/f" >"$SCRATCH/shrink.out" 2>&1
		local src=$?
		expect_true "the shrink was not injected (no mapped window $nth?)" \
			grep -qP "^FIRED\tmmap\t$nth\tshrink" "$SCRATCH/shrink.log"
		expect_eq "exit status ($(cat "$SCRATCH/shrink.out"))" "$src" "$want"
		expect_true "no 'shrank' in: $(cat "$SCRATCH/shrink.out")" grep -q "shrank" "$SCRATCH/shrink.out"
		case "$*" in verify*)
			grep_q "^ERROR  " <"$SCRATCH/shrink.out" ||
				t_fail "verify did not say ERROR: $(cat "$SCRATCH/shrink.out")" ;;
		esac
		[ "$(find "$dir" -name '.f.ebid-*' | wc -l)" = 0 ] ||
			t_fail "a temporary or journal was left: $(ls -A "$dir")"
		rm -f "$SCRATCH/shrink.log"
		t_end
	}
	# (The default mode holds a lease: nobody else can shrink the file.)
	shrink_case "inject --replace" 1 2 "$FIXTURES/nobuildid" inject --replace
	shrink_case "inject --in-place" 1 2 "$FIXTURES/nobuildid" inject --in-place
	shrink_case "verify --content-hash" 1 2 "$FIXTURES/nobuildid" verify --content-hash --perf=off
	shrink_case "sha1-tree, third window" 3 2 "$big" inject --in-place --hash=sha1-tree
	shrink_case "sha1, third window" 3 2 "$big" inject --in-place
else
	# A bfd executable without a build-id, whose plan moves a note (move-note):
	# its symbols are read, by the plan and by the self-check.
	# Both shapes are built here when missing (need_shapes, a few seconds).
	need_shapes c-gcc-bfd-pie-nobuildid c-gcc-lld-pie-nobuildid
	movenote=${EBID_MATRIX:-$TOP/build/matrix}/c-gcc-bfd-pie-nobuildid
	if [ -f "$movenote" ]; then
		fixture=$movenote label="move-note "
		run_scenario replace
		run_scenario inplace
		fixture=$FIXTURES/nobuildid label=
	else
		t_skip "move-note: the fault runs" "$movenote not built (make matrix)"
	fi

	# An lld executable without a build-id, whose plan inserts a gap and moves
	# .interp and the notes (insert-gap, move-head): the copy and the hash read
	# through the gap, the self-check reads every byte back. --in-place refuses
	# such a plan, so only the replace scenario runs.
	movehead=${EBID_MATRIX:-$TOP/build/matrix}/c-gcc-lld-pie-nobuildid
	if [ -f "$movehead" ]; then
		fixture=$movehead label="move-head "
		run_scenario replace
		fixture=$FIXTURES/nobuildid label=
	else
		t_skip "move-head: the fault runs" "$movehead not built (make matrix)"
	fi
fi

# The figures for docs/reliability.md.
grep -E '^scenario|window:' "$summary" | sed 's/^ */# /'
t_done
