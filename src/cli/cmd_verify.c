/* SPDX-License-Identifier: MIT */
/* verify: the CI gate (a read-only command). */
#include <elf.h>
#include <errno.h>
#include <fcntl.h>
#include <unistd.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "cli/artifact.h"
#include "cli/cli.h"
#include "cli/openmetrics.h"

static void add_check(struct result *r, const char *name,
		      enum check_status status, const char *fmt, ...)
	__attribute__((format(printf, 4, 5)));

static void add_check(struct result *r, const char *name,
		      enum check_status status, const char *fmt, ...)
{
	struct check *c;
	va_list ap;

	if (r->nchecks >= MAX_CHECKS)
		return;
	c = &r->checks[r->nchecks++];
	c->name = name;
	c->status = status;
	va_start(ap, fmt);
	vsnprintf(c->detail, sizeof(c->detail), fmt, ap);
	va_end(ap);
	if (status == CHECK_FAIL && r->status < EXIT_CHECK)
		r->status = EXIT_CHECK;
}

/* The checks of what readers make of the note: section, size, pt_note. */
static void check_view(struct result *r, const struct ebid_elf *elf)
{
	const struct ebid_note *g = &elf->gnu;
	struct ebid_note_view view;

	ebid_note_view(elf, &view);
	if (view.by_section)
		add_check(r, "section", CHECK_PASS, "section [%zu]", g->shndx);
	else
		add_check(r, "section", CHECK_FAIL, "%s", view.section_why);
	if (!view.size_ok) {
		add_check(r, "size", CHECK_FAIL,
			  "id has %u bytes; perf and the kernel accept 1 to 20",
			  g->desc_len);
	} else {
		add_check(r, "size", CHECK_PASS, "%u bytes", g->desc_len);
		if (view.nonzero)
			add_check(r, "nonzero", CHECK_PASS, "not all zeros");
		else
			add_check(r, "nonzero", CHECK_FAIL,
				  "id is all zeros (reserved, never backfilled)");
	}
	if (view.by_kernel)
		add_check(r, "pt_note", CHECK_PASS,
			  "PT_NOTE [%d] in the first page", g->pt_index);
	else
		add_check(r, "pt_note", CHECK_FAIL,
			  "%s; the kernel cannot see it", view.kernel_why);
}

/*
 * An id derived from a Go build id the go command did not make names
 * every program linked with that string: it fails even alone, unless
 * --keep-constant-id.
 */
static void check_constant(const struct cli *cli, struct result *r,
			   const struct ebid_elf *elf)
{
	if (!ebid_gnu_id_constant(elf))
		return;
	if (cli->opts.keep_constant)
		add_check(r, "constant", CHECK_PASS,
			  "derived from the Go build id '%.100s', which every program linked with it shares; kept (--keep-constant-id)",
			  r->go_id);
	else
		add_check(r, "constant", CHECK_FAIL,
			  "derived from the Go build id '%.100s', which the go command did not make: every program linked with it has this id; run elf-buildid inject (it replaces it with the content hash)",
			  r->go_id);
}

/* perf buildid-list on the inode we hold must print the same id. */
static void check_perf(const struct cli *cli, struct result *r, int fd)
{
	char err[EBID_ERRLEN], phex[128];
	int ret;

	if (cli->perf == PERF_OFF) {
		add_check(r, "perf", CHECK_SKIP, "--perf=off");
		return;
	}
	ret = ebid_perf_buildid(fd, cli->perf_timeout_ms, phex, sizeof(phex),
				err, sizeof(err));
	if (ret == -ENOENT && cli->perf == PERF_AUTO)
		add_check(r, "perf", CHECK_SKIP, "%s", err);
	else if (ret)
		add_check(r, "perf", CHECK_FAIL, "%s", err);
	else if (strcmp(phex, r->id))
		add_check(r, "perf", CHECK_FAIL, "perf buildid-list prints %.41s",
			  phex);
	else
		add_check(r, "perf", CHECK_PASS,
			  "perf buildid-list prints the same id");
}

/*
 * --content-hash: the id is the hash of the file's bytes. A file that
 * cannot be read for it is an ERROR, not a verdict on the file.
 */
