// SPDX-License-Identifier: GPL-2.0
/*
 * nvmediate: a bounce area's slots: the allocator of its pages.  A call
 * takes a run of free, clean pages of the slot of the CPU it starts on,
 * owns them until it is put, and in a sealed area leaves those the driver
 * wrote dirty; a call that finds no clean page runs a batch that unmaps
 * the slot's dirty pages at once and maps them again read-only.  What
 * each state guarantees is in bounce.c ("How the area holds").
 */
#include <linux/bitmap.h>
#include <linux/mm.h>
#include <linux/sched.h>
#include <linux/spinlock.h>
#include <linux/vmalloc.h>
#include <linux/wait.h>

#include "bounceslot.h"

/*
 * Pages of @s were freed (under its lock, released): wake a call waiting
 * for them.  wq_has_sleeper() orders that against the waiter's check after
 * it queued itself, so the common case of no waiter takes no lock.
 */
void nvm_bounce_wake(struct nvm_bounce_slot *s)
{
	if (wq_has_sleeper(&s->wait))
		wake_up(&s->wait);
}

/* Pages @i to @i + @n - 1 of @s are the current thread's call's; under its lock. */
static void nvm_bounce_own(struct nvm_bounce_slot *s, unsigned int i, unsigned int n)
{
	lockdep_assert_held(&s->lock);
	bitmap_set(&s->busy, i, n);
	bitmap_clear(&s->written, i, n);
	while (n--)
		s->owner[i + n] = current;
}

/*
 * Pages @i to @i + @n - 1 of @s end their call: free, and in a sealed area
 * dirty where the driver wrote them; under its lock.
 */
void nvm_bounce_disown(struct nvm_bounce_slot *s, unsigned int i, unsigned int n)
{
	unsigned long mask = 0;

	lockdep_assert_held(&s->lock);
	bitmap_set(&mask, i, n);
	if (NVM_CAN_SEAL)
		s->dirty |= s->written & mask;
	s->written &= ~mask;
	s->busy &= ~mask;
	while (n--)
		s->owner[i + n] = NULL;
}

/*
 * Take @n free clean pages of @s for the current thread; -EAGAIN if none.
 * *@clean is set to the slot's dirty pages not in use, which are taken for
 * the caller to unmap (nvm_bounce_clean()) when there are any, no clean
 * pages are free and no batch of the slot runs.
 */
int nvm_bounce_take(struct nvm_bounce *b, struct nvm_bounce_slot *s, unsigned int n,
			   unsigned int *first, unsigned long *clean)
{
	unsigned long used;
	unsigned int i;
	int ret = -EAGAIN;

	*clean = 0;
	spin_lock(&s->lock);
	if (!READ_ONCE(b->mapped)) {
		ret = -EFAULT;
		goto out;
	}
	used = s->busy | s->dirty;
	i = bitmap_find_next_zero_area(&used, NVM_SLOT_PAGES, 0, n, 0);
	if (i < NVM_SLOT_PAGES) {
		nvm_bounce_own(s, i, n);
		*first = i;
		ret = 0;
	} else if (!s->cleaning && (s->dirty & ~s->busy)) {
		/* Owned by no thread: a write to them faults until unmapped. */
		*clean = s->dirty & ~s->busy;
		s->busy |= *clean;
		s->cleaning = true;
	}
out:
	spin_unlock(&s->lock);
	return ret;
}

/*
 * Sealed area: take @n free clean pages of @s that are still mapped, as
 * nvm_bounce_take() does, but without the mmap lock: the area stays mapped
 * while the caller's address space has a user, and those pages' entries
 * are read-only.  False when there are none (nothing taken).
 */
bool nvm_bounce_take_mapped(struct nvm_bounce *b, struct nvm_bounce_slot *s,
				   unsigned int n, unsigned int *first)
{
	unsigned long used;
	unsigned int i;
	bool ok = false;

	spin_lock(&s->lock);
	used = s->busy | s->dirty | ~s->present;
	i = bitmap_find_next_zero_area(&used, NVM_SLOT_PAGES, 0, n, 0);
	if (READ_ONCE(b->mapped) && i < NVM_SLOT_PAGES) {
		nvm_bounce_own(s, i, n);
		*first = i;
		ok = true;
	}
	spin_unlock(&s->lock);
	return ok;
}

/*
 * Could a waiting call take @n pages of @s now?  Dirty pages count as free
 * unless a batch runs: a call that finds no clean ones runs a batch.
 */
bool nvm_bounce_may_take(struct nvm_bounce *b, struct nvm_bounce_slot *s, unsigned int n)
{
	unsigned long used;
	bool ok;

	spin_lock(&s->lock);
	used = s->busy | (s->cleaning ? s->dirty : 0);
	ok = !READ_ONCE(b->mapped) ||
	     bitmap_find_next_zero_area(&used, NVM_SLOT_PAGES, 0, n, 0) < NVM_SLOT_PAGES;
	spin_unlock(&s->lock);
	return ok;
}

