/* SPDX-License-Identifier: MIT */
/* Unit tests (TAP) for the pure functions: bytes, hex, notes, kernel view. */
#include <elf.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <elf.h>

#include "internal.h"
#include "elf/layout.h"
#include "elf/elf.h"

#include "tap.h"


/* A minimal ELF64 first page: Ehdr, one PT_NOTE at note_off. */
static void make_page(unsigned char *p, unsigned char data, uint64_t note_off,
		      uint64_t filesz, uint32_t namesz, uint32_t descsz,
		      uint32_t type, const char *name)
{
	memset(p, 0, EBID_PAGE);
	memcpy(p, "\177ELF", 4);
	p[4] = 2;
	p[5] = data;
	ebid_put(p + 16, 2, 2, data);                   /* e_type ET_EXEC */
	ebid_put(p + 56, 2, 1, data);                   /* e_phnum */
	ebid_put(p + 64, 4, PT_NOTE, data);        /* p_type */
	ebid_put(p + 64 + 8, 8, note_off, data);        /* p_offset */
	ebid_put(p + 64 + 32, 8, filesz, data);         /* p_filesz */
	ebid_put(p + note_off, 4, namesz, data);
	ebid_put(p + note_off + 4, 4, descsz, data);
	ebid_put(p + note_off + 8, 4, type, data);
	memcpy(p + note_off + 12, name, strlen(name) + 1);
	/* The descriptor, clipped to the page this buffer models. */
	if (note_off + 16 < EBID_PAGE)
		memset(p + note_off + 16, 0xab,
		       descsz < EBID_PAGE - note_off - 16
			       ? descsz
			       : EBID_PAGE - note_off - 16);
}

static void test_bytes(void)
{
	unsigned char b[8];

	ebid_put(b, 4, 0x11223344, 1);
	ok(b[0] == 0x44 && b[3] == 0x11, "put little endian");
	ebid_put(b, 4, 0x11223344, 2);
	ok(b[0] == 0x11 && b[3] == 0x44, "put big endian");
	ok(ebid_get(b, 4, 2) == 0x11223344, "get big endian round-trips");
	ebid_put(b, 8, 0x0102030405060708ull, 1);
	ok(ebid_get(b, 8, 1) == 0x0102030405060708ull, "64-bit round-trip");
}

/*
 * Program and section headers encoded in both classes are what <elf.h>'s
 * structures hold, in this machine's byte order.
 */
static void test_headers(void)
{
	unsigned char data = __BYTE_ORDER__ == __ORDER_LITTLE_ENDIAN__ ? 1 : 2;
	struct ebid_phdr ph = { .type = PT_NOTE, .flags = 4,
				.offset = 0x2a8, .vaddr = 0x4002a8,
				.paddr = 0x4012a8, .filesz = 0x24,
				.memsz = 0x28, .align = 8 };
	struct ebid_shdr sh = { .name = 7, .type = SHT_NOTE,
				.flags = SHF_ALLOC, .addr = 0x4002a8,
				.offset = 0x2a8, .size = 0x24, .link = 3,
				.info = 5, .addralign = 4, .entsize = 16 };
	Elf64_Phdr p64 = { PT_NOTE, 4, 0x2a8, 0x4002a8, 0x4012a8, 0x24, 0x28,
			   8 };
	Elf32_Phdr p32 = { PT_NOTE, 0x2a8, 0x4002a8, 0x4012a8, 0x24, 0x28, 4,
			   8 };
	Elf64_Shdr s64 = { 7, SHT_NOTE, SHF_ALLOC, 0x4002a8, 0x2a8, 0x24, 3,
			   5, 4, 16 };
	Elf32_Shdr s32 = { 7, SHT_NOTE, SHF_ALLOC, 0x4002a8, 0x2a8, 0x24, 3,
			   5, 4, 16 };
	unsigned char b[sizeof(Elf64_Shdr)];

	ok(ebid_phdr_encode(b, &ph, ELFCLASS64, data) == sizeof(p64) &&
		   !memcmp(b, &p64, sizeof(p64)),
	   "ELF64 program header encodes as Elf64_Phdr");
	ok(ebid_phdr_encode(b, &ph, ELFCLASS32, data) == sizeof(p32) &&
		   !memcmp(b, &p32, sizeof(p32)),
	   "ELF32 program header encodes as Elf32_Phdr");
	ok(ebid_shdr_encode(b, &sh, ELFCLASS64, data) == sizeof(s64) &&
		   !memcmp(b, &s64, sizeof(s64)),
	   "ELF64 section header encodes as Elf64_Shdr");
	ok(ebid_shdr_encode(b, &sh, ELFCLASS32, data) == sizeof(s32) &&
		   !memcmp(b, &s32, sizeof(s32)),
	   "ELF32 section header encodes as Elf32_Shdr");
	ok(ebid_word(ELFCLASS64) == sizeof(Elf64_Addr) &&
		   ebid_word(ELFCLASS32) == sizeof(Elf32_Addr),
	   "word size by class is that of Elf64_Addr and Elf32_Addr");
}

