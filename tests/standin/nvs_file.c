// SPDX-License-Identifier: GPL-2.0
/*
 * Stand-in nvidia driver: the frontend, the file operations of
 * /dev/nvidiactl and /dev/nvidiaN.
 *
 * The ioctl path mirrors nvidia_ioctl() (kernel-open/nvidia/nv.c): only
 * _IOC_NR and _IOC_SIZE of the command are used, NV_ESC_IOCTL_XFER_CMD wraps
 * larger payloads, the payload is copied in once and copied back on return
 * (also on -EINVAL), and most failures are a status inside the payload.
 */
#define pr_fmt(fmt) "nvidia-standin: " fmt

#include <linux/delay.h>
#include <linux/file.h>
#include <linux/fs.h>
#include <linux/mm.h>
#include <linux/module.h>
#include <linux/poll.h>
#include <linux/slab.h>
#include <linux/uaccess.h>

#include "nvs.h"

static int nvs_open(struct inode *inode, struct file *filp)
{
	unsigned int minor = iminor(inode);
	char kind[NVS_KIND_LEN];
	struct nvs_file *nf;
	int ret = 0;

	nvs_kind_of_minor(minor, kind);
	if (minor != NVD_CTL_MINOR && minor >= nvs_ngpus) {
		ret = -ENODEV;
		goto out;
	}
	if (READ_ONCE(nvs_fail_open)) {
		ret = -abs(READ_ONCE(nvs_fail_open));
		goto out;
	}
	nf = kzalloc(sizeof(*nf), GFP_KERNEL);
	if (!nf) {
		ret = -ENOMEM;
		goto out;
	}
	nf->minor = minor;
	spin_lock_init(&nf->ev_lock);
	init_waitqueue_head(&nf->ev_wait);
	INIT_LIST_HEAD(&nf->ev_queue);
	filp->private_data = nf;

	mutex_lock(&nvs.lock);
	list_add_tail(&nf->node, &nvs.files);
	mutex_unlock(&nvs.lock);
	nvs_count(NVS_CNT_OPEN_FILES, 1);
out:
	/*
	 * The inode the open came through (its number and generation):
	 * every open of one node shares it.
	 */
	nvs_log_call(kind, "op=open ret=%d ino=%lu gen=%u", ret, inode->i_ino,
		     inode->i_generation);
	return ret;
}

static int nvs_release(struct inode *inode, struct file *filp)
{
	struct nvs_file *nf = filp->private_data;
	char kind[NVS_KIND_LEN];
	struct nvs_call c = {};
	struct file *ctl;

	nvs_kind_of_minor(nf->minor, kind);
	ctl = nvs_rm_file_release(nf, &c);
	if (ctl)
		fput(ctl);
	kfree(nf);
	nvs_count(NVS_CNT_OPEN_FILES, -1);
	nvs_log_call(kind, "op=release%s", c.extra);
	return 0;
}

/*
 * The up-front size table of 595.44.02 and later (nv_validate_ioctls() and
 * the RM tables it consults): exact sizes, or a multiple of an element size.
 */
static bool nvs_size_valid(u32 nr, u32 size)
{
	static const struct {
		u8 nr;
		bool array;
		u16 size;
	} table[] = {
		{ NV_ESC_CHECK_VERSION_STR, false, 72 },
		{ NV_ESC_IOCTL_XFER_CMD, false, 16 },
		{ NV_ESC_ATTACH_GPUS_TO_FD, true, 4 },
		{ NV_ESC_CARD_INFO, true, 72 },
		{ NV_ESC_QUERY_DEVICE_INTR, false, 8 },
		{ NV_ESC_SYS_PARAMS, false, 8 },
		{ NV_ESC_EXPORT_TO_DMABUF_FD, false, 2608 },
		{ NV_ESC_WAIT_OPEN_COMPLETE, false, 8 },
		{ NV_ESC_NUMA_INFO, false, 560 },
		{ NV_ESC_SET_NUMA_STATUS, false, 4 },
		{ NV_ESC_STATUS_CODE, false, 12 },
		{ NV_ESC_RM_ALLOC_MEMORY, false, 56 },
		{ NV_ESC_RM_ALLOC_OBJECT, false, 20 },
		{ NV_ESC_RM_FREE, false, 16 },
		{ NV_ESC_RM_CONTROL, false, 32 },
		{ NV_ESC_RM_DUP_OBJECT, false, 28 },
		{ NV_ESC_RM_SHARE, false, 24 },
		{ NV_ESC_RM_I2C_ACCESS, false, 32 },
		{ NV_ESC_RM_IDLE_CHANNELS, false, 56 },
		{ NV_ESC_RM_VID_HEAP_CONTROL, false, 184 },
		{ NV_ESC_RM_ACCESS_REGISTRY, false, 72 },
		{ NV_ESC_RM_MAP_MEMORY, false, 56 },
		{ NV_ESC_RM_UNMAP_MEMORY, false, 32 },
		{ NV_ESC_RM_ALLOC_CONTEXT_DMA2, false, 56 },
		{ NV_ESC_RM_MAP_MEMORY_DMA, false, 64 },
		{ NV_ESC_RM_UNMAP_MEMORY_DMA, false, 48 },
		{ NV_ESC_RM_BIND_CONTEXT_DMA, false, 16 },
		{ NV_ESC_RM_UPDATE_DEVICE_MAPPING_INFO, false, 40 },
		{ NV_ESC_RM_LOCKLESS_DIAGNOSTIC, false, 15412 },
		{ NV_ESC_REGISTER_FD, false, 4 },
		{ NV_ESC_ALLOC_OS_EVENT, false, 16 },
		{ NV_ESC_FREE_OS_EVENT, false, 16 },
		{ NV_ESC_RM_GET_EVENT_DATA, false, 16 },
	};
	unsigned int i;

	if (nr == NV_ESC_RM_ALLOC)
		return size == 32 || size == 48;
	for (i = 0; i < ARRAY_SIZE(table); i++) {
		if (table[i].nr != nr)
			continue;
		if (table[i].array)
			return size && size % table[i].size == 0;
		return size == table[i].size;
	}
	return false;
}

