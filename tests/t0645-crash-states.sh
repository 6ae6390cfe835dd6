#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# Power loss at any point of inject leaves the old file or the new one
# (issue 34): each write mode's real run is recorded (writes, copies,
# fsyncs, creates, renames, unlinks), every state that ext4 (data=ordered)
# and XFS may leave after a crash at each call is built from the log, and
# each is checked: the old bytes or the new ones, where a journal is left
# after the recovery every later run makes first, and the new bytes once
# the run has returned (tests/crash/states.py). Then each sync the promise
# rests on is dropped from the log, and the checker must find the broken
# promise. make test: a header-only change (one sector) and a hashed id
# in the default mode, the hashed id with --replace; t0647 (slow) runs the
# rest, with every state of the dropped-sync runs too.
. "$(dirname "$0")/lib.sh"
. "$TOP/tests/crash-lib.sh"
require_tool
require_fixtures existing plain

crash_build
crash_case "existing, default" "$FIXTURES/existing" default 4096 64
crash_case "plain, default" "$FIXTURES/plain" default 4096 64
crash_case "plain, --replace" "$FIXTURES/plain" --replace 4096 64
t_done
