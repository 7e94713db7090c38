/* SPDX-License-Identifier: GPL-2.0 */
/*
 * nvmediate: the mediated device nodes' file operations (node.c).
 */
#ifndef NVM_NODE_H
#define NVM_NODE_H

#include <linux/types.h>
#include "nvm.h"

int nvm_minor_kind(unsigned int minor, enum nvm_kind *kind, unsigned int *gpu);
void nvm_node_init(dev_t devt);
int nvm_node_start(void);
void nvm_node_stop(void);

#endif /* NVM_NODE_H */
