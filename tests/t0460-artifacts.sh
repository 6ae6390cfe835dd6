#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# Artifacts where a FILE is expected (issue 35; docs/ci.md, "Artifacts"):
# verify, show and link read .deb, tarballs and OCI image layouts through
# libarchive. Every verdict is compared with verify over the same files
# unpacked by the packagers' own tools (dpkg-deb -x, tar -x; the image's
# layers applied by a reader written here, in Python's tarfile, after the
# OCI image spec's whiteout rules), and every id with readelf's.
# Real packages: Debian 12's age and fzf (Go programs), fetched once with
# apt-get download into build/cache/debs. Then: unique across artifacts
# (the same bytes twice pass, other bytes with one id fail), the --json
# document as the next release's manifest, link from a package and its
# -dbgsym, inject's refusal, and bad artifacts: each an ERROR, exit 2, one
# line on stderr, nothing written.
. "$(dirname "$0")/lib.sh"
require_tool
require_fixtures plain existing pie reserved kit/cprog kit/libkit.so.1
require_cmds base dpkg-deb zstd xz readelf objcopy python3

cd "$SCRATCH" || exit 1
V=("$EBID" verify --perf=off)

# The lines of a verdict over ELF files, ARTIFACT: or TREE/ made PREFIX.
elf_lines() { # PREFIX-FROM PREFIX-TO
	local line
	grep -E '^(PASS|FAIL|ERROR) ' | while IFS= read -r line; do
		printf '%s\n' "${line/"  $1"/"  $2"}"
	done | sort
}

t_begin "Debian's age and fzf .debs: each ELF member's line is verify -r's over dpkg-deb -x's tree; ids are readelf's"
cache=$TOP/build/cache/debs
mkdir -p "$cache"
debs=()
for p in age fzf; do
	f=$(ls "$cache"/${p}_*_amd64.deb 2>/dev/null | head -1)
	if [ -z "$f" ]; then
		(cd "$cache" && apt-get download "$p" >/dev/null 2>&1)
		f=$(ls "$cache"/${p}_*_amd64.deb 2>/dev/null | head -1)
	fi
	[ -n "$f" ] || t_fail "apt-get download $p fetched nothing"
	debs+=("$f")
