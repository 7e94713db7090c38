// SPDX-License-Identifier: GPL-2.0
/*
 * nvmediate: checks of NV_ESC_RM_CONTROL (NVOS54_PARAMETERS), from the
 * control table of the file's ABI.  Mirrors the driver's RmIoctl() and
 * the control dispatch of resource server (rmapiControlWithSecInfo).
 */
#include <linux/errno.h>
#include <linux/kernel.h>
#include <linux/string.h>

#include "ctrl.h"
#include "tables.h"
#include "policy.h"
#include "nvabi_tables.h"

static inline u32 nvm_rd32(const void *p, unsigned int off)
{
	u32 x;

	memcpy(&x, p + off, sizeof(x));
	return x;
}

static inline u64 nvm_rd64(const void *p, unsigned int off)
{
	u64 x;

	memcpy(&x, p + off, sizeof(x));
	return x;
}

/*
 * A deprecated control (nvabi_types.h): the driver serves it before its
 * method tables, whatever they hold, reads V1 params of the V1 size (not
 * the paramsSize of the call) and calls the V2 control with the caller's
 * privileges.  Checked as the driver will use it: plain calls only, the V1
 * size, then the V2 control's privilege and the profile on the V2 control
 * (a refusal names it, for the log and the audit record); the list the
 * params point to is checked after the decision (validate.c).
 */
static bool nvm_ctrl_dep(const struct nvm_call *c, struct nvm_verdict *v,
			 const struct nvabi_dep *d, u32 flags, u64 params, u32 psize,
			 unsigned int status_off)
{
	const struct nvabi_ctrl *e2;

	v->name = nvm_abi_dep_name(d);
	/*
	 * Other calls miss the conversion; where the method tables do not
	 * list the V1 number too (nvm_ctrl_decide()), no method serves them.
	 */
	if (flags)
		return nvm_answer(v, NVM_NV_ERR_NOT_SUPPORTED, status_off,
				  NVM_RULE(CTRL_DEPRECATED_FLAGS));
	/* The driver reads the V1 size whatever paramsSize says: refused. */
	if (psize != d->size)
		return nvm_answer(v, NVM_NV_ERR_INVALID_ARGUMENT, status_off, NVM_RULE(CTRL_SIZE));
	if (d->size > NVM_DEP_PARAMS_MAX)
		return nvm_refuse(v, -E2BIG, NVM_RULE(CTRL_PARAMS_TOO_BIG));
	e2 = nvm_abi_ctrl(d->v2, c->abi);
	if (!e2)
		return nvm_answer(v, NVM_NV_ERR_NOT_SUPPORTED, status_off, NVM_RULE(CTRL_UNKNOWN));
	/* From here the V2 control decides, and a refusal names it. */
	v->number = d->v2;
	v->name = nvm_abi_ctrl_name(e2);
	if (!nvm_priv_check(e2->priv, c->policy, v, NVM_RULE(CTRL_ROOT)))
		return false;
	if (e2->size == NVABI_SIZE_UNKNOWN)
		return nvm_refuse(v, -EPERM, NVM_RULE(KERNEL_ONLY));
	if (!nvm_profile_check(c, v, NVM_FAM_CTRL, d->v2, e2->caps))
		return false;
	v->number = d->cmd;
	v->name = nvm_abi_dep_name(d);
	v->nested = params;
	v->nested_size = d->size;
	v->nested_at = nvm_abi_rmlayout(c->abi)->ctl_params;
	v->dep = d;
	return true;
}

/* Has @x a list the driver sizes by the caller's count alone? */
static bool nvm_emb_unbounded(const struct nvabi_emb *x)
{
	unsigned int i;

	for (i = 0; i < x->nlist && i < NVABI_EMB_LISTS; i++)
		if (x->list[i].flags & NVABI_EMB_NOMAX)
			return true;
	return false;
}

/*
 * The lists a forwarded control's params point to, for validate.c (@v->emb),
 * or its refusal.  Serialized params (@finn) are not checked: a release with
 * FINN unpacks them itself, allocating what they say, so a control with a
 * list the driver does not bound is refused that way whatever allow_finn
 * says.  A control whose params hold fd fields runs with the caller's
 * exec_update_lock held (fdctx.c), so the driver must read nothing during
 * it that the caller can make it wait for: its params are handed to it
 * from the bounce area (validate.c, nvm_req_keep()), but lists they point
 * to would be copied from the caller's memory.  No release has a control
 * with both: it is refused should one appear.
 */
static bool nvm_ctrl_emb(struct nvm_verdict *v, const struct nvabi_emb *x, bool finn)
{
	if (x && nvm_emb_unbounded(x) && finn)
		return nvm_refuse(v, -EPERM, NVM_RULE(CTRL_FINN_UNBOUNDED));
	if (x && x->nlist && v->nfds)
		return nvm_refuse(v, -EPERM, NVM_RULE(CTRL_EMBEDDED_FDS));
	if (!finn)
		v->emb = x;
	return true;
}

