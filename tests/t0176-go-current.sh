#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# What users get from `go build` today: the fixtures the machine's go (the
# one on PATH) builds, build/fixtures/current/ (scripts/build-fixtures.sh).
# The other fixture tests run Debian's Go 1.19, whose linker writes no GNU
# note; from Go 1.24 the linker writes one by default, derived from the Go
# build id, and no PT_NOTE covers it.
#   default, pie, sw: readelf shows a GNU id the kernel cannot see; inject
#     repairs the coverage and keeps exactly that id; the kernel then sees
#     it (tests/ebid.py, and perf's MMAP2 record for default); verify
#     passes; a second inject rewrites nothing.
#   bnone (-B=none), nobuildid (-buildid=): no GNU note; inject writes the
#     content hash, which tests/ebid.py recomputes.
#   gobuildid (-B gobuildid with a Go build id of the go command's form):
#     repaired, the linker's id kept; for placeholder (-buildid=redacted,
#     as Bazel's rules_go links) the linker's fact is checked here: two
#     different programs linked so get the same GNU id, a constant (what
#     the tool does with it is t0177's).
. "$(dirname "$0")/lib.sh"
require_tool
require_fixtures "${CURRENT_VARIANTS[@]/#/current/}"
perf_ok=1
perf_record_works || perf_ok=0

t_begin "the fixtures are the machine's go's: $(go version | awk '{ print $3 }')"
for v in "${CURRENT_VARIANTS[@]}"; do
	expect_eq "go version of current/$v" "$(go version "$FIXTURES/current/$v" | awk '{ print $2 }')" \
		"$(go version | awk '{ print $3 }')"
done
t_end

for v in default pie sw; do
	f=$(copy_fixture "current/$v" "$SCRATCH/$v")
	t_begin "$v: before inject readelf shows a GNU id, and show says the kernel does not see it"
	before=$(readelf_ids "$f")
	expect_match "readelf -n" "$before" '^[0-9a-f]{40}$'
	expect_exit 1 python3 "$EBID_PY" kernel "$f"
	run "$EBID" show "$f"
	expect_eq "exit" "$rc" 0
	expect_match "show" "$out" "gnu-build-id: $before"
	expect_match "show" "$out" 'kernel-visible: no '
	t_end

	t_begin "$v: inject says repaired and keeps exactly the id readelf showed"
	run "$EBID" inject -v "$f"
	expect_eq "exit" "$rc" 0
	if parse_id_line "$out" "$f"; then
		expect_eq "printed id" "$id" "$before"
	fi
	expect_match "stderr" "$err" "^elf-buildid: '$(re_quote "$f")': repaired \\("
	expect_eq "readelf -n after" "$(readelf_ids "$f")" "$before"
	expect_eq "eu-readelf -n after" "$(eu_readelf_ids "$f")" "$before"
	t_end

	t_begin "$v: after inject the kernel sees it (tests/ebid.py), verify passes, the program runs"
	expect_eq "ebid.py kernel" "$(py_kernel "$f")" "$before"
	expect_exit 0 "$EBID" show "$f"
	expect_match "show" "$out" 'kernel-visible: yes'
	expect_exit 0 "$EBID" verify --perf=off "$f"
	expect_eq "the program runs" "$("$f" | head -n 1)" "hello from the elf-buildid fixture"
	# --content-hash fails it (the kept id is Go's, not the file's hash),
	# and says so instead of blaming a change nobody made.
	run "$EBID" verify --perf=off --content-hash "$f"
	expect_eq "verify --content-hash exit" "$rc" 1
	expect_match "verify --content-hash" "$out" "content: id is not the file's sha1 content hash: Go's linker derived it from the Go build id '[^']+' \\(inject keeps such an id"
	t_end

	t_begin "$v: a second inject changes nothing"
	cp -p "$f" "$SCRATCH/$v.after1"
	touch -d '2001-02-03 04:05:06' "$f"
	state=$(file_state "$f")
	if inject_ok "$f"; then
		expect_eq "id" "$id" "$before"
	fi
	expect_eq "inode mtime size" "$(file_state "$f")" "$state"
	expect_same_file "bytes" "$f" "$SCRATCH/$v.after1"
	t_end
done

t_begin "default: the real kernel's MMAP2 record carries the kept id"
if [ "$perf_ok" = 1 ]; then
	expect_eq "perf MMAP2 build-id" "$(mmap2_id "$SCRATCH/default")" "$(readelf_ids "$FIXTURES/current/default")"
else
	t_skip_if "$perf_record_why"
fi
t_end

for v in bnone nobuildid; do
	t_begin "$v: no GNU note; inject writes the content hash, python recomputes it"
	f=$(copy_fixture "current/$v" "$SCRATCH/$v")
	expect_eq "readelf -n before" "$(readelf_ids "$f")" ""
	if inject_ok "$f"; then
		expect_match "id" "$id" '^[0-9a-f]{40}$'
		expect_eq "ebid.py id" "$(py_id "$f")" "$id"
		expect_eq "ebid.py kernel" "$(py_kernel "$f")" "$id"
		expect_eq "readelf -n" "$(readelf_ids "$f")" "$id"
		expect_exit 0 "$EBID" verify "$f"
	fi
	expect_eq "the program runs" "$("$f" | head -n 1)" "hello from the elf-buildid fixture"
	t_end
done

t_begin "gobuildid (-B gobuildid, a Go build id of the go command's form): repaired, the linker's id kept"
f=$(copy_fixture current/gobuildid "$SCRATCH/gobuildid")
before=$(readelf_ids "$f")
expect_match "readelf -n" "$before" '^[0-9a-f]{40}$'
expect_eq "go tool buildid" "$(go tool buildid "$f")" AAAAAAAAAAAAAAAAAAAA/BBBBBBBBBBBBBBBBBBBB
run "$EBID" inject -v "$f"
expect_eq "exit" "$rc" 0
expect_eq "output" "$out" "$before  $f"
expect_match "stderr" "$err" "': repaired \\("
expect_eq "ebid.py kernel" "$(py_kernel "$f")" "$before"
t_end

t_begin "placeholder (-buildid=redacted): two different programs get one GNU id from the linker"
# A second program, different code, linked by the same go the same way.
mkdir -p "$SCRATCH/other"
printf 'package main\n\nimport "fmt"\n\nfunc main() { fmt.Println("another program") }\n' >"$SCRATCH/other/main.go"
(cd "$SCRATCH/other" && CGO_ENABLED=0 GO111MODULE=off GOFLAGS=-trimpath \
	go build -ldflags=-buildid=redacted -o "$SCRATCH/other-placeholder" main.go) \
	>"$SCRATCH/.go.log" 2>&1 || t_fail "go build: $(head -c 1000 "$SCRATCH/.go.log")"
expect_exit 1 cmp -s "$FIXTURES/current/placeholder" "$SCRATCH/other-placeholder"
expect_eq "go tool buildid" "$(go tool buildid "$FIXTURES/current/placeholder")" redacted
expect_eq "go tool buildid (other)" "$(go tool buildid "$SCRATCH/other-placeholder")" redacted
ph=$(readelf_ids "$FIXTURES/current/placeholder")
expect_match "readelf -n" "$ph" '^[0-9a-f]{40}$'
expect_eq "readelf -n (other)" "$(readelf_ids "$SCRATCH/other-placeholder")" "$ph"
expect_eq "the other program runs" "$("$SCRATCH/other-placeholder")" "another program"
t_end

t_done
