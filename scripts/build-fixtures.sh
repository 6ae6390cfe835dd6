#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# Builds the Go fixture variants from fixtures/hello into build/fixtures/.
# Idempotent: a variant is rebuilt only when it is missing, when a source
# (or this script, or the Go version) is newer than it. GOCACHE and GOPATH
# live under build/ so nothing outside the work tree is touched.
#
# Usage: scripts/build-fixtures.sh [-f] [VARIANT...]
#   -f  rebuild even when up to date
# Variants: plain sw pie nobuildid reserved existing (the default set), and,
# only when named, existing-GOARCH (e.g. existing-386, existing-s390x,
# existing-mips): `existing` cross-built, for checking tests/ebid.py on
# 32-bit and big-endian files.
set -u
set -o pipefail

top=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
src=$top/fixtures/hello
out=${EBID_FIXTURES:-$top/build/fixtures}
godir=$top/build/go

# The id the `existing` variant carries: 20 non-zero bytes.
EXISTING_ID=0123456789abcdeffedcba9876543210a5a5a5a5
ZERO_ID=0000000000000000000000000000000000000000

all_variants=(plain sw pie nobuildid reserved existing)

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

command -v go >/dev/null 2>&1 ||
	die "'go' not found: install golang-go (scripts/install-deps.sh)"

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

mkdir -p "$out" "$GOCACHE" "$GOPATH" || die "cannot create $out"

# A change of Go version invalidates every variant.
gover=$(go version) || die "'go version' failed"
if [ "$(cat "$out/.go-version" 2>/dev/null)" != "$gover" ]; then
	force=1
fi

# Is $1 older than a source file or this script?
stale() {
	local target=$1
	[ -f "$target" ] || return 0
	[ -n "$(find "$src" "${BASH_SOURCE[0]}" -type f -newer "$target" -print -quit)" ]
}

rc=0
for v in "${variants[@]}"; do
	variant_flags "$v" || die "unknown variant '$v'"
	bin=$out/$v
	if [ "$force" = 0 ] && ! stale "$bin"; then
		continue
	fi
	args=(build -o "$bin.tmp" ${flags[@]+"${flags[@]}"})
	echo "  GO      build/fixtures/$v" >&2
	if (cd "$src" && GOARCH=${goarch:-$(go env GOARCH)} go "${args[@]}" .) &&
		mv -f "$bin.tmp" "$bin"; then
		:
	else
		rm -f "$bin.tmp"
		echo "build-fixtures: building '$v' failed" >&2
		rc=1
	fi
done
[ "$rc" = 0 ] && printf '%s\n' "$gover" >"$out/.go-version"
exit "$rc"
