#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# (k) verify fails (exit 1, "FAIL  FILE  CHECK: detail") on every fixture
# as the linker left it, and passes (exit 0, "PASS  FILE  ID") after inject,
# with every --perf mode. It also fails on an injected file whose PT_NOTE was
# taken away or whose id was zeroed by hand.
. "$(dirname "$0")/lib.sh"
require_tool
require_fixtures "${VARIANTS[@]}"

fail_re() { # FILE: the FAIL line's form for FILE
	printf '^FAIL  %s  [a-z][a-z0-9 _-]*: [^ ].*$' "$(re_quote "$1")"
}

for v in "${VARIANTS[@]}"; do
	f=$(copy_fixture "$v")
	t_begin "$v: verify before inject exits 1 with one FAIL line, file untouched"
	state=$(file_state "$f")
	expect_exit 1 "$EBID" verify "$f"
	expect_match "verify" "$out" "$(fail_re "$f")"
	expect_eq "lines" "$(printf '%s\n' "$out" | wc -l)" 1
	expect_eq "inode mtime size" "$(file_state "$f")" "$state"
	t_end

	t_begin "$v: verify after inject exits 0 with 'PASS  FILE  ID'"
	if inject_ok "$f"; then
		want=$id
		for mode in "" --perf=auto --perf=require --perf=off; do
			have perf || [ "$mode" != --perf=require ] || continue
			expect_exit 0 "$EBID" verify ${mode:+"$mode"} "$f"
			expect_eq "verify $mode" "$out" "PASS  $f  $want"
		done
	fi
	t_end
done

# An injected file, with one thing broken by hand.
f=$(copy_fixture plain "$SCRATCH/broken/base")
run "$EBID" inject "$f"

t_begin "plain: verify fails when the PT_NOTE over the note is made PT_NULL"
g=$SCRATCH/broken/no-pt-note
cp "$f" "$g"
python3 - "$g" <<'PY'
import struct, sys
p = sys.argv[1]
d = bytearray(open(p, 'rb').read())
phoff, = struct.unpack_from('<Q', d, 32)
phnum, = struct.unpack_from('<H', d, 56)
for i in range(phnum):
    if struct.unpack_from('<I', d, phoff + 56 * i)[0] == 4:
        struct.pack_into('<I', d, phoff + 56 * i, 0)
open(p, 'wb').write(d)
PY
expect_exit 1 python3 "$EBID_PY" kernel "$g"
expect_exit 1 "$EBID" verify --perf=off "$g"
expect_match "verify" "$out" "$(fail_re "$g")"
t_end

t_begin "plain: verify fails when the id is zeroed by hand"
g=$SCRATCH/broken/zero-id
cp "$f" "$g"
python3 - "$g" "$(python3 "$EBID_PY" note -v "$f" | sed -n 's/.*desc_off=\(0x[0-9a-f]*\).*/\1/p')" <<'PY'
import sys
p, off = sys.argv[1], int(sys.argv[2], 16)
d = bytearray(open(p, 'rb').read())
d[off:off + 20] = bytes(20)
open(p, 'wb').write(d)
PY
expect_eq "ebid.py note" "$(py_note "$g")" "$ZERO_ID"
expect_exit 1 "$EBID" verify --perf=off "$g"
expect_match "verify" "$out" "$(fail_re "$g")"
t_end

t_begin "plain: verify fails when the section is renamed (perf and file lose the id)"
g=$SCRATCH/broken/renamed
cp "$f" "$g"
python3 - "$g" <<'PY'
import sys
p = sys.argv[1]
d = bytearray(open(p, 'rb').read())
i = d.find(b'.note.gnu.build-id\0')
assert i > 0
d[i:i + 19] = b'.note.gnu.build-iX\0'
open(p, 'wb').write(d)
PY
expect_exit 1 "$EBID" verify "$g"
expect_match "verify" "$out" "$(fail_re "$g")"
t_end

t_done
