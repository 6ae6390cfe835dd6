/* SPDX-License-Identifier: MIT */
/* The JSON parser (json.h). */
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli/json.h"

void json_init(struct json *ps, const char *text, size_t len, char *err,
	       size_t errlen)
{
	memset(ps, 0, sizeof(*ps));
	ps->p = ps->start = text;
	ps->end = text + len;
	ps->err = err;
	ps->errlen = errlen;
}

/* Records the first error, with the line and column where it was found. */
int json_fail(struct json *ps, const char *fmt, ...)
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

void json_skip_ws(struct json *ps)
{
	while (ps->p < ps->end && (*ps->p == ' ' || *ps->p == '\t' ||
				   *ps->p == '\n' || *ps->p == '\r'))
		ps->p++;
}

/* What is at the cursor, for a message. */
const char *json_seen(const struct json *ps)
{
	return ps->p >= ps->end ? "the end of the file" : "something else";
}

int json_expect(struct json *ps, char c, const char *what)
{
	json_skip_ws(ps);
	if (ps->p >= ps->end || *ps->p != c)
		return json_fail(ps, "expected %s, found %s", what, json_seen(ps));
	ps->p++;
	return 0;
}

static int hex4(struct json *ps, unsigned *v)
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
			return json_fail(ps, "\\u needs four hex digits");
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
static int parse_u_escape(struct json *ps, unsigned *cp)
{
	unsigned lo;

	if (hex4(ps, cp))
		return -1;
	if (*cp >= 0xdc00 && *cp <= 0xdfff)
		return json_fail(ps, "lone low surrogate \\u%04x", *cp);
	if (*cp >= 0xd800 && *cp <= 0xdbff) {
		if (ps->end - ps->p < 2 || ps->p[0] != '\\' || ps->p[1] != 'u')
			return json_fail(ps, "high surrogate \\u%04x without its low half",
				    *cp);
		ps->p += 2;
		if (hex4(ps, &lo))
			return -1;
		if (lo < 0xdc00 || lo > 0xdfff)
			return json_fail(ps, "high surrogate \\u%04x without its low half",
				    *cp);
		*cp = 0x10000 + ((*cp - 0xd800) << 10) + (lo - 0xdc00);
	}
	if (!*cp)
		return json_fail(ps, "\\u0000 in a string");
	return 0;
}

/*
 * One escape (the cursor after the backslash), decoded onto buf at *n:
 * 0, or -1 with the failure recorded.
 */
static int parse_escape(struct json *ps, char *buf, size_t *n)
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
		return json_fail(ps, "unknown escape in a string");
	}
}

/*
 * A string at the cursor (its opening quote), decoded into *out (malloc'd,
 * owned by the caller) when out is not NULL.
 */
