/* SPDX-License-Identifier: MIT */
/* The command line's shared state and helpers (not part of the library). */
#ifndef EBID_CLI_H
#define EBID_CLI_H

#include <stdbool.h>
#include <stdio.h>
#include <sys/stat.h>
#include <sys/types.h>

#include "elf-buildid.h"

#define EXIT_OK 0
#define EXIT_CHECK 1
#define EXIT_FILE 2
#define EXIT_USAGE 64

enum perf_mode { PERF_AUTO, PERF_REQUIRE, PERF_OFF };
/* --artifacts: which files verify, show and link open as artifacts. */
enum artifacts_mode { ARTIFACTS_NAMED, ARTIFACTS_ALL, ARTIFACTS_OFF };

/* --limit (artifact.h, artifact_limit_set()). */
struct artifact_limits {
	unsigned long long member, unpacked, ratio, members;
};

struct cli;
typedef int (*command_fn)(const struct cli *cli, char **args, int nargs);

struct cli {
	const char *command;
	command_fn run;
	struct ebid_opts opts;
	unsigned char id[EBID_MAX_ID];
	const char *output;
	bool dry_run, quiet, verbose, preserve_times, in_place, recursive;
	bool replace;
	unsigned jobs;
	const char **exclude;
	size_t nexclude;
	const char *manifest;
	long lock_timeout_ms;           /* --lock-timeout */
	struct ebid_temps *temps;       /* the run's stale-temporary cache */
	/* verify */
	enum perf_mode perf;
	long perf_timeout_ms;           /* EBID_PERF_TIMEOUT_MS, or 20 s */
	bool content_hash, json;
	const char *junit;
	const char *openmetrics;        /* verify, audit --running */
	const char **allow_missing;
	size_t nallow_missing;
	const char **against_manifest;  /* --against-manifest, in order */
	size_t nagainst_manifest;
	bool against_debuginfod;
	long debuginfod_timeout_ms;     /* EBID_DEBUGINFOD_TIMEOUT_MS, or 60 s */
	const struct manifest *manifests; /* loaded by cmd_verify */
	enum artifacts_mode artifacts;  /* --artifacts */
	struct artifact_limits limits;  /* --limit */
	/* link */
	const char *debug_dir, *perf_cache, *debug_file;
	bool perf_default_cache;
	int debug_dirfd, perf_cachefd;  /* held open by cmd_link */
	/* audit */
	bool debuginfod;                /* also ask DEBUGINFOD_URLS */
	bool running, rescue;           /* audit --running, --rescue */
	pid_t *pids;                    /* --pid, in order given */
	size_t npids;
};

#define MAX_CHECKS 10

enum check_status { CHECK_PASS, CHECK_FAIL, CHECK_SKIP };

struct check {
	const char *name;
	enum check_status status;
	char detail[384];
};

/* "pass", "fail", "skip". */
const char *check_word(enum check_status s);

/* What became of one file. Each command prints its own words for it. */
enum outcome {
	OUT_NONE = 0,
	OUT_INJECTED,           /* inject, reserve, backfill */
	OUT_BACKFILLED,
	OUT_REPAIRED,
	OUT_RESERVED,
	OUT_UNCHANGED,
	OUT_LINKED,             /* link */
	OUT_PASS,               /* verify */
	OUT_FAIL,
	OUT_SKIPPED,            /* not a candidate (verify: SKIP) */
	OUT_FAILED,             /* could not be processed (verify: ERROR) */
};

/* "injected", ..., "skipped", "failed": the manifest's and -v's words. */
const char *outcome_word(enum outcome o);
/* verify's words for an outcome: "pass", "fail", "skip", "error". */
const char *verify_word(enum outcome o);

/* What one file came to; filled by a worker, printed by the main thread. */
struct result {
	const char *path;
	int status;                     /* EXIT_* */
	enum outcome outcome;
	char id[2 * EBID_MAX_ID + 1];
	char go_id[EBID_GO_ID_MAX + 1];
	enum ebid_go_derivation go_derived; /* the GNU id is made from go_id */
	char msg[EBID_ERRLEN + 64];     /* error, failed checks, skip reason */
	struct check checks[MAX_CHECKS];
	size_t nchecks;
	bool have_elf;
	unsigned machine, elfclass, data;
	unsigned long long size;
	char sha256[65];
	char *dest;                     /* link: where it went (owned) */
	char *text;                     /* --dry-run listing (owned) */
	char actions[160];              /* the plan's action words, for -v */
	const char *how;                /* how the file was written, for -v */
	char constant_id[2 * EBID_MAX_ID + 1]; /* the input's constant GNU id
					 * (ebid_gnu_id_constant()), replaced
					 * or kept, for -v; "" if none */
	bool constant_kept;             /* --keep-constant-id kept it */
	unsigned long long dev, ino;
	/* verify: the judged file's change times (fstat of the descriptor
	 * it was read through), to tell it again when its bytes are hashed
	 * after the run (same_file()). */
	long long mtime_ns, ctime_ns;
	bool alias;                     /* another name of a listed inode */
	/*
	 * verify --against-manifest, --against-debuginfod: what the earlier
	 * releases say of the id; check_unique() makes it part of "unique".
	 */
	enum { HIST_NONE, HIST_NEW, HIST_SAME, HIST_OTHER, HIST_ERROR } hist;
	char hist_detail[320];
	/*
	 * An artifact (artifact.h): a result per member, printed in its
	 * place; a member's path is "ARTIFACT:MEMBER", the member's name at
	 * path + member_at, the image layer it came from in layer.
	 */
	bool artifact;                  /* read as an artifact */
	struct result *members;
	size_t nmembers;
	size_t member_at;
	char layer[96];
};

