#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# scripts/elf-buildid.bash-completion (issue 5): completes commands, the
# options of each command and their values; every option it offers is one
# the tool accepts, and every long option in `elf-buildid --help` is offered.
# `make install` installs the binary, the man page, this completion file and
# the kit under share/elf-buildid;
# `make uninstall` removes them (run into a DESTDIR, the binary not rebuilt).
. "$(dirname "$0")/lib.sh"
. "$TOP/tests/kit-lib.sh"
require_tool
kit_prelude

COMP=$TOP/scripts/elf-buildid.bash-completion

# complete WORDS...: what the completion offers for the last word.
complete_words() {
	bash --norc --noprofile -c '
		source "$0" || exit 1
		COMP_WORDS=("$@")
		COMP_CWORD=$((${#COMP_WORDS[@]} - 1))
		_elf_buildid
		printf "%s\n" "${COMPREPLY[@]}" | sort | tr "\n" " "' "$COMP" "$@"
}

t_begin "the file loads and registers a completion for elf-buildid"
got=$(bash --norc --noprofile -c 'source "$0" && complete -p elf-buildid' "$COMP" 2>&1)
expect_eq "complete -p" "$got" "complete -F _elf_buildid elf-buildid"
t_end

t_begin "commands, and option values (--hash, --perf)"
expect_eq "commands" "$(complete_words elf-buildid '')" \
	"--help --version -V -h audit backfill inject link reserve show verify "
expect_eq "ver" "$(complete_words elf-buildid ver)" "verify "
expect_eq "verify --perf=" "$(complete_words elf-buildid verify --perf=)" "auto off require "
expect_eq "inject --hash" "$(complete_words elf-buildid inject --hash '')" "md5 sha1 sha1-tree sha256 "
expect_match "verify --j" "$(complete_words elf-buildid verify --j)" '--jobs= .*--json .*--junit='
expect_match "link --" "$(complete_words elf-buildid link --)" '--debug-dir= .*--perf-cache'
t_end

# accepts CMD OPTION...: the tool's parser takes OPTION for CMD: the run
# gets as far as the file (which does not exist: exit 2, "cannot open"),
# where a refused option is a usage error (exit 64). link needs a place,
# so it gets --debug-dir too unless OPTION is one.
accepts() {
	local cmd=$1 place=()
	shift
	case "$cmd:$1" in
	link:--debug-dir* | link:--perf-cache*) ;;
	link:*) place=("--debug-dir=$SCRATCH/dd") ;;
	esac
	case "$cmd:$1" in
	audit:--running | audit:--pid=* | audit:--rescue)
		# audit --running takes no FILE: judged on this shell's process.
		run "$EBID" audit "$@" --running --pid=$$ --debug-dir="$SCRATCH/dd"
		expect_true "$cmd $*: exit status 0 or 1 (64: the option was refused: $err)" \
			test "$rc" -le 1
		return ;;
	esac
	run "$EBID" "$cmd" "$@" ${place[@]+"${place[@]}"} "$SCRATCH/no-such-file"
	expect_eq "$cmd $*: exit status (64: the option was refused: $err)" "$rc" 2
	expect_match "$cmd $*: stderr" "$err" "'$SCRATCH/no-such-file': $cmd: cannot open"
}

# A value for each option that takes one (printf: echo would eat -n).
opt_value() {
	case "$1" in
	--hash=) printf '%s\n' --hash=sha1 ;;
	--id=) printf '%s\n' --id=0x0102 ;;
	--perf=) printf '%s\n' --perf=off ;;
	--exclude=) printf '%s\n' --exclude=x ;;
	--jobs=) printf '%s\n' --jobs=1 ;;
	--lock-timeout=) printf '%s\n' --lock-timeout=1 ;;
	--manifest=) printf '%s\n' "--manifest=$SCRATCH/m.json" ;;
	--junit=) printf '%s\n' "--junit=$SCRATCH/j.xml" ;;
	--allow-missing=) printf '%s\n' --allow-missing=x ;;
	--output=) printf '%s\n' "--output=$SCRATCH/o" ;;
	--debug-dir=) printf '%s\n' "--debug-dir=$SCRATCH/dd" ;;
	--perf-cache=) printf '%s\n' "--perf-cache=$SCRATCH/pc" ;;
	--debug-file=) printf '%s\n' "--debug-file=$SCRATCH/df" ;;
	--pid=) printf '%s\n' "--pid=$$" ;;
	*) printf '%s\n' "$1" ;;
	esac
}

t_begin "every option the completion offers is accepted by the tool, for its command"
for cmd in inject reserve backfill show verify link audit; do
	for o in $(complete_words elf-buildid "$cmd" -); do
		case "$o" in
		-h | --help) continue ;;
		-o) accepts "$cmd" -o "$SCRATCH/o" ;;
		-j) accepts "$cmd" -j 1 ;;
		*=) case "$(opt_value "$o")" in
			"$o") t_fail "$cmd $o: the test has no value for this option" ;;
			*) accepts "$cmd" "$(opt_value "$o")" ;;
			esac ;;
		*) accepts "$cmd" "$o" ;;
		esac
	done
done
t_end

t_begin "every long option in --help is offered by the completion"
helpopts=$("$EBID" --help | grep -oE -- '--[a-z][a-z0-9-]*' | sort -u)
all=$(for cmd in inject reserve backfill show verify link audit; do complete_words elf-buildid "$cmd" --; done |
	tr ' ' '\n' | sed 's/=$//' | sort -u)
for o in $helpopts; do
	case "$o" in --version) continue ;; esac
	expect_true "--help lists $o, the completion does not offer it" grep -qx -- "$o" <<<"$all"
done
t_end

t_begin "make install DESTDIR=...: binary, man page, bash completion and the kit in share/elf-buildid; make uninstall removes them"
dest=$SCRATCH/root
run make -C "$TOP" -o build/elf-buildid install DESTDIR="$dest" PREFIX=/usr
expect_eq "make install exit" "$rc" 0
expect_true "no $dest/usr/bin/elf-buildid" [ -x "$dest/usr/bin/elf-buildid" ]
expect_true "no man page in $dest/usr/share/man/man1" [ -f "$dest/usr/share/man/man1/elf-buildid.1" ]
c=$dest/usr/share/bash-completion/completions/elf-buildid
if [ -f "$c" ]; then
	expect_same_file "installed completion" "$c" "$COMP"
else
	t_fail "no bash completion at $c (make install should install scripts/elf-buildid.bash-completion there): $(cd "$dest" && find . -type f | tr '\n' ' ')"
fi
share=$dest/usr/share/elf-buildid
for f in elf-buildid.mk go-build-buildid package-hook.sh omnibus/elf_buildid.rb \
	omnibus/software/elf-buildid.rb; do
	src=$TOP/scripts/$f
	if [ -f "$share/$f" ]; then
		expect_same_file "installed share/elf-buildid/$f" "$share/$f" "$src"
	else
		t_fail "no $share/$f"
	fi
done
expect_true "go-build-buildid is not executable" [ -x "$share/go-build-buildid" ]
expect_true "package-hook.sh is not executable" [ -x "$share/package-hook.sh" ]
run make -C "$TOP" uninstall DESTDIR="$dest" PREFIX=/usr
expect_eq "make uninstall exit" "$rc" 0
left=$(cd "$dest" && find . -type f)
expect_eq "files left after uninstall" "$left" ""
expect_false "share/elf-buildid left after uninstall" [ -e "$share" ]
t_end

t_done
