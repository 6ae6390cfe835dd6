# SPDX-License-Identifier: MIT
# Real software: scripts/check-real.sh builds zlib, expat and pcre2 from
# Debian's source packages with their own build systems and each of four
# linkers, injects their build trees with $(BUILD)/elf-buildid and runs
# their own test suites before and after, without relinking.
#   make check-real   install its packages (scripts/install-deps.sh real),
#                     build the tool, run; results in build/real/
#   make real-doc     put build/real/results.md into docs/compatibility.md
#                     (its "Real software" section; make compat-doc keeps it)
#   make check-real-faults  each check of check-real made to fail once,
#                     on zlib (scripts/check-real-faults.sh)
#   REAL=...          which runs: PROJECT[:LINKER,...] words (default: zlib
#                     and expat with every linker, pcre2 with lld and mold)

.PHONY: check-real real-doc check-real-faults

REAL ?=

check-real: DEPS_GROUPS = real
check-real: deps
	$(Q)$(MAKE) --no-print-directory all
	$(Q)EBID=$(BUILD)/elf-buildid scripts/check-real.sh $(REAL)

real-doc:
	$(Q)scripts/real-render.py --splice docs/compatibility.md build/real/results.md

check-real-faults: DEPS_GROUPS = real
check-real-faults: deps
	$(Q)$(MAKE) --no-print-directory all
	$(Q)EBID=$(BUILD)/elf-buildid scripts/check-real-faults.sh
