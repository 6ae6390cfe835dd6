#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# make check-seed: builds real Go programs from source, fetched through the
# Go module proxy and built with the machine's Go the way their projects
# build releases (scripts/seed-programs.sh says how, and why these), runs a
# few packages' own tests (go test -c binaries) before and after
# `elf-buildid inject -r` over a copy of the programs and test binaries.
#   gitaly  Gitaly 16.11.0, GitLab's Git server: a large Go program (its
#           Makefile's tags and -X flags) and the four helpers it embeds
#   nats    nats-server 2.15.3: widely deployed, a big test suite; built
#           -buildmode=pie (the PIE shape)
#   sqlite  go-sqlite3 1.14.53: the most used cgo package; its test suite
#           and an example, -linkmode=external (cgo, gcc and ld.bfd link)
#
# For each program it checks, and fails (exit 1) when one does not hold:
# every test that passed before inject passes after (go test -v's
# `--- PASS:` lines); readelf -n and perf buildid-list -i print the id
# inject printed; a PT_NOTE inside the first page covers the note and holds
# that id (readelf -lW, -SW: what the kernel reads); elf-buildid verify
# passes; a second inject -r changes no byte (cmp); packed by tar and zstd
# as a release tarball, verify over the tarball passes every program with
# inject's id; the programs still run and say what they said before. Then, one program pair linked as Bazel's
# rules_go links (-ldflags=-buildid=redacted): readelf -n shows both with
# the same GNU id, show and verify call it constant, inject gives each its
# own content hash, --keep-constant-id keeps it. Last, scripts/seed-bench
# (the post-link cost of inject against Gitaly's link step), unless
# EBID_SEED_BENCH=0.
#
# Usage: scripts/check-seed.sh [PROGRAM...]   (default: nats sqlite gitaly)
# Environment: EBID (the tool, default build/elf-buildid), EBID_SEED (work
#   directory, default build/seed), EBID_SEED_CACHE (GOMODCACHE and GOCACHE,
#   owned by this script, default build/seed-cache; empty or absent: a cold
#   run), EBID_SEED_GOPROXY (a GOPROXY to use instead of go env's, e.g. a
#   file:// copy while developing), EBID_SEED_BENCH=0 (no seed-bench).
# Output: build/seed/results.tsv (one row per ELF file), runs.tsv (one row
#   per program: fetch and build times, cold or warm cache), results.md (the
#   tables for docs/compatibility.md), runs/PROGRAM/ (logs, the originals in
#   orig/, the injected copy in tree/).
# Exit status: 0 all checks passed, 1 a check failed, 2 setup error.
set -u
set -o pipefail
unset MAKEFLAGS MFLAGS MAKELEVEL MAKEOVERRIDES

top=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
ebid=$(realpath "${EBID:-$top/build/elf-buildid}")
work=$(realpath -m "${EBID_SEED:-$top/build/seed}")
cache=$(realpath -m "${EBID_SEED_CACHE:-$top/build/seed-cache}")
me=check-seed
default_programs=(nats sqlite gitaly)

# The go command's own state lives in the cache: -modcacherw so that the
# cache can be deleted with rm -rf; no VCS stamping (the sources are module
# zips, and build/ sits in this repository's work tree); this machine's Go,
# whatever a go.mod's toolchain line asks.
export GOMODCACHE=$cache/mod GOCACHE=$cache/build GOFLAGS="-modcacherw -buildvcs=false"
export GOTOOLCHAIN=local GO111MODULE=on
[ -n "${EBID_SEED_GOPROXY:-}" ] && export GOPROXY=$EBID_SEED_GOPROXY

say() { echo "$me: $*" >&2; }
die() {
	say "$*"
	exit 2
}

. "$top/scripts/seed-programs.sh"

problem() {
	echo "$*" >>"$run/problems.txt"
	say "$p: FAIL: $*"
}

note_id() { readelf -n "$1" 2>/dev/null | sed -n 's/^ *Build ID: *//p' | head -n 1; }

