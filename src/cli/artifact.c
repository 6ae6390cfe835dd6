/* SPDX-License-Identifier: MIT */
/*
 * Reading artifacts (artifact.h): the sources libarchive reads from, the
 * members, the limits. The OCI image layout is artifact_oci.c's.
 */
#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>
#include <zlib.h>

#include "cli/artifact_impl.h"

const char *artifact_kind_name(enum artifact_kind k)
{
	switch (k) {
	case ART_DEB:
		return "Debian package";
	case ART_RPM:
		return "RPM package";
	case ART_TAR:
		return "tarball";
	case ART_OCI_DIR:
		return "OCI image layout";
	default:
		return "file";
	}
}

enum artifact_kind artifact_sniff(int fd, const struct stat *st)
{
	static const unsigned char gz[] = { 0x1f, 0x8b },
				   xz[] = { 0xfd, '7', 'z', 'X', 'Z', 0 },
				   zst[] = { 0x28, 0xb5, 0x2f, 0xfd },
				   rpm[] = { 0xed, 0xab, 0xee, 0xdb };
	unsigned char b[512];
	ssize_t n;

	if (S_ISDIR(st->st_mode))
		return faccessat(fd, "oci-layout", F_OK, AT_SYMLINK_NOFOLLOW)
			       ? ART_NONE
			       : ART_OCI_DIR;
	if (!S_ISREG(st->st_mode))
		return ART_NONE;
	n = pread(fd, b, sizeof(b), 0);
	if (n < 4)
		return ART_NONE;
	if (n >= 21 && !memcmp(b, "!<arch>\ndebian-binary", 21))
		return ART_DEB;
	if (!memcmp(b, rpm, sizeof(rpm)))
		return ART_RPM;
	if (!memcmp(b, gz, sizeof(gz)) || !memcmp(b, zst, sizeof(zst)) ||
	    (n >= 6 && !memcmp(b, xz, sizeof(xz))) ||
	    (n >= 4 && !memcmp(b, "BZh", 3) && b[3] >= '1' && b[3] <= '9'))
		return ART_TAR;
	if (n == 512 && !memcmp(b + 257, "ustar", 5))
		return ART_TAR;
	return ART_NONE;
}

/* SIZE with an optional K, M, G or T (powers of 1024). */
static int parse_size(const char *s, unsigned long long *v)
{
	char *end;
	unsigned long long n;
	int shift = 0;

	errno = 0;
	n = strtoull(s, &end, 10);
	if (errno || end == s || *s == '-')
		return -1;
	switch (*end) {
	case 'K':
		shift = 10;
		break;
	case 'M':
		shift = 20;
		break;
	case 'G':
		shift = 30;
		break;
	case 'T':
		shift = 40;
		break;
	case '\0':
		break;
	default:
		return -1;
	}
	if (*end && end[1])
		return -1;
	if (shift && n > (~0ull >> shift))
		return -1;
	*v = n << shift;
	return 0;
}

int artifact_limit_set(struct artifact_limits *l, const char *arg, char *err,
		       size_t errlen)
{
	static const char *const keys[] = { "member", "unpacked", "ratio",
					    "members" };
	unsigned long long *fields[] = { &l->member, &l->unpacked, &l->ratio,
			       &l->members };
	const char *eq = strchr(arg, '=');
	size_t i;

	for (i = 0; eq && i < 4; i++) {
		if (strlen(keys[i]) != (size_t)(eq - arg) ||
		    strncmp(arg, keys[i], (size_t)(eq - arg)))
			continue;
		if (parse_size(eq + 1, fields[i]) || !*fields[i]) {
			snprintf(err, errlen,
				 "--limit %s: '%s' is not a positive size",
				 keys[i], eq + 1);
			return -1;
		}
		return 0;
	}
	snprintf(err, errlen,
		 "--limit '%s': expected member=SIZE, unpacked=SIZE, ratio=N or members=N",
		 arg);
	return -1;
}

#ifndef EBID_STATIC
/* The set of strings (artifact_impl.h): open addressing, FNV-1a. */
static uint64_t fnv(const char *s)
{
	uint64_t h = 1469598103934665603ull;

	for (; *s; s++)
		h = (h ^ (unsigned char)*s) * 1099511628211ull;
	return h;
}

