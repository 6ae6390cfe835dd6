# SPDX-License-Identifier: MIT
# The body the matrix tests t0310-t0340 share; source after lib.sh.
# Not a test itself (tests/run.sh runs only tNNNN-*.sh).
#
#   matrix_build [GLOB...]  build/matrix/ built (the shapes GLOB names, or
#                       all), and every listed shape there (t0300, t0301)
#   matrix_run GROUP    the shapes of GROUP (scripts/build-matrix.sh -l GROUP)
#                       built, judged by scripts/compat-matrix, one TAP
#                       line per shape; the results in $tsv
#   check_rows ...      a check over some of those results (below)
#   go_shape_checks     the checks t0310 and t0311 share (below)
# shellcheck shell=bash

tsv=
matrix_n=0

# matrix_build [GLOB...]: scripts/build-matrix.sh builds the shapes the
# GLOBs name (every shape without one); each shape it lists must then be in
# build/matrix/. Sets $matrix_n to the number of shapes listed.
matrix_build() {
	local start name missing=()
	require_deps matrix

	t_begin "scripts/build-matrix.sh ${*:-(everything)}"
	start=$(date +%s)
	expect_exit 0 build_locked matrix "$TOP/scripts/build-matrix.sh" "$@"
	echo "# build took $(($(date +%s) - start)) s: $(tail -n 1 "$SCRATCH/.err")"
	t_end

	t_begin "every shape ${1:+of this part }is in build/matrix/"
	matrix_n=0
	while IFS=$'\t' read -r name _; do
		matrix_n=$((matrix_n + 1))
		[ -s "$TOP/build/matrix/$name" ] || missing+=("$name")
	done < <("$TOP/scripts/build-matrix.sh" -l "$@")
	expect_eq "missing shapes" "${missing[*]-}" ""
	expect_ne "shapes listed" "$matrix_n" 0
	t_end
}

# matrix_run GROUP: scripts/compat-matrix runs the real tool on a copy of
# each build/matrix/NAME of GROUP and judges it with readelf, eu-readelf,
# perf, tests/ebid.py and the binary's own output (see its header for the
# rules). Its exit status is 1 exactly when a shape failed.
matrix_run() {
	local group=$1 start cm_rc want_rc want got
	require_deps matrix

	t_begin "$group: fixtures built"
	expect_exit 0 build_locked matrix "$TOP/scripts/build-matrix.sh" "$group"
	t_end

	tsv=$SCRATCH/matrix.tsv
	start=$(date +%s)
	EBID="$EBID" "$TOP/scripts/compat-matrix" --work "$SCRATCH/run" \
		--json "$SCRATCH/matrix.json" --tsv "$tsv" "$group" \
		>"$SCRATCH/.cm.out" 2>"$SCRATCH/.cm.err"
	cm_rc=$?
	echo "# compat-matrix $group took $(($(date +%s) - start)) s (exit $cm_rc): $(tail -n 1 "$SCRATCH/.cm.err")"

	t_begin "$group: scripts/compat-matrix checked every shape"
	want=$("$TOP/scripts/build-matrix.sh" -l "$group" | cut -f1)
	got=$(cut -f1 "$tsv" 2>/dev/null)
	expect_eq "shapes checked" "$got" "$want"
	expect_ne "shapes listed" "$want" ""
	want_rc=0
	awk -F'\t' '$9 != "pass" { bad = 1 } END { exit !bad }' "$tsv" 2>/dev/null && want_rc=1
	expect_eq "compat-matrix exit status (1 when a shape failed)" "$cm_rc" "$want_rc" ||
		t_fail "$(tail -n 5 "$SCRATCH/.cm.err")"
	t_end

	local name kind runner cls endian outcome expected verdict failures line
	while IFS=$'\t' read -r name _ kind runner cls endian outcome expected verdict _ failures; do
		t_begin "$name ($cls $endian $kind, $runner): $outcome"
		if ! expect_eq "verdict" "$verdict" pass; then
			t_fail "input needed: $expected"
			while IFS= read -r line; do
				t_fail "$(printf '%s\n' "$line" | sed 's/ \\n /\n/g')"
			done < <(printf '%s\n' "$failures" | sed 's/ || /\n/g')
		fi
		t_end
	done <"$tsv"
}

# check_rows WHAT AWK-FILTER CHECK...: among the rows the filter selects
# (fields: $1 name, $3 kind, $4 runner, $5 class, $6 endian, $7 outcome,
# $8 expected, $10 checks), each named check must be "pass" (or "n/a" when
# the name ends in ?). Fails when the filter selects no row, unless WHAT
# starts with "?" (then it makes no check: a block with nothing else to
# check fails as empty).
check_rows() {
	local what=${1#\?} filter=$2 n=0 name outcome checks c want may_be_empty=0
	[ "$what" != "$1" ] && may_be_empty=1
	shift 2
	while IFS=$'\t' read -r name outcome checks; do
		n=$((n + 1))
		for c in "$@"; do
			want=pass
			case "$c" in *\?) c=${c%?} want='pass|n/a' ;; esac
			expect_true "$name: $outcome, so no '$c' check ($checks)" \
				grep -q " $c=" <<<" $checks " || break
			expect_true "$name: $c is not $want ($checks)" \
				grep -qE " $c=($want) " <<<" $checks "
		done
	done < <(awk -F'\t' "$filter { print \$1 \"\t\" \$7 \"\t\" \$10 }" "$tsv")
	[ "$n" -gt 0 ] || [ "$may_be_empty" = 1 ] || t_fail "no shape is $what"
	echo "# $what: $n shapes"
}

# go_shape_checks: the blocks every Go group's script ends with, over the
# results of its matrix_run (t0310 Go 1.19's shapes, t0311 today's Go's):
# big-endian and 32-bit files pass every independent check, foreign ones
# still run under qemu-user, native ones' ids reach the real kernel, and a
# second inject changes nothing.
go_shape_checks() {
	t_begin "big-endian and 32-bit shapes pass the independent id, section and kernel checks"
	check_rows "big-endian or 32-bit" '$6 == "big" || $5 == "ELF32"' printed action id section kernel planned
	t_end

	t_begin "foreign binaries still run under qemu-user with identical output"
	check_rows "run under qemu-user" '$4 ~ /^qemu-/' runs
	t_end

	t_begin "native binaries: the real kernel (perf record --buildid-mmap MMAP2) sees the id"
	check_rows "native" '$4 == "native" && $7 != "refused"' kernel
	perf_record_works || t_skip_if "$perf_record_why (only tests/ebid.py kernel ran)"
	t_end

	t_begin "a second inject leaves every result alone (same bytes, inode, mtime)"
	check_rows "handled" '$7 != "refused"' again
	t_end
}
