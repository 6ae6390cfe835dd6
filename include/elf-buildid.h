/* SPDX-License-Identifier: MIT */
/*
 * elf-buildid library: read an ELF layout, plan a GNU build-id note, apply
 * it; the three parts by concern.
 */
#ifndef ELF_BUILDID_H
#define ELF_BUILDID_H

#include "elf-buildid/core.h"     /* reading, the id, plans, jobs, errors */
#include "elf-buildid/files.h"    /* descriptors, locks, trees, placing */
#include "elf-buildid/profile.h"  /* profiles, perf bridge, finding by id */

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
	EBID_PATH_NONE,         /* nothing there (or deleted) */
	EBID_PATH_NA,           /* the vDSO: no path */
};

enum ebid_live_verdict {
	EBID_LIVE_OK = 0,
	EBID_LIVE_INVISIBLE,     /* the kernel reports no id */
	EBID_LIVE_REPLACED,      /* the path holds another binary, or none */
	EBID_LIVE_DUPLICATE,     /* one id, two files with other bytes */
	EBID_LIVE_UNREADABLE,    /* no privilege over the process or file */
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
