/* SPDX-License-Identifier: MIT */
/* Layout facts shared by the reader, the planner and the output check. */
#include <elf.h>
#include <string.h>

#include "elf/layout.h"

size_t ebid_ehsize(unsigned char elfclass)
{
	return elfclass == ELFCLASS64 ? sizeof(Elf64_Ehdr) : sizeof(Elf32_Ehdr);
}

size_t ebid_phent(unsigned char elfclass)
{
	return elfclass == ELFCLASS64 ? sizeof(Elf64_Phdr) : sizeof(Elf32_Phdr);
}

size_t ebid_shent(unsigned char elfclass)
{
	return elfclass == ELFCLASS64 ? sizeof(Elf64_Shdr) : sizeof(Elf32_Shdr);
}

size_t ebid_syment(unsigned char elfclass)
{
	return elfclass == ELFCLASS64 ? sizeof(Elf64_Sym) : sizeof(Elf32_Sym);
}

size_t ebid_dynent(unsigned char elfclass)
{
	return elfclass == ELFCLASS64 ? sizeof(Elf64_Dyn) : sizeof(Elf32_Dyn);
}

size_t ebid_word(unsigned char elfclass)
{
	return elfclass == ELFCLASS64 ? 8 : 4;
}

bool ebid_phdr_by_address(const struct ebid_phdr *ph)
{
	return ph->type == PT_GNU_RELRO || ph->type == PT_TLS;
}

long ebid_first_load(const struct ebid_phdr *phdrs, size_t phnum)
{
	size_t i;

	for (i = 0; i < phnum; i++)
		if (phdrs[i].type == PT_LOAD && !phdrs[i].offset)
			return (long)i;
	return -1;
}

/* The DT_ tag naming a dynamic table section of type type, or 0. */
static uint64_t table_tag(const struct ebid_shdr *s)
{
	switch (s->type) {
	case SHT_GNU_HASH: return DT_GNU_HASH;
	case SHT_HASH: return DT_HASH;
	case SHT_DYNSYM: return DT_SYMTAB;
	case SHT_GNU_versym: return DT_VERSYM;
	case SHT_GNU_verneed: return DT_VERNEED;
	case SHT_GNU_verdef: return DT_VERDEF;
	case SHT_STRTAB:
		return s->name_str && !strcmp(s->name_str, ".dynstr")
			       ? DT_STRTAB
			       : 0;
	default: return 0;
	}
}

enum ebid_movable ebid_movable(const struct ebid_shdr *s, uint64_t *dt_tag)
{
	uint64_t tag = 0;
	enum ebid_movable kind = EBID_MOVE_NONE;

	if (s->flags & SHF_ALLOC) {
		tag = table_tag(s);
		if (tag)
			kind = EBID_MOVE_TABLE;
		else if (s->type == SHT_NOTE ||
			 (s->type == SHT_PROGBITS && s->name_str &&
			  !strcmp(s->name_str, ".interp")))
			kind = EBID_MOVE_RUN;
	}
	if (dt_tag)
		*dt_tag = tag;
	return kind;
}

enum ebid_run_status ebid_head_run(const struct ebid_elf *elf, uint64_t phend,
				   bool skip_overlap, size_t *cand, size_t *n)
{
	size_t i, k;

	*n = 0;
	for (i = 1; i < elf->shnum; i++) {
		const struct ebid_shdr *s = &elf->shdrs[i];

		if (s->type == SHT_NOBITS || !s->size ||
		    s->offset >= elf->head_len)
			continue;
		if (skip_overlap ? s->offset < phend
				 : s->offset + s->size <= phend)
			continue;
		if (s->offset < phend)
			return EBID_RUN_OVERLAP;
		if (*n == EBID_HEAD_CAND_MAX)
			return EBID_RUN_FULL;
		for (k = (*n)++; k && elf->shdrs[cand[k - 1]].offset > s->offset;
		     k--)
			cand[k] = cand[k - 1];
		cand[k] = i;
	}
	return EBID_RUN_OK;
}
