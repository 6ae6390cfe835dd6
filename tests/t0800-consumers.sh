#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# tier: slow (every consumer over every kind of shape)
# after: t0300-matrix-build-a t0301-matrix-build-b
# (issue 12) The consumers of the id agree on it. For each shape below, a
# copy is injected, then every consumer must report the id inject printed:
# readelf -n, eu-readelf -n, eu-unstrip -n (libdwfl, as debuginfod), gdb,
# file, perf buildid-list, the kernel's MMAP2 record (native shapes), the
# rules of consumers that cannot run here as tests/consumers/readers.c
# applies them (google/pprof, Parca's agent, libdwfl, Go's runtime/pprof,
# the OpenTelemetry eBPF profiler), and, for the fixtures/selfprof builds,
# runtime/pprof itself: the program profiles itself and `go tool pprof -raw`
# must show the id in its own mapping.
#
# A consumer that is expected not to find the id on a shape is listed in
# expected() with its reason, and the reason is checked too; anything else
# that is not the injected id fails. What each consumer saw before inject
# is recorded as well. Results go to results.tsv in the scratch directory
# and to build/consumers/results.tsv; the last block renders docs/consumers.md
# from them (scripts/consumers-doc) and compares it with the committed one.
. "$(dirname "$0")/lib.sh"
require_tool
require_deps base kit matrix
. "$TOP/tests/matrix-lib.sh"

# NAME ORIGIN RUN: ORIGIN is matrix (build/matrix/NAME) or selfprof (built
# here from fixtures/selfprof); RUN is exe (run natively), lib (loaded by
# build/matrix/loader), or qemu-ARCH (a foreign program, run with qemu-user).
SHAPES=(
	"go-amd64 matrix exe"
	"go-amd64-bid matrix exe"
	"go-amd64-pie matrix exe"
	"go-amd64-cgo-external matrix exe"
	"go-arm matrix qemu-arm"
	"go-arm64 matrix qemu-aarch64"
	"go-ppc64 matrix qemu-ppc64"
	"go-s390x matrix qemu-s390x"
	"go-mips matrix qemu-mips"
	"c-gcc-bfd-pie-bzero matrix exe"
	"c-gcc-bfd-pie-buildid matrix exe"
	"c-gcc-bfd-shlib-buildid matrix lib"
	"c-gcc-mold-pie-bzero matrix exe"
	"many-gcc-lld-pie-buildid matrix exe"
	"go-amd64-cshared-bzero matrix lib"
	"selfprof-amd64 selfprof exe"
	"selfprof-amd64-pie selfprof exe"
	"selfprof-amd64-cgo selfprof exe"
	"selfprof-arm64 selfprof qemu-aarch64"
	"selfprof-s390x selfprof qemu-s390x"
)
# The consumers, in the order of the TSV and of docs/consumers.md.
CONSUMERS=(kernel readelf eu-readelf eu-unstrip gdb file perf
	pprof parca libdwfl runtime-pprof otel runtime-pprof-e2e)

# Shapes whose first PT_NOTE holds only the GNU linker's .note.gnu.property
# (8-byte aligned, so GNU ld gives it a PT_NOTE of its own and places it
# first): a reader of the first PT_NOTE only finds no id there.
PROPERTY_FIRST=(go-amd64-cgo-external c-gcc-bfd-pie-bzero c-gcc-bfd-pie-buildid
	selfprof-amd64-cgo)
