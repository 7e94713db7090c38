/* SPDX-License-Identifier: GPL-2.0 */
/*
 * nvmediate: the checks of the frontend escapes, pure (escape.c).
 */
#ifndef NVM_ESCAPE_H
#define NVM_ESCAPE_H

#include "verdict.h"

bool nvm_esc_decide(const struct nvm_call *c, struct nvm_verdict *v);
void nvm_esc_osdesc(const struct nvm_call *c, struct nvm_verdict *v);
void nvm_esc_alloc_memory_fd(const struct nvm_call *c, struct nvm_verdict *v);
bool nvm_esc_alloc_memory_class(const struct nvm_call *c, struct nvm_verdict *v);

#endif /* NVM_ESCAPE_H */
