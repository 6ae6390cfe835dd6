/* SPDX-License-Identifier: MIT */
/* The output's self-check: the file read back is what the plan promised. */
#include <string.h>

#include "internal.h"
#include "elf/layout.h"
#include "elf/relocs.h"
#include "elf/elf.h"
#include "id/id.h"
#include "job/check.h"
#include "plan/plan.h"

/*
 * Every property below is one function: 0, or the refusal in err. To check
 * one more, add a function and its row in the table of the step it
 * belongs to (result_checks, note_move_checks, head_move_checks,
 * new_load_checks).
 */
#define FAIL(...) ebid_err(err, errlen, -EBID_EVERIFY, \
			   "self-check of the output failed: " __VA_ARGS__)

/*
 * What the checks look at: the input's layout (old), the output's (new),
 * the plan between them and the id written; for a move, the headers it
 * moved, found by the move's first step (note_move_headers(),
 * head_move_headers()).
 */
struct check {
	const struct ebid_elf *old, *new;
	const struct ebid_plan *plan;
	const unsigned char *id;
	/* The moved bytes: [from, from + size) went to to. */
	uint64_t from, to, size;
	uint64_t end;    /* where the grown first PT_LOAD ends */
	size_t li, nli;  /* the first PT_LOAD in old and in new */
	size_t pi;       /* move-note: the moved PT_NOTE */
	size_t ent;      /* move-head: a program header's size */
	size_t nph;      /* move-head, new-load: program headers added in the
			  * run's old place (1, 2) */
	const struct ebid_phdr *load; /* new-load: the new PT_LOAD */
	/* move-note: the moved section in old and in new. */
	const struct ebid_shdr *os, *ns;
	/* The first PT_LOAD in old and in new. */
	const struct ebid_phdr *ol, *nl;
	/* The moved PT_NOTE (move-note); np, the new one (move-head). */
	const struct ebid_phdr *op, *np;
};

typedef int (*check_fn)(const struct check *c, char *err, size_t errlen);

/* Runs the checks in order; the first refusal stops them. */
static int run_checks(const check_fn *fns, size_t n, const struct check *c,
		      char *err, size_t errlen)
{
	size_t i;
	int ret = 0;

	for (i = 0; !ret && i < n; i++)
		ret = fns[i](c, err, errlen);
	return ret;
}

static bool same_shdr(const struct ebid_shdr *a, const struct ebid_shdr *b,
		      bool moved_ok)
{
	return a->type == b->type && a->flags == b->flags &&
	       a->addr == b->addr && a->link == b->link &&
	       a->info == b->info && a->addralign == b->addralign &&
	       a->entsize == b->entsize && !strcmp(a->name_str, b->name_str) &&
	       (moved_ok || (a->offset == b->offset && a->size == b->size));
}

static bool same_phdr(const struct ebid_phdr *a, const struct ebid_phdr *b)
{
	return !memcmp(a, b, sizeof(*a));
}

/*
 * How far the plan moved the sections it moved (ebid_plan_moved()) in
 * the file, and in memory (the same but for new-load's).
 */
static uint64_t moved_off_delta(const struct ebid_plan *plan)
{
	if (plan->actions & EBID_ACT_MOVE_NOTE)
		return plan->moved_to - plan->moved_from;
	if (plan->actions & (EBID_ACT_MOVE_HEAD | EBID_ACT_NEW_LOAD))
		return plan->head_to - plan->head_from;
	return 0;
}

static uint64_t moved_delta(const struct ebid_elf *old,
			    const struct ebid_plan *plan)
{
	if (!(plan->actions & EBID_ACT_NEW_LOAD))
		return moved_off_delta(plan);
	if (plan->grown_load >= old->phnum)
		return 0; /* new_load_headers() refuses the plan */
	return plan->head_addr -
	       (old->phdrs[plan->grown_load].vaddr + plan->head_from);
}

/*
 * Where old program header i is in the output: one further on for each
 * header the plan added before it (the new PT_NOTE, new-load's PT_LOAD).
 * check_counts() made sure the output has them.
 */
