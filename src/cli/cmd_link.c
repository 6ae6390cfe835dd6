/* SPDX-License-Identifier: MIT */
/* link: make a file findable by its build-id (debug tree or perf's cache). */
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <linux/fs.h>
#include <sys/ioctl.h>
#include <sys/stat.h>
#include <unistd.h>

#include "cli/cli.h"
#include "internal.h"

/* mkdir -p of a directory the user named; returns 0 or -errno. */
static int mkdirs(const char *dir)
{
	char *p = strdup(dir), *s;
	int ret = 0;

	if (!p)
		return -ENOMEM;
	for (s = p + 1; ; s++) {
		if (*s == '/' || *s == '\0') {
			char c = *s;

			*s = '\0';
			if (mkdir(p, 0755) != 0 && errno != EEXIST) {
				ret = -errno;
				break;
			}
			*s = c;
			if (!c)
				break;
		}
	}
	free(p);
	return ret;
}

/* Whether the files open at a and b hold the same bytes. */
static bool same_bytes(int a, int b)
{
	unsigned char *x = malloc(EBID_IO_CHUNK), *y = malloc(EBID_IO_CHUNK);
	struct stat sa, sb;
	uint64_t off, size;
	bool same = false;

	if (!x || !y || fstat(a, &sa) || fstat(b, &sb) ||
	    sa.st_size != sb.st_size)
		goto out;
	size = (uint64_t)sa.st_size;
	for (off = 0; off < size;) {
		size_t n = size - off < EBID_IO_CHUNK ? (size_t)(size - off)
						      : EBID_IO_CHUNK;

		if (ebid_pread_full(a, x, n, off) ||
		    ebid_pread_full(b, y, n, off) || memcmp(x, y, n))
			goto out;
		off += n;
	}
	same = true;
out:
	free(x);
	free(y);
	return same;
}

/* Copies the file open at in into out: a reflink where it can. */
static int copy_fd(int in, int out)
{
	unsigned char *buf;
	struct stat st;
	uint64_t off, size;
	int ret = 0;

	if (ioctl(out, FICLONE, in) == 0)
		return 0;
	if (fstat(in, &st) != 0)
		return -errno;
	buf = malloc(EBID_IO_CHUNK);
	if (!buf)
		return -ENOMEM;
	size = (uint64_t)st.st_size;
	for (off = 0; !ret && off < size;) {
		size_t n = size - off < EBID_IO_CHUNK ? (size_t)(size - off)
						      : EBID_IO_CHUNK;

		ret = ebid_pread_full(in, buf, n, off);
		if (!ret)
			ret = ebid_pwrite_full(out, buf, n, off);
		off += n;
	}
	free(buf);
	return ret;
}

/*
 * A destination below a held root: rel's directory, made with mkdirat and
 * opened without following symlinks, and the last component's name.
 */
struct dest {
	int dirfd;
	const char *name;       /* points into rel */
};

static int dest_open(struct dest *d, int rootfd, const char *root,
		     const char *rel, char *err, size_t errlen)
{
	char *dir = strdup(rel), *slash;
	char why[EBID_ERRLEN];
	int ret;

	d->dirfd = -1;
	if (!dir)
		return ebid_err(err, errlen, -ENOMEM, "out of memory");
	slash = strrchr(dir, '/');
	d->name = slash ? rel + (slash - dir) + 1 : rel;
	if (slash)
		*slash = '\0';
	ret = slash ? ebid_mkdirs_beneath(rootfd, dir, &d->dirfd, why,
					  sizeof(why))
		    : (d->dirfd = fcntl(rootfd, F_DUPFD_CLOEXEC, 0)) < 0
			      ? ebid_err(why, sizeof(why), -errno, "%s",
					 strerror(errno))
			      : 0;
	free(dir);
	if (ret)
		return ebid_err(err, errlen, ret, "cannot place '%s/%s': %s",
				root, rel, why);
	return 0;
}

