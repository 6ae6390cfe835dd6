/* SPDX-License-Identifier: MIT */
/* link: make a file findable by its build-id (debug tree or perf's cache). */
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "cli/cli.h"

/*
 * Opens, under its shared lock, the separate debug file that
 * .gnu_debuglink names, where gdb looks: beside the binary, in .debug
 * below it, and below the debug directory. Never the binary itself.
 */
static int open_debug_file(const struct cli *cli, const struct ebid_at *bin,
			   const struct stat *bin_st, const char *bin_dir,
			   const char *name, struct stat *st)
{
	char *cand[3] = { NULL, NULL, NULL };
	int i, fd = -1;

	if (asprintf(&cand[0], "%s", name) < 0)
		cand[0] = NULL;
	if (asprintf(&cand[1], ".debug/%s", name) < 0)
		cand[1] = NULL;
	if (asprintf(&cand[2], "%s%s%s", bin_dir[0] ? bin_dir + 1 : "",
		     bin_dir[0] ? "/" : "", name) < 0)
		cand[2] = NULL;
	for (i = 0; i < 3 && fd < 0; i++) {
		int dirfd = i < 2 ? bin->dirfd : cli->debug_dirfd;
		struct ebid_at at;
		char why[EBID_ERRLEN];

		if (!cand[i])
			continue;
		if (ebid_at_beneath(&at, dirfd, cand[i], why, sizeof(why)))
			continue;
		fd = ebid_open_locked(&at, O_RDONLY, false,
				      cli->lock_timeout_ms, st, why,
				      sizeof(why));
		ebid_at_release(&at);
		if (fd >= 0 && (!S_ISREG(st->st_mode) ||
				(st->st_dev == bin_st->st_dev &&
				 st->st_ino == bin_st->st_ino))) {
			close(fd);
			fd = -1;
		}
	}
	for (i = 0; i < 3; i++)
		free(cand[i]);
	return fd;
}

/* The absolute path of the file open at fd, as the kernel names it. */
static char *fd_path(int fd)
{
	char proc[64], buf[PATH_MAX];
	ssize_t n;

	snprintf(proc, sizeof(proc), "/proc/self/fd/%d", fd);
	n = readlink(proc, buf, sizeof(buf) - 1);
	if (n <= 0 || buf[0] != '/')
		return NULL;
	buf[n] = '\0';
	return strdup(buf);
}

/* One file being linked: what link_work's steps share. */
struct linking {
	const struct cli *cli;
	struct ebid_at bin;             /* where the file is */
	int fd;                         /* it, under its shared lock */
	struct stat st;
	struct ebid_elf elf;
	const char *id;                 /* hex, in the result */
	char *real, *dir;               /* its absolute path, and directory */
	char err[EBID_ERRLEN];
};

#define NO_DEBUG_FILE (-2)

/*
 * Opens the debug file to place instead of the binary: --debug-file, or
 * the one .gnu_debuglink names; NO_DEBUG_FILE when there is none, -1 on
 * error. It is checked and later copied through one descriptor.
 */
static int open_debug(struct linking *k)
{
	const struct cli *cli = k->cli;
	char link_name[PATH_MAX] = "";
	struct ebid_elf d;
	struct stat dst;
	int dfd = -1, ret;

	if (cli->debug_file) {
		dfd = open_named(cli, cli->debug_file, &dst, k->err,
				 sizeof(k->err));
		if (dfd < 0)
			return -1;
	} else if (ebid_elf_debuglink(&k->elf, k->fd, link_name,
				      sizeof(link_name)) == 0 &&
		   link_name[0]) {
		dfd = open_debug_file(cli, &k->bin, &k->st, k->dir, link_name,
				      &dst);
		if (dfd < 0) {
			snprintf(k->err, sizeof(k->err),
				 "debug file '%s' named by .gnu_debuglink not found",
				 link_name);
			return -1;
		}
	} else {
		return NO_DEBUG_FILE;
	}
	ret = ebid_elf_open_fd(&d, dfd, k->err, sizeof(k->err));
	if (!ret && (!d.gnu.present || d.gnu.desc_len != k->elf.gnu.desc_len ||
		     memcmp(d.gnu.desc, k->elf.gnu.desc, d.gnu.desc_len))) {
		snprintf(k->err, sizeof(k->err),
			 "debug file '%.100s' does not carry the same build-id",
			 cli->debug_file ? cli->debug_file : link_name);
		ret = -1;
	}
	ebid_elf_release(&d);
	if (ret) {
		close(dfd);
		return -1;
	}
	return dfd;
}

