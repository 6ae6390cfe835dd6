/* SPDX-License-Identifier: MIT */
/*
 * Files named by their build-id: the .build-id/ab/cdef... path that perf's
 * cache and the debug directories share, spelled here once, and placing a
 * copy of a file there, below a directory held open.
 */
#include <ctype.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <linux/fs.h>
#include <sys/ioctl.h>
#include <sys/stat.h>
#include <unistd.h>

#include "internal.h"

bool ebid_is_hex_id(const char *hex)
{
	size_t i, n = strlen(hex);

	if (n < 2 || n > 2 * EBID_MAX_ID)
		return false;
	for (i = 0; i < n; i++)
		if (!isxdigit((unsigned char)hex[i]))
			return false;
	return true;
}

int ebid_build_id_path(char *buf, size_t len, const char *dir,
		       const char *hex, const char *suffix)
{
	int n;

	if (!ebid_is_hex_id(hex))
		return -EINVAL;
	n = snprintf(buf, len, "%s%s.build-id/%.2s/%s%s", dir ? dir : "",
		     dir ? "/" : "", hex, hex + 2, suffix ? suffix : "");
	if (n < 0 || (size_t)n >= len)
		return -ENAMETOOLONG;
	return 0;
}

/* Whether the files open at a and b hold the same bytes. */
static bool same_bytes(int a, int b)
{
	unsigned char *x = malloc(EBID_IO_CHUNK), *y = malloc(EBID_IO_CHUNK);
	struct stat sa, sb;
	uint64_t off, size;
	bool same = false;

	if (!x || !y || fstat(a, &sa) || fstat(b, &sb) ||
	    sa.st_size != sb.st_size)
		goto out;
	size = (uint64_t)sa.st_size;
	for (off = 0; off < size;) {
		size_t n = size - off < EBID_IO_CHUNK ? (size_t)(size - off)
						      : EBID_IO_CHUNK;

		if (ebid_pread_full(a, x, n, off) ||
		    ebid_pread_full(b, y, n, off) || memcmp(x, y, n))
			goto out;
		off += n;
	}
	same = true;
out:
	free(x);
	free(y);
	return same;
}

/* Copies the file open at in into out: a reflink where it can. */
static int copy_fd(int in, int out)
{
	unsigned char *buf;
	struct stat st;
	uint64_t off, size;
	int ret = 0;

	if (ioctl(out, FICLONE, in) == 0)
		return 0;
	if (fstat(in, &st) != 0)
		return -errno;
	buf = malloc(EBID_IO_CHUNK);
	if (!buf)
		return -ENOMEM;
	size = (uint64_t)st.st_size;
	for (off = 0; !ret && off < size;) {
		size_t n = size - off < EBID_IO_CHUNK ? (size_t)(size - off)
						      : EBID_IO_CHUNK;

		ret = ebid_pread_full(in, buf, n, off);
		if (!ret)
			ret = ebid_pwrite_full(out, buf, n, off);
		off += n;
	}
	free(buf);
	return ret;
}

/*
 * A destination below a held root: rel's directory, made with mkdirat and
 * opened without following symlinks, and the last component's name.
 */
struct dest {
	int dirfd;
	const char *name;       /* points into rel */
};

static int dest_open(struct dest *d, int rootfd, const char *root,
		     const char *rel, char *err, size_t errlen)
{
	char *dir = strdup(rel), *slash;
	char why[EBID_ERRLEN];
	int ret;

	d->dirfd = -1;
	if (!dir)
		return ebid_err(err, errlen, -ENOMEM, "out of memory");
	slash = strrchr(dir, '/');
	d->name = slash ? rel + (slash - dir) + 1 : rel;
	if (slash)
		*slash = '\0';
	ret = slash ? ebid_mkdirs_beneath(rootfd, dir, &d->dirfd, why,
					  sizeof(why))
		    : (d->dirfd = fcntl(rootfd, F_DUPFD_CLOEXEC, 0)) < 0
			      ? ebid_err(why, sizeof(why), -errno, "%s",
					 strerror(errno))
			      : 0;
	free(dir);
	if (ret)
		return ebid_err(err, errlen, ret, "cannot place '%s/%s': %s",
				root, rel, why);
	return 0;
}

/*
 * What is at d already: 0 when it is the same bytes as in (nothing to
 * do), 1 when there is nothing, or a negative code for a symlink or
 * (unless keep_other, which takes it as done) a different file.
 */
