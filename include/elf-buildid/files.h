/* SPDX-License-Identifier: MIT */
/*
 * elf-buildid files: reaching files through descriptors, their locks,
 * walking trees, mapped reads, and placing a file by its build-id.
 */
#ifndef ELF_BUILDID_FILES_H
#define ELF_BUILDID_FILES_H

#include <signal.h>
#include <sys/stat.h>

#include "elf-buildid/core.h"

/*
 * Whether path, or its last component, matches one of the n fnmatch(3)
 * globs: the rule of --exclude and --allow-missing.
 */
bool ebid_glob_match(const char *const *globs, size_t n, const char *path);

/*
 * A file reached through a directory descriptor: every open, create,
 * rename and unlink of it and of the temporaries beside it goes through
 * dirfd, so a path component swapped for a symlink later cannot steer a
 * write elsewhere. Owns dirfd and name (one path component).
 */
struct ebid_at {
	int dirfd;
	char *name;
};

void ebid_at_init(struct ebid_at *at);
void ebid_at_release(struct ebid_at *at);
/*
 * A path named by the user: its directory is opened once, symlinks in it
 * followed as the user named them; with follow, a symlink as the last
 * component stands for its target (inject edits the target).
 */
int ebid_at_named(struct ebid_at *at, const char *path, bool follow,
		  char *err, size_t errlen);
/* rel below rootfd, reached with no symlink and no "..": see below. */
int ebid_at_beneath(struct ebid_at *at, int rootfd, const char *rel,
		    char *err, size_t errlen);
/*
 * openat() of rel below dirfd that follows no symlink and never leaves
 * dirfd (openat2 RESOLVE_BENEATH | RESOLVE_NO_SYMLINKS, or the same rule
 * one component at a time where the kernel lacks openat2). Returns the
 * descriptor or a negative errno (-ELOOP: a symlink on the way).
 */
int ebid_open_beneath(int dirfd, const char *rel, int flags, mode_t mode);
/*
 * mkdir -p of rel below rootfd, each level made with mkdirat and opened
 * with O_NOFOLLOW: a symlink where a directory should be is refused.
 * *dirfd receives the last directory (owned by the caller).
 */
int ebid_mkdirs_beneath(int rootfd, const char *rel, int *dirfd, char *err,
			size_t errlen);
/*
 * Opens at's file (O_NOFOLLOW and flags) and takes its lock: flock()
 * exclusive for writers, shared for readers, waiting at most timeout_ms
 * (negative: forever). The lock belongs to the inode the name names when
 * it is granted; a file renamed over meanwhile is opened again. Other
 * elf-buildid runs take the same lock, so runs on one file act one after
 * another. A non-regular file is returned unlocked. Returns the
 * descriptor (owned by the caller; closing it drops the lock) or a
 * negative code (-EBID_ELOCKED on timeout, naming the holder if known;
 * -EBID_ECHANGED when an interrupted in-place edit left its journal
 * beside the file: only a run that writes it undoes that).
 */
int ebid_open_locked(const struct ebid_at *at, int flags, bool exclusive,
		     long timeout_ms, struct stat *st, char *err,
		     size_t errlen);

/*
 * The temporaries that killed runs left, remembered per directory so that
 * a run over many files reads each directory once. Owned by the caller
 * (one per run, shared by its threads); NULL reads the directory each time.
 */
struct ebid_temps;
struct ebid_temps *ebid_temps_new(void);
void ebid_temps_free(struct ebid_temps *t);

/*
 * Tree walking. Each regular file reached from the roots is listed once
 * per inode (hard links and symlinks inside the tree collapse to one
 * entry, the first path in sort order); symlinks are never followed out of
 * the tree; excluded paths and subtrees are left out. Entries are sorted
 * by path. An entry with skip set was not a candidate (why in reason).
 */
struct ebid_walk_entry {
	char *path;             /* as reached: root joined with the rest */
	int rootfd;             /* walked: the root it lies below; -1 named */
	char *rel;              /* walked: the file to act on, below rootfd
				 * (a symlink's in-tree target) */
	const char *reason;     /* static string when skipped (or why error) */
	int error;              /* negative errno when it could not be read */
	bool skip;
	bool named;             /* named on the command line, not walked */
	char *alias_of;         /* skipped: another name of this path (owned) */
	uint64_t dev, ino;
	uint64_t nlink;         /* the inode's link count */
	unsigned links_in_tree; /* paths of this inode seen in the walk */
};