bool art_set_has(const struct strset *s, const char *k)
{
	size_t i;

	if (!s->cap)
		return false;
	for (i = fnv(k) & (s->cap - 1); s->v[i]; i = (i + 1) & (s->cap - 1))
		if (!strcmp(s->v[i], k))
			return true;
	return false;
}

int art_set_add(struct strset *s, const char *k)
{
	size_t i;

	if (art_set_has(s, k))
		return 0;
	if (2 * (s->n + 1) > s->cap) {
		struct strset g = { calloc(s->cap ? 2 * s->cap : 64,
					   sizeof(char *)),
				    s->cap ? 2 * s->cap : 64, 0 };

		if (!g.v)
			return -1;
		for (i = 0; i < s->cap; i++)
			if (s->v[i] && art_set_add(&g, s->v[i]))
				return -1;
		for (i = 0; i < s->cap; i++)
			free(s->v[i]);
		free(s->v);
		*s = g;
	}
	for (i = fnv(k) & (s->cap - 1); s->v[i]; i = (i + 1) & (s->cap - 1))
		;
	s->v[i] = strdup(k);
	if (!s->v[i])
		return -1;
	s->n++;
	return 0;
}

void art_set_free(struct strset *s)
{
	size_t i;

	for (i = 0; i < s->cap; i++)
		free(s->v[i]);
	free(s->v);
	memset(s, 0, sizeof(*s));
}

/* What every read callback does with the bytes it hands on. */
static void stream_saw(struct art_stream *s, const unsigned char *p, size_t n)
{
	size_t k = n < 8 ? n : 8;

	if (s->md && n)
		EVP_DigestUpdate(s->md, p, n);
	if (s->crc_on && n)
		s->crc = (uint32_t)crc32(s->crc, p, (uInt)n);
	memmove(s->tail, s->tail + k, 8 - k);
	memcpy(s->tail + 8 - k, p + n - k, k);
	s->nread += n;
}

/* libarchive's read callback over a range of a descriptor (pread). */
la_ssize_t art_range_read(struct archive *a, void *ud, const void **out)
{
	struct art_stream *s = ud;
	size_t want = sizeof(s->buf);
	ssize_t n;

	if (s->off >= s->end) {
		*out = s->buf;
		return 0;
	}
	if ((uint64_t)want > s->end - s->off)
		want = (size_t)(s->end - s->off);
	do
		n = pread(s->fd, s->buf, want, (off_t)s->off);
	while (n < 0 && errno == EINTR);
	if (n < 0) {
		if (a)
			archive_set_error(a, errno, "read: %s",
					  strerror(errno));
		return -1;
	}
	s->off += (uint64_t)n;
	stream_saw(s, s->buf, (size_t)n);
	*out = s->buf;
	return n;
}

/* Skipping forward without reading, where no digest needs the bytes. */
static la_int64_t range_skip(struct archive *a, void *ud, la_int64_t req)
{
	struct art_stream *s = ud;
	uint64_t left = s->end - s->off;

	(void)a;
	if (s->md || req <= 0)
		return 0;
	if ((uint64_t)req > left)
		req = (la_int64_t)left;
	s->off += (uint64_t)req;
	return req;
}

/*
 * The read callback over the current member of a parent archive: its
 * blocks as the parent holds them (archive_read_data_block, no copy). A
 * member with holes (a sparse tar entry) is not a stream: refused.
 */
la_ssize_t art_nested_read(struct archive *a, void *ud, const void **out)
{
	struct art_stream *s = ud;
	const void *p = NULL;
	size_t n = 0;
	la_int64_t off = 0;
	int ret = archive_read_data_block(s->parent, &p, &n, &off);

	if (ret == ARCHIVE_EOF) {
		*out = s->buf;
		return 0;
	}
	if (ret < ARCHIVE_WARN || (uint64_t)off != s->nread) {
		if (a)
			archive_set_error(a, EIO, "%s",
					  ret < ARCHIVE_WARN &&
							  archive_error_string(s->parent)
						  ? archive_error_string(s->parent)
						  : "a member with holes (sparse) is no stream");
		return -1;
	}
	stream_saw(s, p, n);
	*out = p;
	return (la_ssize_t)n;
}