static void check_content(const struct cli *cli, struct result *r, int fd,
			  const struct ebid_elf *elf)
{
	const struct ebid_note *g = &elf->gnu;
	enum ebid_hash_alg alg = cli->opts.alg;
	unsigned char id[EBID_MAX_ID];
	char err[EBID_ERRLEN];

	if (g->desc_len == 16 && alg == EBID_HASH_SHA1)
		alg = EBID_HASH_MD5;
	if (ebid_hash_id_len(alg) != g->desc_len) {
		add_check(r, "content", CHECK_FAIL,
			  "a %u-byte id cannot be a %s content hash",
			  g->desc_len, ebid_hash_name(alg));
	} else if (ebid_content_id(fd, elf, alg, id, err, sizeof(err))) {
		r->status = EXIT_FILE;
		r->outcome = OUT_FAILED;
		snprintf(r->msg, sizeof(r->msg),
			 "cannot compute the content hash: %s", err);
	} else if (memcmp(id, g->desc, g->desc_len) &&
		   (ebid_go_derived(elf) != EBID_GO_DERIVED_NO ||
		    ebid_go_derived_at_link(elf))) {
		/* Nothing changed the file: the id never was its hash. */
		add_check(r, "content", CHECK_FAIL,
			  "id is not the file's %s content hash: Go's linker derived it from the Go build id '%.100s' (inject keeps such an id and makes it kernel-visible; inject -f replaces it with the content hash)",
			  ebid_hash_name(alg), r->go_id);
	} else if (memcmp(id, g->desc, g->desc_len)) {
		add_check(r, "content", CHECK_FAIL,
			  "id does not match the file's %s content hash: the file was modified after the id was stamped (stripped?)",
			  ebid_hash_name(alg));
	} else {
		add_check(r, "content", CHECK_PASS, "id is the %s content hash",
			  ebid_hash_name(alg));
	}
}

/*
 * Opens e's file under its shared lock (never a file half written in
 * place) and reads it: the descriptor, or -1 with r saying why (an ERROR,
 * or a SKIP for what is not a program).
 */
static bool wants_artifact(const struct cli *cli,
			   const struct ebid_walk_entry *e)
{
	return cli->artifacts == ARTIFACTS_ALL ||
	       (cli->artifacts == ARTIFACTS_NAMED && e->named);
}

static int verify_open(const struct cli *cli, const struct ebid_walk_entry *e,
		       struct ebid_elf *elf, struct result *r,
		       enum artifact_kind *kind)
{
	char err[EBID_ERRLEN], why[EBID_ERRLEN];
	struct stat st;
	int fd, ret;

	memset(&st, 0, sizeof(st));
	fd = open_entry(cli, e, &st, err, sizeof(err));
	ret = fd < 0 ? fd : ebid_elf_open_fd(elf, fd, err, sizeof(err));
	/* Not ELF: an artifact, by its first bytes? */
	if (ret == -EBID_ENOTELF && wants_artifact(cli, e) &&
	    (*kind = artifact_sniff(fd, &st)) != ART_NONE)
		return fd;
	if (!ret && !ebid_elf_check_program(elf, why, sizeof(why))) {
		fill_elf_facts(r, elf);
		r->dev = (unsigned long long)st.st_dev;
		r->ino = (unsigned long long)st.st_ino;
		r->mtime_ns = st.st_mtim.tv_sec * 1000000000LL + st.st_mtim.tv_nsec;
		r->ctime_ns = st.st_ctim.tv_sec * 1000000000LL + st.st_ctim.tv_nsec;
		return fd;
	}
	if (!ret) {
		fill_elf_facts(r, elf);
		r->outcome = OUT_SKIPPED;
		snprintf(r->msg, sizeof(r->msg), "%s", why);
	} else if (ret == -EBID_ENOTELF && S_ISDIR(st.st_mode)) {
		/* Named without -r, it would pass a gate that checked nothing. */
		r->status = EXIT_FILE;
		r->outcome = OUT_FAILED;
		snprintf(r->msg, sizeof(r->msg),
			 "is a directory (use -r to check the files in it)");
	} else {
		r->status = ret == -EBID_ENOTELF ? EXIT_OK : EXIT_FILE;
		r->outcome = ret == -EBID_ENOTELF ? OUT_SKIPPED : OUT_FAILED;
		snprintf(r->msg, sizeof(r->msg), "%s", err);
	}
	if (fd >= 0)
		close(fd);
	return -1;
}

