/* SPDX-License-Identifier: MIT */
/*
 * Unit tests (TAP) for the planner, through the public API
 * (include/elf-buildid.h) and, white-box, the self-check's, the reader's
 * and the plan's internal headers (plan/plan.h: its fields): real and crafted ELF files are read into memory,
 * planned (inject, reserve, backfill; sha1, sha256, md5, sha1-tree, --id,
 * --force), applied to memory and read back. Each output is judged by the
 * library's own self-check and by readers written here: the id is the hash
 * recomputed with OpenSSL as docs/build-id.md defines it, the note is found
 * by section name and by the kernel's rules (and ebid_note_view agrees),
 * headers stay consistent, only planned bytes changed, planning twice gives
 * the same plan, and planning the output again changes nothing; reserve
 * then backfill gives inject's bytes. Refusals give the documented error
 * codes. Placement itself (which offsets) is pinned by the golden --dry-run
 * files of tests/t0360-golden-dry-run.sh, not here.
 *
 * Usage: test_plan [FIXTURES-DIR]
 *        test_plan --matrix [MATRIX-DIR]
 * The first form plans the synthetic files built here, the test binary
 * itself (a C program from the host linker) and the fixtures, $EBID_FIXTURES
 * or build/fixtures (scripts/build-fixtures.sh, which tests/run.sh runs
 * first): `make test` runs it. The second plans the compatibility-matrix
 * shapes below, $EBID_MATRIX or build/matrix: tests/t0302-plan-matrix.sh
 * runs it in the slow tier, after t0300 and t0301 have built the matrix.
 * An input that is missing is a failure, not a skip: each form runs only
 * where its inputs are built.
 * With $EBID_TEST_DUMP set to a directory, the synthetic files are written
 * there too (to try the tool on them).
 * The file holds main(); the tests are in tests/unit/plan/, by concern:
 * bytes.h, reader.h, idcheck.h, case.h, requests.h, craft.h, synthetic.h,
 * real.h.
 */
#include <elf.h>
#include <errno.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#include <openssl/evp.h>

/* White-box: the self-check and reader internals (src/internal.h). */
#include "internal.h"
#include "elf/elf.h"
#include "check/check.h"
#include "plan/plan.h"     /* the plan's fields, opaque outside plan/ */

#include "tap.h"

/* The tests, by concern (tests/unit/plan/), in one translation unit. */
#include "plan/bytes.h"
#include "plan/reader.h"
#include "plan/idcheck.h"
#include "plan/case.h"
#include "plan/requests.h"
#include "plan/craft.h"
#include "plan/synthetic.h"
#include "plan/real.h"

int main(int argc, char **argv)
{
	setvbuf(stdout, NULL, _IOLBF, 0);
	if (argc == 4 && !strcmp(argv[1], "--file")) {
		one_file(argv[2], argv[3]);
	} else if (argc > 1 && !strcmp(argv[1], "--matrix")) {
		matrix(dir_of(argc, argv, 2, "EBID_MATRIX", "build/matrix"));
	} else {
		synthetic();
		self();
		fixtures(dir_of(argc, argv, 1, "EBID_FIXTURES",
				"build/fixtures"));
	}
	return tap_done();
}
