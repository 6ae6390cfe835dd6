/* SPDX-License-Identifier: MIT */
/* Runs a command over many files: tree walk, worker threads, ordered output. */
#include <fcntl.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "cli/cli.h"

struct pool {
	const struct cli *cli;
	const struct ebid_walk *walk;
	struct result *results;
	bool *done;
	work_fn work;
	size_t next;
	pthread_mutex_t lock;
	pthread_cond_t cond;
};

/*
 * One entry of the walk: what the walk already knows (it could not be
 * read, or it is no candidate) is said here once; the rest is the
 * command's work.
 */
static void run_entry(const struct pool *p, size_t i)
{
	const struct ebid_walk_entry *e = &p->walk->v[i];
	struct result *r = &p->results[i];

	r->dev = e->dev;
	r->ino = e->ino;
	r->alias = e->alias_of != NULL;
	if (e->error) {
		r->status = EXIT_FILE;
		r->outcome = OUT_FAILED;
		entry_error(r, e);
	} else if (e->skip) {
		r->outcome = OUT_SKIPPED;
		skip_reason(r, e);
	} else {
		p->work(p->cli, e, r);
	}
}

static void *worker(void *arg)
{
	struct pool *p = arg;

	for (;;) {
		size_t i;

		pthread_mutex_lock(&p->lock);
		i = p->next++;
		pthread_mutex_unlock(&p->lock);
		if (i >= p->walk->n)
			return NULL;
		run_entry(p, i);
		pthread_mutex_lock(&p->lock);
		p->done[i] = true;
		pthread_cond_broadcast(&p->cond);
		pthread_mutex_unlock(&p->lock);
	}
}

/* The progress line on a terminal: files done / total, current file. */
static void progress(size_t done, size_t total, const char *path, bool show)
{
	if (!show)
		return;
	if (done == total) {
		fprintf(stderr, "\r\033[K");
		return;
	}
	fprintf(stderr, "\r\033[K[%zu/%zu] %.60s", done, total, path);
	fflush(stderr);
}

void skip_reason(struct result *r, const struct ebid_walk_entry *e)
{
	if (e->alias_of)
		snprintf(r->msg, sizeof(r->msg), "%s: '%s'", e->reason,
			 e->alias_of);
	else
		snprintf(r->msg, sizeof(r->msg), "%s", e->reason);
}

void entry_error(struct result *r, const struct ebid_walk_entry *e)
{
	snprintf(r->msg, sizeof(r->msg), "cannot read: %s",
		 e->reason ? e->reason : ebid_strerror(e->error));
}

int open_entry(const struct cli *cli, const struct ebid_walk_entry *e,
	       struct stat *st, char *err, size_t errlen)
{
	struct ebid_at at;
	int fd;

	fd = ebid_walk_entry_at(e, &at, err, errlen);
	if (fd)
		return fd;
	fd = ebid_open_locked(&at, O_RDONLY, false, cli->lock_timeout_ms, st,
			      err, errlen);
	ebid_at_release(&at);
	return fd;
}

int open_named(const struct cli *cli, const char *path, struct stat *st,
	       char *err, size_t errlen)
{
	struct ebid_at at;
	int fd;

	fd = ebid_at_named(&at, path, true, err, errlen);
	if (fd)
		return fd;
	fd = ebid_open_locked(&at, O_RDONLY, false, cli->lock_timeout_ms, st,
			      err, errlen);
	ebid_at_release(&at);
	return fd;
}

bool print_error_or_skip(const struct cli *cli, const struct result *r)
{
	if (r->status) {
		fprintf(stderr, "%s: '%s': %s: %s\n", progname, r->path,
			cli->command, r->msg);
		return true;
	}
	if (r->outcome == OUT_SKIPPED) {
		if (cli->verbose)
			fprintf(stderr, "%s: '%s': skipped: %s\n", progname,
				r->path, r->msg);
		return true;
	}
	return false;
}

void cli_results_free(struct result *v, size_t n)
{
	size_t i;

	for (i = 0; v && i < n; i++) {
		free(v[i].dest);
		free(v[i].text);
		free((char *)v[i].path);
	}
	free(v);
}

