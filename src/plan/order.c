/* SPDX-License-Identifier: MIT */
/*
 * The section header table in the order linkers write it: the allocated
 * sections first, then the others, each in file order. The tools that
 * rewrite a binary after us rely on it (docs/rewriters.md): patchelf walks
 * the headers from [1] to find what follows the program headers, dwz and
 * eu-strip -f lay out a debug file in table order. A new note, or a
 * section move-head or new-load moved, takes its place in that order, and
 * every section index the file holds is renumbered: sh_link, the sh_info
 * of relocation sections (and of SHF_INFO_LINK), e_shstrndx, and the
 * st_shndx of every symbol with the entries of SHT_SYMTAB_SHNDX
 * (elf/itabs.c). A file whose table was not in that order to begin with
 * keeps its numbers, and the new section is last, as before.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "plan/planner.h"
#include "elf/elf.h"

/* A section's rank in the linkers' order (elf/layout.h), ties by number. */
struct ranked {
	struct ebid_shdr_rank rank;
	size_t i;
};

static void rank_all(const struct ebid_shdr *s, size_t n, struct ranked *r)
{
	size_t i;

	memset(&r[0], 0, sizeof(r[0]));
	for (i = 1; i < n; i++) {
		r[i].i = i;
		r[i].rank = r[i - 1].rank;
		ebid_shdr_rank_next(&s[i], &r[i].rank);
	}
}

static int cmp_ranked(const void *x, const void *y)
{
	const struct ranked *a = x, *b = y;
	int c = ebid_shdr_rank_cmp(&a->rank, &b->rank);

	return c ? c : (a->i < b->i ? -1 : a->i > b->i);
}

/* The input's table is in the linkers' order (elf/layout.c). */
bool planner_input_in_order(const struct planner *p)
{
	return ebid_shdrs_in_order(p->elf->shdrs, p->elf->shnum);
}

/* Every table of section indices was read whole. */
static bool itabs_read(const struct ebid_elf *elf)
{
	size_t i;

	if (elf->itabs_over)
		return false;
	for (i = 1; i < elf->shnum; i++)
		if (ebid_itab_type(elf->shdrs[i].type) && elf->shdrs[i].size &&
		    !ebid_elf_itab(elf, i))
			return false;
	return true;
}

/*
 * A .dynsym that file order puts after its string table (move-head moved
 * it behind the first PT_LOAD's contents) goes right before that table,
 * where linkers put it. GNU objcopy and strip read a string table's
 * users first (bfd_section_from_shdr()) and number the sections in the
 * order they read them, without rewriting .dynsym: a .dynsym read early
 * from behind the code would shift the numbers its own symbols name
 * (eu-elflint: "st_value out of bounds" after strip).
 */
static void dynsym_first(const struct planner *p, struct ranked *r)
{
	size_t k, t;

	for (k = 2; k < p->shnum; k++) {
		const struct ebid_shdr *s = &p->shdrs[r[k].i];
		struct ranked keep = r[k];

		if (s->type != SHT_DYNSYM || !(s->flags & SHF_ALLOC))
			continue;
		for (t = 1; t < k && r[t].i != s->link; t++)
			;
		if (t == k)
			continue;
		memmove(&r[t + 1], &r[t], (k - t) * sizeof(*r));
		r[t] = keep;
	}
}

/* map[i]: where section i goes; *moved: some section changes its number. */
static int rank(struct planner *p, size_t *map, bool *moved)
{
	struct ranked *r = calloc(p->shnum, sizeof(*r));
	size_t i;

	if (!r)
		return ebid_err(p->err, p->errlen, -ENOMEM, "out of memory");
	rank_all(p->shdrs, p->shnum, r);
	qsort(r + 1, p->shnum - 1, sizeof(*r), cmp_ranked);
	dynsym_first(p, r);
	*moved = false;
	for (i = 0; i < p->shnum; i++) {
		map[r[i].i] = i;
		if (r[i].i != i)
			*moved = true;
	}
	free(r);
	return 0;
}

/* The headers in their new order, with sh_link and sh_info renumbered. */
static int reorder_headers(struct planner *p, const size_t *map)
{
	size_t n = p->shnum, i;
	struct ebid_shdr *was = malloc(n * sizeof(*was));

	if (!was)
		return ebid_err(p->err, p->errlen, -ENOMEM, "out of memory");
	memcpy(was, p->shdrs, n * sizeof(*was));
	for (i = 1; i < n; i++) {
		struct ebid_shdr *s = &p->shdrs[map[i]];

		*s = was[i];
		ebid_shdr_renumber(s, map, n);
	}
	free(was);
	return 0;
}

/*
 * Calls fn for each piece of [off, off + len) that a patch or the append
 * gives: the planned bytes there, the piece's place in the range, and
 * its length.
 */
static void each_planned(struct planner *p, uint64_t off, size_t len,
			 void (*fn)(unsigned char *planned, size_t at,
				    size_t n, void *ctx),
			 void *ctx)
{
	struct ebid_plan *plan = p->plan;
	uint64_t end = off + len, be = body_end(p), lo, hi;
	size_t i;

	for (i = 0; i < plan->npatches; i++) {
		struct ebid_patch *pt = &plan->patches[i];

		lo = pt->off > off ? pt->off : off;
		hi = pt->off + pt->len < end ? pt->off + pt->len : end;
		if (lo < hi)
			fn(pt->bytes + (lo - pt->off), lo - off, hi - lo, ctx);
	}
	lo = off > be ? off : be;
	hi = be + plan->append_len < end ? be + plan->append_len : end;
	if (lo < hi)
		fn(plan->append + (lo - be), lo - off, hi - lo, ctx);
}

