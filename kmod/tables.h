/* SPDX-License-Identifier: GPL-2.0 */
/*
 * nvmediate: the generated tables of each ABI, read in one place (tables.c).
 */
#ifndef NVM_TABLES_H
#define NVM_TABLES_H

#include <linux/types.h>
#include "nvm.h"
#include "nvabi_tables.h"

/* The generated tables of one ABI (abi/generated/nvabi_tables.h). */
struct nvabi_fd;
struct nvabi_esc;
struct nvabi_ctrl;
struct nvabi_class;
struct nvabi_uvm;
struct nvabi_dep;
struct nvabi_emb;
struct nvabi_rmlayout;
const struct nvabi_esc *nvm_abi_esc(u32 nr, unsigned int abi);
const struct nvabi_ctrl *nvm_abi_ctrl(u32 cmd, unsigned int abi);
const struct nvabi_class *nvm_abi_class(u32 hclass, unsigned int abi);
const struct nvabi_uvm *nvm_abi_uvm(u32 cmd, unsigned int abi);
const struct nvabi_dep *nvm_abi_dep(u32 cmd, unsigned int abi);
const struct nvabi_emb *nvm_abi_emb(u32 cmd, unsigned int abi);
unsigned int nvm_abi_uvm_unknown(unsigned int abi);

/* The accessors below are read on every call: inline. */

/**
 * nvm_abi_rmlayout() - where the RM payloads keep their fields in ABI @abi
 * @abi: ABI number
 *
 * Return: the layout; never NULL.
 */
static inline const struct nvabi_rmlayout *nvm_abi_rmlayout(unsigned int abi)
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
static inline const struct nvabi_fd *nvm_abi_fds(unsigned int first)
{
	return &nvabi_fds[first];
}

static inline const char *nvm_name_or_null(const char *name)
{
	return name && *name ? name : NULL;
}

/*
 * The names the driver's sources give the entries (NV_ESC_*, a control's
 * params type, the class, UVM_*), parallel to the entry tables; NULL
 * where an entry has none.
 */
static inline const char *nvm_abi_esc_name(const struct nvabi_esc *e)
{
	return nvm_name_or_null(nvabi_esc_names[e - nvabi_escs]);
}

static inline const char *nvm_abi_ctrl_name(const struct nvabi_ctrl *e)
{
	return nvm_name_or_null(nvabi_ctrl_names[e - nvabi_ctrls]);
}

static inline const char *nvm_abi_class_name(const struct nvabi_class *e)
{
	return nvm_name_or_null(nvabi_class_names[e - nvabi_classes]);
}

static inline const char *nvm_abi_uvm_name(const struct nvabi_uvm *e)
{
	return nvm_name_or_null(nvabi_uvm_names[e - nvabi_uvms]);
}

static inline const char *nvm_abi_dep_name(const struct nvabi_dep *e)
{
	return nvm_name_or_null(nvabi_dep_names[e - nvabi_deps]);
}

#endif /* NVM_TABLES_H */
