// SPDX-License-Identifier: GPL-2.0
/*
 * Stand-in nvidia-uvm driver: /dev/nvidia-uvm on a dynamic major.
 *
 * Mirrors uvm_ioctl() and uvm_mmap() (kernel-open/nvidia-uvm/uvm.c) for the
 * commands a CUDA-like session issues: commands are plain integers, the
 * driver copies sizeof(params) in, answers in rmStatus and copies the params
 * back; unknown commands fall to the test ioctls, disabled: -EINVAL, from
 * 570.86.15 -ENOSYS.
 */
#define pr_fmt(fmt) "nvidia-uvm-standin: " fmt

#include <linux/cdev.h>
#include <linux/delay.h>
#include <linux/device.h>
#include <linux/file.h>
#include <linux/fs.h>
#include <linux/mm.h>
#include <linux/module.h>
#include <linux/sched/mm.h>
#include <linux/slab.h>
#include <linux/uaccess.h>

#include "../nvidia-abi/nvdrv.h"
#include "nvs_export.h"

static unsigned int mmap_lock_ms;
module_param(mmap_lock_ms, uint, 0644);
MODULE_PARM_DESC(mmap_lock_ms, "tests only: UVM_PAGEABLE_MEM_ACCESS holds the caller's mmap lock for reading this long, as the real driver's long UVM operations (migrations) hold it (default 0: not at all)");

enum nvs_uvm_fd_type {
	NVS_UVM_FD_UNINITIALIZED,
	NVS_UVM_FD_VA_SPACE,
	NVS_UVM_FD_MM,
};

enum nvs_uvm_mm_state {
	NVS_UVM_MM_UNINITIALIZED,
	NVS_UVM_MM_ALIVE,
	NVS_UVM_MM_RELEASED,
};

struct nvs_uvm_file {
	enum nvs_uvm_fd_type type;
	/* VA_SPACE */
	u64 flags;
	struct mm_struct *mm;		/* current->mm at UVM_INITIALIZE, grabbed */
	enum nvs_uvm_mm_state mm_state;
	unsigned long gpus;		/* registered GPUs, by index */
	/* MM */
	struct file *va_file;		/* the VA_SPACE file, reference held */
};

/* One lock for all UVM file state: MM_INITIALIZE touches two files. */
static DEFINE_MUTEX(nvs_uvm_lock);

static dev_t nvs_uvm_devt;
static struct cdev nvs_uvm_cdev;
static struct class *nvs_uvm_class;
static const struct file_operations nvs_uvm_fops;

static int nvs_uvm_open(struct inode *inode, struct file *filp)
{
	struct nvs_uvm_file *uf = kzalloc(sizeof(*uf), GFP_KERNEL);
	int ret = 0;

	if (!uf) {
		ret = -ENOMEM;
		goto out;
	}
	filp->private_data = uf;
	nvs_count(NVS_CNT_UVM_FILES, 1);
out:
	nvs_log_call("uvm", "op=open ret=%d ino=%lu gen=%u", ret, inode->i_ino,
		     inode->i_generation);
	return ret;
}

static int nvs_uvm_release(struct inode *inode, struct file *filp)
{
	struct nvs_uvm_file *uf = filp->private_data, *va;
	struct file *va_file = NULL;

	mutex_lock(&nvs_uvm_lock);
	if (uf->type == NVS_UVM_FD_VA_SPACE) {
		nvs_count(NVS_CNT_UVM_GPUS, -(long)hweight_long(uf->gpus));
		nvs_count(NVS_CNT_UVM_VA_SPACES, -1);
		mmdrop(uf->mm);
	} else if (uf->type == NVS_UVM_FD_MM) {
		va = uf->va_file->private_data;
		va->mm_state = NVS_UVM_MM_RELEASED;
		va_file = uf->va_file;
	}
	mutex_unlock(&nvs_uvm_lock);
	if (va_file)
		fput(va_file);
	kfree(uf);
	nvs_count(NVS_CNT_UVM_FILES, -1);
	nvs_log_call("uvm", "op=release");
	return 0;
}

