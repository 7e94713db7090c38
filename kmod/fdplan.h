/* SPDX-License-Identifier: GPL-2.0 */
/*
 * nvmediate: which fd numbers a call needs to find in the caller's table
 * (fdplan.c).
 */
#ifndef NVM_FDPLAN_H
#define NVM_FDPLAN_H

#include "nvm.h"
#include "validate.h"

#define NVM_FDPLAN_MAX	4

/**
 * struct nvm_fdplan - what the driver will look up in current->files
 * @swap: the call must run with a private fd table
 * @nfds: number of entries in @fds
 * @fds: fd numbers read from the payload's fd fields
 * @kinds: for each of @fds, the mediated node kinds whose backing file may
 *	stand at that number (BIT(NVM_NODE_*)): the node the driver wants
 * @gpu_nodes: the call allocates a device; the driver checks that the
 *	calling process holds the GPU's node
 */
struct nvm_fdplan {
	bool swap;
	unsigned int nfds;
	int fds[NVM_FDPLAN_MAX];
	u8 kinds[NVM_FDPLAN_MAX];
	bool gpu_nodes;
};

struct nvm_req;
bool nvm_fdplan_wanted(const struct nvm_verdict *v);
int nvm_fdplan_build(const struct nvm_req *req, struct nvm_fdplan *plan);
bool nvm_fdplan_kind_ok(const struct nvm_fdplan *plan, unsigned int i, enum nvm_kind kind);

#endif /* NVM_FDPLAN_H */
