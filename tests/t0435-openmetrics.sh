#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# verify --openmetrics and audit --running --openmetrics (issue 35, point
# 4): the file is OpenMetrics text that parsers we did not write accept
# (prometheus_client's OpenMetrics parser, promtool check metrics) and that
# Debian's node_exporter serves whole through its textfile collector; its
# series and values are what the same run's --json says (tests/openmetrics.py
# compares them); a path with a quote, a backslash, a newline and a byte
# that is not UTF-8 is one label that reads back to its bytes; the file is
# replaced by a rename (a run killed while writing it, or one that cannot
# write, leaves the old file whole: exit 2, one message). docs/prometheus.md's
# example output is what verify writes for its tree, its systemd units pass
# systemd-analyze verify and their commands run, and its alert rules pass
# promtool check rules and promtool test rules over the series written here.
. "$(dirname "$0")/lib.sh"
require_tool
require_fixtures plain sw pie nobuildid reserved existing
require_deps kit

# Debian's python3-prometheus-client and python3-yaml are Debian's
# python's; PATH may find another python3 first.
PY=/usr/bin/python3
OM=$TOP/tests/openmetrics.py
DOC=$TOP/docs/prometheus.md
unset EBID_NO_PROCMAP_QUERY

# block NAME: the page's prom-test block NAME (lib.sh's doc_block).
block() { doc_block "$DOC" prom-test "$1"; }

# om CHECK ARGS...: tests/openmetrics.py's verdict, "ok" or the problems.
om() { "$PY" "$OM" "$@" 2>&1; }

now() { date +%s.%N; }

# Two names that differ only in a byte that is not UTF-8, with a double
# quote, a backslash (then "n") and a newline: escaped one way, they
# would be one label.
H1=$'q"b\\n\nx\xff'
H2=$'q"b\\n\nx\xfe'

# make_tree DIR: every verdict and several failed checks.
make_tree() {
	mkdir -p "$1/bin" "$1/lib" "$1/odd"
	copy_fixture plain "$1/bin/server" >/dev/null
	"$EBID" inject -q "$1/bin/server"
	copy_fixture plain "$1/bin/legacy" >/dev/null            # note
	copy_fixture existing "$1/bin/linked-with-B" >/dev/null  # pt_note
	copy_fixture reserved "$1/lib/reserved" >/dev/null       # nonzero
	copy_fixture nobuildid "$1/lib/dup-a" >/dev/null         # unique: two
	copy_fixture plain "$1/lib/dup-b" >/dev/null             # files, one id
	"$EBID" inject -q --id=0x0123456789abcdef "$1/lib/dup-a" "$1/lib/dup-b"
	printf '#!/bin/sh\n' >"$1/bin/start.sh"                  # skip
	head -c 3000 "$FIXTURES/plain" >"$1/bin/truncated"       # error
	copy_fixture sw "$1/odd/$H1" >/dev/null
	copy_fixture pie "$1/odd/$H2" >/dev/null
	"$EBID" inject -q "$1/odd/$H1" "$1/odd/$H2"
}

mkdir -p m
t_begin "--openmetrics is for verify and audit --running: elsewhere exit 64, nothing written"
run "$EBID" audit --openmetrics="$SCRATCH/m/x.prom" "$SCRATCH/p.data"
expect_eq "audit without --running: exit" "$rc" 64
expect_match "audit without --running: message" "$err" "--openmetrics is for verify and audit --running"
run "$EBID" inject --openmetrics="$SCRATCH/m/x.prom" "$SCRATCH/f"
expect_eq "inject: exit" "$rc" 64
expect_match "inject: message" "$err" "option '--openmetrics' does not apply to 'inject'"
run "$EBID" show --openmetrics="$SCRATCH/m/x.prom" "$SCRATCH/f"
expect_eq "show: exit" "$rc" 64
expect_false "a refused run wrote m/x.prom" test -e m/x.prom
t_end

make_tree dist
t_begin "verify --json --openmetrics over every verdict: the families, counts, verdicts and failed checks --json gives"
t0=$(now)
"$EBID" verify -r --perf=off --json --openmetrics="$SCRATCH/m/verify.prom" dist \
	>verify.json 2>verify.err
rc=$?
t1=$(now)
expect_eq "exit (an ERROR file)" "$rc" 2
expect_eq "tests/openmetrics.py verify" "$(om verify m/verify.prom verify.json "$t0" "$t1")" ok
expect_eq "files in m/" "$(ls -A m)" verify.prom
expect_eq "files in verify.json" "$(grep -c '{"path"' verify.json)" 10
t_end

