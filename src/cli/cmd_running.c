/* SPDX-License-Identifier: MIT */
/*
 * audit --running [--pid=PID...] [--rescue]: for every file the running
 * processes map executable, whether a profiler sampling them now will name
 * the right functions (docs/profiling.md, "On a live host"), and, with
 * --rescue, each mapped file that has an id but no findable copy placed by
 * id where perf or gdb look, read from the mapping itself.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "cli/cli.h"
#include "cli/openmetrics.h"

#define HEX_LEN (2 * EBID_MAX_ID + 1)

/* What the command adds to one mapped file of the library's scan. */
struct live {
	char kernel[HEX_LEN], section[HEX_LEN], path_id[HEX_LEN];
	char found[EBID_PATH_MAX];      /* a copy with the id, or "" */
	char *rescued;                  /* where --rescue placed it (owned) */
	char rescue_err[EBID_ERRLEN];   /* why it could not, or "" */
	const char *fix;
	enum ebid_live_verdict verdict; /* the scan's, or EBID_LIVE_CONSTANT */
	char detail[224];               /* the scan's, or the constant's why */
};

static const char *const path_words[] = {
	[EBID_PATH_SAME] = "same", [EBID_PATH_SAME_ID] = "same-id",
	[EBID_PATH_OTHER_ID] = "other-id", [EBID_PATH_NONE] = "none",
	[EBID_PATH_NA] = "n/a",
};

static const char fix_invisible[] =
	"give the binary a kernel-visible id (elf-buildid inject) and restart the process; until then profilers key its samples by path or file hash";
static const char fix_replaced_rescue[] =
	"restart the process; until then keep the running build findable by id: elf-buildid audit --running --rescue --perf-cache=DIR (or --debug-dir=DIR)";
static const char fix_replaced_found[] =
	"restart the process: a profile resolved by id finds the copy, one resolved by path names the new file's functions";
static const char fix_replaced_noid[] =
	"restart the process, and give every build an id (elf-buildid inject): without one its samples are resolved by the path, which names another binary now";
static const char fix_constant[] =
	"give every build its own id: elf-buildid inject replaces an id derived from a placeholder Go build id with the content hash; then restart the process";
static const char fix_duplicate[] =
	"give each build its own id: elf-buildid inject -f (a derived or constant id, such as one made from a fixed Go build id, names several binaries)";

/* The id profilers key the file by (the kernel's, else the section's). */
static const char *key_hex(const struct live *l)
{
	return l->kernel[0] ? l->kernel : l->section;
}

/* Where a copy with the id is (perf's caches, debug dirs, debuginfod). */
static void find_copy(const struct ebid_places *pl, struct live *l)
{
	struct ebid_found found;
	char err[EBID_ERRLEN];

	l->found[0] = '\0';
	if (key_hex(l)[0] &&
	    !ebid_find_by_id(pl, key_hex(l), &found, err, sizeof(err)))
		snprintf(l->found, sizeof(l->found), "%s", found.path);
}

static const char *fix_of(const struct live *l)
{
	switch (l->verdict) {
	case EBID_LIVE_CONSTANT:
		return fix_constant;
	case EBID_LIVE_INVISIBLE:
		return fix_invisible;
	case EBID_LIVE_REPLACED:
		if (!key_hex(l)[0])
			return fix_replaced_noid;
		return l->found[0] || l->rescued ? fix_replaced_found
						 : fix_replaced_rescue;
	case EBID_LIVE_DUPLICATE:
		return fix_duplicate;
	default:
		return NULL;
	}
}

/*
 * --rescue: the mapped bytes placed by their id (the key id) into the
 * directory held open, once per inode (placed[] remembers where).
 */
static void rescue(const struct cli *cli, int dirfd, pid_t pid,
		   const struct ebid_mapped_file *f, struct live *l)
{
	struct ebid_placing p = {
		.kind = cli->perf_cache ? EBID_ID_PERF_CACHE : EBID_ID_DEBUG_DIR,
		.dirfd = dirfd,
		.dir = cli->perf_cache ? cli->perf_cache : cli->debug_dir,
		.hex = key_hex(l),
		.bin_path = f->path,
	};
	int fd;

	fd = ebid_mapped_open(pid, f, l->rescue_err, sizeof(l->rescue_err));
	if (fd < 0)
		return;
	if (!ebid_place_by_id(fd, &p, &l->rescued, l->rescue_err,
			      sizeof(l->rescue_err)))
		l->rescue_err[0] = '\0';
	close(fd);
}