/*
 * Places a copy of the file open at in at root/rel (a reflink where the
 * file system can). A copy, not a hard link: a binary later overwritten
 * in place (cp, install without rename) must not change what its old id
 * points to. Never replaces, never writes through a symlink: the same
 * bytes already there are fine, anything else is refused (or, with
 * keep_other, left as it is).
 */
static int place(int in, int rootfd, const char *root, const char *rel,
		 bool keep_other, char *err, size_t errlen)
{
	struct dest d;
	struct stat a, b;
	char *tmp = NULL;
	int ret, out = -1, have;

	ret = dest_open(&d, rootfd, root, rel, err, errlen);
	if (ret)
		return ret;
	if (fstatat(d.dirfd, d.name, &b, AT_SYMLINK_NOFOLLOW) == 0) {
		if (S_ISLNK(b.st_mode)) {
			ret = ebid_err(err, errlen, -ELOOP,
				       "'%s/%s' is a symlink; refusing to write through it",
				       root, rel);
			goto out;
		}
		have = openat(d.dirfd, d.name, O_RDONLY | O_NOFOLLOW |
						 O_NONBLOCK | O_CLOEXEC);
		if (have >= 0 && !fstat(in, &a) && !fstat(have, &b) &&
		    S_ISREG(b.st_mode) &&
		    ((a.st_dev == b.st_dev && a.st_ino == b.st_ino) ||
		     same_bytes(in, have))) {
			close(have);
			goto out; /* already there */
		}
		if (have >= 0)
			close(have);
		if (keep_other)
			goto out;
		ret = ebid_err(err, errlen, -EEXIST,
			       "collision: a different file is already at '%s/%s'",
			       root, rel);
		goto out;
	}
	/* Copy to a temporary name, then link it in: never clobbers. */
	if (asprintf(&tmp, ".%s.ebid-link", d.name) < 0) {
		tmp = NULL;
		ret = ebid_err(err, errlen, -ENOMEM, "out of memory");
		goto out;
	}
	unlinkat(d.dirfd, tmp, 0); /* a killed run's */
	out = openat(d.dirfd, tmp, O_RDWR | O_CREAT | O_EXCL | O_NOFOLLOW |
					   O_CLOEXEC, 0600);
	if (out < 0) {
		ret = ebid_err(err, errlen, -errno, "cannot copy to '%s/%s': %s",
			       root, rel, strerror(errno));
		free(tmp);
		tmp = NULL;
		goto out;
	}
	ret = copy_fd(in, out);
	if (!ret && (fchmod(out, 0644) || fsync(out) ||
		     linkat(d.dirfd, tmp, d.dirfd, d.name, 0)))
		ret = -errno;
	if (ret)
		ebid_err(err, errlen, ret, "cannot copy to '%s/%s': %s", root,
			 rel, strerror(-ret));
out:
	if (out >= 0)
		close(out);
	if (tmp)
		unlinkat(d.dirfd, tmp, 0);
	free(tmp);
	close(d.dirfd);
	return ret;
}

/* A symlink at root/rel pointing to target; an equal one is fine. */
static int place_symlink(const char *target, int rootfd, const char *root,
			 const char *rel, char *err, size_t errlen)
{
	char have[PATH_MAX];
	struct dest d;
	ssize_t n;
	int ret;

	ret = dest_open(&d, rootfd, root, rel, err, errlen);
	if (ret)
		return ret;
	if (symlinkat(target, d.dirfd, d.name) == 0)
		goto out;
	if (errno != EEXIST) {
		ret = ebid_err(err, errlen, -errno,
			       "cannot make symlink '%s/%s': %s", root, rel,
			       strerror(errno));
		goto out;
	}
	n = readlinkat(d.dirfd, d.name, have, sizeof(have) - 1);
	if (n >= 0) {
		have[n] = '\0';
		if (!strcmp(have, target))
			goto out;
	}
	ret = ebid_err(err, errlen, -EEXIST,
		       "collision: '%s/%s' already exists and points elsewhere",
		       root, rel);
out:
	close(d.dirfd);
	return ret;
}

/*
 * Opens, under its shared lock, the separate debug file that
 * .gnu_debuglink names, where gdb looks: beside the binary, in .debug
 * below it, and below the debug directory. Never the binary itself.
 */
