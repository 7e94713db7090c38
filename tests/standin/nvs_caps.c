// SPDX-License-Identifier: GPL-2.0
/*
 * Stand-in nvidia driver: capability files, MIG instances, IMEX channels.
 *
 * What kernel-open/nvidia/nv-caps.c, nv-caps-imex.c and RM's os.c
 * (osRmCapRegister*, osRmCapAcquire) make and check, on a GPU-less machine:
 *
 *  - the character region "nvidia-caps" (dynamic major, 8192 minors) whose
 *    files have their own file_operations and open for any minor; a file's
 *    capability is its minor, fixed by a table at load (nvdrv.h);
 *  - /proc/driver/nvidia-caps/{mig,nvlink,sys}-minors, that table;
 *  - /proc/driver/nvidia/capabilities/: mig/config, mig/monitor,
 *    fabric-imex-mgmt, gpu<minor>/mig/ and, for each GPU instance and
 *    compute instance of the mig= parameter, gi<swizzId>/access and
 *    gi<swizzId>/ci<id>/access, each reading DeviceFileMinor/Mode/Modify;
 *  - /dev/nvidia-caps/nvidia-cap<minor> for each of those files, a
 *    convenience (cap_nodes, default on) the real driver does not have:
 *    nvidia-modprobe makes them from the proc files;
 *  - the character region "nvidia-caps-imex-channels", minor = channel,
 *    and /dev/nvidia-caps-imex-channels/channel0 only when asked for, as the
 *    driver does.
 *
 * The MIG topology is fixed at load (mig=): RM creates and destroys
 * instances through privileged controls the stand-in does not model.
 */
#define pr_fmt(fmt) "nvidia-standin: " fmt

#include <linux/cdev.h>
#include <linux/device.h>
#include <linux/fdtable.h>
#include <linux/file.h>
#include <linux/fs.h>
#include <linux/module.h>
#include <linux/proc_fs.h>
#include <linux/sched.h>
#include <linux/sched/task.h>
#include <linux/seq_file.h>
#include <linux/slab.h>
#include <linux/uaccess.h>

#include "nvs.h"

static char *mig = "";
module_param(mig, charp, 0444);
MODULE_PARM_DESC(mig, "MIG instances at load: GPU[:SWIZZID[:CI]],... (a GPU named alone is in MIG mode without instances; default none)");

static int NVreg_ImexChannelCount = NVD_IMEX_DEFAULT_CHANNELS;
module_param(NVreg_ImexChannelCount, int, 0444);
MODULE_PARM_DESC(NVreg_ImexChannelCount, "IMEX channels, 0 disables (from 550.40.53; default 2048)");

static int NVreg_CreateImexChannel0;
module_param(NVreg_CreateImexChannel0, int, 0444);
MODULE_PARM_DESC(NVreg_CreateImexChannel0, "1: make /dev/nvidia-caps-imex-channels/channel0 (from 555.42.02; default 0)");

static int NVreg_ModifyDeviceFiles = 1;
module_param(NVreg_ModifyDeviceFiles, int, 0444);
MODULE_PARM_DESC(NVreg_ModifyDeviceFiles, "DeviceFileModify of new capability files (default 1)");

static bool cap_nodes = true;
module_param(cap_nodes, bool, 0444);
MODULE_PARM_DESC(cap_nodes, "make /dev/nvidia-caps/nvidia-cap<minor> for each capability file (default on; the real driver leaves this to nvidia-modprobe)");

unsigned int nvs_imex_channels;

/* One capability file. */
struct nvs_cap {
	int minor;
	int mode;		/* DeviceFileMode, the permissions RM gave */
	int modify;		/* DeviceFileModify, writable through the file */
	struct proc_dir_entry *pde;
	bool node;		/* /dev/nvidia-caps/nvidia-cap<minor> made */
};

enum { NVS_SYSCAP_CONFIG, NVS_SYSCAP_MONITOR, NVS_SYSCAP_IMEX_MGMT, NVS_SYSCAP_NR };

