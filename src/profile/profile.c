/* SPDX-License-Identifier: MIT */
/*
 * Profiles: which binaries a profile has samples in, and the build-id it
 * recorded for each. A perf.data is read through perf (the bridge in
 * perf.c); a pprof profile (gzip'd or plain protobuf, profile.proto) is
 * read here, with zlib and a small protobuf wire-format reader: the format
 * needs five fields of four messages, and a generated parser (protobuf-c)
 * would bring a code generator and a library for that.
 */
#include <ctype.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>
#include <zlib.h>

#include "internal.h"
#include "profile/perf.h"

/* Bounds on what is read: a profile is not a place for zip bombs. */
#define PROFILE_FILE_MAX (256ull << 20)
#define PROFILE_DATA_MAX (512ull << 20)
/*
 * And on what is built from it: an empty message is two bytes, the record
 * made of it up to 32. Real profiles have far fewer of each.
 */
#define PROFILE_STRINGS_MAX (8u << 20)
#define PROFILE_LOCATIONS_MAX (8u << 20)
#define PROFILE_MAPPINGS_MAX (1u << 20)

/* "PERFILE2" as a little-endian u64 in the file; byte-swapped from a
 * big-endian host. */
static const unsigned char perf_magic[8] = { 'P', 'E', 'R', 'F',
					     'I', 'L', 'E', '2' };
static const unsigned char perf_magic_swapped[8] = { '2', 'E', 'L', 'I',
						     'F', 'R', 'E', 'P' };

/* --- protobuf wire format ---------------------------------------------- */

struct pb {
	const unsigned char *p, *end;
};

static int pb_varint(struct pb *b, uint64_t *v)
{
	unsigned shift = 0;

	*v = 0;
	while (b->p < b->end && shift < 64) {
		unsigned char c = *b->p++;

		*v |= (uint64_t)(c & 0x7f) << shift;
		if (!(c & 0x80))
			return 0;
		shift += 7;
	}
	return -1;
}

/*
 * The next field of the message in b: its number, its wire type, and its
 * value (varint, fixed) or its bytes (sub). -1 when the message is cut or
 * uses a wire type profile.proto never does (groups).
 */
static int pb_next(struct pb *b, uint32_t *field, uint64_t *v, struct pb *sub,
		   unsigned *wire)
{
	uint64_t key;

	if (pb_varint(b, &key) || key >> 3 == 0 || key >> 3 > UINT32_MAX)
		return -1;
	*field = (uint32_t)(key >> 3);
	*wire = key & 7;
	switch (*wire) {
	case 0:
		return pb_varint(b, v);
	case 1:
	case 5: {
		size_t n = *wire == 1 ? 8 : 4;

		if ((size_t)(b->end - b->p) < n)
			return -1;
		*v = 0;
		memcpy(v, b->p, n); /* not used: any value will do */
		b->p += n;
		return 0;
	}
	case 2:
		if (pb_varint(b, v) || *v > (uint64_t)(b->end - b->p))
			return -1;
		sub->p = b->p;
		sub->end = b->p + *v;
		b->p += *v;
		return 0;
	default:
		return -1;
	}
}

/* --- the messages we need -------------------------------------------- */

struct span {
	const unsigned char *p;
	size_t len;
};

struct mapping {
	uint64_t id, filename, build_id;
	bool has_functions, sampled;
};

struct location {
	uint64_t id, mapping_id;
};

struct pprof {
	struct span *strings;
	size_t nstrings;
	struct mapping *maps;
	size_t nmaps;
	struct location *locs;
	size_t nlocs;
	int64_t time_nanos;
};

static int grow(void **v, size_t n, size_t size, size_t max)
{
	void *nv;

	if (n >= max)
		return -E2BIG;
	if (n & (n - 1) && n) /* grow at powers of two */
		return 0;
	nv = realloc(*v, (n ? 2 * n : 16) * size);
	if (!nv)
		return -ENOMEM;
	*v = nv;
	return 0;
}

/*
 * The varint fields of message m: vals[k] is the last value of field
 * number fields[k] in it, or 0. 0, or -1 when m is malformed.
 */
static int read_varints(struct pb m, const uint32_t *fields, uint64_t *vals,
			size_t n)
{
	uint32_t f;
	unsigned w;
	uint64_t v;
	struct pb sub;
	size_t k;

	memset(vals, 0, n * sizeof(*vals));
	while (m.p < m.end) {
		if (pb_next(&m, &f, &v, &sub, &w))
			return -1;
		for (k = 0; w == 0 && k < n; k++)
			if (f == fields[k])
				vals[k] = v;
	}
	return 0;
}

