// SPDX-License-Identifier: GPL-2.0
/*
 * nvmediate: the generated tables of each ABI (abi/generated/), read in
 * one place: entries by number, the RM payload layouts, fd fields, names,
 * the answer to an unknown UVM command.  No other part of the module
 * knows where the driver keeps what.  Pure, and built into nvproxyctl as
 * well, with the decisions above it (tools/nvproxyctl/Makefile).
 */
#include <linux/kernel.h>

#include "tables.h"
#include "nvabi_lookup.h"

/* Lookups of the generated tables for one ABI (nvabi_lookup.h). */
NVABI_DEFINE_LOOKUP(, nvm_abi_esc, struct nvabi_esc, nvabi_escs, NVABI_NR_ESCS, nr)
NVABI_DEFINE_LOOKUP(, nvm_abi_ctrl, struct nvabi_ctrl, nvabi_ctrls, NVABI_NR_CTRLS, cmd)
NVABI_DEFINE_LOOKUP(, nvm_abi_class, struct nvabi_class, nvabi_classes, NVABI_NR_CLASSES, hclass)
NVABI_DEFINE_LOOKUP(, nvm_abi_uvm, struct nvabi_uvm, nvabi_uvms, NVABI_NR_UVMS, cmd)
NVABI_DEFINE_LOOKUP(, nvm_abi_dep, struct nvabi_dep, nvabi_deps, NVABI_NR_DEPS, cmd)
NVABI_DEFINE_LOOKUP(, nvm_abi_emb, struct nvabi_emb, nvabi_embs, NVABI_NR_EMBS, cmd)

/**
 * nvm_abi_rmlayout() - where the RM payloads keep their fields in ABI @abi
 * @abi: ABI number
 *
 * Return: the layout; never NULL.
 */
const struct nvabi_rmlayout *nvm_abi_rmlayout(unsigned int abi)
{
	if (abi >= NVABI_NR_ABIS)
		abi = 0;
	return &nvabi_rmlayouts[nvabi_abi_rmlayout[abi]];
}

/**
 * nvm_abi_fds() - the fd fields an entry of the generated tables names
 * @first: the entry's first fd field (its fd member)
 *
 * Return: the fields, as many as the entry's nfd member says.
 */
const struct nvabi_fd *nvm_abi_fds(unsigned int first)
{
	return &nvabi_fds[first];
}

/**
 * nvm_abi_uvm_unknown() - what the driver of ABI @abi answers a command its
 *	UVM node does not take
 * @abi: ABI number
 *
 * Return: NVABI_UVM_UNKNOWN_EINVAL or _ENOSYS, or _NONE where the source
 * did not say.
 */
unsigned int nvm_abi_uvm_unknown(unsigned int abi)
{
	return abi < NVABI_NR_ABIS ? nvabi_abi_uvm_unknown[abi] : NVABI_UVM_UNKNOWN_NONE;
}

static const char *nvm_name_or_null(const char *name)
{
	return name && *name ? name : NULL;
}

/*
 * The names the driver's sources give the entries (NV_ESC_*, a control's
 * params type, the class, UVM_*), parallel to the entry tables; NULL
 * where an entry has none.
 */
const char *nvm_abi_esc_name(const struct nvabi_esc *e)
{
	return nvm_name_or_null(nvabi_esc_names[e - nvabi_escs]);
}

const char *nvm_abi_ctrl_name(const struct nvabi_ctrl *e)
{
	return nvm_name_or_null(nvabi_ctrl_names[e - nvabi_ctrls]);
}

const char *nvm_abi_class_name(const struct nvabi_class *e)
{
	return nvm_name_or_null(nvabi_class_names[e - nvabi_classes]);
}

const char *nvm_abi_uvm_name(const struct nvabi_uvm *e)
{
	return nvm_name_or_null(nvabi_uvm_names[e - nvabi_uvms]);
}

const char *nvm_abi_dep_name(const struct nvabi_dep *e)
{
	return nvm_name_or_null(nvabi_dep_names[e - nvabi_deps]);
}
