/* SPDX-License-Identifier: MIT */
/*
 * What the self-check of an output (check/selfcheck.c) asks of the moving
 * strategies: each one's check table lives beside its placement code
 * (move_note_check.c, move_head_check.c, new_load_check.c), and what they
 * share in selfcheck_common.c. These files judge the output against the
 * input and the plan's recorded fields only, never the planner's state or
 * rules, so that a planner's mistake is not repeated by its check.
 */
#ifndef EBID_PLAN_SELFCHECK_H
#define EBID_PLAN_SELFCHECK_H

#include "internal.h"

/*
 * Every property is one function: 0, or the refusal in err. To check one
 * more, add a function and its row in the table of the step it belongs
 * to: result_checks (check/selfcheck.c, every output), note_move_checks
 * (move_note_check.c), head_move_checks (move_head_check.c),
 * new_load_checks (new_load_check.c).
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
	/* The moved bytes (the plan's one run): [from, from + size) went to
	 * to, their addresses addr_delta further on. */
	uint64_t from, to, size;
	int64_t addr_delta;
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

/* selfcheck_common.c: what the moving strategies' checks share. */
int check_run(const check_fn *fns, size_t n, const struct check *c,
	      char *err, size_t errlen);
/*
 * A strategy's checks: first, its step that finds the headers it moved
 * (it fills a copy of c's move fields), then its table.
 */
typedef int (*check_step)(struct check *c, char *err, size_t errlen);
int check_steps(const struct check *c, check_step first, const check_fn *fns,
		size_t n, char *err, size_t errlen);
/* The same header, field by field (moved_ok: but offset and size). */
bool check_same_shdr(const struct ebid_shdr *a, const struct ebid_shdr *b,
		     bool moved_ok);
bool check_same_phdr(const struct ebid_phdr *a, const struct ebid_phdr *b);
/*
 * Section numbers across a plan that renumbered them (plan->shmap): an
 * input header's indices as the output must hold them, and the input
 * section that output section shndx was.
 */
void check_renumber_shdr(const struct ebid_plan *plan, struct ebid_shdr *e);
size_t check_old_shndx(const struct ebid_plan *plan, size_t shndx);
/* a: the input's bytes [at, at + n), made what the output must hold. */
void check_expect_renumbered(const struct ebid_elf *old,
			     const struct ebid_plan *plan, uint64_t at,
			     unsigned char *a, size_t n);
/*
 * A moving strategy's first step: the plan moved one run; c's from, to,
 * size and addr_delta are it.
 */
int check_one_run(struct check *c, char *err, size_t errlen);
size_t check_new_phdr_index(const struct ebid_plan *plan, size_t i);
bool check_same_note_syms(const struct ebid_elf *old,
			  const struct ebid_elf *new,
			  const struct ebid_plan *plan);
bool check_load_grew_to(const struct ebid_phdr *ol,
			const struct ebid_phdr *nl, uint64_t end);
bool check_load_reaches_growth(const struct ebid_phdr *o,
			       const struct ebid_phdr *ol,
			       const struct ebid_phdr *nl, uint64_t end);
/* The moved run's checks, move-head's and new-load's. */
int check_run_new_note(const struct check *c, char *err, size_t errlen);
int check_run_old_place_cleared(const struct check *c, char *err,
				size_t errlen);
int check_run_syms_moved(const struct check *c, char *err, size_t errlen);
int check_run_dyn_moved(const struct check *c, char *err, size_t errlen);

/*
 * Each moving strategy's checks of an output c (old, new, plan and id
 * set): its first step finds the headers it moved, then its table runs.
 */
int check_move_note(const struct check *c, char *err, size_t errlen);
int check_move_head(const struct check *c, char *err, size_t errlen);
int check_new_load(const struct check *c, char *err, size_t errlen);
/* new-load's bytes read back from the output: the lead before its run. */
int check_new_load_read_back(const struct ebid_plan *plan,
			     const struct ebid_src *out, char *err,
			     size_t errlen);

#endif
