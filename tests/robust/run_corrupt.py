#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""Run elf-buildid show, verify and inject on every case mkcorrupt.py made
(and link, on the artifact cases: link writes nothing unless it succeeds).

For each case it checks, and records each breach as a problem:
  crash      the tool died of a signal (or exited >= 128)
  hang       it did not finish within --timeout seconds (killed)
  exit       its exit status is not a documented one for the command
             (show/inject: 0 or 2; verify: 0, 1 or 2)
  message    a failure (exit 2) did not print exactly one stderr line
             "elf-buildid: 'FILE': COMMAND: cause" naming the file; or a
             success printed anything on stderr
  field      a "malformed ELF" cause names no header, field, section or note
  unchanged  show or verify changed the input's bytes, or a failed inject
             changed them (sha256 before and after); a special file changed
  tempfile   a ".NAME.ebid-*" temporary or a backup was left behind
  valid      exit 0 while the result is not genuinely valid per
             tests/ebid.py: inject's output must carry the printed id in a
             .note.gnu.build-id section, the kernel's reader must find the
             same id, and a newly computed id must be the content hash;
             verify's PASS id must be what ebid.py finds in the input;
             show's "kernel-visible: yes" must agree with ebid.py kernel
  output     stdout is not in the documented form for the exit status
             (verify: PASS/FAIL lines, SKIP for what is no ELF program,
             ERROR or nothing with exit 2)

Writes RESULTS (TSV: name, category, command, exit, seconds, stderr) and
PROBLEMS (TSV: property, name, command, detail) and prints a summary.

Usage: run_corrupt.py --tool BIN --cases DIR --work DIR --results FILE
                      --problems FILE [--jobs N] [--timeout S]
