/* SPDX-License-Identifier: MIT */
/* Whole-file jobs: read, plan, apply to a temp file, self-check, commit. */
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "commit.h"

static bool same_shdr(const struct ebid_shdr *a, const struct ebid_shdr *b,
		      bool moved_ok)
{
	return a->type == b->type && a->flags == b->flags &&
	       a->addr == b->addr && a->link == b->link &&
	       a->info == b->info && a->addralign == b->addralign &&
	       a->entsize == b->entsize && !strcmp(a->name_str, b->name_str) &&
	       (moved_ok || (a->offset == b->offset && a->size == b->size));
}

static bool same_phdr(const struct ebid_phdr *a, const struct ebid_phdr *b)
{
	return !memcmp(a, b, sizeof(*a));
}

/* How far the plan moved the sections it moved (ebid_plan_moved()). */
static uint64_t moved_delta(const struct ebid_plan *plan)
{
	if (plan->actions & EBID_ACT_MOVE_NOTE)
		return plan->moved_to - plan->moved_from;
	if (plan->actions & EBID_ACT_MOVE_HEAD)
		return plan->head_to - plan->head_from;
	return 0;
}

/*
 * The symbols of first-page notes (and .interp): the same ones, at the
 * same places (moved up by an inserted gap), each with its old value,
 * moved with its section when the plan moved that.
 */
static bool same_note_syms(const struct ebid_elf *old,
			   const struct ebid_elf *new,
			   const struct ebid_plan *plan)
{
	uint64_t delta = moved_delta(plan);
	bool moves = delta != 0;
	size_t i, j;

	if (!old->note_syms_read || !new->note_syms_read ||
	    old->note_syms_over != new->note_syms_over ||
	    old->n_note_syms > new->n_note_syms)
		return false;
	/*
	 * A symbol of another section found only in the output points at
	 * where the notes now are (a section's end marker, as
	 * __rela_iplt_end in a static program, right before the padding):
	 * its value is what it was, as the planner changes no st_value but
	 * those of the moved section's symbols (check_sections_kept).
	 */
	for (j = 0; j < new->n_note_syms; j++) {
		const struct ebid_symref *b = &new->note_syms[j];

		for (i = 0; i < old->n_note_syms; i++)
			if (ebid_plan_outoff(plan, old->note_syms[i].value_off) ==
			    b->value_off)
				break;
		if (i == old->n_note_syms &&
		    (!moves || b->shndx == new->gnu.shndx ||
		     ebid_plan_moved(plan, old, b->shndx)))
			return false;
	}
	for (i = 0; i < old->n_note_syms; i++) {
		const struct ebid_symref *a = &old->note_syms[i];

		for (j = 0; j < new->n_note_syms; j++)
			if (new->note_syms[j].value_off ==
			    ebid_plan_outoff(plan, a->value_off))
				break;
		if (j == new->n_note_syms ||
		    new->note_syms[j].shndx != a->shndx ||
		    new->note_syms[j].value !=
			    a->value + (ebid_plan_sym_moves(plan, old, a)
						? delta
						: 0))
			return false;
	}
	return true;
}

/*
 * EBID_ACT_MOVE_NOTE: the moved note is the same bytes at its new place,
 * its old place is zero, its section and PT_NOTE point at the new place,
 * the PT_NOTE covers it and the new note and nothing else, the first
 * PT_LOAD grew (p_filesz and p_memsz only) over zero padding that stays in
 * the first page and before every other segment, in the file and in
 * memory. Returns NULL or what is wrong.
 */
