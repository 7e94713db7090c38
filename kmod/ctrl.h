/* SPDX-License-Identifier: GPL-2.0 */
/*
 * nvmediate: the checks of RM_CONTROL, pure (ctrl.c).
 */
#ifndef NVM_CTRL_H
#define NVM_CTRL_H

#include "verdict.h"

bool nvm_ctrl_decide(const struct nvm_call *c, struct nvm_verdict *v);

#endif /* NVM_CTRL_H */
