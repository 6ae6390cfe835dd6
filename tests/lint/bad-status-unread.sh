# A bad example for checks-can-fail.py (t0015): an exit status never read.
for cmd in reserve backfill; do
	run "$EBID" "$cmd" "$f"
	expect_eq "$cmd: state" "$(file_state "$f")" "$state"
done
