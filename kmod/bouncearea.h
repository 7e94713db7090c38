/* SPDX-License-Identifier: GPL-2.0 */
/*
 * nvmediate: a bounce area, the pages of one address space that payloads
 * are handed to the driver from, and its slots (bouncearea.c); what the
 * slots' page state means is in bounceslot.c, the whole design in bounce.c.
 */
#ifndef NVM_BOUNCEAREA_H
#define NVM_BOUNCEAREA_H

#include <linux/cache.h>
#include <linux/kref.h>
#include <linux/mm_types.h>
#include <linux/rcupdate.h>
#include <linux/spinlock.h>
#include <linux/types.h>
#include <linux/wait.h>

#define NVM_BOUNCE_TOP	0x10000UL	/* 64 KiB: vm.mmap_min_addr of Debian, RHEL */

/*
 * Pages of the area below NVM_BOUNCE_TOP, from the second page up: 15 with
 * 4 KiB pages, 3 with 16 KiB, none with 64 KiB (no bounce possible).
 */
#define nvm_bounce_pages(page_size)						\
	((page_size) < NVM_BOUNCE_TOP ? (unsigned int)(NVM_BOUNCE_TOP / (page_size)) - 1 : 0U)

#define NVM_BOUNCE_BASE		PAGE_SIZE
#if NVM_CAN_SEAL
#define NVM_SLOT_PAGES		64U
#define NVM_BOUNCE_SLOTS	4U	/* a power of two */
#else
#define NVM_SLOT_PAGES		nvm_bounce_pages(PAGE_SIZE)
#define NVM_BOUNCE_SLOTS	1U
#endif

static_assert(NVM_SLOT_PAGES <= BITS_PER_LONG);

/* What a page number is divided by: NVM_SLOT_PAGES is 0 where no page fits. */
#define NVM_SLOT_DIV		(NVM_SLOT_PAGES ?: 1U)

/**
 * struct nvm_bounce_slot - a run of an area's pages and their state
 * @lock: protects the state below
 * @busy: pages owned by a call
 * @written: pages written during their current call
 * @dirty: sealed area: pages written by a call that has returned, still
 *	mapped (perhaps writable) until the next batch unmaps them
 * @present: sealed area: pages mapped read-only (by nvm_bounce_get(), or
 *	by the batch that cleaned them) that no batch has unmapped since (a
 *	hint: a page not mapped after all faults in for its owner)
 * @cleaning: sealed area: a batch has taken the slot's dirty pages and not
 *	yet unmapped them; no other batch of the slot starts meanwhile
 * @wait: calls waiting for free pages of this slot
 * @owner: the thread whose call owns each busy page
 *
 * A call takes its pages from the slot of the CPU it starts on, so that
 * threads running at once on different CPUs share no lock and no cache
 * line of page state; a slot cleans its own dirty pages, one batch of up
 * to NVM_SLOT_PAGES pages at a time.  Bits are numbered within the slot.
 */
struct nvm_bounce_slot {
	spinlock_t lock;
	unsigned long busy;
	unsigned long written;
	unsigned long dirty;
	unsigned long present;
	bool cleaning;
	wait_queue_head_t wait;
	struct task_struct *owner[NVM_SLOT_PAGES ?: 1];
} ____cacheline_aligned_in_smp;

/**
 * struct nvm_bounce - the bounce area of one address space
 * @ref: held by the VMA, by every call using the area (but those that took
 *	a sealed area's pages on the lock-free path, which its VMA keeps for
 *	as long as they can run) and by its maker until it is mapped
 * @mm: the address space (not referenced: compared only)
 * @node: entry in nvm_bounce_hash, by @mm
 * @base: user address of the area once it is mapped (and sealed where the
 *	kernel can seal), 0 before; written under the mmap lock for writing
 *	or before anyone can find the area
 * @creating: being made; no other area of @mm is made meanwhile (under
 *	nvm_bounce_list_lock)
 * @lock: protects the mapping's state below
 * @nvmas: VMAs of the area (two only while mremap tries to move it)
 * @mapped: @nvmas is not 0 (read without @lock as a hint: the VMA, under
 *	the mmap lock, is what a call goes by)
 * @mmapped: the area's file was mapped once (under @lock); never again
 * @dead: the area was unmapped: a new one may be made once @ref is gone
 * @nslots: slots in the area: one per CPU, up to NVM_BOUNCE_SLOTS (a power
 *	of two: a CPU's slot is its number masked)
 * @npages: pages in the area, @nslots * NVM_SLOT_PAGES
 * @kaddr: kernel mapping of the pages
 * @file: the area's file, an inode of its own (nvm_drv_anon_file()): its
 *	address space reaches the area's mapping without the mmap lock; held
 *	until the struct goes, NULL before it is made
 * @charged: bytes the driver allocates for the area's calls in flight
 *	(nvm_bounce_charge())
 * @rcu: the struct outlives its final put by a grace period, for
 *	nvm_bounce_lookup()'s lockless walk of nvm_bounce_hash
 * @slot: the slots, page state of the area's pages in runs of
 *	NVM_SLOT_PAGES
 */
struct nvm_bounce {
	struct kref ref;
	struct mm_struct *mm;
	struct hlist_node node;
	unsigned long base;
	bool creating;
	spinlock_t lock;
	unsigned int nvmas;
	bool mapped;
	bool mmapped;
	bool dead;
	unsigned int nslots;
	unsigned int npages;
	void *kaddr;
	struct file *file;
	atomic64_t charged;
	struct rcu_head rcu;
	struct nvm_bounce_slot slot[];
};

/* First page of slot @s in the area. */
static inline unsigned int nvm_slot_base(const struct nvm_bounce *b, const struct nvm_bounce_slot *s)
{
	return (unsigned int)(s - b->slot) * NVM_SLOT_PAGES;
}

/* The slot of the CPU the caller runs on (a hint: a migration costs nothing). */
static inline struct nvm_bounce_slot *nvm_slot_here(struct nvm_bounce *b)
{
	return &b->slot[raw_smp_processor_id() & (b->nslots - 1)];
}

struct mm_struct;
struct vm_area_struct;

/* nvm_bounce_create(): no area, the caller can map its addresses itself. */
#define NVM_AREA_EXPOSED	1

void nvm_bounce_put_ref(struct nvm_bounce *b);
struct nvm_bounce *nvm_bounce_lookup(struct mm_struct *mm, bool ref);
struct vm_area_struct *nvm_bounce_vma(struct mm_struct *mm, struct nvm_bounce *b);
struct nvm_bounce *nvm_bounce_find(struct mm_struct *mm);
int nvm_bounce_create(const char **why);
void nvm_bounce_span(struct mm_struct *mm, u64 *start, u64 *end);
int nvm_bounce_area_init(void);
void nvm_bounce_area_exit(void);

#endif /* NVM_BOUNCEAREA_H */
