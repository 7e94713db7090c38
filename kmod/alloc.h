/* SPDX-License-Identifier: GPL-2.0 */
/*
 * nvmediate: the checks of RM_ALLOC, pure (alloc.c).
 */
#ifndef NVM_ALLOC_H
#define NVM_ALLOC_H

#include "verdict.h"

bool nvm_alloc_decide(const struct nvm_call *c, struct nvm_verdict *v);
bool nvm_alloc_is_client(u32 hclass);

#endif /* NVM_ALLOC_H */