static size_t new_phdr_index(const struct ebid_plan *plan, size_t i)
{
	size_t lo = plan->new_pt, hi = plan->new_pt;

	if (!(plan->actions & EBID_ACT_ADD_PT))
		return i;
	if (plan->actions & EBID_ACT_NEW_LOAD) {
		lo = plan->new_load < plan->new_pt ? plan->new_load : plan->new_pt;
		hi = plan->new_load < plan->new_pt ? plan->new_pt : plan->new_load;
	}
	if (i >= lo)
		i++;
	if (hi != lo && i >= hi)
		i++;
	return i;
}

/*
 * The symbols of first-page notes (and .interp): the same ones, at the
 * same places (moved up by an inserted gap), each with its old value,
 * moved with its section when the plan moved that.
 */
static bool same_note_syms(const struct ebid_elf *old,
			   const struct ebid_elf *new,
			   const struct ebid_plan *plan)
{
	uint64_t delta = moved_delta(old, plan);
	bool moves = delta != 0;
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
		     ebid_plan_moved(plan, old, b->shndx)))
			return false;
	}
	for (i = 0; i < old->n_note_syms; i++) {
		const struct ebid_symref *a = &old->note_syms[i];

		for (j = 0; j < new->n_note_syms; j++)
			if (new->note_syms[j].value_off ==
			    ebid_plan_outoff(plan, a->value_off))
				break;
		if (j == new->n_note_syms ||
		    new->note_syms[j].shndx != a->shndx ||
		    new->note_syms[j].value !=
			    a->value + (ebid_plan_sym_moves(plan, old, a)
						? delta
						: 0))
			return false;
	}
	return true;
}

/*
 * The first PT_LOAD, at offset 0 in both, changed only in p_filesz and
 * p_memsz, and both are now end (before, they were equal).
 */
static bool load_grew_to(const struct ebid_phdr *ol,
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
static bool load_reaches_growth(const struct ebid_phdr *o,
				const struct ebid_phdr *ol,
				const struct ebid_phdr *nl, uint64_t end)
{
	return o->offset < end ||
	       (o->vaddr < nl->vaddr + end &&
		o->vaddr + o->memsz > ol->vaddr + ol->filesz);
}

/*
 * EBID_ACT_MOVE_NOTE: the moved note is the same bytes at its new place,
 * its old place is zero, its section and PT_NOTE point at the new place,
 * the PT_NOTE covers it and the new note and nothing else, the first
 * PT_LOAD grew (p_filesz and p_memsz only) over zero padding that stays in
 * the first page and before every other segment, in the file and in
 * memory. The first step: the plan's indices name headers of the input
 * and the output; fills c's move fields.
 */
static int note_move_headers(struct check *c, char *err, size_t errlen)
{
	const struct ebid_elf *old = c->old, *new = c->new;
	const struct ebid_plan *plan = c->plan;
	size_t m = plan->moved_shndx;

	c->pi = plan->moved_pt;
	c->li = c->nli = plan->grown_load;
	c->from = plan->moved_from;
	c->to = plan->moved_to;
	c->size = plan->moved_size;
	if (!m || m >= old->shnum || c->pi >= old->phnum ||
	    c->li >= old->phnum || c->pi == c->li || new->phnum != old->phnum)
		return FAIL("the moved note's headers are not the planned ones");
	c->os = &old->shdrs[m];
	c->ns = &new->shdrs[m];
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
	if (c->os->type != SHT_NOTE || c->os->offset != c->from ||
	    c->os->size != c->size || c->ns->offset != c->to ||
	    c->ns->size != c->size || !same_shdr(&e, c->ns, true))
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

	if (g->shndx != c->old->shnum || g->note_off != c->to + c->size)
		return FAIL("the new note is not right after the moved one");
	return 0;
}

/* The moved PT_NOTE covered the note, and covers it and the new one. */
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
	    np->flags != op->flags || np->align != op->align)
		return FAIL("the moved note's PT_NOTE does not cover exactly it and the new note");
	return 0;
}

