#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# tier: slow
# The RPM macros (issue 23; docs/packaging.md, "RPM packages"), with
# Debian's rpm (rpmbuild) and debugedit (find-debuginfo): a spec that
# builds a Go program, with %_missing_build_ids_terminate_build on and
# %debug_package (Debian's rpm, unlike Fedora's redhat-rpm-config, does
# not add it by itself). Without %elf_buildid_inject find-debuginfo stops
# the build on the missing id; with it, the -debuginfo rpm holds the
# .build-id link and debug file of the binary's id, which is the id inject
# printed (the macro's default keeps it: %_no_recompute_build_ids), the
# binary is kernel-visible and runs, and a second build from an empty Go
# cache gives the same id. With -u find-debuginfo re-seeds the id with
# VERSION-RELEASE, as rpm does by default: another id, still the
# kernel's, and the debuginfo keyed by it.
# The spec builds with Debian's Go 1.19 by path ($GO119): "the missing id"
# is a Go binary with no id, and Go >= 1.24's linker writes a derived one.
. "$(dirname "$0")/lib.sh"
require_tool
require_deps pkg

private_home
export GOPROXY=off GOFLAGS= GOWORK=off CGO_ENABLED=0
MACROS=$TOP/packaging/rpm/macros.elf-buildid

# The spec: INJECT is the %install line that gives the ids (or nothing).
# -compressdwarf=false: debugedit cannot rewrite Go's compressed DWARF
# (Fedora's %gobuild passes the same). -buildvcs=false: the build runs
# inside this repository's work tree, whose commit and state Go would
# stamp into the binary (a release tarball's build has none).
write_spec() { # FILE INJECT
	cat >"$1" <<EOF
%global _missing_build_ids_terminate_build 1
Name:           hello-ebid
Version:        1.0
Release:        1
Summary:        test program for elf-buildid's RPM macros
License:        MIT
Source0:        main.go
Source1:        go.mod

%description
A Go program with two named functions.

%debug_package

%prep
%setup -q -c -T
cp %{SOURCE0} %{SOURCE1} .

%build
$GO119 build -trimpath -buildvcs=false -ldflags=-compressdwarf=false -o hello-ebid .

%install
install -D -m 0755 hello-ebid %{buildroot}%{_bindir}/hello-ebid
$2

%files
%{_bindir}/hello-ebid
EOF
}

# rpm_build DIR INJECT [GOCACHE]: rpmbuild -bb with _topdir DIR, our macros
# loaded and our binary as %__elf_buildid; sets $rc, log in DIR/build.log.
rpm_build() {
	local d=$1 cache=${3:-$GOCACHE}
	rm -rf "$d"
	mkdir -p "$d/SOURCES"
	# The package's program: fixtures/packaged (the same in t0940 and t0950).
	cp "$TOP/fixtures/packaged/main.go" "$TOP/fixtures/packaged/go.mod" "$d/SOURCES/"
	write_spec "$d/hello.spec" "$2"
	GOCACHE=$cache rpmbuild -bb --load "$MACROS" --define "__elf_buildid $EBID" \
		--define "_topdir $d" --define "_tmppath $d/tmp" "$d/hello.spec" >"$d/build.log" 2>&1
	rc=$?
}

RPM_MAIN=RPMS/$(rpm --eval '%{_arch}')/hello-ebid-1.0-1.$(rpm --eval '%{_arch}').rpm
RPM_DEBUG=${RPM_MAIN/hello-ebid-1.0/hello-ebid-debuginfo-1.0}

# extract RPM DIR: rpm2cpio | cpio into DIR.
extract() { mkdir -p "$2" && (cd "$2" && rpm2cpio "$1" | cpio -idm --quiet); }

t_begin "without the macro: find-debuginfo stops the build on the Go program's missing id"
rpm_build "$SCRATCH/plain" ''
expect_ne "rpmbuild exit" "$rc" 0
expect_match "find-debuginfo's error" "$(cat "$SCRATCH/plain/build.log")" \
	'\*\*\* ERROR: No build ID note found in .*/usr/bin/hello-ebid'
expect_false "an rpm was written" [ -e "$SCRATCH/plain/$RPM_MAIN" ]
t_end

A=$SCRATCH/a
t_begin "%elf_buildid_inject: a -debuginfo rpm holding the .build-id link and debug file of the binary's id, which inject printed"
rpm_build "$A" '%elf_buildid_inject'
expect_eq "rpmbuild exit: $(tail -n 5 "$A/build.log")" "$rc" 0
expect_match "find-debuginfo keeps the ids (-n, no seed)" "$(grep 'find-debuginfo' "$A/build.log")" \
	'find-debuginfo .*--strict-build-id -n '