static const char *check_moved(const struct ebid_elf *old,
			       const struct ebid_elf *new,
			       const struct ebid_plan *plan)
{
	size_t m = plan->moved_shndx, pi = plan->moved_pt,
	       li = plan->grown_load, i;
	uint64_t from = plan->moved_from, to = plan->moved_to,
		 size = plan->moved_size, end;
	const struct ebid_shdr *os, *ns;
	const struct ebid_phdr *ol, *nl, *op, *np;
	const struct ebid_note *g = &new->gnu;

	if (!m || m >= old->shnum || pi >= old->phnum || li >= old->phnum ||
	    pi == li || new->phnum != old->phnum)
		return "the moved note's headers are not the planned ones";
	os = &old->shdrs[m];
	ns = &new->shdrs[m];
	ol = &old->phdrs[li];
	nl = &new->phdrs[li];
	op = &old->phdrs[pi];
	np = &new->phdrs[pi];
	end = to + size + g->note_size;
	if (os->type != 7 /* SHT_NOTE */ || os->offset != from ||
	    os->size != size || ns->offset != to || ns->size != size ||
	    ns->addr != os->addr + (to - from) || ns->type != os->type ||
	    ns->flags != os->flags || ns->addralign != os->addralign ||
	    ns->entsize != os->entsize || ns->link != os->link ||
	    ns->info != os->info || strcmp(ns->name_str, os->name_str))
		return "the moved note's section header is not the planned one";
	if (from + size > old->head_len || end > new->head_len ||
	    end > old->head_len || end > EBID_PAGE ||
	    memcmp(old->head + from, new->head + to, (size_t)size))
		return "the moved note's bytes are not the same at its new place";
	for (i = from; i < from + size; i++)
		if (new->head[i])
			return "the moved note's old place is not cleared";
	if (g->shndx != old->shnum || g->note_off != to + size)
		return "the new note is not right after the moved one";
	if (op->type != 4 || np->type != 4 || op->offset != from ||
	    op->filesz != size || op->memsz != size || np->offset != to ||
	    np->filesz != size + g->note_size || np->memsz != np->filesz ||
	    np->vaddr != ns->addr || np->paddr != op->paddr + (to - from) ||
	    np->flags != op->flags || np->align != op->align)
		return "the moved note's PT_NOTE does not cover exactly it and the new note";
	if (ol->type != 1 || nl->type != 1 || ol->offset || nl->offset ||
	    nl->vaddr != ol->vaddr || nl->paddr != ol->paddr ||
	    nl->flags != ol->flags || nl->align != ol->align ||
	    ol->filesz != ol->memsz || nl->filesz != end ||
	    nl->memsz != end || ol->filesz > to)
		return "the first PT_LOAD did not grow over exactly the moved and the new note";
	for (i = ol->filesz; i < end; i++)
		if (old->head[i])
			return "the first PT_LOAD grew over bytes that were not zero";
	for (i = 0; i < old->phnum; i++) {
		const struct ebid_phdr *o = &old->phdrs[i];

		if (i == li)
			continue;
		if (o->type == 1 &&
		    (o->offset < end ||
		     (o->vaddr < nl->vaddr + end &&
		      o->vaddr + o->memsz > ol->vaddr + ol->filesz)))
			return "the grown first PT_LOAD reaches another segment";
		if (i != pi && o->type != 1 && o->offset < end &&
		    o->offset + o->filesz > ol->filesz)
			return "the grown bytes were under another program header";
		if (i != pi && o->type != 1 && o->offset < from + size &&
		    o->offset + o->filesz > from)
			return "the moved note was under another program header (PT_GNU_PROPERTY?)";
	}
	if (!same_note_syms(old, new, plan))
		return "a symbol of the moved note did not move with it, or another one changed (or the symbols were not read)";
	return NULL;
}

/* Old section i as the plan must have left it (offsets, moved sections). */
static void expect_shdr(const struct ebid_elf *old,
			const struct ebid_plan *plan, size_t i,
			struct ebid_shdr *e)
{
	*e = old->shdrs[i];
	e->offset = ebid_plan_outoff(plan, e->offset);
	if ((plan->actions & EBID_ACT_MOVE_HEAD) &&
	    ebid_plan_moved(plan, old, i)) {
		e->offset += moved_delta(plan);
		e->addr += moved_delta(plan);
	}
}

/* Likewise old program header i (but the grown PT_LOAD and PT_PHDR). */
static void expect_phdr(const struct ebid_elf *old,
			const struct ebid_plan *plan, size_t i,
			struct ebid_phdr *e)
{
	*e = old->phdrs[i];
	e->offset = ebid_plan_outoff(plan, e->offset);
	if ((plan->actions & EBID_ACT_MOVE_HEAD) && i != plan->grown_load &&
	    e->filesz && !ebid_phdr_by_address(e) &&
	    e->offset >= plan->head_from &&
	    e->offset < plan->head_from + plan->head_size) {
		e->offset += moved_delta(plan);
		e->vaddr += moved_delta(plan);
		e->paddr += moved_delta(plan);
	}
}


