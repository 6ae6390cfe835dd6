/* SPDX-License-Identifier: MIT */
/*
 * Unit tests (TAP) for the planner, through the public API
 * (include/elf-buildid.h) and, white-box, the self-check's and the reader's
 * internal headers: real and crafted ELF files are read into memory,
 * planned (inject, reserve, backfill; sha1, sha256, md5, sha1-tree, --id,
 * --force), applied to memory and read back. Each output is judged by the
 * library's own self-check and by readers written here: the id is the hash
 * recomputed with OpenSSL as docs/build-id.md defines it, the note is found
 * by section name and by the kernel's rules (and ebid_note_view agrees),
 * headers stay consistent, only planned bytes changed, planning twice gives
 * the same plan, and planning the output again changes nothing; reserve
 * then backfill gives inject's bytes. Refusals give the documented error
 * codes. Placement itself (which offsets) is pinned by the golden --dry-run
 * files of tests/t0360-golden-dry-run.sh, not here.
 *
 * Usage: test_plan [FIXTURES-DIR]
 *        test_plan --matrix [MATRIX-DIR]
 * The first form plans the synthetic files built here, the test binary
 * itself (a C program from the host linker) and the fixtures, $EBID_FIXTURES
 * or build/fixtures (scripts/build-fixtures.sh, which tests/run.sh runs
 * first): `make test` runs it. The second plans the compatibility-matrix
 * shapes below, $EBID_MATRIX or build/matrix: tests/t0302-plan-matrix.sh
 * runs it in the slow tier, after t0300 and t0301 have built the matrix.
 * An input that is missing is a failure, not a skip: each form runs only
 * where its inputs are built.
 * With $EBID_TEST_DUMP set to a directory, the synthetic files are written
 * there too (to try the tool on them).
 */
#include <elf.h>
#include <errno.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#include <openssl/evp.h>

/* White-box: the self-check and reader internals (src/internal.h). */
#include "internal.h"
#include "elf/elf.h"
#include "check/check.h"

#include "tap.h"




/* ---- bytes -------------------------------------------------------------- */

struct buf {
	unsigned char *p;
	size_t len;
};

static void buf_free(struct buf *b)
{
	free(b->p);
	b->p = NULL;
	b->len = 0;
}

static struct buf buf_dup(const struct buf *b)
{
	struct buf c = {malloc(b->len ? b->len : 1), b->len};

	if (!c.p)
		abort();
	memcpy(c.p, b->p, b->len);
	return c;
}

static void buf_grow(struct buf *b, size_t len)
{
	unsigned char *p = realloc(b->p, len);

	if (!p)
		abort();
	if (len > b->len)
		memset(p + b->len, 0, len - b->len);
	b->p = p;
	b->len = len;
}

/* The whole file, or an empty buffer with why set. */
static struct buf load(const char *path, const char **why)
{
	struct buf b = {0};
	FILE *f = fopen(path, "rb");
	long len;

	*why = NULL;
	if (!f) {
		*why = strerror(errno);
		return b;
	}
	if (fseek(f, 0, SEEK_END) || (len = ftell(f)) <= 0 ||
	    fseek(f, 0, SEEK_SET)) {
		*why = "cannot size";
		fclose(f);
		return b;
	}
	b.p = malloc((size_t)len);
	if (!b.p)
		abort();
	b.len = (size_t)len;
	if (fread(b.p, 1, b.len, f) != b.len) {
		*why = "short read";
		buf_free(&b);
	}
	fclose(f);
	return b;
}

/*
 * The library reads memory sources and file descriptors alike, but for
 * one kind of input it cannot read from memory (see same_reads()); such an
 * input is then read through a memfd holding the same bytes, so that its
 * planning is still checked.
 */
static bool g_via_fd;

static struct ebid_src source(const struct buf *b, int *fd)
{
	struct ebid_src s = {.fd = -1, .mem = b->p, .size = b->len};
	size_t done = 0;

	*fd = -1;
	if (!g_via_fd)
		return s;
	*fd = memfd_create("test_plan", MFD_CLOEXEC);
	if (*fd < 0)
		abort();
	while (done < b->len) {
		ssize_t w = write(*fd, b->p + done, b->len - done);

		if (w <= 0)
			abort();
		done += (size_t)w;
	}
	s.fd = *fd;
	s.mem = NULL;
	return s;
}

static void source_close(int *fd)
{
	if (*fd >= 0)
		close(*fd);
	*fd = -1;
}

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

/* ---- the id, recomputed as docs/build-id.md defines it ------------------ */

static void digest(const EVP_MD *md, const unsigned char *p, size_t len,
		   unsigned char *out)
{
	unsigned int olen = 0;

	if (!EVP_Digest(p, len, out, &olen, md, NULL))
		abort();
}

/* The id of buf with [off, off + len) read as zeros, by alg. */
static void expected_id(const struct buf *b, uint64_t off, size_t len,
			enum ebid_hash_alg alg, unsigned char id[EBID_MAX_ID])
{
	struct buf z = buf_dup(b);
	unsigned char md[EVP_MAX_MD_SIZE];

	memset(z.p + off, 0, len);
	memset(id, 0, EBID_MAX_ID);
	switch (alg) {
	case EBID_HASH_SHA1:
		digest(EVP_sha1(), z.p, z.len, md);
		break;
	case EBID_HASH_SHA256:
		digest(EVP_sha256(), z.p, z.len, md);
		break;
	case EBID_HASH_MD5:
		digest(EVP_md5(), z.p, z.len, md);
		break;
	case EBID_HASH_SHA1_TREE: {
		/* Section 1.1: SHA-1 over a tag, C, L and the chunks' SHA-1s.
		 */
		static const char tag[] = "elf-buildid sha1-tree v1";
		const size_t chunk = 4u << 20;
		size_t k = (z.len + chunk - 1) / chunk, i;
		size_t tlen = sizeof(tag) + 16 + 20 * k;
		unsigned char *t = malloc(tlen);

		if (!t)
			abort();
		memcpy(t, tag, sizeof(tag)); /* with its NUL */
		put_n(t + sizeof(tag), 8, chunk, true);
		put_n(t + sizeof(tag) + 8, 8, z.len, true);
		for (i = 0; i < k; i++) {
			size_t clen = z.len - i * chunk < chunk
					  ? z.len - i * chunk
					  : chunk;

			digest(EVP_sha1(), z.p + i * chunk, clen,
			       t + sizeof(tag) + 16 + 20 * i);
		}
		digest(EVP_sha1(), t, tlen, md);
		free(t);
		break;
	}
	}
	memcpy(id, md, len < EBID_MAX_ID ? len : EBID_MAX_ID);
	buf_free(&z);
}

static const char *hexs(const unsigned char *p, size_t len)
{
	static char s[2][2 * EBID_MAX_ID + 1];
	static int k;

	k ^= 1;
	ebid_hex(s[k], p, len > EBID_MAX_ID ? EBID_MAX_ID : len);
	return s[k];
}

/*
 * ebid_note_view, the library's one statement of the placement rules,
 * against the readers written here: the same verdict by section and by
 * the kernel for the note the library found. why gets the difference.
 */
static bool view_agrees(const struct ebid_elf *elf, const struct buf *b,
			char *why, size_t len)
{
	struct ebid_note_view nv;
	struct view v;
	struct found fs, fk;
	bool sec, ker;

	ebid_note_view(elf, &nv);
	if (view_of(&v, b->p, b->len)) {
		snprintf(why, len, "headers this test cannot read");
		return false;
	}
	fs = by_section(&v);
	fk = by_kernel(&v);
	sec = fs.ok && elf->gnu.present && fs.desc_off == elf->gnu.desc_off;
	ker = fk.ok && elf->gnu.present && fk.desc_off == elf->gnu.desc_off;
	if (nv.present != elf->gnu.present || nv.by_section != sec ||
	    nv.by_kernel != ker) {
		snprintf(why, len,
			 "library: section %d (%s), kernel %d (%s); here: "
			 "section %d (%s), kernel %d (%s)",
			 nv.by_section, nv.by_section ? "" : nv.section_why,
			 nv.by_kernel, nv.by_kernel ? "" : nv.kernel_why, sec,
			 fs.ok ? "" : fs.why, ker, fk.ok ? "" : fk.why);
		return false;
	}
	return true;
}

/* ---- one planning case -------------------------------------------------- */

enum state { ST_NONE, ST_ZERO, ST_FILLED };

struct req {
	const char *label;
	enum ebid_mode mode;
	enum ebid_hash_alg alg;
	bool alg_given, force, no_move;
	const unsigned char *id;
	size_t id_len;
};

static const unsigned char ID20[20] = {
    0xfe, 0xed, 0xfa, 0xce, 0x01, 0x23, 0x45, 0x67, 0x89, 0xab,
    0xcd, 0xef, 0x10, 0x32, 0x54, 0x76, 0x98, 0xba, 0xdc, 0xfe,
};
static const unsigned char ID8[8] = {1, 2, 3, 4, 5, 6, 7, 8};

static struct ebid_opts opts_of(const struct req *r)
{
	struct ebid_opts o = {0};

	o.mode = r->mode;
	o.alg = r->alg;
	o.alg_given = r->alg_given;
	o.force = r->force;
	o.no_move = r->no_move;
	o.id = r->id;
	o.id_len = r->id_len;
	return o;
}

static bool same_plan(const struct ebid_plan *a, const struct ebid_plan *b)
{
	size_t i;

	if (a->actions != b->actions || a->npatches != b->npatches ||
	    a->append_len != b->append_len || a->in_size != b->in_size ||
	    a->out_size != b->out_size || a->fill != b->fill ||
	    a->hash != b->hash || a->id_off != b->id_off ||
	    a->id_len != b->id_len || memcmp(a->id, b->id, EBID_MAX_ID))
		return false;
	if (a->append_len && memcmp(a->append, b->append, a->append_len))
		return false;
	for (i = 0; i < a->npatches; i++)
		if (a->patches[i].off != b->patches[i].off ||
		    a->patches[i].len != b->patches[i].len ||
		    memcmp(a->patches[i].bytes, b->patches[i].bytes,
			   a->patches[i].len) ||
		    strcmp(a->patches[i].what, b->patches[i].what))
			return false;
	return true;
}

static bool in_id(const struct ebid_plan *p, uint64_t off)
{
	return p->fill && off >= p->id_off && off < p->id_off + p->id_len;
}

