/* SPDX-License-Identifier: MIT */
/*
 * The planner's own interface: its state, the core that owns it (page
 * map, allocator, patches, the inserted gap, the strategy runner) and the
 * placement strategies the core runs in order (docs/hacking.md, "Adding a
 * placement strategy").
 */
#ifndef EBID_PLANNER_H
#define EBID_PLANNER_H

#include <elf.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "internal.h"
#include "plan/plan.h"
#include "elf/layout.h"

/* States of a first-page byte in the planner's map. */
enum {
	B_FREE = 0,     /* zero and used by nothing */
	B_USED,         /* belongs to a header, section or segment */
	B_CLAIMED,      /* the plan writes it */
	B_RELEASED,     /* was ours to move away; free, zeroed unless reused */
	B_DEAD,         /* released and left: zeroed, never reused */
	B_STALE,        /* not zero, but nothing holds it: free, and zeroed
			 * unless reused (planner_map_page()) */
};

/* Where a table that the plan changes ends up. */
enum placement {
	PLACE_KEEP = 0,         /* where it was (grown in place if need be) */
	PLACE_IN_PAGE,          /* moved into a gap of the first page */
	PLACE_APPEND,           /* moved to the end of the file */
};

struct planner {
	const struct ebid_elf *elf;
	const struct ebid_opts *opts;
	struct ebid_plan *plan;
	char *err;
	size_t errlen;

	size_t page;                    /* bytes of the first page in file */
	unsigned char map[EBID_PAGE];
	unsigned char loadable[EBID_PAGE];

	/* The new header set (room for one more of each). */
	struct ebid_phdr *phdrs;        /* room for EBID_PH_ADD_MAX more */
	size_t phnum;
	struct ebid_shdr *shdrs;
	size_t shnum;
	uint64_t shoff;                 /* set at emission for PLACE_APPEND */
	enum placement shdrs_place;
	bool shdrs_released;            /* the old table must move */
	char *shstrtab;                 /* new table when it changes */
	size_t shstrtab_len;
	uint64_t shstrtab_off;          /* likewise */
	enum placement shstrtab_place;
	uint64_t name_off;              /* sh_name of the new section */
	size_t shstrndx;                /* the name table's number, once
					 * order.c numbered the sections */
	bool note_early;                /* prefer_early_note() is trying */

	uint64_t note_off;              /* the GNU note's header */
	size_t desc_len;
};

/* Program headers a plan may add: new-load's PT_LOAD and a PT_NOTE. */
#define EBID_PH_ADD_MAX 2

/* Where the new PT_NOTE is in p->phdrs; it is appended until ordered. */
#define NEW_PT(p) ((p)->plan->new_pt)

/* Where the input's bytes end in the output (appended bytes follow). */
static inline uint64_t body_end(const struct planner *p)
{
	return ebid_plan_body_end(p->plan);
}

/*
 * A strategy's refusal: a code that tells the runner what to do next and
 * the sentence of the rule that refused (a static string: nothing may
 * branch on it).
 */
enum refusal_code {
	REFUSE_NONE = 0,
	/* The layout has nothing this strategy works with: try the next;
	 * the sentence is not part of the final message. */
	REFUSE_SKIP,
	/* A rule refuses: try the next; the sentence joins the message. */
	REFUSE_NEXT,
	/* Refused after the layout was committed to this strategy: no
	 * other is tried; the sentence alone is the message. */
	REFUSE_STOP,
};

struct refusal {
	enum refusal_code code;
	const char *why;
	char buf[EBID_ERRLEN];  /* a sentence made for this file (why may
				 * point here) */
};

/* What a strategy returns when it refuses (r filled); errors are < 0. */
#define PLAN_REFUSED 1

static inline int refuse(struct refusal *r, enum refusal_code code,
			 const char *why)
{
	r->code = code;
	r->why = why;
	return PLAN_REFUSED;
}

/*
 * One placement: 0 when it placed the note (the state changed), or
 * PLAN_REFUSED with r filled (the core restores the whole state), or a
 * negative error code with p->err filled (-ENOMEM included).
 */
typedef int (*strategy_fn)(struct planner *p, struct refusal *r);

struct strategy {
	const char *name;
	strategy_fn try_place;
	/* Put before a REFUSE_NEXT sentence in the final message. */
	const char *lead;
	/*
	 * Puts the note right after the program headers: preferred over an
	 * earlier row whose note patchelf would leave behind (core.c,
	 * patchelf_carries()).
	 */
	bool early_note;
};

/* The tables, in the order they are tried (core.c). */
extern const struct strategy plan_new_note[];
extern const size_t plan_new_note_n;
extern const struct strategy plan_cover_note[];
extern const size_t plan_cover_note_n;

/*
 * Runs table in order on a snapshot of the whole state: the first that
 * places wins (0); an error ends the run; when all refuse, the message
 * is built from their sentences (-EBID_ENOROOM).
 */
int planner_run(struct planner *p, const struct strategy *table, size_t n);

/* core.c: the state and its primitives. */
void planner_map_page(struct planner *p);
int planner_copy_headers(struct planner *p);
int planner_patch(struct planner *p, uint64_t off, const void *bytes,
		  size_t len, const char *what);
int planner_append(struct planner *p, const void *bytes, size_t len,
		   uint64_t align, uint64_t *off);
void planner_mark(struct planner *p, uint64_t off, uint64_t len, int state);
bool planner_range_free(const struct planner *p, uint64_t off, uint64_t len,
			bool need_load);
