# SPDX-License-Identifier: MIT
# elf-buildid: plain GNU Makefile. `make` builds build/elf-buildid.

PREFIX     ?= /usr/local
BINDIR     ?= $(PREFIX)/bin
MANDIR     ?= $(PREFIX)/share/man
BASHCOMPDIR ?= $(PREFIX)/share/bash-completion/completions
DATADIR    ?= $(PREFIX)/share/elf-buildid
DOCDIR     ?= $(PREFIX)/share/doc/elf-buildid
# rpm reads /usr/lib/rpm/macros.d: PREFIX=/usr (a package) lands there.
RPMMACRODIR ?= $(PREFIX)/lib/rpm/macros.d
# Where debhelper's Perl modules live (Debian::Debhelper::Sequence::*).
PERL5DIR   ?= $(PREFIX)/share/perl5
DESTDIR    ?=
PKG_CONFIG ?= pkg-config
CC         ?= cc
CFLAGS     ?= -O2 -g
INSTALL    ?= install
# The version, from scripts/version.sh: VERSION plus where git says HEAD
# stands, or VERSION alone in an extracted release tarball.
VERSION    := $(shell scripts/version.sh)
ifeq ($(VERSION),)
$(error scripts/version.sh printed no version)
endif

BUILD      := build
comma      := ,
PKGS       := libelf libcrypto zlib
# Artifacts (verify, show and link of .deb, .rpm, tarballs, OCI images)
# are read through libarchive; the static build has none (mk/static.mk).
ifneq ($(STATIC),1)
PKGS       += libarchive
endif

# Our own flags are kept apart from the user's CFLAGS so that overriding
# CFLAGS never drops the language level or the warnings.
WARNINGS := -Wall -Wextra -Wshadow -Wformat=2 -Wstrict-prototypes \
	-Wmissing-prototypes -Wpointer-arith -Wwrite-strings -Wvla \
	-Wimplicit-fallthrough
ifeq ($(CI),true)
WARNINGS += -Werror
endif
ifdef WERROR
WARNINGS += -Werror
endif

PKG_CFLAGS := $(shell $(PKG_CONFIG) --cflags $(PKGS) 2>/dev/null)
PKG_LIBS   := $(shell $(PKG_CONFIG) --libs $(PKGS) 2>/dev/null || echo -lelf -lcrypto -lz)

ALL_CFLAGS := -std=c17 -D_GNU_SOURCE -D_FILE_OFFSET_BITS=64 \
	-DEBID_VERSION='"$(VERSION)"' -Iinclude -Isrc $(WARNINGS) \
	$(PKG_CFLAGS) $(CFLAGS)
ALL_LDFLAGS := $(LDFLAGS)

ifdef SANITIZE
ALL_CFLAGS  += -fsanitize=$(SANITIZE) -fno-omit-frame-pointer -fno-sanitize-recover=all
ALL_LDFLAGS += -fsanitize=$(SANITIZE)
# ThreadSanitizer objects cannot be linked with AddressSanitizer ones, so a
# build with "thread" in SANITIZE has its own directory (mk/tsan.mk).
ifneq ($(filter thread,$(subst $(comma), ,$(SANITIZE))),)
BUILD := build/tsan
else
BUILD := build/san
endif
endif

# make STATIC=1 links one fully static binary (mk/static.mk) in a directory
# of its own, build/static/: in build/ it would replace the dynamic binary
# the tests use, and make, seeing the file up to date, would not relink it
# when STATIC changes.
ifeq ($(STATIC),1)
BUILD := build/static
endif

ifeq ($(V),1)
Q :=
else
Q := @
endif

