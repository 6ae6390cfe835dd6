#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""Writes the seed corpus of tests/fuzz/fuzz_pprof.c into a directory.

  pprof_seeds.py OUTDIR [--go-build DIR]

Seeds, each gzip'd (as pprof writes them) and plain:
  pprof-*     profiles written by tests/pprof.py: ids upper and lower case,
              none, too long, not hex; symbolized or not; a mapping without
              samples; two mappings of one file; and pprof-padded.pb.gz,
              gzip'd only, that inflates to 160 times its size
  go-*        CPU profiles that Go's runtime/pprof wrote for
              fixtures/pprofgo (a short busy loop), built three ways
              (default, with -B 0x<id>, linked by the system linker): only
              when go is installed; the programs are built in --go-build
              DIR (default build/fuzz/pprofgo) and kept, and the profiles
              are made once
and perf.data headers (perf_file_header of tools/perf/util/header.h):
  perf-le     a header with attrs, data and two feature sections
  perf-be     the same written by a big-endian host ("2ELIFREP")
  perf-pipe   a pipe-mode header (size 16)
  perf-record what `perf record true` wrote, when perf record works here
"""
import gzip
import os
import shutil
import struct
import subprocess
import sys

TOP = os.path.abspath(os.path.join(os.path.dirname(__file__), "..", ".."))
PPROF_PY = os.path.join(TOP, "tests", "pprof.py")

PPROF_CASES = {
    "pprof-ids": ["/usr/bin/true,0123456789abcdef0123456789abcdef01234567,0",
                  "/lib/x86_64-linux-gnu/libc.so.6,ABCDEF0123,1",
                  "!/usr/lib/unsampled.so,aa,0"],
    "pprof-noid": ["/opt/app/bin/server,,1"],
    "pprof-badids": ["/a,0123456789abcdef0123456789abcdef0123456789,0",
                     "/b,xyz1,0", "/c,abc,1"],
    "pprof-samefile": ["/same,aabb,0", "/same,aabb,1", "/same,ccdd,0"],
}


def write_both(outdir, name, gz_bytes):
    """NAME.pb.gz as given and NAME.pb inflated."""
    with open(os.path.join(outdir, name + ".pb.gz"), "wb") as f:
        f.write(gz_bytes)
    with open(os.path.join(outdir, name + ".pb"), "wb") as f:
        f.write(gzip.decompress(gz_bytes))


def pprof_seeds(outdir):
    for name, specs in PPROF_CASES.items():
        tmp = os.path.join(outdir, name + ".tmp")
        subprocess.run([sys.executable, PPROF_PY, tmp, "--time-ns",
                        "1700000000123456789"] + specs, check=True)
        with open(tmp, "rb") as f:
            data = f.read()
        os.unlink(tmp)
        write_both(outdir, name, data)
    # Inflating to many times its size (zlib's buffer grows), with a
    # string table of 30,000 empty strings more: only gzip'd.
    with open(os.path.join(outdir, "pprof-ids.pb"), "rb") as f:
        padded = f.read() + b"\x32\x00" * 30000
    with open(os.path.join(outdir, "pprof-padded.pb.gz"), "wb") as f:
        f.write(gzip.compress(padded, mtime=0))


def go_seeds(outdir, gobuild):
    go = shutil.which("go")
    if not go:
        print("pprof_seeds: go not installed: no go-* seeds", file=sys.stderr)
        return
    env = dict(os.environ)
    env.setdefault("GOCACHE", os.path.join(TOP, "build", "go", "cache"))
    env.setdefault("GOPATH", os.path.join(TOP, "build", "go", "path"))
    env.update(GOENV="off", GOFLAGS="", GOTOOLCHAIN="local")
    src = os.path.join(TOP, "fixtures", "pprofgo")
    os.makedirs(gobuild, exist_ok=True)
    kinds = {
        "go-default": ([], {}),
        "go-id": (["-ldflags=-B=0x0123456789abcdeffedcba9876543210a5a5a5a5"], {}),
        "go-extld": (["-ldflags=-linkmode=external"], {"CGO_ENABLED": "1"}),
    }
    for name, (flags, extra) in kinds.items():
        if os.path.exists(os.path.join(outdir, name + ".pb.gz")):
            continue
        exe = os.path.join(gobuild, name)
        if not os.path.exists(exe):
            r = subprocess.run([go, "build", "-o", exe] + flags + ["."],
                               cwd=src, env=dict(env, **extra),
                               capture_output=True, text=True)
            if r.returncode:
                print("pprof_seeds: go build %s failed: %s" %
                      (name, r.stderr.strip()), file=sys.stderr)
                continue
        out = os.path.join(gobuild, name + ".pb.gz")
        subprocess.run([exe, out], check=True, capture_output=True)
        with open(out, "rb") as f:
            write_both(outdir, name, f.read())


def perf_header(big_endian, features):
    """A perf.data with attrs, data and one section per feature."""
    e = ">" if big_endian else "<"
    magic = b"2ELIFREP" if big_endian else b"PERFILE2"
    attr = struct.pack(e + "IIQ", 0, 128, 1) + bytes(128 - 16)  # attr
    attrs = attr + struct.pack(e + "QQ", 0, 0)  # attr + its ids section
    data = struct.pack(e + "IHH", 9, 0, 16) + bytes(8)  # a small record
    off_attrs = 104
    off_data = off_attrs + len(attrs)
    feat_tab = off_data + len(data)
    feat_data = feat_tab + 16 * len(features)
    bodies = [struct.pack(e + "I", 4) + b"x86\0" for _ in features]
    bitmap = [0, 0, 0, 0]
    for bit in features:
        bitmap[bit // 64] |= 1 << (bit % 64)
    head = magic + struct.pack(e + "QQ", 104, len(attr) + 16)
    head += struct.pack(e + "QQQQQQ", off_attrs, len(attrs), off_data,
                        len(data), 0, 0)
    head += struct.pack(e + "QQQQ", *bitmap)
    tab = b""
    off = feat_data
    for b in bodies:
        tab += struct.pack(e + "QQ", off, len(b))
        off += len(b)
    return head + attrs + data + tab + b"".join(bodies)


def perf_seeds(outdir):
    seeds = {
        "perf-le": perf_header(False, [2, 3]),  # HEADER_BUILD_ID, HOSTNAME
        "perf-be": perf_header(True, [2, 3]),
        "perf-pipe": b"PERFILE2" + struct.pack("<Q", 16),
    }
    for name, data in seeds.items():
        with open(os.path.join(outdir, name), "wb") as f:
            f.write(data)
    perf = shutil.which("perf")
    out = os.path.join(outdir, "perf-record")
    if perf and not os.path.exists(out):
        r = subprocess.run([perf, "record", "-N", "-B", "-q", "--no-bpf-event",
                            "-o", out, "--", "true"], capture_output=True)
        if r.returncode and os.path.exists(out):
            os.unlink(out)


def main(argv):
    if len(argv) not in (2, 4) or (len(argv) == 4 and argv[2] != "--go-build"):
        sys.stderr.write(__doc__)
        return 64
    outdir = argv[1]
    gobuild = argv[3] if len(argv) == 4 else os.path.join(TOP, "build", "fuzz",
                                                          "pprofgo")
    os.makedirs(outdir, exist_ok=True)
    pprof_seeds(outdir)
    go_seeds(outdir, gobuild)
    perf_seeds(outdir)
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
