/* SPDX-License-Identifier: MIT */
/*
 * LD_PRELOAD fault injection for elf-buildid's write path. It interposes
 * the file system calls the tool (and libelf) make and fails the Nth call
 * of a kind, or makes it short, as the environment says:
 *
 *   EBID_FAULT=CALL:N:ACTION[,CALL:N:ACTION...]
 *     CALL    open openat read pread write pwrite fsync fsync-dir fdatasync
 *             sync_file_range
 *             fchown fchmod fsetxattr fgetxattr flistxattr futimens rename
 *             mkostemp stat lstat fstat ftruncate copy_file_range unlink
 *             realpath mmap flock (unlinkat counts as unlink, fstatat as
 *             stat or lstat)
 *             (fsync-dir is fsync on a directory; each kind counts its own
 *             calls from 1, "open" includes open64, "pread" pread64, ...)
 *     N       which call of that kind (1 = first), or "all"
 *     ACTION  an errno name (EIO, ENOSPC, EDQUOT, EPERM, EACCES, ENOTSUP,
 *             EXDEV, EBUSY, EROFS, EMFILE, ENOMEM, EFBIG, EINTR, ENOENT,
 *             ENOSYS, ETXTBSY, ENOLCK): fail with it, doing nothing;
 *             "short": read or write only half the bytes (at least 1);
 *             "shrink" (mmap only): map, then truncate the file to the
 *             mapping's offset, as another process might while the map
 *             is read (touching it then raises SIGBUS);
 *             "slow": sleep $EBID_FAULT_SLOW_MS (default 20) milliseconds,
 *             then make the call (widens a window for a concurrent reader);
 *             "mutate": first append one byte to $EBID_FAULT_MUTATE (another
 *             process changing the file), then make the call
 *   EBID_FAULT_SCOPE=DIR  count only calls on paths (or descriptors of
 *             files) under DIR; default: every call
 *   EBID_FAULT_LOG=FILE   append "CALL<TAB>N<TAB>what" for each counted call
 *             and "FIRED<TAB>CALL<TAB>N<TAB>ACTION" when a fault is injected
 *
 * Build: make faultshim (build/robust/faultshim.so).
 */
#define _GNU_SOURCE
#include <dlfcn.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <sys/types.h>
#include <sys/xattr.h>
#include <time.h>
#include <unistd.h>

#define MAX_SPECS 8

struct spec {
	char call[96];
	long nth;               /* 0 = all */
	int err;                /* errno to fail with, or 0 */
	int shortio, mutate, shrink, slow;
};

static struct spec specs[MAX_SPECS];
static int nspecs = -1;
static char scope[PATH_MAX];
static size_t scope_len;
static __thread int busy;       /* our own calls are not counted */

static const struct {
	const char *name;
	int value;
} errnames[] = {
	{ "EIO", EIO },       { "ENOSPC", ENOSPC }, { "EDQUOT", EDQUOT },
	{ "EPERM", EPERM },   { "EACCES", EACCES }, { "ENOTSUP", ENOTSUP },
	{ "EXDEV", EXDEV },   { "EBUSY", EBUSY },   { "EROFS", EROFS },
	{ "EMFILE", EMFILE }, { "ENOMEM", ENOMEM }, { "EFBIG", EFBIG },
	{ "EINTR", EINTR },   { "ENOENT", ENOENT }, { "ENOSYS", ENOSYS },
	{ "ETXTBSY", ETXTBSY },
	{ "ENOLCK", ENOLCK },
};

static const char *const calls[] = {
	"open", "openat", "read", "pread", "write", "pwrite", "fsync",
	"fsync-dir", "fdatasync", "fchown", "fchmod", "fsetxattr",
	"fgetxattr", "flistxattr", "futimens", "rename", "mkostemp", "stat",
	"lstat", "fstat", "ftruncate", "copy_file_range", "unlink",
	"realpath", "mmap", "flock", "sync_file_range",
};
#define NCALLS (sizeof(calls) / sizeof(calls[0]))
static long counts[NCALLS];