static void test_hex(void)
{
	unsigned char id[EBID_MAX_ID];
	char hex[2 * EBID_MAX_ID + 1];
	size_t len = 0;

	ok(ebid_unhex("0xdeadBEEF", id, sizeof(id), &len) == 0 && len == 4 &&
		   id[0] == 0xde && id[3] == 0xef,
	   "unhex accepts 0x and mixed case");
	ebid_hex(hex, id, len);
	ok(!strcmp(hex, "deadbeef"), "hex writes lower case");
	ok(ebid_unhex("abc", id, sizeof(id), &len) != 0, "odd length refused");
	ok(ebid_unhex("zz", id, sizeof(id), &len) != 0, "non-hex refused");
	ok(ebid_unhex("0x", id, sizeof(id), &len) != 0, "empty refused");
	ok(ebid_unhex("00112233445566778899aabbccddeeff0011223344", id,
		      sizeof(id), &len) != 0,
	   "21 bytes refused");
	ok(ebid_all_zero((const unsigned char *)"\0\0\0", 3) &&
		   !ebid_all_zero((const unsigned char *)"\0\1", 2),
	   "all_zero");
}

static int count_cb(const struct ebid_note_hdr *h, void *arg)
{
	(void)h;
	(*(int *)arg)++;
	return 0;
}

static void test_notes(void)
{
	unsigned char buf[64] = { 0 };
	int count = 0;

	ebid_put(buf, 4, 4, 1);
	ebid_put(buf + 4, 4, 20, 1);
	ebid_put(buf + 8, 4, 3, 1);
	memcpy(buf + 12, "GNU", 4);
	ok(ebid_notes_walk(buf, 36, 1, 4, count_cb, &count) == 0 && count == 1,
	   "one 36-byte note walks once");
	count = 0;
	ok(ebid_notes_walk(buf, 35, 1, 4, count_cb, &count) ==
		   -EBID_EMALFORMED,
	   "a note running past its container is malformed");
	ebid_put(buf + 4, 4, 0xfffffff0u, 1);
	ok(ebid_notes_walk(buf, 64, 1, 4, count_cb, &count) ==
		   -EBID_EMALFORMED,
	   "descsz near 2^32 is malformed, not wrapped");
	memset(buf, 0, sizeof(buf));
	count = 0;
	ok(ebid_notes_walk(buf, 64, 1, 4, count_cb, &count) == 0 &&
		   count == 5,
	   "empty notes advance by 12 each: the walk ends");
	ok(ebid_gnu_note_size(20) == 36 && ebid_gnu_note_size(16) == 32 &&
		   ebid_gnu_note_size(8) == 24 && ebid_gnu_note_size(1) == 20,
	   "GNU note sizes");
}

