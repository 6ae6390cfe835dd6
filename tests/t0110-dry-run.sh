#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# (h) --dry-run writes nothing, prints "FILE: ACTION" and the byte ranges;
# the real run then changes bytes only inside those ranges (ebid.py
# diffranges), and the id range is the note's descriptor.
. "$(dirname "$0")/lib.sh"
require_tool
require_fixtures "${VARIANTS[@]}"

range_re='^  (patch 0x[0-9a-f]+ [0-9]+ [^ ].*|append 0x[0-9a-f]+ [0-9]+ [^ ].*|insert 0x[0-9a-f]+ [0-9]+ zero bytes \(.*\)|id 0x[0-9a-f]+ [0-9]+)$'

# dry_then_real CMD VARIANT [OPTIONS]: the dry run and the real run of CMD.
# The plan is left in $plan.
n=0
plan=
dry_then_real() {
	local cmd=$1 v=$2 f
	shift 2
	n=$((n + 1))
	plan=$SCRATCH/$n-$cmd-$v.plan
	f=$(copy_fixture "$v" "$SCRATCH/$n/$v")
	state=$(file_state "$f")
	for dry in -n --dry-run; do
		expect_exit 0 "$EBID" "$cmd" "$dry" "$@" "$f"
		expect_eq "$dry: inode mtime size" "$(file_state "$f")" "$state"
		expect_same_file "$dry: bytes" "$f" "$FIXTURES/$v"
		[ -n "$(find "$(dirname "$f")" -mindepth 1 ! -name "$v")" ] &&
			t_fail "$dry left files behind: $(ls -A "$(dirname "$f")")"
	done
	printf '%s\n' "$out" >"$plan"
	expect_match "first line" "$(head -n 1 "$plan")" "^$f: [^ ]"
	local line
	while IFS= read -r line; do
		expect_match "plan line" "$line" "$range_re"
	done < <(tail -n +2 "$plan")
	expect_exit 0 "$EBID" "$cmd" "$@" "$f"
	expect_exit 0 python3 "$EBID_PY" diffranges "$FIXTURES/$v" "$f" \
		"$plan"
}

for v in "${VARIANTS[@]}"; do
	t_begin "$v: inject --dry-run writes nothing and lists every changed byte"
	dry_then_real inject "$v"
	t_end

	if [ "$v" = existing ]; then
		t_begin "$v: the dry run keeps the existing id: no id range"
		expect_eq "id lines" "$(grep '^  id ' "$plan")" ""
	else
		t_begin "$v: the dry run of inject has an id range of the id's length"
		expect_match "id line" "$(grep '^  id ' "$plan")" '^  id 0x[0-9a-f]+ 20$'
	fi
	t_end
done

for v in plain nobuildid; do
	t_begin "$v: reserve --dry-run writes nothing and lists every changed byte"
	dry_then_real reserve "$v"
	t_end
	t_begin "$v: --hash=md5 --dry-run lists a 16-byte id range"
	dry_then_real inject "$v" --hash=md5
	expect_match "id line" "$(grep '^  id ' "$plan")" '^  id 0x[0-9a-f]+ 16$'
	t_end
done

t_begin "plain: --dry-run on an already-injected file lists no range"
f=$(copy_fixture plain "$SCRATCH/done/plain")
expect_exit 0 "$EBID" inject "$f"
state=$(file_state "$f")
expect_exit 0 "$EBID" inject --dry-run "$f"
expect_match "first line" "$out" "^$f: [^ ]"
expect_eq "lines" "$(printf '%s\n' "$out" | wc -l)" 1
expect_eq "inode mtime size" "$(file_state "$f")" "$state"
t_end

t_done
