/* SPDX-License-Identifier: MIT */
/*
 * readers: the GNU build-id as consumers we cannot run here find it, each
 * rule written from the consumer's source (tests/t0800-consumers.sh, issue 12;
 * docs/consumers.md names the file and function of each). libc only, no
 * libelf: a reader that shared our ELF library would share its mistakes.
 *
 * Usage: readers MODE FILE
 * Modes:
 *   pprof          google/pprof internal/elfexec GetBuildID: every PT_NOTE
 *                  (notes aligned to p_align), then every SHT_NOTE section
 *                  (sh_addralign); the first container that holds a GNU
 *                  build-id note wins; two in one container is an error
 *   first-ptnote   the first PT_NOTE only, the last GNU build-id note in it
 *                  (Parca's agent: its pinned ebpf-profiler fork, findProg)
 *   sections-first elfutils libdwfl find_elf_build_id: every SHT_NOTE section
 *                  in index order, the first GNU build-id note wins; PT_NOTE
 *                  (p_align 8: 8-byte note alignment) only without sections
 *   runtime-pprof  Go runtime/pprof elfBuildID: the e_shnum section headers,
 *                  SHT_NOTE ones, 4-byte alignment, descriptor <= 256 bytes;
 *                  no program header is read
 *   otel           OpenTelemetry eBPF profiler pfelf parseNotes (ELF64
 *                  little-endian only): SHT_NOTE sections named
 *                  .note.gnu.build-id, .note.go.buildid or .notes, every note
 *                  (the last GNU build-id wins); then, unless both a GNU and a
 *                  Go build-id were found, every PT_NOTE, whose GNU build-id
 *                  notes overwrite it in turn
 * Prints the id in lower-case hex and a newline on stdout.
 * Exit status:
 *   0   an id was found and printed
 *   1   the consumer finds no GNU build-id (nothing printed)
 *   2   the consumer reports an error instead of an id (message on stderr)
 *   3   the consumer cannot read this file at all: not ELF, or a class or
 *       byte order it does not take (message on stderr)
 *   64  usage error; 66  FILE cannot be read
 * Every offset and size read from FILE is checked against the file's size
 * before use: any input gives one of these exit codes, never a crash.
 */
#include <errno.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

enum {
	R_FOUND = 0,
	R_NONE = 1,
	R_ERROR = 2,
	R_UNSUPPORTED = 3,
	R_USAGE = 64,
	R_NOINPUT = 66,
};

#define PT_NOTE_ 4
#define SHT_NOTE_ 7
#define NT_GNU_BUILD_ID_ 3

/* The whole file, and how to read its headers. */
struct elf {
	const uint8_t *b;
	uint64_t size;
	int is64;
	int big;
	uint64_t phoff, shoff;
	uint32_t phnum, shnum; /* shnum: extended numbering resolved */
	uint32_t e_shnum;      /* the header's own field */
	uint32_t phentsize, shentsize, shstrndx;
};

struct phdr {
	uint32_t type;
	uint64_t off, filesz, align;
};

struct shdr {
	uint32_t name, type;
	uint64_t off, size, align;
};

/* The id found, as bytes of the file (owned by struct elf's buffer). */
struct found {
	const uint8_t *desc;
	uint64_t len;
};

static const char *prog_mode = "?";
static const char *prog_file = "?";

static int fail(int code, const char *what)
{
	fprintf(stderr, "readers: %s: '%s': %s\n", prog_mode, prog_file, what);
	return code;
}

/* in_file: [off, off + len) lies within the file, without overflow. */
static int in_file(const struct elf *e, uint64_t off, uint64_t len)
{
	return off <= e->size && len <= e->size - off;
}

static uint64_t get(const struct elf *e, uint64_t off, int n)
{
	uint64_t v = 0;
	int i;

	for (i = 0; i < n; i++) {
		int k = e->big ? i : n - 1 - i;
		v = (v << 8) | e->b[off + k];
	}
	return v;
}

/* An N-byte field at OFF; the caller has checked the range. */
#define U16(e, off) ((uint32_t)get((e), (off), 2))
#define U32(e, off) ((uint32_t)get((e), (off), 4))
#define UW(e, off) (get((e), (off), (e)->is64 ? 8 : 4))

