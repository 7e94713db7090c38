// SPDX-License-Identifier: GPL-2.0
/*
 * Stand-in nvidia driver: the call log and state counters in debugfs.
 *
 * /sys/kernel/debug/nvidia-standin/calls holds one line per call received
 * (see README.md for the format), in a ring allocated once at load: the
 * last NVS_LOG_MAX_LINES lines that fit in log_kib KiB.  Writing "clear"
 * empties it and restarts seq at 0.  .../state shows the counters.
 */
#define pr_fmt(fmt) "nvidia-standin: " fmt

#include <linux/debugfs.h>
#include <linux/fs.h>
#include <linux/mm.h>		/* kvmalloc() before 5.16 */
#include <linux/module.h>
#include <linux/sched.h>
#include <linux/seq_file.h>
#include <linux/slab.h>
#include <linux/uaccess.h>
#include <linux/vmalloc.h>

#include "nvs.h"

#define NVS_LOG_MAX_LINES	65536
#define NVS_LOG_LINE_MAX	512

static struct {
	struct mutex lock;	/* leaf lock, guards everything below */
	char *buf;
	size_t cap;
	size_t head;		/* offset of the oldest byte */
	size_t used;
	u16 *lens;		/* ring of line lengths */
	unsigned int first;	/* index in lens of the oldest line */
	unsigned int lines;
	u64 seq;
	u64 dropped;
} nvs_log = {
	.lock = __MUTEX_INITIALIZER(nvs_log.lock),
};

static atomic_long_t nvs_counters[NVS_CNT_NR];

static const char *const nvs_counter_names[NVS_CNT_NR] = {
	[NVS_CNT_OPEN_FILES]	= "open_files",
	[NVS_CNT_CLIENTS]	= "clients",
	[NVS_CNT_OBJECTS]	= "objects",
	[NVS_CNT_OS_EVENTS]	= "os_events",
	[NVS_CNT_QUEUED_EVENTS]	= "queued_events",
	[NVS_CNT_MEMORY]	= "memory",
	[NVS_CNT_MEMORY_PAGES]	= "memory_pages",
	[NVS_CNT_MAP_CONTEXTS]	= "mapping_contexts",
	[NVS_CNT_VMAS]		= "vmas",
	[NVS_CNT_UVM_FILES]	= "uvm_files",
	[NVS_CNT_UVM_VA_SPACES]	= "uvm_va_spaces",
	[NVS_CNT_UVM_GPUS]	= "uvm_gpus",
	[NVS_CNT_UVM_VMAS]	= "uvm_vmas",
	[NVS_CNT_UVM_PAGES]	= "uvm_pages",
	[NVS_CNT_REREAD_DIFFER]	= "reread_differ",
	[NVS_CNT_EXTRA_FDS]	= "extra_fds",
};

static struct dentry *nvs_dbg_dir;
static const struct file_operations *nvs_uvm_fops;

void nvs_count(enum nvs_counter c, long delta)
{
	atomic_long_add(delta, &nvs_counters[c]);
}
EXPORT_SYMBOL_GPL(nvs_count);

static void nvs_log_drop_oldest(void)
{
	size_t len = nvs_log.lens[nvs_log.first];

	nvs_log.head = (nvs_log.head + len) % nvs_log.cap;
	nvs_log.used -= len;
	nvs_log.first = (nvs_log.first + 1) % NVS_LOG_MAX_LINES;
	nvs_log.lines--;
	nvs_log.dropped++;
}

static void nvs_log_append(const char *line, size_t n)
{
	size_t pos, part;

	lockdep_assert_held(&nvs_log.lock);
	while (nvs_log.lines &&
	       (nvs_log.used + n > nvs_log.cap ||
		nvs_log.lines >= NVS_LOG_MAX_LINES))
		nvs_log_drop_oldest();

	pos = (nvs_log.head + nvs_log.used) % nvs_log.cap;
	part = min(n, nvs_log.cap - pos);
	memcpy(nvs_log.buf + pos, line, part);
	memcpy(nvs_log.buf, line + part, n - part);
	nvs_log.lens[(nvs_log.first + nvs_log.lines) % NVS_LOG_MAX_LINES] = n;
	nvs_log.lines++;
	nvs_log.used += n;
}

void nvs_log_call(const char *kind, const char *fmt, ...)
{
	char line[NVS_LOG_LINE_MAX];
	va_list args;
	size_t n;

	if (!READ_ONCE(nvs_log_calls))
		return;
	mutex_lock(&nvs_log.lock);
	if (!nvs_log.buf)
		goto out;
	n = scnprintf(line, sizeof(line) - 1, "seq=%llu tgid=%d file=%s ",
		      nvs_log.seq++, task_tgid_nr(current), kind);
	va_start(args, fmt);
	n += vscnprintf(line + n, sizeof(line) - 1 - n, fmt, args);
	va_end(args);
	line[n++] = '\n';
	nvs_log_append(line, n);
out:
	mutex_unlock(&nvs_log.lock);
}
EXPORT_SYMBOL_GPL(nvs_log_call);

void nvs_call_add(struct nvs_call *c, const char *fmt, ...)
{
	va_list args;

	va_start(args, fmt);
	c->len += vscnprintf(c->extra + c->len, sizeof(c->extra) - c->len,
			     fmt, args);
	va_end(args);
}

void nvs_register_uvm_fops(const struct file_operations *fops)
{
	WRITE_ONCE(nvs_uvm_fops, fops);
}
EXPORT_SYMBOL_GPL(nvs_register_uvm_fops);

