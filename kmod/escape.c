// SPDX-License-Identifier: GPL-2.0
/*
 * nvmediate: checks of the frontend escapes (the ioctls of /dev/nvidiactl
 * and /dev/nvidiaN), from the escape table of the file's ABI.  Mirrors the
 * driver's nvidia_ioctl() and, from 595.44.02, nv_validate_ioctls().
 */
#include <linux/errno.h>
#include <linux/kernel.h>
#include <linux/limits.h>
#include <linux/string.h>

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
		return nvm_refuse(v, -EINVAL, NVM_RULE(ESC_UNKNOWN));
	v->name = nvm_abi_esc_name(e);
	v->fds = nvm_abi_fds(e->fd);
	v->nfds = e->nfd;
	v->payload_size = c->size;
	if (c->xfer && c->nr == NVM_NV_ESC_XFER)
		return nvm_refuse(v, -EINVAL, NVM_RULE(ESC_XFER_NESTED));
	if (!nvm_esc_node_ok(e->node, c->kind))
		return nvm_refuse(v, -EINVAL, NVM_RULE(ESC_NODE));
	if (!nvm_priv_check(e->priv, c->policy, v, NVM_RULE(ESC_ROOT)))
		return false;
	if (!nvm_esc_size_ok(e, c->size))
		return nvm_refuse(v, -EINVAL, NVM_RULE(ESC_SIZE));
	return nvm_profile_check(c, v, NVM_FAM_ESCAPE, c->nr, e->caps);
}

/**
 * nvm_esc_osdesc() - the user memory an escape makes a memory object of
 * @c: the call, its payload copied and of the escape's size
 * @v: verdict: @v->osdesc and @v->osdesc_len set for such a call
 *
 * NV_ESC_RM_VID_HEAP_CONTROL with NVOS32's ALLOC_OS_DESCRIPTOR function
 * and NV_ESC_RM_ALLOC_MEMORY of the OS-descriptor class hand the driver a
 * range of the caller's memory (descriptor or pMemory, limit + 1 bytes).
 * The driver pins it or, failing that, takes the frame numbers of a
 * VM_IO or VM_PFNMAP mapping there from its page-table entries
 * (os_lookup_user_io_memory(), whatever their permissions) and keeps
 * them: over the bounce area that would give the caller, through the
 * memory object, pages that later calls' payloads lie in.  handoff.c refuses
 * the call when the range meets the caller's area.  A limit of all ones
 * names no range (the driver answers NV_ERR_INVALID_LIMIT), nor does a
 * payload of another size (the driver refuses it); an ABI without the
 * layout or its fields names every address, so the call is refused there
 * whenever the caller has an area.
 */
void nvm_esc_osdesc(const struct nvm_call *c, struct nvm_verdict *v)
{
	const struct nvabi_rmlayout *l = nvm_abi_rmlayout(c->abi);
	unsigned int size, off_sel, off_addr, off_limit;
	u32 sel, want;
	u64 addr, limit;

	if (c->nr == NVM_NV_ESC_RM_VID_HEAP_CONTROL) {
		size = l->vh_size;
		off_sel = l->vh_function;
		off_addr = l->vh_desc;
		off_limit = l->vh_limit;
		want = NVM_NVOS32_FUNCTION_ALLOC_OS_DESCRIPTOR;
	} else if (c->nr == NVM_NV_ESC_RM_ALLOC_MEMORY) {
		size = l->am_size;
		off_sel = l->am_class;
		off_addr = l->am_memory;
		off_limit = l->am_limit;
		want = NVM_NV01_MEMORY_SYSTEM_OS_DESCRIPTOR;
	} else {
		return;
	}
	if (!size)
		goto unknown;
	if (c->size != size)	/* the driver refuses it */
		return;
	if (off_sel == NVABI_OFF_NONE || off_sel + sizeof(sel) > c->size)
		goto unknown;
	memcpy(&sel, c->payload + off_sel, sizeof(sel));
	if (sel != want)
		return;
	if (off_addr == NVABI_OFF_NONE || off_addr + sizeof(addr) > c->size ||
	    off_limit == NVABI_OFF_NONE || off_limit + sizeof(limit) > c->size)
		goto unknown;
	memcpy(&addr, c->payload + off_addr, sizeof(addr));
	memcpy(&limit, c->payload + off_limit, sizeof(limit));
	if (limit == U64_MAX)
		return;
	v->osdesc = addr;
	v->osdesc_len = limit + 1;
	return;
unknown:
	v->osdesc = 0;
	v->osdesc_len = U64_MAX;
}

