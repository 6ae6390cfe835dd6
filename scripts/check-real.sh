#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# make check-real: builds real C projects from Debian's source packages
# with their own upstream build systems (no debian/rules), links them with
# each of four linkers and -Wl,--build-id=none, runs `elf-buildid inject -r`
# over the build tree and their own test suites before and after it,
# without relinking.
#
# For each (project, linker) it checks, and fails (exit 1) when one does not
# hold: every test that passed before passes after; every program and
# library the tests ran or loaded from the tree carries the id inject
# printed (LD_DEBUG=files); no ELF file changed during the tests (nothing
# was relinked); eu-elflint --gnu-ld says nothing new; strip (on a copy)
# keeps the id; perf buildid-list -i and readelf -n print it; a second
# inject -r changes no byte; a refused file is byte-identical to its input.
# Refusals themselves are allowed and recorded with their message.
#
# Usage: scripts/check-real.sh [PROJECT[:LINKER,...]]...
#   default: zlib expat pcre2:lld,mold (a project alone: all four linkers)
# Environment: EBID (the tool, default build/elf-buildid), EBID_REAL
#   (work directory, default build/real), EBID_REAL_JOBS (make -j, default
#   the number of CPUs), EBID_REAL_PRESERVE=0 (inject without
#   --preserve-times: make then relinks, and the run must fail).
# Output: build/real/results.tsv (one row per ELF file), results.md (the
#   table for docs/compatibility.md), runs/PROJECT-LINKER/ (logs, the
#   files before inject in orig/, after it in injected/), src/ (the Debian
#   source packages, fetched once with apt-get source --download-only).
set -u
set -o pipefail
# The projects' own makes answer to this script, not to a make that started
# it: `make check-real V=1 CFLAGS=...` must not reach pcre2's Makefile.
unset MAKEFLAGS MFLAGS MAKELEVEL MAKEOVERRIDES

top=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
ebid=$(realpath "${EBID:-$top/build/elf-buildid}")
work=$(realpath -m "${EBID_REAL:-$top/build/real}")
jobs=${EBID_REAL_JOBS:-$(nproc)}
me=check-real
linkers=(bfd gold lld mold)
# The default runs: every project, every linker, and each linker's shared
# libraries (libz, libexpat, libpcre2-8 and -posix) loaded by the tests. pcre2
# runs with lld and mold only (insert-gap and move-head on real libraries):
# its suite is three quarters of the time (`REAL=pcre2` runs all four).
default_runs=(zlib expat "pcre2:lld,mold")
# What a build-tree injection must use: without it a library stamped after
# the programs linked against it is newer than they are, and the test
# suite's make relinks them (zlib's examplesh, measured).
# EBID_REAL_PRESERVE=0 leaves it out, to see the relink check fire.
inject=("$ebid" inject -r -v --preserve-times)
[ "${EBID_REAL_PRESERVE:-1}" = 0 ] && inject=("$ebid" inject -r -v)

say() { echo "$me: $*" >&2; }
die() {
	say "$*"
	exit 2
}

. "$top/scripts/real-projects.sh"

# fetch PROJECT: the Debian source package, downloaded once into src/ and
# unpacked once (dpkg-source checks it against the .dsc) into
# src/PROJECT.tree, with Debian's patches unless PROJECT_unpack_opts says
# --skip-patches.
fetch() {
	local p=$1 pkg dsc
	pkg=$("${p}_package")
	[ -f "$work/src/$p.tree/.unpacked" ] && return 0
	mkdir -p "$work/src" || return 1
	dsc=$(ls "$work/src/${pkg}"_*.dsc 2>/dev/null | sort -V | tail -n 1)
	if [ -z "$dsc" ]; then
		(cd "$work/src" && apt-get source --download-only "$pkg") \
			>"$work/src/$pkg.fetch.log" 2>&1 ||
			{ say "apt-get source $pkg failed: $work/src/$pkg.fetch.log"; return 1; }
		dsc=$(ls "$work/src/${pkg}"_*.dsc | sort -V | tail -n 1)
	fi
	rm -rf "$work/src/$p.tree"
	# shellcheck disable=SC2046 # the options are zero or more words
	dpkg-source -x $("${p}_unpack_opts") "$dsc" "$work/src/$p.tree" \
		>"$work/src/$pkg.unpack.log" 2>&1 ||
		{ say "dpkg-source -x $dsc failed"; return 1; }
	touch "$work/src/$p.tree/.unpacked"
}

