/* SPDX-License-Identifier: MIT */
/*
 * Unit tests (TAP) for the loaders' rules over PT_LOADs (src/elf/layout.c,
 * ebid_loads_hold() and ebid_loads_no_worse()), on program header tables
 * copied from real files: the gold library of issue 28 (snappy's
 * libsnappy_test_support.so, which glibc 2.36 refused after inject with
 * "ELF load command address/offset not page-aligned"), the layouts GNU ld
 * and lld write, and inputs that already break a rule, which a rewrite is
 * not asked to mend. tests/t0383-loader-pages.sh shows the same rule on
 * built libraries with dlopen().
 */
#include <elf.h>
#include <stdio.h>
#include <string.h>

#include "internal.h"
#include "elf/layout.h"

#include "tap.h"


#define LOAD(off, addr, fsz, msz, al) \
	{ .type = PT_LOAD, .offset = (off), .vaddr = (addr), .paddr = (addr), \
	  .filesz = (fsz), .memsz = (msz), .align = (al) }

/* snappy's library from gold, as linked and as inject left it. */
static const struct ebid_phdr gold_in[] = {
	LOAD(0, 0, 0x4840, 0x4840, 0x1000),
	LOAD(0x4d60, 0x5d60, 0x2c8, 0x2d0, 0x1000),
};
static const struct ebid_phdr gold_out[] = {
	LOAD(0, 0, 0x50e0, 0x50e0, 0x1000),
	LOAD(0x5d60, 0x5d60, 0x2c8, 0x2d0, 0x1000),
};
/* lld's four segments (-z noseparate-code packs the file, not memory). */
static const struct ebid_phdr lld[] = {
	LOAD(0, 0, 0x5b0, 0x5b0, 0x1000),
	LOAD(0x5b0, 0x15b0, 0x1a0, 0x1a0, 0x1000),
	LOAD(0x750, 0x2750, 0x1f0, 0x1f0, 0x1000),
	LOAD(0x940, 0x3940, 0x28, 0x30, 0x1000),
};
/* GNU ld's text and data 2 MiB apart (max-page-size 0x200000). */
static const struct ebid_phdr bfd_2m[] = {
	LOAD(0, 0x400000, 0x80c, 0x80c, 0x200000),
	LOAD(0xe10, 0x600e10, 0x230, 0x238, 0x200000),
};

static char why[EBID_ERRLEN];

static bool holds(const struct ebid_phdr *ph, size_t nph, uint64_t page)
{
	why[0] = '\0';
	return ebid_loads_hold(ph, nph, page, why, sizeof(why));
}

static void test_linkers(void)
{
	ok(holds(gold_in, 2, 4096), "gold's library as linked keeps the rules at 4 KiB");
	ok(holds(lld, 4, 4096), "lld's four segments keep them");
	ok(holds(bfd_2m, 2, 4096) && holds(bfd_2m, 2, 64 << 10),
	   "GNU ld's 2 MiB layout keeps them at 4 and 64 KiB");
}

static void test_gold_out(void)
{
	ok(!holds(gold_out, 2, 4096) && strstr(why, "PT_LOAD [0] ends (0x50e0)") &&
		   strstr(why, "PT_LOAD [1] starts (0x5d60)"),
	   "the layout glibc refused breaks the page rule, naming both PT_LOADs");
	ok(!ebid_loads_no_worse(gold_in, 2, gold_out, 2, why, sizeof(why)) &&
		   strstr(why, "(page size 4 KiB)"),
	   "no_worse refuses the rewrite and names the page size");
}

static void test_each_rule(void)
{
	struct ebid_phdr t[2];

	memcpy(t, lld, sizeof(t));
	t[1].offset += 8;
	ok(!holds(t, 2, 4096) && strstr(why, "differ modulo the page"),
	   "offset and address not congruent: refused");
	memcpy(t, lld, sizeof(t));
	t[1].filesz = t[1].memsz + 1;
	ok(!holds(t, 2, 4096) && strstr(why, "p_filesz is larger"),
	   "p_filesz > p_memsz: refused");
	t[0] = lld[1];
	t[1] = lld[0];
	ok(!holds(t, 2, 4096) && strstr(why, "address order"),
	   "PT_LOADs out of address order: refused");
	memcpy(t, lld, sizeof(t));
	t[1].vaddr = UINT64_MAX - 0xfff + 0x5b0;
	t[1].offset = 0x5b0;
	t[1].memsz = 0x2000;
	ok(!holds(t, 2, 4096) && strstr(why, "wraps"),
	   "a PT_LOAD that wraps the address space: refused");
	memcpy(t, lld, sizeof(t));
	t[0].memsz = t[0].filesz = 0x1001;
	ok(!holds(t, 2, 4096), "one byte into the next segment's page: refused");
	t[0].memsz = t[0].filesz = 0x1000;
	ok(holds(t, 2, 4096), "ending exactly at that page: kept");
}

static void test_no_worse(void)
{
	struct ebid_phdr in[2], out[2];

	/* An input that already shares a page: not asked of the output. */
	memcpy(in, gold_out, sizeof(in));
	memcpy(out, gold_out, sizeof(out));
	out[0].filesz = out[0].memsz = 0x5100;
	ok(ebid_loads_no_worse(in, 2, out, 2, why, sizeof(why)),
	   "a rule the input broke is not asked of the output");
	/* 64 KiB segments (arm64, ppc64): the rule holds at 64 KiB too. */
	memcpy(in, lld, sizeof(in));
	in[0].align = in[1].align = 0x10000;
	in[1].offset = 0xf5b0;
	in[1].vaddr = 0x1f5b0;
	in[0].memsz = in[0].filesz = 0x5b0;
	memcpy(out, in, sizeof(out));
	out[0].filesz = out[0].memsz = 0x10100;
	ok(!ebid_loads_no_worse(in, 2, out, 2, why, sizeof(why)) &&
		   strstr(why, "(page size 64 KiB)"),
	   "64 KiB segments: growing into the next one's 64 KiB page is refused (4 KiB alone would pass)");
	out[0].filesz = out[0].memsz = 0x8000;
	ok(ebid_loads_no_worse(in, 2, out, 2, why, sizeof(why)),
	   "64 KiB segments: growing inside the own 64 KiB page is kept");
}

int main(void)
{
	test_linkers();
	test_gold_out();
	test_each_rule();
	test_no_worse();
	return tap_done();
}