t_begin "hostile names: quote, backslash, newline and a byte that is not UTF-8 escaped as docs/prometheus.md says"
# The wire form, written out by hand from the spec and the page's rule.
for pair in 'ff:pass' 'fe:pass'; do
	want="elf_buildid_verify_file_verdict{path=\"dist/odd/q\\\"b\\\\\\\\n\\nx\\\\x${pair%:*}\",verdict=\"${pair#*:}\"} 1"
	expect_true "no line '$want' in m/verify.prom" grep -qxF -- "$want" m/verify.prom
done
expect_true "m/verify.prom is not UTF-8" iconv -f UTF-8 -t UTF-8 -o /dev/null m/verify.prom
t_end

t_begin "promtool check metrics accepts the file"
run promtool check metrics <m/verify.prom
expect_eq "promtool check metrics: exit ($out $err)" "$rc" 0
expect_eq "promtool check metrics: findings" "$out$err" ""
t_end

t_begin "a path given twice is one series; the counts count both"
t0=$(now)
"$EBID" verify --perf=off --json --openmetrics="$SCRATCH/m/twice.prom" dist/bin/server dist/bin/server \
	>twice.json 2>/dev/null
rc=$?
t1=$(now)
expect_eq "exit" "$rc" 0
expect_eq "tests/openmetrics.py verify" "$(om verify m/twice.prom twice.json "$t0" "$t1")" ok
expect_eq "server's series" "$(grep -c 'path="dist/bin/server"' m/twice.prom)" 1
expect_true "files{pass} is not 2" grep -qxF 'elf_buildid_verify_files{verdict="pass"} 2' m/twice.prom
t_end

# A tree of more than 4 KiB of metrics (stdio's buffer: two writes) and no
# ERROR file: verify exits 0.
mkdir -p big
copy_fixture plain big/server >/dev/null
"$EBID" inject -q big/server
for n in $(seq -w 100); do printf '#!/bin/sh\n' >"big/script-$n.sh"; done

t_begin "an existing file is replaced by a rename: a new inode, the old one untouched, no FILE.tmp left"
cp m/verify.prom m/atomic.prom
ln m/atomic.prom old-inode
cp m/atomic.prom old.copy
run "$EBID" verify -r --perf=off --openmetrics="$SCRATCH/m/atomic.prom" big
expect_eq "exit" "$rc" 0
expect_ne "inode" "$(stat -c %i m/atomic.prom)" "$(stat -c %i old-inode)"
expect_same_file "the old inode" old-inode old.copy
expect_true "the new file does not count 100 skips" grep -qxF 'elf_buildid_verify_files{verdict="skip"} 100' m/atomic.prom
expect_false "m/atomic.prom.tmp left" test -e m/atomic.prom.tmp
t_end

t_begin "a run killed between two writes of the file (strace injects SIGKILL) leaves the old file whole"
cp m/atomic.prom old.copy
# -j 1: no worker thread; -q: the file's are the only write(2)s. The shell
# around it says "Killed" into .err, not into the TAP stream.
run bash -c '"$@"; exit $?' - strace -o /dev/null -e trace=write -e inject=write:signal=KILL:when=2 \
	"$EBID" verify -j 1 -r --perf=off -q --openmetrics="$SCRATCH/m/atomic.prom" big
expect_eq "exit (128 + SIGKILL)" "$rc" 137
expect_same_file "m/atomic.prom" m/atomic.prom old.copy
expect_true "no partial m/atomic.prom.tmp: the kill came before the first write" test -s m/atomic.prom.tmp
expect_false "m/atomic.prom.tmp is whole: the kill came after the last write" grep -q '^# EOF$' m/atomic.prom.tmp
t_end

t_begin "a write that fails (EFBIG past ulimit -f) exits 2 with one message; the old file whole, no FILE.tmp"
run bash -c 'ulimit -f 1; exec "$@"' - \
	"$EBID" verify -r --perf=off -q --openmetrics="$SCRATCH/m/atomic.prom" big
expect_eq "exit" "$rc" 2
expect_one_error_line "$SCRATCH/m/atomic.prom"
expect_match "message" "$err" "cannot write OpenMetrics file: File too large$"
expect_same_file "m/atomic.prom" m/atomic.prom old.copy
expect_false "m/atomic.prom.tmp left" test -e m/atomic.prom.tmp
t_end

t_begin "a directory that cannot be written, one that does not exist: exit 2, one message, nothing written"
mkdir -p ro
chmod 0555 ro
as_other=()
[ "$(id -u)" = 0 ] && as_other=(setpriv --reuid=nobody --regid=nogroup --clear-groups)
run ${as_other[@]+"${as_other[@]}"} "$EBID" verify -r --perf=off -q --openmetrics="$SCRATCH/ro/x.prom" big
expect_eq "exit (not writable)" "$rc" 2
expect_one_error_line "$SCRATCH/ro/x.prom"
expect_match "message" "$err" "cannot write OpenMetrics file: Permission denied$"
expect_eq "files in ro/" "$(ls -A ro)" ""
run "$EBID" verify -r --perf=off -q --openmetrics="$SCRATCH/nodir/x.prom" big
expect_eq "exit (no directory)" "$rc" 2
expect_one_error_line "$SCRATCH/nodir/x.prom"
t_end

