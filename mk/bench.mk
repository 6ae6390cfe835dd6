# SPDX-License-Identifier: MIT
# Benchmarks. `make bench` (Makefile) runs scripts/bench, which
# measures, writes what it measured to build/bench/results.json and then
# has scripts/bench-render write docs/benchmarks.md from that file.
#   make bench-doc    docs/benchmarks.md again from the last results,
#                     without measuring (BENCH_JSON=FILE for other results)

.PHONY: bench-doc

BENCH_JSON ?= build/bench/results.json

bench-doc:
	$(Q)scripts/bench-render $(BENCH_JSON) >/dev/null
