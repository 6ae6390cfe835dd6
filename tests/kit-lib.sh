# SPDX-License-Identifier: MIT
# Helpers for the packaging and tree tests (t05NN); source after lib.sh.
# Not a test itself (tests/run.sh runs only tNNNN-*.sh).
# shellcheck shell=bash

# kit_prelude: the kit's Debian packages (a skip when missing: `make test`
# installs them) and its fixtures (a failure: they are ours to build).
# Sets $KIT.
kit_prelude() {
	require_deps kit
	if ! build_locked kit "$TOP/scripts/build-kit-fixtures.sh" >"$SCRATCH/.kitfix.log" 2>&1; then
		echo "not ok 1 - scripts/build-kit-fixtures.sh failed: $(tail -n 3 "$SCRATCH/.kitfix.log")"
		exit 1
	fi
	KIT=$FIXTURES/kit
	require_fixtures plain pie kit/hello-arm64 kit/cprog kit/cprog-noroom kit/libkit.so.1 kit/kitobj.o
}

# make_app_tree DIR: an install tree as a package build leaves it (amd64
# only: the split flow runs the host's binutils).
#   bin/hello        Go program (no GNU id yet)
#   bin/hello-hl     hard link of bin/hello
#   bin/hello-link   symlink to hello (in the tree)
#   bin/outside      symlink to an ELF file outside the tree
#   bin/cprog        C program with ld's build-id, -g
#   bin/run.sh       shell script
#   lib/libkit.so.1  C shared library, -g;  lib/libkit.so -> libkit.so.1
#   share/data.txt   data
make_app_tree() {
	local d=$1
	rm -rf "$d"
	mkdir -p "$d/bin" "$d/lib" "$d/share"
	cp "$FIXTURES/plain" "$d/bin/hello"
	ln "$d/bin/hello" "$d/bin/hello-hl"
	ln -s hello "$d/bin/hello-link"
	mkdir -p "$SCRATCH/outside"
	cp "$FIXTURES/pie" "$SCRATCH/outside/elsewhere"
	ln -s "$SCRATCH/outside/elsewhere" "$d/bin/outside"
	cp "$KIT/cprog" "$d/bin/cprog"
	printf '#!/bin/sh\nexec "$(dirname "$0")/hello" "$@"\n' >"$d/bin/run.sh"
	cp "$KIT/libkit.so.1" "$d/lib/libkit.so.1"
	ln -s libkit.so.1 "$d/lib/libkit.so"
	echo "some data" >"$d/share/data.txt"
	chmod -R u+w "$d"
	chmod +x "$d/bin/run.sh"
}

# The ELF files of make_app_tree that get ids and debug files.
APP_ELVES=(bin/hello bin/cprog lib/libkit.so.1)

# tree_state DIR: every path with type, inode, link count, mtime and size
# (and symlink target), sorted: equal states mean nothing was rewritten.
tree_state() {
	(cd "$1" && find . -printf '%p %y %i %n %T@ %s %l\n' | sort)
}

# check_split_tree TREE DEBUG_DIR: the packaging flow's result, judged with
# readelf, ebid.py and gdb: for each of APP_ELVES the stripped binary and
# its debug file carry the same id, the id is kernel-visible, the debug
# file sits at DEBUG_DIR/.build-id/xx/rest.debug with the DWARF, the
# symlink .build-id/xx/rest leads to the binary, and gdb loads the debug
# file by id. Fails the current block with the reasons.
check_split_tree() {
	local tree=$1 dbg=$2 rel f id want n
	for rel in "${APP_ELVES[@]}"; do
		f=$tree/$rel
		id=$(readelf_ids "$f")
		if [ -z "$id" ]; then
			t_fail "$rel: no build-id after the flow"
			continue
		fi
		expect_eq "$rel: ebid.py kernel (stripped binary)" "$(py_kernel "$f")" "$id"
		n=$(readelf -SW "$f" 2>/dev/null | grep -cE ' \.(z?debug_info|debug_line) ')
		expect_eq "$rel: .debug_info/.debug_line sections left after strip" "$n" 0
		readelf -SW "$f" 2>/dev/null | grep_q ' \.gnu_debuglink ' ||
			t_fail "$rel: no .gnu_debuglink section"
		want=$dbg/.build-id/${id:0:2}/${id:2}.debug
		if [ ! -f "$want" ]; then
			t_fail "$rel: no debug file at $want"
			continue
		fi
		expect_eq "$rel: id of the debug file" "$(readelf_ids "$want")" "$id"
		readelf -SW "$want" 2>/dev/null | grep_q -E ' \.z?debug_info ' ||
			t_fail "$rel: debug file $want has no .debug_info"
		expect_eq "$rel: .build-id/xx/rest leads to the binary" \
			"$(stat -L -c %i "$dbg/.build-id/${id:0:2}/${id:2}" 2>&1)" "$(stat -c %i "$f")"
	done
	# gdb, reading only by id: the debug files are not next to the binaries.
	gdb_line "$tree/bin/cprog" "$dbg" kit_answer
	expect_match "gdb: cprog's kit_answer via the debug file" "$gdb_out" \
		'^Line [0-9]+ of ".*prog\.c"'
	gdb_line "$tree/bin/hello" "$dbg" main.spinHotLoop
	expect_match "gdb: hello's main.spinHotLoop via the debug file" "$gdb_out" \
		'^Line [0-9]+ of ".*main\.go"'
	gdb_line "$tree/lib/libkit.so.1" "$dbg" kit_lib_version
	expect_match "gdb: libkit's kit_lib_version via the debug file" "$gdb_out" \
		'^Line [0-9]+ of ".*libkit\.c"'
	# Control: without the debug directory gdb has no line numbers.
	gdb_line "$tree/bin/cprog" "$SCRATCH/no-such-debug-dir" kit_answer
	expect_match "gdb control (no debug dir)" "$gdb_out" '^No line number information'
}

# gdb_line BIN DEBUG_DIR FUNCTION: sets $gdb_out to gdb's "info line" answer.
# -iex: the directory must be set before gdb loads BIN.
gdb_line() {
	gdb_out=$(gdb -nx -batch -iex "set debug-file-directory $2" \
		-ex "info line $3" "$1" 2>/dev/null | grep -E '^(Line|No line)' | head -n 1)
}