/* The fields the tests' record and watches read in an RM payload. */
static void nvs_rx_payload(u32 nr, const void *buf, u32 size, u32 node)
{
	if (nr == NV_ESC_RM_CONTROL && size == sizeof(struct nvd_os54)) {
		const struct nvd_os54 *p = buf;

		nvs_rx(NVS_RX_CTRL, p->cmd, p->paramsSize, p->flags);
	} else if (nr == NV_ESC_RM_ALLOC && nvs_alloc_status_off(size)) {
		/* Either form at this release's sizes: hClass is at 12 in all. */
		const struct nvd_os21 *p = buf;

		nvs_rx(NVS_RX_CLASS, p->hClass, size, node << 8);
	}
}

/*
 * read_twice: a driver that reads its payload a second time and acts on
 * the second read (nvidia_ioctl reads once).  A second read that differs
 * from the first is counted; the watch sees it too.
 */
static long nvs_read_again(void *buf, const void __user *uptr, u32 size, u32 nr, u32 node)
{
	void *again = kmalloc(size ? size : 1, GFP_KERNEL);
	long ret = 0;

	if (!again)
		return -ENOMEM;
	nvs_race_delay();
	if (copy_from_user(again, uptr, size)) {
		ret = -EFAULT;
	} else if (memcmp(again, buf, size)) {
		nvs_count(NVS_CNT_REREAD_DIFFER, 1);
		memcpy(buf, again, size);
		nvs_rx_payload(nr, buf, size, node);
	}
	kfree(again);
	return ret;
}

/* Where an escape keeps its NV_STATUS, or -1. */
static int nvs_status_offset(u32 nr, u32 size)
{
	switch (nr) {
	case NV_ESC_ALLOC_OS_EVENT:
	case NV_ESC_FREE_OS_EVENT:
	case NV_ESC_RM_FREE:
	case NV_ESC_RM_GET_EVENT_DATA:
		return size == 16 ? 12 : -1;
	case NV_ESC_RM_ALLOC:
		return nvs_alloc_status_off(size) ?: -1;
	case NV_ESC_RM_CONTROL:
		return size == 32 ? 28 : -1;
	case NV_ESC_RM_ALLOC_MEMORY:
	case NV_ESC_RM_MAP_MEMORY:
		return size == 56 ? 40 : -1;
	case NV_ESC_RM_UNMAP_MEMORY:
		return size == 32 ? 24 : -1;
	}
	return -1;
}

/* nvidia_read_card_info(): -EINVAL when the array is too short. */
static int nvs_card_info(void *buf, u32 size)
{
	struct nvd_card_info *ci = buf;
	size_t n = size / sizeof(*ci);
	unsigned int i;

	memset(ci, 0, n * sizeof(*ci));
	if (n < nvs_ngpus)
		return -EINVAL;
	for (i = 0; i < nvs_ngpus; i++) {
		ci[i].valid = 1;
		ci[i].domain = 0;
		ci[i].bus = i + 1;
		ci[i].slot = 0;
		ci[i].vendor_id = 0x10de;
		ci[i].device_id = 0x20b0;
		ci[i].gpu_id = nvs_gpus[i].gpu_id;
		ci[i].interrupt_line = 0;
		ci[i].reg_address = 0xf0000000ULL + ((u64)i << 24);
		ci[i].reg_size = 16ULL << 20;
		ci[i].fb_address = 0x3800000000ULL + ((u64)i << 36);
		ci[i].fb_size = 80ULL << 30;
		ci[i].minor_number = i;
	}
	return 0;
}

