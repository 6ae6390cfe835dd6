#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# tier: slow (real debuginfod servers)
# A real symbol server, and a fleet of them (issue 12): elfutils' debuginfod
# serving what elf-buildid places by id, judged by debuginfod-find, readelf,
# eu-readelf, gdb, go tool pprof and pprof (google/pprof, built from
# Debian's source package).
#   central  debuginfod -F over the tree `link --debug-dir` builds and over
#            a split debug tree; -U over .deb packages (programs and their
#            -dbgsym) of an install tree run through package-hook.sh;
#            -Z .tar.gz over tarballs of another such tree;
#   regional a second debuginfod with no files of its own that federates to
#            the central one through DEBUGINFOD_URLS.
# Every client asks the regional server only. Servers listen on free ports
# the test picks (a taken port is retried), keep their sqlite index and
# caches in the scratch directory, and are stopped on exit. Only 127.0.0.1
# is ever contacted: the inherited DEBUGINFOD_URLS and proxies are unset.
# The central server's scan is awaited through its /metrics counters.
. "$(dirname "$0")/lib.sh"
. "$TOP/tests/kit-lib.sh"
require_tool
kit_prelude
require_fixtures plain pie nobuildid

. "$TOP/tests/debuginfod-lib.sh"
export TMPDIR=$SCRATCH/tmp
mkdir -p "$TMPDIR"
export ELF_BUILDID=$EBID
export CGO_ENABLED=0 GOFLAGS=-trimpath GOPROXY=off GO111MODULE=on GOWORK=off
export GOMODCACHE=$GOPATH/pkg/mod
HOOK=$TOP/scripts/package-hook.sh

# find_via KIND ID CACHE: debuginfod-find through the regional server with
# its own client cache; sets $rc, $out (the path), $err.
find_via() {
	DEBUGINFOD_URLS=$regional_url DEBUGINFOD_CACHE_PATH=$3 \
		run debuginfod-find "$1" "$2"
}

# expect_found KIND ID WANT_FILE CACHE: found through the regional server,
# carries ID (readelf and eu-readelf) and is WANT_FILE byte for byte.
expect_found() {
	local kind=$1 want_id=$2 want=$3 cache=$4
	find_via "$kind" "$want_id" "$cache"
	expect_eq "debuginfod-find $kind $want_id: exit status (stderr: $err)" "$rc" 0
	[ "$rc" = 0 ] || return 1
	expect_true "$kind $want_id: '$out' is not a file" test -f "$out"
	expect_eq "$kind $want_id: readelf -n" "$(readelf_ids "$out")" "$want_id"
	expect_eq "$kind $want_id: eu-readelf -n" "$(eu_readelf_ids "$out")" "$want_id"
	expect_same_file "$kind $want_id: bytes served" "$out" "$want"
}

gnu_id() { readelf_ids "$1" | head -n 1; }

# go_build VERSION OUT: fixtures/selfprof-redeploy/VERSION to OUT (a new inode, as a
# rebuild or a deploy by rename leaves it).
go_build() {
	(cd "$TOP/fixtures/selfprof-redeploy/$1" && go build -o "$2" .) >"$SCRATCH/.go.log" 2>&1 ||
		t_fail "go build $1 -o $2: $(head -c 1000 "$SCRATCH/.go.log")"
}

# pprof_top PPROF ARGS...: PPROF -symbolize=local -top (no remote
# symbolization: nothing but files); stdout in $out, stderr in $err.
pprof_top() {
	local tool=$1
	shift
	if [ "$tool" = go ]; then
		expect_exit 0 go tool pprof -symbolize=local -top "$@"
	else
		expect_exit 0 "$tool" -symbolize=local -top "$@"
	fi
}

# The hottest line of pprof -top: main.hotLoopVersionOne, ...Two, or [app]
# (an address in app that nothing named).
hot() { awk '$2 ~ /%$/ && $NF !~ /%$/ { print $NF; exit }' <<<"$1"; }

# Standalone pprof from Debian's source of google/pprof (GOPATH mode, no
# network): unlike `go tool pprof`, it reads the build-id of the files it
# opens.
PPROF_SRC=/usr/share/gocode/src/github.com/google/pprof
PPROF=$TOP/build/go/pprof
build_pprof() {
	if [ -x "$PPROF" ] && [ "$PPROF" -nt "$PPROF_SRC/internal/driver/fetch.go" ]; then
		return 0
	fi
	GO111MODULE=off GOPATH=/usr/share/gocode GOFLAGS='' \
		go build -o "$PPROF.tmp.$$" github.com/google/pprof && mv "$PPROF.tmp.$$" "$PPROF"
}