# fetch P: the module's source tree in src/P (go mod download -json of the
# exact version, copied out of the module cache, writable), and every module
# it needs (go mod download in it, which checks them against its go.sum).
fetch() {
	local p=$1 mod dir tmp
	mod=$("${p}_module")
	[ -f "$work/src/$p/.fetched" ] && [ "$(cat "$work/src/$p/.fetched")" = "$mod" ] &&
		[ -d "$GOMODCACHE/cache/download" ] && return 0
	tmp=$(mktemp -d) || return 1
	if ! dir=$(cd "$tmp" && GONOSUMDB=$("${p}_nosumdb") go mod download -json "$mod" |
		python3 -c 'import json,sys; d=json.load(sys.stdin); print(d.get("Dir","")); sys.exit(1 if d.get("Error") else 0)'); then
		rmdir "$tmp"
		say "$p: go mod download $mod failed"
		return 1
	fi
	rmdir "$tmp"
	[ -d "$dir" ] || { say "$p: go mod download $mod gave no directory"; return 1; }
	rm -rf "$work/src/$p" && mkdir -p "$work/src" && cp -r "$dir" "$work/src/$p" &&
		chmod -R u+w "$work/src/$p" || return 1
	(cd "$work/src/$p" && go mod download) || { say "$p: go mod download (its modules) failed"; return 1; }
	echo "$mod" >"$work/src/$p/.fetched"
}

# build P: P_build in its source tree, into out/P (bin/, tests/), with
# GOPROXY=off: a module fetch did not get is an error, not a download that
# the build's time would count.
build() {
	local p=$1 out=$work/out/$1
	rm -rf "$out" && mkdir -p "$out/bin" "$out/tests" && : >"$out/tests.tsv"
	(cd "$work/src/$p" && GOPROXY=off "${p}_build" "$out") >"$work/$p.build.log" 2>&1 ||
		{ say "$p: build failed: $work/$p.build.log"; return 1; }
}

# run_tests DIR WHICH: every test binary of out/P/tests.tsv, from DIR, in its
# package's directory, with -test.v; WHICH.units: `PASS|FAIL|SKIP BIN:TEST`
# per `--- ` line and `EXIT BIN STATUS`.
run_tests() {
	local dir=$1 which=$2 b pkg rc
	mkdir -p "$run/$which"
	: >"$run/$which.units"
	while IFS=$'\t' read -r b pkg; do
		(cd "$work/src/$p/$pkg" && timeout 600 "$dir/tests/$b" -test.v -test.count=1 \
			-test.timeout=5m) >"$run/$which/$b.log" 2>&1
		rc=$?
		echo "EXIT $b $rc" >>"$run/$which.units"
		sed -n -E "s/^ *--- (PASS|FAIL|SKIP): ([^ ]+) .*/\1 $b:\2/p" "$run/$which/$b.log" \
			>>"$run/$which.units"
	done <"$work/out/$p/tests.tsv"
}

# compare_tests: every test that passed before passes after; a binary that
# exited 0 before exits 0 after; some test passed.
compare_tests() {
	local u b rc
	while read -r u; do
		grep -qxF "PASS $u" "$run/after.units" || problem "test '$u' passed before inject, not after"
	done < <(sed -n 's/^PASS //p' "$run/before.units")
	while read -r b rc; do
		[ "$rc" = 0 ] || continue
		grep -qxF "EXIT $b 0" "$run/after.units" || problem "$b exited 0 before inject, not after"
	done < <(sed -n 's/^EXIT //p' "$run/before.units")
	grep -q '^PASS ' "$run/before.units" || problem "no test passed before inject: the tests did not run"
}

# tests_of UNITS BIN: `passed/passed+failed` of BIN's tests (top-level and
# subtests alike).
tests_of() {
	local pa fa
	pa=$(grep -c "^PASS $2:" "$1")
	fa=$(grep -c "^FAIL $2:" "$1")
	echo "$pa/$((pa + fa))"
}