/* A Mapping: id (1), filename (5), build_id (6), has_functions (7). */
static int read_mapping(struct pb m, struct mapping *out)
{
	static const uint32_t fields[] = { 1, 5, 6, 7 };
	uint64_t v[ARRAY_SIZE(fields)];

	memset(out, 0, sizeof(*out));
	if (read_varints(m, fields, v, ARRAY_SIZE(fields)))
		return -1;
	out->id = v[0];
	out->filename = v[1];
	out->build_id = v[2];
	out->has_functions = v[3] != 0;
	return 0;
}

/* A Location: id (1), mapping_id (2). */
static int read_location(struct pb m, struct location *out)
{
	static const uint32_t fields[] = { 1, 2 };
	uint64_t v[ARRAY_SIZE(fields)];

	memset(out, 0, sizeof(*out));
	if (read_varints(m, fields, v, ARRAY_SIZE(fields)))
		return -1;
	out->id = v[0];
	out->mapping_id = v[1];
	return 0;
}

static int by_loc_id(const void *a, const void *b)
{
	const struct location *x = a, *y = b;

	return x->id < y->id ? -1 : x->id > y->id;
}

static int by_map_id(const void *a, const void *b)
{
	const struct mapping *x = a, *y = b;

	return x->id < y->id ? -1 : x->id > y->id;
}

/* Marks the mapping that location id lies in as having samples. */
static void mark(struct pprof *pp, uint64_t id)
{
	struct location key = { .id = id }, *l;
	struct mapping mkey, *m;

	l = bsearch(&key, pp->locs, pp->nlocs, sizeof(*l), by_loc_id);
	if (!l || !l->mapping_id)
		return;
	mkey.id = l->mapping_id;
	m = bsearch(&mkey, pp->maps, pp->nmaps, sizeof(*m), by_map_id);
	if (m)
		m->sampled = true;
}

/* A Sample's location ids, packed or not. */
static int read_sample(struct pprof *pp, struct pb m)
{
	uint32_t f;
	unsigned w;
	uint64_t v;
	struct pb sub;

	while (m.p < m.end) {
		if (pb_next(&m, &f, &v, &sub, &w))
			return -1;
		if (f != 1)
			continue;
		if (w == 0) {
			mark(pp, v);
		} else if (w == 2) {
			while (sub.p < sub.end) {
				if (pb_varint(&sub, &v))
					return -1;
				mark(pp, v);
			}
		}
	}
	return 0;
}

/*
 * Two passes over the Profile message: the string table, mappings and
 * locations first (a sample may come before the locations it names), then
 * the samples.
 */
static int read_pprof(struct pprof *pp, const unsigned char *data, size_t len,
		      char *err, size_t errlen)
{
	struct pb b = { data, data + len }, sub;
	uint32_t f;
	unsigned w;
	uint64_t v;
	int ret;

	while (b.p < b.end) {
		if (pb_next(&b, &f, &v, &sub, &w))
			goto bad;
		if (f == 6 && w == 2) {
			if ((ret = grow((void **)&pp->strings, pp->nstrings,
					sizeof(*pp->strings),
					PROFILE_STRINGS_MAX)))
				goto big;
			pp->strings[pp->nstrings].p = sub.p;
			pp->strings[pp->nstrings++].len = (size_t)v;
		} else if (f == 3 && w == 2) {
			if ((ret = grow((void **)&pp->maps, pp->nmaps,
					sizeof(*pp->maps),
					PROFILE_MAPPINGS_MAX)))
				goto big;
			if (read_mapping(sub, &pp->maps[pp->nmaps++]))
				goto bad;
		} else if (f == 4 && w == 2) {
			if ((ret = grow((void **)&pp->locs, pp->nlocs,
					sizeof(*pp->locs),
					PROFILE_LOCATIONS_MAX)))
				goto big;
			if (read_location(sub, &pp->locs[pp->nlocs++]))
				goto bad;
		} else if (f == 9 && w == 0) {
			pp->time_nanos = (int64_t)v;
		} else if (f == 1 && w != 2) {
			goto bad; /* sample_type: a message in every profile */
		}
	}
	if (!pp->nstrings || pp->strings[0].len)
		return ebid_err(err, errlen, -EBID_EMALFORMED,
				"not a perf.data or pprof profile: its string table does not start with \"\"");
	/* qsort() and bsearch() want valid arrays even for no elements. */
	if (!pp->nlocs || !pp->nmaps)
		return 0; /* no sample can lie in a mapping */
	qsort(pp->locs, pp->nlocs, sizeof(*pp->locs), by_loc_id);
	qsort(pp->maps, pp->nmaps, sizeof(*pp->maps), by_map_id);
	b.p = data;
	while (b.p < b.end) {
		if (pb_next(&b, &f, &v, &sub, &w))
			goto bad;
		if (f == 2 && w == 2 && read_sample(pp, sub))
			goto bad;
	}
	return 0;
bad:
	return ebid_err(err, errlen, -EBID_EMALFORMED,
			"not a perf.data or pprof profile: the protobuf message is cut short or malformed");
big:
	if (ret == -ENOMEM)
		return ebid_err(err, errlen, -ENOMEM, "out of memory");
	return ebid_err(err, errlen, -EFBIG,
			"a pprof profile with more than %u strings, %u locations or %u mappings is more than audit reads",
			PROFILE_STRINGS_MAX, PROFILE_LOCATIONS_MAX,
			PROFILE_MAPPINGS_MAX);
}

