/* SPDX-License-Identifier: MIT */
/* The self-check of an output (src/check/selfcheck.c), for job.c. */
#ifndef EBID_JOB_CHECK_H
#define EBID_JOB_CHECK_H

#include "internal.h"

/*
 * Reads an output of plan (made from old) back into *new for
 * ebid_check_result(): its layout, and for a plan that moved sections its
 * symbols and relocations too, over the addresses of what moved (for
 * new-load, past the first page). On failure *new is left released.
 */
int ebid_elf_read_output(struct ebid_elf *new, const struct ebid_src *src,
			 const struct ebid_elf *old,
			 const struct ebid_plan *plan, char *err,
			 size_t errlen);
/*
 * Checks that new, the result of applying plan to old, is what the plan
 * promised: the note is in a .note.gnu.build-id SHF_ALLOC SHT_NOTE section,
 * the kernel's reader finds the same id, and every section and program
 * header of old is unchanged but for those the plan names.
 */
int ebid_check_result(const struct ebid_elf *old, const struct ebid_elf *new,
		      const struct ebid_plan *plan, const unsigned char *id,
		      char *err, size_t errlen);
/*
 * The bytes behind a move, read from the output (out): each run the plan
 * moved (plan->runs) is the input's bytes, its old place past the first
 * page is zero, its strategy's row reads what it adds; where a gap was
 * inserted (and the input in is given) every byte is the planned one, the
 * id aside.
 */
int ebid_check_moved_bytes(const struct ebid_elf *old,
			   const struct ebid_plan *plan,
			   const struct ebid_src *in, const struct ebid_src *out,
			   const unsigned char *id, char *err, size_t errlen);

#endif