/* The checks of one ELF program read through fd; path for the globs. */
static void judge(const struct cli *cli, struct result *r, int fd,
		  const struct ebid_elf *elf, const char *path)
{
	const struct ebid_note *g = &elf->gnu;

	add_check(r, "elf", CHECK_PASS, "%s %s",
		  r->elfclass == ELFCLASS64 ? "ELF64" : "ELF32",
		  ebid_machine_name(r->machine) ? ebid_machine_name(r->machine)
						: "unknown machine");
	if (!g->present) {
		if (ebid_glob_match(cli->allow_missing, cli->nallow_missing,
				    path)) {
			add_check(r, "note", CHECK_SKIP,
				  "no GNU build-id note (allowed missing)");
			snprintf(r->msg, sizeof(r->msg), "(allowed missing)");
		} else {
			add_check(r, "note", CHECK_FAIL, "no GNU build-id note");
		}
		return;
	}
	add_check(r, "note", CHECK_PASS, "GNU build-id note at offset 0x%llx",
		  (unsigned long long)g->note_off);
	if (g->desc_len <= EBID_MAX_ID)
		ebid_hex(r->id, g->desc, g->desc_len);
	check_view(r, elf);
	check_constant(cli, r, elf);
	check_perf(cli, r, fd);
	if (cli->content_hash && g->desc_len && g->desc_len <= EBID_MAX_ID)
		check_content(cli, r, fd, elf);
	if ((cli->nagainst_manifest || cli->against_debuginfod) &&
	    g->desc_len && g->desc_len <= EBID_MAX_ID)
		verify_history(cli, r, fd, elf);
}

/* artifact_judge_fn: a member, judged as a file is. */
static void judge_member(const struct cli *cli, int fd, struct result *r,
			 void *ctx)
{
	char err[EBID_ERRLEN], why[EBID_ERRLEN];
	struct ebid_elf elf;

	(void)ctx;
	memset(&elf, 0, sizeof(elf));
	if (ebid_elf_open_fd(&elf, fd, err, sizeof(err))) {
		r->status = EXIT_FILE;
		r->outcome = OUT_FAILED;
		snprintf(r->msg, sizeof(r->msg), "%s", err);
	} else if (ebid_elf_check_program(&elf, why, sizeof(why))) {
		fill_elf_facts(r, &elf);
		r->outcome = OUT_SKIPPED;
		snprintf(r->msg, sizeof(r->msg), "%s", why);
	} else {
		fill_elf_facts(r, &elf);
		judge(cli, r, fd, &elf, r->path);
		if (!r->outcome)
			r->outcome = r->status ? OUT_FAIL : OUT_PASS;
	}
	ebid_elf_release(&elf);
}

static int by_path(const void *a, const void *b)
{
	const struct result *x = a, *y = b;

	return strcmp(x->path, y->path);
}

/* An artifact's members, each a result; the artifact fails as a file. */
static void verify_artifact(const struct cli *cli, int fd,
			    enum artifact_kind kind,
			    const struct ebid_walk_entry *e, struct result *r)
{
	char err[EBID_ERRLEN];

	r->artifact = true;
	if (artifact_read(cli, fd, kind, e->path, r, judge_member, NULL, err,
			  sizeof(err))) {
		r->status = EXIT_FILE;
		r->outcome = OUT_FAILED;
		snprintf(r->msg, sizeof(r->msg), "%s: %s",
			 artifact_kind_name(kind), err);
	}
	if (r->nmembers > 1)
		qsort(r->members, r->nmembers, sizeof(*r->members),
		      by_path);
	if (!r->outcome && !r->nmembers) {
		r->outcome = OUT_SKIPPED;
		snprintf(r->msg, sizeof(r->msg), "a %s without regular files",
			 artifact_kind_name(kind));
	}
}

