#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# audit --running (issue 22): which running processes a profiler will get
# wrong, on this host, now; and --rescue of the binaries a redeploy
# replaced while they still run. Long-running Go programs
# (fixtures/running/v1, v2: the same code, functions renamed) are started,
# redeployed under them, and judged:
#   redeploy by rename     replaced, both ids; perf report of the process
#                          then --rescue: perf report names v1's functions
#   path deleted           replaced, path none; --rescue into a debug dir
#   -B 0x... (no PT_NOTE)  invisible; ok after inject and a restart
#   one --id, two programs duplicate
# The kernel's ids are compared with perf's MMAP2 records, the fallback
# (EBID_NO_PROCMAP_QUERY=1) with PROCMAP_QUERY, a scan of every process
# with processes coming and going, and a scan as nobody over root's.
. "$(dirname "$0")/lib.sh"
require_tool

export HOME=$SCRATCH/home
export PERF_BUILDID_DIR=$HOME/.debug
unset DEBUGINFOD_URLS EBID_NO_PROCMAP_QUERY
mkdir -p "$HOME"
export CGO_ENABLED=0 GOFLAGS=-trimpath GOPROXY=off GO111MODULE=off GOWORK=off

# build VERSION OUT [LDFLAGS]: a fixture program.
build() {
	(cd "$TOP/fixtures/running/$1" &&
		go build -ldflags="${3:-}" -o "$2" main.go) >"$SCRATCH/.go.log" 2>&1 ||
		t_fail "go build $1 -o $2: $(head -c 1000 "$SCRATCH/.go.log")"
}
# start PROGRAM [ARG]: runs it in the background; $pid. Waits until it
# has printed its first line (its mappings are all there).
start() {
	local log=$SCRATCH/.start.$RANDOM n
	"$@" >"$log" 2>&1 &
	pid=$!
	kill_at_exit "$pid"
	for n in $(seq 100); do
		[ -s "$log" ] && return 0
		sleep 0.05
	done
	t_fail "$1 did not start: $(head -c 300 "$log")"
}
# field JSON PID PATH KEY: one field of audit --running --json for a file.
field() {
	python3 -c '
import json, sys
doc = json.loads(sys.argv[1])
for p in doc["processes"]:
    if p["pid"] != int(sys.argv[2]):
        continue
    for f in p["files"]:
        if f["path"] == sys.argv[3]:
            v = f[sys.argv[4]]
            print("null" if v is None else str(v).lower() if isinstance(v, bool) else v)
' "$1" "$2" "$3" "$4" 2>&1
}
top_line() {
	perf report --stdio -i "$1" --sort sym,dso 2>/dev/null | grep -v '^#' | grep '%' | head -n 1
}

t_begin "usage: FILE with --running, --rescue without --running or a directory, a bad --pid: exit 64"
run "$EBID" audit --running x.data
expect_eq "exit (FILE)" "$rc" 64
run "$EBID" audit --rescue --debug-dir "$SCRATCH/d" x.data
expect_eq "exit (--rescue without --running)" "$rc" 64
run "$EBID" audit --running --rescue
expect_eq "exit (--rescue without a directory)" "$rc" 64
run "$EBID" audit --pid=12x
expect_eq "exit (--pid=12x)" "$rc" 64
expect_match "message" "$err" "--pid takes a process id, not '12x'"
run "$EBID" inject --running x
expect_eq "exit (inject --running)" "$rc" 64
t_end

# record_start DATA PROGRAM [ARG]: PROGRAM started under perf record
# --buildid-mmap (so its MMAP2 records carry the kernel's ids, as a
# continuous profiler's do); $pid is the program, $perf_pid the recorder.
# Without perf, only started. The program is a background child of a
# shell perf starts: record_stop ends the recording (perf sends the shell,
# its workload, SIGTERM) and the program runs on.
record_start() {
	local data=$1 n
	shift
	if [ "$perf_ok" = 0 ]; then
		start "$@"
		return
	fi
	rm -f "$data" "$SCRATCH/.pid"
	perf record -N -B -q --no-bpf-event --buildid-mmap -o "$data" -- \
		sh -c '"$0" "$@" & echo $! >"$PIDFILE"; wait' "$@" \
		>"$SCRATCH/.perf.out" 2>&1 &
	perf_pid=$!
	kill_at_exit "$perf_pid"
	pid=
	for n in $(seq 100); do
		[ -s "$SCRATCH/.pid" ] && pid=$(cat "$SCRATCH/.pid")
		[ -n "$pid" ] && [ -s "$SCRATCH/.perf.out" ] && break
		sleep 0.05
	done
	kill_at_exit "$pid"
	[ -n "$pid" ] || t_fail "perf record $*: no process: $(head -c 300 "$SCRATCH/.perf.out")"
}
record_stop() {
	[ "$perf_ok" = 1 ] || return 0
	local n
	kill -INT "$perf_pid"
	for n in $(seq 100); do
		kill -0 "$perf_pid" 2>/dev/null || break
		sleep 0.1
	done
	kill -9 "$perf_pid" 2>/dev/null
	wait "$perf_pid" 2>/dev/null
}
export PIDFILE=$SCRATCH/.pid

