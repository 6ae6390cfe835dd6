/* SPDX-License-Identifier: MIT */
/* Placement planner: turns a layout and a request into byte patches. */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "internal.h"


/* States of a first-page byte in the planner's map. */
enum {
	B_FREE = 0,     /* zero and used by nothing */
	B_USED,         /* belongs to a header, section or segment */
	B_CLAIMED,      /* the plan writes it */
	B_RELEASED,     /* was ours to move away; free, zeroed unless reused */
	B_DEAD,         /* released and left: zeroed, never reused */
};

/* Where a table that the plan changes ends up. */
enum placement {
	PLACE_KEEP = 0,         /* where it was (grown in place if need be) */
	PLACE_IN_PAGE,          /* moved into a gap of the first page */
	PLACE_APPEND,           /* moved to the end of the file */
};

struct planner {
	const struct ebid_elf *elf;
	const struct ebid_opts *opts;
	struct ebid_plan *plan;
	char *err;
	size_t errlen;

	size_t page;                    /* bytes of the first page in file */
	unsigned char map[EBID_PAGE];
	unsigned char loadable[EBID_PAGE];

	/* The new header set. */
	struct ebid_phdr *phdrs;
	size_t phnum;
	struct ebid_shdr *shdrs;
	size_t shnum;
	uint64_t shoff;                 /* set at emission for PLACE_APPEND */
	enum placement shdrs_place;
	bool shdrs_released;            /* the old table must move */
	char *shstrtab;                 /* new table when it changes */
	size_t shstrtab_len;
	uint64_t shstrtab_off;          /* likewise */
	enum placement shstrtab_place;
	uint64_t name_off;              /* sh_name of the new section */

	uint64_t note_off;              /* the GNU note's header */
	size_t desc_len;
};

/* Where the new PT_NOTE is in p->phdrs; it is appended until ordered. */
#define NEW_PT(p) ((p)->plan->new_pt)

/* Where the input's bytes end in the output (appended bytes follow). */
static uint64_t body_end(const struct planner *p)
{
	return ebid_plan_body_end(p->plan);
}

static size_t ehsize_of(const struct ebid_elf *elf)
{
	return ebid_ehdr_layouts[elf->elfclass - 1].size;
}

static size_t phent_of(const struct ebid_elf *elf)
{
	return elf->elfclass == 2 ? 56 : 32;
}

static size_t shent_of(const struct ebid_elf *elf)
{
	return elf->elfclass == 2 ? 64 : 40;
}

void ebid_plan_release(struct ebid_plan *plan)
{
	size_t i;

	if (!plan)
		return;
	for (i = 0; i < plan->npatches; i++)
		free(plan->patches[i].bytes);
	free(plan->patches);
	free(plan->append);
	memset(plan, 0, sizeof(*plan));
}

static int add_patch(struct planner *p, uint64_t off, const void *bytes,
		     size_t len, const char *what)
{
	struct ebid_plan *plan = p->plan;
	struct ebid_patch *pt;

	if (!len)
		return 0;
	if (plan->npatches == plan->cap) {
		size_t cap = plan->cap ? plan->cap * 2 : 16;
		struct ebid_patch *n = realloc(plan->patches, cap * sizeof(*n));

		if (!n)
			return ebid_err(p->err, p->errlen, -ENOMEM,
					"out of memory");
		plan->patches = n;
		plan->cap = cap;
	}
	pt = &plan->patches[plan->npatches];
	pt->bytes = malloc(len);
	if (!pt->bytes)
		return ebid_err(p->err, p->errlen, -ENOMEM, "out of memory");
	memcpy(pt->bytes, bytes, len);
	pt->off = off;
	pt->len = len;
	snprintf(pt->what, sizeof(pt->what), "%s", what);
	plan->npatches++;
	return 0;
}

/* Bytes appended at the end of the file; returns their file offset. */
static int add_append(struct planner *p, const void *bytes, size_t len,
		      uint64_t align, uint64_t *off)
{
	struct ebid_plan *plan = p->plan;
	uint64_t start = ebid_align_up(body_end(p) + plan->append_len, align);
	size_t pad = (size_t)(start - body_end(p) - plan->append_len);
	unsigned char *n = realloc(plan->append, plan->append_len + pad + len);

	if (!n)
		return ebid_err(p->err, p->errlen, -ENOMEM, "out of memory");
	memset(n + plan->append_len, 0, pad);
	memcpy(n + plan->append_len + pad, bytes, len);
	plan->append = n;
	plan->append_len += pad + len;
	*off = start;
	return 0;
}

static void mark(struct planner *p, uint64_t off, uint64_t len, int state)
{
	uint64_t i;

	for (i = off; i < off + len && i < p->page; i++)
		p->map[i] = (unsigned char)state;
}

static bool range_free(const struct planner *p, uint64_t off, uint64_t len,
		       bool need_load)
{
	uint64_t i;

	if (off > p->page || len > p->page - off)
		return false;
	for (i = off; i < off + len; i++) {
		if (p->map[i] != B_FREE && p->map[i] != B_RELEASED)
			return false;
		if (need_load && !p->loadable[i])
			return false;
	}
	return true;
}

/* Lowest (or highest) free aligned range in the first page, or -1. */
static int64_t alloc_in_page(const struct planner *p, uint64_t len,
			     uint64_t align, bool need_load, bool high)
{
	int64_t off;

	if (len > p->page)
		return -1;
	if (high) {
		for (off = (int64_t)((p->page - len) / align * align); off >= 0;
		     off -= (int64_t)align)
			if (range_free(p, (uint64_t)off, len, need_load))
				return off;
	} else {
		for (off = 0; (uint64_t)off + len <= p->page;
		     off += (int64_t)align)
			if (range_free(p, (uint64_t)off, len, need_load))
				return off;
	}
	return -1;
}

/* Builds the first-page map: what is used, what is loadable. */
static void map_page(struct planner *p)
{
	const struct ebid_elf *elf = p->elf;
	size_t i;

	p->page = elf->head_len;
	for (i = 0; i < p->page; i++)
		p->map[i] = elf->head[i] ? B_USED : B_FREE;
	mark(p, 0, ehsize_of(elf), B_USED);
	mark(p, elf->phoff, (uint64_t)elf->phnum * phent_of(elf), B_USED);
	if (elf->shnum)
		mark(p, elf->shoff, (uint64_t)elf->shnum * shent_of(elf),
		     B_USED);
	for (i = 1; i < elf->shnum; i++) {
		const struct ebid_shdr *s = &elf->shdrs[i];

		if (s->type != EBID_SHT_NOBITS)
			mark(p, s->offset, s->size, B_USED);
	}
	for (i = 0; i < elf->phnum; i++) {
		const struct ebid_phdr *ph = &elf->phdrs[i];
		uint64_t j;

		if (ph->type == EBID_PT_LOAD) {
			for (j = ph->offset;
			     j < ph->offset + ph->filesz && j < p->page; j++)
				p->loadable[j] = 1;
			continue;
		}
		mark(p, ph->offset, ph->filesz, B_USED);
	}
}

/* The PT_LOAD holding [off, off + len), or NULL. */
static const struct ebid_phdr *load_of(const struct planner *p, uint64_t off,
				       uint64_t len)
{
	size_t i;

	for (i = 0; i < p->phnum; i++) {
		const struct ebid_phdr *ph = &p->phdrs[i];

		if (ph->type == EBID_PT_LOAD && off >= ph->offset &&
		    off + len <= ph->offset + ph->filesz)
			return ph;
	}
	return NULL;
}

static int no_room(struct planner *p, const char *why)
{
	char advice[160];

	if (p->elf->go.present)
		snprintf(advice, sizeof(advice),
			 "relink with -ldflags=-B=0x%040d to reserve a note",
			 0);
	else
		snprintf(advice, sizeof(advice),
			 "relink with -Wl,--build-id (C) or -ldflags=-B=0x%040d (Go)",
			 0);
	return ebid_err(p->err, p->errlen, -EBID_ENOROOM,
			"no safe placement for the note: %s; %s", why, advice);
}

/*
 * The section header table gets add (0 or 1) more entries: in place, at the
 * end of the file, or moved (into the first page, else to the end).
 */
static int place_shdrs(struct planner *p, size_t add)
{
	const struct ebid_elf *elf = p->elf;
	size_t ent = shent_of(elf);
	uint64_t old_len = (uint64_t)elf->shnum * ent;
	uint64_t new_len = old_len + add * ent;
	uint64_t end = p->shoff + old_len;
	int64_t off;

	if (!p->shdrs_released) {
		if (!add)
			return 0;
		if (end + ent <= p->page && range_free(p, end, ent, false)) {
			mark(p, end, ent, B_CLAIMED);
			return 0;
		}
		if (end == body_end(p) && p->plan->out_size == end) {
			/* The entry is appended right at the end. */
			p->plan->out_size = end + ent;
			return 0;
		}
	}
	off = alloc_in_page(p, new_len, elf->elfclass == 2 ? 8 : 4, false,
			    false);
	if (off >= 0) {
		p->shdrs_place = PLACE_IN_PAGE;
		p->shoff = (uint64_t)off;
		mark(p, p->shoff, new_len, B_CLAIMED);
		return 0;
	}
	/* Appended once its contents are known (emit_section_headers). */
	p->shdrs_place = PLACE_APPEND;
	return 0;
}

