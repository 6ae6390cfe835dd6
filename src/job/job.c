/* SPDX-License-Identifier: MIT */
/* Whole-file jobs: read, plan, apply to a temp file, self-check, commit. */
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/xattr.h>
#include <unistd.h>

#include "fs/commit.h"
#include "fs/fs.h"
#include "check/check.h"

void ebid_job_release(struct ebid_job *job)
{
	if (!job)
		return;
	ebid_plan_free(job->plan);
	job->plan = NULL;
	ebid_elf_release(&job->elf);
}

/* Reads the freshly written temp file back and checks it (selfcheck.c). */
static int self_check(struct ebid_job *job, int fd, char *err, size_t errlen)
{
	struct ebid_src src = { .fd = fd,
				.size = ebid_plan_out_size(job->plan) };
	struct ebid_elf new;
	char why[EBID_ERRLEN];
	int ret;

	ret = ebid_elf_read_output(&new, &src, &job->elf, job->plan, why,
				   sizeof(why));
	if (ret)
		return ebid_err(err, errlen, -EBID_EVERIFY,
				"self-check of the output failed: %s", why);
	ret = ebid_check_result(&job->elf, &new, job->plan, job->id, err,
				errlen);
	if (!ret)
		ret = ebid_check_moved_bytes(&job->elf, job->plan, job->src,
					     &src, job->id, err, errlen);
	ebid_elf_release(&new);
	return ret;
}

static int self_check_cb(void *job, int fd, char *err, size_t errlen)
{
	return self_check(job, fd, err, errlen);
}

/*
 * A killed --in-place run left the bytes half edited: undo them before
 * anything reads them, whatever this run's mode. The caller holds the
 * file's exclusive lock. Returns 0, or a negative code.
 */
static int undo_interrupted(struct ebid_job *job, int fd, bool writable,
			    struct stat *st, char *err, size_t errlen)
{
	struct stat wst;
	int wfd = fd, ret;

	if (!writable && (job->dry_run || job->output))
		return ebid_err(err, errlen, -EBID_ECHANGED,
				"an interrupted in-place edit left its journal beside it; run inject on the file itself first to undo it");
	if (!writable) {
		wfd = openat(job->at->dirfd, job->at->name,
			     O_RDWR | O_NOFOLLOW | O_CLOEXEC | O_NOCTTY);
		if (wfd < 0)
			return ebid_err(err, errlen, -errno,
					"cannot open to undo an interrupted in-place edit: %s",
					strerror(errno));
		if (fstat(wfd, &wst) != 0 || wst.st_dev != st->st_dev ||
		    wst.st_ino != st->st_ino) {
			close(wfd);
			return ebid_err(err, errlen, -EBID_ECHANGED,
					"file changed while it was being processed; left as it is");
		}
	}
	ret = ebid_inplace_recover(job->at, wfd, st, err, errlen);
	if (wfd != fd)
		close(wfd);
	if (ret > 0 && fstat(fd, st) != 0)
		return ebid_err(err, errlen, -errno, "cannot stat: %s",
				strerror(errno));
	return ret < 0 ? ret : 0;
}

/*
 * Opens the input under its lock, held from the first read to the commit
 * so that runs on one file act one after another, and makes sure it is
 * one the job may read: a regular file, the inode the walk found (or one
 * without other hard links), no interrupted in-place edit left in it.
 * The descriptor, or a negative code.
 */
static int open_input(struct ebid_job *job, bool in_place, bool leased,
		      struct stat *st, char *err, size_t errlen)
{
	/* Only a run that writes the file itself excludes the others. */
	bool exclusive = !job->dry_run && !job->output, open_failed = false;
	int fd, ret;

	fd = ebid_open_locked_step(job->at,
				   in_place || leased ? O_RDWR : O_RDONLY,
				   exclusive, job->lock_timeout_ms, st,
				   &open_failed, err, errlen);
	if (fd < 0 && leased && open_failed)
		return -EBID_ELEASE; /* not writable as it is: replace it */
	if (fd == -ETXTBSY)
		return ebid_err(err, errlen, fd,
				"cannot open for in-place writing: file is being executed (without --in-place it is replaced by rename instead)");
	if (fd < 0 && in_place && open_failed)
		return ebid_err(err, errlen, fd,
				"cannot open for in-place writing: %s",
				strerror(-fd));
	if (fd < 0)
		return fd;
	if (!S_ISREG(st->st_mode))
		ret = ebid_err(err, errlen, -EBID_ENOTELF, "%s",
			       S_ISDIR(st->st_mode)
				       ? "is a directory (use -r to walk it)"
				       : "not a regular file");
	/*
	 * Replaced since the walk by a hard link of a file elsewhere: the
	 * links outside are not ours to change.
	 */
	else if (job->walk_ino && st->st_nlink > 1 &&
		 ((uint64_t)st->st_ino != job->walk_ino ||
		  (uint64_t)st->st_dev != job->walk_dev))
		ret = ebid_err(err, errlen, -EBID_ECHANGED,
			       "replaced during the run by a file with %ju hard links; left as it is",
			       (uintmax_t)st->st_nlink);
	else if (ebid_inplace_pending(job->at))
		ret = undo_interrupted(job, fd, in_place || leased, st, err,
				       errlen);
	else
		ret = 0;
	if (ret) {
		close(fd);
		return ret;
	}
	return fd;
}

