#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""Holds src/ to its layers (issues 29 and 36): what each file includes,
and, with --objects, what each object calls.

docs/hacking.md's table between `<!-- layers -->` and `<!-- /layers -->`
says, per folder of src/, which other folders' headers its files may
include besides internal.h and their own folder's; src/cli/ may include
only cli/ (and the public headers), not internal.h. An include is not the
whole story (internal.h pulls in the public header, whose functions are
defined all over src/), so with --objects DIR (the build's obj/, made by
make) each object's undefined symbols (nm) are looked up in the objects
that define them: a library folder may call its own folder, src/util.c
and the folders it may include; src/cli/ may call cli/, src/util.c and the
functions the public headers (include/) declare, nothing else of the
library. Prints FILE:LINE: the include and the rule, or OBJECT: calls
SYMBOL of FOLDER, and exits 1 on any; 2 when the table or the objects
cannot be read.
Usage: layers.py [--objects DIR] [TOP]
"""
import os
import re
import subprocess
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


# Folders that may read only one header of another folder, and call only
# what it declares: the self-check reads the plan's recorded fields, never
# the planner's state (planner.h).
HEADER_ONLY = {'check': ('plan', 'plan/plan.h')}


# Folders that may call another folder's functions but read none of its
# headers: job/ holds a plan by pointer (struct ebid_plan is defined in
# plan/plan.h, for plan/ and the self-check only) and asks plan/ through
# the functions core.h and internal.h declare.
CALLS_ONLY = {'job': 'plan'}


# Folders below plan/ that may not name a plan at all (docs/hacking.md:
# "No flow of data runs upward").
NO_PLAN = {'elf': 'src/elf/ reads a plan: which sections move is plan/\'s',
           'fs': 'src/fs/ reads a plan: it writes byte ranges (struct ebid_edit)'}
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
            if CALLS_ONLY.get(folder) == top:
                bad.append((n, inc, 'src/%s/ may call %s/ but not read its '
                            'headers: a plan is opaque there' % (folder, top)))
                continue
            only = HEADER_ONLY.get(folder)
            if only and top == only[0] and inc != only[1]:
                bad.append((n, inc, 'src/%s/ may read %s only' % (folder,
                                                                  only[1])))
                continue
            if top not in allowed:
                bad.append((n, inc, 'src/%s/ may include %s'
                            % (folder or '.', ', '.join(sorted(allowed))
                               or 'no other folder')))
    return bad


PUBLIC_FN = re.compile(r'\b(ebid_[a-z0-9_]+)\s*\(')


def public_functions(top):
    """The functions include/'s headers declare."""
    names = set()
    for dirpath, _, files in os.walk(os.path.join(top, 'include')):
        for name in files:
            if name.endswith('.h'):
                with open(os.path.join(dirpath, name), encoding='utf-8') as f:
                    names |= set(PUBLIC_FN.findall(f.read()))
    return names


def object_symbols(top, objdir):
    """{(folder, object): undefined symbols}, {symbol: defining folder},
    over the objects whose source is in src/ (not a stale one of a file
    that moved)."""
    undefs, defs = {}, {}
    for dirpath, _, files in sorted(os.walk(objdir)):
        folder = os.path.relpath(dirpath, objdir)
        folder = '' if folder == '.' else folder
        for name in sorted(files):
            if not name.endswith('.o') or not os.path.exists(
                    os.path.join(top, 'src', folder, name[:-2] + '.c')):
                continue
            out = subprocess.run(['nm', '-P', os.path.join(dirpath, name)],
                                 capture_output=True, text=True, check=True)
            for line in out.stdout.splitlines():
                parts = line.split()
                if len(parts) < 2:
                    continue
                if parts[1] == 'U':
                    undefs.setdefault((folder, name), set()).add(parts[0])
                elif parts[1].isupper():
                    defs[parts[0]] = folder
    return undefs, defs


def declared(top, header):
    """The functions src/HEADER declares."""
    try:
        with open(os.path.join(top, 'src', header), encoding='utf-8') as f:
            return set(re.findall(r'\b([a-z_][a-z0-9_]*)\s*\(', f.read()))
    except OSError:
        return set()


def check_symbols(top, objdir, table):
    """The calls across folders the table does not allow: messages."""
    undefs, defs = object_symbols(top, objdir)
    if not undefs:
        return None
    public = public_functions(top)
    bad = []
    for (folder, obj), syms in sorted(undefs.items()):
        allowed = table.get(folder, (set(), False))[0]
        for sym in sorted(syms):
            to = defs.get(sym)
            if to is None or to in (folder, ''):
                continue
            if folder == 'cli' and sym in public:
                continue
            only = HEADER_ONLY.get(folder)
            if only and to == only[0] and sym not in declared(top, only[1]):
                bad.append('src/%s/%s: calls %s of src/%s/, which %s does not '
                           'declare' % (folder, obj[:-2] + '.c', sym, to,
                                        only[1]))
                continue
            if folder != 'cli' and to in allowed:
                continue
            bad.append('src/%s/%s: calls %s of src/%s/: %s' % (
                folder or '.', obj[:-2] + '.c', sym, to,
                'src/cli/ may call only the public API' if folder == 'cli'
                else 'src/%s/ may use %s' % (folder or '.', ', '.join(
                    sorted(allowed)) or 'no other folder')))
    return bad


def main(argv):
    args = argv[1:]
    objdir = None
    if args[:1] == ['--objects'] and len(args) > 1:
        objdir, args = args[1], args[2:]
    top = args[0] if args else os.path.dirname(
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
    if objdir is not None:
        bad = check_symbols(top, objdir, table)
        if bad is None:
            print('layers.py: no objects in %s (run make)' % objdir,
                  file=sys.stderr)
            return 2
        for line in bad:
            print(line)
        found += len(bad)
    return 1 if found else 0


if __name__ == '__main__':
    sys.exit(main(sys.argv))
