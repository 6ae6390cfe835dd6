#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# make deb: build/elf-buildid_VERSION_ARCH.deb from `make install` into a
# staging root, plus the Debian metadata; no debian/ directory, no
# debhelper (docs/packaging.md, "Releases" says why).
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
# the binary is stripped (strip keeps the .note.gnu.build-id), the man page
# gzip -9n'd, /usr/share/doc/elf-buildid/{copyright,changelog.gz} written;
# Depends comes from dpkg-shlibdeps on the installed binary; dpkg-deb
# --root-owner-group builds, its file times clamped to SOURCE_DATE_EPOCH.
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
if [ -z "${SOURCE_DATE_EPOCH:-}" ]; then
	SOURCE_DATE_EPOCH=$(git log -1 --format=%ct HEAD 2>/dev/null) || SOURCE_DATE_EPOCH=
	if [ -z "$SOURCE_DATE_EPOCH" ] || [ -n "$(git status --porcelain --untracked-files=no 2>/dev/null)" ] ||
		[ "$(git rev-parse --show-toplevel 2>/dev/null)" != "$top" ]; then
		SOURCE_DATE_EPOCH=$(stat -c %Y VERSION)
	fi
fi
export SOURCE_DATE_EPOCH

work=$top/build/deb
root=$work/root
rm -rf "$root" "$work/meta"
mkdir -p "$root" "$work/meta/debian" "$out"

# The build: own objects, Debian's flags. DEB_BUILD_MAINT_OPTIONS: all
# hardening (bindnow, PIE; fortify needs -O, which the flags carry).
export DEB_BUILD_MAINT_OPTIONS=hardening=+all
cflags=$(dpkg-buildflags --get CFLAGS)
ldflags=$(dpkg-buildflags --get LDFLAGS)
cppflags=$(dpkg-buildflags --get CPPFLAGS)
"$MAKE" --no-print-directory BUILD=build/deb/obj CFLAGS="$cflags $cppflags" \
	LDFLAGS="$ldflags" VERSION="$version" all >&2
"$MAKE" --no-print-directory BUILD=build/deb/obj CFLAGS="$cflags $cppflags" \
	LDFLAGS="$ldflags" VERSION="$version" install DESTDIR="$root" PREFIX=/usr >&2

bin=$root/usr/bin/elf-buildid
id_before=$(readelf -n "$bin" | awk '/Build ID:/ { print $3 }')
strip --strip-unneeded --remove-section=.comment "$bin"
id_after=$(readelf -n "$bin" | awk '/Build ID:/ { print $3 }')
[ -n "$id_after" ] && [ "$id_after" = "$id_before" ] ||
	die "strip lost the build-id ('$id_before' -> '$id_after')"
gzip -9n "$root/usr/share/man/man1/elf-buildid.1"

doc=$root/usr/share/doc/elf-buildid
install -d -m 0755 "$doc"
year=$(date -u -d "@$SOURCE_DATE_EPOCH" +%Y)
cat >"$doc/copyright" <<TXT
Format: https://www.debian.org/doc/packaging-manuals/copyright-format/1.0/
Upstream-Name: elf-buildid
Comment: Every source file carries "SPDX-License-Identifier: MIT".

Files: *
Copyright: $year elf-buildid maintainers
License: MIT

License: MIT
 Permission is hereby granted, free of charge, to any person obtaining a
 copy of this software and associated documentation files (the "Software"),
 to deal in the Software without restriction, including without limitation
 the rights to use, copy, modify, merge, publish, distribute, sublicense,
 and/or sell copies of the Software, and to permit persons to whom the
 Software is furnished to do so, subject to the following conditions:
 .
 The above copyright notice and this permission notice shall be included
 in all copies or substantial portions of the Software.
 .
 THE SOFTWARE IS PROVIDED "AS IS", WITHOUT WARRANTY OF ANY KIND, EXPRESS OR
 IMPLIED, INCLUDING BUT NOT LIMITED TO THE WARRANTIES OF MERCHANTABILITY,
 FITNESS FOR A PARTICULAR PURPOSE AND NONINFRINGEMENT. IN NO EVENT SHALL THE
 AUTHORS OR COPYRIGHT HOLDERS BE LIABLE FOR ANY CLAIM, DAMAGES OR OTHER
 LIABILITY, WHETHER IN AN ACTION OF CONTRACT, TORT OR OTHERWISE, ARISING
 FROM, OUT OF OR IN CONNECTION WITH THE SOFTWARE OR THE USE OR OTHER
 DEALINGS IN THE SOFTWARE.
TXT
chmod 0644 "$doc/copyright"
# A native package (no Debian revision): the changelog is changelog.gz.
{
	echo "elf-buildid ($version) unstable; urgency=medium"
	echo
	echo "  * Built by make deb from the source of this version."
	echo
	echo " -- $maint  $(date -R -d "@$SOURCE_DATE_EPOCH")"
} | gzip -9n >"$doc/changelog.gz"
chmod 0644 "$doc/changelog.gz"

# Depends: what the binary links, by dpkg-shlibdeps (it wants a
# debian/control naming the package, nothing more).
printf 'Source: elf-buildid\n\nPackage: elf-buildid\nArchitecture: any\n' >"$work/meta/debian/control"
depends=$(cd "$work/meta" && dpkg-shlibdeps -O -e"$bin" 2>"$work/shlibdeps.err" |
	sed -n 's/^shlibs:Depends=//p') || true
[ -n "$depends" ] || die "dpkg-shlibdeps gave no Depends: $(cat "$work/shlibdeps.err")"

# Modes whatever the umask (install -d makes missing parents with it).
chmod -R u=rwX,go=rX "$root"
install -d -m 0755 "$root/DEBIAN"
(cd "$root" && find usr -type f -print0 | sort -z | xargs -0 md5sum) >"$root/DEBIAN/md5sums"
size=$(du -sk --apparent-size --exclude=DEBIAN "$root" | cut -f1)
cat >"$root/DEBIAN/control" <<TXT
Package: elf-buildid
Version: $version
Architecture: $arch
Maintainer: $maint
Installed-Size: $size
Depends: $depends
Recommends: linux-perf
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
 packaging hook and Omnibus definitions.
TXT
chmod 0644 "$root/DEBIAN/control" "$root/DEBIAN/md5sums"

deb=$out/elf-buildid_${version}_$arch.deb
dpkg-deb --root-owner-group -Zxz --build "$root" "$deb.tmp" >&2
mv -f "$deb.tmp" "$deb"
echo "$me: ${deb#"$top"/} ($(stat -c %s "$deb") bytes)"
echo "$me: Depends: $depends"