# --- 1. the tree `link --debug-dir` builds -------------------------------------
deploy=$SCRATCH/deploy
symbols=$SCRATCH/symbols
t_begin "link --debug-dir: v1 of a self-profiling Go program placed by id and profiled; v2 deployed to the same path and placed too"
mkdir -p "$deploy/bin"
go_build v1 "$deploy/bin/app"
inject_ok "$deploy/bin/app"
id1=$id
cp "$deploy/bin/app" "$SCRATCH/v1.copy"
expect_exit 0 "$deploy/bin/app" "$SCRATCH/cpu.pprof"
expect_match "v1 ran" "$out" '^version 1 sum='
expect_exit 0 "$EBID" link --debug-dir "$symbols" "$deploy/bin/app"
v1_debug=$symbols/.build-id/${id1:0:2}/${id1:2}.debug
expect_eq "link output" "$out" "$id1  $v1_debug"
expect_same_file "the debug tree's copy is v1" "$v1_debug" "$SCRATCH/v1.copy"
# The profile names the file and the id runtime/pprof read from it.
expect_exit 0 go tool pprof -raw "$SCRATCH/cpu.pprof"
expect_match "profile mapping (go tool pprof -raw)" "$(sed -n '/^Mappings/,$p' <<<"$out")" \
	"^1: 0x[0-9a-f/x]+ $(re_quote "$deploy/bin/app") $id1 "
# runtime/pprof wrote the names in; keep the addresses and the id only,
# so that pprof must find a binary to name anything.
prof=$SCRATCH/addr.pprof
expect_exit 0 python3 "$TOP/tests/pprof-addresses-only.py" "$SCRATCH/cpu.pprof" "$prof"
expect_exit 0 go tool pprof -symbolize=none -top "$prof"
expect_eq "address-only profile, not symbolized" "$(hot "$out")" "[app]"
pprof_top go "$prof"
expect_eq "address-only profile, symbolized from v1 at its path" "$(hot "$out")" main.hotLoopVersionOne
go_build v2 "$deploy/bin/app"
inject_ok "$deploy/bin/app"
id2=$id
expect_ne "v2's id" "$id2" "$id1"
cp "$deploy/bin/app" "$SCRATCH/v2.copy"
expect_exit 0 "$EBID" link --debug-dir "$symbols" "$deploy/bin/app"
expect_same_file "the debug tree's copy of v2" "$symbols/.build-id/${id2:0:2}/${id2:2}.debug" "$SCRATCH/v2.copy"
expect_same_file "v1's copy is still v1" "$v1_debug" "$SCRATCH/v1.copy"
t_end

# --- 2. packages from the packaging flow ------------------------------------------
pkg=$SCRATCH/pkg
repo=$SCRATCH/repo
mkdir -p "$repo"
t_begin "package-hook.sh over an install tree, packaged with dpkg-deb: programs in app.deb, debug files in app-dbgsym.deb"
mkdir -p "$pkg/root/opt/app/bin" "$pkg/root/opt/app/lib" "$pkg/root/DEBIAN" \
	"$pkg/dbg/usr/lib/debug" "$pkg/dbg/DEBIAN"
cp "$FIXTURES/plain" "$pkg/root/opt/app/bin/hello"
cp "$KIT/cprog" "$pkg/root/opt/app/bin/cprog"
cp "$KIT/libkit.so.1" "$pkg/root/opt/app/lib/libkit.so.1"
chmod -R u+w "$pkg/root"
expect_exit 0 "$HOOK" "$pkg/root/opt/app" "$pkg/dbg/usr/lib/debug"
deb_files=(opt/app/bin/hello opt/app/bin/cprog opt/app/lib/libkit.so.1)
declare -A deb_id
for rel in "${deb_files[@]}"; do
	deb_id[$rel]=$(gnu_id "$pkg/root/$rel")
	expect_match "$rel: id after the hook" "${deb_id[$rel]}" '^[0-9a-f]{40}$'
