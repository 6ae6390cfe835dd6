#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""Make corrupt inputs for elf-buildid from good fixtures (stdlib only).

Each case changes one thing of a good file: one ELF header, program header,
section header or note header field set to a boundary value (0, 1, max,
max-1, past the end of the file, misaligned, overlapping another
structure); one truncation length; one hostile note layout. Non-ELF files,
empty files and special files (directory, FIFO, device, dangling symlink,
symlink loop, socket) are made too. OUTDIR/MANIFEST.tsv names every case:

    NAME <TAB> BASE <TAB> CATEGORY <TAB> WHAT

CATEGORY is one of field, note, trunc, hostile, nonelf, special, artifact
(bad packages, tarballs and image tars around the tiny base:
scripts/mkcorrupt_artifacts.py). The file (or special file) is OUTDIR/NAME.

Bases: the Go fixtures plain, sw and nobuildid (scripts/build-fixtures.sh),
and small ones this script makes in --small-dir: tiny and tinynb (a
few-hundred-byte static C program from fixtures/tiny/tiny.c, with and without
--build-id) and hand-made minimal ELF files: mini64 (ELF64 LSB, reserved
note), mini32be (ELF32 MSB, reserved note), minigo64 and minigo32be (the Go
linker's layout: section headers after the program headers, notes packed
against 0x1000; the 32-bit one has the GNU note outside the PT_NOTE, as
`go build -ldflags=-B=...` makes it). Every truncation length of every small
base is a case.

Usage: scripts/mkcorrupt.py [OPTIONS] OUTDIR
  --fixtures DIR    the Go fixtures (default build/fixtures)
  --small-dir DIR   where the small bases are made (default build/robust/small)
  --bases LIST      comma-separated bases to use (default: all available)
  --sample N        keep every note, hostile, nonelf and special case and
                    about N of the others, from each base and category a
                    share growing with its size, chosen by a hash of their names (deterministic)
  --shard K/N       keep only the cases whose sorted index is K modulo N
  --list            print the manifest; write no case
  --small-only      only make the small bases in --small-dir, then exit
Exit status: 0 ok, 1 a base could not be made or read, 64 usage.
"""

import hashlib
import math
import os
import shutil
import socket
import stat
import struct
import subprocess
import sys

TOP = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
sys.path.insert(0, os.path.join(TOP, "tests"))
import ebid  # noqa: E402  (the tests' ELF reader: the oracle)
sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import mkcorrupt_artifacts  # noqa: E402  (the artifact cases)
GO_BASES = ("plain", "sw", "nobuildid")
SMALL_BASES = ("tiny", "tinynb", "mini64", "mini32be", "minigo64",
               "minigo32be")
PAGE = 4096

PT_LOAD, PT_NOTE, PT_PHDR, PT_GNU_STACK = 1, 4, 6, 0x6474E551
SHT_PROGBITS, SHT_STRTAB, SHT_NOTE, SHT_NOBITS = 1, 3, 7, 8
SHF_ALLOC, SHF_EXECINSTR = 0x2, 0x4


def die(msg):
    print("mkcorrupt: %s" % msg, file=sys.stderr)
    sys.exit(1)


# ---------------------------------------------------------------------------
# Small bases


def build_tiny(dest, build_id):
    """Compile fixtures/tiny/tiny.c into dest with or without a build-id."""
    src = os.path.join(TOP, "fixtures", "tiny", "tiny.c")
    cc = os.environ.get("CC_TINY", "gcc")
    args = [cc, "-Os", "-static", "-nostdlib", "-fno-asynchronous-unwind-tables",
            "-fno-pie", "-no-pie", "-fno-stack-protector",
            "-Wl,--build-id=%s" % ("sha1" if build_id else "none"),
            "-Wl,-z,max-page-size=4096", "-Wl,-z,noseparate-code",
            "-Wl,-z,norelro", "-o", dest + ".tmp", src]
    if build_id:
        args.insert(-3, "-s")
    r = subprocess.run(args, stdout=subprocess.PIPE, stderr=subprocess.STDOUT)
    if r.returncode != 0:
        die("building %s failed: %s" % (dest, r.stdout.decode(errors="replace")))
    os.replace(dest + ".tmp", dest)


class Writer:
    """Little helper to lay out a hand-made ELF file."""

    def __init__(self, is64, big):
        self.is64, self.e = is64, ">" if big else "<"
        self.buf = bytearray()

    def put(self, off, fmt, *vals):
        data = struct.pack(self.e + fmt, *vals)
        if len(self.buf) < off + len(data):
            self.buf.extend(bytes(off + len(data) - len(self.buf)))
        self.buf[off:off + len(data)] = data

    def raw(self, off, data):
        if len(self.buf) < off + len(data):
            self.buf.extend(bytes(off + len(data) - len(self.buf)))
        self.buf[off:off + len(data)] = data

    def header(self, off, table, **values):
        self.raw(off, ebid.pack(table, self.e, **values))

    def ehdr(self, machine, entry, phoff, shoff, phnum, shnum, shstrndx):
        ident = b"\x7fELF" + bytes([2 if self.is64 else 1,
                                    2 if self.e == ">" else 1, 1, 0])
        self.raw(0, ident + bytes(8))
        self.header(16, ebid.EHDR[self.is64], e_type=2, e_machine=machine,
                    e_version=1, e_entry=entry, e_phoff=phoff, e_shoff=shoff,
                    e_ehsize=ebid.end_of(ebid.EHDR[self.is64]),
                    e_phentsize=ebid.end_of(ebid.PHDR[self.is64]),
                    e_phnum=phnum,
                    e_shentsize=ebid.end_of(ebid.SHDR[self.is64]),
                    e_shnum=shnum, e_shstrndx=shstrndx)

    def phdr(self, off, ptype, flags, poff, vaddr, filesz, memsz, align):
        self.header(off, ebid.PHDR[self.is64], p_type=ptype, p_flags=flags,
                    p_offset=poff, p_vaddr=vaddr, p_paddr=vaddr,
                    p_filesz=filesz, p_memsz=memsz, p_align=align)

    def shdr(self, off, name, stype, flags, addr, soff, size, align):
        self.header(off, ebid.SHDR[self.is64], sh_name=name, sh_type=stype,
                    sh_flags=flags, sh_addr=addr, sh_offset=soff,
                    sh_size=size, sh_addralign=align)

    def note(self, off, name, ntype, desc):
        self.put(off, "III", len(name), len(desc), ntype)
        pos = off + 12
        self.raw(pos, name)
        pos += (len(name) + 3) & ~3
        self.raw(pos, desc)
        return pos + ((len(desc) + 3) & ~3)


def strtab(names):
    """A section name table and each name's offset in it."""
    tab, offs = bytearray(b"\0"), {}
    for n in names:
        offs[n] = len(tab)
        tab += n.encode() + b"\0"
    return bytes(tab), offs


