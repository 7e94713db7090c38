// SPDX-License-Identifier: GPL-2.0
/*
 * nvmediate: the payload bounce, and the calls' use of it.
 *
 * The driver reads an ioctl's payload from user memory itself.  If it
 * read the caller's buffer, another thread of the caller could rewrite
 * the payload between the validator's check and the driver's read.  So
 * the bytes the validator checked (the RM control and alloc structs,
 * XFER's header and inner struct, an NVOS64's rights mask) are handed to
 * the driver from a bounce area instead: pages of nvmediate's own, mapped
 * into the caller's address space, that no thread of the caller can write
 * while the driver reads them.
 *
 * How the area holds:
 *  - Its pages are mapped read-only (the mapping is shared and writable,
 *    with pfn_mkwrite, so every write faults).  A write fault is granted
 *    only to the thread whose call owns the page, while that call is in
 *    the driver; the driver writes its results back after it has read
 *    the payload.  Every other write gets SIGSEGV (or -EFAULT in the
 *    kernel).  Once granted, the page-table entry is writable for every
 *    thread until the call returns: the driver must not read a payload
 *    again after writing it back (docs/security.md), as nvidia_ioctl does.
 *  - Below 64 KiB, as soon as the driver has returned, and before any
 *    copy to the caller's own memory (which the caller can make stall),
 *    a call's pages are unmapped; before it returns they are zeroed whole:
 *    between calls nothing is mapped in the area and nothing is left in
 *    its pages, neither the payload nor what another thread wrote there
 *    while the call held them writable.
 *  - A sealed area lies where nothing else would be, so its pages may
 *    stay mapped between calls: a call zeroes its payload and leaves its
 *    pages as they are, a page the driver wrote being marked dirty.  A
 *    dirty page is handed to no call until it has been unmapped, with the
 *    TLB flush that takes its writable entry from every CPU; a call that
 *    finds no clean page in its slot unmaps every dirty one of the slot
 *    at once, and maps them again read-only, one such batch at a time
 *    per slot (a call that finds none while a batch runs waits for it).
 *    One flush then serves up to 64 calls instead of one, and the
 *    threads of a process stop interrupting each other on every call.
 *    A call that finds a clean page mapped takes it without the mmap
 *    lock: the sealed area cannot go while the caller's address space
 *    has a user (the caller is one), and the page's entry is read-only
 *    (the pages of a write grant are dirty until unmapped).
 *    What that rests on: a page neither busy nor dirty has no writable
 *    entry, and no dirty read-only one, on any CPU.  Entries are inserted
 *    clean and read-only and never upgraded by an insertion; only the
 *    owner's write fault makes one writable (and dirty), and its page
 *    stays dirty until a zap and its TLB flush.  An entry made dirty in
 *    another way could be made writable without pfn_mkwrite (userfaultfd
 *    and mprotect upgrade dirty entries): keep it so.  @present is only a
 *    hint; nothing depends on it but the cost.
 *  - Where the kernel can seal a mapping (6.10 and later, 64-bit), the
 *    area lies where the kernel places it and is sealed before any call
 *    uses it: it can be neither unmapped, moved, re-protected nor mapped
 *    over until the address space goes.
 *  - Elsewhere it lies below vm.mmap_min_addr, where the caller cannot map
 *    anything without CAP_SYS_RAWIO in the initial user namespace.  The
 *    caller may unmap the area, but cannot put memory of its own at its
 *    addresses: a driver read after that faults.
 *  - It refuses to be split, moved, copied into a child or dumped; the
 *    pages are VM_PFNMAP|VM_IO, so get_user_pages(), /proc/pid/mem and
 *    ptrace cannot write them either.
 *  - When an area is unmapped while calls are using it, no new area is
 *    made for that address space until those calls have returned, so a
 *    driver still reading the old address never sees another call's
 *    payload.
 *
 * Fail closed: a sealed area is the only way a call is forwarded where the
 * kernel can seal.  Below 64 KiB, the call is forwarded from the caller's
 * own memory only when the caller has shown it can map memory at the
 * area's addresses (a probe mapping there succeeded: vm.mmap_min_addr is
 * below the area's top); handoff.c decides then by the bounce parameter.
 * Every other failure to make the area (out of memory, vm.max_map_count
 * reached, something already mapped there, an area too small for this
 * page size, the area unmapped before it was sealed) refuses the call.
 *
 * One area per address space, in slots of NVM_SLOT_PAGES pages (sealed:
 * one slot of 64 pages of any size per CPU, up to NVM_BOUNCE_SLOTS; below
 * 64 KiB: one slot, from NVM_BOUNCE_BASE up to NVM_BOUNCE_TOP).  A call
 * takes the pages its payload needs from the slot of the CPU it starts
 * on, and waits when all of that slot's are in use: threads running on
 * different CPUs share no lock and no page state.  Areas are made one at
 * a time per address space; no lock shared between address spaces is
 * held while one is mapped.
 *
 * The parts: bouncearea.c (an area's life and mapping), bounceslot.c (the
 * allocator of its pages), this file (what a call does: take pages, hand
 * them to the driver, take them back).
 */
