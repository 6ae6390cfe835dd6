#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# Issue 5's "Done when": a fake install tree with Go programs for amd64 and
# arm64, C programs and a shared library (ld's own ids), a reserved and a
# Go -B id, a hard link, symlinks into and out of the tree, a shell script,
# a .o and a program with no room for a note. `inject -r --manifest` must
# handle each inode once, go on past the failure, print the contract's
# summary and a manifest that readelf, sha256sum, stat and `go tool buildid`
# agree with; `link -r --debug-dir` builds the debug tree; a second run
# rewrites nothing; -j 2 gives byte-identical results to -j 1.
. "$(dirname "$0")/lib.sh"
. "$TOP/tests/kit-lib.sh"
require_tool
kit_prelude
require_fixtures reserved existing

# make_tree DIR: the tree under DIR/opt (paths below are relative to DIR).
make_tree() {
	local d=$1/opt
	rm -rf "$1"
	mkdir -p "$d/bin" "$d/lib" "$d/libexec" "$d/share/doc" "$1/elsewhere"
	cp "$FIXTURES/plain" "$d/bin/hello"                  # Go amd64, no id
	cp "$KIT/hello-arm64" "$d/bin/hello-arm64"           # Go arm64, no id
	cp "$FIXTURES/pie" "$d/libexec/agent"                # Go amd64 PIE, no id
	cp "$FIXTURES/reserved" "$d/libexec/reserved"        # zero id
	cp "$FIXTURES/existing" "$d/libexec/linked-with-B"   # id not kernel-visible
	cp "$KIT/cprog" "$d/bin/cprog"                       # C, ld's id
	cp "$KIT/libkit.so.1" "$d/lib/libkit.so.1"           # C shared library
	cp "$KIT/kitobj.o" "$d/lib/kitobj.o"                 # relocatable: skip
	cp "$KIT/cprog-noroom" "$d/bin/legacy"               # no room: fail
	ln "$d/bin/hello" "$d/bin/hello-hardlink"            # same inode
	ln -s hello "$d/bin/hello-symlink"                   # in the tree
	ln -s libkit.so.1 "$d/lib/libkit.so"                 # in the tree
	cp "$FIXTURES/plain" "$1/elsewhere/outside"
	ln -s ../../elsewhere/outside "$d/bin/outside"       # out of the tree
	printf '#!/bin/sh\necho hi\n' >"$d/bin/run.sh"       # not ELF
	echo "read me" >"$d/share/doc/README"                # not ELF
	chmod -R u+w "$1"
}

# What the run must report.
HANDLED=(opt/bin/cprog opt/bin/hello opt/bin/hello-arm64 opt/lib/libkit.so.1
	opt/libexec/agent opt/libexec/linked-with-B opt/libexec/reserved)
declare -A ACTION=(
	[opt/bin/hello]=injected [opt/bin/hello-arm64]=injected [opt/libexec/agent]=injected
	[opt/libexec/reserved]=backfilled [opt/libexec/linked-with-B]=repaired
	[opt/bin/cprog]=unchanged [opt/lib/libkit.so.1]=unchanged
	[opt/bin/legacy]=failed
	[opt/bin/run.sh]=skipped [opt/share/doc/README]=skipped [opt/lib/kitobj.o]=skipped
)

# summary_counts STDERR: "injected=N backfilled=N ..." from the summary line.
summary_counts() {
	local line w n r=
	line=$(printf '%s\n' "$1" | grep '^elf-buildid: summary: ' | tail -n 1)
	[ -n "$line" ] || { echo "no summary line"; return; }
	for w in injected backfilled repaired unchanged skipped failed; do
		n=$(printf '%s\n' "$line" | grep -oE "[0-9]+ $w" | cut -d' ' -f1)
		r="$r $w=${n:-missing}"
	done
	echo "${r# }"
}

