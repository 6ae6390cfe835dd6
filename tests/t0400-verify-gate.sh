#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# The CI gate (issue 4), input by input: good, missing id, zero id, not
# kernel-visible (Go -B), note not in a .note.gnu.build-id section, bad
# descriptor size, stripped after stamping (--content-hash), duplicates (and
# hard links, which are not), malformed, non-ELF and not-a-program (skipped),
# --allow-missing, and the exit codes 0/1/2/64. Each failure must name its
# check, in the text line and in --json; independent tools (readelf,
# ebid.py kernel) confirm the input really has the defect.
. "$(dirname "$0")/lib.sh"
require_tool
require_fixtures plain existing reserved nobuildid

require_deps kit

# checks JSON PATH: "name=status" of each check of PATH in a --json
# document, space separated, in document order; "status=S" first.
checks() {
	python3 - "$1" "$2" <<'PY'
import json, sys
doc = json.loads(open(sys.argv[1]).read())
for f in doc["files"]:
    if f["path"] == sys.argv[2]:
        print(" ".join(["status=" + f["status"]] +
                       ["%s=%s" % (c["name"], c["status"]) for c in f["checks"]]))
        break
else:
    print("no entry for " + sys.argv[2])
PY
}

# verify_json FILE... [OPTIONS]: run verify --json, document in $SCRATCH/v.json.
verify_json() {
	run "$EBID" verify --json "$@"
	printf '%s\n' "$out" >"$SCRATCH/v.json"
	python3 -c 'import json,sys; json.load(open(sys.argv[1]))' "$SCRATCH/v.json" 2>/dev/null ||
		t_fail "--json output is not one JSON document: $(head -c 300 "$SCRATCH/v.json")"
}

qre() { printf '%s' "$1" | sed 's/[][\.*^$/+?(){}|]/\\&/g'; }

mkdir -p in
good=$(copy_fixture plain "$SCRATCH/in/good")
run "$EBID" inject "$good"
good_id=$(readelf_ids "$good")

t_begin "good: PASS  FILE  ID, exit 0, every check passes (elf note section size nonzero pt_note perf unique)"
expect_exit 0 "$EBID" verify "$good"
expect_eq "verify" "$out" "PASS  $good  $good_id"
verify_json "$good"
expect_eq "--json checks" "$(checks "$SCRATCH/v.json" "$good")" \
	"status=pass elf=pass note=pass section=pass size=pass nonzero=pass pt_note=pass perf=pass unique=pass"
expect_eq "ebid.py kernel agrees" "$(py_kernel "$good")" "$good_id"
t_end

t_begin "missing id (plain Go build, and -buildid= with no note at all): FAIL note, exit 1"
for v in plain nobuildid; do
	f=$(copy_fixture "$v" "$SCRATCH/in/missing-$v")
	expect_eq "readelf sees no id in $v" "$(readelf_ids "$f")" ""
	expect_exit 1 "$EBID" verify "$f"
	expect_match "verify $v" "$out" "^FAIL  $(qre "$f")  note: [^ ]"
	verify_json "$f"
	expect_match "--json $v" "$(checks "$SCRATCH/v.json" "$f")" '^status=fail .*note=fail'
done
t_end

t_begin "zero id (reserved, never backfilled): FAIL nonzero, exit 1"
f=$(copy_fixture reserved "$SCRATCH/in/zero")
expect_eq "readelf id" "$(readelf_ids "$f")" "$ZERO_ID"
expect_exit 1 "$EBID" verify "$f"
expect_match "verify" "$out" "^FAIL  $(qre "$f")  (.*; )?nonzero: [^ ]"
verify_json "$f"
expect_match "--json" "$(checks "$SCRATCH/v.json" "$f")" '^status=fail .*note=pass .*nonzero=fail'
t_end

t_begin "not kernel-visible (Go -ldflags=-B=0x...: note outside the PT_NOTE): FAIL pt_note only, exit 1"
f=$(copy_fixture existing "$SCRATCH/in/notvisible")
expect_eq "readelf id" "$(readelf_ids "$f")" "$EXISTING_ID"
expect_exit 1 python3 "$EBID_PY" kernel "$f"
expect_exit 1 "$EBID" verify "$f"
expect_match "verify" "$out" "^FAIL  $(qre "$f")  pt_note: [^ ]"
verify_json "$f"
expect_eq "--json" "$(checks "$SCRATCH/v.json" "$f")" \
	"status=fail elf=pass note=pass section=pass size=pass nonzero=pass pt_note=fail perf=pass unique=pass"
t_end

t_begin "note reachable only through PT_NOTE (section renamed): FAIL section, perf does not see it"
f=$SCRATCH/in/nosection
cp "$good" "$f"
python3 - "$f" <<'PY'
import sys
p = sys.argv[1]
d = bytearray(open(p, 'rb').read())
i = d.find(b'.note.gnu.build-id\0')
assert i > 0
d[i:i + 19] = b'.note.gnu.build-iX\0'
open(p, 'wb').write(d)
PY
expect_eq "readelf -S: no .note.gnu.build-id" "$(readelf -SW "$f" | grep -c ' \.note\.gnu\.build-id ')" 0
expect_eq "ebid.py kernel still sees it" "$(py_kernel "$f")" "$good_id"
expect_exit 1 "$EBID" verify "$f"
expect_match "verify" "$out" "^FAIL  $(qre "$f")  (.*; )?section: [^ ]"
verify_json "$f"
expect_match "--json" "$(checks "$SCRATCH/v.json" "$f")" '^status=fail .*section=fail'
t_end

