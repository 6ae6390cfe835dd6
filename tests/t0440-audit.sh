#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# elf-buildid audit PROFILE (issue 12): before anyone trusts a flame graph,
# say for every binary with samples whether a report made now names the
# right functions. The redeploy scenario of t0410 (v1 profiled, v2 built to
# the same path; same code, functions renamed) is run with real perf
# records, and each verdict is checked against what perf report then
# really prints:
#   no ids                 unsafe, then wrong after the redeploy
#   ids, no copy           ok, then stale after the redeploy
#   ids, link before       ok (perf's cache, a debug dir)
#   path removed           gone
#   corrupt perf.data      exit 2, one line
# and the same verdicts from pprof profiles (tests/pprof.py writes them;
# go tool pprof -raw is the judge that they are valid).
. "$(dirname "$0")/lib.sh"
require_tool
require_deps kit

export HOME=$SCRATCH/home
export PERF_BUILDID_DIR=$HOME/.debug
unset PPROF_BINARY_PATH DEBUGINFOD_URLS
mkdir -p "$HOME"
export CGO_ENABLED=0 GOFLAGS=-trimpath GOPROXY=off GO111MODULE=on GOWORK=off
export GOMODCACHE=$GOPATH/pkg/mod

# build VERSION OUT: fixtures/profile/VERSION, built by Debian's Go 1.19 by
# path ($GO119, tests/lib.sh): the "no ids" verdicts are about a Go binary
# with no id, which Go >= 1.24's linker no longer writes by default.
build() {
	(cd "$TOP/fixtures/profile/$1" && "$GO119" build -o "$2" .) >"$SCRATCH/.go.log" 2>&1 ||
		t_fail "go build $1 -o $2: $(head -c 1000 "$SCRATCH/.go.log")"
}
rec() {
	rm -f "$1"
	perf record -q --no-bpf-event -N -o "$1" -- "$2" >"$SCRATCH/.rec.log" 2>&1 ||
		t_fail "perf record $2: $(head -c 1000 "$SCRATCH/.rec.log")"
}
top_line() {
	perf report --stdio -i "$1" --sort sym,dso 2>/dev/null | grep -v '^#' | grep '%' | head -n 1
}
# verdict_of OUTPUT PATH: the verdict word audit printed for PATH.
verdict_of() { awk -v p="$2" '$2 == p { print $1 }' <<<"$1"; }

# The build a profile is compared with after the redeploy must be newer
# than the capture, also on file systems with coarse timestamps.
settle() { sleep 1.1; }

t_begin "usage: no PROFILE is exit 64; an option of another command is refused"
run "$EBID" audit
expect_eq "exit" "$rc" 64
run "$EBID" audit --jobs 2 x
expect_eq "exit" "$rc" 64
expect_match "stderr" "$err" "option '--jobs' does not apply to 'audit'"
t_end

t_begin "a file that is no profile, and a perf.data cut short: exit 2, one line each"
printf 'hello\n' >"$SCRATCH/text"
run "$EBID" audit "$SCRATCH/text"
expect_eq "exit" "$rc" 2
expect_one_error_line "$SCRATCH/text"
expect_match "why" "$err" 'not a perf\.data or pprof profile'
run "$EBID" audit "$SCRATCH/missing.data"
expect_eq "exit (missing)" "$rc" 2
expect_one_error_line "$SCRATCH/missing.data"
t_end

perf_ok=1
perf_record_works || perf_ok=0
if [ "$perf_ok" = 0 ]; then
	t_skip "audit of real perf records (all blocks)" "$perf_record_why"
	t_done
fi

# --- 1. no ids: unsafe, then wrong ------------------------------------------
t_begin "no ids: unsafe while the profiled file is in place"
d=$SCRATCH/noid
mkdir -p "$d"
build v1 "$d/app"
expect_eq "GNU id" "$(readelf_ids "$d/app")" ""
rec "$d/p.data" "$d/app"
run "$EBID" audit "$d/p.data"
expect_eq "exit" "$rc" 1
expect_eq "verdict" "$(verdict_of "$out" "$d/app")" UNSAFE
expect_match "detail" "$out" "no build-id recorded: perf will use whatever file is at the path"
expect_match "fix hint" "$out" '        fix: give every build an id \(elf-buildid inject'
t_end

t_begin "no ids: wrong after v2 replaced v1, and perf report does name v2's functions"
settle
build v2 "$d/app"
run "$EBID" audit "$d/p.data"
expect_eq "exit" "$rc" 1
expect_eq "verdict" "$(verdict_of "$out" "$d/app")" WRONG
expect_match "detail" "$out" 'changed after the capture'
expect_match "perf report (the judge)" "$(top_line "$d/p.data")" '\[\.\] main\.hotLoopVersionTwo +app'
t_end

