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
 * bytes of every range the plan writes, so that a run killed halfway can
 * be undone by the next one. Layout, little endian:
 *   "EBIDJNL1", u64 dev, u64 ino, u64 original size, u64 count,
 *   then count times { u64 offset, u64 length, bytes }.
 */
#define JNL_MAGIC "EBIDJNL1"

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

static int recover(const struct ebid_at *at, int fd, const struct stat *st,
		   int64_t drop, char *err, size_t errlen)
{
	char *jp = journal_name(at);
	unsigned char hdr[40], *buf = NULL;
	uint64_t count, i, pos = 40, size;
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
	/* An empty journal is one whose run completed: nothing to undo. */
	if (fstat(jfd, &jst) == 0 && jst.st_size == 0) {
		ret = remove_journal(at, jp, err, errlen);
		goto out;
	}
	if (ebid_pread_full(jfd, hdr, sizeof(hdr), 0) || memcmp(hdr, JNL_MAGIC, 8) ||
	    get64(hdr + 8) != (uint64_t)st->st_dev ||
	    get64(hdr + 16) != (uint64_t)st->st_ino) {
		ret = ebid_err(err, errlen, -EBID_ECHANGED,
			       "stale journal '%s' does not belong to this file; remove it by hand",
			       jp);
		goto out;
	}
	size = get64(hdr + 24);
	count = get64(hdr + 32);
	for (i = 0; i < count; i++) {
		unsigned char rec[16];
		uint64_t off, len;

		if (ebid_pread_full(jfd, rec, 16, pos)) {
			ret = ebid_err(err, errlen, -EIO,
				       "journal '%s' is truncated", jp);
			goto out;
		}
		off = get64(rec);
		len = get64(rec + 8);
		if (len > (1u << 24)) {
			ret = ebid_err(err, errlen, -EIO,
				       "journal '%s' is corrupt", jp);
			goto out;
		}
		free(buf);
		buf = malloc(len ? len : 1);
		if (!buf) {
			ret = ebid_err(err, errlen, -ENOMEM, "out of memory");
			goto out;
		}
		if (ebid_pread_full(jfd, buf, len, pos + 16) ||
		    ebid_pwrite_full(fd, buf, len, off)) {
			ret = ebid_err(err, errlen, -EIO,
				       "cannot restore from journal '%s'", jp);
			goto out;
		}
		pos += 16 + len;
	}
	if (restore_size(fd, size, drop) != 0 || fsync(fd) != 0) {
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
	free(buf);
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

static int journal_range(int jfd, uint64_t *pos, int fd, uint64_t off,
			 uint64_t len, uint64_t in_size)
{
	unsigned char rec[16], *buf;
	int ret;

	if (off >= in_size || !len)
		return 0;
	if (off + len > in_size)
		len = in_size - off;
	buf = malloc(len);
	if (!buf)
		return -ENOMEM;
	put64(rec, off);
	put64(rec + 8, len);
	ret = ebid_pread_full(fd, buf, len, off);
	if (!ret)
		ret = ebid_pwrite_full(jfd, rec, 16, *pos);
	if (!ret)
		ret = ebid_pwrite_full(jfd, buf, len, *pos + 16);
	free(buf);
	*pos += 16 + len;
	return ret;
}

/*
 * Writes the journal jp: the original bytes of every range the plan
 * writes, synced with its directory. jfd receives its descriptor.
 */
static int write_journal(const struct ebid_at *at, const char *jp, int fd,
			 const struct stat *st, const struct ebid_plan *plan,
			 int *jfd, char *err, size_t errlen)
{
	unsigned char hdr[40];
	uint64_t pos = 40, count = plan->npatches + (plan->fill ? 1 : 0);
	size_t i;
	int ret;

	*jfd = openat(at->dirfd, jp,
		      O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC | O_NOFOLLOW,
		      0600);
	if (*jfd < 0)
		return ebid_err(err, errlen, -errno,
				"cannot create journal '%s': %s", jp,
				strerror(errno));
	memcpy(hdr, JNL_MAGIC, 8);
	put64(hdr + 8, (uint64_t)st->st_dev);
	put64(hdr + 16, (uint64_t)st->st_ino);
	put64(hdr + 24, plan->in_size);
	put64(hdr + 32, count);
	ret = ebid_pwrite_full(*jfd, hdr, sizeof(hdr), 0);
	for (i = 0; !ret && i < plan->npatches; i++)
		ret = journal_range(*jfd, &pos, fd, plan->patches[i].off,
				    plan->patches[i].len, plan->in_size);
	if (!ret && plan->fill)
		ret = journal_range(*jfd, &pos, fd, plan->id_off, plan->id_len,
				    plan->in_size);
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

int ebid_write_plan(int fd, const struct ebid_plan *plan,
		    const unsigned char *id, uint64_t *appended)
{
	size_t i;
	int ret = 0;

	for (i = 0; !ret && i < plan->npatches; i++)
		ret = ebid_pwrite_full(fd, plan->patches[i].bytes,
				       plan->patches[i].len,
				       plan->patches[i].off);
	if (!ret && plan->append_len && appended)
		ret = append_at_end(fd, plan->append, plan->append_len,
				    appended);
	else if (!ret && plan->append_len)
		ret = ebid_pwrite_full(fd, plan->append, plan->append_len,
				       ebid_plan_body_end(plan));
	if (!ret && plan->fill)
		ret = ebid_pwrite_full(fd, id, plan->id_len, plan->id_off);
	return ret;
}

/*
 * The planned bytes and the id into the file itself, then fsync;
 * *appended: how many appended bytes are in the file.
 */
static int patch_file(int fd, const struct stat *st,
		      const struct ebid_plan *plan, const unsigned char *id,
		      bool preserve_times, uint64_t *appended, char *err,
		      size_t errlen)
{
	int ret = ebid_write_plan(fd, plan, id, appended);

	if (!ret && preserve_times) {
		struct timespec ts[2] = { st->st_atim, st->st_mtim };

		if (futimens(fd, ts) != 0)
			ret = -errno;
	}
	if (!ret && fsync(fd) != 0)
		ret = -errno;
	if (ret)
		return ebid_err(err, errlen, ret, "in-place write failed: %s",
				strerror(-ret));
	return 0;
}

/* Committed: an empty journal undoes nothing, even if it stays. */
static int empty_journal(int jfd, const char *jp, char *err, size_t errlen)
{
	if (ftruncate(jfd, 0) != 0)
		return ebid_err(err, errlen, -errno,
				"cannot truncate journal '%s': %s", jp,
				strerror(errno));
	if (fsync(jfd) != 0)
		return ebid_err(err, errlen, -errno,
				"cannot sync journal '%s': %s", jp,
				strerror(errno));
	return 0;
}

int ebid_inplace_write(const struct ebid_at *at, int fd, const struct stat *st,
		       const struct ebid_plan *plan, const unsigned char *id,
		       bool preserve_times, ebid_check_fn check, void *arg,
		       char *err, size_t errlen)
{
	char *jp = journal_name(at);
	int jfd = -1, ret;
	bool have_journal = false, touched = false;
	uint64_t appended = 0;

	if (!jp)
		return ebid_err(err, errlen, -ENOMEM, "out of memory");
	if (plan->ins_len) {
		free(jp);
		return ebid_err(err, errlen, -EBID_ENOROOM,
				"internal error: a plan that inserts bytes cannot be written in place");
	}
	/* Read and hashed: the bytes must still be the ones we read. */
	ret = changed_since(fd, st, plan->in_size, true, err, errlen);
	if (!ret) {
		ret = write_journal(at, jp, fd, st, plan, &jfd, err, errlen);
		have_journal = jfd >= 0; /* ours to remove, then */
	}
	if (!ret)
		ret = changed_since(fd, st, plan->in_size, true, err, errlen);
	if (ret)
		goto out;
	/* From here on the journal can undo every byte we write. */
	touched = true;
	ret = patch_file(fd, st, plan, id, preserve_times, &appended, err,
			 errlen);
	/*
	 * Our own writes changed the times, so only the size can still tell
	 * a writer that appended meanwhile (see docs/build-id.md, --in-place).
	 */
	if (!ret)
		ret = changed_since(fd, st, plan->in_size + plan->append_len,
				    false, err, errlen);
	/* The journal goes only once the result has been checked. */
	if (!ret && check)
		ret = check(arg, fd, err, errlen);
	if (!ret)
		ret = empty_journal(jfd, jp, err, errlen);
	if (!ret) {
		touched = have_journal = false;
		ret = remove_journal(at, jp, err, errlen);
	}
out:
	if (jfd >= 0)
		close(jfd);
	if (ret && touched) {
		char why[EBID_ERRLEN];

		/*
		 * Put the original bytes back; keep the journal if we cannot.
		 * Drop only what we appended, not what another writer did.
		 */
		if (recover(at, fd, st, (int64_t)appended, why,
			    sizeof(why)) < 0)
			ebid_err(err, errlen, ret,
				 "in-place write failed and undo failed (%s); journal kept",
				 why);
	} else if (ret && have_journal) {
		unlinkat(at->dirfd, jp, 0);
		sync_dir_of(at);
	}
	free(jp);
	return ret;
}