la_ssize_t art_stream_next(struct art_stream *s, const void **p)
{
	return s->parent ? art_nested_read(NULL, s, p)
			 : art_range_read(NULL, s, p);
}

/* Reads what the archive did not, so that a digest covers every byte. */
int art_stream_drain(struct art_stream *s)
{
	const void *p;
	la_ssize_t n;

	while ((n = art_stream_next(s, &p)) > 0)
		;
	return n < 0 ? -1 : 0;
}

/*
 * Opens a over s: a member of a parent archive, or a range of a
 * descriptor (skipped over where no digest needs its bytes).
 */
static int stream_open(struct archive *a, struct art_stream *s)
{
	if (s->parent)
		return archive_read_open(a, s, NULL, art_nested_read, NULL);
	archive_read_set_callback_data(a, s);
	archive_read_set_read_callback(a, art_range_read);
	archive_read_set_skip_callback(a, range_skip);
	return archive_read_open1(a);
}

struct archive *art_open(struct art_stream *s, enum art_formats f,
			 char *err, size_t errlen)
{
	struct archive *a = archive_read_new();
	int ret;

	if (!a) {
		snprintf(err, errlen, "out of memory");
		return NULL;
	}
	archive_read_support_filter_all(a);
	if (f & ART_FMT_TAR)
		archive_read_support_format_tar(a);
	if (f & ART_FMT_CPIO)
		archive_read_support_format_cpio(a);
	if (f & ART_FMT_AR)
		archive_read_support_format_ar(a);
	if (f & ART_FMT_EMPTY)
		archive_read_support_format_empty(a);
	ret = stream_open(a, s);
	if (ret != ARCHIVE_OK) {
		snprintf(err, errlen, "%s",
			 archive_error_string(a)
				 ? archive_error_string(a)
				 : "its first bytes are no readable archive (truncated or corrupt)");
		archive_read_free(a);
		return NULL;
	}
	return a;
}

/*
 * A member's name as printed: "./" and "." parts dropped, '//' as '/'.
 * -1 (why in err) for an absolute name or a ".." part: such a name means
 * a place outside wherever the archive would be unpacked.
 */
int art_member_name(const char *raw, char *out, size_t outlen, char *err,
		    size_t errlen)
{
	const char *p = raw;
	size_t n = 0;

	if (*raw == '/') {
		snprintf(err, errlen, "member '%.200s' has an absolute name",
			 raw);
		return -1;
	}
	while (*p) {
		const char *e = strchr(p, '/');
		size_t len = e ? (size_t)(e - p) : strlen(p);

		if (len == 2 && !strncmp(p, "..", 2)) {
			snprintf(err, errlen,
				 "member '%.200s' has a '..' in its name", raw);
			return -1;
		}
		if (len && !(len == 1 && *p == '.')) {
			if (n + len + 2 > outlen) {
				snprintf(err, errlen,
					 "member name '%.100s...' too long",
					 raw);
				return -1;
			}
			if (n)
				out[n++] = '/';
			memcpy(out + n, p, len);
			n += len;
		}
		p += len + (e ? 1 : 0);
	}
	out[n] = '\0';
	return 0;
}

struct result *art_push(struct art *A, const char *member)
{
	struct result *v, *r;

	if (A->r->nmembers == A->cap) {
		size_t cap = A->cap ? 2 * A->cap : 16;

		v = realloc(A->r->members, cap * sizeof(*v));
		if (!v)
			return NULL;
		A->r->members = v;
		A->cap = cap;
	}
	r = &A->r->members[A->r->nmembers];
	memset(r, 0, sizeof(*r));
	if (asprintf((char **)&r->path, "%s%s:%s", A->name, A->platform,
		     member) < 0)
		return NULL;
	r->member_at = strlen(A->name) + strlen(A->platform) + 1;
	snprintf(r->layer, sizeof(r->layer), "%s", A->layer);
	A->r->nmembers++;
	return r;
}

int art_fail(struct art *A, const char *fmt, ...)
{
	va_list ap;

	if (A->err[0])
		return -1;
	va_start(ap, fmt);
	vsnprintf(A->err, sizeof(A->err), fmt, ap);
	va_end(ap);
	return -1;
}