t_begin "docs/prometheus.md's example output is what verify writes for its tree"
expect_true "no prom-test:example block" block example >example.doc
ex=$SCRATCH/ex/usr/local/bin
mkdir -p "$ex"
copy_fixture plain "$ex/server" >/dev/null
"$EBID" inject -q "$ex/server"
copy_fixture plain "$ex/legacy" >/dev/null
copy_fixture existing "$ex/linked-with-B" >/dev/null
printf '#!/bin/sh\n' >"$ex/start.sh"
head -c 3000 "$FIXTURES/plain" >"$ex/truncated"
run "$EBID" verify -r --perf=off -q --openmetrics="$SCRATCH/m/example.prom" "$ex"
expect_eq "exit" "$rc" 2
stamp='s/^\(elf_buildid_verify_last_run_timestamp_seconds\) [0-9.]*$/\1 TIME/'
expect_eq "the page's example" "$(sed "s|$SCRATCH/ex||; $stamp" m/example.prom)" \
	"$(sed "$stamp" example.doc)"
t_end

# start PROGRAM ARGS...: in the background; $pid. Waits until it has
# exec'd (its maps name PROGRAM).
start() {
	local n
	"$@" &
	pid=$!
	kill_at_exit "$pid"
	for n in $(seq 100); do
		grep -qF "$1" "/proc/$pid/maps" 2>/dev/null && return 0
		sleep 0.05
	done
	t_fail "$1 did not start"
}

t_begin "audit --running --json --openmetrics: mapped files, each path's processes and the processes as --json says"
r=$SCRATCH/run
mkdir -p "$r/$H1"
cp /bin/sleep "$r/ok-app"
cp /bin/sleep "$r/old-app"
cp /bin/sleep "$r/$H1/app"
# No id at all: the kernel reports none (invisible).
objcopy --remove-section .note.gnu.build-id /bin/sleep "$r/noid-app"
pids=()
for prog in "$r/ok-app" "$r/old-app" "$r/old-app" "$r/noid-app" "$r/$H1/app"; do
	start "$prog" 600
	pids+=("--pid=$pid")
done
rm "$r/old-app" # a redeploy took it away: replaced, in two processes
t0=$(now)
"$EBID" audit "${pids[@]}" --json --openmetrics="$SCRATCH/m/running.prom" >running.json 2>running.err
rc=$?
t1=$(now)
expect_eq "exit (replaced, invisible)" "$rc" 1
expect_eq "tests/openmetrics.py running" "$(om running m/running.prom running.json "$t0" "$t1")" ok
for want in "elf_buildid_running_file_processes{path=\"$r/old-app\",verdict=\"replaced\"} 2" \
	"elf_buildid_running_file_processes{path=\"$r/noid-app\",verdict=\"invisible\"} 1" \
	"elf_buildid_running_file_processes{path=\"$r/q\\\"b\\\\\\\\n\\nx\\\\xff/app\",verdict=\"ok\"} 1" \
	'elf_buildid_running_processes{state="read"} 5'; do
	expect_true "no line '$want' in m/running.prom" grep -qxF -- "$want" m/running.prom
done
run promtool check metrics <m/running.prom
expect_eq "promtool check metrics: exit ($out $err)" "$rc" 0
expect_eq "promtool check metrics: findings" "$out$err" ""
expect_false "m/running.prom.tmp left" test -e m/running.prom.tmp
t_end

t_begin "audit --running as nobody over root's processes: unreadable ones counted"
if [ "$(id -u)" != 0 ]; then
	t_skip_if "not root: no process of another user to be refused"
else
	mkdir -p nobody
	chmod 0777 nobody
	t0=$(now)
	setpriv --reuid=nobody --regid=nogroup --clear-groups \
		"$EBID" audit "${pids[@]:0:2}" --json --openmetrics="$SCRATCH/nobody/r.prom" >nobody.json 2>/dev/null
	rc=$?
	t1=$(now)
	expect_eq "exit" "$rc" 0
	expect_eq "tests/openmetrics.py running" "$(om running nobody/r.prom nobody.json "$t0" "$t1")" ok
	expect_true "processes{unreadable} is not 2" grep -qxF 'elf_buildid_running_processes{state="unreadable"} 2' nobody/r.prom
fi
t_end

