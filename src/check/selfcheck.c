/* SPDX-License-Identifier: MIT */
/* The output's self-check: the file read back is what the plan promised. */
#include <string.h>

#include "internal.h"
#include "elf/layout.h"
#include "elf/relocs.h"
#include "elf/elf.h"
#include "id/id.h"
#include "check/check.h"
#include "plan/plan.h"
#include "check/selfcheck.h"


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
	if (c->new->shnum != c->old->shnum + c->plan->nadded_sh ||
	    c->new->phnum != c->old->phnum + c->plan->nadded_ph)
		return FAIL("header counts are not the planned ones");
	return 0;
}

/*
 * The moving strategies' own checks, one row each, found by the name of
 * the placement that made the plan (plan->placed_by): what the one run it
 * moved must look like in the output, and what to read back of it.
 */
static const struct {
	const char *strategy;
	check_fn check;
	int (*read_back)(const struct ebid_plan *plan,
			 const struct ebid_src *out, char *err, size_t errlen);
} movers[] = {
	{ "move-note", check_move_note, NULL },
	{ "move-head", check_move_head, NULL },
	{ "new-load", check_new_load, check_new_load_read_back },
};

/* The row of the strategy that moved plan's run, or -1 (none moved). */
static int mover_of(const struct ebid_plan *plan)
{
	size_t i;

	for (i = 0; plan->placed_by && i < ARRAY_SIZE(movers); i++)
		if (!strcmp(plan->placed_by, movers[i].strategy))
			return (int)i;
	return -1;
}

/* What a move changed (its strategy's row), or no symbol changed. */
static int check_moves(const struct check *c, char *err, size_t errlen)
{
	const struct ebid_plan *plan = c->plan;
	int m = mover_of(plan);

	if (m >= 0)
		return movers[m].check(c, err, errlen);
	if (plan->nruns)
		return FAIL("the plan moved bytes, but no check knows how ('%s')",
			    plan->placed_by ? plan->placed_by : "?");
	if (c->old->note_syms_read && c->new->note_syms_read &&
	    !check_same_note_syms(c->old, c->new, plan))
		return FAIL("a symbol of a first-page note changed");
	return 0;
}

/* Old section i as the plan must have left it (offsets, moved sections). */
static void expect_shdr(const struct ebid_elf *old,
			const struct ebid_plan *plan, size_t i,
			struct ebid_shdr *e)
{
	const struct ebid_shdr *s = &old->shdrs[i];
	const struct ebid_run *r = NULL;

	*e = *s;
	check_renumber_shdr(plan, e);
	e->offset = ebid_plan_sh_outoff(plan, s);
	if (ebid_plan_moved(plan, old, i))
		r = ebid_plan_run_of(plan, s->offset, s->size);
	if (r) {
		e->offset = ebid_run_to(r) + (s->offset - r->from);
		e->addr += (uint64_t)r->addr_delta;
	}
}

/*
 * Likewise old program header i (but those the plan changed in place,
 * plan->changed_ph): one over bytes of a run moved with it.
 */
static void expect_phdr(const struct ebid_elf *old,
			const struct ebid_plan *plan, size_t i,
			struct ebid_phdr *e)
{
	const struct ebid_run *r = NULL;

