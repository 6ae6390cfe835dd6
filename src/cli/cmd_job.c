/* SPDX-License-Identifier: MIT */
/* inject, reserve and backfill: per-file jobs, summary and manifest. */
#include <elf.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "cli/artifact.h"
#include "cli/cli.h"

static enum outcome outcome_of(const struct ebid_plan *plan)
{
	switch (ebid_plan_outcome(plan)) {
	case EBID_OUTCOME_INJECTED:
		return OUT_INJECTED;
	case EBID_OUTCOME_RESERVED:
		return OUT_RESERVED;
	case EBID_OUTCOME_BACKFILLED:
		return OUT_BACKFILLED;
	case EBID_OUTCOME_REPAIRED:
		return OUT_REPAIRED;
	case EBID_OUTCOME_UNCHANGED:
		break;
	}
	return OUT_UNCHANGED;
}

/* The --dry-run listing: every byte range that would change. */
static char *plan_text(const struct ebid_job *job)
{
	return ebid_plan_listing(job->plan, job->path);
}

/* The SHA-256 of what the job left: the file (or -o's output). */
static int manifest_hash(const struct cli *cli, const struct ebid_at *at,
			 struct result *r, char *err, size_t errlen)
{
	struct ebid_at out;
	struct stat st;
	int fd, ret;

	ebid_at_init(&out);
	if (cli->output) {
		ret = ebid_at_named(&out, cli->output, false, err, errlen);
		if (ret)
			return ret;
		at = &out;
	}
	fd = ebid_open_locked(at, O_RDONLY, false, cli->lock_timeout_ms, &st,
			      err, errlen);
	ebid_at_release(&out);
	if (fd < 0)
		return fd;
	ret = ebid_sha256_fd(fd, r->sha256, err, errlen);
	close(fd);
	return ret;
}

/* A named artifact: packaging's output, never rewritten. */
static void refuse_artifact(const struct ebid_walk_entry *e, struct result *r)
{
	struct ebid_at at;
	struct stat st;
	enum artifact_kind k = ART_NONE;
	char why[EBID_ERRLEN];
	int fd;

	if (!e->named || ebid_walk_entry_at(e, &at, why, sizeof(why)))
		return;
	fd = openat(at.dirfd, at.name, O_RDONLY | O_CLOEXEC | O_NOCTTY |
					       O_NONBLOCK | O_NOFOLLOW);
	if (fd >= 0 && !fstat(fd, &st))
		k = artifact_sniff(fd, &st);
	if (fd >= 0)
		close(fd);
	ebid_at_release(&at);
	if (k != ART_NONE)
		snprintf(r->msg, sizeof(r->msg),
			 "a %s, not an ELF file: an artifact is packaging's output; inject the files before they are packed (verify reads artifacts)",
			 artifact_kind_name(k));
}

static void job_work(const struct cli *cli, const struct ebid_walk_entry *e,
		     struct result *r)
{
	struct ebid_job job = { 0 };
	struct ebid_at at;
	char err[EBID_ERRLEN];
	int ret;

	ebid_at_init(&at);
	job.path = e->path;
	job.at = &at;
	job.lock_timeout_ms = cli->lock_timeout_ms;
	if (!e->named) {
		job.walk_dev = e->dev;
		job.walk_ino = e->ino;
	}
	job.temps = cli->temps;
	job.output = cli->output;
	job.opts = cli->opts;
	job.dry_run = cli->dry_run;
	job.preserve_times = cli->preserve_times;
	job.replace = cli->replace;
	/* Hard links all inside the walked tree stay linked: edit the inode. */
	job.in_place = cli->in_place ||
		       (cli->recursive && e->nlink > 1 &&
			e->links_in_tree == e->nlink);
	job.skip_non_programs = cli->recursive;
	ret = ebid_walk_entry_at(e, &at, err, sizeof(err));
	if (!ret)
		ret = ebid_job_run(&job, err, sizeof(err));
	if (ret) {
		r->status = EXIT_FILE;
		r->outcome = OUT_FAILED;
		snprintf(r->msg, sizeof(r->msg), "%s", err);
		if (ret == -EBID_ENOTELF)
			refuse_artifact(e, r);
		if (job.elf.head)
			fill_elf_facts(r, &job.elf);
		goto out;
	}
	if (job.skipped) {
		r->outcome = OUT_SKIPPED;
		snprintf(r->msg, sizeof(r->msg), "%s", job.skipped);
		goto out;
	}
	if (ebid_gnu_id_constant(&job.elf)) {
		ebid_hex(r->constant_id, job.elf.gnu.desc,
			 job.elf.gnu.desc_len <= EBID_MAX_ID ? job.elf.gnu.desc_len
							     : EBID_MAX_ID);
		r->constant_kept = !job.opts.replace_constant;
	}
	r->outcome = outcome_of(job.plan);
	if (ebid_plan_changes(job.plan))
		ebid_plan_describe(job.plan, r->actions, sizeof(r->actions));
	ebid_hex(r->id, job.id, job.id_len);
	r->how = job.changed ? job.how : NULL;
	fill_elf_facts(r, &job.elf);
	r->size = (unsigned long long)ebid_plan_out_size(job.plan);
	if (cli->dry_run) {
		r->text = plan_text(&job);
	} else if (cli->manifest && manifest_hash(cli, &at, r, err,
						  sizeof(err))) {
		r->status = EXIT_FILE;
		r->outcome = OUT_FAILED;
		snprintf(r->msg, sizeof(r->msg), "cannot hash for manifest: %s",
			 err);
	}
out:
	ebid_at_release(&at);
	ebid_job_release(&job);
}

