/* SPDX-License-Identifier: MIT */
/*
 * The self-check's table of new-load (new_load.c): what an output of the
 * strategy must be.
 */
#include <string.h>

#include "internal.h"
#include "elf/elf.h"
#include "plan/plan.h"
#include "check/selfcheck.h"

/*
 * new-load: the run after the program headers was copied into a
 * gap inserted before the sections no segment holds, or to the end of the
 * file (ebid_check_moved_bytes() reads it back, and its old
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
	if (check_one_run(c, err, errlen))
		return -EBID_EVERIFY;
	if (c->li >= old->phnum || plan->nadded_ph != 2 ||
	    new->phnum != old->phnum + 2 || plan->new_pt >= new->phnum ||
	    plan->new_load >= new->phnum || plan->new_load == plan->new_pt ||
	    (plan->added_ph[0] != plan->new_pt &&
	     plan->added_ph[0] != plan->new_load) ||
	    (plan->added_ph[1] != plan->new_pt &&
	     plan->added_ph[1] != plan->new_load))
		return FAIL("the new PT_LOAD's headers are not the planned ones");
	c->nli = check_new_phdr_index(plan, c->li);
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

	const struct ebid_plan *plan = c->plan;
	/* Into the gap inserted before the non-allocated sections, or
	 * appended. */
	uint64_t lo = plan->ins_len ? plan->ins_at : plan->in_size;
	uint64_t hi = plan->ins_len ? plan->ins_at + plan->ins_len
				    : c->new->file_size;

	if (c->from != old->phoff + old->phnum * c->ent || !c->size ||
	    c->from + c->size > c->ol->filesz ||
	    c->to < lo + EBID_NEW_LOAD_LEAD || c->to + c->size > hi ||
	    !check_same_phdr(c->ol, c->nl))
		return FAIL("the moved run is not the bytes after the program headers, in the inserted gap or appended, the first PT_LOAD unchanged");
	return 0;
}

/*
 * The new PT_LOAD: read-only, exactly the run and its zero lead, offset
 * congruent to address.
 */
static int load_new_segment(const struct check *c, char *err, size_t errlen)
{
	const struct ebid_phdr *l = c->load;
	const uint64_t lead = EBID_NEW_LOAD_LEAD;

	if (l->type != PT_LOAD || l->flags != PF_R ||
	    l->offset != c->to - lead || l->filesz != c->size + lead ||
	    l->memsz != l->filesz || l->vaddr != ebid_run_addr(c->plan, c->old, &c->plan->runs[0]) +
				 (uint64_t)c->addr_delta - lead ||
	    l->paddr != l->vaddr ||
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
	load_run_place,
	load_new_segment,
	load_others_clear,
	check_run_new_note,
	check_run_old_place_cleared,
	check_run_syms_moved,
	check_run_dyn_moved,
};

/* new-load's output: the new PT_LOAD's headers, then the table. */
int check_new_load(const struct check *c, char *err, size_t errlen)
{
	return check_steps(c, new_load_headers, new_load_checks, ARRAY_SIZE(new_load_checks), err,
			   errlen);
}

/* The 16 zero bytes before the run at its new place (EBID_NEW_LOAD_LEAD). */
int check_new_load_read_back(const struct ebid_plan *plan,
			     const struct ebid_src *out, char *err,
			     size_t errlen)
{
	unsigned char b[EBID_NEW_LOAD_LEAD];
	uint64_t to = plan->nruns ? ebid_run_to(&plan->runs[0]) : 0;
	int ret;

	if (plan->nruns != 1 || to < sizeof(b))
		return FAIL("new-load's run is not the planned one");
	ret = ebid_src_read(out, to - sizeof(b), b, sizeof(b));
	if (ret || !ebid_all_zero(b, sizeof(b)))
		return FAIL("the new PT_LOAD's lead before the moved run is not zero");
	return 0;
}
