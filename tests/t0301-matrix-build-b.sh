#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# tier: slow (the rest of the matrix's builds)
# Issue 3, part 2 of the matrix build: every shape t0300 did not build (Go
# for ppc64, ppc64le, riscv64 and s390x; C from gcc and clang with GNU ld,
# gold, lld and mold, hello-world and real-size; the crafted files), and a
# check that each shape scripts/build-matrix.sh lists exists and is the ELF
# it claims to be.
. "$(dirname "$0")/lib.sh"
. "$TOP/tests/matrix-lib.sh"

matrix_build

t_begin "at least 150 shapes are listed"
expect_true "only $matrix_n shapes listed" [ "$matrix_n" -ge 150 ]
t_end

# The shapes are what their names say: class, byte order, machine, type.
t_begin "fixtures have the class, byte order, machine and type their names say"
check_hdr() { # NAME CLASS DATA MACHINE-ERE TYPE-ERE
	local h
	h=$(readelf -h "$TOP/build/matrix/$1" 2>&1)
	expect_true "$1: not $2" grep -q "Class: *$2\$" <<<"$h"
	expect_true "$1: not $3 endian" grep -q "Data: *2's complement, $3 endian" <<<"$h"
	expect_true "$1: machine is not /$4/: $(grep Machine <<<"$h")" grep -qE "Machine: .*($4)" <<<"$h"
	expect_true "$1: type is not /$5/" grep -qE "Type: *($5)" <<<"$h"
}
check_hdr go-386 ELF32 little 'Intel 80386' EXEC
check_hdr go-amd64 ELF64 little 'X86-64' EXEC
check_hdr go-arm ELF32 little 'ARM' EXEC
check_hdr go-arm64 ELF64 little 'AArch64' EXEC
check_hdr go-loong64 ELF64 little 'LoongArch' EXEC
check_hdr go-mips ELF32 big 'MIPS' EXEC
check_hdr go-mipsle ELF32 little 'MIPS' EXEC
check_hdr go-mips64 ELF64 big 'MIPS' EXEC
check_hdr go-mips64le ELF64 little 'MIPS' EXEC
check_hdr go-ppc64 ELF64 big 'PowerPC64' EXEC
check_hdr go-ppc64le ELF64 little 'PowerPC64' EXEC
check_hdr go-riscv64 ELF64 little 'RISC-V' EXEC
check_hdr go-s390x ELF64 big 'S/390' EXEC
check_hdr go-amd64-pie ELF64 little 'X86-64' DYN
check_hdr go-amd64-cshared ELF64 little 'X86-64' DYN
check_hdr c-gcc-bfd-nopie-buildid ELF64 little 'X86-64' EXEC
check_hdr c-clang-mold-shlib-buildid ELF64 little 'X86-64' DYN
t_end

t_begin "linker and id flags took effect (notes as readelf sees them)"
m=$TOP/build/matrix
for f in c-gcc-bfd-pie-buildid c-clang-gold-static-buildid c-gcc-mold-nopie-buildid; do
	expect_match "$f: a 20-byte id (readelf -n)" "$(readelf_ids "$m/$f")" '^[0-9a-f]{40}$'
done
for f in c-gcc-lld-pie-buildid c-clang-lld-shlib-buildid; do
	expect_match "$f: lld's 8-byte id (readelf -n)" "$(readelf_ids "$m/$f")" '^[0-9a-f]{16}$'
done
for f in c-gcc-bfd-pie-nobuildid c-clang-lld-shlib-nobuildid go-amd64 go-amd64-cgo-external-nobuildid go-amd64-nobuildid; do
	# A negative check: the file must be there for it to mean anything.
	expect_true "$f: no such file" [ -s "$m/$f" ]
	expect_eq "$f: no GNU build-id (readelf -n)" "$(readelf_ids "$m/$f")" ""
done
expect_eq "go-s390x-bid id" "$(readelf_ids "$m/go-s390x-bid")" 0123456789abcdeffedcba9876543210a5a5a5a5
expect_eq "c-gcc-gold-pie-bzero id" "$(readelf_ids "$m/c-gcc-gold-pie-bzero")" "$ZERO_ID"
expect_match "c-gcc-bfd-pie-buildid has a main symbol" "$(readelf -sW "$m/c-gcc-bfd-pie-buildid")" ' main$'
expect_match "c-clang-lld-pie-buildid: .comment names clang" "$(readelf -p .comment "$m/c-clang-lld-pie-buildid")" 'clang'
expect_match "c-gcc-mold-pie-buildid: .comment names mold" "$(readelf -p .comment "$m/c-gcc-mold-pie-buildid")" 'mold'
expect_match "c-gcc-lld-pie-buildid: .comment names LLD" "$(readelf -p .comment "$m/c-gcc-lld-pie-buildid")" 'LLD'
expect_false "go-amd64-nobuildid has a PT_NOTE" grep -q ' NOTE ' <<<"$(readelf -lW "$m/go-amd64-nobuildid")"
expect_match "go-amd64-cgo-internal is dynamically linked" "$(readelf -SW "$m/go-amd64-cgo-internal")" '\.interp'
expect_match "go-amd64-nobuildid: readelf -l" "$(readelf -lW "$m/go-amd64-nobuildid")" ' LOAD '
t_end

t_begin "crafted files: no section headers, extended numbering, trailing data"
expect_match "noshdr" "$(readelf -h "$m/noshdr-go-amd64" | grep 'Number of section headers')" ':[[:space:]]+0$'
expect_match "xnum" "$(readelf -h "$m/xnum-go-mips" | grep 'Number of section headers')" ':[[:space:]]+0 \([0-9]+\)$'
expect_match "many" "$(readelf -h "$m/many-gcc-lld-pie-buildid" | grep 'Number of section headers')" ':[[:space:]]+0 \(653[0-9][0-9]\)$'
expect_match "shstrend" "$(readelf -SW "$m/shstrend-go-s390x" | grep ' .shstrtab ' | awk '{print $5}')" '^[0-9a-f]+$'
read -r tstart tlen <"$m/trail-go-arm.trail"
expect_eq "trail size" "$(stat -c %s "$m/trail-go-arm")" "$(($(stat -c %s "$m/go-arm") + tlen))"
expect_eq "trail start" "$tstart" "$(stat -c %s "$m/go-arm")"
t_end

t_done