perf_ok=1
perf_record_works || perf_ok=0

# --- the redeploy: replaced by rename --------------------------------------
d=$SCRATCH/deploy
mkdir -p "$d"
t_begin "v1 running at its path: ok, the kernel's id is inject's"
build v1 "$d/app"
inject_ok "$d/app"
id1=$id
cp "$d/app" "$SCRATCH/v1.bin"
record_start "$d/p.data" "$d/app"
pid1=$pid
run "$EBID" audit --running --pid "$pid1" --json
expect_eq "exit" "$rc" 0
expect_eq "verdict" "$(field "$out" "$pid1" "$d/app" verdict)" ok
expect_eq "kernel id" "$(field "$out" "$pid1" "$d/app" kernel_id)" "$id1"
expect_eq "section id" "$(field "$out" "$pid1" "$d/app" section_id)" "$id1"
expect_eq "path now" "$(field "$out" "$pid1" "$d/app" path_now)" same
expect_eq "kernel id from" "$(field "$out" "$pid1" "$d/app" kernel_id_from)" procmap-query
t_end

t_begin "v2 renamed over the path (a deploy): replaced, with both ids; exit 1"
build v2 "$d/app.new"
inject_ok "$d/app.new"
id2=$id
sleep 1
mv -f "$d/app.new" "$d/app"
record_stop
expect_ne "v2's id" "$id2" "$id1"
run "$EBID" audit --running --pid "$pid1"
expect_eq "exit" "$rc" 1
expect_match "line" "$out" "^REPLACED +$pid1  app  $d/app \(deleted\)  kernel $id1  section $id1  path other-id $id2"
expect_match "fix" "$out" 'fix: restart the process; until then keep the running build findable by id: elf-buildid audit --running --rescue'
expect_exit 1 "$EBID" audit --running --pid "$pid1" --json
expect_eq "json verdict" "$(field "$out" "$pid1" "$d/app" verdict)" replaced
expect_eq "json deleted (the old inode is unlinked)" "$(field "$out" "$pid1" "$d/app" deleted)" true
expect_eq "json path id" "$(field "$out" "$pid1" "$d/app" path_id)" "$id2"
expect_eq "json exit" "$(python3 -c 'import json,sys; print(json.load(sys.stdin)["exit_status"])' <<<"$out")" 1
t_end

t_begin "perf's record of v1, reported after the deploy: raw addresses, not v2's names"
if [ "$perf_ok" = 1 ]; then
	expect_eq "perf's MMAP2 id of the process's app" "$(perf buildid-list -i "$d/p.data" 2>/dev/null | awk -v p="$d/app" '$2 == p { print $1 }')" "$id1"
	expect_match "perf report" "$(top_line "$d/p.data")" '\[\.\] 0x[0-9a-f]+ +app'
fi
t_skip_if "$perf_record_why"
t_end

t_begin "--rescue --perf-cache: v1 placed by id from the mapping; perf report then names v1's functions"
run "$EBID" audit --running --pid "$pid1" --rescue --perf-cache "$HOME/.debug"
expect_eq "exit (still replaced)" "$rc" 1
expect_match "rescued" "$out" "rescued: $HOME/\.debug/"
expect_same_file "the rescued bytes are v1's" "$HOME/.debug/.build-id/${id1:0:2}/${id1:2}/elf" "$SCRATCH/v1.bin"
expect_exit 1 "$EBID" audit --running --pid "$pid1"
expect_match "found now" "$out" "found $HOME/\.debug/\.build-id/${id1:0:2}/${id1:2}"
expect_match "fix" "$out" 'fix: restart the process: a profile resolved by id finds the copy'
[ "$perf_ok" = 1 ] &&
	expect_match "perf report (the judge)" "$(top_line "$d/p.data")" '\[\.\] main\.hotLiveVersionOne +app'
kill -9 "$pid1"
t_end

