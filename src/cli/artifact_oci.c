/* SPDX-License-Identifier: MIT */
/*
 * OCI image layouts (image-layout.md of the OCI image spec): index.json,
 * its manifests (an index may name further indexes: followed to a bounded
 * depth), their layers, each a tar (gzip, zstd or plain) whose SHA-256
 * must be its digest. Also `docker save`'s older form, manifest.json with
 * "Layers" paths, when there is no index.json.
 *
 * The layers are read from the top down. A path met in an upper layer, or
 * deleted there by a whiteout (.wh.NAME) or below an opaque directory
 * (.wh..wh..opq), is not what the container sees in a lower one: each
 * path is judged once, where the container finds it, and named with that
 * layer. A layout in a tar is read by position (the tar must not be
 * compressed): the blobs are listed first, then each read where it lies.
 */
#ifndef EBID_STATIC
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "cli/artifact_impl.h"
#include "cli/json.h"

#define JSON_MAX (16u << 20)    /* bytes of index.json or a manifest */
#define INDEX_DEPTH 4           /* an index of indexes of ... */
#define MAX_LAYERS 1000

/*
 * What the upper layers hid: exact (a directory there: a lower file of
 * that name), tree (a file or a whiteout there: the path and all below),
 * below (an opaque directory: all below it). The current layer's own
 * entries go to the pending sets, applied when the layer ends.
 */
struct image {
	struct strset exact, tree, below;
	struct strset p_exact, p_tree, p_below;
	/* A layout in a tar: its members, by name, where their headers lie. */
	struct tar_member {
		char *name;
		uint64_t pos, size;
	} *tv;
	size_t tn;
	int fd, dirfd;
};

static bool hidden(const struct image *im, const char *name)
{
	char buf[EBID_PATH_MAX];
	size_t n = strlen(name), i;

	if (art_set_has(&im->exact, name) || art_set_has(&im->below, ""))
		return true;
	if (n >= sizeof(buf))
		return false;
	memcpy(buf, name, n + 1);
	for (i = 0; i <= n; i++) {
		if (i < n && buf[i] != '/')
			continue;
		buf[i] = '\0';
		if (art_set_has(&im->tree, buf) ||
		    (i < n && art_set_has(&im->below, buf)))
			return true;
		if (i < n)
			buf[i] = '/';
	}
	return false;
}

/* art_visible_fn: whiteouts recorded, this layer's entries kept. */
static bool image_visible(struct art *A, const char *name,
			  struct archive_entry *ent)
{
	struct image *im = A->image;
	const char *base = strrchr(name, '/');
	char dir[EBID_PATH_MAX];
	size_t dn = base ? (size_t)(base - name) : 0;
	int ret = 0;

	base = base ? base + 1 : name;
	if (!strncmp(base, ".wh.", 4)) {
		if (dn >= sizeof(dir))
			return false;
		memcpy(dir, name, dn);
		dir[dn] = '\0';
		if (!strcmp(base, ".wh..wh..opq")) {
			ret = art_set_add(&im->p_below, dir);
		} else if (strncmp(base, ".wh..wh.", 8)) {
			snprintf(dir + dn, sizeof(dir) - dn, "%s%s",
				 dn ? "/" : "", base + 4);
			ret = art_set_add(&im->p_tree, dir);
		}
		if (ret)
			art_fail(A, "out of memory");
		return false;
	}
	if (hidden(im, name))
		return false;
	ret = archive_entry_filetype(ent) == AE_IFDIR
		      ? art_set_add(&im->p_exact, name)
		      : art_set_add(&im->p_tree, name);
	if (ret)
		art_fail(A, "out of memory");
	return true;
}

static int merge(struct strset *to, struct strset *from)
{
	size_t i;

	for (i = 0; i < from->cap; i++)
		if (from->v[i] && art_set_add(to, from->v[i]))
			return -1;
	art_set_free(from);
	return 0;
}

/* The descriptors a manifest or an index lists, as far as they are used. */
struct desc {
	char *media, *digest, *os, *arch, *variant;
	unsigned long long size;
	bool sized;
};

