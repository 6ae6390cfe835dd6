#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
# pprof-addresses-only.py IN OUT: copy a pprof profile (gzipped protobuf,
# github.com/google/pprof/proto/profile.proto) without its function table,
# the lines of its locations and the mappings' has_functions/filenames/
# line_numbers/inline_frames flags: addresses, mappings and build-ids only,
# as in a profile from perf or an eBPF agent. runtime/pprof writes names
# into its profiles; this makes pprof find them again in a binary, so that
# which binary it found shows in its output (t0810).
import gzip
import sys


def varint(b, i):
    r = s = 0
    while True:
        c = b[i]
        i += 1
        r |= (c & 0x7F) << s
        s += 7
        if c < 0x80:
            return r, i


def encode(v):
    out = bytearray()
    while True:
        c = v & 0x7F
        v >>= 7
        if not v:
            out.append(c)
            return bytes(out)
        out.append(c | 0x80)


def fields(b):
    """(field number, raw bytes of the whole field, payload if length-delimited)"""
    i = 0
    while i < len(b):
        start = i
        key, i = varint(b, i)
        num, wire = key >> 3, key & 7
        body = None
        if wire == 0:
            _, i = varint(b, i)
        elif wire == 1:
            i += 8
        elif wire == 5:
            i += 4
        elif wire == 2:
            n, i = varint(b, i)
            body = b[i:i + n]
            i += n
        else:
            raise ValueError("unsupported wire type %d at byte %d" % (wire, start))
        if i > len(b):
            raise ValueError("field %d runs past the end" % num)
        yield num, b[start:i], body


def message(num, body):
    return encode(num << 3 | 2) + encode(len(body)) + body


def keep(body, drop):
    return b"".join(raw for n, raw, _ in fields(body) if n not in drop)


PROFILE_FUNCTION, PROFILE_MAPPING, PROFILE_LOCATION = 5, 3, 4
LOCATION_LINE = 4
MAPPING_HAS = (7, 8, 9, 10)

data = gzip.decompress(open(sys.argv[1], "rb").read())
out = bytearray()
for num, raw, body in fields(data):
    if num == PROFILE_FUNCTION:
        continue
    if num == PROFILE_LOCATION:
        out += message(num, keep(body, (LOCATION_LINE,)))
    elif num == PROFILE_MAPPING:
        out += message(num, keep(body, MAPPING_HAS))
    else:
        out += raw
with open(sys.argv[2], "wb") as f:
    f.write(gzip.compress(bytes(out), mtime=0))
