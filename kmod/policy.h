/* SPDX-License-Identifier: GPL-2.0 */
/*
 * nvmediate: capabilities, profiles and the audit record (policy.c,
 * docs/policy.md).
 */
#ifndef NVM_POLICY_H
#define NVM_POLICY_H

#include <linux/spinlock.h>
#include <linux/types.h>
#include "verdict.h"

#define NVM_CAP_COMPUTE		0x01
#define NVM_CAP_UTILITY		0x02
#define NVM_CAP_GRAPHICS	0x04
#define NVM_CAP_VIDEO		0x08
#define NVM_CAP_PROFILING	0x10
#define NVM_CAP_FABRIC_IMEX	0x20
#define NVM_CAP_RDMA		0x40
#define NVM_CAP_MIG		0x80
#define NVM_CAP_ALL		0xff
#define NVM_CAP_BASE		0x8000	/* every profile has it */
#define NVM_CAP_DEFAULT		(NVM_CAP_COMPUTE | NVM_CAP_UTILITY)

#define NVM_ALLOW_MAX		1024

/*
 * The capability and IMEX channel nodes of NVIDIA's driver that a set's
 * callers may name in a call's fd fields (docs/policy.md, "MIG instances
 * and IMEX channels"): the nodes the runtime gives the set's containers.
 */
enum nvm_fdnode_kind {
	NVM_FDNODE_CAP,		/* /dev/nvidia-caps/nvidia-capN */
	NVM_FDNODE_IMEX,	/* /dev/nvidia-caps-imex-channels/channelN */
	NVM_FDNODE_KINDS,
};

#define NVM_FDNODES_MAX		64

/**
 * struct nvm_fdnode - a node a set's callers may name in an fd field
 * @dev: its device number (a dev_t: the kernel's is 32 bits)
 * @kind: enum nvm_fdnode_kind
 */
struct nvm_fdnode {
	u32 dev;
	u8 kind;
};

/**
 * struct nvm_profile - what a node set admits; immutable once published
 * @caps: NVM_CAP_* bits (without %NVM_CAP_BASE)
 * @audit: forward what would be refused, log it and record it
 * @allow_root: forward administrator-only calls of CAP_SYS_ADMIN callers
 * @allow_finn: forward FINN-serialized control params
 * @allow_gss: forward GSS-legacy controls
 * @nfdnodes: number of @fdnodes
 * @fdnodes: the capability and IMEX channel nodes the set's callers may
 *	name in fd fields, in the order written, unique
 * @nallow: number of @allow
 * @allow: explicit allow entries, nvm_allow_key(), sorted, unique
 */
struct nvm_profile {
	u32 caps;
	bool audit;
	bool allow_root;
	bool allow_finn;
	bool allow_gss;
	unsigned int nfdnodes;
	struct nvm_fdnode fdnodes[NVM_FDNODES_MAX];
	unsigned int nallow;
	u64 allow[];
};

static inline u64 nvm_allow_key(unsigned int family, u32 nr)
{
	return ((u64)family << 32) | nr;
}

#define NVM_REC_MAX		128

/* One deduplicated entry of a set's audit record. */
struct nvm_rec {
	u8 family;
	u32 id;
	const char *rule;
	unsigned long count;
};

/**
 * struct nvm_record - what a set in audit mode would have refused
 * @lock: protects the rest (taken only for refusals, never for a call
 *	that passes)
 * @n: entries used
 * @dropped: refusals of new calls not kept because @ent was full
 * @ent: entries, in the order they were first seen
 */
struct nvm_record {
	spinlock_t lock;
	unsigned int n;
	unsigned long dropped;
	struct nvm_rec ent[NVM_REC_MAX];
};

const char *nvm_family_name(unsigned int family);
bool nvm_profile_listed(const struct nvm_profile *p, unsigned int family, u32 nr);
bool nvm_profile_refuse(const struct nvm_call *c, struct nvm_verdict *v, unsigned int family);
int nvm_caps_parse(const char *s, u32 *caps);
int nvm_caps_format(u32 caps, char *buf, size_t len);
struct nvm_profile *nvm_profile_alloc(unsigned int nallow);
struct nvm_profile *nvm_profile_admit_all(void);
struct nvm_profile *nvm_profile_edit_allow(const struct nvm_profile *old, const char *text);
bool nvm_profile_gives(const struct nvm_profile *p, enum nvm_fdnode_kind kind, u32 dev);
int nvm_fdnodes_parse(struct nvm_profile *p, enum nvm_fdnode_kind kind, const char *text);
size_t nvm_fdnodes_format(const struct nvm_profile *p, enum nvm_fdnode_kind kind,
			  const char *prefix, char *buf, size_t size);
const char *nvm_fdnode_name(enum nvm_fdnode_kind kind);
void nvm_record_init(struct nvm_record *r);
void nvm_record_add(struct nvm_record *r, const struct nvm_verdict *v);
void nvm_record_clear(struct nvm_record *r);

/**
 * nvm_profile_admits() - does a profile admit a call (pure)
 * @p: the profile
 * @family: NVM_FAM_*
 * @nr: the call's number in its family
 * @caps: the capabilities of the call's table entry (its caps field)
 *
 * Return: true when one of @caps is the profile's or %NVM_CAP_BASE, or the
 * profile has an allow entry for the call.
 */
static inline bool nvm_profile_admits(const struct nvm_profile *p, unsigned int family, u32 nr,
				      u16 caps)
{
	return (caps & (p->caps | NVM_CAP_BASE)) || nvm_profile_listed(p, family, nr);
}

/**
 * nvm_profile_check() - the profile's decision on a call whose shape passed
 * @c: the call
 * @v: verdict; names the call (@family, @nr) and, on refusal, the answer
 *	(nvm_profile_refuse())
 * @family: NVM_FAM_*
 * @nr: the call's number in its family
 * @caps: the capabilities of the call's table entry
 *
 * Inline, as the checks before it: every call passes here once or twice.
 *
 * Return: true when the call may be forwarded.
 */
static inline bool nvm_profile_check(const struct nvm_call *c, struct nvm_verdict *v,
				     unsigned int family, u32 nr, u16 caps)
{
	v->family = family;
	v->number = nr;
	return nvm_profile_admits(c->prof, family, nr, caps) || nvm_profile_refuse(c, v, family);
}

#endif /* NVM_POLICY_H */
