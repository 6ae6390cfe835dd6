#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# Builds the compatibility-matrix fixtures (issue 3) into build/matrix/: one
# file per shape, named after the shape. Go internal linking for every
# GOARCH Go supports on Linux; Go cgo, external linking and c-shared; C
# programs and shared libraries from gcc and clang with GNU ld, gold, lld and
# mold; and files crafted from those (no section headers, extended section
# numbering, .shstrtab at the end of the file, trailing data).
#
# Cached: a shape is rebuilt only when it is missing or older than its
# sources, this script, scripts/matrix-craft.py or the toolchain versions.
# Go's build cache lives in build/go/cache (shared with build-fixtures.sh).
#
# Usage: scripts/build-matrix.sh [-f] [-l] [SHAPE|GLOB|GROUP...]
#   -f   rebuild even when up to date
#   -l   list the shapes, one a line: NAME<TAB>GROUP<TAB>KIND<TAB>RUNNER<TAB>NOTE
#        KIND is exe or lib; RUNNER is native or qemu-ARCH (how to run it;
#        qemu-ARCH with -L build/matrix/sysroot/ARCH when that exists);
#        NOTE says how it was made. Nothing is built.
#   GLOB matches shape names ('go-s390x*'); GROUP is one of: go goext c
#   crafted. Default: every shape.
# Environment: EBID_MATRIX (output directory, default build/matrix),
#   EBID_GOCACHE (Go build cache, default build/go/cache)
set -u
set -o pipefail

top=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
out=${EBID_MATRIX:-$top/build/matrix}
craft=$top/scripts/matrix-craft.py
self=$top/scripts/build-matrix.sh

# The id the -B variants are linked with: 20 non-zero bytes.
BID=0123456789abcdeffedcba9876543210a5a5a5a5
ZEROS=0000000000000000000000000000000000000000

GOARCHES=(386 amd64 arm arm64 loong64 mips mipsle mips64 mips64le ppc64 ppc64le riscv64 s390x)
# Go 1.19 links -buildmode=pie internally (CGO_ENABLED=0) only on these.
PIE_GOARCHES=(amd64 arm64 ppc64le)
CCS=(gcc clang)
LDS=(bfd gold lld mold)

die() {
	echo "build-matrix: $*" >&2
	exit 1
}

# ---- the shape table -------------------------------------------------------
# shape NAME GROUP KIND RUNNER NOTE RECIPE...: one row; RECIPE is the build
# function and its arguments.
names=()
declare -A s_group s_kind s_runner s_note s_recipe
shape() {
	local n=$1
	names+=("$n")
	s_group[$n]=$2
	s_kind[$n]=$3
	s_runner[$n]=$4
	s_note[$n]=$5
	shift 5
	s_recipe[$n]=$(printf '%q ' "$@")
}

runner_of() { # GOARCH -> native or qemu-NAME
	case "$1" in
	386 | amd64) echo native ;;
	arm) echo qemu-arm ;;
	arm64) echo qemu-aarch64 ;;
	loong64) echo qemu-loongarch64 ;;
	mips) echo qemu-mips ;;
	mipsle) echo qemu-mipsel ;;
	mips64) echo qemu-mips64 ;;
	mips64le) echo qemu-mips64el ;;
	ppc64) echo qemu-ppc64 ;;
	ppc64le) echo qemu-ppc64le ;;
	riscv64) echo qemu-riscv64 ;;
	s390x) echo qemu-s390x ;;
	*) return 1 ;;
	esac
}

