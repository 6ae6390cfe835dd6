/* SPDX-License-Identifier: MIT */
/* The id a plan gives: the planned output hashed as it is produced. */
#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "internal.h"
#include "fs/fs.h"
#include "id/id.h"

#define CHUNK EBID_IO_CHUNK
#define WINDOW (2u << 20)       /* mapped at a time */
#define BLOCK (64u << 10)       /* unit of the plan's changes in a window */

/*
 * Overlays the plan on buf, which holds output bytes [pos, pos + n). The
 * id range reads as zeros while hashing; an explicit id goes in directly.
 */
static void overlay(const struct ebid_output *o, uint64_t pos,
		    unsigned char *buf, size_t n, bool id_zero)
{
	uint64_t end = pos + n;
	size_t i;

	for (i = 0; i < o->npatches; i++) {
		const struct ebid_patch *pt = &o->patches[i];
		uint64_t lo = pt->off > pos ? pt->off : pos;
		uint64_t hi = pt->off + pt->len < end ? pt->off + pt->len : end;

		if (lo < hi)
			memcpy(buf + (lo - pos), pt->bytes + (lo - pt->off),
			       (size_t)(hi - lo));
	}
	if (o->fill) {
		uint64_t lo = o->id_off > pos ? o->id_off : pos;
		uint64_t hi = o->id_off + o->id_len < end
				      ? o->id_off + o->id_len
				      : end;

		for (; lo < hi; lo++)
			buf[lo - pos] = id_zero && o->hash
						? 0
						: o->id[lo - o->id_off];
	}
}

int ebid_read_out(const struct ebid_src *src, const struct ebid_output *o,
		    uint64_t pos, unsigned char *buf, size_t n)
{
	size_t done = 0;
	int ret;

	while (done < n) {
		struct ebid_piece pc = ebid_output_piece(o, pos + done, n - done);
		size_t k = (size_t)pc.len;

		if (pc.kind == EBID_PIECE_INPUT) {
			ret = ebid_src_read(src, pc.src, buf + done, k);
			if (ret)
				return ret;
		} else if (pc.kind == EBID_PIECE_ZERO) {
			memset(buf + done, 0, k);
		} else {
			memcpy(buf + done, o->append + pc.src, k);
		}
		done += k;
	}
	overlay(o, pos, buf, n, true);
	return 0;
}

int ebid_read_err(char *err, size_t errlen, int ret)
{
	return ebid_err(err, errlen, ret, "read failed: %s", ebid_strerror(ret));
}

/* Does the plan change any output byte in [pos, pos + n)? */
static bool plan_touches(const struct ebid_output *o, uint64_t pos, size_t n)
{
	uint64_t end = pos + n;
	size_t i;

	for (i = 0; i < o->npatches; i++)
		if (o->patches[i].off < end &&
		    o->patches[i].off + o->patches[i].len > pos)
			return true;
	return o->fill && o->id_off < end &&
	       o->id_off + o->id_len > pos;
}

/* A mapped window of input bytes to hash, and where to put changed blocks. */
struct window_feed {
	struct ebid_hash *h;
	const struct ebid_output *o;
	const unsigned char *map;       /* the input bytes of output [pos, pos + n) */
	uint64_t pos;
	size_t n;
	unsigned char *buf;             /* BLOCK bytes or more */
	char *err;
	size_t errlen;
};

/*
 * Hashes a mapped window (under the SIGBUS guard): unchanged runs of blocks
 * straight from the mapping, each block the plan changes through buf.
 */
static int feed_window(void *arg)
{
	struct window_feed *f = arg;
	size_t at = 0, run;
	int ret = 0;

	while (!ret && at < f->n) {
		size_t b = f->n - at < BLOCK ? f->n - at : BLOCK;

		if (plan_touches(f->o, f->pos + at, b)) {
			memcpy(f->buf, f->map + at, b);
			overlay(f->o, f->pos + at, f->buf, b, true);
			ret = ebid_hash_update(f->h, f->buf, b, f->err,
					       f->errlen);
			at += b;
			continue;
		}
		for (run = b; at + run < f->n; run += b) {
			b = f->n - at - run < BLOCK ? f->n - at - run : BLOCK;
			if (plan_touches(f->o, f->pos + at + run, b))
				break;
		}
		ret = ebid_hash_update(f->h, f->map + at, run, f->err,
				       f->errlen);
		at += run;
	}
	return ret;
}