static struct {
	dev_t devt;
	struct cdev cdev;
	bool cdev_added;
	struct class *class;
	struct proc_dir_entry *minors_dir;	/* /proc/driver/nvidia-caps */
	struct proc_dir_entry *root;		/* /proc/driver/nvidia/capabilities */
	struct nvs_cap sys[NVS_SYSCAP_NR];
	struct nvs_cap *mig;			/* nvs_ngpus * NVD_CAP_MINORS_PER_GPU */
	/* IMEX channels */
	dev_t imex_devt;
	struct cdev imex_cdev;
	unsigned int imex_count;		/* the region's size, 0: none */
	struct class *imex_class;
	bool imex_channel0;
} nvs_caps;

/* ---- the cap files: nv_cap_drv_open/release do nothing ---- */

static int nvs_cap_open(struct inode *inode, struct file *file)
{
	return 0;
}

static int nvs_cap_release(struct inode *inode, struct file *file)
{
	return 0;
}

static const struct file_operations nvs_cap_fops = {
	.owner = THIS_MODULE,
	.open = nvs_cap_open,
	.release = nvs_cap_release,
};

static const struct file_operations nvs_imex_fops = {
	.owner = THIS_MODULE,
	.open = nvs_cap_open,
	.release = nvs_cap_release,
};

void nvs_caps_file_kind(struct file *filp, char *buf)
{
	unsigned int minor = MINOR(file_inode(filp)->i_rdev);

	if (filp->f_op == &nvs_cap_fops)
		snprintf(buf, NVS_KIND_LEN, "cap%u", minor);
	else if (filp->f_op == &nvs_imex_fops)
		snprintf(buf, NVS_KIND_LEN, "imex%u", minor);
	else
		buf[0] = '\0';
}

/**
 * nvs_cap_validate_and_dup() - nv_cap_validate_and_dup_fd()
 * @fd: the caller's descriptor (capDescriptor read as an int)
 * @minor: the minor of the capability wanted
 *
 * The file must be in the CALLING process's table, be a cap file (its
 * f_op) and have @minor; then it is installed again at the lowest free
 * number, close-on-exec, so that the holder shows in lsof.
 *
 * Return: the new descriptor, or -1.
 */
int nvs_cap_validate_and_dup(int fd, int minor)
{
	struct file *file = fget(fd);
	int dup_fd;

	if (!file)
		return -1;
	if (file->f_op != &nvs_cap_fops || MINOR(file_inode(file)->i_rdev) != minor)
		goto err;
	dup_fd = get_unused_fd_flags(O_CLOEXEC);
	if (dup_fd < 0)
		goto err;
	fd_install(dup_fd, file);
	return dup_fd;
err:
	fput(file);
	return -1;
}

/**
 * nvs_cap_close_fd() - nv_cap_close_fd(): close a descriptor RM duplicated
 * @fd: the number it was installed at
 *
 * In the calling process, and only while that number still holds a cap
 * file (the process may have closed it and reused the number, or be
 * exiting, its table gone; a free may even run in another process).
 *
 * Return: whether it was closed.
 */
bool nvs_cap_close_fd(int fd)
{
	struct file *file;
	bool cap;

	if (fd < 0)
		return false;
	task_lock(current);
	if (!current->files) {
		task_unlock(current);
		return false;
	}
	file = fget(fd);
	if (!file) {
		task_unlock(current);
		return false;
	}
	cap = file->f_op == &nvs_cap_fops;
	fput(file);
	if (cap)
		close_fd(fd);
	task_unlock(current);
	return cap;
}

/* nv_caps_imex_channel_get(): the channel of an IMEX channel file, or -1. */
int nvs_imex_channel_get(int fd)
{
	struct file *file = fget(fd);
	int channel = -1;

	if (!file)
		return -1;
	if (file->f_op == &nvs_imex_fops)
		channel = MINOR(file_inode(file)->i_rdev);
	fput(file);
	return channel;
}

/*
 * The stand-in's MIG UUIDs (RM hashes the chip and the instance): bytes
 * b0..bc, then the GPU, the swizzId and the compute instance (ff for the
 * GPU instance itself).
 */
void nvs_mig_uuid(unsigned int gpu, u32 swizz, u32 ci, u8 *uuid)
{
	unsigned int i;

	for (i = 0; i < 13; i++)
		uuid[i] = 0xb0 + i;
	uuid[13] = gpu;
	uuid[14] = swizz;
	uuid[15] = ci;
}

/* ---- /proc/driver/nvidia/capabilities: the cap files ---- */

struct nvs_cap_priv {
	int minor, mode, modify;
	char buf[NVD_CAP_PROC_WRITE_BUF];
	size_t off;
};