static int open_debug_file(const struct cli *cli, const struct ebid_at *bin,
			   const struct stat *bin_st, const char *bin_dir,
			   const char *name, struct stat *st)
{
	char *cand[3] = { NULL, NULL, NULL };
	int i, fd = -1;

	if (asprintf(&cand[0], "%s", name) < 0)
		cand[0] = NULL;
	if (asprintf(&cand[1], ".debug/%s", name) < 0)
		cand[1] = NULL;
	if (asprintf(&cand[2], "%s%s%s", bin_dir[0] ? bin_dir + 1 : "",
		     bin_dir[0] ? "/" : "", name) < 0)
		cand[2] = NULL;
	for (i = 0; i < 3 && fd < 0; i++) {
		int dirfd = i < 2 ? bin->dirfd : cli->debug_dirfd;
		struct ebid_at at;
		char why[EBID_ERRLEN];

		if (!cand[i])
			continue;
		if (ebid_at_beneath(&at, dirfd, cand[i], why, sizeof(why)))
			continue;
		fd = ebid_open_locked(&at, O_RDONLY, false,
				      cli->lock_timeout_ms, st, why,
				      sizeof(why));
		ebid_at_release(&at);
		if (fd >= 0 && (!S_ISREG(st->st_mode) ||
				(st->st_dev == bin_st->st_dev &&
				 st->st_ino == bin_st->st_ino))) {
			close(fd);
			fd = -1;
		}
	}
	for (i = 0; i < 3; i++)
		free(cand[i]);
	return fd;
}

/* The absolute path of the file open at fd, as the kernel names it. */
static char *fd_path(int fd)
{
	char proc[64], buf[PATH_MAX];
	ssize_t n;

	snprintf(proc, sizeof(proc), "/proc/self/fd/%d", fd);
	n = readlink(proc, buf, sizeof(buf) - 1);
	if (n <= 0 || buf[0] != '/')
		return NULL;
	buf[n] = '\0';
	return strdup(buf);
}

/* One file being linked: what link_work's steps share. */
struct linking {
	const struct cli *cli;
	struct ebid_at bin;             /* where the file is */
	int fd;                         /* it, under its shared lock */
	struct stat st;
	struct ebid_elf elf;
	const char *id;                 /* hex, in the result */
	char *real, *dir;               /* its absolute path, and directory */
	char err[EBID_ERRLEN];
};

#define NO_DEBUG_FILE (-2)

/*
 * Opens the debug file to place instead of the binary: --debug-file, or
 * the one .gnu_debuglink names; NO_DEBUG_FILE when there is none, -1 on
 * error. It is checked and later copied through one descriptor.
 */
static int open_debug(struct linking *k)
{
	const struct cli *cli = k->cli;
	char link_name[PATH_MAX] = "";
	struct ebid_elf d;
	struct stat dst;
	struct ebid_at at;
	int dfd = -1, ret;

	if (cli->debug_file) {
		if (ebid_at_named(&at, cli->debug_file, true, k->err,
				  sizeof(k->err)))
			return -1;
		dfd = ebid_open_locked(&at, O_RDONLY, false,
				       cli->lock_timeout_ms, &dst, k->err,
				       sizeof(k->err));
		ebid_at_release(&at);
		if (dfd < 0)
			return -1;
	} else if (ebid_elf_debuglink(&k->elf, k->fd, link_name,
				      sizeof(link_name)) == 0 &&
		   link_name[0]) {
		dfd = open_debug_file(cli, &k->bin, &k->st, k->dir, link_name,
				      &dst);
		if (dfd < 0) {
			snprintf(k->err, sizeof(k->err),
				 "debug file '%s' named by .gnu_debuglink not found",
				 link_name);
			return -1;
		}
	} else {
		return NO_DEBUG_FILE;
	}
	ret = ebid_elf_open_fd(&d, dfd, k->err, sizeof(k->err));
	if (!ret && (!d.gnu.present || d.gnu.desc_len != k->elf.gnu.desc_len ||
		     memcmp(d.gnu.desc, k->elf.gnu.desc, d.gnu.desc_len))) {
		snprintf(k->err, sizeof(k->err),
			 "debug file '%.100s' does not carry the same build-id",
			 cli->debug_file ? cli->debug_file : link_name);
		ret = -1;
	}
	ebid_elf_release(&d);
	if (ret) {
		close(dfd);
		return -1;
	}
	return dfd;
}

