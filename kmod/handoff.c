// SPDX-License-Identifier: GPL-2.0
/*
 * nvmediate: handing a checked call to the driver.
 *
 * The validator (validate.c) decides, and leaves with the call what it
 * read for the driver: the payload in req->kbuf and the rest in req->kept.
 * This is everything between that verdict and the driver's answer, in
 * order:
 *
 *   keep     a call the driver runs with a private fd table reads only
 *            what is bounced: the validator copies the rest (nvm_req_keep())
 *   place    the checked bytes go to the bounce area (bounce.c), laid out
 *            as the driver reads them, the payload's pointers aimed at the
 *            copies; or the driver reads the caller's memory, where there
 *            is nothing to bounce, or bounce=0, or bounce=1 for a caller
 *            that can map the area's addresses itself
 *   admit    what only the placed call shows: an OS descriptor over the
 *            bounce area, lists the driver sizes without its own bound
 *            over what the address space and the node set may have at once
 *   call     the driver, with a private fd table where its payload names
 *            fds (fdplan.c, fdctx.c)
 *   answer   what the driver wrote back goes to the caller's own memory,
 *            the caller's own pointers put back
 *
 * A refusal on the way is recorded in the call's report with its rule, as
 * the validator's are; the driver never sees the call then.
 */
#include <linux/capability.h>
#include <linux/fs.h>
#include <linux/ratelimit.h>
#include <linux/sched.h>
#include <linux/sched/mm.h>
#include <linux/uaccess.h>

#include "handoff.h"
#include "bounce.h"
#include "driver.h"
#include "fdplan.h"
#include "policy.h"
#include "rules.h"
#include "sets.h"

/* Where the driver reads a call's payload from. */
enum nvm_from {
	NVM_FROM_CALLER,	/* the caller's own memory */
	NVM_FROM_BOUNCE,	/* the bounce area: the bytes checked */
};

/*
 * Where a call's pieces lie in its bounce pages, as offsets from the
 * first byte: XFER's header, then the payload, then an NVOS64's rights
 * mask, then the kept nested params.
 */
struct nvm_layout {
	unsigned int hdr;	/* size of XFER's header, 0 without XFER */
	unsigned int mask_at;	/* the rights mask, 0: none */
	unsigned int params_at;	/* the nested params, 0: none */
	unsigned int end;
};

/**
 * struct nvm_handoff - one call between its verdict and the driver's answer
 * @nf: the mediated file
 * @req: the call and what the validator read for the driver
 * @rep: its report, where a refusal is recorded
 * @mediated: the mediated state of a file (node.c), for the fd table
 * @arg: the caller's argument, as the ioctl received it
 * @from: where the driver reads the payload
 * @lay: where the pieces lie, for %NVM_FROM_BOUNCE
 * @bc: the call's bounce pages, for %NVM_FROM_BOUNCE
 */
struct nvm_handoff {
	struct nvm_file *nf;
	struct nvm_req *req;
	struct nvm_report *rep;
	nvm_mediated_fn mediated;
	unsigned long arg;
	enum nvm_from from;
	struct nvm_layout lay;
	struct nvm_bounce_call bc;
};

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

/* Where the pieces of @req go in its bounce pages. */
static void nvm_handoff_layout(const struct nvm_req *req, struct nvm_layout *lay)
{
	const struct nvm_kept *k = &req->kept;

	lay->hdr = req->xfer ? sizeof(req->xfer_hdr) : 0;
	lay->end = lay->hdr + req->size;
	lay->mask_at = 0;
	lay->params_at = 0;
	if (k->rights_read) {
		lay->mask_at = ALIGN(lay->end, 8);
		lay->end = lay->mask_at + sizeof(k->rights_mask);
	}
	if (k->params) {
		lay->params_at = ALIGN(lay->end, 8);
		lay->end = lay->params_at + k->params_size;
	}
}

/*
 * Is the calling address space one that can map memory at the bounce
 * area's addresses itself, as far as is known without a probe?
 */
static bool nvm_handoff_exposed(const struct nvm_file *nf)
{
	/*
	 * Below 64 KiB, a caller that may map low memory (CAP_SYS_RAWIO: host
	 * root, not a container) could reach the area; it could open the
	 * driver's nodes itself anyway.  A sealed area is out of its reach
	 * too, so there every caller gets one.
	 */
	if (!NVM_CAN_SEAL && nvm_capable_noaudit(CAP_SYS_RAWIO))
		return true;
	/* An address space found able to map low memory: retried each second. */
	return READ_ONCE(nf->nobounce_mm) == current->mm &&
	       time_before(jiffies, READ_ONCE(nf->nobounce_until));
}

/*
 * No bounce for a caller that can map the area's addresses: bounce=2
 * refuses its calls, bounce=1 forwards them from its own memory.
 * @probed: a probe has just found so (logged, and remembered).
 */
