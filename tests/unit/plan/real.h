/* SPDX-License-Identifier: MIT */
/*
 * test_plan.c's real files: the test binary, the fixtures, the matrix. Part of one translation unit: test_plan.c
 * includes every file of tests/unit/plan/ in order, and they share its
 * static helpers and its TAP (tap.h).
 */

/* ---- real files --------------------------------------------------------- */

/* A moving plan's one run (plan->runs[0]): where it was, its size, where
 * it went in the output. */
#define RUN_FROM(pl) ((pl)->runs[0].from)
#define RUN_SIZE(pl) ((pl)->runs[0].size)
#define RUN_TO(pl) ebid_run_to(&(pl)->runs[0])

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
			memcpy(t.p + RUN_FROM(&plan), in->p + RUN_FROM(&plan),
			       (size_t)RUN_SIZE(&plan));
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
			t.p[RUN_TO(&plan) + RUN_SIZE(&plan) - 1] ^= 1;
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

	c->delta = RUN_TO(&c->plan) - RUN_FROM(&c->plan);
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
		for (j = RUN_FROM(plan) + 56;
		     !done && j < RUN_FROM(plan) + RUN_SIZE(plan); j++)
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
		t->p[RUN_TO(plan) + RUN_SIZE(plan) - 1] ^= 1;
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
		    t, elf->phdrs[plan->grown_load].vaddr + RUN_FROM(plan) +
			   RUN_SIZE(plan) - 1);
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
		t->p[RUN_TO(plan) + RUN_SIZE(plan) - 1] ^= 1;
		break;
	case 4:
		t->p[RUN_FROM(plan) + RUN_SIZE(plan) - 1] = 0x5a;
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
				put_le(p + 8, 8, RUN_FROM(plan));
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
