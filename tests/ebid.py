#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""Independent checker for elf-buildid's output (stdlib only).

It shares no code with the C tool: it parses ELF with struct, recomputes the
id with hashlib, and emulates the kernel's lib/buildid.c reader.

  ebid.py id FILE [--hash=sha1|sha256|md5]
      Recompute the content id of FILE (every byte, descriptor zeroed,
      hashed, truncated) and print it. Exit 1, printing both, when it differs
      from the id stored where perf looks (.note.gnu.build-id, else .notes,
      else .note).
  ebid.py note FILE [-v]
      Print the id stored where perf looks (no hashing).
      -v adds the section's index, type, flags, alignment and offsets.
  ebid.py kernel FILE [-v]
      Print the id the kernel would read from the first 4096 bytes (program
      headers at sizeof(Ehdr), PT_NOTEs wholly in the first page, 4-byte note
      walk, first "GNU"/3 note with 0 < descsz <= 20). Exit 1 if none.
  ebid.py diffranges ORIG NEW DRYRUN_OUTPUT
      Check that NEW differs from ORIG only inside the patch, id and append
      ranges listed in DRYRUN_OUTPUT (elf-buildid --dry-run of ORIG), and
      that NEW is longer only by the append ranges.
  ebid.py segid FILE [--hash=sha1|sha256|md5]
      Like id, but finds the note through the PT_NOTE program headers (4-byte
      note walk, anywhere in the file), for files without section headers.

Exit status: 0 ok, 1 check failed, 2 bad input (unreadable, not ELF,
malformed, no note), 64 usage.
"""

import collections
import hashlib
import re
import struct
import sys

PAGE = 4096
SHT_NOTE = 7
SHF_ALLOC = 0x2
PT_NOTE = 4
ET_EXEC = 2
ET_DYN = 3
NT_GNU_BUILD_ID = 3
BUILD_ID_SIZE_MAX = 20
ID_LEN = {"sha1": 20, "sha256": 20, "md5": 16, "sha1-tree": 20}
TREE_CHUNK = 4 << 20


def sha1_tree(data):
    """docs/build-id.md, "The sha1-tree hash"."""
    leaves = b"".join(hashlib.sha1(data[i:i + TREE_CHUNK]).digest()
                      for i in range(0, len(data), TREE_CHUNK))
    return hashlib.sha1(b"elf-buildid sha1-tree v1\0" +
                        struct.pack(">QQ", TREE_CHUNK, len(data)) +
                        leaves).digest()


class BadInput(Exception):
    """The file cannot be parsed; the message says which field."""


# Where each header field lies: (name, offset, width), by class (is64). The
# reader below reads through these tables, and so do the scripts that read
# or change single fields (scripts/mkcorrupt.py, scripts/matrix-craft.py,
# scripts/compat-matrix, the tests): one description of the format for all.
def _table(start, fields):
    """((name, offset, width), ...) of (name, width) pairs laid end to end."""
    out, off = [], start
    for name, width in fields:
        out.append((name, off, width))
        off += width
    return tuple(out)


def _ehdr_table(a):
    return _table(16, [("e_type", 2), ("e_machine", 2), ("e_version", 4),
                       ("e_entry", a), ("e_phoff", a), ("e_shoff", a),
                       ("e_flags", 4), ("e_ehsize", 2), ("e_phentsize", 2),
                       ("e_phnum", 2), ("e_shentsize", 2), ("e_shnum", 2),
                       ("e_shstrndx", 2)])


def _shdr_table(a):
    return _table(0, [("sh_name", 4), ("sh_type", 4), ("sh_flags", a),
                      ("sh_addr", a), ("sh_offset", a), ("sh_size", a),
                      ("sh_link", 4), ("sh_info", 4), ("sh_addralign", a),
                      ("sh_entsize", a)])


IDENT = _table(0, [("EI_MAG0", 1), ("EI_MAG1", 1), ("EI_MAG2", 1),
                   ("EI_MAG3", 1), ("EI_CLASS", 1), ("EI_DATA", 1),
                   ("EI_VERSION", 1), ("EI_OSABI", 1), ("EI_ABIVERSION", 1)])
EHDR = {False: _ehdr_table(4), True: _ehdr_table(8)}
PHDR = {False: _table(0, [("p_type", 4), ("p_offset", 4), ("p_vaddr", 4),
                          ("p_paddr", 4), ("p_filesz", 4), ("p_memsz", 4),
                          ("p_flags", 4), ("p_align", 4)]),
        True: _table(0, [("p_type", 4), ("p_flags", 4), ("p_offset", 8),
                         ("p_vaddr", 8), ("p_paddr", 8), ("p_filesz", 8),
                         ("p_memsz", 8), ("p_align", 8)])}
SHDR = {False: _shdr_table(4), True: _shdr_table(8)}
WIDTH_FMT = {1: "B", 2: "H", 4: "I", 8: "Q"}


def fmt_of(table):
    """The struct format of a table's fields, in order (no byte order)."""
    return "".join(WIDTH_FMT[w] for _, _, w in table)