# kernel_note FILE: the GNU build-id the kernel reads, as 6.1's
# lib/buildid.c does: the program headers (readelf -lW) inside the first
# page, a PT_NOTE inside it, an NT_GNU_BUILD_ID note named GNU in it;
# empty when there is none.
kernel_note() {
	local f=$1 phoff phnum phsz
	phoff=$(readelf -hW "$f" | sed -n 's/^ *Start of program headers: *\([0-9]*\).*/\1/p')
	phnum=$(readelf -hW "$f" | sed -n 's/^ *Number of program headers: *\([0-9]*\).*/\1/p')
	phsz=$(readelf -hW "$f" | sed -n 's/^ *Size of program headers: *\([0-9]*\).*/\1/p')
	[ -n "$phoff" ] && [ -n "$phnum" ] && [ -n "$phsz" ] || return 0
	[ $((phoff + phnum * phsz)) -le 4096 ] || return 0
	readelf -lW "$f" | awk '$1 == "NOTE" { print $2, $5 }' | python3 -c '
import sys
f = open(sys.argv[1], "rb")
for line in sys.stdin:
    off, size = (int(x, 16) for x in line.split())
    if off + size > 4096:
        continue
    f.seek(off)
    b = f.read(size)
    i = 0
    while i + 12 <= len(b):
        nz, dz, t = (int.from_bytes(b[i + k:i + k + 4], "little") for k in (0, 4, 8))
        name = b[i + 12:i + 12 + nz]
        d0 = i + 12 + ((nz + 3) & ~3)
        if t == 3 and name == b"GNU\0" and 0 < dz <= 20:
            print(b[d0:d0 + dz].hex())
            sys.exit(0)
        i = d0 + ((dz + 3) & ~3)
' "$f"
}

# check_file F ID: the checks of one injected file, by tools we did not
# write (readelf, perf), then verify.
check_file() {
	local f=$1 id=$2 a
	[ -n "$id" ] || { problem "$f: inject printed no id"; return; }
	a=$(note_id "$run/tree/$f")
	[ "$a" = "$id" ] || problem "$f: readelf -n prints '$a', not $id"
	a=$(perf buildid-list -i "$run/tree/$f" 2>/dev/null | awk '{ print $1 }')
	[ "$a" = "$id" ] || problem "$f: perf buildid-list -i prints '$a', not $id"
	a=$(kernel_note "$run/tree/$f")
	[ "$a" = "$id" ] || problem "$f: no PT_NOTE in the first page holds $id (it holds '$a')"
	"$ebid" verify --perf=require "$run/tree/$f" >>"$run/verify.out" 2>&1 ||
		problem "$f: elf-buildid verify fails"
}

# inject_said LOG: FILE<TAB>what inject -v said it did to it (`injected
# (words)`, `repaired (words)`, `backfilled (words)`...), its first line.
inject_said() {
	sed -n -E "s|^elf-buildid: '\./(.*)': (.*)$|\1\t\2|p" "$1" | awk -F '\t' '!seen[$1]++'
}

# shape F: the build settings the Go toolchain recorded (go version -m:
# -buildmode, -ldflags' linkmode, CGO_ENABLED) and the ELF type (readelf).
shape() {
	local m t
	m=$(go version -m "$1" 2>/dev/null)
	t=$(readelf -hW "$1" | sed -n 's/^ *Type: *\([A-Z]*\).*/\1/p')
	printf '%s %s %s %s' "$(sed -n 's/^\tbuild\t-buildmode=//p' <<<"$m")" \
		"$(grep -q 'linkmode=external' <<<"$m" && echo external || echo internal)" \
		"cgo=$(sed -n 's/^\tbuild\tCGO_ENABLED=//p' <<<"$m")" "$t"
}

# smoke DIR WHICH: P_smoke over DIR/bin, its output in WHICH.smoke, checked.
smoke() {
	"${p}_smoke" "$1/bin" >"$run/$2.smoke" 2>&1 || problem "the program failed to run ($2 inject): $(head -c 300 "$run/$2.smoke")"
	grep -qE "$("${p}_smoke_want")" "$run/$2.smoke" ||
		problem "the program ($2 inject) did not print /$("${p}_smoke_want")/: $(head -c 300 "$run/$2.smoke")"
}

