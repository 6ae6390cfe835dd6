# SPDX-License-Identifier: MIT
# Helpers for the tests over artifacts (.deb, .rpm, tarballs, OCI images;
# issue 35); source after lib.sh. Not a test itself (tests/run.sh runs
# only tNNNN-*.sh).
# shellcheck shell=bash

# artifacts_prelude [own]: the artifacts group's Debian packages (a skip
# when missing: `make test` installs them) and the fixtures of
# scripts/build-artifact-fixtures.sh (a failure: they are ours to build),
# built under the lock `artifacts`; with `own`, make deb's and make rpm's
# packages too (own/, some 30 seconds when the version changed). Sets
# $ARTIFACTS (build/fixtures/artifacts: docs/packaging.md, "The artifact
# fixtures"; expected.tsv lists every member of the good ones).
artifacts_prelude() {
	require_deps artifacts
	[ "${1:-}" = own ] && require_deps ship
	if ! build_locked artifacts "$TOP/scripts/build-artifact-fixtures.sh" "$@" \
		>"$SCRATCH/.artfix.log" 2>&1; then
		echo "not ok 1 - scripts/build-artifact-fixtures.sh failed: $(tail -n 3 "$SCRATCH/.artfix.log")"
		exit 1
	fi
	ARTIFACTS=$FIXTURES/artifacts
}

# artifact_members ARTIFACT [KIND]: the members expected.tsv lists for
# ARTIFACT (a path below $ARTIFACTS), of KIND (elf, file, symlink:...,
# hardlink:...) when given, one "MEMBER ID" a line.
artifact_members() {
	awk -F '\t' -v a="$1" -v k="${2:-}" \
		'$1 == a && (k == "" || $3 == k || index($3, k ":") == 1) { print $2, $4 }' \
		"$ARTIFACTS/expected.tsv"
}
