// SPDX-License-Identifier: GPL-2.0
/*
 * nvmediate: the mediated device nodes and their file operations.
 *
 *   /dev/nvproxy        minor 255  mediates /dev/nvidiactl
 *   /dev/nvproxy<N>     minor N    mediates /dev/nvidia<N>, N < num_gpus
 *   /dev/nvproxy-uvm    minor 254  mediates /dev/nvidia-uvm
 *
 * Those are the nodes of the default set; set K (sets.c, devnodes.c) has the minors
 * K * 256 + the same, named /dev/nvmediate/<set>/nvidiactl, nvidia<N> and
 * nvidia-uvm.  A file keeps the set it was opened on, and with it the
 * set's profile.
 *
 * Every operation is forwarded to the backing file opened for this file
 * (driver.c), in the caller's context; every ioctl is first checked by the
 * validator (validate.c), and one it refuses never reaches the driver; one
 * it lets through is handed to the driver as it was checked (handoff.c).
 *
 * Errors seen by user space (besides the driver's own answers):
 *   open:  -ENXIO  the driver or the UVM node is not there, the minor is
 *                  past num_gpus, or the driver's version cannot be found
 *                  (a GPU the driver does not have: its own -ENODEV)
 *          -EPROTONOSUPPORT the driver's version is outside every ABI
 *                  range nvmediate knows (see abi.c for the parameters)
 *          -ENOMEM
 *   ioctl: the validator's answers (validate.c, docs/errors.md), then
 *          -EFAULT an fd field of the payload cannot be read
 *          -EINTR  a fatal signal arrived before the call was made
 *          -ENOMEM
 *          -ENOTTY the real file has no ioctl
 *   mmap:  -ENODEV the real file cannot be mapped
 */
#include <linux/cdev.h>
#include <linux/compat.h>
#include <linux/fs.h>
#include <linux/kdev_t.h>
#include <linux/module.h>
#include <linux/poll.h>
#include <linux/sched/mm.h>
#include <linux/slab.h>

#include "node.h"
#include "abi.h"
#include "driver.h"
#include "handoff.h"
#include "devnodes.h"
#include "sets.h"
#include "stats.h"
#include "nvmediate.h"

static dev_t nvm_devt;
static struct cdev nvm_cdev;
static const struct file_operations nvm_fops;

/**
 * nvm_file_of() - the mediated state of a file
 * @file: any file
 *
 * Return: the state, or NULL if @file is not one of nvmediate's files.
 */
static struct nvm_file *nvm_file_of(struct file *file)
{
	return file->f_op == &nvm_fops ? file->private_data : NULL;
}

/**
 * nvm_minor_kind() - the real node a mediated node's minor stands for
 * @minor: a minor of nvmediate's (any set's)
 * @kind: set to the node's kind
 * @gpu: set to its GPU index for %NVM_NODE_GPU, else 0
 *
 * Return: 0, or -ENXIO for a GPU minor at or past num_gpus.
 */
int nvm_minor_kind(unsigned int minor, enum nvm_kind *kind, unsigned int *gpu)
{
	minor %= NVM_MINORS;
	*gpu = 0;
	if (minor == NVM_MINOR_CTL)
		*kind = NVM_NODE_CTL;
	else if (minor == NVM_MINOR_UVM)
		*kind = NVM_NODE_UVM;
	else if (minor < nvm_num_gpus)
		*kind = NVM_NODE_GPU, *gpu = minor;
	else
		return -ENXIO;
	return 0;
}

static int nvm_open(struct inode *inode, struct file *file)
{
	struct nvm_file *nf;
	struct file *backing;
	const struct nvm_range *range;
	enum nvm_kind kind = NVM_NODE_GPU;	/* a minor past num_gpus */
	enum nvm_tier tier;
	unsigned int gpu;
	int ret;

	ret = nvm_minor_kind(iminor(inode), &kind, &gpu);
	if (ret)
		goto out;
	nf = kzalloc(sizeof(*nf), GFP_KERNEL_ACCOUNT);
	if (!nf) {
		ret = -ENOMEM;
		goto out;
	}
	nf->kind = kind;
	nf->gpu = gpu;
	nf->set = nvm_set_open(iminor(inode) / NVM_MINORS);
	if (!nf->set) {
		ret = -ENXIO;
		goto err_free;
	}

	backing = nvm_drv_open(nf->kind, nf->gpu, file->f_flags & (O_ACCMODE | O_NONBLOCK));
	if (IS_ERR(backing)) {
		ret = PTR_ERR(backing);
		goto err_free;
	}
	ret = nvm_abi_select(backing, &range, &tier);
	if (ret)
		goto err_backing;
	nf->abi = nvm_abi_of(range);
	nf->successor = tier == NVM_TIER_SUCCESSOR;
	ret = nvm_stats_attach(nf);
	if (ret)
		goto err_backing;
	nf->backing = backing;
	file->private_data = nf;
	nvm_stats_open(nf, kind, gpu, 0);
	return 0;

err_backing:
	nvm_drv_release(backing, nf->kind, nf->gpu);
err_free:
	if (nf->set)
		nvm_set_close(nf->set);
	kfree(nf);
out:
	nvm_stats_open(NULL, kind, gpu, ret);
	return ret;
}

