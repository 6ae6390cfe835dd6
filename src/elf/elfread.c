/* SPDX-License-Identifier: MIT */
/* ELF layout reader: the only module that talks to libelf. */
#include <errno.h>
#include <fcntl.h>
#include <gelf.h>
#include <libelf.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "internal.h"
#include "elf/layout.h"
#include "elf/relocs.h"
#include "elf/elf.h"

/* Notes and name tables larger than this are refused, not read. */
#define EBID_TABLE_MAX (16u << 20)

static pthread_once_t libelf_once = PTHREAD_ONCE_INIT;
static unsigned libelf_version; /* written once, under libelf_once */

static void libelf_start(void)
{
	libelf_version = elf_version(EV_CURRENT);
}

static int libelf_init(char *err, size_t errlen)
{
	pthread_once(&libelf_once, libelf_start);
	if (libelf_version == EV_NONE)
		return ebid_err(err, errlen, -EINVAL,
				"libelf initialisation failed: %s",
				elf_errmsg(-1));
	return 0;
}

void ebid_elf_release(struct ebid_elf *elf)
{
	if (!elf)
		return;
	free(elf->phdrs);
	free(elf->shdrs);
	free(elf->shstrtab);
	free(elf->head);
	free(elf->note_syms);
	free(elf->pad);
	free(elf->more);
	free(elf->dyn);
	free(elf->relocs); /* relocs.c */
	ebid_elf_release_itabs(elf);
	memset(elf, 0, sizeof(*elf));
}

/* Checks the Ehdr fields libelf would silently clamp or trust. */
static int check_ehdr(struct ebid_elf *elf, char *err, size_t errlen)
{
	const struct ebid_ehdr_layout *L = &ebid_ehdr_layouts[elf->elfclass - 1];
	size_t phsize = elf->elfclass == ELFCLASS64 ? sizeof(Elf64_Phdr)
						   : sizeof(Elf32_Phdr);
	size_t shsize = elf->elfclass == ELFCLASS64 ? sizeof(Elf64_Shdr)
						   : sizeof(Elf32_Shdr);

	if (elf->file_size < L->size)
		return ebid_err(err, errlen, -EBID_EMALFORMED,
				"malformed ELF: file shorter than the ELF header");
	if (elf->phnum && elf->phentsize != phsize)
		return ebid_err(err, errlen, -EBID_EMALFORMED,
				"malformed ELF: e_phentsize is %u, expected %zu",
				elf->phentsize, phsize);
	if (elf->phnum && (elf->phoff > elf->file_size ||
			   elf->phnum > (elf->file_size - elf->phoff) / phsize))
		return ebid_err(err, errlen, -EBID_EMALFORMED,
				"malformed ELF: e_phoff/e_phnum: program header table past end of file");
	if (elf->raw_shnum || elf->shoff) {
		if (elf->shentsize != shsize)
			return ebid_err(err, errlen, -EBID_EMALFORMED,
					"malformed ELF: e_shentsize is %u, expected %zu",
					elf->shentsize, shsize);
		if (elf->shoff > elf->file_size ||
		    elf->file_size - elf->shoff < shsize)
			return ebid_err(err, errlen, -EBID_EMALFORMED,
					"malformed ELF: e_shoff past end of file");
		/*
		 * libelf counts no section at all when the table runs past
		 * the end of the file; the notes would then look sectionless.
		 */
		if (elf->raw_shnum &&
		    elf->raw_shnum > (elf->file_size - elf->shoff) / shsize)
			return ebid_err(err, errlen, -EBID_EMALFORMED,
					"malformed ELF: e_shoff/e_shnum: section header table past end of file");
		if (!elf->shoff)
			return ebid_err(err, errlen, -EBID_EMALFORMED,
					"malformed ELF: e_shnum %u with e_shoff 0",
					elf->raw_shnum);
		if (elf->raw_shnum && elf->raw_shnum < SHN_LORESERVE &&
		    elf->shnum != elf->raw_shnum)
			return ebid_err(err, errlen, -EBID_EMALFORMED,
					"malformed ELF: e_shnum %u, but libelf reads %zu section headers",
					elf->raw_shnum, elf->shnum);
	}
	return 0;
}

