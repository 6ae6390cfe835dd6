/* SPDX-License-Identifier: MIT */
/*
 * Reading back a manifest that inject --manifest wrote (cmd_job.c,
 * write_manifest), for verify --against-manifest. It lives beside the
 * writer because the manifest is the command's report format; the library
 * never reads one.
 *
 * A whole JSON parser (RFC 8259: objects, arrays, strings with every
 * escape, numbers, true, false, null, nested to a bounded depth), so that
 * any valid document is read and any invalid one is refused with where it
 * went wrong; of the document only files[].path, files[].gnu_build_id and
 * files[].sha256 are kept.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "cli/cli.h"

#define MANIFEST_MAX (256u << 20) /* bytes: a manifest of a few million files */
#define DEPTH_MAX 64

struct parser {
	const char *p, *start, *end;
	int depth;
	char *err;
	size_t errlen;
	bool failed;
};

static int fail(struct parser *ps, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));

/* Records the first error, with the line and column where it was found. */
static int fail(struct parser *ps, const char *fmt, ...)
{
	const char *q;
	unsigned line = 1, col = 1;
	size_t used;
	va_list ap;

	if (ps->failed)
		return -1;
	ps->failed = true;
	for (q = ps->start; q < ps->p && q < ps->end; q++) {
		if (*q == '\n') {
			line++;
			col = 1;
		} else {
			col++;
		}
	}
	used = (size_t)snprintf(ps->err, ps->errlen, "line %u, column %u: ",
				line, col);
	if (used < ps->errlen) {
		va_start(ap, fmt);
		vsnprintf(ps->err + used, ps->errlen - used, fmt, ap);
		va_end(ap);
	}
	return -1;
}

static void skip_ws(struct parser *ps)
{
	while (ps->p < ps->end && (*ps->p == ' ' || *ps->p == '\t' ||
				   *ps->p == '\n' || *ps->p == '\r'))
		ps->p++;
}

/* What is at the cursor, for a message. */
static const char *seen(const struct parser *ps)
{
	return ps->p >= ps->end ? "the end of the file" : "something else";
}

static int expect_char(struct parser *ps, char c, const char *what)
{
	skip_ws(ps);
	if (ps->p >= ps->end || *ps->p != c)
		return fail(ps, "expected %s, found %s", what, seen(ps));
	ps->p++;
	return 0;
}

static int hex4(struct parser *ps, unsigned *v)
{
	int i;

	*v = 0;
	for (i = 0; i < 4; i++, ps->p++) {
		char c = ps->p < ps->end ? *ps->p : '\0';

		*v <<= 4;
		if (c >= '0' && c <= '9')
			*v |= (unsigned)(c - '0');
		else if (c >= 'a' && c <= 'f')
			*v |= (unsigned)(c - 'a' + 10);
		else if (c >= 'A' && c <= 'F')
			*v |= (unsigned)(c - 'A' + 10);
		else
			return fail(ps, "\\u needs four hex digits");
	}
	return 0;
}

static void put_utf8(char *out, size_t *n, unsigned cp)
{
	if (cp < 0x80) {
		out[(*n)++] = (char)cp;
	} else if (cp < 0x800) {
		out[(*n)++] = (char)(0xc0 | (cp >> 6));
		out[(*n)++] = (char)(0x80 | (cp & 0x3f));
	} else if (cp < 0x10000) {
		out[(*n)++] = (char)(0xe0 | (cp >> 12));
		out[(*n)++] = (char)(0x80 | ((cp >> 6) & 0x3f));
		out[(*n)++] = (char)(0x80 | (cp & 0x3f));
	} else {
		out[(*n)++] = (char)(0xf0 | (cp >> 18));
		out[(*n)++] = (char)(0x80 | ((cp >> 12) & 0x3f));
		out[(*n)++] = (char)(0x80 | ((cp >> 6) & 0x3f));
		out[(*n)++] = (char)(0x80 | (cp & 0x3f));
	}
}

/*
 * The code point of a \u escape (the cursor after the 'u'), a surrogate
 * pair joined: 0 and *cp, or -1 with the failure recorded. A \u0000
 * cannot be in a C string: refused.
 */