static int nvs_cap_proc_show(struct seq_file *m, void *v)
{
	const struct nvs_cap_priv *p = m->private;

	seq_printf(m, "DeviceFileMinor: %d\n", p->minor);
	seq_printf(m, "DeviceFileMode: %d\n", p->mode);
	seq_printf(m, "DeviceFileModify: %d\n", p->modify);
	return 0;
}

/* The values are taken at open, as nv_cap_procfs_open() takes them. */
static int nvs_cap_proc_open(struct inode *inode, struct file *file)
{
	const struct nvs_cap *cap = nvs_pde_data(inode);
	struct nvs_cap_priv *p = kzalloc(sizeof(*p), GFP_KERNEL);
	int rc;

	if (!p)
		return -ENOMEM;
	p->minor = cap->minor;
	p->mode = cap->mode;
	p->modify = READ_ONCE(cap->modify);
	rc = single_open(file, nvs_cap_proc_show, p);
	if (rc)
		kfree(p);
	return rc;
}

/* Writes gather in the open file; the release applies them. */
static ssize_t nvs_cap_proc_write(struct file *file, const char __user *ubuf,
				  size_t count, loff_t *pos)
{
	struct nvs_cap_priv *p = ((struct seq_file *)file->private_data)->private;
	size_t left = sizeof(p->buf) - p->off - 1;

	if (!count)
		return -EINVAL;
	if (!left || count > left)
		return -ENOSPC;
	if (copy_from_user(p->buf + p->off, ubuf, count))
		return -EFAULT;
	p->off += count;
	p->buf[p->off] = '\0';
	*pos = p->off;
	return count;
}

static int nvs_cap_proc_release(struct inode *inode, struct file *file)
{
	struct nvs_cap *cap = nvs_pde_data(inode);
	struct nvs_cap_priv *p = ((struct seq_file *)file->private_data)->private;
	int modify;

	single_release(inode, file);
	if (p->off && sscanf(p->buf, "DeviceFileModify: %d", &modify) == 1)
		WRITE_ONCE(cap->modify, modify);
	kfree(p);
	return 0;
}

static const struct proc_ops nvs_cap_proc_ops = {
	.proc_open = nvs_cap_proc_open,
	.proc_release = nvs_cap_proc_release,
	.proc_write = nvs_cap_proc_write,
	.proc_read = seq_read,
	.proc_lseek = seq_lseek,
};

static char *nvs_cap_devnode(NVS_DEVNODE_CONST struct device *dev, umode_t *mode)
{
	const struct nvs_cap *cap = dev_get_drvdata(dev);

	if (mode && cap)
		*mode = cap->mode;
	return NULL;
}

/* os_nv_cap_create_file_entry(): the proc file; then the stand-in's node. */
static int nvs_cap_file(struct nvs_cap *cap, struct proc_dir_entry *dir, const char *name,
			int minor, int mode)
{
	struct device *dev;

	cap->minor = minor;
	cap->mode = mode;
	cap->modify = NVreg_ModifyDeviceFiles;
	cap->pde = proc_create_data(name, S_IFREG | 0444, dir, &nvs_cap_proc_ops, cap);
	if (!cap->pde)
		return -ENOMEM;
	if (!cap_nodes)
		return 0;
	dev = device_create(nvs_caps.class, NULL, MKDEV(MAJOR(nvs_caps.devt), minor), cap,
			    "nvidia-caps!nvidia-cap%d", minor);
	if (IS_ERR(dev))
		return PTR_ERR(dev);
	cap->node = true;
	return 0;
}

static struct proc_dir_entry *nvs_cap_dir(const char *name, struct proc_dir_entry *parent)
{
	return proc_mkdir_mode(name, S_IFDIR | 0555, parent);
}

static struct nvs_cap *nvs_mig_cap(unsigned int gpu, u32 swizz, int ci)
{
	return &nvs_caps.mig[nvs_cap_minor_mig(gpu, swizz, ci) - NVD_CAP_MINOR_GPU_BASE];
}

/*
 * osRmCapRegisterSys() at RM init, osRmCapRegisterGpu() for each GPU,
 * osRmCapRegisterSmcPartition() and ...ExecutionPartition() for each
 * instance: all at load here, as if the GPUs were kept initialised
 * (persistence mode) with their instances made.
 */
