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

/*
 * The run, in file order from the program headers: .interp and the
 * notes, then dynamic tables (.gnu.hash, .dynsym, ...) only while the
 * bytes freed so far cannot take a program header. Where the note cannot
 * go behind the first PT_LOAD in the first page (it runs past it, or ends
 * too close to its end), the freed bytes must take the note too, so
 * tables join until they take both. new-load's freed bytes take two
 * program headers and always the note.
 */
static bool head_wants_table(const struct planner *p,
			     const struct head_move *h, uint64_t off)
{
	uint64_t len = ebid_gnu_note_size(p->desc_len);
	uint64_t ent = ebid_phent(p->elf->elfclass) * h->nph;

	if (off - h->phend < ent)
		return true;
	return (h->past_page || h->load->filesz + len > EBID_PAGE) &&
	       ebid_align_up(h->phend + ent, 4) + len > off;
}

static int head_sections(const struct planner *p, struct head_move *h,
			 struct refusal *r)
{
	const struct ebid_elf *elf = p->elf;
	size_t cand[EBID_HEAD_CAND_MAX];
	size_t ncand, k;

	switch (ebid_head_run(elf, h->phend, false, cand, &ncand)) {
	case EBID_RUN_OVERLAP:
		return refuse(r, REFUSE_NEXT, "a section overlaps the program headers");
	case EBID_RUN_FULL:
		return refuse(r, REFUSE_NEXT, "too many sections in the first page");
	case EBID_RUN_OK:
		break;
	}
	for (k = 0; k < ncand; k++) {
		const struct ebid_shdr *s = &elf->shdrs[cand[k]];
		uint64_t tag;
		enum ebid_movable kind = ebid_movable(s, &tag);
		bool run = kind == EBID_MOVE_RUN && s->addralign <= 8;
		bool table = kind == EBID_MOVE_TABLE;

		if (!run && !(table && head_wants_table(p, h, s->offset)))
			break;
		if (s->offset < h->run_end)
			return refuse(r, REFUSE_NEXT, "sections overlap among them");
		if (s->addr != h->load->vaddr + s->offset)
			return refuse(r, REFUSE_NEXT, "a note or .interp is not mapped where the first PT_LOAD maps its bytes");
		if (table && (s->addralign > 8 || refs_dyn_count(elf, s) != 1))
			return refuse(r, REFUSE_NEXT, "a dynamic table to move is not named once by its DT_ entry (or the dynamic table is unreadable)");
		h->run_end = s->offset + s->size;
		if (s->addralign > h->align)
			h->align = s->addralign;
		h->n++;
		h->tables += table;
	}
	return 0;
}

/* Is byte j of the first page inside a section? */
static bool in_section(const struct ebid_elf *elf, uint64_t j)
{
	size_t sec;

	for (sec = 1; sec < elf->shnum; sec++) {
		const struct ebid_shdr *s = &elf->shdrs[sec];

		if (s->type != SHT_NOBITS && j >= s->offset &&
		    j < s->offset + s->size)
			return true;
	}
	return false;
}

/* The run holds sections only, in the first PT_LOAD, nothing else. */
static int head_contents(const struct planner *p, const struct head_move *h,
			 struct refusal *r)
{
	const struct ebid_elf *elf = p->elf;
	uint64_t j;
	size_t i;

	if (elf->shoff < h->run_end &&
	    elf->shoff + (uint64_t)elf->shnum * ebid_shent(elf->elfclass) >
		    h->phend)
		return refuse(r, REFUSE_NEXT, "the section header table lies among them");
	if (!h->n)
		return refuse(r, REFUSE_NEXT, "no .interp, note or dynamic table follows the program headers");
	if (h->run_end > h->load->filesz)
		return refuse(r, REFUSE_NEXT, "the notes after the program headers lie outside the first PT_LOAD");
	if (!h->past_page && h->run_end > elf->head_len)
		return refuse(r, REFUSE_NEXT, "the sections to move run past the first page (a dynamic table too large)");
	if (h->run_end > elf->head_len + elf->more_len)
		return refuse(r, REFUSE_NEXT, "the sections to move run past what was read of the file (more than 64 KiB)");
	/* Empty sections there would be left pointing at other bytes. */
	for (i = 1; i < elf->shnum; i++) {
		const struct ebid_shdr *s = &elf->shdrs[i];

		if ((s->type == SHT_NOBITS || !s->size) && s->type &&
		    s->offset >= h->phend && s->offset < h->run_end)
			return refuse(r, REFUSE_NEXT, "an empty section lies among them");
	}
	for (j = h->phend; j < h->run_end; j++) {
		/* Past the first page (new-load), more holds them. */
		bool set = j < elf->head_len ? elf->head[j]
					     : elf->more[j - elf->head_len];

		if (set && (j >= p->page || p->map[j] == B_USED) &&
		    !in_section(elf, j))
			return refuse(r, REFUSE_NEXT, "bytes among them belong to no section");
	}
	return 0;
}

/* Their program headers: within the run, and of the kinds known. */
static int head_headers(const struct planner *p, struct head_move *h,
			struct refusal *r)
{
	const struct ebid_phdr *load = h->load;
	size_t i;