struct descs {
	struct desc *v;
	size_t n;
	const char *what;               /* "manifests" or "layers" */
};

static void desc_free(struct desc *d)
{
	free(d->media);
	free(d->digest);
	free(d->os);
	free(d->arch);
	free(d->variant);
	memset(d, 0, sizeof(*d));
}

static void descs_free(struct descs *d)
{
	size_t i;

	for (i = 0; i < d->n; i++)
		desc_free(&d->v[i]);
	free(d->v);
	d->v = NULL;
	d->n = 0;
}

static int platform_member(struct json *ps, const char *key, void *ctx)
{
	struct desc *d = ctx;

	if (!strcmp(key, "os"))
		return json_string(ps, &d->os, "platform.os");
	if (!strcmp(key, "architecture"))
		return json_string(ps, &d->arch, "platform.architecture");
	if (!strcmp(key, "variant"))
		return json_string(ps, &d->variant, "platform.variant");
	return json_value(ps, NULL, NULL);
}

static int size_value(struct json *ps, struct desc *d)
{
	const char *at = ps->p;
	char *end;

	if (json_value(ps, NULL, NULL))
		return -1;
	errno = 0;
	d->size = strtoull(at, &end, 10);
	if (errno || end != ps->p || *at == '-')
		return json_fail(ps, "size is not a whole number");
	d->sized = true;
	return 0;
}

static int desc_member(struct json *ps, const char *key, void *ctx)
{
	struct desc *d = ctx;

	if (!strcmp(key, "mediaType"))
		return json_string(ps, &d->media, "mediaType");
	if (!strcmp(key, "digest"))
		return json_string(ps, &d->digest, "digest");
	if (!strcmp(key, "size"))
		return size_value(ps, d);
	if (!strcmp(key, "platform"))
		return json_enter_object(ps, platform_member, d, "platform");
	return json_value(ps, NULL, NULL);
}

/* One element of "manifests" or "layers" (docker's "Layers": a path). */
static int desc_element(struct json *ps, void *ctx)
{
	struct descs *ds = ctx;
	struct desc d = { 0 }, *nv;
	int ret;

	if (ds->n >= MAX_LAYERS)
		return json_fail(ps, "more than %d %s", MAX_LAYERS, ds->what);
	json_skip_ws(ps);
	if (ps->p < ps->end && *ps->p == '"')
		ret = json_string(ps, &d.digest, ds->what);
	else
		ret = json_enter_object(ps, desc_member, &d, ds->what);
	nv = ret ? NULL : realloc(ds->v, (ds->n + 1) * sizeof(*nv));
	if (!nv) {
		desc_free(&d);
		return ret ? -1 : json_fail(ps, "out of memory");
	}
	ds->v = nv;
	ds->v[ds->n++] = d;
	return 0;
}

static int list_member(struct json *ps, const char *key, void *ctx)
{
	struct descs *ds = ctx;

	if (!strcmp(key, ds->what))
		return json_enter_array(ps, desc_element, ds, key);
	return json_value(ps, NULL, NULL);
}

/* docker save's manifest.json: an array of {"Layers": [...]}; the first. */
static int docker_element(struct json *ps, void *ctx)
{
	struct descs *ds = ctx;

	if (ds->n)
		return json_value(ps, NULL, NULL);
	return json_enter_object(ps, list_member, ds, "manifest.json[0]");
}

/* Parses text for its ds->what list (docker: an array at the top). */
static int parse_descs(const char *text, size_t len, struct descs *ds,
		       bool docker, char *err, size_t errlen)
{
	struct json ps;

	json_init(&ps, text, len, err, errlen);
	if (docker ? json_enter_array(&ps, docker_element, ds, "manifest.json")
		   : json_enter_object(&ps, list_member, ds, "the document"))
		return -1;
	return json_finish(&ps);
}

