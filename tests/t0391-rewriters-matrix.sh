#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# tier: slow (every rewriter on every C shape of the matrix and on Go, both sides: about 4 minutes)
# after: t0300-matrix-build-a t0301-matrix-build-b
# Issue 28, point 2, the slow tier: t0390's judgement over the whole
# matrix (the 24 C shapes c-{gcc,clang}-{bfd,gold,lld,mold}-{pie,nopie,
# shlib}-nobuildid and Go), each injected file against its control
# linked with --build-id. Every result worse than the control must be one
# tests/rewriters-known.tsv lists with its cause, and every listed one
# must still be. The table this prints is docs/compatibility.md's "After
# inject" table (make rewriters-doc puts it there).
. "$(dirname "$0")/lib.sh"
require_tool

matrix=${EBID_MATRIX:-$TOP/build/matrix}
need_shapes c-gcc-bfd-pie-nobuildid c-gcc-bfd-pie-buildid go-amd64 gonow-amd64
t_begin "the matrix's loader is there (build-matrix.sh builds it with the C shapes)"
expect_true "no $matrix/loader" test -x "$matrix/loader"
t_end
for t in patchelf eu-strip eu-unstrip eu-elflint llvm-strip-14 llvm-objcopy-14 strip objcopy dwz readelf; do
	if ! have "$t"; then
		t_skip "$T_NAME: rewriters" "$t not installed (scripts/install-deps.sh test)"
		t_done
	fi
done

t_begin "rewriters-check over the matrix runs and exits 0 (failures are data)"
expect_exit 0 "$TOP/scripts/rewriters-check" --matrix "$matrix" \
	--tool-bin "$EBID" --work "$SCRATCH/run" --tsv "$SCRATCH/m.tsv" --md "$SCRATCH/m.md"
expect_match "Markdown table" "$(cat "$SCRATCH/m.md")" '^\| tool \|'
# 24 C shapes and 2 Go ones, each with its control, 14 rewriters.
expect_eq "rows: every shape and tool" "$(tail -n +2 "$SCRATCH/m.tsv" | wc -l)" 364
t_end
sed 's/^/# /' "$SCRATCH/m.md"

rewriters_judged "$TOP/tests/rewriters-known.tsv" "$SCRATCH/m.tsv"

t_done
