#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# The option table (src/cli/options.c, printed by the hidden
# `elf-buildid --list-options`) is what the man page lists under each
# command, what the bash completion offers for each command, what each
# command's --help shows, and what each command's parser accepts.
. "$(dirname "$0")/lib.sh"
require_tool

COMP=$TOP/scripts/elf-buildid.bash-completion
MAN=$TOP/docs/elf-buildid.1

# The table: COMMAND --LONG -S|- METAVAR|- HELP, tab-separated.
table=$("$EBID" --list-options)
commands=$(cut -f1 <<<"$table" | uniq)

# same_set WHAT GOT WANT: two sorted lists, with what each lacks.
same_set() {
	local extra missing
	extra=$(comm -23 <(printf '%s\n' "$2") <(printf '%s\n' "$3") | tr '\n' ' ')
	missing=$(comm -13 <(printf '%s\n' "$2") <(printf '%s\n' "$3") | tr '\n' ' ')
	expect_eq "$1: not in the table" "$extra" ""
	expect_eq "$1: in the table, missing here" "$missing" ""
}

t_begin "--list-options: every command, every row with its help; --list-options=COMMAND is its part"
expect_eq "commands" "$(tr '\n' ' ' <<<"$commands")" \
	"inject reserve backfill show verify link audit "
expect_eq "rows without 5 fields or help" \
	"$(awk -F'\t' 'NF != 5 || $5 == ""' <<<"$table")" ""
expect_true "fewer than 20 options in the table" [ "$(cut -f2 <<<"$table" | sort -u | wc -l)" -ge 20 ]
for c in $commands; do
	expect_exit 0 "$EBID" --list-options="$c"
	expect_eq "--list-options=$c" "$out" "$(awk -F'\t' -v c="$c" '$1 == c' <<<"$table")"
done
expect_exit 64 "$EBID" --list-options=nosuch
expect_match "--list-options=nosuch" "$err" "unknown command 'nosuch'"
t_end

t_begin "the man page lists under each command exactly the table's options"
# shellcheck disable=SC2086 # one argument per command
run python3 "$TOP/tests/man-options.py" "$MAN" $commands
expect_eq "man-options.py exit ($err)" "$rc" 0
same_set "man page OPTIONS" "$out" "$(cut -f1-3 <<<"$table" | sort)"
t_end

