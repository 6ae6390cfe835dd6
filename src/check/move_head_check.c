/* SPDX-License-Identifier: MIT */
/*
 * The self-check's table of move-head (move_head.c): what an output of the
 * strategy must be.
 */
#include <stdlib.h>
#include <string.h>

#include "internal.h"
#include "elf/elf.h"
#include "plan/plan.h"
#include "check/selfcheck.h"

/*
 * move-head: the first PT_LOAD grew (p_filesz and p_memsz only)
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
	if (check_one_run(c, err, errlen))
		return -EBID_EVERIFY;
	if (c->li >= old->phnum || plan->nadded_ph != 1 ||
	    plan->added_ph[0] != plan->new_pt ||
	    new->phnum != old->phnum + 1 || plan->new_pt >= new->phnum ||
	    c->addr_delta != (int64_t)(c->to - c->from))
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

	if (!check_load_grew_to(c->ol, c->nl, c->end) ||
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
		if (check_load_reaches_growth(o, c->ol, c->nl, c->end))
			return FAIL("the grown first PT_LOAD reaches another segment");
	}
	return 0;
}

/* The part of the run that is in the output's first page. */
static int head_run_bytes(const struct check *c, char *err, size_t errlen)
{
	const struct ebid_elf *old = c->old, *new = c->new;
	size_t n = (size_t)c->size;
	unsigned char *a;
	bool same;

	if (c->to + n > new->head_len)
		n = c->to < new->head_len ? new->head_len - (size_t)c->to : 0;
	if (c->from + n > old->head_len)
		return FAIL("the moved run is not in the input's first page");
	a = malloc(n ? n : 1);
	if (!a)
		return FAIL("out of memory");
	memcpy(a, old->head + c->from, n);
	check_expect_renumbered(old, c->plan, c->from, a, n);
	same = !memcmp(a, new->head + c->to, n);
	free(a);
	if (!same)
		return FAIL("the moved run's bytes are not the same at its new place");
	return 0;
}

static const check_fn head_move_checks[] = {
	head_run_place,
	head_load_grew,
	head_grown_were_zero,
	head_others_clear,
	check_run_new_note,
	check_run_old_place_cleared,
	head_run_bytes,
	check_run_syms_moved,
	check_run_dyn_moved,
};

/* move-head's output: the run's headers, then the table. */
int check_move_head(const struct check *c, char *err, size_t errlen)
{
	return check_steps(c, head_move_headers, head_move_checks, ARRAY_SIZE(head_move_checks), err,
			   errlen);
}
