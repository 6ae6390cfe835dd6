/* SPDX-License-Identifier: MIT */
/* elf-buildid command line: options, dispatch and exit codes. */
#include <errno.h>
#include <getopt.h>
#include <limits.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "cli/cli.h"

const char *progname = "elf-buildid";

static void usage(FILE *f)
{
	fprintf(f,
"usage: %s COMMAND [OPTIONS] FILE...\n"
"\n"
"Give ELF files (above all Go binaries) a GNU build-id that perf, gdb,\n"
"debuginfod and the kernel can see, and check that they do.\n"
"\n"
"Commands:\n"
"  inject     add or fill the note and make it kernel-visible; print ID  FILE\n"
"  reserve    only add a zero-filled note (to be filled by backfill)\n"
"  backfill   only hash the file and fill a reserved (all-zero) note\n"
"  show       print the GNU and Go build-ids and where they lie\n"
"  verify     the CI gate: id present, in its section, 1-20 bytes, non-zero,\n"
	"             kernel-visible, seen by perf, unique across the files\n"
"  link       make files findable by id (--debug-dir, --perf-cache)\n"
"  audit      for each binary with samples in a profile (perf.data or\n"
	"             pprof), whether a report made now names the right functions\n"
"\n"
"Options for inject, reserve and backfill:\n"
"  -o, --output=OUT     write the result to OUT (one FILE only); FILE is untouched\n"
"  -n, --dry-run        print every byte range that would change; write nothing\n"
"      --hash=ALG       sha1 (default, 20 bytes), sha256 (truncated to 20), md5 (16),\n"
"                       sha1-tree (parallel, for large files; docs/build-id.md)\n"
"      --id=0xHEX       use this id (1 to 20 bytes) instead of a hash\n"
	"                       (inject and backfill, not with -r)\n"
"  -f, --force          recompute (or replace) an id that is already there;\n"
	"                       with reserve, zero it so backfill can fill it again\n"
"      --in-place       edit the file's own inode (journal first) instead of\n"
"                       replacing it; needed for files with several hard links\n"
"      --preserve-times keep the file's access and modification times\n"
"      --no-move        refuse a file whose note would need a note moved\n"
	"                       (move-note, move-head, new-load; docs/build-id.md)\n"
"      --manifest=FILE  write a JSON record of every file handled\n"
"Options for verify:\n"
"      --content-hash   also require the id to be the hash of the file's bytes\n"
	"                       (with --hash=ALG when it was not stamped with sha1)\n"
"      --perf=MODE      auto (skip the perf check if perf is absent), require, off\n"
"      --allow-missing=GLOB  files matching GLOB may lack an id (repeatable)\n"
"      --json           one JSON document on standard output\n"
"      --junit=FILE     also write a JUnit XML report to FILE\n"
"Options for link:\n"
"      --debug-dir=DIR  place FILE (or its debug file) at DIR/.build-id/xx/rest.debug\n"
"      --perf-cache=DIR place FILE in perf's build-id cache DIR\n"
"      --perf-default-cache  the same in perf's default cache, $HOME/.debug\n"
"      --debug-file=F   the separate debug file of FILE (one FILE only)\n"
"Options for audit (FILE is a profile):\n"
"      --debug-dir=DIR  also look for ids in DIR/.build-id (besides\n"
	"                       /usr/lib/debug)\n"
"      --perf-cache=DIR also look in this perf cache (besides $HOME/.debug)\n"
"      --debuginfod     also ask the servers in DEBUGINFOD_URLS\n"
"      --json           one JSON document on standard output\n"
"      --running        no FILE: judge the running processes instead, each\n"
	"                       file they map executable (ok, invisible, replaced,\n"
	"                       duplicate, unreadable; docs/profiling.md)\n"
"      --pid=PID        only this process (repeatable; implies --running)\n"
"      --rescue         with --running and --debug-dir or --perf-cache: place\n"
	"                       each mapped file that has an id and no findable copy\n"
	"                       there by id, read from the mapping itself\n"
"Common options:\n"
"  -r, --recursive      FILE may be a directory: walk it (non-programs skipped;\n"
	"                       not for show)\n"
"      --exclude=GLOB   leave out paths or names matching GLOB (repeatable)\n"
"  -j, --jobs=N         files processed in parallel (default: number of CPUs)\n"
"      --lock-timeout=SECONDS  wait at most this long for another run's lock\n"
"                       on a file (default 60; 0: do not wait)\n"
"  -q, --quiet          print no result lines\n"
"  -v, --verbose        describe each action on standard error\n"
"  -h, --help           show this help\n"
"  -V, --version        show the version\n"
"\n"
"The id is the first N bytes of HASH(the whole output file with the N id\n"
"bytes zeroed); see docs/build-id.md.\n"
"\n"
"Exit status: 0 success; 1 a verify check failed, or audit found a binary\n"
"whose samples a report would not name right; 2 a file could not be\n"
"processed (unreadable, malformed, not ELF, no safe placement, collision);\n"
"64 usage error. verify and -r skip non-ELF files and ELF files that are\n"
"not programs or shared libraries instead. With several files each is\n"
"processed and reported; the worst status wins.\n",
		progname);
}

