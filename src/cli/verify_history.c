/* SPDX-License-Identifier: MIT */
/*
 * verify's history checks (--against-manifest, --against-debuginfod): was
 * this id released before, for this file or another? Part of `unique`.
 */
#include <errno.h>
#include <pthread.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "cli/cli.h"

static void hist_set(struct result *r, int hist, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));

/* The earlier releases' word on r's id; HIST_OTHER and HIST_ERROR stand. */
static void hist_set(struct result *r, int hist, const char *fmt, ...)
{
	va_list ap;

	r->hist = hist;
	va_start(ap, fmt);
	vsnprintf(r->hist_detail, sizeof(r->hist_detail), fmt, ap);
	va_end(ap);
}

/*
 * Whether the manifests list r's id for a file with other bytes: the same
 * file is the one whose SHA-256 the manifest recorded. sha is the file's,
 * computed on the first match ("" until then). False when r->hist was
 * settled (another file, or the file could not be hashed).
 */
static bool hist_manifests(const struct cli *cli, struct result *r, int fd,
			   char sha[65])
{
	char err[EBID_ERRLEN];
	size_t i, k, count;

	for (i = 0; i < cli->nagainst_manifest; i++) {
		const struct manifest *m = &cli->manifests[i];
		const struct manifest_entry *e = manifest_find(m, r->id, &count);

		for (k = 0; k < count; k++) {
			if (!sha[0] && ebid_sha256_fd(fd, sha, err, sizeof(err))) {
				hist_set(r, HIST_ERROR,
					 "cannot hash the file to compare it with '%.100s': %.150s",
					 m->path, err);
				return false;
			}
			if (e[k].sha256 && !strcmp(e[k].sha256, sha)) {
				if (r->hist == HIST_NEW)
					hist_set(r, HIST_SAME,
						 "released before as this very file ('%.100s' in '%.100s', same SHA-256)",
						 e[k].path, m->path);
				continue;
			}
			hist_set(r, HIST_OTHER,
				 "manifest '%.100s' lists this id for '%.100s', a file with other bytes (%.30s)",
				 m->path, e[k].path,
				 e[k].sha256 ? "another SHA-256"
					     : "no SHA-256 recorded");
			return false;
		}
	}
	return true;
}

/*
 * Both files' content ids (by --hash, or sha1; md5 for a 16-byte id) are
 * the id: their bytes are the same but for nothing a hash can tell.
 */
static bool same_content(const struct cli *cli, int fd,
			 const struct ebid_elf *elf, int served_fd)
{
	enum ebid_hash_alg alg = cli->opts.alg;
	const struct ebid_note *g = &elf->gnu;
	unsigned char mine[EBID_MAX_ID], theirs[EBID_MAX_ID];
	char err[EBID_ERRLEN];
	struct ebid_elf other;
	bool same = false;

	if (g->desc_len == 16 && alg == EBID_HASH_SHA1)
		alg = EBID_HASH_MD5;
	if (ebid_hash_id_len(alg) != g->desc_len)
		return false;
	memset(&other, 0, sizeof(other));
	if (ebid_elf_open_fd(&other, served_fd, err, sizeof(err)))
		return false;
	if (other.gnu.present && other.gnu.desc_len == g->desc_len &&
	    !ebid_content_id(fd, elf, alg, mine, err, sizeof(err)) &&
	    !ebid_content_id(served_fd, &other, alg, theirs, err, sizeof(err)))
		same = !memcmp(mine, theirs, g->desc_len) &&
		       !memcmp(mine, g->desc, g->desc_len);
	ebid_elf_release(&other);
	return same;
}

/*
 * debuginfod's answer for one id, asked once per run: the workers judge
 * files at once, and two files with one id (the collision this check
 * looks for) would otherwise race, one asking the server and the other
 * finding libdebuginfod's cache filled meanwhile, each told a different
 * story. The first to ask asks; the others wait for its answer.
 */
struct asked {
	unsigned char id[EBID_MAX_ID];
	size_t id_len;
	bool done;
	int ret;                /* 0, -ENOENT or another error */
	char err[EBID_ERRLEN];
	struct ebid_served sv;  /* sv.fd kept open until the run ends */
	char sha[65];           /* the served file's SHA-256, "" if unread */
	struct asked *next;
};