/*
 * The limits, on the size a member's header declares, before any of it
 * is unpacked: -1 when the artifact must not be read on.
 */
static int art_account(struct art *A, const char *name, uint64_t size)
{
	const struct artifact_limits *l = &A->cli->limits;

	if (++A->members > l->members)
		return art_fail(A, "more than %llu members (--limit members=N)",
				(unsigned long long)l->members);
	A->unpacked += size;
	if (A->unpacked > l->unpacked)
		return art_fail(A, "members unpack to more than %llu bytes at '%.200s' (--limit unpacked=SIZE)",
				(unsigned long long)l->unpacked, name);
	if (A->unpacked > (1ull << 30) && A->unpacked / l->ratio > A->size)
		return art_fail(A, "members declare %llu bytes at '%.200s', more than %llu times the artifact's %llu: a decompression bomb or a corrupt size (--limit ratio=N)",
				(unsigned long long)A->unpacked, name,
				(unsigned long long)l->ratio,
				(unsigned long long)A->size);
	return 0;
}

/*
 * One regular member at the archive's cursor: skipped when it is not
 * ELF, else held in memory and judged. -1 when the artifact failed.
 */
static int art_regular(struct art *A, struct archive *a, uint64_t size,
		       struct result *r)
{
	unsigned char head[4096];
	la_ssize_t n = 0;
	int fd;

	r->size = size;
	if (size >= 4)
		n = archive_read_data(a, head, size < sizeof(head) ? size
								 : sizeof(head));
	if (n < 0)
		return art_fail(A, "cannot read member '%.200s': %s",
				r->path + r->member_at, archive_error_string(a));
	if (n < 4 || memcmp(head, "\177ELF", 4)) {
		r->outcome = OUT_SKIPPED;
		snprintf(r->msg, sizeof(r->msg), "not an ELF file");
		return 0;
	}
	if (art_too_big(A, size, r))
		return 0;
	fd = art_load_elf(A, a, head, (size_t)n, size, r);
	if (fd < 0)
		return -1;
	A->judge(A->cli, fd, r, A->ctx);
	close(fd);
	return 0;
}

/* A hard-link member: another name of a member read before. */
static void art_hardlink(struct art *A, struct result *r, const char *target,
			 const struct strset *names)
{
	char name[EBID_PATH_MAX], why[EBID_ERRLEN] = "";

	r->outcome = OUT_SKIPPED;
	if (art_member_name(target, name, sizeof(name), why, sizeof(why)) ||
	    !art_set_has(names, name)) {
		r->status = EXIT_FILE;
		r->outcome = OUT_FAILED;
		if (!why[0]) /* a name in normal form, of no member before */
			snprintf(why, sizeof(why),
				 "'%.200s', which is no regular member before it",
				 target);
		snprintf(r->msg, sizeof(r->msg), "hard link to %s", why);
		return;
	}
	r->alias = true;
	snprintf(r->msg, sizeof(r->msg), "another name of '%.200s%s:%.200s'",
		 A->name, A->platform, name);
}

/*
 * Every member of a: regular files judged (art_regular), hard links named
 * as aliases, symbolic links listed as such (never followed), the rest
 * (directories, devices, FIFOs) not listed. In an
 * image, A->visible decides which paths this layer still shows.
 */
static int art_members_of(struct art *A, struct archive *a,
			  struct strset *names)
{
	struct archive_entry *ent;
	char name[EBID_PATH_MAX];
	int ret;

