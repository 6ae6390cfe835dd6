/* SPDX-License-Identifier: MIT */
/*
 * An ELF member into memory (artifact.h): a sealed memfd filled straight
 * from the archive through a shared mapping, its SHA-256 taken by a second
 * thread behind the unpacking, so that hashing costs no extra pass.
 */
#ifndef EBID_STATIC
#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#include "cli/artifact_impl.h"

/* SHA-256 of a member, computed by a thread behind the unpacking. */
struct hasher {
	pthread_t thread;
	pthread_mutex_t lock;
	pthread_cond_t cond;
	const unsigned char *base;
	size_t ready;
	bool stop, threaded;
	EVP_MD_CTX *md;
};

static void *hash_loop(void *arg)
{
	struct hasher *h = arg;
	size_t done = 0;

	for (;;) {
		size_t upto;
		bool stop;

		pthread_mutex_lock(&h->lock);
		while (h->ready == done && !h->stop)
			pthread_cond_wait(&h->cond, &h->lock);
		upto = h->ready;
		stop = h->stop;
		pthread_mutex_unlock(&h->lock);
		if (upto > done) {
			EVP_DigestUpdate(h->md, h->base + done, upto - done);
			done = upto;
		} else if (stop) {
			return NULL;
		}
	}
}

static void hasher_advance(struct hasher *h, size_t ready)
{
	pthread_mutex_lock(&h->lock);
	h->ready = ready;
	pthread_cond_signal(&h->cond);
	pthread_mutex_unlock(&h->lock);
}

/* Unpacks the member's size bytes into map, hashed in a second thread. */
static int unpack_into(struct art *A, struct archive *a, unsigned char *map,
		       size_t got, size_t size, char sha[65])
{
	struct hasher h = { .base = map, .ready = got };
	unsigned char d[EVP_MAX_MD_SIZE];
	unsigned dn = 0;
	int ret = 0;

	h.md = EVP_MD_CTX_new();
	if (!h.md || !EVP_DigestInit_ex(h.md, EVP_sha256(), NULL)) {
		EVP_MD_CTX_free(h.md);
		return art_fail(A, "cannot start SHA-256");
	}
	pthread_mutex_init(&h.lock, NULL);
	pthread_cond_init(&h.cond, NULL);
	h.threaded = size > (4u << 20) &&
		     !pthread_create(&h.thread, NULL, hash_loop, &h);
	while (got < size) {
		size_t want = size - got > (4u << 20) ? 4u << 20 : size - got;
		la_ssize_t n = archive_read_data(a, map + got, want);

		if (n <= 0) {
			ret = art_fail(A, "member '%.200s' ends early: %s",
				       A->r->members[A->r->nmembers - 1].path +
					       A->r->members[A->r->nmembers - 1]
						       .member_at,
				       n ? archive_error_string(a)
					 : "truncated archive");
			break;
		}
		got += (size_t)n;
		if (h.threaded)
			hasher_advance(&h, got);
	}
	if (h.threaded) {
		pthread_mutex_lock(&h.lock);
		h.stop = true;
		pthread_cond_signal(&h.cond);
		pthread_mutex_unlock(&h.lock);
		pthread_join(h.thread, NULL);
	} else {
		EVP_DigestUpdate(h.md, map, got);
	}
	EVP_DigestFinal_ex(h.md, d, &dn);
	ebid_hex(sha, d, dn);
	EVP_MD_CTX_free(h.md);
	pthread_mutex_destroy(&h.lock);
	pthread_cond_destroy(&h.cond);
	return ret;
}

/* MemAvailable from /proc/meminfo, in bytes; 0 when unknown. */
static uint64_t mem_available(void)
{
	char line[128];
	unsigned long long kb = 0;
	FILE *f = fopen("/proc/meminfo", "re");

	if (!f)
		return 0;
	while (fgets(line, sizeof(line), f))
		if (sscanf(line, "MemAvailable: %llu kB", &kb) == 1)
			break;
	fclose(f);
	return (uint64_t)kb << 10;
}

/*
 * A memory file holding the member: head (its first bytes, already read)
 * and the rest from a. The descriptor, sealed, or -1 (the artifact
 * failed).
 */
int art_load_elf(struct art *A, struct archive *a,
		 const unsigned char *head, size_t got, uint64_t size,
		 struct result *r)
{
	unsigned char *map;
	int fd, ret;

	fd = memfd_create("elf-buildid-member", MFD_CLOEXEC | MFD_ALLOW_SEALING);
	if (fd < 0 || ftruncate(fd, (off_t)size)) {
		if (fd >= 0)
			close(fd);
		return art_fail(A, "cannot hold a member of %llu bytes in memory: %s",
				(unsigned long long)size, strerror(errno));
	}
	map = mmap(NULL, (size_t)size, PROT_READ | PROT_WRITE,
		   MAP_SHARED | MAP_POPULATE, fd,
		   0);
	if (map == MAP_FAILED) {
		close(fd);
		return art_fail(A, "cannot map a member of %llu bytes: %s",
				(unsigned long long)size, strerror(errno));
	}
	memcpy(map, head, got);
	ret = unpack_into(A, a, map, got, (size_t)size, r->sha256);
	munmap(map, (size_t)size);
	if (ret) {
		close(fd);
		return -1;
	}
	fcntl(fd, F_ADD_SEALS,
	      F_SEAL_SHRINK | F_SEAL_GROW | F_SEAL_WRITE | F_SEAL_SEAL);
	return fd;
}

/* A member too big to hold: an ERROR for it, the artifact read on. */
bool art_too_big(struct art *A, uint64_t size, struct result *r)
{
	uint64_t avail = mem_available();

	if (size > A->cli->limits.member) {
		snprintf(r->msg, sizeof(r->msg),
			 "member of %llu bytes is larger than the %llu a member may have in memory (--limit member=SIZE)",
			 (unsigned long long)size,
			 (unsigned long long)A->cli->limits.member);
	} else if (avail && size > avail) {
		snprintf(r->msg, sizeof(r->msg),
			 "member of %llu bytes is larger than the memory available (%llu bytes)",
			 (unsigned long long)size, (unsigned long long)avail);
	} else {
		return false;
	}
	r->status = EXIT_FILE;
	r->outcome = OUT_FAILED;
	return true;
}
#endif /* EBID_STATIC */
