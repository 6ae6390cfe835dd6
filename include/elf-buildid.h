/* SPDX-License-Identifier: MIT */
/* elf-buildid library: read an ELF layout, plan a GNU build-id note, apply it. */
#ifndef ELF_BUILDID_H
#define ELF_BUILDID_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/stat.h>
#include <signal.h>
#include <sys/types.h>

/*
 * Conventions: every function returns 0 on success or a negative errno-style
 * code, and on failure writes a one-line, lower-case description (no file
 * name, no full stop) into the caller's error buffer. Nothing here prints,
 * exits or reads globals. Structures filled by the library are released
 * with the matching *_release() function, which accepts a zeroed structure.
 */

#define EBID_MAX_ID 20          /* perf and the kernel ignore longer ids */
#define EBID_PAGE 4096          /* the kernel reads notes from this prefix */
#define EBID_ERRLEN 512
#define EBID_GO_ID_MAX 256

/* Error codes beyond errno: the file is fine to read but cannot be handled. */
#define EBID_ENOTELF 4001       /* not an ELF file */
#define EBID_EMALFORMED 4002    /* a header field is out of bounds */
#define EBID_ENOROOM 4003       /* no safe placement for the note */
#define EBID_ENOTE 4004         /* note state does not allow the command */
#define EBID_ECHANGED 4005      /* file changed while we worked on it */
#define EBID_EVERIFY 4006       /* our own output failed self-verification */
#define EBID_ELOCKED 4007       /* another process held the file's lock */
#define EBID_EBUS 4100          /* a mapped window could not be read */

/* The text for a negative (or positive) errno or EBID_E* code. */
const char *ebid_strerror(int code);

/*
 * Whether path, or its last component, matches one of the n fnmatch(3)
 * globs: the rule of --exclude and --allow-missing.
 */
bool ebid_glob_match(const char *const *globs, size_t n, const char *path);

enum ebid_hash_alg {
	EBID_HASH_SHA1 = 0,
	EBID_HASH_SHA256,
	EBID_HASH_MD5,
	EBID_HASH_SHA1_TREE,    /* SHA-1 over SHA-1s of 4 MiB chunks */
};

#define EBID_TREE_CHUNK (4u << 20)

/* One program header, widened to 64 bits whatever the file's class. */
struct ebid_phdr {
	uint32_t type, flags;
	uint64_t offset, vaddr, paddr, filesz, memsz, align;
};

/* One section header, widened; name points into ebid_elf.shstrtab or "". */
struct ebid_shdr {
	uint32_t name, type, link, info;
	uint64_t flags, addr, offset, size, addralign, entsize;
	const char *name_str;
};

/* A symbol whose st_value field the planner may have to rewrite. */
struct ebid_symref {
	uint64_t value_off;     /* file offset of its st_value */
	uint64_t value;
	size_t shndx;           /* st_shndx (SHN_ABS and the like as is) */
	unsigned char info;     /* st_info (binding and type) */
	bool dynamic;           /* in SHT_DYNSYM */
};
#define EBID_NOTE_SYMS_MAX 64

/* A relocation near the first page (src/elf/relocs.h). */
struct ebid_relref;

/* An entry of the dynamic table (PT_DYNAMIC). */
struct ebid_dynref {
	uint64_t tag;
	uint64_t val;           /* d_val or d_ptr */
	uint64_t val_off;       /* file offset of that field */
};
#define EBID_DYN_MAX 512

/* A note found in the file. */
struct ebid_note {
	bool present;
	size_t shndx;           /* section holding it, 0 when none */
	int pt_index;           /* PT_NOTE whose walk reaches it, -1 if none */
	uint64_t note_off;      /* file offset of the note header */
	uint64_t note_size;     /* header + padded name + padded descriptor */
	uint64_t desc_off;
	uint32_t desc_len;
	uint32_t align;         /* 4 or 8: the alignment its container uses */
	unsigned char desc[EBID_GO_ID_MAX];  /* first bytes of the descriptor */
};

/*
 * The parsed layout of one ELF file. Owns phdrs, shdrs, shstrtab and head.
 * head holds the first min(file_size, EBID_PAGE) bytes of the file.
 */