struct nvm_bounce_fill {
	struct nvm_bounce *b;
	struct vm_area_struct *vma;
	unsigned int base;
	unsigned long want;
	unsigned long present;
};

static int nvm_bounce_fill_pte(pte_t *pte, unsigned long addr, void *data)
{
	struct nvm_bounce_fill *f = data;
	unsigned int page = (addr - f->vma->vm_start) >> PAGE_SHIFT, i = page - f->base;
	unsigned long pfn;

	if (!(f->want & BIT(i)))
		return 0;
	f->present |= BIT(i);
	if (!pte_none(ptep_get(pte)))
		return 0;
	pfn = vmalloc_to_pfn(f->b->kaddr + (unsigned long)page * PAGE_SIZE);
	set_pte_at(f->vma->vm_mm, addr, pte, pte_mkspecial(pfn_pte(pfn, f->vma->vm_page_prot)));
	update_mmu_cache(f->vma, addr, pte);
	return 0;
}

/*
 * Map the pages @want of slot @s read-only in @vma, under the mmap lock, as
 * vmf_insert_pfn() would one by one, but under one page-table lock and
 * without x86's PAT lookup for each (a resource-tree walk to find that a
 * vmalloc page is RAM, cached as the VMA's protection already says); i915
 * maps its user VMAs so too.  The VMA's protection is the write-notify
 * one: read-only, clean.  A slot that holds an entry already keeps it, a
 * marker of the process's userfaultfd included, and yet counts as mapped:
 * @present is a hint, and an access to such a slot faults
 * (nvm_bounce_fault()).
 *
 * Return: the pages now mapped; a page table that could not be allocated
 * leaves the rest to fault in.
 */
unsigned long nvm_bounce_insert(struct nvm_bounce *b, struct nvm_bounce_slot *s,
				       struct vm_area_struct *vma, unsigned long want)
{
	struct nvm_bounce_fill f = {
		.b = b, .vma = vma, .base = nvm_slot_base(b, s), .want = want,
	};
	unsigned int lo = __ffs(want), hi = __fls(want);

	mmap_assert_locked(vma->vm_mm);
	apply_to_page_range(vma->vm_mm, vma->vm_start + (unsigned long)(f.base + lo) * PAGE_SIZE,
			    (unsigned long)(hi - lo + 1) << PAGE_SHIFT, nvm_bounce_fill_pte, &f);
	return f.present;
}

/*
 * A batch's pages @clean of @s are unmapped: they are clean and free, and
 * another batch may start.  Under its lock.  Return: the pages of their
 * range to map again, all but those dirtied meanwhile.
 */
static unsigned long nvm_bounce_cleaned(struct nvm_bounce_slot *s, unsigned long clean)
{
	unsigned long range = GENMASK(__fls(clean), __ffs(clean));

	lockdep_assert_held(&s->lock);
	s->dirty &= ~clean;
	s->busy &= ~clean;
	s->cleaning = false;
	s->present &= ~range;
	return range & ~s->dirty;
}

/*
 * Run a batch: unmap the dirty pages @clean of @s taken by
 * nvm_bounce_take(), under the mmap lock: one zap of the range they span,
 * whose TLB flush takes their writable entries from every CPU; only then
 * are they clean and free, and may another batch of the slot start.  Then
 * the range is mapped again, read-only, but for pages dirtied meanwhile,
 * so that the calls that take its pages need not take the mmap lock; a
 * call that took one meanwhile maps it itself, and either insertion
 * leaves the other's entry as it is.  Pages of calls in flight inside the
 * range lose their entries too and fault them back in for their owners.
 */
void nvm_bounce_clean(struct nvm_bounce *b, struct nvm_bounce_slot *s,
			     struct vm_area_struct *vma, unsigned long clean)
{
	unsigned int lo = __ffs(clean), hi = __fls(clean);
	unsigned long present, want;

	mmap_assert_locked(vma->vm_mm);
	nvm_zap_special_vma_range(vma, vma->vm_start +
				  (unsigned long)(nvm_slot_base(b, s) + lo) * PAGE_SIZE,
				  (unsigned long)(hi - lo + 1) << PAGE_SHIFT);
	spin_lock(&s->lock);
	want = nvm_bounce_cleaned(s, clean);
	spin_unlock(&s->lock);
	/* A waiter may have looked while they were still taken. */
	nvm_bounce_wake(s);
	present = nvm_bounce_insert(b, s, vma, want);
	spin_lock(&s->lock);
	s->present |= present;
	spin_unlock(&s->lock);
}

#ifdef NVM_KUNIT
#include "../kunit/bounce_test.c"
#endif
