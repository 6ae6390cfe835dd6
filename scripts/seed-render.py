#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""Renders scripts/check-seed.sh's results as Markdown (docs/compatibility.md,
"Real software", the Go programs built from source).

Usage: scripts/seed-render.py WORK SECONDS
       scripts/seed-render.py --splice DOC TABLE.md
  WORK     check-seed's work directory (results.tsv, runs.tsv, bazel.tsv,
           bench.tsv when scripts/seed-bench ran)
  SECONDS  how long the whole run took
  --splice puts TABLE.md (build/seed/results.md) between DOC's seed markers,
           which sit in the "Real software" section before the C projects'
           table: make compat-doc keeps them, make real-doc leaves them.
"""

import csv
import os
import subprocess
import sys


def rows(path):
    if not os.path.exists(path) or os.path.getsize(path) == 0:
        return []
    with open(path, newline="") as f:
        return list(csv.DictReader(f, delimiter="\t"))


def tool_versions(top):
    out = []
    for cmd in (["go", "env", "GOVERSION"], ["readelf", "--version"],
                ["perf", "--version"], ["gcc", "--version"]):
        try:
            out.append(subprocess.run(cmd, capture_output=True, text=True,
                                      check=True).stdout.splitlines()[0].strip())
        except (OSError, subprocess.CalledProcessError, IndexError):
            out.append(cmd[0] + " (not found)")
    ebid = os.environ.get("EBID", os.path.join(top, "build", "elf-buildid"))
    try:
        out.append(subprocess.run([ebid, "--version"], capture_output=True,
                                  text=True, check=True).stdout.strip())
    except (OSError, subprocess.CalledProcessError):
        out.append("elf-buildid (version unknown)")
    return out


BEGIN = "<!-- seed: written by scripts/seed-render.py from build/seed -->"
END = "<!-- /seed -->"


def splice(doc, table):
    with open(table) as f:
        body = f.read().strip("\n")
    with open(doc) as f:
        text = f.read()
    b, e = text.find(BEGIN), text.find(END)
    if not (body.startswith(BEGIN) and body.endswith(END)):
        print(f"seed-render.py: {table} is not check-seed's table", file=sys.stderr)
        return 1
    if b < 0 or e < b:
        print(f"seed-render.py: {doc} has no seed markers", file=sys.stderr)
        return 1
    with open(doc + ".tmp", "w") as f:
        f.write(text[:b] + body + text[e + len(END):])
    os.replace(doc + ".tmp", doc)
    return 0


def main():
    if len(sys.argv) == 4 and sys.argv[1] == "--splice":
        return splice(sys.argv[2], sys.argv[3])
    if len(sys.argv) != 3:
        print("usage: seed-render.py WORK SECONDS | --splice DOC TABLE.md", file=sys.stderr)
        return 64
    work, secs = sys.argv[1], int(sys.argv[2])
    top = os.path.abspath(os.path.join(os.path.dirname(__file__), ".."))
    res = rows(os.path.join(work, "results.tsv"))
    runs = rows(os.path.join(work, "runs.tsv"))
    p = print
    p(BEGIN)
    p("Tools: " + "; ".join(tool_versions(top)) + ".")
    p("")
    p("| program | module | cache | fetch | build | tests passed before | after | verdict |")
    p("| --- | --- | --- | ---: | ---: | ---: | ---: | --- |")
    for r in runs:
        p(f"| {r['program']} | `{r['module']}` | {r['cache']} | {r['fetch_s']} s | {r['build_s']} s | "
          f"{r['tests_before']} | {r['tests_after']} | {r['verdict']} |")
    p("")
    p(f"Whole run (fetch, build, tests twice, checks, bench): {secs} s.")
    p("")
    p("| program | file | Go | shape (go version -m; ELF type) | size | tests passed before | after | inject did | kernel-visible | verify | 2nd inject no-op | verdict |")
    p("| --- | --- | --- | --- | ---: | ---: | ---: | --- | --- | --- | --- | --- |")
    for r in res:
        p(f"| {r['program']} | `{r['file']}` | {r['go']} | {r['shape']} | {int(r['size']):,} | "
          f"{r['tests_before']} | {r['tests_after']} | {r['inject_said']} | {r['kernel_visible']} | "
          f"{r['verify']} | {r['second_inject_noop']} | {r['verdict']} |")
    bz = os.path.join(work, "bazel.tsv")
    c = None
    if os.path.exists(bz) and os.path.getsize(bz):
        c, files, ids = open(bz).read().rstrip("\n").split("\t")
        p("")
        if c == "skipped":
            p("Linked as rules_go links (`-buildid=redacted`): skipped (fewer than two programs ran).")
            c = None
    if c:
        p(f"Linked as rules_go links (`-ldflags=-buildid=redacted`): {files.replace(' ', ', ')} "
          f"all carry the GNU id `{c}` (readelf -n); `show` and `verify` call it constant; "
          f"`inject` gives them `{ids.replace(' ', '`, `')}`; `--keep-constant-id` keeps `{c}` "
          "and makes it kernel-visible.")
    bench = rows(os.path.join(work, "bench.tsv"))
    if not bench:
        p("")
        p("Post-link cost (scripts/seed-bench): skipped (EBID_SEED_BENCH=0, Gitaly not built, or it failed).")
    if bench:
        p("")
        p("| post-link cost | link step alone (its action in go build -debug-trace) | whole go build | inject (keeps Go's id: repaired) | ratio | inject -f (hashes the file) | ratio | inject --in-place | ratio |")
        p("| --- | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: |")
        for b in bench:
            p(f"| `{b['file']}` ({int(b['size']):,} bytes, median of {b['runs']}) | {b['link_ms']} ms | "
              f"{b['go_build_ms']} ms | {b['inject_ms']} ms | {b['ratio']} | {b['inject_f_ms']} ms | {b['ratio_f']} | "
              f"{b.get('inject_in_place_ms', '-')} ms | {b.get('ratio_in_place', '-')} |")
    bad = [r for r in res if r["verdict"] != "pass"]
    p("")
    p(f"{len(res) - len(bad)} of {len(res)} files passed every check.")
    for r in runs:
        if r["verdict"] != "pass":
            p(f"{r['program']}: FAIL: {r['problems']}")
    p(END)
    return 0


if __name__ == "__main__":
    sys.exit(main())