def end_of(table):
    """The offset just past a table's last field: sizeof the header."""
    return table[-1][1] + table[-1][2]


def pack(table, end, **values):
    """A header's bytes from its field values (those not given are 0)."""
    return struct.pack(end + fmt_of(table),
                       *(values.get(n, 0) for n, _, _ in table))


Field = collections.namedtuple("Field", "off width value")


class Fields:
    """An ELF file's headers as fields, taken as they are: e_ident and the
    ELF header are checked and read (e_type ... e_shstrndx become
    attributes); phdr(i), shdr(i) and ehdr() give each field's Field (file
    offset, width, value) without judging the rest of the file. put() and
    set() change a field in place when data is a bytearray."""

    def __init__(self, data):
        self.data = data
        if len(data) < 16 or data[:4] != b"\x7fELF":
            raise BadInput("not an ELF file (bad magic)")
        cls, enc = data[4], data[5]
        if cls not in (1, 2):
            raise BadInput("bad EI_CLASS %d" % cls)
        if enc not in (1, 2):
            raise BadInput("bad EI_DATA %d" % enc)
        self.is64 = cls == 2
        self.end = "<" if enc == 1 else ">"
        self.ehsize = end_of(EHDR[self.is64])
        if len(data) < self.ehsize:
            raise BadInput("file shorter than its ELF header")
        for name, off, width in EHDR[self.is64]:
            setattr(self, name, self.get(off, width))

    def unpack(self, fmt, off):
        fmt = self.end + fmt
        size = struct.calcsize(fmt)
        if off < 0 or off + size > len(self.data):
            raise BadInput("read of %d bytes at 0x%x is past the end of the "
                           "file (size %d)" % (size, off, len(self.data)))
        return struct.unpack_from(fmt, self.data, off)

    def get(self, off, width):
        return self.unpack(WIDTH_FMT[width], off)[0]

    def put(self, off, width, value):
        if off < 0 or off + width > len(self.data):
            raise BadInput("write of %d bytes at 0x%x is past the end of the "
                           "file (size %d)" % (width, off, len(self.data)))
        struct.pack_into(self.end + WIDTH_FMT[width], self.data, off, value)

    def set(self, field, value):
        self.put(field.off, field.width, value)

    def fields(self, table, base):
        """{name: Field} of the header that table describes, at base."""
        return {n: Field(base + o, w, self.get(base + o, w))
                for n, o, w in table}

    def ehdr(self):
        """e_ident's bytes and the ELF header's fields."""
        out = self.fields(IDENT, 0)
        out.update(self.fields(EHDR[self.is64], 0))
        return out

    def phdr(self, i):
        return self.fields(PHDR[self.is64],
                           self.e_phoff + i * self.e_phentsize)

    def shdr(self, i):
        return self.fields(SHDR[self.is64],
                           self.e_shoff + i * self.e_shentsize)

    def notes(self, off, size, align):
        """Yield (note_off, namesz, descsz, type, name, desc_off) in a range."""
        align = 8 if align == 8 else 4
        pos, end = off, off + size
        if end > len(self.data):
            raise BadInput("note range 0x%x+%d past the end" % (off, size))
        while pos + 12 <= end:
            namesz, descsz, ntype = self.unpack("III", pos)
            name_off = pos + 12
            desc_off = name_off + ((namesz + align - 1) & ~(align - 1))
            nxt = desc_off + ((descsz + align - 1) & ~(align - 1))
            if desc_off + descsz > end:
                raise BadInput("note at 0x%x runs past its container" % pos)
            name = bytes(self.data[name_off:name_off + namesz])
            yield pos, namesz, descsz, ntype, name, desc_off
            pos = nxt


