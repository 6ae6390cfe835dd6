/* SPDX-License-Identifier: MIT */
/*
 * Planner core: the state (page map, header copies), its primitives
 * (allocation, patches, appended bytes, the inserted gap), and the runner
 * that tries the placement strategies in order on a snapshot.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "plan/planner.h"
#include "elf/elf.h"
#include "plan/plan.h"

struct ebid_plan *ebid_plan_new(void)
{
	return calloc(1, sizeof(struct ebid_plan));
}

void ebid_plan_free(struct ebid_plan *plan)
{
	ebid_plan_release(plan);
	free(plan);
}

void ebid_plan_output(const struct ebid_plan *plan, struct ebid_output *o)
{
	memset(o, 0, sizeof(*o));
	o->in_size = plan->in_size;
	o->out_size = plan->out_size;
	o->ins_at = plan->ins_at;
	o->ins_len = plan->ins_len;
	o->append = plan->append;
	o->append_len = plan->append_len;
	o->patches = plan->patches;
	o->npatches = plan->npatches;
	o->fill = plan->fill;
	o->hash = plan->hash;
	o->alg = plan->alg;
	o->id_off = plan->id_off;
	o->id_len = plan->id_len;
	memcpy(o->id, plan->id, sizeof(o->id));
}

/*
 * The edit: the patches, then what the output's map (ebid_output_piece())
 * says is not the input (appended bytes; a gap makes the edit one that
 * inserts), then the id over them.
 */
int ebid_plan_edit(const struct ebid_plan *plan, const unsigned char *id,
		   struct ebid_edit *e)
{
	struct ebid_output o;
	struct ebid_piece pc;
	uint64_t pos;
	size_t i, n = 0;

	ebid_plan_output(plan, &o);
	memset(e, 0, sizeof(*e));
	e->v = calloc(plan->npatches + 2, sizeof(*e->v));
	if (!e->v)
		return -ENOMEM;
	for (i = 0; i < plan->npatches; i++)
		e->v[n++] = (struct ebid_range){ plan->patches[i].off,
						 plan->patches[i].len,
						 plan->patches[i].bytes, false };
	for (pos = 0; pos < plan->out_size; pos += pc.len) {
		pc = ebid_output_piece(&o, pos, plan->out_size - pos);
		if (pc.kind == EBID_PIECE_APPEND)
			e->v[n++] = (struct ebid_range){ pos, pc.len,
							 plan->append + pc.src,
							 true };
		else if (pc.kind == EBID_PIECE_ZERO)
			e->inserts = true;
	}
	if (plan->fill)
		e->v[n++] = (struct ebid_range){ plan->id_off, plan->id_len,
						 id, false };
	e->n = n;
	e->in_size = plan->in_size;
	e->out_size = plan->out_size;
	return 0;
}

void ebid_edit_release(struct ebid_edit *e)
{
	free(e->v);
	memset(e, 0, sizeof(*e));
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
	free(plan->shmap);
	memset(plan, 0, sizeof(*plan));
}

