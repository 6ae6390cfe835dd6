/* SPDX-License-Identifier: MIT */
/*
 * Strategy "move-head" (docs/build-id.md). Where the program headers are
 * followed, packed, by .interp and the notes and nothing else in the
 * first page is free (lld, mold, a Go or C program linked externally
 * whose first PT_LOAD runs past the first page), that run of sections
 * moves whole behind the end of the first PT_LOAD, which grows over it;
 * each of its PT_INTERP, PT_NOTE and PT_GNU_PROPERTY headers and its
 * local symbols move with it. The freed bytes take one more program
 * header and the new note, so the kernel finds the id in the first page.
 * Where the next segment starts right behind the first PT_LOAD (lld and
 * mold pack the file), the file gets a gap of one segment alignment there
 * first (planner_insert_gap(), "insert-gap"), which keeps every address.
 * The rule that makes it safe: no loaded code or data moves and no
 * address changes but those of the moved sections, which no code
 * addresses (the kernel and the dynamic loader find them through their
 * program headers), and the bytes the first PT_LOAD grows over were zero
 * padding that nothing used, before every other segment in the file and
 * in memory.
 */
#include <string.h>

#include "plan/planner.h"
#include "elf/elf.h"

/* Where the run goes: behind the first PT_LOAD, its alignment kept. */
static int head_dest(const struct planner *p, struct head_move *h,
		     struct refusal *r)
{
	uint64_t len = ebid_gnu_note_size(p->desc_len);
	size_t ent = ebid_phent(p->elf->elfclass);

	h->delta = ebid_align_up(h->load->filesz - h->phend, h->align);
	h->dest = h->phend + h->delta;
	h->dest_end = h->run_end + h->delta;
	/*
	 * The freed bytes take the new program header, and the note when it
	 * fits there too; otherwise the note goes right behind the moved
	 * run, which must then end in the first page.
	 */
	h->grow_end = h->dest_end;
	if (ebid_align_up(h->phend + ent, 4) + len > h->run_end) {
		h->grow_end = ebid_align_up(h->dest_end, 4) + len;
		if (h->grow_end > EBID_PAGE)
			return refuse(r, REFUSE_NEXT, "too few bytes free for a program header and the note, and the first PT_LOAD runs past the first page");
	}
	return 0;
}

/*
 * What follows the first PT_LOAD in the file (h->next); nothing may run on
 * past its end or clash with it grown.
 */
static int head_next(const struct planner *p, struct head_move *h,
		     struct refusal *r)
{
	const struct ebid_elf *elf = p->elf;
	const struct ebid_phdr *load = h->load;
	size_t i;

	h->next = UINT64_MAX;
	for (i = 0; i < p->phnum; i++) {
		const struct ebid_phdr *o = &p->phdrs[i];

		if (i == h->li || (!o->filesz && !o->memsz))
			continue;
		/* No gap moves it, so it would start inside the grown one. */
		if (o->type == PT_LOAD && o->offset < load->filesz)
			return refuse(r, REFUSE_NEXT, "another PT_LOAD starts in the file inside the first one");
		if (o->offset >= load->filesz && o->offset < h->next)
			h->next = o->offset;
		if (planner_grown_clash(load, o, h->grow_end))
			return refuse(r, REFUSE_NEXT, "the grown first PT_LOAD would overlap another segment's addresses");
		if (ebid_phdr_by_address(o))
			continue;
		if (o->offset < load->filesz && o->offset + o->filesz > load->filesz)
			return refuse(r, REFUSE_NEXT, "a segment runs on past the end of the first PT_LOAD");
	}
	for (i = 1; i < elf->shnum; i++) {
		const struct ebid_shdr *s = &elf->shdrs[i];

		if (s->type == SHT_NOBITS || !s->size)
			continue;
		if (s->offset >= load->filesz && s->offset < h->next)
			h->next = s->offset;
		if (s->offset < load->filesz && s->offset + s->size > load->filesz)
			return refuse(r, REFUSE_NEXT, "a section runs on past the end of the first PT_LOAD");
	}
	if (elf->shnum && elf->shoff >= load->filesz && elf->shoff < h->next)
		h->next = elf->shoff;
	if (h->next > elf->file_size)
		h->next = elf->file_size;
	return 0;
}

/*
 * No room behind the first PT_LOAD: a gap of one segment alignment at
 * h->next (h->ins), which the rest of the file must be able to take.
 */
static int head_gap(const struct planner *p, struct head_move *h,
		    struct refusal *r)
{
	const struct ebid_elf *elf = p->elf;
	size_t i;

	h->ins = EBID_PAGE;
	for (i = 0; i < p->phnum; i++)
		if (p->phdrs[i].type == PT_LOAD && p->phdrs[i].align > h->ins)
			h->ins = p->phdrs[i].align;
	if (h->ins & (h->ins - 1) || h->ins > (64u << 10))
		return refuse(r, REFUSE_NEXT, "the segments' alignment is not a power of two up to 64 KiB");
	for (i = 1; i < elf->shnum; i++)
		if (elf->shdrs[i].addralign > h->ins &&
		    elf->shdrs[i].offset >= h->next)
			return refuse(r, REFUSE_NEXT, "a section behind the first PT_LOAD is aligned to more than a segment");
	if (h->grow_end > h->next + h->ins)
		return refuse(r, REFUSE_NEXT, "too many bytes to move behind the first PT_LOAD");
	/*
	 * Bytes no header describes at the end (an appended payload, a
	 * self-extracting archive) may name their own file offsets, which a
	 * gap would break.
	 */
	if (planner_described_end(p) < elf->file_size)
		return refuse(r, REFUSE_NEXT, "data follows everything the headers describe (an appended payload?), and a gap would move it");
	if (!planner_gap_fits(p, h->next, h->ins))
		return refuse(r, REFUSE_NEXT, "a file offset behind the gap would not fit the ELF class's offset field");
	return 0;
}

