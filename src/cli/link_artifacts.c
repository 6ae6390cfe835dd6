/* SPDX-License-Identifier: MIT */
/*
 * link over artifacts: a debug tree (or perf's cache) filled from packages,
 * binaries and their debug packages together (Debian's -dbgsym .debs,
 * RPM's -debuginfo packages). A member below usr/lib/debug/ is a debug
 * file, anything else a binary. Two passes over the artifacts: the first
 * reads every id and checks that each debug file's id is a shipped
 * binary's (and the id its .build-id name says, where it has one); only
 * when all is well does the second place anything, so that a bad set
 * writes nothing.
 */
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "cli/artifact.h"
#include "cli/cli.h"

#define DEBUG_PREFIX "usr/lib/debug/"

struct seen {
	char *path;                     /* ARTIFACT:MEMBER */
	const char *name;               /* the member's name, in path */
	char id[2 * EBID_MAX_ID + 1];
	bool debug;
};

struct linkset {
	const struct cli *cli;
	struct seen *v;
	size_t n;
	int pass;                       /* 1: read, 2: place */
	int status;
	bool placed;
};

static bool is_debug(const char *member)
{
	return !strncmp(member, DEBUG_PREFIX, strlen(DEBUG_PREFIX));
}

static void member_error(struct linkset *ls, const struct result *r,
			 const char *what)
{
	fprintf(stderr, "%s: '%s': link: %s\n", progname, r->path, what);
	ls->status = EXIT_FILE;
}

/* The member's id in hex, or "" when it has none that can be linked. */
static void member_id(int fd, char hex[2 * EBID_MAX_ID + 1], char *err,
		      size_t errlen)
{
	struct ebid_elf elf;

	hex[0] = '\0';
	memset(&elf, 0, sizeof(elf));
	if (ebid_elf_open_fd(&elf, fd, err, errlen))
		return;
	if (!elf.gnu.present || !elf.gnu.desc_len ||
	    elf.gnu.desc_len > EBID_MAX_ID ||
	    ebid_all_zero(elf.gnu.desc, elf.gnu.desc_len))
		snprintf(err, errlen,
			 "no usable GNU build-id (run elf-buildid inject before packing)");
	else
		ebid_hex(hex, elf.gnu.desc, elf.gnu.desc_len);
	ebid_elf_release(&elf);
}

/* A .build-id/xx/rest.debug name must be its id's. */
static bool name_matches(const char *member, const char *id)
{
	const char *b = strstr(member, "/.build-id/");
	char want[2 * EBID_MAX_ID + 32];

	if (!b)
		return true;
	snprintf(want, sizeof(want), "/.build-id/%.2s/%s.debug", id, id + 2);
	return !strcmp(b, want);
}

static const struct seen *find(const struct linkset *ls, const char *id,
			       bool debug)
{
	size_t i;

	for (i = 0; i < ls->n; i++)
		if (ls->v[i].debug == debug && !strcmp(ls->v[i].id, id))
			return &ls->v[i];
	return NULL;
}

static void first_pass(struct linkset *ls, int fd, struct result *r)
{
	const char *member = r->path + r->member_at;
	char err[EBID_ERRLEN] = "", id[2 * EBID_MAX_ID + 1];
	struct seen *nv;

	member_id(fd, id, err, sizeof(err));
	if (!id[0]) {
		member_error(ls, r, err);
		return;
	}
	if (is_debug(member) && !name_matches(member, id)) {
		member_error(ls, r, "its .build-id name is not its id");
		return;
	}
	nv = realloc(ls->v, (ls->n + 1) * sizeof(*nv));
	if (!nv || !(nv[ls->n].path = strdup(r->path))) {
		ls->v = nv ? nv : ls->v;
		member_error(ls, r, "out of memory");
		return;
	}
	ls->v = nv;
	nv[ls->n].name = nv[ls->n].path + r->member_at;
	memcpy(nv[ls->n].id, id, sizeof(id));
	nv[ls->n++].debug = is_debug(member);
}

/* Places one member as p says; the line printed, or the error. */
static void place(struct linkset *ls, int fd, struct result *r,
		  struct ebid_placing *p)
{
	char err[EBID_ERRLEN], *dest = NULL;

	if (ebid_place_by_id(fd, p, &dest, err, sizeof(err))) {
		member_error(ls, r, err);
		return;
	}
	ls->placed = true;
	if (!ls->cli->quiet)
		printf("%s  %s\n", p->hex, dest);
	free(dest);
}