static void verify_work(const struct cli *cli, const struct ebid_walk_entry *e,
			struct result *r)
{
	enum artifact_kind kind = ART_NONE;
	struct ebid_elf elf;
	int fd;

	memset(&elf, 0, sizeof(elf));
	fd = verify_open(cli, e, &elf, r, &kind);
	if (fd >= 0 && kind != ART_NONE)
		verify_artifact(cli, fd, kind, e, r);
	else if (fd >= 0)
		judge(cli, r, fd, &elf, e->path);
	if (!r->outcome && !r->artifact)
		r->outcome = r->status ? OUT_FAIL : OUT_PASS;
	ebid_elf_release(&elf);
	if (fd >= 0)
		close(fd);
}

static int by_id(const void *a, const void *b)
{
	const struct result *const *x = a, *const *y = b;

	return strcmp((*x)->id, (*y)->id);
}

/*
 * "unique" for a file no other file of this run shares its id with: what
 * the earlier releases say. One that could not be asked is an ERROR (exit
 * status 2): the check was not made, and a gate must not pass on that.
 */
static void unique_history(struct result *r)
{
	switch (r->hist) {
	case HIST_ERROR:
		add_check(r, "unique", CHECK_FAIL, "%s", r->hist_detail);
		r->status = EXIT_FILE;
		if (r->outcome != OUT_FAILED)
			snprintf(r->msg, sizeof(r->msg), "unique: %s",
				 r->hist_detail);
		r->outcome = OUT_FAILED;
		break;
	case HIST_OTHER:
		add_check(r, "unique", CHECK_FAIL, "%s", r->hist_detail);
		if (r->outcome != OUT_FAILED)
			r->outcome = OUT_FAIL;
		break;
	case HIST_SAME:
		add_check(r, "unique", CHECK_PASS,
			  "no other file has this id; %s", r->hist_detail);
		break;
	case HIST_NEW:
		add_check(r, "unique", CHECK_PASS,
			  "no other file has this id; not released before");
		break;
	default:
		add_check(r, "unique", CHECK_PASS, "no other file has this id");
		break;
	}
}

/* Whether a and b are one file: one inode, or the same bytes. */
/* Is the file open on fd, as fstat says, the one r judged? */
static bool still_judged(const struct result *r, int fd)
{
	struct stat st;

	return !fstat(fd, &st) && (unsigned long long)st.st_dev == r->dev &&
	       (unsigned long long)st.st_ino == r->ino &&
	       (unsigned long long)st.st_size == r->size &&
	       st.st_mtim.tv_sec * 1000000000LL + st.st_mtim.tv_nsec ==
		       r->mtime_ns &&
	       st.st_ctim.tv_sec * 1000000000LL + st.st_ctim.tv_nsec ==
		       r->ctime_ns;
}

/*
 * Do a and b hold the same bytes? A member's SHA-256 was taken as it was
 * read; a file's is taken now, through the held directories and under its
 * shared lock (open_named()), and only of the very inode judged, unchanged
 * since (device, inode, size, change times, before and after the hash):
 * a file swapped or rewritten meanwhile is not taken for its twin.
 */
static bool same_file(const struct cli *cli, struct result *a,
		      struct result *b)
{
	struct result *r[2] = { a, b };
	char err[EBID_ERRLEN];
	struct stat st;
	int i, fd;

	if (a->ino && a->dev == b->dev && a->ino == b->ino &&
	    !a->member_at && !b->member_at)
		return true; /* hard links */
	if (a->size != b->size)
		return false;
	for (i = 0; i < 2; i++) {
		if (r[i]->sha256[0])
			continue;
		fd = open_named(cli, r[i]->path, &st, err, sizeof(err));
		if (fd < 0)
			return false;
		if (!still_judged(r[i], fd) ||
		    ebid_sha256_fd(fd, r[i]->sha256, err, sizeof(err)) ||
		    !still_judged(r[i], fd))
			r[i]->sha256[0] = '\0';
		close(fd);
		if (!r[i]->sha256[0])
			return false;
	}
	return !strcmp(a->sha256, b->sha256);
}