def mini_c(is64, big, machine):
    """A C-linker-like layout: notes right after the program headers, a
    reserved (all-zero) GNU build-id note covered by a PT_NOTE."""
    w = Writer(is64, big)
    ehs, phs, shs = (64, 56, 64) if is64 else (52, 32, 40)
    base = 0x400000 if is64 else 0x10000
    phoff, phnum = ehs, 3
    note_off = phoff + phnum * phs
    gnu_end = w.note(note_off, b"GNU\0", 3, bytes(20))
    text_off = gnu_end
    text = b"\x90" * 15 + b"\xc3"
    w.raw(text_off, text)
    tab, offs = strtab([".note.gnu.build-id", ".text", ".shstrtab"])
    tab_off = text_off + len(text)
    w.raw(tab_off, tab)
    shoff = (tab_off + len(tab) + 7) & ~7
    load_end = text_off + len(text)
    w.phdr(phoff, PT_LOAD, 5, 0, base, load_end, load_end, 0x1000)
    w.phdr(phoff + phs, PT_NOTE, 4, note_off, base + note_off,
           gnu_end - note_off, gnu_end - note_off, 4)
    w.phdr(phoff + 2 * phs, PT_GNU_STACK, 6, 0, 0, 0, 0, 16)
    w.shdr(shoff, 0, 0, 0, 0, 0, 0, 0)
    w.shdr(shoff + shs, offs[".note.gnu.build-id"], SHT_NOTE, SHF_ALLOC,
           base + note_off, note_off, gnu_end - note_off, 4)
    w.shdr(shoff + 2 * shs, offs[".text"], SHT_PROGBITS,
           SHF_ALLOC | SHF_EXECINSTR, base + text_off, text_off, len(text), 1)
    w.shdr(shoff + 3 * shs, offs[".shstrtab"], SHT_STRTAB, 0, 0, tab_off,
           len(tab), 1)
    w.ehdr(machine, base + text_off, phoff, shoff, phnum, 4, 3)
    return bytes(w.buf)


def mini_go(is64, big, machine, gnu):
    """The Go internal linker's layout: section headers right after the
    program headers, a zero gap, notes packed so they end at 0x1000 where
    .text starts, .shstrtab at the end. With gnu, a GNU build-id note follows
    the Go note but the PT_NOTE covers only the Go note (the -B defect)."""
    w = Writer(is64, big)
    ehs, phs, shs = (64, 56, 64) if is64 else (52, 32, 40)
    base = 0x400000 if is64 else 0x10000
    names = [".text", ".rodata", ".shstrtab", ".note.go.buildid"]
    if gnu:
        names.append(".note.gnu.build-id")
    tab, offs = strtab(names)
    phoff, phnum = ehs, 5
    shoff = phoff + phnum * phs
    shnum = 1 + len(names)
    go_desc = b"Go-build-id-for-the-robustness-tests/minigo/0123456789abcdef"
    go_size = 12 + 4 + ((len(go_desc) + 3) & ~3)
    gnu_size = 36 if gnu else 0
    go_off = 0x1000 - go_size - gnu_size
    assert go_off >= shoff + shnum * shs
    w.note(go_off, b"Go\0\0", 4, go_desc)
    if gnu:
        w.note(go_off + go_size, b"GNU\0", 3, bytes(range(1, 21)))
    text_off, text = 0x1000, b"\xcc" * 63 + b"\xc3"
    w.raw(text_off, text)
    ro_off, ro = text_off + len(text), b"read-only data of minigo\0\0\0\0\0\0\0\0"
    w.raw(ro_off, ro)
    tab_off = ro_off + len(ro)
    w.raw(tab_off, tab)
    w.phdr(phoff, PT_PHDR, 4, phoff, base + phoff, phnum * phs, phnum * phs,
           0x1000)
    w.phdr(phoff + phs, PT_NOTE, 4, go_off, base + go_off, go_size, go_size, 4)
    w.phdr(phoff + 2 * phs, PT_LOAD, 5, 0, base, text_off + len(text),
           text_off + len(text), 0x1000)
    w.phdr(phoff + 3 * phs, PT_LOAD, 4, ro_off, base + 0x1000 + ro_off,
           len(ro), len(ro), 0x1000)
    w.phdr(phoff + 4 * phs, PT_GNU_STACK, 6, 0, 0, 0, 0, 8)
    w.shdr(shoff, 0, 0, 0, 0, 0, 0, 0)
    w.shdr(shoff + shs, offs[".text"], SHT_PROGBITS, SHF_ALLOC | SHF_EXECINSTR,
           base + text_off, text_off, len(text), 32)
    w.shdr(shoff + 2 * shs, offs[".rodata"], SHT_PROGBITS, SHF_ALLOC,
           base + 0x1000 + ro_off, ro_off, len(ro), 8)
    w.shdr(shoff + 3 * shs, offs[".shstrtab"], SHT_STRTAB, 0, 0, tab_off,
           len(tab), 1)
    w.shdr(shoff + 4 * shs, offs[".note.go.buildid"], SHT_NOTE, SHF_ALLOC,
           base + go_off, go_off, go_size, 4)
    if gnu:
        w.shdr(shoff + 5 * shs, offs[".note.gnu.build-id"], SHT_NOTE,
               SHF_ALLOC, base + go_off + go_size, go_off + go_size, 36, 4)
    w.ehdr(machine, base + text_off, phoff, shoff, phnum, shnum, 3)
    return bytes(w.buf)


