/* SPDX-License-Identifier: MIT */
/*
 * What each reader of a GNU build-id makes of a layout's note: the one
 * statement of the placement rules that plan, the self-check, verify and
 * show all apply.
 */
#include <stdio.h>
#include <string.h>

#include "internal.h"
#include "elf/elf.h"

size_t ebid_note_section(const struct ebid_elf *elf)
{
	size_t i;

	for (i = 1; i < elf->shnum; i++)
		if (!strcmp(elf->shdrs[i].name_str, EBID_GNU_NOTE_NAME))
			return i;
	return 0;
}

int ebid_note_container(const struct ebid_elf *elf)
{
	const struct ebid_note *g = &elf->gnu;
	size_t i;

	if (!g->present)
		return -1;
	for (i = 0; i < elf->phnum; i++) {
		const struct ebid_phdr *ph = &elf->phdrs[i];

		if (ph->type == PT_NOTE && g->note_off >= ph->offset &&
		    g->note_off - ph->offset < ph->filesz)
			return (int)i;
	}
	return -1;
}

/* A section name fit for a one-line message: printable, cut short. */
static void printable_name(char *out, size_t len, const char *name)
{
	size_t i;

	for (i = 0; i + 1 < len && name[i]; i++)
		out[i] = name[i] > 0x20 && name[i] < 0x7f ? name[i] : '?';
	out[i] = '\0';
}

/* A note that no section describes: what the section table says instead. */
static void why_no_section(const struct ebid_elf *elf, char *why, size_t len)
{
	const struct ebid_note *g = &elf->gnu;
	size_t first = ebid_note_section(elf);
	const struct ebid_shdr *s = &elf->shdrs[first];

	if (!first)
		snprintf(why, len,
			 "the GNU build-id note at offset 0x%llx lies in no SHT_NOTE section (no section is named %s)",
			 (unsigned long long)g->note_off, EBID_GNU_NOTE_NAME);
	else if (s->type != SHT_NOTE)
		snprintf(why, len,
			 "section header [%zu] %s: sh_type %u is not SHT_NOTE",
			 first, EBID_GNU_NOTE_NAME, s->type);
	else
		snprintf(why, len,
			 "section header [%zu] %s: sh_offset 0x%llx/sh_size %llu do not hold the GNU build-id note at offset 0x%llx",
			 first, EBID_GNU_NOTE_NAME,
			 (unsigned long long)s->offset,
			 (unsigned long long)s->size,
			 (unsigned long long)g->note_off);
}

/*
 * The names perf looks the note up by, in its order (tools/perf/util/
 * symbol-elf.c, elf_read_build_id): it takes the first section of the first
 * name that any section carries, and walks only that section's notes. gdb
 * (BFD) and file read every SHT_NOTE section; strip keeps any SHF_ALLOC
 * one. perf's rule is therefore the narrowest, and the one that decides.
 */
static const char *const perf_names[] = { EBID_GNU_NOTE_NAME, ".notes", ".note" };

/* The section perf reads the id from, or 0 when no section has its names. */
static size_t perf_section(const struct ebid_elf *elf, const char **name)
{
	size_t n, i;

	for (n = 0; n < sizeof(perf_names) / sizeof(perf_names[0]); n++)
		for (i = 1; i < elf->shnum; i++)
			if (!strcmp(elf->shdrs[i].name_str, perf_names[n])) {
				*name = perf_names[n];
				return i;
			}
	*name = NULL;
	return 0;
}

/*
 * Readers by section (perf, gdb, file, strip): the note must be in the
 * section perf picks (above), which must be SHF_ALLOC (strip keeps it) and
 * hold the whole note at its sh_addralign. A second section named
 * .note.gnu.build-id, section 0 included, is refused too: tools that take
 * the last one, or merge by name, would see another note.
 */