class Elf(Fields):
    """Just enough of an ELF file: header, program and section headers."""

    def __init__(self, data):
        super().__init__(data)
        self.phdrs = self._read_phdrs()
        self.shdrs = self._read_shdrs()

    def _read_phdrs(self):
        phdrs = []
        if self.e_phnum == 0:
            return phdrs
        table = PHDR[self.is64]
        want = end_of(table)
        if self.e_phentsize != want:
            raise BadInput("e_phentsize %d, expected %d"
                           % (self.e_phentsize, want))
        if self.e_phoff + self.e_phnum * want > len(self.data):
            raise BadInput("program headers (e_phoff 0x%x) past the end"
                           % self.e_phoff)
        for i in range(self.e_phnum):
            f = self.unpack(fmt_of(table), self.e_phoff + i * want)
            phdrs.append({n[2:]: v for (n, _, _), v in zip(table, f)})
        return phdrs

    def _shdr(self, i):
        table = SHDR[self.is64]
        f = self.unpack(fmt_of(table), self.e_shoff + i * self.e_shentsize)
        return {n[3:]: v for (n, _, _), v in zip(table, f)}

    def _read_shdrs(self):
        if self.e_shoff == 0:
            return []
        want = end_of(SHDR[self.is64])
        if self.e_shentsize != want:
            raise BadInput("e_shentsize %d, expected %d"
                           % (self.e_shentsize, want))
        if self.e_shoff + want > len(self.data):
            raise BadInput("section headers (e_shoff 0x%x) past the end"
                           % self.e_shoff)
        shnum, shstrndx = self.e_shnum, self.e_shstrndx
        sh0 = self._shdr(0)
        if shnum == 0:                  # extended numbering
            shnum = sh0["size"]
        if shstrndx == 0xFFFF:          # SHN_XINDEX
            shstrndx = sh0["link"]
        if self.e_shoff + shnum * want > len(self.data):
            raise BadInput("section header table (e_shoff 0x%x, %d entries) "
                           "past the end" % (self.e_shoff, shnum))
        shdrs = [self._shdr(i) for i in range(shnum)]
        if shstrndx >= shnum:
            raise BadInput("e_shstrndx %d out of range" % shstrndx)
        strtab = shdrs[shstrndx]
        if strtab["offset"] + strtab["size"] > len(self.data):
            raise BadInput("section name table past the end")
        names = self.data[strtab["offset"]:strtab["offset"] + strtab["size"]]
        for i, sh in enumerate(shdrs):
            sh["index"] = i
            if sh["name"] >= len(names):
                if i == 0 and sh["name"] == 0:
                    sh["name_str"] = ""
                    continue
                raise BadInput("section %d: sh_name %d out of range"
                               % (i, sh["name"]))
            sh["name_str"] = names[sh["name"]:].split(b"\0", 1)[0].decode(
                "latin-1")
        return shdrs

    def build_id_note(self):
        """The GNU/3 note where perf looks (symbol-elf.c, elf_read_build_id):
        the first section named .note.gnu.build-id, else .notes, else
        .note. Two sections named .note.gnu.build-id are refused."""
        gnu = [sh for sh in self.shdrs
               if sh["name_str"] == ".note.gnu.build-id"]
        if len(gnu) > 1:
            raise BadInput("%d .note.gnu.build-id sections" % len(gnu))
        for want in (".note.gnu.build-id", ".notes", ".note"):
            secs = [sh for sh in self.shdrs if sh["name_str"] == want]
            if secs:
                break
        else:
            raise BadInput("no .note.gnu.build-id section (nor .notes, .note)")
        sh = secs[0]
        if sh["type"] != SHT_NOTE:
            raise BadInput("%s has type %d, not SHT_NOTE"
                           % (want, sh["type"]))
        for pos, _, descsz, ntype, name, desc_off in self.notes(
                sh["offset"], sh["size"], sh["addralign"]):
            if ntype == NT_GNU_BUILD_ID and name == b"GNU\0":
                return dict(section=sh, note_off=pos, desc_off=desc_off,
                            desc_len=descsz,
                            desc=bytes(self.data[desc_off:desc_off + descsz]))
        raise BadInput("no GNU/3 note in %s" % want)


def read_file(path):
    try:
        with open(path, "rb") as f:
            return bytearray(f.read())
    except OSError as e:
        raise BadInput("cannot read: %s" % e.strerror)


