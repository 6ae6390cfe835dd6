#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# tier: slow (the checker tests/ebid.py against readelf, eu-readelf and the kernel on hand-edited files; every fast test uses the checker, this proves it)
# The independent checker (tests/ebid.py) agrees with readelf, eu-readelf and
# the real kernel on files we edit by hand, so that later tests can rely on it.
. "$(dirname "$0")/lib.sh"
require_fixtures existing reserved plain

# Grow the PT_NOTE that covers .note.go.buildid so that it also covers the
# GNU note Go's linker put right after it (what ELF-FACTS.md says fixes it).
grow_pt_note() { # FILE BYTES
	PYTHONPATH=$(dirname "$EBID_PY") python3 - "$1" "$2" <<'PY'
import sys
from ebid import Fields, PT_NOTE
path, extra = sys.argv[1], int(sys.argv[2])
d = bytearray(open(path, 'rb').read())
h = Fields(d)
for ph in (h.phdr(i) for i in range(h.e_phnum)):
    if ph['p_type'].value == PT_NOTE:
        h.set(ph['p_filesz'], ph['p_filesz'].value + extra)
        h.set(ph['p_memsz'], ph['p_memsz'].value + extra)
        break
else:
    sys.exit('no PT_NOTE')
open(path, 'wb').write(d)
PY
}

# Fill a 20-byte GNU note's descriptor with the sha1 of the file (with the
# descriptor zero), found by its header bytes in either byte order.
fill_sha1() { # FILE
	python3 - "$1" <<'PY'
import hashlib, sys
p = sys.argv[1]
d = bytearray(open(p, 'rb').read())
le = bytes.fromhex('04000000' '14000000' '03000000') + b'GNU\0'
be = bytes.fromhex('00000004' '00000014' '00000003') + b'GNU\0'
hdr = le if d[5] == 1 else be
at = d.find(hdr)
assert at > 0 and d.find(hdr, at + 1) < 0
desc = at + len(hdr)
d[desc:desc + 20] = bytes(20)
d[desc:desc + 20] = hashlib.sha1(bytes(d)).digest()
open(p, 'wb').write(d)
PY
}

t_begin "note: ebid.py, readelf and eu-readelf read the same stored id"
got=$(py_note "$FIXTURES/existing")
expect_eq "ebid.py note" "$got" "$EXISTING_ID"
expect_eq "readelf -n" "$(readelf_ids "$FIXTURES/existing")" "$EXISTING_ID"
if have eu-readelf; then
	expect_eq "eu-readelf -n" "$(eu_readelf_ids "$FIXTURES/existing")" "$EXISTING_ID"
fi
expect_exit 2 python3 "$EBID_PY" note "$FIXTURES/plain"
t_end

t_begin "note -v: the Go linker's note section is SHT_NOTE, SHF_ALLOC, align 4"
got=$(python3 "$EBID_PY" note -v "$FIXTURES/existing" | sed -n 2p)
expect_match "note -v" "$got" '^section=[0-9]+ type=7 flags=0x2 addralign=4 '
t_end

perf_ok=1
perf_record_works || perf_ok=0

t_begin "kernel: a Go -B note outside the PT_NOTE is invisible (ebid.py and the real kernel)"
expect_exit 1 python3 "$EBID_PY" kernel "$FIXTURES/existing"
if [ "$perf_ok" = 1 ]; then
	cp "$FIXTURES/existing" ex-invisible
	expect_eq "perf MMAP2 record" "$(mmap2_id "$SCRATCH/ex-invisible")" none
else
	t_skip_if "$perf_record_why"
fi
t_end

t_begin "kernel: growing the PT_NOTE over the GNU note makes it visible (ebid.py and the real kernel)"
cp "$FIXTURES/existing" ex-visible
grow_pt_note ex-visible 36
expect_eq "ebid.py kernel" "$(py_kernel ex-visible)" "$EXISTING_ID"
if [ "$perf_ok" = 1 ]; then
	expect_eq "perf MMAP2 record" "$(mmap2_id "$SCRATCH/ex-visible")" "$EXISTING_ID"
else
	t_skip_if "$perf_record_why"
fi
t_end

t_begin "kernel: a PT_NOTE reaching past the first page is rejected (pre-6.12 rule)"
cp "$FIXTURES/existing" ex-overpage
grow_pt_note ex-overpage 44
expect_exit 1 python3 "$EBID_PY" kernel ex-overpage
t_end

t_begin "kernel: a truncated or non-ELF file gives no id"
head -c 100 "$FIXTURES/existing" >short
expect_exit 1 python3 "$EBID_PY" kernel short
echo hello >text
expect_exit 1 python3 "$EBID_PY" kernel text
t_end

