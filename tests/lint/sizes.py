#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""The sizes the house agreed on (issue 29, docs/hacking.md "Sizes").

  - no .c file in src/ over 900 lines;
  - no function in src/ over 80 lines;
  - no function of the tests (every .c, .h, .sh and .py file under tests/, its
    folders included: robust/, crash/, fault/, lint/, consumers/ ...) over
    120 lines;
  - no function of the Python and shell helpers (scripts/) over 120.

A C function is counted from its first line at column 0 to its closing
brace at column 0; a shell function from `name() {` to its `}` at column
0; a Python function by its ast node's lines. Prints FILE:LINE: what, and
exits 1 on any finding. Usage: sizes.py [TOP]
"""
import ast
import os
import re
import sys

C_FUNC = re.compile(r'^[A-Za-z_][^;=]*\b([A-Za-z_][A-Za-z0-9_]*)\s*\([^;]*$')
SH_FUNC = re.compile(r'^([A-Za-z_][A-Za-z0-9_]*)\s*\(\)\s*\{')


def c_functions(lines):
    """(name, first line, length) of each function defined at column 0."""
    out, name, start = [], None, 0
    for i, line in enumerate(lines):
        if name is None:
            m = C_FUNC.match(line)
            if m and not line.startswith(('typedef', 'struct ', '#')):
                name, start = m.group(1), i
        elif line.startswith('}'):
            out.append((name, start + 1, i - start + 1))
            name = None
        elif line.endswith(';') and not line.startswith(('\t', ' ')):
            name = None     # a prototype spread over lines
    return out


def sh_functions(lines):
    out, name, start = [], None, 0
    for i, line in enumerate(lines):
        m = SH_FUNC.match(line)
        if m and name is None:
            name, start = m.group(1), i
            if line.rstrip().endswith('}'):
                name = None
        elif name and line.startswith('}'):
            out.append((name, start + 1, i - start + 1))
            name = None
    return out


def py_functions(text):
    out = []
    for node in ast.walk(ast.parse(text)):
        if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)):
            out.append((node.name, node.lineno,
                        node.end_lineno - node.lineno + 1))
    return out


def is_python(path, text):
    return path.endswith('.py') or text.startswith('#!/usr/bin/env python')


def functions(path):
    with open(path, encoding='utf-8', errors='replace') as f:
        text = f.read()
    if path.endswith(('.c', '.h')):
        return c_functions(text.split('\n'))
    if is_python(path, text):
        return py_functions(text)
    if path.endswith('.sh') or text.startswith(('#!/usr/bin/env bash',
                                                '#!/bin/sh', '#!/bin/bash')):
        return sh_functions(text.split('\n'))
    return []


def files(top, sub, exts=None):
    base = os.path.join(top, sub)
    for dirpath, _, names in sorted(os.walk(base)):
        for n in sorted(names):
            p = os.path.join(dirpath, n)
            if exts is None or n.endswith(exts):
                yield p


def main(argv):
    top = argv[1] if len(argv) > 1 else os.path.dirname(
        os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
    found = []
    for p in files(top, 'src', ('.c',)):
        n = sum(1 for _ in open(p, encoding='utf-8'))
        if n > 900:
            found.append((p, 1, '%d lines (at most 900)' % n))
    for sub, exts, limit in (('src', ('.c',), 80),
                             ('tests/unit', ('.c', '.h'), 120),
                             ('tests/fuzz', ('.c',), 120),
                             ('tests', ('.sh', '.py', '.c', '.h'), 120),
                             ('scripts', None, 120)):
        for p in files(top, sub, exts):
            if sub == 'tests' and os.path.dirname(p).startswith((
                    os.path.join(top, 'tests', 'unit'),
                    os.path.join(top, 'tests', 'fuzz'))):
                continue    # they have rows of their own
            for name, line, n in functions(p):
                if n > limit:
                    found.append((p, line, 'function %s: %d lines (at most %d)'
                                  % (name, n, limit)))
    for p, line, what in found:
        print('%s:%d: %s' % (os.path.relpath(p, top), line, what))
    return 1 if found else 0


if __name__ == '__main__':
    sys.exit(main(sys.argv))
