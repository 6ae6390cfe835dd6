/* SPDX-License-Identifier: MIT */
/*
 * What every layer of the library shares: byte order, errors, full reads
 * and writes, ELF constants and sizes. What a folder exports to the
 * folders above it is in that folder's own header (elf/elf.h, fs/fs.h,
 * id/id.h, plan/plan.h, check/check.h, profile/perf.h); docs/hacking.md
 * draws the layers, and tests/lint/layers.py holds every include to them.
 */
#ifndef EBID_INTERNAL_H
#define EBID_INTERNAL_H

#include <elf.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdint.h>
#include <stddef.h>
#include <sys/stat.h>

#include "elf-buildid.h"

/*
 * Library-internal parts of the reader, planner and self-check (src/elf,
 * src/plan, src/job): what callers of the public header do not need.
 */
#define EBID_TREE_CHUNK (4u << 20)     /* sha1-tree: SHA-1s of 4 MiB chunks */
#define EBID_NOTE_SYMS_MAX 64
#define EBID_DYN_MAX 512
#define EBID_PAD_MAX (64u << 10)
/* The most bytes of symbol tables read to renumber sections (itabs.c). */
#define EBID_ITABS_MAX (256u << 20)
/* Sections starting in the first page that move-head looks at, at most. */
#define EBID_HEAD_CAND_MAX 256

int ebid_src_read(const struct ebid_src *src, uint64_t off, void *buf,
		  size_t len);

#define ARRAY_SIZE(a) (sizeof(a) / sizeof((a)[0]))

/*
 * ELF constants are <elf.h>'s. The Go note's type, which <elf.h> does not
 * name (cmd/link: ELF_NOTE_GOBUILDID_TAG):
 */
#define EBID_NT_GO_BUILD_ID 4
#define EBID_GNU_NOTE_NAME ".note.gnu.build-id"

/* CLOCK_MONOTONIC in milliseconds. */
long long ebid_now_ms(void);

/* Whether hex is a build-id in hex: 2 to 2 * EBID_MAX_ID hex digits. */
bool ebid_is_hex_id(const char *hex);

/* Fills err with a formatted message and returns code (negative). */
int ebid_err(char *err, size_t errlen, int code, const char *fmt, ...)
	__attribute__((format(printf, 4, 5)));

/* Read and write integers in the file's byte order (data = ELFDATA2*). */
uint64_t ebid_get(const unsigned char *p, size_t width, unsigned char data);
void ebid_put(unsigned char *p, size_t width, uint64_t v, unsigned char data);

/* v rounded up to a multiple of a (a of 0 or 1: v itself). */
static inline uint64_t ebid_align_up(uint64_t v, uint64_t a)
{
	return a > 1 ? (v + a - 1) / a * a : v;
}

/* Size of a GNU build-id note with a descriptor of desc_len bytes. */
static inline uint64_t ebid_gnu_note_size(size_t desc_len)
{
	return 12 + 4 + ((desc_len + 3) & ~(uint64_t)3);
}

size_t ebid_shdr_encode(unsigned char *out, const struct ebid_shdr *sh,
			unsigned char elfclass, unsigned char data);

/*
 * pread()/pwrite() of exactly len bytes, retrying after EINTR and short
 * transfers: 0, or a negative errno (-EIO at end of file or when a write
 * makes no progress).
 */
int ebid_pread_full(int fd, void *buf, size_t len, uint64_t off);
int ebid_pwrite_full(int fd, const void *buf, size_t len, uint64_t off);

/* Reads and writes through a buffer go this many bytes at a time. */
#define EBID_IO_CHUNK (1u << 20)

/*
 * What a write changes in a file, as byte ranges: the one map of a plan's
 * new bytes (plan/ makes it, ebid_plan_edit()), which fs/ writes, journals
 * and syncs knowing nothing of plans. The ranges are in the order they are
 * written; the one with append holds the bytes past the input's end.
 */
struct ebid_range {
	uint64_t off;
	uint64_t len;
	const unsigned char *bytes;
	bool append;            /* past the input's end (O_APPEND in place) */
};

struct ebid_edit {
	struct ebid_range *v;
	size_t n;
	uint64_t in_size;       /* the input's size: what a journal restores */
	uint64_t out_size;      /* the file's size after */
	bool inserts;           /* bytes inserted inside the input: the file
				 * cannot be edited in place */
};

#endif