t_begin "perf record -p of a running process: perf reads the id from the path; audit names the kernel's"
if [ "$perf_ok" = 1 ]; then
	start "$SCRATCH/v1.bin" idle
	perf record -N -B -q --no-bpf-event --buildid-mmap -o "$d/a.data" -p "$pid" -- sleep 0.3 \
		>"$SCRATCH/.perf.out" 2>&1
	mm=$(perf script --show-mmap-events -i "$d/a.data" 2>/dev/null | grep 'PERF_RECORD_MMAP2' |
		grep "r-xp $SCRATCH/v1.bin\$" | head -n 1)
	expect_match "perf's MMAP2 of the attached process: the id of the file at the path" "$mm" "<$id1>\]: r-xp $SCRATCH/v1.bin"
	echo "# perf record -p, MMAP2: ${mm##*: \[}"
	expect_exit 0 "$EBID" audit --running --pid "$pid" --json
	expect_eq "audit's kernel id" "$(field "$out" "$pid" "$SCRATCH/v1.bin" kernel_id)" "$id1"
	kill -9 "$pid"
fi
t_skip_if "$perf_record_why"
t_end

t_begin "the kernel's id agrees with perf's MMAP2 records of a process perf starts (Go and C)"
if [ "$perf_ok" = 1 ]; then
	record_start "$d/k.data" "$SCRATCH/v1.bin" idle
	expect_exit 0 "$EBID" audit --running --pid "$pid" --json
	record_stop
	json=$out
	mm=$(perf script --show-mmap-events -i "$d/k.data" 2>/dev/null | grep 'PERF_RECORD_MMAP2' |
		grep " r-xp $SCRATCH/v1.bin\$" | sed -n 's/.*<\([0-9a-f]*\)>.*/\1/p' | head -n 1)
	expect_eq "perf's MMAP2 id of v1" "$mm" "$id1"
	expect_eq "audit's kernel id of v1" "$(field "$json" "$pid" "$SCRATCH/v1.bin" kernel_id)" "$mm"
	kill -9 "$pid"
	record_start "$d/c.data" sleep 30
	expect_exit 0 "$EBID" audit --running --pid "$pid" --json
	record_stop
	json=$out
	kill -9 "$pid"
	n=0
	while read -r line; do
		p=${line##* r-xp }
		mid=$(sed -n 's/.*<\([0-9a-f]*\)>.*/\1/p' <<<"$line")
		expect_eq "$p: audit's kernel id is perf's" "$(field "$json" "$pid" "$p" kernel_id)" "$mid"
		n=$((n + 1))
	done < <(perf script --show-mmap-events -i "$d/c.data" 2>/dev/null | grep 'PERF_RECORD_MMAP2' |
		grep " $pid/$pid: " | grep ' r-xp /')
	expect_true "sleep and its libraries compared ($n)" test "$n" -ge 2
fi
t_skip_if "$perf_record_why"
t_end

# --- the path deleted --------------------------------------------------------
t_begin "the path deleted: replaced (nothing at the path); --rescue --debug-dir, then --perf-cache: perf names v1's functions"
d2=$SCRATCH/deleted
mkdir -p "$d2"
export HOME=$SCRATCH/home2 PERF_BUILDID_DIR=$SCRATCH/home2/.debug
mkdir -p "$HOME"
cp "$SCRATCH/v1.bin" "$d2/app"
record_start "$d2/p.data" "$d2/app"
pid2=$pid
sleep 1
rm -f "$d2/app"
record_stop
run "$EBID" audit --running --pid "$pid2" --json
expect_eq "exit" "$rc" 1
expect_eq "verdict" "$(field "$out" "$pid2" "$d2/app" verdict)" replaced
expect_eq "deleted" "$(field "$out" "$pid2" "$d2/app" deleted)" true
expect_eq "path now" "$(field "$out" "$pid2" "$d2/app" path_now)" none
expect_eq "kernel id" "$(field "$out" "$pid2" "$d2/app" kernel_id)" "$id1"
[ "$perf_ok" = 1 ] &&
	expect_match "perf report before" "$(top_line "$d2/p.data")" '\[\.\] 0x[0-9a-f]+ +app'
expect_exit 1 "$EBID" audit --running --pid "$pid2" --rescue --debug-dir "$SCRATCH/dbg"
expect_match "rescued" "$out" "rescued: $SCRATCH/dbg/\.build-id/${id1:0:2}/${id1:2}\.debug"
expect_same_file "rescued bytes" "$SCRATCH/dbg/.build-id/${id1:0:2}/${id1:2}.debug" "$SCRATCH/v1.bin"
expect_eq "readelf's id of the copy" "$(readelf_ids "$SCRATCH/dbg/.build-id/${id1:0:2}/${id1:2}.debug")" "$id1"
expect_exit 1 "$EBID" audit --running --pid "$pid2" --rescue --perf-cache "$HOME/.debug"
expect_match "rescued into perf's cache" "$out" "rescued: $HOME/\.debug/"
[ "$perf_ok" = 1 ] &&
	expect_match "perf report after (the judge)" "$(top_line "$d2/p.data")" '\[\.\] main\.hotLiveVersionOne +app'
kill -9 "$pid2"
export HOME=$SCRATCH/home PERF_BUILDID_DIR=$SCRATCH/home/.debug
t_end

# --- invisible, then ok --------------------------------------------------------
t_begin "Go -B 0x...: the note no PT_NOTE covers: invisible; inject and restart: ok"
d3=$SCRATCH/invisible
mkdir -p "$d3"
build v1 "$d3/app" "-B 0x0123456789abcdef0123456789abcdef01234567"
expect_eq "readelf's id" "$(readelf_ids "$d3/app")" 0123456789abcdef0123456789abcdef01234567
start "$d3/app" idle
pid3=$pid
run "$EBID" audit --running --pid "$pid3" --json
expect_eq "exit" "$rc" 1
expect_eq "verdict" "$(field "$out" "$pid3" "$d3/app" verdict)" invisible
expect_eq "kernel id" "$(field "$out" "$pid3" "$d3/app" kernel_id)" null
expect_eq "section id" "$(field "$out" "$pid3" "$d3/app" section_id)" 0123456789abcdef0123456789abcdef01234567
expect_match "fix" "$(field "$out" "$pid3" "$d3/app" fix)" 'inject\) and restart'
EBID_NO_PROCMAP_QUERY=1 run "$EBID" audit --running --pid "$pid3" --json
expect_eq "fallback: verdict" "$(field "$out" "$pid3" "$d3/app" verdict)" invisible
expect_eq "fallback: kernel id from" "$(field "$out" "$pid3" "$d3/app" kernel_id_from)" first-page
kill "$pid3"
expect_exit 0 "$EBID" inject "$d3/app"
start "$d3/app" idle
pid3=$pid
run "$EBID" audit --running --pid "$pid3" --json
expect_eq "exit after" "$rc" 0
expect_eq "verdict after" "$(field "$out" "$pid3" "$d3/app" verdict)" ok
expect_eq "kernel id after" "$(field "$out" "$pid3" "$d3/app" kernel_id)" "$(readelf_ids "$d3/app")"
t_end

# --- duplicate -----------------------------------------------------------------
t_begin "two different programs with one id: duplicate, both"
d4=$SCRATCH/dup
mkdir -p "$d4"
cp "$SCRATCH/v1.bin" "$d4/one"
cp "$d/app" "$d4/two"
expect_exit 0 "$EBID" inject -f --id=0xfeedfacefeedfacefeedfacefeedfacefeedface "$d4/one"
expect_exit 0 "$EBID" inject -f --id=0xfeedfacefeedfacefeedfacefeedfacefeedface "$d4/two"
start "$d4/one" idle
pa=$pid
start "$d4/two" idle
pb=$pid
run "$EBID" audit --running --pid "$pa" --pid "$pb" --json
expect_eq "exit" "$rc" 1
expect_eq "one" "$(field "$out" "$pa" "$d4/one" verdict)" duplicate
expect_eq "two" "$(field "$out" "$pb" "$d4/two" verdict)" duplicate
expect_exit 0 "$EBID" audit --running --pid "$pa" --json
expect_eq "one alone: ok" "$(field "$out" "$pa" "$d4/one" verdict)" ok
cp "$d4/one" "$d4/one-copy"
start "$d4/one-copy" idle
expect_exit 0 "$EBID" audit --running --pid "$pa" --pid "$pid" --json
expect_eq "a byte-identical copy is no duplicate" "$(field "$out" "$pid" "$d4/one-copy" verdict)" ok
t_end

# --- the fallback ----------------------------------------------------------------
t_begin "the fallback (no PROCMAP_QUERY, forced) gives the same answers"
mkdir -p "$SCRATCH/fb"
cp "$SCRATCH/v1.bin" "$SCRATCH/fb/app"
start "$SCRATCH/fb/app" idle
pid2=$pid
cp "$d/app" "$SCRATCH/fb/app.new"
mv -f "$SCRATCH/fb/app.new" "$SCRATCH/fb/app"
pids=(--pid "$pid2" --pid "$pid3" --pid "$pa" --pid "$pb" --pid $$)
norm='import json, sys
doc = json.load(sys.stdin)
for p in doc["processes"]:
    for f in p["files"]:
        print(p["pid"], f["path"], f["kernel_id"], f["section_id"], f["path_now"], f["verdict"])
print(doc["kernel_ids"], doc["exit_status"])'
run "$EBID" audit --running --json "${pids[@]}"
a=$(python3 -c "$norm" <<<"$out" 2>&1)
EBID_NO_PROCMAP_QUERY=1 run "$EBID" audit --running --json "${pids[@]}"
b=$(python3 -c "$norm" <<<"$out" 2>&1)
expect_match "with PROCMAP_QUERY" "$a" 'procmap-query 1$'
expect_match "fallback" "$b" 'first-page 1$'
expect_eq "the same answers" "$(sed '$d' <<<"$a")" "$(sed '$d' <<<"$b")"
expect_match "covers the scenarios" "$a" "replaced"
expect_match "covers the scenarios" "$a" "duplicate"
t_end

# --- races -------------------------------------------------------------------------
t_begin "every process, while processes start, exec and exit: no crash, no error"
(
	end=$((SECONDS + 4))
	while [ "$SECONDS" -lt "$end" ]; do
		/bin/true
		sh -c 'exec sleep 0.01' &
		sleep 0.05 &
		k=$!
		sleep 0.02
		kill -9 "$k" 2>/dev/null
	done
	wait
) &
churn=$!
kill_at_exit "$churn"
for n in 1 2 3 4 5; do
	run "$EBID" audit --running --json
	t_check
	case $rc in 0 | 1) ;; *) t_fail "scan $n: exit $rc: $(head -c 500 "$SCRATCH/.err")" ;; esac
	expect_eq "scan $n: stderr" "$err" ""
	expect_true "scan $n: one JSON document" python3 -c 'import json,sys; json.load(sys.stdin)' <<<"$out"
