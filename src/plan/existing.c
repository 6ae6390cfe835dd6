/* SPDX-License-Identifier: MIT */
/*
 * A GNU note that is there: fill (inject, backfill) or reserve it again,
 * keeping its size, and make it visible to the kernel when it is not
 * (the "repair-coverage" strategy, plan_cover_note).
 */
#include <string.h>

#include "plan/planner.h"

/*
 * The note that is there must be what readers by section take for the
 * id; a file whose note no proper section describes is refused, never
 * reported unchanged. Program headers only (stripped section headers): a
 * kernel-visible, filled id is left alone (1: done); nothing else can be
 * done safely without sections.
 */
static int existing_sections(struct planner *p, bool zero)
{
	const struct ebid_elf *elf = p->elf;
	const struct ebid_opts *o = p->opts;
	const struct ebid_note *g = &elf->gnu;

	if (elf->shnum) {
		struct ebid_note_view v;

		ebid_note_view(elf, &v);
		if (!v.by_section)
			return ebid_err(p->err, p->errlen, -EBID_EMALFORMED,
					"malformed ELF: %s", v.section_why);
	}
	if (g->shndx)
		return 0;
	if (elf->gnu_kernel_visible && !zero && !o->force &&
	    o->mode != EBID_MODE_BACKFILL) {
		p->plan->id_off = g->desc_off;
		p->plan->id_len = g->desc_len;
		memcpy(p->plan->id, g->desc, g->desc_len);
		return 1;
	}
	return ebid_err(p->err, p->errlen, -EBID_ENOTE,
			"GNU build-id note has no section header describing it (file without section headers?); relink with -Wl,--build-id instead");
}

/*
 * A note that is there keeps its size: the id that fills it, or the hash
 * that reserve was asked to reserve it for, must fit. *fill: whether the
 * plan fills it.
 */
static int existing_request(struct planner *p, bool zero, bool *fill)
{
	const struct ebid_elf *elf = p->elf;
	const struct ebid_opts *o = p->opts;
	const struct ebid_note *g = &elf->gnu;
	size_t want;

	if (!elf->gnu_kernel_visible && elf->raw_phnum == PN_XNUM)
		return planner_no_room(p, "the program header count is in section 0 (PN_XNUM), which the kernel's build-id reader does not follow");
	if (o->mode == EBID_MODE_BACKFILL && !zero && !o->force)
		return ebid_err(p->err, p->errlen, -EBID_ENOTE,
				"build-id is already filled, not a reserved all-zero note (use --force to recompute)");
	*fill = o->mode != EBID_MODE_RESERVE && (zero || o->force);
	want = o->id ? o->id_len : ebid_hash_id_len(o->alg);
	if ((*fill || (o->mode == EBID_MODE_RESERVE && o->alg_given)) &&
	    want != g->desc_len)
		return ebid_err(p->err, p->errlen, -EBID_ENOTE,
				"the note holds %u bytes but the %s gives %zu%s",
				g->desc_len,
				o->id ? "--id" : ebid_hash_name(o->alg), want,
				*fill ? "" : " (reserve keeps the size of a note that is there)");
	return 0;
}

int plan_existing(struct planner *p)
{
	const struct ebid_elf *elf = p->elf;
	const struct ebid_opts *o = p->opts;
	const struct ebid_note *g = &elf->gnu;
	/*
	 * A constant id (derived from a placeholder Go build id) names every
	 * program linked that way: it is replaced as a reserved note is.
	 */
	bool reserved = ebid_all_zero(g->desc, g->desc_len);
	bool zero = reserved || o->replace_constant, fill = false;
	int ret;

	ret = existing_sections(p, zero);
	if (ret)
		return ret > 0 ? 0 : ret;
	if (g->desc_len == 0 || g->desc_len > EBID_MAX_ID)
		return ebid_err(p->err, p->errlen, -EBID_ENOTE,
				"existing build-id has %u bytes; perf and the kernel accept 1 to 20 (relink with --build-id=sha1)",
				g->desc_len);
	p->plan->id_off = g->desc_off;
	p->plan->id_len = g->desc_len;
	memcpy(p->plan->id, g->desc, g->desc_len);
	ret = existing_request(p, zero, &fill);
	if (ret)
		return ret;
	if (o->mode == EBID_MODE_RESERVE && !reserved &&
	    (o->force || o->replace_constant)) {
		/* reserve -f: back to a reserved note, to be backfilled. */
		unsigned char zeros[EBID_MAX_ID] = { 0 };

		memset(p->plan->id, 0, sizeof(p->plan->id));
		ret = planner_patch(p, g->desc_off, zeros, g->desc_len,
				    o->force ? "descriptor zeroed (reserve --force)"
					     : "descriptor zeroed (a constant id)");
		if (ret)
			return ret;
		p->plan->actions |= EBID_ACT_ZERO;
	}
	if (fill) {
		p->plan->fill = true;
		p->plan->actions |= EBID_ACT_FILL;
	}
	if (!elf->gnu_kernel_visible)
		return planner_run(p, plan_cover_note, plan_cover_note_n);
	return 0;
}