/* NVOS02's class and flags, or false when the ABI has no such layout. */
static bool nvm_esc_nvos02(const struct nvm_call *c, u32 *hclass, u32 *flags)
{
	const struct nvabi_rmlayout *l = nvm_abi_rmlayout(c->abi);

	if (!l->am_size || c->size != l->am_size || l->am_class == NVABI_OFF_NONE ||
	    l->am_flags == NVABI_OFF_NONE || l->am_class + sizeof(*hclass) > c->size ||
	    l->am_flags + sizeof(*flags) > c->size)
		return false;
	memcpy(hclass, c->payload + l->am_class, sizeof(*hclass));
	memcpy(flags, c->payload + l->am_flags, sizeof(*flags));
	return true;
}

/**
 * nvm_esc_alloc_memory_fd() - does NV_ESC_RM_ALLOC_MEMORY read its fd
 * @c: the call, its payload copied and of the escape's size
 * @v: verdict: @v->fds_unread set when the driver reads no fd
 *
 * RmIoctl() (535, 580 and 595) looks the call's fd up only to map the
 * NV01_MEMORY_SYSTEM object it allocates, when the flags ask for a mapping
 * (neither ALLOC_NONE nor MAPPING_NO_MAP).  Any other call reads no fd;
 * it may read the caller's memory instead (an OS descriptor's pages, a
 * memory list), so it runs without a private fd table and without the
 * lock that comes with one (fdplan.c).  Read from the checked copy, which
 * the driver is handed from the bounce area; without a bounce the driver
 * may read another class, and then finds the caller's own mediated file
 * at the number, which it refuses.
 */
void nvm_esc_alloc_memory_fd(const struct nvm_call *c, struct nvm_verdict *v)
{
	u32 hclass, flags;

	v->fds_unread = false;
	if (c->nr != NVM_NV_ESC_RM_ALLOC_MEMORY || !nvm_esc_nvos02(c, &hclass, &flags))
		return;
	v->fds_unread = hclass != NVM_NV01_MEMORY_SYSTEM ||
			NVM_NVOS02_FLAGS_ALLOC(flags) == NVM_NVOS02_FLAGS_ALLOC_NONE ||
			NVM_NVOS02_FLAGS_MAPPING(flags) == NVM_NVOS02_FLAGS_MAPPING_NO_MAP;
}

/**
 * nvm_esc_alloc_memory_class() - the privilege of NV_ESC_RM_ALLOC_MEMORY's class
 * @c: the call, its payload copied and of the escape's size
 * @v: verdict, set on refusal
 *
 * The driver checks the caller's privilege for the class only once the
 * object is being made (RmAlloc()), after RmDeprecatedAllocMemory() has
 * read what the class needs from the caller's memory: for the memory-list
 * classes (NV01_MEMORY_LIST_*, administrator-only) a list of 8 bytes per
 * page, up to 4 GiB, in a buffer charged to no cgroup, for as long as the
 * copy takes.  So those classes, and any other the ABI's class table
 * marks administrator-only, are refused here first without allow_root
 * (-EPERM "alloc-memory-root"); whatever else the driver refuses it
 * refuses itself, as on its own node.
 *
 * Return: true when the call may be forwarded.
 */
bool nvm_esc_alloc_memory_class(const struct nvm_call *c, struct nvm_verdict *v)
{
	const struct nvabi_class *e;
	u32 hclass, flags;

	if (c->nr != NVM_NV_ESC_RM_ALLOC_MEMORY || !nvm_esc_nvos02(c, &hclass, &flags) ||
	    (c->policy & NVM_POLICY_ROOT))
		return true;
	e = nvm_abi_class(hclass, c->abi);
	if ((hclass >= NVM_NV01_MEMORY_LIST_SYSTEM && hclass <= NVM_NV01_MEMORY_LIST_OBJECT) ||
	    (e && e->priv == NVABI_PRIV_ROOT))
		return nvm_refuse(v, -EPERM, NVM_RULE(ALLOC_MEMORY_ROOT));
	return true;
}
