// SPDX-License-Identifier: GPL-2.0
/*
 * nvproxyctl: the module's own decision on one table entry, for explain.
 *
 * The decision code is the module's (kmod/decide.c, escape.c, ctrl.c,
 * alloc.c, uvm.c, policy.c, tables.c), compiled here against
 * kshim/, which gives it libc in place of the kernel.  Each entry is put
 * to it as the call a well-formed caller makes of it: the escape at its
 * size on its node, the control in an NVOS54 with params of the recorded
 * size, the class in an NVOS64 with params, the UVM command.  The profile
 * admits every table entry, so that only the ABI's rules and the policy
 * decide (which capability admits the call is reported beside).
 */
#include "linux/kernel.h"	/* kshim: before anything of the module's */

#include "alloc.h"
#include "decide.h"
#include "escape.h"
#include "policy.h"
#include "tables.h"
#include "nvabi_tables.h"
#include "nvproxyctl.h"
#include "modcheck.h"

#define PARAMS_PTR	0x7f0000001000ULL

/* A profile with every capability and an allow entry for every number. */
static const struct nvm_profile *admit_all(void)
{
	static struct nvm_profile *p;

	if (p)
		return p;
	p = nvm_profile_admit_all();
	if (!p) {
		err("out of memory");
		exit(EXIT_ERR);
	}
	return p;
}

static void put32(u8 *buf, unsigned int off, u32 x)
{
	memcpy(buf + off, &x, sizeof(x));
}

static void put64(u8 *buf, unsigned int off, u64 x)
{
	memcpy(buf + off, &x, sizeof(x));
}

/* An NVOS54 of ABI @abi calling control @cmd. */
static unsigned int nvos54(u8 *buf, unsigned int abi, u32 cmd, u32 flags, u32 psize)
{
	const struct nvabi_rmlayout *l = nvm_abi_rmlayout(abi);

	memset(buf, 0, 64);
	put32(buf, l->ctl_cmd, cmd);
	put32(buf, l->ctl_flags, flags);
	put64(buf, l->ctl_params, psize ? PARAMS_PTR : 0);
	put32(buf, l->ctl_psize, psize);
	return l->ctl_size;
}

/* An NVOS64 of ABI @abi allocating @hclass. */
static unsigned int nvos64(u8 *buf, unsigned int abi, u32 hclass, int params)
{
	const struct nvabi_rmlayout *l = nvm_abi_rmlayout(abi);

	memset(buf, 0, 64);
	put32(buf, l->a64_class, hclass);
	put64(buf, l->a64_params, params ? PARAMS_PTR : 0);
	return l->a64_size;
}

/* The policy bits of @pol for a caller with CAP_SYS_ADMIN (@root) or not. */
static unsigned int policy_bits(const struct policy *pol, int root)
{
	return (root && pol->allow_root ? NVM_POLICY_ROOT : 0) |
	       (pol->allow_finn ? NVM_POLICY_FINN : 0) | (pol->allow_gss ? NVM_POLICY_GSS : 0);
}

/*
 * Decide @c for a caller without CAP_SYS_ADMIN, then, when refused and
 * allow_root is on, for one with it; fill @m with the outcome.
 */
static void decide_both(struct nvm_call *c, const struct policy *pol, int escape_only,
			struct modcheck *m)
{
	struct nvm_call again = *c;
	struct nvm_verdict v;
	int ok;

	c->prof = again.prof = admit_all();
	c->policy = policy_bits(pol, 0);
	ok = escape_only ? nvm_esc_decide(c, &v) : nvm_decide(c, &v);
	m->admit = ok ? "yes" : "no";
	m->rule = ok ? NULL : v.rule;
	m->err = ok ? 0 : v.err;
	m->status = ok || v.err ? 0 : v.status;
	if (ok || !pol->allow_root)
		return;
	again.policy = policy_bits(pol, 1);
	if (escape_only ? nvm_esc_decide(&again, &v) : nvm_decide(&again, &v))
		m->admit = "root";
}

/* The capabilities of the entry (its caps field), as names. */
static void caps_of(u16 caps, struct modcheck *m)
{
	m->caps = caps;
	if (m->caps & NVM_CAP_BASE)
		snprintf(m->caps_names, sizeof(m->caps_names), "every profile (base)");
	else
		nvm_caps_format(m->caps, m->caps_names, sizeof(m->caps_names));
}