def make_small(small_dir):
    """Make every small base in small_dir; returns {name: path}."""
    os.makedirs(small_dir, exist_ok=True)
    paths = {n: os.path.join(small_dir, n) for n in SMALL_BASES}
    src = os.path.join(TOP, "fixtures", "tiny", "tiny.c")
    me = os.path.abspath(__file__)
    for name, bid in (("tiny", True), ("tinynb", False)):
        p = paths[name]
        if (not os.path.exists(p) or os.path.getmtime(p) < os.path.getmtime(src)
                or os.path.getmtime(p) < os.path.getmtime(me)):
            build_tiny(p, bid)
    hand = {
        "mini64": mini_c(True, False, 62),          # EM_X86_64
        "mini32be": mini_c(False, True, 20),        # EM_PPC
        "minigo64": mini_go(True, False, 62, False),
        "minigo32be": mini_go(False, True, 20, True),
    }
    for name, data in hand.items():
        p = paths[name]
        try:
            with open(p, "rb") as f:
                if f.read() == data:
                    continue
        except OSError:
            pass
        with open(p + ".tmp", "wb") as f:
            f.write(data)
        os.chmod(p + ".tmp", 0o755)
        os.replace(p + ".tmp", p)
    return paths


# ---------------------------------------------------------------------------
# Field maps of a good file


# The corrupt files keep the ident bytes a reader checks first.
IDENT_CASES = ("EI_MAG0", "EI_MAG3", "EI_CLASS", "EI_DATA", "EI_VERSION",
               "EI_OSABI")


class Layout(ebid.Fields):
    """Where each header field of a good ELF file lies (tests/ebid.py's
    reader): phdrs and shdrs are lists of {field: Field}, notes() maps the
    notes in SHT_NOTE sections and PT_NOTE segments."""

    def __init__(self, data):
        super().__init__(data)
        self.e, self.size = self.end, len(data)
        self.phdrs = [self.phdr(i) for i in range(self.e_phnum)]
        self.shdrs = [self.shdr(i) for i in range(self.e_shnum)]

    def ehdr_fields(self):
        return {n: f for n, f in self.ehdr().items()
                if n in IDENT_CASES or not n.startswith("EI_")}

    def shstr(self):
        if self.e_shstrndx >= len(self.shdrs):
            return b""
        sh = self.shdrs[self.e_shstrndx]
        off, size = sh["sh_offset"].value, sh["sh_size"].value
        return self.data[off:off + size]

    def name_of(self, i):
        tab = self.shstr()
        n = self.shdrs[i]["sh_name"].value
        return tab[n:].split(b"\0", 1)[0].decode("latin-1")

    def notes(self):
        """Every note header in SHT_NOTE sections and PT_NOTE segments:
        {offset: (container description, container end)}."""
        found = {}
        ranges = []
        for i, sh in enumerate(self.shdrs):
            if sh["sh_type"].value == SHT_NOTE:
                ranges.append(("sh%02d" % i, sh["sh_offset"].value,
                               sh["sh_size"].value, sh["sh_addralign"].value))
        for i, ph in enumerate(self.phdrs):
            if ph["p_type"].value == PT_NOTE:
                ranges.append(("ph%02d" % i, ph["p_offset"].value,
                               ph["p_filesz"].value, ph["p_align"].value))
        for where, off, size, align in ranges:
            for pos, _, _, _, _, _ in super().notes(off, size, align):
                found.setdefault(pos, (where, off + size))
        return found


# ---------------------------------------------------------------------------
# Boundary values


