/* SPDX-License-Identifier: MIT */
/*
 * Unit tests (TAP) for files named by their build-id, through the public
 * header only: the .build-id path, placing a copy by id (from a
 * /proc/self/map_files descriptor, as audit --running does) in a debug
 * directory and in perf's cache, the refusals (another file, a planted
 * symlink), finding the placed file again, and the running vDSO's and
 * kernel's ids judged by readelf and perf.
 */
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/auxv.h>
#include <sys/stat.h>
#include <unistd.h>

#include <elf-buildid.h>

#include "tap.h"
static char top[] = "/tmp/ebid-unit-byid-XXXXXX";



static void test_path(void)
{
	char buf[PATH_MAX];

	ok(!ebid_build_id_path(buf, sizeof(buf), "/d", "abcdef", ".debug") &&
		   !strcmp(buf, "/d/.build-id/ab/cdef.debug"),
	   "path: DIR/.build-id/ab/cdef.debug");
	ok(!ebid_build_id_path(buf, sizeof(buf), NULL, "abcdef", NULL) &&
		   !strcmp(buf, ".build-id/ab/cdef"),
	   "path: relative, no suffix");
	ok(ebid_build_id_path(buf, sizeof(buf), "/d", "a", NULL) == -EINVAL &&
		   ebid_build_id_path(buf, sizeof(buf), "/d", "ab/../x", NULL) ==
			   -EINVAL,
	   "path: a name that is not hex is refused");
	ok(ebid_build_id_path(buf, 8, "/d", "abcdef", NULL) == -ENAMETOOLONG,
	   "path: too long for the buffer");
}

/* A descriptor of this program's first mapping, as /proc/PID/map_files. */
static int exe_map_fd(void)
{
	char line[PATH_MAX + 128], exe[PATH_MAX], path[PATH_MAX + 64];
	ssize_t len = readlink("/proc/self/exe", exe, sizeof(exe) - 1);
	FILE *f = fopen("/proc/self/maps", "r");
	int fd = -1;

	if (!f || len <= 0)
		goto out;
	exe[len] = '\0';
	while (fd < 0 && fgets(line, sizeof(line), f)) {
		char range[64];

		if (!strstr(line, exe) || sscanf(line, "%63s", range) != 1)
			continue;
		snprintf(path, sizeof(path), "/proc/self/map_files/%s", range);
		fd = open(path, O_RDONLY | O_CLOEXEC);
	}
out:
	if (f)
		fclose(f);
	return fd;
}

static bool same_file_bytes(const char *a, int bfd)
{
	char cmd[PATH_MAX * 2 + 64];

	snprintf(cmd, sizeof(cmd), "cmp -s '%s' /proc/%d/fd/%d", a,
		 (int)getpid(), bfd);
	return system(cmd) == 0;
}

static void test_place(const char *hex, int in_fd)
{
	/* Paths here are short: top is in /tmp, exe is this program. */
	char dir[512], exe[1024], want[2048], err[EBID_ERRLEN];
	char *dest = NULL, link[2048];
	struct ebid_placing p = { .kind = EBID_ID_DEBUG_DIR, .hex = hex };
	struct ebid_places pl;
	struct ebid_found f;
	ssize_t len;
	int other, ret;

	memset(&pl, 0, sizeof(pl));
	snprintf(dir, sizeof(dir), "%s/debug", top);
	ok(!ebid_dir_open_made(dir, &p.dirfd, err, sizeof(err)),
	   "place: the directory is made and held");
	p.dir = dir;
	ret = ebid_place_by_id(in_fd, &p, &dest, err, sizeof(err));
	snprintf(want, sizeof(want), "%s/.build-id/%.2s/%s.debug", dir, hex,
		 hex + 2);
	ok(!ret && dest && !strcmp(dest, want) && same_file_bytes(want, in_fd),
	   "place: a debug directory gets a copy of the mapping's bytes");
	free(dest);
	ok(!ebid_place_by_id(in_fd, &p, &dest, err, sizeof(err)),
	   "place: the same bytes again are fine");
	free(dest);
	pl.debug_dirs[0] = dir;
	ok(!ebid_find_by_id(&pl, hex, &f, err, sizeof(err)) &&
		   f.in == EBID_FOUND_DEBUG_DIR && !strcmp(f.path, want),
	   "find: the placed copy is found by its id");
	other = open("/proc/self/cmdline", O_RDONLY | O_CLOEXEC);
	ret = ebid_place_by_id(other, &p, &dest, err, sizeof(err));
	ok(ret == -EEXIST && !dest && strstr(err, "collision"),
	   "place: other bytes under the same id are refused");
	close(other);
	close(p.dirfd);

	/* perf's layout, for the binary at its own path. */
	len = readlink("/proc/self/exe", exe, sizeof(exe) - 1);
	exe[len > 0 ? len : 0] = '\0';
	snprintf(dir, sizeof(dir), "%s/cache", top);
	p = (struct ebid_placing){ .kind = EBID_ID_PERF_CACHE, .dir = dir,
				   .hex = hex, .bin_path = exe };
	ebid_dir_open_made(dir, &p.dirfd, err, sizeof(err));
	ret = ebid_place_by_id(in_fd, &p, &dest, err, sizeof(err));
	snprintf(want, sizeof(want), "%s%s/%s/debug", dir, exe, hex);
	ok(!ret && dest && !strcmp(dest, want) && same_file_bytes(want, in_fd),
	   "place: perf's cache gets <path>/<id>/debug");
	free(dest);
	snprintf(want, sizeof(want), "%s%s/%s/elf", dir, exe, hex);
	ok(same_file_bytes(want, in_fd), "place: and <path>/<id>/elf");
	snprintf(want, sizeof(want), "%s/.build-id/%.2s/%s", dir, hex, hex + 2);
	len = readlink(want, link, sizeof(link) - 1);
	link[len > 0 ? len : 0] = '\0';
	snprintf(want, sizeof(want), "../..%s/%s", exe, hex);
	ok(len > 0 && !strcmp(link, want),
	   "place: perf's .build-id symlink points to ../../<path>/<id>");
	close(p.dirfd);

	/* A symlink planted where a directory goes is not written through. */
	snprintf(dir, sizeof(dir), "%s/planted", top);
	snprintf(want, sizeof(want), "%s/elsewhere", top);
	mkdir(want, 0755);
	mkdir(dir, 0755);
	snprintf(link, sizeof(link), "%s/.build-id", dir);
	ok(!symlink(want, link), "place: a symlink planted as .build-id");
	p = (struct ebid_placing){ .kind = EBID_ID_DEBUG_DIR, .dir = dir,
				   .hex = hex };
	ebid_dir_open_made(dir, &p.dirfd, err, sizeof(err));
	ret = ebid_place_by_id(in_fd, &p, &dest, err, sizeof(err));
	ok(ret == -ELOOP && rmdir(want) == 0,
	   "place: refused, and nothing written through the symlink");
	close(p.dirfd);
}

