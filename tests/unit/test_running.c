/* SPDX-License-Identifier: MIT */
/*
 * Unit tests (TAP) for the scan of running processes (src/profile/
 * running.c) on this very process: its program is found, the kernel's id
 * (PROCMAP_QUERY where the kernel has it) and the first-page fallback
 * agree with the kernel's rule applied to the file, the path names the
 * mapped inode, a pid that does not exist counts as gone, and a child
 * that exits between the listing and the scan is no error.
 */
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "internal.h"

#include "tap.h"


/* This program's file among the process's mapped files, or NULL. */
static const struct ebid_mapped_file *self_file(const struct ebid_running *r)
{
	struct stat st;
	size_t i;

	if (r->nprocs != 1 || stat("/proc/self/exe", &st) != 0)
		return NULL;
	for (i = 0; i < r->procs[0].nfiles; i++)
		if (r->procs[0].files[i].ino == (uint64_t)st.st_ino &&
		    r->procs[0].files[i].dev == (uint64_t)st.st_dev)
			return &r->procs[0].files[i];
	return NULL;
}

/* The kernel's rule on the first page of this program. */
static size_t rule_id(unsigned char id[EBID_MAX_ID])
{
	unsigned char head[EBID_PAGE];
	ssize_t got;
	int fd = open("/proc/self/exe", O_RDONLY | O_CLOEXEC);

	if (fd < 0)
		return 0;
	got = pread(fd, head, sizeof(head), 0);
	close(fd);
	return got > 0 ? ebid_kernel_build_id(head, (size_t)got, id, NULL, NULL)
		       : 0;
}

static void scan_self(bool fallback)
{
	pid_t me = getpid();
	struct ebid_running_opts o = { .pids = &me, .npids = 1,
				       .no_procmap_query = fallback };
	struct ebid_running r;
	const struct ebid_mapped_file *f;
	unsigned char id[EBID_MAX_ID];
	size_t len = rule_id(id);
	char err[EBID_ERRLEN], what[128];

	ok(ebid_running_scan(&r, &o, err, sizeof(err)) == 0, "scan of self");
	f = self_file(&r);
	snprintf(what, sizeof(what), "%s: this program is among its files",
		 fallback ? "fallback" : "procmap");
	ok(f != NULL, "%s", what);
	snprintf(what, sizeof(what), "%s: the kernel's id is the rule's",
		 fallback ? "fallback" : "procmap");
	ok(f && f->kernel_id_len == len && !memcmp(f->kernel_id, id, len),
	   "%s", what);
	ok(f && f->path_state == EBID_PATH_SAME, "the path names the inode");
	ok(f && f->verdict == (len ? EBID_LIVE_OK : EBID_LIVE_INVISIBLE),
	   "verdict ok (invisible without an id)");
	if (fallback)
		ok(r.fallback, "the fallback is said when forced");
	ebid_running_release(&r);
}

int main(void)
{
	struct ebid_running r;
	struct ebid_running_opts o = { 0 };
	char err[EBID_ERRLEN];
	pid_t gone[2];
	siginfo_t si;
	int st;

	scan_self(false);
	scan_self(true);
	gone[0] = fork();
	if (gone[0] == 0)
		_exit(0);
	waitpid(gone[0], &st, 0);
	gone[1] = fork();
	if (gone[1] == 0) {
		pause();
		_exit(0);
	}
	kill(gone[1], SIGKILL);
	/* Waits for it to exit, leaving it a zombie (not reaped). */
	waitid(P_PID, (id_t)gone[1], &si, WEXITED | WNOWAIT);
	o.pids = gone;
	o.npids = 2;
	ok(ebid_running_scan(&r, &o, err, sizeof(err)) == 0,
	   "processes gone are no error");
	waitpid(gone[1], &st, 0);
	ok(r.nprocs == 0 && r.gone == 2, "and are counted gone (the zombie too)");
	ebid_running_release(&r);
	return tap_done();
}