/* Finds or makes the name ".note.gnu.build-id" in the section name table. */
static int place_name(struct planner *p)
{
	const struct ebid_elf *elf = p->elf;
	/* Where it is in the output (after an insertion, too). */
	const struct ebid_shdr *st = &p->shdrs[elf->shstrndx];
	static const char name[] = EBID_GNU_NOTE_NAME;
	size_t nlen = sizeof(name); /* with its NUL */
	uint64_t end = st->offset + st->size;
	const char *hit;
	int64_t off;

	hit = memmem(elf->shstrtab, elf->shstrtab_size, name, nlen);
	if (hit) {
		p->name_off = (uint64_t)(hit - elf->shstrtab);
		return 0;
	}
	/*
	 * Rewriting a name table of another type would change what its type
	 * says the bytes are (a note, say) under every reader.
	 */
	if (st->type != EBID_SHT_STRTAB)
		return ebid_err(p->err, p->errlen, -EBID_EMALFORMED,
				"malformed ELF: section header [%zu] (e_shstrndx): sh_type %u, not SHT_STRTAB",
				elf->shstrndx, (unsigned)st->type);
	/* A table not ending in NUL would swallow our name into another. */
	if (elf->shstrtab_size &&
	    elf->shstrtab[elf->shstrtab_size - 1] != '\0')
		return ebid_err(p->err, p->errlen, -EBID_EMALFORMED,
				"malformed ELF: section name table does not end with NUL");
	p->shstrtab_len = elf->shstrtab_size + nlen;
	p->shstrtab = malloc(p->shstrtab_len);
	if (!p->shstrtab)
		return ebid_err(p->err, p->errlen, -ENOMEM, "out of memory");
	memcpy(p->shstrtab, elf->shstrtab, elf->shstrtab_size);
	memcpy(p->shstrtab + elf->shstrtab_size, name, nlen);
	p->name_off = elf->shstrtab_size;

	/* Extend in place into zero slack that nothing else uses. */
	if (end + nlen <= p->page && range_free(p, end, nlen, false)) {
		mark(p, end, nlen, B_CLAIMED);
		p->shstrtab_off = st->offset;
		return 0;
	}
	if (end == body_end(p) && p->plan->out_size == body_end(p)) {
		p->shstrtab_off = st->offset;
		p->plan->out_size = end + nlen;
		return 0;
	}
	/* Relocate: first into the first page's gap, else to the end. */
	off = alloc_in_page(p, p->shstrtab_len, 1, false, false);
	if (off >= 0) {
		p->shstrtab_place = PLACE_IN_PAGE;
		p->shstrtab_off = (uint64_t)off;
		mark(p, p->shstrtab_off, p->shstrtab_len, B_CLAIMED);
		return 0;
	}
	p->shstrtab_place = PLACE_APPEND; /* see emit_section_names() */
	return 0;
}

static int copy_headers(struct planner *p)
{
	const struct ebid_elf *elf = p->elf;

	p->phdrs = calloc(elf->phnum + 1, sizeof(*p->phdrs));
	p->shdrs = calloc(elf->shnum + 1, sizeof(*p->shdrs));
	if (!p->phdrs || !p->shdrs)
		return ebid_err(p->err, p->errlen, -ENOMEM, "out of memory");
	memcpy(p->phdrs, elf->phdrs, elf->phnum * sizeof(*p->phdrs));
	memcpy(p->shdrs, elf->shdrs, elf->shnum * sizeof(*p->shdrs));
	p->phnum = elf->phnum;
	p->shnum = elf->shnum;
	p->shoff = elf->shoff;
	return 0;
}

/*
 * Adds a PT_NOTE program header. The table grows in place (it is never
 * moved); a section header table right behind it is moved out of the way.
 */
static int grow_phdrs(struct planner *p)
{
	const struct ebid_elf *elf = p->elf;
	size_t ent = phent_of(elf);
	uint64_t end = elf->phoff + (uint64_t)elf->phnum * ent;
	const struct ebid_phdr *load;
	size_t i;

	if (elf->phoff != ehsize_of(elf))
		return no_room(p, "program headers do not follow the ELF header");
	if (elf->phnum + 1 > (EBID_PAGE - ehsize_of(elf)) / ent)
		return no_room(p, "too many program headers for the first page");
	load = load_of(p, elf->phoff, end + ent - elf->phoff);
	if (!load)
		return no_room(p, "no loadable segment can hold one more program header");
	/* A section header table in the way is ours to move. */
	if (elf->shnum && elf->shoff < end + ent &&
	    elf->shoff + (uint64_t)elf->shnum * shent_of(elf) > end) {
		if (elf->shoff < end)
			return no_room(p, "section headers overlap the program headers");
		mark(p, elf->shoff, (uint64_t)elf->shnum * shent_of(elf),
		     B_RELEASED);
		p->shdrs_released = true;
	}
	if (!range_free(p, end, ent, false))
		return no_room(p, "no free bytes after the program header table");
	/*
	 * A PT_PHDR grows with the table, so it must describe exactly the
	 * table; growing any other one would point it at unrelated bytes.
	 */
	for (i = 0; i < p->phnum; i++) {
		const struct ebid_phdr *ph = &p->phdrs[i];

		if (ph->type != EBID_PT_PHDR)
			continue;
		if (ph->offset != elf->phoff)
			return ebid_err(p->err, p->errlen, -EBID_EMALFORMED,
					"malformed ELF: program header [%zu]: PT_PHDR p_offset 0x%llx is not e_phoff 0x%llx",
					i, (unsigned long long)ph->offset,
					(unsigned long long)elf->phoff);
		if (ph->filesz != end - elf->phoff ||
		    ph->memsz != ph->filesz)
			return ebid_err(p->err, p->errlen, -EBID_EMALFORMED,
					"malformed ELF: program header [%zu]: PT_PHDR p_filesz %llu/p_memsz %llu, but the table has %llu bytes",
					i, (unsigned long long)ph->filesz,
					(unsigned long long)ph->memsz,
					(unsigned long long)(end - elf->phoff));
	}
	mark(p, end, ent, B_CLAIMED);
	for (i = 0; i < p->phnum; i++)
		if (p->phdrs[i].type == EBID_PT_PHDR) {
			p->phdrs[i].filesz += ent;
			p->phdrs[i].memsz += ent;
		}
	p->plan->new_pt = p->phnum++;
	p->plan->actions |= EBID_ACT_ADD_PT;
	return 0;
}

/* Sets up the new PT_NOTE (already counted by grow_phdrs) over a note. */
static int new_pt_note(struct planner *p, uint64_t off, uint64_t len)
{
	const struct ebid_phdr *load = load_of(p, off, len);
	struct ebid_phdr *ph = &p->phdrs[NEW_PT(p)];

	if (!load)
		return no_room(p, "note would lie outside every loadable segment");
	memset(ph, 0, sizeof(*ph));
	ph->type = EBID_PT_NOTE;
	ph->flags = 4; /* PF_R */
	ph->offset = off;
	ph->vaddr = load->vaddr + (off - load->offset);
	ph->paddr = load->paddr + (off - load->offset);
	ph->filesz = len;
	ph->memsz = len;
	ph->align = 4;
	return 0;
}

/* A PT_NOTE in the first page that can grow by len to take [off, off+len). */
static int find_adjacent_pt(const struct planner *p, uint64_t off,
			    uint64_t len)
{
	size_t i;

	for (i = 0; i < p->phnum; i++) {
		const struct ebid_phdr *ph = &p->phdrs[i];
		uint64_t end = ph->offset + ph->filesz;

		if (ph->type != EBID_PT_NOTE || ph->align > 4 ||
		    ph->filesz != ph->memsz || end > p->page)
			continue;
		if (off + len == ph->offset || end == off) {
			uint64_t lo = off < ph->offset ? off : ph->offset;

			if (load_of(p, lo, ph->filesz + len))
				return (int)i;
		}
	}
	return -1;
}

static void extend_pt(struct planner *p, int i, uint64_t off, uint64_t len)
{
	struct ebid_phdr *ph = &p->phdrs[i];

	if (off + len == ph->offset) {
		ph->offset -= len;
		ph->vaddr -= len;
		ph->paddr -= len;
	}
	ph->filesz += len;
	ph->memsz += len;
	p->plan->actions |= EBID_ACT_EXTEND_PT;
}

static void encode_note(const struct planner *p, unsigned char *buf)
{
	unsigned char d = p->elf->data;
	size_t size = (size_t)ebid_gnu_note_size(p->desc_len);

	memset(buf, 0, size);
	ebid_put(buf, 4, 4, d);
	ebid_put(buf + 4, 4, p->desc_len, d);
	ebid_put(buf + 8, 4, EBID_NT_GNU_BUILD_ID, d);
	memcpy(buf + 12, "GNU", 4);
}

/* The symbol record whose st_value field is at output offset off, or NULL. */
static const struct ebid_symref *symref_at(const struct planner *p,
					   uint64_t off)
{
	const struct ebid_elf *elf = p->elf;
	size_t i;

	for (i = 0; i < elf->n_note_syms; i++)
		if (ebid_plan_outoff(p->plan, elf->note_syms[i].value_off) ==
		    off)
			return &elf->note_syms[i];
	return NULL;
}

/*
 * Does symbol r point into section s (or right at its end, as an end
 * marker does)? mold gives __ehdr_start and __executable_start the index
 * of the first section, .interp, and the ELF header's address: those do
 * not move with it.
 */
static bool sym_in(const struct ebid_symref *r, const struct ebid_shdr *s)
{
	return r->value >= s->addr && r->value - s->addr <= s->size;
}

/* Is r a symbol of a section in [from, to) that points into it? */
static bool in_run(const struct ebid_elf *elf, const struct ebid_symref *r,
		   uint64_t from, uint64_t to)
{
	const struct ebid_shdr *s;

	if (!r->shndx || r->shndx >= elf->shnum)
		return false;
	s = &elf->shdrs[r->shndx];
	return s->type != EBID_SHT_NOBITS && s->size && s->offset >= from &&
	       s->offset < to && sym_in(r, s);
}

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

		if (s->type == EBID_SHT_NOBITS || !s->size ||
		    s->offset >= off + len || s->offset + s->size <= off)
			continue;
		if (found || s->type != EBID_SHT_NOTE ||
		    !(s->flags & EBID_SHF_ALLOC) || s->addralign > 4 ||
		    s->offset != off || s->size != len || s->addr != addr)
			return 0;
		found = i;
	}
	return found;
}

/*
 * Section m is .note.ABI-tag holding one GNU ABI tag note (NT_GNU_ABI_TAG),
 * which glibc's loader reads through PT_NOTE only and no code addresses:
 * the one note that move_note() moves.
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
	       ebid_get(n + 8, 4, elf->data) == 1 /* NT_GNU_ABI_TAG */ &&
	       descsz <= s->size &&
	       s->size == 16 + ((descsz + 3) & ~3ull);
}

