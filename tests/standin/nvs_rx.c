// SPDX-License-Identifier: GPL-2.0
/*
 * Stand-in nvidia driver: what the hardening tests ask of the driver.
 *
 *  - received: a bounded, deduplicated record of the calls the driver
 *    received, one entry per (family, a, b, c) with a count, so that a test
 *    can check afterwards that every one satisfies the ABI descriptor.
 *  - watch: a short list of (family, a, b, c) patterns a test declares
 *    forbidden (values the mediator must refuse); every received call that
 *    matches one counts a hit.  Nothing is refused: the driver only counts.
 *  - fault: the next N ioctls (nvidia and nvidia-uvm) sleep interruptibly
 *    and/or fail with an errno, after their payload was copied in.
 *
 * The values are read where the real driver reads them: from the kernel
 * copy of the top-level payload, and from the nested params when the
 * handler copies those (README.md lists the families and their fields).
 * All state is behind one spinlock (a leaf lock); the fault sleep runs
 * without it.
 */
#define pr_fmt(fmt) "nvidia-standin: " fmt

#include <linux/debugfs.h>
#include <linux/delay.h>
#include <linux/fs.h>
#include <linux/hash.h>
#include <linux/mm.h>		/* kvmalloc() before 5.16 */
#include <linux/module.h>
#include <linux/sched/signal.h>
#include <linux/seq_file.h>
#include <linux/spinlock.h>
#include <linux/string.h>
#include <linux/uaccess.h>

#include "nvs.h"

#define NVS_RX_BITS	12
#define NVS_RX_SLOTS	(1u << NVS_RX_BITS)	/* record entries, at most */
#define NVS_WATCH_MAX	32

static const char *const nvs_rx_names[NVS_RX_NR] = {
	[NVS_RX_ESC]	= "esc",
	[NVS_RX_XFER]	= "xfer",
	[NVS_RX_CTRL]	= "ctrl",
	[NVS_RX_CLASS]	= "class",
	[NVS_RX_UVM]	= "uvm",
	[NVS_RX_FD]	= "fd",
};

struct nvs_rx_entry {
	u32 a, b, c;
	u8 fam;			/* NVS_RX_*, NVS_RX_NR when free */
	u64 count;
};

/* A pattern: bit i of @any set means field i (a, b, c) matches anything. */
struct nvs_watch {
	u32 v[3];
	u8 fam;
	u8 any;
	u64 hits;
};

static DEFINE_SPINLOCK(nvs_rx_lock);
static struct nvs_rx_entry *nvs_rx_table;
static unsigned int nvs_rx_used;
static u64 nvs_rx_total, nvs_rx_overflow;
static struct nvs_watch nvs_watches[NVS_WATCH_MAX];
static unsigned int nvs_nwatches;

static struct {
	int count;		/* ioctls still to fault */
	int err;		/* positive errno, 0: answer normally */
	unsigned int sleep_ms;
	u64 taken;
} nvs_fault;

/**
 * nvs_rx() - record one received call and count the watches it matches
 * @fam: NVS_RX_*
 * @a: first field (escape number, command, class, fd kind)
 * @b: second field (size, paramsSize)
 * @c: third field (node and type, flags)
 *
 * Process context or not: only a spinlock is taken.
 */
void nvs_rx(enum nvs_rx_family fam, u32 a, u32 b, u32 c)
{
	const u32 v[3] = { a, b, c };
	unsigned long flags;
	unsigned int i, h;

	spin_lock_irqsave(&nvs_rx_lock, flags);
	nvs_rx_total++;
	for (i = 0; i < nvs_nwatches; i++) {
		struct nvs_watch *w = &nvs_watches[i];
		unsigned int k;

		if (w->fam != fam)
			continue;
		for (k = 0; k < 3; k++)
			if (!(w->any & BIT(k)) && w->v[k] != v[k])
				break;
		if (k == 3)
			w->hits++;
	}
	if (!nvs_rx_table)
		goto out;
	h = hash_32(a ^ hash_32(b ^ hash_32(c ^ fam, 32), 32), NVS_RX_BITS);
	for (i = 0; i < NVS_RX_SLOTS; i++) {
		struct nvs_rx_entry *e = &nvs_rx_table[(h + i) % NVS_RX_SLOTS];

		if (e->fam == NVS_RX_NR) {
			/* Keep a slot free so that every probe ends. */
			if (nvs_rx_used + 1 >= NVS_RX_SLOTS) {
				nvs_rx_overflow++;
				break;
			}
			e->fam = fam;
			e->a = a;
			e->b = b;
			e->c = c;
			e->count = 1;
			nvs_rx_used++;
			break;
		}
		if (e->fam == fam && e->a == a && e->b == b && e->c == c) {
			e->count++;
			break;
		}
	}
out:
	spin_unlock_irqrestore(&nvs_rx_lock, flags);
}
EXPORT_SYMBOL_GPL(nvs_rx);

/**
 * nvs_rx_fd() - record what an fd number found in a payload resolved to
 * @filp: the file fget() returned, or NULL
 */
