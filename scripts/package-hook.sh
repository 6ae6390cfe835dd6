#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# Packaging hook: give every program and shared library under an install
# tree a build-id, split its debug info into a build-id debug tree, and
# check the result. For packagers without a Ruby hook (see
# scripts/omnibus/elf_buildid.rb for Omnibus); docs/packaging.md explains.
#
# Usage: package-hook.sh [OPTIONS] INSTALL_DIR DEBUG_DIR
#   -j N             parallel jobs for elf-buildid (default: its own)
#   --exclude=GLOB   leave matching files alone (repeatable; passed to
#                    inject, verify)
#   --manifest=FILE  write elf-buildid's JSON manifest of the final files
#                    (ids, sha256 after stripping) as they will be packaged
#   --no-split       only inject and verify (no debug files, no strip)
#   -h, --help       this text
# Per file, in this order:
#   elf-buildid inject -r  ->  objcopy --only-keep-debug  ->
#   strip --strip-debug (programs) / --strip-unneeded (*.so, *.so.*)  ->
#   objcopy --add-gnu-debuglink  ->  elf-buildid link --debug-dir
# then elf-buildid verify -r over the tree. The debug file of FILE with id
# ID ends up at DEBUG_DIR/.build-id/ID[0:2]/ID[2:].debug, where gdb, perf
# and debuginfod look. A second run changes nothing: files that already
# carry a .gnu_debuglink are only checked for their debug file.
# Environment: ELF_BUILDID (default elf-buildid), OBJCOPY (objcopy), STRIP
# (strip), READELF (readelf): for another target architecture use its
# binutils (e.g. OBJCOPY=aarch64-linux-gnu-objcopy).
# Exit status: 0 done; 1 a step failed (the message says which); 64 usage.
set -u
set -o pipefail

prog=package-hook
EBID=${ELF_BUILDID:-elf-buildid}
OBJCOPY=${OBJCOPY:-objcopy}
STRIP=${STRIP:-strip}
READELF=${READELF:-readelf}

usage() { sed -n '8,16s/^# \{0,1\}//p' "$0"; }
die() { echo "$prog: $*" >&2; exit 1; }
usage_error() {
	echo "$prog: $*" >&2
	echo "Try '$0 --help' for more information." >&2
	exit 64
}

jobs=()
excludes=()
manifest=()
split=1
while [ $# -gt 0 ]; do
	case "$1" in
	-h | --help) usage; exit 0 ;;
	-j) [ $# -ge 2 ] || usage_error "-j needs a number"; jobs=(-j "$2"); shift 2 ;;
	-j*) jobs=(-j "${1#-j}"); shift ;;
	--exclude=*) excludes+=("$1"); shift ;;
	--exclude) [ $# -ge 2 ] || usage_error "--exclude needs a GLOB"; excludes+=("--exclude=$2"); shift 2 ;;
	--manifest=*) manifest=("$1"); shift ;;
	--manifest) [ $# -ge 2 ] || usage_error "--manifest needs a FILE"; manifest=("--manifest=$2"); shift 2 ;;
	--no-split) split=0; shift ;;
	--) shift; break ;;
	-*) usage_error "unknown option '$1'" ;;
	*) break ;;
	esac
done
[ $# -eq 2 ] || usage_error "want INSTALL_DIR and DEBUG_DIR"
tree=$1
debug_dir=$2
[ -d "$tree" ] || die "'$tree': not a directory"
case "$debug_dir" in
/*) ;;
*) debug_dir=$PWD/$debug_dir ;;
esac
for t in "$EBID" "$OBJCOPY" "$STRIP" "$READELF"; do
	command -v "$t" >/dev/null 2>&1 || die "'$t' not found"
done

stage=$(mktemp -d "${TMPDIR:-/tmp}/package-hook.XXXXXX") || die "cannot make a temporary directory"
trap 'rm -rf "$stage"' EXIT

# 1. Ids for every program and shared library: "ID  PATH" per handled file
# (each inode once; scripts, objects and symlinks out of the tree skipped).
"$EBID" inject -r ${jobs[@]+"${jobs[@]}"} ${excludes[@]+"${excludes[@]}"} \
	"$tree" >"$stage/ids" ||
	die "elf-buildid inject -r '$tree' failed (see above)"

if [ "$split" = 1 ]; then
	mkdir -p "$debug_dir" || die "cannot create '$debug_dir'"
	n=0
	while IFS= read -r line; do
		id=${line%%  *}
		f=${line#*  }
		[ -n "$id" ] && [ "$f" != "$line" ] || die "unexpected inject output: '$line'"
		want=$debug_dir/.build-id/${id:0:2}/${id:2}.debug
		if "$READELF" -SW "$f" 2>/dev/null | grep -q ' \.gnu_debuglink '; then
			# Split before (a second run, or by the build itself).
			[ -f "$want" ] ||
				die "'$f': has a .gnu_debuglink but '$want' does not exist"
			continue
		fi
		n=$((n + 1))
		dbg=$stage/$n/$(basename "$f").debug
		mkdir -p "$stage/$n"
		case "$(basename "$f")" in
		*.so | *.so.*) sflags=--strip-unneeded ;;
		*) sflags=--strip-debug ;;
		esac
		# 2.-5. debug copy, strip, debuglink, debug tree.
		"$OBJCOPY" --only-keep-debug "$f" "$dbg" ||
			die "'$f': $OBJCOPY --only-keep-debug failed"
		"$STRIP" "$sflags" "$f" || die "'$f': $STRIP $sflags failed"
		"$OBJCOPY" --add-gnu-debuglink="$dbg" "$f" ||
			die "'$f': $OBJCOPY --add-gnu-debuglink failed"
		"$EBID" link --debug-dir="$debug_dir" --debug-file="$dbg" "$f" >/dev/null ||
			die "'$f': elf-buildid link --debug-dir failed"
	done <"$stage/ids"
fi

# The record of what ships: inject again over the final files (a no-op that
# rewrites nothing: every id is already there) just for its manifest.
if [ ${#manifest[@]} -gt 0 ]; then
	"$EBID" inject -r -q ${jobs[@]+"${jobs[@]}"} ${excludes[@]+"${excludes[@]}"} \
		"${manifest[@]}" "$tree" 2>"$stage/manifest.err" || {
		cat "$stage/manifest.err" >&2
		die "elf-buildid inject -r --manifest '$tree' failed"
	}
fi

# 6. The gate: every id present, kernel-visible, unique (not --content-hash:
# stripping changed the bytes on purpose).
"$EBID" verify -r ${jobs[@]+"${jobs[@]}"} ${excludes[@]+"${excludes[@]}"} "$tree" ||
	die "elf-buildid verify -r '$tree' failed (see above)"
exit 0
