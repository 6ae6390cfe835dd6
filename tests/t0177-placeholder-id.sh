#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# Issue 27, point 2: a placeholder Go build id is not an id. Since Go 1.24
# the linker writes a GNU id derived from the Go build id by default; the
# go command writes Go build ids of content hashes (2 or 4 parts of 20
# URL-safe base64 characters, cmd/go/internal/work/buildid.go), but a
# build system that links with a fixed string (Bazel's rules_go:
# "redacted") gives every program the same GNU id. Here the machine's Go
# (go on PATH) links two different programs that way, and the real linker's
# output shows the id is one constant (readelf on both). Then: show says
# so, verify fails such a file even alone with the reason and the fix,
# inject replaces the id with the content hash (python recomputes it; -v
# says why; --keep-constant-id keeps it), and audit --running and audit of
# a perf profile give the verdict "constant" with its fix line. A default
# go build (a go-command build id) and -buildid strings of the wrong form
# are told apart as the rule says.
. "$(dirname "$0")/lib.sh"
require_tool
require_deps base

cd "$SCRATCH" || exit 1
export CGO_ENABLED=0 GOFLAGS=-trimpath GOTOOLCHAIN=local GOPROXY=off GO111MODULE=on GOWORK=off
export GOCACHE=$TOP/build/go/cache GOPATH=$TOP/build/go/path

echo "# go: $(go version)"

# build NAME LDFLAGS: a program that prints NAME; with "sleep" it then
# sleeps 3 s (a process to scan), with "spin" it spins on the CPU for 1 s
# (samples for perf record).
build() {
	mkdir -p "src/$1"
	printf 'module %s\n\ngo 1.19\n' "$1" >"src/$1/go.mod"
	cat >"src/$1/main.go" <<EOF
package main

import (
	"fmt"
	"os"
	"time"
)

func main() {
	fmt.Println("$1")
	if len(os.Args) > 1 && os.Args[1] == "sleep" {
		time.Sleep(3 * time.Second)
	}
	n := 0
	for start := time.Now(); len(os.Args) > 1 && os.Args[1] == "spin" && time.Since(start) < time.Second; n++ {
	}
	if n < 0 {
		fmt.Println(n)
	}
}
EOF
	(cd "src/$1" && go build -ldflags="$2" -o "../../$1" .)
}

t_begin "go links two programs with -buildid=redacted (as rules_go does): one GNU id, from the linker"
expect_exit 0 build one "-buildid=redacted"
expect_exit 0 build two "-buildid=redacted"
expect_exit 0 build deflt ""
expect_exit 1 cmp -s one two
redacted=$(readelf_ids one)
expect_match "readelf -n one" "$redacted" '^[0-9a-f]{40}$'
expect_eq "readelf -n two (the same constant)" "$(readelf_ids two)" "$redacted"
expect_eq "go tool buildid one" "$(go tool buildid one)" redacted
expect_match "a default build's Go build id (4 parts of 20)" "$(go tool buildid deflt)" \
	'^[A-Za-z0-9_-]{20}(/[A-Za-z0-9_-]{20}){3}$'
expect_match "a default build has a GNU id of its own" "$(readelf_ids deflt)" '^[0-9a-f]{40}$'
expect_ne "the default build's GNU id" "$(readelf_ids deflt)" "$redacted"
t_end

t_begin "show says the placeholder's id is a constant, and not a default build's"
expect_exit 0 "$EBID" show one
expect_match "show one" "$out" "gnu-build-id: $redacted"
expect_match "show one" "$out" 'gnu-build-id-constant: yes'
expect_match "show one" "$out" 'go-build-id: redacted'
expect_exit 0 "$EBID" show deflt
expect_false "show deflt names no constant" grep -q constant <<<"$out"
t_end

t_begin "verify fails the placeholder's id even alone, with the reason and the fix"
expect_exit 1 "$EBID" verify --perf=off one
expect_match "verify one" "$out" "^FAIL +one .*constant: derived from the Go build id 'redacted', which the go command did not make.*run elf-buildid inject"
expect_exit 1 "$EBID" verify --perf=off --keep-constant-id one
expect_false "--keep-constant-id: no constant failure" grep -q "constant:" <<<"$out"
expect_match "--keep-constant-id: it still fails the kernel's view" "$out" "pt_note:"
t_end

