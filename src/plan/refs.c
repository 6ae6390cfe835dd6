/* SPDX-License-Identifier: MIT */
/*
 * What else points into a range a plan moves (symbols, dynamic entries),
 * the rule that refuses a move when something outside the move would be
 * left pointing at the old place, and the patches that take along what
 * moves with it. The one place for every such reference check.
 */
#include <stdio.h>
#include <string.h>

#include "plan/planner.h"
#include "elf/relocs.h"
#include "plan/plan.h"

/* The symbol record whose st_value field is at output offset off, or NULL. */
const struct ebid_symref *refs_sym_at(const struct planner *p, uint64_t off)
{
	const struct ebid_elf *elf = p->elf;
	size_t i;

	for (i = 0; i < elf->n_note_syms; i++)
		if (ebid_plan_outoff(p->plan, elf->note_syms[i].value_off) ==
		    off)
			return &elf->note_syms[i];
	return NULL;
}

/*
 * Does symbol r point into section s (or right at its end, as an end
 * marker does)? mold gives __ehdr_start and __executable_start the index
 * of the first section, .interp, and the ELF header's address: those do
 * not move with it.
 */
bool refs_sym_in(const struct ebid_symref *r, const struct ebid_shdr *s)
{
	return r->value >= s->addr && r->value - s->addr <= s->size;
}

/* Is r a symbol of a section in [from, to) that points into it? */
static bool in_run(const struct ebid_elf *elf, const struct ebid_symref *r,
		   uint64_t from, uint64_t to)
{
	const struct ebid_shdr *s;

	if (!r->shndx || r->shndx >= elf->shnum)
		return false;
	s = &elf->shdrs[r->shndx];
	return s->type != SHT_NOBITS && s->size && s->offset >= from &&
	       s->offset < to && refs_sym_in(r, s);
}

bool ebid_plan_sym_moves(const struct ebid_plan *plan,
			 const struct ebid_elf *elf,
			 const struct ebid_symref *r)
{
	return ebid_plan_moved(plan, elf, r->shndx) &&
	       refs_sym_in(r, &elf->shdrs[r->shndx]);
}

bool ebid_plan_moved(const struct ebid_plan *plan, const struct ebid_elf *elf,
		     size_t shndx)
{
	const struct ebid_shdr *s;

	if (!shndx || shndx >= elf->shnum)
		return false;
	s = &elf->shdrs[shndx];
	return s->type != SHT_NOBITS && s->size &&
	       ebid_plan_run_of(plan, s->offset, s->size);
}

/*
 * The DT_ tag that holds the address of a dynamic table section (the
 * dynamic loader reads it only through that entry), or 0.
 */
static uint64_t refs_dyn_tag(const struct ebid_shdr *s)
{
	uint64_t tag;

	ebid_movable(s, &tag);
	return tag;
}

/* How many entries of the dynamic table give section s's address. */
size_t refs_dyn_count(const struct ebid_elf *elf, const struct ebid_shdr *s)
{
	size_t i, n = 0;

	if (elf->dyn_bad)
		return 0;
	for (i = 0; i < elf->ndyn; i++)
		if (elf->dyn[i].tag == refs_dyn_tag(s) &&
		    elf->dyn[i].val == s->addr)
			n++;
	return n;
}

bool ebid_dyn_is_addr(uint64_t tag)
{
	/* DT_VALRNGLO..DT_VALRNGHI: values, not addresses. */
	if (tag >= DT_VALRNGLO && tag <= DT_VALRNGHI)
		return false;
	switch (tag) {
	case DT_NULL:
	case DT_NEEDED:
	case DT_PLTRELSZ:
	case DT_RELASZ:
	case DT_RELAENT:
	case DT_STRSZ:
	case DT_SYMENT:
	case DT_SONAME:
	case DT_RPATH:
	case DT_SYMBOLIC:
	case DT_RELSZ:
	case DT_RELENT:
	case DT_PLTREL:
	case DT_TEXTREL:
	case DT_BIND_NOW:
	case DT_INIT_ARRAYSZ:
	case DT_FINI_ARRAYSZ:
	case DT_RUNPATH:
	case DT_FLAGS:
	case DT_PREINIT_ARRAYSZ:
	case DT_RELRSZ:
	case DT_RELRENT:
	case DT_RELACOUNT:
	case DT_RELCOUNT:
	case DT_FLAGS_1:
	case DT_VERDEFNUM:
	case DT_VERNEEDNUM:
	case DT_AUXILIARY:
	case DT_FILTER:
		return false;
	default:
		/* Any other tag is taken for an address: the safe side. */
		return true;
	}
}

/* Is d the entry of a dynamic table section in [from, to) at its start? */
static bool dyn_names_table(const struct ebid_elf *elf,
			    const struct ebid_dynref *d, uint64_t from,
			    uint64_t to)
{
	size_t i;

	for (i = 1; i < elf->shnum; i++) {
		const struct ebid_shdr *s = &elf->shdrs[i];

		if (s->type != SHT_NOBITS && s->size && s->offset >= from &&
		    s->offset + s->size <= to && refs_dyn_tag(s) == d->tag &&
		    s->addr == d->val)
			return true;
	}
	return false;
}