static int elf_open(struct elf *e)
{
	const uint8_t *b = e->b;

	if (e->size < 52 || memcmp(b, "\177ELF", 4) != 0)
		return fail(R_UNSUPPORTED, "not an ELF file");
	if (b[4] != 1 && b[4] != 2)
		return fail(R_UNSUPPORTED, "unknown ELF class");
	if (b[5] != 1 && b[5] != 2)
		return fail(R_UNSUPPORTED, "unknown ELF byte order");
	e->is64 = b[4] == 2;
	e->big = b[5] == 2;
	if (e->is64 && e->size < 64)
		return fail(R_UNSUPPORTED, "truncated ELF header");
	if (e->is64) {
		e->phoff = get(e, 32, 8);
		e->shoff = get(e, 40, 8);
		e->phentsize = U16(e, 54);
		e->phnum = U16(e, 56);
		e->shentsize = U16(e, 58);
		e->e_shnum = U16(e, 60);
		e->shstrndx = U16(e, 62);
	} else {
		e->phoff = get(e, 28, 4);
		e->shoff = get(e, 32, 4);
		e->phentsize = U16(e, 42);
		e->phnum = U16(e, 44);
		e->shentsize = U16(e, 46);
		e->e_shnum = U16(e, 48);
		e->shstrndx = U16(e, 50);
	}
	e->shnum = e->e_shnum;
	/* Extended numbering: the counts live in section 0. */
	if (e->shoff != 0 && in_file(e, e->shoff, e->is64 ? 64 : 40)) {
		if (e->e_shnum == 0)
			e->shnum =
			    (uint32_t)(e->is64 ? get(e, e->shoff + 32, 8)
					       : get(e, e->shoff + 20, 4));
		if (e->shstrndx == 0xffff)
			e->shstrndx = U32(e, e->shoff + (e->is64 ? 40 : 24));
		if (e->phnum == 0xffff)
			e->phnum = U32(e, e->shoff + (e->is64 ? 44 : 28));
	} else if (e->shoff == 0) {
		e->shnum = 0;
	}
	return 0;
}

/* Program header I, or -1 when it lies outside the file. */
static int get_phdr(const struct elf *e, uint32_t i, struct phdr *p)
{
	uint64_t ent = e->is64 ? 56 : 32, off;

	if (e->phentsize < ent || e->phoff > e->size)
		return -1;
	if ((uint64_t)i > (e->size - e->phoff) / e->phentsize)
		return -1;
	off = e->phoff + (uint64_t)i * e->phentsize;
	if (!in_file(e, off, ent))
		return -1;
	p->type = U32(e, off);
	if (e->is64) {
		p->off = get(e, off + 8, 8);
		p->filesz = get(e, off + 32, 8);
		p->align = get(e, off + 48, 8);
	} else {
		p->off = get(e, off + 4, 4);
		p->filesz = get(e, off + 16, 4);
		p->align = get(e, off + 28, 4);
	}
	return 0;
}

/* Section header I, or -1 when it lies outside the file. */
static int get_shdr(const struct elf *e, uint32_t i, struct shdr *s)
{
	uint64_t ent = e->is64 ? 64 : 40, off;

	if (e->shentsize < ent || e->shoff > e->size)
		return -1;
	if ((uint64_t)i > (e->size - e->shoff) / e->shentsize)
		return -1;
	off = e->shoff + (uint64_t)i * e->shentsize;
	if (!in_file(e, off, ent))
		return -1;
	s->name = U32(e, off);
	s->type = U32(e, off + 4);
	if (e->is64) {
		s->off = get(e, off + 24, 8);
		s->size = get(e, off + 32, 8);
		s->align = get(e, off + 48, 8);
	} else {
		s->off = get(e, off + 16, 4);
		s->size = get(e, off + 20, 4);
		s->align = get(e, off + 32, 4);
	}
	return 0;
}

/* The name of section S, or NULL when it cannot be read. */
static const char *section_name(const struct elf *e, const struct shdr *s)
{
	struct shdr str;
	uint64_t i;

	if (e->shstrndx >= e->shnum || get_shdr(e, e->shstrndx, &str) != 0)
		return NULL;
	if (!in_file(e, str.off, str.size) || s->name >= str.size)
		return NULL;
	for (i = s->name; i < str.size; i++)
		if (e->b[str.off + i] == 0)
			return (const char *)e->b + str.off + s->name;
	return NULL;
}

static int is_gnu_build_id(const struct elf *e, uint64_t note, uint32_t namesz,
			   uint32_t type)
{
	return type == NT_GNU_BUILD_ID_ && namesz == 4 &&
	       memcmp(e->b + note + 12, "GNU", 4) == 0;
}

