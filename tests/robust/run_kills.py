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


def parse(argv):
    """The options, or None after printing the usage."""
    a = {"--tool": None, "--fixture": None, "--work": None, "--runs": None,
         "--problems": None, "--summary": None, "--mb": "200", "--seed": "6",
         "inplace": False, "lease": False}
    args = argv[1:]
    while args:
        k = args.pop(0)
        if k in ("--in-place", "--lease"):
            a["inplace" if k == "--in-place" else "lease"] = True
            continue
        if k not in a or k in ("inplace", "lease") or not args:
            print(__doc__, file=sys.stderr)
            return None
        a[k] = args.pop(0)
    if not all(a[k] for k in a if k.startswith("--")):
        print(__doc__, file=sys.stderr)
        return None
    return a


class Kills:
    """One campaign: the file, its original and reference, the findings."""

    def __init__(self, a):
        self.a, self.tool = a, a["--tool"]
        self.inplace, self.lease = a["inplace"], a["lease"]
        self.rnd = random.Random(int(a["--seed"]))
        work = os.path.abspath(a["--work"])
        self.work = work
        shutil.rmtree(work, ignore_errors=True)
        self.d = os.path.join(work, "dir")
        os.makedirs(self.d)
        self.name = "big"
        self.path = os.path.join(self.d, self.name)
        self.link = os.path.join(self.d, "big-link")
        self.pristine = os.path.join(work, "pristine")
        # The original: the fixture, then a non-zero pattern.
        with open(a["--fixture"], "rb") as f:
            head = f.read()
        pat = bytes(range(1, 256)) * 4200
        with open(self.pristine, "wb") as f:
            f.write(head)
            for _ in range(int(a["--mb"])):
                f.write(pat[:1 << 20])
        os.chmod(self.pristine, 0o755)
        self.orig_sha = sha1(self.pristine)
        self.size = os.path.getsize(self.pristine)
        self.diff_end = None
        self.problems = []
        self.outcomes = {"original": 0, "new": 0, "torn": 0}
        self.stale_after_kill = self.stale_after_rerun = 0
        self.journals_after_kill = 0
        self.delays = []

    def argv(self):
        mode = ["--in-place"] if self.inplace else [] if self.lease \
            else ["--replace"]
        return [self.tool, "inject"] + mode + [self.path]

    def put_back(self):
        """Make path the original again. The reference result differs from
        it only in its first bytes (no append): rewrite those, or copy."""
        if os.path.exists(self.path) and \
                os.path.getsize(self.path) == self.size and \
                self.diff_end is not None:
            with open(self.pristine, "rb") as src:
                start = src.read(self.diff_end)
            with open(self.path, "r+b") as dst:
                dst.write(start)
        else:
            if os.path.exists(self.path):
                os.unlink(self.path)
            shutil.copyfile(self.pristine, self.path)
            os.chmod(self.path, 0o755)
        if self.inplace:
            if os.path.exists(self.link):
                os.unlink(self.link)
            os.link(self.path, self.link)

    def leftovers(self):
        return sorted(e for e in os.listdir(self.d)
                      if e.startswith("." + self.name + ".ebid-"))

    def reference(self):
        """The undisturbed run: its result checked and its duration; an
        error message, or None."""
        self.put_back()
        t0 = time.monotonic()
        r = subprocess.run(self.argv(), stdout=subprocess.PIPE,
                           stderr=subprocess.PIPE)
        self.took = time.monotonic() - t0
        if r.returncode != 0:
            return "the undisturbed run failed: %s" % r.stderr.decode()
        self.ref_sha = sha1(self.path)
        with open(self.path, "rb") as f:
            data = f.read()
        try:
            note = ebid.Elf(data).build_id_note()
            kid = ebid.kernel_build_id(data)[0]
            if ebid.content_id(data, note, "sha1") != note["desc"] or \
                    kid != note["desc"]:
                raise ebid.BadInput("id is not the content hash or not visible")
        except ebid.BadInput as e:
            return "the reference result is not valid: %s" % e
        if len(data) == self.size:
            with open(self.pristine, "rb") as f:
                o = f.read(1 << 16)
            diffs = [i for i in range(len(o)) if o[i] != data[i]]
            if diffs and data[1 << 16:] == _tail(self.pristine, 1 << 16):
                self.diff_end = diffs[-1] + 1
        return None

    def kill_once(self, n):
        for e in self.leftovers():
            os.unlink(os.path.join(self.d, e))
        self.put_back()
        delay = self.rnd.uniform(0, 1.2 * self.took)
        self.delays.append(delay)
        p = subprocess.Popen(self.argv(), stdout=subprocess.DEVNULL,
                             stderr=subprocess.DEVNULL)
        time.sleep(delay)
        p.send_signal(signal.SIGKILL)
        p.wait()
        self.after_kill(n, delay, p.returncode == 0)
        self.rerun(n, delay)

    def after_kill(self, n, delay, finished):
        now = sha1(self.path)
        left = self.leftovers()
        journal = [e for e in left if e.endswith(".ebid-journal")]
        self.stale_after_kill += bool([e for e in left if e not in journal])
        self.journals_after_kill += bool(journal)
        if now == self.orig_sha:
            self.outcomes["original"] += 1
        elif now == self.ref_sha:
            self.outcomes["new"] += 1
        else:
            self.outcomes["torn"] += 1
            if not ((self.inplace or self.lease) and journal):
                self.problems.append(("state", "kill %d after %.3fs%s" % (
                    n, delay, " (it had finished)" if finished else ""),
                    "the path holds neither the original nor the complete "
                    "new file"))

    def rerun(self, n, delay):
        r = subprocess.run(self.argv(), stdout=subprocess.PIPE,
                           stderr=subprocess.PIPE)
        after = sha1(self.path)
        if r.returncode != 0 or after != self.ref_sha:
            self.problems.append(("rerun", "kill %d after %.3fs" % (n, delay),
                                  "rerun exit %d, %s: %s" % (
                                      r.returncode,
                                      "reference result" if after == self.ref_sha
                                      else "not the reference result",
                                      r.stderr.decode().strip()[:200])))
        still = self.leftovers()
        if any(not e.endswith(".ebid-journal") for e in still):
            self.stale_after_rerun += 1
            self.problems.append(("stale", "kill %d after %.3fs" % (n, delay),
                                  "rerun left the killed run's temporaries: %s"
                                  % still))
        if any(e.endswith(".ebid-journal") for e in still):
            self.problems.append(("journal", "kill %d after %.3fs" % (n, delay),
                                  "a journal is left after the rerun: %s" % still))
        if self.inplace and os.stat(self.link).st_ino != os.stat(self.path).st_ino:
            self.problems.append(("state", "kill %d" % n, "hard link split"))

    def summary(self, runs):
        mode = "--in-place" if self.inplace else "lease" if self.lease \
            else "replace"
        o = self.outcomes
        return ("%s: %d kills of inject on a %d-byte file (undisturbed run "
                "%.2fs; delays %.3f..%.3fs, seed %s): %d original, %d new, %d "
                "torn%s; killed runs that left temporaries: %d; reruns that "
                "left them: %d; %d problems"
                % (mode, runs, self.size, self.took, min(self.delays or [0]),
                   max(self.delays or [0]), self.a["--seed"], o["original"],
                   o["new"], o["torn"],
                   " (journal left for the rerun: %d)" % self.journals_after_kill
                   if self.inplace or self.lease else "", self.stale_after_kill,
                   self.stale_after_rerun, len(self.problems)))


def main(argv):
    a = parse(argv)
    if a is None:
        return 64
    k = Kills(a)
    why = k.reference()
    if why:
        print("run_kills: " + why, file=sys.stderr)
        return 2
    runs = int(a["--runs"])
    for n in range(runs):
        k.kill_once(n)
    for e in k.leftovers():
        os.unlink(os.path.join(k.d, e))
    shutil.rmtree(k.work, ignore_errors=True)
    with open(a["--problems"], "a") as f:
        for p_ in k.problems:
            f.write("\t".join(p_) + "\n")
    line = k.summary(runs)
    with open(a["--summary"], "a") as f:
        f.write(line + "\n")
    print("run_kills: " + line)
    return 1 if k.problems else 0


def _tail(path, off):
    with open(path, "rb") as f:
        f.seek(off)
        return f.read()


if __name__ == "__main__":
    sys.exit(main(sys.argv))
