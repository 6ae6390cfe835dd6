/* SPDX-License-Identifier: MIT */
/*
 * test_plan.c's synthetic files built here. Part of one translation unit: test_plan.c
 * includes every file of tests/unit/plan/ in order, and they share its
 * static helpers and its TAP (tap.h).
 */

/* ---- synthetic files ---------------------------------------------------- */

/*
 * A small executable written here: Ehdr, program headers (PT_PHDR if
 * asked, one PT_LOAD from offset 0, a PT_NOTE over a test note if asked),
 * .text at 0x1000 (or right after the program headers: no room), a GNU
 * note if asked, .shstrtab and the section headers at the end.
 */
struct synth {
	bool is64, msb;
	uint16_t type;		/* ET_EXEC unless set */
	bool phdr;		/* a PT_PHDR */
	bool test_note;		/* a PT_NOTE with a 28-byte note at 0xfe4 */
	bool no_room;		/* .text right after the program headers */
	bool small;		/* .text at 0x200: a file shorter than a page */
	bool shdrs_early;	/* section headers right after the program
				 * headers, .text 40 bytes after them up to
				 * 0xf00: the table must move to the end */
	int gnu_len;		/* a GNU build-id note with this many bytes */
	uint64_t gnu_off;	/* ... here */
	bool gnu_filled;	/* ... non-zero */
	bool gnu_pt;		/* ... covered by its own PT_NOTE */
	unsigned gnu_pt_align;	/* that PT_NOTE's p_align (4 unless set) */
	const char *gnu_sec;	/* its section's name (.note.gnu.build-id) */
	const char *extra_name; /* one more name in .shstrtab */
};

struct ssec {
	uint32_t name, type;
	uint64_t flags, off, size, align;
};

struct sph {
	uint32_t type, flags;
	uint64_t off, filesz, align;
};

/*
 * Where synth puts everything: the entry sizes of the class, the program
 * and section headers it writes, .shstrtab's names, and the offsets of
 * .text, .shstrtab and the section header table.
 */
struct synth_layout {
	size_t eh, phe, she;
	char names[256];
	size_t nlen, phnum, shnum;
	struct ssec sec[8];
	struct sph ph[6];
	uint64_t text_off, text_len, text_size, str_off, sh_off;
	uint64_t load_end, file_end;
};

/* The program headers, and where .text goes and the first PT_LOAD ends. */
static void synth_segments(const struct synth *s, struct synth_layout *l)
{
	const size_t eh = l->eh, phe = l->phe, she = l->she;
	struct sph *ph = l->ph;
	size_t phnum = 0;

	if (s->phdr)
		ph[phnum++] = (struct sph){PT_PHDR, PF_R, eh, 0, 8};
	ph[phnum++] = (struct sph){PT_LOAD, PF_R | PF_X, 0, 0, 0x1000};
	if (s->test_note)
		ph[phnum++] = (struct sph){PT_NOTE, PF_R, 0xfe4, 28, 4};
	if (s->gnu_len && s->gnu_pt)
		ph[phnum++] =
		    (struct sph){PT_NOTE, PF_R, s->gnu_off,
				 16 + (((uint64_t)s->gnu_len + 3) & ~3ull),
				 s->gnu_pt_align ? s->gnu_pt_align : 4};
	if (s->phdr)
		ph[0].filesz = phnum * phe;
	l->text_off =
	    s->no_room ? eh + phnum * phe : s->small ? 0x200 : 0x1000;
	l->text_len = 0x40;
	if (s->shdrs_early) {
		/* A 40-byte gap between the table and .text: room for the
		 * note, not for the grown table. */
		size_t early = 3 + s->test_note + (s->gnu_len ? 1 : 0);

		l->text_off = (eh + phnum * phe + 7) / 8 * 8 + early * she + 40;
		l->text_len = 0xf00 - l->text_off;
	}
	l->text_size = l->text_len;
	if (s->gnu_len && s->gnu_off >= 0x1000)
		l->text_len = s->gnu_off + 0x40 - 0x1000;
	l->load_end = l->text_off + l->text_len;
	ph[s->phdr ? 1 : 0].filesz = l->load_end;
	l->phnum = phnum;
}

