/* SPDX-License-Identifier: MIT */
/*
 * Strategy "move-note" (bfd's -z separate-code layout): the program
 * headers are followed, packed, by .interp and the notes, and the first
 * PT_LOAD ends inside the first page with zero padding up to the next
 * segment. A 4-aligned note that has a PT_NOTE to itself (.note.ABI-tag)
 * moves into that padding, the new note goes right after it, its PT_NOTE
 * is retargeted over both and the first PT_LOAD grows over them. The rule
 * that makes it safe (docs/build-id.md): the grown bytes were zero
 * padding that no section, segment or header used, they stay in the first
 * page, in the file and in memory before every other segment; the moved
 * note was one section under one PT_NOTE and nothing else (never
 * PT_GNU_PROPERTY); the symbols of that section move with it. No loaded
 * code or data moves.
 */
#include <string.h>

#include "plan/planner.h"

/*
 * The one section that is exactly [off, off + len) with nothing else over
 * it, or 0: an allocated, at most 4-aligned note section.
 */
static size_t sole_note_section(const struct planner *p, uint64_t off,
				uint64_t len, uint64_t addr)
{
	const struct ebid_elf *elf = p->elf;
	size_t i, found = 0;

	for (i = 1; i < elf->shnum; i++) {
		const struct ebid_shdr *s = &elf->shdrs[i];

		if (s->type == SHT_NOBITS || !s->size ||
		    s->offset >= off + len || s->offset + s->size <= off)
			continue;
		if (found || s->type != SHT_NOTE ||
		    !(s->flags & SHF_ALLOC) || s->addralign > 4 ||
		    s->offset != off || s->size != len || s->addr != addr)
			return 0;
		found = i;
	}
	return found;
}

/*
 * Section m is .note.ABI-tag holding one GNU ABI tag note (NT_GNU_ABI_TAG),
 * which glibc's loader reads through PT_NOTE only and no code addresses:
 * the one note that move-note moves.
 */
static bool is_abi_tag(const struct planner *p, size_t m)
{
	const struct ebid_elf *elf = p->elf;
	const struct ebid_shdr *s = &elf->shdrs[m];
	const unsigned char *n;
	uint64_t namesz, descsz;

	if (!s->name_str || strcmp(s->name_str, ".note.ABI-tag") ||
	    s->offset + s->size > elf->head_len || s->size < 16)
		return false;
	n = elf->head + s->offset;
	namesz = ebid_get(n, 4, elf->data);
	descsz = ebid_get(n + 4, 4, elf->data);
	return namesz == 4 && !memcmp(n + 12, "GNU", 4) &&
	       ebid_get(n + 8, 4, elf->data) == NT_GNU_ABI_TAG &&
	       descsz <= s->size &&
	       s->size == 16 + ((descsz + 3) & ~3ull);
}

/* What move-note found and does. */
struct note_move {
	struct ebid_phdr *load, *pt;    /* the first PT_LOAD, the PT_NOTE */
	size_t li, pi, m;               /* their indexes; the section's */
	uint64_t to, end, from, size;
	bool inside;                    /* into the first PT_LOAD's unused
					 * tail, which does not grow */
};

/* Does a program header other than a PT_LOAD and ph's own overlap ph? */
static bool shared_pt(const struct planner *p, size_t i)
{
	const struct ebid_phdr *ph = &p->phdrs[i];
	size_t j;

	for (j = 0; j < p->phnum; j++) {
		const struct ebid_phdr *o = &p->phdrs[j];

		if (j == i || o->type == PT_LOAD)
			continue;
		if (o->offset < ph->offset + ph->filesz &&
		    o->offset + o->filesz > ph->offset)
			return true;
	}
	return false;
}

/*
 * A PT_NOTE of p_align 8 over notes that read the same walked by 4 bytes
 * as by 8 (a multiple of 8 long, at an offset that is: the ABI tag's 32
 * bytes) holds 4-aligned notes. patchelf's rewrite gives mold's
 * .note.ABI-tag (sh_addralign 4) such a PT_NOTE; move-note lowers its
 * p_align to 4 when it adds the new note behind (note_apply()).
 */
static bool reads_as_4(const struct ebid_phdr *ph)
{
	return ph->align <= 4 ||
	       (ph->align == 8 && ph->filesz % 8 == 0 && ph->offset % 8 == 0);
}

