#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# tier: slow (memcheck, about 50 times slower)
# valgrind memcheck on the core runs: inject (replace and --in-place), -n,
# reserve + backfill, show and verify on every fixture, the small bases of
# scripts/mkcorrupt.py and the regression inputs. Any memcheck error or
# leak (--leak-check=full) makes valgrind exit 99: a failure.
. "$(dirname "$0")/lib.sh"
require_tool
require_fixtures "${VARIANTS[@]}"

require_deps robust
if nm "$EBID" 2>/dev/null | grep '__asan_init\|__ubsan_handle' >/dev/null; then
	t_skip "valgrind memcheck of $EBID" \
		"the binary is built with sanitizers (make SANITIZE=...); memcheck needs the plain build (make test)"
	t_done
fi
small=$(build_locked robust python3 "$TOP/scripts/mkcorrupt.py" --small-only \
	--small-dir "$TOP/build/robust/small") || {
	echo "not ok 1 - mkcorrupt.py --small-only failed"
	exit 1
}

vg() { # CMD...: run under memcheck; sets rc, out, err
	rm -f "$SCRATCH/vg.log"
	run valgrind -q --error-exitcode=99 --leak-check=full \
		--log-file="$SCRATCH/vg.log" "$@"
}
vg_ok() { # WANT_EXITS CMD...: no memcheck finding, exit in WANT_EXITS
	local want=$1
	shift
	t_check
	vg "$@"
	if [ "$rc" = 99 ] || [ -s "$SCRATCH/vg.log" ]; then
		t_fail "memcheck: $(last_cmd "$@"):" "$(head -n 30 "$SCRATCH/vg.log")"
	fi
	case " $want " in
	*" $rc "*) ;;
	*) t_fail "$(last_cmd "$@"): exit $rc, want one of $want; stderr: $err" ;;
	esac
}

inputs=()
for v in "${VARIANTS[@]}"; do inputs+=("$FIXTURES/$v"); done
for f in $small; do inputs+=("$f"); done
for f in "$TOP"/tests/fuzz/regress/*; do
	case $f in *.md) ;; *) inputs+=("$f") ;; esac
done
# Small executables and a library whose plans move a note (move-note) or
# the sections after the program headers (move-head, with insert-gap for
# lld), built when missing (need_shapes).
movers=(c-gcc-bfd-pie-nobuildid c-gcc-lld-pie-nobuildid c-gcc-bfd-shlib-nobuildid)
need_shapes "${movers[@]}"
for v in "${movers[@]}"; do
	f=${EBID_MATRIX:-$TOP/build/matrix}/$v
	[ -f "$f" ] && inputs+=("$f")
done

# Every command on the small inputs and three Go fixtures; inject and
# verify on the other Go fixtures (memcheck runs them about 50 times
# slower, and hashing a 2 MB file is the bulk of it).
for src in "${inputs[@]}"; do
	name=$(basename "$src")
	d=$SCRATCH/$name
	mkdir -p "$d"
	cp "$src" "$d/a" && cp "$src" "$d/b" && cp "$src" "$d/c" && ln "$d/b" "$d/b2"
	case $name in
	sw | pie | nobuildid)
		t_begin "memcheck clean: $name: inject, verify"
		vg_ok "0 2" "$EBID" inject "$d/a"
		vg_ok "0 1 2" "$EBID" verify "$d/a" "$src"
		t_end
		continue
		;;
	esac
	t_begin "memcheck clean: $name: inject (-n, replace, --in-place), reserve+backfill, show, verify"
	vg_ok "0 2" "$EBID" inject -n "$d/a"
	vg_ok "0 2" "$EBID" inject "$d/a"
	vg_ok "0 2" "$EBID" inject --in-place "$d/b"
	vg_ok "0 2" "$EBID" reserve "$d/c"
	vg_ok "0 2" "$EBID" backfill "$d/c"
	vg_ok "0 2" "$EBID" show "$d/a" "$src"
	vg_ok "0 1 2" "$EBID" verify "$d/a" "$src"
	t_end
done

t_begin "memcheck clean: tree mode (-r) over all of them, with a manifest"
mkdir -p "$SCRATCH/tree"
for src in "${inputs[@]}"; do cp "$src" "$SCRATCH/tree/"; done
vg_ok "0 1 2" "$EBID" inject -r -j 2 --manifest="$SCRATCH/manifest.json" "$SCRATCH/tree"
vg_ok "0 1 2" "$EBID" verify -r -j 2 --json --perf=off "$SCRATCH/tree"
t_end

t_done
