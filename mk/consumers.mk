# SPDX-License-Identifier: MIT
# Consumers of the id. tests/t0800-consumers.sh measures what
# each consumer reports for each shape and writes build/consumers/results.tsv;
# scripts/consumers-doc renders docs/consumers.md from it.
#   make consumers-doc   docs/consumers.md again from the last results
#                        (CONSUMERS_TSV=FILE for other results)

.PHONY: consumers-doc

CONSUMERS_TSV ?= build/consumers/results.tsv

consumers-doc:
	$(Q)scripts/consumers-doc $(CONSUMERS_TSV)
