/* SPDX-License-Identifier: MIT */
/* Files reached through held directory descriptors, and the per-file lock. */
#include <errno.h>
#include <fcntl.h>
#include <libgen.h>
#include <linux/openat2.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/sysmacros.h>
#include <time.h>
#include <unistd.h>

#include "internal.h"
#include "fs/fs.h"
#include "fs/commit.h"

void ebid_at_init(struct ebid_at *at)
{
	at->dirfd = -1;
	at->name = NULL;
}

void ebid_at_release(struct ebid_at *at)
{
	if (!at)
		return;
	if (at->dirfd >= 0)
		close(at->dirfd);
	free(at->name);
	ebid_at_init(at);
}

/*
 * Why openat(dirfd, name, O_DIRECTORY | O_NOFOLLOW) failed, as openat2
 * with RESOLVE_NO_SYMLINKS says it: -ELOOP for a symlink (O_DIRECTORY
 * makes the kernel say ENOTDIR), else -errno.
 */
static int is_symlink_err(int dirfd, const char *name)
{
	int err = errno;
	struct stat st;

	if (err == ENOTDIR &&
	    fstatat(dirfd, name, &st, AT_SYMLINK_NOFOLLOW) == 0 &&
	    S_ISLNK(st.st_mode))
		return -ELOOP;
	return -err;
}

/*
 * The per-component equivalent of openat2(RESOLVE_BENEATH |
 * RESOLVE_NO_SYMLINKS) for kernels before 5.6: every directory on the way
 * is opened with O_NOFOLLOW relative to the one before, ".." is refused.
 */
static int open_beneath_walk(int dirfd, const char *rel, int flags,
			     mode_t mode)
{
	char *copy = strdup(rel), *comp, *next, *save = NULL;
	int cur = dirfd, fd = -1, ret;

	if (!copy)
		return -ENOMEM;
	comp = strtok_r(copy, "/", &save);
	if (!comp) {
		ret = -EINVAL;
		goto out;
	}
	for (;;) {
		next = strtok_r(NULL, "/", &save);
		if (!strcmp(comp, "..")) {
			ret = -EXDEV;
			goto out;
		}
		if (!next)
			break;
		if (strcmp(comp, ".")) {
			fd = openat(cur, comp, O_RDONLY | O_DIRECTORY |
						     O_NOFOLLOW | O_CLOEXEC);
			if (fd < 0) {
				ret = is_symlink_err(cur, comp);
				goto out;
			}
			if (cur != dirfd)
				close(cur);
			cur = fd;
			fd = -1;
		}
		comp = next;
	}
	fd = openat(cur, comp, flags | O_NOFOLLOW | O_CLOEXEC, mode);
	ret = fd < 0 ? -errno : fd;
out:
	if (cur != dirfd)
		close(cur);
	free(copy);
	return ret;
}

int ebid_open_beneath(int dirfd, const char *rel, int flags, mode_t mode)
{
	struct open_how how;
	int fd, tries;

	if (!rel[0] || rel[0] == '/')
		return -EXDEV;
	memset(&how, 0, sizeof(how));
	how.flags = (uint64_t)(flags | O_CLOEXEC);
	how.mode = (flags & O_CREAT) ? mode : 0;
	how.resolve = RESOLVE_BENEATH | RESOLVE_NO_SYMLINKS |
		      RESOLVE_NO_MAGICLINKS;
	/* EAGAIN: a rename raced the lookup; the kernel asks for a retry. */
	for (tries = 0; tries < 16; tries++) {
		fd = (int)syscall(SYS_openat2, dirfd, rel, &how, sizeof(how));
		if (fd >= 0)
			return fd;
		if (errno != EAGAIN && errno != EINTR)
			break;
	}
	if (errno == ENOSYS || errno == EPERM /* a seccomp filter */)
		return open_beneath_walk(dirfd, rel, flags, mode);
	return -errno;
}

