/* SPDX-License-Identifier: MIT */
/* What the planner (src/plan/) exports to the layers above it (job/): what
 * a plan moved. planner.h is the planner's own. */
#ifndef EBID_PLAN_PLAN_H
#define EBID_PLAN_PLAN_H

#include <elf.h>

#include "internal.h"

/*
 * The plan's new bytes with id (its id_len bytes, when the plan fills the
 * id) as an edit: the patches, the appended bytes, then the id. The
 * ranges point into plan and id, which must outlive e; release it with
 * ebid_edit_release(). 0 or -ENOMEM.
 */
int ebid_plan_edit(const struct ebid_plan *plan, const unsigned char *id,
		   struct ebid_edit *e);
void ebid_edit_release(struct ebid_edit *e);

/* The run of plan that holds the input's bytes [off, off + len), or NULL. */
static inline const struct ebid_run *ebid_plan_run_of(const struct ebid_plan *plan,
						       uint64_t off,
						       uint64_t len)
{
	size_t i;

	for (i = 0; i < plan->nruns; i++) {
		const struct ebid_run *r = &plan->runs[i];

		if (off >= r->from && len <= r->size &&
		    off - r->from <= r->size - len)
			return r;
	}
	return NULL;
}

/*
 * The input's address of run r's first byte: every run lies in the input's
 * PT_LOAD grown_load (the one that maps the start of the file).
 */
static inline uint64_t ebid_run_addr(const struct ebid_plan *plan,
				     const struct ebid_elf *elf,
				     const struct ebid_run *r)
{
	const struct ebid_phdr *l = &elf->phdrs[plan->grown_load];

	return l->vaddr + (r->from - l->offset);
}

/*
 * Did the plan move section shndx of elf (does a run of plan->runs hold
 * it)?
 */
bool ebid_plan_moved(const struct ebid_plan *plan, const struct ebid_elf *elf,
		     size_t shndx);

/*
 * Did the plan move symbol r of elf with its section (a symbol of a moved
 * section that points into it, or at its end)?
 */
bool ebid_plan_sym_moves(const struct ebid_plan *plan,
			 const struct ebid_elf *elf,
			 const struct ebid_symref *r);

/*
 * new-load's PT_LOAD starts this many zero bytes before the run, so that
 * no other segment (the run's PT_INTERP, its PT_NOTE) starts where it
 * does: llvm-objcopy makes the segment with the lower index the parent of
 * a tie, and lays the PT_LOAD out by its PT_INTERP's alignment of 1
 * (docs/rewriters.md).
 */
#define EBID_NEW_LOAD_LEAD 16

/*
 * Where section s of the input is in the output's file: past an inserted
 * gap, moved with what follows it, but for new-load's allocated sections
 * at the gap's very offset (.bss, an empty .tm_clone_table), which end
 * the segment before the gap and stay with it.
 */
static inline uint64_t ebid_plan_sh_outoff(const struct ebid_plan *plan,
					   const struct ebid_shdr *s)
{
	if ((plan->actions & EBID_ACT_NEW_LOAD) && plan->ins_len &&
	    (s->flags & SHF_ALLOC) && s->offset == plan->ins_at)
		return s->offset;
	return ebid_plan_outoff(plan, s->offset);
}

/* Is the value of a dynamic entry with this tag an address (d_ptr)? */
bool ebid_dyn_is_addr(uint64_t tag);

#endif
