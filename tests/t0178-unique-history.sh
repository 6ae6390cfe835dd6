#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# Unique against what was released before (issue 27, point 3): verify
# --against-manifest reads the manifest inject --manifest wrote for release
# 1, verify --against-debuginfod asks a real debuginfod (elfutils', on a
# free port of 127.0.0.1, indexing release 1 with -F) through libdebuginfod.
# Release 2 holds a different program forced to release 1's id (inject
# --id): it fails unique, naming the manifest and its entry, or the server;
# release 1's file itself passes, and so does a file with a new id (a 404
# from the server). A server that cannot be asked (a closed port, one that
# never answers) is an ERROR, exit status 2, never a pass; a malformed
# manifest is one error line, exit status 2. Judged by sha256sum, cmp,
# readelf, debuginfod-find, curl (the server's own 404) and Python's json.
. "$(dirname "$0")/lib.sh"
require_tool
require_deps kit
. "$TOP/tests/debuginfod-lib.sh"

HELLO=$TOP/fixtures/c/hello.c
rel1=$SCRATCH/rel1
rel2=$SCRATCH/rel2
m1=$SCRATCH/release-1.json

gnu_id() { readelf_ids "$1" | head -n 1; }

# py_json FILE EXPR: EXPR over the JSON document in FILE (as d), by Python.
py_json() {
	python3 -c 'import json, sys
d = json.load(open(sys.argv[1]))
print(eval(sys.argv[2]))' "$1" "$2"
}

# --- release 1 and release 2 --------------------------------------------------------
t_begin "release 1 injected with --manifest (its sha256 is sha256sum's); release 2: another program forced to release 1's id, and a program with a new id"
mkdir -p "$rel1/bin" "$rel2/bin"
expect_exit 0 gcc -O2 -Wl,--build-id=none -o "$rel1/bin/hello" "$HELLO"
expect_exit 0 gcc -O0 -Wl,--build-id=none -o "$rel2/bin/hello" "$HELLO"
expect_exit 0 gcc -O1 -Wl,--build-id=none -o "$rel2/bin/new" "$HELLO"
expect_exit 0 "$EBID" inject -r --manifest="$m1" "$rel1"
id1=$(gnu_id "$rel1/bin/hello")
expect_match "release 1's id (readelf)" "$id1" '^[0-9a-f]{40}$'
expect_eq "manifest: release 1's entry, its id" \
	"$(py_json "$m1" '[f["gnu_build_id"] for f in d["files"] if f["path"].endswith("/bin/hello")]')" "['$id1']"
expect_eq "manifest: its sha256 (sha256sum)" \
	"$(py_json "$m1" '[f["sha256"] for f in d["files"]][0]')" \
	"$(sha256sum "$rel1/bin/hello" | cut -d' ' -f1)"
expect_exit 0 "$EBID" inject --id="0x$id1" "$rel2/bin/hello"
expect_eq "release 2's forced id (readelf)" "$(gnu_id "$rel2/bin/hello")" "$id1"
expect_false "release 2's hello is byte for byte release 1's" cmp -s "$rel1/bin/hello" "$rel2/bin/hello"
inject_ok "$rel2/bin/new"
id_new=$id
expect_ne "the new program's id" "$id_new" "$id1"
expect_eq "the new program's id (readelf)" "$(gnu_id "$rel2/bin/new")" "$id_new"
# Without history, each passes alone: only the history can fail them.
expect_exit 0 "$EBID" verify --perf=off "$rel2/bin/hello"
expect_eq "release 2 alone" "$out" "PASS  $rel2/bin/hello  $id1"
t_end

# --- (a) the manifest ------------------------------------------------------------------
t_begin "(a) --against-manifest: release 2's program with release 1's id fails unique, naming the manifest and the entry"
expect_exit 1 "$EBID" verify --perf=off --against-manifest="$m1" "$rel2/bin/hello"
expect_eq "verify" "$out" \
	"FAIL  $rel2/bin/hello  unique: manifest '$m1' lists this id for '$rel1/bin/hello', a file with other bytes (another SHA-256)"
