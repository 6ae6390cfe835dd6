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

/*
 * libdebuginfod (elfutils' client library), loaded at run time on first
 * use: 0, or -ENOSYS with err saying why it cannot be used (not
 * installed, too old, or the static build, which cannot load it).
 */
int ebid_debuginfod_load(char *err, size_t errlen);

/* What a debuginfod server served. */
struct ebid_served {
	int fd;                         /* the file, owned by the caller */
	char path[EBID_PATH_MAX];       /* where libdebuginfod cached it */
	char url[EBID_PATH_MAX];        /* the URL it came from ("" when
					 * libdebuginfod answered from its
					 * cache without asking) */
};

/*
 * Asks the servers in DEBUGINFOD_URLS (read by libdebuginfod, with its
 * DEBUGINFOD_CACHE_PATH and DEBUGINFOD_TIMEOUT) for the executable whose
 * build-id is id, through libdebuginfod; given up after timeout_ms
 * whatever the servers do. 0 with out filled (out->fd open); -ENOENT when
 * no server has it (every server answered 404); -ENOSYS when
 * libdebuginfod cannot be used; -EINVAL when DEBUGINFOD_URLS names no
 * server; -ETIMEDOUT at the deadline; another negative errno when a
 * server could not be asked (-ECONNREFUSED, -EHOSTUNREACH, ...), err
 * naming the cause and, when known, the URL.
 */
int ebid_debuginfod_executable(const unsigned char *id, size_t id_len,
			       long timeout_ms, struct ebid_served *out,
			       char *err, size_t errlen);

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

/*
 * Running processes (audit --running): for each process, each distinct
 * file it maps executable, the id the kernel reports for it (what BPF
 * profilers and perf --buildid-mmap record), the id readers by section
 * find in the same mapped inode, and what the path names now inside the
 * process's own root. Everything is read through /proc/PID opened once: a
 * process that exits during the scan is left out (counted in gone), a pid
 * reused meanwhile is never mistaken for the one opened.
 */
enum ebid_path_state {
	EBID_PATH_SAME = 0,     /* the path names the mapped inode */
	EBID_PATH_SAME_ID,      /* another file, with the same id */
	EBID_PATH_OTHER_ID,     /* another file, with another id or none */
	EBID_PATH_NONE,         /* nothing at the path */
	EBID_PATH_NA,           /* the vDSO, a memfd: no path */
};

enum ebid_live_verdict {
	EBID_LIVE_OK = 0,
	EBID_LIVE_INVISIBLE,     /* the kernel reports no id */
	EBID_LIVE_REPLACED,      /* the path holds another binary, or none */
	EBID_LIVE_DUPLICATE,     /* one id, two files with other bytes */
	EBID_LIVE_UNREADABLE,    /* no privilege over the process or file */
	EBID_LIVE_CONSTANT,      /* the id is derived from a placeholder Go
				  * build id (ebid_gnu_id_constant()): the
				  * command judges this, the scan never sets it */
	EBID_LIVE_NVERDICTS,
};

struct ebid_mapped_file {
	char *path;             /* as the maps name it, " (deleted)" cut */
	uint64_t start, end;    /* one executable mapping of it */
	uint64_t dev, ino;      /* the mapped inode */
	bool deleted, vdso;
	bool by_fallback;       /* kernel id by ebid_kernel_build_id */
	int error;              /* negative errno: what could not be read */
	unsigned char kernel_id[EBID_MAX_ID];
	size_t kernel_id_len;   /* 0: the kernel reports none */
	unsigned char section_id[EBID_MAX_ID];
	size_t section_id_len;  /* 0: readers by section find none */
	enum ebid_path_state path_state;
	unsigned char path_id[EBID_MAX_ID];
	size_t path_id_len;
	enum ebid_live_verdict verdict;
	char detail[160];       /* why, when the verdict needs a word */
};

struct ebid_proc {
	pid_t pid;
	char comm[32];
	int error;              /* negative errno: the process is unreadable */
	struct ebid_mapped_file *files;
	size_t nfiles;
};

struct ebid_running {
	struct ebid_proc *procs;
	size_t nprocs;
	size_t gone;            /* exited (or exec'd past us) during the scan */
	bool fallback;          /* PROCMAP_QUERY was not used */
};

struct ebid_running_opts {
	const pid_t *pids;      /* these only, or every process (NULL) */
	size_t npids;
	bool no_procmap_query;  /* judge the first page as the kernel would */
	const unsigned char *vdso_id; /* the running vDSO's id, or NULL */
	size_t vdso_id_len;
};

/* Scan; *r is released on failure. Unreadable processes are results. */
int ebid_running_scan(struct ebid_running *r,
		      const struct ebid_running_opts *o, char *err,
		      size_t errlen);
void ebid_running_release(struct ebid_running *r);
/*
 * A descriptor (owned by the caller) on the inode f maps in process pid,
 * read through /proc/PID/map_files (or the path in the process's root
 * when it still names that inode): whatever the path holds now.
 */
int ebid_mapped_open(pid_t pid, const struct ebid_mapped_file *f, char *err,
		     size_t errlen);
const char *ebid_live_verdict_word(enum ebid_live_verdict v);

#endif
