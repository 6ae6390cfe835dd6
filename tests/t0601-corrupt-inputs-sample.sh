#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# tier: slow
# t0600's corrupt inputs with the larger sample CI ran before the tiers:
# 600 field cases besides every note, hostile, non-ELF and special case
# (886 cases; t0600 itself, in make test, samples 50: 349 cases). Under
# make robust (EBID_ROBUST_FULL=1) t0600 runs them all and this adds
# nothing: mk/robust.mk leaves it out.
EBID_CORRUPT_SAMPLE=${EBID_CORRUPT_SAMPLE:-600}
. "$(dirname "$0")/t0600-corrupt-inputs.sh"