static void test_kernel(void)
{
	unsigned char *p = malloc(EBID_PAGE);
	unsigned char id[EBID_MAX_ID];
	uint64_t off = 0;
	int pt = -1;

	make_page(p, 1, 0xf00, 36, 4, 20, 3, "GNU");
	ok(ebid_kernel_build_id(p, EBID_PAGE, id, &pt, &off) == 20 && pt == 0 &&
		   off == 0xf10 && id[0] == 0xab,
	   "kernel finds a GNU note in the first page");
	make_page(p, 2, 0xf00, 36, 4, 20, 3, "GNU");
	ok(ebid_kernel_build_id(p, EBID_PAGE, id, NULL, NULL) == 20,
	   "big-endian file read in its own byte order");
	make_page(p, 1, 0xff0, 36, 4, 20, 3, "GNU");
	ok(ebid_kernel_build_id(p, EBID_PAGE, id, NULL, NULL) == 0,
	   "a PT_NOTE crossing the first page is not seen");
	make_page(p, 1, 0xf00, 48, 4, 32, 3, "GNU");
	ok(ebid_kernel_build_id(p, EBID_PAGE, id, NULL, NULL) == 0,
	   "a 32-byte id is ignored (cap is 20)");
	make_page(p, 1, 0xf00, 36, 4, 20, 4, "GNU");
	ok(ebid_kernel_build_id(p, EBID_PAGE, id, NULL, NULL) == 0,
	   "wrong note type is not a build-id");
	make_page(p, 1, 0xf00, 36, 4, 20, 3, "Go\0");
	ok(ebid_kernel_build_id(p, EBID_PAGE, id, NULL, NULL) == 0,
	   "wrong owner is not a build-id");
	make_page(p, 1, 0xf00, 36, 4, 20, 3, "GNU");
	ok(ebid_kernel_build_id(p, 0xf20, id, NULL, NULL) == 0,
	   "a file ending before the note: not seen");
	make_page(p, 1, 0xf00, 36, 4, 0, 3, "GNU");
	ok(ebid_kernel_build_id(p, EBID_PAGE, id, NULL, NULL) == 0,
	   "descsz 0 is not an id");
	make_page(p, 1, 0xf00, 36, 4, 20, 3, "GNU");
	ebid_put(p + 16, 2, 1, 1);
	ok(ebid_kernel_build_id(p, EBID_PAGE, id, NULL, NULL) == 0,
	   "ET_REL: the kernel reads only ET_EXEC and ET_DYN");
	ebid_put(p + 16, 2, 3, 1);
	ok(ebid_kernel_build_id(p, EBID_PAGE, id, NULL, NULL) == 20,
	   "ET_DYN is read");
	ebid_put(p + 52, 2, 99, 1);
	ok(ebid_kernel_build_id(p, EBID_PAGE, id, NULL, NULL) == 20,
	   "e_ehsize is ignored: program headers at sizeof(Ehdr)");
	make_page(p, 1, 0xf00, 36 + (1ull << 32), 4, 20, 3, "GNU");
	ok(ebid_kernel_build_id(p, EBID_PAGE, id, NULL, NULL) == 20,
	   "p_filesz is read as an Elf32_Word, as the kernel does");
	free(p);
}