	while ((ret = archive_read_next_header(a, &ent)) == ARCHIVE_OK ||
	       ret == ARCHIVE_WARN) {
		const char *raw = archive_entry_pathname(ent);
		uint64_t size = archive_entry_size_is_set(ent)
					? (uint64_t)archive_entry_size(ent)
					: 0;
		struct result *r;

		if (!raw || art_member_name(raw, name, sizeof(name), A->err,
					    sizeof(A->err)))
			return raw ? -1 : art_fail(A, "a member has no name");
		if (art_account(A, name, size))
			return -1;
		if (A->visible && !A->visible(A, name, ent))
			continue;
		if (!archive_entry_hardlink(ent) &&
		    archive_entry_filetype(ent) != AE_IFREG &&
		    archive_entry_filetype(ent) != AE_IFLNK)
			continue;
		r = art_push(A, name);
		if (!r)
			return art_fail(A, "out of memory");
		if (archive_entry_filetype(ent) == AE_IFLNK &&
		    !archive_entry_hardlink(ent)) {
			/* Listed, never followed: not a file of the artifact. */
			r->outcome = OUT_SKIPPED;
			snprintf(r->msg, sizeof(r->msg),
				 "symbolic link to '%.200s' (not followed)",
				 archive_entry_symlink(ent)
					 ? archive_entry_symlink(ent)
					 : "");
		} else if (archive_entry_hardlink(ent))
			art_hardlink(A, r, archive_entry_hardlink(ent), names);
		else if (art_set_add(names, name))
			return art_fail(A, "out of memory");
		else if (art_regular(A, a, size, r)) {
			/* The artifact's error says it: one line, not two. */
			if (!r->outcome) {
				free((char *)r->path);
				A->r->nmembers--;
			}
			return -1;
		}
	}
	if (ret != ARCHIVE_EOF)
		return art_fail(A, "%s", archive_error_string(a)
						 ? archive_error_string(a)
						 : "cannot read the next member");
	return 0;
}

int art_members(struct art *A, struct archive *a)
{
	struct strset names = { 0 };
	int ret = art_members_of(A, a, &names);

	art_set_free(&names);
	return ret;
}

/*
 * An archive read in two layers: a raw reader that only decompresses
 * (libarchive's filters, the RPM header's too) and the format's reader on
 * its output. When the members are read, the raw reader is read to its
 * end: a stream's own check (gzip's CRC-32 and length, xz's and zstd's
 * checksums) comes after the archive's last member, where a format reader
 * alone stops, and a stream that fails it must not pass.
 */
struct layered {
	struct archive *raw, *fmt;
	struct art_stream *mid;
};

static void layered_close(struct layered *l)
{
	if (l->fmt)
		archive_read_free(l->fmt);
	if (l->raw)
		archive_read_free(l->raw);
	free(l->mid);
	memset(l, 0, sizeof(*l));
}

static int layered_open(struct art *A, struct art_stream *src,
			enum art_formats f, struct layered *l)
{
	struct archive_entry *ent;
	int ret;

	memset(l, 0, sizeof(*l));
	l->raw = archive_read_new();
	l->mid = calloc(1, sizeof(*l->mid));
	if (!l->raw || !l->mid)
		return art_fail(A, "out of memory");
	archive_read_support_filter_all(l->raw);
	archive_read_support_format_raw(l->raw);
	archive_read_support_format_empty(l->raw);
	ret = stream_open(l->raw, src);
	if (ret == ARCHIVE_OK)
		ret = archive_read_next_header(l->raw, &ent);
	if (ret == ARCHIVE_EOF && (f & ART_FMT_EMPTY))
		return 1; /* nothing at all: an empty archive */
	if (ret != ARCHIVE_OK)
		return art_fail(A, "%s", archive_error_string(l->raw)
						 ? archive_error_string(l->raw)
						 : "its first bytes are no readable archive (truncated or corrupt)");
	l->mid->parent = l->raw;
	l->mid->crc_on = archive_filter_code(l->raw, 0) == ARCHIVE_FILTER_GZIP;
	l->fmt = art_open(l->mid, f, A->err, sizeof(A->err));
	return l->fmt ? 0 : -1;
}

/*
 * libarchive does not check a gzip stream's trailer: its CRC-32 of the
 * data and their length. Here it is, for a stream of one gzip member,
 * the last 8 bytes read. When the length is not the data's, the stream
 * may hold several members (concatenated gzip): not checked.
 */
static int gzip_trailer(struct art *A, const struct layered *l,
			const struct art_stream *src)
{
	const unsigned char *t = src->tail;
	uint32_t crc = t[0] | t[1] << 8 | t[2] << 16 | (uint32_t)t[3] << 24;
	uint32_t len = t[4] | t[5] << 8 | t[6] << 16 | (uint32_t)t[7] << 24;

	if (!l->mid->crc_on || src->nread < 18 ||
	    len != (uint32_t)l->mid->nread ||
	    crc == l->mid->crc)
		return 0;
	return art_fail(A, "the gzip stream's CRC-32 is %08x, its data's %08x: corrupt data",
			crc, l->mid->crc);
}

