/* SPDX-License-Identifier: MIT */
/* Output helpers: report files, JSON and XML escaping, per-file facts. */
#include <errno.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "cli/cli.h"

/* Length of the valid UTF-8 sequence at s, or 0 if it is not one. */
static size_t utf8_len(const unsigned char *s)
{
	size_t n, i;
	uint32_t c;

	if (s[0] < 0x80)
		return 1;
	if ((s[0] & 0xe0) == 0xc0)
		n = 2, c = s[0] & 0x1f;
	else if ((s[0] & 0xf0) == 0xe0)
		n = 3, c = s[0] & 0x0f;
	else if ((s[0] & 0xf8) == 0xf0)
		n = 4, c = s[0] & 0x07;
	else
		return 0;
	for (i = 1; i < n; i++) {
		if ((s[i] & 0xc0) != 0x80)
			return 0;
		c = c << 6 | (s[i] & 0x3f);
	}
	if ((n == 2 && c < 0x80) || (n == 3 && c < 0x800) ||
	    (n == 4 && (c < 0x10000 || c > 0x10ffff)) ||
	    (c >= 0xd800 && c <= 0xdfff))
		return 0;
	return n;
}

/*
 * A JSON string. Bytes that are not UTF-8 (file names may hold any byte)
 * are written as lone surrogates \udcXX, the "surrogateescape" convention:
 * Python's os.fsencode(json.loads(...)) gives the original bytes back.
 */
void json_str(FILE *f, const char *str)
{
	const unsigned char *s = (const unsigned char *)(str ? str : "");

	if (!str) {
		fputs("null", f);
		return;
	}
	fputc('"', f);
	while (*s) {
		size_t n = utf8_len(s);

		if (!n) {
			fprintf(f, "\\udc%02x", *s++);
		} else if (*s == '"' || *s == '\\') {
			fprintf(f, "\\%c", *s++);
		} else if (*s < 0x20) {
			fprintf(f, "\\u%04x", *s++);
		} else {
			fwrite(s, 1, n, f);
			s += n;
		}
	}
	fputc('"', f);
}

/* XML text or attribute content; invalid bytes become U+FFFD. */
void xml_str(FILE *f, const char *str)
{
	const unsigned char *s = (const unsigned char *)str;

	while (*s) {
		size_t n = utf8_len(s);

		if (!n || (*s < 0x20 && *s != '\t' && *s != '\n')) {
			fputs("\xef\xbf\xbd", f);
			s++;
			continue;
		}
		switch (*s) {
		case '&': fputs("&amp;", f); break;
		case '<': fputs("&lt;", f); break;
		case '>': fputs("&gt;", f); break;
		case '"': fputs("&quot;", f); break;
		case '\'': fputs("&apos;", f); break;
		case '\n': fputs("&#10;", f); break;
		default: fwrite(s, 1, n, f); break;
		}
		s += n;
	}
}

/*
 * An OpenMetrics label value, without its quotes. A path may hold any
 * byte, the format only UTF-8: the value is the path with each byte that
 * is not UTF-8 written as the text \xHH and each backslash doubled, so
 * that one value reads back to one path (two paths never share a label
 * set). Then the format's escapes: backslash, double quote, newline.
 */
void om_str(FILE *f, const char *str)
{
	const unsigned char *s = (const unsigned char *)str;

	while (*s) {
		size_t n = utf8_len(s);

		if (!n) {
			fprintf(f, "\\\\x%02x", *s++);
		} else if (*s == '\\') {
			fputs("\\\\\\\\", f);
			s++;
		} else if (*s == '"' || *s == '\n') {
			fputs(*s == '"' ? "\\\"" : "\\n", f);
			s++;
		} else {
			fwrite(s, 1, n, f);
			s += n;
		}
	}
}

void fill_elf_facts(struct result *r, const struct ebid_elf *elf)
{
	r->have_elf = true;
	r->machine = elf->machine;
	r->elfclass = elf->elfclass;
	r->data = elf->data;
	r->size = (unsigned long long)elf->file_size;
	if (elf->go.present) {
		size_t n = elf->go.desc_len < EBID_GO_ID_MAX
				   ? elf->go.desc_len
				   : EBID_GO_ID_MAX;

		memcpy(r->go_id, elf->go.desc, n);
		r->go_id[n] = '\0';
		r->go_derived = ebid_go_derived(elf);
	}
}

FILE *report_open(const char *path, const char *what, char **tmp)
{
	FILE *f;

	if (asprintf(tmp, "%s.tmp", path) < 0) {
		*tmp = NULL;
		fprintf(stderr, "%s: '%s': cannot write %s: %s\n", progname,
			path, what, strerror(ENOMEM));
		return NULL;
	}
	f = fopen(*tmp, "w");
	if (!f) {
		fprintf(stderr, "%s: '%s': cannot write %s: %s\n", progname,
			path, what, strerror(errno));
		free(*tmp);
		*tmp = NULL;
	}
	return f;
}

int report_close(FILE *f, const char *path, const char *what, char *tmp)
{
	int err = 0;

	if (fflush(f) || ferror(f) || fsync(fileno(f)))
		err = errno ? errno : EIO;
	/* Closed whatever happened before: the FILE is never leaked. */
	if (fclose(f) && !err)
		err = errno;
	if (!err && rename(tmp, path))
		err = errno;
	if (err) {
		fprintf(stderr, "%s: '%s': cannot write %s: %s\n", progname,
			path, what, strerror(err));
		unlink(tmp);
	}
	free(tmp);
	return err ? -1 : 0;
}

const char *check_word(enum check_status s)
{
	static const char *const words[] = { "pass", "fail", "skip" };

	return words[s];
}

const char *outcome_word(enum outcome o)
{
	static const char *const words[] = {
		[OUT_NONE] = "none",         [OUT_INJECTED] = "injected",
		[OUT_BACKFILLED] = "backfilled", [OUT_REPAIRED] = "repaired",
		[OUT_RESERVED] = "reserved", [OUT_UNCHANGED] = "unchanged",
		[OUT_LINKED] = "linked",     [OUT_PASS] = "pass",
		[OUT_FAIL] = "fail",         [OUT_SKIPPED] = "skipped",
		[OUT_FAILED] = "failed",
	};

	return words[o];
}

bool is_hex(const char *s, size_t min, size_t max)
{
	size_t n = strlen(s), i;

	if (n < min || n > max || n % 2)
		return false;
	for (i = 0; i < n; i++)
		if (!strchr("0123456789abcdef", s[i]))
			return false;
	return true;
}
