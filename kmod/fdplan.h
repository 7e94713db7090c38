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

/*
 * In a plan's kinds: the number names a node of NVIDIA's own that the
 * runtime gave the container as it is (a capability node, an IMEX
 * channel), which the driver looks up as such; the caller's own file
 * stands there, if the node set gives that node (fdctx.c).
 */
#define NVM_FDPLAN_CAP	BIT(6)
#define NVM_FDPLAN_IMEX	BIT(7)

struct file;

/*
 * Does the node set of the call give the node of @file, looked up as
 * @kind (NVM_FDPLAN_CAP or _IMEX)?
 */
typedef bool (*nvm_given_fn)(const void *priv, struct file *file, u8 kind);

/**
 * struct nvm_fdplan - what the driver will look up in current->files
 * @swap: the call must run with a private fd table
 * @nfds: number of entries in @fds
 * @fds: fd numbers read from the payload's fd fields
 * @kinds: for each of @fds, the mediated node kinds whose backing file may
 *	stand at that number (BIT(NVM_NODE_*)): the node the driver wants;
 *	or %NVM_FDPLAN_CAP or %NVM_FDPLAN_IMEX
 * @gpu_nodes: the call allocates a device; the driver checks that the
 *	calling process holds the GPU's node
 * @cap_dup: the driver duplicates a capability file it is given into the
 *	caller's table (nv_cap_validate_and_dup_fd())
 * @given: decides on the %NVM_FDPLAN_CAP and _IMEX numbers; NULL gives none
 * @given_priv: its argument
 */
struct nvm_fdplan {
	bool swap;
	unsigned int nfds;
	int fds[NVM_FDPLAN_MAX];
	u8 kinds[NVM_FDPLAN_MAX];
	bool gpu_nodes;
	bool cap_dup;
	nvm_given_fn given;
	const void *given_priv;
};

struct nvm_req;
bool nvm_fdplan_wanted(const struct nvm_verdict *v);
int nvm_fdplan_build(const struct nvm_req *req, struct nvm_fdplan *plan);
bool nvm_fdplan_kind_ok(const struct nvm_fdplan *plan, unsigned int i, enum nvm_kind kind);

#endif /* NVM_FDPLAN_H */