/* A window could not be read: the file shrank, or the disk failed. */
static int window_err(const struct ebid_src *src, const struct ebid_output *o,
		      char *err, size_t errlen)
{
	struct stat st;

	if (fstat(src->fd, &st) == 0 && (uint64_t)st.st_size < o->in_size)
		return ebid_err(err, errlen, -EBID_ECHANGED,
				"file shrank while it was being read");
	return ebid_read_err(err, errlen, -EIO);
}

/*
 * Feeds output bytes [pos, pos + n) to h. The input is mapped a window at
 * a time while *map holds; the first window that cannot be mapped clears
 * it, and the rest goes through read_out() and buf (CHUNK bytes).
 */
static int feed(struct ebid_hash *h, const struct ebid_src *src,
		const struct ebid_output *o, uint64_t pos, uint64_t n,
		unsigned char *buf, bool *map, char *err, size_t errlen)
{
	int ret = 0;

	while (!ret && n) {
		struct ebid_window w;
		struct ebid_piece pc = ebid_output_piece(o, pos, n);
		uint64_t in_pos = pc.src;
		size_t len, in = pc.len > SIZE_MAX ? SIZE_MAX : (size_t)pc.len;

		if (*map && src->fd >= 0 && pc.kind == EBID_PIECE_INPUT) {
			struct window_feed f = { .h = h, .o = o,
						 .pos = pos, .buf = buf,
						 .err = err, .errlen = errlen };

			len = in < WINDOW ? in : WINDOW;
			if (ebid_window_map(src->fd, in_pos, len, &w)) {
				*map = false; /* not mappable: read instead */
				continue;
			}
			f.map = w.p;
			f.n = len;
			ret = ebid_window_guard(&w, feed_window, &f);
			ebid_window_unmap(&w);
			if (ret == -EBID_EBUS)
				ret = window_err(src, o, err, errlen);
		} else {
			len = n < CHUNK ? (size_t)n : CHUNK;
			ret = ebid_read_out(src, o, pos, buf, len);
			if (ret)
				ret = ebid_read_err(err, errlen, ret);
			else
				ret = ebid_hash_update(h, buf, len, err,
						       errlen);
		}
		pos += len;
		n -= len;
	}
	return ret;
}

/* The plain hash: every output byte once, in order. */
static int hash_linear(const struct ebid_src *src,
		       const struct ebid_output *o,
		       unsigned char id[EBID_MAX_ID], char *err, size_t errlen)
{
	struct ebid_hash *h = NULL;
	unsigned char *buf = malloc(CHUNK);
	bool map = true;
	int ret;

	if (!buf)
		return ebid_err(err, errlen, -ENOMEM, "out of memory");
	ret = ebid_hash_new(&h, o->alg, err, errlen);
	if (!ret)
		ret = feed(h, src, o, 0, o->out_size, buf, &map, err,
			   errlen);
	if (!ret)
		ret = ebid_hash_final(h, id, err, errlen);
	ebid_hash_free(h);
	free(buf);
	return ret;
}

/*
 * sha1-tree (docs/build-id.md): leaf i = SHA-1 of output chunk i (4 MiB,
 * id zeroed); id = SHA-1("elf-buildid sha1-tree v1\0" || be64 chunk size ||
 * be64 file size || leaf 0 || leaf 1 || ...), first 20 bytes. Leaves are
 * hashed by two threads, each taking the next chunk nobody has taken: a
 * thread that gets less of the CPU (a shared machine) does fewer chunks.
 */
struct tree {
	const struct ebid_src *src;
	const struct ebid_output *o;
	unsigned char *leaves;
	size_t nchunks;
	atomic_size_t next;     /* the first chunk not yet taken */
	atomic_int ret;
	char err[EBID_ERRLEN];
};