WHY_PROPERTY="the first PT_NOTE holds only .note.gnu.property (GNU ld puts the 8-byte aligned property note in a PT_NOTE of its own, before the one with the id), and Parca's agent reads the first PT_NOTE only"
# Shapes where elf-buildid's own PT_NOTE for the id would come after the
# linker's: none. On mips the 24-byte .MIPS.abiflags lies between the note
# inject writes and .note.go.buildid, so inject adds a PT_NOTE; it puts it
# before Go's (src/plan/emit.c, order_new_pt), and the check below that go-mips's
# first PT_NOTE is not .note.go.buildid alone holds that in place.
SECOND_PTNOTE=()
WHY_SECOND_PTNOTE="elf-buildid gives the id a PT_NOTE of its own, listed after the Go linker's PT_NOTE for .note.go.buildid (.MIPS.abiflags lies between the two notes), and Parca's agent reads the first PT_NOTE only"
# mold puts every note in one PT_NOTE with p_align 8, though only
# .note.gnu.property is 8-byte aligned: google/pprof walks it at 8-byte
# steps, misreads the note after the build-id and gives up with an error.
MOLD=(c-gcc-mold-pie-bzero)
WHY_MOLD="mold covers the 8-byte aligned .note.gnu.property and the 4-byte aligned notes with one PT_NOTE whose p_align is 8; google/pprof pads every note in it to 8 bytes, lands inside .note.ABI-tag and fails on the whole file (as before inject)"
# Section headers past 65279: e_shnum is 0 and the count is in section 0.
XNUM=(many-gcc-lld-pie-buildid)
WHY_XNUM="more than 65279 sections: e_shnum is 0 (the count is in section 0), and runtime/pprof reads e_shnum section headers only, so none"
WHY_XNUM_PERF="more than 65279 sections: e_shstrndx is SHN_XINDEX (the index is in section 0), and perf's elf_section_by_name() looks the names up in section e_shstrndx as is, so it finds no .note.gnu.build-id"
WHY_OTEL_CLASS="pfelf opens only ELF64 little-endian files (the profiler runs on amd64 and arm64 hosts)"
WHY_KERNEL_FOREIGN="a foreign program runs under qemu-user, which maps it without PROT_EXEC: perf records no MMAP2 for it (the test checks that none names it)"
WHY_E2E="not a program that writes its own profile (the runtime-pprof row applies the same rule to the file)"

in_list() { # WORD LIST...
	local w=$1
	shift
	printf '%s\n' "$@" | grep -qxF -- "$w"
}

# expected CONSUMER SHAPE RUN: what the consumer must report after inject,
# "match" or "RESULT<TAB>REASON".
expected() {
	local c=$1 s=$2 run=$3
	case "$c" in
	kernel)
		case "$run" in qemu-*) printf 'n/a\t%s\n' "$WHY_KERNEL_FOREIGN" && return ;; esac ;;
	parca)
		in_list "$s" "${PROPERTY_FIRST[@]}" && printf 'none\t%s\n' "$WHY_PROPERTY" && return
		in_list "$s" "${SECOND_PTNOTE[@]}" && printf 'none\t%s\n' "$WHY_SECOND_PTNOTE" && return ;;
	pprof)
		in_list "$s" "${MOLD[@]}" && printf 'error\t%s\n' "$WHY_MOLD" && return ;;
	runtime-pprof)
		in_list "$s" "${XNUM[@]}" && printf 'none\t%s\n' "$WHY_XNUM" && return ;;
	perf)
		in_list "$s" "${XNUM[@]}" && printf 'none\t%s\n' "$WHY_XNUM_PERF" && return ;;
	otel)
		case "$s" in go-arm | go-ppc64 | go-s390x | go-mips | selfprof-s390x)
			printf 'n/a\t%s\n' "$WHY_OTEL_CLASS" && return ;;
		esac ;;
	runtime-pprof-e2e)
		case "$s" in selfprof-*) ;; *) printf 'n/a\t%s\n' "$WHY_E2E" && return ;; esac ;;
	esac
	echo match
}

READERS=$SCRATCH/readers
declare -A reader_mode=([pprof]=pprof [parca]=first-ptnote
	[libdwfl]=sections-first [runtime-pprof]=runtime-pprof [otel]=otel)

