/* SPDX-License-Identifier: MIT */
/*
 * Strategy "extend-pt-note": a new note in the zero gap right below a
 * PT_NOTE, which grows down over it (Go's layout: the gap below
 * .note.go.buildid). No program header is added.
 */

#include "plan/planner.h"

int strategy_extend_pt_note(struct planner *p, struct refusal *r)
{
	uint64_t len = ebid_gnu_note_size(p->desc_len);
	size_t i;

	for (i = 0; i < p->phnum; i++) {
		const struct ebid_phdr *ph = &p->phdrs[i];
		uint64_t off;

		if (ph->type != PT_NOTE || ph->offset < len || ph->offset % 4)
			continue;
		off = ph->offset - len;
		if (!planner_range_free(p, off, len, true) ||
		    planner_adjacent_pt(p, off, len) != (int)i)
			continue;
		planner_mark(p, off, len, B_CLAIMED);
		p->note_off = off;
		return planner_extend_pt(p, (int)i, off, len);
	}
	return refuse(r, REFUSE_SKIP, "no PT_NOTE has a free gap right below it");
}
