# SPDX-License-Identifier: MIT
# The release packages' tests (t0910 make deb, t0915 make rpm): the same
# package from two places; source after lib.sh. Not a test itself.
# shellcheck shell=bash

# copy_source DIR: HEAD of $TOP (git clone), or the tree itself when $TOP
# is an extracted tarball.
copy_source() {
	if git -C "$TOP" rev-parse --verify -q HEAD >/dev/null 2>&1; then
		git clone -q "$TOP" "$1"
	else
		mkdir -p "$1" && tar -C "$TOP" --exclude=./build -cf - . | tar -C "$1" -xf -
	fi
}

# build_twice TARGET: `make TARGET` in a clone, $SCRATCH/a, then in b, its
# make dist tarball extracted under /tmp (outside git; from a tarball, a
# copy) with umask 077, each checked to exit 0. Sets V (the version) and
# B (b's directory, removed at exit); a's make output is in $SCRATCH/.a.
# The caller compares what each built.
build_twice() {
	local target=$1 ext st
	copy_source "$SCRATCH/a" 2>"$SCRATCH/.cp.err"
	expect_eq "copy a" "$(cat "$SCRATCH/.cp.err")" ""
	expect_exit 0 make -C "$SCRATCH/a" --no-print-directory "$target"
	cp "$SCRATCH/.out" "$SCRATCH/.a"
	V=$(cd "$SCRATCH/a" && scripts/version.sh)
	ext=$(mktemp -d "/tmp/elf-buildid-$T_NAME.XXXXXX")
	# shellcheck disable=SC2064 # ext is expanded now, on purpose
	trap "rm -rf '$ext'" EXIT
	if [ -d "$SCRATCH/a/.git" ]; then
		expect_exit 0 make -C "$SCRATCH/a" --no-print-directory dist
		tar -xzf "$SCRATCH/a/build/elf-buildid-$V.tar.gz" -C "$ext"
		B=$ext/elf-buildid-$V
	else
		B=$ext/b
		copy_source "$B"
	fi
	(cd "$B" && umask 077 && make --no-print-directory "$target") >"$SCRATCH/.b" 2>&1
	st=$?
	expect_eq "make $target in b: $(tail -n 3 "$SCRATCH/.b")" "$st" 0
}
