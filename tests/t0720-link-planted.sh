#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# Issue 11, link into a destination someone else can write: a symlink
# planted where link expects a directory or a file (DIR/.build-id,
# DIR/.build-id/xx, DIR/.build-id/xx/rest.debug, a component of the
# perf-cache path DIR/<absolute path of FILE>/<id>/elf, DIR/.build-id of
# the perf cache), pointing out of DIR or dangling, is refused: exit 2, one
# error line naming FILE, no result line, the symlink left as it was, and
# not a byte written outside DIR. A clean DIR works (the positive controls).
. "$(dirname "$0")/lib.sh"
require_tool
require_fixtures nobuildid

sha() { sha256sum <"$1" | cut -d' ' -f1; }

# snapshot DIR: every entry below DIR (type, mode, size, link text) and the
# sha256 of every regular file; a change anywhere shows.
snapshot() {
	(cd "$1" && find . -printf '%y %m %s %p -> %l\n' | sort &&
		find . -type f -exec sha256sum {} + | sort)
}

BIN=$SCRATCH/bin/prog
copy_fixture nobuildid "$BIN" >/dev/null
t_begin "setup: inject the binary to link"
inject_ok "$BIN"
t_end
ID=$id
[ -n "$ID" ] || { t_done; }
XX=${ID:0:2} REST=${ID:2}
BIN_SHA=$(sha "$BIN")

# Everything a planted symlink points at lives below OUT, made afresh for
# each block.
OUT=$SCRATCH/outside
make_out() {
	rm -rf "$OUT"
	mkdir -p "$OUT/dir" "$OUT/dir2/sub"
	echo "not a debug file" >"$OUT/victim"
	echo "keep me" >"$OUT/dir2/sub/keep"
	cp "$BIN" "$OUT/same-bytes" # what link would write, but outside DIR
	chmod -R go-w "$OUT"
}

# expect_same_text WHAT GOT WANT: like expect_eq, but shows only the diff.
expect_same_text() {
	t_check
	[ "$2" = "$3" ] && return 0
	t_fail "$1: differs (- before, + after):" \
		"$(diff -U0 <(printf '%s\n' "$3") <(printf '%s\n' "$2") | grep -v '^\(---\|+++\|@@\)' | head -n 20)"
}

t_begin "positive control: link --debug-dir into a clean DIR"
D=$SCRATCH/clean-debug
run "$EBID" link --debug-dir="$D" "$BIN"
expect_eq "exit" "$rc" 0
expect_eq "output" "$out" "$ID  $D/.build-id/$XX/$REST.debug"
expect_eq "stderr" "$err" ""
placed=$D/.build-id/$XX/$REST.debug
[ -f "$placed" ] && [ ! -L "$placed" ] || t_fail "$placed is not a regular file"
expect_same_file "the placed bytes" "$placed" "$BIN"
run "$EBID" link --debug-dir="$D" "$BIN"
expect_eq "a second run (the same file already there): exit" "$rc" 0
expect_eq "a second run: output" "$out" "$ID  $D/.build-id/$XX/$REST.debug"
t_end

# The perf-cache place of BIN: DIR/<absolute path of BIN>/<id>/elf. Its
# path components come from the positive control's output, so they are the
# tool's idea of BIN's absolute path.
t_begin "positive control: link --perf-cache=DIR into a clean DIR"
P=$SCRATCH/clean-perf
run "$EBID" link --perf-cache="$P" "$BIN"
expect_eq "exit" "$rc" 0
expect_eq "stderr" "$err" ""
ABS=
re="^$ID  $(re_quote "$P")(/.+)/$ID/(debug|elf)\$"
if [[ "$out" =~ $re ]]; then
	ABS=${BASH_REMATCH[1]}
else
	t_fail "output '$out' is not 'ID  DIR/<path of the binary>/ID/elf|debug'"
fi
if [ -n "$ABS" ]; then
	expect_eq "the path in the cache is the binary's" "$(realpath "$ABS")" "$(realpath "$BIN")"
	expect_same_file "DIR/<path>/ID/elf" "$P$ABS/$ID/elf" "$BIN"
	[ -L "$P/.build-id/$XX/$REST" ] || t_fail "DIR/.build-id/$XX/$REST is not perf's symlink"
	expect_eq "DIR/.build-id/$XX/$REST leads to DIR/<path>/ID" \
		"$(realpath "$P/.build-id/$XX/$REST")" "$(realpath "$P$ABS/$ID")"
fi
run "$EBID" link --perf-cache="$P" "$BIN"
expect_eq "a second run (its own .build-id symlink already there): exit" "$rc" 0
t_end

# The form issue 4 wrote: the directory as its own word, then the FILEs.
t_begin "link --perf-cache DIR FILE (DIR as a separate word) places FILE in DIR"
P2=$SCRATCH/word-perf
run "$EBID" link --perf-cache "$P2" "$BIN"
expect_eq "exit" "$rc" 0
expect_eq "stderr" "$err" ""
expect_match "output" "$out" "^$ID  $(re_quote "$P2")/.+/$ID/debug\$"
[ -L "$P2/.build-id/$XX/$REST" ] || t_fail "DIR/.build-id/$XX/$REST is not perf's symlink"
t_end

