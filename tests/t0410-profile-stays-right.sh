#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# The problem elf-buildid exists for, with real perf runs (issue 4):
# profile version 1 of a Go program, replace it at the same path by version
# 2 (same code, every function renamed, so the addresses line up), then run
# perf report on the old profile.
#   - no GNU id: perf silently names v1's samples with v2's functions;
#   - injected ids: perf sees the mismatch and never names them after v2;
#   - v1 placed by `elf-buildid link` before the replacement (perf cache, or
#     a debug dir read through --symfs): perf names the OLD function.
# Profiles are recorded with -N (no build-id cache): the case of a profile
# read later, elsewhere, by another user or after the cache was cleaned.
# perf record's own cache is checked apart: our entries must coexist with it.
# HOME is private, so the user's ~/.debug is never read or written. (perf
# 6.1 ignores PERF_BUILDID_DIR as input; it only exports it.)
. "$(dirname "$0")/lib.sh"
require_tool

require_deps kit

export HOME=$SCRATCH/home
export PERF_BUILDID_DIR=$HOME/.debug
mkdir -p "$HOME"

export CGO_ENABLED=0 GOFLAGS=-trimpath GOPROXY=off GO111MODULE=on GOWORK=off
export GOMODCACHE=$GOPATH/pkg/mod

# build VERSION OUT: go build fixtures/profile/VERSION to OUT. go build
# replaces OUT by a new inode, as a real rebuild or deploy does. Built by
# Debian's Go 1.19 by path ($GO119, tests/lib.sh): the "no GNU id" cases
# are about a Go binary with no id, which Go >= 1.24's linker no longer
# writes by default (it writes one derived from the Go build id).
build() {
	(cd "$TOP/fixtures/profile/$1" && "$GO119" build -o "$2" .) >"$SCRATCH/.go.log" 2>&1 ||
		t_fail "go build $1 -o $2: $(head -c 1000 "$SCRATCH/.go.log")"
}

# rec DATA BIN [PERF_OPTIONS...]: profile BIN (about 0.7 s of hotLoop).
rec() {
	local data=$1 bin=$2
	shift 2
	rm -f "$data"
	perf record -q --no-bpf-event "$@" -o "$data" -- "$bin" >"$SCRATCH/.rec.log" 2>&1 ||
		t_fail "perf record $* $bin: $(head -c 1000 "$SCRATCH/.rec.log")"
}

# report DATA [OPTIONS...]: the sample lines of perf report, by symbol.
report() {
	local data=$1
	shift
	perf report --stdio -i "$data" --sort sym,dso "$@" 2>/dev/null | grep -v '^#' | grep '%'
}

# top_line DATA [OPTIONS...]: the hottest symbol's line.
top_line() { report "$@" | head -n 1; }

gnu_id() { readelf_ids "$1" | head -n 1; }

perf_ok=1
perf_record_works || perf_ok=0
if [ "$perf_ok" = 0 ]; then
	# No perf here: every block below says so rather than passing.
	t_skip "profile after a redeploy (all blocks)" "$perf_record_why"
	t_done
fi

# --- 1. the contrast: no id -------------------------------------------------
t_begin "no GNU id: after v2 replaces v1 at the same path, perf report names v1's samples after v2's functions"
d=$SCRATCH/noid
mkdir -p "$d"
build v1 "$d/app"
expect_eq "GNU id of the plain Go build" "$(gnu_id "$d/app")" ""
rec "$d/old.data" "$d/app" -N
expect_match "v1 profile read before the replacement" "$(top_line "$d/old.data")" \
	'\[\.\] main\.hotLoopVersionOne +app'
build v2 "$d/app"
got=$(top_line "$d/old.data")
expect_match "old profile after the replacement (the wrong answer perf gives)" "$got" \
	'\[\.\] main\.hotLoopVersionTwo +app'
t_end

# --- 2. injected ids: perf detects the mismatch -----------------------------
t_begin "injected ids: perf report never names v1's samples after v2's functions"
d=$SCRATCH/id
mkdir -p "$d"
build v1 "$d/app"
inject_ok "$d/app"
id1=$id
rec "$d/old.data" "$d/app" -N
expect_match "v1 profile read before the replacement" "$(top_line "$d/old.data")" \
	'\[\.\] main\.hotLoopVersionOne +app'