struct ebid_elf {
	unsigned char elfclass;         /* ELFCLASS32 or ELFCLASS64 */
	unsigned char data;             /* ELFDATA2LSB or ELFDATA2MSB */
	uint16_t type, machine, ehsize, phentsize, shentsize;
	uint64_t file_size;
	uint64_t phoff, shoff;
	size_t phnum, shnum, shstrndx;
	uint16_t raw_phnum, raw_shnum, raw_shstrndx; /* as in the Ehdr */
	struct ebid_phdr *phdrs;
	struct ebid_shdr *shdrs;
	char *shstrtab;
	size_t shstrtab_size;
	unsigned char *head;
	size_t head_len;
	struct ebid_note gnu;           /* the NT_GNU_BUILD_ID note */
	struct ebid_note go;            /* Go's "Go"/4 build-id note */
	bool gnu_kernel_visible;        /* the kernel's reader finds gnu */
	/*
	 * Symbols (.symtab, .dynsym) that belong to, or point into, a note
	 * section (or .interp) inside the first page: the ones a moved note
	 * takes along.
	 * note_syms_over: there were more than EBID_NOTE_SYMS_MAX (or a table
	 * could not be read), so no note may move.
	 */
	struct ebid_symref *note_syms;
	size_t n_note_syms;
	bool note_syms_over;
	bool note_syms_read;    /* ebid_elf_read_note_syms() ran */
	/*
	 * The file's bytes [pad_off, pad_off + pad_len): from the end of the
	 * PT_LOAD at offset 0 to the next segment (at most EBID_PAD_MAX),
	 * where a plan may move .interp and the notes. Read for a file
	 * without a GNU note; pad_len 0 otherwise.
	 */
	unsigned char *pad;
	uint64_t pad_off;
	size_t pad_len;
	/*
	 * The file's bytes [head_len, head_len + more_len): where the
	 * movable sections after the program headers run on past the first
	 * page (a large .dynsym), at most EBID_PAD_MAX of them, read with
	 * pad; what new-load copies. span_hi: the address where those
	 * sections end (0: none), the relocations' window (relocs.c).
	 */
	unsigned char *more;
	size_t more_len;
	uint64_t span_hi;
	/*
	 * The dynamic table, up to DT_NULL (read with note_syms): what a
	 * moved .dynsym or .gnu.hash takes along. dyn_bad: there is a
	 * PT_DYNAMIC but it could not be read whole (outside the file, or
	 * more than EBID_DYN_MAX entries), so no dynamic table may move.
	 */
	struct ebid_dynref *dyn;
	size_t ndyn;
	bool dyn_bad;
	/*
	 * Relocations applied in, or pointing into, the first page's
	 * addresses (src/elf/relocs.c, read with note_syms): what a moved
	 * section must not leave behind. relocs_over: they could not all be
	 * read, or there were more than EBID_RELOCS_MAX: nothing may move.
	 */
	struct ebid_relref *relocs;
	size_t nrelocs;
	bool relocs_over;
	bool relocs_read;
};
#define EBID_PAD_MAX (64u << 10)
/* Sections starting in the first page that move-head looks at, at most. */
#define EBID_HEAD_CAND_MAX 256

/*
 * A source of file bytes: a file descriptor or a memory buffer. The library
 * reads through it and never writes to it. Memory sources make the whole
 * path testable and fuzzable without files.
 */
struct ebid_src {
	int fd;                         /* -1 for memory */
	const unsigned char *mem;
	uint64_t size;
};

int ebid_src_read(const struct ebid_src *src, uint64_t off, void *buf,
		  size_t len);

/* Parse the layout of src into *elf; on failure *elf is left released. */
int ebid_elf_read(struct ebid_elf *elf, const struct ebid_src *src, char *err,
		  size_t errlen);
void ebid_elf_release(struct ebid_elf *elf);
/*
 * Is the file's byte at off known to be zero? Only the first page (head)
 * and the padding after the first PT_LOAD (pad) are known; any other byte
 * counts as not zero.
 */
bool ebid_elf_byte_zero(const struct ebid_elf *elf, uint64_t off);
/*
 * Copies the file's bytes [off, off + len) from what the reader kept of
 * the start of the file (head, then more) into buf: false when they were
 * not all kept.
 */
bool ebid_elf_head_bytes(const struct ebid_elf *elf, uint64_t off,
			 void *buf, size_t len);

