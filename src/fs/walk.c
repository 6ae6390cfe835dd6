/* SPDX-License-Identifier: MIT */
/*
 * Tree walking through directory descriptors: every candidate file once,
 * symlinks never followed out of the tree, a directory swapped for a
 * symlink during the walk reported and not entered.
 */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "internal.h"
#include "fs/fs.h"

/* One walk of one root; lives on the stack of ebid_walk_add(). */
struct walker {
	struct ebid_walk *w;
	int rootfd;
	const char *root;               /* as given: the prefix of paths */
	char *root_abs;                 /* resolved: for absolute symlinks */
	const char *const *exclude;
	size_t nexclude;
};

void ebid_walk_release(struct ebid_walk *w)
{
	size_t i;

	if (!w)
		return;
	for (i = 0; i < w->n; i++) {
		free(w->v[i].path);
		free(w->v[i].rel);
		free(w->v[i].alias_of);
	}
	for (i = 0; i < w->nroots; i++)
		close(w->roots[i]);
	free(w->roots);
	free(w->v);
	memset(w, 0, sizeof(*w));
}

static struct ebid_walk_entry *push(struct ebid_walk *w, const char *path,
				    int rootfd, const char *rel)
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
	e->rootfd = rootfd;
	e->path = strdup(path);
	e->rel = rel ? strdup(rel) : NULL;
	if (!e->path || (rel && !e->rel)) {
		free(e->path);
		free(e->rel);
		return NULL;
	}
	w->n++;
	return e;
}

static void fill_stat(struct ebid_walk_entry *e, const struct stat *st)
{
	e->dev = (uint64_t)st->st_dev;
	e->ino = (uint64_t)st->st_ino;
	e->nlink = (uint64_t)st->st_nlink;
}

/* "a/b" + "c" -> "a/b/c"; "" + "c" -> "c". Owned by the caller. */
static char *join(const char *a, const char *b)
{
	size_t la = strlen(a);
	char *s;

	if (asprintf(&s, "%s%s%s", a, la && a[la - 1] != '/' ? "/" : "",
		     b) < 0)
		return NULL;
	return s;
}

/*
 * Where a symlink's text leads, as a path below the root, worked out on
 * the text alone: NULL with *why set when it leaves the tree. Leading ".."
 * climb the link's own directory, which the walk entered as a real
 * directory; a ".." after a name could undo a symlink and is refused.
 */
static char *link_target_rel(const struct walker *k, const char *link_rel,
			     const char *text, const char **why)
{
	const char *rest = text;
	char *base, *out = NULL, *copy = NULL, *comp, *save = NULL;
	size_t len;
	bool named = false;

	*why = "symlink pointing out of the tree (not followed)";
	if (text[0] == '/') {
		len = k->root_abs ? strlen(k->root_abs) : 0;
		if (!len || strncmp(text, k->root_abs, len) ||
		    (text[len] != '/' && len != 1))
			return NULL;
		rest = text + len;
		base = strdup("");
	} else {
		const char *slash = strrchr(link_rel, '/');

		base = strndup(link_rel, slash ? (size_t)(slash - link_rel) : 0);
	}
	copy = strdup(rest);
	if (!base || !copy)
		goto out;
	for (comp = strtok_r(copy, "/", &save); comp;
	     comp = strtok_r(NULL, "/", &save)) {
		char *slash, *next;

		if (!strcmp(comp, "."))
			continue;
		if (!strcmp(comp, "..")) {
			if (named) {
				*why = "symlink with '..' after a name in its target (not followed)";
				goto out;
			}
			if (!base[0])
				goto out; /* above the root */
			slash = strrchr(base, '/');
			*(slash ? slash : base) = '\0';
			continue;
		}
		named = true;
		next = join(base, comp);
		if (!next)
			goto out;
		free(base);
		base = next;
	}
	if (!base[0]) {
		*why = "symlink to a non-regular file";
		goto out;
	}
	out = base;
	base = NULL;
out:
	free(base);
	free(copy);
	return out;
}

