/* SPDX-License-Identifier: MIT */
/* Applying a plan: compute the id and materialize the output file. */
#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "internal.h"

#define CHUNK (1u << 20)        /* reads through a buffer */
#define WINDOW (2u << 20)       /* mapped at a time */
#define BLOCK (64u << 10)       /* unit of the plan's changes in a window */
#define PIECE (8u << 20)        /* copied before its writeback is started */

/* Where output bytes go: a file descriptor, a memory buffer, or nowhere. */
struct sink {
	int fd;                 /* -1 unless writing to a file */
	unsigned char *mem;     /* NULL unless writing to memory */
};

/*
 * Overlays the plan on buf, which holds output bytes [pos, pos + n). The
 * id range reads as zeros while hashing; an explicit id goes in directly.
 */
static void overlay(const struct ebid_plan *plan, uint64_t pos,
		    unsigned char *buf, size_t n, bool id_zero)
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

		for (; lo < hi; lo++)
			buf[lo - pos] = id_zero && plan->hash
						? 0
						: plan->id[lo - plan->id_off];
	}
}

/* Output bytes [pos, pos + n) of the planned file, with the id zeroed. */
static int read_out(const struct ebid_src *src, const struct ebid_plan *plan,
		    uint64_t pos, unsigned char *buf, size_t n)
{
	size_t have = 0;
	int ret;

	if (pos < plan->in_size) {
		have = plan->in_size - pos < n ? (size_t)(plan->in_size - pos)
					       : n;
		ret = ebid_src_read(src, pos, buf, have);
		if (ret)
			return ret;
	}
	if (have < n)
		memcpy(buf + have,
		       plan->append + (pos + have - plan->in_size), n - have);
	overlay(plan, pos, buf, n, true);
	return 0;
}

static int read_err(char *err, size_t errlen, int ret)
{
	return ebid_err(err, errlen, ret, "read failed: %s", strerror(-ret));
}

/* Does the plan change any output byte in [pos, pos + n)? */
static bool plan_touches(const struct ebid_plan *plan, uint64_t pos, size_t n)
{
	uint64_t end = pos + n;
	size_t i;

	for (i = 0; i < plan->npatches; i++)
		if (plan->patches[i].off < end &&
		    plan->patches[i].off + plan->patches[i].len > pos)
			return true;
	return plan->fill && plan->id_off < end &&
	       plan->id_off + plan->id_len > pos;
}

/* A mapped window of input bytes to hash, and where to put changed blocks. */
struct window_feed {
	struct ebid_hash *h;
	const struct ebid_plan *plan;
	const unsigned char *map;       /* input bytes [pos, pos + n) */
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

		if (plan_touches(f->plan, f->pos + at, b)) {
			memcpy(f->buf, f->map + at, b);
			overlay(f->plan, f->pos + at, f->buf, b, true);
			ret = ebid_hash_update(f->h, f->buf, b, f->err,
					       f->errlen);
			at += b;
			continue;
		}
		for (run = b; at + run < f->n; run += b) {
			b = f->n - at - run < BLOCK ? f->n - at - run : BLOCK;
			if (plan_touches(f->plan, f->pos + at + run, b))
				break;
		}
		ret = ebid_hash_update(f->h, f->map + at, run, f->err,
				       f->errlen);
		at += run;
	}
	return ret;
}

/* A window could not be read: the file shrank, or the disk failed. */
static int window_err(const struct ebid_src *src, const struct ebid_plan *plan,
		      char *err, size_t errlen)
{
	struct stat st;

	if (fstat(src->fd, &st) == 0 && (uint64_t)st.st_size < plan->in_size)
		return ebid_err(err, errlen, -EBID_ECHANGED,
				"file shrank while it was being read");
	return read_err(err, errlen, -EIO);
}

/*
 * Feeds output bytes [pos, pos + n) to h. The input is mapped a window at
 * a time while *map holds; the first window that cannot be mapped clears
 * it, and the rest goes through read_out() and buf (CHUNK bytes).
 */