/* Whether f should be rescued: an id, no copy, a file (not the vDSO). */
static bool wants_rescue(const struct ebid_mapped_file *f,
			 const struct live *l)
{
	return !f->vdso && !f->error && key_hex(l)[0] && !l->found[0] &&
	       f->path_state != EBID_PATH_SAME &&
	       f->path_state != EBID_PATH_SAME_ID;
}

/* A rescue already made of the same inode, by an earlier process. */
static const struct live *rescued_before(const struct ebid_running *r,
					 struct live *const *lv, size_t pi,
					 size_t fi)
{
	const struct ebid_mapped_file *f = &r->procs[pi].files[fi];
	size_t i, k;

	for (i = 0; i <= pi; i++)
		for (k = 0; k < r->procs[i].nfiles && (i < pi || k < fi); k++)
			if (r->procs[i].files[k].dev == f->dev &&
			    r->procs[i].files[k].ino == f->ino &&
			    !r->procs[i].files[k].vdso &&
			    (lv[i][k].rescued || lv[i][k].rescue_err[0]))
				return &lv[i][k];
	return NULL;
}

/*
 * The same inode judged in an earlier process: its copy was looked for
 * already (hundreds of processes map one libc).
 */
static const struct live *same_inode_before(const struct ebid_running *r,
					    struct live *const *lv, size_t pi,
					    size_t fi)
{
	const struct ebid_mapped_file *f = &r->procs[pi].files[fi];
	size_t i, k;

	for (i = pi + 1; i-- > 0;)
		for (k = i == pi ? fi : r->procs[i].nfiles; k-- > 0;) {
			const struct ebid_mapped_file *g = &r->procs[i].files[k];

			if (g->dev == f->dev && g->ino == f->ino && !g->vdso &&
			    !f->vdso && !g->error && !f->error)
				return &lv[i][k];
		}
	return NULL;
}

/*
 * A file the scan found no fault with (or whose id the kernel cannot see,
 * or a duplicate: the constant is the cause to fix first) whose id Go's
 * linker derived from a Go build id the go command did not make: every
 * program linked that way has it. Read through the mapped inode.
 */
static void judge_constant(pid_t pid, const struct ebid_mapped_file *f,
			   struct live *l)
{
	struct ebid_elf elf;
	char err[EBID_ERRLEN];
	int fd;

	if (f->vdso || f->error ||
	    (l->verdict != EBID_LIVE_OK && l->verdict != EBID_LIVE_DUPLICATE &&
	     l->verdict != EBID_LIVE_INVISIBLE))
		return;
	fd = ebid_mapped_open(pid, f, err, sizeof(err));
	if (fd < 0)
		return;
	memset(&elf, 0, sizeof(elf));
	if (!ebid_elf_open_fd(&elf, fd, err, sizeof(err)) &&
	    ebid_gnu_id_constant(&elf)) {
		l->verdict = EBID_LIVE_CONSTANT;
		snprintf(l->detail, sizeof(l->detail),
			 "the id is derived from the Go build id '%.*s', which the go command did not make: every program linked with it has this id",
			 (int)(elf.go.desc_len < 100 ? elf.go.desc_len : 100),
			 (const char *)elf.go.desc);
	}
	ebid_elf_release(&elf);
	close(fd);
}

/* The command's part of one file: ids in hex, a copy, a rescue, a fix. */
static void judge_file(const struct cli *cli, const struct ebid_places *pl,
		       int dirfd, const struct ebid_running *r,
		       struct live *const *lv, size_t pi, size_t fi)
{
	const struct ebid_mapped_file *f = &r->procs[pi].files[fi];
	struct live *l = &lv[pi][fi];
	const struct live *before;

	l->verdict = f->verdict;
	snprintf(l->detail, sizeof(l->detail), "%s", f->detail);
	judge_constant(r->procs[pi].pid, f, l);
	ebid_hex(l->kernel, f->kernel_id, f->kernel_id_len);
	ebid_hex(l->section, f->section_id, f->section_id_len);
	ebid_hex(l->path_id, f->path_id, f->path_id_len);
	before = same_inode_before(r, lv, pi, fi);
	if (before)
		memcpy(l->found, before->found, sizeof(l->found));
	else if (!f->vdso && !f->error)
		find_copy(pl, l);
	if (cli->rescue && wants_rescue(f, l)) {
		before = rescued_before(r, lv, pi, fi);
		if (before && before->rescued)
			l->rescued = strdup(before->rescued);
		else if (before)
			snprintf(l->rescue_err, sizeof(l->rescue_err), "%s",
				 before->rescue_err);
		else
			rescue(cli, dirfd, r->procs[pi].pid, f, l);
	}
	l->fix = fix_of(l);
}

