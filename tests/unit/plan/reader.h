/* SPDX-License-Identifier: MIT */
/*
 * test_plan.c's an ELF reader of our own (<elf.h> layouts, either class and order). Part of one translation unit: test_plan.c
 * includes every file of tests/unit/plan/ in order, and they share its
 * static helpers and its TAP (tap.h).
 */

/* ---- an ELF reader of our own (<elf.h> layouts, either class and order) -- */

static uint64_t get_n(const unsigned char *p, size_t w, bool msb)
{
	uint64_t v = 0;
	size_t i;

	for (i = 0; i < w; i++)
		v |= (uint64_t)p[msb ? w - 1 - i : i] << (8 * i);
	return v;
}

static void put_n(unsigned char *p, size_t w, uint64_t v, bool msb)
{
	size_t i;

	for (i = 0; i < w; i++)
		p[msb ? w - 1 - i : i] = (unsigned char)(v >> (8 * i));
}

#define FIELD_SIZE(T, f) sizeof(((T *)0)->f)
/* Field f of an ELF structure of kind K (Ehdr, Phdr, Shdr) at p. */
#define GETF(is64, msb, p, K, f)                                               \
	((is64) ? get_n((p) + offsetof(Elf64_##K, f),                          \
			FIELD_SIZE(Elf64_##K, f), (msb))                       \
		: get_n((p) + offsetof(Elf32_##K, f),                          \
			FIELD_SIZE(Elf32_##K, f), (msb)))
#define PUTF(is64, msb, p, K, f, v)                                            \
	((is64) ? put_n((p) + offsetof(Elf64_##K, f),                          \
			FIELD_SIZE(Elf64_##K, f), (v), (msb))                  \
		: put_n((p) + offsetof(Elf32_##K, f),                          \
			FIELD_SIZE(Elf32_##K, f), (v), (msb)))

struct view {
	const unsigned char *p;
	size_t len;
	bool is64, msb;
	uint64_t phoff, shoff;
	size_t ehsize, phent, shent, phnum, shnum, shstrndx;
	uint16_t raw_phnum;
};

static int view_of(struct view *v, const unsigned char *p, size_t len)
{
	memset(v, 0, sizeof(*v));
	if (len < EI_NIDENT || memcmp(p, ELFMAG, SELFMAG))
		return -1;
	v->p = p;
	v->len = len;
	v->is64 = p[EI_CLASS] == ELFCLASS64;
	v->msb = p[EI_DATA] == ELFDATA2MSB;
	v->ehsize = v->is64 ? sizeof(Elf64_Ehdr) : sizeof(Elf32_Ehdr);
	if (len < v->ehsize)
		return -1;
	v->phoff = GETF(v->is64, v->msb, p, Ehdr, e_phoff);
	v->shoff = GETF(v->is64, v->msb, p, Ehdr, e_shoff);
	v->phent = GETF(v->is64, v->msb, p, Ehdr, e_phentsize);
	v->shent = GETF(v->is64, v->msb, p, Ehdr, e_shentsize);
	v->raw_phnum = (uint16_t)GETF(v->is64, v->msb, p, Ehdr, e_phnum);
	v->phnum = v->raw_phnum;
	v->shnum = GETF(v->is64, v->msb, p, Ehdr, e_shnum);
	v->shstrndx = GETF(v->is64, v->msb, p, Ehdr, e_shstrndx);
	if (v->shoff && (v->shoff >= len || v->shent < (v->is64 ? 64u : 40u)))
		return -1;
	/* Extended numbering: the counts in section 0. */
	if (v->shoff && v->shnum == 0)
		v->shnum = GETF(v->is64, v->msb, p + v->shoff, Shdr, sh_size);
	if (v->shoff && v->shstrndx == SHN_XINDEX)
		v->shstrndx =
		    GETF(v->is64, v->msb, p + v->shoff, Shdr, sh_link);
	if (v->shoff && v->raw_phnum == PN_XNUM)
		v->phnum = GETF(v->is64, v->msb, p + v->shoff, Shdr, sh_info);
	if (!v->shoff)
		v->shnum = 0;
	if (v->shnum && v->shoff + v->shnum * v->shent > len)
		return -1;
	if (v->phnum && v->phoff + v->phnum * v->phent > len)
		return -1;
	return 0;
}

static const unsigned char *shdr_at(const struct view *v, size_t i)
{
	return v->p + v->shoff + i * v->shent;
}

static const unsigned char *phdr_at(const struct view *v, size_t i)
{
	return v->p + v->phoff + i * v->phent;
}

#define SH(v, i, f) GETF((v)->is64, (v)->msb, shdr_at(v, i), Shdr, f)
#define PH(v, i, f) GETF((v)->is64, (v)->msb, phdr_at(v, i), Phdr, f)

/* The name of section i, or NULL when it does not fit the table. */
static const char *sh_name(const struct view *v, size_t i)
{
	uint64_t off, size, name;

	if (v->shstrndx >= v->shnum)
		return NULL;
	off = SH(v, v->shstrndx, sh_offset);
	size = SH(v, v->shstrndx, sh_size);
	name = SH(v, i, sh_name);
	if (off + size > v->len || name >= size ||
	    !memchr(v->p + off + name, 0, size - name))
		return NULL;
	return (const char *)v->p + off + name;
}

/* Where a reader finds the id: descriptor offset and length. */
struct found {
	bool ok;
	uint64_t desc_off;
	size_t desc_len;
	char why[160];
};

/*
 * As perf, gdb and file do: the first section named .note.gnu.build-id,
 * which must be SHT_NOTE and SHF_ALLOC and start with a "GNU" note of type
 * NT_GNU_BUILD_ID.
 */
static struct found by_section(const struct view *v)
{
	struct found f = {0};
	size_t i;

	for (i = 1; i < v->shnum; i++) {
		const char *name = sh_name(v, i);
		uint64_t off, size, namesz, descsz;
		const unsigned char *q;

		if (!name || strcmp(name, ".note.gnu.build-id"))
			continue;
		if (SH(v, i, sh_type) != SHT_NOTE ||
		    !(SH(v, i, sh_flags) & SHF_ALLOC)) {
			snprintf(f.why, sizeof(f.why),
				 "section [%zu] is not SHT_NOTE with SHF_ALLOC",
				 i);
			return f;
		}
		off = SH(v, i, sh_offset);
		size = SH(v, i, sh_size);
		if (size < 16 || off + size > v->len) {
			snprintf(f.why, sizeof(f.why),
				 "section [%zu] too small or outside the file",
				 i);
			return f;
		}
		q = v->p + off;
		namesz = get_n(q, 4, v->msb);
		descsz = get_n(q + 4, 4, v->msb);
		if (namesz != 4 || memcmp(q + 12, "GNU", 4) ||
		    get_n(q + 8, 4, v->msb) != NT_GNU_BUILD_ID ||
		    16 + descsz > size) {
			snprintf(f.why, sizeof(f.why),
				 "section [%zu] does not start with a GNU "
				 "build-id note",
				 i);
			return f;
		}
		f.ok = true;
		f.desc_off = off + 16;
		f.desc_len = (size_t)descsz;
		return f;
	}
	snprintf(f.why, sizeof(f.why), "no section named .note.gnu.build-id");
	return f;
}

/*
 * As the kernel does (lib/buildid.c before 6.12, docs/build-id.md section
 * 2): program headers at sizeof(Ehdr) whatever e_phoff says, only PT_NOTEs
 * wholly inside the first page, notes walked at 4-byte alignment, the first
 * "GNU" note of type 3 with 1 to 20 bytes. The note must also lie in the
 * PT_LOAD that maps file offset 0.
 */
static struct found by_kernel(const struct view *v)
{
	struct found f = {0};
	size_t head = v->len < 4096 ? v->len : 4096, i, k;

	snprintf(f.why, sizeof(f.why), "no PT_NOTE in the first page holds it");
	if (v->raw_phnum == PN_XNUM || v->phoff != v->ehsize) {
		snprintf(f.why, sizeof(f.why),
			 "e_phnum is PN_XNUM or e_phoff is not sizeof(Ehdr)");
		return f;
	}
	if (v->ehsize + v->phnum * v->phent > head)
		return f;
	for (i = 0; i < v->phnum; i++) {
		uint64_t off = PH(v, i, p_offset), size = PH(v, i, p_filesz);
		uint64_t pos, end = off + (uint32_t)size;

		if (PH(v, i, p_type) != PT_NOTE || end > head)
			continue;
		for (pos = off; pos + 12 <= end;) {
			const unsigned char *q = v->p + pos;
			uint64_t namesz = get_n(q, 4, v->msb);
			uint64_t descsz = get_n(q + 4, 4, v->msb);
			uint64_t next = pos + 12 + ((namesz + 3) & ~3ull) +
					((descsz + 3) & ~3ull);

			if (next > end)
				break;
			if (namesz == 4 && !memcmp(q + 12, "GNU", 4) &&
			    get_n(q + 8, 4, v->msb) == NT_GNU_BUILD_ID &&
			    descsz >= 1 && descsz <= 20) {
				f.desc_off = pos + 16;
				f.desc_len = (size_t)descsz;
				for (k = 0; k < v->phnum; k++)
					if (PH(v, k, p_type) == PT_LOAD &&
					    PH(v, k, p_offset) == 0 &&
					    PH(v, k, p_filesz) >=
						f.desc_off + descsz)
						break;
				if (k == v->phnum) {
					snprintf(f.why, sizeof(f.why),
						 "the note at 0x%llx lies in "
						 "no PT_LOAD from offset 0",
						 (unsigned long long)pos);
					return f;
				}
				f.ok = true;
				return f;
			}
			pos = next;
		}
	}
	return f;
}

/* The PT_LOAD holding [off, off + len), or -1. */
static int load_of(const struct view *v, uint64_t off, uint64_t len)
{
	size_t i;

	for (i = 0; i < v->phnum; i++)
		if (PH(v, i, p_type) == PT_LOAD && off >= PH(v, i, p_offset) &&
		    off + len <= PH(v, i, p_offset) + PH(v, i, p_filesz))
			return (int)i;
	return -1;
}

/*
 * What must hold between headers, whatever the planner did: each PT_NOTE
 * and the note section lie in a PT_LOAD that maps them at the address they
 * give, PT_PHDR describes exactly the program header table, and sections
 * lie inside the file with names inside the name table.
 */
static bool headers_consistent(const struct view *v, char *why, size_t len)
{
	size_t i;

	for (i = 0; i < v->phnum; i++) {
		uint64_t off = PH(v, i, p_offset), sz = PH(v, i, p_filesz);
		int l;

		switch (PH(v, i, p_type)) {
		case PT_NOTE:
			l = load_of(v, off, sz);
			if (l < 0 ||
			    PH(v, i, p_vaddr) - off !=
				PH(v, l, p_vaddr) - PH(v, l, p_offset) ||
			    PH(v, i, p_memsz) != sz) {
				snprintf(why, len,
					 "PT_NOTE [%zu] at 0x%llx: not mapped "
					 "at its p_vaddr by a PT_LOAD, or "
					 "p_memsz != p_filesz",
					 i, (unsigned long long)off);
				return false;
			}
			break;
		case PT_PHDR:
			if (off != v->phoff || sz != v->phnum * v->phent ||
			    PH(v, i, p_memsz) != sz) {
				snprintf(why, len,
					 "PT_PHDR [%zu] 0x%llx/%llu is not the "
					 "table 0x%llx/%zu",
					 i, (unsigned long long)off,
					 (unsigned long long)sz,
					 (unsigned long long)v->phoff,
					 v->phnum * v->phent);
				return false;
			}
			break;
		}
	}
	for (i = 1; i < v->shnum; i++) {
		uint64_t off = SH(v, i, sh_offset), sz = SH(v, i, sh_size);
		const char *name = sh_name(v, i);
		int l;

		if (!name) {
			snprintf(why, len,
				 "section [%zu]: name not in the name table",
				 i);
			return false;
		}
		if (SH(v, i, sh_type) != SHT_NOBITS && sz &&
		    (off > v->len || sz > v->len - off)) {
			snprintf(why, len,
				 "section [%zu] %s past the end of the file", i,
				 name);
			return false;
		}
		if (strcmp(name, ".note.gnu.build-id"))
			continue;
		l = load_of(v, off, sz);
		if (l < 0 ||
		    SH(v, i, sh_addr) - off !=
			PH(v, l, p_vaddr) - PH(v, l, p_offset) ||
		    SH(v, i, sh_addralign) != 4) {
			snprintf(why, len,
				 "section [%zu] %s: sh_addr 0x%llx not where a "
				 "PT_LOAD maps sh_offset 0x%llx, or "
				 "sh_addralign != 4",
				 i, name, (unsigned long long)SH(v, i, sh_addr),
				 (unsigned long long)off);
			return false;
		}
	}
	return true;
}

/*
 * Output PT_NOTE i is one of the input's with only its place changed (as
 * move-head moves them): same p_align, p_flags and size.
 */
static bool same_note_moved(const struct view *iv, const struct view *v,
			    size_t i)
{
	size_t j;

	for (j = 0; j < iv->phnum; j++)
		if (PH(iv, j, p_type) == PT_NOTE &&
		    PH(iv, j, p_align) == PH(v, i, p_align) &&
		    PH(iv, j, p_flags) == PH(v, i, p_flags) &&
		    PH(iv, j, p_filesz) == PH(v, i, p_filesz))
			return true;
	return false;
}

/* Whether off lies in a header table, a section or a segment of v. */
static bool in_use(const struct view *v, uint64_t off)
{
	size_t i;

	if (off < v->ehsize ||
	    (off >= v->phoff && off < v->phoff + v->phnum * v->phent) ||
	    (v->shnum && off >= v->shoff &&
	     off < v->shoff + v->shnum * v->shent))
		return true;
	for (i = 1; i < v->shnum; i++)
		if (SH(v, i, sh_type) != SHT_NOBITS &&
		    off >= SH(v, i, sh_offset) &&
		    off < SH(v, i, sh_offset) + SH(v, i, sh_size))
			return true;
	for (i = 0; i < v->phnum; i++)
		if (PH(v, i, p_type) != PT_LOAD && off >= PH(v, i, p_offset) &&
		    off < PH(v, i, p_offset) + PH(v, i, p_filesz))
			return true;
	return false;
}

/*
 * src/plan/emit.c: bytes released in the first page "are zeroed, never left stale":
 * a section header table that moves out of the first page leaves no copy
 * there. (A table beyond the first page is left where it was.) Returns
 * the first byte of the old table that is neither zero nor part of
 * anything in the output, or -1.
 */
static int64_t stale_table_byte(const struct view *in, const struct view *out)
{
	uint64_t off, end = in->shoff + in->shnum * in->shent;

	if (!in->shnum || out->shoff == in->shoff)
		return -1;
	for (off = in->shoff; off < end && off < out->len && off < 4096; off++)
		if (out->p[off] && !in_use(out, off))
			return (int64_t)off;
	return -1;
}
