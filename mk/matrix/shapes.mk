# SPDX-License-Identifier: MIT
# The compatibility-matrix fixtures as make rules: one file per
# shape in build/matrix/, named after the shape. Go internal linking for
# every GOARCH Go supports on Linux; Go cgo, external linking and c-shared;
# C programs and shared libraries from gcc and clang with GNU ld, gold, lld
# and mold, hello-world and real-size (tens of KiB of constants, a few
# hundred dynamic symbols); and files crafted from those (no section
# headers, extended section numbering, .shstrtab at the end of the file,
# trailing data).
#
# Not included by the top Makefile: scripts/build-matrix.sh (and so
# `make matrix`) runs it with -k, picks shapes by name, glob or group and
# sums up. By hand:
#   make -f mk/matrix/shapes.mk [-j N] build/matrix/NAME...   some shapes
#   make -f mk/matrix/shapes.mk [-j N] all                    every shape
#   make -s -f mk/matrix/shapes.mk list   NAME GROUP KIND RUNNER NOTE BASE PLACEHOLDER
#                                         (BASE, PLACEHOLDER: "-" for none)
# A shape is rebuilt when it is older than its sources, this file,
# scripts/matrix-craft.py and tests/ebid.py (crafted shapes, with their
# base) or the toolchain versions ($(M)/.tools). Go's build cache lives in
# build/go/cache (shared with build-fixtures.sh).
# Environment: EBID_MATRIX (output directory, default build/matrix),
#   EBID_GOCACHE (Go build cache, default build/go/cache).
# The recipes run in make's directory, and gcc -g records it in the C
# shapes (DW_AT_comp_dir, the source paths). The C shapes are compiled in
# the top directory with -ffile-prefix-map making it ".", so their bytes,
# and the golden plans that name offsets in them, depend neither on where
# the checkout lies nor on which test's directory make runs in.

TOP   := $(abspath $(dir $(lastword $(MAKEFILE_LIST)))../..)
SELF  := $(TOP)/mk/matrix/shapes.mk
M     := $(abspath $(or $(EBID_MATRIX),$(TOP)/build/matrix))
CRAFT := $(TOP)/scripts/matrix-craft.py

# The id the -B variants are linked with: 20 non-zero bytes.
BID   := 0123456789abcdeffedcba9876543210a5a5a5a5
ZEROS := 0000000000000000000000000000000000000000

GOARCHES     := 386 amd64 arm arm64 loong64 mips mipsle mips64 mips64le \
	ppc64 ppc64le riscv64 s390x
# Go 1.19 links -buildmode=pie internally (CGO_ENABLED=0) only on these.
PIE_GOARCHES := amd64 arm64 ppc64le
CCS          := gcc clang
LDS          := bfd gold lld mold

export GOCACHE     := $(abspath $(or $(EBID_GOCACHE),$(TOP)/build/go/cache))
export GOPATH      := $(TOP)/build/go/path
export GOMODCACHE  := $(TOP)/build/go/path/pkg/mod
export GOENV       := off
export GOPROXY     := off
export GOTOOLCHAIN := local
export GO111MODULE := on
export GOWORK      := off
export GOFLAGS     := -trimpath -buildvcs=false

# How each GOARCH's programs are run (qemu-ARCH with -L
# build/matrix/sysroot/ARCH when that exists).
runner.386      := native
runner.amd64    := native
runner.arm      := qemu-arm
runner.arm64    := qemu-aarch64
runner.loong64  := qemu-loongarch64
runner.mips     := qemu-mips
runner.mipsle   := qemu-mipsel
runner.mips64   := qemu-mips64
runner.mips64le := qemu-mips64el
runner.ppc64    := qemu-ppc64
runner.ppc64le  := qemu-ppc64le
runner.riscv64  := qemu-riscv64
runner.s390x    := qemu-s390x

# ---- the shape table --------------------------------------------------------
# Each shape NAME has group.NAME, kind.NAME (exe or lib), runner.NAME, note.NAME
# (how it was made, for the document) and how.NAME, the recipe below that
# builds it, with that recipe's own variables. SHAPES keeps the table's order.
SHAPES :=

