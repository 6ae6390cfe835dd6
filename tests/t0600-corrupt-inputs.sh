#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# Hostile input: scripts/mkcorrupt.py makes corrupt inputs from good files
# (every header field at boundary values, truncations, hostile notes,
# non-ELF, special files); show, verify and inject run on each under a
# timeout (tests/robust/run_corrupt.py). No signal, no hang, documented exit
# codes, one error line naming the file (and the field), input bytes kept,
# no temp file left, and exit 0 only with a result that tests/ebid.py finds
# genuinely valid.
#
# make test runs a deterministic sample (EBID_CORRUPT_SAMPLE cases, default
# 50, plus every note, hostile, non-ELF and special case), t0601 in the
# slow tier the same with 600; make robust sets EBID_ROBUST_FULL=1 and runs
# all of them, in shards to bound disk use.
. "$(dirname "$0")/lib.sh"
require_tool
require_fixtures plain sw nobuildid

full=${EBID_ROBUST_FULL:-0}
sample=${EBID_CORRUPT_SAMPLE:-50}
shards=1
[ "$full" = 1 ] && shards=${EBID_CORRUPT_SHARDS:-16}
# The small bases in build/robust/small are shared with t0610 and t0620:
# made under the lock, then only read.
build_locked robust python3 "$TOP/scripts/mkcorrupt.py" --small-only \
	--small-dir "$TOP/build/robust/small" >/dev/null 2>"$SCRATCH/small.err" || {
	echo "not ok 1 - mkcorrupt.py --small-only failed: $(cat "$SCRATCH/small.err")"
	exit 1
}
results=$SCRATCH/results.tsv
problems=$SCRATCH/problems.tsv
manifest=$SCRATCH/manifest.tsv
: >"$results"
: >"$problems"
: >"$manifest"

t_begin "mkcorrupt.py makes the cases and runs them (full=$full)"
gen_ok=1
for ((k = 0; k < shards; k++)); do
	args=(--fixtures "$FIXTURES" --small-dir "$TOP/build/robust/small")
	if [ "$full" = 1 ]; then
		args+=(--shard "$k/$shards")
	else
		args+=(--sample "$sample")
	fi
	rm -rf "$SCRATCH/cases" "$SCRATCH/work"
	problems_before=$(wc -l <"$problems")
	if ! python3 "$TOP/scripts/mkcorrupt.py" "${args[@]}" "$SCRATCH/cases" \
		2>"$SCRATCH/gen.err"; then
		t_fail "mkcorrupt.py ${args[*]} failed: $(cat "$SCRATCH/gen.err")"
		gen_ok=0
		break
	fi
	cat "$SCRATCH/cases/MANIFEST.tsv" >>"$manifest"
	python3 "$TOP/tests/robust/run_corrupt.py" --tool "$EBID" \
		--cases "$SCRATCH/cases" --work "$SCRATCH/work" \
		--results "$results" --problems "$problems" --jobs 2 \
		--timeout "${EBID_CORRUPT_TIMEOUT:-10}" >"$SCRATCH/run.out" 2>&1
	crc=$?
	# run_corrupt.py exits 1 exactly when it found problems (in this
	# shard: the file grows over the shards).
	want=0
	[ "$(wc -l <"$problems")" -gt "$problems_before" ] && want=1
	if ! expect_eq "run_corrupt.py exit status ($(tail -n 5 "$SCRATCH/run.out"))" "$crc" "$want"; then
		gen_ok=0
		break
	fi
done
rm -rf "$SCRATCH/cases" "$SCRATCH/work"
ncases=$(wc -l <"$manifest")
nruns=$(wc -l <"$results")
for cat in field note trunc hostile nonelf special; do
	n=$(awk -F'\t' -v c="$cat" '$3 == c' "$manifest" | wc -l)
	expect_true "no case of category $cat" [ "$n" -gt 0 ]
done
expect_eq "every shard made and ran its cases" "$gen_ok" 1
expect_true "$ncases cases but only $nruns runs" [ "$nruns" -ge "$ncases" ]
expect_true "no case made" [ "$ncases" -gt 0 ]
t_end

# A summary for docs/reliability.md: runs by command and exit status.
{
	echo "cases: $ncases; runs: $nruns"
	awk -F'\t' '{ print $3 }' "$manifest" | sort | uniq -c
	awk -F'\t' '{ print $3, "exit", $4 }' "$results" | sort | uniq -c
} >"$SCRATCH/summary.txt"
sed 's/^/# /' "$SCRATCH/summary.txt"

declare -A what=(
	[crash]="no run dies of a signal"
	[hang]="no run hangs (each finishes within the timeout)"
	[exit]="every exit status is a documented one"
	[message]="each failure prints exactly one line 'elf-buildid: FILE: COMMAND: cause'"
	[field]="each 'malformed ELF' cause names the header, field, section or note"
	[unchanged]="the input's bytes are unchanged (show, verify, failed inject)"
	[tempfile]="no temporary or backup file is left behind"
	[valid]="exit 0 only with a result tests/ebid.py finds genuinely valid"
	[output]="stdout has the documented form for the exit status"
	[setup]="every case could be read"
)
for prop in crash hang exit message field unchanged tempfile valid output setup; do
	t_begin "$ncases corrupt inputs, $nruns runs: ${what[$prop]}"
	n=$(awk -F'\t' -v p="$prop" '$1 == p' "$problems" | wc -l)
	if ! expect_eq "problems" "$n" 0; then
		t_fail "(all in ${problems#"$TOP"/}), the first ones:"
		while IFS=$'\t' read -r _ name cmd detail; do
			t_fail "$cmd $name: $detail"
		done < <(awk -F'\t' -v p="$prop" '$1 == p' "$problems" | head -n 15)
	fi
	t_end