# kernel_id FILE CMD...: the id the kernel put in the MMAP2 record of FILE's
# executable mapping while CMD ran under perf record --buildid-mmap; "none"
# when the record has device and inode numbers instead, nothing when no
# record names FILE (lib.sh's mmap2_id, for a file that is not argv[0]).
kernel_id() {
	local file=$1 data=$SCRATCH/.perf.data line
	shift
	perf_rec "$data" "$@" || {
		echo "error:perf record failed: $(head -n 1 "$SCRATCH/.perf.out")"
		return 0
	}
	line=$(perf script -i "$data" --show-mmap-events 2>/dev/null |
		grep 'PERF_RECORD_MMAP2' |
		awk -v tail="r-xp $file" 'substr($0, length($0) - length(tail) + 1) == tail' |
		head -n 1)
	if [ -z "$line" ]; then
		echo "error:no MMAP2 record names the file"
	elif [[ "$line" =~ \<([0-9a-f]+)\> ]]; then
		echo "id:${BASH_REMATCH[1]}"
	else
		echo none
	fi
}

# ids_to_raw: lines of ids on stdin to "id:HEX", "none" or "ids:A B".
ids_to_raw() {
	local ids n
	ids=$(grep -E '^[0-9a-f]+$' | sort -u)
	n=$(printf '%s' "$ids" | grep -c . || true)
	case "$n" in
	0) echo none ;;
	1) echo "id:$ids" ;;
	*) echo "ids:$(printf '%s' "$ids" | tr '\n' ' ')" ;;
	esac
}

# raw CONSUMER FILE RUN: what CONSUMER reports for FILE: "id:HEX", "none",
# "ids:HEX HEX..." (several), "error:TEXT", "na:TEXT" or "skip:TEXT" (this
# machine cannot measure it). Never names FILE's directory.
raw() {
	local c=$1 f=$2 run=$3 out rc prof args
	case "$c" in
	kernel)
		case "$run" in
		qemu-*)
			# Measured, not assumed: no record may name the program.
			if [ "$perf_ok" != 1 ]; then
				echo "skip:$perf_record_why"
				return 0
			fi
			args=()
			[[ "$(basename "$f")" == selfprof-* ]] && args=("$f.kernel.prof" 50)
			out=$(kernel_id "$f" "$run" "$f" ${args[@]+"${args[@]}"})
			case "$out" in
			"error:no MMAP2 record names the file") echo "na:$WHY_KERNEL_FOREIGN" ;;
			*) echo "$out" ;;
			esac ;;
		*) if [ "$perf_ok" != 1 ]; then
			echo "skip:$perf_record_why"
		elif [ "$run" = lib ]; then
			kernel_id "$f" "$TOP/build/matrix/loader" "$f"
		elif [[ "$(basename "$f")" == selfprof-* ]]; then
			kernel_id "$f" "$f" "$f.kernel.prof" 50
		else
			kernel_id "$f" "$f"
		fi ;;
		esac ;;
	readelf) readelf -n -- "$f" 2>/dev/null | awk '/Build ID:/ { print $3 }' | ids_to_raw ;;
	eu-readelf) eu-readelf -n -- "$f" 2>/dev/null | awk '/Build ID:/ { print $3 }' | ids_to_raw ;;
	eu-unstrip)
		# START+SIZE ID@ADDR FILE ...; the id is "-" when there is none.
		eu-unstrip -n -e "$f" 2>/dev/null | awk '{ sub(/@.*/, "", $2); print $2 }' | ids_to_raw ;;
	gdb)
		out=$(gdb -nx -batch -ex 'python print(gdb.objfiles()[0].build_id)' "$f" 2>/dev/null)
		case "$out" in
		*None) echo none ;;
		*) printf '%s\n' "$out" | tail -n 1 | ids_to_raw ;;
		esac ;;
	file) file_id "$f" | ids_to_raw ;;
	perf) perf buildid-list -i "$f" 2>/dev/null | ids_to_raw ;;
	pprof | parca | libdwfl | runtime-pprof | otel)
		out=$("$READERS" "${reader_mode[$c]}" "$f" 2>"$SCRATCH/.readers.err")
		rc=$?
		case "$rc" in
		0) echo "id:$out" ;;
		1) echo none ;;
		2) echo "error:$(sed "s|'[^']*'|FILE|" "$SCRATCH/.readers.err")" ;;
		3) echo "na:$(sed "s|.*': ||" "$SCRATCH/.readers.err")" ;;
		*) echo "error:readers exited $rc: $(cat "$SCRATCH/.readers.err")" ;;
		esac ;;
	runtime-pprof-e2e)
		case "$(basename "$f")" in
		selfprof-*) ;;
		*) echo "na:$WHY_E2E" && return 0 ;;
		esac
		prof=$f.prof
		rm -f "$prof"
		case "$run" in
		qemu-*) out=$("$run" "$f" "$prof" 200 2>&1) ;;
		*) out=$("$f" "$prof" 200 2>&1) ;;
		esac || {
			echo "error:the program failed: $out"
			return 0
		}
		# Mappings: "N: START/LIMIT/OFFSET FILE [BUILDID] [FLAGS]".
		out=$(go tool pprof -raw "$prof" 2>/dev/null |
			awk -v f="$f" '/^Mappings/ { m = 1; next }
				m && $3 == f { print ($4 ~ /^\[/ || $4 == "") ? "-" : $4; exit }')
		case "$out" in
		'') echo "error:no mapping of the program in the profile" ;;
		-) echo none ;;
		*) echo "id:$out" ;;
		esac ;;
	esac
	return 0
}

