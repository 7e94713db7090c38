/* SPDX-License-Identifier: GPL-2.0 */
/*
 * nvmediate: handing a checked call to the driver (handoff.c).
 */
#ifndef NVM_HANDOFF_H
#define NVM_HANDOFF_H

#include "fdctx.h"
#include "validate.h"

long nvm_handoff(struct nvm_file *nf, struct nvm_req *req, struct nvm_report *rep,
		 nvm_mediated_fn mediated, unsigned long arg);

#endif /* NVM_HANDOFF_H */
