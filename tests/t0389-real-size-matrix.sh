#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# tier: slow
# after: t0300-matrix-build-a t0301-matrix-build-b
# t0388's checks over every real-size shape of the matrix (t0388 itself,
# in make test, checks the two gcc lld programs).
EBID_SHAPES=all
. "$(dirname "$0")/t0388-real-size.sh"