Exit status: 0 no problem, 1 problems, 64 usage.
"""

import concurrent.futures
import hashlib
import os
import re
import shutil
import signal
import stat
import subprocess
import sys
import threading
import time

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.dirname(HERE))
sys.dont_write_bytecode = True
import ebid  # noqa: E402  (tests/ebid.py, the independent checker)

# What a "malformed ELF" message must name: a header field, or the header,
# program header, section or note that is wrong.
FIELD_RE = re.compile(r"\b(e|p|sh|n)_[a-z]+|\bEI_[A-Z]+|ELF header|program "
                      r"header|section|note|string table|name table")
DOCUMENTED = {"show": {0, 2}, "verify": {0, 1, 2}, "inject": {0, 2},
              "link": {0, 2}}


def sha256(path):
    h = hashlib.sha256()
    with open(path, "rb") as f:
        for chunk in iter(lambda: f.read(1 << 20), b""):
            h.update(chunk)
    return h.hexdigest()


# A sanitizer build (make SANITIZE=...) must not report through exit 1,
# which verify uses for a failed check: a report exits 99 instead.
CHILD_ENV = dict(os.environ)
for _v in ("ASAN_OPTIONS", "UBSAN_OPTIONS"):
    CHILD_ENV[_v] = ":".join(
        x for x in (os.environ.get(_v), "exitcode=99") if x)


def run(argv, timeout, cwd=None):
    """(status, stdout, stderr, seconds); status is -SIG for a signal and
    'hang' after a timeout (the whole process group is killed)."""
    t0 = time.monotonic()
    p = subprocess.Popen(argv, stdin=subprocess.DEVNULL,
                         stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                         cwd=cwd, env=CHILD_ENV, start_new_session=True)
    try:
        out, err = p.communicate(timeout=timeout)
        status = p.returncode
    except subprocess.TimeoutExpired:
        try:
            os.killpg(p.pid, signal.SIGKILL)
        except ProcessLookupError:
            pass
        out, err = p.communicate()
        status = "hang"
    return status, out, err, time.monotonic() - t0


def temps_in(d, name):
    """Temporaries and backups of NAME left in directory d."""
    try:
        entries = os.listdir(d)
    except OSError:
        return []
    return sorted(e for e in entries
                  if (e.startswith("." + name + ".ebid-") or
                      e == name + ".ebid-backup" or
                      re.match(r"^\..*\.ebid-[A-Za-z0-9]{6}$", e)))


class Checker:
    def __init__(self, tool, cases, work, timeout):
        self.tool, self.cases, self.work = tool, cases, work
        self.timeout = timeout
        self.lock = threading.Lock()
        self.results = []
        self.problems = []

    def problem(self, prop, name, cmd, detail):
        with self.lock:
            self.problems.append((prop, name, cmd,
                                  detail.replace("\t", " ").replace("\n", "\\n")))

    def record(self, name, cat, cmd, status, secs, err):
        with self.lock:
            self.results.append((name, cat, cmd, str(status), "%.3f" % secs,
                                 err.decode("utf-8", "replace").strip()
                                 .replace("\t", " ").replace("\n", "\\n")))

    def common(self, name, cat, cmd, path, status, out, err, secs):
        """Checks every command shares; True when the run ended normally."""
        self.record(name, cat, cmd, status, secs, err)
        if status == "hang":
            self.problem("hang", name, cmd, "no exit after %ss" % self.timeout)
            return False
        if status < 0 or status >= 128:
            sig = -status if status < 0 else status - 128
            try:
                sname = signal.Signals(sig).name
            except ValueError:
                sname = str(sig)
            self.problem("crash", name, cmd, "killed by %s; stderr: %s"
                         % (sname, err.decode("utf-8", "replace")[-300:]))
            return False
        if status not in DOCUMENTED[cmd]:
            self.problem("exit", name, cmd, "exit %d; stderr: %s"
                         % (status, err.decode("utf-8", "replace")[-300:]))
        text = err.decode("utf-8", "replace")
        lines = text.splitlines()
        if cat == "artifact":
            self.artifact_message(name, cmd, path, status, lines)
        elif status == 2:
            pat = "elf-buildid: '%s': %s: " % (path, cmd)
            if len(lines) != 1 or not lines[0].startswith(pat) or \
                    not lines[0][len(pat):].strip():
                self.problem("message", name, cmd,
                             "want one line \"%s<cause>\", got %d: %r"
                             % (pat, len(lines), text[:300]))
            elif lines[0][len(pat):].startswith("malformed ELF") and \
                    not FIELD_RE.search(lines[0][len(pat):]):
                self.problem("field", name, cmd,
                             "the cause names no header or field: %r"
                             % lines[0][len(pat):])
        elif lines:
            self.problem("message", name, cmd,
                         "exit %d with stderr: %r" % (status, text[:300]))
        return True

    def artifact_message(self, name, cmd, path, status, lines):
        """An artifact's stderr: with exit 2, lines "elf-buildid: 'PATH':
        CMD: cause" or "'PATH:MEMBER': ...", one per file named; none
        otherwise."""
        pat = re.compile(r"elf-buildid: '%s((:|\[)[^']+)?': %s: \S"
                         % (re.escape(path), cmd))
        named = [ln.split("'")[1] for ln in lines if pat.match(ln)]
        if status != 2 and lines:
            self.problem("message", name, cmd,
                         "exit %s with stderr: %r" % (status, lines[:3]))
        elif status == 2 and (not lines or len(named) != len(lines) or
                              len(set(named)) != len(named)):
            self.problem("message", name, cmd,
                         "want one line per file named \"elf-buildid: "
                         "'%s[:MEMBER]': %s: <cause>\", got %r"
                         % (path, cmd, lines[:4]))

    def artifact(self, name, cat, idx):
        """show, verify, inject and link --debug-dir on a bad artifact:
        no crash or hang, documented statuses and lines, the input kept,
        inject refusing it, link writing nothing unless it succeeds."""
        src = os.path.join(self.cases, name)
        sha0 = sha256(src)
        line = re.compile(r"(PASS|FAIL|SKIP|ERROR)  %s((:|\[)\S+)?  \S"
                          % re.escape(src))
        for cmd in ("show", "verify"):
            status, out, err, secs = run([self.tool, cmd, src], self.timeout)
            if not self.common(name, cat, cmd, src, status, out, err, secs):
                continue
            bad = [ln for ln in out.decode("utf-8", "replace").splitlines()
                   if cmd == "verify" and not line.match(ln)]
            if bad:
                self.problem("output", name, cmd, "lines %r" % bad[:3])
        d = os.path.join(self.work, "%06d" % idx)
        os.makedirs(d, exist_ok=True)
        dst = os.path.join(d, name)
        shutil.copyfile(src, dst)
        status, out, err, secs = run([self.tool, "inject", dst], self.timeout,
                                     cwd=d)
        if self.common(name, cat, "inject", dst, status, out, err, secs) \
                and (status != 2 or sha256(dst) != sha0):
            self.problem("exit", name, "inject",
                         "exit %s, file %s; want 2, kept" % (
                             status, "kept" if sha256(dst) == sha0 else
                             "changed"))
        dbg = os.path.join(d, "debug")
        status, out, err, secs = run([self.tool, "link", "--debug-dir", dbg,
                                      src], self.timeout, cwd=d)
        if self.common(name, cat, "link", src, status, out, err, secs) and \
                status != 0 and os.path.exists(dbg):
            self.problem("unchanged", name, "link",
                         "exit %s, yet %s was made" % (status, dbg))
        if sha256(src) != sha0:
            self.problem("unchanged", name, "show/verify/link",
                         "input changed")
        shutil.rmtree(d, ignore_errors=True)

    def special(self, name, cat):
        path = os.path.join(self.cases, name)
        before = os.lstat(path)
        link = os.readlink(path) if stat.S_ISLNK(before.st_mode) else None
        others = sorted(os.listdir(self.cases))
        for cmd in ("show", "verify", "inject"):
            status, out, err, secs = run([self.tool, cmd, path], self.timeout)
            if not self.common(name, cat, cmd, path, status, out, err, secs):
                continue
            text = out.decode("utf-8", "replace")
            if cmd == "verify" and status == 0 and re.fullmatch(
                    r"SKIP  %s  \S.*\n" % re.escape(path), text):
                pass            # the contract's SKIP for what is no ELF file
            elif status != 2:
                self.problem("exit", name, cmd,
                             "exit %s for a %s; want 2 (or verify's SKIP)"
                             % (status, cat))
            after = os.lstat(path)
            if (stat.S_IFMT(after.st_mode) != stat.S_IFMT(before.st_mode) or
                    after.st_ino != before.st_ino or
                    (link is not None and os.readlink(path) != link)):
                self.problem("unchanged", name, cmd, "special file replaced")
        now = sorted(os.listdir(self.cases))
        extra = [e for e in now if e not in others]
        if extra:
            self.problem("tempfile", name, "inject", "left %s" % extra)

    def regular(self, name, cat, idx):
        src = os.path.join(self.cases, name)
        sha0 = sha256(src)
        try:
            with open(src, "rb") as f:
                data0 = f.read()
        except OSError as e:
            self.problem("setup", name, "-", str(e))
            return
        try:
            orig_id = ebid.Elf(data0).build_id_note()["desc"].hex()
        except (ebid.BadInput, Exception):
            orig_id = None
        kern = ebid.kernel_build_id(data0)[0]
        kern = kern.hex() if kern is not None else None

        status, out, err, secs = run([self.tool, "show", src], self.timeout)
        if self.common(name, cat, "show", src, status, out, err, secs) and \
                status == 0:
            text = out.decode("utf-8", "replace")
            if not text.startswith(src + "\n"):
                self.problem("output", name, "show",
                             "first line is not the file name: %r" % text[:200])
            m = re.search(r"^  gnu-build-id: ([0-9a-f]+)$", text, re.M)
            if "kernel-visible: yes" in text and (not m or m.group(1) != kern):
                self.problem("valid", name, "show",
                             "says kernel-visible id %s; ebid.py kernel "
                             "finds %s" % (m.group(1) if m else "?", kern))
            if "kernel-visible: no" in text and m and kern == m.group(1):
                self.problem("valid", name, "show",
                             "says not kernel-visible; ebid.py kernel finds "
                             "%s" % kern)

        status, out, err, secs = run([self.tool, "verify", src], self.timeout)
        if self.common(name, cat, "verify", src, status, out, err, secs):
            text = out.decode("utf-8", "replace")
            skip = re.fullmatch(r"SKIP  %s  \S.*\n" % re.escape(src), text)
            if status == 0 and skip:
                pass            # the contract: no ELF program, no verdict
            elif status == 0:
                m = re.fullmatch(r"PASS  %s  ([0-9a-f]+)\n" % re.escape(src),
                                 text)
                if not m:
                    self.problem("output", name, "verify",
                                 "exit 0 without one PASS line: %r" % text[:200])
                elif m.group(1) != orig_id or m.group(1) != kern:
                    self.problem("valid", name, "verify",
                                 "PASS %s, but ebid.py finds note %s, "
                                 "kernel %s" % (m.group(1), orig_id, kern))
            elif status == 1:
                if not re.fullmatch(r"FAIL  %s  \S.*\n" % re.escape(src),
                                    text):
                    self.problem("output", name, "verify",
                                 "exit 1 without one FAIL line: %r" % text[:200])
            elif status == 2 and text and not re.fullmatch(
                    r"ERROR  %s  \S.*\n" % re.escape(src), text):
                self.problem("output", name, "verify",
                             "exit 2 with stdout other than one ERROR line: "
                             "%r" % text[:200])
        if sha256(src) != sha0:
            self.problem("unchanged", name, "show/verify", "input changed")

        d = os.path.join(self.work, "%06d" % idx)
        os.makedirs(d, exist_ok=True)
        dst = os.path.join(d, name)
        shutil.copyfile(src, dst)
        os.chmod(dst, 0o755)
        status, out, err, secs = run([self.tool, "inject", dst], self.timeout,
                                     cwd=d)
        if self.common(name, cat, "inject", dst, status, out, err, secs):
            if status == 0:
                self.check_injected(name, dst, out, orig_id)
            elif status == 2:
                if sha256(dst) != sha0:
                    self.problem("unchanged", name, "inject",
                                 "failed inject changed the file")
                if out:
                    self.problem("output", name, "inject",
                                 "exit 2 with stdout %r" % out[:200])
        left = [e for e in os.listdir(d) if e != name]
        if left:
            self.problem("tempfile", name, "inject", "left %s" % left)
        shutil.rmtree(d, ignore_errors=True)

    def check_injected(self, name, dst, out, orig_id):
        text = out.decode("utf-8", "replace")
        m = re.fullmatch(r"([0-9a-f]+)  %s\n" % re.escape(dst), text)
        if not m:
            self.problem("output", name, "inject",
                         "exit 0 without one 'ID  FILE' line: %r" % text[:200])
            return
        got = m.group(1)
        with open(dst, "rb") as f:
            data = f.read()
        why = []
        try:
            note = ebid.Elf(data).build_id_note()
            if note["desc"].hex() != got:
                why.append("note holds %s" % note["desc"].hex())
            kept = orig_id is not None and orig_id == got and \
                any(c != "0" for c in got)
            if not kept:
                cid = ebid.content_id(data, note, "sha1").hex()
                if cid != got:
                    why.append("content id is %s" % cid)
        except ebid.BadInput as e:
            why.append("ebid.py: %s" % e)
        kid = ebid.kernel_build_id(data)[0]
        if kid is None or kid.hex() != got:
            why.append("kernel reader finds %s" % (kid.hex() if kid else None))
        if why:
            self.problem("valid", name, "inject",
                         "exit 0, printed %s, but %s" % (got, "; ".join(why)))


def main(argv):
    opts = {"--tool": None, "--cases": None, "--work": None,
            "--results": None, "--problems": None, "--jobs": "2",
            "--timeout": "10"}
    args = argv[1:]
    while args:
        a = args.pop(0)
        k, eq, v = a.partition("=")
        if k not in opts:
            print(__doc__, file=sys.stderr)
            return 64
        opts[k] = v if eq else args.pop(0)
    if not all(opts.values()):
        print(__doc__, file=sys.stderr)
        return 64
    cases = opts["--cases"]
    manifest = []
    with open(os.path.join(cases, "MANIFEST.tsv")) as f:
        for line in f:
            name, base, cat, what = line.rstrip("\n").split("\t", 3)
            manifest.append((name, base, cat, what))
    os.makedirs(opts["--work"], exist_ok=True)
    ck = Checker(os.path.abspath(opts["--tool"]), os.path.abspath(cases),
                 os.path.abspath(opts["--work"]), float(opts["--timeout"]))
    specials = [m for m in manifest if m[2] == "special"]
    regular = [m for m in manifest if m[2] != "special"]
    # Specials share one directory: run them one at a time.
    for name, _, cat, _ in specials:
        ck.special(name, cat)
    with concurrent.futures.ThreadPoolExecutor(int(opts["--jobs"])) as ex:
        futs = [ex.submit(ck.artifact if cat == "artifact" else ck.regular,
                          name, cat, i)
                for i, (name, _, cat, _) in enumerate(regular)]
        for fu in futs:
            fu.result()
    ck.results.sort()
    ck.problems.sort()
    with open(opts["--results"], "a") as f:
        for r in ck.results:
            f.write("\t".join(r) + "\n")
    with open(opts["--problems"], "a") as f:
        for p in ck.problems:
            f.write("\t".join(p) + "\n")
    print("run_corrupt: %d cases, %d runs, %d problems"
          % (len(manifest), len(ck.results), len(ck.problems)))
    return 1 if ck.problems else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
