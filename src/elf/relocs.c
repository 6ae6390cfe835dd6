/* SPDX-License-Identifier: MIT */
/* Relocations that apply in, or point into, the first page: the part of the moving rule that symbols cannot see. */
#include <elf.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "elf/elf.h"
#include "elf/layout.h"
#include "elf/relocs.h"

/*
 * Everything here reads untrusted bytes through struct ebid_src, never
 * libelf: section headers and the dynamic table come parsed from the
 * reader (elfread.c), the tables themselves are read in windows of
 * WIN_CAP bytes (a Go PIE has tens of thousands of entries).
 * OUTSIDE: a helper's answer for bytes that are not in the file (or no
 * segment maps an address): the relocations are then not all known.
 */
#define WIN_CAP (64u << 10)
#define OUTSIDE 1

enum { FMT_RELA, FMT_REL, FMT_RELR };

/*
 * How a relocation type's result is an address of this file: K_NONE not
 * (TLS offsets, COPY, NONE), K_A its addend (RELATIVE, IRELATIVE), K_S the
 * symbol's value (GLOB_DAT, JUMP_SLOT where the addend is not used), K_SA
 * the symbol's value plus the addend (absolute words). Any type not listed
 * is K_UNKNOWN: the addend, and the symbol's value with and without it,
 * are all taken for addresses (the safe side).
 */
enum { K_UNKNOWN = 0, K_NONE, K_A, K_S, K_SA };

/* Relocation types Debian 12's <elf.h> does not name yet. */
#ifndef R_RISCV_TLSDESC
#define R_RISCV_TLSDESC 12
#endif
#ifndef R_LARCH_TLS_DESC32
#define R_LARCH_TLS_DESC32 13
#endif
#ifndef R_LARCH_TLS_DESC64
#define R_LARCH_TLS_DESC64 14
#endif
#ifndef R_MIPS_IRELATIVE
#define R_MIPS_IRELATIVE 128
#endif
#define EM_X86_64 62
#define EM_AARCH64 183
#define EM_RISCV 243
#define EM_LOONGARCH 258