/*
 * Places the file by its id (ebid_place_by_id): --debug-dir takes the
 * binary's debug file where it has one (and a symlink to the binary),
 * --perf-cache the binary in perf's layout. *dest: the last one placed.
 */
static int link_to(struct linking *k, enum ebid_id_dir kind, char **dest)
{
	const struct cli *cli = k->cli;
	bool debug = kind == EBID_ID_DEBUG_DIR;
	struct ebid_placing p = {
		.kind = kind,
		.dirfd = debug ? cli->debug_dirfd : cli->perf_cachefd,
		.dir = debug ? cli->debug_dir : cli->perf_cache,
		.hex = k->id,
		.bin_path = k->real,
	};
	int dfd = debug ? open_debug(k) : NO_DEBUG_FILE, ret;

	if (dfd == -1)
		return -1;
	p.debug_file = dfd >= 0;
	free(*dest);
	*dest = NULL;
	ret = ebid_place_by_id(dfd >= 0 ? dfd : k->fd, &p, dest, k->err,
			       sizeof(k->err)) ? -1 : 0;
	if (dfd >= 0)
		close(dfd);
	return ret;
}

/*
 * Opens the file under its shared lock and checks that it has an id to
 * link: 0, 1 when it is no candidate in tree mode (r says why), or -1.
 */
static int open_bin(struct linking *k, const struct ebid_walk_entry *e,
		    struct result *r)
{
	const struct cli *cli = k->cli;
	char why[EBID_ERRLEN];
	int ret;

	ret = ebid_walk_entry_at(e, &k->bin, k->err, sizeof(k->err));
	if (!ret) {
		k->fd = ebid_open_locked(&k->bin, O_RDONLY, false,
					 cli->lock_timeout_ms, &k->st, k->err,
					 sizeof(k->err));
		ret = k->fd < 0 ? k->fd
				: ebid_elf_open_fd(&k->elf, k->fd, k->err,
						   sizeof(k->err));
	}
	if (ret == -EBID_ENOTELF && cli->recursive) {
		snprintf(r->msg, sizeof(r->msg), "%s", k->err);
		return 1;
	}
	if (ret)
		return -1;
	if (ebid_elf_check_program(&k->elf, why, sizeof(why))) {
		snprintf(cli->recursive ? r->msg : k->err,
			 cli->recursive ? sizeof(r->msg) : sizeof(k->err), "%s",
			 why);
		return cli->recursive ? 1 : -1;
	}
	if (!k->elf.gnu.present || !k->elf.gnu.desc_len ||
	    k->elf.gnu.desc_len > EBID_MAX_ID ||
	    ebid_all_zero(k->elf.gnu.desc, k->elf.gnu.desc_len)) {
		snprintf(k->err, sizeof(k->err),
			 "no usable GNU build-id (run elf-buildid inject first)");
		return -1;
	}
	ebid_hex(r->id, k->elf.gnu.desc, k->elf.gnu.desc_len);
	k->id = r->id;
	/* The path of the inode we hold, not of whatever the name is now. */
	k->real = fd_path(k->fd);
	k->dir = k->real ? strdup(k->real) : NULL;
	if (!k->real || !k->dir) {
		snprintf(k->err, sizeof(k->err), "cannot resolve path");
		return -1;
	}
	*strrchr(k->dir, '/') = '\0';
	return 0;
}

static void link_work(const struct cli *cli, const struct ebid_walk_entry *e,
		      struct result *r)
{
	struct linking k = { .cli = cli, .fd = -1 };
	char *dest = NULL;
	int ret;

