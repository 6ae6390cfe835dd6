#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# tier: slow (a Go project built by make through the kit: a whole extra build)
# scripts/elf-buildid.mk (issue 5) in a Go project built by make, on
# fixtures/hello: the hand-written rule with $(ELF_BUILDID_POST_LINK) and the
# generated rule (elf-buildid-go-program, here for GOARCH=arm64) give ids
# that ebid.py recomputes from the bytes and the kernel can see; a second
# make keeps them; a failing stamp deletes the target; elf-buildid-verify
# gates the result.
# make runs Debian's Go 1.19 by path (GO=$GO119, tests/lib.sh): the point
# is the kit stamping a Go binary with no id, and Go 1.19's linker writes
# none (Go >= 1.24 writes a derived one, which inject keeps: t0176, t0510).
. "$(dirname "$0")/lib.sh"
. "$TOP/tests/kit-lib.sh"
require_tool
kit_prelude

export CGO_ENABLED=0 GOFLAGS=-trimpath GOPROXY=off GO111MODULE=on GOWORK=off
export GOMODCACHE=$GOPATH/pkg/mod
unset MAKEFLAGS MFLAGS

proj=$SCRATCH/proj
mkdir -p "$proj"
cp "$TOP/fixtures/hello/go.mod" "$TOP/fixtures/hello/main.go" "$proj/"
cat >"$proj/Makefile" <<EOF
include $TOP/scripts/elf-buildid.mk

all: bin/hello bin/hello-arm64

bin/hello: main.go go.mod
	@mkdir -p bin
	\$(GO) build -o \$@ .
	\$(ELF_BUILDID_POST_LINK)

\$(eval \$(call elf-buildid-go-program,bin/hello-arm64,.,GOARCH=arm64))

release: all
	\$(MAKE) elf-buildid-verify ELF_BUILDID_VERIFY=bin
EOF

mk() { run make -C "$proj" ELF_BUILDID="$EBID" GO="$GO119" "$@"; }

t_begin "make: both programs stamped; ids are content hashes (ebid.py) and kernel-visible"
mk all
expect_eq "make exit" "$rc" 0
for p in hello hello-arm64; do
	f=$proj/bin/$p
	id=$(readelf_ids "$f")
	expect_match "$p id" "$id" '^[0-9a-f]{40}$'
	expect_match "make printed ID  FILE for $p" "$out" "^$id  bin/$p\$"
	expect_eq "$p: ebid.py id" "$(py_id "$f")" "$id"
	expect_eq "$p: ebid.py kernel" "$(py_kernel "$f")" "$id"
done
expect_match "arm64 really" "$(file -b "$proj/bin/hello-arm64")" 'ARM aarch64'
expect_match "amd64 really" "$(file -b "$proj/bin/hello")" 'x86-64'
t_end

t_begin "make again: nothing rewritten, ids kept"
s1=$(file_state "$proj/bin/hello")
i2=$(stat -c %i "$proj/bin/hello-arm64")
id2=$(readelf_ids "$proj/bin/hello-arm64")
mk all
expect_eq "make exit" "$rc" 0
expect_eq "bin/hello (make: up to date)" "$(file_state "$proj/bin/hello")" "$s1"
expect_eq "bin/hello-arm64 inode (go build ran, Go's cache kept the file)" "$(stat -c %i "$proj/bin/hello-arm64")" "$i2"
expect_eq "bin/hello-arm64 id" "$(readelf_ids "$proj/bin/hello-arm64")" "$id2"
t_end

t_begin "make release: elf-buildid-verify passes on the stamped bin/"
mk release
expect_eq "make exit" "$rc" 0
expect_eq "PASS lines" "$(printf '%s\n' "$out" | grep -c '^PASS  bin/')" 2
t_end

t_begin "elf-buildid-verify fails the build on an unstamped program"
cp "$FIXTURES/plain" "$proj/bin/legacy"
mk release
expect_ne "make exit" "$rc" 0
expect_match "verify output" "$out" '^FAIL  bin/legacy  note: '
rm -f "$proj/bin/legacy"
t_end

t_begin "a failing stamp fails make and deletes the target (no id-less binary left as up to date)"
touch "$proj/main.go"
run make -C "$proj" ELF_BUILDID=false GO="$GO119" bin/hello
expect_ne "make exit" "$rc" 0
[ -e "$proj/bin/hello" ] && t_fail "bin/hello was left behind after the stamp failed"
mk bin/hello
expect_eq "make exit (recovers)" "$rc" 0
expect_match "id again" "$(readelf_ids "$proj/bin/hello")" '^[0-9a-f]{40}$'
t_end

t_begin "ELF_BUILDID_INJECT_FLAGS reach inject (--hash=md5: a 16-byte id)"
rm -f "$proj/bin/hello"
mk bin/hello ELF_BUILDID_INJECT_FLAGS=--hash=md5
expect_eq "make exit" "$rc" 0
expect_match "md5 id" "$(readelf_ids "$proj/bin/hello")" '^[0-9a-f]{32}$'
expect_eq "ebid.py id --hash=md5" "$(py_id "$proj/bin/hello" --hash=md5)" "$(readelf_ids "$proj/bin/hello")"
t_end

t_done
