#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# Issue 3: elf-buildid over Go's internal linking for every GOARCH: each
# shape is injected, backfilled or repaired with every independent check
# passing (never refused); big-endian and 32-bit files pass them byte-exactly;
# foreign binaries still run under qemu-user with the same output.
. "$(dirname "$0")/lib.sh"
require_tool

group=go

# One TAP line per shape: scripts/compat-matrix runs the real tool on a copy
# of build/matrix/NAME and judges it with readelf, eu-readelf, perf,
# tests/ebid.py and the binary's own output (see its header for the rules).
t_begin "$group: fixtures built and checkers installed"
expect_exit 0 "$TOP/scripts/install-matrix-deps.sh"
expect_exit 0 "$TOP/scripts/build-matrix.sh" "$group"
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
[ "$cm_rc" = 0 ] || [ "$cm_rc" = 1 ] || t_fail "compat-matrix exited $cm_rc: $(cat "$SCRATCH/.cm.err")"
t_end

while IFS=$'\t' read -r name _ kind runner cls endian outcome expected verdict _ failures; do
	t_begin "$name ($cls $endian $kind, $runner): $outcome"
	if [ "$verdict" != pass ]; then
		t_fail "input needed: $expected"
		while IFS= read -r line; do
			t_fail "$(printf '%s\n' "$line" | sed 's/ \\n /\n/g')"
		done < <(printf '%s\n' "$failures" | sed 's/ || /\n/g')
	fi
	t_end
done <"$tsv"

# check_rows WHAT AWK-FILTER CHECK...: among the rows the filter selects
# (fields: $1 name, $3 kind, $4 runner, $5 class, $6 endian, $7 outcome,
# $8 expected, $10 checks), each named check must be "pass" (or "n/a" when
# the name ends in ?). Fails when the filter selects no row, unless WHAT
# starts with "?".
check_rows() {
	local what=${1#\?} filter=$2 n=0 name outcome checks c want may_be_empty=0
	[ "$what" != "$1" ] && may_be_empty=1
	shift 2
	while IFS=$'\t' read -r name outcome checks; do
		n=$((n + 1))
		for c in "$@"; do
			want=pass
			case "$c" in *\?) c=${c%?} want='pass|n/a' ;; esac
			if ! printf '%s\n' " $checks " | grep_q " $c="; then
				t_fail "$name: $outcome, so no '$c' check ($checks)"
				break
			fi
			printf '%s\n' " $checks " | grep_q -E " $c=($want) " ||
				t_fail "$name: $c is not $want ($checks)"
		done
	done < <(awk -F'\t' "$filter { print \$1 \"\t\" \$7 \"\t\" \$10 }" "$tsv")
	[ "$n" -gt 0 ] || [ "$may_be_empty" = 1 ] || t_fail "no shape is $what"
	echo "# $what: $n shapes"
}

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

t_done
