// SPDX-License-Identifier: GPL-2.0
/*
 * nvmediate: the mediated device nodes and their file operations.
 *
 *   /dev/nvproxy        minor 255  mediates /dev/nvidiactl
 *   /dev/nvproxy<N>     minor N    mediates /dev/nvidia<N>, N < num_gpus
 *   /dev/nvproxy-uvm    minor 254  mediates /dev/nvidia-uvm
 *
 * Every operation is forwarded to the backing file opened for this file
 * (driver.c), in the caller's context; every ioctl is first checked by the
 * validator (validate.c), and one it refuses never reaches the driver;
 * calls whose payloads carry fd numbers run with a private fd table
 * (fdctx.c).
 *
 * Errors seen by user space (besides the driver's own answers):
 *   open:  -ENXIO  the driver, the GPU or the UVM node is not there, or
 *                  the driver's version cannot be found
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
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/cdev.h>
#include <linux/compat.h>
#include <linux/device.h>
#include <linux/fs.h>
#include <linux/kdev_t.h>
#include <linux/module.h>
#include <linux/poll.h>
#include <linux/slab.h>

#include "nvm.h"
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
struct nvm_file *nvm_file_of(struct file *file)
{
	return file->f_op == &nvm_fops ? file->private_data : NULL;
}

static int nvm_minor_kind(unsigned int minor, enum nvm_kind *kind, unsigned int *gpu)
{
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
	enum nvm_kind kind = NVM_NODE_GPU;	/* a minor past num_gpus */
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

	backing = nvm_drv_open(nf->kind, nf->gpu, file->f_flags & (O_ACCMODE | O_NONBLOCK));
	if (IS_ERR(backing)) {
		ret = PTR_ERR(backing);
		goto err_free;
	}
	ret = nvm_abi_select(backing, &nf->range);
	if (ret)
		goto err_backing;
	nf->backing = backing;
	file->private_data = nf;
	nvm_stats_open(nf, kind, gpu, 0);
	return 0;

err_backing:
	nvm_drv_release(backing);
err_free:
	kfree(nf);
out:
	nvm_stats_open(NULL, kind, gpu, ret);
	return ret;
}

static int nvm_release(struct inode *inode, struct file *file)
{
	struct nvm_file *nf = file->private_data;

	nvm_stats_release(nf);
	nvm_drv_release(nf->backing);
	kfree(nf);
	return 0;
}

static long nvm_forward_ioctl(struct file *file, unsigned int cmd, unsigned long arg,
			      bool compat)
{
	struct nvm_file *nf = file->private_data;
	struct nvm_report rep;
	struct nvm_fdplan plan;
	struct nvm_fdctx *ctx;
	long ret;

	/* Checked against the file's ABI and the policy first (validate.c). */
	ret = nvm_validate(nf, cmd, arg, compat, &rep);
	if (ret)
		goto out;
	ret = nvm_fdplan_build(nf, cmd, arg, &plan);
	if (ret)
		goto out;
	if (!plan.swap) {
		ret = nvm_drv_ioctl(nf->backing, cmd, arg, compat);
		goto out;
	}

	ctx = nvm_fdctx_create(&plan);
	if (IS_ERR(ctx)) {
		ret = PTR_ERR(ctx);
		goto out;
	}
	ret = nvm_fdctx_enter(ctx);
	if (!ret) {
		ret = nvm_drv_ioctl(nf->backing, cmd, arg, compat);
		nvm_fdctx_leave(ctx);
	}
	nvm_fdctx_destroy(ctx);
out:
	/* Counters, tracepoint and refusal log (stats.c). */
	nvm_stats_ioctl(nf, &rep, ret);
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

static char *nvm_devnode(NVM_DEVNODE_CONST struct device *dev, umode_t *mode)
{
	if (mode)
		*mode = 0666;
	return NULL;
}

static const struct attribute_group *nvm_class_groups[] = {
	&nvm_abi_class_group,
	&nvm_stats_class_group,
	NULL
};

static struct class nvm_class_struct = {
	.name		= "nvmediate",
#if LINUX_VERSION_CODE < KERNEL_VERSION(6, 4, 0)
	.owner		= THIS_MODULE,
#endif
	.devnode	= nvm_devnode,
	.class_groups	= nvm_class_groups,
};
static struct class *const nvm_class = &nvm_class_struct;

/**
 * nvm_node_init() - register the mediated nodes
 *
 * Return: 0 or a negative errno; nothing is left registered on failure.
 */
int nvm_node_init(void)
{
	struct device *dev;
	unsigned int i = 0;
	int ret;

	ret = alloc_chrdev_region(&nvm_devt, 0, NVM_MINORS, "nvmediate");
	if (ret)
		return ret;

	cdev_init(&nvm_cdev, &nvm_fops);
	nvm_cdev.owner = THIS_MODULE;
	ret = cdev_add(&nvm_cdev, nvm_devt, NVM_MINORS);
	if (ret)
		goto err_region;

	ret = class_register(nvm_class);
	if (ret)
		goto err_cdev;

	dev = device_create(nvm_class, NULL, MKDEV(MAJOR(nvm_devt), NVM_MINOR_CTL), NULL,
			    NVM_NODE_NAME_CTL);
	if (IS_ERR(dev)) {
		ret = PTR_ERR(dev);
		goto err_class;
	}
	dev = device_create(nvm_class, NULL, MKDEV(MAJOR(nvm_devt), NVM_MINOR_UVM), NULL,
			    NVM_NODE_NAME_UVM);
	if (IS_ERR(dev)) {
		ret = PTR_ERR(dev);
		goto err_devices;
	}
	for (i = 0; i < nvm_num_gpus; i++) {
		dev = device_create(nvm_class, NULL, MKDEV(MAJOR(nvm_devt), i), NULL,
				    NVM_NODE_NAME_CTL "%u", i);
		if (IS_ERR(dev)) {
			ret = PTR_ERR(dev);
			goto err_devices;
		}
	}
	return 0;

err_devices:
	while (i--)
		device_destroy(nvm_class, MKDEV(MAJOR(nvm_devt), i));
	device_destroy(nvm_class, MKDEV(MAJOR(nvm_devt), NVM_MINOR_UVM));
	device_destroy(nvm_class, MKDEV(MAJOR(nvm_devt), NVM_MINOR_CTL));
err_class:
	class_unregister(nvm_class);
err_cdev:
	cdev_del(&nvm_cdev);
err_region:
	unregister_chrdev_region(nvm_devt, NVM_MINORS);
	return ret;
}

void nvm_node_exit(void)
{
	unsigned int i;

	for (i = 0; i < nvm_num_gpus; i++)
		device_destroy(nvm_class, MKDEV(MAJOR(nvm_devt), i));
	device_destroy(nvm_class, MKDEV(MAJOR(nvm_devt), NVM_MINOR_UVM));
	device_destroy(nvm_class, MKDEV(MAJOR(nvm_devt), NVM_MINOR_CTL));
	class_unregister(nvm_class);
	cdev_del(&nvm_cdev);
	unregister_chrdev_region(nvm_devt, NVM_MINORS);
}