/*
 * Two different files with one id make profiles ambiguous: both fail. The
 * same file shipped twice (the same bytes, in two packages or two
 * directories) is no collision: it passes, naming the other.
 */
static void check_unique(const struct cli *cli, struct result *v, size_t n)
{
	struct result **s = calloc(n ? n : 1, sizeof(*s));
	size_t i, j, m = 0;

	if (!s)
		return;
	for (i = 0; i < n; i++)
		if (v[i].id[0] && v[i].nchecks)
			s[m++] = &v[i];
	qsort(s, m, sizeof(*s), by_id);
	for (i = 0; i < m; i++) {
		struct result *other = NULL, *twin = NULL;

		for (j = 0; j < m && !other; j++) {
			if (j == i || strcmp(s[i]->id, s[j]->id))
				continue;
			if (same_file(cli, s[i], s[j]))
				twin = twin ? twin : s[j];
			else
				other = s[j];
		}
		if (other && s[i]->go_derived && other->go_derived &&
		    !strcmp(s[i]->go_id, other->go_id)) {
			add_check(s[i], "unique", CHECK_FAIL,
				  "same id as '%.150s': both derived from the Go build id '%.100s', the same for every binary built this way; %s",
				  other->path, s[i]->go_id,
				  ebid_go_id_by_go_command((const unsigned char *)s[i]->go_id,
							   strlen(s[i]->go_id))
					  ? "run elf-buildid inject -f (it replaces the id with the content hash)"
					  : "run elf-buildid inject (it replaces an id derived from a placeholder with the content hash)");
			s[i]->outcome = OUT_FAIL;
		} else if (other) {
			add_check(s[i], "unique", CHECK_FAIL,
				  "same id as '%.150s', a file with other bytes%s%.220s",
				  other->path,
				  s[i]->hist == HIST_OTHER ? "; " : "",
				  s[i]->hist == HIST_OTHER ? s[i]->hist_detail
							   : "");
			s[i]->outcome = OUT_FAIL;
		} else if (twin && s[i]->hist != HIST_OTHER &&
			   s[i]->hist != HIST_ERROR) {
			add_check(s[i], "unique", CHECK_PASS,
				  "no other file has this id: '%.150s' has the same bytes (one file shipped twice)",
				  twin->path);
		} else if (s[i]->nchecks) {
			unique_history(s[i]);
		}
	}
	free(s);
}

static void failed_checks(const struct result *r, char *buf, size_t len)
{
	size_t i, used = 0;

	buf[0] = '\0';
	for (i = 0; i < r->nchecks; i++) {
		if (r->checks[i].status != CHECK_FAIL)
			continue;
		used += (size_t)snprintf(buf + used, used < len ? len - used : 0,
					 "%s%s: %s", used ? "; " : "",
					 r->checks[i].name, r->checks[i].detail);
	}
}

static void print_line(const struct cli *cli, const struct result *r)
{
	char buf[2048];
	size_t i;

	if (r->outcome == OUT_FAILED) {
		fprintf(stderr, "%s: '%s': verify: %s\n", progname, r->path,
			r->msg);
		if (!cli->quiet)
			printf("ERROR  %s  %s\n", r->path, r->msg);
		return;
	}
	for (i = 0; i < r->nchecks; i++)
		if (!strcmp(r->checks[i].name, "perf") &&
		    r->checks[i].status == CHECK_SKIP &&
		    cli->perf == PERF_AUTO)
			fprintf(stderr, "%s: '%s': perf check skipped: %s\n",
				progname, r->path, r->checks[i].detail);
	if (cli->verbose)
		for (i = 0; i < r->nchecks; i++)
			fprintf(stderr, "%s: '%s': %s %s: %s\n", progname,
				r->path, check_word(r->checks[i].status),
				r->checks[i].name, r->checks[i].detail);
	if (cli->quiet)
		return;
	if (r->outcome == OUT_SKIPPED) {
		printf("SKIP  %s  %s\n", r->path, r->msg);
	} else if (r->status) {
		failed_checks(r, buf, sizeof(buf));
		printf("FAIL  %s  %s\n", r->path, buf);
	} else {
		printf("PASS  %s  %s%s%s%s%s%s\n", r->path,
		       r->id[0] ? r->id : "-", r->msg[0] ? "  " : "", r->msg,
		       r->layer[0] ? "  (" : "", r->layer,
		       r->layer[0] ? ")" : "");
	}
}

