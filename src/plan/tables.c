/* SPDX-License-Identifier: MIT */
/*
 * The tables a placement changes: one more program header (and the
 * PT_NOTE it holds, or a PT_NOTE grown), one more section header, one
 * more section name; where each goes.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "plan/planner.h"

/*
 * The section header table gets add (0 or 1) more entries: in place, at the
 * end of the file, or moved (into the first page, else to the end).
 */
int planner_place_shdrs(struct planner *p, size_t add)
{
	const struct ebid_elf *elf = p->elf;
	size_t ent = ebid_shent(elf->elfclass);
	uint64_t old_len = (uint64_t)elf->shnum * ent;
	uint64_t new_len = old_len + add * ent;
	uint64_t end = p->shoff + old_len;
	int64_t off;

	if (!p->shdrs_released) {
		if (!add)
			return 0;
		if (end + ent <= p->page && planner_range_free(p, end, ent, false)) {
			planner_mark(p, end, ent, B_CLAIMED);
			return 0;
		}
		/* Not behind appended bytes (new-load's). */
		if (end == body_end(p) && p->plan->out_size == end &&
		    !p->plan->append_len) {
			/* The entry is appended right at the end. */
			p->plan->out_size = end + ent;
			return 0;
		}
	}
	off = planner_alloc(p, new_len, ebid_word(elf->elfclass), false,
			    false);
	if (off >= 0) {
		p->shdrs_place = PLACE_IN_PAGE;
		p->shoff = (uint64_t)off;
		planner_mark(p, p->shoff, new_len, B_CLAIMED);
		return 0;
	}
	/* Appended once its contents are known (emit_section_headers). */
	p->shdrs_place = PLACE_APPEND;
	return 0;
}

/* Finds or makes the name ".note.gnu.build-id" in the section name table. */
int planner_place_name(struct planner *p)
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
	if (st->type != SHT_STRTAB)
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
	if (end + nlen <= p->page && planner_range_free(p, end, nlen, false)) {
		planner_mark(p, end, nlen, B_CLAIMED);
		p->shstrtab_off = st->offset;
		return 0;
	}
	if (end == body_end(p) && p->plan->out_size == body_end(p) &&
	    !p->plan->append_len) {
		p->shstrtab_off = st->offset;
		p->plan->out_size = end + nlen;
		return 0;
	}
	/*
	 * Relocate. A table in the linkers' order keeps the non-allocated
	 * sections behind the allocated ones, as llvm-objcopy and dwz rely on
	 * (docs/rewriters.md): the name table goes to the end. Another (Go
	 * 1.19's holds .shstrtab among the allocated sections) takes the
	 * first page's gap first, where debugedit and eu-strip -f keep it.
	 */
	off = planner_input_in_order(p) ? -1
		: planner_alloc(p, p->shstrtab_len, 1, false, false);
	if (off >= 0) {
		p->shstrtab_place = PLACE_IN_PAGE;
		p->shstrtab_off = (uint64_t)off;
		planner_mark(p, p->shstrtab_off, p->shstrtab_len, B_CLAIMED);
		return 0;
	}
	p->shstrtab_place = PLACE_APPEND; /* see emit_section_names() */
	return 0;
}

/*
 * A PT_PHDR grows with the table, so it must describe exactly the table
 * (end: where the table ends); growing any other one would point it at
 * unrelated bytes.
 */