/*
 * --debug-dir: the file, or its debug file, at DIR/.build-id/xx/rest.debug,
 * and with a debug file DIR/.build-id/xx/rest pointing to the binary.
 */
static int link_debug_dir(struct linking *k, char **dest)
{
	const struct cli *cli = k->cli;
	const char *id = k->id;
	char *rel = NULL;
	int dfd, ret;

	dfd = open_debug(k);
	if (dfd == -1)
		return -1;
	ret = -1;
	if (asprintf(&rel, ".build-id/%.2s/%s.debug", id, id + 2) < 0 ||
	    asprintf(dest, "%s/%s", cli->debug_dir, rel) < 0) {
		snprintf(k->err, sizeof(k->err), "out of memory");
		goto out;
	}
	if (place(dfd >= 0 ? dfd : k->fd, cli->debug_dirfd, cli->debug_dir,
		  rel, false, k->err, sizeof(k->err)))
		goto out;
	/* The id names the binary too, next to its debug file. */
	rel[strlen(rel) - strlen(".debug")] = '\0';
	if (dfd >= 0 && place_symlink(k->real, cli->debug_dirfd,
				      cli->debug_dir, rel, k->err,
				      sizeof(k->err)))
		goto out;
	ret = 0;
out:
	if (dfd >= 0)
		close(dfd);
	free(rel);
	return ret;
}

/*
 * --perf-cache: perf's layout, DIR/<abs path>/<id>/{debug,elf} and a
 * DIR/.build-id/xx/rest symlink to ../../<abs path>/<id>. An elf that
 * perf record put there itself is kept.
 */
static int link_perf_cache(struct linking *k, char **dest)
{
	const struct cli *cli = k->cli;
	const char *id = k->id;
	char *dbg = NULL, *elfp = NULL, *bl = NULL, *target = NULL;
	int ret = -1;

	free(*dest);
	*dest = NULL;
	if (asprintf(&dbg, "%s/%s/debug", k->real + 1, id) < 0 ||
	    asprintf(&elfp, "%s/%s/elf", k->real + 1, id) < 0 ||
	    asprintf(&bl, ".build-id/%.2s/%s", id, id + 2) < 0 ||
	    asprintf(&target, "../..%s/%s", k->real, id) < 0 ||
	    asprintf(dest, "%s/%s", cli->perf_cache, dbg) < 0) {
		snprintf(k->err, sizeof(k->err), "out of memory");
		goto out;
	}
	if (!place(k->fd, cli->perf_cachefd, cli->perf_cache, dbg, false,
		   k->err, sizeof(k->err)) &&
	    !place(k->fd, cli->perf_cachefd, cli->perf_cache, elfp, true,
		   k->err, sizeof(k->err)) &&
	    !place_symlink(target, cli->perf_cachefd, cli->perf_cache, bl,
			   k->err, sizeof(k->err)))
		ret = 0;
out:
	free(dbg);
	free(elfp);
	free(bl);
	free(target);
	return ret;
}

/*
 * Opens the file under its shared lock and checks that it has an id to
 * link: 0, 1 when it is no candidate in tree mode (r says why), or -1.
 */
static int open_bin(struct linking *k, const struct ebid_walk_entry *e,
		    struct result *r)
{
	const struct cli *cli = k->cli;
	const char *why;
	int ret;

