// SPDX-License-Identifier: GPL-2.0
/*
 * nvmediate: what the mediated calls became, for the administrator
 * (docs/operations.md, a stable interface):
 *
 *  - counters per family and verdict, per CPU, summed in
 *    /sys/class/nvmediate/stats/<family>_<verdict>;
 *  - the same counters per process that opened mediated files (struct
 *    nvm_proc), in debugfs nvmediate/procs while it holds any open;
 *  - the tracepoints nvmediate:nvmediate_call and nvmediate:nvmediate_file;
 *  - one ratelimited key=value log line per refused, answered or audited
 *    call, and once per outage the absence of the driver behind a node.
 *
 * Counting a call takes no lock: a per-CPU increment and an atomic one in
 * the counters of the process that opened the file.  Those records, read
 * only by debugfs, are found, made and dropped at open and release under
 * nvm_procs_lock.
 */
#include <linux/cgroup.h>
#include <linux/ctype.h>
#include <linux/debugfs.h>
#include <linux/device.h>
#include <linux/hashtable.h>
#include <linux/kernel.h>
#include <linux/mutex.h>
#include <linux/percpu.h>
#include <linux/pid.h>
#include <linux/ratelimit.h>
#include <linux/sched.h>
#include <linux/seq_file.h>
#include <linux/slab.h>

#include "stats.h"
#include "driver.h"
#include "fdctx.h"
#include "policy.h"
#include "sets.h"
#include "validate.h"
#include "nvmediate.h"
#include "nvabi_tables.h"

#define CREATE_TRACE_POINTS
#include "trace.h"

static const char *const nvm_stat_family_words[] = NVM_STAT_FAMILY_NAMES;
static const char *const nvm_outcome_names[] = NVM_OUTCOME_NAMES;

static_assert(ARRAY_SIZE(nvm_stat_family_words) == NVM_FAM_COUNT);
static_assert(ARRAY_SIZE(nvm_outcome_names) == NVM_OUT_COUNT);

struct nvm_counts {
	u64 n[NVM_FAM_COUNT][NVM_OUT_COUNT];
};

static DEFINE_PER_CPU(struct nvm_counts, nvm_counts);

/**
 * struct nvm_proc - the counts of one process's mediated files
 * @node: in nvm_procs, by @tgid
 * @tgid: the process that opened the files
 * @files: its mediated files still open; the record goes with the last
 * @comm: its name at its first open
 * @count: calls per family and verdict on those files, closed ones too
 *
 * One per process rather than per file: debugfs procs shows processes,
 * and an open file costs a pointer to it instead of 224 bytes of counters.
 */
struct nvm_proc {
	struct hlist_node node;
	struct pid *tgid;
	unsigned int files;
	char comm[TASK_COMM_LEN];
	atomic64_t count[NVM_FAM_COUNT][NVM_OUT_COUNT];
};

/* Processes holding mediated files, for debugfs procs. */
static DEFINE_HASHTABLE(nvm_procs, 8);
static DEFINE_MUTEX(nvm_procs_lock);
static struct dentry *nvm_debugfs;

static void nvm_count(struct nvm_file *nf, enum nvm_family f, enum nvm_outcome o)
{
	this_cpu_inc(nvm_counts.n[f][o]);
	if (nf)
		atomic64_inc(&nf->proc->count[f][o]);
}

static u64 nvm_count_sum(enum nvm_family f, enum nvm_outcome o)
{
	u64 sum = 0;
	int cpu;

	for_each_possible_cpu(cpu)
		sum += READ_ONCE(per_cpu(nvm_counts, cpu).n[f][o]);
	return sum;
}

/* A value for the log line: no space, no '=', nothing unprintable. */
static void nvm_log_clean(char *s)
{
	for (; *s; s++)
		if (!isgraph(*s) || *s == '=')
			*s = '?';
}

/* The caller's cgroup v2 path, from the root of the hierarchy. */
static void nvm_cgroup_path(char *buf, size_t len)
{
#ifdef CONFIG_CGROUPS
	int ret;

	rcu_read_lock();
	ret = cgroup_path(task_dfl_cgroup(current), buf, len);
	rcu_read_unlock();
	if (ret < 0)
		strscpy(buf, "?", len);
#else
	strscpy(buf, "/", len);
#endif
}

