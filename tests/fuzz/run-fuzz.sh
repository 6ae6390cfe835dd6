#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# Runs a libFuzzer harness (tests/fuzz/fuzz_*.c) for a given time: makes
# the seed corpus, fuzzes into a persistent corpus, and writes a summary of
# the run. Seeds of fuzz_inject: the small bases of scripts/mkcorrupt.py
# whole, the Go fixtures cut to their first 64 KiB; of fuzz_pprof: what
# tests/fuzz/pprof_seeds.py writes; of both: every regression case.
# Usage: tests/fuzz/run-fuzz.sh BIN SECONDS OUTDIR [libFuzzer options...]
#   BIN      the fuzzer (make fuzz-build): build/fuzz/fuzz_inject or fuzz_pprof
#   OUTDIR   gets seeds/, corpus/ (kept between runs), artifacts/ (findings),
#            fuzz.log and stats.txt (execs, exec/s, coverage, findings)
# Environment: EBID_FIXTURES (default build/fixtures), EBID_MATRIX (default
# build/matrix; two of its shapes are seeds when it is built).
# Exit status: 0 no finding, 1 findings (artifacts/ holds them), 2 setup.
set -u
set -o pipefail

top=$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)
[ $# -ge 3 ] && [ -n "$3" ] || {
	sed -n '8,13s/^# \{0,1\}//p' "$0" >&2
	exit 2
}
bin=$1 secs=$2 out=$3
shift 3
fixtures=${EBID_FIXTURES:-$top/build/fixtures}
matrix=${EBID_MATRIX:-$top/build/matrix}

[ -x "$bin" ] || {
	echo "run-fuzz: $bin not built (make fuzz-build)" >&2
	exit 2
}
mkdir -p "$out/seeds" "$out/corpus" "$out/artifacts" || exit 2

case $(basename "$bin") in
fuzz_pprof)
	# Seeds: profiles of tests/pprof.py and of Go, perf.data headers.
	python3 "$top/tests/fuzz/pprof_seeds.py" "$out/seeds" \
		--go-build "$out/pprofgo" || {
		echo "run-fuzz: making the profile seeds failed" >&2
		exit 2
	}
	;;
fuzz_artifact)
	# Seeds: the corrupt-input corpus's artifacts (scripts/
	# mkcorrupt_artifacts.py) around the tiny base, each after the byte
	# that picks its reader (0 .deb, 1 .rpm, 2 tarball or image tar).
	small=$(python3 "$top/scripts/mkcorrupt.py" --small-only \
		--small-dir "$top/build/robust/small") || {
		echo "run-fuzz: making the small bases failed" >&2
		exit 2
	}
	[ -n "$small" ] || exit 2
	PYTHONPATH="$top/scripts" python3 - "$out/seeds" \
		"$top/build/robust/small/tiny" <<'PY' || {
import os, sys
import mkcorrupt_artifacts as m
out, tiny = sys.argv[1:]
elf = open(tiny, "rb").read()
for name, _, make in m.artifact_cases(elf):
    data = make()
    if len(data) > 65536:
        continue
    kind = 0 if name.startswith("deb.") else 1 if name.startswith("rpm.") else 2
    open(os.path.join(out, name), "wb").write(bytes([kind]) + data)
PY
		echo "run-fuzz: making the artifact seeds failed" >&2
		exit 2
	}
	;;
*)
	# Seeds: small whole files, big ones cut to 64 KiB.
	small=$(python3 "$top/scripts/mkcorrupt.py" --small-only \
		--small-dir "$top/build/robust/small") || {
		echo "run-fuzz: making the small bases failed" >&2
		exit 2
	}
	for f in $small; do
		cp -f "$f" "$out/seeds/"
	done
	for v in plain sw pie nobuildid reserved existing; do
		[ -f "$fixtures/$v" ] && head -c 65536 "$fixtures/$v" >"$out/seeds/$v.64k"
	done
	# Executables without a build-id, when the matrix is built: bfd and
	# gold (move-note), lld and mold (insert-gap, move-head), a bfd library
	# (move-head with its dynamic tables); whole,
	# symbols and all (9 to 18 KiB).
	for v in c-gcc-bfd-pie-nobuildid c-clang-gold-nopie-nobuildid \
		c-gcc-lld-pie-nobuildid c-clang-mold-nopie-nobuildid \
		c-gcc-bfd-shlib-nobuildid; do
		[ -f "$matrix/$v" ] && head -c 65536 "$matrix/$v" >"$out/seeds/$v.64k"
	done
	;;
esac
# And the regression cases.
for f in "$top"/tests/fuzz/regress/*; do
	case $f in
	*.md | */\*) continue ;;
	esac
	cp -f "$f" "$out/seeds/regress-$(basename "$f")"
done

before=$(find "$out/artifacts" -type f | wc -l)
start=$(date +%s)
"$bin" -max_len=65536 -max_total_time="$secs" -timeout=25 -rss_limit_mb=4096 \
	-print_final_stats=1 -artifact_prefix="$out/artifacts/" "$@" \
	"$out/corpus" "$out/seeds" >"$out/fuzz.log" 2>&1
rc=$?
end=$(date +%s)
after=$(find "$out/artifacts" -type f | wc -l)

# Figures: the last status line and the final stats.
last=$(grep -E '^#[0-9]+' "$out/fuzz.log" | tail -n 1)
execs=$(sed -n 's/^stat::number_of_executed_units: *//p' "$out/fuzz.log" | tail -n 1)
rate=$(sed -n 's/^stat::average_exec_per_sec: *//p' "$out/fuzz.log" | tail -n 1)
if [ -z "$execs" ]; then
	# Fork mode prints no final stats: take the last status line.
	execs=$(printf '%s\n' "$last" | sed -n 's/^#\([0-9]*\).*/\1/p')
	rate=$(printf '%s\n' "$last" | sed -n 's/.*exec\/s: *\([0-9]*\).*/\1/p')
fi
cov=$(printf '%s\n' "$last" | sed -n 's/.*cov: *\([0-9]*\).*/\1/p')
ft=$(printf '%s\n' "$last" | sed -n 's/.*ft: *\([0-9]*\).*/\1/p')
findings=$(grep -c 'fuzz_[a-z]*: FINDING\|ERROR: AddressSanitizer\|runtime error:\|ERROR: libFuzzer\|ERROR: LeakSanitizer' "$out/fuzz.log")
{
	echo "seconds: $((end - start)) (asked $secs)"
	echo "options: $*"
	echo "execs: ${execs:-?}"
	echo "exec_per_sec: ${rate:-?}"
	echo "coverage_edges: ${cov:-?}"
	echo "features: ${ft:-?}"
	echo "corpus_files: $(find "$out/corpus" -type f | wc -l)"
	echo "new_artifacts: $((after - before))"
	echo "finding_reports: $findings"
	echo "exit: $rc"
	grep -h 'fuzz_[a-z]*: FINDING\|SUMMARY: ' "$out/fuzz.log" | sort | uniq -c | sort -rn | head -n 20
} >"$out/stats.txt"
cat "$out/stats.txt"
[ "$rc" = 0 ] && [ "$after" = "$before" ] && exit 0
exit 1
