#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# scripts/elf-buildid.bash-completion (issue 5) loads and registers itself
# (what it offers is held to the option table by t0025-options-table).
# `make install` installs the binary, the man page, this completion file and
# the kit under share/elf-buildid;
# `make uninstall` removes them (run into a DESTDIR, the binary not rebuilt).
. "$(dirname "$0")/lib.sh"
. "$TOP/tests/kit-lib.sh"
require_tool
kit_prelude

COMP=$TOP/scripts/elf-buildid.bash-completion

t_begin "the file loads and registers a completion for elf-buildid"
got=$(bash --norc --noprofile -c 'source "$0" && complete -p elf-buildid' "$COMP" 2>&1)
expect_eq "complete -p" "$got" "complete -F _elf_buildid elf-buildid"
t_end

t_begin "make install DESTDIR=...: binary, man page, bash completion, LICENSE, RPM macros, the kit in share/elf-buildid, the debhelper add-on (install-debhelper); make uninstall removes them"
dest=$SCRATCH/root
run make -C "$TOP" -o build/elf-buildid install install-debhelper DESTDIR="$dest" PREFIX=/usr
expect_eq "make install exit ($err)" "$rc" 0
expect_true "no $dest/usr/bin/elf-buildid" [ -x "$dest/usr/bin/elf-buildid" ]
man=$dest/usr/share/man/man1/elf-buildid.1
expect_true "no man page in $dest/usr/share/man/man1" [ -f "$man" ]
# The page's version is the one the Makefile builds with (scripts/version.sh;
# the binary here may be older: -o build/elf-buildid keeps it).
expect_match "man page .TH" "$(grep '^\.TH ' "$man")" \
	"^\\.TH ELF-BUILDID 1 \"[0-9]{4}-[0-9]{2}-[0-9]{2}\" \"elf-buildid $(re_quote "$("$TOP/scripts/version.sh")")\" "
expect_same_file "installed LICENSE" "$dest/usr/share/doc/elf-buildid/LICENSE" "$TOP/LICENSE"
expect_same_file "installed RPM macros" "$dest/usr/lib/rpm/macros.d/macros.elf-buildid" \
	"$TOP/packaging/rpm/macros.elf-buildid"
expect_same_file "installed dh_elf_buildid" "$dest/usr/bin/dh_elf_buildid" "$TOP/packaging/debian/dh_elf_buildid"
expect_same_file "installed dh sequence" "$dest/usr/share/perl5/Debian/Debhelper/Sequence/elf_buildid.pm" \
	"$TOP/packaging/debian/Debian/Debhelper/Sequence/elf_buildid.pm"
expect_true "no dh_elf_buildid man page" [ -s "$dest/usr/share/man/man1/dh_elf_buildid.1" ]
c=$dest/usr/share/bash-completion/completions/elf-buildid
if [ -f "$c" ]; then
	expect_same_file "installed completion" "$c" "$COMP"
else
	t_fail "no bash completion at $c (make install should install scripts/elf-buildid.bash-completion there): $(cd "$dest" && find . -type f | tr '\n' ' ')"
fi
share=$dest/usr/share/elf-buildid
for f in elf-buildid.mk go-build-buildid package-hook.sh omnibus/elf_buildid.rb \
	omnibus/software/elf-buildid.rb; do
	src=$TOP/scripts/$f
	if [ -f "$share/$f" ]; then
		expect_same_file "installed share/elf-buildid/$f" "$share/$f" "$src"
	else
		t_fail "no $share/$f"
	fi
done
expect_true "go-build-buildid is not executable" [ -x "$share/go-build-buildid" ]
expect_true "package-hook.sh is not executable" [ -x "$share/package-hook.sh" ]
run make -C "$TOP" uninstall DESTDIR="$dest" PREFIX=/usr
expect_eq "make uninstall exit" "$rc" 0
left=$(cd "$dest" && find . -type f)
expect_eq "files left after uninstall" "$left" ""
expect_false "share/elf-buildid left after uninstall" [ -e "$share" ]
t_end

t_done
