#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""Inject a fault at every system call of elf-buildid's write path.

A first run under tests/fault/faultshim.so with EBID_FAULT_LOG lists every
file system call the command makes on the scratch directory, in order.
Then, for each such call (a "fault point") and each fault that fits its
kind, a fresh copy of the input is made and the command runs again with
that one call failed (or made short). Checked, each breach a problem:

  hard faults (an errno): exit 2 (or, for a failed lstat/stat/fstat/mmap
    probe other than the final change check, exit 0 with the complete new
    file: nothing depended on it); exactly one stderr line
    "elf-buildid: 'FILE': inject: cause" whose cause names what failed
    (a word for the call, or for --in-place the step: "journal" before
    the commit point, "in-place" after it) and the errno's text; before the commit point
    (rename, or the first write into the file itself for --in-place) the
    file's bytes are the original's; after it, they are the complete new
    file (the one an undisturbed run makes); every hard link sees the same
  soft faults (a short read or write, EINTR, copy_file_range EXDEV/ENOSYS,
    a failed mmap libelf can do without): exit 0 and the same new file an
    undisturbed run makes
  always: no signal, no hang, nothing left in the directory but the file
    (and its links): no ".NAME.ebid-*" temporary, journal or backup; the
    fault was really injected (FIRED in the log)

The scenarios: replace (inject --replace --preserve-times, a user xattr on
the file), lease (the default inject --preserve-times on the same file,
which nobody else has open: edited in place under a write lease, its commit
point the first write into the file, as for --in-place), inplace (inject
--in-place on a file with two hard links), and the read
paths verify (--perf=off) and show on a file that has its id: for those a
hard fault must give exit 2 (verify: an ERROR line or nothing on stdout),
never a PASS or SKIP, and a soft one the undisturbed run's output.

With --mutate, the faults are "another process appends a byte to the file"
at every point between the command's first look at the file once it holds
the file's lock and its last check before the rename (for --in-place: its
last write into the file); a process that writes without taking the lock:
the change must be detected (exit 2, "changed"), the file left as the
original plus the other process's bytes, no temporary left. The same at the
rename (the last write) itself is reported as the remaining window.

Usage: run_faults.py --tool BIN --shim SO --fixture FILE --work DIR
                     --scenario replace|lease|inplace|verify|show
                     --problems FILE
                     --summary FILE [--mutate]
