/* SPDX-License-Identifier: MIT */
/* elf-buildid command line: dispatch and exit codes (the options are in
 * options.c, the commands in commands.c). */
#include <errno.h>
#include <getopt.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "cli/artifact.h"
#include "cli/options.h"

const char *progname = "elf-buildid";

/* How long a run waits for another run's lock on a file, by default. */
#define LOCK_TIMEOUT_DEFAULT_MS 60000L

/* How long perf buildid-list may take (EBID_PERF_TIMEOUT_MS may shorten). */
#define PERF_TIMEOUT_DEFAULT_MS 20000L

/*
 * How long verify --against-debuginfod waits for one file's answer, all
 * servers together (EBID_DEBUGINFOD_TIMEOUT_MS may change it).
 */
#define DEBUGINFOD_TIMEOUT_DEFAULT_MS 120000L
#define DEBUGINFOD_TIMEOUT_MAX_MS 3600000L

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

/*
 * The library takes write leases only where SIGIO cannot end the program
 * (src/fs/lease.c): it asks for no signal, and none is wanted.
 */
static void ignore_sigio(void)
{
	signal(SIGIO, SIG_IGN);
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
	v = getenv("EBID_DEBUGINFOD_TIMEOUT_MS");
	cli->debuginfod_timeout_ms = DEBUGINFOD_TIMEOUT_DEFAULT_MS;
	if (v && v[0]) {
		n = strtol(v, &end, 10);
		if (!*end && n > 0 && n <= DEBUGINFOD_TIMEOUT_MAX_MS)
			cli->debuginfod_timeout_ms = n;
	}
}

/* Runs the command, then reports a failure to write standard output. */
static int run_command(struct cli *cli, const struct command *cmd,
		       char **args, int nargs)
{
	int status;

	if (cmd->temps) {
		cli->temps = ebid_temps_new();
		if (!cli->temps) {
			fprintf(stderr, "%s: out of memory\n", progname);
			return EXIT_FILE;
		}
	}
	status = cmd->run(cli, args, nargs);
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

/* elf-buildid help [COMMAND]: the overview, or COMMAND's own help. */
static int help(int argc, char **argv)
{
	const struct command *cmd;

	if (argc == 2)
		return print_overview(stdout), EXIT_OK;
	if (argc > 3)
		return usage_error("help takes one COMMAND, not '%s'", argv[3]);
	cmd = command_find(argv[2]);
	if (!cmd)
		return usage_error("unknown command '%s'", argv[2]);
	print_command_help(stdout, cmd);
	return EXIT_OK;
}

/*
 * elf-buildid --list-options[=COMMAND]: the option table, for the tests
 * that hold the man page and the completion to it. Not in the help.
 */
static int list_options(int argc, char **argv)
{
	const char *name = argv[1] + strlen("--list-options");
	const struct command *cmd = NULL;

	if (argc > 2)
		return usage_error("unexpected '%s'", argv[2]);
	if (*name && *name != '=')
		return usage_error("unknown option '%s'", argv[1]);
	if (*name) {
		cmd = command_find(name + 1);
		if (!cmd)
			return usage_error("unknown command '%s'", name + 1);
	}
	print_option_list(stdout, cmd);
	return EXIT_OK;
}

/* The command to run, or *cmd NULL and the exit status. */
static int dispatch(int argc, char **argv, const struct command **cmd)
{
	*cmd = NULL;
	if (argc < 2)
		return print_overview(stderr), EXIT_USAGE;
	if (!strcmp(argv[1], "-h") || !strcmp(argv[1], "--help"))
		return print_overview(stdout), EXIT_OK;
	if (!strcmp(argv[1], "-V") || !strcmp(argv[1], "--version"))
		return printf("elf-buildid %s\n", EBID_VERSION), EXIT_OK;
	if (!strcmp(argv[1], "help"))
		return help(argc, argv);
	if (!strncmp(argv[1], "--list-options", strlen("--list-options")))
		return list_options(argc, argv);
	*cmd = command_find(argv[1]);
	return *cmd ? EXIT_OK : usage_error("unknown command '%s'", argv[1]);
}

int main(int argc, char **argv)
{
	struct cli cli = { .perf = PERF_AUTO,
			   .lock_timeout_ms = LOCK_TIMEOUT_DEFAULT_MS,
			   .limits = ARTIFACT_LIMITS_DEFAULT };
	const struct command *cmd;
	char *home_cache = NULL;
	long n;
	int status;

	/*
	 * A file-size limit (ulimit -f) must give EFBIG, which the write path
	 * reports with the file's name, not kill us halfway.
	 */
	signal(SIGXFSZ, SIG_IGN);
	install_sigbus();
	ignore_sigio();

	status = dispatch(argc, argv, &cmd);
	if (!cmd)
		return status;
	cli.command = cmd->name;
	cli.run = cmd->run;
	cli.opts.mode = cmd->mode;
	n = sysconf(_SC_NPROCESSORS_ONLN);
	cli.jobs = n > 0 ? (unsigned)n : 1;
	read_environment(&cli);

	status = options_parse(&cli, cmd, argc, argv);
	if (!status && cli.perf_default_cache)
		status = default_cache(&cli, &home_cache);
	if (!status)
		status = run_command(&cli, cmd, argv + optind, argc - optind);
	free(cli.exclude);
	free(cli.allow_missing);
	free(cli.against_manifest);
	free(cli.pids);
	free(home_cache);
	return status == OPT_DONE ? EXIT_OK : status;
}
