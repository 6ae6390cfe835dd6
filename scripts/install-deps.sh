#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# Checks for the Debian packages a GROUP of tasks needs, and installs the
# missing ones (as root), or says what to install and exits 1. A no-op, in
# well under a second, when everything is present.
#
# Usage: scripts/install-deps.sh [--check] [GROUP...]
#   --check  only report; exit 1 when something is missing
# Groups (default: base):
#   base    the build (gcc, make, pkg-config, libelf, libcrypto, zlib,
#           libarchive), make demo
#           and the core tests: Go (the machine's, and Debian's Go 1.19 by
#           path for the fixtures), perf, binutils, elfutils, file,
#           Python 3, diffutils, qemu-user, clang, zstd, xz, dpkg-deb
#   kit     the packaging and gate tests (t04NN, t05NN), the consumers
#           (t0800) and the symbol servers (t0810): ruby, gdb, eu-unstrip,
#           unshare, debuginfod, bsdtar, curl, google/pprof's source; the
#           OpenMetrics files (t0435): Debian python's prometheus_client
#           and yaml, promtool, node_exporter, systemd-analyze, strace
#   matrix  the compatibility matrix (scripts/build-matrix.sh, t03NN): GNU
#           ld and gold, lld, mold, libc.a, qemu-user and cross loaders
#   robust  the robustness tests (t06NN, make fuzz): libFuzzer and the
#           sanitizer runtimes, valgrind, attr, acl, libcap2-bin, e2fsprogs
#   bench   make bench: /usr/bin/time, openssl, lscpu
#   static  make STATIC=1 and its test (t0920): the static archives of
#           libelf, libcrypto, zlib and glibc, chroot, unshare, mount
#   ship    make dist, make deb, make rpm and their tests (t0900, t0910,
#           t0915, t0930): git, dpkg-dev, lintian, ruby, rpm (rpmbuild),
#           debugedit (find-debuginfo), rpm2cpio, cpio, rpmlint
#   pkg     the distributions' packaging (t0940, t0950): debhelper and
#           dh-golang (dpkg-buildpackage of a Go package), rpm, rpm2cpio,
#           cpio and debugedit (rpmbuild and find-debuginfo), gdb,
#           debuginfod, bsdtar, curl
#   rewriters  the rewriters' suite (t0390, t0391) and the dwz passes
#           (t0941, t0951): patchelf, dwz, llvm-strip-14, llvm-objcopy-14,
#           eu-strip, eu-unstrip, eu-elflint, GNU strip, objcopy and ld.bfd
#   artifacts  the artifact fixtures (scripts/build-artifact-fixtures.sh)
#           and verify's artifact tests: apt-get (apt-get download of
#           Debian's packages), dpkg-deb, GNU tar, gzip, xz, zstd, python3,
#           umoci (an independent reading of the OCI image layouts)
#   real    make check-real (scripts/check-real.sh): a deb-src entry for
#           the machine's Debian archive (our own file in
#           /etc/apt/sources.list.d), dpkg-dev for apt-get source, gcc,
#           g++, make, cmake, the four linkers, elfutils, perf, python3
#   test    everything make test runs: base kit matrix robust static ship pkg
#           rewriters artifacts
set -u

me=install-deps
# A fresh machine may still be running its own apt (provisioning,
# unattended-upgrades): every apt-get here waits for its lock, not fails.
apt_wait=(-o DPkg::Lock::Timeout=600)
check_only=0
groups=()
for a in "$@"; do
	case "$a" in
	--check) check_only=1 ;;
	-h | --help)
		sed -n '3,/^[^#]/s/^# \{0,1\}//p' "$0"
		exit 0
		;;
	base | kit | matrix | robust | bench | static | ship | pkg | rewriters | artifacts | real) groups+=("$a") ;;
	test) groups+=(base kit matrix robust static ship pkg rewriters artifacts) ;;
	*)
		echo "$me: unknown option or group '$a' (groups: base kit matrix robust bench static ship pkg rewriters artifacts real test)" >&2
		exit 64
		;;
	esac
done
[ ${#groups[@]} -gt 0 ] || groups=(base)

missing=()
need() { # need PACKAGE: record it once
	case " ${missing[*]-} " in
	*" $1 "*) ;;
	*) missing+=("$1") ;;
	esac
}
# cmd COMMAND PACKAGE: COMMAND must be found in PATH.
cmd() { command -v "$1" >/dev/null 2>&1 || need "$2"; }
# path FILE PACKAGE: FILE must exist.
path() { [ -e "$1" ] || need "$2"; }

