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