	ret = ebid_walk_entry_at(e, &k->bin, k->err, sizeof(k->err));
	if (!ret) {
		k->fd = ebid_open_locked(&k->bin, O_RDONLY, false,
					 cli->lock_timeout_ms, &k->st, k->err,
					 sizeof(k->err));
		ret = k->fd < 0 ? k->fd
				: ebid_elf_open_fd(&k->elf, k->fd, k->err,
						   sizeof(k->err));
	}
	if (ret == -EBID_ENOTELF && cli->recursive) {
		snprintf(r->msg, sizeof(r->msg), "%s", k->err);
		return 1;
	}
	if (ret)
		return -1;
	if (!ebid_elf_is_program(&k->elf, &why)) {
		snprintf(cli->recursive ? r->msg : k->err,
			 cli->recursive ? sizeof(r->msg) : sizeof(k->err), "%s",
			 why);
		return cli->recursive ? 1 : -1;
	}
	if (!k->elf.gnu.present || !k->elf.gnu.desc_len ||
	    k->elf.gnu.desc_len > EBID_MAX_ID ||
	    ebid_all_zero(k->elf.gnu.desc, k->elf.gnu.desc_len)) {
		snprintf(k->err, sizeof(k->err),
			 "no usable GNU build-id (run elf-buildid inject first)");
		return -1;
	}
	ebid_hex(r->id, k->elf.gnu.desc, k->elf.gnu.desc_len);
	k->id = r->id;
	/* The path of the inode we hold, not of whatever the name is now. */
	k->real = fd_path(k->fd);
	k->dir = k->real ? strdup(k->real) : NULL;
	if (!k->real || !k->dir) {
		snprintf(k->err, sizeof(k->err), "cannot resolve path");
		return -1;
	}
	*strrchr(k->dir, '/') = '\0';
	return 0;
}

static void link_work(const struct cli *cli, const struct ebid_walk_entry *e,
		      struct result *r)
{
	struct linking k = { .cli = cli, .fd = -1 };
	char *dest = NULL;
	int ret;

	ebid_at_init(&k.bin);
	ret = open_bin(&k, e, r);
	if (!ret && cli->debug_dirfd >= 0)
		ret = link_debug_dir(&k, &dest);
	if (!ret && cli->perf_cachefd >= 0)
		ret = link_perf_cache(&k, &dest);
	if (ret > 0) {
		r->outcome = OUT_SKIPPED;
	} else if (ret < 0) {
		r->status = EXIT_FILE;
		r->outcome = OUT_FAILED;
		snprintf(r->msg, sizeof(r->msg), "%s", k.err);
	} else {
		r->outcome = OUT_LINKED;
		r->dest = dest;
		dest = NULL;
	}
	if (k.fd >= 0)
		close(k.fd);
	ebid_at_release(&k.bin);
	ebid_elf_release(&k.elf);
	free(k.real);
	free(k.dir);
	free(dest);
}

static void link_print(const struct cli *cli, struct result *r)
{
	if (!print_error_or_skip(cli, r) && !cli->quiet)
		printf("%s  %s\n", r->id, r->dest ? r->dest : r->path);
}

/* Creates the destination the user named if need be, and holds it open. */
static int open_root(const char *dir, int *fd)
{
	int ret = mkdirs(dir);

	if (ret) {
		fprintf(stderr, "%s: '%s': link: cannot create directory: %s\n",
			progname, dir, strerror(-ret));
		return EXIT_FILE;
	}
	*fd = open(dir, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	if (*fd < 0) {
		fprintf(stderr, "%s: '%s': link: cannot open directory: %s\n",
			progname, dir, strerror(errno));
		return EXIT_FILE;
	}
	return 0;
}

int cmd_link(const struct cli *cli, char **args, int nargs)
{
	struct cli c = *cli;
	struct result *v;
	size_t n;
	int status;

	/* Everything below the roots is reached from these descriptors. */
	c.debug_dirfd = c.perf_cachefd = -1;
	status = c.debug_dir ? open_root(c.debug_dir, &c.debug_dirfd) : 0;
	if (!status && c.perf_cache)
		status = open_root(c.perf_cache, &c.perf_cachefd);
	if (!status) {
		status = cli_run(&c, args, nargs, link_work, link_print, &v,
				 &n);
		cli_results_free(v, n);
	}
	if (c.debug_dirfd >= 0)
		close(c.debug_dirfd);
	if (c.perf_cachefd >= 0)
		close(c.perf_cachefd);
	return status;
}
