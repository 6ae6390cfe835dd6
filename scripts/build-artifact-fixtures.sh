#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# Builds the artifacts of verify's artifact tests (issue 35) into
# build/fixtures/artifacts/ (docs/packaging.md, "The artifact fixtures",
# says what each holds):
#   debian/     Debian's own packages, by apt-get download, the versions
#               pinned below (DEBS); FETCHED lists what was fetched
#   tar/        multi.tar and its .gz, .xz and .zst (GNU tar, --sort=name,
#               time 0, owner 0:0): ELF programs, a library, an object, a
#               text file, a symlink, a hard link
#   oci/        image/ an OCI image layout of two gzip layers with
#               whiteouts (scripts/mkartifacts.py), image.tar (that
#               directory as skopeo's oci-archive: transport writes it) and
#               docker-save.tar (the image as docker >= 25 saves it:
#               uncompressed layers, manifest.json; made here, not by
#               docker)
#   bad/        truncated.deb, truncated.tar.zst, corrupt.tar.gz,
#               corrupt-crc.tar.gz, bomb.tar.zst, dotdot.tar, abspath.tar,
#               symlink-bin.tar, hardlink-missing.tar, bad-digest/ and
#               bad-digest.tar
#   expected.tsv  every non-directory member of the good artifacts as an
#               independent tool extracts it (dpkg-deb -x, tar -x,
#               rpm2cpio | cpio, umoci unpack: the image after its
#               whiteouts), one line each:
#               ARTIFACT MEMBER KIND ID (tab-separated; KIND elf, file,
#               symlink:TARGET or hardlink:FIRST; ID readelf's GNU
#               build-id of the member's bytes, a hard link's those of
#               its first name, or - when there is none)
#   own/        only when asked (`own`): make deb's and make rpm's packages
#               of this tree, as elf-buildid.deb, elf-buildid.rpm and
#               elf-buildid-debuginfo.rpm (some 40 seconds)
# The members are copies of build/fixtures (scripts/build-fixtures.sh) and
# build/fixtures/kit (scripts/build-kit-fixtures.sh), built here if needed.
# A no-op when up to date: everything but debian/ and own/ is rebuilt when
# missing, with -f, or when this script, scripts/mkartifacts.py or an
# input is newer than build/fixtures/artifacts/.stamp; a package is
# downloaded once. Before the stamp is written every artifact is checked
# by a tool we did not write (sha256sum, umoci, gzip -t, zstd -l, tar).
# A download that fails fails the build.
#
# Usage: scripts/build-artifact-fixtures.sh [-f] [own]
# Needs: scripts/install-deps.sh artifacts (apt-get, dpkg-deb, GNU tar,
# gzip, xz, zstd, python3, umoci; `own` needs the ship group's too).
set -u
set -o pipefail
export LC_ALL=C TZ=UTC

top=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
src=${EBID_FIXTURES:-$top/build/fixtures}
out=$src/artifacts
py=$top/scripts/mkartifacts.py
me=build-artifact-fixtures

# Debian 12's packages, pinned (amd64): Go programs (age: age linked by
# gcc with ld's id, age-keygen by Go's linker with none; fzf: with an id,
# and a shell script and a symlink beside it; shfmt: none) and a small C
# one (hello, ld's id). Debian's debug archive (bookworm-debug), which
# holds hello-dbgsym, is not reachable from the machines this was made
# on, so no -dbgsym package is fetched.
DEBS=(age=1.1.1-1+b3 fzf=0.38.0-1+b1 shfmt=3.6.0-1+b2 hello=2.10-3)
# The fixtures the artifacts copy.
GO_INPUTS=(plain pie existing)
KIT_INPUTS=(kit/cprog kit/cprog-noroom kit/libkit.so.1 kit/kitobj.o)

die() { echo "$me: $*" >&2; exit 1; }

force=0 own=0
for a in "$@"; do
	case "$a" in
	-f) force=1 ;;
	own) own=1 ;;
	*) die "usage: $0 [-f] [own]" ;;
	esac
