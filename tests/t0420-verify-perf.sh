#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# verify's perf check (issue 4) with perf present, absent and replaced.
# The tool runs perf from a fixed system path, so PATH cannot hide or fake it;
# each case here runs the tool in a private mount namespace (unshare -m)
# where /usr/bin (and /usr/sbin, /usr/local/bin) is an empty tmpfs (perf
# absent), or where a script is bind-mounted over /usr/bin/perf (perf that
# logs how it was run, lies, fails, hangs or floods). Nothing outside the
# namespace changes. Checks --perf=auto|require|off, the fixed environment
# (argv, LC_ALL=C, PERF_CONFIG=/dev/null, private HOME removed afterwards,
# stdin /dev/null), the timeout and the output bound.
. "$(dirname "$0")/lib.sh"
require_tool
require_fixtures plain

require_deps kit

export HOME=$SCRATCH/home
mkdir -p "$HOME"

good=$(copy_fixture plain "$SCRATCH/good")
run "$EBID" inject "$good"
good_id=$(readelf_ids "$good")

# perf_check JSON: "status detail" of the perf check of the first file.
perf_check() {
	python3 - "$1" <<'PY'
import json, sys
try:
    doc = json.loads(open(sys.argv[1]).read())
    c = [c for c in doc["files"][0]["checks"] if c["name"] == "perf"]
    print("%s %s" % (c[0]["status"], c[0]["detail"]) if c else "absent")
except Exception as e:
    print("bad json: %s" % e)
PY
}

# Where the tool may look for perf; all hidden for "absent".
perf_dirs=()
for d in /usr/sbin /usr/local/bin /usr/bin; do # /usr/bin last: mount lives there
	[ -d "$d" ] && perf_dirs+=("$d")
done

# no_perf CMD...: run CMD (absolute path) with every perf directory empty.
no_perf() {
	local setup= d
	for d in "${perf_dirs[@]}"; do
		setup="$setup mount -t tmpfs ebid-no-perf $d &&"
	done
	run unshare -m --propagation private /bin/sh -c "$setup"' exec "$@"' sh "$@"
}

# fake_perf SCRIPT CMD...: run CMD with SCRIPT bind-mounted over /usr/bin/perf.
fake_perf() {
	local script=$1
	shift
	run unshare -m --propagation private /bin/sh -c \
		'mount --bind "$0" /usr/bin/perf && exec "$@"' "$script" "$@"
}

ns_ok=1
ns_why=
if ! unshare -m --propagation private /bin/sh -c 'mount -t tmpfs x /mnt' 2>"$SCRATCH/.ns.err"; then
	ns_ok=0
	ns_why="no private mount namespace here: $(head -n 1 "$SCRATCH/.ns.err")"
fi

