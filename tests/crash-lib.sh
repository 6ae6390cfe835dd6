# SPDX-License-Identifier: MIT
# The crash-state harness's steps, shared by t0645 (make test: a few inputs)
# and t0647 (make check-slow: every write path and plan kind, every state).
# Sourced after lib.sh. crash_case LABEL INPUT MODE LIMIT records a real
# inject of a copy of INPUT in MODE (default, --replace, --in-place, or
# default:replace: the default mode on a file it must replace) under
# tests/crash/recshim.c and checks every state a power loss could leave
# (tests/crash/states.py, the model in its header), at most LIMIT per crash
# point; then it drops, one at a time, each sync the run's promises rest on
# from the recorded log, as a run that never made it would have, and
# expects the checker to find the broken promise.

crash_build() {
	t_begin "the recorder and the recovery step build"
	expect_exit 0 build_locked crash make -C "$TOP" --no-print-directory crashshim
	t_end
	# The plain build's recovery step, whichever build is under test: it is
	# the library's own code, run on each state.
	SHIM=$TOP/build/crash/recshim.so
	RECOVER=$TOP/build/crash/ebid-recover
}

# crash_record DIR INPUT MODE: DIR/d/f is INPUT; the run's log is DIR/log,
# the file before and after it DIR/old and DIR/new.
crash_record() {
	local w=$1 in=$2 mode=$3 m=()
	rm -rf "$w" && mkdir -p "$w/d"
	cp "$in" "$w/d/f" && cp "$in" "$w/old"
	printf 'f\t%s\n' "$(stat -c %i "$w/d/f")" >"$w/inodes"
	case $mode in default*) ;; *) m=("$mode") ;; esac
	EBID_CREC_SCOPE=$w/d EBID_CREC_LOG=$w/log LD_PRELOAD=$SHIM \
		ASAN_OPTIONS="${ASAN_OPTIONS:+$ASAN_OPTIONS:}verify_asan_link_order=0" \
		"$EBID" inject -v "${m[@]}" "$w/d/f" >"$w/out" 2>"$w/err"
	echo $? >"$w/rc"
	cp "$w/d/f" "$w/new"
}

crash_states() { # DIR LIMIT [states.py args]
	local w=$1 limit=$2
	shift 2
	python3 "$TOP/tests/crash/states.py" --log "$w/log" --dir "$w/d" \
		--inodes "$w/inodes" --initial "f=$w/old" --target f \
		--journal .f.ebid-journal --old "$w/old" --new "$w/new" \
		--recover "$RECOVER" --limit "$limit" --durable "$@"
}

# The index (0-based) of the first log line matching the awk condition;
# crash_ops: of every such line, comma-separated.
crash_op() { # DIR AWK-CONDITION
	awk -F'\t' "$2 { print NR - 1; exit }" "$1/log"
}
crash_ops() { # DIR AWK-CONDITION
	awk -F'\t' "$2 { printf \"%s%d\", n++ ? \",\" : \"\", NR - 1 }" "$1/log"
}

# How many 512-byte sectors of inode INO the log writes.
crash_sectors() { # DIR INO
	awk -F'\t' -v ino="$2" '$1 == "WRITE" && $2 == ino {
		for (s = int($3 / 512); s <= int(($3 + length($4) / 2 - 1) / 512); s++) n[s] = 1
	} END { print length(n) }' "$1/log"
}

