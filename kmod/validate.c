// SPDX-License-Identifier: GPL-2.0
/*
 * nvmediate: the validator.  Every ioctl made on a mediated node is checked
 * here against the descriptor of the ABI its file was opened with
 * (abi/generated/) and the policy of the module parameters, before
 * node.c forwards it; a refused call never reaches the driver.
 *
 * One table-driven check per family (escape.c, ctrl.c, alloc.c, uvm.c),
 * each a pure function of a kernel copy of the payload, so that KUnit can
 * test the decisions without user memory.  This file is the only part of
 * the validator that touches user memory: it copies the top-level payload
 * once, unwraps NV_ESC_IOCTL_XFER_CMD, checks that nested params are
 * readable at the size the table gives, and writes the driver's status
 * into a payload the validator answers itself.
 *
 * The kernel copy stays with the request (struct nvm_req) after the
 * checks: node.c hands exactly those bytes to the driver from the bounce
 * area (bounce.c), so a payload rewritten after the check does not reach
 * the driver.
 *
 * Locking: the decisions read the set's profile under its SRCU read side
 * (policy.c).  Nothing in that section touches user memory, which a
 * caller can make wait as long as it likes (userfaultfd, FUSE): the
 * payload and XFER's header are copied before it (nvm_fetch()), and the
 * status of an answer is written and nested params are checked readable
 * after it (nvm_validate_finish()).  A read that failed before the
 * decisions is reported where the decisions reach it, so the answers and
 * their order are those of checking first and reading after.
 *
 * Answers (docs/errors.md lists them all):
 *   -EINVAL  unknown escape, or not an NVIDIA ioctl; wrong size, a flag
 *            user space may not set, wrong node, params NULL while their
 *            size is not 0 or the reverse
 *   -EINVAL or -ENOSYS  a UVM command the UVM node does not take (what
 *            that driver version answers: nvabi_abi_uvm_unknown)
 *   -EFAULT  the payload or nested params cannot be read
 *   -E2BIG   control or class params larger than 1 MiB
 *   -EPERM   refused by the policy (privilege, FINN, GSS-legacy, kernel
 *            callback events)
 *   0 with the payload's status set: NV_ERR_NOT_SUPPORTED for an unknown
 *            control command, NV_ERR_INVALID_CLASS for an unknown class,
 *            as the driver answers them.
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/capability.h>
#include <linux/cgroup.h>
#include <linux/compat.h>
#include <linux/ioctl.h>
#include <linux/kernel.h>
#include <linux/pagemap.h>
#include <linux/sched.h>
#include <linux/slab.h>
#include <linux/uaccess.h>

#include "nvm.h"
#include "nvabi_lookup.h"

/* Lookups of the generated tables for one ABI (nvabi_lookup.h). */
NVABI_DEFINE_LOOKUP(, nvm_abi_esc, struct nvabi_esc, nvabi_escs, NVABI_NR_ESCS, nr)
NVABI_DEFINE_LOOKUP(, nvm_abi_ctrl, struct nvabi_ctrl, nvabi_ctrls, NVABI_NR_CTRLS, cmd)
NVABI_DEFINE_LOOKUP(, nvm_abi_class, struct nvabi_class, nvabi_classes, NVABI_NR_CLASSES, hclass)
NVABI_DEFINE_LOOKUP(, nvm_abi_uvm, struct nvabi_uvm, nvabi_uvms, NVABI_NR_UVMS, cmd)

/**
 * nvm_abi_rmlayout() - where the RM payloads keep their fields in ABI @abi
 * @abi: ABI number
 *
 * Return: the layout; never NULL.
 */
const struct nvabi_rmlayout *nvm_abi_rmlayout(unsigned int abi)
{
	if (abi >= NVABI_NR_ABIS)
		abi = 0;
	return &nvabi_rmlayouts[nvabi_abi_rmlayout[abi]];
}

/**
 * nvm_refuse() - record a refusal answered with an errno
 * @v: the verdict
 * @err: negative errno user space sees
 * @rule: the check that refused
 *
 * Return: false, for "return nvm_refuse(...)" in a check.
 */
