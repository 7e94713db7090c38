/* SPDX-License-Identifier: GPL-2.0 */
/*
 * nvmediate: a set's mediated nodes at the driver's names and numbers, the
 * filesystem nvmediatefs (nodefs.c).
 */
#ifndef NVM_NODEFS_H
#define NVM_NODEFS_H

#include <linux/types.h>

int nvm_nodefs_init(dev_t devt);
void nvm_nodefs_exit(void);

#endif /* NVM_NODEFS_H */
