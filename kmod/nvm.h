/* SPDX-License-Identifier: GPL-2.0 */
/*
 * nvmediate: internal interfaces between the parts of the module.
 */
#ifndef NVM_NVM_H
#define NVM_NVM_H

#include <linux/atomic.h>
#include <linux/fs.h>
#include <linux/kobject.h>
#include <linux/list.h>
#include <linux/mutex.h>
#include <linux/rbtree.h>
#include <linux/rcupdate.h>
#include <linux/sched.h>
#include <linux/spinlock.h>
#include <linux/types.h>

#include "nvabi_fixed.h"

/* The real node a mediated node stands for. */
enum nvm_kind {
	NVM_NODE_CTL,		/* /dev/nvidiactl */
	NVM_NODE_GPU,		/* /dev/nvidiaN */
	NVM_NODE_UVM,		/* /dev/nvidia-uvm */
};

/* stats.c: the families and verdicts calls are counted in (docs/operations.md). */
enum nvm_family {
	NVM_FAM_ESCAPE,
	NVM_FAM_CTRL,
	NVM_FAM_ALLOC,
	NVM_FAM_UVM,
	NVM_FAM_OPEN,
	NVM_FAM_MMAP,
	NVM_FAM_POLL,
	NVM_FAM_COUNT
};

/* The families of ioctl commands a profile admits: escape to UVM. */
#define NVM_FAM_CALLS	(NVM_FAM_UVM + 1)

enum nvm_outcome {
	NVM_OUT_FORWARDED,
	NVM_OUT_REFUSED,
	NVM_OUT_ANSWERED,
	NVM_OUT_AUDITED,
	NVM_OUT_COUNT
};

/**
 * struct nvm_fstats - the counts of one mediated file, for debugfs procs
 * @link: in the list of open files (stats.c)
 * @tgid: the process that opened the file
 * @comm: its name at open
 * @count: calls per family and verdict
 */
struct nvm_fstats {
	struct list_head link;
	struct pid *tgid;
	char comm[TASK_COMM_LEN];
	atomic64_t count[NVM_FAM_COUNT][NVM_OUT_COUNT];
};

/**
 * struct nvm_file - state of one open mediated file
 * @backing: the real driver's file, opened for this file alone; constant
 *	from open to release
 * @kind: which real node it mediates
 * @gpu: GPU index for %NVM_NODE_GPU
 * @range: the ABI range selected at open, kept until release
 * @nobounce_mm: an address space last found unable to hold a bounce area
 *	(compared only; held with mmgrab() while remembered, so that its
 *	address cannot be another process's meanwhile)
 * @nobounce_until: when to try @nobounce_mm again (jiffies)
 * @warn_mm: the address space last logged for a bounce failure (compared
 *	only)
 * @warn_until: when @warn_mm may be logged again (jiffies)
 * @set: the node set the file was opened on; its profile decides every
 *	call of the file (the set cannot be removed while the file is open)
 * @stats: the calls made on it
 */
struct nvm_file {
	struct file *backing;
	enum nvm_kind kind;
	unsigned int gpu;
	const struct nvm_range *range;
	struct mm_struct *nobounce_mm;
	unsigned long nobounce_until;
	struct mm_struct *warn_mm;
	unsigned long warn_until;
	struct nvm_set *set;
	struct nvm_fstats stats;
};

/**
 * struct nvm_report - what became of one ioctl, for counters, trace and log
 * @family: %NVM_FAM_ESCAPE, _CTRL, _ALLOC or _UVM
 * @outcome: the verdict
 * @nr: escape number, control command, class or UVM command
 * @size: payload size; for a control, its params size
 * @xfer: the escape came inside NV_ESC_IOCTL_XFER_CMD
 * @rule: the rule that refused (or would have, audited), else NULL
 * @err: the refusal's negative errno, 0 for an answer in the payload
 * @status: the NV_STATUS of an answer in the payload
 */
struct nvm_report {
	enum nvm_family family;
	enum nvm_outcome outcome;
	u32 nr;
	u32 size;
	bool xfer;
	const char *rule;
	int err;
	u32 status;
};

/* stats.c: counters, tracepoints and the refusal log (docs/operations.md). */
int nvm_stats_init(void);
void nvm_stats_exit(void);
void nvm_stats_open(struct nvm_file *nf, enum nvm_kind kind, unsigned int gpu, int ret);
void nvm_stats_release(struct nvm_file *nf);
void nvm_stats_ioctl(struct nvm_file *nf, const struct nvm_report *r, long ret);
void nvm_stats_file_op(struct nvm_file *nf, enum nvm_family family, long ret);
extern const struct attribute_group nvm_stats_class_group;

