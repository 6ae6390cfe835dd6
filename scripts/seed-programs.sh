# SPDX-License-Identifier: MIT
# shellcheck shell=bash
# The Go programs scripts/check-seed.sh builds from source, one set of
# functions each (sourced, not run). For PROGRAM:
#   PROGRAM_module     the module path and the exact version (module@version);
#                      the exact version also spares a proxy's list endpoint
#   PROGRAM_nosumdb    module path prefixes the checksum database does not
#                      serve (GONOSUMDB), or nothing
#   PROGRAM_shape      how its binaries are linked, for the tables
#   PROGRAM_build OUT  run in the module's source tree: the programs into
#                      OUT/bin, test binaries (go test -c) into OUT/tests, and
#                      OUT/tests.tsv: BINARY<TAB>PACKAGE DIR (where it runs)
#   PROGRAM_smoke BIN  run the programs in BIN; print what they say (the
#                      same before and after inject) or fail
#   PROGRAM_smoke_want an ERE the smoke output must match
# Each build command is echoed (set -x) into the build log.

# A test binary of package ./PKG (or . for the module's root) under OUT.
seed_test_c() {
	local out=$1 pkg=$2 name
	shift 2
	name=$(echo "${pkg#./}" | tr / _)
	[ "$pkg" = . ] && name=root
	go test -c -o "$out/tests/$name.test" "$@" "$pkg" || return 1
	printf '%s\t%s\n' "$name.test" "$pkg" >>"$out/tests.tsv"
}

# NATS server: the messaging server, a single static Go program with a large
# test suite (most of it in ./server, an hour; these packages take seconds).
# Built as its .goreleaser.yml builds releases (-trimpath, CGO_ENABLED=0,
# -w and the version -X flags), and as a position-independent executable
# (-buildmode=pie, linked by Go's own linker): the PIE shape. Not ./logger:
# its syslog tests end the binary (exit 1) where no syslog daemon listens.
# Not ./server/pse: TestPSEmulationCPU compares ps(1)'s CPU share with its
# own sample taken moments later, off by 100 % once on this loaded machine.
nats_module() { echo github.com/nats-io/nats-server/v2@v2.15.3; }
nats_nosumdb() { :; }
nats_shape() { echo 'pie, internal linking, CGO_ENABLED=0, -trimpath -w'; }
nats_build() {
	local out=$1 p
	local ld="-w -X github.com/nats-io/nats-server/v2/server.gitCommit=seed -X github.com/nats-io/nats-server/v2/server.serverVersion=v2.15.3"
	export CGO_ENABLED=0
	set -x
	go build -trimpath -buildmode=pie -ldflags "$ld" -o "$out/bin/nats-server" . || return 1
	for p in ./conf ./internal/ldap ./server/avl ./server/gsl ./server/stree ./server/thw; do
		seed_test_c "$out" "$p" -trimpath -buildmode=pie -ldflags "$ld" || return 1
	done
	{ set +x; } 2>/dev/null
}
nats_smoke() { "$1/nats-server" --version; }
nats_smoke_want() { echo '^nats-server: v2\.15\.3$'; }

# go-sqlite3: the cgo SQLite driver (SQLite's C amalgamation compiled in),
# the most used cgo package; its own test suite (the root package) is the
# program here, linked with -linkmode=external (gcc and ld.bfd link it), with
# _example/simple, a program that uses it.
sqlite_module() { echo github.com/mattn/go-sqlite3@v1.14.53; }
sqlite_nosumdb() { :; }
sqlite_shape() { echo 'exe, cgo, -linkmode=external (gcc, ld.bfd)'; }
sqlite_build() {
	local out=$1
	export CGO_ENABLED=1
	set -x
	go build -ldflags=-linkmode=external -o "$out/bin/sqlite-simple" ./_example/simple || return 1
	seed_test_c "$out" . -ldflags=-linkmode=external || return 1
	{ set +x; } 2>/dev/null
}
sqlite_smoke() {
	local d
	d=$(mktemp -d) || return 1
	(cd "$d" && "$1/sqlite-simple" | tail -n 3)
	rm -rf "$d"
}
sqlite_smoke_want() { echo '^3 baz$'; }

# Gitaly: GitLab's Git RPC server. Its Makefile builds every program with
# -tags "$SERVER_BUILD_TAGS" (tracing and profiling compiled in) and -ldflags
# '-X .../internal/version.version=16.11.0'; it also passes -B 0x<a fixed
# placeholder> and then rewrites that GNU id with its own tool
# (tools/replace-buildid), the step inject replaces: that flag is left out.
# gitaly embeds gitaly-hooks, -ssh, -lfs-smudge and -gpg (go:embed of
# _build/bin/*), so those four are built first, as the Makefile does.
# Tests: packages whose tests need neither git nor a database nor a test
# setup (no gittest, testcfg): those pass here.
gitaly_module() { echo gitlab.com/gitlab-org/gitaly/v16@v16.11.0; }
gitaly_nosumdb() { echo gitlab.com/gitlab-org/gitaly; }
gitaly_shape() { echo 'exe, internal linking, cgo off (no C compiler use)'; }
gitaly_tags=tracer_static,tracer_static_jaeger,tracer_static_stackdriver,continuous_profiler_stackdriver
gitaly_ldflags='-X gitlab.com/gitlab-org/gitaly/v16/internal/version.version=16.11.0'
gitaly_build() {
	local out=$1 c p
	export CGO_ENABLED=0
	mkdir -p _build/bin || return 1
	set -x
	for c in gitaly-hooks gitaly-ssh gitaly-lfs-smudge gitaly-gpg; do
		go build -ldflags "$gitaly_ldflags" -o "_build/bin/$c" "./cmd/$c" || return 1
		cp -p "_build/bin/$c" "$out/bin/$c" || return 1
	done
	go build -ldflags "$gitaly_ldflags" -tags "$gitaly_tags" -o "$out/bin/gitaly" ./cmd/gitaly || return 1
	for p in ./internal/log ./internal/git/pktline ./internal/streamcache ./internal/grpc/proxy \
		./internal/errors/cfgerror; do
		seed_test_c "$out" "$p" -ldflags "$gitaly_ldflags" -tags "$gitaly_tags" || return 1
	done
	{ set +x; } 2>/dev/null
}
gitaly_smoke() { "$1/gitaly" --version; }
gitaly_smoke_want() { echo '^Gitaly, version 16\.11\.0'; }
