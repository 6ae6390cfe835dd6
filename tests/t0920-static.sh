#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# tier: slow (the static build)
# make STATIC=1 (issue 14, item 3): build/static/elf-buildid is one fully
# static file. It is built here (under a lock, into build/static/, never
# over the dynamic build/elf-buildid), then copied with two Go fixtures,
# and nothing else, into an empty directory and run there under chroot:
# no libc, no /proc, no /sys, no perf, no OpenSSL configuration or
# modules. inject and verify must work there for every hash, and give
# byte for byte what the dynamic build gives on the host. /proc is
# mounted (in a private mount namespace) only for the blocks that say
# what needs it: `link` (the path of a held descriptor, from
# /proc/self/fd) and the lock holder's pid in a timeout message
# (/proc/locks).
. "$(dirname "$0")/lib.sh"
require_tool
require_fixtures plain pie
require_deps base static

STATIC=$TOP/build/static/elf-buildid
ROOT=$SCRATCH/root

# The binary under test may itself be a static build (make test
# STATIC=1): then there is no dynamic build to compare with.
dyn_why=
if ! readelf -lW "$EBID" 2>/dev/null | grep_q 'INTERP'; then
	dyn_why="$EBID is not dynamically linked (make test STATIC=1?): nothing to compare with"
fi
root_why=
[ "$(id -u)" = 0 ] || root_why="chroot and mount need root"
proc_why=$root_why
# env -i empties PATH: chroot is named by its path.
CHROOT=$(command -v chroot)

# in_root ARGS...: run the static binary in the empty root, with an
# environment of our choosing only. Sets $rc, $out, $err.
in_root() { run env -i LC_ALL=C "$CHROOT" "$ROOT" /elf-buildid "$@"; }

# with_proc ARGS...: the same with /proc mounted in the root, in a mount
# namespace of its own (gone when the command ends).
with_proc() {
	run unshare -m sh -c 'mount -t proc proc "$1/proc" && shift && exec env -i LC_ALL=C "$0" "$@"' \
		"$CHROOT" "$ROOT" "$ROOT" /elf-buildid "$@"
}

t_begin "make STATIC=1 builds build/static/elf-buildid, not over build/elf-buildid"
before=$(file_state "$TOP/build/elf-buildid" 2>/dev/null)
# Not the make that runs the tests: its MAKEFLAGS would pass SANITIZE=...
# (make test SANITIZE=...) to this build.
build_locked static env -u MAKEFLAGS -u MFLAGS -u MAKELEVEL \
	make -C "$TOP" --no-print-directory STATIC=1 SANITIZE= all >"$SCRATCH/make.out" 2>&1
st=$?
expect_eq "make STATIC=1 exit status ($(tail -n 8 "$SCRATCH/make.out"))" "$st" 0
expect_true "no $STATIC after make STATIC=1" [ -x "$STATIC" ]
expect_eq "build/elf-buildid after make STATIC=1" \
	"$(file_state "$TOP/build/elf-buildid" 2>/dev/null)" "$before"
t_end
if [ ! -x "$STATIC" ]; then
	t_done
fi

t_begin "file says statically linked; no PT_INTERP, no dynamic section, no NEEDED"
expect_match "file" "$(file -b "$STATIC")" '(^|, )statically linked(,|$)'
run readelf -lW "$STATIC"
expect_eq "readelf -l exit status" "$rc" 0
expect_false "PT_INTERP in the static binary: $(grep INTERP <<<"$out")" grep -q INTERP <<<"$out"
expect_exit 0 readelf -dW "$STATIC"
expect_match "readelf -d" "$out" 'There is no dynamic section'
expect_false "NEEDED in the static binary: $out" grep -q NEEDED <<<"$out"
t_end

# The link warns about dlopen, getaddrinfo and gethostbyname in
# libcrypto.a (mk/static.mk): calls a static glibc binary can only make
# through the host's shared libraries. Our own code must add none.
t_begin "our objects call nothing that a static glibc binary needs shared libraries for"
mapfile -t objs < <(find "$TOP/build/static/obj" -name '*.o' | sort)
run nm -u "${objs[@]}"
expect_eq "nm -u exit status" "$rc" 0
expect_match "nm -u lists the OpenSSL calls (is it reading the objects?)" "$out" ' U EVP_DigestInit_ex$'
bad=$(grep -Ew 'U (dlopen|dlmopen|getaddrinfo|gethostbyname2?|gethostbyname_r|gethostbyaddr|getnameinfo|getpw(nam|uid|ent)(_r)?|getgr(nam|gid|ent)(_r)?|getgrouplist|initgroups|getspnam|getserv(byname|byport)|getprotobyname|getnetbyname|iconv_open)' <<<"$out")
expect_eq "NSS, dlopen or iconv calls in build/static/obj" "$bad" ""
t_end

