#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# Issue 28, point 2: the tools that rewrite binaries after us, on one
# shape of each strategy (move-note, move-head, insert-gap+move-head,
# new-load, extend-pt-note and repair on Go 1.19 and the current Go) and
# on the files inject leaves alone (each shape's control, linked with
# --build-id, is judged by the same tools).
#
# scripts/rewriters-check runs every rewriter it knows (patchelf
# --set-rpath, --add-needed, --set-interpreter, --shrink-rpath; strip
# --strip-all; objcopy --only-keep-debug + --add-gnu-debuglink; eu-strip
# -f; eu-unstrip; llvm-strip; llvm-objcopy --strip-debug; dwz on the file
# and on its debug file; inject after patchelf) on a copy of the injected
# file and on a copy of its control, and judges both with tools we did
# not write: the program's output or glibc's dlopen, readelf -n, the
# kernel's reader in tests/ebid.py, eu-elflint --gnu-ld, a second inject.
# A verdict FAIL is a result worse than the control's.
#
# Every FAIL must be one tests/rewriters-known.tsv lists with its cause
# (docs/rewriters.md), and every one listed there for these shapes must
# still FAIL: a fix updates the list and the docs, a regression fails.
# The slow tier (t0391) does the same over every C shape of the matrix.
. "$(dirname "$0")/lib.sh"
require_tool

matrix=${EBID_MATRIX:-$TOP/build/matrix}
shapes=(c-gcc-bfd-nopie c-gcc-gold-pie c-gcc-gold-shlib c-gcc-lld-pie c-clang-mold-shlib go-amd64 gonow-amd64)
# Each shape with its control (rewriters-check skips a shape without one).
need_shapes c-gcc-bfd-nopie-nobuildid c-gcc-bfd-nopie-buildid \
	c-gcc-gold-pie-nobuildid c-gcc-gold-pie-buildid \
	c-gcc-gold-shlib-nobuildid c-gcc-gold-shlib-buildid \
	c-gcc-lld-pie-nobuildid c-gcc-lld-pie-buildid \
	c-clang-mold-shlib-nobuildid c-clang-mold-shlib-buildid \
	go-amd64 go-amd64-bid gonow-amd64 c-clang-mold-nopie-nobuildid
t_begin "the matrix's loader is there (build-matrix.sh builds it with the C shapes)"
expect_true "no $matrix/loader" test -x "$matrix/loader"
t_end

for t in patchelf eu-strip eu-unstrip eu-elflint llvm-strip-14 llvm-objcopy-14 strip objcopy dwz readelf ld.bfd; do
	if ! have "$t"; then
		t_skip "$T_NAME: rewriters" "$t not installed (scripts/install-deps.sh test)"
		t_done
	fi
done

# new-load: a bfd library whose run lies in the first page while its
# first PT_LOAD runs past it (t0384), linked twice from the same objects.
nl=$SCRATCH/nl
mkdir -p "$nl"
{
	for ((i = 0; i < 350; i++)); do
		echo "int exported_function_number_$i(int x) { return x * $i; }"
	done
} >"$nl/many.c"
t_begin "new-load's pair: a bfd library linked with --build-id=none and with sha1, injected"
expect_exit 0 gcc -O2 -fPIC -c -o "$nl/many.o" "$nl/many.c"
expect_exit 0 gcc -O2 -fPIC -c -o "$nl/lib.o" "$TOP/fixtures/c/lib.c"
expect_exit 0 gcc -shared -fuse-ld=bfd -Wl,--build-id=none -o "$nl/raw.so" "$nl/many.o" "$nl/lib.o"
expect_exit 0 gcc -shared -fuse-ld=bfd -Wl,--build-id=sha1 -o "$nl/ctrl.so" "$nl/many.o" "$nl/lib.o"
cp "$nl/raw.so" "$nl/nl-gcc-bfd-shlib"
expect_exit 0 "$EBID" inject -v "$nl/nl-gcc-bfd-shlib"
expect_match "strategy" "$err" "new-load"
t_end

args=()
for s in "${shapes[@]}"; do args+=(--only "$s"); done
t_begin "rewriters-check runs every rewriter on both sides and exits 0 (failures are data)"
expect_exit 0 "$TOP/scripts/rewriters-check" --matrix "$matrix" \
	--tool-bin "$EBID" --work "$SCRATCH/run" --tsv "$SCRATCH/m.tsv" \
	--md "$SCRATCH/m.md" "${args[@]}"
expect_exit 0 "$TOP/scripts/rewriters-check" --loader "$matrix/loader" \
	--tool-bin "$EBID" --work "$SCRATCH/run-nl" --tsv "$SCRATCH/nl.tsv" \
	--md "$SCRATCH/nl.md" "$nl/nl-gcc-bfd-shlib:$nl/ctrl.so:$nl/raw.so"
ntools=$(python3 -c 'import runpy, sys; print(len(runpy.run_path(sys.argv[1], run_name="lib")["TOOLS"]))' "$TOP/scripts/rewriters-check")
expect_eq "rows: one per shape and tool" \
	"$(tail -n +2 "$SCRATCH/m.tsv" | wc -l) $(tail -n +2 "$SCRATCH/nl.tsv" | wc -l)" \
	"$((${#shapes[@]} * ntools)) $ntools"
t_end

