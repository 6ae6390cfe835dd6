#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""Crash states of a recorded run, each checked (ALICE, OSDI 2014;
CrashMonkey, OSDI 2018).

A real run of elf-buildid is recorded by tests/crash/recshim.c: the writes,
copies, truncations, fsyncs, creates, renames and unlinks it made under one
directory, in order. From that log and the directory as it was before the
run, this builds every state the directory could be left in by a power loss
after each call, as the file systems' persistence rules allow, and checks
each one:

  - the target name holds the old file or the new one, byte for byte;
  - or a journal of an in-place edit lies beside it, and the recovery that
    every later elf-buildid run makes first (build/crash/ebid-recover, the
    library's own ebid_inplace_recover()) leaves the old file or the new
    one, and no journal.

"old" and "new" are not computed here: they are the file before the run and
the file the real run left.

The persistence model is the union of what ext4 (data=ordered) and XFS
allow, so that a run correct under it is correct under both:
  - metadata operations (create, rename, unlink, link, truncate) reach the
    disk in the order they were made (both journal them in order: jbd2's
    transactions, XFS's log), so a state keeps a prefix of them; a prefix
    must hold every one that a later fsync of its directory (a create,
    rename, unlink, link) or of its file (a truncate) forced;
  - the data of a file reaches the disk a 512-byte sector at a time, each
    sector independently, as the sector was at some moment since the
    file's last fsync (writeback writes the page as it is at that moment;
    a sector is the unit a disk writes whole);
  - a size grown by a write reaches the disk at any moment after the write
    (ext4's delayed allocation and XFS update it at writeback), forced by
    an fsync of the file: zeros may show where the data has not come yet;
  - fsync(file) forces that file's data and size, not its name; fsync of a
    directory forces the names in it (POSIX; ext4 and XFS give more, which
    the model does not count on);
  - sync_file_range(WRITE|WAIT_AFTER) has a range's pages written to the
    disk, but a disk may hold them in its cache: they are forced by the
    next flush of that cache. Every journal commit flushes it before its
    own record lands (jbd2's commit block, XFS's log writes carry
    REQ_PREFLUSH), so: by a later fsync of anything, and in any state that
    keeps a metadata operation made after the range was written (that
    operation reached the disk in a commit).

Usage: states.py --log LOG --dir DIR --initial NAME=FILE [...] --target NAME
         --old FILE --new FILE [--journal NAME] [--recover BIN]
         [--limit N] [--drop K ...] [--seed S] [--durable]
  --initial  the files of DIR before the run (NAME=a copy of it; their
             inode numbers are read from DIR's manifest, --inodes)
  --inodes   FILE of lines "NAME<TAB>INO": DIR's files before the run
  --limit    at most N states per crash point; past it a seeded sample
             (the extremes and random ones), and the summary says
             "sampled"
  --durable  also: after the last call (the run has returned) every state
             is the new file, after recovery where a journal is left
  --drop K   leave call K (0-based, in the log's order) out, as a run that
             never made it would have: to see the check fail with a
             promise broken on purpose
Prints one line per failure (at most 20) and a summary line:
  crash-states: P points, S states, R recovered, F failed, exhaustive|sampled
Exit 0 when no state failed, 1 when one did, 2 on bad usage or log.
"""
import argparse
import itertools
import os
import random
import subprocess
import sys

SECTOR = 512


def parse_log(path):
    ops = []
    with open(path) as f:
        for line in f:
            line = line.rstrip("\n")
            if not line:
                continue
            fields = line.split("\t")
            k = fields[0]
            if k == "CREATE":
                ops.append(("CREATE", int(fields[1]), fields[2]))
            elif k == "WRITE":
                ops.append(("WRITE", int(fields[1]), int(fields[2]),
                            bytes.fromhex(fields[3])))
            elif k == "COPY":
                ops.append(("COPY", int(fields[1]), int(fields[2]),
                            int(fields[3]), int(fields[4]), int(fields[5])))
            elif k == "CLONE":
                ops.append(("CLONE", int(fields[1]), int(fields[2])))
            elif k == "TRUNC":
                ops.append(("TRUNC", int(fields[1]), int(fields[2])))
            elif k == "FSYNC":
                ops.append(("FSYNC", int(fields[1])))
            elif k == "FSYNCDIR":
                ops.append(("FSYNCDIR", fields[1]))
            elif k == "SYNCALL":
                ops.append(("SYNCALL",))
            elif k == "SYNCRANGE":
                ops.append(("SYNCRANGE", int(fields[1]), int(fields[2]),
                            int(fields[3])))
            elif k in ("RENAME", "LINK"):
                ops.append((k, fields[1], fields[2]))
            elif k == "UNLINK":
                ops.append(("UNLINK", fields[1]))
            else:
                raise ValueError("unknown log line: " + line[:80])
    return ops


class Inode:
    """One file's history: its bytes now, every version of each sector
    (version 0 is the sector before the run), and its sizes."""

    def __init__(self, data=b""):
        self.data = bytearray(data)
        self.versions = {}      # sector -> [(op index, bytes)]
        self.sizes = [(-1, len(data))]  # (op index, size): every size taken
        self.synced = -1        # op index of its last fsync

    def sector_bytes(self, s):
        b = bytes(self.data[s * SECTOR:(s + 1) * SECTOR])
        return b + b"\0" * (SECTOR - len(b))

    def write(self, i, off, buf):
        end = off + len(buf)
        first, last = off // SECTOR, (end - 1) // SECTOR
        for s in range(first, last + 1):
            if s not in self.versions:
                self.versions[s] = [(-1, self.sector_bytes(s))]
        if end > len(self.data):
            self.data.extend(b"\0" * (end - len(self.data)))
        self.data[off:end] = buf
        for s in range(first, last + 1):
            self.versions[s].append((i, self.sector_bytes(s)))
        if end > self.sizes[-1][1]:
            self.sizes.append((i, end))

    def truncate(self, i, size):
        # The bytes past size are gone; a regrown file reads zeros there.
        # (No run of ours regrows a file it cut: replay refuses a log
        # that does.)
        if size < len(self.data):
            del self.data[size:]
            self.cut = True
        else:
            self.data.extend(b"\0" * (size - len(self.data)))
        self.sizes.append((i, size))


def replay(ops, initial):
    """Runs the log forward: the inodes with their histories, and the
    ordered metadata operations (op index, kind, args)."""
    inodes = {ino: Inode(data) for ino, data in initial.items()}
    meta = []
    for i, op in enumerate(ops):
        k = op[0]
        if k == "CREATE":
            inodes[op[1]] = Inode()
            inodes[op[1]].created = i
            meta.append((i, op))
        elif k == "WRITE":
            if getattr(inodes[op[1]], "cut", False):
                raise ValueError("call %d writes a file the run truncated" % i)
            inodes[op[1]].write(i, op[2], op[3])
        elif k == "COPY":
            src = inodes[op[3]]
            buf = bytes(src.data[op[4]:op[4] + op[5]])
            inodes[op[1]].write(i, op[2], buf)
        elif k == "CLONE":
            inodes[op[1]].write(i, 0, bytes(inodes[op[2]].data))
        elif k == "TRUNC":
            inodes[op[1]].truncate(i, op[2])
            meta.append((i, op))
        elif k in ("RENAME", "UNLINK", "LINK"):
            meta.append((i, op))
    return inodes, meta


def forced_meta(ops, meta, k):
    """How many of the metadata operations before crash point k a state
    must keep: up to the last one a barrier before k forced."""
    need = 0
    for n, (i, op) in enumerate(meta):
        if i >= k:
            break
        for j in range(i + 1, k):
            b = ops[j]
            if b[0] == "SYNCALL":
                need = n + 1
                break
            if b[0] == "FSYNCDIR" and op[0] in ("CREATE", "RENAME",
                                                "UNLINK", "LINK"):
                paths = [op[2]] if op[0] == "CREATE" else list(op[1:])
                if any(os.path.dirname(p) == b[1] for p in paths):
                    need = n + 1
                    break
            if b[0] == "FSYNC" and op[0] == "TRUNC" and b[1] == op[1]:
                need = n + 1
                break
    return need


def names_after(initial_names, meta, p):
    names = dict(initial_names)
    for _, op in meta[:p]:
        if op[0] == "CREATE":
            names[op[2]] = op[1]
        elif op[0] == "RENAME":
            if op[1] in names:
                names[op[2]] = names.pop(op[1])
        elif op[0] == "UNLINK":
            names.pop(op[1], None)
        elif op[0] == "LINK":
            if op[1] in names:
                names[op[2]] = names[op[1]]
    return names


def last_sync(ops, ino, k):
    last = -1
    for j in range(k):
        if ops[j][0] == "SYNCALL" or (ops[j][0] == "FSYNC" and ops[j][1] == ino):
            last = j
    return last


def range_syncs(ops, ino, k, meta, p):
    """The ranges of ino that sync_file_range wrote before k and a later
    flush made durable: an fsync before k, or a metadata operation made
    after the range and kept in the state's first p. [(op index, off,
    len)]."""
    flushes = [j for j in range(k) if ops[j][0] in ("FSYNC", "FSYNCDIR",
                                                     "SYNCALL")]
    flushes += [i for i, _ in meta[:p]]
    return [(j, op[2], op[3]) for j, op in enumerate(ops[:k])
            if op[0] == "SYNCRANGE" and op[1] == ino and
            any(f > j for f in flushes)]


def choices_for(inode, ops, ino, k, meta, p):
    """What may be on disk for one inode at crash point k with the first p
    metadata operations kept: the size choices and, per sector, the
    version choices (each a list of bytes)."""
    synced = last_sync(ops, ino, k)
    kept = {i for i, op in meta[:p] if op[0] == "TRUNC" and op[1] == ino}
    cut = {i for i, op in meta if op[0] == "TRUNC" and op[1] == ino}
    ev = [(i, s) for i, s in inode.sizes if i < k]
    # The size as of the last fsync, or as of the last truncate kept;
    # then any size it took later (growth floats), up to the first
    # truncate not kept (metadata is kept in order).
    start = max([n for n, (i, _) in enumerate(ev) if i <= synced or i in kept]
                + [0])
    end = len(ev)
    for n in range(start + 1, len(ev)):
        if ev[n][0] in cut and ev[n][0] not in kept:
            end = n
            break
    sizes = sorted({s for _, s in ev[start:end]})
    ranges = range_syncs(ops, ino, k, meta, p)
    sectors = {}
    for s, vers in inode.versions.items():
        vs = [(i, b) for i, b in vers if i < k]
        # A sector a flushed sync_file_range covered is as it was then.
        done = max([j for j, off, n in ranges
                    if off < (s + 1) * SECTOR and off + n > s * SECTOR]
                   + [synced])
        lo = max([n for n, (i, _) in enumerate(vs) if i <= done] + [0])
        uniq = []
        for _, b in vs[lo:]:
            if b not in uniq:
                uniq.append(b)
        sectors[s] = uniq
    return sizes, sectors


def assemble(inode, size, pick):
    data = bytearray(inode.data[:size])
    if len(data) < size:
        data.extend(b"\0" * (size - len(data)))
    for s, b in pick.items():
        lo = s * SECTOR
        if lo >= size:
            continue
        hi = min(size, lo + SECTOR)
        data[lo:hi] = b[:hi - lo]
    # Sectors never written in the run are the same in every version.
    return bytes(data)


class Harness:
    """The states of one recorded run, and their verdicts."""

    def __init__(self, a):
        self.a = a
        self.d = os.path.realpath(a.dir)
        ops = parse_log(a.log)
        self.ops = [op for i, op in enumerate(ops) if i not in set(a.drop)]
        ino_of = {}
        with open(a.inodes) as f:
            for line in f:
                name, ino = line.rstrip("\n").split("\t")
                ino_of[name] = int(ino)
        initial, self.initial_names = {}, {}
        for spec in a.initial:
            name, path = spec.split("=", 1)
            with open(path, "rb") as f:
                initial[ino_of[name]] = f.read()
            self.initial_names[os.path.join(self.d, name)] = ino_of[name]
        self.old = open(a.old, "rb").read()
        self.new = open(a.new, "rb").read()
        self.target = os.path.join(self.d, a.target)
        self.journal = os.path.join(self.d, a.journal) if a.journal else None
        self.inodes, self.meta = replay(self.ops, initial)
        self.rng = random.Random(a.seed)
        self.points = self.states = self.recovered = self.failed = 0
        self.exhaustive = True
        self.seen = set()
        self.fails = []

    def fail(self, msg):
        self.failed += 1
        if len(self.fails) < 20:
            self.fails.append(msg)

    def check(self, k, p, tino, fdata, jdata):
        ops = self.ops
        where = "crash after call %d (%s), %d metadata ops kept" % (
            k - 1, ops[k - 1][0] if k else "-", p)
        final = self.a.durable and k == len(ops)
        want = (self.new,) if final else (self.old, self.new)
        if fdata is None:
            self.fail(where + ": the target name is gone")
        elif jdata is None and fdata not in want:
            self.fail(where + (": the run has returned, and the target is not the new file"
                               if final else
                               ": the target is neither the old file nor the new one, and no journal can undo it"))
        elif jdata is not None:
            self.check_recovery(where, final, want, tino, fdata, jdata)

    def check_recovery(self, where, final, want, tino, fdata, jdata):
        if not self.a.recover:
            self.fail(where + ": a journal is left and no --recover was given")
            return
        # The journal names the inode it belongs to, so the state is laid
        # into the target's own inode, the one the run edited in place.
        if os.stat(self.target).st_ino != tino:
            self.fail(where + ": harness: the target's inode is not the edited one")
            return
        with open(self.target, "r+b") as f:
            f.write(fdata)
            f.truncate(len(fdata))
        with open(self.journal, "wb") as f:
            f.write(jdata)
        said = self.recover_now()
        out = open(self.target, "rb").read()
        left = os.path.exists(self.journal)
        if left:
            os.unlink(self.journal)
        self.recovered += 1
        if said.startswith("error"):
            self.fail(where + ": recovery failed: " + said)
        elif left:
            self.fail(where + ": recovery left the journal")
        elif out not in want:
            self.fail(where + ": after recovery (%s) %s" % (
                said,
                "not the new file, and the run has returned" if final
                else "neither old nor new"))

    def recover_now(self):
        """One recovery by the library, in one ebid-recover process kept
        for the whole run (a process a state would take most of the
        time)."""
        if not hasattr(self, "rec"):
            self.rec = subprocess.Popen([self.a.recover, "-"], text=True,
                                        stdin=subprocess.PIPE,
                                        stdout=subprocess.PIPE)
        self.rec.stdin.write("%s\t%s\n" % (self.d, self.a.target))
        self.rec.stdin.flush()
        return self.rec.stdout.readline().strip() or "error: ebid-recover ended"

    def space(self, k, p):
        """The watched names' inodes at (k, p) and their choices."""
        names = names_after(self.initial_names, self.meta, p)
        out = []
        for n in (self.target, self.journal):
            if not n or n not in names:
                continue
            ino = names[n]
            sizes, secs = choices_for(self.inodes[ino], self.ops, ino, k,
                                      self.meta, p)
            multi = [(s, v) for s, v in sorted(secs.items()) if len(v) > 1]
            single = {s: v[0] for s, v in secs.items() if len(v) == 1}
            out.append((n, ino, sizes, multi, single))
        return names, out

    def combos(self, space):
        dims = []
        for _, _, sizes, multi, _ in space:
            dims.append(len(sizes))
            dims.extend(len(v) for _, v in multi)
        total = 1
        for n in dims:
            total *= n
        if total <= self.a.limit:
            return itertools.product(*[range(n) for n in dims])
        self.exhaustive = False
        picks = [tuple(0 for _ in dims), tuple(n - 1 for n in dims)]
        for _ in range(self.a.limit - 2):
            picks.append(tuple(self.rng.randrange(n) for n in dims))
        return picks

    def state(self, k, p, names, space, combo):
        self.states += 1
        it = iter(combo)
        content, picked = {}, []
        for n, ino, sizes, multi, single in space:
            size = sizes[next(it)]
            pick = dict(single)
            for s, v in multi:
                pick[s] = v[next(it)]
            picked.append((n, ino, size, tuple(sorted(pick.items()))))
            content[n] = (ino, size, pick)
        # The same names holding the same bytes at two crash points are
        # one state (but the last point is judged apart with --durable).
        key = (tuple(picked), self.a.durable and k == len(self.ops))
        if key in self.seen:
            return
        self.seen.add(key)
        data = {n: assemble(self.inodes[ino], size, pick)
                for n, (ino, size, pick) in content.items()}
        self.check(k, p, names.get(self.target), data.get(self.target),
                   data.get(self.journal) if self.journal else None)

    def run(self):
        for k in range(len(self.ops) + 1):
            self.points += 1
            kept = sum(1 for i, _ in self.meta if i < k)
            for p in range(forced_meta(self.ops, self.meta, k), kept + 1):
                names, space = self.space(k, p)
                for combo in self.combos(space):
                    self.state(k, p, names, space, combo)


def main():
    ap = argparse.ArgumentParser()
    for opt in ("--log", "--dir", "--inodes", "--target", "--old", "--new"):
        ap.add_argument(opt, required=True)
    ap.add_argument("--initial", action="append", default=[])
    ap.add_argument("--journal")
    ap.add_argument("--recover")
    ap.add_argument("--limit", type=int, default=4096)
    ap.add_argument("--drop", type=int, action="append", default=[])
    ap.add_argument("--seed", type=int, default=1)
    ap.add_argument("--durable", action="store_true")
    a = ap.parse_args()
    try:
        h = Harness(a)
    except (OSError, ValueError, KeyError) as e:
        print("crash-states: bad input: %s" % e)
        return 2
    h.run()
    for m in h.fails:
        print("FAIL " + m)
    print("crash-states: %d points, %d states, %d recovered, %d failed, %s"
          % (h.points, h.states, h.recovered, h.failed,
             "exhaustive" if h.exhaustive else "sampled"))
    return 1 if h.failed else 0


if __name__ == "__main__":
    sys.exit(main())