def content_id(data, note, alg):
    """The id the definition gives for data, whose note is at note."""
    n = ID_LEN[alg]
    buf = bytearray(data)
    buf[note["desc_off"]:note["desc_off"] + note["desc_len"]] = bytes(
        note["desc_len"])
    if alg == "sha1-tree":
        return sha1_tree(bytes(buf))[:n]
    return hashlib.new(alg, bytes(buf)).digest()[:n]


def cmd_id(args):
    alg = "sha1"
    files = []
    for a in args:
        if a.startswith("--hash="):
            alg = a[len("--hash="):]
            if alg not in ID_LEN:
                return usage("unknown hash '%s'" % alg)
        else:
            files.append(a)
    if len(files) != 1:
        return usage("id takes one FILE")
    data = read_file(files[0])
    note = Elf(data).build_id_note()
    computed = content_id(data, note, alg)
    if note["desc"] != computed:
        print("stored   %s" % note["desc"].hex())
        print("computed %s" % computed.hex())
        print("ebid.py: '%s': stored id (%d bytes) is not the %s content id"
              % (files[0], note["desc_len"], alg), file=sys.stderr)
        return 1
    print(computed.hex())
    return 0


def cmd_note(args):
    verbose = "-v" in args
    files = [a for a in args if a != "-v"]
    if len(files) != 1:
        return usage("note takes one FILE")
    data = read_file(files[0])
    elf = Elf(data)
    note = elf.build_id_note()
    print(note["desc"].hex())
    if verbose:
        sh = note["section"]
        print("section=%d type=%d flags=0x%x addralign=%d offset=0x%x size=%d "
              "addr=0x%x note_off=0x%x desc_off=0x%x desc_len=%d"
              % (sh["index"], sh["type"], sh["flags"], sh["addralign"],
                 sh["offset"], sh["size"], sh["addr"], note["note_off"],
                 note["desc_off"], note["desc_len"]))
    return 0


def kernel_build_id(page):
    """lib/buildid.c before 6.12: only the first page is looked at.

    Returns (id bytes, phdr index) or (None, reason)."""
    page = bytes(page[:PAGE])
    if len(page) < 16 or page[:4] != b"\x7fELF":
        return None, "bad magic"
    cls, enc = page[4], page[5]
    end = "<" if enc == 1 else ">"
    if cls not in (1, 2):
        return None, "bad class"
    ehdr = {n: (o, w) for n, o, w in EHDR[cls == 2]}
    ptable = PHDR[cls == 2]
    ehsize, phsize = end_of(EHDR[cls == 2]), end_of(ptable)
    phfmt = fmt_of(ptable)
    if len(page) < ehsize:
        return None, "short header"

    def half(name):
        return struct.unpack_from(end + "H", page, ehdr[name][0])[0]
    e_type = half("e_type")
    if e_type not in (ET_EXEC, ET_DYN):
        return None, "e_type %d is neither ET_EXEC nor ET_DYN" % e_type
    e_phnum = half("e_phnum")
    if e_phnum > (PAGE - ehsize) // phsize:
        return None, "e_phnum %d does not fit in the first page" % e_phnum
    # The kernel reads the program headers at sizeof(Ehdr), not at e_phoff.
    if ehsize + e_phnum * phsize > len(page):
        return None, "program headers past the end of the file"
    reasons = []
    for i in range(e_phnum):
        vals = struct.unpack_from(end + phfmt, page, ehsize + i * phsize)
        f = dict(zip((n for n, _, _ in ptable), vals))
        p_type, p_offset, p_filesz = f["p_type"], f["p_offset"], f["p_filesz"]
        if p_type != PT_NOTE:
            continue
        note_size = p_filesz & 0xFFFFFFFF       # Elf32_Word in the kernel
        if p_offset + note_size > PAGE or p_offset + note_size > len(page):
            reasons.append("PT_NOTE %d (0x%x+%d) not inside the first page"
                           % (i, p_offset, p_filesz))
            continue
        offs = 0
        while offs + 12 < note_size:
            namesz, descsz, ntype = struct.unpack_from(end + "III", page,
                                                       p_offset + offs)
            name = page[p_offset + offs + 12:p_offset + offs + 12 + 4]
            desc = p_offset + offs + 12 + 4
            if (ntype == NT_GNU_BUILD_ID and namesz == 4 and name == b"GNU\0"
                    and 0 < descsz <= BUILD_ID_SIZE_MAX):
                # Newer kernels also insist the descriptor is in the segment.
                if offs + 16 + descsz > note_size:
                    reasons.append("PT_NOTE %d: descriptor past its end" % i)
                    break
                return page[desc:desc + descsz], i
            new = offs + 12 + ((namesz + 3) & ~3) + ((descsz + 3) & ~3)
            if new <= offs:
                break
            offs = new
        reasons.append("PT_NOTE %d: no GNU/3 note with 0 < descsz <= 20" % i)
    if not reasons:
        reasons.append("no PT_NOTE program header")
    return None, "; ".join(reasons)


