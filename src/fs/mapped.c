/* SPDX-License-Identifier: MIT */
/*
 * Reading the input through a mapping, one window at a time. Hashing the
 * page cache in place saves the copy into a buffer that pread() makes: that
 * copy was a quarter of an inject's CPU time (perf, docs/benchmarks.md).
 *
 * A file that shrinks under a mapping raises SIGBUS when the lost pages are
 * touched, and so does an I/O error behind one. The guard turns that into
 * an error return for the thread that touched its own window; any other
 * SIGBUS is fatal as it would have been without us. The handler belongs
 * to the program: it installs ebid_sigbus_handler(); without it the
 * library reads with pread() instead of mapping.
 */
#include <errno.h>
#include <pthread.h>
#include <setjmp.h>
#include <signal.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#include "internal.h"
#include "fs/fs.h"

struct guard {
	sigjmp_buf jump;
	const unsigned char *lo, *hi;   /* the window being read */
};

/* Per thread: the window this thread is reading, if any. */
static _Thread_local struct guard *volatile active;

void ebid_sigbus_handler(int sig, siginfo_t *si, void *ctx)
{
	struct guard *g = active;
	const unsigned char *addr = si->si_addr;

	(void)ctx;
	if (g && addr >= g->lo && addr < g->hi) {
		active = NULL;
		siglongjmp(g->jump, 1);
	}
	/* Not a window of ours: the faulting access repeats and kills. */
	signal(sig, SIG_DFL);
}

/* Mapping is used only where the program installed the handler. */
static bool handler_installed(void)
{
	struct sigaction cur;

	return sigaction(SIGBUS, NULL, &cur) == 0 &&
	       (cur.sa_flags & SA_SIGINFO) &&
	       cur.sa_sigaction == ebid_sigbus_handler;
}

int ebid_window_map(int fd, uint64_t off, size_t len,
		    struct ebid_window *w)
{
	long page_size = sysconf(_SC_PAGESIZE);
	void *p;

	w->p = NULL;
	w->len = 0;
	if (!handler_installed())
		return -ENOTSUP;
	if (page_size <= 0)
		page_size = EBID_PAGE;
	if (!len || off % (uint64_t)page_size)
		return -EINVAL;
	/* Populated now: one call maps the whole window, no page faults. */
	p = mmap(NULL, len, PROT_READ, MAP_PRIVATE | MAP_POPULATE, fd,
		 (off_t)off);
	if (p == MAP_FAILED)
		return -errno;
	w->p = p;
	w->len = len;
	return 0;
}

void ebid_window_unmap(struct ebid_window *w)
{
	if (w->p)
		munmap((void *)w->p, w->len);
	w->p = NULL;
	w->len = 0;
}

int ebid_window_guard(const struct ebid_window *w, int (*fn)(void *arg),
		      void *arg)
{
	struct guard g;
	int ret;

	g.lo = w->p;
	g.hi = w->p + w->len;
	/* Saves the signal mask: the handler runs with SIGBUS blocked. */
	if (sigsetjmp(g.jump, 1))
		return -EBID_EBUS;
	active = &g;
	ret = fn(arg);
	active = NULL;
	return ret;
}