done
wait "$churn"
t_end

t_begin "a mapping replaced between two reads: no crash, no error, a clear line"
python3 -c '
import mmap, os, sys, time
files = [os.open(f, os.O_RDONLY) for f in sys.argv[1:]]
end = time.time() + 4
i = 0
print("mapping", flush=True)
while time.time() < end:
    m = mmap.mmap(files[i % 2], 0, prot=mmap.PROT_READ | mmap.PROT_EXEC)
    time.sleep(0.0005)
    m.close()
    i += 1
' "$SCRATCH/v1.bin" "$d/app" >"$SCRATCH/.mapper" 2>&1 &
mapper=$!
kill_at_exit "$mapper"
for n in $(seq 50); do [ -s "$SCRATCH/.mapper" ] && break; sleep 0.05; done
seen=
named=0
for n in $(seq 30); do
	run "$EBID" audit --running --pid "$mapper"
	t_check
	case $rc in 0 | 1) ;; *) t_fail "scan $n: exit $rc: $(head -c 300 "$SCRATCH/.err")" ;; esac
	[ -z "$err" ] || t_fail "scan $n: stderr: $err"
	grep -q 'the mapping changed during the scan' <<<"$out" && seen=1
	grep -Eq "^[A-Z]+ +$mapper " <<<"$out" && named=$((named + 1))