/*
 * EBID_ACT_MOVE_HEAD: the first PT_LOAD grew (p_filesz and p_memsz only)
 * over the moved run and at most the new note, over bytes that were zero
 * (or inserted) and that no other segment reaches in the file or in
 * memory; the run's old place is zero but for the new program header and
 * note; the new note lies in the first page, in the first PT_LOAD, and
 * its own PT_NOTE covers exactly it; the bytes of the run that lie in the
 * first page are the same at their new place (ebid_check_moved_bytes()
 * reads the rest); the run's symbols moved with it. Returns NULL or what
 * is wrong.
 */
static const char *check_moved_head(const struct ebid_elf *old,
				    const struct ebid_elf *new,
				    const struct ebid_plan *plan)
{
	size_t li = plan->grown_load, nli, ent = old->elfclass == 2 ? 56 : 32,
	       i;
	uint64_t from = plan->head_from, to = plan->head_to,
		 size = plan->head_size, end, j;
	const struct ebid_phdr *ol, *nl, *np;
	const struct ebid_note *g = &new->gnu;

	if (li >= old->phnum || !(plan->actions & EBID_ACT_ADD_PT) ||
	    new->phnum != old->phnum + 1 || plan->new_pt >= new->phnum)
		return "the moved run's headers are not the planned ones";
	nli = li >= plan->new_pt ? li + 1 : li;
	ol = &old->phdrs[li];
	nl = &new->phdrs[nli];
	np = &new->phdrs[plan->new_pt];
	end = nl->filesz;
	if (from != old->phoff + old->phnum * ent || !size ||
	    from + size > ol->filesz || from + size > old->head_len ||
	    to < ol->filesz)
		return "the moved run is not the bytes after the program headers";
	if (ol->type != 1 || nl->type != 1 || ol->offset || nl->offset ||
	    nl->vaddr != ol->vaddr || nl->paddr != ol->paddr ||
	    nl->flags != ol->flags || nl->align != ol->align ||
	    ol->filesz != ol->memsz || nl->memsz != end ||
	    end != (g->note_off >= to + size
			    ? ebid_align_up(to + size, 4) + g->note_size
			    : to + size) ||
	    (g->note_off >= to + size &&
	     g->note_off != ebid_align_up(to + size, 4)))
		return "the first PT_LOAD did not grow over exactly the moved run (and the new note right behind it)";
	for (j = ol->filesz; j < end; j++)
		if ((!plan->ins_len || j < plan->ins_at) && !ebid_elf_byte_zero(old, j))
			return "the first PT_LOAD grew over bytes that were not zero";
	for (i = 0; i < new->phnum; i++) {
		const struct ebid_phdr *o = &new->phdrs[i];

		if (i == nli || o->type != 1)
			continue;
		if (o->offset < end || (o->vaddr < nl->vaddr + end &&
					o->vaddr + o->memsz >
						ol->vaddr + ol->filesz))
			return "the grown first PT_LOAD reaches another segment";
	}
	if (!g->present || g->shndx != old->shnum ||
	    g->note_off + g->note_size > EBID_PAGE ||
	    g->note_off + g->note_size > end || np->type != EBID_PT_NOTE ||
	    np->offset != g->note_off || np->filesz != g->note_size ||
	    np->memsz != np->filesz || np->vaddr != nl->vaddr + np->offset)
		return "the new note is not in the first page under a PT_NOTE of its own";
	for (j = from; j < from + size; j++) {
		if (j >= from && j < from + ent)
			continue; /* the new program header */
		if (j >= g->note_off && j < g->note_off + g->note_size)
			continue;
		if (new->head[j])
			return "the moved run's old place is not cleared";
	}
	for (j = 0; j < size && to + j < new->head_len; j++)
		if (new->head[to + j] != old->head[from + j])
			return "the moved run's bytes are not the same at its new place";
	if (!same_note_syms(old, new, plan))
		return "a symbol of a moved section did not move with it, or another one changed (or the symbols were not read)";
	/* The dynamic table: the moved tables' entries moved, no other one. */
	if (old->dyn_bad || new->dyn_bad || old->ndyn != new->ndyn)
		return "the dynamic table is not the input's";
	for (i = 0; i < old->ndyn; i++) {
		const struct ebid_dynref *a = &old->dyn[i], *b = &new->dyn[i];
		bool moved = ebid_dyn_is_addr(a->tag) &&
			     a->val >= ol->vaddr + from &&
			     a->val - (ol->vaddr + from) < size;

		if (b->tag != a->tag ||
		    b->val_off != ebid_plan_outoff(plan, a->val_off) ||
		    b->val != a->val + (moved ? to - from : 0))
			return "a dynamic entry did not move with its table, or another one changed";
	}
	return NULL;
}

