#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# Ids that are not unique by construction (issue 12). Go's linker derives
# the GNU id from the Go build id with -B gobuildid (from Go 1.22; the
# default from Go 1.24 whenever -buildid is given): cmd/link/internal/ld/
# elf.go, addbuildinfo, takes the first 20 bytes of a hash of the build id,
# a hash that changed twice (src/id/hash.c says how). A build system that
# writes a fixed Go build id therefore gives every binary the same GNU id.
#
# Every expected id comes from the real linkers, read back with readelf:
# fixtures/hello is linked by Go 1.23.0, 1.24.0 and 1.26.0, which the
# machine's go downloads through the Go module proxy (GOTOOLCHAIN=goX;
# GOMODCACHE under build/go, so a second run finds them there; about 5 s
# each the first time). A download that fails fails its block and says so:
# this test needs the network the first time. GOPROXY is the environment's,
# or proxy.golang.org when it is unset or off.
# The other blocks link with the machine's go (-B gobuildid, Go >= 1.22).
. "$(dirname "$0")/lib.sh"
require_tool
require_deps base

cd "$SCRATCH" || exit 1
export CGO_ENABLED=0 GOFLAGS=-trimpath GO111MODULE=on GOWORK=off
export GOMODCACHE=$GOPATH/pkg/mod
tc_proxy=${GOPROXY:-off}
[ "$tc_proxy" = off ] && tc_proxy=https://proxy.golang.org,direct

goid=placeholder-build-id

# tc_build TOOLCHAIN OUT LDFLAGS: fixtures/hello linked by Go TOOLCHAIN
# (e.g. go1.24.0), downloaded through the module proxy when missing.
tc_build() {
	(cd "$TOP/fixtures/hello" &&
		GOTOOLCHAIN=$1 GOPROXY=$tc_proxy go build -ldflags="$3" -o "$SCRATCH/$2" .) \
		>"$SCRATCH/.go.log" 2>&1 && return 0
	t_fail "GOTOOLCHAIN=$1 go build failed (the toolchain comes through the Go module proxy $tc_proxy: is the network up?): $(head -c 1000 "$SCRATCH/.go.log")"
}

# build NAME LDFLAGS: a program that prints NAME, linked by the machine's go.
build() {
	mkdir -p "src/$1"
	printf 'package main\n\nimport "fmt"\n\nfunc main() { fmt.Println("%s") }\n' "$1" >"src/$1/main.go"
	(cd "src/$1" && GO111MODULE=off go build -ldflags="$2" -o "../../$1" main.go)
}

# Each release, the words show uses for its formula.
declare -A FROM=(
	[go1.23.0]='Go 1.22 or 1.23'
	[go1.24.0]='Go 1.24'
	[go1.26.0]='Go 1.25 or later'
)
declare -A RID=()
for tc in go1.23.0 go1.24.0 go1.26.0; do
	t_begin "$tc -ldflags='-buildid=$goid -B gobuildid': show names the id its linker derived ($tc's formula)"
	if tc_build "$tc" "hello-$tc" "-buildid=$goid -B gobuildid"; then
		# go version FILE reads the release from the binary itself.
		expect_eq "go version of the binary" "$(go version "hello-$tc" | awk '{ print $2 }')" "$tc"
		expect_eq "go tool buildid" "$(go tool buildid "hello-$tc")" "$goid"
		RID[$tc]=$(readelf_ids "hello-$tc")
		expect_match "readelf -n: the linker wrote a GNU id" "${RID[$tc]}" '^[0-9a-f]{40}$'
		run "$EBID" show "hello-$tc"
		expect_eq "exit" "$rc" 0
		expect_match "show" "$out" "gnu-build-id: ${RID[$tc]}"
		expect_match "show" "$out" "gnu-build-id-from: the Go build id \\(Go's linker, -B gobuildid, ${FROM[$tc]}\\)"
		expect_eq "the program runs" "$("./hello-$tc" | head -n 1)" "hello from the elf-buildid fixture"
	fi
	t_end
done

