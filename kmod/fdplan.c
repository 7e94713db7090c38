// SPDX-License-Identifier: GPL-2.0
/*
 * nvmediate: which fd numbers a forwarded call makes the driver look up in
 * the caller's fd table (see docs/design.md, "the private fd table").
 *
 * Escapes' fields are read from the validator's kernel copy, the bytes
 * the driver is handed from the bounce area; UVM fields from the caller's
 * memory.  Nothing is trusted: a number that changes before the driver
 * reads it again simply names nothing in the private table, and the
 * driver fails the call.
 */
#include <linux/ioctl.h>
#include <linux/kernel.h>
#include <linux/uaccess.h>

#include "nvm.h"

static const struct nvm_fd_field nvm_fd_table[] = NVM_BASE_FD_FIELDS;
static const unsigned int nvm_gpu_node_uvm_cmds[] = NVM_BASE_GPU_NODE_UVM_CMDS;

/**
 * nvm_fd_fields() - the fd-field table in use
 * @count: set to the number of entries
 */
const struct nvm_fd_field *nvm_fd_fields(unsigned int *count)
{
	*count = ARRAY_SIZE(nvm_fd_table);
	return nvm_fd_table;
}

static int nvm_fdplan_fields(struct nvm_fdplan *plan, enum nvm_fd_family family,
			     unsigned int cmd, const void __user *payload, const void *kbuf,
			     unsigned int size)
{
	unsigned int i;
	int fd;

	for (i = 0; i < ARRAY_SIZE(nvm_fd_table); i++) {
		const struct nvm_fd_field *f = &nvm_fd_table[i];

		if (f->family != family || f->cmd != cmd)
			continue;
		/* A payload too short for the field: the driver refuses it itself. */
		plan->swap = true;
		if (size < f->off + sizeof(int))
			continue;
		if (kbuf)
			memcpy(&fd, kbuf + f->off, sizeof(fd));
		else if (get_user(fd, (const int __user *)(payload + f->off)))
			return -EFAULT;
		if (fd >= 0 && plan->nfds < NVM_FDPLAN_MAX)
			plan->fds[plan->nfds++] = fd;
	}
	return 0;
}

/**
 * nvm_fdplan_build() - find the fd lookups a call will make in the driver
 * @nf: the mediated file the call is made on
 * @req: the call, as the validator left it (its kernel copy of an
 *	escape's payload is read, never the caller's memory again)
 * @plan: filled in; empty when the call needs nothing from the fd table
 *
 * Return: 0, or -EFAULT when a field cannot be read.
 */
int nvm_fdplan_build(const struct nvm_file *nf, const struct nvm_req *req,
		     struct nvm_fdplan *plan)
{
	u32 hclass;

	memset(plan, 0, sizeof(*plan));

	if (nf->kind == NVM_NODE_UVM) {
		unsigned int i;

		for (i = 0; i < ARRAY_SIZE(nvm_gpu_node_uvm_cmds); i++)
			if (req->cmd == nvm_gpu_node_uvm_cmds[i])
				plan->gpu_nodes = plan->swap = true;
		/* UVM commands are plain numbers; the driver copies its own size. */
		return nvm_fdplan_fields(plan, NVM_FD_UVM, req->cmd, req->arg, NULL, UINT_MAX);
	}

	/* Escapes: the validator's copy, which is what the driver will read. */
	if (!req->kbuf)
		return 0;
	if (req->nr == NVM_NV_ESC_RM_ALLOC &&
	    (req->size == NVM_NV_NVOS21_SIZE || req->size == NVM_NV_NVOS64_SIZE)) {
		memcpy(&hclass, req->kbuf + NVM_NV_ALLOC_HCLASS_OFF, sizeof(hclass));
		plan->gpu_nodes = hclass == NVM_NV01_DEVICE_0;
		plan->swap = plan->gpu_nodes;
		return 0;
	}
	return nvm_fdplan_fields(plan, NVM_FD_ESCAPE, req->nr, req->payload, req->kbuf,
				 req->size);
}
