# SPDX-License-Identifier: MIT
# Golden --dry-run outputs of the compatibility-matrix shapes.
# tests/t0360-golden-dry-run.sh compares the tool's plans with
# the committed tests/golden/dry-run/NAME.txt, so that any change to where
# the planner puts the note, the headers or the names shows as a diff.
#
#   make golden-update   build the tool and the matrix (both cached), then
#                        rewrite tests/golden/dry-run/ from them; review the
#                        diff (git diff tests/golden) before committing it
#
# tests/golden/dry-run/toolchain records the toolchains the shapes were
# built with (build/matrix/.tools): other toolchains make other binaries,
# so t0360 only fails on a difference when the toolchain is the same.

.PHONY: golden-update

GOLDEN_DRY_RUN := tests/golden/dry-run
GOLDEN_MATRIX  := $(or $(EBID_MATRIX),build/matrix)

golden-update: all matrix
	$(Q)rm -rf $(GOLDEN_DRY_RUN).new
	$(Q)tests/golden/dry-run.sh $(BUILD)/elf-buildid $(GOLDEN_MATRIX) $(GOLDEN_DRY_RUN).new
	$(Q)cp $(GOLDEN_MATRIX)/.tools $(GOLDEN_DRY_RUN).new/toolchain
	$(Q)rm -rf $(GOLDEN_DRY_RUN) && mv $(GOLDEN_DRY_RUN).new $(GOLDEN_DRY_RUN)
	$(Q)echo "golden-update: $$(ls $(GOLDEN_DRY_RUN)/*.txt | wc -l) shapes in $(GOLDEN_DRY_RUN)/"
	$(Q)git status --short -- $(GOLDEN_DRY_RUN) 2>/dev/null | head -n 20 || true
