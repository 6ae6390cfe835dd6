/* SPDX-License-Identifier: MIT */
/* What the planner (src/plan/) exports to the layers above it (job/): what
 * a plan moved. planner.h is the planner's own. */
#ifndef EBID_PLAN_PLAN_H
#define EBID_PLAN_PLAN_H

#include <elf.h>

#include "internal.h"

/* What a plan does, as bits. */
enum ebid_action {
	EBID_ACT_NONE = 0,
	EBID_ACT_ADD_NOTE = 1 << 0,     /* a new note and section */
	EBID_ACT_FILL = 1 << 1,         /* descriptor filled by hash or --id */
	EBID_ACT_EXTEND_PT = 1 << 2,    /* an existing PT_NOTE grown */
	EBID_ACT_ADD_PT = 1 << 3,       /* a PT_NOTE program header added */
	EBID_ACT_MOVE_SHDRS = 1 << 4,   /* section header table moved */
	EBID_ACT_SHSTRTAB = 1 << 5,     /* section name table changed */
	EBID_ACT_ZERO = 1 << 6,         /* a filled id zeroed (reserve -f) */
	EBID_ACT_MOVE_NOTE = 1 << 7,    /* a first-page note moved into the
					 * first PT_LOAD's padding, its PT_NOTE
					 * retargeted, the PT_LOAD grown */
	EBID_ACT_MOVE_HEAD = 1 << 8,    /* .interp and the notes after the
					 * program headers moved behind the
					 * first PT_LOAD, making room for a new
					 * PT_NOTE and the note */
	EBID_ACT_INSERT = 1 << 9,       /* file offsets from ins_at on moved
					 * up by ins_len (a whole number of
					 * segment alignments) */
	EBID_ACT_NEW_LOAD = 1 << 10,    /* the sections after the program
					 * headers copied into a new read-only
					 * PT_LOAD appended at the end of the
					 * file, making room for it, a new
					 * PT_NOTE and the note */
};

/*
 * A run of the input's bytes that a plan moved: the bytes [from, from +
 * size) of the input are at the output's offset from + off_delta, and the
 * addresses the input's PT_LOAD gave them moved by addr_delta.
 */
struct ebid_run {
	uint64_t from, size;
	int64_t off_delta, addr_delta;
};

#define EBID_RUNS_MAX 2         /* runs a plan may move */
#define EBID_PH_ADDED_MAX 2     /* program headers a plan may add */
#define EBID_PH_CHANGED_MAX 8   /* input program headers it may change */

/*
 * A plan: byte patches over the input, bytes appended at its end, and the
 * descriptor range that the id fills. Patches are sorted and disjoint.
 */
struct ebid_plan {
	unsigned actions;               /* enum ebid_action bits */
	struct ebid_patch *patches;
	size_t npatches, cap;
	unsigned char *append;          /* placed at in_size */
	size_t append_len;
	uint64_t in_size, out_size;
	bool fill;                      /* id_off/id_len are to be filled */
	bool hash;                      /* by hashing (else explicit id bytes) */
	enum ebid_hash_alg alg;
	uint64_t id_off;
	size_t id_len;
	unsigned char id[EBID_MAX_ID];  /* explicit id, or the existing one */
	size_t new_pt;                  /* EBID_ACT_ADD_PT: its index; the
					 * program headers from there on were
					 * one lower */
	/*
	 * A move (runs below): grown_load is the input's PT_LOAD that mapped
	 * the moved bytes (the first; move-note and move-head grow it);
	 * move-note's moved section and its retargeted PT_NOTE; new-load's
	 * PT_LOAD in the output, which holds exactly the run.
	 */
	size_t moved_shndx;
	size_t moved_pt, grown_load;
	size_t new_load;
	/*
	 * EBID_ACT_INSERT: ins_len zero bytes at ins_at in the output; the
	 * input from ins_at on follows them. Patch offsets are the output's.
	 */
	uint64_t ins_at, ins_len;
	/*
	 * What the plan did to the file's layout, as data (docs/hacking.md,
	 * "A plan is data"): the row of the placement table that placed the
	 * note or made it visible ("move-head", "repair-coverage"; NULL when
	 * no placement ran), the program headers it added (their indices in
	 * the output, ascending), the sections it added, the runs it moved.
	 * The self-check, emit, check and the reference fixing read these,
	 * not the action bits.
	 */
	const char *placed_by;
	size_t added_ph[EBID_PH_ADDED_MAX], nadded_ph;
	size_t nadded_sh;
	struct ebid_run runs[EBID_RUNS_MAX];
	size_t nruns;
	/*
	 * The input's program headers that the plan changed in place beyond
	 * what the runs and the gap explain (a PT_NOTE grown or retargeted,
	 * the PT_LOAD grown, PT_PHDR grown over a new header), which the
	 * checks of what changed them look at.
	 */
	size_t changed_ph[EBID_PH_CHANGED_MAX], nchanged_ph;
	/*
	 * The section headers were put in file order, as linkers write them
	 * (plan/order.c): input section i (and the new one, i == shmap_n - 1)
	 * is output section shmap[i]. NULL: every section kept its number,
	 * the new one is last.
	 */
	size_t *shmap;
	size_t shmap_n;
};

/* Where input offset off is in the output of plan. */
static inline uint64_t ebid_plan_outoff(const struct ebid_plan *plan,
					uint64_t off)
{
	return plan->ins_len && off >= plan->ins_at ? off + plan->ins_len
						    : off;
}

/*
 * Where input section i is in the output of plan (i == the input's count:
 * the new section).
 */
static inline size_t ebid_plan_shndx(const struct ebid_plan *plan, size_t i)
{
	return plan->shmap && i < plan->shmap_n ? plan->shmap[i] : i;
}

/* The end of the input's bytes in the output: appended bytes start here. */
static inline uint64_t ebid_plan_body_end(const struct ebid_plan *plan)
{
	return plan->in_size + plan->ins_len;
}


/* Where run r's first byte is in the output's file. */
static inline uint64_t ebid_run_to(const struct ebid_run *r)
{
	return r->from + (uint64_t)r->off_delta;
}

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