/*
 * A libelf call failed. libelf reads the headers with pread() (ELF_C_READ:
 * a mapping would raise SIGBUS if the file shrank under it), so a failed
 * read is a cause it can have: errno, cleared before each call, tells it.
 * Otherwise the file is malformed. what names the header.
 */
static int elf_fail(char *err, size_t errlen, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));
static int elf_fail(char *err, size_t errlen, const char *fmt, ...)
{
	int saved = errno, e_errno = elf_errno();
	char what[96];
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(what, sizeof(what), fmt, ap);
	va_end(ap);
	if (saved)
		return ebid_err(err, errlen, -saved, "read failed: %s (%s)",
				strerror(saved), what);
	return ebid_err(err, errlen, -EBID_EMALFORMED, "malformed ELF: %s: %s",
			what, e_errno ? elf_errmsg(e_errno) : "rejected by libelf");
}

/* The program headers, bounds-checked against the file. */
static int read_phdrs(struct ebid_elf *elf, Elf *e, char *err, size_t errlen)
{
	size_t i;

	for (i = 0; i < elf->phnum; i++) {
		GElf_Phdr ph;
		struct ebid_phdr *p = &elf->phdrs[i];

		errno = 0;
		if (!gelf_getphdr(e, (int)i, &ph))
			return elf_fail(err, errlen, "program header [%zu]", i);
		p->type = ph.p_type;
		p->flags = ph.p_flags;
		p->offset = ph.p_offset;
		p->vaddr = ph.p_vaddr;
		p->paddr = ph.p_paddr;
		p->filesz = ph.p_filesz;
		p->memsz = ph.p_memsz;
		p->align = ph.p_align;
		if (p->filesz && (p->offset > elf->file_size ||
				  p->filesz > elf->file_size - p->offset))
			return ebid_err(err, errlen, -EBID_EMALFORMED,
					"malformed ELF: program header [%zu]: p_offset+p_filesz past end of file",
					i);
	}
	return 0;
}

/* The section headers, bounds-checked against the file. */
static int read_shdrs(struct ebid_elf *elf, Elf *e, char *err, size_t errlen)
{
	size_t i;

	for (i = 0; i < elf->shnum; i++) {
		GElf_Shdr sh;
		Elf_Scn *scn;
		struct ebid_shdr *s = &elf->shdrs[i];

		errno = 0;
		scn = elf_getscn(e, i);
		if (!scn || !gelf_getshdr(scn, &sh))
			return elf_fail(err, errlen, "section header [%zu]", i);
		s->name = sh.sh_name;
		s->type = sh.sh_type;
		s->flags = sh.sh_flags;
		s->addr = sh.sh_addr;
		s->offset = sh.sh_offset;
		s->size = sh.sh_size;
		s->link = sh.sh_link;
		s->info = sh.sh_info;
		s->addralign = sh.sh_addralign;
		s->entsize = sh.sh_entsize;
		s->name_str = "";
		if (i && s->type != SHT_NOBITS && s->type != SHT_NULL &&
		    (s->offset > elf->file_size ||
		     s->size > elf->file_size - s->offset))
			return ebid_err(err, errlen, -EBID_EMALFORMED,
					"malformed ELF: section header [%zu]: sh_offset+sh_size past end of file",
					i);
	}
	return 0;
}