/* The name of a file's node under /dev, for the log line. */
static void nvm_node_name(const struct nvm_file *nf, char *buf, size_t len)
{
	static const char *const dflt[] = { "nvproxy", "nvproxy", "nvproxy-uvm" };
	static const char *const named[] = { "nvidiactl", "nvidia", "nvidia-uvm" };

	if (!nf->set->index)
		snprintf(buf, len, nf->kind == NVM_NODE_GPU ? "%s%u" : "%s", dflt[nf->kind],
			 nf->gpu);
	else if (nf->kind == NVM_NODE_GPU)
		snprintf(buf, len, "nvmediate/%s/%s%u", nf->set->name, named[nf->kind], nf->gpu);
	else
		snprintf(buf, len, "nvmediate/%s/%s", nf->set->name, named[nf->kind]);
}

static DEFINE_RATELIMIT_STATE(nvm_log_rs, DEFAULT_RATELIMIT_INTERVAL, DEFAULT_RATELIMIT_BURST);

/*
 * One line per refused, answered or audited call, in the format of
 * docs/operations.md; the word after the prefix is "refused" or "audit".
 */
static void nvm_log_call(const struct nvm_file *nf, const struct nvm_report *r)
{
	char comm[TASK_COMM_LEN], node[NVM_SET_NAME_MAX + 32], answer[24], *cg;

	if (!__ratelimit(&nvm_log_rs))
		return;
	cg = kmalloc(PATH_MAX, GFP_KERNEL);
	if (cg) {
		nvm_cgroup_path(cg, PATH_MAX);
		nvm_log_clean(cg);
	}
	get_task_comm(comm, current);
	nvm_log_clean(comm);
	nvm_node_name(nf, node, sizeof(node));
	if (r->err)
		snprintf(answer, sizeof(answer), "%d", r->err);
	else
		snprintf(answer, sizeof(answer), "status:0x%x", r->status);

	pr_info("%s pid=%d comm=%s cgroup=%s node=%s family=%s nr=0x%x name=%s size=%u rule=%s answer=%s\n",
		r->outcome == NVM_OUT_AUDITED ? "audit" : "refused", task_tgid_nr(current), comm,
		cg ? cg : "?", node, nvm_stat_family_words[r->family], r->nr, r->name ? r->name : "-",
		r->size, r->rule ? r->rule : "-", answer);
	kfree(cg);
}

/* Calls refused under the successor tier as the served ABI does not know them. */
static atomic64_t nvm_successor_unknown = ATOMIC64_INIT(0);

static bool nvm_ends_with(const char *s, const char *suffix)
{
	size_t n = strlen(s), m = strlen(suffix);

	return n >= m && !strcmp(s + n - m, suffix);
}

/*
 * A refusal that says the served ABI does not know the call as made: an
 * unknown escape, control, class or UVM command, or a payload of another
 * size than the ABI's (a struct that grew since).
 */
static bool nvm_rule_unknown(const char *rule)
{
	return rule && (nvm_ends_with(rule, "-unknown") || nvm_ends_with(rule, "-size"));
}

/**
 * nvm_stats_ioctl() - count, trace and log one ioctl on a mediated file
 * @nf: the file
 * @r: what the validator made of it (nvm_validate())
 * @ret: what the ioctl returns (%NVM_ANSWERED for an answer in the payload)
 *
 * Called once per ioctl, after the call, from any context an ioctl runs in.
 */
void nvm_stats_ioctl(struct nvm_file *nf, const struct nvm_report *r, long ret)
{
	if (ret == NVM_ANSWERED)
		ret = 0;
	if (nf->successor && r->outcome != NVM_OUT_FORWARDED && nvm_rule_unknown(r->rule))
		atomic64_inc(&nvm_successor_unknown);
	nvm_count(nf, r->family, r->outcome);
	trace_nvmediate_call(nf, r, ret);
	if (r->outcome != NVM_OUT_FORWARDED)
		nvm_log_call(nf, r);
}

/**
 * nvm_stats_file_op() - count and trace an mmap or a poll
 * @nf: the file
 * @family: %NVM_FAM_MMAP or %NVM_FAM_POLL
 * @ret: the driver's answer (the poll mask for a poll)
 */
void nvm_stats_file_op(struct nvm_file *nf, enum nvm_family family, long ret)
{
	nvm_count(nf, family, NVM_OUT_FORWARDED);
	trace_nvmediate_file(family, nf->kind, nf->gpu, ret);
}

/* Bit per node kind: its driver's absence was said, until an open works. */
static unsigned long nvm_absent_said;