/* The bytes the first PT_LOAD grows over are zero padding, or a gap. */
static int head_room(const struct planner *p, struct head_move *h,
		     struct refusal *r)
{
	uint64_t j;
	int ret;

	ret = head_dest(p, h, r);
	if (!ret)
		ret = head_next(p, h, r);
	if (ret)
		return ret;
	for (j = h->load->filesz; j < h->next && j < h->grow_end; j++)
		if (!ebid_elf_byte_zero(p->elf, j))
			return refuse(r, REFUSE_NEXT, "the bytes after the first PT_LOAD are not zero padding");
	if (h->grow_end > h->next)
		return head_gap(p, h, r);
	return 0;
}

/* The plan: the run's bytes, its symbols and dynamic entries, the gap. */
static int head_apply(struct planner *p, const struct head_move *h,
		      const struct moved_range *range)
{
	const struct ebid_elf *elf = p->elf;
	uint64_t j;
	int ret;

	ret = planner_patch(p, h->dest, elf->head + h->phend,
			    (size_t)(h->run_end - h->phend),
			    "moved sections (new place)");
	if (!ret)
		ret = refs_patch(p, range, h->delta, h->next, h->ins);
	if (!ret && h->tables)
		ret = refs_patch_dynamic(p, range, h->delta, h->next, h->ins);
	if (ret)
		return ret;
	if (h->ins)
		planner_insert_gap(p, h->next, h->ins);
	planner_mark(p, h->phend, h->run_end - h->phend, B_RELEASED);
	planner_mark(p, h->load->filesz, h->dest_end - h->load->filesz,
		     B_CLAIMED);
	for (j = h->load->filesz; j < h->grow_end && j < p->page; j++)
		p->loadable[j] = 1;
	head_shift_headers(p, h, h->delta, h->delta);
	h->load->filesz = h->load->memsz = h->grow_end;
	p->plan->actions |= EBID_ACT_MOVE_HEAD;
	p->plan->grown_load = h->li;
	ret = planner_changed_ph(p, h->li);
	if (ret)
		return ret;
	return planner_moved_run(p, h->phend, h->run_end - h->phend, h->dest,
				 (int64_t)h->delta);
}

/*
 * After the move and the new program header: the note goes into the
 * freed bytes when it fits there, else right behind the moved run (which
 * head_apply() made loadable for it). The rest of the freed bytes stays
 * zero: no table moves in there (B_DEAD).
 */
static int place_head_note(struct planner *p, struct refusal *r)
{
	const struct ebid_run *run = &p->plan->runs[p->plan->nruns - 1];
	uint64_t len = ebid_gnu_note_size(p->desc_len);
	uint64_t end = run->from + run->size, off, i;

	off = ebid_align_up(run->from + ebid_phent(p->elf->elfclass), 4);
	if (off + len > end)
		off = ebid_align_up(ebid_run_to(run) + run->size, 4);
	if (!planner_range_free(p, off, len, true))
		return ebid_err(p->err, p->errlen, -EBID_EVERIFY,
				"internal error: no room for the note where move-head made it");
	planner_mark(p, off, len, B_CLAIMED);
	for (i = run->from; i < end && i < p->page; i++)
		if (p->map[i] == B_RELEASED)
			p->map[i] = B_DEAD;
	p->note_off = off;
	return planner_new_pt(p, off, len, r);
}

/* Every rule of move-head, in order: 0, or a refusal. */
static int head_rule(struct planner *p, struct head_move *h,
		     struct moved_range *range, struct refusal *r)
{
	int ret;

	h->nph = 1;
	h->note_early = p->note_early;
	ret = head_find(p, h, range, r);
	if (!ret)
		ret = head_room(p, h, r);
	return ret;
}

/*
 * Where the note goes in front for patchelf (p->note_early: a non-PIE
 * program, rewriteSectionsExecutable()), the run takes every dynamic
 * table that follows, not only as many as free the bytes: then the
 * section after the note, in file order, is .interp at its new place or
 * code, so patchelf --set-interpreter rewrites just the note and .interp
 * in front, as on a linker's output. Moving only .interp and the notes
 * left the tables between, and patchelf, rewriting every section up to
 * .dynstr, ran out of room and shifted the file a page, mapping a new
 * first page read-write (docs/rewriters.md). A refusal of the longer run
 * (a table no DT_ entry names once, say) falls back to the shorter one.
 */
static int head_rule_for(struct planner *p, struct head_move *h,
			 struct moved_range *range, struct refusal *r)
{
	int ret;

	if (p->note_early) {
		h->all_tables = true;
		ret = head_rule(p, h, range, r);
		if (ret != PLAN_REFUSED)
			return ret;
		*h = (struct head_move){ 0 };
		memset(r, 0, sizeof(*r));
	}
	return head_rule(p, h, range, r);
}

int strategy_move_head(struct planner *p, struct refusal *r)
{
	struct head_move h = { 0 };
	struct moved_range range;
	int ret;

	ret = head_rule_for(p, &h, &range, r);
	if (!ret)
		ret = head_apply(p, &h, &range);
	if (ret)
		return ret;
	/* Committed: a refusal from here on ends the search. */
	ret = planner_grow_phdrs(p, r);
	if (!ret)
		ret = place_head_note(p, r);
	if (ret == PLAN_REFUSED)
		r->code = REFUSE_STOP;
	return ret;
}
