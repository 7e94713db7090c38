/* SPDX-License-Identifier: GPL-2.0 */
/*
 * nvmediate: running a call with a private fd table (fdctx.c).
 */
#ifndef NVM_FDCTX_H
#define NVM_FDCTX_H

#include <linux/fdtable.h>
#include "fdplan.h"

struct nvm_fdctx;

/* The mediated state of a file, NULL for a file that is not mediated. */
typedef struct nvm_file *(*nvm_mediated_fn)(struct file *file);

/* nvm_fdctx_create(): a number names a node the call's node set does not give. */
#define NVM_FDCTX_NOT_GIVEN	1

int nvm_fdctx_create(const struct nvm_fdplan *plan, nvm_mediated_fn mediated,
		     struct nvm_fdctx **ctxp);
int nvm_fdctx_enter(struct nvm_fdctx *ctx);
void nvm_fdctx_leave(struct nvm_fdctx *ctx);
void nvm_fdctx_settle(struct nvm_fdctx *ctx);
u64 nvm_fdctx_long_holds(void);
unsigned int nvm_fdctx_longest_hold_ms(void);
void nvm_fdctx_destroy(struct nvm_fdctx *ctx);
int nvm_fdctx_init(void);
void nvm_fdctx_exit(void);

#endif /* NVM_FDCTX_H */
