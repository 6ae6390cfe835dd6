/* SPDX-License-Identifier: MIT */
/*
 * audit PROFILE...: for every binary a profile has samples in, whether a
 * report made now names the right functions (docs/profiling.md, "Auditing
 * a profile"). perf resolves a sample by the build-id it recorded, looking
 * for a file with that id at the recorded path, in its cache and in the
 * debug directories; without a recorded id it takes whatever the path
 * holds now.
 */
#include <dirent.h>
#include <elf.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/auxv.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "cli/cli.h"

#define DEBUGINFOD_TIMEOUT_MS 60000L
#define ALIGN4(n) (((size_t)(n) + 3) & ~(size_t)3)

enum verdict { V_OK, V_STALE, V_UNSAFE, V_WRONG, V_GONE, V_SKIP, V_COUNT };

static const char *const verdict_words[V_COUNT] = {
	"ok", "stale", "unsafe", "wrong", "gone", "skip",
};

struct judged {
	enum verdict verdict;
	char found[PATH_MAX];   /* where a file with the id is, or "" */
	char detail[512];
	const char *fix;
};

/* The places looked in for a recorded id, besides the recorded path. */
struct places {
	const char *caches[2];  /* --perf-cache, $HOME/.debug */
	const char *debug_dirs[2]; /* --debug-dir, /usr/lib/debug */
	bool debuginfod;
	char *const *dienv;     /* debuginfod-find's environment */
	char home_cache[PATH_MAX];
	char pprof_path[PATH_MAX]; /* PPROF_BINARY_PATH or its default */
};

/*
 * The GNU build-id perf reads from the file at path (following symlinks,
 * as perf does): 1 and its hex, 0 when it is ELF without one perf can
 * read, -1 when it is not a readable ELF file.
 */
static int id_at(const char *path, char hex[2 * EBID_MAX_ID + 1])
{
	struct ebid_elf elf;
	struct ebid_note_view view;
	char err[EBID_ERRLEN];
	struct stat st;
	int fd, ret;

	hex[0] = '\0';
	fd = open(path, O_RDONLY | O_CLOEXEC | O_NOCTTY | O_NONBLOCK);
	if (fd < 0)
		return -1;
	if (fstat(fd, &st) != 0 || !S_ISREG(st.st_mode) ||
	    ebid_elf_open_fd(&elf, fd, err, sizeof(err))) {
		close(fd);
		return -1;
	}
	close(fd);
	ebid_note_view(&elf, &view);
	ret = 0;
	if (view.by_section && view.size_ok) {
		ebid_hex(hex, elf.gnu.desc, elf.gnu.desc_len);
		ret = 1;
	}
	ebid_elf_release(&elf);
	return ret;
}

/* Whether the file at path has the GNU id want; fills j->found if so. */
static bool has_id(const char *path, const char *want, struct judged *j)
{
	char hex[2 * EBID_MAX_ID + 1];

	if (id_at(path, hex) != 1 || strcmp(hex, want))
		return false;
	snprintf(j->found, sizeof(j->found), "%s", path);
	return true;
}

/*
 * A tree named by id, DIR/.build-id/ab/cdef... followed by one of the n
 * suffixes, tried in order: whether one holds a file with the id.
 */
static bool in_build_id_tree(const char *dir, const char *id,
			     const char *const *suffix, size_t n,
			     struct judged *j)
{
	char path[PATH_MAX];
	size_t i;

	for (i = 0; i < n; i++) {
		if (snprintf(path, sizeof(path), "%s/.build-id/%.2s/%s%s", dir,
			     id, id + 2, suffix[i]) >= (int)sizeof(path))
			return false;
		if (has_id(path, id, j))
			return true;
	}
	return false;
}

/*
 * perf's build-id cache: DIR/.build-id/ab/cdef... names (through a
 * symlink) a directory holding "elf" or "debug", or, in older caches, the
 * file itself.
 */
static bool in_cache(const char *dir, const char *id, struct judged *j)
{
	static const char *const leaf[] = { "/elf", "/debug", "" };

	return in_build_id_tree(dir, id, leaf, sizeof(leaf) / sizeof(leaf[0]),
				j);
}