done

# The bugs of docs/reliability.md ("Bugs found"), one reproducer each: the
# sample above may not draw these cases.
named=$SCRATCH/named
rm -rf "$named"
t_begin "mkcorrupt.py makes the named reproducers (--bases tiny,mini64)"
t_check
python3 "$TOP/scripts/mkcorrupt.py" --fixtures "$FIXTURES" \
	--small-dir "$TOP/build/robust/small" --bases tiny,mini64 "$named" \
	>/dev/null 2>"$SCRATCH/gen.err" ||
	t_fail "mkcorrupt.py --bases tiny,mini64 failed: $(cat "$SCRATCH/gen.err")"
expect_true "no $named/MANIFEST.tsv" [ -s "$named/MANIFEST.tsv" ]
t_end
small=$TOP/build/robust/small
b=$SCRATCH/bug

# refused CASE-FILE ERE: inject exits 2 with one line matching ERE, file kept.
refused() {
	cp "$1" "$b" && chmod 755 "$b"
	expect_exit 2 "$EBID" inject "$b"
	expect_one_error_line "$b"
	expect_match "inject $(basename "$1")" "$err" "$2"
	expect_same_file "$(basename "$1") after a refused inject" "$1" "$b"
}

t_begin "bug 3: a .note.gnu.build-id section without a GNU note gets no second one"
refused "$TOP/tests/fuzz/regress/second-build-id-section" \
	"section \[[0-9]+\] is named \.note\.gnu\.build-id but holds no GNU build-id note"
t_end

t_begin "bug 4: a section header table past EOF is malformed, not 'unchanged'"
head -c 563 "$small/tiny" >"$SCRATCH/t563"
refused "$SCRATCH/t563" "malformed ELF: e_shoff/e_shnum: section header table past end of file"
run "$EBID" verify --perf=off "$SCRATCH/t563"
expect_eq "verify exit" "$rc" 2
t_end

t_begin "bug 4: a note no proper section describes is refused, naming the field"
refused "$named/tiny.sh01.sh_size.zero" \
	"section header \[1\] \.note\.gnu\.build-id: sh_offset 0x[0-9a-f]+/sh_size 0 do not hold"
refused "$named/tiny.sh01.sh_name.zero" "section header \[1\]: sh_name 0 reads ''"
refused "$named/tiny.sh05.sh_offset.zero" "section header \[1\]: sh_name [0-9]+ reads"
t_end

t_begin "bug 5: an 8-aligned note section is not filled with a 4-aligned layout"
refused "$named/mini64.sh01.sh_addralign.eight" \
	"sh_size 36 cuts the note's padding to sh_addralign 8"
t_end

t_begin "bug 6: a cut ELF header and EI_VERSION 0 are named"
head -c 33 "$small/tiny" >"$b"
expect_exit 2 "$EBID" show "$b"
expect_match "show, 33 bytes" "$err" "ELF header truncated \(file has 33 of 64 bytes\)"
cp "$small/tiny" "$b"
printf '\0' | dd of="$b" bs=1 seek=6 conv=notrunc 2>/dev/null
expect_exit 2 "$EBID" show "$b"
expect_match "show, EI_VERSION 0" "$err" "malformed ELF: EI_VERSION 0, expected 1$"
t_end

t_begin "bug 7: show does not call a note of an ET_REL file kernel-visible"
expect_exit 0 "$EBID" show "$named/tiny.eh.e_type.et_rel"
expect_match "show" "$out" "kernel-visible: no \(e_type 1:"
t_end

t_begin "bug 8: a wrong e_ehsize does not hide the note from show and verify"
expect_exit 0 "$EBID" show "$named/tiny.eh.e_ehsize.zero"
expect_match "show" "$out" "kernel-visible: yes"
run "$EBID" verify --perf=off "$named/tiny.eh.e_ehsize.zero"
expect_eq "verify exit" "$rc" 0
t_end

t_begin "bug 9: an EIO on the first read is an error, not 'not an ELF file'"
if build_locked robust make -C "$TOP" --no-print-directory faultshim >"$SCRATCH/make.out" 2>&1; then
	mkdir -p "$SCRATCH/rp/d"
	cp "$small/tiny" "$SCRATCH/rp/d/prog"
	for cmd in verify show inject; do
		# An ASan build wants its runtime first; the shim is fine after.
		run env EBID_FAULT=pread:1:EIO EBID_FAULT_SCOPE="$SCRATCH/rp/d" \
			ASAN_OPTIONS="${ASAN_OPTIONS:+$ASAN_OPTIONS:}verify_asan_link_order=0" \
			LD_PRELOAD="$TOP/build/robust/faultshim.so" \
			"$EBID" $cmd "$SCRATCH/rp/d/prog"
		expect_eq "$cmd exit" "$rc" 2
		expect_match "$cmd stderr" "$err" "cannot read: Input/output error$"
	done
	expect_same_file "prog" "$small/tiny" "$SCRATCH/rp/d/prog"
else
	t_fail "make faultshim failed: $(tail -n 3 "$SCRATCH/make.out")"
fi
t_end
rm -rf "$named"

t_done
