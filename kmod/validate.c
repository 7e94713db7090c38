// SPDX-License-Identifier: GPL-2.0
/*
 * nvmediate: the validator.  Every ioctl made on a mediated node is checked
 * here against the descriptor of the ABI its file was opened with
 * (abi/generated/) and the policy of the module parameters, before
 * handoff.c hands it to the driver; a refused call never reaches it.
 *
 * The decision itself is pure (decide.c, with one table-driven check per
 * family: escape.c, ctrl.c, alloc.c, uvm.c), so that KUnit tests the very
 * function called here without user memory.  This file is the only part
 * of the validator that touches user memory: it copies the top-level
 * payload and XFER's header once, checks that nested params are readable
 * at the size the table gives, and writes the driver's status into a
 * payload the validator answers itself.
 *
 * The kernel copy stays with the request (struct nvm_req) after the
 * checks, and what else the driver must read as it was read here in
 * req->kept: handoff.c hands exactly those bytes to the driver from the
 * bounce area (bounce.c), so a payload rewritten after the check does not
 * reach the driver.
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
#include <linux/capability.h>
#include <linux/cgroup.h>
#include <linux/compat.h>
#include <linux/ioctl.h>
#include <linux/kernel.h>
#include <linux/mm.h>
#include <linux/overflow.h>
#include <linux/pagemap.h>
#include <linux/sched.h>
#include <linux/slab.h>
#include <linux/uaccess.h>

#include "validate.h"
#include "rules.h"
#include "decide.h"
#include "policy.h"
#include "sets.h"
#include "tables.h"
#include "compat.h"
#include "nvabi_lookup.h"

/* The knobs of the file's profile that depend on the caller. */
static unsigned int nvm_policy(const struct nvm_profile *prof)
{
	unsigned int p = 0;

	if (prof->allow_root && capable(CAP_SYS_ADMIN))
		p |= NVM_POLICY_ROOT;
	if (prof->allow_finn)
		p |= NVM_POLICY_FINN;
	if (prof->allow_gss)
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
	kfree(req->kept.params);
	req->kept.params = NULL;
}

/*
 * Copy what the decisions of an escape will read: XFER's header and the
 * payload at the size the call gives (at most 16 KiB: the ioctl's 14-bit
 * size, or XFER's inner size, which is refused above 16384).  @c gets the
 * header, the copy and the errors of both; @req the caller's address of
 * the payload.
 */
static void nvm_fetch(struct nvm_req *req, struct nvm_call *c)
{
	unsigned int size = c->size;
	void __user *arg = req->arg;

	c->payload_err = 1;
	if (c->nr == NVM_NV_ESC_XFER && size == sizeof(req->xfer_hdr)) {
		if (copy_from_user(&req->xfer_hdr, arg, sizeof(req->xfer_hdr))) {
			c->hdr_err = -EFAULT;
			return;
		}
		c->hdr = &req->xfer_hdr;
		size = req->xfer_hdr.size;
		arg = u64_to_user_ptr(req->xfer_hdr.ptr);
		if (size > NVM_NV_MAX_IOCTL_SIZE)
			return;
	}
	req->payload = arg;
	c->payload_err = nvm_copy_in(req, arg, size);
	c->payload = req->kbuf;
}

/*
 * User memory the driver will read must be readable, @size bytes: one byte
 * of every page is touched, nothing is copied (nested params: at most
 * NVM_PARAMS_MAX bytes, checked by the decision; a list: at most
 * NVM_EMB_NOMAX_MAX).
 */
static int nvm_check_readable(u64 uptr, u64 size)
{
	const char __user *p = u64_to_user_ptr(uptr);

	if (!size)
		return 0;
	if (!access_ok(p, size))
		return -EFAULT;
	return nvm_fault_in_readable(p, size) ? -EFAULT : 0;
}

/*
 * Is [uptr, uptr + size) mapped writable?  The driver writes a deprecated
 * control's results back there; checked on the VMAs, without writing (the
 * fault-in helpers would store into memory the driver reads first).
 */
