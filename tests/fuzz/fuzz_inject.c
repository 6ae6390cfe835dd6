/* SPDX-License-Identifier: MIT */
/*
 * libFuzzer harness over the library's in-memory path: parse the input,
 * plan every mode (inject, reserve, backfill; sha1 and md5; with and without
 * force, and an explicit id), apply the plan to a buffer, parse the output
 * again and check it. Any broken promise is a finding: the harness prints
 * what broke and calls abort().
 *
 * The promises checked, for every plan that changes something:
 *   - a failing call returns a negative code and a non-empty message;
 *   - patches are sorted, disjoint and inside the input; the append and
 *     the id range lie inside the output;
 *   - ebid_apply_mem succeeds, and the output differs from the input only
 *     inside the planned patches and the id range;
 *   - ebid_elf_read parses the output and ebid_check_result accepts it;
 *   - a hashed id is the hash of the output with the id bytes zeroed;
 *   - the first section named .note.gnu.build-id (the one perf and gdb pick
 *     by name) is the one holding the note, and the kernel's reader finds
 *     the same id;
 *   - planning the same inject or reserve again on the output changes
 *     nothing (a rerun converges).
 *
 * Build: make fuzz-build (clang -fsanitize=fuzzer,address,undefined).
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* White-box: the self-check internals (src/internal.h). */
#include "internal.h"
#include "check/check.h"
#include "plan/plan.h"

static const char *mode_name(enum ebid_mode m)
{
	return m == EBID_MODE_INJECT	? "inject"
	       : m == EBID_MODE_RESERVE ? "reserve"
					: "backfill";
}

static const char *cur_what = "";
static char cur_err[EBID_ERRLEN];

__attribute__((noreturn)) static void finding(const char *why)
{
	fprintf(stderr, "fuzz_inject: FINDING: %s: %s (last message: %s)\n",
		cur_what, why, cur_err);
	abort();
}

/* A failing library call must say why, with a negative code. */
static void check_failure(int ret, const char *err)
{
	size_t n = strnlen(err, EBID_ERRLEN);

	if (ret >= 0)
		finding("a failing call returned a non-negative code");
	if (n == 0 || n == EBID_ERRLEN)
		finding("a failing call left an empty or unterminated message");
}

static void check_plan_shape(const struct ebid_plan *plan)
{
	uint64_t prev_end = 0;
	size_t i;

	for (i = 0; i < plan->npatches; i++) {
		const struct ebid_patch *pt = &plan->patches[i];

		if (!pt->len || !pt->bytes)
			finding("empty patch");
		if (pt->off < prev_end)
			finding("patches overlap or are not sorted");
		/* The input's bytes in the output: with an inserted gap. */
		if (pt->off > plan->in_size + plan->ins_len ||
		    pt->len > plan->in_size + plan->ins_len - pt->off)
			finding("patch lies past the end of the input");
		prev_end = pt->off + pt->len;
	}
	/* move-head's gap: whole pages, at most 64 KiB; new-load's, behind
	 * every segment's bytes: 16-byte multiples, the run (at most 64 KiB
	 * past the first page) and its padding. */
	if (plan->ins_len && (plan->actions & EBID_ACT_NEW_LOAD)
		    ? (!(plan->actions & EBID_ACT_INSERT) ||
		       plan->ins_at > plan->in_size || plan->ins_len % 16 ||
		       plan->ins_len > (128u << 10))
		    : plan->ins_len && (!(plan->actions & EBID_ACT_INSERT) ||
					plan->ins_at > plan->in_size ||
					plan->ins_len % 4096 ||
					plan->ins_len > (64u << 10)))
		finding("a gap that is not whole pages inside the input, nor new-load's behind the segments");
	if (plan->out_size != plan->in_size + plan->ins_len + plan->append_len)
		finding("out_size is not in_size plus the gap and the append");
	if (plan->append_len && !plan->append)
		finding("append length without bytes");
	if (plan->fill && (plan->id_len == 0 || plan->id_len > EBID_MAX_ID ||
			   plan->id_off > plan->out_size ||
			   plan->id_len > plan->out_size - plan->id_off))
		finding("id range outside the output");
}

static int in_plan(const struct ebid_plan *plan, uint64_t off)
{
	size_t i;

	for (i = 0; i < plan->npatches; i++)
		if (off >= plan->patches[i].off &&
		    off - plan->patches[i].off < plan->patches[i].len)
			return 1;
	return plan->fill && off >= plan->id_off &&
	       off - plan->id_off < plan->id_len;
}