/* Patches sorted, disjoint, inside the input; sizes add up. */
static bool plan_sane(const struct ebid_plan *p, char *why, size_t len)
{
	size_t i;

	if (p->out_size != p->in_size + p->ins_len + p->append_len) {
		snprintf(why, len,
			 "out_size %llu != in_size %llu + gap %llu + append %zu",
			 (unsigned long long)p->out_size,
			 (unsigned long long)p->in_size,
			 (unsigned long long)p->ins_len, p->append_len);
		return false;
	}
	/* move-head's gap keeps the segments after it congruent (whole
	 * pages); new-load's lies behind every segment (16 bytes or more). */
	if (p->ins_len && (!(p->actions & EBID_ACT_INSERT) ||
			   p->ins_at > p->in_size ||
			   p->ins_len % ((p->actions & EBID_ACT_NEW_LOAD) ? 16 : 4096))) {
		snprintf(why, len, "gap of %llu bytes at 0x%llx",
			 (unsigned long long)p->ins_len,
			 (unsigned long long)p->ins_at);
		return false;
	}
	for (i = 0; i < p->npatches; i++) {
		const struct ebid_patch *pt = &p->patches[i];

		if (!pt->len || pt->off + pt->len > p->in_size + p->ins_len) {
			snprintf(
			    why, len,
			    "patch %zu (0x%llx %zu %s) empty or past the input",
			    i, (unsigned long long)pt->off, pt->len, pt->what);
			return false;
		}
		if (i &&
		    p->patches[i - 1].off + p->patches[i - 1].len > pt->off) {
			snprintf(why, len,
				 "patch %zu (0x%llx %s) overlaps or precedes "
				 "the one before",
				 i, (unsigned long long)pt->off, pt->what);
			return false;
		}
	}
	if (p->fill && (!p->id_len || p->id_len > EBID_MAX_ID ||
			p->id_off + p->id_len > p->out_size)) {
		snprintf(why, len, "id range 0x%llx %zu not inside the output",
			 (unsigned long long)p->id_off, p->id_len);
		return false;
	}
	return true;
}

/*
 * The input byte that output byte off holds where the plan writes nothing:
 * the input's, moved up behind an inserted gap; the gap is zeros (-1).
 */
static int in_byte(const struct buf *in, const struct ebid_plan *p,
		   uint64_t off)
{
	if (!p->ins_len || off < p->ins_at)
		return in->p[off];
	if (off < p->ins_at + p->ins_len)
		return 0;
	return in->p[off - p->ins_len];
}

/*
 * Output bytes outside the plan are the input's (behind a gap); bytes
 * inside it are the plan's. Returns the first offending offset, or -1.
 */
static int64_t first_unplanned(const struct buf *in, const struct buf *out,
			       const struct ebid_plan *p)
{
	size_t i = 0, k;
	uint64_t off, body = in->len + p->ins_len;

	for (k = 0; k <= p->npatches; k++) {
		uint64_t end = k < p->npatches ? p->patches[k].off : body;

		for (off = i; off < end; off++)
			if (!in_id(p, off) && out->p[off] != in_byte(in, p, off))
				return (int64_t)off;
		if (k == p->npatches)
			break;
		for (off = p->patches[k].off;
		     off < p->patches[k].off + p->patches[k].len; off++)
			if (!in_id(p, off) &&
			    out->p[off] !=
				p->patches[k].bytes[off - p->patches[k].off])
				return (int64_t)off;
		i = (size_t)(p->patches[k].off + p->patches[k].len);
	}
	for (off = body; off < out->len; off++)
		if (!in_id(p, off) && out->p[off] != p->append[off - body])
			return (int64_t)off;
	return -1;
}

/* A library error message: one line, no full stop, not empty. */
static bool one_line(const char *err)
{
	size_t len = strlen(err);

	return len && !strchr(err, '\n') && err[len - 1] != '.';
}

static const char *code_name(int code)
{
	switch (-code) {
	case 0:
		return "0";
	case EBID_ENOTELF:
		return "-EBID_ENOTELF";
	case EBID_EMALFORMED:
		return "-EBID_EMALFORMED";
	case EBID_ENOROOM:
		return "-EBID_ENOROOM";
	case EBID_ENOTE:
		return "-EBID_ENOTE";
	case EBID_EVERIFY:
		return "-EBID_EVERIFY";
	default:
		return "another code";
	}
}

/*
 * One planning case (run_case) as its phases see it: the input, the
 * request, the plan and the output. The phases fill it in order; out, v
 * and fs are set by the phase that names them and read by those after.
 * run_case owns every resource in it and releases them.
 */
struct pcase {
	const char *name;
	const struct buf *in;
	const struct req *r;
	struct ebid_opts o;
	struct ebid_src src;
	int fd, ofd;
	struct ebid_elf elf;
	struct ebid_plan plan;
	unsigned char id[EBID_MAX_ID];
	struct buf out;
	struct view v;
	struct found fs;
};

/*
 * Reads the input and plans it: a refusal (want) or a plan (described by
 * words when given). false when the case ends here, with what it holds
 * released.
 */
static bool case_planned(struct pcase *c, int want, const char *words)
{
	char err[EBID_ERRLEN] = "", desc[160];
	int ret;

	ret = ebid_elf_read(&c->elf, &c->src, err, sizeof(err));
	if (!ok(ret == 0, "%s %s: input read", c->name, c->r->label)) {
		diag("ebid_elf_read: %d %s", ret, err);
		source_close(&c->fd);
		return false;
	}
	ret = ebid_plan_make(&c->plan, &c->elf, &c->o, err, sizeof(err));
	if (ret == 0)
		ebid_plan_describe(&c->plan, desc, sizeof(desc));
	else
		snprintf(desc, sizeof(desc), "(refused)");
	if (want) {
		ok(ret == want && one_line(err),
		   "%s %s: refused with %s and a one-line message", c->name,
		   c->r->label, code_name(want));
	}
	if (want) {
		if (ret != want || !one_line(err))
			diag("got %s (%d) \"%s\", plan %s", code_name(ret), ret,
			     ret ? err : "", desc);
		ebid_plan_release(&c->plan);
		ebid_elf_release(&c->elf);
		source_close(&c->fd);
		return false;
	}
	if (!ok(ret == 0 && (!words || !strcmp(desc, words)),
		"%s %s: planned%s%s", c->name, c->r->label, words ? " " : "",
		words ? words : "")) {
		diag("got %s (%d) \"%s\", plan %s", code_name(ret), ret,
		     ret ? err : "", desc);
		if (ret) {
			ebid_elf_release(&c->elf);
			source_close(&c->fd);
			return false;
		}
	}
	return true;
}

/* The plan as data: sane, of the input's size and the id's length, and
 * the same when made twice. */
static void case_plan_data(struct pcase *c)
{
	const struct req *r = c->r;
	const struct ebid_plan *plan = &c->plan;
	char err[EBID_ERRLEN] = "", why[1200];
	struct ebid_plan again;
	size_t want_len;
	int ret;

	want_len = r->id ? r->id_len : ebid_hash_id_len(r->alg);
	why[0] = '\0';
	if (!plan_sane(plan, why, sizeof(why))) {
	} else if (plan->in_size != c->in->len) {
		snprintf(why, sizeof(why), "in_size %llu, file has %zu",
			 (unsigned long long)plan->in_size, c->in->len);
	} else if (plan->fill && plan->id_len != want_len &&
		   !(c->elf.gnu.present &&
		     plan->id_len == c->elf.gnu.desc_len)) {
		snprintf(why, sizeof(why), "id_len %zu, want %zu",
			 plan->id_len, want_len);
	} else if (plan->fill && plan->hash == (r->id != NULL)) {
		snprintf(why, sizeof(why), "hash %d with --id %s", plan->hash,
			 r->id ? "given" : "not given");
	} else if (!plan->actions && (plan->npatches || plan->append_len)) {
		snprintf(why, sizeof(why), "no actions, yet %zu patches",
			 plan->npatches);
	}
	ok(!why[0],
	   "%s %s: patches sorted, disjoint, inside the input; sizes add up",
	   c->name, r->label);
	if (why[0])
		diag("%s", why);
	ret = ebid_plan_make(&again, &c->elf, &c->o, err, sizeof(err));
	ok(ret == 0 && same_plan(plan, &again),
	   "%s %s: a second plan is the same plan", c->name, r->label);
	ebid_plan_release(&again);
}

/* Applied to memory: only the planned bytes differ. false: no output. */
static bool case_applied(struct pcase *c)
{
	char err[EBID_ERRLEN] = "";
	int64_t bad;
	int ret;

	ret = ebid_apply_mem(&c->src, &c->plan, &c->out.p, &c->out.len, c->id,
			     err, sizeof(err));
	if (!ok(ret == 0 && c->out.len == c->plan.out_size,
		"%s %s: applied to memory", c->name, c->r->label)) {
		diag("ebid_apply_mem: %d %s", ret, err);
		return false;
	}
	bad = first_unplanned(c->in, &c->out, &c->plan);
	ok(bad < 0,
	   "%s %s: the output differs from the input only where "
	   "planned",
	   c->name, c->r->label);
	if (bad >= 0)
		diag("byte 0x%llx: in %02x, out %02x", (unsigned long long)bad,
		     (size_t)bad < c->in->len ? c->in->p[bad] : 0,
		     c->out.p[bad]);
	return true;
}

/* Read back; the library's self-check. false: the output cannot be read. */
static bool case_read_back(struct pcase *c)
{
	struct ebid_src osrc = source(&c->out, &c->ofd);
	char err[EBID_ERRLEN] = "";
	struct ebid_elf oelf;
	int ret;

	ret = ebid_elf_read_output(&oelf, &osrc, &c->elf, &c->plan, err,
				   sizeof(err));
	if (!ok(ret == 0, "%s %s: output read back", c->name, c->r->label)) {
		diag("ebid_elf_read: %d %s", ret, err);
		return false;
	}
	ret = ebid_check_result(&c->elf, &oelf, &c->plan, c->id, err,
				sizeof(err));
	if (!ret)
		ret = ebid_check_moved_bytes(&c->elf, &c->plan, &c->src, &osrc,
					     c->id, err, sizeof(err));
	ok(ret == 0, "%s %s: ebid_check_result accepts the output", c->name,
	   c->r->label);
	if (ret)
		diag("%s", err);
	ebid_elf_release(&oelf);
	source_close(&c->ofd);
	return true;
}

/*
 * Our own reader over the output's headers (c->v): consistent when the
 * input's are, a planned PT_NOTE has p_align 4, no stale section header
 * table. false: the output has no headers this test can read.
 */
