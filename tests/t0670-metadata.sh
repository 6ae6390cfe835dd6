#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# Metadata kept exactly when inject writes a file, in the default mode
# (in place under a write lease; replaced where a write would clear the
# set-ID bits or capabilities) and with --replace (always a new inode):
# owner and group
# (nobody:nogroup), mode with set-user-ID and set-group-ID, file
# capabilities (setcap), user xattrs (setfattr), POSIX ACLs (setfacl), and
# with --preserve-times the access and modification times to the
# nanosecond; each alone, then all at once. Judged with stat, getcap,
# getfattr and getfacl.
. "$(dirname "$0")/lib.sh"
require_tool
require_fixtures nobuildid

require_deps robust

# Everything we keep, as text.
meta() {
	stat -c 'owner %U:%G mode %a' "$1"
	echo "caps $(getcap "$1" | sed 's/^[^ ]* //')"
	getfattr --absolute-names -d -m '^user\.' "$1" 2>/dev/null | sed 1d
	getfacl -cp "$1" 2>/dev/null
}

case_() { # DESC SETUP...
	local desc=$1 d f before after mode inplace
	shift
	for mode in default --replace; do
		d=$SCRATCH/m$((++ncase))
		f=$d/prog
		mkdir -p "$d" && cp "$FIXTURES/nobuildid" "$f" && chmod 0755 "$f"
		t_begin "$desc ($mode)"
		if ! (cd "$d" && "$@") >"$SCRATCH/setup.out" 2>&1; then
			t_fail "setup failed: $(cat "$SCRATCH/setup.out")"
			t_end
			continue
		fi
		before=$(meta "$f")
		ino=$(stat -c %i "$f")
		# The default edits in place unless a write would clear set-ID
		# bits or a capability (the kernel's file_remove_privs).
		inplace=yes
		[ "$mode" = --replace ] && inplace=no
		[ -n "$(find "$f" -perm /6000)" ] && inplace=no
		[ -n "$(getcap "$f")" ] && inplace=no
		m=(); [ "$mode" = default ] || m=("$mode")
		if inject_ok "$f" "${m[@]}"; then
			expect_eq "ebid.py id" "$(py_id "$f")" "$id"
			if [ "$inplace" = yes ]; then
				expect_eq "inode (edited in place)" "$(stat -c %i "$f")" "$ino"
			else
				expect_ne "inode (the file was replaced)" "$(stat -c %i "$f")" "$ino"
			fi
			after=$(meta "$f")
			[ "$after" = "$before" ] ||
				t_fail "metadata changed:" "before: $before" "after:  $after"
		fi
		t_end
	done
}
ncase=0

case_ "owner and group nobody:nogroup" chown nobody:nogroup prog
case_ "set-user-ID mode 4755" chmod 4755 prog
case_ "set-group-ID mode 2755 owned by nobody:nogroup" \
	sh -c 'chown nobody:nogroup prog && chmod 2755 prog'
case_ "set-user-ID and set-group-ID 6750" chmod 6750 prog
case_ "file capability cap_net_bind_service+ep" setcap cap_net_bind_service+ep prog
case_ "user xattrs" sh -c 'setfattr -n user.origin -v ci prog && setfattr -n user.empty prog'
case_ "POSIX ACL u:nobody:rwx,g:nogroup:r-x" setfacl -m u:nobody:rwx,g:nogroup:r-x prog
case_ "all at once: nobody:nogroup, 4750, capability, xattr, ACL" sh -c '
	chown nobody:nogroup prog && chmod 4750 prog &&
	setcap cap_net_raw+ep prog && setfattr -n user.origin -v ci prog &&
	setfacl -m u:daemon:r-x prog'

for mode in default --replace --in-place; do
	t_begin "--preserve-times keeps atime and mtime to the nanosecond ($mode)"
	d=$SCRATCH/times$mode
	f=$d/prog
	mkdir -p "$d" && cp "$FIXTURES/nobuildid" "$f"
	touch -m -d '2001-02-03 04:05:06.123456789' "$f"
	touch -a -d '2002-03-04 05:06:07.987654321' "$f"
	before=$(stat -c '%.9X %.9Y' "$f")
	m=(); [ "$mode" = default ] || m=("$mode")
	if inject_ok "$f" --preserve-times "${m[@]}"; then
		expect_eq "atime mtime" "$(stat -c '%.9X %.9Y' "$f")" "$before"
		expect_eq "ebid.py id" "$(py_id "$f")" "$id"
	fi
	t_end
done

t_begin "without --preserve-times the mtime is the time of the change"
d=$SCRATCH/times2
f=$d/prog
mkdir -p "$d" && cp "$FIXTURES/nobuildid" "$f"
touch -m -d '2001-02-03 04:05:06' "$f"
if inject_ok "$f"; then
	[ "$(stat -c %Y "$f")" -gt 1000000000 ] && [ "$(stat -c %Y "$f")" -ge "$(($(date +%s) - 60))" ] ||
		t_fail "mtime $(stat -c %y "$f") is not now"
fi
t_end

t_done
