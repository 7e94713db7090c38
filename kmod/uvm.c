// SPDX-License-Identifier: GPL-2.0
/*
 * nvmediate: checks of the UVM commands (/dev/nvidia-uvm), from the UVM
 * table of the file's ABI.  The table holds what a container may reach:
 * UVM's test commands (UVM_TEST_*) are not in it, so they are unknown.
 */
#include <linux/errno.h>
#include <linux/kernel.h>

#include "uvm.h"
#include "tables.h"
#include "policy.h"
#include "nvabi_tables.h"

/*
 * What the driver of ABI @abi answers a command its UVM node does not
 * take: its disabled test entry points answer for it (the ABI tables say
 * which errno); -ENOTTY where the source did not say.
 */
static int nvm_uvm_unknown_err(unsigned int abi)
{
	switch (nvm_abi_uvm_unknown(abi)) {
	case NVABI_UVM_UNKNOWN_EINVAL:
		return -EINVAL;
	case NVABI_UVM_UNKNOWN_ENOSYS:
		return -ENOSYS;
	default:
		return -ENOTTY;
	}
}

/**
 * nvm_uvm_decide() - check a UVM command
 * @c: the call (@c->nr is the ioctl command; no payload is read)
 * @v: verdict, set on refusal
 * @size: set to the payload size the driver copies in
 *
 * Order: unknown command, a command of /dev/nvidia-uvm-tools (that node is
 * not mediated), both answered as the driver answers a command its UVM
 * node lacks (-EINVAL, or -ENOSYS from 570.86.15); not admitted by the
 * profile (-EPERM, policy.c).
 *
 * Return: true when the call may be forwarded.
 */
bool nvm_uvm_decide(const struct nvm_call *c, struct nvm_verdict *v, u32 *size)
{
	const struct nvabi_uvm *e = nvm_abi_uvm(c->nr, c->abi);

	*size = 0;
	v->family = NVM_FAM_UVM;
	v->number = c->nr;
	v->name = NULL;
	if (!e)
		return nvm_refuse(v, nvm_uvm_unknown_err(c->abi), NVM_RULE(UVM_UNKNOWN));
	v->name = nvm_abi_uvm_name(e);
	v->fds = nvm_abi_fds(e->fd);
	v->nfds = e->nfd;
	v->payload_size = e->size;
	if (e->node != NVABI_NODE_UVM)
		return nvm_refuse(v, nvm_uvm_unknown_err(c->abi), NVM_RULE(UVM_NODE));
	/* Before the profile: an audited refusal is forwarded at that size. */
	*size = e->size;
	return nvm_profile_check(c, v, NVM_FAM_UVM, c->nr, e->caps);
}
