/* SPDX-License-Identifier: GPL-2.0 */
/*
 * nvmediate: the checks of the UVM commands, pure (uvm.c).
 */
#ifndef NVM_UVM_H
#define NVM_UVM_H

#include "verdict.h"

bool nvm_uvm_decide(const struct nvm_call *c, struct nvm_verdict *v, u32 *size);

#endif /* NVM_UVM_H */
