/* SPDX-License-Identifier: MIT */
/*
 * test_plan.c's the requests each input is planned with. Part of one translation unit: test_plan.c
 * includes every file of tests/unit/plan/ in order, and they share its
 * static helpers and its TAP (tap.h).
 */

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
