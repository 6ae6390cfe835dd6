#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# tier: slow
# after: t0300-matrix-build-a t0301-matrix-build-b
# t0370's move-note checks over every bfd and gold shape of the matrix
# (t0370 itself, in make test, checks one shape).
EBID_SHAPES=all
. "$(dirname "$0")/t0370-move-note.sh"
