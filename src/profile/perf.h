/* SPDX-License-Identifier: MIT */
/* The perf bridge's half of ebid_profile_read() (src/profile/perf.c), for
 * profile.c. */
#ifndef EBID_PROFILE_PERF_H
#define EBID_PROFILE_PERF_H

#include "internal.h"

/* The halves of ebid_profile_read() for perf.data (src/profile/perf.c). */
/*
 * perf bridge: the binaries with samples in the perf.data open at fd, from
 * `perf buildid-list --with-hits`. *dsos is freed with ebid_dsos_free.
 */
int ebid_perf_hits(int fd, long timeout_ms, struct ebid_dso **dsos,
		   size_t *ndsos, char *err, size_t errlen);
void ebid_dsos_free(struct ebid_dso *v, size_t n);

#endif
