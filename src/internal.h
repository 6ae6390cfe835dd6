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

/* A byte range that the plan overwrites. Owns bytes. */
struct ebid_patch {
	uint64_t off;
	size_t len;
	unsigned char *bytes;
	char what[64];
};

/*
 * The planned output as the layers below plan/ see it, made by plan/'s
 * ebid_plan_output() and pointing into the plan: the bytes that make it
 * (the input, a gap, appended bytes; ebid_output_piece() says which), the
 * patches and the id laid over them, and how the id is made. id/ hashes
 * it, job/ copies it; neither reads a plan.
 */
struct ebid_output {
	uint64_t in_size, out_size;
	uint64_t ins_at, ins_len;       /* the inserted gap, if ins_len */
	const unsigned char *append;    /* appended at in_size + ins_len */
	size_t append_len;
	const struct ebid_patch *patches;
	size_t npatches;
	bool fill;                      /* id_off/id_len are to be filled */
	bool hash;                      /* by hashing (else the bytes of id) */
	enum ebid_hash_alg alg;
	uint64_t id_off;
	size_t id_len;
	unsigned char id[EBID_MAX_ID];  /* explicit id, or the existing one */
};

/*
 * Where the output's bytes come from: the one map of a plan's output,
 * which hashing (id/), the copy (job/apply.c) and the edit the in-place
 * writer takes (ebid_plan_edit()) all walk. The patches and the id are
 * laid over it.
 */
enum ebid_piece_kind {
	EBID_PIECE_INPUT,       /* the input's bytes from src on */
	EBID_PIECE_ZERO,        /* zeros: the gap inserted at ins_at */
	EBID_PIECE_APPEND,      /* the appended bytes from src on */
};

struct ebid_piece {
	enum ebid_piece_kind kind;
	uint64_t src;           /* where in the input, or in plan->append */
	uint64_t len;           /* how many bytes from the output's pos on */
};

/*
 * The piece of the output that holds byte pos, cut to at most n bytes
 * (appended bytes run to the end of the output).
 */
static inline struct ebid_piece ebid_output_piece(const struct ebid_output *plan,
						  uint64_t pos, uint64_t n)
{
	uint64_t a = plan->ins_len ? plan->ins_at : plan->in_size;
	uint64_t z = a + plan->ins_len, b = plan->in_size + plan->ins_len, lim;
	struct ebid_piece pc;

	if (pos < a) {
		pc.kind = EBID_PIECE_INPUT;
		pc.src = pos;
		lim = a;
	} else if (pos < z) {
		pc.kind = EBID_PIECE_ZERO;
		pc.src = 0;
		lim = z;
	} else if (pos < b) {
		pc.kind = EBID_PIECE_INPUT;
		pc.src = pos - plan->ins_len;
		lim = b;
	} else {
		pc.kind = EBID_PIECE_APPEND;
		pc.src = pos - b;
		pc.len = n;
		return pc;
	}
	pc.len = lim - pos < n ? lim - pos : n;
	return pc;
}


/* plan/: the output view of plan (it points into plan). */
void ebid_plan_output(const struct ebid_plan *plan, struct ebid_output *o);

/*
 * plan/: the plan's new bytes with id (its id_len bytes, when the plan
 * fills the id) as an edit for fs/: the patches, the appended bytes, then
 * the id. The ranges point into plan and id, which must outlive e;
 * release it with ebid_edit_release(). 0 or -ENOMEM.
 */
int ebid_plan_edit(const struct ebid_plan *plan, const unsigned char *id,
		   struct ebid_edit *e);
void ebid_edit_release(struct ebid_edit *e);

#endif
