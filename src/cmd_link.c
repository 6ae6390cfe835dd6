/* SPDX-License-Identifier: MIT */
/* link: make a file findable by its build-id (debug tree or perf's cache). */
#include <errno.h>
#include <fcntl.h>
#include <libgen.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <linux/fs.h>
#include <sys/ioctl.h>
#include <sys/stat.h>
#include <unistd.h>

#include "cli.h"
#include "internal.h"

/* mkdir -p; returns 0 or -errno. */
static int mkdirs(const char *dir)
{
	char *p = strdup(dir), *s;
	int ret = 0;

	if (!p)
		return -ENOMEM;
	for (s = p + 1; ; s++) {
		if (*s == '/' || *s == '\0') {
			char c = *s;

			*s = '\0';
			if (mkdir(p, 0755) != 0 && errno != EEXIST) {
				ret = -errno;
				break;
			}
			*s = c;
			if (!c)
				break;
		}
	}
	free(p);
	return ret;
}

static int same_bytes(const char *a, const char *b)
{
	FILE *fa = fopen(a, "rb"), *fb = fopen(b, "rb");
	char x[65536], y[65536];
	size_t na, nb;
	int same = 0;

	if (!fa || !fb)
		goto out;
	do {
		na = fread(x, 1, sizeof(x), fa);
		nb = fread(y, 1, sizeof(y), fb);
		if (na != nb || memcmp(x, y, na))
			goto out;
	} while (na);
	same = 1;
out:
	if (fa)
		fclose(fa);
	if (fb)
		fclose(fb);
	return same;
}

/*
 * Places a copy of src at dest (a reflink where the file system can). A
 * copy, not a hard link: a binary later overwritten in place (cp, install
 * without rename) must not change what its old id points to. Never
 * replaces: the same bytes already there are fine, others a collision.
 */
static int place(const char *src, const char *dest, char *err, size_t errlen)
{
	char *dir = strdup(dest), *tmp = NULL;
	struct stat a, b;
	int ret = 0, in = -1, out = -1;

	if (!dir)
		return ebid_err(err, errlen, -ENOMEM, "out of memory");
	ret = mkdirs(dirname(dir));
	if (ret) {
		ebid_err(err, errlen, ret, "cannot create directory for '%s': %s",
			 dest, strerror(-ret));
		goto out;
	}
	if (lstat(dest, &b) == 0) {
		if (stat(src, &a) == 0 && stat(dest, &b) == 0 &&
		    ((a.st_dev == b.st_dev && a.st_ino == b.st_ino) ||
		     same_bytes(src, dest)))
			goto out; /* already there */
		ret = ebid_err(err, errlen, -EEXIST,
			       "collision: a different file is already at '%s'",
			       dest);
		goto out;
	}
	/* Copy to a temp name, then link it in: never clobbers. */
	if (asprintf(&tmp, "%s.ebid-XXXXXX", dest) < 0) {
		tmp = NULL;
		ret = ebid_err(err, errlen, -ENOMEM, "out of memory");
		goto out;
	}
	in = open(src, O_RDONLY | O_CLOEXEC);
	out = in < 0 ? -1 : mkostemp(tmp, O_CLOEXEC);
	if (in < 0 || out < 0) {
		ret = ebid_err(err, errlen, -errno, "cannot copy to '%s': %s",
			       dest, strerror(errno));
		if (out < 0) {
			free(tmp);
			tmp = NULL;
		}
		goto out;
	}
	if (ioctl(out, FICLONE, in) != 0) {
		for (;;) {
			char buf[65536];
			ssize_t n = read(in, buf, sizeof(buf));

			if (n == 0)
				break;
			if (n < 0 || write(out, buf, (size_t)n) != n) {
				ret = ebid_err(err, errlen, -EIO,
					       "cannot copy to '%s': %s", dest,
					       strerror(errno));
				goto out;
			}
		}
	}
	if (fchmod(out, 0644) || fsync(out) || link(tmp, dest)) {
		ret = ebid_err(err, errlen, -errno, "cannot copy to '%s': %s",
			       dest, strerror(errno));
		goto out;
	}
out:
	if (in >= 0)
		close(in);
	if (out >= 0)
		close(out);
	if (tmp)
		unlink(tmp);
	free(tmp);
	free(dir);
	return ret;
}

