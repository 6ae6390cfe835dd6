/* SPDX-License-Identifier: MIT */
/*
 * Strategy "add-pt-note": one more program header, a PT_NOTE of the new
 * note's own, and the note in a zero gap of the first page, as high as it
 * fits.
 */
#include "plan/planner.h"

int strategy_add_pt_note(struct planner *p, struct refusal *r)
{
	uint64_t len = ebid_gnu_note_size(p->desc_len);
	int64_t off;
	int ret;

	/* Without one more program header, a note may move instead. */
	ret = planner_grow_phdrs(p, r);
	if (ret)
		return ret;
	off = planner_alloc(p, len, 4, true, true);
	if (off < 0)
		return refuse(r, REFUSE_STOP, "no zero gap in the first page for the note");
	planner_mark(p, (uint64_t)off, len, B_CLAIMED);
	p->note_off = (uint64_t)off;
	return planner_new_pt(p, (uint64_t)off, len, r);
}
