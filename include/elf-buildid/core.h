/* SPDX-License-Identifier: MIT */
/*
 * elf-buildid core: read an ELF file's layout, what the readers of a
 * build-id see, plan a GNU build-id note, hash and apply it, whole-file
 * jobs (inject, reserve, backfill), errors.
 */
#ifndef ELF_BUILDID_CORE_H
#define ELF_BUILDID_CORE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
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
#define EBID_ENOTPROG 4008      /* ELF, but not a program or shared library */
#define EBID_EBUS 4100          /* a mapped window could not be read */

/* The text for a negative (or positive) errno or EBID_E* code. */
const char *ebid_strerror(int code);

enum ebid_hash_alg {
	EBID_HASH_SHA1 = 0,
	EBID_HASH_SHA256,
	EBID_HASH_MD5,
	EBID_HASH_SHA1_TREE,    /* SHA-1 over SHA-1s of 4 MiB chunks */
};


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

/* A relocation near the first page (src/elf/relocs.h). */
struct ebid_relref;

/* An entry of the dynamic table (PT_DYNAMIC). */
struct ebid_dynref {
	uint64_t tag;
	uint64_t val;           /* d_val or d_ptr */
	uint64_t val_off;       /* file offset of that field */
};

/* A table of section indices (elf->itabs): section shndx's bytes. */
struct ebid_itab {
	size_t shndx;
	unsigned char *bytes;
	size_t len;
};

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
	/*
	 * The tables that hold section indices in their entries (.symtab,
	 * .dynsym, SHT_SYMTAB_SHNDX), read whole with note_syms (itabs.c):
	 * what a plan that renumbers the sections rewrites. itabs_over: one
	 * could not be read (outside the file, or more than EBID_ITABS_MAX
	 * bytes in all), so the sections keep their numbers.
	 */
	struct ebid_itab *itabs;
	size_t nitabs;
	bool itabs_over;
};

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


/* Parse the layout of src into *elf; on failure *elf is left released. */
int ebid_elf_read(struct ebid_elf *elf, const struct ebid_src *src, char *err,
		  size_t errlen);
void ebid_elf_release(struct ebid_elf *elf);
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

struct ebid_opts {
	enum ebid_mode mode;
	enum ebid_hash_alg alg;
	bool force;
	const unsigned char *id;        /* explicit id (--id), or NULL */
	size_t id_len;
	bool alg_given;                 /* alg was asked for: reserve refuses a
					 * note that is there with another size */
	bool no_move;                   /* refuse plans that move a note */
	bool keep_constant;             /* keep a constant GNU id (below) */
	bool replace_constant;          /* set by the job: the note's id is a
					 * constant (ebid_gnu_id_constant()),
					 * replaced as a reserved note is */
};

/*
 * A plan: what the planner (src/plan/) decided to do to a file. Its
 * fields are plan/'s (src/plan/plan.h); the rest of the tool and the
 * library's users hold it by pointer and ask it through the functions
 * below (docs/hacking.md, "A plan is data").
 */
struct ebid_plan;

/* A new, empty plan for ebid_plan_make(); NULL when out of memory. */
struct ebid_plan *ebid_plan_new(void);
/* Releases what ebid_plan_make() put in plan, and plan itself. */
void ebid_plan_free(struct ebid_plan *plan);

/* Plan what opts asks of elf. An empty plan means no change. */
int ebid_plan_make(struct ebid_plan *plan, const struct ebid_elf *elf,
		   const struct ebid_opts *opts, char *err, size_t errlen);
void ebid_plan_release(struct ebid_plan *plan);
/* Words for the plan's actions ("add-note,fill"), or "unchanged". */
void ebid_plan_describe(const struct ebid_plan *plan, char *buf, size_t len);

/* What a plan does to the file, in one word for a report. */
enum ebid_outcome {
	EBID_OUTCOME_UNCHANGED = 0,
	EBID_OUTCOME_INJECTED,          /* a note added and filled */
	EBID_OUTCOME_RESERVED,          /* a zero note added, or an id zeroed */
	EBID_OUTCOME_BACKFILLED,        /* a note that was there filled */
	EBID_OUTCOME_REPAIRED,          /* made visible, nothing filled */
};

enum ebid_outcome ebid_plan_outcome(const struct ebid_plan *plan);
/* The size of the file the plan makes. */
uint64_t ebid_plan_out_size(const struct ebid_plan *plan);
/*
 * The --dry-run listing of plan for the file name: its words, then every
 * byte range it writes (malloc'd, the caller frees it), or NULL.
 */
