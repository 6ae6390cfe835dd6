/* SPDX-License-Identifier: MIT */
/* Applying a plan: the output file (or buffer), written beside the hash. */
#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "internal.h"
#include "fs/commit.h"
#include "id/id.h"

#define CHUNK EBID_IO_CHUNK
#define PIECE (8u << 20)        /* copied before its writeback is started */

/* Where output bytes go: a file descriptor, a memory buffer, or nowhere. */
struct sink {
	int fd;                 /* -1 unless writing to a file */
	unsigned char *mem;     /* NULL unless writing to memory */
};

static int write_at(int fd, const unsigned char *buf, size_t n, uint64_t pos,
		    char *err, size_t errlen)
{
	int ret = ebid_pwrite_full(fd, buf, n, pos);

	return ret ? ebid_err(err, errlen, ret, "write failed: %s",
			      strerror(-ret))
		   : 0;
}

/*
 * The bulk copy of the input into the output file, run beside the hash:
 * copy_file_range() keeps the bytes in the kernel; a read/write loop is
 * the fallback where it is not supported. What goes where is the plan's
 * map (ebid_output_piece()): each piece of the input is copied to its
 * place, the gap and the appended bytes are not the copy's.
 */
struct copy {
	int in, out;
	const struct ebid_output *o;   /* what to copy where */
	uint64_t written;       /* writeback started for [0, written) of the
				 * output */
	int ret;
	char err[EBID_ERRLEN];
};

/*
 * Copies [pos, end) of the input to pos + delta of the output; 0 or a
 * negative errno in c->ret.
 */
static void copy_range(struct copy *c, uint64_t pos, uint64_t end,
		       uint64_t delta, bool *fallback, unsigned char **buf)
{
	while (pos < end) {
		size_t want = end - pos < PIECE ? (size_t)(end - pos) : PIECE;
		uint64_t out = pos + delta;
		ssize_t n;

		if (out > c->written && out - c->written >= PIECE) {
			/* Start writeback of what is copied so far while the
			 * copy goes on, so the disk works beside us and the
			 * final fsync has little left to wait for. A hint:
			 * errors show at fsync. */
			sync_file_range(c->out, (off_t)c->written,
					(off_t)(out - c->written),
					SYNC_FILE_RANGE_WRITE);
			c->written = out;
		}

		if (!*fallback) {
			loff_t ip = (loff_t)pos, op = (loff_t)out;

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
		c->ret = ebid_pread_full(c->in, *buf, want, pos);
		if (c->ret) {
			ebid_err(c->err, sizeof(c->err), c->ret,
				 "read failed: %s", strerror(-c->ret));
			return;
		}
		c->ret = write_at(c->out, *buf, want, out, c->err,
				  sizeof(c->err));
		if (c->ret)
			return;
		pos += want;
	}
}

/*
 * Copies the data extents of the input's [lo, hi) only (SEEK_DATA and
 * SEEK_HOLE), so a sparse input stays sparse, to delta further on.
 */
static void copy_extents(struct copy *c, uint64_t lo, uint64_t hi,
			 uint64_t delta, bool *fallback, unsigned char **buf)
{
	uint64_t pos = lo;

	while (!c->ret && pos < hi) {
		off_t data = lseek(c->in, (off_t)pos, SEEK_DATA), hole;

		if (data < 0 && errno == ENXIO)
			break; /* only a hole is left */
		if (data < 0) {
			copy_range(c, pos, hi, delta, fallback, buf);
			break;
		}
		if ((uint64_t)data >= hi)
			break;
		hole = lseek(c->in, data, SEEK_HOLE);
		if (hole < 0 || (uint64_t)hole > hi)
			hole = (off_t)hi;
		copy_range(c, (uint64_t)data, (uint64_t)hole, delta, fallback,
			   buf);
		pos = (uint64_t)hole;
	}
}

/*
 * Every input piece of the map to its place; the size is set by ftruncate
 * at the end (holes, the gap, stay sparse).
 */
static void *copy_worker(void *arg)
{
	struct copy *c = arg;
	const struct ebid_output *o = c->o;
	unsigned char *buf = NULL;
	bool fallback = false;
	struct stat st;
	uint64_t out = 0, body = o->in_size + o->ins_len;

	while (!c->ret && out < body) {
		struct ebid_piece pc = ebid_output_piece(o, out, body - out);

		if (pc.kind == EBID_PIECE_INPUT)
			copy_extents(c, pc.src, pc.src + pc.len, out - pc.src,
				     &fallback, &buf);
		out += pc.len;
	}
	/* A hole at the end leaves the copy short: set the size. Only then:
	 * a truncate to the same size still costs 0.5 ms on XFS. */
	if (!c->ret && (fstat(c->out, &st) != 0 ||
			(uint64_t)st.st_size != body) &&
	    ftruncate(c->out, (off_t)body) != 0)
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
	struct ebid_edit e;
	int ret = ebid_plan_edit(plan, id, &e);

	if (!ret)
		ret = ebid_write_edit(fd, &e, NULL);
	ebid_edit_release(&e);
	return ret ? ebid_err(err, errlen, ret, "write failed: %s",
			      strerror(-ret))
		   : 0;
}

static int apply(const struct ebid_src *src, const struct ebid_plan *plan,
		 struct sink *sink, unsigned char id[EBID_MAX_ID], char *err,
		 size_t errlen)
{
	struct ebid_output o;
	struct copy c = { .in = src->fd, .out = sink->fd, .o = &o };
	pthread_t th;
	bool copying = false;
	uint64_t pos;
	int ret;

	ebid_plan_output(plan, &o);
	if (src->size != o.in_size)
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
	ret = ebid_compute_id(src, &o, id, err, errlen);
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

		for (pos = 0; pos < o.out_size;) {
			size_t n = o.out_size - pos < sizeof(buf)
					   ? (size_t)(o.out_size - pos)
					   : sizeof(buf);

			ret = ebid_read_out(src, &o, pos, buf, n);
			if (ret)
				return ebid_read_err(err, errlen, ret);
			if (sink->mem)
				memcpy(sink->mem + pos, buf, n);
			else if ((ret = write_at(sink->fd, buf, n, pos, err,
						 errlen)))
				return ret;
			pos += n;
		}
		if (o.fill && sink->mem)
			memcpy(sink->mem + o.id_off, id, o.id_len);
		else if (o.fill)
			return write_at(sink->fd, id, o.id_len,
					o.id_off, err, errlen);
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
	uint64_t size = ebid_plan_out_size(plan);
	int ret;

	*out = NULL;
	*out_len = 0;
	if (size > SIZE_MAX)
		return ebid_err(err, errlen, -EFBIG, "output too large");
	s.mem = malloc(size ? (size_t)size : 1);
	if (!s.mem)
		return ebid_err(err, errlen, -ENOMEM, "out of memory");
	ret = apply(src, plan, &s, id, err, errlen);
	if (ret) {
		free(s.mem);
		return ret;
	}
	*out = s.mem;
	*out_len = (size_t)size;
	return 0;
}