expect_eq "stderr" "$err" ""
t_end

t_begin "(a) --against-manifest: release 1's file (and a byte-identical copy) passes; a new id passes"
cp "$rel1/bin/hello" "$SCRATCH/copy-of-hello"
expect_exit 0 cmp "$rel1/bin/hello" "$SCRATCH/copy-of-hello"
expect_exit 0 "$EBID" verify -v --perf=off --against-manifest="$m1" "$rel1/bin/hello" "$rel2/bin/new"
expect_eq "verify" "$out" "PASS  $rel1/bin/hello  $id1
PASS  $rel2/bin/new  $id_new"
expect_match "-v: the same file" "$err" \
	"'$(re_quote "$rel1/bin/hello")': pass unique: no other file has this id; released before as this very file \('$(re_quote "$rel1/bin/hello")' in '$(re_quote "$m1")', same SHA-256\)"
expect_match "-v: the new id" "$err" \
	"'$(re_quote "$rel2/bin/new")': pass unique: no other file has this id; not released before"
expect_exit 0 "$EBID" verify --perf=off --against-manifest="$m1" "$SCRATCH/copy-of-hello"
expect_eq "the copy" "$out" "PASS  $SCRATCH/copy-of-hello  $id1"
t_end

t_begin "(a) several manifests: the one that lists the id for other bytes fails it; the manifest of release 2 itself does not"
m2=$SCRATCH/release-2.json
expect_exit 0 "$EBID" inject -r --manifest="$m2" "$rel2"
expect_exit 0 "$EBID" verify --perf=off --against-manifest="$m2" "$rel2/bin/hello"
expect_exit 1 "$EBID" verify --perf=off --against-manifest="$m2" --against-manifest="$m1" "$rel2/bin/hello"
expect_match "verify" "$out" "^FAIL  .*unique: manifest '$(re_quote "$m1")' lists this id for '$(re_quote "$rel1/bin/hello")'"
t_end

# A manifest written by hand: every kind of JSON value, escapes and a
# surrogate pair in the path, members in another order and unknown ones.
t_begin "(a) a hand-written manifest with escapes, numbers, true/false/null and nesting is read: its decoded path is named"
hand=$SCRATCH/hand.json
cat >"$hand" <<EOF
{ "files" : [
    {"sha256": "$(printf '%064d' 0)", "size": -1.5e+3, "extra": {"a": [true, false, null, 0, {"b": []}]},
     "gnu_build_id": "${id1^^}", "path": "dir\\/caf\\u00e9 \\"q\\" \\\\ \\ud83d\\ude00\\t"},
    {"path": "skipped", "gnu_build_id": null, "sha256": null}
  ],
  "tool": "elf-buildid", "version": "9", "command": "inject"
}
EOF
expect_exit 0 python3 -c 'import json, sys; json.load(open(sys.argv[1]))' "$hand"
want_path=$(py_json "$hand" 'd["files"][0]["path"]')
expect_exit 1 "$EBID" verify --perf=off --against-manifest="$hand" "$rel1/bin/hello"
expect_eq "verify" "$out" \
	"FAIL  $rel1/bin/hello  unique: manifest '$hand' lists this id for '$want_path', a file with other bytes (another SHA-256)"
t_end

