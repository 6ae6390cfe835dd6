#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# Builds the Go fixture variants from fixtures/hello into build/fixtures/.
# Idempotent: a variant is rebuilt only when it is missing, when a source
# (or this script, or the Go version) is newer than it. GOCACHE and GOPATH
# live under build/ so nothing outside the work tree is touched.
#
# Two sets, by two Go releases:
#  - build/fixtures/VARIANT: Debian's Go 1.19 by path ($EBID_GO119, default
#    /usr/lib/go-1.19/bin/go, package golang-1.19-go), whichever `go` is on
#    PATH. The tests over these were written for its shapes: its linker
#    writes no GNU build-id note unless -B asks for one. Stamp:
#    build/fixtures/.go-version.
#  - build/fixtures/current/VARIANT: the `go` on PATH, the release users get
#    today (from Go 1.24 a GNU note by default, derived from the Go build
#    id, outside any PT_NOTE). Stamp: build/fixtures/current/.go-version.
#    Pure Go only (CGO_ENABLED=0, as for the first set).
#
# Usage: scripts/build-fixtures.sh [-f] [VARIANT...]
#   -f  rebuild even when up to date
# Variants (the default set is both lists):
#   by Go 1.19: plain sw pie nobuildid reserved existing, and, only when
#     named, existing-GOARCH (e.g. existing-386, existing-s390x,
#     existing-mips): `existing` cross-built, for checking tests/ebid.py on
#     32-bit and big-endian files;
#   by the current go, named current/NAME:
#     current/default      plain `go build` (Go >= 1.24: GNU note, no PT_NOTE over it)
#     current/pie          -buildmode=pie
#     current/sw           -ldflags=-s -w
#     current/bnone        -ldflags=-B=none (no GNU note)
#     current/nobuildid    -ldflags=-buildid= (no note at all)
#     current/placeholder  -ldflags=-buildid=redacted (as Bazel's rules_go links)
#     current/gobuildid    -ldflags=-buildid=AAAA…(20)/BBBB…(20) -B gobuildid (a go-command form)
set -u
set -o pipefail

top=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
src=$top/fixtures/hello
out=${EBID_FIXTURES:-$top/build/fixtures}
godir=$top/build/go

# The id the `existing` variant carries: 20 non-zero bytes.
EXISTING_ID=0123456789abcdeffedcba9876543210a5a5a5a5
ZERO_ID=0000000000000000000000000000000000000000
# A Go build id of the form the go command writes (2 parts of 20).
GOID2=AAAAAAAAAAAAAAAAAAAA/BBBBBBBBBBBBBBBBBBBB

all_variants=(plain sw pie nobuildid reserved existing
	current/default current/pie current/sw current/bnone current/nobuildid
	current/placeholder current/gobuildid)

# The Go 1.19 of the first set, by path; the current set's is `go` on PATH.
go119=${EBID_GO119:-/usr/lib/go-1.19/bin/go}

die() { echo "build-fixtures: $*" >&2; exit 1; }

force=0
if [ "${1:-}" = "-f" ]; then
	force=1
	shift
fi
if [ $# -gt 0 ]; then
	variants=("$@")
else
	variants=("${all_variants[@]}")
fi

# go_of VARIANT: the go command that builds VARIANT.
go_of() {
	case "$1" in
	current/*) echo go ;;
	*) echo "$go119" ;;
	esac
}
for v in "${variants[@]}"; do
	case "$(go_of "$v")" in
	go)
		command -v go >/dev/null 2>&1 ||
			die "'go' not found: install golang-go (scripts/install-deps.sh)"
		;;
	*)
		[ -x "$go119" ] ||
			die "'$go119' not found: install golang-1.19-go (scripts/install-deps.sh), or set EBID_GO119"
		;;
	esac
done

# Sets flags=(go build arguments) and goarch for variant $1.
variant_flags() {
	goarch=
	case "$1" in
	existing-*)
		goarch=${1#existing-}
		flags=("-ldflags=-B=0x$EXISTING_ID")
		;;
	plain) flags=() ;;
	sw) flags=("-ldflags=-s -w") ;;
	pie) flags=(-buildmode=pie) ;;
	nobuildid) flags=(-ldflags=-buildid=) ;;
	reserved) flags=("-ldflags=-B=0x$ZERO_ID") ;;
	existing) flags=("-ldflags=-B=0x$EXISTING_ID") ;;
	current/default) flags=() ;;
	current/pie) flags=(-buildmode=pie) ;;
	current/sw) flags=("-ldflags=-s -w") ;;
	current/bnone) flags=(-ldflags=-B=none) ;;
	current/nobuildid) flags=(-ldflags=-buildid=) ;;
	current/placeholder) flags=(-ldflags=-buildid=redacted) ;;
	# -B gobuildid with a Go build id of the go command's form (2 parts
	# of 20): an id to keep; a placeholder one is t0177's.
	current/gobuildid) flags=("-ldflags=-buildid=$GOID2 -B gobuildid") ;;
	*) return 1 ;;
	esac
}

export CGO_ENABLED=0
export GOFLAGS=-trimpath
export GOCACHE=$godir/cache
export GOPATH=$godir/path
export GOMODCACHE=$godir/path/pkg/mod
export GOENV=off
export GOPROXY=off
export GOTOOLCHAIN=local
export GO111MODULE=on
export GOWORK=off

mkdir -p "$out/current" "$GOCACHE" "$GOPATH" || die "cannot create $out"

# A change of Go version invalidates every variant of its set: one stamp
# per set, `go version` of the go that built it (the Go 1.19 stamp names
# its path too, so that a different EBID_GO119 rebuilds).
declare -A force_set=() gover_of=()
stamp_of() {
	case "$1" in
	current/*) echo "$out/current/.go-version" ;;
	*) echo "$out/.go-version" ;;
	esac
}
for v in "${variants[@]}"; do
	st=$(stamp_of "$v")
	[ -n "${gover_of[$st]:-}" ] && continue
	g=$(go_of "$v")
	ver=$("$g" version) || die "'$g version' failed"
	gover_of[$st]="$ver ($(command -v "$g"))"
	if [ "$(cat "$st" 2>/dev/null)" != "${gover_of[$st]}" ]; then
		force_set[$st]=1
	fi
done

# Is $1 older than a source file or this script?
stale() {
	local target=$1
	[ -f "$target" ] || return 0
	[ -n "$(find "$src" "${BASH_SOURCE[0]}" -type f -newer "$target" -print -quit)" ]
}

rc=0
declare -A failed_set=()
for v in "${variants[@]}"; do
	variant_flags "$v" || die "unknown variant '$v'"
	bin=$out/$v
	st=$(stamp_of "$v")
	g=$(go_of "$v")
	if [ "$force" = 0 ] && [ -z "${force_set[$st]:-}" ] && ! stale "$bin"; then
		continue
	fi
	args=(build -o "$bin.tmp" ${flags[@]+"${flags[@]}"})
	echo "  GO      build/fixtures/$v ($g)" >&2
	if (cd "$src" && GOARCH=${goarch:-$("$g" env GOARCH)} "$g" "${args[@]}" .) &&
		mv -f "$bin.tmp" "$bin"; then
		:
	else
		rm -f "$bin.tmp"
		echo "build-fixtures: building '$v' failed" >&2
		failed_set[$st]=1
		rc=1
	fi
done
for st in "${!gover_of[@]}"; do
	[ -z "${failed_set[$st]:-}" ] && printf '%s\n' "${gover_of[$st]}" >"$st"
done
exit "$rc"