static int note_load_grew(const struct check *c, char *err, size_t errlen)
{
	if (!load_grew_to(c->ol, c->nl, c->end) || c->ol->filesz > c->to)
		return FAIL("the first PT_LOAD did not grow over exactly the moved and the new note");
	return 0;
}

static int note_grown_were_zero(const struct check *c, char *err,
				size_t errlen)
{
	uint64_t j;

	for (j = c->ol->filesz; j < c->end; j++)
		if (c->old->head[j])
			return FAIL("the first PT_LOAD grew over bytes that were not zero");
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
		    load_reaches_growth(o, c->ol, c->nl, c->end))
			return FAIL("the grown first PT_LOAD reaches another segment");
		if (i != c->pi && o->type != PT_LOAD &&
		    o->offset < c->end && o->offset + o->filesz > c->ol->filesz)
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
	if (!same_note_syms(c->old, c->new, c->plan))
		return FAIL("a symbol of the moved note did not move with it, or another one changed (or the symbols were not read)");
	return 0;
}

static const check_fn note_move_checks[] = {
	note_moved_shdr,      note_moved_bytes,  note_old_place_cleared,
	note_new_after_moved, note_moved_pt,     note_load_grew,
	note_grown_were_zero, note_others_clear, note_syms_moved,
};

/*
 * EBID_ACT_MOVE_HEAD: the first PT_LOAD grew (p_filesz and p_memsz only)
 * over the moved run and at most the new note, over bytes that were zero
 * (or inserted) and that no other segment reaches in the file or in
 * memory; the run's old place is zero but for the new program header and
 * note; the new note lies in the first page, in the first PT_LOAD, and
 * its own PT_NOTE covers exactly it; the bytes of the run that lie in the
 * first page are the same at their new place (ebid_check_moved_bytes()
 * reads the rest); the run's symbols and dynamic entries moved with it.
 * The first step: the plan's indices name headers of the input and the
 * output; fills c's move fields.
 */
static int head_move_headers(struct check *c, char *err, size_t errlen)
{
	const struct ebid_elf *old = c->old, *new = c->new;
	const struct ebid_plan *plan = c->plan;

	c->li = plan->grown_load;
	/* ebid_elf_read() checked e_phentsize against the class. */
	c->ent = old->phentsize;
	c->nph = 1;
	c->from = plan->head_from;
	c->to = plan->head_to;
	c->size = plan->head_size;
	if (c->li >= old->phnum || !(plan->actions & EBID_ACT_ADD_PT) ||
	    new->phnum != old->phnum + 1 || plan->new_pt >= new->phnum)
		return FAIL("the moved run's headers are not the planned ones");
	c->nli = c->li >= plan->new_pt ? c->li + 1 : c->li;
	c->ol = &old->phdrs[c->li];
	c->nl = &new->phdrs[c->nli];
	c->np = &new->phdrs[plan->new_pt];
	c->end = c->nl->filesz;
	return 0;
}

static int head_run_place(const struct check *c, char *err, size_t errlen)
{
	const struct ebid_elf *old = c->old;

	if (c->from != old->phoff + old->phnum * c->ent || !c->size ||
	    c->from + c->size > c->ol->filesz ||
	    c->from + c->size > old->head_len || c->to < c->ol->filesz)
		return FAIL("the moved run is not the bytes after the program headers");
	return 0;
}

/* The PT_LOAD ends at the run's end, or at the new note right behind. */
static int head_load_grew(const struct check *c, char *err, size_t errlen)
{
	const struct ebid_note *g = &c->new->gnu;
	uint64_t run_end = c->to + c->size;
	bool note_behind = g->note_off >= run_end;

	if (!load_grew_to(c->ol, c->nl, c->end) ||
	    c->end != (note_behind ? ebid_align_up(run_end, 4) + g->note_size
				   : run_end) ||
	    (note_behind && g->note_off != ebid_align_up(run_end, 4)))
		return FAIL("the first PT_LOAD did not grow over exactly the moved run (and the new note right behind it)");
	return 0;
}

