#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""Other processes' view of a file while inject writes it (t0646).

  lease_readers.py read OLD NEW FILE STOP
      Until the file STOP exists: open FILE, read it whole, close it,
      and sort what was read: the bytes of OLD, of NEW, or other (a torn
      read); a pause of 20 ms between reads leaves the file unopened
      most of the time, so that inject is granted its lease and, as a
      rule, starts its edit before the next open; the writes into the
      file take longer than the pause (t0646 slows each to 20 ms), so
      reads come while an edit runs. Prints
      "reads N old N new N other N" and, for the first torn read, which
      bytes differed from both.

  lease_readers.py map OLD FILE READY GO [lib]
      Maps FILE (MAP_SHARED and MAP_PRIVATE, its descriptor closed after,
      as a loader does), or with "lib" loads it with dlopen (ctypes), then
      creates READY and waits for GO; then compares what the mappings
      hold with OLD's bytes and prints "mapped unchanged" or
      "mapped changed: ..." (the first offset that differs).
"""
import ctypes
import mmap
import os
import sys
import time


def first_diff(a, b):
    for i in range(min(len(a), len(b))):
        if a[i] != b[i]:
            return i
    return min(len(a), len(b))


def read_loop(old_p, new_p, path, stop):
    old = open(old_p, "rb").read()
    new = open(new_p, "rb").read()
    n = {"old": 0, "new": 0, "other": 0}
    torn = ""
    while not os.path.exists(stop):
        try:
            with open(path, "rb") as f:
                data = f.read()
        except FileNotFoundError:
            continue
        if data == old:
            n["old"] += 1
        elif data == new:
            n["new"] += 1
        else:
            n["other"] += 1
            if not torn:
                torn = (" first torn read: %d bytes, differs from old at %d, "
                        "from new at %d" % (len(data), first_diff(data, old),
                                            first_diff(data, new)))
        time.sleep(0.02)
    print("reads %d old %d new %d other %d%s"
          % (sum(n.values()), n["old"], n["new"], n["other"], torn))


def lib_mapping(path):
    """The start and length of the dlopen'ed file's mapping of offset 0."""
    real = os.path.realpath(path)
    with open("/proc/self/maps") as f:
        for line in f:
            parts = line.split()
            if len(parts) >= 6 and parts[5] == real and int(parts[2], 16) == 0:
                lo, hi = (int(x, 16) for x in parts[0].split("-"))
                return lo, hi - lo
    raise SystemExit("lease_readers: %s is not mapped" % path)


def map_hold(old_p, path, ready, go, lib):
    old = open(old_p, "rb").read()
    views = []
    if lib:
        handle = ctypes.CDLL(os.path.abspath(path))
        lo, n = lib_mapping(path)
        views.append(("dlopen", lambda: ctypes.string_at(lo, n), 0))
    else:
        fd = os.open(path, os.O_RDONLY)
        shared = mmap.mmap(fd, 0, mmap.MAP_SHARED, mmap.PROT_READ)
        private = mmap.mmap(fd, 0, mmap.MAP_PRIVATE, mmap.PROT_READ)
        os.close(fd)
        views.append(("MAP_SHARED", lambda: shared[:], 0))
        views.append(("MAP_PRIVATE", lambda: private[:], 0))
    before = [get() for _, get, _ in views]
    open(ready, "w").close()
    deadline = time.monotonic() + 60
    while not os.path.exists(go) and time.monotonic() < deadline:
        time.sleep(0.01)
    bad = []
    for (name, get, off), was in zip(views, before):
        now = get()
        if now != was or now != old[off:off + len(now)]:
            bad.append("%s at offset %d" % (name, first_diff(now, old[off:])))
    print("mapped " + ("unchanged" if not bad else "changed: " + ", ".join(bad)))
    if lib:
        del handle


def main(argv):
    if len(argv) == 6 and argv[1] == "read":
        read_loop(*argv[2:])
        return 0
    if len(argv) in (6, 7) and argv[1] == "map":
        map_hold(argv[2], argv[3], argv[4], argv[5], len(argv) == 7)
        return 0
    print(__doc__, file=sys.stderr)
    return 64


if __name__ == "__main__":
    sys.exit(main(sys.argv))
