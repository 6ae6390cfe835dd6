/* SPDX-License-Identifier: MIT */
/*
 * libFuzzer harness over the profile readers of src/profile/profile.c: the pprof
 * reader on bytes (ebid_pprof_parse), and the perf.data header check that
 * ebid_profile_read makes before it runs perf. Any broken promise is a
 * finding: the harness prints what broke and calls abort().
 *
 * A pprof input (anything not starting with perf's magic) is parsed from
 * memory; the promises checked:
 *   - a failing call returns a negative code and a non-empty message, and
 *     leaves the profile empty (no dsos, ndsos 0);
 *   - a success says EBID_PROFILE_PPROF and names at most as many
 *     binaries as the Profile message has mappings (field 3, counted here
 *     by a reader of our own); every binary has a non-empty path without
 *     NUL that is one of the profile's strings, an id that is "" or an even
 *     number (at most 2 * EBID_MAX_ID) of lower-case hex digits, that
 *     string's lower-case form, and a note only when it has no id; no two
 *     binaries have the same path and id;
 *   - a gzip'd input gives what its inflated bytes give.
 *
 * A perf.data input ("PERFILE2", or "2ELIFREP" when byte-swapped) is
 * written to a memfd and read with ebid_profile_read. The harness is
 * linked with -Wl,--wrap=ebid_perf_hits (mk/robust.mk), so that where the
 * library would start perf it calls __wrap_ebid_perf_hits below, which
 * starts nothing: src/ is unchanged. The header is judged here again,
 * from tools/perf/util/header.h (perf_file_header: magic, size, attr_size,
 * the attrs, data and event_types sections, a 256-bit feature bitmap, and
 * one section per feature after the data): the read must go on to perf
 * exactly when every section lies in the file (or the header is a pipe
 * header, size 16), and otherwise fail with a message.
 *
 * Build: make fuzz-build (clang -fsanitize=fuzzer,address,undefined).
 */
#include <errno.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>
#include <zlib.h>

#include "elf-buildid.h"

static const char *cur_what = "";
static char cur_err[EBID_ERRLEN];

__attribute__((noreturn)) static void finding(const char *why)
{
	fprintf(stderr, "fuzz_pprof: FINDING: %s: %s (last message: %s)\n",
		cur_what, why, cur_err);
	abort();
}

static void check_failure(int ret, const char *err)
{
	size_t n = strnlen(err, EBID_ERRLEN);

	if (ret >= 0)
		finding("a failing call returned a non-negative code");
	if (n == 0 || n == EBID_ERRLEN)
		finding("a failing call left an empty or unterminated message");
}

/* --- the perf bridge, replaced at link time -------------------------- */

static int perf_hits_calls;

int __wrap_ebid_perf_hits(int fd, long timeout_ms, struct ebid_dso **dsos,
			  size_t *ndsos, char *err, size_t errlen);

int __wrap_ebid_perf_hits(int fd, long timeout_ms, struct ebid_dso **dsos,
			  size_t *ndsos, char *err, size_t errlen)
{
	(void)fd;
	(void)timeout_ms;
	(void)err;
	(void)errlen;
	perf_hits_calls++;
	*dsos = NULL;
	*ndsos = 0;
	return 0;
}

/* --- a second, independent reading of the pprof bytes ---------------- */

struct rd {
	const uint8_t *p, *end;
};

static bool rd_varint(struct rd *r, uint64_t *v)
{
	int i;

	*v = 0;
	for (i = 0; i < 10 && r->p < r->end; i++) {
		*v |= (uint64_t)(*r->p & 0x7f) << (7 * i);
		if (!(*r->p++ & 0x80))
			return true;
	}
	return false;
}

/*
 * The number of mappings (field 3) in the Profile message d: false when d
 * does not scan as protobuf wire format (no groups).
 */
static bool scan_profile(const uint8_t *d, size_t len, size_t *nmaps)
{
	struct rd r = { d, d + len };
	uint64_t key, v;

	*nmaps = 0;
	while (r.p < r.end) {
		if (!rd_varint(&r, &key))
			return false;
		switch (key & 7) {
		case 0:
			if (!rd_varint(&r, &v))
				return false;
			break;
		case 1:
		case 5:
			if ((size_t)(r.end - r.p) < ((key & 7) == 1 ? 8u : 4u))
				return false;
			r.p += (key & 7) == 1 ? 8 : 4;
			break;
		case 2:
			if (!rd_varint(&r, &v) || v > (uint64_t)(r.end - r.p))
				return false;
			if (key >> 3 == 3)
				(*nmaps)++;
			r.p += v;
			break;
		default:
			return false;
		}
	}
	return true;
}

/* Whether s is one of the strings (field 6) of d, folded to lower case
 * first when fold. */
