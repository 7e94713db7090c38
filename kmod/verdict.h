/* SPDX-License-Identifier: GPL-2.0 */
/*
 * nvmediate: the vocabulary of the decisions: a call as they see it, its verdict,
 * and how a check records a refusal (inline, below).
 */
#ifndef NVM_VERDICT_H
#define NVM_VERDICT_H

#include <linux/errno.h>
#include <linux/types.h>
#include "nvm.h"
#include "rules.h"
#include "nvabi_types.h"

#define NVM_POLICY_ROOT		0x1	/* allow_root=1 and CAP_SYS_ADMIN */
#define NVM_POLICY_FINN		0x2	/* allow_finn=1 */
#define NVM_POLICY_GSS		0x4	/* allow_gss=1 */

/* Largest control or class params forwarded (1 MiB). */
#define NVM_PARAMS_MAX		(1U << 20)

struct nvm_profile;

/* The header of NV_ESC_IOCTL_XFER_CMD (nv-ioctl.h: nv_ioctl_xfer_t). */
struct nvm_xfer {
	u32 cmd;
	u32 size;
	u64 ptr;
};

/**
 * struct nvm_call - one call as the decisions see it (decide.c)
 * @abi: ABI number of the file's range
 * @kind: node the call is made on
 * @prof: profile of the file's set
 * @policy: NVM_POLICY_* of the caller
 * @nr: escape number (after unwrapping XFER), or UVM command
 * @size: payload size (the ioctl's, XFER's inner size, or the UVM size)
 * @xfer: the escape came inside NV_ESC_IOCTL_XFER_CMD
 * @payload: kernel copy of the @size bytes of the payload, or NULL
 * @hdr: XFER's header as copied, or NULL
 * @hdr_err: copying XFER's header failed with this errno
 * @payload_err: copying the payload failed with this errno; 1 when it was
 *	not copied
 */
struct nvm_call {
	unsigned int abi;
	enum nvm_kind kind;
	const struct nvm_profile *prof;
	unsigned int policy;
	unsigned int nr;
	unsigned int size;
	bool xfer;
	const void *payload;
	const struct nvm_xfer *hdr;
	int hdr_err;
	int payload_err;
};

/**
 * struct nvm_verdict - a decision
 * @rule: NULL when the call may be forwarded, else the check that refused
 * @family: NVM_FAM_* of the call the decision is about (escape, control,
 *	class or UVM command)
 * @number: its number: the escape, or the control command or class read
 *	from the payload, or the UVM command
 * @number_size: the control's params size read from the payload
 * @name: the name the driver's sources give the entry matched last, or
 *	NULL (no entry, or none named)
 * @err: refused with this negative errno; 0 with @rule: answered in payload
 * @status: NV_STATUS written at @status_off when @err is 0
 * @status_off: byte offset of the status field in the payload
 * @nested: user pointer to params the driver will read, or 0
 * @nested_size: bytes the driver reads at @nested
 * @nested_at: byte offset in the payload of the pointer to @nested (a
 *	control's params, an allocation's class params)
 * @rights: user pointer to the access-rights mask of an NVOS64 allocation
 *	(pRightsRequested), or 0
 * @rights_off: byte offset of pRightsRequested in the payload
 * @fds: the fd fields of the payload of the entry matched last (nvabi_fds
 *	of the escape, control, class or UVM entry that @family names): in
 *	the checked copy for an escape, at @nested for a control or class,
 *	in the caller's payload of @payload_size bytes for a UVM command
 * @nfds: number of @fds
 * @payload_size: the size of the payload @fds are in
 * @dep: a deprecated control the driver converts (nvabi_types.h): its
 *	V1 params are at @nested, and the validator checks the list they
 *	point to after the decision; NULL for any other call
 * @emb: the lists a forwarded control's params (at @nested) point to,
 *	which the driver copies itself (nvabi_types.h); checked after the
 *	decision; NULL for a control without them
 * @osdesc: user address of the memory an escape makes a memory object of
 *	(an OS descriptor, escape.c), which the driver resolves to
 *	frame numbers and keeps
 * @osdesc_len: its length in bytes; 0 when the call names no such memory
 * @fds_unread: the driver reads none of @fds for this call (escape.c), so
 *	it runs without a private fd table
 * @audited: @rule would have refused the call, but the profile audits:
 *	recorded, and the call goes to the driver
 */