/* The sections and their names, and where the section headers go. */
static void synth_sections(const struct synth *s, struct synth_layout *l)
{
	const char *gnu_sec = s->gnu_sec ? s->gnu_sec : ".note.gnu.build-id";
	struct ssec *sec = l->sec;
	size_t shnum = 0;

#define NAME(str)                                                              \
	(memcpy(l->names + l->nlen, (str), strlen(str) + 1),                   \
	 l->nlen += strlen(str) + 1, (uint32_t)(l->nlen - strlen(str) - 1))
	l->names[0] = '\0';
	l->nlen = 1;
	sec[++shnum] = (struct ssec){
	    NAME(".text"), SHT_PROGBITS, SHF_ALLOC | SHF_EXECINSTR,
	    l->text_off,   l->text_size, 16};
	if (s->test_note)
		sec[++shnum] = (struct ssec){
		    NAME(".note.test"), SHT_NOTE, SHF_ALLOC, 0xfe4, 28, 4};
	if (s->gnu_len)
		sec[++shnum] =
		    (struct ssec){NAME(gnu_sec),
				  SHT_NOTE,
				  SHF_ALLOC,
				  s->gnu_off,
				  16 + (((uint64_t)s->gnu_len + 3) & ~3ull),
				  4};
	if (s->extra_name)
		(void)NAME(s->extra_name);
	sec[++shnum] = (struct ssec){NAME(".shstrtab"), SHT_STRTAB, 0, 0, 0, 1};
#undef NAME
	shnum++;
	l->str_off = l->load_end;
	sec[shnum - 1].off = l->str_off;
	sec[shnum - 1].size = l->nlen;
	l->sh_off = (l->str_off + l->nlen + 7) / 8 * 8;
	l->file_end = l->sh_off + shnum * l->she;
	if (s->shdrs_early) {
		l->sh_off = (l->eh + l->phnum * l->phe + 7) / 8 * 8;
		l->file_end = l->str_off + l->nlen;
	}
	l->shnum = shnum;
}

/* The ELF header, the program headers and the section headers. */
static void synth_headers(const struct synth *s, const struct synth_layout *l,
			  struct buf *b)
{
	const bool w = s->is64, m = s->msb;
	const size_t eh = l->eh, phe = l->phe, she = l->she;
	const size_t phnum = l->phnum, shnum = l->shnum;
	const struct sph *ph = l->ph;
	const struct ssec *sec = l->sec;
	const uint64_t base = 0x400000;
	size_t i;

	memcpy(b->p, ELFMAG, SELFMAG);
	b->p[EI_CLASS] = w ? ELFCLASS64 : ELFCLASS32;
	b->p[EI_DATA] = m ? ELFDATA2MSB : ELFDATA2LSB;
	b->p[EI_VERSION] = EV_CURRENT;
	PUTF(w, m, b->p, Ehdr, e_type, s->type ? s->type : ET_EXEC);
	PUTF(w, m, b->p, Ehdr, e_machine, w ? EM_X86_64 : EM_386);
	PUTF(w, m, b->p, Ehdr, e_version, EV_CURRENT);
	PUTF(w, m, b->p, Ehdr, e_entry, base + l->text_off);
	PUTF(w, m, b->p, Ehdr, e_phoff, eh);
	PUTF(w, m, b->p, Ehdr, e_shoff, l->sh_off);
	PUTF(w, m, b->p, Ehdr, e_ehsize, eh);
	PUTF(w, m, b->p, Ehdr, e_phentsize, phe);
	PUTF(w, m, b->p, Ehdr, e_phnum, phnum);
	PUTF(w, m, b->p, Ehdr, e_shentsize, she);
	PUTF(w, m, b->p, Ehdr, e_shnum, shnum);
	PUTF(w, m, b->p, Ehdr, e_shstrndx, shnum - 1);

	for (i = 0; i < phnum; i++) {
		unsigned char *p = b->p + eh + i * phe;

		PUTF(w, m, p, Phdr, p_type, ph[i].type);
		PUTF(w, m, p, Phdr, p_flags, ph[i].flags);
		PUTF(w, m, p, Phdr, p_offset, ph[i].off);
		PUTF(w, m, p, Phdr, p_vaddr, base + ph[i].off);
		PUTF(w, m, p, Phdr, p_paddr, base + ph[i].off);
		PUTF(w, m, p, Phdr, p_filesz, ph[i].filesz);
		PUTF(w, m, p, Phdr, p_memsz, ph[i].filesz);
		PUTF(w, m, p, Phdr, p_align, ph[i].align);
	}
	for (i = 1; i < shnum; i++) {
		unsigned char *p = b->p + l->sh_off + i * she;

		PUTF(w, m, p, Shdr, sh_name, sec[i].name);
		PUTF(w, m, p, Shdr, sh_type, sec[i].type);
		PUTF(w, m, p, Shdr, sh_flags, sec[i].flags);
		PUTF(w, m, p, Shdr, sh_addr,
		     (sec[i].flags & SHF_ALLOC) ? base + sec[i].off : 0);
		PUTF(w, m, p, Shdr, sh_offset, sec[i].off);
		PUTF(w, m, p, Shdr, sh_size, sec[i].size);
		PUTF(w, m, p, Shdr, sh_addralign, sec[i].align);
	}
}