def cmd_kernel(args):
    verbose = "-v" in args
    files = [a for a in args if a != "-v"]
    if len(files) != 1:
        return usage("kernel takes one FILE")
    data = read_file(files[0])
    bid, where = kernel_build_id(data)
    if bid is None:
        print("ebid.py: '%s': kernel sees no build-id: %s" % (files[0], where),
              file=sys.stderr)
        return 1
    print(bid.hex())
    if verbose:
        print("phdr=%d" % where)
    return 0


RANGE_RE = re.compile(r"^  (patch|append) 0x([0-9a-f]+) ([0-9]+) (\S.*)$")
ID_RE = re.compile(r"^  id 0x([0-9a-f]+) ([0-9]+)$")
INSERT_RE = re.compile(r"^  insert 0x([0-9a-f]+) ([0-9]+) zero bytes \(.*\)$")
HEAD_RE = re.compile(r"^(\S.*): (\S.*)$")


def parse_dryrun(text):
    """Return a list of (kind, off, len) from one file's --dry-run output."""
    lines = text.splitlines()
    if not lines:
        raise BadInput("dry-run output is empty")
    if not HEAD_RE.match(lines[0]):
        raise BadInput("dry-run line 1 is not 'FILE: ACTION': %r" % lines[0])
    ranges = []
    for n, line in enumerate(lines[1:], 2):
        m = RANGE_RE.match(line)
        if m:
            ranges.append((m.group(1), int(m.group(2), 16), int(m.group(3))))
            continue
        m = ID_RE.match(line)
        if m:
            ranges.append(("id", int(m.group(1), 16), int(m.group(2))))
            continue
        m = INSERT_RE.match(line)
        if m:
            ranges.append(("insert", int(m.group(1), 16), int(m.group(2))))
            continue
        raise BadInput("dry-run line %d is not a patch/append/insert/id "
                       "line: %r"
                       % (n, line))
    return ranges


def spans(positions):
    """Group sorted positions into (start, end) runs."""
    out = []
    for p in positions:
        if out and out[-1][1] == p:
            out[-1][1] = p + 1
        else:
            out.append([p, p + 1])
    return out


def changed_positions(a, b, n):
    """Offsets below n where a and b differ (compared 4 KiB at a time)."""
    out = []
    for base in range(0, n, 4096):
        end = min(base + 4096, n)
        if a[base:end] != b[base:end]:
            out.extend(i for i in range(base, end) if a[i] != b[i])
    return out