# crash_case LABEL INPUT MODE LIMIT [DROP-LIMIT [sampled]]: with "sampled",
# a crash point with more states than LIMIT is checked on a seeded sample
# of LIMIT (the extremes among them), and the summary may say so; else
# every state must have been checked.
crash_case() {
	local label=$1 in=$2 mode=$3 limit=$4 dlimit=${5:-$4} sampled=${6:-} w=$SCRATCH/$1
	local jino tino res sectors
	crash_record "$w" "$in" "$mode"
	t_begin "$label: a real run, recorded, with the calls its mode makes"
	expect_eq "exit status ($(cat "$w/err"))" "$(cat "$w/rc")" 0
	tino=$(cut -f2 "$w/inodes")
	case $mode in
	--replace | default:replace)
		expect_match "how" "$(cat "$w/err")" 'replaced by rename$'
		for k in CREATE COPY FSYNC RENAME FSYNCDIR; do
			grep -q "^$k"$'\t' "$w/log" || t_fail "no $k in the log"
		done ;;
	*)
		expect_match "how" "$(cat "$w/err")" "edited in place"
		for k in CREATE WRITE FSYNC FSYNCDIR UNLINK; do
			grep -q "^$k"$'\t' "$w/log" || t_fail "no $k in the log"
		done
		grep -q $'^WRITE\t'"$tino"$'\t' "$w/log" ||
			t_fail "no write into the file itself in the log" ;;
	esac
	sectors=$(crash_sectors "$w" "$tino")
	expect_false "the run changed nothing" cmp -s "$w/old" "$w/new"
	t_end

	t_begin "$label: every crash state is the old or the new file (after recovery where a journal is left), the new one once the run returned"
	res=$(crash_states "$w" "$limit")
	expect_eq "states.py exit ($res)" "$?" 0
	if [ -n "$sampled" ]; then
		expect_match "summary" "$res" '^crash-states: [0-9]+ points, [0-9]+ states, [0-9]+ recovered, 0 failed, (exhaustive|sampled)$'
	else
		expect_match "summary" "$res" '^crash-states: [0-9]+ points, [0-9]+ states, [0-9]+ recovered, 0 failed, exhaustive$'
	fi
	echo "# $label: $res"
	t_end

	# Each sync the promises rest on, dropped from the recorded run.
	local drops=()
	case $mode in
	--replace | default:replace)
		local temp
		temp=$(awk -F'\t' '$1 == "RENAME" { print $2; exit }' "$w/log")
		tino=$(awk -F'\t' -v p="$temp" '$1 == "CREATE" && $3 == p { print $2; exit }' "$w/log")
		drops+=("the new file's fsync before the rename:$(crash_op "$w" "\$1 == \"FSYNC\" && \$2 == $tino")")
		drops+=("the directory's fsync after the rename:$(crash_op "$w" '$1 == "RENAME" { r = 1 } r && $1 == "FSYNCDIR"')") ;;
	*)
		jino=$(awk -F'\t' '$1 == "CREATE" && $3 ~ /ebid-journal$/ { print $2; exit }' "$w/log")
		drops+=("the journal's fsync:$(crash_op "$w" "\$1 == \"FSYNC\" && \$2 == $jino")")
		drops+=("the directory's fsync after the journal is made:$(crash_op "$w" '$1 == "FSYNCDIR"')")
		drops+=("the file's syncs before the journal goes:$(crash_ops "$w" "(\$1 == \"FSYNC\" || \$1 == \"SYNCRANGE\") && \$2 == $tino")")
		drops+=("the directory's fsync after the journal goes:$(crash_op "$w" '$1 == "UNLINK" { u = 1 } u && $1 == "FSYNCDIR"')") ;;
	esac
	local d what k want
	for d in "${drops[@]}"; do
		what=${d%:*} k=${d##*:}
		# A change that lies in one sector is old or new on disk without a
		# journal (a disk writes a sector whole): dropping the journal's
		# syncs then breaks nothing, and the checker must say so too.
		want=1
		case "$mode:$what" in
		--replace:* | default:replace:*) ;;
		*"journal is made"* | *"journal's fsync"*)
			[ "$sectors" = 1 ] && want=0 ;;
		esac
		t_begin "$label: without $what (call ${k//,/, }), the checker $([ "$want" = 1 ] && echo "finds a broken promise" || echo "finds none: the change lies in one sector")"
		if [ -z "$k" ]; then
			t_fail "no such call in the log"
		else
			local dropargs=() one
			for one in ${k//,/ }; do dropargs+=(--drop "$one"); done
			res=$(crash_states "$w" "$dlimit" "${dropargs[@]}")
			expect_eq "states.py exit ($res)" "$?" "$want"
			if [ "$want" = 1 ]; then
				expect_match "summary" "$res" 'crash-states: .* [1-9][0-9]* failed'
			else
				expect_match "summary" "$res" ' 0 failed, exhaustive$'
			fi
			echo "# $label without $what: ${res##*$'\n'}"
		fi
		t_end
	done
}
