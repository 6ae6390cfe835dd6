/* SPDX-License-Identifier: MIT */
/* The option table, one row per option, and what is built from it: the
 * getopt tables, the "does not apply" check, each command's help. */
#include <errno.h>
#include <getopt.h>
#include <limits.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>

#include "cli/artifact.h"
#include "cli/options.h"

#define ARRAY_SIZE(a) (sizeof(a) / sizeof((a)[0]))

/* Masks of commands. */
#define C(c) CMD_BIT(CMD_##c)
#define JOB (C(INJECT) | C(RESERVE) | C(BACKFILL))
#define ALL (CMD_BIT(CMD_COUNT) - 1)

/* Help lines: wrapped at WIDTH, the text of an option at TEXT_COL. */
#define WIDTH 79
#define TEXT_COL 23

int usage_error(const char *fmt, ...)
{
	va_list ap;

	fprintf(stderr, "%s: ", progname);
	va_start(ap, fmt);
	vfprintf(stderr, fmt, ap);
	va_end(ap);
	fprintf(stderr, "\nTry '%s --help' for more information.\n", progname);
	return EXIT_USAGE;
}

static int push(const char ***v, size_t *n, const char *s)
{
	const char **nv = realloc(*v, (*n + 1) * sizeof(**v));

	if (!nv)
		return usage_error("%s", "out of memory");
	nv[(*n)++] = s;
	*v = nv;
	return EXIT_OK;
}

/* The setters of the options that are more than a flag or a string. */

static int set_exclude(struct cli *cli, const char *arg)
{
	return push(&cli->exclude, &cli->nexclude, arg);
}

static int set_allow_missing(struct cli *cli, const char *arg)
{
	return push(&cli->allow_missing, &cli->nallow_missing, arg);
}

static int set_against_manifest(struct cli *cli, const char *arg)
{
	return push(&cli->against_manifest, &cli->nagainst_manifest, arg);
}

static int set_hash(struct cli *cli, const char *arg)
{
	cli->opts.alg_given = true;
	if (ebid_hash_parse(arg, &cli->opts.alg))
		return usage_error("unknown hash '%s' (sha1, sha256, md5 or sha1-tree)",
				   arg);
	return EXIT_OK;
}

static int set_id(struct cli *cli, const char *arg)
{
	size_t id_len;

	if (ebid_unhex(arg, cli->id, EBID_MAX_ID, &id_len))
		return usage_error("--id needs 1 to 20 bytes of hex, not '%s'", arg);
	cli->opts.id = cli->id;
	cli->opts.id_len = id_len;
	return EXIT_OK;
}

static int set_perf(struct cli *cli, const char *arg)
{
	if (!strcmp(arg, "auto"))
		cli->perf = PERF_AUTO;
	else if (!strcmp(arg, "require"))
		cli->perf = PERF_REQUIRE;
	else if (!strcmp(arg, "off"))
		cli->perf = PERF_OFF;
	else
		return usage_error("--perf takes auto, require or off, not '%s'", arg);
	return EXIT_OK;
}

static int set_jobs(struct cli *cli, const char *arg)
{
	char *end;
	long n;

	errno = 0;
	n = strtol(arg, &end, 10);
	if (errno || *end || n < 1 || n > 1024)
		return usage_error("-j takes a number from 1 to 1024, not '%s'", arg);
	cli->jobs = (unsigned)n;
	return EXIT_OK;
}

static int set_lock_timeout(struct cli *cli, const char *arg)
{
	char *end;
	double secs;

	errno = 0;
	secs = strtod(arg, &end);
	if (errno || end == arg || *end || !(secs >= 0) || secs > 86400)
		return usage_error("--lock-timeout takes seconds from 0 to 86400, not '%s'",
				   arg);
	cli->lock_timeout_ms = (long)(secs * 1000 + 0.5);
	return EXIT_OK;
}

