#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# tier: slow
# The debhelper add-on (issue 23; docs/packaging.md, "Debian packages"): a
# small Go source package (debian/rules: dh $@ --buildsystem=golang --with
# ...) built offline with dpkg-buildpackage -b -us -uc. With --with golang
# alone, dh_strip finds no id and no -dbgsym package holds a .build-id
# file; with --with golang,elf-buildid (the add-on from the source tree:
# PATH and PERL5LIB point at packaging/debian), the -dbgsym package holds
# usr/lib/debug/.build-id/xx/rest.debug whose id is the packaged binary's
# (readelf, eu-readelf, the kernel's reader), the binary is kernel-visible,
# stripped and still runs, gdb names its functions from the dbgsym alone,
# debuginfod serves both files by that id, and a rebuild elsewhere with an
# empty Go cache gives byte-identical .debs. Then dh_elf_buildid itself:
# its place in the sequence, -X, DEB_BUILD_OPTIONS=noelfbuildid and a file
# it cannot handle.
# Nothing is fetched: GOPROXY=off, the program has no dependencies.
# The package builds with Debian's Go 1.19 (Build-Depends golang-1.19-go,
# its bin first in PATH, as $GO119): "dh_strip finds no id" is about a Go
# binary with no id, and Go >= 1.24's linker writes a derived one.
. "$(dirname "$0")/lib.sh"
. "$TOP/tests/kit-lib.sh"
require_tool
require_deps pkg
require_fixtures plain
. "$TOP/tests/debuginfod-lib.sh"

private_home
export GOPROXY=off GOFLAGS= GOWORK=off CGO_ENABLED=0
unset DEB_BUILD_OPTIONS DEB_BUILD_PROFILES DH_VERBOSE DH_OPTIONS DH_INTERNAL_OPTIONS
# The changelog's date; dpkg-buildpackage would derive the same.
export SOURCE_DATE_EPOCH=1796083200
ADDON=$TOP/packaging/debian
arch=$(dpkg --print-architecture)

# make_source DIR: the source package hello-ebid 1.0-1 in DIR.
make_source() {
	local d=$1
	mkdir -p "$d/debian/source"
	# The package's program: fixtures/packaged (the same in t0940 and t0950).
	cp "$TOP/fixtures/packaged/main.go" "$TOP/fixtures/packaged/go.mod" "$d/"
	cat >"$d/debian/control" <<'EOF'
Source: hello-ebid
Section: devel
Priority: optional
Maintainer: elf-buildid tests <tests@example.org>
Build-Depends: debhelper-compat (= 13), dh-golang, golang-1.19-go
Standards-Version: 4.6.2
XS-Go-Import-Path: example.org/hello-ebid
Rules-Requires-Root: no

Package: hello-ebid
Architecture: any
Depends: ${misc:Depends}
Static-Built-Using: ${misc:Static-Built-Using}
Description: test program for dh_elf_buildid
 A Go program with two named functions.
EOF
	cat >"$d/debian/changelog" <<'EOF'
hello-ebid (1.0-1) unstable; urgency=medium

  * Test package.

 -- elf-buildid tests <tests@example.org>  Tue, 01 Dec 2026 00:00:00 +0000
EOF
	echo '3.0 (native)' >"$d/debian/source/format"
	# DH_WITH comes from the environment of each build (make reads it).
	printf '#!/usr/bin/make -f\n%%:\n\tdh $@ --buildsystem=golang --with $(DH_WITH)\n' >"$d/debian/rules"
	chmod 0755 "$d/debian/rules"
}

# build DIR WITH [GOCACHE]: the source in DIR/hello-ebid, built with
# dpkg-buildpackage -b -us -uc and DH_WITH=WITH; the .debs land in DIR.
# Sets $rc; the log is DIR/build.log.
build() {
	local d=$1 with=$2 cache=${3:-$GOCACHE}
	rm -rf "$d"
	make_source "$d/hello-ebid"
	(cd "$d/hello-ebid" && GOCACHE=$cache PATH="$ADDON:$EBID_BUILD:${GO119%/go}:$PATH" PERL5LIB=$ADDON \
		ELF_BUILDID=$EBID DH_WITH="$with" dpkg-buildpackage -b -us -uc) >"$d/build.log" 2>&1
	rc=$?
}

