// SPDX-License-Identifier: GPL-2.0
/*
 * nvmediate: which fd numbers a forwarded call makes the driver look up in
 * the caller's fd table (see docs/design.md, "the private fd table").
 *
 * Everything comes from the table entry the validator matched for the
 * call in the file's ABI (req->verdict): its fd fields (nvabi_fds), each
 * with its offset in that release's payload and the node the driver looks
 * the number up as, which tools/nvabi found in each release's code.  A
 * field the driver does not look up (an fd it creates, or a number it only
 * keeps) is not read.  The fields are read from the validator's kernel
 * copies, the bytes the driver is handed from the bounce area: an
 * escape's own struct, and a call's control or class params or UVM
 * payload, which the validator copies for a call that runs with a private
 * table (nvm_req_keep()).  Without the bounce (bounce=0, or a caller that
 * may map low memory before 6.10) the driver reads the caller's memory
 * instead: a number changed there since the copy names nothing in the
 * private table, and the driver fails the call as for a foreign fd.
 *
 * The escape NV_ESC_RM_ALLOC_MEMORY carries an fd the driver reads only to
 * map the NV01_MEMORY_SYSTEM object it allocates; any other call of it
 * reads no fd but may read the caller's memory (an OS descriptor's pages,
 * a memory list), which a caller can make stall, so it runs without a
 * private table (escape.c sets verdict.fds_unread).
 */
#include <linux/bits.h>
#include <linux/kernel.h>
#include <linux/string.h>
#include <linux/uaccess.h>

#include "fdplan.h"
#include "nvabi_tables.h"

/* The mediated node kinds a number the driver looks up as @node may name. */
static u8 nvm_fd_kinds(unsigned int node)
{
	switch (node) {
	case NVABI_NODE_CTL:
		return BIT(NVM_NODE_CTL);
	case NVABI_NODE_GPU:
		return BIT(NVM_NODE_GPU);
	case NVABI_NODE_ANY:
		return BIT(NVM_NODE_CTL) | BIT(NVM_NODE_GPU);
	case NVABI_NODE_UVM:
		return BIT(NVM_NODE_UVM);
	case NVABI_NODE_CAP:
		return NVM_FDPLAN_CAP;
	case NVABI_NODE_IMEX:
		return NVM_FDPLAN_IMEX;
	default:
		return 0;
	}
}

/* The payload @v's fd fields are in: a kernel copy, or the caller's memory. */
static void nvm_fd_payload(const struct nvm_req *req, const struct nvm_verdict *v,
			   const void **kbuf, const void __user **ubuf, u32 *size)
{
	*kbuf = NULL;
	*ubuf = NULL;
	switch (v->family) {
	case NVM_FAM_CTRL:
	case NVM_FAM_ALLOC:
		if (req->kept.params) {
			*kbuf = req->kept.params;
			*size = req->kept.params_size;
		} else {
			*ubuf = u64_to_user_ptr(v->nested);
			*size = v->nested ? v->nested_size : 0;
		}
		break;
	case NVM_FAM_UVM:
		if (!req->kbuf) {
			*ubuf = req->arg;
			*size = v->payload_size;
			break;
		}
		fallthrough;
	default:
		*kbuf = req->kbuf;
		*size = req->kbuf ? req->size : 0;
		break;
	}
}

static int nvm_fdplan_fields(struct nvm_fdplan *plan, const struct nvm_req *req,
			     const struct nvm_verdict *v)
{
	const void __user *ubuf;
	const void *kbuf;
	unsigned int i;
	u32 size;
	int fd;

	nvm_fd_payload(req, v, &kbuf, &ubuf, &size);
	for (i = 0; i < v->nfds; i++) {
		const struct nvabi_fd *f = &v->fds[i];
		u8 kinds = nvm_fd_kinds(f->node);

		if (!kinds)
			continue;
		/* A payload too short for the field: the driver refuses it itself. */
		if (f->off > size || size - f->off < sizeof(int))
			continue;
		/* The number is the low 32 bits of an 8-byte field (little endian). */
		if (kbuf)
			memcpy(&fd, kbuf + f->off, sizeof(fd));
		else if (get_user(fd, (const int __user *)(ubuf + f->off)))
			return -EFAULT;
		/*
		 * A capability or channel field is kept whatever it holds: one
		 * that names no file of a given node is refused (fdctx.c).
		 */
		if ((fd >= 0 || (kinds & (NVM_FDPLAN_CAP | NVM_FDPLAN_IMEX))) &&
		    plan->nfds < NVM_FDPLAN_MAX) {
			plan->kinds[plan->nfds] = kinds;
			plan->fds[plan->nfds++] = fd;
			plan->cap_dup |= kinds == NVM_FDPLAN_CAP;
		}
	}
	return 0;
}

/* The driver checks that the caller holds the GPU's node. */
static bool nvm_fdplan_gpu(const struct nvm_verdict *v)
{
	return (v->family == NVM_FAM_ALLOC && v->number == NVM_NV01_DEVICE_0) ||
	       (v->family == NVM_FAM_UVM && v->number == NVM_UVM_REGISTER_GPU);
}

/**
 * nvm_fdplan_wanted() - will a call run with a private fd table
 * @v: the validator's verdict on a call it lets through
 *
 * Return: true when the driver will look a number of the call up in the
 * caller's fd table, or check that the caller holds the GPU's node (a
 * device allocation, UVM_REGISTER_GPU); nvm_fdplan_build() then swaps.
 */
bool nvm_fdplan_wanted(const struct nvm_verdict *v)
{
	unsigned int i;

	if (nvm_fdplan_gpu(v))
		return true;
	if (v->fds_unread)
		return false;
	for (i = 0; i < v->nfds; i++)
		if (nvm_fd_kinds(v->fds[i].node))
			return true;
	return false;
}

/**
 * nvm_fdplan_build() - find the fd lookups a call will make in the driver
 * @req: the call, as the validator left it (its verdict names the table
 *	entry matched; an escape's kernel copy is read, never the caller's
 *	memory again)
 * @plan: filled in; empty when the call needs nothing from the fd table
 *
 * Return: 0, or -EFAULT when a field in the caller's memory cannot be read.
 */
int nvm_fdplan_build(const struct nvm_req *req, struct nvm_fdplan *plan)
{
	const struct nvm_verdict *v = &req->verdict;

	memset(plan, 0, sizeof(*plan));
	if (!nvm_fdplan_wanted(v))
		return 0;
	plan->swap = true;
	plan->gpu_nodes = nvm_fdplan_gpu(v);
	return nvm_fdplan_fields(plan, req, v);
}

/**
 * nvm_fdplan_kind_ok() - may a mediated file of @kind stand at @plan's fd @i
 * @plan: the plan
 * @i: index in @plan->fds
 * @kind: the mediated file's node kind
 *
 * The driver wants a file of one node at each number it looks up (its
 * control node, a GPU node, either, or UVM); a mediated file of another
 * kind is left out of the private table, so the driver answers as it does
 * for any file that is not the one it wants.
 */
bool nvm_fdplan_kind_ok(const struct nvm_fdplan *plan, unsigned int i, enum nvm_kind kind)
{
	return i < plan->nfds && (plan->kinds[i] & BIT(kind));
}

#ifdef NVM_KUNIT
#include "../kunit/fdplan_test.c"
#endif
