#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""Writes a small pprof profile (profile.proto, gzip'd) for the audit tests.

It shares no code with the C tool: the protobuf wire format is encoded here
by hand, from google/pprof's proto/profile.proto, and `go tool pprof -raw`
is the judge that the result is a valid profile.

  pprof.py OUT --time-ns NS MAPPING...
      MAPPING is PATH,ID,SYMBOLIZED: the binary's path, its build-id in hex
      (empty for none) and 1 when the profile already names its functions.
      Each mapping gets one location and one sample (value 1); mappings
      named with a leading '!' get a location but no sample.
"""
import gzip
import sys


def varint(n):
    out = bytearray()
    while True:
        b = n & 0x7F
        n >>= 7
        if n:
            out.append(b | 0x80)
        else:
            out.append(b)
            return bytes(out)


def field_varint(num, v):
    return varint(num << 3) + varint(v)


def field_bytes(num, b):
    return varint(num << 3 | 2) + varint(len(b)) + b


def main(argv):
    if len(argv) < 4 or argv[2] != "--time-ns":
        sys.stderr.write(__doc__)
        return 64
    out, time_ns, specs = argv[1], int(argv[3]), argv[4:]
    strings = ["", "cpu", "nanoseconds", "samples", "count"]

    def sidx(s):
        if s not in strings:
            strings.append(s)
        return strings.index(s)

    msg = bytearray()
    # sample_type: samples/count, cpu/nanoseconds
    msg += field_bytes(1, field_varint(1, sidx("samples")) +
                       field_varint(2, sidx("count")))
    msg += field_bytes(1, field_varint(1, sidx("cpu")) +
                       field_varint(2, sidx("nanoseconds")))
    for i, spec in enumerate(specs, start=1):
        path, bid, symbolized = spec.split(",")
        sampled = not path.startswith("!")
        path = path.lstrip("!")
        start = 0x400000 * i
        m = field_varint(1, i) + field_varint(2, start) + \
            field_varint(3, start + 0x100000) + field_varint(4, 0) + \
            field_varint(5, sidx(path))
        if bid:
            m += field_varint(6, sidx(bid))
        if symbolized == "1":
            m += field_varint(7, 1)
        msg += field_bytes(3, m)
        # Location i in mapping i, at an address inside it.
        msg += field_bytes(4, field_varint(1, i) + field_varint(2, i) +
                           field_varint(3, start + 0x1234))
        if sampled:
            # location_id packed, value [1, 10000000]
            msg += field_bytes(2, field_bytes(1, varint(i)) +
                               field_bytes(2, varint(1) + varint(10000000)))
    for s in strings:
        msg += field_bytes(6, s.encode())
    msg += field_varint(9, time_ns)
    msg += field_varint(10, 1000000000)
    msg += field_bytes(11, field_varint(1, sidx("cpu")) +
                       field_varint(2, sidx("nanoseconds")))
    msg += field_varint(12, 10000000)
    with open(out, "wb") as f:
        f.write(gzip.compress(bytes(msg), mtime=0))
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