# Inject after patchelf on a non-PIE: patchelf maps a whole first page
# read-write with its moved sections at the start and zeros behind them;
# move-note takes the ABI tag and the new note into that unused tail (the
# first PT_LOAD does not grow). The self-check refuses each tampered
# output of that plan (tests/unit/test_plan.c --file, tests/unit/plan/real.h).
t_begin "inject after patchelf on a bfd non-PIE: move-note into the first PT_LOAD's tail, tampered outputs refused"
pe=$SCRATCH/pe-nopie
cp "$matrix/c-gcc-bfd-nopie-nobuildid" "$pe"
expect_exit 0 patchelf --set-rpath /opt/x "$pe"
expect_exit 0 "$EBID" inject --dry-run "$pe"
expect_match "plan" "$(head -n 1 <<<"$out")" ': add-note,fill,add-section-name,move-note$'
expect_exit 0 "$EBID_BUILD/unit/test_plan" --file "$pe" add-note,fill,add-section-name,move-note
expect_match "the tampered outputs" "$out" 'ok [0-9]+ - .*: the self-check refuses an output with the first PT_LOAD.s p_memsz beyond p_filesz'
expect_eq "failed cases" "$(grep -c '^not ok' <<<"$out")" 0
t_end

# The same file with .bss moved (sh_addr, sh_size) over that tail: where
# the first PT_LOAD maps a SHT_NOBITS section, the file's bytes are its
# contents, so the notes may not go there (move-note took it at first).
t_begin "inject after patchelf: a NOBITS section over the first page's tail keeps the notes out"
cp "$pe" "$pe-bss"
cat >"$SCRATCH/bss.py" <<'PY'
import struct, sys
path = sys.argv[1]
d = bytearray(open(path, "rb").read())
shoff, = struct.unpack_from("<Q", d, 0x28)
shnum, shstrndx = struct.unpack_from("<HH", d, 0x3c)
names = struct.unpack_from("<Q", d, shoff + 64 * shstrndx + 24)[0]
load = None
phoff, = struct.unpack_from("<Q", d, 0x20)
for i in range(struct.unpack_from("<H", d, 0x38)[0]):
    t, _, off, va, _, fsz, _, _ = struct.unpack_from("<IIQQQQQQ", d, phoff + 56 * i)
    if t == 1 and off == 0:
        load = (va, fsz)
for i in range(shnum):
    o = shoff + 64 * i
    n, = struct.unpack_from("<I", d, o)
    if d[names + n:d.index(0, names + n)] == b".bss":
        struct.pack_into("<Q", d, o + 16, load[0] + 0x680)
        struct.pack_into("<Q", d, o + 32, load[1] - 0x680)
open(path, "wb").write(d)
PY
expect_exit 0 python3 "$SCRATCH/bss.py" "$pe-bss"
expect_exit 2 "$EBID" inject --dry-run "$pe-bss"
expect_match "refusal" "$err" 'no note can move: the first PT_LOAD runs past the first page'
t_end

# mold's non-PIE after patchelf: the ABI tag under a PT_NOTE of p_align 8
# (patchelf's), zero bytes only behind mold's .relro_padding. move-note
# takes it and lowers that p_align to 4; the self-check refuses an output
# that kept 8 (seen once with the lowering taken out) and each tampered one.
t_begin "inject after patchelf on a mold non-PIE: move-note under patchelf's 8-aligned PT_NOTE, which becomes 4-aligned"
pm=$SCRATCH/pe-mold
cp "$matrix/c-clang-mold-nopie-nobuildid" "$pm"
expect_exit 0 patchelf --set-rpath /opt/x "$pm"
abi_pt() { readelf -lW "$1" | awk '$1 == "NOTE" { print $2, $NF }' | sort; }
abi_off=$(readelf -SW "$pm" | sed -n 's/.*\.note\.ABI-tag *NOTE *[0-9a-f]* \([0-9a-f]*\) .*/\1/p')
expect_match "patchelf's PT_NOTE over the ABI tag (at 0x$abi_off)" "$(abi_pt "$pm")" "^0x0*${abi_off#"${abi_off%%[1-9a-f]*}"} 0x8\$"
expect_exit 0 "$EBID" inject --dry-run "$pm"
expect_match "plan" "$(head -n 1 <<<"$out")" ': add-note,fill,add-section-name,move-note$'
expect_exit 0 "$EBID_BUILD/unit/test_plan" --file "$pm" add-note,fill,add-section-name,move-note
expect_eq "failed cases" "$(grep -c '^not ok' <<<"$out")" 0
expect_exit 0 "$EBID" inject "$pm"
id=$(readelf -n "$pm" | awk '/Build ID/ { print $3 }')
expect_match "readelf's id" "$id" '^[0-9a-f]{40}$'
expect_eq "the kernel's reader (tests/ebid.py)" "$(python3 "$TOP/tests/ebid.py" kernel "$pm" | awk '{ print $1 }')" "$id"
expect_match "the retargeted PT_NOTE holds both notes, 4-aligned" "$(readelf -lW "$pm" | awk '$1 == "NOTE" && $6 == "0x000044" { print $NF }')" '^0x4$'
expect_exit 0 "$pm"
t_end

# rewriters_judged TSV...: every row against tests/rewriters-known.tsv.
rewriters_judged "$TOP/tests/rewriters-known.tsv" "$SCRATCH/m.tsv" "$SCRATCH/nl.tsv"

t_done