/* "sha256:<64 hex>" (or sha512): the path below blobs/, and the digest. */
static const EVP_MD *digest_path(const char *digest, char *path, size_t len)
{
	const char *colon = digest ? strchr(digest, ':') : NULL;
	const EVP_MD *md = NULL;

	if (!colon)
		return NULL;
	if (colon - digest == 6 && !strncmp(digest, "sha256", 6))
		md = EVP_sha256();
	else if (colon - digest == 6 && !strncmp(digest, "sha512", 6))
		md = EVP_sha512();
	if (!md || !is_hex(colon + 1, 2 * (size_t)EVP_MD_get_size(md),
			   2 * (size_t)EVP_MD_get_size(md)))
		return NULL;
	snprintf(path, len, "blobs/%.*s/%s", (int)(colon - digest), digest,
		 colon + 1);
	return md;
}

/* A blob or file of the layout being read: its bytes through raw. */
struct blob {
	struct art_stream raw;          /* the bytes (dir: a range of fd) */
	struct art_stream hdr;          /* tar: the range from its header */
	struct archive *one;            /* tar: that one member's archive */
	int fd;                         /* dir: the file */
	uint64_t size;
};

static void blob_close(struct blob *b)
{
	if (!b)
		return;
	if (b->one)
		archive_read_free(b->one);
	if (b->fd >= 0)
		close(b->fd);
	EVP_MD_CTX_free(b->raw.md);
	free(b);
}

static int blob_in_dir(struct art *A, struct image *im, const char *path,
		       struct blob *b)
{
	struct stat st;

	b->fd = openat(im->dirfd, path, O_RDONLY | O_NOFOLLOW | O_CLOEXEC);
	if (b->fd < 0 || fstat(b->fd, &st))
		return art_fail(A, "'%.200s': %s", path, strerror(errno));
	if (!S_ISREG(st.st_mode))
		return art_fail(A, "'%.200s' is not a regular file", path);
	b->raw.fd = b->fd;
	b->raw.end = b->size = (uint64_t)st.st_size;
	return 0;
}

static int blob_in_tar(struct art *A, struct image *im, const char *path,
		       struct blob *b)
{
	struct archive_entry *ent;
	char name[EBID_PATH_MAX];
	size_t i;

	for (i = 0; i < im->tn && strcmp(im->tv[i].name, path); i++)
		;
	if (i == im->tn)
		return art_fail(A, "no member '%.200s'", path);
	b->hdr.fd = im->fd;
	b->hdr.off = im->tv[i].pos;
	b->hdr.end = A->size;
	b->one = art_open(&b->hdr, ART_FMT_TAR, A->err, sizeof(A->err));
	if (!b->one)
		return -1;
	if (archive_read_next_header(b->one, &ent) != ARCHIVE_OK ||
	    art_member_name(archive_entry_pathname(ent), name, sizeof(name),
			    A->err, sizeof(A->err)) ||
	    strcmp(name, path))
		return art_fail(A, "member '%.200s' moved while read", path);
	b->raw.parent = b->one;
	b->size = im->tv[i].size;
	return 0;
}

/* Opens path of the layout; with md, a digest of its bytes as read. */
static struct blob *blob_open(struct art *A, struct image *im,
			      const char *path, const EVP_MD *md)
{
	struct blob *b = calloc(1, sizeof(*b));

	if (!b) {
		art_fail(A, "out of memory");
		return NULL;
	}
	b->fd = -1;
	if ((im->dirfd >= 0 ? blob_in_dir(A, im, path, b)
			    : blob_in_tar(A, im, path, b)) ||
	    (md && (!(b->raw.md = EVP_MD_CTX_new()) ||
		    !EVP_DigestInit_ex(b->raw.md, md, NULL)))) {
		if (!A->err[0])
			art_fail(A, "cannot start a digest");
		blob_close(b);
		return NULL;
	}
	return b;
}

