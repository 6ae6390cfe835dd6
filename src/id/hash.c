/* SPDX-License-Identifier: MIT */
/* Hashing: the only module that includes OpenSSL. */
#include <errno.h>
#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>
#include <stdlib.h>
#include <string.h>

#include <openssl/crypto.h>
#include <openssl/err.h>
#include <openssl/evp.h>

#include "internal.h"
#include "id/id.h"

struct ebid_hash {
	EVP_MD_CTX *ctx;
	enum ebid_hash_alg alg;
};

static const EVP_MD *md_of(enum ebid_hash_alg alg)
{
	switch (alg) {
	case EBID_HASH_SHA1:
	case EBID_HASH_SHA1_TREE: /* leaves and root are SHA-1 */
		return EVP_sha1();
	case EBID_HASH_SHA256:
		return EVP_sha256();
	case EBID_HASH_MD5:
		return EVP_md5();
	}
	return NULL;
}

static int ossl_err(char *err, size_t errlen, const char *what)
{
	unsigned long e = ERR_get_error();
	char buf[160];

	if (e)
		ERR_error_string_n(e, buf, sizeof(buf));
	else
		strcpy(buf, "unknown error");
	return ebid_err(err, errlen, -EIO, "%s failed: %s", what, buf);
}

/*
 * The static binary (make STATIC=1, which defines EBID_STATIC) reads no
 * OpenSSL configuration before its first digest. A configuration that
 * activates a provider module (OPENSSL_CONF, or /usr/lib/ssl/openssl.cnf
 * on the machine it was copied to) would make it dlopen that module, and
 * with it the host's libcrypto.so and libc.so: a static glibc program
 * survives that only on the glibc it was linked with. SHA-1, SHA-256 and
 * MD5 are in the default provider, which is built into libcrypto.a.
 * OpenSSL runs its initialisation once however often this is called.
 */
static int ossl_setup(char *err, size_t errlen)
{
#ifdef EBID_STATIC
	if (OPENSSL_init_crypto(OPENSSL_INIT_NO_LOAD_CONFIG, NULL) != 1)
		return ossl_err(err, errlen, "OPENSSL_init_crypto");
#else
	(void)err;
	(void)errlen;
#endif
	return 0;
}

int ebid_hash_new(struct ebid_hash **out, enum ebid_hash_alg alg, char *err,
		  size_t errlen)
{
	struct ebid_hash *h;
	const EVP_MD *md;
	int ret;

	*out = NULL;
	ret = ossl_setup(err, errlen);
	if (ret)
		return ret;
	md = md_of(alg);
	if (!md)
		return ebid_err(err, errlen, -EINVAL, "unknown hash algorithm");
	h = calloc(1, sizeof(*h));
	if (!h)
		return ebid_err(err, errlen, -ENOMEM, "out of memory");
	h->alg = alg;
	h->ctx = EVP_MD_CTX_new();
	if (!h->ctx) {
		free(h);
		return ossl_err(err, errlen, "EVP_MD_CTX_new");
	}
	if (EVP_DigestInit_ex(h->ctx, md, NULL) != 1) {
		ebid_hash_free(h);
		return ossl_err(err, errlen, "EVP_DigestInit_ex");
	}
	*out = h;
	return 0;
}

int ebid_hash_update(struct ebid_hash *h, const void *buf, size_t len,
		     char *err, size_t errlen)
{
	if (EVP_DigestUpdate(h->ctx, buf, len) != 1)
		return ossl_err(err, errlen, "EVP_DigestUpdate");
	return 0;
}

int ebid_hash_final(struct ebid_hash *h, unsigned char id[EBID_MAX_ID],
		    char *err, size_t errlen)
{
	unsigned char md[EVP_MAX_MD_SIZE];
	unsigned int len = 0;

	if (EVP_DigestFinal_ex(h->ctx, md, &len) != 1)
		return ossl_err(err, errlen, "EVP_DigestFinal_ex");
	if (len < ebid_hash_id_len(h->alg))
		return ebid_err(err, errlen, -EIO, "digest too short");
	memcpy(id, md, ebid_hash_id_len(h->alg));
	return 0;
}

void ebid_hash_free(struct ebid_hash *h)
{
	if (!h)
		return;
	EVP_MD_CTX_free(h->ctx);
	free(h);
}