static int read_headers(struct ebid_elf *elf, Elf *e, char *err, size_t errlen)
{
	size_t shsize;
	int ret;

	errno = 0;
	if (elf_getphdrnum(e, &elf->phnum) != 0)
		return elf_fail(err, errlen, "program header count");
	errno = 0;
	if (elf_getshdrnum(e, &elf->shnum) != 0)
		return elf_fail(err, errlen, "section header count");
	if (check_ehdr(elf, err, errlen))
		return -EBID_EMALFORMED;
	shsize = elf->shentsize ? elf->shentsize : 1;
	if (elf->shnum &&
	    (elf->shoff > elf->file_size ||
	     elf->shnum > (elf->file_size - elf->shoff) / shsize))
		return ebid_err(err, errlen, -EBID_EMALFORMED,
				"malformed ELF: e_shoff/e_shnum: section header table past end of file");
	errno = 0;
	if (elf->shnum && elf->raw_shstrndx == SHN_XINDEX) {
		/*
		 * The index is section 0's sh_link. libelf 0.188's
		 * elf_getshdrstrndx() reads it through the file descriptor
		 * for an image of the other byte order, and a memory image
		 * has none (-EBADF); its section 0 is read like any other.
		 */
		Elf_Scn *s0 = elf_getscn(e, 0);
		GElf_Shdr sh0;

		if (!s0 || !gelf_getshdr(s0, &sh0))
			return elf_fail(err, errlen, "e_shstrndx");
		elf->shstrndx = sh0.sh_link;
	} else if (elf->shnum && elf_getshdrstrndx(e, &elf->shstrndx) != 0) {
		return elf_fail(err, errlen, "e_shstrndx");
	}

	elf->phdrs = calloc(elf->phnum ? elf->phnum : 1, sizeof(*elf->phdrs));
	elf->shdrs = calloc(elf->shnum ? elf->shnum : 1, sizeof(*elf->shdrs));
	if (!elf->phdrs || !elf->shdrs)
		return ebid_err(err, errlen, -ENOMEM, "out of memory");
	ret = read_phdrs(elf, e, err, errlen);
	if (ret)
		return ret;
	return read_shdrs(elf, e, err, errlen);
}

/*
 * With e_shnum 0 the count is section 0's sh_size (extended numbering);
 * libelf counts no section when that table runs past the end of the file.
 */
static int check_ext_shnum(const struct ebid_elf *elf,
			   const struct ebid_src *src, char *err, size_t errlen)
{
	size_t width = elf->elfclass == ELFCLASS64 ? 8 : 4;
	size_t at = elf->elfclass == ELFCLASS64 ? 32 : 20;
	unsigned char buf[8];
	uint64_t count;
	int ret;

	if (elf->raw_shnum || !elf->shoff || elf->shnum)
		return 0;
	ret = ebid_src_read(src, elf->shoff + at, buf, width);
	if (ret)
		return ebid_err(err, errlen, ret,
				"cannot read section header [0]: %s",
				strerror(-ret));
	count = ebid_get(buf, width, elf->data);
	if (count)
		return ebid_err(err, errlen, -EBID_EMALFORMED,
				"malformed ELF: section header [0]: sh_size (e_shnum) %llu: section header table past end of file",
				(unsigned long long)count);
	/* No section at all, yet a name table is named: a broken e_shnum. */
	if (elf->raw_shstrndx)
		return ebid_err(err, errlen, -EBID_EMALFORMED,
				"malformed ELF: e_shnum 0 and section header [0] sh_size 0 (no sections), but e_shstrndx %u",
				elf->raw_shstrndx);
	return 0;
}

static int read_names(struct ebid_elf *elf, const struct ebid_src *src,
		      char *err, size_t errlen)
{
	const struct ebid_shdr *st;
	size_t i;
	int ret;

	if (!elf->shnum)
		return 0;
	if (elf->shstrndx == SHN_UNDEF)
		return 0; /* no names: nothing will match ours */
	if (elf->shstrndx >= elf->shnum)
		return ebid_err(err, errlen, -EBID_EMALFORMED,
				"malformed ELF: e_shstrndx %zu out of range",
				elf->shstrndx);
	st = &elf->shdrs[elf->shstrndx];
	if (st->type == SHT_NOBITS)
		return ebid_err(err, errlen, -EBID_EMALFORMED,
				"malformed ELF: section name table has no bytes");
	if (st->size > EBID_TABLE_MAX)
		return ebid_err(err, errlen, -EBID_EMALFORMED,
				"malformed ELF: section name table sh_size %llu too large",
				(unsigned long long)st->size);
	elf->shstrtab_size = st->size;
	elf->shstrtab = malloc(st->size + 1);
	if (!elf->shstrtab)
		return ebid_err(err, errlen, -ENOMEM, "out of memory");
	ret = ebid_src_read(src, st->offset, elf->shstrtab, st->size);
	if (ret)
		return ebid_err(err, errlen, ret,
				"cannot read section name table: %s",
				strerror(-ret));
	elf->shstrtab[st->size] = '\0';
	/* Section 0 keeps name "" here, but its sh_name must be in range. */
	if (elf->shdrs[0].name >= st->size && elf->shdrs[0].name)
		return ebid_err(err, errlen, -EBID_EMALFORMED,
				"malformed ELF: section header [0]: sh_name %u out of range",
				elf->shdrs[0].name);
	for (i = 1; i < elf->shnum; i++) {
		struct ebid_shdr *s = &elf->shdrs[i];

		if (s->name >= st->size)
			return ebid_err(err, errlen, -EBID_EMALFORMED,
					"malformed ELF: section header [%zu]: sh_name %u out of range",
					i, s->name);
		s->name_str = elf->shstrtab + s->name;
	}
	return 0;
}