static bool case_headers(struct pcase *c)
{
	struct view *v = &c->v;
	struct view iv;
	char why[1200], iwhy[200] = "";

	if (view_of(v, c->out.p, c->out.len)) {
		ok(0, "%s %s: output has ELF headers this test can read",
		   c->name, c->r->label);
		return false;
	}
	why[0] = '\0';
	if (!view_of(&iv, c->in->p, c->in->len) &&
	    headers_consistent(&iv, iwhy, sizeof(iwhy))) {
		bool good = headers_consistent(v, why, sizeof(why));
		size_t i;

		/*
		 * A PT_NOTE the plan made or changed has p_align 4;
		 * move-head moves the input's as they are.
		 */
		for (i = 0; good && i < v->phnum; i++) {
			if (PH(v, i, p_type) != PT_NOTE ||
			    PH(v, i, p_align) == 4 ||
			    (i < iv.phnum &&
			     !memcmp(phdr_at(v, i), phdr_at(&iv, i),
				     v->phent)) ||
			    same_note_moved(&iv, v, i))
				continue;
			snprintf(why, sizeof(why),
				 "PT_NOTE [%zu] was planned with p_align "
				 "%llu, not 4",
				 i, (unsigned long long)PH(v, i, p_align));
			good = false;
		}
		if (good && stale_table_byte(&iv, v) >= 0) {
			snprintf(why, sizeof(why),
				 "byte 0x%llx of the moved section "
				 "header table left behind",
				 (unsigned long long)stale_table_byte(&iv, v));
			good = false;
		}
		ok(good,
		   "%s %s: headers are consistent (notes mapped, "
		   "p_align 4, PT_PHDR, sections, no stale table)",
		   c->name, c->r->label);
		if (why[0])
			diag("%s", why);
	}
	return true;
}

/* By section and by the kernel's rules (c->fs), the id is where planned. */
static void case_note_found(struct pcase *c)
{
	const struct ebid_plan *plan = &c->plan;
	const struct found *fs = &c->fs;
	struct found fk;

	c->fs = by_section(&c->v);
	fk = by_kernel(&c->v);
	ok(fs->ok && fk.ok && fs->desc_off == fk.desc_off &&
	       fs->desc_len == fk.desc_len && fs->desc_off == plan->id_off &&
	       fs->desc_len == plan->id_len,
	   "%s %s: by section and by the kernel's rules the id is at the "
	   "planned 0x%llx (%zu bytes)",
	   c->name, c->r->label, (unsigned long long)plan->id_off,
	   plan->id_len);
	if (!fs->ok)
		diag("by section: %s", fs->why);
	if (!fk.ok)
		diag("by kernel: %s", fk.why);
	if (fs->ok && fk.ok &&
	    (fs->desc_off != plan->id_off || fk.desc_off != plan->id_off ||
	     fs->desc_len != plan->id_len))
		diag("section 0x%llx/%zu, kernel 0x%llx/%zu",
		     (unsigned long long)fs->desc_off, fs->desc_len,
		     (unsigned long long)fk.desc_off, fk.desc_len);
}

/* ebid_note_view over the output agrees with the readers here. */
static void case_note_view(struct pcase *c)
{
	struct ebid_src osrc = source(&c->out, &c->ofd);
	struct ebid_note_view nv;
	struct ebid_elf oelf;
	char err[EBID_ERRLEN] = "", why[1200];
	int ret;

	why[0] = '\0';
	ret = ebid_elf_read(&oelf, &osrc, err, sizeof(err));
	if (!ret) {
		ebid_note_view(&oelf, &nv);
		if (!nv.by_section || !nv.by_kernel || !nv.size_ok)
			snprintf(why, sizeof(why),
				 "ebid_note_view: section %d %s, "
				 "kernel %d %s, size_ok %d",
				 nv.by_section, nv.section_why, nv.by_kernel,
				 nv.kernel_why, nv.size_ok);
		else
			view_agrees(&oelf, &c->out, why, sizeof(why));
		ebid_elf_release(&oelf);
	} else {
		snprintf(why, sizeof(why), "%s", err);
	}
	source_close(&c->ofd);
	ok(!why[0],
	   "%s %s: ebid_note_view sees the note by section and by the "
	   "kernel, as the readers here do",
	   c->name, c->r->label);
	if (why[0])
		diag("%s", why);
}

/* The id: the hash recomputed here, the one given, zeros or the input's. */
static void case_id(const struct pcase *c)
{
	const struct req *r = c->r;
	const struct buf *out = &c->out;
	const struct found *fs = &c->fs;
	const struct ebid_elf *elf = &c->elf;
	unsigned char want_id[EBID_MAX_ID];

	if (fs->ok && c->plan.fill && c->plan.hash) {
		expected_id(out, fs->desc_off, fs->desc_len, r->alg, want_id);
		ok(!memcmp(out->p + fs->desc_off, want_id, fs->desc_len) &&
		       !memcmp(c->id, want_id, fs->desc_len),
		   "%s %s: the id is the %s of the output recomputed here",
		   c->name, r->label, ebid_hash_name(r->alg));
		if (memcmp(out->p + fs->desc_off, want_id, fs->desc_len))
			diag("stored %s, recomputed %s",
			     hexs(out->p + fs->desc_off, fs->desc_len),
			     hexs(want_id, fs->desc_len));
	} else if (fs->ok && c->plan.fill) {
		ok(fs->desc_len == r->id_len &&
		       !memcmp(out->p + fs->desc_off, r->id, r->id_len),
		   "%s %s: the id is the one given", c->name, r->label);
	} else if (fs->ok) {
		bool zero = r->mode == EBID_MODE_RESERVE &&
			    (!elf->gnu.present || r->force ||
			     ebid_all_zero(elf->gnu.desc, elf->gnu.desc_len));
		unsigned char zeros[EBID_MAX_ID] = {0};
		const unsigned char *w = zero ? zeros : elf->gnu.desc;

		ok(fs->desc_len <= EBID_MAX_ID &&
		       !memcmp(out->p + fs->desc_off, w, fs->desc_len) &&
		       !memcmp(c->id, w, fs->desc_len),
		   "%s %s: the id is %s", c->name, r->label,
		   zero ? "all zeros (reserved)" : "the input's, kept");
	}
}

/* Planned again over the output: nothing left to do. */
static void case_planned_again(struct pcase *c)
{
	const struct req *r = c->r;
	const struct buf *out = &c->out;
	struct ebid_src osrc = source(out, &c->ofd);
	struct req r2 = *r;
	struct ebid_opts o2;
	struct ebid_elf oelf;
	struct ebid_plan again;
	struct buf out2 = {0};
	unsigned char id2[EBID_MAX_ID];
	char err[EBID_ERRLEN] = "", desc[160];
	int ret;

	r2.mode = r->mode == EBID_MODE_RESERVE ? EBID_MODE_RESERVE
					       : EBID_MODE_INJECT;
	r2.force = false;
	r2.id = NULL;
	r2.id_len = 0;
	o2 = opts_of(&r2);
	ret = ebid_elf_read(&oelf, &osrc, err, sizeof(err));
	if (!ret)
		ret = ebid_plan_make(&again, &oelf, &o2, err, sizeof(err));
	if (!ret) {
		ebid_plan_describe(&again, desc, sizeof(desc));
		ret = ebid_apply_mem(&osrc, &again, &out2.p, &out2.len, id2,
				     err, sizeof(err));
		ok(ret == 0 && !again.actions && out2.len == out->len &&
		       !memcmp(out2.p, out->p, out->len) &&
		       again.id_len == c->plan.id_len &&
		       !memcmp(id2, c->id, c->plan.id_len),
		   "%s %s: planned again (%s), the output is unchanged",
		   c->name, r->label,
		   r2.mode == EBID_MODE_RESERVE ? "reserve" : "inject");
		if (again.actions)
			diag("second plan: %s", desc);
		buf_free(&out2);
		ebid_plan_release(&again);
	} else {
		ok(0, "%s %s: planned again, the output is unchanged", c->name,
		   r->label);
		diag("%d %s", ret, err);
	}
	ebid_elf_release(&oelf);
	source_close(&c->ofd);
}

/*
 * Plans r over in and checks everything about the result. want is 0 or
 * the negative code expected; words, when given, the plan's description.
 * The output is left in *keep when keep is given (and the plan worked).
 * The phases run in order; one that leaves nothing to check ends it.
 */
static void run_case(const char *name, const struct buf *in,
		     const struct req *r, int want, const char *words,
		     struct buf *keep)
{
	struct pcase c = {.name = name, .in = in, .r = r, .ofd = -1};

	c.src = source(in, &c.fd);
	c.o = opts_of(r);
	if (keep)
		memset(keep, 0, sizeof(*keep));
	if (!case_planned(&c, want, words))
		return;
	case_plan_data(&c);
	if (!case_applied(&c) || !case_read_back(&c) || !case_headers(&c))
		goto out;
	case_note_found(&c);
	case_note_view(&c);
	case_id(&c);
	case_planned_again(&c);
	if (keep) {
		*keep = c.out;
		c.out.p = NULL;
	}
out:
	source_close(&c.ofd);
	source_close(&c.fd);
	buf_free(&c.out);
	ebid_plan_release(&c.plan);
	ebid_elf_release(&c.elf);
}

/* ---- requests ----------------------------------------------------------- */

#define REQ(l, m, ...) ((struct req){.label = (l), .mode = (m), __VA_ARGS__})

static const char *state_name(enum state s)
{
	return s == ST_NONE   ? "no note"
	       : s == ST_ZERO ? "reserved note"
			      : "filled note";
}

static enum state state_of(const struct buf *b)
{
	int fd;
	struct ebid_src src = source(b, &fd);
	struct ebid_elf elf;
	char err[EBID_ERRLEN];
	enum state s;
	int ret = ebid_elf_read(&elf, &src, err, sizeof(err));

	source_close(&fd);
	if (ret)
		return ST_NONE;
	s = !elf.gnu.present				    ? ST_NONE
	    : ebid_all_zero(elf.gnu.desc, elf.gnu.desc_len) ? ST_ZERO
							    : ST_FILLED;
	ebid_elf_release(&elf);
	return s;
}

/*
 * Every request over one input, with the outcome docs/build-id.md gives
 * for the state of its GNU note ("Notes that already exist"). The input's
 * note, if any, has 20 bytes.
 */