static bool is_string(const uint8_t *d, size_t len, const char *s, bool fold)
{
	struct rd r = { d, d + len };
	uint64_t key, v;
	size_t n = strlen(s), i;

	while (r.p < r.end) {
		if (!rd_varint(&r, &key))
			return false;
		if ((key & 7) == 0) {
			if (!rd_varint(&r, &v))
				return false;
		} else if ((key & 7) == 1 || (key & 7) == 5) {
			if ((size_t)(r.end - r.p) < ((key & 7) == 1 ? 8u : 4u))
				return false;
			r.p += (key & 7) == 1 ? 8 : 4;
		} else if ((key & 7) == 2) {
			if (!rd_varint(&r, &v) || v > (uint64_t)(r.end - r.p))
				return false;
			if (key >> 3 == 6 && v == n) {
				for (i = 0; i < n; i++) {
					char c = (char)r.p[i];

					if (fold && c >= 'A' && c <= 'Z')
						c = (char)(c - 'A' + 'a');
					if (c != s[i])
						break;
				}
				if (i == n)
					return true;
			}
			r.p += v;
		} else {
			return false;
		}
	}
	return false;
}

/* gzip'd bytes inflated (at most max), or NULL. Caller frees. */
static uint8_t *inflate_all(const uint8_t *in, size_t inlen, size_t max,
			    size_t *outlen)
{
	z_stream z;
	size_t cap = 65536;
	uint8_t *buf = malloc(cap), *nb;
	int zr;

	if (!buf)
		return NULL;
	memset(&z, 0, sizeof(z));
	if (inflateInit2(&z, 16 + MAX_WBITS) != Z_OK) {
		free(buf);
		return NULL;
	}
	z.next_in = (uint8_t *)in;
	z.avail_in = (uInt)inlen;
	for (;;) {
		z.next_out = buf + z.total_out;
		z.avail_out = (uInt)(cap - z.total_out);
		zr = inflate(&z, Z_NO_FLUSH);
		if (zr == Z_STREAM_END)
			break;
		if (zr != Z_OK || z.total_out < cap || cap >= max) {
			inflateEnd(&z);
			free(buf);
			return NULL;
		}
		cap *= 2;
		nb = realloc(buf, cap);
		if (!nb) {
			inflateEnd(&z);
			free(buf);
			return NULL;
		}
		buf = nb;
	}
	*outlen = z.total_out;
	inflateEnd(&z);
	return buf;
}

static bool is_id(const char *id)
{
	size_t n = strnlen(id, 2 * EBID_MAX_ID + 1), i;

	if (n > 2 * EBID_MAX_ID || n % 2)
		return false;
	for (i = 0; i < n; i++)
		if (!((id[i] >= '0' && id[i] <= '9') ||
		      (id[i] >= 'a' && id[i] <= 'f')))
			return false;
	return true;
}

static bool same_profile(const struct ebid_profile *a,
			 const struct ebid_profile *b)
{
	size_t i;

	if (a->format != b->format || a->captured_ns != b->captured_ns ||
	    a->ndsos != b->ndsos)
		return false;
	for (i = 0; i < a->ndsos; i++)
		if (strcmp(a->dsos[i].path, b->dsos[i].path) ||
		    strcmp(a->dsos[i].id, b->dsos[i].id) ||
		    a->dsos[i].symbolized != b->dsos[i].symbolized ||
		    strcmp(a->dsos[i].note, b->dsos[i].note))
			return false;
	return true;
}

/* d: the plain protobuf bytes the profile was read from. */
static void check_profile(const struct ebid_profile *prof, const uint8_t *d,
			  size_t len)
{
	size_t nmaps, i, j;

	if (prof->format != EBID_PROFILE_PPROF)
		finding("a pprof profile is not said to be one");
	if (prof->ndsos && !prof->dsos)
		finding("ndsos without dsos");
	if (!scan_profile(d, len, &nmaps))
		finding("a profile that does not scan as protobuf was accepted");
	if (prof->ndsos > nmaps)
		finding("more binaries than mappings");
	for (i = 0; i < prof->ndsos; i++) {
		const struct ebid_dso *ds = &prof->dsos[i];

		if (!ds->path || !ds->path[0])
			finding("a binary with an empty path");
		if (!is_string(d, len, ds->path, false))
			finding("a path that is not one of the profile's strings");
		if (!is_id(ds->id))
			finding("an id that is not even-length lower-case hex of at most 40 digits");
		if (ds->id[0] && !is_string(d, len, ds->id, true))
			finding("an id that is not one of the profile's strings");
		if (strnlen(ds->note, sizeof(ds->note)) == sizeof(ds->note))
			finding("an unterminated note");
		if (ds->id[0] && ds->note[0])
			finding("a note on a binary whose id was taken");
		for (j = 0; j < i; j++)
			if (!strcmp(ds->path, prof->dsos[j].path) &&
			    !strcmp(ds->id, prof->dsos[j].id))
				finding("the same path and id twice");
	}
}