static const char *or_dash(const char *s)
{
	return s && s[0] ? s : "-";
}

static void print_file(const struct ebid_proc *p,
		       const struct ebid_mapped_file *f, const struct live *l)
{
	char word[16];
	const char *v = ebid_live_verdict_word(l->verdict);
	size_t k;

	for (k = 0; v[k] && k + 1 < sizeof(word); k++)
		word[k] = (char)(v[k] - 'a' + 'A');
	word[k] = '\0';
	printf("%-10s  %d  %s  %s%s  kernel %s%s  section %s  path %s",
	       word, (int)p->pid, p->comm, f->path, f->deleted ? " (deleted)" : "",
	       or_dash(l->kernel), f->by_fallback && !f->vdso ? " (first page)" : "",
	       or_dash(l->section), path_words[f->path_state]);
	if (f->path_state == EBID_PATH_OTHER_ID)
		printf(" %s", or_dash(l->path_id));
	if (l->found[0])
		printf("  found %s", l->found);
	if (l->detail[0])
		printf("  (%s)", l->detail);
	printf("\n");
	if (l->rescued)
		printf("            rescued: %s\n", l->rescued);
	else if (l->rescue_err[0])
		printf("            not rescued: %s\n", l->rescue_err);
	if (l->fix)
		printf("            fix: %s\n", l->fix);
}

static void print_text(const struct cli *cli, const struct ebid_running *r,
		       struct live *const *lv, const size_t *counts,
		       size_t unreadable_procs)
{
	size_t i, k, nfiles = 0;

	for (i = 0; i < r->nprocs; i++) {
		const struct ebid_proc *p = &r->procs[i];

		nfiles += p->nfiles;
		if (p->error && !cli->quiet)
			printf("%-10s  %d  %s  (%s)\n", "UNREADABLE", (int)p->pid,
			       p->comm, strerror(-p->error));
		for (k = 0; k < p->nfiles && !cli->quiet; k++)
			print_file(p, &p->files[k], &lv[i][k]);
	}
	printf("%zu process%s (%zu unreadable, %zu exited during the scan), %zu file%s:",
	       r->nprocs, r->nprocs == 1 ? "" : "es", unreadable_procs, r->gone,
	       nfiles, nfiles == 1 ? "" : "s");
	for (k = 0; k < EBID_LIVE_NVERDICTS; k++)
		printf(" %s %zu%s", ebid_live_verdict_word((enum ebid_live_verdict)k),
		       counts[k], k + 1 < EBID_LIVE_NVERDICTS ? "," : "");
	printf("; kernel ids by %s\n",
	       r->fallback ? "the first page (no PROCMAP_QUERY)" : "PROCMAP_QUERY");
}

static void json_hex(const char *hex)
{
	json_str(stdout, hex[0] ? hex : NULL);
}

static void print_json_file(const struct ebid_mapped_file *f,
			    const struct live *l, bool first)
{
	printf("%s\n      {\"path\": ", first ? "" : ",");
	json_str(stdout, f->path);
	printf(", \"deleted\": %s, \"vdso\": %s, \"kernel_id\": ",
	       f->deleted ? "true" : "false", f->vdso ? "true" : "false");
	json_hex(l->kernel);
	printf(", \"kernel_id_from\": \"%s\", \"section_id\": ",
	       f->vdso ? "vdso" : f->by_fallback ? "first-page" : "procmap-query");
	json_hex(l->section);
	printf(", \"path_now\": \"%s\", \"path_id\": ", path_words[f->path_state]);
	json_hex(f->path_state == EBID_PATH_OTHER_ID ||
		 f->path_state == EBID_PATH_SAME_ID ? l->path_id : "");
	printf(", \"found\": ");
	json_str(stdout, l->found[0] ? l->found : NULL);
	printf(", \"verdict\": \"%s\", \"detail\": ",
	       ebid_live_verdict_word(l->verdict));
	json_str(stdout, l->detail[0] ? l->detail : NULL);
	printf(", \"fix\": ");
	json_str(stdout, l->fix);
	printf(", \"rescued\": ");
	json_str(stdout, l->rescued);
	printf(", \"rescue_error\": ");
	json_str(stdout, l->rescue_err[0] ? l->rescue_err : NULL);
	printf("}");
}

