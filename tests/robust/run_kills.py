#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""SIGKILL elf-buildid inject at random moments on a large file.

The file is a fixture with about --mb MiB appended. An undisturbed run
gives the reference result (validated with tests/ebid.py: the stored id is
the content hash and the kernel's reader finds it) and its duration T. Then
--runs times: the original is put back, inject starts, and after a random
delay in [0, 1.2 T] (seeded, so reproducible) it gets SIGKILL. Recorded for
each run, each breach a problem:

  state      the path holds neither the original bytes nor the complete
             reference result (sha1 compared)
  rerun      a rerun does not exit 0 with the reference result
  stale      ".NAME.ebid-*" temporaries left by the killed run are still
             there after the rerun (the issue asks the rerun to remove
             them); the killed run's leftovers are counted as figures
  journal    (--in-place) a journal is left after the rerun

Without a mode option inject runs with --replace. With --in-place the file
has a second hard link and inject runs with --in-place; with --lease inject
runs in its default mode on a file nobody else has open, which it edits in
place under a write lease; in both a killed run may leave the file torn as
long as its journal is there for the next run to undo: the state after the
rerun must be the reference result.

Usage: run_kills.py --tool BIN --fixture FILE --work DIR --runs N
                    --problems FILE --summary FILE [--mb MB] [--seed S]
                    [--in-place | --lease]
Exit status: 0 no problem, 1 problems, 2 setup failed, 64 usage.
"""

import hashlib
import os
import random
import shutil
import signal
import subprocess
import sys
import time

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.dirname(HERE))
sys.dont_write_bytecode = True
import ebid  # noqa: E402


def sha1(path):
    h = hashlib.sha1()
    with open(path, "rb") as f:
        for chunk in iter(lambda: f.read(1 << 22), b""):
            h.update(chunk)
    return h.hexdigest()


def main(argv):
    a = {"--tool": None, "--fixture": None, "--work": None, "--runs": None,
         "--problems": None, "--summary": None, "--mb": "200", "--seed": "6"}
    inplace = lease = False
    args = argv[1:]
    while args:
        k = args.pop(0)
        if k == "--in-place":
            inplace = True
            continue
        if k == "--lease":
            lease = True
            continue
        if k not in a or not args:
            print(__doc__, file=sys.stderr)
            return 64
        a[k] = args.pop(0)
    if not all(a.values()):
        print(__doc__, file=sys.stderr)
        return 64
    tool, runs = a["--tool"], int(a["--runs"])
    rnd = random.Random(int(a["--seed"]))
    work = os.path.abspath(a["--work"])
    shutil.rmtree(work, ignore_errors=True)
    d = os.path.join(work, "dir")
    os.makedirs(d)
    name = "big"
    path = os.path.join(d, name)
    link = os.path.join(d, "big-link")
    pristine = os.path.join(work, "pristine")

    # The original: the fixture, then a non-zero pattern.
    with open(a["--fixture"], "rb") as f:
        head = f.read()
    pat = bytes(range(1, 256)) * 4200
    with open(pristine, "wb") as f:
        f.write(head)
        for _ in range(int(a["--mb"])):
            f.write(pat[:1 << 20])
    os.chmod(pristine, 0o755)
    orig_sha = sha1(pristine)
    size = os.path.getsize(pristine)

    def argv_():
        mode = ["--in-place"] if inplace else [] if lease else ["--replace"]
        return [tool, "inject"] + mode + [path]

    def put_back():
        """Make path the original again. The reference result differs from
        it only in its first bytes (no append): rewrite those, or copy."""
        if os.path.exists(path) and os.path.getsize(path) == size and \
                diff_end is not None:
            with open(pristine, "rb") as src:
                start = src.read(diff_end)
            with open(path, "r+b") as dst:
                dst.write(start)
        else:
            if os.path.exists(path):
                os.unlink(path)
            shutil.copyfile(pristine, path)
            os.chmod(path, 0o755)
        if inplace:
            if os.path.exists(link):
                os.unlink(link)
            os.link(path, link)

    def leftovers():
        return sorted(e for e in os.listdir(d) if e.startswith("." + name +
                                                               ".ebid-"))

    # The reference run.
    diff_end = None
    put_back()
    t0 = time.monotonic()
    r = subprocess.run(argv_(), stdout=subprocess.PIPE, stderr=subprocess.PIPE)
    took = time.monotonic() - t0
    if r.returncode != 0:
        print("run_kills: the undisturbed run failed: %s" % r.stderr.decode(),
              file=sys.stderr)
        return 2
    ref_sha = sha1(path)
    with open(path, "rb") as f:
        data = f.read()
    try:
        note = ebid.Elf(data).build_id_note()
        kid = ebid.kernel_build_id(data)[0]
        if ebid.content_id(data, note, "sha1") != note["desc"] or \
                kid != note["desc"]:
            raise ebid.BadInput("id is not the content hash or not visible")
    except ebid.BadInput as e:
        print("run_kills: the reference result is not valid: %s" % e,
              file=sys.stderr)
        return 2
    if len(data) == size:
        with open(pristine, "rb") as f:
            o = f.read(1 << 16)
        diffs = [i for i in range(len(o)) if o[i] != data[i]]
        if diffs and data[1 << 16:] == _tail(pristine, 1 << 16):
            diff_end = diffs[-1] + 1
    del data

    problems, outcomes = [], {"original": 0, "new": 0, "torn": 0}
    stale_after_kill = stale_after_rerun = 0
    journals_after_kill = 0
    delays = []
    for n in range(runs):
        for e in leftovers():
            os.unlink(os.path.join(d, e))
        put_back()
        delay = rnd.uniform(0, 1.2 * took)
        delays.append(delay)
        p = subprocess.Popen(argv_(), stdout=subprocess.DEVNULL,
                             stderr=subprocess.DEVNULL)
        time.sleep(delay)
        p.send_signal(signal.SIGKILL)
        p.wait()
        finished = p.returncode == 0
        now = sha1(path)
        left = leftovers()
        journal = [e for e in left if e.endswith(".ebid-journal")]
        temps = [e for e in left if e not in journal]
        stale_after_kill += bool(temps)
        journals_after_kill += bool(journal)
        if now == orig_sha:
            outcomes["original"] += 1
        elif now == ref_sha:
            outcomes["new"] += 1
        else:
            outcomes["torn"] += 1
            if not ((inplace or lease) and journal):
                problems.append(("state", "kill %d after %.3fs%s" % (
                    n, delay, " (it had finished)" if finished else ""),
                    "the path holds neither the original nor the complete "
                    "new file"))
        r = subprocess.run(argv_(), stdout=subprocess.PIPE,
                           stderr=subprocess.PIPE)
        after = sha1(path)
        if r.returncode != 0 or after != ref_sha:
            problems.append(("rerun", "kill %d after %.3fs" % (n, delay),
                             "rerun exit %d, %s: %s" % (
                                 r.returncode,
                                 "reference result" if after == ref_sha
                                 else "not the reference result",
                                 r.stderr.decode().strip()[:200])))
        still = leftovers()
        if any(not e.endswith(".ebid-journal") for e in still):
            stale_after_rerun += 1
            problems.append(("stale", "kill %d after %.3fs" % (n, delay),
                             "rerun left the killed run's temporaries: %s"
                             % still))
        if any(e.endswith(".ebid-journal") for e in still):
            problems.append(("journal", "kill %d after %.3fs" % (n, delay),
                             "a journal is left after the rerun: %s" % still))
        if inplace and os.stat(link).st_ino != os.stat(path).st_ino:
            problems.append(("state", "kill %d" % n, "hard link split"))
    for e in leftovers():
        os.unlink(os.path.join(d, e))
    shutil.rmtree(work, ignore_errors=True)

    with open(a["--problems"], "a") as f:
        for p_ in problems:
            f.write("\t".join(p_) + "\n")
    mode = "--in-place" if inplace else "lease" if lease else "replace"
    line = ("%s: %d kills of inject on a %d-byte file (undisturbed run "
            "%.2fs; delays %.3f..%.3fs, seed %s): %d original, %d new, %d "
            "torn%s; killed runs that left temporaries: %d; reruns that "
            "left them: %d; %d problems"
            % (mode, runs, size, took, min(delays or [0]), max(delays or [0]),
               a["--seed"], outcomes["original"], outcomes["new"],
               outcomes["torn"],
               " (journal left for the rerun: %d)" % journals_after_kill
               if inplace or lease else "", stale_after_kill, stale_after_rerun,
               len(problems)))
    with open(a["--summary"], "a") as f:
        f.write(line + "\n")
    print("run_kills: " + line)
    return 1 if problems else 0


def _tail(path, off):
    with open(path, "rb") as f:
        f.seek(off)
        return f.read()


if __name__ == "__main__":
    sys.exit(main(sys.argv))
