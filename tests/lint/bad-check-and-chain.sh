# A bad example for checks-can-fail.py (t0015): only the first test of the
# chain is inside the check; a first PT_LOAD of 100 bytes passed it.
load=100
expect_true "first PT_LOAD is $load bytes, not past the first page" \
	[ -n "$load" ] && [ $((load)) -gt 4096 ]
