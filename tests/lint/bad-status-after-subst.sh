# A bad example for checks-can-fail.py (t0015): $? after a substitution.
(false) >"$SCRATCH/.log" 2>&1
expect_eq "exit: $(cat "$SCRATCH/.log")" "$?" 0
