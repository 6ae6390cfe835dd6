/* SPDX-License-Identifier: MIT */
/*
 * The bridge to other programs (perf, debuginfod-find): the only module
 * that starts any. Each is found at fixed system paths, run with a fixed
 * environment, stdin and stderr /dev/null, a deadline, and a bound on
 * what is read of its output.
 */
#include <errno.h>
#include <fcntl.h>
#include <ftw.h>
#include <poll.h>
#include <signal.h>
#include <spawn.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "internal.h"
#include "fs/fs.h"
#include "profile/perf.h"

#define PERF_OUT_MAX 4096
#define PERF_HITS_MAX (4 << 20)

/*
 * perf is looked up at fixed system paths, never through $PATH, so a
 * hostile "perf" earlier in PATH has no effect.
 */
static const char *const perf_paths[] = {
	"/usr/bin/perf", "/usr/sbin/perf", "/usr/local/bin/perf",
};

static const char *find_perf(void)
{
	size_t i;

	for (i = 0; i < ARRAY_SIZE(perf_paths); i++)
		if (access(perf_paths[i], X_OK) == 0)
			return perf_paths[i];
	return NULL;
}

static int rm_entry(const char *path, const struct stat *sb, int flag,
		    struct FTW *ftw)
{
	(void)sb;
	(void)flag;
	(void)ftw;
	remove(path);
	return 0;
}

/*
 * One run of another program: its fixed path, its arguments (argv[0]
 * included; an argument "@FD" becomes /proc/self/fd/N for the caller's
 * descriptor fd, which the child gets as N), its whole environment, and
 * what may be read of its standard output.
 */
struct program {
	const char *path;
	const char *const *argv;
	char *const *envp;
	int fd;                 /* -1: none */
	long timeout_ms;
	size_t max_out;         /* the rest is drained */
	const char *what;       /* "perf buildid-list", for messages */
};

/*
 * Starts the program with its stdout the pipe's write end, stdin and
 * stderr /dev/null, in its own process group (so a timeout kills its
 * children too). *pid is -1 if it did not start.
 */
static int spawn(const struct program *pr, const int pipefd[2], pid_t *pid,
		 char *err, size_t errlen)
{
	char fdpath[32], *argv[16];
	posix_spawn_file_actions_t fa;
	posix_spawnattr_t attr;
	sigset_t dflt;
	int child_fd = 3, ret;
	size_t i;

	*pid = -1;
	/*
	 * The child reads the inode we hold, through /proc/self/fd: a file
	 * renamed over the path meanwhile is not what it sees.
	 */
	while (child_fd == pipefd[0] || child_fd == pipefd[1])
		child_fd++;
	snprintf(fdpath, sizeof(fdpath), "/proc/self/fd/%d", child_fd);
	for (i = 0; pr->argv[i] && i + 1 < ARRAY_SIZE(argv); i++)
		argv[i] = !strcmp(pr->argv[i], "@FD") ? fdpath
						      : (char *)pr->argv[i];
	argv[i] = NULL;
	if (posix_spawn_file_actions_init(&fa) != 0)
		return ebid_err(err, errlen, -ENOMEM, "out of memory");
	if (posix_spawnattr_init(&attr) != 0) {
		posix_spawn_file_actions_destroy(&fa);
		return ebid_err(err, errlen, -ENOMEM, "out of memory");
	}
	/* The child gets the default disposition of what we ignore. */
	sigemptyset(&dflt);
	sigaddset(&dflt, SIGXFSZ);
	sigaddset(&dflt, SIGPIPE);
	sigaddset(&dflt, SIGIO);
	posix_spawnattr_setsigdefault(&attr, &dflt);
	posix_spawnattr_setflags(&attr, POSIX_SPAWN_SETPGROUP |
					       POSIX_SPAWN_SETSIGDEF);
	posix_spawnattr_setpgroup(&attr, 0);
	if ((pr->fd >= 0 &&
	     posix_spawn_file_actions_adddup2(&fa, pr->fd, child_fd)) ||
	    posix_spawn_file_actions_addopen(&fa, 0, "/dev/null", O_RDONLY,
					     0) ||
	    posix_spawn_file_actions_adddup2(&fa, pipefd[1], 1) ||
	    posix_spawn_file_actions_addopen(&fa, 2, "/dev/null", O_WRONLY,
					     0))
		ret = ebid_err(err, errlen, -ENOMEM, "out of memory");
	else if ((ret = posix_spawn(pid, pr->path, &fa, &attr, argv,
				    pr->envp))) {
		*pid = -1;
		ret = ebid_err(err, errlen, -ret, "cannot run %s: %s",
			       pr->path, strerror(ret));
	}
	posix_spawn_file_actions_destroy(&fa);
	posix_spawnattr_destroy(&attr);
	return ret;
}

/*
 * Reads what the program prints until it closes its end or the deadline:
 * the first max bytes into out (NUL-terminated), the rest drained. Returns
 * false on timeout.
 */