/*
 * The PT_LOAD that maps the start of the file, which move_note() and
 * move_head() grow: its index in *li. NULL, or why there is none that
 * may grow.
 */
static const char *first_load(struct planner *p, struct ebid_phdr **load,
			      size_t *li)
{
	size_t i;

	for (i = 0; i < p->phnum; i++)
		if (p->phdrs[i].type == EBID_PT_LOAD && !p->phdrs[i].offset) {
			*load = &p->phdrs[i];
			*li = i;
			if ((*load)->filesz != (*load)->memsz)
				return "the first PT_LOAD has bytes in memory beyond the file";
			return NULL;
		}
	return "no PT_LOAD maps the start of the file";
}

/*
 * bfd's -z separate-code layout: the program headers are followed, packed,
 * by .interp and the notes, and the first PT_LOAD ends inside the first
 * page with zero padding up to the next segment. A 4-aligned note that has
 * a PT_NOTE to itself (.note.ABI-tag) moves into that padding, the new
 * note goes right after it, its PT_NOTE is retargeted over both and the
 * first PT_LOAD grows over them. The rule that makes it safe
 * (docs/build-id.md): the grown bytes were zero padding that no section,
 * segment or header used, they stay in the first page, in the file and in
 * memory before every other segment; the moved note was one section under
 * one PT_NOTE and nothing else (never PT_GNU_PROPERTY); the symbols of that
 * section move with it. No loaded code or data moves. Returns NULL, or why
 * not.
 */
static const char *move_note(struct planner *p)
{
	const struct ebid_elf *elf = p->elf;
	uint64_t len = ebid_gnu_note_size(p->desc_len);
	uint64_t to, end, from, size, delta, old_addr;
	struct ebid_phdr *load = NULL, *pt = NULL;
	size_t li = 0, pi = 0, m = 0, i, j;
	unsigned char zero[EBID_PAGE];
	const char *why;
	int ret;

	if (p->opts->no_move)
		return "--no-move forbids moving a note";
	why = first_load(p, &load, &li);
	if (why)
		return why;
	if (load->filesz >= p->page)
		return "the first PT_LOAD runs past the first page";
	to = ebid_align_up(load->filesz, 4);
	/* A 4-aligned note alone under its own PT_NOTE, in that PT_LOAD. */
	for (i = 0; i < p->phnum && !m; i++) {
		const struct ebid_phdr *ph = &p->phdrs[i];

		if (ph->type != EBID_PT_NOTE || ph->align > 4 ||
		    ph->filesz != ph->memsz || !ph->filesz || ph->offset % 4 ||
		    ph->offset > load->filesz ||
		    ph->filesz > load->filesz - ph->offset ||
		    ph->vaddr != load->vaddr + ph->offset ||
		    ph->paddr != load->paddr + ph->offset)
			continue;
		for (j = 0; j < p->phnum; j++) {
			const struct ebid_phdr *o = &p->phdrs[j];

			if (j == i || o->type == EBID_PT_LOAD)
				continue;
			if (o->offset < ph->offset + ph->filesz &&
			    o->offset + o->filesz > ph->offset)
				break;
		}
		if (j < p->phnum)
			continue;
		m = sole_note_section(p, ph->offset, ph->filesz, ph->vaddr);
		if (m)
			pi = i;
	}
	if (!m)
		return "no 4-aligned note with a PT_NOTE to itself to move";
	if (!is_abi_tag(p, m))
		return "the note with a PT_NOTE to itself is not a lone GNU ABI tag (.note.ABI-tag)";
	pt = &p->phdrs[pi];
	from = pt->offset;
	size = pt->filesz;
	old_addr = pt->vaddr;
	end = to + size + len;
	if (end > p->page)
		return "the first page has no room after the first PT_LOAD";
	if (!range_free(p, load->filesz, end - load->filesz, false))
		return "the bytes after the first PT_LOAD are not free zero padding";
	for (i = 0; i < p->phnum; i++) {
		const struct ebid_phdr *o = &p->phdrs[i];

		if (i == li || o->type != EBID_PT_LOAD)
			continue;
		if (o->offset < end)
			return "the next PT_LOAD starts in the file before the grown end";
		if (o->vaddr < load->vaddr + end &&
		    o->vaddr + o->memsz > load->vaddr + load->filesz)
			return "the grown first PT_LOAD would overlap another segment's addresses";
	}
	if (!elf->note_syms_read || elf->note_syms_over)
		return "the symbols of first-page notes are not all known (more than 64, an extended index, a section index past the last section, or a table outside the file)";
	for (i = 0; i < elf->n_note_syms; i++) {
		const struct ebid_symref *r = &elf->note_syms[i];

		bool own = r->shndx == m && sym_in(r, &elf->shdrs[m]);

		if (!own && r->value >= old_addr && r->value - old_addr < size)
			return "a symbol of another section points into the note";
		/*
		 * Only local symbols move: code of another object (or of
		 * another program, by the dynamic table) could hold the
		 * address of a global one.
		 */
		if (own && (r->dynamic || r->info >> 4 != 0))
			return "a global or dynamic symbol names the note";
	}

	/* The plan: the note, its headers, its symbols. */
	delta = to - from;
	ret = add_patch(p, to, elf->head + from, (size_t)size,
			"note moved (new place)");
	if (!ret) {
		memset(zero, 0, sizeof(zero));
		ret = add_patch(p, from, zero, (size_t)size,
				"note moved (old place cleared)");
	}
	for (i = 0; !ret && i < elf->n_note_syms; i++) {
		const struct ebid_symref *r = &elf->note_syms[i];
		unsigned char buf[8];
		size_t w = elf->elfclass == 2 ? 8 : 4;

		if (r->shndx != m || !sym_in(r, &elf->shdrs[m]))
			continue;
		ebid_put(buf, w, r->value + delta, elf->data);
		ret = add_patch(p, r->value_off, buf, w, "symbol value (moved)");
	}
	if (ret)
		return "out of memory";
	mark(p, from, size, B_CLAIMED);
	mark(p, load->filesz, end - load->filesz, B_CLAIMED);
	pt->offset = to;
	pt->vaddr = load->vaddr + to;
	pt->paddr = load->paddr + to;
	pt->filesz = pt->memsz = size + len;
	load->filesz = load->memsz = end;
	p->shdrs[m].offset = to;
	p->shdrs[m].addr = load->vaddr + to;
	p->note_off = to + size;
	p->plan->actions |= EBID_ACT_MOVE_NOTE;
	p->plan->moved_shndx = m;
	p->plan->moved_from = from;
	p->plan->moved_to = to;
	p->plan->moved_size = size;
	p->plan->moved_pt = pi;
	p->plan->grown_load = li;
	return NULL;
}

bool ebid_plan_sym_moves(const struct ebid_plan *plan,
			 const struct ebid_elf *elf,
			 const struct ebid_symref *r)
{
	return ebid_plan_moved(plan, elf, r->shndx) &&
	       sym_in(r, &elf->shdrs[r->shndx]);
}

bool ebid_plan_moved(const struct ebid_plan *plan, const struct ebid_elf *elf,
		     size_t shndx)
{
	const struct ebid_shdr *s;

	if (!shndx || shndx >= elf->shnum)
		return false;
	if (plan->actions & EBID_ACT_MOVE_NOTE)
		return shndx == plan->moved_shndx;
	if (!(plan->actions & EBID_ACT_MOVE_HEAD))
		return false;
	s = &elf->shdrs[shndx];
	return s->type != EBID_SHT_NOBITS && s->size &&
	       s->offset >= plan->head_from &&
	       s->offset + s->size <= plan->head_from + plan->head_size;
}


/*
 * The DT_ tag that holds the address of a dynamic table section (the
 * dynamic loader reads it only through that entry), or 0.
 */
static uint64_t dyn_tag_of(const struct ebid_shdr *s)
{
	if (!(s->flags & EBID_SHF_ALLOC))
		return 0;
	switch (s->type) {
	case 0x6ffffff6: return 0x6ffffef5;     /* .gnu.hash: DT_GNU_HASH */
	case 5: return 4;                       /* .hash: DT_HASH */
	case 11: return 6;                      /* .dynsym: DT_SYMTAB */
	case 0x6fffffff: return 0x6ffffff0;     /* .gnu.version: DT_VERSYM */
	case 0x6ffffffe: return 0x6ffffffe;     /* .gnu.version_r: DT_VERNEED */
	case 0x6ffffffd: return 0x6ffffffc;     /* .gnu.version_d: DT_VERDEF */
	case 3:                                 /* .dynstr: DT_STRTAB */
		return s->name_str && !strcmp(s->name_str, ".dynstr") ? 5 : 0;
	default: return 0;
	}
}

/* How many entries of the dynamic table give section s's address. */
static size_t dyn_refs(const struct ebid_elf *elf, const struct ebid_shdr *s)
{
	size_t i, n = 0;

	if (elf->dyn_bad)
		return 0;
	for (i = 0; i < elf->ndyn; i++)
		if (elf->dyn[i].tag == dyn_tag_of(s) &&
		    elf->dyn[i].val == s->addr)
			n++;
	return n;
}