void modcheck_esc(unsigned int abi, const struct nvabi_esc *e, const struct policy *pol,
		  struct modcheck *m)
{
	struct nvm_call c = { .abi = abi, .nr = e->nr, .size = e->size };

	memset(m, 0, sizeof(*m));
	c.kind = e->node == NVABI_NODE_GPU ? NVM_NODE_GPU : NVM_NODE_CTL;
	/* The escape's own checks; what a control or class decides is theirs. */
	decide_both(&c, pol, 1, m);
	caps_of(e->caps, m);
}

void modcheck_ctrl(unsigned int abi, const struct nvabi_ctrl *e, const struct policy *pol,
		   struct modcheck *m)
{
	u32 psize = e->size == NVABI_SIZE_UNKNOWN ? 0 : e->size;
	struct nvm_call c = { .abi = abi, .kind = NVM_NODE_CTL, .nr = NVM_NV_ESC_RM_CONTROL };
	struct modcheck finn;
	struct policy any = *pol;
	u8 buf[64];

	memset(m, 0, sizeof(*m));
	c.payload = buf;
	c.size = nvos54(buf, abi, e->cmd, 0, psize);
	decide_both(&c, pol, 0, m);
	/* The same call with FINN-serialized params. */
	c = (struct nvm_call){ .abi = abi, .kind = NVM_NODE_CTL, .nr = NVM_NV_ESC_RM_CONTROL,
			       .payload = buf };
	c.size = nvos54(buf, abi, e->cmd, NVM_NVOS54_FLAGS_FINN_SERIALIZED, psize);
	decide_both(&c, pol, 0, &finn);
	m->finn_admitted = strcmp(finn.admit, "no") != 0;
	m->finn_rule = finn.rule;
	any.allow_finn = 1;
	decide_both(&c, &any, 0, &finn);
	m->finn_never = strcmp(finn.admit, "no") ? NULL : finn.rule;
	caps_of(e->caps, m);
}

void modcheck_class(unsigned int abi, const struct nvabi_class *e, const struct policy *pol,
		    struct modcheck *m)
{
	int params = e->size && e->size != NVABI_SIZE_UNKNOWN;
	struct nvm_call c = { .abi = abi, .kind = NVM_NODE_CTL, .nr = NVM_NV_ESC_RM_ALLOC };
	struct modcheck null;
	u8 buf[64];

	memset(m, 0, sizeof(*m));
	c.payload = buf;
	c.size = nvos64(buf, abi, e->hclass, params);
	decide_both(&c, pol, 0, m);
	m->root_client = nvm_alloc_is_client(e->hclass);
	/* The same call with pAllocParms NULL. */
	c = (struct nvm_call){ .abi = abi, .kind = NVM_NODE_CTL, .nr = NVM_NV_ESC_RM_ALLOC,
			       .payload = buf };
	c.size = nvos64(buf, abi, e->hclass, 0);
	decide_both(&c, pol, 0, &null);
	m->null_params_rule = null.rule;
	caps_of(e->caps, m);
}

void modcheck_uvm(unsigned int abi, const struct nvabi_uvm *e, const struct policy *pol,
		  struct modcheck *m)
{
	struct nvm_call c = { .abi = abi, .kind = NVM_NODE_UVM, .nr = e->cmd };

	memset(m, 0, sizeof(*m));
	decide_both(&c, pol, 0, m);
	caps_of(e->caps, m);
}

/*
 * A deprecated control: the plain call of its V1 params; the profile
 * decides on the V2 control it becomes, whose capabilities these are.
 */
void modcheck_dep(unsigned int abi, const struct nvabi_dep *d, const struct policy *pol,
		  struct modcheck *m)
{
	struct nvm_call c = { .abi = abi, .kind = NVM_NODE_CTL, .nr = NVM_NV_ESC_RM_CONTROL };
	const struct nvabi_ctrl *e2 = nvm_abi_ctrl(d->v2, abi);
	u8 buf[64];

	memset(m, 0, sizeof(*m));
	c.payload = buf;
	c.size = nvos54(buf, abi, d->cmd, 0, d->size);
	decide_both(&c, pol, 0, m);
	caps_of(e2 ? e2->caps : 0, m);
}
