// SPDX-License-Identifier: GPL-2.0
/*
 * nvmediate: which fd numbers a forwarded call makes the driver look up in
 * the caller's fd table (see docs/design.md, "the private fd table").
 *
 * Only the fields are read here, from the caller's memory; nothing is
 * trusted: a number that changes before the driver reads it again simply
 * names nothing in the private table, and the driver fails the call.
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
			     unsigned int cmd, const void __user *payload, unsigned int size)
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
		if (get_user(fd, (const int __user *)(payload + f->off)))
			return -EFAULT;
		if (fd >= 0 && plan->nfds < NVM_FDPLAN_MAX)
			plan->fds[plan->nfds++] = fd;
	}
	return 0;
}

/**
 * nvm_fdplan_build() - find the fd lookups a call will make in the driver
 * @nf: the mediated file the call is made on
 * @cmd: the ioctl command
 * @arg: the caller's argument
 * @plan: filled in; empty when the call needs nothing from the fd table
 *
 * Return: 0, or -EFAULT when a field cannot be read.
 */
int nvm_fdplan_build(const struct nvm_file *nf, unsigned int cmd,
		     unsigned long arg, struct nvm_fdplan *plan)
{
	const void __user *payload = (const void __user *)arg;
	unsigned int nr, size;
	u32 hclass;

	memset(plan, 0, sizeof(*plan));

	if (nf->kind == NVM_NODE_UVM) {
		unsigned int i;

		for (i = 0; i < ARRAY_SIZE(nvm_gpu_node_uvm_cmds); i++)
			if (cmd == nvm_gpu_node_uvm_cmds[i])
				plan->gpu_nodes = plan->swap = true;
		/* UVM commands are plain numbers; the driver copies its own size. */
		return nvm_fdplan_fields(plan, NVM_FD_UVM, cmd, payload, UINT_MAX);
	}

	nr = _IOC_NR(cmd);
	size = _IOC_SIZE(cmd);
	if (nr == NVM_NV_ESC_XFER) {
		struct { u32 cmd; u32 size; u64 ptr; } xfer;

		if (size != NVM_NV_XFER_SIZE)
			return 0;
		if (copy_from_user(&xfer, payload, sizeof(xfer)))
			return -EFAULT;
		nr = xfer.cmd;
		size = xfer.size;
		payload = u64_to_user_ptr(xfer.ptr);
	}

	if (nr == NVM_NV_ESC_RM_ALLOC &&
	    (size == NVM_NV_NVOS21_SIZE || size == NVM_NV_NVOS64_SIZE)) {
		if (get_user(hclass, (const u32 __user *)(payload + NVM_NV_ALLOC_HCLASS_OFF)))
			return -EFAULT;
		plan->gpu_nodes = hclass == NVM_NV01_DEVICE_0;
		plan->swap = plan->gpu_nodes;
		return 0;
	}
	return nvm_fdplan_fields(plan, NVM_FD_ESCAPE, nr, payload, size);
}
