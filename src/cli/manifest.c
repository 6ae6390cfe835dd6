/* SPDX-License-Identifier: MIT */
/*
 * Reading back a manifest that inject --manifest wrote (cmd_job.c,
 * write_manifest), for verify --against-manifest. It lives beside the
 * writer because the manifest is the command's report format; the library
 * never reads one.
 *
 * Through the JSON parser (json.h): any valid document is read and any
 * invalid one is refused with where it went wrong; of the document only
 * files[].path, files[].gnu_build_id and files[].sha256 are kept.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "cli/cli.h"
#include "cli/json.h"

#define MANIFEST_MAX (256u << 20) /* bytes: a manifest of a few million files */

/* One files[] entry, as far as it is kept. */
struct entry_ctx {
	struct manifest_entry e;
};

/* A member that must be a string or null: *out the string or NULL. */
static int string_or_null(struct json *ps, const char *key, char **out)
{
	const char *at = ps->p;
	enum json_kind k;
	char *s = NULL;

	if (json_value(ps, &k, &s))
		return -1;
	if (k != JSON_STRING && k != JSON_NULL) {
		ps->p = at;
		return json_fail(ps, "files[].%s is neither a string nor null", key);
	}
	free(*out); /* a repeated key: the last one counts */
	*out = s;
	return 0;
}

static int entry_member(struct json *ps, const char *key, void *ctx)
{
	struct manifest_entry *e = &((struct entry_ctx *)ctx)->e;

	if (!strcmp(key, "path"))
		return string_or_null(ps, key, &e->path);
	/* verify --json's "build_id": its document is a manifest too. */
	if (!strcmp(key, "gnu_build_id") || !strcmp(key, "build_id"))
		return string_or_null(ps, key, &e->id);
	if (!strcmp(key, "sha256"))
		return string_or_null(ps, key, &e->sha256);
	return json_value(ps, NULL, NULL);
}

static void lower(char *s)
{
	for (; s && *s; s++)
		if (*s >= 'A' && *s <= 'F')
			*s = (char)(*s - 'A' + 'a');
}

static void entry_release(struct manifest_entry *e)
{
	free(e->path);
	free(e->id);
	free(e->sha256);
}

static int file_element(struct json *ps, void *ctx)
{
	struct manifest *m = ctx;
	struct entry_ctx ec = { { 0 } };
	const char *at = ps->p;
	struct manifest_entry *nv;

	if (ps->p >= ps->end || *ps->p != '{') {
		if (json_value(ps, NULL, NULL))
			return -1;
		ps->p = at;
		return json_fail(ps, "files[] holds something other than an object");
	}
	ps->p++;
	if (++ps->depth > JSON_DEPTH_MAX)
		return json_fail(ps, "nested deeper than %d", JSON_DEPTH_MAX);
	if (json_object(ps, entry_member, &ec))
		goto bad;
	ps->depth--;
	lower(ec.e.id);
	lower(ec.e.sha256);
	if (ec.e.id && !is_hex(ec.e.id, 2, 2 * EBID_MAX_ID)) {
		ps->p = at;
		json_fail(ps, "files[].gnu_build_id '%.80s' is not 1 to %d bytes of hex",
		     ec.e.id, EBID_MAX_ID);
		goto bad;
	}
	if (ec.e.sha256 && !is_hex(ec.e.sha256, 64, 64)) {
		ps->p = at;
		json_fail(ps, "files[].sha256 '%.80s' is not 64 hex digits",
		     ec.e.sha256);
		goto bad;
	}
	/* Entries without an id (skipped, failed) are nothing to collide with. */
	if (!ec.e.id) {
		entry_release(&ec.e);
		return 0;
	}
	if (!ec.e.path) {
		ps->p = at;
		json_fail(ps, "a files[] entry with a gnu_build_id has no path");
		goto bad;
	}
	nv = realloc(m->entries, (m->nentries + 1) * sizeof(*nv));
	if (!nv) {
		json_fail(ps, "out of memory");
		goto bad;
	}
	m->entries = nv;
	m->entries[m->nentries++] = ec.e;
	return 0;
bad:
	entry_release(&ec.e);
	return -1;
}

struct top_ctx {
	struct manifest *m;
	bool files, tool;
};

