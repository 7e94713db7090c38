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

/**
 * nvm_abi_name() - the name the driver's sources give @nr in ABI @abi
 * (abi/generated/: NV_ESC_*, a control's params type, the class, UVM_*),
 * @family: NVM_FAM_* of @nr
 * @nr: escape, control command, class or UVM command
 * @abi: ABI number
 *
 * Return: the name, or NULL when the descriptor has no entry or no name
 * for @nr.
 */
const char *nvm_abi_name(enum nvm_family family, u32 nr, unsigned int abi)
{
	const char *name = NULL;

	switch (family) {
	case NVM_FAM_ESCAPE: {
		const struct nvabi_esc *e = nvm_abi_esc(nr, abi);

		name = e ? nvabi_esc_names[e - nvabi_escs] : NULL;
		break;
	}
	case NVM_FAM_CTRL: {
		const struct nvabi_ctrl *e = nvm_abi_ctrl(nr, abi);

		name = e ? nvabi_ctrl_names[e - nvabi_ctrls] : NULL;
		break;
	}
	case NVM_FAM_ALLOC: {
		const struct nvabi_class *e = nvm_abi_class(nr, abi);

		name = e ? nvabi_class_names[e - nvabi_classes] : NULL;
		break;
	}
	case NVM_FAM_UVM: {
		const struct nvabi_uvm *e = nvm_abi_uvm(nr, abi);

		name = e ? nvabi_uvm_names[e - nvabi_uvms] : NULL;
		break;
	}
	default:
		break;
	}
	return name && *name ? name : NULL;
}