static int set_artifacts(struct cli *cli, const char *arg)
{
	if (!strcmp(arg, "named"))
		cli->artifacts = ARTIFACTS_NAMED;
	else if (!strcmp(arg, "all"))
		cli->artifacts = ARTIFACTS_ALL;
	else if (!strcmp(arg, "off"))
		cli->artifacts = ARTIFACTS_OFF;
	else
		return usage_error("--artifacts takes named, all or off, not '%s'",
				   arg);
	return EXIT_OK;
}

static int set_limit(struct cli *cli, const char *arg)
{
	char err[EBID_ERRLEN];

	if (artifact_limit_set(&cli->limits, arg, err, sizeof(err)))
		return usage_error("%s", err);
	return EXIT_OK;
}

static int set_pid(struct cli *cli, const char *arg)
{
	pid_t *nv;
	char *end;
	long n;

	errno = 0;
	n = strtol(arg, &end, 10);
	if (errno || end == arg || *end || n < 1 || n > INT_MAX)
		return usage_error("--pid takes a process id, not '%s'", arg);
	nv = realloc(cli->pids, (cli->npids + 1) * sizeof(*nv));
	if (!nv)
		return usage_error("%s", "out of memory");
	nv[cli->npids++] = (pid_t)n;
	cli->pids = nv;
	cli->running = true; /* --pid implies --running */
	return EXIT_OK;
}

static int set_help(struct cli *cli, const char *arg)
{
	(void)arg;
	print_command_help(stdout, command_find(cli->command));
	return OPT_DONE;
}

static int set_version(struct cli *cli, const char *arg)
{
	(void)cli;
	(void)arg;
	printf("elf-buildid %s\n", EBID_VERSION);
	return OPT_DONE;
}

#define AT(field) .off = offsetof(struct cli, field)

/*
 * Every option, in the order of the help. To add one, add its row here,
 * then its item in docs/elf-buildid.1 and the completion's lists (the
 * tests compare both with `elf-buildid --list-options`).
 */
