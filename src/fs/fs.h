/* SPDX-License-Identifier: MIT */
/* What src/fs/ exports to the layers above it, beside commit.h: locks,
 * its own file names, mapped windows. */
#ifndef EBID_FS_FS_H
#define EBID_FS_FS_H

#include "internal.h"

/*
 * flock(fd, op) (LOCK_EX or LOCK_SH), waiting until deadline (an
 * ebid_now_ms() value; -1: forever): 0, -ETIMEDOUT, or another -errno.
 */
int ebid_flock_wait(int fd, int op, long long deadline);

/*
 * Whether name is one of the files elf-buildid itself makes beside the
 * files it writes: a temporary ".NAME.ebid-XXXXXX", an --in-place journal
 * ".NAME.ebid-journal", a link copy ".NAME.ebid-link". Walks leave them
 * out: they come and go while other runs work.
 */
bool ebid_is_own_file(const char *name);

/*
 * ebid_open_locked(), also saying whether the open itself failed (with
 * the open's errno), rather than its lock or a check after it.
 */
int ebid_open_locked_step(const struct ebid_at *at, int flags,
			  bool exclusive, long timeout_ms, struct stat *st,
			  bool *open_failed, char *err, size_t errlen);

/*
 * A read-only window of a file, mapped and populated (src/fs/mapped.c). Access
 * to it goes through ebid_window_guard(): fn's result, or -EBID_EBUS when
 * the window could not be read (the file shrank, or an I/O error).
 */
struct ebid_window {
	const unsigned char *p;
	size_t len;
};
int ebid_window_map(int fd, uint64_t off, size_t len, struct ebid_window *w);
void ebid_window_unmap(struct ebid_window *w);
int ebid_window_guard(const struct ebid_window *w, int (*fn)(void *arg),
		      void *arg);

/*
 * A write lease on the regular file open at fd (src/fs/lease.c): 0 when
 * granted, that is when no other open file description of the inode
 * exists (no reader, writer, mapping or running program); -EAGAIN when
 * one does; -ENOTSUP when SIGIO would end this process (the program
 * neither ignores nor handles it); another -errno (EACCES: not the
 * owner and no CAP_LEASE; EINVAL: the file system has no leases).
 * While held, others' opens wait. ebid_lease_intact(): held, and nobody
 * has asked for the file since. Closing fd releases it too.
 */
int ebid_lease_take(int fd);
bool ebid_lease_intact(int fd);
void ebid_lease_release(int fd);

#endif