t_begin "(a) an unreadable or malformed manifest: one error line naming it and the problem, exit 2, nothing checked"
bad=$SCRATCH/bad
mkdir -p "$bad"
printf '{"tool": "elf-buildid", "files": [{"path": "x", ' >"$bad/truncated.json"
printf '{"tool": "elf-buildid", "files": [{"path": "a\\qb"}]}' >"$bad/escape.json"
printf '{"tool": "elf-buildid", "files": {}}' >"$bad/files-object.json"
printf '{"files": []}' >"$bad/no-tool.json"
printf '{"tool": "elf-buildid", "files": [{"path": "x", "gnu_build_id": "xyz"}]}' >"$bad/bad-id.json"
printf '{"tool": "elf-buildid", "files": []} []' >"$bad/trailing.json"
printf '{"tool": "elf-buildid", "files": [{"size": 01}]}' >"$bad/number.json"
python3 -c 'print("[" * 100000)' >"$bad/deep.json"
: >"$bad/empty.json"
declare -A why=(
	[truncated]='line 1, column [0-9]+: expected a string, found the end of the file'
	[escape]='line 1, column [0-9]+: unknown escape in a string'
	[files-object]='"files" is not an array'
	[no-tool]='no "tool": "elf-buildid": not a manifest of elf-buildid'
	[bad-id]="files\[\]\.gnu_build_id 'xyz' is not 1 to 20 bytes of hex"
	[trailing]='text after the JSON document'
	[number]="line 1, column 45: expected ',' or '}'"
	[deep]='expected a JSON object'
	[empty]='expected a JSON object, found the end of the file'
	[missing]='cannot open: No such file or directory'
)
for k in "${!why[@]}"; do
	f=$bad/$k.json
	expect_exit 2 "$EBID" verify --perf=off --against-manifest="$f" "$rel1/bin/hello"
	expect_one_error_line "$f"
	expect_match "$k: stderr" "$err" "^elf-buildid: '$(re_quote "$f")': cannot read manifest: .*${why[$k]}"
	expect_eq "$k: stdout" "$out" ""
done
# Valid JSON but nested past the bound, inside a manifest.
python3 -c 'print("{\"tool\": \"elf-buildid\", \"files\": [{\"x\": " + "[" * 100 + "]" * 100 + "}]}")' >"$bad/nested.json"
expect_exit 0 python3 -c 'import json, sys; json.load(open(sys.argv[1]))' "$bad/nested.json"
expect_exit 2 "$EBID" verify --perf=off --against-manifest="$bad/nested.json" "$rel1/bin/hello"
expect_match "nested: stderr" "$err" "cannot read manifest: line 1, column [0-9]+: nested deeper than 64"
t_end

# --- (b) a real debuginfod --------------------------------------------------------------
served=$SCRATCH/served
mkdir -p "$served"
cp "$rel1/bin/hello" "$served/hello"
t_begin "(b) debuginfod -F over release 1: debuginfod-find serves release 1's file by its id"
srv_up=0
if start_server srv -d "$SCRATCH/srv.sqlite" -t 0 -g 0 -F "$served"; then
	srv_up=1
	srv_url=http://127.0.0.1:$server_port
	wait_scanned "$server_port" ||
		t_fail "scan not done after 90 s: $(grep -E '^(thread|traversed|scanned)' <<<"$metrics")"
	expect_eq "executables found" "$(metric "$metrics" 'found_executable_total{source="files"}')" 1
	DEBUGINFOD_URLS=$srv_url DEBUGINFOD_CACHE_PATH=$SCRATCH/cache-find \
		run debuginfod-find executable "$id1"
	expect_eq "debuginfod-find executable $id1: exit status ($err)" "$rc" 0
	[ "$rc" = 0 ] && expect_same_file "served bytes" "$out" "$rel1/bin/hello"
	expect_eq "the new id: HTTP status (curl)" \
		"$(curl -s --noproxy '*' --max-time 10 -o /dev/null -w '%{http_code}' "$srv_url/buildid/$id_new/executable")" 404
else
	t_fail "debuginfod did not start: $(tail -n 5 "$SCRATCH/srv.log")"
fi
t_end

# against_srv CACHE ARGS...: verify --against-debuginfod through the server,
# with a fresh client cache CACHE.
against_srv() {
	local cache=$SCRATCH/$1
	shift
	DEBUGINFOD_URLS=$srv_url DEBUGINFOD_CACHE_PATH=$cache \
		run timeout 120 "$EBID" verify --perf=off --against-debuginfod "$@"
}

