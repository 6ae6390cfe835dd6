/* SPDX-License-Identifier: MIT */
/*
 * LD_PRELOAD recorder for the crash-state harness (tests/crash/states.py):
 * logs, in the order they return, the calls of a real run that change what
 * a file system keeps, each on an inode or a path under one directory.
 *
 *   EBID_CREC_SCOPE=DIR   only calls on paths (or descriptors of files)
 *                         under DIR are logged
 *   EBID_CREC_LOG=FILE    the log, one line a call, fields TAB-separated:
 *     CREATE ino path            a file or directory that did not exist
 *     WRITE ino off hex          bytes written (write, pwrite, pwritev)
 *     COPY ino off ino2 off2 n   copy_file_range: n bytes of ino2 at off2
 *     CLONE ino ino2             ioctl FICLONE: ino's data is ino2's
 *     TRUNC ino size             ftruncate
 *     FSYNC ino | FSYNCDIR path  fsync or fdatasync of a file, a directory
 *     SYNCRANGE ino off len      sync_file_range with WRITE and WAIT_AFTER:
 *                                the range's pages written and waited for
 *                                (durable once the disk's cache is flushed)
 *     SYNCALL                    sync, syncfs
 *     RENAME from to | UNLINK path | LINK from to
 *
 * Reads, stats, locks, leases, xattrs and times change no byte of a file's
 * contents or of a directory's names, so they are not logged. Calls made
 * by glibc inside another call (mkostemp's open) reach the kernel without
 * passing here, so the tool's own calls are the ones it makes by name:
 * src/fs/ uses openat, pwrite, write, ftruncate, fsync, sync_file_range,
 * renameat, unlinkat and copy_file_range; t0645 fails if a run's log lacks any of
 * the calls the run is known to make.
 *
 * Build: make crashshim (build/crash/recshim.so).
 */
#define _GNU_SOURCE
#include <dlfcn.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <linux/fs.h>
#include <pthread.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/stat.h>
#include <sys/types.h>
#include <sys/uio.h>
#include <unistd.h>

static char scope[PATH_MAX];
static size_t scope_len;
static int log_fd = -1;
static pthread_mutex_t log_lock = PTHREAD_MUTEX_INITIALIZER;
static pthread_once_t once = PTHREAD_ONCE_INIT;

static void *real(const char *name)
{
	void *p = dlsym(RTLD_NEXT, name);

	if (!p) {
		fprintf(stderr, "recshim: no %s\n", name);
		abort();
	}
	return p;
}

static void setup(void)
{
	const char *s = getenv("EBID_CREC_SCOPE"), *l = getenv("EBID_CREC_LOG");
	int (*o)(const char *, int, ...) = real("open");

	if (!s || !l || !realpath(s, scope))
		return;
	scope_len = strlen(scope);
	log_fd = o(l, O_WRONLY | O_CREAT | O_APPEND | O_CLOEXEC, 0644);
}

static bool in_scope(const char *path)
{
	return log_fd >= 0 && !strncmp(path, scope, scope_len) &&
	       (path[scope_len] == '/' || path[scope_len] == '\0');
}

/* The absolute path of an open descriptor, "" when it has none. */
static void fd_path(int fd, char *buf, size_t len)
{
	char p[64];
	ssize_t n;

	snprintf(p, sizeof(p), "/proc/self/fd/%d", fd);
	n = readlink(p, buf, len - 1);
	buf[n < 0 ? 0 : n] = '\0';
}

/* dirfd + name as an absolute path (name relative to dirfd, or absolute). */
static void at_path(int dirfd, const char *name, char *buf, size_t len)
{
	char dir[PATH_MAX];

	if (name[0] == '/') {
		snprintf(buf, len, "%s", name);
		return;
	}
	if (dirfd == AT_FDCWD) {
		if (!getcwd(dir, sizeof(dir)))
			dir[0] = '\0';
	} else {
		fd_path(dirfd, dir, sizeof(dir));
	}
	snprintf(buf, len, "%s/%s", dir, name);
}

static bool fd_in_scope(int fd, struct stat *st)
{
	char p[PATH_MAX];

	pthread_once(&once, setup);
	if (log_fd < 0 || fstat(fd, st) != 0)
		return false;
	fd_path(fd, p, sizeof(p));
	return in_scope(p);
}