bool nvm_refuse(struct nvm_verdict *v, int err, const char *rule)
{
	v->err = err;
	v->rule = rule;
	return false;
}

/**
 * nvm_answer() - record a refusal the driver answers in the payload
 * @v: the verdict
 * @status: NV_STATUS written at @off; the ioctl returns 0
 * @off: byte offset of the status field in the checked payload
 * @rule: the check that refused
 *
 * Return: false.
 */
bool nvm_answer(struct nvm_verdict *v, u32 status, unsigned int off, const char *rule)
{
	v->err = 0;
	v->status = status;
	v->status_off = off;
	v->rule = rule;
	return false;
}

/**
 * nvm_priv_check() - the default policy for an entry's privilege
 * @priv: NVABI_PRIV_* of the entry
 * @policy: NVM_POLICY_* of the caller
 * @v: set to a refusal when the policy refuses
 * @rule: the rule's name for a refusal of an administrator-only entry
 *
 * Entries any user may call pass (and those whose privilege the release
 * does not encode: the driver checks them itself); administrator-only
 * entries pass only with %NVM_POLICY_ROOT; kernel-only, RM-internal and
 * no-caller entries never.
 *
 * Return: true when the entry may be called.
 */
bool nvm_priv_check(unsigned int priv, unsigned int policy, struct nvm_verdict *v,
		    const char *rule)
{
	switch (priv) {
	case NVABI_PRIV_UNKNOWN:
	case NVABI_PRIV_USER:
		return true;
	case NVABI_PRIV_ROOT:
		if (policy & NVM_POLICY_ROOT)
			return true;
		return nvm_refuse(v, -EPERM, rule);
	default:
		return nvm_refuse(v, -EPERM, "kernel-only");
	}
}

/**
 * nvm_decide_payload() - the checks that read an escape's payload
 * @c: the call; @c->payload holds @c->size bytes
 * @v: verdict, filled in
 *
 * Return: true when the call may be forwarded.
 */
bool nvm_decide_payload(const struct nvm_call *c, struct nvm_verdict *v)
{
	if (c->nr == NVM_NV_ESC_RM_CONTROL)
		return nvm_ctrl_decide(c, v);
	if (c->nr == NVM_NV_ESC_RM_ALLOC)
		return nvm_alloc_decide(c, v);
	return true;
}

/**
 * nvm_decide() - every check of an escape, on a kernel copy (pure)
 * @c: the call, its payload already in kernel memory
 * @v: verdict, filled in
 *
 * The validator makes the same two steps with the copy in between; this
 * composition is what the KUnit suite tests.
 *
 * Return: true when the call may be forwarded.
 */
bool nvm_decide(const struct nvm_call *c, struct nvm_verdict *v)
{
	memset(v, 0, sizeof(*v));
	return nvm_esc_decide(c, v) && nvm_decide_payload(c, v);
}

/* The knobs of the file's profile (the module parameters without one). */
static unsigned int nvm_policy(const struct nvm_profile *prof)
{
	bool root = prof ? prof->allow_root : nvm_allow_root;
	unsigned int p = 0;

	if (root && capable(CAP_SYS_ADMIN))
		p |= NVM_POLICY_ROOT;
	if (prof ? prof->allow_finn : nvm_allow_finn)
		p |= NVM_POLICY_FINN;
	if (prof ? prof->allow_gss : nvm_allow_gss)
		p |= NVM_POLICY_GSS;
	return p;
}

static int nvm_copy_in(struct nvm_req *req, const void __user *src, unsigned int size)
{
	req->kbuf = req->small;
	if (size > sizeof(req->small)) {
		req->kbuf = kmalloc(size, GFP_KERNEL_ACCOUNT);
		if (!req->kbuf)
			return -ENOMEM;
	}
	if (copy_from_user(req->kbuf, src, size))
		return -EFAULT;
	return 0;
}

/**
 * nvm_req_free() - release what the validator kept of a request
 * @req: the request
 */
void nvm_req_free(struct nvm_req *req)
{
	if (req->kbuf != req->small)
		kfree(req->kbuf);
	req->kbuf = NULL;
}