void nvs_rx_fd(struct file *filp)
{
	u32 kind = NVS_RX_FD_BADF;

	if (filp && filp->f_op == &nvs_fops)
		kind = nvs_is_ctl(filp->private_data) ? NVS_RX_FD_CTL : NVS_RX_FD_GPU;
	else if (filp && filp->f_op == nvs_uvm_fops_get())
		kind = NVS_RX_FD_UVM;
	else if (filp)
		kind = NVS_RX_FD_FOREIGN;
	nvs_rx(NVS_RX_FD, kind, 0, 0);
}
EXPORT_SYMBOL_GPL(nvs_rx_fd);

/**
 * nvs_fault_take() - the fault the next ioctl must take, if any
 *
 * Called by every ioctl after its payload was copied in.  Sleeps
 * interruptibly when the fault says so.
 *
 * Return: 0 to answer normally, or the negative errno to return (-EINTR
 * when a signal ended the sleep).
 */
int nvs_fault_take(void)
{
	unsigned int ms;
	int err;

	spin_lock_irq(&nvs_rx_lock);
	if (nvs_fault.count <= 0) {
		spin_unlock_irq(&nvs_rx_lock);
		return 0;
	}
	nvs_fault.count--;
	nvs_fault.taken++;
	ms = nvs_fault.sleep_ms;
	err = nvs_fault.err;
	spin_unlock_irq(&nvs_rx_lock);

	if (ms && msleep_interruptible(ms) && signal_pending(current))
		return -EINTR;
	return err ? -err : 0;
}
EXPORT_SYMBOL_GPL(nvs_fault_take);

/* ---- debugfs ---- */

static int nvs_received_show(struct seq_file *m, void *v)
{
	struct nvs_rx_entry *copy;
	unsigned int i, n = 0;
	u64 total, overflow;

	copy = kvmalloc_array(NVS_RX_SLOTS, sizeof(*copy), GFP_KERNEL);
	if (!copy)
		return -ENOMEM;
	spin_lock_irq(&nvs_rx_lock);
	for (i = 0; nvs_rx_table && i < NVS_RX_SLOTS; i++)
		if (nvs_rx_table[i].fam != NVS_RX_NR)
			copy[n++] = nvs_rx_table[i];
	total = nvs_rx_total;
	overflow = nvs_rx_overflow;
	spin_unlock_irq(&nvs_rx_lock);

	seq_printf(m, "total=%llu entries=%u overflow=%llu\n", total, n, overflow);
	for (i = 0; i < n; i++)
		seq_printf(m, "%s 0x%x 0x%x 0x%x %llu\n", nvs_rx_names[copy[i].fam],
			   copy[i].a, copy[i].b, copy[i].c, copy[i].count);
	kvfree(copy);
	return 0;
}

static void nvs_rx_clear(void)
{
	unsigned int i;

	spin_lock_irq(&nvs_rx_lock);
	for (i = 0; nvs_rx_table && i < NVS_RX_SLOTS; i++)
		nvs_rx_table[i].fam = NVS_RX_NR;
	nvs_rx_used = 0;
	nvs_rx_total = 0;
	nvs_rx_overflow = 0;
	spin_unlock_irq(&nvs_rx_lock);
}

/* Read one short line written to a debugfs file. */
static int nvs_dbg_line(const char __user *ubuf, size_t count, char *buf, size_t size)
{
	if (count >= size)
		return -EINVAL;
	if (copy_from_user(buf, ubuf, count))
		return -EFAULT;
	buf[count] = '\0';
	strim(buf);
	return 0;
}

static ssize_t nvs_received_write(struct file *filp, const char __user *ubuf,
				  size_t count, loff_t *ppos)
{
	char buf[16];
	int err = nvs_dbg_line(ubuf, count, buf, sizeof(buf));

	if (err)
		return err;
	if (strcmp(buf, "clear"))
		return -EINVAL;
	nvs_rx_clear();
	return count;
}

static int nvs_received_open(struct inode *inode, struct file *filp)
{
	return single_open(filp, nvs_received_show, NULL);
}

static const struct file_operations nvs_received_fops = {
	.owner = THIS_MODULE,
	.open = nvs_received_open,
	.read = seq_read,
	.write = nvs_received_write,
	.llseek = seq_lseek,
	.release = single_release,
};

static int nvs_watch_show(struct seq_file *m, void *v)
{
	struct nvs_watch copy[NVS_WATCH_MAX];
	unsigned int i, k, n;

	spin_lock_irq(&nvs_rx_lock);
	n = nvs_nwatches;
	memcpy(copy, nvs_watches, sizeof(copy));
	spin_unlock_irq(&nvs_rx_lock);

	for (i = 0; i < n; i++) {
		seq_printf(m, "%s", nvs_rx_names[copy[i].fam]);
		for (k = 0; k < 3; k++) {
			if (copy[i].any & BIT(k))
				seq_puts(m, " *");
			else
				seq_printf(m, " 0x%x", copy[i].v[k]);
		}
		seq_printf(m, " hits=%llu\n", copy[i].hits);
	}
	return 0;
}