define_shapes() {
	local a r cc ld k id
	for a in "${GOARCHES[@]}"; do
		r=$(runner_of "$a")
		shape "go-$a" go exe "$r" "go build, GOARCH=$a, internal linking" \
			gobuild hello "$a" 0 --
		shape "go-$a-sw" go exe "$r" "go build -ldflags='-s -w', GOARCH=$a" \
			gobuild hello "$a" 0 -- "-ldflags=-s -w"
		shape "go-$a-nobuildid" go exe "$r" "go build -ldflags=-buildid= (no note, no PT_NOTE), GOARCH=$a" \
			gobuild hello "$a" 0 -- "-ldflags=-buildid="
		shape "go-$a-bzero" go exe "$r" "go build -ldflags=-B=0x<40 zeros> (reserved GNU note outside PT_NOTE), GOARCH=$a" \
			gobuild hello "$a" 0 -- "-ldflags=-B=0x$ZEROS"
		shape "go-$a-bid" go exe "$r" "go build -ldflags=-B=0x$BID (GNU note outside PT_NOTE, as Go >= 1.24 by default), GOARCH=$a" \
			gobuild hello "$a" 0 -- "-ldflags=-B=0x$BID"
	done
	for a in "${PIE_GOARCHES[@]}"; do
		shape "go-$a-pie" go exe "$(runner_of "$a")" "go build -buildmode=pie (internal linking), GOARCH=$a" \
			gobuild hello "$a" 0 -- -buildmode=pie
	done

	# cgo, external linking and c-shared: amd64 only (needs the host gcc).
	shape go-amd64-cgo-internal goext exe native "cgo, go build -ldflags=-linkmode=internal" \
		gobuild cgo amd64 1 -- -ldflags=-linkmode=internal
	shape go-amd64-cgo-internal-bid goext exe native "cgo, -ldflags='-linkmode=internal -B=0x$BID'" \
		gobuild cgo amd64 1 -- "-ldflags=-linkmode=internal -B=0x$BID"
	shape go-amd64-cgo-external goext exe native "cgo, default (external) linking; gcc passes --build-id" \
		gobuild cgo amd64 1 --
	shape go-amd64-cgo-external-nobuildid goext exe native "cgo, external linking, -extldflags=-Wl,--build-id=none" \
		gobuild cgo amd64 1 -- "-ldflags=-extldflags=-Wl,--build-id=none"
	shape go-amd64-cgo-external-bzero goext exe native "cgo, external linking, -B=0x<40 zeros> (gcc gets --build-id=0x00..)" \
		gobuild cgo amd64 1 -- "-ldflags=-B=0x$ZEROS"
	shape go-amd64-linkext goext exe native "pure Go, -ldflags=-linkmode=external (gcc's default --build-id)" \
		gobuild hello amd64 1 -- -ldflags=-linkmode=external
	shape go-amd64-linkext-buildid goext exe native "pure Go, -linkmode=external -extldflags=-Wl,--build-id" \
		gobuild hello amd64 1 -- "-ldflags=-linkmode=external -extldflags=-Wl,--build-id"
	shape go-amd64-linkext-nobuildid goext exe native "pure Go, -linkmode=external -extldflags=-Wl,--build-id=none" \
		gobuild hello amd64 1 -- "-ldflags=-linkmode=external -extldflags=-Wl,--build-id=none"
	shape go-amd64-linkext-bzero goext exe native "pure Go, -linkmode=external -B=0x<40 zeros>" \
		gobuild hello amd64 1 -- "-ldflags=-linkmode=external -B=0x$ZEROS"
	shape go-amd64-linkext-bid goext exe native "pure Go, -linkmode=external -B=0x$BID" \
		gobuild hello amd64 1 -- "-ldflags=-linkmode=external -B=0x$BID"
	shape go-amd64-cshared goext lib native "go build -buildmode=c-shared (gcc's default --build-id)" \
		gobuild cshared amd64 1 -- -buildmode=c-shared
	shape go-amd64-cshared-nobuildid goext lib native "-buildmode=c-shared -extldflags=-Wl,--build-id=none" \
		gobuild cshared amd64 1 -- -buildmode=c-shared "-ldflags=-extldflags=-Wl,--build-id=none"
	shape go-amd64-cshared-bzero goext lib native "-buildmode=c-shared -B=0x<40 zeros>" \
		gobuild cshared amd64 1 -- -buildmode=c-shared "-ldflags=-B=0x$ZEROS"

	for cc in "${CCS[@]}"; do
		for ld in "${LDS[@]}"; do
			for k in pie nopie static shlib; do
				for id in buildid nobuildid; do
					local kind=exe
					[ "$k" = shlib ] && kind=lib
					shape "c-$cc-$ld-$k-$id" c "$kind" native \
						"$cc -fuse-ld=$ld, $k, $(idflag "$id")" \
						cbuild "$cc" "$ld" "$k" "$id"
				done
			done
		done
		for ld in "${LDS[@]}"; do
			shape "c-$cc-$ld-pie-bzero" c exe native "$cc -fuse-ld=$ld, pie, $(idflag bzero)" \
				cbuild "$cc" "$ld" pie bzero
		done
	done

	# Crafted from the shapes above: one field or one block changed.
	local base
	for base in go-amd64 go-amd64-bid go-s390x go-arm c-gcc-bfd-pie-buildid c-gcc-bfd-pie-nobuildid c-clang-lld-shlib-buildid; do
		shape "noshdr-$base" crafted "${s_kind[$base]}" "${s_runner[$base]}" \
			"$base with e_shoff, e_shnum and e_shstrndx zeroed (no section headers)" \
			crafted noshdr "$base"
	done
	for base in go-amd64 go-amd64-bid go-mips go-ppc64 c-gcc-bfd-pie-nobuildid; do
		shape "xnum-$base" crafted "${s_kind[$base]}" "${s_runner[$base]}" \
			"$base rewritten to extended numbering (e_shnum 0, e_shstrndx SHN_XINDEX, counts in section 0)" \
			crafted xnum "$base"
	done
	for base in go-amd64 go-mips c-gcc-bfd-pie-buildid c-gcc-lld-shlib-buildid; do
		shape "pnxnum-$base" crafted "${s_kind[$base]}" "${s_runner[$base]}" \
			"$base with e_phnum PN_XNUM (0xffff), the count in section 0's sh_info" \
			crafted pnxnum "$base"
	done
	for base in go-amd64 go-amd64-bid go-s390x go-mipsle; do
		shape "shstrend-$base" crafted "${s_kind[$base]}" "${s_runner[$base]}" \
			"$base with .shstrtab moved to the end of the file (as newer Go releases write it)" \
			crafted shstrtab-end "$base"
	done
	for base in go-amd64 go-arm go-ppc64 go-amd64-bid c-gcc-bfd-pie-buildid c-gcc-bfd-pie-nobuildid c-gcc-bfd-shlib-nobuildid; do
		shape "trail-$base" crafted "${s_kind[$base]}" "${s_runner[$base]}" \
			"$base with 4099 bytes of data appended after its last byte" \
			crafted trail "$base"
	done
	# A real extended-numbering file: 65300 sections from the assembler,
	# linked by lld and gold (GNU ld and mold refuse >= 65280 sections).
	for ld in lld gold; do
		for k in pie shlib; do
			for id in buildid nobuildid; do
				local kind=exe
				[ "$k" = shlib ] && kind=lib
				shape "many-gcc-$ld-$k-$id" crafted "$kind" native \
					"65300 extra sections (extended numbering), gcc -fuse-ld=$ld, $k, $(idflag "$id")" \
					manybuild "$ld" "$k" "$id"
			done
		done
	done
}

