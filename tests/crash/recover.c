/* SPDX-License-Identifier: MIT */
/*
 * ebid-recover DIR NAME: what the next elf-buildid run does first to a
 * file that an interrupted in-place edit left with its journal (the
 * crash-state harness, tests/crash/states.py, runs it on every state that
 * has one): ebid_inplace_recover() under the file's lock, and nothing
 * else. Prints "restored", "nothing" or the error; exit 0, or 1 on error.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <string.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <unistd.h>

#include "fs/commit.h"

int main(int argc, char **argv)
{
	char err[EBID_ERRLEN] = "";
	struct ebid_at at = { .dirfd = -1, .name = NULL };
	struct stat st;
	int fd, ret;

	if (argc != 3) {
		fprintf(stderr, "usage: ebid-recover DIR NAME\n");
		return 2;
	}
	at.dirfd = open(argv[1], O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	at.name = argv[2];
	fd = at.dirfd < 0 ? -1
			  : openat(at.dirfd, at.name,
				   O_RDWR | O_NOFOLLOW | O_CLOEXEC);
	if (fd < 0 || fstat(fd, &st) != 0 || flock(fd, LOCK_EX) != 0) {
		printf("cannot open %s/%s: %s\n", argv[1], argv[2],
		       strerror(errno));
		return 1;
	}
	ret = ebid_inplace_recover(&at, fd, &st, err, sizeof(err));
	if (ret < 0) {
		printf("error: %s\n", err);
		return 1;
	}
	printf("%s\n", ret > 0 ? "restored" : "nothing");
	return 0;
}