group_base() {
	cmd gcc gcc
	cmd make make
	cmd pkg-config pkg-config
	cmd go golang-go
	# The Go 1.19 the fixtures and the tests over Go 1.19's shapes (no GNU
	# note) are built with, by path: scripts/build-fixtures.sh, $EBID_GO119.
	path /usr/lib/go-1.19/bin/go golang-1.19-go
	cmd perf linux-perf
	cmd eu-readelf elfutils
	cmd eu-elflint elfutils
	cmd eu-strip elfutils
	cmd readelf binutils
	cmd objcopy binutils
	cmd strip binutils
	cmd file file
	cmd python3 python3
	cmd cmp diffutils
	cmd qemu-aarch64 qemu-user
	cmd clang clang
	# Artifacts (t0460, the corrupt-input corpus): their packers.
	cmd zstd zstd
	cmd xz xz-utils
	cmd dpkg-deb dpkg
	# Libraries, found the way the Makefile finds them; gelf.h ships in
	# libelf-dev: look where pkg-config says, then in /usr/include.
	if command -v pkg-config >/dev/null 2>&1; then
		pkg-config --exists libelf || need libelf-dev
		pkg-config --exists libcrypto || need libssl-dev
		pkg-config --exists zlib || need zlib1g-dev
		pkg-config --exists libarchive || need libarchive-dev
		local d found=0
		for d in $(pkg-config --variable=includedir libelf 2>/dev/null) /usr/include; do
			[ -f "$d/gelf.h" ] && found=1 && break
		done
		[ "$found" = 1 ] || need libelf-dev
	else
		need libelf-dev
		need libssl-dev
		need libarchive-dev
	fi
}

# The Omnibus hook example (ruby), debug files found by build-id (gdb),
# perf hidden in a private mount namespace (unshare), elfutils' symbol
# server and its client (debuginfod); Debian's debuginfod unpacks .deb files
# with bsdtar (libarchive-tools) and says nothing when it is missing;
# curl reads the server's /metrics; t0810 builds pprof from Debian's source
# of google/pprof (go tool pprof cannot read build-ids).
group_kit() {
	cmd ruby ruby
	cmd gdb gdb
	# t0800: libdwfl's reading of the id, as debuginfod clients do it.
	cmd eu-unstrip elfutils
	cmd python3 python3
	cmd unshare util-linux
	cmd objcopy binutils
	cmd strip binutils
	# The kit's no-room program is static and linked by gold.
	cmd ld.gold binutils
	path /usr/lib/x86_64-linux-gnu/libc.a libc6-dev
	cmd gcc gcc
	cmd make make
	cmd go golang-go
	cmd perf linux-perf
	cmd file file
	cmd debuginfod debuginfod
	cmd debuginfod-find debuginfod
	# t0178: verify --against-debuginfod loads elfutils' client library.
	path /usr/lib/x86_64-linux-gnu/libdebuginfod.so.1 libdebuginfod1
	cmd bsdtar libarchive-tools
	cmd dpkg-deb dpkg
	cmd curl curl
	path /usr/share/gocode/src/github.com/google/pprof/driver/driver.go golang-github-google-pprof-dev
	# t0435: parsers and a collector we did not write read --openmetrics;
	# the modules are /usr/bin/python3's (PATH may find another python3).
	path /usr/lib/python3/dist-packages/prometheus_client/openmetrics/parser.py python3-prometheus-client
	path /usr/lib/python3/dist-packages/yaml/__init__.py python3-yaml
	cmd promtool prometheus
	cmd prometheus-node-exporter prometheus-node-exporter
	cmd systemd-analyze systemd
	cmd strace strace
	cmd setpriv util-linux
}

group_matrix() {
	local q
	cmd go golang-go
	cmd gcc gcc
	cmd clang clang
	cmd ld.bfd binutils
	cmd ld.gold binutils
	cmd ld.lld lld
	cmd ld.mold mold
	cmd readelf binutils
	cmd objcopy binutils
	cmd as binutils
	cmd eu-readelf elfutils
	cmd perf linux-perf
	cmd python3 python3
	for q in i386 arm aarch64 loongarch64 mips mipsel mips64 mips64el \
		ppc64 ppc64le riscv64 s390x; do
		cmd "qemu-$q" qemu-user
	done
	cmd cmp diffutils
	cmd file file
	# Static C programs need libc.a (libc6-dev, which gcc pulls in).
	path /usr/lib/x86_64-linux-gnu/libc.a libc6-dev
	# Go -buildmode=pie binaries for arm64 and ppc64le name the target's
	# dynamic loader; qemu-user finds it with -L /usr/<triplet>.
	path /usr/aarch64-linux-gnu/lib/ld-linux-aarch64.so.1 libc6-arm64-cross
	path /usr/powerpc64le-linux-gnu/lib/ld64.so.2 libc6-ppc64el-cross
}

