#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# tier: slow
# after: t0300-matrix-build-a t0301-matrix-build-b
# t0380's move-head checks over every library shape of the matrix: the
# dynamic tables move, the library loads (t0380 itself, in make test,
# checks an lld executable and a bfd library; t0381 the executables).
EBID_SHAPES=lib
. "$(dirname "$0")/t0380-move-head.sh"