static int parse_u_escape(struct parser *ps, unsigned *cp)
{
	unsigned lo;

	if (hex4(ps, cp))
		return -1;
	if (*cp >= 0xdc00 && *cp <= 0xdfff)
		return fail(ps, "lone low surrogate \\u%04x", *cp);
	if (*cp >= 0xd800 && *cp <= 0xdbff) {
		if (ps->end - ps->p < 2 || ps->p[0] != '\\' || ps->p[1] != 'u')
			return fail(ps, "high surrogate \\u%04x without its low half",
				    *cp);
		ps->p += 2;
		if (hex4(ps, &lo))
			return -1;
		if (lo < 0xdc00 || lo > 0xdfff)
			return fail(ps, "high surrogate \\u%04x without its low half",
				    *cp);
		*cp = 0x10000 + ((*cp - 0xd800) << 10) + (lo - 0xdc00);
	}
	if (!*cp)
		return fail(ps, "\\u0000 in a string");
	return 0;
}

/*
 * One escape (the cursor after the backslash), decoded onto buf at *n:
 * 0, or -1 with the failure recorded.
 */
static int parse_escape(struct parser *ps, char *buf, size_t *n)
{
	unsigned char c = ps->p < ps->end ? (unsigned char)*ps->p++ : '\0';
	unsigned cp;

	switch (c) {
	case '"': case '\\': case '/':
		buf[(*n)++] = (char)c;
		return 0;
	case 'b': buf[(*n)++] = '\b'; return 0;
	case 'f': buf[(*n)++] = '\f'; return 0;
	case 'n': buf[(*n)++] = '\n'; return 0;
	case 'r': buf[(*n)++] = '\r'; return 0;
	case 't': buf[(*n)++] = '\t'; return 0;
	case 'u':
		if (parse_u_escape(ps, &cp))
			return -1;
		put_utf8(buf, n, cp);
		return 0;
	default:
		ps->p--;
		return fail(ps, "unknown escape in a string");
	}
}

/*
 * A string at the cursor (its opening quote), decoded into *out (malloc'd,
 * owned by the caller) when out is not NULL.
 */
static int parse_string(struct parser *ps, char **out)
{
	const char *q;
	char *buf;
	size_t n = 0;

	if (ps->p >= ps->end || *ps->p != '"')
		return fail(ps, "expected a string, found %s", seen(ps));
	ps->p++;
	/* Decoding never makes a string longer than its escaped form. */
	for (q = ps->p; q < ps->end && *q != '"'; q++)
		if (*q == '\\' && q + 1 < ps->end)
			q++;
	buf = malloc((size_t)(q - ps->p) + 1);
	if (!buf)
		return fail(ps, "out of memory");
	while (ps->p < ps->end && *ps->p != '"') {
		unsigned char c = (unsigned char)*ps->p;

		if (c < 0x20) {
			fail(ps, "control character 0x%02x in a string", c);
			goto bad;
		}
		ps->p++;
		if (c != '\\')
			buf[n++] = (char)c;
		else if (parse_escape(ps, buf, &n))
			goto bad;
	}
	if (ps->p >= ps->end) {
		fail(ps, "unterminated string");
		goto bad;
	}
	ps->p++;
	buf[n] = '\0';
	if (out)
		*out = buf;
	else
		free(buf);
	return 0;
bad:
	free(buf);
	return -1;
}

static bool digit(const struct parser *ps)
{
	return ps->p < ps->end && *ps->p >= '0' && *ps->p <= '9';
}

/* A number, by RFC 8259's grammar; its value is not needed. */
static int parse_number(struct parser *ps)
{
	if (ps->p < ps->end && *ps->p == '-')
		ps->p++;
	if (!digit(ps))
		return fail(ps, "malformed number");
	if (*ps->p == '0')
		ps->p++;
	else
		while (digit(ps))
			ps->p++;
	if (ps->p < ps->end && *ps->p == '.') {
		ps->p++;
		if (!digit(ps))
			return fail(ps, "malformed number");
		while (digit(ps))
			ps->p++;
	}
	if (ps->p < ps->end && (*ps->p == 'e' || *ps->p == 'E')) {
		ps->p++;
		if (ps->p < ps->end && (*ps->p == '+' || *ps->p == '-'))
			ps->p++;
		if (!digit(ps))
			return fail(ps, "malformed number");
		while (digit(ps))
			ps->p++;
	}
	return 0;
}