struct note_scan {
	struct ebid_elf *elf;
	uint64_t base;          /* file offset of the buffer */
	size_t shndx;
	unsigned align;
};

static void note_record(struct ebid_note *out, const struct ebid_note_hdr *n,
			const struct note_scan *ns)
{
	size_t keep = n->descsz < EBID_GO_ID_MAX ? n->descsz : EBID_GO_ID_MAX;

	out->present = true;
	out->shndx = ns->shndx;
	out->pt_index = -1;
	out->note_off = ns->base + n->off;
	out->note_size = n->size;
	out->desc_off = ns->base + n->desc_off;
	out->desc_len = n->descsz;
	out->align = ns->align;
	memcpy(out->desc, n->desc, keep);
}

static int note_cb(const struct ebid_note_hdr *n, void *arg)
{
	struct note_scan *ns = arg;
	struct ebid_elf *elf = ns->elf;

	if (n->namesz == 4 && memcmp(n->name, "GNU", 4) == 0 &&
	    n->type == NT_GNU_BUILD_ID) {
		/* Prefer a note that a section describes. */
		if (!elf->gnu.present || (!elf->gnu.shndx && ns->shndx))
			note_record(&elf->gnu, n, ns);
	} else if ((n->namesz == 3 || n->namesz == 4) &&
		   memcmp(n->name, "Go", 3) == 0 &&
		   n->type == EBID_NT_GO_BUILD_ID) {
		if (!elf->go.present || (!elf->go.shndx && ns->shndx))
			note_record(&elf->go, n, ns);
	}
	return 0;
}

static int scan_notes(struct ebid_elf *elf, const struct ebid_src *src,
		      uint64_t off, uint64_t size, unsigned align, size_t shndx,
		      const char *where, char *err, size_t errlen)
{
	struct note_scan ns = { elf, off, shndx, align == 8 ? 8 : 4 };
	unsigned char *buf;
	int ret;

	if (!size)
		return 0;
	if (size > EBID_TABLE_MAX)
		return ebid_err(err, errlen, -EBID_EMALFORMED,
				"malformed ELF: %s: note size %llu too large",
				where, (unsigned long long)size);
	buf = malloc(size);
	if (!buf)
		return ebid_err(err, errlen, -ENOMEM, "out of memory");
	ret = ebid_src_read(src, off, buf, size);
	if (ret) {
		free(buf);
		return ebid_err(err, errlen, ret, "cannot read %s: %s", where,
				strerror(-ret));
	}
	ret = ebid_notes_walk(buf, size, elf->data, ns.align, note_cb, &ns);
	free(buf);
	if (ret)
		return ebid_err(err, errlen, ret,
				"malformed ELF: %s: note runs past its end",
				where);
	return 0;
}

/*
 * The index of the PT_NOTE whose 4-byte note walk reaches a note at
 * note_off into *pt (-1: none). Headers in the first page are taken from
 * head; a read that fails is an error, not a walk that stops.
 */
static int find_covering_pt(const struct ebid_elf *elf,
			    const struct ebid_src *src, uint64_t note_off,
			    int *pt, char *err, size_t errlen)
{
	size_t i;
	int ret;

	*pt = -1;
	for (i = 0; i < elf->phnum; i++) {
		const struct ebid_phdr *p = &elf->phdrs[i];
		uint64_t off = p->offset, end = p->offset + p->filesz;

		if (p->type != PT_NOTE || note_off < off || note_off >= end)
			continue;
		while (off + 12 <= end && off < note_off) {
			unsigned char h[12];
			uint64_t namesz, descsz;

			if (off + 12 <= elf->head_len) {
				memcpy(h, elf->head + off, 12);
			} else {
				ret = ebid_src_read(src, off, h, 12);
				if (ret)
					return ebid_err(err, errlen, ret,
							"cannot read program header [%zu]'s notes: %s",
							i, strerror(-ret));
			}
			namesz = ebid_get(h, 4, elf->data);
			descsz = ebid_get(h + 4, 4, elf->data);
			off += 12 + ((namesz + 3) & ~3ull) +
			       ((descsz + 3) & ~3ull);
		}
		if (off == note_off) {
			*pt = (int)i;
			return 0;
		}
	}
	return 0;
}

