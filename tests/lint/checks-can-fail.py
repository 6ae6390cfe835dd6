#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""Finds checks in the shell tests that cannot fail (issues 29 and 36).

Four patterns, each a check that passed whatever the tool did:

  status-after-subst  $? read on a line after a command substitution
                      ($(...) or `...`): $? is then the substitution's
                      status, not the command before the line's.
  loop-var-after-loop a for loop's variable used in a test or expect_*
                      after its loop has ended: it holds the last item
                      whatever the loop did ("test $n = 30" after
                      "for n in $(seq 30)").
  status-unread       `run CMD` whose $rc is never read before the next
                      command is run, the block ends or the loop turns:
                      CMD's exit status is never looked at.
  check-and-chain     expect_true, expect_false or expect_exit whose
                      command goes on past an unquoted && or || (on its
                      line or its continuation lines): only the first
                      command is inside the check, the rest runs after
                      it and its status is lost ("expect_true W [ -n "$x" ]
                      && [ $x -gt 4096 ]" passed for x=100). Wrap such a
                      chain in eval '...' or a function. "|| return",
                      "|| break" and the like act on the check's own
                      result and are not flagged.

A line may say why a finding is right with a comment `# lint: ok (why)`.
Usage: checks-can-fail.py FILE...; prints FILE:LINE: PATTERN: text, and
exits 1 when it found anything.
"""
import re
import sys

FOR_VAR = re.compile(r'^\s*for\s+([A-Za-z_][A-Za-z0-9_]*)\s+in\b')
CHECK_LINE = re.compile(r'\b(expect_\w+|test|t_fail)\b|\[\s')
RUN = re.compile(r'^\s*run\s')
ENDS_RUN = re.compile(r'^\s*(run\s|expect_exit\s|t_end\b|t_begin\b|done\b|fi\b|else\b|elif\b|\}|esac\b)')
OK = re.compile(r'#\s*lint:\s*ok\b')


def words(line):
    """The line without its comment (quoted strings are kept)."""
    return re.sub(r'\s#.*$', '', line)


def unquoted(code):
    """code with the contents of its quoted strings taken out."""
    out, q, i = [], None, 0
    while i < len(code):
        c = code[i]
        if q == "'":
            if c == "'":
                q = None
        elif q == '"':
            if c == '\\':
                i += 1
            elif c == '"':
                q = None
        elif c in "'\"":
            q = c
            out.append(c)
        elif c == '\\':
            i += 1
        else:
            out.append(c)
        i += 1
    return ''.join(out)


CHECK_CALL = re.compile(r'^\s*(expect_true|expect_false|expect_exit)\s')


def check_and_chain(lines):
    i = 0
    while i < len(lines):
        if not CHECK_CALL.match(lines[i]) or OK.search(lines[i]):
            i += 1
            continue
        start, text = i, words(lines[i])
        while text.rstrip().endswith('\\') and i + 1 < len(lines):
            i += 1
            text = text.rstrip()[:-1] + ' ' + words(lines[i])
        # "|| return 1", "|| break" act on the check's own result.
        for m in re.finditer(r'(&&|\|\|)\s*(\S*)', unquoted(text)):
            if m.group(2) not in ('return', 'break', 'continue', 'exit'):
                yield start, 'check-and-chain'
                break
        i += 1


def status_closed_subst(code):
    """Is $? read after a command substitution closed on this line? ($?
    inside the substitution, after its own command, is that command's.)"""
    depth, closed = 0, False
    i = 0
    while i < len(code):
        if code.startswith('$(', i) and not code.startswith('$((', i):
            depth += 1
            i += 2
            continue
        if code[i] == '(' and depth:
            depth += 1
        elif code[i] == ')' and depth:
            depth -= 1
            if not depth:
                closed = True
        elif code.startswith('$?', i) and closed and not depth:
            return True
        i += 1
    return False


def status_after_subst(lines):
    for i, line in enumerate(lines):
        code = words(line)
        if status_closed_subst(code) and not OK.search(line):
            yield i, 'status-after-subst'


def depth_change(code):
    opens = len(re.findall(r'(^|;|\s)do(\s|$)', code))
    closes = len(re.findall(r'(^|;|\s)done(\s|;|$|\))', code))
    return opens, closes


def loop_var_after_loop(lines):
    stack = []          # (var, depth at which its loop opened)
    finished = set()
    depth = 0
    for i, line in enumerate(lines):
        code = words(line)
        m = FOR_VAR.match(code)
        if m:
            finished.discard(m.group(1))
        for var in list(finished):
            if (re.search(r'(^|\s|;)%s=' % var, code) or
                    re.search(r'\bread\b[^;|]*\s%s(\s|$|;)' % var, code)):
                finished.discard(var)
            elif (re.search(r'\$\{?%s\b' % var, code) and
                  CHECK_LINE.search(code) and not OK.search(line)):
                yield i, 'loop-var-after-loop'
        opens, closes = depth_change(code)
        if m and opens:
            stack.append((m.group(1), depth))
        elif m:
            stack.append((m.group(1), depth))
        depth += opens
        for _ in range(closes):
            depth -= 1
            while stack and stack[-1][1] >= depth:
                finished.add(stack.pop()[0])


FUNC = re.compile(r'^([A-Za-z_][A-Za-z0-9_]*)\s*\(\)\s*\{')
READS_RC = re.compile(r'\$\{?rc\b|\brc\b\s*[=!-]')


def rc_readers(paths):
    """Functions (in these files) whose bodies read $rc: a call of one
    after `run` reads the status."""
    names = set()
    for path in paths:
        with open(path, encoding='utf-8') as f:
            name = None
            for line in f:
                m = FUNC.match(line)
                if m:
                    name = m.group(1)
                elif name and line.startswith('}'):
                    name = None
                elif name and RUN.match(words(line)):
                    name = None     # it runs a command of its own first
                elif name and READS_RC.search(words(line)):
                    names.add(name)
                    name = None
    return names


def status_unread(lines, readers):
    calls = re.compile(r'(^|[\s;&|(])(%s)\b' % '|'.join(sorted(readers))) \
        if readers else None
    for i, line in enumerate(lines):
        if not RUN.match(words(line)) or OK.search(line):
            continue
        j = i
        read = READS_RC.search(words(line)) is not None
        while not read and j + 1 < len(lines):
            j += 1
            code = words(lines[j])
            if READS_RC.search(code) or (calls and calls.search(code)):
                read = True
            elif code.startswith('}'):
                read = True     # the function's caller reads $rc
            elif ENDS_RUN.match(code):
                break
        if not read:
            yield i, 'status-unread'


LIBS = ('lib.sh', 'kit-lib.sh', 'matrix-lib.sh', 'debuginfod-lib.sh')


def main(argv):
    import os
    found = 0
    here = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
    libs = [os.path.join(here, n) for n in LIBS
            if os.path.exists(os.path.join(here, n))]
    for path in argv:
        with open(path, encoding='utf-8') as f:
            lines = f.read().split('\n')
        readers = rc_readers(libs + [path])
        for check in (status_after_subst, loop_var_after_loop,
                      lambda ls: status_unread(ls, readers),
                      check_and_chain):
            for i, what in check(lines):
                print('%s:%d: %s: %s' % (path, i + 1, what, lines[i].strip()))
                found += 1
    return 1 if found else 0


if __name__ == '__main__':
    sys.exit(main(sys.argv[1:]))