/*
 * Fills note_syms. ebid_elf_read() does it for a file without a GNU note
 * (the only ones whose plan may move a note); the self-check of such a
 * plan's output asks for it. Runs once per elf.
 */
int ebid_elf_read_note_syms(struct ebid_elf *elf, const struct ebid_src *src,
			    char *err, size_t errlen);

/*
 * The kernel's view (lib/buildid.c, pre-6.12 rules, which are the strictest):
 * program headers at sizeof(Ehdr), only PT_NOTEs wholly inside the first
 * page, notes walked with 4-byte alignment, the first "GNU"/3 note with
 * 0 < descsz <= 20. Returns the id length, or 0 when the kernel sees none.
 * head is the file's first bytes (at most EBID_PAGE are looked at).
 * pt_index and desc_off, when not NULL, receive the PT_NOTE that gave the
 * id and the file offset of its descriptor.
 */
size_t ebid_kernel_build_id(const unsigned char *head, size_t head_len,
			    unsigned char id[EBID_MAX_ID], int *pt_index,
			    uint64_t *desc_off);

/*
 * What the readers of a GNU build-id make of elf's note, by the rules of
 * docs/build-id.md: readers by section (perf, gdb, file, strip take the
 * first section named .note.gnu.build-id, which must be SHF_ALLOC and hold
 * the whole note, with no other section of that name), the kernel
 * (ebid_kernel_build_id), and both on the id's length. The one statement
 * of the placement rules: plan, the self-check, verify and show use it.
 * The *_why strings say, without the file's name, why a reader misses it.
 */
struct ebid_note_view {
	bool present;                   /* a GNU build-id note was found */
	bool by_section;                /* readers by section find it */
	bool by_kernel;                 /* the kernel's reader finds it */
	bool size_ok;                   /* 1 to EBID_MAX_ID bytes */
	bool nonzero;                   /* size_ok and not all zero */
	char section_why[EBID_ERRLEN];
	char kernel_why[EBID_ERRLEN];
};

void ebid_note_view(const struct ebid_elf *elf, struct ebid_note_view *v);

enum ebid_mode {
	EBID_MODE_INJECT = 0,   /* reserve if needed, fill, make visible */
	EBID_MODE_RESERVE,      /* add a zero-filled note, make visible */
	EBID_MODE_BACKFILL,     /* fill a reserved all-zero note */
};

/* What a plan does, as bits. */
enum ebid_action {
	EBID_ACT_NONE = 0,
	EBID_ACT_ADD_NOTE = 1 << 0,     /* a new note and section */
	EBID_ACT_FILL = 1 << 1,         /* descriptor filled by hash or --id */
	EBID_ACT_EXTEND_PT = 1 << 2,    /* an existing PT_NOTE grown */
	EBID_ACT_ADD_PT = 1 << 3,       /* a PT_NOTE program header added */
	EBID_ACT_MOVE_SHDRS = 1 << 4,   /* section header table moved */
	EBID_ACT_SHSTRTAB = 1 << 5,     /* section name table changed */
	EBID_ACT_ZERO = 1 << 6,         /* a filled id zeroed (reserve -f) */
	EBID_ACT_MOVE_NOTE = 1 << 7,    /* a first-page note moved into the
					 * first PT_LOAD's padding, its PT_NOTE
					 * retargeted, the PT_LOAD grown */
	EBID_ACT_MOVE_HEAD = 1 << 8,    /* .interp and the notes after the
					 * program headers moved behind the
					 * first PT_LOAD, making room for a new
					 * PT_NOTE and the note */
	EBID_ACT_INSERT = 1 << 9,       /* file offsets from ins_at on moved
					 * up by ins_len (a whole number of
					 * segment alignments) */
	EBID_ACT_NEW_LOAD = 1 << 10,    /* the sections after the program
					 * headers copied into a new read-only
					 * PT_LOAD appended at the end of the
					 * file, making room for it, a new
					 * PT_NOTE and the note */
};

struct ebid_opts {
	enum ebid_mode mode;
	enum ebid_hash_alg alg;
	bool force;
	const unsigned char *id;        /* explicit id (--id), or NULL */
	size_t id_len;
	bool alg_given;                 /* alg was asked for: reserve refuses a
					 * note that is there with another size */
	bool no_move;                   /* refuse plans that move a note */
};