static int parse_word(struct parser *ps, const char *w)
{
	size_t n = strlen(w);

	if ((size_t)(ps->end - ps->p) < n || memcmp(ps->p, w, n))
		return fail(ps, "expected a value");
	ps->p += n;
	return 0;
}

enum kind { K_NONE, K_OBJECT, K_ARRAY, K_STRING, K_NULL, K_OTHER };

/*
 * The members of an object, after its '{': each is handed to member(),
 * which parses the value (the cursor on it) or, when NULL, skipped.
 */
typedef int (*member_fn)(struct parser *ps, const char *key, void *ctx);
static int parse_value(struct parser *ps, enum kind *kind, char **str);

static int parse_object(struct parser *ps, member_fn member, void *ctx)
{
	skip_ws(ps);
	if (ps->p < ps->end && *ps->p == '}') {
		ps->p++;
		return 0;
	}
	for (;;) {
		char *key = NULL;
		int ret;

		skip_ws(ps);
		if (parse_string(ps, &key))
			return -1;
		if (expect_char(ps, ':', "':'")) {
			free(key);
			return -1;
		}
		skip_ws(ps);
		ret = member ? member(ps, key, ctx)
			     : parse_value(ps, NULL, NULL);
		free(key);
		if (ret)
			return -1;
		skip_ws(ps);
		if (ps->p < ps->end && *ps->p == ',') {
			ps->p++;
			continue;
		}
		return expect_char(ps, '}', "',' or '}'");
	}
}

typedef int (*element_fn)(struct parser *ps, void *ctx);

static int parse_array(struct parser *ps, element_fn element, void *ctx)
{
	skip_ws(ps);
	if (ps->p < ps->end && *ps->p == ']') {
		ps->p++;
		return 0;
	}
	for (;;) {
		skip_ws(ps);
		if (element ? element(ps, ctx) : parse_value(ps, NULL, NULL))
			return -1;
		skip_ws(ps);
		if (ps->p < ps->end && *ps->p == ',') {
			ps->p++;
			continue;
		}
		return expect_char(ps, ']', "',' or ']'");
	}
}

/*
 * Any value at the cursor, skipped; its kind in *kind and, for a string,
 * its text in *str (malloc'd, the caller's) when they are not NULL.
 */
static int parse_value(struct parser *ps, enum kind *kind, char **str)
{
	enum kind k = K_OTHER;
	int ret;

	skip_ws(ps);
	if (ps->p >= ps->end)
		return fail(ps, "expected a value, found the end of the file");
	switch (*ps->p) {
	case '{':
	case '[':
		if (++ps->depth > DEPTH_MAX)
			return fail(ps, "nested deeper than %d", DEPTH_MAX);
		k = *ps->p == '{' ? K_OBJECT : K_ARRAY;
		ps->p++;
		ret = k == K_OBJECT ? parse_object(ps, NULL, NULL)
				    : parse_array(ps, NULL, NULL);
		ps->depth--;
		break;
	case '"':
		k = K_STRING;
		ret = parse_string(ps, str);
		break;
	case 't':
		ret = parse_word(ps, "true");
		break;
	case 'f':
		ret = parse_word(ps, "false");
		break;
	case 'n':
		k = K_NULL;
		ret = parse_word(ps, "null");
		break;
	default:
		ret = parse_number(ps);
		break;
	}
	if (kind)
		*kind = k;
	return ret;
}

/* One files[] entry, as far as it is kept. */
struct entry_ctx {
	struct manifest_entry e;
};

/* A member that must be a string or null: *out the string or NULL. */
static int string_or_null(struct parser *ps, const char *key, char **out)
{
	const char *at = ps->p;
	enum kind k;
	char *s = NULL;

	if (parse_value(ps, &k, &s))
		return -1;
	if (k != K_STRING && k != K_NULL) {
		ps->p = at;
		return fail(ps, "files[].%s is neither a string nor null", key);
	}
	free(*out); /* a repeated key: the last one counts */
	*out = s;
	return 0;
}

