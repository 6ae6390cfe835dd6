/* SPDX-License-Identifier: MIT */
/* Safe file replacement: temp file beside the target, metadata, rename. */
#include <errno.h>
#include <fcntl.h>
#include <libgen.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <dirent.h>
#include <string.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <sys/xattr.h>
#include <unistd.h>

#include "commit.h"

void ebid_commit_init(struct ebid_commit *c)
{
	memset(c, 0, sizeof(*c));
	c->fd = -1;
}

/* Is e a temporary of ours, ".NAME.ebid-XXXXXX"? Then NAME's length. */
static size_t temp_name_len(const char *e)
{
	size_t len = strlen(e);

	if (len < 1 + 1 + 6 + 6 || e[0] != '.' ||
	    strncmp(e + len - 12, ".ebid-", 6))
		return 0;
	return len - 1 - 12;
}

/*
 * The temporaries seen in one directory, read once per process: a tree
 * run writes many files into one directory, and reading the directory for
 * each of them was quadratic. Temporaries are rare, so the lists are short.
 */
struct dir_temps {
	dev_t dev;
	ino_t ino;
	char **names;
	size_t n;
};

static pthread_mutex_t temps_lock = PTHREAD_MUTEX_INITIALIZER;
static struct dir_temps *dirs;
static size_t ndirs;

static struct dir_temps *scan_dir(DIR *d, const struct stat *st)
{
	struct dir_temps *nd, *t;
	struct dirent *de;

	nd = realloc(dirs, (ndirs + 1) * sizeof(*dirs));
	if (!nd)
		return NULL;
	dirs = nd;
	t = &dirs[ndirs++];
	memset(t, 0, sizeof(*t));
	t->dev = st->st_dev;
	t->ino = st->st_ino;
	while ((de = readdir(d))) {
		char **nn;

		if (!temp_name_len(de->d_name))
			continue;
		nn = realloc(t->names, (t->n + 1) * sizeof(*t->names));
		if (!nn || !(nn[t->n] = strdup(de->d_name))) {
			t->names = nn ? nn : t->names;
			break; /* best effort: fewer are removed */
		}
		t->names = nn;
		t->n++;
	}
	return t;
}

/*
 * Removes the temporaries ".NAME.ebid-XXXXXX" that a killed run left beside
 * NAME. A live run holds an exclusive flock on its temporary from the moment
 * it creates it, so a temporary we can lock has no writer left. Best effort:
 * a failure here only leaves the old file where it was.
 */
static void remove_stale_temps(const char *dir, const char *name)
{
	size_t nlen = strlen(name), i;
	struct dir_temps *t = NULL;
	struct stat st;
	DIR *d = opendir(dir);

	if (!d)
		return;
	pthread_mutex_lock(&temps_lock);
	if (fstat(dirfd(d), &st) == 0) {
		for (i = 0; i < ndirs && !t; i++)
			if (dirs[i].dev == st.st_dev && dirs[i].ino == st.st_ino)
				t = &dirs[i];
		if (!t)
			t = scan_dir(d, &st);
	}
	for (i = 0; t && i < t->n;) {
		const char *e = t->names[i];
		struct stat a, b;
		int fd;

		if (temp_name_len(e) != nlen || strncmp(e + 1, name, nlen)) {
			i++;
			continue;
		}
		fd = openat(dirfd(d), e, O_RDONLY | O_NOFOLLOW | O_NONBLOCK |
					 O_CLOEXEC | O_NOCTTY);
		if (fd >= 0) {
			if (!fstat(fd, &a) && S_ISREG(a.st_mode) &&
			    !flock(fd, LOCK_EX | LOCK_NB) &&
			    !fstatat(dirfd(d), e, &b, AT_SYMLINK_NOFOLLOW) &&
			    a.st_dev == b.st_dev && a.st_ino == b.st_ino)
				unlinkat(dirfd(d), e, 0);
			close(fd);
		}
		/* Tried once: gone, or somebody's live temporary. */
		free(t->names[i]);
		t->names[i] = t->names[--t->n];
	}
	pthread_mutex_unlock(&temps_lock);
	closedir(d);
}

int ebid_commit_begin(struct ebid_commit *c, const char *target, char *err,
		      size_t errlen)
{
	char *dup = NULL, *dup2 = NULL;
	int ret = 0;

	ebid_commit_init(c);
	dup = strdup(target);
	dup2 = strdup(target);
	if (!dup || !dup2) {
		ret = ebid_err(err, errlen, -ENOMEM, "out of memory");
		goto out;
	}
	c->target = strdup(target);
	c->dir = strdup(dirname(dup));
	if (!c->target || !c->dir ||
	    asprintf(&c->tmp, "%s/.%s.ebid-XXXXXX", c->dir, basename(dup2)) <
		    0) {
		c->tmp = NULL;
		ret = ebid_err(err, errlen, -ENOMEM, "out of memory");
		goto out;
	}
	remove_stale_temps(c->dir, basename(dup2));
	c->fd = mkostemp(c->tmp, O_CLOEXEC);
	if (c->fd < 0) {
		ret = ebid_err(err, errlen, -errno,
			       "cannot create temporary file in '%s': %s",
			       c->dir, strerror(errno));
		free(c->tmp);
		c->tmp = NULL;
		goto out;
	}
	/* Marks the temporary as in use (see remove_stale_temps()). */
	if (flock(c->fd, LOCK_EX | LOCK_NB) != 0) {
		ret = ebid_err(err, errlen, -errno,
			       "cannot lock temporary file '%s': %s", c->tmp,
			       strerror(errno));
		goto out;
	}
out:
	free(dup);
	free(dup2);
	if (ret)
		ebid_commit_abort(c);
	return ret;
}

