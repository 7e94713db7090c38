/* SPDX-License-Identifier: GPL-2.0 */
/*
 * nvmediate: the decision on one call, pure (decide.c).
 */
#ifndef NVM_DECIDE_H
#define NVM_DECIDE_H

#include "verdict.h"

bool nvm_decide(struct nvm_call *c, struct nvm_verdict *v);

#endif /* NVM_DECIDE_H */
