/* SPDX-License-Identifier: MIT */
/*
 * elf-buildid library: read an ELF layout, plan a GNU build-id note, apply
 * it; the three parts by concern.
 */
#ifndef ELF_BUILDID_H
#define ELF_BUILDID_H

#include "elf-buildid/core.h"     /* reading, the id, plans, jobs, errors */
#include "elf-buildid/files.h"    /* descriptors, locks, trees, placing */
#include "elf-buildid/profile.h"  /* profiles, perf bridge, finding by id */

#endif