t_begin "descriptor longer than 20 bytes (ld --build-id=0x<32 bytes>): FAIL size, exit 1"
# perf and the kernel ignore ids over 20 bytes; GNU ld writes them on request.
long_id=00112233445566778899aabbccddeeff00112233445566778899aabbccddeeff
printf 'int main(void) { return 0; }\n' >in/long.c
gcc -Wl,--build-id=0x$long_id -o in/long in/long.c
f=in/long
expect_eq "readelf id" "$(readelf_ids "$f")" "$long_id"
expect_exit 1 python3 "$EBID_PY" kernel "$f"
expect_exit 1 "$EBID" verify "$f"
expect_match "verify" "$out" "^FAIL  $(qre "$f")  (.*; )?size: [^ ]"
verify_json "$f"
expect_match "--json" "$(checks "$SCRATCH/v.json" "$f")" '^status=fail .*note=pass .*size=fail'
t_end

t_begin "stripped after stamping: plain verify passes, --content-hash FAILs content with a plain message"
f=$SCRATCH/in/stripped
cp "$good" "$f"
# Another id than $good's, so that unique does not interfere.
expect_exit 0 "$EBID" inject --force --id=0x5a5a5a5a5a5a5a5a5a5a5a5a5a5a5a5a5a5a5a5a "$f"
expect_exit 0 "$EBID" inject --force "$f"
sid=$(readelf_ids "$f")
expect_exit 0 "$EBID" verify --content-hash "$f"
strip "$f"
expect_eq "id after strip" "$(readelf_ids "$f")" "$sid"
expect_eq "ebid.py kernel after strip" "$(py_kernel "$f")" "$sid"
expect_exit 0 "$EBID" verify "$f"
expect_eq "verify" "$out" "PASS  $f  $sid"
expect_exit 1 "$EBID" verify --content-hash "$f"
expect_match "verify --content-hash" "$out" "^FAIL  $(qre "$f")  content: .*modified after"
verify_json --content-hash "$f"
expect_match "--json" "$(checks "$SCRATCH/v.json" "$f")" '^status=fail .*content=fail'
t_end

t_begin "duplicate: one id on two files with other bytes: both FAIL unique, each naming the other"
mkdir -p dup
cp "$good" dup/a
cp "$good" dup/b
strip dup/b # other bytes, the id kept
expect_eq "strip kept the id" "$(readelf_ids dup/b)" "$good_id"
cmp -s dup/a dup/b && t_fail "strip changed nothing"
expect_exit 1 "$EBID" verify dup/a dup/b
expect_match "a" "$(printf '%s\n' "$out" | grep '  dup/a  ')" "^FAIL  dup/a  unique: same id as 'dup/b', a file with other bytes"
expect_match "b" "$(printf '%s\n' "$out" | grep '  dup/b  ')" "^FAIL  dup/b  unique: .*dup/a"
expect_exit 1 "$EBID" verify -r dup
expect_eq "-r: FAIL lines" "$(printf '%s\n' "$out" | grep -c '^FAIL .* unique: ')" 2
t_end

t_begin "the same file shipped twice (two copies, same bytes) is no collision: both PASS, unique names the twin"
mkdir -p twin
cp "$good" twin/a
cp "$good" twin/b
expect_exit 0 "$EBID" verify -v twin/a twin/b
expect_eq "lines" "$out" "PASS  twin/a  $good_id
PASS  twin/b  $good_id"
expect_match "-v names the twin" "$err" "'twin/a': pass unique: no other file has this id: 'twin/b' has the same bytes"
t_end

t_begin "hard links of one inode are not duplicates; nor is a symlink to a file also named"
mkdir -p links
cp "$good" links/a
ln links/a links/b
ln -s a links/c
expect_exit 0 "$EBID" verify links/a links/b
# The contract does not say whether a second name of one inode gets its own
# line (today it does not); what matters is that neither fails.
printf '%s\n' "$out" | grep -v "^PASS  links/[ab]  $good_id\$" | grep_q . &&
	t_fail "want only PASS lines, got: $out"
expect_exit 0 "$EBID" verify -r links
expect_exit 0 "$EBID" verify links/a links/c
t_end

t_begin "malformed (e_shoff past the end, truncated): ERROR line on stdout, one error line on stderr, exit 2"
f=$SCRATCH/in/bad-shoff
cp "$good" "$f"
python3 - "$f" <<'PY'
import struct, sys
p = sys.argv[1]
d = bytearray(open(p, 'rb').read())
struct.pack_into('<Q', d, 0x28, len(d) + 4096)
open(p, 'wb').write(d)
PY
expect_exit 2 "$EBID" verify "$f"
expect_match "verify" "$out" "^ERROR  $(qre "$f")  [^ ]"
expect_one_error_line "$f"
g=$SCRATCH/in/truncated
head -c 3000 "$good" >"$g"
expect_exit 2 "$EBID" verify "$g"
expect_match "verify truncated" "$out" "^ERROR  $(qre "$g")  [^ ]"
verify_json "$g"
expect_match "--json" "$(checks "$SCRATCH/v.json" "$g")" '^status=error'
t_end

