/* SPDX-License-Identifier: MIT */
/*
 * test_plan.c's one planning case: plan, apply, read back, judge. Part of one translation unit: test_plan.c
 * includes every file of tests/unit/plan/ in order, and they share its
 * static helpers and its TAP (tap.h).
 */

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