#include <linux/bitmap.h>
#include <linux/mm.h>
#include <linux/moduleparam.h>
#include <linux/overflow.h>
#include <linux/sched.h>
#include <linux/sched/mm.h>
#include <linux/sched/signal.h>
#include <linux/spinlock.h>
#include <linux/wait.h>

#include "bounce.h"
#include "bouncearea.h"
#include "bounceslot.h"

unsigned int nvm_bounce_mode = 1;
module_param_named(bounce, nvm_bounce_mode, uint, 0644);
MODULE_PARM_DESC(bounce,
		 "Hand the driver the checked payloads from pages the caller cannot write: 0 never; 1 always (a sealed area from 6.10), except, below 6.10, for a process that can map below 64 KiB itself (vm.mmap_min_addr lowered, CAP_SYS_RAWIO), served from its own memory with a log line (default); 2 refuse those calls too (EPERM). Other failures to make the area refuse the call (ENOMEM, EPERM)");

/*
 * The area of current->mm, made when it has none, with the mmap lock held
 * for reading and a reference to it in *@bp.
 *
 * Return: 0; %NVM_BOUNCE_EXPOSED or a negative errno, with *@why set for
 * the latter, as nvm_bounce_get().
 */
static int nvm_bounce_area(struct nvm_bounce **bp, const char **why)
{
	struct mm_struct *mm = current->mm;
	bool created = false;
	int ret;

	for (;;) {
		mmap_read_lock(mm);
		*bp = nvm_bounce_find(mm);
		if (*bp)
			return 0;
		mmap_read_unlock(mm);
		if (created) {
			*why = "the area was unmapped as soon as it was made";
			return -EFAULT;
		}
		ret = nvm_bounce_create(why);
		if (ret == NVM_AREA_EXPOSED)
			return NVM_BOUNCE_EXPOSED;
		if (ret)
			return ret;
		created = true;
	}
}

/*
 * Take @n pages of slot @s of @b, under the mmap lock (held for reading),
 * which is let go while the call waits for free pages and taken again.
 *
 * Return: 0, with the lock held, *@first set to the first page and *@vmap
 * to the area's VMA; or a negative errno, with *@why set and the lock let
 * go: -EINTR when killed while waiting, -EFAULT when the area was
 * unmapped.
 */
static int nvm_bounce_take_locked(struct nvm_bounce *b, struct nvm_bounce_slot *s,
				  unsigned int n, unsigned int *first,
				  struct vm_area_struct **vmap, const char **why)
{
	struct mm_struct *mm = current->mm;
	unsigned long clean;
	int ret;

	for (;;) {
		/* The VMA is stable while the read lock is held. */
		*vmap = nvm_bounce_vma(mm, b);
		if (!*vmap) {
			ret = -EFAULT;
			break;
		}
		ret = nvm_bounce_take(b, s, n, first, &clean);
		if (clean) {
			nvm_bounce_clean(b, s, *vmap, clean);
			continue;
		}
		if (ret != -EAGAIN)
			break;
		mmap_read_unlock(mm);
		/* A kill ends the wait even when it found pages at once. */
		ret = wait_event_killable(s->wait, nvm_bounce_may_take(b, s, n));
		if (ret || fatal_signal_pending(current)) {
			*why = "killed while waiting for free pages";
			return -EINTR;	/* -ERESTARTSYS: never restarted, killed */
		}
		mmap_read_lock(mm);
		if (!READ_ONCE(b->mapped)) {
			ret = -EFAULT;
			break;
		}
	}
	if (ret) {
		mmap_read_unlock(mm);
		*why = "the area was unmapped";
	}
	return ret;
}

