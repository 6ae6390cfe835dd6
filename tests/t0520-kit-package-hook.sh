#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# tier: slow (the package hook over a fake install tree; -r over trees stays fast in t0540)
# scripts/package-hook.sh (issue 5) on a fake install tree: inject ->
# objcopy --only-keep-debug -> strip -> objcopy --add-gnu-debuglink ->
# link --debug-dir -> verify. The stripped binaries and their debug files
# carry the same id, the id stays kernel-visible, gdb loads each debug file
# by id; hard links, symlinks, scripts and data come through untouched; a
# second run changes nothing; a file with no room fails the hook unless
# excluded.
. "$(dirname "$0")/lib.sh"
. "$TOP/tests/kit-lib.sh"
require_tool
kit_prelude

HOOK=$TOP/scripts/package-hook.sh
export ELF_BUILDID=$EBID

tree=$SCRATCH/opt/app
dbg=$SCRATCH/debug
make_app_tree "$tree"
outside_sum=$(sha256sum <"$SCRATCH/outside/elsewhere")
script_sum=$(sha256sum <"$tree/bin/run.sh")

t_begin "package-hook.sh INSTALL_DIR DEBUG_DIR: exit 0, verify's PASS lines for the three ELF files"
expect_exit 0 "$HOOK" "$tree" "$dbg"
for rel in "${APP_ELVES[@]}"; do
	expect_match "$rel in the hook's output" "$out" "^PASS  $tree/$rel  [0-9a-f]{40}\$"
done
expect_eq "FAIL/ERROR lines" "$(printf '%s\n' "$out" | grep -cE '^(FAIL|ERROR) ')" 0
t_end

t_begin "stripped binaries and debug files: same id, kernel-visible, found by id (readelf, ebid.py, gdb)"
check_split_tree "$tree" "$dbg"
t_end

t_begin "hard link kept, in-tree and outside symlinks, script and data untouched"
expect_eq "hard link" "$(stat -c %i "$tree/bin/hello-hl")" "$(stat -c %i "$tree/bin/hello")"
expect_eq "in-tree symlink" "$(readlink "$tree/bin/hello-link")" hello
expect_eq "outside symlink" "$(readlink "$tree/bin/outside")" "$SCRATCH/outside/elsewhere"
expect_eq "file behind the outside symlink" "$(sha256sum <"$SCRATCH/outside/elsewhere")" "$outside_sum"
expect_eq "script" "$(sha256sum <"$tree/bin/run.sh")" "$script_sum"
expect_eq "data" "$(cat "$tree/share/data.txt")" "some data"
expect_eq "the programs still run" "$("$tree/bin/hello" | head -n 1)" "hello from the elf-buildid fixture"
expect_eq "the C program still runs" "$("$tree/bin/cprog")" "kit program: 40"
find "$tree" -name '*.debug' | grep_q . && t_fail "debug files left in the install tree: $(find "$tree" -name '*.debug')"
t_end

t_begin "a second run changes nothing (tree and debug tree: same inodes, mtimes, sizes)"
before=$(tree_state "$tree")
dbefore=$(tree_state "$dbg")
expect_exit 0 "$HOOK" "$tree" "$dbg"
expect_eq "install tree" "$(tree_state "$tree")" "$before"
expect_eq "debug tree" "$(tree_state "$dbg")" "$dbefore"
t_end

t_begin "a file with no room for a note: the hook fails naming it; --exclude lets the rest through"
tree2=$SCRATCH/opt/app2
make_app_tree "$tree2"
cp "$KIT/cprog-noroom" "$tree2/bin/legacy"
expect_exit 1 "$HOOK" "$tree2" "$SCRATCH/debug2"
expect_match "stderr names the file" "$err" "bin/legacy.*(no safe placement|room)"
expect_exit 0 "$HOOK" --exclude=legacy "$tree2" "$SCRATCH/debug2"
check_split_tree "$tree2" "$SCRATCH/debug2"
t_end

t_begin "--manifest records the final (stripped) files; -j passed on; usage errors exit 64"
tree3=$SCRATCH/opt/app3
make_app_tree "$tree3"
expect_exit 0 "$HOOK" -j 2 --manifest="$SCRATCH/m.json" "$tree3" "$SCRATCH/debug3"
got=$(python3 - "$SCRATCH/m.json" "$tree3" <<'PY'
import hashlib, json, os, sys
try:
    doc = json.load(open(sys.argv[1]))
except Exception as e:
    print("no valid manifest: %s" % e); sys.exit()
bad = []
for f in doc["files"]:
    if f["action"] in ("skipped", "failed"):
        continue
    p = f["path"] if os.path.isabs(f["path"]) else os.path.join(os.getcwd(), f["path"])
    if f["action"] != "unchanged": bad.append("%s: %s" % (f["path"], f["action"]))
    if f["sha256"] != hashlib.sha256(open(p, "rb").read()).hexdigest():
        bad.append("%s: sha256 is not that of the final (stripped) file" % f["path"])
n = sum(1 for f in doc["files"] if f["action"] not in ("skipped", "failed"))
if n != 3: bad.append("%d stamped files listed, want 3" % n)
print("; ".join(bad) or "ok")
PY
)
expect_eq "manifest describes the packaged files" "$got" ok
expect_exit 64 "$HOOK" "$tree3"
expect_exit 64 "$HOOK" --bogus "$tree3" "$SCRATCH/debug3"
t_end

t_done