static int dest_have(const struct dest *d, int in, const char *root,
		     const char *rel, bool keep_other, char *err,
		     size_t errlen)
{
	struct stat a, b;
	int have;
	bool same;

	if (fstatat(d->dirfd, d->name, &b, AT_SYMLINK_NOFOLLOW) != 0)
		return 1;
	if (S_ISLNK(b.st_mode))
		return ebid_err(err, errlen, -ELOOP,
				"'%s/%s' is a symlink; refusing to write through it",
				root, rel);
	have = openat(d->dirfd, d->name,
		      O_RDONLY | O_NOFOLLOW | O_NONBLOCK | O_CLOEXEC);
	same = have >= 0 && !fstat(in, &a) && !fstat(have, &b) &&
	       S_ISREG(b.st_mode) &&
	       ((a.st_dev == b.st_dev && a.st_ino == b.st_ino) ||
		same_bytes(in, have));
	if (have >= 0)
		close(have);
	if (same || keep_other)
		return 0;
	return ebid_err(err, errlen, -EEXIST,
			"collision: a different file is already at '%s/%s'",
			root, rel);
}

/*
 * Places a copy of the file open at in at root/rel (a reflink where the
 * file system can). A copy, not a hard link: a binary later overwritten
 * in place (cp, install without rename) must not change what its old id
 * points to, and in may be on another file system (/proc/PID/map_files).
 * Never replaces, never writes through a symlink: the same bytes already
 * there are fine, anything else is refused (or, with keep_other, left as
 * it is).
 */
static int place_copy(int in, int rootfd, const char *root, const char *rel,
		      bool keep_other, char *err, size_t errlen)
{
	struct dest d;
	char *tmp = NULL;
	int ret, out = -1;

	ret = dest_open(&d, rootfd, root, rel, err, errlen);
	if (ret)
		return ret;
	ret = dest_have(&d, in, root, rel, keep_other, err, errlen);
	if (ret <= 0)
		goto out;
	ret = 0;
	/* Copy to a temporary name, then link it in: never clobbers. */
	if (asprintf(&tmp, ".%s.ebid-link", d.name) < 0) {
		tmp = NULL;
		ret = ebid_err(err, errlen, -ENOMEM, "out of memory");
		goto out;
	}
	unlinkat(d.dirfd, tmp, 0); /* a killed run's */
	out = openat(d.dirfd, tmp, O_RDWR | O_CREAT | O_EXCL | O_NOFOLLOW |
					   O_CLOEXEC, 0600);
	if (out < 0) {
		ret = ebid_err(err, errlen, -errno, "cannot copy to '%s/%s': %s",
			       root, rel, strerror(errno));
		free(tmp);
		tmp = NULL;
		goto out;
	}
	ret = copy_fd(in, out);
	if (!ret && (fchmod(out, 0644) || fsync(out) ||
		     linkat(d.dirfd, tmp, d.dirfd, d.name, 0)))
		ret = -errno;
	if (ret)
		ebid_err(err, errlen, ret, "cannot copy to '%s/%s': %s", root,
			 rel, strerror(-ret));
out:
	if (out >= 0)
		close(out);
	if (tmp)
		unlinkat(d.dirfd, tmp, 0);
	free(tmp);
	close(d.dirfd);
	return ret;
}

/* A symlink at root/rel pointing to target; an equal one is fine. */
static int place_symlink(const char *target, int rootfd, const char *root,
			 const char *rel, char *err, size_t errlen)
{
	char have[PATH_MAX];
	struct dest d;
	ssize_t n;
	int ret;

	ret = dest_open(&d, rootfd, root, rel, err, errlen);
	if (ret)
		return ret;
	if (symlinkat(target, d.dirfd, d.name) == 0)
		goto out;
	if (errno != EEXIST) {
		ret = ebid_err(err, errlen, -errno,
			       "cannot make symlink '%s/%s': %s", root, rel,
			       strerror(errno));
		goto out;
	}
	n = readlinkat(d.dirfd, d.name, have, sizeof(have) - 1);
	if (n >= 0) {
		have[n] = '\0';
		if (!strcmp(have, target))
			goto out;
	}
	ret = ebid_err(err, errlen, -EEXIST,
		       "collision: '%s/%s' already exists and points elsewhere",
		       root, rel);
out:
	close(d.dirfd);
	return ret;
}