void ebid_commit_abort(struct ebid_commit *c)
{
	if (c->fd >= 0)
		close(c->fd);
	if (c->tmp)
		unlink(c->tmp);
	free(c->tmp);
	free(c->dir);
	free(c->target);
	ebid_commit_init(c);
}

/* Copies extended attributes; security.capability last (chown drops it). */
static int copy_xattrs(int from, int to, char *err, size_t errlen)
{
	char *names = NULL, *val = NULL;
	ssize_t len, vlen;
	int pass, ret = 0;
	char *n;

	len = flistxattr(from, NULL, 0);
	if (len < 0)
		return errno == ENOTSUP ? 0
					: ebid_err(err, errlen, -errno,
						   "cannot list xattrs: %s",
						   strerror(errno));
	if (len == 0)
		return 0;
	names = malloc((size_t)len);
	if (!names)
		return ebid_err(err, errlen, -ENOMEM, "out of memory");
	len = flistxattr(from, names, (size_t)len);
	if (len < 0) {
		ret = ebid_err(err, errlen, -errno, "cannot list xattrs: %s",
			       strerror(errno));
		goto out;
	}
	for (pass = 0; pass < 2; pass++) {
		for (n = names; n < names + len; n += strlen(n) + 1) {
			bool cap = !strcmp(n, "security.capability");

			if (cap != (pass == 1))
				continue;
			vlen = fgetxattr(from, n, NULL, 0);
			if (vlen < 0) {
				ret = ebid_err(err, errlen, -errno,
					       "cannot read xattr %s: %s", n,
					       strerror(errno));
				goto out;
			}
			free(val);
			val = malloc(vlen ? (size_t)vlen : 1);
			if (!val) {
				ret = ebid_err(err, errlen, -ENOMEM,
					       "out of memory");
				goto out;
			}
			vlen = fgetxattr(from, n, val, (size_t)vlen);
			if (vlen < 0 ||
			    fsetxattr(to, n, val, (size_t)vlen, 0) != 0) {
				ret = ebid_err(err, errlen, -errno,
					       "cannot copy xattr %s: %s", n,
					       strerror(errno));
				goto out;
			}
		}
	}
out:
	free(names);
	free(val);
	return ret;
}

bool ebid_same_file_state(const struct stat *a, const struct stat *b)
{
	return a->st_dev == b->st_dev && a->st_ino == b->st_ino &&
	       a->st_size == b->st_size &&
	       a->st_mtim.tv_sec == b->st_mtim.tv_sec &&
	       a->st_mtim.tv_nsec == b->st_mtim.tv_nsec &&
	       a->st_ctim.tv_sec == b->st_ctim.tv_sec &&
	       a->st_ctim.tv_nsec == b->st_ctim.tv_nsec;
}

int ebid_commit_finish(struct ebid_commit *c, int in_fd,
		       const struct stat *orig, bool keep_all_meta,
		       bool preserve_times, char *err, size_t errlen)
{
	struct stat now;
	int dfd, ret;

	if (fsync(c->fd) != 0) {
		ret = ebid_err(err, errlen, -errno, "fsync failed: %s",
			       strerror(errno));
		goto fail;
	}
	if (keep_all_meta && fchown(c->fd, orig->st_uid, orig->st_gid) != 0) {
		ret = ebid_err(err, errlen, -errno,
			       "cannot keep owner %u:%u: %s",
			       (unsigned)orig->st_uid, (unsigned)orig->st_gid,
			       strerror(errno));
		goto fail;
	}
	/* After chown, which clears set-user-ID and set-group-ID. */
	if (fchmod(c->fd, orig->st_mode & 07777) != 0) {
		ret = ebid_err(err, errlen, -errno, "cannot keep mode %o: %s",
			       (unsigned)(orig->st_mode & 07777),
			       strerror(errno));
		goto fail;
	}
	if (keep_all_meta) {
		ret = copy_xattrs(in_fd, c->fd, err, errlen);
		if (ret)
			goto fail;
	}
	if (preserve_times) {
		struct timespec ts[2] = { orig->st_atim, orig->st_mtim };

		if (futimens(c->fd, ts) != 0) {
			ret = ebid_err(err, errlen, -errno,
				       "cannot keep times: %s",
				       strerror(errno));
			goto fail;
		}
	}
	/* Someone else changed the input: their change must not be lost. */
	if (keep_all_meta && stat(c->target, &now) != 0) {
		ret = ebid_err(err, errlen, -errno,
			       "cannot stat before replacing (to see whether the file changed): %s",
			       strerror(errno));
		goto fail;
	}
	if (keep_all_meta && !ebid_same_file_state(orig, &now)) {
		ret = ebid_err(err, errlen, -EBID_ECHANGED,
			       "file changed while it was being processed; left as it is");
		goto fail;
	}
	if (rename(c->tmp, c->target) != 0) {
		ret = ebid_err(err, errlen, -errno, "cannot replace file: %s",
			       strerror(errno));
		goto fail;
	}
	free(c->tmp);
	c->tmp = NULL;
	dfd = open(c->dir, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	if (dfd < 0 || fsync(dfd) != 0) {
		/* The new file is in place; report that it may not be durable. */
		ret = ebid_err(err, errlen, -errno,
			       "file replaced, but syncing directory '%s' failed: %s",
			       c->dir, strerror(errno));
		if (dfd >= 0)
			close(dfd);
		ebid_commit_abort(c);
		return ret;
	}
	close(dfd);
	ebid_commit_abort(c); /* releases; the temp name is gone */
	return 0;
fail:
	ebid_commit_abort(c);
	return ret;
}
