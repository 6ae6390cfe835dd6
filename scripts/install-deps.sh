#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# Checks for what elf-buildid's build, fixtures and tests need, and installs
# the missing Debian packages (as root), or says what to install and exits 1.
# A no-op, in well under a second, when everything is present.
#
# Usage: scripts/install-deps.sh [--check]
#   --check  only report; exit 1 when something is missing
set -u

check_only=0
case "${1:-}" in
--check) check_only=1 ;;
"") ;;
-h | --help)
	sed -n '3,8s/^# \{0,1\}//p' "$0"
	exit 0
	;;
*)
	echo "install-deps: unknown option '$1'" >&2
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
	pkg-config:pkg-config
	go:golang-go
	perf:linux-perf
	eu-readelf:elfutils
	eu-elflint:elfutils
	eu-strip:elfutils
	readelf:binutils
	objcopy:binutils
	strip:binutils
	file:file
	python3:python3
	cmp:diffutils
	qemu-aarch64:qemu-user
	clang:clang
)
for entry in "${cmd_pkgs[@]}"; do
	command -v "${entry%%:*}" >/dev/null 2>&1 || need "${entry#*:}"
done

# Libraries, found the way the Makefile finds them.
if command -v pkg-config >/dev/null 2>&1; then
	pkg-config --exists libelf || need libelf-dev
	pkg-config --exists libcrypto || need libssl-dev
	# gelf.h ships in libelf-dev; look where pkg-config says, then /usr/include.
	incs="$(pkg-config --variable=includedir libelf 2>/dev/null) /usr/include"
	found=0
	for d in $incs; do
		[ -f "$d/gelf.h" ] && found=1 && break
	done
	[ "$found" = 1 ] || need libelf-dev
else
	need libelf-dev
	need libssl-dev
fi

if [ ${#missing[@]} -eq 0 ]; then
	exit 0
fi

if [ "$check_only" = 1 ]; then
	echo "install-deps: missing Debian packages: ${missing[*]}" >&2
	exit 1
fi

if [ "$(id -u)" != 0 ]; then
	{
		echo "install-deps: missing Debian packages: ${missing[*]}"
		echo "install-deps: run this as root, or install them with:"
		echo "  sudo apt-get update && sudo apt-get install -y --no-install-recommends ${missing[*]}"
	} >&2
	exit 1
fi

echo "install-deps: installing ${missing[*]}" >&2
export DEBIAN_FRONTEND=noninteractive
apt-get update || {
	echo "install-deps: apt-get update failed" >&2
	exit 1
}
apt-get install -y --no-install-recommends "${missing[@]}" || {
	echo "install-deps: apt-get install ${missing[*]} failed" >&2
	exit 1
}
exit 0
