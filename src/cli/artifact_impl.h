/* SPDX-License-Identifier: MIT */
/* What artifact.c and artifact_oci.c share (not used elsewhere). */
#ifndef EBID_CLI_ARTIFACT_IMPL_H
#define EBID_CLI_ARTIFACT_IMPL_H
#ifndef EBID_STATIC
#include <archive.h>
#include <archive_entry.h>
#endif
#include <openssl/evp.h>
#include <stdarg.h>
#include <stdbool.h>

#include "cli/artifact.h"

/* Where libarchive reads from: a range of a descriptor, or a member. */
struct art_stream {
	int fd;
	uint64_t off, end;              /* the range [off, end) left */
	struct archive *parent;         /* or the current member of this */
	EVP_MD_CTX *md;                 /* SHA-256 of every byte read, or NULL */
	uint64_t nread;
	bool crc_on;                    /* CRC-32 of every byte read */
	uint32_t crc;
	unsigned char tail[8];          /* the last bytes read */
	unsigned char buf[1 << 16];
};

enum art_formats {
	ART_FMT_TAR = 1,
	ART_FMT_CPIO = 2,
	ART_FMT_AR = 4,
	ART_FMT_EMPTY = 8,
};

struct art;
struct archive;
struct archive_entry;
/* In an image: whether this layer's member name is what the container sees. */
typedef bool (*art_visible_fn)(struct art *A, const char *name,
			       struct archive_entry *ent);

/* One artifact being read. */
struct art {
	const struct cli *cli;
	const char *name;               /* as named: the members' prefix */
	struct result *r;               /* the artifact's: r->members grow */
	size_t cap;
	artifact_judge_fn judge;
	void *ctx;
	uint64_t size;                  /* the artifact's own bytes */
	uint64_t unpacked, members;     /* against cli->limits */
	const char *platform;           /* "[os/arch]" in a multi-image index */
	char layer[96];                 /* the layer being read, or "" */
	art_visible_fn visible;
	void *image;                    /* artifact_oci.c's state */
	bool saw_layout;                /* a plain tar held oci-layout */
	char err[EBID_ERRLEN];          /* why the artifact failed */
};

/* A set of strings. */
struct strset {
	char **v;
	size_t cap, n;
};
bool art_set_has(const struct strset *s, const char *k);
int art_set_add(struct strset *s, const char *k);
void art_set_free(struct strset *s);

struct archive *art_open(struct art_stream *s, enum art_formats f, char *err,
			 size_t errlen);
int art_stream_drain(struct art_stream *s);
#ifndef EBID_STATIC
/* The next bytes of s (digested and counted): how many, 0 at its end. */
la_ssize_t art_stream_next(struct art_stream *s, const void **p);
/* libarchive's read callbacks over a range of a descriptor, a member. */
la_ssize_t art_range_read(struct archive *a, void *ud, const void **out);
la_ssize_t art_nested_read(struct archive *a, void *ud, const void **out);
#endif
int art_members(struct art *A, struct archive *a);
int art_member_name(const char *raw, char *out, size_t outlen, char *err,
		    size_t errlen);
struct result *art_push(struct art *A, const char *member);
int art_fail(struct art *A, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));

/* artifact_load.c: an ELF member held in a sealed memfd (its descriptor,
 * or -1 when the artifact failed); whether a member is too big to hold. */
int art_load_elf(struct art *A, struct archive *a, const unsigned char *head,
		 size_t got, uint64_t size, struct result *r);
bool art_too_big(struct art *A, uint64_t size, struct result *r);

/* artifact_oci.c */
int art_read_oci_dir(struct art *A, int dirfd);
bool art_is_image_tar(struct art *A, struct art_stream *top);
int art_read_oci_tar(struct art *A, struct art_stream *top);
#endif