static int nvs_caps_tree(void)
{
	struct proc_dir_entry *mdir, *gdir, *gidir, *cidir;
	unsigned int g, s, c;
	char name[16];
	int err;

	mdir = nvs_cap_dir("mig", nvs_caps.root);
	if (!mdir)
		return -ENOMEM;
	err = nvs_cap_file(&nvs_caps.sys[NVS_SYSCAP_CONFIG], mdir, "config",
			   NVD_CAP_MINOR_MIG_CONFIG, NVD_CAP_MODE_RUSR);
	if (!err)
		err = nvs_cap_file(&nvs_caps.sys[NVS_SYSCAP_MONITOR], mdir, "monitor",
				   NVD_CAP_MINOR_MIG_MONITOR, NVD_CAP_MODE_RUGO);
	if (!err && nvs_version_at_least(550, 40, 7))
		err = nvs_cap_file(&nvs_caps.sys[NVS_SYSCAP_IMEX_MGMT], nvs_caps.root,
				   "fabric-imex-mgmt", NVD_CAP_MINOR_FABRIC_IMEX_MGMT,
				   NVD_CAP_MODE_RUSR);
	if (err)
		return err;

	for (g = 0; g < nvs_ngpus; g++) {
		snprintf(name, sizeof(name), "gpu%u", g);
		gdir = nvs_cap_dir(name, nvs_caps.root);
		gdir = gdir ? nvs_cap_dir("mig", gdir) : NULL;
		if (!gdir)
			return -ENOMEM;
		for (s = 0; s < NVD_MIG_MAX_GI; s++) {
			if (!(nvs_gpus[g].gi_mask & BIT(s)))
				continue;
			snprintf(name, sizeof(name), "gi%u", s);
			gidir = nvs_cap_dir(name, gdir);
			if (!gidir)
				return -ENOMEM;
			err = nvs_cap_file(nvs_mig_cap(g, s, -1), gidir, "access",
					   nvs_cap_minor_mig(g, s, -1), NVD_CAP_MODE_RUGO);
			if (err)
				return err;
			for (c = 0; c < NVD_MIG_MAX_CI; c++) {
				if (!(nvs_gpus[g].ci_mask[s] & BIT(c)))
					continue;
				snprintf(name, sizeof(name), "ci%u", c);
				cidir = nvs_cap_dir(name, gidir);
				if (!cidir)
					return -ENOMEM;
				err = nvs_cap_file(nvs_mig_cap(g, s, c), cidir, "access",
						   nvs_cap_minor_mig(g, s, c), NVD_CAP_MODE_RUGO);
				if (err)
					return err;
			}
		}
	}
	return 0;
}

/* ---- /proc/driver/nvidia-caps: the minor table ---- */

static int nvs_mig_minors_show(struct seq_file *m, void *v)
{
	unsigned int g, s, c;

	seq_printf(m, "config %d\n", NVD_CAP_MINOR_MIG_CONFIG);
	seq_printf(m, "monitor %d\n", NVD_CAP_MINOR_MIG_MONITOR);
	for (g = 0; g < NVD_CAP_TABLE_GPUS; g++) {
		for (s = 0; s < NVD_MIG_MAX_GI; s++) {
			seq_printf(m, "gpu%u/gi%u/access %d\n", g, s, nvs_cap_minor_mig(g, s, -1));
			for (c = 0; c < NVD_MIG_MAX_CI; c++)
				seq_printf(m, "gpu%u/gi%u/ci%u/access %d\n", g, s, c,
					   nvs_cap_minor_mig(g, s, c));
		}
	}
	return 0;
}

static int nvs_nvlink_minors_show(struct seq_file *m, void *v)
{
	seq_printf(m, "fabric-mgmt %d\n", NVD_CAP_MINOR_FABRIC_MGMT);
	return 0;
}

static int nvs_sys_minors_show(struct seq_file *m, void *v)
{
	if (nvs_version_at_least(550, 40, 7))
		seq_printf(m, "fabric-imex-mgmt %d\n", NVD_CAP_MINOR_FABRIC_IMEX_MGMT);
	return 0;
}

/* ---- the mig= parameter ---- */

