/* SPDX-License-Identifier: MIT */
/*
 * Emission: once a strategy placed the note, the section names, the
 * section headers, the program headers and the ELF header that differ
 * from the input become patches (and appended bytes), in the order their
 * placement needs; released bytes nobody reused are zeroed.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "plan/plan.h"
#include "plan/planner.h"
#include "elf/elf.h"

static int patch_field(struct planner *p, size_t field_off, size_t width,
		       uint64_t val, const char *what)
{
	unsigned char buf[8];

	if (ebid_get(p->elf->head + field_off, width, p->elf->data) == val)
		return 0;
	ebid_put(buf, width, val, p->elf->data);
	return planner_patch(p, field_off, buf, width, what);
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
		ret = planner_append(p, p->shstrtab, p->shstrtab_len, 1,
				 &p->shstrtab_off);
		break;
	case PLACE_IN_PAGE:
		ret = planner_patch(p, p->shstrtab_off, p->shstrtab,
				p->shstrtab_len, ".shstrtab (moved)");
		break;
	case PLACE_KEEP:
	default:
		/* Grown in place: into slack, or at the end of the file. */
		if (p->shstrtab_off + p->shstrtab_len > body_end(p))
			ret = planner_append(p, added, nadded, 1, &off);
		else
			ret = planner_patch(p, st->offset + st->size, added,
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
	if (p->shnum >= SHN_LORESERVE ||
	    (elf->raw_shnum == 0 && elf->shnum > 0)) {
		*e_shnum = 0;
		p->shdrs[0].size = p->shnum;
	}
	if (p->phnum >= PN_XNUM || elf->raw_phnum == PN_XNUM) {
		*e_phnum = PN_XNUM;
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
	size_t she = ebid_shent(elf->elfclass), i;
	unsigned char *table = calloc(p->shnum, she);
	int ret;

	if (!table)
		return ebid_err(p->err, p->errlen, -ENOMEM, "out of memory");
	for (i = 0; i < p->shnum; i++)
		ebid_shdr_encode(table + i * she, &p->shdrs[i], elf->elfclass,
				 elf->data);
	if (p->shdrs_place == PLACE_APPEND)
		ret = planner_append(p, table, p->shnum * she,
				 ebid_word(elf->elfclass), &p->shoff);
	else
		ret = planner_patch(p, p->shoff, table, p->shnum * she,
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
	size_t she = ebid_shent(elf->elfclass), i;
	size_t new_shndx = ebid_plan_shndx(p->plan, elf->shnum);
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
			 i == new_shndx ? " (new)" : "");
		ret = planner_patch(p, at, buf, she, what);
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
	size_t she = ebid_shent(elf->elfclass);
	unsigned char zero[64] = { 0 };
	uint64_t off;

	if (!p->shnum || p->shdrs_place != PLACE_KEEP ||
	    p->shoff + elf->shnum * she != body_end(p) ||
	    p->shnum <= elf->shnum)
		return 0;
	return planner_append(p, zero, she, 1, &off);
}

/* Program header at moves down to to (<= at); those between move up. */
static void move_phdr(struct planner *p, size_t at, size_t to)
{
	struct ebid_phdr ph = p->phdrs[at];

	memmove(&p->phdrs[to + 1], &p->phdrs[to], (at - to) * sizeof(ph));
	p->phdrs[to] = ph;
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

	if (!(p->plan->actions & EBID_ACT_ADD_PT))
		return;
	for (i = 0; i < at; i++)
		if (p->phdrs[i].type == PT_NOTE)
			break;
	if (i == at)
		return;
	move_phdr(p, at, i);
	p->plan->new_pt = i;
	if ((p->plan->actions & EBID_ACT_NEW_LOAD) && p->plan->new_load >= i &&
	    p->plan->new_load < at)
		p->plan->new_load++;
}

/*
 * new-load's PT_LOAD goes right after the last PT_LOAD (the loader
 * wants them in ascending address order, and it has the highest), before
 * the new PT_NOTE is ordered.
 */
static void order_new_load(struct planner *p)
{
	size_t i, at = p->plan->new_load;

	if (!(p->plan->actions & EBID_ACT_NEW_LOAD))
		return;
	for (i = at; i > 0 && p->phdrs[i - 1].type != PT_LOAD; i--)
		;
	move_phdr(p, at, i);
	p->plan->new_load = i;
}

/*
 * The headers the plan added, as data for the layers above (the output's
 * indices of the new PT_NOTE and new-load's PT_LOAD, ascending).
 */
static void record_added(struct planner *p)
{
	struct ebid_plan *plan = p->plan;
	size_t a[EBID_PH_ADDED_MAX], n = 0;

	if (plan->actions & EBID_ACT_ADD_PT)
		a[n++] = plan->new_pt;
	if (plan->actions & EBID_ACT_NEW_LOAD)
		a[n++] = plan->new_load;
	if (n == 2 && a[0] > a[1]) {
		size_t t = a[0];

		a[0] = a[1];
		a[1] = t;
	}
	memcpy(plan->added_ph, a, n * sizeof(*a));
	plan->nadded_ph = n;
	plan->nadded_sh = (plan->actions & EBID_ACT_ADD_NOTE) ? 1 : 0;
}

/* The words after a program header's number in a patch's description. */
static void phdr_what(const struct planner *p, size_t i, char *what,
		      size_t len)
{
	bool added = p->plan->actions & EBID_ACT_ADD_PT;

	if (added && i == NEW_PT(p))
		snprintf(what, len, "program header [%zu] (new PT_NOTE)", i);
	else if ((p->plan->actions & EBID_ACT_NEW_LOAD) &&
		 i == p->plan->new_load)
		snprintf(what, len, "program header [%zu] (new PT_LOAD)", i);
	else if (added && i > NEW_PT(p) &&
		 !(p->plan->actions & EBID_ACT_NEW_LOAD))
		snprintf(what, len, "program header [%zu] (was [%zu])", i,
			 i - 1);
	else
		snprintf(what, len, "program header [%zu]", i);
}

static int emit_program_headers(struct planner *p)
{
	const struct ebid_elf *elf = p->elf;
	size_t phe = ebid_phent(elf->elfclass), i;
	unsigned char buf[64];
	char what[80];
	int ret;

	for (i = 0; i < p->phnum; i++) {
		if (!header_changed(elf, encode_phdr, &p->phdrs[i],
				    i < elf->phnum ? &elf->phdrs[i] : NULL,
				    phe, buf))
			continue;
		phdr_what(p, i, what, sizeof(what));
		ret = planner_patch(p, elf->phoff + i * phe, buf, phe, what);
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
	if (!ret && p->elf->raw_shstrndx != SHN_XINDEX)
		ret = patch_field(p, L->shstrndx, 2, p->shstrndx,
				  "e_shstrndx");
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
		if (state != B_RELEASED && state != B_DEAD && state != B_STALE)
			continue;
		while (j < p->page && p->map[j] == state)
			j++;
		ret = planner_patch(p, i, zero, j - i,
				state == B_STALE
					? "unused bytes after the program headers (cleared)"
				: ebid_plan_run_of(p->plan, i, j - i)
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
int planner_emit(struct planner *p)
{
	uint64_t e_shnum, e_phnum;
	int ret;

	ret = reserve_shdr_tail(p);
	if (!ret)
		ret = emit_section_names(p);
	if (!ret)
		ret = planner_order_shdrs(p);
	if (!ret)
		ret = extended_counts(p, &e_shnum, &e_phnum);
	if (!ret && p->shnum)
		ret = p->shdrs_place == PLACE_KEEP ? emit_kept_shdrs(p)
						   : emit_moved_shdrs(p);
	if (!ret) {
		order_new_load(p);
		order_new_pt(p);
		record_added(p);
		ret = emit_program_headers(p);
	}
	if (!ret)
		ret = emit_ehdr(p, e_shnum, e_phnum);
	if (!ret)
		ret = emit_released(p);
	return ret;
}