static void *tree_worker(void *arg)
{
	struct tree *t = arg;
	unsigned char *buf = malloc(CHUNK);
	char err[EBID_ERRLEN];
	bool map = true;
	size_t i;
	int ret = 0;

	if (!buf)
		ret = ebid_err(err, sizeof(err), -ENOMEM, "out of memory");
	while (!ret && !atomic_load(&t->ret) &&
	       (i = atomic_fetch_add(&t->next, 1)) < t->nchunks) {
		uint64_t pos = (uint64_t)i * EBID_TREE_CHUNK;
		uint64_t n = t->o->out_size - pos < EBID_TREE_CHUNK
				     ? t->o->out_size - pos
				     : EBID_TREE_CHUNK;
		struct ebid_hash *h = NULL;

		ret = ebid_hash_new(&h, EBID_HASH_SHA1, err, sizeof(err));
		if (!ret)
			ret = feed(h, t->src, t->o, pos, n, buf, &map, err,
				   sizeof(err));
		if (!ret)
			ret = ebid_hash_final(h, t->leaves + 20 * i, err,
					      sizeof(err));
		ebid_hash_free(h);
	}
	free(buf);
	if (ret) {
		int none = 0;

		/* Any failure fails the whole hash; the first one is told. */
		if (atomic_compare_exchange_strong(&t->ret, &none, ret))
			memcpy(t->err, err, sizeof(t->err));
	}
	return NULL;
}

static int hash_tree(const struct ebid_src *src, const struct ebid_output *o,
		     unsigned char id[EBID_MAX_ID], char *err, size_t errlen)
{
	static const char tag[] = "elf-buildid sha1-tree v1";
	struct tree t = { .src = src, .o = o };
	struct ebid_hash *h = NULL;
	unsigned char sizes[16];
	pthread_t th;
	bool threaded;
	int ret;

	t.nchunks = (size_t)((o->out_size + EBID_TREE_CHUNK - 1) /
			     EBID_TREE_CHUNK);
	t.leaves = malloc(t.nchunks ? t.nchunks * 20 : 1);
	if (!t.leaves)
		return ebid_err(err, errlen, -ENOMEM, "out of memory");
	atomic_init(&t.next, 0);
	atomic_init(&t.ret, 0);
	threaded = t.nchunks > 1 &&
		   pthread_create(&th, NULL, tree_worker, &t) == 0;
	tree_worker(&t);
	if (threaded)
		pthread_join(th, NULL);
	if (atomic_load(&t.ret)) {
		ret = ebid_err(err, errlen, atomic_load(&t.ret), "%s", t.err);
		goto out;
	}
	ebid_put(sizes, 8, EBID_TREE_CHUNK, 2 /* big endian */);
	ebid_put(sizes + 8, 8, o->out_size, 2);
	ret = ebid_hash_new(&h, EBID_HASH_SHA1, err, errlen);
	if (!ret)
		ret = ebid_hash_update(h, tag, sizeof(tag), err, errlen);
	if (!ret)
		ret = ebid_hash_update(h, sizes, sizeof(sizes), err, errlen);
	if (!ret)
		ret = ebid_hash_update(h, t.leaves, t.nchunks * 20, err, errlen);
	if (!ret)
		ret = ebid_hash_final(h, id, err, errlen);
out:
	ebid_hash_free(h);
	free(t.leaves);
	return ret;
}

int ebid_compute_id(const struct ebid_src *src, const struct ebid_output *o,
		      unsigned char id[EBID_MAX_ID], char *err, size_t errlen)
{
	memcpy(id, o->id, EBID_MAX_ID);
	if (!o->fill || !o->hash)
		return 0;
	if (o->alg == EBID_HASH_SHA1_TREE)
		return hash_tree(src, o, id, err, errlen);
	return hash_linear(src, o, id, err, errlen);
}

int ebid_hash_src(const struct ebid_src *src, uint64_t desc_off,
		  size_t desc_len, enum ebid_hash_alg alg,
		  unsigned char id[EBID_MAX_ID], char *err, size_t errlen)
{
	struct ebid_output o = { 0 };

	o.in_size = o.out_size = src->size;
	o.fill = o.hash = true;
	o.alg = alg;
	o.id_off = desc_off;
	o.id_len = desc_len;
	return ebid_compute_id(src, &o, id, err, errlen);
}