done
wait "$mapper"
echo "# a mapping changed between the maps and the query: ${seen:-never} in 30 scans"
expect_eq "scans that listed the mapper's files" "$named" 30
t_end

# --- unprivileged ---------------------------------------------------------------------
t_begin "as nobody over root's processes: unreadable, not an error, nothing written"
if have setpriv && [ "$(id -u)" = 0 ]; then
	mkdir -p "$SCRATCH/nobody"
	chown nobody "$SCRATCH/nobody"
	chmod 755 "$SCRATCH"
	run setpriv --reuid=nobody --regid=nogroup --clear-groups "$EBID" audit --running \
		--pid "$pid2" --rescue --debug-dir "$SCRATCH/nobody/dbg"
	expect_eq "exit" "$rc" 0
	expect_match "unreadable" "$out" "^UNREADABLE +$pid2  app  \(Permission denied\)"
	expect_eq "stderr" "$err" ""
	expect_eq "nothing written" "$(find "$SCRATCH/nobody" -mindepth 1 -not -type d | wc -l)" 0
	run setpriv --reuid=nobody --regid=nogroup --clear-groups "$EBID" audit --running
	t_check
	case $rc in 0 | 1) ;; *) t_fail "every process as nobody: exit $rc: $(head -c 300 "$SCRATCH/.err")" ;; esac
	expect_match "summary" "$out" 'processes \([1-9][0-9]* unreadable'
fi
t_skip_if "$( [ "$(id -u)" = 0 ] || echo 'not root'; have setpriv || echo 'no setpriv')"
t_end

t_done
