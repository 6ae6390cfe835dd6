#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# tier: slow
# t0630's fault runs on the shapes whose plans move sections: a bfd
# executable (move-note, replace and --in-place) and an lld executable
# (insert-gap and move-head, replace), built when missing (need_shapes).
# t0630 itself, in make test, runs them on the nobuildid fixture.
EBID_FAULT_PART=moves
. "$(dirname "$0")/t0630-fault-injection.sh"
