#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""Craft relocations into the sections a move would move (stdlib only).

move-note and move-head (docs/build-id.md) move .note.ABI-tag, .interp, the
notes and sometimes dynamic tables; a relocation whose result points into
them, or that the loader applies inside them, would then name the old
place. Each command copies SRC to DST and changes one relocation so that
it does; tests/t0387 checks that inject refuses each of them and names
the relocation.

  craft_relocs.py addend SRC DST SECTION
      The first relative relocation (R_*_RELATIVE; on MIPS R_MIPS_REL32
      with no symbol) of the first SHT_RELA or SHT_REL section gets the
      address of SECTION as its result: in the RELA addend, or for REL in
      the word at r_offset (the implicit addend, class-sized, file byte
      order).
  craft_relocs.py relr SRC DST SECTION
      The first address of .relr.dyn (an even word): the word stored there
      (its implicit addend) becomes SECTION's address.
  craft_relocs.py at SRC DST SECTION
      The first relative relocation's r_offset becomes SECTION's address:
      the loader would write inside it.
  craft_relocs.py got SRC DST SECTION
      MIPS: the last local GOT entry (DT_PLTGOT, DT_MIPS_LOCAL_GOTNO) holds
      SECTION's address; the loader relocates it with no relocation entry.
  craft_relocs.py hide SRC DST SECTION
      As addend, then the relocation section's sh_type becomes SHT_PROGBITS:
      only the dynamic table's DT_RELA/DT_REL range still names it.

SECTION "@head" is the section that starts where the program header table
ends: the first one a move takes.