/* Every byte of b read: its digest must be digest's, its size d's. */
static int blob_check(struct art *A, struct blob *b, const char *digest,
		      const struct desc *d)
{
	unsigned char md[EVP_MAX_MD_SIZE];
	char hexd[2 * EVP_MAX_MD_SIZE + 1];
	unsigned n = 0;

	if (art_stream_drain(&b->raw))
		return art_fail(A, "blob '%.100s' cannot be read to its end",
				digest);
	if (!b->raw.md)
		return 0;
	EVP_DigestFinal_ex(b->raw.md, md, &n);
	ebid_hex(hexd, md, n);
	if (strcmp(hexd, strchr(digest, ':') + 1))
		return art_fail(A, "blob '%.100s' does not match its digest (its bytes hash to %.16s...)",
				digest, hexd);
	if (d && d->sized && d->size != b->raw.nread)
		return art_fail(A, "blob '%.100s' has %llu bytes, its descriptor says %llu",
				digest, (unsigned long long)b->raw.nread,
				d->size);
	return 0;
}

/* The whole of a small file of the layout (digest-checked when given). */
static char *slurp(struct art *A, struct image *im, const char *path,
		   const char *digest, size_t *len)
{
	char bp[EBID_PATH_MAX];
	const EVP_MD *md = digest ? digest_path(digest, bp, sizeof(bp)) : NULL;
	struct blob *b;
	char *text = NULL;
	const void *p;
	la_ssize_t n = 0;

	if (!digest && !path) {
		art_fail(A, "a descriptor has no digest");
		return NULL;
	}
	if (digest && !md) {
		art_fail(A, "'%.100s' is not a digest this reader knows",
			 digest);
		return NULL;
	}
	b = blob_open(A, im, digest ? bp : path, md);
	if (!b)
		return NULL;
	if (b->size > JSON_MAX) {
		art_fail(A, "'%.200s' is larger than %u MiB", digest ? bp : path,
			 JSON_MAX >> 20);
	} else if ((text = malloc(b->size + 1))) {
		/* Through the stream, which digests and counts what it reads. */
		for (*len = 0; (n = art_stream_next(&b->raw, &p)) > 0 &&
			       (size_t)n <= b->size - *len;
		     *len += (size_t)n)
			memcpy(text + *len, p, (size_t)n);
		if (n || *len != b->size)
			art_fail(A, "'%.200s' cannot be read",
				 digest ? bp : path);
		else if (digest)
			blob_check(A, b, digest, NULL);
	}
	blob_close(b);
	if (A->err[0]) {
		free(text);
		return NULL;
	}
	return text;
}

static bool is_layer(const struct desc *d)
{
	return !d->media || strstr(d->media, "tar");
}

/* One layer: its members that the container sees, then its digest. */
static int read_layer(struct art *A, struct image *im, const struct desc *d)
{
	char bp[EBID_PATH_MAX];
	const EVP_MD *md = digest_path(d->digest, bp, sizeof(bp));
	struct archive *a;
	struct blob *b;
	int ret;

	/* docker save's older form names a layer by its path. */
	b = blob_open(A, im, md ? bp : d->digest, md);
	if (!b)
		return -1;
	/*
	 * A layout directory's own size says nothing of its blobs: the
	 * decompression-bomb ratio counts the layers' bytes read so far.
	 */
	if (im->dirfd >= 0)
		A->size += b->size;
	a = art_open(&b->raw, ART_FMT_TAR | ART_FMT_EMPTY, A->err,
		     sizeof(A->err));
	ret = a ? art_members(A, a) : -1;
	if (a)
		archive_read_free(a);
	if (!ret && md)
		ret = blob_check(A, b, d->digest, d);
	blob_close(b);
	if (ret && strncmp(A->err, "blob", 4)) {
		char why[EBID_ERRLEN];

		snprintf(why, sizeof(why), "%s", A->err);
		snprintf(A->err, sizeof(A->err), "%.90s: %.400s", A->layer, why);
	}
	if (!ret && (merge(&im->exact, &im->p_exact) ||
		     merge(&im->tree, &im->p_tree) ||
		     merge(&im->below, &im->p_below)))
		ret = art_fail(A, "out of memory");
	return ret;
}

