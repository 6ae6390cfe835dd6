/* SPDX-License-Identifier: MIT */
/*
 * The TAP of every unit test (tests/run.sh counts it): one "ok N - what"
 * or "not ok N - what" line per check, "# ..." diagnostics, the plan
 * "1..N" last. Included once, by the test's own .c file.
 */
#ifndef EBID_TESTS_TAP_H
#define EBID_TESTS_TAP_H
#include <stdarg.h>
#include <stdio.h>

static int tap_n, tap_failed;

__attribute__((format(printf, 2, 0))) static void vok(int cond, const char *fmt,
						      va_list ap)
{
	tap_n++;
	if (!cond)
		tap_failed++;
	printf("%s %d - ", cond ? "ok" : "not ok", tap_n);
	vprintf(fmt, ap);
	putchar('\n');
	fflush(stdout);
}

/* One check: cond, described by fmt (printf's). cond again. */
__attribute__((format(printf, 2, 3), unused)) static int ok(int cond,
							     const char *fmt,
							     ...)
{
	va_list ap;

	va_start(ap, fmt);
	vok(cond, fmt, ap);
	va_end(ap);
	return cond;
}

/* A check not made, and why: TAP's SKIP, never a pass. */
__attribute__((unused)) static void skip(const char *what, const char *why)
{
	printf("ok %d - %s # SKIP %s\n", ++tap_n, what, why);
	fflush(stdout);
}

/* A diagnostic line under the check before it. */
__attribute__((format(printf, 1, 2), unused)) static void diag(const char *fmt,
								...)
{
	va_list ap;

	fputs("#   ", stdout);
	va_start(ap, fmt);
	vprintf(fmt, ap);
	va_end(ap);
	putchar('\n');
}

/* The plan, and the exit status: 1 when a check failed. */
static int tap_done(void)
{
	printf("1..%d\n", tap_n);
	return tap_failed ? 1 : 0;
}
#endif