# log_order LOG: the dh commands of a build log, in order.
log_order() { sed -n 's/^   \(dh_[a-z_]*\) .*/\1/p' "$1" | tr '\n' ' '; }

t_begin "--with golang: dh_strip finds no build-id, no -dbgsym package with .build-id"
build "$SCRATCH/plain" golang
expect_eq "dpkg-buildpackage exit: $(tail -n 5 "$SCRATCH/plain/build.log")" "$rc" 0
expect_true "no main package" [ -f "$SCRATCH/plain/hello-ebid_1.0-1_${arch}.deb" ]
expect_match "dh_strip's warning" "$(cat "$SCRATCH/plain/build.log")" \
	'dh_strip: warning: Could not find the BuildID in debian/hello-ebid/usr/bin/hello-ebid'
dbg=$SCRATCH/plain/hello-ebid-dbgsym_1.0-1_${arch}.deb
if [ -f "$dbg" ]; then
	expect_eq ".build-id files in the dbgsym" "$(dpkg-deb -c "$dbg" | grep -c '/\.build-id/')" 0
else
	expect_false "dbgsym" [ -e "$dbg" ]
fi
t_end

A=$SCRATCH/a
DEB=$A/hello-ebid_1.0-1_${arch}.deb
DBG=$A/hello-ebid-dbgsym_1.0-1_${arch}.deb
t_begin "--with golang,elf-buildid: dh_elf_buildid before dh_strip, a -dbgsym package holding .build-id/xx/rest.debug"
build "$A" golang,elf-buildid
expect_eq "dpkg-buildpackage exit: $(tail -n 5 "$A/build.log")" "$rc" 0
expect_match "dh order" "$(log_order "$A/build.log")" ' dh_elf_buildid dh_strip '
expect_false "dh_strip still warns" grep -q 'Could not find the BuildID' "$A/build.log"
expect_true "no $DBG: $(ls "$A")" [ -f "$DBG" ]
dbg_files=$(dpkg-deb -c "$DBG" | awk '$1 !~ /^d/ { print $6 }')
expect_match "dbgsym files" "$dbg_files" '^\./usr/lib/debug/\.build-id/[0-9a-f]{2}/[0-9a-f]{38}\.debug$'
mkdir -p "$A/main" "$A/dbg"
dpkg-deb -x "$DEB" "$A/main"
dpkg-deb -x "$DBG" "$A/dbg"
BIN=$A/main/usr/bin/hello-ebid
BID=$(readelf_ids "$BIN")
expect_match "packaged binary's id" "$BID" '^[0-9a-f]{40}$'
DEBUG=$A/dbg/usr/lib/debug/.build-id/${BID:0:2}/${BID:2}.debug
expect_true "the dbgsym has no $DEBUG: $dbg_files" [ -f "$DEBUG" ]
expect_eq "debug file id (readelf)" "$(readelf_ids "$DEBUG")" "$BID"
expect_eq "debug file id (eu-readelf)" "$(eu_readelf_ids "$DEBUG")" "$BID"
expect_eq "binary id (eu-readelf)" "$(eu_readelf_ids "$BIN")" "$BID"
expect_match "the build log printed it" "$(cat "$A/build.log")" "^$BID  debian/hello-ebid/usr/bin/hello-ebid\$"
t_end