static int top_member(struct json *ps, const char *key, void *ctx)
{
	struct top_ctx *t = ctx;
	const char *at = ps->p;
	int ret;

	if (!strcmp(key, "tool")) {
		char *s = NULL;
		enum json_kind k;

		if (json_value(ps, &k, &s))
			return -1;
		t->tool = k == JSON_STRING && !strcmp(s, "elf-buildid");
		free(s);
		if (!t->tool) {
			ps->p = at;
			return json_fail(ps, "\"tool\" is not \"elf-buildid\": not a manifest of elf-buildid");
		}
		return 0;
	}
	if (strcmp(key, "files"))
		return json_value(ps, NULL, NULL);
	if (t->files)
		return json_fail(ps, "\"files\" given twice");
	if (ps->p >= ps->end || *ps->p != '[')
		return json_fail(ps, "\"files\" is not an array");
	t->files = true;
	ps->p++;
	if (++ps->depth > JSON_DEPTH_MAX)
		return json_fail(ps, "nested deeper than %d", JSON_DEPTH_MAX);
	ret = json_array(ps, file_element, t->m);
	ps->depth--;
	return ret;
}

static int by_id(const void *a, const void *b)
{
	const struct manifest_entry *x = a, *y = b;

	return strcmp(x->id, y->id);
}

int manifest_parse(struct manifest *m, const char *text, size_t len,
		   char *err, size_t errlen)
{
	struct json ps;
	struct top_ctx t = { m, false, false };

	json_init(&ps, text, len, err, errlen);
	m->entries = NULL;
	m->nentries = 0;
	json_skip_ws(&ps);
	if (ps.p >= ps.end || *ps.p != '{') {
		json_fail(&ps, "expected a JSON object, found %s", json_seen(&ps));
		goto bad;
	}
	ps.p++;
	ps.depth = 1;
	if (json_object(&ps, top_member, &t))
		goto bad;
	json_skip_ws(&ps);
	if (ps.p < ps.end) {
		json_fail(&ps, "text after the JSON document");
		goto bad;
	}
	if (!t.tool) {
		snprintf(err, errlen, "no \"tool\": \"elf-buildid\": not a manifest of elf-buildid");
		goto bad;
	}
	if (!t.files) {
		snprintf(err, errlen, "no \"files\" array");
		goto bad;
	}
	if (m->nentries)
		qsort(m->entries, m->nentries, sizeof(*m->entries), by_id);
	return 0;
bad:
	manifest_release(m);
	return -EBID_EMALFORMED;
}

int manifest_load(struct manifest *m, const char *path, char *err,
		  size_t errlen)
{
	struct stat st;
	char *text = NULL;
	size_t got = 0;
	int fd, ret;

	m->path = path;
	m->entries = NULL;
	m->nentries = 0;
	fd = open(path, O_RDONLY | O_CLOEXEC | O_NOCTTY);
	if (fd < 0) {
		ret = -errno;
		snprintf(err, errlen, "cannot open: %s", strerror(errno));
		return ret;
	}
	if (fstat(fd, &st)) {
		ret = -errno;
		snprintf(err, errlen, "cannot stat: %s", strerror(errno));
		goto out;
	}
	if (!S_ISREG(st.st_mode)) {
		ret = -EINVAL;
		snprintf(err, errlen, "not a regular file");
		goto out;
	}
	if ((unsigned long long)st.st_size > MANIFEST_MAX) {
		ret = -EFBIG;
		snprintf(err, errlen, "larger than %u MiB", MANIFEST_MAX >> 20);
		goto out;
	}
	text = malloc((size_t)st.st_size + 1);
	if (!text) {
		ret = -ENOMEM;
		snprintf(err, errlen, "out of memory");
		goto out;
	}
	while (got < (size_t)st.st_size) {
		ssize_t n = read(fd, text + got, (size_t)st.st_size - got);

		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0) {
			ret = -errno;
			snprintf(err, errlen, "cannot read: %s", strerror(errno));
			goto out;
		}
		if (!n)
			break;
		got += (size_t)n;
	}
	ret = manifest_parse(m, text, got, err, errlen);
	m->path = path;
out:
	free(text);
	close(fd);
	return ret;
}

void manifest_release(struct manifest *m)
{
	size_t i;

	if (!m)
		return;
	for (i = 0; i < m->nentries; i++)
		entry_release(&m->entries[i]);
	free(m->entries);
	m->entries = NULL;
	m->nentries = 0;
}

const struct manifest_entry *manifest_find(const struct manifest *m,
					   const char *id, size_t *count)
{
	size_t lo = 0, hi = m->nentries, first;

	*count = 0;
	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;

		if (strcmp(m->entries[mid].id, id) < 0)
			lo = mid + 1;
		else
			hi = mid;
	}
	first = lo;
	while (lo < m->nentries && !strcmp(m->entries[lo].id, id))
		lo++;
	*count = lo - first;
	return *count ? &m->entries[first] : NULL;
}