static void check_output(const uint8_t *in, size_t in_len,
			 const struct ebid_elf *old,
			 const struct ebid_opts *opts,
			 const struct ebid_plan *plan)
{
	struct ebid_src src = { .fd = -1, .mem = in, .size = in_len };
	struct ebid_src osrc = { .fd = -1 };
	struct ebid_elf new;
	struct ebid_plan again;
	unsigned char id[EBID_MAX_ID], id2[EBID_MAX_ID], kid[EBID_MAX_ID];
	unsigned char *out = NULL;
	static const char *const names[] = { ".note.gnu.build-id", ".notes",
					     ".note" };
	size_t out_len = 0, i, k, first = 0, klen;
	char err[EBID_ERRLEN] = "";
	int ret;

	ret = ebid_apply_mem(&src, plan, &out, &out_len, id, err, sizeof(err));
	snprintf(cur_err, sizeof(cur_err), "%s", err);
	if (ret == -ENOMEM)
		return;
	if (ret)
		finding("ebid_apply_mem failed on a plan ebid_plan_make made");
	if (out_len != plan->out_size)
		finding("output size is not the planned size");
	/* Behind an inserted gap, the input's bytes are moved up by it. */
	for (i = 0; i < out_len && i < in_len + plan->ins_len; i++) {
		int want = !plan->ins_len || i < plan->ins_at ? in[i]
			   : i < plan->ins_at + plan->ins_len
				   ? 0
				   : in[i - plan->ins_len];

		if (out[i] != want && !in_plan(plan, i))
			finding("a byte outside the planned ranges changed");
	}
	osrc.mem = out;
	osrc.size = out_len;
	/* As the job's self-check reads it back. */
	ret = ebid_elf_read_output(&new, &osrc, old, plan, err, sizeof(err));
	snprintf(cur_err, sizeof(cur_err), "%s", err);
	if (ret)
		finding("the output, its symbols or its relocations cannot be read");
	ret = ebid_check_result(old, &new, plan, id, err, sizeof(err));
	snprintf(cur_err, sizeof(cur_err), "%s", err);
	if (ret)
		finding("ebid_check_result rejects the output");
	ret = ebid_check_moved_bytes(old, plan, &src, &osrc, id, err,
				     sizeof(err));
	snprintf(cur_err, sizeof(cur_err), "%s", err);
	if (ret)
		finding("ebid_check_moved_bytes rejects the output");
	if (plan->fill && plan->hash) {
		ret = ebid_hash_src(&osrc, plan->id_off, plan->id_len,
				    plan->alg, id2, err, sizeof(err));
		if (ret || memcmp(id, id2, plan->id_len))
			finding("the id is not the hash of the output");
	}
	/*
	 * perf takes the first section named .note.gnu.build-id, else the
	 * first .notes, else the first .note (tools/perf/util/symbol-elf.c).
	 */
	for (k = 0; k < 3 && !first; k++)
		for (i = 1; i < new.shnum; i++)
			if (!strcmp(new.shdrs[i].name_str, names[k])) {
				first = i;
				break;
			}
	if (!new.gnu.present || first != new.gnu.shndx)
		finding("the first .note.gnu.build-id section is not the note's");
	klen = ebid_kernel_build_id(new.head, new.head_len, kid, NULL, NULL);
	if (klen != plan->id_len || memcmp(kid, id, klen))
		finding("the kernel's reader finds another id");
	/* A rerun of inject or reserve on the output has nothing to do. */
	if (!opts->force && opts->mode != EBID_MODE_BACKFILL) {
		ret = ebid_plan_make(&again, &new, opts, err,
				     sizeof(err));
		snprintf(cur_err, sizeof(cur_err), "%s", err);
		if (ret)
			finding("planning again on the output fails");
		if (again.actions)
			finding("planning again on the output changes it again");
		ebid_plan_release(&again);
	}
	ebid_elf_release(&new);
	free(out);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	static const unsigned char explicit_id[EBID_MAX_ID] = {
		0xfe, 0xed, 0xfa, 0xce, 1, 2, 3, 4, 5, 6,
		7, 8, 9, 10, 11, 12, 13, 14, 15, 16,
	};
	struct ebid_src src = { .fd = -1, .mem = data, .size = size };
	struct ebid_elf elf;
	char err[EBID_ERRLEN] = "", what[128];
	int ret, m, a, f;

	cur_what = "ebid_elf_read";
	cur_err[0] = '\0';
	ret = ebid_elf_read(&elf, &src, err, sizeof(err));
	if (ret) {
		snprintf(cur_err, sizeof(cur_err), "%s", err);
		check_failure(ret, err);
		return 0;
	}
	for (m = 0; m < 3; m++)
		for (a = 0; a < 3; a++)
			for (f = 0; f < 2; f++) {
				struct ebid_opts opts = { 0 };
				struct ebid_plan plan;

				opts.mode = (enum ebid_mode)m;
				opts.alg = a == 1 ? EBID_HASH_MD5 : EBID_HASH_SHA1;
				opts.force = f;
				if (a == 2) { /* --id=0x... instead of a hash */
					if (opts.mode == EBID_MODE_RESERVE)
						continue;
					opts.id = explicit_id;
					opts.id_len = sizeof(explicit_id);
				}
				snprintf(what, sizeof(what), "%s %s%s",
					 mode_name(opts.mode),
					 a == 2 ? "--id" : ebid_hash_name(opts.alg),
					 f ? " --force" : "");
				cur_what = what;
				err[0] = '\0';
				ret = ebid_plan_make(&plan, &elf, &opts,
						     err, sizeof(err));
				snprintf(cur_err, sizeof(cur_err), "%s", err);
				if (ret) {
					check_failure(ret, err);
					continue;
				}
				check_plan_shape(&plan);
				if (plan.actions)
					check_output(data, size, &elf, &opts,
						     &plan);
				ebid_plan_release(&plan);
			}
	ebid_elf_release(&elf);
	return 0;
}
