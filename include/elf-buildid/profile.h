/* SPDX-License-Identifier: MIT */
/*
 * elf-buildid profiles: the perf bridge, perf.data and pprof profiles,
 * finding a file by its build-id as perf, gdb and pprof do, the running
 * kernel's and vDSO's ids.
 */
#ifndef ELF_BUILDID_PROFILE_H
#define ELF_BUILDID_PROFILE_H

#include "elf-buildid/core.h"

/*
 * perf bridge: run `perf buildid-list -i` on the file open at fd (perf
 * reads that very inode, whatever its path now names) with a fixed
 * environment, killed after timeout_ms; hex receives what perf printed
 * (trimmed). Returns -ENOENT when perf is not installed.
 */
int ebid_perf_buildid(int fd, long timeout_ms, char *hex, size_t hexlen,
		      char *err, size_t errlen);

/*
 * A binary a profile has samples in: its path as recorded, the build-id
 * recorded for it (lower-case hex; "" when none was), and for pprof whether
 * the profile already names its functions.
 */
struct ebid_dso {
	char *path;
	char id[2 * EBID_MAX_ID + 1];
	bool symbolized;
	char note[96];          /* why a recorded id was not taken, or "" */
};


/*
 * `debuginfod-find KIND HEX` (KIND executable or debuginfo) with exactly the
 * environment envp (DEBUGINFOD_URLS, its cache, HOME): the path of the file
 * it fetched. -ENOENT when it is not installed or found nothing.
 */
int ebid_debuginfod_find(const char *kind, const char *hex,
			 char *const envp[], long timeout_ms, char *path,
			 size_t pathlen, char *err, size_t errlen);

enum ebid_profile_format {
	EBID_PROFILE_PERF = 1,  /* perf.data, read through perf */
	EBID_PROFILE_PPROF,     /* profile.proto, gzip'd or not */
};

struct ebid_profile {
	enum ebid_profile_format format;
	/*
	 * When it was captured, in ns since the epoch (0: unknown): a
	 * perf.data's mtime (what perf prints as "captured on"), a pprof
	 * profile's time_nanos.
	 */
	int64_t captured_ns;
	struct ebid_dso *dsos;  /* the binaries with samples */
	size_t ndsos;
};

/*
 * Reads the profile open at fd, a perf.data or a pprof profile. Returns
 * -EBID_EMALFORMED when it is neither, or cannot be read.
 */
int ebid_profile_read(int fd, long timeout_ms, struct ebid_profile *prof,
		      char *err, size_t errlen);
void ebid_profile_release(struct ebid_profile *prof);

/* The pprof half of ebid_profile_read, on bytes (gzip'd or not). */
int ebid_pprof_parse(const unsigned char *data, size_t len,
		     struct ebid_profile *prof, char *err, size_t errlen);

/*
 * The GNU build-id that readers by section (perf) take from the file at
 * path, following symlinks as perf does: 0 with the lower-case hex in hex
 * ("" when the file is ELF without one they can read), or a negative code
 * when it is not a readable ELF file.
 */
int ebid_file_id(const char *path, char *hex, size_t hexlen, char *err,
		 size_t errlen);

/* Where a file with a given id may be, in the order they are looked in. */
struct ebid_places {
	const char *perf_caches[2];     /* perf's build-id caches, or NULL */
	const char *debug_dirs[2];      /* debug directories, or NULL */
	bool debuginfod;                /* ask debuginfod-find last */
	char *const *debuginfod_env;    /* its whole environment */
	long debuginfod_timeout_ms;
};

enum ebid_found_in {
	EBID_FOUND_NONE = 0,
	EBID_FOUND_PERF_CACHE,
	EBID_FOUND_DEBUG_DIR,
	EBID_FOUND_DEBUGINFOD,
};

struct ebid_found {
	enum ebid_found_in in;
	const char *dir;                /* the cache or debug dir (places') */
	char path[EBID_PATH_MAX];       /* the file that has the id */
	/* Why debuginfod gave nothing with the id, or "" when not asked. */
	char debuginfod_why[EBID_ERRLEN];
};

/*
 * Looks for a file whose GNU build-id (as perf reads it) is hex: in each
 * of perf's caches (.build-id/ab/cdef... then its /elf and /debug), each
 * debug directory (.build-id/ab/cdef....debug, then without the suffix),
 * then debuginfod (executable, then debuginfo). 0 with *found filled;
 * -ENOENT when none has it (found->debuginfod_why may say more); -EINVAL
 * when hex is not an id.
 */
int ebid_find_by_id(const struct ebid_places *pl, const char *hex,
		    struct ebid_found *found, char *err, size_t errlen);

/*
 * Where google/pprof looks for a mapping's binary by id in each directory
 * of the colon-separated pprof_path (internal/driver/fetch.go,
 * locateBinaries): DIR/ID/BASENAME, DIR/PATH/ID, DIR/ab/cdef....debug,
 * any file in DIR/ID. recorded is the mapping's path. 0 with the file's
 * path in found, -ENOENT, or -EINVAL when hex is not an id.
 */
int ebid_find_in_pprof_path(const char *pprof_path, const char *recorded,
			    const char *hex, char *found, size_t foundlen,
			    char *err, size_t errlen);

/*
 * The GNU build-id of the running kernel (/sys/kernel/notes) and of this
 * process's vDSO (the kernel maps the same image into every process of an
 * ABI): 0 with the hex in hex, or a negative code (-ENOENT: none).
 */
int ebid_kernel_running_id(char *hex, size_t hexlen, char *err, size_t errlen);
int ebid_vdso_build_id(char *hex, size_t hexlen, char *err, size_t errlen);

#endif