# classify RAW ID: the result the TSV and the checks use: "match", "none",
# "other", "several", "error", "n/a" or "skip", a tab, and the detail.
classify() {
	local r=$1 want=$2
	case "$r" in
	"id:$want") [ -n "$want" ] && printf 'match\t\n' || printf 'other\t%s\n' "${r#id:}" ;;
	id:*)
		if [[ "${r#id:}" =~ ^0+$ ]]; then
			printf 'other\tthe all-zero id a linker reserved\n'
		else
			printf 'other\tanother id (%s bytes)\n' "$(($(printf '%s' "${r#id:}" | wc -c) / 2))"
		fi ;;
	none) printf 'none\t\n' ;;
	ids:*) printf 'several\t%s ids\n' "$(wc -w <<<"${r#ids:}")" ;;
	error:*) printf 'error\t%s\n' "${r#error:}" ;;
	na:*) printf 'n/a\t%s\n' "${r#na:}" ;;
	skip:*) printf 'skip\t%s\n' "${r#skip:}" ;;
	*) printf 'error\tunparsed: %s\n' "$r" ;;
	esac
}

# first_ptnote_is SECTION FILE: the first PT_NOTE covers SECTION and nothing
# else (same offset, same size).
first_ptnote_is() {
	local ph sh ph_off ph_size sh_off sh_size
	ph=$(readelf -lW -- "$2" 2>/dev/null | awk '$1 == "NOTE" { print $2, $5; exit }')
	sh=$(readelf -SW -- "$2" 2>/dev/null | sed 's/^ *\[ *[0-9]*\] *//' |
		awk -v s="$1" '$1 == s { print "0x" $4, "0x" $5; exit }')
	[ -n "$ph" ] && [ -n "$sh" ] || return 1
	read -r ph_off ph_size <<<"$ph"
	read -r sh_off sh_size <<<"$sh"
	[ $((ph_off)) = $((sh_off)) ] && [ $((ph_size)) = $((sh_size)) ]
}

perf_ok=1
perf_record_works || perf_ok=0

names=()
for s in "${SHAPES[@]}"; do
	read -r name origin _ <<<"$s"
	[ "$origin" = matrix ] && names+=("$name")
done
matrix_build "${names[@]}"

t_begin "tests/consumers/readers.c compiles with the project's warnings, as errors"
expect_exit 0 "${CC:-cc}" -std=c17 -O2 -Wall -Wextra -Wshadow -Wformat=2 \
	-Wstrict-prototypes -Wmissing-prototypes -Wpointer-arith -Wwrite-strings \
	-Wvla -Wimplicit-fallthrough -Werror -o "$READERS" "$TOP/tests/consumers/readers.c"