/*
 * Where google/pprof looks for a mapping's binary by id in each directory
 * of PPROF_BINARY_PATH (internal/driver/fetch.go, locateBinaries):
 * DIR/ID/BASENAME, any file in DIR/ID, DIR/PATH/ID, DIR/ab/cdef....debug.
 */
static bool in_pprof_path(const struct places *pl, const struct ebid_dso *d,
			  struct judged *j)
{
	const char *base = strrchr(d->path, '/');
	char dirs[PATH_MAX], path[PATH_MAX], *dir, *save = NULL;

	base = base ? base + 1 : d->path;
	snprintf(dirs, sizeof(dirs), "%s", pl->pprof_path);
	for (dir = strtok_r(dirs, ":", &save); dir;
	     dir = strtok_r(NULL, ":", &save)) {
		struct dirent *e;
		DIR *dp;

		if ((snprintf(path, sizeof(path), "%s/%s/%s", dir, d->id,
			      base) < (int)sizeof(path) &&
		     has_id(path, d->id, j)) ||
		    (snprintf(path, sizeof(path), "%s%s%s/%s", dir,
			      d->path[0] == '/' ? "" : "/", d->path,
			      d->id) < (int)sizeof(path) &&
		     has_id(path, d->id, j)) ||
		    (snprintf(path, sizeof(path), "%s/%.2s/%s.debug", dir,
			      d->id, d->id + 2) < (int)sizeof(path) &&
		     has_id(path, d->id, j)))
			return true;
		snprintf(path, sizeof(path), "%s/%s", dir, d->id);
		dp = opendir(path);
		while (dp && (e = readdir(dp))) {
			char leaf[PATH_MAX];

			if (e->d_name[0] == '.' ||
			    snprintf(leaf, sizeof(leaf), "%s/%s", path,
				     e->d_name) >= (int)sizeof(leaf))
				continue;
			if (has_id(leaf, d->id, j)) {
				closedir(dp);
				return true;
			}
		}
		if (dp)
			closedir(dp);
	}
	return false;
}

/* A debug tree: DIR/.build-id/ab/cdef....debug, or the executable beside. */
static bool in_debug_dir(const char *dir, const char *id, struct judged *j)
{
	static const char *const suffix[] = { ".debug", "" };

	return in_build_id_tree(dir, id, suffix,
				sizeof(suffix) / sizeof(suffix[0]), j);
}

static bool from_debuginfod(const struct places *pl, const char *id,
			    struct judged *j, char *why, size_t whylen)
{
	static const char *const kinds[] = { "executable", "debuginfo" };
	char path[PATH_MAX], err[EBID_ERRLEN];
	size_t i;

	for (i = 0; i < 2; i++) {
		if (ebid_debuginfod_find(kinds[i], id, pl->dienv,
					 DEBUGINFOD_TIMEOUT_MS, path,
					 sizeof(path), err, sizeof(err))) {
			snprintf(why, whylen, "%s", err);
			continue;
		}
		if (has_id(path, id, j))
			return true;
		snprintf(why, whylen, "debuginfod gave %.200s, which lacks the id",
			 path);
	}
	return false;
}

/* The GNU id in a buffer of notes (native byte order, 4-byte aligned). */
static bool id_in_notes(const unsigned char *p, size_t len, char *hex)
{
	size_t off = 0;

	while (off + sizeof(Elf64_Nhdr) <= len) {
		Elf64_Nhdr nh;
		uint32_t nsz, dsz;
		size_t name, desc;

		memcpy(&nh, p + off, sizeof(nh));
		nsz = nh.n_namesz;
		dsz = nh.n_descsz;
		name = off + sizeof(nh);
		desc = name + ALIGN4(nsz);
		if (nsz > len || dsz > len || desc + dsz > len || desc < name)
			return false;
		if (nh.n_type == NT_GNU_BUILD_ID && nsz == 4 &&
		    !memcmp(p + name, "GNU", 4) && dsz >= 1 &&
		    dsz <= EBID_MAX_ID) {
			ebid_hex(hex, p + desc, dsz);
			return true;
		}
		off = desc + ALIGN4(dsz);
	}
	return false;
}

