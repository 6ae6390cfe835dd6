/* SPDX-License-Identifier: MIT */
/*
 * Unit tests (TAP) for reaching files through held directories: the
 * beneath-and-no-symlink open (with openat2, and with the per-component
 * walk that kernels without openat2 get, forced here by a seccomp filter
 * that makes openat2 fail with ENOSYS), mkdir -p below a root, the walk's
 * symlink rules, and two walks at once in one process.
 */
#include <errno.h>
#include <fcntl.h>
#include <linux/filter.h>
#include <linux/seccomp.h>
#include <pthread.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>

#include "internal.h"

#include "tap.h"
static char top[] = "/tmp/ebid-unit-at-XXXXXX";


static void mkfile(const char *rel, const char *text)
{
	char path[512];
	FILE *f;

	snprintf(path, sizeof(path), "%s/%s", top, rel);
	f = fopen(path, "w");
	if (f) {
		fputs(text, f);
		fclose(f);
	}
}

static void mkdir_rel(const char *rel)
{
	char path[512];

	snprintf(path, sizeof(path), "%s/%s", top, rel);
	mkdir(path, 0755);
}

static void symlink_rel(const char *target, const char *rel)
{
	char path[512];

	snprintf(path, sizeof(path), "%s/%s", top, rel);
	if (symlink(target, path) != 0)
		perror(path);
}

/*
 * tree/          the root the tests hold
 *   a/f          a file
 *   a/up -> ..   a symlink to a directory inside the tree
 *   out -> ../outside   a symlink to a directory outside it
 * outside/secret
 */
static void make_tree(void)
{
	mkdir_rel("tree");
	mkdir_rel("tree/a");
	mkdir_rel("outside");
	mkfile("tree/a/f", "f");
	mkfile("outside/secret", "secret");
	symlink_rel("..", "tree/a/up");
	symlink_rel("../outside", "tree/out");
	symlink_rel("f", "tree/a/lf");
}

/* The open rules; prefix names the variant in the test descriptions. */
static void test_beneath(int root, const char *prefix)
{
	char what[160];
	int fd;

#define CHECK(cond, text)                                              \
	do {                                                           \
		snprintf(what, sizeof(what), "%s: %s", prefix, text);  \
		ok(cond, "%s", what);                                  \
	} while (0)
	fd = ebid_open_beneath(root, "a/f", O_RDONLY, 0);
	CHECK(fd >= 0, "a plain path below the root opens");
	if (fd >= 0)
		close(fd);
	fd = ebid_open_beneath(root, "out/secret", O_RDONLY, 0);
	CHECK(fd == -ELOOP || fd == -EXDEV,
	      "a symlinked directory out of the tree is refused");
	if (fd >= 0)
		close(fd);
	fd = ebid_open_beneath(root, "a/up/a/f", O_RDONLY, 0);
	CHECK(fd == -ELOOP || fd == -EXDEV,
	      "a symlinked directory inside the tree is refused too");
	if (fd >= 0)
		close(fd);
	fd = ebid_open_beneath(root, "a/lf", O_RDONLY, 0);
	CHECK(fd == -ELOOP, "a symlink as the last component is refused");
	if (fd >= 0)
		close(fd);
	fd = ebid_open_beneath(root, "a/lf", O_PATH | O_NOFOLLOW, 0);
	CHECK(fd >= 0, "O_PATH|O_NOFOLLOW opens the symlink itself");
	if (fd >= 0)
		close(fd);
	fd = ebid_open_beneath(root, "../outside/secret", O_RDONLY, 0);
	CHECK(fd == -EXDEV, "'..' out of the root is refused");
	if (fd >= 0)
		close(fd);
	fd = ebid_open_beneath(root, "/etc/passwd", O_RDONLY, 0);
	CHECK(fd == -EXDEV, "an absolute path is refused");
	if (fd >= 0)
		close(fd);
	fd = ebid_open_beneath(root, "a/new", O_WRONLY | O_CREAT | O_EXCL,
			       0600);
	CHECK(fd >= 0, "O_CREAT below the root works");
	if (fd >= 0) {
		close(fd);
		unlinkat(root, "a/new", 0);
	}
#undef CHECK
}

/* Makes openat2 fail with ENOSYS in this process, as an old kernel would. */
static int deny_openat2(void)
{
	struct sock_filter code[] = {
		BPF_STMT(BPF_LD | BPF_W | BPF_ABS,
			 offsetof(struct seccomp_data, nr)),
		BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, SYS_openat2, 0, 1),
		BPF_STMT(BPF_RET | BPF_K, SECCOMP_RET_ERRNO | ENOSYS),
		BPF_STMT(BPF_RET | BPF_K, SECCOMP_RET_ALLOW),
	};
	struct sock_fprog prog = { .len = sizeof(code) / sizeof(code[0]),
				   .filter = code };

	if (prctl(PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0) != 0)
		return -1;
	return prctl(PR_SET_SECCOMP, SECCOMP_MODE_FILTER, &prog);
}

