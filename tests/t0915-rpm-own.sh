#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# tier: slow (the .rpm)
# make rpm (issue 35): the project's own RPM, built by Debian's rpmbuild
# from packaging/rpm/elf-buildid.spec, as t0910 checks make deb's .deb.
# The package made in a clone and the one made from its release tarball,
# extracted elsewhere (umask 077), are the same bytes, -debuginfo
# included; rpm -qp shows the version verbatim, the fixed build host and
# SOURCE_DATE_EPOCH as build time and as every file's time; the Requires
# rpm's generators computed name every library the binary needs; rpm -qlp
# lists exactly the files of make install, owned by root, and rpm2cpio |
# cpio extracts them: the binary runs, readelf reads its id, the one of
# its .build-id links, the linker's (find-debuginfo did not re-seed it),
# and the -debuginfo package's .debug file carries it too. rpm -K checks
# the digests; rpmlint reports only the findings listed below, each with
# its reason. The version sorts the same in rpm as in dpkg. Installed
# with rpm --root into a scratch root (--nodeps: Debian's rpm database
# lists no library), the binary stamps a Go program and verifies it, and
# rpm -e leaves no file behind.
. "$(dirname "$0")/lib.sh"
not_with_sanitizers "make rpm in a clone" "make rpm builds its own binary in a clone"
require_deps ship
require_fixtures plain
private_home

. "$TOP/tests/ship-lib.sh"

arch=$(rpm --eval '%{_arch}')

t_begin "make rpm in a clone, and from its make dist tarball under /tmp (umask 077): the same bytes"
build_twice rpm
RPM=$SCRATCH/a/build/elf-buildid-$V-1.$arch.rpm
DBG=$SCRATCH/a/build/elf-buildid-debuginfo-$V-1.$arch.rpm
expect_true "no $RPM: $(cat "$SCRATCH/.a")" [ -f "$RPM" ]
expect_true "no $DBG: $(cat "$SCRATCH/.a")" [ -f "$DBG" ]
expect_match "mkrpm's Requires line" "$(cat "$SCRATCH/.a")" '^mkrpm: Requires: .*libelf\.so\.1'
expect_same_file "rpm from a and from b" "$RPM" "$B/build/elf-buildid-$V-1.$arch.rpm"
expect_same_file "debuginfo rpm from a and from b" "$DBG" "$B/build/elf-buildid-debuginfo-$V-1.$arch.rpm"
t_end

# SOURCE_DATE_EPOCH of make rpm in a clean clone: the commit time.
SDE=$(git -C "$SCRATCH/a" log -1 --format=%ct HEAD 2>/dev/null || stat -c %Y "$SCRATCH/a/VERSION")

t_begin "rpm -qp: name, version verbatim, release, arch, build host and time; Requires cover every NEEDED"
expect_exit 0 rpm -qp --qf '%{NAME} %{VERSION} %{RELEASE} %{ARCH} %{LICENSE} %{BUILDHOST} %{BUILDTIME}\n' "$RPM"
expect_eq "fields" "$out" "elf-buildid $V 1 $arch MIT reproducible $SDE"
expect_exit 0 rpm -qp --requires "$RPM"
requires=$out
mkdir -p x
(cd x && rpm2cpio "$RPM" | cpio -idm --quiet) 2>"$SCRATCH/.cpio.err"
expect_eq "rpm2cpio | cpio" "$(cat "$SCRATCH/.cpio.err")" ""
needed=$(readelf -dW x/usr/bin/elf-buildid | sed -n 's/.*(NEEDED).*\[\(.*\)\]/\1/p')
expect_match "NEEDED" "$needed" 'libelf'
for so in $needed; do
	expect_true "Requires lacks $so()(64bit): $requires" grep -qxF "$so()(64bit)" <<<"$requires"
done
expect_exit 0 rpm -qp --recommends "$RPM"
expect_eq "Recommends" "$out" perf
t_end

