/* SPDX-License-Identifier: GPL-2.0 */
/*
 * nvmediate: checked payloads placed where the caller cannot change them
 * (bounce.c).
 */
#ifndef NVM_BOUNCE_H
#define NVM_BOUNCE_H

#include <linux/atomic.h>
#include <linux/types.h>

#define NVM_BOUNCE_MAX	(16 + 16384)	/* XFER header + the largest payload */

struct nvm_bounce;
struct nvm_bounce_slot;

/**
 * struct nvm_bounce_call - one call's pages in the bounce area
 * @b: the area
 * @slot: the slot of @b the pages are in
 * @first: first page, within @slot
 * @n: number of pages
 * @len: bytes the call asked for, from the first page on
 * @uaddr: user address of the first page
 * @kaddr: kernel address of the first page
 * @why: what failed, when nvm_bounce_get() failed
 * @ref: the call holds a reference to @b (not on a sealed area's lock-free
 *	path, where the area's VMA holds one for as long as the call can run)
 */
struct nvm_bounce_call {
	struct nvm_bounce *b;
	struct nvm_bounce_slot *slot;
	unsigned int first;
	unsigned int n;
	unsigned int len;
	unsigned long uaddr;
	void *kaddr;
	const char *why;
	bool ref;
	bool revoked;
	u64 charged;
};

/* nvm_bounce_get(): no pages, the caller can map the area's addresses itself. */
#define NVM_BOUNCE_EXPOSED	1

extern unsigned int nvm_bounce_mode;
int nvm_bounce_init(void);
void nvm_bounce_exit(void);
int nvm_bounce_get(struct nvm_bounce_call *bc, size_t len);
bool nvm_bounce_written(const struct nvm_bounce_call *bc);
bool nvm_bounce_overlaps(u64 addr, u64 len);
int nvm_bounce_charge(struct nvm_bounce_call *bc, u64 bytes, u64 limit);

/*
 * Count @bytes in @count unless that takes it over @limit (nothing counted
 * then): the in-flight bounds of lists the driver sizes by the caller's
 * count, per address space (nvm_bounce_charge()) and per node set (handoff.c).
 */
static inline bool nvm_charge_within(atomic64_t *count, u64 bytes, u64 limit)
{
	if (!bytes)
		return true;
	if ((u64)atomic64_add_return(bytes, count) <= limit)
		return true;
	atomic64_sub(bytes, count);
	return false;
}
void nvm_bounce_revoke(struct nvm_bounce_call *bc);
void nvm_bounce_put(struct nvm_bounce_call *bc);

#endif /* NVM_BOUNCE_H */
