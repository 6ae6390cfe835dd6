/* SPDX-License-Identifier: MIT */
/*
 * The tables whose entries hold section indices: the st_shndx of every
 * symbol in .symtab and .dynsym, and the entries of SHT_SYMTAB_SHNDX. A
 * plan that puts the section headers in file order (plan/order.c) gives
 * them new numbers; these are the bytes it rewrites, and the rule it
 * rewrites them by, which the self-check applies too.
 */
#include <elf.h>
#include <errno.h>
#include <stddef.h>
#include <stdlib.h>
#include <string.h>

#include "internal.h"
#include "elf/layout.h"
#include "elf/elf.h"

bool ebid_itab_type(uint32_t type)
{
	return type == SHT_SYMTAB || type == SHT_DYNSYM ||
	       type == SHT_SYMTAB_SHNDX;
}

void ebid_elf_release_itabs(struct ebid_elf *elf)
{
	size_t i;

	for (i = 0; i < elf->nitabs; i++)
		free(elf->itabs[i].bytes);
	free(elf->itabs);
	elf->itabs = NULL;
	elf->nitabs = 0;
}

static int read_itab(struct ebid_elf *elf, const struct ebid_src *src,
		     size_t i, char *err, size_t errlen)
{
	const struct ebid_shdr *s = &elf->shdrs[i];
	struct ebid_itab *t = &elf->itabs[elf->nitabs];
	int ret;

	t->bytes = malloc((size_t)s->size);
	if (!t->bytes)
		return ebid_err(err, errlen, -ENOMEM, "out of memory");
	ret = ebid_src_read(src, s->offset, t->bytes, (size_t)s->size);
	if (ret) {
		free(t->bytes);
		return ebid_err(err, errlen, ret,
				"cannot read section [%zu] (symbols): %s", i,
				strerror(-ret));
	}
	t->shndx = i;
	t->len = (size_t)s->size;
	elf->nitabs++;
	return 0;
}

/*
 * Reads every table of section indices whole. One outside the file, or
 * more than EBID_ITABS_MAX bytes of them, only sets itabs_over.
 */
int ebid_elf_read_itabs(struct ebid_elf *elf, const struct ebid_src *src,
			char *err, size_t errlen)
{
	uint64_t total = 0;
	size_t i, n = 0;
	int ret;

	for (i = 1; i < elf->shnum; i++) {
		const struct ebid_shdr *s = &elf->shdrs[i];

		if (!ebid_itab_type(s->type) || !s->size)
			continue;
		if (s->offset > elf->file_size ||
		    s->size > elf->file_size - s->offset ||
		    s->size > EBID_ITABS_MAX - total) {
			elf->itabs_over = true;
			return 0;
		}
		total += s->size;
		n++;
	}
	if (!n)
		return 0;
	elf->itabs = calloc(n, sizeof(*elf->itabs));
	if (!elf->itabs)
		return ebid_err(err, errlen, -ENOMEM, "out of memory");
	for (i = 1; i < elf->shnum; i++) {
		if (!ebid_itab_type(elf->shdrs[i].type) ||
		    !elf->shdrs[i].size)
			continue;
		ret = read_itab(elf, src, i, err, errlen);
		if (ret)
			return ret;
	}
	return 0;
}

const struct ebid_itab *ebid_elf_itab(const struct ebid_elf *elf,
				      size_t shndx)
{
	size_t i;

	for (i = 0; i < elf->nitabs; i++)
		if (elf->itabs[i].shndx == shndx)
			return &elf->itabs[i];
	return NULL;
}

/*
 * The section index field of a table's entries: its offset in an entry,
 * its width, and the entry's size.
 */
static void index_field(uint32_t type, unsigned char elfclass, size_t *at,
			size_t *width, size_t *ent)
{
	if (type == SHT_SYMTAB_SHNDX) {
		*at = 0;
		*width = 4;
		*ent = 4;
		return;
	}
	*ent = ebid_syment(elfclass);
	*width = 2;
	/* Elf32_Sym: name, value, size, info, other, shndx; Elf64_Sym:
	 * name, info, other, shndx, value, size. */
	*at = elfclass == ELFCLASS64 ? offsetof(Elf64_Sym, st_shndx)
				     : offsetof(Elf32_Sym, st_shndx);
}

void ebid_itab_renumber(const struct ebid_elf *elf,
			const struct ebid_itab *t, const size_t *map, size_t n,
			uint64_t from, unsigned char *out, size_t len)
{
	uint32_t type = elf->shdrs[t->shndx].type;
	size_t at, width, ent, k;
	uint64_t e;

	index_field(type, elf->elfclass, &at, &width, &ent);
	for (e = from / ent * ent; e < from + len && e + ent <= t->len;
	     e += ent) {
		unsigned char field[4];
		uint64_t v = ebid_get(t->bytes + e + at, width, elf->data);

		if (!v || v >= n || (width == 2 && v >= SHN_LORESERVE))
			continue;
		ebid_put(field, width, map[v], elf->data);
		for (k = 0; k < width; k++) {
			uint64_t b = e + at + k;

			if (b >= from && b < from + len)
				out[b - from] = field[k];
		}
	}
}

static uint32_t renumbered(const size_t *map, size_t n, uint64_t v)
{
	return v && v < n ? (uint32_t)map[v] : (uint32_t)v;
}

void ebid_shdr_renumber(struct ebid_shdr *s, const size_t *map, size_t n)
{
	s->link = renumbered(map, n, s->link);
	if (s->type == SHT_REL || s->type == SHT_RELA ||
	    (s->flags & SHF_INFO_LINK))
		s->info = renumbered(map, n, s->info);
}