static void all_requests(const char *name, const struct buf *in,
			 const char *words)
{
	enum state s = state_of(in);
	const int NOTE = -EBID_ENOTE;
	struct {
		struct req r;
		int want[3]; /* by state: none, zero, filled */
	} t[] = {
	    {REQ("inject", EBID_MODE_INJECT), {0, 0, 0}},
	    {REQ("inject --hash=sha256", EBID_MODE_INJECT,
		 .alg = EBID_HASH_SHA256, .alg_given = true),
	     {0, 0, 0}},
	    {REQ("inject --hash=md5", EBID_MODE_INJECT, .alg = EBID_HASH_MD5,
		 .alg_given = true),
	     {0, NOTE, 0}},
	    {REQ("inject --hash=sha1-tree", EBID_MODE_INJECT,
		 .alg = EBID_HASH_SHA1_TREE, .alg_given = true),
	     {0, 0, 0}},
	    {REQ("inject --id=<20 bytes>", EBID_MODE_INJECT, .id = ID20,
		 .id_len = sizeof(ID20)),
	     {0, 0, 0}},
	    {REQ("inject --id=<8 bytes>", EBID_MODE_INJECT, .id = ID8,
		 .id_len = sizeof(ID8)),
	     {0, NOTE, 0}},
	    {REQ("inject --force", EBID_MODE_INJECT, .force = true), {0, 0, 0}},
	    {REQ("inject --force --hash=md5", EBID_MODE_INJECT,
		 .alg = EBID_HASH_MD5, .alg_given = true, .force = true),
	     {0, NOTE, NOTE}},
	    {REQ("inject --force --id=<20 bytes>", EBID_MODE_INJECT,
		 .force = true, .id = ID20, .id_len = sizeof(ID20)),
	     {0, 0, 0}},
	    {REQ("reserve", EBID_MODE_RESERVE), {0, 0, 0}},
	    {REQ("reserve --hash=md5", EBID_MODE_RESERVE, .alg = EBID_HASH_MD5,
		 .alg_given = true),
	     {0, NOTE, NOTE}},
	    {REQ("reserve --force", EBID_MODE_RESERVE, .force = true),
	     {0, 0, 0}},
	    {REQ("backfill", EBID_MODE_BACKFILL), {NOTE, 0, NOTE}},
	    {REQ("backfill --force", EBID_MODE_BACKFILL, .force = true),
	     {NOTE, 0, 0}},
	    {REQ("backfill --hash=sha256", EBID_MODE_BACKFILL,
		 .alg = EBID_HASH_SHA256, .alg_given = true),
	     {NOTE, 0, NOTE}},
	};
	size_t i;

	printf("# %s (%s)\n", name, state_name(s));
	for (i = 0; i < sizeof(t) / sizeof(t[0]); i++)
		run_case(name, in, &t[i].r, t[i].want[s], i ? NULL : words,
			 NULL);
}

/*
 * The library reads a memory source as it reads a file descriptor over
 * the same bytes. Known exception: libelf (elfutils 0.188) reads section 0
 * of a foreign-byte-order image with e_shstrndx SHN_XINDEX through the
 * file descriptor, which a memory image does not have (EBADF). Such an
 * input is then read through a memfd for the rest of its checks.
 */
static void same_reads(const char *name, const struct buf *b)
{
	struct ebid_src msrc = {.fd = -1, .mem = b->p, .size = b->len};
	struct ebid_src fsrc;
	struct ebid_elf me, fe;
	char merr[EBID_ERRLEN] = "", ferr[EBID_ERRLEN] = "";
	int mret, fret, fd;
	bool same;

	g_via_fd = true;
	fsrc = source(b, &fd);
	g_via_fd = false;
	mret = ebid_elf_read(&me, &msrc, merr, sizeof(merr));
	fret = ebid_elf_read(&fe, &fsrc, ferr, sizeof(ferr));
	source_close(&fd);
	same = mret == fret &&
	       (mret || (me.shnum == fe.shnum && me.phnum == fe.phnum &&
			 me.gnu.present == fe.gnu.present &&
			 me.gnu.desc_off == fe.gnu.desc_off &&
			 me.gnu_kernel_visible == fe.gnu_kernel_visible));
	/*
	 * Foreign-endian images with e_shstrndx SHN_XINDEX once failed from
	 * memory (-EBADF: libelf read section 0 through fd -1).
	 */
	if (!ok(same, "%s: read from memory as from a file descriptor",
		name)) {
		diag("memory: %d %s; fd: %d %s", mret, merr, fret, ferr);
	}
	if (!fret) {
		char why[2400] = "";

		if (!ok(view_agrees(&fe, b, why, sizeof(why)),
			"%s: ebid_note_view judges the input's note as the "
			"readers here do",
			name))
			diag("%s", why);
	}
	if (!mret)
		ebid_elf_release(&me);
	if (!fret)
		ebid_elf_release(&fe);
}

static void input_cases(const char *name, const struct buf *b, int want,
			const char *words, bool all)
{
	struct req inj = REQ("inject", EBID_MODE_INJECT);

	same_reads(name, b);
	if (all)
		all_requests(name, b, words);
	else
		run_case(name, b, &inj, want, words, NULL);
}

/* run_case, keeping the output; false (and nothing kept) on failure. */
static bool step(const char *name, const struct buf *in, const struct req *r,
		 const char *words, struct buf *out)
{
	int f0 = tap_failed;

	run_case(name, in, r, 0, words, out);
	if (tap_failed != f0)
		buf_free(out);
	return out->p != NULL;
}

/*
 * docs/build-id.md: "reserve followed directly by backfill gives the same
 * bytes and id as inject", and reserve -f, backfill is inject -f.
 */
static void chains(const char *name, const struct buf *in)
{
	enum state s = state_of(in);
	struct req res = REQ("reserve", EBID_MODE_RESERVE);
	struct req bf = REQ("backfill", EBID_MODE_BACKFILL);
	struct req inj = REQ("inject", EBID_MODE_INJECT);
	char label[64];
	struct buf r = {0}, b = {0}, i = {0};
	int k;

	for (k = 0; k < 2; k++) {
		enum ebid_hash_alg alg = k ? EBID_HASH_MD5 : EBID_HASH_SHA1;

		if (alg == EBID_HASH_MD5 && s != ST_NONE)
			break;
		res.alg = bf.alg = inj.alg = alg;
		res.alg_given = bf.alg_given = inj.alg_given = k;
		res.force = inj.force = s == ST_FILLED;
		bf.force = false;
		snprintf(label, sizeof(label), "%s%s then backfill", name,
			 s == ST_FILLED ? " reserve --force" : " reserve");
		if (step(name, in, &res, NULL, &r) &&
		    step(label, &r, &bf, "fill", &b) &&
		    step(name, in, &inj, NULL, &i))
			ok(b.len == i.len && !memcmp(b.p, i.p, b.len),
			   "%s: reserve%s then backfill (%s) gives inject%s's "
			   "bytes",
			   name, res.force ? " --force" : "",
			   ebid_hash_name(alg), inj.force ? " --force" : "");
		else
			ok(0,
			   "%s: reserve then backfill (%s) gives inject's "
			   "bytes",
			   name, ebid_hash_name(alg));
		buf_free(&r);
		buf_free(&b);
		buf_free(&i);
	}
}

/* ---- inputs crafted in memory from a real file (scripts/matrix-craft.py) - */

static bool craft_noshdr(struct buf *b)
{
	struct view v;

	if (view_of(&v, b->p, b->len))
		return false;
	PUTF(v.is64, v.msb, b->p, Ehdr, e_shoff, 0);
	PUTF(v.is64, v.msb, b->p, Ehdr, e_shnum, 0);
	PUTF(v.is64, v.msb, b->p, Ehdr, e_shstrndx, 0);
	return true;
}

static bool craft_xnum(struct buf *b)
{
	struct view v;
	unsigned char *s0;

	if (view_of(&v, b->p, b->len) || !v.shnum)
		return false;
	s0 = b->p + v.shoff;
	PUTF(v.is64, v.msb, s0, Shdr, sh_size, v.shnum);
	PUTF(v.is64, v.msb, s0, Shdr, sh_link, v.shstrndx);
	PUTF(v.is64, v.msb, b->p, Ehdr, e_shnum, 0);
	PUTF(v.is64, v.msb, b->p, Ehdr, e_shstrndx, SHN_XINDEX);
	return true;
}

static bool craft_pnxnum(struct buf *b)
{
	struct view v;

	if (view_of(&v, b->p, b->len) || !v.shnum)
		return false;
	PUTF(v.is64, v.msb, b->p + v.shoff, Shdr, sh_info, v.phnum);
	PUTF(v.is64, v.msb, b->p, Ehdr, e_phnum, PN_XNUM);
	return true;
}

/* .shstrtab copied to the (8-aligned) end, its header pointed there. */
static bool craft_shstrtab_end(struct buf *b)
{
	struct view v;
	uint64_t off, size, at;
	size_t i;

	if (view_of(&v, b->p, b->len) || v.shstrndx >= v.shnum)
		return false;
	i = v.shstrndx;
	off = SH(&v, i, sh_offset);
	size = SH(&v, i, sh_size);
	at = (b->len + 7) / 8 * 8;
	buf_grow(b, (size_t)(at + size));
	memcpy(b->p + at, b->p + off, size);
	PUTF(v.is64, v.msb, b->p + v.shoff + i * v.shent, Shdr, sh_offset, at);
	return true;
}

static void craft_trail(struct buf *b, size_t len)
{
	size_t old = b->len, i;

	buf_grow(b, old + len);
	for (i = 0; i < len; i++)
		b->p[old + i] = (unsigned char)(i * 131 + 7);
}

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

/* ---- real files --------------------------------------------------------- */

static const char *dir_of(int argc, char **argv, int i, const char *env,
			  const char *def)
{
	const char *e = getenv(env);

	if (argc > i)
		return argv[i];
	return e && *e ? e : def;
}

/*
 * path's bytes into *b, or a failed test naming what is missing and what
 * builds it (the tiers run each input's builder first: a missing input is
 * a broken build, not something to skip).
 */
static bool input(const char *path, const char *what, struct buf *b)
{
	const char *why;

	*b = load(path, &why);
	if (b->p)
		return true;
	ok(0, "%s: %s (%s)", path, why, what);
	return false;
}

/* A real file crafted in memory as scripts/matrix-craft.py does. */
static void crafted(const char *base, const struct buf *b, const char *how,
		    bool (*craft)(struct buf *), size_t trail, int want,
		    const char *words, bool all)
{
	struct buf c = buf_dup(b);
	char name[96];

	snprintf(name, sizeof(name), "%s+%s", base, how);
	if (craft ? !craft(&c) : (craft_trail(&c, trail), false)) {
		ok(0, "%s: crafted", name);
	} else {
		input_cases(name, &c, want, words, all);
		g_via_fd = false;
	}
	buf_free(&c);
}