done
control() { printf 'Package: %s\nVersion: 1.0\nArchitecture: amd64\nMaintainer: t0810 <t0810@localhost>\nDescription: %s\n' "$1" "$2"; }
control app "t0810 programs" >"$pkg/root/DEBIAN/control"
control app-dbgsym "t0810 debug files" >"$pkg/dbg/DEBIAN/control"
expect_exit 0 dpkg-deb --root-owner-group --build "$pkg/root" "$repo/app_1.0_amd64.deb"
expect_exit 0 dpkg-deb --root-owner-group --build "$pkg/dbg" "$repo/app-dbgsym_1.0_amd64.deb"
expect_exit 0 dpkg-deb -c "$repo/app-dbgsym_1.0_amd64.deb"
for rel in "${deb_files[@]}"; do
	i=${deb_id[$rel]}
	expect_match "app-dbgsym.deb lists $rel's debug file" "$out" \
		" \./usr/lib/debug/\.build-id/${i:0:2}/${i:2}\.debug\$"
done
t_end

t_begin "package-hook.sh over another tree, packaged as tarballs: server-1.0.tar.gz (install tree), server-dbg-1.0.tar.gz (debug tree)"
mkdir -p "$pkg/srv/bin" "$pkg/srvdbg"
cp "$FIXTURES/pie" "$pkg/srv/bin/server"
chmod u+w "$pkg/srv/bin/server"
expect_exit 0 "$HOOK" "$pkg/srv" "$pkg/srvdbg"
tgz_id=$(gnu_id "$pkg/srv/bin/server")
expect_match "server: id after the hook" "$tgz_id" '^[0-9a-f]{40}$'
expect_exit 0 tar -C "$pkg" -czf "$repo/server-1.0.tar.gz" srv
expect_exit 0 tar -C "$pkg/srvdbg" -czf "$repo/server-dbg-1.0.tar.gz" .build-id
expect_exit 0 tar -tzf "$repo/server-dbg-1.0.tar.gz"
expect_match "tarball lists the debug file" "$out" "^\.build-id/${tgz_id:0:2}/${tgz_id:2}\.debug\$"
t_end

# A split debug tree served as files: link --debug-file puts the debug file
# at .build-id/xx/rest.debug and a symlink to the program at .build-id/xx/rest.
t_begin "package-hook.sh split debug tree (debug files and symlinks to the programs) for debuginfod -F"
mkdir -p "$pkg/tool/bin"
cp "$FIXTURES/nobuildid" "$pkg/tool/bin/tool"
chmod u+w "$pkg/tool/bin/tool"
split=$SCRATCH/split-debug
expect_exit 0 "$HOOK" "$pkg/tool" "$split"
split_id=$(gnu_id "$pkg/tool/bin/tool")
expect_match "tool: id after the hook" "$split_id" '^[0-9a-f]{40}$'
expect_true "split tree has the debug file" test -f "$split/.build-id/${split_id:0:2}/${split_id:2}.debug"
expect_eq "split tree's symlink to the program" \
	"$(readlink "$split/.build-id/${split_id:0:2}/${split_id:2}")" "$pkg/tool/bin/tool"
t_end

# --- 3. the central server ---------------------------------------------------------
t_begin "central debuginfod (-F -U -Z .tar.gz) scans the link tree, the split tree, the .debs and the tarballs"
mkdir -p "$SCRATCH/central-cache"
central_up=0
if DEBUGINFOD_CACHE_PATH=$SCRATCH/central-cache start_server central \
	-d "$SCRATCH/central.sqlite" -t 0 -g 0 -c 2 -F -U -Z .tar.gz \
	"$symbols" "$split" "$repo"; then
	central_up=1
	central_pid=$server_pid
	central_url=http://127.0.0.1:$server_port
else
	t_fail "central debuginfod did not start: $(tail -n 5 "$SCRATCH/central.log")"
fi
if [ "$central_up" = 1 ]; then
	wait_scanned "$server_port" ||
		t_fail "scan not done after 90 s: $(grep -E '^(thread|traversed|scanned)' <<<"$metrics")"
	# debuginfod's own account of what it indexed, by source.
	expect_eq ".deb: debuginfo found" "$(metric "$metrics" 'found_debuginfo_total{source=".deb archive"}')" 3
	expect_eq ".deb: executables found" "$(metric "$metrics" 'found_executable_total{source=".deb archive"}')" 3
	expect_eq ".tar.gz: debuginfo found" "$(metric "$metrics" 'found_debuginfo_total{source=".tar.gz archive"}')" 1
	expect_eq ".tar.gz: executables found" "$(metric "$metrics" 'found_executable_total{source=".tar.gz archive"}')" 1
	# Files: the full copies of v1 and v2 (both kinds each) and the split
	# tree's debug file (debuginfo only); the split tree's symlink to the
	# program is not followed (no -L).
	expect_eq "files: debuginfo found" "$(metric "$metrics" 'found_debuginfo_total{source="files"}')" 3
	expect_eq "files: executables found" "$(metric "$metrics" 'found_executable_total{source="files"}')" 2