static int usage_error(const char *fmt, const char *arg)
	__attribute__((format(printf, 1, 0)));

static int usage_error(const char *fmt, const char *arg)
{
	fprintf(stderr, "%s: ", progname);
#pragma GCC diagnostic push
#pragma GCC diagnostic ignored "-Wformat-nonliteral"
	fprintf(stderr, fmt, arg); /* fmt: always one of our literals */
#pragma GCC diagnostic pop
	fprintf(stderr, "\nTry '%s --help' for more information.\n", progname);
	return EXIT_USAGE;
}

static int push(const char ***v, size_t *n, const char *s)
{
	const char **nv = realloc(*v, (*n + 1) * sizeof(**v));

	if (!nv)
		return -1;
	nv[(*n)++] = s;
	*v = nv;
	return 0;
}

static int push_pid(struct cli *cli, pid_t pid)
{
	pid_t *nv = realloc(cli->pids, (cli->npids + 1) * sizeof(*nv));

	if (!nv)
		return -1;
	nv[cli->npids++] = pid;
	cli->pids = nv;
	return 0;
}

enum {
	OPT_HASH = 256, OPT_ID, OPT_PERF, OPT_PRESERVE, OPT_INPLACE,
	OPT_EXCLUDE, OPT_MANIFEST, OPT_CONTENT, OPT_ALLOW, OPT_JSON,
	OPT_JUNIT, OPT_DEBUGDIR, OPT_PERFCACHE, OPT_PERFDEFAULT, OPT_DEBUGFILE,
	OPT_LOCKTIMEOUT, OPT_DEBUGINFOD, OPT_NOMOVE, OPT_RUNNING, OPT_PID,
	OPT_RESCUE,
};

/* How long a run waits for another run's lock on a file, by default. */
#define LOCK_TIMEOUT_DEFAULT_MS 60000L

/* How long perf buildid-list may take (EBID_PERF_TIMEOUT_MS may shorten). */
#define PERF_TIMEOUT_DEFAULT_MS 20000L

#define ARRAY_SIZE(a) (sizeof(a) / sizeof((a)[0]))

/* The library reads through mappings only where its handler is installed. */
static void install_sigbus(void)
{
	struct sigaction sa;

	memset(&sa, 0, sizeof(sa));
	sa.sa_sigaction = ebid_sigbus_handler;
	sa.sa_flags = SA_SIGINFO | SA_ONSTACK;
	sigemptyset(&sa.sa_mask);
	sigaction(SIGBUS, &sa, NULL);
}

