#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""Craft hostile inputs for the move-head strategy (stdlib only).

move-head (docs/build-id.md, "Moving .interp and the notes") moves the
sections right after the program headers behind the first PT_LOAD, with
their DT_ entries and the symbols that point into them. Each command copies
SRC to DST and changes one thing so that a move done naively breaks the
file while the input itself still loads and runs; tests/t0386 checks that
inject refuses each of them. (Found by an adversarial review of move-head.)

  craft_movehead.py dyn-offset SRC DST
      PT_DYNAMIC's p_offset names a copy of the dynamic table appended at
      the end of the file (16-aligned); p_vaddr still names the real
      .dynamic, which is the one the dynamic loader reads. A tool that
      follows p_offset patches the copy and leaves the loader's DT_ entries
      pointing at the old place of the moved tables.
  craft_movehead.py two-dynamic SRC DST
      Two PT_DYNAMIC headers: the first (the original entry) names a copy
      of the table appended at the end of the file, the last (the entry of
      PT_GNU_EH_FRAME, which must come after PT_DYNAMIC and which nothing
      needs to load) names the real one. glibc's loader takes the last
      PT_DYNAMIC; a reader that stops at the first patches the copy.
  craft_movehead.py sym-in-padding SRC DST VALUE
      The first local .symtab symbol of .text (a function, object or
      untyped symbol, st_shndx = .text) gets st_value VALUE (decimal or
      0x...). With VALUE in the padding between two sections that move
      (for a mold PIE, between .interp's end and .note.gnu.property), the
      symbol points into the moved bytes but into no moved section, so
      moving the run would leave it naming whatever is put there.

Each command prints one line saying what it changed. The input may be
ELF32 or ELF64, either byte order; it must have section headers.

Exit status: 0 done, 2 the input is not of the form the command needs
(message on stderr), 64 usage.
"""

import os
import struct
import sys

PT_DYNAMIC = 2
PT_GNU_EH_FRAME = 0x6474E550
STB_LOCAL = 0
STT_NOTYPE, STT_OBJECT, STT_FUNC = 0, 1, 2


class BadInput(Exception):
    """SRC is not of the form the command needs; the message says why."""


class Elf:
    """A whole ELF file in a bytearray, with its headers read and written
    in place (adapted from the reviewer's elfx.py)."""

    # Program header layout and field names, by class.
    PH_FMT = {True: "IIQQQQQQ", False: "IIIIIIII"}
    PH_KEYS = {True: ["type", "flags", "offset", "vaddr", "paddr",
                      "filesz", "memsz", "align"],
               False: ["type", "offset", "vaddr", "paddr", "filesz",
                       "memsz", "flags", "align"]}
    SH_FMT = {True: "IIQQQQIIQQ", False: "IIIIIIIIII"}
    SH_KEYS = ["name", "type", "flags", "addr", "offset", "size", "link",
               "info", "addralign", "entsize"]

    def __init__(self, path):
        with open(path, "rb") as f:
            self.b = bytearray(f.read())
        b = self.b
        if len(b) < 52 or b[:4] != b"\x7fELF":
            raise BadInput("not an ELF file")
        if b[4] not in (1, 2) or b[5] not in (1, 2):
            raise BadInput("EI_CLASS or EI_DATA is not valid")
        self.c64 = b[4] == 2
        self.e = "<" if b[5] == 1 else ">"
        if self.c64:
            if len(b) < 64:
                raise BadInput("truncated ELF header")
            self.phoff, self.shoff = struct.unpack_from(self.e + "QQ", b, 0x20)
            at = 0x36
        else:
            self.phoff, self.shoff = struct.unpack_from(self.e + "II", b, 0x1C)
            at = 0x2A
        (self.phentsize, self.phnum, self.shentsize, self.shnum,
         self.shstrndx) = struct.unpack_from(self.e + "HHHHH", b, at)
        if self.shoff == 0 or self.shnum == 0 or self.shstrndx >= self.shnum:
            raise BadInput("no section headers (or no section name table)")
        if self.phoff + self.phnum * self.phentsize > len(b) or \
                self.shoff + self.shnum * self.shentsize > len(b):
            raise BadInput("a header table runs past the end of the file")

    def ph(self, i):
        """Program header i as a dict."""
        return dict(zip(self.PH_KEYS[self.c64], struct.unpack_from(
            self.e + self.PH_FMT[self.c64], self.b,
            self.phoff + i * self.phentsize)))

    def set_ph(self, i, d):
        struct.pack_into(self.e + self.PH_FMT[self.c64], self.b,
                         self.phoff + i * self.phentsize,
                         *[d[k] for k in self.PH_KEYS[self.c64]])

    def sh(self, i):
        """Section header i as a dict."""
        return dict(zip(self.SH_KEYS, struct.unpack_from(
            self.e + self.SH_FMT[self.c64], self.b,
            self.shoff + i * self.shentsize)))

    def name(self, i):
        """The name of section i."""
        o = self.sh(self.shstrndx)["offset"] + self.sh(i)["name"]
        end = self.b.find(0, o)
        if end < 0:
            raise BadInput("section %d's name is not terminated" % i)
        return self.b[o:end].decode("utf-8", "replace")

    def find(self, name):
        """The index of the first section called name, or None."""
        for i in range(self.shnum):
            if self.name(i) == name:
                return i
        return None

    def phdrs_of(self, ptype):
        """The indexes of the program headers of type ptype."""
        return [i for i in range(self.phnum) if self.ph(i)["type"] == ptype]

    def syms(self, idx):
        """The symbols of symbol table section idx: index, info, shndx,
        value and the file offsets of the entry and of its st_value."""
        h = self.sh(idx)
        ent = 24 if self.c64 else 16
        if h["offset"] + h["size"] > len(self.b):
            raise BadInput("section %d runs past the end of the file" % idx)
        out = []
        for k in range(h["size"] // ent):
            o = h["offset"] + k * ent
            if self.c64:
                _, info, _, shndx, value, _ = struct.unpack_from(
                    self.e + "IBBHQQ", self.b, o)
                voff = o + 8
            else:
                _, value, _, info, _, shndx = struct.unpack_from(
                    self.e + "IIIBBH", self.b, o)
                voff = o + 4
            out.append(dict(k=k, off=o, info=info, shndx=shndx, value=value,
                            voff=voff))
        return out

    def set_sym_value(self, sym, value):
        struct.pack_into(self.e + ("Q" if self.c64 else "I"), self.b,
                         sym["voff"], value)

    def append_aligned(self, data, align=16):
        """Append data at the next multiple of align; return its offset."""
        while len(self.b) % align:
            self.b.append(0)
        off = len(self.b)
        self.b += data
        return off

    def save(self, path):
        with open(path, "wb") as f:
            f.write(self.b)
        os.chmod(path, 0o755)


def the_dynamic(e):
    """The index and header of the one PT_DYNAMIC, and its table's bytes."""
    dyn = e.phdrs_of(PT_DYNAMIC)
    if len(dyn) != 1:
        raise BadInput("%d PT_DYNAMIC headers, want 1" % len(dyn))
    p = e.ph(dyn[0])
    if p["filesz"] == 0 or p["offset"] + p["filesz"] > len(e.b):
        raise BadInput("PT_DYNAMIC's bytes are not in the file")
    return dyn[0], p, bytes(e.b[p["offset"]:p["offset"] + p["filesz"]])


def cmd_dyn_offset(src, dst):
    e = Elf(src)
    i, p, table = the_dynamic(e)
    old = p["offset"]
    p["offset"] = e.append_aligned(table)
    e.set_ph(i, p)
    e.save(dst)
    print("program header [%d] PT_DYNAMIC: p_offset 0x%x -> 0x%x (a copy "
          "of the table); p_vaddr 0x%x kept" % (i, old, p["offset"],
                                                 p["vaddr"]))


def cmd_two_dynamic(src, dst):
    e = Elf(src)
    i, real, table = the_dynamic(e)
    later = [j for j in e.phdrs_of(PT_GNU_EH_FRAME) if j > i]
    if not later:
        raise BadInput("no PT_GNU_EH_FRAME after PT_DYNAMIC to turn into "
                       "the second PT_DYNAMIC")
    j = later[0]
    fake = dict(real)
    fake["offset"] = e.append_aligned(table)
    e.set_ph(i, fake)
    e.set_ph(j, real)
    e.save(dst)
    print("program header [%d] PT_DYNAMIC: p_offset 0x%x (a copy of the "
          "table); program header [%d] (was PT_GNU_EH_FRAME): PT_DYNAMIC at "
          "p_offset 0x%x (the real one)" % (i, fake["offset"], j,
                                           real["offset"]))


def cmd_sym_in_padding(src, dst, value):
    e = Elf(src)
    symtab, text = e.find(".symtab"), e.find(".text")
    if symtab is None or text is None:
        raise BadInput("no .symtab or no .text section")
    for s in e.syms(symtab):
        if s["k"] and s["info"] >> 4 == STB_LOCAL and \
                s["info"] & 15 in (STT_NOTYPE, STT_OBJECT, STT_FUNC) and \
                s["shndx"] == text:
            break
    else:
        raise BadInput("no local symbol of .text in .symtab")
    e.set_sym_value(s, value)
    e.save(dst)
    print("symbol %d (section %d, .text): st_value 0x%x -> 0x%x"
          % (s["k"], text, s["value"], value))


def usage(msg=None):
    if msg:
        print("craft_movehead.py: %s" % msg, file=sys.stderr)
    print("usage: craft_movehead.py dyn-offset|two-dynamic SRC DST\n"
          "       craft_movehead.py sym-in-padding SRC DST VALUE",
          file=sys.stderr)
    return 64


def main(argv):
    if not argv:
        return usage()
    cmd, args = argv[0], argv[1:]
    try:
        if cmd in ("dyn-offset", "two-dynamic"):
            if len(args) != 2:
                return usage("%s takes SRC DST" % cmd)
            (cmd_dyn_offset if cmd == "dyn-offset" else cmd_two_dynamic)(*args)
        elif cmd == "sym-in-padding":
            if len(args) != 3:
                return usage("sym-in-padding takes SRC DST VALUE")
            try:
                value = int(args[2], 0)
            except ValueError:
                return usage("VALUE %r is not a number" % args[2])
            cmd_sym_in_padding(args[0], args[1], value)
        else:
            return usage("unknown command %r" % cmd)
    except BadInput as ex:
        print("craft_movehead.py: %s: %s" % (args[0], ex), file=sys.stderr)
        return 2
    except (OSError, struct.error) as ex:
        print("craft_movehead.py: %s" % ex, file=sys.stderr)
        return 2
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
