# SPDX-License-Identifier: MIT
# Compatibility matrix: build every fixture shape, then run the
# real tool over each and regenerate docs/compatibility.md from the results.
#   make matrix        build build/matrix/ (cached; Go cache in build/go/cache)
#   make compat-doc    matrix + build/elf-buildid, then write the document
# The shapes are make rules of their own, in mk/matrix/shapes.mk (not
# included here: its Go environment is for its recipes only);
# scripts/build-matrix.sh runs them. `make check-slow` runs the same build
# and checks through tests/t03*.sh (their headers say `# tier: slow`);
# `make test` only t0380's and t0383's few shapes, built on the spot.

.PHONY: matrix compat-doc

matrix:
	$(Q)scripts/build-matrix.sh

# A shape that fails is reported in the document (and by tests/t03*.sh),
# so exit status 1 (some shape failed) still counts as a written document.
compat-doc: all matrix
	$(Q)EBID=$(BUILD)/elf-buildid scripts/compat-matrix --doc docs/compatibility.md \
		--json build/compatibility.json; rc=$$?; [ $$rc -le 1 ]
