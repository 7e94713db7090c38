// SPDX-License-Identifier: GPL-2.0
/*
 * nvmediate: checks of NV_ESC_RM_ALLOC, in both of its forms
 * (NVOS21_PARAMETERS and NVOS64_PARAMETERS, told apart by size as the
 * driver's RmIoctl() does) with the layouts of the file's ABI, from the
 * class table of that ABI.
 */
#include <linux/errno.h>
#include <linux/kernel.h>
#include <linux/string.h>

#include "alloc.h"
#include "tables.h"
#include "policy.h"
#include "nvabi_tables.h"

/**
 * nvm_alloc_is_client() - is @hclass one of the root-client classes
 * @hclass: class id
 *
 * Allocating a client takes its own path in the driver (RmIoctl() ->
 * rmapiAlloc of a client), which the class tables describe with no
 * privilege: any caller may allocate one, with an optional NvHandle.
 */
bool nvm_alloc_is_client(u32 hclass)
{
	return hclass == NVM_NV01_ROOT || hclass == NVM_NV01_ROOT_NON_PRIV ||
	       hclass == NVM_NV01_ROOT_CLIENT;
}

/**
 * nvm_alloc_decide() - check an RM allocation
 * @c: the call; @c->payload is an NVOS21 or NVOS64 of @c->size bytes
 * @v: verdict; on success @v->nested names the class params and their size
 *
 * Order: a size of neither form (-EINVAL), a root-client class (allowed,
 * its optional NvHandle read), unknown class (status
 * NV_ERR_INVALID_CLASS), kernel-callback event class (-EPERM), privilege
 * (-EPERM), params size not recorded (-EPERM), over 1 MiB (-E2BIG),
 * required params NULL (-EINVAL); then, root clients included, not
 * admitted by the profile (-EPERM, policy.c).  The params and NVOS64's
 * rights mask must be readable (-EFAULT, checked in validate.c).
 *
 * Return: true when the call may be forwarded.
 */
bool nvm_alloc_decide(const struct nvm_call *c, struct nvm_verdict *v)
{
	const struct nvabi_rmlayout *l = nvm_abi_rmlayout(c->abi);
	const struct nvabi_class *e;
	unsigned int off_class, off_params, off_status;
	u32 hclass;
	u64 params, rights = 0;
	u32 rights_off = 0;

	if (l->a21_size && c->size == l->a21_size) {
		off_class = l->a21_class;
		off_params = l->a21_params;
		off_status = l->a21_status;
	} else if (l->a64_size && c->size == l->a64_size) {
		off_class = l->a64_class;
		off_params = l->a64_params;
		off_status = l->a64_status;
		/*
		 * NVOS64's rights mask: the driver copies it in after the
		 * class params and, when that copy fails, does not free its
		 * copy of the params (serverAllocApiCopyIn at 535, 580 and
		 * 595): nvm_validate() reads the mask (refusing the call when
		 * it cannot) and the bounce hands the driver that copy.
		 */
		rights_off = off_params + NVM_NVOS64_RIGHTS_AFTER_PARAMS;
		if (rights_off + sizeof(rights) > c->size)
			return nvm_refuse(v, -EINVAL, NVM_RULE(ESC_SIZE));
		memcpy(&rights, c->payload + rights_off, sizeof(rights));
	} else {
		return nvm_refuse(v, -EINVAL, NVM_RULE(ESC_SIZE));
	}
	memcpy(&hclass, c->payload + off_class, sizeof(hclass));
	memcpy(&params, c->payload + off_params, sizeof(params));
	v->rights = rights;
	v->rights_off = rights_off;
	v->family = NVM_FAM_ALLOC;
	v->number = hclass;
	v->fds = NULL;
	v->name = NULL;
	v->nfds = 0;

	e = nvm_abi_class(hclass, c->abi);
	if (e) {
		v->name = nvm_abi_class_name(e);
		v->fds = nvm_abi_fds(e->fd);
		v->nfds = e->nfd;
	}
	if (e && nvm_alloc_is_client(hclass)) {
		v->nested = params;
		v->nested_size = params ? NVM_NV_ROOT_PARAMS_SIZE : 0;
		v->nested_at = off_params;
		return nvm_profile_check(c, v, NVM_FAM_ALLOC, hclass, e->caps);
	}
	if (!e)
		return nvm_answer(v, NVM_NV_ERR_INVALID_CLASS, off_status, NVM_RULE(CLASS_UNKNOWN));
	if (hclass == NVM_NV01_EVENT_KERNEL_CALLBACK ||
	    hclass == NVM_NV01_EVENT_KERNEL_CALLBACK_EX)
		return nvm_refuse(v, -EPERM, NVM_RULE(CLASS_KERNEL_CALLBACK));
	if (!nvm_priv_check(e->priv, c->policy, v, NVM_RULE(CLASS_ROOT)))
		return false;
	if (e->size == NVABI_SIZE_UNKNOWN)
		return nvm_refuse(v, -EPERM, NVM_RULE(KERNEL_ONLY));
	if (e->size > NVM_PARAMS_MAX)
		return nvm_refuse(v, -E2BIG, NVM_RULE(CLASS_PARAMS_TOO_BIG));
	if (!params && e->params == NVABI_PARAMS_REQUIRED && e->size)
		return nvm_refuse(v, -EINVAL, NVM_RULE(CLASS_PARAMS_NULL));
	/* Before the profile: an audited refusal is forwarded with them. */
	if (params && e->params != NVABI_PARAMS_NONE) {
		v->nested = params;
		v->nested_size = e->size;
		v->nested_at = off_params;
	}
	return nvm_profile_check(c, v, NVM_FAM_ALLOC, hclass, e->caps);
}