static const struct kind_row {
	uint16_t machine;
	uint32_t type;
	unsigned char kind;
} kinds[] = {
	/* x86_64: 64, 32, 32S; GLOB_DAT, JUMP_SLOT; RELATIVE, IRELATIVE,
	 * RELATIVE64; COPY, DTPMOD64, DTPOFF64, TPOFF64, TLSDESC, SIZE. */
	{EM_X86_64, 1, K_SA}, {EM_X86_64, 10, K_SA}, {EM_X86_64, 11, K_SA},
	{EM_X86_64, 6, K_S}, {EM_X86_64, 7, K_S}, {EM_X86_64, 8, K_A},
	{EM_X86_64, 37, K_A}, {EM_X86_64, 38, K_A}, {EM_X86_64, 5, K_NONE},
	{EM_X86_64, 16, K_NONE}, {EM_X86_64, 17, K_NONE},
	{EM_X86_64, 18, K_NONE}, {EM_X86_64, 36, K_NONE},
	{EM_X86_64, 32, K_NONE}, {EM_X86_64, 33, K_NONE},
	/* i386: 32; GLOB_DAT, JMP_SLOT; RELATIVE, IRELATIVE; COPY, TLS. */
	{EM_386, R_386_32, K_SA},
	{EM_386, R_386_GLOB_DAT, K_S},
	{EM_386, R_386_JMP_SLOT, K_S},
	{EM_386, R_386_RELATIVE, K_A},
	{EM_386, R_386_IRELATIVE, K_A},
	{EM_386, R_386_COPY, K_NONE},
	{EM_386, R_386_TLS_TPOFF, K_NONE},
	{EM_386, R_386_TLS_DTPMOD32, K_NONE},
	{EM_386, R_386_TLS_DTPOFF32, K_NONE},
	{EM_386, R_386_TLS_TPOFF32, K_NONE},
	{EM_386, R_386_TLS_DESC, K_NONE},
	/* aarch64: ABS64, ABS32, GLOB_DAT, JUMP_SLOT (S + A); RELATIVE,
	 * IRELATIVE; COPY, TLS. */
	{EM_AARCH64, R_AARCH64_ABS64, K_SA},
	{EM_AARCH64, R_AARCH64_ABS32, K_SA},
	{EM_AARCH64, R_AARCH64_GLOB_DAT, K_SA},
	{EM_AARCH64, R_AARCH64_JUMP_SLOT, K_SA},
	{EM_AARCH64, R_AARCH64_RELATIVE, K_A},
	{EM_AARCH64, R_AARCH64_IRELATIVE, K_A},
	{EM_AARCH64, R_AARCH64_COPY, K_NONE},
	{EM_AARCH64, R_AARCH64_TLS_DTPMOD, K_NONE},
	{EM_AARCH64, R_AARCH64_TLS_DTPREL, K_NONE},
	{EM_AARCH64, R_AARCH64_TLS_TPREL, K_NONE},
	{EM_AARCH64, R_AARCH64_TLSDESC, K_NONE},
	/* arm: ABS32; GLOB_DAT, JUMP_SLOT; RELATIVE, IRELATIVE; COPY, TLS. */
	{EM_ARM, R_ARM_ABS32, K_SA},
	{EM_ARM, R_ARM_GLOB_DAT, K_S},
	{EM_ARM, R_ARM_JUMP_SLOT, K_S},
	{EM_ARM, R_ARM_RELATIVE, K_A},
	{EM_ARM, R_ARM_IRELATIVE, K_A},
	{EM_ARM, R_ARM_COPY, K_NONE},
	{EM_ARM, R_ARM_SWI24, K_NONE},
	{EM_ARM, R_ARM_TLS_DTPMOD32, K_NONE},
	{EM_ARM, R_ARM_TLS_DTPOFF32, K_NONE},
	{EM_ARM, R_ARM_TLS_TPOFF32, K_NONE},
	/* ppc64: ADDR32, ADDR64, UADDR32, UADDR64, GLOB_DAT, JMP_SLOT;
	 * RELATIVE, JMP_IREL, IRELATIVE; COPY, TLS. */
	{EM_PPC64, R_PPC_ADDR32, K_SA},
	{EM_PPC64, R_PPC64_ADDR64, K_SA},
	{EM_PPC64, R_PPC_UADDR32, K_SA},
	{EM_PPC64, R_PPC64_UADDR64, K_SA},
	{EM_PPC64, R_PPC_GLOB_DAT, K_SA},
	{EM_PPC64, R_PPC_JMP_SLOT, K_SA},
	{EM_PPC64, R_PPC_RELATIVE, K_A},
	{EM_PPC64, R_PPC64_JMP_IREL, K_A},
	{EM_PPC64, R_PPC64_IRELATIVE, K_A},
	{EM_PPC64, R_PPC_COPY, K_NONE},
	{EM_PPC64, R_PPC64_DTPMOD64, K_NONE},
	{EM_PPC64, R_PPC64_TPREL64, K_NONE},
	{EM_PPC64, R_PPC64_DTPREL64, K_NONE},
	/* s390x: 32, 64, GLOB_DAT, JMP_SLOT; RELATIVE, IRELATIVE; COPY, TLS. */
	{EM_S390, R_390_32, K_SA},
	{EM_S390, R_390_64, K_SA},
	{EM_S390, R_390_GLOB_DAT, K_SA},
	{EM_S390, R_390_JMP_SLOT, K_SA},
	{EM_S390, R_390_RELATIVE, K_A},
	{EM_S390, R_390_IRELATIVE, K_A},
	{EM_S390, R_390_COPY, K_NONE},
	{EM_S390, R_390_TLS_DTPMOD, K_NONE},
	{EM_S390, R_390_TLS_DTPOFF, K_NONE},
	{EM_S390, R_390_TLS_TPOFF, K_NONE},
	/* riscv: 32, 64; JUMP_SLOT; RELATIVE, IRELATIVE; COPY, TLS. */
	{EM_RISCV, R_RISCV_32, K_SA},
	{EM_RISCV, R_RISCV_64, K_SA},
	{EM_RISCV, R_RISCV_JUMP_SLOT, K_S},
	{EM_RISCV, R_RISCV_RELATIVE, K_A},
	{EM_RISCV, R_RISCV_IRELATIVE, K_A},
	{EM_RISCV, R_RISCV_COPY, K_NONE},
	{EM_RISCV, R_RISCV_TLS_DTPMOD32, K_NONE},
	{EM_RISCV, R_RISCV_TLS_DTPMOD64, K_NONE},
	{EM_RISCV, R_RISCV_TLS_DTPREL32, K_NONE},
	{EM_RISCV, R_RISCV_TLS_DTPREL64, K_NONE},
	{EM_RISCV, R_RISCV_TLS_TPREL32, K_NONE},
	{EM_RISCV, R_RISCV_TLS_TPREL64, K_NONE},
	{EM_RISCV, R_RISCV_TLSDESC, K_NONE},
	/* loongarch64: 32, 64; JUMP_SLOT; RELATIVE, IRELATIVE; COPY, TLS. */
	{EM_LOONGARCH, R_LARCH_32, K_SA},
	{EM_LOONGARCH, R_LARCH_64, K_SA},
	{EM_LOONGARCH, R_LARCH_JUMP_SLOT, K_S},
	{EM_LOONGARCH, R_LARCH_RELATIVE, K_A},
	{EM_LOONGARCH, R_LARCH_IRELATIVE, K_A},
	{EM_LOONGARCH, R_LARCH_COPY, K_NONE},
	{EM_LOONGARCH, R_LARCH_TLS_DTPMOD32, K_NONE},
	{EM_LOONGARCH, R_LARCH_TLS_DTPMOD64, K_NONE},
	{EM_LOONGARCH, R_LARCH_TLS_DTPREL32, K_NONE},
	{EM_LOONGARCH, R_LARCH_TLS_DTPREL64, K_NONE},
	{EM_LOONGARCH, R_LARCH_TLS_TPREL32, K_NONE},
	{EM_LOONGARCH, R_LARCH_TLS_TPREL64, K_NONE},
	{EM_LOONGARCH, R_LARCH_TLS_DESC32, K_NONE},
	{EM_LOONGARCH, R_LARCH_TLS_DESC64, K_NONE},
	/* mips, mips64 (primary type): 32, REL32 (A with no symbol), 64;
	 * JUMP_SLOT; IRELATIVE; COPY, TLS. */
	{EM_MIPS, R_MIPS_32, K_SA},
	{EM_MIPS, R_MIPS_REL32, K_SA},
	{EM_MIPS, R_MIPS_64, K_SA},
	{EM_MIPS, R_MIPS_JUMP_SLOT, K_S},
	{EM_MIPS, R_MIPS_IRELATIVE, K_A},
	{EM_MIPS, R_MIPS_COPY, K_NONE},
	{EM_MIPS, R_MIPS_TLS_DTPMOD32, K_NONE},
	{EM_MIPS, R_MIPS_TLS_DTPREL32, K_NONE},
	{EM_MIPS, R_MIPS_TLS_DTPMOD64, K_NONE},
	{EM_MIPS, R_MIPS_TLS_DTPREL64, K_NONE},
	{EM_MIPS, R_MIPS_TLS_TPREL32, K_NONE},
	{EM_MIPS, R_MIPS_TLS_TPREL64, K_NONE},
};