size=$(stat -c %s "$STATIC")
strip -o "$SCRATCH/stripped" "$STATIC" 2>/dev/null
echo "# static binary: $size bytes, $(stat -c %s "$SCRATCH/stripped" 2>/dev/null) stripped"

t_begin "the root holds the binary and two fixtures, nothing else; a dynamic binary cannot start there"
t_skip_if "$root_why"
if [ -z "$root_why" ]; then
	mkdir -p "$ROOT" && cp "$STATIC" "$ROOT/elf-buildid" &&
		cp "$FIXTURES/plain" "$ROOT/plain" && cp "$FIXTURES/pie" "$ROOT/pie"
	# Can /proc be mounted in a mount namespace of our own here?
	mkdir "$ROOT/proc"
	proc_why=$(unshare -m sh -c 'mount -t proc proc "$1" && umount "$1"' sh "$ROOT/proc" 2>&1) ||
		proc_why="cannot mount proc here: ${proc_why:-unshare -m failed}"
	rmdir "$ROOT/proc"
	expect_eq "files in the root" "$(cd "$ROOT" && find . | sort | tr '\n' ' ')" \
		". ./elf-buildid ./pie ./plain "
	# Without a loader and libc there, the dynamic build fails to start:
	# the root really is empty of what a dynamic binary needs.
	if [ -z "$dyn_why" ]; then
		cp "$EBID" "$ROOT/dynamic"
		run env -i "$CHROOT" "$ROOT" /dynamic --version
		expect_eq "exit status of the dynamic build in the root" "$rc" 127
		expect_match "why it did not start" "$err" "failed to run command '/dynamic': No such file or directory"
		rm -f "$ROOT/dynamic"
	fi
fi
t_end

t_begin "--version in the root, the same as the dynamic build's"
t_skip_if "$root_why"
if [ -z "$root_why" ]; then
	in_root --version
	expect_eq "exit status" "$rc" 0
	# scripts/version.sh's rule: RELEASE, then ~git/+git, time and commit,
	# then .dirty, each when it applies.
	expect_match "--version" "$out" '^elf-buildid [0-9]+\.[0-9]+\.[0-9]+([~+]git[0-9]{14}\.[0-9a-f]{12})?(\.dirty)?$'
	expect_eq "--version of build/elf-buildid" "$out" "$("$EBID" --version)"
fi
t_end

# Every hash: inject -o in the root, verify there, and the same input
# through the dynamic build on the host: the same id, the same bytes.
for alg in sha1 sha256 md5 sha1-tree; do
	t_begin "inject --hash=$alg and verify in the root; the output is byte-identical to the dynamic build's"
	t_skip_if "$root_why"
	if [ -z "$root_why" ]; then
		in_root inject --hash="$alg" -o "/out-$alg" /plain
		expect_eq "inject exit status (stderr: $err)" "$rc" 0
		parse_id_line "$out" "/out-$alg"
		sid=$id
		expect_eq "id length" "${#sid}" "$([ "$alg" = md5 ] && echo 32 || echo 40)"
		expect_eq "readelf's id of the static build's output" "$(readelf_ids "$ROOT/out-$alg")" "$sid"
		if [ "$alg" != sha1-tree ]; then
			expect_eq "ebid.py's id" "$(py_id "$ROOT/out-$alg" --hash="$alg")" "$sid"
		fi
		# No perf in the root: --perf=auto (the default) skips its check
		# and says so; --content-hash recomputes the id there.
		in_root verify --content-hash --hash="$alg" "/out-$alg"
		expect_eq "verify exit status (stderr: $err)" "$rc" 0
		expect_eq "verify" "$out" "PASS  /out-$alg  $sid"
		expect_match "verify's note on stderr" "$err" 'perf check skipped: perf is not installed'
		if [ -z "$dyn_why" ]; then
			expect_exit 0 "$EBID" inject --hash="$alg" -o "$SCRATCH/dyn-$alg" "$FIXTURES/plain"
			parse_id_line "$out" "$SCRATCH/dyn-$alg"
			expect_eq "dynamic build's id" "$id" "$sid"
			expect_same_file "static and dynamic outputs" "$ROOT/out-$alg" "$SCRATCH/dyn-$alg"
		fi
	fi
	t_end
done

