/* SPDX-License-Identifier: MIT */
/*
 * test_plan.c's inputs crafted in memory from a real file (scripts/matrix-craft.py). Part of one translation unit: test_plan.c
 * includes every file of tests/unit/plan/ in order, and they share its
 * static helpers and its TAP (tap.h).
 */

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
