/* SPDX-License-Identifier: MIT */
/* Small shared helpers: error formatting, byte order, hex, full reads. */
#include <errno.h>
#include <fnmatch.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "internal.h"

int ebid_err(char *err, size_t errlen, int code, const char *fmt, ...)
{
	va_list ap;

	if (err && errlen) {
		va_start(ap, fmt);
		vsnprintf(err, errlen, fmt, ap);
		va_end(ap);
	}
	return code;
}

const char *ebid_strerror(int code)
{
	switch (code < 0 ? -code : code) {
	case EBID_ENOTELF: return "not an ELF file";
	case EBID_EMALFORMED: return "malformed ELF";
	case EBID_ENOROOM: return "no safe placement for the note";
	case EBID_ENOTE: return "the note does not allow this command";
	case EBID_ECHANGED: return "file changed while it was being processed";
	case EBID_EVERIFY: return "self-check of the output failed";
	case EBID_ELOCKED: return "locked by another process";
	case EBID_ENOTPROG: return "not a program or shared library";
	case EBID_EBUS: return "file shrank or could not be read while mapped";
	default: return strerror(code < 0 ? -code : code);
	}
}

bool ebid_glob_match(const char *const *globs, size_t n, const char *path)
{
	const char *base = strrchr(path, '/');
	size_t i;

	base = base ? base + 1 : path;
	for (i = 0; i < n; i++)
		if (!fnmatch(globs[i], path, 0) || !fnmatch(globs[i], base, 0))
			return true;
	return false;
}

uint64_t ebid_get(const unsigned char *p, size_t width, unsigned char data)
{
	uint64_t v = 0;
	size_t i;

	for (i = 0; i < width; i++) {
		size_t k = data == 2 /* ELFDATA2MSB */ ? i : width - 1 - i;

		v = (v << 8) | p[k];
	}
	return v;
}

void ebid_put(unsigned char *p, size_t width, uint64_t v, unsigned char data)
{
	size_t i;

	for (i = 0; i < width; i++) {
		size_t k = data == 2 ? width - 1 - i : i;

		p[k] = (unsigned char)(v & 0xff);
		v >>= 8;
	}
}

void ebid_hex(char *hex, const unsigned char *bytes, size_t len)
{
	static const char digits[] = "0123456789abcdef";
	size_t i;

	for (i = 0; i < len; i++) {
		hex[2 * i] = digits[bytes[i] >> 4];
		hex[2 * i + 1] = digits[bytes[i] & 15];
	}
	hex[2 * len] = '\0';
}

static int hexval(char c)
{
	if (c >= '0' && c <= '9')
		return c - '0';
	if (c >= 'a' && c <= 'f')
		return c - 'a' + 10;
	if (c >= 'A' && c <= 'F')
		return c - 'A' + 10;
	return -1;
}

int ebid_unhex(const char *s, unsigned char *out, size_t max, size_t *len)
{
	size_t n, i;

	if (s[0] == '0' && (s[1] == 'x' || s[1] == 'X'))
		s += 2;
	n = strlen(s);
	if (n == 0 || n % 2 || n / 2 > max)
		return -EINVAL;
	for (i = 0; i < n / 2; i++) {
		int hi = hexval(s[2 * i]), lo = hexval(s[2 * i + 1]);

		if (hi < 0 || lo < 0)
			return -EINVAL;
		out[i] = (unsigned char)(hi << 4 | lo);
	}
	*len = n / 2;
	return 0;
}

bool ebid_all_zero(const unsigned char *p, size_t len)
{
	size_t i;

	for (i = 0; i < len; i++)
		if (p[i])
			return false;
	return true;
}

int ebid_pread_full(int fd, void *buf, size_t len, uint64_t off)
{
	unsigned char *p = buf;

	while (len) {
		ssize_t n = pread(fd, p, len, (off_t)off);

		if (n < 0 && errno == EINTR)
			continue;
		if (n <= 0)
			return n < 0 ? -errno : -EIO; /* EOF: shrank under us */
		p += n;
		off += (uint64_t)n;
		len -= (size_t)n;
	}
	return 0;
}

int ebid_pwrite_full(int fd, const void *buf, size_t len, uint64_t off)
{
	const unsigned char *p = buf;

	while (len) {
		ssize_t n = pwrite(fd, p, len, (off_t)off);

		if (n < 0 && errno == EINTR)
			continue;
		if (n <= 0)
			return n < 0 ? -errno : -EIO; /* no progress */
		p += n;
		off += (uint64_t)n;
		len -= (size_t)n;
	}
	return 0;
}

int ebid_src_read(const struct ebid_src *src, uint64_t off, void *buf,
		  size_t len)
{
	if (off > src->size || len > src->size - off)
		return -EINVAL;
	if (src->fd < 0) {
		memcpy(buf, src->mem + off, len);
		return 0;
	}
	return ebid_pread_full(src->fd, buf, len, off);
}

/*
 * The hash algorithms' names and id lengths: what the planner (the note's
 * size), id/ (the digests) and the command line (--hash) all need.
 */
static const struct {
	const char *name;
	size_t id_len;
} algs[] = {
	[EBID_HASH_SHA1] = { "sha1", 20 },
	[EBID_HASH_SHA256] = { "sha256", 20 }, /* truncated: ids cap at 20 */
	[EBID_HASH_MD5] = { "md5", 16 },
	[EBID_HASH_SHA1_TREE] = { "sha1-tree", 20 },
};

size_t ebid_hash_id_len(enum ebid_hash_alg alg)
{
	return (unsigned)alg < ARRAY_SIZE(algs) ? algs[alg].id_len : 0;
}

const char *ebid_hash_name(enum ebid_hash_alg alg)
{
	return (unsigned)alg < ARRAY_SIZE(algs) ? algs[alg].name : "?";
}

int ebid_hash_parse(const char *name, enum ebid_hash_alg *alg)
{
	size_t i;

	for (i = 0; i < ARRAY_SIZE(algs); i++)
		if (!strcmp(name, algs[i].name)) {
			*alg = (enum ebid_hash_alg)i;
			return 0;
		}
	return -EINVAL;
}