/*
 * A word of width w (2, 4 or 8) in byte order d: ebid_get() without its
 * byte loop, for the tens of thousands of entries of a large file.
 */
static inline uint64_t rd(const unsigned char *p, size_t w, unsigned char d)
{
	const bool swap = d != (__BYTE_ORDER__ == __ORDER_LITTLE_ENDIAN__ ? 1 : 2);
	uint64_t v8;
	uint32_t v4;
	uint16_t v2;

	if (w == 8) {
		memcpy(&v8, p, 8);
		return swap ? __builtin_bswap64(v8) : v8;
	}
	if (w == 4) {
		memcpy(&v4, p, 4);
		return swap ? __builtin_bswap32(v4) : v4;
	}
	memcpy(&v2, p, 2);
	return swap ? __builtin_bswap16(v2) : v2;
}

/* Bytes of the file read WIN_CAP at a time (memory: in place). */
struct win {
	const struct ebid_src *src;
	uint64_t off;
	size_t len;
	unsigned char *buf;
};

/* One relocation entry, decoded. */
struct rel {
	uint64_t at, addend, sym;
	uint32_t type;
};

struct scan {
	struct ebid_elf *elf;
	struct win tab, sym, word;
	uint64_t lo, hi;                /* the first page's addresses */
	uint64_t mask;                  /* of an address of this class */
	size_t w;                       /* bytes of an address */
	/* The table being read. */
	const char *name;               /* when no section holds an entry */
	uint64_t tab_off;
	size_t ent;
	int fmt;
	bool applied;
	bool rel_final;                 /* a static table: a REL word holds
					 * the linked result itself */
	bool has_syms;
	uint64_t sym_off, nsyms;        /* its symbol table */
	size_t sym_ent;
	uint32_t memo_type;             /* the last type looked up */
	int memo_kind;
	/* DT ranges read, which a section inside one need not repeat. */
	uint64_t done_off[4], done_end[4];
	size_t ndone;
};

/*
 * *p = the file's bytes [off, off + n) (n <= WIN_CAP): 0, OUTSIDE when
 * they are not in the file, or a negative errno.
 */