int ebid_sha256_fd(int fd, char hex[65], char *err, size_t errlen)
{
	unsigned char md[EVP_MAX_MD_SIZE], *buf = NULL;
	unsigned int len = 0;
	EVP_MD_CTX *ctx = NULL;
	uint64_t off;
	struct stat st;
	int ret = 0;

	ret = ossl_setup(err, errlen);
	if (ret)
		return ret;
	if (fstat(fd, &st) != 0)
		return ebid_err(err, errlen, -errno, "cannot stat: %s",
				strerror(errno));
	buf = malloc(EBID_IO_CHUNK);
	ctx = EVP_MD_CTX_new();
	if (!buf || !ctx) {
		ret = ebid_err(err, errlen, -ENOMEM, "out of memory");
		goto out;
	}
	if (EVP_DigestInit_ex(ctx, EVP_sha256(), NULL) != 1) {
		ret = ossl_err(err, errlen, "EVP_DigestInit_ex");
		goto out;
	}
	for (off = 0; off < (uint64_t)st.st_size;) {
		size_t n = (uint64_t)st.st_size - off < EBID_IO_CHUNK
				   ? (size_t)((uint64_t)st.st_size - off)
				   : EBID_IO_CHUNK;

		ret = ebid_pread_full(fd, buf, n, off);
		if (ret) {
			ebid_read_err(err, errlen, ret);
			goto out;
		}
		if (EVP_DigestUpdate(ctx, buf, n) != 1) {
			ret = ossl_err(err, errlen, "EVP_DigestUpdate");
			goto out;
		}
		off += n;
	}
	if (EVP_DigestFinal_ex(ctx, md, &len) != 1) {
		ret = ossl_err(err, errlen, "EVP_DigestFinal_ex");
		goto out;
	}
	ebid_hex(hex, md, len);
out:
	EVP_MD_CTX_free(ctx);
	free(buf);
	return ret;
}

/*
 * Go's linker derives the GNU id from the Go build id (-B gobuildid, the
 * default from Go 1.24 whenever -buildid is given): addbuildinfo in
 * cmd/link/internal/ld/elf.go takes the first 20 bytes of a hash of the
 * build id, which changed twice (each measured with the real linker):
 *   Go 1.25 and later: cmd/internal/hash.Sum32, SHA-256 with its first byte
 *     inverted (sum[0] ^= 0xff, cmd/internal/hash/hash.go);
 *   Go 1.24: cmd/internal/hash.Sum32 was SHA-256 with the low bit of its
 *     first byte flipped (sum[0] ^= 1);
 *   Go 1.22 and 1.23 (-B gobuildid is new in 1.22): cmd/internal/notsha256,
 *     SHA-256 with every bit inverted.
 */
/* Which formula, if any, makes gnu (20 bytes) from the Go build id s. */
static enum ebid_go_derivation derive_match(const unsigned char *s, size_t n,
					    const unsigned char *gnu)
{
	unsigned char md[EVP_MAX_MD_SIZE];
	unsigned int len = 0, i;
	char err[160];

	if (ossl_setup(err, sizeof(err)) ||
	    EVP_Digest(s, n, md, &len, EVP_sha256(), NULL) != 1 || len < 20)
		return EBID_GO_DERIVED_NO;
	md[0] ^= 0x01;
	if (!memcmp(md, gnu, 20))
		return EBID_GO_DERIVED_SUM32_GO124;
	md[0] ^= 0x01 ^ 0xff;
	if (!memcmp(md, gnu, 20))
		return EBID_GO_DERIVED_SUM32;
	for (i = 1; i < 20; i++) /* byte 0 is inverted already */
		md[i] ^= 0xff;
	if (!memcmp(md, gnu, 20))
		return EBID_GO_DERIVED_NOTSHA256;
	return EBID_GO_DERIVED_NO;
}

enum ebid_go_derivation ebid_go_derived(const struct ebid_elf *elf)
{
	const struct ebid_note *g = &elf->gnu, *go = &elf->go;

	if (!g->present || !go->present || g->desc_len != 20 ||
	    go->desc_len == 0 || go->desc_len > EBID_GO_ID_MAX)
		return EBID_GO_DERIVED_NO;
	return derive_match(go->desc, go->desc_len, g->desc);
}

bool ebid_go_derived_at_link(const struct ebid_elf *elf)
{
	const struct ebid_note *g = &elf->gnu, *go = &elf->go;
	unsigned char s[EBID_GO_ID_MAX];
	const unsigned char *slash[3];
	size_t n = 0, i, first;

	if (!g->present || !go->present || g->desc_len != 20 ||
	    go->desc_len == 0 || go->desc_len > EBID_GO_ID_MAX)
		return false;
	for (i = 0; i < go->desc_len; i++)
		if (go->desc[i] == '/') {
			if (n == 3)
				return false;
			slash[n++] = go->desc + i;
		}
	if (n != 3)
		return false;
	/* "a/b/c/d" as the linker was given it: "a/b/c/a". */
	first = (size_t)(slash[0] - go->desc);
	n = (size_t)(slash[2] + 1 - go->desc);
	if (n + first > sizeof(s))
		return false;
	memcpy(s, go->desc, n);
	memcpy(s + n, go->desc, first);
	return derive_match(s, n + first, g->desc) != EBID_GO_DERIVED_NO;
}
