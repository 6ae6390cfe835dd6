#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# make dist: the release tarball of the commit HEAD, the same bytes from the
# same commit on every run and machine (docs/packaging.md, "Releases").
#
# Usage: scripts/dist.sh [OUTDIR]          (default OUTDIR: build)
# Writes OUTDIR/elf-buildid-VERSION.tar.gz, OUTDIR/elf-buildid-VERSION.tar.gz.sha256
# (one sha256sum line) and OUTDIR/omnibus/elf-buildid.rb (the Omnibus software
# definition scripts/omnibus/software/elf-buildid.rb with the version, the
# URL and the tarball's sha256 filled in).
#
# Content: the files of the commit HEAD (git archive), not of the work tree,
# so uncommitted edits can neither leak in nor make two runs differ; a work
# tree whose tracked files differ from HEAD is refused (DIST_DIRTY=1: pack
# HEAD anyway, with a warning). VERSION in the tarball holds the whole
# version string (scripts/version.sh --head), which the Makefile reads when
# it is not in a git checkout. Every entry under elf-buildid-VERSION/, in
# byte order of its name, owner and group 0 (numeric, no names), mtime the
# commit time, mode 0644 or 0755 (directories 0755), GNU tar format, then
# gzip -9n (no name, no time stamp).
# Environment: DIST_DIRTY=1, DIST_URL_BASE (where the tarball will be
# published, for the Omnibus definition; default: file:// of OUTDIR).
set -euo pipefail
export LC_ALL=C

top=$(cd "$(dirname "$0")/.." && pwd -P)
out=${1:-$top/build}
me=dist

die() { echo "$me: $*" >&2; exit 1; }
g() { git -C "$top" "$@"; }

gtop=$(g rev-parse --show-toplevel 2>/dev/null) ||
	die "$top is not a git checkout: a tarball is made from a commit"
[ "$(cd "$gtop" && pwd -P)" = "$top" ] || die "$top is not the top of its git checkout"
# A shallow clone would still pack the right files, but say so: the
# version's rule needs the tags, and CI clones are often shallow.
[ "$(g rev-parse --is-shallow-repository)" = false ] ||
	echo "$me: warning: shallow clone: a tag vRELEASE not fetched changes the version" >&2
if [ -n "$(g status --porcelain --untracked-files=no)" ]; then
	if [ "${DIST_DIRTY:-0}" = 1 ]; then
		echo "$me: warning: tracked files differ from HEAD; the tarball is HEAD's, without them" >&2
	else
		g status --short --untracked-files=no >&2
		die "tracked files differ from HEAD (above): commit them, or DIST_DIRTY=1 to pack HEAD without them"
	fi
fi

version=$("$top/scripts/version.sh" --head)
mtime=$(g log -1 --format=%ct HEAD)
name=elf-buildid-$version
mkdir -p "$out"
out=$(cd "$out" && pwd -P)
tarball=$out/$name.tar.gz

stage=$(mktemp -d "$out/.dist.XXXXXX")
trap 'rm -rf "$stage"' EXIT
g archive --format=tar --prefix="$name/" HEAD | tar -x -p -C "$stage"
printf '%s\n' "$version" >"$stage/$name/VERSION"

# The list gives the order (--no-recursion): the names as tar stores them
# (a directory's with its trailing slash) sorted byte-wise, so each
# directory comes before what it holds.
(cd "$stage" && find "$name" \( -type d -printf '%p/\0' \) -o -printf '%p\0' | sort -z |
	tar --null --no-recursion -T - -c -f - --format=gnu \
		--owner=0 --group=0 --numeric-owner --mtime="@$mtime" \
		--mode='u=rwX,go=rX') | gzip -9n >"$stage/out.tar.gz"
mv -f "$stage/out.tar.gz" "$tarball"
(cd "$out" && sha256sum "$name.tar.gz") >"$tarball.sha256.tmp"
mv -f "$tarball.sha256.tmp" "$tarball.sha256"
sha=$(cut -d' ' -f1 "$tarball.sha256")

# The Omnibus software definition of this release.
url_base=${DIST_URL_BASE:-file://$out}
mkdir -p "$out/omnibus"
sed -e "s|@VERSION@|$version|g" -e "s|@SHA256@|$sha|g" -e "s|@URL_BASE@|${url_base%/}|g" \
	"$top/scripts/omnibus/software/elf-buildid.rb" >"$out/omnibus/elf-buildid.rb.tmp"
mv -f "$out/omnibus/elf-buildid.rb.tmp" "$out/omnibus/elf-buildid.rb"

echo "$me: ${tarball#"$top"/} ($(stat -c %s "$tarball") bytes)"
echo "$me: $(cat "$tarball.sha256")"
echo "$me: ${out#"$top"/}/omnibus/elf-buildid.rb"
