#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# Issue 28, point 4: every bfd shared library gets an id where gold's and
# lld's builds of the same objects do. A gcc+bfd library with a few
# hundred exported functions, a TLS variable and a constructor was refused
# ("the grown first PT_LOAD would overlap another segment's addresses"):
# bfd puts .gnu.hash at 0x238, right after the program headers, its
# first PT_LOAD (with .dynsym and .dynstr) runs past the first page, and
# the executable PT_LOAD follows at the next page, so move-head cannot
# grow the first PT_LOAD over .gnu.hash; new-load left a run that lies in
# the first page to move-head. Now new-load takes it.
#
# Here: the same source (generated: N functions, __thread, a constructor)
# linked by bfd, gold and lld with --build-id=none, N swept so that bfd's
# run (.gnu.hash alone) sits in the first page while the first PT_LOAD
# runs past it. Each library is judged by glibc (a ctypes call of three
# functions, the TLS variable read through them), readelf -n and the
# kernel's reader in tests/ebid.py, eu-elflint --gnu-ld (nothing new),
# and verify. The sweep must hold that bfd shape at least once.
. "$(dirname "$0")/lib.sh"
require_tool

for l in ld.bfd ld.gold ld.lld; do
	if ! have "$l"; then
		t_skip "bfd, gold and lld libraries" "needs $l (scripts/install-deps.sh test)"
		t_done
	fi
done

gen() { # N FILE
	{
		echo '__thread int tlsv = 3;'
		echo 'static int inited;'
		echo '__attribute__((constructor)) static void ctor(void) { inited = 1; }'
		for ((i = 0; i < $1; i++)); do
			echo "int exported_function_number_$i(int x) { return x * $i + tlsv + inited; }"
		done
	} >"$2"
}

calls_py='
import ctypes, sys
lib = ctypes.CDLL(sys.argv[1])
print(" ".join(str(getattr(lib, "exported_function_number_%d" % i)(100)) for i in (0, 7, int(sys.argv[2]) - 1)))
'

# bfd's shape: the sections after the program headers end in the first
# page (the first is .gnu.hash), the first PT_LOAD runs past it. "yes" or
# "no", from readelf's numbers.
bfd_shape() { # FILE
	local first load_end
	first=$(readelf -SW "$1" | awk '$1 == "[" && $2 == "1]" { print $3; exit } $1 == "[" "1]" { print $2; exit }')
	load_end=$(readelf -lW "$1" | awk '$1 == "LOAD" { print $5; exit }')
	[ "$first" = .gnu.hash ] && [ $((load_end)) -gt 4096 ] && echo yes || echo no
}

hits=0
for n in 300 350 400; do
	gen "$n" "$SCRATCH/lib$n.c"
	for l in bfd gold lld; do
		so=$SCRATCH/lib$n-$l.so
		t_begin "$n functions, $l: the library links and glibc loads it"
		expect_exit 0 gcc -O2 -fPIC -shared -fuse-ld="$l" -Wl,--build-id=none \
			-o "$so.orig" "$SCRATCH/lib$n.c"
		expect_exit 0 python3 -c "$calls_py" "$so.orig" "$n"
		want=$out
		t_end
		[ -f "$so.orig" ] || continue
		if [ "$l" = bfd ] && [ "$(bfd_shape "$so.orig")" = yes ]; then
			hits=$((hits + 1))
		fi
		cp "$so.orig" "$so"
		t_begin "$n functions, $l: inject gives an id that glibc, readelf and the kernel's reader see"
		run "$EBID" inject -v "$so"
		echo "# $(head -n 1 <<<"$err")"
		expect_eq "exit status" "$rc" 0
		if [ "$rc" = 0 ]; then
			parse_id_line "$out" "$so"
			expect_exit 0 python3 -c "$calls_py" "$so" "$n"
			expect_eq "three calls after inject" "$out" "$want"
			expect_eq "readelf -n" "$(readelf_ids "$so")" "$id"
			expect_eq "ebid.py kernel" "$(py_kernel "$so")" "$id"
			expect_eq "eu-elflint --gnu-ld: nothing new" \
				"$(comm -13 <(elflint_of "$so.orig" | sort -u) <(elflint_of "$so" | sort -u))" ""
			expect_exit 0 "$EBID" verify "$so"
		fi
		t_end
	done
done

t_begin "the sweep holds bfd's shape (.gnu.hash first, the first PT_LOAD past the first page)"
echo "# bfd libraries of that shape: $hits"
expect_true "no bfd library of that shape: the sweep proves nothing" test "$hits" -ge 1
t_end

t_done
