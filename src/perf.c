/* SPDX-License-Identifier: MIT */
/* perf bridge: the only module that starts other programs. */
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

#define PERF_OUT_MAX 4096

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
 * Starts perf buildid-list on the file open at fd with a fixed
 * environment, its stdout the pipe's write end, in its own process group
 * (so a timeout kills perf's children too). *pid is -1 if it did not
 * start.
 */
static int spawn_perf(const char *perf, int fd, const char *home,
		      const int pipefd[2], pid_t *pid, char *err,
		      size_t errlen)
{
	char path[32], env_home[64], env_cache[96];
	char a_cmd[] = "buildid-list", a_i[] = "-i";
	char e_lc[] = "LC_ALL=C", e_path[] = "PATH=/usr/bin:/bin";
	char e_cfg[] = "PERF_CONFIG=/dev/null", e_pager[] = "PERF_PAGER=cat";
	char *const argv[] = { (char *)perf, a_cmd, a_i, path, NULL };
	char *const envp[] = { env_home, env_cache, e_lc, e_path,
			       e_cfg, e_pager, NULL };
	posix_spawn_file_actions_t fa;
	posix_spawnattr_t attr;
	sigset_t dflt;
	int child_fd = 3, ret;

	*pid = -1;
	snprintf(env_home, sizeof(env_home), "HOME=%s", home);
	snprintf(env_cache, sizeof(env_cache), "PERF_BUILDID_DIR=%s/.debug",
		 home);
	/*
	 * perf reads the inode we hold, through /proc/self/fd: a file
	 * renamed over the path meanwhile is not what it sees.
	 */
	while (child_fd == pipefd[0] || child_fd == pipefd[1])
		child_fd++;
	snprintf(path, sizeof(path), "/proc/self/fd/%d", child_fd);
	if (posix_spawn_file_actions_init(&fa) != 0)
		return ebid_err(err, errlen, -ENOMEM, "out of memory");
	if (posix_spawnattr_init(&attr) != 0) {
		posix_spawn_file_actions_destroy(&fa);
		return ebid_err(err, errlen, -ENOMEM, "out of memory");
	}
	/* perf gets the default disposition of what we ignore. */
	sigemptyset(&dflt);
	sigaddset(&dflt, SIGXFSZ);
	sigaddset(&dflt, SIGPIPE);
	posix_spawnattr_setsigdefault(&attr, &dflt);
	posix_spawnattr_setflags(&attr, POSIX_SPAWN_SETPGROUP |
					       POSIX_SPAWN_SETSIGDEF);
	posix_spawnattr_setpgroup(&attr, 0);
	if (posix_spawn_file_actions_adddup2(&fa, fd, child_fd) ||
	    posix_spawn_file_actions_addopen(&fa, 0, "/dev/null", O_RDONLY,
					     0) ||
	    posix_spawn_file_actions_adddup2(&fa, pipefd[1], 1) ||
	    posix_spawn_file_actions_addopen(&fa, 2, "/dev/null", O_WRONLY,
					     0))
		ret = ebid_err(err, errlen, -ENOMEM, "out of memory");
	else if ((ret = posix_spawn(pid, perf, &fa, &attr, argv, envp))) {
		*pid = -1;
		ret = ebid_err(err, errlen, -ret, "cannot run %s: %s", perf,
			       strerror(ret));
	}
	posix_spawn_file_actions_destroy(&fa);
	posix_spawnattr_destroy(&attr);
	return ret;
}

/*
 * Reads what perf prints until it closes its end or the deadline: the
 * first PERF_OUT_MAX bytes into out (NUL-terminated), the rest drained.
 * Returns false on timeout.
 */
static bool collect(int rfd, long timeout_ms, char out[PERF_OUT_MAX + 1])
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
		if (used < PERF_OUT_MAX)
			n = read(rfd, out + used, PERF_OUT_MAX - used);
		else
			n = read(rfd, sink, sizeof(sink));
		if (n < 0 && errno == EINTR)
			continue;
		if (n <= 0)
			break;
		if (used < PERF_OUT_MAX)
			used += (size_t)n;
	}
	out[used] = '\0';
	return true;
}

int ebid_perf_buildid(int fd, long timeout_ms, char *hex, size_t hexlen,
		      char *err, size_t errlen)
{
	char home[] = "/tmp/elf-buildid-perf-XXXXXX";
	char out[PERF_OUT_MAX + 1];
	const char *perf = find_perf();
	int pipefd[2] = { -1, -1 }, status = 0, ret;
	pid_t pid = -1;

	hex[0] = '\0';
	if (!perf)
		return ebid_err(err, errlen, -ENOENT, "perf is not installed");
	/* A private HOME: the user's ~/.debug and perf config stay out. */
	if (!mkdtemp(home))
		return ebid_err(err, errlen, -errno,
				"cannot create a private HOME for perf: %s",
				strerror(errno));
	if (pipe2(pipefd, O_CLOEXEC) != 0) {
		ret = ebid_err(err, errlen, -errno, "pipe failed: %s",
			       strerror(errno));
		goto out;
	}
	ret = spawn_perf(perf, fd, home, pipefd, &pid, err, errlen);
	if (ret)
		goto out;
	close(pipefd[1]);
	pipefd[1] = -1;
	if (!collect(pipefd[0], timeout_ms, out)) {
		ret = timeout_ms % 1000
			      ? ebid_err(err, errlen, -ETIMEDOUT,
					 "perf buildid-list timed out after %ld ms",
					 timeout_ms)
			      : ebid_err(err, errlen, -ETIMEDOUT,
					 "perf buildid-list timed out after %ld s",
					 timeout_ms / 1000);
		goto out; /* killed below */
	}
	while (waitpid(pid, &status, 0) < 0 && errno == EINTR)
		;
	pid = -1;
	if (!WIFEXITED(status) || WEXITSTATUS(status) != 0) {
		ret = ebid_err(err, errlen, -EIO,
			       "perf buildid-list found no build-id (exit status %d)",
			       WIFEXITED(status) ? WEXITSTATUS(status) : -1);
		goto out;
	}
	/* perf prints the id alone on its first line. */
	out[strcspn(out, " \t\r\n")] = '\0';
	snprintf(hex, hexlen, "%s", out);
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
	nftw(home, rm_entry, 16, FTW_DEPTH | FTW_PHYS);
	return ret;
}