/* The contents: .text, .shstrtab, the test note and the GNU note. */
static void synth_contents(const struct synth *s,
			   const struct synth_layout *l, struct buf *b)
{
	const bool m = s->msb;

	memset(b->p + l->text_off, 0x90, l->text_size);
	memcpy(b->p + l->str_off, l->names, l->nlen);
	if (s->test_note) {
		unsigned char *q = b->p + 0xfe4;

		put_n(q, 4, 4, m);
		put_n(q + 4, 4, 8, m);
		put_n(q + 8, 4, 1, m);
		memcpy(q + 12, "Tst", 4);
		memset(q + 16, 0x5a, 8);
	}
	if (s->gnu_len) {
		unsigned char *q = b->p + s->gnu_off;

		put_n(q, 4, 4, m);
		put_n(q + 4, 4, (uint64_t)s->gnu_len, m);
		put_n(q + 8, 4, NT_GNU_BUILD_ID, m);
		memcpy(q + 12, "GNU", 4);
		if (s->gnu_filled)
			memset(q + 16, 0xa5, (size_t)s->gnu_len);
	}
}

/* The file described by s; the caller owns (and frees) its bytes. */
static struct buf synth(const struct synth *s)
{
	struct synth_layout l;
	struct buf b = {0};

	memset(&l, 0, sizeof(l));
	l.eh = s->is64 ? sizeof(Elf64_Ehdr) : sizeof(Elf32_Ehdr);
	l.phe = s->is64 ? sizeof(Elf64_Phdr) : sizeof(Elf32_Phdr);
	l.she = s->is64 ? sizeof(Elf64_Shdr) : sizeof(Elf32_Shdr);
	synth_segments(s, &l);
	synth_sections(s, &l);
	buf_grow(&b, (size_t)l.file_end);
	synth_headers(s, &l, &b);
	synth_contents(s, &l, &b);
	return b;
}

/* With $EBID_TEST_DUMP set, each synthetic file is also written there. */
static void dump(const char *name, const struct buf *b)
{
	const char *dir = getenv("EBID_TEST_DUMP");
	char path[4096];
	FILE *f;

	if (!dir || !*dir)
		return;
	snprintf(path, sizeof(path), "%s/%s", dir, name);
	f = fopen(path, "wb");
	if (!f || fwrite(b->p, 1, b->len, f) != b->len)
		diag("cannot write %s", path);
	if (f)
		fclose(f);
}

/* A synthetic file as described, crafted further by craft if given. */
static void synth_input(const char *name, const struct synth *sy,
			bool (*craft)(struct buf *), int want,
			const char *words, bool all)
{
	struct buf b = synth(sy);

	if (craft && !craft(&b)) {
		ok(0, "%s: crafted", name);
		buf_free(&b);
		return;
	}
	printf("# %s: %zu bytes, synthetic\n", name, b.len);
	dump(name, &b);
	input_cases(name, &b, want, words, all);
	if (all)
		chains(name, &b);
	g_via_fd = false;
	buf_free(&b);
}

/* A GNU note after a 4-byte one, in a PT_NOTE walked at 8 (as mold does). */
static bool craft_note_after_8(struct buf *b)
{
	struct view v;
	unsigned char *ph, *q = b->p + 0x800;

	if (view_of(&v, b->p, b->len) || v.phnum < 2)
		return false;
	ph = b->p + v.phoff + v.phent; /* the PT_NOTE after the PT_LOAD */
	if (PH(&v, 1, p_type) != PT_NOTE || PH(&v, 1, p_offset) != 0x818)
		return false;
	put_n(q, 4, 4, v.msb);
	put_n(q + 4, 4, 4, v.msb);
	put_n(q + 8, 4, 1, v.msb);
	memcpy(q + 12, "Tst", 4);
	memset(q + 16, 0x77, 4);
	PUTF(v.is64, v.msb, ph, Phdr, p_offset, 0x800);
	PUTF(v.is64, v.msb, ph, Phdr, p_vaddr, 0x400800);
	PUTF(v.is64, v.msb, ph, Phdr, p_paddr, 0x400800);
	PUTF(v.is64, v.msb, ph, Phdr, p_filesz, 0x40);
	PUTF(v.is64, v.msb, ph, Phdr, p_memsz, 0x40);
	return true;
}