extern const char *progname;

/* Runs fn over every file reached from args (tree-walked with -r), with
 * cli->jobs threads, calling print for each result in path order. */
typedef void (*work_fn)(const struct cli *cli,
			const struct ebid_walk_entry *e, struct result *r);
typedef void (*print_fn)(const struct cli *cli, struct result *r);
int cli_run(const struct cli *cli, char **args, int nargs, work_fn work,
	    print_fn print, struct result **results, size_t *nresults);
void cli_results_free(struct result *v, size_t n);
/* Fills r->msg with why e was skipped (naming the file it aliases). */
void skip_reason(struct result *r, const struct ebid_walk_entry *e);
/*
 * Prints a result that failed (one error line) or was skipped (with -v);
 * true when it was one of those, so that nothing else is printed.
 */
bool print_error_or_skip(const struct cli *cli, const struct result *r);
/* Fills r->msg with why e could not be read. */
void entry_error(struct result *r, const struct ebid_walk_entry *e);
/*
 * Opens e's file read-only under a shared lock (--lock-timeout): the
 * descriptor, or a negative code with err filled.
 */
int open_entry(const struct cli *cli, const struct ebid_walk_entry *e,
	       struct stat *st, char *err, size_t errlen);
/* The same for a path named on the command line (followed as given). */
int open_named(const struct cli *cli, const char *path, struct stat *st,
	       char *err, size_t errlen);

/*
 * A manifest written by inject --manifest (manifest.c), as verify reads it
 * back: the entries that have an id, sorted by it; their strings are
 * owned by the manifest.
 */
struct manifest_entry {
	char *path;
	char *id;                       /* lower-case hex */
	char *sha256;                   /* lower-case hex, or NULL */
};

struct manifest {
	const char *path;               /* as given, not owned */
	struct manifest_entry *entries;
	size_t nentries;
};

/*
 * Reads and parses the manifest at path: 0, or a negative code with err
 * saying what is wrong (with the line and column for bad JSON). On failure
 * nothing is left to release.
 */
int manifest_load(struct manifest *m, const char *path, char *err,
		  size_t errlen);
int manifest_parse(struct manifest *m, const char *text, size_t len,
		   char *err, size_t errlen);
void manifest_release(struct manifest *m);
/* The entries with id (lower-case hex), *count of them, or NULL. */
const struct manifest_entry *manifest_find(const struct manifest *m,
					   const char *id, size_t *count);

/* The commands. */
int cmd_job(const struct cli *cli, char **args, int nargs);
int cmd_show(const struct cli *cli, char **args, int nargs);
int cmd_verify(const struct cli *cli, char **args, int nargs);
/*
 * verify_history.c: r's id against the earlier releases (cli's manifests,
 * DEBUGINFOD_URLS), which sets r->hist; verify_history_end() after the
 * workers frees what the run asked debuginfod.
 */
void verify_history(const struct cli *cli, struct result *r, int fd,
		    const struct ebid_elf *elf);
void verify_history_end(void);
int cmd_link(const struct cli *cli, char **args, int nargs);
int cmd_audit(const struct cli *cli, char **args, int nargs);
/*
 * link over artifacts (link_artifacts.c): whether an argument is one, and
 * the whole run over them; *placed when something was placed.
 */
bool link_any_artifact(const struct cli *cli, char **args, int nargs);
int link_artifacts(const struct cli *cli, char **args, int nargs,
		   bool *placed);
/* audit --running: the files running processes map, looked for in pl. */
int cmd_running(const struct cli *cli, const struct ebid_places *pl);

/*
 * Output helpers (report.c). A report file (manifest, JUnit) is written
 * to PATH.tmp and renamed over PATH once complete and synced; what names
 * it in messages. report_close() always closes f and frees tmp.
 */
FILE *report_open(const char *path, const char *what, char **tmp);
int report_close(FILE *f, const char *path, const char *what, char *tmp);
void json_str(FILE *f, const char *s);
/* s is min to max (an even number of) lower-case hex digits. */
bool is_hex(const char *s, size_t min, size_t max);
void xml_str(FILE *f, const char *s);
void om_str(FILE *f, const char *s);
void fill_elf_facts(struct result *r, const struct ebid_elf *elf);

#endif
