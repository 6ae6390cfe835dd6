/* SPDX-License-Identifier: MIT */
/*
 * The planner's entry: a layout and a request to a struct ebid_plan of
 * byte patches, appended bytes and at most one inserted gap. A note that
 * is there is filled (existing.c); a new note is placed by the first
 * strategy of plan_new_note that can (core.c), then the headers are
 * emitted (emit.c) and the plan checks itself (check.c).
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "plan/planner.h"
#include "elf/elf.h"

static void encode_note(const struct planner *p, unsigned char *buf)
{
	unsigned char d = p->elf->data;
	size_t size = (size_t)ebid_gnu_note_size(p->desc_len);

	memset(buf, 0, size);
	ebid_put(buf, 4, 4, d);
	ebid_put(buf + 4, 4, p->desc_len, d);
	ebid_put(buf + 8, 4, NT_GNU_BUILD_ID, d);
	memcpy(buf + 12, "GNU", 4);
}

/* The request for a new note: what no strategy can help (0: go on). */
static int new_request(struct planner *p)
{
	const struct ebid_elf *elf = p->elf;
	const struct ebid_opts *o = p->opts;

	if (o->mode == EBID_MODE_BACKFILL)
		return ebid_err(p->err, p->errlen, -EBID_ENOTE,
				"no reserved build-id note to backfill (run reserve or inject)");
	if (!elf->shnum)
		return planner_no_room(p, "file has no section headers, so perf and strip cannot see a note");
	if (!elf->shstrtab || elf->shstrndx >= elf->shnum)
		return ebid_err(p->err, p->errlen, -EBID_ENOROOM,
				"file has no section name table");
	if (elf->phoff != ebid_ehsize(elf->elfclass) || !elf->phnum)
		return planner_no_room(p, "program headers do not follow the ELF header");
	if (elf->raw_phnum == PN_XNUM)
		return planner_no_room(p, "the program header count is in section 0 (PN_XNUM), which the kernel's build-id reader does not follow");
	/* A second section of that name would be hidden behind the first. */
	if (ebid_note_section(elf))
		return ebid_err(p->err, p->errlen, -EBID_ENOTE,
				"section [%zu] is named %s but holds no GNU build-id note (owner \"GNU\", n_type 3); a second section of that name would be hidden behind it",
				ebid_note_section(elf), EBID_GNU_NOTE_NAME);
	return 0;
}

/* The new section, appended (nothing is renumbered), and its note. */
static int add_note_section(struct planner *p)
{
	uint64_t size = ebid_gnu_note_size(p->desc_len);
	const struct ebid_phdr *load = planner_load_of(p, p->note_off, size);
	struct ebid_shdr *s = &p->shdrs[p->shnum++];
	unsigned char note[12 + 4 + EBID_MAX_ID];

	memset(s, 0, sizeof(*s));
	s->name = (uint32_t)p->name_off;
	s->type = SHT_NOTE;
	s->flags = SHF_ALLOC;
	s->addr = load->vaddr + (p->note_off - load->offset);
	s->offset = p->note_off;
	s->size = size;
	s->addralign = 4;
	encode_note(p, note);
	return planner_patch(p, p->note_off, note, (size_t)size,
			     ".note.gnu.build-id (new)");
}

static int plan_new(struct planner *p)
{
	const struct ebid_elf *elf = p->elf;
	const struct ebid_opts *o = p->opts;
	int ret;

	ret = new_request(p);
	if (ret)
		return ret;
	p->desc_len = o->id ? o->id_len : ebid_hash_id_len(o->alg);
	ret = planner_run(p, plan_new_note, plan_new_note_n);
	if (!ret)
		ret = planner_place_shdrs(p, 1);
	if (!ret)
		ret = planner_place_name(p);
	if (ret)
		return ret;
	/* Readers that name section 0 too would find two of ours. */
	if (elf->shdrs[0].name && elf->shdrs[0].name == p->name_off)
		return ebid_err(p->err, p->errlen, -EBID_EMALFORMED,
				"malformed ELF: section header [0]: sh_name %u would name the new section's %s too",
				elf->shdrs[0].name, EBID_GNU_NOTE_NAME);
	ret = add_note_section(p);
	if (ret)
		return ret;
	p->plan->actions |= EBID_ACT_ADD_NOTE;
	p->plan->id_off = p->note_off + 16;
	p->plan->id_len = p->desc_len;
	memset(p->plan->id, 0, sizeof(p->plan->id));
	if (o->mode == EBID_MODE_INJECT) {
		p->plan->fill = true;
		p->plan->actions |= EBID_ACT_FILL;
	}
	return 0;
}