static void print_json(const struct ebid_running *r, struct live *const *lv,
		       const size_t *counts, int status)
{
	size_t i, k;

	printf("{\"processes\": [");
	for (i = 0; i < r->nprocs; i++) {
		const struct ebid_proc *p = &r->procs[i];

		printf("%s\n    {\"pid\": %d, \"command\": ", i ? "," : "",
		       (int)p->pid);
		json_str(stdout, p->comm);
		printf(", \"error\": ");
		json_str(stdout, p->error ? strerror(-p->error) : NULL);
		printf(", \"verdict\": %s, \"files\": [",
		       p->error ? "\"unreadable\"" : "null");
		for (k = 0; k < p->nfiles; k++)
			print_json_file(&p->files[k], &lv[i][k], k == 0);
		printf("%s]}", p->nfiles ? "\n    " : "");
	}
	printf("\n  ],\n  \"kernel_ids\": \"%s\",\n  \"exited\": %zu,\n  \"summary\": {",
	       r->fallback ? "first-page" : "procmap-query", r->gone);
	for (k = 0; k < EBID_LIVE_NVERDICTS; k++)
		printf("%s\"%s\": %zu", k ? ", " : "",
		       ebid_live_verdict_word((enum ebid_live_verdict)k), counts[k]);
	printf("},\n  \"exit_status\": %d\n}\n", status);
}

/* The running vDSO's id, which the kernel maps into every process. */
static size_t vdso_id(unsigned char id[EBID_MAX_ID])
{
	char hex[HEX_LEN], err[EBID_ERRLEN];
	size_t len = 0;

	if (ebid_vdso_build_id(hex, sizeof(hex), err, sizeof(err)) ||
	    ebid_unhex(hex, id, EBID_MAX_ID, &len))
		return 0;
	return len;
}

/* Judges every file (and rescues); counts verdicts; the exit status. */
static int judge_all(const struct cli *cli, const struct ebid_places *pl,
		     int dirfd, const struct ebid_running *r,
		     struct live *const *lv, size_t *counts, size_t *unreadable)
{
	int status = EXIT_OK;
	size_t i, k;

	for (i = 0; i < r->nprocs; i++) {
		const struct ebid_proc *p = &r->procs[i];

		if (p->error) {
			counts[EBID_LIVE_UNREADABLE]++;
			(*unreadable)++;
		}
		for (k = 0; k < p->nfiles; k++) {
			enum ebid_live_verdict v;

			judge_file(cli, pl, dirfd, r, lv, i, k);
			v = lv[i][k].verdict;
			counts[v]++;
			if (v == EBID_LIVE_INVISIBLE || v == EBID_LIVE_REPLACED ||
			    v == EBID_LIVE_DUPLICATE || v == EBID_LIVE_CONSTANT)
				status = EXIT_CHECK;
			if (lv[i][k].rescue_err[0] && !lv[i][k].rescued)
				fprintf(stderr, "%s: '%s': rescue of process %d's file: %s\n",
					progname, p->files[k].path, (int)p->pid,
					lv[i][k].rescue_err);
		}
	}
	return status;
}

/* The processes by state: read, unreadable, exited during the scan. */
static const char *const proc_states[] = { "read", "unreadable", "exited" };

/* The OpenMetrics families of the scan, in the open file f. */
static void om_running(FILE *f, const struct ebid_running *r,
		       struct live *const *lv, size_t unreadable,
		       struct om_pair *v)
{
	const char *words[EBID_LIVE_NVERDICTS];
	size_t counts[EBID_LIVE_NVERDICTS] = { 0 }, i, k, m = 0;
	size_t procs[] = { r->nprocs - unreadable, unreadable, r->gone };