/* "G[:S[:C]]" separated by commas, decimal; any GPU named is in MIG mode. */
static int nvs_mig_parse(const char *spec)
{
	const char *p = spec;
	unsigned int v[3], n, digits;

	while (p && *p) {
		for (n = 0; n < 3; ) {
			for (v[n] = 0, digits = 0; *p >= '0' && *p <= '9' && digits < 6; p++, digits++)
				v[n] = v[n] * 10 + (*p - '0');
			if (!digits)
				goto bad;
			n++;
			if (*p != ':')
				break;
			p++;
		}
		if (*p != ',' && *p != '\0')
			goto bad;
		if (*p == ',')
			p++;
		if (v[0] >= nvs_ngpus || (n > 1 && v[1] >= NVD_MIG_MAX_GI) ||
		    (n > 2 && v[2] >= NVD_MIG_MAX_CI))
			goto bad;
		nvs_gpus[v[0]].mig = true;
		if (n > 1)
			nvs_gpus[v[0]].gi_mask |= BIT(v[1]);
		if (n > 2)
			nvs_gpus[v[0]].ci_mask[v[1]] |= BIT(v[2]);
	}
	return 0;
bad:
	pr_err("mig=\"%s\": want GPU[:SWIZZID[:CI]],... with GPU < num_gpus (%u), SWIZZID < %d, CI < %d\n",
	       spec, nvs_ngpus, NVD_MIG_MAX_GI, NVD_MIG_MAX_CI);
	return -EINVAL;
}

/* ---- IMEX channels: nv_caps_imex_init() ---- */

static char *nvs_imex_devnode(NVS_DEVNODE_CONST struct device *dev, umode_t *mode)
{
	/* channel0 is world-usable; the kernel's default (root) for others. */
	if (mode && dev->devt == nvs_caps.imex_devt)
		*mode = 0666;
	return NULL;
}

static int nvs_imex_init(void)
{
	struct device *dev;
	int err;

	if (!nvs_version_at_least(550, 40, 53))
		return 0;
	if (NVreg_ImexChannelCount < 0 || NVreg_ImexChannelCount > NVD_IMEX_MAX_CHANNELS) {
		pr_err("NVreg_ImexChannelCount=%d out of range 0..%u\n", NVreg_ImexChannelCount,
		       NVD_IMEX_MAX_CHANNELS);
		return -EINVAL;
	}
	nvs_imex_channels = NVreg_ImexChannelCount;
	if (!nvs_imex_channels)
		return 0;
	err = alloc_chrdev_region(&nvs_caps.imex_devt, 0, nvs_imex_channels,
				  "nvidia-caps-imex-channels");
	if (err)
		return err;
	nvs_caps.imex_count = nvs_imex_channels;
	cdev_init(&nvs_caps.imex_cdev, &nvs_imex_fops);
	nvs_caps.imex_cdev.owner = THIS_MODULE;
	err = cdev_add(&nvs_caps.imex_cdev, nvs_caps.imex_devt, nvs_imex_channels);
	if (err) {
		unregister_chrdev_region(nvs_caps.imex_devt, nvs_caps.imex_count);
		nvs_caps.imex_count = 0;
		return err;
	}
	if (NVreg_CreateImexChannel0 != 1 || !nvs_version_at_least(555, 42, 2))
		return 0;
	nvs_caps.imex_class = nvs_class_create("nvidia-caps-imex-channels");
	if (IS_ERR(nvs_caps.imex_class)) {
		err = PTR_ERR(nvs_caps.imex_class);
		nvs_caps.imex_class = NULL;
		return err;
	}
	nvs_caps.imex_class->devnode = nvs_imex_devnode;
	dev = device_create(nvs_caps.imex_class, NULL, nvs_caps.imex_devt, NULL,
			    "nvidia-caps-imex-channels!channel%d", 0);
	if (IS_ERR(dev))
		return PTR_ERR(dev);
	nvs_caps.imex_channel0 = true;
	return 0;
}

static void nvs_imex_exit(void)
{
	if (nvs_caps.imex_channel0)
		device_destroy(nvs_caps.imex_class, nvs_caps.imex_devt);
	nvs_caps.imex_channel0 = false;
	if (nvs_caps.imex_class)
		class_destroy(nvs_caps.imex_class);
	nvs_caps.imex_class = NULL;
	if (nvs_caps.imex_count) {
		cdev_del(&nvs_caps.imex_cdev);
		unregister_chrdev_region(nvs_caps.imex_devt, nvs_caps.imex_count);
	}
	nvs_caps.imex_count = 0;
}