/* A symlink met in the walk: it stands for its in-tree regular target. */
static void walk_link(const struct walker *k, struct ebid_walk_entry *e,
		      int dfd, const char *name)
{
	char text[PATH_MAX], *rel = NULL;
	const char *why = NULL;
	struct stat st;
	int hop, lfd = -1;
	ssize_t n;

	e->skip = true;
	n = readlinkat(dfd, name, text, sizeof(text) - 1);
	for (hop = 0; hop < 8; hop++) {
		char *next;

		if (n < 0) {
			why = "unreadable symlink";
			goto out;
		}
		text[n] = '\0';
		next = link_target_rel(k, rel ? rel : e->rel, text, &why);
		if (!next)
			goto out;
		free(rel);
		rel = next;
		if (lfd >= 0)
			close(lfd);
		lfd = ebid_open_beneath(k->rootfd, rel, O_PATH | O_NOFOLLOW, 0);
		if (lfd < 0) {
			why = lfd == -ENOENT || lfd == -ENOTDIR
				      ? "dangling symlink"
				      : "symlink whose target passes through another symlink (not followed)";
			goto out;
		}
		if (fstat(lfd, &st) != 0) {
			why = "dangling symlink";
			goto out;
		}
		if (!S_ISLNK(st.st_mode))
			break;
		n = readlinkat(lfd, "", text, sizeof(text) - 1);
	}
	if (hop == 8)
		why = "too many levels of symlinks (not followed)";
	else if (!S_ISREG(st.st_mode))
		why = "symlink to a non-regular file";
	else {
		/* Same inode as its target: collapsed in finish. */
		fill_stat(e, &st);
		free(e->rel);
		e->rel = rel;
		rel = NULL;
		e->skip = false;
		why = "symlink";
	}
out:
	e->reason = why;
	if (lfd >= 0)
		close(lfd);
	free(rel);
}

static int walk_dir(const struct walker *k, int dfd, const char *rel,
		    const char *path);

/* One name found in directory dfd. Returns 0 or -ENOMEM. */
static int walk_one(const struct walker *k, int dfd, const char *rel,
		    const char *path, const char *name)
{
	char *crel = join(rel, name), *cpath = join(path, name);
	struct ebid_walk_entry *e = NULL;
	struct stat st, dst;
	int ret = -ENOMEM, cfd;

	if (!crel || !cpath)
		goto out;
	ret = 0;
	if (ebid_glob_match(k->exclude, k->nexclude, crel) ||
	    ebid_is_own_file(name))
		goto out;
	if (fstatat(dfd, name, &st, AT_SYMLINK_NOFOLLOW) != 0) {
		if (errno == ENOENT)
			goto out; /* removed since the directory was read */
		e = push(k->w, cpath, k->rootfd, crel);
		if (e)
			e->error = -errno;
		goto done;
	}
	if (S_ISDIR(st.st_mode)) {
		cfd = openat(dfd, name, O_RDONLY | O_DIRECTORY | O_NOFOLLOW |
						O_CLOEXEC);
		if (cfd >= 0 && (fstat(cfd, &dst) != 0 ||
				 dst.st_dev != st.st_dev ||
				 dst.st_ino != st.st_ino)) {
			close(cfd);
			cfd = -1;
			errno = ELOOP;
		}
		if (cfd < 0) {
			e = push(k->w, cpath, k->rootfd, crel);
			if (!e)
				goto done;
			e->error = -errno;
			if (errno == ELOOP || errno == ENOTDIR || errno == ENOENT) {
				e->error = -ELOOP;
				e->reason = "directory replaced during the walk; not followed";
			}
			goto done;
		}
		ret = walk_dir(k, cfd, crel, cpath);
		close(cfd);
		goto out;
	}
	e = push(k->w, cpath, k->rootfd, crel);
	if (!e)
		goto done;
	if (S_ISLNK(st.st_mode)) {
		walk_link(k, e, dfd, name);
	} else {
		fill_stat(e, &st);
		if (!S_ISREG(st.st_mode)) {
			e->skip = true;
			e->reason = "not a regular file";
		}
	}
done:
	ret = e ? 0 : -ENOMEM;
out:
	free(crel);
	free(cpath);
	return ret;
}

