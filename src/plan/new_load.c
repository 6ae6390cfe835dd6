/* SPDX-License-Identifier: MIT */
/*
 * Strategy "new-load" (docs/build-id.md). Where the run of sections after
 * the program headers (.interp, the notes and a dynamic table such as a
 * large .dynsym) runs on past the first page, so move-head cannot take it
 * behind the first PT_LOAD (lld leaves about a page of address room
 * there), the run is copied whole into a new read-only PT_LOAD appended
 * at the end of the file, at an address one segment alignment beyond the
 * end of the highest segment, its file offset congruent to its address.
 * Its PT_INTERP, PT_NOTE and PT_GNU_PROPERTY headers, its local symbols
 * and the DT_ entries of its dynamic tables follow it. The freed bytes in
 * the first page take the new PT_LOAD's header (ordered after the last
 * PT_LOAD: the loader wants them in address order), the new PT_NOTE's and
 * the note, so the kernel finds the id in the first page.
 * The rule that makes it safe: no loaded code or data moves and no
 * address changes but those of the moved sections, which no code
 * addresses (the kernel and the dynamic loader find them through their
 * program headers and DT_ entries, which follow them, and no symbol of
 * another section or relocation points at them); the new segment maps
 * nothing but them, read-only, at addresses no segment used, and the
 * bytes of the file keep their offsets (the new bytes follow everything
 * the headers describe).
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "plan/planner.h"
#include "elf/elf.h"
#include "plan/plan.h"

/* Where the run goes. */
struct new_load {
	uint64_t align;         /* the largest PT_LOAD alignment, >= a page */
	uint64_t pad;           /* zeros before the run */
	uint64_t off, addr;     /* the run's offset and address */
	uint64_t at, ins;       /* the gap it goes into (ins 0: appended) */
};

/* The highest address a segment takes in memory, and the alignment. */
static int load_top(const struct planner *p, struct new_load *n,
		    uint64_t *top, struct refusal *r)
{
	size_t i;

	*top = 0;
	n->align = EBID_PAGE;
	for (i = 0; i < p->phnum; i++) {
		const struct ebid_phdr *ph = &p->phdrs[i];

		if (ph->type == PT_LOAD && ph->align > n->align)
			n->align = ph->align;
		if (ph->memsz && ph->vaddr + ph->memsz > *top)
			*top = ph->vaddr + ph->memsz;
	}
	if (n->align & (n->align - 1) || n->align > (64u << 10))
		return refuse(r, REFUSE_NEXT, "the segments' alignment is not a power of two up to 64 KiB");
	return 0;
}

/*
 * Where the run goes in the file: into a gap inserted where the segments'
 * bytes end, before the sections no segment holds (.comment, .debug_*,
 * .symtab), so that every allocated section lies before every other one,
 * as linkers lay them out (dwz gives up on an allocated section behind a
 * non-allocated one). n->at: where; n->ins: the alignment the gap keeps
 * for what follows it. False (append at the end) when nothing follows
 * the segments' bytes or a section straddles their end.
 */
static bool load_gap(const struct planner *p, struct new_load *n)
{
	const struct ebid_elf *elf = p->elf;
	uint64_t at = 0, align = 16;
	size_t i;

	for (i = 0; i < elf->phnum; i++)
		if (elf->phdrs[i].offset + elf->phdrs[i].filesz > at)
			at = elf->phdrs[i].offset + elf->phdrs[i].filesz;
	if (at >= elf->file_size)
		return false;
	for (i = 1; i < elf->shnum; i++) {
		const struct ebid_shdr *s = &elf->shdrs[i];

		if (s->type == SHT_NOBITS || !s->size || s->offset + s->size <= at)
			continue;
		if (s->offset < at)
			return false;
		if (s->addralign > align)
			align = s->addralign;
	}
	if (align > EBID_PAGE || (align & (align - 1)))
		return false;
	n->at = at;
	n->ins = align;
	return true;
}

/* The rules of new-load beyond those it shares with move-head. */
static int load_rule(const struct planner *p, const struct head_move *h,
		     struct new_load *n, struct refusal *r)
{
	const struct ebid_elf *elf = p->elf;
	uint64_t mask = elf->elfclass == ELFCLASS64 ? UINT64_MAX : 0xffffffffu;
	uint64_t len = ebid_gnu_note_size(p->desc_len);
	uint64_t size = h->run_end - h->phend, end, top;
	uint64_t need = ebid_align_up(h->phend + 2 * (uint64_t)ebid_phent(elf->elfclass), 4) + len;
	int ret;