static const struct opt_row rows[] = {
	{ "output", 'o', "OUT", JOB, false, NULL, AT(output),
	  { { 0, "write the result to OUT (one FILE only); FILE is untouched" } } },
	{ "dry-run", 'n', NULL, JOB, false, NULL, AT(dry_run),
	  { { 0, "print every byte range that would change; write nothing" } } },
	{ "hash", 0, "ALG", JOB | C(VERIFY), false, set_hash, 0,
	  { { JOB, "sha1 (default, 20 bytes), sha256 (truncated to 20), md5 "
		   "(16), sha1-tree (parallel, for large files; docs/build-id.md)" },
	    { C(VERIFY), "with --content-hash: the hash the id was made with, "
			 "sha1 (default; md5 for a 16-byte id), sha256, md5 or "
			 "sha1-tree" } } },
	{ "id", 0, "0xHEX", C(INJECT) | C(BACKFILL), false, set_id, 0,
	  { { 0, "use this id (1 to 20 bytes) instead of a hash (not with -r)" } } },
	{ "force", 'f', NULL, JOB, false, NULL, AT(opts.force),
	  { { C(INJECT) | C(BACKFILL),
	      "recompute (or replace with --id) an id that is already there" },
	    { C(RESERVE), "set an id that is already there back to zeros, so "
			  "that backfill can fill it again" } } },
	{ "in-place", 0, NULL, JOB, false, NULL, AT(in_place),
	  { { 0, "edit the file's own inode (journal first) even while "
		 "others have it open or mapped; needed for files with "
		 "several hard links" } } },
	{ "replace", 0, NULL, JOB, false, NULL, AT(replace),
	  { { 0, "always write a new file and rename it over the old one, "
		 "even where nobody has the file open (by default such a "
		 "file is edited in place under a write lease)" } } },
	{ "preserve-times", 0, NULL, JOB, false, NULL, AT(preserve_times),
	  { { 0, "keep the file's access and modification times" } } },
	{ "no-move", 0, NULL, JOB, false, NULL, AT(opts.no_move),
	  { { 0, "refuse a file whose note would need a note moved (move-note, "
		 "move-head, new-load; docs/build-id.md)" } } },
	{ "keep-constant-id", 0, NULL, JOB | C(VERIFY), false, NULL,
	  AT(opts.keep_constant),
	  { { JOB, "keep a GNU id derived from a Go build id the go command "
		   "did not make (a placeholder such as Bazel's 'redacted'), "
		   "which every program linked with it shares; by default it "
		   "is replaced by the content hash" },
	    { C(VERIFY), "pass such a constant id (by default it fails)" } } },
	{ "manifest", 0, "FILE", JOB, false, NULL, AT(manifest),
	  { { 0, "write a JSON record of every file handled" } } },
	{ "content-hash", 0, NULL, C(VERIFY), false, NULL, AT(content_hash),
	  { { 0, "also require the id to be the hash of the file's bytes "
		 "(with --hash=ALG when it was not stamped with sha1)" } } },
	{ "perf", 0, "MODE", C(VERIFY), false, set_perf, 0,
	  { { 0, "auto (skip the perf check if perf is absent), require, off" } } },
	{ "allow-missing", 0, "GLOB", C(VERIFY), false, set_allow_missing, 0,
	  { { 0, "files matching GLOB may lack an id (repeatable)" } } },
	{ "against-manifest", 0, "FILE", C(VERIFY), false, set_against_manifest,
	  0,
	  { { 0, "unique also fails an id that FILE, the manifest of an earlier "
		 "release (inject --manifest), lists for a file with other "
		 "bytes (repeatable)" } } },
	{ "against-debuginfod", 0, NULL, C(VERIFY), false, NULL,
	  AT(against_debuginfod),
	  { { 0, "unique also fails an id that a server in DEBUGINFOD_URLS "
		 "serves for another file (through libdebuginfod); a server "
		 "that cannot be asked is an error, exit status 2" } } },
	{ "json", 0, NULL, C(VERIFY) | C(AUDIT), false, NULL, AT(json),
	  { { C(VERIFY), "one JSON document on standard output instead of the "
			 "lines" },
	    { C(AUDIT), "one JSON document on standard output: every binary's "
			"verdict, detail and fix" } } },
	{ "junit", 0, "FILE", C(VERIFY), false, NULL, AT(junit),
	  { { 0, "also write a JUnit XML report to FILE" } } },
	{ "openmetrics", 0, "FILE", C(VERIFY) | C(AUDIT), false, NULL,
	  AT(openmetrics),
	  { { C(VERIFY), "also write each file's verdict and failed checks to "
			 "FILE as OpenMetrics text, replaced whole (for "
			 "node_exporter's textfile collector: "
			 "docs/prometheus.md)" },
	    { C(AUDIT), "with --running: also write each mapped file's "
			"verdict to FILE as OpenMetrics text, replaced whole "
			"(docs/prometheus.md)" } } },
	{ "artifacts", 0, "MODE", C(VERIFY) | C(SHOW) | C(LINK), false,
	  set_artifacts, 0,
	  { { 0, "which files are read as artifacts (.deb, .rpm, tarballs, "
		 "OCI images; docs/ci.md): named (default: those named on "
		 "the command line), all (also those a -r walk finds), off" } } },
	{ "limit", 0, "KEY=VALUE", C(VERIFY) | C(SHOW) | C(LINK), false,
	  set_limit, 0,
	  { { 0, "an artifact's limits: member=SIZE (an ELF member held in "
		 "memory, 4G), unpacked=SIZE (all members, 64G), ratio=N "
		 "(unpacked over the artifact's size, 1000), members=N "
		 "(1000000) (repeatable)" } } },
	{ "debug-dir", 0, "DIR", C(LINK) | C(AUDIT), false, NULL, AT(debug_dir),
	  { { C(LINK), "place FILE (or its debug file) at "
		       "DIR/.build-id/xx/rest.debug" },
	    { C(AUDIT), "also look for ids in DIR/.build-id (besides "
			"/usr/lib/debug)" } } },
	{ "perf-cache", 0, "DIR", C(LINK) | C(AUDIT), false, NULL, AT(perf_cache),
	  { { C(LINK), "place FILE in perf's build-id cache DIR" },
	    { C(AUDIT), "also look in this perf cache (besides $HOME/.debug)" } } },
	{ "perf-default-cache", 0, NULL, C(LINK), false, NULL,
	  AT(perf_default_cache),
	  { { 0, "the same in perf's default cache, $HOME/.debug" } } },
	{ "debug-file", 0, "F", C(LINK), false, NULL, AT(debug_file),
	  { { 0, "the separate debug file of FILE (one FILE only, with "
		 "--debug-dir)" } } },
	{ "debuginfod", 0, NULL, C(AUDIT), false, NULL, AT(debuginfod),
	  { { 0, "also ask the servers in DEBUGINFOD_URLS" } } },
	{ "running", 0, NULL, C(AUDIT), false, NULL, AT(running),
	  { { 0, "no PROFILE: judge the running processes instead, each file "
		 "they map executable (ok, invisible, replaced, duplicate, "
		 "unreadable; docs/profiling.md)" } } },
	{ "pid", 0, "PID", C(AUDIT), false, set_pid, 0,
	  { { 0, "only this process (repeatable; implies --running)" } } },
	{ "rescue", 0, NULL, C(AUDIT), false, NULL, AT(rescue),
	  { { 0, "with --running and --debug-dir or --perf-cache: place each "
		 "mapped file that has an id and no findable copy there by id, "
		 "read from the mapping itself" } } },
	{ "recursive", 'r', NULL, JOB | C(VERIFY) | C(LINK), true, NULL,
	  AT(recursive),
	  { { 0, "FILE may be a directory: walk it (non-programs skipped)" } } },
	{ "exclude", 0, "GLOB", ALL & ~C(AUDIT), true, set_exclude, 0,
	  { { 0, "leave out paths or names matching GLOB (repeatable)" } } },
	{ "jobs", 'j', "N", ALL & ~C(AUDIT), true, set_jobs, 0,
	  { { 0, "files processed in parallel (default: number of CPUs)" } } },
	{ "lock-timeout", 0, "SECONDS", ALL & ~C(AUDIT), true, set_lock_timeout, 0,
	  { { 0, "wait at most this long for another run's lock on a file "
		 "(default 60; 0: do not wait)" } } },
	{ "quiet", 'q', NULL, ALL, true, NULL, AT(quiet),
	  { { 0, "print no result lines" } } },
	{ "verbose", 'v', NULL, ALL & ~C(AUDIT), true, NULL, AT(verbose),
	  { { 0, "describe each action on standard error" } } },
	{ "help", 'h', NULL, ALL, true, set_help, 0,
	  { { 0, "show this help" } } },
	{ "version", 'V', NULL, ALL, true, set_version, 0,
	  { { 0, "show the version" } } },
};

