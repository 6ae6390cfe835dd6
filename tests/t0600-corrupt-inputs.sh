#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# Hostile input: scripts/mkcorrupt.py makes corrupt inputs from good files
# (every header field at boundary values, truncations, hostile notes,
# non-ELF, special files); show, verify and inject run on each under a
# timeout (tests/robust/run_corrupt.py). No signal, no hang, documented exit
# codes, one error line naming the file (and the field), input bytes kept,
# no temp file left, and exit 0 only with a result that tests/ebid.py finds
# genuinely valid.
#
# make test runs a deterministic sample (EBID_CORRUPT_SAMPLE cases, default
# 600, plus every note, hostile, non-ELF and special case); make robust sets
# EBID_ROBUST_FULL=1 and runs all of them, in shards to bound disk use.
. "$(dirname "$0")/lib.sh"
require_tool
require_fixtures plain sw nobuildid

full=${EBID_ROBUST_FULL:-0}
sample=${EBID_CORRUPT_SAMPLE:-600}
shards=1
[ "$full" = 1 ] && shards=${EBID_CORRUPT_SHARDS:-16}
results=$SCRATCH/results.tsv
problems=$SCRATCH/problems.tsv
manifest=$SCRATCH/manifest.tsv
: >"$results"
: >"$problems"
: >"$manifest"

t_begin "mkcorrupt.py makes the cases and runs them (full=$full)"
gen_ok=1
for ((k = 0; k < shards; k++)); do
	args=(--fixtures "$FIXTURES" --small-dir "$TOP/build/robust/small")
	if [ "$full" = 1 ]; then
		args+=(--shard "$k/$shards")
	else
		args+=(--sample "$sample")
	fi
	rm -rf "$SCRATCH/cases" "$SCRATCH/work"
	if ! python3 "$TOP/scripts/mkcorrupt.py" "${args[@]}" "$SCRATCH/cases" \
		2>"$SCRATCH/gen.err"; then
		t_fail "mkcorrupt.py ${args[*]} failed: $(cat "$SCRATCH/gen.err")"
		gen_ok=0
		break
	fi
	cat "$SCRATCH/cases/MANIFEST.tsv" >>"$manifest"
	python3 "$TOP/tests/robust/run_corrupt.py" --tool "$EBID" \
		--cases "$SCRATCH/cases" --work "$SCRATCH/work" \
		--results "$results" --problems "$problems" --jobs 2 \
		--timeout "${EBID_CORRUPT_TIMEOUT:-10}" >"$SCRATCH/run.out" 2>&1
	case $? in
	0 | 1) ;;
	*)
		t_fail "run_corrupt.py failed: $(tail -n 5 "$SCRATCH/run.out")"
		gen_ok=0
		break
		;;
	esac
done
rm -rf "$SCRATCH/cases" "$SCRATCH/work"
ncases=$(wc -l <"$manifest")
nruns=$(wc -l <"$results")
for cat in field note trunc hostile nonelf special; do
	n=$(awk -F'\t' -v c="$cat" '$3 == c' "$manifest" | wc -l)
	[ "$n" -gt 0 ] || t_fail "no case of category $cat"
done
[ "$gen_ok" = 1 ] && [ "$nruns" -ge "$ncases" ] ||
	t_fail "$ncases cases but only $nruns runs"
t_end

# A summary for docs/reliability.md: runs by command and exit status.
{
	echo "cases: $ncases; runs: $nruns"
	awk -F'\t' '{ print $3 }' "$manifest" | sort | uniq -c
	awk -F'\t' '{ print $3, "exit", $4 }' "$results" | sort | uniq -c
} >"$SCRATCH/summary.txt"
sed 's/^/# /' "$SCRATCH/summary.txt"

declare -A what=(
	[crash]="no run dies of a signal"
	[hang]="no run hangs (each finishes within the timeout)"
	[exit]="every exit status is a documented one"
	[message]="each failure prints exactly one line 'elf-buildid: FILE: COMMAND: cause'"
	[field]="each 'malformed ELF' cause names the header, field, section or note"
	[unchanged]="the input's bytes are unchanged (show, verify, failed inject)"
	[tempfile]="no temporary or backup file is left behind"
	[valid]="exit 0 only with a result tests/ebid.py finds genuinely valid"
	[output]="stdout has the documented form for the exit status"
	[setup]="every case could be read"
)
for prop in crash hang exit message field unchanged tempfile valid output setup; do
	t_begin "$ncases corrupt inputs, $nruns runs: ${what[$prop]}"
	n=$(awk -F'\t' -v p="$prop" '$1 == p' "$problems" | wc -l)
	if [ "$n" -gt 0 ]; then
		t_fail "$n problems (all in ${problems#"$TOP"/}), the first ones:"
		while IFS=$'\t' read -r _ name cmd detail; do
			t_fail "$cmd $name: $detail"
		done < <(awk -F'\t' -v p="$prop" '$1 == p' "$problems" | head -n 15)
	fi
	t_end
done

t_done