bool ebid_dyn_is_addr(uint64_t tag)
{
	/* DT_VALRNGLO..DT_VALRNGHI: values, not addresses. */
	if (tag >= 0x6ffffd00 && tag <= 0x6ffffdff)
		return false;
	switch (tag) {
	case 0:  /* DT_NULL */
	case 1:  /* DT_NEEDED */
	case 2:  /* DT_PLTRELSZ */
	case 8:  /* DT_RELASZ */
	case 9:  /* DT_RELAENT */
	case 10: /* DT_STRSZ */
	case 11: /* DT_SYMENT */
	case 14: /* DT_SONAME */
	case 15: /* DT_RPATH */
	case 16: /* DT_SYMBOLIC */
	case 18: /* DT_RELSZ */
	case 19: /* DT_RELENT */
	case 20: /* DT_PLTREL */
	case 22: /* DT_TEXTREL */
	case 24: /* DT_BIND_NOW */
	case 27: /* DT_INIT_ARRAYSZ */
	case 28: /* DT_FINI_ARRAYSZ */
	case 29: /* DT_RUNPATH */
	case 30: /* DT_FLAGS */
	case 33: /* DT_PREINIT_ARRAYSZ */
	case 35: /* DT_RELRSZ */
	case 37: /* DT_RELRENT */
	case 0x6ffffff9: /* DT_RELACOUNT */
	case 0x6ffffffa: /* DT_RELCOUNT */
	case 0x6ffffffb: /* DT_FLAGS_1 */
	case 0x6ffffffd: /* DT_VERDEFNUM */
	case 0x6fffffff: /* DT_VERNEEDNUM */
	case 0x7ffffffd: /* DT_AUXILIARY */
	case 0x7fffffff: /* DT_FILTER */
		return false;
	default:
		/* Any other tag is taken for an address: the safe side. */
		return true;
	}
}

/* Is d the entry of a dynamic table section in [from, to) at its start? */
static bool dyn_names_table(const struct ebid_elf *elf,
			    const struct ebid_dynref *d, uint64_t from,
			    uint64_t to)
{
	size_t i;

	for (i = 1; i < elf->shnum; i++) {
		const struct ebid_shdr *s = &elf->shdrs[i];

		if (s->type != EBID_SHT_NOBITS && s->size && s->offset >= from &&
		    s->offset + s->size <= to && dyn_tag_of(s) == d->tag &&
		    s->addr == d->val)
			return true;
	}
	return false;
}

/* Does ph cover an address in [lo, hi)? */
static bool covers_addr(const struct ebid_phdr *ph, uint64_t lo, uint64_t hi)
{
	return ph->memsz && ph->vaddr < hi && ph->vaddr + ph->memsz > lo;
}

/* A section move_head() may move: .interp, or an allocated note. */
static bool head_movable(const struct ebid_shdr *s)
{
	return (s->flags & EBID_SHF_ALLOC) && s->addralign <= 8 &&
	       (s->type == EBID_SHT_NOTE ||
		(s->type == 1 /* SHT_PROGBITS */ && s->name_str &&
		 !strcmp(s->name_str, ".interp")));
}


/* The end of the last byte a header, section or segment describes. */
static uint64_t described_end(const struct planner *p)
{
	const struct ebid_elf *elf = p->elf;
	uint64_t end = elf->phoff + (uint64_t)elf->phnum * phent_of(elf);
	size_t i;

	if (elf->shnum && elf->shoff + (uint64_t)elf->shnum * shent_of(elf) > end)
		end = elf->shoff + (uint64_t)elf->shnum * shent_of(elf);
	for (i = 1; i < elf->shnum; i++)
		if (elf->shdrs[i].type != EBID_SHT_NOBITS &&
		    elf->shdrs[i].offset + elf->shdrs[i].size > end)
			end = elf->shdrs[i].offset + elf->shdrs[i].size;
	for (i = 0; i < elf->phnum; i++)
		if (elf->phdrs[i].offset + elf->phdrs[i].filesz > end)
			end = elf->phdrs[i].offset + elf->phdrs[i].filesz;
	return end;
}

/*
 * Makes room in the file: ins zero bytes at input offset at, every file
 * offset from there on moved up by ins. Addresses do not change, and ins
 * is a multiple of every segment's alignment, so offsets stay congruent
 * to addresses. The first page from at on is free zeros.
 */
static void insert_gap(struct planner *p, uint64_t at, uint64_t ins)
{
	size_t i;

	p->plan->ins_at = at;
	p->plan->ins_len = ins;
	p->plan->out_size = p->plan->in_size + ins;
	p->plan->actions |= EBID_ACT_INSERT;
	for (i = 0; i < p->phnum; i++)
		if (p->phdrs[i].offset >= at)
			p->phdrs[i].offset += ins;
	for (i = 1; i < p->shnum; i++)
		if (p->shdrs[i].offset >= at)
			p->shdrs[i].offset += ins;
	if (p->shnum && p->shoff >= at)
		p->shoff += ins;
	for (i = at; i < p->page; i++) {
		p->map[i] = B_FREE;
		p->loadable[i] = 0;
	}
}

/*
 * move-head (docs/build-id.md). Where the program headers are followed,
 * packed, by .interp and the notes and nothing else in the first page is
 * free (lld, mold, a Go or C program linked externally whose first
 * PT_LOAD runs past the first page), that run of sections moves whole
 * behind the end of the first PT_LOAD, which grows over it; each of its
 * PT_INTERP, PT_NOTE and PT_GNU_PROPERTY headers and its local symbols
 * move with it. The freed bytes take one more program header and the new
 * note, so the kernel finds the id in the first page. Where the next
 * segment starts right behind the first PT_LOAD (lld and mold pack the
 * file), the file gets a gap of one segment alignment there first
 * (insert_gap), which keeps every address. The rule that makes it safe:
 * no loaded code or data moves and no address changes but those of the
 * moved sections, which no code addresses (the kernel and the dynamic
 * loader find them through their program headers), and the bytes the
 * first PT_LOAD grows over were zero padding that nothing used, before
 * every other segment in the file and in memory. Returns NULL, or why not.
 */