# $(call go,NAME,GROUP,KIND,RUNNER,SRC,GOARCH,CGO): a `go build` shape; its
# go build arguments go in flags.NAME.
define go
SHAPES += $1
group.$1 := $2
kind.$1 := $3
runner.$1 := $4
how.$1 := go
src.$1 := $5
arch.$1 := $6
cgo.$1 := $7
endef

define goarch_shapes # GOARCH
$(call go,go-$1,go,exe,$(runner.$1),hello,$1,0)
note.go-$1 := go build, GOARCH=$1, internal linking
$(call go,go-$1-sw,go,exe,$(runner.$1),hello,$1,0)
note.go-$1-sw := go build -ldflags='-s -w', GOARCH=$1
flags.go-$1-sw := '-ldflags=-s -w'
$(call go,go-$1-nobuildid,go,exe,$(runner.$1),hello,$1,0)
note.go-$1-nobuildid := go build -ldflags=-buildid= (no note, no PT_NOTE), GOARCH=$1
flags.go-$1-nobuildid := '-ldflags=-buildid='
$(call go,go-$1-bzero,go,exe,$(runner.$1),hello,$1,0)
note.go-$1-bzero := go build -ldflags=-B=0x<40 zeros> (reserved GNU note outside PT_NOTE), GOARCH=$1
flags.go-$1-bzero := '-ldflags=-B=0x$(ZEROS)'
$(call go,go-$1-bid,go,exe,$(runner.$1),hello,$1,0)
note.go-$1-bid := go build -ldflags=-B=0x$(BID) (GNU note outside PT_NOTE, as Go >= 1.24 by default), GOARCH=$1
flags.go-$1-bid := '-ldflags=-B=0x$(BID)'
endef
$(foreach a,$(GOARCHES),$(eval $(call goarch_shapes,$a)))

define pie_shape # GOARCH
$(call go,go-$1-pie,go,exe,$(runner.$1),hello,$1,0)
note.go-$1-pie := go build -buildmode=pie (internal linking), GOARCH=$1
flags.go-$1-pie := -buildmode=pie
endef
$(foreach a,$(PIE_GOARCHES),$(eval $(call pie_shape,$a)))

