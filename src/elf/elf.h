/* SPDX-License-Identifier: MIT */
/* What src/elf/ exports to the layers above it, beside layout.h and relocs.h:
 * the bytes the reader kept, the note walker, header encoding. */
#ifndef EBID_ELF_ELF_H
#define EBID_ELF_ELF_H

#include "internal.h"

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
 * The value of the first entry tagged tag of the dynamic table as read
 * (elf->dyn, syms.c): true and *val, or false when there is none.
 */
bool ebid_dyn_value(const struct ebid_elf *elf, uint64_t tag, uint64_t *val);

/*
 * Fills note_syms. ebid_elf_read() does it for a file without a GNU note
 * (the only ones whose plan may move a note); the self-check of such a
 * plan's output asks for it. Runs once per elf.
 */
int ebid_elf_read_note_syms(struct ebid_elf *elf, const struct ebid_src *src,
			    char *err, size_t errlen);

/*
 * Tables of section indices (itabs.c): .symtab, .dynsym and
 * SHT_SYMTAB_SHNDX, read whole by ebid_elf_read() for a file without a
 * GNU note whose section headers are in the linkers' order (the planner
 * renumbers no other: ebid_shdrs_in_order()), in elf->itabs, found by
 * section number.
 */
bool ebid_itab_type(uint32_t type);
int ebid_elf_read_itabs(struct ebid_elf *elf, const struct ebid_src *src,
			char *err, size_t errlen);
void ebid_elf_release_itabs(struct ebid_elf *elf);
const struct ebid_itab *ebid_elf_itab(const struct ebid_elf *elf,
				      size_t shndx);
/*
 * The section indices of table t (of elf's section t->shndx), renumbered:
 * an index i with 0 < i < n becomes map[i]; SHN_UNDEF and the reserved
 * indices (SHN_ABS, SHN_COMMON, SHN_XINDEX) stay. Writes only the bytes
 * of those fields that fall in the window out, the table's bytes
 * [from, from + len); the values are read from t.
 */
void ebid_itab_renumber(const struct ebid_elf *elf,
			const struct ebid_itab *t, const size_t *map, size_t n,
			uint64_t from, unsigned char *out, size_t len);
/*
 * The section indices a header holds, renumbered by the same map: sh_link,
 * and sh_info where it names a section (SHT_REL, SHT_RELA, SHF_INFO_LINK;
 * a symbol table's sh_info counts symbols).
 */
void ebid_shdr_renumber(struct ebid_shdr *s, const size_t *map, size_t n);

/*
 * The PT_NOTE whose range holds the GNU note, whether or not the
 * kernel's walk of it reaches the note, or -1.
 */
int ebid_note_container(const struct ebid_elf *elf);

/* The first section named .note.gnu.build-id (what perf takes), or 0. */
size_t ebid_note_section(const struct ebid_elf *elf);

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

/* Field widths and offsets by class: index 0 for ELF32, 1 for ELF64. */
struct ebid_ehdr_layout {
	size_t size, phoff, shoff, phentsize, phnum, shentsize, shnum, shstrndx;
	size_t addr;             /* width of addresses and offsets */
};
extern const struct ebid_ehdr_layout ebid_ehdr_layouts[2];

/* Encode a program or section header in the file's class and byte order. */
size_t ebid_phdr_encode(unsigned char *out, const struct ebid_phdr *ph,
			unsigned char elfclass, unsigned char data);

#endif
