/* SPDX-License-Identifier: MIT */
/*
 * test_plan.c's growable byte buffers, files read whole. Part of one translation unit: test_plan.c
 * includes every file of tests/unit/plan/ in order, and they share its
 * static helpers and its TAP (tap.h).
 */

/* ---- bytes -------------------------------------------------------------- */

struct buf {
	unsigned char *p;
	size_t len;
};

static void buf_free(struct buf *b)
{
	free(b->p);
	b->p = NULL;
	b->len = 0;
}

static struct buf buf_dup(const struct buf *b)
{
	struct buf c = {malloc(b->len ? b->len : 1), b->len};

	if (!c.p)
		abort();
	memcpy(c.p, b->p, b->len);
	return c;
}

static void buf_grow(struct buf *b, size_t len)
{
	unsigned char *p = realloc(b->p, len);

	if (!p)
		abort();
	if (len > b->len)
		memset(p + b->len, 0, len - b->len);
	b->p = p;
	b->len = len;
}

/* The whole file, or an empty buffer with why set. */
static struct buf load(const char *path, const char **why)
{
	struct buf b = {0};
	FILE *f = fopen(path, "rb");
	long len;

	*why = NULL;
	if (!f) {
		*why = strerror(errno);
		return b;
	}
	if (fseek(f, 0, SEEK_END) || (len = ftell(f)) <= 0 ||
	    fseek(f, 0, SEEK_SET)) {
		*why = "cannot size";
		fclose(f);
		return b;
	}
	b.p = malloc((size_t)len);
	if (!b.p)
		abort();
	b.len = (size_t)len;
	if (fread(b.p, 1, b.len, f) != b.len) {
		*why = "short read";
		buf_free(&b);
	}
	fclose(f);
	return b;
}

/*
 * The library reads memory sources and file descriptors alike, but for
 * one kind of input it cannot read from memory (see same_reads()); such an
 * input is then read through a memfd holding the same bytes, so that its
 * planning is still checked.
 */
static bool g_via_fd;

static struct ebid_src source(const struct buf *b, int *fd)
{
	struct ebid_src s = {.fd = -1, .mem = b->p, .size = b->len};
	size_t done = 0;

	*fd = -1;
	if (!g_via_fd)
		return s;
	*fd = memfd_create("test_plan", MFD_CLOEXEC);
	if (*fd < 0)
		abort();
	while (done < b->len) {
		ssize_t w = write(*fd, b->p + done, b->len - done);

		if (w <= 0)
			abort();
		done += (size_t)w;
	}
	s.fd = *fd;
	s.mem = NULL;
	return s;
}

static void source_close(int *fd)
{
	if (*fd >= 0)
		close(*fd);
	*fd = -1;
}
