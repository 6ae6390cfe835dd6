#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# tier: slow
# Issue 28, point 2, the distributions' flow: rpm's find-debuginfo
# --run-dwz (as Fedora's %_find_debuginfo_dwz_opts runs it) over C files
# that %elf_buildid_inject gave an id. find-debuginfo splits each file's
# debug info with eu-strip -f, then runs dwz over the debug files; before
# issue 28, dwz refused every separate debug file of a file inject had
# moved sections in ("Allocatable section ... after non-allocatable ones":
# our note's section header came after the debug sections), find-debuginfo
# exited 0 and shipped the DWARF uncompressed.
#
# The spec builds a program and a shared library with gcc -g: linked with
# lld and --build-id=none (inject: insert-gap and move-head) and, as the
# control, with --build-id=sha1 (no inject). Judged by rpm's own log
# (dwz ran and said nothing), the debuginfo package (dwz's .dwz file,
# the debug files keyed by the ids, their DWARF readable by readelf
# --debug-dump, with dwz's DW_FORM_GNU_ref_alt or .gnu_debugaltlink), the
# program running against its library from the package.
. "$(dirname "$0")/lib.sh"
require_tool
require_deps pkg
require_cmds pkg dwz ld.lld rpmbuild

private_home
MACROS=$TOP/packaging/rpm/macros.elf-buildid

# write_spec FILE LDFLAGS INJECT
write_spec() {
	cat >"$1" <<EOF
%global _missing_build_ids_terminate_build 1
%global _find_debuginfo_dwz_opts --run-dwz --dwz-low-mem-die-limit 10000000 --dwz-max-die-limit 50000000
Name:           hello-c
Version:        1.0
Release:        1
Summary:        C program and library for elf-buildid's RPM macros and dwz
License:        MIT
Source0:        main.c
Source1:        lib.c

%description
A C program and the library it links.

%debug_package

%prep
%setup -q -c -T
cp %{SOURCE0} %{SOURCE1} .

%build
gcc -O2 -g -fPIC -shared -fuse-ld=lld $2 -Wl,-soname,libhelloc.so -o libhelloc.so lib.c
gcc -O2 -g -fPIE -pie -fuse-ld=lld $2 -o hello-c main.c ./libhelloc.so

%install
install -D -m 0755 hello-c %{buildroot}%{_bindir}/hello-c
install -D -m 0755 libhelloc.so %{buildroot}%{_libdir}/libhelloc.so
$3

%files
%{_bindir}/hello-c
%{_libdir}/libhelloc.so
EOF
}

# rpm_build DIR LDFLAGS INJECT: sets $rc, log in DIR/build.log.
rpm_build() {
	rm -rf "$1"
	mkdir -p "$1/SOURCES"
	cp "$TOP/fixtures/c/lib.c" "$1/SOURCES/"
	printf '%s\n' 'void fixture_hello(void);' \
		'int main(void) { fixture_hello(); return 0; }' >"$1/SOURCES/main.c"
	write_spec "$1/hello.spec" "$2" "$3"
	rpmbuild -bb --load "$MACROS" --define "__elf_buildid $EBID" \
		--define "_topdir $1" --define "_tmppath $1/tmp" "$1/hello.spec" >"$1/build.log" 2>&1
	rc=$?
}

ARCH=$(rpm --eval '%{_arch}')
extract() { mkdir -p "$2" && (cd "$2" && rpm2cpio "$1" | cpio -idm --quiet); }

# judge DIR: the checks every side must pass.
judge() {
	local d=$1 bin lib bid lid dbg
	expect_eq "rpmbuild exit: $(tail -n 5 "$d/build.log")" "$rc" 0
	expect_match "find-debuginfo ran dwz" "$(grep 'find-debuginfo' "$d/build.log")" '--run-dwz'
	expect_eq "dwz's complaints in rpm's log" "$(grep -i 'dwz:' "$d/build.log")" ""
	extract "$d/RPMS/$ARCH/hello-c-1.0-1.$ARCH.rpm" "$d/main"
	extract "$d/RPMS/$ARCH/hello-c-debuginfo-1.0-1.$ARCH.rpm" "$d/dbg"
	bin=$d/main/usr/bin/hello-c
	lib=$(ls "$d"/main/usr/lib*/libhelloc.so)
	bid=$(readelf_ids "$bin")
	lid=$(readelf_ids "$lib")
	expect_match "the program's id" "$bid" '^[0-9a-f]{40}$'
	expect_match "the library's id" "$lid" '^[0-9a-f]{40}$'
	for id in $bid $lid; do
		dbg=$d/dbg/usr/lib/debug/.build-id/${id:0:2}/${id:2}.debug
		expect_true "no debug file $dbg" [ -f "$dbg" ]
		expect_eq "its id" "$(readelf_ids "$dbg")" "$id"
		expect_match "dwz's alternate file named in it" "$(readelf -SW "$dbg")" '\.gnu_debugaltlink'
		expect_ne "its DWARF, read by readelf" "$(readelf --debug-dump=info "$dbg" 2>/dev/null | grep -c DW_TAG_subprogram)" 0
	done
	expect_match "dwz's common file" "$(find "$d/dbg/usr/lib/debug/.dwz" -type f 2>/dev/null)" 'hello-c-1\.0-1'
	expect_exit 0 env LD_LIBRARY_PATH="$(dirname "$lib")" "$bin"
	expect_match "the program runs against its library" "$out" 'hello'
}

t_begin "control: linked with --build-id=sha1, no inject; find-debuginfo --run-dwz compresses the debug files"
rpm_build "$SCRATCH/ctl" -Wl,--build-id=sha1 ''
judge "$SCRATCH/ctl"
t_end

t_begin "%elf_buildid_inject over lld's --build-id=none files: the same, dwz says nothing, the ids are inject's"
rpm_build "$SCRATCH/inj" -Wl,--build-id=none '%elf_buildid_inject'
judge "$SCRATCH/inj"
for f in usr/bin/hello-c; do
	expect_eq "$f: the id inject printed" \
		"$(sed -n "s|^\([0-9a-f]\{40\}\)  .*/$f\$|\1|p" "$SCRATCH/inj/build.log")" \
		"$(readelf_ids "$SCRATCH/inj/main/$f")"
done
t_end

t_done
