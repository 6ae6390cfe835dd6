#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# scripts/go-build-buildid (issue 5) on fixtures/hello: go build with the
# given arguments, then inject the -o output. -o FILE, -o=FILE, -o DIR/,
# flags with separate values before -o, GOARCH=arm64, a rebuild that Go does
# not rewrite, go build failures, -n, and a missing -o.
# The wrapper runs Debian's Go 1.19 by path (GO=$GO119, tests/lib.sh): these
# blocks are about the wrapper stamping a Go binary with no id, and Go 1.19's
# linker writes none. The last block runs the machine's go (GO=go): what
# users of the wrapper get today (Go >= 1.24: the linker's derived id,
# kept and made kernel-visible).
. "$(dirname "$0")/lib.sh"
. "$TOP/tests/kit-lib.sh"
require_tool
kit_prelude

W=$TOP/scripts/go-build-buildid
export ELF_BUILDID=$EBID
export GO=$GO119
export CGO_ENABLED=0 GOFLAGS=-trimpath GOPROXY=off GO111MODULE=on GOWORK=off
export GOMODCACHE=$GOPATH/pkg/mod
src=$TOP/fixtures/hello
out_dir=$SCRATCH/out
mkdir -p "$out_dir"

# wrap ARGS...: run the wrapper in the Go module's directory.
wrap() { run bash -c 'cd "$0" && exec "$@"' "$src" "$W" "$@"; }

t_begin "-o FILE: one 'ID  FILE' line; the id is the content hash and kernel-visible"
wrap -o "$out_dir/hello" .
expect_eq "exit" "$rc" 0
if parse_id_line "$out" "$out_dir/hello"; then
	expect_eq "readelf" "$(readelf_ids "$out_dir/hello")" "$id"
	expect_eq "ebid.py id" "$(py_id "$out_dir/hello")" "$id"
	expect_eq "ebid.py kernel" "$(py_kernel "$out_dir/hello")" "$id"
fi
expect_eq "the program runs" "$("$out_dir/hello" | head -n 1)" "hello from the elf-buildid fixture"
t_end

t_begin "GOARCH=arm64, value flags before -o=FILE (-tags x -ldflags \"-s -w\"): stamped aarch64 binary"
run bash -c 'cd "$0" && GOARCH=arm64 exec "$@"' "$src" "$W" -tags kit -ldflags "-s -w" -o="$out_dir/hello-arm64" .
expect_eq "exit" "$rc" 0
if parse_id_line "$out" "$out_dir/hello-arm64"; then
	expect_eq "ebid.py id" "$(py_id "$out_dir/hello-arm64")" "$id"
	expect_eq "ebid.py kernel" "$(py_kernel "$out_dir/hello-arm64")" "$id"
fi
expect_match "file" "$(file -b "$out_dir/hello-arm64")" 'ARM aarch64'
secs=$(readelf -SW "$out_dir/hello-arm64" 2>&1)
expect_match "readelf -S" "$secs" ' \.text '
expect_false "-ldflags \"-s -w\" did not reach go build (.symtab present)" \
	grep -q ' \.symtab ' <<<"$secs"
t_end

t_begin "same build again: go keeps the file, the wrapper prints the same id, nothing rewritten"
before=$(stat -c '%i %s' "$out_dir/hello")
id0=$(readelf_ids "$out_dir/hello")
wrap -o "$out_dir/hello" .
expect_eq "exit" "$rc" 0
expect_eq "output" "$out" "$id0  $out_dir/hello"
expect_eq "inode and size" "$(stat -c '%i %s' "$out_dir/hello")" "$before"
t_end

t_begin "-o DIR/: the program go build writes there is stamped"
mkdir -p "$out_dir/d"
wrap -o "$out_dir/d/" .
expect_eq "exit" "$rc" 0
expect_match "output" "$out" "^[0-9a-f]{40}  $out_dir/d/hello\$"
expect_eq "ebid.py kernel" "$(py_kernel "$out_dir/d/hello")" "$(readelf_ids "$out_dir/d/hello")"
t_end

t_begin "go build fails: the wrapper fails with go's status and stamps nothing"
wrap -o "$out_dir/none" ./does-not-exist
expect_ne "exit" "$rc" 0
expect_eq "stdout" "$out" ""
[ -e "$out_dir/none" ] && t_fail "an output file exists"
t_end

t_begin "no -o: usage error 64, go build not run; -n: nothing written"
wrap .
expect_eq "exit" "$rc" 64
expect_match "stderr" "$err" '-o'
[ -e "$src/hello" ] && { rm -f "$src/hello"; t_fail "go build ran and wrote fixtures/hello/hello"; }
wrap -n -o "$out_dir/dry" .
expect_eq "exit (-n)" "$rc" 0
[ -e "$out_dir/dry" ] && t_fail "-n wrote $out_dir/dry"
t_end

t_begin "the machine's go: the id readelf shows in go build's output is kept, and the kernel sees it"
# The same build twice gives the same Go build id (-trimpath), so the GNU
# id go build alone writes is the one the wrapper must keep.
(cd "$src" && go build -o "$out_dir/cur-plain" .) >"$SCRATCH/.go.log" 2>&1 ||
	t_fail "go build: $(head -c 1000 "$SCRATCH/.go.log")"
goid=$(readelf_ids "$out_dir/cur-plain")
expect_match "readelf: go build writes a GNU id ($(go version))" "$goid" '^[0-9a-f]{40}$'
expect_match "ebid.py kernel before" "$(py_kernel "$out_dir/cur-plain")" 'kernel sees no build-id'
GO=go wrap -o "$out_dir/cur" .
expect_eq "exit" "$rc" 0
expect_eq "output" "$out" "$goid  $out_dir/cur"
expect_eq "readelf" "$(readelf_ids "$out_dir/cur")" "$goid"
expect_eq "ebid.py kernel" "$(py_kernel "$out_dir/cur")" "$goid"
expect_exit 0 "$EBID" verify --perf=off "$out_dir/cur"
t_end

t_done
