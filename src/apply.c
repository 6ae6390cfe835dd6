/* SPDX-License-Identifier: MIT */
/* Applying a plan: stream the input through the patches and the hash once. */
#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "internal.h"

#define CHUNK (1u << 20)

/* Where output bytes go: a file descriptor, a memory buffer, or nowhere. */
struct sink {
	int fd;                 /* -1 unless writing to a file */
	unsigned char *mem;     /* NULL unless writing to memory */
};

/* Overlays the plan on buf, which holds output bytes [pos, pos + n). */
static void overlay(const struct ebid_plan *plan, uint64_t pos,
		    unsigned char *buf, size_t n)
{
	uint64_t end = pos + n;
	size_t i;

	for (i = 0; i < plan->npatches; i++) {
		const struct ebid_patch *pt = &plan->patches[i];
		uint64_t lo = pt->off > pos ? pt->off : pos;
		uint64_t hi = pt->off + pt->len < end ? pt->off + pt->len : end;

		if (lo < hi)
			memcpy(buf + (lo - pos), pt->bytes + (lo - pt->off),
			       (size_t)(hi - lo));
	}
	if (plan->fill) {
		uint64_t lo = plan->id_off > pos ? plan->id_off : pos;
		uint64_t hi = plan->id_off + plan->id_len < end
				      ? plan->id_off + plan->id_len
				      : end;

		/* Zero while hashing; an explicit id goes in directly. */
		for (; lo < hi; lo++)
			buf[lo - pos] =
				plan->hash ? 0 : plan->id[lo - plan->id_off];
	}
}

static int sink_write(struct sink *s, uint64_t pos, const unsigned char *buf,
		      size_t n, char *err, size_t errlen)
{
	if (s->fd < 0) {
		if (s->mem)
			memcpy(s->mem + pos, buf, n);
		return 0;
	}
	while (n) {
		ssize_t w = pwrite(s->fd, buf, n, (off_t)pos);

		if (w < 0) {
			if (errno == EINTR)
				continue;
			return ebid_err(err, errlen, -errno, "write failed: %s",
					strerror(errno));
		}
		if (w == 0)
			return ebid_err(err, errlen, -EIO,
					"write failed: no progress");
		buf += w;
		pos += (uint64_t)w;
		n -= (size_t)w;
	}
	return 0;
}

static int apply(const struct ebid_src *src, const struct ebid_plan *plan,
		 struct sink *sink, unsigned char id[EBID_MAX_ID], char *err,
		 size_t errlen)
{
	struct ebid_hash *h = NULL;
	unsigned char *buf = NULL;
	uint64_t pos = 0;
	int ret;

	if (src->size != plan->in_size)
		return ebid_err(err, errlen, -EBID_ECHANGED,
				"file size changed since it was read");
	if (plan->fill && plan->hash) {
		ret = ebid_hash_new(&h, plan->alg, err, errlen);
		if (ret)
			return ret;
	}
	buf = malloc(CHUNK);
	if (!buf) {
		ret = ebid_err(err, errlen, -ENOMEM, "out of memory");
		goto out;
	}
	if (src->fd >= 0)
		posix_fadvise(src->fd, 0, 0, POSIX_FADV_SEQUENTIAL);
	while (pos < plan->out_size) {
		size_t n = plan->out_size - pos < CHUNK
				   ? (size_t)(plan->out_size - pos)
				   : CHUNK;

		if (pos < plan->in_size) {
			if (plan->in_size - pos < n)
				n = (size_t)(plan->in_size - pos);
			ret = ebid_src_read(src, pos, buf, n);
			if (ret) {
				ret = ebid_err(err, errlen, ret,
					       "read failed: %s",
					       strerror(-ret));
				goto out;
			}
		} else {
			memcpy(buf, plan->append + (pos - plan->in_size), n);
		}
		overlay(plan, pos, buf, n);
		if (h) {
			ret = ebid_hash_update(h, buf, n, err, errlen);
			if (ret)
				goto out;
		}
		ret = sink_write(sink, pos, buf, n, err, errlen);
		if (ret)
			goto out;
		pos += n;
	}
	memcpy(id, plan->id, EBID_MAX_ID);
	if (h) {
		ret = ebid_hash_final(h, id, err, errlen);
		if (ret)
			goto out;
		ret = sink_write(sink, plan->id_off, id, plan->id_len, err,
				 errlen);
		if (ret)
			goto out;
	}
	ret = 0;
out:
	free(buf);
	ebid_hash_free(h);
	return ret;
}

int ebid_apply_fd(const struct ebid_src *src, const struct ebid_plan *plan,
		  int out_fd, unsigned char id[EBID_MAX_ID], char *err,
		  size_t errlen)
{
	struct sink s = { .fd = out_fd };

	return apply(src, plan, &s, id, err, errlen);
}

int ebid_apply_mem(const struct ebid_src *src, const struct ebid_plan *plan,
		   unsigned char **out, size_t *out_len,
		   unsigned char id[EBID_MAX_ID], char *err, size_t errlen)
{
	struct sink s = { .fd = -1 };
	int ret;

	*out = NULL;
	*out_len = 0;
	if (plan->out_size > SIZE_MAX)
		return ebid_err(err, errlen, -EFBIG, "output too large");
	s.mem = malloc(plan->out_size ? (size_t)plan->out_size : 1);
	if (!s.mem)
		return ebid_err(err, errlen, -ENOMEM, "out of memory");
	ret = apply(src, plan, &s, id, err, errlen);
	if (ret) {
		free(s.mem);
		return ret;
	}
	*out = s.mem;
	*out_len = (size_t)plan->out_size;
	return 0;
}

int ebid_hash_src(const struct ebid_src *src, uint64_t desc_off,
		  size_t desc_len, enum ebid_hash_alg alg,
		  unsigned char id[EBID_MAX_ID], char *err, size_t errlen)
{
	struct ebid_plan plan = { 0 };
	struct sink s = { .fd = -1 };

	plan.in_size = plan.out_size = src->size;
	plan.fill = plan.hash = true;
	plan.alg = alg;
	plan.id_off = desc_off;
	plan.id_len = desc_len;
	return apply(src, &plan, &s, id, err, errlen);
}

int ebid_apply_hash(const struct ebid_src *src, const struct ebid_plan *plan,
		    unsigned char id[EBID_MAX_ID], char *err, size_t errlen)
{
	struct sink s = { .fd = -1 };

	return apply(src, plan, &s, id, err, errlen);
}