/* main.c: module parameters. */
extern unsigned int nvm_num_gpus;
extern char *nvm_uvm_path;
extern char *nvm_force_version;
extern bool nvm_accept_outside;

/* node.c: the mediated device nodes. */
int nvm_node_init(void);
void nvm_node_exit(void);
struct nvm_file *nvm_file_of(struct file *file);
struct nvm_set;
int nvm_node_add_set(struct nvm_set *set);
void nvm_node_del_set(struct nvm_set *set);

/* driver.c: the only code that calls into the real driver. */
struct file *nvm_drv_open(enum nvm_kind kind, unsigned int gpu, unsigned int flags);
void nvm_drv_release(struct file *backing);
long nvm_drv_ioctl(struct file *backing, unsigned int cmd, unsigned long arg, bool compat);
int nvm_drv_mmap(struct file *backing, struct vm_area_struct *vma);
__poll_t nvm_drv_poll(struct file *backing, struct poll_table_struct *wait);
struct nvm_version;
int nvm_drv_version(struct file *backing, struct nvm_version *v, const char **source);

/* bounce.c: checked payloads placed where the caller cannot change them. */
#define NVM_BOUNCE_MAX	(16 + 16384)	/* XFER header + the largest payload */
#define NVM_BOUNCE_TOP	0x10000UL	/* 64 KiB: vm.mmap_min_addr of Debian, RHEL */

/*
 * Pages of the area below NVM_BOUNCE_TOP, from the second page up: 15 with
 * 4 KiB pages, 3 with 16 KiB, none with 64 KiB (no bounce possible).
 */
#define nvm_bounce_pages(page_size)						\
	((page_size) < NVM_BOUNCE_TOP ? (unsigned int)(NVM_BOUNCE_TOP / (page_size)) - 1 : 0U)

struct nvm_bounce;

/**
 * struct nvm_bounce_call - one call's pages in the bounce area
 * @b: the area
 * @first: first page
 * @n: number of pages
 * @uaddr: user address of the first page
 * @kaddr: kernel address of the first page
 * @why: what failed, when nvm_bounce_get() failed
 */
struct nvm_bounce_call {
	struct nvm_bounce *b;
	unsigned int first;
	unsigned int n;
	unsigned long uaddr;
	void *kaddr;
	const char *why;
};

extern unsigned int nvm_bounce_mode;
int nvm_bounce_init(void);
void nvm_bounce_exit(void);
int nvm_bounce_get(struct nvm_bounce_call *bc, size_t len);
bool nvm_bounce_written(const struct nvm_bounce_call *bc);
void nvm_bounce_put(struct nvm_bounce_call *bc);

/* fdplan.c: which fd numbers a call needs to find in the caller's table. */
#define NVM_FDPLAN_MAX	4

/**
 * struct nvm_fdplan - what the driver will look up in current->files
 * @swap: the call must run with a private fd table
 * @nfds: number of entries in @fds
 * @fds: fd numbers read from the payload's fd fields
 * @kinds: for each of @fds, the mediated node kinds whose backing file may
 *	stand at that number (BIT(NVM_NODE_*)): the node the driver wants
 * @gpu_nodes: the call allocates a device; the driver checks that the
 *	calling process holds the GPU's node
 */
struct nvm_fdplan {
	bool swap;
	unsigned int nfds;
	int fds[NVM_FDPLAN_MAX];
	u8 kinds[NVM_FDPLAN_MAX];
	bool gpu_nodes;
};

struct nvm_req;
int nvm_fdplan_build(const struct nvm_req *req, struct nvm_fdplan *plan);
bool nvm_fdplan_kind_ok(const struct nvm_fdplan *plan, unsigned int i, enum nvm_kind kind);

/* fdctx.c: running a call with a private fd table. */
struct nvm_fdctx;

struct nvm_fdctx *nvm_fdctx_create(const struct nvm_fdplan *plan);
int nvm_fdctx_enter(struct nvm_fdctx *ctx, struct file *pin);
void nvm_fdctx_leave(struct nvm_fdctx *ctx);
void nvm_fdctx_destroy(struct nvm_fdctx *ctx);
int nvm_fdctx_init(void);
void nvm_fdctx_exit(void);