static int nvm_check_writable(u64 uptr, u64 size)
{
	struct mm_struct *mm = current->mm;
	unsigned long a = untagged_addr((unsigned long)uptr), end;
	int ret = 0;

	if (!size)
		return 0;
	if (!mm || !access_ok(u64_to_user_ptr(uptr), size) ||
	    check_add_overflow(a, (unsigned long)size, &end))
		return -EFAULT;
	mmap_read_lock(mm);
	while (a < end) {
		struct vm_area_struct *vma = nvm_vma_lookup(mm, a);

		if (!vma || !(vma->vm_flags & VM_WRITE)) {
			ret = -EFAULT;
			break;
		}
		a = vma->vm_end;
	}
	mmap_read_unlock(mm);
	return ret;
}

/*
 * What the call became, for stats.c: the family and number the checks got
 * to, and the verdict.  Called on every path out of the validator.
 */
static int nvm_report_set(struct nvm_report *rep, const struct nvm_call *c,
			  const struct nvm_verdict *v, enum nvm_outcome out, int ret)
{
	rep->family = c->kind == NVM_NODE_UVM ? NVM_FAM_UVM : v->family;
	rep->nr = v->number;
	rep->name = v->name;
	rep->size = v->family == NVM_FAM_CTRL ? v->number_size : c->size;
	rep->xfer = c->xfer;
	rep->outcome = out;
	rep->rule = v->rule;
	rep->err = v->err;
	rep->status = v->err ? 0 : v->status;
	return ret;
}

/**
 * nvm_report_refused() - report a call refused after its decision
 * @rep: the report, already filled in by nvm_validate()
 * @rule: the rule that refused it
 * @err: the negative errno the ioctl returns
 *
 * For what the validator finds after the decision (memory the call names
 * cannot be read) and what the hand-off finds before it forwards.
 *
 * Return: @err.
 */
int nvm_report_refused(struct nvm_report *rep, const char *rule, int err)
{
	rep->outcome = NVM_OUT_REFUSED;
	rep->rule = rule;
	rep->err = err;
	rep->status = 0;
	return err;
}

/**
 * struct nvm_after - the user memory a verdict still needs, outside the
 *	profile's read side
 * @answer_at: where the status of an answer goes, or NULL; for a forwarded
 *	deprecated control, where the list check's answer would go
 * @answer: that status
 * @readable: user address of nested params that must be readable
 * @readable_size: their size
 * @readable_rule: the rule refusing them when they are not; NULL when
 *	nothing is to be checked
 * @dep: a forwarded deprecated control whose list is to be checked; its
 *	V1 params are at @readable
 * @emb: a forwarded control whose embedded lists are to be checked; its
 *	params are at @readable, @readable_size bytes
 * @fds: the verdict names fd fields (in the params)
 */
struct nvm_after {
	void __user *answer_at;
	u32 answer;
	u64 readable;
	u32 readable_size;
	const char *readable_rule;
	const struct nvabi_dep *dep;
	const struct nvabi_emb *emb;
	bool fds;
};

/*
 * A list the driver copies in (@in) and/or writes back (@out), @bytes at
 * @list: readable, mapped writable; else refused by rule @unreadable or
 * @unwritable.
 */
static int nvm_list_access(u64 list, u64 bytes, bool in, bool out, struct nvm_report *rep,
			   const char *unreadable, const char *unwritable)
{
	int ret;

	if (in) {
		ret = nvm_check_readable(list, bytes);
		if (ret)
			return nvm_report_refused(rep, unreadable, ret);
	}
	if (out) {
		ret = nvm_check_writable(list, bytes);
		if (ret)
			return nvm_report_refused(rep, unwritable, ret);
	}
	return 0;
}

/* Answer a forwarded call after all, in its status: the driver's answer. */
static int nvm_answer_late(const struct nvm_after *after, struct nvm_report *rep, u32 status,
			   const char *rule)
{
	if (copy_to_user(after->answer_at, &status, sizeof(status)))
		return nvm_report_refused(rep, rule, -EFAULT);
	rep->outcome = NVM_OUT_ANSWERED;
	rep->rule = rule;
	rep->err = 0;
	rep->status = status;
	return NVM_ANSWERED;
}

