#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# tier: slow (200 racing runs, alone on the machine)
# Issue 11, a tree someone else can write: while `inject -r`,
# `inject -r -j 2 --in-place`, `link -r --debug-dir` and `verify -r` walk
# TREE, a swapper keeps exchanging two directories inside it
# (renameat2 RENAME_EXCHANGE) with symlinks to a decoy tree outside it,
# owned by another user (nobody), whose files have the same names. No byte
# of the decoy may change and no file may appear in it; no run may print a
# decoy's id or path, copy a decoy into the debug directory, crash, or (for
# inject) exit 1. Exit 2 is allowed: a directory replaced during the walk is
# reported. Afterwards every tree file that has an id verifies.
# EBID_RACE_RUNS (default 200) runs in all, the four commands in turn;
# EBID_RACE_SECONDS (default 90) bounds the racing part.
. "$(dirname "$0")/lib.sh"
require_tool
require_fixtures nobuildid

runs_wanted=${EBID_RACE_RUNS:-200}
secs_max=${EBID_RACE_SECONDS:-90}

if [ "$(id -u)" != 0 ]; then
	t_skip "hostile tree: directories swapped for symlinks to a decoy owned by another user" \
		"needs root (the decoy is chowned to another user, as in a packaging hook)"
	t_done
fi
if ! getent passwd nobody >/dev/null; then
	t_skip "hostile tree: directories swapped for symlinks to a decoy owned by another user" \
		"no user 'nobody' to own the decoy"
	t_done
fi

sha() { sha256sum <"$1" | cut -d' ' -f1; }

TREE=$SCRATCH/tree
DECOY=$SCRATCH/decoy
DBG=$SCRATCH/debug
PRISTINE=$SCRATCH/pristine
REF=$SCRATCH/ref

# Tree files: relative path -> pristine copy (un-injected, each distinct).
# The two swapped directories are pkg/sub and top/mid; the decoy has the
# same paths below it, so a path resolved again after a swap lands there.
TREE_FILES=(bin/b1 bin/b2 pkg/sub/p1 pkg/sub/p2 pkg/sub/p3 pkg/sub/p4
	top/mid/leaf/q1 top/mid/leaf/q2)
# Decoy files: un-injected ones (an inject through the symlink rewrites
# them) and injected ones (a link or verify through it shows their ids).
DECOY_RAW=(pkg/sub/p1 pkg/sub/p2 top/mid/leaf/q1)
DECOY_INJ=(pkg/sub/p3 pkg/sub/p4 top/mid/leaf/q2 pkg/sub/extra)

# mkbin DEST TAG: nobuildid with TAG appended, so its content id is its own.
mkbin() {
	mkdir -p "$(dirname "$1")" && cp "$FIXTURES/nobuildid" "$1" &&
		printf '%s' "$2" >>"$1"
}

declare -A TREE_ID DECOY_ID_OF
t_begin "setup: a tree, a decoy owned by nobody, and every id either can get (all distinct)"
rm -rf "$TREE" "$DECOY" "$DBG" "$PRISTINE" "$REF"
mkdir -p "$TREE" "$DECOY" "$DBG" "$PRISTINE" "$REF"
for p in "${TREE_FILES[@]}"; do
	mkbin "$PRISTINE/$p" "tree:$p"
	mkbin "$TREE/$p" "tree:$p"
	mkdir -p "$(dirname "$REF/$p")"
	run "$EBID" inject -o "$REF/$p" "$PRISTINE/$p"
	expect_eq "reference inject of $p" "$rc" 0
	TREE_ID[$p]=${out%%  *}
done
for p in "${DECOY_RAW[@]}"; do
	mkbin "$DECOY/$p" "decoy:$p"
	expect_exit 0 "$EBID" inject -o "$SCRATCH/decoy-ref" "$DECOY/$p" # the id it would get
	DECOY_ID_OF[$p]=${out%%  *}
done
for p in "${DECOY_INJ[@]}"; do
	mkbin "$DECOY/$p" "decoy:$p"
	expect_exit 0 "$EBID" inject "$DECOY/$p"
	DECOY_ID_OF[$p]=${out%%  *}