/* Every option of every command; a command takes those its table lists. */
static const struct option all_options[] = {
	{ "output", required_argument, NULL, 'o' },
	{ "dry-run", no_argument, NULL, 'n' },
	{ "hash", required_argument, NULL, OPT_HASH },
	{ "id", required_argument, NULL, OPT_ID },
	{ "force", no_argument, NULL, 'f' },
	{ "perf", required_argument, NULL, OPT_PERF },
	{ "preserve-times", no_argument, NULL, OPT_PRESERVE },
	{ "in-place", no_argument, NULL, OPT_INPLACE },
	{ "recursive", no_argument, NULL, 'r' },
	{ "exclude", required_argument, NULL, OPT_EXCLUDE },
	{ "jobs", required_argument, NULL, 'j' },
	{ "manifest", required_argument, NULL, OPT_MANIFEST },
	{ "content-hash", no_argument, NULL, OPT_CONTENT },
	{ "allow-missing", required_argument, NULL, OPT_ALLOW },
	{ "json", no_argument, NULL, OPT_JSON },
	{ "junit", required_argument, NULL, OPT_JUNIT },
	{ "debug-dir", required_argument, NULL, OPT_DEBUGDIR },
	{ "perf-cache", required_argument, NULL, OPT_PERFCACHE },
	{ "perf-default-cache", no_argument, NULL, OPT_PERFDEFAULT },
	{ "debug-file", required_argument, NULL, OPT_DEBUGFILE },
	{ "lock-timeout", required_argument, NULL, OPT_LOCKTIMEOUT },
	{ "debuginfod", no_argument, NULL, OPT_DEBUGINFOD },
	{ "no-move", no_argument, NULL, OPT_NOMOVE },
	{ "running", no_argument, NULL, OPT_RUNNING },
	{ "pid", required_argument, NULL, OPT_PID },
	{ "rescue", no_argument, NULL, OPT_RESCUE },
	{ "quiet", no_argument, NULL, 'q' },
	{ "verbose", no_argument, NULL, 'v' },
	{ "help", no_argument, NULL, 'h' },
	{ "version", no_argument, NULL, 'V' },
	{ NULL, 0, NULL, 0 },
};

#define COMMON_OPTS OPT_EXCLUDE, 'j', OPT_LOCKTIMEOUT, 'q', 'v', 'h', 'V'
#define WRITE_OPTS 'o', 'n', OPT_HASH, 'f', OPT_INPLACE, OPT_PRESERVE, \
	OPT_MANIFEST, OPT_NOMOVE, 'r', COMMON_OPTS

static const int inject_opts[] = { WRITE_OPTS, OPT_ID, 0 };
static const int reserve_opts[] = { WRITE_OPTS, 0 };
static const int show_opts[] = { COMMON_OPTS, 0 };
static const int verify_opts[] = { OPT_CONTENT, OPT_HASH, OPT_PERF,
				   OPT_ALLOW, OPT_JSON, OPT_JUNIT, 'r',
				   COMMON_OPTS, 0 };
static const int link_opts[] = { OPT_DEBUGDIR, OPT_PERFCACHE, OPT_PERFDEFAULT,
				 OPT_DEBUGFILE, 'r', COMMON_OPTS, 0 };
static const int audit_opts[] = { OPT_DEBUGDIR, OPT_PERFCACHE, OPT_DEBUGINFOD,
				  OPT_JSON, OPT_RUNNING, OPT_PID, OPT_RESCUE,
				  'q', 'h', 'V', 0 };

/* A command: its name, what runs it, and the options it takes. */
struct command {
	const char *name;
	int (*run)(const struct cli *cli, char **args, int nargs);
	const int *opts;
	enum ebid_mode mode;    /* inject, reserve, backfill */
};

static const struct command commands[] = {
	{ "inject", cmd_job, inject_opts, EBID_MODE_INJECT },
	{ "reserve", cmd_job, reserve_opts, EBID_MODE_RESERVE },
	{ "backfill", cmd_job, inject_opts, EBID_MODE_BACKFILL },
	{ "show", cmd_show, show_opts, 0 },
	{ "verify", cmd_verify, verify_opts, 0 },
	{ "link", cmd_link, link_opts, 0 },
	{ "audit", cmd_audit, audit_opts, 0 },
};