/**
 * struct nvm_fetched - the user memory of a call, read before the decisions
 *	and written after them
 * @hdr_err: XFER's header could not be read (-EFAULT), else 0
 * @payload_err: the payload copy's error; 1 when it was not copied
 * @answer_at: where the status of an answer goes, or NULL
 * @answer: that status
 * @readable: user address of nested params that must be readable
 * @readable_size: their size
 * @readable_rule: the rule refusing them when they are not; NULL when
 *	nothing is to be checked
 */
struct nvm_fetched {
	int hdr_err;
	int payload_err;
	void __user *answer_at;
	u32 answer;
	u64 readable;
	u32 readable_size;
	const char *readable_rule;
};

/*
 * Copy what the decisions of an escape will read: XFER's header and the
 * payload at the size the call gives (at most 16 KiB: the ioctl's 14-bit
 * size, or XFER's inner size, which is refused above 16384).
 */
static void nvm_fetch(struct nvm_req *req, struct nvm_fetched *f)
{
	unsigned int nr = _IOC_NR(req->cmd), size = _IOC_SIZE(req->cmd);
	void __user *arg = req->arg;

	f->payload_err = 1;
	if (_IOC_TYPE(req->cmd) != NVM_NV_IOCTL_MAGIC)
		return;
	if (nr == NVM_NV_ESC_XFER && size == sizeof(req->xfer_hdr)) {
		if (copy_from_user(&req->xfer_hdr, arg, sizeof(req->xfer_hdr))) {
			f->hdr_err = -EFAULT;
			return;
		}
		size = req->xfer_hdr.size;
		arg = u64_to_user_ptr(req->xfer_hdr.ptr);
		if (size > NVM_NV_MAX_IOCTL_SIZE)
			return;
	}
	f->payload_err = nvm_copy_in(req, arg, size);
}

/*
 * Nested params must be readable at the size the table gives, as the
 * driver will read them: one byte of every page is touched, nothing is
 * copied (never more than NVM_PARAMS_MAX bytes, checked by the decision).
 */
static int nvm_check_readable(u64 uptr, u32 size)
{
	const char __user *p = u64_to_user_ptr(uptr);

	if (!size)
		return 0;
	if (!access_ok(p, size))
		return -EFAULT;
	return nvm_fault_in_readable(p, size) ? -EFAULT : 0;
}

/*
 * What the call became, for stats.c: the family and number the checks got
 * to, and the verdict.  Called on every path out of the validator.
 */
static int nvm_report_set(struct nvm_report *rep, const struct nvm_call *c,
			  const struct nvm_verdict *v, enum nvm_outcome out, int ret)
{
	rep->family = c->kind == NVM_NODE_UVM ? NVM_FAM_UVM : v->family;
	rep->nr = v->family == NVM_FAM_ESCAPE ? c->nr : v->number;
	rep->size = v->family == NVM_FAM_CTRL ? v->number_size : c->size;
	rep->xfer = c->xfer;
	rep->outcome = out;
	rep->rule = v->rule;
	rep->err = v->err;
	rep->status = v->err ? 0 : v->status;
	return ret;
}

/* A refusal found outside the decisions: a payload that cannot be read. */
static int nvm_report_fault(struct nvm_report *rep, const struct nvm_call *c,
			    struct nvm_verdict *v, int err, const char *rule)
{
	nvm_refuse(v, err, rule);
	return nvm_report_set(rep, c, v, NVM_OUT_REFUSED, err);
}

/*
 * Refuse, or in the profile's audit mode record and forward (stats.c logs
 * either).
 */
static int nvm_verdict_apply(const struct nvm_file *nf, const struct nvm_call *c,
			     const struct nvm_verdict *v, void __user *payload,
			     struct nvm_report *rep, struct nvm_fetched *f)
{
	if (c->prof ? c->prof->audit : nvm_audit) {
		if (nf->set)
			nvm_record_add(&nf->set->rec, v);
		return nvm_report_set(rep, c, v, NVM_OUT_AUDITED, 0);
	}
	if (v->err)
		return nvm_report_set(rep, c, v, NVM_OUT_REFUSED, v->err);
	if (v->status_off + sizeof(u32) > c->size)
		return nvm_report_set(rep, c, v, NVM_OUT_REFUSED, -EINVAL);
	/* Written by nvm_validate_finish(), outside the read side. */
	f->answer_at = payload + v->status_off;
	f->answer = v->status;
	return nvm_report_set(rep, c, v, NVM_OUT_ANSWERED, NVM_ANSWERED);
}

