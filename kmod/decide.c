// SPDX-License-Identifier: GPL-2.0
/*
 * nvmediate: the decision on one call, from what the validator copied of
 * it (validate.c) and the profile of its file's set.  Pure: no user
 * memory, no lock, no allocation; the validator calls it inside the
 * profile's read side, the KUnit suites call the very same function, and
 * nvproxyctl explain is built with it (tools/nvproxyctl/kshim/ gives this
 * file, the family checks, policy.c and tables.c libc for the kernel: they
 * use nothing else of it).
 *
 * The checks run in the driver's order, each family's in its own file:
 *
 *   escape      number, node, privilege, size, profile        escape.c
 *   XFER        the header, then the inner escape as above
 *   RM_CONTROL  NVOS54 flags, command, params, profile        ctrl.c
 *   RM_ALLOC    NVOS21/NVOS64 form, class, params, profile    alloc.c
 *   UVM         command, node, profile                        uvm.c
 *
 * A refusal ends the decision.  Under a profile that audits, the first
 * refusal is kept in the verdict instead and the call goes on with no
 * further check, but still unwrapped from XFER and copied: a payload that
 * could not be copied is refused all the same, for the call could not be
 * forwarded as checked.
 */
#include <linux/bug.h>
#include <linux/errno.h>
#include <linux/kernel.h>
#include <linux/string.h>

#include "decide.h"
#include "alloc.h"
#include "ctrl.h"
#include "escape.h"
#include "uvm.h"
#include "policy.h"

/*
 * Whether a refusal the check just recorded in @v ends the decision: it
 * does unless the profile audits; then @v keeps it as what would have
 * refused the call, and the call goes on unchecked.
 */
static bool nvm_stop(const struct nvm_call *c, struct nvm_verdict *v)
{
	if (!c->prof->audit)
		return true;
	v->audited = true;
	return false;
}

/* Memory of the call that could not be copied: never audited. */
static bool nvm_fault(struct nvm_verdict *v, int err, const char *rule)
{
	v->audited = false;
	return nvm_refuse(v, err, rule);
}

static bool nvm_decide_uvm(struct nvm_call *c, struct nvm_verdict *v)
{
	u32 size;

	if (!nvm_uvm_decide(c, v, &size) && nvm_stop(c, v))
		return false;
	c->size = size;
	return true;
}

/**
 * nvm_decide() - every check of one call, in the driver's order (pure)
 * @c: the call: for an escape, the ioctl's number and size, XFER's header
 *	and the payload as nvm_fetch() copied them; for a UVM command, its
 *	number.  Updated in place with what the driver will be handed: the
 *	inner escape of XFER (@c->nr, @c->size, @c->xfer), the checked copy
 *	(@c->payload), the UVM payload size.
 * @v: the verdict, filled in: the entry matched last (family, number, fd
 *	fields), nested params to check readable, and the refusal if any
 *	(@v->audited: recorded only, the call goes on)
 *
 * Return: true when the call goes to the driver (with @v->audited, in
 * spite of a refusal); false when it is refused or answered as @v says.
 */
bool nvm_decide(struct nvm_call *c, struct nvm_verdict *v)
{
	memset(v, 0, sizeof(*v));
	if (c->kind == NVM_NODE_UVM)
		return nvm_decide_uvm(c, v);

	if (!nvm_esc_decide(c, v) && nvm_stop(c, v))
		return false;
	if (c->nr == NVM_NV_ESC_XFER && c->size == sizeof(struct nvm_xfer)) {
		if (c->hdr_err || WARN_ON_ONCE(!c->hdr))
			return nvm_fault(v, c->hdr_err ?: -EFAULT, NVM_RULE(ESC_UNREADABLE));
		c->nr = c->hdr->cmd;
		c->size = c->hdr->size;
		c->xfer = true;
		/*
		 * The driver answers an inner size over 16384 with -EINVAL.
		 * Nothing of such a call is copied: it is refused, audited or
		 * not, since the driver would read XFER's header again from
		 * the caller's memory.  Reported as the inner escape, which is
		 * not looked up.
		 */
		if (c->size > NVM_NV_MAX_IOCTL_SIZE) {
			v->number = c->nr;
			v->name = NULL;
			return nvm_fault(v, -EINVAL, NVM_RULE(XFER_SIZE));
		}
		if (!v->audited && !nvm_esc_decide(c, v) && nvm_stop(c, v))
			return false;
		/*
		 * An inner size of 0, which every escape refuses (esc-size),
		 * copies nothing either: not forwarded when audited, refused
		 * by the first check that refused it (esc-size if none did).
		 */
		if (!c->size) {
			if (!v->rule || !v->err) {
				v->number = c->nr;
				v->name = NULL;
				nvm_refuse(v, -EINVAL, NVM_RULE(ESC_SIZE));
			}
			v->audited = false;
			return false;
		}
	}

	if (c->payload_err) {
		int err = c->payload_err;

		if (WARN_ON_ONCE(err > 0))
			err = -EFAULT;
		return nvm_fault(v, err,
				 err == -EFAULT ? NVM_RULE(ESC_UNREADABLE) : NVM_RULE(NOMEM));
	}
	/*
	 * Audited calls too: handoff.c's bounce-area check is never audited,
	 * and a call's private fd table follows what the driver reads.
	 */
	nvm_esc_osdesc(c, v);
	nvm_esc_alloc_memory_fd(c, v);
	if (v->audited)
		return true;
	if (c->nr == NVM_NV_ESC_RM_ALLOC_MEMORY)
		return nvm_esc_alloc_memory_class(c, v) || !nvm_stop(c, v);
	if (c->nr == NVM_NV_ESC_RM_CONTROL)
		return nvm_ctrl_decide(c, v) || !nvm_stop(c, v);
	if (c->nr == NVM_NV_ESC_RM_ALLOC)
		return nvm_alloc_decide(c, v) || !nvm_stop(c, v);
	return true;
}

#ifdef NVM_KUNIT
#include "../kunit/decide_test.c"
#endif