static int win_get(struct win *w, uint64_t off, size_t n,
		   const unsigned char **p)
{
	const struct ebid_src *src = w->src;
	size_t len;
	int ret;

	if (off > src->size || n > src->size - off)
		return OUTSIDE;
	if (src->fd < 0) {
		*p = src->mem + off;
		return 0;
	}
	if (off < w->off || off - w->off > w->len || n > w->len - (off - w->off)) {
		len = src->size - off < WIN_CAP ? (size_t)(src->size - off)
						: WIN_CAP;
		w->len = 0;
		ret = ebid_src_read(src, off, w->buf, len);
		if (ret)
			return ret;
		w->off = off;
		w->len = len;
	}
	*p = w->buf + (off - w->off);
	return 0;
}

/*
 * Where the n bytes at address a are in the file, through the PT_LOADs:
 * 0 and *off; OUTSIDE when no PT_LOAD maps them whole, or they lie in
 * memory past the file's bytes (*off = UINT64_MAX: zeros).
 */
static int addr_off(const struct ebid_elf *elf, uint64_t a, uint64_t n,
		    uint64_t *off)
{
	size_t i;

	for (i = 0; i < elf->phnum; i++) {
		const struct ebid_phdr *ph = &elf->phdrs[i];
		uint64_t rel = a - ph->vaddr;

		if (ph->type != PT_LOAD || a < ph->vaddr ||
		    rel >= ph->memsz)
			continue;
		if (rel >= ph->filesz && n <= ph->memsz - rel) {
			*off = UINT64_MAX;
			return 0;
		}
		if (n > ph->filesz - rel || ph->offset > elf->file_size ||
		    rel > elf->file_size - ph->offset ||
		    n > elf->file_size - ph->offset - rel)
			return OUTSIDE;
		*off = ph->offset + rel;
		return 0;
	}
	return OUTSIDE;
}

/* The class-sized word at address a (zero past the file's bytes). */
static int word_at(struct scan *s, uint64_t a, uint64_t *v)
{
	const unsigned char *p;
	uint64_t off;
	int ret = addr_off(s->elf, a, s->w, &off);

	if (ret)
		return ret;
	if (off == UINT64_MAX) {
		*v = 0;
		return 0;
	}
	ret = win_get(&s->word, off, s->w, &p);
	if (!ret)
		*v = rd(p, s->w, s->elf->data);
	return ret;
}

/* Symbol sym's value: 0 and *v when defined, 2 when undefined. */
static int sym_value(struct scan *s, uint64_t sym, uint64_t *v)
{
	const unsigned char *p;
	uint64_t shndx;
	int ret;

	if (!s->has_syms || sym >= s->nsyms)
		return OUTSIDE;
	ret = win_get(&s->sym, s->sym_off + sym * s->sym_ent,
		      s->w == 8 ? 24 : 16, &p);
	if (ret)
		return ret;
	shndx = rd(p + (s->w == 8 ? 6 : 14), 2, s->elf->data);
	*v = rd(p + (s->w == 8 ? 8 : 4), s->w, s->elf->data);
	return shndx ? 0 : 2;
}

static int kind_of(struct scan *s, uint32_t type)
{
	size_t i;

	if (type == s->memo_type)
		return s->memo_kind;
	s->memo_type = type;
	s->memo_kind = K_UNKNOWN;
	if (!type)
		s->memo_kind = K_NONE; /* R_*_NONE on every machine */
	for (i = 0; i < ARRAY_SIZE(kinds); i++)
		if (kinds[i].machine == s->elf->machine &&
		    kinds[i].type == type)
			s->memo_kind = kinds[i].kind;
	return s->memo_kind;
}

/* Decodes the entry at e (mips64 keeps r_sym and r_type apart). */
static void decode(const struct scan *s, const unsigned char *e,
		   struct rel *r)
{
	unsigned char d = s->elf->data;
	uint64_t info;

	if (s->w == 8) {
		r->at = rd(e, 8, d);
		if (s->elf->machine == EM_MIPS) {
			/* r_sym (32 bits), r_ssym, r_type3, r_type2, r_type. */
			r->sym = rd(e + 8, 4, d);
			r->type = e[15];
		} else {
			info = rd(e + 8, 8, d);
			r->sym = info >> 32;
			r->type = (uint32_t)info;
		}
		r->addend = s->fmt == FMT_RELA ? rd(e + 16, 8, d) : 0;
	} else {
		r->at = rd(e, 4, d);
		info = rd(e + 4, 4, d);
		r->sym = info >> 8;
		r->type = (uint32_t)(info & 0xff);
		r->addend = s->fmt == FMT_RELA ? rd(e + 8, 4, d) : 0;
	}
}

