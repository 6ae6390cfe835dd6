/* SPDX-License-Identifier: MIT */
/*
 * Running processes: for each file a process maps executable, the id the
 * kernel reports (PROCMAP_QUERY, what BPF profilers and perf
 * --buildid-mmap record), the id by section in the same mapped inode, and
 * what its path names now inside the process's own root; then a verdict
 * (docs/profiling.md, "On a live host"). Everything of a process is read
 * through one descriptor on /proc/PID, so a pid reused mid-scan is never
 * taken for the process opened, and a process gone is not an error.
 */
#include <ctype.h>
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <linux/openat2.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/sysmacros.h>
#include <unistd.h>

#include "internal.h"

/*
 * PROCMAP_QUERY (Linux 6.11, include/uapi/linux/fs.h), defined here for
 * headers that predate it. The layout is the kernel's ABI.
 */
struct ebid_procmap_query {
	uint64_t size;
	uint64_t query_flags;
	uint64_t query_addr;
	uint64_t vma_start, vma_end, vma_flags, vma_page_size, vma_offset;
	uint64_t inode;
	uint32_t dev_major, dev_minor;
	uint32_t vma_name_size, build_id_size;
	uint64_t vma_name_addr, build_id_addr;
};
_Static_assert(sizeof(struct ebid_procmap_query) == 104,
	       "struct procmap_query is 104 bytes");
#define EBID_PROCMAP_QUERY _IOWR('f', 17, struct ebid_procmap_query)
#define EBID_PMQ_VMA_EXECUTABLE 0x04
#define EBID_PMQ_FILE_BACKED_VMA 0x20

#define MAPS_MAX (64u << 20)    /* a process's maps text, at most */

/* What is known of one mapped inode, once per scan. */
struct inode_facts {
	uint64_t dev, ino, size;
	int error;              /* the inode could not be read */
	bool kernel_done;       /* kernel_id asked (or judged) */
	unsigned char kernel_id[EBID_MAX_ID], head_id[EBID_MAX_ID];
	unsigned char section_id[EBID_MAX_ID];
	size_t kernel_len, head_len, section_len;
	pid_t pid;              /* a process that maps it, for reopening */
	uint64_t start, end;
	int hashed;             /* 1: sha256 is the content's; -1: unreadable */
	char sha256[65];
	bool dup;               /* another inode has the id, other bytes */
};

struct scan {
	const struct ebid_running_opts *o;
	bool procmap;           /* PROCMAP_QUERY works here */
	struct inode_facts *in;
	size_t nin;
};

static const char *const verdict_words[EBID_LIVE_NVERDICTS] = {
	"ok", "invisible", "replaced", "duplicate", "unreadable", "constant",
};

const char *ebid_live_verdict_word(enum ebid_live_verdict v)
{
	return v < EBID_LIVE_NVERDICTS ? verdict_words[v] : "?";
}

void ebid_running_release(struct ebid_running *r)
{
	size_t i, k;

	if (!r)
		return;
	for (i = 0; i < r->nprocs; i++) {
		for (k = 0; k < r->procs[i].nfiles; k++)
			free(r->procs[i].files[k].path);
		free(r->procs[i].files);
	}
	free(r->procs);
	memset(r, 0, sizeof(*r));
}

/* A process gone (or turned into another) between two reads. */
static bool gone_errno(int e)
{
	return e == ENOENT || e == ESRCH;
}

/* The whole of a /proc text file open at fd; *buf owned by the caller. */
static int read_all(int fd, char **buf, size_t *len)
{
	size_t cap = 16384, n = 0;
	char *b = malloc(cap + 1), *nb;
	ssize_t got;

	if (!b)
		return -ENOMEM;
	for (;;) {
		if (n == cap) {
			if (cap >= MAPS_MAX || !(nb = realloc(b, 2 * cap + 1))) {
				free(b);
				return -ENOMEM;
			}
			b = nb;
			cap *= 2;
		}
		got = read(fd, b + n, cap - n);
		if (got < 0 && errno == EINTR)
			continue;
		if (got < 0) {
			got = -errno;
			free(b);
			return (int)got;
		}
		if (got == 0)
			break;
		n += (size_t)got;
	}
	b[n] = '\0';
	*buf = b;
	*len = n;
	return 0;
}