/**
 * nvm_ctrl_decide() - check an RM control call
 * @c: the call; @c->payload is the NVOS54 of @c->size bytes
 * @v: verdict; on success @v->nested names the params and their size
 *
 * Order: flags a user may not set, paramsSize over 1 MiB (-E2BIG), params
 * NULL iff paramsSize 0, a deprecated control (nvm_ctrl_dep()), unknown
 * command (status NV_ERR_NOT_SUPPORTED),
 * FINN-serialized (-EPERM unless allow_finn), GSS-legacy command (-EPERM
 * unless allow_gss), privilege (-EPERM), paramsSize not the command's (not
 * checked for FINN-serialized params, whose size is the serialized one), not
 * admitted by the profile (status NV_ERR_NOT_SUPPORTED, policy.c), FINN-
 * serialized params of a control with a list the driver does not bound
 * (-EPERM, whatever allow_finn says).  The
 * flags, the params/size pair and the size are the driver's own checks
 * (rmControl): refused, they are answered as it answers them, ioctl 0 and
 * status NV_ERR_INVALID_ARGUMENT.
 *
 * Return: true when the call may be forwarded.
 */
bool nvm_ctrl_decide(const struct nvm_call *c, struct nvm_verdict *v)
{
	const struct nvabi_rmlayout *l = nvm_abi_rmlayout(c->abi);
	const struct nvabi_emb *x;
	const struct nvabi_ctrl *e;
	const struct nvabi_dep *d;
	u32 cmd, flags, psize;
	u64 params;

	if (!l->ctl_size || c->size != l->ctl_size)
		return nvm_refuse(v, -EINVAL, NVM_RULE(ESC_SIZE));
	cmd = nvm_rd32(c->payload, l->ctl_cmd);
	flags = nvm_rd32(c->payload, l->ctl_flags);
	params = nvm_rd64(c->payload, l->ctl_params);
	psize = nvm_rd32(c->payload, l->ctl_psize);
	v->family = NVM_FAM_CTRL;
	v->number = cmd;
	v->number_size = psize;
	v->fds = NULL;
	v->name = NULL;
	v->nfds = 0;

	if (flags & (NVM_NVOS54_FLAGS_IRQL_RAISED | NVM_NVOS54_FLAGS_LOCK_BYPASS))
		return nvm_answer(v, NVM_NV_ERR_INVALID_ARGUMENT, l->ctl_status,
				  NVM_RULE(CTRL_FLAGS));
	if (psize > NVM_PARAMS_MAX)
		return nvm_refuse(v, -E2BIG, NVM_RULE(CTRL_PARAMS_TOO_BIG));
	if (!params != !psize)
		return nvm_answer(v, NVM_NV_ERR_INVALID_ARGUMENT, l->ctl_status,
				  NVM_RULE(CTRL_PARAMS_NULL));

	d = nvm_abi_dep(cmd, c->abi);
	e = nvm_abi_ctrl(cmd, c->abi);
	/* With flags the driver skips the conversion, to a method if there is one. */
	if (d && (!flags || !e))
		return nvm_ctrl_dep(c, v, d, flags, params, psize, l->ctl_status);
	if (!e)
		return nvm_answer(v, NVM_NV_ERR_NOT_SUPPORTED, l->ctl_status,
				  NVM_RULE(CTRL_UNKNOWN));
	v->name = nvm_abi_ctrl_name(e);
	v->fds = nvm_abi_fds(e->fd);
	v->nfds = e->nfd;
	if ((flags & NVM_NVOS54_FLAGS_FINN_SERIALIZED) && !(c->policy & NVM_POLICY_FINN))
		return nvm_refuse(v, -EPERM, NVM_RULE(CTRL_FINN));
	if ((cmd & NVM_NV_CTRL_GSS_LEGACY) && !(c->policy & NVM_POLICY_GSS))
		return nvm_refuse(v, -EPERM, NVM_RULE(CTRL_GSS_LEGACY));
	if (!nvm_priv_check(e->priv, c->policy, v, NVM_RULE(CTRL_ROOT)))
		return false;
	if (e->size == NVABI_SIZE_UNKNOWN)
		return nvm_refuse(v, -EPERM, NVM_RULE(KERNEL_ONLY));
	if (!(flags & NVM_NVOS54_FLAGS_FINN_SERIALIZED) && psize != e->size)
		return nvm_answer(v, NVM_NV_ERR_INVALID_ARGUMENT, l->ctl_status,
				  NVM_RULE(CTRL_SIZE));
	/* Before the profile: an audited refusal is forwarded with them. */
	v->nested = params;
	v->nested_size = psize;
	v->nested_at = l->ctl_params;
	if (!nvm_profile_check(c, v, NVM_FAM_CTRL, cmd, e->caps))
		return false;
	x = nvm_abi_emb(cmd, c->abi);
	return nvm_ctrl_emb(v, x, flags & NVM_NVOS54_FLAGS_FINN_SERIALIZED);
}

#ifdef NVM_KUNIT
#include "../kunit/ctrl_test.c"
#endif