t_begin "no ids, path removed: gone"
rm -f "$d/app"
run "$EBID" audit "$d/p.data"
expect_eq "exit" "$rc" 1
expect_eq "verdict" "$(verdict_of "$out" "$d/app")" GONE
t_end

# --- 2. ids, no copy: ok, then stale ----------------------------------------
t_begin "ids: ok while the profiled file is in place; perf report agrees"
d=$SCRATCH/id
mkdir -p "$d"
build v1 "$d/app"
inject_ok "$d/app"
id1=$id
cp "$d/app" "$SCRATCH/v1.bin"
rec "$d/p.data" "$d/app"
run "$EBID" audit "$d/p.data"
expect_eq "exit" "$rc" 0
expect_eq "verdict" "$(verdict_of "$out" "$d/app")" OK
expect_match "line" "$out" "OK +$d/app  $id1  the file at the recorded path has the id"
expect_match "perf report" "$(top_line "$d/p.data")" '\[\.\] main\.hotLoopVersionOne +app'
t_end

t_begin "ids: stale after v2 replaced v1; perf report shows raw addresses, not v2's names"
settle
build v2 "$d/app"
inject_ok "$d/app"
id2=$id
run "$EBID" audit "$d/p.data"
expect_eq "exit" "$rc" 1
expect_eq "verdict" "$(verdict_of "$out" "$d/app")" STALE
expect_match "detail names the id at the path" "$out" "has another id, $id2"
expect_match "fix" "$out" 'fix: place the profiled build where perf looks: elf-buildid link'
expect_match "perf report" "$(top_line "$d/p.data")" '\[\.\] 0x[0-9a-f]+ +app'
t_end