/* A byte range that the plan overwrites. Owns bytes. */
struct ebid_patch {
	uint64_t off;
	size_t len;
	unsigned char *bytes;
	char what[64];
};

/*
 * A plan: byte patches over the input, bytes appended at its end, and the
 * descriptor range that the id fills. Patches are sorted and disjoint.
 */
struct ebid_plan {
	unsigned actions;               /* enum ebid_action bits */
	struct ebid_patch *patches;
	size_t npatches, cap;
	unsigned char *append;          /* placed at in_size */
	size_t append_len;
	uint64_t in_size, out_size;
	bool fill;                      /* id_off/id_len are to be filled */
	bool hash;                      /* by hashing (else explicit id bytes) */
	enum ebid_hash_alg alg;
	uint64_t id_off;
	size_t id_len;
	unsigned char id[EBID_MAX_ID];  /* explicit id, or the existing one */
	size_t new_pt;                  /* EBID_ACT_ADD_PT: its index; the
					 * program headers from there on were
					 * one lower */
	/* EBID_ACT_MOVE_NOTE: which section moved, from where to where. */
	size_t moved_shndx;
	uint64_t moved_from, moved_to, moved_size;
	size_t moved_pt, grown_load;    /* the retargeted PT_NOTE, the PT_LOAD */
	/*
	 * EBID_ACT_MOVE_HEAD: the bytes [head_from, head_from + head_size)
	 * (.interp and the notes) now start at head_to; grown_load as above.
	 */
	uint64_t head_from, head_to, head_size;
	/*
	 * EBID_ACT_NEW_LOAD: head_* as above, head_to in the appended bytes;
	 * the run's new address is head_addr (its old one is the first
	 * PT_LOAD's, grown_load, plus head_from), mapped by the new PT_LOAD
	 * new_load of the output, which holds exactly the run.
	 */
	uint64_t head_addr;
	size_t new_load;
	/*
	 * EBID_ACT_INSERT: ins_len zero bytes at ins_at in the output; the
	 * input from ins_at on follows them. Patch offsets are the output's.
	 */
	uint64_t ins_at, ins_len;
};

/*
 * Did the plan move section shndx of elf (EBID_ACT_MOVE_NOTE's note, or
 * one of EBID_ACT_MOVE_HEAD's sections)?
 */
bool ebid_plan_moved(const struct ebid_plan *plan, const struct ebid_elf *elf,
		     size_t shndx);

/*
 * Did the plan move symbol r of elf with its section (a symbol of a moved
 * section that points into it, or at its end)?
 */
bool ebid_plan_sym_moves(const struct ebid_plan *plan,
			 const struct ebid_elf *elf,
			 const struct ebid_symref *r);

/* Is the value of a dynamic entry with this tag an address (d_ptr)? */
bool ebid_dyn_is_addr(uint64_t tag);

/* Where input offset off is in the output of plan. */
static inline uint64_t ebid_plan_outoff(const struct ebid_plan *plan,
					uint64_t off)
{
	return plan->ins_len && off >= plan->ins_at ? off + plan->ins_len
						    : off;
}

/* The end of the input's bytes in the output: appended bytes start here. */
static inline uint64_t ebid_plan_body_end(const struct ebid_plan *plan)
{
	return plan->in_size + plan->ins_len;
}

/* Plan what opts asks of elf. An empty plan (actions 0) means no change. */
int ebid_plan_make(struct ebid_plan *plan, const struct ebid_elf *elf,
		   const struct ebid_opts *opts, char *err, size_t errlen);
void ebid_plan_release(struct ebid_plan *plan);
/* Words for the plan's actions ("add-note,fill"), or "unchanged". */
void ebid_plan_describe(const struct ebid_plan *plan, char *buf, size_t len);

/* Hashing (OpenSSL EVP behind it). */
struct ebid_hash;
int ebid_hash_new(struct ebid_hash **h, enum ebid_hash_alg alg, char *err,
		  size_t errlen);
int ebid_hash_update(struct ebid_hash *h, const void *buf, size_t len,
		     char *err, size_t errlen);
/* Writes the id (digest truncated to ebid_hash_id_len(alg)) into id. */
int ebid_hash_final(struct ebid_hash *h, unsigned char id[EBID_MAX_ID],
		    char *err, size_t errlen);