t_end

t_begin "readers: usage, a file that is not ELF, and a missing file give their exit codes"
printf 'not an ELF file\n' >"$SCRATCH/not-elf"
expect_exit 64 "$READERS" pprof
expect_exit 64 "$READERS" no-such-mode "$SCRATCH/not-elf"
expect_exit 3 "$READERS" pprof "$SCRATCH/not-elf"
expect_exit 66 "$READERS" pprof "$SCRATCH/no-such-file"
t_end

# The selfprof shapes: GOFLAGS=-trimpath, as scripts/build-fixtures.sh.
sp_build() { # NAME ENV... -- GO-BUILD-ARGS...
	local name=$1 envs=()
	shift
	while [ "$1" != -- ]; do envs+=("$1"); shift; done
	shift
	(cd "$TOP/fixtures/selfprof" && env GOFLAGS=-trimpath "${envs[@]}" \
		go build "$@" -o "$SCRATCH/orig/$name" .)
}
mkdir -p "$SCRATCH/orig" "$SCRATCH/shapes"
t_begin "fixtures/selfprof builds: amd64 internal, PIE, cgo (external), arm64, s390x"
expect_exit 0 sp_build selfprof-amd64 CGO_ENABLED=0 GOARCH=amd64 --
expect_exit 0 sp_build selfprof-amd64-pie CGO_ENABLED=0 GOARCH=amd64 -- -buildmode=pie
expect_exit 0 sp_build selfprof-amd64-cgo CGO_ENABLED=1 GOARCH=amd64 -- -tags selfprof_cgo
expect_exit 0 sp_build selfprof-arm64 CGO_ENABLED=0 GOARCH=arm64 --
expect_exit 0 sp_build selfprof-s390x CGO_ENABLED=0 GOARCH=s390x --
# The cgo build must really be linked by gcc: its own --build-id note.
expect_match "cgo build linked externally" \
	"$(readelf -p .comment "$SCRATCH/orig/selfprof-amd64-cgo" 2>/dev/null)" 'GCC'
t_end

TSV=$SCRATCH/results.tsv
declare -A injected_of=()
printf 'consumer\tshape\tphase\tresult\tdetail\n' >"$TSV"
skipped=()