/* The long options a command takes, and its short option string. */
struct optable {
	struct option longs[ARRAY_SIZE(all_options)];
	char shorts[32];
};

static bool takes(const struct command *cmd, int val)
{
	const int *o;

	for (o = cmd->opts; *o; o++)
		if (*o == val)
			return true;
	return false;
}

static void optable_make(struct optable *t, const struct command *cmd)
{
	size_t i, nl = 0, ns = 0;

	t->shorts[ns++] = ':'; /* a missing argument is ':', not '?' */
	for (i = 0; all_options[i].name; i++) {
		const struct option *o = &all_options[i];

		if (!takes(cmd, o->val))
			continue;
		t->longs[nl++] = *o;
		if (o->val < 256) {
			t->shorts[ns++] = (char)o->val;
			if (o->has_arg == required_argument)
				t->shorts[ns++] = ':';
		}
	}
	memset(&t->longs[nl], 0, sizeof(t->longs[nl]));
	t->shorts[ns] = '\0';
}

/* The option of all_options that word (-x, --name or --name=...) names. */
static const struct option *known_option(const char *word)
{
	size_t i, len = strcspn(word, "=");

	for (i = 0; all_options[i].name; i++) {
		const struct option *o = &all_options[i];

		if (word[1] != '-' ? word[1] == o->val && !word[2]
				   : len > 2 && strlen(o->name) == len - 2 &&
					     !strncmp(word + 2, o->name, len - 2))
			return o;
	}
	return NULL;
}

/* Why getopt refused the option at argv[optind - 1]. */
static int refused(const struct command *cmd, char **argv, int c)
{
	const char *word = argv[optind - 1];
	char opt[3] = { '-', (char)optopt, '\0' }, msg[160];

	if (strncmp(word, "--", 2) && optopt > 0 && optopt < 256)
		word = opt; /* a short option, maybe inside "-xyz" */
	if (c == ':')
		return usage_error("option '%s' needs an argument", word);
	if (!known_option(word))
		return usage_error("unknown option '%s'", word);
	snprintf(msg, sizeof(msg), "option '%.*s' does not apply to '%s'",
		 (int)strcspn(word, "="), word, cmd->name);
	return usage_error("%s", msg);
}

