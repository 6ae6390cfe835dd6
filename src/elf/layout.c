/* SPDX-License-Identifier: MIT */
/* Layout facts shared by the reader, the planner and the output check. */
#include <elf.h>
#include <stdio.h>
#include <string.h>

#include "elf/elf.h"
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

/* The end of a PT_LOAD in memory rounded up to the page; false on a wrap. */
static bool load_page_end(const struct ebid_phdr *ph, uint64_t page,
			  uint64_t *end)
{
	uint64_t e = ph->vaddr + ph->memsz;

	if (e < ph->vaddr || e + (page - 1) < e)
		return false;
	*end = (e + (page - 1)) & ~(page - 1);
	return true;
}

/* One PT_LOAD's own rules (see ebid_loads_hold()). */
static bool load_holds(const struct ebid_phdr *ph, size_t i, uint64_t page,
		       char *why, size_t whylen)
{
	uint64_t end;

	if (ph->filesz > ph->memsz) {
		snprintf(why, whylen, "PT_LOAD [%zu]: p_filesz is larger than p_memsz", i);
		return false;
	}
	if ((ph->vaddr - ph->offset) & (page - 1)) {
		snprintf(why, whylen, "PT_LOAD [%zu]: p_offset 0x%llx and p_vaddr 0x%llx differ modulo the page",
			 i, (unsigned long long)ph->offset,
			 (unsigned long long)ph->vaddr);
		return false;
	}
	if (!load_page_end(ph, page, &end)) {
		snprintf(why, whylen, "PT_LOAD [%zu] wraps around the address space", i);
		return false;
	}
	return true;
}

bool ebid_loads_hold(const struct ebid_phdr *phdrs, size_t phnum,
		     uint64_t page, char *why, size_t whylen)
{
	const struct ebid_phdr *prev = NULL;
	size_t i, pi = 0;
	uint64_t end;

	for (i = 0; i < phnum; i++) {
		const struct ebid_phdr *ph = &phdrs[i];

		if (ph->type != PT_LOAD || !ph->memsz)
			continue;
		if (!load_holds(ph, i, page, why, whylen))
			return false;
		if (prev && ph->vaddr < prev->vaddr) {
			snprintf(why, whylen, "PT_LOAD [%zu] starts below PT_LOAD [%zu] (the loaders want them in address order)",
				 i, pi);
			return false;
		}
		if (prev && load_page_end(prev, page, &end) &&
		    end > (ph->vaddr & ~(page - 1))) {
			snprintf(why, whylen, "PT_LOAD [%zu] ends (0x%llx) inside the page where PT_LOAD [%zu] starts (0x%llx): the loader would map that page twice, and glibc refuses such a library",
				 pi,
				 (unsigned long long)(prev->vaddr + prev->memsz),
				 i, (unsigned long long)ph->vaddr);
			return false;
		}
		prev = ph;
		pi = i;
	}
	return true;
}