expect_match "profile records v1's id" "$(perf buildid-list -i "$d/old.data" 2>/dev/null | grep -F " $d/app")" \
	"^$id1 "
build v2 "$d/app"
inject_ok "$d/app"
expect_ne "v2's id" "$id" "$id1"
all=$(report "$d/old.data")
if printf '%s\n' "$all" | grep_q 'VersionTwo'; then
	t_fail "perf report names v2's functions: $(printf '%s\n' "$all" | grep 'VersionTwo' | head -n 3)"
fi
# With nothing to resolve v1 by id, perf shows raw addresses in app.
expect_match "old profile after the replacement" "$(top_line "$d/old.data")" \
	'\[\.\] 0x[0-9a-f]+ +app'
t_end

# --- 3. link --perf-cache before the replacement ----------------------------
t_begin "link --perf-default-cache (\$HOME/.debug) on v1 before the replacement: perf report names hotLoopVersionOne"
d=$SCRATCH/perfcache
mkdir -p "$d"
build v1 "$d/app"
inject_ok "$d/app"
id1=$id
cp "$d/app" "$d/v1.copy"
expect_exit 0 "$EBID" link --perf-default-cache "$d/app"
if [ -n "$id1" ]; then
	xx=${id1:0:2} rest=${id1:2}
	expect_match "link output" "$out" "^$id1  "
	idx=$HOME/.debug/.build-id/$xx/$rest
	[ -L "$idx" ] || t_fail "$idx is not a symlink: $(ls -ld "$idx" 2>&1)"
	expect_eq "symlink target" "$(readlink "$idx" 2>/dev/null)" "../..$d/app/$id1"
	dbg=$HOME/.debug$d/app/$id1/debug
	expect_same_file "cached debug copy is v1" "$dbg" "$d/v1.copy"
fi
rec "$d/old.data" "$d/app" -N
build v2 "$d/app"
inject_ok "$d/app"
expect_ne "v2's id" "$id" "$id1"
expect_match "old profile after the replacement" "$(top_line "$d/old.data")" \
	'\[\.\] main\.hotLoopVersionOne +app'
report "$d/old.data" | grep_q VersionTwo && t_fail "perf report names v2's functions"
t_end

t_begin "link --perf-cache stores a copy: overwriting the binary in place (cp) later keeps v1 in the cache"
# perf record's own elf entry is a hard link when on the same file system;
# measured: after `cp v2 app` over it, perf report falls back to raw
# addresses. The contract asks link --perf-cache for a copy so that its entry
# survives this (and inject --in-place).
export HOME=$SCRATCH/home-cp PERF_BUILDID_DIR=$SCRATCH/home-cp/.debug
mkdir -p "$HOME"
d=$SCRATCH/perfcache-cp
mkdir -p "$d"
build v1 "$d/app"
inject_ok "$d/app"
id1=$id
cp "$d/app" "$d/v1.copy"
expect_exit 0 "$EBID" link --perf-default-cache "$d/app"
dbg=$HOME/.debug$d/app/$id1/debug
if [ -f "$dbg" ] && [ "$(stat -c %i "$dbg")" = "$(stat -c %i "$d/app")" ]; then
	t_fail "$dbg is a hard link of the binary (inode $(stat -c %i "$dbg"), $(stat -c %h "$dbg") links), not a copy"
fi
rec "$d/old.data" "$d/app" -N
build v2 "$d/v2"
inject_ok "$d/v2"
cp "$d/v2" "$d/app" # cp writes into the existing inode
expect_same_file "cached debug entry after cp over the binary" "$dbg" "$d/v1.copy"
expect_match "old profile after the in-place replacement" "$(top_line "$d/old.data")" \
	'\[\.\] main\.hotLoopVersionOne +app'
t_end

