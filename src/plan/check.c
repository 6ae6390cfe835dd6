/* SPDX-License-Identifier: MIT */
/*
 * The plan's own checks, run on every plan before it is returned: patches
 * disjoint and inside the input, no section's bytes changed but those a
 * move or the fill may change, the note visible to the kernel's reader.
 */
#include <stdlib.h>
#include <string.h>

#include "plan/planner.h"
#include "plan/plan.h"

static int cmp_patch(const void *a, const void *b)
{
	const struct ebid_patch *x = a, *y = b;

	return x->off < y->off ? -1 : x->off > y->off;
}

/* Our own invariant: patches are disjoint and inside the input. */
static int check_patches(struct planner *p)
{
	struct ebid_plan *plan = p->plan;
	size_t i;

	/* qsort() wants a valid array even for zero elements. */
	if (plan->npatches > 1)
		qsort(plan->patches, plan->npatches, sizeof(*plan->patches),
		      cmp_patch);
	for (i = 0; i < plan->npatches; i++) {
		const struct ebid_patch *pt = &plan->patches[i];

		if (pt->off + pt->len > ebid_plan_body_end(plan) ||
		    (i && plan->patches[i - 1].off + plan->patches[i - 1].len >
				  pt->off))
			return ebid_err(p->err, p->errlen, -EBID_EVERIFY,
					"internal error: overlapping patches at 0x%llx (%s)",
					(unsigned long long)pt->off, pt->what);
	}
	return 0;
}

/*
 * The bytes a move may change in sections (plan->runs): a moved section's
 * old place, the DT_ entry of a moved table, and
 * exactly the st_value of a symbol of a moved section.
 */
static bool moved_own(const struct planner *p, const struct ebid_patch *pt,
		      size_t shndx)
{
	const struct ebid_elf *elf = p->elf;
	const struct ebid_plan *plan = p->plan;
	const struct ebid_shdr *s = &elf->shdrs[shndx];
	uint64_t at = ebid_plan_outoff(plan, s->offset);
	const struct ebid_symref *r;
	size_t i, k;

	if (!plan->nruns)
		return false;
	/*
	 * A moved section's old place is dead: cleared, or reused by the new
	 * program headers and note (move-head, new-load); the self-check
	 * proves what it holds (check_run_old_place_cleared()).
	 */
	if (ebid_plan_moved(plan, elf, shndx))
		return true;
	/* The DT_ entry of a moved table (the address of its old place). */
	if (s->type == SHT_DYNAMIC) {
		for (i = 0; i < elf->ndyn; i++) {
			const struct ebid_dynref *d = &elf->dyn[i];

			for (k = 0; k < plan->nruns; k++) {
				const struct ebid_run *run = &plan->runs[k];
				uint64_t lo = ebid_run_addr(plan, elf, run);

				if (ebid_dyn_is_addr(d->tag) && d->val >= lo &&
				    d->val - lo < run->size &&
				    pt->off == ebid_plan_outoff(plan, d->val_off) &&
				    pt->len == ebid_word(elf->elfclass))
					return true;
			}
		}
		return false;
	}
	if (s->type != SHT_SYMTAB && s->type != SHT_DYNSYM)
		return false;
	r = refs_sym_at(p, pt->off);
	return r && ebid_plan_sym_moves(plan, elf, r) &&
	       pt->len == ebid_word(elf->elfclass) &&
	       pt->off >= at && pt->off + pt->len <= at + s->size;
}

/*
 * A patch must not change the bytes of a section of the input (other than
 * the descriptor of the note it fills): a section overlapping a header we
 * rewrite (a .shstrtab over the program headers, say) would change under
 * the plan, names and all.
 */
static int check_sections_kept(struct planner *p)
{
	const struct ebid_elf *elf = p->elf;
	const struct ebid_plan *plan = p->plan;
	size_t i, j;

	for (i = 0; i < plan->npatches; i++) {
		const struct ebid_patch *pt = &plan->patches[i];

		for (j = 1; j < elf->shnum; j++) {
			const struct ebid_shdr *s = &elf->shdrs[j];
			uint64_t at = ebid_plan_outoff(plan, s->offset);

			/* The name table counts whatever its type says. */
			if (s->type == SHT_NOBITS ||
			    (s->type == SHT_NULL && j != elf->shstrndx) ||
			    !s->size || pt->off >= at + s->size ||
			    pt->off + pt->len <= at)
				continue;
			if (moved_own(p, pt, j) ||
			    planner_renumbered_own(p, pt, j))
				continue;
			if (j == elf->gnu.shndx && elf->gnu.present &&
			    pt->off >= elf->gnu.desc_off &&
			    pt->off + pt->len <=
				    elf->gnu.desc_off + elf->gnu.desc_len)
				continue;
			return ebid_err(p->err, p->errlen, -EBID_EMALFORMED,
					"malformed ELF: section header [%zu]: sh_offset 0x%llx/sh_size %llu overlap the %s that the plan must change",
					j, (unsigned long long)s->offset,
					(unsigned long long)s->size, pt->what);
		}
	}
	return 0;
}

/*
 * Applies the plan to a copy of the first page (appended bytes included,
 * for a file shorter than a page) and runs the kernel's reader.
 */
static int check_kernel_view(struct planner *p)
{
	struct ebid_plan *plan = p->plan;
	unsigned char page[EBID_PAGE], id[EBID_MAX_ID];
	uint64_t desc_off = 0;
	size_t i, len = p->page;

	/* elfread and newer kernels read the table at e_phoff. */
	if (p->elf->phoff != ebid_ehsize(p->elf->elfclass))
		return planner_no_room(p, "program headers do not follow the ELF header (e_phoff), where the kernel reads them");
	memcpy(page, p->elf->head, len);
	/* Inserted zeros push the rest of the page out of it. */
	if (plan->ins_len && plan->ins_at < len)
		memset(page + plan->ins_at, 0, len - plan->ins_at);
	if (len < EBID_PAGE && plan->append_len && !plan->ins_len) {
		size_t more = EBID_PAGE - len < plan->append_len
				      ? EBID_PAGE - len
				      : plan->append_len;

		memcpy(page + len, plan->append, more);
		len += more;
	}
	for (i = 0; i < plan->npatches; i++) {
		const struct ebid_patch *pt = &plan->patches[i];

		if (pt->off < len)
			memcpy(page + pt->off, pt->bytes,
			       pt->off + pt->len > len ? len - pt->off
						       : pt->len);
	}
	if (!ebid_kernel_build_id(page, len, id, NULL, &desc_off) ||
	    desc_off != plan->id_off)
		return ebid_err(p->err, p->errlen, -EBID_EVERIFY,
				"internal error: planned note is not visible to the kernel's reader");
	return 0;
}

int planner_check(struct planner *p)
{
	int ret;

	ret = check_patches(p);
	if (!ret)
		ret = check_sections_kept(p);
	if (!ret && p->plan->actions)
		ret = check_kernel_view(p);
	return ret;
}
