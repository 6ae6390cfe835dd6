#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# tier: slow (release tarballs)
# make dist (issue 14, item 1): the tarball of a commit is the same bytes
# from another clone path, another umask, TZ and locale; its listing has
# owner 0, sorted names and the commit's mtime; gzip stores no name and no
# time; it holds HEAD's files and a VERSION with the whole version; a dirty
# tree is refused. Extracted under /tmp, outside any git checkout, it
# builds, prints that version, runs the unit tests and t0020, and installs.
# The tarball is made in clones of $TOP's HEAD: commit before running this.
. "$(dirname "$0")/lib.sh"
not_with_sanitizers "make dist in two clones" "make dist packs and builds the sources in clones of its own"
# The tarball is built as a user would: not with the flags of the make
# that runs the tests (make test SANITIZE=... would send the build to
# build/san/).
# A variable given on make's command line is also exported to the
# environment of everything it runs: SANITIZE is unset too.
unset MAKEFLAGS MFLAGS MAKELEVEL SANITIZE STATIC
require_deps ship

if ! git -C "$TOP" rev-parse --verify -q HEAD >/dev/null 2>&1 ||
	[ "$(cd "$(git -C "$TOP" rev-parse --show-toplevel)" && pwd -P)" != "$(cd "$TOP" && pwd -P)" ]; then
	t_skip "make dist needs a git checkout" "$TOP is not one (an extracted tarball?): nothing to pack"
	t_done
fi

t_begin "make dist in two clones (other path, umask 077, TZ, locale) writes the same bytes"
expect_exit 0 git clone -q "$TOP" "$SCRATCH/a"
expect_exit 0 make -C "$SCRATCH/a" --no-print-directory dist
out_a=$out
(umask 077 && git clone -q "$TOP" "$SCRATCH/other/place/b") 2>"$SCRATCH/.clone.err"
expect_eq "clone b" "$(cat "$SCRATCH/.clone.err")" ""
(cd "$SCRATCH/other/place/b" && umask 077 && TZ=Pacific/Chatham LC_ALL=C.UTF-8 \
	make --no-print-directory dist) >"$SCRATCH/.b.out" 2>&1
expect_eq "make dist in b: exit" "$?" 0
V=$(cd "$SCRATCH/a" && scripts/version.sh --head)
expect_match "version" "$V" '^[0-9]+\.[0-9]+\.[0-9]+([~+]git[0-9]{14}\.[0-9a-f]{12})?$'
name=elf-buildid-$V
A=$SCRATCH/a/build/$name.tar.gz
B=$SCRATCH/other/place/b/build/$name.tar.gz
expect_true "no $A: $out_a" [ -f "$A" ]
expect_true "no $B: $(cat "$SCRATCH/.b.out")" [ -f "$B" ]
expect_same_file "tarball from a and from b" "$A" "$B"
expect_same_file "sha256 line from a and from b" "$A.sha256" "$B.sha256"
expect_eq "sha256 line" "$(cat "$A.sha256")" "$(sha256sum "$A" | cut -d' ' -f1)  $name.tar.gz"
(cd "$SCRATCH/a/build" && sha256sum -c --quiet "$name.tar.gz.sha256") >"$SCRATCH/.c" 2>&1
st=$?
expect_eq "sha256sum -c: $(cat "$SCRATCH/.c")" "$st" 0
t_end

t_begin "a second make dist in the same clone writes the same bytes"
cp "$A" "$SCRATCH/first.tar.gz"
expect_exit 0 make -C "$SCRATCH/a" --no-print-directory dist
expect_same_file "first and second run" "$SCRATCH/first.tar.gz" "$A"
t_end

ct=$(git -C "$SCRATCH/a" log -1 --format=%ct HEAD)

t_begin "tar tv: owner 0/0, names sorted byte-wise under $name/, every mtime the commit's"
listing=$(TZ=UTC tar --full-time -tvzf "$A")
expect_match "listing" "$listing" "^d.* 0/0 .* $(re_quote "$name")/\$"
n_bad=$(awk '$2 != "0/0"' <<<"$listing" | wc -l)
expect_eq "entries whose owner is not 0/0" "$n_bad" 0
when=$(date -u -d "@$ct" '+%Y-%m-%d %H:%M:%S')
n_bad=$(awk -v w="$when" '$4 " " $5 != w' <<<"$listing" | wc -l)
expect_eq "entries whose mtime is not the commit's ($when)" "$n_bad" 0
names=$(tar -tzf "$A")
unsorted=$(LC_ALL=C sort -c <<<"$names" 2>&1)
expect_eq "names in byte order (sort -c)" "$unsorted" ""
n_bad=$(grep -vc "^$(re_quote "$name")/" <<<"$names")
expect_eq "names outside $name/" "$n_bad" 0
t_end

t_begin "python's tarfile and gzip header: numeric owner, no names, modes 644/755, no gzip name or time"
got=$(python3 - "$A" "$ct" <<'PY'
import sys, tarfile
path, ct = sys.argv[1], int(sys.argv[2])
bad = []
raw = open(path, "rb").read(10)
if raw[:2] != b"\x1f\x8b": bad.append("not gzip")
if raw[3] & 0x08: bad.append("gzip header stores a file name")
if int.from_bytes(raw[4:8], "little") != 0: bad.append("gzip header stores a time")
with tarfile.open(path, "r:gz") as t:
    for m in t.getmembers():
        if (m.uid, m.gid, m.uname, m.gname) != (0, 0, "", ""):
            bad.append("%s: owner %r" % (m.name, (m.uid, m.gid, m.uname, m.gname)))
        if m.mtime != ct: bad.append("%s: mtime %d" % (m.name, m.mtime))
        want = (0o755,) if m.isdir() else (0o644, 0o755)
        if not (m.isdir() or m.isfile()): bad.append("%s: type %r" % (m.name, m.type))
        if m.mode not in want: bad.append("%s: mode %o" % (m.name, m.mode))
print("; ".join(bad[:5]) or "ok")
PY
)
expect_eq "tarball" "$got" ok
t_end