static unsigned int nvm_file_abi(const struct nvm_file *nf)
{
	const struct nvabi_range *r = nf->range ? nf->range->abi : NULL;

	return r ? r->abi : 0;
}

static int nvm_validate_uvm(const struct nvm_file *nf, const struct nvm_profile *prof,
			    struct nvm_req *req, struct nvm_report *rep, struct nvm_fetched *f)
{
	struct nvm_call c = { .abi = nvm_file_abi(nf), .kind = nf->kind, .prof = prof,
			      .nr = req->cmd };
	struct nvm_verdict v = { };
	u32 size;

	req->nr = req->cmd;
	if (!nvm_uvm_decide(&c, &v, &size)) {
		req->verdict = v;
		return nvm_verdict_apply(nf, &c, &v, req->arg, rep, f);
	}
	req->size = size;
	req->verdict = v;
	c.size = size;
	f->readable = (u64)(uintptr_t)req->arg;
	f->readable_size = size;
	f->readable_rule = "uvm-unreadable";
	return nvm_report_set(rep, &c, &v, NVM_OUT_FORWARDED, 0);
}

/*
 * A refusal: its answer, or 0 when the profile audits (then the call goes
 * on to the driver, and the checks after this one are skipped, but the
 * payload is still unwrapped and copied so that it is forwarded as any
 * other call: from the bounce, with its fd plan).
 */
static int nvm_refused(const struct nvm_file *nf, const struct nvm_call *c,
		       const struct nvm_verdict *v, void __user *payload,
		       struct nvm_report *rep, struct nvm_fetched *f, bool *audited)
{
	int ret = nvm_verdict_apply(nf, c, v, payload, rep, f);

	if (!ret)
		*audited = true;
	return ret;
}

static int nvm_validate_esc(const struct nvm_file *nf, const struct nvm_profile *prof,
			    struct nvm_req *req, struct nvm_report *rep, struct nvm_fetched *f)
{
	struct nvm_call c = { .abi = nvm_file_abi(nf), .kind = nf->kind, .prof = prof,
			      .policy = nvm_policy(prof), .nr = _IOC_NR(req->cmd),
			      .size = _IOC_SIZE(req->cmd) };
	struct nvm_verdict v = { };
	void __user *arg = req->arg;
	bool audited = false;
	int ret;

	/* The driver reads only the number; nvmediate refuses other types. */
	if (_IOC_TYPE(req->cmd) != NVM_NV_IOCTL_MAGIC) {
		nvm_refuse(&v, -EINVAL, "esc-unknown");
		/* Not the driver's ioctl: forwarded untouched when audited. */
		return nvm_verdict_apply(nf, &c, &v, arg, rep, f);
	}
	if (!nvm_esc_decide(&c, &v)) {
		ret = nvm_refused(nf, &c, &v, arg, rep, f, &audited);
		if (ret)
			return ret;
	}

	if (c.nr == NVM_NV_ESC_XFER && c.size == sizeof(req->xfer_hdr)) {
		if (f->hdr_err)
			return nvm_report_fault(rep, &c, &v, f->hdr_err, "esc-unreadable");
		c.nr = req->xfer_hdr.cmd;
		c.size = req->xfer_hdr.size;
		c.xfer = true;
		req->xfer = true;
		arg = u64_to_user_ptr(req->xfer_hdr.ptr);
		/* The driver answers an inner size over 16384 with -EINVAL. */
		if (c.size > NVM_NV_MAX_IOCTL_SIZE) {
			nvm_refuse(&v, -EINVAL, "xfer-size");
			return nvm_verdict_apply(nf, &c, &v, arg, rep, f);
		}
		if (!audited && !nvm_esc_decide(&c, &v)) {
			ret = nvm_refused(nf, &c, &v, arg, rep, f, &audited);
			if (ret)
				return ret;
		}
	}
	req->nr = c.nr;
	req->size = c.size;
	req->payload = arg;