t_begin "reserve then backfill in the root give inject's bytes; show reads the id"
t_skip_if "$root_why"
if [ -z "$root_why" ]; then
	cp "$FIXTURES/plain" "$ROOT/rb"
	in_root reserve /rb
	expect_eq "reserve (stderr: $err)" "$rc $out" "0 $ZERO_ID  /rb"
	in_root backfill /rb
	expect_eq "backfill exit status (stderr: $err)" "$rc" 0
	expect_same_file "reserve + backfill against inject" "$ROOT/rb" "$ROOT/out-sha1"
	in_root show /rb
	expect_eq "show exit status" "$rc" 0
	expect_match "show" "$out" "gnu-build-id: $(readelf_ids "$ROOT/out-sha1")"
	expect_match "show" "$out" 'kernel-visible: yes'
fi
t_end

t_begin "without perf, verify --perf=require fails and --perf=auto passes"
t_skip_if "$root_why"
if [ -z "$root_why" ]; then
	in_root verify --perf=require /out-sha1
	expect_eq "--perf=require exit status" "$rc" 1
	expect_match "--perf=require" "$out" '^FAIL  /out-sha1  perf: perf is not installed$'
	in_root verify --perf=auto /out-sha1
	expect_eq "--perf=auto exit status" "$rc" 0
fi
t_end

# Replacing files (temporary file, rename) and walking a tree with the
# default number of jobs: sysconf() finds neither /sys nor /proc here.
t_begin "inject -r in the root replaces both files as the dynamic build does"
t_skip_if "$root_why"
if [ -z "$root_why" ]; then
	mkdir -p "$ROOT/tree/sub" "$SCRATCH/tree/sub"
	cp "$FIXTURES/plain" "$ROOT/tree/sub/a"
	cp "$FIXTURES/pie" "$ROOT/tree/b"
	cp "$FIXTURES/plain" "$SCRATCH/tree/sub/a"
	cp "$FIXTURES/pie" "$SCRATCH/tree/b"
	in_root inject -r /tree
	expect_eq "inject -r exit status (stderr: $err)" "$rc" 0
	expect_eq "lines printed" "$(wc -l <<<"$out")" 2
	in_root verify -r /tree
	expect_eq "verify -r exit status" "$rc" 0
	if [ -z "$dyn_why" ]; then
		expect_exit 0 "$EBID" inject -q -r "$SCRATCH/tree"
		expect_same_file "tree/sub/a" "$ROOT/tree/sub/a" "$SCRATCH/tree/sub/a"
		expect_same_file "tree/b" "$ROOT/tree/b" "$SCRATCH/tree/b"
	fi
	expect_eq "files left in the root" "$(cd "$ROOT/tree" && find . | sort | tr '\n' ' ')" \
		". ./b ./sub ./sub/a "
fi
t_end

# The static binary reads no OpenSSL configuration (src/id/hash.c): one that
# activates a provider module would make it dlopen the module and the
# host's libcrypto.so and libc.so. This one names a provider that does not
# exist; OpenSSL then refuses every digest to a program that reads it.
cat >"$SCRATCH/bad.cnf" <<'EOF'
openssl_conf = openssl_init
config_diagnostics = 1
[openssl_init]
providers = provider_sect
[provider_sect]
nosuch = nosuch_sect
[nosuch_sect]
activate = 1
EOF
t_begin "OPENSSL_CONF is not read by the static binary"
t_skip_if "$root_why"
if [ -z "$root_why" ]; then
	cp "$SCRATCH/bad.cnf" "$ROOT/bad.cnf"
	run env -i LC_ALL=C OPENSSL_CONF=/bad.cnf "$CHROOT" "$ROOT" /elf-buildid inject -o /out-cnf /plain
	expect_eq "inject exit status with OPENSSL_CONF (stderr: $err)" "$rc" 0
	expect_same_file "output with OPENSSL_CONF" "$ROOT/out-cnf" "$ROOT/out-sha1"
	rm -f "$ROOT/bad.cnf"
	# The configuration is one that breaks a program that reads it;
	# otherwise the check above proves nothing.
	if [ -z "$dyn_why" ]; then
		run env OPENSSL_CONF="$SCRATCH/bad.cnf" "$EBID" inject -o "$SCRATCH/dyn-cnf" "$FIXTURES/plain"
		expect_eq "the dynamic build with bad.cnf (it should fail to hash)" "$rc" 2
		expect_match "the dynamic build's error" "$err" 'EVP_DigestInit_ex'
	fi
fi
t_end