/* The running kernel's id, from /sys/kernel/notes. */
static bool kernel_id(char *hex)
{
	unsigned char buf[4096];
	ssize_t n;
	int fd = open("/sys/kernel/notes", O_RDONLY | O_CLOEXEC);

	if (fd < 0)
		return false;
	n = read(fd, buf, sizeof(buf));
	close(fd);
	return n > 0 && id_in_notes(buf, (size_t)n, hex);
}

/* This process's vDSO's id: the kernel maps the same image everywhere. */
static bool vdso_id(char *hex)
{
	const unsigned char *base =
		(const unsigned char *)getauxval(AT_SYSINFO_EHDR);
	struct ebid_src src = { .fd = -1 };
	struct ebid_elf elf;
	char err[EBID_ERRLEN];
	uint64_t size;
	bool ok = false;

	if (!base)
		return false;
	/*
	 * The image ends with its section headers (ELF64 and ELF32); it is
	 * this machine's, in its byte order.
	 */
	if (base[EI_CLASS] == ELFCLASS64) {
		Elf64_Ehdr eh;

		memcpy(&eh, base, sizeof(eh));
		size = eh.e_shoff + (uint64_t)eh.e_shentsize * eh.e_shnum;
	} else {
		Elf32_Ehdr eh;

		memcpy(&eh, base, sizeof(eh));
		size = eh.e_shoff + (uint64_t)eh.e_shentsize * eh.e_shnum;
	}
	if (size > (64u << 10))
		return false;
	src.mem = base;
	src.size = size;
	if (ebid_elf_read(&elf, &src, err, sizeof(err)))
		return false;
	if (elf.gnu.present && elf.gnu.desc_len <= EBID_MAX_ID) {
		ebid_hex(hex, elf.gnu.desc, elf.gnu.desc_len);
		ok = true;
	}
	ebid_elf_release(&elf);
	return ok;
}

static void iso_time(int64_t ns, char *buf, size_t len)
{
	time_t t = (time_t)(ns / 1000000000);
	struct tm tm;

	if (!ns || !gmtime_r(&t, &tm))
		snprintf(buf, len, "unknown");
	else
		strftime(buf, len, "%Y-%m-%dT%H:%M:%SZ", &tm);
}

static const char fix_stale_pprof[] =
	"place the profiled build where pprof looks: elf-buildid link --debug-dir DIR OLD-BINARY and PPROF_BINARY_PATH=DIR/.build-id with google/pprof, or go tool pprof OLD-BINARY PROFILE";
static const char fix_stale[] =
	"place the profiled build where perf looks: elf-buildid link --perf-default-cache OLD-BINARY (or --debug-dir), or serve it by debuginfod and audit --debuginfod";
static const char fix_unsafe[] =
	"give every build an id (elf-buildid inject after linking) and profile again; until then keep the profiled file unchanged at its path";
static const char fix_wrong[] =
	"this profile cannot be resolved right: give every build an id (elf-buildid inject after linking) and profile again";
static const char fix_gone[] =
	"restore the profiled file, or place a copy by id (elf-buildid link) if it had one";