int ebid_check_moved_bytes(const struct ebid_elf *old,
			   const struct ebid_plan *plan,
			   const struct ebid_src *in, const struct ebid_src *out,
			   const unsigned char *id, char *err, size_t errlen)
{
	unsigned char a[4096], b[4096];
	uint64_t pos;
	int ret;

#define FAIL(...) ebid_err(err, errlen, -EBID_EVERIFY, \
			   "self-check of the output failed: " __VA_ARGS__)
	if (!(plan->actions & EBID_ACT_MOVE_HEAD))
		return 0;
	/* The run, byte for byte, at its new place. */
	for (pos = 0; pos < plan->head_size; pos += sizeof(b)) {
		size_t n = plan->head_size - pos < sizeof(b)
				   ? (size_t)(plan->head_size - pos)
				   : sizeof(b);

		if (plan->head_from + pos + n > old->head_len)
			return FAIL("the moved run is not in the first page");
		ret = ebid_src_read(out, plan->head_to + pos, b, n);
		if (ret)
			return FAIL("cannot read the moved run: %s",
				    ebid_strerror(ret));
		if (memcmp(b, old->head + plan->head_from + pos, n))
			return FAIL("the moved run's bytes are not the same at its new place");
	}
	/*
	 * A file with an inserted gap: every byte is the input's where the
	 * plan says (the copy moved the rest by the gap), the id aside.
	 */
	if (!plan->ins_len || !in)
		return 0;
	for (pos = 0; pos < plan->out_size; pos += sizeof(a)) {
		size_t n = plan->out_size - pos < sizeof(a)
				   ? (size_t)(plan->out_size - pos)
				   : sizeof(a), k;

		ret = ebid_read_out(in, plan, pos, a, n);
		if (!ret)
			ret = ebid_src_read(out, pos, b, n);
		if (ret)
			return FAIL("cannot read back: %s", ebid_strerror(ret));
		for (k = 0; k < n; k++) {
			uint64_t at = pos + k;

			if (plan->fill && at >= plan->id_off &&
			    at < plan->id_off + plan->id_len) {
				if (b[k] != id[at - plan->id_off])
					return FAIL("the id at 0x%llx is not the one written",
						    (unsigned long long)at);
				continue;
			}
			if (a[k] != b[k])
				return FAIL("byte 0x%llx differs from the planned output",
					    (unsigned long long)at);
		}
	}
#undef FAIL
	return 0;
}

