/* SPDX-License-Identifier: MIT */
/*
 * Layout facts that the reader, the planner and the output check share:
 * entry sizes by class, the first PT_LOAD, the sections a plan may move
 * and the run of them after the program headers. One copy of each, so
 * that what the reader collects and what the planner moves cannot drift.
 */
#ifndef EBID_LAYOUT_H
#define EBID_LAYOUT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "internal.h"

/* Sizes by class (elfclass: ELFCLASS32 or ELFCLASS64, as read). */
size_t ebid_ehsize(unsigned char elfclass);
size_t ebid_phent(unsigned char elfclass);
size_t ebid_shent(unsigned char elfclass);
size_t ebid_syment(unsigned char elfclass);
size_t ebid_dynent(unsigned char elfclass);
/* Width of an address, offset or symbol value. */
size_t ebid_word(unsigned char elfclass);

/*
 * PT_GNU_RELRO and PT_TLS: the dynamic loader applies them by address
 * (mprotect over their pages, the TLS image copied from p_vaddr) and never
 * reads their p_offset, which mold leaves at 0. A move judges them by the
 * addresses they cover and never moves them.
 */
bool ebid_phdr_by_address(const struct ebid_phdr *ph);

/* The first PT_LOAD at file offset 0 in phdrs, or -1. */
long ebid_first_load(const struct ebid_phdr *phdrs, size_t phnum);

/*
 * The loaders' rules for the PT_LOADs of a program header table, at page
 * size page (a power of two): glibc's _dl_map_object_from_fd() and
 * _dl_map_segments() (elf/dl-load.c, elf/dl-map-segments.h) and the
 * kernel's load_elf_binary() and elf_map() (fs/binfmt_elf.c) map each
 * PT_LOAD by whole pages, in table order, and rely on:
 *   - p_filesz <= p_memsz;
 *   - p_offset and p_vaddr congruent modulo the page;
 *   - PT_LOADs in ascending p_vaddr order;
 *   - no two PT_LOADs in one page of memory: a segment ends (p_vaddr +
 *     p_memsz, rounded up to the page) at or below the page where the
 *     next one starts. glibc maps a library's first segment over the
 *     whole span and refuses it ("ELF load command address/offset not
 *     page-aligned") when its last page reaches the page of the last
 *     PT_LOAD; where they share a page, a later mapping replaces the
 *     earlier one's bytes and protection.
 * Linkers write layouts that hold these at every page size up to their
 * segment alignment. true when they hold; otherwise false with the first
 * rule broken in why (a sentence naming the program headers).
 */
bool ebid_loads_hold(const struct ebid_phdr *phdrs, size_t phnum,
		     uint64_t page, char *why, size_t whylen);

/*
 * A rewrite's program headers (new) keep every loader rule the input's
 * (old) held, at each page size from EBID_PAGE up to the largest PT_LOAD
 * alignment of the input (at most EBID_LOAD_PAGE_MAX): a rule the input
 * already broke is not asked of the output. true, or false with the
 * broken rule and the page size in why.
 */
#define EBID_LOAD_PAGE_MAX (64u << 10) /* the largest page Linux runs with */
bool ebid_loads_no_worse(const struct ebid_phdr *old, size_t old_n,
			 const struct ebid_phdr *new, size_t new_n, char *why,
			 size_t whylen);

/* What a plan may do with a section (ebid_movable()). */
enum ebid_movable {
	EBID_MOVE_NONE = 0,
	EBID_MOVE_RUN,          /* .interp or an allocated note */
	EBID_MOVE_TABLE,        /* a dynamic table its DT_ entry names */
};

/*
 * Whether section s may move with the run after the program headers, and
 * for a dynamic table the DT_ tag that holds its address (the dynamic
 * loader reads it only through that entry) in *dt_tag (0 otherwise;
 * dt_tag may be NULL). The reader collects the symbols of these sections;
 * the planner moves them.
 */
enum ebid_movable ebid_movable(const struct ebid_shdr *s, uint64_t *dt_tag);

/* Outcome of ebid_head_run(). */
enum ebid_run_status {
	EBID_RUN_OK = 0,
	EBID_RUN_OVERLAP,       /* a section starts before phend, ends after */
	EBID_RUN_FULL,          /* more than EBID_HEAD_CAND_MAX sections */
};

/*
 * The sections with bytes in the first page (elf->head) from phend on, in
 * file order: their indexes in cand[EBID_HEAD_CAND_MAX], their count in
 * *n. A section that starts before phend and ends after it stops the scan
 * with EBID_RUN_OVERLAP unless skip_overlap (then it is left out).
 */
enum ebid_run_status ebid_head_run(const struct ebid_elf *elf, uint64_t phend,
				   bool skip_overlap, size_t *cand, size_t *n);

/*
 * The addresses [*lo, *hi) of the movable sections that follow the program
 * header table (ebid_head_run(), up to the first other section), as the
 * PT_LOAD at offset 0 maps them, padding included; 0, 0 when there are
 * none or more than EBID_HEAD_CAND_MAX.
 */
void ebid_head_window(const struct ebid_elf *elf, uint64_t *lo, uint64_t *hi);

/*
 * A section's place in the order linkers write section headers: the
 * allocated sections first, then the others, each group in file order. A
 * SHT_NOBITS section's offset means nothing (mold writes 0): it keeps the
 * place of the section before it. ebid_shdr_rank_next() turns r, the rank
 * of the section before s ({0} before [1]), into s's;
 * ebid_shdr_rank_cmp() orders two ranks (0: a tie, which keeps the
 * table's order). plan/order.c sorts by them.
 */
struct ebid_shdr_rank {
	bool unalloc;
	uint64_t off;
};
void ebid_shdr_rank_next(const struct ebid_shdr *s, struct ebid_shdr_rank *r);
int ebid_shdr_rank_cmp(const struct ebid_shdr_rank *a,
		       const struct ebid_shdr_rank *b);
/*
 * Is the section header table s[0..n) in that order? The planner
 * renumbers only such a table (plan/order.c), so the reader reads the
 * tables of indices only for one.
 */
bool ebid_shdrs_in_order(const struct ebid_shdr *s, size_t n);

#endif