/* A recorded id: found at the path, in a cache, a debug dir, debuginfod? */
static void judge_with_id(const struct places *pl, const struct ebid_dso *d,
			  bool pprof, struct judged *j)
{
	char here[2 * EBID_MAX_ID + 1], dwhy[EBID_ERRLEN] = "";
	size_t i;
	int at;

	at = id_at(d->path, here);
	if (at == 1 && !strcmp(here, d->id)) {
		snprintf(j->found, sizeof(j->found), "%s", d->path);
		snprintf(j->detail, sizeof(j->detail),
			 "the file at the recorded path has the id");
		j->verdict = V_OK;
		return;
	}
	if (pprof && in_pprof_path(pl, d, j)) {
		snprintf(j->detail, sizeof(j->detail),
			 "in PPROF_BINARY_PATH (google/pprof finds it; go tool pprof checks no ids and reads the file at the path)");
		j->verdict = V_OK;
		return;
	}
	for (i = 0; i < 2 && !pprof; i++)
		if (pl->caches[i] && in_cache(pl->caches[i], d->id, j)) {
			snprintf(j->detail, sizeof(j->detail),
				 "in perf's build-id cache %s", pl->caches[i]);
			j->verdict = V_OK;
			return;
		}
	for (i = 0; i < 2; i++)
		if (pl->debug_dirs[i] &&
		    in_debug_dir(pl->debug_dirs[i], d->id, j)) {
			snprintf(j->detail, sizeof(j->detail),
				 "in the debug directory %s", pl->debug_dirs[i]);
			j->verdict = V_OK;
			return;
		}
	if (pl->debuginfod && from_debuginfod(pl, d->id, j, dwhy,
					      sizeof(dwhy))) {
		snprintf(j->detail, sizeof(j->detail),
			 "served by DEBUGINFOD_URLS");
		j->verdict = V_OK;
		return;
	}
	if (at < 0 && access(d->path, F_OK) != 0) {
		j->verdict = V_GONE;
		snprintf(j->detail, sizeof(j->detail),
			 "the path no longer exists, and no file with the id is in perf's cache or the debug directories%s%s",
			 dwhy[0] ? "; " : "", dwhy);
		j->fix = fix_gone;
		return;
	}
	j->verdict = V_STALE;
	snprintf(j->detail, sizeof(j->detail),
		 "the file at the path %s%s, and no file with the recorded id is in %s or the debug directories%s%s; %s",
		 at == 1 ? "has another id, " : at == 0 ? "has no id" : "is not a readable ELF file",
		 at == 1 ? here : "",
		 pprof ? "PPROF_BINARY_PATH" : "perf's cache",
		 dwhy[0] ? "; " : "", dwhy,
		 pprof ? "google/pprof will show raw addresses, and go tool pprof, which checks no ids, the functions of the file now at the path"
		       : "perf will show raw addresses");
	j->fix = pprof ? fix_stale_pprof : fix_stale;
}

/* No recorded id: perf takes what the path holds now. */
static void judge_without_id(const struct ebid_dso *d, int64_t captured,
			     struct judged *j)
{
	struct stat st;
	int64_t m, c;
	char when[32], at[32];

	if (stat(d->path, &st) != 0) {
		j->verdict = V_GONE;
		snprintf(j->detail, sizeof(j->detail),
			 "no build-id recorded, and the path no longer exists");
		j->fix = fix_gone;
		return;
	}
	m = (int64_t)st.st_mtim.tv_sec * 1000000000 + st.st_mtim.tv_nsec;
	c = (int64_t)st.st_ctim.tv_sec * 1000000000 + st.st_ctim.tv_nsec;
	iso_time(captured, at, sizeof(at));
	if (captured && (m > captured || c > captured)) {
		iso_time(m > c ? m : c, when, sizeof(when));
		j->verdict = V_WRONG;
		snprintf(j->detail, sizeof(j->detail),
			 "no build-id recorded, and the file at the path changed after the capture (%s %s, captured %s): perf will name the samples after its functions",
			 m > c ? "modified" : "replaced or changed", when, at);
		j->fix = fix_wrong;
		return;
	}
	j->verdict = V_UNSAFE;
	snprintf(j->detail, sizeof(j->detail),
		 "no build-id recorded: perf will use whatever file is at the path when the report is made (%s)",
		 captured ? "unchanged since the capture" : "capture time unknown");
	j->fix = fix_unsafe;
}

/* Kernel and vDSO: compared with the running system's. */
static void judge_pseudo(const struct places *pl, const struct ebid_dso *d,
			 struct judged *j)
{
	bool kernel = !strncmp(d->path, "[kernel", 7) ||
		      !strncmp(d->path, "[guest.kernel", 13);
	bool vdso = !strcmp(d->path, "[vdso]") || !strcmp(d->path, "[vdso32]") ||
		    !strcmp(d->path, "[vdsox32]");
	char now[2 * EBID_MAX_ID + 1];
	size_t i;

