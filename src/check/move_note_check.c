/* SPDX-License-Identifier: MIT */
/*
 * The self-check's table of move-note (move_note.c): what an output of the
 * strategy must be.
 */
#include <string.h>

#include "internal.h"
#include "elf/elf.h"
#include "plan/plan.h"
#include "check/selfcheck.h"

/*
 * move-note: the moved note is the same bytes at its new place,
 * its old place is zero, its section and PT_NOTE point at the new place,
 * the PT_NOTE covers it and the new note and nothing else, the first
 * PT_LOAD grew (p_filesz and p_memsz only) over zero padding that stays in
 * the first page and before every other segment, in the file and in
 * memory; or, where the two notes lie inside it (its unused tail), it did
 * not change and no section or other header of the input held those
 * bytes. The first step: the plan's indices name headers of the input
 * and the output; fills c's move fields.
 */
static int note_move_headers(struct check *c, char *err, size_t errlen)
{
	const struct ebid_elf *old = c->old, *new = c->new;
	const struct ebid_plan *plan = c->plan;
	size_t m = plan->moved_shndx;

	c->pi = plan->moved_pt;
	c->li = c->nli = plan->grown_load;
	if (check_one_run(c, err, errlen))
		return -EBID_EVERIFY;
	if (!m || m >= old->shnum || ebid_plan_shndx(plan, m) >= new->shnum ||
	    c->pi >= old->phnum ||
	    c->li >= old->phnum || c->pi == c->li || new->phnum != old->phnum ||
	    c->addr_delta != (int64_t)(c->to - c->from))
		return FAIL("the moved note's headers are not the planned ones");
	c->os = &old->shdrs[m];
	c->ns = &new->shdrs[ebid_plan_shndx(plan, m)];
	c->ol = &old->phdrs[c->li];
	c->nl = &new->phdrs[c->li];
	c->op = &old->phdrs[c->pi];
	c->np = &new->phdrs[c->pi];
	c->end = c->to + c->size + new->gnu.note_size;
	return 0;
}

/* The moved note's section header: at the new place, nothing else changed. */
static int note_moved_shdr(const struct check *c, char *err, size_t errlen)
{
	struct ebid_shdr e = *c->os;

	e.addr += c->to - c->from;
	check_renumber_shdr(c->plan, &e);
	if (c->os->type != SHT_NOTE || c->os->offset != c->from ||
	    c->os->size != c->size || c->ns->offset != c->to ||
	    c->ns->size != c->size || !check_same_shdr(&e, c->ns, true))
		return FAIL("the moved note's section header is not the planned one");
	return 0;
}

/* Its bytes, all in the first page, are the same at the new place. */
static int note_moved_bytes(const struct check *c, char *err, size_t errlen)
{
	const struct ebid_elf *old = c->old, *new = c->new;

	if (c->from + c->size > old->head_len || c->end > new->head_len ||
	    c->end > old->head_len || c->end > EBID_PAGE ||
	    memcmp(old->head + c->from, new->head + c->to, (size_t)c->size))
		return FAIL("the moved note's bytes are not the same at its new place");
	return 0;
}

static int note_old_place_cleared(const struct check *c, char *err,
				  size_t errlen)
{
	uint64_t j;

	for (j = c->from; j < c->from + c->size; j++)
		if (c->new->head[j])
			return FAIL("the moved note's old place is not cleared");
	return 0;
}

static int note_new_after_moved(const struct check *c, char *err,
				size_t errlen)
{
	const struct ebid_note *g = &c->new->gnu;

	if (g->shndx != ebid_plan_shndx(c->plan, c->old->shnum) ||
	    g->note_off != c->to + c->size)
		return FAIL("the new note is not right after the moved one");
	return 0;
}

/*
 * The moved PT_NOTE covered the note, and covers it and the new one; a
 * p_align of 8 became 4 (move-note's reads_as_4()), any other stayed.
 */
