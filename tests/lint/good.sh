# A good example for checks-can-fail.py (t0015): each status is read.
(false) >"$SCRATCH/.log" 2>&1
st=$?
expect_eq "exit: $(cat "$SCRATCH/.log")" "$st" 1
scans=0
for n in $(seq 30); do
	run "$EBID" show "$f"
	expect_eq "show" "$rc" 0
	scans=$((scans + 1))
done
expect_eq "scans" "$scans" 30
want=$(false; echo "exit $?")
run "$EBID" verify "$f" # lint: ok (the output alone is judged here)
expect_match "out" "$out" PASS