static int head_grown_were_zero(const struct check *c, char *err,
				size_t errlen)
{
	const struct ebid_plan *plan = c->plan;
	uint64_t j;

	for (j = c->ol->filesz; j < c->end; j++)
		if ((!plan->ins_len || j < plan->ins_at) &&
		    !ebid_elf_byte_zero(c->old, j))
			return FAIL("the first PT_LOAD grew over bytes that were not zero");
	return 0;
}

static int head_others_clear(const struct check *c, char *err, size_t errlen)
{
	const struct ebid_elf *new = c->new;
	size_t i;

	for (i = 0; i < new->phnum; i++) {
		const struct ebid_phdr *o = &new->phdrs[i];

		if (i == c->nli || o->type != PT_LOAD)
			continue;
		if (load_reaches_growth(o, c->ol, c->nl, c->end))
			return FAIL("the grown first PT_LOAD reaches another segment");
	}
	return 0;
}

static int head_new_note(const struct check *c, char *err, size_t errlen)
{
	const struct ebid_note *g = &c->new->gnu;
	const struct ebid_phdr *np = c->np;

	if (!g->present || g->shndx != c->old->shnum ||
	    g->note_off + g->note_size > EBID_PAGE ||
	    g->note_off + g->note_size > c->end ||
	    np->type != PT_NOTE || np->offset != g->note_off ||
	    np->filesz != g->note_size || np->memsz != np->filesz ||
	    np->vaddr != c->nl->vaddr + np->offset)
		return FAIL("the new note is not in the first page under a PT_NOTE of its own");
	return 0;
}

/* Zero, but for the new program header and the new note. */
static int head_old_place_cleared(const struct check *c, char *err,
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

/* The part of the run that is in the output's first page. */
static int head_run_bytes(const struct check *c, char *err, size_t errlen)
{
	const struct ebid_elf *old = c->old, *new = c->new;
	uint64_t j;

	for (j = 0; j < c->size && c->to + j < new->head_len; j++)
		if (new->head[c->to + j] != old->head[c->from + j])
			return FAIL("the moved run's bytes are not the same at its new place");
	return 0;
}

static int head_syms_moved(const struct check *c, char *err, size_t errlen)
{
	if (!same_note_syms(c->old, c->new, c->plan))
		return FAIL("a symbol of a moved section did not move with it, or another one changed (or the symbols were not read)");
	return 0;
}

/* The dynamic table: the moved tables' entries moved, no other one. */
static int head_dyn_moved(const struct check *c, char *err, size_t errlen)
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
		    b->val != a->val + (moved ? moved_delta(old, c->plan) : 0))
			return FAIL("a dynamic entry did not move with its table, or another one changed");
	}
	return 0;
}

static const check_fn head_move_checks[] = {
	head_run_place,    head_load_grew,  head_grown_were_zero,
	head_others_clear, head_new_note,   head_old_place_cleared,
	head_run_bytes,    head_syms_moved, head_dyn_moved,
};

/*
 * EBID_ACT_NEW_LOAD: the run after the program headers was copied to the
 * end of the file (ebid_check_moved_bytes() reads it back, and its old
 * place past the first page), under a new read-only PT_LOAD that holds
 * exactly it, at file offsets and addresses no other segment uses, after
 * every other PT_LOAD in the table and in memory; the first PT_LOAD is
 * unchanged; the run's old place in the first page is zero but for the
 * two new program headers and the new note, which lies in the first page
 * under a PT_NOTE of its own; the run's symbols and dynamic entries moved
 * with it. The first step: the plan's indices name headers of the input
 * and the output; fills c's move fields.
 */
static int new_load_headers(struct check *c, char *err, size_t errlen)
{
	const struct ebid_elf *old = c->old, *new = c->new;
	const struct ebid_plan *plan = c->plan;

	c->li = plan->grown_load;
	c->ent = old->phentsize;
	c->nph = 2;
	c->from = plan->head_from;
	c->to = plan->head_to;
	c->size = plan->head_size;
	if (c->li >= old->phnum || !(plan->actions & EBID_ACT_ADD_PT) ||
	    new->phnum != old->phnum + 2 || plan->new_pt >= new->phnum ||
	    plan->new_load >= new->phnum || plan->new_load == plan->new_pt)
		return FAIL("the new PT_LOAD's headers are not the planned ones");
	c->nli = new_phdr_index(plan, c->li);
	c->ol = &old->phdrs[c->li];
	c->nl = &new->phdrs[c->nli];
	c->np = &new->phdrs[plan->new_pt];
	c->load = &new->phdrs[plan->new_load];
	c->end = c->nl->filesz;
	return 0;
}

