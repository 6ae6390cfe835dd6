# SPDX-License-Identifier: MIT
# elf-buildid.mk: a post-link build-id step for Go programs built by GNU make.
# Include it from your Makefile (docs/packaging.md shows it in use):
#
#   include elf-buildid.mk
#
#   # Either add the step to your own link rule ...
#   bin/server: $(shell find . -name '*.go') go.mod
#   	go build -o $@ ./cmd/server
#   	$(ELF_BUILDID_POST_LINK)
#
#   # ... or let the snippet write the rule (PROGRAM, PACKAGE[, GOENV]):
#   $(eval $(call elf-buildid-go-program,bin/agent,./cmd/agent))
#   $(eval $(call elf-buildid-go-program,bin/agent-arm64,./cmd/agent,GOARCH=arm64))
#
#   # and gate what you built:
#   release: bin/server bin/agent
#   	$(MAKE) elf-buildid-verify ELF_BUILDID_VERIFY="bin/server bin/agent"
#
# $(ELF_BUILDID_POST_LINK) stamps $@ in place and prints "ID  FILE"; it is
# idempotent (an already-stamped file is left as it is). If stamping fails,
# the target is deleted, so the next make does not take an id-less binary
# for up to date.
#
# Variables (set them before or after the include):
#   ELF_BUILDID              the tool (default: elf-buildid on PATH)
#   ELF_BUILDID_INJECT_FLAGS extra inject options, e.g. --hash=sha256
#   ELF_BUILDID_VERIFY_FLAGS extra verify options, e.g. --perf=off
#   ELF_BUILDID_VERIFY       files for the elf-buildid-verify target
#   GO                       the go command (default: go)
#   ELF_BUILDID_GOFLAGS      flags for the generated go build rules

ELF_BUILDID ?= elf-buildid
ELF_BUILDID_INJECT_FLAGS ?=
ELF_BUILDID_VERIFY_FLAGS ?=
ELF_BUILDID_VERIFY ?=
ELF_BUILDID_GOFLAGS ?=
GO ?= go

# The recipe line that stamps the target just linked.
ELF_BUILDID_POST_LINK = $(ELF_BUILDID) inject $(ELF_BUILDID_INJECT_FLAGS) $@ || { rm -f $@; exit 1; }

# $(call elf-buildid-go-program,PROGRAM,PACKAGE[,ENV]): a rule that builds
# PACKAGE into PROGRAM with ENV (e.g. GOARCH=arm64) and stamps it. It always
# runs go build (Go's cache decides what to relink: an unchanged program is
# not rewritten, and its id stays).
define elf-buildid-go-program
$(1): elf-buildid-FORCE
	@mkdir -p $$(dir $$@)
	$(3) $$(GO) build $$(ELF_BUILDID_GOFLAGS) -o $$@ $(2)
	$$(ELF_BUILDID_POST_LINK)
endef

.PHONY: elf-buildid-FORCE elf-buildid-verify
elf-buildid-FORCE:

# The gate over $(ELF_BUILDID_VERIFY) (files or directories).
elf-buildid-verify:
	@test -n "$(strip $(ELF_BUILDID_VERIFY))" || { echo "elf-buildid.mk: set ELF_BUILDID_VERIFY to the files to verify" >&2; exit 2; }
	$(ELF_BUILDID) verify $(ELF_BUILDID_VERIFY_FLAGS) -r $(ELF_BUILDID_VERIFY)