static int check_pt_phdr(struct planner *p, uint64_t end)
{
	const struct ebid_elf *elf = p->elf;
	size_t i;

	for (i = 0; i < p->phnum; i++) {
		const struct ebid_phdr *ph = &p->phdrs[i];

		if (ph->type != PT_PHDR)
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
	return 0;
}

/*
 * Adds a program header (a PT_NOTE, or new-load's PT_LOAD before it):
 * new_pt is its index. The table grows in place (it is never
 * moved); a section header table right behind it is moved out of the way.
 * A refusal is REFUSE_NEXT: the caller that committed to a layout already
 * makes it REFUSE_STOP.
 */
int planner_grow_phdrs(struct planner *p, struct refusal *r)
{
	const struct ebid_elf *elf = p->elf;
	size_t ent = ebid_phent(elf->elfclass);
	size_t she = ebid_shent(elf->elfclass);
	uint64_t end = elf->phoff + (uint64_t)p->phnum * ent;
	size_t i;
	int ret;

	if (elf->phoff != ebid_ehsize(elf->elfclass))
		return refuse(r, REFUSE_NEXT, "program headers do not follow the ELF header");
	if (p->phnum + 1 > (EBID_PAGE - ebid_ehsize(elf->elfclass)) / ent ||
	    p->phnum >= elf->phnum + EBID_PH_ADD_MAX)
		return refuse(r, REFUSE_NEXT, "too many program headers for the first page");
	if (!planner_load_of(p, elf->phoff, end + ent - elf->phoff))
		return refuse(r, REFUSE_NEXT, "no loadable segment can hold one more program header");
	/* A section header table in the way is ours to move. */
	if (elf->shnum && elf->shoff < end + ent &&
	    elf->shoff + (uint64_t)elf->shnum * she > end) {
		if (elf->shoff < end)
			return refuse(r, REFUSE_NEXT, "section headers overlap the program headers");
		planner_mark(p, elf->shoff, (uint64_t)elf->shnum * she,
			     B_RELEASED);
		p->shdrs_released = true;
	}
	if (!planner_range_free(p, end, ent, false))
		return refuse(r, REFUSE_NEXT, "no free bytes after the program header table");
	ret = check_pt_phdr(p, end);
	if (ret)
		return ret;
	planner_mark(p, end, ent, B_CLAIMED);
	for (i = 0; i < p->phnum; i++)
		if (p->phdrs[i].type == PT_PHDR) {
			p->phdrs[i].filesz += ent;
			p->phdrs[i].memsz += ent;
			ret = planner_changed_ph(p, i);
			if (ret)
				return ret;
		}
	p->plan->new_pt = p->phnum++;
	p->plan->actions |= EBID_ACT_ADD_PT;
	return 0;
}

/*
 * Sets up the new PT_NOTE (already counted by planner_grow_phdrs()) over
 * a note; refuses (REFUSE_STOP) when no PT_LOAD maps it.
 */
int planner_new_pt(struct planner *p, uint64_t off, uint64_t len,
		   struct refusal *r)
{
	const struct ebid_phdr *load = planner_load_of(p, off, len);
	struct ebid_phdr *ph = &p->phdrs[NEW_PT(p)];

	if (!load)
		return refuse(r, REFUSE_STOP, "note would lie outside every loadable segment");
	memset(ph, 0, sizeof(*ph));
	ph->type = PT_NOTE;
	ph->flags = PF_R;
	ph->offset = off;
	ph->vaddr = load->vaddr + (off - load->offset);
	ph->paddr = load->paddr + (off - load->offset);
	ph->filesz = len;
	ph->memsz = len;
	ph->align = 4;
	return 0;
}

/* A PT_NOTE in the first page that can grow by len to take [off, off+len). */
int planner_adjacent_pt(const struct planner *p, uint64_t off,
			    uint64_t len)
{
	size_t i;

	for (i = 0; i < p->phnum; i++) {
		const struct ebid_phdr *ph = &p->phdrs[i];
		uint64_t end = ph->offset + ph->filesz;

		if (ph->type != PT_NOTE || ph->align > 4 ||
		    ph->filesz != ph->memsz || end > p->page)
			continue;
		if (off + len == ph->offset || end == off) {
			uint64_t lo = off < ph->offset ? off : ph->offset;

			if (planner_load_of(p, lo, ph->filesz + len))
				return (int)i;
		}
	}
	return -1;
}

int planner_extend_pt(struct planner *p, int i, uint64_t off, uint64_t len)
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
	return planner_changed_ph(p, (size_t)i);
}