fi
t_end

# --- 4. the regional server -----------------------------------------------------------
t_begin "regional debuginfod with no files of its own, federating to the central one: unknown id is a 404"
regional_up=0
if [ "$central_up" = 1 ]; then
	mkdir -p "$SCRATCH/regional-cache"
	if DEBUGINFOD_URLS=$central_url DEBUGINFOD_CACHE_PATH=$SCRATCH/regional-cache \
		start_server regional -d "$SCRATCH/regional.sqlite" -t 0 -g 0; then
		regional_up=1
		regional_pid=$server_pid
		regional_url=http://127.0.0.1:$server_port
	else
		t_fail "regional debuginfod did not start: $(tail -n 5 "$SCRATCH/regional.log")"
	fi
else
	t_fail "no central server (block above)"
fi
if [ "$regional_up" = 1 ]; then
	find_via debuginfo 00000000000000000000000000000000000000ff "$SCRATCH/c-unknown"
	expect_ne "debuginfod-find of an unknown id: exit status" "$rc" 0
	expect_eq "debuginfod-find of an unknown id: path printed" "$out" ""
	expect_match "regional server logged a 404" "$(cat "$SCRATCH/regional.log")" \
		'GET /buildid/0{38}ff/debuginfo 404 '
fi
t_end

if [ "$regional_up" != 1 ]; then
	t_skip "served through the regional server (all further blocks)" \
		"no server; the failure is reported above"
	t_done
fi

t_begin "via the regional server: the link --debug-dir id gives v1 as debuginfo and as executable"
expect_found debuginfo "$id1" "$SCRATCH/v1.copy" "$SCRATCH/c-link"
expect_found executable "$id1" "$SCRATCH/v1.copy" "$SCRATCH/c-link"
t_end

t_begin "via the regional server: each .deb id gives the packaged (stripped) program as executable, its debug file as debuginfo"
for rel in "${deb_files[@]}"; do
	i=${deb_id[$rel]}
	expect_found executable "$i" "$pkg/root/$rel" "$SCRATCH/c-deb"
	expect_found debuginfo "$i" "$pkg/dbg/usr/lib/debug/.build-id/${i:0:2}/${i:2}.debug" "$SCRATCH/c-deb"
done
t_end

t_begin "via the regional server: the tarball id gives the program and its debug file"
expect_found executable "$tgz_id" "$pkg/srv/bin/server" "$SCRATCH/c-tgz"
expect_found debuginfo "$tgz_id" "$pkg/srvdbg/.build-id/${tgz_id:0:2}/${tgz_id:2}.debug" "$SCRATCH/c-tgz"
t_end

t_begin "via the regional server: the split tree serves the debug file; its symlink to the program is not followed (no executable without -L)"
expect_found debuginfo "$split_id" "$split/.build-id/${split_id:0:2}/${split_id:2}.debug" "$SCRATCH/c-split"
find_via executable "$split_id" "$SCRATCH/c-split"
expect_ne "executable of the split tree's id: exit status" "$rc" 0
t_end

t_begin "the answers came from the central server through the regional one (both servers' logs and metrics)"
m=$(http_get "$regional_url/metrics")
# 11 files found above (2 link, 6 .deb, 2 tarball, 1 split), each fetched
# from upstream once; 404s are not counted.
expect_eq "regional server's upstream responses" \
	"$(metric "$m" 'http_responses_total{result="upstream"}')" 11
expect_match "central server saw the regional server's requests (X-Forwarded-For)" \
	"$(cat "$SCRATCH/central.log")" "UA:elfutils/[^ ]* XFF:127\.0\.0\.1 GET /buildid/$id1/executable 200 "
t_end

