#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# (d) The injected binary behaves as before: same output and exit status,
# same `go version -m` (build info) and `go tool buildid` (Go build-id).
# Only for the variant without a Go note does `go tool buildid` change: Go
# then falls back to the GNU note (what gccgo binaries carry).
. "$(dirname "$0")/lib.sh"
require_tool
require_fixtures "${VARIANTS[@]}"

# run_bin BIN ARGS...: its stdout, stderr and exit status in one text.
run_bin() {
	local o e r
	o=$("$@" 2>"$SCRATCH/.bin.err")
	r=$?
	e=$(cat "$SCRATCH/.bin.err")
	printf 'stdout:\n%s\nstderr:\n%s\nexit: %s\n' "$o" "$e" "$r"
}

have go || echo "# go not installed: go version -m checks skipped"
for v in "${VARIANTS[@]}"; do
	f=$(copy_fixture "$v")
	out_before=$(run_bin "$f" a b c)
	gov_before=$(have go && go version -m "$f" 2>&1)
	gbid_before=$(have go && go tool buildid "$f" 2>&1)

	t_begin "$v: inject"
	inject_ok "$f"
	t_end
	injected=$id # the id the blocks below check against

	t_begin "$v: same output and exit status after inject"
	expect_eq "output" "$(run_bin "$f" a b c)" "$out_before"
	expect_match "output" "$out_before" 'hello from the elf-buildid fixture'
	t_end

	t_begin "$v: go version -m and go tool buildid unchanged"
	if have go; then
		expect_eq "go version -m" "$(go version -m "$f" 2>&1)" "$gov_before"
		expect_match "go version -m" "$gov_before" 'path[[:space:]]+example.com/hello'
		if [ "$v" = nobuildid ]; then
			# With no Go note, Go reads a GNU note instead (as gccgo
			# writes): it prints the id's raw bytes and a newline.
			expect_eq "go tool buildid before" "$gbid_before" ""
			expect_ne "the id inject printed" "$injected" ""
			expect_eq "go tool buildid (hex)" \
				"$(go tool buildid "$f" 2>&1 | od -An -tx1 -v | tr -d ' \n')" "${injected}0a"
		else
			expect_eq "go tool buildid" "$(go tool buildid "$f" 2>&1)" "$gbid_before"
		fi
	else
		t_skip_if "go not installed"
	fi
	t_end
done

t_done