t_begin "ids: --json gives the same verdicts, in one JSON document"
run "$EBID" audit --json "$d/p.data"
expect_eq "exit" "$rc" 1
got=$(python3 -c '
import json, sys
doc = json.loads(sys.stdin.read())
(p,) = doc["profiles"]
b = [x for x in p["binaries"] if x["path"] == sys.argv[1]][0]
print(p["format"], b["verdict"], b["build_id"], doc["exit_status"], doc["summary"]["stale"])
' "$d/app" <<<"$out" 2>&1)
expect_eq "format verdict id exit stale-count" "$got" "perf.data stale $id1 1 1"
t_end

t_begin "ids: after link of v1 into a debug dir, audit --debug-dir says ok"
expect_exit 0 "$EBID" link --debug-dir "$SCRATCH/dbg" "$SCRATCH/v1.bin"
run "$EBID" audit --debug-dir "$SCRATCH/dbg" "$d/p.data"
expect_eq "exit" "$rc" 0
expect_eq "verdict" "$(verdict_of "$out" "$d/app")" OK
expect_match "where" "$out" "in the debug directory $SCRATCH/dbg: $SCRATCH/dbg/\.build-id/${id1:0:2}/${id1:2}\.debug"
t_end

t_begin "ids: link --perf-default-cache of v1: audit says ok, and perf report names v1's function"
expect_exit 0 "$EBID" link --perf-default-cache "$SCRATCH/v1.bin"
run "$EBID" audit "$d/p.data"
expect_eq "exit" "$rc" 0
expect_eq "verdict" "$(verdict_of "$out" "$d/app")" OK
expect_match "where" "$out" "in perf's build-id cache $HOME/\.debug"
expect_match "perf report" "$(top_line "$d/p.data")" '\[\.\] main\.hotLoopVersionOne +app'
t_end

t_begin "ids, path removed and no copy: gone"
d=$SCRATCH/gone
mkdir -p "$d"
build v1 "$d/app"
inject_ok "$d/app"
rec "$d/p.data" "$d/app"
rm -f "$d/app"
# Go builds are reproducible: this v1 has the id of the v1 linked into
# $HOME/.debug above. Audit with a HOME whose cache is empty.
export HOME=$SCRATCH/home-empty
mkdir -p "$HOME"
run "$EBID" audit -q "$d/p.data"
expect_eq "exit" "$rc" 1
expect_eq "stdout with -q" "$out" ""
expect_exit 1 "$EBID" audit "$d/p.data"
expect_eq "verdict" "$(verdict_of "$out" "$d/app")" GONE
t_end

t_begin "a perf.data cut short: exit 2 and one line, not an empty report"
head -c 3000 "$SCRATCH/id/p.data" >"$SCRATCH/cut.data"
run "$EBID" audit "$SCRATCH/cut.data"
expect_eq "exit" "$rc" 2
expect_one_error_line "$SCRATCH/cut.data"
expect_match "why" "$err" 'perf\.data is cut short'
expect_eq "stdout" "$out" ""
t_end

# --- 3. pprof profiles ------------------------------------------------------

t_begin "pprof: a gzip'd profile with unsymbolized mappings, read by go tool pprof and audit"
p=$SCRATCH/pp
mkdir -p "$p"
build v1 "$p/withid"
inject_ok "$p/withid"
pid1=$id
build v1 "$p/noid"
settle
now_ns=$(($(date +%s) * 1000000000))
past_ns=$((now_ns - 3600 * 1000000000))
python3 "$TOP/tests/pprof.py" "$p/cpu.pb.gz" --time-ns "$now_ns" \
	"$p/withid,$pid1,0" "$p/noid,,0" "$p/symbolized,,1" "!$p/nosamples,,0"
expect_match "go tool pprof -raw reads it" "$(go tool pprof -raw "$p/cpu.pb.gz" 2>/dev/null | grep -F "$p/withid")" "$pid1"
run "$EBID" audit "$p/cpu.pb.gz"
expect_eq "exit" "$rc" 1
expect_match "header" "$out" "^$p/cpu.pb.gz: pprof, captured .*, 3 binaries with samples"
expect_eq "with id" "$(verdict_of "$out" "$p/withid")" OK
expect_eq "no id" "$(verdict_of "$out" "$p/noid")" UNSAFE
expect_eq "symbolized" "$(verdict_of "$out" "$p/symbolized")" OK
expect_eq "mapping without samples" "$(verdict_of "$out" "$p/nosamples")" ""
t_end

t_begin "pprof: after the redeploy, stale (id) and wrong (no id, captured before the change)"
python3 "$TOP/tests/pprof.py" "$p/old.pb.gz" --time-ns "$past_ns" \
	"$p/withid,$pid1,0" "$p/noid,,0"
build v2 "$p/withid"
inject_ok "$p/withid"
run "$EBID" audit "$p/old.pb.gz"
expect_eq "exit" "$rc" 1
expect_eq "with id" "$(verdict_of "$out" "$p/withid")" STALE
expect_match "go tool pprof's blind spot is named" "$out" 'go tool pprof, which checks no ids'
expect_eq "no id" "$(verdict_of "$out" "$p/noid")" WRONG
t_end

t_begin "pprof: v1 in PPROF_BINARY_PATH as <dir>/<id>/<name>: ok"
mkdir -p "$SCRATCH/pbp/$pid1"
cp "$SCRATCH/v1.bin" "$SCRATCH/pbp/$pid1/withid"
# $SCRATCH/v1.bin is another v1 build: give the copy pid1 by its content.
"$EBID" inject -f --id="0x$pid1" "$SCRATCH/pbp/$pid1/withid" >/dev/null
expect_exit 1 env PPROF_BINARY_PATH="$SCRATCH/pbp" "$EBID" audit "$p/old.pb.gz"
expect_eq "with id" "$(verdict_of "$out" "$p/withid")" OK
expect_match "where" "$out" "in PPROF_BINARY_PATH"
t_end

t_begin "pprof: Go's own runtime/pprof profile names its functions: ok"
cat >"$SCRATCH/selfprof.go" <<'EOF'
package main

import (
	"os"
	"runtime/pprof"
	"time"
)

func spin() (x uint64) {
	for end := time.Now().Add(300 * time.Millisecond); time.Now().Before(end); {
		x = x*6364136223846793005 + 1
	}
	return
}

func main() {
	f, _ := os.Create(os.Args[1])
	pprof.StartCPUProfile(f)
	spin()
	pprof.StopCPUProfile()
	f.Close()
}
EOF
(cd "$SCRATCH" && GO111MODULE=off go build -o selfprof selfprof.go) >"$SCRATCH/.go.log" 2>&1
inject_ok "$SCRATCH/selfprof"
expect_exit 0 "$SCRATCH/selfprof" "$SCRATCH/self.pb.gz"
run "$EBID" audit "$SCRATCH/self.pb.gz"
expect_eq "exit" "$rc" 0
expect_match "the binary" "$out" "OK +$SCRATCH/selfprof  $id  the profile names its functions already"
t_end

t_begin "a corrupt pprof (gzip cut short): exit 2, one line"
head -c 100 "$p/cpu.pb.gz" >"$SCRATCH/cut.pb.gz"
run "$EBID" audit "$SCRATCH/cut.pb.gz"
expect_eq "exit" "$rc" 2
expect_one_error_line "$SCRATCH/cut.pb.gz"
t_end

t_done