def cmd_diffranges(args):
    if len(args) != 3:
        return usage("diffranges takes ORIG NEW DRYRUN_OUTPUT")
    orig, new = read_file(args[0]), read_file(args[1])
    try:
        with open(args[2], encoding="utf-8", errors="replace") as f:
            ranges = parse_dryrun(f.read())
    except OSError as e:
        raise BadInput("cannot read %s: %s" % (args[2], e.strerror))
    errors = []
    # An inserted gap: the input from there on follows that many zeros,
    # and every other range is an offset of the output.
    inserts = [(off, length) for kind, off, length in ranges
               if kind == "insert"]
    if len(inserts) > 1:
        errors.append("%d insert lines" % len(inserts))
    if inserts:
        at, gap = inserts[0]
        # Whole pages keep the segments after the gap congruent; a gap
        # behind every segment's bytes moves nothing loaded.
        segs_end = max((p["offset"] + p["filesz"] for p in Elf(orig).phdrs),
                       default=0)
        if at > len(orig) or gap == 0 or (gap % 4096 and at < segs_end):
            errors.append("insert 0x%x+%d: not inside the input, or neither "
                          "whole pages nor behind every segment's bytes"
                          % (at, gap))
        orig = orig[:at] + bytes(gap) + orig[at:]
    allowed = bytearray(max(len(orig), len(new)))
    append_end = len(orig)
    for kind, off, length in ranges:
        if kind == "insert":
            continue
        if length == 0:
            errors.append("%s range at 0x%x has length 0" % (kind, off))
        if kind == "patch" and off + length > len(orig):
            errors.append("patch 0x%x+%d lies past the input's end (%d)"
                          % (off, length, len(orig)))
        if kind == "append":
            if off < len(orig):
                errors.append("append 0x%x+%d starts inside the input (size "
                              "%d)" % (off, length, len(orig)))
            append_end = max(append_end, off + length)
        if off + length > len(allowed):
            errors.append("%s 0x%x+%d lies past the output's end (%d)"
                          % (kind, off, length, len(new)))
            continue
        allowed[off:off + length] = b"\1" * length
    if len(new) != append_end:
        errors.append("output size %d, but input size %d plus the append "
                      "ranges gives %d" % (len(new), len(orig), append_end))
    common = min(len(orig), len(new))
    changed = changed_positions(orig, new, common)
    bad = [i for i in changed if not allowed[i]]
    # Bytes past the input's end must all come from append ranges.
    bad += [i for i in range(common, len(new)) if not allowed[i]]
    for s, e in spans(bad)[:10]:
        errors.append("bytes 0x%x..0x%x (%d) changed outside the planned "
                      "ranges" % (s, e - 1, e - s))
    ids = [(off, length) for kind, off, length in ranges if kind == "id"]
    if len(ids) > 1:
        errors.append("%d id ranges" % len(ids))
    if ids:
        try:
            note = Elf(new).build_id_note()
            if (note["desc_off"], note["desc_len"]) != ids[0]:
                errors.append("id range 0x%x+%d is not the note's descriptor "
                              "0x%x+%d" % (ids[0][0], ids[0][1],
                                           note["desc_off"],
                                           note["desc_len"]))
        except BadInput as e:
            errors.append("output: %s" % e)
    for e in errors:
        print("diffranges: %s" % e)
    if errors:
        return 1
    print("ok: %d ranges, %d bytes changed, %d appended"
          % (len(ranges), len(changed), len(new) - len(orig)))
    return 0


def cmd_segid(args):
    alg = "sha1"
    files = []
    for a in args:
        if a.startswith("--hash="):
            alg = a[len("--hash="):]
            if alg not in ID_LEN:
                return usage("unknown hash '%s'" % alg)
        else:
            files.append(a)
    if len(files) != 1:
        return usage("segid takes one FILE")
    data = read_file(files[0])
    elf = Elf(data)
    note = None
    for ph in elf.phdrs:
        if ph["type"] != PT_NOTE or note:
            continue
        for pos, _, descsz, ntype, name, desc_off in elf.notes(
                ph["offset"], ph["filesz"], 4):
            if ntype == NT_GNU_BUILD_ID and name == b"GNU\0":
                note = dict(note_off=pos, desc_off=desc_off, desc_len=descsz,
                            desc=bytes(data[desc_off:desc_off + descsz]))
                break
    if note is None:
        raise BadInput("no GNU/3 note in any PT_NOTE")
    computed = content_id(data, note, alg)
    if note["desc"] != computed:
        print("stored   %s" % note["desc"].hex())
        print("computed %s" % computed.hex())
        print("ebid.py: '%s': stored id (%d bytes) is not the %s content id"
              % (files[0], note["desc_len"], alg), file=sys.stderr)
        return 1
    print(computed.hex())
    return 0


def usage(msg=None):
    if msg:
        print("ebid.py: %s" % msg, file=sys.stderr)
    for line in __doc__.splitlines():
        if line.startswith("  ebid.py "):
            print("usage: " + line.strip(), file=sys.stderr)
    return 64


def main(argv):
    if len(argv) < 2 or argv[1] in ("-h", "--help"):
        return usage() if len(argv) < 2 else (print(__doc__) or 0)
    cmds = {"id": cmd_id, "note": cmd_note, "kernel": cmd_kernel,
            "diffranges": cmd_diffranges, "segid": cmd_segid}
    if argv[1] not in cmds:
        return usage("unknown command '%s'" % argv[1])
    try:
        return cmds[argv[1]](argv[2:])
    except BadInput as e:
        files = [a for a in argv[2:] if not a.startswith("-")]
        print("ebid.py: '%s': %s" % (files[0] if files else "", e),
              file=sys.stderr)
        return 2


if __name__ == "__main__":
    sys.exit(main(sys.argv))
