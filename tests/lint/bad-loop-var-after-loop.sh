# A bad example for checks-can-fail.py (t0015): a loop variable after its loop.
for n in $(seq 30); do
	run "$EBID" show "$f"
	expect_eq "show" "$rc" 0
done
expect_true "the scans ran" test "$n" = 30