t_begin "the three formulas give three different ids for one Go build id"
expect_ne "Go 1.23 and 1.24" "${RID[go1.23.0]:-}" "${RID[go1.24.0]:-}"
expect_ne "Go 1.24 and 1.26" "${RID[go1.24.0]:-}" "${RID[go1.26.0]:-}"
expect_ne "Go 1.23 and 1.26" "${RID[go1.23.0]:-}" "${RID[go1.26.0]:-}"
t_end

t_begin "two different programs with one fixed Go build id get one GNU id"
expect_exit 0 build one "-buildid=$goid -B gobuildid"
expect_exit 0 build two "-buildid=$goid -B gobuildid"
expect_eq "one's output" "$(./one)" one
expect_eq "two's output" "$(./two)" two
expect_exit 1 cmp -s one two
sum=$(readelf_ids one)
expect_match "readelf -n one" "$sum" '^[0-9a-f]{40}$'
expect_eq "readelf -n two" "$(readelf_ids two)" "$sum"
expect_eq "go tool buildid" "$(go tool buildid one)" "$goid"
t_end

t_begin "show says the id is derived from the Go build id"
expect_exit 0 "$EBID" show one
expect_match "show" "$out" "gnu-build-id: $sum"
expect_match "show" "$out" 'gnu-build-id-from: the Go build id'
t_end

t_begin "verify fails both on unique, and says why and what to do"
run "$EBID" verify --perf=off one two
expect_eq "exit" "$rc" 1
expect_match "one" "$(grep '^FAIL  one ' <<<"$out")" "unique: same id as 'two': both derived from the Go build id '$goid', the same for every binary built this way; run elf-buildid inject \\(it replaces an id derived from a placeholder"
expect_match "two" "$(grep '^FAIL  two ' <<<"$out")" "unique: same id as 'one': both derived from the Go build id '$goid'"
t_end

t_begin "what verify advises is enough: plain inject replaces both (a placeholder's id)"
cp one one.adv && cp two two.adv
run "$EBID" inject one.adv two.adv
expect_eq "exit" "$rc" 0
expect_ne "one's id" "$(readelf_ids one.adv)" "$sum"
expect_ne "the two ids" "$(readelf_ids one.adv)" "$(readelf_ids two.adv)"
expect_eq "ebid.py id one" "$(py_id one.adv)" "$(readelf_ids one.adv)"
run "$EBID" verify --perf=off one.adv two.adv
expect_eq "verify exit" "$rc" 0
t_end

t_begin "inject -f replaces both with content ids, and verify passes"
run "$EBID" inject -f one two
expect_eq "exit" "$rc" 0
id1=$(awk '$2 == "one" { print $1 }' <<<"$out")
id2=$(awk '$2 == "two" { print $1 }' <<<"$out")
expect_ne "one's new id" "$id1" "$sum"
expect_ne "the two ids" "$id1" "$id2"
expect_eq "ebid.py id one" "$(py_id one)" "$id1"
expect_eq "ebid.py id two" "$(py_id two)" "$id2"
expect_eq "perf buildid-list one" "$(perf_id one)" "$id1"
expect_eq "ebid.py kernel two" "$(py_kernel two)" "$id2"
expect_exit 0 "$EBID" verify --perf=off one two
expect_eq "one's output" "$(./one)" one
t_end

t_begin "an id that is not derived from the Go build id is not called so"
# The id the linker derives from another Go build id, written with -B 0x
# into a program whose Go build id is $goid: a real derived id, of another.
expect_exit 0 build another "-buildid=another-id -B gobuildid"
other_id=$(readelf_ids another)
expect_match "readelf -n another" "$other_id" '^[0-9a-f]{40}$'
expect_exit 0 build other "-buildid=$goid -B 0x$other_id"
expect_eq "readelf -n other" "$(readelf_ids other)" "$other_id"
run "$EBID" show other
expect_eq "exit" "$rc" 0
expect_false "gnu-build-id-from line" grep_q 'gnu-build-id-from' <<<"$out"
expect_exit 0 "$EBID" show another
expect_match "another's own is" "$out" 'gnu-build-id-from: the Go build id'
expect_exit 1 "$EBID" verify --perf=off other one
expect_match "other fails for the kernel" "$(grep '^FAIL  other ' <<<"$out")" 'pt_note: '
expect_false "other fails on unique" grep_q 'unique' <<<"$out"
t_end

t_done