/*
 * e_ident: the magic, a known class, byte order and version, and a file
 * long enough for its ELF header. A read that fails is an error of its
 * own: calling the file "not an ELF file" would let verify skip a file it
 * could not read.
 */
static int read_ident(struct ebid_elf *elf, const struct ebid_src *src,
		      char *err, size_t errlen)
{
	unsigned char ident[EI_NIDENT];
	size_t len = src->size < EI_NIDENT ? (size_t)src->size : EI_NIDENT;
	int ret;

	ret = ebid_src_read(src, 0, ident, len);
	if (ret)
		return ebid_err(err, errlen, ret, "cannot read: %s",
				strerror(-ret));
	if (len < SELFMAG || memcmp(ident, ELFMAG, SELFMAG) != 0)
		return ebid_err(err, errlen, -EBID_ENOTELF, "not an ELF file");
	if (len < EI_NIDENT)
		return ebid_err(err, errlen, -EBID_EMALFORMED,
				"malformed ELF: ELF header truncated (file has %zu bytes)",
				len);
	if (ident[EI_CLASS] != ELFCLASS32 && ident[EI_CLASS] != ELFCLASS64)
		return ebid_err(err, errlen, -EBID_EMALFORMED,
				"malformed ELF: EI_CLASS %u unknown",
				ident[EI_CLASS]);
	if (ident[EI_DATA] != ELFDATA2LSB && ident[EI_DATA] != ELFDATA2MSB)
		return ebid_err(err, errlen, -EBID_EMALFORMED,
				"malformed ELF: EI_DATA %u unknown",
				ident[EI_DATA]);
	if (ident[EI_VERSION] != EV_CURRENT)
		return ebid_err(err, errlen, -EBID_EMALFORMED,
				"malformed ELF: EI_VERSION %u, expected %u",
				ident[EI_VERSION], EV_CURRENT);
	elf->elfclass = ident[EI_CLASS];
	elf->data = ident[EI_DATA];
	if (src->size < ebid_ehdr_layouts[elf->elfclass - 1].size)
		return ebid_err(err, errlen, -EBID_EMALFORMED,
				"malformed ELF: ELF header truncated (file has %llu of %zu bytes)",
				(unsigned long long)src->size,
				ebid_ehdr_layouts[elf->elfclass - 1].size);
	return 0;
}

/* The first page (or the whole file, if shorter) into elf->head. */
static int read_head(struct ebid_elf *elf, const struct ebid_src *src,
		     char *err, size_t errlen)
{
	int ret;

	elf->head_len = src->size < EBID_PAGE ? (size_t)src->size : EBID_PAGE;
	elf->head = malloc(elf->head_len);
	if (!elf->head)
		return ebid_err(err, errlen, -ENOMEM, "out of memory");
	ret = ebid_src_read(src, 0, elf->head, elf->head_len);
	if (ret)
		return ebid_err(err, errlen, ret, "read failed: %s",
				strerror(-ret));
	return 0;
}

/*
 * Opens src with libelf (a private copy of a memory source: libelf wants
 * a writable image; *copy owns it) and takes the ELF header's fields.
 */