/*
 * The list of a deprecated control (nvabi_types.h), read from its V1
 * params as the driver will read them: a count over the maximum is
 * answered as the driver answers it, NV_ERR_OUT_OF_RANGE in the status; a
 * list it copies in must be readable and one it writes back writable, for
 * count elements.  A count of 0 copies nothing.  The caller can change the
 * params before the driver reads them; the driver checks the count again,
 * and its copies fault like any user copy: this check answers the call
 * early, it does not confine the driver.
 */
static int nvm_dep_list_check(const struct nvm_after *after, struct nvm_report *rep)
{
	const struct nvabi_dep *d = after->dep;
	u32 count;
	u8 p[NVM_DEP_PARAMS_MAX];
	u64 list, bytes;

	/* The generated table keeps both fields inside the V1 params. */
	if (WARN_ON_ONCE(d->size > sizeof(p) || d->count_off + sizeof(count) > d->size ||
			 d->list_off + sizeof(list) > d->size))
		return nvm_report_refused(rep, NVM_RULE(CTRL_PARAMS_TOO_BIG), -EINVAL);
	if (copy_from_user(p, u64_to_user_ptr(after->readable), d->size))
		return nvm_report_refused(rep, NVM_RULE(CTRL_PARAMS_UNREADABLE), -EFAULT);
	memcpy(&count, p + d->count_off, sizeof(count));
	memcpy(&list, p + d->list_off, sizeof(list));
	if (!count)
		return 0;
	if (count > d->max)
		return nvm_answer_late(after, rep, NVM_NV_ERR_OUT_OF_RANGE,
				       NVM_RULE(CTRL_DEPRECATED_COUNT));
	bytes = d->flags & NVABI_DEP_COUNT ? (u64)count * d->elem : count;
	return nvm_list_access(list, bytes, d->flags & NVABI_DEP_IN, d->flags & NVABI_DEP_OUT, rep,
			       NVM_RULE(CTRL_DEPRECATED_LIST_UNREADABLE),
			       NVM_RULE(CTRL_DEPRECATED_LIST_UNWRITABLE));
}

/*
 * Keep @p (kmalloc'd, @size bytes the validator copied from the caller's
 * @user) for the driver: handoff.c hands it over from the bounce area, and
 * nvm_req_free() frees it.
 */
static void nvm_req_hold(struct nvm_req *req, void *p, u32 size, u64 user)
{
	req->kept.params = p;
	req->kept.params_size = size;
	req->kept.params_user = user;
}

/*
 * Read list @l of a control's params from their copy @p (@size bytes):
 * its pointer into *@list and the bytes the driver sizes it at into
 * *@bytes.  Return: false when the generated table puts a field outside
 * the params (never).
 */
static bool nvm_emb_list(const struct nvabi_emb_list *l, const u8 *p, u32 size,
			 u64 *list, u64 *bytes)
{
	unsigned int width = l->flags & NVABI_EMB_CONST ? 0 :
			     l->flags & NVABI_EMB_COUNT16 ? sizeof(u16) : sizeof(u32);
	u32 count = l->count_off;
	u16 c16;

	if (WARN_ON_ONCE(l->list_off + sizeof(u64) > size ||
			 (width && l->count_off + width > size)))
		return false;
	memcpy(list, p + l->list_off, sizeof(*list));
	if (l->flags & NVABI_EMB_COUNT16) {
		memcpy(&c16, p + l->count_off, sizeof(c16));
		count = c16;
	} else if (!(l->flags & NVABI_EMB_CONST)) {
		memcpy(&count, p + l->count_off, sizeof(count));
	}
	if (l->flags & NVABI_EMB_SQUARE)
		count *= count;		/* NvU32, as the driver squares it */
	*bytes = (l->flags & NVABI_EMB_IFPTR) && !*list ? 0 : (u64)count * l->elem;
	return true;
}

/*
 * List @i of @e has a size the driver refuses: answered as it answers it,
 * the pointers of lists 0 to @i cleared in the caller's params.
 */
static int nvm_emb_bad_size(const struct nvm_after *after, const struct nvabi_emb *e,
			    unsigned int i, struct nvm_report *rep)
{
	char __user *params = u64_to_user_ptr(after->readable);
	const u64 zero = 0;
	unsigned int j;

	for (j = 0; j <= i; j++)
		if (copy_to_user(params + e->list[j].list_off, &zero, sizeof(zero)))
			return nvm_report_refused(rep, NVM_RULE(CTRL_EMBEDDED_SIZE), -EFAULT);
	return nvm_answer_late(after, rep, NVM_NV_ERR_INVALID_ARGUMENT,
			       NVM_RULE(CTRL_EMBEDDED_SIZE));
}