/* The run: after the program headers, in the first PT_LOAD; appended. */
static int load_run_place(const struct check *c, char *err, size_t errlen)
{
	const struct ebid_elf *old = c->old;

	if (c->from != old->phoff + old->phnum * c->ent || !c->size ||
	    c->from + c->size > c->ol->filesz || c->to < c->plan->in_size ||
	    c->to + c->size > c->new->file_size ||
	    !same_phdr(c->ol, c->nl))
		return FAIL("the moved run is not the bytes after the program headers, appended, the first PT_LOAD unchanged");
	return 0;
}

/* The new PT_LOAD: read-only, exactly the run, offset congruent to address. */
static int load_new_segment(const struct check *c, char *err, size_t errlen)
{
	const struct ebid_phdr *l = c->load;

	if (l->type != PT_LOAD || l->flags != PF_R || l->offset != c->to ||
	    l->filesz != c->size || l->memsz != c->size ||
	    l->vaddr != c->plan->head_addr || l->paddr != l->vaddr ||
	    l->align < EBID_PAGE || (l->align & (l->align - 1)) ||
	    ((l->vaddr - l->offset) & (l->align - 1)))
		return FAIL("the new PT_LOAD does not map exactly the moved run, read-only, at a congruent address");
	return 0;
}

/*
 * Every other segment ends a page or more below it in memory and keeps
 * out of its bytes in the file; PT_LOADs are in ascending address order
 * and it is the last.
 */
static int load_others_clear(const struct check *c, char *err,
			     size_t errlen)
{
	const struct ebid_elf *new = c->new;
	const struct ebid_phdr *l = c->load;
	uint64_t last = 0;
	size_t i;

	for (i = 0; i < new->phnum; i++) {
		const struct ebid_phdr *o = &new->phdrs[i];

		if (o == l)
			continue;
		if (o->type == PT_LOAD && (o->vaddr < last || i > c->plan->new_load))
			return FAIL("the PT_LOADs are not in ascending address order, the new one last");
		if (o->type == PT_LOAD)
			last = o->vaddr;
		/* The run's own PT_INTERP and PT_NOTE lie in it. */
		if (o->type != PT_LOAD && o->offset >= l->offset &&
		    o->offset + o->filesz <= l->offset + l->filesz &&
		    o->vaddr - l->vaddr == o->offset - l->offset &&
		    o->memsz == o->filesz)
			continue;
		if ((o->memsz && o->vaddr + o->memsz + EBID_PAGE > l->vaddr) ||
		    (o->filesz && o->offset + o->filesz > l->offset &&
		     o->offset < l->offset + l->filesz))
			return FAIL("another segment reaches the new PT_LOAD");
	}
	return 0;
}

static const check_fn new_load_checks[] = {
	load_run_place,    load_new_segment, load_others_clear,
	head_new_note,     head_old_place_cleared,
	head_syms_moved,   head_dyn_moved,
};

/* The output's size is the planned one. */
static int check_size(const struct check *c, char *err, size_t errlen)
{
	if (c->new->file_size != c->plan->out_size)
		return FAIL("size %llu, planned %llu",
			    (unsigned long long)c->new->file_size,
			    (unsigned long long)c->plan->out_size);
	return 0;
}

/* Readers by section and the kernel's reader both find the note. */
static int check_view(const struct check *c, char *err, size_t errlen)
{
	struct ebid_note_view view;

	ebid_note_view(c->new, &view);
	if (!view.present)
		return FAIL("no GNU build-id note");
	if (!view.by_section)
		return FAIL("%s", view.section_why);
	if (!view.by_kernel)
		return FAIL("the kernel's reader does not find the note: %s",
			    view.kernel_why);
	return 0;
}