void ebid_hash_free(struct ebid_hash *h);
size_t ebid_hash_id_len(enum ebid_hash_alg alg);
const char *ebid_hash_name(enum ebid_hash_alg alg);
int ebid_hash_parse(const char *name, enum ebid_hash_alg *alg);

/*
 * Stream src through plan into out_fd (from offset 0), hashing as it goes,
 * then write the id into the output. id receives the final id.
 */
int ebid_apply_fd(const struct ebid_src *src, const struct ebid_plan *plan,
		  int out_fd, unsigned char id[EBID_MAX_ID], char *err,
		  size_t errlen);
/* Only compute the id the plan would give; write nothing. */
int ebid_apply_hash(const struct ebid_src *src, const struct ebid_plan *plan,
		    unsigned char id[EBID_MAX_ID], char *err, size_t errlen);
/* The same into a new malloc'd buffer (*out, owned by the caller). */
int ebid_apply_mem(const struct ebid_src *src, const struct ebid_plan *plan,
		   unsigned char **out, size_t *out_len,
		   unsigned char id[EBID_MAX_ID], char *err, size_t errlen);

/*
 * The id of src as defined in docs/build-id.md: the hash of every byte with
 * [desc_off, desc_off + desc_len) read as zeros.
 */
int ebid_hash_src(const struct ebid_src *src, uint64_t desc_off,
		  size_t desc_len, enum ebid_hash_alg alg,
		  unsigned char id[EBID_MAX_ID], char *err, size_t errlen);

/*
 * Check that new, the result of applying plan to old, is what the plan
 * promised: the note is in a .note.gnu.build-id SHF_ALLOC SHT_NOTE section,
 * the kernel's reader finds the same id, and every section and program
 * header of old is unchanged but for those the plan names.
 */
/*
 * Reads an output of plan (made from old) back into *new for
 * ebid_check_result(): its layout, and for a plan that moved sections its
 * symbols and relocations too, over the addresses of what moved (for
 * new-load, past the first page). On failure *new is left released.
 */
int ebid_elf_read_output(struct ebid_elf *new, const struct ebid_src *src,
			 const struct ebid_elf *old,
			 const struct ebid_plan *plan, char *err,
			 size_t errlen);
int ebid_check_result(const struct ebid_elf *old, const struct ebid_elf *new,
		      const struct ebid_plan *plan, const unsigned char *id,
		      char *err, size_t errlen);
/*
 * The bytes behind EBID_ACT_MOVE_HEAD, read from the output (out): the
 * moved run is the input's bytes, and where a gap was inserted (and the
 * input in is given) every byte is the planned one, the id aside.
 */
int ebid_check_moved_bytes(const struct ebid_elf *old,
			   const struct ebid_plan *plan,
			   const struct ebid_src *in, const struct ebid_src *out,
			   const unsigned char *id, char *err, size_t errlen);

/* Hex helpers. hex must hold 2 * len + 1 bytes. */
void ebid_hex(char *hex, const unsigned char *bytes, size_t len);
int ebid_unhex(const char *s, unsigned char *out, size_t max, size_t *len);
bool ebid_all_zero(const unsigned char *p, size_t len);

/*
 * A file reached through a directory descriptor: every open, create,
 * rename and unlink of it and of the temporaries beside it goes through
 * dirfd, so a path component swapped for a symlink later cannot steer a
 * write elsewhere. Owns dirfd and name (one path component).
 */
struct ebid_at {
	int dirfd;
	char *name;
};

void ebid_at_init(struct ebid_at *at);
void ebid_at_release(struct ebid_at *at);
/*
 * A path named by the user: its directory is opened once, symlinks in it
 * followed as the user named them; with follow, a symlink as the last
 * component stands for its target (inject edits the target).
 */
int ebid_at_named(struct ebid_at *at, const char *path, bool follow,
		  char *err, size_t errlen);
/* rel below rootfd, reached with no symlink and no "..": see below. */
int ebid_at_beneath(struct ebid_at *at, int rootfd, const char *rel,
		    char *err, size_t errlen);
/*
 * openat() of rel below dirfd that follows no symlink and never leaves
 * dirfd (openat2 RESOLVE_BENEATH | RESOLVE_NO_SYMLINKS, or the same rule
 * one component at a time where the kernel lacks openat2). Returns the
 * descriptor or a negative errno (-ELOOP: a symlink on the way).
 */