t_begin "the packaged binary: stripped, kernel-visible (verify, the kernel's reader), still runs"
expect_eq "symbol table left" "$(readelf -SW "$BIN" | grep -c ' \.symtab ')" 0
expect_exit 0 "$EBID" verify "$BIN"
expect_match "verify" "$out" "^PASS  $(re_quote "$BIN")  $BID\$"
expect_eq "the kernel's reader (ebid.py)" "$(py_kernel "$BIN")" "$BID"
expect_exit 0 "$BIN" world
expect_eq "output" "$out" "hello, world!"
t_end

t_begin "gdb names the functions from the dbgsym alone (debug-file-directory = the extracted package)"
gdb_line "$BIN" "$SCRATCH/nowhere" main.shout
expect_false "gdb finds a line without the dbgsym: $gdb_out" grep -q '^Line' <<<"$gdb_out"
gdb_line "$BIN" "$A/dbg/usr/lib/debug" main.shout
expect_match "info line main.shout" "$gdb_out" '^Line 12 of "example\.org/hello-ebid/main\.go" .*<main\.shout>'
gdb_line "$BIN" "$A/dbg/usr/lib/debug" main.greetingFor
expect_match "info line main.greetingFor" "$gdb_out" '^Line 9 of "example\.org/hello-ebid/main\.go" .*<main\.greetingFor>'
t_end

t_begin "debuginfod -U over the two .debs serves the binary and its debug file by the id"
mkdir -p "$SCRATCH/repo" "$SCRATCH/server-cache" "$SCRATCH/client-cache"
cp "$DEB" "$DBG" "$SCRATCH/repo/"
if DEBUGINFOD_CACHE_PATH=$SCRATCH/server-cache start_server central \
	-d "$SCRATCH/central.sqlite" -t 0 -g 0 -c 2 -U "$SCRATCH/repo"; then
	url=http://127.0.0.1:$server_port
	wait_scanned "$server_port" ||
		t_fail "scan not done after 90 s: $(grep -E '^(thread|traversed|scanned)' <<<"$metrics")"
	expect_eq ".deb: debuginfo found" "$(metric "$metrics" 'found_debuginfo_total{source=".deb archive"}')" 1
	expect_eq ".deb: executables found" "$(metric "$metrics" 'found_executable_total{source=".deb archive"}')" 1
	for kind in executable debuginfo; do
		DEBUGINFOD_URLS=$url DEBUGINFOD_CACHE_PATH=$SCRATCH/client-cache run debuginfod-find "$kind" "$BID"
		expect_eq "debuginfod-find $kind: exit ($err)" "$rc" 0
		want=$BIN
		[ "$kind" = debuginfo ] && want=$DEBUG
		[ "$rc" = 0 ] && expect_same_file "$kind served" "$out" "$want"
	done
	stop_servers
else
	t_fail "debuginfod did not start: $(tail -n 5 "$SCRATCH/central.log")"
fi
t_end

t_begin "a rebuild in another directory with an empty Go cache: the same bytes in both packages"
B=$SCRATCH/rebuild-b
build "$B" golang,elf-buildid "$SCRATCH/gocache-b"
expect_eq "dpkg-buildpackage exit: $(tail -n 5 "$B/build.log")" "$rc" 0
expect_eq "main package sha256" "$(sha256sum <"$B/hello-ebid_1.0-1_${arch}.deb")" "$(sha256sum <"$DEB")"
expect_eq "dbgsym sha256" "$(sha256sum <"$B/hello-ebid-dbgsym_1.0-1_${arch}.deb")" "$(sha256sum <"$DBG")"
t_end

# dh_elf_buildid on its own, in a source tree whose package build
# directories hold three copies of a Go program without an id.
D=$SCRATCH/direct
make_source "$D"
mkdir -p "$D/debian/hello-ebid/usr/bin" "$D/debian/hello-ebid/usr/lib/hello-ebid"
cp "$FIXTURES/plain" "$D/debian/hello-ebid/usr/bin/keep"
cp "$FIXTURES/plain" "$D/debian/hello-ebid/usr/lib/hello-ebid/skip-me"
mkdir -p "$D/debian/tmp/usr/bin"
cp "$FIXTURES/plain" "$D/debian/tmp/usr/bin/from-tmp"
plain_state() {
	sha256sum "$D/debian/hello-ebid/usr/bin/keep" "$D/debian/hello-ebid/usr/lib/hello-ebid/skip-me" \
		"$D/debian/tmp/usr/bin/from-tmp" | cut -d' ' -f1 | tr '\n' ' '
}
before=$(plain_state)

