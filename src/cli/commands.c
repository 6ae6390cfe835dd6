/* SPDX-License-Identifier: MIT */
/* The command table: each command with its help and the rules that combine
 * its options (which options it takes is said by the option table). */
#include <stdlib.h>
#include <string.h>

#include "cli/options.h"

/* Every command but audit --running needs a FILE (or PROFILE). */
static int need_files(const struct cli *cli, int nfiles)
{
	if (nfiles < 1)
		return usage_error("%s: no FILE given", cli->command);
	return EXIT_OK;
}

/* show. */
static int check_files(const struct cli *cli, int nfiles)
{
	return need_files(cli, nfiles);
}

/* inject, reserve and backfill. */
static int check_job(const struct cli *cli, int nfiles)
{
	if (nfiles < 1)
		return need_files(cli, nfiles);
	if (cli->output && (nfiles != 1 || cli->recursive))
		return usage_error("%s", "-o takes exactly one FILE and no -r");
	if (cli->in_place && cli->output)
		return usage_error("%s", "--in-place and -o exclude each other");
	if (cli->replace && (cli->in_place || cli->output))
		return usage_error("%s", cli->output ? "--replace and -o exclude each other"
						     : "--replace and --in-place exclude each other");
	if (cli->opts.id && cli->recursive)
		return usage_error("%s", "--id would give every file the same id; not with -r");
	return EXIT_OK;
}

/* Whether DEBUGINFOD_URLS names anything (libdebuginfod reads it). */
static bool debuginfod_urls(void)
{
	const char *v = getenv("DEBUGINFOD_URLS");

	return v && v[strspn(v, " \t\n")];
}

static int check_verify(const struct cli *cli, int nfiles)
{
	if (nfiles < 1)
		return need_files(cli, nfiles);
	if (cli->opts.alg_given && !cli->content_hash)
		return usage_error("%s", "--hash is for verify --content-hash");
	/* With no server a gate that asked nobody would pass. */
	if (cli->against_debuginfod && !debuginfod_urls())
		return usage_error("%s", "--against-debuginfod needs the servers in DEBUGINFOD_URLS");
	return EXIT_OK;
}

static int check_link(const struct cli *cli, int nfiles)
{
	if (nfiles < 1)
		return need_files(cli, nfiles);
	if (cli->perf_cache && cli->perf_default_cache)
		return usage_error("%s", "--perf-cache=DIR and --perf-default-cache exclude each other");
	if (!cli->debug_dir && !cli->perf_cache && !cli->perf_default_cache)
		return usage_error("%s", "link needs --debug-dir=DIR, --perf-cache=DIR or --perf-default-cache");
	if (cli->debug_file && (nfiles != 1 || cli->recursive || !cli->debug_dir))
		return usage_error("%s", "--debug-file takes one FILE, no -r, and --debug-dir");
	return EXIT_OK;
}

/* audit PROFILE..., or audit --running (--pid implies it) with none. */
static int check_audit(const struct cli *cli, int nfiles)
{
	if (cli->rescue && !cli->running)
		return usage_error("%s", "--rescue is for audit --running");
	if (cli->rescue && !cli->debug_dir && !cli->perf_cache)
		return usage_error("%s", "--rescue needs --debug-dir=DIR or --perf-cache=DIR");
	if (cli->openmetrics && !cli->running)
		return usage_error("%s", "--openmetrics is for verify and audit --running");
	if (cli->running)
		return nfiles ? usage_error("%s", "audit --running takes no FILE")
			      : EXIT_OK;
	return need_files(cli, nfiles);
}

const struct command commands[CMD_COUNT] = {
	[CMD_INJECT] = {
		"inject", cmd_job, EBID_MODE_INJECT, true, "FILE...",
		"add or fill the note and make it kernel-visible; print ID  FILE",
		"Reserve a GNU build-id note if there is none, hash the file "
		"with the id bytes zeroed, fill the note, make it visible to "
		"the kernel (a PT_NOTE in the first page) and write the file "
		"back safely. An id that is already there is kept (see -f); a "
		"file that is already right is not written. Prints ID  FILE "
		"for each file.",
		check_job },
	[CMD_RESERVE] = {
		"reserve", cmd_job, EBID_MODE_RESERVE, true, "FILE...",
		"only add a zero-filled note (to be filled by backfill)",
		"Only add a zero-filled note of the length --hash needs, "
		"kernel-visible from the start, for pipelines that edit the "
		"file before backfill fills the note. Prints the zero id and "
		"FILE.",
		check_job },
	[CMD_BACKFILL] = {
		"backfill", cmd_job, EBID_MODE_BACKFILL, true, "FILE...",
		"only hash the file and fill a reserved (all-zero) note",
		"Only hash the file and fill its reserved (all-zero) note, or "
		"write the --id given into it; reserve then backfill gives the "
		"bytes inject gives. Prints ID  FILE.",
		check_job },
	[CMD_SHOW] = {
		"show", cmd_show, 0, false, "FILE...",
		"print the GNU and Go build-ids and where they lie",
		"Print each file's GNU build-id, where its note lies, whether "
		"the kernel can see it, and its Go build-id. Writes nothing.",
		check_files },
	[CMD_VERIFY] = {
		"verify", cmd_verify, 0, false, "FILE...",
		"the CI gate: id present, in its section, 1-20 bytes, non-zero, "
		"kernel-visible, seen by perf, unique across the files",
		"The CI gate: check that each file has an id in the section "
		"perf reads, 1 to 20 bytes, not zero, seen by the kernel and "
		"by perf, and unique among the files; print PASS, FAIL, SKIP "
		"or ERROR for each. Exit status 1 when a check failed.",
		check_verify },
	[CMD_LINK] = {
		"link", cmd_link, 0, false, "FILE...",
		"make files findable by id (--debug-dir, --perf-cache)",
		"Make each file findable by its id: place it (or its separate "
		"debug file) in a debug directory's .build-id tree or in perf's "
		"build-id cache, the layouts gdb, perf and debuginfod read. "
		"Needs --debug-dir, --perf-cache or --perf-default-cache.",
		check_link },
	[CMD_AUDIT] = {
		"audit", cmd_audit, 0, false, "{PROFILE... | --running [--pid=PID]...}",
		"for each binary with samples in a profile (perf.data or "
		"pprof), whether a report made now names the right functions",
		"For every binary with samples in each PROFILE (perf.data or "
		"pprof, gzip'd or not), say whether a report made now names "
		"the right functions: ok, stale, unsafe, wrong, gone or skip, "
		"with a fix. With --running (or --pid), judge instead each "
		"file the running processes map executable: ok, invisible, "
		"replaced, duplicate or unreadable (docs/profiling.md, \"On a "
		"live host\"). Exit status 1 when one is not ok.",
		check_audit },
};

const struct command *command_find(const char *name)
{
	size_t i;

	for (i = 0; i < CMD_COUNT; i++)
		if (!strcmp(name, commands[i].name))
			return &commands[i];
	return NULL;
}