/* A section named .note.gnu.build-id that holds no GNU build-id note. */
static bool craft_not_gnu(struct buf *b)
{
	memcpy(b->p + 0x800 + 12, "GNX", 4);
	return true;
}

/* The plans synthetic files without a GNU note get, in words. */
static const char *const ADD_PT =
    "add-note,fill,add-pt-note,add-section-name";
static const char *const EXT_PT =
    "add-note,fill,extend-pt-note,add-section-name";

/*
 * No GNU note yet: where a new note goes (below a PT_NOTE, or with one of
 * its own), with the section header table in the way, with the name there
 * already, and with extended numbering.
 */
static void synthetic_new_note(void)
{
	synth_input("synth64le-ptnote",
		    &(struct synth){.is64 = true, .test_note = true}, NULL, 0,
		    EXT_PT, true);
	synth_input("synth32be-ptnote",
		    &(struct synth){.msb = true, .test_note = true}, NULL, 0,
		    EXT_PT, false);
	synth_input("synth64le-addpt", &(struct synth){.is64 = true}, NULL, 0,
		    ADD_PT, true);
	synth_input("synth32be-addpt", &(struct synth){.msb = true}, NULL, 0,
		    ADD_PT, true);
	synth_input("synth64le-addpt-phdr",
		    &(struct synth){.is64 = true, .phdr = true}, NULL, 0,
		    ADD_PT, false);
	synth_input("synth64be-addpt-phdr",
		    &(struct synth){.is64 = true, .msb = true, .phdr = true},
		    NULL, 0, ADD_PT, true);
	synth_input("synth32le-small", &(struct synth){.small = true}, NULL, 0,
		    ADD_PT, true);
	/* The section header table is in the way, and moves to the end. */
	synth_input(
	    "synth64le-shdrs-early",
	    &(struct synth){.is64 = true, .shdrs_early = true}, NULL, 0,
	    "add-note,fill,add-pt-note,move-section-headers,add-section-name",
	    true);
	synth_input(
	    "synth32be-shdrs-early",
	    &(struct synth){.msb = true, .shdrs_early = true}, NULL, 0,
	    "add-note,fill,add-pt-note,move-section-headers,add-section-name",
	    false);
	/* The name is reused as the tail of another. */
	synth_input("synth64le-name-there",
		    &(struct synth){.is64 = true,
				    .extra_name = ".rela.note.gnu.build-id"},
		    NULL, 0, "add-note,fill,add-pt-note", false);
	/* Extended section numbering, both byte orders. */
	synth_input("synth64le-addpt+xnum", &(struct synth){.is64 = true},
		    craft_xnum, 0, ADD_PT, false);
	synth_input("synth32be-addpt+xnum", &(struct synth){.msb = true},
		    craft_xnum, 0, ADD_PT, false);
	synth_input(
	    "synth64be-ptnote+xnum",
	    &(struct synth){.is64 = true, .msb = true, .test_note = true},
	    craft_xnum, 0, EXT_PT, true);
	synth_input("synth32be-addpt+shstrtab-end",
		    &(struct synth){.msb = true}, craft_shstrtab_end, 0, NULL,
		    true);
}