# free_port: a TCP port nothing listens on now.
free_port() {
	"$PY" -c 'import socket; s = socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])'
}

# serve DIR: node_exporter's textfile collector over DIR, alone; its
# /metrics in $SCRATCH/metrics.txt.
serve() {
	local port n
	port=$(free_port)
	prometheus-node-exporter --collector.disable-defaults --collector.textfile \
		--collector.textfile.directory="$1" --web.listen-address="127.0.0.1:$port" \
		>"$SCRATCH/node.log" 2>&1 &
	kill_at_exit "$!"
	for n in $(seq 100); do
		curl -sf "http://127.0.0.1:$port/metrics" >"$SCRATCH/metrics.txt" 2>/dev/null && break
		sleep 0.05
	done
	kill "$!" 2>/dev/null
	wait "$!" 2>/dev/null
}

t_begin "node_exporter's textfile collector serves every sample of both files, hostile paths too, without an error"
mkdir -p tf
cp m/verify.prom tf/elf-buildid.prom
cp m/running.prom tf/elf-buildid-running.prom
serve "$SCRATCH/tf"
expect_eq "verify's file" "$(om node tf/elf-buildid.prom metrics.txt)" ok
expect_eq "running's file" "$(om node tf/elf-buildid-running.prom metrics.txt)" ok
expect_eq "node_exporter's errors" "$(grep -i 'level=error' node.log)" ""
t_end

# unit_check NAME SUFFIX: the page's unit NAME as elf-buildid-NAME.SUFFIX
# in units/, with this build, scratch directories and the example tree in
# place of the installed paths.
unit_file() {
	block "$1" >"units/$2" || return 1
	sed -i -e "s|/usr/local/bin/elf-buildid |$EBID |" \
		-e "s|/var/lib/node_exporter/textfile_collector/|$SCRATCH/tf2/|" \
		-e "s| /usr/local/bin\$| $ex|" "units/$2"
}

t_begin "the page's systemd units pass systemd-analyze verify; their commands write what the tests above read"
mkdir -p units tf2
expect_true "no prom-test:verify-service block" unit_file verify-service elf-buildid-verify.service
expect_true "no prom-test:verify-timer block" unit_file verify-timer elf-buildid-verify.timer
expect_true "no prom-test:running-service block" unit_file running-service elf-buildid-running.service
expect_true "no prom-test:running-timer block" unit_file running-timer elf-buildid-running.timer
run systemd-analyze verify --man=no units/elf-buildid-verify.service units/elf-buildid-verify.timer \
	units/elf-buildid-running.service units/elf-buildid-running.timer
expect_eq "systemd-analyze verify: exit" "$rc" 0
expect_eq "systemd-analyze verify: findings" "$out$err" ""
for u in verify running; do
	expect_eq "$u: SuccessExitStatus" "$(sed -n 's/^SuccessExitStatus=//p' "units/elf-buildid-$u.service")" 1
	cmd=$(sed -n 's/^ExecStart=//p' "units/elf-buildid-$u.service")
	read -ra words <<<"$cmd"
	run "${words[@]}"
	case $u in
	verify) expect_eq "$u: exit (the example tree has an ERROR)" "$rc" 2 ;;
	running) expect_true "$u: exit $rc, not 0 or 1" [ "$rc" -le 1 ] ;;
	esac
done
expect_eq "the files written" "$(ls tf2)" "elf-buildid-running.prom
elf-buildid.prom"
expect_eq "verify's command wrote the example's series" "$(om same tf2/elf-buildid.prom m/example.prom)" ok
expect_eq "running's command: a whole file" "$(om parse tf2/elf-buildid-running.prom running)" ok
serve "$SCRATCH/tf2"
expect_eq "node_exporter serves the verify unit's file" "$(om node tf2/elf-buildid.prom metrics.txt)" ok
expect_eq "node_exporter serves the running unit's file" "$(om node tf2/elf-buildid-running.prom metrics.txt)" ok
t_end

t_begin "the page's alert rules: promtool check rules, and promtool test rules over the series written above"
expect_true "no prom-test:rules block" block rules >rules.yml
run promtool check rules rules.yml
expect_eq "promtool check rules: exit ($out $err)" "$rc" 0
expect_match "promtool check rules" "$out" "SUCCESS: 4 rules found"
run "$PY" "$OM" rules-test rules.yml m/verify.prom m/running.prom rules-test.json
expect_eq "rules-test.json: exit ($err)" "$rc" 0
# dist: 5 files fail and 1 is an ERROR; running: old-app and noid-app.
expect_eq "alerts expected" "$out" "6 failing, 2 misidentified"
run promtool test rules rules-test.json
expect_eq "promtool test rules: exit ($out $err)" "$rc" 0
t_end

t_done
