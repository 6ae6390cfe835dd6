/* SPDX-License-Identifier: MIT */
/*
 * What points into the sections a plan may move, for the planner to move
 * with them and for the self-check to prove moved: the dynamic table
 * (elf->dyn) and the symbols of those sections (elf->note_syms), over the
 * addresses of the run of movable sections after the program headers
 * (ebid_head_window(), elf/layout.c).
 */
#include <elf.h>
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "internal.h"
#include "elf/layout.h"
#include "elf/relocs.h"
#include "elf/elf.h"

/*
 * A section a plan may move: an allocated note, .interp or dynamic table
 * (anywhere: the output's moved ones may lie past the first page).
 */
static bool page_movable(const struct ebid_shdr *s)
{
	return ebid_movable(s, NULL) != EBID_MOVE_NONE;
}

/* The movable section that value lies in, or 0. */
static size_t page_note_at(const struct ebid_elf *elf, uint64_t value)
{
	size_t i;

	for (i = 1; i < elf->shnum; i++) {
		const struct ebid_shdr *s = &elf->shdrs[i];

		if (page_movable(s) && value >= s->addr &&
		    value - s->addr < s->size)
			return i;
	}
	return 0;
}

static bool page_note(const struct ebid_elf *elf, size_t shndx)
{
	if (!shndx || shndx >= elf->shnum)
		return false;
	return page_movable(&elf->shdrs[shndx]);
}

bool ebid_dyn_value(const struct ebid_elf *elf, uint64_t tag, uint64_t *val)
{
	size_t i;

	for (i = 0; i < elf->ndyn; i++)
		if (elf->dyn[i].tag == tag) {
			*val = elf->dyn[i].val;
			return true;
		}
	return false;
}

/* Reads the dynamic table into elf->dyn (see struct ebid_elf). */
static int read_dynamic(struct ebid_elf *elf, const struct ebid_src *src,
			char *err, size_t errlen)
{
	size_t ent = ebid_dynent(elf->elfclass), w = ent / 2, i, n, seen = 0;
	const struct ebid_phdr *ph = NULL;
	bool mapped = false;
	unsigned char *buf;
	int ret;

	for (i = 0; i < elf->phnum; i++)
		if (elf->phdrs[i].type == PT_DYNAMIC) {
			ph = &elf->phdrs[i];
			seen++;
		}
	if (!ph)
		return 0;
	/*
	 * glibc's loader reads the table at p_vaddr, from the last
	 * PT_DYNAMIC: the bytes read here must be those. One PT_DYNAMIC,
	 * whose p_offset a PT_LOAD maps to its p_vaddr, and the same place
	 * as a SHT_DYNAMIC section's.
	 */
	for (i = 0; i < elf->phnum; i++) {
		const struct ebid_phdr *l = &elf->phdrs[i];

		if (l->type == PT_LOAD && ph->offset >= l->offset &&
		    ph->filesz <= l->filesz &&
		    ph->offset - l->offset <= l->filesz - ph->filesz &&
		    ph->vaddr - l->vaddr == ph->offset - l->offset)
			mapped = true;
	}
	for (i = 1; i < elf->shnum; i++) {
		const struct ebid_shdr *s = &elf->shdrs[i];

		if (s->type == SHT_DYNAMIC &&
		    (s->offset != ph->offset || s->addr != ph->vaddr))
			mapped = false;
	}
	if (seen != 1 || !mapped || ph->offset > elf->file_size ||
	    ph->filesz > elf->file_size - ph->offset ||
	    ph->filesz / ent > EBID_DYN_MAX) {
		elf->dyn_bad = true;
		return 0;
	}
	n = (size_t)(ph->filesz / ent);
	buf = malloc(n * ent + 1);
	elf->dyn = calloc(n + 1, sizeof(*elf->dyn));
	if (!buf || !elf->dyn) {
		free(buf);
		return ebid_err(err, errlen, -ENOMEM, "out of memory");
	}
	ret = ebid_src_read(src, ph->offset, buf, n * ent);
	if (ret) {
		free(buf);
		return ebid_err(err, errlen, ret,
				"cannot read the dynamic table: %s",
				strerror(-ret));
	}
	for (i = 0; i < n; i++) {
		struct ebid_dynref *d = &elf->dyn[elf->ndyn];

		d->tag = ebid_get(buf + i * ent, w, elf->data);
		d->val = ebid_get(buf + i * ent + w, w, elf->data);
		d->val_off = ph->offset + i * ent + w;
		if (d->tag == DT_NULL)
			break;
		elf->ndyn++;
	}
	/* No DT_NULL: the table runs on past its segment. */
	if (i == n)
		elf->dyn_bad = true;
	free(buf);
	return 0;
}

/* The movable-section span and the symbol entry size for collect_sym(). */
struct sym_scan {
	uint64_t span_lo, span_hi;
	size_t ent;
};

