# SPDX-License-Identifier: MIT
# TAP helpers for tests/tNNNN-*.sh; source it first thing.
#
# Each test script gets its own empty scratch directory under build/tests/
# and runs in it. A test is a block:
#
#   t_begin "what it checks"
#   expect_exit 0 "$EBID" inject f     # each check adds to the failure list
#   expect_eq "printed id" "$got" "$want"
#   t_end                              # prints "ok N - ..." or "not ok N - ..."
#
# Checks never exit the script; a failed check records why, and t_end prints
# the reasons as TAP comments under the "not ok" line. t_skip_if REASON turns
# a block into "ok N - ... # SKIP REASON" unless a check in it failed. A skip
# is never a pass: tests/run.sh counts it apart. Plan-less TAP: no "1..N".
#
# A block passes only if it made a check: every expect_* (and t_fail) counts
# one, and a block that made none is "not ok" unless it is skipped. A test
# of a condition by hand is written `expect_true WHAT CMD...` (or
# expect_false), not `[ ... ] || t_fail`, so that it counts when it passes.
# t_begin clears $rc, $out, $err and $id: a block never checks what the
# previous block ran. A check made outside a block, a block never ended and
# a t_end without t_begin are each reported as "not ok".
# shellcheck shell=bash
set -u
set -o pipefail

# grep_q [GREP-OPTIONS] PATTERN: grep -q on standard input, but reading all
# of it first. "producer | grep_q" under pipefail fails at random when grep
# exits at its first match and the producer then dies of SIGPIPE.
grep_q() {
	local in
	in=$(cat)
	grep -q "$@" <<<"$in"
}
export LC_ALL=C TZ=UTC

