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
int nvm_abi_start(void);
void nvm_abi_stop(void);
int nvm_abi_select(struct file *backing, const struct nvm_range **range, enum nvm_tier *tier);
extern const struct attribute_group nvm_abi_class_group;

/* Module parameters (abi.c). */
extern char *nvm_force_version;
extern bool nvm_accept_outside;
extern bool nvm_serve_successor;

unsigned int nvm_abi_of(const struct nvm_range *range);

#endif /* NVM_ABI_H */