/* A symlink at path pointing to target; an equal one is fine. */
static int place_symlink(const char *target, const char *path, char *err,
			 size_t errlen)
{
	char have[PATH_MAX];
	ssize_t n;
	char *dir = strdup(path);
	int ret;

	if (!dir)
		return ebid_err(err, errlen, -ENOMEM, "out of memory");
	ret = mkdirs(dirname(dir));
	free(dir);
	if (ret)
		return ebid_err(err, errlen, ret,
				"cannot create directory for '%s': %s", path,
				strerror(-ret));
	if (symlink(target, path) == 0)
		return 0;
	if (errno != EEXIST)
		return ebid_err(err, errlen, -errno,
				"cannot make symlink '%s': %s", path,
				strerror(errno));
	n = readlink(path, have, sizeof(have) - 1);
	if (n >= 0) {
		have[n] = '\0';
		if (!strcmp(have, target))
			return 0;
	}
	return ebid_err(err, errlen, -EEXIST,
			"collision: '%s' already exists and points elsewhere",
			path);
}

/* Finds the separate debug file named by .gnu_debuglink, as gdb does. */
static char *find_debug_file(const char *bin, const char *name,
			     const char *debug_dir)
{
	char *real = realpath(bin, NULL), *dir, *cand = NULL;
	int i;

	if (!real)
		return NULL;
	dir = dirname(real);
	for (i = 0; i < 2; i++) {
		if (asprintf(&cand, "%s%s/%s", dir, i ? "/.debug" : "", name) <
		    0) {
			cand = NULL;
			break;
		}
		if (access(cand, R_OK) == 0 && strcmp(cand, bin))
			goto out;
		free(cand);
		cand = NULL;
	}
	if (debug_dir && asprintf(&cand, "%s%s/%s", debug_dir, dir, name) >= 0) {
		if (access(cand, R_OK) == 0)
			goto out;
		free(cand);
		cand = NULL;
	}
out:
	free(real);
	return cand;
}

static void link_work(const struct cli *cli, const struct ebid_walk_entry *e,
		      struct result *r)
{
	struct ebid_elf elf;
	char err[EBID_ERRLEN], link_name[PATH_MAX] = "";
	char *dest = NULL, *debug = NULL, *real = NULL, *cache = NULL;
	const char *why;
	int ret;