# run_program P: build, test, inject a copy, test again, check.
run_program() {
	local p=$1 run=$work/runs/$1 out=$work/out/$1 f id t0 t1 t2
	rm -rf "$run" && mkdir -p "$run" && : >"$run/problems.txt"
	t0=$(date +%s)
	say "$p: fetch ($cold cache)"
	fetch "$p" || return 2
	t1=$(date +%s)
	say "$p: build"
	build "$p" || return 2
	t2=$(date +%s)
	say "$p: tests before inject (fetch $((t1 - t0)) s, build $((t2 - t1)) s, $cold cache)"
	run_tests "$out" before
	smoke "$out" before
	rm -rf "$run/orig" "$run/tree" && cp -a "$out" "$run/orig" && cp -a "$out" "$run/tree" || return 2
	say "$p: inject -r"
	(cd "$run/tree" && "$ebid" inject -r -v .) >"$run/inject.out" 2>"$run/inject.err" ||
		problem "inject -r exited $? ($(tail -n 3 "$run/inject.err" | paste -s -d ' ' -))"
	inject_said "$run/inject.err" >"$run/inject.tsv"
	cp -a "$run/tree" "$run/injected" || return 2
	say "$p: tests after inject"
	run_tests "$run/tree" after
	compare_tests
	smoke "$run/tree" after
	cmp -s "$run/before.smoke" "$run/after.smoke" || problem "the program says something else after inject"
	(cd "$run/tree" && find bin tests -type f | sort) >"$run/files.txt"
	while IFS= read -r f; do
		id=$(awk -v f="./$f" '$2 == f { print $1 }' "$run/inject.out")
		check_file "$f" "$id"
	done <"$run/files.txt"
	second_inject
	packed
	rows
	rm -rf "$run/injected"
	local v=pass
	[ -s "$run/problems.txt" ] && v=FAIL
	printf '%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\n' "$p" "$("${p}_module")" "$cold" "$((t1 - t0))" \
		"$((t2 - t1))" "$(tests_of "$run/before.units" '[^:]*')" "$(tests_of "$run/after.units" '[^:]*')" \
		"$v" "$(paste -s -d ';' "$run/problems.txt")" >>"$work/runs.tsv"
	[ ! -s "$run/problems.txt" ]
}

# second_inject: inject -r again changes no byte of any file.
second_inject() {
	local f
	(cd "$run/tree" && "$ebid" inject -r -v .) >"$run/inject2.out" 2>"$run/inject2.err" ||
		problem "the second inject -r exited $?"
	: >"$run/second.txt"
	while IFS= read -r f; do
		cmp -s "$run/tree/$f" "$run/injected/$f" && echo "$f" >>"$run/second.txt" ||
			problem "$f: changed by a second inject -r"
	done <"$run/files.txt"
}

# packed: the injected tree as a release tarball (GNU tar, zstd): verify
# over the tarball gives every program PASS with inject's id, as it does
# the files (issue 35: the gate over what is shipped).
packed() {
	local f id got
	tar --sort=name --mtime=@0 --owner=0 --group=0 --numeric-owner --zstd \
		-C "$run/tree" -cf "$run/release.tar.zst" bin tests ||
		{ problem "tar of the injected tree failed"; return; }
	"$ebid" verify --perf=off "$run/release.tar.zst" >"$run/packed.out" 2>&1
	while IFS= read -r f; do
		id=$(awk -v f="./$f" '$2 == f { print $1 }' "$run/inject.out")
		got=$(awk -v m="$run/release.tar.zst:$f" '$2 == m { print $1, $3 }' "$run/packed.out")
		[ "$got" = "PASS $id" ] ||
			problem "$f: verify of the release tarball says '$got', not 'PASS $id'"
	done <"$run/files.txt"
	rm -f "$run/release.tar.zst"
}