/*
 * A driver that is not there is a configuration problem: said once, with
 * the remedy, and again only after it was fixed and came back.
 */
static void nvm_report_absent(enum nvm_kind kind, int ret)
{
	if (!ret) {
		if (test_bit(kind, &nvm_absent_said))
			clear_bit(kind, &nvm_absent_said);
		return;
	}
	if (ret != -ENXIO || kind == NVM_NODE_GPU || test_and_set_bit(kind, &nvm_absent_said))
		return;
	if (kind == NVM_NODE_UVM)
		pr_warn("cannot open nvidia-uvm (host node %s, module parameter uvm_path): opens of /dev/%s fail with ENXIO until nvidia-uvm is loaded and its node exists (e.g. 'modprobe nvidia-uvm; nvidia-modprobe -u -c0')\n",
			nvm_uvm_path, NVM_NODE_NAME_UVM);
	else
		pr_warn("cannot open the nvidia driver (195:255): opens of the mediated nodes fail with ENXIO until it is loaded ('modprobe nvidia')\n");
}

/* The record of @tgid, or NULL; under nvm_procs_lock. */
static struct nvm_proc *nvm_proc_find(struct pid *tgid)
{
	struct nvm_proc *p;

	lockdep_assert_held(&nvm_procs_lock);
	hash_for_each_possible(nvm_procs, p, node, (unsigned long)tgid)
		if (p->tgid == tgid)
			return p;
	return NULL;
}

/**
 * nvm_stats_attach() - give a new file the counts of the calling process
 * @nf: the file, opened but not yet counted
 *
 * Return: 0, or -ENOMEM when the process has no record and none can be
 * made (the open fails then).
 */
int nvm_stats_attach(struct nvm_file *nf)
{
	struct pid *tgid = task_tgid(current);
	struct nvm_proc *p, *fresh = NULL;

	for (;;) {
		mutex_lock(&nvm_procs_lock);
		p = nvm_proc_find(tgid);
		if (!p && fresh) {
			p = fresh;
			fresh = NULL;
			hash_add(nvm_procs, &p->node, (unsigned long)tgid);
		}
		if (p) {
			p->files++;
			break;
		}
		mutex_unlock(&nvm_procs_lock);
		fresh = kzalloc(sizeof(*fresh), GFP_KERNEL_ACCOUNT);
		if (!fresh)
			return -ENOMEM;
		fresh->tgid = get_pid(tgid);
		get_task_comm(fresh->comm, current);
	}
	mutex_unlock(&nvm_procs_lock);
	if (fresh) {
		put_pid(fresh->tgid);
		kfree(fresh);
	}
	nf->proc = p;
	return 0;
}

/**
 * nvm_stats_open() - count and trace an open
 * @nf: the new file, attached (nvm_stats_attach()), or NULL when the open
 *	failed
 * @kind: the node opened
 * @gpu: its GPU index
 * @ret: 0, or the open's negative errno
 */
void nvm_stats_open(struct nvm_file *nf, enum nvm_kind kind, unsigned int gpu, int ret)
{
	trace_nvmediate_file(NVM_FAM_OPEN, kind, gpu, ret);
	nvm_report_absent(kind, ret);
	nvm_count(nf, NVM_FAM_OPEN, nf ? NVM_OUT_FORWARDED : NVM_OUT_REFUSED);
}

/**
 * nvm_stats_release() - trace a release; the process's record goes with
 *	its last file
 * @nf: the file, attached, released after this returns
 */
void nvm_stats_release(struct nvm_file *nf)
{
	struct nvm_proc *p = nf->proc;
	bool last;

	trace_nvmediate_file(NVM_TRACE_RELEASE, nf->kind, nf->gpu, 0);
	mutex_lock(&nvm_procs_lock);
	last = !--p->files;
	if (last)
		hash_del(&p->node);
	mutex_unlock(&nvm_procs_lock);
	if (last) {
		put_pid(p->tgid);
		kfree(p);
	}
}

/* /sys/class/nvmediate/stats/<family>_<verdict> */
struct nvm_stat_attr {
	struct class_attribute ca;
	u8 family;
	u8 outcome;
};

static ssize_t nvm_stat_show(NVM_CLASS_CONST struct class *c,
			     NVM_CLASS_CONST struct class_attribute *a, char *buf)
{
	const struct nvm_stat_attr *sa = container_of(a, struct nvm_stat_attr, ca);

	return sysfs_emit(buf, "%llu\n", nvm_count_sum(sa->family, sa->outcome));
}