static int feed(struct ebid_hash *h, const struct ebid_src *src,
		const struct ebid_plan *plan, uint64_t pos, uint64_t n,
		unsigned char *buf, bool *map, char *err, size_t errlen)
{
	int ret = 0;

	while (!ret && n) {
		struct ebid_window w;
		size_t len;

		if (*map && src->fd >= 0 && pos < plan->in_size) {
			uint64_t in = plan->in_size - pos < n
					      ? plan->in_size - pos
					      : n;
			struct window_feed f = { .h = h, .plan = plan,
						 .pos = pos, .buf = buf,
						 .err = err, .errlen = errlen };

			len = in < WINDOW ? (size_t)in : WINDOW;
			if (ebid_window_map(src->fd, pos, len, &w)) {
				*map = false; /* not mappable: read instead */
				continue;
			}
			f.map = w.p;
			f.n = len;
			ret = ebid_window_guard(&w, feed_window, &f);
			ebid_window_unmap(&w);
			if (ret == -EBID_EBUS)
				ret = window_err(src, plan, err, errlen);
		} else {
			len = n < CHUNK ? (size_t)n : CHUNK;
			ret = read_out(src, plan, pos, buf, len);
			if (ret)
				ret = read_err(err, errlen, ret);
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
		       const struct ebid_plan *plan,
		       unsigned char id[EBID_MAX_ID], char *err, size_t errlen)
{
	struct ebid_hash *h = NULL;
	unsigned char *buf = malloc(CHUNK);
	bool map = true;
	int ret;

	if (!buf)
		return ebid_err(err, errlen, -ENOMEM, "out of memory");
	ret = ebid_hash_new(&h, plan->alg, err, errlen);
	if (!ret)
		ret = feed(h, src, plan, 0, plan->out_size, buf, &map, err,
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
	const struct ebid_plan *plan;
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
		uint64_t n = t->plan->out_size - pos < EBID_TREE_CHUNK
				     ? t->plan->out_size - pos
				     : EBID_TREE_CHUNK;
		struct ebid_hash *h = NULL;

		ret = ebid_hash_new(&h, EBID_HASH_SHA1, err, sizeof(err));
		if (!ret)
			ret = feed(h, t->src, t->plan, pos, n, buf, &map, err,
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

static int hash_tree(const struct ebid_src *src, const struct ebid_plan *plan,
		     unsigned char id[EBID_MAX_ID], char *err, size_t errlen)
{
	static const char tag[] = "elf-buildid sha1-tree v1";
	struct tree t = { .src = src, .plan = plan };
	struct ebid_hash *h = NULL;
	unsigned char sizes[16];
	pthread_t th;
	bool threaded;
	int ret;

	t.nchunks = (size_t)((plan->out_size + EBID_TREE_CHUNK - 1) /
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
	ebid_put(sizes + 8, 8, plan->out_size, 2);
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

static int compute_id(const struct ebid_src *src, const struct ebid_plan *plan,
		      unsigned char id[EBID_MAX_ID], char *err, size_t errlen)
{
	memcpy(id, plan->id, EBID_MAX_ID);
	if (!plan->fill || !plan->hash)
		return 0;
	if (plan->alg == EBID_HASH_SHA1_TREE)
		return hash_tree(src, plan, id, err, errlen);
	return hash_linear(src, plan, id, err, errlen);
}

static int write_at(int fd, const unsigned char *buf, size_t n, uint64_t pos,
		    char *err, size_t errlen)
{
	while (n) {
		ssize_t w = pwrite(fd, buf, n, (off_t)pos);

		if (w < 0 && errno == EINTR)
			continue;
		if (w <= 0)
			return ebid_err(err, errlen, w < 0 ? -errno : -EIO,
					"write failed: %s",
					w < 0 ? strerror(errno) : "no progress");
		buf += w;
		pos += (uint64_t)w;
		n -= (size_t)w;
	}
	return 0;
}

/*
 * The bulk copy of the input into the output file, run beside the hash:
 * copy_file_range() keeps the bytes in the kernel; a read/write loop is
 * the fallback where it is not supported.
 */
struct copy {
	int in, out;
	uint64_t size;
	uint64_t written;       /* writeback started for [0, written) */
	int ret;
	char err[EBID_ERRLEN];
};

/* Copies [pos, end) of the input; 0 or a negative errno in c->ret. */
static void copy_range(struct copy *c, uint64_t pos, uint64_t end,
		       bool *fallback, unsigned char **buf)
{
	while (pos < end) {
		size_t want = end - pos < PIECE ? (size_t)(end - pos) : PIECE;
		ssize_t n;

		if (pos - c->written >= PIECE) {
			/* Start writeback of what is copied so far while the
			 * copy goes on, so the disk works beside us and the
			 * final fsync has little left to wait for. A hint:
			 * errors show at fsync. */
			sync_file_range(c->out, (off_t)c->written,
					(off_t)(pos - c->written),
					SYNC_FILE_RANGE_WRITE);
			c->written = pos;
		}

		if (!*fallback) {
			loff_t ip = (loff_t)pos, op = (loff_t)pos;

			n = copy_file_range(c->in, &ip, c->out, &op, want, 0);
			if (n < 0 && (errno == EXDEV || errno == ENOSYS ||
				      errno == EOPNOTSUPP || errno == EINVAL ||
				      errno == EPERM)) {
				*fallback = true;
				continue;
			}
			if (n < 0 && errno == EINTR)
				continue;
			if (n <= 0) {
				c->ret = ebid_err(c->err, sizeof(c->err),
						  n < 0 ? -errno : -EIO,
						  "copy failed: %s",
						  n < 0 ? strerror(errno)
							: "file shrank");
				return;
			}
			pos += (uint64_t)n;
			continue;
		}
		if (!*buf && !(*buf = malloc(CHUNK))) {
			c->ret = ebid_err(c->err, sizeof(c->err), -ENOMEM,
					  "out of memory");
			return;
		}
		if (want > CHUNK)
			want = CHUNK;
		n = pread(c->in, *buf, want, (off_t)pos);
		if (n < 0 && errno == EINTR)
			continue;
		if (n <= 0) {
			c->ret = ebid_err(c->err, sizeof(c->err),
					  n < 0 ? -errno : -EIO,
					  "read failed: %s",
					  n < 0 ? strerror(errno) : "file shrank");
			return;
		}
		c->ret = write_at(c->out, *buf, (size_t)n, pos, c->err,
				  sizeof(c->err));
		if (c->ret)
			return;
		pos += (uint64_t)n;
	}
}

/*
 * Copies the data extents only (SEEK_DATA/SEEK_HOLE), so a sparse input
 * stays sparse; the size is set by ftruncate at the end.
 */
static void *copy_worker(void *arg)
{
	struct copy *c = arg;
	unsigned char *buf = NULL;
	bool fallback = false;
	struct stat st;
	uint64_t pos = 0;

	while (!c->ret && pos < c->size) {
		off_t data = lseek(c->in, (off_t)pos, SEEK_DATA), hole;

		if (data < 0 && errno == ENXIO)
			break; /* only a hole is left */
		if (data < 0) {
			copy_range(c, pos, c->size, &fallback, &buf);
			break;
		}
		hole = lseek(c->in, data, SEEK_HOLE);
		if (hole < 0 || (uint64_t)hole > c->size)
			hole = (off_t)c->size;
		copy_range(c, (uint64_t)data, (uint64_t)hole, &fallback, &buf);
		pos = (uint64_t)hole;
	}
	/* A hole at the end leaves the copy short: set the size. Only then:
	 * a truncate to the same size still costs 0.5 ms on XFS. */
	if (!c->ret && (fstat(c->out, &st) != 0 ||
			(uint64_t)st.st_size != c->size) &&
	    ftruncate(c->out, (off_t)c->size) != 0)
		c->ret = ebid_err(c->err, sizeof(c->err), -errno,
				  "cannot set the output's size: %s",
				  strerror(errno));
	/* The rest: writeback of the last piece starts now. */
	if (!c->ret)
		sync_file_range(c->out, (off_t)c->written, 0,
				SYNC_FILE_RANGE_WRITE);
	free(buf);
	return NULL;
}

/* Writes the plan's own bytes over the copied input. */
static int write_plan(int fd, const struct ebid_plan *plan,
		      const unsigned char *id, char *err, size_t errlen)
{
	size_t i;
	int ret = 0;

	for (i = 0; !ret && i < plan->npatches; i++)
		ret = write_at(fd, plan->patches[i].bytes, plan->patches[i].len,
			       plan->patches[i].off, err, errlen);
	if (!ret && plan->append_len)
		ret = write_at(fd, plan->append, plan->append_len,
			       plan->in_size, err, errlen);
	if (!ret && plan->fill)
		ret = write_at(fd, id, plan->id_len, plan->id_off, err, errlen);
	return ret;
}

static int apply(const struct ebid_src *src, const struct ebid_plan *plan,
		 struct sink *sink, unsigned char id[EBID_MAX_ID], char *err,
		 size_t errlen)
{
	struct copy c = { .in = src->fd, .out = sink->fd,
			  .size = plan->in_size };
	pthread_t th;
	bool copying = false;
	uint64_t pos;
	int ret;

	if (src->size != plan->in_size)
		return ebid_err(err, errlen, -EBID_ECHANGED,
				"file size changed since it was read");
	if (src->fd >= 0)
		posix_fadvise(src->fd, 0, 0, POSIX_FADV_SEQUENTIAL);
	if (sink->fd >= 0 && src->fd >= 0) {
		/* Copy and hash at once: the two run on separate cores. */
		if (pthread_create(&th, NULL, copy_worker, &c) == 0)
			copying = true;
		else
			copy_worker(&c);
	}
	ret = compute_id(src, plan, id, err, errlen);
	if (copying)
		pthread_join(th, NULL);
	if (ret)
		return ret;
	if (c.ret && sink->fd >= 0)
		return ebid_err(err, errlen, c.ret, "%s", c.err);

	if (sink->fd >= 0 && src->fd >= 0)
		return write_plan(sink->fd, plan, id, err, errlen);
	if (sink->fd >= 0 || sink->mem) {
		/* Memory sources (tests, fuzzing): chunk by chunk. */
		unsigned char buf[4096];

		for (pos = 0; pos < plan->out_size;) {
			size_t n = plan->out_size - pos < sizeof(buf)
					   ? (size_t)(plan->out_size - pos)
					   : sizeof(buf);

			ret = read_out(src, plan, pos, buf, n);
			if (ret)
				return read_err(err, errlen, ret);
			if (sink->mem)
				memcpy(sink->mem + pos, buf, n);
			else if ((ret = write_at(sink->fd, buf, n, pos, err,
						 errlen)))
				return ret;
			pos += n;
		}
		if (plan->fill && sink->mem)
			memcpy(sink->mem + plan->id_off, id, plan->id_len);
		else if (plan->fill)
			return write_at(sink->fd, id, plan->id_len,
					plan->id_off, err, errlen);
	}
	return 0;
}

int ebid_apply_fd(const struct ebid_src *src, const struct ebid_plan *plan,
		  int out_fd, unsigned char id[EBID_MAX_ID], char *err,
		  size_t errlen)
{
	struct sink s = { .fd = out_fd };

	return apply(src, plan, &s, id, err, errlen);
}

int ebid_apply_hash(const struct ebid_src *src, const struct ebid_plan *plan,
		    unsigned char id[EBID_MAX_ID], char *err, size_t errlen)
{
	struct sink s = { .fd = -1 };

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

	plan.in_size = plan.out_size = src->size;
	plan.fill = plan.hash = true;
	plan.alg = alg;
	plan.id_off = desc_off;
	plan.id_len = desc_len;
	return compute_id(src, &plan, id, err, errlen);
}