# complete_words WORDS...: what the completion offers for the last word.
complete_words() {
	bash --norc --noprofile -c '
		source "$0" || exit 1
		COMP_WORDS=("$@")
		COMP_CWORD=$((${#COMP_WORDS[@]} - 1))
		_elf_buildid
		printf "%s\n" "${COMPREPLY[@]}" | sort | tr "\n" " "' "$COMP" "$@"
}

# The words the completion should offer for COMMAND's options.
table_words() {
	awk -F'\t' -v c="$1" '$1 == c {
		if ($3 != "-") print $3
		print $2 ($4 != "-" ? "=" : "")
	}' <<<"$table" | sort
}

t_begin "the bash completion offers for each command exactly the table's options"
for c in $commands; do
	same_set "completion of '$c -'" "$(complete_words elf-buildid "$c" - | tr ' ' '\n' | sed '/^$/d' | sort)" \
		"$(table_words "$c")"
done
t_end

t_begin "the completion: commands, help COMMAND, option values (--hash, --perf)"
expect_eq "commands" "$(complete_words elf-buildid '')" \
	"--help --version -V -h audit backfill help inject link reserve show verify "
expect_eq "help " "$(complete_words elf-buildid help '')" \
	"$(tr '\n' ' ' <<<"$(sort <<<"$commands")")"
expect_eq "ver" "$(complete_words elf-buildid ver)" "verify "
expect_eq "verify --perf=" "$(complete_words elf-buildid verify --perf=)" "auto off require "
expect_eq "inject --hash" "$(complete_words elf-buildid inject --hash '')" "md5 sha1 sha1-tree sha256 "
t_end

# The options COMMAND --help shows: "  -x, --long..." or "      --long...".
help_options() {
	sed -nE 's/^  -([A-Za-z]), --([a-z][a-z0-9-]*).*/--\2\t-\1/p
		s/^      --([a-z][a-z0-9-]*).*/--\1\t-/p' <<<"$1" | sort
}

t_begin "COMMAND --help and help COMMAND: its usage line, and its options only"
for c in $commands; do
	expect_exit 0 "$EBID" "$c" --help
	expect_eq "$c --help: stderr" "$err" ""
	expect_match "$c --help: usage line" "$out" "^usage: elf-buildid $c \[OPTIONS\] "
	help=$out
	same_set "$c --help options" "$(help_options "$help")" \
		"$(awk -F'\t' -v c="$c" '$1 == c { print $2 "\t" $3 }' <<<"$table" | sort)"
	expect_exit 0 "$EBID" help "$c"
	expect_eq "help $c = $c --help" "$out" "$help"
	expect_exit 0 "$EBID" "$c" -h
	expect_eq "$c -h = $c --help" "$out" "$help"
done
t_end

# accepted CMD LONG METAVAR: sets got to whether CMD's parser takes the
# option. It does when the run gets as far as the file (which does not
# exist: exit 2, "cannot open"); a refused option is exit 64, "does not
# apply". --help and --version end the run with status 0. link needs a
# place and verify --hash needs --content-hash, so they get them;
# verify --against-manifest reads its FILE before any file (an empty
# manifest here) and --against-debuginfod needs DEBUGINFOD_URLS (a port
# nothing is asked on: the file does not exist). (No command substitution
# or grep per option: 189 runs stay quick.)
accepted() {
	local cmd=$1 opt=$2 meta=$3 extra=() envs=() e=$SCRATCH/.err rc
	case "$cmd:$opt" in
	link:--debug-dir | link:--perf-cache | link:--perf-default-cache) ;;
	link:*) extra=("--debug-dir=$SCRATCH/dd") ;;
	verify:--hash) extra=(--content-hash) ;;
	verify:--against-manifest) printf '{"tool": "elf-buildid", "files": []}\n' >"$SCRATCH/out" ;;
	verify:--against-debuginfod) envs=(DEBUGINFOD_URLS=http://127.0.0.1:9) ;;
	esac
	case "$meta" in
	-) ;;
	ALG) opt+="=sha1" ;; 0xHEX) opt+="=0x0102" ;; MODE) opt+="=off" ;; KEY=VALUE) opt+="=ratio=10" ;;
	N | SECONDS | PID) opt+="=1" ;; GLOB) opt+="=x" ;; DIR) opt+="=$SCRATCH/dir" ;;
	OUT | FILE | F) opt+="=$SCRATCH/out" ;;
	*) got="the test has no value for $meta"; return ;;
	esac
	env ${envs[@]+"${envs[@]}"} "$EBID" "$cmd" "$opt" ${extra[@]+"${extra[@]}"} "$SCRATCH/no-such-file" \
		>/dev/null 2>"$e" </dev/null
	rc=$?
	got="exit $rc: $(<"$e")"
	case "$rc:$opt:$got" in
	0:--help:* | 0:--version:*) got=yes ;;
	2:*"'$SCRATCH/no-such-file': $cmd: cannot open"*) got=yes ;;
	64:*"does not apply to '$cmd'"*) got=no ;;
	# Taken, then refused by audit's own rules: --running (which --pid
	# implies) takes no FILE, --rescue and --openmetrics need --running.
	64:*"audit --running takes no FILE"* | 64:*"--rescue is for audit --running"*) got=yes ;;
	64:*"--openmetrics is for verify and audit --running"*) got=yes ;;
	esac
}

t_begin "each command accepts every option its --help shows, and refuses every other"
all=$(cut -f2,4 <<<"$table" | sort -u)
for c in $commands; do
	shown=$'\n'$(help_options "$("$EBID" "$c" --help)" | cut -f1)$'\n'
	while IFS=$'\t' read -r opt meta; do
		accepted "$c" "$opt" "$meta"
		case "$shown" in *$'\n'"$opt"$'\n'*) want=yes ;; *) want=no ;; esac
		expect_eq "$c $opt (shown in --help: $want)" "$got" "$want"
	done <<<"$all"
done
t_end

t_begin "help and --help: the overview lists every command and points to help COMMAND"
expect_exit 0 "$EBID" help
overview=$out
expect_exit 0 "$EBID" --help
expect_eq "help = --help" "$out" "$overview"
for c in $commands; do
	expect_match "command $c listed" "$out" "^  $c "
done
expect_match "pointer" "$out" "elf-buildid help COMMAND"
expect_exit 64 "$EBID" help nosuch
expect_eq "help nosuch: stdout" "$out" ""
expect_match "help nosuch: stderr" "$err" "unknown command 'nosuch'"
expect_exit 64 "$EBID" help inject verify
expect_eq "help inject verify: stdout" "$out" ""
t_end

t_done
