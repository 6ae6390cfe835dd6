/* SPDX-License-Identifier: MIT */
/* Tree walking: every candidate file once, symlinks never followed out. */
#include <errno.h>
#include <fnmatch.h>
#include <ftw.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "internal.h"

/* nftw() takes no context argument; walks are not run concurrently. */
static struct {
	struct ebid_walk *w;
	const char *root;
	size_t root_len;
	char *root_real;
	const char *const *exclude;
	size_t nexclude;
	int error;
} ctx;

void ebid_walk_release(struct ebid_walk *w)
{
	size_t i;

	if (!w)
		return;
	for (i = 0; i < w->n; i++) {
		free(w->v[i].path);
		free(w->v[i].alias_of);
	}
	free(w->v);
	memset(w, 0, sizeof(*w));
}

static struct ebid_walk_entry *push(struct ebid_walk *w, const char *path)
{
	struct ebid_walk_entry *e;

	if (w->n == w->cap) {
		size_t cap = w->cap ? w->cap * 2 : 64;
		struct ebid_walk_entry *v = realloc(w->v, cap * sizeof(*v));

		if (!v)
			return NULL;
		w->v = v;
		w->cap = cap;
	}
	e = &w->v[w->n];
	memset(e, 0, sizeof(*e));
	e->path = strdup(path);
	if (!e->path)
		return NULL;
	w->n++;
	return e;
}

static bool excluded(const char *path)
{
	const char *rel = path + ctx.root_len, *base = strrchr(path, '/');
	size_t i;

	while (*rel == '/')
		rel++;
	base = base ? base + 1 : path;
	for (i = 0; i < ctx.nexclude; i++)
		if (!fnmatch(ctx.exclude[i], rel, 0) ||
		    !fnmatch(ctx.exclude[i], base, 0))
			return true;
	return false;
}

/* Is real (a resolved path) inside the root's resolved directory? */
static bool inside_root(const char *real)
{
	size_t n = strlen(ctx.root_real);

	return !strncmp(real, ctx.root_real, n) &&
	       (real[n] == '/' || real[n] == '\0' || n == 1);
}

static void fill_stat(struct ebid_walk_entry *e, const struct stat *st)
{
	e->dev = (uint64_t)st->st_dev;
	e->ino = (uint64_t)st->st_ino;
	e->nlink = (uint64_t)st->st_nlink;
}

static int visit(const char *path, const struct stat *sb, int flag,
		 struct FTW *ftw)
{
	struct ebid_walk_entry *e;
	struct stat st;
	char *real;

	(void)ftw;
	if (ftw->level > 0 && excluded(path))
		return flag == FTW_D ? FTW_SKIP_SUBTREE : FTW_CONTINUE;
	switch (flag) {
	case FTW_D:
	case FTW_DP:
		return FTW_CONTINUE;
	case FTW_DNR:
	case FTW_NS:
		e = push(ctx.w, path);
		if (!e)
			goto oom;
		e->error = flag == FTW_DNR ? -EACCES : -errno;
		if (!e->error)
			e->error = -EIO;
		return FTW_CONTINUE;
	case FTW_F:
		e = push(ctx.w, path);
		if (!e)
			goto oom;
		fill_stat(e, sb);
		if (!S_ISREG(sb->st_mode)) {
			e->skip = true;
			e->reason = "not a regular file";
		}
		return FTW_CONTINUE;
	case FTW_SL:
	case FTW_SLN:
		e = push(ctx.w, path);
		if (!e)
			goto oom;
		e->skip = true;
		real = realpath(path, NULL);
		if (!real || stat(real, &st) != 0) {
			e->reason = "dangling symlink";
		} else if (!inside_root(real)) {
			e->reason = "symlink pointing out of the tree (not followed)";
		} else if (!S_ISREG(st.st_mode)) {
			e->reason = "symlink to a non-regular file";
		} else {
			/* Same inode as its target: collapsed in finish. */
			fill_stat(e, &st);
			e->skip = false;
			e->reason = "symlink";
		}
		free(real);
		return FTW_CONTINUE;
	default:
		return FTW_CONTINUE;
	}
oom:
	ctx.error = -ENOMEM;
	return FTW_STOP;
}

int ebid_walk_add(struct ebid_walk *w, const char *root, bool recursive,
		  const char *const *exclude, size_t nexclude, char *err,
		  size_t errlen)
{
	struct ebid_walk_entry *e;
	struct stat st;
	int ret;

	if (lstat(root, &st) != 0 || !recursive || !S_ISDIR(st.st_mode)) {
		/* A named file is always a candidate: the job reports it. */
		e = push(w, root);
		if (!e)
			return ebid_err(err, errlen, -ENOMEM, "out of memory");
		e->named = true;
		if (stat(root, &st) == 0)
			fill_stat(e, &st);
		return 0;
	}
	memset(&ctx, 0, sizeof(ctx));
	ctx.w = w;
	ctx.root = root;
	ctx.root_len = strlen(root);
	ctx.exclude = exclude;
	ctx.nexclude = nexclude;
	ctx.root_real = realpath(root, NULL);
	if (!ctx.root_real)
		return ebid_err(err, errlen, -errno, "cannot resolve: %s",
				strerror(errno));
	ret = nftw(root, visit, 32, FTW_PHYS | FTW_ACTIONRETVAL);
	free(ctx.root_real);
	if (ctx.error)
		return ebid_err(err, errlen, ctx.error, "out of memory");
	if (ret == -1)
		return ebid_err(err, errlen, -errno, "cannot walk: %s",
				strerror(errno));
	return 0;
}

static int by_path(const void *a, const void *b)
{
	const struct ebid_walk_entry *x = a, *y = b;

	return strcmp(x->path, y->path);
}

/* Regular paths before symlinks, then by path: the first of an inode wins. */
static int by_inode_pref(const void *a, const void *b)
{
	const struct ebid_walk_entry *x = a, *y = b;
	bool xs = x->reason != NULL, ys = y->reason != NULL;

	if (x->dev != y->dev)
		return x->dev < y->dev ? -1 : 1;
	if (x->ino != y->ino)
		return x->ino < y->ino ? -1 : 1;
	if (xs != ys)
		return xs ? 1 : -1;
	return strcmp(x->path, y->path);
}

/*
 * Collapses the names of one inode found by walking to the first (regular
 * paths before symlinks); the other names stay listed, skipped, as
 * aliases. Names given on the command line are all kept.
 */
void ebid_walk_finish(struct ebid_walk *w)
{
	size_t i, j;

	qsort(w->v, w->n, sizeof(*w->v), by_inode_pref);
	for (i = 0; i < w->n; i = j) {
		struct ebid_walk_entry *first = &w->v[i];

		j = i + 1;
		if (first->skip || first->error || !first->ino)
			continue;
		first->links_in_tree = first->reason ? 0 : 1;
		while (j < w->n && !w->v[j].skip && !w->v[j].error &&
		       w->v[j].dev == first->dev && w->v[j].ino == first->ino) {
			struct ebid_walk_entry *e = &w->v[j++];

			if (!e->reason)
				first->links_in_tree++;
			if (first->named && e->named)
				continue;
			e->alias_of = strdup(first->path);
			e->skip = true;
			e->reason = e->reason ? "symlink to a file handled under another name"
					      : "hard link of a file handled under another name";
		}
		first->reason = NULL; /* a symlink may stand for its inode */
	}
	qsort(w->v, w->n, sizeof(*w->v), by_path);
}