static uint64_t align_up(uint64_t v, uint64_t a)
{
	return (v + (a - 1)) & ~(a - 1);
}

/* Go's padding(size) for any alignment: none when it would be negative. */
static uint64_t go_pad(uint64_t size, uint64_t align)
{
	uint64_t r;

	if (align <= 1)
		return 0;
	r = align_up(size, align);
	return r >= size ? r - size : 0;
}

/*
 * google/pprof parseNotes over [off, off + size) with alignment ALIGN
 * (p_align or sh_addralign, taken as is), then findBuildID: sets *f to the
 * one GNU build-id note, or returns R_ERROR (a malformed note, or two).
 * Go's padding() with an alignment of 0 or 1 pads nothing.
 */
static int pprof_container(const struct elf *e, uint64_t off, uint64_t size,
			   uint64_t align, struct found *f)
{
	uint64_t pos = 0, end, namesz, descsz, pad, nul;
	uint32_t type;
	int n = 0;

	if (!in_file(e, off, size))
		return fail(R_ERROR, "a note container lies outside the file");
	end = size;
	f->desc = NULL;
	while (pos < end) {
		uint64_t note = off + pos;
		if (end - pos < 12)
			return fail(R_ERROR, "a note header is cut short");
		namesz = U32(e, note);
		descsz = U32(e, note + 4);
		type = U32(e, note + 8);
		pos += 12;
		if (namesz > (1u << 20))
			return fail(R_ERROR, "note name too long");
		if (namesz > 0) {
			/* Read up to and with the NUL, whatever namesz says. */
			for (nul = pos; nul < end; nul++)
				if (e->b[off + nul] == 0)
					break;
			if (nul == end)
				return fail(R_ERROR, "missing note name");
			namesz = nul + 1 - pos;
			pos = nul + 1;
		}
		pad = go_pad(12 + namesz, align);
		if (pad > end - pos)
			return fail(R_ERROR, "missing padding after note name");
		pos += pad;
		if (descsz > (1u << 20))
			return fail(R_ERROR, "note desc too long");
		if (descsz > end - pos)
			return fail(R_ERROR, "missing desc");
		if (type == NT_GNU_BUILD_ID_ && namesz == 4 &&
		    memcmp(e->b + note + 12, "GNU", 4) == 0) {
			if (++n > 1)
				return fail(R_ERROR,
					    "multiple build ids found, don't "
					    "know which to use");
			f->desc = e->b + off + pos;
			f->len = descsz;
		}
		pos += descsz;
		pad = go_pad(descsz, align);
		pos += pad < end - pos ? pad : end - pos;
	}
	return 0;
}

static int mode_pprof(const struct elf *e, struct found *f)
{
	struct phdr p;
	struct shdr s;
	uint32_t i;
	int rc;

	for (i = 0; i < e->phnum; i++) {
		if (get_phdr(e, i, &p) != 0)
			return fail(R_ERROR,
				    "program headers outside the file");
		if (p.type != PT_NOTE_)
			continue;
		rc = pprof_container(e, p.off, p.filesz, p.align, f);
		if (rc != 0 || f->desc != NULL)
			return rc;
	}
	for (i = 0; i < e->shnum; i++) {
		if (get_shdr(e, i, &s) != 0)
			return fail(R_ERROR,
				    "section headers outside the file");
		if (s.type != SHT_NOTE_)
			continue;
		rc = pprof_container(e, s.off, s.size, s.align, f);
		if (rc != 0 || f->desc != NULL)
			return rc;
	}
	return 0;
}

/*
 * OpenTelemetry's visitNotes (and the Parca fork's): 4-byte alignment; a
 * container ends cleanly only at a note boundary; a note that runs past the
 * end is an error. LAST: keep the last GNU build-id (the visitor caches every
 * one). Sets *have_go when a Go build-id note (name "Go", type 4) is seen.
 */
static int otel_container(const struct elf *e, uint64_t off, uint64_t size,
			  struct found *f, int *have_go)
{
	uint64_t pos = 0, namesz, descsz, aname, adesc;
	uint32_t type;