static int open_libelf(struct ebid_elf *elf, const struct ebid_src *src,
		       Elf **e, char **copy, char *err, size_t errlen)
{
	GElf_Ehdr eh;

	errno = 0;
	if (src->fd >= 0) {
		*e = elf_begin(src->fd, ELF_C_READ, NULL);
	} else {
		*copy = malloc(src->size);
		if (!*copy)
			return ebid_err(err, errlen, -ENOMEM, "out of memory");
		memcpy(*copy, src->mem, src->size);
		*e = elf_memory(*copy, src->size);
	}
	if (!*e || elf_kind(*e) != ELF_K_ELF || !gelf_getehdr(*e, &eh))
		return elf_fail(err, errlen, "ELF header");
	elf->type = eh.e_type;
	elf->machine = eh.e_machine;
	elf->ehsize = eh.e_ehsize;
	elf->phentsize = eh.e_phentsize;
	elf->shentsize = eh.e_shentsize;
	elf->phoff = eh.e_phoff;
	elf->shoff = eh.e_shoff;
	elf->raw_phnum = eh.e_phnum;
	elf->raw_shnum = eh.e_shnum;
	elf->raw_shstrndx = eh.e_shstrndx;
	if (eh.e_phnum == 0 || eh.e_phoff == 0)
		elf->phnum = 0;
	return 0;
}

/*
 * The notes of a PT_NOTE. Segments may mix 4- and 8-aligned notes (mold):
 * walk as the kernel does (4), then by p_align. A walk that fails leaves
 * nothing behind; with sections present the notes were found through
 * them, so only a file without any fails here.
 */
static int scan_segment(struct ebid_elf *elf, const struct ebid_src *src,
			size_t i, char *err, size_t errlen)
{
	const struct ebid_phdr *p = &elf->phdrs[i];
	struct ebid_note gnu = elf->gnu, go = elf->go;
	unsigned aligns[2] = { 4, p->align == 8 ? 8 : 4 };
	char where[64];
	int k, ret = 0;

	snprintf(where, sizeof(where), "program header [%zu]", i);
	for (k = 0; k < 2; k++) {
		ret = scan_notes(elf, src, p->offset, p->filesz, aligns[k], 0,
				 where, err, errlen);
		if (!ret || ret != -EBID_EMALFORMED)
			break;
		elf->gnu = gnu;
		elf->go = go;
	}
	if (ret == -EBID_EMALFORMED && elf->shnum > 1)
		ret = 0;
	return ret;
}

/* The GNU and Go notes: through SHT_NOTE sections, then PT_NOTEs. */
static int find_notes(struct ebid_elf *elf, const struct ebid_src *src,
		      char *err, size_t errlen)
{
	size_t i;
	int ret;

	for (i = 1; i < elf->shnum; i++) {
		const struct ebid_shdr *s = &elf->shdrs[i];
		char where[64];

		if (s->type != SHT_NOTE)
			continue;
		snprintf(where, sizeof(where), "section [%zu]", i);
		ret = scan_notes(elf, src, s->offset, s->size,
				 (unsigned)s->addralign, i, where, err, errlen);
		if (ret)
			return ret;
	}
	for (i = 0; i < elf->phnum; i++) {
		if (elf->phdrs[i].type != PT_NOTE)
			continue;
		ret = scan_segment(elf, src, i, err, errlen);
		if (ret)
			return ret;
	}
	if (elf->gnu.present) {
		ret = find_covering_pt(elf, src, elf->gnu.note_off,
				       &elf->gnu.pt_index, err, errlen);
		if (ret)
			return ret;
	}
	if (elf->go.present)
		return find_covering_pt(elf, src, elf->go.note_off,
					&elf->go.pt_index, err, errlen);
	return 0;
}

/*
 * Reads the bytes after the end of the PT_LOAD at offset 0, up to the
 * next segment in the file (elf->pad).
 */
static int read_pad(struct ebid_elf *elf, const struct ebid_src *src,
		    char *err, size_t errlen)
{
	long li = ebid_first_load(elf->phdrs, elf->phnum);
	uint64_t start, end = elf->file_size;
	size_t i;
	int ret;

	if (li < 0 || elf->phdrs[li].filesz >= elf->file_size)
		return 0;
	start = elf->phdrs[li].filesz;
	for (i = 0; i < elf->phnum; i++) {
		const struct ebid_phdr *ph = &elf->phdrs[i];

		if (ph->filesz && ph->offset >= start && ph->offset < end)
			end = ph->offset;
	}
	if (end - start > EBID_PAD_MAX)
		end = start + EBID_PAD_MAX;
	if (end == start)
		return 0;
	elf->pad = malloc((size_t)(end - start));
	if (!elf->pad)
		return ebid_err(err, errlen, -ENOMEM, "out of memory");
	ret = ebid_src_read(src, start, elf->pad, (size_t)(end - start));
	if (ret)
		return ebid_err(err, errlen, ret, "read failed: %s",
				strerror(-ret));
	elf->pad_off = start;
	elf->pad_len = (size_t)(end - start);
	return 0;
}