t_begin "rpm -qlp: exactly these files, root:root, each at SOURCE_DATE_EPOCH; rpm2cpio | cpio extracts them"
BID=$(readelf_ids x/usr/bin/elf-buildid)
expect_match "binary's build-id (readelf)" "$BID" '^[0-9a-f]{40}$'
expect_exit 0 rpm -qp --qf '[%{FILEMODES:perms} %{FILEUSERNAME}:%{FILEGROUPNAME} %{FILEMTIMES} %{FILENAMES}\n]' "$RPM"
listing=$out
expect_eq "entries not root:root" "$(awk '$2 != "root:root"' <<<"$listing")" ""
expect_eq "entries not at $SDE" "$(awk -v t="$SDE" '$3 != t' <<<"$listing")" ""
expect_eq "files" "$(awk '$1 !~ /^d/ { print $1, $4 }' <<<"$listing" | sort -k2)" "-rwxr-xr-x /usr/bin/elf-buildid
lrwxrwxrwx /usr/lib/.build-id/${BID:0:2}/${BID:2}
-rw-r--r-- /usr/lib/rpm/macros.d/macros.elf-buildid
-rw-r--r-- /usr/share/bash-completion/completions/elf-buildid
-rw-r--r-- /usr/share/doc/elf-buildid/LICENSE
-rw-r--r-- /usr/share/elf-buildid/elf-buildid.mk
-rwxr-xr-x /usr/share/elf-buildid/go-build-buildid
-rw-r--r-- /usr/share/elf-buildid/omnibus/elf_buildid.rb
-rw-r--r-- /usr/share/elf-buildid/omnibus/software/elf-buildid.rb
-rwxr-xr-x /usr/share/elf-buildid/package-hook.sh
-rw-r--r-- /usr/share/man/man1/elf-buildid.1.gz"
expect_eq "the packaged directories" "$(awk '$1 ~ /^d/ { print $4 }' <<<"$listing" | sort)" "/usr/lib/.build-id
/usr/lib/.build-id/${BID:0:2}
/usr/share/doc/elf-buildid
/usr/share/elf-buildid
/usr/share/elf-buildid/omnibus
/usr/share/elf-buildid/omnibus/software"
expect_eq "the .build-id link" "$(readlink "x/usr/lib/.build-id/${BID:0:2}/${BID:2}")" ../../../../usr/bin/elf-buildid
expect_exit 0 rpm -qp --licensefiles "$RPM"
expect_eq "%license" "$out" /usr/share/doc/elf-buildid/LICENSE
expect_same_file "LICENSE" x/usr/share/doc/elf-buildid/LICENSE "$SCRATCH/a/LICENSE"
expect_same_file "package hook" x/usr/share/elf-buildid/package-hook.sh "$SCRATCH/a/scripts/package-hook.sh"
expect_same_file "RPM macros" x/usr/lib/rpm/macros.d/macros.elf-buildid "$SCRATCH/a/packaging/rpm/macros.elf-buildid"
man_date=$(git -C "$SCRATCH/a" log -1 --format=%cd --date=format-local:%Y-%m-%d HEAD)
expect_eq "man page .TH" "$(zcat x/usr/share/man/man1/elf-buildid.1.gz | grep '^\.TH ')" \
	".TH ELF-BUILDID 1 \"$man_date\" \"elf-buildid $V\" \"User Commands\""
expect_exit 0 x/usr/bin/elf-buildid --version
expect_eq "--version" "$out" "elf-buildid $V"
expect_eq "debug sections left in the packaged binary" "$(readelf -SW x/usr/bin/elf-buildid | grep -c ' \.debug_')" 0
expect_eq "the kernel's reader (ebid.py)" "$(py_kernel x/usr/bin/elf-buildid)" "$BID"
t_end

t_begin "the id is the linker's (find-debuginfo -n), and the -debuginfo package's .debug file carries it"
expect_eq "id of build/rpm/obj/elf-buildid" "$(readelf_ids "$SCRATCH/a/build/rpm/obj/elf-buildid")" "$BID"
log=$(grep 'find-debuginfo' "$SCRATCH/a/build/rpm/build.log")
expect_match "find-debuginfo keeps the ids" "$log" 'find-debuginfo .* -n '
expect_false "find-debuginfo re-seeds: $log" grep -q 'build-id-seed' <<<"$log"
expect_exit 0 rpm -qlp "$DBG"
expect_match "rpm -qlp debuginfo" "$out" "^/usr/lib/debug/\\.build-id/${BID:0:2}/${BID:2}\\.debug\$"
mkdir -p dbg
(cd dbg && rpm2cpio "$DBG" | cpio -idm --quiet) 2>"$SCRATCH/.cpio.err"
expect_eq "rpm2cpio | cpio" "$(cat "$SCRATCH/.cpio.err")" ""
debug=dbg/usr/lib/debug/.build-id/${BID:0:2}/${BID:2}.debug
expect_true "$debug is not there" [ -f "$debug" ]
expect_eq "debug file's id (readelf)" "$(readelf_ids "$debug")" "$BID"
expect_eq "debug file's id (eu-readelf)" "$(eu_readelf_ids "$debug")" "$BID"
expect_match "debug file's DWARF" "$(readelf -SW "$debug")" ' \.debug_info '
expect_eq "the binary's debuglink" "$(readelf -p .gnu_debuglink x/usr/bin/elf-buildid | sed -n 's/^ *\[ *0\] *//p')" \
	"elf-buildid-$V-1.$arch.debug"
t_end