static int entry_member(struct parser *ps, const char *key, void *ctx)
{
	struct manifest_entry *e = &((struct entry_ctx *)ctx)->e;

	if (!strcmp(key, "path"))
		return string_or_null(ps, key, &e->path);
	if (!strcmp(key, "gnu_build_id"))
		return string_or_null(ps, key, &e->id);
	if (!strcmp(key, "sha256"))
		return string_or_null(ps, key, &e->sha256);
	return parse_value(ps, NULL, NULL);
}

static bool is_hex(const char *s, size_t min, size_t max)
{
	size_t n = strlen(s), i;

	if (n < min || n > max || n % 2)
		return false;
	for (i = 0; i < n; i++)
		if (!strchr("0123456789abcdef", s[i]))
			return false;
	return true;
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

static int file_element(struct parser *ps, void *ctx)
{
	struct manifest *m = ctx;
	struct entry_ctx ec = { { 0 } };
	const char *at = ps->p;
	struct manifest_entry *nv;

	if (ps->p >= ps->end || *ps->p != '{') {
		if (parse_value(ps, NULL, NULL))
			return -1;
		ps->p = at;
		return fail(ps, "files[] holds something other than an object");
	}
	ps->p++;
	if (++ps->depth > DEPTH_MAX)
		return fail(ps, "nested deeper than %d", DEPTH_MAX);
	if (parse_object(ps, entry_member, &ec))
		goto bad;
	ps->depth--;
	lower(ec.e.id);
	lower(ec.e.sha256);
	if (ec.e.id && !is_hex(ec.e.id, 2, 2 * EBID_MAX_ID)) {
		ps->p = at;
		fail(ps, "files[].gnu_build_id '%.80s' is not 1 to %d bytes of hex",
		     ec.e.id, EBID_MAX_ID);
		goto bad;
	}
	if (ec.e.sha256 && !is_hex(ec.e.sha256, 64, 64)) {
		ps->p = at;
		fail(ps, "files[].sha256 '%.80s' is not 64 hex digits",
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
		fail(ps, "a files[] entry with a gnu_build_id has no path");
		goto bad;
	}
	nv = realloc(m->entries, (m->nentries + 1) * sizeof(*nv));
	if (!nv) {
		fail(ps, "out of memory");
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

static int top_member(struct parser *ps, const char *key, void *ctx)
{
	struct top_ctx *t = ctx;
	const char *at = ps->p;
	int ret;

	if (!strcmp(key, "tool")) {
		char *s = NULL;
		enum kind k;

		if (parse_value(ps, &k, &s))
			return -1;
		t->tool = k == K_STRING && !strcmp(s, "elf-buildid");
		free(s);
		if (!t->tool) {
			ps->p = at;
			return fail(ps, "\"tool\" is not \"elf-buildid\": not a manifest of elf-buildid");
		}
		return 0;
	}
	if (strcmp(key, "files"))
		return parse_value(ps, NULL, NULL);
	if (t->files)
		return fail(ps, "\"files\" given twice");
	if (ps->p >= ps->end || *ps->p != '[')
		return fail(ps, "\"files\" is not an array");
	t->files = true;
	ps->p++;
	if (++ps->depth > DEPTH_MAX)
		return fail(ps, "nested deeper than %d", DEPTH_MAX);
	ret = parse_array(ps, file_element, t->m);
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
	struct parser ps = { text, text, text + len, 0, err, errlen, false };
	struct top_ctx t = { m, false, false };

	m->entries = NULL;
	m->nentries = 0;
	skip_ws(&ps);
	if (ps.p >= ps.end || *ps.p != '{') {
		fail(&ps, "expected a JSON object, found %s", seen(&ps));
		goto bad;
	}
	ps.p++;
	ps.depth = 1;
	if (parse_object(&ps, top_member, &t))
		goto bad;
	skip_ws(&ps);
	if (ps.p < ps.end) {
		fail(&ps, "text after the JSON document");
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
