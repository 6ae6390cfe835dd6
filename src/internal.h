/* SPDX-License-Identifier: MIT */
/* Internal helpers shared by the library modules: byte order and errors. */
#ifndef EBID_INTERNAL_H
#define EBID_INTERNAL_H

#include <stdarg.h>
#include <stdbool.h>
#include <stdint.h>
#include <stddef.h>

#include "elf-buildid.h"

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
