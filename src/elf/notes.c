/* SPDX-License-Identifier: MIT */
/* ELF note walking and an emulation of the kernel's build-id reader. */
#include <elf.h>
#include <stddef.h>
#include <string.h>

#include "internal.h"
#include "elf/layout.h"
#include "elf/elf.h"

int ebid_notes_walk(const unsigned char *buf, size_t len, unsigned char data,
		    unsigned align, ebid_note_fn fn, void *arg)
{
	uint64_t off = 0;

	if (align != 8)
		align = 4;
	/* Every note advances off by at least 12, so the walk is bounded. */
	while (off + 12 <= len) {
		struct ebid_note_hdr n;
		uint64_t desc_end;
		int ret;

		n.off = off;
		n.namesz = (uint32_t)ebid_get(buf + off, 4, data);
		n.descsz = (uint32_t)ebid_get(buf + off + 4, 4, data);
		n.type = (uint32_t)ebid_get(buf + off + 8, 4, data);
		n.name_off = off + 12;
		n.desc_off = off + ebid_align_up(12 + (uint64_t)n.namesz, align);
		desc_end = n.desc_off + n.descsz;
		if (n.name_off + n.namesz > len || desc_end > len)
			return -EBID_EMALFORMED;
		n.size = ebid_align_up(desc_end, align) - off;
		n.name = buf + n.name_off;
		n.desc = buf + n.desc_off;
		ret = fn(&n, arg);
		if (ret)
			return ret;
		off += n.size;
	}
	return 0;
}

size_t ebid_kernel_build_id(const unsigned char *head, size_t head_len,
			    unsigned char id[EBID_MAX_ID], int *pt_index,
			    uint64_t *desc_off)
{
	unsigned char cls, d;
	size_t ehsize, phsize, phnum, i, page = EBID_PAGE;
	uint64_t type;

	if (head_len < page)
		page = head_len; /* bytes past EOF do not exist */
	if (page < sizeof(Elf32_Ehdr) || memcmp(head, ELFMAG, SELFMAG) != 0)
		return 0;
	cls = head[EI_CLASS];
	d = head[EI_DATA];
	if (cls != ELFCLASS32 && cls != ELFCLASS64)
		return 0;
	ehsize = ebid_ehsize(cls);
	phsize = ebid_phent(cls);
	if (page < ehsize)
		return 0;
	/* Only executables and shared objects (e_type at offset 16). */
	type = ebid_get(head + 16, 2, d);
	if (type != ET_EXEC && type != ET_DYN)
		return 0;
	phnum = (size_t)ebid_get(head + ebid_ehdr_layouts[cls - 1].phnum, 2, d);
	/* The kernel only supports program headers that fit in one page. */
	if (phnum > (EBID_PAGE - ehsize) / phsize ||
	    ehsize + phnum * phsize > page)
		return 0;
	for (i = 0; i < phnum; i++) {
		const unsigned char *ph = head + ehsize + i * phsize;
		uint64_t off, filesz, noff;

		type = ebid_get(ph, 4, d);
		if (type != PT_NOTE)
			continue;
		off = ebid_get(ph + (cls == ELFCLASS64 ? offsetof(Elf64_Phdr, p_offset)
						       : offsetof(Elf32_Phdr, p_offset)),
			       ebid_word(cls), d);
		/* The kernel takes the size as an Elf32_Word: truncated. */
		filesz = (uint32_t)ebid_get(
			ph + (cls == ELFCLASS64 ? offsetof(Elf64_Phdr, p_filesz)
						: offsetof(Elf32_Phdr, p_filesz)),
			ebid_word(cls), d);
		if (off > page || filesz > page - off)
			continue; /* only notes wholly inside the first page */
		/* The kernel's walk: 4-byte alignment, first GNU/3 note wins. */
		for (noff = 0; noff + 12 < filesz;) {
			const unsigned char *n = head + off + noff;
			uint32_t namesz = (uint32_t)ebid_get(n, 4, d);
			uint32_t descsz = (uint32_t)ebid_get(n + 4, 4, d);
			uint32_t ntype = (uint32_t)ebid_get(n + 8, 4, d);
			uint64_t next;

			if (ntype == NT_GNU_BUILD_ID && namesz == 4 &&
			    noff + 16 <= filesz && memcmp(n + 12, "GNU", 4) == 0 &&
			    descsz > 0 && descsz <= EBID_MAX_ID &&
			    noff + 16 + descsz <= filesz) {
				memcpy(id, n + 16, descsz);
				if (pt_index)
					*pt_index = (int)i;
				if (desc_off)
					*desc_off = off + noff + 16;
				return descsz;
			}
			next = noff + 12 + ebid_align_up(namesz, 4) +
			       ebid_align_up(descsz, 4);
			if (next <= noff)
				break;
			noff = next;
		}
	}
	return 0;
}
