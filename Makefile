# SPDX-License-Identifier: MIT
# elf-buildid: plain GNU Makefile. `make` builds build/elf-buildid.

PREFIX     ?= /usr/local
BINDIR     ?= $(PREFIX)/bin
MANDIR     ?= $(PREFIX)/share/man
BASHCOMPDIR ?= $(PREFIX)/share/bash-completion/completions
DATADIR    ?= $(PREFIX)/share/elf-buildid
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
LIB_DIRS := elf plan id fs job profile
LIB_SRCS := src/util.c $(sort $(foreach d,$(LIB_DIRS),$(wildcard src/$(d)/*.c)))
CLI_SRCS := $(sort $(wildcard src/cli/*.c))
LIB_OBJS := $(LIB_SRCS:src/%.c=$(BUILD)/obj/%.o)
CLI_OBJS := $(CLI_SRCS:src/%.c=$(BUILD)/obj/%.o)
UNIT_SRCS := $(wildcard tests/unit/*.c)
UNIT_BINS := $(UNIT_SRCS:tests/unit/%.c=$(BUILD)/unit/%)

.PHONY: FORCE all deps test check-slow unit check-tests demo install uninstall bench fuzz clean format

all: $(BUILD)/elf-buildid

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

$(BUILD)/unit/%: tests/unit/%.c $(BUILD)/libelf-buildid.a
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

demo: deps
	$(Q)$(MAKE) --no-print-directory all
	$(Q)EBID_BUILD=$(BUILD) scripts/demo.sh

bench: deps
	$(Q)$(MAKE) --no-print-directory all
	$(Q)EBID_BUILD=$(BUILD) scripts/bench

# The binary, the man page, the bash completion, and under DATADIR the kit
# for other builds: the Makefile snippet, the go build wrapper, the
# package hook, the Omnibus hook and the Omnibus software definition
# (the template; `make dist` fills it in: docs/packaging.md).
SHARE_PROGS := scripts/go-build-buildid scripts/package-hook.sh

install: $(BUILD)/elf-buildid
	$(INSTALL) -d $(DESTDIR)$(BINDIR) $(DESTDIR)$(MANDIR)/man1 $(DESTDIR)$(BASHCOMPDIR) \
		$(DESTDIR)$(DATADIR)/omnibus/software
	$(INSTALL) -m 0755 $(BUILD)/elf-buildid $(DESTDIR)$(BINDIR)/elf-buildid
	$(INSTALL) -m 0644 docs/elf-buildid.1 $(DESTDIR)$(MANDIR)/man1/elf-buildid.1
	$(INSTALL) -m 0644 scripts/elf-buildid.bash-completion $(DESTDIR)$(BASHCOMPDIR)/elf-buildid
	$(INSTALL) -m 0644 scripts/elf-buildid.mk $(DESTDIR)$(DATADIR)/elf-buildid.mk
	$(INSTALL) -m 0755 $(SHARE_PROGS) $(DESTDIR)$(DATADIR)/
	$(INSTALL) -m 0644 scripts/omnibus/elf_buildid.rb $(DESTDIR)$(DATADIR)/omnibus/elf_buildid.rb
	$(INSTALL) -m 0644 scripts/omnibus/software/elf-buildid.rb \
		$(DESTDIR)$(DATADIR)/omnibus/software/elf-buildid.rb

uninstall:
	rm -f $(DESTDIR)$(BINDIR)/elf-buildid $(DESTDIR)$(MANDIR)/man1/elf-buildid.1 \
		$(DESTDIR)$(BASHCOMPDIR)/elf-buildid \
		$(addprefix $(DESTDIR)$(DATADIR)/,elf-buildid.mk $(notdir $(SHARE_PROGS)) \
			omnibus/elf_buildid.rb omnibus/software/elf-buildid.rb)
	-rmdir $(DESTDIR)$(DATADIR)/omnibus/software $(DESTDIR)$(DATADIR)/omnibus \
		$(DESTDIR)$(DATADIR) 2>/dev/null

# Extra targets kept in their own files (fuzzing, benchmarks, matrix).
-include mk/*.mk

format:
	clang-format -i $(wildcard src/*.[ch] src/*/*.[ch] include/*.h include/*/*.h) tests/unit/*.c

clean:
	rm -rf build