# A reserved note filled by hand with the sha1 of the file (descriptor zero).
cp "$FIXTURES/reserved" filled
fill_sha1 filled

t_begin "id: a sha1 filled in by hand recomputes; one changed byte is detected"
want=$(readelf_ids filled)
expect_match "readelf id" "$want" '^[0-9a-f]{40}$'
expect_eq "ebid.py id" "$(py_id filled)" "$want"
expect_exit 1 python3 "$EBID_PY" id filled --hash=md5
cp filled flipped
printf '\001' | dd of=flipped bs=1 seek=$((0x1000 + 7)) conv=notrunc status=none
expect_exit 1 python3 "$EBID_PY" id flipped
expect_exit 2 python3 "$EBID_PY" id "$FIXTURES/plain"
t_end

t_begin "diffranges: accepts changes inside the listed ranges, rejects others"
desc_off=$(python3 "$EBID_PY" note -v filled | sed -n 's/.*desc_off=\(0x[0-9a-f]*\).*/\1/p')
printf 'filled: fill\n  id %s 20\n' "$desc_off" >plan-ok
expect_exit 0 python3 "$EBID_PY" diffranges "$FIXTURES/reserved" filled plan-ok
printf 'filled: fill\n  id 0x10 20\n' >plan-wrong
expect_exit 1 python3 "$EBID_PY" diffranges "$FIXTURES/reserved" filled plan-wrong
cp filled appended
printf 'ABCD' >>appended
size=$(stat -c %s filled)
printf 'x: add\n  id %s 20\n  append 0x%x 4 tail\n' "$desc_off" "$size" >plan-append
expect_exit 0 python3 "$EBID_PY" diffranges "$FIXTURES/reserved" appended plan-append
expect_exit 1 python3 "$EBID_PY" diffranges "$FIXTURES/reserved" appended plan-ok
printf 'x: add\n  id %s 20\n  bogus line\n' "$desc_off" >plan-bad
expect_exit 2 python3 "$EBID_PY" diffranges "$FIXTURES/reserved" filled plan-bad
t_end

t_begin "diffranges: an inserted gap moves the rest of the input behind it"
# filled with 4096 zero bytes inserted at 0x2000 (a copy judged against
# filled itself: only the gap differs).
head -c $((0x2000)) filled >gapped
head -c 4096 /dev/zero >>gapped
tail -c +$((0x2000 + 1)) filled >>gapped
ins='  insert 0x2000 4096 zero bytes (the input from there on follows them)'
printf 'x: add\n%s\n' "$ins" >plan-gap
expect_exit 0 python3 "$EBID_PY" diffranges filled gapped plan-gap
printf 'x: add\n  patch 0x0 4 e_ident\n' >plan-nogap
expect_exit 1 python3 "$EBID_PY" diffranges filled gapped plan-nogap
printf 'x: add\n%s\n' "${ins/0x2000/0x2008}" >plan-gap-off
expect_exit 1 python3 "$EBID_PY" diffranges filled gapped plan-gap-off
cp gapped gapped-dirty
printf '\001' | dd of=gapped-dirty bs=1 seek=$((0x2000 + 100)) conv=notrunc status=none
expect_exit 1 python3 "$EBID_PY" diffranges filled gapped-dirty plan-gap
t_end

# 32-bit and big-endian files: Go's `existing` cross-built (386: ELF32 LSB,
# s390x: ELF64 MSB; the two code paths are independent of each other).
cross=(existing-386 existing-s390x)
if ! build_locked fixtures "$TOP/scripts/build-fixtures.sh" "${cross[@]}" >/dev/null 2>&1; then
	t_begin "cross-built fixtures for the checker"
	t_fail "scripts/build-fixtures.sh ${cross[*]} failed"
	t_end
	cross=()
fi
for x in ${cross[@]+"${cross[@]}"}; do
	t_begin "$x ($(file -b "$FIXTURES/$x" | cut -d, -f1)): note, kernel and id agree with readelf"
	expect_eq "ebid.py note" "$(py_note "$FIXTURES/$x")" "$EXISTING_ID"
	expect_eq "readelf -n" "$(readelf_ids "$FIXTURES/$x")" "$EXISTING_ID"
	expect_exit 1 python3 "$EBID_PY" kernel "$FIXTURES/$x"
	cp "$FIXTURES/$x" "$x.visible"
	grow_pt_note "$x.visible" 36
	expect_eq "ebid.py kernel after growing the PT_NOTE" "$(py_kernel "$x.visible")" "$EXISTING_ID"
	cp "$FIXTURES/$x" "$x.filled"
	fill_sha1 "$x.filled"
	expect_eq "ebid.py id of a hand-filled sha1" "$(py_id "$x.filled")" "$(readelf_ids "$x.filled")"
	t_end
done

t_done
