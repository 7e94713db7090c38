// SPDX-License-Identifier: GPL-2.0
/*
 * nvmediate: the mediated device nodes and their file operations.
 *
 *   /dev/nvproxy        minor 255  mediates /dev/nvidiactl
 *   /dev/nvproxy<N>     minor N    mediates /dev/nvidia<N>, N < num_gpus
 *   /dev/nvproxy-uvm    minor 254  mediates /dev/nvidia-uvm
 *
 * Those are the nodes of the default set; set K (sets.c) has the minors
 * K * 256 + the same, named /dev/nvmediate/<set>/nvidiactl, nvidia<N> and
 * nvidia-uvm.  A file keeps the set it was opened on, and with it the
 * set's profile.
 *
 * Every operation is forwarded to the backing file opened for this file
 * (driver.c), in the caller's context; every ioctl is first checked by the
 * validator (validate.c), and one it refuses never reaches the driver;
 * calls whose payloads carry fd numbers run with a private fd table
 * (fdctx.c).
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
#include <linux/capability.h>
#include <linux/cdev.h>
#include <linux/compat.h>
#include <linux/fs.h>
#include <linux/kdev_t.h>
#include <linux/module.h>
#include <linux/poll.h>
#include <linux/ratelimit.h>
#include <linux/sched.h>
#include <linux/sched/mm.h>
#include <linux/slab.h>
#include <linux/uaccess.h>

#include "node.h"
#include "abi.h"
#include "bounce.h"
#include "driver.h"
#include "fdctx.h"
#include "fdplan.h"
#include "sets.h"
#include "stats.h"
#include "validate.h"
#include "rules.h"
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

/*
 * Remember that the calling address space can map the area's addresses
 * itself, for a second.  The file holds the mm_struct (mmgrab), so that
 * the pointer cannot come back as another process's address space while
 * it is remembered.
 */
static void nvm_nobounce_note(struct nvm_file *nf)
{
	struct mm_struct *old;

	mmgrab(current->mm);
	WRITE_ONCE(nf->nobounce_until, jiffies + HZ);
	old = xchg(&nf->nobounce_mm, current->mm);
	if (old)
		mmdrop(old);
}

/*
 * Log a bounce failure of the calling process: once a minute per file and
 * address space, and never more than the kernel's ratelimit overall.
 */
static bool nvm_bounce_log_due(struct nvm_file *nf)
{
	static DEFINE_RATELIMIT_STATE(rs, 5 * HZ, 10);

	if (READ_ONCE(nf->warn_mm) == current->mm &&
	    time_before(jiffies, READ_ONCE(nf->warn_until)))
		return false;
	WRITE_ONCE(nf->warn_mm, current->mm);
	WRITE_ONCE(nf->warn_until, jiffies + 60 * HZ);
	return __ratelimit(&rs);
}

/* Where an NVOS64's rights mask goes in the bounce area, or 0: none. */
static unsigned int nvm_bounce_mask_at(const struct nvm_req *req, unsigned int hdr)
{
	return req->rights_read ? ALIGN(hdr + req->size, 8) : 0;
}

/* Where the checked nested params go in the bounce area, or 0: none. */
static unsigned int nvm_bounce_params_at(const struct nvm_req *req, unsigned int hdr)
{
	unsigned int mask_at = nvm_bounce_mask_at(req, hdr);

	if (!req->params_bounce)
		return 0;
	return mask_at ? ALIGN(mask_at + sizeof(req->rights_mask), 8) : ALIGN(hdr + req->size, 8);
}

/*
 * Place the checked payload in the bounce area (bounce.c) and point the
 * call at it: @bc->uaddr replaces the caller's argument; for XFER, the
 * header is rewritten to point at the inner payload just after it.  An
 * NVOS64's rights mask, read by the validator, goes after the payload and
 * the bounced pRightsRequested points at it; after them go the nested
 * params the validator copied (a control's, for the lists the driver will
 * size by them, or a control's or class's in a call made with a private
 * fd table: validate.c), the bounced payload's pointer pointing at them.
 * A UVM command's payload the validator copied is bounced like an
 * escape's.
 *
 * Return: 0; -ENOSPC when the call has no payload to bounce or the caller
 * can map memory below vm.mmap_min_addr itself (then the bounce parameter
 * decides); else the errno that refuses the call: -ENOMEM when the area
 * cannot be made for lack of memory or of vm.max_map_count, -EINTR when
 * killed, -EPERM for any other failure.
 */
