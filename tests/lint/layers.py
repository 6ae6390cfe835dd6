#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""Holds every #include in src/ to the layers (issue 29).

docs/hacking.md's table between `<!-- layers -->` and `<!-- /layers -->`
says, per folder of src/, which other folders' headers its files may
include besides internal.h and their own folder's; src/cli/ may include
only cli/ (and the public headers), not internal.h. Prints FILE:LINE: the
include and the rule, and exits 1 on any; 2 when the table cannot be read.
Usage: layers.py [TOP]
"""
import os
import re
import sys

ROW = re.compile(r'^\| `src/([a-z]*)/?`[^|]*\| (.*) \|$')
INCLUDE = re.compile(r'^\s*#\s*include\s+"([^"]+)"')


def read_table(doc):
    with open(doc, encoding='utf-8') as f:
        text = f.read()
    m = re.search(r'<!-- layers:.*?-->\n(.*?)<!-- /layers -->', text, re.S)
    if not m:
        return None
    table = {}
    for line in m.group(1).splitlines():
        r = ROW.match(line)
        if not r:
            continue
        folder, may = r.group(1), r.group(2)
        table[folder] = (set(re.findall(r'`([a-z]+)/`', may)),
                         'not `internal.h`' in may)
    return table


# Folders below plan/ that may not read a plan: the type is public, so no
# include shows it (docs/hacking.md: "No flow of data runs upward").
NO_PLAN = {'elf': 'src/elf/ reads a plan: which sections move is plan/\'s'}
PLAN_TYPE = re.compile(r'\bstruct\s+ebid_plan\b')


def check_file(path, folder, rule):
    allowed, no_internal = rule
    bad = []
    with open(path, encoding='utf-8') as f:
        for n, line in enumerate(f, 1):
            if folder in NO_PLAN and PLAN_TYPE.search(line):
                bad.append((n, 'struct ebid_plan', NO_PLAN[folder]))
            m = INCLUDE.match(line)
            if not m:
                continue
            inc = m.group(1)
            if inc == 'internal.h':
                if no_internal:
                    bad.append((n, inc, 'src/%s/ may not include internal.h'
                                % folder))
                continue
            if inc.startswith('elf-buildid'):
                continue        # the public headers (include/)
            top = inc.split('/')[0] if '/' in inc else ''
            if top == folder and '/' in inc:
                continue
            if top not in allowed:
                bad.append((n, inc, 'src/%s/ may include %s'
                            % (folder or '.', ', '.join(sorted(allowed))
                               or 'no other folder')))
    return bad


def main(argv):
    top = argv[1] if len(argv) > 1 else os.path.dirname(
        os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
    table = read_table(os.path.join(top, 'docs', 'hacking.md'))
    if not table:
        print('layers.py: no layers table in docs/hacking.md', file=sys.stderr)
        return 2
    found = 0
    src = os.path.join(top, 'src')
    for dirpath, _, files in sorted(os.walk(src)):
        folder = os.path.relpath(dirpath, src)
        folder = '' if folder == '.' else folder
        if folder not in table:
            print('layers.py: src/%s/ has no row in docs/hacking.md' % folder,
                  file=sys.stderr)
            return 2
        for name in sorted(files):
            if not name.endswith(('.c', '.h')):
                continue
            path = os.path.join(dirpath, name)
            for n, inc, why in check_file(path, folder, table[folder]):
                print('%s:%d: uses "%s": %s'
                      % (os.path.relpath(path, top), n, inc, why))
                found += 1
    return 1 if found else 0


if __name__ == '__main__':
    sys.exit(main(sys.argv))
