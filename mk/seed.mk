# SPDX-License-Identifier: MIT
# Real Go programs built from source: scripts/check-seed.sh fetches Gitaly
# 16.11.0, nats-server 2.15.3 and go-sqlite3 1.14.53 through the Go module
# proxy, builds them with the machine's Go as their projects build releases
# (nats-server -buildmode=pie; go-sqlite3 with cgo and -linkmode=external),
# runs some of their packages' own tests (go test -c) before and after
# `inject -r` over a copy, checks the ids with readelf, perf and the
# kernel's rule, links a pair as Bazel's rules_go does
# (-buildid=redacted), then measures inject against Gitaly's link step
# (scripts/seed-bench).
#   make check-seed   build the tool, run; results in build/seed/
#                     (results.tsv, runs.tsv, results.md, bench.tsv);
#                     GOMODCACHE and GOCACHE in build/seed-cache (about
#                     2 GB; rm -rf it for a cold run)
#   SEED=...          which programs: nats sqlite gitaly (the default: all)
#   EBID_SEED_CACHE=DIR  the cache elsewhere (kept across clean checkouts)
#   make seed-doc     put build/seed/results.md into docs/compatibility.md
#   make check-seed-redeploy  a redeploy of Gitaly under load
#                     (scripts/seed-redeploy): release 1 (16.10.3) profiled
#                     with perf record while git clones run through it,
#                     release 2 (16.11.0) moved over its path and
#                     restarted; the old profile read again, without and
#                     with inject + link; audit of both profiles; audit
#                     --running --rescue of the replaced, running release.
#                     Results in build/seed-redeploy/results.md; shares
#                     EBID_SEED_CACHE with check-seed
# Needs the Go module proxy (GOPROXY), go, gcc, readelf, perf, python3.
# Not run by .ci/run: cold, it downloads about 1.5 GB of modules.

.PHONY: check-seed

SEED ?=

check-seed: deps
	$(Q)$(MAKE) --no-print-directory all
	$(Q)EBID=$(BUILD)/elf-buildid scripts/check-seed.sh $(SEED)

.PHONY: check-seed-redeploy

check-seed-redeploy: deps
	$(Q)$(MAKE) --no-print-directory all
	$(Q)EBID=$(BUILD)/elf-buildid scripts/seed-redeploy

.PHONY: seed-doc

# build/seed/results.md into docs/compatibility.md, between its seed
# markers in the "Real software" section (make compat-doc keeps them).
seed-doc:
	$(Q)scripts/seed-render.py --splice docs/compatibility.md build/seed/results.md