t_begin "(b) --against-debuginfod: release 2's program with release 1's id fails unique, naming the server and libdebuginfod's copy"
if [ "$srv_up" = 1 ]; then
	against_srv cache-a "$rel2/bin/hello"
	expect_eq "exit status ($err)" "$rc" 1
	expect_match "verify" "$out" \
		"^FAIL  $(re_quote "$rel2/bin/hello")  unique: debuginfod serves this id for another file: $(re_quote "$srv_url/buildid/$id1/executable") \(cached as $(re_quote "$SCRATCH/cache-a/$id1/executable")\)\$"
	expect_exit 0 cmp "$SCRATCH/cache-a/$id1/executable" "$rel1/bin/hello"
	expect_match "the server logged the request" "$(cat "$SCRATCH/srv.log")" "GET /buildid/$id1/executable 200 "
else
	t_fail "no server (block above)"
fi
t_end

t_begin "(b) --against-debuginfod: release 1's file passes (the same bytes); a new id passes (the server's 404)"
if [ "$srv_up" = 1 ]; then
	against_srv cache-b -v "$rel1/bin/hello" "$rel2/bin/new"
	expect_eq "exit status ($err)" "$rc" 0
	expect_eq "verify" "$out" "PASS  $rel1/bin/hello  $id1
PASS  $rel2/bin/new  $id_new"
	expect_match "-v: the same file" "$err" \
		"'$(re_quote "$rel1/bin/hello")': pass unique: no other file has this id; released before as this very file \(debuginfod serves the same bytes from $(re_quote "$srv_url")/buildid/$id1/executable\)"
	expect_match "-v: the new id" "$err" \
		"'$(re_quote "$rel2/bin/new")': pass unique: no other file has this id; not released before"
	expect_match "the server answered 404" "$(cat "$SCRATCH/srv.log")" "GET /buildid/$id_new/executable 404 "
	# Both histories at once: the manifest's word and the server's.
	against_srv cache-c --against-manifest="$m1" "$rel2/bin/hello"
	expect_eq "both: exit status" "$rc" 1
	expect_match "both: the manifest names it first" "$out" "unique: manifest '$(re_quote "$m1")' lists this id"
else
	t_fail "no server (block above)"
fi
t_end

t_begin "(b) --against-debuginfod over artifacts: release 2 packed as a tarball fails the collision; release 1's file packed passes"
if [ "$srv_up" = 1 ]; then
	tar -C "$rel2" -czf "$SCRATCH/rel2.tar.gz" bin/hello
	tar -C "$rel1" -cJf "$SCRATCH/rel1.tar.xz" bin/hello
	against_srv cache-art "$SCRATCH/rel2.tar.gz" "$SCRATCH/rel1.tar.xz"
	expect_eq "exit status ($err)" "$rc" 1
	expect_match "release 2's member" "$out" \
		"^FAIL  $(re_quote "$SCRATCH/rel2.tar.gz"):bin/hello  unique: .*debuginfod serves this id for another file: $(re_quote "$srv_url/buildid/$id1/executable")"
	expect_match "release 1's member" "$out" \
		"^FAIL  $(re_quote "$SCRATCH/rel1.tar.xz"):bin/hello  unique: same id as '$(re_quote "$SCRATCH/rel2.tar.gz"):bin/hello', a file with other bytes"
	against_srv cache-art1 -v "$SCRATCH/rel1.tar.xz"
	expect_eq "release 1 alone: exit status ($err)" "$rc" 0
	expect_match "-v: the same file" "$err" \
		"'$(re_quote "$SCRATCH/rel1.tar.xz"):bin/hello': pass unique: no other file has this id; released before as this very file \(debuginfod serves the same bytes"
else
	t_fail "no server (block above)"
fi
t_end