#define NVM_STAT_ATTR(_f, _o, _F, _O)						\
static struct nvm_stat_attr nvm_stat_##_f##_##_o = {				\
	.ca = __ATTR(_f##_##_o, 0444, nvm_stat_show, NULL),			\
	.family = _F,								\
	.outcome = _O,								\
}

NVM_STAT_ATTR(escape, forwarded, NVM_FAM_ESCAPE, NVM_OUT_FORWARDED);
NVM_STAT_ATTR(escape, refused, NVM_FAM_ESCAPE, NVM_OUT_REFUSED);
NVM_STAT_ATTR(escape, answered, NVM_FAM_ESCAPE, NVM_OUT_ANSWERED);
NVM_STAT_ATTR(escape, audited, NVM_FAM_ESCAPE, NVM_OUT_AUDITED);
NVM_STAT_ATTR(ctrl, forwarded, NVM_FAM_CTRL, NVM_OUT_FORWARDED);
NVM_STAT_ATTR(ctrl, refused, NVM_FAM_CTRL, NVM_OUT_REFUSED);
NVM_STAT_ATTR(ctrl, answered, NVM_FAM_CTRL, NVM_OUT_ANSWERED);
NVM_STAT_ATTR(ctrl, audited, NVM_FAM_CTRL, NVM_OUT_AUDITED);
NVM_STAT_ATTR(alloc, forwarded, NVM_FAM_ALLOC, NVM_OUT_FORWARDED);
NVM_STAT_ATTR(alloc, refused, NVM_FAM_ALLOC, NVM_OUT_REFUSED);
NVM_STAT_ATTR(alloc, answered, NVM_FAM_ALLOC, NVM_OUT_ANSWERED);
NVM_STAT_ATTR(alloc, audited, NVM_FAM_ALLOC, NVM_OUT_AUDITED);
NVM_STAT_ATTR(uvm, forwarded, NVM_FAM_UVM, NVM_OUT_FORWARDED);
NVM_STAT_ATTR(uvm, refused, NVM_FAM_UVM, NVM_OUT_REFUSED);
NVM_STAT_ATTR(uvm, answered, NVM_FAM_UVM, NVM_OUT_ANSWERED);
NVM_STAT_ATTR(uvm, audited, NVM_FAM_UVM, NVM_OUT_AUDITED);
NVM_STAT_ATTR(open, forwarded, NVM_FAM_OPEN, NVM_OUT_FORWARDED);
NVM_STAT_ATTR(open, refused, NVM_FAM_OPEN, NVM_OUT_REFUSED);
NVM_STAT_ATTR(open, answered, NVM_FAM_OPEN, NVM_OUT_ANSWERED);
NVM_STAT_ATTR(open, audited, NVM_FAM_OPEN, NVM_OUT_AUDITED);
NVM_STAT_ATTR(mmap, forwarded, NVM_FAM_MMAP, NVM_OUT_FORWARDED);
NVM_STAT_ATTR(mmap, refused, NVM_FAM_MMAP, NVM_OUT_REFUSED);
NVM_STAT_ATTR(mmap, answered, NVM_FAM_MMAP, NVM_OUT_ANSWERED);
NVM_STAT_ATTR(mmap, audited, NVM_FAM_MMAP, NVM_OUT_AUDITED);
NVM_STAT_ATTR(poll, forwarded, NVM_FAM_POLL, NVM_OUT_FORWARDED);
NVM_STAT_ATTR(poll, refused, NVM_FAM_POLL, NVM_OUT_REFUSED);
NVM_STAT_ATTR(poll, answered, NVM_FAM_POLL, NVM_OUT_ANSWERED);
NVM_STAT_ATTR(poll, audited, NVM_FAM_POLL, NVM_OUT_AUDITED);

/*
 * /sys/class/nvmediate/stats/exec_lock_held_1s and _max_ms: fd-carrying
 * calls that held their process's exec_update_lock a second or more, and
 * the longest hold (fdctx.c; docs/security.md, "What waits").
 */
static ssize_t exec_lock_held_1s_show(NVM_CLASS_CONST struct class *c,
				      NVM_CLASS_CONST struct class_attribute *a, char *buf)
{
	return sysfs_emit(buf, "%llu\n", nvm_fdctx_long_holds());
}