/* ebid_elf_read names what is wrong with the first bytes. */
static void test_elf_head(void)
{
	unsigned char *p = malloc(EBID_PAGE);
	struct ebid_src src = { .fd = -1, .mem = p };
	struct ebid_elf elf;
	char err[EBID_ERRLEN];
	int ret;

	make_page(p, 1, 0xf00, 36, 4, 20, 3, "GNU");
	p[6] = 1; /* EI_VERSION */
	src.size = 33;
	ret = ebid_elf_read(&elf, &src, err, sizeof(err));
	ok(ret == -EBID_EMALFORMED && strstr(err, "ELF header truncated"),
	   "a file cut inside the ELF header names the header");
	src.size = 10;
	ret = ebid_elf_read(&elf, &src, err, sizeof(err));
	ok(ret == -EBID_EMALFORMED && strstr(err, "ELF header truncated"),
	   "a file cut inside e_ident names the header");
	src.size = 3;
	ret = ebid_elf_read(&elf, &src, err, sizeof(err));
	ok(ret == -EBID_ENOTELF, "three bytes are not an ELF file");
	src.size = EBID_PAGE;
	p[6] = 0;
	ret = ebid_elf_read(&elf, &src, err, sizeof(err));
	ok(ret == -EBID_EMALFORMED && strstr(err, "EI_VERSION 0"),
	   "EI_VERSION 0 is named");
	/* A read that fails is not "not an ELF file" (verify would skip). */
	src.fd = open(".", O_RDONLY | O_DIRECTORY);
	src.size = EBID_PAGE;
	ret = ebid_elf_read(&elf, &src, err, sizeof(err));
	ok(ret == -EISDIR && !strncmp(err, "cannot read: ", 13),
	   "a failed first read is an error with its cause");
	if (src.fd >= 0)
		close(src.fd);
	free(p);
}

/*
 * src/elf/layout.c: the movable-section rule the reader and the planner
 * share, the first PT_LOAD, the run after the program headers.
 */
static void test_layout(void)
{
	static const struct {
		uint32_t type;
		uint64_t flags;
		const char *name;
		enum ebid_movable kind;
		uint64_t tag;
	} rows[] = {
		{ SHT_NOTE, SHF_ALLOC, ".note.ABI-tag", EBID_MOVE_RUN, 0 },
		{ SHT_NOTE, 0, ".note.unloaded", EBID_MOVE_NONE, 0 },
		{ SHT_PROGBITS, SHF_ALLOC, ".interp", EBID_MOVE_RUN, 0 },
		{ SHT_PROGBITS, SHF_ALLOC, ".rodata", EBID_MOVE_NONE, 0 },
		{ SHT_GNU_HASH, SHF_ALLOC, ".gnu.hash", EBID_MOVE_TABLE, DT_GNU_HASH },
		{ SHT_HASH, SHF_ALLOC, ".hash", EBID_MOVE_TABLE, DT_HASH },
		{ SHT_DYNSYM, SHF_ALLOC, ".dynsym", EBID_MOVE_TABLE, DT_SYMTAB },
		{ SHT_STRTAB, SHF_ALLOC, ".dynstr", EBID_MOVE_TABLE, DT_STRTAB },
		{ SHT_STRTAB, 0, ".shstrtab", EBID_MOVE_NONE, 0 },
		{ SHT_GNU_versym, SHF_ALLOC, ".gnu.version", EBID_MOVE_TABLE, DT_VERSYM },
		{ SHT_GNU_verneed, SHF_ALLOC, ".gnu.version_r", EBID_MOVE_TABLE, DT_VERNEED },
		{ SHT_GNU_verdef, 0, ".gnu.version_d", EBID_MOVE_NONE, 0 },
	};
	struct ebid_phdr ph[3] = {
		{ .type = PT_PHDR, .offset = 0 },
		{ .type = PT_LOAD, .offset = 0x1000 },
		{ .type = PT_LOAD, .offset = 0 },
	};
	struct ebid_shdr sh[5] = {
		{ 0 },
		{ .type = SHT_NOTE, .offset = 0x300, .size = 0x20 },
		{ .type = SHT_PROGBITS, .offset = 0x238, .size = 0x1c },
		{ .type = SHT_NOBITS, .offset = 0x260, .size = 0x100 },
		{ .type = SHT_PROGBITS, .offset = 0x200, .size = 0x40 },
	};
	unsigned char head[EBID_PAGE] = { 0 };
	struct ebid_elf elf = { .shnum = 4, .shdrs = sh, .head = head,
				.head_len = EBID_PAGE };
	size_t cand[EBID_HEAD_CAND_MAX], nc = 0, i;
	char what[96];

	for (i = 0; i < ARRAY_SIZE(rows); i++) {
		struct ebid_shdr s = { .type = rows[i].type,
				       .flags = rows[i].flags,
				       .name_str = rows[i].name };
		uint64_t tag = 99;

		snprintf(what, sizeof(what), "layout: %s (flags %llu) movable as %d, tag 0x%llx",
			 rows[i].name, (unsigned long long)rows[i].flags,
			 rows[i].kind, (unsigned long long)rows[i].tag);
		ok(ebid_movable(&s, &tag) == rows[i].kind && tag == rows[i].tag,
		   "%s", what);
	}
	ok(ebid_phent(ELFCLASS64) == 56 && ebid_phent(ELFCLASS32) == 32 &&
		   ebid_shent(ELFCLASS64) == 64 && ebid_shent(ELFCLASS32) == 40 &&
		   ebid_ehsize(ELFCLASS64) == 64 && ebid_ehsize(ELFCLASS32) == 52 &&
		   ebid_word(ELFCLASS64) == 8 && ebid_word(ELFCLASS32) == 4,
	   "layout: entry sizes by class");
	ok(ebid_first_load(ph, 3) == 2, "layout: the first PT_LOAD at offset 0");
	ok(ebid_first_load(ph, 2) == -1, "layout: no PT_LOAD at offset 0");
	ok(ebid_head_run(&elf, 0x238, false, cand, &nc) == EBID_RUN_OK &&
		   nc == 2 && cand[0] == 2 && cand[1] == 1,
	   "layout: the run after the program headers, in file order, without NOBITS");
	elf.shnum = 5;
	ok(ebid_head_run(&elf, 0x238, false, cand, &nc) == EBID_RUN_OVERLAP,
	   "layout: a section over the end of the program headers stops the run");
	ok(ebid_head_run(&elf, 0x238, true, cand, &nc) == EBID_RUN_OK &&
		   nc == 2 && cand[0] == 2 && cand[1] == 1,
	   "layout: the reader leaves such a section out");
}

