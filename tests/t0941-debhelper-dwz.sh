#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# tier: slow
# Issue 28, point 2, the distributions' flow on Debian: a small C source
# package (a program and the library it links, gcc -g, lld,
# --build-id=none) built with `dh $@ --with elf-buildid`, whose sequence
# runs dh_elf_buildid, then dh_dwz (debhelper's default since compat 12,
# dwz -m over the package's ELF files), then dh_strip (split debug files,
# the -dbgsym package). The control links with --build-id=sha1 and runs
# `dh $@` alone. Both are judged the same: the build succeeds, dh_dwz
# ran and dwz said nothing, the -dbgsym package holds a debug file per id
# that readelf reads (its DWARF, dwz's .gnu_debugaltlink to the .dwz
# file), and the program runs against its library from the package.
# Not checked: dh_strip's objcopy --only-keep-debug warns "section
# `.note.gnu.build-id' can't be allocated in segment 0" on the injected
# lld files (move-head put the notes behind .dynsym, which the debug file
# makes SHT_NOBITS); the debug file keeps the id. docs/rewriters.md counts
# it among the warnings (ours-warns), not the failures.
. "$(dirname "$0")/lib.sh"
require_tool
require_deps pkg
require_cmds pkg dwz ld.lld dpkg-buildpackage dh

private_home
unset DEB_BUILD_OPTIONS DEB_BUILD_PROFILES DH_VERBOSE DH_OPTIONS DH_INTERNAL_OPTIONS
export SOURCE_DATE_EPOCH=1796083200
ADDON=$TOP/packaging/debian
arch=$(dpkg --print-architecture)

# make_source DIR LDFLAGS WITH: the source package hello-c 1.0-1 in DIR.
make_source() {
	local d=$1
	mkdir -p "$d/debian/source"
	cp "$TOP/fixtures/c/lib.c" "$d/"
	printf '%s\n' 'void fixture_hello(void);' \
		'int main(void) { fixture_hello(); return 0; }' >"$d/main.c"
	printf 'all:\n\tgcc -O2 -g -fPIC -shared -fuse-ld=lld %s -Wl,-soname,libhelloc.so -o libhelloc.so lib.c\n\tgcc -O2 -g -fPIE -pie -fuse-ld=lld %s -o hello-c main.c ./libhelloc.so\ninstall:\n\tinstall -D -m 0755 hello-c $(DESTDIR)/usr/bin/hello-c\n\tinstall -D -m 0644 libhelloc.so $(DESTDIR)/usr/lib/libhelloc.so\n' "$2" "$2" >"$d/Makefile"
	cat >"$d/debian/control" <<'EOF'
Source: hello-c
Section: devel
Priority: optional
Maintainer: elf-buildid tests <tests@example.org>
Build-Depends: debhelper-compat (= 13)
Standards-Version: 4.6.2
Rules-Requires-Root: no

Package: hello-c
Architecture: any
Depends: ${misc:Depends}, ${shlibs:Depends}
Description: test program for dh_elf_buildid and dh_dwz
 A C program and its library.
EOF
	cat >"$d/debian/changelog" <<'EOF'
hello-c (1.0-1) unstable; urgency=medium

  * Test package.

 -- elf-buildid tests <tests@example.org>  Tue, 01 Dec 2026 00:00:00 +0000
EOF
	echo '3.0 (native)' >"$d/debian/source/format"
	printf '#!/usr/bin/make -f\n%%:\n\tdh $@%s\noverride_dh_shlibdeps:\n\tdh_shlibdeps -l$(CURDIR)/debian/hello-c/usr/lib\n' "$3" >"$d/debian/rules"
	chmod 0755 "$d/debian/rules"
}

# build DIR LDFLAGS WITH: sets $rc; the log is DIR/build.log.
build() {
	rm -rf "$1"
	make_source "$1/hello-c" "$2" "$3"
	(cd "$1/hello-c" && PATH="$ADDON:$EBID_BUILD:$PATH" PERL5LIB=$ADDON \
		ELF_BUILDID=$EBID dpkg-buildpackage -b -us -uc) >"$1/build.log" 2>&1
	rc=$?
}

# judge DIR: what both sides must show.
judge() {
	local d=$1 bin lib id dbg
	expect_eq "dpkg-buildpackage exit: $(tail -n 5 "$d/build.log")" "$rc" 0
	expect_match "dh_dwz ran" "$(cat "$d/build.log")" '^   dh_dwz'
	expect_eq "dwz's complaints in the log" "$(grep -i 'dwz:' "$d/build.log")" ""
	dpkg-deb -x "$d/hello-c_1.0-1_${arch}.deb" "$d/main"
	dpkg-deb -x "$d/hello-c-dbgsym_1.0-1_${arch}.deb" "$d/dbg"
	bin=$d/main/usr/bin/hello-c
	lib=$d/main/usr/lib/libhelloc.so
	for f in "$bin" "$lib"; do
		id=$(readelf_ids "$f")
		expect_match "$(basename "$f")'s id" "$id" '^[0-9a-f]{40}$'
		dbg=$d/dbg/usr/lib/debug/.build-id/${id:0:2}/${id:2}.debug
		expect_true "no debug file $dbg" [ -f "$dbg" ]
		expect_eq "its id" "$(readelf_ids "$dbg")" "$id"
		expect_match "dwz's alternate file named in it" "$(readelf -SW "$dbg")" '\.gnu_debugaltlink'
		expect_ne "its DWARF, read by readelf" \
			"$(readelf --debug-dump=info "$dbg" 2>/dev/null | grep -c DW_TAG_subprogram)" 0
	done
	expect_ne "dwz's common file" "$(find "$d/dbg/usr/lib/debug/.dwz" -type f 2>/dev/null)" ""
	expect_exit 0 env LD_LIBRARY_PATH="$d/main/usr/lib" "$bin"
	expect_match "the program runs against its library" "$out" 'hello'
}

t_begin "control: --build-id=sha1, dh alone: dh_dwz compresses, dh_strip splits by id"
build "$SCRATCH/ctl" -Wl,--build-id=sha1 ''
judge "$SCRATCH/ctl"
t_end

t_begin "--with elf-buildid over lld's --build-id=none files: the same, and the ids are the ones inject printed"
build "$SCRATCH/inj" -Wl,--build-id=none ' --with elf-buildid'
judge "$SCRATCH/inj"
expect_match "dh_elf_buildid before dh_dwz" \
	"$(sed -n 's/^   \(dh_[a-z_]*\)\( .*\)\{0,1\}$/\1/p' "$SCRATCH/inj/build.log" | tr '\n' ' ')" 'dh_elf_buildid dh_dwz dh_strip'
expect_eq "the program's id is the one inject printed" \
	"$(sed -n 's|^\([0-9a-f]\{40\}\)  .*/usr/bin/hello-c$|\1|p' "$SCRATCH/inj/build.log")" \
	"$(readelf_ids "$SCRATCH/inj/main/usr/bin/hello-c")"
t_end

t_done
