/* SPDX-License-Identifier: MIT */
/*
 * libFuzzer harness over the artifact reader (src/cli/artifact.c,
 * artifact_oci.c, json.c): the input's first byte picks how it is read
 * (a Debian package, an RPM package or a tarball, an OCI image tar among
 * them), the rest is written to a memfd and read with artifact_read(),
 * under small limits so that the limit paths run too. Any broken promise
 * is a finding: the harness prints what broke and calls abort().
 *
 * The promises checked:
 *   - a failing read returns a negative code and a non-empty message;
 *   - every member's path is "NAME:..." or "NAME[...]:..." with member_at
 *     just past the colon, and its name has no "..", no leading '/', no
 *     "./" and no empty part (art_member_name's normal form);
 *   - the judge sees each ELF member through a sealed, read-only memfd
 *     whose size is the member's declared size and that starts with ELF's
 *     magic, and its SHA-256 is set;
 *   - every member is judged, skipped or failed with a message;
 *   - nothing leaks (LeakSanitizer) and nothing is read out of bounds.
 *
 * Build: make fuzz-build (clang -fsanitize=fuzzer,address,undefined).
 */
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include "cli/artifact.h"

const char *progname = "fuzz_artifact";

__attribute__((noreturn)) static void finding(const char *why,
					      const char *path)
{
	fprintf(stderr, "fuzz_artifact: FINDING: %s (%s)\n", why,
		path ? path : "-");
	abort();
}

static void judge(const struct cli *cli, int fd, struct result *r, void *ctx)
{
	struct stat st;
	unsigned char magic[4];
	int seals = fcntl(fd, F_GET_SEALS);

	(void)cli;
	(*(unsigned *)ctx)++;
	if (fstat(fd, &st) || (unsigned long long)st.st_size != r->size)
		finding("the memfd's size is not the member's", r->path);
	if (seals < 0 || !(seals & F_SEAL_WRITE) || !(seals & F_SEAL_GROW))
		finding("the member's memfd is not sealed", r->path);
	if (pread(fd, magic, 4, 0) != 4 || memcmp(magic, "\177ELF", 4))
		finding("a judged member is not ELF", r->path);
	if (strlen(r->sha256) != 64)
		finding("no SHA-256 for a judged member", r->path);
	r->outcome = OUT_PASS;
}

static void check_name(const struct result *r, const char *name)
{
	const char *m = r->path + r->member_at;
	size_t n = strlen(name);

	if (strncmp(r->path, name, n) ||
	    (r->path[n] != ':' && r->path[n] != '['))
		finding("a member's path does not start with the artifact",
			r->path);
	if (r->member_at <= n || r->path[r->member_at - 1] != ':')
		finding("member_at is not just past the colon", r->path);
	if (*m == '/' || !strncmp(m, "./", 2) || strstr(m, "//") ||
	    !strcmp(m, "..") || !strncmp(m, "../", 3) || strstr(m, "/../") ||
	    (strlen(m) >= 3 && !strcmp(m + strlen(m) - 3, "/..")))
		finding("a member's name is not in normal form", r->path);
	if (!r->outcome)
		finding("a member with no outcome", r->path);
	if ((r->outcome == OUT_SKIPPED || r->outcome == OUT_FAILED) &&
	    !r->msg[0])
		finding("a skipped or failed member says nothing", r->path);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	static const enum artifact_kind kinds[] = { ART_DEB, ART_RPM, ART_TAR };
	struct cli cli;
	struct result r;
	char err[EBID_ERRLEN] = "";
	unsigned judged = 0;
	size_t i;
	int fd, ret;

	if (size < 1)
		return 0;
	memset(&cli, 0, sizeof(cli));
	cli.limits = (struct artifact_limits){ 1u << 20, 64u << 20, 1000, 500 };
	memset(&r, 0, sizeof(r));
	fd = memfd_create("fuzz", MFD_CLOEXEC);
	if (fd < 0 || (size > 1 && write(fd, data + 1, size - 1) !=
					   (ssize_t)(size - 1)))
		finding("cannot write the input", NULL);
	ret = artifact_read(&cli, fd, kinds[data[0] % 3], "in", &r, judge,
			    &judged, err, sizeof(err));
	if (ret && (ret >= 0 || !err[0] || strnlen(err, sizeof(err)) ==
						    sizeof(err)))
		finding("a failed read without a negative code and a message",
			err);
	for (i = 0; i < r.nmembers; i++) {
		check_name(&r.members[i], "in");
		free((char *)r.members[i].path);
	}
	free(r.members);
	close(fd);
	return 0;
}