static const char *move_head(struct planner *p)
{
	const struct ebid_elf *elf = p->elf;
	size_t ent = phent_of(elf), li = 0, i, n = 0;
	uint64_t phend = elf->phoff + (uint64_t)elf->phnum * ent;
	uint64_t run_end = phend, next = UINT64_MAX;
	size_t cand[EBID_HEAD_CAND_MAX], ncand = 0, k, tables = 0;
	uint64_t m = 1, delta, dest, dest_end, grow_end, addr_lo, addr_hi;
	uint64_t len = ebid_gnu_note_size(p->desc_len), ins = 0, j;
	struct ebid_phdr *load = NULL;
	const char *why;
	bool spill;
	int ret;

	if (p->opts->no_move)
		return "--no-move forbids moving them";
	why = first_load(p, &load, &li);
	if (why)
		return why;
	if (!elf->note_syms_read || elf->note_syms_over)
		return "their symbols are not all known (more than 64, an extended index, a section index past the last section, or a table outside the file)";
	/*
	 * The run, in file order from the program headers: .interp and the
	 * notes, then dynamic tables (.gnu.hash, .dynsym, ...) only while the
	 * bytes freed so far cannot take a program header. Where the note
	 * cannot go behind the first PT_LOAD in the first page (spill: it
	 * runs past it), the freed bytes must take the note too, so tables
	 * are added until they take both.
	 */
	spill = load->filesz + len > EBID_PAGE;
	for (i = 1; i < elf->shnum; i++) {
		const struct ebid_shdr *s = &elf->shdrs[i];

		if (s->type == EBID_SHT_NOBITS || !s->size ||
		    s->offset + s->size <= phend || s->offset >= elf->head_len)
			continue;
		if (s->offset < phend)
			return "a section overlaps the program headers";
		if (ncand == EBID_HEAD_CAND_MAX)
			return "too many sections in the first page";
		for (k = ncand++; k && elf->shdrs[cand[k - 1]].offset > s->offset;
		     k--)
			cand[k] = cand[k - 1];
		cand[k] = i;
	}
	for (k = 0; k < ncand; k++) {
		const struct ebid_shdr *s = &elf->shdrs[cand[k]];
		bool table = !head_movable(s) && dyn_tag_of(s);

		if (!head_movable(s) &&
		    !(table && (s->offset - phend < ent ||
				(spill && ebid_align_up(phend + ent, 4) + len >
						  s->offset))))
			break;
		if (s->offset < run_end)
			return "sections overlap among them";
		if (s->addr != load->vaddr + s->offset)
			return "a note or .interp is not mapped where the first PT_LOAD maps its bytes";
		if (table && (s->addralign > 8 || dyn_refs(elf, s) != 1))
			return "a dynamic table to move is not named once by its DT_ entry (or the dynamic table is unreadable)";
		run_end = s->offset + s->size;
		if (s->addralign > m)
			m = s->addralign;
		n++;
		tables += table;
	}
	if (elf->shoff < run_end &&
	    elf->shoff + (uint64_t)elf->shnum * shent_of(elf) > phend)
		return "the section header table lies among them";
	if (!n)
		return "no .interp, note or dynamic table follows the program headers";
	if (run_end > load->filesz)
		return "the notes after the program headers lie outside the first PT_LOAD";
	if (run_end > elf->head_len)
		return "the sections to move run past the first page (a dynamic table too large)";
	/* Empty sections there would be left pointing at other bytes. */
	for (i = 1; i < elf->shnum; i++) {
		const struct ebid_shdr *s = &elf->shdrs[i];

		if ((s->type == EBID_SHT_NOBITS || !s->size) && s->type &&
		    s->offset >= phend && s->offset < run_end)
			return "an empty section lies among them";
	}
	for (j = phend; j < run_end; j++)
		if (elf->head[j] && p->map[j] == B_USED) {
			size_t sec;
			bool in = false;

			for (sec = 1; sec < elf->shnum && !in; sec++) {
				const struct ebid_shdr *s = &elf->shdrs[sec];

				in = s->type != EBID_SHT_NOBITS &&
				     j >= s->offset && j < s->offset + s->size;
			}
			if (!in)
				return "bytes among them belong to no section";
		}
	/* Their program headers: within the run, and of the kinds known. */
	for (i = 0; i < p->phnum; i++) {
		const struct ebid_phdr *ph = &p->phdrs[i];

		if (i != li && ebid_phdr_by_address(ph) &&
		    covers_addr(ph, load->vaddr + phend, load->vaddr + run_end))
			return "a PT_GNU_RELRO or PT_TLS covers their addresses";
		/* A header with no file bytes covers none (PT_GNU_STACK). */
		if (i == li || !ph->filesz || ebid_phdr_by_address(ph) ||
		    ph->offset >= run_end || ph->offset + ph->filesz <= phend)
			continue;
		if (ph->type == EBID_PT_LOAD)
			return "another PT_LOAD maps them";
		if (ph->type != 3 /* PT_INTERP */ && ph->type != EBID_PT_NOTE &&
		    ph->type != 0x6474e553 /* PT_GNU_PROPERTY */)
			return "a program header other than PT_INTERP, PT_NOTE or PT_GNU_PROPERTY covers them";
		if (ph->offset < phend || ph->offset + ph->filesz > run_end ||
		    ph->memsz != ph->filesz ||
		    ph->vaddr != load->vaddr + ph->offset ||
		    ph->paddr != load->paddr + ph->offset)
			return "a program header covers them and more";
		if (ph->align > m)
			m = ph->align;
	}
	if (m & (m - 1) || m > 64)
		return "a note or .interp has an alignment that is not a power of two up to 64";
	/* Symbols: those of the run's sections move; nothing else points in. */
	addr_lo = load->vaddr + phend;
	addr_hi = load->vaddr + run_end;
	for (i = 0; i < elf->n_note_syms; i++) {
		const struct ebid_symref *r = &elf->note_syms[i];
		bool own = in_run(elf, r, phend, run_end);

		if (!own && r->value >= addr_lo && r->value < addr_hi)
			return "a symbol of another section points into them";
		if (own && (r->dynamic || r->info >> 4 != 0))
			return "a global or dynamic symbol names one of them";
	}
	/*
	 * The dynamic table: a moved table's own entry moves with it; no
	 * other address in it may point into the run.
	 */
	if (elf->dyn_bad)
		return "the dynamic table cannot be read as the loader reads it (not one PT_DYNAMIC, mapped where its bytes are and where .dynamic is, ending in DT_NULL, at most 512 entries)";
	for (i = 0; i < elf->ndyn; i++) {
		const struct ebid_dynref *d = &elf->dyn[i];

		if (!ebid_dyn_is_addr(d->tag) || d->val < addr_lo ||
		    d->val >= addr_hi)
			continue;
		if (!dyn_names_table(elf, d, phend, run_end))
			return "a dynamic entry points into them";
	}

	/* Where the run goes: behind the first PT_LOAD, its alignment kept. */
	delta = ebid_align_up(load->filesz - phend, m);
	dest = phend + delta;
	dest_end = run_end + delta;
	/*
	 * The freed bytes take the new program header, and the note when it
	 * fits there too; otherwise the note goes right behind the moved
	 * run, which must then end in the first page.
	 */
	grow_end = dest_end;
	if (ebid_align_up(phend + ent, 4) + len > run_end) {
		grow_end = ebid_align_up(dest_end, 4) + len;
		if (grow_end > EBID_PAGE)
			return "too few bytes free for a program header and the note, and the first PT_LOAD runs past the first page";
	}
	for (i = 0; i < p->phnum; i++) {
		const struct ebid_phdr *o = &p->phdrs[i];

		if (i == li || (!o->filesz && !o->memsz))
			continue;
		if (o->offset >= load->filesz && o->offset < next)
			next = o->offset;
		if ((o->type == EBID_PT_LOAD || ebid_phdr_by_address(o)) &&
		    covers_addr(o, load->vaddr + load->filesz,
				load->vaddr + grow_end))
			return "the grown first PT_LOAD would overlap another segment's addresses";
		if (ebid_phdr_by_address(o))
			continue;
		if (o->offset < load->filesz && o->offset + o->filesz > load->filesz)
			return "a segment runs on past the end of the first PT_LOAD";
	}
	for (i = 1; i < elf->shnum; i++) {
		const struct ebid_shdr *s = &elf->shdrs[i];

		if (s->type == EBID_SHT_NOBITS || !s->size)
			continue;
		if (s->offset >= load->filesz && s->offset < next)
			next = s->offset;
		if (s->offset < load->filesz && s->offset + s->size > load->filesz)
			return "a section runs on past the end of the first PT_LOAD";
	}
	if (elf->shnum && elf->shoff >= load->filesz && elf->shoff < next)
		next = elf->shoff;
	if (next > elf->file_size)
		next = elf->file_size;
	for (j = load->filesz; j < next && j < grow_end; j++)
		if (!ebid_elf_byte_zero(elf, j))
			return "the bytes after the first PT_LOAD are not zero padding";
	if (grow_end > next) {
		/* No room behind it: a gap of one segment alignment. */
		ins = EBID_PAGE;
		for (i = 0; i < p->phnum; i++)
			if (p->phdrs[i].type == EBID_PT_LOAD &&
			    p->phdrs[i].align > ins)
				ins = p->phdrs[i].align;
		if (ins & (ins - 1) || ins > (64u << 10))
			return "the segments' alignment is not a power of two up to 64 KiB";
		for (i = 1; i < elf->shnum; i++)
			if (elf->shdrs[i].addralign > ins &&
			    elf->shdrs[i].offset >= next)
				return "a section behind the first PT_LOAD is aligned to more than a segment";
		if (grow_end > next + ins)
			return "too many bytes to move behind the first PT_LOAD";
		/*
		 * Bytes no header describes at the end (an appended payload,
		 * a self-extracting archive) may name their own file offsets,
		 * which a gap would break.
		 */
		if (described_end(p) < elf->file_size)
			return "data follows everything the headers describe (an appended payload?), and a gap would move it";
	}

	/* The plan. */
	ret = add_patch(p, dest, elf->head + phend, (size_t)(run_end - phend),
			"moved sections (new place)");
	for (i = 0; !ret && i < elf->n_note_syms; i++) {
		const struct ebid_symref *r = &elf->note_syms[i];
		unsigned char buf[8];
		size_t w = elf->elfclass == 2 ? 8 : 4;

		if (!in_run(elf, r, phend, run_end))
			continue;
		ebid_put(buf, w, r->value + delta, elf->data);
		ret = add_patch(p, r->value_off + (r->value_off >= next ? ins : 0),
				buf, w, "symbol value (moved)");
	}
	for (i = 0; !ret && tables && i < elf->ndyn; i++) {
		const struct ebid_dynref *d = &elf->dyn[i];
		unsigned char buf[8];
		size_t w = elf->elfclass == 2 ? 8 : 4;
		char what[64];

		if (!ebid_dyn_is_addr(d->tag) || d->val < addr_lo ||
		    d->val >= addr_hi)
			continue;
		ebid_put(buf, w, d->val + delta, elf->data);
		snprintf(what, sizeof(what), "dynamic entry (tag 0x%llx, moved)",
			 (unsigned long long)d->tag);
		ret = add_patch(p, d->val_off + (d->val_off >= next ? ins : 0),
				buf, w, what);
	}
	if (ret)
		return "out of memory";
	if (ins)
		insert_gap(p, next, ins);
	mark(p, phend, run_end - phend, B_RELEASED);
	mark(p, load->filesz, dest_end - load->filesz, B_CLAIMED);
	for (j = load->filesz; j < grow_end && j < p->page; j++)
		p->loadable[j] = 1;
	for (i = 0; i < p->phnum; i++) {
		struct ebid_phdr *ph = &p->phdrs[i];

		if (i == li || !ph->filesz || ebid_phdr_by_address(ph) ||
		    ph->offset < phend || ph->offset >= run_end)
			continue;
		ph->offset += delta;
		ph->vaddr += delta;
		ph->paddr += delta;
	}
	for (i = 1; i < elf->shnum; i++) {
		struct ebid_shdr *sh = &p->shdrs[i];

		if (sh->type == EBID_SHT_NOBITS || !sh->size ||
		    sh->offset < phend || sh->offset >= run_end)
			continue;
		sh->offset += delta;
		sh->addr += delta;
	}
	load->filesz = load->memsz = grow_end;
	p->plan->actions |= EBID_ACT_MOVE_HEAD;
	p->plan->head_from = phend;
	p->plan->head_to = dest;
	p->plan->head_size = run_end - phend;
	p->plan->grown_load = li;
	return NULL;
}

/*
 * After move_head() and the new program header: the note goes into the
 * freed bytes when it fits there, else right behind the moved run (which
 * move_head() made loadable for it). The rest of the freed bytes stays
 * zero: no table moves in there (B_DEAD).
 */
static int place_head_note(struct planner *p, uint64_t len)
{
	const struct ebid_plan *plan = p->plan;
	uint64_t end = plan->head_from + plan->head_size, off, i;
	int ret;

	off = ebid_align_up(plan->head_from + phent_of(p->elf), 4);
	if (off + len > end)
		off = ebid_align_up(plan->head_to + plan->head_size, 4);
	if (!range_free(p, off, len, true))
		return ebid_err(p->err, p->errlen, -EBID_EVERIFY,
				"internal error: no room for the note where move-head made it");
	mark(p, off, len, B_CLAIMED);
	for (i = plan->head_from; i < end && i < p->page; i++)
		if (p->map[i] == B_RELEASED)
			p->map[i] = B_DEAD;
	p->note_off = off;
	ret = new_pt_note(p, off, len);
	if (!ret)
		ret = place_shdrs(p, 1);
	if (!ret)
		ret = place_name(p);
	return ret;
}