for s in "${SHAPES[@]}"; do
	read -r name origin run <<<"$s"
	f=$SCRATCH/shapes/$name
	if [ "$origin" = matrix ]; then
		src=$TOP/build/matrix/$name
	else
		src=$SCRATCH/orig/$name
	fi
	rm -f "$f" "$f.prof"
	cp -- "$src" "$f" 2>/dev/null && chmod u+w "$f"

	declare -A before=() after=()
	for c in "${CONSUMERS[@]}"; do
		before[$c]=$(raw "$c" "$f" "$run")
	done

	t_begin "$name: inject"
	inject_ok "$f"
	t_end
	injected=$id
	[ -n "$injected" ] || continue
	injected_of[$name]=$injected

	for c in "${CONSUMERS[@]}"; do
		after[$c]=$(raw "$c" "$f" "$run")
	done

	# Before inject: every consumer gave an answer, recorded; when inject
	# gave the file a new id, none of them can have reported it already.
	t_begin "$name: before inject, what each consumer reports is recorded"
	fresh=1
	[ "${before[readelf]}" = "id:$injected" ] && fresh=0
	for c in "${CONSUMERS[@]}"; do
		IFS=$'\t' read -r res detail < <(classify "${before[$c]}" "$injected")
		printf '%s\t%s\tbefore\t%s\t%s\n' "$c" "$name" "$res" "$detail" >>"$TSV"
		expect_ne "$c: a result" "$res" ""
		if [ "$fresh" = 1 ]; then
			expect_ne "$c: the id inject gives, before inject" "$res" match
		fi
	done
	t_end

	t_begin "$name: after inject, every consumer reports the id inject printed, or its listed miss"
	shape_skip=
	for c in "${CONSUMERS[@]}"; do
		IFS=$'\t' read -r res detail < <(classify "${after[$c]}" "$injected")
		IFS=$'\t' read -r want why < <(expected "$c" "$name" "$run")
		if [ "$res" = skip ]; then
			skipped+=("$name/$c: $detail")
			shape_skip="$c: $detail"
			printf '%s\t%s\tafter\t%s\t%s\n' "$c" "$name" skip "$detail" >>"$TSV"
			continue
		fi
		if [ "$res" != match ] && [ "$res" = "$want" ]; then
			detail=$why
		fi
		printf '%s\t%s\tafter\t%s\t%s\n' "$c" "$name" "$res" "$detail" >>"$TSV"
		expect_eq "$c (${after[$c]})" "$res" "$want"
	done
	# The reasons given for a first-PT_NOTE reader's miss hold, and only
	# where they are given.
	if in_list "$name" "${PROPERTY_FIRST[@]}"; then
		expect_true "$name: the first PT_NOTE is not .note.gnu.property alone, the reason given for parca's miss" \
			first_ptnote_is .note.gnu.property "$f"
	else
		expect_false "$name: the first PT_NOTE is .note.gnu.property alone, but the shape is not in PROPERTY_FIRST" \
			first_ptnote_is .note.gnu.property "$f"
	fi
	if in_list "$name" "${SECOND_PTNOTE[@]}"; then
		expect_true "$name: the first PT_NOTE is not .note.go.buildid alone, the reason given for parca's miss" \
			first_ptnote_is .note.go.buildid "$f"
	else
		expect_false "$name: the first PT_NOTE is .note.go.buildid alone, but the shape is not in SECOND_PTNOTE" \
			first_ptnote_is .note.go.buildid "$f"
	fi
	# A consumer this machine cannot run makes the block a skip, never a pass.
	[ -n "$shape_skip" ] && t_skip_if "$shape_skip"
	t_end
	unset before after
done