/* What a command prints, trimmed, into out: false when it printed nothing. */
static bool run(const char *cmd, char *out, size_t len)
{
	FILE *f = popen(cmd, "r");
	bool got = f && fgets(out, (int)len, f);

	if (f)
		pclose(f);
	out[got ? strcspn(out, " \n") : 0] = '\0';
	return got && out[0];
}

static void test_running(void)
{
	char hex[2 * EBID_MAX_ID + 1], want[128], path[PATH_MAX], cmd[PATH_MAX + 128];
	char err[EBID_ERRLEN];
	const void *vdso = (const void *)getauxval(AT_SYSINFO_EHDR);
	FILE *f;

	snprintf(path, sizeof(path), "%s/vdso", top);
	f = fopen(path, "w");
	/* Two pages hold every vDSO's headers and sections in practice. */
	if (vdso && f)
		fwrite(vdso, 1, 2 * 4096, f);
	if (f)
		fclose(f);
	snprintf(cmd, sizeof(cmd),
		 "readelf -n '%s' 2>/dev/null | sed -n 's/.*Build ID: //p'",
		 path);
	if (!vdso || !run(cmd, want, sizeof(want)))
		skip("vdso: the id readelf reads from this process's vDSO",
		     "no vDSO, or readelf found no id in it");
	else
		ok(!ebid_vdso_build_id(hex, sizeof(hex), err, sizeof(err)) &&
			   !strcmp(hex, want),
		   "vdso: the id readelf reads from this process's vDSO");
	if (!run("perf buildid-list -k 2>/dev/null", want, sizeof(want)))
		skip("kernel: the id perf buildid-list -k prints",
		     "perf is missing or sees no kernel id");
	else
		ok(!ebid_kernel_running_id(hex, sizeof(hex), err, sizeof(err)) &&
			   !strcmp(hex, want),
		   "kernel: the id perf buildid-list -k prints");
}

int main(void)
{
	char hex[2 * EBID_MAX_ID + 1], err[EBID_ERRLEN], cmd[PATH_MAX];
	int fd;

	if (!mkdtemp(top)) {
		printf("Bail out! mkdtemp: %s\n", strerror(errno));
		return 1;
	}
	test_path();
	fd = exe_map_fd();
	ok(fd >= 0, "a /proc/self/map_files descriptor of this program");
	ok(!ebid_file_id("/proc/self/exe", hex, sizeof(hex), err,
			 sizeof(err)) && hex[0],
	   "this program has a GNU build-id");
	if (fd >= 0 && hex[0])
		test_place(hex, fd);
	if (fd >= 0)
		close(fd);
	test_running();
	snprintf(cmd, sizeof(cmd), "rm -rf '%s'", top);
	if (system(cmd) != 0)
		printf("# could not remove %s\n", top);
	return tap_done();
}
