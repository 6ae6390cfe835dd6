# SPDX-License-Identifier: MIT
# elfutils' debuginfod for the tests (t0810, t0940): servers on free ports
# of 127.0.0.1 only, stopped on exit, and their scan awaited through
# /metrics; source after lib.sh. Not a test itself (tests/run.sh runs only
# tNNNN-*.sh). Sourcing it unsets the inherited DEBUGINFOD_* settings and
# proxies, and sets the EXIT, TERM, INT and HUP traps.
# shellcheck shell=bash

unset DEBUGINFOD_URLS DEBUGINFOD_CACHE_PATH DEBUGINFOD_PROGRESS \
	DEBUGINFOD_VERBOSE DEBUGINFOD_HEADERS_FILE DEBUGINFOD_IMA_CERT_PATH \
	http_proxy HTTP_PROXY https_proxy HTTPS_PROXY all_proxy ALL_PROXY
export no_proxy='*' NO_PROXY='*'
export DEBUGINFOD_TIMEOUT=20
server_pids=()

# stop_server PID: SIGTERM (debuginfod checkpoints its database), then
# SIGKILL after 5 s; reaps it.
stop_server() {
	local p=$1 n
	kill -TERM "$p" 2>/dev/null
	for n in $(seq 50); do
		kill -0 "$p" 2>/dev/null || break
		sleep 0.1
	done
	kill -KILL "$p" 2>/dev/null
	wait "$p" 2>/dev/null
	return 0
}

# shellcheck disable=SC2317 # run by the EXIT trap
stop_servers() {
	local p
	for p in ${server_pids[@]+"${server_pids[@]}"}; do
		stop_server "$p"
	done
	server_pids=()
}
# Killed or interrupted (tests/run.sh stops its jobs with SIGTERM): the
# servers go too.
trap stop_servers EXIT
trap 'stop_servers; exit 143' TERM
trap 'stop_servers; exit 130' INT
trap 'stop_servers; exit 129' HUP

# free_port: a TCP port nobody listens on at this moment.
free_port() {
	python3 -c 'import socket
s = socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])'
}

http_get() { # URL: body on stdout; only ever 127.0.0.1
	curl -sf --noproxy '*' --max-time 10 "$1"
}

# start_server NAME [DEBUGINFOD OPTIONS...]: start debuginfod on a free
# port, log in $SCRATCH/NAME.log; sets $server_port and $server_pid once
# it answers on /metrics. A port taken between the probe and the bind makes
# debuginfod exit: try another, five times. Environment for it: as exported.
server_port='' server_pid=''
start_server() {
	local name=$1 try port pid deadline
	shift
	server_port='' server_pid=''
	for try in 1 2 3 4 5; do
		port=$(free_port) || return 1
		# The log exists before the loop below reads it: the redirection
		# of a background job happens in the child, maybe later.
		: >"$SCRATCH/$name.log"
		debuginfod -p "$port" "$@" >"$SCRATCH/$name.log" 2>&1 &
		pid=$!
		server_pids+=("$pid")
		deadline=$((SECONDS + 30))
		while [ "$SECONDS" -lt "$deadline" ] && kill -0 "$pid" 2>/dev/null; do
			if grep -q "started http server on .*port=$port\$" "$SCRATCH/$name.log" &&
				http_get "http://127.0.0.1:$port/metrics" | grep_q '^ready 1$'; then
				server_port=$port server_pid=$pid
				return 0
			fi
			sleep 0.1
		done
		stop_server "$pid"
		cp "$SCRATCH/$name.log" "$SCRATCH/$name.log.try$try"
	done
	return 1
}

# metric TEXT KEY: the value of one line of a /metrics dump (keys may hold
# blanks: source=".deb archive").
metric() { awk -v k="$2 " 'index($0, k) == 1 { print $NF }' <<<"$1"; }

# wait_scanned PORT: until the server's one traversal (-t 0) is done and
# every file it found has been scanned (no fixed sleep: its counters say
# so). Sets $metrics to the last dump. Gives up after 90 s.
metrics=
wait_scanned() {
	local port=$1 deadline=$((SECONDS + 90)) trav files scan busy pend
	while [ "$SECONDS" -lt "$deadline" ]; do
		metrics=$(http_get "http://127.0.0.1:$port/metrics") || metrics=
		trav=$(metric "$metrics" 'thread_work_total{role="traverse"}')
		files=$(metric "$metrics" 'traversed_total{type="file"}')
		scan=$(metric "$metrics" 'thread_work_total{role="scan"}')
		busy=$(metric "$metrics" 'thread_busy{role="scan"}')
		pend=$(metric "$metrics" 'thread_work_pending{role="scan"}')
		if [ "${trav:-0}" -ge 1 ] && [ -n "$files" ] && [ "${scan:-0}" -ge "$files" ] &&
			[ "${busy:-1}" = 0 ] && [ "${pend:-1}" = 0 ]; then
			return 0
		fi
		sleep 0.2
	done
	return 1
}
