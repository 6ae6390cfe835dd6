#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# -h/--help and -V/--version print to stdout and exit 0.
. "$(dirname "$0")/lib.sh"
require_tool

for opt in -h --help; do
	t_begin "$opt prints usage on stdout and exits 0"
	expect_exit 0 "$EBID" "$opt"
	expect_match "stdout" "$out" 'usage: elf-buildid COMMAND'
	for c in inject reserve backfill show verify; do
		expect_match "command $c listed" "$out" "^ +$c "
	done
	expect_eq "stderr" "$err" ""
	t_end
done

for opt in -V --version; do
	t_begin "$opt prints the version on stdout and exits 0"
	expect_exit 0 "$EBID" "$opt"
	expect_match "stdout" "$out" '^elf-buildid [0-9]+\.[0-9]+'
	expect_eq "stderr" "$err" ""
	t_end
done

t_done