/*
 * The addresses the relocation r points to, by kind (see K_*), into to[]:
 * 0, OUTSIDE or a negative errno. REL and RELR keep the addend in the
 * word they apply to, read here from the file; in a static REL section
 * (--emit-relocs) that word is the linked result, an address too.
 */
static int targets(struct scan *s, const struct rel *r, int kind,
		   uint64_t to[3], unsigned char *nto)
{
	uint64_t a = r->addend, v = 0;
	int ret, def = 2;

	*nto = 0;
	if (kind == K_NONE)
		return 0;
	if (s->fmt != FMT_RELA && (kind != K_S || s->rel_final)) {
		ret = word_at(s, r->at, &a);
		if (ret)
			return ret;
	}
	if (kind != K_A && r->sym) {
		def = sym_value(s, r->sym, &v);
		if (def < 0 || def == OUTSIDE)
			return def;
	}
	if (kind == K_A || (!r->sym && kind != K_S) ||
	    (r->sym && def && kind == K_UNKNOWN)) {
		to[(*nto)++] = a & s->mask;     /* S is 0, or not here */
	} else if (r->sym && !def) {
		to[(*nto)++] = v & s->mask;
		if (kind != K_S)
			to[(*nto)++] = (v + a) & s->mask;
	}
	if (s->rel_final && s->fmt == FMT_REL)
		to[(*nto)++] = a & s->mask;
	return 0;
}

static bool near(const struct scan *s, uint64_t a)
{
	return a >= s->lo && a < s->hi;
}

/*
 * The table that holds the entry at file offset eoff: the relocation
 * section around it (its name, the entry's number there), else the DT_
 * range being read.
 */
static void name_entry(const struct scan *s, uint64_t eoff, uint64_t idx,
		       struct ebid_relref *rr)
{
	const struct ebid_elf *elf = s->elf;
	size_t i;

	rr->table = s->name;
	rr->index = idx;
	for (i = 1; i < elf->shnum && eoff != UINT64_MAX; i++) {
		const struct ebid_shdr *sh = &elf->shdrs[i];

		if ((sh->type == SHT_RELA || sh->type == SHT_REL || sh->type == SHT_RELR) &&
		    eoff >= sh->offset && eoff - sh->offset < sh->size &&
		    sh->name_str && *sh->name_str) {
			rr->table = sh->name_str;
			rr->index = (eoff - sh->offset) / s->ent;
			return;
		}
	}
}

/*
 * Keeps relocation r (entry idx of the table, at file offset eoff) when
 * it is applied in the first page or points into it: 0, or OUTSIDE past
 * EBID_RELOCS_MAX.
 */
static int entry(struct scan *s, uint64_t eoff, uint64_t idx,
		 const struct rel *r, bool typed, int kind)
{
	struct ebid_elf *elf = s->elf;
	struct ebid_relref *rr;
	uint64_t to[3];
	unsigned char nto, k;
	bool keep;
	int ret;

	if (typed && !r->type)
		return 0; /* R_*_NONE: nothing is applied */
	ret = targets(s, r, kind, to, &nto);
	if (ret)
		return ret;
	keep = s->applied && near(s, r->at & s->mask);
	for (k = 0; k < nto; k++)
		keep = keep || near(s, to[k]);
	if (!keep)
		return 0;
	if (elf->nrelocs == EBID_RELOCS_MAX)
		return OUTSIDE;
	if (!elf->relocs) {
		elf->relocs = calloc(EBID_RELOCS_MAX, sizeof(*elf->relocs));
		if (!elf->relocs)
			return -ENOMEM;
	}
	rr = &elf->relocs[elf->nrelocs++];
	rr->at = r->at & s->mask;
	memcpy(rr->to, to, sizeof(to));
	rr->nto = nto;
	rr->type = r->type;
	rr->typed = typed;
	rr->applied = s->applied;
	name_entry(s, eoff, idx, rr);
	return 0;
}

/* A RELA or REL table at file offset off, a window's worth at a time. */
static int scan_rel(struct scan *s, uint64_t off, uint64_t size)
{
	uint64_t i = 0, n = size / s->ent, k, m;
	const unsigned char *e;
	struct rel r;
	int ret;

	while (i < n) {
		m = n - i < WIN_CAP / s->ent ? n - i : WIN_CAP / s->ent;
		ret = win_get(&s->tab, off + i * s->ent, (size_t)(m * s->ent),
			      &e);
		for (k = 0; !ret && k < m; k++, i++) {
			decode(s, e + k * s->ent, &r);
			ret = entry(s, off + i * s->ent, i, &r, true,
				    kind_of(s, r.type));
		}
		if (ret)
			return ret;
	}
	return 0;
}