bool ebid_loads_no_worse(const struct ebid_phdr *old, size_t old_n,
			 const struct ebid_phdr *new, size_t new_n, char *why,
			 size_t whylen)
{
	uint64_t page, top = EBID_PAGE;
	char scratch[EBID_ERRLEN];
	size_t i;

	for (i = 0; i < old_n; i++)
		if (old[i].type == PT_LOAD && old[i].align > top)
			top = old[i].align;
	if (top > EBID_LOAD_PAGE_MAX)
		top = EBID_LOAD_PAGE_MAX;
	for (page = EBID_PAGE; page <= top; page <<= 1) {
		if (!ebid_loads_hold(old, old_n, page, scratch, sizeof(scratch)))
			continue;
		if (!ebid_loads_hold(new, new_n, page, scratch, sizeof(scratch))) {
			snprintf(why, whylen, "%s (page size %llu KiB)", scratch,
				 (unsigned long long)(page >> 10));
			return false;
		}
	}
	return true;
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

/*
 * The addresses from the end of the program header table to the end of
 * the movable sections that follow it in file order (up to the first
 * other one), as the PT_LOAD at offset 0 maps them, padding included: a
 * fact of the layout. The reader collects the symbols that point there;
 * which of these sections move, and where, is the planner's. Empty without such a PT_LOAD, or with more
 * than EBID_HEAD_CAND_MAX sections in the first page (move-head refuses those).
 */
void ebid_head_window(const struct ebid_elf *elf, uint64_t *lo, uint64_t *hi)
{
	uint64_t phend = elf->phoff +
			 (uint64_t)elf->phnum * ebid_phent(elf->elfclass);
	uint64_t end = phend;
	long li = ebid_first_load(elf->phdrs, elf->phnum);
	const struct ebid_phdr *load;
	size_t cand[EBID_HEAD_CAND_MAX], n, k;

	*lo = *hi = 0;
	if (li < 0 || ebid_head_run(elf, phend, true, cand, &n) != EBID_RUN_OK)
		return;
	load = &elf->phdrs[li];
	for (k = 0; k < n &&
		    ebid_movable(&elf->shdrs[cand[k]], NULL) != EBID_MOVE_NONE;
	     k++)
		if (elf->shdrs[cand[k]].offset + elf->shdrs[cand[k]].size > end)
			end = elf->shdrs[cand[k]].offset +
			      elf->shdrs[cand[k]].size;
	if (end > load->filesz)
		end = load->filesz;
	if (end <= phend)
		return;
	*lo = load->vaddr + phend;
	*hi = load->vaddr + end;
}

void ebid_shdr_rank_next(const struct ebid_shdr *s, struct ebid_shdr_rank *r)
{
	if (s->type == SHT_NOBITS)
		return;
	r->unalloc = !(s->flags & SHF_ALLOC);
	r->off = s->offset;
}

int ebid_shdr_rank_cmp(const struct ebid_shdr_rank *a,
		       const struct ebid_shdr_rank *b)
{
	if (a->unalloc != b->unalloc)
		return a->unalloc ? 1 : -1;
	return a->off < b->off ? -1 : a->off > b->off;
}

bool ebid_shdrs_in_order(const struct ebid_shdr *s, size_t n)
{
	struct ebid_shdr_rank prev = { 0 }, cur = { 0 };
	size_t i;

	for (i = 1; i < n; i++) {
		ebid_shdr_rank_next(&s[i], &cur);
		if (i > 1 && ebid_shdr_rank_cmp(&prev, &cur) > 0)
			return false;
		prev = cur;
	}
	return true;
}

const struct ebid_ehdr_layout ebid_ehdr_layouts[2] = {
	{ .size = 52, .phoff = 28, .shoff = 32, .phentsize = 42, .phnum = 44,
	  .shentsize = 46, .shnum = 48, .shstrndx = 50, .addr = 4 },
	{ .size = 64, .phoff = 32, .shoff = 40, .phentsize = 54, .phnum = 56,
	  .shentsize = 58, .shnum = 60, .shstrndx = 62, .addr = 8 },
};

/*
 * The two classes order the fields differently: ELF64 keeps p_flags
 * second, beside p_type, to align the 8-byte fields after them.
 */
size_t ebid_phdr_encode(unsigned char *out, const struct ebid_phdr *ph,
			unsigned char elfclass, unsigned char d)
{
	size_t w = ebid_word(elfclass);
	size_t o = 0;

	ebid_put(out + o, 4, ph->type, d), o += 4;
	if (w == 8) {
		ebid_put(out + o, 4, ph->flags, d);
		o += 4;
	}
	ebid_put(out + o, w, ph->offset, d), o += w;
	ebid_put(out + o, w, ph->vaddr, d), o += w;
	ebid_put(out + o, w, ph->paddr, d), o += w;
	ebid_put(out + o, w, ph->filesz, d), o += w;
	ebid_put(out + o, w, ph->memsz, d), o += w;
	if (w == 4) {
		ebid_put(out + o, 4, ph->flags, d);
		o += 4;
	}
	ebid_put(out + o, w, ph->align, d), o += w;
	return o;
}

size_t ebid_shdr_encode(unsigned char *out, const struct ebid_shdr *sh,
			unsigned char elfclass, unsigned char d)
{
	size_t w = ebid_word(elfclass);
	size_t o = 0;

	ebid_put(out + o, 4, sh->name, d), o += 4;
	ebid_put(out + o, 4, sh->type, d), o += 4;
	ebid_put(out + o, w, sh->flags, d), o += w;
	ebid_put(out + o, w, sh->addr, d), o += w;
	ebid_put(out + o, w, sh->offset, d), o += w;
	ebid_put(out + o, w, sh->size, d), o += w;
	ebid_put(out + o, 4, sh->link, d), o += 4;
	ebid_put(out + o, 4, sh->info, d), o += 4;
	ebid_put(out + o, w, sh->addralign, d), o += w;
	ebid_put(out + o, w, sh->entsize, d), o += w;
	return o;
}
