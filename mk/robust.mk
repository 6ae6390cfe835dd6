# SPDX-License-Identifier: MIT
# Robustness targets: fuzzing, the fault shim, full-size runs.
#
#   make fuzz [FUZZ_SECONDS=60] [FUZZ_ARGS=...] [FUZZ_HARNESSES=...]
#                        build the libFuzzer harnesses and fuzz each for
#                        FUZZ_SECONDS: fuzz_inject (ELF reading and planning)
#                        into build/fuzz/, fuzz_pprof (profile reading) into
#                        build/fuzz/pprof/; findings go to OUTDIR/artifacts/,
#                        figures to OUTDIR/stats.txt
#                        and fuzz_artifact (the artifact reader) into
#                        build/fuzz/artifact/
#   make fuzz-pprof      the same for fuzz_pprof only
#   make fuzz-build      only build build/fuzz/fuzz_inject and fuzz_pprof
#   make faultshim       build the LD_PRELOAD fault shim
#   make robust          every t06NN test at full size: all corrupt inputs,
#                        200 SIGKILL runs (EBID_ROBUST_FULL=1)
#   make robust-deps     install what these need (scripts/install-deps.sh robust)

FUZZ_CC      ?= clang
FUZZ_SECONDS ?= 60
FUZZ_ARGS    ?=
FUZZ_CFLAGS_EXTRA ?=
FUZZ_DIR     := build/fuzz
FUZZ_BIN     := $(FUZZ_DIR)/fuzz_inject
FUZZ_PPROF_BIN := $(FUZZ_DIR)/fuzz_pprof
FUZZ_ARTIFACT_BIN := $(FUZZ_DIR)/fuzz_artifact
FUZZ_HARNESSES ?= fuzz_inject fuzz_pprof fuzz_artifact
# The library's sources, compiled directly by clang (no src/cli/main.c, no
# command-line files): LIB_SRCS from the Makefile when it has one.
FUZZ_SRCS    := $(LIB_SRCS)
FUZZ_CFLAGS  := -g -O1 -std=c17 -D_GNU_SOURCE -D_FILE_OFFSET_BITS=64 \
	-Iinclude -Isrc $(PKG_CFLAGS) -fno-omit-frame-pointer \
	-fsanitize=fuzzer,address,undefined -fno-sanitize-recover=undefined \
	$(FUZZ_CFLAGS_EXTRA)

FAULTSHIM    := build/robust/faultshim.so

.PHONY: fuzz fuzz-build fuzz-pprof faultshim robust robust-deps

robust-deps:
	$(Q)scripts/install-deps.sh robust

$(FUZZ_BIN): tests/fuzz/fuzz_inject.c $(FUZZ_SRCS) $(HEADERS)
	@mkdir -p $(dir $@)
	@$(if $(Q),echo "  FUZZCC  $@")
	$(Q)$(FUZZ_CC) $(FUZZ_CFLAGS) -o $@ tests/fuzz/fuzz_inject.c \
		$(FUZZ_SRCS) $(PKG_LIBS)

# The profile reader's harness: where the library would start perf (the
# perf.data path of ebid_profile_read), the link sends the call to the
# harness's __wrap_ebid_perf_hits, which starts nothing.
$(FUZZ_PPROF_BIN): tests/fuzz/fuzz_pprof.c $(FUZZ_SRCS) $(HEADERS)
	@mkdir -p $(dir $@)
	@$(if $(Q),echo "  FUZZCC  $@")
	$(Q)$(FUZZ_CC) $(FUZZ_CFLAGS) -Wl,--wrap=ebid_perf_hits -o $@ \
		tests/fuzz/fuzz_pprof.c $(FUZZ_SRCS) $(PKG_LIBS)

# The artifact reader's harness: the library and the reader's own files of
# src/cli/ (not the command line).
FUZZ_ARTIFACT_SRCS := src/cli/artifact.c src/cli/artifact_load.c src/cli/report.c \
	src/cli/artifact_oci.c src/cli/json.c
$(FUZZ_ARTIFACT_BIN): tests/fuzz/fuzz_artifact.c $(FUZZ_SRCS) $(FUZZ_ARTIFACT_SRCS) $(HEADERS)
	@mkdir -p $(dir $@)
	@$(if $(Q),echo "  FUZZCC  $@")
	$(Q)$(FUZZ_CC) $(FUZZ_CFLAGS) -o $@ tests/fuzz/fuzz_artifact.c \
		$(FUZZ_ARTIFACT_SRCS) $(FUZZ_SRCS) $(PKG_LIBS)

fuzz-build: robust-deps
	$(Q)$(MAKE) --no-print-directory $(FUZZ_BIN) $(FUZZ_PPROF_BIN) \
		$(FUZZ_ARTIFACT_BIN)

# Every harness of FUZZ_HARNESSES runs, even after one has findings.
fuzz: fuzz-build
	$(Q)$(if $(filter fuzz_inject,$(FUZZ_HARNESSES)),scripts/build-fixtures.sh)
	$(Q)st=0; for h in $(FUZZ_HARNESSES); do \
		case $$h in fuzz_inject) out=$(FUZZ_DIR) ;; *) out=$(FUZZ_DIR)/$${h#fuzz_} ;; esac; \
		echo "== $$h ($$out)"; \
		tests/fuzz/run-fuzz.sh $(FUZZ_DIR)/$$h $(FUZZ_SECONDS) $$out $(FUZZ_ARGS) || st=1; \
	done; exit $$st

fuzz-pprof:
	$(Q)$(MAKE) --no-print-directory fuzz FUZZ_HARNESSES=fuzz_pprof

$(FAULTSHIM): tests/fault/faultshim.c
	@mkdir -p $(dir $@)
	@$(if $(Q),echo "  CC      $@")
	$(Q)$(CC) -shared -fPIC -O2 -g -Wall -Wextra -o $@ $< -ldl

faultshim: $(FAULTSHIM)

robust: deps robust-deps
	$(Q)$(MAKE) --no-print-directory all
	$(Q)EBID_BUILD=$(BUILD) EBID_ROBUST_FULL=1 \
		EBID_TEST_TIMEOUT=$${EBID_TEST_TIMEOUT:-14400} \
		tests/run.sh $(sort $(filter-out tests/t0601-%,$(wildcard tests/t06[0-9][0-9]-*.sh)))

# The crash-state harness (tests/crash/, t0645 and t0646): the recorder
# preloaded into a real run, and the recovery step alone.
CRASHSHIM    := build/crash/recshim.so
CRASHRECOVER := $(BUILD)/crash/ebid-recover

$(CRASHSHIM): tests/crash/recshim.c
	@mkdir -p $(dir $@)
	@$(if $(Q),echo "  CC      $@")
	$(Q)$(CC) -shared -fPIC -O2 -g -Wall -Wextra -o $@ $< -ldl -lpthread

$(CRASHRECOVER): tests/crash/recover.c $(BUILD)/libelf-buildid.a
	@mkdir -p $(dir $@)
	@$(if $(Q),echo "  CC      $@")
	$(Q)$(CC) $(ALL_CFLAGS) $(ALL_LDFLAGS) -o $@ $< $(BUILD)/libelf-buildid.a $(PKG_LIBS) -lpthread

.PHONY: crashshim
crashshim: $(CRASHSHIM) $(CRASHRECOVER)