/* A range's bytes, and which of them the plan gives (covered). */
struct range_bytes {
	unsigned char *buf, *covered;
};

/* each_planned(): the planned bytes over the input's, marked covered. */
static void read_planned(unsigned char *planned, size_t at, size_t n,
			 void *ctx)
{
	struct range_bytes *rb = ctx;

	memcpy(rb->buf + at, planned, n);
	memset(rb->covered + at, 1, n);
}

/* each_planned(): the range's new bytes into the patches and the append. */
static void write_planned(unsigned char *planned, size_t at, size_t n,
			  void *ctx)
{
	const struct range_bytes *rb = ctx;

	memcpy(planned, rb->buf + at, n);
}

/*
 * Patches for the bytes no patch covers, where new differs from was: a
 * run of changes, closed after 256 unchanged bytes.
 */
static int patch_changes(struct planner *p, uint64_t off,
			 const unsigned char *was, const unsigned char *new,
			 const unsigned char *covered, size_t len,
			 const char *what)
{
	size_t k = 0, start, last;
	int ret;

	while (k < len) {
		if (covered[k] || was[k] == new[k]) {
			k++;
			continue;
		}
		start = last = k;
		for (k++; k < len && !covered[k] && k - last <= 256; k++)
			if (was[k] != new[k])
				last = k;
		ret = planner_patch(p, off + start, new + start,
				    last + 1 - start, what);
		if (ret)
			return ret;
		k = last + 1;
	}
	return 0;
}

/* Table t, now section map[t->shndx], gets its section indices renumbered. */
static int renumber_table(struct planner *p, const struct ebid_itab *t,
			  const size_t *map)
{
	const struct ebid_shdr *s = &p->shdrs[map[t->shndx]];
	unsigned char *was = malloc(t->len), *new = malloc(t->len),
		      *covered = calloc(t->len ? t->len : 1, 1);
	int ret = 0;

	if (!was || !new || !covered) {
		ret = ebid_err(p->err, p->errlen, -ENOMEM, "out of memory");
		goto out;
	}
	/* The output's bytes there: the input's, under what the plan gives. */
	memcpy(was, t->bytes, t->len);
	each_planned(p, s->offset, t->len, read_planned,
		     &(struct range_bytes){ was, covered });
	memcpy(new, was, t->len);
	ebid_itab_renumber(p->elf, t, map, p->shnum, 0, new, t->len);
	each_planned(p, s->offset, t->len, write_planned,
		     &(struct range_bytes){ new, NULL });
	ret = patch_changes(p, s->offset, was, new, covered, t->len,
			    "section indices renumbered");
out:
	free(was);
	free(new);
	free(covered);
	return ret;
}

static int renumber_tables(struct planner *p, const size_t *map)
{
	const struct ebid_elf *elf = p->elf;
	size_t i;
	int ret;

	for (i = 0; i < elf->nitabs; i++) {
		ret = renumber_table(p, &elf->itabs[i], map);
		if (ret)
			return ret;
	}
	return 0;
}

int planner_order_shdrs(struct planner *p)
{
	const struct ebid_elf *elf = p->elf;
	size_t *map;
	bool moved = false;
	int ret;

	p->shstrndx = elf->shstrndx;
	if (p->shnum < 3 || p->shnum >= SHN_LORESERVE || !itabs_read(elf))
		return 0;
	if (!planner_input_in_order(p))
		return 0;
	map = calloc(p->shnum, sizeof(*map));
	if (!map)
		return ebid_err(p->err, p->errlen, -ENOMEM, "out of memory");
	ret = rank(p, map, &moved);
	if (!ret && moved)
		ret = reorder_headers(p, map);
	if (!ret && moved)
		ret = renumber_tables(p, map);
	if (ret || !moved) {
		free(map);
		return ret;
	}
	p->shstrndx = map[elf->shstrndx];
	if (elf->raw_shstrndx == SHN_XINDEX)
		p->shdrs[0].link = (uint32_t)p->shstrndx;
	p->plan->shmap = map;
	p->plan->shmap_n = p->shnum;
	return 0;
}

bool planner_renumbered_own(const struct planner *p,
			    const struct ebid_patch *pt, size_t shndx)
{
	const struct ebid_plan *plan = p->plan;
	const struct ebid_itab *t = ebid_elf_itab(p->elf, shndx);
	uint64_t at = ebid_plan_outoff(plan, p->elf->shdrs[shndx].offset);
	unsigned char *want;
	bool ok;

	if (!plan->shmap || !t || pt->off < at || pt->off + pt->len > at + t->len)
		return false;
	want = malloc(pt->len);
	if (!want)
		return false;
	memcpy(want, t->bytes + (pt->off - at), pt->len);
	ebid_itab_renumber(p->elf, t, plan->shmap, plan->shmap_n,
			   pt->off - at, want, pt->len);
	ok = !memcmp(want, pt->bytes, pt->len);
	free(want);
	return ok;
}