int64_t planner_alloc(const struct planner *p, uint64_t len, uint64_t align,
		      bool need_load, bool high);
const struct ebid_phdr *planner_load_of(const struct planner *p,
					uint64_t off, uint64_t len);
bool planner_gap_fits(const struct planner *p, uint64_t at, uint64_t ins);
void planner_insert_gap(struct planner *p, uint64_t at, uint64_t ins);
int planner_no_room(struct planner *p, const char *why);
uint64_t planner_described_end(const struct planner *p);
bool planner_grown_clash(const struct ebid_phdr *load,
			 const struct ebid_phdr *o, uint64_t grow_end);

/* tables.c: the program and section header tables, the name table. */
int planner_grow_phdrs(struct planner *p, struct refusal *r);
int planner_new_pt(struct planner *p, uint64_t off, uint64_t len,
		   struct refusal *r);
int planner_adjacent_pt(const struct planner *p, uint64_t off, uint64_t len);
int planner_extend_pt(struct planner *p, int i, uint64_t off, uint64_t len);
int planner_place_shdrs(struct planner *p, size_t add);
int planner_place_name(struct planner *p);

/* refs.c: what else points into a moved range, and its patches. */
struct moved_range {
	uint64_t off_lo, off_hi;        /* the moved sections' file offsets */
	uint64_t addr_lo, len;          /* the addresses they had */
	const char *into_why;           /* another section's symbol points in */
	const char *names_why;          /* a global or dynamic symbol names one */
	const char *what;               /* "the note", "them": for relocations */
};
int refs_check(const struct planner *p, const struct moved_range *m,
	       struct refusal *r);
int refs_check_dynamic(const struct planner *p, const struct moved_range *m,
		       struct refusal *r);
int refs_patch(struct planner *p, const struct moved_range *m, uint64_t delta,
	       uint64_t next, uint64_t ins);
int refs_patch_dynamic(struct planner *p, const struct moved_range *m,
		       uint64_t delta, uint64_t next, uint64_t ins);
bool refs_sym_in(const struct ebid_symref *r, const struct ebid_shdr *s);
size_t refs_dyn_count(const struct ebid_elf *elf, const struct ebid_shdr *s);
const struct ebid_symref *refs_sym_at(const struct planner *p, uint64_t off);

/*
 * What move-head (and new-load) found and does. The run after the
 * program headers and its rules are run.c's (head_find()), shared.
 */
struct head_move {
	struct ebid_phdr *load;         /* the first PT_LOAD */
	size_t li;                      /* its index */
	uint64_t phend, run_end;        /* the run: [phend, run_end) */
	uint64_t align;                 /* the largest alignment in it */
	size_t n, tables;               /* sections in it, dynamic tables */
	uint64_t delta, dest, dest_end; /* where it goes */
	uint64_t grow_end;              /* the first PT_LOAD's new end */
	uint64_t next;                  /* what follows the first PT_LOAD */
	uint64_t ins;                   /* the gap inserted at next, or 0 */
	size_t nph;                     /* program headers the freed bytes
					 * must take (1; new-load: 2) */
	bool past_page;                 /* the run may leave the first page
					 * (new-load) */
	bool note_early;                /* the freed bytes take the note too
					 * (core.c, prefer_early_note()) */
	bool all_tables;                /* every dynamic table that follows
					 * joins the run (move_head.c) */
};

/*
 * The run after the program headers and every rule of it that move-head
 * and new-load share (--no-move, its sections, contents, headers,
 * symbols, relocations and dynamic entries): 0 with h and range filled,
 * or a refusal. h->nph, h->past_page and h->note_early are the caller's.
 */
int head_find(struct planner *p, struct head_move *h,
	      struct moved_range *range, struct refusal *r);
void head_shift_headers(struct planner *p, const struct head_move *h,
			uint64_t doff, uint64_t daddr);

/*
 * Records that the plan moved [from, from + size) of the input to the
 * output's offset to, its addresses addr_delta further on (plan->runs).
 */
int planner_moved_run(struct planner *p, uint64_t from, uint64_t size,
		      uint64_t to, int64_t addr_delta);

/* Records that the plan changes input program header i (plan->changed_ph). */
int planner_changed_ph(struct planner *p, size_t i);

/* The start of a move: --no-move, and the first PT_LOAD it grows. */
int planner_move_start(struct planner *p, const char *no_move_why,
		       struct ebid_phdr **load, size_t *li, struct refusal *r);

/* existing.c: a note that is there. */
int plan_existing(struct planner *p);

/*
 * order.c: the section headers in the linkers' order, every index the
 * file holds renumbered (plan->shmap); and whether patch pt is exactly
 * that renumbering of input section shndx's bytes.
 */
int planner_order_shdrs(struct planner *p);
bool planner_input_in_order(const struct planner *p);
bool planner_renumbered_own(const struct planner *p,
			    const struct ebid_patch *pt, size_t shndx);

/* emit.c and check.c. */
int planner_emit(struct planner *p);
int planner_check(struct planner *p);

/* The strategies (one file each). */
int strategy_repair_coverage(struct planner *p, struct refusal *r);
int strategy_extend_pt_note(struct planner *p, struct refusal *r);
int strategy_add_pt_note(struct planner *p, struct refusal *r);
int strategy_move_note(struct planner *p, struct refusal *r);
int strategy_move_head(struct planner *p, struct refusal *r);
int strategy_new_load(struct planner *p, struct refusal *r);

#endif