Each command prints the relocation as the tool names it:
"(TABLE entry N[, type T], at 0xAT, to 0xTO)" (hide: TABLE is DT_RELA or
DT_REL and N counts from the range's start).

Exit status: 0 done, 2 the input is not of the form the command needs
(message on stderr), 64 usage.
"""

import os
import shutil
import sys

sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.abspath(
    __file__))))
from ebid import BadInput, Elf  # noqa: E402  (the tests' ELF reader)

SHT_PROGBITS, SHT_RELA, SHT_REL, SHT_DYNAMIC, SHT_RELR = 1, 4, 9, 6, 19
PT_LOAD = 1
EM_MIPS = 8
# R_*_RELATIVE by e_machine (MIPS: R_MIPS_REL32 with no symbol).
RELATIVE = {3: 8, 8: 3, 21: 22, 22: 12, 40: 23, 62: 8, 183: 1027, 243: 3,
            258: 3}


def word(e):
    return 8 if e.is64 else 4


def section(e, name):
    head = e.e_phoff + e.e_phnum * e.e_phentsize
    for sh in e.shdrs:
        if sh["name_str"] == name or (name == "@head" and sh["size"] and
                                      sh["offset"] == head and sh["type"]):
            return sh
    raise BadInput("no section %s" % name)


def addr_off(e, addr):
    """The file offset that the PT_LOADs map address addr to."""
    for ph in e.phdrs:
        if ph["type"] == PT_LOAD and ph["vaddr"] <= addr < ph["vaddr"] + \
                ph["filesz"]:
            return ph["offset"] + addr - ph["vaddr"]
    raise BadInput("address 0x%x is in no PT_LOAD's file bytes" % addr)


def decode(e, off):
    """r_offset, r_sym, r_type of the entry at off."""
    w = word(e)
    at = e.get(off, w)
    if e.is64 and e.e_machine == EM_MIPS:
        return at, e.get(off + 8, 4), e.data[off + 15]
    info = e.get(off + w, w)
    if e.is64:
        return at, info >> 32, info & 0xFFFFFFFF
    return at, info >> 8, info & 0xFF


def first_relative(e):
    """(section, index, entry offset, r_offset, type) of the first one."""
    want = RELATIVE.get(e.e_machine)
    if want is None:
        raise BadInput("no relative type known for e_machine %d"
                       % e.e_machine)
    for sh in e.shdrs:
        if sh["type"] not in (SHT_RELA, SHT_REL):
            continue
        ent = word(e) * (3 if sh["type"] == SHT_RELA else 2)
        for i in range(sh["size"] // ent):
            off = sh["offset"] + i * ent
            at, sym, rtype = decode(e, off)
            if rtype == want and sym == 0:
                return sh, i, off, at, rtype
    raise BadInput("no relative relocation in a SHT_RELA or SHT_REL section")


def set_result(e, sh, off, at, to):
    """Make the relocation at off give to: addend, or the implicit one."""
    w = word(e)
    if sh["type"] == SHT_RELA:
        e.put(off + 2 * w, w, to)
    else:
        e.put(addr_off(e, at), w, to)


def dyn_entries(e):
    sh = [s for s in e.shdrs if s["type"] == SHT_DYNAMIC]
    if not sh:
        raise BadInput("no .dynamic section")
    w = word(e)
    out = []
    for i in range(sh[0]["size"] // (2 * w)):
        tag = e.get(sh[0]["offset"] + 2 * i * w, w)
        if tag == 0:
            break
        out.append((tag, e.get(sh[0]["offset"] + (2 * i + 1) * w, w)))
    return out


def cmd_addend(e, target, hide=False):
    sh, i, off, at, rtype = first_relative(e)
    set_result(e, sh, off, at, target)
    name = sh["name_str"]
    if hide:
        tag = 7 if sh["type"] == SHT_RELA else 17
        start = [v for t, v in dyn_entries(e) if t == tag]
        if not start:
            raise BadInput("no DT_RELA or DT_REL entry")
        ent = word(e) * (3 if sh["type"] == SHT_RELA else 2)
        i = (off - addr_off(e, start[0])) // ent
        name = "DT_RELA" if tag == 7 else "DT_REL"
        e.set(e.shdr(sh["index"])["sh_type"], SHT_PROGBITS)
    return "(%s entry %d, type %d, at 0x%x, to 0x%x)" % (name, i, rtype, at,
                                                        target)


def cmd_at(e, target):
    sh, i, off, at, rtype = first_relative(e)
    e.put(off, word(e), target)
    return "(%s entry %d, type %d, at 0x%x)" % (sh["name_str"], i, rtype,
                                               target)


def cmd_relr(e, target):
    sh = [s for s in e.shdrs if s["type"] == SHT_RELR]
    if not sh:
        raise BadInput("no SHT_RELR section")
    w = word(e)
    for i in range(sh[0]["size"] // w):
        at = e.get(sh[0]["offset"] + i * w, w)
        if not at & 1:
            e.put(addr_off(e, at), w, target)
            return "(%s entry %d, at 0x%x, to 0x%x)" % (
                sh[0]["name_str"], i, at, target)
    raise BadInput("no address entry in %s" % sh[0]["name_str"])


def cmd_got(e, target):
    dyn = dict(dyn_entries(e))
    if e.e_machine != EM_MIPS or 3 not in dyn or 0x7000000A not in dyn:
        raise BadInput("no MIPS local GOT (DT_PLTGOT, DT_MIPS_LOCAL_GOTNO)")
    n = dyn[0x7000000A]
    if n < 3:
        raise BadInput("only %d local GOT entries" % n)
    w = word(e)
    at = dyn[3] + (n - 1) * w
    e.put(addr_off(e, at), w, target)
    return "(MIPS local GOT entry %d, at 0x%x, to 0x%x)" % (n - 1, at, target)


def main(argv):
    cmds = {"addend": cmd_addend, "relr": cmd_relr, "at": cmd_at,
            "got": cmd_got,
            "hide": lambda e, t: cmd_addend(e, t, hide=True)}
    if len(argv) != 5 or argv[1] not in cmds:
        sys.stderr.write("usage: craft_relocs.py addend|relr|at|got|hide "
                         "SRC DST SECTION\n")
        return 64
    try:
        with open(argv[2], "rb") as f:
            data = bytearray(f.read())
        e = Elf(data)
        target = section(e, argv[4])["addr"]
        what = cmds[argv[1]](e, target)
    except (BadInput, OSError) as exc:
        sys.stderr.write("craft_relocs.py: %s\n" % exc)
        return 2
    shutil.copyfile(argv[2], argv[3])
    with open(argv[3], "r+b") as f:
        f.write(data)
    print(what)
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
