/* SPDX-License-Identifier: MIT */
/*
 * audit PROFILE...: for every binary a profile has samples in, whether a
 * report made now names the right functions (docs/profiling.md, "Auditing
 * a profile"). perf resolves a sample by the build-id it recorded, looking
 * for a file with that id at the recorded path, in its cache and in the
 * debug directories; without a recorded id it takes whatever the path
 * holds now.
 */
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "cli/cli.h"

#define DEBUGINFOD_TIMEOUT_MS 60000L

enum verdict {
	V_OK, V_STALE, V_UNSAFE, V_WRONG, V_GONE, V_SKIP, V_CONSTANT, V_COUNT
};

static const char *const verdict_words[V_COUNT] = {
	"ok", "stale", "unsafe", "wrong", "gone", "skip", "constant",
};

struct judged {
	enum verdict verdict;
	char found[PATH_MAX];   /* where a file with the id is, or "" */
	char detail[512];
	const char *fix;
};

/* The places looked in for a recorded id, besides the recorded path. */
struct places {
	struct ebid_places lib; /* --perf-cache, $HOME/.debug; --debug-dir,
				 * /usr/lib/debug; debuginfod */
	char home_cache[PATH_MAX];
	char pprof_path[PATH_MAX]; /* PPROF_BINARY_PATH or its default */
};

/*
 * The GNU build-id perf reads from the file at path: 1 and its hex, 0
 * when it is ELF without one perf can read, -1 when it is not a readable
 * ELF file.
 */
static int id_at(const char *path, char hex[2 * EBID_MAX_ID + 1])
{
	char err[EBID_ERRLEN];

	if (ebid_file_id(path, hex, 2 * EBID_MAX_ID + 1, err, sizeof(err)))
		return -1;
	return hex[0] ? 1 : 0;
}