int ebid_check_result(const struct ebid_elf *old, const struct ebid_elf *new,
		      const struct ebid_plan *plan, const unsigned char *id,
		      char *err, size_t errlen)
{
	const struct ebid_note *g = &new->gnu;
	struct ebid_note_view view;
	size_t add_sh = (plan->actions & EBID_ACT_ADD_NOTE) ? 1 : 0;
	size_t add_ph = (plan->actions & EBID_ACT_ADD_PT) ? 1 : 0;
	size_t i;

#define FAIL(...) ebid_err(err, errlen, -EBID_EVERIFY, \
			   "self-check of the output failed: " __VA_ARGS__)
	if (new->file_size != plan->out_size)
		return FAIL("size %llu, planned %llu",
			    (unsigned long long)new->file_size,
			    (unsigned long long)plan->out_size);
	ebid_note_view(new, &view);
	if (!view.present)
		return FAIL("no GNU build-id note");
	if (!view.by_section)
		return FAIL("%s", view.section_why);
	if (!view.by_kernel)
		return FAIL("the kernel's reader does not find the note: %s",
			    view.kernel_why);
	if (g->desc_off != plan->id_off || g->desc_len != plan->id_len ||
	    memcmp(g->desc, id, plan->id_len))
		return FAIL("the id in the file is not the one written");
	if (new->shnum != old->shnum + add_sh ||
	    new->phnum != old->phnum + add_ph)
		return FAIL("header counts are not the planned ones");
	if (plan->actions & EBID_ACT_MOVE_NOTE) {
		const char *why = check_moved(old, new, plan);

		if (why)
			return FAIL("%s", why);
	} else if (plan->actions & EBID_ACT_MOVE_HEAD) {
		const char *why = check_moved_head(old, new, plan);

		if (why)
			return FAIL("%s", why);
	} else if (old->note_syms_read && new->note_syms_read &&
		   !same_note_syms(old, new, plan)) {
		return FAIL("a symbol of a first-page note changed");
	}
	/* Section 0 carries the extended counts; those may change. */
	for (i = 1; i < old->shnum; i++) {
		struct ebid_shdr e;

		if ((plan->actions & EBID_ACT_MOVE_NOTE) &&
		    i == plan->moved_shndx)
			continue;
		expect_shdr(old, plan, i, &e);
		if (!same_shdr(&e, &new->shdrs[i], i == old->shstrndx))
			return FAIL("section header [%zu] changed", i);
	}
	if (add_ph && (plan->new_pt >= new->phnum ||
		       new->phdrs[plan->new_pt].type != EBID_PT_NOTE))
		return FAIL("program header [%zu] is not the new PT_NOTE",
			    plan->new_pt);
	for (i = 0; i < old->phnum; i++) {
		struct ebid_phdr e;
		const struct ebid_phdr *a = &e;
		const struct ebid_phdr *b =
			&new->phdrs[add_ph && i >= plan->new_pt ? i + 1 : i];

		expect_phdr(old, plan, i, &e);
		if (same_phdr(a, b))
			continue;
		if (a->type == EBID_PT_NOTE && b->type == EBID_PT_NOTE &&
		    (plan->actions & EBID_ACT_EXTEND_PT))
			continue;
		if (a->type == EBID_PT_PHDR && b->type == EBID_PT_PHDR &&
		    add_ph)
			continue;
		/* Checked by check_moved() and check_moved_head(). */
		if ((plan->actions & EBID_ACT_MOVE_NOTE) &&
		    (i == plan->moved_pt || i == plan->grown_load))
			continue;
		if ((plan->actions & EBID_ACT_MOVE_HEAD) &&
		    i == plan->grown_load)
			continue;
		return FAIL("program header [%zu] changed", i);
	}
#undef FAIL
	return 0;
}

void ebid_job_release(struct ebid_job *job)
{
	if (!job)
		return;
	ebid_plan_release(&job->plan);
	ebid_elf_release(&job->elf);
}

/* Reads the freshly written temp file back and checks it. */
static int self_check(struct ebid_job *job, int fd, char *err, size_t errlen)
{
	struct ebid_src src = { .fd = fd, .size = job->plan.out_size };
	struct ebid_elf new;
	char why[EBID_ERRLEN];
	int ret;

	ret = ebid_elf_read(&new, &src, why, sizeof(why));
	if (!ret && (job->plan.actions &
		     (EBID_ACT_MOVE_NOTE | EBID_ACT_MOVE_HEAD))) {
		ret = ebid_elf_read_note_syms(&new, &src, why, sizeof(why));
		if (ret)
			ebid_elf_release(&new);
	}
	if (ret)
		return ebid_err(err, errlen, -EBID_EVERIFY,
				"self-check of the output failed: %s", why);
	ret = ebid_check_result(&job->elf, &new, &job->plan, job->id, err,
				errlen);
	if (!ret)
		ret = ebid_check_moved_bytes(&job->elf, &job->plan, job->src,
					     &src, job->id, err, errlen);
	ebid_elf_release(&new);
	return ret;
}

static int self_check_cb(void *job, int fd, char *err, size_t errlen)
{
	return self_check(job, fd, err, errlen);
}

/*
 * A killed --in-place run left the bytes half edited: undo them before
 * anything reads them, whatever this run's mode. The caller holds the
 * file's exclusive lock. Returns 0, or a negative code.
 */
static int undo_interrupted(struct ebid_job *job, int fd, bool writable,
			    struct stat *st, char *err, size_t errlen)
{
	struct stat wst;
	int wfd = fd, ret;