int ebid_open_beneath(int dirfd, const char *rel, int flags, mode_t mode);
/*
 * mkdir -p of rel below rootfd, each level made with mkdirat and opened
 * with O_NOFOLLOW: a symlink where a directory should be is refused.
 * *dirfd receives the last directory (owned by the caller).
 */
int ebid_mkdirs_beneath(int rootfd, const char *rel, int *dirfd, char *err,
			size_t errlen);
/*
 * Opens at's file (O_NOFOLLOW and flags) and takes its lock: flock()
 * exclusive for writers, shared for readers, waiting at most timeout_ms
 * (negative: forever). The lock belongs to the inode the name names when
 * it is granted; a file renamed over meanwhile is opened again. Other
 * elf-buildid runs take the same lock, so runs on one file act one after
 * another. A non-regular file is returned unlocked. Returns the
 * descriptor (owned by the caller; closing it drops the lock) or a
 * negative code (-EBID_ELOCKED on timeout, naming the holder if known).
 */
int ebid_open_locked(const struct ebid_at *at, int flags, bool exclusive,
		     long timeout_ms, struct stat *st, char *err,
		     size_t errlen);

/*
 * The temporaries that killed runs left, remembered per directory so that
 * a run over many files reads each directory once. Owned by the caller
 * (one per run, shared by its threads); NULL reads the directory each time.
 */
struct ebid_temps;
struct ebid_temps *ebid_temps_new(void);
void ebid_temps_free(struct ebid_temps *t);

/*
 * Whole-file jobs. ebid_job_run reads path, plans, and (unless dry_run)
 * writes the result to output (or back over path: temp file in the same
 * directory, fsync, metadata copied, rename, directory fsync). The original
 * is never modified in place.
 */
struct ebid_job {
	const char *path;               /* input, for messages */
	const struct ebid_at *at;       /* input: where it is */
	const char *output;             /* -o, or NULL to replace path */
	long lock_timeout_ms;           /* see ebid_open_locked() */
	uint64_t walk_dev, walk_ino;    /* the inode a walk found, or 0: another
					 * inode with hard links is refused */
	struct ebid_temps *temps;       /* or NULL */
	struct ebid_opts opts;
	bool dry_run;
	bool preserve_times;            /* keep atime and mtime */
	bool in_place;                  /* edit the inode (journal first) */
	bool skip_non_programs;         /* tree mode: objects etc. skipped */
	const char *skipped;            /* set (static) when skipped */
	/* results */
	struct ebid_plan plan;
	unsigned char id[EBID_MAX_ID];
	size_t id_len;
	bool changed;                   /* a file was written */
	struct ebid_elf elf;            /* the input's layout */
	const struct ebid_src *src;     /* the input, while the job runs */
};

int ebid_job_run(struct ebid_job *job, char *err, size_t errlen);
void ebid_job_release(struct ebid_job *job);

/* Parse the layout of the regular file open at fd (for show and verify). */
int ebid_elf_open_fd(struct ebid_elf *elf, int fd, char *err, size_t errlen);

/* Recompute the content hash of the file at fd whose id lies at elf->gnu. */
int ebid_content_id(int fd, const struct ebid_elf *elf,
		    enum ebid_hash_alg alg, unsigned char id[EBID_MAX_ID],
		    char *err, size_t errlen);

/*
 * perf bridge: run `perf buildid-list -i` on the file open at fd (perf
 * reads that very inode, whatever its path now names) with a fixed
 * environment, killed after timeout_ms; hex receives what perf printed
 * (trimmed). Returns -ENOENT when perf is not installed.
 */
int ebid_perf_buildid(int fd, long timeout_ms, char *hex, size_t hexlen,
		      char *err, size_t errlen);

/*
 * A binary a profile has samples in: its path as recorded, the build-id
 * recorded for it (lower-case hex; "" when none was), and for pprof whether
 * the profile already names its functions.
 */
struct ebid_dso {
	char *path;
	char id[2 * EBID_MAX_ID + 1];
	bool symbolized;
	char note[96];          /* why a recorded id was not taken, or "" */
};

/*
 * perf bridge: the binaries with samples in the perf.data open at fd, from
 * `perf buildid-list --with-hits`. *dsos is freed with ebid_dsos_free.
 */
int ebid_perf_hits(int fd, long timeout_ms, struct ebid_dso **dsos,
		   size_t *ndsos, char *err, size_t errlen);
