#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# Builds the compatibility-matrix fixtures (issue 3) into build/matrix/: one
# file per shape, named after the shape. The shapes and how each is built
# are make rules in mk/matrix/shapes.mk (Go internal linking for every
# GOARCH, cgo, external linking and c-shared, C from gcc and clang with four
# linkers, hello-world and real-size, and files crafted from those); it
# picks shapes by name, glob or group, runs make -k on them and sums up.
#
# Cached: a shape is rebuilt only when it is older than its sources,
# mk/matrix/shapes.mk, scripts/matrix-craft.py and tests/ebid.py (crafted
# shapes) or the toolchain versions. Runs at the same time take turns.
# Go's build cache lives in build/go/cache (shared with build-fixtures.sh).
#
# Usage: scripts/build-matrix.sh [-f] [-l] [-j N] [SHAPE|GLOB|GROUP...]
#   -f   rebuild even when up to date
#   -l   list the shapes, one a line: NAME<TAB>GROUP<TAB>KIND<TAB>RUNNER<TAB>NOTE
#        KIND is exe or lib; RUNNER is native or qemu-ARCH (how to run it;
#        qemu-ARCH with -L build/matrix/sysroot/ARCH when that exists);
#        NOTE says how it was made. Nothing is built.
#   -j N build N shapes at a time (default 1)
#   GLOB matches shape names ('go-s390x*'); GROUP is one of: go goext c real
#   crafted. Default: every shape.
# Environment: EBID_MATRIX (output directory, default build/matrix),
#   EBID_GOCACHE (Go build cache, default build/go/cache)
set -u
set -o pipefail

top=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
out=$(realpath -m "${EBID_MATRIX:-$top/build/matrix}")
# The make that runs the rules answers to this script's options only, not
# to those of a make that may have started it. It runs in the caller's
# directory, as the recipes always have: gcc -g records it (DW_AT_comp_dir).
mk=(env -u MAKEFLAGS -u MFLAGS -u MAKELEVEL EBID_MATRIX="$out"
	make --no-print-directory -f "$top/mk/matrix/shapes.mk")

die() {
	echo "build-matrix: $*" >&2
	exit 1
}

force=0
list=0
jobs=1
while [ $# -gt 0 ]; do
	case "$1" in
	-f) force=1 ;;
	-l) list=1 ;;
	-j)
		[ $# -ge 2 ] || die "-j needs a number"
		jobs=$2
		shift
		;;
	-h | --help)
		sed -n '3,24s/^# \{0,1\}//p' "$0"
		exit 0
		;;
	-*) die "unknown option '$1'" ;;
	*) break ;;
	esac
	shift
done

# The shape table: NAME GROUP KIND RUNNER NOTE BASE PLACEHOLDER, in its
# order ("-" for no base, no placeholder Go build id); -l prints NAME GROUP
# KIND RUNNER NOTE PLACEHOLDER.
names=()
declare -A s_group s_row s_base
while IFS=$'\t' read -r n g k r note b ph; do
	names+=("$n")
	s_group[$n]=$g
	s_row[$n]=$n$'\t'$g$'\t'$k$'\t'$r$'\t'$note$'\t'$ph
	[ "$b" = - ] && b=
	s_base[$n]=$b
done < <("${mk[@]}" -s list)
[ "${#names[@]}" -gt 0 ] || die "no shapes from mk/matrix/shapes.mk"

# Which shapes: names and groups given, else all.
want=()
if [ $# -eq 0 ]; then
	want=("${names[@]}")
else
	for arg in "$@"; do
		found=0
		for n in "${names[@]}"; do
			# shellcheck disable=SC2053 # $arg may be a glob
			if [[ $n == $arg ]] || [ "${s_group[$n]}" = "$arg" ]; then
				want+=("$n")
				found=1
			fi
		done
		[ "$found" = 1 ] || die "unknown shape or group '$arg' (see -l)"
	done
fi

if [ "$list" = 1 ]; then
	for n in "${want[@]}"; do
		printf '%s\n' "${s_row[$n]}"
	done
	exit 0
fi

# Crafted shapes pull in their bases (make builds those first).
order=()
declare -A queued
for n in "${want[@]}"; do
	for m in ${s_base[$n]:+"${s_base[$n]}"} "$n"; do
		[ -n "${queued[$m]:-}" ] && continue
		order+=("$m")
		queued[$m]=1
	done
done

mkdir -p "$out" || die "cannot create $out"
# Two makes must not write the same shape at once (tests run in parallel).
exec 9>>"$out/.lock" || die "cannot open $out/.lock"
flock 9 || die "cannot lock $out/.lock"
stamp=$(mktemp "$out/.build-matrix.XXXXXX") || die "cannot write in $out"
for n in "${order[@]}"; do
	rm -f "$out/.$n.log"
done
start=$(date +%s%N)
rebuild=()
[ "$force" = 1 ] && rebuild=(-B)
"${mk[@]}" -k -j "$jobs" ${rebuild[@]+"${rebuild[@]}"} \
	matrix-sysroot "$out/loader" "${order[@]/#/$out/}" 9>&-
rc=$?
end=$(date +%s%N)

# Built: newer than the start; failed: its log was kept, or it is missing.
built=0
failed=()
for n in "${order[@]}"; do
	if [ -f "$out/.$n.log" ] || [ ! -f "$out/$n" ]; then
		failed+=("$n")
	elif [ "$out/$n" -nt "$stamp" ]; then
		built=$((built + 1))
	fi
done
rm -f "$stamp"
[ "$rc" = 0 ] && [ "${#failed[@]}" = 0 ] || rc=1
ms=$(((end - start) / 1000000))
printf 'build-matrix: %d of %d shapes built in %d.%01d s%s\n' "$built" "${#order[@]}" \
	$((ms / 1000)) $((ms % 1000 / 100)) "${failed[*]:+; failed: ${failed[*]}}" >&2
exit "$rc"