static int nvm_bounce_prepare(struct nvm_file *nf, struct nvm_req *req,
			       struct nvm_bounce_call *bc)
{
	unsigned int hdr = req->xfer ? sizeof(req->xfer_hdr) : 0;
	unsigned int mask_at = nvm_bounce_mask_at(req, hdr);
	unsigned int params_at = nvm_bounce_params_at(req, hdr);
	unsigned int end = hdr + req->size;
	int ret;

	if (params_at)
		end = params_at + req->params_size;
	else if (mask_at)
		end = mask_at + sizeof(req->rights_mask);
	if (!req->kbuf || !req->size || !nvm_bounce_mode)
		return -ENOSPC;
	/*
	 * Below 64 KiB, a caller that may map low memory (CAP_SYS_RAWIO: host
	 * root, not a container) could reach the area; it could open the
	 * driver's nodes itself anyway.  A sealed area is out of its reach
	 * too, so there every caller gets one.
	 */
	if (!NVM_CAN_SEAL && nvm_capable_noaudit(CAP_SYS_RAWIO))
		return -ENOSPC;
	/* An address space found able to map low memory: retried each second. */
	if (READ_ONCE(nf->nobounce_mm) == current->mm &&
	    time_before(jiffies, READ_ONCE(nf->nobounce_until)))
		return -ENOSPC;
	ret = nvm_bounce_get(bc, end);
	if (ret == -ENOSPC) {
		if (nvm_bounce_log_due(nf))
			pr_warn("pid %d (%s): no payload bounce possible: this process can map memory at the area's addresses (vm.mmap_min_addr is below 64 KiB); %s. Remedy: sysctl vm.mmap_min_addr=65536 (docs/security.md)\n",
				task_pid_nr(current), current->comm,
				nvm_bounce_mode >= 2 ? "calls refused (bounce=2)" :
				"calls forwarded from the caller's memory, which it could change after the check (bounce=1)");
		nvm_nobounce_note(nf);
		return ret;
	}
	if (ret) {
		int err = ret == -ENOMEM || ret == -EINTR ? ret : -EPERM;

		/* Killed while waiting: nothing to tell. */
		if (ret != -EINTR && nvm_bounce_log_due(nf))
			pr_warn("pid %d (%s): call refused: no payload bounce area: %s (%d); answered %d (docs/errors.md)\n",
				task_pid_nr(current), current->comm, bc->why ?: "failed", ret, err);
		return err;
	}
	if (req->xfer) {
		typeof(req->xfer_hdr) h = req->xfer_hdr;

		h.ptr = bc->uaddr + hdr;
		memcpy(bc->kaddr, &h, hdr);
	}
	memcpy(bc->kaddr + hdr, req->kbuf, req->size);
	if (mask_at) {
		u64 p = bc->uaddr + mask_at;

		memcpy(bc->kaddr + mask_at, req->rights_mask, sizeof(req->rights_mask));
		memcpy(bc->kaddr + hdr + req->verdict.rights_off, &p, sizeof(p));
	}
	if (params_at) {
		u64 p = bc->uaddr + params_at;

		memcpy(bc->kaddr + params_at, req->params, req->params_size);
		memcpy(bc->kaddr + hdr + req->verdict.nested_at, &p, sizeof(p));
	}
	return 0;
}

/*
 * What the driver wrote back goes to the caller's own payload, with the
 * caller's own pRightsRequested or params pointer where the bounce pointed
 * it elsewhere; bounced params the driver changed go to the caller's own.
 */
