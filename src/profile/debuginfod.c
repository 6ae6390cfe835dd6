/* SPDX-License-Identifier: MIT */
/*
 * Asking debuginfod servers for a file by its build-id through elfutils'
 * client library, libdebuginfod, loaded at run time.
 *
 * Why dlopen and not a link: the library is an optional dependency of one
 * option (verify --against-debuginfod). Linked, every build would need
 * libdebuginfod-dev and every installed binary libdebuginfod1 (and, through
 * it, libcurl and its TLS stack) to start at all; and `make STATIC=1`
 * could not link it, as Debian ships no libdebuginfod.a. Loaded on first
 * use, the tool runs without it and says so when asked to use it. The
 * static build (EBID_STATIC) has no dlopen at all (t0920: our objects call
 * nothing a static glibc binary needs shared libraries for): there the
 * option is an error.
 *
 * The calls below are libdebuginfod's stable ABI (libdebuginfod.so.1, all
 * present since elfutils 0.179). When <elfutils/debuginfod.h> is there at
 * build time our pointer types are checked against its prototypes; it is
 * not needed to build.
 *
 * libdebuginfod reads DEBUGINFOD_URLS, DEBUGINFOD_CACHE_PATH,
 * DEBUGINFOD_TIMEOUT (and the rest of its documented environment) itself;
 * this file reads no environment. On top of its timeouts a progress
 * callback, which libdebuginfod calls at least once a second while a
 * transfer is running, cancels the query at the caller's deadline.
 */
#include <errno.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#ifndef EBID_STATIC
#include <dlfcn.h>
#endif

#include "internal.h"

#if defined(__has_include)
#if __has_include(<elfutils/debuginfod.h>)
#include <elfutils/debuginfod.h>
#define HAVE_DEBUGINFOD_H 1
#endif
#endif

#ifndef HAVE_DEBUGINFOD_H
typedef struct debuginfod_client debuginfod_client;
typedef int (*debuginfod_progressfn_t)(debuginfod_client *c, long a, long b);
#endif

#define SONAME "libdebuginfod.so.1"

/* The functions we call, resolved once. */
struct dfd_api {
	debuginfod_client *(*begin)(void);
	void (*end)(debuginfod_client *c);
	int (*find_executable)(debuginfod_client *c, const unsigned char *id,
			       int id_len, char **path);
	void (*set_progressfn)(debuginfod_client *c,
			       debuginfod_progressfn_t fn);
	void (*set_user_data)(debuginfod_client *c, void *value);
	void *(*get_user_data)(debuginfod_client *c);
	const char *(*get_url)(debuginfod_client *c);
};

