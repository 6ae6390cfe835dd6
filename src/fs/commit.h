/* SPDX-License-Identifier: MIT */
/* Safe file replacement (internal): temp file, metadata, rename. */
#ifndef EBID_COMMIT_H
#define EBID_COMMIT_H

#include <stdbool.h>
#include <sys/stat.h>

#include "internal.h"
#include "fs/fs.h"

/*
 * A temp file being written beside name in the directory dirfd. Owns fd,
 * tmp and name; dirfd is the caller's and must outlive the commit.
 */
struct ebid_commit {
	int fd, dirfd;
	char *tmp, *name;
};

void ebid_commit_init(struct ebid_commit *c);
int ebid_commit_begin(struct ebid_commit *c, int dirfd, const char *name,
		      struct ebid_temps *temps, long timeout_ms, char *err,
		      size_t errlen);
/*
 * fsync, copy metadata from orig/in_fd (owner, mode, xattrs when
 * keep_all_meta, else the mode only), check the target still is orig, rename
 * over target, fsync the directory. Always releases c.
 */
int ebid_commit_finish(struct ebid_commit *c, int in_fd,
		       const struct stat *orig, bool keep_all_meta,
		       bool preserve_times, char *err, size_t errlen);
/* Same inode, size, modification and change times. */
bool ebid_same_file_state(const struct stat *a, const struct stat *b);
/*
 * Removes, under the directory's lock, the temporaries that killed runs
 * left beside name (a run writing name in place makes none of its own but
 * clears theirs, as a replacing run does). Best effort.
 */
void ebid_commit_sweep(int dirfd, const char *name, struct ebid_temps *temps,
		       long timeout_ms);
/* Removes the temp file and releases c. Accepts an initialised c. */
void ebid_commit_abort(struct ebid_commit *c);


/*
 * An edit's bytes into fd (internal.h: byte ranges, in order; fs/ knows
 * nothing of plans): the appended range at its offset or, with appended,
 * through O_APPEND and counted there, so a recovery knows what to drop.
 * The one writer of new bytes, for a new file (job/apply.c) and in place
 * (inplace.c). 0 or -errno.
 */
int ebid_write_edit(int fd, const struct ebid_edit *e, uint64_t *appended);

/*
 * In-place editing with an undo journal beside the file (inplace.c). The
 * caller holds the file's lock, which makes the journal's name its own.
 */
bool ebid_inplace_pending(const struct ebid_at *at);
int ebid_inplace_recover(const struct ebid_at *at, int fd,
			 const struct stat *st, char *err, size_t errlen);
typedef int (*ebid_check_fn)(void *arg, int fd, char *err, size_t errlen);
/*
 * The journal first (synced with its directory), then the edit's bytes,
 * check(arg, fd) on the result, fsync, the journal removed; any failure
 * after the first byte changed puts the original back from the journal.
 * leased: fd holds a write lease (ebid_lease_take()); if someone asked
 * for the file before its first byte changed, nothing is changed and
 * -EBID_ELEASE returned; once checked, the lease is released before the
 * sync, so that waiting openers go on and read the new bytes.
 */
int ebid_inplace_write(const struct ebid_at *at, int fd, const struct stat *st,
		       const struct ebid_edit *e, bool preserve_times,
		       bool leased, ebid_check_fn check, void *arg, char *err,
		       size_t errlen);
/* ebid_inplace_write() gave way to an opener: replace the file instead. */
#define EBID_ELEASE 4102

#endif