static void fixtures(const char *dir)
{
	static const struct {
		const char *name, *words; /* words: docs/build-id.md */
	} v[] = {
	    {"plain", "add-note,fill,extend-pt-note,add-section-name"},
	    {"sw", "add-note,fill,extend-pt-note,add-section-name"},
	    {"pie", "add-note,fill,extend-pt-note,add-section-name"},
	    {"nobuildid",
	     "add-note,fill,add-pt-note,move-section-headers,add-section-name"},
	    {"reserved", "fill,extend-pt-note"},
	    {"existing", "extend-pt-note"},
	    {"existing-386", "extend-pt-note"},
	    {"existing-s390x", "extend-pt-note"},
	};
	const int ROOM = -EBID_ENOROOM;
	char path[4096];
	size_t i;

	for (i = 0; i < sizeof(v) / sizeof(v[0]); i++) {
		const char *nm = v[i].name;
		struct buf b;

		snprintf(path, sizeof(path), "%s/%s", dir, nm);
		if (!input(path, "scripts/build-fixtures.sh builds it", &b))
			continue;
		printf("# %s: %zu bytes\n", path, b.len);
		input_cases(nm, &b, 0, v[i].words, true);
		chains(nm, &b);
		g_via_fd = false;

		if (!strcmp(nm, "plain") || !strncmp(nm, "existing", 8)) {
			crafted(nm, &b, "trail", NULL, 4099, 0, v[i].words,
				true);
			crafted(nm, &b, "shstrtab-end", craft_shstrtab_end, 0,
				0, NULL, true);
			crafted(nm, &b, "xnum", craft_xnum, 0, 0, v[i].words,
				true);
			crafted(nm, &b, "pnxnum", craft_pnxnum, 0, ROOM, NULL,
				false);
			crafted(nm, &b, "noshdr", craft_noshdr, 0, ROOM, NULL,
				false);
		}
		/* sha1-tree over three chunks, the last one short. */
		if (!strcmp(nm, "plain")) {
			struct req tree =
			    REQ("inject --hash=sha1-tree", EBID_MODE_INJECT,
				.alg = EBID_HASH_SHA1_TREE, .alg_given = true);
			struct buf c = buf_dup(&b);

			craft_trail(&c, (9u << 20) - c.len % 4096 + 123);
			run_case("plain+9MiB", &c, &tree, 0, NULL, NULL);
			buf_free(&c);
		}
		buf_free(&b);
	}
}

/* Puts a little-endian value (the move-note shapes are x86-64). */
static void put_le(unsigned char *p, size_t w, uint64_t v)
{
	size_t i;

	for (i = 0; i < w; i++)
		p[i] = (unsigned char)(v >> (8 * i));
}

static uint64_t get_le(const unsigned char *p, size_t w)
{
	uint64_t v = 0;
	size_t i;

	for (i = w; i--;)
		v = v << 8 | p[i];
	return v;
}

/*
 * Gives the first R_X86_64_RELATIVE of the first SHT_RELA section of t the
 * result addr (its addend): a pointer a move would leave at an old place.
 * false when t has none.
 */
static bool point_relative_at(struct buf *t, uint64_t addr)
{
	struct view v;
	uint64_t off, size, k;
	size_t i;

	if (view_of(&v, t->p, t->len) || !v.is64 ||
	    GETF(v.is64, v.msb, t->p, Ehdr, e_machine) != EM_X86_64)
		return false;
	for (i = 1; i < v.shnum; i++) {
		if (SH(&v, i, sh_type) != SHT_RELA)
			continue;
		off = SH(&v, i, sh_offset);
		size = SH(&v, i, sh_size);
		if (off > t->len || size > t->len - off)
			return false;
		for (k = 0; k + 24 <= size; k += 24)
			if (get_n(t->p + off + k + 8, 8, v.msb) ==
			    R_X86_64_RELATIVE) {
				put_n(t->p + off + k + 16, 8, addr, v.msb);
				return true;
			}
	}
	return false;
}

/*
 * The output to tamper with: in read, planned with the action wanted
 * (word names it), applied. false (and a failed check) when it cannot be
 * had; else *elf, *plan and *out are the caller's to release.
 */
static bool tamper_base(const char *name, const struct buf *in,
			unsigned action, const char *word,
			struct ebid_elf *elf, struct ebid_plan *plan,
			struct buf *out, unsigned char id[EBID_MAX_ID])
{
	struct req inj = REQ("inject", EBID_MODE_INJECT);
	struct ebid_opts o = opts_of(&inj);
	struct ebid_src src = {.fd = -1, .mem = in->p, .size = in->len};
	char err[EBID_ERRLEN] = "";

	if (ebid_elf_read(elf, &src, err, sizeof(err))) {
		ok(0, "%s: tampered outputs: input read", name);
		return false;
	}
	if (!ok(ebid_plan_make(plan, elf, &o, err, sizeof(err)) == 0 &&
		    (plan->actions & action) &&
		    ebid_apply_mem(&src, plan, &out->p, &out->len, id, err,
				   sizeof(err)) == 0,
		"%s: a %s output to tamper with", name, word)) {
		diag("%s", err);
		ebid_elf_release(elf);
		return false;
	}
	return true;
}

/*
 * ebid_check_result refuses a move-note output that breaks one of its
 * rules (docs/build-id.md): each tampered copy of a good output.
 */
/*
 * Set for one_file(): a rewriter's output may hold no symbol of the note
 * it moves (patchelf leaves __abi_tag at the old address it moved the
 * note from), so no symbol moves either.
 */
static bool g_one_file;

static void move_note_tampered(const char *name, const struct buf *in)
{
	static const char *const how[] = {
	    "a symbol left at the old address",
	    "the old place not cleared",
	    "the first PT_LOAD's p_memsz beyond p_filesz",
	    "PT_GNU_PROPERTY changed",
	    "a byte of the moved note changed",
	    "the PT_NOTE covering 4 bytes more",
	    "the first PT_LOAD's p_vaddr changed",
	    "a relocation pointing at the note's old place",
	};
	struct ebid_elf elf;
	struct ebid_plan plan;
	struct buf out = {0};
	unsigned char id[EBID_MAX_ID];
	char err[EBID_ERRLEN];
	size_t k, i;

	if (!tamper_base(name, in, EBID_ACT_MOVE_NOTE, "move-note", &elf, &plan, &out, id))
		return;
	for (k = 0; k < sizeof(how) / sizeof(how[0]); k++) {
		struct buf t = buf_dup(&out);
		struct ebid_src ts = {.fd = -1, .mem = t.p, .size = t.len};
		struct ebid_elf te;
		unsigned char *ph;
		bool done = false;
		int ret;

		switch (k) {
		case 0:
			for (i = 0; i < plan.npatches; i++)
				if (strstr(plan.patches[i].what, "symbol value")) {
					memcpy(t.p + plan.patches[i].off,
					       in->p + plan.patches[i].off,
					       plan.patches[i].len);
					done = true;
				}
			break;
		case 1:
			memcpy(t.p + plan.moved_from, in->p + plan.moved_from,
			       (size_t)plan.moved_size);
			done = true;
			break;
		case 2:
			ph = t.p + elf.phoff + plan.grown_load * 56;
			put_le(ph + 40, 8, get_le(ph + 40, 8) + 4);
			done = true;
			break;
		case 3:
			for (i = 0; i < elf.phnum; i++) {
				ph = t.p + elf.phoff + i * 56;
				if (get_le(ph, 4) == 0x6474e553) {
					put_le(ph + 32, 8, get_le(ph + 32, 8) + 8);
					done = true;
				}
			}
			break;
		case 4:
			t.p[plan.moved_to + plan.moved_size - 1] ^= 1;
			done = true;
			break;
		case 5:
			ph = t.p + elf.phoff + plan.moved_pt * 56;
			put_le(ph + 32, 8, get_le(ph + 32, 8) + 4);
			put_le(ph + 40, 8, get_le(ph + 40, 8) + 4);
			done = true;
			break;
		case 6:
			ph = t.p + elf.phoff + plan.grown_load * 56;
			put_le(ph + 16, 8, get_le(ph + 16, 8) + 0x1000);
			done = true;
			break;
		case 7:
			done = point_relative_at(
			    &t, elf.shdrs[plan.moved_shndx].addr);
			break;
		}
		if (!done && (k == 3 || k == 7 || (k == 0 && g_one_file))) {
			printf("# %s: nothing to tamper with for %s\n", name,
			       how[k]);
			buf_free(&t);
			continue;
		}
		if (!done) {
			ok(0, "%s: tampered (%s): nothing to tamper with", name,
			   how[k]);
			buf_free(&t);
			continue;
		}
		ret = ebid_elf_read(&te, &ts, err, sizeof(err));
		if (ret == 0 &&
		    ebid_elf_read_note_syms(&te, &ts, err, sizeof(err)))
			ret = -1;
		if (ret == 0) {
			ret = ebid_check_result(&elf, &te, &plan, id, err,
						sizeof(err));
			ebid_elf_release(&te);
		}
		ok(ret != 0 && (k != 7 || strstr(err, "a relocation points")),
		   "%s: the self-check refuses an output with %s", name,
		   how[k]);
		if (ret)
			printf("# %s\n", err);
		buf_free(&t);
	}
	buf_free(&out);
	ebid_plan_release(&plan);
	ebid_elf_release(&elf);
}

/* The input offset of output offset off (behind a gap: moved down). */
static uint64_t in_off(const struct ebid_plan *p, uint64_t off)
{
	return p->ins_len && off >= p->ins_at + p->ins_len ? off - p->ins_len
							   : off;
}

/*
 * A good move-head output and what its tampers need to know of it: the
 * note's patch, .interp's index, how far the run moved. move_head_tampered
 * owns elf, plan and out.
 */
struct head_case {
	const char *name;
	const struct buf *in;
	struct ebid_src src;
	struct ebid_elf elf;
	struct ebid_plan plan;
	struct buf out;
	unsigned char id[EBID_MAX_ID];
	size_t interp;
	uint64_t note_at, note_len, delta;
};

/* The note's patch, .interp and the distance the run moved. */
static void head_case_find(struct head_case *c)
{
	size_t i;

	c->delta = c->plan.head_to - c->plan.head_from;
	for (i = 0; i < c->plan.npatches; i++)
		if (strstr(c->plan.patches[i].what, ".note.gnu.build-id")) {
			c->note_at = c->plan.patches[i].off;
			c->note_len = c->plan.patches[i].len;
		}
	for (i = 1; i < c->elf.shnum; i++)
		if (!strcmp(c->elf.shdrs[i].name_str, ".interp"))
			c->interp = i;
}

