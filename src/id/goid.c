/* SPDX-License-Identifier: MIT */
/*
 * What a Go build id says about the GNU id beside it: whether the go
 * command made the Go build id, and so whether a GNU id Go's linker
 * derived from it (ebid_go_derived()) names one build or every build
 * linked with the same string.
 */
#include <stdbool.h>
#include <string.h>

#include "internal.h"

/* One part of a go command build id: cmd/internal/buildid's HashToString. */
#define GO_HASH_CHARS 20

static bool go_hash_char(unsigned char c)
{
	return (c >= 'A' && c <= 'Z') || (c >= 'a' && c <= 'z') ||
	       (c >= '0' && c <= '9') || c == '-' || c == '_';
}

/*
 * The go command writes a build id of content hashes separated by '/'
 * (cmd/go/internal/work/buildid.go): actionID/contentID for a package
 * archive, actionID(binary)/actionID(main.a)/contentID(main.a)/
 * contentID(binary) for a binary; each part is HashToString of a SHA-256
 * (cmd/internal/buildid/buildid.go): 20 characters of URL-safe base64
 * (A-Z a-z 0-9 - _). Those two forms, and nothing else.
 */
bool ebid_go_id_by_go_command(const unsigned char *id, size_t len)
{
	size_t parts = 0, run = 0, i;

	for (i = 0; i < len; i++) {
		if (id[i] == '/') {
			if (run != GO_HASH_CHARS)
				return false;
			parts++;
			run = 0;
		} else if (go_hash_char(id[i])) {
			run++;
		} else {
			return false;
		}
	}
	if (run != GO_HASH_CHARS)
		return false;
	parts++;
	return parts == 2 || parts == 4;
}

bool ebid_gnu_id_constant(const struct ebid_elf *elf)
{
	const struct ebid_note *go = &elf->go;

	if (!go->present || !go->desc_len || go->desc_len > EBID_GO_ID_MAX)
		return false;
	return !ebid_go_id_by_go_command(go->desc, go->desc_len) &&
	       ebid_go_derived(elf) != EBID_GO_DERIVED_NO;
}
