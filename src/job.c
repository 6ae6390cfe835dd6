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

/*
 * The symbols of first-page notes: the same ones, at the same places, each
 * with its old value, moved by delta when it belongs to section moved
 * (0: none moved).
 */
static bool same_note_syms(const struct ebid_elf *old,
			   const struct ebid_elf *new, size_t moved,
			   uint64_t delta)
{
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
			if (old->note_syms[i].value_off == b->value_off)
				break;
		if (i == old->n_note_syms &&
		    (!moved || b->shndx == moved || b->shndx == new->gnu.shndx))
			return false;
	}
	for (i = 0; i < old->n_note_syms; i++) {
		const struct ebid_symref *a = &old->note_syms[i];

		for (j = 0; j < new->n_note_syms; j++)
			if (new->note_syms[j].value_off == a->value_off)
				break;
		if (j == new->n_note_syms ||
		    new->note_syms[j].shndx != a->shndx ||
		    new->note_syms[j].value !=
			    a->value + (moved && a->shndx == moved ? delta : 0))
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
	if (!same_note_syms(old, new, m, to - from))
		return "a symbol of the moved note did not move with it, or another one changed (or the symbols were not read)";
	return NULL;
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
	} else if (old->note_syms_read && new->note_syms_read &&
		   !same_note_syms(old, new, 0, 0)) {
		return FAIL("a symbol of a first-page note changed");
	}
	/* Section 0 carries the extended counts; those may change. */
	for (i = 1; i < old->shnum; i++)
		if ((!(plan->actions & EBID_ACT_MOVE_NOTE) ||
		     i != plan->moved_shndx) &&
		    !same_shdr(&old->shdrs[i], &new->shdrs[i],
			       i == old->shstrndx))
			return FAIL("section header [%zu] changed", i);
	if (add_ph && (plan->new_pt >= new->phnum ||
		       new->phdrs[plan->new_pt].type != EBID_PT_NOTE))
		return FAIL("program header [%zu] is not the new PT_NOTE",
			    plan->new_pt);
	for (i = 0; i < old->phnum; i++) {
		const struct ebid_phdr *a = &old->phdrs[i];
		const struct ebid_phdr *b =
			&new->phdrs[add_ph && i >= plan->new_pt ? i + 1 : i];

		if (same_phdr(a, b))
			continue;
		if (a->type == EBID_PT_NOTE && b->type == EBID_PT_NOTE &&
		    (plan->actions & EBID_ACT_EXTEND_PT))
			continue;
		if (a->type == EBID_PT_PHDR && b->type == EBID_PT_PHDR &&
		    add_ph)
			continue;
		/* Checked by check_moved(). */
		if ((plan->actions & EBID_ACT_MOVE_NOTE) &&
		    (i == plan->moved_pt || i == plan->grown_load))
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
	if (!ret && (job->plan.actions & EBID_ACT_MOVE_NOTE)) {
		ret = ebid_elf_read_note_syms(&new, &src, why, sizeof(why));
		if (ret)
			ebid_elf_release(&new);
	}
	if (ret)
		return ebid_err(err, errlen, -EBID_EVERIFY,
				"self-check of the output failed: %s", why);
	ret = ebid_check_result(&job->elf, &new, &job->plan, job->id, err,
				errlen);
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
	ret = read_and_plan(job, &src, err, errlen);
	if (ret || job->skipped || job->dry_run ||
	    (!job->plan.actions && !job->output))
		goto out;
	if (in_place) {
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