/* RmPerformVersionCheck(); '2' is a query from 530.30.02, an override before. */
static int nvs_check_version(void *buf, u32 size)
{
	struct nvd_version_str *v = buf;
	const char *rm = nvs_version_str;
	bool relaxed;
	unsigned int i;

	if (size != sizeof(*v))
		return -EINVAL;
	v->reply = NV_RM_API_VERSION_REPLY_RECOGNIZED;
	if (v->cmd == NV_RM_API_VERSION_CMD_QUERY) {
		if (nvs_version_at_least(530, 30, 2))
			strscpy(v->versionString, rm, sizeof(v->versionString));
		return 0;
	}
	relaxed = v->cmd == NV_RM_API_VERSION_CMD_RELAXED;
	for (i = 0; i < sizeof(v->versionString); i++) {
		if (v->versionString[i] != rm[i])
			break;
		if ((relaxed && rm[i] == '.') || rm[i] == '\0')
			return 0;
	}
	strscpy(v->versionString, rm, sizeof(v->versionString));
	return -EINVAL;
}

/*
 * NV_ESC_SYS_PARAMS: the memory block size, once for the control device;
 * again with the same value is fine, with another -EBUSY.
 */
static int nvs_sys_params(const void *buf)
{
	static u64 memblock_size;
	static DEFINE_MUTEX(lock);
	u64 want = *(const u64 *)buf;
	int ret = 0;

	mutex_lock(&lock);
	if (!memblock_size)
		memblock_size = want;
	else if (memblock_size != want)
		ret = -EBUSY;
	mutex_unlock(&lock);
	return ret;
}

static int nvs_dispatch(struct nvs_file *nf, u32 nr, void *buf, u32 size,
			struct nvs_call *c)
{
	switch (nr) {
	case NV_ESC_WAIT_OPEN_COMPLETE:
		if (!nvs_version_at_least(550, 40, 7))
			break;
		if (size != sizeof(struct nvd_wait_open))
			return -EINVAL;
		((struct nvd_wait_open *)buf)->rc = 0;
		((struct nvd_wait_open *)buf)->adapterStatus = NV_OK;
		return 0;
	case NV_ESC_CARD_INFO:
		if (!nvs_is_ctl(nf))
			return -EINVAL;
		return nvs_card_info(buf, size);
	case NV_ESC_SYS_PARAMS:
		if (!nvs_is_ctl(nf) || size != sizeof(u64))
			return -EINVAL;
		return nvs_sys_params(buf);
	case NV_ESC_CHECK_VERSION_STR:
		if (!nvs_is_ctl(nf))
			return -EINVAL;
		return nvs_check_version(buf, size);
	}
	return nvs_rm_ioctl(nf, nr, buf, size, c);
}

/*
 * The digest of a top-level payload logged as sum=.  A pointer to nested
 * params or to an NVOS64's rights mask counts only as set or not: a
 * mediator may hand the driver its own checked copy of what it points to,
 * at another address; psum= and rights= in the call log digest what the
 * driver read there.
 */
static u64 nvs_payload_sum(u32 nr, const void *buf, u32 size)
{
	u32 off[2] = { U32_MAX, U32_MAX };
	u64 h = NVS_FNV_INIT, p;
	u32 at = 0, i;
	u8 set;

	if (nr == NV_ESC_RM_ALLOC && size == sizeof(struct nvd_os21)) {
		off[0] = offsetof(struct nvd_os21, pAllocParms);
	} else if (nr == NV_ESC_RM_ALLOC && size == sizeof(struct nvd_os64)) {
		off[0] = offsetof(struct nvd_os64, pAllocParms);
		off[1] = offsetof(struct nvd_os64, pRightsRequested);
	} else if (nr == NV_ESC_RM_CONTROL && size == sizeof(struct nvd_os54)) {
		off[0] = offsetof(struct nvd_os54, params);
	}
	for (i = 0; i < ARRAY_SIZE(off) && off[i] != U32_MAX; i++) {
		h = nvs_fnv1a(h, buf + at, off[i] - at);
		memcpy(&p, buf + off[i], sizeof(p));
		set = !!p;
		h = nvs_fnv1a(h, &set, sizeof(set));
		at = off[i] + sizeof(p);
	}
	return nvs_fnv1a(h, buf + at, size - at);
}