/* The plan's bytes into the file itself, journalled (fs/inplace.c). */
static int edit_in_place(struct ebid_job *job, const struct ebid_src *src,
			 const struct stat *st, bool leased, char *err,
			 size_t errlen)
{
	struct ebid_edit e;
	int ret = ebid_plan_edit(job->plan, job->id, &e);

	if (ret)
		return ebid_err(err, errlen, ret, "out of memory");
	ret = ebid_inplace_write(job->at, src->fd, st, &e,
				 job->preserve_times, leased, self_check_cb,
				 job, err, errlen);
	ebid_edit_release(&e);
	return ret;
}

/*
 * The default write mode (and -o): a temporary beside the target, the
 * self-check, then the rename over it.
 */
static int write_replace(struct ebid_job *job, const struct ebid_src *src,
			 const struct stat *st, char *err, size_t errlen)
{
	struct ebid_commit c;
	struct ebid_at out;
	int ret;

	ebid_commit_init(&c);
	ebid_at_init(&out);
	if (!job->output && st->st_nlink > 1)
		return ebid_err(err, errlen, -EMLINK,
				"file has %ju hard links; replacing it would split them (use --in-place, or -o)",
				(uintmax_t)st->st_nlink);
	/*
	 * The directory decides whether a rename may replace the file; the
	 * file's own mode says whether its owner meant it to be written.
	 * Honour the second too, as cp and sed -i do.
	 */
	if (!job->output && faccessat(job->at->dirfd, job->at->name, W_OK,
				      AT_EACCESS) != 0)
		return ebid_err(err, errlen, -errno,
				"not writable (mode %04o): %s; nothing changed",
				(unsigned)(st->st_mode & 07777),
				strerror(errno));
	/* -o: a symlink named as OUT is replaced, not written through. */
	ret = job->output ? ebid_at_named(&out, job->output, false, err, errlen)
			  : 0;
	if (!ret)
		ret = ebid_commit_begin(&c,
					job->output ? out.dirfd : job->at->dirfd,
					job->output ? out.name : job->at->name,
					job->temps, job->lock_timeout_ms, err,
					errlen);
	if (!ret)
		ret = ebid_apply_fd(src, job->plan, c.fd, job->id, err,
				    errlen);
	if (!ret)
		ret = self_check(job, c.fd, err, errlen);
	if (!ret)
		ret = ebid_commit_finish(&c, src->fd, st, !job->output,
					 job->preserve_times, err, errlen);
	ebid_commit_abort(&c);
	ebid_at_release(&out);
	return ret;
}

/* Reads and plans the input: 0 with job->skipped set for a non-program. */
static int read_and_plan(struct ebid_job *job, const struct ebid_src *src,
			 char *err, size_t errlen)
{
	struct ebid_output o;
	int ret = ebid_elf_read(&job->elf, src, err, errlen);

	if (ret == -EBID_ENOTELF && job->skip_non_programs) {
		snprintf(job->skip_why, sizeof(job->skip_why),
			 "not an ELF file");
		job->skipped = job->skip_why;
		return 0;
	}
	if (ret)
		return ret;
	if (job->skip_non_programs &&
	    ebid_elf_check_program(&job->elf, job->skip_why,
				   sizeof(job->skip_why)) == -EBID_ENOTPROG) {
		job->skipped = job->skip_why;
		return 0;
	}
	job->opts.replace_constant = !job->opts.keep_constant &&
				     ebid_gnu_id_constant(&job->elf);
	ret = ebid_plan_make(job->plan, &job->elf, &job->opts, err,
			     errlen);
	if (ret)
		return ret;
	ebid_plan_output(job->plan, &o);
	job->id_len = o.id_len;
	memcpy(job->id, o.id, EBID_MAX_ID);
	return 0;
}

/*
 * Whether the default mode may edit this inode in place: a file of one
 * link (the others would change too), not a mount point, without
 * set-user-ID, set-group-ID
 * or file capabilities (a write clears those), that nobody else has open
 * or mapped: the write lease says so, and holds others off while it is
 * held (src/fs/lease.c).
 */