#ifdef HAVE_DEBUGINFOD_H
#define SAME_TYPE(field, fn)                                                  \
	_Static_assert(__builtin_types_compatible_p(                          \
			       __typeof__(((struct dfd_api *)0)->field),      \
			       __typeof__(&fn)),                              \
		       #fn " differs from <elfutils/debuginfod.h>")
SAME_TYPE(begin, debuginfod_begin);
SAME_TYPE(end, debuginfod_end);
SAME_TYPE(find_executable, debuginfod_find_executable);
SAME_TYPE(set_progressfn, debuginfod_set_progressfn);
SAME_TYPE(set_user_data, debuginfod_set_user_data);
SAME_TYPE(get_user_data, debuginfod_get_user_data);
SAME_TYPE(get_url, debuginfod_get_url);
#endif

static struct dfd_api api;
static char load_why[EBID_ERRLEN];
static pthread_once_t load_once = PTHREAD_ONCE_INIT;

#ifndef EBID_STATIC
/*
 * Loading runs libdebuginfod's constructor (curl_global_init, which is not
 * thread-safe): once, under pthread_once. The handle is never closed.
 */
static void load(void)
{
	static const struct {
		const char *name;
		size_t off;
	} syms[] = {
		{ "debuginfod_begin", offsetof(struct dfd_api, begin) },
		{ "debuginfod_end", offsetof(struct dfd_api, end) },
		{ "debuginfod_find_executable",
		  offsetof(struct dfd_api, find_executable) },
		{ "debuginfod_set_progressfn",
		  offsetof(struct dfd_api, set_progressfn) },
		{ "debuginfod_set_user_data",
		  offsetof(struct dfd_api, set_user_data) },
		{ "debuginfod_get_user_data",
		  offsetof(struct dfd_api, get_user_data) },
		{ "debuginfod_get_url", offsetof(struct dfd_api, get_url) },
	};
	struct dfd_api a;
	void *h = dlopen(SONAME, RTLD_NOW | RTLD_LOCAL);
	size_t i;

	if (!h) {
		const char *why = dlerror();

		snprintf(load_why, sizeof(load_why),
			 "libdebuginfod cannot be loaded (install libdebuginfod1): %s",
			 why ? why : SONAME);
		return;
	}
	for (i = 0; i < ARRAY_SIZE(syms); i++) {
		void *p = dlsym(h, syms[i].name);

		if (!p) {
			snprintf(load_why, sizeof(load_why),
				 "%s lacks %s (elfutils 0.179 or later is needed)",
				 SONAME, syms[i].name);
			return;
		}
		memcpy((char *)&a + syms[i].off, &p, sizeof(p));
	}
	api = a;
}
#else
static void load(void)
{
	snprintf(load_why, sizeof(load_why),
		 "the static build cannot load libdebuginfod (use the dynamically linked elf-buildid)");
}
#endif

int ebid_debuginfod_load(char *err, size_t errlen)
{
	pthread_once(&load_once, load);
	if (!api.begin)
		return ebid_err(err, errlen, -ENOSYS, "%s", load_why);
	return 0;
}

struct deadline {
	struct timespec at;
	bool passed;
};

static void deadline_set(struct deadline *d, long ms)
{
	clock_gettime(CLOCK_MONOTONIC, &d->at);
	d->at.tv_sec += ms / 1000;
	d->at.tv_nsec += (ms % 1000) * 1000000L;
	if (d->at.tv_nsec >= 1000000000L) {
		d->at.tv_sec++;
		d->at.tv_nsec -= 1000000000L;
	}
	d->passed = false;
}

/* libdebuginfod's progress callback: nonzero cancels the query. */
static int progress(debuginfod_client *c, long a, long b)
{
	struct deadline *d = api.get_user_data(c);
	struct timespec now;

	(void)a;
	(void)b;
	if (!d)
		return 0;
	clock_gettime(CLOCK_MONOTONIC, &now);
	if (now.tv_sec > d->at.tv_sec ||
	    (now.tv_sec == d->at.tv_sec && now.tv_nsec >= d->at.tv_nsec))
		d->passed = true;
	return d->passed;
}

int ebid_debuginfod_executable(const unsigned char *id, size_t id_len,
			       long timeout_ms, struct ebid_served *out,
			       char *err, size_t errlen)
{
	debuginfod_client *c = NULL;
	struct deadline d;
	char *path = NULL;
	const char *url;
	int fd, ret;

	out->fd = -1;
	out->path[0] = out->url[0] = '\0';
	if (!id_len || id_len > EBID_MAX_ID)
		return ebid_err(err, errlen, -EINVAL, "an id has 1 to %d bytes",
				EBID_MAX_ID);
	ret = ebid_debuginfod_load(err, errlen);
	if (ret)
		return ret;
	c = api.begin();
	if (!c)
		return ebid_err(err, errlen, -ENOMEM,
				"debuginfod_begin failed");
	deadline_set(&d, timeout_ms > 0 ? timeout_ms : 60000);
	api.set_user_data(c, &d);
	api.set_progressfn(c, progress);
	fd = api.find_executable(c, id, (int)id_len, &path);
	url = api.get_url(c);
	if (url)
		snprintf(out->url, sizeof(out->url), "%s", url);
	if (fd >= 0) {
		out->fd = fd;
		snprintf(out->path, sizeof(out->path), "%s", path ? path : "");
		ret = 0;
	} else if (d.passed) {
		ret = ebid_err(err, errlen, -ETIMEDOUT,
			       "no answer within %ld ms%s%s", timeout_ms,
			       out->url[0] ? " from " : "", out->url);
	} else if (fd == -ENOENT) {
		ret = ebid_err(err, errlen, -ENOENT,
			       "no server in DEBUGINFOD_URLS has it");
	} else if (fd == -ENOSYS) {
		ret = ebid_err(err, errlen, -EINVAL,
			       "DEBUGINFOD_URLS names no server");
	} else {
		ret = ebid_err(err, errlen, fd < 0 ? fd : -EIO, "%s%s%s",
			       strerror(fd < 0 ? -fd : EIO),
			       out->url[0] ? " at " : "", out->url);
	}
	free(path);
	api.end(c);
	return ret;
}