struct nvm_verdict {
	const char *rule;
	enum nvm_family family;
	u32 number;
	u32 number_size;
	const char *name;
	int err;
	u32 status;
	unsigned int status_off;
	u64 nested;
	u32 nested_size;
	u32 nested_at;
	u64 rights;
	u32 rights_off;
	const struct nvabi_fd *fds;
	unsigned int nfds;
	u32 payload_size;
	const struct nvabi_dep *dep;
	const struct nvabi_emb *emb;
	u64 osdesc;
	u64 osdesc_len;
	bool fds_unread;
	bool audited;
};

struct nvabi_fd;
struct nvabi_dep;
struct nvabi_emb;

/*
 * The largest list the driver copies without its own 1 MiB bound
 * (NVABI_EMB_NOMAX: the debugger's memory reads and writes, engine context
 * data) that a call may name.
 */
#define NVM_EMB_NOMAX_MAX	(64U << 20)

/*
 * What the calls of one address space may have the driver allocate for
 * such lists at once: calls that would go over it are refused (EBUSY).
 */
#define NVM_EMB_NOMAX_INFLIGHT	NVM_EMB_NOMAX_MAX

/*
 * And the calls of one node set (the processes of the containers given
 * it), each of which has an address space and a bound of its own.
 */
#define NVM_EMB_NOMAX_SET_INFLIGHT	(4ULL * NVM_EMB_NOMAX_INFLIGHT)

/* The largest V1 params of a deprecated control the validator reads. */
#define NVM_DEP_PARAMS_MAX	64

/*
 * How a check records its verdict: the family checks (escape.c, ctrl.c,
 * alloc.c, uvm.c) and the profile's check (policy.c) end a refusal with one
 * of these.  Inline: every call goes through several of them.
 */

/**
 * nvm_refuse() - record a refusal answered with an errno
 * @v: the verdict
 * @err: negative errno user space sees
 * @rule: the check that refused
 *
 * Return: false, for "return nvm_refuse(...)" in a check.
 */
static inline bool nvm_refuse(struct nvm_verdict *v, int err, const char *rule)
{
	v->err = err;
	v->rule = rule;
	return false;
}

/**
 * nvm_answer() - record a refusal the driver answers in the payload
 * @v: the verdict
 * @status: NV_STATUS written at @off; the ioctl returns 0
 * @off: byte offset of the status field in the checked payload
 * @rule: the check that refused
 *
 * Return: false.
 */
static inline bool nvm_answer(struct nvm_verdict *v, u32 status, unsigned int off,
			      const char *rule)
{
	v->err = 0;
	v->status = status;
	v->status_off = off;
	v->rule = rule;
	return false;
}

/**
 * nvm_priv_check() - the default policy for an entry's privilege
 * @priv: NVABI_PRIV_* of the entry
 * @policy: NVM_POLICY_* of the caller
 * @v: set to a refusal when the policy refuses
 * @rule: the rule's name for a refusal of an administrator-only entry
 *
 * Entries any user may call pass (and those whose privilege the release
 * does not encode: the driver checks them itself); administrator-only
 * entries pass only with %NVM_POLICY_ROOT; kernel-only, RM-internal and
 * no-caller entries never.
 *
 * Return: true when the entry may be called.
 */
static inline bool nvm_priv_check(unsigned int priv, unsigned int policy,
				  struct nvm_verdict *v, const char *rule)
{
	switch (priv) {
	case NVABI_PRIV_UNKNOWN:
	case NVABI_PRIV_USER:
		return true;
	case NVABI_PRIV_ROOT:
		if (policy & NVM_POLICY_ROOT)
			return true;
		return nvm_refuse(v, -EPERM, rule);
	default:
		return nvm_refuse(v, -EPERM, NVM_RULE(KERNEL_ONLY));
	}
}

#endif /* NVM_VERDICT_H */
