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
import sys

sys.path.insert(0, os.path.join(os.path.dirname(os.path.dirname(
    os.path.abspath(__file__))), "tests"))
from ebid import BadInput, Fields  # noqa: E402  (the tests' ELF reader)

TRAIL_LEN = 4099
SHN_XINDEX = PN_XNUM = 0xFFFF


class Bad(Exception):
    pass


def noshdr(d):
    h = Fields(d)
    for name in ("e_shoff", "e_shnum", "e_shstrndx"):
        h.set(h.ehdr()[name], 0)


def xnum(d):
    h = Fields(d)
    if h.e_shoff == 0 or h.e_shnum == 0:
        raise Bad("no section headers, or already extended numbering")
    sh0 = h.shdr(0)
    for field in ("sh_size", "sh_link"):
        if sh0[field].value != 0:
            raise Bad("section 0's %s is not 0" % field)
    h.set(sh0["sh_size"], h.e_shnum)
    h.set(sh0["sh_link"], h.e_shstrndx)
    h.set(h.ehdr()["e_shnum"], 0)
    h.set(h.ehdr()["e_shstrndx"], SHN_XINDEX)


def pnxnum(d):
    h = Fields(d)
    if h.e_shoff == 0 or h.e_shnum == 0:
        raise Bad("PN_XNUM needs section 0")
    sh0 = h.shdr(0)
    if sh0["sh_info"].value != 0:
        raise Bad("section 0's sh_info is not 0")
    h.set(sh0["sh_info"], h.e_phnum)
    h.set(h.ehdr()["e_phnum"], PN_XNUM)


def unxnum(d):
    h = Fields(d)
    if h.e_shoff == 0 or (h.e_shnum != 0 and h.e_shstrndx != SHN_XINDEX):
        raise Bad("not extended numbering (e_shnum not 0, e_shstrndx not "
                  "SHN_XINDEX)")
    sh0 = h.shdr(0)
    shnum, shstrndx = h.e_shnum or sh0["sh_size"].value, h.e_shstrndx
    if h.e_shstrndx == SHN_XINDEX:
        shstrndx = sh0["sh_link"].value
    if shnum >= 0xFF00 or shstrndx >= 0xFF00:
        raise Bad("%d sections need extended numbering" % shnum)
    h.set(sh0["sh_size"], 0)
    h.set(sh0["sh_link"], 0)
    h.set(h.ehdr()["e_shnum"], shnum)
    h.set(h.ehdr()["e_shstrndx"], shstrndx)


def shstrtab_end(d):
    h = Fields(d)
    if h.e_shnum == 0 or h.e_shstrndx >= h.e_shnum:
        raise Bad("no usable e_shstrndx")
    sh = h.shdr(h.e_shstrndx)
    off, size = sh["sh_offset"].value, sh["sh_size"].value
    if sh["sh_flags"].value & 2:
        raise Bad(".shstrtab is SHF_ALLOC")
    table = bytes(d[off:off + size])
    pad = (-len(d)) % 8
    new_off = len(d) + pad
    d.extend(bytes(pad) + table)
    h.set(sh["sh_offset"], new_off)
    h.set(sh["sh_addr"], 0)


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
    except (Bad, BadInput) as e:
        print("matrix-craft: '%s': %s: %s" % (src, how, e), file=sys.stderr)
        return 2
    with open(dst, "wb") as f:
        f.write(d)
    os.chmod(dst, os.stat(src).st_mode & 0o7777)
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