	*e = old->phdrs[i];
	if (e->filesz && !ebid_phdr_by_address(e))
		r = ebid_plan_run_of(plan, e->offset, 1);
	e->offset = ebid_plan_outoff(plan, e->offset);
	if (r) {
		e->offset = ebid_run_to(r) + (old->phdrs[i].offset - r->from);
		e->vaddr += (uint64_t)r->addr_delta;
		e->paddr += (uint64_t)r->addr_delta;
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

	if (c->new->shstrndx != ebid_plan_shndx(plan, old->shstrndx))
		return FAIL("e_shstrndx %zu, planned %zu", c->new->shstrndx,
			    ebid_plan_shndx(plan, old->shstrndx));
	for (i = 1; i < old->shnum; i++) {
		size_t to = ebid_plan_shndx(plan, i);
		struct ebid_shdr e;

		expect_shdr(old, plan, i, &e);
		if (to >= c->new->shnum ||
		    !check_same_shdr(&e, &c->new->shdrs[to], i == old->shstrndx))
			return FAIL("section header [%zu] (now [%zu]) changed", i,
				    to);
	}
	return 0;
}

/*
 * A program header the plan changed in place (plan->changed_ph), of the
 * same type: a grown or retargeted one, which the moving strategies'
 * checks and check_view() look at.
 */
static bool phdr_may_change(const struct ebid_plan *plan, size_t i,
			    const struct ebid_phdr *a,
			    const struct ebid_phdr *b)
{
	size_t k;

	for (k = 0; k < plan->nchanged_ph; k++)
		if (plan->changed_ph[k] == i)
			return a->type == b->type;
	return false;
}

/*
 * The new PT_NOTE is where the plan put it, and every program header of
 * the input is in the output as the plan left it.
 */
static int check_phdrs(const struct check *c, char *err, size_t errlen)
{
	const struct ebid_elf *old = c->old, *new = c->new;
	const struct ebid_plan *plan = c->plan;
	size_t i;

	for (i = 0; i < plan->nadded_ph; i++)
		if (plan->added_ph[i] >= new->phnum ||
		    (new->phdrs[plan->added_ph[i]].type != PT_NOTE &&
		     new->phdrs[plan->added_ph[i]].type != PT_LOAD))
			return FAIL("program header [%zu] is not one the plan added",
				    plan->added_ph[i]);
	for (i = 0; i < old->phnum; i++) {
		struct ebid_phdr e;
		const struct ebid_phdr *b = &new->phdrs[check_new_phdr_index(plan, i)];

		expect_phdr(old, plan, i, &e);
		if (!check_same_phdr(&e, b) && !phdr_may_change(plan, i, &e, b))
			return FAIL("program header [%zu] changed", i);
	}
	return 0;
}

/*
 * A move: no relocation of the output (read by ebid_elf_read_output()) is
 * applied in, or points into, the old addresses of what moved (each run's,
 * in the input's PT_LOAD grown_load).
 */
static int check_relocs(const struct check *c, char *err, size_t errlen)
{
	const struct ebid_plan *plan = c->plan;
	char why[EBID_ERRLEN];
	size_t k;

	if (plan->nruns && plan->grown_load >= c->old->phnum)
		return FAIL("the PT_LOAD of the moved bytes is not one of the input");
	for (k = 0; k < plan->nruns; k++) {
		const struct ebid_run *r = &plan->runs[k];
		uint64_t lo = ebid_run_addr(plan, c->old, r);

		if (ebid_relocs_refuse(c->new, lo, lo + r->size,
				       "the moved bytes' old place", why,
				       sizeof(why)))
			return FAIL("%s", why);
	}
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

/*
 * A note the plan added has the section header it planned, at the address
 * where a PT_LOAD maps its bytes: readers by address (gdb, eu-unstrip,
 * eu-elflint) follow sh_addr, and check_shdrs() looks only at the input's
 * sections.
 */
static int check_new_section(const struct check *c, char *err,
			     size_t errlen)
{
	const struct ebid_elf *new = c->new;
	const struct ebid_plan *plan = c->plan;
	uint64_t off = plan->id_off - 16;
	uint64_t size = ebid_gnu_note_size(plan->id_len);
	const struct ebid_shdr *s;
	size_t i;

	if (!plan->nadded_sh)
		return 0;
	if (!new->gnu.shndx || new->gnu.shndx >= new->shnum)
		return FAIL("the new note has no section");
	s = &new->shdrs[new->gnu.shndx];
	if (s->type != SHT_NOTE || s->flags != SHF_ALLOC || s->offset != off ||
	    s->size != size || s->addralign != 4 || s->link || s->info ||
	    s->entsize)
		return FAIL("section header [%zu] of the new note is not the planned one",
			    new->gnu.shndx);
	for (i = 0; i < new->phnum; i++) {
		const struct ebid_phdr *l = &new->phdrs[i];

		if (l->type == PT_LOAD && l->offset <= off &&
		    off + size <= l->offset + l->filesz)
			break;
	}
	if (i == new->phnum ||
	    s->addr != new->phdrs[i].vaddr + (off - new->phdrs[i].offset))
		return FAIL("section header [%zu] of the new note: sh_addr 0x%llx is not where a PT_LOAD maps its bytes",
			    new->gnu.shndx, (unsigned long long)s->addr);
	return 0;
}

static const check_fn result_checks[] = {
	check_size,   check_view,   check_id,    check_counts,
	check_new_section, check_moves, check_relocs, check_shdrs,
	check_phdrs,  check_loads,
};

int ebid_elf_read_output(struct ebid_elf *new, const struct ebid_src *src,
			 const struct ebid_elf *old,
			 const struct ebid_plan *plan, char *err,
			 size_t errlen)
{
	int ret = ebid_elf_read(new, src, err, errlen);

	if (ret || !plan->nruns)
		return ret;
	/* A run that left the first page (new-load's): read relocations over
	 * its old place too. */
	if (old->span_hi > new->span_hi)
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

	return check_run(result_checks, ARRAY_SIZE(result_checks), &c, err,
			  errlen);
}

/*
 * Each run the plan moved, byte for byte, at its new place; its old place
 * past the first page (new-load's) is zero. The first page of the output
 * the checks of ebid_check_result() read already.
 */
static int check_run_read_back(const struct ebid_elf *old,
			       const struct ebid_plan *plan,
			       const struct ebid_run *r,
			       const struct ebid_src *out, char *err,
			       size_t errlen)
{
	unsigned char a[4096], b[4096];
	uint64_t pos, at, to = ebid_run_to(r);
	int ret;

	for (pos = 0; pos < r->size; pos += sizeof(b)) {
		size_t n = r->size - pos < sizeof(b) ? (size_t)(r->size - pos)
						     : sizeof(b);

		at = r->from + pos;
		if (!ebid_elf_head_bytes(old, at, a, n))
			return FAIL("the moved run is not in the first page (or what was read of the input)");
		check_expect_renumbered(old, plan, at, a, n);
		ret = ebid_src_read(out, to + pos, b, n);
		if (ret)
			return FAIL("cannot read the moved run: %s",
				    ebid_strerror(ret));
		if (memcmp(b, a, n))
			return FAIL("the moved run's bytes are not the same at its new place");
		if (at + n <= EBID_PAGE)
			continue;
		at = at > EBID_PAGE ? at : EBID_PAGE;
		n = (size_t)(r->from + pos + n - at);
		ret = ebid_src_read(out, ebid_plan_outoff(plan, at), b, n);
		if (ret || !ebid_all_zero(b, n))
			return FAIL("the moved run's old place past the first page is not cleared");
	}
	return 0;
}

/*
 * The output's bytes [pos, pos + n) as the plan's fields say (ins_at,
 * ins_len, in_size, append, the patches), read from the input in, without
 * the map the writers and the hash share (ebid_output_piece()): a mistake in
 * that map would be made again by a check that walked it.
 */
static int expect_out(const struct ebid_plan *plan, const struct ebid_src *in,
		      uint64_t pos, unsigned char *a, size_t n)
{
	uint64_t gap = plan->ins_len ? plan->ins_at : plan->in_size;
	uint64_t body = plan->in_size + plan->ins_len, end = pos + n, lo, hi;
	size_t i;
	int ret;

	memset(a, 0, n);
	/* Before the gap, and behind it, the input; past the body, the
	 * appended bytes; the gap stays zero. */
	lo = pos;
	hi = end < gap ? end : gap;
	if (lo < hi && (ret = ebid_src_read(in, lo, a, (size_t)(hi - lo))))
		return ret;
	lo = pos > gap + plan->ins_len ? pos : gap + plan->ins_len;
	hi = end < body ? end : body;
	if (lo < hi &&
	    (ret = ebid_src_read(in, lo - plan->ins_len, a + (lo - pos),
				 (size_t)(hi - lo))))
		return ret;
	lo = pos > body ? pos : body;
	if (lo < end)
		memcpy(a + (lo - pos), plan->append + (lo - body),
		       (size_t)(end - lo));
	for (i = 0; i < plan->npatches; i++) {
		const struct ebid_patch *pt = &plan->patches[i];

		lo = pt->off > pos ? pt->off : pos;
		hi = pt->off + pt->len < end ? pt->off + pt->len : end;
		if (lo < hi)
			memcpy(a + (lo - pos), pt->bytes + (lo - pt->off),
			       (size_t)(hi - lo));
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

		ret = expect_out(plan, in, pos, a, n);
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
	int m = mover_of(plan), ret = 0;
	size_t k;

	if (m >= 0 && movers[m].read_back)
		ret = movers[m].read_back(plan, out, err, errlen);
	for (k = 0; !ret && k < plan->nruns; k++)
		ret = check_run_read_back(old, plan, &plan->runs[k], out, err,
					  errlen);
	if (ret || !plan->ins_len || !in)
		return ret;
	return check_gap_read_back(plan, in, out, id, err, errlen);
}
