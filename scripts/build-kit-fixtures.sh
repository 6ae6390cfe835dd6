#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# Builds the fixtures of the packaging and tree tests (t05NN) into
# build/fixtures/kit/, from fixtures/kit/*.c and fixtures/hello:
#   hello-arm64   the Go sample for GOARCH=arm64 (no GNU id, internal link),
#                 built by Debian's Go 1.19 by path ($EBID_GO119, default
#                 /usr/lib/go-1.19/bin/go), as scripts/build-fixtures.sh
#                 builds plain and pie: Go >= 1.24 would write a GNU note
#   cprog         C program, gcc -g (GNU ld's own build-id)
#   cprog-noroom  C program, static, gold, -Wl,--build-id=none: no note and no
#                 room for one (needs libc.a, and ld.gold from binutils)
#   libkit.so.1   C shared library, gcc -g -shared (GNU ld's build-id)
#   kitobj.o      relocatable object (to be skipped)
# The amd64 Go programs come from scripts/build-fixtures.sh (plain, pie).
# Idempotent: a fixture is rebuilt only when missing or older than its
# sources or this script.
#
# Usage: scripts/build-kit-fixtures.sh [-f]
#   -f  rebuild even when up to date
set -u
set -o pipefail

top=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
src=$top/fixtures/kit
out=${EBID_FIXTURES:-$top/build/fixtures}/kit
godir=$top/build/go

die() { echo "build-kit-fixtures: $*" >&2; exit 1; }

force=0
[ "${1:-}" = "-f" ] && force=1

go119=${EBID_GO119:-/usr/lib/go-1.19/bin/go}
for t in "$go119" gcc; do
	command -v "$t" >/dev/null 2>&1 || die "'$t' not found (scripts/install-deps.sh)"
done

export CGO_ENABLED=0 GOFLAGS=-trimpath GOCACHE=$godir/cache GOPATH=$godir/path
export GOMODCACHE=$godir/path/pkg/mod GOENV=off GOPROXY=off GOTOOLCHAIN=local
export GO111MODULE=on GOWORK=off
mkdir -p "$out" "$GOCACHE" "$GOPATH" || die "cannot create $out"

# stale TARGET SOURCE...: is TARGET missing or older than a source?
stale() {
	local target=$1 s
	shift
	[ "$force" = 1 ] && return 0
	[ -f "$target" ] || return 0
	for s in "$@" "${BASH_SOURCE[0]}"; do
		[ "$s" -nt "$target" ] && return 0
	done
	return 1
}

# build TARGET SOURCE... -- FUNC: run FUNC (it writes $tmp) when stale.
rc=0
build() {
	local target=$out/$1
	shift
	local srcs=()
	while [ "$1" != -- ]; do
		srcs+=("$1")
		shift
	done
	shift
	stale "$target" "${srcs[@]}" || return 0
	echo "  BUILD   build/fixtures/kit/$(basename "$target")" >&2
	tmp=$target.tmp
	if "$@" && mv -f "$tmp" "$target"; then
		:
	else
		rm -f "$tmp"
		echo "build-kit-fixtures: building '$(basename "$target")' failed" >&2
		rc=1
	fi
}

# Each writes $tmp.
mk_hello_arm64() { (cd "$top/fixtures/hello" && GOARCH=arm64 "$go119" build -o "$tmp" .); }
mk_cprog() { gcc -g -O1 -o "$tmp" "$src/prog.c"; }
# Static gold: the first PT_LOAD runs past the first page, so no strategy
# has room (a bfd program without a build-id gets move-note now).
mk_cprog_noroom() {
	gcc -g -O1 -static -fuse-ld=gold -Wl,--build-id=none -o "$tmp" "$src/prog.c"
}
mk_libkit() { gcc -g -O1 -shared -fPIC -Wl,-soname,libkit.so.1 -o "$tmp" "$src/libkit.c"; }
mk_kitobj() { gcc -g -O1 -c -o "$tmp" "$src/obj.c"; }

build hello-arm64 "$top/fixtures/hello/main.go" -- mk_hello_arm64
build cprog "$src/prog.c" -- mk_cprog
build cprog-noroom "$src/prog.c" -- mk_cprog_noroom
build libkit.so.1 "$src/libkit.c" -- mk_libkit
build kitobj.o "$src/obj.c" -- mk_kitobj
exit "$rc"