const struct file_operations *nvs_uvm_fops_get(void)
{
	return READ_ONCE(nvs_uvm_fops);
}

void nvs_file_kind(struct file *filp, char *buf)
{
	if (!filp)
		strscpy(buf, "badf", NVS_KIND_LEN);
	else if (filp->f_op == &nvs_fops)
		nvs_kind_of_minor(((struct nvs_file *)filp->private_data)->minor,
				  buf);
	else if (filp->f_op == nvs_uvm_fops_get())
		strscpy(buf, "uvm", NVS_KIND_LEN);
	else
		nvs_caps_file_kind(filp, buf);
	if (!buf[0])
		strscpy(buf, "foreign", NVS_KIND_LEN);
}
EXPORT_SYMBOL_GPL(nvs_file_kind);

/* calls: a snapshot taken at open, so that a reader sees whole lines. */
struct nvs_snapshot {
	size_t len;
	char data[];
};

static int nvs_calls_open(struct inode *inode, struct file *filp)
{
	struct nvs_snapshot *snap;
	size_t part;

	if (!(filp->f_mode & FMODE_READ))
		return 0;
	mutex_lock(&nvs_log.lock);
	snap = kvmalloc(struct_size(snap, data, nvs_log.used), GFP_KERNEL);
	if (snap) {
		snap->len = nvs_log.used;
		part = min(nvs_log.used, nvs_log.cap - nvs_log.head);
		memcpy(snap->data, nvs_log.buf + nvs_log.head, part);
		memcpy(snap->data + part, nvs_log.buf, nvs_log.used - part);
	}
	mutex_unlock(&nvs_log.lock);
	if (!snap)
		return -ENOMEM;
	filp->private_data = snap;
	return 0;
}

static ssize_t nvs_calls_read(struct file *filp, char __user *ubuf,
			      size_t count, loff_t *ppos)
{
	struct nvs_snapshot *snap = filp->private_data;

	if (!snap)
		return -EINVAL;
	return simple_read_from_buffer(ubuf, count, ppos, snap->data,
				       snap->len);
}

static ssize_t nvs_calls_write(struct file *filp, const char __user *ubuf,
			       size_t count, loff_t *ppos)
{
	char cmd[16];

	if (count >= sizeof(cmd))
		return -EINVAL;
	if (copy_from_user(cmd, ubuf, count))
		return -EFAULT;
	cmd[count] = '\0';
	if (strcmp(strim(cmd), "clear"))
		return -EINVAL;

	mutex_lock(&nvs_log.lock);
	nvs_log.head = 0;
	nvs_log.used = 0;
	nvs_log.first = 0;
	nvs_log.lines = 0;
	nvs_log.seq = 0;
	nvs_log.dropped = 0;
	mutex_unlock(&nvs_log.lock);
	return count;
}

static int nvs_calls_release(struct inode *inode, struct file *filp)
{
	kvfree(filp->private_data);
	return 0;
}

static const struct file_operations nvs_calls_fops = {
	.owner = THIS_MODULE,
	.open = nvs_calls_open,
	.read = nvs_calls_read,
	.write = nvs_calls_write,
	.release = nvs_calls_release,
	.llseek = default_llseek,
};

static int nvs_state_show(struct seq_file *m, void *v)
{
	int i;

	for (i = 0; i < NVS_CNT_NR; i++)
		seq_printf(m, "%s=%ld\n", nvs_counter_names[i],
			   atomic_long_read(&nvs_counters[i]));
	mutex_lock(&nvs_log.lock);
	seq_printf(m, "log_lines=%u\nlog_bytes=%zu\nlog_dropped=%llu\n",
		   nvs_log.lines, nvs_log.used, nvs_log.dropped);
	mutex_unlock(&nvs_log.lock);
	return 0;
}
DEFINE_SHOW_ATTRIBUTE(nvs_state);

int nvs_log_init(unsigned int kib)
{
	size_t cap = (size_t)clamp(kib, 64u, 262144u) * 1024;

	BUILD_BUG_ON(NVS_LOG_LINE_MAX > U16_MAX);
	nvs_log.buf = vmalloc(cap);
	nvs_log.lens = vmalloc(array_size(NVS_LOG_MAX_LINES,
					  sizeof(*nvs_log.lens)));
	if (!nvs_log.buf || !nvs_log.lens) {
		vfree(nvs_log.buf);
		vfree(nvs_log.lens);
		nvs_log.buf = NULL;
		nvs_log.lens = NULL;
		return -ENOMEM;
	}
	nvs_log.cap = cap;

	/* debugfs is optional: the driver works without it. */
	nvs_dbg_dir = debugfs_create_dir("nvidia-standin", NULL);
	debugfs_create_file("calls", 0600, nvs_dbg_dir, NULL, &nvs_calls_fops);
	debugfs_create_file("state", 0444, nvs_dbg_dir, NULL, &nvs_state_fops);
	if (nvs_rx_init(nvs_dbg_dir)) {
		debugfs_remove(nvs_dbg_dir);
		vfree(nvs_log.buf);
		vfree(nvs_log.lens);
		nvs_log.buf = NULL;
		nvs_log.lens = NULL;
		return -ENOMEM;
	}
	return 0;
}

void nvs_log_exit(void)
{
	debugfs_remove(nvs_dbg_dir);
	nvs_rx_exit();
	mutex_lock(&nvs_log.lock);
	vfree(nvs_log.buf);
	vfree(nvs_log.lens);
	nvs_log.buf = NULL;
	nvs_log.lens = NULL;
	mutex_unlock(&nvs_log.lock);
}
