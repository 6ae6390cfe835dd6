/* SPDX-License-Identifier: MIT */
/* The command line's two tables: one row per command, one row per option. */
#ifndef EBID_CLI_OPTIONS_H
#define EBID_CLI_OPTIONS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdio.h>

#include "cli/cli.h"

/* The commands, in the order of the overview; CMD_BIT(c) in a mask. */
enum cmd_id {
	CMD_INJECT, CMD_RESERVE, CMD_BACKFILL, CMD_SHOW, CMD_VERIFY,
	CMD_LINK, CMD_AUDIT, CMD_COUNT
};
#define CMD_BIT(c) (1u << (c))

/* A command: its name, what runs it, and the rules its options follow. */
struct command {
	const char *name;
	command_fn run;
	enum ebid_mode mode;    /* inject, reserve, backfill */
	bool temps;             /* the run keeps a stale-temporary cache */
	const char *args;       /* what follows the options: "FILE..." */
	const char *summary;    /* its line in the overview */
	const char *about;      /* the paragraph of its own help */
	/*
	 * What an option row cannot say: options that exclude or need each
	 * other, how many FILEs they allow. EXIT_OK or a usage error (printed).
	 */
	int (*check)(const struct cli *cli, int nfiles);
};

/* The command table (commands.c), indexed by enum cmd_id. */
extern const struct command commands[CMD_COUNT];

/* The command named name, or NULL. */
const struct command *command_find(const char *name);

/*
 * How an option's value is taken: EXIT_OK, a usage error (printed), or
 * OPT_DONE when the run ends here with status 0 (--help, --version).
 */
#define OPT_DONE (-1)
typedef int (*opt_setter)(struct cli *cli, const char *arg);

/* Help text for the commands in mask (0: every command of the row). */
struct opt_help {
	unsigned cmds;
	const char *text;
};

#define OPT_HELP_MAX 2

/*
 * One option: everything the parser, the help, the "does not apply"
 * check and --list-options know about it.
 */
struct opt_row {
	const char *name;       /* long name, without "--" */
	char short_name;        /* 0: none */
	const char *metavar;    /* NULL: takes no argument */
	unsigned cmds;          /* CMD_BIT()s of the commands that take it */
	bool common;            /* shown under "Common options" */
	opt_setter set;         /* NULL: store at off */
	size_t off;             /* in struct cli: bool, or const char * with metavar */
	struct opt_help help[OPT_HELP_MAX];
};

/*
 * Prints "elf-buildid: " and the message, and where help is, to stderr;
 * returns EXIT_USAGE.
 */
int usage_error(const char *fmt, ...) __attribute__((format(printf, 1, 2)));

/* The overview (no command) or cmd's own help, to f. */
void print_overview(FILE *f);
void print_command_help(FILE *f, const struct command *cmd);

/*
 * The table, one line per command and option: COMMAND, --LONG, -S or -,
 * METAVAR or -, help text; tab-separated. cmd NULL: every command.
 */
void print_option_list(FILE *f, const struct command *cmd);

/*
 * Parses argv from optind on with cmd's options into cli. EXIT_OK, a
 * usage error, or OPT_DONE when help or the version was printed.
 */
int options_parse(struct cli *cli, const struct command *cmd, int argc,
		  char **argv);

#endif