static int nvm_bounce_finish(struct nvm_req *req, struct nvm_bounce_call *bc)
{
	unsigned int hdr = req->xfer ? sizeof(req->xfer_hdr) : 0;
	unsigned int params_at = nvm_bounce_params_at(req, hdr);
	int ret = 0;

	/* Before any copy to the caller's memory, which it can make stall. */
	nvm_bounce_revoke(bc);
	if (!nvm_bounce_written(bc))
		goto out;
	if (nvm_bounce_mask_at(req, hdr))
		memcpy(bc->kaddr + hdr + req->verdict.rights_off,
		       req->kbuf + req->verdict.rights_off, sizeof(u64));
	if (params_at) {
		if (memcmp(bc->kaddr + params_at, req->params, req->params_size) &&
		    copy_to_user(u64_to_user_ptr(req->params_user), bc->kaddr + params_at,
				 req->params_size))
			ret = -EFAULT;
		memcpy(bc->kaddr + hdr + req->verdict.nested_at,
		       req->kbuf + req->verdict.nested_at, sizeof(u64));
	}
	if (copy_to_user(req->payload, bc->kaddr + hdr, req->size))
		ret = -EFAULT;
out:
	nvm_bounce_put(bc);
	return ret;
}

/*
 * A capability node or IMEX channel the caller names in an fd field: NVIDIA's
 * own node, given to the container as it is, and given to the call's node
 * set (its profile's nvidia_caps or imex_channels).  The driver then checks
 * that it is the capability or channel the call asks for.
 */
static bool nvm_fdnode_given(const void *priv, struct file *file, u8 kind)
{
	const struct nvm_file *nf = priv;
	struct inode *inode = file_inode(file);
	const struct nvm_profile *p;
	bool given;
	int idx;

	if (!S_ISCHR(inode->i_mode) || !nvm_drv_owns(file))
		return false;
	p = nvm_profile_enter(nf, &idx);
	given = nvm_profile_gives(p, kind == NVM_FDPLAN_CAP ? NVM_FDNODE_CAP : NVM_FDNODE_IMEX,
				  inode->i_rdev);
	nvm_profile_exit(idx);
	return given;
}

/*
 * AMPERE_SMC_PARTITION_REF with the device-profiling swizzId subscribes to
 * the whole GPU, not to an instance, and the driver asks no capability
 * node for it: only, when profiling is restricted to administrators (its
 * default, which hosts lift for profilers), that the caller is one.  One
 * such subscription per GPU; while it lives the driver answers memory
 * queries for every instance.  So it is the profiling capability's, not
 * mig's.  Its params hold capDescriptor (8 bytes) then swizzId, in every
 * release (abi/layouts.txt); read from the validator's copy, which the
 * driver is handed.
 */
#define NVM_AMPERE_SMC_PARTITION_REF	0xc637
#define NVM_DEVICE_PROFILING_SWIZZID	0xfffffffeU
#define NVM_C637_SWIZZID_OFF		8

static bool nvm_device_profiling(const struct nvm_file *nf, const struct nvm_req *req)
{
	const struct nvm_profile *p;
	bool profiling;
	u32 swizzid;
	int idx;

	if (req->verdict.family != NVM_FAM_ALLOC ||
	    req->verdict.number != NVM_AMPERE_SMC_PARTITION_REF || !req->params ||
	    req->params_size < NVM_C637_SWIZZID_OFF + sizeof(swizzid))
		return false;
	memcpy(&swizzid, req->params + NVM_C637_SWIZZID_OFF, sizeof(swizzid));
	if (swizzid != NVM_DEVICE_PROFILING_SWIZZID)
		return false;
	p = nvm_profile_enter(nf, &idx);
	profiling = p->caps & NVM_CAP_PROFILING;
	nvm_profile_exit(idx);
	return !profiling;
}

static long nvm_call_driver(struct nvm_file *nf, struct nvm_req *req, unsigned long arg,
			    struct nvm_report *rep)
{
	struct nvm_fdplan plan;
	struct nvm_fdctx *ctx;
	long ret;

	ret = nvm_fdplan_build(req, &plan);
	if (ret)
		return ret;
	if (!plan.swap)
		return nvm_drv_ioctl(nf->backing, req->cmd, arg, req->compat);

