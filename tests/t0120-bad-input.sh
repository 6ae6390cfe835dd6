#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# (i) Inputs that cannot be processed: a missing file, an empty file, a
# non-ELF file, truncated ELF files, and ELF files with one header field
# made wrong. Every command exits 2 with one stderr line
# "elf-buildid: 'FILE': what failed: cause", prints no result line, and
# leaves the input (and its directory) as it was.
. "$(dirname "$0")/lib.sh"
require_tool
require_fixtures plain

size=$(stat -c %s "$FIXTURES/plain")
mkdir -p inputs

# corrupt NAME FIELD-OFFSET FORMAT VALUE: plain with one header field changed.
corrupt() {
	python3 - "$FIXTURES/plain" "inputs/$1" "$2" "$3" "$4" <<'PY'
import struct, sys
src, dst, off, fmt, val = sys.argv[1:]
d = bytearray(open(src, 'rb').read())
struct.pack_into(fmt, d, int(off, 0), int(val, 0))
open(dst, 'wb').write(d)
PY
}

: >inputs/empty
printf 'just some text, not ELF\n' >inputs/text
printf '\177ELF' >inputs/magic-only
head -c 64 "$FIXTURES/plain" >inputs/trunc-ehdr
head -c 300 "$FIXTURES/plain" >inputs/trunc-phdrs
head -c 3000 "$FIXTURES/plain" >inputs/trunc-page
head -c $((size / 2)) "$FIXTURES/plain" >inputs/trunc-half
corrupt bad-class 4 B 3
corrupt bad-data 5 B 7
corrupt shoff-past-end 0x28 '<Q' $((size + 4096))
corrupt phoff-past-end 0x20 '<Q' $((size + 4096))
corrupt shstrndx-out-of-range 0x3e '<H' 200
corrupt shnum-too-big 0x3c '<H' 5000
corrupt phentsize-wrong 0x36 '<H' 13
# .shstrtab's sh_offset (section 3 on Go 1.19, 64-byte headers at e_shoff):
shoff=$(python3 -c 'import struct,sys; print(struct.unpack_from("<Q", open(sys.argv[1],"rb").read(), 0x28)[0])' "$FIXTURES/plain")
shstrndx=$(python3 -c 'import struct,sys; print(struct.unpack_from("<H", open(sys.argv[1],"rb").read(), 0x3e)[0])' "$FIXTURES/plain")
corrupt shstrtab-past-end $((shoff + 64 * shstrndx + 0x18)) '<Q' $((size + 100))

# check_bad COMMAND FILE: exit 2, one error line, input unchanged.
check_bad() {
	local cmd=$1 f=$2 dir state
	dir=$(dirname "$f")
	state=
	[ -e "$f" ] && state=$(file_state "$f") && cp -p "$f" "$SCRATCH/.saved"
	local listing
	listing=$(ls -A "$dir")
	expect_exit 2 "$EBID" "$cmd" "$f"
	expect_one_error_line "$f"
	if [ "$cmd" = verify ]; then
		# verify also reports the file on stdout, as one ERROR line.
		expect_match "stdout" "$out" "^ERROR  $(re_quote "$f")  [^ ]"
		expect_eq "stdout lines" "$(printf '%s\n' "$out" | wc -l)" 1
	else
		expect_eq "stdout" "$out" ""
	fi
	if [ -n "$state" ]; then
		expect_eq "inode mtime size" "$(file_state "$f")" "$state"
		expect_same_file "bytes" "$f" "$SCRATCH/.saved"
	else
		[ -e "$f" ] && t_fail "$f was created"
	fi
	expect_eq "directory listing" "$(ls -A "$dir")" "$listing"
}

names=(missing empty text magic-only trunc-ehdr trunc-phdrs trunc-page
	trunc-half bad-class bad-data shoff-past-end phoff-past-end
	shstrndx-out-of-range shnum-too-big phentsize-wrong shstrtab-past-end)
for name in "${names[@]}"; do
	t_begin "$name: inject exits 2 with one error line, input untouched"
	check_bad inject "$SCRATCH/inputs/$name"
	t_end
done

for name in missing empty text trunc-page; do
	for cmd in reserve backfill show verify; do
		case $cmd:$name in
		verify:empty | verify:text) continue ;;
		esac
		t_begin "$name: $cmd exits 2 with one error line, input untouched"
		check_bad "$cmd" "$SCRATCH/inputs/$name"
		t_end
	done
done

# The gate skips what is not ELF (a script or README next to the binaries
# of a release must not fail it); it still names the file and says why.
for name in empty text; do
	t_begin "$name: verify reports SKIP with a reason, exit 0, input untouched"
	f=$SCRATCH/inputs/$name
	state=$(file_state "$f")
	expect_exit 0 "$EBID" verify "$f"
	expect_match "stdout" "$out" "^SKIP  $f  not an ELF file"
	expect_eq "inode mtime size" "$(file_state "$f")" "$state"
	t_end
done

t_begin "-o to a file when the input is bad: exit 2, no output created"
expect_exit 2 "$EBID" inject -o "$SCRATCH/out" "$SCRATCH/inputs/text"
expect_one_error_line "$SCRATCH/inputs/text"
[ -e "$SCRATCH/out" ] && t_fail "-o output was created"
t_end

# An empty name is no file; it must not turn into the current directory.
for cmd in inject verify show link; do
	t_begin "an empty FILE name: $cmd exits 2 with 'No such file or directory'"
	if [ "$cmd" = link ]; then
		expect_exit 2 "$EBID" link --debug-dir="$SCRATCH/dbg" ""
	else
		expect_exit 2 "$EBID" "$cmd" ""
	fi
	expect_match "stderr" "$err" "^elf-buildid: '': $cmd: cannot open: No such file or directory\$"
	t_end
done

t_begin "a refused link leaves no debug directory it made; one it placed into stays"
echo text >"$SCRATCH/notelf"
rm -rf "$SCRATCH/made" "$SCRATCH/keep"
mkdir -p "$SCRATCH/keep"
expect_exit 2 "$EBID" link --debug-dir="$SCRATCH/made/a/b" "$SCRATCH/notelf"
expect_false "the directories it made are gone" [ -e "$SCRATCH/made" ]
expect_exit 2 "$EBID" link --debug-dir="$SCRATCH/keep/x" "$SCRATCH/notelf"
expect_eq "what was there stays, what it made goes" "$(ls -A "$SCRATCH/keep")" ""
cp "$FIXTURES/plain" "$SCRATCH/prog" && "$EBID" inject -q "$SCRATCH/prog"
expect_exit 2 "$EBID" link --debug-dir="$SCRATCH/made" "$SCRATCH/prog" "$SCRATCH/notelf"
expect_true "a run that placed a file keeps its directory" [ -d "$SCRATCH/made/.build-id" ]
t_end

t_done
