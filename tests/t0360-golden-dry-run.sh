#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# tier: slow (every matrix shape's plan)
# after: t0300-matrix-build-a t0301-matrix-build-b
# Issue 13, item 10: the planner's placements over every compatibility-matrix
# shape are pinned. tests/golden/dry-run/NAME.txt holds what
# `inject --dry-run` and `inject --dry-run --hash=md5` print for
# build/matrix/NAME (written by tests/golden/dry-run.sh); any change shows
# here as a diff. A deliberate change is recorded with `make golden-update`.
#
# The matrix is built by t0300 and t0301 (under tests/run.sh -j, this
# script waits for their build); run alone, this script skips when
# build/matrix/ is not built (make matrix).
# The shapes are binaries from the toolchains recorded in
# tests/golden/dry-run/toolchain: with other toolchains a difference may be
# theirs, not the planner's, so it is shown and the shape skipped.
. "$(dirname "$0")/lib.sh"
require_tool

golden=$TOP/tests/golden/dry-run
matrix=${EBID_MATRIX:-$TOP/build/matrix}
gen=$TOP/tests/golden/dry-run.sh

mapfile -t shapes < <("$TOP/scripts/build-matrix.sh" -l | cut -f1)

t_begin "scripts/build-matrix.sh -l lists the shapes"
expect_true "only ${#shapes[@]} shapes listed" [ ${#shapes[@]} -ge 150 ]
t_end

t_begin "every listed shape has a golden file, and every golden file a shape"
missing=()
for s in "${shapes[@]}"; do
	[ -f "$golden/$s.txt" ] || missing+=("$s")
done
stale=()
for f in "$golden"/*.txt; do
	[ -f "$f" ] || continue
	s=$(basename "$f" .txt)
	printf '%s\n' "${shapes[@]}" | grep_q -Fx -- "$s" || stale+=("$s")
done
expect_eq "shapes without a golden file (make golden-update)" "${missing[*]-}" ""
expect_eq "golden files of shapes the matrix no longer has (make golden-update)" "${stale[*]-}" ""
t_end

# Under tests/run.sh -j, t0300 and t0301 may be building the matrix right
# now: wait until they let go of it (this script builds nothing itself).
build_locked matrix true

built=0
for s in "${shapes[@]}"; do
	[ -s "$matrix/$s" ] && built=$((built + 1))
done
if [ "$built" = 0 ]; then
	t_skip "golden --dry-run outputs of the matrix shapes" \
		"$matrix not built (make matrix; t0300 and t0301 build it)"
	t_done
fi

# Same toolchain as the golden files? Otherwise differences are not failures.
same_tools=1
if ! cmp -s "$golden/toolchain" "$matrix/.tools"; then
	same_tools=0
	echo "# the matrix was not built with the toolchain of the golden files:"
	diff "$golden/toolchain" "$matrix/.tools" 2>&1 | sed 's/^/#   /'
fi

got=$SCRATCH/got
present=()
for s in "${shapes[@]}"; do
	[ -s "$matrix/$s" ] && present+=("$s")
done
start=$(date +%s%N)
"$gen" "$EBID" "$matrix" "$got" "${present[@]}" >"$SCRATCH/.gen.out" 2>"$SCRATCH/.gen.err"
gen_rc=$?
ms=$((($(date +%s%N) - start) / 1000000))
echo "# ${#present[@]} shapes planned in $ms ms"

t_begin "tests/golden/dry-run.sh ran over the ${#present[@]} built shapes"
expect_eq "exit status" "$gen_rc" 0
expect_eq "stderr" "$(cat "$SCRATCH/.gen.err")" ""
t_end

for s in "${shapes[@]}"; do
	t_begin "$s: inject --dry-run (sha1, md5) as in tests/golden/dry-run/$s.txt"
	if [ ! -s "$matrix/$s" ]; then
		t_skip_if "build/matrix/$s not built (make matrix)"
	elif [ ! -f "$golden/$s.txt" ]; then
		t_fail "no golden file tests/golden/dry-run/$s.txt (make golden-update)"
	else
		t_check # the comparison with the golden file
		if ! d=$(diff -u --label "golden/$s.txt" --label "now/$s.txt" \
			"$golden/$s.txt" "$got/$s.txt" 2>&1); then
			if [ "$same_tools" = 1 ]; then
				t_fail "the plan differs from the golden one (make golden-update if meant):" \
					"$(printf '%s\n' "$d" | head -n 80)"
			else
				printf '%s\n' "$d" | head -n 80 | sed 's/^/#   /'
				t_skip_if "differs, but the matrix was built by another toolchain than the golden files (make golden-update)"
			fi
		fi
	fi
	t_end
done

t_done
