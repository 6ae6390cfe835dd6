#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""Crafts compatibility-matrix fixtures from linker output (stdlib only).

Each command copies IN to OUT and changes one thing, the way a tool or a
newer toolchain would, so the matrix covers shapes our toolchains do not
write themselves:

  matrix-craft.py noshdr IN OUT
      e_shoff, e_shnum and e_shstrndx set to 0: a file with no section
      headers (what binutils >= 2.41 `strip --strip-section-headers` gives,
      less the removal of the unreferenced bytes).
  matrix-craft.py xnum IN OUT
      Extended section numbering: e_shnum 0 with the count in section 0's
      sh_size, e_shstrndx SHN_XINDEX (0xffff) with the index in sh_link.
  matrix-craft.py pnxnum IN OUT
      e_phnum PN_XNUM (0xffff) with the program header count in section 0's
      sh_info, as core dumps with many segments are written. (Linux will not
      exec such a file, and its build-id reader rejects it.)
  matrix-craft.py unxnum IN OUT
      The inverse of xnum, for readers without extended numbering (perf 6.1);
      fails when the file really has 0xff00 or more sections.
  matrix-craft.py shstrtab-end IN OUT
      .shstrtab copied to the end of the file (8-aligned) and its section
      header pointed there, as Go >= 1.20 lays it out; the old bytes stay.
  matrix-craft.py trail IN OUT
      4099 bytes of patterned data appended after the last byte; the offset
      where they start is written to OUT.trail.

Exit status: 0 ok, 2 the input is not an ELF file of the expected form.
"""

import os
import struct
import sys

TRAIL_LEN = 4099


class Bad(Exception):
    pass


class Ehdr:
    def __init__(self, d):
        if d[:4] != b"\x7fELF" or d[4] not in (1, 2) or d[5] not in (1, 2):
            raise Bad("not an ELF file")
        self.is64 = d[4] == 2
        self.e = "<" if d[5] == 1 else ">"
        # Offsets of e_shoff, e_shentsize/e_shnum/e_shstrndx.
        self.shoff_at = 0x28 if self.is64 else 0x20
        self.shoff_fmt = "Q" if self.is64 else "I"
        self.shent_at = 0x3A if self.is64 else 0x2E
        (self.shoff,) = struct.unpack_from(self.e + self.shoff_fmt, d,
                                           self.shoff_at)
        self.shentsize, self.shnum, self.shstrndx = struct.unpack_from(
            self.e + "HHH", d, self.shent_at)
        # Section header field offsets: sh_offset, sh_size, sh_link, sh_addr
        # and sh_flags, by class.
        if self.is64:
            self.f = dict(name=(0, "I"), flags=(8, "Q"), addr=(16, "Q"),
                          offset=(24, "Q"), size=(32, "Q"), link=(40, "I"),
                          info=(44, "I"))
        else:
            self.f = dict(name=(0, "I"), flags=(8, "I"), addr=(12, "I"),
                          offset=(16, "I"), size=(20, "I"), link=(24, "I"),
                          info=(28, "I"))

    def get(self, d, i, field):
        off, fmt = self.f[field]
        return struct.unpack_from(self.e + fmt, d,
                                  self.shoff + i * self.shentsize + off)[0]

    def put(self, d, i, field, value):
        off, fmt = self.f[field]
        struct.pack_into(self.e + fmt, d,
                         self.shoff + i * self.shentsize + off, value)


def noshdr(d):
    h = Ehdr(d)
    struct.pack_into(h.e + h.shoff_fmt, d, h.shoff_at, 0)
    struct.pack_into(h.e + "HHH", d, h.shent_at, h.shentsize, 0, 0)


def xnum(d):
    h = Ehdr(d)
    if h.shoff == 0 or h.shnum == 0:
        raise Bad("no section headers, or already extended numbering")
    for field in ("size", "link"):
        if h.get(d, 0, field) != 0:
            raise Bad("section 0's sh_%s is not 0" % field)
    h.put(d, 0, "size", h.shnum)
    h.put(d, 0, "link", h.shstrndx)
    struct.pack_into(h.e + "HHH", d, h.shent_at, h.shentsize, 0, 0xFFFF)


def pnxnum(d):
    h = Ehdr(d)
    if h.shoff == 0 or h.shnum == 0:
        raise Bad("PN_XNUM needs section 0")
    if h.get(d, 0, "info") != 0:
        raise Bad("section 0's sh_info is not 0")
    phnum_at = 0x38 if h.is64 else 0x2C
    phnum, = struct.unpack_from(h.e + "H", d, phnum_at)
    h.put(d, 0, "info", phnum)
    struct.pack_into(h.e + "H", d, phnum_at, 0xFFFF)


def unxnum(d):
    h = Ehdr(d)
    if h.shoff == 0 or (h.shnum != 0 and h.shstrndx != 0xFFFF):
        raise Bad("not extended numbering (e_shnum not 0, e_shstrndx not "
                  "SHN_XINDEX)")
    shnum, shstrndx = h.shnum or h.get(d, 0, "size"), h.shstrndx
    if h.shstrndx == 0xFFFF:
        shstrndx = h.get(d, 0, "link")
    if shnum >= 0xFF00 or shstrndx >= 0xFF00:
        raise Bad("%d sections need extended numbering" % shnum)
    h.put(d, 0, "size", 0)
    h.put(d, 0, "link", 0)
    struct.pack_into(h.e + "HHH", d, h.shent_at, h.shentsize, shnum, shstrndx)


def shstrtab_end(d):
    h = Ehdr(d)
    if h.shnum == 0 or h.shstrndx >= h.shnum:
        raise Bad("no usable e_shstrndx")
    i = h.shstrndx
    off, size = h.get(d, i, "offset"), h.get(d, i, "size")
    if h.get(d, i, "flags") & 2:
        raise Bad(".shstrtab is SHF_ALLOC")
    table = bytes(d[off:off + size])
    pad = (-len(d)) % 8
    new_off = len(d) + pad
    d.extend(bytes(pad) + table)
    h.put(d, i, "offset", new_off)
    h.put(d, i, "addr", 0)


def trail(d, out):
    start = len(d)
    pattern = bytearray()
    n = 0
    while len(pattern) < TRAIL_LEN:
        pattern += b"TRAILING-DATA-%06d|" % n
        n += 1
    pattern[-1:] = b"\xff"
    d.extend(pattern[:TRAIL_LEN])
    with open(out + ".trail", "w") as f:
        f.write("%d %d\n" % (start, TRAIL_LEN))


def main(argv):
    if len(argv) != 4 or argv[1] not in ("noshdr", "xnum", "pnxnum", "unxnum",
                                         "shstrtab-end", "trail"):
        print(__doc__, file=sys.stderr)
        return 64
    how, src, dst = argv[1:]
    with open(src, "rb") as f:
        d = bytearray(f.read())
    try:
        if how == "noshdr":
            noshdr(d)
        elif how == "xnum":
            xnum(d)
        elif how == "pnxnum":
            pnxnum(d)
        elif how == "unxnum":
            unxnum(d)
        elif how == "shstrtab-end":
            shstrtab_end(d)
        else:
            trail(d, dst[:-4] if dst.endswith(".tmp") else dst)
    except (Bad, struct.error) as e:
        print("matrix-craft: '%s': %s: %s" % (src, how, e), file=sys.stderr)
        return 2
    with open(dst, "wb") as f:
        f.write(d)
    os.chmod(dst, os.stat(src).st_mode & 0o7777)
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
