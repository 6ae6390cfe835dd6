/* SPDX-License-Identifier: MIT */
/*
 * --openmetrics=FILE (verify, audit --running): OpenMetrics text for
 * node_exporter's textfile collector, written whole to FILE.tmp and renamed
 * over FILE (docs/prometheus.md). Every family is a gauge: the Prometheus
 * text format node_exporter parses has no info or stateset type.
 */
#ifndef EBID_CLI_OPENMETRICS_H
#define EBID_CLI_OPENMETRICS_H

#include <stdbool.h>
#include <stdio.h>

#include "cli/cli.h"

/* One sample of a family labelled by path: its other label's value. */
struct om_pair {
	const char *path;
	const char *word;
};

/* report_open() for an OpenMetrics file; NULL after saying why. */
FILE *om_open(const char *path, char **tmp);
/* The # TYPE (gauge), # UNIT (when unit) and # HELP lines of a family. */
void om_family(FILE *f, const char *name, const char *unit, const char *help);
/* One sample per word, all of them, label="word" counts[i]. */
void om_counts(FILE *f, const char *name, const char *label,
	       const char *const *words, const size_t *counts, size_t n);
/*
 * One sample per distinct (path, word) of v, which it sorts: valued by how
 * many pairs share them with count, else 1.
 */
void om_pairs(FILE *f, const char *name, const char *label,
	      struct om_pair *v, size_t n, bool count);
/* The family NAME (ending in _timestamp_seconds): the time now. */
void om_now(FILE *f, const char *name, const char *help);
/*
 * Ends the exposition (# EOF) and renames it over path, or says why not
 * (a write that failed on the way too; path is then untouched): 0 or -1.
 * Always closes f and frees tmp.
 */
int om_close(FILE *f, const char *path, char *tmp);

/* verify --openmetrics: v, n as cmd_verify() judged them. 0 or -1. */
int openmetrics_verify(const char *path, const struct result *v, size_t n);

#endif