# dh_seq WITH: the neighbours of dh_elf_buildid in dh's binary sequence.
dh_seq() {
	(cd "$D" && PATH="$ADDON:$PATH" PERL5LIB=$ADDON dh binary --no-act --buildsystem=golang --with "$1") 2>&1 |
		awk '{ print $1 }' | grep -B1 -A1 -x dh_elf_buildid | tr '\n' ' '
}

t_begin "the sequence: before dh_dwz when it runs, before dh_strip when --with golang removed dh_dwz (either order)"
expect_eq "--with elf-buildid" "$(dh_seq elf-buildid)" "dh_missing dh_elf_buildid dh_dwz "
expect_eq "--with golang,elf-buildid" "$(dh_seq golang,elf-buildid)" "dh_missing dh_elf_buildid dh_strip "
expect_eq "--with elf-buildid,golang" "$(dh_seq elf-buildid,golang)" "dh_missing dh_elf_buildid dh_strip "
t_end

t_begin "DEB_BUILD_OPTIONS=noelfbuildid: nothing is touched"
(cd "$D" && DEB_BUILD_OPTIONS='nocheck noelfbuildid' PATH="$ADDON:$PATH" PERL5LIB=$ADDON \
	ELF_BUILDID=$EBID dh_elf_buildid) >"$SCRATCH/.nobid" 2>&1
st=$?
expect_eq "exit: $(cat "$SCRATCH/.nobid")" "$st" 0
expect_eq "files" "$(plain_state)" "$before"
t_end

t_begin "-X item: the excluded file keeps its bytes; the other, and the one in debian/tmp, get an id"
(cd "$D" && PATH="$ADDON:$PATH" PERL5LIB=$ADDON ELF_BUILDID=$EBID \
	dh_elf_buildid -Xlib/hello-ebid) >"$SCRATCH/.x" 2>&1
st=$?
expect_eq "exit: $(cat "$SCRATCH/.x")" "$st" 0
expect_match "keep got an id" "$(readelf_ids "$D/debian/hello-ebid/usr/bin/keep")" '^[0-9a-f]{40}$'
expect_same_file "skip-me untouched" "$D/debian/hello-ebid/usr/lib/hello-ebid/skip-me" "$FIXTURES/plain"
expect_match "debian/tmp's program got an id" "$(readelf_ids "$D/debian/tmp/usr/bin/from-tmp")" '^[0-9a-f]{40}$'
t_end

t_begin "a program it cannot handle fails dh_elf_buildid with the tool's message"
# The ELF header and program headers of a Go program, its sections cut off.
head -c 4096 "$FIXTURES/plain" >"$D/debian/hello-ebid/usr/bin/torn"
chmod 0755 "$D/debian/hello-ebid/usr/bin/torn"
(cd "$D" && PATH="$ADDON:$PATH" PERL5LIB=$ADDON ELF_BUILDID=$EBID \
	dh_elf_buildid -Xlib/hello-ebid) >"$SCRATCH/.torn.out" 2>"$SCRATCH/.torn.err"
expect_ne "exit" "$?" 0
expect_match "the tool's message" "$(cat "$SCRATCH/.torn.err")" \
	"^elf-buildid: '[^']*usr/bin/torn': "
expect_match "dh names the command" "$(cat "$SCRATCH/.torn.err")" 'dh_elf_buildid: error: .*inject -r'
expect_same_file "the torn file is left as it was" "$D/debian/hello-ebid/usr/bin/torn" <(head -c 4096 "$FIXTURES/plain")
t_end

t_done
