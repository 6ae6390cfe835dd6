#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# Installs what the compatibility matrix (scripts/build-matrix.sh,
# scripts/compat-matrix, tests/t03*.sh) needs beyond scripts/install-deps.sh:
# the C toolchains and linkers (gcc, clang, GNU ld and gold, lld, mold),
# qemu-user for the foreign architectures, perf and elfutils for the checks.
# Idempotent; a no-op in well under a second when everything is present.
#
# Usage: scripts/install-matrix-deps.sh [--check]
#   --check  only report; exit 1 when something is missing
set -u

check_only=0
case "${1:-}" in
--check) check_only=1 ;;
"") ;;
*)
	echo "install-matrix-deps: unknown option '$1'" >&2
	exit 64
	;;
esac

# command (as found in PATH or at an absolute path) -> Debian package
cmd_pkgs=(
	go:golang-go
	gcc:gcc
	clang:clang
	ld.bfd:binutils
	ld.gold:binutils
	ld.lld:lld
	ld.mold:mold
	readelf:binutils
	objcopy:binutils
	as:binutils
	eu-readelf:elfutils
	perf:linux-perf
	python3:python3
	qemu-i386:qemu-user
	qemu-arm:qemu-user
	qemu-aarch64:qemu-user
	qemu-loongarch64:qemu-user
	qemu-mips:qemu-user
	qemu-mipsel:qemu-user
	qemu-mips64:qemu-user
	qemu-mips64el:qemu-user
	qemu-ppc64:qemu-user
	qemu-ppc64le:qemu-user
	qemu-riscv64:qemu-user
	qemu-s390x:qemu-user
	cmp:diffutils
	file:file
)
missing=()
for entry in "${cmd_pkgs[@]}"; do
	c=${entry%%:*} p=${entry#*:}
	command -v "$c" >/dev/null 2>&1 && continue
	case " ${missing[*]-} " in *" $p "*) ;; *) missing+=("$p") ;; esac
done
# Static C programs need libc.a (libc6-dev, which gcc pulls in).
[ -f /usr/lib/x86_64-linux-gnu/libc.a ] || missing+=(libc6-dev)
# Go -buildmode=pie binaries for arm64 and ppc64le name the target's
# dynamic loader; qemu-user finds it with -L /usr/<triplet>.
[ -e /usr/aarch64-linux-gnu/lib/ld-linux-aarch64.so.1 ] || missing+=(libc6-arm64-cross)
[ -e /usr/powerpc64le-linux-gnu/lib/ld64.so.2 ] || missing+=(libc6-ppc64el-cross)

[ ${#missing[@]} -eq 0 ] && exit 0

if [ "$check_only" = 1 ] || [ "$(id -u)" != 0 ]; then
	echo "install-matrix-deps: missing Debian packages: ${missing[*]}" >&2
	[ "$check_only" = 1 ] ||
		echo "install-matrix-deps: as root: apt-get install -y --no-install-recommends ${missing[*]}" >&2
	exit 1
fi

echo "install-matrix-deps: installing ${missing[*]}" >&2
export DEBIAN_FRONTEND=noninteractive
# A fresh machine has no package lists; update only when the install fails.
if ! apt-get install -y --no-install-recommends "${missing[@]}" >/dev/null 2>&1; then
	apt-get update >/dev/null || {
		echo "install-matrix-deps: apt-get update failed" >&2
		exit 1
	}
	apt-get install -y --no-install-recommends "${missing[@]}" || {
		echo "install-matrix-deps: apt-get install ${missing[*]} failed" >&2
		exit 1
	}
fi
exit 0
