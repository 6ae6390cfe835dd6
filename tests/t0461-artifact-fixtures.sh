#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# tier: slow (make deb and make rpm of this tree, some 40 s)
# verify over the artifacts of scripts/build-artifact-fixtures.sh, judged
# by tools we did not write: expected.tsv lists every member as dpkg-deb
# -x, tar -x, rpm2cpio | cpio and umoci unpack (the image after its
# whiteouts) extract it, with readelf's id of its bytes. For each good
# artifact (Debian's age, fzf, shfmt and hello; multi.tar in four
# compressions; the OCI image as a directory, as an oci-archive tar and in
# docker save's form; this project's own .deb, .rpm and -debuginfo .rpm),
# verify --json must list exactly those members, each ELF member with
# readelf's id, each other file skipped as not ELF, each symlink as a
# symlink to its target, each hard link as another name of its first.
# Then link fills a debug tree from the project's .rpm and its
# -debuginfo: the debug file placed carries the binary's id (readelf) and
# is the bytes rpm2cpio extracts. Every bad artifact is an ERROR, exit 2.
. "$(dirname "$0")/lib.sh"
. "$TOP/tests/artifacts-lib.sh"
require_tool
artifacts_prelude own

cd "$SCRATCH" || exit 1

# check.py ARTIFACT JSON: verify's members against expected.tsv's.
cat >check.py <<'EOF'
import json, sys
art, doc, tsv = sys.argv[1:]
want = {}
for line in open(tsv):
    a, m, kind, i = line.rstrip("\n").split("\t")
    if a == art:
        want[m] = (kind, None if i == "-" else i)
got = {f["member"]: f for f in json.load(open(doc))["files"]
       if f["artifact"] is not None}
bad = []
if set(got) != set(want):
    bad.append("members: only verify %s, only the tools %s"
               % (sorted(set(got) - set(want)), sorted(set(want) - set(got))))
for m, (kind, i) in sorted(want.items()):
    f = got.get(m)
    if f is None:
        continue
    r = f["reason"] or ""
    # What carries no program (a separate debug file, an object) is
    # skipped as a file is, saying why.
    skipped = f["status"] == "skip" and ("debug file" in r or
                                         "not a program" in r)
    if kind == "elf" and f["build_id"] != i and not skipped:
        bad.append("%s: id %s, readelf %s" % (m, f["build_id"], i))
    elif kind == "file" and (f["status"], r) != ("skip", "not an ELF file"):
        bad.append("%s: %s %r for a file that is not ELF" % (m, f["status"], r))
    elif kind.startswith("symlink:") and r != \
            "symbolic link to '%s' (not followed)" % kind[8:]:
        bad.append("%s: %r for a %s" % (m, r, kind))
    elif kind.startswith("hardlink:") and not r.endswith(
            ":%s'" % kind[9:]):
        bad.append("%s: %r for a %s" % (m, r, kind))
print("\n".join(bad) if bad else "ok (%d members)" % len(want))
EOF

while read -r a; do
	t_begin "$a: every member as the unpacking tools see it, each ELF member with readelf's id"
	run "$EBID" verify --perf=off --json "$ARTIFACTS/$a"
	case $rc in 0 | 1) t_check ;; *) t_fail "exit $rc: $err" ;; esac
	printf '%s\n' "$out" >v.json
	sed -i "s|\"artifact\": \"$(re_quote "$ARTIFACTS/")|\"artifact\": \"|" v.json
	expect_match "members" "$(python3 check.py "$a" v.json "$ARTIFACTS/expected.tsv" 2>&1)" "^ok \\([1-9][0-9]* members\\)$"
	t_end
done < <(cut -f1 "$ARTIFACTS/expected.tsv" | sort -u)

t_begin "link: the project's .rpm and its -debuginfo fill a debug tree; the debug file carries the binary's id"
bin_id=$(artifact_members own/elf-buildid.rpm elf | awk '$1 == "usr/bin/elf-buildid" { print $2 }')
expect_match "readelf's id of the packaged binary" "$bin_id" '^[0-9a-f]{40}$'
expect_exit 0 "$EBID" link --debug-dir=D "$ARTIFACTS/own/elf-buildid.rpm" \
	"$ARTIFACTS/own/elf-buildid-debuginfo.rpm"