group_robust() {
	cmd gcc gcc
	cmd make make
	cmd python3 python3
	cmd clang clang
	cmd valgrind valgrind
	cmd setfattr attr
	cmd getfattr attr
	cmd setfacl acl
	cmd getfacl acl
	cmd setcap libcap2-bin
	cmd getcap libcap2-bin
	cmd chattr e2fsprogs
	cmd lsattr e2fsprogs
	cmd mount mount
	cmd setpriv util-linux
	cmd unshare util-linux
	cmd timeout coreutils
	cmd mknod coreutils
	cmd readelf binutils
	# libFuzzer and the sanitizer runtimes come in libclang-rt-NN-dev, whose
	# NN follows the clang version; clang prints the bare name when it
	# lacks the file.
	command -v clang >/dev/null 2>&1 || return 0
	local lib f v arch
	arch=$(uname -m)
	for lib in fuzzer asan ubsan_standalone; do
		f=$(clang -print-file-name="libclang_rt.$lib-$arch.a" 2>/dev/null)
		if [ ! -f "$f" ]; then
			v=$(clang --version | sed -n 's/.*clang version \([0-9]*\).*/\1/p' | head -n 1)
			need "libclang-rt-${v:-14}-dev"
		fi
	done
}

group_bench() {
	# /usr/bin/time is named by path: the shell keyword `time` cannot
	# report peak resident memory (-f %M).
	path /usr/bin/time time
	cmd python3 python3
	cmd openssl openssl
	cmd go golang-go
	cmd gcc gcc
	cmd perf linux-perf
	cmd lscpu util-linux
	cmd truncate coreutils
	cmd sync coreutils
	# The post-link rows on each file system (scripts/bench-postlink):
	# XFS with reflink and btrfs in loop-mounted image files.
	cmd mkfs.xfs xfsprogs
	cmd mkfs.btrfs btrfs-progs
}

# make STATIC=1 links the .a archives the -dev packages ship, found the
# way the link finds them (gcc prints the bare name when it lacks one);
# t0920 runs the result in an empty chroot, with /proc mounted in a
# private mount namespace for the checks that need it.
group_static() {
	local a
	cmd gcc gcc
	cmd make make
	cmd pkg-config pkg-config
	cmd file file
	cmd readelf binutils
	cmd nm binutils
	cmd strip binutils
	cmd chroot coreutils
	cmd unshare util-linux
	cmd mount mount
	cmd python3 python3
	command -v gcc >/dev/null 2>&1 || return 0
	for a in libelf.a:libelf-dev libcrypto.a:libssl-dev libz.a:zlib1g-dev \
		libc.a:libc6-dev; do
		[ -f "$(gcc -print-file-name="${a%%:*}")" ] || need "${a#*:}"
	done
}

# make dist (git archive, GNU tar, gzip), make deb (dpkg-shlibdeps,
# dpkg-buildflags, dpkg-deb), lintian over the .deb, make rpm (rpmbuild,
# find-debuginfo and debugedit; dpkg-buildflags for its flags), t0915's
# rpm2cpio, cpio and rpmlint over the .rpm, and the Omnibus stand-in of
# t0930 (ruby).
group_ship() {
	cmd git git
	cmd tar tar
	cmd gzip gzip
	cmd sha256sum coreutils
	cmd make make
	cmd gcc gcc
	cmd strip binutils
	cmd readelf binutils
	cmd dpkg-deb dpkg
	cmd dpkg-shlibdeps dpkg-dev
	cmd dpkg-buildflags dpkg-dev
	cmd dpkg-architecture dpkg-dev
	cmd lintian lintian
	cmd ruby ruby
	cmd rpmbuild rpm
	cmd rpm rpm
	cmd find-debuginfo debugedit
	cmd debugedit debugedit
	cmd rpm2cpio rpm2cpio
	cmd cpio cpio
	cmd rpmlint rpmlint
}