static void logline(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
static void logline(const char *fmt, ...)
{
	char buf[512];
	va_list ap;
	int n;

	va_start(ap, fmt);
	n = vsnprintf(buf, sizeof(buf), fmt, ap);
	va_end(ap);
	if (n > 0 && (size_t)n < sizeof(buf))
		(void)!write(log_fd, buf, (size_t)n);
}

/* A WRITE line: the hex of len bytes; one write(2) under the lock. */
static void log_write(ino_t ino, uint64_t off, const void *data, size_t len)
{
	static const char hx[] = "0123456789abcdef";
	const unsigned char *p = data;
	char head[96], *line;
	size_t h, i;

	h = (size_t)snprintf(head, sizeof(head), "WRITE\t%ju\t%ju\t",
			     (uintmax_t)ino, (uintmax_t)off);
	line = malloc(h + 2 * len + 1);
	if (!line)
		abort(); /* a log with a write missing would prove nothing */
	memcpy(line, head, h);
	for (i = 0; i < len; i++) {
		line[h + 2 * i] = hx[p[i] >> 4];
		line[h + 2 * i + 1] = hx[p[i] & 15];
	}
	line[h + 2 * len] = '\n';
	(void)!write(log_fd, line, h + 2 * len + 1);
	free(line);
}

int openat(int dirfd, const char *name, int flags, ...)
{
	static int (*o)(int, const char *, int, ...);
	char p[PATH_MAX];
	mode_t mode = 0;
	struct stat st;
	bool existed = true;
	int fd, e;

	if (flags & (O_CREAT | O_TMPFILE)) {
		va_list ap;

		va_start(ap, flags);
		mode = (mode_t)va_arg(ap, unsigned);
		va_end(ap);
	}
	if (!o)
		o = real("openat");
	pthread_once(&once, setup);
	at_path(dirfd, name, p, sizeof(p));
	if ((flags & O_CREAT) && in_scope(p))
		existed = fstatat(AT_FDCWD, p, &st, AT_SYMLINK_NOFOLLOW) == 0;
	pthread_mutex_lock(&log_lock);
	fd = o(dirfd, name, flags, mode);
	e = errno;
	if (fd >= 0 && !existed && fstat(fd, &st) == 0)
		logline("CREATE\t%ju\t%s\n", (uintmax_t)st.st_ino, p);
	pthread_mutex_unlock(&log_lock);
	errno = e;
	return fd;
}

int openat64(int dirfd, const char *name, int flags, ...)
	__attribute__((alias("openat")));

int open(const char *name, int flags, ...)
{
	mode_t mode = 0;

	if (flags & (O_CREAT | O_TMPFILE)) {
		va_list ap;

		va_start(ap, flags);
		mode = (mode_t)va_arg(ap, unsigned);
		va_end(ap);
	}
	return openat(AT_FDCWD, name, flags, mode);
}

int open64(const char *name, int flags, ...) __attribute__((alias("open")));

ssize_t pwrite(int fd, const void *buf, size_t n, off_t off)
{
	static ssize_t (*w)(int, const void *, size_t, off_t);
	struct stat st;
	ssize_t r;
	int e;

	if (!w)
		w = real("pwrite");
	if (!fd_in_scope(fd, &st) || !S_ISREG(st.st_mode))
		return w(fd, buf, n, off);
	pthread_mutex_lock(&log_lock);
	r = w(fd, buf, n, off);
	e = errno;
	if (r > 0)
		log_write(st.st_ino, (uint64_t)off, buf, (size_t)r);
	pthread_mutex_unlock(&log_lock);
	errno = e;
	return r;
}

ssize_t pwrite64(int fd, const void *buf, size_t n, off_t off)
	__attribute__((alias("pwrite")));

ssize_t write(int fd, const void *buf, size_t n)
{
	static ssize_t (*w)(int, const void *, size_t);
	struct stat st;
	off_t off;
	ssize_t r;
	int e;

	if (!w)
		w = real("write");
	if (fd == log_fd || !fd_in_scope(fd, &st) || !S_ISREG(st.st_mode))
		return w(fd, buf, n);
	pthread_mutex_lock(&log_lock);
	/* O_APPEND writes at the end, whatever the offset says. */
	if ((fcntl(fd, F_GETFL) & O_APPEND) && fstat(fd, &st) == 0)
		off = st.st_size;
	else
		off = lseek(fd, 0, SEEK_CUR);
	r = w(fd, buf, n);
	e = errno;
	if (r > 0)
		log_write(st.st_ino, (uint64_t)off, buf, (size_t)r);
	pthread_mutex_unlock(&log_lock);
	errno = e;
	return r;
}

ssize_t pwritev(int fd, const struct iovec *iov, int cnt, off_t off)
{
	static ssize_t (*w)(int, const struct iovec *, int, off_t);
	struct stat st;
	ssize_t r, left;
	int e, i;

	if (!w)
		w = real("pwritev");
	if (!fd_in_scope(fd, &st) || !S_ISREG(st.st_mode))
		return w(fd, iov, cnt, off);
	pthread_mutex_lock(&log_lock);
	r = w(fd, iov, cnt, off);
	e = errno;
	for (i = 0, left = r; i < cnt && left > 0; i++) {
		size_t k = iov[i].iov_len < (size_t)left ? iov[i].iov_len
							 : (size_t)left;

		log_write(st.st_ino, (uint64_t)off, iov[i].iov_base, k);
		off += (off_t)k;
		left -= (ssize_t)k;
	}
	pthread_mutex_unlock(&log_lock);
	errno = e;
	return r;
}

ssize_t pwritev64(int fd, const struct iovec *iov, int cnt, off_t off)
	__attribute__((alias("pwritev")));

ssize_t copy_file_range(int in, off_t *in_off, int out, off_t *out_off,
			size_t n, unsigned flags)
{
	static ssize_t (*c)(int, off_t *, int, off_t *, size_t, unsigned);
	struct stat so, si;
	off_t io, oo;
	ssize_t r;
	int e;

	if (!c)
		c = real("copy_file_range");
	if (!fd_in_scope(out, &so) || fstat(in, &si) != 0)
		return c(in, in_off, out, out_off, n, flags);
	pthread_mutex_lock(&log_lock);
	io = in_off ? *in_off : lseek(in, 0, SEEK_CUR);
	oo = out_off ? *out_off : lseek(out, 0, SEEK_CUR);
	r = c(in, in_off, out, out_off, n, flags);
	e = errno;
	if (r > 0)
		logline("COPY\t%ju\t%jd\t%ju\t%jd\t%zd\n", (uintmax_t)so.st_ino,
			(intmax_t)oo, (uintmax_t)si.st_ino, (intmax_t)io, r);
	pthread_mutex_unlock(&log_lock);
	errno = e;
	return r;
}

int ioctl(int fd, unsigned long req, ...)
{
	static int (*i)(int, unsigned long, ...);
	struct stat so, si;
	va_list ap;
	void *arg;
	int r, e;

	va_start(ap, req);
	arg = va_arg(ap, void *);
	va_end(ap);
	if (!i)
		i = real("ioctl");
	if (req != FICLONE || !fd_in_scope(fd, &so) ||
	    fstat((int)(intptr_t)arg, &si) != 0)
		return i(fd, req, arg);
	pthread_mutex_lock(&log_lock);
	r = i(fd, req, arg);
	e = errno;
	if (r == 0)
		logline("CLONE\t%ju\t%ju\n", (uintmax_t)so.st_ino,
			(uintmax_t)si.st_ino);
	pthread_mutex_unlock(&log_lock);
	errno = e;
	return r;
}

int ftruncate(int fd, off_t size)
{
	static int (*t)(int, off_t);
	struct stat st;
	int r, e;

	if (!t)
		t = real("ftruncate");
	if (!fd_in_scope(fd, &st))
		return t(fd, size);
	pthread_mutex_lock(&log_lock);
	r = t(fd, size);
	e = errno;
	if (r == 0)
		logline("TRUNC\t%ju\t%jd\n", (uintmax_t)st.st_ino,
			(intmax_t)size);
	pthread_mutex_unlock(&log_lock);
	errno = e;
	return r;
}

int ftruncate64(int fd, off_t size) __attribute__((alias("ftruncate")));

static int log_sync(const char *name, int fd)
{
	int (*s)(int) = real(name);
	char p[PATH_MAX];
	struct stat st;
	int r, e;

	if (!fd_in_scope(fd, &st))
		return s(fd);
	fd_path(fd, p, sizeof(p));
	pthread_mutex_lock(&log_lock);
	r = s(fd);
	e = errno;
	if (r == 0 && S_ISDIR(st.st_mode))
		logline("FSYNCDIR\t%s\n", p);
	else if (r == 0)
		logline("FSYNC\t%ju\n", (uintmax_t)st.st_ino);
	pthread_mutex_unlock(&log_lock);
	errno = e;
	return r;
}

int fsync(int fd)
{
	return log_sync("fsync", fd);
}

int fdatasync(int fd)
{
	return log_sync("fdatasync", fd);
}

int sync_file_range(int fd, off_t off, off_t n, unsigned flags)
{
	static int (*f)(int, off_t, off_t, unsigned);
	const unsigned want = SYNC_FILE_RANGE_WRITE | SYNC_FILE_RANGE_WAIT_AFTER;
	struct stat st;
	int r, e;

	if (!f)
		f = real("sync_file_range");
	if (!fd_in_scope(fd, &st) || (flags & want) != want)
		return f(fd, off, n, flags);
	pthread_mutex_lock(&log_lock);
	r = f(fd, off, n, flags);
	e = errno;
	if (r == 0)
		logline("SYNCRANGE\t%ju\t%jd\t%jd\n", (uintmax_t)st.st_ino,
			(intmax_t)off, (intmax_t)n);
	pthread_mutex_unlock(&log_lock);
	errno = e;
	return r;
}

int syncfs(int fd)
{
	static int (*s)(int);
	struct stat st;
	int r;

	if (!s)
		s = real("syncfs");
	r = s(fd);
	if (r == 0 && fd_in_scope(fd, &st))
		logline("SYNCALL\n");
	return r;
}

static int log_paths(const char *what, int r, const char *a, const char *b)
{
	if (r == 0 && (in_scope(a) || (b && in_scope(b)))) {
		if (b)
			logline("%s\t%s\t%s\n", what, a, b);
		else
			logline("%s\t%s\n", what, a);
	}
	return r;
}

int renameat2(int od, const char *on, int nd, const char *nn, unsigned fl)
{
	static int (*f)(int, const char *, int, const char *, unsigned);
	char a[PATH_MAX], b[PATH_MAX];
	int r, e;

	if (!f)
		f = real("renameat2");
	pthread_once(&once, setup);
	at_path(od, on, a, sizeof(a));
	at_path(nd, nn, b, sizeof(b));
	pthread_mutex_lock(&log_lock);
	r = f(od, on, nd, nn, fl);
	e = errno;
	log_paths(fl ? "RENAME2" : "RENAME", r, a, b);
	pthread_mutex_unlock(&log_lock);
	errno = e;
	return r;
}

int renameat(int od, const char *on, int nd, const char *nn)
{
	return renameat2(od, on, nd, nn, 0);
}

int rename(const char *on, const char *nn)
{
	return renameat2(AT_FDCWD, on, AT_FDCWD, nn, 0);
}

int unlinkat(int dirfd, const char *name, int flags)
{
	static int (*f)(int, const char *, int);
	char a[PATH_MAX];
	int r, e;

	if (!f)
		f = real("unlinkat");
	pthread_once(&once, setup);
	at_path(dirfd, name, a, sizeof(a));
	pthread_mutex_lock(&log_lock);
	r = f(dirfd, name, flags);
	e = errno;
	log_paths("UNLINK", r, a, NULL);
	pthread_mutex_unlock(&log_lock);
	errno = e;
	return r;
}

int unlink(const char *name)
{
	return unlinkat(AT_FDCWD, name, 0);
}

int linkat(int od, const char *on, int nd, const char *nn, int flags)
{
	static int (*f)(int, const char *, int, const char *, int);
	char a[PATH_MAX], b[PATH_MAX];
	int r, e;

	if (!f)
		f = real("linkat");
	pthread_once(&once, setup);
	at_path(od, on, a, sizeof(a));
	at_path(nd, nn, b, sizeof(b));
	pthread_mutex_lock(&log_lock);
	r = f(od, on, nd, nn, flags);
	e = errno;
	log_paths("LINK", r, a, b);
	pthread_mutex_unlock(&log_lock);
	errno = e;
	return r;
}