t_begin "content: HEAD's files (git archive), VERSION holding the whole version"
mkdir -p "$SCRATCH/x" "$SCRATCH/ref"
tar -xzf "$A" -C "$SCRATCH/x"
git -C "$SCRATCH/a" archive --prefix="$name/" HEAD | tar -x -C "$SCRATCH/ref"
expect_eq "VERSION in the tarball" "$(cat "$SCRATCH/x/$name/VERSION")" "$V"
expect_exit 1 diff -r "$SCRATCH/ref/$name" "$SCRATCH/x/$name"
expect_eq "the only difference" "$out" "diff -r $SCRATCH/ref/$name/VERSION $SCRATCH/x/$name/VERSION
1c1
< $(git -C "$SCRATCH/a" show HEAD:VERSION)
---
> $V"
t_end

t_begin "a tracked file changed: make dist refuses; DIST_DIRTY=1 packs HEAD, the same bytes"
echo "# local edit" >>"$SCRATCH/a/README.md"
rm -f "$A"
expect_exit 2 make -C "$SCRATCH/a" --no-print-directory dist
expect_match "stderr" "$err" 'tracked files differ from HEAD'
expect_false "a tarball was written" [ -e "$A" ]
DIST_DIRTY=1 expect_exit 0 make -C "$SCRATCH/a" --no-print-directory dist
expect_match "warning" "$err" 'warning: tracked files differ'
expect_same_file "DIST_DIRTY=1 tarball" "$SCRATCH/first.tar.gz" "$A"
git -C "$SCRATCH/a" checkout -q README.md
t_end

# Outside any git checkout: under /tmp (not $SCRATCH, which is in $TOP's).
ext=$(mktemp -d /tmp/elf-buildid-t0900.XXXXXX)
trap 'rm -rf "$ext"' EXIT
tar -xzf "$A" -C "$ext"
src=$ext/$name

t_begin "extracted under /tmp, outside git: make builds it and --version prints $V"
# git's "fatal" (128): no repository there, the one failure asked for.
expect_exit 128 git -C "$src" rev-parse --git-dir
expect_match "$ext is inside no git checkout" "$err" 'not a git repository'
expect_exit 0 make -C "$src" --no-print-directory -j2
expect_exit 0 "$src/build/elf-buildid" --version
expect_eq "--version" "$out" "elf-buildid $V"
t_end

t_begin "from the tarball: make unit and tests/run.sh of the unit tests, t0020 against its binary"
expect_exit 0 make -C "$src" --no-print-directory -j2 unit
(cd "$src" && tests/run.sh -j 2 build/unit/*) >"$SCRATCH/.units" 2>&1
st=$?
expect_eq "tests/run.sh units: $(tail -n 5 "$SCRATCH/.units")" "$st" 0
expect_match "units summary" "$(tail -n 1 "$SCRATCH/.units")" '^[1-9][0-9]* passed, 0 failed(, [0-9]+ skipped)?$'
(cd "$src" && bash tests/t0020-help-version.sh) >"$SCRATCH/.t0020" 2>&1
st=$?
expect_eq "t0020 from the tarball: $(cat "$SCRATCH/.t0020")" "$st" 0
expect_eq "t0020 results" "$(grep -c '^ok ' "$SCRATCH/.t0020")" 4
t_end

t_begin "from the tarball: make install DESTDIR=... PREFIX=/usr, the installed binary prints $V"
dest=$SCRATCH/root
expect_exit 0 make -C "$src" --no-print-directory install DESTDIR="$dest" PREFIX=/usr
for f in usr/bin/elf-buildid usr/share/man/man1/elf-buildid.1 \
	usr/share/bash-completion/completions/elf-buildid usr/share/doc/elf-buildid/LICENSE \
	usr/lib/rpm/macros.d/macros.elf-buildid \
	usr/share/elf-buildid/elf-buildid.mk usr/share/elf-buildid/go-build-buildid \
	usr/share/elf-buildid/package-hook.sh usr/share/elf-buildid/omnibus/elf_buildid.rb \
	usr/share/elf-buildid/omnibus/software/elf-buildid.rb; do
	expect_true "not installed: /$f" [ -f "$dest/$f" ]
done
expect_exit 0 "$dest/usr/bin/elf-buildid" --version
expect_eq "installed --version" "$out" "elf-buildid $V"
expect_match "installed man page's .TH names $V" \
	"$(grep '^\.TH ' "$dest/usr/share/man/man1/elf-buildid.1")" " \"elf-buildid $(re_quote "$V")\" "
t_end

t_begin "extracted inside another git checkout, the version is still the tarball's"
mkdir -p "$SCRATCH/inside"
tar -xzf "$A" -C "$SCRATCH/inside"
expect_exit 0 "$SCRATCH/inside/$name/scripts/version.sh"
expect_eq "version.sh" "$out" "$V"
t_end

t_done