t_begin "(b) --against-debuginfod, -j4 over eight files with one id: the server is asked once, every file gets its answer"
if [ "$srv_up" = 1 ]; then
	many=$SCRATCH/many
	mkdir -p "$many"
	for k in 1 2 3 4; do
		cp "$rel2/bin/hello" "$many/plain$k"
		tar -C "$rel2" -czf "$many/packed$k.tar.gz" bin/hello
	done
	before=$(wc -l < "$SCRATCH/srv.log")
	against_srv cache-many -j4 "$many"/*
	expect_eq "exit status ($err)" "$rc" 1
	asked=$(tail -n +"$((before + 1))" "$SCRATCH/srv.log" | grep -c "GET /buildid/$id1/executable " || true)
	expect_eq "requests for the id in the server's log" "$asked" 1
	named=$(printf '%s\n' "$out" | grep -c "^FAIL  .*debuginfod serves this id for another file: $(re_quote "$srv_url/buildid/$id1/executable") " || true)
	expect_eq "FAIL lines naming the server's URL" "$named" 8
else
	t_fail "no server (block above)"
fi
t_end

# block NAME: docs/ci.md's ci-test block NAME (lib.sh's doc_block).
block() { doc_block "$TOP/docs/ci.md" ci-test "$1"; }

t_begin "docs/ci.md's history blocks, run as written: release 1 recorded; release 2's gate fails the collision, passes a release without one"
ci=$SCRATCH/ci
mkdir -p "$ci/tools" "$ci/dist/bin"
cp "$EBID" "$ci/tools/elf-buildid"
expect_true "no ci-test:history-record block" block history-record >"$SCRATCH/record.sh"
expect_true "no ci-test:history-gate block" block history-gate >"$SCRATCH/gate.sh"
# Release 1.2.0: the record block over its dist/.
cp "$rel1/bin/hello" "$ci/dist/bin/hello"
(cd "$ci" && bash -e "$SCRATCH/record.sh") >"$SCRATCH/record.out" 2>&1
st=$?
expect_eq "record block: exit status ($(cat "$SCRATCH/record.out"))" "$st" 0
mkdir -p "$ci/releases/1.2.0"
mv "$ci/manifest.json" "$ci/releases/1.2.0/manifest.json"
expect_eq "recorded: dist/bin/hello with release 1's id" \
	"$(py_json "$ci/releases/1.2.0/manifest.json" '[(f["path"], f["gnu_build_id"]) for f in d["files"]]')" \
	"[('dist/bin/hello', '$id1')]"
if [ "$srv_up" = 1 ]; then
	# Release 1.3.0: the same path holds release 2's program, its id forced.
	cp "$rel2/bin/hello" "$ci/dist/bin/hello"
	(cd "$ci" && DEBUGINFOD_URLS=$srv_url bash -e "$SCRATCH/gate.sh") >"$SCRATCH/gate.out" 2>&1
	st=$?
	expect_eq "gate over the collision: exit status ($(cat "$SCRATCH/gate.out"))" "$st" 1
	expect_match "gate over the collision" "$(cat "$SCRATCH/gate.out")" \
		"^FAIL  dist/bin/hello  unique: manifest 'releases/1\.2\.0/manifest\.json' lists this id for 'dist/bin/hello', a file with other bytes"
	# Without the collision: a new id, and release 1's file unchanged.
	cp "$rel2/bin/new" "$ci/dist/bin/new"
	cp "$rel1/bin/hello" "$ci/dist/bin/hello"
	(cd "$ci" && DEBUGINFOD_URLS=$srv_url bash -e "$SCRATCH/gate.sh") >"$SCRATCH/gate.out" 2>&1
	st=$?
	expect_eq "gate without it: exit status ($(cat "$SCRATCH/gate.out"))" "$st" 0
	expect_eq "gate without it" "$(cat "$SCRATCH/gate.out")" "PASS  dist/bin/hello  $id1
PASS  dist/bin/new  $id_new"
else
	t_fail "no server (block above)"
fi
t_end

# --- (c) a server that cannot be asked -------------------------------------------------
t_begin "(c) DEBUGINFOD_URLS at a closed port of 127.0.0.1: an ERROR, exit 2, 'debuginfod could not be asked', never a pass"
port=$(free_port)
run curl -s --noproxy '*' --max-time 10 "http://127.0.0.1:$port/"
expect_eq "curl to the closed port: exit status (7: could not connect)" "$rc" 7
DEBUGINFOD_URLS=http://127.0.0.1:$port DEBUGINFOD_CACHE_PATH=$SCRATCH/cache-closed \
	run timeout 120 "$EBID" verify --perf=off --against-debuginfod "$rel1/bin/hello"
expect_eq "exit status" "$rc" 2
expect_match "verify" "$out" \
	"^ERROR  $(re_quote "$rel1/bin/hello")  unique: debuginfod could not be asked: Connection refused \(DEBUGINFOD_URLS=http://127\.0\.0\.1:$port\)\$"
expect_one_error_line "$rel1/bin/hello"
expect_match "stderr" "$err" "verify: unique: debuginfod could not be asked: "
t_end

t_begin "(c) a server that accepts and never answers: given up after EBID_DEBUGINFOD_TIMEOUT_MS, an ERROR, exit 2"
port=$(free_port)
python3 -c 'import socket, sys, time
s = socket.socket(); s.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
s.bind(("127.0.0.1", int(sys.argv[1]))); s.listen(16)
print("listening", flush=True)
held = []
while True:
    c, _ = s.accept(); held.append(c)' "$port" >"$SCRATCH/mute.log" 2>&1 &
mute_pid=$!
server_pids+=("$mute_pid")
for _ in $(seq 50); do grep -q listening "$SCRATCH/mute.log" && break; sleep 0.1; done
expect_match "the mute server listens" "$(cat "$SCRATCH/mute.log")" '^listening$'
start=$SECONDS
EBID_DEBUGINFOD_TIMEOUT_MS=2000 DEBUGINFOD_URLS=http://127.0.0.1:$port \
	DEBUGINFOD_CACHE_PATH=$SCRATCH/cache-mute \
	run timeout 60 "$EBID" verify --perf=off --against-debuginfod "$rel1/bin/hello"
took=$((SECONDS - start))
expect_eq "exit status" "$rc" 2
expect_match "verify" "$out" \
	"^ERROR  $(re_quote "$rel1/bin/hello")  unique: debuginfod could not be asked: no answer within 2000 ms"
expect_true "took $took s, want under 15" [ "$took" -lt 15 ]
stop_server "$mute_pid"
t_end

# The twin rule (the same bytes twice are no collision) hashes the files
# after the run. A file rewritten meanwhile with its twin's bytes must not
# pass as that twin: verify judged other bytes. One worker (-j1) judges a
# first (the walk sorts the names) and then asks a slow server about its
# id, so when the server logs the question a has been read; the test
# rewrites a while the run waits. (With two workers the question could
# come from b's while a was still unread, and a would be judged with its
# new bytes.)
t_begin "a file rewritten with its twin's bytes while verify runs is not taken for that twin: both FAIL unique"
tw=$SCRATCH/twins
mkdir -p "$tw"
cp "$rel1/bin/hello" "$tw/a"
cp "$rel1/bin/hello" "$tw/b"
# Other bytes, the same id and size: one byte of a's .comment changed.
comment=$(readelf -SW "$tw/a" | sed -n 's/.*\.comment *PROGBITS *[0-9a-f]* \([0-9a-f]*\) .*/\1/p')
expect_match ".comment's offset" "$comment" '^[0-9a-f]+$'
printf 'X' | dd of="$tw/a" bs=1 seek=$((0x$comment + 1)) conv=notrunc status=none
expect_exit 1 cmp -s "$tw/a" "$tw/b"
expect_eq "one id" "$(gnu_id "$tw/a")" "$(gnu_id "$tw/b")"
port=$(free_port)
python3 -c 'import http.server, sys, time
class H(http.server.BaseHTTPRequestHandler):
    def do_GET(self):
        print("asked", self.path, flush=True)
        time.sleep(4)
        self.send_response(404); self.end_headers()
    def log_message(self, *a): pass
