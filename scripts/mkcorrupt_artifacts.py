# SPDX-License-Identifier: MIT
"""The artifact cases of scripts/mkcorrupt.py (category "artifact"): bad
packages, tarballs and OCI image tars around one small ELF program, for
verify, show, inject and link (tests/robust/run_corrupt.py). Each case
changes one thing of a good artifact: a truncation, flipped bytes in a
compressed stream, a tar header's size field (huge, past the end, not a
number), a hostile member name or link, an ar member's size, a missing or
malformed index, manifest or layer of an image, a layer whose bytes do not
match its digest, nesting and member counts past the limits. The good
artifacts are cases too: they must pass through everything.

artifact_cases(elf) returns (name, what, bytes-maker) triples; stdlib
only, with the zstd and xz programs for their streams when present.
"""

import gzip
import hashlib
import io
import json
import lzma
import shutil
import subprocess
import tarfile


def tar_of(members, fmt=tarfile.GNU_FORMAT):
    """members: (name, kind, data) with kind f file, l symlink to data,
    h hard link to data, d directory."""
    bio = io.BytesIO()
    with tarfile.open(fileobj=bio, mode="w", format=fmt) as t:
        for name, kind, data in members:
            ti = tarfile.TarInfo(name)
            ti.mtime = 0
            if kind == "f":
                ti.size = len(data)
                t.addfile(ti, io.BytesIO(data))
                continue
            ti.type = {"l": tarfile.SYMTYPE, "h": tarfile.LNKTYPE,
                       "d": tarfile.DIRTYPE}[kind]
            if kind in "lh":
                ti.linkname = data
            t.addfile(ti)
    return bio.getvalue()


def zstd(data):
    if not shutil.which("zstd"):
        return None
    return subprocess.run(["zstd", "-q", "-c", "-3"], input=data,
                          stdout=subprocess.PIPE, check=True).stdout


def ar_of(members):
    out = b"!<arch>\n"
    for name, data in members:
        hdr = "%-16s%-12d%-6d%-6d%-8s%-10d`\n" % (name, 0, 0, 0, "100644",
                                                   len(data))
        out += hdr.encode() + data + (b"\n" if len(data) % 2 else b"")
    return out


def deb_of(data_tar_xz):
    return ar_of([("debian-binary", b"2.0\n"),
                  ("control.tar.xz", lzma.compress(tar_of(
                      [("./control", "f", b"Package: t\n")]))),
                  ("data.tar.xz", data_tar_xz)])


def set_size(tar, field):
    """The first header's size field (12 bytes at 124) replaced."""
    b = bytearray(tar)
    b[124:136] = field
    b[148:156] = b"        "
    b[148:156] = b"%06o\0 " % sum(b[:512])
    return bytes(b)


def flip(data, at, n=32):
    b = bytearray(data)
    for i in range(at, min(at + n, len(b))):
        b[i] ^= 0x5A
    return bytes(b)