/* ---- load and unload ---- */

static void nvs_cap_node_destroy(struct nvs_cap *cap)
{
	if (cap->node)
		device_destroy(nvs_caps.class, MKDEV(MAJOR(nvs_caps.devt), cap->minor));
	cap->node = false;
}

void nvs_caps_exit(void)
{
	unsigned int i;

	nvs_imex_exit();
	for (i = 0; i < NVS_SYSCAP_NR; i++)
		nvs_cap_node_destroy(&nvs_caps.sys[i]);
	for (i = 0; nvs_caps.mig && i < nvs_ngpus * NVD_CAP_MINORS_PER_GPU; i++)
		nvs_cap_node_destroy(&nvs_caps.mig[i]);
	proc_remove(nvs_caps.root);
	nvs_caps.root = NULL;
	proc_remove(nvs_caps.minors_dir);
	nvs_caps.minors_dir = NULL;
	if (nvs_caps.class)
		class_destroy(nvs_caps.class);
	nvs_caps.class = NULL;
	if (nvs_caps.cdev_added)
		cdev_del(&nvs_caps.cdev);
	nvs_caps.cdev_added = false;
	if (nvs_caps.devt)
		unregister_chrdev_region(nvs_caps.devt, NVD_CAP_MINOR_COUNT);
	nvs_caps.devt = 0;
	kfree(nvs_caps.mig);
	nvs_caps.mig = NULL;
}

/**
 * nvs_caps_init() - nv_cap_drv_init(), nv_caps_imex_init() and RM's caps
 * @nvidia_dir: /proc/driver/nvidia
 *
 * Return: 0 or a negative errno, everything undone.
 */
int nvs_caps_init(struct proc_dir_entry *nvidia_dir)
{
	int err;

	err = nvs_mig_parse(mig);
	if (err)
		return err;
	nvs_caps.mig = kcalloc(max(nvs_ngpus, 1u) * NVD_CAP_MINORS_PER_GPU,
			       sizeof(*nvs_caps.mig), GFP_KERNEL);
	if (!nvs_caps.mig)
		return -ENOMEM;

	err = alloc_chrdev_region(&nvs_caps.devt, 0, NVD_CAP_MINOR_COUNT, "nvidia-caps");
	if (err) {
		nvs_caps.devt = 0;
		goto fail;
	}
	cdev_init(&nvs_caps.cdev, &nvs_cap_fops);
	nvs_caps.cdev.owner = THIS_MODULE;
	err = cdev_add(&nvs_caps.cdev, nvs_caps.devt, NVD_CAP_MINOR_COUNT);
	if (err)
		goto fail;
	nvs_caps.cdev_added = true;

	err = -ENOMEM;
	nvs_caps.minors_dir = proc_mkdir_mode("driver/nvidia-caps", S_IFDIR | 0555, NULL);
	if (!nvs_caps.minors_dir ||
	    !proc_create_single("mig-minors", 0444, nvs_caps.minors_dir, nvs_mig_minors_show) ||
	    !proc_create_single("nvlink-minors", 0444, nvs_caps.minors_dir,
				nvs_nvlink_minors_show) ||
	    !proc_create_single("sys-minors", 0444, nvs_caps.minors_dir, nvs_sys_minors_show))
		goto fail;

	if (cap_nodes) {
		nvs_caps.class = nvs_class_create("nvidia-caps");
		if (IS_ERR(nvs_caps.class)) {
			err = PTR_ERR(nvs_caps.class);
			nvs_caps.class = NULL;
			goto fail;
		}
		nvs_caps.class->devnode = nvs_cap_devnode;
	}

	err = -ENOMEM;
	nvs_caps.root = nvs_cap_dir("capabilities", nvidia_dir);
	if (!nvs_caps.root)
		goto fail;
	err = nvs_caps_tree();
	if (err)
		goto fail;

	err = nvs_imex_init();
	if (err)
		goto fail;
	if (NVreg_CreateImexChannel0 && !nvs_version_at_least(555, 42, 2))
		pr_warn("NVreg_CreateImexChannel0 is a parameter from 555.42.02: ignored\n");
	return 0;
fail:
	nvs_caps_exit();
	return err;
}