done
for c in apt-get dpkg-deb tar gzip xz zstd python3 sha256sum readelf umoci flock; do
	command -v "$c" >/dev/null 2>&1 || die "$c not found (scripts/install-deps.sh artifacts)"
done

# inputs: the Go fixtures (run scripts/build-fixtures.sh when one is
# missing) and the kit's (its builder is a no-op when they are there),
# each under the lock the tests take for it (tests/lib.sh, build_locked),
# from the top of the tree: gcc writes the directory it runs in into the
# kit's DWARF, so into their ids.
inputs() {
	local v
	mkdir -p "$top/build"
	for v in "${GO_INPUTS[@]}"; do
		[ -f "$src/$v" ] && continue
		(cd "$top" && flock build/.lock-fixtures scripts/build-fixtures.sh) >&2 ||
			die "scripts/build-fixtures.sh failed"
		break
	done
	(cd "$top" && flock build/.lock-kit scripts/build-kit-fixtures.sh) >&2 ||
		die "scripts/build-kit-fixtures.sh failed"
	for v in "${GO_INPUTS[@]}" "${KIT_INPUTS[@]}"; do
		[ -f "$src/$v" ] || die "fixture $src/$v missing"
	done
}

# fetch_debs: each package of DEBS into debian/ unless it is there, by
# apt-get download (the machine's own sources; apt checks the hashes its
# signed index gives); then debian/FETCHED: package, version,
# architecture, sha256, file.
fetch_debs() {
	local d=$out/debian pv p v f arch dl sandbox=()
	arch=$(dpkg --print-architecture)
	[ "$(id -u)" = 0 ] && sandbox=(-o APT::Sandbox::User=root)
	mkdir -p "$d"
	for pv in "${DEBS[@]}"; do
		p=${pv%%=*} v=${pv#*=}
		f=$d/${p}_${v}_$arch.deb
		[ -s "$f" ] && continue
		echo "  FETCH   $p=$v" >&2
		dl=$(mktemp -d "$d/.dl.XXXXXX")
		(cd "$dl" && apt-get -q "${sandbox[@]}" download "$p=$v" >&2) || {
			rm -rf "$dl"
			die "apt-get download $p=$v failed: run apt-get update; if Debian dropped that version, pin another in DEBS ($0)"
		}
		mv -f "$dl/${p}_${v}_$arch.deb" "$f" || die "apt-get download $p=$v wrote no ${f##*/}"
		rm -rf "$dl"
	done
	for pv in "${DEBS[@]}"; do
		p=${pv%%=*} v=${pv#*=}
		f=$d/${p}_${v}_$arch.deb
		[ "$(dpkg-deb -f "$f" Package Version | paste -sd ' ')" = "Package: $p Version: $v" ] ||
			die "${f##*/} is not $p $v"
		printf '%s\t%s\t%s\t%s\t%s\n' "$p" "$v" "$arch" "$(sha256sum <"$f" | cut -c1-64)" "debian/${f##*/}"
	done >"$d/FETCHED.tmp"
	# Rewritten only when it changes: it is an input of the rest.
	if cmp -s "$d/FETCHED.tmp" "$d/FETCHED"; then rm -f "$d/FETCHED.tmp"; else mv -f "$d/FETCHED.tmp" "$d/FETCHED"; fi
}

# The outputs besides debian/ and own/; all there and newer than every
# input, the build is a no-op.
OUTPUTS=(tar/multi.tar tar/multi.tar.gz tar/multi.tar.xz tar/multi.tar.zst
	oci/image/index.json oci/image.tar oci/docker-save.tar
	bad/truncated.deb bad/truncated.tar.zst bad/corrupt.tar.gz bad/corrupt-crc.tar.gz bad/bomb.tar.zst
	bad/dotdot.tar bad/abspath.tar bad/symlink-bin.tar bad/hardlink-missing.tar
	bad/bad-digest/index.json bad/bad-digest.tar expected.tsv)

up_to_date() {
	local o i
	[ "$force" = 0 ] && [ -f "$out/.stamp" ] || return 1
	for o in "${OUTPUTS[@]}"; do [ -e "$out/$o" ] || return 1; done
	for i in "${BASH_SOURCE[0]}" "$py" "$out/debian/FETCHED" "${GO_INPUTS[@]/#/$src/}" \
		"${KIT_INPUTS[@]/#/$src/}"; do
		[ "$i" -nt "$out/.stamp" ] && return 1
	done
	return 0
}

# Deterministic GNU tar: names sorted, time 0, owner 0:0 by number. The
# modes are the files': make_tars sets them; an image's tar passes --mode
# (python3 made its directories under the umask).
dtar() { tar --sort=name --mtime=@0 --owner=0 --group=0 --numeric-owner --format=gnu "$@"; }

# make_tars DIR: DIR/multi.tar{,.gz,.xz,.zst}.
make_tars() {
	local d=$1 s=$1/stage
	mkdir -p "$s/bin" "$s/lib" "$s/share"
	cp "$src/kit/cprog" "$s/bin/cprog"
	ln "$s/bin/cprog" "$s/bin/cprog-hl"
	cp "$src/existing" "$s/bin/hello"
	cp "$src/kit/cprog-noroom" "$s/bin/noid"
	cp "$src/kit/libkit.so.1" "$s/lib/libkit.so.1"
	ln -s libkit.so.1 "$s/lib/libkit.so"
	cp "$src/kit/kitobj.o" "$s/lib/kitobj.o"
	printf 'not an ELF file\n' >"$s/share/readme.txt"
	chmod 0755 "$s/bin"/* "$s/lib/libkit.so.1" "$s" "$s/bin" "$s/lib" "$s/share"
	chmod 0644 "$s/lib/kitobj.o" "$s/share/readme.txt"
	dtar -C "$s" -cf "$d/multi.tar" bin lib share || return 1
	# Fast levels (the builder runs before tests); one thread, one output.
	gzip -6n <"$d/multi.tar" >"$d/multi.tar.gz" &&
		xz -1 -T1 <"$d/multi.tar" >"$d/multi.tar.xz" &&
		zstd -q -3 <"$d/multi.tar" >"$d/multi.tar.zst" &&
		rm -rf "$s"
}

# cut IN OUT: the first half of IN.
cut_half() { head -c "$(($(stat -c %s "$1") / 2))" "$1" >"$2"; }

# make_oci DIR: DIR/image/ (the layout), DIR/image.tar (that directory
# as skopeo's oci-archive: writes it: its entries, no ./ prefix) and
# DIR/docker-save.tar.
make_oci() {
	python3 "$py" oci "$src" "$1/image" &&
		dtar --mode=u=rwX,go=rX -C "$1/image" -cf "$1/image.tar" blobs index.json oci-layout &&
		python3 "$py" docker-save "$src" "$1/docker-save.tar"
}

# make_bad DIR OCI: the corrupt and hostile artifacts, from the good ones
# of tar/ and oci/ (OCI) and from hello's .deb.
make_bad() {
	local d=$1 n
	cut_half "$out/debian/hello_2.10-3_$(dpkg --print-architecture).deb" "$d/truncated.deb" &&
		cut_half "$d/../tar/multi.tar.zst" "$d/truncated.tar.zst" &&
		python3 "$py" corrupt-gz "$d/../tar/multi.tar.gz" "$d" || return 1
	n=$(python3 "$py" bomb "$src" "$d/bomb.tar.zst") || return 1
	echo "$n" >"$d/.bomb-size"
	python3 "$py" evil "$src" "$d" &&
		python3 "$py" bad-digest "$2/image" "$d/bad-digest" &&
		dtar --mode=u=rwX,go=rX -C "$d/bad-digest" -cf "$d/bad-digest.tar" blobs index.json oci-layout
}

# check_blobs LAYOUT: every blob is named by its sha256 (sha256sum's).
check_blobs() {
	local b
	for b in "$1"/blobs/sha256/*; do
		[ "$(sha256sum <"$b" | cut -c1-64)" = "${b##*/}" ] || die "${b#"$out"/}: not its sha256"
	done
}

# The image after its whiteouts: each file and its kind (find's %y).
IMAGE_VISIBLE='etc/keep.conf f
etc/old/new.conf f
usr/bin/a f
usr/bin/a-link l
usr/bin/c f'

# check_image LAYOUT BUNDLE: umoci reads it (stat) and applies its layers
# (unpack --rootless into BUNDLE): the visible files are IMAGE_VISIBLE,
# usr/bin/a layer 2's kit/cprog, usr/bin/c kit/libkit.so.1.
check_image() {
	local r=$2/rootfs
	check_blobs "$1"
	umoci stat --image "$1:test" >/dev/null 2>&1 || die "umoci stat ${1#"$out"/}: $(umoci stat --image "$1:test" 2>&1 | tail -n 1)"
	umoci unpack --rootless --image "$1:test" "$2" >"$2.log" 2>&1 || die "umoci unpack ${1#"$out"/}: $(tail -n 1 "$2.log")"
	[ "$(cd "$r" && find . ! -type d -printf '%P %y\n' | sort)" = "$IMAGE_VISIBLE" ] ||
		die "${1#"$out"/}: umoci unpack gives $(cd "$r" && find . ! -type d -printf '%P ' | sort)"
	cmp -s "$r/usr/bin/a" "$src/kit/cprog" && cmp -s "$r/usr/bin/c" "$src/kit/libkit.so.1" ||
		die "${1#"$out"/}: usr/bin/a or usr/bin/c is not layer 2's"
}

# check_all NEW SCRATCH: what each artifact must be, by other tools.
check_all() {
	local n=$1 t=$2 f got want
	for f in multi.tar multi.tar.gz multi.tar.xz multi.tar.zst; do
		got=$(tar -tvf "$n/tar/$f" | awk '{ print $1, $6, $7, $8 }') || die "tar -t $f failed"
		want='drwxr-xr-x bin/  
-rwxr-xr-x bin/cprog  
hrwxr-xr-x bin/cprog-hl link to
-rwxr-xr-x bin/hello  
-rwxr-xr-x bin/noid  
drwxr-xr-x lib/  
-rw-r--r-- lib/kitobj.o  
lrwxrwxrwx lib/libkit.so -> libkit.so.1
-rwxr-xr-x lib/libkit.so.1  
drwxr-xr-x share/  
-rw-r--r-- share/readme.txt  '
		[ "$got" = "$want" ] || die "tar -tv tar/$f: $got"
	done
	check_image "$n/oci/image" "$t/image"
	mkdir -p "$t/ds" && tar -xf "$n/oci/docker-save.tar" -C "$t/ds" || die "tar -x docker-save.tar"
	check_image "$t/ds" "$t/ds-bundle"
	mkdir -p "$t/it" && tar -xf "$n/oci/image.tar" -C "$t/it" && diff -r "$t/it" "$n/oci/image" >/dev/null ||
		die "oci/image.tar is not oci/image"
	check_bad "$n/bad" "$t"
}

# check_bad BAD SCRATCH: each is broken the way it is meant to be.
check_bad() {
	local b=$1 t=$2 n
	dpkg-deb -c "$b/truncated.deb" >/dev/null 2>&1 && die "dpkg-deb reads truncated.deb"
	zstd -q -t "$b/truncated.tar.zst" 2>/dev/null && die "zstd -t passes truncated.tar.zst"
	n=$(gzip -t "$b/corrupt.tar.gz" 2>&1) && die "gzip -t passes corrupt.tar.gz"
	[[ "$n" == *"format violated"* ]] || die "gzip -t corrupt.tar.gz: $n"
	n=$(gzip -t "$b/corrupt-crc.tar.gz" 2>&1) && die "gzip -t passes corrupt-crc.tar.gz"
	[[ "$n" == *"crc error"* ]] || die "gzip -t corrupt-crc.tar.gz: $n"
	# The bomb: zstd's frame headers sum to what mkartifacts.py wrote, and
	# the first member's header says 20 GiB; nothing here decompresses it.
	n=$(zstd -lv "$b/bomb.tar.zst" 2>/dev/null | sed -n 's/^Decompressed Size: .*(\([0-9]*\) B)$/\1/p')
	[ -n "$n" ] && [ "$n" = "$(cat "$b/.bomb-size")" ] || die "zstd -l bomb.tar.zst: '$n' bytes"
	n=$(zstd -dc "$b/bomb.tar.zst" 2>/dev/null | head -c 4096 | tar -tvf - 2>/dev/null | awk 'NR == 1 { print $3, $6 }')
	[ "$n" = "$((20 << 30)) usr/bin/bomb" ] || die "tar -tv bomb.tar.zst: '$n'"
	[ "$(stat -c %s "$b/bomb.tar.zst")" -lt $((1 << 20)) ] || die "bomb.tar.zst is over 1 MiB"
	n=$(tar -tvf "$b/dotdot.tar" 2>/dev/null | awk 'NR == 1 { print $6 }')
	[ "$n" = ../evil ] || die "dotdot.tar: '$n'"
	n=$(tar -tvf "$b/abspath.tar" 2>/dev/null | awk 'NR == 1 { print $6 }')
	[ "$n" = /abs/path ] || die "abspath.tar: '$n'"
	n=$(tar -tvf "$b/hardlink-missing.tar" | awk '/^h/ { print $6, $9 }')
	[ "$n" = "usr/bin/hl usr/bin/missing" ] || die "hardlink-missing.tar: '$n'"
	n=$(tar -tvf "$b/symlink-bin.tar" | awk '/^l/ { print $6, $8 }' | paste -sd ' ')
	[ "$n" = "usr/bin/tool /usr/bin/true usr/bin/tool-up ../../../../../../usr/bin/true usr/bin/tool-in real" ] ||
		die "symlink-bin.tar: '$n'"
	check_blobs_bad "$b/bad-digest" "$t"
}

# check_blobs_bad LAYOUT SCRATCH: exactly one blob is not its sha256, a
# valid gzip stream; umoci refuses the layout for that.
check_blobs_bad() {
	local f n=0
	for f in "$1"/blobs/sha256/*; do
		[ "$(sha256sum <"$f" | cut -c1-64)" = "${f##*/}" ] && continue
		n=$((n + 1))
		gzip -t "$f" || die "bad-digest: ${f##*/} is not a valid gzip stream"
	done
	[ "$n" = 1 ] || die "bad-digest: $n blobs differ from their names, not 1"
	umoci unpack --rootless --image "$1:test" "$2/bad-bundle" >"$2/bad.log" 2>&1 &&
		die "umoci unpacks bad-digest"
	grep -q 'digest mismatch' "$2/bad.log" || die "umoci on bad-digest: $(tail -n 1 "$2/bad.log")"
}

# list_tree ARTIFACT DIR: expected.tsv's lines of an extracted tree.
list_tree() {
	local a=$1 p y i l kind id
	declare -A first=()
	(cd "$2" && find . -mindepth 1 ! -type d -printf '%P\t%y\t%i\t%l\n' | sort) |
		while IFS=$'\t' read -r p y i l; do
			id=-
			if [ "$y" = l ]; then
				printf '%s\t%s\t%s\t-\n' "$a" "$p" "symlink:$l"
				continue
			fi
			kind=file
			if readelf -h "$2/$p" >/dev/null 2>&1; then
				kind=elf
				id=$(readelf -n "$2/$p" 2>/dev/null | awk '/Build ID:/ { print $3; exit }')
				id=${id:--}
			fi
			# A hard link: the first name of its inode, the id of its bytes.
			[ -n "${first[$i]:-}" ] && kind=hardlink:${first[$i]}
			first[$i]=${first[$i]:-$p}
			printf '%s\t%s\t%s\t%s\n' "$a" "$p" "$kind" "$id"
		done
}

# expected NEW SCRATCH: NEW/expected.tsv, from dpkg-deb -x, tar -x and
# the image umoci unpacked (check_image).
expected() {
	local n=$1 t=$2 f a
	for f in "$out"/debian/*.deb; do
		a=debian/${f##*/}
		mkdir -p "$t/x/$a" && dpkg-deb -x "$f" "$t/x/$a" || die "dpkg-deb -x $a"
		list_tree "$a" "$t/x/$a"
	done
	mkdir -p "$t/x/tar" && tar -xf "$n/tar/multi.tar" -C "$t/x/tar" || die "tar -x multi.tar"
	for f in multi.tar multi.tar.gz multi.tar.xz multi.tar.zst; do
		list_tree "tar/$f" "$t/x/tar"
	done
	for f in image image.tar docker-save.tar; do
		list_tree "oci/$f" "$t/image/rootfs"
	done
	if [ -d "$out/own" ]; then
		mkdir -p "$t/x/own" && dpkg-deb -x "$out/own/elf-buildid.deb" "$t/x/own" || die "dpkg-deb -x own"
		list_tree own/elf-buildid.deb "$t/x/own"
		for f in elf-buildid.rpm elf-buildid-debuginfo.rpm; do
			mkdir -p "$t/x/$f" && (cd "$t/x/$f" && rpm2cpio "$out/own/$f" | cpio -idm --quiet) ||
				die "rpm2cpio own/$f"
			list_tree "own/$f" "$t/x/$f"
		done
	fi
}