static int by_name(const void *a, const void *b)
{
	return strcmp(*(char *const *)a, *(char *const *)b);
}

/* Reads the names of dfd first, then visits them: one descriptor a level. */
static int walk_dir(const struct walker *k, int dfd, const char *rel,
		    const char *path)
{
	char **names = NULL;
	size_t n = 0, cap = 0, i;
	struct dirent *de;
	int fd, ret = 0;
	DIR *d;

	/* Its own open file: a dup would share dfd's read position. */
	fd = openat(dfd, ".", O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	d = fd < 0 ? NULL : fdopendir(fd);
	if (!d) {
		struct ebid_walk_entry *e;

		ret = -errno;
		if (fd >= 0)
			close(fd);
		e = push(k->w, path, k->rootfd, rel[0] ? rel : ".");
		if (!e)
			return -ENOMEM;
		e->error = ret;
		return 0;
	}
	while ((de = readdir(d))) {
		if (!strcmp(de->d_name, ".") || !strcmp(de->d_name, ".."))
			continue;
		if (n == cap) {
			char **nv = realloc(names, (cap = cap ? 2 * cap : 32) *
							   sizeof(*names));

			if (!nv) {
				ret = -ENOMEM;
				break;
			}
			names = nv;
		}
		names[n] = strdup(de->d_name);
		if (!names[n]) {
			ret = -ENOMEM;
			break;
		}
		n++;
	}
	closedir(d);
	if (!ret && n > 1) /* qsort(NULL, 0, ...) is undefined */
		qsort(names, n, sizeof(*names), by_name);
	for (i = 0; !ret && i < n; i++)
		ret = walk_one(k, dfd, rel, path, names[i]);
	for (i = 0; i < n; i++)
		free(names[i]);
	free(names);
	return ret;
}

int ebid_walk_add(struct ebid_walk *w, const char *root, bool recursive,
		  const char *const *exclude, size_t nexclude, char *err,
		  size_t errlen)
{
	struct ebid_walk_entry *e;
	struct walker k = { .w = w, .root = root, .exclude = exclude,
			    .nexclude = nexclude };
	struct stat st;
	int *roots, ret;

	if (lstat(root, &st) != 0 || !recursive || !S_ISDIR(st.st_mode)) {
		/* A named file is always a candidate: the job reports it. */
		e = push(w, root, -1, NULL);
		if (!e)
			return ebid_err(err, errlen, -ENOMEM, "out of memory");
		e->named = true;
		if (stat(root, &st) == 0)
			fill_stat(e, &st);
		return 0;
	}
	roots = realloc(w->roots, (w->nroots + 1) * sizeof(*roots));
	if (!roots)
		return ebid_err(err, errlen, -ENOMEM, "out of memory");
	w->roots = roots;
	/* The root is opened once; everything below is reached from it. */
	k.rootfd = open(root, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	if (k.rootfd < 0)
		return ebid_err(err, errlen, -errno, "cannot open: %s",
				strerror(errno));
	w->roots[w->nroots++] = k.rootfd;
	k.root_abs = realpath(root, NULL);
	ret = walk_dir(&k, k.rootfd, "", root);
	free(k.root_abs);
	if (ret)
		return ebid_err(err, errlen, ret, "cannot walk: %s",
				ebid_strerror(ret));
	return 0;
}

int ebid_walk_entry_at(const struct ebid_walk_entry *e, struct ebid_at *at,
		       char *err, size_t errlen)
{
	if (e->rootfd >= 0)
		return ebid_at_beneath(at, e->rootfd, e->rel, err, errlen);
	return ebid_at_named(at, e->path, true, err, errlen);
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

	if (!w->n) /* an empty walk: qsort(NULL, 0, ...) is undefined */
		return;
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