	if (!in_file(e, off, size))
		return fail(R_ERROR, "a note container lies outside the file");
	while (pos < size) {
		uint64_t note = off + pos;
		if (size - pos < 12)
			return fail(R_ERROR, "a note header is cut short");
		namesz = U32(e, note);
		descsz = U32(e, note + 4);
		type = U32(e, note + 8);
		aname = align_up(namesz, 4);
		adesc = align_up(descsz, 4);
		if (aname > size - pos - 12 || adesc > size - pos - 12 - aname)
			return fail(R_ERROR, "a note runs past its container");
		if (is_gnu_build_id(e, note, (uint32_t)namesz, type)) {
			f->desc = e->b + note + 12 + aname;
			f->len = descsz;
		}
		if (type == 4 && namesz >= 2 && namesz <= 4 &&
		    memcmp(e->b + note + 12, "Go", 2) == 0)
			*have_go = 1;
		pos += 12 + aname + adesc;
	}
	return 0;
}

static int mode_first_ptnote(const struct elf *e, struct found *f)
{
	struct phdr p;
	uint32_t i;
	int have_go = 0;

	for (i = 0; i < e->phnum; i++) {
		if (get_phdr(e, i, &p) != 0)
			return fail(R_ERROR,
				    "program headers outside the file");
		if (p.type == PT_NOTE_)
			return otel_container(e, p.off, p.filesz, f, &have_go);
	}
	return 0;
}

static int mode_otel(const struct elf *e, struct found *f)
{
	static const char *const names[] = {".note.gnu.build-id",
					    ".note.go.buildid", ".notes"};
	struct phdr p;
	struct shdr s;
	const char *name;
	uint32_t i;
	unsigned k;
	int have_go = 0, rc;

	if (!e->is64 || e->big)
		return fail(R_UNSUPPORTED,
			    "pfelf takes only ELF64 little-endian files");
	/* LoadSections reads the header's e_shnum, no extended numbering. */
	for (i = 0; i < e->e_shnum; i++) {
		if (get_shdr(e, i, &s) != 0)
			break; /* LoadSections fails: no section visited */
		if (s.type != SHT_NOTE_ || s.size == 0)
			continue;
		name = section_name(e, &s);
		if (name == NULL)
			break;
		for (k = 0; k < sizeof(names) / sizeof(names[0]); k++)
			if (strcmp(name, names[k]) == 0)
				break;
		if (k == sizeof(names) / sizeof(names[0]))
			continue;
		rc = otel_container(e, s.off, s.size, f, &have_go);
		if (rc != 0)
			return rc;
	}
	if (f->desc != NULL && have_go)
		return 0;
	for (i = 0; i < e->phnum; i++) {
		if (get_phdr(e, i, &p) != 0)
			return fail(R_ERROR,
				    "program headers outside the file");
		if (p.type != PT_NOTE_)
			continue;
		rc = otel_container(e, p.off, p.filesz, f, &have_go);
		if (rc != 0)
			return rc;
	}
	return 0;
}

/*
 * libelf's gelf_getnote over [off, off + size), alignment 4 or 8: stops
 * quietly at the first note that does not fit. The first GNU build-id wins.
 */
static void getnote_container(const struct elf *e, uint64_t off, uint64_t size,
			      uint64_t align, struct found *f)
{
	uint64_t pos = 0, namesz, descsz, descofs;
	uint32_t type;

	if (!in_file(e, off, size))
		return;
	while (size - pos >= 12) {
		uint64_t note = off + pos;
		namesz = U32(e, note);
		descsz = U32(e, note + 4);
		type = U32(e, note + 8);
		if (namesz > size - pos - 12)
			return;
		descofs = align_up(pos + 12 + namesz, align);
		if (descofs > size || descsz > size - descofs)
			return;
		if (is_gnu_build_id(e, note, (uint32_t)namesz, type)) {
			f->desc = e->b + off + descofs;
			f->len = descsz;
			return;
		}
		pos = align_up(descofs + descsz, align);
		if (pos >= size)
			return;
	}
}

static int mode_sections_first(const struct elf *e, struct found *f)
{
	struct phdr p;
	struct shdr s;
	uint32_t i;

	if (e->shnum > 1) {
		for (i = 1; i < e->shnum && f->desc == NULL; i++) {
			if (get_shdr(e, i, &s) != 0)
				return fail(R_ERROR,
					    "section headers outside the file");
			if (s.type == SHT_NOTE_)
				getnote_container(e, s.off, s.size,
						  s.align == 8 ? 8 : 4, f);
		}
		return 0;
	}
	for (i = 0; i < e->phnum && f->desc == NULL; i++) {
		if (get_phdr(e, i, &p) != 0)
			return fail(R_ERROR,
				    "program headers outside the file");
		if (p.type == PT_NOTE_)
			getnote_container(e, p.off, p.filesz,
					  p.align == 8 ? 8 : 4, f);
	}
	return 0;
}

