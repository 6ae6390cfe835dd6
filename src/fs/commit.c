/* SPDX-License-Identifier: MIT */
/* Safe file replacement: temp file beside the target, metadata, rename. */
#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <dirent.h>
#include <string.h>
#include <sys/file.h>
#include <sys/random.h>
#include <sys/stat.h>
#include <sys/xattr.h>
#include <unistd.h>

#include "fs/commit.h"
#include "fs/fs.h"

void ebid_commit_init(struct ebid_commit *c)
{
	memset(c, 0, sizeof(*c));
	c->fd = -1;
	c->dirfd = -1;
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

bool ebid_is_own_file(const char *name)
{
	size_t len = strlen(name);
	static const char *const ends[] = { ".ebid-journal", ".ebid-link" };
	size_t i;

	if (temp_name_len(name))
		return true;
	for (i = 0; i < ARRAY_SIZE(ends); i++) {
		size_t n = strlen(ends[i]);

		if (name[0] == '.' && len > n + 1 &&
		    !strcmp(name + len - n, ends[i]))
			return true;
	}
	return false;
}

/*
 * The temporaries seen in one directory, read once per run: a tree run
 * writes many files into one directory, and reading the directory for
 * each of them was quadratic. Temporaries are rare, so the lists are short.
 */
struct dir_temps {
	dev_t dev;
	ino_t ino;
	char **names;
	size_t n;
};

struct ebid_temps {
	pthread_mutex_t lock;
	struct dir_temps *dirs;
	size_t ndirs;
};

struct ebid_temps *ebid_temps_new(void)
{
	struct ebid_temps *t = calloc(1, sizeof(*t));

	if (t)
		pthread_mutex_init(&t->lock, NULL);
	return t;
}

static void dir_temps_release(struct dir_temps *d)
{
	size_t i;

	for (i = 0; i < d->n; i++)
		free(d->names[i]);
	free(d->names);
}

void ebid_temps_free(struct ebid_temps *t)
{
	size_t i;

	if (!t)
		return;
	for (i = 0; i < t->ndirs; i++)
		dir_temps_release(&t->dirs[i]);
	free(t->dirs);
	pthread_mutex_destroy(&t->lock);
	free(t);
}

/* Lists the temporaries in the directory open at dfd into *t. */
static void scan_dir(int dfd, const struct stat *st, struct dir_temps *t)
{
	struct dirent *de;
	/* Its own open file: a dup would share the walk's read position. */
	int fd = openat(dfd, ".", O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	DIR *d = fd < 0 ? NULL : fdopendir(fd);

	memset(t, 0, sizeof(*t));
	t->dev = st->st_dev;
	t->ino = st->st_ino;
	if (!d) {
		if (fd >= 0)
			close(fd);
		return;
	}
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
	closedir(d);
}

/* The cached list for the directory at dfd (added if new), or NULL. */
static struct dir_temps *cached_dir(struct ebid_temps *c, int dfd,
				    const struct stat *st)
{
	struct dir_temps *nd;
	size_t i;

	for (i = 0; i < c->ndirs; i++)
		if (c->dirs[i].dev == st->st_dev && c->dirs[i].ino == st->st_ino)
			return &c->dirs[i];
	nd = realloc(c->dirs, (c->ndirs + 1) * sizeof(*nd));
	if (!nd)
		return NULL;
	c->dirs = nd;
	scan_dir(dfd, st, &c->dirs[c->ndirs]);
	return &c->dirs[c->ndirs++];
}

/*
 * Removes the temporaries ".NAME.ebid-XXXXXX" that a killed run left beside
 * NAME. A live run holds an exclusive flock on its temporary from the moment
 * it creates it, so a temporary we can lock has no writer left. Best effort:
 * a failure here only leaves the old file where it was.
 */
static void remove_stale_temps(struct ebid_temps *cache, int dfd,
			       const char *name)
{
	size_t nlen = strlen(name), i;
	struct dir_temps *t = NULL, own;
	struct stat st;

	if (fstat(dfd, &st) != 0)
		return;
	if (cache) {
		pthread_mutex_lock(&cache->lock);
		t = cached_dir(cache, dfd, &st);
	} else {
		scan_dir(dfd, &st, &own);
		t = &own;
	}
	for (i = 0; t && i < t->n;) {
		const char *e = t->names[i];
		struct stat a, b;
		int fd;

		if (temp_name_len(e) != nlen || strncmp(e + 1, name, nlen)) {
			i++;
			continue;
		}
		fd = openat(dfd, e, O_RDONLY | O_NOFOLLOW | O_NONBLOCK |
					    O_CLOEXEC | O_NOCTTY);
		if (fd >= 0) {
			if (!fstat(fd, &a) && S_ISREG(a.st_mode) &&
			    !flock(fd, LOCK_EX | LOCK_NB) &&
			    !fstatat(dfd, e, &b, AT_SYMLINK_NOFOLLOW) &&
			    a.st_dev == b.st_dev && a.st_ino == b.st_ino)
				unlinkat(dfd, e, 0);
			close(fd);
		}
		/* Tried once: gone, or somebody's live temporary. */
		free(t->names[i]);
		t->names[i] = t->names[--t->n];
	}
	if (cache)
		pthread_mutex_unlock(&cache->lock);
	else
		dir_temps_release(&own);
}

/* Creates ".NAME.ebid-XXXXXX" in dfd, as mkostemp() would in a path. */
static int create_temp(int dfd, const char *name, char **tmp)
{
	static const char chars[] =
		"abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789";
	unsigned char rnd[6];
	int tries, fd = -1;
	size_t i;

	for (tries = 0; tries < 100; tries++) {
		char *s;

		if (getrandom(rnd, sizeof(rnd), 0) != (ssize_t)sizeof(rnd))
			return -EIO;
		if (asprintf(&s, ".%s.ebid-XXXXXX", name) < 0)
			return -ENOMEM;
		for (i = 0; i < 6; i++)
			s[strlen(s) - 6 + i] = chars[rnd[i] % (sizeof(chars) - 1)];
		fd = openat(dfd, s, O_RDWR | O_CREAT | O_EXCL | O_NOFOLLOW |
					    O_CLOEXEC, 0600);
		if (fd >= 0) {
			*tmp = s;
			return fd;
		}
		free(s);
		if (errno != EEXIST)
			return -errno;
	}
	return -EEXIST;
}

/*
 * The directory's lock, on an open file of our own: another run may be
 * between creating its temporary and locking it (-o into one OUT, or -o
 * and a run on OUT itself), and the lock keeps the two steps from being
 * taken for a dead run's leftover. The descriptor (closing it releases
 * the lock), or a negative code.
 */
static int lock_dir(int dirfd, long timeout_ms, char *err, size_t errlen)
{
	long long deadline = timeout_ms < 0 ? -1 : ebid_now_ms() + timeout_ms;
	int ret, dlock = openat(dirfd, ".", O_RDONLY | O_DIRECTORY | O_CLOEXEC);

	if (dlock < 0)
		return ebid_err(err, errlen, -errno,
				"cannot open its directory to lock it: %s",
				strerror(errno));
	ret = ebid_flock_wait(dlock, LOCK_EX, deadline);
	if (!ret)
		return dlock;
	close(dlock);
	if (ret == -ETIMEDOUT)
		return ebid_err(err, errlen, -EBID_ELOCKED,
				"its directory stayed locked by another process (--lock-timeout)");
	return ebid_err(err, errlen, ret, "cannot lock its directory: %s",
			strerror(-ret));
}

void ebid_commit_sweep(int dirfd, const char *name, struct ebid_temps *temps,
		       long timeout_ms)
{
	char err[EBID_ERRLEN];
	int dlock = lock_dir(dirfd, timeout_ms, err, sizeof(err));

	if (dlock < 0)
		return; /* best effort: the leftovers wait for another run */
	remove_stale_temps(temps, dirfd, name);
	close(dlock);
}

int ebid_commit_begin(struct ebid_commit *c, int dirfd, const char *name,
		      struct ebid_temps *temps, long timeout_ms, char *err,
		      size_t errlen)
{
	int ret = 0, dlock = -1;

	ebid_commit_init(c);
	c->dirfd = dirfd;
	c->name = strdup(name);
	if (!c->name) {
		ret = ebid_err(err, errlen, -ENOMEM, "out of memory");
		goto out;
	}
	dlock = lock_dir(dirfd, timeout_ms, err, errlen);
	if (dlock < 0) {
		ret = dlock;
		goto out;
	}
	remove_stale_temps(temps, dirfd, name);
	c->fd = create_temp(dirfd, name, &c->tmp);
	if (c->fd < 0) {
		ret = ebid_err(err, errlen, c->fd,
			       "cannot open a new temporary file beside it: %s",
			       strerror(-c->fd));
		c->fd = -1;
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
	if (dlock >= 0)
		close(dlock); /* releases the directory's lock */
	if (ret)
		ebid_commit_abort(c);
	return ret;
}

void ebid_commit_abort(struct ebid_commit *c)
{
	if (c->fd >= 0)
		close(c->fd);
	if (c->tmp)
		unlinkat(c->dirfd, c->tmp, 0);
	free(c->tmp);
	free(c->name);
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
	int ret;

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
	if (keep_all_meta &&
	    fstatat(c->dirfd, c->name, &now, AT_SYMLINK_NOFOLLOW) != 0) {
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
	if (renameat(c->dirfd, c->tmp, c->dirfd, c->name) != 0) {
		ret = ebid_err(err, errlen, -errno, "cannot replace file: %s",
			       strerror(errno));
		goto fail;
	}
	free(c->tmp);
	c->tmp = NULL;
	if (fsync(c->dirfd) != 0) {
		/* The new file is in place; report that it may not be durable. */
		ret = ebid_err(err, errlen, -errno,
			       "file replaced, but syncing its directory failed: %s",
			       strerror(errno));
		ebid_commit_abort(c);
		return ret;
	}
	ebid_commit_abort(c); /* releases; the temp name is gone */
	return 0;
fail:
	ebid_commit_abort(c);
	return ret;
}