/*
 * A RELR table: an even word is an address to relocate, an odd one a
 * bitmap of the next 63 (31) words after the last address.
 */
static int scan_relr(struct scan *s, uint64_t off, uint64_t size)
{
	uint64_t i, n = size / s->w, where = 0, word;
	const unsigned char *e;
	struct rel r = {0};
	unsigned b, bits = (unsigned)s->w * 8;
	int ret;

	for (i = 0; i < n; i++) {
		ret = win_get(&s->tab, off + i * s->w, s->w, &e);
		if (ret)
			return ret;
		word = rd(e, s->w, s->elf->data);
		if (!(word & 1)) {
			r.at = word;
			ret = entry(s, off + i * s->w, i, &r, false, K_A);
			where = (word + s->w) & s->mask;
		} else {
			for (b = 1; b < bits && !ret; b++) {
				if (!((word >> b) & 1))
					continue;
				r.at = (where + (b - 1) * s->w) & s->mask;
				ret = entry(s, off + i * s->w, i, &r, false,
					    K_A);
			}
			where = (where + (bits - 1) * s->w) & s->mask;
		}
		if (ret)
			return ret;
	}
	return 0;
}

/* Standard entry sizes by format. */
static size_t ent_of(const struct scan *s, int fmt)
{
	if (fmt == FMT_RELR)
		return s->w;
	return fmt == FMT_RELA ? s->w * 3 : s->w * 2;
}

/* Reads one table of fmt at file offset off (its symbols already set). */
static int scan_table(struct scan *s, int fmt, uint64_t off, uint64_t size)
{
	s->fmt = fmt;
	s->ent = ent_of(s, fmt);
	s->tab_off = off;
	if (off > s->elf->file_size || size > s->elf->file_size - off)
		return OUTSIDE;
	return fmt == FMT_RELR ? scan_relr(s, off, size)
			       : scan_rel(s, off, size);
}

/* The value of the first dynamic entry with tag, and whether there is one. */
/*
 * MIPS: the first DT_MIPS_LOCAL_GOTNO words at DT_PLTGOT hold addresses
 * the loader relocates without a relocation entry.
 */
static int scan_mips_got(struct scan *s)
{
	uint64_t got, n, i, off;
	struct rel r = {0};
	int ret;

	if (s->elf->machine != EM_MIPS || !ebid_dyn_value(s->elf, 3, &got) ||
	    !ebid_dyn_value(s->elf, 0x7000000a /* DT_MIPS_LOCAL_GOTNO */, &n) || !n)
		return 0;
	if (n > s->elf->file_size / s->w)
		return OUTSIDE;
	ret = addr_off(s->elf, got, n * s->w, &off);
	if (ret || off == UINT64_MAX)
		return OUTSIDE;
	s->fmt = FMT_REL;
	s->ent = s->w;
	s->name = "MIPS local GOT";
	s->applied = true;
	for (i = 0; i < n && !ret; i++) {
		r.at = (got + i * s->w) & s->mask;
		ret = entry(s, UINT64_MAX, i, &r, false, K_A);
	}
	return ret;
}

/*
 * The dynamic symbol table (DT_SYMTAB): as many entries as the SHT_DYNSYM
 * section at its offset holds, or, without one, up to the end of the file.
 * A relocation naming an index past the section reads whatever the loader
 * finds behind the table in memory; a move of the table changes that, so
 * such an index is OUTSIDE (the relocations are not all known).
 */
static int dyn_symbols(struct scan *s)
{
	const struct ebid_elf *elf = s->elf;
	uint64_t addr, ent = s->w == 8 ? 24 : 16;
	size_t i;

	s->has_syms = false;
	if (ebid_dyn_value(s->elf, 11 /* DT_SYMENT */, &s->nsyms) && s->nsyms != ent)
		return OUTSIDE;
	if (!ebid_dyn_value(s->elf, 6 /* DT_SYMTAB */, &addr))
		return 0;
	if (addr_off(s->elf, addr, ent, &s->sym_off) ||
	    s->sym_off == UINT64_MAX)
		return OUTSIDE;
	s->sym_ent = (size_t)ent;
	s->nsyms = (elf->file_size - s->sym_off) / ent;
	for (i = 1; i < elf->shnum; i++)
		if (elf->shdrs[i].type == SHT_DYNSYM &&
		    elf->shdrs[i].offset == s->sym_off &&
		    elf->shdrs[i].size / ent < s->nsyms)
			s->nsyms = elf->shdrs[i].size / ent;
	s->has_syms = true;
	return 0;
}