# check_manifest DIR MANIFEST: the manifest against independent tools;
# prints "ok" or the problems.
check_manifest() {
	python3 - "$1" "$2" "$("$EBID" --version | awk '{print $2}')" <<'PY'
import hashlib, json, os, re, subprocess, sys
root, mpath, version = sys.argv[1], sys.argv[2], sys.argv[3]
bad = []
try:
    doc = json.load(open(mpath))
except Exception as e:
    print("manifest is not JSON: %s" % e); sys.exit()
if doc.get("tool") != "elf-buildid": bad.append("tool=%r" % doc.get("tool"))
if doc.get("version") != version: bad.append("version=%r, --version says %r" % (doc.get("version"), version))
files = doc.get("files")
if not isinstance(files, list):
    print("no files list"); sys.exit()
paths = [f.get("path") for f in files]
if paths != sorted(paths): bad.append("files not sorted by path: %s" % paths)
if len(set(paths)) != len(paths): bad.append("a path is listed twice")
need = ["path", "action", "gnu_build_id", "go_build_id", "machine", "class", "endian", "size", "sha256", "reason"]
machines = {"Advanced Micro Devices X86-64": "x86_64", "AArch64": "aarch64"}
for f in files:
    p = f.get("path")
    miss = [k for k in need if k not in f]
    if miss: bad.append("%s: fields missing %s" % (p, miss)); continue
    if f["action"] not in ("injected", "backfilled", "repaired", "reserved", "unchanged", "skipped", "failed"):
        bad.append("%s: action %r" % (p, f["action"]))
    full = os.path.join(root, p)
    if not os.path.lexists(full): bad.append("%s: no such path" % p); continue
    if f["action"] in ("skipped", "failed"):
        if f["sha256"] is not None: bad.append("%s: sha256 of a %s file" % (p, f["action"]))
        if not isinstance(f["reason"], str) or not f["reason"]: bad.append("%s: no reason" % p)
        continue
    data = open(full, "rb").read()
    if f["sha256"] != hashlib.sha256(data).hexdigest(): bad.append("%s: sha256 differs from sha256sum" % p)
    if f["size"] != len(data): bad.append("%s: size %r, file has %d" % (p, f["size"], len(data)))
    notes = subprocess.run(["readelf", "-n", full], capture_output=True, text=True, errors="replace").stdout
    ids = re.findall(r"Build ID: ([0-9a-f]+)", notes)
    if f["gnu_build_id"] != (ids[0] if ids else None): bad.append("%s: gnu_build_id %r, readelf %r" % (p, f["gnu_build_id"], ids))
    hdr = subprocess.run(["readelf", "-h", full], capture_output=True, text=True, errors="replace").stdout
    m = re.search(r"Machine:\s+(.*)", hdr).group(1).strip()
    if f["machine"] != machines.get(m, m): bad.append("%s: machine %r, readelf %r" % (p, f["machine"], m))
    if f["class"] != re.search(r"Class:\s+(\S+)", hdr).group(1): bad.append("%s: class %r" % (p, f["class"]))
    endian = "little" if "little endian" in hdr else "big"
    if f["endian"] != endian: bad.append("%s: endian %r" % (p, f["endian"]))
    # go tool buildid prints the GNU id's raw bytes for non-Go files: ask it
    # only when the file has Go's note.
    secs = subprocess.run(["readelf", "-SW", full], capture_output=True, text=True, errors="replace").stdout
    want_go = None
    if " .note.go.buildid " in secs:
        go = subprocess.run(["go", "tool", "buildid", full], capture_output=True, text=True, errors="replace")
        want_go = go.stdout.strip() or None
    if f["go_build_id"] != want_go: bad.append("%s: go_build_id %r, go tool buildid %r" % (p, f["go_build_id"], want_go))
print("; ".join(bad) or "ok")
PY
}

A=$SCRATCH/a
make_tree "$A"
outside_sum=$(sha256sum <"$A/elsewhere/outside")

t_begin "inject -r -j 1 --manifest: exit 2 (one file cannot be stamped), the walk goes on, one error line"
run bash -c 'cd "$0" && exec "$@"' "$A" "$EBID" inject -r -j 1 --manifest=manifest.json opt
expect_eq "exit" "$rc" 2
expect_eq "error lines" "$(printf '%s\n' "$err" | grep -v '^elf-buildid: summary: ' | grep -c .)" 1
expect_match "error line" "$err" "^elf-buildid: 'opt/bin/legacy': inject: [^ ].*"
expect_eq "'ID  PATH' lines, sorted" "$(printf '%s\n' "$out" | awk '{print $2}' | sort | tr '\n' ' ')" \
	"$(printf '%s\n' "${HANDLED[@]}" | sort | tr '\n' ' ')"
for p in "${HANDLED[@]}"; do
	line=$(printf '%s\n' "$out" | awk -v p="$p" '$2 == p')
	expect_eq "$p: printed id is readelf's" "${line%%  *}" "$(readelf_ids "$A/$p")"
done
first_out=$out
first_err=$err
t_end

t_begin "summary line: 3 injected, 1 backfilled, 1 repaired, 2 unchanged, 4 skipped, 1 failed"
expect_eq "summary" "$(summary_counts "$first_err")" \
	"injected=3 backfilled=1 repaired=1 unchanged=2 skipped=4 failed=1"
t_end