static bool collect(int rfd, long timeout_ms, char *out, size_t max)
{
	long long deadline = ebid_now_ms() + timeout_ms;
	size_t used = 0;

	for (;;) {
		struct pollfd pfd = { .fd = rfd, .events = POLLIN };
		long long left = deadline - ebid_now_ms();
		char sink[512];
		ssize_t n;

		if (left <= 0) {
			out[used] = '\0';
			return false;
		}
		if (poll(&pfd, 1, (int)left) < 0) {
			if (errno == EINTR)
				continue;
			break;
		}
		if (!pfd.revents)
			continue;
		if (used < max)
			n = read(rfd, out + used, max - used);
		else
			n = read(rfd, sink, sizeof(sink));
		if (n < 0 && errno == EINTR)
			continue;
		if (n <= 0)
			break;
		if (used < max)
			used += (size_t)n;
	}
	out[used] = '\0';
	return true;
}

/*
 * Runs the program to its end or its deadline: *out (malloc'd, NUL-
 * terminated) holds its output, *code its exit status (-1: killed by a
 * signal). A timeout is -ETIMEDOUT, and the program is killed.
 */
static int run_program(const struct program *pr, char **out, int *code,
		       char *err, size_t errlen)
{
	int pipefd[2] = { -1, -1 }, status = 0, ret;
	pid_t pid = -1;

	*out = malloc(pr->max_out + 1);
	if (!*out)
		return ebid_err(err, errlen, -ENOMEM, "out of memory");
	if (pipe2(pipefd, O_CLOEXEC) != 0) {
		ret = ebid_err(err, errlen, -errno, "pipe failed: %s",
			       strerror(errno));
		goto out;
	}
	ret = spawn(pr, pipefd, &pid, err, errlen);
	if (ret)
		goto out;
	close(pipefd[1]);
	pipefd[1] = -1;
	if (!collect(pipefd[0], pr->timeout_ms, *out, pr->max_out)) {
		ret = pr->timeout_ms % 1000
			      ? ebid_err(err, errlen, -ETIMEDOUT,
					 "%s timed out after %ld ms", pr->what,
					 pr->timeout_ms)
			      : ebid_err(err, errlen, -ETIMEDOUT,
					 "%s timed out after %ld s", pr->what,
					 pr->timeout_ms / 1000);
		goto out; /* killed below */
	}
	while (waitpid(pid, &status, 0) < 0 && errno == EINTR)
		;
	pid = -1;
	*code = WIFEXITED(status) ? WEXITSTATUS(status) : -1;
	ret = 0;
out:
	if (pipefd[0] >= 0)
		close(pipefd[0]);
	if (pipefd[1] >= 0)
		close(pipefd[1]);
	if (pid > 0) {
		kill(-pid, SIGKILL);
		waitpid(pid, &status, 0);
	}
	if (ret) {
		free(*out);
		*out = NULL;
	}
	return ret;
}

/*
 * Runs perf with the arguments given, on the file open at fd ("@FD"), with
 * a private HOME (the user's ~/.debug and perf config stay out) and a fixed
 * environment.
 */
static int run_perf(const char *const *argv, int fd, long timeout_ms,
		    size_t max_out, char **out, int *code, char *err,
		    size_t errlen)
{
	char home[] = "/tmp/elf-buildid-perf-XXXXXX";
	char env_home[64], env_cache[96];
	char e_lc[] = "LC_ALL=C", e_path[] = "PATH=/usr/bin:/bin";
	char e_cfg[] = "PERF_CONFIG=/dev/null", e_pager[] = "PERF_PAGER=cat";
	char *const envp[] = { env_home, env_cache, e_lc, e_path,
			       e_cfg, e_pager, NULL };
	struct program pr = {
		.path = find_perf(), .argv = argv, .envp = envp, .fd = fd,
		.timeout_ms = timeout_ms, .max_out = max_out,
		.what = "perf buildid-list",
	};
	int ret;

	if (!pr.path)
		return ebid_err(err, errlen, -ENOENT, "perf is not installed");
	if (!mkdtemp(home))
		return ebid_err(err, errlen, -errno,
				"cannot create a private HOME for perf: %s",
				strerror(errno));
	snprintf(env_home, sizeof(env_home), "HOME=%s", home);
	snprintf(env_cache, sizeof(env_cache), "PERF_BUILDID_DIR=%s/.debug",
		 home);
	ret = run_program(&pr, out, code, err, errlen);
	nftw(home, rm_entry, 16, FTW_DEPTH | FTW_PHYS);
	return ret;
}

int ebid_perf_buildid(int fd, long timeout_ms, char *hex, size_t hexlen,
		      char *err, size_t errlen)
{
	static const char *const argv[] = { "perf", "buildid-list", "-i",
					    "@FD", NULL };
	char *out = NULL;
	int code = 0, ret;

	hex[0] = '\0';
	ret = run_perf(argv, fd, timeout_ms, PERF_OUT_MAX, &out, &code, err,
		       errlen);
	if (ret)
		return ret;
	if (code != 0) {
		free(out);
		return ebid_err(err, errlen, -EIO,
				"perf buildid-list found no build-id (exit status %d)",
				code);
	}
	/* perf prints the id alone on its first line. */
	out[strcspn(out, " \t\r\n")] = '\0';
	snprintf(hex, hexlen, "%s", out);
	free(out);
	return 0;
}

