/* SPDX-License-Identifier: MIT */
/* Internal helpers shared by the library modules: byte order and errors. */
#ifndef EBID_INTERNAL_H
#define EBID_INTERNAL_H

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
/* Sections starting in the first page that move-head looks at, at most. */
#define EBID_HEAD_CAND_MAX 256

int ebid_src_read(const struct ebid_src *src, uint64_t off, void *buf,
		  size_t len);

/*
 * Is the file's byte at off known to be zero? Only the first page (head)
 * and the padding after the first PT_LOAD (pad) are known; any other byte
 * counts as not zero.
 */
bool ebid_elf_byte_zero(const struct ebid_elf *elf, uint64_t off);
/*
 * Copies the file's bytes [off, off + len) from what the reader kept of
 * the start of the file (head, then more) into buf: false when they were
 * not all kept.
 */
bool ebid_elf_head_bytes(const struct ebid_elf *elf, uint64_t off,
			 void *buf, size_t len);

/*
 * Fills note_syms. ebid_elf_read() does it for a file without a GNU note
 * (the only ones whose plan may move a note); the self-check of such a
 * plan's output asks for it. Runs once per elf.
 */
int ebid_elf_read_note_syms(struct ebid_elf *elf, const struct ebid_src *src,
			    char *err, size_t errlen);


/*
 * Did the plan move section shndx of elf (EBID_ACT_MOVE_NOTE's note, or
 * one of EBID_ACT_MOVE_HEAD's sections)?
 */
bool ebid_plan_moved(const struct ebid_plan *plan, const struct ebid_elf *elf,
		     size_t shndx);

/*
 * Did the plan move symbol r of elf with its section (a symbol of a moved
 * section that points into it, or at its end)?
 */
bool ebid_plan_sym_moves(const struct ebid_plan *plan,
			 const struct ebid_elf *elf,
			 const struct ebid_symref *r);

/* Is the value of a dynamic entry with this tag an address (d_ptr)? */
bool ebid_dyn_is_addr(uint64_t tag);

/* Hashing (OpenSSL EVP behind it, src/id/hash.c). */
struct ebid_hash;
int ebid_hash_new(struct ebid_hash **h, enum ebid_hash_alg alg, char *err,
		  size_t errlen);
int ebid_hash_update(struct ebid_hash *h, const void *buf, size_t len,
		     char *err, size_t errlen);
/* Writes the id (digest truncated to ebid_hash_id_len(alg)) into id. */
int ebid_hash_final(struct ebid_hash *h, unsigned char id[EBID_MAX_ID],
		    char *err, size_t errlen);
void ebid_hash_free(struct ebid_hash *h);

/*
 * Check that new, the result of applying plan to old, is what the plan
 * promised: the note is in a .note.gnu.build-id SHF_ALLOC SHT_NOTE section,
 * the kernel's reader finds the same id, and every section and program
 * header of old is unchanged but for those the plan names.
 */
/*
 * Reads an output of plan (made from old) back into *new for
 * ebid_check_result(): its layout, and for a plan that moved sections its
 * symbols and relocations too, over the addresses of what moved (for
 * new-load, past the first page). On failure *new is left released.
 */
int ebid_elf_read_output(struct ebid_elf *new, const struct ebid_src *src,
			 const struct ebid_elf *old,
			 const struct ebid_plan *plan, char *err,
			 size_t errlen);
int ebid_check_result(const struct ebid_elf *old, const struct ebid_elf *new,
		      const struct ebid_plan *plan, const unsigned char *id,
		      char *err, size_t errlen);
/*
 * The bytes behind EBID_ACT_MOVE_HEAD, read from the output (out): the
 * moved run is the input's bytes, and where a gap was inserted (and the
 * input in is given) every byte is the planned one, the id aside.
 */
int ebid_check_moved_bytes(const struct ebid_elf *old,
			   const struct ebid_plan *plan,
			   const struct ebid_src *in, const struct ebid_src *out,
			   const unsigned char *id, char *err, size_t errlen);


/* The halves of ebid_profile_read() for perf.data (src/profile/perf.c). */
/*
 * perf bridge: the binaries with samples in the perf.data open at fd, from
 * `perf buildid-list --with-hits`. *dsos is freed with ebid_dsos_free.
 */
int ebid_perf_hits(int fd, long timeout_ms, struct ebid_dso **dsos,
		   size_t *ndsos, char *err, size_t errlen);
void ebid_dsos_free(struct ebid_dso *v, size_t n);

#define ARRAY_SIZE(a) (sizeof(a) / sizeof((a)[0]))