static void fuzz_pprof(const uint8_t *data, size_t size)
{
	struct ebid_profile prof, again;
	char err[EBID_ERRLEN] = "";
	uint8_t *plain = NULL;
	size_t plen = 0;
	bool gz = size >= 2 && data[0] == 0x1f && data[1] == 0x8b;
	int ret, ret2;

	cur_what = "ebid_pprof_parse";
	cur_err[0] = '\0';
	memset(&prof, 0xa5, sizeof(prof)); /* it must set every field */
	ret = ebid_pprof_parse(data, size, &prof, err, sizeof(err));
	snprintf(cur_err, sizeof(cur_err), "%s", err);
	if (gz)
		plain = inflate_all(data, size, 256u << 20, &plen);
	if (ret) {
		check_failure(ret, err);
		if (prof.dsos || prof.ndsos)
			finding("a failed parse left binaries in the profile");
	} else if (!gz) {
		check_profile(&prof, data, size);
	} else if (plain) {
		check_profile(&prof, plain, plen);
	}
	/* The gzip'd bytes and the inflated ones: one answer. */
	if (gz && plain && !(plen >= 2 && plain[0] == 0x1f && plain[1] == 0x8b)) {
		cur_what = "ebid_pprof_parse on the inflated bytes";
		err[0] = '\0';
		ret2 = ebid_pprof_parse(plain, plen, &again, err, sizeof(err));
		if (!ret && ret2 != ret)
			finding("the inflated bytes fail where the gzip'd ones parse");
		if (!ret && !same_profile(&prof, &again))
			finding("the inflated bytes give another profile");
		if (!ret2)
			ebid_profile_release(&again);
	}
	if (!ret)
		ebid_profile_release(&prof);
	free(plain);
}

/* --- perf.data headers ------------------------------------------------ */

static uint64_t rd64(const uint8_t *p, bool swap)
{
	uint64_t v;

	memcpy(&v, p, 8);
	return swap ? __builtin_bswap64(v) : v;
}

/* Whether [off, off+size) lies in a file of fsize bytes. */
static bool inside(uint64_t off, uint64_t size, uint64_t fsize)
{
	unsigned __int128 end = (unsigned __int128)off + size;

	return end <= fsize;
}

/* Does perf_file_header say that every section lies in the file? */
static bool header_fits(const uint8_t *d, size_t size, bool swap)
{
	uint64_t data_end, nfeat = 0, i;

	if (size < 16)
		return false;
	if (rd64(d + 8, swap) == 16)
		return true; /* a pipe header: no sections */
	if (rd64(d + 8, swap) != 104 || size < 104)
		return false;
	for (i = 0; i < 3; i++)
		if (!inside(rd64(d + 24 + 16 * i, swap),
			    rd64(d + 32 + 16 * i, swap), size))
			return false;
	for (i = 0; i < 256; i++)
		if (rd64(d + 72 + 8 * (i / 64), swap) >> (i % 64) & 1)
			nfeat++;
	data_end = rd64(d + 40, swap) + rd64(d + 48, swap);
	if (!inside(data_end, 16 * nfeat, size))
		return false;
	for (i = 0; i < nfeat; i++) {
		const uint8_t *s = d + data_end + 16 * i;

		if (!inside(rd64(s, swap), rd64(s + 8, swap), size))
			return false;
	}
	return true;
}

static void fuzz_perf(const uint8_t *data, size_t size, bool swap)
{
	static int fd = -1;
	struct ebid_profile prof;
	char err[EBID_ERRLEN] = "";
	bool fits = header_fits(data, size, swap);
	int ret;

	cur_what = "ebid_profile_read on a perf.data";
	cur_err[0] = '\0';
	if (fd < 0) {
		fd = memfd_create("fuzz_pprof", MFD_CLOEXEC);
		if (fd < 0) {
			perror("fuzz_pprof: memfd_create");
			exit(2);
		}
	}
	if (ftruncate(fd, 0) || pwrite(fd, data, size, 0) != (ssize_t)size) {
		perror("fuzz_pprof: writing the memfd");
		exit(2);
	}
	perf_hits_calls = 0;
	ret = ebid_profile_read(fd, 1000, &prof, err, sizeof(err));
	snprintf(cur_err, sizeof(cur_err), "%s", err);
	if (ret) {
		check_failure(ret, err);
		if (perf_hits_calls)
			finding("perf ran, yet the read failed");
		if (fits)
			finding("a header whose sections all lie in the file was refused");
		return;
	}
	if (!perf_hits_calls)
		finding("a perf.data was read without perf");
	if (!fits)
		finding("a header naming a section past the end of the file was accepted");
	if (prof.format != EBID_PROFILE_PERF)
		finding("a perf.data is not said to be one");
	ebid_profile_release(&prof);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

/* The magic as a little-endian host reads it (the library's own test). */
int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	if (size >= 8 && !memcmp(data, "PERFILE2", 8))
		fuzz_perf(data, size, false);
	else if (size >= 8 && !memcmp(data, "2ELIFREP", 8))
		fuzz_perf(data, size, true);
	else
		fuzz_pprof(data, size);
	return 0;
}