# rows: this program's rows in results.tsv.
rows() {
	local f id said tb ta kv ver sec v detail b
	while IFS= read -r f; do
		id=$(awk -v f="./$f" '$2 == f { print $1 }' "$run/inject.out")
		said=$(awk -F '\t' -v f="$f" '$1 == f { print $2 }' "$run/inject.tsv")
		tb=- ta=-
		b=${f#tests/}
		if [ "$b" != "$f" ]; then
			tb=$(tests_of "$run/before.units" "$b")
			ta=$(tests_of "$run/after.units" "$b")
		fi
		kv=no
		[ -n "$id" ] && [ "$(kernel_note "$run/tree/$f")" = "$id" ] && kv=yes
		ver=FAIL
		awk -v f="$run/tree/$f" '$1 == "PASS" && $2 == f { x = 1 } END { exit !x }' \
			"$run/verify.out" && ver=PASS
		sec=no
		grep -qxF "$f" "$run/second.txt" && sec=yes
		detail=$(awk -v f="$f: " 'index($0, f) == 1' "$run/problems.txt" | paste -s -d ';' -)
		v=pass
		[ -n "$detail" ] && v=FAIL
		printf '%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\n' "$p" \
			"$("${p}_module")" "$(go env GOVERSION)" "$f" "$(shape "$run/orig/$f")" \
			"$(stat -c %s "$run/orig/$f")" "$tb" "$ta" "${said:--}" "${id:--}" "$kv" "$ver" \
			"$sec" "$v" "$detail" >>"$work/results.tsv"
	done <"$run/files.txt"
}

# The programs linked as Bazel's rules_go links them (-buildid=redacted),
# one per program run: NAME<TAB>PROGRAM<TAB>PACKAGE<TAB>CGO_ENABLED.
bazel_programs() {
	printf 'nats-server\tnats\t.\t0\n'
	printf 'sqlite-simple\tsqlite\t./_example/simple\t1\n'
	printf 'gitaly-ssh\tgitaly\t./cmd/gitaly-ssh\t0\n'
}

# bazel PROGRAM...: two or more different programs linked with
# -ldflags=-buildid=redacted carry the same GNU id (readelf -n); show and
# verify call it constant; inject gives each its own content hash, seen by
# readelf, perf and the kernel's rule; --keep-constant-id keeps it.
bazel() {
	local p=bazel run=$work/runs/bazel n prog pkg cgo f c="" id ids=()
	rm -rf "$run" && mkdir -p "$run/orig" "$run/keep" && : >"$run/problems.txt" && : >"$run/files.txt"
	while IFS=$'\t' read -r n prog pkg cgo; do
		[[ " $* " == *" $prog "* ]] || continue
		(cd "$work/src/$prog" && CGO_ENABLED=$cgo GOPROXY=off go build -ldflags=-buildid=redacted \
			-o "$run/orig/bin/$n" "$pkg") >>"$run/build.log" 2>&1 ||
			{ problem "$n: go build -ldflags=-buildid=redacted failed"; continue; }
		[ "$(go tool buildid "$run/orig/bin/$n")" = redacted ] ||
			problem "bin/$n: go tool buildid does not print 'redacted'"
		echo "bin/$n" >>"$run/files.txt"
	done < <(bazel_programs)
	if [ "$(wc -l <"$run/files.txt")" -lt 2 ]; then
		say "bazel: fewer than two programs: skipped"
		printf 'skipped\t%s\t-\n' "$(paste -s -d ' ' "$run/files.txt")" >"$work/bazel.tsv"
		return 0
	fi
	while IFS= read -r f; do
		id=$(note_id "$run/orig/$f")
		[ -n "$c" ] || c=$id
		[ -n "$id" ] && [ "$id" = "$c" ] || problem "$f: readelf -n prints '$id', not the first program's $c"
		"$ebid" show "$run/orig/$f" >"$run/show.out" 2>&1 || problem "$f: show exited $?"
		grep -q '^ *gnu-build-id-constant: yes' "$run/show.out" || problem "$f: show does not call its id constant"
		if "$ebid" verify "$run/orig/$f" >"$run/verify0.out" 2>&1; then
			problem "$f: verify passes a constant id"
		else
			grep -q 'constant:' "$run/verify0.out" || problem "$f: verify fails, but not for the constant id"
		fi
	done <"$run/files.txt"
	cp -a "$run/orig" "$run/tree" && cp -a "$run/orig/bin" "$run/keep/" || return 2
	(cd "$run/tree" && "$ebid" inject -r -v .) >"$run/inject.out" 2>"$run/inject.err" ||
		problem "inject -r exited $?"
	inject_said "$run/inject.err" >"$run/inject.tsv"
	while IFS= read -r f; do
		id=$(awk -v f="./$f" '$2 == f { print $1 }' "$run/inject.out")
		[ "$id" != "$c" ] || problem "$f: inject kept the constant id"
		check_file "$f" "$id"
		ids+=("$id")
	done <"$run/files.txt"
	[ "$(printf '%s\n' "${ids[@]}" | sort -u | wc -l)" = "${#ids[@]}" ] ||
		problem "inject gave two programs the same id: ${ids[*]}"
	(cd "$run/keep" && "$ebid" inject -r -v --keep-constant-id .) >"$run/keep.out" 2>&1 ||
		problem "inject --keep-constant-id exited $?"
	while IFS= read -r f; do
		[ "$(note_id "$run/keep/$f")" = "$c" ] || problem "$f: --keep-constant-id did not keep $c"
		[ "$(kernel_note "$run/keep/$f")" = "$c" ] || problem "$f: --keep-constant-id: the kernel cannot see $c"
	done <"$run/files.txt"
	printf '%s\t%s\t%s\n' "$c" "$(paste -s -d ' ' "$run/files.txt")" "${ids[*]}" >"$work/bazel.tsv"
	[ -s "$run/problems.txt" ] && return 1
	say "bazel: $(wc -l <"$run/files.txt") programs linked with -buildid=redacted share $c; inject: ${ids[*]}"
}

main() {
	local sel=() a rc=0 t0 r
	for a in "$@"; do
		case "$a" in
		-h | --help)
			sed -n '3,40s/^# \{0,1\}//p' "$0"
			exit 0
			;;
		-*) die "unknown option '$a'" ;;
		*) declare -F "${a}_module" >/dev/null || die "unknown program '$a'"; sel+=("$a") ;;
		esac
	done
	[ ${#sel[@]} -gt 0 ] || sel=("${default_programs[@]}")
	[ -x "$ebid" ] || die "$ebid not built (run make)"
	for a in go readelf perf python3 cmp gcc; do
		command -v "$a" >/dev/null || die "$a not found"
	done
	# Cold: the cache was empty when this run started (what a fresh machine
	# or CI without a cache pays); the times of each program are in runs.tsv.
	cold=warm
	[ -n "$(ls -A "$GOMODCACHE" 2>/dev/null)" ] && [ -n "$(ls -A "$GOCACHE" 2>/dev/null)" ] || cold=cold
	mkdir -p "$work/runs" || die "cannot create $work"
	printf 'program\tmodule\tgo\tfile\tshape\tsize\ttests_before\ttests_after\tinject_said\tid\tkernel_visible\tverify\tsecond_inject_noop\tverdict\tdetail\n' \
		>"$work/results.tsv"
	printf 'program\tmodule\tcache\tfetch_s\tbuild_s\ttests_before\ttests_after\tverdict\tproblems\n' \
		>"$work/runs.tsv"
	: >"$work/bazel.tsv"
	rm -f "$work/bench.tsv"
	t0=$(date +%s)
	for a in "${sel[@]}"; do
		run_program "$a"
		r=$?
		[ "$r" = 2 ] && die "$a: setup failed"
		[ "$r" = 0 ] || rc=1
	done
	bazel "${sel[@]}"
	r=$?
	[ "$r" = 2 ] && die "bazel: setup failed"
	[ "$r" = 0 ] || rc=1
	if [ "${EBID_SEED_BENCH:-1}" != 0 ] && [[ " ${sel[*]} " == *" gitaly "* ]]; then
		EBID=$ebid EBID_SEED=$work EBID_SEED_CACHE=$cache "$top/scripts/seed-bench"
		r=$?
		[ "$r" = 2 ] && die "seed-bench: setup failed"
		[ "$r" = 0 ] || rc=1
	else
		say "seed-bench: skipped (EBID_SEED_BENCH=0 or gitaly not built)"
	fi
	python3 "$top/scripts/seed-render.py" "$work" "$(($(date +%s) - t0))" >"$work/results.md" ||
		die "seed-render.py failed"
	cat "$work/results.md"
	say "$cold cache: $(($(date +%s) - t0)) s in all"
	[ "$rc" = 0 ] && say "all checks passed" || say "FAILED: see $work/runs/*/problems.txt"
	return "$rc"
}

main "$@"