/* The running kernel's or vDSO's id, or "" when it has none we can read. */
static bool running_id(bool kernel, char hex[2 * EBID_MAX_ID + 1])
{
	char err[EBID_ERRLEN];

	return !(kernel ? ebid_kernel_running_id(hex, 2 * EBID_MAX_ID + 1, err,
						 sizeof(err))
			: ebid_vdso_build_id(hex, 2 * EBID_MAX_ID + 1, err,
					     sizeof(err)));
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

/* Found by id somewhere other than the recorded path: why that is fine. */
static void found_elsewhere(const struct ebid_found *f, struct judged *j)
{
	snprintf(j->found, sizeof(j->found), "%s", f->path);
	if (f->in == EBID_FOUND_PERF_CACHE)
		snprintf(j->detail, sizeof(j->detail),
			 "in perf's build-id cache %s", f->dir);
	else if (f->in == EBID_FOUND_DEBUG_DIR)
		snprintf(j->detail, sizeof(j->detail),
			 "in the debug directory %s", f->dir);
	else
		snprintf(j->detail, sizeof(j->detail),
			 "served by DEBUGINFOD_URLS");
	j->verdict = V_OK;
}

/* A recorded id: found at the path, in a cache, a debug dir, debuginfod? */
static void judge_with_id(const struct places *pl, const struct ebid_dso *d,
			  bool pprof, struct judged *j)
{
	char here[2 * EBID_MAX_ID + 1], err[EBID_ERRLEN];
	struct ebid_places lib = pl->lib;
	struct ebid_found f;
	const char *dwhy;
	int at;

	at = id_at(d->path, here);
	if (at == 1 && !strcmp(here, d->id)) {
		snprintf(j->found, sizeof(j->found), "%s", d->path);
		snprintf(j->detail, sizeof(j->detail),
			 "the file at the recorded path has the id");
		j->verdict = V_OK;
		return;
	}
	if (pprof && !ebid_find_in_pprof_path(pl->pprof_path, d->path, d->id,
					      j->found, sizeof(j->found), err,
					      sizeof(err))) {
		snprintf(j->detail, sizeof(j->detail),
			 "in PPROF_BINARY_PATH (google/pprof finds it; go tool pprof checks no ids and reads the file at the path)");
		j->verdict = V_OK;
		return;
	}
	/* google/pprof does not read perf's cache. */
	if (pprof)
		lib.perf_caches[0] = lib.perf_caches[1] = NULL;
	if (!ebid_find_by_id(&lib, d->id, &f, err, sizeof(err))) {
		found_elsewhere(&f, j);
		return;
	}
	dwhy = f.debuginfod_why;
	if (at < 0 && access(d->path, F_OK) != 0) {
		j->verdict = V_GONE;
		snprintf(j->detail, sizeof(j->detail),
			 "the path no longer exists, and no file with the id is in perf's cache or the debug directories%s%.220s",
			 dwhy[0] ? "; " : "", dwhy);
		j->fix = fix_gone;
		return;
	}
	j->verdict = V_STALE;
	snprintf(j->detail, sizeof(j->detail),
		 "the file at the path %s%s, and no file with the recorded id is in %s or the debug directories%s%.220s; %s",
		 at == 1 ? "has another id, " : at == 0 ? "has no id" : "is not a readable ELF file",
		 at == 1 ? here : "",
		 pprof ? "PPROF_BINARY_PATH" : "perf's cache",
		 dwhy[0] ? "; " : "", dwhy,
		 pprof ? "google/pprof will show raw addresses, and go tool pprof, which checks no ids, the functions of the file now at the path"
		       : "perf will show raw addresses");
	j->fix = pprof ? fix_stale_pprof : fix_stale;
}

static const char fix_constant[] =
	"give every build its own id: elf-buildid inject replaces an id derived from a placeholder Go build id with the content hash; profile again after the next deploy";

/*
 * The file found with the recorded id has an id derived from a Go build
 * id the go command did not make (Bazel's "redacted"): every program
 * linked that way has it, so the file found may be another program.
 */
static void judge_constant(struct judged *j)
{
	struct ebid_elf elf;
	char err[EBID_ERRLEN], goid[EBID_GO_ID_MAX + 1];
	bool constant;
	int fd;

	fd = open(j->found, O_RDONLY | O_CLOEXEC | O_NOCTTY | O_NONBLOCK);
	if (fd < 0)
		return;
	memset(&elf, 0, sizeof(elf));
	constant = !ebid_elf_open_fd(&elf, fd, err, sizeof(err)) &&
		   ebid_gnu_id_constant(&elf);
	if (constant)
		snprintf(goid, sizeof(goid), "%.*s", (int)elf.go.desc_len,
			 (const char *)elf.go.desc);
	ebid_elf_release(&elf);
	close(fd);
	if (!constant)
		return;
	j->verdict = V_CONSTANT;
	snprintf(j->detail, sizeof(j->detail),
		 "the id is derived from the Go build id '%.100s', which the go command did not make: every program linked with it has this id, so the file found by it (%.200s) may be another program",
		 goid, j->found);
	j->fix = fix_constant;
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
	char now[2 * EBID_MAX_ID + 1], err[EBID_ERRLEN];
	struct ebid_places lib = { 0 };
	struct ebid_found f;

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
	if (running_id(kernel, now) && !strcmp(now, d->id)) {
		j->verdict = V_OK;
		snprintf(j->detail, sizeof(j->detail), "the running %s has the id",
			 kernel ? "kernel" : "vDSO");
		return;
	}
	/* Only perf's cache keeps an old kernel's or vDSO's image by id. */
	lib.perf_caches[0] = pl->lib.perf_caches[0];
	lib.perf_caches[1] = pl->lib.perf_caches[1];
	if (!ebid_find_by_id(&lib, d->id, &f, err, sizeof(err))) {
		found_elsewhere(&f, j);
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
		if (j->verdict == V_OK && j->found[0])
			judge_constant(j);
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
		char word[16];
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
	pl->lib.perf_caches[0] = cli->perf_cache;
	if (home && home[0] &&
	    snprintf(pl->home_cache, sizeof(pl->home_cache), "%s/.debug",
		     home) < (int)sizeof(pl->home_cache))
		pl->lib.perf_caches[1] = pl->home_cache;
	if (getenv("PPROF_BINARY_PATH"))
		snprintf(pl->pprof_path, sizeof(pl->pprof_path), "%s",
			 getenv("PPROF_BINARY_PATH"));
	else if (home && home[0])
		snprintf(pl->pprof_path, sizeof(pl->pprof_path),
			 "%s/pprof/binaries", home);
	pl->lib.debug_dirs[0] = cli->debug_dir;
	pl->lib.debug_dirs[1] = "/usr/lib/debug";
	pl->lib.debuginfod = cli->debuginfod;
	pl->lib.debuginfod_timeout_ms = DEBUGINFOD_TIMEOUT_MS;
	/* debuginfod-find sees only its own variables, a fixed PATH and C. */
	for (i = 0; environ && environ[i]; i++)
		for (k = 0; k < sizeof(pass) / sizeof(pass[0]); k++)
			if (!strncmp(environ[i], pass[k], strlen(pass[k])) &&
			    n < 16)
				dienv[n++] = environ[i];
	dienv[n++] = (char *)"PATH=/usr/bin:/bin";
	dienv[n++] = (char *)"LC_ALL=C";
	dienv[n] = NULL;
	pl->lib.debuginfod_env = dienv;
}

int cmd_audit(const struct cli *cli, char **args, int nargs)
{
	char *dienv[20];
	struct places pl;
	size_t counts[V_COUNT] = { 0 }, k;
	int i, status = EXIT_OK;

	places_init(cli, &pl, dienv);
	if (cli->running)
		return cmd_running(cli, &pl.lib);
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