/* Lower-level pieces, used by the above and by the KUnit suites. */
struct nvm_fdctx *nvm_fdctx_alloc(unsigned int max_fd);
int nvm_fdctx_install(struct nvm_fdctx *ctx, unsigned int fd, struct file *file);
struct files_struct *nvm_fdctx_files(struct nvm_fdctx *ctx);
void nvm_fdctx_swap(struct nvm_fdctx *ctx);
void nvm_fdctx_unswap(struct nvm_fdctx *ctx);

/* version.c: driver version strings. */
#define NVM_VERSION_PART_BITS	20
#define NVM_VERSION_STR_MAX	24

/**
 * struct nvm_version - a driver version, e.g. 570.86.15
 * @major: first part
 * @minor: second part
 * @patch: third part, 0 when the version has two parts
 * @parts: 2 or 3
 */
struct nvm_version {
	u32 major;
	u32 minor;
	u32 patch;
	u8 parts;
};

int nvm_version_parse(const char *s, struct nvm_version *v);
int nvm_version_find(const char *text, struct nvm_version *v);
u64 nvm_version_key(const struct nvm_version *v);
void nvm_version_format(u64 key, char *buf);

/* ranges.c: the tree of ABI-identical version ranges. */
enum nvm_tier {
	NVM_TIER_EXACT,
	NVM_TIER_INTERPOLATED,
	NVM_TIER_OUTSIDE,
};

/**
 * struct nvm_range - a closed range of driver versions with one ABI
 * @rb: node in &struct nvm_range_tree
 * @first: first release of the range (version key)
 * @last: last release of the range (version key)
 * @releases: sorted keys of the releases known inside the range
 * @nreleases: number of @releases
 * @abi: the descriptor every version in the range uses
 */
struct nvm_range {
	struct rb_node rb;
	u64 first;
	u64 last;
	const u64 *releases;
	unsigned int nreleases;
	const void *abi;
};

struct nvm_range_tree {
	struct rb_root root;
	unsigned int count;
};

int nvm_range_insert(struct nvm_range_tree *tree, struct nvm_range *r);
const struct nvm_range *nvm_range_find(const struct nvm_range_tree *tree, u64 key,
				       const struct nvm_range **below,
				       const struct nvm_range **above);
enum nvm_tier nvm_range_tier(const struct nvm_range_tree *tree, u64 key,
			     const struct nvm_range **range);
const char *nvm_tier_name(enum nvm_tier tier);

/* abi.c: the ABI in use, from the generated tables. */

int nvm_abi_init(void);
void nvm_abi_exit(void);
int nvm_abi_select(struct file *backing, const struct nvm_range **range);
extern const struct attribute_group nvm_abi_class_group;

/* validate.c: checking every call against the ABI and the policy. */
extern bool nvm_allow_root;
extern bool nvm_allow_finn;
extern bool nvm_allow_gss;
extern bool nvm_audit;

#define NVM_POLICY_ROOT		0x1	/* allow_root=1 and CAP_SYS_ADMIN */
#define NVM_POLICY_FINN		0x2	/* allow_finn=1 */
#define NVM_POLICY_GSS		0x4	/* allow_gss=1 */

/* Largest control or class params forwarded (1 MiB). */
#define NVM_PARAMS_MAX		(1U << 20)

/* nvm_validate(): answered in the payload, not forwarded, ioctl returns 0. */
#define NVM_ANSWERED		1

struct nvm_profile;

/**
 * struct nvm_call - one call as the validator's decisions see it
 * @abi: ABI number of the file's range
 * @kind: node the call is made on
 * @prof: profile of the file's set; NULL: no capability check (KUnit)
 * @policy: NVM_POLICY_* of the caller
 * @nr: escape number (after unwrapping XFER), or UVM command
 * @size: payload size (the ioctl's, or XFER's inner size)
 * @xfer: the escape came inside NV_ESC_IOCTL_XFER_CMD
 * @payload: kernel copy of the @size bytes of the payload, or NULL
 */
struct nvm_call {
	unsigned int abi;
	enum nvm_kind kind;
	const struct nvm_profile *prof;
	unsigned int policy;
	unsigned int nr;
	unsigned int size;
	bool xfer;
	const void *payload;
};