TOP=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
EBID_BUILD=${EBID_BUILD:-build}
case "$EBID_BUILD" in
/*) ;;
*) EBID_BUILD=$TOP/$EBID_BUILD ;;
esac
EBID=${EBID:-$EBID_BUILD/elf-buildid}
FIXTURES=${EBID_FIXTURES:-$TOP/build/fixtures}
EBID_PY=$TOP/tests/ebid.py
# Every variant scripts/build-fixtures.sh builds.
VARIANTS=(plain sw pie nobuildid reserved existing)
# They are built by Debian's Go 1.19, by path (no GNU note unless -B asks):
# GO119 is also the Go of the tests whose point is "a Go binary with no id".
GO119=${EBID_GO119:-/usr/lib/go-1.19/bin/go}
export EBID_GO119=$GO119
# The variants built by the `go` on PATH, in $FIXTURES/current/.
CURRENT_VARIANTS=(default pie sw bnone nobuildid placeholder gobuildid)
# The id the `existing` fixture was linked with (-ldflags=-B=0x...).
EXISTING_ID=0123456789abcdeffedcba9876543210a5a5a5a5
ZERO_ID=0000000000000000000000000000000000000000

# Keep Go and perf away from $HOME.
export GOCACHE=$TOP/build/go/cache GOPATH=$TOP/build/go/path GOENV=off
export GOFLAGS= GOTOOLCHAIN=local

T_NAME=$(basename "$0" .sh)
SCRATCH=$TOP/build/tests/$T_NAME
rm -rf "$SCRATCH"
mkdir -p "$SCRATCH" || {
	echo "not ok 1 - cannot create scratch directory $SCRATCH"
	exit 1
}
cd "$SCRATCH" || exit 1
# perf writes its build-id cache under $HOME/.debug (PERF_BUILDID_DIR is
# not read by perf record): a private HOME keeps the user's cache clean.
export PERF_BUILDID_DIR=$SCRATCH/.debug
export HOME=$SCRATCH/home
mkdir -p "$HOME"

t_num=0
t_failed=0
t_desc=
t_why=()
t_skip_reason=
t_checks=0 # checks made in the current block
t_open=0   # 1 between t_begin and t_end

# The diagnostic lines of the current block. A failure is a check made.
t_fail() {
	t_checks=$((t_checks + 1))
	t_why+=("$@")
	return 1
}

# t_check: count one check made, for the helpers below.
t_check() { t_checks=$((t_checks + 1)); }

t_begin() {
	if [ "$t_open" = 1 ]; then
		t_fail "this block has no t_end (the next block is \"$*\")"
		t_end
	elif [ ${#t_why[@]} -gt 0 ]; then
		# Failed checks made between two blocks are not lost.
		t_desc="checks made outside a block, before \"$*\""
		t_open=1
		t_end
	fi
	t_desc=$*
	t_why=()
	t_skip_reason=
	t_checks=0
	t_open=1
	rc= out= err= id=
}

# Mark the current block as skipped (unless one of its checks failed).
t_skip_if() {
	t_skip_reason=$*
}

t_end() {
	t_num=$((t_num + 1))
	if [ "$t_open" != 1 ]; then
		t_why+=("t_end without t_begin")
		t_desc="t_end without t_begin (after block $((t_num - 1)))"
	elif [ ${#t_why[@]} -eq 0 ] && [ -z "$t_skip_reason" ] && [ "$t_checks" = 0 ]; then
		t_why+=("the block made no check")
	fi
	if [ ${#t_why[@]} -gt 0 ]; then
		t_failed=$((t_failed + 1))
		echo "not ok $t_num - $t_desc"
		local line
		for line in "${t_why[@]}"; do
			printf '%s\n' "$line" | sed 's/^/#   /'
		done
	elif [ -n "$t_skip_reason" ]; then
		echo "ok $t_num - $t_desc # SKIP $t_skip_reason"
	else
		echo "ok $t_num - $t_desc"
	fi
	t_why=()
	t_skip_reason=
	t_checks=0
	t_open=0
}

# A whole block that is skipped.
t_skip() { # DESC REASON
	t_begin "$1"
	t_skip_if "$2"
	t_end
}

# The last line of a script: exit status says whether anything failed.
t_done() {
	if [ "$t_open" = 1 ]; then
		t_fail "this block has no t_end (t_done came first)"
		t_end
	elif [ ${#t_why[@]} -gt 0 ]; then
		t_desc="checks made outside a block, after the last one"
		t_open=1
		t_end
	fi
	if [ "$t_num" -eq 0 ]; then
		echo "not ok 1 - $T_NAME ran no test"
		exit 1
	fi
	[ "$t_failed" -eq 0 ]
	exit
}

# run CMD...: run it with stdout in $SCRATCH/.out, stderr in $SCRATCH/.err,
# exit status in $rc; $out and $err hold the text.
rc=0
out=
err=
run() {
	"$@" >"$SCRATCH/.out" 2>"$SCRATCH/.err" </dev/null
	rc=$?
	out=$(cat "$SCRATCH/.out")
	err=$(cat "$SCRATCH/.err")
	return 0
}

# The last command, for diagnostics.
last_cmd() {
	local s
	s=$(printf '%q ' "$@")
	echo "${s% }" | sed "s|$SCRATCH/||g; s|$TOP/||g"
}

# expect_exit CODE CMD...: run CMD and check its exit status.
expect_exit() {
	local want=$1
	shift
	run "$@"
	t_check
	[ "$rc" = "$want" ] && return 0
	t_fail "command: $(last_cmd "$@")" "expected exit $want, got $rc" \
		"stdout: $(head -c 2000 "$SCRATCH/.out")" \
		"stderr: $(head -c 2000 "$SCRATCH/.err")"
}

expect_eq() { # WHAT GOT WANT
	t_check
	[ "$2" = "$3" ] && return 0
	t_fail "$1: got '$2', want '$3'"
}

expect_ne() { # WHAT GOT NOT_WANTED
	t_check
	[ "$2" != "$3" ] && return 0
	t_fail "$1: got '$2', which it must not be"
}

expect_match() { # WHAT TEXT ERE
	t_check
	printf '%s\n' "$2" | grep_q -E -- "$3" && return 0
	t_fail "$1: '$2' does not match /$3/"
}

expect_same_file() { # WHAT A B
	t_check
	cmp -s -- "$2" "$3" && return 0
	t_fail "$1: $(cmp -- "$2" "$3" 2>&1 | head -n 1)"
}

# expect_true WHAT CMD...: CMD (a test, grep, ...) must succeed; WHAT says
# what failed. It runs in this shell: feed it with <<< or <, not a pipe.
expect_true() {
	local what=$1
	shift
	t_check
	"$@" && return 0
	t_fail "$what"
}

# expect_false WHAT CMD...: CMD must fail cleanly, with a status of 1 to
# 125. 126 (not executable), 127 (not found), 128 (an invalid exit
# argument) and a signal (129 and up) are not the failure asked for, and
# fail the check too (issue 36; git's test_must_fail counts 126, 127 and
# signals the same way).
expect_false() {
	local what=$1 rc
	shift
	t_check
	"$@"
	rc=$?
	[ "$rc" -ge 1 ] && [ "$rc" -le 125 ] && return 0
	if [ "$rc" = 0 ]; then
		t_fail "$what"
	else
		t_fail "$what: '$1' ended with status $rc (not found, not executable or a signal), not a clean failure"
	fi
}

# re_quote TEXT: TEXT as an extended regular expression that matches itself.
re_quote() { printf '%s' "$1" | sed 's/[][\\.*^$+?(){}|]/\\&/g'; }

# The stderr of the last run is exactly one line of the form
# "elf-buildid: 'FILE': what failed: cause".
expect_one_error_line() { # FILE
	local n
	t_check
	n=$(wc -l <"$SCRATCH/.err")
	[ "$n" = 1 ] || t_fail "stderr has $n lines, want 1: $err"
	grep -Eq "^elf-buildid: '$(re_quote "$1")': [^:]*[^ :]: [^ ].*" \
		"$SCRATCH/.err" && return 0
	t_fail "stderr is not \"elf-buildid: '$1': what failed: cause\": $err"
}

# kill_at_exit PID...: background processes of the script, killed (and
# reaped) when it exits, however it ends. The first call sets the EXIT trap.
_kids=()
# shellcheck disable=SC2317 # run by the EXIT trap
_kill_kids() {
	local p
	for p in "${_kids[@]}"; do kill -9 "$p" 2>/dev/null; done
	wait 2>/dev/null
}
kill_at_exit() {
	[ ${#_kids[@]} -gt 0 ] || trap _kill_kids EXIT
	_kids+=("$@")
}

# doc_block FILE TAG NAME: FILE's text between "<!-- TAG:NAME begin -->" and
# its end marker, without the ``` fence lines: a page's example, run as the
# page shows it. Exit 1 when the markers are not there.
doc_block() {
	awk -v b="<!-- $2:$3 begin -->" -v e="<!-- $2:$3 end -->" '
		$0 == b { on = 1; next }
		$0 == e { on = 0; found = 1; next }
		on && /^```/ { next }
		on { print }
		END { exit found ? 0 : 1 }' "$1"
}

have() { command -v "$1" >/dev/null 2>&1; }

# eu-elflint --gnu-ld's report on FILE, with FILE's name taken out, and
# the number of a section that elflint names beside it too: inject puts
# the section headers in file order, so a section's number may change
# (plan/order.c), its name does not.
elflint_of() { # FILE
	eu-elflint --gnu-ld "$1" 2>&1 | sed "s|$(re_quote "$1")|FILE|g" |
		sed -E "s/section \[ *[0-9]+\] '/section [N] '/g"
}

# readelf's symbol listing (FLAGS: --dyn-syms, --syms or "-D -s") of FILE,
# each section index (Ndx) replaced by the name of that section in
# NAMES-FROM (default FILE: a copy without section headers needs the file
# it was made from): the same symbols before and after a renumbering of
# the sections.
syms_by_name() { # FLAGS FILE [NAMES-FROM]
	local names
	names=$(readelf -SW "${3:-$2}" 2>/dev/null |
		sed -n 's/^ *\[ *\([0-9]*\)\] \([^ ]*\) .*/\1 \2/p')
	# shellcheck disable=SC2086 # FLAGS is one or two words
	readelf $1 -W "$2" 2>&1 | awk -v names="$names" '
		BEGIN { n = split(names, l, "\n")
			for (i = 1; i <= n; i++) { split(l[i], f, " "); m[f[1]] = f[2] } }
		/^ *[0-9]+:/ && $7 ~ /^[0-9]+$/ { $7 = m[$7] }
		{ print }'
}