/* "FAMILY A B C", each field a number or '*'; or "clear". */
static ssize_t nvs_watch_write(struct file *filp, const char __user *ubuf,
			       size_t count, loff_t *ppos)
{
	struct nvs_watch w = {};
	char buf[96], *p, *tok;
	unsigned int k;
	int err;

	err = nvs_dbg_line(ubuf, count, buf, sizeof(buf));
	if (err)
		return err;
	if (!strcmp(buf, "clear")) {
		spin_lock_irq(&nvs_rx_lock);
		nvs_nwatches = 0;
		spin_unlock_irq(&nvs_rx_lock);
		return count;
	}
	p = buf;
	tok = strsep(&p, " ");
	for (w.fam = 0; w.fam < NVS_RX_NR; w.fam++)
		if (!strcmp(tok, nvs_rx_names[w.fam]))
			break;
	if (w.fam == NVS_RX_NR)
		return -EINVAL;
	for (k = 0; k < 3; k++) {
		tok = strsep(&p, " ");
		if (!tok || !*tok)
			return -EINVAL;
		if (!strcmp(tok, "*"))
			w.any |= BIT(k);
		else if (kstrtou32(tok, 0, &w.v[k]))
			return -EINVAL;
	}
	if (p)
		return -EINVAL;

	spin_lock_irq(&nvs_rx_lock);
	if (nvs_nwatches < NVS_WATCH_MAX)
		nvs_watches[nvs_nwatches++] = w;
	else
		err = -ENOSPC;
	spin_unlock_irq(&nvs_rx_lock);
	return err ? err : count;
}

static int nvs_watch_open(struct inode *inode, struct file *filp)
{
	return single_open(filp, nvs_watch_show, NULL);
}

static const struct file_operations nvs_watch_fops = {
	.owner = THIS_MODULE,
	.open = nvs_watch_open,
	.read = seq_read,
	.write = nvs_watch_write,
	.llseek = seq_lseek,
	.release = single_release,
};

static int nvs_fault_show(struct seq_file *m, void *v)
{
	spin_lock_irq(&nvs_rx_lock);
	seq_printf(m, "count=%d errno=%d sleep_ms=%u taken=%llu\n", nvs_fault.count,
		   nvs_fault.err, nvs_fault.sleep_ms, nvs_fault.taken);
	spin_unlock_irq(&nvs_rx_lock);
	return 0;
}

/* "COUNT ERRNO SLEEP_MS": the next COUNT ioctls take this fault; "off". */
static ssize_t nvs_fault_write(struct file *filp, const char __user *ubuf,
			       size_t count, loff_t *ppos)
{
	unsigned int ms = 0;
	int n = 0, e = 0, err;
	char buf[48];

	err = nvs_dbg_line(ubuf, count, buf, sizeof(buf));
	if (err)
		return err;
	if (strcmp(buf, "off") &&
	    (sscanf(buf, "%d %d %u", &n, &e, &ms) != 3 || n < 0 || e < 0 || e > 4095 ||
	     ms > 600000))
		return -EINVAL;
	spin_lock_irq(&nvs_rx_lock);
	nvs_fault.count = n;
	nvs_fault.err = e;
	nvs_fault.sleep_ms = ms;
	nvs_fault.taken = 0;
	spin_unlock_irq(&nvs_rx_lock);
	return count;
}

static int nvs_fault_open(struct inode *inode, struct file *filp)
{
	return single_open(filp, nvs_fault_show, NULL);
}

static const struct file_operations nvs_fault_fops = {
	.owner = THIS_MODULE,
	.open = nvs_fault_open,
	.read = seq_read,
	.write = nvs_fault_write,
	.llseek = seq_lseek,
	.release = single_release,
};

/**
 * nvs_rx_init() - allocate the record, create the debugfs files
 * @dir: the stand-in's debugfs directory (may be an error pointer)
 *
 * Return: 0 or -ENOMEM.
 */
int nvs_rx_init(struct dentry *dir)
{
	nvs_rx_table = kvmalloc_array(NVS_RX_SLOTS, sizeof(*nvs_rx_table), GFP_KERNEL);
	if (!nvs_rx_table)
		return -ENOMEM;
	nvs_rx_clear();
	debugfs_create_file("received", 0600, dir, NULL, &nvs_received_fops);
	debugfs_create_file("watch", 0600, dir, NULL, &nvs_watch_fops);
	debugfs_create_file("fault", 0600, dir, NULL, &nvs_fault_fops);
	return 0;
}

/* After the debugfs directory is gone. */
void nvs_rx_exit(void)
{
	struct nvs_rx_entry *table;

	spin_lock_irq(&nvs_rx_lock);
	table = nvs_rx_table;
	nvs_rx_table = NULL;
	spin_unlock_irq(&nvs_rx_lock);
	kvfree(table);
}
