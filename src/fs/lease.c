/* SPDX-License-Identifier: MIT */
/*
 * Write leases: the proof that nobody else has a file open, mapped or
 * running, kept while the default inject edits it in place.
 *
 * fcntl(F_SETLEASE, F_WRLCK) is granted only when the inode has no open
 * file description but ours (the kernel's check_conflicting_open(): its
 * reader and writer counts are ours alone). A mapping holds its file
 * description until munmap, so a loaded library or any mmap refuses the
 * lease too, and so does a running program (its executable stays open).
 * While the lease is held, every open(2) of the inode, execve(2)
 * included, waits in the kernel until the holder gives the lease up, and
 * makes the kernel mark a break pending (F_GETLEASE then answers
 * F_RDLCK or F_UNLCK); /proc/sys/fs/lease-break-time (45 s by default)
 * bounds that wait.
 *
 * The kernel tells a holder of a break with a signal, SIGIO unless
 * F_SETSIG says otherwise, sent to the owner that F_SETLEASE sets: this
 * process. SIGIO's default action ends the process, and signals belong
 * to the program, so the library takes a lease only where the program
 * ignores or handles SIGIO (src/cli/main.c ignores it), and then clears
 * the owner: no signal is sent at all, the holder asks F_GETLEASE.
 */
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <string.h>
#include <unistd.h>

#include "fs/fs.h"

/* Whether a SIGIO sent to this process would end it. */
static bool sigio_fatal(void)
{
	struct sigaction cur;

	if (sigaction(SIGIO, NULL, &cur) != 0)
		return true;
	if (cur.sa_flags & SA_SIGINFO)
		return false;
	return cur.sa_handler == SIG_DFL;
}

int ebid_lease_take(int fd)
{
	if (sigio_fatal())
		return -ENOTSUP;
	if (fcntl(fd, F_SETLEASE, F_WRLCK) != 0)
		return -errno;
	/* No owner, no signal: a break shows in F_GETLEASE alone. */
	if (fcntl(fd, F_SETOWN, 0) != 0) {
		int ret = -errno;

		ebid_lease_release(fd);
		return ret;
	}
	return 0;
}

bool ebid_lease_intact(int fd)
{
	return fcntl(fd, F_GETLEASE) == F_WRLCK;
}

void ebid_lease_release(int fd)
{
	int saved = errno;

	fcntl(fd, F_SETLEASE, F_UNLCK);
	errno = saved;
}