char *ebid_plan_listing(const struct ebid_plan *plan, const char *name);
/* Does the plan change the file at all? */
bool ebid_plan_changes(const struct ebid_plan *plan);

/* Hash algorithms by name ("sha1", ...) and the id length each gives. */
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

/* Hex helpers. hex must hold 2 * len + 1 bytes. */
void ebid_hex(char *hex, const unsigned char *bytes, size_t len);
int ebid_unhex(const char *s, unsigned char *out, size_t max, size_t *len);
bool ebid_all_zero(const unsigned char *p, size_t len);

/* Where a job's file is, and the temporaries of killed runs (files.h). */
struct ebid_at;
struct ebid_temps;

/*
 * Whole-file jobs. ebid_job_run reads path, plans, and (unless dry_run)
 * writes the result to output, or back to path. By default in place under
 * a write lease, with an undo journal beside it, when nobody else has the
 * file open or mapped and it has one link and no set-ID bits or file
 * capabilities; else (and always with replace) by a temp file in the same
 * directory, fsync, metadata copied, rename, directory fsync. in_place
 * edits the inode whoever has it open. The program must ignore or handle
 * SIGIO for the lease to be taken (see src/fs/lease.c). The file is
 * changed only through a journal that undoes it until the result has
 * passed the self-check (docs/reliability.md, "Write modes").
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
	bool replace;                   /* always a new inode by rename */
	bool skip_non_programs;         /* tree mode: objects etc. skipped */
	const char *skipped;            /* when skipped: why (skip_why) */
	char skip_why[128];
	/* results */
	struct ebid_plan *plan;         /* made by ebid_job_run(), freed by
					 * ebid_job_release() */
	unsigned char id[EBID_MAX_ID];
	size_t id_len;
	bool changed;                   /* a file was written */
	const char *how;                /* how it was written (static text) */
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
 * Whether elf is something that carries a build-id: an executable or a
 * shared library with loadable contents. 0, or -EBID_ENOTPROG with err
 * saying what it is (relocatable object, core file, separate debug
 * file, ...).
 */
int ebid_elf_check_program(const struct ebid_elf *elf, char *err,
			   size_t errlen);

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
 * id (-B gobuildid, from Go 1.22; the default from Go 1.24), and by which
 * release's formula (src/id/hash.c names the Go sources). Such an id is
 * only as unique as the Go build id: a fixed -buildid gives every binary
 * the same one.
 */
enum ebid_go_derivation {
	EBID_GO_DERIVED_NO = 0,
	EBID_GO_DERIVED_SUM32,          /* SHA-256, first byte inverted: Go 1.25+ */
	EBID_GO_DERIVED_NOTSHA256,      /* SHA-256, every bit inverted: Go 1.22-1.23 */
	EBID_GO_DERIVED_SUM32_GO124,    /* SHA-256, first byte ^ 0x01: Go 1.24 */
};
enum ebid_go_derivation ebid_go_derived(const struct ebid_elf *elf);

/*
 * Whether the GNU id is the one Go's linker derived from the Go build id
 * the go command gave it: four parts "a/b/c/d" whose last one, the
 * binary's content id, the go command writes only after the link; until
 * then it is the action id "a" (cmd/go's buildid.go). So a default
 * `go build` (Go 1.24 and later) has the derivation of "a/b/c/a", which
 * ebid_go_derived() cannot see (measured: go1.26.8's current/default
 * fixture). Such an id is unique as the build is, but not a content hash.
 */
bool ebid_go_derived_at_link(const struct ebid_elf *elf);

/*
 * Whether a Go build id (len bytes at id) has a form the go command
 * writes: 2 or 4 parts separated by '/', each 20 characters of URL-safe
 * base64 (A-Z a-z 0-9 - _), the content hashes of cmd/go's buildid.go.
 * Anything else (Bazel rules_go's "redacted", a -ldflags=-buildid=STRING)
 * is a placeholder, the same string for every program linked with it.
 */
bool ebid_go_id_by_go_command(const unsigned char *id, size_t len);

/*
 * Whether elf's GNU id is a constant: derived by Go's linker
 * (ebid_go_derived()) from a Go build id the go command did not make, so
 * every program linked with that Go build id has this same GNU id. inject
 * replaces such an id with the content hash (struct ebid_opts'
 * replace_constant), verify fails it.
 */
bool ebid_gnu_id_constant(const struct ebid_elf *elf);

/* SHA-256 of the whole file open at fd, hex-encoded into hex[65]. */
int ebid_sha256_fd(int fd, char hex[65], char *err, size_t errlen);

#endif
