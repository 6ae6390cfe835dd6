/* SPDX-License-Identifier: MIT */
/*
 * ebid-recover: what the next elf-buildid run does first to a file that an
 * interrupted in-place edit left with its journal (the crash-state harness,
 * tests/crash/states.py, runs it on every state that has one):
 * ebid_inplace_recover() under the file's lock, and nothing else.
 *
 *   ebid-recover DIR NAME   once; prints "restored", "nothing" or
 *                           "error: ..."; exit 0, or 1 on error
 *   ebid-recover -          reads "DIR<TAB>NAME" lines from stdin and
 *                           answers each with one such line (the harness
 *                           checks thousands of states: one process)
 */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <string.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <unistd.h>

#include "fs/commit.h"

static int recover_one(const char *dir, char *name)
{
	char err[EBID_ERRLEN] = "";
	struct ebid_at at = { .dirfd = -1, .name = name };
	struct stat st;
	int fd = -1, ret = 1;

	at.dirfd = open(dir, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	if (at.dirfd >= 0)
		fd = openat(at.dirfd, at.name, O_RDWR | O_NOFOLLOW | O_CLOEXEC);
	if (fd < 0 || fstat(fd, &st) != 0 || flock(fd, LOCK_EX) != 0) {
		printf("error: cannot open %s/%s: %s\n", dir, name,
		       strerror(errno));
		goto out;
	}
	ret = ebid_inplace_recover(&at, fd, &st, err, sizeof(err));
	if (ret < 0)
		printf("error: %s\n", err);
	else
		printf("%s\n", ret > 0 ? "restored" : "nothing");
	ret = ret < 0;
out:
	if (fd >= 0)
		close(fd);
	if (at.dirfd >= 0)
		close(at.dirfd);
	fflush(stdout);
	return ret;
}

int main(int argc, char **argv)
{
	char line[8192], *tab;

	if (argc == 3)
		return recover_one(argv[1], argv[2]);
	if (argc != 2 || strcmp(argv[1], "-")) {
		fprintf(stderr, "usage: ebid-recover DIR NAME | ebid-recover -\n");
		return 2;
	}
	while (fgets(line, sizeof(line), stdin)) {
		line[strcspn(line, "\n")] = '\0';
		tab = strchr(line, '\t');
		if (!tab) {
			printf("error: bad request\n");
			fflush(stdout);
			continue;
		}
		*tab = '\0';
		recover_one(line, tab + 1);
	}
	return 0;
}