Exit status: 0 no problem, 1 problems, 2 setup failed, 64 usage.
"""

import errno
import hashlib
import os
import re
import shutil
import signal
import subprocess
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.dirname(HERE))
sys.dont_write_bytecode = True
import ebid  # noqa: E402

# Which faults each call gets; "short"/"EINTR" and the listed soft ones
# must be survived.
HARD = {
    "open": ["EACCES", "EMFILE", "EIO"],
    "openat": ["EACCES", "EIO"],
    "read": ["EIO"],
    "pread": ["EIO"],
    "write": ["EIO", "ENOSPC", "EDQUOT"],
    "pwrite": ["EIO", "ENOSPC", "EDQUOT", "EFBIG"],
    "copy_file_range": ["EIO", "ENOSPC"],
    "fsync": ["EIO", "ENOSPC"],
    "fsync-dir": ["EIO"],
    "fdatasync": ["EIO"],
    "sync_file_range": ["EIO"],
    "fchown": ["EPERM"],
    "fchmod": ["EPERM"],
    "fsetxattr": ["ENOTSUP", "ENOSPC", "EPERM"],
    "fgetxattr": ["EIO"],
    "flistxattr": ["EIO"],
    "futimens": ["EPERM"],
    "rename": ["EXDEV", "EBUSY", "EACCES", "EROFS", "EIO"],
    "mkostemp": ["EACCES", "ENOSPC", "EROFS"],
    "stat": ["EIO"],
    "lstat": ["EIO"],
    "fstat": ["EIO"],
    "ftruncate": ["EIO", "EFBIG"],
    "unlink": ["EIO", "EACCES"],
    "realpath": ["EACCES", "ENOMEM"],
    "mmap": [],
    "flock": ["ENOLCK"],
}
SOFT = {
    "read": ["short", "EINTR"],
    "pread": ["short", "EINTR"],
    "write": ["short", "EINTR"],
    "pwrite": ["short", "EINTR"],
    "copy_file_range": ["short", "EINTR", "EXDEV", "ENOSYS"],
    "mmap": ["ENOMEM"],
}
# Probes whose failure the command may survive, when the result is still
# the complete new file: the lstat/stat of the argument, libelf's fstat and
# mmap (it falls back to reading). Not the last stat before the commit,
# which is the check that nobody changed the file.
READ_SIDE = {"lstat", "stat", "fstat", "mmap"}
# The words a message must use to say what failed.
WORDS = {
    "open": r"open", "openat": r"open", "read": r"read", "pread": r"read",
    "write": r"writ", "pwrite": r"writ", "copy_file_range": r"cop(y|ied)|writ",
    "fsync": r"sync", "fsync-dir": r"director", "fdatasync": r"sync",
    "sync_file_range": r"sync",
    "fchown": r"owner|chown", "fchmod": r"mode|chmod",
    "fsetxattr": r"xattr|attribute", "fgetxattr": r"xattr|attribute",
    "flistxattr": r"xattr|attribute", "futimens": r"time",
    "rename": r"replac|renam", "mkostemp": r"temp", "stat": r"stat",
    "lstat": r"stat", "fstat": r"stat", "ftruncate": r"truncat|size",
    "unlink": r"remov|unlink|delet", "realpath": r"resolv|path",
    "mmap": r"map|read",
    "flock": r"lock",
}


def sha256(path):
    with open(path, "rb") as f:
        return hashlib.sha256(f.read()).hexdigest()


class Runner:
    def __init__(self, a):
        self.tool, self.shim = a["--tool"], a["--shim"]
        self.fixture = a["--fixture"]
        self.work = os.path.abspath(a["--work"])
        self.scenario = a["--scenario"]
        self.problems = []
        self.lines = []
        self.runs = 0
        self.dir = os.path.join(self.work, "d")
        self.f = os.path.join(self.dir, "target")
        self.g = os.path.join(self.dir, "link")
        self.log = os.path.join(self.work, "fault.log")
        with open(self.fixture, "rb") as fx:
            self.orig = fx.read()
        self.cmd = "inject"
        if self.scenario in ("verify", "show"):
            # They read a file that already has its id.
            self.cmd = self.scenario
            os.makedirs(self.work, exist_ok=True)
            done = os.path.join(self.work, "injected")
            with open(done, "wb") as fx:
                fx.write(self.orig)
            subprocess.run([self.tool, "inject", "-q", done], check=True)
            with open(done, "rb") as fx:
                self.orig = fx.read()
        self.orig_sha = hashlib.sha256(self.orig).hexdigest()

    def argv(self):
        if self.scenario == "inplace":
            return [self.tool, "inject", "--in-place", self.f]
        if self.scenario == "verify":
            return [self.tool, "verify", "--perf=off", self.f]
        if self.scenario == "show":
            return [self.tool, "show", self.f]
        if self.scenario == "lease":
            return [self.tool, "inject", "--preserve-times", self.f]
        return [self.tool, "inject", "--replace", "--preserve-times", self.f]

    def setup(self):
        shutil.rmtree(self.dir, ignore_errors=True)
        os.makedirs(self.dir)
        with open(self.f, "wb") as out:
            out.write(self.orig)
        os.chmod(self.f, 0o755)
        try:
            os.setxattr(self.f, "user.ebid-robust", b"kept")
        except OSError:
            pass
        if self.scenario == "inplace":
            os.link(self.f, self.g)
        if os.path.exists(self.log):
            os.unlink(self.log)

    def run(self, fault=None, mutate=False):
        env = dict(os.environ)
        env["LD_PRELOAD"] = self.shim
        # With a sanitizer build the shim comes before libasan: allowed.
        env["ASAN_OPTIONS"] = ":".join(
            x for x in (os.environ.get("ASAN_OPTIONS"),
                        "verify_asan_link_order=0", "exitcode=99") if x)
        env["UBSAN_OPTIONS"] = ":".join(
            x for x in (os.environ.get("UBSAN_OPTIONS"), "exitcode=99") if x)
        env["EBID_FAULT_SCOPE"] = self.dir
        env["EBID_FAULT_LOG"] = self.log
        env.pop("EBID_FAULT", None)
        if fault:
            env["EBID_FAULT"] = fault
        if mutate:
            env["EBID_FAULT_MUTATE"] = self.f
        self.runs += 1
        p = subprocess.Popen(self.argv(), env=env, stdin=subprocess.DEVNULL,
                             stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                             start_new_session=True)
        try:
            out, err = p.communicate(timeout=60)
            rc = p.returncode
        except subprocess.TimeoutExpired:
            os.killpg(p.pid, signal.SIGKILL)
            out, err = p.communicate()
            rc = "hang"
        log = []
        if os.path.exists(self.log):
            with open(self.log) as lf:
                log = [ln.rstrip("\n").split("\t") for ln in lf]
        return rc, out.decode("utf-8", "replace"), \
            err.decode("utf-8", "replace"), log

    def problem(self, prop, point, action, detail):
        self.problems.append((prop, "%s/%s" % (self.scenario, point), action,
                              detail.replace("\t", " ").replace("\n", "\\n")))

    def leftovers(self):
        keep = {"target", "link"} if self.scenario == "inplace" else {"target"}
        return sorted(set(os.listdir(self.dir)) - keep)

    def valid_new(self):
        """The file is the complete new file an undisturbed run makes."""
        return sha256(self.f) == self.new_sha

    def baseline(self):
        self.setup()
        rc, out, err, log = self.run()
        if rc != 0:
            print("run_faults: the undisturbed run failed (exit %s): %s"
                  % (rc, err.strip()), file=sys.stderr)
            return False
        self.new_sha = sha256(self.f)
        self.base_out = out
        with open(self.f, "rb") as nf:
            data = nf.read()
        try:
            note = ebid.Elf(data).build_id_note()
            if ebid.content_id(data, note, "sha1") != note["desc"]:
                raise ebid.BadInput("stored id is not the content id")
        except ebid.BadInput as e:
            print("run_faults: the undisturbed run's output is not valid: %s"
                  % e, file=sys.stderr)
            return False
        self.points = [(c[0], int(c[1]), c[2] if len(c) > 2 else "")
                       for c in log if c and c[0] != "FIRED"]
        target = os.path.realpath(self.f)
        self.commit = len(self.points)
        self.last_check = None
        for i, (call, _, what) in enumerate(self.points):
            if self.scenario == "replace" and call == "rename":
                self.commit = i
                break
            if self.scenario in ("inplace", "lease") and what == target and call in (
                    "write", "pwrite", "copy_file_range", "ftruncate"):
                self.commit = i
                break
        if self.scenario == "replace":
            self.last_check = self.last_name_check()
        return True

    def last_name_check(self):
        """The check that nobody replaced the file: the last stat (or
        lstat: fstatat without following) of a name before the commit."""
        return max((i for i, p in enumerate(self.points)
                    if p[0] in ("stat", "lstat") and i < self.commit),
                   default=None)

    def first_look(self):
        """The command's first look at the file it will read: the first
        fstat once it holds the file's lock (a change before that is what
        it reads, not a change during its work)."""
        locked = next((i for i, p in enumerate(self.points)
                       if p[0] == "flock"), -1)
        return next((i for i, p in enumerate(self.points)
                     if p[0] == "fstat" and i > locked), None)

    def check_common(self, point, action, rc, err, log, fired_want=True):
        if rc == "hang":
            self.problem("hang", point, action, "no exit within 60 s")
            return False
        if rc < 0 or rc >= 128:
            self.problem("crash", point, action, "exit %s; stderr %r"
                         % (rc, err[-300:]))
            return False
        if fired_want and not any(c and c[0] == "FIRED" for c in log):
            self.problem("fired", point, action,
                         "the fault was never injected (call sequence "
                         "differs); exit %s" % rc)
        left = self.leftovers()
        # A journal that cannot be unlinked cannot be gone: it must be
        # empty (it undoes nothing) and the error must name it.
        if point.startswith("unlink:") and \
                self.scenario in ("inplace", "lease") and \
                left == [".target.ebid-journal"] and \
                os.path.getsize(os.path.join(self.dir, left[0])) == 0 and \
                re.search(r"journal '[^']*\.target\.ebid-journal'", err):
            left = []
        if left:
            self.problem("tempfile", point, action, "left %s" % left)
        if self.scenario == "inplace" and os.path.exists(self.g) and \
                os.stat(self.g).st_ino != os.stat(self.f).st_ino:
            self.problem("links", point, action, "the hard link was split")
        return True

    def fault_runs(self):
        for i, (call, nth, what) in enumerate(self.points):
            point = "%s:%d" % (call, nth)
            for action in HARD.get(call, []) + SOFT.get(call, []):
                self.setup()
                rc, out, err, log = self.run("%s:%d:%s" % (call, nth, action))
                self.lines.append("%s %s %s -> exit %s: %s"
                                  % (self.scenario, point, action, rc,
                                     err.strip()))
                if not self.check_common(point, action, rc, err, log):
                    continue
                soft = action in SOFT.get(call, [])
                if soft:
                    if rc == 0 and self.cmd != "inject":
                        if out != self.base_out:
                            self.problem("result", point, action,
                                         "exit 0 but stdout differs from an "
                                         "undisturbed run: %r" % out[:300])
                    elif rc == 0:
                        if not self.valid_new():
                            self.problem("result", point, action,
                                         "exit 0 but the file is not the "
                                         "new file an undisturbed run makes")
                    elif call == "mmap" and rc == 2 and \
                            sha256(self.f) == self.orig_sha:
                        pass
                    else:
                        self.problem("exit", point, action,
                                     "a fault to survive gave exit %s: %r"
                                     % (rc, err.strip()[:300]))
                    continue
                self.check_hard(i, point, call, action, rc, out, err)
                if self.cmd == "verify" and rc != 0 and not re.fullmatch(
                        r"(ERROR  %s  \S.*\n)?" % re.escape(self.f), out):
                    self.problem("output", point, action,
                                 "verify failed without an ERROR line: %r"
                                 % out[:300])

    def check_hard(self, i, point, call, action, rc, out, err):
        if rc == 0 and call in READ_SIDE and i != self.last_check and \
                self.valid_new() and (self.cmd == "inject" or
                                      out == self.base_out):
            return      # a probe the command can do without; result right
        # An in-place run clears the temporaries killed runs left beside
        # the file under the directory's lock: best effort, as the
        # directory's listing is.
        if rc == 0 and call == "flock" and \
                os.path.realpath(self.points[i][2]) == os.path.realpath(self.dir) and \
                self.scenario in ("inplace", "lease") and self.valid_new():
            return
        # The replace's sync_file_range calls only start the writeback of
        # what it copied (a hint; the fsync after is the sync): a failed
        # one changes nothing.
        if rc == 0 and call == "sync_file_range" and \
                self.scenario == "replace" and self.valid_new():
            return
        # The default mode gives up its in-place edit for a replace when
        # a probe before its first write fails (opening the file for
        # writing, its capabilities): the complete new file, exit 0.
        if rc == 0 and self.scenario == "lease" and i < self.commit and \
                self.valid_new():
            return
        # Opening the file's directory again ("." below its descriptor)
        # to list what killed runs left beside the file: best effort.
        if rc == 0 and call == "openat" and self.points[i][2] == "." and \
                self.cmd == "inject" and self.valid_new():
            return
        if rc != 2:
            self.problem("exit", point, action, "exit %s, want 2; stderr %r"
                         % (rc, err.strip()[:300]))
        lines = err.splitlines()
        pat = "elf-buildid: '%s': %s: " % (self.f, self.cmd)
        strerr = os.strerror(getattr(errno, action))
        if len(lines) != 1 or not lines[0].startswith(pat):
            self.problem("message", point, action,
                         "want one line \"%s<cause>\": %r" % (pat, err[:300]))
        else:
            cause = lines[0][len(pat):]
            if strerr not in cause:
                self.problem("message", point, action,
                             "cause does not give the error text %r: %r"
                             % (strerr, cause))
            words = WORDS[call]
            if call in ("open", "openat") and \
                    self.points[i][2] == self.dir:
                words = r"director"
            if self.scenario in ("inplace", "lease"):
                # The step is named: writing the journal, or the in-place
                # write and its sync.
                words += r"|journal" if i < self.commit else r"|in-place"
            if not re.search(words, cause, re.I):
                self.problem("message", point, action,
                             "cause does not say what failed (/%s/): %r"
                             % (words, cause))
        now = sha256(self.f)
        if i < self.commit:
            if now != self.orig_sha:
                self.problem("intact", point, action,
                             "failed before the commit point but the file "
                             "is not the original (%s)"
                             % ("the new file" if now == self.new_sha
                                else "neither original nor new"))
        elif now not in (self.new_sha, self.orig_sha):
            self.problem("intact", point, action,
                         "failed after the commit point and the file is "
                         "neither the original nor the complete new file")

    def mutate_runs(self):
        first = self.first_look()
        last = self.last_name_check()
        if first is None or last is None:
            self.problem("setup", "-", "mutate",
                         "no fstat or last stat before the commit in the "
                         "call list")
            return
        # Where a change can no longer be seen: the rename, or for
        # --in-place the last write into the file itself.
        window = self.commit
        if self.scenario in ("inplace", "lease"):
            target = os.path.realpath(self.f)
            window = max(i for i, p in enumerate(self.points)
                         if p[2] == target and p[0] in (
                             "write", "pwrite", "copy_file_range",
                             "ftruncate"))
        for i, (call, nth, _) in enumerate(self.points):
            if not first < i <= window:
                continue
            point = "%s:%d" % (call, nth)
            self.setup()
            rc, out, err, log = self.run("%s:%d:mutate" % (call, nth),
                                         mutate=True)
            self.lines.append("%s %s mutate -> exit %s: %s"
                              % (self.scenario, point, rc, err.strip()))
            if not self.check_common(point, "mutate", rc, err, log):
                continue
            now = sha256(self.f)
            changed = hashlib.sha256(self.orig + b"!").hexdigest()
            if i == window:
                self.lines.append("window: a change at %s (after the last "
                                  "check) %s" % (point,
                                                 "was kept, exit %s" % rc
                                                 if now == changed else
                                                 "was not detected and the "
                                                 "file is not the original "
                                                 "plus it, exit %s" % rc))
                continue
            if rc != 2 or not re.search(r"chang", err, re.I):
                self.problem("mutate", point, "mutate",
                             "a change by another process was not reported "
                             "(exit %s): %r" % (rc, err.strip()[:300]))
            if now != changed:
                self.problem("mutate", point, "mutate",
                             "the file is not the original plus the other "
                             "process's change (exit %s)" % rc)


def main(argv):
    a = {"--tool": None, "--shim": None, "--fixture": None, "--work": None,
         "--scenario": None, "--problems": None, "--summary": None}
    mutate = False
    args = argv[1:]
    while args:
        k = args.pop(0)
        if k == "--mutate":
            mutate = True
            continue
        if k not in a or not args:
            print(__doc__, file=sys.stderr)
            return 64
        a[k] = args.pop(0)
    if not all(a.values()) or a["--scenario"] not in ("replace", "lease",
                                                      "inplace",
                                                       "verify", "show"):
        print(__doc__, file=sys.stderr)
        return 64
    r = Runner(a)
    if not r.baseline():
        return 2
    if mutate:
        r.mutate_runs()
    else:
        r.fault_runs()
    with open(a["--problems"], "a") as f:
        for p in r.problems:
            f.write("\t".join(p) + "\n")
    with open(a["--summary"], "a") as f:
        f.write("scenario %s%s: %d call points (commit point at #%d), "
                "%d runs, %d problems\n"
                % (r.scenario, " mutate" if mutate else "", len(r.points),
                   r.commit + 1, r.runs, len(r.problems)))
        for call in sorted({p[0] for p in r.points}):
            f.write("  %s: %d calls\n" % (call, sum(1 for p in r.points
                                                    if p[0] == call)))
        for ln in r.lines:
            f.write("  " + ln + "\n")
    print("run_faults: %s%s: %d points, %d runs, %d problems"
          % (r.scenario, " mutate" if mutate else "", len(r.points), r.runs,
             len(r.problems)))
    return 1 if r.problems else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