	r->dev = e->dev;
	r->ino = e->ino;
	memset(&elf, 0, sizeof(elf));
	if (e->error || e->skip) {
		r->action = e->error ? "failed" : "skipped";
		r->status = e->error ? EXIT_FILE : EXIT_OK;
		if (e->error)
			snprintf(r->msg, sizeof(r->msg), "%s",
				 strerror(-e->error));
		else
			skip_reason(r, e);
		return;
	}
	ret = ebid_elf_open(&elf, e->path, err, sizeof(err));
	if (ret == -EBID_ENOTELF && cli->recursive) {
		r->action = "skipped";
		snprintf(r->msg, sizeof(r->msg), "%s", err);
		return;
	}
	if (ret)
		goto fail;
	if (!ebid_elf_is_program(&elf, &why)) {
		if (cli->recursive) {
			r->action = "skipped";
			snprintf(r->msg, sizeof(r->msg), "%s", why);
			goto out;
		}
		snprintf(err, sizeof(err), "%s", why);
		goto fail;
	}
	if (!elf.gnu.present || !elf.gnu.desc_len ||
	    elf.gnu.desc_len > EBID_MAX_ID ||
	    ebid_all_zero(elf.gnu.desc, elf.gnu.desc_len)) {
		snprintf(err, sizeof(err),
			 "no usable GNU build-id (run elf-buildid inject first)");
		goto fail;
	}
	ebid_hex(r->id, elf.gnu.desc, elf.gnu.desc_len);
	real = realpath(e->path, NULL);
	if (!real) {
		snprintf(err, sizeof(err), "cannot resolve path: %s",
			 strerror(errno));
		goto fail;
	}
	if (cli->debug_dir) {
		if (cli->debug_file)
			debug = strdup(cli->debug_file);
		else if (ebid_elf_debuglink(&elf, e->path, link_name,
					    sizeof(link_name)) == 0 &&
			 link_name[0])
			debug = find_debug_file(e->path, link_name,
						cli->debug_dir);
		if (link_name[0] && !debug) {
			snprintf(err, sizeof(err),
				 "debug file '%s' named by .gnu_debuglink not found",
				 link_name);
			goto fail;
		}
		if (debug) {
			struct ebid_elf d;

			if (ebid_elf_open(&d, debug, err, sizeof(err)))
				goto fail;
			if (!d.gnu.present || d.gnu.desc_len != elf.gnu.desc_len ||
			    memcmp(d.gnu.desc, elf.gnu.desc, d.gnu.desc_len)) {
				ebid_elf_release(&d);
				snprintf(err, sizeof(err),
					 "debug file '%.100s' does not carry the same build-id",
					 debug);
				goto fail;
			}
			ebid_elf_release(&d);
		}
		if (asprintf(&dest, "%s/.build-id/%.2s/%s.debug", cli->debug_dir,
			     r->id, r->id + 2) < 0)
			goto oom;
		if (place(debug ? debug : e->path, dest, err, sizeof(err)))
			goto fail;
		if (debug) {
			char *bl = NULL;

			if (asprintf(&bl, "%s/.build-id/%.2s/%s", cli->debug_dir,
				     r->id, r->id + 2) < 0)
				goto oom;
			ret = place_symlink(real, bl, err, sizeof(err));
			free(bl);
			if (ret)
				goto fail;
		}
	}
	if (cli->perf_cache) {
		char *dir = NULL, *bl = NULL, *target = NULL;

		cache = strdup(cli->perf_cache);
		/* perf's layout: DIR/<abs path>/<id>/{elf,debug} and a
		 * DIR/.build-id/xx/rest symlink to ../../<abs path>/<id>. */
		if (!cache || asprintf(&dir, "%s%s/%s", cache, real, r->id) < 0)
			goto oom;
		free(dest);
		dest = NULL;
		if (asprintf(&dest, "%s/debug", dir) < 0 ||
		    asprintf(&bl, "%s/.build-id/%.2s/%s", cache, r->id,
			     r->id + 2) < 0 ||
		    asprintf(&target, "../..%s/%s", real, r->id) < 0) {
			free(dir);
			free(bl);
			goto oom;
		}
		ret = place(e->path, dest, err, sizeof(err));
		if (!ret) {
			char *elfp = NULL;

			if (asprintf(&elfp, "%s/elf", dir) >= 0) {
				struct stat st;

				if (lstat(elfp, &st) != 0)
					ret = place(e->path, elfp, err,
						    sizeof(err));
				free(elfp);
			}
		}
		if (!ret)
			ret = place_symlink(target, bl, err, sizeof(err));
		free(dir);
		free(bl);
		free(target);
		if (ret)
			goto fail;
	}
	r->action = "linked";
	r->dest = dest;
	dest = NULL;
	goto out;
oom:
	snprintf(err, sizeof(err), "out of memory");
fail:
	r->status = EXIT_FILE;
	r->action = "failed";
	snprintf(r->msg, sizeof(r->msg), "%s", err);
out:
	free(dest);
	free(debug);
	free(real);
	free(cache);
	ebid_elf_release(&elf);
}

static void link_print(const struct cli *cli, struct result *r)
{
	if (r->status) {
		fprintf(stderr, "%s: '%s': link: %s\n", progname, r->path,
			r->msg);
		return;
	}
	if (!strcmp(r->action, "skipped")) {
		if (cli->verbose)
			fprintf(stderr, "%s: '%s': skipped: %s\n", progname,
				r->path, r->msg);
		return;
	}
	if (!cli->quiet)
		printf("%s  %s\n", r->id, r->dest ? r->dest : r->path);
}

int cmd_link(const struct cli *cli, char **args, int nargs)
{
	struct result *v;
	size_t n;
	int status;

	status = cli_run(cli, args, nargs, link_work, link_print, &v, &n);
	cli_results_free(v, n);
	return status;
}
