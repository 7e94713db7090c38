/* SPDX-License-Identifier: GPL-2.0 */
/*
 * nvmediate: the generated tables of each ABI, read in one place (tables.c).
 */
#ifndef NVM_TABLES_H
#define NVM_TABLES_H

#include <linux/types.h>
#include "nvm.h"

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
const struct nvabi_rmlayout *nvm_abi_rmlayout(unsigned int abi);
const struct nvabi_fd *nvm_abi_fds(unsigned int first);
unsigned int nvm_abi_uvm_unknown(unsigned int abi);
const char *nvm_abi_esc_name(const struct nvabi_esc *e);
const char *nvm_abi_ctrl_name(const struct nvabi_ctrl *e);
const char *nvm_abi_class_name(const struct nvabi_class *e);
const char *nvm_abi_uvm_name(const struct nvabi_uvm *e);
const char *nvm_abi_dep_name(const struct nvabi_dep *e);

#endif /* NVM_TABLES_H */