t_begin "rpm -K: the digests; rpmlint: only the known findings"
expect_exit 0 rpm -K "$RPM" "$DBG"
expect_match "rpm -K" "$out" "^$(re_quote "$RPM"): digests OK\$"
expect_match "rpm -K" "$out" "^$(re_quote "$DBG"): digests OK\$"
# What Debian's rpmlint 2.4 says with its default configuration (no
# distribution's), and why each is expected:
#   no-signature              make rpm does not sign (nor does make deb)
#   no-url-tag                the project has no home page yet
#   no-group-tag              Group is obsolete (Fedora dropped it)
#   invalid-license           the default configuration lists no licenses
#   manpage-not-compressed bz2, no-manual-page-for-binary: the default
#                             wants .bz2; Fedora and rpm's brp-compress gzip
#   env-script-interpreter    the kit's scripts run `/usr/bin/env bash`, as
#                             the .deb ships them
#   (debuginfo) unstripped-binary-or-object, shared-library-without-
#     dependency-information, no-documentation: a .debug file is that;
#     dangling-relative-symlink: its compat link points into the main package
known='^elf-buildid\.[a-z0-9_]+: [WE]: (no-signature|no-url-tag|no-group-tag|invalid-license MIT|manpage-not-compressed bz2 /usr/share/man/man1/elf-buildid\.1\.gz|no-manual-page-for-binary elf-buildid|env-script-interpreter /usr/share/elf-buildid/[a-z-]+(\.sh)? /usr/bin/env bash)$'
known_dbg='^elf-buildid-debuginfo\.[a-z0-9_]+: [WE]: (no-signature|no-url-tag|invalid-license MIT|no-documentation|unstripped-binary-or-object /usr/lib/debug/usr/bin/[^ ]+\.debug|shared-library-without-dependency-information /usr/lib/debug/usr/bin/[^ ]+\.debug|dangling-relative-symlink /usr/lib/debug/\.build-id/[0-9a-f]{2}/[0-9a-f]{38} \.\./\.\./\.\./\.build-id/[0-9a-f]{2}/[0-9a-f]{38})$'
run rpmlint "$RPM" "$DBG"
# 64: it found errors (all known, below); 66 would be a badness threshold.
expect_match "rpmlint exit" "$rc" '^(0|64)$'
findings=$(grep -E '^elf-buildid[^ ]*: [WE]: ' <<<"$out")
expect_match "rpmlint ran: $out $err" "$out" 'packages? and [0-9]+ specfiles? checked'
expect_eq "rpmlint's unexpected findings" "$(grep -v -E "$known" <<<"$findings" | grep -v -E "$known_dbg")" ""
t_end

t_begin "the version sorts in rpm as in dpkg: ~git before the release, +git after it, .dirty after its commit"
base=$(sed -n 1p "$SCRATCH/a/VERSION")
vers=("$base~git20261201000000.aaaaaaaaaaaa" "$base~git20261201000000.aaaaaaaaaaaa.dirty"
	"$base~git20261202000000.aaaaaaaaaaaa" "$base" "$base+git20261201000000.aaaaaaaaaaaa"
	"$base+git20261201000000.aaaaaaaaaaaa.dirty" "$base.1" "$V")
for x in "${vers[@]}"; do
	for y in "${vers[@]}"; do
		r=$(rpm --eval "%{lua: print(rpm.vercmp('$x', '$y'))}")
		if dpkg --compare-versions "$x" lt "$y"; then d=-1; elif [ "$x" = "$y" ]; then d=0; else d=1; fi
		expect_eq "rpm.vercmp($x, $y) against dpkg" "$r" "$d"
	done
done
t_end

t_begin "rpm --root=DIR -i --nodeps: installed, the binary runs; rpm -V clean; rpm -e leaves no file"
R=$SCRATCH/root
mkdir -p "$R"
rpmr=(rpm --root="$R" --dbpath=/var/lib/rpm)
expect_exit 0 "${rpmr[@]}" -i --nodeps "$RPM" "$DBG"
expect_exit 0 "${rpmr[@]}" -q elf-buildid elf-buildid-debuginfo
expect_eq "rpm -q" "$out" "elf-buildid-$V-1.$arch
elf-buildid-debuginfo-$V-1.$arch"
expect_exit 0 "${rpmr[@]}" -V --nodeps elf-buildid elf-buildid-debuginfo
expect_eq "rpm -V" "$out" ""
expect_exit 0 "$R/usr/bin/elf-buildid" --version
expect_eq "--version" "$out" "elf-buildid $V"
f=$(copy_fixture plain)
expect_exit 0 "$R/usr/bin/elf-buildid" inject "$f"
parse_id_line "$out" "$f"
expect_eq "readelf sees the id" "$(readelf_ids "$f")" "$id"
expect_exit 0 "$R/usr/bin/elf-buildid" verify --content-hash "$f"
expect_match "verify" "$out" "^PASS  $(re_quote "$f")  $id"
expect_exit 0 "${rpmr[@]}" -e elf-buildid-debuginfo elf-buildid
expect_eq "files left outside the database" "$(cd "$R" && find . -path ./var/lib/rpm -prune -o ! -type d -print)" ""
run "${rpmr[@]}" -q elf-buildid
expect_ne "rpm -q after rpm -e" "$rc" 0
t_end

t_done
