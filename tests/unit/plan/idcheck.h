/* SPDX-License-Identifier: MIT */
/*
 * test_plan.c's the id, recomputed as docs/build-id.md defines it. Part of one translation unit: test_plan.c
 * includes every file of tests/unit/plan/ in order, and they share its
 * static helpers and its TAP (tap.h).
 */

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
