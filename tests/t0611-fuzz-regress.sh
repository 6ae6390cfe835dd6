#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# tier: slow (the fuzz harnesses' clang build)
# Every input in tests/fuzz/regress/ (findings of fuzzing and of the corrupt
# inputs, described in tests/fuzz/regress/README.md) is replayed: once
# through each fuzz harness (fuzz_inject and fuzz_pprof: no finding, no
# sanitizer report), and through the command line (show, verify, inject:
# the checks of t0600).
. "$(dirname "$0")/lib.sh"
require_tool
require_deps robust

regress=$TOP/tests/fuzz/regress
files=()
for f in "$regress"/*; do
	case $f in
	*.md) ;;
	*) [ -f "$f" ] && files+=("$f") ;;
	esac
done
if [ ${#files[@]} -eq 0 ]; then
	echo "not ok 1 - no regression input in tests/fuzz/regress/"
	exit 1
fi

build_locked fuzz make -C "$TOP" --no-print-directory fuzz-build >"$SCRATCH/make.out" 2>&1
built=$?
for f in "${files[@]}"; do
	name=$(basename "$f")
	t_begin "fuzz harnesses: $name"
	expect_true "$name is not described in tests/fuzz/regress/README.md" \
		grep -q "^## $name\$" "$regress/README.md"
	if [ "$built" != 0 ]; then
		t_fail "make fuzz-build failed: $(tail -n 5 "$SCRATCH/make.out")"
	else
		for h in fuzz_inject fuzz_pprof; do
			run timeout 60 "$TOP/build/fuzz/$h" "$f"
			expect_eq "$h exit status ($(grep -m 3 'FINDING\|SUMMARY:\|runtime error' "$SCRATCH/.err"))" "$rc" 0
			# libFuzzer ran the input (and did not, say, only print its usage).
			expect_match "$h: libFuzzer's report" "$err" "^Executed .*/$name in "
		done
	fi
	t_end
done

# The command line on the same inputs, with t0600's checks.
cases=$SCRATCH/cases
mkdir -p "$cases"
: >"$cases/MANIFEST.tsv"
for f in "${files[@]}"; do
	cp "$f" "$cases/"
	printf '%s\tregress\tregress\t%s\n' "$(basename "$f")" \
		"tests/fuzz/regress/$(basename "$f")" >>"$cases/MANIFEST.tsv"
done
: >"$SCRATCH/problems.tsv"
python3 "$TOP/tests/robust/run_corrupt.py" --tool "$EBID" --cases "$cases" \
	--work "$SCRATCH/work" --results "$SCRATCH/results.tsv" \
	--problems "$SCRATCH/problems.tsv" >"$SCRATCH/run.out" 2>&1
for f in "${files[@]}"; do
	name=$(basename "$f")
	t_begin "command line: show, verify, inject on $name"
	while IFS=$'\t' read -r prop _ cmd detail; do
		t_fail "$prop: $cmd: $detail"
	done < <(awk -F'\t' -v n="$name" '$2 == n' "$SCRATCH/problems.tsv")
	expect_eq "commands run on it ($(tail -n 3 "$SCRATCH/run.out"))" \
		"$(awk -F'\t' -v n="$name" '$1 == n { print $3 }' "$SCRATCH/results.tsv" 2>/dev/null | sort | tr '\n' ' ')" \
		"inject show verify "
	t_end
done
t_done
