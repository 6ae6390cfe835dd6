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

	if (plan->actions & EBID_ACT_MOVE_NOTE)
		return check_move_note(c, err, errlen);
	if (plan->actions & EBID_ACT_MOVE_HEAD)
		return check_move_head(c, err, errlen);
	if (plan->actions & EBID_ACT_NEW_LOAD)
		return check_new_load(c, err, errlen);
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
	*e = old->shdrs[i];
	check_renumber_shdr(plan, e);
	e->offset = ebid_plan_sh_outoff(plan, &old->shdrs[i]);
	if ((plan->actions & (EBID_ACT_MOVE_HEAD | EBID_ACT_NEW_LOAD)) &&
	    ebid_plan_moved(plan, old, i)) {
		e->offset += check_moved_off_delta(plan);
		e->addr += check_moved_delta(old, plan);
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
		e->offset += check_moved_off_delta(plan);
		e->vaddr += check_moved_delta(old, plan);
		e->paddr += check_moved_delta(old, plan);
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

		if ((plan->actions & EBID_ACT_MOVE_NOTE) &&
		    i == plan->moved_shndx)
			continue;
		expect_shdr(old, plan, i, &e);
		if (to >= c->new->shnum ||
		    !check_same_shdr(&e, &c->new->shdrs[to], i == old->shstrndx))
			return FAIL("section header [%zu] (now [%zu]) changed", i,
				    to);
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
		const struct ebid_phdr *b = &new->phdrs[check_new_phdr_index(plan, i)];

		expect_phdr(old, plan, i, &e);
		if (!check_same_phdr(&e, b) && !phdr_may_change(plan, i, &e, b))
			return FAIL("program header [%zu] changed", i);
	}
	return 0;
}

/* The addresses a moving plan released: [*lo, *lo + *size), or 0 bytes. */
static int moved_old_place(const struct ebid_elf *old,
			   const struct ebid_plan *plan, uint64_t *lo,
			   uint64_t *size, char *err, size_t errlen)
{
	*lo = *size = 0;
	if (plan->actions & EBID_ACT_MOVE_NOTE) {
		if (!plan->moved_shndx || plan->moved_shndx >= old->shnum)
			return FAIL("the moved note is not a section of the input");
		*lo = old->shdrs[plan->moved_shndx].addr;
		*size = plan->moved_size;
	} else if (plan->actions & (EBID_ACT_MOVE_HEAD | EBID_ACT_NEW_LOAD)) {
		if (plan->grown_load >= old->phnum)
			return FAIL("the grown PT_LOAD is not one of the input");
		*lo = old->phdrs[plan->grown_load].vaddr + plan->head_from;
		*size = plan->head_size;
	}
	return 0;
}

/*
 * A move: no relocation of the output (read by ebid_elf_read_output()) is
 * applied in, or points into, the old addresses of what moved.
 */
static int check_relocs(const struct check *c, char *err, size_t errlen)
{
	char why[EBID_ERRLEN];
	uint64_t lo, size;
	int ret;

	ret = moved_old_place(c->old, c->plan, &lo, &size, err, errlen);
	if (ret || !size)
		return ret;
	if (ebid_relocs_refuse(c->new, lo, lo + size,
			       "the moved bytes' old place", why, sizeof(why)))
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

	if (!(plan->actions & EBID_ACT_ADD_NOTE))
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

	return check_run(result_checks, ARRAY_SIZE(result_checks), &c, err,
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

	if (plan->actions & EBID_ACT_NEW_LOAD) {
		ret = ebid_src_read(out, plan->head_to - EBID_NEW_LOAD_LEAD, b,
				    EBID_NEW_LOAD_LEAD);
		if (ret || !ebid_all_zero(b, EBID_NEW_LOAD_LEAD))
			return FAIL("the new PT_LOAD's lead before the moved run is not zero");
	}
	for (pos = 0; pos < plan->head_size; pos += sizeof(b)) {
		size_t n = plan->head_size - pos < sizeof(b)
				   ? (size_t)(plan->head_size - pos)
				   : sizeof(b);

		at = plan->head_from + pos;
		if ((at + n > old->head_len &&
		     !(plan->actions & EBID_ACT_NEW_LOAD)) ||
		    !ebid_elf_head_bytes(old, at, a, n))
			return FAIL("the moved run is not in the first page (or what was read of the input)");
		check_expect_renumbered(old, plan, at, a, n);
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