/* --- reading the file ------------------------------------------------ */

static int read_all(int fd, unsigned char **buf, size_t *len, char *err,
		    size_t errlen)
{
	struct stat st;
	int n;

	*buf = NULL;
	if (fstat(fd, &st) != 0)
		return ebid_err(err, errlen, -errno, "cannot stat: %s",
				strerror(errno));
	if ((uint64_t)st.st_size > PROFILE_FILE_MAX)
		return ebid_err(err, errlen, -EFBIG,
				"a pprof profile of %lld bytes is more than %llu MiB",
				(long long)st.st_size, PROFILE_FILE_MAX >> 20);
	*buf = malloc((size_t)st.st_size + 1);
	if (!*buf)
		return ebid_err(err, errlen, -ENOMEM, "out of memory");
	n = ebid_pread_full(fd, *buf, (size_t)st.st_size, 0);
	if (n < 0) {
		free(*buf);
		*buf = NULL;
		return ebid_err(err, errlen, n, "cannot read: %s",
				strerror(-n));
	}
	*len = (size_t)st.st_size;
	return 0;
}

/* gzip to bytes, at most PROFILE_DATA_MAX of them. */
static int gunzip(const unsigned char *in, size_t inlen, unsigned char **out,
		  size_t *outlen, char *err, size_t errlen)
{
	z_stream z;
	size_t cap = inlen * 4 + 4096, used = 0;
	unsigned char *buf = NULL;
	int zr = Z_OK, ret = 0;

	memset(&z, 0, sizeof(z));
	if (inflateInit2(&z, 16 + MAX_WBITS) != Z_OK)
		return ebid_err(err, errlen, -ENOMEM, "zlib: out of memory");
	z.next_in = (unsigned char *)in;
	z.avail_in = (uInt)(inlen > UINT32_MAX ? UINT32_MAX : inlen);
	while (zr != Z_STREAM_END) {
		if (used == cap || !buf) {
			unsigned char *nb;

			if (buf)
				cap *= 2;
			if (cap > PROFILE_DATA_MAX)
				cap = PROFILE_DATA_MAX;
			if (buf && used == cap) {
				ret = ebid_err(err, errlen, -EFBIG,
					       "the gzip'd profile inflates to more than %llu MiB",
					       PROFILE_DATA_MAX >> 20);
				break;
			}
			nb = realloc(buf, cap);
			if (!nb) {
				ret = ebid_err(err, errlen, -ENOMEM,
					       "out of memory");
				break;
			}
			buf = nb;
		}
		z.next_out = buf + used;
		z.avail_out = (uInt)(cap - used > UINT32_MAX ? UINT32_MAX
							     : cap - used);
		zr = inflate(&z, Z_NO_FLUSH);
		used = (size_t)(z.next_out - buf);
		if (zr != Z_OK && zr != Z_STREAM_END) {
			ret = ebid_err(err, errlen, -EBID_EMALFORMED,
				       "not a perf.data or pprof profile: gzip data is corrupt (%s)",
				       z.msg ? z.msg : zError(zr));
			break;
		}
		if (zr == Z_OK && !z.avail_in && z.avail_out) {
			ret = ebid_err(err, errlen, -EBID_EMALFORMED,
				       "not a perf.data or pprof profile: gzip data is cut short");
			break;
		}
	}
	inflateEnd(&z);
	if (ret) {
		free(buf);
		return ret;
	}
	*out = buf;
	*outlen = used;
	return 0;
}