/* The value of one option, into cli; EXIT_OK or a usage error. */
static int parse_option(struct cli *cli, int c, const char *arg)
{
	char *end;
	double secs;
	size_t id_len;
	long n;

	switch (c) {
	case 'o': cli->output = arg; break;
	case 'n': cli->dry_run = true; break;
	case 'f': cli->opts.force = true; break;
	case 'r': cli->recursive = true; break;
	case 'q': cli->quiet = true; break;
	case 'v': cli->verbose = true; break;
	case OPT_PRESERVE: cli->preserve_times = true; break;
	case OPT_INPLACE: cli->in_place = true; break;
	case OPT_MANIFEST: cli->manifest = arg; break;
	case OPT_CONTENT: cli->content_hash = true; break;
	case OPT_JSON: cli->json = true; break;
	case OPT_JUNIT: cli->junit = arg; break;
	case OPT_DEBUGDIR: cli->debug_dir = arg; break;
	case OPT_PERFCACHE: cli->perf_cache = arg; break;
	case OPT_PERFDEFAULT: cli->perf_default_cache = true; break;
	case OPT_DEBUGFILE: cli->debug_file = arg; break;
	case OPT_DEBUGINFOD: cli->debuginfod = true; break;
	case OPT_NOMOVE: cli->opts.no_move = true; break;
	case OPT_RUNNING: cli->running = true; break;
	case OPT_RESCUE: cli->rescue = true; break;
	case OPT_PID:
		errno = 0;
		n = strtol(arg, &end, 10);
		if (errno || end == arg || *end || n < 1 || n > INT_MAX ||
		    push_pid(cli, (pid_t)n))
			return usage_error("--pid takes a process id, not '%s'",
					   arg);
		cli->running = true; /* --pid implies --running */
		break;
	case OPT_HASH:
		cli->opts.alg_given = true;
		if (ebid_hash_parse(arg, &cli->opts.alg))
			return usage_error("unknown hash '%s' (sha1, sha256, md5 or sha1-tree)",
					   arg);
		break;
	case OPT_ID:
		if (ebid_unhex(arg, cli->id, EBID_MAX_ID, &id_len))
			return usage_error("--id needs 1 to 20 bytes of hex, not '%s'",
					   arg);
		cli->opts.id = cli->id;
		cli->opts.id_len = id_len;
		break;
	case OPT_PERF:
		if (!strcmp(arg, "auto"))
			cli->perf = PERF_AUTO;
		else if (!strcmp(arg, "require"))
			cli->perf = PERF_REQUIRE;
		else if (!strcmp(arg, "off"))
			cli->perf = PERF_OFF;
		else
			return usage_error("--perf takes auto, require or off, not '%s'",
					   arg);
		break;
	case OPT_EXCLUDE:
	case OPT_ALLOW:
		if (c == OPT_EXCLUDE ? push(&cli->exclude, &cli->nexclude, arg)
				     : push(&cli->allow_missing,
					    &cli->nallow_missing, arg))
			return usage_error("%s", "out of memory");
		break;
	case 'j':
		errno = 0;
		n = strtol(arg, &end, 10);
		if (errno || *end || n < 1 || n > 1024)
			return usage_error("-j takes a number from 1 to 1024, not '%s'",
					   arg);
		cli->jobs = (unsigned)n;
		break;
	case OPT_LOCKTIMEOUT:
		errno = 0;
		secs = strtod(arg, &end);
		if (errno || end == arg || *end || !(secs >= 0) || secs > 86400)
			return usage_error("--lock-timeout takes seconds from 0 to 86400, not '%s'",
					   arg);
		cli->lock_timeout_ms = (long)(secs * 1000 + 0.5);
		break;
	}
	return EXIT_OK;
}

/*
 * What the option tables cannot say: options that exclude each other or
 * need another, and how many FILEs they allow.
 */
static int check_combination(const struct cli *cli, int nfiles)
{
	bool is_link = cli->run == cmd_link;

	if (cli->rescue && !cli->running)
		return usage_error("%s", "--rescue is for audit --running");
	if (cli->rescue && !cli->debug_dir && !cli->perf_cache)
		return usage_error("%s", "--rescue needs --debug-dir=DIR or --perf-cache=DIR");
	if (cli->running)
		return nfiles ? usage_error("%s", "audit --running takes no FILE")
			      : EXIT_OK;
	if (nfiles < 1)
		return usage_error("%s: no FILE given", cli->command);
	if (cli->output && (nfiles != 1 || cli->recursive))
		return usage_error("%s", "-o takes exactly one FILE and no -r");
	if (cli->in_place && cli->output)
		return usage_error("%s", "--in-place and -o exclude each other");
	if (cli->opts.id && cli->recursive)
		return usage_error("%s", "--id would give every file the same id; not with -r");
	if (cli->run == cmd_verify && cli->opts.alg_given && !cli->content_hash)
		return usage_error("%s", "--hash is for verify --content-hash");
	if (cli->perf_cache && cli->perf_default_cache)
		return usage_error("%s", "--perf-cache=DIR and --perf-default-cache exclude each other");
	if (is_link && !cli->debug_dir && !cli->perf_cache &&
	    !cli->perf_default_cache)
		return usage_error("%s", "link needs --debug-dir=DIR, --perf-cache=DIR or --perf-default-cache");
	if (cli->debug_file && (nfiles != 1 || cli->recursive || !cli->debug_dir))
		return usage_error("%s", "--debug-file takes one FILE, no -r, and --debug-dir");
	return EXIT_OK;
}