int ebid_at_beneath(struct ebid_at *at, int rootfd, const char *rel,
		    char *err, size_t errlen)
{
	const char *slash = strrchr(rel, '/');
	char *dir = NULL;
	int fd;

	ebid_at_init(at);
	if (!slash) {
		fd = fcntl(rootfd, F_DUPFD_CLOEXEC, 0);
	} else {
		dir = strndup(rel, (size_t)(slash - rel));
		if (!dir)
			return ebid_err(err, errlen, -ENOMEM, "out of memory");
		fd = ebid_open_beneath(rootfd, dir, O_RDONLY | O_DIRECTORY,
				       0);
		if (fd < 0)
			errno = -fd;
	}
	free(dir);
	if (fd < 0) {
		if (errno == ELOOP || errno == EXDEV || errno == ENOTDIR)
			return ebid_err(err, errlen, -ELOOP,
					"a directory on its path was replaced by a symlink or another file during the run; not followed");
		return ebid_err(err, errlen, -errno,
				"cannot open its directory: %s",
				strerror(errno));
	}
	at->dirfd = fd;
	at->name = strdup(slash ? slash + 1 : rel);
	if (!at->name) {
		ebid_at_release(at);
		return ebid_err(err, errlen, -ENOMEM, "out of memory");
	}
	return 0;
}

int ebid_at_named(struct ebid_at *at, const char *path, bool follow,
		  char *err, size_t errlen)
{
	char *real = NULL, *d1 = NULL, *d2 = NULL;
	const char *use = path, *name;
	struct stat st;
	int ret = 0;

	ebid_at_init(at);
	/* dirname() and basename() would make "" the current directory. */
	if (!path[0])
		return ebid_err(err, errlen, -ENOENT, "cannot open: %s",
				strerror(ENOENT));
	/* The user named the path: a symlink they named stands for its target. */
	if (follow && lstat(path, &st) == 0 && S_ISLNK(st.st_mode)) {
		real = realpath(path, NULL);
		if (real)
			use = real;
	}
	d1 = strdup(use);
	d2 = strdup(use);
	if (!d1 || !d2) {
		ret = ebid_err(err, errlen, -ENOMEM, "out of memory");
		goto out;
	}
	name = basename(d2);
	/* "/" has no parent to hold it: the directory is its own place. */
	if (!strcmp(name, "/")) {
		at->dirfd = open("/", O_RDONLY | O_DIRECTORY | O_CLOEXEC);
		name = ".";
	} else {
		at->dirfd = open(dirname(d1), O_RDONLY | O_DIRECTORY |
						      O_CLOEXEC);
	}
	if (at->dirfd < 0) {
		ret = ebid_err(err, errlen, -errno,
			       "cannot open its directory: %s",
			       strerror(errno));
		goto out;
	}
	at->name = strdup(name);
	if (!at->name)
		ret = ebid_err(err, errlen, -ENOMEM, "out of memory");
out:
	free(real);
	free(d1);
	free(d2);
	if (ret)
		ebid_at_release(at);
	return ret;
}

int ebid_mkdirs_beneath(int rootfd, const char *rel, int *dirfd, char *err,
			size_t errlen)
{
	char *copy = strdup(rel), *comp, *save = NULL;
	int cur, fd, ret = 0;

	*dirfd = -1;
	if (!copy)
		return ebid_err(err, errlen, -ENOMEM, "out of memory");
	cur = fcntl(rootfd, F_DUPFD_CLOEXEC, 0);
	if (cur < 0) {
		ret = ebid_err(err, errlen, -errno, "dup failed: %s",
			       strerror(errno));
		goto out;
	}
	for (comp = strtok_r(copy, "/", &save); comp;
	     comp = strtok_r(NULL, "/", &save)) {
		if (!strcmp(comp, "."))
			continue;
		if (!strcmp(comp, "..")) {
			ret = ebid_err(err, errlen, -EXDEV,
				       "'..' in '%s' leaves the destination",
				       rel);
			goto out;
		}
		if (mkdirat(cur, comp, 0755) != 0 && errno != EEXIST) {
			ret = ebid_err(err, errlen, -errno,
				       "cannot create directory '%s' in '%s': %s",
				       comp, rel, strerror(errno));
			goto out;
		}
		fd = openat(cur, comp, O_RDONLY | O_DIRECTORY | O_NOFOLLOW |
					       O_CLOEXEC);
		if (fd < 0) {
			ret = is_symlink_err(cur, comp);
			if (ret == -ELOOP)
				ebid_err(err, errlen, ret,
					 "'%s' in '%s' is a symlink; refusing to write through it",
					 comp, rel);
			else
				ebid_err(err, errlen, ret,
					 "cannot open directory '%s' in '%s': %s",
					 comp, rel, strerror(-ret));
			goto out;
		}
		close(cur);
		cur = fd;
	}
	*dirfd = cur;
	cur = -1;
out:
	if (cur >= 0)
		close(cur);
	free(copy);
	return ret;
}

