/* SPDX-License-Identifier: MIT */
/* Relocations near the first page (internal): what a moved section must not leave behind. */
#ifndef EBID_RELOCS_H
#define EBID_RELOCS_H

#include <stdbool.h>
#include <stdint.h>

#include "internal.h"

/*
 * One relocation (or implicit address: a MIPS local GOT entry) that is
 * applied at, or points to, an address of the first page as the PT_LOAD
 * at offset 0 maps it. table names its table: a section name (owned by
 * the ebid_elf) or a fixed string ("DT_RELA", ...).
 */
struct ebid_relref {
	uint64_t at;            /* r_offset: where the loader writes */
	uint64_t to[3];         /* the addresses it points to */
	uint64_t index;         /* its entry number in table */
	uint32_t type;          /* its type (when typed) */
	unsigned char nto;      /* how many of to[] are set */
	bool typed;             /* a relocation entry (not RELR, not GOT) */
	bool applied;           /* at is an image address (not one of a
				 * non-allocated section, as debug
				 * relocations left by --emit-relocs are) */
	const char *table;
};
#define EBID_RELOCS_MAX 256

/*
 * Reads every relocation elf has (SHT_RELA, SHT_REL, SHT_RELR sections,
 * and the DT_RELA, DT_REL, DT_RELR and DT_JMPREL ranges, and the MIPS
 * local GOT) and keeps in elf->relocs those applied in, or pointing into,
 * the first page's addresses. Needs elf->dyn (read with note_syms). What
 * cannot be read whole (a table outside the file or its segments, more
 * than EBID_RELOCS_MAX kept, Android's packed tables) only sets
 * relocs_over: then nothing may move. A read that fails is an error.
 * Runs once per elf.
 */
int ebid_relocs_read(struct ebid_elf *elf, const struct ebid_src *src,
		     char *err, size_t errlen);

/*
 * Whether the addresses [lo, hi) of elf may move: 0, or -EBID_ENOROOM
 * with err saying why not (a relocation is applied inside them or points
 * into them, what naming them in the sentence, or the relocations are
 * not all known).
 */
int ebid_relocs_refuse(const struct ebid_elf *elf, uint64_t lo, uint64_t hi,
		       const char *what, char *err, size_t errlen);

#endif