/* Places a new note: below a PT_NOTE that can grow, or with its own one. */
static int place_new_note(struct planner *p)
{
	uint64_t len = ebid_gnu_note_size(p->desc_len);
	unsigned char saved[EBID_PAGE];
	size_t i, phnum0 = p->phnum;
	int64_t off;
	int ret;

	memcpy(saved, p->map, sizeof(saved));
	/* Go's layout: the zero gap right below .note.go.buildid. */
	for (i = 0; i < p->phnum; i++) {
		const struct ebid_phdr *ph = &p->phdrs[i];

		if (ph->type != EBID_PT_NOTE || ph->offset < len ||
		    ph->offset % 4)
			continue;
		off = (int64_t)(ph->offset - len);
		if (!range_free(p, (uint64_t)off, len, true) ||
		    find_adjacent_pt(p, (uint64_t)off, len) != (int)i)
			continue;
		mark(p, (uint64_t)off, len, B_CLAIMED);
		extend_pt(p, (int)i, (uint64_t)off, len);
		p->note_off = (uint64_t)off;
		ret = place_shdrs(p, 1);
		if (!ret)
			ret = place_name(p);
		return ret;
	}
	/* Otherwise a PT_NOTE of its own, as high in the page as fits. */
	memcpy(p->map, saved, sizeof(saved));
	p->phnum = phnum0;
	p->shdrs_released = false;
	ret = grow_phdrs(p);
	if (ret == -EBID_ENOROOM) {
		char why[EBID_ERRLEN];
		const char *move_why, *head_why;

		/* No program header can be added: a note may move instead. */
		snprintf(why, sizeof(why), "%s", p->err);
		memcpy(p->map, saved, sizeof(saved));
		p->phnum = phnum0;
		p->shdrs_released = false;
		move_why = move_note(p);
		if (!move_why) {
			ret = place_shdrs(p, 1);
			if (!ret)
				ret = place_name(p);
			return ret;
		}
		/* Or the sections after the program headers move, making room. */
		head_why = move_head(p);
		if (head_why) {
			const char *at = strstr(why, "the note: ");
			char all[3 * EBID_ERRLEN];
			char *semi;

			/* The first reason without its advice, then these. */
			snprintf(all, sizeof(all), "%s", at ? at + 10 : why);
			semi = strrchr(all, ';');
			if (semi)
				*semi = '\0';
			snprintf(all + strlen(all), sizeof(all) - strlen(all),
				 "; no note can move: %s; the sections after the program headers cannot move: %s",
				 move_why, head_why);
			return no_room(p, all);
		}
		ret = grow_phdrs(p);
		if (ret)
			return ret;
		return place_head_note(p, len);
	} else if (ret) {
		return ret;
	}
	off = alloc_in_page(p, len, 4, true, true);
	if (off < 0)
		return no_room(p, "no zero gap in the first page for the note");
	mark(p, (uint64_t)off, len, B_CLAIMED);
	p->note_off = (uint64_t)off;
	ret = new_pt_note(p, (uint64_t)off, len);
	if (!ret)
		ret = place_shdrs(p, 1);
	if (!ret)
		ret = place_name(p);
	return ret;
}

/* Makes an existing note kernel-visible. */
static int repair_coverage(struct planner *p)
{
	const struct ebid_note *g = &p->elf->gnu;
	uint64_t len = g->note_size;
	int i, ret;

	if (g->note_off % 4 || g->note_off + len > p->page)
		return no_room(p, "the existing note lies beyond the first page, where the kernel cannot read it");
	/*
	 * A note inside a PT_NOTE that the kernel's 4-byte walk does not
	 * reach (8-aligned notes before it): a second PT_NOTE over it would
	 * overlap that one. docs/build-id.md: refused.
	 */
	i = ebid_note_container(p->elf);
	if (i >= 0 && g->pt_index < 0)
		return no_room(p, "the note lies in a PT_NOTE whose notes the kernel walks at another alignment");
	i = find_adjacent_pt(p, g->note_off, len);
	if (i >= 0) {
		extend_pt(p, i, g->note_off, len);
		return 0;
	}
	if (g->pt_index >= 0)
		return no_room(p, "the note's PT_NOTE cannot be made visible to the kernel");
	ret = grow_phdrs(p);
	if (!ret)
		ret = new_pt_note(p, g->note_off, len);
	if (!ret)
		ret = place_shdrs(p, 0);
	return ret;
}

static int patch_field(struct planner *p, size_t field_off, size_t width,
		       uint64_t val, const char *what)
{
	unsigned char buf[8];

	if (ebid_get(p->elf->head + field_off, width, p->elf->data) == val)
		return 0;
	ebid_put(buf, width, val, p->elf->data);
	return add_patch(p, field_off, buf, width, what);
}

/* The section name table's new contents, where place_name() put them. */
static int emit_section_names(struct planner *p)
{
	const struct ebid_elf *elf = p->elf;
	struct ebid_shdr *st = &p->shdrs[elf->shstrndx];
	const unsigned char *added;
	size_t nadded;
	uint64_t off;
	int ret;

	if (!p->shstrtab)
		return 0;
	added = (const unsigned char *)p->shstrtab + elf->shstrtab_size;
	nadded = p->shstrtab_len - elf->shstrtab_size;
	switch (p->shstrtab_place) {
	case PLACE_APPEND:
		ret = add_append(p, p->shstrtab, p->shstrtab_len, 1,
				 &p->shstrtab_off);
		break;
	case PLACE_IN_PAGE:
		ret = add_patch(p, p->shstrtab_off, p->shstrtab,
				p->shstrtab_len, ".shstrtab (moved)");
		break;
	case PLACE_KEEP:
	default:
		/* Grown in place: into slack, or at the end of the file. */
		if (p->shstrtab_off + p->shstrtab_len > body_end(p))
			ret = add_append(p, added, nadded, 1, &off);
		else
			ret = add_patch(p, st->offset + st->size, added,
					nadded, ".shstrtab (name added)");
		break;
	}
	if (ret)
		return ret;
	st->offset = p->shstrtab_off;
	st->size = p->shstrtab_len;
	p->plan->actions |= EBID_ACT_SHSTRTAB;
	return 0;
}

/*
 * Extended numbering lives in section 0: kept where the input used it,
 * taken up where the count needs it. Gives the e_shnum and e_phnum to
 * write.
 */
static int extended_counts(struct planner *p, uint64_t *e_shnum,
			   uint64_t *e_phnum)
{
	const struct ebid_elf *elf = p->elf;

	*e_shnum = p->shnum;
	*e_phnum = p->phnum;
	if (p->shnum >= EBID_SHN_LORESERVE ||
	    (elf->raw_shnum == 0 && elf->shnum > 0)) {
		*e_shnum = 0;
		p->shdrs[0].size = p->shnum;
	}
	if (p->phnum >= EBID_PN_XNUM || elf->raw_phnum == EBID_PN_XNUM) {
		*e_phnum = EBID_PN_XNUM;
		if (!p->shnum)
			return ebid_err(p->err, p->errlen, -EBID_ENOROOM,
					"too many program headers for a file without sections");
		p->shdrs[0].info = (uint32_t)p->phnum;
	}
	return 0;
}

/* A moved section header table, written whole where place_shdrs() put it. */
static int emit_moved_shdrs(struct planner *p)
{
	const struct ebid_elf *elf = p->elf;
	size_t she = shent_of(elf), i;
	unsigned char *table = calloc(p->shnum, she);
	int ret;

	if (!table)
		return ebid_err(p->err, p->errlen, -ENOMEM, "out of memory");
	for (i = 0; i < p->shnum; i++)
		ebid_shdr_encode(table + i * she, &p->shdrs[i], elf->elfclass,
				 elf->data);
	if (p->shdrs_place == PLACE_APPEND)
		ret = add_append(p, table, p->shnum * she,
				 elf->elfclass == 2 ? 8 : 4, &p->shoff);
	else
		ret = add_patch(p, p->shoff, table, p->shnum * she,
				"section header table (moved)");
	free(table);
	if (!ret)
		p->plan->actions |= EBID_ACT_MOVE_SHDRS;
	return ret;
}

/* Encodes a header (phdr or shdr) of the new set into buf. */
typedef void (*encode_fn)(unsigned char *buf, const void *hdr,
			  const struct ebid_elf *elf);

static void encode_shdr(unsigned char *buf, const void *hdr,
			const struct ebid_elf *elf)
{
	ebid_shdr_encode(buf, hdr, elf->elfclass, elf->data);
}

static void encode_phdr(unsigned char *buf, const void *hdr,
			const struct ebid_elf *elf)
{
	ebid_phdr_encode(buf, hdr, elf->elfclass, elf->data);
}

/*
 * Encodes the new header into buf (len bytes); true when it differs from
 * the input's (old, NULL for a header the input does not have).
 */
static bool header_changed(const struct ebid_elf *elf, encode_fn encode,
			   const void *new, const void *old, size_t len,
			   unsigned char *buf)
{
	unsigned char was[64];

	encode(buf, new, elf);
	if (!old)
		return true;
	encode(was, old, elf);
	return memcmp(buf, was, len) != 0;
}

/*
 * A table that stays: each entry that differs is patched; an entry past
 * the end of the file goes into the room reserve_shdr_tail() appended.
 */
static int emit_kept_shdrs(struct planner *p)
{
	const struct ebid_elf *elf = p->elf;
	size_t she = shent_of(elf), i;
	unsigned char buf[64];
	char what[64];
	int ret;

	for (i = 0; i < p->shnum; i++) {
		uint64_t at = p->shoff + i * she;

		if (!header_changed(elf, encode_shdr, &p->shdrs[i],
				    i < elf->shnum ? &elf->shdrs[i] : NULL,
				    she, buf))
			continue;
		if (at >= body_end(p)) {
			if (at + she > body_end(p) + p->plan->append_len)
				return ebid_err(p->err, p->errlen,
						-EBID_EVERIFY,
						"internal error: section header append misplaced");
			memcpy(p->plan->append + (at - body_end(p)), buf,
			       she);
			continue;
		}
		snprintf(what, sizeof(what), "section header [%zu]%s", i,
			 i >= elf->shnum ? " (new)" : "");
		ret = add_patch(p, at, buf, she, what);
		if (ret)
			return ret;
	}
	return 0;
}

/*
 * A table that stays at the end of the file and grows: its new entry
 * takes the first appended bytes, filled in by emit_kept_shdrs().
 */
static int reserve_shdr_tail(struct planner *p)
{
	const struct ebid_elf *elf = p->elf;
	size_t she = shent_of(elf);
	unsigned char zero[64] = { 0 };
	uint64_t off;

	if (!p->shnum || p->shdrs_place != PLACE_KEEP ||
	    p->shoff + elf->shnum * she != body_end(p) ||
	    p->shnum <= elf->shnum)
		return 0;
	return add_append(p, zero, she, 1, &off);
}

/*
 * Readers that take only the first PT_NOTE (Parca's agent, older
 * OpenTelemetry profilers) find the id when the new PT_NOTE comes before
 * the linker's: it is moved up to just before the first one, which moves
 * program headers but no note. The order of PT_NOTEs means nothing to the
 * loader, and PT_PHDR and PT_INTERP, which must precede the PT_LOADs,
 * keep their places relative to them.
 */
