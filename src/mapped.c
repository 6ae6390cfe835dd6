/* SPDX-License-Identifier: MIT */
/*
 * Reading the input through a mapping, one window at a time. Hashing the
 * page cache in place saves the copy into a buffer that pread() makes: that
 * copy was a quarter of an inject's CPU time (perf, docs/benchmarks.md).
 *
 * A file that shrinks under a mapping raises SIGBUS when the lost pages are
 * touched, and so does an I/O error behind one. The guard turns that into
 * an error return for the thread that touched its own window; any other
 * SIGBUS gets the action it would have had without us.
 */
#include <errno.h>
#include <pthread.h>
#include <setjmp.h>
#include <signal.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#include "internal.h"

struct guard {
	sigjmp_buf jump;
	const unsigned char *lo, *hi;   /* the window being read */
};

static _Thread_local struct guard *volatile active;
static struct sigaction previous;
static pthread_once_t once = PTHREAD_ONCE_INIT;
static int install_err;
static long page_size;

static void on_sigbus(int sig, siginfo_t *si, void *ctx)
{
	struct guard *g = active;
	const unsigned char *addr = si->si_addr;

	if (g && addr >= g->lo && addr < g->hi) {
		active = NULL;
		siglongjmp(g->jump, 1);
	}
	/* Not a window of ours: act as if we had never been installed. */
	if (previous.sa_flags & SA_SIGINFO) {
		previous.sa_sigaction(sig, si, ctx);
		return;
	}
	if (previous.sa_handler != SIG_DFL && previous.sa_handler != SIG_IGN) {
		previous.sa_handler(sig);
		return;
	}
	signal(SIGBUS, SIG_DFL); /* the faulting access repeats and kills */
}

static void install(void)
{
	struct sigaction sa;

	memset(&sa, 0, sizeof(sa));
	sa.sa_sigaction = on_sigbus;
	sa.sa_flags = SA_SIGINFO | SA_ONSTACK;
	sigemptyset(&sa.sa_mask);
	page_size = sysconf(_SC_PAGESIZE);
	if (page_size <= 0)
		page_size = EBID_PAGE;
	if (sigaction(SIGBUS, &sa, &previous) != 0)
		install_err = -errno;
}

int ebid_window_map(int fd, uint64_t off, size_t len,
		    struct ebid_window *w)
{
	void *p;

	w->p = NULL;
	w->len = 0;
	pthread_once(&once, install);
	if (install_err)
		return install_err;
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