t_begin "inject replaces the constant id with the content hash; -v says why"
cp one one.inj
expect_exit 0 "$EBID" inject -v one.inj
parse_id_line "$out" one.inj
expect_ne "the new id" "$id" "$redacted"
expect_eq "python recomputes the content hash" "$(py_id one.inj)" "$id"
expect_eq "readelf -n" "$(readelf_ids one.inj)" "$id"
expect_eq "ebid.py kernel" "$(py_kernel one.inj)" "$id"
expect_match "-v: the outcome" "$err" "one.inj': backfilled \(fill,extend-pt-note\)"
expect_match "-v: why" "$err" "the GNU id $redacted is derived from the Go build id 'redacted', which the go command did not make.*replaced by the content hash \(--keep-constant-id keeps it\)"
expect_eq "the program runs" "$(./one.inj)" one
expect_exit 0 "$EBID" verify --perf=off one.inj
before=$(file_state one.inj)
expect_exit 0 "$EBID" inject one.inj
expect_eq "a second inject: the same id" "$out" "$id  one.inj"
expect_eq "a second inject changes nothing" "$(file_state one.inj)" "$before"
t_end

t_begin "two programs with the placeholder get two ids; --keep-constant-id keeps the constant"
cp two two.inj
expect_exit 0 "$EBID" inject two.inj
parse_id_line "$out" two.inj
expect_ne "two's id is not one's" "$id" "$(readelf_ids one.inj)"
cp one one.keep
expect_exit 0 "$EBID" inject -v --keep-constant-id one.keep
expect_eq "the kept id" "$out" "$redacted  one.keep"
expect_match "-v: kept" "$err" "kept \(--keep-constant-id\)"
expect_eq "ebid.py kernel (now visible)" "$(py_kernel one.keep)" "$redacted"
expect_exit 0 "$EBID" verify --perf=off --keep-constant-id one.keep
t_end

t_begin "the go command's forms are ids, other -buildid strings are placeholders"
expect_exit 0 build twoparts "-buildid=AAAAAAAAAAAAAAAAAAAA/BBBBBBBBBBBBBBBBBBBB"
expect_exit 0 build short "-buildid=abc/def"
expect_exit 0 build threeparts "-buildid=AAAAAAAAAAAAAAAAAAAA/BBBBBBBBBBBBBBBBBBBB/CCCCCCCCCCCCCCCCCCCC"
expect_exit 0 "$EBID" show twoparts
expect_false "2 parts of 20: not a constant" grep -q constant <<<"$out"
expect_exit 0 "$EBID" show short
expect_match "abc/def: a constant" "$out" 'gnu-build-id-constant: yes'
expect_exit 0 "$EBID" show threeparts
expect_match "3 parts: a constant" "$out" 'gnu-build-id-constant: yes'
t_end

t_begin "audit --running: the verdict constant, with its fix"
cp one.keep run.keep
./run.keep sleep >/dev/null &
pid=$!
sleep 0.5
run "$EBID" audit --running --pid "$pid"
wait "$pid"
expect_eq "exit status" "$rc" 1
expect_match "verdict" "$out" "^CONSTANT +$pid +run.keep .*the Go build id 'redacted'"
expect_match "fix" "$out" "fix: give every build its own id: elf-buildid inject replaces"
expect_match "summary" "$out" "constant 1; kernel ids"
t_end

if ! perf_record_works; then
	t_skip "audit of a perf profile: the verdict constant" "$perf_record_why"
else
	t_begin "audit of a perf profile of the constant id: the verdict constant, with its fix"
	expect_exit 0 perf_rec "$SCRATCH/perf.data" ./one.keep spin
	run "$EBID" audit "$SCRATCH/perf.data"
	expect_eq "exit status" "$rc" 1
	expect_match "verdict" "$out" "CONSTANT +$(re_quote "$SCRATCH")/one.keep +$redacted +the id is derived from the Go build id 'redacted'"
	expect_match "fix" "$out" "fix: give every build its own id"
	t_end
fi

t_done
