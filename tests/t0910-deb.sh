#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# tier: slow (the .deb)
# make deb (issue 14, item 2): the package made in a clone and the one made
# from its release tarball, extracted elsewhere, are the same bytes; dpkg-deb -I shows the Depends that
# dpkg-shlibdeps computes and that cover every library the binary needs
# (readelf NEEDED -> ldconfig -> dpkg -S); dpkg-deb -c lists exactly the
# files of make install plus the Debian ones, owned by root; lintian is
# clean; the man page carries the version, copyright the text of LICENSE.
# The debhelper add-on's package (dh-elf-buildid, Architecture: all) is
# built alongside, the same bytes too, lintian clean, and installs next to
# it (t0940 runs the add-on itself). Installed with dpkg into a scratch
# root whose admin directory is a
# copy of this system's (so Depends are checked against the libraries
# really installed, not forced), the binary runs with the host's libraries,
# stamps a Go program and verifies it; dpkg -P then leaves nothing behind.
. "$(dirname "$0")/lib.sh"
not_with_sanitizers "make deb in a clone" "make deb builds its own binary in a clone"
require_deps ship
require_fixtures plain

. "$TOP/tests/ship-lib.sh"

arch=$(dpkg --print-architecture)

t_begin "make deb in a clone, and from its make dist tarball under /tmp (umask 077): the same bytes"
build_twice deb
DEB=$SCRATCH/a/build/elf-buildid_${V}_$arch.deb
expect_true "no $DEB" [ -f "$DEB" ]
expect_same_file "deb from a and from b" "$DEB" "$B/build/elf-buildid_${V}_$arch.deb"
DHDEB=$SCRATCH/a/build/dh-elf-buildid_${V}_all.deb
expect_same_file "dh-elf-buildid deb from a and from b" "$DHDEB" "$B/build/dh-elf-buildid_${V}_all.deb"
t_end

t_begin "dpkg-deb -I: name, version, arch, Recommends, and the Depends dpkg-shlibdeps computes"
expect_exit 0 dpkg-deb -f "$DEB" Package Version Architecture Recommends
expect_eq "fields" "$out" "Package: elf-buildid
Version: $V
Architecture: $arch
Recommends: linux-perf"
depends=$(dpkg-deb -f "$DEB" Depends)
mkdir -p x/debian
dpkg-deb -x "$DEB" x
printf 'Source: s\n\nPackage: p\nArchitecture: any\n' >x/debian/control
want=$(cd x && dpkg-shlibdeps -O -eusr/bin/elf-buildid 2>/dev/null | sed -n 's/^shlibs:Depends=//p')
expect_eq "Depends" "$depends" "$want"
for p in libc6 libelf1 libssl3 zlib1g; do
	expect_match "Depends names $p" "$depends" "(^|, )$p( |,|\$)"
done
t_end

t_begin "every library the binary needs (NEEDED) is in a package Depends names"
needed=$(readelf -dW x/usr/bin/elf-buildid | sed -n 's/.*(NEEDED).*\[\(.*\)\]/\1/p')
expect_match "NEEDED" "$needed" 'libelf'
for so in $needed; do
	path=$(ldconfig -p | awk -v so="$so" '$1 == so && /x86-64|AArch64|64bit/ { print $NF; exit }')
	[ -n "$path" ] || path=$(ldconfig -p | awk -v so="$so" '$1 == so { print $NF; exit }')
	pkg=$(dpkg -S "$(readlink -f "$path")" 2>/dev/null | head -n 1 | cut -d: -f1)
	[ -n "$pkg" ] || pkg=$(dpkg -S "$path" 2>/dev/null | head -n 1 | cut -d: -f1)
	expect_match "$so ($path) is in package '$pkg', which Depends names ($depends)" \
		"$depends" "(^|, )$(re_quote "$pkg")( |,|\$)"
done
t_end

