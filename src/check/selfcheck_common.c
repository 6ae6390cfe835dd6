/* SPDX-License-Identifier: MIT */
/*
 * What the self-check's tables of the moving strategies share: how far a
 * plan moved, where a header went, the symbols of the first-page notes, the
 * grown first PT_LOAD, and the moved run's checks (move-head, new-load).
 */
#include <string.h>

#include "internal.h"
#include "elf/elf.h"
#include "plan/plan.h"
#include "check/selfcheck.h"

/* Runs the checks in order; the first refusal stops them. */
int check_run(const check_fn *fns, size_t n, const struct check *c,
		      char *err, size_t errlen)
{
	size_t i;
	int ret = 0;

	for (i = 0; !ret && i < n; i++)
		ret = fns[i](c, err, errlen);
	return ret;
}

int check_steps(const struct check *c, check_step first, const check_fn *fns,
		size_t n, char *err, size_t errlen)
{
	struct check m = *c;
	int ret = first(&m, err, errlen);

	return ret ? ret : check_run(fns, n, &m, err, errlen);
}

int check_one_run(struct check *c, char *err, size_t errlen)
{
	const struct ebid_run *r = &c->plan->runs[0];

	if (c->plan->nruns != 1)
		return FAIL("the plan moved %zu runs, where its strategy moves one",
			    c->plan->nruns);
	c->from = r->from;
	c->to = ebid_run_to(r);
	c->size = r->size;
	c->addr_delta = r->addr_delta;
	return 0;
}

/*
 * Where old program header i is in the output: one further on for each
 * header the plan added before it (plan->added_ph, ascending).
 * check_counts() made sure the output has them.
 */
size_t check_new_phdr_index(const struct ebid_plan *plan, size_t i)
{
	size_t k;

	for (k = 0; k < plan->nadded_ph; k++)
		if (i >= plan->added_ph[k])
			i++;
	return i;
}

/* How far symbol a moved: its section's run's addr_delta, or 0. */
static uint64_t sym_delta(const struct ebid_elf *old,
			  const struct ebid_plan *plan,
			  const struct ebid_symref *a)
{
	const struct ebid_shdr *s;
	const struct ebid_run *r;

	if (!ebid_plan_sym_moves(plan, old, a))
		return 0;
	s = &old->shdrs[a->shndx];
	r = ebid_plan_run_of(plan, s->offset, s->size);
	return r ? (uint64_t)r->addr_delta : 0;
}

/*
 * The symbols of first-page notes (and .interp): the same ones, at the
 * same places (moved up by an inserted gap), each with its old value,
 * moved with its section when the plan moved that.
 */
bool check_same_note_syms(const struct ebid_elf *old,
			   const struct ebid_elf *new,
			   const struct ebid_plan *plan)
{
	bool moves = plan->nruns != 0;
	size_t i, j;

	if (!old->note_syms_read || !new->note_syms_read ||
	    old->note_syms_over != new->note_syms_over ||
	    old->n_note_syms > new->n_note_syms)
		return false;
	/*
	 * A symbol of another section found only in the output points at
	 * where the notes now are (a section's end marker, as
	 * __rela_iplt_end in a static program, right before the padding):
	 * its value is what it was, as the planner changes no st_value but
	 * those of the moved section's symbols (check_sections_kept).
	 */
	for (j = 0; j < new->n_note_syms; j++) {
		const struct ebid_symref *b = &new->note_syms[j];

		for (i = 0; i < old->n_note_syms; i++)
			if (ebid_plan_outoff(plan, old->note_syms[i].value_off) ==
			    b->value_off)
				break;
		if (i == old->n_note_syms &&
		    (!moves || b->shndx == new->gnu.shndx ||
		     ebid_plan_moved(plan, old,
				     check_old_shndx(plan, b->shndx))))
			return false;
	}
	for (i = 0; i < old->n_note_syms; i++) {
		const struct ebid_symref *a = &old->note_syms[i];

		for (j = 0; j < new->n_note_syms; j++)
			if (new->note_syms[j].value_off ==
			    ebid_plan_outoff(plan, a->value_off))
				break;
		if (j == new->n_note_syms ||
		    new->note_syms[j].shndx !=
			    (a->shndx < old->shnum ? ebid_plan_shndx(plan, a->shndx)
						   : a->shndx) ||
		    new->note_syms[j].value != a->value + sym_delta(old, plan, a))
			return false;
	}
	return true;
}

/*
 * The first PT_LOAD, at offset 0 in both, changed only in p_filesz and
 * p_memsz, and both are now end (before, they were equal).
 */
bool check_load_grew_to(const struct ebid_phdr *ol,
			 const struct ebid_phdr *nl, uint64_t end)
{
	return ol->type == PT_LOAD && nl->type == PT_LOAD &&
	       !ol->offset && !nl->offset && nl->vaddr == ol->vaddr &&
	       nl->paddr == ol->paddr && nl->flags == ol->flags &&
	       nl->align == ol->align && ol->filesz == ol->memsz &&
	       nl->filesz == end && nl->memsz == end;
}