idflag() {
	case "$1" in
	buildid) echo "-Wl,--build-id" ;;
	nobuildid) echo "-Wl,--build-id=none" ;;
	bzero) echo "-Wl,--build-id=0x<40 zeros>" ;;
	esac
}

# ---- recipes ---------------------------------------------------------------
export GOCACHE=${EBID_GOCACHE:-$top/build/go/cache}
export GOPATH=$top/build/go/path
export GOMODCACHE=$top/build/go/path/pkg/mod
export GOENV=off GOPROXY=off GOTOOLCHAIN=local GO111MODULE=on GOWORK=off
export GOFLAGS=-trimpath

# sources_of NAME: the files a shape is built from (for the staleness check).
sources_of() {
	local r=${s_recipe[$1]}
	case "$r" in
	"gobuild hello "*) echo "$top/fixtures/hello" ;;
	gobuild*) echo "$top/fixtures/gomatrix" ;;
	cbuild*) echo "$top/fixtures/c" ;;
	manybuild*) echo "$top/fixtures/c" ;;
	crafted*)
		local base
		base=$(eval "set -- $r; echo \$3")
		echo "$craft"
		echo "$out/$base"
		;;
	esac
}

# gobuild SRC GOARCH CGO -- ARGS...: go build SRC (hello, cgo, cshared).
gobuild() {
	local src=$1 arch=$2 cgo=$3 dir pkg=.
	shift 4
	case "$src" in
	hello) dir=$top/fixtures/hello ;;
	cgo) dir=$top/fixtures/gomatrix pkg=./cgo ;;
	cshared) dir=$top/fixtures/gomatrix pkg=./cshared ;;
	esac
	(cd "$dir" && CGO_ENABLED=$cgo GOOS=linux GOARCH=$arch CC=gcc \
		go build -o "$target.tmp" "$@" "$pkg")
	local rc=$?
	# c-shared also writes a header next to the library.
	rm -f "$target.tmp.h" "${target%.tmp}.h"
	return "$rc"
}