static int parse_string(struct json *ps, char **out)
{
	const char *q;
	char *buf;
	size_t n = 0;

	if (ps->p >= ps->end || *ps->p != '"')
		return json_fail(ps, "expected a string, found %s", json_seen(ps));
	ps->p++;
	/* Decoding never makes a string longer than its escaped form. */
	for (q = ps->p; q < ps->end && *q != '"'; q++)
		if (*q == '\\' && q + 1 < ps->end)
			q++;
	buf = malloc((size_t)(q - ps->p) + 1);
	if (!buf)
		return json_fail(ps, "out of memory");
	while (ps->p < ps->end && *ps->p != '"') {
		unsigned char c = (unsigned char)*ps->p;

		if (c < 0x20) {
			json_fail(ps, "control character 0x%02x in a string", c);
			goto bad;
		}
		ps->p++;
		if (c != '\\')
			buf[n++] = (char)c;
		else if (parse_escape(ps, buf, &n))
			goto bad;
	}
	if (ps->p >= ps->end) {
		json_fail(ps, "unterminated string");
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

static bool digit(const struct json *ps)
{
	return ps->p < ps->end && *ps->p >= '0' && *ps->p <= '9';
}

/* A number, by RFC 8259's grammar; its value is not needed. */
static int parse_number(struct json *ps)
{
	if (ps->p < ps->end && *ps->p == '-')
		ps->p++;
	if (!digit(ps))
		return json_fail(ps, "malformed number");
	if (*ps->p == '0')
		ps->p++;
	else
		while (digit(ps))
			ps->p++;
	if (ps->p < ps->end && *ps->p == '.') {
		ps->p++;
		if (!digit(ps))
			return json_fail(ps, "malformed number");
		while (digit(ps))
			ps->p++;
	}
	if (ps->p < ps->end && (*ps->p == 'e' || *ps->p == 'E')) {
		ps->p++;
		if (ps->p < ps->end && (*ps->p == '+' || *ps->p == '-'))
			ps->p++;
		if (!digit(ps))
			return json_fail(ps, "malformed number");
		while (digit(ps))
			ps->p++;
	}
	return 0;
}

static int parse_word(struct json *ps, const char *w)
{
	size_t n = strlen(w);

	if ((size_t)(ps->end - ps->p) < n || memcmp(ps->p, w, n))
		return json_fail(ps, "expected a value");
	ps->p += n;
	return 0;
}


/*
 * The members of an object, after its '{': each is handed to member(),
 * which parses the value (the cursor on it) or, when NULL, skipped.
 */

int json_object(struct json *ps, json_member_fn member, void *ctx)
{
	json_skip_ws(ps);
	if (ps->p < ps->end && *ps->p == '}') {
		ps->p++;
		return 0;
	}
	for (;;) {
		char *key = NULL;
		int ret;

		json_skip_ws(ps);
		if (parse_string(ps, &key))
			return -1;
		if (json_expect(ps, ':', "':'")) {
			free(key);
			return -1;
		}
		json_skip_ws(ps);
		ret = member ? member(ps, key, ctx)
			     : json_value(ps, NULL, NULL);
		free(key);
		if (ret)
			return -1;
		json_skip_ws(ps);
		if (ps->p < ps->end && *ps->p == ',') {
			ps->p++;
			continue;
		}
		return json_expect(ps, '}', "',' or '}'");
	}
}


int json_array(struct json *ps, json_element_fn element, void *ctx)
{
	json_skip_ws(ps);
	if (ps->p < ps->end && *ps->p == ']') {
		ps->p++;
		return 0;
	}
	for (;;) {
		json_skip_ws(ps);
		if (element ? element(ps, ctx) : json_value(ps, NULL, NULL))
			return -1;
		json_skip_ws(ps);
		if (ps->p < ps->end && *ps->p == ',') {
			ps->p++;
			continue;
		}
		return json_expect(ps, ']', "',' or ']'");
	}
}

/*
 * Any value at the cursor, skipped; its kind in *kind and, for a string,
 * its text in *str (malloc'd, the caller's) when they are not NULL.
 */
int json_value(struct json *ps, enum json_kind *kind, char **str)
{
	enum json_kind k = JSON_OTHER;
	int ret;

	json_skip_ws(ps);
	if (ps->p >= ps->end)
		return json_fail(ps, "expected a value, found the end of the file");
	switch (*ps->p) {
	case '{':
	case '[':
		if (++ps->depth > JSON_DEPTH_MAX)
			return json_fail(ps, "nested deeper than %d", JSON_DEPTH_MAX);
		k = *ps->p == '{' ? JSON_OBJECT : JSON_ARRAY;
		ps->p++;
		ret = k == JSON_OBJECT ? json_object(ps, NULL, NULL)
				    : json_array(ps, NULL, NULL);
		ps->depth--;
		break;
	case '"':
		k = JSON_STRING;
		ret = parse_string(ps, str);
		break;
	case 't':
		ret = parse_word(ps, "true");
		break;
	case 'f':
		ret = parse_word(ps, "false");
		break;
	case 'n':
		k = JSON_NULL;
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

static int enter(struct json *ps, char open, const char *what)
{
	const char *at = ps->p;

	json_skip_ws(ps);
	if (ps->p >= ps->end || *ps->p != open) {
		if (json_value(ps, NULL, NULL))
			return -1;
		ps->p = at;
		return json_fail(ps, "%s is not %s", what,
				 open == '{' ? "an object" : "an array");
	}
	ps->p++;
	if (++ps->depth > JSON_DEPTH_MAX)
		return json_fail(ps, "nested deeper than %d", JSON_DEPTH_MAX);
	return 0;
}

int json_enter_object(struct json *ps, json_member_fn fn, void *ctx,
		      const char *what)
{
	if (enter(ps, '{', what) || json_object(ps, fn, ctx))
		return -1;
	ps->depth--;
	return 0;
}

int json_enter_array(struct json *ps, json_element_fn fn, void *ctx,
		     const char *what)
{
	if (enter(ps, '[', what) || json_array(ps, fn, ctx))
		return -1;
	ps->depth--;
	return 0;
}

int json_string(struct json *ps, char **out, const char *what)
{
	const char *at = ps->p;
	enum json_kind k;
	char *s = NULL;

	if (json_value(ps, &k, &s))
		return -1;
	if (k != JSON_STRING) {
		ps->p = at;
		return json_fail(ps, "%s is not a string", what);
	}
	free(*out); /* a repeated key: the last one counts */
	*out = s;
	return 0;
}

int json_finish(struct json *ps)
{
	json_skip_ws(ps);
	if (ps->p < ps->end)
		return json_fail(ps, "text after the JSON document");
	return 0;
}