static long nvs_ioctl(struct file *filp, unsigned int cmd, unsigned long arg)
{
	struct nvs_file *nf = filp->private_data;
	void __user *uptr = (void __user *)arg;
	u32 nr = _IOC_NR(cmd), size = _IOC_SIZE(cmd);
	u32 node = nvs_is_ctl(nf) ? NVS_RX_NODE_CTL : NVS_RX_NODE_GPU;
	char kind[NVS_KIND_LEN], head[96], tail[64];
	struct nvs_call *c;
	struct nvd_xfer x;
	void *buf = NULL;
	int status_off;
	u64 sum = 0;
	long ret;

	nvs_kind_of_minor(nf->minor, kind);
	tail[0] = '\0';
	c = kzalloc(sizeof(*c), GFP_KERNEL);
	if (!c)
		return -ENOMEM;
	snprintf(head, sizeof(head), "nr=0x%x size=%u", nr, size);
	nvs_rx(NVS_RX_ESC, nr, size, node << 8 | _IOC_TYPE(cmd));

	if (nvs_version_at_least(595, 44, 2) && !nvs_size_valid(nr, size)) {
		ret = -EINVAL;
		goto log;
	}
	if (nr == NV_ESC_IOCTL_XFER_CMD) {
		if (size != sizeof(x)) {
			ret = -EINVAL;
			goto log;
		}
		nvs_race_delay();
		if (copy_from_user(&x, uptr, sizeof(x))) {
			ret = -EFAULT;
			goto log;
		}
		nr = x.cmd;
		size = x.size;
		nvs_rx(NVS_RX_XFER, nr, size, node << 8);
		uptr = u64_to_user_ptr(x.ptr);
		snprintf(head, sizeof(head),
			 "nr=0x%x size=%u inner=0x%x isize=%u xsum=%016llx",
			 NV_ESC_IOCTL_XFER_CMD, (u32)sizeof(x), nr, size,
			 nvs_fnv1a(NVS_FNV_INIT, &x, offsetof(typeof(x), ptr)));
		if (size > NVD_MAX_IOCTL_SIZE) {
			ret = -EINVAL;
			goto log;
		}
	}

	buf = kmalloc(size ? size : 1, GFP_KERNEL);
	if (!buf) {
		ret = -ENOMEM;
		goto log;
	}
	nvs_race_delay();
	if (copy_from_user(buf, uptr, size)) {
		ret = -EFAULT;
		goto log;
	}
	nvs_rx_payload(nr, buf, size, node);
	if (READ_ONCE(nvs_read_twice)) {
		ret = nvs_read_again(buf, uptr, size, nr, node);
		if (ret)
			goto log;
	}
	sum = nvs_payload_sum(nr, buf, size);
	snprintf(tail, sizeof(tail), " sum=%016llx", sum);

	ret = nvs_fault_take();
	if (ret) {
		snprintf(tail, sizeof(tail), " sum=%016llx fault", sum);
		goto log;
	}

	if (READ_ONCE(nvs_ioctl_delay_ms))
		msleep_interruptible(READ_ONCE(nvs_ioctl_delay_ms));

	ret = nvs_dispatch(nf, nr, buf, size, c);

	status_off = nvs_status_offset(nr, size);
	if (status_off >= 0) {
		u32 st;

		memcpy(&st, (u8 *)buf + status_off, sizeof(st));
		snprintf(tail, sizeof(tail), " status=0x%x sum=%016llx", st,
			 sum);
	}
	if (copy_to_user(uptr, buf, size))
		ret = -EFAULT;
log:
	nvs_log_call(kind, "op=ioctl %s ret=%ld%s%s", head, ret, tail,
		     c->extra);
	kfree(buf);
	kfree(c);
	return ret;
}

static int nvs_mmap(struct file *filp, struct vm_area_struct *vma)
{
	struct nvs_file *nf = filp->private_data;
	char kind[NVS_KIND_LEN];
	struct nvs_call c = {};
	int ret;

	nvs_kind_of_minor(nf->minor, kind);
	ret = nvs_rm_mmap(vma, &c);
	nvs_log_call(kind, "op=mmap len=%lu pgoff=0x%lx ret=%d%s",
		     vma->vm_end - vma->vm_start, vma->vm_pgoff, ret, c.extra);
	return ret;
}

/* nvidia_poll(): POLLIN|POLLPRI while events are queued on this file. */
static __poll_t nvs_poll(struct file *filp, poll_table *wait)
{
	struct nvs_file *nf = filp->private_data;
	char kind[NVS_KIND_LEN];
	__poll_t mask = 0;

	if (!(filp->f_flags & O_NONBLOCK))
		poll_wait(filp, &nf->ev_wait, wait);
	if (nvs_rm_events_pending(nf))
		mask = EPOLLIN | EPOLLPRI;
	nvs_kind_of_minor(nf->minor, kind);
	nvs_log_call(kind, "op=poll mask=0x%x", (__force unsigned int)mask);
	return mask;
}

const struct file_operations nvs_fops = {
	.owner = THIS_MODULE,
	.open = nvs_open,
	.release = nvs_release,
	.unlocked_ioctl = nvs_ioctl,
	.mmap = nvs_mmap,
	.poll = nvs_poll,
	.llseek = NVS_NO_LLSEEK,
};
