#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# Proves that scripts/check-real.sh can fail: runs it on zlib with a
# stand-in for elf-buildid that runs the real tool and then breaks one
# thing, once per check, and requires check-real to fail with that check's
# message. Run by hand after changing check-real.sh (about a minute per
# fault on an idle 2-core machine; zlib is compiled once, in its own work
# directory).
#
# Usage: scripts/check-real-faults.sh [FAULT...]
#   faults: relink (inject without --preserve-times), flipid, failtest,
#   elflint, damage, second
# Environment: EBID (the real tool, default build/elf-buildid),
#   EBID_REAL_FAULTS (work directory, default build/real-faults)
set -u
set -o pipefail

top=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
real=$(realpath "${EBID:-$top/build/elf-buildid}")
work=$(realpath -m "${EBID_REAL_FAULTS:-$top/build/real-faults}")
mkdir -p "$work" || exit 2

# The stand-in: the real inject, then FAULT applied to the tree it ran in
# (the current directory); `second` waits for the second inject.
cat >"$work/ebid" <<EOS
#!/usr/bin/env bash
"$real" "\$@"; rc=\$?
[ "\$1" = inject ] || exit \$rc
if [ -e "$work/second" ]; then
	rm -f "$work/second"
	[ "\$FAULT" = second ] && printf X | dd of=libz.so.1.2.13 bs=1 seek=4096 conv=notrunc 2>/dev/null
	exit \$rc
fi
touch "$work/second"
case "\$FAULT" in
damage) printf X >>example ;;
flipid | failtest | elflint) python3 "$top/scripts/real-faults.py" "\$FAULT" libz.so.1.2.13 ;;
esac
exit \$rc
EOS
chmod +x "$work/ebid"

# fault NAME LINKER MESSAGE: check-real on zlib:LINKER with fault NAME
# must exit 1 and name MESSAGE (a fixed string) in a FAIL line.
fault() {
	local name=$1 linker=$2 msg=$3 rc env=(FAULT="$1" EBID="$work/ebid")
	rm -f "$work/second"
	[ "$name" = relink ] && env=(EBID="$real" EBID_REAL_PRESERVE=0)
	env "${env[@]}" EBID_REAL="$work/real" "$top/scripts/check-real.sh" "zlib:$linker" \
		>"$work/$name.log" 2>&1
	rc=$?
	if [ "$rc" = 1 ] && grep ': FAIL: ' "$work/$name.log" | grep -qF -- "$msg"; then
		echo "ok $name: check-real failed with '$msg'"
		return 0
	fi
	echo "not ok $name: exit $rc, no FAIL line with '$msg' ($work/$name.log)"
	return 1
}

want=("$@")
[ ${#want[@]} -gt 0 ] || want=(relink flipid failtest elflint damage second)
bad=0
for f in "${want[@]}"; do
	case "$f" in
	relink) fault relink bfd 'changed while the tests ran' || bad=1 ;;
	flipid) fault flipid mold 'readelf -n does not print' || bad=1 ;;
	failtest) fault failtest lld "test 'testshared' passed before inject, not after" || bad=1 ;;
	elflint) fault elflint mold 'new eu-elflint --gnu-ld messages' || bad=1 ;;
	damage) fault damage lld 'example: refused but changed (damaged)' || bad=1 ;;
	second) fault second lld 'changed by a second inject -r' || bad=1 ;;
	*) echo "check-real-faults: unknown fault '$f'" >&2; exit 64 ;;
	esac
done
exit "$bad"