static void order_new_pt(struct planner *p)
{
	size_t i, at = NEW_PT(p);
	struct ebid_phdr ph;

	if (!(p->plan->actions & EBID_ACT_ADD_PT))
		return;
	for (i = 0; i < at; i++)
		if (p->phdrs[i].type == EBID_PT_NOTE)
			break;
	if (i == at)
		return;
	ph = p->phdrs[at];
	memmove(&p->phdrs[i + 1], &p->phdrs[i], (at - i) * sizeof(ph));
	p->phdrs[i] = ph;
	p->plan->new_pt = i;
}

static int emit_program_headers(struct planner *p)
{
	const struct ebid_elf *elf = p->elf;
	bool added = p->plan->actions & EBID_ACT_ADD_PT;
	size_t phe = phent_of(elf), i;
	unsigned char buf[64];
	char what[80];
	int ret;

	for (i = 0; i < p->phnum; i++) {
		if (!header_changed(elf, encode_phdr, &p->phdrs[i],
				    i < elf->phnum ? &elf->phdrs[i] : NULL,
				    phe, buf))
			continue;
		if (added && i == NEW_PT(p))
			snprintf(what, sizeof(what),
				 "program header [%zu] (new PT_NOTE)", i);
		else if (added && i > NEW_PT(p))
			snprintf(what, sizeof(what),
				 "program header [%zu] (was [%zu])", i, i - 1);
		else
			snprintf(what, sizeof(what), "program header [%zu]", i);
		ret = add_patch(p, elf->phoff + i * phe, buf, phe, what);
		if (ret)
			return ret;
	}
	return 0;
}

static int emit_ehdr(struct planner *p, uint64_t e_shnum, uint64_t e_phnum)
{
	const struct ebid_ehdr_layout *L =
		&ebid_ehdr_layouts[p->elf->elfclass - 1];
	int ret = 0;

	if (p->shnum)
		ret = patch_field(p, L->shoff, L->addr, p->shoff, "e_shoff");
	if (!ret)
		ret = patch_field(p, L->shnum, 2, e_shnum, "e_shnum");
	if (!ret)
		ret = patch_field(p, L->phnum, 2, e_phnum, "e_phnum");
	return ret;
}

/* Released bytes nobody reused are zeroed, never left stale. */
static int emit_released(struct planner *p)
{
	unsigned char zero[EBID_PAGE];
	size_t i, j;
	int ret;

	memset(zero, 0, sizeof(zero));
	for (i = 0; i < p->page; i = j) {
		int state = p->map[i];

		j = i + 1;
		if (state != B_RELEASED && state != B_DEAD)
			continue;
		while (j < p->page && p->map[j] == state)
			j++;
		ret = add_patch(p, i, zero, j - i,
				i >= p->plan->head_from &&
						j <= p->plan->head_from +
							     p->plan->head_size
					? "moved sections, old place (cleared)"
					: "old section header table (cleared)");
		if (ret)
			return ret;
	}
	return 0;
}

/*
 * Emits patches (and appended bytes) for every header that differs from
 * the input, in the order their placement needs: the first appended bytes
 * go to a table that grows at the end of the file, the name table comes
 * before the section headers that point at it.
 */
static int finish(struct planner *p)
{
	uint64_t e_shnum, e_phnum;
	int ret;

	ret = reserve_shdr_tail(p);
	if (!ret)
		ret = emit_section_names(p);
	if (!ret)
		ret = extended_counts(p, &e_shnum, &e_phnum);
	if (!ret && p->shnum)
		ret = p->shdrs_place == PLACE_KEEP ? emit_kept_shdrs(p)
						   : emit_moved_shdrs(p);
	if (!ret) {
		order_new_pt(p);
		ret = emit_program_headers(p);
	}
	if (!ret)
		ret = emit_ehdr(p, e_shnum, e_phnum);
	if (!ret)
		ret = emit_released(p);
	return ret;
}

static int cmp_patch(const void *a, const void *b)
{
	const struct ebid_patch *x = a, *y = b;

	return x->off < y->off ? -1 : x->off > y->off;
}

/* Our own invariant: patches are disjoint and inside the input. */
static int check_patches(struct planner *p)
{
	struct ebid_plan *plan = p->plan;
	size_t i;

	/* qsort() wants a valid array even for zero elements. */
	if (plan->npatches > 1)
		qsort(plan->patches, plan->npatches, sizeof(*plan->patches),
		      cmp_patch);
	for (i = 0; i < plan->npatches; i++) {
		const struct ebid_patch *pt = &plan->patches[i];

		if (pt->off + pt->len > ebid_plan_body_end(plan) ||
		    (i && plan->patches[i - 1].off + plan->patches[i - 1].len >
				  pt->off))
			return ebid_err(p->err, p->errlen, -EBID_EVERIFY,
					"internal error: overlapping patches at 0x%llx (%s)",
					(unsigned long long)pt->off, pt->what);
	}
	return 0;
}

/*
 * The bytes a moved note may change in sections: its old place (cleared),
 * and exactly the st_value of a symbol of the moved section.
 */
static bool moved_own(const struct planner *p, const struct ebid_patch *pt,
		      size_t shndx)
{
	const struct ebid_elf *elf = p->elf;
	const struct ebid_plan *plan = p->plan;
	const struct ebid_shdr *s = &elf->shdrs[shndx];
	uint64_t at = ebid_plan_outoff(plan, s->offset);
	const struct ebid_symref *r;

	if (!(plan->actions & (EBID_ACT_MOVE_NOTE | EBID_ACT_MOVE_HEAD)))
		return false;
	if (ebid_plan_moved(plan, elf, shndx)) {
		if (plan->actions & EBID_ACT_MOVE_NOTE)
			return pt->off == plan->moved_from &&
			       pt->len == plan->moved_size;
		/* move-head: its old place is dead, cleared and reused. */
		return true;
	}
	if (s->type == 6 /* SHT_DYNAMIC */ &&
	    (plan->actions & EBID_ACT_MOVE_HEAD)) {
		const struct ebid_phdr *load = &elf->phdrs[plan->grown_load];
		uint64_t lo = load->vaddr + plan->head_from;
		size_t i;

		for (i = 0; i < elf->ndyn; i++) {
			const struct ebid_dynref *d = &elf->dyn[i];

			if (ebid_dyn_is_addr(d->tag) && d->val >= lo &&
			    d->val - lo < plan->head_size &&
			    pt->off == ebid_plan_outoff(plan, d->val_off) &&
			    pt->len == (elf->elfclass == 2 ? 8u : 4u))
				return true;
		}
		return false;
	}
	if (s->type != 2 /* SHT_SYMTAB */ && s->type != 11 /* SHT_DYNSYM */)
		return false;
	r = symref_at(p, pt->off);
	return r && ebid_plan_sym_moves(plan, elf, r) &&
	       pt->len == (elf->elfclass == 2 ? 8u : 4u) &&
	       pt->off >= at && pt->off + pt->len <= at + s->size;
}

/*
 * A patch must not change the bytes of a section of the input (other than
 * the descriptor of the note it fills): a section overlapping a header we
 * rewrite (a .shstrtab over the program headers, say) would change under
 * the plan, names and all.
 */
static int check_sections_kept(struct planner *p)
{
	const struct ebid_elf *elf = p->elf;
	const struct ebid_plan *plan = p->plan;
	size_t i, j;

	for (i = 0; i < plan->npatches; i++) {
		const struct ebid_patch *pt = &plan->patches[i];

		for (j = 1; j < elf->shnum; j++) {
			const struct ebid_shdr *s = &elf->shdrs[j];
			uint64_t at = ebid_plan_outoff(plan, s->offset);

			/* The name table counts whatever its type says. */
			if (s->type == EBID_SHT_NOBITS ||
			    (s->type == 0 && j != elf->shstrndx) ||
			    !s->size || pt->off >= at + s->size ||
			    pt->off + pt->len <= at)
				continue;
			if (moved_own(p, pt, j))
				continue;
			if (j == elf->gnu.shndx && elf->gnu.present &&
			    pt->off >= elf->gnu.desc_off &&
			    pt->off + pt->len <=
				    elf->gnu.desc_off + elf->gnu.desc_len)
				continue;
			return ebid_err(p->err, p->errlen, -EBID_EMALFORMED,
					"malformed ELF: section header [%zu]: sh_offset 0x%llx/sh_size %llu overlap the %s that the plan must change",
					j, (unsigned long long)s->offset,
					(unsigned long long)s->size, pt->what);
		}
	}
	return 0;
}

/*
 * Applies the plan to a copy of the first page (appended bytes included,
 * for a file shorter than a page) and runs the kernel's reader.
 */
static int check_kernel_view(struct planner *p)
{
	struct ebid_plan *plan = p->plan;
	unsigned char page[EBID_PAGE], id[EBID_MAX_ID];
	uint64_t desc_off = 0;
	size_t i, len = p->page;

	/* elfread and newer kernels read the table at e_phoff. */
	if (p->elf->phoff != ehsize_of(p->elf))
		return no_room(p, "program headers do not follow the ELF header (e_phoff), where the kernel reads them");
	memcpy(page, p->elf->head, len);
	/* Inserted zeros push the rest of the page out of it. */
	if (plan->ins_len && plan->ins_at < len)
		memset(page + plan->ins_at, 0, len - plan->ins_at);
	if (len < EBID_PAGE && plan->append_len && !plan->ins_len) {
		size_t more = EBID_PAGE - len < plan->append_len
				      ? EBID_PAGE - len
				      : plan->append_len;

		memcpy(page + len, plan->append, more);
		len += more;
	}
	for (i = 0; i < plan->npatches; i++) {
		const struct ebid_patch *pt = &plan->patches[i];

		if (pt->off < len)
			memcpy(page + pt->off, pt->bytes,
			       pt->off + pt->len > len ? len - pt->off
						       : pt->len);
	}
	if (!ebid_kernel_build_id(page, len, id, NULL, &desc_off) ||
	    desc_off != plan->id_off)
		return ebid_err(p->err, p->errlen, -EBID_EVERIFY,
				"internal error: planned note is not visible to the kernel's reader");
	return 0;
}