static bool section_view(const struct ebid_elf *elf, char *why, size_t len)
{
	const struct ebid_note *g = &elf->gnu;
	const char *pname;
	size_t pick = perf_section(elf, &pname), i;
	const struct ebid_shdr *s = &elf->shdrs[g->shndx];
	char name[40];

	if (!elf->shnum) {
		snprintf(why, len,
			 "the file has no section headers, so readers by section (perf, file, strip) cannot see the note");
		return false;
	}
	if (!g->shndx) {
		why_no_section(elf, why, len);
		return false;
	}
	if (!pick) {
		printable_name(name, sizeof(name), s->name_str);
		snprintf(why, len,
			 "section header [%zu]: sh_name %u reads '%s'; perf reads the id only from a section named %s, .notes or .note",
			 g->shndx, s->name, name, EBID_GNU_NOTE_NAME);
		return false;
	}
	if (pick != g->shndx) {
		printable_name(name, sizeof(name), s->name_str);
		snprintf(why, len,
			 "section header [%zu] %s comes first in perf's lookup (%s, then .notes, then .note) but the note is in section [%zu] '%s'",
			 pick, pname, EBID_GNU_NOTE_NAME, g->shndx, name);
		return false;
	}
	/* Section 0's name is not in name_str; readers may still use it. */
	if (elf->shdrs[0].name && elf->shdrs[0].name < elf->shstrtab_size &&
	    !strcmp(elf->shstrtab + elf->shdrs[0].name, pname)) {
		snprintf(why, len, "section header [0]: sh_name %u names %s too",
			 elf->shdrs[0].name, pname);
		return false;
	}
	for (i = g->shndx + 1; i < elf->shnum; i++)
		if (!strcmp(elf->shdrs[i].name_str, EBID_GNU_NOTE_NAME)) {
			snprintf(why, len,
				 "section header [%zu] is also named %s (the note is in section [%zu])",
				 i, EBID_GNU_NOTE_NAME, g->shndx);
			return false;
		}
	if (!(s->flags & SHF_ALLOC)) {
		snprintf(why, len,
			 "section header [%zu] %s: sh_flags 0x%llx lack SHF_ALLOC",
			 g->shndx, pname, (unsigned long long)s->flags);
		return false;
	}
	if (g->note_off + g->note_size > s->offset + s->size) {
		snprintf(why, len,
			 "section header [%zu] %s: sh_size %llu cuts the note's padding to sh_addralign %llu",
			 g->shndx, pname, (unsigned long long)s->size,
			 (unsigned long long)s->addralign);
		return false;
	}
	return true;
}

/* Why the kernel's reader (ebid_kernel_build_id) does not find the note. */
static void kernel_why(const struct ebid_elf *elf, char *why, size_t len)
{
	size_t ehsize = ebid_ehdr_layouts[elf->elfclass - 1].size;
	int in = ebid_note_container(elf);

	if (elf->type != ET_EXEC && elf->type != ET_DYN)
		snprintf(why, len,
			 "e_type %u: the kernel reads only executables and shared libraries",
			 elf->type);
	else if (elf->phoff != ehsize)
		snprintf(why, len,
			 "e_phoff 0x%llx is not sizeof(Ehdr): kernels before 6.12 read program headers at sizeof(Ehdr), newer ones at e_phoff",
			 (unsigned long long)elf->phoff);
	else if (elf->raw_phnum == PN_XNUM)
		snprintf(why, len,
			 "the program header count is in section 0 (PN_XNUM), which the kernel's build-id reader does not follow");
	else if (elf->gnu.pt_index >= 0)
		snprintf(why, len,
			 "PT_NOTE [%d] covers it, but not inside the first page",
			 elf->gnu.pt_index);
	else if (in >= 0)
		snprintf(why, len,
			 "it lies in PT_NOTE [%d], but a walk of that segment's notes at 4-byte alignment, the kernel's, does not reach it (p_align %llu)",
			 in, (unsigned long long)elf->phdrs[in].align);
	else
		snprintf(why, len,
			 "no PT_NOTE inside the first page covers the note");
}

void ebid_note_view(const struct ebid_elf *elf, struct ebid_note_view *v)
{
	const struct ebid_note *g = &elf->gnu;

	memset(v, 0, sizeof(*v));
	v->present = g->present;
	if (!g->present) {
		snprintf(v->section_why, sizeof(v->section_why),
			 "no GNU build-id note");
		snprintf(v->kernel_why, sizeof(v->kernel_why),
			 "no GNU build-id note");
		return;
	}
	v->by_section = section_view(elf, v->section_why,
				     sizeof(v->section_why));
	v->by_kernel = elf->gnu_kernel_visible;
	if (!v->by_kernel)
		kernel_why(elf, v->kernel_why, sizeof(v->kernel_why));
	v->size_ok = g->desc_len >= 1 && g->desc_len <= EBID_MAX_ID;
	v->nonzero = v->size_ok && !ebid_all_zero(g->desc, g->desc_len);
}