t_begin "every stamped file: id kernel-visible (ebid.py), content hash or kept id, verify passes"
for p in "${HANDLED[@]}"; do
	f=$A/$p
	id=$(readelf_ids "$f")
	expect_eq "$p: ebid.py kernel" "$(py_kernel "$f")" "$id"
	case "${ACTION[$p]}" in
	injected | backfilled) expect_eq "$p: ebid.py id (content hash)" "$(py_id "$f")" "$id" ;;
	repaired) expect_eq "$p: Go -B id kept" "$id" "$EXISTING_ID" ;;
	esac
done
expect_exit 1 "$EBID" verify -r "$A/opt"
expect_eq "verify: FAIL/ERROR only for legacy" \
	"$(printf '%s\n' "$out" | grep -E '^(FAIL|ERROR) ' | awk '{print $2}')" "$A/opt/bin/legacy"
t_end

t_begin "each inode once: the hard link still shares the stamped inode; symlinks unchanged; outside file untouched"
expect_eq "hard link inode" "$(stat -c %i "$A/opt/bin/hello-hardlink")" "$(stat -c %i "$A/opt/bin/hello")"
expect_eq "link count" "$(stat -c %h "$A/opt/bin/hello")" 2
expect_eq "in-tree symlink" "$(readlink "$A/opt/bin/hello-symlink")" hello
expect_eq "outside symlink" "$(readlink "$A/opt/bin/outside")" ../../elsewhere/outside
expect_eq "file outside the tree" "$(sha256sum <"$A/elsewhere/outside")" "$outside_sum"
expect_eq "outside file has no id" "$(readelf_ids "$A/elsewhere/outside")" ""
t_end

t_begin "manifest: fields, sorted, sha256/size/id/machine/class/endian/go id agree with sha256sum, stat, readelf, go tool buildid"
expect_eq "check" "$(check_manifest "$A" "$A/manifest.json")" ok
t_end

t_begin "manifest: exactly the fields docs/packaging.md documents"
sed -n '/<!-- manifest-fields begin -->/,/<!-- manifest-fields end -->/s/^| `\([][a-z0-9_.]*\)`.*/\1/p' \
	"$TOP/docs/packaging.md" >fields.doc
[ "$(wc -l <fields.doc)" -ge 10 ] || t_fail "too few documented fields in docs/packaging.md: $(tr '\n' ' ' <fields.doc)"
got=$(python3 - "$A/manifest.json" fields.doc <<'PY'
import json, sys
doc = json.load(open(sys.argv[1]))
documented = set(l.strip() for l in open(sys.argv[2]) if l.strip())
seen = set()
def walk(v, p):
    if isinstance(v, dict):
        for k, x in v.items():
            q = p + "." + k if p else k
            seen.add(q); walk(x, q)
    elif isinstance(v, list):
        for x in v: walk(x, p + "[]")
walk(doc, "")
containers = {p for p in seen if any(o.startswith(p + ".") or o.startswith(p + "[]") for o in seen)}
bad = ["undocumented field " + p for p in sorted(seen - containers - documented)]
bad += ["documented field missing " + p for p in sorted(documented - seen)]
print("; ".join(bad) or "ok")
PY
)
expect_eq "fields" "$got" ok
t_end

t_begin "manifest: the action of each file as the contract names it"
got=$(python3 - "$A/manifest.json" <<'PY'
import json, sys
for f in json.load(open(sys.argv[1]))["files"]:
    print("%s=%s" % (f["path"], f["action"]))
PY
)
for p in "${!ACTION[@]}"; do
	expect_match "action of $p" "$got" "^$p=${ACTION[$p]}\$"
done
expect_match "legacy's reason" "$got" '^opt/bin/legacy=failed$'
# Hard link and in-tree symlink: the contract says "each inode once" and
# "every file"; if listed, they must say the same as their target.
for alias in opt/bin/hello-hardlink opt/bin/hello-symlink opt/lib/libkit.so; do
	printf '%s\n' "$got" | grep_q "^$alias=" || continue
	a=$(python3 -c 'import json,sys; d={f["path"]: f for f in json.load(open(sys.argv[1]))["files"]}; print(d[sys.argv[2]].get("gnu_build_id"))' "$A/manifest.json" "$alias")
	[ "$a" = None ] && t_fail "$alias is listed without the id of its target"
done
t_end