/*
 * Tampers 1 to 3: the run and the PT_LOAD that holds it. Every move-head
 * output has them to tamper with.
 */
static bool head_tamper_run(const struct head_case *c, size_t k,
			    struct buf *t)
{
	const struct ebid_plan *plan = &c->plan;
	unsigned char *ph;
	bool done = false;
	uint64_t j;

	switch (k) {
	case 1:
		for (j = plan->head_from + 56;
		     !done && j < plan->head_from + plan->head_size; j++)
			if (j < c->note_at || j >= c->note_at + c->note_len) {
				t->p[j] = 0x5a;
				done = true;
			}
		break;
	case 2:
		ph = t->p + c->elf.phoff +
		     (plan->grown_load >= plan->new_pt ? plan->grown_load + 1
						       : plan->grown_load) *
			 56;
		put_le(ph + 32, 8, get_le(ph + 32, 8) + 4);
		put_le(ph + 40, 8, get_le(ph + 40, 8) + 4);
		done = true;
		break;
	case 3:
		t->p[plan->head_to + plan->head_size - 1] ^= 1;
		done = true;
		break;
	}
	return done;
}

/* Tampers 6 and 7: the bytes behind an inserted gap, and their PT_LOAD. */
static bool head_tamper_gap(const struct head_case *c, size_t k,
			    struct buf *t)
{
	const struct ebid_plan *plan = &c->plan;
	unsigned char *ph;
	bool done = false;
	size_t i;

	switch (k) {
	case 6:
		if (plan->ins_len) {
			t->p[plan->ins_at + plan->ins_len + 16] ^= 0x40;
			done = true;
		}
		break;
	case 7:
		for (i = 0; plan->ins_len && i < c->elf.phnum + 1; i++) {
			ph = t->p + c->elf.phoff + i * 56;
			if (get_le(ph, 4) == 1 /* PT_LOAD */ &&
			    get_le(ph + 8, 8) >= plan->ins_at + plan->ins_len) {
				put_le(ph + 8, 8,
				       get_le(ph + 8, 8) - plan->ins_len);
				done = true;
				break;
			}
		}
		break;
	}
	return done;
}

/*
 * Tampers 0, 4, 5, 8 and 9: something left pointing at the run's old
 * place (a symbol, PT_INTERP, .interp's sh_addr, a dynamic entry, a
 * relocation). A file may have none of one kind.
 */
static bool head_tamper_pointer(const struct head_case *c, size_t k,
				struct buf *t)
{
	const struct ebid_plan *plan = &c->plan;
	const struct ebid_elf *elf = &c->elf;
	uint64_t shoff = get_le(t->p + 0x28, 8);
	unsigned char *ph;
	bool done = false;
	size_t i;

	switch (k) {
	case 0:
		for (i = 0; i < plan->npatches; i++)
			if (strstr(plan->patches[i].what, "symbol value")) {
				memcpy(t->p + plan->patches[i].off,
				       c->in->p + in_off(plan,
							 plan->patches[i].off),
				       plan->patches[i].len);
				done = true;
			}
		break;
	case 4:
		for (i = 0; i < elf->phnum + 1; i++) {
			ph = t->p + elf->phoff + i * 56;
			if (get_le(ph, 4) == 3 /* PT_INTERP */) {
				put_le(ph + 8, 8, get_le(ph + 8, 8) - c->delta);
				done = true;
			}
		}
		break;
	case 5:
		/* Its number in the output: the table may be renumbered. */
		if (c->interp) {
			unsigned char *sh = t->p + shoff +
					    ebid_plan_shndx(plan, c->interp) * 64;

			put_le(sh + 16, 8, get_le(sh + 16, 8) - c->delta);
			done = true;
		}
		break;
	case 10: {
		unsigned char *sh = t->p + shoff +
				    ebid_plan_shndx(plan, c->elf.shnum) * 64;

		put_le(sh + 16, 8, get_le(sh + 16, 8) + 4096);
		done = true;
		break;
	}
	case 8:
		for (i = 0; i < plan->npatches; i++)
			if (strstr(plan->patches[i].what, "dynamic entry")) {
				memcpy(t->p + plan->patches[i].off,
				       c->in->p + in_off(plan,
							 plan->patches[i].off),
				       plan->patches[i].len);
				done = true;
			}
		break;
	case 9:
		done = point_relative_at(
		    t, elf->phdrs[plan->grown_load].vaddr + plan->head_from +
			   plan->head_size - 1);
		break;
	}
	return done;
}

/* Tamper k (move_head_tampered's how[k]) applied to t: false if none. */
static bool head_tamper(const struct head_case *c, size_t k, struct buf *t)
{
	switch (k) {
	case 1:
	case 2:
	case 3:
		return head_tamper_run(c, k, t);
	case 6:
	case 7:
		return head_tamper_gap(c, k, t);
	default:
		return head_tamper_pointer(c, k, t);
	}
}

/* The self-check refuses t, the output with tamper k (how). */
static void head_refused(const struct head_case *c, size_t k,
			 const struct buf *t, const char *how)
{
	struct ebid_src ts = {.fd = -1, .mem = t->p, .size = t->len};
	struct ebid_elf te;
	char err[EBID_ERRLEN];
	int ret;

	ret = ebid_elf_read(&te, &ts, err, sizeof(err));
	if (ret == 0 && ebid_elf_read_note_syms(&te, &ts, err, sizeof(err)))
		ret = -1;
	if (ret == 0) {
		ret = ebid_check_result(&c->elf, &te, &c->plan, c->id, err,
					sizeof(err));
		if (!ret)
			ret = ebid_check_moved_bytes(&c->elf, &c->plan, &c->src,
						     &ts, c->id, err,
						     sizeof(err));
		ebid_elf_release(&te);
	}
	ok(ret != 0 && (k != 9 || strstr(err, "a relocation points")),
	   "%s: the self-check refuses an output with %s", c->name, how);
	if (ret)
		printf("# %s\n", err);
}

/*
 * The self-check (ebid_check_result, then ebid_check_moved_bytes) refuses
 * a move-head output that breaks one of its rules: each tampered copy of
 * a good output.
 */
static void move_head_tampered(const char *name, const struct buf *in)
{
	static const char *const how[] = {
	    "a symbol left at the old address",
	    "the old place not cleared",
	    "the first PT_LOAD grown by 4 bytes more",
	    "a byte of the moved run changed",
	    "PT_INTERP left at the old place",
	    ".interp's sh_addr left at the old address",
	    "a byte behind the gap changed",
	    "the next PT_LOAD's p_offset not moved by the gap",
	    "a moved table's dynamic entry left at the old address",
	    "a relocation pointing at the run's old place",
	    "the new note's sh_addr a page off its PT_LOAD's",
	};
	struct head_case c = {
	    .name = name,
	    .in = in,
	    .src = {.fd = -1, .mem = in->p, .size = in->len},
	};
	size_t k;

	if (!tamper_base(name, in, EBID_ACT_MOVE_HEAD, "move-head", &c.elf,
			 &c.plan, &c.out, c.id))
		return;
	head_case_find(&c);
	for (k = 0; k < sizeof(how) / sizeof(how[0]); k++) {
		struct buf t = buf_dup(&c.out);
		bool done = head_tamper(&c, k, &t);

		if (!done && k != 1 && k != 2 && k != 3) {
			printf("# %s: nothing to tamper with for %s\n", name,
			       how[k]);
			buf_free(&t);
			continue;
		}
		if (!done) {
			ok(0, "%s: tampered (%s): nothing to tamper with", name,
			   how[k]);
			buf_free(&t);
			continue;
		}
		head_refused(&c, k, &t, how[k]);
		buf_free(&t);
	}
	buf_free(&c.out);
	ebid_plan_release(&c.plan);
	ebid_elf_release(&c.elf);
}

/* The self-check of out (a new-load output of in): 0, or why not in err. */
static int new_load_check(const struct ebid_elf *elf,
			  const struct ebid_plan *plan, const struct buf *in,
			  const struct buf *t, const unsigned char *id,
			  char *err, size_t errlen)
{
	struct ebid_src src = {.fd = -1, .mem = in->p, .size = in->len};
	struct ebid_src ts = {.fd = -1, .mem = t->p, .size = t->len};
	struct ebid_elf te;
	int ret = ebid_elf_read_output(&te, &ts, elf, plan, err, errlen);

	if (ret)
		return ret;
	ret = ebid_check_result(elf, &te, plan, id, err, errlen);
	if (!ret)
		ret = ebid_check_moved_bytes(elf, plan, &src, &ts, id, err,
					     errlen);
	ebid_elf_release(&te);
	return ret;
}

/* Tampers with t, a new-load output of in, in way k: false if nothing to. */
static bool new_load_tamper(size_t k, struct buf *t,
			    const struct ebid_plan *plan,
			    const struct ebid_elf *elf, const struct buf *in)
{
	unsigned char *ph = t->p + elf->phoff + plan->new_load * 56;
	bool done = true;
	size_t i;

	switch (k) {
	case 1:
	case 2:
		done = false;
		for (i = 0; i < plan->npatches; i++)
			if (strstr(plan->patches[i].what,
				   k == 1 ? "symbol value" : "dynamic entry")) {
				memcpy(t->p + plan->patches[i].off,
				       in->p + plan->patches[i].off,
				       plan->patches[i].len);
				done = true;
			}
		break;
	case 3:
		t->p[plan->head_to + plan->head_size - 1] ^= 1;
		break;
	case 4:
		t->p[plan->head_from + plan->head_size - 1] = 0x5a;
		break;
	case 5:
		put_le(ph + 16, 8, get_le(ph + 16, 8) + 4096);
		put_le(ph + 24, 8, get_le(ph + 24, 8) + 4096);
		break;
	case 6:
		put_le(ph + 32, 8, get_le(ph + 32, 8) + 8);
		put_le(ph + 40, 8, get_le(ph + 40, 8) + 8);
		break;
	case 7:
		put_le(ph + 4, 4, 5 /* PF_R | PF_X */);
		break;
	case 8:
		done = false;
		for (i = 0; i < elf->phnum + 2; i++) {
			unsigned char *p = t->p + elf->phoff + i * 56;

			if (get_le(p, 4) == 3 /* PT_INTERP */) {
				put_le(p + 8, 8, plan->head_from);
				done = true;
			}
		}
		break;
	}
	return done;
}

/*
 * new-load's own rules refuse, each with its sentence: bytes behind
 * everything the headers describe (an appended payload), and --no-move.
 * Where new-load takes a run in the first page only because the loaders'
 * page rule refused move-head (in_page), the payload stops move-head's
 * gap first, and new-load leaves the run to it: the sentence comes under
 * move-head's lead.
 */