t_begin "not ELF, a relocatable .o, a separate debug file: SKIP with a reason, exit 0"
printf '#!/bin/sh\necho hi\n' >in/script.sh
printf 'int f(void) { return 1; }\n' >in/obj.c
gcc -c -o in/obj.o in/obj.c
objcopy --only-keep-debug "$good" in/good.debug
expect_exit 0 "$EBID" verify in/script.sh in/obj.o in/good.debug
for f in in/script.sh in/obj.o in/good.debug; do
	expect_match "$f" "$(printf '%s\n' "$out" | grep -F "  $f  ")" "^SKIP  $(qre "$f")  [^ ]"
done
expect_exit 0 "$EBID" verify "$good" in/script.sh
t_end

t_begin "a missing file: ERROR, exit 2"
expect_exit 2 "$EBID" verify in/does-not-exist
expect_one_error_line in/does-not-exist
t_end

t_begin "--allow-missing=GLOB: a matching file without id is PASS (allowed missing); others still FAIL"
m1=$(copy_fixture plain "$SCRATCH/allow/legacy-tool")
m2=$(copy_fixture plain "$SCRATCH/allow/other")
expect_exit 0 "$EBID" verify --allow-missing='legacy-*' "$m1"
expect_match "verify" "$out" "^PASS  $(qre "$m1")  .*\(allowed missing\)"
expect_exit 1 "$EBID" verify --allow-missing='legacy-*' "$m1" "$m2"
expect_match "other" "$(printf '%s\n' "$out" | grep -F "  $m2  ")" "^FAIL  $(qre "$m2")  note: "
expect_exit 0 "$EBID" verify --allow-missing='legacy-*' --allow-missing='oth*' "$m1" "$m2"
verify_json --allow-missing='legacy-*' "$m1"
expect_match "--json" "$(checks "$SCRATCH/v.json" "$m1")" '^status=pass'
# Allowed to lack an id is not allowed to have a broken one.
z=$(copy_fixture reserved "$SCRATCH/allow/legacy-zero")
expect_exit 1 "$EBID" verify --allow-missing='legacy-*' "$z"
t_end

t_begin "exit codes: pass+fail 1, fail+error 2, pass+skip 0, usage 64"
expect_exit 1 "$EBID" verify "$good" "$SCRATCH/in/missing-plain"
expect_exit 2 "$EBID" verify "$SCRATCH/in/missing-plain" "$SCRATCH/in/truncated"
expect_exit 2 "$EBID" verify "$good" "$SCRATCH/in/truncated"
expect_exit 0 "$EBID" verify "$good" in/script.sh
expect_exit 64 "$EBID" verify
expect_exit 64 "$EBID" verify --no-such-option "$good"
expect_exit 64 "$EBID" verify --perf=sometimes "$good"
expect_exit 64 "$EBID" verify --junit
t_end

t_begin "-r over a mixed tree: one line per file, the worst status wins"
mkdir -p tree/bin tree/lib
cp "$good" tree/bin/good
cp "$SCRATCH/in/missing-plain" tree/bin/missing
cp in/script.sh tree/bin/
cp in/obj.o tree/lib/
expect_exit 1 "$EBID" verify -r tree
expect_eq "PASS lines" "$(printf '%s\n' "$out" | grep -c '^PASS ')" 1
expect_eq "FAIL lines" "$(printf '%s\n' "$out" | grep -c '^FAIL ')" 1
expect_eq "SKIP lines" "$(printf '%s\n' "$out" | grep -c '^SKIP ')" 2
cp "$SCRATCH/in/truncated" tree/lib/broken.so
expect_exit 2 "$EBID" verify -r tree
expect_exit 0 "$EBID" verify -r --exclude=missing --exclude='*.so' tree
t_end

t_begin "the gate never executes the binary it checks"
cat >in/marker.c <<EOF
#include <stdio.h>
int main(void) { FILE *f = fopen("$SCRATCH/in/RAN", "w"); if (f) fclose(f); return 0; }
EOF
gcc -o in/marker in/marker.c
rm -f in/RAN
# verify checks the marker (it prints a line for it) without running it.
run "$EBID" verify --content-hash --perf=require in/marker
expect_match "verify's line for the marker" "$out" "^(PASS|FAIL)  in/marker  "
expect_false "verify ran the binary (in/RAN exists)" [ -e in/RAN ]
run "$EBID" verify -r --perf=require in
expect_match "verify -r's line for the marker" "$out" "^(PASS|FAIL)  in/marker  "
expect_false "verify -r ran the binary (in/RAN exists)" [ -e in/RAN ]
# The marker itself works: running it creates the file.
in/marker
expect_true "the marker program does not create in/RAN when run" [ -e in/RAN ]
t_end

t_done