# Two GNU build-id notes: go-amd64 as injected, with its Go build-id note
# (name "Go", type 4, in .note.go.buildid, the section before
# .note.gnu.build-id and the second note of the same PT_NOTE) turned into a
# GNU build-id note. Which of the two a consumer reports shows its rule:
# the order it reads sections or PT_NOTEs in, first or last wins, or an error.
# "match": the id inject wrote; "other": the turned note's descriptor.
expected_two() {
	case "$1" in
	kernel) printf 'match\t%s\n' "the first GNU build-id note of the first PT_NOTE is inject's (and the other's 83-byte descriptor is over the kernel's 20)" ;;
	readelf | eu-readelf) printf 'several\t%s\n' "prints every note of the SHT_NOTE sections" ;;
	eu-unstrip | libdwfl | runtime-pprof) printf 'other\t%s\n' "the first SHT_NOTE section in index order is .note.go.buildid" ;;
	gdb) printf 'match\t%s\n' "BFD keeps the last GNU build-id note of the SHT_NOTE sections, and .note.gnu.build-id comes after .note.go.buildid" ;;
	file) printf 'match\t%s\n' "the PT_NOTEs first, and the first GNU build-id note there is inject's" ;;
	perf) printf 'match\t%s\n' "reads the section named .note.gnu.build-id only" ;;
	pprof) printf 'error\t%s\n' "both notes are in one PT_NOTE: \"multiple build ids found, don't know which to use\"" ;;
	parca) printf 'other\t%s\n' "the last GNU build-id note of the first PT_NOTE wins" ;;
	otel) printf 'other\t%s\n' "the named sections give inject's id, but with no Go build-id left the PT_NOTE pass runs, and its last GNU build-id note wins" ;;
	runtime-pprof-e2e) printf 'n/a\t%s\n' "$WHY_E2E" ;;
	esac
}
two=$SCRATCH/shapes/two-notes
if [ -n "${injected_of[go-amd64]:-}" ]; then
	t_begin "two GNU build-id notes in one file: each consumer reports the one its rule picks"
	cp -- "$SCRATCH/shapes/go-amd64" "$two"
	turned=$(python3 - "$two" <<'PY'
import struct, sys
p = sys.argv[1]
b = bytearray(open(p, "rb").read())
assert b[:4] == b"\x7fELF" and b[4] == 2 and b[5] == 1, "want ELF64 LSB"
shoff, = struct.unpack_from("<Q", b, 40)
shentsize, shnum, shstrndx = struct.unpack_from("<HHH", b, 58)
def sh(i):
    return struct.unpack_from("<IIQQQQ", b, shoff + i * shentsize)
stroff = sh(shstrndx)[4]
for i in range(shnum):
    name, typ, _, _, off, size = sh(i)
    if bytes(b[stroff + name:b.index(0, stroff + name)]) != b".note.go.buildid":
        continue
    namesz, descsz, t = struct.unpack_from("<III", b, off)
    assert (namesz, t) == (4, 4) and b[off + 12:off + 16] == b"Go\0\0"
    b[off + 12:off + 16] = b"GNU\0"
    struct.pack_into("<I", b, off + 8, 3)
    open(p, "wb").write(b)
    print(b[off + 16:off + 16 + descsz].hex())
    sys.exit(0)
sys.exit("no .note.go.buildid")
PY
)
	expect_match "the turned note's descriptor" "$turned" '^[0-9a-f]{2,}$'
	expect_eq "readelf -n shows both" "$(readelf_ids "$two" | sort | tr '\n' ' ')" \
		"$(printf '%s\n' "${injected_of[go-amd64]}" "$turned" | sort | tr '\n' ' ')"
	two_skip=
	for c in "${CONSUMERS[@]}"; do
		r=$(raw "$c" "$two" exe)
		IFS=$'\t' read -r res detail < <(classify "$r" "${injected_of[go-amd64]}")
		[ "$r" = "id:$turned" ] && res=other
		IFS=$'\t' read -r want why < <(expected_two "$c")
		if [ "$res" = skip ]; then
			skipped+=("two-notes/$c: $detail")
			two_skip="$c: $detail"
		else
			expect_eq "$c ($r)" "$res" "$want"
			[ "$res" = "$want" ] && detail=$why
		fi
		printf '%s\t%s\ttwo-notes\t%s\t%s\n' "$c" go-amd64 "$res" "$detail" >>"$TSV"
	done
	"$READERS" pprof "$two" >/dev/null 2>"$SCRATCH/.two.err"
	expect_true "the pprof error is google/pprof's own message" \
		grep -q "multiple build ids found, don't know which to use" "$SCRATCH/.two.err"
	[ -n "$two_skip" ] && t_skip_if "$two_skip"
	t_end
fi

mkdir -p "$TOP/build/consumers"
cp -- "$TSV" "$TOP/build/consumers/results.tsv"

t_begin "docs/consumers.md is what scripts/consumers-doc renders from this run's results"
rows=$(($(wc -l <"$TSV") - 1))
expect_eq "TSV rows (consumers x (shapes x 2 phases + the two-notes file))" "$rows" \
	"$((${#CONSUMERS[@]} * (${#SHAPES[@]} * 2 + 1)))"
if [ ${#skipped[@]} -gt 0 ]; then
	t_skip_if "this run could not measure ${skipped[*]}"
else
	expect_exit 0 python3 "$TOP/scripts/consumers-doc" --no-doc "$TSV"
	printf '%s\n' "$out" >"$SCRATCH/consumers.md"
	expect_same_file "docs/consumers.md (make consumers-doc rewrites it)" \
		"$TOP/docs/consumers.md" "$SCRATCH/consumers.md" ||
		t_fail "$(diff -u "$TOP/docs/consumers.md" "$SCRATCH/consumers.md" | head -n 40)"
fi
t_end

t_done