/* A 4-aligned note alone under its own PT_NOTE, in the first PT_LOAD. */
static void find_lone_note(const struct planner *p, struct note_move *n)
{
	const struct ebid_phdr *load = n->load;
	size_t i;

	for (i = 0; i < p->phnum && !n->m; i++) {
		const struct ebid_phdr *ph = &p->phdrs[i];

		if (ph->type != PT_NOTE || !reads_as_4(ph) ||
		    ph->filesz != ph->memsz || !ph->filesz || ph->offset % 4 ||
		    ph->offset > load->filesz ||
		    ph->filesz > load->filesz - ph->offset ||
		    ph->vaddr != load->vaddr + ph->offset ||
		    ph->paddr != load->paddr + ph->offset)
			continue;
		if (shared_pt(p, i))
			continue;
		n->m = sole_note_section(p, ph->offset, ph->filesz, ph->vaddr);
		if (n->m)
			n->pi = i;
	}
}

/* The first PT_LOAD grows to n->end: over free padding, clashing with none. */
static int check_growth(const struct planner *p, const struct note_move *n,
			struct refusal *r)
{
	size_t i;

	if (n->end > p->page)
		return refuse(r, REFUSE_NEXT, "the first page has no room after the first PT_LOAD");
	if (!planner_range_free(p, n->load->filesz, n->end - n->load->filesz,
				false))
		return refuse(r, REFUSE_NEXT, "the bytes after the first PT_LOAD are not free zero padding");
	for (i = 0; i < p->phnum; i++) {
		const struct ebid_phdr *o = &p->phdrs[i];

		if (i == n->li || o->type != PT_LOAD)
			continue;
		if (o->offset < n->end)
			return refuse(r, REFUSE_NEXT, "the next PT_LOAD starts in the file before the grown end");
		if (planner_grown_clash(n->load, o, n->end))
			return refuse(r, REFUSE_NEXT, "the grown first PT_LOAD would overlap another segment's addresses");
	}
	return 0;
}

/*
 * Where the first PT_LOAD's bytes end in the file that a section or
 * another program header holds: what follows, up to its p_filesz, is a
 * tail nothing uses (patchelf maps a whole first page that way). A
 * SHT_NOBITS section counts by its addresses: where the PT_LOAD maps it,
 * the file's bytes are its contents (patchelf leaves mold's .bss there).
 */
static uint64_t load_used_end(const struct planner *p,
			      const struct ebid_phdr *load)
{
	const struct ebid_elf *elf = p->elf;
	uint64_t end = elf->phoff + (uint64_t)elf->phnum * ebid_phent(elf->elfclass);
	uint64_t at;
	size_t i;

	for (i = 1; i < elf->shnum; i++) {
		const struct ebid_shdr *s = &elf->shdrs[i];

		if (!s->size)
			continue;
		if (s->type == SHT_NOBITS) {
			if (!(s->flags & SHF_ALLOC) || s->addr < load->vaddr ||
			    s->addr - load->vaddr >= load->memsz)
				continue;
			at = s->addr - load->vaddr;
			if (s->size > UINT64_MAX - at)
				return UINT64_MAX;
		} else {
			at = s->offset;
			if (at >= load->filesz)
				continue;
		}
		if (at + s->size > end)
			end = at + s->size;
	}
	for (i = 0; i < elf->phnum; i++) {
		const struct ebid_phdr *ph = &elf->phdrs[i];

		if (ph->type != PT_LOAD && ph->filesz &&
		    ph->offset < load->filesz && ph->offset + ph->filesz > end)
			end = ph->offset + ph->filesz;
	}
	return end;
}

/*
 * Where the moved note and the new one go: behind the first PT_LOAD,
 * which grows over them; or, where it cannot grow (it ends at or past the
 * first page), into the tail of it that nothing uses, which stays as it
 * is. 0, or the refusal of the first.
 */
static int note_dest(struct planner *p, struct note_move *n,
		     struct refusal *r)
{
	uint64_t len = ebid_gnu_note_size(p->desc_len);
	uint64_t tail;

	n->to = ebid_align_up(n->load->filesz, 4);
	n->end = n->to + n->size + len;
	if (n->load->filesz < p->page)
		return check_growth(p, n, r);
	tail = load_used_end(p, n->load);
	if (tail <= n->load->filesz &&
	    (tail = ebid_align_up(tail, 4)) + n->size + len <= n->load->filesz &&
	    planner_range_free(p, tail, n->size + len, true)) {
		n->to = tail;
		n->end = tail + n->size + len;
		n->inside = true;
		return 0;
	}
	return refuse(r, REFUSE_NEXT, "the first PT_LOAD runs past the first page");
}

