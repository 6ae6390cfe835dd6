/* SPDX-License-Identifier: MIT */
/* In-place editing: journal the bytes to change, then patch the inode. */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "fs/commit.h"

/*
 * The journal ".NAME.ebid-journal" beside the file holds the original
 * bytes of every range the edit writes, so that a run killed halfway (or a
 * power loss) can be undone by the next one. Layout, little endian:
 *   "EBIDJNL2", u64 dev, u64 ino, u64 original size, u64 count,
 *   then count times { u64 offset, u64 length, bytes },
 *   then "EBIDJEND", u64 FNV-1a 64 of every byte before "EBIDJEND".
 * The file is written only after the whole journal is synced, so a
 * journal without its valid end was never committed: the crash came
 * before the file's first byte changed, and it is removed unread.
 * "EBIDJNL1" (no end record) is what releases before 2026-12-06 wrote.
 */
#define JNL_MAGIC "EBIDJNL2"
#define JNL_MAGIC_V1 "EBIDJNL1"
#define JNL_END "EBIDJEND"

/* FNV-1a, 64 bits: finds a torn journal; no adversary is assumed. */
#define FNV_START 0xcbf29ce484222325ull
static uint64_t fnv(uint64_t h, const unsigned char *p, size_t n)
{
	while (n--) {
		h ^= *p++;
		h *= 0x100000001b3ull;
	}
	return h;
}

/* The journal's name in the file's directory (owned by the caller). */
static char *journal_name(const struct ebid_at *at)
{
	char *out;

	if (asprintf(&out, ".%s.ebid-journal", at->name) < 0)
		return NULL;
	return out;
}

static void put64(unsigned char *p, uint64_t v)
{
	ebid_put(p, 8, v, 1 /* ELFDATA2LSB */);
}

static uint64_t get64(const unsigned char *p)
{
	return ebid_get(p, 8, 1);
}

static int sync_dir_of(const struct ebid_at *at)
{
	return fsync(at->dirfd) != 0 ? -errno : 0;
}

/* Removes the journal and makes that durable. */
static int remove_journal(const struct ebid_at *at, const char *jp,
			  char *err, size_t errlen)
{
	int ret;

	if (unlinkat(at->dirfd, jp, 0) != 0)
		return ebid_err(err, errlen, -errno,
				"cannot remove journal '%s': %s (it is empty: the next run removes it)",
				jp, strerror(errno));
	ret = sync_dir_of(at);
	if (ret)
		return ebid_err(err, errlen, ret,
				"cannot sync the directory after removing journal '%s': %s",
				jp, strerror(-ret));
	return 0;
}

/*
 * Undoes a run from its journal. drop: what it appended that goes too:
 * RECOVER_ALL back to the journal's original size (an interrupted run),
 * 0 nothing, N the last N bytes of the file (this run's own append, which
 * it made at the end of the file as it was then: what another writer
 * appended before it stays).
 */
#define RECOVER_ALL (-1)

/* The file's size back as recover() says (drop), from size as read. */
static int restore_size(int fd, uint64_t size, int64_t drop)
{
	struct stat now;

	if (!drop)
		return 0;
	if (drop > 0 && fstat(fd, &now) == 0 &&
	    (uint64_t)now.st_size >= (uint64_t)drop)
		size = (uint64_t)now.st_size - (uint64_t)drop;
	return ftruncate(fd, (off_t)size);
}

/*
 * Whether the journal open at jfd (size bytes) was committed: 1 when its
 * end record is there and its checksum holds (a v1 journal has none and
 * counts as committed), 0 when it is torn or not a journal at all, a
 * negative code when it cannot be read. *records_end: where its records
 * stop.
 */
static int journal_committed(int jfd, uint64_t size,
			     const unsigned char hdr[40], uint64_t *records_end)
{
	unsigned char buf[4096], end[16];
	uint64_t pos = 0, h = FNV_START;
	int ret;

	if (!memcmp(hdr, JNL_MAGIC_V1, 8)) {
		*records_end = size;
		return 1;
	}
	if (memcmp(hdr, JNL_MAGIC, 8) || size < 40 + sizeof(end))
		return 0;
	*records_end = size - sizeof(end);
	ret = ebid_pread_full(jfd, end, sizeof(end), *records_end);
	if (ret)
		return ret;
	if (memcmp(end, JNL_END, 8))
		return 0;
	while (pos < *records_end) {
		size_t n = *records_end - pos < sizeof(buf)
				   ? (size_t)(*records_end - pos)
				   : sizeof(buf);

		ret = ebid_pread_full(jfd, buf, n, pos);
		if (ret)
			return ret;
		h = fnv(h, buf, n);
		pos += n;
	}
	return get64(end + 8) == h;
}