static void new_load_refused(const char *name, const struct buf *in,
			     bool in_page)
{
	const char *want = in_page
		? "the sections after the program headers cannot move: data follows everything the headers describe"
		: "nor go to a new PT_LOAD: data follows everything the headers describe";
	struct req inj = REQ("inject", EBID_MODE_INJECT);
	struct ebid_opts o = opts_of(&inj);
	struct buf t = buf_dup(in);
	struct ebid_src ts;
	struct ebid_elf elf;
	struct ebid_plan plan;
	char err[EBID_ERRLEN] = "";
	int ret;

	buf_grow(&t, in->len + 16);
	memcpy(t.p + in->len, "appended payload", 16);
	ts = (struct ebid_src){.fd = -1, .mem = t.p, .size = t.len};
	ret = ebid_elf_read(&elf, &ts, err, sizeof(err));
	if (!ret) {
		ret = ebid_plan_make(&plan, &elf, &o, err, sizeof(err));
		if (!ret)
			ebid_plan_release(&plan);
		ebid_elf_release(&elf);
	}
	ok(ret == -EBID_ENOROOM && strstr(err, want),
	   "%s: with 16 bytes appended, new-load refuses naming the payload", name);
	printf("# %s\n", err);
	buf_free(&t);
}

/*
 * A table whose last two PT_LOADs are swapped (the fuzzer's find): new-load
 * would put its PT_LOAD after the last one, which the self-check refuses
 * as out of address order. The planner refuses every move on it first
 * (they reason on "the next segment"), and says why.
 */
static void new_load_unordered(const char *name, const struct buf *in)
{
	struct req inj = REQ("inject", EBID_MODE_INJECT);
	struct ebid_opts o = opts_of(&inj);
	struct buf t = buf_dup(in);
	uint64_t phoff = get_le(t.p + 32, 8), phnum = get_le(t.p + 56, 2);
	unsigned char *a = NULL, *b = NULL, tmp[56];
	struct ebid_src ts = {.fd = -1, .mem = t.p, .size = t.len};
	struct ebid_elf elf;
	struct ebid_plan plan;
	char err[EBID_ERRLEN] = "";
	uint64_t i;
	int ret;

	for (i = 0; i < phnum; i++)
		if (get_le(t.p + phoff + i * 56, 4) == 1 /* PT_LOAD */) {
			a = b;
			b = t.p + phoff + i * 56;
		}
	if (!ok(a != NULL, "%s: two PT_LOADs to swap", name)) {
		buf_free(&t);
		return;
	}
	memcpy(tmp, a, 56);
	memcpy(a, b, 56);
	memcpy(b, tmp, 56);
	ret = ebid_elf_read(&elf, &ts, err, sizeof(err));
	if (!ret) {
		ret = ebid_plan_make(&plan, &elf, &o, err, sizeof(err));
		if (!ret) {
			snprintf(err, sizeof(err), "planned: %s",
				 plan.actions & EBID_ACT_NEW_LOAD ? "new-load" : "another strategy");
			ebid_plan_release(&plan);
		}
		ebid_elf_release(&elf);
	}
	ok(ret == -EBID_ENOROOM &&
	   strstr(err, "the PT_LOADs are not in ascending address order"),
	   "%s: the last two PT_LOADs swapped, the moves refuse naming the order", name);
	printf("# %s\n", err);
	buf_free(&t);
}

/*
 * The self-check refuses a new-load output that breaks one of its rules:
 * each tampered copy of a good output (which itself passes).
 */
static void new_load_tampered(const char *name, const struct buf *in)
{
	static const char *const how[] = {
	    "nothing changed",
	    "a symbol left at the old address",
	    "a moved table's dynamic entry left at the old address",
	    "a byte of the moved run changed",
	    "the run's old place past the first page not cleared",
	    "the new PT_LOAD's p_vaddr a page higher",
	    "the new PT_LOAD's p_filesz 8 bytes more",
	    "the new PT_LOAD executable",
	    "PT_INTERP left at the old place",
	};
	struct ebid_elf elf;
	struct ebid_plan plan;
	struct buf out = {0};
	unsigned char id[EBID_MAX_ID];
	char err[EBID_ERRLEN];
	size_t k, i;

	if (!tamper_base(name, in, EBID_ACT_NEW_LOAD, "new-load", &elf, &plan, &out, id))
		return;
	for (k = 0; k < sizeof(how) / sizeof(how[0]); k++) {
		struct buf t = buf_dup(&out);
		bool done;
		int ret;

		done = new_load_tamper(k, &t, &plan, &elf, in);
		/* A library has no PT_INTERP, nor .interp's symbol. */
		if (!done && (k == 1 || k == 8)) {
			bool interp = false;

			for (i = 0; i < elf.phnum; i++)
				interp |= elf.phdrs[i].type == 3;
			if (!interp) {
				printf("# %s: no PT_INTERP: nothing to tamper with for %s\n",
				       name, how[k]);
				buf_free(&t);
				continue;
			}
		}
		if (!ok(done, "%s: tampered (%s): there is something to tamper with",
			name, how[k])) {
			buf_free(&t);
			continue;
		}
		ret = new_load_check(&elf, &plan, in, &t, id, err, sizeof(err));
		if (k == 0)
			ok(ret == 0, "%s: the self-check passes the new-load output",
			   name);
		else
			ok(ret != 0, "%s: the self-check refuses an output with %s",
			   name, how[k]);
		printf("# %s\n", ret ? err : "passed");
		buf_free(&t);
	}
	buf_free(&out);
	ebid_plan_release(&plan);
	ebid_elf_release(&elf);
}

/*
 * move-note moves only a lone GNU ABI tag with local symbols: a global
 * __abi_tag, another name or another note type makes the file a refusal.
 */
static void move_note_refused(const char *name, const struct buf *in)
{
	static const char *const how[] = {
	    "__abi_tag made global",
	    ".note.ABI-tag renamed",
	    "the ABI tag's n_type changed",
	};
	struct req inj = REQ("inject", EBID_MODE_INJECT);
	struct ebid_opts o = opts_of(&inj);
	struct ebid_src src = {.fd = -1, .mem = in->p, .size = in->len};
	struct ebid_elf elf;
	char err[EBID_ERRLEN];
	size_t k, i, m = 0;

	if (ebid_elf_read(&elf, &src, err, sizeof(err))) {
		ok(0, "%s: crafted refusals: input read", name);
		return;
	}
	for (i = 1; i < elf.shnum; i++)
		if (!strcmp(elf.shdrs[i].name_str, ".note.ABI-tag"))
			m = i;
	for (k = 0; k < sizeof(how) / sizeof(how[0]); k++) {
		struct buf t = buf_dup(in);
		struct ebid_src ts = {.fd = -1, .mem = t.p, .size = t.len};
		struct ebid_elf te;
		struct ebid_plan plan;
		bool done = false, moved_head = false;
		int ret;

		if (k == 0) {
			for (i = 0; i < elf.n_note_syms; i++)
				if (elf.note_syms[i].shndx == m &&
				    !elf.note_syms[i].dynamic &&
				    (elf.note_syms[i].info & 0xf) == 1) {
					t.p[elf.note_syms[i].value_off - 4] |=
					    0x10;
					done = true;
				}
		} else if (k == 1 && m) {
			char *nm = (char *)memmem(
			    t.p + elf.shdrs[elf.shstrndx].offset,
			    elf.shdrs[elf.shstrndx].size, ".note.ABI-tag", 14);

			if (nm) {
				nm[6] = 'X';
				done = true;
			}
		} else if (k == 2 && m) {
			t.p[elf.shdrs[m].offset + 8] = 5;
			done = true;
		}
		if (!ok(done, "%s: crafted (%s)", name, how[k])) {
			buf_free(&t);
			continue;
		}
		ret = ebid_elf_read(&te, &ts, err, sizeof(err));
		if (ret == 0) {
			ret = ebid_plan_make(&plan, &te, &o, err, sizeof(err));
			if (ret == 0) {
				ebid_plan_describe(&plan, err, sizeof(err));
				moved_head = (plan.actions & EBID_ACT_MOVE_HEAD) &&
					     !(plan.actions & EBID_ACT_MOVE_NOTE);
				ebid_plan_release(&plan);
			}
			ebid_elf_release(&te);
		}
		/*
		 * Not move-note's note: move-head moves it with .interp and
		 * the other notes, unless a global symbol names it.
		 */
		if (k == 0)
			ok(ret == -EBID_ENOROOM &&
				   strstr(err, "no note can move: ") &&
				   strstr(err, "a global or dynamic symbol names one of them"),
			   "%s: %s: refused, naming why no note can move, nor "
			   ".interp and the notes",
			   name, how[k]);
		else
			ok(ret == 0 && moved_head,
			   "%s: %s: not move-note's, moved by move-head", name,
			   how[k]);
		printf("# %s\n", err);
		buf_free(&t);
	}
	ebid_elf_release(&elf);
}

/*
 * mold's PT_GNU_RELRO and PT_TLS have p_offset 0: move-head judges them by
 * the addresses the loader applies them to. Over the run's addresses,
 * they are a refusal; their p_offset alone (here moved into the run's
 * bytes) is no reason, and the plan leaves it as it was.
 */