/* Lower-case hex of at most EBID_MAX_ID bytes, or false. */
static bool take_hex_id(const struct span *s, char *id)
{
	size_t i;

	id[0] = '\0';
	if (!s->len || s->len % 2 || s->len > 2 * EBID_MAX_ID)
		return false;
	for (i = 0; i < s->len; i++)
		if (!isxdigit(s->p[i]))
			return false;
	for (i = 0; i < s->len; i++)
		id[i] = (char)tolower(s->p[i]);
	id[s->len] = '\0';
	return true;
}

static int by_path_id(const void *a, const void *b)
{
	const struct ebid_dso *x = a, *y = b;
	int c = strcmp(x->path, y->path);

	return c ? c : strcmp(x->id, y->id);
}

/* Why a mapping's build_id is not taken, printable. */
static void note_bad_id(struct ebid_dso *d, const struct span *bid)
{
	char shown[49];
	size_t i, n = bid->len < sizeof(shown) - 1 ? bid->len
						     : sizeof(shown) - 1;

	for (i = 0; i < n; i++)
		shown[i] = isprint(bid->p[i]) ? (char)bid->p[i] : '?';
	shown[n] = '\0';
	snprintf(d->note, sizeof(d->note),
		 "its build_id '%s' is not a GNU build-id in hex", shown);
}

/*
 * The pprof mappings with samples, once per file and id, sorted by path
 * (sorted, not compared pairwise: a profile may have a million mappings).
 */
static int pprof_dsos(const struct pprof *pp, struct ebid_profile *prof,
		      char *err, size_t errlen)
{
	struct ebid_dso *v;
	size_t i, n = 0, k;

	v = calloc(pp->nmaps ? pp->nmaps : 1, sizeof(*v));
	if (!v)
		return ebid_err(err, errlen, -ENOMEM, "out of memory");
	for (i = 0; i < pp->nmaps; i++) {
		const struct mapping *m = &pp->maps[i];
		const struct span *name, *bid;
		struct ebid_dso *d = &v[n];

		if (!m->sampled || !m->filename || m->filename >= pp->nstrings)
			continue;
		name = &pp->strings[m->filename];
		if (!name->len || memchr(name->p, '\0', name->len))
			continue;
		bid = m->build_id < pp->nstrings ? &pp->strings[m->build_id]
						  : &pp->strings[0];
		if (bid->len && !take_hex_id(bid, d->id))
			note_bad_id(d, bid);
		d->symbolized = m->has_functions;
		d->path = strndup((const char *)name->p, name->len);
		if (!d->path) {
			ebid_dsos_free(v, n);
			return ebid_err(err, errlen, -ENOMEM, "out of memory");
		}
		n++;
	}
	if (n > 1)
		qsort(v, n, sizeof(*v), by_path_id);
	for (i = k = 0; i < n; i++) {
		if (k && !by_path_id(&v[k - 1], &v[i])) {
			v[k - 1].symbolized |= v[i].symbolized;
			free(v[i].path);
			continue;
		}
		v[k++] = v[i];
	}
	prof->dsos = v;
	prof->ndsos = k;
	return 0;
}

int ebid_pprof_parse(const unsigned char *raw, size_t rawlen,
		     struct ebid_profile *prof, char *err, size_t errlen)
{
	unsigned char *inflated = NULL;
	const unsigned char *data = raw;
	size_t len = rawlen;
	struct pprof pp = { 0 };
	int ret;

	memset(prof, 0, sizeof(*prof));
	if (rawlen >= 2 && raw[0] == 0x1f && raw[1] == 0x8b) {
		ret = gunzip(raw, rawlen, &inflated, &len, err, errlen);
		if (ret)
			return ret;
		data = inflated;
	}
	if (!len)
		ret = ebid_err(err, errlen, -EBID_EMALFORMED,
			       "empty file: not a perf.data or pprof profile");
	else
		ret = read_pprof(&pp, data, len, err, errlen);
	if (!ret) {
		prof->format = EBID_PROFILE_PPROF;
		prof->captured_ns = pp.time_nanos;
		ret = pprof_dsos(&pp, prof, err, errlen);
	}
	free(pp.strings);
	free(pp.maps);
	free(pp.locs);
	free(inflated);
	if (ret)
		ebid_profile_release(prof);
	return ret;
}

static int read_pprof_file(int fd, struct ebid_profile *prof, char *err,
			   size_t errlen)
{
	unsigned char *raw = NULL;
	size_t rawlen = 0;
	int ret;

	ret = read_all(fd, &raw, &rawlen, err, errlen);
	if (ret)
		return ret;
	ret = ebid_pprof_parse(raw, rawlen, prof, err, errlen);
	free(raw);
	return ret;
}

