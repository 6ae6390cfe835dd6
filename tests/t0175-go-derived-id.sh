#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# Ids that are not unique by construction (issue 12). From Go 1.24 the
# linker writes a GNU id by default, derived from the Go build id:
# cmd/link/internal/ld/elf.go, addbuildinfo, takes the first 20 bytes of
# cmd/internal/hash.Sum32(buildID), which is SHA-256 with its first byte
# inverted (earlier -B gobuildid releases hashed with notsha256, SHA-256
# with every bit inverted). A build system that writes a fixed Go build id
# therefore gives every binary the same GNU id. Debian's Go (1.19) has no
# -B gobuildid, so the test links what it would write: -buildid=fixed and
# -B 0x<that hash>, computed here with Python's hashlib.
. "$(dirname "$0")/lib.sh"
require_tool
require_deps base

cd "$SCRATCH" || exit 1
export CGO_ENABLED=0 GO111MODULE=off GOFLAGS=-trimpath

# derived HOW GOID: the GNU id Go's linker derives from GOID.
derived() {
	python3 -c '
import hashlib, sys
m = bytearray(hashlib.sha256(sys.argv[2].encode()).digest())
if sys.argv[1] == "sum32":
    m[0] ^= 0xff
else:
    m = bytearray(b ^ 0xff for b in m)
print(m[:20].hex())' "$1" "$2"
}

# build NAME LDFLAGS: a program that prints NAME, linked with LDFLAGS.
build() {
	mkdir -p "src/$1"
	printf 'package main\n\nimport "fmt"\n\nfunc main() { fmt.Println("%s") }\n' "$1" >"src/$1/main.go"
	(cd "src/$1" && go build -ldflags="$2" -o "../../$1" main.go)
}

goid=placeholder-build-id
sum32=$(derived sum32 "$goid")
notsha=$(derived notsha256 "$goid")

t_begin "two different programs with one fixed Go build id get one GNU id"
expect_exit 0 build one "-buildid=$goid -B 0x$sum32"
expect_exit 0 build two "-buildid=$goid -B 0x$sum32"
expect_eq "one's output" "$(./one)" one
expect_eq "two's output" "$(./two)" two
expect_exit 1 cmp -s one two
expect_eq "readelf -n one" "$(readelf_ids one)" "$sum32"
expect_eq "readelf -n two" "$(readelf_ids two)" "$sum32"
expect_eq "go tool buildid" "$(go tool buildid one)" "$goid"
t_end

t_begin "show says the id is derived from the Go build id"
run "$EBID" show one
expect_match "show" "$out" "gnu-build-id: $sum32"
expect_match "show" "$out" 'gnu-build-id-from: the Go build id'
t_end

t_begin "verify fails both on unique, and says why and what to do"
run "$EBID" verify --perf=off one two
expect_eq "exit" "$rc" 1
expect_match "one" "$(grep '^FAIL  one ' <<<"$out")" "unique: same id as 'two': both derived from the Go build id '$goid', the same for every binary built this way; run inject -f"
expect_match "two" "$(grep '^FAIL  two ' <<<"$out")" "unique: same id as 'one': both derived from the Go build id '$goid'"
t_end

t_begin "inject -f replaces both with content ids, and verify passes"
run "$EBID" inject -f one two
expect_eq "exit" "$rc" 0
id1=$(awk '$2 == "one" { print $1 }' <<<"$out")
id2=$(awk '$2 == "two" { print $1 }' <<<"$out")
expect_ne "one's new id" "$id1" "$sum32"
expect_ne "the two ids" "$id1" "$id2"
expect_eq "ebid.py id one" "$(py_id one)" "$id1"
expect_eq "ebid.py id two" "$(py_id two)" "$id2"
expect_eq "perf buildid-list one" "$(perf_id one)" "$id1"
expect_eq "ebid.py kernel two" "$(py_kernel two)" "$id2"
expect_exit 0 "$EBID" verify --perf=off one two
expect_eq "one's output" "$(./one)" one
t_end

t_begin "show: an id made with notsha256 (older -B gobuildid) is recognised too"
expect_exit 0 build old "-buildid=$goid -B 0x$notsha"
run "$EBID" show old
expect_match "show" "$out" 'gnu-build-id-from: the Go build id'
t_end

t_begin "an id that is not derived from the Go build id is not called so"
expect_exit 0 build other "-buildid=$goid -B 0x$(derived sum32 another-id)"
run "$EBID" show other
expect_eq "exit" "$rc" 0
expect_false "gnu-build-id-from line" grep_q 'gnu-build-id-from' <<<"$out"
run "$EBID" verify --perf=off other one
expect_match "other fails for the kernel" "$(grep '^FAIL  other ' <<<"$out")" 'pt_note: '
expect_false "other fails on unique" grep_q 'unique' <<<"$out"

t_end

t_done