# compile PROJECT: configure and compile once, into $work/PROJECT; kept
# while the compiler and the projects' recipes stay the same.
compile() {
	local p=$1 dir=$work/$1 stamp
	stamp="$(gcc --version | head -n 1) $(sha256sum <"$top/scripts/real-projects.sh")"
	if [ -f "$dir/.compiled" ] && [ "$(cat "$dir/.compiled")" = "$stamp" ]; then
		return 0
	fi
	rm -rf "$dir"
	cp -a "$work/src/$p.tree" "$dir" || return 1
	(cd "$dir" && "${p}_configure" && "${p}_link" "-fuse-ld=bfd -Wl,--build-id=none") \
		>"$work/$p.compile.log" 2>&1 || { say "$p: build failed: $work/$p.compile.log"; return 1; }
	echo "$stamp" >"$dir/.compiled"
}

# elf_files DIR: the linked ELF files under DIR (executables and shared
# objects, not object files, not symlinks), relative, sorted.
elf_files() {
	python3 - "$1" <<'EOF'
import os, sys
top = sys.argv[1]
out = []
for d, dirs, files in os.walk(top):
    for f in files:
        p = os.path.join(d, f)
        if os.path.islink(p) or not os.path.isfile(p):
            continue
        with open(p, "rb") as fh:
            h = fh.read(18)
        if len(h) == 18 and h[:4] == b"\x7fELF" and h[5] == 1 and \
                int.from_bytes(h[16:18], "little") in (2, 3):
            out.append(os.path.relpath(p, top))
print("\n".join(sorted(out)))
EOF
}

# relink PROJECT LINKER: drop what the last link made (ELF programs and
# libraries, libtool's .la files and wrapper scripts) and link again with
# LINKER; the objects stay.
relink() {
	local p=$1 l=$2 dir=$work/$1 tree f
	tree=$dir/$("${p}_tree")
	while IFS= read -r f; do
		[ -n "$f" ] && rm -f "$tree/$f"
	done < <(elf_files "$tree")
	find "$tree" -name '*.la' -type f -delete
	# libtool's wrapper scripts (not ltmain.sh, which writes them).
	find "$tree" -type f -perm -u+x -size -200k -exec \
		grep -l -E '^# .* - temporary wrapper script for \.libs/' {} + | xargs -r rm -f
	(cd "$dir" && "${p}_link" "-fuse-ld=$l -Wl,--build-id=none")
}

# linked_by FILE: which linker made FILE, from what each leaves behind.
linked_by() {
	local c
	c=$(readelf -p .comment "$1" 2>/dev/null)
	if grep -q 'Linker: .*LLD' <<<"$c"; then
		echo lld
	elif grep -q 'mold' <<<"$c"; then
		echo mold
	elif readelf -S -W "$1" 2>/dev/null | grep -q '\.note\.gnu\.gold-version'; then
		echo gold
	else
		echo bfd
	fi
}

# kind FILE: exe (it has a PT_INTERP, or is ET_EXEC) or lib.
kind() {
	if readelf -h "$1" 2>/dev/null | grep -q 'Type: *EXEC' ||
		readelf -l -W "$1" 2>/dev/null | grep -q ' INTERP '; then
		echo exe
	else
		echo lib
	fi
}

note_id() { readelf -n "$1" 2>/dev/null | sed -n 's/^ *Build ID: *//p' | head -n 1; }

# elflint FILE: eu-elflint's messages, one a line, with section and
# program header numbers written N: a section or PT_NOTE added by inject
# renumbers those after it (mold's NOBITS sections have sh_offset 0, so
# eu-elflint finds them "read from the file" in the first PT_LOAD, entry 3
# before inject and 4 after it); the message itself must stay the same.
elflint() {
	eu-elflint --gnu-ld "$1" 2>&1 | sed -E -e 's/section \[ *[0-9]+\]/section [N]/g' \
		-e 's/program header entry [0-9]+/program header entry N/g' | sort
}

