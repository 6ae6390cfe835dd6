#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# Installs what the robustness tests (t06NN, mk/robust.mk) need on top of
# scripts/install-deps.sh: clang with libFuzzer and the sanitizer runtimes,
# valgrind, attr (setfattr), acl (setfacl), libcap2-bin (setcap), e2fsprogs
# (chattr), util-linux (mount, setpriv, unshare). A no-op, in well under a
# second, when everything is present; safe to run from every test.
#
# Usage: scripts/install-robust-deps.sh [--check]
#   --check  only report; exit 1 when something is missing
set -u

check_only=0
case "${1:-}" in
--check) check_only=1 ;;
"") ;;
-h | --help)
	sed -n '3,10s/^# \{0,1\}//p' "$0"
	exit 0
	;;
*)
	echo "install-robust-deps: unknown option '$1'" >&2
	exit 64
	;;
esac

missing=()
need() { # need PACKAGE: record it once
	local p
	for p in ${missing[@]+"${missing[@]}"}; do
		[ "$p" = "$1" ] && return 0
	done
	missing+=("$1")
}

# command -> Debian package
cmd_pkgs=(
	gcc:gcc
	make:make
	python3:python3
	clang:clang
	valgrind:valgrind
	setfattr:attr
	getfattr:attr
	setfacl:acl
	getfacl:acl
	setcap:libcap2-bin
	getcap:libcap2-bin
	chattr:e2fsprogs
	lsattr:e2fsprogs
	mount:mount
	setpriv:util-linux
	unshare:util-linux
	timeout:coreutils
	mknod:coreutils
	readelf:binutils
)
for entry in "${cmd_pkgs[@]}"; do
	command -v "${entry%%:*}" >/dev/null 2>&1 || need "${entry#*:}"
done

# libFuzzer and the sanitizer runtimes come in libclang-rt-NN-dev, whose
# NN follows the clang version; clang prints the bare name when it lacks it.
if command -v clang >/dev/null 2>&1; then
	for lib in libclang_rt.fuzzer-x86_64.a libclang_rt.asan-x86_64.a \
		libclang_rt.ubsan_standalone-x86_64.a; do
		case "$(uname -m)" in
		x86_64) ;;
		*) lib=${lib/x86_64/$(uname -m)} ;;
		esac
		f=$(clang -print-file-name="$lib" 2>/dev/null)
		if [ ! -f "$f" ]; then
			v=$(clang --version | sed -n 's/.*clang version \([0-9]*\).*/\1/p' | head -n 1)
			need "libclang-rt-${v:-14}-dev"
		fi
	done
fi

if [ ${#missing[@]} -eq 0 ]; then
	exit 0
fi

if [ "$check_only" = 1 ]; then
	echo "install-robust-deps: missing Debian packages: ${missing[*]}" >&2
	exit 1
fi

if [ "$(id -u)" != 0 ]; then
	{
		echo "install-robust-deps: missing Debian packages: ${missing[*]}"
		echo "install-robust-deps: run this as root, or install them with:"
		echo "  sudo apt-get update && sudo apt-get install -y --no-install-recommends ${missing[*]}"
	} >&2
	exit 1
fi

echo "install-robust-deps: installing ${missing[*]}" >&2
export DEBIAN_FRONTEND=noninteractive
# Serialise with other installers run by tests at the same moment.
exec 9>/tmp/.elf-buildid-apt.lock
flock 9 2>/dev/null || true
apt-get update >&2 || {
	echo "install-robust-deps: apt-get update failed" >&2
	exit 1
}
apt-get install -y --no-install-recommends "${missing[@]}" >&2 || {
	echo "install-robust-deps: apt-get install ${missing[*]} failed" >&2
	exit 1
}
exit 0