/*
 * A debug directory: the file at DIR/.build-id/ab/cdef....debug, and for a
 * separate debug file DIR/.build-id/ab/cdef... pointing to the binary.
 */
static int place_debug_dir(int in_fd, const struct ebid_placing *p,
			   char **dest, char *err, size_t errlen)
{
	char rel[PATH_MAX];
	int ret;

	ret = ebid_build_id_path(rel, sizeof(rel), NULL, p->hex,
				 EBID_DEBUG_SUFFIX);
	if (ret)
		return ebid_err(err, errlen, ret, "'%.80s' is not a build-id in hex",
				p->hex);
	if (p->debug_file && (!p->bin_path || p->bin_path[0] != '/'))
		return ebid_err(err, errlen, -EINVAL,
				"a debug file's binary needs its absolute path");
	if (asprintf(dest, "%s/%s", p->dir, rel) < 0) {
		*dest = NULL;
		return ebid_err(err, errlen, -ENOMEM, "out of memory");
	}
	ret = place_copy(in_fd, p->dirfd, p->dir, rel, false, err, errlen);
	if (ret || !p->debug_file)
		return ret;
	/* The id names the binary too, next to its debug file. */
	rel[strlen(rel) - strlen(EBID_DEBUG_SUFFIX)] = '\0';
	return place_symlink(p->bin_path, p->dirfd, p->dir, rel, err, errlen);
}

/*
 * perf's cache: DIR/<abs path>/<id>/{debug,elf} and a DIR/.build-id/ab/
 * cdef... symlink to ../../<abs path>/<id>. An elf that perf record put
 * there itself is kept.
 */
static int place_perf_cache(int in_fd, const struct ebid_placing *p,
			    char **dest, char *err, size_t errlen)
{
	const char *abs = p->bin_path, *id = p->hex;
	char *dbg = NULL, *elfp = NULL, *target = NULL, bl[PATH_MAX];
	int ret;

	ret = ebid_build_id_path(bl, sizeof(bl), NULL, id, NULL);
	if (ret)
		return ebid_err(err, errlen, ret, "'%.80s' is not a build-id in hex",
				id);
	if (!abs || abs[0] != '/')
		return ebid_err(err, errlen, -EINVAL,
				"perf's cache needs the binary's absolute path");
	if (asprintf(&dbg, "%s/%s/debug", abs + 1, id) < 0 ||
	    asprintf(&elfp, "%s/%s/elf", abs + 1, id) < 0 ||
	    asprintf(&target, "../..%s/%s", abs, id) < 0 ||
	    asprintf(dest, "%s/%s", p->dir, dbg) < 0) {
		*dest = NULL;
		ret = ebid_err(err, errlen, -ENOMEM, "out of memory");
		goto out;
	}
	ret = place_copy(in_fd, p->dirfd, p->dir, dbg, false, err, errlen);
	if (!ret)
		ret = place_copy(in_fd, p->dirfd, p->dir, elfp, true, err,
				 errlen);
	if (!ret)
		ret = place_symlink(target, p->dirfd, p->dir, bl, err, errlen);
out:
	free(dbg);
	free(elfp);
	free(target);
	return ret;
}

int ebid_place_by_id(int in_fd, const struct ebid_placing *p, char **dest,
		     char *err, size_t errlen)
{
	int ret;

	*dest = NULL;
	if (p->kind == EBID_ID_DEBUG_DIR)
		ret = place_debug_dir(in_fd, p, dest, err, errlen);
	else if (p->kind == EBID_ID_PERF_CACHE)
		ret = place_perf_cache(in_fd, p, dest, err, errlen);
	else
		ret = ebid_err(err, errlen, -EINVAL, "no such kind of directory");
	if (ret) {
		free(*dest);
		*dest = NULL;
	}
	return ret;
}

/* mkdir -p of a directory the user named; returns 0 or -errno. */
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

int ebid_dir_open_made(const char *dir, int *fd, char *err, size_t errlen)
{
	int ret = mkdirs(dir);

	*fd = -1;
	if (ret)
		return ebid_err(err, errlen, ret,
				"cannot create directory: %s", strerror(-ret));
	*fd = open(dir, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	if (*fd < 0)
		return ebid_err(err, errlen, -errno,
				"cannot open directory: %s", strerror(errno));
	return 0;
}
