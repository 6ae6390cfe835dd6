/* SPDX-License-Identifier: MIT */
/* elf-buildid command line: options, messages and exit codes only. */
#include <errno.h>
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "elf-buildid.h"

#define EXIT_OK 0
#define EXIT_CHECK 1
#define EXIT_FILE 2
#define EXIT_USAGE 64

#ifndef EBID_VERSION
#define EBID_VERSION "0.0.0"
#endif

static const char *progname = "elf-buildid";

enum perf_mode { PERF_AUTO, PERF_REQUIRE, PERF_OFF };

struct cli {
	const char *command;
	struct ebid_opts opts;
	unsigned char id[EBID_MAX_ID];
	const char *output;
	bool dry_run, quiet, verbose, preserve_times;
	enum perf_mode perf;
};

static void usage(FILE *f)
{
	fprintf(f,
"usage: %s COMMAND [OPTIONS] FILE...\n"
"\n"
"Give ELF files (above all Go binaries) a GNU build-id that perf, gdb,\n"
"debuginfod and the kernel can see.\n"
"\n"
"Commands:\n"
"  inject     add or fill the note and make it kernel-visible; print ID  FILE\n"
"  reserve    only add a zero-filled note (to be filled by backfill)\n"
"  backfill   only hash the file and fill a reserved (all-zero) note\n"
"  show       print the GNU and Go build-ids and where they lie\n"
"  verify     check the id is present, non-zero, kernel-visible and seen by perf\n"
"\n"
"Options:\n"
"  -o, --output=OUT     write the result to OUT (one FILE only); FILE is untouched\n"
"  -n, --dry-run        print every byte range that would change; write nothing\n"
"      --hash=ALG       sha1 (default, 20 bytes), sha256 (truncated to 20), md5 (16)\n"
"      --id=0xHEX       use this id (1 to 20 bytes) instead of a hash\n"
"  -f, --force          recompute (or replace) an id that is already there\n"
"      --perf=MODE      verify: auto (skip if perf is absent), require, off\n"
"      --preserve-times keep the file's access and modification times\n"
"  -q, --quiet          print no result lines\n"
"  -v, --verbose        describe each action on standard error\n"
"  -h, --help           show this help\n"
"  -V, --version        show the version\n"
"\n"
"The id is the first N bytes of HASH(the whole output file with the N id\n"
"bytes zeroed); see docs/build-id.md.\n"
"\n"
"Exit status: 0 success; 1 a verify check failed; 2 a file could not be\n"
"processed (unreadable, malformed, not ELF, no safe placement); 64 usage error.\n"
"With several files each is processed and reported; the worst status wins.\n",
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

static void file_error(const char *path, const char *what, const char *cause)
{
	fprintf(stderr, "%s: '%s': %s: %s\n", progname, path, what, cause);
}

static int worst(int a, int b)
{
	return a > b ? a : b;
}

static void print_plan(const struct ebid_job *job)
{
	const struct ebid_plan *plan = &job->plan;
	char words[160];
	size_t i;

	ebid_plan_describe(plan, words, sizeof(words));
	printf("%s: %s\n", job->path, words);
	for (i = 0; i < plan->npatches; i++)
		printf("  patch 0x%llx %zu %s\n",
		       (unsigned long long)plan->patches[i].off,
		       plan->patches[i].len, plan->patches[i].what);
	if (plan->append_len)
		printf("  append 0x%llx %zu bytes at end of file\n",
		       (unsigned long long)plan->in_size, plan->append_len);
	if (plan->fill)
		printf("  id 0x%llx %zu\n", (unsigned long long)plan->id_off,
		       plan->id_len);
}

static int run_job(const struct cli *cli, const char *path)
{
	struct ebid_job job = { 0 };
	char err[EBID_ERRLEN], hex[2 * EBID_MAX_ID + 1], words[160];
	int ret;

	job.path = path;
	job.output = cli->output;
	job.opts = cli->opts;
	job.dry_run = cli->dry_run;
	job.preserve_times = cli->preserve_times;
	ret = ebid_job_run(&job, err, sizeof(err));
	if (ret) {
		file_error(path, cli->command, err);
		ebid_job_release(&job);
		return EXIT_FILE;
	}
	if (cli->dry_run) {
		print_plan(&job);
	} else {
		ebid_hex(hex, job.id, job.id_len);
		if (cli->verbose) {
			ebid_plan_describe(&job.plan, words, sizeof(words));
			fprintf(stderr, "%s: '%s': %s%s\n", progname, path,
				words, job.changed ? "" : " (not rewritten)");
		}
		if (!cli->quiet)
			printf("%s  %s\n", hex, cli->output ? cli->output : path);
	}
	ebid_job_release(&job);
	return EXIT_OK;
}

static int show(const struct cli *cli, const char *path)
{
	struct ebid_elf elf;
	char err[EBID_ERRLEN], hex[2 * EBID_GO_ID_MAX + 1];
	const struct ebid_note *g = &elf.gnu, *go = &elf.go;

	if (ebid_elf_open(&elf, path, err, sizeof(err))) {
		file_error(path, "show", err);
		return EXIT_FILE;
	}
	if (cli->quiet)
		goto out;
	printf("%s\n", path);
	if (g->present) {
		size_t n = g->desc_len < EBID_GO_ID_MAX ? g->desc_len
							: EBID_GO_ID_MAX;

		ebid_hex(hex, g->desc, n);
		printf("  gnu-build-id: %s\n", hex);
		printf("  gnu-note: %s%zu%s%s, offset 0x%llx, descsz %u%s\n",
		       g->shndx ? "section [" : "no section",
		       g->shndx, g->shndx ? "] " : "",
		       g->shndx ? elf.shdrs[g->shndx].name_str : "",
		       (unsigned long long)g->note_off, g->desc_len,
		       ebid_all_zero(g->desc, n) ? " (reserved, all zero)" : "");
		if (elf.gnu_kernel_visible)
			printf("  kernel-visible: yes (PT_NOTE program header [%d])\n",
			       g->pt_index);
		else if (g->pt_index >= 0)
			printf("  kernel-visible: no (PT_NOTE [%d] covers it, but not inside the first page)\n",
			       g->pt_index);
		else
			printf("  kernel-visible: no (no PT_NOTE covers it)\n");
	} else {
		printf("  gnu-build-id: none\n");
		printf("  kernel-visible: no\n");
	}
	if (go->present) {
		size_t n = go->desc_len < EBID_GO_ID_MAX - 1 ? go->desc_len
							     : EBID_GO_ID_MAX - 1;

		printf("  go-build-id: %.*s\n", (int)n, (const char *)go->desc);
		printf("  go-note: section [%zu], offset 0x%llx\n", go->shndx,
		       (unsigned long long)go->note_off);
	} else {
		printf("  go-build-id: none\n");
	}
out:
	ebid_elf_release(&elf);
	return EXIT_OK;
}

struct verdict {
	char failed[512];
	size_t used;
};

static void fail(struct verdict *v, const char *check, const char *detail)
{
	v->used += (size_t)snprintf(v->failed + v->used,
				    v->used < sizeof(v->failed)
					    ? sizeof(v->failed) - v->used
					    : 0,
				    "%s%s: %s", v->used ? "; " : "", check,
				    detail);
	if (v->used >= sizeof(v->failed))
		v->used = sizeof(v->failed) - 1;
}

static int verify(const struct cli *cli, const char *path)
{
	struct ebid_elf elf;
	struct verdict v = { .used = 0 };
	char err[EBID_ERRLEN], hex[2 * EBID_MAX_ID + 1] = "-", phex[128];
	const struct ebid_note *g = &elf.gnu;
	int ret;

	v.failed[0] = '\0';
	if (ebid_elf_open(&elf, path, err, sizeof(err))) {
		file_error(path, "verify", err);
		return EXIT_FILE;
	}
	if (!g->present) {
		fail(&v, "note", "no GNU build-id note");
		goto report;
	}
	if (g->desc_len <= EBID_MAX_ID)
		ebid_hex(hex, g->desc, g->desc_len);
	if (!g->shndx || strcmp(elf.shdrs[g->shndx].name_str,
				".note.gnu.build-id") ||
	    !(elf.shdrs[g->shndx].flags & 0x2))
		fail(&v, "section",
		     "note is not in an SHF_ALLOC .note.gnu.build-id section (perf and strip go by section)");
	if (g->desc_len == 0 || g->desc_len > EBID_MAX_ID)
		fail(&v, "size", "id is not 1 to 20 bytes; perf and the kernel ignore it");
	else if (ebid_all_zero(g->desc, g->desc_len))
		fail(&v, "nonzero", "id is all zeros (reserved, never backfilled)");
	if (!elf.gnu_kernel_visible)
		fail(&v, "pt_note",
		     "no PT_NOTE inside the first page covers the note; the kernel cannot see it");
	if (cli->perf != PERF_OFF) {
		ret = ebid_perf_buildid(path, phex, sizeof(phex), err,
					sizeof(err));
		if (ret == -ENOENT && cli->perf == PERF_AUTO)
			fprintf(stderr, "%s: '%s': perf check skipped: %s\n",
				progname, path, err);
		else if (ret)
			fail(&v, "perf", err);
		else if (strcmp(phex, hex))
			fail(&v, "perf", "perf buildid-list prints a different id");
	}
report:
	ebid_elf_release(&elf);
	if (v.used) {
		if (!cli->quiet)
			printf("FAIL  %s  %s\n", path, v.failed);
		return EXIT_CHECK;
	}
	if (!cli->quiet)
		printf("PASS  %s  %s\n", path, hex);
	return EXIT_OK;
}

int main(int argc, char **argv)
{
	static const struct option longopts[] = {
		{ "output", required_argument, NULL, 'o' },
		{ "dry-run", no_argument, NULL, 'n' },
		{ "hash", required_argument, NULL, 'H' },
		{ "id", required_argument, NULL, 'I' },
		{ "force", no_argument, NULL, 'f' },
		{ "perf", required_argument, NULL, 'P' },
		{ "preserve-times", no_argument, NULL, 'T' },
		{ "quiet", no_argument, NULL, 'q' },
		{ "verbose", no_argument, NULL, 'v' },
		{ "help", no_argument, NULL, 'h' },
		{ "version", no_argument, NULL, 'V' },
		{ NULL, 0, NULL, 0 },
	};
	struct cli cli = { .perf = PERF_AUTO };
	int c, i, status = EXIT_OK, nfiles;
	size_t id_len;
	bool is_job;

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
	else if (strcmp(cli.command, "show") && strcmp(cli.command, "verify"))
		return usage_error("unknown command '%s'", cli.command);
	is_job = strcmp(cli.command, "show") && strcmp(cli.command, "verify");

	optind = 2;
	while ((c = getopt_long(argc, argv, "o:nfqvhV", longopts, NULL)) != -1) {
		switch (c) {
		case 'o':
			cli.output = optarg;
			break;
		case 'n':
			cli.dry_run = true;
			break;
		case 'H':
			if (ebid_hash_parse(optarg, &cli.opts.alg))
				return usage_error("unknown hash '%s' (sha1, sha256 or md5)",
						   optarg);
			break;
		case 'I':
			if (ebid_unhex(optarg, cli.id, EBID_MAX_ID, &id_len))
				return usage_error("--id needs 1 to 20 bytes of hex, not '%s'",
						   optarg);
			cli.opts.id = cli.id;
			cli.opts.id_len = id_len;
			break;
		case 'f':
			cli.opts.force = true;
			break;
		case 'P':
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
		case 'T':
			cli.preserve_times = true;
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
		default:
			fprintf(stderr, "Try '%s --help' for more information.\n",
				progname);
			return EXIT_USAGE;
		}
	}
	nfiles = argc - optind;
	if (nfiles < 1)
		return usage_error("%s: no FILE given", cli.command);
	if (cli.output && nfiles != 1)
		return usage_error("%s", "-o takes exactly one FILE");
	if (!is_job && (cli.output || cli.dry_run))
		return usage_error("-o and --dry-run do not apply to '%s'",
				   cli.command);
	if (cli.opts.id && cli.opts.mode == EBID_MODE_RESERVE && is_job)
		return usage_error("%s", "--id does not apply to reserve");

	for (i = optind; i < argc; i++) {
		int r;

		if (!strcmp(cli.command, "show"))
			r = show(&cli, argv[i]);
		else if (!strcmp(cli.command, "verify"))
			r = verify(&cli, argv[i]);
		else
			r = run_job(&cli, argv[i]);
		status = worst(status, r);
	}
	if (fflush(stdout) != 0 || ferror(stdout)) {
		fprintf(stderr, "%s: write error on standard output: %s\n",
			progname, strerror(errno));
		return worst(status, EXIT_FILE);
	}
	return status;
}
