#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# Writes the golden --dry-run output of every compatibility-matrix shape
# (issue 13, item 10): OUTDIR/NAME.txt holds what `elf-buildid inject
# --dry-run` and `inject --dry-run --hash=md5` print for build/matrix/NAME
# (stdout, then stderr lines marked "stderr: ", then the exit status),
# run from inside the matrix directory so that no path shows. A change to
# where the planner puts things therefore shows as a diff of these files.
#
# Used by `make golden-update` (writes tests/golden/dry-run/) and by
# tests/t0360-golden-dry-run.sh (writes a scratch directory and compares).
#
# Usage: tests/golden/dry-run.sh EBID MATRIX-DIR OUTDIR [NAME...]
#   EBID        the elf-buildid binary
#   MATRIX-DIR  where scripts/build-matrix.sh put the shapes
#   OUTDIR      created if missing; NAME.txt files are (over)written
#   NAME...     shapes (default: every shape scripts/build-matrix.sh -l lists)
# A shape missing from MATRIX-DIR gets no file and is named on stderr; the
# exit status is then 1.
set -u
set -o pipefail
export LC_ALL=C

top=$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)
if [ $# -lt 3 ]; then
	sed -n '13,20s/^# \{0,1\}//p' "$0" >&2
	exit 64
fi
ebid=$(realpath -- "$1") || exit 1
matrix=$(realpath -- "$2") || exit 1
mkdir -p -- "$3" || exit 1
outdir=$(realpath -- "$3") || exit 1
shift 3

if [ $# -gt 0 ]; then
	names=("$@")
else
	mapfile -t names < <("$top/scripts/build-matrix.sh" -l | cut -f1) ||
		exit 1
	[ ${#names[@]} -gt 0 ] || {
		echo "dry-run.sh: scripts/build-matrix.sh -l listed no shape" >&2
		exit 1
	}
fi

# The commands each file records, in order.
variants=("inject --dry-run" "inject --dry-run --hash=md5")

# A line with the matrix and top directories taken out (bash only: a
# process per line would make this script slow).
norm() { # LINE
	local l=${1//"$matrix/"/}
	printf '%s\n' "${l//"$top/"/}"
}

# One command's record: the command line, what it printed, its status.
record() { # NAME ARGS...
	local name=$1 rc line
	shift
	printf '$ elf-buildid %s %s\n' "$*" "$name"
	"$ebid" "$@" "$name" >"$tmp/out" 2>"$tmp/err" </dev/null
	rc=$?
	while IFS= read -r line || [ -n "$line" ]; do
		norm "$line"
	done <"$tmp/out"
	while IFS= read -r line || [ -n "$line" ]; do
		norm "stderr: $line"
	done <"$tmp/err"
	printf 'exit %d\n' "$rc"
}

tmp=$(mktemp -d) || exit 1
trap 'rm -rf -- "$tmp"' EXIT
cd -- "$matrix" || exit 1
rc=0
for name in "${names[@]}"; do
	if [ ! -f "$name" ]; then
		echo "dry-run.sh: $matrix/$name is missing (make matrix)" >&2
		rc=1
		continue
	fi
	for v in "${variants[@]}"; do
		# shellcheck disable=SC2086 # the variant is words
		record "$name" $v
	done >"$outdir/$name.txt" || rc=1
done
exit "$rc"