/* Who holds a lock on the inode, from /proc/locks: 0 when unknown. */
static long lock_holder(const struct stat *st, char *comm, size_t commlen)
{
	FILE *f = fopen("/proc/locks", "re");
	char line[256];
	long pid = 0;

	comm[0] = '\0';
	if (!f)
		return 0;
	while (!pid && fgets(line, sizeof(line), f)) {
		unsigned maj, min;
		unsigned long long ino;
		long p;
		char kind[16];

		/* "1: FLOCK  ADVISORY  WRITE 1234 08:01:5678 0 EOF" */
		if (strstr(line, "->"))
			continue; /* a waiter, not a holder */
		if (sscanf(line, "%*d: %15s %*s %*s %ld %x:%x:%llu", kind, &p,
			   &maj, &min, &ino) != 5)
			continue;
		if (maj == major(st->st_dev) && min == minor(st->st_dev) &&
		    ino == (unsigned long long)st->st_ino && p > 0)
			pid = p;
	}
	fclose(f);
	if (pid) {
		char path[64];
		FILE *c;

		snprintf(path, sizeof(path), "/proc/%ld/comm", pid);
		c = fopen(path, "re");
		if (c) {
			if (fgets(comm, (int)commlen, c))
				comm[strcspn(comm, "\n")] = '\0';
			fclose(c);
		}
	}
	return pid;
}

long long ebid_now_ms(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (long long)ts.tv_sec * 1000 + ts.tv_nsec / 1000000;
}

int ebid_flock_wait(int fd, int op, long long deadline)
{
	long delay_us = 500;

	for (;;) {
		struct timespec ts;

		if (flock(fd, op | LOCK_NB) == 0)
			return 0;
		if (errno == EINTR)
			continue;
		if (errno != EWOULDBLOCK)
			return -errno;
		if (deadline >= 0 && ebid_now_ms() >= deadline)
			return -ETIMEDOUT;
		ts.tv_sec = 0;
		ts.tv_nsec = delay_us * 1000;
		nanosleep(&ts, NULL);
		if (delay_us < 20000)
			delay_us *= 2;
	}
}

/*
 * The lock on st's inode was not granted within timeout_ms: says who holds
 * it, when /proc/locks tells, and returns -EBID_ELOCKED.
 */
static int lock_timed_out(const struct stat *st, long timeout_ms, char *err,
			  size_t errlen)
{
	char comm[32];
	long pid = lock_holder(st, comm, sizeof(comm));
	char who[80] = "another process", secs[32];

	if (pid)
		snprintf(who, sizeof(who), "another process (pid %ld%s%s)", pid,
			 comm[0] ? ", " : "", comm);
	if (timeout_ms % 1000)
		snprintf(secs, sizeof(secs), "%ld.%03ld", timeout_ms / 1000,
			 timeout_ms % 1000);
	else
		snprintf(secs, sizeof(secs), "%ld", timeout_ms / 1000);
	return ebid_err(err, errlen, -EBID_ELOCKED,
			"locked by %s for more than %s s; gave up (--lock-timeout)",
			who, secs);
}