/*
 * Check the lists of @e whose pointers and sizes are in @list and @bytes,
 * in the driver's order; count those it does not bound in @req.
 */
static int nvm_emb_lists(const struct nvm_after *after, const struct nvabi_emb *e,
			 const u64 *list, const u64 *bytes, unsigned int n,
			 struct nvm_req *req, struct nvm_report *rep)
{
	unsigned int i;
	int ret;

	for (i = 0; i < n; i++) {
		const struct nvabi_emb_list *l = &e->list[i];

		if (bytes[i] > U32_MAX || !list[i] != !bytes[i] ||
		    (!(l->flags & NVABI_EMB_NOMAX) && bytes[i] > NVABI_EMB_MAX_BYTES))
			return nvm_emb_bad_size(after, e, i, rep);
		/*
		 * Unbounded by the driver, which allocates a kernel buffer of
		 * that size for the call, charged to no cgroup: bounded here.
		 */
		if (l->flags & NVABI_EMB_NOMAX) {
			if (bytes[i] > NVM_EMB_NOMAX_MAX)
				return nvm_report_refused(rep, NVM_RULE(CTRL_EMBEDDED_TOO_BIG),
							  -E2BIG);
			req->kept.nomax_bytes += bytes[i];
		}
		ret = nvm_list_access(list[i], bytes[i], l->flags & NVABI_EMB_IN, false, rep,
				      NVM_RULE(CTRL_EMBEDDED_UNREADABLE), NULL);
		if (ret)
			return ret;
	}
	for (i = 0; i < n; i++) {
		ret = nvm_list_access(list[i], bytes[i], false, e->list[i].flags & NVABI_EMB_OUT,
				      rep, NULL, NVM_RULE(CTRL_EMBEDDED_UNWRITABLE));
		if (ret)
			return ret;
	}
	return 0;
}

/*
 * The lists a control's params point to, which the driver copies before
 * the control runs (nvabi_types.h), read from a copy of the params and
 * checked in the driver's order: each list's size and, where the driver
 * copies it in, its readability; then, where the driver writes it back
 * after the control, its writability.  A size the driver refuses (a NULL
 * pointer with a size, a pointer without one, over 32 bits or, unless the
 * entry says otherwise, over 1 MiB; a square count wraps at 32 bits as
 * the driver computes it) is answered as it answers it:
 * NV_ERR_INVALID_ARGUMENT in the status, and the params given back with
 * the pointers of that list and the lists before it cleared (the driver's
 * copy of them, which it writes back, loses each list it had taken).
 *
 * The driver reads the params again.  Where it bounds a list by nothing
 * but its count (NVABI_EMB_NOMAX: it allocates a kernel buffer that size
 * for the call), the copy checked here is what it reads: @req keeps it
 * for the bounce area (handoff.c), and the bound holds.  Elsewhere this
 * answers the call early and does not confine the driver.
 */
static int nvm_emb_check(const struct nvm_after *after, struct nvm_req *req,
			 struct nvm_report *rep)
{
	const struct nvabi_emb *e = after->emb;
	unsigned int i, n = min_t(unsigned int, e->nlist, NVABI_EMB_LISTS);
	u64 list[NVABI_EMB_LISTS], bytes[NVABI_EMB_LISTS];
	bool unbounded = false;
	u8 *p;
	int ret;