/**
 * nvm_bounce_get() - take bounce pages for a call of the current thread
 * @bc: the call's bounce, filled in; @bc->why explains a failure
 * @len: bytes the call needs, at most NVM_BOUNCE_MAX
 *
 * The pages are mapped read-only at @bc->uaddr; the caller writes the
 * checked bytes at @bc->kaddr before it calls the driver.
 *
 * Return: 0; %NVM_BOUNCE_EXPOSED, and no pages, when the caller can map
 * memory of its own at the area's addresses (the caller decides by the
 * bounce parameter); else a negative errno, and the call must be refused:
 * -EOVERFLOW when the area cannot hold the call with this page size,
 * -ENOMEM for vm.max_map_count or memory, -EINTR when killed, another
 * when the area cannot be made or used.
 */
int nvm_bounce_get(struct nvm_bounce_call *bc, size_t len)
{
	struct mm_struct *mm = current->mm;
	unsigned int n = DIV_ROUND_UP(len, PAGE_SIZE), first;
	struct vm_area_struct *vma;
	struct nvm_bounce_slot *s;
	struct nvm_bounce *b;
	unsigned long present, off;
	int ret;

	bc->why = NULL;
	if (!mm || !len || len > NVM_BOUNCE_MAX)
		return -EINVAL;
	if (n > NVM_SLOT_PAGES) {
		bc->why = "the area below 64 KiB cannot hold a payload with this page size";
		return -EOVERFLOW;
	}
	/*
	 * Sealed, clean pages still mapped: no mmap lock, no insertion, and
	 * no reference (nvm_bounce_lookup()), which threads would share.
	 */
	bc->ref = false;
	if (NVM_CAN_SEAL) {
		b = nvm_bounce_lookup(mm, false);
		if (b) {
			s = nvm_slot_here(b);
			if (nvm_bounce_take_mapped(b, s, n, &first))
				goto taken;
		}
	}
	bc->ref = true;
	ret = nvm_bounce_area(&b, &bc->why);
	if (ret)
		return ret;
	/* The slot of the CPU the call started on, even if it moves since. */
	s = nvm_slot_here(b);
	ret = nvm_bounce_take_locked(b, s, n, &first, &vma, &bc->why);
	if (ret) {
		nvm_bounce_put_ref(b);
		return ret;
	}
	/* Mapped read-only now, saving the driver's first read a fault. */
	present = nvm_bounce_insert(b, s, vma, GENMASK(first + n - 1, first));
	if (NVM_CAN_SEAL) {
		spin_lock(&s->lock);
		s->present |= present;
		spin_unlock(&s->lock);
	}
	mmap_read_unlock(mm);
taken:
	bc->b = b;
	bc->slot = s;
	bc->revoked = false;
	bc->charged = 0;
	bc->first = first;
	bc->n = n;
	bc->len = len;
	off = (unsigned long)(nvm_slot_base(b, s) + first) << PAGE_SHIFT;
	bc->uaddr = b->base + off;
	bc->kaddr = b->kaddr + off;
	return 0;
}

/* Does [@addr, @addr + @len) meet [@start, @end)?  @len is not 0. */
static bool nvm_range_meets(u64 addr, u64 len, u64 start, u64 end)
{
	u64 last;

	if (check_add_overflow(addr, len - 1, &last))
		last = U64_MAX;
	return addr < end && last >= start;
}

/**
 * nvm_bounce_overlaps() - does a range meet the calling process's area?
 * @addr: user address
 * @len: bytes from @addr (0: none; the range ends at the top of the
 *	address space if it would go past it)
 *
 * Below 64 KiB the area's addresses are fixed, mapped or not: from
 * NVM_BOUNCE_BASE to NVM_BOUNCE_TOP.  A sealed area stays where it was
 * mapped for the life of the address space; one not yet mapped has no
 * address to meet, and a call that hands the driver a payload has mapped
 * its process's area before it asks (handoff.c).
 *
 * The range is compared as given and with its address untagged, whichever
 * of the two the driver's lookups use.
 *
 * Return: true when the range meets the area.
 */
bool nvm_bounce_overlaps(u64 addr, u64 len)
{
	u64 start = 0, end = 0;

	if (!len)
		return false;
	if (!NVM_CAN_SEAL) {
		start = NVM_BOUNCE_BASE;
		end = NVM_BOUNCE_TOP;
	} else {
		nvm_bounce_span(current->mm, &start, &end);
	}
	return nvm_range_meets(addr, len, start, end) ||
	       nvm_range_meets(untagged_addr((unsigned long)addr), len, start, end);
}

/**
 * nvm_bounce_written() - did the driver write to a call's pages?
 * @bc: from nvm_bounce_get(), not yet put
 *
 * Return: true when it did; @bc->kaddr then holds what it wrote.
 */