t_begin "link -r --debug-dir: one .build-id/xx/rest.debug per stamped file, same bytes; legacy reported (exit 2)"
run bash -c 'cd "$0" && exec "$@"' "$A" "$EBID" link -r -j 1 --debug-dir=debug opt
expect_eq "exit" "$rc" 2
expect_match "error names legacy" "$err" "'opt/bin/legacy': link: "
n=0
for p in "${HANDLED[@]}"; do
	id=$(readelf_ids "$A/$p")
	d=$A/debug/.build-id/${id:0:2}/${id:2}.debug
	expect_same_file "$p in the debug tree" "$d" "$A/$p" && n=$((n + 1))
	expect_match "link printed $p's entry" "$out" "^$id  debug/\\.build-id/${id:0:2}/${id:2}\\.debug\$"
done
expect_eq "entries in the debug tree" "$(find "$A/debug" -name '*.debug' | wc -l)" "${#HANDLED[@]}"
t_end

t_begin "second run (inject -r --manifest, link -r): nothing rewritten, every handled file 'unchanged'"
before=$(tree_state "$A/opt")
dbefore=$(tree_state "$A/debug")
run bash -c 'cd "$0" && exec "$@"' "$A" "$EBID" inject -r -j 1 --manifest=manifest2.json opt
expect_eq "exit" "$rc" 2
expect_eq "same ID  PATH lines" "$(printf '%s\n' "$out" | sort)" "$(printf '%s\n' "$first_out" | sort)"
expect_eq "summary" "$(summary_counts "$err")" \
	"injected=0 backfilled=0 repaired=0 unchanged=7 skipped=4 failed=1"
expect_eq "tree state" "$(tree_state "$A/opt")" "$before"
expect_exit 2 bash -c 'cd "$0" && exec "$@"' "$A" "$EBID" link -r -j 1 --debug-dir=debug opt
expect_eq "debug tree state" "$(tree_state "$A/debug")" "$dbefore"
got=$(python3 -c 'import json,sys; print(" ".join(sorted(set(f["action"] for f in json.load(open(sys.argv[1]))["files"]))))' "$A/manifest2.json" 2>&1)
expect_eq "actions in the second manifest" "$got" "failed skipped unchanged"
expect_eq "second manifest still agrees" "$(check_manifest "$A" "$A/manifest2.json")" ok
t_end

t_begin "-j 2 gives byte-identical files, manifest, output and debug tree to -j 1"
B=$SCRATCH/b
make_tree "$B"
run bash -c 'cd "$0" && exec "$@"' "$B" "$EBID" inject -r -j 2 --manifest=manifest.json opt
expect_eq "exit" "$rc" 2
expect_eq "ID  PATH lines (sorted)" "$(printf '%s\n' "$out" | sort)" "$(printf '%s\n' "$first_out" | sort)"
expect_eq "summary" "$(summary_counts "$err")" \
	"injected=3 backfilled=1 repaired=1 unchanged=2 skipped=4 failed=1"
for p in $(cd "$A" && find opt -type f | sort); do
	expect_same_file "$p" "$A/$p" "$B/$p"
done
expect_same_file "manifest" "$A/manifest.json" "$B/manifest.json"
expect_exit 2 bash -c 'cd "$0" && exec "$@"' "$B" "$EBID" link -r -j 2 --debug-dir=debug opt
expect_eq "debug tree listing" "$(cd "$B/debug" && find . | sort)" "$(cd "$A/debug" && find . | sort)"
for p in $(cd "$A/debug" && find . -type f | sort); do
	expect_same_file "debug/$p" "$A/debug/$p" "$B/debug/$p"
done
t_end


# A walk that finds nothing (an empty directory, or every file excluded, as
# a packaging hook's -x may leave it) is a run with nothing to do, not an
# error; under the sanitizers it once sorted a null array (qsort(NULL, 0)).
t_begin "inject, verify and link -r over an empty tree and over one whose every file is excluded: exit 0, nothing written"
mkdir -p "$SCRATCH/none/empty" "$SCRATCH/none/all-out"
cp "$FIXTURES/plain" "$SCRATCH/none/all-out/hello-1"
before=$(sha256sum "$SCRATCH/none/all-out/hello-1")
for d in empty all-out; do
	run "$EBID" inject -r --exclude='hello-*' "$SCRATCH/none/$d"
	expect_eq "inject -r $d: exit" "$rc" 0
	expect_match "inject -r $d: summary" "$err" 'summary: 0 injected, .* 0 failed'
	run "$EBID" verify -r --exclude='hello-*' "$SCRATCH/none/$d"
	expect_eq "verify -r $d: exit" "$rc" 0
	run "$EBID" link -r --exclude='hello-*' --debug-dir="$SCRATCH/none/dbg" "$SCRATCH/none/$d"
	expect_eq "link -r $d: exit" "$rc" 0
done
expect_eq "the excluded file is untouched" "$(sha256sum "$SCRATCH/none/all-out/hello-1")" "$before"
t_end

t_done