# t0940 builds a Go source package with dpkg-buildpackage, dh and dh-golang
# (Dh_Lib and the golang build system are Perl modules, looked for where
# debhelper puts them), judges the -dbgsym package with gdb and serves it
# with debuginfod (bsdtar unpacks .deb files for it, curl reads /metrics);
# t0950 builds an RPM with rpmbuild, whose find-debuginfo and debugedit
# come from Debian's debugedit package, and unpacks it with rpm2cpio and
# cpio.
group_pkg() {
	cmd dpkg-buildpackage dpkg-dev
	cmd dpkg-deb dpkg
	cmd dh debhelper
	path /usr/share/perl5/Debian/Debhelper/Dh_Lib.pm debhelper
	path /usr/share/perl5/Debian/Debhelper/Buildsystem/golang.pm dh-golang
	cmd go golang-go
	# t0940's package build-depends on it, t0950's spec runs it by path.
	path /usr/lib/go-1.19/bin/go golang-1.19-go
	cmd rpmbuild rpm
	cmd rpm rpm
	cmd rpm2cpio rpm2cpio
	cmd cpio cpio
	cmd find-debuginfo debugedit
	cmd debugedit debugedit
	cmd readelf binutils
	cmd eu-readelf elfutils
	cmd gdb gdb
	cmd debuginfod debuginfod
	cmd debuginfod-find debuginfod
	cmd bsdtar libarchive-tools
	cmd curl curl
	cmd lintian lintian
	cmd python3 python3
}

# The rewriters' suite (t0390, t0391; scripts/rewriters-check) and the
# distributions' dwz passes (t0941, t0951): the tools that rewrite a
# binary after inject, each against a linker's control.
group_rewriters() {
	cmd patchelf patchelf
	cmd dwz dwz
	cmd llvm-strip-14 llvm-14
	cmd llvm-objcopy-14 llvm-14
	cmd eu-strip elfutils
	cmd eu-unstrip elfutils
	cmd eu-elflint elfutils
	cmd strip binutils
	cmd objcopy binutils
	cmd readelf binutils
	cmd ld.bfd binutils
}

# scripts/build-artifact-fixtures.sh: Debian's packages by apt-get download
# (dpkg-deb checks them), tarballs in each compression, OCI images checked
# by umoci (stat, unpack --rootless), the crafted ones by python3.
group_artifacts() {
	cmd apt-get apt
	cmd dpkg-deb dpkg
	cmd tar tar
	cmd gzip gzip
	cmd xz xz-utils
	cmd zstd zstd
	cmd python3 python3
	cmd sha256sum coreutils
	cmd readelf binutils
	cmd flock util-linux
	cmd umoci umoci
}

# check-real builds Debian's source packages with their own build systems:
# zlib (configure, make), expat (CMake; its tests are C and C++), pcre2
# (autotools, libtool). apt-get source needs dpkg-dev and a deb-src entry
# (deb_src below).
group_real() {
	cmd gcc gcc
	cmd g++ g++
	cmd make make
	cmd cmake cmake
	cmd ld.bfd binutils
	cmd ld.gold binutils
	cmd strip binutils
	cmd readelf binutils
	cmd ld.lld lld
	cmd ld.mold mold
	cmd eu-elflint elfutils
	cmd perf linux-perf
	cmd python3 python3
	cmd cmp diffutils
	cmd dpkg-source dpkg-dev
	cmd apt-get apt
	cmd sha256sum coreutils
	have_deb_src || need_src=1
}

# The deb-src entry check-real's apt-get source needs: the machine's own
# Debian archive (deb822 .sources files or one-line sources.list), same
# URIs, suites and key, Types deb-src, in a file of our own. The security
# archive is left out: on this project's machines its source files are not
# served (apt-get source fails with 404), and the main archive carries
# every version the builds need.
debsrc_file=/etc/apt/sources.list.d/elf-buildid-deb-src.sources
need_src=0