expect_false "find-debuginfo re-seeds" grep -q 'build-id-seed' "$A/build.log"
listing=$(rpm -qlp "$A/$RPM_DEBUG")
expect_match "rpm -qlp debuginfo" "$listing" '^/usr/lib/debug/\.build-id/[0-9a-f]{2}/[0-9a-f]{38}\.debug$'
extract "$A/$RPM_MAIN" "$A/main"
extract "$A/$RPM_DEBUG" "$A/dbg"
BIN=$A/main/usr/bin/hello-ebid
BID=$(readelf_ids "$BIN")
expect_match "binary's id" "$BID" '^[0-9a-f]{40}$'
injected=$(sed -n "s|^\([0-9a-f]\{40\}\)  .*/usr/bin/hello-ebid\$|\1|p" "$A/build.log")
expect_eq "the id inject printed in %install" "$BID" "$injected"
link=$A/dbg/usr/lib/debug/.build-id/${BID:0:2}/${BID:2}
expect_true "no $link.debug in the debuginfo: $listing" [ -e "$link.debug" ]
expect_eq "debug file's id (readelf)" "$(readelf_ids "$link.debug")" "$BID"
expect_eq "debug file's id (eu-readelf)" "$(eu_readelf_ids "$link.debug")" "$BID"
expect_true "$link is not a symlink" [ -L "$link" ]
expect_eq "main package's link" "$(readlink "$A/main/usr/lib/.build-id/${BID:0:2}/${BID:2}")" \
	"../../../../usr/bin/hello-ebid"
t_end

t_begin "the packaged binary: kernel-visible (verify, the kernel's reader), debug sections gone, still runs"
expect_exit 0 "$EBID" verify "$BIN"
expect_match "verify" "$out" "^PASS  $(re_quote "$BIN")  $BID\$"
expect_eq "the kernel's reader (ebid.py)" "$(py_kernel "$BIN")" "$BID"
expect_eq "debug sections left" "$(readelf -SW "$BIN" | grep -c ' \.debug_info ')" 0
expect_exit 0 "$BIN" rpm
expect_eq "output" "$out" "hello, rpm!"
t_end

t_begin "a second build from an empty Go cache: the same id"
rpm_build "$SCRATCH/b" '%elf_buildid_inject' "$SCRATCH/gocache-b"
expect_eq "rpmbuild exit: $(tail -n 5 "$SCRATCH/b/build.log")" "$rc" 0
extract "$SCRATCH/b/$RPM_MAIN" "$SCRATCH/b/main"
expect_eq "id" "$(readelf_ids "$SCRATCH/b/main/usr/bin/hello-ebid")" "$BID"
t_end

t_begin "%elf_buildid_inject -u: find-debuginfo re-seeds with VERSION-RELEASE; another id, the kernel's, the debuginfo keyed by it"
U=$SCRATCH/u
rpm_build "$U" '%elf_buildid_inject -u'
expect_eq "rpmbuild exit: $(tail -n 5 "$U/build.log")" "$rc" 0
expect_match "find-debuginfo seeds" "$(grep 'find-debuginfo' "$U/build.log")" '--build-id-seed 1\.0-1 '
extract "$U/$RPM_MAIN" "$U/main"
extract "$U/$RPM_DEBUG" "$U/dbg"
uid=$(readelf_ids "$U/main/usr/bin/hello-ebid")
expect_match "id" "$uid" '^[0-9a-f]{40}$'
expect_ne "id against inject's" "$uid" "$BID"
expect_exit 0 "$EBID" verify "$U/main/usr/bin/hello-ebid"
expect_eq "the kernel's reader (ebid.py)" "$(py_kernel "$U/main/usr/bin/hello-ebid")" "$uid"
expect_eq "debug file's id" "$(readelf_ids "$U/dbg/usr/lib/debug/.build-id/${uid:0:2}/${uid:2}.debug")" "$uid"
t_end

t_begin "-x GLOB: the excluded program gets no id, and find-debuginfo stops the build"
rpm_build "$SCRATCH/x" '%elf_buildid_inject -x hello-*'
expect_ne "rpmbuild exit" "$rc" 0
expect_match "inject's exclude" "$(cat "$SCRATCH/x/build.log")" 'inject -r .*--exclude=hello-\* '
expect_match "find-debuginfo's error" "$(cat "$SCRATCH/x/build.log")" 'No build ID note found in .*/usr/bin/hello-ebid'
t_end

t_done
