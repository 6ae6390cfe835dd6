#!/bin/sh
# SPDX-License-Identifier: MIT
# Prints elf-buildid's version: the one rule, used by the Makefile (the
# binary's --version, make deb) and by scripts/dist.sh (the tarball).
#
# Usage: scripts/version.sh [--head | --epoch]
#   --head  the version of the commit HEAD, ignoring uncommitted changes
#           (what `make dist` packs); refuses outside a git checkout
#   --epoch the time make deb and make rpm stamp their packages with:
#           SOURCE_DATE_EPOCH when set; else, in a git checkout of this
#           directory whose tracked files are HEAD's, HEAD's commit time;
#           else the mtime of VERSION (a release tarball sets it to the
#           commit time)
#
# The top-level file VERSION holds the release number, for example 0.1.0.
# In a git checkout of this directory (not merely inside some other
# repository) git says where HEAD stands from the tag vRELEASE:
#   HEAD is tagged vRELEASE         0.1.0
#   vRELEASE is an ancestor of HEAD 0.1.0+git20261201184512.bf93aa9c1234
#   no tag vRELEASE (yet)           0.1.0~git20261201184512.bf93aa9c1234
# with the commit time (UTC) and 12 hex digits of the commit, and ".dirty"
# appended when tracked files differ from HEAD (not with --head). "~" sorts
# before the release and "+" after it, for dpkg as for people, so the same
# string is the tarball's, the binary's and the Debian package's version.
# Outside a git checkout (an extracted release tarball) VERSION holds the
# whole string, written there by `make dist`, and is printed as it is.
set -eu
top=$(cd "$(dirname "$0")/.." && pwd -P)
head_only=0 epoch=0
[ "${1:-}" = --head ] && head_only=1
[ "${1:-}" = --epoch ] && epoch=1

fail() { echo "version.sh: $*" >&2; exit 1; }

in_git=0
if command -v git >/dev/null 2>&1 &&
	gtop=$(git -C "$top" rev-parse --show-toplevel 2>/dev/null) &&
	[ "$(cd "$gtop" && pwd -P)" = "$top" ]; then
	in_git=1
fi

if [ "$epoch" = 1 ]; then
	if [ -n "${SOURCE_DATE_EPOCH:-}" ]; then
		printf '%s\n' "$SOURCE_DATE_EPOCH"
	elif [ "$in_git" = 1 ] && t=$(git -C "$top" log -1 --format=%ct HEAD 2>/dev/null) &&
		[ -n "$t" ] && [ -z "$(git -C "$top" status --porcelain --untracked-files=no 2>/dev/null)" ]; then
		printf '%s\n' "$t"
	else
		stat -c %Y "$top/VERSION" || fail "no $top/VERSION"
	fi
	exit 0
fi

if [ "$in_git" = 0 ]; then
	[ "$head_only" = 0 ] || fail "$top is not a git checkout"
	[ -r "$top/VERSION" ] || fail "no $top/VERSION"
	v=$(sed -n '1p' "$top/VERSION")
	[ -n "$v" ] || fail "$top/VERSION is empty"
	printf '%s\n' "$v"
	exit 0
fi

g() { git -C "$top" "$@"; }
if [ "$head_only" = 1 ]; then
	rel=$(g show HEAD:VERSION 2>/dev/null | sed -n '1p') || true
else
	rel=$(sed -n '1p' "$top/VERSION" 2>/dev/null) || true
fi
case "$rel" in
[0-9]*) ;;
*) fail "VERSION must start with the release number (got '$rel')" ;;
esac
case "$rel" in
*[!0-9A-Za-z.]*) fail "VERSION '$rel': only digits, letters and dots" ;;
esac

head=$(g rev-parse --verify -q HEAD^{commit}) || fail "no commit at HEAD"
tag=$(g rev-parse --verify -q "refs/tags/v$rel^{commit}" 2>/dev/null) || tag=
if [ "$tag" = "$head" ]; then
	v=$rel
else
	when=$(TZ=UTC g log -1 --format=%cd --date=format-local:%Y%m%d%H%M%S HEAD)
	short=$(g rev-parse --short=12 HEAD)
	if [ -n "$tag" ] && g merge-base --is-ancestor "$tag" HEAD; then
		v="$rel+git$when.$short"
	else
		v="$rel~git$when.$short"
	fi
fi
if [ "$head_only" = 0 ] && [ -n "$(g status --porcelain --untracked-files=no 2>/dev/null)" ]; then
	v="$v.dirty"
fi
printf '%s\n' "$v"