int ebid_plan_make(struct ebid_plan *plan, const struct ebid_elf *elf,
		   const struct ebid_opts *opts, char *err, size_t errlen)
{
	struct planner *p;
	int ret;

	memset(plan, 0, sizeof(*plan));
	plan->in_size = plan->out_size = elf->file_size;
	plan->alg = opts->alg;
	if (elf->type != ET_EXEC && elf->type != ET_DYN)
		return ebid_err(err, errlen, -EBID_ENOTE,
				"not an executable or shared library (e_type %u)",
				elf->type);
	p = calloc(1, sizeof(*p));
	if (!p)
		return ebid_err(err, errlen, -ENOMEM, "out of memory");
	p->elf = elf;
	p->opts = opts;
	p->plan = plan;
	p->err = err;
	p->errlen = errlen;
	planner_map_page(p);
	ret = planner_copy_headers(p);
	if (ret)
		goto out;

	if (elf->gnu.present)
		ret = plan_existing(p);
	else
		ret = plan_new(p);
	if (ret)
		goto out;
	if (plan->actions & ~(unsigned)EBID_ACT_FILL) {
		ret = planner_emit(p);
		if (ret)
			goto out;
	}
	if (plan->fill && opts->id) {
		memcpy(plan->id, opts->id, opts->id_len);
		plan->hash = false;
	} else if (plan->fill) {
		plan->hash = true;
	}
	plan->out_size = ebid_plan_body_end(plan) + plan->append_len;
	ret = planner_check(p);
out:
	free(p->phdrs);
	free(p->shdrs);
	free(p->shstrtab);
	free(p);
	if (ret)
		ebid_plan_release(plan);
	return ret;
}

enum ebid_outcome ebid_plan_outcome(const struct ebid_plan *plan)
{
	unsigned a = plan->actions;

	if (a & EBID_ACT_ADD_NOTE)
		return (a & EBID_ACT_FILL) ? EBID_OUTCOME_INJECTED
					   : EBID_OUTCOME_RESERVED;
	if (a & EBID_ACT_ZERO)
		return EBID_OUTCOME_RESERVED;
	if (a & EBID_ACT_FILL)
		return EBID_OUTCOME_BACKFILLED;
	return a ? EBID_OUTCOME_REPAIRED : EBID_OUTCOME_UNCHANGED;
}

bool ebid_plan_changes(const struct ebid_plan *plan)
{
	return plan->actions != 0;
}

uint64_t ebid_plan_out_size(const struct ebid_plan *plan)
{
	return plan->out_size;
}

char *ebid_plan_listing(const struct ebid_plan *plan, const char *name)
{
	char words[160], *buf = NULL;
	size_t len = 0, i;
	FILE *f = open_memstream(&buf, &len);

	if (!f)
		return NULL;
	ebid_plan_describe(plan, words, sizeof(words));
	fprintf(f, "%s: %s\n", name, words);
	for (i = 0; i < plan->npatches; i++)
		fprintf(f, "  patch 0x%llx %zu %s\n",
			(unsigned long long)plan->patches[i].off,
			plan->patches[i].len, plan->patches[i].what);
	if (plan->ins_len)
		fprintf(f, "  insert 0x%llx %llu zero bytes (the input from there on follows them)\n",
			(unsigned long long)plan->ins_at,
			(unsigned long long)plan->ins_len);
	if (plan->append_len)
		fprintf(f, "  append 0x%llx %zu bytes at end of file\n",
			(unsigned long long)ebid_plan_body_end(plan),
			plan->append_len);
	if (plan->fill)
		fprintf(f, "  id 0x%llx %zu\n", (unsigned long long)plan->id_off,
			plan->id_len);
	if (fclose(f)) {
		free(buf);
		return NULL;
	}
	return buf;
}

void ebid_plan_describe(const struct ebid_plan *plan, char *buf, size_t len)
{
	static const struct {
		unsigned bit;
		const char *word;
	} words[] = {
		{ EBID_ACT_ADD_NOTE, "add-note" },
		{ EBID_ACT_FILL, "fill" },
		{ EBID_ACT_EXTEND_PT, "extend-pt-note" },
		{ EBID_ACT_ADD_PT, "add-pt-note" },
		{ EBID_ACT_MOVE_SHDRS, "move-section-headers" },
		{ EBID_ACT_SHSTRTAB, "add-section-name" },
		{ EBID_ACT_ZERO, "zero-id" },
		{ EBID_ACT_MOVE_NOTE, "move-note" },
		{ EBID_ACT_INSERT, "insert-gap" },
		{ EBID_ACT_MOVE_HEAD, "move-head" },
		{ EBID_ACT_NEW_LOAD, "new-load" },
	};
	size_t i, used = 0;

	buf[0] = '\0';
	for (i = 0; i < ARRAY_SIZE(words); i++) {
		if (!(plan->actions & words[i].bit))
			continue;
		used += (size_t)snprintf(buf + used, used < len ? len - used : 0,
					 "%s%s", used ? "," : "", words[i].word);
	}
	if (!used)
		snprintf(buf, len, "unchanged");
}
