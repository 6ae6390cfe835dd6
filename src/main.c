/* SPDX-License-Identifier: MIT */
/* elf-buildid command line: options, dispatch and exit codes. */
#include <errno.h>
#include <getopt.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "cli.h"

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
"      --perf-cache[=DIR]  place FILE in perf's build-id cache (default ~/.debug)\n"
"      --debug-file=F   the separate debug file of FILE (one FILE only)\n"
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
"Exit status: 0 success; 1 a verify check failed; 2 a file could not be\n"
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

enum {
	OPT_HASH = 256, OPT_ID, OPT_PERF, OPT_PRESERVE, OPT_INPLACE,
	OPT_EXCLUDE, OPT_MANIFEST, OPT_CONTENT, OPT_ALLOW, OPT_JSON,
	OPT_JUNIT, OPT_DEBUGDIR, OPT_PERFCACHE, OPT_DEBUGFILE, OPT_LOCKTIMEOUT,
};

/* How long a run waits for another run's lock on a file, by default. */
#define LOCK_TIMEOUT_DEFAULT_MS 60000L

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

int main(int argc, char **argv)
{
	static const struct option longopts[] = {
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
		{ "perf-cache", optional_argument, NULL, OPT_PERFCACHE },
		{ "debug-file", required_argument, NULL, OPT_DEBUGFILE },
		{ "lock-timeout", required_argument, NULL, OPT_LOCKTIMEOUT },
		{ "quiet", no_argument, NULL, 'q' },
		{ "verbose", no_argument, NULL, 'v' },
		{ "help", no_argument, NULL, 'h' },
		{ "version", no_argument, NULL, 'V' },
		{ NULL, 0, NULL, 0 },
	};
	struct cli cli = { .perf = PERF_AUTO,
			   .lock_timeout_ms = LOCK_TIMEOUT_DEFAULT_MS };
	double secs;
	char *end, *home_cache = NULL;
	const char *cache_next = NULL;
	int c, status, nfiles;
	size_t id_len;
	bool is_job, is_link, perf_given = false;
	long n;

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
	cli.command = argv[1];
	if (!strcmp(cli.command, "inject"))
		cli.opts.mode = EBID_MODE_INJECT;
	else if (!strcmp(cli.command, "reserve"))
		cli.opts.mode = EBID_MODE_RESERVE;
	else if (!strcmp(cli.command, "backfill"))
		cli.opts.mode = EBID_MODE_BACKFILL;
	else if (strcmp(cli.command, "show") && strcmp(cli.command, "verify") &&
		 strcmp(cli.command, "link"))
		return usage_error("unknown command '%s'", cli.command);
	is_link = !strcmp(cli.command, "link");
	is_job = strcmp(cli.command, "show") && strcmp(cli.command, "verify") &&
		 !is_link;
	n = sysconf(_SC_NPROCESSORS_ONLN);
	cli.jobs = n > 0 ? (unsigned)n : 1;

	optind = 2;
	opterr = 0; /* our own messages, in our own form */
	while ((c = getopt_long(argc, argv, ":o:nfrj:qvhV", longopts, NULL)) !=
	       -1) {
		switch (c) {
		case 'o':
			cli.output = optarg;
			break;
		case 'n':
			cli.dry_run = true;
			break;
		case OPT_HASH:
			cli.opts.alg_given = true;
			if (ebid_hash_parse(optarg, &cli.opts.alg))
				return usage_error("unknown hash '%s' (sha1, sha256, md5 or sha1-tree)",
						   optarg);
			break;
		case OPT_ID:
			if (ebid_unhex(optarg, cli.id, EBID_MAX_ID, &id_len))
				return usage_error("--id needs 1 to 20 bytes of hex, not '%s'",
						   optarg);
			cli.opts.id = cli.id;
			cli.opts.id_len = id_len;
			break;
		case 'f':
			cli.opts.force = true;
			break;
		case OPT_PERF:
			perf_given = true;
			if (!strcmp(optarg, "auto"))
				cli.perf = PERF_AUTO;
			else if (!strcmp(optarg, "require"))
				cli.perf = PERF_REQUIRE;
			else if (!strcmp(optarg, "off"))
				cli.perf = PERF_OFF;
			else
				return usage_error("--perf takes auto, require or off, not '%s'",
						   optarg);
			break;
		case OPT_PRESERVE:
			cli.preserve_times = true;
			break;
		case OPT_INPLACE:
			cli.in_place = true;
			break;
		case 'r':
			cli.recursive = true;
			break;
		case OPT_EXCLUDE:
			if (push(&cli.exclude, &cli.nexclude, optarg))
				return EXIT_FILE;
			break;
		case 'j':
			errno = 0;
			n = strtol(optarg, &end, 10);
			if (errno || *end || n < 1 || n > 1024)
				return usage_error("-j takes a number from 1 to 1024, not '%s'",
						   optarg);
			cli.jobs = (unsigned)n;
			break;
		case OPT_MANIFEST:
			cli.manifest = optarg;
			break;
		case OPT_CONTENT:
			cli.content_hash = true;
			break;
		case OPT_ALLOW:
			if (push(&cli.allow_missing, &cli.nallow_missing,
				 optarg))
				return EXIT_FILE;
			break;
		case OPT_JSON:
			cli.json = true;
			break;
		case OPT_JUNIT:
			cli.junit = optarg;
			break;
		case OPT_DEBUGDIR:
			cli.debug_dir = optarg;
			break;
		case OPT_PERFCACHE:
			if (!optarg && optind < argc)
				cache_next = argv[optind];
			if (optarg) {
				cli.perf_cache = optarg;
			} else if (getenv("HOME") &&
				   asprintf(&home_cache, "%s/.debug",
					    getenv("HOME")) >= 0) {
				cli.perf_cache = home_cache;
			} else {
				return usage_error("%s", "--perf-cache needs DIR when HOME is not set");
			}
			break;
		case OPT_DEBUGFILE:
			cli.debug_file = optarg;
			break;
		case OPT_LOCKTIMEOUT:
			errno = 0;
			secs = strtod(optarg, &end);
			if (errno || end == optarg || *end || !(secs >= 0) ||
			    secs > 86400)
				return usage_error("--lock-timeout takes seconds from 0 to 86400, not '%s'",
						   optarg);
			cli.lock_timeout_ms = (long)(secs * 1000 + 0.5);
			break;
		case 'q':
			cli.quiet = true;
			break;
		case 'v':
			cli.verbose = true;
			break;
		case 'h':
			return usage(stdout), EXIT_OK;
		case 'V':
			return printf("elf-buildid %s\n", EBID_VERSION), EXIT_OK;
		case ':':
			return usage_error("option '%s' needs an argument",
					   argv[optind - 1]);
		default:
			if (optopt) {
				char opt[3] = { '-', (char)optopt, '\0' };

				return usage_error("unknown option '%s'", opt);
			}
			return usage_error("unknown option '%s'",
					   argv[optind - 1]);
		}
	}
	nfiles = argc - optind;
	if (nfiles < 1)
		return usage_error("%s: no FILE given", cli.command);
	if (cli.output && (nfiles != 1 || cli.recursive))
		return usage_error("%s", "-o takes exactly one FILE and no -r");
	if (!is_job && (cli.output || cli.dry_run || cli.in_place ||
			cli.manifest || cli.preserve_times))
		return usage_error("-o, --dry-run, --in-place, --manifest and --preserve-times do not apply to '%s'",
				   cli.command);
	if (cli.in_place && cli.output)
		return usage_error("%s", "--in-place and -o exclude each other");
	if (cli.opts.id && cli.opts.mode == EBID_MODE_RESERVE && is_job)
		return usage_error("%s", "--id does not apply to reserve");
	if (cli.opts.id && cli.recursive && is_job)
		return usage_error("%s", "--id would give every file the same id; not with -r");
	if (strcmp(cli.command, "verify") &&
	    (cli.content_hash || cli.json || cli.junit || cli.nallow_missing ||
	     perf_given))
		return usage_error("%s", "--content-hash, --perf, --json, --junit and --allow-missing are for verify");
	/* An option that would be ignored is refused: it was meant to do something. */
	if (!is_job && (cli.opts.id || cli.opts.force))
		return usage_error("%s", "--id and --force are for inject, reserve and backfill");
	if (cli.opts.alg_given && !is_job && !cli.content_hash)
		return usage_error("%s", "--hash is for inject, reserve, backfill and verify --content-hash");
	/* "--perf-cache DIR" reads DIR as a file: its value needs '='. */
	if (is_link && cache_next && !cli.recursive) {
		struct stat st;

		if (!stat(cache_next, &st) && S_ISDIR(st.st_mode))
			return usage_error("--perf-cache takes its directory as --perf-cache=DIR; '%s' would be a FILE",
					   cache_next);
	}
	if (is_link && !cli.debug_dir && !cli.perf_cache)
		return usage_error("%s", "link needs --debug-dir=DIR or --perf-cache");
	if (!is_link && (cli.debug_dir || cli.perf_cache || cli.debug_file))
		return usage_error("%s", "--debug-dir, --perf-cache and --debug-file are for link");
	if (cli.debug_file && (nfiles != 1 || cli.recursive || !cli.debug_dir))
		return usage_error("%s", "--debug-file takes one FILE, no -r, and --debug-dir");
	if (!strcmp(cli.command, "show") && cli.recursive)
		return usage_error("%s", "show does not walk directories");

	if (is_job) {
		cli.temps = ebid_temps_new();
		if (!cli.temps) {
			fprintf(stderr, "%s: out of memory\n", progname);
			return EXIT_FILE;
		}
		status = cmd_job(&cli, argv + optind, nfiles);
		ebid_temps_free(cli.temps);
	}
	else if (is_link)
		status = cmd_link(&cli, argv + optind, nfiles);
	else if (!strcmp(cli.command, "show"))
		status = cmd_show(&cli, argv + optind, nfiles);
	else
		status = cmd_verify(&cli, argv + optind, nfiles);
	if (fflush(stdout) != 0 || ferror(stdout)) {
		fprintf(stderr, "%s: write error on standard output: %s\n",
			progname, strerror(errno));
		if (status < EXIT_FILE)
			status = EXIT_FILE;
	}
	free(cli.exclude);
	free(cli.allow_missing);
	free(home_cache);
	return status;
}