/* uvm_api_initialize() */
static u32 nvs_uvm_initialize(struct nvs_uvm_file *uf,
			      struct nvd_uvm_initialize *p)
{
	switch (uf->type) {
	case NVS_UVM_FD_UNINITIALIZED:
		if (!current->mm)
			return NV_ERR_NOT_SUPPORTED;
		mmgrab(current->mm);
		uf->mm = current->mm;
		uf->flags = p->flags;
		uf->type = NVS_UVM_FD_VA_SPACE;
		nvs_count(NVS_CNT_UVM_VA_SPACES, 1);
		return NV_OK;
	case NVS_UVM_FD_VA_SPACE:
		return p->flags == uf->flags ? NV_OK : NV_ERR_INVALID_ARGUMENT;
	default:
		return NV_ERR_INVALID_ARGUMENT;
	}
}

/* uvm_api_mm_initialize(): uvmFd must be an initialised UVM file. */
static u32 nvs_uvm_mm_initialize(struct nvs_uvm_file *uf,
				 struct nvd_uvm_mm_initialize *p, char *kind)
{
	struct file *t = fget(p->uvmFd);
	struct nvs_uvm_file *va;
	u32 status = NV_OK;

	nvs_rx_fd(t);
	nvs_file_kind(t, kind);
	if (!t || t->f_op != &nvs_uvm_fops) {
		status = NV_ERR_INVALID_ARGUMENT;
		goto out;
	}
	va = t->private_data;
	if (va->type != NVS_UVM_FD_VA_SPACE) {
		status = NV_ERR_INVALID_ARGUMENT;
		goto out;
	}
	/* uvm_fd_type_init(): this file must be fresh (so not uvmFd itself). */
	if (uf->type != NVS_UVM_FD_UNINITIALIZED) {
		status = NV_ERR_IN_USE;
		goto out;
	}
	if (va->mm_state == NVS_UVM_MM_ALIVE) {
		status = NV_ERR_INVALID_STATE;
		goto out;
	}
	if (va->mm_state == NVS_UVM_MM_RELEASED) {
		status = NV_ERR_PAGE_TABLE_NOT_AVAIL;
		goto out;
	}
	va->mm_state = NVS_UVM_MM_ALIVE;
	uf->type = NVS_UVM_FD_MM;
	uf->va_file = t;
	t = NULL;
out:
	if (t)
		fput(t);
	return status;
}

/* uvm_api_register_gpu(); the RM checks are nvidia.ko's. */
static u32 nvs_uvm_register_gpu(struct nvs_uvm_file *uf,
				struct nvd_uvm_register_gpu *p)
{
	unsigned int gpu = 0;
	u32 status;

	/* rmCtrlFd is kept by the driver, never looked up. */
	status = nvs_uvm_check_gpu(p->gpu_uuid, p->hClient, &gpu);
	if (status != NV_OK)
		return status;
	if (uf->gpus & BIT(gpu))
		return NV_ERR_INVALID_DEVICE;
	uf->gpus |= BIT(gpu);
	nvs_count(NVS_CNT_UVM_GPUS, 1);
	p->numaEnabled = 0;
	p->numaNodeId = -1;
	return NV_OK;
}

static u32 nvs_uvm_unregister_gpu(struct nvs_uvm_file *uf,
				  struct nvd_uvm_unregister_gpu *p)
{
	int gpu = nvs_gpu_by_uuid(p->gpu_uuid);

	if (gpu < 0)
		return NV_ERR_GPU_UUID_NOT_FOUND;
	if (!(uf->gpus & BIT(gpu)))
		return NV_ERR_INVALID_DEVICE;
	uf->gpus &= ~BIT(gpu);
	nvs_count(NVS_CNT_UVM_GPUS, -1);
	return NV_OK;
}