/* The members of the archive in src, then the rest of its stream. */
static int read_layered(struct art *A, struct art_stream *src,
			enum art_formats f)
{
	struct layered l;
	int ret = layered_open(A, src, f, &l);

	if (ret > 0) {
		layered_close(&l);
		return 0;
	}
	if (!ret)
		ret = art_members(A, l.fmt);
	if (!ret && art_stream_drain(l.mid))
		ret = art_fail(A, "the stream after the last member: %s",
			       archive_error_string(l.raw)
				       ? archive_error_string(l.raw)
				       : "cannot be read");
	if (!ret)
		ret = gzip_trailer(A, &l, src);
	layered_close(&l);
	return ret;
}

/* A .deb: the members of its data.tar.* (the control files are not code). */
static int read_deb(struct art *A, struct art_stream *top)
{
	struct archive *outer;
	struct archive_entry *ent;
	bool data = false;
	int ret;

	outer = art_open(top, ART_FMT_AR, A->err, sizeof(A->err));
	if (!outer)
		return -1;
	while ((ret = archive_read_next_header(outer, &ent)) == ARCHIVE_OK) {
		struct art_stream *s;
		const char *n = archive_entry_pathname(ent);

		if (!n || strncmp(n, "data.tar", 8))
			continue;
		s = calloc(1, sizeof(*s));
		if (!s) {
			ret = art_fail(A, "out of memory");
			break;
		}
		s->parent = outer;
		ret = read_layered(A, s, ART_FMT_TAR | ART_FMT_EMPTY);
		free(s);
		data = true;
		if (ret)
			break;
	}
	if (ret == ARCHIVE_FATAL || ret == ARCHIVE_WARN || ret == ARCHIVE_RETRY)
		art_fail(A, "%s", archive_error_string(outer)
					  ? archive_error_string(outer)
					  : "cannot read the package");
	archive_read_free(outer);
	if (!A->err[0] && !data)
		art_fail(A, "no data.tar member: not a Debian binary package");
	return A->err[0] ? -1 : 0;
}


int artifact_read(const struct cli *cli, int fd, enum artifact_kind k,
		  const char *name, struct result *r, artifact_judge_fn judge,
		  void *ctx, char *err, size_t errlen)
{
	struct art A = { .cli = cli, .name = name, .r = r, .judge = judge,
			 .ctx = ctx, .platform = "", .layer = "" };
	struct art_stream *top = calloc(1, sizeof(*top));
	struct stat st;
	int ret;

	if (!top || fstat(fd, &st)) {
		free(top);
		snprintf(err, errlen, "out of memory");
		return -ENOMEM;
	}
	A.size = (uint64_t)st.st_size;
	top->fd = fd;
	top->end = (uint64_t)st.st_size;
	if (k == ART_DEB)
		ret = read_deb(&A, top);
	else if (k == ART_RPM)
		ret = read_layered(&A, top, ART_FMT_CPIO);
	else if (k == ART_OCI_DIR)
		ret = art_read_oci_dir(&A, fd);
	else if (art_is_image_tar(&A, top))
		ret = art_read_oci_tar(&A, top);
	else
		ret = A.err[0] ? -1 : read_layered(&A, top, ART_FMT_TAR);
	free(top);
	if (ret || A.err[0]) {
		snprintf(err, errlen, "%s", A.err[0] ? A.err : "cannot read");
		return -EBID_EMALFORMED;
	}
	return 0;
}

#else /* EBID_STATIC: no libarchive (mk/static.mk) */
int artifact_read(const struct cli *cli, int fd, enum artifact_kind k,
		  const char *name, struct result *r, artifact_judge_fn judge,
		  void *ctx, char *err, size_t errlen)
{
	(void)cli, (void)fd, (void)k, (void)name, (void)r, (void)judge;
	(void)ctx;
	snprintf(err, errlen,
		 "this static build of elf-buildid reads no artifacts (it has no libarchive): unpack it (dpkg-deb -x, rpm2cpio | cpio -id, tar -x) and check the tree, or use the dynamic build");
	return -ENOTSUP;
}
#endif