/* The command's options into cli; EXIT_OK, or the exit status for main. */
static int parse_args(struct cli *cli, const struct command *cmd, int argc,
		      char **argv, bool *done)
{
	struct optable t;
	int c, ret;

	optable_make(&t, cmd);
	optind = 2;
	opterr = 0; /* our own messages, in our own form */
	while ((c = getopt_long(argc, argv, t.shorts, t.longs, NULL)) != -1) {
		if (c == '?' || c == ':')
			return refused(cmd, argv, c);
		if (c == 'h' || c == 'V') {
			*done = true;
			if (c == 'h')
				usage(stdout);
			else
				printf("elf-buildid %s\n", EBID_VERSION);
			return EXIT_OK;
		}
		ret = parse_option(cli, c, optarg);
		if (ret)
			return ret;
	}
	return check_combination(cli, argc - optind);
}

/* perf's own default cache, for --perf-default-cache. */
static int default_cache(struct cli *cli, char **buf)
{
	const char *home = getenv("HOME");

	if (!home || !home[0] || asprintf(buf, "%s/.debug", home) < 0)
		return usage_error("%s", "--perf-default-cache needs HOME");
	cli->perf_cache = *buf;
	return EXIT_OK;
}

/* Environment knobs of the command line (not of the library). */
static void read_environment(struct cli *cli)
{
	const char *v = getenv("EBID_PERF_TIMEOUT_MS");
	char *end;
	long n;

	cli->perf_timeout_ms = PERF_TIMEOUT_DEFAULT_MS;
	if (v && v[0]) {
		n = strtol(v, &end, 10);
		if (!*end && n > 0 && n <= PERF_TIMEOUT_DEFAULT_MS)
			cli->perf_timeout_ms = n;
	}
}

/* Runs the command, then reports a failure to write standard output. */
static int run_command(struct cli *cli, char **args, int nargs)
{
	int status;

	if (cli->run == cmd_job) {
		cli->temps = ebid_temps_new();
		if (!cli->temps) {
			fprintf(stderr, "%s: out of memory\n", progname);
			return EXIT_FILE;
		}
	}
	status = cli->run(cli, args, nargs);
	ebid_temps_free(cli->temps);
	cli->temps = NULL;
	if (fflush(stdout) != 0 || ferror(stdout)) {
		fprintf(stderr, "%s: write error on standard output: %s\n",
			progname, strerror(errno));
		if (status < EXIT_FILE)
			status = EXIT_FILE;
	}
	return status;
}

int main(int argc, char **argv)
{
	struct cli cli = { .perf = PERF_AUTO,
			   .lock_timeout_ms = LOCK_TIMEOUT_DEFAULT_MS };
	const struct command *cmd = NULL;
	char *home_cache = NULL;
	bool done = false;
	size_t i;
	long n;
	int status;

	/*
	 * A file-size limit (ulimit -f) must give EFBIG, which the write path
	 * reports with the file's name, not kill us halfway.
	 */
	signal(SIGXFSZ, SIG_IGN);
	install_sigbus();

	if (argc < 2)
		return usage(stderr), EXIT_USAGE;
	if (!strcmp(argv[1], "-h") || !strcmp(argv[1], "--help"))
		return usage(stdout), EXIT_OK;
	if (!strcmp(argv[1], "-V") || !strcmp(argv[1], "--version"))
		return printf("elf-buildid %s\n", EBID_VERSION), EXIT_OK;
	for (i = 0; i < ARRAY_SIZE(commands) && !cmd; i++)
		if (!strcmp(argv[1], commands[i].name))
			cmd = &commands[i];
	if (!cmd)
		return usage_error("unknown command '%s'", argv[1]);
	cli.command = cmd->name;
	cli.run = cmd->run;
	cli.opts.mode = cmd->mode;
	n = sysconf(_SC_NPROCESSORS_ONLN);
	cli.jobs = n > 0 ? (unsigned)n : 1;
	read_environment(&cli);

	status = parse_args(&cli, cmd, argc, argv, &done);
	if (!status && !done && cli.perf_default_cache)
		status = default_cache(&cli, &home_cache);
	if (!status && !done)
		status = run_command(&cli, argv + optind, argc - optind);
	free(cli.exclude);
	free(cli.allow_missing);
	free(cli.pids);
	free(home_cache);
	return status;
}
