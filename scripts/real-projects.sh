# shellcheck shell=bash disable=SC2154
# SPDX-License-Identifier: MIT
# The real projects of scripts/check-real.sh (sourced by it): for each, its
# Debian source package, where its build tree is, and how its upstream
# build system configures, links and runs its own test suite.
#
# PROJECT_unpack_opts: options of dpkg-source -x (Debian's patches are
# applied unless it says --skip-patches).
# PROJECT_configure and PROJECT_link run in the unpacked source; _link and
# _test get the LDFLAGS of the linker (-fuse-ld=L -Wl,--build-id=none) and
# must link with it every program and library, the tests' own included.
# PROJECT_test LDFLAGS OUT writes the suite's output to OUT.log and its
# verdicts to OUT.units, one `PASS NAME` or `FAIL NAME` a line, read from
# the suite's own output (and `CHECKS N` when the suite counts finer than
# its units); its exit status is not used: the units are. $jobs (make -j)
# comes from check-real.sh.

# zlib: its own configure script and Makefile. libz.so.1.2.13 and, linked
# against it, examplesh and minigzipsh; example, minigzip (and the 64-bit
# offset pair) link libz.a. `make test test64` runs the three tests and
# prints `*** zlib [shared |64-bit ]test OK ***` (or FAILED) for each.
zlib_package() { echo zlib; }
zlib_unpack_opts() { :; }
zlib_tree() { echo .; }
zlib_configure() { CFLAGS="-O2 -g" ./configure; }
zlib_link() { make -j"$jobs" LDFLAGS="$1" all all64; }
zlib_test() {
	make -k test test64 LDFLAGS="$1" >"$2.log" 2>&1
	sed -n -E 's/.*\*\*\* zlib (shared |64-bit |)test (OK|FAILED) \*\*\*.*/\2 \1test/p' \
		"$2.log" | sed -e 's/^OK/PASS/' -e 's/^FAILED/FAIL/' \
		-e 's/ shared test$/ testshared/' -e 's/ 64-bit test$/ test64/' \
		-e 's/ test$/ teststatic/' >"$2.units"
}

# expat: CMake (its other build system is autotools). libexpat.so.1.8.10,
# xmlwf and the examples link it; the test programs runtests and runtestspp
# compile the library's sources in (they test its internals). ctest runs
# the two; each prints `100%: Checks: N, Failed: F` and `FAIL: name` per
# failed check, which give CHECKS. The man page (docbook2x) is left out.
# Upstream's 2.5.0 as released, without Debian's patches: its CVE backports
# test `#if XML_DTD == 1`, which only Debian's autotools build defines
# (CMake's expat_config.h defines XML_DTD empty: xmlparse.c fails to build).
expat_package() { echo expat; }
expat_unpack_opts() { echo --skip-patches; }
expat_tree() { echo _build; }
expat_configure() {
	cmake -S expat -B _build -DCMAKE_BUILD_TYPE=RelWithDebInfo -DEXPAT_BUILD_DOCS=OFF
}
expat_link() {
	cmake -S expat -B _build -DCMAKE_EXE_LINKER_FLAGS="$1" \
		-DCMAKE_SHARED_LINKER_FLAGS="$1" -DCMAKE_MODULE_LINKER_FLAGS="$1" &&
		cmake --build _build -j "$jobs"
}
expat_test() {
	ctest --test-dir _build -V >"$2.log" 2>&1
	{
		sed -n -E 's/^ *[0-9]+\/[0-9]+ Test +#[0-9]+: ([^ ]+) \.+ *(\*\*\*)?(Passed|Failed).*/\3 \1/p' \
			"$2.log" | sed -e 's/^Passed/PASS/' -e 's/^Failed/FAIL/'
		sed -n -E 's/^[0-9]+: FAIL: ([^ ]+).*/FAIL check:\1/p' "$2.log"
		awk '/^[0-9]+: [0-9]+%: Checks: [0-9]+, Failed: [0-9]+/ {
			gsub(",", ""); n += $4 - $6 } END { print "CHECKS " n + 0 }' "$2.log"
	} >"$2.units"
}

# pcre2: autotools and libtool. libpcre2-8.so.0 and libpcre2-posix.so.3
# (--disable-static: every program loads them from .libs/ through libtool's
# wrappers); pcre2test, pcre2grep, and the check programs pcre2_jit_test and
# pcre2posix_test. `make check` runs four tests through automake's harness
# (their .trs files give the units); RunTest's log says `OK` or `OK with
# JIT` under each `Test N:` heading, which gives CHECKS and finer units.
pcre2_package() { echo pcre2; }
pcre2_unpack_opts() { :; }
pcre2_tree() { echo .; }
pcre2_configure() { ./configure CFLAGS="-O2 -g" --enable-jit --disable-static; }
pcre2_link() {
	make -j"$jobs" LDFLAGS="$1" all && make -j"$jobs" LDFLAGS="$1" check TESTS=
}
pcre2_test() {
	local t
	# automake reruns every test (RECHECK_LOGS); stale verdicts must go.
	rm -f ./*.trs test-suite.log
	make -j"$jobs" -k check LDFLAGS="$1" >"$2.log" 2>&1
	{
		for t in ./*.trs; do
			[ -f "$t" ] || continue
			sed -n -E "s|^:test-result: (PASS\|FAIL\|ERROR\|SKIP\|XFAIL\|XPASS).*|\1 $(basename "$t" .trs)|p" "$t" |
				sed -E 's/^(ERROR|XPASS|SKIP|XFAIL) /FAIL /'
		done
		[ -f RunTest.log ] && awk '
			/^---- Testing / { lib = $3 }
			/^Test [0-9]+:/ { t = $2; sub(":", "", t) }
			/^  OK$/ { print "PASS RunTest:" lib ":" t; n++ }
			/^  OK with JIT$/ { print "PASS RunTest:" lib ":" t "+jit"; n++ }
			END { print "CHECKS " n + 0 }' RunTest.log
		cp RunTest.log "$2.RunTest.log" 2>/dev/null
	} >"$2.units"
}