#define NROWS ARRAY_SIZE(rows)

/* The row's help for command bit, or "" (a test finds a missing one). */
static const char *row_help(const struct opt_row *r, unsigned bit)
{
	size_t i;

	for (i = 0; i < OPT_HELP_MAX && r->help[i].text; i++)
		if (!r->help[i].cmds || (r->help[i].cmds & bit))
			return r->help[i].text;
	return "";
}

/* getopt's value for a row: its short letter, or 256 + its index. */
static int row_val(size_t i)
{
	return rows[i].short_name ? rows[i].short_name : 256 + (int)i;
}

static const struct opt_row *row_of_val(int c)
{
	size_t i;

	for (i = 0; i < NROWS; i++)
		if (row_val(i) == c)
			return &rows[i];
	return NULL;
}

/* The long options a command takes, and its short option string. */
struct optable {
	struct option longs[NROWS + 1];
	char shorts[2 * NROWS + 2];
};

static void optable_make(struct optable *t, const struct command *cmd)
{
	unsigned bit = CMD_BIT(cmd - commands);
	size_t i, nl = 0, ns = 0;

	t->shorts[ns++] = ':'; /* a missing argument is ':', not '?' */
	for (i = 0; i < NROWS; i++) {
		const struct opt_row *r = &rows[i];
		int has_arg = r->metavar ? required_argument : no_argument;

		if (!(r->cmds & bit))
			continue;
		t->longs[nl++] = (struct option){ r->name, has_arg, NULL,
						  row_val(i) };
		if (r->short_name) {
			t->shorts[ns++] = r->short_name;
			if (r->metavar)
				t->shorts[ns++] = ':';
		}
	}
	memset(&t->longs[nl], 0, sizeof(t->longs[nl]));
	t->shorts[ns] = '\0';
}