	/* The run's bytes are freed; what follows it must be free already. */
	if (need > elf->head_len ||
	    (need > h->run_end &&
	     !planner_range_free(p, h->run_end, need - h->run_end, true)))
		return refuse(r, REFUSE_NEXT, "too few bytes freed in the first page for two program headers and the note");
	/* Bytes behind everything described may name their own offsets. */
	if (planner_described_end(p) < elf->file_size)
		return refuse(r, REFUSE_NEXT, "data follows everything the headers describe (an appended payload?), and the new segment would have to follow it");
	ret = load_top(p, n, &top, r);
	if (ret)
		return ret;
	if (h->load->vaddr & (n->align - 1))
		return refuse(r, REFUSE_NEXT, "the first PT_LOAD's address is not aligned to a segment");
	end = load_gap(p, n) ? n->at : body_end(p) + p->plan->append_len;
	n->pad = (h->phend - end) & (h->align - 1);
	if (n->pad < EBID_NEW_LOAD_LEAD)
		n->pad += ebid_align_up(EBID_NEW_LOAD_LEAD - n->pad, h->align);
	n->off = end + n->pad;
	if (n->at)
		n->ins = ebid_align_up(n->pad + size, n->ins);
	if (n->at && !planner_gap_fits(p, n->at, n->ins))
		return refuse(r, REFUSE_NEXT, "a file offset behind the gap would not fit the ELF class's offset field");
	if (top > mask - 3 * n->align || size > mask - 3 * n->align - top)
		return refuse(r, REFUSE_NEXT, "the highest segment ends too close to the top of the address space");
	/* The segment, from its lead, starts an alignment above the top. */
	n->addr = ebid_align_up(top, n->align) + n->align +
		  ((n->off - EBID_NEW_LOAD_LEAD) & (n->align - 1)) +
		  EBID_NEW_LOAD_LEAD;
	return 0;
}

/* The appended run: pad zeros, then the run's bytes as the input has them. */
static int load_append(struct planner *p, const struct head_move *h,
		       const struct new_load *n)
{
	size_t size = (size_t)(h->run_end - h->phend);
	unsigned char *buf = calloc(1, (size_t)n->pad + size);
	uint64_t start;
	int ret;

	if (!buf)
		return ebid_err(p->err, p->errlen, -ENOMEM, "out of memory");
	if (!ebid_elf_head_bytes(p->elf, h->phend, buf + n->pad, size))
		ret = ebid_err(p->err, p->errlen, -EBID_EVERIFY,
			       "internal error: the run to move was not read");
	else
		ret = planner_append(p, buf, (size_t)n->pad + size, 1, &start);
	free(buf);
	if (!ret && start + n->pad != n->off)
		ret = ebid_err(p->err, p->errlen, -EBID_EVERIFY,
			       "internal error: the new segment's bytes misplaced");
	return ret;
}

/*
 * An allocated section at the gap's offset (.bss, an empty
 * .tm_clone_table) ends the last segment's bytes, which do not move:
 * planner_insert_gap() moved it with what follows, and it goes back.
 */
static void load_keep_nobits(struct planner *p)
{
	size_t i;

	for (i = 1; i < p->elf->shnum; i++)
		p->shdrs[i].offset = ebid_plan_sh_outoff(p->plan,
							 &p->elf->shdrs[i]);
}

/* The run's bytes into the inserted gap (zeros around them). */
static int load_copy(struct planner *p, const struct head_move *h,
		     const struct new_load *n)
{
	size_t size = (size_t)(h->run_end - h->phend);
	unsigned char *buf = malloc(size ? size : 1);
	int ret;

	if (!buf)
		return ebid_err(p->err, p->errlen, -ENOMEM, "out of memory");
	if (!ebid_elf_head_bytes(p->elf, h->phend, buf, size))
		ret = ebid_err(p->err, p->errlen, -EBID_EVERIFY,
			       "internal error: the run to move was not read");
	else
		ret = planner_patch(p, n->off, buf, size,
				    "moved sections (new segment)");
	free(buf);
	return ret;
}

/*
 * The plan: the run appended, its symbols and dynamic entries, its old
 * place released in the first page and cleared past it.
 */