s = http.server.ThreadingHTTPServer(("127.0.0.1", int(sys.argv[1])), H)
print("listening", flush=True)
s.serve_forever()' "$port" >"$SCRATCH/slow.log" 2>&1 &
slow_pid=$!
server_pids+=("$slow_pid")
for _ in $(seq 50); do grep -q listening "$SCRATCH/slow.log" && break; sleep 0.1; done
EBID_DEBUGINFOD_TIMEOUT_MS=30000 DEBUGINFOD_URLS=http://127.0.0.1:$port \
	DEBUGINFOD_CACHE_PATH=$SCRATCH/cache-slow \
	timeout 60 "$EBID" verify --perf=off -j1 --against-debuginfod "$tw/a" "$tw/b" \
	>"$SCRATCH/twins.out" 2>"$SCRATCH/twins.err" &
vpid=$!
for _ in $(seq 100); do grep -q asked "$SCRATCH/slow.log" && break; sleep 0.1; done
expect_match "the server was asked (a is judged)" "$(cat "$SCRATCH/slow.log")" '^asked /buildid/'
cp "$tw/b" "$tw/a"
expect_exit 0 cmp "$tw/a" "$tw/b"
wait "$vpid"
rc=$?
out=$(cat "$SCRATCH/twins.out")
expect_eq "exit status ($(cat "$SCRATCH/twins.err"))" "$rc" 1
expect_match "a: judged with other bytes" "$out" "^FAIL  $(re_quote "$tw/a")  unique: same id as '$(re_quote "$tw/b")', a file with other bytes"
expect_match "b" "$out" "^FAIL  $(re_quote "$tw/b")  unique: same id as '$(re_quote "$tw/a")', a file with other bytes"
stop_server "$slow_pid"
t_end