# libdebuginfod is dlopen'ed by the dynamic build only (src/profile/
# debuginfod.c): the static one refuses --against-debuginfod up front
# rather than pass a gate that asked no server.
t_begin "verify --against-debuginfod in the static binary: exit 2, it cannot load libdebuginfod"
DEBUGINFOD_URLS=http://127.0.0.1:9 run "$STATIC" verify --perf=off --against-debuginfod "$FIXTURES/pie"
expect_eq "exit status" "$rc" 2
expect_eq "stderr" "$err" "elf-buildid: --against-debuginfod: the static build cannot load libdebuginfod (use the dynamically linked elf-buildid)"
expect_eq "stdout" "$out" ""
t_end

# libarchive is not linked into the static build (mk/static.mk): it
# recognises an artifact by its first bytes and refuses it, exit 2, rather
# than SKIP it as a file that is not ELF and pass a gate that read nothing.
t_begin "an artifact in the static binary: exit 2, one line saying it reads none"
mkdir -p "$SCRATCH/art/usr/bin" && cp "$FIXTURES/pie" "$SCRATCH/art/usr/bin/pie"
tar -C "$SCRATCH/art" -czf "$SCRATCH/art.tar.gz" usr
run "$STATIC" verify --perf=off "$SCRATCH/art.tar.gz"
expect_eq "exit status" "$rc" 2
expect_match "stderr" "$err" "^elf-buildid: '$(re_quote "$SCRATCH/art.tar.gz")': verify: tarball: this static build of elf-buildid reads no artifacts \\(it has no libarchive\\)"
expect_eq "stderr lines" "$(printf '%s\n' "$err" | wc -l)" 1
run "$EBID" verify --perf=off "$SCRATCH/art.tar.gz"
expect_ne "the dynamic build's exit status" "$rc" 2
expect_match "the dynamic build reads it" "$out" "^(PASS|FAIL)  $(re_quote "$SCRATCH/art.tar.gz"):usr/bin/pie  "
t_end

t_begin "link needs /proc: without it, exit 2 and nothing placed; with it, the file is placed"
t_skip_if "$root_why"
if [ -z "$root_why" ]; then
	in_root link --debug-dir=/dbg /out-sha1
	expect_eq "link without /proc: exit status" "$rc" 2
	expect_match "link without /proc" "$err" "^elf-buildid: '/out-sha1': link: cannot resolve path$"
	# (It makes the directory --debug-dir names before it fails.)
	expect_eq "placed without /proc" "$(find "$ROOT/dbg" ! -type d 2>/dev/null)" ""
	if [ -n "$proc_why" ]; then
		t_skip_if "$proc_why"
	else
		mkdir "$ROOT/proc"
		with_proc link --debug-dir=/dbg /out-sha1
		id=$(readelf_ids "$ROOT/out-sha1")
		expect_eq "link with /proc: exit status (stderr: $err)" "$rc" 0
		expect_eq "link with /proc" "$out" "$id  /dbg/.build-id/${id:0:2}/${id:2}.debug"
		expect_true "not placed at /dbg/.build-id/${id:0:2}/${id:2}.debug" \
			[ -f "$ROOT/dbg/.build-id/${id:0:2}/${id:2}.debug" ]
		expect_eq "/proc is not left mounted" "$(ls -A "$ROOT/proc")" ""
		rmdir "$ROOT/proc"
	fi
fi
t_end

# A file locked by another process: the timeout message names the holder
# only when /proc/locks can be read.
t_begin "a lock timeout names the holder's pid only with /proc"
t_skip_if "$root_why"
if [ -z "$root_why" ]; then
	cp "$FIXTURES/plain" "$ROOT/locked"
	python3 -c 'import fcntl, sys, time
f = open(sys.argv[1])
fcntl.flock(f, fcntl.LOCK_EX)
print("locked", flush=True)
time.sleep(60)' "$ROOT/locked" >"$SCRATCH/holder.out" &
	holder=$!
	for _ in $(seq 100); do
		[ -s "$SCRATCH/holder.out" ] && break
		sleep 0.1
	done
	expect_eq "the holder took the lock" "$(cat "$SCRATCH/holder.out")" locked
	in_root inject --lock-timeout=0 /locked
	expect_eq "without /proc: exit status" "$rc" 2
	expect_match "without /proc" "$err" "^elf-buildid: '/locked': inject: locked by another process for more than 0 s"
	if [ -z "$proc_why" ]; then
		mkdir "$ROOT/proc"
		with_proc inject --lock-timeout=0 /locked
		expect_eq "with /proc: exit status" "$rc" 2
		expect_match "with /proc" "$err" "^elf-buildid: '/locked': inject: locked by another process \\(pid $holder, python3\\)"
		rmdir "$ROOT/proc"
	fi
	kill "$holder" 2>/dev/null
	wait "$holder" 2>/dev/null
	expect_same_file "the locked file is untouched" "$ROOT/locked" "$FIXTURES/plain"
fi
t_end

t_done