static int nvm_release(struct inode *inode, struct file *file)
{
	struct nvm_file *nf = file->private_data;

	nvm_stats_release(nf);
	nvm_drv_release(nf->backing, nf->kind, nf->gpu);
	nvm_set_close(nf->set);
	if (nf->nobounce_mm)
		mmdrop(nf->nobounce_mm);
	kfree(nf);
	return 0;
}

static long nvm_forward_ioctl(struct file *file, unsigned int cmd, unsigned long arg,
			      bool compat)
{
	struct nvm_file *nf = file->private_data;
	struct nvm_req req = {
		.cmd = cmd,
		.compat = compat,
		.arg = compat ? compat_ptr(arg) : (void __user *)arg,
	};
	struct nvm_report rep = { };
	long ret;

	/* Checked against the file's ABI and the policy (validate.c)... */
	ret = nvm_validate(nf, &req, &rep);
	/* ...and handed to the driver as checked (handoff.c). */
	if (!ret)
		ret = nvm_handoff(nf, &req, &rep, nvm_file_of, arg);
	/* Counters, tracepoint and refusal log (stats.c). */
	nvm_stats_ioctl(nf, &rep, ret);
	nvm_req_free(&req);
	return ret == NVM_ANSWERED ? 0 : ret;
}

static long nvm_ioctl(struct file *file, unsigned int cmd, unsigned long arg)
{
	return nvm_forward_ioctl(file, cmd, arg, false);
}

#ifdef CONFIG_COMPAT
static long nvm_compat_ioctl(struct file *file, unsigned int cmd, unsigned long arg)
{
	return nvm_forward_ioctl(file, cmd, arg, true);
}
#endif

static int nvm_mmap(struct file *file, struct vm_area_struct *vma)
{
	struct nvm_file *nf = file->private_data;
	int ret;

	ret = nvm_drv_mmap(nf->backing, vma);
	nvm_stats_file_op(nf, NVM_FAM_MMAP, ret);
	return ret;
}

static __poll_t nvm_poll(struct file *file, struct poll_table_struct *wait)
{
	struct nvm_file *nf = file->private_data;
	__poll_t mask;

	mask = nvm_drv_poll(nf->backing, wait);
	nvm_stats_file_op(nf, NVM_FAM_POLL, (__force long)mask);
	return mask;
}

static const struct file_operations nvm_fops = {
	.owner		= THIS_MODULE,
	.open		= nvm_open,
	.release	= nvm_release,
	.unlocked_ioctl	= nvm_ioctl,
#ifdef CONFIG_COMPAT
	.compat_ioctl	= nvm_compat_ioctl,
#endif
	.mmap		= nvm_mmap,
	.poll		= nvm_poll,
	.llseek		= noop_llseek,
};

/**
 * nvm_node_init() - the file operations of every set's minors
 * @devt: the first of them (devnodes.c)
 *
 * Nothing answers an open of them before nvm_node_start().
 */
void nvm_node_init(dev_t devt)
{
	nvm_devt = devt;
	cdev_init(&nvm_cdev, &nvm_fops);
	nvm_cdev.owner = THIS_MODULE;
}

/**
 * nvm_node_start() - answer opens of the minors
 *
 * The load's last step: a module whose load fails later would be freed
 * under the files opened meanwhile.
 *
 * Return: 0 or a negative errno.
 */
int nvm_node_start(void)
{
	return cdev_add(&nvm_cdev, nvm_devt, NVM_MINORS * NVM_MAX_SETS);
}

/* Undo nvm_node_start(): opens of the minors fail (ENXIO) from now on. */
void nvm_node_stop(void)
{
	cdev_del(&nvm_cdev);
}