static void sets_free(struct image *im)
{
	art_set_free(&im->exact);
	art_set_free(&im->tree);
	art_set_free(&im->below);
	art_set_free(&im->p_exact);
	art_set_free(&im->p_tree);
	art_set_free(&im->p_below);
}

/* The layers of one manifest, from the top down. */
static int read_layers(struct art *A, struct image *im, struct descs *ls)
{
	size_t i, n = 0, k = 0;
	int ret = 0;

	for (i = 0; i < ls->n; i++) {
		if (!ls->v[i].digest)
			return art_fail(A, "a layer has no digest");
		n += is_layer(&ls->v[i]);
	}
	A->image = im;
	A->visible = image_visible;
	for (i = ls->n; i-- > 0 && !ret;) {
		if (!is_layer(&ls->v[i]))
			continue;
		snprintf(A->layer, sizeof(A->layer), "layer %zu/%zu %.19s",
			 n - k++, n, ls->v[i].digest);
		ret = read_layer(A, im, &ls->v[i]);
	}
	A->visible = NULL;
	A->layer[0] = '\0';
	sets_free(im);
	return ret;
}

static bool is_index(const struct desc *d)
{
	return d->media && (strstr(d->media, "image.index") ||
			    strstr(d->media, "manifest.list"));
}

/* The manifests an index names, indexes followed, into out. */
static int collect(struct art *A, struct image *im, const char *text,
		   size_t len, struct descs *out, int depth)
{
	struct descs ds = { NULL, 0, "manifests" };
	size_t i;
	int ret;

	if (parse_descs(text, len, &ds, false, A->err, sizeof(A->err))) {
		descs_free(&ds);
		return -1;
	}
	for (i = 0, ret = 0; i < ds.n && !ret; i++) {
		struct desc *d = &ds.v[i];
		struct desc *nv;
		char *sub;
		size_t sn;

		if (d->os && !strcmp(d->os, "unknown"))
			continue; /* an attestation, not a file system */
		if (!is_index(d)) {
			nv = realloc(out->v, (out->n + 1) * sizeof(*nv));
			if (!nv)
				return art_fail(A, "out of memory");
			out->v = nv;
			out->v[out->n++] = *d;
			memset(d, 0, sizeof(*d));
			continue;
		}
		if (depth >= INDEX_DEPTH)
			ret = art_fail(A, "indexes nested deeper than %d",
				       INDEX_DEPTH);
		else if (!(sub = slurp(A, im, NULL, d->digest, &sn)))
			ret = -1;
		else {
			ret = collect(A, im, sub, sn, out, depth + 1);
			free(sub);
		}
	}
	descs_free(&ds);
	return ret;
}

/* One manifest (its blob digest-checked): its layers. */
static int read_manifest(struct art *A, struct image *im, const struct desc *m)
{
	struct descs ls = { NULL, 0, "layers" };
	char *text;
	size_t len;
	int ret;

	text = slurp(A, im, NULL, m->digest, &len);
	if (!text)
		return -1;
	ret = parse_descs(text, len, &ls, false, A->err, sizeof(A->err));
	if (ret)
		art_fail(A, "manifest '%.100s': %s", m->digest, A->err);
	free(text);
	if (!ret)
		ret = read_layers(A, im, &ls);
	descs_free(&ls);
	return ret;
}

/*
 * docker save's "Layers" name blobs by path: blobs/sha256/HEX (Docker 25
 * and later) becomes the digest sha256:HEX, checked like an OCI layer's;
 * an older ID/layer.tar stays a path, which no digest covers.
 */
static void as_digest(char *p)
{
	char d[EBID_PATH_MAX], bp[EBID_PATH_MAX];
	const char *slash = p && !strncmp(p, "blobs/", 6) ? strchr(p + 6, '/')
							  : NULL;

	if (!slash)
		return;
	snprintf(d, sizeof(d), "%.*s:%s", (int)(slash - p - 6), p + 6,
		 slash + 1);
	if (digest_path(d, bp, sizeof(bp)))
		memcpy(p, d, strlen(d) + 1); /* six bytes shorter */
}