/*
 * The ranges the loader reads: DT_RELA/DT_RELASZ, DT_REL/DT_RELSZ,
 * DT_RELR/DT_RELRSZ, DT_JMPREL/DT_PLTRELSZ (of format DT_PLTREL), then
 * the MIPS local GOT. Android's packed tables are not read: OUTSIDE.
 */
static int scan_dynamic(struct scan *s)
{
	static const struct {
		uint64_t tag, sz, ent;
		int fmt;
		const char *name;
	} ranges[] = {
		{7, 8, 9, FMT_RELA, "DT_RELA"},
		{17, 18, 19, FMT_REL, "DT_REL"},
		{36, 35, 37, FMT_RELR, "DT_RELR"},
		{23, 2, 0, -1, "DT_JMPREL"},
	};
	uint64_t addr, size, ent, off, v;
	size_t i;
	int ret, fmt;

	if (ebid_dyn_value(s->elf, 0x6000000f, &v) || ebid_dyn_value(s->elf, 0x60000011, &v))
		return OUTSIDE; /* DT_ANDROID_REL, DT_ANDROID_RELA */
	ret = dyn_symbols(s);
	for (i = 0; i < ARRAY_SIZE(ranges) && !ret; i++) {
		if (!ebid_dyn_value(s->elf, ranges[i].tag, &addr))
			continue;
		fmt = ranges[i].fmt;
		if (fmt < 0) {
			if (!ebid_dyn_value(s->elf, 20 /* DT_PLTREL */, &v) ||
			    (v != 7 && v != 17))
				return OUTSIDE;
			fmt = v == 7 ? FMT_RELA : FMT_REL;
		}
		if (!ebid_dyn_value(s->elf, ranges[i].sz, &size) || !size)
			continue;
		if (ranges[i].ent && ebid_dyn_value(s->elf, ranges[i].ent, &ent) &&
		    ent != ent_of(s, fmt))
			return OUTSIDE;
		if (addr_off(s->elf, addr, size, &off) || off == UINT64_MAX)
			return OUTSIDE;
		s->name = ranges[i].name;
		s->applied = true;
		s->done_off[s->ndone] = off;
		s->done_end[s->ndone++] = off + size;
		ret = scan_table(s, fmt, off, size);
	}
	return ret ? ret : scan_mips_got(s);
}

/* Was [off, off + size) read already as (part of) a DT_ range? */
static bool done(const struct scan *s, uint64_t off, uint64_t size)
{
	size_t i;

	for (i = 0; i < s->ndone; i++)
		if (off >= s->done_off[i] && off + size <= s->done_end[i])
			return true;
	return false;
}

/*
 * Every SHT_RELA, SHT_REL and SHT_RELR section no DT_ range covered:
 * .rela.dyn and .rela.plt of a file whose dynamic table does not name
 * them, and the static ones --emit-relocs leaves (their r_offset are
 * addresses, their symbols in the sh_link table; those of a section that
 * is not allocated, debug info, are applied to no image address).
 */
static int scan_sections(struct scan *s)
{
	const struct ebid_elf *elf = s->elf;
	size_t i;
	int ret = 0, fmt;

	for (i = 1; i < elf->shnum && !ret; i++) {
		const struct ebid_shdr *sh = &elf->shdrs[i];
		const struct ebid_shdr *ln = sh->link < elf->shnum
						     ? &elf->shdrs[sh->link]
						     : NULL;

		if (sh->type != 4 && sh->type != 9 && sh->type != 19)
			continue;
		if (!sh->size || done(s, sh->offset, sh->size))
			continue;
		fmt = sh->type == SHT_RELA ? FMT_RELA
				    : sh->type == SHT_REL ? FMT_REL : FMT_RELR;
		s->sym_ent = s->w == 8 ? 24 : 16;
		s->has_syms = sh->link && ln && (ln->type == SHT_SYMTAB || ln->type == SHT_DYNSYM) &&
			      ln->offset <= elf->file_size &&
			      ln->size <= elf->file_size - ln->offset;
		s->sym_off = s->has_syms ? ln->offset : 0;
		s->nsyms = s->has_syms ? ln->size / s->sym_ent : 0;
		s->applied = !(sh->info && sh->info < elf->shnum &&
			       !(elf->shdrs[sh->info].flags & SHF_ALLOC));
		s->name = sh->name_str && *sh->name_str ? sh->name_str
							: "a relocation section";
		s->rel_final = true;
		ret = scan_table(s, fmt, sh->offset, sh->size);
	}
	return ret;
}