	if (after->readable_size != e->size)	/* the driver's CHECK_PARAMS_OR_RETURN */
		return nvm_answer_late(after, rep, NVM_NV_ERR_INVALID_ARGUMENT,
				       NVM_RULE(CTRL_EMBEDDED_PARAMS_SIZE));
	p = kmalloc(e->size, GFP_KERNEL_ACCOUNT);
	if (!p)
		return nvm_report_refused(rep, NVM_RULE(CTRL_PARAMS_UNREADABLE), -ENOMEM);
	if (copy_from_user(p, u64_to_user_ptr(after->readable), e->size)) {
		ret = nvm_report_refused(rep, NVM_RULE(CTRL_PARAMS_UNREADABLE), -EFAULT);
		goto out;
	}
	for (i = 0; i < n; i++) {
		if (!nvm_emb_list(&e->list[i], p, e->size, &list[i], &bytes[i])) {
			ret = nvm_report_refused(rep, NVM_RULE(CTRL_PARAMS_TOO_BIG), -EINVAL);
			goto out;
		}
		unbounded |= e->list[i].flags & NVABI_EMB_NOMAX;
	}
	ret = nvm_emb_lists(after, e, list, bytes, n, req, rep);
	if (ret)
		goto out;
	/*
	 * No fd fields in these params (ctrl.c refuses a control with both):
	 * the fd plan reads none from the copy.
	 */
	if (unbounded && !WARN_ON_ONCE(after->fds)) {
		nvm_req_hold(req, p, e->size, after->readable);
		return 0;
	}
out:
	kfree(p);
	return ret;
}

/*
 * Act on a decision: forward, refuse, answer in the payload, or (audited)
 * record the refusal and forward; stats.c logs and counts each.
 */
static int nvm_apply(const struct nvm_file *nf, struct nvm_req *req, const struct nvm_call *c,
		     const struct nvm_verdict *v, bool forward, struct nvm_report *rep,
		     struct nvm_after *after)
{
	req->nr = c->nr;
	req->size = c->size;
	req->xfer = c->xfer;
	if (v->audited) {
		nvm_record_add(&nf->set->rec, v);
		return nvm_report_set(rep, c, v, NVM_OUT_AUDITED, 0);
	}
	if (forward) {
		after->readable = v->nested;
		after->readable_size = v->nested_size;
		if (c->kind == NVM_NODE_UVM) {
			after->readable = (u64)(uintptr_t)req->arg;
			after->readable_size = c->size;
			after->readable_rule = NVM_RULE(UVM_UNREADABLE);
		} else {
			after->readable_rule = v->family == NVM_FAM_CTRL ?
					       NVM_RULE(CTRL_PARAMS_UNREADABLE) :
					       NVM_RULE(CLASS_PARAMS_UNREADABLE);
		}
		if (v->dep && !(v->dep->flags & NVABI_DEP_CUSTOM))
			after->dep = v->dep;
		if (v->emb && v->emb->nlist) {
			after->emb = v->emb;
			after->fds = v->nfds;
		}
		if (after->dep || after->emb)
			after->answer_at = req->payload + nvm_abi_rmlayout(c->abi)->ctl_status;
		return nvm_report_set(rep, c, v, NVM_OUT_FORWARDED, 0);
	}
	if (v->err)
		return nvm_report_set(rep, c, v, NVM_OUT_REFUSED, v->err);
	if (v->status_off + sizeof(u32) > c->size)
		return nvm_report_set(rep, c, v, NVM_OUT_REFUSED, -EINVAL);
	/* Written by nvm_validate_finish(), outside the read side. */
	after->answer_at = req->payload + v->status_off;
	after->answer = v->status;
	return nvm_report_set(rep, c, v, NVM_OUT_ANSWERED, NVM_ANSWERED);
}

/*
 * The user memory a verdict still needs, outside the profile's read side:
 * the status of an answer, and the readability of nested params (an
 * NVOS64's rights mask: nvm_validate()).
 */
static int nvm_validate_finish(const struct nvm_after *after, struct nvm_req *req,
				struct nvm_report *rep, int ret)
{
	/* An answer that cannot be written: refused by its rule, with EFAULT. */
	if (ret == NVM_ANSWERED && after->answer_at &&
	    copy_to_user(after->answer_at, &after->answer, sizeof(after->answer)))
		return nvm_report_refused(rep, rep->rule, -EFAULT);
	if (ret || !after->readable_rule)
		return ret;
	ret = nvm_check_readable(after->readable, after->readable_size);
	if (ret)
		return nvm_report_refused(rep, after->readable_rule, ret);
	if (after->dep)
		return nvm_dep_list_check(after, rep);
	return after->emb ? nvm_emb_check(after, req, rep) : 0;
}

