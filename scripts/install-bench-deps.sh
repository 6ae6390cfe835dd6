#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# Checks for the programs scripts/bench measures with or against, and installs
# the missing Debian packages (as root), or says what to install and exits 1.
# A no-op, in well under a second, when everything is present.
#
# Usage: scripts/install-bench-deps.sh [--check]
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
	echo "install-bench-deps: unknown option '$1'" >&2
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

# /usr/bin/time is named by path: the shell keyword `time` cannot report
# peak resident memory (-f %M).
[ -x /usr/bin/time ] || need time

# command -> Debian package
cmd_pkgs=(
	python3:python3
	openssl:openssl
	go:golang-go
	gcc:gcc
	perf:linux-perf
	lscpu:util-linux
	truncate:coreutils
	sync:coreutils
)
for entry in "${cmd_pkgs[@]}"; do
	command -v "${entry%%:*}" >/dev/null 2>&1 || need "${entry#*:}"
done

if [ ${#missing[@]} -eq 0 ]; then
	exit 0
fi

if [ "$check_only" = 1 ]; then
	echo "install-bench-deps: missing Debian packages: ${missing[*]}" >&2
	exit 1
fi

if [ "$(id -u)" != 0 ]; then
	{
		echo "install-bench-deps: missing Debian packages: ${missing[*]}"
		echo "install-bench-deps: run this as root, or install them with:"
		echo "  sudo apt-get update && sudo apt-get install -y --no-install-recommends ${missing[*]}"
	} >&2
	exit 1
fi

echo "install-bench-deps: installing ${missing[*]}" >&2
export DEBIAN_FRONTEND=noninteractive
apt-get update || {
	echo "install-bench-deps: apt-get update failed" >&2
	exit 1
}
apt-get install -y --no-install-recommends "${missing[@]}" || {
	echo "install-bench-deps: apt-get install ${missing[*]} failed" >&2
	exit 1
}
exit 0
