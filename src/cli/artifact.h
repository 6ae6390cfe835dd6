/* SPDX-License-Identifier: MIT */
/*
 * Artifacts where a FILE is expected (docs/ci.md, "Artifacts"): a Debian
 * package, an RPM package, a tarball (plain, gzip, xz, zstd, bzip2) or an
 * OCI image layout (a directory, or an uncompressed tar of one as skopeo's
 * oci-archive and docker save write), read through libarchive. Members are
 * streamed: each ELF member is read into a sealed memory file (memfd), one
 * at a time, judged by the command through that descriptor like a plain
 * file, and dropped; nothing is unpacked to disk. An image's layers are
 * read from the top down, so that each path is judged once, from the layer
 * the container sees it in (whiteouts and opaque directories applied).
 */
#ifndef EBID_CLI_ARTIFACT_H
#define EBID_CLI_ARTIFACT_H
#include <stdint.h>
#include <sys/stat.h>

#include "cli/cli.h"

enum artifact_kind {
	ART_NONE = 0,
	ART_DEB,
	ART_RPM,
	ART_TAR,        /* any tarball, compressed or not */
	ART_OCI_DIR,    /* a directory holding an OCI image layout */
};

/* "Debian package", "RPM package", "tarball", "OCI image layout". */
const char *artifact_kind_name(enum artifact_kind k);

/*
 * What the file open at fd is, from its first bytes (a directory: whether
 * it holds oci-layout). ART_NONE for anything else, an ELF file included.
 */
enum artifact_kind artifact_sniff(int fd, const struct stat *st);

/*
 * The limits (--limit KEY=VALUE, docs/ci.md "Limits"): the largest ELF
 * member read into memory, the bytes all members of one artifact may
 * unpack to, and how many times the artifact's own size they may be
 * (a decompression bomb), checked against each member's declared size
 * before a byte of it is unpacked; and the number of members.
 */
#define ARTIFACT_LIMITS_DEFAULT { 4ull << 30, 64ull << 30, 1000, 1000000 }
int artifact_limit_set(struct artifact_limits *l, const char *arg, char *err,
		       size_t errlen);

/*
 * Judges one ELF member: fd holds its bytes (sealed, read-only), r has its
 * path ("ARTIFACT:MEMBER"), size, sha256 and layer filled.
 */
typedef void (*artifact_judge_fn)(const struct cli *cli, int fd,
				  struct result *r, void *ctx);

/*
 * Reads the artifact of kind k open at fd (named name) and appends one
 * result per regular member to r->members: ELF members judged by judge,
 * the others skipped. 0, or a negative code with err saying why the
 * artifact could not be read to its end (the results so far are kept).
 */
int artifact_read(const struct cli *cli, int fd, enum artifact_kind k,
		  const char *name, struct result *r, artifact_judge_fn judge,
		  void *ctx, char *err, size_t errlen);
#endif
