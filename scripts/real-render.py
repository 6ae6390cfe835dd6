#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
# Renders build/real's results (scripts/check-real.sh) as the Markdown
# table of docs/compatibility.md's "Real software" section, and puts it
# there between the section's markers (make real-doc).
# Usage: real-render.py WORKDIR SECONDS LOADAVG
#        real-render.py --splice DOC TABLE.md
import collections
import csv
import datetime
import os
import subprocess
import sys


def first_line(cmd):
    try:
        out = subprocess.run(cmd, capture_output=True, text=True).stdout
    except OSError:
        return cmd[0] + ": not found"
    return (out.splitlines() or [""])[0].strip()


BEGIN = "<!-- real-software begin -->"
END = "<!-- real-software end -->"
INTRO = """## Real software

Real C projects, not written here, built from Debian 12's source packages
with their own build systems and each linker, then injected in their build
trees and tested with their own test suites (`make check-real`,
`scripts/check-real.sh`; docs/hacking.md says what it checks). The table
between the markers is written by `make real-doc` from `build/real/`;
`make compat-doc` keeps this section as it is.
"""


def splice(doc, table):
    """Replaces DOC's real-software block by TABLE's text, or appends the
    section when DOC has none."""
    with open(table) as fh:
        body = fh.read().strip("\n")
    with open(doc) as fh:
        text = fh.read()
    block = BEGIN + "\n\n" + body + "\n\n" + END
    b, e = text.find(BEGIN), text.find(END)
    if b >= 0 and e > b:
        text = text[:b] + block + text[e + len(END):]
    else:
        text = text.rstrip("\n") + "\n\n" + INTRO + "\n" + block + "\n"
    with open(doc + ".tmp", "w") as fh:
        fh.write(text)
    os.replace(doc + ".tmp", doc)
    return 0


def main(argv):
    if len(argv) == 4 and argv[1] == "--splice":
        return splice(argv[2], argv[3])
    if len(argv) != 4:
        print("usage: real-render.py WORKDIR SECONDS LOADAVG | "
              "--splice DOC TABLE.md", file=sys.stderr)
        return 64
    work, secs, load = argv[1], int(argv[2]), argv[3]
    with open(work + "/results.tsv") as fh:
        files = list(csv.DictReader(fh, delimiter="\t"))
    with open(work + "/runs.tsv") as fh:
        runs = [r.rstrip("\n").split("\t") for r in fh if r.strip()]
    refusals = []
    out = []
    w = out.append
    w("Built by `scripts/check-real.sh` (`make check-real`) on %s in %d s "
      "on %s CPUs (load average %s at the start). Each project is Debian "
      "12's source package, built with its own build system, gcc and "
      "`LDFLAGS=\"-fuse-ld=LINKER -Wl,--build-id=none\"`; `elf-buildid "
      "inject -r -v --preserve-times` ran over the build tree. Tools: %s."
      % (datetime.datetime.utcnow().strftime("%Y-%m-%d %H:%M UTC"), secs,
         subprocess.run(["nproc"], capture_output=True,
                        text=True).stdout.strip(), load,
         "; ".join("`%s`" % first_line(c) for c in (
             ["gcc", "--version"], ["ld.bfd", "--version"],
             ["ld.gold", "--version"], ["ld.lld", "--version"],
             ["ld.mold", "--version"], ["eu-elflint", "--version"]))))
    w("")
    w("| project | linker | ELF files (exe + lib) | strategies | refused | "
      "loaded by the tests | tests before | tests after | s | verdict |")
    w("|---|---|---|---|---|---|---|---|---|---|")
    for r in runs:
        project, linker, tb, ta, verdict, secs_run = r[:6]
        detail = r[6] if len(r) > 6 else ""
        fs = [f for f in files if f["project"] == project and
              f["linker"] == linker]
        kinds = collections.Counter(f["kind"] for f in fs)
        strat = collections.Counter(f["strategy"] for f in fs
                                    if not f["strategy"].startswith("refused"))
        refused = []
        for f in fs:
            if f["strategy"].startswith("refused"):
                msg = f["strategy"][len("refused: "):]
                if msg not in refusals:
                    refusals.append(msg)
                refused.append("`%s` (%d)" % (f["file"],
                                              refusals.index(msg) + 1))
        w("| %s | %s | %d (%d + %d) | %s | %s | %d | %s | %s | %s | %s |" % (
            project, linker, len(fs), kinds["exe"], kinds["lib"],
            ", ".join("%d %s" % (n, s) for s, n in sorted(strat.items()))
            or "-", ", ".join(refused) or "-",
            sum(1 for f in fs if f["loaded_by_tests"] == "yes"), tb, ta,
            secs_run, "pass" if verdict == "pass" else "**FAIL**: " +
            detail.replace("|", "\\|")))
    if refusals:
        w("")
        w("Refusals (the file is left byte-identical):")
        w("")
        for i, msg in enumerate(refusals, 1):
            w("%d. %s" % (i, msg.replace("|", "\\|")))
    print("\n".join(out))
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