static int plan_existing(struct planner *p)
{
	const struct ebid_elf *elf = p->elf;
	const struct ebid_opts *o = p->opts;
	const struct ebid_note *g = &elf->gnu;
	bool zero = ebid_all_zero(g->desc, g->desc_len), fill;
	size_t want;
	int ret;

	/*
	 * The note that is there must be what readers by section take for
	 * the id; a file whose note no proper section describes is refused,
	 * never reported unchanged.
	 */
	if (elf->shnum) {
		struct ebid_note_view v;

		ebid_note_view(elf, &v);
		if (!v.by_section)
			return ebid_err(p->err, p->errlen, -EBID_EMALFORMED,
					"malformed ELF: %s", v.section_why);
	}
	if (!g->shndx) {
		/* Program headers only (stripped section headers): a
		 * kernel-visible, filled id is left alone; nothing else can be
		 * done safely without sections. */
		if (elf->gnu_kernel_visible && !zero && !o->force &&
		    o->mode != EBID_MODE_BACKFILL) {
			p->plan->id_off = g->desc_off;
			p->plan->id_len = g->desc_len;
			memcpy(p->plan->id, g->desc, g->desc_len);
			return 0;
		}
		return ebid_err(p->err, p->errlen, -EBID_ENOTE,
				"GNU build-id note has no section header describing it (file without section headers?); relink with -Wl,--build-id instead");
	}
	if (g->desc_len == 0 || g->desc_len > EBID_MAX_ID)
		return ebid_err(p->err, p->errlen, -EBID_ENOTE,
				"existing build-id has %u bytes; perf and the kernel accept 1 to 20 (relink with --build-id=sha1)",
				g->desc_len);
	p->plan->id_off = g->desc_off;
	p->plan->id_len = g->desc_len;
	memcpy(p->plan->id, g->desc, g->desc_len);
	if (!elf->gnu_kernel_visible && elf->raw_phnum == EBID_PN_XNUM)
		return no_room(p, "the program header count is in section 0 (PN_XNUM), which the kernel's build-id reader does not follow");

	if (o->mode == EBID_MODE_BACKFILL && !zero && !o->force)
		return ebid_err(p->err, p->errlen, -EBID_ENOTE,
				"build-id is already filled, not a reserved all-zero note (use --force to recompute)");
	/*
	 * A note that is there keeps its size: the id that fills it, or the
	 * hash that reserve was asked to reserve it for, must fit.
	 */
	fill = o->mode != EBID_MODE_RESERVE && (zero || o->force);
	want = o->id ? o->id_len : ebid_hash_id_len(o->alg);
	if ((fill || (o->mode == EBID_MODE_RESERVE && o->alg_given)) &&
	    want != g->desc_len)
		return ebid_err(p->err, p->errlen, -EBID_ENOTE,
				"the note holds %u bytes but the %s gives %zu%s",
				g->desc_len,
				o->id ? "--id" : ebid_hash_name(o->alg), want,
				fill ? "" : " (reserve keeps the size of a note that is there)");
	if (o->mode == EBID_MODE_RESERVE && !zero && o->force) {
		/* reserve -f: back to a reserved note, to be backfilled. */
		unsigned char zeros[EBID_MAX_ID] = { 0 };

		memset(p->plan->id, 0, sizeof(p->plan->id));
		ret = add_patch(p, g->desc_off, zeros, g->desc_len,
				"descriptor zeroed (reserve --force)");
		if (ret)
			return ret;
		p->plan->actions |= EBID_ACT_ZERO;
	}
	if (fill) {
		p->plan->fill = true;
		p->plan->actions |= EBID_ACT_FILL;
	}
	if (!elf->gnu_kernel_visible) {
		ret = repair_coverage(p);
		if (ret)
			return ret;
	}
	return 0;
}

static int plan_new(struct planner *p)
{
	const struct ebid_elf *elf = p->elf;
	const struct ebid_opts *o = p->opts;
	int ret;

	if (o->mode == EBID_MODE_BACKFILL)
		return ebid_err(p->err, p->errlen, -EBID_ENOTE,
				"no reserved build-id note to backfill (run reserve or inject)");
	if (!elf->shnum)
		return no_room(p, "file has no section headers, so perf and strip cannot see a note");
	if (!elf->shstrtab || elf->shstrndx >= elf->shnum)
		return ebid_err(p->err, p->errlen, -EBID_ENOROOM,
				"file has no section name table");
	if (elf->phoff != ehsize_of(elf) || !elf->phnum)
		return no_room(p, "program headers do not follow the ELF header");
	if (elf->raw_phnum == EBID_PN_XNUM)
		return no_room(p, "the program header count is in section 0 (PN_XNUM), which the kernel's build-id reader does not follow");
	/* A second section of that name would be hidden behind the first. */
	if (ebid_note_section(elf))
		return ebid_err(p->err, p->errlen, -EBID_ENOTE,
				"section [%zu] is named %s but holds no GNU build-id note (owner \"GNU\", n_type 3); a second section of that name would be hidden behind it",
				ebid_note_section(elf), EBID_GNU_NOTE_NAME);
	p->desc_len = o->id ? o->id_len : ebid_hash_id_len(o->alg);
	ret = place_new_note(p);
	if (ret)
		return ret;
	/* Readers that name section 0 too would find two of ours. */
	if (elf->shdrs[0].name && elf->shdrs[0].name == p->name_off)
		return ebid_err(p->err, p->errlen, -EBID_EMALFORMED,
				"malformed ELF: section header [0]: sh_name %u would name the new section's %s too",
				elf->shdrs[0].name, EBID_GNU_NOTE_NAME);

	/* The new section, appended: nothing is renumbered. */
	{
		struct ebid_shdr *s = &p->shdrs[p->shnum++];
		const struct ebid_phdr *load =
			load_of(p, p->note_off, ebid_gnu_note_size(p->desc_len));

		memset(s, 0, sizeof(*s));
		s->name = (uint32_t)p->name_off;
		s->type = EBID_SHT_NOTE;
		s->flags = EBID_SHF_ALLOC;
		s->addr = load->vaddr + (p->note_off - load->offset);
		s->offset = p->note_off;
		s->size = ebid_gnu_note_size(p->desc_len);
		s->addralign = 4;
	}
	{
		unsigned char note[12 + 4 + EBID_MAX_ID];

		encode_note(p, note);
		ret = add_patch(p, p->note_off, note,
				(size_t)ebid_gnu_note_size(p->desc_len),
				".note.gnu.build-id (new)");
		if (ret)
			return ret;
	}
	p->plan->actions |= EBID_ACT_ADD_NOTE;
	p->plan->id_off = p->note_off + 16;
	p->plan->id_len = p->desc_len;
	memset(p->plan->id, 0, sizeof(p->plan->id));
	if (o->mode == EBID_MODE_INJECT) {
		p->plan->fill = true;
		p->plan->actions |= EBID_ACT_FILL;
	}
	return 0;
}

int ebid_plan_make(struct ebid_plan *plan, const struct ebid_elf *elf,
		   const struct ebid_opts *opts, char *err, size_t errlen)
{
	struct planner *p;
	int ret;

	memset(plan, 0, sizeof(*plan));
	plan->in_size = plan->out_size = elf->file_size;
	plan->alg = opts->alg;
	if (elf->type != EBID_ET_EXEC && elf->type != EBID_ET_DYN)
		return ebid_err(err, errlen, -EBID_ENOTE,
				"not an executable or shared library (e_type %u)",
				elf->type);
	p = calloc(1, sizeof(*p));
	if (!p)
		return ebid_err(err, errlen, -ENOMEM, "out of memory");
	p->elf = elf;
	p->opts = opts;
	p->plan = plan;
	p->err = err;
	p->errlen = errlen;
	map_page(p);
	ret = copy_headers(p);
	if (ret)
		goto out;

	if (elf->gnu.present)
		ret = plan_existing(p);
	else
		ret = plan_new(p);
	if (ret)
		goto out;
	if (plan->actions & ~(unsigned)EBID_ACT_FILL) {
		ret = finish(p);
		if (ret)
			goto out;
	}
	if (plan->fill && opts->id) {
		memcpy(plan->id, opts->id, opts->id_len);
		plan->hash = false;
	} else if (plan->fill) {
		plan->hash = true;
	}
	plan->out_size = ebid_plan_body_end(plan) + plan->append_len;
	ret = check_patches(p);
	if (!ret)
		ret = check_sections_kept(p);
	if (!ret && plan->actions)
		ret = check_kernel_view(p);
out:
	free(p->phdrs);
	free(p->shdrs);
	free(p->shstrtab);
	free(p);
	if (ret)
		ebid_plan_release(plan);
	return ret;
}

void ebid_plan_describe(const struct ebid_plan *plan, char *buf, size_t len)
{
	static const struct {
		unsigned bit;
		const char *word;
	} words[] = {
		{ EBID_ACT_ADD_NOTE, "add-note" },
		{ EBID_ACT_FILL, "fill" },
		{ EBID_ACT_EXTEND_PT, "extend-pt-note" },
		{ EBID_ACT_ADD_PT, "add-pt-note" },
		{ EBID_ACT_MOVE_SHDRS, "move-section-headers" },
		{ EBID_ACT_SHSTRTAB, "add-section-name" },
		{ EBID_ACT_ZERO, "zero-id" },
		{ EBID_ACT_MOVE_NOTE, "move-note" },
		{ EBID_ACT_INSERT, "insert-gap" },
		{ EBID_ACT_MOVE_HEAD, "move-head" },
	};
	size_t i, used = 0;

	buf[0] = '\0';
	for (i = 0; i < ARRAY_SIZE(words); i++) {
		if (!(plan->actions & words[i].bit))
			continue;
		used += (size_t)snprintf(buf + used, used < len ? len - used : 0,
					 "%s%s", used ? "," : "", words[i].word);
	}
	if (!used)
		snprintf(buf, len, "unchanged");
}