# have_deb_src: a deb-src source of a Debian archive is configured.
have_deb_src() {
	[ -f "$debsrc_file" ] && return 0
	cat /etc/apt/sources.list /etc/apt/sources.list.d/*.list 2>/dev/null |
		grep -q -E '^[[:space:]]*deb-src[[:space:]].*debian' && return 0
	cat /etc/apt/sources.list.d/*.sources 2>/dev/null | awk 'BEGIN { RS = "" }
		/(^|\n)Types:[^\n]*deb-src/ && /debian/ { x = 1 } END { exit !x }'
}

# deb_src_entries: the deb-src stanzas for the machine's Debian archive.
deb_src_entries() {
	local f
	for f in /etc/apt/sources.list.d/*.sources; do
		[ -f "$f" ] && [ "$f" != "$debsrc_file" ] || continue
		awk 'BEGIN { RS = ""; ORS = "\n\n" }
			/(^|\n)Types:([^\n]*[ \t])?deb([ \t\n]|$)/ && /debian/ && !/debian-security/ {
				sub(/(^|\n)Types:[^\n]*/, "\nTypes: deb-src"); sub(/^\n/, ""); print }' "$f"
	done
	[ -f /etc/apt/sources.list ] &&
		sed -n -E '/debian-security/d; s/^[[:space:]]*deb[[:space:]]+(.*debian.*)$/# from sources.list\nTypes: deb-src\nURIs: \1\n/p' \
			/etc/apt/sources.list | awk '
			/^URIs: / { n = split(substr($0, 7), w, " "); o = 1
				if (w[1] ~ /^\[/) { while (w[o] !~ /\]$/) o++; o++ }
				print "URIs: " w[o]; print "Suites: " w[o + 1]
				c = ""; for (i = o + 2; i <= n; i++) c = c " " w[i]
				print "Components:" c; next } { print }'
}

# add_deb_src: write our deb-src file (idempotent: only when missing) and
# update the package lists once.
add_deb_src() {
	local text
	have_deb_src && return 0
	text=$(deb_src_entries)
	[ -n "$text" ] || {
		echo "$me: no Debian archive in /etc/apt/sources.list{,.d} to add deb-src for" >&2
		return 1
	}
	printf '# Written by elf-buildid scripts/install-deps.sh real (apt-get source).\n%s\n' \
		"$text" >"$debsrc_file" || return 1
	echo "$me: added $debsrc_file; apt-get update" >&2
	apt-get "${apt_wait[@]}" update >&2
}

check() {
	local g
	need_src=0
	missing=()
	for g in "${groups[@]}"; do "group_$g"; done
}

check
[ ${#missing[@]} -eq 0 ] && [ "$need_src" = 0 ] && exit 0

if [ "$check_only" = 1 ]; then
	[ ${#missing[@]} -eq 0 ] || echo "$me: missing Debian packages: ${missing[*]}" >&2
	[ "$need_src" = 0 ] || echo "$me: no deb-src entry for apt-get source" >&2
	exit 1
fi
if [ "$(id -u)" != 0 ]; then
	{
		[ "$need_src" = 0 ] || echo "$me: no deb-src entry for apt-get source: run this as root"
		echo "$me: missing Debian packages: ${missing[*]-}"
		echo "$me: run this as root, or install them with:"
		echo "  sudo apt-get update && sudo apt-get install -y --no-install-recommends ${missing[*]}"
	} >&2
	exit 1
fi

# One apt run at a time; another may have installed them meanwhile. The
# braces keep the 2>/dev/null to the first try: on exec itself it would
# send every later message of this script to /dev/null.
{ exec 9>/var/lock/elf-buildid-deps.lock; } 2>/dev/null || exec 9>/tmp/elf-buildid-deps.lock
flock 9
check
if [ "$need_src" = 1 ]; then
	add_deb_src || exit 1
	check
fi
[ ${#missing[@]} -eq 0 ] && exit 0

export DEBIAN_FRONTEND=noninteractive
# A package can make another one needed: clang, once there, names the
# libclang-rt-NN-dev of its own version (group_test). So install, look
# again, and install what that finds, a few rounds at most.
for round in 1 2 3; do
	echo "$me: installing ${missing[*]}" >&2
	# A fresh machine has no package lists: update when the install fails.
	if ! apt-get "${apt_wait[@]}" install -y --no-install-recommends "${missing[@]}" >/dev/null 2>&1; then
		apt-get "${apt_wait[@]}" update >&2 || {
			echo "$me: apt-get update failed" >&2
			exit 1
		}
		apt-get "${apt_wait[@]}" install -y --no-install-recommends "${missing[@]}" >&2 || {
			echo "$me: apt-get install ${missing[*]} failed" >&2
			exit 1
		}
	fi
	check
	[ ${#missing[@]} -eq 0 ] && break
	[ "$round" = 3 ] || continue
	# A package that did not bring what was looked for is a failure too.
	echo "$me: still missing after apt-get install: ${missing[*]}" >&2
	exit 1
done
exit 0