static int read_docker(struct art *A, struct image *im)
{
	struct descs ls = { NULL, 0, "Layers" };
	size_t len;
	char *text = slurp(A, im, "manifest.json", NULL, &len);
	int ret;

	if (!text)
		return -1;
	ret = parse_descs(text, len, &ls, true, A->err, sizeof(A->err));
	free(text);
	for (size_t i = 0; !ret && i < ls.n; i++)
		as_digest(ls.v[i].digest);
	if (!ret)
		ret = read_layers(A, im, &ls);
	descs_free(&ls);
	return ret;
}

static int read_image(struct art *A, struct image *im)
{
	struct descs ms = { NULL, 0, "manifests" };
	char plat[128], *text;
	size_t len, i;
	int ret;

	text = slurp(A, im, "index.json", NULL, &len);
	if (!text && im->dirfd < 0 && strstr(A->err, "no member")) {
		A->err[0] = '\0';
		return read_docker(A, im);
	}
	if (!text)
		return -1;
	ret = collect(A, im, text, len, &ms, 0);
	free(text);
	if (!ret && !ms.n)
		ret = art_fail(A, "index.json names no image manifest");
	for (i = 0; !ret && i < ms.n; i++) {
		const struct desc *m = &ms.v[i];

		snprintf(plat, sizeof(plat), "[%s/%s%s%s]",
			 m->os ? m->os : "?", m->arch ? m->arch : "?",
			 m->variant ? "/" : "", m->variant ? m->variant : "");
		A->platform = ms.n > 1 ? plat : "";
		ret = read_manifest(A, im, m);
	}
	A->platform = "";
	descs_free(&ms);
	return ret;
}

int art_read_oci_dir(struct art *A, int dirfd)
{
	struct image im = { .fd = -1, .dirfd = dirfd };

	return read_image(A, &im);
}

/*
 * An uncompressed tar holding oci-layout (or docker save's manifest.json):
 * its members are listed, by where their headers lie, into A->image.
 */
bool art_is_image_tar(struct art *A, struct art_stream *top)
{
	struct image *im;
	struct archive *a;
	struct archive_entry *ent;
	unsigned char b[512];
	bool layout = false, docker = false;
	char name[EBID_PATH_MAX], why[EBID_ERRLEN];

	if (pread(top->fd, b, sizeof(b), 0) != (ssize_t)sizeof(b) ||
	    memcmp(b + 257, "ustar", 5))
		return false;
	im = calloc(1, sizeof(*im));
	a = im ? art_open(top, ART_FMT_TAR, why, sizeof(why)) : NULL;
	while (a && archive_read_next_header(a, &ent) == ARCHIVE_OK) {
		struct tar_member *nv;

		if (art_member_name(archive_entry_pathname(ent), name,
				    sizeof(name), why, sizeof(why)))
			continue; /* the plain reading says what is wrong */
		layout |= !strcmp(name, "oci-layout");
		docker |= !strcmp(name, "manifest.json");
		nv = realloc(im->tv, (im->tn + 1) * sizeof(*nv));
		if (!nv)
			break;
		im->tv = nv;
		im->tv[im->tn].name = strdup(name);
		im->tv[im->tn].pos = (uint64_t)archive_read_header_position(a);
		im->tv[im->tn++].size = (uint64_t)archive_entry_size(ent);
	}
	if (a)
		archive_read_free(a);
	top->off = 0;
	if (!im || !(layout || docker)) {
		for (size_t i = 0; im && i < im->tn; i++)
			free(im->tv[i].name);
		if (im)
			free(im->tv);
		free(im);
		return false;
	}
	im->fd = top->fd;
	im->dirfd = -1;
	A->image = im;
	return true;
}

int art_read_oci_tar(struct art *A, struct art_stream *top)
{
	struct image *im = A->image;
	int ret;
	size_t i;

	(void)top;
	ret = read_image(A, im);
	for (i = 0; i < im->tn; i++)
		free(im->tv[i].name);
	free(im->tv);
	free(im);
	A->image = NULL;
	return ret;
}
#endif /* EBID_STATIC */
