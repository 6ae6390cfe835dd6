/* SPDX-License-Identifier: MIT */
/*
 * Files named by their build-id: the .build-id/ab/cdef... path that perf's
 * cache and the debug directories share, spelled here once.
 */
#include <ctype.h>
#include <errno.h>
#include <stdio.h>
#include <string.h>

#include "internal.h"

bool ebid_is_hex_id(const char *hex)
{
	size_t i, n = strlen(hex);

	if (n < 2 || n > 2 * EBID_MAX_ID)
		return false;
	for (i = 0; i < n; i++)
		if (!isxdigit((unsigned char)hex[i]))
			return false;
	return true;
}

int ebid_build_id_path(char *buf, size_t len, const char *dir,
		       const char *hex, const char *suffix)
{
	int n;

	if (!ebid_is_hex_id(hex))
		return -EINVAL;
	n = snprintf(buf, len, "%s%s.build-id/%.2s/%s%s", dir ? dir : "",
		     dir ? "/" : "", hex, hex + 2, suffix ? suffix : "");
	if (n < 0 || (size_t)n >= len)
		return -ENAMETOOLONG;
	return 0;
}