static int check_id(const struct check *c, char *err, size_t errlen)
{
	const struct ebid_note *g = &c->new->gnu;
	const struct ebid_plan *plan = c->plan;

	if (g->desc_off != plan->id_off || g->desc_len != plan->id_len ||
	    memcmp(g->desc, c->id, plan->id_len))
		return FAIL("the id in the file is not the one written");
	return 0;
}

static int check_counts(const struct check *c, char *err, size_t errlen)
{
	size_t add_sh = (c->plan->actions & EBID_ACT_ADD_NOTE) ? 1 : 0;
	size_t add_ph = ((c->plan->actions & EBID_ACT_ADD_PT) ? 1 : 0) +
			((c->plan->actions & EBID_ACT_NEW_LOAD) ? 1 : 0);

	if (c->new->shnum != c->old->shnum + add_sh ||
	    c->new->phnum != c->old->phnum + add_ph)
		return FAIL("header counts are not the planned ones");
	return 0;
}

/* What a move changed (move-note, move-head), or no symbol changed. */
static int check_moves(const struct check *c, char *err, size_t errlen)
{
	const struct ebid_plan *plan = c->plan;
	struct check m = *c;
	int ret;

	if (plan->actions & EBID_ACT_MOVE_NOTE) {
		ret = note_move_headers(&m, err, errlen);
		return ret ? ret
			   : run_checks(note_move_checks,
					ARRAY_SIZE(note_move_checks), &m, err,
					errlen);
	}
	if (plan->actions & EBID_ACT_MOVE_HEAD) {
		ret = head_move_headers(&m, err, errlen);
		return ret ? ret
			   : run_checks(head_move_checks,
					ARRAY_SIZE(head_move_checks), &m, err,
					errlen);
	}
	if (plan->actions & EBID_ACT_NEW_LOAD) {
		ret = new_load_headers(&m, err, errlen);
		return ret ? ret
			   : run_checks(new_load_checks,
					ARRAY_SIZE(new_load_checks), &m, err,
					errlen);
	}
	if (c->old->note_syms_read && c->new->note_syms_read &&
	    !same_note_syms(c->old, c->new, plan))
		return FAIL("a symbol of a first-page note changed");
	return 0;
}

/* Old section i as the plan must have left it (offsets, moved sections). */
static void expect_shdr(const struct ebid_elf *old,
			const struct ebid_plan *plan, size_t i,
			struct ebid_shdr *e)
{
	*e = old->shdrs[i];
	e->offset = ebid_plan_outoff(plan, e->offset);
	if ((plan->actions & (EBID_ACT_MOVE_HEAD | EBID_ACT_NEW_LOAD)) &&
	    ebid_plan_moved(plan, old, i)) {
		e->offset += moved_off_delta(plan);
		e->addr += moved_delta(old, plan);
	}
}

/* Likewise old program header i (but the grown PT_LOAD and PT_PHDR). */
static void expect_phdr(const struct ebid_elf *old,
			const struct ebid_plan *plan, size_t i,
			struct ebid_phdr *e)
{
	*e = old->phdrs[i];
	e->offset = ebid_plan_outoff(plan, e->offset);
	if ((plan->actions & (EBID_ACT_MOVE_HEAD | EBID_ACT_NEW_LOAD)) &&
	    i != plan->grown_load && e->filesz && !ebid_phdr_by_address(e) &&
	    e->offset >= plan->head_from &&
	    e->offset < plan->head_from + plan->head_size) {
		e->offset += moved_off_delta(plan);
		e->vaddr += moved_delta(old, plan);
		e->paddr += moved_delta(old, plan);
	}
}

/*
 * Every section header of the input is in the output as the plan left it.
 * Section 0 carries the extended counts; those may change.
 */
