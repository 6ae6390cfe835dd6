# SPDX-License-Identifier: MIT
# ThreadSanitizer pass: the threaded paths under TSan.
#
#   make test-tsan     build build/tsan/ (make SANITIZE=thread) and run
#                      TSAN_TESTS on it; any TSan report fails the target
#
# TSAN_TESTS is explicit: the scripts that run the tool with -j 2 or more
# (tree mode) or --hash=sha1-tree (found by grep), the concurrency test,
# the unit test that runs two walks in two threads, and t0460, whose
# Debian programs are big enough (over 4 MiB) that an artifact's member is
# hashed by a second thread while it is unpacked (cli/artifact_load.c). A script
# that is missing fails in tests/run.sh; it is not skipped.
# Left out: t0550 (names -j and sha1-tree only as completion words), t0600
# (its --jobs 2 is the driver's, the tool runs one file at a time) and t0620
# (valgrind cannot run a TSan binary; it skips only for ASan and UBSan).
TSAN_TESTS := tests/t0460-artifacts.sh \
	tests/t0520-kit-package-hook.sh tests/t0540-install-tree.sh \
	tests/t0630-fault-injection.sh tests/t0631-fault-injection-moves.sh \
	tests/t0640-kill.sh \
	tests/t0178-unique-history.sh \
	tests/t0700-concurrency.sh tests/t0710-hostile-tree.sh \
	build/tsan/unit/test_at

TSAN_BUILD   := build/tsan
TSAN_REPORTS := $(CURDIR)/$(TSAN_BUILD)/reports
# A report stops the process at once with exit 66 (halt_on_error), which
# every check of an exit status sees. Each report is also written to its
# own file (log_path, one per process, not to stderr) and the target fails
# when any was written: that catches a run whose exit status a test does
# not check, a run in the background, and one that is killed afterwards.
# TSAN_OPTIONS from the environment come last and win (halt_on_error=0
# lists every race of a run instead of the first).
# No suppressions file: libelf and libcrypto are not instrumented, so TSan
# sees none of their memory accesses, only their pthread calls (which it
# intercepts). Both sides of a report are accesses in our code, then. A
# false one could come only from a library that orders our memory with
# atomics of its own; none has been seen (the whole suite ran clean).
TSAN_OPTS := halt_on_error=1 exitcode=66 second_deadlock_stack=1 \
	log_path=$(TSAN_REPORTS)/tsan
# gcc 12's TSan needs the address layout of vm.mmap_rnd_bits <= 28. With
# more ASLR bits (32 on many distribution kernels) an instrumented process
# dies with "FATAL: ThreadSanitizer: unexpected memory mapping", always at
# 32 and at random at 29-31. setarch -R turns ASLR off for the tests'
# process tree only (a personality flag, kept across exec): no root, no
# state to restore, no other process affected, the same layout every run.
# Lowering the sysctl also works but changes the whole machine until
# reboot. Where personality() is refused (Docker's default seccomp
# profile) the tests run as they are; the check below stops early, saying
# what to do, if TSan then cannot start.
TSAN_RUN = $(shell setarch "$$(uname -m)" -R true >/dev/null 2>&1 && \
	echo 'setarch "$$(uname -m)" -R')

.PHONY: test-tsan

test-tsan: deps
	$(Q)$(MAKE) --no-print-directory SANITIZE=thread all unit
	$(Q)rm -rf $(TSAN_REPORTS) && mkdir -p $(TSAN_REPORTS)
	$(Q)out=$$($(TSAN_RUN) $(TSAN_BUILD)/elf-buildid --version 2>&1); \
	case "$$out" in *"unexpected memory mapping"*) \
		echo "test-tsan: ThreadSanitizer cannot start: $$out" >&2; \
		echo "test-tsan: as root, 'sysctl vm.mmap_rnd_bits=28'," \
			"or allow personality(ADDR_NO_RANDOMIZE) for setarch -R" >&2; \
		exit 1 ;; esac
	$(Q)TSAN_OPTIONS="$(TSAN_OPTS) $${TSAN_OPTIONS:-}" \
		EBID_BUILD=$(TSAN_BUILD) \
		EBID_TEST_TIMEOUT=$${EBID_TEST_TIMEOUT:-900} \
		$(TSAN_RUN) tests/run.sh $(TSAN_TESTS); rc=$$?; \
	if [ -n "$$(ls -A $(TSAN_REPORTS))" ]; then \
		echo "test-tsan: ThreadSanitizer reports (each distinct one once):"; \
		seen=; for f in $(TSAN_REPORTS)/*; do \
			s=$$(grep -m1 '^SUMMARY' "$$f"); \
			case "$$seen" in *"|$$s|"*) continue ;; esac; \
			seen="$$seen|$$s|"; \
			echo "== $(TSAN_BUILD)/reports/$${f##*/}"; head -n 40 "$$f"; \
		done; \
		echo "test-tsan: $$(ls $(TSAN_REPORTS) | wc -l) report file(s) in $(TSAN_BUILD)/reports/"; \
		rc=1; \
	fi; \
	exit $$rc
