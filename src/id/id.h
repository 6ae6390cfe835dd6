/* SPDX-License-Identifier: MIT */
/* What src/id/ exports to the layers above it: hashing, and the planned
 * output produced on the fly. */
#ifndef EBID_ID_ID_H
#define EBID_ID_ID_H

#include "internal.h"

/* Hashing (OpenSSL EVP behind it, src/id/hash.c). */
struct ebid_hash;
int ebid_hash_new(struct ebid_hash **h, enum ebid_hash_alg alg, char *err,
		  size_t errlen);
int ebid_hash_update(struct ebid_hash *h, const void *buf, size_t len,
		     char *err, size_t errlen);
/* Writes the id (digest truncated to ebid_hash_id_len(alg)) into id. */
int ebid_hash_final(struct ebid_hash *h, unsigned char id[EBID_MAX_ID],
		    char *err, size_t errlen);
void ebid_hash_free(struct ebid_hash *h);

/*
 * The planned output, produced on the fly (id.c): output bytes [pos, pos +
 * n) with the id range zeroed (0 or a negative errno); the message for
 * such an error; the id that the plan gives (nothing to do unless the plan
 * fills the id by hashing).
 */
int ebid_read_out(const struct ebid_src *src, const struct ebid_output *o,
		  uint64_t pos, unsigned char *buf, size_t n);
int ebid_read_err(char *err, size_t errlen, int ret);
int ebid_compute_id(const struct ebid_src *src, const struct ebid_output *o,
		    unsigned char id[EBID_MAX_ID], char *err, size_t errlen);

#endif