static int check_shdrs(const struct check *c, char *err, size_t errlen)
{
	const struct ebid_elf *old = c->old;
	const struct ebid_plan *plan = c->plan;
	size_t i;

	for (i = 1; i < old->shnum; i++) {
		struct ebid_shdr e;

		if ((plan->actions & EBID_ACT_MOVE_NOTE) &&
		    i == plan->moved_shndx)
			continue;
		expect_shdr(old, plan, i, &e);
		if (!same_shdr(&e, &c->new->shdrs[i], i == old->shstrndx))
			return FAIL("section header [%zu] changed", i);
	}
	return 0;
}

/* A program header the plan may change (or another check looks at). */
static bool phdr_may_change(const struct ebid_plan *plan, size_t i,
			    const struct ebid_phdr *a,
			    const struct ebid_phdr *b)
{
	bool add_ph = plan->actions & EBID_ACT_ADD_PT;

	if (a->type == PT_NOTE && b->type == PT_NOTE &&
	    (plan->actions & EBID_ACT_EXTEND_PT))
		return true;
	if (a->type == PT_PHDR && b->type == PT_PHDR && add_ph)
		return true;
	/* Checked by the move-note and move-head checks. */
	if ((plan->actions & EBID_ACT_MOVE_NOTE) &&
	    (i == plan->moved_pt || i == plan->grown_load))
		return true;
	return (plan->actions & EBID_ACT_MOVE_HEAD) && i == plan->grown_load;
}

/*
 * The new PT_NOTE is where the plan put it, and every program header of
 * the input is in the output as the plan left it.
 */
static int check_phdrs(const struct check *c, char *err, size_t errlen)
{
	const struct ebid_elf *old = c->old, *new = c->new;
	const struct ebid_plan *plan = c->plan;
	bool add_ph = plan->actions & EBID_ACT_ADD_PT;
	size_t i;

	if (add_ph && (plan->new_pt >= new->phnum ||
		       new->phdrs[plan->new_pt].type != PT_NOTE))
		return FAIL("program header [%zu] is not the new PT_NOTE",
			    plan->new_pt);
	for (i = 0; i < old->phnum; i++) {
		struct ebid_phdr e;
		const struct ebid_phdr *b = &new->phdrs[new_phdr_index(plan, i)];

		expect_phdr(old, plan, i, &e);
		if (!same_phdr(&e, b) && !phdr_may_change(plan, i, &e, b))
			return FAIL("program header [%zu] changed", i);
	}
	return 0;
}

/* A move: no relocation is applied in, or points to, what moved away. */
static int check_relocs(const struct check *c, char *err, size_t errlen)
{
	char why[EBID_ERRLEN];

	if (ebid_relocs_check_moved(c->old, c->new, c->plan, why, sizeof(why)))
		return FAIL("%s", why);
	return 0;
}

/*
 * The loaders map the output as they mapped the input: every rule of
 * ebid_loads_hold() that the input's PT_LOADs kept, the output's keep.
 */
static int check_loads(const struct check *c, char *err, size_t errlen)
{
	char why[EBID_ERRLEN];

	if (!ebid_loads_no_worse(c->old->phdrs, c->old->phnum, c->new->phdrs,
				 c->new->phnum, why, sizeof(why)))
		return FAIL("%s", why);
	return 0;
}

static const check_fn result_checks[] = {
	check_size,   check_view,   check_id,    check_counts, check_moves,
	check_relocs, check_shdrs,  check_phdrs, check_loads,
};

int ebid_elf_read_output(struct ebid_elf *new, const struct ebid_src *src,
			 const struct ebid_elf *old,
			 const struct ebid_plan *plan, char *err,
			 size_t errlen)
{
	int ret = ebid_elf_read(new, src, err, errlen);

	if (ret || !(plan->actions & (EBID_ACT_MOVE_NOTE | EBID_ACT_MOVE_HEAD |
				      EBID_ACT_NEW_LOAD)))
		return ret;
	/* new-load's run left the first page: read relocations over it too. */
	if ((plan->actions & EBID_ACT_NEW_LOAD) && old->span_hi > new->span_hi)
		new->span_hi = old->span_hi;
	ret = ebid_elf_read_note_syms(new, src, err, errlen);
	if (ret)
		ebid_elf_release(new);
	return ret;
}