static void by_address(const char *name, const struct buf *in)
{
	struct req inj = REQ("inject", EBID_MODE_INJECT);
	struct ebid_opts o = opts_of(&inj);
	uint64_t phoff = get_le(in->p + 0x20, 8), k;
	size_t phnum = get_le(in->p + 0x38, 2), i, relro = 0;
	char label[160];

	for (i = 0; i < phnum; i++)
		if (get_le(in->p + phoff + i * 56, 4) == 0x6474e552 /* PT_GNU_RELRO */)
			relro = i;
	if (!ok(relro != 0, "%s: has a PT_GNU_RELRO", name))
		return;
	for (k = 0; k < 2; k++) {
		struct buf t = buf_dup(in);
		unsigned char *ph = t.p + phoff + relro * 56;
		struct ebid_src src = {.fd = -1, .mem = t.p, .size = t.len};
		struct ebid_elf elf;
		struct ebid_plan plan;
		char err[EBID_ERRLEN] = "";
		int ret;

		/* The first byte after the program headers, by address or offset. */
		put_le(ph + (k == 0 ? 16 : 8), 8, phoff + (phnum + 1) * 56);
		if (k == 0)
			put_le(ph + 24, 8, phoff + (phnum + 1) * 56);
		snprintf(label, sizeof(label), "%s with PT_GNU_RELRO's %s in the run",
			 name, k == 0 ? "address" : "p_offset");
		if (ebid_elf_read(&elf, &src, err, sizeof(err))) {
			ok(0, "%s: read", label);
			buf_free(&t);
			continue;
		}
		ret = ebid_plan_make(&plan, &elf, &o, err, sizeof(err));
		if (k == 0)
			ok(ret == -EBID_ENOROOM &&
				   strstr(err, "a PT_GNU_RELRO or PT_TLS covers their addresses"),
			   "%s: refused, naming PT_GNU_RELRO", label);
		else
			ok(ret == 0 && (plan.actions & EBID_ACT_MOVE_HEAD),
			   "%s: moved all the same", label);
		printf("# %s\n", ret ? err : "planned");
		if (k == 1 && ret == 0) {
			struct buf out;
			size_t same = 0;

			run_case(label, &t, &inj, 0, NULL, &out);
			for (i = 0; out.p && i < phnum + 1; i++) {
				const unsigned char *q = out.p + phoff + i * 56;

				same += get_le(q, 4) == 0x6474e552 &&
				     !memcmp(q, ph, 56);
			}
			ok(same == 1, "%s: PT_GNU_RELRO is the input's, byte for byte",
			   label);
			buf_free(&out);
		}
		ebid_plan_release(&plan);
		ebid_elf_release(&elf);
		buf_free(&t);
	}
}

/*
 * The matrix shapes planned here (make matrix builds them): the refusal
 * expected or 0, the plan's words when pinned, and whether every request
 * and the chains run over it (all).
 */
struct matrix_shape {
	const char *name;
	int want;
	const char *words;
	bool all;
};

static const struct matrix_shape MATRIX_SHAPES[] = {
    {"c-gcc-bfd-pie-nobuildid", 0,
     "add-note,fill,add-section-name,move-note", true},
    {"c-gcc-bfd-static-nobuildid", 0,
     "add-note,fill,add-section-name,move-note", true},
    /* Non-PIE with a .dynstr: move-head, which patchelf carries. */
    {"c-clang-gold-nopie-nobuildid", 0,
     "add-note,fill,add-pt-note,add-section-name,move-head", false},
    {"trail-c-gcc-bfd-pie-nobuildid", 0,
     "add-note,fill,move-section-headers,add-section-name,move-note",
     false},
    {"c-gcc-lld-pie-nobuildid", 0,
     "add-note,fill,add-pt-note,add-section-name,insert-gap,move-head",
     true},
    {"c-clang-mold-nopie-nobuildid", 0,
     "add-note,fill,add-pt-note,add-section-name,insert-gap,move-head",
     false},
    {"c-gcc-mold-shlib-nobuildid", 0,
     "add-note,fill,add-pt-note,add-section-name,insert-gap,move-head",
     false},
    {"go-amd64-cgo-external-nobuildid", 0,
     "add-note,fill,add-pt-note,add-section-name,move-head", false},
    {"go-amd64-linkext-nobuildid", 0,
     "add-note,fill,add-pt-note,add-section-name,move-head", false},
    {"c-gcc-lld-static-nobuildid", -EBID_ENOROOM, NULL, false},
    {"c-gcc-bfd-shlib-nobuildid", 0,
     "add-note,fill,add-pt-note,add-section-name,move-head", true},
    {"c-gcc-lld-shlib-nobuildid", 0,
     "add-note,fill,add-pt-note,add-section-name,insert-gap,move-head",
     false},
    {"go-amd64-cshared-nobuildid", 0,
     "add-note,fill,add-pt-note,add-section-name,move-head", false},
    {"c-gcc-bfd-pie-bzero", 0, "fill", true},
    {"c-clang-lld-pie-bzero", 0, "fill", false},
    {"c-gcc-lld-shlib-buildid", 0, "unchanged", false},
    {"go-mips", 0,
     "add-note,fill,add-pt-note,move-section-headers,add-section-name",
     true},
    {"go-s390x-bzero", 0, "fill,extend-pt-note", true},
    {"go-arm64-pie", 0, NULL, false},
    {"go-ppc64-bid", 0, "extend-pt-note", false},
    {"go-amd64-cgo-internal", 0, NULL, false},
    {"go-amd64-cshared-bzero", 0, "fill", false},
    {"shstrend-go-mipsle", 0, NULL, true},
    {"xnum-go-ppc64", 0, NULL, false},
    {"many-gcc-lld-pie-buildid", 0, "unchanged", false},
    {"many-gcc-gold-shlib-nobuildid", -EBID_ENOROOM, NULL, false},
    /*
     * Real-size: the first PT_LOAD runs past the first page, so the
     * freed bytes take the program header and the note (.dynsym
     * moves); a .dynsym of 400 symbols does not fit in the page: it
     * goes to a new PT_LOAD in a gap before the non-allocated sections
     * (new-load).
     */
    {"real-gcc-lld-pielibc-nobuildid", 0,
     "add-note,fill,add-pt-note,add-section-name,insert-gap,move-head",
     true},
    {"real-clang-lld-pielibc-nobuildid", 0,
     "add-note,fill,add-pt-note,add-section-name,insert-gap,move-head",
     false},
    /*
     * move-head would grow the first PT_LOAD (0xdcf8 bytes) to
     * 0xe820, into the page 0xe000 where the next PT_LOAD starts
     * (0xed00): the loaders' page rule (issue 28) refuses that, and
     * new-load takes the run.
     */
    {"real-gcc-mold-shlib-nobuildid", 0,
     "add-note,fill,add-pt-note,add-section-name,insert-gap,new-load",
     false},
    {"real-gcc-lld-pie-nobuildid", 0, "add-note,fill,add-pt-note,add-section-name,insert-gap,new-load", true},
    {"real-gcc-lld-nopie-nobuildid", 0, "add-note,fill,add-pt-note,add-section-name,insert-gap,new-load", false},
    {"real-clang-lld-pie-nobuildid", 0, "add-note,fill,add-pt-note,add-section-name,insert-gap,new-load", false},
    {"real-gcc-lld-shlib-nobuildid", 0, "add-note,fill,add-pt-note,add-section-name,insert-gap,new-load", false},
    {"real-clang-lld-shlib-nobuildid", 0, "add-note,fill,add-pt-note,add-section-name,insert-gap,new-load", false},
    {"real-gcc-gold-shlib-nobuildid", 0, "add-note,fill,add-pt-note,add-section-name,insert-gap,new-load", false},
};

/*
 * A shape a move places the note in: --no-move is refused, as before
 * move-note, and the move's own tampered and refused outputs.
 */
static void matrix_moves(const struct matrix_shape *sh, const struct buf *b)
{
	if (sh->words && strstr(sh->words, "move-note")) {
		struct req nm = REQ("inject --no-move", EBID_MODE_INJECT,
				    .no_move = true);

		run_case(sh->name, b, &nm, -EBID_ENOROOM, NULL, NULL);
		move_note_tampered(sh->name, b);
		move_note_refused(sh->name, b);
	}
	if (sh->words && strstr(sh->words, "move-head")) {
		struct req nm = REQ("inject --no-move", EBID_MODE_INJECT,
				    .no_move = true);

		run_case(sh->name, b, &nm, -EBID_ENOROOM, NULL, NULL);
		move_head_tampered(sh->name, b);
	}
	if (sh->words && strstr(sh->words, "new-load")) {
		struct req nm = REQ("inject --no-move", EBID_MODE_INJECT,
				    .no_move = true);

		run_case(sh->name, b, &nm, -EBID_ENOROOM, NULL, NULL);
		new_load_tampered(sh->name, b);
		new_load_unordered(sh->name, b);
		new_load_refused(
		    sh->name, b,
		    !strcmp(sh->name, "real-gcc-mold-shlib-nobuildid"));
	}
}

/* A few matrix shapes, when make matrix has built them. */
static void matrix(const char *dir)
{
	char path[4096];
	size_t i;

	for (i = 0; i < sizeof(MATRIX_SHAPES) / sizeof(MATRIX_SHAPES[0]); i++) {
		const struct matrix_shape *sh = &MATRIX_SHAPES[i];
		struct buf b;

		snprintf(path, sizeof(path), "%s/%s", dir, sh->name);
		if (!input(path, "make matrix builds it", &b))
			continue;
		printf("# %s: %zu bytes\n", path, b.len);
		input_cases(sh->name, &b, sh->want, sh->words, sh->all);
		g_via_fd = false;
		matrix_moves(sh, &b);
		/* A mold file move-head takes: its PT_GNU_RELRO is tampered. */
		if (!strcmp(sh->name, "c-gcc-mold-shlib-nobuildid"))
			by_address(sh->name, &b);
		buf_free(&b);
	}
}

/* This very program: a C executable from the host's linker. */
static void self(void)
{
	struct buf b;

	if (!input("/proc/self/exe", "the test's own binary", &b))
		return;
	printf("# /proc/self/exe: %zu bytes\n", b.len);
	input_cases("self", &b, 0, NULL, true);
	chains("self", &b);
	g_via_fd = false;
	buf_free(&b);
}

/*
 * One file a shell test made (patchelf's output, say), planned with the
 * words given: every request over it, and the move's tampered outputs.
 */
static void one_file(const char *path, const char *words)
{
	struct req nm = REQ("inject --no-move", EBID_MODE_INJECT,
			    .no_move = true);
	struct buf b;

	if (!input(path, "the caller makes it", &b)) {
		ok(0, "%s: readable", path);
		return;
	}
	input_cases(path, &b, 0, words, false);
	g_via_fd = false;
	g_one_file = true;
	if (strstr(words, "move-note") || strstr(words, "move-head") ||
	    strstr(words, "new-load"))
		run_case(path, &b, &nm, -EBID_ENOROOM, NULL, NULL);
	if (strstr(words, "move-note"))
		move_note_tampered(path, &b);
	if (strstr(words, "move-head"))
		move_head_tampered(path, &b);
	if (strstr(words, "new-load"))
		new_load_tampered(path, &b);
	buf_free(&b);
}

int main(int argc, char **argv)
{
	setvbuf(stdout, NULL, _IOLBF, 0);
	if (argc == 4 && !strcmp(argv[1], "--file")) {
		one_file(argv[2], argv[3]);
	} else if (argc > 1 && !strcmp(argv[1], "--matrix")) {
		matrix(dir_of(argc, argv, 2, "EBID_MATRIX", "build/matrix"));
	} else {
		synthetic();
		self();
		fixtures(dir_of(argc, argv, 1, "EBID_FIXTURES",
				"build/fixtures"));
	}
	return tap_done();
}