static int nvm_handoff_unbounced(struct nvm_handoff *h, bool probed)
{
	struct nvm_file *nf = h->nf;

	if (probed) {
		if (nvm_bounce_log_due(nf))
			pr_warn("pid %d (%s): no payload bounce possible: this process can map memory at the area's addresses (vm.mmap_min_addr is below 64 KiB); %s. Remedy: sysctl vm.mmap_min_addr=65536 (docs/security.md)\n",
				task_pid_nr(current), current->comm,
				nvm_bounce_mode >= 2 ? "calls refused (bounce=2)" :
				"calls forwarded from the caller's memory, which it could change after the check (bounce=1)");
		nvm_nobounce_note(nf);
	}
	if (nvm_bounce_mode < 2)
		return 0;
	if (nvm_bounce_log_due(nf))
		pr_warn("pid %d (%s): no payload bounce possible for this process (it may map low memory); call refused (bounce=2, docs/security.md)\n",
			task_pid_nr(current), current->comm);
	return -EPERM;
}

/* Copy the checked bytes into the call's bounce pages, pointers aimed there. */
static void nvm_handoff_write(struct nvm_handoff *h)
{
	const struct nvm_req *req = h->req;
	const struct nvm_kept *k = &req->kept;
	const struct nvm_layout *lay = &h->lay;
	void *kaddr = h->bc.kaddr;

	if (req->xfer) {
		struct nvm_xfer x = req->xfer_hdr;

		x.ptr = h->bc.uaddr + lay->hdr;
		memcpy(kaddr, &x, lay->hdr);
	}
	memcpy(kaddr + lay->hdr, req->kbuf, req->size);
	if (lay->mask_at) {
		u64 p = h->bc.uaddr + lay->mask_at;

		memcpy(kaddr + lay->mask_at, k->rights_mask, sizeof(k->rights_mask));
		memcpy(kaddr + lay->hdr + req->verdict.rights_off, &p, sizeof(p));
	}
	if (lay->params_at) {
		u64 p = h->bc.uaddr + lay->params_at;

		memcpy(kaddr + lay->params_at, k->params, k->params_size);
		memcpy(kaddr + lay->hdr + req->verdict.nested_at, &p, sizeof(p));
	}
}

/*
 * Step "place": the call's checked bytes into the bounce area (the file
 * comment and bounce.c), or the driver reads the caller's memory.
 *
 * Return: 0 with @h->from set; else the errno that refuses the call:
 * -EPERM for bounce=2 and a caller that can map the area's addresses, or
 * when the area cannot be made for a reason other than -ENOMEM (memory or
 * vm.max_map_count) or -EINTR (killed).
 */
static int nvm_handoff_place(struct nvm_handoff *h)
{
	const struct nvm_req *req = h->req;
	int ret;

	h->from = NVM_FROM_CALLER;
	if (!req->kbuf || !req->size || !nvm_bounce_mode)
		return 0;
	if (nvm_handoff_exposed(h->nf))
		return nvm_handoff_unbounced(h, false);
	nvm_handoff_layout(req, &h->lay);
	ret = nvm_bounce_get(&h->bc, h->lay.end);
	if (ret == NVM_BOUNCE_EXPOSED)
		return nvm_handoff_unbounced(h, true);
	if (ret) {
		int err = ret == -ENOMEM || ret == -EINTR ? ret : -EPERM;

		/* Killed while waiting: nothing to tell. */
		if (ret != -EINTR && nvm_bounce_log_due(h->nf))
			pr_warn("pid %d (%s): call refused: no payload bounce area: %s (%d); answered %d (docs/errors.md)\n",
				task_pid_nr(current), current->comm, h->bc.why ?: "failed", ret, err);
		return err;
	}
	nvm_handoff_write(h);
	h->from = NVM_FROM_BOUNCE;
	return 0;
}

/*
 * Step "admit": what only a placed call shows.
 *
 * Return: 0, or the errno of the refusal, recorded in @h->rep.
 */
