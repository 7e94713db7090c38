// SPDX-License-Identifier: GPL-2.0
/*
 * nvmediate: checks of the frontend escapes (the ioctls of /dev/nvidiactl
 * and /dev/nvidiaN), from the escape table of the file's ABI.  Mirrors the
 * driver's nvidia_ioctl() and, from 595.44.02, nv_validate_ioctls().
 */
#include <linux/errno.h>
#include <linux/kernel.h>

#include "escape.h"
#include "tables.h"
#include "policy.h"
#include "nvabi_tables.h"

static bool nvm_esc_node_ok(unsigned int node, enum nvm_kind kind)
{
	switch (node) {
	case NVABI_NODE_CTL:
		return kind == NVM_NODE_CTL;
	case NVABI_NODE_GPU:
		return kind == NVM_NODE_GPU;
	case NVABI_NODE_ANY:
		return kind == NVM_NODE_CTL || kind == NVM_NODE_GPU;
	default:
		return false;
	}
}

static bool nvm_esc_size_ok(const struct nvabi_esc *e, unsigned int size)
{
	switch (e->kind) {
	case NVABI_SIZE_EXACT:
		return size == e->size || (e->size2 && size == e->size2);
	case NVABI_SIZE_ARRAY:
		return e->size && size && size % e->size == 0;
	case NVABI_SIZE_MIN:
		return size >= e->size;
	default:	/* the driver reads e->size bytes whatever the size says */
		return size == e->size;
	}
}

/**
 * nvm_esc_decide() - check an escape's number, node, privilege and size
 * @c: the call (@c->payload is not read)
 * @v: verdict, set on refusal
 *
 * Order: unknown number (-EINVAL, as the driver answers it), XFER inside
 * XFER (-EINVAL), node
 * (-EINVAL), privilege (-EPERM), size (-EINVAL), not admitted by the
 * profile (-EPERM, policy.c).
 *
 * Return: true when the escape may go on to its payload checks.
 */
bool nvm_esc_decide(const struct nvm_call *c, struct nvm_verdict *v)
{
	const struct nvabi_esc *e = nvm_abi_esc(c->nr, c->abi);

	v->family = NVM_FAM_ESCAPE;
	v->number = c->nr;
	v->name = NULL;
	if (!e)
		return nvm_refuse(v, -EINVAL, "esc-unknown");
	v->name = nvm_abi_esc_name(e);
	v->fds = nvm_abi_fds(e->fd);
	v->nfds = e->nfd;
	v->payload_size = c->size;
	if (c->xfer && c->nr == NVM_NV_ESC_XFER)
		return nvm_refuse(v, -EINVAL, "esc-xfer-nested");
	if (!nvm_esc_node_ok(e->node, c->kind))
		return nvm_refuse(v, -EINVAL, "esc-node");
	if (!nvm_priv_check(e->priv, c->policy, v, "esc-root"))
		return false;
	if (!nvm_esc_size_ok(e, c->size))
		return nvm_refuse(v, -EINVAL, "esc-size");
	return nvm_profile_check(c, v, NVM_FAM_ESCAPE, c->nr, e->caps);
}