/*
 * Whether PT_LOAD o reaches what the first PT_LOAD grew over: its bytes in
 * the file before end, or its memory over the grown addresses.
 */
bool check_load_reaches_growth(const struct ebid_phdr *o,
				const struct ebid_phdr *ol,
				const struct ebid_phdr *nl, uint64_t end)
{
	return o->offset < end ||
	       (o->vaddr < nl->vaddr + end &&
		o->vaddr + o->memsz > ol->vaddr + ol->filesz);
}

int check_run_new_note(const struct check *c, char *err, size_t errlen)
{
	const struct ebid_note *g = &c->new->gnu;
	const struct ebid_phdr *np = c->np;

	if (!g->present ||
	    g->shndx != ebid_plan_shndx(c->plan, c->old->shnum) ||
	    g->note_off + g->note_size > EBID_PAGE ||
	    g->note_off + g->note_size > c->end ||
	    np->type != PT_NOTE || np->offset != g->note_off ||
	    np->filesz != g->note_size || np->memsz != np->filesz ||
	    np->vaddr != c->nl->vaddr + np->offset)
		return FAIL("the new note is not in the first page under a PT_NOTE of its own");
	return 0;
}

/* Zero, but for the new program header and the new note. */
int check_run_old_place_cleared(const struct check *c, char *err,
				  size_t errlen)
{
	const struct ebid_note *g = &c->new->gnu;
	uint64_t j;

	/* Past the first page: ebid_check_moved_bytes(). */
	for (j = c->from; j < c->from + c->size && j < c->new->head_len; j++) {
		if (j >= c->from && j < c->from + c->nph * c->ent)
			continue; /* the new program headers */
		if (j >= g->note_off && j < g->note_off + g->note_size)
			continue;
		if (c->new->head[j])
			return FAIL("the moved run's old place is not cleared");
	}
	return 0;
}

int check_run_syms_moved(const struct check *c, char *err, size_t errlen)
{
	if (!check_same_note_syms(c->old, c->new, c->plan))
		return FAIL("a symbol of a moved section did not move with it, or another one changed (or the symbols were not read)");
	return 0;
}

/* The dynamic table: the moved tables' entries moved, no other one. */
int check_run_dyn_moved(const struct check *c, char *err, size_t errlen)
{
	const struct ebid_elf *old = c->old, *new = c->new;
	uint64_t run_at = c->ol->vaddr + c->from;
	size_t i;


	if (old->dyn_bad || new->dyn_bad || old->ndyn != new->ndyn)
		return FAIL("the dynamic table is not the input's");
	for (i = 0; i < old->ndyn; i++) {
		const struct ebid_dynref *a = &old->dyn[i], *b = &new->dyn[i];
		bool moved = ebid_dyn_is_addr(a->tag) && a->val >= run_at &&
			     a->val - run_at < c->size;

		if (b->tag != a->tag ||
		    b->val_off != ebid_plan_outoff(c->plan, a->val_off) ||
		    b->val != a->val + (moved ? (uint64_t)c->addr_delta : 0))
			return FAIL("a dynamic entry did not move with its table, or another one changed");
	}
	return 0;
}

void check_renumber_shdr(const struct ebid_plan *plan, struct ebid_shdr *e)
{
	if (plan->shmap)
		ebid_shdr_renumber(e, plan->shmap, plan->shmap_n);
}

/*
 * The run's bytes [at, at + n) as the output must hold them: the input's,
 * with the section indices of a symbol table in it renumbered (order.c).
 */
void check_expect_renumbered(const struct ebid_elf *old,
			     const struct ebid_plan *plan, uint64_t at,
			     unsigned char *a, size_t n)
{
	size_t i;

	for (i = 0; plan->shmap && i < old->nitabs; i++) {
		const struct ebid_itab *t = &old->itabs[i];
		uint64_t off = old->shdrs[t->shndx].offset;
		uint64_t lo = off > at ? off : at;
		uint64_t hi = off + t->len < at + n ? off + t->len : at + n;

		if (lo < hi)
			ebid_itab_renumber(old, t, plan->shmap, plan->shmap_n,
					   lo - off, a + (lo - at), hi - lo);
	}
}

size_t check_old_shndx(const struct ebid_plan *plan, size_t shndx)
{
	size_t i;

	if (!plan->shmap)
		return shndx;
	for (i = 0; i < plan->shmap_n; i++)
		if (plan->shmap[i] == shndx)
			return i;
	return shndx;
}

bool check_same_shdr(const struct ebid_shdr *a, const struct ebid_shdr *b,
		     bool moved_ok)
{
	return a->type == b->type && a->flags == b->flags &&
	       a->addr == b->addr && a->link == b->link &&
	       a->info == b->info && a->addralign == b->addralign &&
	       a->entsize == b->entsize && !strcmp(a->name_str, b->name_str) &&
	       (moved_ok || (a->offset == b->offset && a->size == b->size));
}

bool check_same_phdr(const struct ebid_phdr *a, const struct ebid_phdr *b)
{
	return !memcmp(a, b, sizeof(*a));
}