static void test_fallback(const char *tree)
{
	int status, pipefd[2];
	pid_t pid;
	char buf[4096];
	ssize_t got;

	if (pipe(pipefd) != 0)
		return;
	fflush(stdout);
	pid = fork();
	if (pid == 0) {
		int root, fd;

		close(pipefd[0]);
		dup2(pipefd[1], 1);
		root = open(tree, O_RDONLY | O_DIRECTORY);
		if (deny_openat2() != 0) {
			printf("seccomp unavailable\n");
			_exit(3);
		}
		fd = (int)syscall(SYS_openat2, root, "a", NULL, 0);
		if (fd >= 0 || errno != ENOSYS) {
			printf("openat2 still works\n");
			_exit(3);
		}
		tap_n = tap_failed = 0;
		test_beneath(root, "without openat2");
		_exit(tap_failed ? 1 : 0);
	}
	close(pipefd[1]);
	/* The child's lines, renumbered into ours. */
	while ((got = read(pipefd[0], buf, sizeof(buf) - 1)) > 0) {
		char *line, *save = NULL;

		buf[got] = '\0';
		for (line = strtok_r(buf, "\n", &save); line;
		     line = strtok_r(NULL, "\n", &save)) {
			char *dash = strstr(line, " - ");

			if (dash)
				ok(!strncmp(line, "ok ", 3), "%s", dash + 3);
			else
				ok(0, "%s", line);
		}
	}
	close(pipefd[0]);
	waitpid(pid, &status, 0);
	ok(WIFEXITED(status) && WEXITSTATUS(status) == 0,
	   "the child without openat2 exited 0");
}

static void test_mkdirs(int root)
{
	char err[EBID_ERRLEN];
	int fd = -1, ret;

	ret = ebid_mkdirs_beneath(root, "x/y/z", &fd, err, sizeof(err));
	ok(ret == 0 && fd >= 0, "mkdirs_beneath makes x/y/z");
	if (fd >= 0)
		close(fd);
	fd = -1;
	ret = ebid_mkdirs_beneath(root, "out/z", &fd, err, sizeof(err));
	ok(ret == -ELOOP && fd < 0 && strstr(err, "symlink"),
	   "mkdirs_beneath refuses a symlink where a directory should be");
	ret = ebid_mkdirs_beneath(root, "x/../../z", &fd, err, sizeof(err));
	ok(ret == -EXDEV && fd < 0, "mkdirs_beneath refuses '..'");
}

struct walk_arg {
	char root[512];
	struct ebid_walk w;
	int ret;
};

static void *walk_thread(void *p)
{
	struct walk_arg *a = p;
	char err[EBID_ERRLEN];

	a->ret = ebid_walk_add(&a->w, a->root, true, NULL, 0, err,
			       sizeof(err));
	ebid_walk_finish(&a->w);
	return NULL;
}

static const struct ebid_walk_entry *find(const struct ebid_walk *w,
					  const char *suffix)
{
	size_t i, ls = strlen(suffix);

	for (i = 0; i < w->n; i++) {
		size_t lp = strlen(w->v[i].path);

		if (lp >= ls && !strcmp(w->v[i].path + lp - ls, suffix))
			return &w->v[i];
	}
	return NULL;
}

static void test_walks(void)
{
	struct walk_arg a, b;
	pthread_t ta, tb;
	const struct ebid_walk_entry *e;

	memset(&a, 0, sizeof(a));
	memset(&b, 0, sizeof(b));
	snprintf(a.root, sizeof(a.root), "%s/tree", top);
	snprintf(b.root, sizeof(b.root), "%s/outside", top);
	/* Two walks at once: nothing in the library is shared between them. */
	pthread_create(&ta, NULL, walk_thread, &a);
	pthread_create(&tb, NULL, walk_thread, &b);
	pthread_join(ta, NULL);
	pthread_join(tb, NULL);
	ok(a.ret == 0 && b.ret == 0, "two walks in two threads succeed");
	e = find(&a.w, "/a/f");
	ok(e && !e->skip && e->rel && !strcmp(e->rel, "a/f"),
	   "walk: a/f is a candidate reached as a/f below the root");
	e = find(&a.w, "/out");
	ok(e && e->skip && e->reason && strstr(e->reason, "out of the tree"),
	   "walk: a symlink to a directory outside is skipped as out of the tree");
	e = find(&a.w, "/a/lf");
	ok(e && e->skip && e->alias_of, "walk: a/lf is another name of a/f");
	e = find(&a.w, "/a/up");
	ok(e && e->skip, "walk: a symlink to a directory is not entered");
	ok(a.w.n == 4, "walk: four entries in the tree (f, lf, up, out)");
	e = find(&b.w, "/secret");
	ok(b.w.n == 1 && e && !e->skip, "the other walk saw its one file");
	ebid_walk_release(&a.w);
	ebid_walk_release(&b.w);
}

int main(void)
{
	char tree[512];
	int root;

	if (!mkdtemp(top)) {
		printf("not ok 1 - mkdtemp: %s\n", strerror(errno));
		return 1;
	}
	make_tree();
	snprintf(tree, sizeof(tree), "%s/tree", top);
	root = open(tree, O_RDONLY | O_DIRECTORY);
	ok(root >= 0, "the test tree opens");
	test_beneath(root, "openat2");
	test_fallback(tree);
	test_mkdirs(root);
	test_walks();
	close(root);
	{
		char cmd[600];

		snprintf(cmd, sizeof(cmd), "rm -rf '%s'", top);
		if (system(cmd) != 0)
			fprintf(stderr, "cannot remove %s\n", top);
	}
	return tap_done();
}