	if (!writable && (job->dry_run || job->output))
		return ebid_err(err, errlen, -EBID_ECHANGED,
				"an interrupted --in-place run left its journal beside it; run inject on the file itself first to undo it");
	if (!writable) {
		wfd = openat(job->at->dirfd, job->at->name,
			     O_RDWR | O_NOFOLLOW | O_CLOEXEC | O_NOCTTY);
		if (wfd < 0)
			return ebid_err(err, errlen, -errno,
					"cannot open to undo an interrupted --in-place run: %s",
					strerror(errno));
		if (fstat(wfd, &wst) != 0 || wst.st_dev != st->st_dev ||
		    wst.st_ino != st->st_ino) {
			close(wfd);
			return ebid_err(err, errlen, -EBID_ECHANGED,
					"file changed while it was being processed; left as it is");
		}
	}
	ret = ebid_inplace_recover(job->at, wfd, st, err, errlen);
	if (wfd != fd)
		close(wfd);
	if (ret > 0 && fstat(fd, st) != 0)
		return ebid_err(err, errlen, -errno, "cannot stat: %s",
				strerror(errno));
	return ret < 0 ? ret : 0;
}

/*
 * Opens the input under its lock, held from the first read to the commit
 * so that runs on one file act one after another, and makes sure it is
 * one the job may read: a regular file, the inode the walk found (or one
 * without other hard links), no interrupted --in-place run left in it.
 * The descriptor, or a negative code.
 */
static int open_input(struct ebid_job *job, bool in_place, struct stat *st,
		      char *err, size_t errlen)
{
	/* Only a run that writes the file itself excludes the others. */
	bool exclusive = !job->dry_run && !job->output;
	int fd, ret;

	fd = ebid_open_locked(job->at, in_place ? O_RDWR : O_RDONLY,
			      exclusive, job->lock_timeout_ms, st, err, errlen);
	if (fd == -ETXTBSY)
		return ebid_err(err, errlen, fd,
				"cannot open for in-place writing: file is being executed (without --in-place it is replaced by rename instead)");
	if (fd < 0 && in_place && !strncmp(err, "cannot open: ", 13))
		return ebid_err(err, errlen, fd,
				"cannot open for in-place writing: %s",
				strerror(-fd));
	if (fd < 0)
		return fd;
	if (!S_ISREG(st->st_mode))
		ret = ebid_err(err, errlen, -EBID_ENOTELF, "%s",
			       S_ISDIR(st->st_mode)
				       ? "is a directory (use -r to walk it)"
				       : "not a regular file");
	/*
	 * Replaced since the walk by a hard link of a file elsewhere: the
	 * links outside are not ours to change.
	 */
	else if (job->walk_ino && st->st_nlink > 1 &&
		 ((uint64_t)st->st_ino != job->walk_ino ||
		  (uint64_t)st->st_dev != job->walk_dev))
		ret = ebid_err(err, errlen, -EBID_ECHANGED,
			       "replaced during the run by a file with %ju hard links; left as it is",
			       (uintmax_t)st->st_nlink);
	else if (ebid_inplace_pending(job->at))
		ret = undo_interrupted(job, fd, in_place, st, err, errlen);
	else
		ret = 0;
	if (ret) {
		close(fd);
		return ret;
	}
	return fd;
}

/*
 * The default write mode (and -o): a temporary beside the target, the
 * self-check, then the rename over it.
 */