/* Finds the note to move and checks the rule: 0, or a refusal. */
static int note_rule(struct planner *p, struct note_move *n,
		     struct refusal *r)
{
	const struct ebid_elf *elf = p->elf;
	int ret;

	ret = planner_move_start(p, "--no-move forbids moving a note",
				 &n->load, &n->li, r);
	if (ret)
		return ret;
	find_lone_note(p, n);
	if (!n->m && n->load->filesz >= p->page)
		return refuse(r, REFUSE_NEXT, "the first PT_LOAD runs past the first page");
	if (!n->m)
		return refuse(r, REFUSE_NEXT, "no 4-aligned note with a PT_NOTE to itself to move");
	if (!is_abi_tag(p, n->m) && n->load->filesz >= p->page)
		return refuse(r, REFUSE_NEXT, "the first PT_LOAD runs past the first page");
	if (!is_abi_tag(p, n->m))
		return refuse(r, REFUSE_NEXT, "the note with a PT_NOTE to itself is not a lone GNU ABI tag (.note.ABI-tag)");
	n->pt = &p->phdrs[n->pi];
	n->from = n->pt->offset;
	n->size = n->pt->filesz;
	ret = note_dest(p, n, r);
	if (ret)
		return ret;
	if (!elf->note_syms_read || elf->note_syms_over)
		return refuse(r, REFUSE_NEXT, "the symbols of first-page notes are not all known (more than 64, an extended index, a section index past the last section, or a table outside the file)");
	return 0;
}

/* The plan: the note, its headers, its symbols. */
static int note_apply(struct planner *p, const struct note_move *n,
		      const struct moved_range *range)
{
	const struct ebid_elf *elf = p->elf;
	struct ebid_phdr *pt = n->pt, *load = n->load;
	unsigned char zero[EBID_PAGE];
	int ret;

	ret = planner_patch(p, n->to, elf->head + n->from, (size_t)n->size,
			    "note moved (new place)");
	if (ret)
		return ret;
	memset(zero, 0, sizeof(zero));
	ret = planner_patch(p, n->from, zero, (size_t)n->size,
			    "note moved (old place cleared)");
	if (!ret)
		ret = refs_patch(p, range, n->to - n->from, UINT64_MAX, 0);
	if (ret)
		return ret;
	planner_mark(p, n->from, n->size, B_CLAIMED);
	pt->offset = n->to;
	pt->vaddr = load->vaddr + n->to;
	pt->paddr = load->paddr + n->to;
	pt->filesz = pt->memsz = n->size + ebid_gnu_note_size(p->desc_len);
	/* The new note is 4-aligned (find_lone_note()). */
	if (pt->align > 4)
		pt->align = 4;
	if (n->inside) {
		planner_mark(p, n->to, n->end - n->to, B_CLAIMED);
	} else {
		planner_mark(p, load->filesz, n->end - load->filesz, B_CLAIMED);
		load->filesz = load->memsz = n->end;
	}
	p->shdrs[n->m].offset = n->to;
	p->shdrs[n->m].addr = load->vaddr + n->to;
	p->note_off = n->to + n->size;
	return 0;
}

int strategy_move_note(struct planner *p, struct refusal *r)
{
	struct note_move n = { 0 };
	struct moved_range range;
	int ret;

	ret = note_rule(p, &n, r);
	if (ret)
		return ret;
	range = (struct moved_range){
		.off_lo = n.from,
		.off_hi = n.from + n.size,
		.addr_lo = n.pt->vaddr,
		.len = n.size,
		.into_why = "a symbol of another section points into the note",
		.names_why = "a global or dynamic symbol names the note",
		.what = "the note",
	};
	ret = refs_check(p, &range, r);
	if (!ret)
		ret = note_apply(p, &n, &range);
	if (!ret)
		ret = planner_moved_run(p, n.from, n.size, n.to,
					(int64_t)(n.to - n.from));
	if (ret)
		return ret;
	p->plan->actions |= EBID_ACT_MOVE_NOTE;
	p->plan->moved_shndx = n.m;
	p->plan->moved_pt = n.pi;
	p->plan->grown_load = n.li;
	ret = planner_changed_ph(p, n.pi);
	if (!ret)
		ret = planner_changed_ph(p, n.li);
	return ret;
}