/* Whether s is n hex digits. */
static bool is_hex(const char *s, size_t n)
{
	size_t i;

	for (i = 0; i < n; i++)
		if (!((s[i] >= '0' && s[i] <= '9') || (s[i] >= 'a' && s[i] <= 'f')))
			return false;
	return true;
}

/*
 * One line of `perf buildid-list --with-hits`: the id in hex, or blanks
 * when none was recorded, one space, the path. 0, or -1 when the line has
 * neither form.
 */
static int parse_hit(char *line, struct ebid_dso *d)
{
	size_t idlen = strcspn(line, " ");
	char *path;

	memset(d, 0, sizeof(*d));
	if (idlen) {
		if (idlen > 2 * EBID_MAX_ID || idlen % 2 || !is_hex(line, idlen) ||
		    line[idlen] != ' ')
			return -1;
		memcpy(d->id, line, idlen);
		d->id[idlen] = '\0';
		path = line + idlen + 1;
	} else {
		path = line + strspn(line, " ");
		if (path - line < 2)
			return -1;
	}
	if (!*path || *path == ' ')
		return -1;
	d->path = strdup(path);
	return d->path ? 0 : -1;
}

int ebid_perf_hits(int fd, long timeout_ms, struct ebid_dso **dsos,
		   size_t *ndsos, char *err, size_t errlen)
{
	static const char *const argv[] = { "perf", "buildid-list",
					    "--with-hits", "-i", "@FD", NULL };
	struct ebid_dso *v = NULL;
	char *out = NULL, *line, *save = NULL;
	size_t n = 0;
	int code = 0, ret;

	*dsos = NULL;
	*ndsos = 0;
	ret = run_perf(argv, fd, timeout_ms, PERF_HITS_MAX, &out, &code, err,
		       errlen);
	if (ret)
		return ret;
	if (code != 0) {
		free(out);
		return ebid_err(err, errlen, -EBID_EMALFORMED,
				"perf buildid-list --with-hits cannot read it (exit status %d)",
				code);
	}
	if (strlen(out) >= PERF_HITS_MAX) {
		free(out);
		return ebid_err(err, errlen, -E2BIG,
				"perf buildid-list --with-hits printed more than %d bytes",
				PERF_HITS_MAX);
	}
	for (line = strtok_r(out, "\n", &save); line;
	     line = strtok_r(NULL, "\n", &save)) {
		struct ebid_dso *nv = realloc(v, (n + 1) * sizeof(*v));

		if (!nv) {
			ret = ebid_err(err, errlen, -ENOMEM, "out of memory");
			break;
		}
		v = nv;
		if (parse_hit(line, &v[n])) {
			ret = ebid_err(err, errlen, -EBID_EMALFORMED,
				       "perf buildid-list --with-hits printed a line of another form: '%.80s'",
				       line);
			break;
		}
		n++;
	}
	free(out);
	if (ret) {
		ebid_dsos_free(v, n);
		return ret;
	}
	*dsos = v;
	*ndsos = n;
	return 0;
}

void ebid_dsos_free(struct ebid_dso *v, size_t n)
{
	size_t i;

	for (i = 0; i < n; i++)
		free(v[i].path);
	free(v);
}

static const char *const debuginfod_find_paths[] = {
	"/usr/bin/debuginfod-find", "/usr/local/bin/debuginfod-find",
};

int ebid_debuginfod_find(const char *kind, const char *hex,
			 char *const envp[], long timeout_ms, char *path,
			 size_t pathlen, char *err, size_t errlen)
{
	const char *argv[] = { "debuginfod-find", kind, hex, NULL };
	struct program pr = {
		.argv = argv, .envp = envp, .fd = -1,
		.timeout_ms = timeout_ms, .max_out = 4096,
		.what = "debuginfod-find",
	};
	char *out = NULL;
	int code = 0, ret;
	size_t i;

	path[0] = '\0';
	for (i = 0; i < ARRAY_SIZE(debuginfod_find_paths) && !pr.path; i++)
		if (access(debuginfod_find_paths[i], X_OK) == 0)
			pr.path = debuginfod_find_paths[i];
	if (!pr.path)
		return ebid_err(err, errlen, -ENOENT,
				"debuginfod-find is not installed (Debian package debuginfod)");
	ret = run_program(&pr, &out, &code, err, errlen);
	if (ret)
		return ret;
	out[strcspn(out, "\n")] = '\0';
	if (code != 0 || out[0] != '/') {
		free(out);
		return ebid_err(err, errlen, -ENOENT,
				"no %s for %s from DEBUGINFOD_URLS (debuginfod-find exit status %d)",
				kind, hex, code);
	}
	snprintf(path, pathlen, "%s", out);
	free(out);
	return 0;
}