# Fake perfs. Each is a plain sh script with absolute paths.
mkdir -p fake
cat >fake/logger <<EOF
#!/bin/sh
printf '%s\n' "\$@" >$SCRATCH/fake/argv
env | sort >$SCRATCH/fake/env
readlink /proc/\$\$/fd/0 >$SCRATCH/fake/stdin
readlink "\$3" >$SCRATCH/fake/input
sha256sum <"\$3" | cut -d' ' -f1 >$SCRATCH/fake/input-sha
printf '%s\n' "\$HOME" >$SCRATCH/fake/home
test -d "\$HOME" && echo yes >$SCRATCH/fake/home-existed
printf '%s %s\n' $good_id "\$3"
EOF
cat >fake/liar <<'EOF'
#!/bin/sh
echo 0101010101010101010101010101010101010101 "$3"
EOF
cat >fake/failing <<'EOF'
#!/bin/sh
echo "perf: something went wrong" >&2
exit 1
EOF
cat >fake/hanging <<'EOF'
#!/bin/sh
exec sleep 120
EOF
cat >fake/flood <<EOF
#!/bin/sh
printf '%s %s\n' $good_id "\$3"
exec head -c 200000000 /dev/zero
EOF
chmod +x fake/*

t_begin "perf present: --perf=auto and --perf=require run the perf check and pass; the user's HOME stays clean"
expect_exit 0 "$EBID" verify --perf=auto "$good"
expect_exit 0 "$EBID" verify --perf=require --json "$good"
printf '%s\n' "$out" >v.json
expect_match "perf check" "$(perf_check v.json)" '^pass '
[ -e "$HOME/.debug" ] && t_fail "verify made $HOME/.debug"
t_end

t_begin "--perf=off: the perf check is not run (status skip or absent), exit 0"
expect_exit 0 "$EBID" verify --perf=off --json "$good"
printf '%s\n' "$out" >v.json
expect_match "perf check" "$(perf_check v.json)" '^(skip|absent)'
t_end

if [ "$ns_ok" = 0 ]; then
	for d in "perf absent: auto, require, off" "perf from PATH is never used" \
		"fixed argv and environment" "a lying perf" "a failing perf" \
		"a hanging perf" "a flooding perf"; do
		t_skip "$d" "$ns_why"
	done
	t_done
fi

t_begin "perf absent: auto passes with a visible note on stderr; require FAILs perf (exit 1); off passes quietly"
no_perf "$EBID" verify --perf=auto "$good"
expect_eq "exit (auto)" "$rc" 0
expect_eq "stdout (auto)" "$out" "PASS  $good  $good_id"
expect_match "stderr note (auto)" "$err" 'perf'
no_perf "$EBID" verify --perf=auto --json "$good"
printf '%s\n' "$out" >v.json
expect_match "perf check (auto, --json)" "$(perf_check v.json)" '^skip '
no_perf "$EBID" verify --perf=require "$good"
expect_eq "exit (require)" "$rc" 1
expect_match "stdout (require)" "$out" "^FAIL  .*  perf: [^ ]"
no_perf "$EBID" verify --perf=require --json "$good"
printf '%s\n' "$out" >v.json
expect_match "perf check (require, --json)" "$(perf_check v.json)" '^fail '
no_perf "$EBID" verify --perf=off "$good"
expect_eq "exit (off)" "$rc" 0
expect_eq "stderr (off)" "$err" ""
t_end

t_begin "a perf on PATH is never used: not when perf is absent, not instead of the real one"
mkdir -p pathbin
cp fake/liar pathbin/perf
run env PATH="$SCRATCH/pathbin:/usr/bin:/bin" "$EBID" verify --perf=require "$good"
expect_eq "exit with PATH perf, real perf present" "$rc" 0
setup=
for d in "${perf_dirs[@]}"; do setup="$setup mount -t tmpfs ebid-no-perf $d &&"; done
run unshare -m --propagation private /bin/sh -c "$setup"' PATH=$0 exec "$@"' \
	"$SCRATCH/pathbin:/usr/bin:/bin" "$EBID" verify --perf=require "$good"
expect_eq "exit with only a PATH perf (require)" "$rc" 1
expect_match "stdout" "$out" "perf: "
t_end

t_begin "perf is run with argv 'buildid-list -i /proc/self/fd/N' (N: the file verify holds), LC_ALL=C, PERF_CONFIG=/dev/null, a private HOME (removed after), stdin /dev/null"
rm -f fake/argv fake/env fake/stdin fake/home fake/home-existed fake/input fake/input-sha
fake_perf "$SCRATCH/fake/logger" "$EBID" verify --perf=require "$good"
expect_eq "exit" "$rc" 0
expect_match "argv" "$(cat fake/argv 2>/dev/null | tr '\n' ' ')" '^buildid-list -i /proc/self/fd/[0-9]+ $'
# perf reads the inode verify checked, not whatever the path names later.
expect_eq "the descriptor perf reads is the file" "$(cat fake/input 2>/dev/null)" "$good"
expect_eq "its bytes" "$(cat fake/input-sha 2>/dev/null)" "$(sha256sum <"$good" | cut -d' ' -f1)"
for kv in LC_ALL=C PERF_CONFIG=/dev/null; do
	grep -qx -- "$kv" fake/env 2>/dev/null || t_fail "perf's environment lacks $kv: $(tr '\n' ' ' <fake/env 2>/dev/null)"
done
expect_eq "stdin" "$(cat fake/stdin 2>/dev/null)" /dev/null
h=$(cat fake/home 2>/dev/null)
expect_ne "HOME" "$h" "$HOME"
expect_ne "HOME" "$h" ""
expect_eq "HOME existed while perf ran" "$(cat fake/home-existed 2>/dev/null)" yes
[ -n "$h" ] && [ -e "$h" ] && t_fail "perf's private HOME $h is still there"
t_end

t_begin "a perf that prints another id: FAIL perf, exit 1 (the check compares, not just runs)"
fake_perf "$SCRATCH/fake/liar" "$EBID" verify --perf=auto "$good"
expect_eq "exit" "$rc" 1
expect_match "stdout" "$out" "^FAIL  .*  perf: [^ ]"
t_end

t_begin "a perf that fails: FAIL perf, exit 1, under auto too (perf is there, it cannot read the id)"
fake_perf "$SCRATCH/fake/failing" "$EBID" verify --perf=auto "$good"
expect_eq "exit" "$rc" 1
expect_match "stdout" "$out" "^FAIL  .*  perf: [^ ]"
t_end

# EBID_PERF_TIMEOUT_MS shortens the 20 s timeout to 2 s here: the wait is
# what is checked, not its length.
t_begin "a perf that hangs is killed after the timeout (EBID_PERF_TIMEOUT_MS=2000): verify ends, FAIL perf"
t0=$(date +%s%3N)
fake_perf "$SCRATCH/fake/hanging" env EBID_PERF_TIMEOUT_MS=2000 \
	timeout -k 5 100 "$EBID" verify --perf=auto "$good"
dt=$(($(date +%s%3N) - t0))
expect_eq "exit" "$rc" 1
expect_match "stdout" "$out" "^FAIL  .*  perf: .*tim"
expect_true "verify ended after $dt ms, before the 2 s timeout" [ "$dt" -ge 2000 ]
expect_true "verify took $dt ms with a hanging perf and a 2 s timeout" [ "$dt" -lt 15000 ]
t_end

t_begin "a perf that floods its output (200 MB) after the right id: bounded, verify ends quickly and passes"
t0=$(date +%s)
fake_perf "$SCRATCH/fake/flood" timeout -k 5 100 "$EBID" verify --perf=require "$good"
t1=$(date +%s)
expect_eq "exit" "$rc" 0
expect_eq "stdout" "$out" "PASS  $good  $good_id"
expect_true "verify took $((t1 - t0)) s with a flooding perf" [ $((t1 - t0)) -le 30 ]
t_end

t_done