static void *real(const char *name)
{
	void *f = dlsym(RTLD_NEXT, name);

	if (!f) {
		fprintf(stderr, "faultshim: no %s\n", name);
		abort();
	}
	return f;
}

#define REAL(ret, name, ...)                                         \
	static ret (*real_##name)(__VA_ARGS__);                      \
	if (!real_##name)                                            \
		real_##name = (ret(*)(__VA_ARGS__))real(#name)

static void setup(void)
{
	const char *env, *s;
	int i;

	if (nspecs >= 0)
		return;
	nspecs = 0;
	s = getenv("EBID_FAULT_SCOPE");
	if (s && *s) {
		snprintf(scope, sizeof(scope), "%s", s);
		scope_len = strlen(scope);
		while (scope_len > 1 && scope[scope_len - 1] == '/')
			scope[--scope_len] = '\0';
	}
	env = getenv("EBID_FAULT");
	while (env && *env && nspecs < MAX_SPECS) {
		struct spec *sp = &specs[nspecs];
		char item[96], *a, *b;
		size_t n = strcspn(env, ",");

		snprintf(item, sizeof(item), "%.*s", (int)n, env);
		env += n + (env[n] == ',');
		a = strchr(item, ':');
		b = a ? strchr(a + 1, ':') : NULL;
		if (!a || !b) {
			fprintf(stderr, "faultshim: bad EBID_FAULT item '%s'\n", item);
			exit(120);
		}
		*a++ = '\0';
		*b++ = '\0';
		snprintf(sp->call, sizeof(sp->call), "%s", item);
		sp->nth = strcmp(a, "all") ? strtol(a, NULL, 10) : 0;
		if (!strcmp(b, "short"))
			sp->shortio = 1;
		else if (!strcmp(b, "mutate"))
			sp->mutate = 1;
		else if (!strcmp(b, "shrink"))
			sp->shrink = 1;
		else if (!strcmp(b, "slow"))
			sp->slow = 1;
		else {
			for (i = 0; i < (int)(sizeof(errnames) / sizeof(errnames[0])); i++)
				if (!strcmp(b, errnames[i].name))
					sp->err = errnames[i].value;
			if (!sp->err) {
				fprintf(stderr, "faultshim: unknown action '%s'\n", b);
				exit(120);
			}
		}
		nspecs++;
	}
}

static int in_scope_path(const char *path)
{
	char buf[2 * PATH_MAX + 2];
	const char *p = path;

	if (!scope_len)
		return 1;
	if (!path)
		return 0;
	if (path[0] != '/') {
		char cwd[PATH_MAX];

		if (!getcwd(cwd, sizeof(cwd)))
			return 0;
		snprintf(buf, sizeof(buf), "%s/%s", cwd, path);
		p = buf;
	}
	return !strncmp(p, scope, scope_len) &&
	       (p[scope_len] == '/' || p[scope_len] == '\0');
}

static void fd_path(int fd, char *buf, size_t len)
{
	char link[64];
	ssize_t n;

	snprintf(link, sizeof(link), "/proc/self/fd/%d", fd);
	n = readlink(link, buf, len - 1);
	buf[n > 0 ? n : 0] = '\0';
}

static void logf_(const char *fmt, ...) __attribute__((format(printf, 1, 2)));

static void logf_(const char *fmt, ...)
{
	const char *path = getenv("EBID_FAULT_LOG");
	char line[PATH_MAX + 128];
	va_list ap;
	int fd, n;

	if (!path || !*path)
		return;
	va_start(ap, fmt);
	n = vsnprintf(line, sizeof(line), fmt, ap);
	va_end(ap);
	if (n < 0)
		return;
	if ((size_t)n >= sizeof(line))
		n = sizeof(line) - 1;
	REAL(int, open, const char *, int, ...);
	REAL(ssize_t, write, int, const void *, size_t);
	fd = real_open(path, O_WRONLY | O_APPEND | O_CREAT | O_CLOEXEC, 0644);
	if (fd >= 0) {
		real_write(fd, line, (size_t)n);
		close(fd);
	}
}

static void mutate_target(void)
{
	const char *path = getenv("EBID_FAULT_MUTATE");
	int fd;

	REAL(int, open, const char *, int, ...);
	REAL(ssize_t, write, int, const void *, size_t);
	if (!path)
		return;
	fd = real_open(path, O_WRONLY | O_APPEND | O_CLOEXEC);
	if (fd >= 0) {
		real_write(fd, "!", 1);
		close(fd);
	}
}

/*
 * Counts one call of kind `call` on `what` and says what to do: 0 go on,
 * -1 fail (errno set), 1 make it short, 2 shrink the file after the call. Calls outside the scope or made by
 * the shim itself are not counted.
 */
static int decide(const char *call, const char *what, int in_scope)
{
	size_t k;
	long n;
	int i;

	if (busy)
		return 0;
	busy = 1;
	setup();
	if (!in_scope) {
		busy = 0;
		return 0;
	}
	for (k = 0; k < NCALLS && strcmp(calls[k], call); k++)
		;
	if (k == NCALLS) {
		busy = 0;
		return 0;
	}
	n = ++counts[k];
	logf_("%s\t%ld\t%s\n", call, n, what ? what : "");
	for (i = 0; i < nspecs; i++) {
		struct spec *sp = &specs[i];

		if (strcmp(sp->call, call) || (sp->nth && sp->nth != n))
			continue;
		logf_("FIRED\t%s\t%ld\t%s\n", call, n,
		      sp->shortio ? "short" : sp->mutate ? "mutate" :
		      sp->shrink ? "shrink" : sp->slow ? "slow" : "errno");
		if (sp->mutate) {
			mutate_target();
			continue;
		}
		if (sp->slow) {
			const char *ms = getenv("EBID_FAULT_SLOW_MS");
			long v = ms ? strtol(ms, NULL, 10) : 20;
			struct timespec ts = { v / 1000, (v % 1000) * 1000000L };

			nanosleep(&ts, NULL);
			continue;
		}
		busy = 0;
		if (sp->shortio)
			return 1;
		if (sp->shrink)
			return 2;
		errno = sp->err;
		return -1;
	}
	busy = 0;
	return 0;
}

static int decide_fd(const char *call, int fd)
{
	char path[PATH_MAX];

	if (busy)
		return 0;
	busy = 1;
	fd_path(fd, path, sizeof(path));
	busy = 0;
	return decide(call, path, in_scope_path(path));
}

/* ---- opening ---------------------------------------------------------- */

/* A path relative to a directory descriptor: judged by that directory. */
static int at_scope(int dirfd, const char *path)
{
	char dir[PATH_MAX], full[2 * PATH_MAX + 2];

	if (path[0] == '/' || dirfd == AT_FDCWD)
		return in_scope_path(path);
	fd_path(dirfd, dir, sizeof(dir));
	snprintf(full, sizeof(full), "%s/%s", dir, path);
	return in_scope_path(full);
}

static mode_t open_mode(int flags, va_list ap)
{
	return (flags & O_CREAT) || (flags & O_TMPFILE) == O_TMPFILE
		       ? (mode_t)va_arg(ap, int)
		       : 0;
}

int open(const char *path, int flags, ...)
{
	va_list ap;
	mode_t mode;

	REAL(int, open, const char *, int, ...);
	va_start(ap, flags);
	mode = open_mode(flags, ap);
	va_end(ap);
	if (decide("open", path, in_scope_path(path)) < 0)
		return -1;
	return real_open(path, flags, mode);
}

int open64(const char *path, int flags, ...)
{
	va_list ap;
	mode_t mode;

	REAL(int, open64, const char *, int, ...);
	va_start(ap, flags);
	mode = open_mode(flags, ap);
	va_end(ap);
	if (decide("open", path, in_scope_path(path)) < 0)
		return -1;
	return real_open64(path, flags, mode);
}

int openat(int dirfd, const char *path, int flags, ...)
{
	va_list ap;
	mode_t mode;

	REAL(int, openat, int, const char *, int, ...);
	va_start(ap, flags);
	mode = open_mode(flags, ap);
	va_end(ap);
	if (decide("openat", path, at_scope(dirfd, path)) < 0)
		return -1;
	return real_openat(dirfd, path, flags, mode);
}

int openat64(int dirfd, const char *path, int flags, ...)
{
	va_list ap;
	mode_t mode;

	REAL(int, openat64, int, const char *, int, ...);
	va_start(ap, flags);
	mode = open_mode(flags, ap);
	va_end(ap);
	if (decide("openat", path, at_scope(dirfd, path)) < 0)
		return -1;
	return real_openat64(dirfd, path, flags, mode);
}

int mkostemp(char *tmpl, int flags)
{
	REAL(int, mkostemp, char *, int);
	if (decide("mkostemp", tmpl, in_scope_path(tmpl)) < 0)
		return -1;
	return real_mkostemp(tmpl, flags);
}

int mkostemp64(char *tmpl, int flags)
{
	REAL(int, mkostemp64, char *, int);
	if (decide("mkostemp", tmpl, in_scope_path(tmpl)) < 0)
		return -1;
	return real_mkostemp64(tmpl, flags);
}

int mkstemp(char *tmpl)
{
	REAL(int, mkstemp, char *);
	if (decide("mkostemp", tmpl, in_scope_path(tmpl)) < 0)
		return -1;
	return real_mkstemp(tmpl);
}

/* ---- reading and writing ---------------------------------------------- */

static size_t halve(size_t n)
{
	return n > 1 ? n / 2 : n;
}

ssize_t read(int fd, void *buf, size_t n)
{
	int d;

	REAL(ssize_t, read, int, void *, size_t);
	d = decide_fd("read", fd);
	if (d < 0)
		return -1;
	return real_read(fd, buf, d ? halve(n) : n);
}

ssize_t pread(int fd, void *buf, size_t n, off_t off)
{
	int d;

	REAL(ssize_t, pread, int, void *, size_t, off_t);
	d = decide_fd("pread", fd);
	if (d < 0)
		return -1;
	return real_pread(fd, buf, d ? halve(n) : n, off);
}

ssize_t pread64(int fd, void *buf, size_t n, off_t off)
{
	int d;

	REAL(ssize_t, pread64, int, void *, size_t, off_t);
	d = decide_fd("pread", fd);
	if (d < 0)
		return -1;
	return real_pread64(fd, buf, d ? halve(n) : n, off);
}

ssize_t write(int fd, const void *buf, size_t n)
{
	int d;

	REAL(ssize_t, write, int, const void *, size_t);
	d = decide_fd("write", fd);
	if (d < 0)
		return -1;
	return real_write(fd, buf, d ? halve(n) : n);
}

ssize_t pwrite(int fd, const void *buf, size_t n, off_t off)
{
	int d;

	REAL(ssize_t, pwrite, int, const void *, size_t, off_t);
	d = decide_fd("pwrite", fd);
	if (d < 0)
		return -1;
	return real_pwrite(fd, buf, d ? halve(n) : n, off);
}

ssize_t pwrite64(int fd, const void *buf, size_t n, off_t off)
{
	int d;

	REAL(ssize_t, pwrite64, int, const void *, size_t, off_t);
	d = decide_fd("pwrite", fd);
	if (d < 0)
		return -1;
	return real_pwrite64(fd, buf, d ? halve(n) : n, off);
}

ssize_t copy_file_range(int in, off_t *ioff, int out, off_t *ooff, size_t n,
			unsigned flags)
{
	int d;

	REAL(ssize_t, copy_file_range, int, off_t *, int, off_t *, size_t,
	     unsigned);
	d = decide_fd("copy_file_range", out);
	if (d < 0)
		return -1;
	return real_copy_file_range(in, ioff, out, ooff, d ? halve(n) : n,
				    flags);
}

/* Another process truncates the mapped file to the mapping's start. */
static void shrink_mapped(int fd, off_t off)
{
	char path[64];
	int wfd;

	REAL(int, open, const char *, int, ...);
	snprintf(path, sizeof(path), "/proc/self/fd/%d", fd);
	busy = 1; /* not one of the tool's calls */
	wfd = real_open(path, O_WRONLY | O_CLOEXEC);
	if (wfd >= 0) {
		if (ftruncate(wfd, off) != 0)
			perror("faultshim: shrink");
		close(wfd);
	}
	busy = 0;
}

void *mmap(void *addr, size_t len, int prot, int flags, int fd, off_t off)
{
	void *p;
	int d = fd >= 0 ? decide_fd("mmap", fd) : 0;

	REAL(void *, mmap, void *, size_t, int, int, int, off_t);
	if (d < 0)
		return MAP_FAILED;
	p = real_mmap(addr, len, prot, flags, fd, off);
	if (d == 2 && p != MAP_FAILED)
		shrink_mapped(fd, off);
	return p;
}

void *mmap64(void *addr, size_t len, int prot, int flags, int fd, off_t off)
{
	void *p;
	int d = fd >= 0 ? decide_fd("mmap", fd) : 0;

	REAL(void *, mmap64, void *, size_t, int, int, int, off_t);
	if (d < 0)
		return MAP_FAILED;
	p = real_mmap64(addr, len, prot, flags, fd, off);
	if (d == 2 && p != MAP_FAILED)
		shrink_mapped(fd, off);
	return p;
}

/* ---- durability and metadata ------------------------------------------ */

int fsync(int fd)
{
	struct stat st;
	int isdir;

	REAL(int, fsync, int);
	REAL(int, fstat, int, struct stat *);
	isdir = real_fstat(fd, &st) == 0 && S_ISDIR(st.st_mode);
	if (decide_fd(isdir ? "fsync-dir" : "fsync", fd) < 0)
		return -1;
	return real_fsync(fd);
}

int fdatasync(int fd)
{
	REAL(int, fdatasync, int);
	if (decide_fd("fdatasync", fd) < 0)
		return -1;
	return real_fdatasync(fd);
}

int sync_file_range(int fd, off_t off, off_t n, unsigned int flags)
{
	REAL(int, sync_file_range, int, off_t, off_t, unsigned int);
	if (decide_fd("sync_file_range", fd) < 0)
		return -1;
	return real_sync_file_range(fd, off, n, flags);
}

int fchown(int fd, uid_t u, gid_t g)
{
	REAL(int, fchown, int, uid_t, gid_t);
	if (decide_fd("fchown", fd) < 0)
		return -1;
	return real_fchown(fd, u, g);
}

int fchmod(int fd, mode_t m)
{
	REAL(int, fchmod, int, mode_t);
	if (decide_fd("fchmod", fd) < 0)
		return -1;
	return real_fchmod(fd, m);
}

int fsetxattr(int fd, const char *name, const void *v, size_t n, int flags)
{
	REAL(int, fsetxattr, int, const char *, const void *, size_t, int);
	if (decide_fd("fsetxattr", fd) < 0)
		return -1;
	return real_fsetxattr(fd, name, v, n, flags);
}

ssize_t fgetxattr(int fd, const char *name, void *v, size_t n)
{
	REAL(ssize_t, fgetxattr, int, const char *, void *, size_t);
	if (decide_fd("fgetxattr", fd) < 0)
		return -1;
	return real_fgetxattr(fd, name, v, n);
}

ssize_t flistxattr(int fd, char *list, size_t n)
{
	REAL(ssize_t, flistxattr, int, char *, size_t);
	if (decide_fd("flistxattr", fd) < 0)
		return -1;
	return real_flistxattr(fd, list, n);
}

int futimens(int fd, const struct timespec ts[2])
{
	REAL(int, futimens, int, const struct timespec *);
	if (decide_fd("futimens", fd) < 0)
		return -1;
	return real_futimens(fd, ts);
}

int ftruncate(int fd, off_t len)
{
	REAL(int, ftruncate, int, off_t);
	if (decide_fd("ftruncate", fd) < 0)
		return -1;
	return real_ftruncate(fd, len);
}

int ftruncate64(int fd, off_t len)
{
	REAL(int, ftruncate64, int, off_t);
	if (decide_fd("ftruncate", fd) < 0)
		return -1;
	return real_ftruncate64(fd, len);
}

/* ---- names ------------------------------------------------------------ */

int rename(const char *from, const char *to)
{
	REAL(int, rename, const char *, const char *);
	if (decide("rename", to, in_scope_path(to)) < 0)
		return -1;
	return real_rename(from, to);
}

int renameat(int fd1, const char *from, int fd2, const char *to)
{
	REAL(int, renameat, int, const char *, int, const char *);
	if (decide("rename", to, at_scope(fd2, to)) < 0)
		return -1;
	return real_renameat(fd1, from, fd2, to);
}

int renameat2(int fd1, const char *from, int fd2, const char *to,
	      unsigned flags)
{
	REAL(int, renameat2, int, const char *, int, const char *, unsigned);
	if (decide("rename", to, at_scope(fd2, to)) < 0)
		return -1;
	return real_renameat2(fd1, from, fd2, to, flags);
}

int unlink(const char *path)
{
	REAL(int, unlink, const char *);
	if (decide("unlink", path, in_scope_path(path)) < 0)
		return -1;
	return real_unlink(path);
}

int unlinkat(int dirfd, const char *path, int flags)
{
	REAL(int, unlinkat, int, const char *, int);
	if (decide("unlink", path, at_scope(dirfd, path)) < 0)
		return -1;
	return real_unlinkat(dirfd, path, flags);
}

/* stat or lstat of a name below a directory descriptor. */
int fstatat(int dirfd, const char *path, struct stat *st, int flags)
{
	REAL(int, fstatat, int, const char *, struct stat *, int);
	if (!(flags & AT_EMPTY_PATH) &&
	    decide(flags & AT_SYMLINK_NOFOLLOW ? "lstat" : "stat", path,
		   at_scope(dirfd, path)) < 0)
		return -1;
	return real_fstatat(dirfd, path, st, flags);
}

int fstatat64(int dirfd, const char *path, struct stat64 *st, int flags)
{
	REAL(int, fstatat64, int, const char *, struct stat64 *, int);
	if (!(flags & AT_EMPTY_PATH) &&
	    decide(flags & AT_SYMLINK_NOFOLLOW ? "lstat" : "stat", path,
		   at_scope(dirfd, path)) < 0)
		return -1;
	return real_fstatat64(dirfd, path, st, flags);
}

int flock(int fd, int op)
{
	REAL(int, flock, int, int);
	if (decide_fd("flock", fd) < 0)
		return -1;
	return real_flock(fd, op);
}

char *realpath(const char *path, char *resolved)
{
	REAL(char *, realpath, const char *, char *);
	if (decide("realpath", path, in_scope_path(path)) < 0)
		return NULL;
	return real_realpath(path, resolved);
}

int stat(const char *path, struct stat *st)
{
	REAL(int, stat, const char *, struct stat *);
	if (decide("stat", path, in_scope_path(path)) < 0)
		return -1;
	return real_stat(path, st);
}

int stat64(const char *path, struct stat64 *st)
{
	REAL(int, stat64, const char *, struct stat64 *);
	if (decide("stat", path, in_scope_path(path)) < 0)
		return -1;
	return real_stat64(path, st);
}

int lstat(const char *path, struct stat *st)
{
	REAL(int, lstat, const char *, struct stat *);
	if (decide("lstat", path, in_scope_path(path)) < 0)
		return -1;
	return real_lstat(path, st);
}

int lstat64(const char *path, struct stat64 *st)
{
	REAL(int, lstat64, const char *, struct stat64 *);
	if (decide("lstat", path, in_scope_path(path)) < 0)
		return -1;
	return real_lstat64(path, st);
}

int fstat(int fd, struct stat *st)
{
	REAL(int, fstat, int, struct stat *);
	if (decide_fd("fstat", fd) < 0)
		return -1;
	return real_fstat(fd, st);
}

int fstat64(int fd, struct stat64 *st)
{
	REAL(int, fstat64, int, struct stat64 *);
	if (decide_fd("fstat", fd) < 0)
		return -1;
	return real_fstat64(fd, st);
}