/* Puts back the journal's count records, from pos up to records_end. */
static int restore_records(int jfd, int fd, const char *jp, uint64_t count,
			   uint64_t pos, uint64_t records_end, char *err,
			   size_t errlen)
{
	unsigned char rec[16], *buf = NULL;
	uint64_t i;
	int ret = 0;

	for (i = 0; !ret && i < count; i++) {
		uint64_t off, len;

		if (pos + 16 > records_end || ebid_pread_full(jfd, rec, 16, pos)) {
			ret = ebid_err(err, errlen, -EIO,
				       "journal '%s' is truncated", jp);
			break;
		}
		off = get64(rec);
		len = get64(rec + 8);
		if (len > (1u << 24) || len > records_end - pos - 16) {
			ret = ebid_err(err, errlen, -EIO,
				       "journal '%s' is corrupt", jp);
			break;
		}
		free(buf);
		buf = malloc(len ? len : 1);
		if (!buf) {
			ret = ebid_err(err, errlen, -ENOMEM, "out of memory");
			break;
		}
		if (ebid_pread_full(jfd, buf, len, pos + 16) ||
		    ebid_pwrite_full(fd, buf, len, off))
			ret = ebid_err(err, errlen, -EIO,
				       "cannot restore from journal '%s'", jp);
		pos += 16 + len;
	}
	free(buf);
	return ret;
}

static int recover(const struct ebid_at *at, int fd, const struct stat *st,
		   int64_t drop, char *err, size_t errlen)
{
	char *jp = journal_name(at);
	unsigned char hdr[40] = { 0 };
	uint64_t records_end = 0;
	struct stat jst;
	int jfd = -1, ret;

	if (!jp)
		return ebid_err(err, errlen, -ENOMEM, "out of memory");
	jfd = openat(at->dirfd, jp, O_RDONLY | O_CLOEXEC | O_NOFOLLOW);
	if (jfd < 0) {
		ret = errno == ENOENT ? 0
				      : ebid_err(err, errlen, -errno,
						 "cannot open journal '%s': %s",
						 jp, strerror(errno));
		goto out;
	}
	if (fstat(jfd, &jst) != 0) {
		ret = ebid_err(err, errlen, -errno,
			       "cannot stat journal '%s': %s", jp,
			       strerror(errno));
		goto out;
	}
	/*
	 * An empty journal is one whose run completed, a torn one one whose
	 * run never changed the file: nothing to undo in either.
	 */
	ret = jst.st_size >= (off_t)sizeof(hdr)
		      ? ebid_pread_full(jfd, hdr, sizeof(hdr), 0)
		      : 0;
	if (!ret)
		ret = journal_committed(jfd, (uint64_t)jst.st_size, hdr,
					&records_end);
	if (ret < 0) {
		ret = ebid_err(err, errlen, ret, "cannot read journal '%s': %s",
			       jp, strerror(-ret));
		goto out;
	}
	if (!ret) {
		ret = remove_journal(at, jp, err, errlen);
		goto out;
	}
	if (get64(hdr + 8) != (uint64_t)st->st_dev ||
	    get64(hdr + 16) != (uint64_t)st->st_ino) {
		ret = ebid_err(err, errlen, -EBID_ECHANGED,
			       "stale journal '%s' does not belong to this file; remove it by hand",
			       jp);
		goto out;
	}
	ret = restore_records(jfd, fd, jp, get64(hdr + 32), sizeof(hdr),
			      records_end, err, errlen);
	if (ret)
		goto out;
	if (restore_size(fd, get64(hdr + 24), drop) != 0 || fsync(fd) != 0) {
		ret = ebid_err(err, errlen, -errno,
			       "cannot restore from journal '%s': %s", jp,
			       strerror(errno));
		goto out;
	}
	ret = remove_journal(at, jp, err, errlen);
	if (!ret)
		ret = 1;
out:
	if (jfd >= 0)
		close(jfd);
	free(jp);
	return ret;
}

