/* SPDX-License-Identifier: MIT */
/*
 * The run of sections after the program headers, which move-head moves
 * behind the first PT_LOAD and new-load into a PT_LOAD of its own: which
 * sections it holds and the rules both strategies share (head_find()),
 * and how the headers of what moved follow it (head_shift_headers()).
 */
#include <string.h>

#include "plan/planner.h"

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

/*
 * The run, in file order from the program headers: .interp and the
 * notes, then dynamic tables (.gnu.hash, .dynsym, ...) only while the
 * bytes freed so far cannot take a program header. Where the note cannot
 * go behind the first PT_LOAD in the first page (it runs past it, or ends
 * too close to its end), or where patchelf would leave it behind there
 * (h->note_early), the freed bytes must take the note too, so tables
 * join until they take both. new-load's freed bytes take two program
 * headers and always the note. With h->all_tables every table that
 * follows joins.
 */
static bool head_wants_table(const struct planner *p,
			     const struct head_move *h, uint64_t off)
{
	uint64_t len = ebid_gnu_note_size(p->desc_len);
	uint64_t ent = ebid_phent(p->elf->elfclass) * h->nph;

	if (h->all_tables || off - h->phend < ent)
		return true;
	return (h->past_page || h->note_early ||
		h->load->filesz + len > EBID_PAGE) &&
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