/*
 * Adds every argument to the walk (and finishes it): EXIT_OK, or
 * EXIT_FILE when one could not be added (said on stderr).
 */
static int walk_args(const struct cli *cli, char **args, int nargs,
		     struct ebid_walk *walk)
{
	char err[EBID_ERRLEN];
	int status = EXIT_OK;
	size_t i;

	for (i = 0; i < (size_t)nargs; i++)
		if (ebid_walk_add(walk, args[i], cli->recursive, cli->exclude,
				  cli->nexclude, err, sizeof(err))) {
			fprintf(stderr, "%s: '%s': %s: %s\n", progname, args[i],
				cli->command, err);
			status = EXIT_FILE;
		}
	ebid_walk_finish(walk);
	return status;
}

/*
 * Starts up to nthreads workers over p: the number started (0: the caller
 * runs the work itself). *threads, allocated here, is the caller's to
 * free once it has joined them.
 */
static unsigned start_workers(struct pool *p, unsigned nthreads,
			      pthread_t **threads)
{
	unsigned started = 0;

	*threads = NULL;
	if (nthreads > p->walk->n)
		nthreads = p->walk->n ? (unsigned)p->walk->n : 1;
	if (nthreads > 1) {
		*threads = calloc(nthreads, sizeof(**threads));
		for (; *threads && started < nthreads; started++)
			if (pthread_create(&(*threads)[started], NULL, worker,
					   p))
				break;
	}
	return started;
}

/*
 * Results are printed in path order as soon as they are ready; the worst
 * status of them and status.
 */
static int print_in_order(struct pool *p, print_fn print, bool tty,
			  int status)
{
	const struct ebid_walk *walk = p->walk;
	size_t i;

	for (i = 0; i < walk->n; i++) {
		pthread_mutex_lock(&p->lock);
		while (!p->done[i])
			pthread_cond_wait(&p->cond, &p->lock);
		pthread_mutex_unlock(&p->lock);
		if (print) {
			if (tty)
				fprintf(stderr, "\r\033[K");
			print(p->cli, &p->results[i]);
			fflush(stdout);
		}
		if (p->results[i].status > status)
			status = p->results[i].status;
		progress(i + 1, walk->n,
			 i + 1 < walk->n ? walk->v[i + 1].path : "", tty);
	}
	return status;
}

int cli_run(const struct cli *cli, char **args, int nargs, work_fn work,
	    print_fn print, struct result **results, size_t *nresults)
{
	struct ebid_walk walk = { 0 };
	struct pool p;
	pthread_t *threads = NULL;
	unsigned started, t;
	bool tty = cli->recursive && isatty(2) && !cli->quiet;
	size_t i;
	int status;

	*results = NULL;
	*nresults = 0;
	status = walk_args(cli, args, nargs, &walk);

	memset(&p, 0, sizeof(p));
	p.cli = cli;
	p.walk = &walk;
	p.work = work;
	p.results = calloc(walk.n ? walk.n : 1, sizeof(*p.results));
	p.done = calloc(walk.n ? walk.n : 1, sizeof(*p.done));
	if (!p.results || !p.done) {
		fprintf(stderr, "%s: out of memory\n", progname);
		free(p.results);
		free(p.done);
		ebid_walk_release(&walk);
		return EXIT_FILE;
	}
	for (i = 0; i < walk.n; i++)
		p.results[i].path = walk.v[i].path;
	pthread_mutex_init(&p.lock, NULL);
	pthread_cond_init(&p.cond, NULL);
	started = start_workers(&p, cli->jobs ? cli->jobs : 1, &threads);
	if (!started) /* one thread, or none could be started */
		worker(&p);
	status = print_in_order(&p, print, tty, status);
	for (t = 0; t < started; t++)
		pthread_join(threads[t], NULL);
	free(threads);
	free(p.done);
	pthread_mutex_destroy(&p.lock);
	pthread_cond_destroy(&p.cond);

	/* Paths now belong to the results. */
	for (i = 0; i < walk.n; i++) {
		p.results[i].path = walk.v[i].path;
		walk.v[i].path = NULL;
	}
	*results = p.results;
	*nresults = walk.n;
	ebid_walk_release(&walk);
	return status;
}