/*
 * Reads the bytes of the movable sections after the program headers that
 * lie past the first page (elf->more), up to EBID_PAD_MAX.
 */
static int read_more(struct ebid_elf *elf, const struct ebid_src *src,
		     char *err, size_t errlen)
{
	long li = ebid_first_load(elf->phdrs, elf->phnum);
	uint64_t end;
	int ret;

	if (li < 0 || !elf->span_hi || elf->head_len < EBID_PAGE ||
	    elf->span_hi - elf->phdrs[li].vaddr <= elf->head_len)
		return 0;
	end = elf->span_hi - elf->phdrs[li].vaddr;
	if (end > elf->file_size)
		end = elf->file_size;
	if (end - elf->head_len > EBID_PAD_MAX)
		end = elf->head_len + EBID_PAD_MAX;
	if (end <= elf->head_len)
		return 0;
	elf->more = malloc((size_t)(end - elf->head_len));
	if (!elf->more)
		return ebid_err(err, errlen, -ENOMEM, "out of memory");
	ret = ebid_src_read(src, elf->head_len, elf->more,
			    (size_t)(end - elf->head_len));
	if (ret)
		return ebid_err(err, errlen, ret, "read failed: %s",
				strerror(-ret));
	elf->more_len = (size_t)(end - elf->head_len);
	return 0;
}

bool ebid_elf_head_bytes(const struct ebid_elf *elf, uint64_t off,
			 void *buf, size_t len)
{
	unsigned char *b = buf;
	size_t k = 0;

	if (off > elf->head_len + elf->more_len ||
	    len > elf->head_len + elf->more_len - off)
		return false;
	if (off < elf->head_len) {
		k = elf->head_len - off < len ? (size_t)(elf->head_len - off)
					      : len;
		memcpy(b, elf->head + off, k);
	}
	if (k < len)
		memcpy(b + k, elf->more + (off + k - elf->head_len), len - k);
	return true;
}

bool ebid_elf_byte_zero(const struct ebid_elf *elf, uint64_t off)
{
	if (off < elf->head_len)
		return !elf->head[off];
	if (off >= elf->pad_off && off - elf->pad_off < elf->pad_len)
		return !elf->pad[off - elf->pad_off];
	return false;
}

/*
 * The kernel ignores e_ehsize and reads the program headers at
 * sizeof(Ehdr) (before 6.12) or at e_phoff (since): only a table at
 * sizeof(Ehdr) is read the same by both.
 */
static bool kernel_sees_gnu(const struct ebid_elf *elf)
{
	unsigned char kid[EBID_MAX_ID];
	uint64_t kdesc = 0;

	return elf->gnu.present &&
	       elf->phoff == ebid_ehsize(elf->elfclass) &&
	       ebid_kernel_build_id(elf->head, elf->head_len, kid, NULL,
				    &kdesc) &&
	       kdesc == elf->gnu.desc_off;
}

int ebid_elf_read(struct ebid_elf *elf, const struct ebid_src *src, char *err,
		  size_t errlen)
{
	Elf *e = NULL;
	char *copy = NULL;
	int ret;

	memset(elf, 0, sizeof(*elf));
	ret = libelf_init(err, errlen);
	if (ret)
		return ret;
	elf->file_size = src->size;
	ret = read_ident(elf, src, err, errlen);
	if (!ret)
		ret = read_head(elf, src, err, errlen);
	if (!ret)
		ret = open_libelf(elf, src, &e, &copy, err, errlen);
	if (!ret)
		ret = read_headers(elf, e, err, errlen);
	if (!ret)
		ret = check_ext_shnum(elf, src, err, errlen);
	if (!ret)
		ret = read_names(elf, src, err, errlen);
	if (!ret)
		ret = find_notes(elf, src, err, errlen);
	/* Only a file without a GNU note may need a note moved. */
	if (!ret && !elf->gnu.present)
		ret = ebid_elf_read_note_syms(elf, src, err, errlen);
	/* The planner renumbers only a table in the linkers' order. */
	if (!ret && !elf->gnu.present &&
	    ebid_shdrs_in_order(elf->shdrs, elf->shnum))
		ret = ebid_elf_read_itabs(elf, src, err, errlen);
	if (!ret && !elf->gnu.present)
		ret = read_pad(elf, src, err, errlen);
	if (!ret && !elf->gnu.present)
		ret = read_more(elf, src, err, errlen);
	if (!ret)
		elf->gnu_kernel_visible = kernel_sees_gnu(elf);
	if (e)
		elf_end(e);
	free(copy);
	if (ret)
		ebid_elf_release(elf);
	return ret;
}