	for (i = 0; i < p->phnum; i++) {
		const struct ebid_phdr *ph = &p->phdrs[i];

		if (i != h->li && ebid_phdr_by_address(ph) && ph->memsz &&
		    ph->vaddr < load->vaddr + h->run_end &&
		    ph->vaddr + ph->memsz > load->vaddr + h->phend)
			return refuse(r, REFUSE_NEXT, "a PT_GNU_RELRO or PT_TLS covers their addresses");
		/* A header with no file bytes covers none (PT_GNU_STACK). */
		if (i == h->li || !ph->filesz || ebid_phdr_by_address(ph) ||
		    ph->offset >= h->run_end || ph->offset + ph->filesz <= h->phend)
			continue;
		if (ph->type == PT_LOAD)
			return refuse(r, REFUSE_NEXT, "another PT_LOAD maps them");
		if (ph->type != PT_INTERP && ph->type != PT_NOTE &&
		    ph->type != PT_GNU_PROPERTY)
			return refuse(r, REFUSE_NEXT, "a program header other than PT_INTERP, PT_NOTE or PT_GNU_PROPERTY covers them");
		if (ph->offset < h->phend || ph->offset + ph->filesz > h->run_end ||
		    ph->memsz != ph->filesz ||
		    ph->vaddr != load->vaddr + ph->offset ||
		    ph->paddr != load->paddr + ph->offset)
			return refuse(r, REFUSE_NEXT, "a program header covers them and more");
		if (ph->align > h->align)
			h->align = ph->align;
	}
	if (h->align & (h->align - 1) || h->align > 64)
		return refuse(r, REFUSE_NEXT, "a note or .interp has an alignment that is not a power of two up to 64");
	return 0;
}

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

/*
 * The run's program headers (but the first PT_LOAD's) and section headers
 * follow it: doff more in the file, daddr more in memory.
 */
void head_shift_headers(struct planner *p, const struct head_move *h,
			uint64_t doff, uint64_t daddr)
{
	size_t i;

	for (i = 0; i < p->phnum; i++) {
		struct ebid_phdr *ph = &p->phdrs[i];

		if (i == h->li || !ph->filesz || ebid_phdr_by_address(ph) ||
		    ph->offset < h->phend || ph->offset >= h->run_end)
			continue;
		ph->offset += doff;
		ph->vaddr += daddr;
		ph->paddr += daddr;
	}
	for (i = 1; i < p->elf->shnum; i++) {
		struct ebid_shdr *sh = &p->shdrs[i];

		if (sh->type == SHT_NOBITS || !sh->size ||
		    sh->offset < h->phend || sh->offset >= h->run_end)
			continue;
		sh->offset += doff;
		sh->addr += daddr;
	}
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
	p->plan->head_from = h->phend;
	p->plan->head_to = h->dest;
	p->plan->head_size = h->run_end - h->phend;
	p->plan->grown_load = h->li;
	return 0;
}

/*
 * After the move and the new program header: the note goes into the
 * freed bytes when it fits there, else right behind the moved run (which
 * head_apply() made loadable for it). The rest of the freed bytes stays
 * zero: no table moves in there (B_DEAD).
 */
static int place_head_note(struct planner *p, struct refusal *r)
{
	const struct ebid_plan *plan = p->plan;
	uint64_t len = ebid_gnu_note_size(p->desc_len);
	uint64_t end = plan->head_from + plan->head_size, off, i;

	off = ebid_align_up(plan->head_from + ebid_phent(p->elf->elfclass), 4);
	if (off + len > end)
		off = ebid_align_up(plan->head_to + plan->head_size, 4);
	if (!planner_range_free(p, off, len, true))
		return ebid_err(p->err, p->errlen, -EBID_EVERIFY,
				"internal error: no room for the note where move-head made it");
	planner_mark(p, off, len, B_CLAIMED);
	for (i = plan->head_from; i < end && i < p->page; i++)
		if (p->map[i] == B_RELEASED)
			p->map[i] = B_DEAD;
	p->note_off = off;
	return planner_new_pt(p, off, len, r);
}

int head_find(struct planner *p, struct head_move *h,
	      struct moved_range *range, struct refusal *r)
{
	const struct ebid_elf *elf = p->elf;
	int ret;

	ret = planner_move_start(p, "--no-move forbids moving them", &h->load,
				 &h->li, r);
	if (ret)
		return ret;
	if (!elf->note_syms_read || elf->note_syms_over)
		return refuse(r, REFUSE_NEXT, "their symbols are not all known (more than 64, an extended index, a section index past the last section, or a table outside the file)");
	h->phend = h->run_end = elf->phoff + (uint64_t)elf->phnum *
						     ebid_phent(elf->elfclass);
	h->align = 1;
	ret = head_sections(p, h, r);
	if (!ret)
		ret = head_contents(p, h, r);
	if (!ret)
		ret = head_headers(p, h, r);
	if (ret)
		return ret;
	*range = (struct moved_range){
		.off_lo = h->phend,
		.off_hi = h->run_end,
		.addr_lo = h->load->vaddr + h->phend,
		.len = h->run_end - h->phend,
		.into_why = "a symbol of another section points into them",
		.names_why = "a global or dynamic symbol names one of them",
		.what = "them",
	};
	ret = refs_check(p, range, r);
	if (!ret)
		ret = refs_check_dynamic(p, range, r);
	return ret;
}

/* Every rule of move-head, in order: 0, or a refusal. */
static int head_rule(struct planner *p, struct head_move *h,
		     struct moved_range *range, struct refusal *r)
{
	int ret;

	h->nph = 1;
	ret = head_find(p, h, range, r);
	if (!ret)
		ret = head_room(p, h, r);
	return ret;
}

int strategy_move_head(struct planner *p, struct refusal *r)
{
	struct head_move h = { 0 };
	struct moved_range range;
	int ret;

	ret = head_rule(p, &h, &range, r);
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
