/* SPDX-License-Identifier: MIT */
/* OpenMetrics text files (--openmetrics) and verify's families in them. */
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "cli/openmetrics.h"

#define ARRAY_SIZE(a) (sizeof(a) / sizeof((a)[0]))

static const char what[] = "OpenMetrics file";

FILE *om_open(const char *path, char **tmp)
{
	return report_open(path, what, tmp);
}

void om_family(FILE *f, const char *name, const char *unit, const char *help)
{
	fprintf(f, "# TYPE %s gauge\n", name);
	if (unit)
		fprintf(f, "# UNIT %s %s\n", name, unit);
	fprintf(f, "# HELP %s %s\n", name, help);
}

void om_counts(FILE *f, const char *name, const char *label,
	       const char *const *words, const size_t *counts, size_t n)
{
	size_t i;

	for (i = 0; i < n; i++)
		fprintf(f, "%s{%s=\"%s\"} %zu\n", name, label, words[i],
			counts[i]);
}

static int by_path_word(const void *a, const void *b)
{
	const struct om_pair *x = a, *y = b;
	int c = strcmp(x->path, y->path);

	return c ? c : strcmp(x->word, y->word);
}

void om_pairs(FILE *f, const char *name, const char *label,
	      struct om_pair *v, size_t n, bool count)
{
	size_t i, same;

	qsort(v, n, sizeof(*v), by_path_word);
	/* A path given twice is one series: no label set twice. */
	for (i = 0; i < n; i += same) {
		for (same = 1; i + same < n && !by_path_word(&v[i], &v[i + same]);)
			same++;
		fprintf(f, "%s{path=\"", name);
		om_str(f, v[i].path);
		fprintf(f, "\",%s=\"%s\"} %zu\n", label, v[i].word,
			count ? same : 1);
	}
}

void om_now(FILE *f, const char *name, const char *help)
{
	struct timespec ts;

	clock_gettime(CLOCK_REALTIME, &ts);
	om_family(f, name, "seconds", help);
	fprintf(f, "%s %lld.%03ld\n", name, (long long)ts.tv_sec,
		ts.tv_nsec / 1000000);
}

int om_close(FILE *f, const char *path, char *tmp)
{
	fputs("# EOF\n", f);
	return report_close(f, path, what, tmp);
}

static const char *const verdicts[] = { "pass", "fail", "skip", "error" };

/* The index of r's verdict in verdicts[]. */
static size_t verdict_of(const struct result *r)
{
	const char *w = verify_word(r->outcome);
	size_t i;

	for (i = 0; i + 1 < ARRAY_SIZE(verdicts); i++)
		if (!strcmp(w, verdicts[i]))
			break;
	return i;
}

/*
 * Each file's verdict, then each failed check of each file; v is owned by
 * the caller, big enough for every check of every file.
 */
static void verify_files(FILE *f, const struct result *r, size_t n,
			struct om_pair *v)
{
	size_t i, k, m = 0;

	for (i = 0; i < n; i++)
		v[m++] = (struct om_pair){ r[i].path, verdicts[verdict_of(&r[i])] };
	om_family(f, "elf_buildid_verify_file_verdict", NULL,
		  "Each file's verdict in verify's last run (1); the path label "
		  "is escaped as docs/prometheus.md says.");
	om_pairs(f, "elf_buildid_verify_file_verdict", "verdict", v, m, false);
	for (i = 0, m = 0; i < n; i++)
		for (k = 0; k < r[i].nchecks; k++)
			if (r[i].checks[k].status == CHECK_FAIL)
				v[m++] = (struct om_pair){ r[i].path,
							   r[i].checks[k].name };
	om_family(f, "elf_buildid_verify_failed_check", NULL,
		  "Each check a file failed in verify's last run (1).");
	om_pairs(f, "elf_buildid_verify_failed_check", "check", v, m, false);
}

int openmetrics_verify(const char *path, const struct result *r, size_t n)
{
	size_t counts[ARRAY_SIZE(verdicts)] = { 0 }, i;
	struct om_pair *v = calloc(n * MAX_CHECKS + 1, sizeof(*v));
	char *tmp = NULL;
	FILE *f = v ? om_open(path, &tmp) : NULL;

	if (!f) {
		if (!v)
			fprintf(stderr, "%s: '%s': cannot write %s: out of memory\n",
				progname, path, what);
		free(v);
		return -1;
	}
	for (i = 0; i < n; i++)
		counts[verdict_of(&r[i])]++;
	om_family(f, "elf_buildid_verify_files", NULL,
		  "Files verify judged in its last run, by verdict.");
	om_counts(f, "elf_buildid_verify_files", "verdict", verdicts, counts,
		  ARRAY_SIZE(verdicts));
	verify_files(f, r, n, v);
	om_now(f, "elf_buildid_verify_last_run_timestamp_seconds",
	       "When verify's last run ended, in seconds since the epoch.");
	free(v);
	return om_close(f, path, tmp);
}