	if (!kernel && !vdso) {
		j->verdict = V_SKIP;
		snprintf(j->detail, sizeof(j->detail), "not a file");
		return;
	}
	if (!d->id[0]) {
		j->verdict = V_UNSAFE;
		snprintf(j->detail, sizeof(j->detail),
			 "no build-id recorded: perf will use the running %s",
			 kernel ? "kernel" : "vDSO");
		j->fix = fix_unsafe;
		return;
	}
	if ((kernel ? kernel_id(now) : vdso_id(now)) && !strcmp(now, d->id)) {
		j->verdict = V_OK;
		snprintf(j->detail, sizeof(j->detail), "the running %s has the id",
			 kernel ? "kernel" : "vDSO");
		return;
	}
	for (i = 0; i < 2; i++)
		if (pl->caches[i] && in_cache(pl->caches[i], d->id, j)) {
			j->verdict = V_OK;
			snprintf(j->detail, sizeof(j->detail),
				 "in perf's build-id cache %s", pl->caches[i]);
			return;
		}
	j->verdict = V_STALE;
	snprintf(j->detail, sizeof(j->detail),
		 "not the running %s's id, and not in perf's cache: perf will show raw addresses",
		 kernel ? "kernel" : "vDSO");
	j->fix = "profile with perf's build-id cache on (no -N), or keep that kernel's vmlinux in /usr/lib/debug";
}

static void judge(const struct places *pl, const struct ebid_profile *p,
		  const struct ebid_dso *d, struct judged *j)
{
	memset(j, 0, sizeof(*j));
	if (d->symbolized) {
		j->verdict = V_OK;
		snprintf(j->detail, sizeof(j->detail),
			 "the profile names its functions already");
	} else if (d->path[0] == '[') {
		judge_pseudo(pl, d, j);
	} else if (d->id[0]) {
		judge_with_id(pl, d, p->format == EBID_PROFILE_PPROF, j);
	} else {
		judge_without_id(d, p->captured_ns, j);
		if (d->note[0]) {
			size_t n = strlen(j->detail);

			snprintf(j->detail + n, sizeof(j->detail) - n,
				 " (%s)", d->note);
		}
	}
}

static const char *format_word(enum ebid_profile_format f)
{
	return f == EBID_PROFILE_PERF ? "perf.data" : "pprof";
}

static void print_text(const struct cli *cli, const char *path,
		       const struct ebid_profile *p, const struct judged *js)
{
	char when[32];
	size_t i;

	if (cli->quiet)
		return;
	iso_time(p->captured_ns, when, sizeof(when));
	printf("%s: %s, captured %s, %zu binar%s with samples\n", path,
	       format_word(p->format), when, p->ndsos,
	       p->ndsos == 1 ? "y" : "ies");
	for (i = 0; i < p->ndsos; i++) {
		const struct judged *j = &js[i];
		char word[8];
		size_t k;

		for (k = 0; verdict_words[j->verdict][k]; k++)
			word[k] = (char)(verdict_words[j->verdict][k] - 'a' + 'A');
		word[k] = '\0';
		printf("%-6s  %s  %s  %s", word, p->dsos[i].path,
		       p->dsos[i].id[0] ? p->dsos[i].id : "-", j->detail);
		if (j->verdict == V_OK && j->found[0] &&
		    strcmp(j->found, p->dsos[i].path))
			printf(": %s", j->found);
		printf("\n");
		if (j->fix)
			printf("        fix: %s\n", j->fix);
	}
}

static void print_json_profile(const char *path, const struct ebid_profile *p,
			       const struct judged *js, const char *error,
			       bool first)
{
	char when[32];
	size_t i;

	printf("%s\n    {\"path\": ", first ? "" : ",");
	json_str(stdout, path);
	if (error) {
		printf(", \"error\": ");
		json_str(stdout, error);
		printf(", \"binaries\": []}");
		return;
	}
	iso_time(p->captured_ns, when, sizeof(when));
	printf(", \"format\": \"%s\", \"captured\": ", format_word(p->format));
	json_str(stdout, p->captured_ns ? when : NULL);
	printf(", \"error\": null, \"binaries\": [");
	for (i = 0; i < p->ndsos; i++) {
		const struct judged *j = &js[i];

		printf("%s\n      {\"path\": ", i ? "," : "");
		json_str(stdout, p->dsos[i].path);
		printf(", \"build_id\": ");
		json_str(stdout, p->dsos[i].id[0] ? p->dsos[i].id : NULL);
		printf(", \"verdict\": \"%s\", \"found\": ",
		       verdict_words[j->verdict]);
		json_str(stdout, j->found[0] ? j->found : NULL);
		printf(", \"detail\": ");
		json_str(stdout, j->detail);
		printf(", \"fix\": ");
		json_str(stdout, j->fix);
		printf("}");
	}
	printf("%s]}", p->ndsos ? "\n    " : "");
}