# build_set: everything but debian/ and own/, into .new, checked, then
# moved into place; the stamp last.
build_set() {
	local n=$out/.new t d
	rm -rf "$n" "$out/.stamp"
	mkdir -p "$n/tar" "$n/oci" "$n/bad" || die "cannot create $n"
	t=$(mktemp -d "$out/.check.XXXXXX")
	echo "  BUILD   build/fixtures/artifacts" >&2
	make_tars "$n/tar" || die "the tarballs failed"
	make_oci "$n/oci" || die "the OCI image failed"
	make_bad "$n/bad" "$n/oci" || die "the bad artifacts failed"
	check_all "$n" "$t"
	expected "$n" "$t" >"$n/expected.tsv"
	rm -rf "$t"
	for d in tar oci bad expected.tsv; do
		rm -rf "${out:?}/$d" && mv "$n/$d" "$out/$d" || die "cannot move $d into place"
	done
	rm -rf "$n"
	touch "$out/.stamp"
}

# build_own: own/ from make deb and make rpm of this tree, when missing,
# asked with -f, or of another version; then expected.tsv again.
build_own() {
	local v arch o=$out/own tmp t
	v=$("$top/scripts/version.sh") || die "scripts/version.sh failed"
	if [ "$force" = 0 ] && [ "$(cat "$o/.version" 2>/dev/null)" = "$v" ] &&
		[ -f "$o/elf-buildid.deb" ] && [ -f "$o/elf-buildid.rpm" ]; then
		return 0
	fi
	echo "  BUILD   build/fixtures/artifacts/own ($v)" >&2
	arch=$(dpkg --print-architecture)
	tmp=$out/.own
	rm -rf "$tmp" "$o" && mkdir -p "$tmp" "$o" || die "cannot create $o"
	VERSION=$v "$top/scripts/mkdeb.sh" "$tmp" >&2 || die "scripts/mkdeb.sh failed"
	VERSION=$v "$top/scripts/mkrpm.sh" "$tmp" >&2 || die "scripts/mkrpm.sh failed"
	mv "$tmp/elf-buildid_${v}_$arch.deb" "$o/elf-buildid.deb" &&
		mv "$tmp/elf-buildid-$v-1.$(rpm --eval '%{_arch}').rpm" "$o/elf-buildid.rpm" &&
		mv "$tmp/elf-buildid-debuginfo-$v-1.$(rpm --eval '%{_arch}').rpm" "$o/elf-buildid-debuginfo.rpm" ||
		die "make deb or make rpm wrote other names"
	rm -rf "$tmp"
	echo "$v" >"$o/.version"
	t=$(mktemp -d "$out/.check.XXXXXX")
	check_image "$out/oci/image" "$t/image"
	expected "$out" "$t" >"$out/expected.tsv.tmp" && mv -f "$out/expected.tsv.tmp" "$out/expected.tsv"
	rm -rf "$t"
}

mkdir -p "$out" || die "cannot create $out"
inputs
fetch_debs
up_to_date || build_set
[ "$own" = 0 ] || build_own
exit 0