/* The kernel escapes a newline in a mapped path as \012; undo that. */
static void unescape_path(char *s)
{
	char *w = s;

	for (; *s; s++, w++) {
		if (!strncmp(s, "\\012", 4)) {
			*w = '\n';
			s += 3;
		} else {
			*w = *s;
		}
	}
	*w = '\0';
}

/* One more file of p (path copied); NULL without memory. */
static struct ebid_mapped_file *add_file(struct ebid_proc *p, const char *path)
{
	struct ebid_mapped_file *nv, *f;

	nv = realloc(p->files, (p->nfiles + 1) * sizeof(*nv));
	if (!nv)
		return NULL;
	p->files = nv;
	f = &nv[p->nfiles];
	memset(f, 0, sizeof(*f));
	f->path = strdup(path);
	if (!f->path)
		return NULL;
	p->nfiles++;
	return f;
}

static bool known(const struct ebid_proc *p, uint64_t dev, uint64_t ino,
		  bool vdso)
{
	size_t i;

	for (i = 0; i < p->nfiles; i++)
		if (vdso ? p->files[i].vdso
			 : !p->files[i].vdso && p->files[i].dev == dev &&
				   p->files[i].ino == ino)
			return true;
	return false;
}

/*
 * One line of /proc/PID/maps: an executable mapping of a file (or the
 * vDSO) becomes a file of p, once per inode.
 */
static int parse_line(struct ebid_proc *p, char *line)
{
	static const char deleted[] = " (deleted)";
	unsigned long long start, end, off, ino;
	unsigned major, minor;
	char perms[8];
	int at = 0;
	size_t n;
	char *path;
	struct ebid_mapped_file *f;
	bool vdso;

	if (sscanf(line, "%llx-%llx %7s %llx %x:%x %llu %n", &start, &end,
		   perms, &off, &major, &minor, &ino, &at) != 7 || !at ||
	    strlen(perms) < 3 || perms[2] != 'x')
		return 0;
	path = line + at;
	vdso = !strcmp(path, "[vdso]");
	if ((!ino || path[0] != '/') && !vdso)
		return 0;
	if (known(p, makedev(major, minor), ino, vdso))
		return 0;
	n = strlen(path);
	f = add_file(p, path);
	if (!f)
		return -ENOMEM;
	if (n > sizeof(deleted) - 1 &&
	    !strcmp(path + n - (sizeof(deleted) - 1), deleted)) {
		f->deleted = true;
		f->path[n - (sizeof(deleted) - 1)] = '\0';
	}
	unescape_path(f->path);
	f->start = start;
	f->end = end;
	f->dev = makedev(major, minor);
	f->ino = ino;
	f->vdso = vdso;
	f->path_state = vdso ? EBID_PATH_NA : EBID_PATH_NONE;
	return 0;
}

static int parse_maps(struct ebid_proc *p, char *text)
{
	char *line, *save = NULL;
	int ret;

	for (line = strtok_r(text, "\n", &save); line;
	     line = strtok_r(NULL, "\n", &save)) {
		ret = parse_line(p, line);
		if (ret)
			return ret;
	}
	return 0;
}

/*
 * openat2 RESOLVE_IN_ROOT: the path as the process itself would resolve
 * it (its symlinks followed inside its root, never out of it).
 */