# cgo, external linking and c-shared: amd64 only (needs the host gcc).
define goext_shapes
$(call go,go-amd64-cgo-internal,goext,exe,native,cgo,amd64,1)
note.go-amd64-cgo-internal := cgo, go build -ldflags=-linkmode=internal
flags.go-amd64-cgo-internal := -ldflags=-linkmode=internal
$(call go,go-amd64-cgo-internal-bid,goext,exe,native,cgo,amd64,1)
note.go-amd64-cgo-internal-bid := cgo, -ldflags='-linkmode=internal -B=0x$(BID)'
flags.go-amd64-cgo-internal-bid := '-ldflags=-linkmode=internal -B=0x$(BID)'
$(call go,go-amd64-cgo-external,goext,exe,native,cgo,amd64,1)
note.go-amd64-cgo-external := cgo, default (external) linking; gcc passes --build-id
$(call go,go-amd64-cgo-external-nobuildid,goext,exe,native,cgo,amd64,1)
note.go-amd64-cgo-external-nobuildid := cgo, external linking, -extldflags=-Wl,--build-id=none
flags.go-amd64-cgo-external-nobuildid := '-ldflags=-extldflags=-Wl,--build-id=none'
$(call go,go-amd64-cgo-external-bzero,goext,exe,native,cgo,amd64,1)
note.go-amd64-cgo-external-bzero := cgo, external linking, -B=0x<40 zeros> (gcc gets --build-id=0x00..)
flags.go-amd64-cgo-external-bzero := '-ldflags=-B=0x$(ZEROS)'
$(call go,go-amd64-linkext,goext,exe,native,hello,amd64,1)
note.go-amd64-linkext := pure Go, -ldflags=-linkmode=external (gcc's default --build-id)
flags.go-amd64-linkext := -ldflags=-linkmode=external
$(call go,go-amd64-linkext-buildid,goext,exe,native,hello,amd64,1)
note.go-amd64-linkext-buildid := pure Go, -linkmode=external -extldflags=-Wl,--build-id
flags.go-amd64-linkext-buildid := '-ldflags=-linkmode=external -extldflags=-Wl,--build-id'
$(call go,go-amd64-linkext-nobuildid,goext,exe,native,hello,amd64,1)
note.go-amd64-linkext-nobuildid := pure Go, -linkmode=external -extldflags=-Wl,--build-id=none
flags.go-amd64-linkext-nobuildid := '-ldflags=-linkmode=external -extldflags=-Wl,--build-id=none'
$(call go,go-amd64-linkext-bzero,goext,exe,native,hello,amd64,1)
note.go-amd64-linkext-bzero := pure Go, -linkmode=external -B=0x<40 zeros>
flags.go-amd64-linkext-bzero := '-ldflags=-linkmode=external -B=0x$(ZEROS)'
$(call go,go-amd64-linkext-bid,goext,exe,native,hello,amd64,1)
note.go-amd64-linkext-bid := pure Go, -linkmode=external -B=0x$(BID)
flags.go-amd64-linkext-bid := '-ldflags=-linkmode=external -B=0x$(BID)'
$(call go,go-amd64-cshared,goext,lib,native,cshared,amd64,1)
note.go-amd64-cshared := go build -buildmode=c-shared (gcc's default --build-id)
flags.go-amd64-cshared := -buildmode=c-shared
$(call go,go-amd64-cshared-nobuildid,goext,lib,native,cshared,amd64,1)
note.go-amd64-cshared-nobuildid := -buildmode=c-shared -extldflags=-Wl,--build-id=none
flags.go-amd64-cshared-nobuildid := -buildmode=c-shared '-ldflags=-extldflags=-Wl,--build-id=none'
$(call go,go-amd64-cshared-bzero,goext,lib,native,cshared,amd64,1)
note.go-amd64-cshared-bzero := -buildmode=c-shared -B=0x<40 zeros>
flags.go-amd64-cshared-bzero := -buildmode=c-shared '-ldflags=-B=0x$(ZEROS)'
endef
$(eval $(goext_shapes))

# Go as the machine's go builds today (group gonow; Go >= 1.24 links a GNU
# note derived from the Go build id by default, outside the PT_NOTE): the
# default build for every GOARCH, and on amd64 the variants users meet.
# placeholder.NAME is the Go build id a shape was linked with when it is a
# placeholder (as Bazel's rules_go links): two programs linked with it
# carry one GNU id, which inject replaces (compat-matrix checks both).
GOID2 := AAAAAAAAAAAAAAAAAAAA/BBBBBBBBBBBBBBBBBBBB
define gonow
$(call go,$1,gonow,$2,$3,$4,$5,$6)
how.$1 := gonow
endef
define gonow_arch # GOARCH
$(call gonow,gonow-$1,exe,$(runner.$1),hello,$1,0)
note.gonow-$1 := go build (the machine's go), GOARCH=$1: GNU note outside PT_NOTE
endef
$(foreach a,$(GOARCHES),$(eval $(call gonow_arch,$a)))
define gonow_amd64
$(call gonow,gonow-amd64-pie,exe,native,hello,amd64,0)
note.gonow-amd64-pie := go build -buildmode=pie (the machine's go)
flags.gonow-amd64-pie := -buildmode=pie
$(call gonow,gonow-amd64-sw,exe,native,hello,amd64,0)
note.gonow-amd64-sw := go build -ldflags='-s -w' (the machine's go)
flags.gonow-amd64-sw := '-ldflags=-s -w'
$(call gonow,gonow-amd64-bnone,exe,native,hello,amd64,0)
note.gonow-amd64-bnone := go build -ldflags=-B=none (the machine's go): no GNU note
flags.gonow-amd64-bnone := '-ldflags=-B=none'
$(call gonow,gonow-amd64-nobuildid,exe,native,hello,amd64,0)
note.gonow-amd64-nobuildid := go build -ldflags=-buildid= (the machine's go): no note at all
flags.gonow-amd64-nobuildid := '-ldflags=-buildid='
$(call gonow,gonow-amd64-placeholder,exe,native,hello,amd64,0)
note.gonow-amd64-placeholder := go build -ldflags=-buildid=redacted (the machine's go, as rules_go links)
flags.gonow-amd64-placeholder := '-ldflags=-buildid=redacted'
placeholder.gonow-amd64-placeholder := redacted
$(call gonow,gonow-amd64-placeholder-pie,exe,native,hello,amd64,0)
note.gonow-amd64-placeholder-pie := go build -buildmode=pie -ldflags=-buildid=redacted (the machine's go)
flags.gonow-amd64-placeholder-pie := -buildmode=pie '-ldflags=-buildid=redacted'
placeholder.gonow-amd64-placeholder-pie := redacted
$(call gonow,gonow-amd64-gobuildid,exe,native,hello,amd64,0)
note.gonow-amd64-gobuildid := go build -ldflags='-buildid=<2 parts of 20> -B gobuildid' (the machine's go)
flags.gonow-amd64-gobuildid := '-ldflags=-buildid=$(GOID2) -B gobuildid'
$(call gonow,gonow-amd64-linkext,exe,native,hello,amd64,1)
note.gonow-amd64-linkext := go build -ldflags=-linkmode=external (the machine's go; gcc gets --build-id=0x<derived>)
flags.gonow-amd64-linkext := -ldflags=-linkmode=external
$(call gonow,gonow-amd64-cshared,lib,native,cshared,amd64,1)
note.gonow-amd64-cshared := go build -buildmode=c-shared (the machine's go)
flags.gonow-amd64-cshared := -buildmode=c-shared
endef
$(eval $(gonow_amd64))

# C: fixtures/c with CC -fuse-ld=LD; KIND pie, nopie, static or shlib.
idnote.buildid   := -Wl,--build-id
idnote.nobuildid := -Wl,--build-id=none
idnote.bzero     := -Wl,--build-id=0x<40 zeros>

define c_shape # CC LD KIND ID
SHAPES += c-$1-$2-$3-$4
group.c-$1-$2-$3-$4 := c
kind.c-$1-$2-$3-$4 := $(if $(filter shlib,$3),lib,exe)
runner.c-$1-$2-$3-$4 := native
note.c-$1-$2-$3-$4 := $1 -fuse-ld=$2, $3, $(idnote.$4)
how.c-$1-$2-$3-$4 := c
cc.c-$1-$2-$3-$4 := $1
ld.c-$1-$2-$3-$4 := $2
k.c-$1-$2-$3-$4 := $3
id.c-$1-$2-$3-$4 := $4
endef
$(foreach cc,$(CCS),\
	$(foreach ld,$(LDS),$(foreach k,pie nopie static shlib,$(foreach id,buildid nobuildid,\
		$(eval $(call c_shape,$(cc),$(ld),$k,$(id))))))\
	$(foreach ld,$(LDS),$(eval $(call c_shape,$(cc),$(ld),pie,bzero))))

# Real-size C: fixtures/real, a program with some 55 KiB of strings and
# constants calling 400 functions of a library of the same compiler and
# linker (linked against it; its soname is the library shape's name, and
# the program finds it by LD_LIBRARY_PATH=build/matrix), so that the first
# read-only PT_LOAD runs past the first page and the dynamic tables are a
# real program's size. KIND pie, nopie or shlib, or pielibc: the same
# program with the library's code linked in, a PIE that needs only libc
# (some ten dynamic symbols, as many small real programs).
define real_shape # CC LD KIND ID
SHAPES += real-$1-$2-$3-$4
group.real-$1-$2-$3-$4 := real
kind.real-$1-$2-$3-$4 := $(if $(filter shlib,$3),lib,exe)
runner.real-$1-$2-$3-$4 := native
note.real-$1-$2-$3-$4 := real-size: $(or $(note.real.$3),55 KiB of strings calling 400 functions of real-$1-$2-shlib-$4), $1 -fuse-ld=$2, $(if $(filter pielibc,$3),pie,$3), $(idnote.$4)
how.real-$1-$2-$3-$4 := real
cc.real-$1-$2-$3-$4 := $1
ld.real-$1-$2-$3-$4 := $2
k.real-$1-$2-$3-$4 := $3
id.real-$1-$2-$3-$4 := $4
lib.real-$1-$2-$3-$4 := $(if $(filter pie nopie,$3),real-$1-$2-shlib-$4)
endef
note.real.shlib   := 400 exported functions, 16 KiB of constants, a PT_TLS
note.real.pielibc := 55 KiB of strings and the 400 functions linked in, only libc imported
$(foreach ld,$(LDS),$(foreach k,shlib pie,\
	$(eval $(call real_shape,gcc,$(ld),$k,nobuildid))))
$(foreach k,shlib pie,$(eval $(call real_shape,clang,lld,$k,nobuildid)))
$(foreach ld,bfd lld,$(eval $(call real_shape,gcc,$(ld),nopie,nobuildid)))
$(foreach ld,lld mold,$(eval $(call real_shape,gcc,$(ld),pielibc,nobuildid)))
$(eval $(call real_shape,clang,lld,pielibc,nobuildid))

# Crafted from the shapes above: one field or one block changed.
define crafted_shape # PREFIX HOW BASE NOTE-TAIL
SHAPES += $1-$3
group.$1-$3 := crafted
kind.$1-$3 := $(kind.$3)
runner.$1-$3 := $(runner.$3)
note.$1-$3 := $3 $4
how.$1-$3 := crafted
craft.$1-$3 := $2
base.$1-$3 := $3
endef
note.noshdr   := with e_shoff, e_shnum and e_shstrndx zeroed (no section headers)
note.xnum     := rewritten to extended numbering (e_shnum 0, e_shstrndx SHN_XINDEX, counts in section 0)
note.pnxnum   := with e_phnum PN_XNUM (0xffff), the count in section 0's sh_info
note.shstrend := with .shstrtab moved to the end of the file (as newer Go releases write it)
note.trail    := with 4099 bytes of data appended after its last byte
craft.noshdr   := noshdr
craft.xnum     := xnum
craft.pnxnum   := pnxnum
craft.shstrend := shstrtab-end
craft.trail    := trail
bases.noshdr   := go-amd64 go-amd64-bid go-s390x go-arm c-gcc-bfd-pie-buildid \
	c-gcc-bfd-pie-nobuildid c-clang-lld-shlib-buildid
bases.xnum     := go-amd64 go-amd64-bid go-mips go-ppc64 c-gcc-bfd-pie-nobuildid
bases.pnxnum   := go-amd64 go-mips c-gcc-bfd-pie-buildid c-gcc-lld-shlib-buildid
bases.shstrend := go-amd64 go-amd64-bid go-s390x go-mipsle
bases.trail    := go-amd64 go-arm go-ppc64 go-amd64-bid c-gcc-bfd-pie-buildid \
	c-gcc-bfd-pie-nobuildid c-gcc-bfd-shlib-nobuildid
$(foreach p,noshdr xnum pnxnum shstrend trail,$(foreach b,$(bases.$p),\
	$(eval $(call crafted_shape,$p,$(craft.$p),$b,$(note.$p)))))

# A real extended-numbering file: 65300 sections from the assembler,
# linked by lld and gold (GNU ld and mold refuse >= 65280 sections).
define many_shape # LD KIND ID
SHAPES += many-gcc-$1-$2-$3
group.many-gcc-$1-$2-$3 := crafted
kind.many-gcc-$1-$2-$3 := $(if $(filter shlib,$2),lib,exe)
runner.many-gcc-$1-$2-$3 := native
note.many-gcc-$1-$2-$3 := 65300 extra sections (extended numbering), gcc -fuse-ld=$1, $2, $(idnote.$3)
how.many-gcc-$1-$2-$3 := many
ld.many-gcc-$1-$2-$3 := $1
k.many-gcc-$1-$2-$3 := $2
id.many-gcc-$1-$2-$3 := $3
endef
$(foreach ld,lld gold,$(foreach k,pie shlib,$(foreach id,buildid nobuildid,\
	$(eval $(call many_shape,$(ld),$k,$(id))))))

# ---- recipes ---------------------------------------------------------------
# $(call cmd.HOW,NAME): the shell commands that write $(M)/NAME.tmp.
godir.hello   := $(TOP)/fixtures/hello
godir.cgo     := $(TOP)/fixtures/gomatrix
godir.cshared := $(TOP)/fixtures/gomatrix
gopkg.hello   := .
gopkg.cgo     := ./cgo
gopkg.cshared := ./cshared
# c-shared also writes a header next to the library.
# The shapes above are Go 1.19's output (Debian's golang-1.19-go, called by
# path; EBID_GO119 overrides it): the golden plans name their offsets. The
# machine's current Go writes other shapes (a GNU note by default), which
# the suite covers with scripts/build-fixtures.sh's current set.
GO119 := $(or $(EBID_GO119),/usr/lib/go-1.19/bin/go)
cmd.go = (cd $(godir.$(src.$1)) && CGO_ENABLED=$(cgo.$1) GOOS=linux \
	GOARCH=$(arch.$1) CC=gcc $(GO119) build -o $(M)/$1.tmp $(flags.$1) \
	$(gopkg.$(src.$1))); rc=$$?; rm -f $(M)/$1.tmp.h $(M)/$1.h; exit $$rc
# The machine's go (GONOW overrides it).
GONOW := $(or $(EBID_GONOW),go)
cmd.gonow = $(subst $(GO119) build,$(GONOW) build,$(cmd.go))

idflags.buildid   := -Wl,--build-id
idflags.nobuildid := -Wl,--build-id=none
idflags.bzero     := -Wl,--build-id=0x$(ZEROS)
kflags.pie        := -fPIE -pie $(TOP)/fixtures/c/hello.c
kflags.nopie      := -fno-PIE -no-pie $(TOP)/fixtures/c/hello.c
kflags.static     := -fno-PIE -no-pie -static $(TOP)/fixtures/c/hello.c
kflags.shlib      := -fPIC -shared $(TOP)/fixtures/c/lib.c
cmd.c = cd $(TOP) && $(cc.$1) -O2 -g -ffile-prefix-map=$(TOP)=. -fuse-ld=$(ld.$1) $(idflags.$(id.$1)) \
	$(kflags.$(k.$1)) -o $(M)/$1.tmp
# The library names itself after its shape (its soname); a program links
# against its library.
comma        := ,
rflags.shlib := -fPIC -shared fixtures/real/lib.c
rflags.pie   := -fPIE -pie fixtures/real/main.c
rflags.nopie := -fno-PIE -no-pie fixtures/real/main.c
rflags.pielibc := -fPIE -pie fixtures/real/main.c fixtures/real/lib.c
cmd.real = cd $(TOP) && $(cc.$1) -O2 -g -ffile-prefix-map=$(TOP)=. -fuse-ld=$(ld.$1) \
	$(idflags.$(id.$1)) $(rflags.$(k.$1)) \
	$(if $(filter shlib,$(k.$1)),-Wl$(comma)-soname$(comma)$1) $(addprefix $(M)/,$(lib.$1)) \
	-o $(M)/$1.tmp
# Like c with gcc, plus an object of 65300 sections.
cmd.many = cd $(TOP) && gcc -O2 -g -ffile-prefix-map=$(TOP)=. -fuse-ld=$(ld.$1) $(idflags.$(id.$1)) \
	$(kflags.$(k.$1)) $(M)/.many.o -o $(M)/$1.tmp
cmd.crafted = python3 $(CRAFT) $(craft.$1) $(M)/$(base.$1) $(M)/$1.tmp

# What each shape is built from, besides this file and the toolchains.
files.hello   := $(shell find $(godir.hello) -type f)
files.cgo     := $(shell find $(godir.cgo) -type f)
files.cshared := $(files.cgo)
deps.go      = $(files.$(src.$1))
deps.gonow   = $(files.$(src.$1))
deps.c       := $(shell find $(TOP)/fixtures/c -type f)
deps.many    = $(deps.c) $(M)/.many.o
deps.real    = $(shell find $(TOP)/fixtures/real -type f) $(addprefix $(M)/,$(lib.$1))
deps.crafted = $(CRAFT) $(TOP)/tests/ebid.py $(M)/$(base.$1)

# ---- rules -----------------------------------------------------------------
.PHONY: all list matrix-deps matrix-dirs matrix-sysroot FORCE
.SECONDEXPANSION:

all: matrix-sysroot $(M)/loader $(SHAPES:%=$(M)/%)

empty :=
tab := $(empty)	$(empty)
list:
	@:$(foreach n,$(SHAPES),$(info $n$(tab)$(group.$n)$(tab)$(kind.$n)$(tab)$(runner.$n)$(tab)$(note.$n)$(tab)$(or $(base.$n),-)$(tab)$(or $(placeholder.$n),-)))

# Every shape: its log is kept only when the build fails.
$(SHAPES:%=$(M)/%): $(M)/%: $$(call deps.$$(how.$$*),$$*) $(SELF) $(M)/.tools \
		| matrix-deps matrix-dirs
	@echo "  MATRIX  build/matrix/$*" >&2
	@rm -f $@.tmp; \
	if ( $(call cmd.$(how.$*),$*) ) >$(M)/.$*.log 2>&1 && mv -f $@.tmp $@; then \
		rm -f $(M)/.$*.log; \
	else \
		rm -f $@.tmp; \
		echo "build-matrix: building '$*' failed:" >&2; \
		sed 's/^/  /' $(M)/.$*.log | tail -n 20 >&2; \
		exit 1; \
	fi

$(M)/.many.o: $(SELF) | matrix-dirs
	@awk 'BEGIN { for (i = 0; i < 65300; i++) \
		printf ".section .m%d,\"a\"\n.byte %d\n", i, i % 256; \
		print ".section .note.GNU-stack,\"\",@progbits" }' >$(M)/.many.s && \
	as -o $@.tmp $(M)/.many.s && mv -f $@.tmp $@ && rm -f $(M)/.many.s

# The loader program that runs the shared-library shapes.
$(M)/loader: $(TOP)/fixtures/c/loader.c $(M)/.tools | matrix-deps matrix-dirs
	@gcc -O2 -o $@.tmp $< -ldl && mv -f $@.tmp $@

# A change of toolchain invalidates every shape: the file changes only then.
$(M)/.tools: FORCE | matrix-deps matrix-dirs
	@{ $(GO119) version; $(GONOW) version; gcc --version | head -n 1; clang --version | head -n 1; \
		ld.bfd --version | head -n 1; ld.gold --version | head -n 1; \
		ld.lld --version | head -n 1; ld.mold --version | head -n 1; \
	} >$@.new 2>&1; \
	if cmp -s $@.new $@; then rm -f $@.new; else mv -f $@.new $@; fi

matrix-deps:
	@$(TOP)/scripts/install-deps.sh matrix || \
		{ echo "build-matrix: missing dependencies" >&2; exit 1; }

matrix-dirs:
	@mkdir -p $(M) $(GOCACHE) $(GOPATH)

# qemu-user sysroots (qemu-ARCH -L build/matrix/sysroot/ARCH) for the Go
# PIE binaries, which name the target's dynamic loader. Go asks for
# /lib64/ld64.so.1 on ppc64le, where glibc's loader is ld64.so.2.
matrix-sysroot: | matrix-dirs
	@mkdir -p $(M)/sysroot/ppc64le/lib64 && \
	ln -sfn /usr/aarch64-linux-gnu $(M)/sysroot/aarch64 && \
	ln -sfn /usr/powerpc64le-linux-gnu/lib $(M)/sysroot/ppc64le/lib && \
	ln -sfn /usr/powerpc64le-linux-gnu/lib/ld64.so.2 \
		$(M)/sysroot/ppc64le/lib64/ld64.so.1 || \
	{ echo "build-matrix: cannot make the qemu sysroots in $(M)/sysroot" >&2; exit 1; }