/* ELF constants we need without pulling <elf.h> into every module. */
#define EBID_ET_REL 1
#define EBID_ET_EXEC 2
#define EBID_ET_DYN 3
#define EBID_PT_LOAD 1
#define EBID_PT_NOTE 4
#define EBID_PT_PHDR 6
#define EBID_PF_R 4
#define EBID_SHT_STRTAB 3
#define EBID_SHT_NOTE 7
#define EBID_SHT_NOBITS 8
#define EBID_SHF_ALLOC 0x2
#define EBID_NT_GNU_BUILD_ID 3
#define EBID_NT_GO_BUILD_ID 4
#define EBID_SHN_LORESERVE 0xff00
#define EBID_PN_XNUM 0xffff
#define EBID_GNU_NOTE_NAME ".note.gnu.build-id"

/*
 * The PT_NOTE whose range holds the GNU note, whether or not the
 * kernel's walk of it reaches the note, or -1.
 */
int ebid_note_container(const struct ebid_elf *elf);

/* CLOCK_MONOTONIC in milliseconds. */
long long ebid_now_ms(void);
/*
 * flock(fd, op) (LOCK_EX or LOCK_SH), waiting until deadline (an
 * ebid_now_ms() value; -1: forever): 0, -ETIMEDOUT, or another -errno.
 */
int ebid_flock_wait(int fd, int op, long long deadline);

/* The first section named .note.gnu.build-id (what perf takes), or 0. */
size_t ebid_note_section(const struct ebid_elf *elf);

/*
 * Whether name is one of the files elf-buildid itself makes beside the
 * files it writes: a temporary ".NAME.ebid-XXXXXX", an --in-place journal
 * ".NAME.ebid-journal", a link copy ".NAME.ebid-link". Walks leave them
 * out: they come and go while other runs work.
 */
bool ebid_is_own_file(const char *name);

/*
 * ebid_open_locked(), also saying whether the open itself failed (with
 * the open's errno), rather than its lock or a check after it.
 */
int ebid_open_locked_step(const struct ebid_at *at, int flags,
			  bool exclusive, long timeout_ms, struct stat *st,
			  bool *open_failed, char *err, size_t errlen);

/* Whether hex is a build-id in hex: 2 to 2 * EBID_MAX_ID hex digits. */
bool ebid_is_hex_id(const char *hex);

/* Fills err with a formatted message and returns code (negative). */
int ebid_err(char *err, size_t errlen, int code, const char *fmt, ...)
	__attribute__((format(printf, 4, 5)));

/* Read and write integers in the file's byte order (data = ELFDATA2*). */
uint64_t ebid_get(const unsigned char *p, size_t width, unsigned char data);
void ebid_put(unsigned char *p, size_t width, uint64_t v, unsigned char data);

/* Walk the notes in buf; calls fn for each; stops on a non-zero return. */
struct ebid_note_hdr {
	uint64_t off;           /* offset of the header inside buf */
	uint32_t namesz, descsz, type;
	const unsigned char *name, *desc;
	uint64_t name_off, desc_off, size;
};
typedef int (*ebid_note_fn)(const struct ebid_note_hdr *n, void *arg);
int ebid_notes_walk(const unsigned char *buf, size_t len, unsigned char data,
		    unsigned align, ebid_note_fn fn, void *arg);

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

/* Field widths and offsets by class: index 0 for ELF32, 1 for ELF64. */
struct ebid_ehdr_layout {
	size_t size, phoff, shoff, phentsize, phnum, shentsize, shnum, shstrndx;
	size_t addr;             /* width of addresses and offsets */
};
extern const struct ebid_ehdr_layout ebid_ehdr_layouts[2];

/* Encode a program or section header in the file's class and byte order. */
size_t ebid_phdr_encode(unsigned char *out, const struct ebid_phdr *ph,
			unsigned char elfclass, unsigned char data);
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
 * The planned output, produced on the fly (id.c): output bytes [pos, pos +
 * n) with the id range zeroed (0 or a negative errno); the message for
 * such an error; the id that the plan gives (nothing to do unless the plan
 * fills the id by hashing).
 */
int ebid_read_out(const struct ebid_src *src, const struct ebid_plan *plan,
		  uint64_t pos, unsigned char *buf, size_t n);
int ebid_read_err(char *err, size_t errlen, int ret);
int ebid_compute_id(const struct ebid_src *src, const struct ebid_plan *plan,
		    unsigned char id[EBID_MAX_ID], char *err, size_t errlen);

/*
 * A read-only window of a file, mapped and populated (src/fs/mapped.c). Access
 * to it goes through ebid_window_guard(): fn's result, or -EBID_EBUS when
 * the window could not be read (the file shrank, or an I/O error).
 */
struct ebid_window {
	const unsigned char *p;
	size_t len;
};
int ebid_window_map(int fd, uint64_t off, size_t len, struct ebid_window *w);
void ebid_window_unmap(struct ebid_window *w);
int ebid_window_guard(const struct ebid_window *w, int (*fn)(void *arg),
		      void *arg);

#endif