static int open_in_root(int rootfd, const char *path)
{
	struct open_how how = {
		.flags = O_RDONLY | O_CLOEXEC | O_NOCTTY | O_NONBLOCK,
		.resolve = RESOLVE_IN_ROOT | RESOLVE_NO_MAGICLINKS,
	};
	long fd;

	while (*path == '/')
		path++;
	fd = syscall(SYS_openat2, rootfd, path, &how, sizeof(how));
	if (fd < 0 && errno == ENOSYS)
		return ebid_open_beneath(rootfd, path, (int)how.flags, 0);
	return fd < 0 ? -errno : (int)fd;
}

/* fd when it is open on the regular file dev/ino, else closed, -ESTALE. */
static int same_inode(int fd, uint64_t dev, uint64_t ino)
{
	struct stat st;

	if (fd < 0)
		return fd;
	if (fstat(fd, &st) == 0 && S_ISREG(st.st_mode) &&
	    (uint64_t)st.st_dev == dev && (uint64_t)st.st_ino == ino)
		return fd;
	close(fd);
	return -ESTALE;
}

/*
 * The mapped inode: /proc/PID/map_files/START-END (root), else the path
 * in the process's root when it still names that inode.
 */
static int open_mapped(int pfd, const struct ebid_mapped_file *f)
{
	char name[64];
	int fd, rootfd, ret;

	snprintf(name, sizeof(name), "map_files/%" PRIx64 "-%" PRIx64,
		 f->start, f->end);
	fd = openat(pfd, name, O_RDONLY | O_CLOEXEC | O_NOCTTY | O_NONBLOCK);
	ret = same_inode(fd < 0 ? -errno : fd, f->dev, f->ino);
	if (ret >= 0 || f->deleted || gone_errno(-ret))
		return ret;
	rootfd = openat(pfd, "root", O_PATH | O_DIRECTORY | O_CLOEXEC);
	if (rootfd < 0)
		return ret;
	fd = same_inode(open_in_root(rootfd, f->path), f->dev, f->ino);
	close(rootfd);
	return fd >= 0 ? fd : ret;
}

