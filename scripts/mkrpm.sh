#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# make rpm: build/elf-buildid-VERSION-1.ARCH.rpm and its -debuginfo
# package, with Debian's rpm (rpmbuild) and debugedit (find-debuginfo),
# from packaging/rpm/elf-buildid.spec: `make install PREFIX=/usr` into the
# build root, as make deb does (docs/packaging.md, "Releases").
#
# Usage: scripts/mkrpm.sh [OUTDIR]     (default OUTDIR: build)
# Environment: VERSION (default: scripts/version.sh), MAKE,
#   RPM_PACKAGER ("Name <email>"; default: make deb's Maintainer),
#   SOURCE_DATE_EPOCH (default, as make deb's: the commit time in a clean
#   checkout, else the mtime of VERSION, which a release tarball sets to
#   the commit time)
#
# The version: RPM's Version may not contain '-'; scripts/version.sh's
# never does (VERSION is digits, letters and dots; then ~git..., +git...,
# .dirty), so it is used verbatim, and it sorts in rpm as in dpkg: '~'
# before the release (rpm >= 4.10), '+git...' after it (a longer version
# whose next part is letters). Release is 1.
#
# Steps: rpmbuild -bb under build/rpm/top (--nodeps: Debian's rpm database
# is empty) compiles into build/rpm/obj with make deb's flags
# (dpkg-buildflags, hardening=+all, -ffile-prefix-map: the same bytes from
# another directory), installs into the build root, and find-debuginfo
# splits the debug info into the -debuginfo package, keyed by the
# linker's id (no re-seeding: the spec says why). File times are clamped
# to SOURCE_DATE_EPOCH, which is also the build time; the build host is
# "reproducible".
set -euo pipefail
export LC_ALL=C TZ=UTC

top=$(cd "$(dirname "$0")/.." && pwd -P)
out=${1:-$top/build}
me=mkrpm
die() { echo "$me: $*" >&2; exit 1; }
for c in rpmbuild rpm find-debuginfo debugedit dpkg-buildflags; do
	command -v "$c" >/dev/null 2>&1 ||
		die "$c not found (scripts/install-deps.sh ship installs rpm, debugedit and dpkg-dev)"
done
cd "$top"
MAKE=${MAKE:-make}
version=${VERSION:-$(scripts/version.sh)}
[[ "$version" =~ ^[0-9][A-Za-z0-9.+~]*$ ]] || die "version '$version' is not an RPM version"
packager=${RPM_PACKAGER:-elf-buildid maintainers <maintainers@users.noreply.a-seed-7d92e05f.example>}
SOURCE_DATE_EPOCH=$(scripts/version.sh --epoch) || die "scripts/version.sh --epoch failed"
export SOURCE_DATE_EPOCH

work=$top/build/rpm
rm -rf "$work/top"
mkdir -p "$work/top/tmp" "$out"
export DEB_BUILD_MAINT_OPTIONS=hardening=+all
cflags="$(dpkg-buildflags --get CFLAGS) $(dpkg-buildflags --get CPPFLAGS)"
ldflags=$(dpkg-buildflags --get LDFLAGS)
arch=$(rpm --eval '%{_arch}')

rpmbuild -bb --nodeps "$top/packaging/rpm/elf-buildid.spec" \
	--define "_topdir $work/top" --define "_tmppath $work/top/tmp" \
	--define "__make $MAKE" \
	--define "ebid_version $version" --define "ebid_srcdir $top" \
	--define "ebid_cflags $cflags" --define "ebid_ldflags $ldflags" \
	--define "ebid_date $(date -u -d "@$SOURCE_DATE_EPOCH" '+%a %b %d %Y')" \
	--define "packager $packager" >"$work/build.log" 2>&1 ||
	die "rpmbuild failed (build/rpm/build.log): $(tail -n 5 "$work/build.log")"

# copy_rpm NAME: RPMS/ARCH/NAME-VERSION-1.ARCH.rpm to OUTDIR, under a
# temporary name first.
copy_rpm() {
	local f=$1-$version-1.$arch.rpm
	[ -f "$work/top/RPMS/$arch/$f" ] || die "rpmbuild wrote no $f (build/rpm/build.log)"
	cp "$work/top/RPMS/$arch/$f" "$out/$f.tmp"
	mv -f "$out/$f.tmp" "$out/$f"
	echo "$me: ${out#"$top"/}/$f ($(stat -c %s "$out/$f") bytes)"
}
copy_rpm elf-buildid
copy_rpm elf-buildid-debuginfo
# The libraries and interpreters rpm's generators found, without their
# symbol versions.
echo "$me: Requires: $(rpm -qp --requires "$out/elf-buildid-$version-1.$arch.rpm" |
	grep -v '^rpmlib(' | sed 's/(.*//' | sort -u | paste -sd ' ')"