bool ebid_inplace_pending(const struct ebid_at *at)
{
	char *jp = journal_name(at);
	struct stat st;
	bool ret = jp && fstatat(at->dirfd, jp, &st, AT_SYMLINK_NOFOLLOW) == 0;

	free(jp);
	return ret;
}

/*
 * Undoes an interrupted run from its journal, if there is one for this
 * inode. Returns 1 when something was restored, 0 when there was nothing.
 */
int ebid_inplace_recover(const struct ebid_at *at, int fd,
			 const struct stat *st, char *err, size_t errlen)
{
	return recover(at, fd, st, RECOVER_ALL, err, errlen);
}

/* Another process changed the file since st was taken. */
static int changed_since(int fd, const struct stat *st, uint64_t size,
			 bool times, char *err, size_t errlen)
{
	struct stat now;

	if (fstat(fd, &now) != 0)
		return ebid_err(err, errlen, -errno,
				"cannot stat (to see whether the file changed): %s",
				strerror(errno));
	if ((uint64_t)now.st_size != size ||
	    (times && !ebid_same_file_state(st, &now)))
		return ebid_err(err, errlen, -EBID_ECHANGED,
				"file changed while it was being processed; left as it is");
	return 0;
}

/* A journal being built in memory, written in one go. */
struct jbuf {
	unsigned char *p;
	size_t len, cap;
	uint64_t count;
	int ret;
};

static unsigned char *jbuf_grow(struct jbuf *j, size_t n)
{
	unsigned char *p;

	if (j->ret)
		return NULL;
	if (n > SIZE_MAX - j->len) {
		j->ret = -ENOMEM;
		return NULL;
	}
	if (j->len + n > j->cap) {
		size_t cap = j->cap ? j->cap : 4096;

		while (cap < j->len + n)
			cap = cap > SIZE_MAX / 2 ? j->len + n : cap * 2;
		p = realloc(j->p, cap);
		if (!p) {
			j->ret = -ENOMEM;
			return NULL;
		}
		j->p = p;
		j->cap = cap;
	}
	p = j->p + j->len;
	j->len += n;
	return p;
}

/* The record of [off, off + len) of the file open at fd, as it is now. */
static void journal_range(struct jbuf *j, int fd, uint64_t off, uint64_t len,
			  uint64_t in_size)
{
	unsigned char *rec;

	if (off >= in_size || !len)
		return;
	if (off + len > in_size)
		len = in_size - off;
	if (len > SIZE_MAX - 16 || !(rec = jbuf_grow(j, 16 + (size_t)len)))
		return;
	put64(rec, off);
	put64(rec + 8, len);
	j->ret = ebid_pread_full(fd, rec + 16, (size_t)len, off);
	j->count++;
}

/*
 * Writes the journal jp: the original bytes of every range the edit
 * writes, synced with its directory. jfd receives its descriptor.
 */
static int write_journal(const struct ebid_at *at, const char *jp, int fd,
			 const struct stat *st, const struct ebid_edit *e,
			 int *jfd, char *err, size_t errlen)
{
	struct jbuf j = { 0 };
	unsigned char *end;
	size_t i;
	int ret;

	jbuf_grow(&j, 40);
	for (i = 0; i < e->n; i++)
		journal_range(&j, fd, e->v[i].off, e->v[i].len, e->in_size);
	if (!j.ret) {
		memcpy(j.p, JNL_MAGIC, 8);
		put64(j.p + 8, (uint64_t)st->st_dev);
		put64(j.p + 16, (uint64_t)st->st_ino);
		put64(j.p + 24, e->in_size);
		put64(j.p + 32, j.count);
	}
	end = jbuf_grow(&j, 16);
	if (end) {
		memcpy(end, JNL_END, 8);
		put64(end + 8, fnv(FNV_START, j.p, j.len - 16));
	}
	ret = j.ret;
	if (ret) {
		free(j.p);
		return ebid_err(err, errlen, ret, "cannot make journal '%s': %s",
				jp, strerror(-ret));
	}
	*jfd = openat(at->dirfd, jp,
		      O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC | O_NOFOLLOW,
		      0600);
	if (*jfd < 0) {
		free(j.p);
		return ebid_err(err, errlen, -errno,
				"cannot create journal '%s': %s", jp,
				strerror(errno));
	}
	ret = ebid_pwrite_full(*jfd, j.p, j.len, 0);
	free(j.p);
	if (!ret && fsync(*jfd) != 0)
		ret = -errno;
	if (!ret)
		ret = sync_dir_of(at);
	if (ret)
		return ebid_err(err, errlen, ret,
				"cannot write journal '%s': %s", jp,
				strerror(-ret));
	return 0;
}