bool nvm_bounce_written(const struct nvm_bounce_call *bc)
{
	unsigned long mask = 0;

	/*
	 * No lock: the call's own bits were set by its own thread, in the
	 * driver's write fault, and only its thread clears them (others
	 * rewrite the word under the lock with those bits as they are).
	 */
	bitmap_set(&mask, bc->first, bc->n);
	return data_race(READ_ONCE(bc->slot->written)) & mask;
}

/**
 * nvm_bounce_charge() - count what the driver allocates for a call
 * @bc: from nvm_bounce_get(), not yet put
 * @bytes: what the driver will allocate for the call, uncharged to any
 *	cgroup (lists it sizes by the caller's count alone)
 * @limit: what the calls of one address space may have allocated at once
 *
 * One area per address space: its count is the process's.  Uncharged by
 * nvm_bounce_put().
 *
 * Return: 0, or -EBUSY when the address space's calls in flight would go
 * over @limit (nothing charged then).
 */
int nvm_bounce_charge(struct nvm_bounce_call *bc, u64 bytes, u64 limit)
{
	if (!nvm_charge_within(&bc->b->charged, bytes, limit))
		return -EBUSY;
	bc->charged = bytes;
	return 0;
}

/**
 * nvm_bounce_revoke() - take a call's pages out of its process's reach
 * @bc: from nvm_bounce_get(), not yet put
 *
 * Below 64 KiB the call's pages are unmapped (written or not: their
 * page-table entries go, and with them a write grant, which made them
 * writable for every thread of the process).  The driver has returned:
 * this is done before anything of the call may wait on the caller's own
 * memory, such as the copy of the answer to its payload, which the caller
 * can make stall (a FUSE page, a write-protecting userfaultfd) for as long
 * as it likes, so that no page below vm.mmap_min_addr stays mapped for
 * that long.  The entries are zapped through the area's own file, under
 * its address space's lock, not the process's mmap lock, which the caller
 * can keep held for as long as it likes too (a thread reading its own
 * /proc/PID/mem at a page of a FUSE file it never serves, while another
 * waits to take it for writing).  The pages stay readable to nvmediate at
 * @bc->kaddr, and no fault maps them again before the call is put.
 * A sealed area's pages stay mapped; those the driver wrote are dirty: no
 * call gets them before nvm_bounce_get() has unmapped them.
 */
void nvm_bounce_revoke(struct nvm_bounce_call *bc)
{
	struct nvm_bounce_slot *s = bc->slot;
	unsigned int i;

	if (NVM_CAN_SEAL || bc->revoked)
		return;
	/*
	 * No owner first: a fault on these pages now maps nothing, not even
	 * for this thread, whose copy of the answer may be aimed at the area
	 * itself (a payload the caller placed there); the pages stay busy
	 * until nvm_bounce_put().
	 */
	spin_lock(&s->lock);
	for (i = 0; i < bc->n; i++)
		s->owner[bc->first + i] = NULL;
	spin_unlock(&s->lock);
	/* Nothing mapped any more when the caller unmapped the area meanwhile. */
	unmap_mapping_range(bc->b->file->f_mapping, bc->uaddr - bc->b->base,
			    (loff_t)bc->n << PAGE_SHIFT, 1);
	bc->revoked = true;
}

/**
 * nvm_bounce_put() - end a call's use of its bounce pages
 * @bc: from nvm_bounce_get(), whatever the driver answered
 *
 * Revokes them first (nvm_bounce_revoke()).  The bytes the call asked for
 * are zeroed before another call can have them; below 64 KiB the whole
 * pages, so that nothing another thread wrote there during the call's
 * write grant is found there by a later call.
 */
void nvm_bounce_put(struct nvm_bounce_call *bc)
{
	struct nvm_bounce_slot *s = bc->slot;
	struct nvm_bounce *b = bc->b;

	nvm_bounce_revoke(bc);
	memset(bc->kaddr, 0, NVM_CAN_SEAL ? bc->len : (size_t)bc->n << PAGE_SHIFT);
	if (bc->charged)
		atomic64_sub(bc->charged, &b->charged);

	spin_lock(&s->lock);
	nvm_bounce_disown(s, bc->first, bc->n);
	spin_unlock(&s->lock);
	nvm_bounce_wake(s);
	if (bc->ref)
		nvm_bounce_put_ref(b);
}

int nvm_bounce_init(void)
{
	return nvm_bounce_area_init();
}

void nvm_bounce_exit(void)
{
	nvm_bounce_area_exit();
}