const char *verify_word(enum outcome o)
{
	return o == OUT_SKIPPED ? "skip"
	       : o == OUT_FAILED ? "error"
	       : o == OUT_FAIL	 ? "fail"
				 : "pass";
}

/* "artifact", "member", "layer": null for a plain file. */
static void print_json_member(const struct result *r)
{
	char *a = r->member_at ? strndup(r->path, r->member_at - 1) : NULL;

	printf(", \"artifact\": ");
	json_str(stdout, a);
	printf(", \"member\": ");
	json_str(stdout, r->member_at ? r->path + r->member_at : NULL);
	printf(", \"layer\": ");
	json_str(stdout, r->layer[0] ? r->layer : NULL);
	printf(", \"sha256\": ");
	json_str(stdout, r->sha256[0] ? r->sha256 : NULL);
	free(a);
}

static void print_json(const struct cli *cli, const struct result *v,
		       size_t n, const unsigned counts[4])
{
	size_t i, k;

	(void)cli;
	printf("{\n  \"tool\": \"elf-buildid\",\n  \"version\": \"%s\",\n"
	       "  \"command\": \"verify\",\n"
	       "  \"summary\": {\"passed\": %u, \"failed\": %u, \"skipped\": %u, \"errors\": %u},\n"
	       "  \"files\": [",
	       EBID_VERSION, counts[0], counts[1], counts[2], counts[3]);
	for (i = 0; i < n; i++) {
		const struct result *r = &v[i];

		printf("%s\n    {\"path\": ", i ? "," : "");
		json_str(stdout, r->path);
		print_json_member(r);
		printf(", \"status\": \"%s\", \"build_id\": ",
		       verify_word(r->outcome));
		json_str(stdout, r->id[0] ? r->id : NULL);
		printf(", \"go_build_id\": ");
		json_str(stdout, r->go_id[0] ? r->go_id : NULL);
		printf(", \"reason\": ");
		json_str(stdout, r->msg[0] ? r->msg : NULL);
		printf(", \"checks\": [");
		for (k = 0; k < r->nchecks; k++) {
			printf("%s{\"name\": \"%s\", \"status\": \"%s\", \"detail\": ",
			       k ? ", " : "", r->checks[k].name,
			       check_word(r->checks[k].status));
			json_str(stdout, r->checks[k].detail);
			printf("}");
		}
		printf("]}");
	}
	printf("\n  ]\n}\n");
}

static int write_junit(const struct cli *cli, const struct result *v,
		       size_t n, const unsigned counts[4])
{
	char buf[2048], *tmp;
	FILE *f = report_open(cli->junit, "JUnit report", &tmp);
	size_t i;

	if (!f)
		return -1;
	fprintf(f, "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n"
		   "<testsuites>\n"
		   "<testsuite name=\"elf-buildid verify\" tests=\"%zu\" failures=\"%u\" errors=\"%u\" skipped=\"%u\">\n",
		n, counts[1], counts[3], counts[2]);
	for (i = 0; i < n; i++) {
		const struct result *r = &v[i];

		fprintf(f, "  <testcase classname=\"elf-buildid.verify\" name=\"");
		xml_str(f, r->path);
		fprintf(f, "\">");
		if (r->outcome == OUT_FAIL) {
			failed_checks(r, buf, sizeof(buf));
			fprintf(f, "<failure message=\"");
			xml_str(f, buf);
			fprintf(f, "\" type=\"build-id\">");
			xml_str(f, buf);
			fprintf(f, "</failure>");
		} else if (r->outcome == OUT_FAILED) {
			fprintf(f, "<error message=\"");
			xml_str(f, r->msg);
			fprintf(f, "\" type=\"unreadable\"/>");
		} else if (r->outcome == OUT_SKIPPED) {
			fprintf(f, "<skipped message=\"");
			xml_str(f, r->msg);
			fprintf(f, "\"/>");
		} else {
			fprintf(f, "<system-out>");
			xml_str(f, r->id[0] ? r->id : r->msg);
			fprintf(f, "</system-out>");
		}
		fprintf(f, "</testcase>\n");
	}
	fprintf(f, "</testsuite>\n</testsuites>\n");
	return report_close(f, cli->junit, "JUnit report", tmp);
}