def values_for(field, width, orig, lay, ctx):
    """[(label, value)] for one field; values differ from orig."""
    M = (1 << (8 * width)) - 1
    S = lay.size
    v = [("zero", 0), ("one", 1), ("max", M), ("max-1", M - 1)]
    if field in ("e_phoff", "e_shoff", "p_offset", "sh_offset"):
        v += [("eof", S), ("eof+1", S + 1), ("eof-1", S - 1),
              ("misalign+1", orig + 1), ("minus1", orig - 1),
              ("2^31", 1 << 31), ("2^32", 1 << 32),
              ("overlap-ehdr", 16), ("overlap-phdrs", lay.e_phoff),
              ("overlap-shdrs", lay.e_shoff)]
        other = ctx.get("other_off")
        if other is not None:
            v.append(("overlap-next", other))
    elif field in ("p_filesz", "p_memsz", "sh_size"):
        start = ctx.get("start", 0)
        v += [("eof", S), ("eof+1", S + 1), ("plus1", orig + 1),
              ("minus1", orig - 1), ("double", orig * 2),
              ("to-eof", S - start), ("to-eof+1", S - start + 1),
              ("2^31", 1 << 31), ("2^32-1", (1 << 32) - 1), ("2^32", 1 << 32),
              ("2^63", 1 << 63)]
    elif field in ("e_entry", "p_vaddr", "p_paddr", "sh_addr"):
        v += [("misalign+1", orig + 1), ("plus-page", orig + PAGE)]
    elif field == "e_phnum":
        v += [("plus1", orig + 1), ("minus1", orig - 1), ("pn_xnum", 0xFFFF),
              ("past-eof", (S - lay.e_phoff) // max(lay.e_phentsize, 1) + 1),
              ("past-page", PAGE // max(lay.e_phentsize, 1) + 1)]
    elif field == "e_shnum":
        v += [("plus1", orig + 1), ("minus1", orig - 1),
              ("shn_loreserve", 0xFF00),
              ("past-eof", (S - lay.e_shoff) // max(lay.e_shentsize, 1) + 1)]
    elif field == "e_shstrndx":
        v += [("shnum", lay.e_shnum), ("shnum-1", lay.e_shnum - 1),
              ("plus1", orig + 1), ("shn_xindex", 0xFFFF),
              ("shn_loreserve", 0xFF00)]
    elif field in ("e_ehsize", "e_phentsize", "e_shentsize"):
        v += [("plus1", orig + 1), ("minus1", orig - 1), ("other-class",
              {64: 52, 52: 64, 56: 32, 32: 56, 40: 64}.get(orig, 0))]
    elif field in ("p_align", "sh_addralign"):
        v += [("three", 3), ("eight", 8), ("page", PAGE), ("2^63", 1 << 63),
              ("plus1", orig + 1)]
    elif field == "p_type":
        v += [("pt_load", PT_LOAD), ("pt_note", PT_NOTE), ("pt_phdr", PT_PHDR),
              ("pt_tls", 7), ("pt_gnu_eh_frame", 0x6474E550),
              ("pt_interp", 3), ("pt_dynamic", 2)]
    elif field == "sh_type":
        v += [("sht_progbits", SHT_PROGBITS), ("sht_note", SHT_NOTE),
              ("sht_nobits", SHT_NOBITS), ("sht_symtab", 2),
              ("sht_strtab", SHT_STRTAB), ("sht_group", 17)]
    elif field == "sh_flags":
        v += [("alloc", SHF_ALLOC), ("compressed", orig | 0x800),
              ("no-alloc", orig & ~SHF_ALLOC)]
    elif field == "sh_name":
        tab = lay.shstr()
        v += [("strtab-size", len(tab)), ("strtab-size-1", len(tab) - 1),
              ("plus1", orig + 1)]
        for want in (b".note.gnu.build-id\0", b".note.go.buildid\0",
                     b".shstrtab\0"):
            k = tab.find(want)
            if k >= 0:
                v.append(("name-" + want[1:-1].decode(), k))
    elif field in ("sh_link", "sh_info"):
        v += [("shnum", lay.e_shnum), ("plus1", orig + 1)]
    elif field == "e_type":
        v = [("et_none", 0), ("et_rel", 1), ("et_exec", 2), ("et_dyn", 3),
             ("et_core", 4), ("et_loproc", 0xFF00), ("max", M)]
    elif field == "e_machine":
        v = [("none", 0), ("i386", 3), ("x86_64", 62), ("aarch64", 183),
             ("max", M)]
    elif field == "EI_CLASS":
        v = [("none", 0), ("elf32", 1), ("elf64", 2), ("three", 3),
             ("max", 255)]
    elif field == "EI_DATA":
        v = [("none", 0), ("lsb", 1), ("msb", 2), ("three", 3), ("max", 255)]
    elif field in ("EI_MAG0", "EI_MAG3"):
        v = [("zero", 0), ("plus1", orig + 1)]
    elif field in ("EI_VERSION", "EI_OSABI"):
        v = [("zero", 0), ("two", 2), ("max", 255)]
    out, seen = [], {orig}
    for label, val in v:
        val &= M
        if val in seen:
            continue
        seen.add(val)
        out.append((label, val))
    return out


def note_values(field, width, orig, end, pos):
    M = (1 << (8 * width)) - 1
    rest = end - (pos + 12)
    v = [("zero", 0), ("one", 1), ("max", M), ("max-1", M - 1),
         ("2^31", 1 << 31), ("2^32-3", (1 << 32) - 3), ("2^32-4", (1 << 32) - 4),
         ("plus1", orig + 1), ("plus4", orig + 4), ("minus1", orig - 1),
         ("past-container", rest + 1), ("fills-container", rest)]
    if field == "n_type":
        v = [("zero", 0), ("gnu_build_id", 3), ("go_build_id", 4),
             ("max", M), ("plus1", orig + 1)]
    out, seen = [], {orig}
    for label, val in v:
        val &= M
        if val in seen or val < 0:
            continue
        seen.add(val)
        out.append((label, val))
    return out


# ---------------------------------------------------------------------------
# Cases


class Case:
    def __init__(self, name, base, category, what, make):
        self.name, self.base, self.category = name, base, category
        self.what, self.make = what, make


def patched(data, off, width, val, e):
    b = bytearray(data)
    struct.pack_into(e + ebid.WIDTH_FMT[width], b, off, val)
    return bytes(b)


def field_cases(base, data):
    lay = Layout(data)
    cases = []

    def add(where, field, off, width, orig, label, val, cat="field"):
        name = "%s.%s.%s.%s" % (base, where, field, label)
        what = "%s %s 0x%x -> 0x%x (%s)" % (where, field, orig, val, label)
        cases.append(Case(name, base, cat, what,
                          lambda o=off, w=width, v=val:
                          patched(data, o, w, v, lay.e)))

    for field, (off, width, orig) in lay.ehdr_fields().items():
        for label, val in values_for(field, width, orig, lay, {}):
            add("eh", field, off, width, orig, label, val)
    offs = sorted(sh["sh_offset"][2] for sh in lay.shdrs)
    for i, ph in enumerate(lay.phdrs):
        ctx = {"start": ph["p_offset"][2]}
        for field, (off, width, orig) in ph.items():
            for label, val in values_for(field, width, orig, lay, ctx):
                add("ph%02d" % i, field, off, width, orig, label, val)
    for i, sh in enumerate(lay.shdrs):
        so = sh["sh_offset"][2]
        later = [o for o in offs if o > so]
        ctx = {"start": so, "other_off": later[0] if later else None}
        for field, (off, width, orig) in sh.items():
            for label, val in values_for(field, width, orig, lay, ctx):
                add("sh%02d" % i, field, off, width, orig, label, val)
    for pos, (where, end) in sorted(lay.notes().items()):
        for k, field in enumerate(("n_namesz", "n_descsz", "n_type")):
            orig = lay.get(pos + 4 * k, 4)
            for label, val in note_values(field, 4, orig, end, pos):
                add("note%x" % pos, field, pos + 4 * k, 4, orig, label, val,
                    "note")
        # The name's last byte (the NUL of "GNU\0" or "Go\0\0").
        namesz = lay.get(pos, 4)
        if 0 < namesz <= 8 and pos + 12 + namesz <= lay.size:
            o = pos + 12 + namesz - 1
            add("note%x" % pos, "n_name_nul", o, 1, data[o], "nonzero",
                0x21, "note")
    return cases


def boundaries(lay):
    """Interesting truncation lengths of a big file: every structure edge."""
    cuts = {0, 1, 4, 15, 16, 17, 51, 52, 63, 64, PAGE - 1, PAGE, PAGE + 1,
            lay.size // 2, lay.size - 1}
    edges = [lay.e_phoff, lay.e_phoff + lay.e_phnum * lay.e_phentsize, lay.e_shoff,
             lay.e_shoff + lay.e_shnum * lay.e_shentsize]
    for i in range(lay.e_phnum):
        edges.append(lay.e_phoff + (i + 1) * lay.e_phentsize)
        p = lay.phdrs[i]
        edges += [p["p_offset"][2], p["p_offset"][2] + p["p_filesz"][2]]
    for s in lay.shdrs:
        edges += [s["sh_offset"][2], s["sh_offset"][2] + s["sh_size"][2]]
    for pos in lay.notes():
        edges += [pos, pos + 12]
    for e in edges:
        cuts.update((e - 1, e, e + 1))
    return sorted(c for c in cuts if 0 <= c < lay.size)


def trunc_cases(base, data, every):
    lens = range(len(data)) if every else boundaries(Layout(data))
    return [Case("%s.trunc.%07d" % (base, n), base, "trunc",
                 "truncated to %d of %d bytes" % (n, len(data)),
                 lambda n=n: data[:n]) for n in lens]


def many_notes(count, note):
    return note * count


class NoteBase:
    """A base with its layout and its (first) PT_NOTE."""

    def __init__(self, data):
        self.data = data
        self.lay = lay = Layout(data)
        self.e = lay.e
        self.nph = next(i for i, p in enumerate(lay.phdrs)
                        if p["p_type"][2] == PT_NOTE)
        self.ph = lay.phdrs[self.nph]


class TinyNote:
    """Where tiny's GNU note is: its section header, its PT_NOTE and its
    bytes, for the hostile cases that move or resize them."""

    def __init__(self, data):
        self.data = data
        self.lay = lay = Layout(data)
        self.e = lay.e
        nsh = next(i for i in range(lay.e_shnum)
                   if lay.name_of(i) == ".note.gnu.build-id")
        self.nph = next(i for i, p in enumerate(lay.phdrs)
                        if p["p_type"][2] == PT_NOTE)
        self.sh, self.ph = lay.shdrs[nsh], lay.phdrs[self.nph]
        self.note_off, self.note_len = (self.sh["sh_offset"][2],
                                        self.sh["sh_size"][2])


def hostile_cases(bases):
    """Hostile note layouts built on tiny (C layout) and minigo64.

    Each tiny case takes its offsets and sizes from tiny (t) but, when it is
    written, patches the bytes, ELF class, PT_NOTE and tables of m: the last
    base this function used to look at, minigo64 when it is a base. That is
    how the cases have always been made (the makers read those names late),
    so tiny.hostile.* are minigo64 with tiny's offsets patched in; kept here
    (splitting the function must not change the corpus) until it is fixed on
    its own, with whatever the cases then show.
    """
    cases = []
    t = TinyNote(bases["tiny"]) if "tiny" in bases else None
    go = NoteBase(bases["minigo64"]) if "minigo64" in bases else None
    if t:
        m = go or t
        cases += many_notes_cases(t, m)
        cases += note_size_cases(t, m)
        cases += note_cover_cases(t, m)
        cases += duplicate_note_cases(t, m)
        cases += eof_note_cases(t, m)
    if go:
        cases += go_hostile_cases(go)
    return cases


def many_notes_cases(t, m):
    """Millions of notes appended, the section, its PT_NOTE or both pointed
    at them (t, m: see hostile_cases)."""
    data, e, sh = t.data, t.e, t.sh
    cases = []
    gnu_note = data[t.note_off:t.note_off + t.note_len]
    empty = struct.pack(e + "III", 0, 0, 0)
    gnu_empty = struct.pack(e + "III", 4, 0, 3) + b"GNU\0"

    def retarget(extra, to_sh, to_ph, tail=b""):
        def make():
            b = bytearray(m.data)
            start = (len(b) + 3) & ~3
            b.extend(bytes(start - len(b)))
            blob = extra() + tail
            b.extend(blob)
            if to_sh:
                struct.pack_into(m.e + "QQ", b, sh["sh_offset"][0], start,
                                 len(blob))
            if to_ph:
                struct.pack_into(m.e + "Q", b, m.ph["p_offset"][0], start)
                struct.pack_into(m.e + "QQ", b, m.ph["p_filesz"][0],
                                 len(blob), len(blob))
            return bytes(b)
        return make

    million = lambda: many_notes(1000000, empty)
    for tag, s, p in (("section", True, False), ("segment", False, True),
                      ("both", True, True)):
        cases.append(Case("tiny.hostile.million-empty-notes-" + tag,
                          "tiny", "hostile",
                          "1,000,000 empty 12-byte notes appended; %s "
                          "points at them" % tag,
                          retarget(million, s, p)))
    cases.append(Case("tiny.hostile.million-notes-then-gnu", "tiny",
                      "hostile",
                      "1,000,000 empty notes then the GNU note, at EOF; "
                      "section and PT_NOTE cover them all",
                      retarget(million, True, True, gnu_note)))
    cases.append(Case("tiny.hostile.million-gnu-empty-notes", "tiny",
                      "hostile",
                      "1,000,000 GNU/3 notes with descsz 0 (16 MB)",
                      retarget(lambda: many_notes(1000000, gnu_empty),
                               True, True)))
    cases.append(Case("tiny.hostile.two-million-notes", "tiny", "hostile",
                      "2,000,000 empty notes (24 MB) in section and "
                      "segment", retarget(lambda: many_notes(2000000,
                                                             empty),
                                          True, True)))
    return cases


def note_size_cases(t, m):
    """The GNU note with a namesz or descsz near 2^32 (t, m: see
    hostile_cases)."""
    cases = []
    desc_sz_off = t.note_off + 4
    name_sz_off = t.note_off
    for label, nsz, dsz in (("descsz-2^32-4", None, 0xFFFFFFFC),
                            ("descsz-2^32-1", None, 0xFFFFFFFF),
                            ("namesz-2^32-1", 0xFFFFFFFF, None),
                            ("namesz-2^32-3", 0xFFFFFFFD, None),
                            ("both-2^32-1", 0xFFFFFFFF, 0xFFFFFFFF),
                            ("descsz-2^31", None, 0x80000000)):
        def make(nsz=nsz, dsz=dsz):
            b = bytearray(m.data)
            if nsz is not None:
                struct.pack_into(m.e + "I", b, name_sz_off, nsz)
            if dsz is not None:
                struct.pack_into(m.e + "I", b, desc_sz_off, dsz)
            return bytes(b)
        cases.append(Case("tiny.hostile." + label, "tiny", "hostile",
                          "GNU note %s" % label, make))
    return cases


def note_cover_cases(t, m):
    """The PT_NOTE or section covering too little of the note, or something
    else: a header, the first page, past EOF (t, m: see hostile_cases)."""
    data, lay, sh = t.data, t.lay, t.sh
    note_off, note_len = t.note_off, t.note_len
    cases = []

    def seg(label, what, off=None, filesz=None, shsize=None):
        def make():
            b = bytearray(m.data)
            if off is not None:
                struct.pack_into(m.e + "Q", b, m.ph["p_offset"][0], off)
            if filesz is not None:
                struct.pack_into(m.e + "QQ", b, m.ph["p_filesz"][0], filesz,
                                 filesz)
            if shsize is not None:
                struct.pack_into(m.e + "Q", b, sh["sh_size"][0], shsize)
            return bytes(b)
        cases.append(Case("tiny.hostile." + label, "tiny", "hostile",
                          what, make))

    seg("note-past-segment-1", "PT_NOTE 1 byte short of its note",
        filesz=note_len - 1)
    seg("note-past-segment-4", "PT_NOTE 4 bytes short of its note",
        filesz=note_len - 4)
    seg("note-past-section-1", "section 1 byte short of its note",
        shsize=note_len - 1)
    seg("note-past-both-1", "section and PT_NOTE 1 byte short",
        filesz=note_len - 1, shsize=note_len - 1)
    seg("segment-partial-header", "PT_NOTE covers the note and 4 bytes "
        "of another header", filesz=note_len + 4)
    seg("segment-header-only", "PT_NOTE of 12 bytes: a header and no "
        "name", filesz=12)
    seg("segment-whole-page", "PT_NOTE over the first page (from 0)",
        off=0, filesz=min(PAGE, len(data)))
    seg("segment-at-ehdr", "PT_NOTE at offset 0 over the ELF header",
        off=0, filesz=64)
    seg("segment-at-phdrs", "PT_NOTE over the program headers",
        off=lay.e_phoff, filesz=lay.e_phnum * lay.e_phentsize)
    seg("segment-at-shdrs", "PT_NOTE over the section headers",
        off=lay.e_shoff, filesz=lay.e_shnum * lay.e_shentsize)
    seg("segment-to-eof", "PT_NOTE from the note to EOF",
        filesz=len(data) - note_off)
    seg("segment-past-eof", "PT_NOTE from the note to EOF + 1",
        filesz=len(data) - note_off + 1)
    return cases


def duplicate_note_cases(t, m):
    """The note found twice: two PT_NOTEs, two sections (t, m: see
    hostile_cases)."""
    sh = t.sh
    cases = []

    def dup_pt():
        data, lay, nph = m.data, m.lay, m.nph
        b = bytearray(data)
        # Turn every other program header into a copy of the PT_NOTE.
        src = lay.e_phoff + nph * lay.e_phentsize
        for i in range(lay.e_phnum):
            if i != nph and lay.phdrs[i]["p_type"][2] != PT_LOAD:
                d = lay.e_phoff + i * lay.e_phentsize
                b[d:d + lay.e_phentsize] = data[src:src + lay.e_phentsize]
        return bytes(b)
    cases.append(Case("tiny.hostile.duplicate-pt-note", "tiny", "hostile",
                      "two PT_NOTEs covering the same note", dup_pt))

    def dup_sec():
        data, lay, e = m.data, m.lay, m.e
        b = bytearray(data)
        # .comment renamed to .note.gnu.build-id, typed SHT_NOTE.
        for i in range(lay.e_shnum):
            if lay.name_of(i) == ".comment":
                struct.pack_into(e + "II", b, lay.shdrs[i]["sh_name"][0],
                                 sh["sh_name"][2], SHT_NOTE)
        return bytes(b)
    cases.append(Case("tiny.hostile.duplicate-section", "tiny", "hostile",
                      "a second .note.gnu.build-id section (.comment "
                      "renamed, SHT_NOTE)", dup_sec))
    return cases


def eof_note_cases(t, m):
    """The section pointed at a new GNU note at EOF: one cut by the end of
    the file, and ids of unusual lengths (t, m: see hostile_cases)."""
    sh = t.sh
    cases = []

    def note_eof():
        b = bytearray(m.data)
        start = (len(b) + 3) & ~3
        b.extend(bytes(start - len(b)))
        b.extend(struct.pack(m.e + "III", 4, 20, 3) + b"GNU\0" + b"\x11" * 8)
        struct.pack_into(m.e + "QQ", b, sh["sh_offset"][0], start, 36)
        return bytes(b)
    cases.append(Case("tiny.hostile.note-past-eof", "tiny", "hostile",
                      "section's note at EOF with a descriptor cut by "
                      "the end of the file", note_eof))

    def long_id(n):
        def make():
            b = bytearray(m.data)
            start = (len(b) + 3) & ~3
            b.extend(bytes(start - len(b)))
            blob = (struct.pack(m.e + "III", 4, n, 3) + b"GNU\0" +
                    bytes((i * 7 + 1) & 0xFF for i in range(n)))
            blob += bytes((-len(blob)) % 4)
            b.extend(blob)
            struct.pack_into(m.e + "QQ", b, sh["sh_offset"][0], start,
                             len(blob))
            return bytes(b)
        return make
    for n in (0, 1, 21, 64, 4096, 65536):
        cases.append(Case("tiny.hostile.id-%d-bytes" % n, "tiny",
                          "hostile",
                          "GNU note with a %d-byte descriptor at EOF" % n,
                          long_id(n)))
    return cases


def go_hostile_cases(go):
    """Hostile layouts of minigo64 (a NoteBase): junk where the Go linker
    leaves zeros, a PT_NOTE whose end wraps."""
    cases = []
    data, lay, e, ph = go.data, go.lay, go.e, go.ph

    def go_full_gap():
        # No zero gap: junk from the section headers up to the note.
        b = bytearray(data)
        end = lay.e_shoff + lay.e_shnum * lay.e_shentsize
        b[end:ph["p_offset"][2]] = b"\xa5" * (ph["p_offset"][2] - end)
        return bytes(b)
    cases.append(Case("minigo64.hostile.no-zero-gap", "minigo64",
                      "hostile", "the gap before the notes is filled "
                      "with non-zero bytes", go_full_gap))

    def go_pt_wrap():
        b = bytearray(data)
        struct.pack_into(e + "QQ", b, ph["p_offset"][0],
                         0xFFFFFFFFFFFFFFF0, 0x20)
        return bytes(b)
    cases.append(Case("minigo64.hostile.pt-offset-wraps", "minigo64",
                      "hostile", "PT_NOTE p_offset+p_filesz wraps "
                      "around 2^64", go_pt_wrap))
    return cases


def nonelf_cases():
    rnd = hashlib.sha256(b"mkcorrupt").digest()
    noise = b"".join(hashlib.sha256(rnd + bytes([i, j])).digest()
                     for i in range(16) for j in range(8))
    hdr64 = bytearray(64)
    hdr64[:7] = b"\x7fELF\x02\x01\x01"
    struct.pack_into("<HHI", hdr64, 16, 2, 62, 1)
    struct.pack_into("<HHHHHH", hdr64, 52, 64, 56, 0, 64, 0, 0)
    hdr32 = bytearray(52)
    hdr32[:7] = b"\x7fELF\x01\x02\x01"
    struct.pack_into(">HHI", hdr32, 16, 2, 20, 1)
    struct.pack_into(">HHHHHH", hdr32, 40, 52, 32, 0, 40, 0, 0)
    items = [
        ("empty", "empty file", b""),
        ("one-byte", "one byte", b"\x7f"),
        ("magic3", "\\x7fEL", b"\x7fEL"),
        ("magic4", "\\x7fELF alone", b"\x7fELF"),
        ("ident15", "15 bytes of e_ident", b"\x7fELF\x02\x01\x01" + bytes(8)),
        ("ident16", "16 bytes of e_ident", b"\x7fELF\x02\x01\x01" + bytes(9)),
        ("ehdr63", "ELF64 header minus one byte", bytes(hdr64[:63])),
        ("ehdr64-only", "ELF64 header alone, no headers", bytes(hdr64)),
        ("ehdr32be-only", "ELF32 MSB header alone", bytes(hdr32)),
        ("ehdr64-page", "ELF64 header then zeros to 4096", bytes(hdr64) +
         bytes(PAGE - 64)),
        ("magic-zeros", "\\x7fELF then 4092 zero bytes",
         b"\x7fELF" + bytes(PAGE - 4)),
        ("text", "plain text", b"hello, this is not an ELF file\n" * 20),
        ("script", "shell script", b"#!/bin/sh\necho not elf\n"),
        ("random", "4 KiB of pseudo-random bytes", noise[:PAGE]),
        ("ar", "ar archive header", b"!<arch>\n" + bytes(60)),
        ("gzip", "gzip header", b"\x1f\x8b\x08\x00" + bytes(20)),
        ("pe", "MZ/PE header", b"MZ" + bytes(58) + b"\x40\0\0\0" +
         b"PE\0\0" + bytes(100)),
        ("zeros", "64 KiB of zeros", bytes(65536)),
        ("ones", "64 KiB of 0xff", b"\xff" * 65536),
        ("utf16", "UTF-16 text with BOM",
         "\ufeffnot an elf".encode("utf-16-le")),
    ]
    return [Case("nonelf." + n, "-", "nonelf", w, lambda d=d: d)
            for n, w, d in items]


SPECIALS = [
    ("special.dir", "directory"),
    ("special.fifo", "FIFO"),
    ("special.chardev-null", "character device 1,3 (like /dev/null)"),
    ("special.chardev-zero", "character device 1,5 (like /dev/zero)"),
    ("special.dangling", "symlink to a missing file"),
    ("special.loop-a", "symlink loop (a -> b -> a)"),
    ("special.symlink-dir", "symlink to a directory"),
    ("special.symlink-fifo", "symlink to a FIFO"),
    ("special.socket", "Unix socket"),
]


def make_special(outdir, name):
    p = os.path.join(outdir, name)
    if name == "special.dir":
        os.mkdir(p)
    elif name == "special.fifo":
        os.mkfifo(p)
    elif name.startswith("special.chardev"):
        minor = 3 if name.endswith("null") else 5
        os.mknod(p, 0o644 | stat.S_IFCHR, os.makedev(1, minor))
    elif name == "special.dangling":
        os.symlink("special.missing-target", p)
    elif name == "special.loop-a":
        os.symlink("special.loop-b", p)
        os.symlink("special.loop-a", os.path.join(outdir, "special.loop-b"))
    elif name == "special.symlink-dir":
        os.mkdir(os.path.join(outdir, "special.dir-target"))
        os.symlink("special.dir-target", p)
    elif name == "special.symlink-fifo":
        os.mkfifo(os.path.join(outdir, "special.fifo-target"))
        os.symlink("special.fifo-target", p)
    elif name == "special.socket":
        s = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
        s.bind(p)
        s.close()


# ---------------------------------------------------------------------------


ALWAYS = ("note", "hostile", "nonelf", "special", "artifact")


def sample(cases, n):
    """Every note, hostile, nonelf, special and artifact case, and about n of the
    others: from each (base, category) group a share in proportion to the
    square root of its size, at least 3, picked by a hash of the names (deterministic)."""
    keep = [c for c in cases if c.category in ALWAYS]
    groups = {}
    for c in cases:
        if c.category not in ALWAYS:
            groups.setdefault((c.base, c.category), []).append(c)
    total = sum(math.sqrt(len(g)) for g in groups.values()) or 1
    for g in groups.values():
        g.sort(key=lambda c: hashlib.sha1(c.name.encode()).hexdigest())
        keep += g[:max(3, round(n * math.sqrt(len(g)) / total))]
    return sorted(keep, key=lambda c: c.name)


def main(argv):
    args = argv[1:]
    opts = {"fixtures": os.path.join(TOP, "build", "fixtures"),
            "small-dir": os.path.join(TOP, "build", "robust", "small"),
            "bases": None, "sample": None, "shard": None}
    flags = set()
    rest = []
    while args:
        a = args.pop(0)
        if a in ("-h", "--help"):
            print(__doc__)
            return 0
        if a in ("--list", "--small-only"):
            flags.add(a[2:])
        elif a.startswith("--") and a[2:].split("=")[0] in opts:
            k, _, v = a[2:].partition("=")
            if not v:
                if not args:
                    return usage("%s needs a value" % a)
                v = args.pop(0)
            opts[k] = v
        elif a.startswith("-"):
            return usage("unknown option '%s'" % a)
        else:
            rest.append(a)
    small = make_small(opts["small-dir"])
    if "small-only" in flags:
        for n in SMALL_BASES:
            print(small[n])
        return 0
    if len(rest) != 1:
        return usage("one OUTDIR wanted")
    outdir = rest[0]
    want = (opts["bases"].split(",") if opts["bases"]
            else list(GO_BASES) + list(SMALL_BASES))
    bases = {}
    for b in want:
        p = small.get(b) or os.path.join(opts["fixtures"], b)
        try:
            with open(p, "rb") as f:
                bases[b] = f.read()
        except OSError as e:
            die("base '%s': cannot read %s: %s" % (b, p, e.strerror))
    cases = []
    for b, data in bases.items():
        cases += field_cases(b, data)
        cases += trunc_cases(b, data, every=b in SMALL_BASES)
    cases += hostile_cases(bases)
    cases += nonelf_cases()
    cases += [Case("artifact." + n, "tiny", "artifact", w, m)
              for n, w, m in mkcorrupt_artifacts.artifact_cases(
                  small and open(small["tiny"], "rb").read())]
    for n, w in SPECIALS:
        cases.append(Case(n, "-", "special", w, None))
    names = [c.name for c in cases]
    if len(set(names)) != len(names):
        dup = sorted(n for n in set(names) if names.count(n) > 1)
        die("duplicate case names: %s" % dup[:5])
    cases.sort(key=lambda c: c.name)
    if opts["sample"] is not None:
        cases = sample(cases, int(opts["sample"]))
    if opts["shard"] is not None:
        k, _, n = opts["shard"].partition("/")
        k, n = int(k), int(n)
        cases = [c for i, c in enumerate(cases) if i % n == k]
    manifest = "".join("%s\t%s\t%s\t%s\n" % (c.name, c.base, c.category,
                                             c.what) for c in cases)
    if "list" in flags:
        sys.stdout.write(manifest)
        return 0
    if os.path.isdir(outdir):
        shutil.rmtree(outdir)
    os.makedirs(outdir)
    written = []
    for c in cases:
        if c.category == "special":
            try:
                make_special(outdir, c.name)
            except OSError as e:
                print("mkcorrupt: %s: cannot make: %s (left out)"
                      % (c.name, e.strerror), file=sys.stderr)
                continue
        else:
            with open(os.path.join(outdir, c.name), "wb") as f:
                f.write(c.make())
        written.append(c)
    with open(os.path.join(outdir, "MANIFEST.tsv"), "w") as f:
        f.write("".join("%s\t%s\t%s\t%s\n" % (c.name, c.base, c.category,
                                              c.what) for c in written))
    print("mkcorrupt: %d cases in %s" % (len(written), outdir),
          file=sys.stderr)
    return 0


def usage(msg):
    print("mkcorrupt: %s" % msg, file=sys.stderr)
    print("usage: scripts/mkcorrupt.py [--fixtures DIR] [--small-dir DIR] "
          "[--bases LIST] [--sample N] [--shard K/N] [--list] OUTDIR",
          file=sys.stderr)
    return 64


if __name__ == "__main__":
    sys.exit(main(sys.argv))