static bool lease_for_edit(int fd, const struct stat *st)
{
	struct statx stx;

	if (!S_ISREG(st->st_mode) || st->st_nlink != 1 ||
	    (st->st_mode & (S_ISUID | S_ISGID)))
		return false;
	/*
	 * A file bind-mounted over the name is another file, shown here:
	 * like a hard link's, its other name is not ours to change (a
	 * rename over it is refused with EBUSY, as it was before leases).
	 */
	if (statx(fd, "", AT_EMPTY_PATH, STATX_BASIC_STATS, &stx) != 0 ||
	    !(stx.stx_attributes_mask & STATX_ATTR_MOUNT_ROOT) ||
	    (stx.stx_attributes & STATX_ATTR_MOUNT_ROOT))
		return false;
	if (fgetxattr(fd, "security.capability", NULL, 0) >= 0 ||
	    (errno != ENODATA && errno != ENOTSUP))
		return false;
	return ebid_lease_take(fd) == 0;
}

/*
 * One try of the job. leased: the default mode's first try, which opens
 * the file for writing and edits it in place under a write lease;
 * -EBID_ELEASE when that cannot be (the caller tries again without).
 */
static int run_once(struct ebid_job *job, bool leased, char *err,
		    size_t errlen)
{
	struct ebid_src src = { .fd = -1 };
	struct ebid_output o;
	struct stat st;
	bool in_place = job->in_place && !job->dry_run && !job->output;
	int ret;

	ebid_plan_free(job->plan);
	job->plan = ebid_plan_new();
	if (!job->plan)
		return ebid_err(err, errlen, -ENOMEM, "out of memory");
	memset(&job->elf, 0, sizeof(job->elf));
	job->changed = false;
	job->skipped = NULL;
	job->id_len = 0;
	job->how = NULL;

	src.fd = open_input(job, in_place, leased, &st, err, errlen);
	if (src.fd < 0)
		return src.fd;
	if (leased && !lease_for_edit(src.fd, &st)) {
		close(src.fd);
		return -EBID_ELEASE;
	}
	src.size = (uint64_t)st.st_size;
	job->src = &src;
	ret = read_and_plan(job, &src, err, errlen);
	if (ret || job->skipped || job->dry_run ||
	    (!ebid_plan_changes(job->plan) && !job->output))
		goto out;
	ebid_plan_output(job->plan, &o);
	if ((in_place || leased) && o.ins_len) {
		/* The file's bytes would move: no journal can undo that. */
		ret = leased ? -EBID_ELEASE
			     : ebid_err(err, errlen, -EBID_ENOROOM,
					"the plan inserts %llu bytes at 0x%llx (insert-gap), which --in-place cannot do; run without --in-place (the file is replaced by rename)",
					(unsigned long long)o.ins_len,
					(unsigned long long)o.ins_at);
	} else if (in_place || leased) {
		ebid_commit_sweep(job->at->dirfd, job->at->name, job->temps,
				  job->lock_timeout_ms);
		ret = ebid_apply_hash(&src, job->plan, job->id, err, errlen);
		if (!ret)
			ret = edit_in_place(job, &src, &st, leased, err,
					    errlen);
		job->how = leased ? "edited in place under a write lease"
				  : "edited in place (--in-place)";
	} else {
		ret = write_replace(job, &src, &st, err, errlen);
		job->how = job->output ? "written to the output (-o)"
				       : "replaced by rename";
	}
	job->changed = !ret;
out:
	job->src = NULL;
	/* Closing the descriptor gives the lease up. */
	close(src.fd);
	if (ret == -EBID_ELEASE) {
		ebid_job_release(job);
		memset(&job->elf, 0, sizeof(job->elf));
	}
	return ret;
}

int ebid_job_run(struct ebid_job *job, char *err, size_t errlen)
{
	/*
	 * The default mode edits in place when nobody else has the file
	 * open or mapped, and else replaces it by rename, leaving them the
	 * inode they have: both keep every promise of docs/reliability.md.
	 * The second try opens the file again, read-only: a program that
	 * waited for the lease may be starting (execve refuses a file that
	 * is open for writing).
	 */
	if (!job->in_place && !job->replace && !job->dry_run &&
	    !job->output) {
		int ret = run_once(job, true, err, errlen);

		if (ret != -EBID_ELEASE)
			return ret;
	}
	return run_once(job, false, err, errlen);
}

int ebid_content_id(int fd, const struct ebid_elf *elf,
		    enum ebid_hash_alg alg, unsigned char id[EBID_MAX_ID],
		    char *err, size_t errlen)
{
	struct ebid_src src = { .fd = fd };
	struct stat st;

	if (fstat(fd, &st) != 0)
		return ebid_err(err, errlen, -errno, "cannot stat: %s",
				strerror(errno));
	src.size = (uint64_t)st.st_size;
	if (src.size != elf->file_size)
		return ebid_err(err, errlen, -EBID_ECHANGED,
				"file changed while it was being read");
	return ebid_hash_src(&src, elf->gnu.desc_off, elf->gnu.desc_len, alg,
			     id, err, errlen);
}
