/* SPDX-License-Identifier: MIT */
/*
 * Strategy "repair-coverage": a GNU note that is there but that the
 * kernel does not see gets a PT_NOTE over it, one that grows or one of
 * its own.
 */
#include "plan/planner.h"
#include "elf/elf.h"

int strategy_repair_coverage(struct planner *p, struct refusal *r)
{
	const struct ebid_note *g = &p->elf->gnu;
	uint64_t len = g->note_size;
	int i, ret;

	if (g->note_off % 4 || g->note_off + len > p->page)
		return refuse(r, REFUSE_NEXT, "the existing note lies beyond the first page, where the kernel cannot read it");
	/*
	 * A note inside a PT_NOTE that the kernel's 4-byte walk does not
	 * reach (8-aligned notes before it): a second PT_NOTE over it would
	 * overlap that one. docs/build-id.md: refused.
	 */
	i = ebid_note_container(p->elf);
	if (i >= 0 && g->pt_index < 0)
		return refuse(r, REFUSE_NEXT, "the note lies in a PT_NOTE whose notes the kernel walks at another alignment");
	i = planner_adjacent_pt(p, g->note_off, len);
	if (i >= 0)
		return planner_extend_pt(p, i, g->note_off, len);
	if (g->pt_index >= 0)
		return refuse(r, REFUSE_NEXT, "the note's PT_NOTE cannot be made visible to the kernel");
	ret = planner_grow_phdrs(p, r);
	if (!ret)
		ret = planner_new_pt(p, g->note_off, len, r);
	if (!ret)
		ret = planner_place_shdrs(p, 0);
	return ret;
}