int ebid_check_result(const struct ebid_elf *old, const struct ebid_elf *new,
		      const struct ebid_plan *plan, const unsigned char *id,
		      char *err, size_t errlen)
{
	const struct check c = {
		.old = old, .new = new, .plan = plan, .id = id,
	};

	return run_checks(result_checks, ARRAY_SIZE(result_checks), &c, err,
			  errlen);
}

/*
 * EBID_ACT_MOVE_HEAD, EBID_ACT_NEW_LOAD: the run, byte for byte, at its
 * new place; new-load's old place past the first page is zero.
 */
static int check_run_read_back(const struct ebid_elf *old,
			       const struct ebid_plan *plan,
			       const struct ebid_src *out, char *err,
			       size_t errlen)
{
	unsigned char a[4096], b[4096];
	uint64_t pos, at;
	int ret;

	for (pos = 0; pos < plan->head_size; pos += sizeof(b)) {
		size_t n = plan->head_size - pos < sizeof(b)
				   ? (size_t)(plan->head_size - pos)
				   : sizeof(b);

		at = plan->head_from + pos;
		if ((at + n > old->head_len &&
		     !(plan->actions & EBID_ACT_NEW_LOAD)) ||
		    !ebid_elf_head_bytes(old, at, a, n))
			return FAIL("the moved run is not in the first page (or what was read of the input)");
		ret = ebid_src_read(out, plan->head_to + pos, b, n);
		if (ret)
			return FAIL("cannot read the moved run: %s",
				    ebid_strerror(ret));
		if (memcmp(b, a, n))
			return FAIL("the moved run's bytes are not the same at its new place");
		if (!(plan->actions & EBID_ACT_NEW_LOAD) || at + n <= EBID_PAGE)
			continue;
		at = at > EBID_PAGE ? at : EBID_PAGE;
		n = (size_t)(plan->head_from + pos + n - at);
		ret = ebid_src_read(out, at, b, n);
		if (ret || !ebid_all_zero(b, n))
			return FAIL("the moved run's old place past the first page is not cleared");
	}
	return 0;
}

/*
 * A file with an inserted gap: every byte is the input's where the plan
 * says (the copy moved the rest by the gap), the id aside.
 */
static int check_gap_read_back(const struct ebid_plan *plan,
			       const struct ebid_src *in,
			       const struct ebid_src *out,
			       const unsigned char *id, char *err,
			       size_t errlen)
{
	unsigned char a[4096], b[4096];
	uint64_t pos;
	int ret;

	for (pos = 0; pos < plan->out_size; pos += sizeof(a)) {
		size_t n = plan->out_size - pos < sizeof(a)
				   ? (size_t)(plan->out_size - pos)
				   : sizeof(a), k;

		ret = ebid_read_out(in, plan, pos, a, n);
		if (!ret)
			ret = ebid_src_read(out, pos, b, n);
		if (ret)
			return FAIL("cannot read back: %s", ebid_strerror(ret));
		for (k = 0; k < n; k++) {
			uint64_t at = pos + k;

			if (plan->fill && at >= plan->id_off &&
			    at < plan->id_off + plan->id_len) {
				if (b[k] != id[at - plan->id_off])
					return FAIL("the id at 0x%llx is not the one written",
						    (unsigned long long)at);
				continue;
			}
			if (a[k] != b[k])
				return FAIL("byte 0x%llx differs from the planned output",
					    (unsigned long long)at);
		}
	}
	return 0;
}

int ebid_check_moved_bytes(const struct ebid_elf *old,
			   const struct ebid_plan *plan,
			   const struct ebid_src *in, const struct ebid_src *out,
			   const unsigned char *id, char *err, size_t errlen)
{
	int ret;

	if (!(plan->actions & (EBID_ACT_MOVE_HEAD | EBID_ACT_NEW_LOAD)))
		return 0;
	ret = check_run_read_back(old, plan, out, err, errlen);
	if (ret || !plan->ins_len || !in)
		return ret;
	return check_gap_read_back(plan, in, out, id, err, errlen);
}