static void job_print(const struct cli *cli, struct result *r)
{
	const char *shown = cli->output ? cli->output : r->path;

	if (print_error_or_skip(cli, r))
		return;
	if (cli->dry_run) {
		if (r->text)
			fputs(r->text, stdout);
		return;
	}
	/* -v names what was done: the action words of --dry-run. */
	if (cli->verbose)
		fprintf(stderr, "%s: '%s': %s%s%s%s%s%s\n", progname, r->path,
			outcome_word(r->outcome), r->actions[0] ? " (" : "",
			r->actions, r->actions[0] ? ")" : "",
			r->how ? ", " : "", r->how ? r->how : "");
	if (cli->verbose && r->constant_id[0])
		fprintf(stderr, "%s: '%s': the GNU id %s is derived from the Go build id '%s', which the go command did not make: every program linked with it has this id; %s\n",
			progname, r->path, r->constant_id, r->go_id,
			r->constant_kept ? "kept (--keep-constant-id)"
					 : "replaced by the content hash (--keep-constant-id keeps it)");
	if (!cli->quiet)
		printf("%s  %s\n", r->id, shown);
}

static int write_manifest(const struct cli *cli, const struct result *v,
			  size_t n)
{
	char *tmp;
	FILE *f = report_open(cli->manifest, "manifest", &tmp);
	size_t i;
	bool first = true;

	if (!f)
		return -1;
	fprintf(f, "{\n  \"tool\": \"elf-buildid\",\n  \"version\": \"%s\",\n"
		   "  \"command\": \"%s\",\n  \"files\": [",
		EBID_VERSION, cli->command);
	for (i = 0; i < n; i++) {
		const struct result *r = &v[i];
		bool ok = !r->status && r->outcome != OUT_SKIPPED;

		/* Each inode once: its other names are not listed again. */
		if (r->alias)
			continue;
		fprintf(f, "%s\n    {\"path\": ", first ? "" : ",");
		first = false;
		json_str(f, r->path);
		fprintf(f, ", \"action\": \"%s\", \"gnu_build_id\": ",
			outcome_word(r->outcome));
		json_str(f, ok && r->id[0] ? r->id : NULL);
		fprintf(f, ", \"go_build_id\": ");
		json_str(f, r->go_id[0] ? r->go_id : NULL);
		fprintf(f, ", \"machine\": ");
		json_str(f, r->have_elf ? ebid_machine_name(r->machine) : NULL);
		fprintf(f, ", \"class\": ");
		json_str(f, !r->have_elf ? NULL
			    : r->elfclass == ELFCLASS64 ? "ELF64" : "ELF32");
		fprintf(f, ", \"endian\": ");
		json_str(f, !r->have_elf ? NULL
			    : r->data == ELFDATA2MSB ? "big" : "little");
		if (r->have_elf)
			fprintf(f, ", \"size\": %llu", r->size);
		else
			fprintf(f, ", \"size\": null");
		fprintf(f, ", \"sha256\": ");
		json_str(f, ok && r->sha256[0] ? r->sha256 : NULL);
		fprintf(f, ", \"reason\": ");
		json_str(f, ok ? NULL : r->msg);
		fputc('}', f);
	}
	fprintf(f, "\n  ]\n}\n");
	return report_close(f, cli->manifest, "manifest", tmp);
}

int cmd_job(const struct cli *cli, char **args, int nargs)
{
	struct result *v;
	size_t n, i;
	unsigned counts[OUT_FAILED + 1] = { 0 };
	int status;

	status = cli_run(cli, args, nargs, job_work, job_print, &v, &n);
	for (i = 0; i < n; i++)
		if (!v[i].alias) /* counted once, under its first name */
			counts[v[i].outcome]++;
	if (cli->recursive && !cli->quiet)
		fprintf(stderr,
			"%s: summary: %u injected, %u backfilled, %u repaired, %u reserved, %u unchanged, %u skipped, %u failed\n",
			progname, counts[OUT_INJECTED], counts[OUT_BACKFILLED],
			counts[OUT_REPAIRED], counts[OUT_RESERVED],
			counts[OUT_UNCHANGED], counts[OUT_SKIPPED],
			counts[OUT_FAILED]);
	if (cli->manifest && !cli->dry_run && write_manifest(cli, v, n))
		status = status > EXIT_FILE ? status : EXIT_FILE;
	cli_results_free(v, n);
	return status;
}
