/* SPDX-License-Identifier: GPL-2.0 */
/*
 * nvabi: shared declarations.
 *
 * nvabi reads a tree of NVIDIA's open-gpu-kernel-modules, extracts the ioctl
 * ABI that a container can reach (frontend escapes, RM control commands,
 * allocation classes, UVM commands, and the compiled x86_64 layout of every
 * payload they use), and keeps one canonical text file per release under abi/.
 *
 * One section per file X.c, headed "---- X.c", declares what X.c exports and
 * nothing else; the files call each other one way, never in a cycle
 * (tests/tools/layers.sh --header nvabi.h checks both).
 */
#ifndef NVABI_H
#define NVABI_H

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#define NVABI_FORMAT 1

/* ---- util.c ------------------------------------------------------------ */

struct sbuf {
	char *s;
	size_t len, cap;
};

extern int nvabi_verbose;

void die(const char *fmt, ...) __attribute__((noreturn, format(printf, 1, 2)));
void warnx(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
void note(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
void *xmalloc(size_t n);
void *xcalloc(size_t n, size_t m);
void *xrealloc(void *p, size_t n);
char *xstrdup(const char *s);
char *xstrndup(const char *s, size_t n);
char *xasprintf(const char *fmt, ...) __attribute__((format(printf, 1, 2)));

void sb_add(struct sbuf *b, const char *s);
void sb_addn(struct sbuf *b, const char *s, size_t n);
void sb_addc(struct sbuf *b, char c);
void sb_printf(struct sbuf *b, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
void sb_free(struct sbuf *b);
char *sb_steal(struct sbuf *b);

char *read_file(const char *path, size_t *len);	/* NULL if it cannot be read */
int write_file_atomic(const char *path, const char *data, size_t len);
int path_exists(const char *path);
int is_dir(const char *path);
int mkdir_p(const char *path);
int rm_rf(const char *path);
char *path_join(const char *a, const char *b);
const char *path_base(const char *p);

uint64_t fnv1a64(const void *data, size_t n, uint64_t h);
#define FNV_SEED 0xcbf29ce484222325ULL

/* Growable array of pointers. */
struct pvec {
	void **v;
	size_t n, cap;
};
void pv_push(struct pvec *p, void *x);
void pv_free(struct pvec *p);

/* Simple string -> pointer hash map (keys are copied). */
struct smap_ent {
	char *key;
	void *val;
	struct smap_ent *next;
};
struct smap {
	struct smap_ent **b;
	size_t nb, n;
};
void *smap_get(const struct smap *m, const char *key);
void smap_put(struct smap *m, const char *key, void *val);
void smap_free(struct smap *m, void (*fv)(void *));

/* Run a command; returns exit status, or -1. argv[0] is looked up in PATH. */
int run_cmd(char *const argv[], const char *stdout_path, int quiet);
/* Run a command and capture its stdout (NUL-terminated, length in *len). */
char *run_capture(char *const argv[], size_t *len, int *status);

/* ---- version.c --------------------------------------------------------- */

#define NVV_MAXPARTS 4

struct nvver {
	int n;				/* number of components */
	unsigned long part[NVV_MAXPARTS];
};

int ver_parse(const char *s, struct nvver *v);	/* 0 on success */
int ver_cmp(const struct nvver *a, const struct nvver *b);
int ver_cmp_str(const char *a, const char *b);
uint64_t ver_key(const struct nvver *v);	/* NVABI_VERSION() */

/* ---- model.c: the ABI of one release ----------------------------------- */

enum node {
	NODE_NONE = 0,
	NODE_CTL,		/* /dev/nvidiactl only */
	NODE_GPU,		/* /dev/nvidiaN only */
	NODE_ANY,		/* either */
	NODE_UVM,		/* /dev/nvidia-uvm */
	NODE_UVM_TOOLS,		/* /dev/nvidia-uvm-tools */
	NODE_CAP,		/* a capability node of nvidia-caps (fd lookups only) */
	NODE_IMEX,		/* an IMEX channel node (fd lookups only) */
	NODE_MAX = NODE_IMEX,
};

enum priv {
	PRIV_UNKNOWN = 0,	/* not recorded in this release's tables */
	PRIV_USER,		/* any caller */
	PRIV_ROOT,		/* administrator */
	PRIV_KERNEL,		/* kernel callers only */
	PRIV_INTERNAL,		/* RM-internal, never from user space */
	PRIV_NONE,		/* refused for every caller (no privilege flag) */
};

enum esc_kind {
	ESC_EXACT = 0,		/* size must equal one of the types' sizes */
	ESC_ARRAY,		/* size is a non-zero multiple of the element size */
	ESC_MIN,		/* size is at least the type's size */
	ESC_UNCHECKED,		/* no size check found */
};

/* Layout field flags. */
#define FLD_PTR 0x1		/* holds a user pointer (NvP64 or a C pointer) */
#define FLD_FD 0x2		/* holds a file descriptor number */

struct field {
	char *name;
	char *type;		/* printed type, no spaces */
	long long off;		/* bits */
	long long size;		/* bytes, or bit width for bit-fields */
	int bitfield;
	unsigned flags;
	struct layout *rec;	/* record type referred to (resolved), or NULL */
	char *rec_ref;		/* "name#hash" of that record */
};

struct layout {
	char *name;
	int is_union;
	long long size, align;
	char *header;		/* provenance: declaring header, tree-relative */
	size_t nfields;
	struct field *fields;
	uint64_t hash;		/* recursive content hash */
	int hashed;		/* 0 = not yet, 1 = in progress, 2 = done */
	int seen;
};

struct ptype {			/* a payload type as an entry refers to it */
	char *name;		/* type name, "-" for none */
	long long size;
	struct layout *rec;	/* NULL for scalars */
	uint64_t hash;		/* 0 for scalars */
};

struct esc {
	unsigned nr;
	char *name;		/* provenance */
	enum node node;
	enum priv priv;		/* PRIV_ROOT if the handler demands it */
	enum esc_kind kind;
	int ntypes;
	struct ptype types[4];
	char *src;		/* provenance: handling function */
	enum esc_kind early;	/* up-front size check of the ioctl: exact, array, */
	int nearly;		/* or ESC_UNCHECKED for none; its sizes: */
	long long early_size[2];
};

struct ctrl {
	uint32_t cmd;
	enum priv priv;
	uint32_t access;	/* required access right, 0 = none */
	unsigned extra;		/* CTRL_X_* */
	struct ptype type;
	char *owners;		/* provenance: NVOC classes, comma separated */
};
#define CTRL_X_PRIV_IF_NO_RIGHTS 0x1	/* root unless access rights are enabled */
#define CTRL_X_TEST_ONLY 0x2		/* test-only command */

struct cls {
	uint32_t id;
	char *name;		/* provenance */
	enum priv priv;
	int params;		/* 0 none, 1 optional, 2 required */
	struct ptype type;
	char *internal;		/* provenance: NVOC class */
};

struct uvmc {
	uint32_t cmd;
	char *name;		/* provenance */
	enum node node;
	struct ptype type;
};

/*
 * A deprecated control: the driver converts its V1 params (@type) to the
 * V2 control @v2 before looking at its method tables. Unless @custom, the
 * V1 params hold a pointer (@list) to @count elements of @elem (bytes when
 * !@is_count), at most @max, copied in and/or out; a custom converter
 * follows its own code.
 */
struct dep {
	uint32_t cmd, v2;
	char *name;		/* provenance: the V1 command macro */
	struct ptype type;
	int custom;
	char *list, *count;	/* field names in @type */
	int is_count;
	struct ptype elem;
	uint32_t max;
	int in, out;
};

/*
 * A list a method-table control's params point to, copied by the driver
 * before the control runs (embeddedParamCopyIn()): slot @slot of command
 * @cmd, @list in @type holds the pointer; @count elements (times @count2
 * when set, or the constant @cnum when @count is NULL; 0 while the pointer
 * is NULL when @ifptr) of @elem.size bytes; copied in and/or out, at most
 * 1 MiB unless @nomax. A @custom one: a helper picks the list.
 */
struct emb {
	uint32_t cmd;
	int slot;
	char *name;		/* provenance: the command macro */
	struct ptype type;
	int custom;
	char *list, *count, *count2;
	uint32_t cnum;
	int ifptr;
	struct ptype elem;	/* name "-" for a size written as a number */
	int in, out, nomax;
};

/* A payload field whose fd number the driver looks up (scan_fds()). */
struct fd_hit {
	char *type;		/* record name, as in layouts.txt without #hash */
	char *field;		/* top-level field of that record */
	enum node node;		/* the node the driver wants: CTL, GPU, ANY, UVM, CAP or IMEX */
};
void fd_hit_free(struct fd_hit *h);

/*
 * What the UVM driver answers a command it does not have: the command falls
 * to its test entry points, which answer an errno while they are disabled
 * (the module parameter uvm_enable_builtin_tests is off by default).
 * UVM_UNKNOWN_NONE: not found in the release's source.
 */
enum { UVM_UNKNOWN_NONE, UVM_UNKNOWN_EINVAL, UVM_UNKNOWN_ENOSYS };
const char *uvm_unknown_str(int u);
int uvm_unknown_parse(const char *s);	/* -1 when not one */

struct abi {
	char *release;
	char *source;		/* provenance */
	struct pvec esc, ctrl, cls, uvm;	/* sorted by key */
	struct pvec dep;	/* struct dep, sorted by cmd */
	struct pvec emb;	/* struct emb, sorted by cmd and slot */
	struct pvec fdin;	/* struct fd_hit: fds the driver resolves, sorted */
	int uvm_unknown;	/* UVM_UNKNOWN_*: the answer to a UVM command it lacks */
	struct smap layouts;	/* "name#hash" -> struct layout (resolved) */
};

void abi_free(struct abi *a);
void abi_sort(struct abi *a);
const char *node_str(enum node n);
enum node node_parse(const char *s);
const char *priv_str(enum priv p);
enum priv priv_parse(const char *s);
const char *kind_str(enum esc_kind k);
int kind_parse(const char *s);

/* Pointer and fd fields reachable from a type, as "path" lists. */
struct reach {
	struct pvec ptr, fd;		/* char * paths */
	struct pvec fd_off;		/* top-level fd fields: (void*)(off<<8|size) */
	struct pvec fd_owner;		/* ... and "record field" of each */
};
void reach_collect(const struct ptype *t, struct reach *r);
void reach_free(struct reach *r);

/* ---- store.c: text files ------------------------------------------------ */

/*
 * abi/releases/<version>.abi: one release (entries, by layout reference);
 * abi/layouts.txt: every record layout referred to, once, by name#hash.
 */
struct store {
	char *dir;		/* the abi/ directory */
	struct smap layouts;	/* "name#hash" -> struct layout */
	int dirty;
};

/* The abi/ directory: --abi DIR (abi_dir_opt), $NVABI_DIR, next to the tool, or ./abi. */
extern const char *abi_dir_opt;
const char *abi_dir_default(void);

void store_open(struct store *s, const char *dir);	/* loads layouts.txt */
void store_close(struct store *s);
int store_add_layout(struct store *s, struct layout *l);	/* takes a copy */
void store_write(struct store *s);	/* rewrites layouts.txt (sorted) */
void store_prune(struct store *s);	/* drop layouts no release refers to */

char *abi_format(const struct abi *a);	/* canonical text */
void format_esc(struct sbuf *b, const struct esc *e);	/* one line each */
void format_ctrl(struct sbuf *b, const struct ctrl *c);
void format_cls(struct sbuf *b, const struct cls *c);
void format_uvm(struct sbuf *b, const struct uvmc *c);
void format_dep(struct sbuf *b, const struct dep *d);
void format_emb(struct sbuf *b, const struct emb *e);
char *abi_identity(const char *text);	/* text without provenance */
int abi_parse(const char *text, const char *what, struct abi *a);
int abi_load(struct store *s, const char *release_or_path, struct abi *a);
void abi_resolve(struct store *s, struct abi *a);	/* link layouts */
char *release_path(const struct store *s, const char *release);

/* List of release names present in abi/releases, sorted by version. */
void store_releases(const struct store *s, struct pvec *out);

/* The layouts an ABI refers to, as text for a later merge (extract workers),
 * and that merge: 0, or -1 when @text does not parse. */
char *abi_layouts_text(struct abi *a);
int store_merge_text(struct store *s, const char *text, const char *what);

/* layout text */
void layout_format(struct sbuf *b, const struct layout *l);
uint64_t layout_hash(struct layout *l);
void layout_free(struct layout *l);
struct layout *layout_dup(const struct layout *l);
const struct field *layout_field(const struct layout *l, const char *name);	/* or NULL */

/* ---- tree.c: access to a source tree ------------------------------------ */

struct tree {
	char *root;		/* directory holding the tree */
	char *tmp;		/* temporary copy to remove, or NULL */
	char *label;		/* what the user named */
	char *version;		/* from version.mk */
	char *source;		/* provenance written into the release file */
};

void tree_open_dir(struct tree *t, const char *dir);
void tree_open_git(struct tree *t, const char *gitdir, const char *tag);
void tree_open_tar(struct tree *t, const char *file);
int tree_wanted(const char *path);	/* a file the extraction reads */
void tree_close(struct tree *t);
void git_list_tags(const char *gitdir, struct pvec *out);	/* sorted by version */
void git_check(const char *gitdir);
char *git_resolve(const char *gitdir);	/* the git dir of a repo or work tree */

/* ---- scan.c: the driver's dispatch code, read with the clang lexer ------ */

struct esc_hit {
	char *name;		/* NV_ESC_... macro */
	char *src;		/* function that handles it */
	enum node node;
	enum priv priv;
	enum esc_kind kind;
	int ntypes;
	char *types[4];		/* type spellings, as written */
};

struct uvm_hit {
	char *name;		/* UVM_... macro */
	char *params;		/* params type, or NULL for none */
	enum node node;
};

struct early_hit {		/* an entry of an up-front ioctl size check */
	char *name;		/* NV_ESC_... macro */
	int ntypes;
	char *types[2];
	int array;
};

/*
 * A deprecated control (interface/deprecated/rmapi_deprecated_control.c):
 * the driver serves it before its method tables, converting the V1 params,
 * whose embedded pointer it follows, to the V2 control it calls. Spellings
 * as written, laid out by the compiler in extract.c.
 */
struct dep_hit {
	char *name;		/* V1 command macro */
	char *v2;		/* V2 command macro */
	char *type;		/* V1 params type */
	char *v2type;		/* V2 params type, NULL for a custom converter */
	char *list, *v2list;	/* embedded pointer field, and V2's array field */
	char *count;		/* the V1 field sizing the list */
	int is_count;		/* count of elements (1) or bytes (0) */
	char *elem;		/* element type */
	int in, out;		/* the list is copied in, out */
};

/*
 * A list a method-table control's params point to, which the driver copies
 * itself before the control runs (src/kernel/rmapi/embedded_param_copy.c,
 * embeddedParamCopyIn()): one per RMAPI_PARAM_COPY_INIT of the command's
 * case. Spellings as written.
 */
struct emb_hit {
	char *name;		/* command macro */
	char *type;		/* params type */
	char *cond;		/* the #ifdef around the case ("ifdef X"), or NULL */
	int custom;		/* a helper picks the list (NULL below) */
	int slot;		/* paramCopies[slot] */
	char *list;		/* the pointer field */
	char *count, *count2;	/* count field, or the two fields multiplied */
	char *cnum;		/* or a constant count */
	int ifptr;		/* count is 0 while the pointer is NULL */
	char *elem;		/* element type (sizeof), or NULL ... */
	char *elemnum;		/* ... and its size as written */
	int in, out, nomax;
};

struct scan {
	struct pvec esc;	/* struct esc_hit */
	struct pvec emb;	/* struct emb_hit */
	struct pvec early;	/* struct early_hit */
	struct pvec uvm;	/* struct uvm_hit */
	struct pvec dep;	/* struct dep_hit */
	struct pvec includes;	/* headers the RM dispatchers include, as written */
};

void scan_tree(const char *root, struct scan *sc);
int scan_uvm_unknown(const char *root);
extern const char *const scan_uvm_files[];	/* the files scan_uvm_unknown() reads */
void scan_fds(const char *root, struct pvec *out);
extern const char *const scan_fd_files[];	/* the files scan_fds() reads */
void scan_free(struct scan *sc);

/* ---- extract.c ------------------------------------------------------------ */

struct xstats {
	double secs;
	size_t nlayouts;
};
void extract_tree(struct tree *t, struct abi *out, struct xstats *st);

/* ---- ranges.c: releases merged into ranges of one ABI ------------------- */

struct range {
	char *first, *last;
	uint64_t id;		/* identity hash */
	int abi_index;		/* index of the distinct ABI */
	struct pvec releases;	/* char * */
	size_t count;		/* releases, as ranges.txt says */
};
struct rangeset {
	struct pvec releases;	/* char *, sorted by version */
	struct pvec ranges;	/* struct range * */
	size_t ndistinct;
};
void ranges_compute(struct store *s, struct rangeset *rs);
char *ranges_format(const struct rangeset *rs);
int ranges_parse(const char *text, struct rangeset *rs);
void ranges_load(struct store *s, struct rangeset *rs);
void ranges_free(struct rangeset *rs);
int cmd_ranges(int argc, char **argv);

/* branches: a release's branch is its first version component */
#define SUCCESSOR_MIN_MINORS 6		/* see branch_successor() */
int branch_successor(char *const *rel, size_t n, unsigned long major, int min_minors);
unsigned long branch_of(const char *version);
char *branch_previous(const char *abidir, const char *release);	/* or NULL */

/* ---- gen.c: the C tables (abi/generated/) ------------------------------- */

int cmd_gen(int argc, char **argv);

/* ---- diff.c: what changed between two releases; check of abi/ ----------- */

int diff_print(const char *abidir, const char *a, const char *b);	/* changes */
int cmd_diff(int argc, char **argv);
int cmd_check(int argc, char **argv);

/* ---- show.c: what nvmediate uses for a driver version ------------------- */

int cmd_show(int argc, char **argv);

/* ---- replay.c: the successor rule replayed over every release ----------- */

int cmd_replay(int argc, char **argv);

/* ---- fdscan.c: the fd lookups of releases redone ------------------------ */

int cmd_fdscan(int argc, char **argv);

/* ---- main.c: the command line ------------------------------------------- */

int cmd_extract(int argc, char **argv);
int cmd_add(int argc, char **argv);

#endif