	ebid_at_init(&k.bin);
	ret = open_bin(&k, e, r);
	if (!ret && cli->debug_dirfd >= 0)
		ret = link_to(&k, EBID_ID_DEBUG_DIR, &dest);
	if (!ret && cli->perf_cachefd >= 0)
		ret = link_to(&k, EBID_ID_PERF_CACHE, &dest);
	if (ret > 0) {
		r->outcome = OUT_SKIPPED;
	} else if (ret < 0) {
		r->status = EXIT_FILE;
		r->outcome = OUT_FAILED;
		snprintf(r->msg, sizeof(r->msg), "%s", k.err);
	} else {
		r->outcome = OUT_LINKED;
		r->dest = dest;
		dest = NULL;
	}
	if (k.fd >= 0)
		close(k.fd);
	ebid_at_release(&k.bin);
	ebid_elf_release(&k.elf);
	free(k.real);
	free(k.dir);
	free(dest);
}

static void link_print(const struct cli *cli, struct result *r)
{
	if (!print_error_or_skip(cli, r) && !cli->quiet)
		printf("%s  %s\n", r->id, r->dest ? r->dest : r->path);
}

/*
 * The directories of dir's path that do not exist yet, deepest first
 * (owned by the caller, *n of them): what open_root() makes, and what a
 * run that placed nothing removes again.
 */
static char **missing_dirs(const char *dir, size_t *n)
{
	char *p = strdup(dir), **v = NULL, **nv;
	struct stat st;

	*n = 0;
	while (p && p[0] && strcmp(p, "/") && strcmp(p, ".") &&
	       stat(p, &st) != 0 && errno == ENOENT) {
		char *slash;

		nv = realloc(v, (*n + 1) * sizeof(*v));
		if (!nv)
			break;
		v = nv;
		v[(*n)++] = strdup(p);
		slash = strrchr(p, '/');
		while (slash && slash > p && slash[1] == '\0') {
			*slash = '\0';
			slash = strrchr(p, '/');
		}
		if (!slash)
			break;
		*slash = '\0';
	}
	free(p);
	return v;
}

/* Removes what missing_dirs() listed, deepest first, while empty. */
static void unmake_dirs(char **v, size_t n, bool placed)
{
	size_t i;

	for (i = 0; i < n; i++) {
		if (!placed && v[i] && rmdir(v[i]) != 0)
			placed = true; /* not empty: keep it and its parents */
		free(v[i]);
	}
	free(v);
}

/* Creates the destination the user named if need be, and holds it open. */
static int open_root(const char *dir, int *fd)
{
	char err[EBID_ERRLEN];

	if (ebid_dir_open_made(dir, fd, err, sizeof(err))) {
		fprintf(stderr, "%s: '%s': link: %s\n", progname, dir, err);
		return EXIT_FILE;
	}
	return 0;
}

int cmd_link(const struct cli *cli, char **args, int nargs)
{
	struct cli c = *cli;
	struct result *v;
	size_t n, i, nmade[2] = { 0, 0 };
	char **made[2] = { NULL, NULL };
	bool placed = false;
	int status;

	/* What a run that places nothing must not leave behind. */
	if (c.debug_dir)
		made[0] = missing_dirs(c.debug_dir, &nmade[0]);
	if (c.perf_cache)
		made[1] = missing_dirs(c.perf_cache, &nmade[1]);
	/* Everything below the roots is reached from these descriptors. */
	c.debug_dirfd = c.perf_cachefd = -1;
	status = c.debug_dir ? open_root(c.debug_dir, &c.debug_dirfd) : 0;
	if (!status && c.perf_cache)
		status = open_root(c.perf_cache, &c.perf_cachefd);
	if (!status && link_any_artifact(&c, args, nargs)) {
		status = link_artifacts(&c, args, nargs, &placed);
	} else if (!status) {
		status = cli_run(&c, args, nargs, link_work, link_print, &v,
				 &n);
		for (i = 0; i < n; i++)
			placed = placed || v[i].outcome == OUT_LINKED;
		cli_results_free(v, n);
	}
	unmake_dirs(made[0], nmade[0], placed);
	unmake_dirs(made[1], nmade[1], placed);
	if (c.debug_dirfd >= 0)
		close(c.debug_dirfd);
	if (c.perf_cachefd >= 0)
		close(c.perf_cachefd);
	return status;
}