static int load_apply(struct planner *p, const struct head_move *h,
		      const struct new_load *n, const struct moved_range *range)
{
	uint64_t daddr = n->addr - (h->load->vaddr + h->phend);
	uint64_t cut = h->run_end < p->page ? h->run_end : p->page;
	unsigned char *zero;
	int ret;

	/*
	 * Set first: with a gap, ebid_plan_sh_outoff() keeps the allocated
	 * sections at the gap's offset from here on (load_keep_nobits()).
	 */
	p->plan->actions |= EBID_ACT_NEW_LOAD;
	if (n->ins) {
		planner_insert_gap(p, n->at, n->ins);
		load_keep_nobits(p);
		ret = load_copy(p, h, n);
	} else {
		ret = load_append(p, h, n);
	}
	if (!ret)
		ret = refs_patch(p, range, daddr, n->ins ? n->at : UINT64_MAX,
				 n->ins);
	if (!ret && h->tables)
		ret = refs_patch_dynamic(p, range, daddr,
					 n->ins ? n->at : UINT64_MAX, n->ins);
	if (!ret && h->run_end > cut) {
		zero = calloc(1, (size_t)(h->run_end - cut));
		if (!zero)
			return ebid_err(p->err, p->errlen, -ENOMEM, "out of memory");
		ret = planner_patch(p, cut, zero, (size_t)(h->run_end - cut),
				    "moved sections, old place (cleared)");
		free(zero);
	}
	if (ret)
		return ret;
	planner_mark(p, h->phend, cut - h->phend, B_RELEASED);
	head_shift_headers(p, h, n->off - h->phend, daddr);
	p->plan->grown_load = h->li;
	return planner_moved_run(p, h->phend, h->run_end - h->phend, n->off,
				 (int64_t)daddr);
}

/* The new PT_LOAD's header, one more program header. */
static int load_header(struct planner *p, const struct new_load *n,
		       struct refusal *r)
{
	struct ebid_phdr *ph;
	int ret = planner_grow_phdrs(p, r);

	if (ret)
		return ret;
	ph = &p->phdrs[NEW_PT(p)];
	memset(ph, 0, sizeof(*ph));
	ph->type = PT_LOAD;
	ph->flags = PF_R;
	ph->offset = n->off - EBID_NEW_LOAD_LEAD;
	ph->vaddr = ph->paddr = n->addr - EBID_NEW_LOAD_LEAD;
	ph->filesz = ph->memsz = p->plan->runs[0].size + EBID_NEW_LOAD_LEAD;
	ph->align = n->align;
	p->plan->new_load = NEW_PT(p);
	return 0;
}

/* The note right behind the two new program headers; the rest is dead. */
static int load_note(struct planner *p, struct refusal *r)
{
	uint64_t len = ebid_gnu_note_size(p->desc_len);
	uint64_t from = p->plan->runs[0].from;
	uint64_t off = ebid_align_up(from + 2 * (uint64_t)ebid_phent(p->elf->elfclass), 4);
	uint64_t i;

	if (!planner_range_free(p, off, len, true))
		return ebid_err(p->err, p->errlen, -EBID_EVERIFY,
				"internal error: no room for the note where new-load made it");
	planner_mark(p, off, len, B_CLAIMED);
	for (i = from; i < p->page; i++)
		if (p->map[i] == B_RELEASED)
			p->map[i] = B_DEAD;
	p->note_off = off;
	return planner_new_pt(p, off, len, r);
}

int strategy_new_load(struct planner *p, struct refusal *r)
{
	struct head_move h = { .nph = 2, .past_page = true };
	struct moved_range range;
	struct new_load n = { 0 };
	int ret;

	/*
	 * move-head said why these rules refuse. A run they accept that
	 * move-head could not place (it lies past the first page, the first
	 * PT_LOAD cannot grow over it, or grown it would share a page with
	 * the next segment: the loaders' rule) goes to a new PT_LOAD, which
	 * grows nothing. new-load is tried last, so move-head refused it.
	 */
	ret = head_find(p, &h, &range, r);
	if (ret == PLAN_REFUSED)
		return refuse(r, REFUSE_SKIP, "the run is move-head's");
	if (!ret)
		ret = load_rule(p, &h, &n, r);
	if (!ret)
		ret = load_apply(p, &h, &n, &range);
	if (ret)
		return ret;
	/* Committed: a refusal from here on ends the search. */
	ret = load_header(p, &n, r);
	if (!ret)
		ret = planner_grow_phdrs(p, r);
	if (!ret)
		ret = load_note(p, r);
	if (ret == PLAN_REFUSED)
		r->code = REFUSE_STOP;
	return ret;
}