int ebid_elf_open_fd(struct ebid_elf *elf, int fd, char *err, size_t errlen)
{
	struct ebid_src src = { .fd = fd };
	struct stat st;

	memset(elf, 0, sizeof(*elf));
	if (fstat(fd, &st) != 0)
		return ebid_err(err, errlen, -errno, "cannot stat: %s",
				strerror(errno));
	if (!S_ISREG(st.st_mode))
		return ebid_err(err, errlen, -EBID_ENOTELF,
				S_ISDIR(st.st_mode) ? "is a directory"
						    : "not a regular file");
	src.size = (uint64_t)st.st_size;
	return ebid_elf_read(elf, &src, err, errlen);
}

int ebid_elf_check_program(const struct ebid_elf *elf, char *err,
			   size_t errlen)
{
	bool loadable = false, alloc_bytes = false;
	size_t i;

	switch (elf->type) {
	case ET_EXEC:
	case ET_DYN:
		break;
	case ET_REL:
		return ebid_err(err, errlen, -EBID_ENOTPROG,
				"relocatable object (or kernel module), not a program");
	case ET_CORE:
		return ebid_err(err, errlen, -EBID_ENOTPROG,
				"core file, not a program");
	default:
		return ebid_err(err, errlen, -EBID_ENOTPROG,
				"ELF file of an unknown type");
	}
	for (i = 0; i < elf->phnum; i++)
		if (elf->phdrs[i].type == PT_LOAD && elf->phdrs[i].filesz)
			loadable = true;
	if (!loadable)
		return ebid_err(err, errlen, -EBID_ENOTPROG,
				"no loadable segment (not a program or shared library)");
	/* objcopy --only-keep-debug leaves allocated sections as NOBITS. */
	for (i = 1; i < elf->shnum; i++) {
		const struct ebid_shdr *s = &elf->shdrs[i];

		if ((s->flags & SHF_ALLOC) && s->size && s->type != SHT_NOBITS &&
		    s->type != SHT_NOTE)
			alloc_bytes = true;
	}
	if (elf->shnum > 1 && !alloc_bytes)
		return ebid_err(err, errlen, -EBID_ENOTPROG,
				"separate debug file (allocated sections are empty)");
	return 0;
}

const char *ebid_machine_name(uint16_t machine)
{
	switch (machine) {
	case EM_386: return "i386";
	case EM_X86_64: return "x86_64";
	case EM_ARM: return "arm";
	case EM_AARCH64: return "aarch64";
	case EM_MIPS: return "mips";
	case EM_PPC: return "ppc";
	case EM_PPC64: return "ppc64";
	case EM_S390: return "s390";
	case EM_RISCV: return "riscv";
	case EM_LOONGARCH: return "loongarch";
	case EM_SPARCV9: return "sparcv9";
	default: return NULL;
	}
}

int ebid_elf_debuglink(const struct ebid_elf *elf, int fd, char *name,
		       size_t len)
{
	size_t i;

	name[0] = '\0';
	for (i = 1; i < elf->shnum; i++) {
		const struct ebid_shdr *s = &elf->shdrs[i];
		struct ebid_src src = { .fd = fd, .size = elf->file_size };
		size_t n;
		int ret;

		if (strcmp(s->name_str, ".gnu_debuglink") || s->type == SHT_NOBITS)
			continue;
		n = s->size < len - 1 ? (size_t)s->size : len - 1;
		ret = ebid_src_read(&src, s->offset, name, n);
		if (ret)
			return ret;
		name[n] = '\0';
		/* A name with a '/' would escape the search directories. */
		if (strchr(name, '/'))
			name[0] = '\0';
		return 0;
	}
	return 0;
}