# The library, one folder per layer (docs/hacking.md, "Layers"): elf/
# reads ELF, plan/ places the note, id/ hashes, fs/ reaches and replaces
# files, job/ runs a whole-file job, profile/ talks to perf and reads
# profiles; util.c and internal.h are what they all share. cli/ is the
# command and is not part of the library.
LIB_DIRS := elf plan check id fs job profile
LIB_SRCS := src/util.c $(sort $(foreach d,$(LIB_DIRS),$(wildcard src/$(d)/*.c)))
CLI_SRCS := $(sort $(wildcard src/cli/*.c))
LIB_OBJS := $(LIB_SRCS:src/%.c=$(BUILD)/obj/%.o)
CLI_OBJS := $(CLI_SRCS:src/%.c=$(BUILD)/obj/%.o)
UNIT_SRCS := $(wildcard tests/unit/*.c)
UNIT_BINS := $(UNIT_SRCS:tests/unit/%.c=$(BUILD)/unit/%)

.PHONY: FORCE all deps test check-slow check-sanitize-slow unit check-tests demo install install-debhelper uninstall bench fuzz clean format

all: $(BUILD)/elf-buildid $(BUILD)/elf-buildid.1

# src/%.c covers the folders (src/plan/core.c: $(BUILD)/obj/plan/core.o).
HEADERS := $(wildcard include/*.h include/*/*.h src/*.h src/*/*.h)

$(BUILD)/obj/%.o: src/%.c $(HEADERS)
	@mkdir -p $(dir $@)
	@$(if $(Q),echo "  CC      $<")
	$(Q)$(CC) $(ALL_CFLAGS) -c -o $@ $<

# The objects that print the version are rebuilt when it changes: the
# stamp is rewritten only when its content differs.
$(BUILD)/version.stamp: FORCE
	@mkdir -p $(dir $@)
	$(Q)[ "$$(cat $@ 2>/dev/null)" = '$(VERSION)' ] || echo '$(VERSION)' >$@
$(CLI_OBJS): $(BUILD)/version.stamp

$(BUILD)/libelf-buildid.a: $(LIB_OBJS)
	@$(if $(Q),echo "  AR      $@")
	$(Q)rm -f $@ && ar rcs $@ $^

$(BUILD)/elf-buildid: $(CLI_OBJS) $(BUILD)/libelf-buildid.a
	@$(if $(Q),echo "  LINK    $@")
	$(Q)$(CC) $(ALL_CFLAGS) $(ALL_LDFLAGS) -o $@ $(CLI_OBJS) $(BUILD)/libelf-buildid.a $(PKG_LIBS) -lpthread

# test_plan.c includes its tests by concern from tests/unit/plan/.
$(BUILD)/unit/test_plan: $(wildcard tests/unit/plan/*.h)

$(BUILD)/unit/%: tests/unit/%.c tests/unit/tap.h $(BUILD)/libelf-buildid.a
	@mkdir -p $(dir $@)
	@$(if $(Q),echo "  CC      $@")
	$(Q)$(CC) $(ALL_CFLAGS) $(ALL_LDFLAGS) -o $@ $< $(BUILD)/libelf-buildid.a $(PKG_LIBS) -lpthread

# Installs the Debian packages the build and the demo need
# (scripts/install-deps.sh); `make test` asks for every test's too, once,
# before any test runs.
deps:
	$(Q)scripts/install-deps.sh $(DEPS_GROUPS)

unit: $(UNIT_BINS)

# Two tiers (tests/run.sh, "# tier:" in each script's header): `make test`
# runs the unit tests and the fast scripts, a few minutes; `make
# check-slow` the slow ones (the matrix builds and the checks over every
# shape, valgrind, the long fuzzing, the kill campaign, the release
# artifacts). CI runs both (.ci/run).
test: DEPS_GROUPS = test
test: deps
	$(Q)$(MAKE) --no-print-directory all unit
	$(Q)EBID_BUILD=$(BUILD) tests/run.sh --tier=fast

check-slow: DEPS_GROUPS = test
check-slow: deps
	$(Q)$(MAKE) --no-print-directory all unit
	$(Q)EBID_BUILD=$(BUILD) tests/run.sh --tier=slow

# The slow scripts that the sanitizer pass of .ci/run repeats: those whose
# inputs reach code the fast tier leaves out, where AddressSanitizer and
# UBSan can find something (the planner over every matrix shape and its
# golden plans, every move and the hostile and relocation inputs, the
# corrupt inputs, the fuzzing, the faults in the moves, the file-system
# edge cases and the hostile tree). The matrix checks run the same code
# over the same shapes as t0302 and t0360 do; the release, package and
# consumer builds and valgrind run the tool as the plain pass did.
SANITIZE_SLOW := t0302-plan-matrix t0360-golden-dry-run t0371-move-note-matrix \
	t0381-move-head-matrix t0382-move-head-matrix-lib t0386-move-head-hostile \
	t0387-move-relocs t0389-real-size-matrix t0601-corrupt-inputs-sample \
	t0610-fuzz-short t0611-fuzz-regress t0612-fuzz-pprof-short \
	t0631-fault-injection-moves t0655-fs-edges t0710-hostile-tree

check-sanitize-slow: DEPS_GROUPS = test
check-sanitize-slow: deps
	$(Q)$(MAKE) --no-print-directory all unit
	$(Q)EBID_BUILD=$(BUILD) tests/run.sh $(SANITIZE_SLOW:%=tests/%.sh)

demo: deps
	$(Q)$(MAKE) --no-print-directory all
	$(Q)EBID_BUILD=$(BUILD) scripts/demo.sh

bench: deps
	$(Q)$(MAKE) --no-print-directory all
	$(Q)EBID_BUILD=$(BUILD) scripts/bench

# The manual pages carry the version and a date: SOURCE_DATE_EPOCH's, else
# the commit's in a git checkout of this directory, else VERSION's mtime
# (a release tarball sets it to the commit time), so that the same source
# gives the same page. docs/elf-buildid.1 stays readable as it is
# (man -l); only its .TH line's date and version are replaced.
MAN_EPOCH := $(or $(SOURCE_DATE_EPOCH),$(shell [ "$$(git rev-parse --show-toplevel 2>/dev/null)" = "$(CURDIR)" ] && git log -1 --format=%ct HEAD 2>/dev/null),$(shell stat -c %Y VERSION))
MAN_DATE  := $(shell date -u -d @$(MAN_EPOCH) +%Y-%m-%d)

# Rewritten only when the version or the date differs, as version.stamp.
$(BUILD)/man.stamp: FORCE
	@mkdir -p $(dir $@)
	$(Q)[ "$$(cat $@ 2>/dev/null)" = '$(VERSION) $(MAN_DATE)' ] || echo '$(VERSION) $(MAN_DATE)' >$@

$(BUILD)/elf-buildid.1: docs/elf-buildid.1 $(BUILD)/man.stamp
	@mkdir -p $(dir $@)
	$(Q)sed '/^\.TH /s/^\(\.TH [^ ]* [^ ]*\) "[^"]*" "[^"]*"/\1 "$(MAN_DATE)" "elf-buildid $(VERSION)"/' $< >$@.tmp
	$(Q)grep -q '^\.TH .* "$(MAN_DATE)" "elf-buildid $(VERSION)" ' $@.tmp || \
		{ echo "$@: no .TH line with date and version in $<" >&2; rm -f $@.tmp; exit 1; }
	$(Q)mv -f $@.tmp $@

# dh_elf_buildid's page, from its POD (as debhelper's own tools do).
$(BUILD)/dh_elf_buildid.1: packaging/debian/dh_elf_buildid $(BUILD)/man.stamp
	@mkdir -p $(dir $@)
	$(Q)pod2man --utf8 --section=1 --center=Debhelper --name=DH_ELF_BUILDID \
		--release="elf-buildid $(VERSION)" --date="$(MAN_DATE)" $< >$@.tmp && mv -f $@.tmp $@

# The binary, the man page, the bash completion, the LICENSE, the RPM
# macros (docs/packaging.md, "RPM packages"), and under DATADIR the kit
# for other builds: the Makefile snippet, the go build wrapper, the
# package hook, the Omnibus hook and the Omnibus software definition
# (the template; `make dist` fills it in: docs/packaging.md).
SHARE_PROGS := scripts/go-build-buildid scripts/package-hook.sh

install: $(BUILD)/elf-buildid $(BUILD)/elf-buildid.1
	$(INSTALL) -d $(DESTDIR)$(BINDIR) $(DESTDIR)$(MANDIR)/man1 $(DESTDIR)$(BASHCOMPDIR) \
		$(DESTDIR)$(DATADIR)/omnibus/software $(DESTDIR)$(DOCDIR) $(DESTDIR)$(RPMMACRODIR)
	$(INSTALL) -m 0755 $(BUILD)/elf-buildid $(DESTDIR)$(BINDIR)/elf-buildid
	$(INSTALL) -m 0644 $(BUILD)/elf-buildid.1 $(DESTDIR)$(MANDIR)/man1/elf-buildid.1
	$(INSTALL) -m 0644 scripts/elf-buildid.bash-completion $(DESTDIR)$(BASHCOMPDIR)/elf-buildid
	$(INSTALL) -m 0644 LICENSE $(DESTDIR)$(DOCDIR)/LICENSE
	$(INSTALL) -m 0644 packaging/rpm/macros.elf-buildid $(DESTDIR)$(RPMMACRODIR)/macros.elf-buildid
	$(INSTALL) -m 0644 scripts/elf-buildid.mk $(DESTDIR)$(DATADIR)/elf-buildid.mk
	$(INSTALL) -m 0755 $(SHARE_PROGS) $(DESTDIR)$(DATADIR)/
	$(INSTALL) -m 0644 scripts/omnibus/elf_buildid.rb $(DESTDIR)$(DATADIR)/omnibus/elf_buildid.rb
	$(INSTALL) -m 0644 scripts/omnibus/software/elf-buildid.rb \
		$(DESTDIR)$(DATADIR)/omnibus/software/elf-buildid.rb

# The debhelper add-on (docs/packaging.md, "Debian packages"), apart:
# only Debian package builds want it, and `make deb` ships it in its own
# package, dh-elf-buildid.
DH_SEQ := Debian/Debhelper/Sequence/elf_buildid.pm

install-debhelper: $(BUILD)/dh_elf_buildid.1
	$(INSTALL) -d $(DESTDIR)$(BINDIR) $(DESTDIR)$(MANDIR)/man1 \
		$(DESTDIR)$(PERL5DIR)/$(dir $(DH_SEQ))
	$(INSTALL) -m 0755 packaging/debian/dh_elf_buildid $(DESTDIR)$(BINDIR)/dh_elf_buildid
	$(INSTALL) -m 0644 packaging/debian/$(DH_SEQ) $(DESTDIR)$(PERL5DIR)/$(DH_SEQ)
	$(INSTALL) -m 0644 $(BUILD)/dh_elf_buildid.1 $(DESTDIR)$(MANDIR)/man1/dh_elf_buildid.1

uninstall:
	rm -f $(DESTDIR)$(BINDIR)/elf-buildid $(DESTDIR)$(MANDIR)/man1/elf-buildid.1 \
		$(DESTDIR)$(BASHCOMPDIR)/elf-buildid $(DESTDIR)$(DOCDIR)/LICENSE \
		$(DESTDIR)$(RPMMACRODIR)/macros.elf-buildid \
		$(DESTDIR)$(BINDIR)/dh_elf_buildid $(DESTDIR)$(MANDIR)/man1/dh_elf_buildid.1 \
		$(DESTDIR)$(PERL5DIR)/$(DH_SEQ) \
		$(addprefix $(DESTDIR)$(DATADIR)/,elf-buildid.mk $(notdir $(SHARE_PROGS)) \
			omnibus/elf_buildid.rb omnibus/software/elf-buildid.rb)
	-rmdir $(DESTDIR)$(DATADIR)/omnibus/software $(DESTDIR)$(DATADIR)/omnibus \
		$(DESTDIR)$(DATADIR) $(DESTDIR)$(DOCDIR) 2>/dev/null
	-rmdir $(addprefix $(DESTDIR)$(PERL5DIR)/,Debian/Debhelper/Sequence Debian/Debhelper Debian) \
		2>/dev/null

# Extra targets kept in their own files (fuzzing, benchmarks, matrix).
-include mk/*.mk

format:
	clang-format -i $(wildcard src/*.[ch] src/*/*.[ch] include/*.h include/*/*.h) tests/unit/*.c

clean:
	rm -rf build
