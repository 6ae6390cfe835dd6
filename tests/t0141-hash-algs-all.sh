#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# tier: slow
# t0140's checks of --hash=sha1|sha256|md5 over the four Go variants
# (t0140 itself, in make test, checks plain and reserved).
EBID_HASH_VARIANTS="plain pie nobuildid reserved"
. "$(dirname "$0")/t0140-hash-algs.sh"