static int write_replace(struct ebid_job *job, const struct ebid_src *src,
			 const struct stat *st, char *err, size_t errlen)
{
	struct ebid_commit c;
	struct ebid_at out;
	int ret;

	ebid_commit_init(&c);
	ebid_at_init(&out);
	if (!job->output && st->st_nlink > 1)
		return ebid_err(err, errlen, -EMLINK,
				"file has %ju hard links; replacing it would split them (use --in-place, or -o)",
				(uintmax_t)st->st_nlink);
	/*
	 * The directory decides whether a rename may replace the file; the
	 * file's own mode says whether its owner meant it to be written.
	 * Honour the second too, as cp and sed -i do.
	 */
	if (!job->output && faccessat(job->at->dirfd, job->at->name, W_OK,
				      AT_EACCESS) != 0)
		return ebid_err(err, errlen, -errno,
				"not writable (mode %04o): %s; nothing changed",
				(unsigned)(st->st_mode & 07777),
				strerror(errno));
	/* -o: a symlink named as OUT is replaced, not written through. */
	ret = job->output ? ebid_at_named(&out, job->output, false, err, errlen)
			  : 0;
	if (!ret)
		ret = ebid_commit_begin(&c,
					job->output ? out.dirfd : job->at->dirfd,
					job->output ? out.name : job->at->name,
					job->temps, job->lock_timeout_ms, err,
					errlen);
	if (!ret)
		ret = ebid_apply_fd(src, &job->plan, c.fd, job->id, err,
				    errlen);
	if (!ret)
		ret = self_check(job, c.fd, err, errlen);
	if (!ret)
		ret = ebid_commit_finish(&c, src->fd, st, !job->output,
					 job->preserve_times, err, errlen);
	ebid_commit_abort(&c);
	ebid_at_release(&out);
	return ret;
}

/* Reads and plans the input: 0 with job->skipped set for a non-program. */
static int read_and_plan(struct ebid_job *job, const struct ebid_src *src,
			 char *err, size_t errlen)
{
	int ret = ebid_elf_read(&job->elf, src, err, errlen);

	if (ret == -EBID_ENOTELF && job->skip_non_programs) {
		job->skipped = "not an ELF file";
		return 0;
	}
	if (ret)
		return ret;
	if (job->skip_non_programs &&
	    !ebid_elf_is_program(&job->elf, &job->skipped))
		return 0;
	ret = ebid_plan_make(&job->plan, &job->elf, &job->opts, err,
			     errlen);
	if (ret)
		return ret;
	job->id_len = job->plan.id_len;
	memcpy(job->id, job->plan.id, EBID_MAX_ID);
	return 0;
}

int ebid_job_run(struct ebid_job *job, char *err, size_t errlen)
{
	struct ebid_src src = { .fd = -1 };
	struct stat st;
	bool in_place = job->in_place && !job->dry_run && !job->output;
	int ret;

	memset(&job->plan, 0, sizeof(job->plan));
	memset(&job->elf, 0, sizeof(job->elf));
	job->changed = false;
	job->skipped = NULL;
	job->id_len = 0;

	src.fd = open_input(job, in_place, &st, err, errlen);
	if (src.fd < 0)
		return src.fd;
	src.size = (uint64_t)st.st_size;
	job->src = &src;
	ret = read_and_plan(job, &src, err, errlen);
	if (ret || job->skipped || job->dry_run ||
	    (!job->plan.actions && !job->output))
		goto out;
	if (in_place && job->plan.ins_len) {
		/* The file's bytes would move: no journal can undo that. */
		ret = ebid_err(err, errlen, -EBID_ENOROOM,
			       "the plan inserts %llu bytes at 0x%llx (move-head), which --in-place cannot do; run without --in-place (the file is replaced by rename)",
			       (unsigned long long)job->plan.ins_len,
			       (unsigned long long)job->plan.ins_at);
	} else if (in_place) {
		ret = ebid_apply_hash(&src, &job->plan, job->id, err, errlen);
		if (!ret)
			ret = ebid_inplace_write(job->at, src.fd, &st,
						 &job->plan, job->id,
						 job->preserve_times,
						 self_check_cb, job, err,
						 errlen);
	} else {
		ret = write_replace(job, &src, &st, err, errlen);
	}
	job->changed = !ret;
out:
	job->src = NULL;
	close(src.fd);
	return ret;
}

int ebid_content_id(int fd, const struct ebid_elf *elf,
		    enum ebid_hash_alg alg, unsigned char id[EBID_MAX_ID],
		    char *err, size_t errlen)
{
	struct ebid_src src = { .fd = fd };
	struct stat st;

	if (fstat(fd, &st) != 0)
		return ebid_err(err, errlen, -errno, "cannot stat: %s",
				strerror(errno));
	src.size = (uint64_t)st.st_size;
	if (src.size != elf->file_size)
		return ebid_err(err, errlen, -EBID_ECHANGED,
				"file changed while it was being read");
	return ebid_hash_src(&src, elf->gnu.desc_off, elf->gnu.desc_len, alg,
			     id, err, errlen);
}
