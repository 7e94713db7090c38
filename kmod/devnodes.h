/* SPDX-License-Identifier: GPL-2.0 */
/*
 * nvmediate: the device numbers and /dev nodes of every set (devnodes.c).
 */
#ifndef NVM_DEVNODES_H
#define NVM_DEVNODES_H

#include <linux/sysfs.h>
#include <linux/types.h>

/* Sets at most: each has NVM_MINORS minors (uapi/nvmediate.h). */
#define NVM_MAX_SETS		64

int nvm_devnodes_init(const struct attribute_group **groups, dev_t *devt);
void nvm_devnodes_exit(void);
int nvm_devnodes_add(unsigned int index, const char *name, unsigned int ngpus);
void nvm_devnodes_del(unsigned int index, unsigned int ngpus);

#endif /* NVM_DEVNODES_H */
