// SPDX-License-Identifier: GPL-2.0
/*
 * nvmediate: how a check records its verdict.  The family checks (escape.c,
 * ctrl.c, alloc.c, uvm.c) and the profile's check (policy.c) end a refusal
 * with one of these; nothing here calls into any other part of the module.
 */
#include <linux/errno.h>
#include <linux/kernel.h>

#include "verdict.h"
#include "nvabi_types.h"

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