static long nvs_uvm_ioctl(struct file *filp, unsigned int cmd,
			  unsigned long arg)
{
	struct nvs_uvm_file *uf = filp->private_data;
	void __user *uptr = (void __user *)arg;
	char kind[NVS_KIND_LEN] = "", extra[64] = "";
	union {
		struct nvd_uvm_initialize init;
		struct nvd_uvm_mm_initialize mm;
		struct nvd_uvm_register_gpu reg;
		struct nvd_uvm_unregister_gpu unreg;
		struct nvd_uvm_pageable_mem_access pma;
	} p;
	u32 size, status, fd_off = 0;
	bool has_fd = false;
	u32 *rm_status;
	u64 sum;
	long ret = 0;

	nvs_rx(NVS_RX_UVM, cmd, 0, 0);
	switch (cmd) {
	case UVM_DEINITIALIZE:
		nvs_log_call("uvm", "op=ioctl nr=0x%x size=0 ret=0", cmd);
		return 0;
	case UVM_INITIALIZE:
		size = sizeof(p.init);
		rm_status = &p.init.rmStatus;
		break;
	case UVM_MM_INITIALIZE:
		/* uvm_ioctl() has it from 535.43.02 */
		if (!nvs_version_at_least(535, 43, 2))
			goto unknown;
		size = sizeof(p.mm);
		rm_status = &p.mm.rmStatus;
		fd_off = offsetof(struct nvd_uvm_mm_initialize, uvmFd);
		has_fd = true;
		break;
	case UVM_REGISTER_GPU:
		size = sizeof(p.reg);
		rm_status = &p.reg.rmStatus;
		fd_off = offsetof(struct nvd_uvm_register_gpu, rmCtrlFd);
		has_fd = true;
		break;
	case UVM_UNREGISTER_GPU:
		size = sizeof(p.unreg);
		rm_status = &p.unreg.rmStatus;
		break;
	case UVM_PAGEABLE_MEM_ACCESS:
		size = sizeof(p.pma);
		rm_status = &p.pma.rmStatus;
		break;
	default:
unknown:
		ret = nvs_version_at_least(570, 86, 15) ? -ENOSYS : -EINVAL;
		nvs_log_call("uvm", "op=ioctl nr=0x%x size=0 ret=%ld", cmd, ret);
		return ret;
	}

	nvs_race_delay();
	if (copy_from_user(&p, uptr, size)) {
		nvs_log_call("uvm", "op=ioctl nr=0x%x size=%u ret=%d", cmd,
			     size, -EFAULT);
		return -EFAULT;
	}
	sum = nvs_fnv1a(NVS_FNV_INIT, &p, size);
	if (cmd == UVM_PAGEABLE_MEM_ACCESS && READ_ONCE(mmap_lock_ms)) {
		/* As a long UVM operation holds the caller's mmap lock. */
		mmap_read_lock(current->mm);
		msleep(READ_ONCE(mmap_lock_ms));
		mmap_read_unlock(current->mm);
	}
	ret = nvs_fault_take();
	if (ret) {
		nvs_log_call("uvm", "op=ioctl nr=0x%x size=%u ret=%ld sum=%016llx fault",
			     cmd, size, ret, sum);
		return ret;
	}
	if (has_fd)
		snprintf(extra, sizeof(extra), " fsum=%016llx",
			 nvs_fnv1a_nofd(&p, size, fd_off));

	mutex_lock(&nvs_uvm_lock);
	/* UVM_ROUTE_CMD_STACK_INIT_CHECK: NV_ERR_ILLEGAL_ACTION before init. */
	if (cmd != UVM_INITIALIZE && cmd != UVM_MM_INITIALIZE &&
	    uf->type != NVS_UVM_FD_VA_SPACE) {
		status = NV_ERR_ILLEGAL_ACTION;
	} else {
		switch (cmd) {
		case UVM_INITIALIZE:
			status = nvs_uvm_initialize(uf, &p.init);
			break;
		case UVM_MM_INITIALIZE:
			status = nvs_uvm_mm_initialize(uf, &p.mm, kind);
			break;
		case UVM_REGISTER_GPU:
			status = nvs_uvm_register_gpu(uf, &p.reg);
			break;
		case UVM_UNREGISTER_GPU:
			status = nvs_uvm_unregister_gpu(uf, &p.unreg);
			break;
		default:
			p.pma.pageableMemAccess = 0;
			status = NV_OK;
			break;
		}
	}
	mutex_unlock(&nvs_uvm_lock);
	*rm_status = status;

	if (copy_to_user(uptr, &p, size))
		ret = -EFAULT;
	nvs_log_call("uvm",
		     "op=ioctl nr=0x%x size=%u ret=%ld status=0x%x sum=%016llx%s%s%s",
		     cmd, size, ret, status, sum, kind[0] ? " fdfile=" : "",
		     kind, extra);
	return ret;
}

