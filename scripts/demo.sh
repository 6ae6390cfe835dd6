#!/usr/bin/env bash
# make demo: the main job end to end on the sample Go program, built by the
# machine's Go. Since Go 1.24 the linker writes a GNU build-id derived from
# the Go build id, which no PT_NOTE covers: the kernel cannot see it (the
# MMAP2 record of a perf record before inject shows none). inject makes it
# kernel-visible (repaired, the same id), then three readers agree on it:
# readelf (the section), perf buildid-list (what perf uses) and the kernel
# (perf record --buildid-mmap's MMAP2 record). Last, the same program
# linked as Bazel's rules_go links (-buildid=redacted): its GNU id is the
# one every program linked that way carries, and inject replaces it with
# the content hash. (With Go before 1.24 there is no GNU note at all, and
# inject adds one.)
set -euo pipefail

top=$(cd "$(dirname "$0")/.." && pwd)
build=${EBID_BUILD:-build}
tool=$top/$build/elf-buildid
demo=$top/build/demo
rm -rf "$demo"
mkdir -p "$demo/home"
export GOCACHE=$top/build/go/cache GOPATH=$top/build/go/path GOFLAGS= \
	GOTOOLCHAIN=local CGO_ENABLED=0 HOME=$demo/home LC_ALL=C

step() { printf '\n== %s\n' "$*"; }
run() { printf '$ %s\n' "$*"; "$@"; }

# mmap2_id FILE DATA: the id the kernel gave FILE's MMAP2 record in DATA
# (perf prints <hex>, or device and inode numbers when it has none).
mmap2_line() {
	perf script -i "$2" --show-mmap-events 2>/dev/null | grep 'MMAP2' |
		grep -F "$1" | head -n 1 || true
}

step "Build the sample Go program with the machine's Go ($(go version | cut -d' ' -f3))"
(cd "$top/fixtures/hello" && run go build -trimpath -o "$demo/hello" .)
printf '$ readelf -n %s\n' "$demo/hello"
readelf -n "$demo/hello" | grep -E 'Displaying|Owner|GO BUILDID|NT_GNU|Build ID' || true
run "$tool" show "$demo/hello"
before_line=
if perf record -q --buildid-mmap -o "$demo/before.data" -- "$demo/hello" \
	>"$demo/record.out" 2>&1; then
	before_line=$(mmap2_line "$demo/hello" "$demo/before.data")
	printf 'The kernel before inject (MMAP2 record of the binary):\n%s\n' \
		"${before_line:-"(no MMAP2 record for the binary)"}"
fi

step "Inject: make the id kernel-visible (or add one: hash the file with the note zeroed, backfill it)"
run "$tool" inject -v "$demo/hello"
id=$("$tool" show "$demo/hello" | sed -n 's/^  gnu-build-id: //p')

step "1. The section, as readelf and file see it"
printf '$ readelf -n %s\n' "$demo/hello"
readelf -n "$demo/hello" | grep -B1 -A1 'NT_GNU_BUILD_ID'
run file "$demo/hello"

step "2. perf buildid-list -i (what perf report and perf buildid-cache use)"
perf_id=$(perf buildid-list -i "$demo/hello")
printf '$ perf buildid-list -i %s\n%s\n' "$demo/hello" "$perf_id"

step "3. The kernel: perf record --buildid-mmap, MMAP2 record of the binary"
kernel_line=
if perf record -q --buildid-mmap -o "$demo/perf.data" -- "$demo/hello" \
	>"$demo/record.out" 2>&1; then
	kernel_line=$(mmap2_line "$demo/hello" "$demo/perf.data")
	printf '%s\n' "${kernel_line:-"(no MMAP2 record for the binary)"}"
else
	echo "perf record failed (kernel.perf_event_paranoid? run as root):"
	cat "$demo/record.out"
fi

step "The program still runs, unchanged"
run "$demo/hello"

step "Verdict"
kernel_id=$(printf '%s\n' "$kernel_line" | sed -n 's/.*<\([0-9a-f]*\)>.*/\1/p')
printf 'readelf/show : %s\nperf         : %s\nkernel MMAP2 : %s\n' \
	"$id" "$perf_id" "${kernel_id:-none}"
if [ -n "$id" ] && [ "$id" = "$perf_id" ] && [ "$id" = "$kernel_id" ]; then
	echo "All three agree."
	run "$tool" verify "$demo/hello"
else
	echo "The readers disagree: this is a bug." >&2
	exit 1
fi

step "A placeholder Go build id, as Bazel's rules_go links: one GNU id for every program"
(cd "$top/fixtures/hello" &&
	run go build -trimpath -ldflags=-buildid=redacted -o "$demo/hello-bazel" .)
run "$tool" show "$demo/hello-bazel"
run "$tool" verify --perf=off "$demo/hello-bazel" || true
run "$tool" inject -v "$demo/hello-bazel"
run "$tool" verify "$demo/hello-bazel"
