/* SPDX-License-Identifier: MIT */
/* show: what a file's ids are, and who can see them (read-only). */
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "cli/artifact.h"
#include "cli/cli.h"

/* What show prints of one program. */
static void show_print(const char *path, const struct ebid_elf *e)
{
	char hex[2 * EBID_GO_ID_MAX + 1];
	const struct ebid_note *g = &e->gnu, *go = &e->go;
	struct ebid_note_view view;
	const struct ebid_elf *elf = e;

	printf("%s\n", path);
	if (g->present) {
		size_t n = g->desc_len < EBID_GO_ID_MAX
				   ? g->desc_len
				   : EBID_GO_ID_MAX;

		ebid_hex(hex, g->desc, n);
		printf("  gnu-build-id: %s\n", hex);
		switch (ebid_go_derived(elf)) {
		case EBID_GO_DERIVED_NO:
			break;
		case EBID_GO_DERIVED_SUM32:
			printf("  gnu-build-id-from: the Go build id (Go's linker, -B gobuildid, Go 1.25 or later)\n");
			break;
		case EBID_GO_DERIVED_SUM32_GO124:
			printf("  gnu-build-id-from: the Go build id (Go's linker, -B gobuildid, Go 1.24)\n");
			break;
		case EBID_GO_DERIVED_NOTSHA256:
			printf("  gnu-build-id-from: the Go build id (Go's linker, -B gobuildid, Go 1.22 or 1.23)\n");
			break;
		}
		if (ebid_gnu_id_constant(elf))
			printf("  gnu-build-id-constant: yes (derived from a Go build id the go command did not make: every program linked with it has this id; inject replaces it with the content hash)\n");
		printf("  gnu-note: %s%.0zu%s%s, offset 0x%llx, descsz %u%s\n",
		       g->shndx ? "section [" : "no section",
		       g->shndx, g->shndx ? "] " : "",
		       g->shndx ? elf->shdrs[g->shndx].name_str : "",
		       (unsigned long long)g->note_off, g->desc_len,
		       ebid_all_zero(g->desc, n)
			       ? " (reserved, all zero)"
			       : "");
		ebid_note_view(elf, &view);
		if (view.by_kernel)
			printf("  kernel-visible: yes (PT_NOTE program header [%d])\n",
			       g->pt_index);
		else
			printf("  kernel-visible: no (%s)\n",
			       view.kernel_why);
	} else {
		printf("  gnu-build-id: none\n");
		printf("  kernel-visible: no\n");
	}
	if (go->present) {
		size_t n = go->desc_len < EBID_GO_ID_MAX - 1
				   ? go->desc_len
				   : EBID_GO_ID_MAX - 1;

		printf("  go-build-id: %.*s\n", (int)n,
		       (const char *)go->desc);
	} else {
		printf("  go-build-id: none\n");
	}
}

/* artifact_judge_fn for show: each ELF member printed as a file. */
static void show_member(const struct cli *cli, int fd, struct result *r,
			void *ctx)
{
	char err[EBID_ERRLEN];
	struct ebid_elf elf;

	(void)ctx;
	memset(&elf, 0, sizeof(elf));
	if (ebid_elf_open_fd(&elf, fd, err, sizeof(err))) {
		fprintf(stderr, "%s: '%s': show: %s\n", progname, r->path, err);
		r->status = EXIT_FILE;
	} else if (!cli->quiet) {
		show_print(r->path, &elf);
	}
	ebid_elf_release(&elf);
}

/* show of the artifact of kind k open at fd: its ELF members. */
static int show_artifact(const struct cli *cli, int fd, enum artifact_kind k,
			 const char *path)
{
	struct result r = { 0 };
	char err[EBID_ERRLEN];
	int status = EXIT_OK;
	size_t i;

	if (artifact_read(cli, fd, k, path, &r, show_member, NULL, err,
			  sizeof(err))) {
		fprintf(stderr, "%s: '%s': show: %s: %s\n", progname, path,
			artifact_kind_name(k), err);
		status = EXIT_FILE;
	}
	for (i = 0; i < r.nmembers; i++) {
		if (r.members[i].status > status)
			status = r.members[i].status;
		if (r.members[i].outcome == OUT_FAILED)
			fprintf(stderr, "%s: '%s': show: %s\n", progname,
				r.members[i].path, r.members[i].msg);
		free((char *)r.members[i].path);
	}
	free(r.members);
	return status;
}

/*
 * One named file, read through one descriptor under its shared lock: a
 * program shown, or, when it is no ELF file, an artifact's members.
 */
static int show_one(const struct cli *cli, const char *path)
{
	struct ebid_elf elf;
	struct stat st;
	enum artifact_kind k = ART_NONE;
	char err[EBID_ERRLEN];
	int fd, ret;

	memset(&elf, 0, sizeof(elf));
	fd = open_named(cli, path, &st, err, sizeof(err));
	ret = fd < 0 ? fd : ebid_elf_open_fd(&elf, fd, err, sizeof(err));
	if (ret == -EBID_ENOTELF && cli->artifacts != ARTIFACTS_OFF)
		k = artifact_sniff(fd, &st);
	if (k != ART_NONE) {
		ret = show_artifact(cli, fd, k, path);
	} else if (ret) {
		fprintf(stderr, "%s: '%s': show: %s\n", progname, path, err);
		ret = EXIT_FILE;
	} else if (!cli->quiet) {
		show_print(path, &elf);
	}
	ebid_elf_release(&elf);
	if (fd >= 0)
		close(fd);
	return ret;
}

int cmd_show(const struct cli *cli, char **args, int nargs)
{
	int i, ret, status = EXIT_OK;

	for (i = 0; i < nargs; i++) {
		ret = show_one(cli, args[i]);
		status = ret > status ? ret : status;
	}
	return status;
}