t_begin "dpkg-deb -c: exactly these files, root:root, man page gzipped, build-id kept"
listing=$(dpkg-deb -c "$DEB")
n_bad=$(awk '$2 != "root/root"' <<<"$listing" | wc -l)
expect_eq "entries not root/root" "$n_bad" 0
files=$(awk '$1 !~ /^d/ { print $6 }' <<<"$listing" | sort)
expect_eq "files" "$files" "./usr/bin/elf-buildid
./usr/lib/rpm/macros.d/macros.elf-buildid
./usr/share/bash-completion/completions/elf-buildid
./usr/share/doc/elf-buildid/changelog.gz
./usr/share/doc/elf-buildid/copyright
./usr/share/elf-buildid/elf-buildid.mk
./usr/share/elf-buildid/go-build-buildid
./usr/share/elf-buildid/omnibus/elf_buildid.rb
./usr/share/elf-buildid/omnibus/software/elf-buildid.rb
./usr/share/elf-buildid/package-hook.sh
./usr/share/man/man1/elf-buildid.1.gz"
expect_match "modes" "$(grep -E 'bin/elf-buildid$|go-build-buildid$|package-hook.sh$' <<<"$listing" | awk '{ print $1 }' | sort -u)" '^-rwxr-xr-x$'
# The page is docs/elf-buildid.1 but for the .TH line: the version and the
# commit's date (make deb's SOURCE_DATE_EPOCH in a clean clone).
man_date=$(git -C "$SCRATCH/a" log -1 --format=%cd --date=format-local:%Y-%m-%d HEAD)
zcat x/usr/share/man/man1/elf-buildid.1.gz >"$SCRATCH/man.1"
expect_eq "man page .TH" "$(grep '^\.TH ' "$SCRATCH/man.1")" \
	".TH ELF-BUILDID 1 \"$man_date\" \"elf-buildid $V\" \"User Commands\""
expect_same_file "man page but .TH" <(grep -v '^\.TH ' "$SCRATCH/man.1") \
	<(grep -v '^\.TH ' "$SCRATCH/a/docs/elf-buildid.1")
# copyright: LICENSE's holder line and text, in debian/copyright's form.
expect_match "copyright holder" "$(cat x/usr/share/doc/elf-buildid/copyright)" \
	"^Copyright: $(re_quote "$(sed -n 's/^Copyright (c) //p' "$SCRATCH/a/LICENSE")")\$"
expect_same_file "copyright carries LICENSE's text" \
	<(sed -n '/^ Permission is hereby granted/,$p' x/usr/share/doc/elf-buildid/copyright | sed 's/^ //; s/^\.$//') \
	<(sed -n '/^Permission is hereby granted/,$p' "$SCRATCH/a/LICENSE")
expect_same_file "package hook" x/usr/share/elf-buildid/package-hook.sh "$SCRATCH/a/scripts/package-hook.sh"
expect_match "binary's build-id (readelf)" "$(readelf_ids x/usr/bin/elf-buildid)" '^[0-9a-f]{40}$'
n=$(readelf -SW x/usr/bin/elf-buildid | grep -c ' \.debug_')
expect_eq "debug sections left in the packaged binary" "$n" 0
(cd x && md5sum --quiet -c <(dpkg-deb -I "$DEB" md5sums)) >"$SCRATCH/.md5" 2>&1
st=$?
expect_eq "md5sums: $(cat "$SCRATCH/.md5")" "$st" 0
t_end

t_begin "lintian: no tag at all (--pedantic, -I, -E)"
run lintian --no-cfg --pedantic -I -E "$DEB"
expect_eq "lintian exit" "$rc" 0
expect_eq "lintian tags" "$out" ""
t_end