def oci_tar(layers, index=None, manifest=None, bad_digest=False):
    """An OCI layout as a tar: layers are tar bytes (gzip'd here)."""
    blobs, descs = {}, []
    for raw in layers:
        gz = gzip.compress(raw, mtime=0)
        d = hashlib.sha256(gz).hexdigest()
        blobs[d] = flip(gz, len(gz) // 2, 4) if bad_digest else gz
        descs.append({"mediaType":
                      "application/vnd.oci.image.layer.v1.tar+gzip",
                      "digest": "sha256:" + d, "size": len(gz)})
    cfg = b"{}"
    blobs[hashlib.sha256(cfg).hexdigest()] = cfg
    man = manifest if manifest is not None else json.dumps(
        {"schemaVersion": 2, "config": {
            "mediaType": "application/vnd.oci.image.config.v1+json",
            "digest": "sha256:" + hashlib.sha256(cfg).hexdigest(),
            "size": 2}, "layers": descs}).encode()
    md = hashlib.sha256(man).hexdigest()
    blobs[md] = man
    idx = index if index is not None else json.dumps(
        {"schemaVersion": 2, "manifests": [{
            "mediaType": "application/vnd.oci.image.manifest.v1+json",
            "digest": "sha256:" + md, "size": len(man)}]}).encode()
    members = [("oci-layout", "f", b'{"imageLayoutVersion":"1.0.0"}'),
               ("index.json", "f", idx)]
    members += [("blobs/sha256/" + d, "f", b) for d, b in blobs.items()]
    return tar_of(members, tarfile.PAX_FORMAT), md


def nested_index(depth):
    """index.json naming an index naming an index ... depth deep."""
    blobs = {}
    inner = json.dumps({"schemaVersion": 2, "manifests": []}).encode()
    for _ in range(depth):
        d = hashlib.sha256(inner).hexdigest()
        blobs[d] = inner
        inner = json.dumps({"schemaVersion": 2, "manifests": [{
            "mediaType": "application/vnd.oci.image.index.v1+json",
            "digest": "sha256:" + d, "size": len(inner)}]}).encode()
    members = [("oci-layout", "f", b"{}"), ("index.json", "f", inner)]
    members += [("blobs/sha256/" + d, "f", b) for d, b in blobs.items()]
    return tar_of(members, tarfile.PAX_FORMAT)


def tar_cases(elf):
    good = tar_of([("./usr/bin/p", "f", elf), ("./etc/c", "f", b"x\n")])
    yield "tar.good", "a good tar", lambda: good
    for n in (1, 100, 511, 512, 700, len(good) // 2, len(good) - 1):
        yield "tar.trunc-%d" % n, "tar cut at %d" % n, lambda n=n: good[:n]
    yield "tar.size-huge", "size field 077777777777", \
        lambda: set_size(good, b"77777777777\0")
    yield "tar.size-base256", "size field base-256, 2^63-1", \
        lambda: set_size(good, b"\x80" + b"\x00" * 3 + b"\x7f" + b"\xff" * 7)
    yield "tar.size-past-end", "size field past the end", \
        lambda: set_size(good, b"%011o\0" % (len(good) * 4))
    yield "tar.size-garbage", "size field not octal", \
        lambda: set_size(good, b"zzzzzzzzzzz\0")
    yield "tar.checksum", "a wrong header checksum", \
        lambda: good[:148] + b"0000000\0" + good[156:]
    for name, w in (("../p", "dotdot"), ("/usr/bin/p", "abs"),
                    ("a/../../p", "dotdot-mid"), ("./a/./b/../p", "dotdot-dot")):
        yield "tar.name-" + w, "member named %r" % name, \
            lambda name=name: tar_of([(name, "f", elf)])
    yield "tar.symlink-bin", "a symlink named like a program", \
        lambda: tar_of([("usr/bin/p", "l", "/etc/shadow")])
    yield "tar.hardlink-missing", "a hard link to no member", \
        lambda: tar_of([("usr/bin/p", "h", "usr/bin/none")])
    yield "tar.hardlink-dotdot", "a hard link to ../x", \
        lambda: tar_of([("usr/bin/p", "h", "../x")])
    yield "tar.hardlink-self", "a hard link to itself", \
        lambda: tar_of([("usr/bin/p", "h", "usr/bin/p")])
    yield "tar.long-name", "a 9000-byte pax path", \
        lambda: tar_of([("d/" * 4500 + "p", "f", elf)], tarfile.PAX_FORMAT)
    yield "tar.many", "3000 empty members", \
        lambda: tar_of([("e%d" % i, "f", b"") for i in range(3000)])
    yield "tar.elf-trunc", "an ELF member cut to 64 bytes", \
        lambda: tar_of([("p", "f", elf[:64])])


def stream_cases(elf):
    raw = tar_of([("./usr/bin/p", "f", elf)])
    streams = [("gz", gzip.compress(raw, mtime=0)), ("xz", lzma.compress(raw))]
    z = zstd(raw)
    if z is not None:
        streams.append(("zst", z))
    for ext, data in streams:
        yield "tar%s.good" % ext, "a good .tar.%s" % ext, lambda d=data: d
        for n in (3, 20, len(data) // 2, len(data) - 4):
            yield "tar%s.trunc-%d" % (ext, n), ".tar.%s cut at %d" % (ext, n), \
                lambda d=data, n=n: d[:n]
        yield "tar%s.flip" % ext, ".tar.%s, bytes flipped mid-stream" % ext, \
            lambda d=data: flip(d, len(d) // 2)
        yield "tar%s.trailing" % ext, ".tar.%s, garbage after" % ext, \
            lambda d=data: d + b"\x00garbage" * 64
    zeros = tar_of([("big", "f", b"")])
    yield "targz.bomb", "a member declaring 8 GiB, gzip'd", \
        lambda: gzip.compress(set_size(zeros, b"%011o\0" % ((1 << 33) - 1)) +
                              b"\0" * (1 << 20), mtime=0)


def deb_cases(elf):
    data = lzma.compress(tar_of([("./usr/bin/p", "f", elf)]))
    good = deb_of(data)
    yield "deb.good", "a good .deb", lambda: good
    yield "deb.no-data", "no data.tar member", \
        lambda: ar_of([("debian-binary", b"2.0\n")])
    yield "deb.data-trunc", "data.tar.xz cut in half", \
        lambda: deb_of(data[:len(data) // 2])
    yield "deb.data-garbage", "data.tar.xz of garbage", \
        lambda: deb_of(b"\xfd7zXZ\x00" + b"\x01" * 200)
    yield "deb.ar-size-past-end", "an ar member's size past the end", \
        lambda: good[:8] + good[8:56] + b"99999999  " + good[66:]
    for n in (8, 30, 68, len(good) // 2):
        yield "deb.trunc-%d" % n, ".deb cut at %d" % n, lambda n=n: good[:n]
    yield "rpm.lead-only", "an RPM lead and nothing else", \
        lambda: b"\xed\xab\xee\xdb" + b"\x03\x00" + b"\x00" * 90
    yield "rpm.garbage", "an RPM lead, then garbage", \
        lambda: b"\xed\xab\xee\xdb\x03\x00" + b"\x00" * 90 + b"\x8e\xad\xe8" \
        + b"\xff" * 4000


def oci_cases(elf):
    l1 = tar_of([("usr/bin/p", "f", elf), ("usr/bin/q", "f", elf)])
    l2 = tar_of([("usr/bin/.wh.q", "f", b"")])
    yield "oci.good", "a good two-layer image tar", \
        lambda: oci_tar([l1, l2])[0]
    yield "oci.bad-digest", "layer 2's bytes do not match its digest", \
        lambda: oci_tar([l1, l2], bad_digest=True)[0]
    yield "oci.index-not-json", "index.json is not JSON", \
        lambda: oci_tar([l1], index=b"{\"manifests\": [")[0]
    yield "oci.index-empty", "index.json names no manifest", \
        lambda: oci_tar([l1], index=b"{\"manifests\": []}")[0]
    yield "oci.index-missing-blob", "index.json names a missing blob", \
        lambda: oci_tar([l1], index=json.dumps({"manifests": [{
            "mediaType": "application/vnd.oci.image.manifest.v1+json",
            "digest": "sha256:" + "0" * 64, "size": 2}]}).encode())[0]
    yield "oci.index-bad-digest", "a digest that is not sha256:HEX", \
        lambda: oci_tar([l1], index=json.dumps({"manifests": [{
            "digest": "sha256:../../etc/passwd", "size": 2}]}).encode())[0]
    yield "oci.index-no-digest", "a descriptor without a digest (fuzz_artifact)", \
        lambda: oci_tar([l1], index=json.dumps({"manifests": [{
            "mediaType": "application/vnd.oci.image.index.v1+json",
            "size": 2}]}).encode())[0]
    yield "oci.manifest-layers-string", "\"layers\" is a string", \
        lambda: oci_tar([l1], manifest=b"{\"layers\": \"x\"}")[0]
    yield "oci.manifest-2000-layers", "2000 layers", \
        lambda: oci_tar([l1], manifest=json.dumps({"layers": [
            {"digest": "sha256:" + "1" * 64}] * 2000}).encode())[0]
    yield "oci.nested-index", "indexes nested 10 deep", \
        lambda: nested_index(10)
    good = oci_tar([l1, l2])[0]
    yield "oci.trunc-half", "an image tar cut in half", \
        lambda: good[:len(good) // 2]


def artifact_cases(elf):
    for gen in (tar_cases, stream_cases, deb_cases, oci_cases):
        yield from gen(elf)