/* The largest address of a file of class elfclass. */
static uint64_t addr_mask(unsigned char elfclass)
{
	return ebid_word(elfclass) == 8 ? UINT64_MAX : 0xffffffffu;
}

/*
 * The addresses that may move, and more: the first page as the PT_LOAD
 * at offset 0 maps it, and the movable sections after the program
 * headers (elf->span_hi). false without one.
 */
static bool window(const struct ebid_elf *elf, uint64_t *lo, uint64_t *hi)
{
	uint64_t mask = addr_mask(elf->elfclass);
	long li = ebid_first_load(elf->phdrs, elf->phnum);

	if (li < 0)
		return false;
	*lo = elf->phdrs[li].vaddr;
	*hi = *lo > mask - EBID_PAGE ? mask : *lo + EBID_PAGE;
	/* new-load moves sections past the first page too. */
	if (elf->span_hi > *hi)
		*hi = elf->span_hi;
	return true;
}

int ebid_relocs_read(struct ebid_elf *elf, const struct ebid_src *src,
		     char *err, size_t errlen)
{
	struct scan s;
	int ret = 0;

	if (elf->relocs_read)
		return 0;
	elf->relocs_read = true;
	memset(&s, 0, sizeof(s));
	if (elf->type == ET_REL || !window(elf, &s.lo, &s.hi))
		return 0;
	if (elf->dyn_bad) {
		elf->relocs_over = true;
		return 0;
	}
	s.elf = elf;
	s.w = ebid_word(elf->elfclass);
	s.mask = addr_mask(elf->elfclass);
	s.memo_type = UINT32_MAX;
	s.tab.src = s.sym.src = s.word.src = src;
	if (src->fd >= 0) {
		s.tab.buf = malloc(WIN_CAP);
		s.sym.buf = malloc(WIN_CAP);
		s.word.buf = malloc(WIN_CAP);
		if (!s.tab.buf || !s.sym.buf || !s.word.buf)
			ret = -ENOMEM;
	}
	if (!ret)
		ret = scan_dynamic(&s);
	if (!ret)
		ret = scan_sections(&s);
	if (ret == OUTSIDE) {
		elf->relocs_over = true;
		ret = 0;
	} else if (ret) {
		ret = ebid_err(err, errlen, ret, "cannot read the relocations: %s",
			       strerror(-ret));
	}
	free(s.tab.buf);
	free(s.sym.buf);
	free(s.word.buf);
	return ret;
}

/* "(.rela.dyn entry 12, type 8, at 0x3df0[, to 0x318])" */
static void describe(const struct ebid_relref *r, const uint64_t *to,
		     char *buf, size_t len)
{
	char type[32] = "";
	char dest[40] = "";

	if (r->typed)
		snprintf(type, sizeof(type), ", type %u", (unsigned)r->type);
	if (to)
		snprintf(dest, sizeof(dest), ", to 0x%llx",
			 (unsigned long long)*to);
	snprintf(buf, len, "(%s entry %llu%s, at 0x%llx%s)", r->table,
		 (unsigned long long)r->index, type, (unsigned long long)r->at,
		 dest);
}

int ebid_relocs_refuse(const struct ebid_elf *elf, uint64_t lo, uint64_t hi,
		       const char *what, char *err, size_t errlen)
{
	uint64_t wlo = 0, whi = 0;
	char d[EBID_ERRLEN / 2];
	size_t i, k;

	if (!elf->relocs_read || elf->relocs_over ||
	    (lo < hi && (!window(elf, &wlo, &whi) || lo < wlo || hi > whi)))
		return ebid_err(err, errlen, -EBID_ENOROOM,
				"the relocations are not all known (more than %d apply in or point into the first page, a relocation table lies outside the file or its segments, or the dynamic table is unreadable)",
				EBID_RELOCS_MAX);
	for (i = 0; i < elf->nrelocs; i++) {
		const struct ebid_relref *r = &elf->relocs[i];

		if (r->applied && r->at >= lo && r->at < hi) {
			describe(r, NULL, d, sizeof(d));
			return ebid_err(err, errlen, -EBID_ENOROOM,
					"a relocation is applied inside %s %s",
					what, d);
		}
		for (k = 0; k < r->nto; k++)
			if (r->to[k] >= lo && r->to[k] < hi) {
				describe(r, &r->to[k], d, sizeof(d));
				return ebid_err(err, errlen, -EBID_ENOROOM,
						"a relocation points into %s %s",
						what, d);
			}
	}
	return 0;
}