void ebid_dsos_free(struct ebid_dso *v, size_t n);

/*
 * `debuginfod-find KIND HEX` (KIND executable or debuginfo) with exactly the
 * environment envp (DEBUGINFOD_URLS, its cache, HOME): the path of the file
 * it fetched. -ENOENT when it is not installed or found nothing.
 */
int ebid_debuginfod_find(const char *kind, const char *hex,
			 char *const envp[], long timeout_ms, char *path,
			 size_t pathlen, char *err, size_t errlen);

enum ebid_profile_format {
	EBID_PROFILE_PERF = 1,  /* perf.data, read through perf */
	EBID_PROFILE_PPROF,     /* profile.proto, gzip'd or not */
};

struct ebid_profile {
	enum ebid_profile_format format;
	/*
	 * When it was captured, in ns since the epoch (0: unknown): a
	 * perf.data's mtime (what perf prints as "captured on"), a pprof
	 * profile's time_nanos.
	 */
	int64_t captured_ns;
	struct ebid_dso *dsos;  /* the binaries with samples */
	size_t ndsos;
};

/*
 * Reads the profile open at fd, a perf.data or a pprof profile. Returns
 * -EBID_EMALFORMED when it is neither, or cannot be read.
 */
int ebid_profile_read(int fd, long timeout_ms, struct ebid_profile *prof,
		      char *err, size_t errlen);
void ebid_profile_release(struct ebid_profile *prof);

/* The pprof half of ebid_profile_read, on bytes (gzip'd or not). */
int ebid_pprof_parse(const unsigned char *data, size_t len,
		     struct ebid_profile *prof, char *err, size_t errlen);

/*
 * Whether elf is something that carries a build-id: an executable or a
 * shared library with loadable contents. Otherwise *why says what it is
 * (relocatable object, core file, separate debug file, ...).
 */
bool ebid_elf_is_program(const struct ebid_elf *elf, const char **why);

/*
 * The file name in the .gnu_debuglink section of the file open at fd, if
 * any: name[0] is '\0' when there is none.
 */
int ebid_elf_debuglink(const struct ebid_elf *elf, int fd, char *name,
		       size_t len);

/* Machine name ("x86_64", "aarch64", ...) for e_machine, or NULL. */
const char *ebid_machine_name(uint16_t machine);

/*
 * Whether the GNU id is the one Go's linker derives from the file's Go build
 * id (-B gobuildid; the default from Go 1.24). Such an id is only as unique
 * as the Go build id: a fixed -buildid gives every binary the same one.
 */
enum ebid_go_derivation {
	EBID_GO_DERIVED_NO = 0,
	EBID_GO_DERIVED_SUM32,          /* SHA-256, first byte inverted: Go 1.24+ */
	EBID_GO_DERIVED_NOTSHA256,      /* SHA-256, every bit inverted: older */
};
enum ebid_go_derivation ebid_go_derived(const struct ebid_elf *elf);

/* SHA-256 of the whole file open at fd, hex-encoded into hex[65]. */
int ebid_sha256_fd(int fd, char hex[65], char *err, size_t errlen);

/*
 * Tree walking. Each regular file reached from the roots is listed once
 * per inode (hard links and symlinks inside the tree collapse to one
 * entry, the first path in sort order); symlinks are never followed out of
 * the tree; excluded paths and subtrees are left out. Entries are sorted
 * by path. An entry with skip set was not a candidate (why in reason).
 */
struct ebid_walk_entry {
	char *path;             /* as reached: root joined with the rest */
	int rootfd;             /* walked: the root it lies below; -1 named */
	char *rel;              /* walked: the file to act on, below rootfd
				 * (a symlink's in-tree target) */
	const char *reason;     /* static string when skipped (or why error) */
	int error;              /* negative errno when it could not be read */
	bool skip;
	bool named;             /* named on the command line, not walked */
	char *alias_of;         /* skipped: another name of this path (owned) */
	uint64_t dev, ino;
	uint64_t nlink;         /* the inode's link count */
	unsigned links_in_tree; /* paths of this inode seen in the walk */
};

struct ebid_walk {
	struct ebid_walk_entry *v;
	size_t n, cap;
	int *roots;             /* the walked roots, held open */
	size_t nroots;
};