int ebid_open_locked_step(const struct ebid_at *at, int flags,
			  bool exclusive, long timeout_ms, struct stat *st,
			  bool *open_failed, char *err, size_t errlen)
{
	long long deadline = timeout_ms < 0 ? -1 : ebid_now_ms() + timeout_ms;
	int fd = -1, ret, rounds;

	/*
	 * The lock is on the inode. A writer that replaces the file renames
	 * a new inode over the name while it holds the old one's lock, so a
	 * lock granted on an inode the name no longer names is dropped and
	 * the name opened again.
	 */
	for (rounds = 0;; rounds++) {
		struct stat now;

		fd = openat(at->dirfd, at->name, flags | O_NOFOLLOW |
				O_CLOEXEC | O_NOCTTY | O_NONBLOCK);
		/*
		 * Another process holds a write lease on it (an inject editing
		 * it in place, for milliseconds): O_NONBLOCK, there for FIFOs,
		 * makes the open say so instead of waiting. Wait here.
		 */
		if (fd < 0 && errno == EWOULDBLOCK &&
		    (deadline < 0 || ebid_now_ms() < deadline)) {
			struct timespec ms = { 0, 1000000 };

			nanosleep(&ms, NULL);
			rounds--;
			continue;
		}
		if (fd < 0) {
			ret = -errno;
			if (errno == ELOOP)
				return ebid_err(err, errlen, ret,
						"is a symlink (replaced during the run?); not followed");
			*open_failed = true;
			return ebid_err(err, errlen, ret, "cannot open: %s",
					strerror(errno));
		}
		if (fstat(fd, st) != 0) {
			ret = ebid_err(err, errlen, -errno, "cannot stat: %s",
				       strerror(errno));
			goto fail;
		}
		if (!S_ISREG(st->st_mode))
			return fd; /* the caller refuses it; nothing to lock */
		ret = ebid_flock_wait(fd, exclusive ? LOCK_EX : LOCK_SH, deadline);
		if (ret == -ETIMEDOUT) {
			ret = lock_timed_out(st, timeout_ms, err, errlen);
			goto fail;
		}
		if (ret) {
			ebid_err(err, errlen, ret, "cannot lock: %s",
				 strerror(-ret));
			goto fail;
		}
		if (fstatat(at->dirfd, at->name, &now, AT_SYMLINK_NOFOLLOW) ==
			    0 &&
		    now.st_dev == st->st_dev && now.st_ino == st->st_ino) {
			/* What we read now is what the holder left. */
			if (fstat(fd, st) != 0) {
				ret = ebid_err(err, errlen, -errno,
					       "cannot stat: %s",
					       strerror(errno));
				goto fail;
			}
			return fd;
		}
		close(fd);
		fd = -1;
		if (deadline >= 0 && ebid_now_ms() >= deadline && rounds > 100)
			return ebid_err(err, errlen, -EBID_ECHANGED,
					"replaced again and again while waiting for its lock; gave up");
	}
fail:
	if (fd >= 0)
		close(fd);
	return ret;
}

int ebid_open_locked(const struct ebid_at *at, int flags, bool exclusive,
		     long timeout_ms, struct stat *st, char *err,
		     size_t errlen)
{
	bool open_failed = false;
	int fd = ebid_open_locked_step(at, flags, exclusive, timeout_ms, st,
				       &open_failed, err, errlen);

	/*
	 * With the lock held no run is editing the file, so a journal beside
	 * it is an interrupted one's (killed, or a power loss): the bytes may
	 * be half edited. Only a run that writes the file undoes it.
	 */
	if (fd >= 0 && S_ISREG(st->st_mode) && ebid_inplace_pending(at)) {
		close(fd);
		return ebid_err(err, errlen, -EBID_ECHANGED,
				"an interrupted in-place edit left its journal '.%s.ebid-journal' beside it, so its bytes may be half written; run inject on the file to undo the edit",
				at->name);
	}
	return fd;
}