/*
 * Each artifact's members in its place; the artifact itself stays only
 * when it is the verdict (it could not be read, or held no file).
 */
static int flatten(struct result **pv, size_t *pn)
{
	struct result *v = *pv, *out;
	size_t n = *pn, total = 0, i, k = 0;

	for (i = 0; i < n; i++)
		total += v[i].nmembers + 1;
	out = calloc(total ? total : 1, sizeof(*out));
	if (!out)
		return -1;
	for (i = 0; i < n; i++) {
		if (v[i].nmembers)
			memcpy(out + k, v[i].members,
			       v[i].nmembers * sizeof(*out));
		k += v[i].nmembers;
		free(v[i].members);
		v[i].members = NULL;
		if (v[i].artifact && !v[i].outcome) {
			free((char *)v[i].path);
			continue;
		}
		out[k++] = v[i];
		out[k - 1].nmembers = 0;
	}
	free(v);
	*pv = out;
	*pn = k;
	return 0;
}

int cmd_verify(const struct cli *cli, char **args, int nargs)
{
	struct result *v;
	size_t n, i;
	unsigned counts[4] = { 0 }; /* passed, failed, skipped, errors */
	struct manifest *ms = NULL;
	struct cli c = *cli;
	char err[EBID_ERRLEN];
	int status = EXIT_OK;

	if (cli->nagainst_manifest) {
		ms = calloc(cli->nagainst_manifest, sizeof(*ms));
		if (!ms) {
			fprintf(stderr, "%s: out of memory\n", progname);
			return EXIT_FILE;
		}
	}
	for (i = 0; i < cli->nagainst_manifest; i++) {
		if (manifest_load(&ms[i], cli->against_manifest[i], err,
				  sizeof(err))) {
			fprintf(stderr, "%s: '%s': cannot read manifest: %s\n",
				progname, cli->against_manifest[i], err);
			status = EXIT_FILE;
			goto out;
		}
	}
	/* Loaded here, before the workers' threads (libdebuginfod's init). */
	if (cli->against_debuginfod && ebid_debuginfod_load(err, sizeof(err))) {
		fprintf(stderr, "%s: --against-debuginfod: %s\n", progname, err);
		status = EXIT_FILE;
		goto out;
	}
	c.manifests = ms;
	status = cli_run(&c, args, nargs, verify_work, NULL, &v, &n);
	verify_history_end();
	if (flatten(&v, &n)) {
		fprintf(stderr, "%s: out of memory\n", progname);
		cli_results_free(v, n);
		status = EXIT_FILE;
		goto out;
	}
	check_unique(cli, v, n);
	for (i = 0; i < n; i++) {
		struct result *r = &v[i];

		if (r->status > status)
			status = r->status;
		if (r->outcome == OUT_PASS)
			counts[0]++;
		else if (r->outcome == OUT_FAIL)
			counts[1]++;
		else if (r->outcome == OUT_SKIPPED)
			counts[2]++;
		else
			counts[3]++;
		if (!cli->json)
			print_line(cli, r);
		else if (r->outcome == OUT_FAILED)
			fprintf(stderr, "%s: '%s': verify: %s\n", progname,
				r->path, r->msg);
	}
	if (cli->json)
		print_json(cli, v, n, counts);
	if (cli->junit && write_junit(cli, v, n, counts))
		status = status > EXIT_FILE ? status : EXIT_FILE;
	if (cli->openmetrics && openmetrics_verify(cli->openmetrics, v, n))
		status = status > EXIT_FILE ? status : EXIT_FILE;
	cli_results_free(v, n);
out:
	for (i = 0; ms && i < cli->nagainst_manifest; i++)
		manifest_release(&ms[i]);
	free(ms);
	return status;
}