# The names of FILE's sections, by number.
shdr_names() { # FILE
	readelf -SW "$1" | sed -n 's/^ *\[ *[0-9]*\] \([^ ]*\) .*/\1/p'
}

# inject's rule for the section numbers of OUTPUT made from INPUT: an
# input in the linkers' order gives an output in that order; one that is
# not keeps every number (the new section is last). Prints what breaks it.
shdr_order_kept() { # INPUT OUTPUT
	local n
	if [ -z "$(shdrs_out_of_order "$1")" ]; then
		shdrs_out_of_order "$2"
		return
	fi
	n=$(shdr_names "$1" | wc -l)
	diff <(shdr_names "$1") <(shdr_names "$2" | head -n "$n") >/dev/null ||
		echo "the input's table is not in file order, and the output renumbered it"
}

# The section headers of FILE out of the linkers' order (allocated
# sections first, then the others, each by file offset; a SHT_NOBITS
# section's offset is not compared; a .dynsym may stand right before its
# string table, as inject puts one that move-head moved): one line per
# header that breaks it.
shdrs_out_of_order() { # FILE
	readelf -SW "$1" | sed -n 's/^ *\[ *\([0-9]*\)\] /\1 /p' | awk '
		function below(a, b) { sub(/^0+/, "", a); sub(/^0+/, "", b)
			return length(a) < length(b) || (length(a) == length(b) && a < b) }
		$2 == "NULL" { next }
		{ off = $5; alloc = (NF == 11 && $8 ~ /A/); link = (NF == 11 ? $9 : $8) }
		$3 == "NOBITS" { next }
		# A .dynsym right before its string table is where linkers put it.
		$3 == "DYNSYM" && alloc && link == $1 + 1 { next }
		seen && alloc && !last_alloc { print "allocated " $2 " after a non-allocated section" }
		seen && alloc == last_alloc && below(off, last_off) { print $2 " at 0x" $5 " before the one above it" }
		{ seen = 1; last_alloc = alloc; last_off = off }'
}