	plan.given = nvm_fdnode_given;
	plan.given_priv = nf;
	ctx = nvm_fdctx_create(&plan, nvm_file_of);
	if (ctx == ERR_PTR(-EPERM))
		return nvm_report_refused(rep, NVM_RULE(FD_NODE_NOT_GIVEN), -EPERM);
	if (IS_ERR(ctx))
		return PTR_ERR(ctx);
	ret = nvm_fdctx_enter(ctx);
	if (!ret) {
		ret = nvm_drv_ioctl(nf->backing, req->cmd, arg, req->compat);
		nvm_fdctx_leave(ctx);
		nvm_fdctx_settle(ctx);
	}
	nvm_fdctx_destroy(ctx);
	return ret;
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
	struct nvm_bounce_call bc;
	struct nvm_report rep = { };
	long ret;
	int err;

	/* Checked against the file's ABI and the policy first (validate.c). */
	ret = nvm_validate(nf, &req, &rep);
	/* A call made with a private fd table reads only what is bounced. */
	if (!ret && nvm_fdplan_wanted(&req.verdict))
		ret = nvm_req_keep(&req, &rep);
	if (!ret && nvm_device_profiling(nf, &req))
		ret = nvm_report_refused(&rep, NVM_RULE(MIG_DEVICE_PROFILING), -EPERM);
	if (ret)
		goto out;
	/* Then handed to the driver from where the caller cannot change it. */
	err = nvm_bounce_prepare(nf, &req, &bc);
	if (err == -ENOSPC && nvm_bounce_mode >= 2 && req.kbuf && req.size) {
		if (nvm_bounce_log_due(nf))
			pr_warn("pid %d (%s): no payload bounce possible for this process (it may map low memory); call refused (bounce=2, docs/security.md)\n",
				task_pid_nr(current), current->comm);
		ret = -EPERM;
		goto out;
	} else if (err && err != -ENOSPC) {
		ret = err;
		goto out;
	}
	/*
	 * An OS descriptor over the bounce area would leave the driver, and
	 * through it the GPU, holding pages that later calls' payloads lie
	 * in (docs/security.md, section 2): refused, audited or not.
	 */
	if (req.verdict.osdesc_len &&
	    nvm_bounce_overlaps(req.verdict.osdesc, req.verdict.osdesc_len)) {
		if (!err)
			nvm_bounce_put(&bc);
		ret = nvm_report_refused(&rep, NVM_RULE(OSDESC_BOUNCE_AREA), -EPERM);
		goto out;
	}
	/*
	 * Lists the driver allocates at the size the caller names, charged to
	 * no cgroup: bounded per call by the validator, per address space and
	 * per node set here (docs/errors.md).
	 */
	if ((!err && nvm_bounce_charge(&bc, req.nomax_bytes, NVM_EMB_NOMAX_INFLIGHT)) ||
	    !nvm_charge_within(&nf->set->nomax_charged, req.nomax_bytes,
			       NVM_EMB_NOMAX_SET_INFLIGHT)) {
		if (!err)
			nvm_bounce_put(&bc);
		ret = nvm_report_refused(&rep, NVM_RULE(CTRL_EMBEDDED_INFLIGHT), -EBUSY);
		goto out;
	}
	ret = nvm_call_driver(nf, &req, err ? arg : bc.uaddr, &rep);
	/* The driver has freed them: not held over a copy that may stall. */
	atomic64_sub(req.nomax_bytes, &nf->set->nomax_charged);
	if (!err) {
		err = nvm_bounce_finish(&req, &bc);
		if (err && ret >= 0)
			ret = err;
	}
out:
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
 * nvm_node_init() - reserve the minors of every possible set
 * @devt: set to the first device number
 *
 * The device nodes themselves are made for each set by sets.c; nothing
 * answers an open of them before nvm_node_start().
 *
 * Return: 0 or a negative errno; nothing is left registered on failure.
 */
int nvm_node_init(dev_t *devt)
{
	int ret;

	ret = alloc_chrdev_region(&nvm_devt, 0, NVM_MINORS * NVM_MAX_SETS, "nvmediate");
	if (ret)
		return ret;
	cdev_init(&nvm_cdev, &nvm_fops);
	nvm_cdev.owner = THIS_MODULE;
	*devt = nvm_devt;
	return 0;
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

/* Undo nvm_node_init(). */
void nvm_node_exit(void)
{
	unregister_chrdev_region(nvm_devt, NVM_MINORS * NVM_MAX_SETS);
}