/* ---- mmap: pages made on first touch, found through vma->vm_file ---- */

struct nvs_uvm_vmpriv {
	struct kref ref;
	struct mutex lock;
	unsigned long base;		/* vm_pgoff at mmap */
	unsigned long npages;
	struct page *pages[];
};

static void nvs_uvm_vmpriv_release(struct kref *ref)
{
	struct nvs_uvm_vmpriv *priv =
		container_of(ref, struct nvs_uvm_vmpriv, ref);
	unsigned long i, n = 0;

	for (i = 0; i < priv->npages; i++) {
		if (priv->pages[i]) {
			__free_page(priv->pages[i]);
			n++;
		}
	}
	nvs_count(NVS_CNT_UVM_PAGES, -(long)n);
	mutex_destroy(&priv->lock);
	kvfree(priv);
}

static void nvs_uvm_vm_open(struct vm_area_struct *vma)
{
	struct nvs_uvm_vmpriv *priv = vma->vm_private_data;

	kref_get(&priv->ref);
	nvs_count(NVS_CNT_UVM_VMAS, 1);
}

static void nvs_uvm_vm_close(struct vm_area_struct *vma)
{
	struct nvs_uvm_vmpriv *priv = vma->vm_private_data;

	nvs_count(NVS_CNT_UVM_VMAS, -1);
	kref_put(&priv->ref, nvs_uvm_vmpriv_release);
}

static vm_fault_t nvs_uvm_vm_fault(struct vm_fault *vmf)
{
	struct nvs_uvm_vmpriv *priv = vmf->vma->vm_private_data;
	struct file *vf = vmf->vma->vm_file;
	unsigned long idx = vmf->pgoff - priv->base;
	struct page *page;

	if (!vf || vf->f_op != &nvs_uvm_fops || vmf->pgoff < priv->base ||
	    idx >= priv->npages)
		return VM_FAULT_SIGBUS;
	mutex_lock(&priv->lock);
	page = priv->pages[idx];
	if (!page) {
		page = alloc_page(GFP_KERNEL | __GFP_ZERO);
		if (page) {
			priv->pages[idx] = page;
			nvs_count(NVS_CNT_UVM_PAGES, 1);
		}
	}
	if (page)
		get_page(page);
	mutex_unlock(&priv->lock);
	if (!page)
		return VM_FAULT_OOM;
	vmf->page = page;
	return 0;
}

static const struct vm_operations_struct nvs_uvm_vm_ops = {
	.open = nvs_uvm_vm_open,
	.close = nvs_uvm_vm_close,
	.fault = nvs_uvm_vm_fault,
};