static ssize_t exec_lock_held_max_ms_show(NVM_CLASS_CONST struct class *c,
					  NVM_CLASS_CONST struct class_attribute *a, char *buf)
{
	return sysfs_emit(buf, "%u\n", nvm_fdctx_longest_hold_ms());
}

/*
 * /sys/class/nvmediate/stats/successor_unknown: calls refused under the
 * successor tier because the ABI serving it does not know them as made
 * (abi.c; README, "A driver newer than nvmediate").
 */
static ssize_t successor_unknown_show(NVM_CLASS_CONST struct class *c,
				      NVM_CLASS_CONST struct class_attribute *a, char *buf)
{
	return sysfs_emit(buf, "%lld\n", atomic64_read(&nvm_successor_unknown));
}

static CLASS_ATTR_RO(successor_unknown);
static CLASS_ATTR_RO(exec_lock_held_1s);
static CLASS_ATTR_RO(exec_lock_held_max_ms);

static struct attribute *nvm_stats_attrs[] = {
	&nvm_stat_escape_forwarded.ca.attr,
	&nvm_stat_escape_refused.ca.attr,
	&nvm_stat_escape_answered.ca.attr,
	&nvm_stat_escape_audited.ca.attr,
	&nvm_stat_ctrl_forwarded.ca.attr,
	&nvm_stat_ctrl_refused.ca.attr,
	&nvm_stat_ctrl_answered.ca.attr,
	&nvm_stat_ctrl_audited.ca.attr,
	&nvm_stat_alloc_forwarded.ca.attr,
	&nvm_stat_alloc_refused.ca.attr,
	&nvm_stat_alloc_answered.ca.attr,
	&nvm_stat_alloc_audited.ca.attr,
	&nvm_stat_uvm_forwarded.ca.attr,
	&nvm_stat_uvm_refused.ca.attr,
	&nvm_stat_uvm_answered.ca.attr,
	&nvm_stat_uvm_audited.ca.attr,
	&nvm_stat_open_forwarded.ca.attr,
	&nvm_stat_open_refused.ca.attr,
	&nvm_stat_open_answered.ca.attr,
	&nvm_stat_open_audited.ca.attr,
	&nvm_stat_mmap_forwarded.ca.attr,
	&nvm_stat_mmap_refused.ca.attr,
	&nvm_stat_mmap_answered.ca.attr,
	&nvm_stat_mmap_audited.ca.attr,
	&nvm_stat_poll_forwarded.ca.attr,
	&nvm_stat_poll_refused.ca.attr,
	&nvm_stat_poll_answered.ca.attr,
	&nvm_stat_poll_audited.ca.attr,
	&class_attr_exec_lock_held_1s.attr,
	&class_attr_exec_lock_held_max_ms.attr,
	&class_attr_successor_unknown.attr,
	NULL
};

const struct attribute_group nvm_stats_class_group = {
	.name = "stats",
	.attrs = nvm_stats_attrs,
};

/* debugfs nvmediate/procs: one line per process holding mediated files it opened. */
static int nvm_procs_show(struct seq_file *m, void *unused)
{
	char comm[TASK_COMM_LEN];
	struct nvm_proc *p;
	unsigned int f, o, bkt;

	mutex_lock(&nvm_procs_lock);
	hash_for_each(nvm_procs, bkt, p, node) {
		strscpy(comm, p->comm, sizeof(comm));
		nvm_log_clean(comm);
		seq_printf(m, "pid=%d comm=%s files=%u", pid_nr(p->tgid), comm, p->files);
		for (f = 0; f < NVM_FAM_COUNT; f++)
			for (o = 0; o < NVM_OUT_COUNT; o++)
				seq_printf(m, " %s_%s=%lld", nvm_stat_family_words[f],
					   nvm_outcome_names[o], atomic64_read(&p->count[f][o]));
		seq_putc(m, '\n');
	}
	mutex_unlock(&nvm_procs_lock);
	return 0;
}
DEFINE_SHOW_ATTRIBUTE(nvm_procs);

/**
 * nvm_stats_init() - create the debugfs files
 *
 * debugfs is optional: without it the counters are still in sysfs.
 *
 * Return: 0.
 */
int nvm_stats_init(void)
{
	nvm_debugfs = debugfs_create_dir(KBUILD_MODNAME, NULL);
	debugfs_create_file("procs", 0400, nvm_debugfs, NULL, &nvm_procs_fops);
	return 0;
}

void nvm_stats_exit(void)
{
	debugfs_remove(nvm_debugfs);
}