/*
 * The appended bytes, written at the end of the file as it is now
 * (O_APPEND), not at the size we read: a byte another process appended
 * meanwhile then stays before ours, and the size after tells. *done: how
 * many of ours are in the file.
 */
static int append_at_end(int fd, const unsigned char *buf, size_t len,
			 uint64_t *done)
{
	int fl = fcntl(fd, F_GETFL), ret = 0;
	ssize_t n;

	if (fl < 0 || fcntl(fd, F_SETFL, fl | O_APPEND) != 0)
		return -errno;
	while (*done < len) {
		n = write(fd, buf + *done, len - *done);
		if (n < 0 && errno == EINTR)
			continue;
		if (n <= 0) {
			ret = n < 0 ? -errno : -EIO;
			break;
		}
		*done += (uint64_t)n;
	}
	/* pwrite() on an O_APPEND descriptor would append too (Linux). */
	if (fcntl(fd, F_SETFL, fl) != 0 && !ret)
		ret = -errno;
	return ret;
}

int ebid_write_edit(int fd, const struct ebid_edit *e, uint64_t *appended)
{
	size_t i;
	int ret = 0;

	for (i = 0; !ret && i < e->n; i++) {
		const struct ebid_range *r = &e->v[i];

		if (r->append && appended)
			ret = append_at_end(fd, r->bytes, (size_t)r->len,
					    appended);
		else
			ret = ebid_pwrite_full(fd, r->bytes, (size_t)r->len,
					       r->off);
	}
	return ret;
}

/* The times as they were: set last, after every read of the check. */
static int keep_times(int fd, const struct stat *st, char *err, size_t errlen)
{
	struct timespec ts[2] = { st->st_atim, st->st_mtim };

	if (futimens(fd, ts) != 0)
		return ebid_err(err, errlen, -errno,
				"cannot set the times back: %s",
				strerror(errno));
	return 0;
}

/*
 * The edit's bytes into the file itself (not synced);
 * *appended: how many appended bytes are in the file.
 */
static int patch_file(int fd, const struct ebid_edit *e, uint64_t *appended,
		      char *err, size_t errlen)
{
	int ret = ebid_write_edit(fd, e, appended);

	if (ret)
		return ebid_err(err, errlen, ret, "in-place write failed: %s",
				strerror(-ret));
	return 0;
}

/*
 * The bytes this run changed, on their way to the disk and waited for; the
 * directory's sync after the journal's removal (drop_journal()) flushes
 * the disk's cache, which makes them durable before that removal is
 * (a journal commit flushes what was written before it: jbd2's, XFS's
 * log force). The rest of the file is left as durable as its writer left
 * it: a program its linker has just written is in the page cache, and
 * an fsync would write every byte of it (about 100 ms for 180 MB here)
 * for a change of a few dozen. An edit that changes the file's size needs
 * the inode's metadata too: fsync.
 */
static int sync_changed(int fd, const struct ebid_edit *e, char *err,
			size_t errlen)
{
	const unsigned flags = SYNC_FILE_RANGE_WAIT_BEFORE |
			       SYNC_FILE_RANGE_WRITE |
			       SYNC_FILE_RANGE_WAIT_AFTER;
	bool grows = e->out_size != e->in_size;
	size_t i;
	int ret = 0;

	for (i = 0; i < e->n; i++)
		grows |= e->v[i].append;
	if (grows) {
		if (fsync(fd) != 0)
			ret = -errno;
	} else {
		for (i = 0; !ret && i < e->n; i++)
			if (sync_file_range(fd, (off_t)e->v[i].off,
					    (off_t)e->v[i].len, flags) != 0)
				ret = -errno;
	}
	if (ret)
		return ebid_err(err, errlen, ret, "in-place write failed: cannot sync: %s",
				strerror(-ret));
	return 0;
}

/*
 * The run is complete and synced: the journal goes, and the directory is
 * synced so that it does not come back (a crash before that leaves it
 * whole, and the next run undoes this one: the old file, allowed). Where
 * it cannot be removed it is emptied, which says "completed".
 */
