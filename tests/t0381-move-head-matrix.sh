#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# tier: slow
# after: t0300-matrix-build-a t0301-matrix-build-b
# t0380's move-head checks over every lld and mold executable and
# externally linked Go program of the matrix (t0380 itself, in make test,
# checks an lld executable and a bfd library; t0382 the libraries).
EBID_SHAPES=exe
. "$(dirname "$0")/t0380-move-head.sh"
