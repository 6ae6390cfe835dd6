#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# tier: slow (the matrix's checker made to fail)
# Issue 3: the matrix checks can fail. scripts/compat-matrix is run with a
# fake elf-buildid that damages files, lies about the id, or refuses
# sloppily; each lie must be caught by the check meant for it, so a green
# matrix (t0310-t0340) means something.
. "$(dirname "$0")/lib.sh"
require_deps matrix

shapes=(go-amd64 go-s390x c-gcc-bfd-pie-buildid)

t_begin "fixtures for the self-test are built"
expect_exit 0 build_locked matrix "$TOP/scripts/build-matrix.sh" "${shapes[@]}"
t_end

# fake MODE: a stand-in for elf-buildid that misbehaves in MODE's way.
fake=$SCRATCH/fake-elf-buildid
cat >"$fake" <<'FAKE'
#!/usr/bin/env bash
cmd=$1
shift
[ "$cmd" = --version ] && { echo "fake-elf-buildid 0"; exit 0; }
dry=0 f=
for a in "$@"; do
	case "$a" in
	-n) dry=1 ;;
	-*) ;;
	*) f=$a ;;
	esac
done
case "$FAKE_MODE" in
corrupt)
	# Claims an injection; changes one byte it did not plan; no note.
	if [ "$dry" = 1 ]; then
		printf '%s: add-note,fill\n  patch 0x40 4 header\n' "$f"
		exit 0
	fi
	printf '\314' | dd of="$f" bs=1 seek=8192 conv=notrunc status=none
	echo "elf-buildid: '$f': injected" >&2
	echo "0123456789abcdef0123456789abcdef01234567  $f"
	;;
refuse)
	# Refuses, but touches the file and gives no linker flag.
	[ "$dry" = 1 ] && exit 2
	touch -d '2001-01-01' "$f"
	echo "elf-buildid: '$f': inject: cannot do it" >&2
	exit 2
	;;
esac
FAKE
chmod +x "$fake"

# run_fake MODE: compat-matrix over the shapes with the fake tool.
run_fake() {
	FAKE_MODE=$1 EBID=$fake "$TOP/scripts/compat-matrix" --no-perf \
		--work "$SCRATCH/run-$1" --tsv "$SCRATCH/$1.tsv" "${shapes[@]}" \
		>/dev/null 2>"$SCRATCH/$1.err"
	echo $?
}

# failed_checks MODE SHAPE: the names of the checks that failed.
failed_checks() {
	awk -F'\t' -v n="$2" '$1 == n { print $10 }' "$SCRATCH/$1.tsv" |
		tr ' ' '\n' | sed -n 's/=fail$//p' | tr '\n' ' '
}

t_begin "a tool that damages bytes and prints a made-up id fails the matrix"
expect_eq "compat-matrix exit" "$(run_fake corrupt)" 1
for s in go-amd64 go-s390x; do
	got=" $(failed_checks corrupt "$s")"
	for c in id section kernel planned again; do
		[[ "$got" == *" $c "* ]] || t_fail "$s: check '$c' did not fail (failed: $got)"
	done
done
got=" $(failed_checks corrupt c-gcc-bfd-pie-buildid)"
for c in action id untouched planned; do
	[[ "$got" == *" $c "* ]] || t_fail "c-gcc-bfd-pie-buildid: check '$c' did not fail (failed: $got)"
done
t_end

t_begin "a refusal without a linker flag that touches the file fails the matrix"
expect_eq "compat-matrix exit" "$(run_fake refuse)" 1
for s in "${shapes[@]}"; do
	got=" $(failed_checks refuse "$s")"
	for c in message untouched; do
		[[ "$got" == *" $c "* ]] || t_fail "$s: check '$c' did not fail (failed: $got)"
	done
done
# Go's internal linking leaves room: refusing it is wrong however it is said.
[[ " $(failed_checks refuse go-s390x)" == *" policy "* ]] ||
	t_fail "go-s390x: refusing Go internal linking did not fail 'policy'"
t_end

t_done
