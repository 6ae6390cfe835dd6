#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# Installs what the integration-kit and gate tests (t04NN, t05NN) need on top
# of scripts/install-deps.sh: ruby (the Omnibus hook example), gdb (debug
# files found by build-id), python3 (JUnit/JSON checks), unshare (hiding
# perf in a private mount namespace). A no-op, in well under a second, when
# everything is present; safe to run from every test.
#
# Usage: scripts/install-kit-deps.sh [--check]
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
	echo "install-kit-deps: unknown option '$1'" >&2
	exit 64
	;;
esac

# command -> Debian package
cmd_pkgs=(
	ruby:ruby
	gdb:gdb
	python3:python3
	unshare:util-linux
	objcopy:binutils
	strip:binutils
	gcc:gcc
	make:make
	go:golang-go
	perf:linux-perf
	file:file
)
missing=()
for entry in "${cmd_pkgs[@]}"; do
	command -v "${entry%%:*}" >/dev/null 2>&1 && continue
	p=${entry#*:}
	case " ${missing[*]-} " in
	*" $p "*) ;;
	*) missing+=("$p") ;;
	esac
done

[ ${#missing[@]} -eq 0 ] && exit 0

if [ "$check_only" = 1 ]; then
	echo "install-kit-deps: missing Debian packages: ${missing[*]}" >&2
	exit 1
fi
if [ "$(id -u)" != 0 ]; then
	{
		echo "install-kit-deps: missing Debian packages: ${missing[*]}"
		echo "install-kit-deps: run this as root, or install them with:"
		echo "  sudo apt-get update && sudo apt-get install -y --no-install-recommends ${missing[*]}"
	} >&2
	exit 1
fi

# Tests may run in parallel: one apt run at a time.
exec 9>/var/lock/elf-buildid-kit-deps.lock 2>/dev/null || exec 9>/tmp/elf-buildid-kit-deps.lock
flock 9
# Another process may have installed them while this one waited.
still=()
for p in "${missing[@]}"; do
	dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q 'install ok installed' || still+=("$p")
done
[ ${#still[@]} -eq 0 ] && exit 0

echo "install-kit-deps: installing ${still[*]}" >&2
export DEBIAN_FRONTEND=noninteractive
apt-get update >&2 || {
	echo "install-kit-deps: apt-get update failed" >&2
	exit 1
}
apt-get install -y --no-install-recommends "${still[@]}" >&2 || {
	echo "install-kit-deps: apt-get install ${still[*]} failed" >&2
	exit 1
}
exit 0
