/* SPDX-License-Identifier: MIT */
/* The build-ids of the running kernel and of this process's vDSO. */
#include <elf.h>
#include <errno.h>
#include <fcntl.h>
#include <string.h>
#include <sys/auxv.h>
#include <unistd.h>

#include "internal.h"
#include "elf/elf.h"

/* The kernel's notes, and the vDSO, are in this machine's byte order. */
#if __BYTE_ORDER__ == __ORDER_LITTLE_ENDIAN__
#define HOST_DATA ELFDATA2LSB
#else
#define HOST_DATA ELFDATA2MSB
#endif

/* The largest vDSO image we read; real ones are a few pages. */
#define VDSO_MAX (64u << 10)

struct gnu_id {
	char *hex;
	size_t hexlen;
};

static int take_gnu_id(const struct ebid_note_hdr *n, void *arg)
{
	struct gnu_id *g = arg;

	if (n->type != NT_GNU_BUILD_ID || n->namesz != 4 ||
	    memcmp(n->name, "GNU", 4) || n->descsz < 1 ||
	    n->descsz > EBID_MAX_ID || g->hexlen < 2 * (size_t)n->descsz + 1)
		return 0;
	ebid_hex(g->hex, n->desc, n->descsz);
	return 1;
}

int ebid_kernel_running_id(char *hex, size_t hexlen, char *err, size_t errlen)
{
	unsigned char buf[4096];
	struct gnu_id g = { hex, hexlen };
	ssize_t n;
	int fd;

	hex[0] = '\0';
	fd = open("/sys/kernel/notes", O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return ebid_err(err, errlen, -errno,
				"cannot open /sys/kernel/notes: %s",
				strerror(errno));
	n = read(fd, buf, sizeof(buf));
	if (n < 0)
		n = -errno;
	close(fd);
	if (n < 0)
		return ebid_err(err, errlen, (int)n,
				"cannot read /sys/kernel/notes: %s",
				strerror((int)-n));
	if (ebid_notes_walk(buf, (size_t)n, HOST_DATA, 4, take_gnu_id, &g) != 1)
		return ebid_err(err, errlen, -ENOENT,
				"the running kernel's notes hold no GNU build-id");
	return 0;
}

/*
 * The vDSO's image ends with its section headers (ELF64 and ELF32): its
 * size, from this machine's own ELF header, or 0 when it is not one.
 */
static uint64_t vdso_size(const unsigned char *base)
{
	if (memcmp(base, ELFMAG, SELFMAG))
		return 0;
	if (base[EI_CLASS] == ELFCLASS64) {
		Elf64_Ehdr eh;

		memcpy(&eh, base, sizeof(eh));
		return eh.e_shoff + (uint64_t)eh.e_shentsize * eh.e_shnum;
	}
	if (base[EI_CLASS] == ELFCLASS32) {
		Elf32_Ehdr eh;

		memcpy(&eh, base, sizeof(eh));
		return eh.e_shoff + (uint64_t)eh.e_shentsize * eh.e_shnum;
	}
	return 0;
}

int ebid_vdso_build_id(char *hex, size_t hexlen, char *err, size_t errlen)
{
	const unsigned char *base =
		(const unsigned char *)getauxval(AT_SYSINFO_EHDR);
	struct ebid_src src = { .fd = -1 };
	struct ebid_elf elf;
	uint64_t size;
	int ret;

	hex[0] = '\0';
	if (!base)
		return ebid_err(err, errlen, -ENOENT, "no vDSO is mapped");
	size = vdso_size(base);
	if (!size || size > VDSO_MAX)
		return ebid_err(err, errlen, -EBID_EMALFORMED,
				"the vDSO's ELF header gives no size up to %u bytes",
				VDSO_MAX);
	src.mem = base;
	src.size = size;
	ret = ebid_elf_read(&elf, &src, err, errlen);
	if (ret)
		return ret;
	if (!elf.gnu.present || elf.gnu.desc_len < 1 ||
	    elf.gnu.desc_len > EBID_MAX_ID ||
	    hexlen < 2 * (size_t)elf.gnu.desc_len + 1)
		ret = ebid_err(err, errlen, -ENOENT,
			       "the vDSO holds no GNU build-id");
	else
		ebid_hex(hex, elf.gnu.desc, elf.gnu.desc_len);
	ebid_elf_release(&elf);
	return ret;
}