static int drop_journal(const struct ebid_at *at, int jfd, const char *jp,
			char *err, size_t errlen)
{
	if (unlinkat(at->dirfd, jp, 0) != 0) {
		int e = errno;

		if (ftruncate(jfd, 0) != 0 || fsync(jfd) != 0)
			return ebid_err(err, errlen, -e,
					"cannot remove journal '%s': %s, nor empty it: %s (the next run undoes this one)",
					jp, strerror(e), strerror(errno));
		return ebid_err(err, errlen, -e,
				"cannot remove journal '%s': %s (it is empty: the next run removes it)",
				jp, strerror(e));
	}
	if (sync_dir_of(at) != 0)
		return ebid_err(err, errlen, -errno,
				"cannot sync the directory after removing journal '%s': %s",
				jp, strerror(errno));
	return 0;
}

/*
 * A failed run puts the original bytes back; the journal stays where it
 * cannot. Only what this run appended is dropped, not another writer's.
 */
static void undo(const struct ebid_at *at, int fd, const struct stat *st,
		 uint64_t appended, int ret, char *err, size_t errlen)
{
	char why[EBID_ERRLEN];

	if (recover(at, fd, st, (int64_t)appended, why, sizeof(why)) < 0)
		ebid_err(err, errlen, ret,
			 "in-place write failed and undo failed (%s); journal kept",
			 why);
}

int ebid_inplace_write(const struct ebid_at *at, int fd, const struct stat *st,
		       const struct ebid_edit *e, bool preserve_times,
		       bool leased, ebid_check_fn check, void *arg, char *err,
		       size_t errlen)
{
	char *jp = journal_name(at);
	int jfd = -1, ret;
	bool have_journal = false, touched = false;
	uint64_t appended = 0, append_len = 0;
	size_t i;

	for (i = 0; i < e->n; i++)
		if (e->v[i].append)
			append_len += e->v[i].len;

	if (!jp)
		return ebid_err(err, errlen, -ENOMEM, "out of memory");
	if (e->inserts) {
		free(jp);
		return ebid_err(err, errlen, -EBID_ENOROOM,
				"internal error: an edit that inserts bytes cannot be written in place");
	}
	/* Read and hashed: the bytes must still be the ones we read. */
	ret = changed_since(fd, st, e->in_size, true, err, errlen);
	if (!ret) {
		ret = write_journal(at, jp, fd, st, e, &jfd, err, errlen);
		have_journal = jfd >= 0; /* ours to remove, then */
	}
	if (!ret)
		ret = changed_since(fd, st, e->in_size, true, err, errlen);
	/*
	 * Someone asked for the file while the journal was written: nothing
	 * is changed yet, so give way to them (the caller replaces the file
	 * by rename instead, leaving them the inode they opened).
	 */
	if (!ret && leased && !ebid_lease_intact(fd))
		ret = ebid_err(err, errlen, -EBID_ELEASE,
			       "someone opened the file; not edited in place");
	if (ret)
		goto out;
	/* From here on the journal can undo every byte we write. */
	touched = true;
	ret = patch_file(fd, e, &appended, err, errlen);
	/*
	 * Our own writes changed the times, so only the size can still tell
	 * a writer that appended meanwhile (see docs/build-id.md, --in-place).
	 */
	if (!ret)
		ret = changed_since(fd, st, e->in_size + append_len, false, err,
				    errlen);
	/* The journal goes only once the result has been checked. */
	if (!ret && check)
		ret = check(arg, fd, err, errlen);
	if (!ret && preserve_times)
		ret = keep_times(fd, st, err, errlen);
	/*
	 * Complete and checked: whoever opens the file now reads the new
	 * bytes (the page cache). Waiting openers go on before the sync.
	 */
	if (!ret && leased)
		ebid_lease_release(fd);
	if (!ret)
		ret = sync_changed(fd, e, err, errlen);
	if (!ret) {
		touched = have_journal = false;
		ret = drop_journal(at, jfd, jp, err, errlen);
	}
out:
	if (ret && touched)
		undo(at, fd, st, appended, ret, err, errlen);
	else if (ret && have_journal) {
		unlinkat(at->dirfd, jp, 0);
		sync_dir_of(at);
	}
	if (jfd >= 0)
		close(jfd);
	free(jp);
	return ret;
}