# --- 4. coexistence with perf record's own cache ----------------------------
t_begin "link --perf-cache, then perf record with its build-id cache: both entries coexist, report still right"
export HOME=$SCRATCH/home-co PERF_BUILDID_DIR=$SCRATCH/home-co/.debug
mkdir -p "$HOME"
d=$SCRATCH/coexist
mkdir -p "$d"
build v1 "$d/app"
inject_ok "$d/app"
id1=$id
expect_exit 0 "$EBID" link --perf-default-cache "$d/app"
rec "$d/old.data" "$d/app" # build-id cache on: perf adds its entries
cdir=$HOME/.debug$d/app/$id1
[ -f "$cdir/debug" ] || t_fail "our debug copy is gone after perf record: $(ls -la "$cdir" 2>&1)"
[ -f "$cdir/elf" ] || t_fail "no elf entry in $cdir: $(ls -la "$cdir" 2>&1)"
expect_exit 0 "$EBID" link --perf-default-cache "$d/app" # again: a no-op
build v2 "$d/app"
inject_ok "$d/app"
expect_match "old profile after the replacement" "$(top_line "$d/old.data")" \
	'\[\.\] main\.hotLoopVersionOne +app'
t_end

t_begin "perf record with its build-id cache first, then link --perf-cache: no collision, debug copy added"
export HOME=$SCRATCH/home-co2 PERF_BUILDID_DIR=$SCRATCH/home-co2/.debug
mkdir -p "$HOME"
d=$SCRATCH/coexist2
mkdir -p "$d"
build v1 "$d/app"
inject_ok "$d/app"
id1=$id
cp "$d/app" "$d/v1.copy"
rec "$d/old.data" "$d/app"
# perf record hard-links the binary as elf (same file system).
cdir=$HOME/.debug$d/app/$id1
[ -f "$cdir/elf" ] || t_fail "perf record made no elf entry: $(ls -la "$cdir" 2>&1)"
expect_exit 0 "$EBID" link --perf-default-cache "$d/app"
expect_same_file "debug copy" "$cdir/debug" "$d/v1.copy"
expect_same_file "perf's elf entry untouched" "$cdir/elf" "$d/v1.copy"
t_end

# --- 5. link --debug-dir, read by perf through --symfs ----------------------
t_begin "link --debug-dir SYMFS/usr/lib/debug on v1; perf report --symfs=SYMFS names hotLoopVersionOne"
export HOME=$SCRATCH/home-dd PERF_BUILDID_DIR=$SCRATCH/home-dd/.debug
mkdir -p "$HOME"
d=$SCRATCH/debugdir
sym=$d/sym
mkdir -p "$d"
build v1 "$d/app"
inject_ok "$d/app"
id1=$id
cp "$d/app" "$d/v1.copy"
expect_exit 0 "$EBID" link --debug-dir "$sym/usr/lib/debug" "$d/app"
if [ -n "$id1" ]; then
	expect_same_file "debug tree entry" "$sym/usr/lib/debug/.build-id/${id1:0:2}/${id1:2}.debug" "$d/v1.copy"
fi
rec "$d/old.data" "$d/app" -N
build v2 "$d/app"
inject_ok "$d/app"
expect_match "old profile, --symfs" "$(top_line "$d/old.data" --symfs="$sym")" \
	'\[\.\] main\.hotLoopVersionOne +app'
# Without --symfs perf looks in the real /usr/lib/debug only: raw addresses.
expect_match "old profile, no --symfs" "$(top_line "$d/old.data")" '\[\.\] 0x[0-9a-f]+ +app'
t_end

# --- 6. a different file at the id's path is a collision ---------------------
t_begin "link: a different file already at the id's path is a collision (exit 2, nothing replaced)"
d=$SCRATCH/collide
mkdir -p "$d"
build v1 "$d/app"
inject_ok "$d/app"
if [ -n "$id" ]; then
	dest=$d/dbg/.build-id/${id:0:2}/${id:2}.debug
	mkdir -p "$(dirname "$dest")"
	echo "not the binary" >"$dest"
	cp "$dest" "$d/before"
	expect_exit 2 "$EBID" link --debug-dir "$d/dbg" "$d/app"
	expect_one_error_line "$d/app"
	expect_same_file "existing entry" "$dest" "$d/before"
	expect_exit 0 "$EBID" link --perf-cache="$d/pc" "$d/app"
	cdir=$d/pc$d/app/$id
	rm -f "$cdir/debug" && echo other >"$cdir/debug" && cp "$cdir/debug" "$d/before"
	expect_exit 2 "$EBID" link --perf-cache="$d/pc" "$d/app"
	expect_same_file "existing perf cache entry" "$cdir/debug" "$d/before"
fi
t_end

t_done