/**
 * struct nvm_verdict - a decision
 * @rule: NULL when the call may be forwarded, else the check that refused
 * @family: NVM_FAM_* of the call the decision is about (escape, control,
 *	class or UVM command)
 * @number: its number: the escape, or the control command or class read
 *	from the payload, or the UVM command
 * @number_size: the control's params size read from the payload
 * @err: refused with this negative errno; 0 with @rule: answered in payload
 * @status: NV_STATUS written at @status_off when @err is 0
 * @status_off: byte offset of the status field in the payload
 * @nested: user pointer to params the driver will read, or 0
 * @nested_size: bytes the driver reads at @nested
 * @rights: user pointer to the access-rights mask of an NVOS64 allocation
 *	(pRightsRequested), or 0
 * @rights_off: byte offset of pRightsRequested in the payload
 * @fds: the fd fields of the payload of the entry matched last (nvabi_fds
 *	of the escape, control, class or UVM entry that @family names): in
 *	the checked copy for an escape, at @nested for a control or class,
 *	in the caller's payload of @payload_size bytes for a UVM command
 * @nfds: number of @fds
 * @payload_size: the size of the payload @fds are in
 */
struct nvm_verdict {
	const char *rule;
	enum nvm_family family;
	u32 number;
	u32 number_size;
	int err;
	u32 status;
	unsigned int status_off;
	u64 nested;
	u32 nested_size;
	u64 rights;
	u32 rights_off;
	const struct nvabi_fd *fds;
	unsigned int nfds;
	u32 payload_size;
};

struct nvabi_fd;
struct nvabi_esc;
struct nvabi_ctrl;
struct nvabi_class;
struct nvabi_uvm;
struct nvabi_rmlayout;
const struct nvabi_esc *nvm_abi_esc(u32 nr, unsigned int abi);
const struct nvabi_ctrl *nvm_abi_ctrl(u32 cmd, unsigned int abi);
const struct nvabi_class *nvm_abi_class(u32 hclass, unsigned int abi);
const struct nvabi_uvm *nvm_abi_uvm(u32 cmd, unsigned int abi);
const struct nvabi_rmlayout *nvm_abi_rmlayout(unsigned int abi);

bool nvm_refuse(struct nvm_verdict *v, int err, const char *rule);
bool nvm_answer(struct nvm_verdict *v, u32 status, unsigned int off, const char *rule);
bool nvm_priv_check(unsigned int priv, unsigned int policy, struct nvm_verdict *v,
		    const char *rule);
bool nvm_decide(const struct nvm_call *c, struct nvm_verdict *v);
bool nvm_decide_payload(const struct nvm_call *c, struct nvm_verdict *v);
/**
 * struct nvm_req - one ioctl on its way from the caller to the driver
 * @cmd: the ioctl command
 * @compat: it came in through compat_ioctl
 * @arg: the caller's argument
 * @nr: escape number after unwrapping XFER, or the UVM command
 * @size: payload size (the ioctl's, XFER's inner size, or the UVM size)
 * @xfer: the call came wrapped in NV_ESC_IOCTL_XFER_CMD
 * @xfer_hdr: the XFER header as checked, when @xfer
 * @payload: the caller's payload (XFER's inner pointer when @xfer)
 * @kbuf: the validator's copy of the @size bytes at @payload, or NULL
 * @verdict: the validator's decision, with the table entry it matched
 *	(what the fd plan reads)
 * @small: storage for a small @kbuf
 */
struct nvm_req {
	unsigned int cmd;
	bool compat;
	void __user *arg;
	unsigned int nr;
	unsigned int size;
	bool xfer;
	struct {
		u32 cmd;
		u32 size;
		u64 ptr;
	} xfer_hdr;
	void __user *payload;
	void *kbuf;
	struct nvm_verdict verdict;
	bool rights_read;		/* @rights_mask holds verdict.rights' mask */
	u8 rights_mask[NVM_RS_ACCESS_MASK_SIZE];
	u8 small[64] __aligned(8);
};

int nvm_validate(const struct nvm_file *nf, struct nvm_req *req, struct nvm_report *rep);
void nvm_req_free(struct nvm_req *req);

/* escape.c, ctrl.c, alloc.c, uvm.c: the decision of each family (pure). */
bool nvm_esc_decide(const struct nvm_call *c, struct nvm_verdict *v);
bool nvm_ctrl_decide(const struct nvm_call *c, struct nvm_verdict *v);
bool nvm_alloc_decide(const struct nvm_call *c, struct nvm_verdict *v);
bool nvm_alloc_is_client(u32 hclass);
bool nvm_uvm_decide(const struct nvm_call *c, struct nvm_verdict *v, u32 *size);

/* policy.c: capabilities, profiles and the audit record (docs/policy.md). */

#define NVM_CAP_COMPUTE		0x01
#define NVM_CAP_UTILITY		0x02
#define NVM_CAP_GRAPHICS	0x04
#define NVM_CAP_VIDEO		0x08
#define NVM_CAP_PROFILING	0x10
#define NVM_CAP_FABRIC_IMEX	0x20
#define NVM_CAP_RDMA		0x40
#define NVM_CAP_ALL		0x7f
#define NVM_CAP_BASE		0x80	/* every profile has it */
#define NVM_CAP_DEFAULT		(NVM_CAP_COMPUTE | NVM_CAP_UTILITY)