int ebid_walk_add(struct ebid_walk *w, const char *root, bool recursive,
		  const char *const *exclude, size_t nexclude, char *err,
		  size_t errlen);
void ebid_walk_finish(struct ebid_walk *w);
/* Where an entry's file is: below its root, or the path as named. */
int ebid_walk_entry_at(const struct ebid_walk_entry *e, struct ebid_at *at,
		       char *err, size_t errlen);
void ebid_walk_release(struct ebid_walk *w);

/*
 * The library reads large inputs through mappings only when the program
 * has installed this as its SIGBUS handler (sigaction with SA_SIGINFO):
 * it turns a fault inside a window being read (the file shrank, an I/O
 * error) into an error return, and makes any other SIGBUS fatal. Without
 * it, the library reads with pread() and installs nothing itself.
 */
void ebid_sigbus_handler(int sig, siginfo_t *si, void *ctx);

/*
 * Running processes (audit --running): for each process, each distinct
 * file it maps executable, the id the kernel reports for it (what BPF
 * profilers and perf --buildid-mmap record), the id readers by section
 * find in the same mapped inode, and what the path names now inside the
 * process's own root. Everything is read through /proc/PID opened once: a
 * process that exits during the scan is left out (counted in gone), a pid
 * reused meanwhile is never mistaken for the one opened.
 */
enum ebid_path_state {
	EBID_PATH_SAME = 0,     /* the path names the mapped inode */
	EBID_PATH_SAME_ID,      /* another file, with the same id */
	EBID_PATH_OTHER_ID,     /* another file, with another id or none */
	EBID_PATH_NONE,         /* nothing there (or deleted) */
	EBID_PATH_NA,           /* the vDSO: no path */
};

enum ebid_live_verdict {
	EBID_LIVE_OK = 0,
	EBID_LIVE_INVISIBLE,     /* the kernel reports no id */
	EBID_LIVE_REPLACED,      /* the path holds another binary, or none */
	EBID_LIVE_DUPLICATE,     /* one id, two files with other bytes */
	EBID_LIVE_UNREADABLE,    /* no privilege over the process or file */
	EBID_LIVE_NVERDICTS,
};

struct ebid_mapped_file {
	char *path;             /* as the maps name it, " (deleted)" cut */
	uint64_t start, end;    /* one executable mapping of it */
	uint64_t dev, ino;      /* the mapped inode */
	bool deleted, vdso;
	bool by_fallback;       /* kernel id by ebid_kernel_build_id */
	int error;              /* negative errno: what could not be read */
	unsigned char kernel_id[EBID_MAX_ID];
	size_t kernel_id_len;   /* 0: the kernel reports none */
	unsigned char section_id[EBID_MAX_ID];
	size_t section_id_len;  /* 0: readers by section find none */
	enum ebid_path_state path_state;
	unsigned char path_id[EBID_MAX_ID];
	size_t path_id_len;
	enum ebid_live_verdict verdict;
	char detail[160];       /* why, when the verdict needs a word */
};

struct ebid_proc {
	pid_t pid;
	char comm[32];
	int error;              /* negative errno: the process is unreadable */
	struct ebid_mapped_file *files;
	size_t nfiles;
};

struct ebid_running {
	struct ebid_proc *procs;
	size_t nprocs;
	size_t gone;            /* exited (or exec'd past us) during the scan */
	bool fallback;          /* PROCMAP_QUERY was not used */
};

struct ebid_running_opts {
	const pid_t *pids;      /* these only, or every process (NULL) */
	size_t npids;
	bool no_procmap_query;  /* judge the first page as the kernel would */
	const unsigned char *vdso_id; /* the running vDSO's id, or NULL */
	size_t vdso_id_len;
};

/* Scan; *r is released on failure. Unreadable processes are results. */
int ebid_running_scan(struct ebid_running *r,
		      const struct ebid_running_opts *o, char *err,
		      size_t errlen);
void ebid_running_release(struct ebid_running *r);
/*
 * A descriptor (owned by the caller) on the inode f maps in process pid,
 * read through /proc/PID/map_files (or the path in the process's root
 * when it still names that inode): whatever the path holds now.
 */
int ebid_mapped_open(pid_t pid, const struct ebid_mapped_file *f, char *err,
		     size_t errlen);
const char *ebid_live_verdict_word(enum ebid_live_verdict v);

#endif