static void second_pass(struct linkset *ls, int fd, struct result *r)
{
	const struct cli *cli = ls->cli;
	const char *member = r->path + r->member_at;
	char err[EBID_ERRLEN], id[2 * EBID_MAX_ID + 1], bin[EBID_PATH_MAX];
	const struct seen *b;
	struct ebid_placing p = { .hex = id, .bin_path = bin };

	member_id(fd, id, err, sizeof(err));
	if (!id[0])
		return; /* said in the first pass */
	b = find(ls, id, false);
	if (is_debug(member) && !b) {
		member_error(ls, r, "changed between the passes");
		return;
	}
	snprintf(bin, sizeof(bin), "/%s", is_debug(member) ? b->name : member);
	if (!is_debug(member) && cli->perf_cachefd >= 0) {
		p.kind = EBID_ID_PERF_CACHE;
		p.dirfd = cli->perf_cachefd;
		p.dir = cli->perf_cache;
		place(ls, fd, r, &p);
	}
	if (cli->debug_dirfd < 0 ||
	    (!is_debug(member) && find(ls, id, true)))
		return; /* its debug file is placed instead */
	p.kind = EBID_ID_DEBUG_DIR;
	p.dirfd = cli->debug_dirfd;
	p.dir = cli->debug_dir;
	p.debug_file = is_debug(member);
	place(ls, fd, r, &p);
}

/* artifact_judge_fn of both passes. */
static void judge(const struct cli *cli, int fd, struct result *r, void *ctx)
{
	struct linkset *ls = ctx;

	(void)cli;
	if (ls->pass == 1)
		first_pass(ls, fd, r);
	else
		second_pass(ls, fd, r);
}

/* The artifacts named, each open once for both passes. */
struct named {
	int fd;
	enum artifact_kind kind;
};

/* One pass over every artifact named. */
static void pass(struct linkset *ls, char **args, const struct named *v,
		 int nargs)
{
	int i;

	for (i = 0; i < nargs; i++) {
		struct result r = { 0 };
		char err[EBID_ERRLEN];
		size_t m;

		if (v[i].kind == ART_NONE)
			continue; /* open_all() said why */
		if (artifact_read(ls->cli, v[i].fd, v[i].kind, args[i], &r,
				  judge, ls, err, sizeof(err))) {
			fprintf(stderr, "%s: '%s': link: %s: %s\n", progname,
				args[i], artifact_kind_name(v[i].kind), err);
			ls->status = EXIT_FILE;
		}
		for (m = 0; m < r.nmembers; m++)
			free((char *)r.members[m].path);
		free(r.members);
	}
}

/*
 * Opens every argument under its shared lock, held through both passes,
 * so that the second reads the inodes the first checked: 0, or EXIT_FILE
 * when one cannot be opened or is no artifact (said on stderr).
 */
static int open_all(const struct cli *cli, char **args, int nargs,
		    struct named *v)
{
	int i, status = 0;

	for (i = 0; i < nargs; i++) {
		char err[EBID_ERRLEN];
		struct stat st;

		v[i].fd = open_named(cli, args[i], &st, err, sizeof(err));
		v[i].kind = v[i].fd < 0 ? ART_NONE
					: artifact_sniff(v[i].fd, &st);
		if (v[i].fd < 0 || v[i].kind == ART_NONE) {
			fprintf(stderr, "%s: '%s': link: %s\n", progname,
				args[i],
				v[i].fd < 0 ? err
					    : "not an artifact (name artifacts or files, not both)");
			status = EXIT_FILE;
		}
	}
	return status;
}

/* Each debug file's id must be a binary's of the set. */
static void check_pairs(struct linkset *ls)
{
	size_t i;

	for (i = 0; i < ls->n; i++)
		if (ls->v[i].debug && !find(ls, ls->v[i].id, false)) {
			fprintf(stderr, "%s: '%s': link: debug file with id %s, which no binary of the artifacts given has\n",
				progname, ls->v[i].path, ls->v[i].id);
			ls->status = EXIT_FILE;
		}
}

int link_artifacts(const struct cli *cli, char **args, int nargs,
		   bool *placed)
{
	struct linkset ls = { .cli = cli, .pass = 1 };
	struct named *v = calloc(nargs ? (size_t)nargs : 1, sizeof(*v));
	size_t i;
	int k;

	if (!v) {
		fprintf(stderr, "%s: out of memory\n", progname);
		return EXIT_FILE;
	}
	ls.status = open_all(cli, args, nargs, v);
	pass(&ls, args, v, nargs);
	check_pairs(&ls);
	/* Any problem and nothing is placed (the lines above say each). */
	if (!ls.status) {
		ls.pass = 2;
		pass(&ls, args, v, nargs);
	}
	for (k = 0; k < nargs; k++)
		if (v[k].fd >= 0)
			close(v[k].fd);
	free(v);
	for (i = 0; i < ls.n; i++)
		free(ls.v[i].path);
	free(ls.v);
	*placed = ls.placed;
	return ls.status;
}

bool link_any_artifact(const struct cli *cli, char **args, int nargs)
{
	char err[EBID_ERRLEN];
	struct stat st;
	bool any = false;
	int i, fd;

	if (cli->artifacts == ARTIFACTS_OFF)
		return false;
	for (i = 0; i < nargs && !any; i++) {
		fd = open_named(cli, args[i], &st, err, sizeof(err));
		if (fd >= 0) {
			any = artifact_sniff(fd, &st) != ART_NONE;
			close(fd);
		}
	}
	return any;
}