/* The row that word (-x, --name or --name=...) names, for any command. */
static const struct opt_row *known_option(const char *word)
{
	size_t i, len = strcspn(word, "=");

	for (i = 0; i < NROWS; i++) {
		const struct opt_row *r = &rows[i];

		if (word[1] != '-' ? r->short_name && word[1] == r->short_name &&
					     !word[2]
				   : len > 2 && strlen(r->name) == len - 2 &&
					     !strncmp(word + 2, r->name, len - 2))
			return r;
	}
	return NULL;
}

/* The refusal of word (up to any "="), an option of another command. */
static int not_for(const struct command *cmd, const char *word)
{
	return usage_error("option '%.*s' does not apply to '%s'",
			   (int)strcspn(word, "="), word, cmd->name);
}

/* Why getopt refused the option at argv[optind - 1]. */
static int refused(const struct command *cmd, char **argv, int c)
{
	const char *word = argv[optind - 1];
	char opt[3] = { '-', (char)optopt, '\0' };

	if (strncmp(word, "--", 2) && optopt > 0 && optopt < 256)
		word = opt; /* a short option, maybe inside "-xyz" */
	if (c == ':')
		return usage_error("option '%s' needs an argument", word);
	if (!known_option(word))
		return usage_error("unknown option '%s'", word);
	return not_for(cmd, word);
}

/* One option's value into cli, by its setter or at its field. */
static int apply(struct cli *cli, const struct opt_row *r, const char *arg)
{
	void *field = (char *)cli + r->off;

	if (r->set)
		return r->set(cli, arg);
	if (r->metavar)
		*(const char **)field = arg;
	else
		*(bool *)field = true;
	return EXIT_OK;
}

/*
 * The word getopt just took as an abbreviation of the long option o, when
 * it is the full name of another command's option (audit --perf=off is
 * not --perf-cache=off); NULL when it is not.
 */
static const char *other_commands_option(char **argv, const struct option *o)
{
	const char *w = argv[optind - 1];

	if (o->has_arg && optarg == w)
		w = argv[optind - 2]; /* "--name VALUE" */
	if (strcspn(w, "=") == strlen(o->name) + 2 || !known_option(w))
		return NULL;
	return w;
}

int options_parse(struct cli *cli, const struct command *cmd, int argc,
		  char **argv)
{
	struct optable t;
	const char *w;
	int c, li, ret;

	optable_make(&t, cmd);
	optind = 2;
	opterr = 0; /* our own messages, in our own form */
	while ((li = -1, c = getopt_long(argc, argv, t.shorts, t.longs, &li)) != -1) {
		if (c == '?' || c == ':')
			return refused(cmd, argv, c);
		w = li >= 0 ? other_commands_option(argv, &t.longs[li]) : NULL;
		if (w)
			return not_for(cmd, w);
		ret = apply(cli, row_of_val(c), optarg);
		if (ret)
			return ret;
	}
	return cmd->check(cli, argc - optind);
}

/*
 * Prints text from column col on, wrapped at WIDTH to column indent; the
 * spaces between two words on one line are kept ("ID  FILE").
 */
static void put_wrapped(FILE *f, const char *text, int col, int indent)
{
	const char *p = text + strspn(text, " ");

	while (*p) {
		int n = (int)strcspn(p, " "), gap;

		col += fprintf(f, "%.*s", n, p);
		p += n;
		gap = (int)strspn(p, " ");
		p += gap;
		n = (int)strcspn(p, " ");
		if (!*p)
			break;
		if (col + gap + n > WIDTH) {
			fprintf(f, "\n%*s", indent, "");
			col = indent;
		} else {
			col += fprintf(f, "%*s", gap, "");
		}
	}
	fputc('\n', f);
}

