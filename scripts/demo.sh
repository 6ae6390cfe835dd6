#!/usr/bin/env bash
# make demo: the main job end to end on the sample Go program. Builds
# fixtures/hello without a GNU build-id, injects one, then shows three
# readers agreeing on it: readelf (the section), perf buildid-list (what
# perf uses) and the kernel (perf record --buildid-mmap's MMAP2 record).
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

step "Build the sample Go program (Go's internal linker, no GNU build-id)"
(cd "$top/fixtures/hello" && run go build -trimpath -o "$demo/hello" .)
printf '$ readelf -n %s\n' "$demo/hello"
readelf -n "$demo/hello" | grep -E 'Displaying|Owner|GO BUILDID|NT_GNU'

step "Inject a build-id: hash the file with the note zeroed, backfill it"
run "$tool" inject "$demo/hello"
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
	kernel_line=$(perf script -i "$demo/perf.data" --show-mmap-events 2>/dev/null |
		grep 'MMAP2' | grep -F "$demo/hello" | head -n 1 || true)
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