static uint64_t get64(const unsigned char *p, bool swap)
{
	uint64_t v;

	memcpy(&v, p, 8);
	return swap ? __builtin_bswap64(v) : v;
}

/*
 * The sections perf.data's header names must lie in the file: perf itself
 * reads a truncated file as one without samples and exits 0. The header
 * (tools/perf/util/header.h, perf_file_header): magic, size, attr_size,
 * then the attrs, data and event_types sections (offset, size), then the
 * feature bitmap; each feature's section follows the data.
 */
static int check_perf_header(int fd, uint64_t fsize, bool swap, char *err,
			     size_t errlen)
{
	unsigned char h[104], feat[16];
	uint64_t hsize, off, size, i, nfeat = 0;
	int ret;

	if (fsize < 16)
		goto cut;
	ret = ebid_pread_full(fd, h, fsize < sizeof(h) ? 16 : sizeof(h), 0);
	if (ret)
		return ebid_err(err, errlen, ret, "cannot read: %s",
				strerror(-ret));
	hsize = get64(h + 8, swap);
	if (hsize == 16)
		return 0; /* pipe mode: no sections to check */
	if (hsize != sizeof(h))
		goto bad;
	if (fsize < sizeof(h))
		goto cut;
	for (i = 0; i < 3; i++) {
		off = get64(h + 24 + 16 * i, swap);
		size = get64(h + 32 + 16 * i, swap);
		if (off > fsize || size > fsize - off)
			goto cut;
	}
	for (i = 0; i < 4; i++)
		nfeat += (uint64_t)__builtin_popcountll(get64(h + 72 + 8 * i, swap));
	off = get64(h + 40, swap) + get64(h + 48, swap);
	if (nfeat * 16 > fsize - off)
		goto cut;
	for (i = 0; i < nfeat; i++) {
		ret = ebid_pread_full(fd, feat, sizeof(feat), off + 16 * i);
		if (ret)
			return ebid_err(err, errlen, ret, "cannot read: %s",
					strerror(-ret));
		if (get64(feat, swap) > fsize ||
		    get64(feat + 8, swap) > fsize - get64(feat, swap))
			goto cut;
	}
	return 0;
cut:
	return ebid_err(err, errlen, -EBID_EMALFORMED,
			"perf.data is cut short: its header names sections past the end of the file (%llu bytes)",
			(unsigned long long)fsize);
bad:
	return ebid_err(err, errlen, -EBID_EMALFORMED,
			"perf.data header has size %llu, not 104",
			(unsigned long long)hsize);
}

int ebid_profile_read(int fd, long timeout_ms, struct ebid_profile *prof,
		      char *err, size_t errlen)
{
	unsigned char magic[8];
	struct stat st;
	int n, ret;

	memset(prof, 0, sizeof(*prof));
	if (fstat(fd, &st) != 0)
		return ebid_err(err, errlen, -errno, "cannot stat: %s",
				strerror(errno));
	if (!S_ISREG(st.st_mode))
		return ebid_err(err, errlen, -EINVAL, "not a regular file");
	n = st.st_size >= (off_t)sizeof(magic)
		    ? ebid_pread_full(fd, magic, sizeof(magic), 0)
		    : -ENODATA;
	if (n < 0 && n != -ENODATA)
		return ebid_err(err, errlen, n, "cannot read: %s", strerror(-n));
	if (!n && (!memcmp(magic, perf_magic, sizeof(magic)) ||
		   !memcmp(magic, perf_magic_swapped, sizeof(magic)))) {
		ret = check_perf_header(fd, (uint64_t)st.st_size,
					(magic[0] == '2') ==
						(__BYTE_ORDER__ ==
						 __ORDER_LITTLE_ENDIAN__),
					err, errlen);
		if (ret)
			return ret;
		prof->format = EBID_PROFILE_PERF;
		/* What perf prints as "captured on": the file's mtime. */
		prof->captured_ns = (int64_t)st.st_mtim.tv_sec * 1000000000 +
				    st.st_mtim.tv_nsec;
		ret = ebid_perf_hits(fd, timeout_ms, &prof->dsos, &prof->ndsos,
				     err, errlen);
	} else {
		ret = read_pprof_file(fd, prof, err, errlen);
	}
	if (ret)
		ebid_profile_release(prof);
	return ret;
}

void ebid_profile_release(struct ebid_profile *prof)
{
	ebid_dsos_free(prof->dsos, prof->ndsos);
	prof->dsos = NULL;
	prof->ndsos = 0;
}
