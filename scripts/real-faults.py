#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
# The byte-level faults of scripts/check-real-faults.sh, applied to an
# injected x86-64 ELF file with its modification time kept (so make does
# not relink and the fault alone is what check-real must see).
# Usage: real-faults.py flipid|failtest|elflint FILE
import os
import struct
import subprocess
import sys


def main(fault, path):
    st = os.stat(path)
    with open(path, "rb") as fh:
        b = bytearray(fh.read())
    shoff, = struct.unpack_from("<Q", b, 0x28)
    shentsize, shnum = struct.unpack_from("<HH", b, 0x3a)
    if fault == "flipid":
        # One byte of the id: the note no longer holds what inject printed.
        out = subprocess.run(["readelf", "-n", path], capture_output=True,
                             text=True).stdout
        i = b.find(bytes.fromhex(out.split("Build ID:")[1].split()[0]))
        b[i] ^= 0xff
    elif fault == "failtest":
        # .text all int3: every program that loads the library crashes.
        out = subprocess.run(["readelf", "-SW", path], capture_output=True,
                             text=True).stdout
        for line in out.splitlines():
            w = line.replace("[ ", "[").split()
            if len(w) > 5 and w[1] == ".text":
                off, size = int(w[4], 16), int(w[5], 16)
                b[off:off + size] = b"\xcc" * size
    elif fault == "elflint":
        # The last section's sh_link out of range: eu-elflint says so.
        struct.pack_into("<I", b, shoff + (shnum - 1) * shentsize + 0x28, 999)
    with open(path, "wb") as fh:
        fh.write(b)
    os.utime(path, ns=(st.st_atime_ns, st.st_mtime_ns))
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1], sys.argv[2]))
