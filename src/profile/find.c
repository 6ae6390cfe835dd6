/* SPDX-License-Identifier: MIT */
/*
 * Where a file with a given build-id can be found, as perf, gdb and
 * google/pprof look for it: perf's build-id caches, the debug directories,
 * debuginfod, PPROF_BINARY_PATH (docs/profiling.md, "Auditing a profile").
 */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "internal.h"

int ebid_file_id(const char *path, char *hex, size_t hexlen, char *err,
		 size_t errlen)
{
	struct ebid_elf elf;
	struct ebid_note_view view;
	struct stat st;
	int fd, ret;

	hex[0] = '\0';
	fd = open(path, O_RDONLY | O_CLOEXEC | O_NOCTTY | O_NONBLOCK);
	if (fd < 0)
		return ebid_err(err, errlen, -errno, "cannot open: %s",
				strerror(errno));
	if (fstat(fd, &st) != 0) {
		ret = ebid_err(err, errlen, -errno, "cannot stat: %s",
			       strerror(errno));
		close(fd);
		return ret;
	}
	if (!S_ISREG(st.st_mode)) {
		close(fd);
		return ebid_err(err, errlen, -EBID_ENOTELF,
				"not a regular file");
	}
	ret = ebid_elf_open_fd(&elf, fd, err, errlen);
	close(fd);
	if (ret)
		return ret;
	/* What perf reads: the section, whole, with a usable size. */
	ebid_note_view(&elf, &view);
	if (view.by_section && view.size_ok &&
	    hexlen >= 2 * (size_t)elf.gnu.desc_len + 1)
		ebid_hex(hex, elf.gnu.desc, elf.gnu.desc_len);
	ebid_elf_release(&elf);
	return 0;
}

/* Whether the file at path has the GNU id want; copies path if so. */
static bool has_id(const char *path, const char *want, char *found,
		   size_t foundlen)
{
	char hex[2 * EBID_MAX_ID + 1], err[EBID_ERRLEN];

	if (ebid_file_id(path, hex, sizeof(hex), err, sizeof(err)) ||
	    strcmp(hex, want))
		return false;
	snprintf(found, foundlen, "%s", path);
	return true;
}

/* DIR/.build-id/ab/cdef... with one of the n suffixes, tried in order. */
static bool in_build_id_tree(const char *dir, const char *hex,
			     const char *const *suffix, size_t n,
			     struct ebid_found *f)
{
	char path[PATH_MAX];
	size_t i;

	for (i = 0; i < n; i++) {
		if (ebid_build_id_path(path, sizeof(path), dir, hex, suffix[i]))
			return false;
		if (has_id(path, hex, f->path, sizeof(f->path)))
			return true;
	}
	return false;
}

/*
 * perf's build-id cache: DIR/.build-id/ab/cdef... names (through a
 * symlink) a directory holding "elf" or "debug", or, in older caches, the
 * file itself.
 */
static bool in_cache(const char *dir, const char *hex, struct ebid_found *f)
{
	static const char *const leaf[] = { "/elf", "/debug", "" };

	return in_build_id_tree(dir, hex, leaf, ARRAY_SIZE(leaf), f);
}

/* A debug tree: DIR/.build-id/ab/cdef....debug, or the executable beside. */
static bool in_debug_dir(const char *dir, const char *hex,
			 struct ebid_found *f)
{
	static const char *const suffix[] = { EBID_DEBUG_SUFFIX, "" };

	return in_build_id_tree(dir, hex, suffix, ARRAY_SIZE(suffix), f);
}

static bool from_debuginfod(const struct ebid_places *pl, const char *hex,
			    struct ebid_found *f)
{
	static const char *const kinds[] = { "executable", "debuginfo" };
	char path[PATH_MAX], err[EBID_ERRLEN];
	size_t i;

	for (i = 0; i < ARRAY_SIZE(kinds); i++) {
		if (ebid_debuginfod_find(kinds[i], hex, pl->debuginfod_env,
					 pl->debuginfod_timeout_ms, path,
					 sizeof(path), err, sizeof(err))) {
			snprintf(f->debuginfod_why, sizeof(f->debuginfod_why),
				 "%s", err);
			continue;
		}
		if (has_id(path, hex, f->path, sizeof(f->path)))
			return true;
		snprintf(f->debuginfod_why, sizeof(f->debuginfod_why),
			 "debuginfod gave %.200s, which lacks the id", path);
	}
	return false;
}