/* "  -o, --output=OUT     text", as GNU tools print an option. */
static void print_row(FILE *f, const struct opt_row *r, unsigned bit)
{
	int n;

	if (r->short_name)
		n = fprintf(f, "  -%c, --%s", r->short_name, r->name);
	else
		n = fprintf(f, "      --%s", r->name);
	if (r->metavar)
		n += fprintf(f, "=%s", r->metavar);
	if (n + 2 > TEXT_COL)
		n += fprintf(f, "  ");
	else
		n += fprintf(f, "%*s", TEXT_COL - n, "");
	put_wrapped(f, row_help(r, bit), n, TEXT_COL);
}

/* The rows of command bit that are (or are not) common, under title. */
static void print_rows(FILE *f, unsigned bit, bool common, const char *title)
{
	bool any = false;
	size_t i;

	for (i = 0; i < NROWS; i++) {
		if (!(rows[i].cmds & bit) || rows[i].common != common)
			continue;
		if (!any)
			fprintf(f, "\n%s\n", title);
		any = true;
		print_row(f, &rows[i], bit);
	}
}

void print_command_help(FILE *f, const struct command *cmd)
{
	unsigned bit = CMD_BIT(cmd - commands);

	fprintf(f, "usage: %s %s [OPTIONS] %s\n\n", progname, cmd->name,
		cmd->args);
	put_wrapped(f, cmd->about, 0, 0);
	print_rows(f, bit, false, "Options:");
	print_rows(f, bit, true, "Common options:");
}

void print_overview(FILE *f)
{
	size_t i;

	fprintf(f, "usage: %s COMMAND [OPTIONS] FILE...\n"
		   "   or: %s help [COMMAND]\n\n", progname, progname);
	put_wrapped(f, "Give ELF files (above all Go binaries) a GNU build-id "
		       "that perf, gdb, debuginfod and the kernel can see, and "
		       "check that they do.", 0, 0);
	fprintf(f, "\nCommands:\n");
	for (i = 0; i < CMD_COUNT; i++) {
		fprintf(f, "  %-9s  ", commands[i].name);
		put_wrapped(f, commands[i].summary, 13, 13);
	}
	fprintf(f, "  %-9s  ", "help");
	put_wrapped(f, "what COMMAND does and the options it takes", 13, 13);
	fprintf(f, "\nOptions:\n");
	for (i = 0; i < NROWS; i++)
		if (rows[i].set == set_help || rows[i].set == set_version)
			print_row(f, &rows[i], 0);
	fputc('\n', f);
	put_wrapped(f, "Run 'elf-buildid help COMMAND' or 'elf-buildid COMMAND "
		       "--help' for what COMMAND does and the options it takes.",
		    0, 0);
	fputc('\n', f);
	put_wrapped(f, "The id is the first N bytes of HASH(the whole output "
		       "file with the N id bytes zeroed); see docs/build-id.md.",
		    0, 0);
	fputc('\n', f);
	put_wrapped(f, "Exit status: 0 success; 1 a verify check failed, or "
		       "audit found a binary whose samples a report would not "
		       "name right; 2 a file could not be processed (unreadable, "
		       "malformed, not ELF, no safe placement, collision); 64 "
		       "usage error. verify and -r skip non-ELF files and ELF "
		       "files that are not programs or shared libraries "
		       "instead. With several files each is processed and "
		       "reported; the worst status wins.", 0, 0);
}

void print_option_list(FILE *f, const struct command *cmd)
{
	size_t c, i;

	for (c = 0; c < CMD_COUNT; c++) {
		if (cmd && cmd != &commands[c])
			continue;
		for (i = 0; i < NROWS; i++) {
			const struct opt_row *r = &rows[i];

			if (!(r->cmds & CMD_BIT(c)))
				continue;
			fprintf(f, "%s\t--%s\t", commands[c].name, r->name);
			if (r->short_name)
				fprintf(f, "-%c\t", r->short_name);
			else
				fputs("-\t", f);
			fprintf(f, "%s\t%s\n", r->metavar ? r->metavar : "-",
				row_help(r, CMD_BIT(c)));
		}
	}
}
