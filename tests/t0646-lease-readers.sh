#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# What other processes see while the default inject writes a file
# (issue 34, promises 3 and 4), each with --in-place beside it as the
# promise broken on purpose, which the same check must catch:
#  - a process that opens and reads the file again and again while inject
#    runs round after round (each write slowed to 20 ms by the fault shim,
#    so that a torn file would last) reads the old bytes or the new ones,
#    never a mix; some rounds were edited in place under the lease, the
#    others replaced because the reader had the file open;
#  - a process that has the file mapped (MAP_SHARED, MAP_PRIVATE, or a
#    library loaded with dlopen) keeps the old bytes: the lease is refused,
#    the file is replaced;
#  - a writer that opens the file during the edit waits for it, and its
#    byte lands after the new bytes, or the run gives way and says the
#    file changed: never a mix.
. "$(dirname "$0")/lib.sh"
require_tool
require_fixtures plain
require_cmds gcc

shim=$TOP/build/robust/faultshim.so
t_begin "the fault shim builds"
expect_exit 0 build_locked robust make -C "$TOP" --no-print-directory faultshim
t_end

old=$FIXTURES/plain
new=$SCRATCH/new
cp "$old" "$new" && "$EBID" inject -q --replace "$new"
helper=$TOP/tests/robust/lease_readers.py

# slow_inject FILE ARGS...: inject with every write into FILE itself
# slowed (not the journal's: a reader that comes while the journal is
# written makes the run give way, before any byte of the file changed).
slow_inject() {
	local f=$1
	shift
	EBID_FAULT=pwrite:all:slow EBID_FAULT_SCOPE=$f LD_PRELOAD=$shim \
		ASAN_OPTIONS="${ASAN_OPTIONS:+$ASAN_OPTIONS:}verify_asan_link_order=0" \
		"$EBID" inject -v "$@"
}

readers() { # MODE ROUNDS
	local mode=$1 rounds=$2 d=$SCRATCH/read$1 m=() i
	[ "$mode" = default ] || m=("$mode")
	mkdir -p "$d" && cp "$old" "$d/f"
	python3 "$helper" read "$old" "$new" "$d/f" "$d/stop" >"$d/reads" &
	local reader=$!
	: >"$d/how"
	for i in $(seq "$rounds"); do
		cp "$old" "$d/f.tmp" && mv "$d/f.tmp" "$d/f"
		slow_inject "$d/f" "${m[@]}" "$d/f" >/dev/null 2>>"$d/how" ||
			t_fail "round $i: inject failed: $(tail -n 1 "$d/how")"
		cmp -s "$d/f" "$new" || t_fail "round $i: the result is not the new file"
	done
	touch "$d/stop"
	wait "$reader"
	reads=$(cat "$d/reads")
	echo "# $mode: $rounds rounds ($(grep -c 'edited in place' "$d/how") in place, $(grep -c 'replaced by rename' "$d/how") replaced); $reads"
}

t_begin "default mode: a reader that opens the file again and again reads old or new bytes, never a mix"
readers default 12
expect_match "reads" "$reads" ' other 0$'
expect_match "reads" "$reads" '^reads [1-9]'
# The lease was granted in some rounds, or the check proved nothing about it.
expect_ne "rounds edited in place under the lease" "$(grep -c 'under a write lease' "$SCRATCH/readdefault/how")" 0
t_end

t_begin "--in-place (no lease): the same reader sees a mix (the check can fail)"
readers --in-place 6
expect_match "reads" "$reads" ' other [1-9][0-9]*'
t_end

cat >"$SCRATCH/lib.c" <<'EOF'
int ebid_answer(void) { return 42; }
EOF
gcc -shared -fPIC -O2 -Wl,--build-id=none -o "$SCRATCH/lib.so" "$SCRATCH/lib.c"
cp "$SCRATCH/lib.so" "$SCRATCH/lib-new.so" && "$EBID" inject -q --replace "$SCRATCH/lib-new.so"