/* A GNU note there already: filled, covered, kept; an 8-byte one. */
static void synthetic_note_there(void)
{
	const int NOTE = -EBID_ENOTE;

	synth_input(
	    "synth64le-reserved",
	    &(struct synth){
		.is64 = true, .gnu_len = 20, .gnu_off = 0x800, .gnu_pt = true},
	    NULL, 0, "fill", true);
	synth_input(
	    "synth64le-reserved-uncovered",
	    &(struct synth){.is64 = true, .gnu_len = 20, .gnu_off = 0x800},
	    NULL, 0, "fill,add-pt-note", true);
	synth_input("synth32be-filled-uncovered",
		    &(struct synth){.msb = true,
				    .gnu_len = 20,
				    .gnu_off = 0x800,
				    .gnu_filled = true},
		    NULL, 0, "add-pt-note", true);
	synth_input("synth64le-filled-below-ptnote",
		    &(struct synth){.is64 = true,
				    .test_note = true,
				    .gnu_len = 20,
				    .gnu_off = 0xfc0,
				    .gnu_filled = true},
		    NULL, 0, "extend-pt-note", true);
	synth_input("synth64le-filled-visible",
		    &(struct synth){.is64 = true,
				    .gnu_len = 20,
				    .gnu_off = 0x800,
				    .gnu_filled = true,
				    .gnu_pt = true},
		    NULL, 0, "unchanged", true);
	/* An lld-style 8-byte id: kept; --force must keep its length. */
	synth_input("synth64le-8-byte-id",
		    &(struct synth){.is64 = true,
				    .gnu_len = 8,
				    .gnu_off = 0x800,
				    .gnu_filled = true,
				    .gnu_pt = true},
		    NULL, 0, "unchanged", false);
	{
		struct synth sy = {.is64 = true,
				   .gnu_len = 8,
				   .gnu_off = 0x800,
				   .gnu_filled = true,
				   .gnu_pt = true};
		struct buf b = synth(&sy);
		struct req f =
		    REQ("inject --force", EBID_MODE_INJECT, .force = true);
		struct req f8 =
		    REQ("inject --force --id=<8 bytes>", EBID_MODE_INJECT,
			.force = true, .id = ID8, .id_len = sizeof(ID8));

		run_case("synth64le-8-byte-id", &b, &f, NOTE, NULL, NULL);
		run_case("synth64le-8-byte-id", &b, &f8, 0, "fill", NULL);
		buf_free(&b);
	}
	/* A kernel-compatible 8-aligned PT_NOTE: the kernel sees the id. */
	synth_input("synth64le-note-in-8-aligned-pt",
		    &(struct synth){.is64 = true,
				    .gnu_len = 20,
				    .gnu_off = 0x800,
				    .gnu_filled = true,
				    .gnu_pt = true,
				    .gnu_pt_align = 8},
		    NULL, 0, "unchanged", false);
}

/* Refusals, each with its documented code. */
static void synthetic_refused(void)
{
	const int ROOM = -EBID_ENOROOM, NOTE = -EBID_ENOTE;

	synth_input("synth64le-et-rel",
		    &(struct synth){.is64 = true, .type = ET_REL}, NULL, NOTE,
		    NULL, false);
	synth_input("synth64le-no-room",
		    &(struct synth){.is64 = true, .no_room = true}, NULL, ROOM,
		    NULL, false);
	synth_input("synth32be-no-room",
		    &(struct synth){.msb = true, .no_room = true}, NULL, ROOM,
		    NULL, false);
	synth_input(
	    "synth64le-note-past-first-page",
	    &(struct synth){.is64 = true, .gnu_len = 20, .gnu_off = 0x1040},
	    NULL, ROOM, NULL, false);
	synth_input("synth64le-32-byte-id",
		    &(struct synth){.is64 = true,
				    .gnu_len = 32,
				    .gnu_off = 0x800,
				    .gnu_filled = true,
				    .gnu_pt = true},
		    NULL, NOTE, NULL, false);
	/*
	 * docs/build-id.md: a note "that sits in a PT_NOTE the kernel still
	 * cannot use (8-byte alignment, for example), is refused" (the
	 * planner once added a second PT_NOTE over it, overlapping the first).
	 */
	synth_input("synth64le-note-after-8-aligned-note",
		    &(struct synth){.is64 = true,
				    .gnu_len = 20,
				    .gnu_off = 0x818,
				    .gnu_pt = true,
				    .gnu_pt_align = 8},
		    craft_note_after_8, ROOM, NULL, false);
	synth_input("synth64le-note-misnamed",
		    &(struct synth){.is64 = true,
				    .gnu_len = 20,
				    .gnu_off = 0x800,
				    .gnu_pt = true,
				    .gnu_sec = ".note.other"},
		    NULL, -EBID_EMALFORMED, NULL, false);
	synth_input(
	    "synth64le-name-taken",
	    &(struct synth){
		.is64 = true, .gnu_len = 20, .gnu_off = 0x800, .gnu_pt = true},
	    craft_not_gnu, NOTE, NULL, false);
	synth_input("synth64le-addpt+pnxnum", &(struct synth){.is64 = true},
		    craft_pnxnum, ROOM, NULL, false);
	synth_input("synth64le-addpt+noshdr", &(struct synth){.is64 = true},
		    craft_noshdr, ROOM, NULL, false);
}

static void synthetic(void)
{
	synthetic_new_note();
	synthetic_note_there();
	synthetic_refused();
}