	/* Copied by nvm_fetch() at this very size and address. */
	ret = f->payload_err;
	if (WARN_ON_ONCE(ret > 0))
		ret = -EFAULT;
	if (ret)
		return nvm_report_fault(rep, &c, &v, ret,
					ret == -EFAULT ? "esc-unreadable" : "nomem");
	c.payload = req->kbuf;
	if (!audited && !nvm_decide_payload(&c, &v)) {
		ret = nvm_refused(nf, &c, &v, arg, rep, f, &audited);
		if (ret)
			return ret;
	}
	/* What the fd plan reads: the entry matched last, and its payload. */
	req->verdict = v;
	if (audited)
		return 0;
	f->readable = v.nested;
	f->readable_size = v.nested_size;
	f->readable_rule = v.family == NVM_FAM_CTRL ? "ctrl-params-unreadable" :
			   "class-params-unreadable";
	return nvm_report_set(rep, &c, &v, NVM_OUT_FORWARDED, 0);
}

/* A call refused because memory it names cannot be read. */
static int nvm_report_unreadable(struct nvm_report *rep, const char *rule, int err)
{
	rep->outcome = NVM_OUT_REFUSED;
	rep->rule = rule;
	rep->err = err;
	rep->status = 0;
	return err;
}

/*
 * The user memory a verdict still needs, outside the profile's read side:
 * the status of an answer, and the readability of nested params (an
 * NVOS64's rights mask: nvm_validate()).
 */
static int nvm_validate_finish(const struct nvm_fetched *f, struct nvm_report *rep, int ret)
{
	if (ret == NVM_ANSWERED && f->answer_at &&
	    copy_to_user(f->answer_at, &f->answer, sizeof(f->answer))) {
		rep->outcome = NVM_OUT_REFUSED;
		return -EFAULT;
	}
	if (ret || !f->readable_rule)
		return ret;
	ret = nvm_check_readable(f->readable, f->readable_size);
	return ret ? nvm_report_unreadable(rep, f->readable_rule, ret) : 0;
}

/**
 * nvm_validate() - check one ioctl before it is forwarded
 * @nf: the mediated file
 * @req: the request: @req->cmd, @req->arg and @req->compat set, the rest
 *	zero; the validator fills in the escape and size after unwrapping
 *	XFER and keeps its kernel copy of the payload in @req->kbuf (release
 *	with nvm_req_free() whatever this returns)
 * @rep: filled in with what became of the call, on every path (stats.c)
 *
 * Return: 0 to forward the call; %NVM_ANSWERED when the validator answered
 * it in the payload (the ioctl returns 0 without reaching the driver); a
 * negative errno to return without forwarding (see the file comment).
 * The profile of the file's set decides (policy.c); with its audit on,
 * refusals are recorded, reported as audited and 0 returned.
 */
int nvm_validate(const struct nvm_file *nf, struct nvm_req *req, struct nvm_report *rep)
{
	struct nvm_fetched f = { .payload_err = 1 };
	const struct nvm_profile *prof;
	int idx, ret;

	if (nf->kind != NVM_NODE_UVM)
		nvm_fetch(req, &f);
	prof = nvm_profile_enter(nf, &idx);
	if (nf->kind == NVM_NODE_UVM)
		ret = nvm_validate_uvm(nf, prof, req, rep, &f);
	else
		ret = nvm_validate_esc(nf, prof, req, rep, &f);
	nvm_profile_exit(idx);
	ret = nvm_validate_finish(&f, rep, ret);
	/*
	 * The rights mask of an NVOS64 that goes to the driver, audited ones
	 * included: read here for the bounce area, so that the driver copies
	 * in these bytes, not memory the caller can unmap in between; one
	 * that cannot be read is refused (the driver's copy failing leaks,
	 * see alloc.c).
	 */
	if (!ret && req->verdict.family == NVM_FAM_ALLOC && req->verdict.rights) {
		if (copy_from_user(req->rights_mask, u64_to_user_ptr(req->verdict.rights),
				   sizeof(req->rights_mask)))
			return nvm_report_unreadable(rep, "class-rights-unreadable", -EFAULT);
		req->rights_read = true;
	}
	return ret;
}