t_begin "--against-debuginfod without DEBUGINFOD_URLS: a usage error, exit 64"
expect_exit 64 env -u DEBUGINFOD_URLS "$EBID" verify --perf=off --against-debuginfod "$rel1/bin/hello"
expect_match "stderr" "$err" "^elf-buildid: --against-debuginfod needs the servers in DEBUGINFOD_URLS"
expect_eq "stdout" "$out" ""
t_end

# --- (d) --json -----------------------------------------------------------------------------
t_begin "(d) --json carries the unique check: fail naming the manifest; pass; error for the closed port"
expect_exit 1 "$EBID" verify --perf=off --json --against-manifest="$m1" "$rel2/bin/hello" "$rel2/bin/new"
printf '%s\n' "$out" >"$SCRATCH/v.json"
expect_eq "summary" "$(py_json "$SCRATCH/v.json" '(d["summary"]["passed"], d["summary"]["failed"], d["summary"]["errors"])')" "(1, 1, 0)"
expect_eq "release 2's hello: status, unique check" \
	"$(py_json "$SCRATCH/v.json" '[(f["status"], c["status"], c["detail"]) for f in d["files"] if f["path"].endswith("/hello") for c in f["checks"] if c["name"] == "unique"]')" \
	"[('fail', 'fail', \"manifest '$m1' lists this id for '$rel1/bin/hello', a file with other bytes (another SHA-256)\")]"
expect_eq "the new program: unique check" \
	"$(py_json "$SCRATCH/v.json" '[(f["status"], c["status"], c["detail"]) for f in d["files"] if f["path"].endswith("/new") for c in f["checks"] if c["name"] == "unique"]')" \
	"[('pass', 'pass', 'no other file has this id; not released before')]"
port=$(free_port)
DEBUGINFOD_URLS=http://127.0.0.1:$port DEBUGINFOD_CACHE_PATH=$SCRATCH/cache-json \
	run "$EBID" verify --perf=off --json --against-debuginfod "$rel1/bin/hello"
expect_eq "closed port: exit status" "$rc" 2
printf '%s\n' "$out" >"$SCRATCH/e.json"
expect_eq "closed port: status and check" \
	"$(py_json "$SCRATCH/e.json" '[(f["status"], c["status"], c["detail"].split(":")[0]) for f in d["files"] for c in f["checks"] if c["name"] == "unique"] + [d["summary"]["errors"]]')" \
	"[('error', 'fail', 'debuginfod could not be asked'), 1]"
t_end

t_done