mapped() { # KIND MODE  (KIND: file or lib)
	local kind=$1 mode=$2 d=$SCRATCH/map-$1$2 src want m=() extra=()
	[ "$mode" = default ] || m=("$mode")
	src=$old want=$new
	[ "$kind" = lib ] && src=$SCRATCH/lib.so want=$SCRATCH/lib-new.so extra=(lib)
	mkdir -p "$d" && cp "$src" "$d/f"
	python3 "$helper" map "$src" "$d/f" "$d/ready" "$d/go" "${extra[@]}" >"$d/out" 2>&1 &
	local holder=$!
	for _ in $(seq 500); do [ -e "$d/ready" ] && break; sleep 0.01; done
	[ -e "$d/ready" ] || t_fail "the mapping process did not get ready: $(cat "$d/out")"
	"$EBID" inject -v "${m[@]}" "$d/f" >/dev/null 2>"$d/how" ||
		t_fail "inject failed: $(cat "$d/how")"
	touch "$d/go"
	wait "$holder"
	how=$(cat "$d/how") seen=$(cat "$d/out")
	cmp -s "$d/f" "$want" || t_fail "the file is not the new file"
}

for kind in file lib; do
	t_begin "default mode: a process with the $kind mapped keeps the old bytes; the file is replaced"
	mapped "$kind" default
	expect_eq "the mapping" "$seen" "mapped unchanged"
	expect_match "how" "$how" 'replaced by rename$'
	t_end

	t_begin "--in-place: the $kind's mapping changes under the process (the check can fail)"
	mapped "$kind" --in-place
	expect_match "the mapping" "$seen" '^mapped changed: '
	t_end
done

t_begin "a running program: the default mode replaces the file, the program runs on"
d=$SCRATCH/running
mkdir -p "$d" && cp "$old" "$d/f"
"$d/f" spin 3 >"$d/out" 2>&1 &
pid=$!
for _ in $(seq 200); do
	[ "$(readlink "/proc/$pid/exe" 2>/dev/null)" = "$d/f" ] && break
	sleep 0.01
done
expect_exit 0 "$EBID" inject -v "$d/f"
expect_match "how" "$err" 'replaced by rename$'
wait "$pid"
expect_eq "the program's exit status" "$?" 0
expect_same_file "result" "$d/f" "$new"
t_end

t_begin "a writer that opens the file during an in-place edit: its byte comes after the new bytes, or the run gives way and says so"
d=$SCRATCH/writer
mkdir -p "$d" && cp "$old" "$d/f"
slow_inject "$d/f" "$d/f" >"$d/out" 2>"$d/how" &
inj=$!
for _ in $(seq 500); do [ -e "$d/.f.ebid-journal" ] && break; sleep 0.002; done
[ -e "$d/.f.ebid-journal" ] || t_fail "no journal appeared (not edited in place?)"
printf '!' >>"$d/f"
wait "$inj"
rc=$?
cp "$new" "$d/new+" && printf '!' >>"$d/new+"
cp "$old" "$d/old+" && printf '!' >>"$d/old+"
# The writer's byte first, then the file injected: what inject makes of it.
cp "$d/old+" "$d/old+new" && "$EBID" inject -q --replace "$d/old+new"
how=$(tail -n 1 "$d/how")
if [ "$rc" = 0 ] && [[ "$how" == *"under a write lease" ]]; then
	# The edit was under way: the writer waited for it.
	expect_same_file "in place: the new file, then the writer's byte" "$d/f" "$d/new+"
elif [ "$rc" = 0 ]; then
	# It asked before the first byte changed: the run gave way, the
	# writer wrote, and the run then replaced the file it found.
	expect_match "how" "$how" 'replaced by rename$'
	expect_same_file "given way: the old file and the writer's byte, injected" "$d/f" "$d/old+new"
else
	# Given way, and the writer's byte came while the file was copied.
	expect_eq "exit status" "$rc" 2
	expect_match "message" "$how" 'changed'
	expect_same_file "given way: the old file, then the writer's byte" "$d/f" "$d/old+"
fi
echo "# writer: inject exit $rc: $how"
t_end

t_done