# problem TEXT: record a failed check of the current run.
problem() {
	echo "$*" >>"$run/problems.txt"
	say "$cur: FAIL: $*"
}

# inject_results LOG: FILE<TAB>what inject said of it, from inject -v's
# stderr (`elf-buildid: './FILE': injected (words)`, or the refusal).
inject_results() {
	sed -n -E "s|^elf-buildid: '\./(.*)': (.*)$|\1\t\2|p" "$1" | grep -v -P '\tskipped: '
}

# strategy WHAT: the placement words of `injected (w,w,...)`, joined by +;
# a refusal is `refused: MESSAGE`.
strategy() {
	case "$1" in
	injected\ \(*)
		tr ',()' '\n\n\n' <<<"${1#injected }" |
			grep -x -E 'add-note|extend-pt|add-pt-note|move-note|insert-gap|move-head' |
			paste -s -d + -
		;;
	*': '*) echo "refused: ${1#*: }" ;;
	*) echo "$1" ;;
	esac
}

# loaded_files TREE DIR: the files under TREE that the tests ran or loaded,
# from the dynamic loader's LD_DEBUG=files logs in DIR: libraries by the
# path they were loaded from, programs by name (relative to the test's own
# directory, which the log does not give) among TREE's ELF files.
loaded_files() {
	local tree=$1 dir=$2
	cat "$dir"/ld.* 2>/dev/null | sed -n -E \
		-e 's/^ *[0-9]+:[[:space:]]+calling init: (\/.*)$/L \1/p' \
		-e 's/^ *[0-9]+:[[:space:]]+initialize program: (.*)$/P \1/p' | sort -u |
		while read -r k f; do
			if [ "$k" = L ]; then
				f=$(realpath -e "$f" 2>/dev/null) || continue
				case "$f" in "$tree"/*) echo "${f#"$tree"/}" ;; esac
			else
				grep -E "(^|/)$(basename "$f")\$" "$run/elfs.txt"
			fi
		done | sort -u
}

# check_file FILE ID STRATEGY: the checks of one injected file.
check_file() {
	local f=$1 id=$2 st=$3 tree=$4 tmp a b
	if [ "${st#refused}" != "$st" ]; then
		cmp -s "$tree/$f" "$run/orig/$f" || problem "$f: refused but changed (damaged)"
		return
	fi
	[ -n "$id" ] || { problem "$f: inject printed no id"; return; }
	[ "$(note_id "$tree/$f")" = "$id" ] || problem "$f: readelf -n does not print $id"
	a=$(perf buildid-list -i "$tree/$f" 2>/dev/null | awk '{ print $1 }')
	[ "$a" = "$id" ] || problem "$f: perf buildid-list -i prints '$a', not $id"
	tmp=$run/strip.tmp
	strip -o "$tmp" "$tree/$f" 2>>"$run/strip.log" || problem "$f: strip failed"
	a=$(note_id "$tmp")
	[ "$a" = "$id" ] || problem "$f: after strip (of a copy) readelf -n prints '$a', not $id"
	rm -f "$tmp"
	a=$run/elflint-before/${f//\//%}
	b=$run/elflint-after/${f//\//%}
	elflint "$tree/$f" >"$b"
	if [ -n "$(comm -13 "$a" "$b")" ]; then
		problem "$f: new eu-elflint --gnu-ld messages: $(comm -13 "$a" "$b" | paste -s -d ';' -)"
	fi
}

# before_inject TREE: what the files are before inject: linked by the
# linker asked for, no id yet, eu-elflint's messages, a copy in orig/.
before_inject() {
	local tree=$1 f by
	mkdir -p "$run/elflint-before" "$run/elflint-after"
	while IFS= read -r f; do
		by=$(linked_by "$tree/$f")
		[ "$by" = "$linker" ] || problem "$f: linked by $by, not $linker (LDFLAGS did not reach it)"
		[ -z "$(note_id "$tree/$f")" ] || problem "$f: has a build-id before inject (--build-id=none did not reach it)"
		elflint "$tree/$f" >"$run/elflint-before/${f//\//%}"
		mkdir -p "$run/orig/$(dirname "$f")"
		cp -p "$tree/$f" "$run/orig/$f"
	done <"$run/elfs.txt"
}

# compare_units: every unit that passed before passes after, and the finer
# count stays.
compare_units() {
	local u
	while read -r u; do
		grep -qxF "PASS $u" "$run/after.units" || problem "test '$u' passed before inject, not after"
	done < <(sed -n 's/^PASS //p' "$run/before.units")
	[ "$(grep '^CHECKS' "$run/before.units")" = "$(grep '^CHECKS' "$run/after.units")" ] ||
		problem "checks before/after differ: $(grep '^CHECKS' "$run/before.units") / $(grep '^CHECKS' "$run/after.units")"
	grep -q '^PASS ' "$run/before.units" || problem "no test passed before inject: the suite did not run"
}

# tests_summary UNITS: `P/N` units passed, with `, C checks` when counted.
tests_summary() {
	local p n c
	p=$(grep -c '^PASS ' "$1")
	n=$(grep -c -E '^(PASS|FAIL) ' "$1")
	c=$(sed -n 's/^CHECKS //p' "$1")
	echo "$p/$n${c:+ ($c checks)}"
}

# run_one PROJECT LINKER: link, test, inject, test again, check.
run_one() {
	local project=$1 linker=$2 tree ldf
	local cur=$1-$2 run=$work/runs/$1-$2 t0=$SECONDS
	tree=$(realpath "$work/$project/$("${project}_tree")")
	ldf="-fuse-ld=$linker -Wl,--build-id=none"
	rm -rf "$run" && mkdir -p "$run/lddebug" && : >"$run/problems.txt"
	say "$cur: link"
	relink "$project" "$linker" >"$run/link.log" 2>&1 || problem "link failed: $run/link.log"
	elf_files "$tree" >"$run/elfs.txt"
	[ -s "$run/elfs.txt" ] || problem "no ELF file in $tree"
	if [ -s "$run/problems.txt" ]; then verdict_row; return 1; fi
	say "$cur: tests before inject ($(wc -l <"$run/elfs.txt") ELF files)"
	(cd "$work/$project" && "${project}_test" "$ldf" "$run/before")
	before_inject "$tree"
	say "$cur: inject"
	(cd "$tree" && "${inject[@]}" .) >"$run/inject.out" 2>"$run/inject.err"
	echo "$?" >"$run/inject.rc"
	inject_results "$run/inject.err" >"$run/inject.tsv"
	(cd "$tree" && xargs -d '\n' sha256sum <"$run/elfs.txt") >"$run/injected.sha256"
	mkdir -p "$run/injected" &&
		(cd "$tree" && xargs -d '\n' cp -p --parents -t "$run/injected" <"$run/elfs.txt")
	say "$cur: tests after inject"
	(cd "$work/$project" && LD_DEBUG=files LD_DEBUG_OUTPUT=$run/lddebug/ld \
		"${project}_test" "$ldf" "$run/after")
	(cd "$tree" && sha256sum --quiet -c "$run/injected.sha256") >"$run/relinked.txt" 2>&1 ||
		problem "ELF files changed while the tests ran (relinked or rebuilt): $(paste -s -d ' ' "$run/relinked.txt")"
	compare_units
	loaded_files "$tree" "$run/lddebug" >"$run/loaded.txt"
	rm -rf "$run/lddebug"
	check_all "$tree"
	second_inject "$tree"
	verdict_row
	[ ! -s "$run/problems.txt" ]
}

# check_all TREE: check_file for every ELF file, and that each file the
# tests loaded carries the id inject printed for it.
check_all() {
	local tree=$1 f st id
	while IFS= read -r f; do
		st=$(strategy "$(awk -F '\t' -v f="$f" '$1 == f { print $2 }' "$run/inject.tsv")")
		[ -n "$st" ] || problem "$f: inject said nothing about it"
		id=$(awk -v f="./$f" '$2 == f { print $1 }' "$run/inject.out")
		check_file "$f" "$id" "$st" "$tree"
		if grep -qxF "$f" "$run/loaded.txt" && [ -n "$id" ] &&
			[ "$(note_id "$tree/$f")" != "$id" ]; then
			problem "$f: the tests loaded it without the injected id"
		fi
		printf '%s\t%s\t%s\t%s\t%s\n' "$f" "$(kind "$tree/$f")" "$(linked_by "$tree/$f")" \
			"$st" "${id:--}" >>"$run/files.tsv"
	done <"$run/elfs.txt"
}

# second_inject TREE: inject -r again changes no byte of any file.
second_inject() {
	local tree=$1 f
	(cd "$tree" && "${inject[@]}" .) >"$run/inject2.out" 2>"$run/inject2.err"
	while IFS= read -r f; do
		cmp -s "$tree/$f" "$run/injected/$f" || problem "$f: changed by a second inject -r"
	done <"$run/elfs.txt"
}

# verdict_row: this run's rows in results.tsv and runs.tsv.
verdict_row() {
	local tb=- ta=- v=pass detail f k by st id l lo
	[ -f "$run/before.units" ] && tb=$(tests_summary "$run/before.units")
	[ -f "$run/after.units" ] && ta=$(tests_summary "$run/after.units")
	[ -s "$run/problems.txt" ] && v=FAIL
	detail=$(paste -s -d ';' "$run/problems.txt")
	if [ -f "$run/files.tsv" ]; then
		while IFS=$'\t' read -r f k by st id; do
			l=pass
			awk -v f="$f: " 'index($0, f) == 1 { x = 1 } END { exit !x }' "$run/problems.txt" && l=FAIL
			grep -qxF "$f" "$run/loaded.txt" && lo=yes || lo=no
			printf '%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\n' "$project" "$linker" \
				"$f" "$k" "$by" "$st" "$id" "$tb" "$ta" "$lo" "$l" \
				"$(awk -v f="$f: " 'index($0, f) == 1' "$run/problems.txt" | paste -s -d ';' -)" \
				>>"$work/results.tsv"
		done <"$run/files.tsv"
	fi
	printf '%s\t%s\t%s\t%s\t%s\t%s\t%s\n' "$project" "$linker" "$tb" "$ta" "$v" \
		"$((SECONDS - t0))" "$detail" >>"$work/runs.tsv"
}


main() {
	local sel=() a p ls l rc=0 t0 load0
	for a in "$@"; do
		case "$a" in
		-h | --help)
			sed -n '3,27s/^# \{0,1\}//p' "$0"
			exit 0
			;;
		-*) die "unknown option '$a'" ;;
		*) sel+=("$a") ;;
		esac
	done
	[ ${#sel[@]} -gt 0 ] || sel=("${default_runs[@]}")
	[ -x "$ebid" ] || die "$ebid not built (run make)"
	mkdir -p "$work/runs" || die "cannot create $work"
	printf 'project\tlinker\tfile\tkind\tlinked_by\tstrategy\tid\ttests_before\ttests_after\tloaded_by_tests\tverdict\tdetail\n' \
		>"$work/results.tsv"
	: >"$work/runs.tsv"
	t0=$(date +%s)
	load0=$(cut -d ' ' -f 1-3 /proc/loadavg)
	for a in "${sel[@]}"; do
		p=${a%%:*}
		ls=${a#*:}
		[ "$ls" = "$a" ] && ls=$(IFS=,; echo "${linkers[*]}")
		declare -F "${p}_package" >/dev/null || die "unknown project '$p'"
		say "$p: fetch and compile"
		fetch "$p" && compile "$p" || { rc=1; continue; }
		for l in ${ls//,/ }; do
			run_one "$p" "$l" || rc=1
		done
	done
	python3 "$top/scripts/real-render.py" "$work" "$(($(date +%s) - t0))" "$load0" \
		>"$work/results.md"
	cat "$work/results.md"
	[ "$rc" = 0 ] && say "all runs passed" || say "FAILED: see $work/runs/*/problems.txt"
	return "$rc"
}

main "$@"