static int mode_runtime_pprof(const struct elf *e, struct found *f)
{
	struct shdr s;
	uint64_t pos, end, namesz, descsz, descoff;
	uint32_t i, type;

	if (e->shentsize != (e->is64 ? 64u : 40u))
		return fail(R_ERROR, "malformed ELF binary");
	for (i = 0; i < e->e_shnum; i++) {
		if (get_shdr(e, i, &s) != 0)
			return fail(R_ERROR, "a section header lies past EOF");
		if (s.type != SHT_NOTE_)
			continue;
		pos = s.off;
		if (s.size > UINT64_MAX - pos)
			return fail(R_ERROR, "a section's end overflows");
		end = s.off + s.size;
		while (pos < end) {
			/* ReadAt(buf[:16], off): all 16 bytes or an error. */
			if (!in_file(e, pos, 16))
				return fail(R_ERROR, "a note lies past EOF");
			namesz = U32(e, pos);
			descsz = U32(e, pos + 4);
			type = U32(e, pos + 8);
			descoff = pos + 12 + align_up(namesz, 4);
			if (descoff < pos ||
			    align_up(descsz, 4) > UINT64_MAX - descoff)
				return fail(R_ERROR, "a note's end overflows");
			if (!is_gnu_build_id(e, pos, (uint32_t)namesz, type)) {
				pos = descoff + align_up(descsz, 4);
				continue;
			}
			if (descsz > 256)
				return fail(R_ERROR, "malformed ELF binary");
			if (!in_file(e, descoff, descsz))
				return fail(R_ERROR, "a note lies past EOF");
			f->desc = e->b + descoff;
			f->len = descsz;
			return 0;
		}
	}
	return 0;
}

static int usage(void)
{
	fprintf(stderr, "usage: readers pprof|first-ptnote|sections-first|"
			"runtime-pprof|otel FILE\n");
	return R_USAGE;
}

int main(int argc, char **argv)
{
	struct elf e = {0};
	struct found f = {NULL, 0};
	uint8_t *buf = NULL;
	FILE *fp = NULL;
	long len;
	uint64_t i;
	int rc;

	if (argc != 3)
		return usage();
	prog_mode = argv[1];
	prog_file = argv[2];
	fp = fopen(argv[2], "rb");
	if (fp == NULL || fseek(fp, 0, SEEK_END) != 0 ||
	    (len = ftell(fp)) < 0 || fseek(fp, 0, SEEK_SET) != 0) {
		rc = fail(R_NOINPUT, strerror(errno));
		goto out;
	}
	buf = malloc(len > 0 ? (size_t)len : 1);
	if (buf == NULL || fread(buf, 1, (size_t)len, fp) != (size_t)len) {
		rc = fail(R_NOINPUT, "cannot read the file");
		goto out;
	}
	e.b = buf;
	e.size = (uint64_t)len;
	if (strcmp(prog_mode, "pprof") != 0 &&
	    strcmp(prog_mode, "first-ptnote") != 0 &&
	    strcmp(prog_mode, "sections-first") != 0 &&
	    strcmp(prog_mode, "runtime-pprof") != 0 &&
	    strcmp(prog_mode, "otel") != 0) {
		rc = usage();
		goto out;
	}
	rc = elf_open(&e);
	if (rc != 0)
		goto out;
	if (strcmp(prog_mode, "pprof") == 0)
		rc = mode_pprof(&e, &f);
	else if (strcmp(prog_mode, "first-ptnote") == 0)
		rc = mode_first_ptnote(&e, &f);
	else if (strcmp(prog_mode, "sections-first") == 0)
		rc = mode_sections_first(&e, &f);
	else if (strcmp(prog_mode, "runtime-pprof") == 0)
		rc = mode_runtime_pprof(&e, &f);
	else
		rc = mode_otel(&e, &f);
	if (rc != 0)
		goto out;
	if (f.desc == NULL || f.len == 0) {
		rc = R_NONE;
		goto out;
	}
	for (i = 0; i < f.len; i++)
		printf("%02x", f.desc[i]);
	printf("\n");
	rc = fflush(stdout) == 0 ? R_FOUND : R_NOINPUT;
out:
	free(buf);
	if (fp != NULL)
		fclose(fp);
	return rc;
}