/* Does r's value lie among the moved addresses? */
static bool points_in(uint64_t value, const struct moved_range *m)
{
	return value >= m->addr_lo && value - m->addr_lo < m->len;
}

/*
 * The symbol rule of a move: the moved sections' own symbols move with
 * them, but only local ones (code of another object, or of another
 * program through the dynamic table, could hold the address of a global
 * one); a symbol of another section that points into the range refuses,
 * and so does a symbol of theirs whose record lies in a moved table.
 * Both moves call this one function: any other kind of reference into
 * [m->addr_lo, m->addr_lo + m->len) is checked here too: relocations are
 * (relocs.c).
 */
int refs_check(const struct planner *p, const struct moved_range *m,
	       struct refusal *r)
{
	const struct ebid_elf *elf = p->elf;
	size_t i;

	for (i = 0; i < elf->n_note_syms; i++) {
		const struct ebid_symref *s = &elf->note_syms[i];
		bool own = in_run(elf, s, m->off_lo, m->off_hi);

		if (!own && points_in(s->value, m))
			return refuse(r, REFUSE_NEXT, m->into_why);
		/* Its record moves with a table: no patch would follow it. */
		if (s->value_off >= m->off_lo && s->value_off < m->off_hi)
			return refuse(r, REFUSE_NEXT, "a symbol of a section among them is itself in a table that moves");
		if (own && (s->dynamic || s->info >> 4 != STB_LOCAL))
			return refuse(r, REFUSE_NEXT, m->names_why);
	}
	/* relocs.c: no relocation is applied in, or points into, the range. */
	if (ebid_relocs_refuse(elf, m->addr_lo, m->addr_lo + m->len, m->what,
			       r->buf, sizeof(r->buf)))
		return refuse(r, REFUSE_NEXT, r->buf);
	return 0;
}

/*
 * The dynamic table: a moved table's own entry moves with it; no other
 * address in it may point into the range.
 */
int refs_check_dynamic(const struct planner *p, const struct moved_range *m,
		       struct refusal *r)
{
	const struct ebid_elf *elf = p->elf;
	size_t i;

	if (elf->dyn_bad)
		return refuse(r, REFUSE_NEXT, "the dynamic table cannot be read as the loader reads it (not one PT_DYNAMIC, mapped where its bytes are and where .dynamic is, ending in DT_NULL, at most 512 entries)");
	for (i = 0; i < elf->ndyn; i++) {
		const struct ebid_dynref *d = &elf->dyn[i];

		if (!ebid_dyn_is_addr(d->tag) || !points_in(d->val, m))
			continue;
		if (!dyn_names_table(elf, d, m->off_lo, m->off_hi))
			return refuse(r, REFUSE_NEXT, "a dynamic entry points into them");
	}
	return 0;
}

/* Where an input field at off is in the output, a gap of ins at next. */
static uint64_t field_at(uint64_t off, uint64_t next, uint64_t ins)
{
	return off + (off >= next ? ins : 0);
}

/* Patches the word at output offset at to value (a moved address). */
static int patch_word(struct planner *p, uint64_t at, uint64_t value,
		      const char *what)
{
	unsigned char buf[8];
	size_t w = ebid_word(p->elf->elfclass);

	ebid_put(buf, w, value, p->elf->data);
	return planner_patch(p, at, buf, w, what);
}

/*
 * The moved symbols' new values (delta added); a gap of ins bytes at
 * input offset next (0: none) moves the fields behind it.
 */
int refs_patch(struct planner *p, const struct moved_range *m, uint64_t delta,
	       uint64_t next, uint64_t ins)
{
	const struct ebid_elf *elf = p->elf;
	size_t i;
	int ret = 0;

	for (i = 0; !ret && i < elf->n_note_syms; i++) {
		const struct ebid_symref *r = &elf->note_syms[i];

		if (in_run(elf, r, m->off_lo, m->off_hi))
			ret = patch_word(p, field_at(r->value_off, next, ins),
					 r->value + delta,
					 "symbol value (moved)");
	}
	return ret;
}

/* The moved dynamic tables' entries (refs_check_dynamic() let only them). */
int refs_patch_dynamic(struct planner *p, const struct moved_range *m,
		       uint64_t delta, uint64_t next, uint64_t ins)
{
	const struct ebid_elf *elf = p->elf;
	char what[64];
	size_t i;
	int ret = 0;

	for (i = 0; !ret && i < elf->ndyn; i++) {
		const struct ebid_dynref *d = &elf->dyn[i];

		if (!ebid_dyn_is_addr(d->tag) || !points_in(d->val, m))
			continue;
		snprintf(what, sizeof(what), "dynamic entry (tag 0x%llx, moved)",
			 (unsigned long long)d->tag);
		ret = patch_word(p, field_at(d->val_off, next, ins),
				 d->val + delta, what);
	}
	return ret;
}