/* The places to look, from the options and the environment. */
static void places_init(const struct cli *cli, struct places *pl,
			char **dienv)
{
	static const char *const pass[] = {
		"DEBUGINFOD_URLS=", "DEBUGINFOD_CACHE_PATH=",
		"DEBUGINFOD_TIMEOUT=", "DEBUGINFOD_MAXSIZE=",
		"DEBUGINFOD_MAXTIME=", "HOME=", "XDG_CACHE_HOME=",
	};
	extern char **environ;
	const char *home = getenv("HOME");
	size_t n = 0, i, k;

	memset(pl, 0, sizeof(*pl));
	pl->caches[0] = cli->perf_cache;
	if (home && home[0] &&
	    snprintf(pl->home_cache, sizeof(pl->home_cache), "%s/.debug",
		     home) < (int)sizeof(pl->home_cache))
		pl->caches[1] = pl->home_cache;
	if (getenv("PPROF_BINARY_PATH"))
		snprintf(pl->pprof_path, sizeof(pl->pprof_path), "%s",
			 getenv("PPROF_BINARY_PATH"));
	else if (home && home[0])
		snprintf(pl->pprof_path, sizeof(pl->pprof_path),
			 "%s/pprof/binaries", home);
	pl->debug_dirs[0] = cli->debug_dir;
	pl->debug_dirs[1] = "/usr/lib/debug";
	pl->debuginfod = cli->debuginfod;
	/* debuginfod-find sees only its own variables, a fixed PATH and C. */
	for (i = 0; environ && environ[i]; i++)
		for (k = 0; k < sizeof(pass) / sizeof(pass[0]); k++)
			if (!strncmp(environ[i], pass[k], strlen(pass[k])) &&
			    n < 16)
				dienv[n++] = environ[i];
	dienv[n++] = (char *)"PATH=/usr/bin:/bin";
	dienv[n++] = (char *)"LC_ALL=C";
	dienv[n] = NULL;
	pl->dienv = dienv;
}

int cmd_audit(const struct cli *cli, char **args, int nargs)
{
	char *dienv[20];
	struct places pl;
	size_t counts[V_COUNT] = { 0 }, k;
	int i, status = EXIT_OK;

	places_init(cli, &pl, dienv);
	if (cli->json)
		printf("{\"profiles\": [");
	for (i = 0; i < nargs; i++) {
		struct ebid_profile p;
		struct judged *js = NULL;
		char err[EBID_ERRLEN];
		size_t d;
		int fd;

		fd = open(args[i], O_RDONLY | O_CLOEXEC | O_NOCTTY | O_NONBLOCK);
		if (fd < 0) {
			snprintf(err, sizeof(err), "cannot open: %s",
				 strerror(errno));
			goto bad;
		}
		if (ebid_profile_read(fd, cli->perf_timeout_ms, &p, err,
				      sizeof(err))) {
			close(fd);
			goto bad;
		}
		close(fd);
		js = calloc(p.ndsos ? p.ndsos : 1, sizeof(*js));
		if (!js) {
			ebid_profile_release(&p);
			snprintf(err, sizeof(err), "out of memory");
			goto bad;
		}
		for (d = 0; d < p.ndsos; d++) {
			judge(&pl, &p, &p.dsos[d], &js[d]);
			counts[js[d].verdict]++;
			if (js[d].verdict != V_OK && js[d].verdict != V_SKIP &&
			    status < EXIT_CHECK)
				status = EXIT_CHECK;
		}
		if (cli->json)
			print_json_profile(args[i], &p, js, NULL, i == 0);
		else
			print_text(cli, args[i], &p, js);
		free(js);
		ebid_profile_release(&p);
		continue;
bad:
		fprintf(stderr, "%s: '%s': audit: %s\n", progname, args[i], err);
		if (cli->json)
			print_json_profile(args[i], NULL, NULL, err, i == 0);
		status = EXIT_FILE;
	}
	if (cli->json) {
		printf("\n  ],\n  \"summary\": {");
		for (k = 0; k < V_COUNT; k++)
			printf("%s\"%s\": %zu", k ? ", " : "", verdict_words[k],
			       counts[k]);
		printf("},\n  \"exit_status\": %d\n}\n", status);
	}
	return status;
}