struct ebid_walk {
	struct ebid_walk_entry *v;
	size_t n, cap;
	int *roots;             /* the walked roots, held open */
	size_t nroots;
};

int ebid_walk_add(struct ebid_walk *w, const char *root, bool recursive,
		  const char *const *exclude, size_t nexclude, char *err,
		  size_t errlen);
void ebid_walk_finish(struct ebid_walk *w);
/* Where an entry's file is: below its root, or the path as named. */
int ebid_walk_entry_at(const struct ebid_walk_entry *e, struct ebid_at *at,
		       char *err, size_t errlen);
void ebid_walk_release(struct ebid_walk *w);

/*
 * Files named by their build-id. perf's build-id cache and the debug
 * directories (gdb, /usr/lib/debug) share the layout DIR/.build-id/ab/cdef...
 * where "ab" is the id's first byte in hex and "cdef..." the rest: in a
 * debug directory the separate debug file (or the binary itself) has the
 * suffix EBID_DEBUG_SUFFIX and the binary none; in perf's cache the name is
 * a symlink to a directory holding "elf" and "debug".
 */
#define EBID_DEBUG_SUFFIX ".debug"
#define EBID_PATH_MAX 4096

/*
 * Writes DIR/.build-id/ab/cdef...SUFFIX into buf (dir NULL: the path
 * relative to such a directory; suffix NULL: none). 0, -EINVAL when hex
 * is not 2 to 2 * EBID_MAX_ID hex digits, -ENAMETOOLONG when it does not
 * fit.
 */
int ebid_build_id_path(char *buf, size_t len, const char *dir,
		       const char *hex, const char *suffix);

/*
 * Placing a file by its id, so that perf, gdb or debuginfod find it.
 * EBID_ID_DEBUG_DIR: a copy at DIR/.build-id/ab/cdef....debug; when it is
 * the binary's separate debug file (debug_file), DIR/.build-id/ab/cdef...
 * also becomes a symlink to the binary at bin_path. EBID_ID_PERF_CACHE:
 * perf's layout, copies at DIR/<bin_path>/<id>/debug and .../elf (an elf
 * perf record put there is kept) and the symlink DIR/.build-id/ab/cdef...
 * to ../../<bin_path>/<id>.
 */
enum ebid_id_dir {
	EBID_ID_DEBUG_DIR = 1,
	EBID_ID_PERF_CACHE,
};

struct ebid_placing {
	enum ebid_id_dir kind;
	int dirfd;              /* DIR, held open (see ebid_dir_open_made) */
	const char *dir;        /* its name, for messages and *dest */
	const char *hex;        /* the id, in hex */
	const char *bin_path;   /* the binary's absolute path: perf's cache,
				 * and the debug directory's symlink */
	bool debug_file;        /* EBID_ID_DEBUG_DIR: the bytes placed are
				 * bin_path's separate debug file */
};

/*
 * Places the bytes readable through in_fd (read with pread, or a reflink:
 * never a hard link, so in_fd may be on another file system, such as
 * /proc/PID/map_files/START-END) as p says. Everything below DIR is
 * reached from p->dirfd with mkdirat and O_NOFOLLOW: no symlink is
 * followed and nothing is written outside DIR. A file is written to a
 * temporary name, fsync'd and linked in, never over another: the same
 * bytes already there are fine, anything else (or a symlink) is refused
 * as a collision. *dest receives DIR/... of the file placed (malloc'd,
 * owned by the caller; NULL on failure).
 */
int ebid_place_by_id(int in_fd, const struct ebid_placing *p, char **dest,
		     char *err, size_t errlen);

/*
 * mkdir -p of a directory the user named (its path followed as given),
 * then opens it: *fd is owned by the caller.
 */
int ebid_dir_open_made(const char *dir, int *fd, char *err, size_t errlen);

/*
 * The library reads large inputs through mappings only when the program
 * has installed this as its SIGBUS handler (sigaction with SA_SIGINFO):
 * it turns a fault inside a window being read (the file shrank, an I/O
 * error) into an error return, and makes any other SIGBUS fatal. Without
 * it, the library reads with pread() and installs nothing itself.
 */
void ebid_sigbus_handler(int sig, siginfo_t *si, void *ctx);

#endif