/* The linkers' order of section headers (ebid_shdrs_in_order()). */
static void test_order(void)
{
	/* [0] null; .interp, .text, .bss (mold: offset 0), .data, .comment. */
	struct ebid_shdr s[6] = {
		{0},
		{.type = SHT_PROGBITS, .flags = SHF_ALLOC, .offset = 0x318},
		{.type = SHT_PROGBITS, .flags = SHF_ALLOC, .offset = 0x1000},
		{.type = SHT_NOBITS, .flags = SHF_ALLOC, .offset = 0},
		{.type = SHT_PROGBITS, .flags = SHF_ALLOC, .offset = 0x2000},
		{.type = SHT_PROGBITS, .offset = 0x2100},
	};

	ok(ebid_shdrs_in_order(s, 6),
	   "order: allocated sections in file order, then the others; a NOBITS offset 0 keeps its place");
	s[5].offset = 0x1800;
	ok(ebid_shdrs_in_order(s, 6),
	   "order: the non-allocated sections come after the allocated ones in the table, whatever their offsets");
	s[5].offset = 0x2100;
	s[4].flags = 0;
	s[5].flags = SHF_ALLOC;
	ok(!ebid_shdrs_in_order(s, 6),
	   "order: an allocated section after a non-allocated one is out of order");
	s[4].flags = SHF_ALLOC;
	s[5].flags = 0;
	s[2].offset = 0x3000;
	ok(!ebid_shdrs_in_order(s, 6),
	   "order: an allocated section at a higher offset than the next is out of order");
	ok(ebid_shdrs_in_order(s, 2) && ebid_shdrs_in_order(s, 1),
	   "order: a table of one section, or none, is in order");
}

int main(void)
{
	test_bytes();
	test_headers();
	test_hex();
	test_notes();
	test_kernel();
	test_elf_head();
	test_layout();
	test_order();
	return tap_done();
}