done
for f in "${debs[@]}"; do
	b=$(basename "$f")
	cp "$f" "$b"
	rm -rf "u-$b" && dpkg-deb -x "$b" "u-$b"
	run "${V[@]}" "$b"
	arc=$rc
	a=$(printf '%s\n' "$out" | elf_lines "$b:" "X/")
	run "${V[@]}" -r "u-$b"
	expect_eq "$b: exit status" "$rc" "$arc"
	u=$(printf '%s\n' "$out" | elf_lines "u-$b/" "X/")
	expect_eq "$b: verify vs the unpacked tree" "$a" "$u"
	[ -n "$a" ] || t_fail "$b: no ELF member judged"
	for m in $(printf '%s\n' "$a" | awk '$1 == "PASS" { print $2 }'); do
		expect_eq "$b ${m#X/}: id" "$(printf '%s\n' "$a" | awk -v m="$m" '$2 == m { print $3 }')" \
			"$(readelf_ids "u-$b/${m#X/}")"
	done
done
expect_exit 1 "${V[@]}" "$(basename "${debs[0]}")"
expect_match "age-keygen has no id" "$out" "^FAIL  age_[^ ]*\\.deb:usr/bin/age-keygen  note: no GNU build-id note"
expect_match "a doc member is skipped" "$out" "^SKIP  age_[^ ]*\\.deb:usr/share/doc/age/copyright  not an ELF file"
t_end

# A tree with programs, a copy, a hard link, a symlink and a text file.
mkdir -p tree/usr/bin tree/usr/lib tree/etc
cp "$FIXTURES/kit/cprog" tree/usr/bin/cprog
cp "$FIXTURES/kit/libkit.so.1" tree/usr/lib/libkit.so.1
cp "$FIXTURES/plain" tree/usr/bin/plain
cp "$FIXTURES/kit/cprog" tree/usr/bin/cprog-copy
ln tree/usr/bin/cprog tree/usr/bin/cprog-hard
ln -s cprog tree/usr/bin/cprog-sym
echo conf >tree/etc/x.conf
tflags=(--sort=name --mtime=@0 --owner=0 --group=0 --numeric-owner)

t_begin "tarballs (tar, gz, xz, zst, bz2): the verdicts are verify -r's over tar -x's tree; a hard link is another name, a symlink listed, not followed"
for z in tar tar.gz tar.xz tar.zst tar.bz2; do
	tar "${tflags[@]}" -caf "t.$z" -C tree .
	rm -rf "u.$z" && mkdir "u.$z" && tar -xf "t.$z" -C "u.$z"
	run "${V[@]}" "t.$z"
	arc=$rc
	a=$(printf '%s\n' "$out" | elf_lines "t.$z:" "X/")
	full=$out
	run "${V[@]}" -r "u.$z"
	expect_eq "$z: exit status" "$rc" "$arc"
	u=$(printf '%s\n' "$out" | grep -v cprog-hard | elf_lines "u.$z/" "X/")
	expect_eq "$z vs the unpacked tree" "$a" "$u"
	expect_match "$z: the hard link" "$full" "^SKIP  t\\.$z:usr/bin/cprog-hard  another name of 't\\.$z:usr/bin/cprog'"
	expect_match "$z: the symlink, not followed" "$full" "^SKIP  t\\.$z:usr/bin/cprog-sym  symbolic link to 'cprog' \\(not followed\\)"
	expect_match "$z: the copy passes unique" "$full" "^PASS  t\\.$z:usr/bin/cprog-copy  $(readelf_ids tree/usr/bin/cprog)"
done
t_end

t_begin "a member over 4 MiB (hashed by a second thread as it is unpacked): its sha256 is sha256sum's, its id readelf's"
mkdir -p big/usr/bin
cp "$FIXTURES/kit/cprog" big/usr/bin/big
head -c $((6 << 20)) /dev/urandom >>big/usr/bin/big # past 4 MiB, id kept
tar "${tflags[@]}" -caf big.tar.zst -C big .
expect_exit 0 "${V[@]}" --json big.tar.zst
expect_match "sha256" "$out" "\"member\": \"usr/bin/big\", \"layer\": null, \"sha256\": \"$(sha256sum big/usr/bin/big | cut -d' ' -f1)\""
expect_match "id" "$out" "\"build_id\": \"$(readelf_ids big/usr/bin/big)\""
t_end

t_begin "an OCI image (directory and tar): what the container sees after the whiteouts, each with its layer; the same as the layers applied by tarfile"
python3 "$TOP/scripts/mkartifacts.py" oci "$FIXTURES" img >/dev/null
(cd img && tar "${tflags[@]}" -cf ../img.tar .)
# The spec's rules, applied bottom up into rootfs/: a reader of our own,
# independent of the C code, to compare with.
python3 - img rootfs <<'EOF'
import json, os, shutil, sys, tarfile
img, root = sys.argv[1:]
idx = json.load(open(f'{img}/index.json'))
blob = lambda d: f'{img}/blobs/' + d.replace(':', '/')
man = json.load(open(blob(idx['manifests'][0]['digest'])))
os.makedirs(root)
for l in man['layers']:
    with tarfile.open(blob(l['digest'])) as t:
        for m in t.getmembers():
            n = os.path.normpath(m.name)
            d, b = os.path.split(n)
            if b == '.wh..wh..opq':
                for x in os.listdir(os.path.join(root, d)):
                    p = os.path.join(root, d, x)
                    shutil.rmtree(p) if os.path.isdir(p) and not os.path.islink(p) else os.remove(p)
            elif b.startswith('.wh.'):
                p = os.path.join(root, d, b[4:])
                shutil.rmtree(p) if os.path.isdir(p) and not os.path.islink(p) else os.remove(p)
        for m in t.getmembers():
            if not os.path.basename(m.name).startswith('.wh.'):
                p = os.path.join(root, os.path.normpath(m.name))
                if os.path.lexists(p) and not m.isdir() and not os.path.isdir(p):
                    os.remove(p)
                t.extract(m, root)
EOF
run "${V[@]}" -r rootfs
trc=$rc
# (A symlink is a line of the tree walk's, not of an artifact's.)
u=$(printf '%s\n' "$out" | grep -E '^(PASS|FAIL|ERROR|SKIP) ' | grep -v '  symlink to ' |
	sed 's|  rootfs/|  X/|; s|  (layer .*||' | sort)
for i in img img.tar; do
	run "${V[@]}" "$i"
	expect_eq "$i: exit status" "$rc" "$trc"
	a=$(printf '%s\n' "$out" | grep -v '  symbolic link to ' | sed "s|  $i:|  X/|; s|  (layer .*||" | sort)
	expect_eq "$i vs the layers applied" "$a" "$u"
	expect_match "$i: usr/bin/a from layer 2" "$out" "^PASS  $i:usr/bin/a  [0-9a-f]{40}  \\(layer 2/2 sha256:[0-9a-f]{12}\\)$"
done
expect_eq "b is deleted, old.conf hidden" "$(printf '%s\n' "$out" | grep -c 'usr/bin/b\|old.conf\|etc/old/tool')" 0
expect_exit 0 "${V[@]}" --json img.tar
expect_match "--json names artifact, member and layer" "$out" '"path": "img.tar:usr/bin/a", "artifact": "img.tar", "member": "usr/bin/a", "layer": "layer 2/2 sha256:'
t_end

t_begin "an index of two platforms and an attestation: each platform's files named IMAGE[os/arch]:PATH, the attestation passed over"
cp -r img multi
python3 - multi <<'EOF2'
import json, sys
d = sys.argv[1]
idx = json.load(open(d + "/index.json"))
m = idx["manifests"][0]
arm = dict(m, platform={"os": "linux", "architecture": "arm64", "variant": "v8"})
att = dict(m, platform={"os": "unknown", "architecture": "unknown"})
idx["manifests"] = [m, arm, att]
json.dump(idx, open(d + "/index.json", "w"))
EOF2
expect_exit 0 "${V[@]}" multi
expect_match "amd64" "$out" "^PASS  multi\\[linux/amd64\\]:usr/bin/a  "
expect_match "arm64/v8" "$out" "^PASS  multi\\[linux/arm64/v8\\]:usr/bin/a  "
expect_eq "no attestation, 2 x 5 members" "$(printf '%s\n' "$out" | grep -c 'unknown')/$(printf '%s\n' "$out" | wc -l)" "0/10"
t_end

t_begin "docker save's older form (manifest.json and its Layers paths, no index.json): the same verdicts"
mkdir -p old && cp -r img/blobs old/
python3 - img old <<'EOF2'
import json, sys
img, old = sys.argv[1:]
idx = json.load(open(img + "/index.json"))
blob = lambda d: img + "/blobs/" + d.replace(":", "/")
man = json.load(open(blob(idx["manifests"][0]["digest"])))
json.dump([{"Config": "blobs/" + man["config"]["digest"].replace(":", "/"),
            "RepoTags": ["t:1"],
            "Layers": ["blobs/" + l["digest"].replace(":", "/") for l in man["layers"]]}],
          open(old + "/manifest.json", "w"))
EOF2
(cd old && tar "${tflags[@]}" -cf ../old.tar .)
expect_exit 0 "${V[@]}" img.tar
want=$(printf '%s\n' "$out" | sed 's|^\([A-Z]*\)  img\.tar:|\1  X:|')
expect_exit 0 "${V[@]}" old.tar
expect_eq "old.tar vs img.tar" "$(printf '%s\n' "$out" | sed 's|^\([A-Z]*\)  old\.tar:|\1  X:|')" "$want"
t_end

t_begin "a layer whose bytes do not match its digest: ERROR naming the blob, exit 2"
python3 "$TOP/scripts/mkartifacts.py" bad-digest img bad >/dev/null
expect_exit 2 "${V[@]}" bad
expect_match "the line" "$out" "^ERROR  bad  OCI image layout: .*(does not match its digest|layer 2/2)"
expect_one_error_line bad
t_end

t_begin "unique across artifacts: one file in a .deb and a tarball passes; the same id on other bytes fails both, naming each other"
mkdir -p pkg/DEBIAN pkg/usr/bin
printf 'Package: t\nVersion: 1\nArchitecture: amd64\nMaintainer: t <t@t>\nDescription: t\n' >pkg/DEBIAN/control
cp "$FIXTURES/kit/cprog" pkg/usr/bin/cprog
dpkg-deb --root-owner-group -b pkg t.deb >/dev/null
mkdir -p same/usr/bin && cp "$FIXTURES/kit/cprog" same/usr/bin/
tar "${tflags[@]}" -caf same.tar.zst -C same .
expect_exit 0 "${V[@]}" -v t.deb same.tar.zst
expect_match "same bytes" "$err" "'t\\.deb:usr/bin/cprog': pass unique: no other file has this id: 'same\\.tar\\.zst:usr/bin/cprog' has the same bytes"
mkdir -p other/usr/bin
cp "$FIXTURES/kit/cprog" other/usr/bin/cprog
strip other/usr/bin/cprog
tar "${tflags[@]}" -caf other.tar.gz -C other .
expect_exit 1 "${V[@]}" t.deb other.tar.gz
expect_match "deb" "$out" "^FAIL  t\\.deb:usr/bin/cprog  unique: same id as 'other\\.tar\\.gz:usr/bin/cprog', a file with other bytes"
expect_match "tar" "$out" "^FAIL  other\\.tar\\.gz:usr/bin/cprog  unique: same id as 't\\.deb:usr/bin/cprog'"
t_end

t_begin "the --json document of one release is the next release's manifest"
run "${V[@]}" --json t.deb
expect_eq "exit" "$rc" 0
printf '%s\n' "$out" >release-1.json
expect_exit 0 "${V[@]}" -v --against-manifest=release-1.json same.tar.zst
expect_match "the same file" "$err" "pass unique: no other file has this id; released before as this very file"
expect_exit 1 "${V[@]}" --against-manifest=release-1.json other.tar.gz
expect_match "other bytes" "$out" "^FAIL  other\\.tar\\.gz:usr/bin/cprog  unique: .*release-1\\.json"
t_end

t_begin "show reads an artifact: one block per ELF member"
expect_exit 0 "$EBID" show t.deb
expect_eq "first line" "$(printf '%s\n' "$out" | head -1)" "t.deb:usr/bin/cprog"
expect_match "id" "$out" "gnu-build-id: $(readelf_ids tree/usr/bin/cprog)"
t_end

t_begin "--artifacts: off skips an artifact; all reads one a -r walk finds"
expect_exit 0 "${V[@]}" --artifacts=off t.deb
expect_eq "off" "$out" "SKIP  t.deb  not an ELF file"
mkdir -p rel && cp t.deb rel/
expect_exit 0 "${V[@]}" -r rel
expect_eq "named: a walked .deb is a file" "$out" "SKIP  rel/t.deb  not an ELF file"
expect_exit 0 "${V[@]}" -r --artifacts=all rel
expect_match "all" "$out" "^PASS  rel/t\\.deb:usr/bin/cprog  "
t_end

t_begin "inject refuses an artifact: exit 2, one line, the file untouched"
cp t.deb t2.deb
expect_exit 2 "$EBID" inject t2.deb
expect_one_error_line t2.deb
expect_match "message" "$err" "a Debian package, not an ELF file: an artifact is packaging's output"
expect_same_file "untouched" t.deb t2.deb
t_end

t_begin "link fills a debug tree from a package and its -dbgsym; a debug file with no shipped binary places nothing"
id=$(readelf_ids tree/usr/bin/cprog)
mkdir -p dbg/DEBIAN "dbg/usr/lib/debug/.build-id/${id:0:2}"
printf 'Package: t-dbgsym\nVersion: 1\nArchitecture: amd64\nMaintainer: t <t@t>\nDescription: t\n' >dbg/DEBIAN/control
objcopy --only-keep-debug tree/usr/bin/cprog "dbg/usr/lib/debug/.build-id/${id:0:2}/${id:2}.debug"
dpkg-deb --root-owner-group -b dbg t-dbgsym.deb >/dev/null
expect_exit 0 "$EBID" link --debug-dir=D t.deb t-dbgsym.deb
expect_eq "line" "$out" "$id  D/.build-id/${id:0:2}/${id:2}.debug"
expect_eq "placed: the debug file (readelf)" "$(readelf_ids "D/.build-id/${id:0:2}/${id:2}.debug")" "$id"
expect_same_file "its bytes" "D/.build-id/${id:0:2}/${id:2}.debug" "dbg/usr/lib/debug/.build-id/${id:0:2}/${id:2}.debug"
expect_eq "the symlink to the binary" "$(readlink "D/.build-id/${id:0:2}/${id:2}")" /usr/bin/cprog
expect_exit 2 "$EBID" link --debug-dir=D2 t-dbgsym.deb
expect_match "error" "$err" "t-dbgsym\\.deb:usr/lib/debug/\\.build-id/.*: link: debug file with id $id, which no binary"
[ -e D2 ] && t_fail "D2 was made: $(find D2)"
mkdir -p libonly && cp "$FIXTURES/kit/libkit.so.1" libonly/
tar "${tflags[@]}" -cf lib.tar -C libonly .
expect_exit 2 "$EBID" link --debug-dir=D3 lib.tar t-dbgsym.deb
expect_match "error" "$err" "t-dbgsym\\.deb:usr/lib/debug/\\.build-id/.*: link: debug file with id $id, which no binary"
[ -e D3 ] && t_fail "D3 was made: $(find D3)"
t_end

t_begin "bad artifacts: each an ERROR naming the file and the problem, exit 2, one stderr line"
head -c 30000 "$(basename "${debs[1]}")" >trunc.deb
python3 - t.tar.gz corrupt.tar.gz <<'EOF'
import sys
b = bytearray(open(sys.argv[1], 'rb').read())
for i in range(len(b) // 2, len(b) // 2 + 64):
    b[i] ^= 0x5a
open(sys.argv[2], 'wb').write(b)
EOF
mkdir -p evil
python3 "$TOP/scripts/mkartifacts.py" evil "$FIXTURES" evil >/dev/null
[ -e evil/dotdot.tar ] || t_fail "mkartifacts.py evil made no dotdot.tar: $(ls evil)"
python3 "$TOP/scripts/mkartifacts.py" bomb "$FIXTURES" bomb.tar.zst >/dev/null
for c in "trunc.deb:ends early|truncated|Truncated" "corrupt.tar.gz:.*" \
	"bomb.tar.zst:decompression bomb|--limit" \
	$(cd evil && for f in *dotdot* *abs*; do printf '%s ' "evil/$f:'\\.\\.'|absolute"; done); do
	f=${c%%:*} want=${c#*:}
	[ -e "$f" ] || { t_fail "$f missing"; continue; }
	expect_exit 2 "${V[@]}" "$f"
	expect_match "$f: ERROR line" "$(printf '%s\n' "$out" | tail -1)" "^ERROR  $(re_quote "$f")  "
	expect_match "$f: stderr" "$(tail -1 "$SCRATCH/.err")" "^elf-buildid: '$(re_quote "$f")': verify: .*($want)"
done
expect_exit 2 "${V[@]}" --limit member=1K t.deb
expect_match "member limit" "$out" "^ERROR  t\\.deb:usr/bin/cprog  member of [0-9]+ bytes is larger than the 1024"
t_end

t_done