static int nvm_handoff_admit(struct nvm_handoff *h)
{
	const struct nvm_req *req = h->req;
	const struct nvm_verdict *v = &req->verdict;
	u64 nomax = req->kept.nomax_bytes;

	/*
	 * An OS descriptor over the bounce area would leave the driver, and
	 * through it the GPU, holding pages that later calls' payloads lie
	 * in (docs/security.md, section 2): refused, audited or not.
	 */
	if (v->osdesc_len && nvm_bounce_overlaps(v->osdesc, v->osdesc_len))
		return nvm_report_refused(h->rep, NVM_RULE(OSDESC_BOUNCE_AREA), -EPERM);
	/*
	 * Lists the driver allocates at the size the caller names, charged to
	 * no cgroup: bounded per call by the validator, per address space and
	 * per node set here (docs/errors.md).  The address space's charge
	 * goes with the bounce pages (nvm_bounce_put()).
	 */
	if ((h->from == NVM_FROM_BOUNCE &&
	     nvm_bounce_charge(&h->bc, nomax, NVM_EMB_NOMAX_INFLIGHT)) ||
	    !nvm_charge_within(&h->nf->set->nomax_charged, nomax, NVM_EMB_NOMAX_SET_INFLIGHT))
		return nvm_report_refused(h->rep, NVM_RULE(CTRL_EMBEDDED_INFLIGHT), -EBUSY);
	return 0;
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
 * Step "call": the driver, on the placed payload, with a private fd table
 * when it will look numbers of the payload up (fdctx.c).
 *
 * Return: the driver's answer, or the errno that kept the call from it
 * (a refusal of a node not given recorded in @h->rep).
 */
static long nvm_handoff_call(struct nvm_handoff *h)
{
	struct nvm_file *nf = h->nf;
	struct nvm_req *req = h->req;
	unsigned long arg = h->from == NVM_FROM_BOUNCE ? h->bc.uaddr : h->arg;
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
	ret = nvm_fdctx_create(&plan, h->mediated, &ctx);
	if (ret == NVM_FDCTX_NOT_GIVEN)
		return nvm_report_refused(h->rep, NVM_RULE(FD_NODE_NOT_GIVEN), -EPERM);
	if (ret)
		return ret;
	ret = nvm_fdctx_enter(ctx);
	if (!ret) {
		ret = nvm_drv_ioctl(nf->backing, req->cmd, arg, req->compat);
		nvm_fdctx_leave(ctx);
		nvm_fdctx_settle(ctx);
	}
	nvm_fdctx_destroy(ctx);
	return ret;
}

/*
 * Step "answer": what the driver wrote back goes to the caller's own
 * payload, with the caller's own pRightsRequested or params pointer where
 * the bounce pointed it elsewhere; bounced params the driver changed go to
 * the caller's own.  Then the bounce pages are let go.
 *
 * Return: -EFAULT when the caller's memory cannot take it, else 0.
 */
static int nvm_handoff_answer(struct nvm_handoff *h)
{
	const struct nvm_req *req = h->req;
	const struct nvm_kept *k = &req->kept;
	const struct nvm_layout *lay = &h->lay;
	struct nvm_bounce_call *bc = &h->bc;
	int ret = 0;

	/* Before any copy to the caller's memory, which it can make stall. */
	nvm_bounce_revoke(bc);
	if (!nvm_bounce_written(bc))
		goto out;
	if (lay->mask_at)
		memcpy(bc->kaddr + lay->hdr + req->verdict.rights_off,
		       req->kbuf + req->verdict.rights_off, sizeof(u64));
	if (lay->params_at) {
		if (memcmp(bc->kaddr + lay->params_at, k->params, k->params_size) &&
		    copy_to_user(u64_to_user_ptr(k->params_user), bc->kaddr + lay->params_at,
				 k->params_size))
			ret = -EFAULT;
		memcpy(bc->kaddr + lay->hdr + req->verdict.nested_at,
		       req->kbuf + req->verdict.nested_at, sizeof(u64));
	}
	if (copy_to_user(req->payload, bc->kaddr + lay->hdr, req->size))
		ret = -EFAULT;
out:
	nvm_bounce_put(bc);
	return ret;
}

/**
 * nvm_handoff() - hand a call the validator let through to the driver
 * @nf: the mediated file
 * @req: the call, as nvm_validate() left it when it returned 0
 * @rep: its report; set to a refusal made on the way
 * @mediated: the mediated state of a file, NULL for any other file
 *	(node.c's nvm_file_of())
 * @arg: the caller's argument, as the ioctl received it
 *
 * The steps are in the file comment; the caller frees @req.
 *
 * Return: the driver's answer; or the negative errno of a refusal made on
 * the way (recorded in @rep: see docs/errors.md) or of a failure that
 * kept the call from the driver (-ENOMEM, -EINTR, -EFAULT); -EFAULT also
 * when the driver's answer cannot be written back to the caller.
 */
long nvm_handoff(struct nvm_file *nf, struct nvm_req *req, struct nvm_report *rep,
		 nvm_mediated_fn mediated, unsigned long arg)
{
	struct nvm_handoff h = {
		.nf = nf, .req = req, .rep = rep, .mediated = mediated, .arg = arg,
	};
	long ret;
	int err;

	if (nvm_fdplan_wanted(&req->verdict)) {
		ret = nvm_req_keep(nf, req, rep);
		if (ret)
			return ret;
	}
	ret = nvm_handoff_place(&h);
	if (ret)
		return ret;
	ret = nvm_handoff_admit(&h);
	if (ret) {
		if (h.from == NVM_FROM_BOUNCE)
			nvm_bounce_put(&h.bc);
		return ret;
	}
	ret = nvm_handoff_call(&h);
	/* The driver has freed them: not held over a copy that may stall. */
	atomic64_sub(req->kept.nomax_bytes, &nf->set->nomax_charged);
	if (h.from == NVM_FROM_BOUNCE) {
		err = nvm_handoff_answer(&h);
		if (err && ret >= 0)
			ret = err;
	}
	return ret;
}