done
rm -f "$SCRATCH/decoy-ref"
echo "decoy: not ELF" >"$DECOY/pkg/sub/README"
chown -R nobody: "$DECOY"
chmod -R go-w "$DECOY"
# The swap partners: a symlink beside each swapped directory.
ln -s "$DECOY/pkg/sub" "$TREE/pkg/.swap-sub"
ln -s "$DECOY/top/mid" "$TREE/top/.swap-mid"
tree_ids=$(printf '%s\n' "${TREE_ID[@]}" | sort)
decoy_ids=$(printf '%s\n' "${DECOY_ID_OF[@]}" | sort)
expect_eq "distinct tree ids" "$(printf '%s\n' "$tree_ids" | sort -u | grep -c '^[0-9a-f]\{40\}$')" "${#TREE_FILES[@]}"
expect_eq "distinct decoy ids" "$(printf '%s\n' "$decoy_ids" | sort -u | grep -c '^[0-9a-f]\{40\}$')" \
	$((${#DECOY_RAW[@]} + ${#DECOY_INJ[@]}))
expect_eq "ids in both" "$(comm -12 <(echo "$tree_ids") <(echo "$decoy_ids"))" ""
expect_eq "decoy owner" "$(stat -c %U "$DECOY/pkg/sub/p1")" nobody
t_end

# What the decoy is: every entry (type, inode, mode, owner, size, mtime,
# ctime, link text) and the sha256 of every file.
decoy_stat() { find "$DECOY" -printf '%y %i %m %U:%G %s %T@ %C@ %p -> %l\n' | sort; }
decoy_full() { decoy_stat && find "$DECOY" -type f -exec sha256sum {} + | sort; }
DECOY_BEFORE=$(decoy_full)
DECOY_STAT0=$(decoy_stat)

# The swapper: exchanges each directory with its symlink and back, as fast
# as it can with random short stays; on SIGTERM it ends with both back and
# writes how many exchanges it made.
cat >"$SCRATCH/swapper.py" <<'PY'
import ctypes, os, random, signal, sys, time
libc = ctypes.CDLL(None, use_errno=True)
AT_FDCWD, RENAME_EXCHANGE = -100, 2
pairs = [(sys.argv[i], sys.argv[i + 1]) for i in range(2, len(sys.argv), 2)]
stop = False
def on_term(*_):
    global stop
    stop = True
signal.signal(signal.SIGTERM, on_term)
def exch(a, b):
    if libc.renameat2(AT_FDCWD, a.encode(), AT_FDCWD, b.encode(), RENAME_EXCHANGE):
        e = ctypes.get_errno()
        raise OSError(e, "renameat2(%s, %s): %s" % (a, b, os.strerror(e)))
n = 0
while not stop:
    for a, b in pairs:
        exch(a, b)
        n += 1
        d = random.choice((0, 0, 0, 0.0002, 0.001))
        if d:
            time.sleep(d)
    for a, b in pairs:
        exch(a, b)
        n += 1
    if random.random() < 0.3:
        time.sleep(0.0005)
open(sys.argv[1], "w").write("%d\n" % n)
PY
SWAPS=$SCRATCH/swaps
python3 "$SCRATCH/swapper.py" "$SWAPS" \
	"$TREE/pkg/sub" "$TREE/pkg/.swap-sub" "$TREE/top/mid" "$TREE/top/.swap-mid" &
swapper=$!
# Never leave it running (a timeout kills this script, not its children).
trap 'kill -CONT "$swapper" 2>/dev/null; kill -TERM "$swapper" 2>/dev/null' EXIT

swapper_state() { awk '{print $3}' "/proc/$swapper/stat" 2>/dev/null; }
# pause/resume the swapper; while paused each real directory is at one of
# its two names (the one that is not a symlink).
pause() {
	local k
	kill -STOP "$swapper" 2>/dev/null || return 1
	for k in $(seq 500); do
		[ "$(swapper_state)" = T ] && return 0
		sleep 0.002
	done
	return 1
}
resume() { kill -CONT "$swapper" 2>/dev/null; }
real_dir() { # SWAPPED SYMLINK-NAME
	if [ -L "$1" ]; then echo "$2"; else echo "$1"; fi
}
# reset: the tree's files back to un-injected, written through the real
# directories (never through a path that may be a symlink right now).
reset_tree() {
	local sub mid p
	pause || return 1
	sub=$(real_dir "$TREE/pkg/sub" "$TREE/pkg/.swap-sub")
	mid=$(real_dir "$TREE/top/mid" "$TREE/top/.swap-mid")
	for p in "${TREE_FILES[@]}"; do
		case $p in
		pkg/sub/*) cp "$PRISTINE/$p" "$sub/${p#pkg/sub/}" ;;
		top/mid/*) cp "$PRISTINE/$p" "$mid/${p#top/mid/}" ;;
		*) cp "$PRISTINE/$p" "$TREE/$p" ;;
		esac
	done
	resume
}

CMDS=(inject inject-inplace link verify)
declare -A WHY NRUN RCS
for c in "${CMDS[@]}"; do WHY[$c]="" NRUN[$c]=0 RCS[$c]=""; done
note() { # CMD TEXT: a failure for CMD's block (the first 8 are kept)
	local n
	n=$(printf '%s' "${WHY[$1]}" | grep -c '^' || true)
	[ "$n" -lt 8 ] && WHY[$1]+="$2"$'\n'
	[ "$n" = 8 ] && WHY[$1]+="(more of the same left out)"$'\n'
	return 0
}

stat_prev=$DECOY_STAT0
t0=$SECONDS
done_runs=0
while [ "$done_runs" -lt "$runs_wanted" ] && [ $((SECONDS - t0)) -lt "$secs_max" ]; do
	c=${CMDS[done_runs % 4]}
	case $c in
	inject | inject-inplace) reset_tree || { note "$c" "could not pause the swapper"; break; } ;;
	esac
	case $c in
	inject) run "$EBID" inject -r "$TREE" ;;
	inject-inplace) run "$EBID" inject -r -j 2 --in-place "$TREE" ;;
	link) run "$EBID" link -r --debug-dir="$DBG" "$TREE" ;;
	verify) run "$EBID" verify -r --perf=off "$TREE" ;;
	esac
	done_runs=$((done_runs + 1))
	NRUN[$c]=$((NRUN[$c] + 1))
	RCS[$c]+=" $rc"
	k=${NRUN[$c]}
	case $c:$rc in
	inject*:0 | inject*:2 | link:0 | link:2 | verify:0 | verify:1 | verify:2) ;;
	*) note "$c" "run $k: exit $rc; stderr: $(head -c 300 "$SCRATCH/.err")" ;;
	esac
	all="$out"$'\n'"$err"
	if printf '%s\n' "$all" | grep_q -F -- "$DECOY"; then
		note "$c" "run $k names the decoy: $(printf '%s\n' "$all" | grep -F -- "$DECOY" | head -n 1)"
	fi
	printed=$(printf '%s\n' "$all" | grep -oE '(^|[^0-9a-f])[0-9a-f]{40}([^0-9a-f]|$)' |
		grep -oE '[0-9a-f]{40}' | sort -u)
	bad=$(comm -23 <(printf '%s\n' "$printed" | grep .) <(printf '%s\n' "$tree_ids"))
	if [ -n "$bad" ]; then
		in_decoy=$(comm -12 <(printf '%s\n' "$bad") <(printf '%s\n' "$decoy_ids"))
		note "$c" "run $k printed ids no tree file has: $(echo $bad)${in_decoy:+ (decoy ids: $(echo $in_decoy))}"
	fi
	stat_now=$(decoy_stat)
	if [ "$stat_now" != "$stat_prev" ]; then
		note "$c" "run $k changed the decoy: $(diff -U0 <(echo "$stat_prev") <(echo "$stat_now") | grep '^[-+][^-+]' | head -n 4 | tr '\n' ' ')"
		stat_prev=$stat_now
	fi
done
race_secs=$((SECONDS - t0))
kill -CONT "$swapper" 2>/dev/null
kill -TERM "$swapper" 2>/dev/null
wait "$swapper"
swapper_rc=$?
swaps=$(cat "$SWAPS" 2>/dev/null)
echo "# $done_runs racing runs in ${race_secs}s, ${swaps:-?} directory exchanges"

t_begin "the race ran: $runs_wanted runs wanted (EBID_RACE_RUNS), the swapper exchanged directories throughout"
expect_eq "runs done within ${secs_max}s (EBID_RACE_SECONDS)" "$done_runs" "$runs_wanted"
[ "$runs_wanted" -ge 200 ] || t_fail "EBID_RACE_RUNS=$runs_wanted: issue 11 asks for at least 200"
expect_eq "swapper exit status" "$swapper_rc" 0
[ "${swaps:-0}" -ge $((done_runs * 2)) ] || t_fail "only ${swaps:-0} exchanges for $done_runs runs"
[ -L "$TREE/pkg/.swap-sub" ] && [ -d "$TREE/pkg/sub" ] && [ ! -L "$TREE/pkg/sub" ] &&
	[ -L "$TREE/top/.swap-mid" ] && [ ! -L "$TREE/top/mid" ] ||
	t_fail "the swapped directories are not back in place"
t_end

for c in "${CMDS[@]}"; do
	case $c in
	inject) d="inject -r: exit 0 or 2 (never 1, never a signal)" ;;
	inject-inplace) d="inject -r -j 2 --in-place: exit 0 or 2 (never 1, never a signal)" ;;
	link) d="link -r --debug-dir: exit 0 or 2 (never a signal)" ;;
	verify) d="verify -r: exit 0, 1 or 2 (never a signal)" ;;
	esac
	t_begin "$d; prints no decoy path or id; leaves the decoy as it was (${NRUN[$c]} runs)"
	# Each run was checked as it ended; the problems are in WHY.
	expect_true "no run" [ "${NRUN[$c]}" -gt 0 ]
	while IFS= read -r line; do
		[ -n "$line" ] && t_fail "$line"
	done <<<"${WHY[$c]}"
	echo "# $c exit statuses:$(printf '%s\n' ${RCS[$c]} | sort | uniq -c | awk '{printf " %sx%s", $1, $2}')"
	t_end
done

t_begin "the decoy tree: listing, owners, times and sha256 of every file as before; nothing added"
after=$(decoy_full)
expect_ne "the decoy tree's listing" "$after" ""
if [ "$after" != "$DECOY_BEFORE" ]; then
	t_fail "the decoy changed (- before, + after):" \
		"$(diff -U0 <(echo "$DECOY_BEFORE") <(echo "$after") | grep '^[-+][^-+]' | head -n 20)"
fi
t_end

t_begin "the debug directory holds only tree files, each the injected tree file, no decoy"
n=0
while IFS= read -r f; do
	n=$((n + 1))
	rel=${f#"$DBG"/.build-id/}
	id=${rel%%/*}${rel#*/}
	id=${id%.debug}
	hit=
	for p in "${TREE_FILES[@]}"; do
		if [ "${TREE_ID[$p]}" = "$id" ]; then
			hit=$p
			expect_same_file "$rel is the injected $p" "$f" "$REF/$p"
		fi
	done
	if [ -z "$hit" ]; then
		if printf '%s\n' "$decoy_ids" | grep_q -Fx -- "$id"; then
			t_fail "$rel: a decoy file was copied into the debug directory"
		else
			t_fail "$rel: an id no tree file has"
		fi
	fi
done < <(find "$DBG" -mindepth 1 \( -type f -o -type l \) | sort)
[ -z "$(find "$DBG" -type l)" ] || t_fail "symlinks in the debug directory: $(find "$DBG" -type l | head -n 3)"
# Without a single link, this block would check nothing.
[ "$n" -gt 0 ] || t_fail "link -r placed no file in $((NRUN[link])) runs"
t_end

t_begin "the tree after the race: every file that has an id is the injected reference; no temporaries"
for p in "${TREE_FILES[@]}"; do
	f=$TREE/$p
	[ -f "$f" ] && [ ! -L "$f" ] || { t_fail "$p: missing or not a regular file"; continue; }
	cur=$(readelf_ids "$f")
	case $cur in
	"") cmp -s "$f" "$PRISTINE/$p" || t_fail "$p: no id, yet not the original bytes" ;;
	*)
		run "$EBID" verify --content-hash --perf=off "$f"
		expect_eq "$p: verify --content-hash" "$rc:$out" "0:PASS  $f  ${TREE_ID[$p]}"
		expect_same_file "$p: the injected reference" "$f" "$REF/$p"
		;;
	esac
done
expect_eq "temporaries or journals in the tree" "$(find "$TREE" -name '.*ebid*' | sort)" ""
t_end

t_begin "a plain inject -r and verify -r afterwards (no swapper): exit 0, every file its reference"
run "$EBID" inject -r -q "$TREE"
expect_eq "inject -r: exit" "$rc" 0
for p in "${TREE_FILES[@]}"; do
	expect_same_file "$p" "$TREE/$p" "$REF/$p"
done
run "$EBID" verify -r --content-hash --perf=off "$TREE"
expect_eq "verify -r: exit" "$rc" 0
expect_eq "verify -r: PASS lines" "$(printf '%s\n' "$out" | grep -c '^PASS ')" "${#TREE_FILES[@]}"
after=$(decoy_full)
[ "$after" = "$DECOY_BEFORE" ] || t_fail "the decoy changed (- before, + after):" \
	"$(diff -U0 <(echo "$DECOY_BEFORE") <(echo "$after") | grep '^[-+][^-+]' | head -n 10)"
t_end

t_begin "a tree file replaced by a hard link of a file outside while inject -r --in-place waits for its lock: refused, the outside file unchanged"
hl=$SCRATCH/hardlink
rm -rf "$hl"
mkdir -p "$hl/tree" "$hl/outside"
cp "$FIXTURES/nobuildid" "$hl/tree/a"
cp "$FIXTURES/plain" "$hl/outside/o"
outside_sha=$(sha256sum <"$hl/outside/o")
# The lock holds the run between its walk and its open of the file.
flock -o "$hl/tree/a" sleep 3 &
holder=$!
for _ in $(seq 50); do
	flock -n "$hl/tree/a" true || break
	sleep 0.05
done
"$EBID" inject -r --in-place "$hl/tree" >"$hl/out" 2>"$hl/err" &
inj=$!
sleep 1 # the walk of one file is long done; the run waits for the lock
ln -f "$hl/outside/o" "$hl/tree/a"
wait "$inj"
rc=$?
wait "$holder"
expect_eq "exit" "$rc" 2
expect_match "the error" "$(cat "$hl/err")" "'$hl/tree/a': inject: replaced during the run by a file with 2 hard links"
expect_eq "the outside file" "$(sha256sum <"$hl/outside/o")" "$outside_sha"
t_end

t_done
