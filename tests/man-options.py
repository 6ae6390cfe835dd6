#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""The options docs/elf-buildid.1 lists under each command, in the form of
`elf-buildid --list-options` (COMMAND, --LONG, -S or -), sorted.

Usage: man-options.py MANPAGE COMMAND...

Under OPTIONS, every subsection is titled "Options for ..." and names its
commands ("inject, reserve and backfill"), or "every command", optionally
"but" some. Each .TP item's tag names the options it describes: its long
options, and its short option if it has one. Anything else is an error
(exit 1), so that a changed structure fails the test instead of checking
nothing."""
import re
import sys


def section_commands(title, commands):
    if not title.startswith("Options for "):
        sys.exit(f"man-options: subsection '{title}' is not 'Options for ...'")
    rest = title[len("Options for "):]
    if rest.startswith("every command"):
        but = re.findall(r"[a-z]+", rest.partition(" but ")[2])
        chosen = [c for c in commands if c not in but]
    else:
        chosen = re.findall(r"[a-z]+", rest)
        chosen = [w for w in chosen if w != "and"]
    unknown = [c for c in chosen if c not in commands]
    if unknown or not chosen:
        sys.exit(f"man-options: subsection '{title}': no such command {unknown}")
    return chosen


def tag_options(tag, where):
    text = tag.replace("\\-", "-")
    longs = sorted(set(re.findall(r"--([a-z][a-z0-9-]*)", text)))
    shorts = re.findall(r'(?:^|[\s"])-([A-Za-z])(?=[\s",]|$)', text)
    if len(longs) != 1 or len(shorts) > 1:
        sys.exit(f"man-options: item at line {where}: want one long option "
                 f"and at most one short one in '{tag}'")
    return longs[0], shorts[0] if shorts else None


def main():
    man, commands = sys.argv[1], sys.argv[2:]
    lines = open(man, encoding="utf-8").read().split("\n")
    rows, chosen, in_options = set(), None, False
    for n, line in enumerate(lines):
        if line.startswith(".SH "):
            in_options = line.strip() == ".SH OPTIONS"
        elif in_options and line.startswith(".SS "):
            chosen = section_commands(line[4:].strip().strip('"'), commands)
        elif in_options and line.startswith(".TP") and chosen:
            name, short = tag_options(lines[n + 1], n + 2)
            for c in chosen:
                rows.add(f"{c}\t--{name}\t" + (f"-{short}" if short else "-"))
    if not rows:
        sys.exit("man-options: no option found under OPTIONS")
    print("\n".join(sorted(rows)))


main()
