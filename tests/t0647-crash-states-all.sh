#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# tier: slow (every crash state of seven runs, and of each with a sync
# dropped: a few minutes)
# t0645's crash-state check over every write path and plan kind, with
# every state (up to 65536 per crash point, and the summary must say
# "exhaustive"), except for the C programs whose plans write 40 and more
# ranges (move-note, move-head: their sectors' versions multiply past a
# million at some crash points), checked on a seeded sample of 4096 per
# crash point, the extremes among them: the default mode on a file whose
# plan appends bytes (the
# section header table moved to the end), fills a reserved note, moves a
# note (move-note) or the head of the file (move-head, no gap), and on one
# it must replace (a plan that inserts a gap); --in-place; --replace.
. "$(dirname "$0")/lib.sh"
. "$TOP/tests/crash-lib.sh"
require_tool
require_fixtures plain nobuildid reserved

need_shapes c-gcc-bfd-pie-nobuildid c-gcc-bfd-nopie-nobuildid c-gcc-lld-pie-nobuildid
m=${EBID_MATRIX:-$TOP/build/matrix}

crash_build
crash_case "nobuildid (appends), default" "$FIXTURES/nobuildid" default 65536 256
crash_case "reserved (fill), default" "$FIXTURES/reserved" default 65536 256
crash_case "move-note, default" "$m/c-gcc-bfd-pie-nobuildid" default 4096 256 sampled
crash_case "move-head, default" "$m/c-gcc-bfd-nopie-nobuildid" default 4096 256 sampled
crash_case "insert-gap, default (replaces)" "$m/c-gcc-lld-pie-nobuildid" default:replace 65536 256
crash_case "nobuildid, --in-place" "$FIXTURES/nobuildid" --in-place 65536 256
crash_case "nobuildid, --replace" "$FIXTURES/nobuildid" --replace 65536 256
t_done