t_begin "--perf-default-cache takes no value: the next word is a FILE, placed in \$HOME/.debug"
run env HOME="$SCRATCH/home2" "$EBID" link --perf-default-cache "$BIN"
expect_eq "exit" "$rc" 0
expect_match "output" "$out" "^$ID  $(re_quote "$SCRATCH/home2/.debug")/.+/$ID/debug\$"
run env -u HOME "$EBID" link --perf-default-cache "$BIN"
expect_eq "without HOME: exit" "$rc" 64
t_end
[ -n "$ABS" ] || ABS=$(realpath "$BIN")
FIRST=${ABS#/}
FIRST=${FIRST%%/*}

# refused OPTION DIR PLANTED TARGET: plant PLANTED -> TARGET (creating its
# parents below DIR), run link OPTION=DIR, check the refusal. What link
# made inside DIR before it met the symlink may stay; nothing outside.
refused() {
	local opt=$1 d=$2 planted=$3 target=$4 before
	make_out
	rm -rf "$d"
	mkdir -p "$(dirname "$planted")"
	ln -s "$target" "$planted"
	before=$(snapshot "$OUT")
	run "$EBID" link "$opt=$d" "$BIN"
	expect_eq "exit" "$rc" 2
	expect_eq "stdout (no result line)" "$out" ""
	expect_one_error_line "$BIN"
	expect_same_text "the tree the symlink points into (${OUT#"$SCRATCH"/})" "$(snapshot "$OUT")" "$before"
	[ -L "$planted" ] || t_fail "the planted symlink ${planted#"$SCRATCH"/} is gone"
	expect_eq "the planted symlink's text" "$(readlink "$planted")" "$target"
	case $target in
	"$OUT"/gone*) [ -e "$target" ] || [ -L "$target" ] && t_fail "the dangling target $target was created" ;;
	esac
	expect_eq "the binary" "$(sha "$BIN")" "$BIN_SHA"
}

D=$SCRATCH/d
t_begin "--debug-dir: DIR/.build-id is a symlink to a directory outside"
refused --debug-dir "$D" "$D/.build-id" "$OUT/dir"
t_end

t_begin "--debug-dir: DIR/.build-id is a dangling symlink"
refused --debug-dir "$D" "$D/.build-id" "$OUT/gone1"
t_end

t_begin "--debug-dir: DIR/.build-id/$XX is a symlink to a directory outside"
refused --debug-dir "$D" "$D/.build-id/$XX" "$OUT/dir"
t_end

t_begin "--debug-dir: DIR/.build-id/$XX is a dangling symlink"
refused --debug-dir "$D" "$D/.build-id/$XX" "$OUT/gone2"
t_end

t_begin "--debug-dir: DIR/.build-id/$XX is a dangling symlink whose target's parent exists"
refused --debug-dir "$D" "$D/.build-id/$XX" "$OUT/dir/gone3"
t_end

t_begin "--debug-dir: DIR/.build-id/$XX/rest.debug is a symlink to a file outside"
refused --debug-dir "$D" "$D/.build-id/$XX/$REST.debug" "$OUT/victim"
t_end

t_begin "--debug-dir: DIR/.build-id/$XX/rest.debug is a symlink to a file outside with the same bytes"
# Not "the same file already there": the place is a symlink someone planted.
refused --debug-dir "$D" "$D/.build-id/$XX/$REST.debug" "$OUT/same-bytes"
t_end

t_begin "--debug-dir: DIR/.build-id/$XX/rest.debug is a dangling symlink"
refused --debug-dir "$D" "$D/.build-id/$XX/$REST.debug" "$OUT/gone4"
t_end

t_begin "--debug-dir: DIR/.build-id/$XX/rest.debug dangles into an existing directory"
refused --debug-dir "$D" "$D/.build-id/$XX/$REST.debug" "$OUT/dir/gone5"
t_end

P=$SCRATCH/p
t_begin "--perf-cache: DIR/$FIRST (first component of the binary's path) is a symlink to a directory outside"
refused --perf-cache "$P" "$P/$FIRST" "$OUT/dir"
t_end

t_begin "--perf-cache: DIR/$FIRST is a dangling symlink"
refused --perf-cache "$P" "$P/$FIRST" "$OUT/gone6"
t_end

t_begin "--perf-cache: DIR/<path of the binary> (its last component) is a symlink to a directory outside"
refused --perf-cache "$P" "$P$ABS" "$OUT/dir2"
t_end

t_begin "--perf-cache: DIR/<path of the binary>/<id> is a dangling symlink"
refused --perf-cache "$P" "$P$ABS/$ID" "$OUT/gone7"
t_end

t_begin "--perf-cache: DIR/<path of the binary>/<id>/elf is a symlink to a file outside"
refused --perf-cache "$P" "$P$ABS/$ID/elf" "$OUT/victim"
t_end

t_begin "--perf-cache: DIR/.build-id is a symlink to a directory outside"
refused --perf-cache "$P" "$P/.build-id" "$OUT/dir"
t_end

t_begin "--perf-cache: DIR/.build-id is a dangling symlink"
refused --perf-cache "$P" "$P/.build-id" "$OUT/gone8"
t_end

t_begin "--perf-cache: DIR/.build-id/$XX is a symlink to a directory outside"
refused --perf-cache "$P" "$P/.build-id/$XX" "$OUT/dir"
t_end

t_done