/*
 * Copy what the driver reads during a call made with the caller's
 * exec_update_lock held (@req: one that runs with a private fd table).
 *
 * Such a call holds its process's exec_update_lock for writing while it is
 * in the driver (fdctx.c), and what waits on that lock (docs/security.md)
 * must not wait for as long as the caller likes: the driver must read
 * nothing it can make stall (a page of a slow FUSE file, one a userfaultfd
 * serves late).  An escape's own struct is handed to it from the bounce
 * area already; this copies the rest it reads: a control's or class's
 * params (at most %NVM_KEEP_PARAMS_MAX bytes), or a UVM command's payload,
 * for handoff.c to bounce.  Lists a control's params point to are not among
 * them (ctrl.c refuses such a control with fd fields); the fd plan reads
 * the numbers from these copies.
 *
 * Return: 0, or a negative errno with @rep set to the refusal: -E2BIG
 * (params over the bound), -EFAULT (unreadable), -ENOMEM.
 */
static int nvm_req_copy_kept(struct nvm_req *req, struct nvm_report *rep)
{
	const struct nvm_verdict *v = &req->verdict;
	const char *rule;
	void *p;
	int ret;

	switch (v->family) {
	case NVM_FAM_UVM:
		if (req->kbuf || !req->size)
			return 0;
		ret = nvm_copy_in(req, req->arg, req->size);
		return ret ? nvm_report_refused(rep, NVM_RULE(UVM_UNREADABLE), ret) : 0;
	case NVM_FAM_CTRL:
		rule = NVM_RULE(CTRL_PARAMS_UNREADABLE);
		break;
	case NVM_FAM_ALLOC:
		rule = NVM_RULE(CLASS_PARAMS_UNREADABLE);
		break;
	default:
		return 0;
	}
	/* Kept already (a list the driver does not bound), or no params. */
	if (req->kept.params || !v->nested || !v->nested_size)
		return 0;
	if (v->nested_size > NVM_KEEP_PARAMS_MAX)
		return nvm_report_refused(rep, NVM_RULE(FD_PARAMS_TOO_BIG), -E2BIG);
	p = kmalloc(v->nested_size, GFP_KERNEL_ACCOUNT);
	if (!p)
		return nvm_report_refused(rep, rule, -ENOMEM);
	if (copy_from_user(p, u64_to_user_ptr(v->nested), v->nested_size)) {
		kfree(p);
		return nvm_report_refused(rep, rule, -EFAULT);
	}
	nvm_req_hold(req, p, v->nested_size, v->nested);
	return 0;
}

/*
 * AMPERE_SMC_PARTITION_REF with the device-profiling swizzId subscribes to
 * the whole GPU, not to an instance, and the driver asks no capability
 * node for it: only, when profiling is restricted to administrators (its
 * default, which hosts lift for profilers), that the caller is one.  One
 * such subscription per GPU; while it lives the driver answers memory
 * queries for every instance.  So it is the profiling capability's, not
 * mig's.  Its params hold capDescriptor (8 bytes) then swizzId, in every
 * release (abi/layouts.txt); read from the kept copy, which the driver is
 * handed.
 */
#define NVM_AMPERE_SMC_PARTITION_REF	0xc637
#define NVM_DEVICE_PROFILING_SWIZZID	0xfffffffeU
#define NVM_C637_SWIZZID_OFF		8

static bool nvm_device_profiling(const struct nvm_file *nf, const struct nvm_req *req)
{
	const struct nvm_kept *k = &req->kept;
	const struct nvm_profile *p;
	bool profiling;
	u32 swizzid;
	int idx;

	if (req->verdict.family != NVM_FAM_ALLOC ||
	    req->verdict.number != NVM_AMPERE_SMC_PARTITION_REF || !k->params ||
	    k->params_size < NVM_C637_SWIZZID_OFF + sizeof(swizzid))
		return false;
	memcpy(&swizzid, k->params + NVM_C637_SWIZZID_OFF, sizeof(swizzid));
	if (swizzid != NVM_DEVICE_PROFILING_SWIZZID)
		return false;
	p = nvm_profile_enter(nf, &idx);
	profiling = p->caps & NVM_CAP_PROFILING;
	nvm_profile_exit(idx);
	return !profiling;
}