# The same, with the program header numbers of an input mapped to those of
# an output that has a new one at index NEW: every entry at or after NEW
# moves up by one. "program header entry N", "phdr[N]", "loadable segment
# [N]" and "GNU_RELRO [N]" are the forms elflint gives them.
elflint_renumbered() { # FILE NEW-INDEX
	elflint_of "$1" |
		perl -pe 'my $k = '"$2"';
			s/(program header entry |phdr\[|loadable segment \[|GNU_RELRO \[)(\d+)/$1 . ($2 >= $k ? $2 + 1 : $2)/ge'
}

# The index of the PT_NOTE over FILE's .note.gnu.build-id, or nothing.
new_note_pt() { # FILE
	local off i type poff
	off=$(readelf -SW "$1" | sed -n 's/.* \.note\.gnu\.build-id  *NOTE  *[0-9a-f]*  *\([0-9a-f]*\) .*/\1/p')
	[ -n "$off" ] || return 0
	while read -r i type poff; do
		if [ "$type" = NOTE ] && [ $((poff)) = $((0x$off)) ]; then
			echo "$i"
			return 0
		fi
	done < <(readelf -lW "$1" | awk '/^Program Headers:/ { on = 1; next }
		on && /^ *$/ { exit }
		on && $1 ~ /^[A-Z]/ && $1 != "Type" { print n++, $1, $2 }')
}

# file_state FILE: inode, mtime (ns) and size, to show a file was not rewritten.
file_state() { stat -c '%i %.9Y %s' -- "$1"; }

# Checked before anything else: the tool and the fixtures must exist; their
# absence is a failure, never a skip.
# not_with_sanitizers WHAT WHY: ends the script with one skip when $EBID
# is a sanitizer build (make SANITIZE=...): for a script whose checks never
# run the tool under test (it builds its own from a clean clone or a
# tarball), which the plain pass (make check-slow) ran already.
not_with_sanitizers() {
	if nm "$EBID" 2>/dev/null | grep '__asan_init\|__ubsan_handle\|__tsan_init' >/dev/null; then
		t_skip "$1" "$EBID is a sanitizer build and $2; the plain pass ran it"
		t_done
	fi
}

require_tool() {
	if [ ! -x "$EBID" ]; then
		echo "not ok 1 - $EBID not built (run make)"
		exit 1
	fi
}

require_fixtures() {
	local v
	for v in "$@"; do
		if [ ! -f "$FIXTURES/$v" ]; then
			echo "not ok 1 - fixture $FIXTURES/$v missing (scripts/build-fixtures.sh)"
			exit 1
		fi
	done
}

# require_deps GROUP...: the Debian packages of these groups of
# scripts/install-deps.sh, which `make test` installs before any test runs.
# Tests install nothing: when one is missing, the whole script is one
# skipped block that names the packages.
require_deps() {
	local why
	why=$("$TOP/scripts/install-deps.sh" --check "$@" 2>&1) && return 0
	t_skip "$T_NAME: needs the packages of scripts/install-deps.sh $*" \
		"${why#install-deps: } (scripts/install-deps.sh $*)"
	t_done
}

# require_cmds GROUP CMD...: skip the whole script unless every CMD is on
# PATH (scripts/install-deps.sh GROUP installs them).
require_cmds() {
	local group=$1 t
	shift
	for t in "$@"; do
		have "$t" && continue
		t_skip "$T_NAME" "$t not installed (scripts/install-deps.sh $group)"
		t_done
	done
}

# private_home: HOME and TMPDIR of the script's own, under $SCRATCH, for
# the packaging tools that write there.
private_home() {
	export HOME=$SCRATCH/home TMPDIR=$SCRATCH/tmp
	mkdir -p "$HOME" "$TMPDIR"
}

# build_locked NAME CMD...: run CMD, a build into a path that tests share,
# holding the lock NAME (one for each such path: matrix for build/matrix,
# fixtures, kit for build/fixtures/kit, fuzz, robust): tests/run.sh runs
# scripts in parallel, and two builds of one file at once could leave a
# torn file. The second build then finds the work done.
build_locked() {
	local name=$1
	shift
	mkdir -p "$TOP/build"
	flock "$TOP/build/.lock-$name" "$@"
}

# need_shapes NAME...: the compatibility-matrix shapes NAME... in
# ${EBID_MATRIX:-build/matrix}, as a block of its own. Those missing are
# built (scripts/build-matrix.sh, under the matrix lock; a few seconds for
# the C shapes), so that a script of the fast tier needs no full matrix and
# skips nothing; one still missing then fails the block. A shape already
# there is used as it is (t0300 and t0301, in the slow tier, rebuild what
# is out of date).
need_shapes() {
	local dir=${EBID_MATRIX:-$TOP/build/matrix} s missing=()
	t_begin "matrix shapes built: $*"
	for s in "$@"; do [ -s "$dir/$s" ] || missing+=("$s"); done
	if [ ${#missing[@]} -gt 0 ]; then
		expect_exit 0 build_locked matrix "$TOP/scripts/build-matrix.sh" "${missing[@]}"
		missing=()
		for s in "$@"; do [ -s "$dir/$s" ] || missing+=("$s"); done
	fi
	expect_eq "shapes missing from $dir" "${missing[*]-}" ""
	t_end
}

# copy_fixture VARIANT [DEST]: a private, writable copy; prints its path.
copy_fixture() {
	local dest=${2:-$SCRATCH/$1}
	mkdir -p "$(dirname "$dest")" && cp -- "$FIXTURES/$1" "$dest" &&
		chmod u+w "$dest" && echo "$dest"
}

# The id in an "ID  FILE" line, checked against the expected file name.
# Sets $id; fails the block when the line has another form.
parse_id_line() { # OUTPUT FILE
	local want_re
	id=
	t_check
	if [ "$(printf '%s\n' "$1" | wc -l)" != 1 ]; then
		t_fail "want one line 'ID  FILE', got: $1"
		return 1
	fi
	want_re="^([0-9a-f]+)  $(re_quote "$2")\$"
	if [[ "$1" =~ $want_re ]]; then
		id=${BASH_REMATCH[1]}
		return 0
	fi
	t_fail "not an 'ID  FILE' line for $2: '$1'"
}

# inject_ok FILE [OPTIONS...]: inject, expect exit 0 and an "ID  FILE" line;
# sets $id.
inject_ok() {
	local f=$1
	shift
	id=
	expect_exit 0 "$EBID" inject "$@" "$f" || return 1
	parse_id_line "$out" "$f"
}

# Ids as other tools see them; each prints nothing when it finds none.
readelf_ids() { readelf -n -- "$1" 2>/dev/null | awk '/Build ID:/ { print $3 }'; }
eu_readelf_ids() { eu-readelf -n -- "$1" 2>/dev/null | awk '/Build ID:/ { print $3 }'; }
file_id() {
	file -b -- "$1" | sed -n 's/.*BuildID\[[^]]*\]=\([0-9a-f]*\).*/\1/p'
}
perf_id() { perf buildid-list -i "$1" 2>/dev/null; }
py_id() { python3 "$EBID_PY" id "$@" 2>&1; }
py_note() { python3 "$EBID_PY" note "$1" 2>&1; }
py_kernel() { python3 "$EBID_PY" kernel "$1" 2>&1; }

# perf_rec DATA CMD...: perf record CMD into DATA, with the kernel's build-ids
# in the MMAP2 records. -N -B: no build-id cache and no build-id pass at the
# end; --no-bpf-event saves a second of start-up.
perf_rec() {
	local data=$1
	shift
	rm -f "$data"
	perf record -N -B -q --no-bpf-event --buildid-mmap -o "$data" -- "$@" \
		>"$SCRATCH/.perf.out" 2>&1
}

# Can perf record here? Sets $perf_record_why when it cannot.
perf_record_why=
perf_record_works() {
	perf_record_why=
	if ! have perf; then
		perf_record_why="perf not installed"
		return 1
	fi
	if ! perf_rec "$SCRATCH/.probe.data" true; then
		perf_record_why="perf record fails here: $(grep -m1 -iE 'permission|paranoid|not supported|error' "$SCRATCH/.perf.out" || head -n 1 "$SCRATCH/.perf.out")"
		return 1
	fi
	rm -f "$SCRATCH/.probe.data"
}

# mmap2_id BIN [ARGS...]: run BIN under perf record --buildid-mmap and print
# what the kernel put in the MMAP2 record for BIN's executable mapping:
# the id between < and >, or "none" when the record has device and inode
# numbers instead. Empty output when no MMAP2 record names BIN. The data
# stays in $SCRATCH/.perf.data for perf report.
mmap2_id() { mmap2_id_of "$1" "$@"; }

# mmap2_id_of FILE CMD...: the same for a FILE that CMD maps without being
# it, such as a shared library a loader opens (FILE as the kernel names it:
# an absolute path without symbolic links).
mmap2_id_of() {
	local bin=$1 data=$SCRATCH/.perf.data line
	shift
	perf_rec "$data" "$@" || {
		echo "perf-record-failed: $(head -n 1 "$SCRATCH/.perf.out")"
		return 1
	}
	line=$(perf script -i "$data" --show-mmap-events 2>/dev/null |
		grep 'PERF_RECORD_MMAP2' | grep -F -- "r-xp $bin" |
		awk -v tail="r-xp $bin" 'substr($0, length($0) - length(tail) + 1) == tail' |
		head -n 1)
	[ -n "$line" ] || return 0
	if [[ "$line" =~ \<([0-9a-f]+)\> ]]; then
		echo "${BASH_REMATCH[1]}"
	else
		echo none
	fi
}

# rewriters_judged KNOWN TSV...: the verdicts of scripts/rewriters-check
# (column 4; shape in 1, tool in 3) against the failures KNOWN lists
# (shape, tool, cause): a FAIL it does not list fails the test, and so
# does a listed one of these shapes that no longer fails (the list and
# docs/rewriters.md must say what holds).
rewriters_judged() { # KNOWN TSV...
	local known=$1 rows
	shift
	rows=$(for f in "$@"; do tail -n +2 "$f"; done)
	t_begin "no rewriter does worse on our file than on its control, but the known ones ($(basename "$known"))"
	expect_eq "results worse than the control, not known" \
		"$(awk -F'\t' 'NR == FNR { if ($0 !~ /^#/) k[$1 "\t" $2] = 1; next }
			$4 == "FAIL" && !(($1 "\t" $3) in k) { print $1, $3, $6 }' "$known" - <<<"$rows")" ""
	expect_eq "known failures that are gone (update $(basename "$known") and docs/rewriters.md)" \
		"$(awk -F'\t' 'NR == FNR { if ($0 !~ /^#/) k[$1 "\t" $2] = 1; next }
			(($1 "\t" $3) in k) && $4 != "FAIL" { print $1, $3, $4 }' "$known" - <<<"$rows")" ""
	expect_ne "results that pass on both sides" "$(awk -F'\t' '$4 == "ok"' <<<"$rows")" ""
	t_end
}