t_begin "dh-elf-buildid: fields, exactly its files, lintian clean (--pedantic, -I, -E)"
expect_exit 0 dpkg-deb -f "$DHDEB" Package Source Version Architecture Depends Provides
expect_eq "fields" "$out" "Package: dh-elf-buildid
Source: elf-buildid
Version: $V
Architecture: all
Depends: elf-buildid (>= $V), debhelper (>= 13)
Provides: dh-sequence-elf-buildid"
listing=$(dpkg-deb -c "$DHDEB")
expect_eq "entries not root/root" "$(awk '$2 != "root/root"' <<<"$listing" | wc -l)" 0
expect_eq "files" "$(awk '$1 !~ /^d/ { print $6 }' <<<"$listing" | sort)" "./usr/bin/dh_elf_buildid
./usr/share/doc/dh-elf-buildid/changelog.gz
./usr/share/doc/dh-elf-buildid/copyright
./usr/share/man/man1/dh_elf_buildid.1.gz
./usr/share/perl5/Debian/Debhelper/Sequence/elf_buildid.pm"
mkdir -p dh
dpkg-deb -x "$DHDEB" dh
expect_same_file "dh_elf_buildid" dh/usr/bin/dh_elf_buildid "$SCRATCH/a/packaging/debian/dh_elf_buildid"
expect_same_file "copyright" dh/usr/share/doc/dh-elf-buildid/copyright x/usr/share/doc/elf-buildid/copyright
expect_match "its man page names it" "$(zcat dh/usr/share/man/man1/dh_elf_buildid.1.gz | grep -A1 '^\.SH "*NAME')" 'dh_elf_buildid \\- '
run lintian --no-cfg --pedantic -I -E "$DHDEB"
expect_eq "lintian exit" "$rc" 0
expect_eq "lintian tags" "$out" ""
t_end

# A scratch root for dpkg, its admin directory seeded with this system's
# package status, so that dpkg checks Depends against what is installed.
R=$SCRATCH/root
mkdir -p "$R/var/lib/dpkg/info" "$R/var/lib/dpkg/updates" "$R/var/lib/dpkg/triggers"
cp /var/lib/dpkg/status "$R/var/lib/dpkg/status"
before=$(cd "$R" && find . -path ./var/lib/dpkg -prune -o -print | sort)

t_begin "Depends are real: dpkg refuses the package in a root where nothing is installed"
E=$SCRATCH/empty
mkdir -p "$E/var/lib/dpkg/info" "$E/var/lib/dpkg/updates"
: >"$E/var/lib/dpkg/status"
expect_exit 1 dpkg --root="$E" -i "$DEB"
expect_match "dpkg names libelf1" "$err$out" 'depends on libelf1'
t_end

t_begin "dpkg --root=DIR -i (no --force-depends): installed, the binary runs with the host's libraries"
expect_exit 0 dpkg --root="$R" -i "$DEB"
expect_exit 0 dpkg --root="$R" -s elf-buildid
expect_match "status" "$out" '^Status: install ok installed$'
expect_exit 0 "$R/usr/bin/elf-buildid" --version
expect_eq "--version" "$out" "elf-buildid $V"
f=$(copy_fixture plain)
expect_exit 0 "$R/usr/bin/elf-buildid" inject "$f"
parse_id_line "$out" "$f"
expect_eq "readelf sees the id" "$(readelf_ids "$f")" "$id"
expect_eq "the kernel's reader (ebid.py) sees the id" "$(py_kernel "$f")" "$id"
expect_exit 0 "$R/usr/bin/elf-buildid" verify --content-hash "$f"
expect_match "verify" "$out" "^PASS  $(re_quote "$f")  $id"
expect_exit 0 dpkg --root="$R" -i "$DHDEB"
expect_exit 0 dpkg --root="$R" -s dh-elf-buildid
expect_match "dh-elf-buildid status" "$out" '^Status: install ok installed$'
expect_exit 0 perl -I"$R/usr/share/perl5" -c "$R/usr/bin/dh_elf_buildid"
t_end

t_begin "dpkg --root=DIR -P: nothing of the packages is left"
expect_exit 0 dpkg --root="$R" -P dh-elf-buildid elf-buildid
after=$(cd "$R" && find . -path ./var/lib/dpkg -prune -o -print | sort)
expect_eq "the root outside var/lib/dpkg" "$after" "$before"
expect_eq "dpkg's own files of the packages" "$(ls "$R/var/lib/dpkg/info" | grep -c -E '^(dh-)?elf-buildid\.')" 0
run dpkg --root="$R" -s elf-buildid
expect_ne "dpkg -s after purge" "$rc" 0
t_end

t_done
