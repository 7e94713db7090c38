/* SPDX-License-Identifier: GPL-2.0 */
/*
 * nvmediate: the ABI in use and the lookups of its generated tables (abi.c):
 * the only part of the module that knows where the driver keeps what.
 */
#ifndef NVM_ABI_H
#define NVM_ABI_H

#include <linux/fs.h>
#include <linux/sysfs.h>
#include "nvm.h"
#include "ranges.h"

int nvm_abi_init(void);
void nvm_abi_exit(void);
int nvm_abi_select(struct file *backing, const struct nvm_range **range);
extern const struct attribute_group nvm_abi_class_group;

/* Module parameters (abi.c). */
extern char *nvm_force_version;
extern bool nvm_accept_outside;

/* The generated tables of one ABI (abi/generated/nvabi_tables.h). */
struct nvabi_fd;
struct nvabi_esc;
struct nvabi_ctrl;
struct nvabi_class;
struct nvabi_uvm;
struct nvabi_rmlayout;
const struct nvabi_esc *nvm_abi_esc(u32 nr, unsigned int abi);
const struct nvabi_ctrl *nvm_abi_ctrl(u32 cmd, unsigned int abi);
const struct nvabi_class *nvm_abi_class(u32 hclass, unsigned int abi);
const struct nvabi_uvm *nvm_abi_uvm(u32 cmd, unsigned int abi);
const struct nvabi_rmlayout *nvm_abi_rmlayout(unsigned int abi);
const struct nvabi_fd *nvm_abi_fds(unsigned int first);
unsigned int nvm_abi_uvm_unknown(unsigned int abi);
const char *nvm_abi_name(enum nvm_family family, u32 nr, const struct nvm_range *range);

#endif /* NVM_ABI_H */