/* uvm_mmap(): the va_space comes from vma->vm_file, not from @filp. */
static int nvs_uvm_mmap_checked(struct vm_area_struct *vma, char *kind)
{
	struct file *vf = vma->vm_file;
	struct nvs_uvm_vmpriv *priv;
	struct nvs_uvm_file *uf;
	unsigned long n = vma_pages(vma);
	int ret = 0;

	nvs_file_kind(vf, kind);
	if (!vf || vf->f_op != &nvs_uvm_fops)
		return -EBADFD;
	uf = vf->private_data;
	mutex_lock(&nvs_uvm_lock);
	if (uf->type != NVS_UVM_FD_VA_SPACE)
		ret = -EBADFD;
	else if (uf->mm != current->mm)
		ret = -EOPNOTSUPP;
	mutex_unlock(&nvs_uvm_lock);
	if (ret)
		return ret;
	/* UVM mappings have offset == VA, shared and read-write. */
	if (vma->vm_start != (vma->vm_pgoff << PAGE_SHIFT))
		return -EINVAL;
	if ((vma->vm_flags & (VM_SHARED | VM_READ | VM_WRITE)) !=
	    (VM_SHARED | VM_READ | VM_WRITE))
		return -EINVAL;

	priv = kvzalloc(struct_size(priv, pages, n), GFP_KERNEL);
	if (!priv)
		return -ENOMEM;
	kref_init(&priv->ref);
	mutex_init(&priv->lock);
	priv->base = vma->vm_pgoff;
	priv->npages = n;
	nvs_vm_flags_set(vma, VM_DONTEXPAND | VM_DONTCOPY);
	vma->vm_private_data = priv;
	vma->vm_ops = &nvs_uvm_vm_ops;
	nvs_count(NVS_CNT_UVM_VMAS, 1);
	return 0;
}

static int nvs_uvm_mmap(struct file *filp, struct vm_area_struct *vma)
{
	char kind[NVS_KIND_LEN];
	int ret = nvs_uvm_mmap_checked(vma, kind);

	nvs_log_call("uvm", "op=mmap len=%lu pgoff=0x%lx ret=%d vmfile=%s",
		     vma->vm_end - vma->vm_start, vma->vm_pgoff, ret, kind);
	return ret;
}

static const struct file_operations nvs_uvm_fops = {
	.owner = THIS_MODULE,
	.open = nvs_uvm_open,
	.release = nvs_uvm_release,
	.unlocked_ioctl = nvs_uvm_ioctl,
	.mmap = nvs_uvm_mmap,
	.llseek = NVS_NO_LLSEEK,
};

static char *nvs_uvm_devnode(NVS_DEVNODE_CONST struct device *dev, umode_t *mode)
{
	if (mode)
		*mode = 0666;
	return NULL;
}

static int __init nvs_uvm_init(void)
{
	struct device *dev;
	int err;

	err = alloc_chrdev_region(&nvs_uvm_devt, 0, 1, "nvidia-uvm");
	if (err)
		return err;
	cdev_init(&nvs_uvm_cdev, &nvs_uvm_fops);
	nvs_uvm_cdev.owner = THIS_MODULE;
	err = cdev_add(&nvs_uvm_cdev, nvs_uvm_devt, 1);
	if (err)
		goto err_region;
	nvs_uvm_class = nvs_class_create("nvidia-uvm");
	if (IS_ERR(nvs_uvm_class)) {
		err = PTR_ERR(nvs_uvm_class);
		goto err_cdev;
	}
	nvs_uvm_class->devnode = nvs_uvm_devnode;
	dev = device_create(nvs_uvm_class, NULL, nvs_uvm_devt, NULL,
			    "nvidia-uvm");
	if (IS_ERR(dev)) {
		err = PTR_ERR(dev);
		goto err_class;
	}
	nvs_register_uvm_fops(&nvs_uvm_fops);
	pr_info("/dev/nvidia-uvm is %u:0\n", MAJOR(nvs_uvm_devt));
	return 0;

err_class:
	class_destroy(nvs_uvm_class);
err_cdev:
	cdev_del(&nvs_uvm_cdev);
err_region:
	unregister_chrdev_region(nvs_uvm_devt, 1);
	return err;
}

static void __exit nvs_uvm_exit(void)
{
	nvs_register_uvm_fops(NULL);
	device_destroy(nvs_uvm_class, nvs_uvm_devt);
	class_destroy(nvs_uvm_class);
	cdev_del(&nvs_uvm_cdev);
	unregister_chrdev_region(nvs_uvm_devt, 1);
}

module_init(nvs_uvm_init);
module_exit(nvs_uvm_exit);

MODULE_LICENSE("GPL");
MODULE_DESCRIPTION("Stand-in for the NVIDIA UVM driver, for tests without a GPU");