# cbuild CC LD KIND ID: fixtures/c built with CC -fuse-ld=LD.
cbuild() {
	local cc=$1 ld=$2 k=$3 id=$4 flags
	flags=(-O2 -g "-fuse-ld=$ld")
	case "$id" in
	buildid) flags+=("-Wl,--build-id") ;;
	nobuildid) flags+=("-Wl,--build-id=none") ;;
	bzero) flags+=("-Wl,--build-id=0x$ZEROS") ;;
	esac
	case "$k" in
	pie) flags+=(-fPIE -pie "$top/fixtures/c/hello.c") ;;
	nopie) flags+=(-fno-PIE -no-pie "$top/fixtures/c/hello.c") ;;
	static) flags+=(-fno-PIE -no-pie -static "$top/fixtures/c/hello.c") ;;
	shlib) flags+=(-fPIC -shared "$top/fixtures/c/lib.c") ;;
	esac
	"$cc" "${flags[@]}" -o "$target.tmp"
}

# manybuild LD KIND ID: like cbuild with gcc, plus an object of 65300
# sections (generated assembler), so the output needs extended numbering.
manybuild() {
	local ld=$1 k=$2 id=$3 obj=$out/.many.o flags
	if [ ! -f "$obj" ] || [ "$self" -nt "$obj" ]; then
		python3 -c '
import sys
with open(sys.argv[1], "w") as f:
    for i in range(65300):
        f.write(".section .m%d,\"a\"\n.byte %d\n" % (i, i & 0xff))
    f.write(".section .note.GNU-stack,\"\",@progbits\n")
' "$out/.many.s" && as -o "$obj.tmp" "$out/.many.s" && mv -f "$obj.tmp" "$obj" &&
			rm -f "$out/.many.s" || return 1
	fi
	flags=(-O2 -g "-fuse-ld=$ld")
	case "$id" in
	buildid) flags+=("-Wl,--build-id") ;;
	nobuildid) flags+=("-Wl,--build-id=none") ;;
	esac
	case "$k" in
	pie) flags+=(-fPIE -pie "$top/fixtures/c/hello.c") ;;
	shlib) flags+=(-fPIC -shared "$top/fixtures/c/lib.c") ;;
	esac
	gcc "${flags[@]}" "$obj" -o "$target.tmp"
}

# crafted HOW BASE: scripts/matrix-craft.py HOW build/matrix/BASE OUT.
crafted() {
	[ -f "$out/$2" ] || {
		echo "build-matrix: base shape '$2' was not built" >&2
		return 1
	}
	python3 "$craft" "$1" "$out/$2" "$target.tmp"
}

# ---- main ------------------------------------------------------------------
force=0
list=0
while [ $# -gt 0 ]; do
	case "$1" in
	-f) force=1 ;;
	-l) list=1 ;;
	-h | --help)
		sed -n '3,23s/^# \{0,1\}//p' "$0"
		exit 0
		;;
	-*) die "unknown option '$1'" ;;
	*) break ;;
	esac
	shift
done

define_shapes