/**
 * nvm_req_keep() - copy what the driver reads during a call made with the
 *	caller's exec_update_lock held, and decide on what only that copy
 *	shows
 * @nf: the mediated file
 * @req: a call nvm_validate() let through, which runs with a private fd
 *	table (fdplan.c says which)
 * @rep: its report; set to the refusal on failure
 *
 * The copies are kept in @req->kept for the hand-off (handoff.c), which
 * hands the driver these very bytes.  Of them, the device-profiling
 * subscription is decided here: it needs the profiling capability.
 *
 * Return: 0, or a negative errno with @rep set to the refusal: -E2BIG
 * (params over the bound), -EFAULT (unreadable), -ENOMEM, -EPERM (device
 * profiling).
 */
int nvm_req_keep(const struct nvm_file *nf, struct nvm_req *req, struct nvm_report *rep)
{
	int ret;

	ret = nvm_req_copy_kept(req, rep);
	if (!ret && nvm_device_profiling(nf, req))
		ret = nvm_report_refused(rep, NVM_RULE(MIG_DEVICE_PROFILING), -EPERM);
	return ret;
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
 * Copies the call's memory, takes the decision (decide.c) under the
 * profile's read side, then writes an answer or checks nested params
 * readable.
 *
 * Return: 0 to forward the call; %NVM_ANSWERED when the validator answered
 * it in the payload (the ioctl returns 0 without reaching the driver); a
 * negative errno to return without forwarding (see the file comment).
 * The profile of the file's set decides (policy.c); with its audit on,
 * refusals are recorded, reported as audited and 0 returned.
 */
int nvm_validate(const struct nvm_file *nf, struct nvm_req *req, struct nvm_report *rep)
{
	struct nvm_call c = { .abi = nf->abi, .kind = nf->kind };
	const struct nvm_profile *prof;
	struct nvm_after after = { };
	struct nvm_verdict *v = &req->verdict;	/* decided in place: kept with the call */
	bool forward;
	int idx, ret;

	req->payload = req->arg;
	if (nf->kind == NVM_NODE_UVM) {
		c.nr = req->cmd;
	} else {
		c.nr = _IOC_NR(req->cmd);
		c.size = _IOC_SIZE(req->cmd);
		if (_IOC_TYPE(req->cmd) == NVM_NV_IOCTL_MAGIC)
			nvm_fetch(req, &c);
	}

	prof = nvm_profile_enter(nf, &idx);
	c.prof = prof;
	/* The UVM checks read no policy: no capable() (and its audit) for them. */
	if (c.kind != NVM_NODE_UVM)
		c.policy = nvm_policy(prof);
	if (c.kind != NVM_NODE_UVM && _IOC_TYPE(req->cmd) != NVM_NV_IOCTL_MAGIC) {
		/*
		 * The driver reads only the number.  Another type is refused,
		 * audited or not: nothing of it is copied, so forwarded, it
		 * would run that number on the caller's own memory, unchecked.
		 */
		memset(v, 0, sizeof(*v));
		v->number = c.nr;
		nvm_refuse(v, -EINVAL, NVM_RULE(ESC_UNKNOWN));
		forward = false;
	} else {
		forward = nvm_decide(&c, v);
	}
	ret = nvm_apply(nf, req, &c, v, forward, rep, &after);
	nvm_profile_exit(idx);

	ret = nvm_validate_finish(&after, req, rep, ret);
	/*
	 * The rights mask of an NVOS64 that goes to the driver, audited ones
	 * included: read here for the bounce area, so that the driver copies
	 * in these bytes, not memory the caller can unmap in between; one
	 * that cannot be read is refused (the driver's copy failing leaks,
	 * see alloc.c).
	 */
	if (!ret && req->verdict.family == NVM_FAM_ALLOC && req->verdict.rights) {
		if (copy_from_user(req->kept.rights_mask, u64_to_user_ptr(req->verdict.rights),
				   sizeof(req->kept.rights_mask)))
			return nvm_report_refused(rep, NVM_RULE(CLASS_RIGHTS_UNREADABLE), -EFAULT);
		req->kept.rights_read = true;
	}
	return ret;
}