placed=D/.build-id/${bin_id:0:2}/${bin_id:2}.debug
expect_eq "the line" "$(printf '%s\n' "$out" | grep "$bin_id")" "$bin_id  $placed"
expect_eq "readelf" "$(readelf_ids "$placed")" "$bin_id"
mkdir x && (cd x && rpm2cpio "$ARTIFACTS/own/elf-buildid-debuginfo.rpm" | cpio -idm --quiet)
src=$(find x/usr/lib/debug -type f -name '*.debug' | head -1)
expect_same_file "the bytes rpm2cpio extracts" "$placed" "$src"
expect_eq "the symlink to the binary" "$(readlink "D/.build-id/${bin_id:0:2}/${bin_id:2}")" /usr/bin/elf-buildid
t_end

t_begin "an image directory whose layer unpacks to 1.2 GiB from 5 MB passes (the bomb ratio counts the layers' bytes, not the directory's); ratio=200 refuses it"
python3 - bigimg <<'EOF'
import gzip, hashlib, io, json, os, sys, tarfile
d = sys.argv[1]
os.makedirs(d + "/blobs/sha256")
class Zeros(io.RawIOBase):
    def __init__(self, n): self.n = n
    def readable(self): return True
    def readinto(self, b):
        k = min(len(b), self.n); b[:k] = bytes(k); self.n -= k; return k
with gzip.GzipFile(d + "/layer", "wb", compresslevel=1, mtime=0) as g:
    with tarfile.open(fileobj=g, mode="w|") as t:
        ti = tarfile.TarInfo("data/zeros"); ti.size = 1200 << 20
        t.addfile(ti, Zeros(ti.size))
blob = open(d + "/layer", "rb").read(); os.remove(d + "/layer")
ld = hashlib.sha256(blob).hexdigest()
open(d + "/blobs/sha256/" + ld, "wb").write(blob)
man = json.dumps({"schemaVersion": 2, "layers": [{"mediaType":
      "application/vnd.oci.image.layer.v1.tar+gzip", "digest": "sha256:" + ld,
      "size": len(blob)}]}).encode()
md = hashlib.sha256(man).hexdigest()
open(d + "/blobs/sha256/" + md, "wb").write(man)
open(d + "/oci-layout", "w").write('{"imageLayoutVersion":"1.0.0"}')
json.dump({"schemaVersion": 2, "manifests": [{"mediaType":
           "application/vnd.oci.image.manifest.v1+json", "digest": "sha256:" + md,
           "size": len(man)}]}, open(d + "/index.json", "w"))
EOF
expect_exit 0 "$EBID" verify --perf=off bigimg
expect_eq "the line" "$out" "SKIP  bigimg:data/zeros  not an ELF file"
expect_exit 2 "$EBID" verify --perf=off --limit ratio=200 bigimg
expect_match "ratio=200" "$out" "^ERROR  bigimg  OCI image layout: layer 1/1 sha256:[0-9a-f]{12}: members declare 1258291200 bytes at 'data/zeros', more than 200 times"
t_end

t_begin "the bad artifacts: each an ERROR, exit 2, one stderr line naming it"
for f in "$ARTIFACTS"/bad/*; do
	case ${f##*/} in symlink-bin.tar) continue ;; esac
	expect_exit 2 "$EBID" verify --perf=off "$f"
	expect_match "${f##*/}: an ERROR line" "$(printf '%s\n' "$out" | grep '^ERROR  ')" "^ERROR  $(re_quote "$f")(:[^ ]*)?  "
	expect_eq "${f##*/}: stderr lines" "$(wc -l <"$SCRATCH/.err")" 1
done
expect_exit 0 "$EBID" verify --perf=off "$ARTIFACTS/bad/symlink-bin.tar"
expect_match "symlinks are listed, not followed" "$out" "symbolic link to '/usr/bin/true' \\(not followed\\)"
t_end

t_done
