#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# make deb: build/elf-buildid_VERSION_ARCH.deb from `make install` into a
# staging root, and build/dh-elf-buildid_VERSION_all.deb (the debhelper
# add-on) from `make install-debhelper` into another, plus the Debian
# metadata; no debian/ directory, no debhelper (docs/packaging.md,
# "Releases" says why).
#
# Usage: scripts/mkdeb.sh [OUTDIR]     (default OUTDIR: build)
# Environment: VERSION (default: scripts/version.sh), MAKE,
#   DEB_MAINTAINER ("Name <email>"), SOURCE_DATE_EPOCH (default: the
#   commit time in a checkout, else the mtime of VERSION, which a release
#   tarball sets to the commit time)
#
# Steps: the binary is compiled into build/deb/obj with dpkg-buildflags'
# CFLAGS and LDFLAGS (hardening, -ffile-prefix-map: the same bytes from
# another directory) and installed with PREFIX=/usr into build/deb/root;
# the binary is stripped (strip keeps the .note.gnu.build-id), the man pages
# gzip -9n'd, /usr/share/doc/PACKAGE/{copyright,changelog.gz} written, the
# copyright from LICENSE (which make install puts in the doc directory:
# Debian wants it in copyright only); Depends comes from dpkg-shlibdeps on
# the installed binary; dpkg-deb --root-owner-group builds, its file times
# clamped to SOURCE_DATE_EPOCH.
set -euo pipefail
export LC_ALL=C TZ=UTC

top=$(cd "$(dirname "$0")/.." && pwd -P)
out=${1:-$top/build}
me=mkdeb
die() { echo "$me: $*" >&2; exit 1; }
for c in dpkg-deb dpkg-shlibdeps dpkg-buildflags dpkg-architecture strip gzip; do
	command -v "$c" >/dev/null 2>&1 ||
		die "$c not found (scripts/install-deps.sh ship installs dpkg-dev)"
done
cd "$top"
MAKE=${MAKE:-make}
version=${VERSION:-$(scripts/version.sh)}
# dpkg's version syntax: no hyphen (a native package has no revision),
# starts with a digit; scripts/version.sh's rule already gives that.
[[ "$version" =~ ^[0-9][A-Za-z0-9.+~]*$ ]] || die "version '$version' is not a Debian native version"
arch=$(dpkg-architecture -qDEB_HOST_ARCH)
maint=${DEB_MAINTAINER:-elf-buildid maintainers <maintainers@users.noreply.a-seed-7d92e05f.example>}
SOURCE_DATE_EPOCH=$(scripts/version.sh --epoch) || die "scripts/version.sh --epoch failed"
export SOURCE_DATE_EPOCH

work=$top/build/deb
root=$work/root
dhroot=$work/root-dh
rm -rf "$root" "$dhroot" "$work/meta"
mkdir -p "$root" "$dhroot" "$work/meta/debian" "$out"

# The build: own objects, Debian's flags. DEB_BUILD_MAINT_OPTIONS: all
# hardening (bindnow, PIE; fortify needs -O, which the flags carry).
export DEB_BUILD_MAINT_OPTIONS=hardening=+all
cflags=$(dpkg-buildflags --get CFLAGS)
ldflags=$(dpkg-buildflags --get LDFLAGS)
cppflags=$(dpkg-buildflags --get CPPFLAGS)
mk() { # mk TARGET [VAR=VALUE...]: make with the package build's settings
	"$MAKE" --no-print-directory BUILD=build/deb/obj CFLAGS="$cflags $cppflags" \
		LDFLAGS="$ldflags" VERSION="$version" "$@" >&2
}
mk all
mk install DESTDIR="$root" PREFIX=/usr
mk install-debhelper DESTDIR="$dhroot" PREFIX=/usr

bin=$root/usr/bin/elf-buildid
id_before=$(readelf -n "$bin" | awk '/Build ID:/ { print $3 }')
strip --strip-unneeded --remove-section=.comment "$bin"
id_after=$(readelf -n "$bin" | awk '/Build ID:/ { print $3 }')
[ -n "$id_after" ] && [ "$id_after" = "$id_before" ] ||
	die "strip lost the build-id ('$id_before' -> '$id_after')"
gzip -9n "$root/usr/share/man/man1/elf-buildid.1" "$dhroot/usr/share/man/man1/dh_elf_buildid.1"

# copyright_text: debian/copyright's machine-readable form of LICENSE, its
# "Copyright (c) YEAR HOLDER" line and its text word for word (blank lines
# are " ." there).
copyright_text() {
	local holder
	holder=$(sed -n 's/^Copyright (c) //p' LICENSE)
	[ -n "$holder" ] || die "LICENSE has no 'Copyright (c) ...' line"
	printf '%s\n' \
		'Format: https://www.debian.org/doc/packaging-manuals/copyright-format/1.0/' \
		'Upstream-Name: elf-buildid' \
		'Comment: Every source file carries "SPDX-License-Identifier: MIT".' '' \
		'Files: *' "Copyright: $holder" 'License: MIT' '' 'License: MIT'
	sed -n '/^Permission is hereby granted/,$p' LICENSE | sed 's/^$/./; s/^/ /'
}