static pthread_mutex_t asked_lock = PTHREAD_MUTEX_INITIALIZER;
static pthread_cond_t asked_cond = PTHREAD_COND_INITIALIZER;
static struct asked *asked_list;

static const struct asked *ask_debuginfod(const struct cli *cli,
					  const unsigned char *id,
					  size_t id_len)
{
	struct asked *a;

	pthread_mutex_lock(&asked_lock);
	for (a = asked_list; a; a = a->next)
		if (a->id_len == id_len && !memcmp(a->id, id, id_len))
			break;
	if (a) {
		while (!a->done)
			pthread_cond_wait(&asked_cond, &asked_lock);
		pthread_mutex_unlock(&asked_lock);
		return a;
	}
	a = calloc(1, sizeof(*a));
	if (!a) {
		pthread_mutex_unlock(&asked_lock);
		return NULL;
	}
	memcpy(a->id, id, id_len);
	a->id_len = id_len;
	a->sv.fd = -1;
	a->next = asked_list;
	asked_list = a;
	pthread_mutex_unlock(&asked_lock);

	a->ret = ebid_debuginfod_executable(id, id_len,
					    cli->debuginfod_timeout_ms, &a->sv,
					    a->err, sizeof(a->err));
	if (!a->ret && ebid_sha256_fd(a->sv.fd, a->sha, a->err,
				      sizeof(a->err)))
		a->sha[0] = '\0';

	pthread_mutex_lock(&asked_lock);
	a->done = true;
	pthread_cond_broadcast(&asked_cond);
	pthread_mutex_unlock(&asked_lock);
	return a;
}

/* After the workers: every answer's file closed, the list freed. */
void verify_history_end(void)
{
	struct asked *a, *next;

	for (a = asked_list; a; a = next) {
		next = a->next;
		if (a->sv.fd >= 0)
			close(a->sv.fd);
		free(a);
	}
	asked_list = NULL;
}

/*
 * What the servers in DEBUGINFOD_URLS serve with r's id: nothing (404
 * from all), this file (byte for byte, or the same content hash), another
 * file, or no answer (an ERROR: the check could not be made).
 */
static void hist_debuginfod(const struct cli *cli, struct result *r, int fd,
			    const struct ebid_elf *elf, char sha[65])
{
	char err[EBID_ERRLEN];
	const char *urls = getenv("DEBUGINFOD_URLS");
	const struct asked *a;
	const char *from;

	a = ask_debuginfod(cli, elf->gnu.desc, elf->gnu.desc_len);
	if (!a) {
		hist_set(r, HIST_ERROR, "debuginfod could not be asked: out of memory");
		return;
	}
	if (a->ret == -ENOENT)
		return;
	if (a->ret) {
		/* libdebuginfod does not say which server failed: name them all. */
		hist_set(r, HIST_ERROR,
			 "debuginfod could not be asked: %.150s (DEBUGINFOD_URLS=%.120s)",
			 a->err, urls ? urls : "");
		return;
	}
	from = a->sv.url[0] ? a->sv.url : "libdebuginfod's cache";
	if (!sha[0] && ebid_sha256_fd(fd, sha, err, sizeof(err))) {
		hist_set(r, HIST_ERROR,
			 "cannot hash the file to compare it with what debuginfod serves: %.150s",
			 err);
	} else if (a->sha[0] && !strcmp(a->sha, sha)) {
		if (r->hist == HIST_NEW)
			hist_set(r, HIST_SAME,
				 "released before as this very file (debuginfod serves the same bytes from %.200s)",
				 from);
	} else if (same_content(cli, fd, elf, a->sv.fd)) {
		if (r->hist == HIST_NEW)
			hist_set(r, HIST_SAME,
				 "released before as this file (debuginfod serves one with the same content hash from %.200s)",
				 from);
	} else {
		hist_set(r, HIST_OTHER,
			 "debuginfod serves this id for another file: %.150s (cached as %.150s)",
			 from, a->sv.path);
	}
}

/* --against-manifest, --against-debuginfod: asked per file, judged later. */
void verify_history(const struct cli *cli, struct result *r, int fd,
			  const struct ebid_elf *elf)
{
	char sha[65] = "";

	r->hist = HIST_NEW;
	if (!hist_manifests(cli, r, fd, sha))
		return;
	if (cli->against_debuginfod)
		hist_debuginfod(cli, r, fd, elf, sha);
}