	for (k = 0; k < EBID_LIVE_NVERDICTS; k++)
		words[k] = ebid_live_verdict_word((enum ebid_live_verdict)k);
	for (i = 0; i < r->nprocs; i++)
		for (k = 0; k < r->procs[i].nfiles; k++) {
			counts[lv[i][k].verdict]++;
			v[m++] = (struct om_pair){ r->procs[i].files[k].path,
						   words[lv[i][k].verdict] };
		}
	om_family(f, "elf_buildid_running_mapped_files", NULL,
		  "Files the running processes map executable, once per "
		  "process, by verdict.");
	om_counts(f, "elf_buildid_running_mapped_files", "verdict", words,
		  counts, EBID_LIVE_NVERDICTS);
	om_family(f, "elf_buildid_running_file_processes", NULL,
		  "Processes that map the path executable, by the file's "
		  "verdict; the path label is escaped as docs/prometheus.md "
		  "says.");
	om_pairs(f, "elf_buildid_running_file_processes", "verdict", v, m,
		 true);
	om_family(f, "elf_buildid_running_processes", NULL,
		  "Processes of the scan: read, unreadable, or exited during "
		  "it.");
	om_counts(f, "elf_buildid_running_processes", "state", proc_states,
		  procs, sizeof(procs) / sizeof(procs[0]));
	om_now(f, "elf_buildid_running_last_run_timestamp_seconds",
	       "When audit --running's last scan ended, in seconds since the "
	       "epoch.");
}

/* --openmetrics=FILE: 0, or -1 said on stderr (FILE is then untouched). */
static int write_openmetrics(const char *path, const struct ebid_running *r,
			     struct live *const *lv, size_t unreadable)
{
	struct om_pair *v;
	size_t i, nfiles = 0;
	char *tmp = NULL;
	FILE *f;

	for (i = 0; i < r->nprocs; i++)
		nfiles += r->procs[i].nfiles;
	v = calloc(nfiles + 1, sizeof(*v));
	if (!v) {
		fprintf(stderr, "%s: '%s': cannot write OpenMetrics file: %s\n",
			progname, path, strerror(ENOMEM));
		return -1;
	}
	f = om_open(path, &tmp);
	if (f)
		om_running(f, r, lv, unreadable, v);
	free(v);
	return f ? om_close(f, path, tmp) : -1;
}

static void lives_free(struct live **lv, const struct ebid_running *r)
{
	size_t i, k;

	for (i = 0; lv && i < r->nprocs; i++) {
		for (k = 0; lv[i] && k < r->procs[i].nfiles; k++)
			free(lv[i][k].rescued);
		free(lv[i]);
	}
	free(lv);
}

int cmd_running(const struct cli *cli, const struct ebid_places *pl)
{
	unsigned char vdso[EBID_MAX_ID];
	struct ebid_running_opts o = { .pids = cli->pids, .npids = cli->npids };
	struct ebid_running r;
	struct live **lv = NULL;
	char err[EBID_ERRLEN];
	const char *v = getenv("EBID_NO_PROCMAP_QUERY");
	size_t counts[EBID_LIVE_NVERDICTS] = { 0 }, unreadable = 0, i;
	int dirfd = -1, status = EXIT_FILE;

	o.no_procmap_query = v && v[0] == '1';
	o.vdso_id = vdso;
	o.vdso_id_len = vdso_id(vdso);
	if (cli->rescue &&
	    ebid_dir_open_made(cli->perf_cache ? cli->perf_cache : cli->debug_dir,
			       &dirfd, err, sizeof(err))) {
		fprintf(stderr, "%s: '%s': %s\n", progname,
			cli->perf_cache ? cli->perf_cache : cli->debug_dir, err);
		return EXIT_FILE;
	}
	if (ebid_running_scan(&r, &o, err, sizeof(err))) {
		fprintf(stderr, "%s: audit --running: %s\n", progname, err);
		goto out_dir;
	}
	lv = calloc(r.nprocs ? r.nprocs : 1, sizeof(*lv));
	for (i = 0; lv && i < r.nprocs; i++)
		if (!(lv[i] = calloc(r.procs[i].nfiles + 1, sizeof(**lv))))
			break;
	if (!lv || i < r.nprocs) {
		fprintf(stderr, "%s: audit --running: out of memory\n", progname);
		goto out;
	}
	status = judge_all(cli, pl, dirfd, &r, lv, counts, &unreadable);
	if (cli->json)
		print_json(&r, lv, counts, status);
	else
		print_text(cli, &r, lv, counts, unreadable);
	if (cli->openmetrics &&
	    write_openmetrics(cli->openmetrics, &r, lv, unreadable))
		status = status > EXIT_FILE ? status : EXIT_FILE;
out:
	lives_free(lv, &r);
	ebid_running_release(&r);
out_dir:
	if (dirfd >= 0)
		close(dirfd);
	return status;
}