int planner_patch(struct planner *p, uint64_t off, const void *bytes,
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
int planner_append(struct planner *p, const void *bytes, size_t len,
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

void planner_mark(struct planner *p, uint64_t off, uint64_t len, int state)
{
	uint64_t i;

	for (i = off; i < off + len && i < p->page; i++)
		p->map[i] = (unsigned char)state;
}

bool planner_range_free(const struct planner *p, uint64_t off, uint64_t len,
			bool need_load)
{
	uint64_t i;

	if (off > p->page || len > p->page - off)
		return false;
	for (i = off; i < off + len; i++) {
		if (p->map[i] != B_FREE && p->map[i] != B_RELEASED &&
		    p->map[i] != B_STALE)
			return false;
		if (need_load && !p->loadable[i])
			return false;
	}
	return true;
}

/* Lowest (or highest) free aligned range in the first page, or -1. */
int64_t planner_alloc(const struct planner *p, uint64_t len, uint64_t align,
		      bool need_load, bool high)
{
	int64_t off;

	if (len > p->page)
		return -1;
	if (high) {
		for (off = (int64_t)((p->page - len) / align * align); off >= 0;
		     off -= (int64_t)align)
			if (planner_range_free(p, (uint64_t)off, len, need_load))
				return off;
	} else {
		for (off = 0; (uint64_t)off + len <= p->page;
		     off += (int64_t)align)
			if (planner_range_free(p, (uint64_t)off, len, need_load))
				return off;
	}
	return -1;
}

/* Does a dynamic entry's address point into [off, off + len) of load? */
static bool dyn_points_into(const struct ebid_elf *elf,
			    const struct ebid_phdr *load, uint64_t off,
			    uint64_t len)
{
	uint64_t lo = load->vaddr + (off - load->offset);
	size_t i;

	for (i = 0; i < elf->ndyn; i++)
		if (ebid_dyn_is_addr(elf->dyn[i].tag) &&
		    elf->dyn[i].val >= lo && elf->dyn[i].val - lo < len)
			return true;
	return false;
}

/*
 * The bytes right after the program header table that are not zero and
 * that nothing holds: no section, no segment but the PT_LOAD that maps
 * them, no dynamic entry's address. A linker leaves zeros there; a
 * rewriter may leave the old place of what it moved away (patchelf fills
 * it with 'X'). No reader reads them, so they are free, and zeroed unless
 * reused, as a moved table's old place is.
 */
static void map_stale(struct planner *p)
{
	const struct ebid_elf *elf = p->elf;
	uint64_t from = elf->phoff + (uint64_t)elf->phnum * ebid_phent(elf->elfclass);
	long li = ebid_first_load(elf->phdrs, elf->phnum);
	uint64_t end = from, i;

	while (end < p->page &&
	       (p->map[end] == B_STALE || p->map[end] == B_FREE))
		end++;
	if (end == from || li < 0 || elf->dyn_bad || !elf->note_syms_read ||
	    elf->phdrs[li].offset > from ||
	    end > elf->phdrs[li].offset + elf->phdrs[li].filesz ||
	    dyn_points_into(elf, &elf->phdrs[li], from, end - from))
		end = from;
	/* Any other byte not zero is someone's, as it always was. */
	for (i = 0; i < p->page; i++)
		if (p->map[i] == B_STALE && (i < from || i >= end))
			p->map[i] = B_USED;
}

/*
 * The tables the dynamic table names by address and size are used, as
 * the loader reads them, whether or not a section header describes them
 * (their zero bytes, such as a relocation's zero addend, are not free).
 * Of DT_SYMTAB, whose size no entry gives, its first, all-zero entry.
 */
static void map_dyn_tables(struct planner *p)
{
	static const uint64_t sized[][2] = {
		{DT_RELA, DT_RELASZ},	{DT_REL, DT_RELSZ},
		{DT_RELR, DT_RELRSZ},	{DT_JMPREL, DT_PLTRELSZ},
		{DT_STRTAB, DT_STRSZ},	{DT_SYMTAB, DT_SYMENT},
	};
	const struct ebid_elf *elf = p->elf;
	uint64_t a, n, off;
	size_t i, k;

	for (k = 0; k < ARRAY_SIZE(sized) && !elf->dyn_bad; k++) {
		if (!ebid_dyn_value(elf, sized[k][0], &a) ||
		    !ebid_dyn_value(elf, sized[k][1], &n))
			continue;
		for (i = 0; i < elf->phnum; i++) {
			const struct ebid_phdr *ph = &elf->phdrs[i];

			if (ph->type != PT_LOAD || a < ph->vaddr ||
			    a - ph->vaddr >= ph->filesz)
				continue;
			if (ph->offset < p->page && a - ph->vaddr < p->page - ph->offset) {
				off = ph->offset + (a - ph->vaddr);
				planner_mark(p, off, n < p->page - off ? n : p->page - off,
					     B_USED);
			}
			break;
		}
	}
}

/* Builds the first-page map: what is used, what is loadable. */
void planner_map_page(struct planner *p)
{
	const struct ebid_elf *elf = p->elf;
	size_t i;

	p->page = elf->head_len;
	for (i = 0; i < p->page; i++)
		p->map[i] = elf->head[i] ? B_STALE : B_FREE;
	planner_mark(p, 0, ebid_ehsize(elf->elfclass), B_USED);
	planner_mark(p, elf->phoff, (uint64_t)elf->phnum * ebid_phent(elf->elfclass), B_USED);
	if (elf->shnum)
		planner_mark(p, elf->shoff, (uint64_t)elf->shnum * ebid_shent(elf->elfclass),
		     B_USED);
	for (i = 1; i < elf->shnum; i++) {
		const struct ebid_shdr *s = &elf->shdrs[i];

		if (s->type != SHT_NOBITS)
			planner_mark(p, s->offset, s->size, B_USED);
	}
	for (i = 0; i < elf->phnum; i++) {
		const struct ebid_phdr *ph = &elf->phdrs[i];
		uint64_t j;

		if (ph->type == PT_LOAD) {
			for (j = ph->offset;
			     j < ph->offset + ph->filesz && j < p->page; j++)
				p->loadable[j] = 1;
			continue;
		}
		planner_mark(p, ph->offset, ph->filesz, B_USED);
	}
	map_dyn_tables(p);
	map_stale(p);
}

/* The PT_LOAD holding [off, off + len), or NULL. */
const struct ebid_phdr *planner_load_of(const struct planner *p,
					uint64_t off, uint64_t len)
{
	size_t i;

	for (i = 0; i < p->phnum; i++) {
		const struct ebid_phdr *ph = &p->phdrs[i];

		if (ph->type == PT_LOAD && off >= ph->offset &&
		    off + len <= ph->offset + ph->filesz)
			return ph;
	}
	return NULL;
}

int planner_no_room(struct planner *p, const char *why)
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

int planner_copy_headers(struct planner *p)
{
	const struct ebid_elf *elf = p->elf;

	p->phdrs = calloc(elf->phnum + EBID_PH_ADD_MAX, sizeof(*p->phdrs));
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
 * Can a gap of ins bytes go in at input offset at: does every file offset
 * from there on (program and section headers, e_shoff, the file's size)
 * still fit in the ELF class's offset field once moved up by ins?
 */
bool planner_gap_fits(const struct planner *p, uint64_t at, uint64_t ins)
{
	uint64_t max = p->elf->elfclass == ELFCLASS64 ? UINT64_MAX : 0xffffffffu;
	size_t i;

	if (ins > max || p->elf->file_size > max - ins)
		return false;
	for (i = 0; i < p->phnum; i++)
		if (p->phdrs[i].offset >= at && p->phdrs[i].offset > max - ins)
			return false;
	for (i = 1; i < p->shnum; i++)
		if (p->shdrs[i].offset >= at && p->shdrs[i].offset > max - ins)
			return false;
	return !(p->shnum && p->shoff >= at && p->shoff > max - ins);
}

/*
 * Makes room in the file: ins zero bytes at input offset at, every file
 * offset from there on moved up by ins. Addresses do not change, and ins
 * is a multiple of every segment's alignment, so offsets stay congruent
 * to addresses. The first page from at on is free zeros.
 */
void planner_insert_gap(struct planner *p, uint64_t at, uint64_t ins)
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

int planner_moved_run(struct planner *p, uint64_t from, uint64_t size,
		      uint64_t to, int64_t addr_delta)
{
	struct ebid_run *run;

	if (p->plan->nruns == EBID_RUNS_MAX)
		return ebid_err(p->err, p->errlen, -EBID_EVERIFY,
				"internal error: too many moved runs");
	run = &p->plan->runs[p->plan->nruns++];
	run->from = from;
	run->size = size;
	run->off_delta = (int64_t)(to - from);
	run->addr_delta = addr_delta;
	return 0;
}

int planner_changed_ph(struct planner *p, size_t i)
{
	struct ebid_plan *plan = p->plan;
	size_t k;

	for (k = 0; k < plan->nchanged_ph; k++)
		if (plan->changed_ph[k] == i)
			return 0;
	if (plan->nchanged_ph == EBID_PH_CHANGED_MAX)
		return ebid_err(p->err, p->errlen, -EBID_EVERIFY,
				"internal error: too many program headers changed");
	plan->changed_ph[plan->nchanged_ph++] = i;
	return 0;
}

/*
 * The start of every move (move-note, move-head): --no-move forbids it
 * (no_move_why), and the PT_LOAD that maps the start of the file, which
 * the move grows, must be there and hold no bytes beyond the file: *load,
 * its index in *li. 0, or a refusal.
 */
int planner_move_start(struct planner *p, const char *no_move_why,
		       struct ebid_phdr **load, size_t *li, struct refusal *r)
{
	uint64_t last;
	long i;

	if (p->opts->no_move)
		return refuse(r, REFUSE_NEXT, no_move_why);
	i = ebid_first_load(p->phdrs, p->phnum);
	if (i < 0)
		return refuse(r, REFUSE_NEXT, "no PT_LOAD maps the start of the file");
	*load = &p->phdrs[i];
	*li = (size_t)i;
	if ((*load)->filesz != (*load)->memsz)
		return refuse(r, REFUSE_NEXT, "the first PT_LOAD has bytes in memory beyond the file");
	/*
	 * The moves reason about "the next segment" and put a new PT_LOAD
	 * last; the loaders (and the gABI) want PT_LOADs in ascending
	 * address order, and a table that is not is no layout to reason on.
	 */
	for (last = 0, i = 0; i < (long)p->phnum; i++) {
		if (p->phdrs[i].type != PT_LOAD)
			continue;
		if (p->phdrs[i].vaddr < last)
			return refuse(r, REFUSE_NEXT, "the PT_LOADs are not in ascending address order");
		last = p->phdrs[i].vaddr;
	}
	return 0;
}

/* The end of the last byte a header, section or segment describes. */
uint64_t planner_described_end(const struct planner *p)
{
	const struct ebid_elf *elf = p->elf;
	uint64_t end = elf->phoff + (uint64_t)elf->phnum * ebid_phent(elf->elfclass);
	size_t i;

	if (elf->shnum && elf->shoff + (uint64_t)elf->shnum * ebid_shent(elf->elfclass) > end)
		end = elf->shoff + (uint64_t)elf->shnum * ebid_shent(elf->elfclass);
	for (i = 1; i < elf->shnum; i++)
		if (elf->shdrs[i].type != SHT_NOBITS &&
		    elf->shdrs[i].offset + elf->shdrs[i].size > end)
			end = elf->shdrs[i].offset + elf->shdrs[i].size;
	for (i = 0; i < elf->phnum; i++)
		if (elf->phdrs[i].offset + elf->phdrs[i].filesz > end)
			end = elf->phdrs[i].offset + elf->phdrs[i].filesz;
	return end;
}

/*
 * Does the first PT_LOAD, grown to grow_end bytes, reach the addresses of
 * segment o (another PT_LOAD, or a PT_GNU_RELRO or PT_TLS, which the loader
 * applies by address)? The one rule move-note and move-head share for the
 * bytes the first PT_LOAD grows over.
 */
bool planner_grown_clash(const struct ebid_phdr *load,
			 const struct ebid_phdr *o, uint64_t grow_end)
{
	return (o->type == PT_LOAD || ebid_phdr_by_address(o)) &&
	       o->vaddr < load->vaddr + grow_end &&
	       o->vaddr + o->memsz > load->vaddr + load->filesz;
}

/*
 * The whole planner state before a try: the planner (page map, loadable
 * map, counts, shoff, placements, note_off, the name table's pointer), the
 * contents of the header copies and of the name table copy, and the
 * plan's fields, patch count and appended bytes. One allocation: the
 * arrays follow the struct.
 */
struct snapshot {
	struct planner state;
	struct ebid_plan plan;
	struct ebid_phdr *phdrs;
	struct ebid_shdr *shdrs;
	char *shstrtab;
	unsigned char *append;
};

/* The snapshot of p, owned by the caller (free()), or NULL. */
static struct snapshot *snapshot_take(const struct planner *p)
{
	const struct ebid_elf *elf = p->elf;
	size_t phsz = (elf->phnum + EBID_PH_ADD_MAX) * sizeof(*p->phdrs);
	size_t shsz = (elf->shnum + 1) * sizeof(*p->shdrs);
	size_t strsz = p->shstrtab ? p->shstrtab_len : 0;
	struct snapshot *s = malloc(sizeof(*s) + phsz + shsz + strsz +
				    p->plan->append_len);

	if (!s)
		return NULL;
	s->state = *p;
	s->plan = *p->plan;
	s->phdrs = (struct ebid_phdr *)(s + 1);
	s->shdrs = (struct ebid_shdr *)((char *)s->phdrs + phsz);
	s->shstrtab = (char *)s->shdrs + shsz;
	s->append = (unsigned char *)s->shstrtab + strsz;
	memcpy(s->phdrs, p->phdrs, phsz);
	memcpy(s->shdrs, p->shdrs, shsz);
	if (strsz)
		memcpy(s->shstrtab, p->shstrtab, strsz);
	if (p->plan->append_len)
		memcpy(s->append, p->plan->append, p->plan->append_len);
	return s;
}

/*
 * Puts p back as it was at snapshot_take(): what a refused try did is
 * undone, the patches it added freed. Arrays keep their (grown) storage.
 */
static void snapshot_restore(struct planner *p, const struct snapshot *s)
{
	const struct ebid_elf *elf = p->elf;
	struct ebid_plan *plan = p->plan;
	struct ebid_patch *patches = plan->patches;
	unsigned char *append = plan->append;
	size_t cap = plan->cap, i;

	for (i = s->plan.npatches; i < plan->npatches; i++)
		free(patches[i].bytes);
	*plan = s->plan;
	plan->patches = patches;
	plan->cap = cap;
	plan->append = append;
	if (plan->append_len)
		memcpy(append, s->append, plan->append_len);
	if (p->shstrtab != s->state.shstrtab)
		free(p->shstrtab);
	*p = s->state;
	memcpy(p->phdrs, s->phdrs,
	       (elf->phnum + EBID_PH_ADD_MAX) * sizeof(*p->phdrs));
	memcpy(p->shdrs, s->shdrs, (elf->shnum + 1) * sizeof(*p->shdrs));
	if (p->shstrtab)
		memcpy(p->shstrtab, s->shstrtab, p->shstrtab_len);
}

/*
 * The message when every strategy refused: the sentences of those that
 * refused by a rule, each after its row's lead, in table order.
 */
static int refused_all(struct planner *p, const struct strategy *table,
		       const struct refusal *r, size_t n)
{
	char all[3 * EBID_ERRLEN];
	size_t i, used = 0;

	all[0] = '\0';
	for (i = 0; i < n; i++) {
		if (r[i].code != REFUSE_NEXT)
			continue;
		used += (size_t)snprintf(all + used,
					 used < sizeof(all) ? sizeof(all) - used
							    : 0,
					 "%s%s%s", used ? "; " : "",
					 table[i].lead, r[i].why);
		if (used >= sizeof(all))
			break;
	}
	return planner_no_room(p, used ? all : "no placement applies");
}

#define STRATEGY_MAX 8

/*
 * patchelf's rewrite of a non-PIE program (rewriteSectionsExecutable(),
 * 0.14 to 0.18) carries into its new first page only the sections that
 * come, in file order, before the first SHT_PROGBITS other than .interp
 * and before the one after .dynstr; the rest it shifts a page up, out of
 * the page that kernels before 6.12 read the id from. Linkers put their
 * note there (bfd behind .note.gnu.property, gold and lld behind
 * .interp). Does the planned note lie there too? Asked only of an
 * ET_EXEC with a .dynstr (patchelf's path); true for any other file.
 */
static bool patchelf_carries(const struct planner *p)
{
	uint64_t stop = UINT64_MAX;
	bool dynamic = false;
	size_t i;

	if (p->elf->type != ET_EXEC)
		return true;
	for (i = 1; i < p->elf->shnum; i++) {
		const struct ebid_shdr *s = &p->shdrs[i];
		const char *name = p->elf->shdrs[i].name_str;
		bool dynstr = s->type == SHT_STRTAB && name &&
			      !strcmp(name, ".dynstr");

		if (!(s->flags & SHF_ALLOC) || s->type == SHT_NOBITS || !s->size)
			continue;
		dynamic |= dynstr;
		if ((dynstr || (s->type == SHT_PROGBITS &&
				!(name && !strcmp(name, ".interp")))) &&
		    s->offset < stop)
			stop = s->offset;
	}
	return !dynamic || p->note_off < stop;
}

/*
 * Row i placed the note; where patchelf would leave it behind, the first
 * row from i on with early_note, tried again with the note right after
 * the program headers (p->note_early), is taken instead where it places
 * the note and patchelf carries it (its index in *i; else *i as it was).
 * p comes back from snapshot s as the row taken left it.
 */
static int prefer_early_note(struct planner *p, const struct strategy *table,
			     size_t n, const struct snapshot *s, size_t *i)
{
	struct refusal r;
	char why[EBID_ERRLEN];
	size_t j;
	int ret;

	if (patchelf_carries(p))
		return 0;
	for (j = *i; j < n && !table[j].early_note; j++)
		;
	if (j == n)
		return 0;
	snapshot_restore(p, s);
	memset(&r, 0, sizeof(r));
	p->note_early = true;
	ret = table[j].try_place(p, &r);
	p->note_early = false;
	if (!ret && ebid_loads_no_worse(p->elf->phdrs, p->elf->phnum,
					p->phdrs, p->phnum, why, sizeof(why)) &&
	    patchelf_carries(p)) {
		*i = j;
		return 0;
	}
	if (ret < 0 && ret != PLAN_REFUSED)
		return ret;
	snapshot_restore(p, s);
	memset(&r, 0, sizeof(r));
	return table[*i].try_place(p, &r);
}

int planner_run(struct planner *p, const struct strategy *table, size_t n)
{
	struct refusal r[STRATEGY_MAX];
	struct snapshot *s;
	size_t i;
	int ret = PLAN_REFUSED;
	bool loads;

	if (n > STRATEGY_MAX)
		return ebid_err(p->err, p->errlen, -EBID_EVERIFY,
				"internal error: too many strategies");
	s = snapshot_take(p);
	if (!s)
		return ebid_err(p->err, p->errlen, -ENOMEM, "out of memory");
	for (i = 0; i < n && ret == PLAN_REFUSED; i++) {
		memset(&r[i], 0, sizeof(r[i]));
		ret = table[i].try_place(p, &r[i]);
		loads = !ret && !ebid_loads_no_worse(p->elf->phdrs,
						     p->elf->phnum, p->phdrs,
						     p->phnum, r[i].buf,
						     sizeof(r[i].buf));
		if (loads)
			ret = refuse(&r[i], REFUSE_NEXT, r[i].buf);
		if (!ret)
			ret = prefer_early_note(p, table, n, s, &i);
		if (!ret)
			p->plan->placed_by = table[i].name;
		if (ret != PLAN_REFUSED)
			break;
		snapshot_restore(p, s);
		if (r[i].code == REFUSE_STOP)
			ret = planner_no_room(p, r[i].why);
	}
	if (ret == PLAN_REFUSED)
		ret = refused_all(p, table, r, n);
	free(s);
	return ret;
}

/*
 * The placements of a new note, in order: a PT_NOTE that grows over the
 * gap below it (Go), a PT_NOTE of its own, a note moved out of the way,
 * the sections after the program headers moved out of the way, and
 * last moved into a PT_LOAD of their own at the end of the file. In a
 * non-PIE program with a .dynstr, move-head comes before an earlier row
 * whose note patchelf would leave behind (prefer_early_note()).
 */
const struct strategy plan_new_note[] = {
	{ "extend-pt-note", strategy_extend_pt_note, "", false },
	{ "add-pt-note", strategy_add_pt_note, "", false },
	{ "move-note", strategy_move_note, "no note can move: ", false },
	{ "move-head", strategy_move_head,
	  "the sections after the program headers cannot move: ", true },
	{ "new-load", strategy_new_load, "nor go to a new PT_LOAD: ", false },
};
const size_t plan_new_note_n = ARRAY_SIZE(plan_new_note);

/* Making a note that is there visible to the kernel. */
const struct strategy plan_cover_note[] = {
	{ "repair-coverage", strategy_repair_coverage, "", false },
};
const size_t plan_cover_note_n = ARRAY_SIZE(plan_cover_note);
