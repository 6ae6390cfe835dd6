/* SPDX-License-Identifier: MIT */
/*
 * A whole JSON parser (RFC 8259: objects, arrays, strings with every
 * escape, numbers, true, false, null, nested to a bounded depth), driven by
 * callbacks: any valid document is read and any invalid one refused with
 * the line and column where it went wrong. The manifest reader
 * (manifest.c) and the OCI image reader (artifact_oci.c) keep what they
 * need of a document through it.
 */
#ifndef EBID_CLI_JSON_H
#define EBID_CLI_JSON_H
#include <stdbool.h>
#include <stddef.h>

#define JSON_DEPTH_MAX 64

struct json {
	const char *p, *start, *end;
	int depth;
	char *err;
	size_t errlen;
	bool failed;
};

enum json_kind { JSON_NONE, JSON_OBJECT, JSON_ARRAY, JSON_STRING, JSON_NULL, JSON_OTHER };

/*
 * The members of an object, after its '{': each is handed to member(),
 * which parses the value (the cursor on it) or, when NULL, skipped.
 */
typedef int (*json_member_fn)(struct json *ps, const char *key, void *ctx);
typedef int (*json_element_fn)(struct json *ps, void *ctx);

/* A parser over text[0, len), errors into err. */
void json_init(struct json *ps, const char *text, size_t len, char *err,
	       size_t errlen);
/* Records the first error, with the line and column where it was found. */
int json_fail(struct json *ps, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));
void json_skip_ws(struct json *ps);
/* What is at the cursor, for a message. */
const char *json_seen(const struct json *ps);
int json_expect(struct json *ps, char c, const char *what);
int json_object(struct json *ps, json_member_fn member, void *ctx);
int json_array(struct json *ps, json_element_fn element, void *ctx);
/*
 * Any value at the cursor, skipped; its kind in *kind and, for a string,
 * its text in *str (malloc'd, the caller's) when they are not NULL.
 */
int json_value(struct json *ps, enum json_kind *kind, char **str);
/*
 * The object (open '{') or array (open '[') at the cursor, its members or
 * elements handed to fn: what names it in the message when it is not one.
 */
int json_enter_object(struct json *ps, json_member_fn fn, void *ctx,
		      const char *what);
int json_enter_array(struct json *ps, json_element_fn fn, void *ctx,
		     const char *what);
/* A string at the cursor (*out malloc'd), or a message naming what. */
int json_string(struct json *ps, char **out, const char *what);
/* Nothing but white space after the document. */
int json_finish(struct json *ps);
#endif