/* An entry of the generated capability table (abi/generated/nvm_caps.c). */
struct nvm_cap_entry {
	u8 family;
	u32 nr;
	u8 caps;
	const char *name;
};

extern const struct nvm_cap_entry nvm_cap_table[];
extern const unsigned int nvm_cap_count;

#define NVM_ALLOW_MAX		1024

/**
 * struct nvm_profile - what a node set admits; immutable once published
 * @caps: NVM_CAP_* bits (without %NVM_CAP_BASE)
 * @audit: forward what would be refused, log it and record it
 * @allow_root: forward administrator-only calls of CAP_SYS_ADMIN callers
 * @allow_finn: forward FINN-serialized control params
 * @allow_gss: forward GSS-legacy controls
 * @nallow: number of @allow
 * @allow: explicit allow entries, nvm_allow_key(), sorted, unique
 */
struct nvm_profile {
	u32 caps;
	bool audit;
	bool allow_root;
	bool allow_finn;
	bool allow_gss;
	unsigned int nallow;
	u64 allow[];
};

static inline u64 nvm_allow_key(unsigned int family, u32 nr)
{
	return ((u64)family << 32) | nr;
}

#define NVM_REC_MAX		128

/* One deduplicated entry of a set's audit record. */
struct nvm_rec {
	u8 family;
	u32 id;
	const char *rule;
	unsigned long count;
};

/**
 * struct nvm_record - what a set in audit mode would have refused
 * @lock: protects the rest (taken only for refusals, never for a call
 *	that passes)
 * @n: entries used
 * @dropped: refusals of new calls not kept because @ent was full
 * @ent: entries, in the order they were first seen
 */
struct nvm_record {
	spinlock_t lock;
	unsigned int n;
	unsigned long dropped;
	struct nvm_rec ent[NVM_REC_MAX];
};

#define NVM_SET_NAME_MAX	32
#define NVM_MAX_SETS		16

/**
 * struct nvm_set - a set of mediated nodes with its own profile
 * @name: "default" for /dev/nvproxy*, else the name under /dev/nvmediate/
 * @index: minors index * 256 + (0 .. 255)
 * @profile: the profile, replaced whole (RCU, SRCU readers)
 * @update_lock: serializes profile writers
 * @nopen: files open on the set (under the sets lock, sets.c)
 * @kobj: /sys/kernel/nvmediate/sets/@name
 * @rec: the audit record
 */
struct nvm_set {
	char name[NVM_SET_NAME_MAX];
	unsigned int index;
	struct nvm_profile __rcu *profile;
	struct mutex update_lock;
	unsigned int nopen;
	struct kobject kobj;
	struct nvm_record rec;
};

const char *nvm_family_name(unsigned int family);
const struct nvm_cap_entry *nvm_caps_find(unsigned int family, u32 nr);
bool nvm_profile_admits(const struct nvm_profile *p, unsigned int family, u32 nr);
bool nvm_profile_check(const struct nvm_call *c, struct nvm_verdict *v, unsigned int family,
		       u32 nr);
int nvm_caps_parse(const char *s, u32 *caps);
int nvm_caps_format(u32 caps, char *buf, size_t len);
struct nvm_profile *nvm_profile_alloc(unsigned int nallow);
struct nvm_profile *nvm_profile_edit_allow(const struct nvm_profile *old, const char *text);
void nvm_record_init(struct nvm_record *r);
void nvm_record_add(struct nvm_record *r, const struct nvm_verdict *v);
void nvm_record_clear(struct nvm_record *r);
const struct nvm_profile *nvm_profile_enter(const struct nvm_file *nf, int *idx)
	__acquires(nvm_profile_srcu);
void nvm_profile_exit(int idx) __releases(nvm_profile_srcu);
struct nvm_profile *nvm_profile_replace(struct nvm_set *set, struct nvm_profile *p);
void nvm_profile_retire(struct nvm_profile *old);
void nvm_node_name(const struct nvm_file *nf, char *buf, size_t len);

/* sets.c: the node sets, their nodes and sysfs attributes. */
int nvm_sets_init(void);
void nvm_sets_exit(void);
struct nvm_set *nvm_set_open(unsigned int index);
void nvm_set_close(struct nvm_set *set);
extern char *nvm_sets_param;

#endif /* NVM_NVM_H */