int ebid_mapped_open(pid_t pid, const struct ebid_mapped_file *f, char *err,
		     size_t errlen)
{
	char dir[32];
	int pfd, fd;

	if (f->vdso)
		return ebid_err(err, errlen, -EINVAL, "the vDSO is no file");
	snprintf(dir, sizeof(dir), "/proc/%d", (int)pid);
	pfd = open(dir, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	if (pfd < 0)
		return ebid_err(err, errlen, -errno, "cannot open %s: %s", dir,
				strerror(errno));
	fd = open_mapped(pfd, f);
	close(pfd);
	if (fd < 0)
		return ebid_err(err, errlen, fd,
				"cannot open the mapped file of process %d: %s",
				(int)pid,
				fd == -ESTALE ? "it is mapped no more"
					      : strerror(-fd));
	return fd;
}

/* The GNU id readers by section take, and the kernel's rule on the head. */
static void ids_of_fd(int fd, struct inode_facts *in)
{
	struct ebid_elf elf;
	struct ebid_note_view v;
	char err[EBID_ERRLEN];
	struct stat st;

	if (fstat(fd, &st) == 0)
		in->size = (uint64_t)st.st_size;
	if (ebid_elf_open_fd(&elf, fd, err, sizeof(err)))
		return;
	ebid_note_view(&elf, &v);
	if (v.by_section && v.size_ok) {
		in->section_len = elf.gnu.desc_len;
		memcpy(in->section_id, elf.gnu.desc, elf.gnu.desc_len);
	}
	in->head_len = ebid_kernel_build_id(elf.head, elf.head_len,
					    in->head_id, NULL, NULL);
	ebid_elf_release(&elf);
}

/* The facts of f's inode, read on first sight; NULL without memory. */
static struct inode_facts *facts(struct scan *s, pid_t pid, int pfd,
				 const struct ebid_mapped_file *f)
{
	struct inode_facts *in, *nv;
	size_t i;
	int fd;

	for (i = 0; i < s->nin; i++)
		if (s->in[i].dev == f->dev && s->in[i].ino == f->ino)
			return &s->in[i];
	nv = realloc(s->in, (s->nin + 1) * sizeof(*nv));
	if (!nv)
		return NULL;
	s->in = nv;
	in = &nv[s->nin];
	memset(in, 0, sizeof(*in));
	in->dev = f->dev;
	in->ino = f->ino;
	in->pid = pid;
	in->start = f->start;
	in->end = f->end;
	fd = open_mapped(pfd, f);
	if (fd < 0) {
		in->error = fd;
	} else {
		ids_of_fd(fd, in);
		close(fd);
	}
	s->nin++;
	return in;
}

/*
 * The kernel's id of f by PROCMAP_QUERY on the maps descriptor: 0, -ENOTTY
 * or -EINVAL where the kernel lacks it, -ESTALE when the mapping at f's
 * address is another now.
 */
static int query_kernel(int mapsfd, const struct ebid_mapped_file *f,
			struct inode_facts *in)
{
	struct ebid_procmap_query q;
	unsigned char id[64];

	memset(&q, 0, sizeof(q));
	q.size = sizeof(q);
	q.query_flags = EBID_PMQ_FILE_BACKED_VMA | EBID_PMQ_VMA_EXECUTABLE;
	q.query_addr = f->start;
	q.build_id_addr = (uint64_t)(uintptr_t)id;
	q.build_id_size = sizeof(id);
	if (ioctl(mapsfd, EBID_PROCMAP_QUERY, &q) != 0)
		return errno == ENOENT ? -ESTALE : -errno;
	if (q.vma_start != f->start || q.inode != f->ino ||
	    makedev(q.dev_major, q.dev_minor) != f->dev)
		return -ESTALE;
	in->kernel_len = q.build_id_size <= EBID_MAX_ID ? q.build_id_size : 0;
	memcpy(in->kernel_id, id, in->kernel_len);
	return 0;
}

/* The kernel's id of f into f (and its inode's facts), once per inode. */
static void kernel_id(struct scan *s, int mapsfd, struct ebid_mapped_file *f,
		      struct inode_facts *in)
{
	int ret = 0;

	if (!in->kernel_done && s->procmap) {
		ret = query_kernel(mapsfd, f, in);
		if (ret == -ENOTTY || ret == -EINVAL || ret == -EOPNOTSUPP)
			s->procmap = false;
		else if (!ret)
			in->kernel_done = true;
	}
	if (!in->kernel_done && !s->procmap && !in->error) {
		in->kernel_len = in->head_len;
		memcpy(in->kernel_id, in->head_id, in->head_len);
		in->kernel_done = true;
	}
	f->by_fallback = !s->procmap;
	if (!in->kernel_done) {
		f->error = ret && ret != -ENOTTY ? ret : in->error;
		return;
	}
	f->kernel_id_len = in->kernel_len;
	memcpy(f->kernel_id, in->kernel_id, in->kernel_len);
	f->section_id_len = in->section_len;
	memcpy(f->section_id, in->section_id, in->section_len);
}

/* What the path names now in the process's root. */
static void judge_path(int rootfd, struct ebid_mapped_file *f)
{
	struct inode_facts other;
	const unsigned char *id;
	size_t len;
	int fd;

	/*
	 * A deleted mapping is judged too: a deploy that renames the new
	 * build over the path unlinks the old inode, which the maps then
	 * call deleted, yet the path names a file.
	 */
	if (f->vdso || rootfd < 0) {
		f->path_state = f->vdso ? EBID_PATH_NA : EBID_PATH_NONE;
		return;
	}
	/*
	 * A memfd (runc's cloned binary, a sealed copy) was never at a
	 * path: the maps call it "/memfd:NAME (deleted)". Profilers can
	 * resolve it by id only.
	 */
	if (f->deleted && !strncmp(f->path, "/memfd:", 7)) {
		f->path_state = EBID_PATH_NA;
		snprintf(f->detail, sizeof(f->detail),
			 "a memfd, never at a path: profilers can find it by its id alone");
		return;
	}
	fd = open_in_root(rootfd, f->path);
	if (fd < 0) {
		f->path_state = EBID_PATH_NONE;
		return;
	}
	fd = same_inode(fd, f->dev, f->ino);
	if (fd >= 0) {
		close(fd);
		f->path_state = EBID_PATH_SAME;
		return;
	}
	fd = open_in_root(rootfd, f->path);
	memset(&other, 0, sizeof(other));
	if (fd >= 0) {
		ids_of_fd(fd, &other);
		close(fd);
	}
	f->path_id_len = other.section_len;
	memcpy(f->path_id, other.section_id, other.section_len);
	id = f->section_id_len ? f->section_id : f->kernel_id;
	len = f->section_id_len ? f->section_id_len : f->kernel_id_len;
	f->path_state = len && len == other.section_len &&
				!memcmp(id, other.section_id, len)
				? EBID_PATH_SAME_ID
				: EBID_PATH_OTHER_ID;
}

/* The vDSO: the running kernel's image, its id as the caller read it. */
static void judge_vdso(const struct ebid_running_opts *o,
		       struct ebid_mapped_file *f)
{
	f->kernel_id_len = o->vdso_id ? o->vdso_id_len : 0;
	if (f->kernel_id_len > EBID_MAX_ID)
		f->kernel_id_len = 0;
	if (f->kernel_id_len)
		memcpy(f->kernel_id, o->vdso_id, f->kernel_id_len);
	f->section_id_len = f->kernel_id_len;
	memcpy(f->section_id, f->kernel_id, f->kernel_id_len);
}

/* The verdict of one file, the duplicates aside (judged over the scan). */
static void verdict(struct ebid_mapped_file *f)
{
	if (f->error) {
		f->verdict = EBID_LIVE_UNREADABLE;
		snprintf(f->detail, sizeof(f->detail), "%s",
			 f->error == -ESTALE ? "the mapping changed during the scan"
					     : strerror(-f->error));
	} else if (f->path_state == EBID_PATH_NONE ||
		   f->path_state == EBID_PATH_OTHER_ID) {
		f->verdict = EBID_LIVE_REPLACED;
	} else if (!f->kernel_id_len) {
		f->verdict = EBID_LIVE_INVISIBLE;
	} else {
		f->verdict = EBID_LIVE_OK;
		if (f->section_id_len != f->kernel_id_len ||
		    memcmp(f->section_id, f->kernel_id, f->kernel_id_len))
			snprintf(f->detail, sizeof(f->detail),
				 "the kernel and readers by section see other ids");
	}
}

/* Every file process p maps executable, judged; p->error when unreadable. */
static int scan_files(struct scan *s, struct ebid_proc *p, int pfd, int mapsfd)
{
	char *text = NULL;
	size_t len, i;
	int rootfd, ret;

	ret = read_all(mapsfd, &text, &len);
	if (ret)
		return ret;
	ret = parse_maps(p, text);
	free(text);
	if (ret)
		return ret;
	rootfd = openat(pfd, "root", O_PATH | O_DIRECTORY | O_CLOEXEC);
	for (i = 0; i < p->nfiles; i++) {
		struct ebid_mapped_file *f = &p->files[i];
		struct inode_facts *in;

		if (f->vdso) {
			judge_vdso(s->o, f);
		} else {
			in = facts(s, p->pid, pfd, f);
			if (!in) {
				ret = -ENOMEM;
				break;
			}
			kernel_id(s, mapsfd, f, in);
			judge_path(rootfd, f);
		}
		verdict(f);
	}
	if (rootfd >= 0)
		close(rootfd);
	return ret;
}

/* The name a process gave itself (comm), or "?". */
static void read_comm(int pfd, struct ebid_proc *p)
{
	int fd = openat(pfd, "comm", O_RDONLY | O_CLOEXEC);
	ssize_t n = fd >= 0 ? read(fd, p->comm, sizeof(p->comm) - 1) : -1;

	if (fd >= 0)
		close(fd);
	if (n <= 0)
		n = snprintf(p->comm, sizeof(p->comm), "?");
	p->comm[n] = '\0';
	p->comm[strcspn(p->comm, "\n")] = '\0';
}

/* Whether the process has exited, though not reaped yet (a zombie). */
static bool exited(int pfd)
{
	char buf[512], *paren;
	int fd = openat(pfd, "stat", O_RDONLY | O_CLOEXEC);
	ssize_t got = fd >= 0 ? read(fd, buf, sizeof(buf) - 1) : -1;

	if (fd >= 0)
		close(fd);
	if (got <= 0)
		return true;
	buf[got] = '\0';
	paren = strrchr(buf, ')');
	return !paren || paren[1] != ' ' || paren[2] == 'Z' || paren[2] == 'X';
}

/*
 * One process into r: 1 when it went away, 2 when it maps nothing (a
 * kernel thread), 0 when it is a result, a negative code on a real error.
 */
static int scan_pid(struct scan *s, struct ebid_running *r, pid_t pid)
{
	struct ebid_proc p = { .pid = pid }, *nv;
	char dir[32];
	int pfd, mapsfd = -1, ret = 1;

	snprintf(dir, sizeof(dir), "/proc/%d", (int)pid);
	pfd = open(dir, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	if (pfd < 0)
		return gone_errno(errno) ? 1 : -errno;
	read_comm(pfd, &p);
	mapsfd = openat(pfd, "maps", O_RDONLY | O_CLOEXEC);
	if (mapsfd < 0 && gone_errno(errno))
		goto out;
	if (mapsfd < 0)
		p.error = -errno;
	else
		p.error = scan_files(s, &p, pfd, mapsfd);
	if (p.error == -ENOMEM) {
		ret = -ENOMEM;
		goto out;
	}
	if (!p.error && !p.nfiles)
		ret = exited(pfd) ? 1 : 2;
	if (gone_errno(-p.error) || (!p.error && !p.nfiles))
		goto out;
	nv = realloc(r->procs, (r->nprocs + 1) * sizeof(*nv));
	if (!nv) {
		ret = -ENOMEM;
		goto out;
	}
	r->procs = nv;
	r->procs[r->nprocs++] = p;
	memset(&p, 0, sizeof(p));
	ret = 0;
out:
	for (size_t i = 0; i < p.nfiles; i++)
		free(p.files[i].path);
	free(p.files);
	if (mapsfd >= 0)
		close(mapsfd);
	close(pfd);
	return ret;
}

/* The content hash of an inode, read through a process that maps it. */
static int content_hash(struct inode_facts *in)
{
	struct ebid_mapped_file f = { .start = in->start, .end = in->end,
				      .dev = in->dev, .ino = in->ino,
				      .path = (char *)"" };
	char err[EBID_ERRLEN];
	int fd;

	if (in->hashed)
		return in->hashed;
	in->hashed = -1;
	f.deleted = true; /* map_files only: no path to fall back on */
	fd = ebid_mapped_open(in->pid, &f, err, sizeof(err));
	if (fd < 0)
		return -1;
	if (!ebid_sha256_fd(fd, in->sha256, err, sizeof(err)))
		in->hashed = 1;
	close(fd);
	return in->hashed;
}

/* The id profilers key a file by: the kernel's, else the section's. */
static const unsigned char *key_id(const struct inode_facts *in, size_t *len)
{
	*len = in->kernel_len ? in->kernel_len : in->section_len;
	return in->kernel_len ? in->kernel_id : in->section_id;
}

/*
 * One id, two inodes whose bytes differ (sizes first, then SHA-256): a
 * derived or constant id. Copies of one file (a container's layer) are
 * no duplicate.
 */
static void find_duplicates(struct scan *s)
{
	size_t i, k, la, lb;

	for (i = 0; i < s->nin; i++) {
		const unsigned char *a = key_id(&s->in[i], &la);

		for (k = i + 1; la && k < s->nin; k++) {
			struct inode_facts *x = &s->in[i], *y = &s->in[k];
			const unsigned char *b = key_id(y, &lb);

			if (la != lb || memcmp(a, b, la))
				continue;
			if (x->size == y->size &&
			    (content_hash(x) != 1 || content_hash(y) != 1 ||
			     !strcmp(x->sha256, y->sha256)))
				continue;
			x->dup = y->dup = true;
		}
	}
}

static void mark_duplicates(struct scan *s, struct ebid_running *r)
{
	size_t i, k, n;

	for (i = 0; i < r->nprocs; i++)
		for (k = 0; k < r->procs[i].nfiles; k++) {
			struct ebid_mapped_file *f = &r->procs[i].files[k];

			for (n = 0; n < s->nin && !f->vdso && !f->error; n++)
				if (s->in[n].dev == f->dev &&
				    s->in[n].ino == f->ino && s->in[n].dup) {
					f->verdict = EBID_LIVE_DUPLICATE;
					snprintf(f->detail, sizeof(f->detail),
						 "another file with other bytes has this id");
				}
		}
}

/* The pids to scan: those given, or every numeric entry of /proc. */
static int list_pids(const struct ebid_running_opts *o, pid_t **pids,
		     size_t *n, char *err, size_t errlen)
{
	DIR *d;
	struct dirent *e;
	size_t cap = 0;
	pid_t *v = NULL, *nv;

	*n = 0;
	if (o->pids) {
		v = malloc((o->npids ? o->npids : 1) * sizeof(*v));
		if (!v)
			return ebid_err(err, errlen, -ENOMEM, "out of memory");
		memcpy(v, o->pids, o->npids * sizeof(*v));
		*pids = v;
		*n = o->npids;
		return 0;
	}
	d = opendir("/proc");
	if (!d)
		return ebid_err(err, errlen, -errno, "cannot read /proc: %s",
				strerror(errno));
	while ((e = readdir(d))) {
		if (!isdigit((unsigned char)e->d_name[0]))
			continue;
		if (*n == cap) {
			cap = cap ? 2 * cap : 256;
			nv = realloc(v, cap * sizeof(*v));
			if (!nv) {
				free(v);
				closedir(d);
				return ebid_err(err, errlen, -ENOMEM,
						"out of memory");
			}
			v = nv;
		}
		v[(*n)++] = (pid_t)strtol(e->d_name, NULL, 10);
	}
	closedir(d);
	*pids = v;
	return 0;
}

static int cmp_pid(const void *a, const void *b)
{
	pid_t x = *(const pid_t *)a, y = *(const pid_t *)b;

	return (x > y) - (x < y);
}

int ebid_running_scan(struct ebid_running *r,
		      const struct ebid_running_opts *o, char *err,
		      size_t errlen)
{
	struct scan s = { .o = o, .procmap = !o->no_procmap_query };
	pid_t *pids = NULL;
	size_t n = 0, i;
	int ret;

	memset(r, 0, sizeof(*r));
	ret = list_pids(o, &pids, &n, err, errlen);
	if (ret)
		return ret;
	qsort(pids, n, sizeof(*pids), cmp_pid);
	for (i = 0; i < n; i++) {
		ret = scan_pid(&s, r, pids[i]);
		if (ret < 0) {
			ebid_err(err, errlen, ret, "process %d: %s",
				 (int)pids[i], strerror(-ret));
			goto out;
		}
		if (ret == 1)
			r->gone++;
	}
	find_duplicates(&s);
	mark_duplicates(&s, r);
	r->fallback = !s.procmap;
	ret = 0;
out:
	if (ret)
		ebid_running_release(r);
	free(s.in);
	free(pids);
	return ret;
}