# write_doc ROOT PACKAGE: /usr/share/doc/PACKAGE/{copyright,changelog.gz};
# make install's LICENSE goes (its text is in copyright).
write_doc() {
	local doc=$1/usr/share/doc/$2
	install -d -m 0755 "$doc"
	rm -f "$doc/LICENSE"
	copyright_text >"$doc/copyright"
	# A native package (no Debian revision): the changelog is changelog.gz.
	{
		echo "elf-buildid ($version) unstable; urgency=medium"
		echo
		echo "  * Built by make deb from the source of this version."
		echo
		echo " -- $maint  $(date -R -d "@$SOURCE_DATE_EPOCH")"
	} | gzip -9n >"$doc/changelog.gz"
	chmod 0644 "$doc/copyright" "$doc/changelog.gz"
}
write_doc "$root" elf-buildid
write_doc "$dhroot" dh-elf-buildid

# Depends: what the binary links, by dpkg-shlibdeps (it wants a
# debian/control naming the package, nothing more).
printf 'Source: elf-buildid\n\nPackage: elf-buildid\nArchitecture: any\n' >"$work/meta/debian/control"
depends=$(cd "$work/meta" && dpkg-shlibdeps -O -e"$bin" 2>"$work/shlibdeps.err" |
	sed -n 's/^shlibs:Depends=//p') || true
[ -n "$depends" ] || die "dpkg-shlibdeps gave no Depends: $(cat "$work/shlibdeps.err")"

# finish_root ROOT: modes whatever the umask (install -d makes missing
# parents with it), DEBIAN/md5sums; prints the Installed-Size.
finish_root() {
	chmod -R u=rwX,go=rX "$1"
	install -d -m 0755 "$1/DEBIAN"
	(cd "$1" && find usr -type f -print0 | sort -z | xargs -0 md5sum) >"$1/DEBIAN/md5sums"
	du -sk --apparent-size --exclude=DEBIAN "$1" | cut -f1
}

size=$(finish_root "$root")
cat >"$root/DEBIAN/control" <<TXT
Package: elf-buildid
Version: $version
Architecture: $arch
Maintainer: $maint
Installed-Size: $size
Depends: $depends
Recommends: linux-perf
Suggests: dh-elf-buildid
Section: devel
Priority: optional
Description: give ELF binaries a GNU build-id the kernel and perf can see
 elf-buildid adds a GNU build-id note to ELF programs and shared libraries
 that lack one (Go programs, for example), in a place the kernel reads, so
 that perf, gdb and debuginfod can match profiles and debug files to the
 binary. It also checks ids (verify, a packaging gate), links debug files
 into a .build-id tree and audits profiles.
 .
 Under /usr/share/elf-buildid: a Makefile snippet, a go build wrapper, a
 packaging hook and Omnibus definitions; in /usr/lib/rpm/macros.d, the
 %elf_buildid_inject macro for RPM spec files.
TXT

# dh-sequence-elf-buildid: a Build-Depends on it turns the add-on on
# without --with (debhelper 12.5 and later).
dhsize=$(finish_root "$dhroot")
cat >"$dhroot/DEBIAN/control" <<TXT
Package: dh-elf-buildid
Source: elf-buildid
Version: $version
Architecture: all
Maintainer: $maint
Installed-Size: $dhsize
Depends: elf-buildid (>= $version), debhelper (>= 13)
Provides: dh-sequence-elf-buildid
Section: devel
Priority: optional
Multi-Arch: foreign
Description: debhelper add-on giving Go programs a GNU build-id
 dh_elf_buildid runs elf-buildid inject over the package build
 directories before dh_dwz and dh_strip, so that programs linked without a
 GNU build-id (Go programs built by dh-golang, for example) get one, and
 dh_strip builds their -dbgsym packages, keyed by that id for gdb, perf
 and debuginfod.
 .
 Enable it with "dh \$@ --with elf-buildid" or a Build-Depends on
 dh-sequence-elf-buildid.
TXT
chmod 0644 "$root/DEBIAN/control" "$root/DEBIAN/md5sums" \
	"$dhroot/DEBIAN/control" "$dhroot/DEBIAN/md5sums"

# build_deb ROOT FILE: dpkg-deb, written under a temporary name first.
build_deb() {
	dpkg-deb --root-owner-group -Zxz --build "$1" "$2.tmp" >&2
	mv -f "$2.tmp" "$2"
	echo "$me: ${2#"$top"/} ($(stat -c %s "$2") bytes)"
}
build_deb "$root" "$out/elf-buildid_${version}_$arch.deb"
build_deb "$dhroot" "$out/dh-elf-buildid_${version}_all.deb"
echo "$me: Depends: $depends"
