/* SPDX-License-Identifier: GPL-2.0 */
/*
 * modcheck.h - the module's own decision on one table entry (modcheck.c).
 */
#ifndef NVPROXYCTL_MODCHECK_H
#define NVPROXYCTL_MODCHECK_H

struct nvabi_esc;
struct nvabi_ctrl;
struct nvabi_class;
struct nvabi_uvm;
struct nvabi_dep;
struct policy;

/**
 * struct modcheck - what the module decides on a well-formed call
 * @admit: "yes", "root" (only for callers with CAP_SYS_ADMIN, allow_root=Y)
 *	or "no"
 * @rule: the rule refusing a caller without CAP_SYS_ADMIN, NULL if none
 * @err: its negative errno; 0 for an answer in the payload (@status)
 * @status: the NV_STATUS of that answer
 * @caps: NVM_CAP_* bits that admit the call (abi/capabilities.txt), 0: none
 * @caps_names: @caps in words
 * @finn_admitted: a control: the same call with FINN-serialized params
 *	passes
 * @finn_rule: the rule refusing that one
 * @finn_never: the rule refusing it even with allow_finn=Y, or NULL
 * @root_client: a class: one of the root-client classes
 * @null_params_rule: a class: the rule refusing the call with
 *	pAllocParms NULL, NULL when that passes
 */
struct modcheck {
	const char *admit;
	const char *rule;
	int err;
	unsigned int status;
	unsigned int caps;
	char caps_names[96];
	int finn_admitted;
	const char *finn_rule;
	const char *finn_never;
	int root_client;
	const char *null_params_rule;
};

void modcheck_esc(unsigned int abi, const struct nvabi_esc *e, const struct policy *pol,
		  struct modcheck *m);
void modcheck_ctrl(unsigned int abi, const struct nvabi_ctrl *e, const struct policy *pol,
		   struct modcheck *m);
void modcheck_class(unsigned int abi, const struct nvabi_class *e, const struct policy *pol,
		    struct modcheck *m);
void modcheck_uvm(unsigned int abi, const struct nvabi_uvm *e, const struct policy *pol,
		  struct modcheck *m);
void modcheck_dep(unsigned int abi, const struct nvabi_dep *d, const struct policy *pol,
		  struct modcheck *m);

#endif /* NVPROXYCTL_MODCHECK_H */