/*
 * Records the symbol entry e (at file offset at, in a table of type
 * type) when it belongs to or points into a movable section: 0, or
 * -ENOMEM.
 */
static int collect_sym(struct ebid_elf *elf, const struct sym_scan *sc,
		       const unsigned char *e, uint64_t at, uint32_t type,
		       char *err, size_t errlen)
{
	bool wide = elf->elfclass == ELFCLASS64;
	unsigned char info = wide ? e[4] : e[12];
	size_t shndx = (size_t)ebid_get(e + (wide ? 6 : 14), 2, elf->data);
	uint64_t voff = wide ? 8 : 4;
	uint64_t value = ebid_get(e + voff, ebid_word(elf->elfclass), elf->data);
	struct ebid_symref *r;

	if (shndx == SHN_UNDEF)
		return 0;
	/*
	 * An index past the last section would name the section a plan
	 * appends: no note may move then.
	 */
	if (shndx == SHN_XINDEX ||
	    (shndx >= elf->shnum && shndx < SHN_LORESERVE)) {
		elf->note_syms_over = true;
		return 0;
	}
	/* Padding among them counts too. */
	if (!page_note(elf, shndx) && !page_note_at(elf, value) &&
	    (value < sc->span_lo || value >= sc->span_hi))
		return 0;
	if (elf->n_note_syms == EBID_NOTE_SYMS_MAX) {
		elf->note_syms_over = true;
		return 0;
	}
	if (!elf->note_syms) {
		elf->note_syms = calloc(EBID_NOTE_SYMS_MAX, sizeof(*r));
		if (!elf->note_syms)
			return ebid_err(err, errlen, -ENOMEM, "out of memory");
	}
	r = &elf->note_syms[elf->n_note_syms++];
	r->value_off = at + voff;
	r->value = value;
	r->shndx = shndx;
	r->info = info;
	r->dynamic = type == SHT_DYNSYM;
	return 0;
}

/* Collects the symbols of symbol table section i (collect_sym()). */
static int scan_sym_table(struct ebid_elf *elf, const struct ebid_src *src,
			  const struct sym_scan *sc, size_t i, char *err,
			  size_t errlen)
{
	const struct ebid_shdr *s = &elf->shdrs[i];
	size_t ent = sc->ent, chunk;
	unsigned char buf[16384];
	uint64_t pos, end;
	int ret;

	if (s->offset > elf->file_size ||
	    s->size > elf->file_size - s->offset) {
		elf->note_syms_over = true;
		return 0;
	}
	chunk = sizeof(buf) / ent * ent;
	end = s->offset + s->size / ent * ent;
	for (pos = s->offset; pos < end;) {
		size_t n = end - pos < chunk ? (size_t)(end - pos) : chunk;
		size_t k;

		ret = ebid_src_read(src, pos, buf, n);
		if (ret)
			return ebid_err(err, errlen, ret,
					"cannot read section [%zu] (symbols): %s",
					i, strerror(-ret));
		for (k = 0; k < n; k += ent) {
			ret = collect_sym(elf, sc, buf + k, pos + k, s->type,
					  err, errlen);
			if (ret)
				return ret;
		}
		pos += n;
	}
	return 0;
}

/*
 * Records every symbol of a note section (or .interp) in the first page,
 * or pointing into one (an absolute symbol, say): what a moved note takes
 * along.
 * A table outside the file, an extended index or more than
 * EBID_NOTE_SYMS_MAX such symbols only set note_syms_over (no note moves);
 * a read that fails is an error.
 */
int ebid_elf_read_note_syms(struct ebid_elf *elf, const struct ebid_src *src,
			    char *err, size_t errlen)
{
	struct sym_scan sc = { .ent = ebid_syment(elf->elfclass) };
	size_t i, any = 0;
	int ret;

	if (elf->note_syms_read)
		return 0;
	elf->note_syms_read = true;
	ret = read_dynamic(elf, src, err, errlen);
	if (ret)
		return ret;
	for (i = 1; i < elf->shnum; i++)
		if (page_note(elf, i))
			any++;
	if (!any)
		return 0;
	ebid_head_window(elf, &sc.span_lo, &sc.span_hi);
	/* A caller may have set a wider window (the self-check of new-load). */
	if (sc.span_hi > elf->span_hi)
		elf->span_hi = sc.span_hi;
	/* relocs.c: the relocations near the first page, read here too. */
	ret = ebid_relocs_read(elf, src, err, errlen);
	if (ret)
		return ret;
	for (i = 1; i < elf->shnum; i++) {
		if (elf->shdrs[i].type != SHT_SYMTAB &&
		    elf->shdrs[i].type != SHT_DYNSYM)
			continue;
		ret = scan_sym_table(elf, src, &sc, i, err, errlen);
		if (ret)
			return ret;
	}
	return 0;
}