int ebid_find_by_id(const struct ebid_places *pl, const char *hex,
		    struct ebid_found *f, char *err, size_t errlen)
{
	size_t i;

	memset(f, 0, sizeof(*f));
	if (!ebid_is_hex_id(hex))
		return ebid_err(err, errlen, -EINVAL,
				"'%.80s' is not a build-id in hex", hex);
	for (i = 0; i < ARRAY_SIZE(pl->perf_caches); i++)
		if (pl->perf_caches[i] && in_cache(pl->perf_caches[i], hex, f)) {
			f->in = EBID_FOUND_PERF_CACHE;
			f->dir = pl->perf_caches[i];
			return 0;
		}
	for (i = 0; i < ARRAY_SIZE(pl->debug_dirs); i++)
		if (pl->debug_dirs[i] && in_debug_dir(pl->debug_dirs[i], hex, f)) {
			f->in = EBID_FOUND_DEBUG_DIR;
			f->dir = pl->debug_dirs[i];
			return 0;
		}
	if (pl->debuginfod && from_debuginfod(pl, hex, f)) {
		f->in = EBID_FOUND_DEBUGINFOD;
		return 0;
	}
	f->path[0] = '\0';
	return ebid_err(err, errlen, -ENOENT,
			"no file with the id in the places looked in");
}

/* Any file in DIR/ID with the id. */
static bool in_id_dir(const char *dir, const char *hex, char *found,
		      size_t foundlen)
{
	char path[PATH_MAX], leaf[PATH_MAX];
	struct dirent *e;
	bool ok = false;
	DIR *dp;

	if (snprintf(path, sizeof(path), "%s/%s", dir, hex) >=
	    (int)sizeof(path))
		return false;
	dp = opendir(path);
	while (dp && !ok && (e = readdir(dp)))
		ok = e->d_name[0] != '.' &&
		     snprintf(leaf, sizeof(leaf), "%s/%s", path, e->d_name) <
			     (int)sizeof(leaf) &&
		     has_id(leaf, hex, found, foundlen);
	if (dp)
		closedir(dp);
	return ok;
}

/* One directory of PPROF_BINARY_PATH. */
static bool in_pprof_dir(const char *dir, const char *recorded,
			 const char *hex, char *found, size_t foundlen)
{
	const char *base = strrchr(recorded, '/');
	char path[PATH_MAX];

	base = base ? base + 1 : recorded;
	return (snprintf(path, sizeof(path), "%s/%s/%s", dir, hex, base) <
			(int)sizeof(path) &&
		has_id(path, hex, found, foundlen)) ||
	       (snprintf(path, sizeof(path), "%s%s%s/%s", dir,
			 recorded[0] == '/' ? "" : "/", recorded, hex) <
			(int)sizeof(path) &&
		has_id(path, hex, found, foundlen)) ||
	       (snprintf(path, sizeof(path), "%s/%.2s/%s%s", dir, hex, hex + 2,
			 EBID_DEBUG_SUFFIX) < (int)sizeof(path) &&
		has_id(path, hex, found, foundlen)) ||
	       in_id_dir(dir, hex, found, foundlen);
}

int ebid_find_in_pprof_path(const char *pprof_path, const char *recorded,
			    const char *hex, char *found, size_t foundlen,
			    char *err, size_t errlen)
{
	char dirs[PATH_MAX], *dir, *save = NULL;

	found[0] = '\0';
	if (!ebid_is_hex_id(hex))
		return ebid_err(err, errlen, -EINVAL,
				"'%.80s' is not a build-id in hex", hex);
	snprintf(dirs, sizeof(dirs), "%s", pprof_path);
	for (dir = strtok_r(dirs, ":", &save); dir;
	     dir = strtok_r(NULL, ":", &save))
		if (in_pprof_dir(dir, recorded, hex, found, foundlen))
			return 0;
	return ebid_err(err, errlen, -ENOENT,
			"no file with the id in PPROF_BINARY_PATH");
}
