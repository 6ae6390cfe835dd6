#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# Usage errors exit 64, say so on stderr, print nothing on stdout and touch
# no file.
. "$(dirname "$0")/lib.sh"
require_tool
require_fixtures plain

f=$(copy_fixture plain)
g=$(copy_fixture plain "$SCRATCH/plain2")
before=$(file_state "$f")

usage_case() { # DESC ARGS...
	local desc=$1
	shift
	t_begin "usage error exits 64: $desc"
	expect_exit 64 "$EBID" "$@"
	expect_eq "stdout" "$out" ""
	[ -n "$err" ] || t_fail "stderr is empty"
	expect_eq "input state" "$(file_state "$f")" "$before"
	expect_same_file "input bytes" "$f" "$FIXTURES/plain"
	[ -e "$SCRATCH/out" ] && t_fail "an output file was created"
	t_end
}

usage_case "no arguments"
usage_case "unknown command" frobnicate "$f"
usage_case "command without FILE" inject
usage_case "unknown long option" inject --no-such-option "$f"
usage_case "unknown short option" inject -Z "$f"
usage_case "--hash=sha512" inject --hash=sha512 "$f"
usage_case "--hash without value" inject --hash= "$f"
usage_case "--id with non-hex digits" inject --id=0xzz11 "$f"
usage_case "--id with no digits" inject --id=0x "$f"
usage_case "--id with an odd number of digits" inject --id=0x123 "$f"
usage_case "--id longer than 20 bytes" inject \
	--id=0x000102030405060708090a0b0c0d0e0f1011121314 "$f"
usage_case "-o with two inputs" inject -o "$SCRATCH/out" "$f" "$g"
usage_case "--output= with two inputs" inject --output="$SCRATCH/out" "$f" "$g"
usage_case "-o without argument" inject -o
usage_case "--perf=sometimes" verify --perf=sometimes "$f"
# An option the command would ignore is refused: it was meant to do something.
usage_case "--perf on inject" inject --perf=off "$f"
usage_case "--hash on show" show --hash=md5 "$f"
usage_case "--hash on link" link --hash=md5 --debug-dir="$SCRATCH/dbg" "$f"
usage_case "--hash on verify without --content-hash" verify --hash=sha256 "$f"
usage_case "--force on verify" verify --force "$f"
usage_case "--id on link" link --id=0x1234 --debug-dir="$SCRATCH/dbg" "$f"
usage_case "--content-hash on inject" inject --content-hash "$f"
# getopt would take --perf as the abbreviation of audit's --perf-cache.
usage_case "--perf on audit" audit --perf=off "$f"
usage_case "help for an unknown command" help frobnicate

t_done