static int note_moved_pt(const struct check *c, char *err, size_t errlen)
{
	const struct ebid_phdr *op = c->op, *np = c->np;
	uint64_t size = c->size;

	if (op->type != PT_NOTE || np->type != PT_NOTE ||
	    op->offset != c->from || op->filesz != size ||
	    op->memsz != size || np->offset != c->to ||
	    np->filesz != size + c->new->gnu.note_size ||
	    np->memsz != np->filesz || np->vaddr != c->ns->addr ||
	    np->paddr != op->paddr + (c->to - c->from) ||
	    np->flags != op->flags ||
	    np->align != (op->align > 4 ? 4 : op->align) ||
	    (op->align > 4 && (op->align != 8 || size % 8 || c->from % 8)))
		return FAIL("the moved note's PT_NOTE does not cover exactly it and the new note");
	return 0;
}

/* Where the notes went: inside the first PT_LOAD as it was. */
static bool note_inside(const struct check *c)
{
	return c->end <= c->ol->filesz;
}

/* The bytes the notes took that the first PT_LOAD did not hold for them. */
static uint64_t note_claim_lo(const struct check *c)
{
	return note_inside(c) ? c->to : c->ol->filesz;
}

static int note_load_grew(const struct check *c, char *err, size_t errlen)
{
	if (note_inside(c) ? !check_same_phdr(c->ol, c->nl)
			   : !check_load_grew_to(c->ol, c->nl, c->end) ||
				     c->ol->filesz > c->to)
		return FAIL("the first PT_LOAD did not grow over exactly the moved and the new note, nor hold them unchanged");
	return 0;
}

static int note_grown_were_zero(const struct check *c, char *err,
				size_t errlen)
{
	uint64_t j;
	size_t i;

	for (j = note_claim_lo(c); j < c->end; j++)
		if (c->old->head[j])
			return FAIL("the notes took bytes that were not zero");
	/* Nor any section's: by its bytes, or a NOBITS one by its addresses. */
	for (i = 1; note_inside(c) && i < c->old->shnum; i++) {
		const struct ebid_shdr *s = &c->old->shdrs[i];
		uint64_t lo = c->ol->vaddr + c->to, hi = c->ol->vaddr + c->end;

		if (!s->size)
			continue;
		if (s->type != SHT_NOBITS ? s->offset < c->end &&
						    s->offset + s->size > c->to
					  : (s->flags & SHF_ALLOC) && s->addr < hi &&
						    s->addr + s->size > lo)
			return FAIL("the notes took bytes of section [%zu]", i);
	}
	return 0;
}

/* No other header of the input covered the grown or the moved bytes. */
static int note_others_clear(const struct check *c, char *err, size_t errlen)
{
	const struct ebid_elf *old = c->old;
	size_t i;

	for (i = 0; i < old->phnum; i++) {
		const struct ebid_phdr *o = &old->phdrs[i];

		if (i == c->li)
			continue;
		if (o->type == PT_LOAD &&
		    check_load_reaches_growth(o, c->ol, c->nl, c->end))
			return FAIL("the grown first PT_LOAD reaches another segment");
		if (i != c->pi && o->type != PT_LOAD &&
		    o->offset < c->end && o->offset + o->filesz > note_claim_lo(c))
			return FAIL("the grown bytes were under another program header");
		if (i != c->pi && o->type != PT_LOAD &&
		    o->offset < c->from + c->size &&
		    o->offset + o->filesz > c->from)
			return FAIL("the moved note was under another program header (PT_GNU_PROPERTY?)");
	}
	return 0;
}

static int note_syms_moved(const struct check *c, char *err, size_t errlen)
{
	if (!check_same_note_syms(c->old, c->new, c->plan))
		return FAIL("a symbol of the moved note did not move with it, or another one changed (or the symbols were not read)");
	return 0;
}

static const check_fn note_move_checks[] = {
	note_moved_shdr,
	note_moved_bytes,
	note_old_place_cleared,
	note_new_after_moved,
	note_moved_pt,
	note_load_grew,
	note_grown_were_zero,
	note_others_clear,
	note_syms_moved,
};

/* move-note's output: the moved note's headers, then the table. */
int check_move_note(const struct check *c, char *err, size_t errlen)
{
	return check_steps(c, note_move_headers, note_move_checks, ARRAY_SIZE(note_move_checks), err,
			   errlen);
}