# --- 5. gdb -------------------------------------------------------------------------
t_begin "gdb, empty cache, DEBUGINFOD_URLS=regional: names the functions and lines of fully stripped Go and C programs"
empty=$SCRATCH/no-debug-files
mkdir -p "$empty"
gdb_run() { # CACHE DEBUGINFOD(on|off) BIN GDB-COMMANDS...
	local cache=$1 onoff=$2 bin=$3 args=() c
	shift 3
	for c in "$@"; do args+=(-ex "$c"); done
	DEBUGINFOD_URLS=$regional_url DEBUGINFOD_CACHE_PATH=$cache \
		run gdb -nx -batch -iex "set debuginfod enabled $onoff" \
		-iex "set debug-file-directory $empty" -iex 'set auto-load python-scripts off' \
		"${args[@]}" "$bin"
}
hello_s=$SCRATCH/hello-stripped cprog_s=$SCRATCH/cprog-stripped
cp "$pkg/root/opt/app/bin/hello" "$hello_s" && strip -s "$hello_s"
cp "$pkg/root/opt/app/bin/cprog" "$cprog_s" && strip -s "$cprog_s"
expect_eq "strip -s keeps the id" "$(gnu_id "$hello_s")" "${deb_id[opt/app/bin/hello]}"
expect_exit 0 nm "$hello_s"
expect_match "no symbols left in the stripped copy" "$err" 'no symbols'
# Where main.main is, by nm on the debug file; which line, by the source.
i=${deb_id[opt/app/bin/hello]}
addr=$(nm "$pkg/dbg/usr/lib/debug/.build-id/${i:0:2}/${i:2}.debug" | awk '$3 == "main.main" { print $1 }')
addr=0x${addr#"${addr%%[!0]*}"}
line=$(grep -n '^func main() {' "$TOP/fixtures/hello/main.go" | cut -d: -f1)
gdb_run "$SCRATCH/gdb-off" off "$hello_s" "info symbol $addr" 'info line main.main'
expect_match "debuginfod off: no symbol" "$out" "^No symbol matches $addr\.\$"
gdb_run "$SCRATCH/gdb-cache" on "$hello_s" "info symbol $addr" 'info line main.main'
expect_match "download announced" "$out$err" "Downloading separate debug info for $(re_quote "$hello_s")"
expect_match "info symbol" "$out" "^main\.main in section \.text of $(re_quote "$hello_s")\$"
expect_match "info line main.main" "$out" \
	"^Line $line of \"example\.com/hello/main\.go\" starts at address $addr <main\.main> "
expect_true "gdb left the debug file in its cache" test -f "$SCRATCH/gdb-cache/$i/debuginfo"
gdb_run "$SCRATCH/gdb-cache" on "$cprog_s" 'info line kit_answer'
expect_match "C program: info line kit_answer" "$out" \
	"^Line [0-9]+ of \"[^\"]*fixtures/kit/prog\.c\" starts at address 0x[0-9a-f]+ <kit_answer>"
t_end

# --- 6. pprof ---------------------------------------------------------------------------
# An address-only profile of v1 (block 1), read after v2 took v1's path.
t_begin "go tool pprof cannot read ids: it names v1's samples after v2's functions and ignores files in PPROF_BINARY_PATH"
pprof_top go "$prof"
expect_eq "symbolized against the path (the wrong answer)" "$(hot "$out")" main.hotLoopVersionTwo
mkdir -p "$SCRATCH/pprof-bin/$id1"
cp "$SCRATCH/v1.copy" "$SCRATCH/pprof-bin/$id1/app"
PPROF_BINARY_PATH=$SCRATCH/pprof-bin pprof_top go "$prof"
expect_match "PPROF_BINARY_PATH=DIR with DIR/ID/app: file refused" "$err" \
	"Ignoring local file $(re_quote "$SCRATCH/pprof-bin/$id1/app"): build-id mismatch \\($id1 != \\)"
expect_eq "PPROF_BINARY_PATH=DIR with DIR/ID/app" "$(hot "$out")" main.hotLoopVersionTwo
t_end

t_begin "go tool pprof given v1 found by id (the debug tree's file, or debuginfod-find executable) names v1's functions"
pprof_top go "$v1_debug" "$prof"
expect_eq "binary from the debug tree" "$(hot "$out")" main.hotLoopVersionOne
find_via executable "$id1" "$SCRATCH/c-gopprof"
expect_eq "debuginfod-find executable $id1" "$rc" 0
if [ "$rc" = 0 ]; then
	pprof_top go "$out" "$prof"
	expect_eq "binary from debuginfod-find" "$(hot "$out")" main.hotLoopVersionOne
fi
t_end

pprof_ok=1
t_begin "pprof (google/pprof) checks ids: v2 at the path is refused; PPROF_BINARY_PATH=debuginfod client cache names v1"
build_pprof >"$SCRATCH/.pprof-build.log" 2>&1 ||
	{ pprof_ok=0; t_fail "building pprof from $PPROF_SRC failed: $(tail -n 5 "$SCRATCH/.pprof-build.log")"; }
if [ "$pprof_ok" = 1 ]; then
	pprof_top "$PPROF" "$prof"
	expect_match "v2 at the path" "$err" "Local symbolization failed for app.*build ID mismatch"
	expect_eq "v2 at the path: nothing named" "$(hot "$out")" "[app]"
	# debuginfod's client cache holds ID/executable: pprof's DIR/ID/* form.
	cache=$SCRATCH/c-pprof
	find_via executable "$id1" "$cache"
	expect_eq "debuginfod-find executable $id1: path" "$out" "$cache/$id1/executable"
	PPROF_BINARY_PATH=$cache pprof_top "$PPROF" "$prof"
	expect_eq "PPROF_BINARY_PATH=debuginfod client cache" "$(hot "$out")" main.hotLoopVersionOne
fi
t_end

# google/pprof reads DIR/xx/rest.debug (PPROF_BINARY_PATH=DEBUG_DIR/.build-id)
# since its change #724 (October 2022); Debian 12's source predates it.
t_begin "pprof with PPROF_BINARY_PATH=DEBUG_DIR/.build-id: v1 when its source has the xx/rest.debug form, else nothing named (never v2)"
if [ "$pprof_ok" = 1 ]; then
	PPROF_BINARY_PATH=$symbols/.build-id pprof_top "$PPROF" "$prof"
	if grep -q 'BuildID\[2:\]+".debug"' "$PPROF_SRC/internal/driver/fetch.go"; then
		expect_eq "pprof that knows the .build-id layout" "$(hot "$out")" main.hotLoopVersionOne
	else
		expect_eq "pprof that predates the .build-id layout" "$(hot "$out")" "[app]"
	fi
else
	t_fail "no pprof (block above)"
fi
t_end

# --- 6b. elf-buildid audit asks the fleet ------------------------------------------------
t_begin "audit of v1's address-only profile: stale without the fleet, ok from DEBUGINFOD_URLS with --debuginfod"
run env HOME="$SCRATCH/audit-home" "$EBID" audit "$prof"
expect_eq "exit, no server asked" "$rc" 1
expect_match "verdict, no server asked" "$out" "STALE +$(re_quote "$deploy/bin/app")  $id1  the file at the path has another id, $id2"
run env HOME="$SCRATCH/audit-home" DEBUGINFOD_URLS="$regional_url" \
	DEBUGINFOD_CACHE_PATH="$SCRATCH/c-audit" "$EBID" audit --debuginfod "$prof"
expect_eq "exit, --debuginfod (stderr: $err)" "$rc" 0
expect_match "verdict, --debuginfod" "$out" "OK +$(re_quote "$deploy/bin/app")  $id1  served by DEBUGINFOD_URLS: $(re_quote "$SCRATCH/c-audit")/"
expect_same_file "the file audit was served is v1" "$SCRATCH/c-audit/$id1/executable" "$SCRATCH/v1.copy"
run env HOME="$SCRATCH/audit-home" "$EBID" audit --debug-dir "$symbols" "$prof"
expect_eq "exit, --debug-dir" "$rc" 0
expect_match "verdict, --debug-dir" "$out" "OK +$(re_quote "$deploy/bin/app")  $id1  in the debug directory"
t_end

# --- 7. the fleet without its centre ---------------------------------------------------
t_begin "central server stopped: the regional one still serves what it fetched, and only that"
stop_server "$central_pid"
expect_false "central server still running" kill -0 "$central_pid" 2>/dev/null
expect_found executable "$id1" "$SCRATCH/v1.copy" "$SCRATCH/c-late"
i=${deb_id[opt/app/bin/hello]}
expect_found debuginfo "$i" "$pkg/dbg/usr/lib/debug/.build-id/${i:0:2}/${i:2}.debug" "$SCRATCH/c-late"
# v2 is indexed by the central server only; nobody asked for it before.
find_via executable "$id2" "$SCRATCH/c-late"
expect_ne "v2 (never fetched through the regional server): exit status" "$rc" 0
expect_true "regional server still running" kill -0 "$regional_pid"
t_end

t_done