# Which shapes: names and groups given, else all; crafted shapes pull in
# their bases.
want=()
if [ $# -eq 0 ]; then
	want=("${names[@]}")
else
	for arg in "$@"; do
		found=0
		for n in "${names[@]}"; do
			# shellcheck disable=SC2053 # $arg may be a glob
			if [[ $n == $arg ]] || [ "${s_group[$n]}" = "$arg" ]; then
				want+=("$n")
				found=1
			fi
		done
		[ "$found" = 1 ] || die "unknown shape or group '$arg' (see -l)"
	done
fi

if [ "$list" = 1 ]; then
	for n in "${want[@]}"; do
		printf '%s\t%s\t%s\t%s\t%s\n' "$n" "${s_group[$n]}" "${s_kind[$n]}" \
			"${s_runner[$n]}" "${s_note[$n]}"
	done
	exit 0
fi

"$top/scripts/install-matrix-deps.sh" || die "missing dependencies"
mkdir -p "$out" "$GOCACHE" "$GOPATH" || die "cannot create $out"

# A change of toolchain invalidates every shape.
tools=$( {
	go version
	gcc --version | head -n 1
	clang --version | head -n 1
	ld.bfd --version | head -n 1
	ld.gold --version | head -n 1
	ld.lld --version | head -n 1
	ld.mold --version | head -n 1
} 2>&1)
if [ "$(cat "$out/.tools" 2>/dev/null)" != "$tools" ]; then
	force=1
fi

# Is the shape's file older than a source, this script or the craft script?
stale() {
	local f=$out/$1 s
	[ -f "$f" ] || return 0
	[ "$self" -nt "$f" ] && return 0
	while IFS= read -r s; do
		[ -e "$s" ] || return 0
		[ -n "$(find "$s" -type f -newer "$f" -print -quit)" ] && return 0
	done < <(sources_of "$1")
	return 1
}

# Crafted shapes need their bases: build those first (they may not be in
# the list asked for).
order=()
declare -A queued
for n in "${want[@]}"; do
	if [ "${s_group[$n]}" = crafted ]; then
		b=$(eval "set -- ${s_recipe[$n]}; echo \${3:-}")
		if [ -n "$b" ] && [ -n "${s_group[$b]:-}" ] && [ -z "${queued[$b]:-}" ]; then
			order+=("$b")
			queued[$b]=1
		fi
	fi
done
for n in "${want[@]}"; do
	[ -n "${queued[$n]:-}" ] && continue
	order+=("$n")
	queued[$n]=1
done

# The loader program that runs the shared-library shapes.
loader=$out/loader
if [ ! -x "$loader" ] || [ "$top/fixtures/c/loader.c" -nt "$loader" ] || [ "$force" = 1 ]; then
	gcc -O2 -o "$loader.tmp" "$top/fixtures/c/loader.c" -ldl && mv -f "$loader.tmp" "$loader" ||
		die "cannot build $loader"
fi

# qemu-user sysroots (qemu-ARCH -L build/matrix/sysroot/ARCH) for the Go
# PIE binaries, which name the target's dynamic loader. Go asks for
# /lib64/ld64.so.1 on ppc64le, where glibc's loader is ld64.so.2.
mkdir -p "$out/sysroot/ppc64le/lib64" &&
	ln -sfn /usr/aarch64-linux-gnu "$out/sysroot/aarch64" &&
	ln -sfn /usr/powerpc64le-linux-gnu/lib "$out/sysroot/ppc64le/lib" &&
	ln -sfn /usr/powerpc64le-linux-gnu/lib/ld64.so.2 "$out/sysroot/ppc64le/lib64/ld64.so.1" ||
	die "cannot make the qemu sysroots in $out/sysroot"

start=$(date +%s%N)
rc=0
built=0
failed=()
for n in "${order[@]}"; do
	target=$out/$n
	if [ "$force" = 0 ] && ! stale "$n"; then
		continue
	fi
	echo "  MATRIX  build/matrix/$n" >&2
	rm -f "$target.tmp"
	# A subshell, so that a recipe's error cannot end this script.
	if (eval "${s_recipe[$n]}") >"$out/.$n.log" 2>&1 && mv -f "$target.tmp" "$target"; then
		built=$((built + 1))
		rm -f "$out/.$n.log"
	else
		rm -f "$target.tmp"
		echo "build-matrix: building '$n' failed:" >&2
		sed 's/^/  /' "$out/.$n.log" | tail -n 20 >&2
		failed+=("$n")
		rc=1
	fi
done
end=$(date +%s%N)
[ "$rc" = 0 ] && printf '%s\n' "$tools" >"$out/.tools"
ms=$(((end - start) / 1000000))
printf 'build-matrix: %d of %d shapes built in %d.%01d s%s\n' "$built" "${#order[@]}" \
	$((ms / 1000)) $((ms % 1000 / 100)) "${failed[*]:+; failed: ${failed[*]}}" >&2
exit "$rc"
