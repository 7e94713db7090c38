// SPDX-License-Identifier: GPL-2.0
/*
 * nvmediate: the payload bounce.
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
 * below the area's top); node.c decides then by the bounce parameter.
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
 */
#include <linux/cred.h>
#include <linux/file.h>
#include <linux/hashtable.h>
#include <linux/kref.h>
#include <linux/list.h>
#include <linux/log2.h>
#include <linux/mm.h>
#include <linux/mman.h>
#include <linux/module.h>
#include <linux/moduleparam.h>
#include <linux/mutex.h>
#include <linux/overflow.h>
#include <linux/rcupdate.h>
#include <linux/sched.h>
#include <linux/sched/mm.h>
#include <linux/sched/signal.h>
#include <linux/sched/task.h>
#include <linux/slab.h>
#include <linux/spinlock.h>
#include <linux/vmalloc.h>
#include <linux/wait.h>
#include <linux/wait_bit.h>

#include "bounce.h"
#include "driver.h"

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
static unsigned int nvm_slot_base(const struct nvm_bounce *b, const struct nvm_bounce_slot *s)
{
	return (unsigned int)(s - b->slot) * NVM_SLOT_PAGES;
}

/* The slot of the CPU the caller runs on (a hint: a migration costs nothing). */
static struct nvm_bounce_slot *nvm_slot_here(struct nvm_bounce *b)
{
	return &b->slot[raw_smp_processor_id() & (b->nslots - 1)];
}

unsigned int nvm_bounce_mode = 1;
module_param_named(bounce, nvm_bounce_mode, uint, 0644);
MODULE_PARM_DESC(bounce,
		 "Hand the driver the checked payloads from pages the caller cannot write: 0 never; 1 always (a sealed area from 6.10), except, below 6.10, for a process that can map below 64 KiB itself (vm.mmap_min_addr lowered, CAP_SYS_RAWIO), served from its own memory with a log line (default); 2 refuse those calls too (EPERM). Other failures to make the area refuse the call (ENOMEM, EPERM)");

/*
 * Every area, by address space: found on each call under RCU alone,
 * entered and removed under the spinlock on the rare paths (creation and
 * the final put, which may run under the mmap lock, from the VMA's close:
 * hence a spinlock, never held across anything that sleeps).  A maker
 * that must wait for an older area of its address space waits on the
 * address space (wait_var_event(), woken by nvm_bounce_gone()): threads
 * of one process parked there are woken only by their own process's
 * areas, never by another's.
 */
static DEFINE_HASHTABLE(nvm_bounce_hash, 8);
static DEFINE_SPINLOCK(nvm_bounce_list_lock);
static const struct cred *nvm_bounce_cred;

/* An area of @mm went or stopped being made: wake its makers that wait. */
static void nvm_bounce_gone(struct mm_struct *mm)
{
	/* The change above, made under nvm_bounce_list_lock, before the wake. */
	smp_mb();
	wake_up_var(mm);
}

static void nvm_bounce_free(struct kref *ref)
{
	struct nvm_bounce *b = container_of(ref, struct nvm_bounce, ref);

	spin_lock(&nvm_bounce_list_lock);
	if (!hlist_unhashed(&b->node))
		hash_del_rcu(&b->node);
	spin_unlock(&nvm_bounce_list_lock);
	nvm_bounce_gone(b->mm);
	if (b->file)
		fput(b->file);
	vfree(b->kaddr);
	/* A walker may still compare @mm and fail to take @ref: nothing more. */
	mmdrop(b->mm);
	kfree_rcu(b, rcu);
}

static void nvm_bounce_put_ref(struct nvm_bounce *b)
{
	kref_put(&b->ref, nvm_bounce_free);
}

/*
 * Pages of @s were freed (under its lock, released): wake a call waiting
 * for them.  wq_has_sleeper() orders that against the waiter's check after
 * it queued itself, so the common case of no waiter takes no lock.
 */
static void nvm_bounce_wake(struct nvm_bounce_slot *s)
{
	if (wq_has_sleeper(&s->wait))
		wake_up(&s->wait);
}

/* The slot of the faulting page, *@idx its page within the slot; NULL: none. */
static struct nvm_bounce_slot *nvm_bounce_of(struct vm_fault *vmf, unsigned int *idx)
{
	struct nvm_bounce *b = vmf->vma->vm_private_data;
	unsigned long page = (vmf->address - vmf->vma->vm_start) >> PAGE_SHIFT;

	if (page >= b->npages)
		return NULL;
	*idx = page % NVM_SLOT_DIV;
	return &b->slot[page / NVM_SLOT_DIV];
}

/* A write to a mapped page: only the owning call's thread, while in the driver. */
static vm_fault_t nvm_bounce_pfn_mkwrite(struct vm_fault *vmf)
{
	unsigned int idx;
	struct nvm_bounce_slot *s = nvm_bounce_of(vmf, &idx);
	vm_fault_t ret = VM_FAULT_SIGSEGV;

	if (!s)
		return ret;
	spin_lock(&s->lock);
	if (s->owner[idx] == current) {
		__set_bit(idx, &s->written);
		ret = 0;
	}
	spin_unlock(&s->lock);
	return ret;
}

/*
 * A page not mapped: mapped for its owner only (read-only unless written).
 * A slot that holds a marker (the process write-protected the area with a
 * userfaultfd) cannot be mapped: vmf_insert_pfn() would leave it as it is
 * and answer as if it had mapped it, and the access would fault again, for
 * ever, in a thread no signal stops.  The access fails instead.
 */
static vm_fault_t nvm_bounce_fault(struct vm_fault *vmf)
{
	struct vm_area_struct *vma = vmf->vma;
	struct nvm_bounce *b = vma->vm_private_data;
	unsigned int idx;
	struct nvm_bounce_slot *s = nvm_bounce_of(vmf, &idx);
	bool write = vmf->flags & FAULT_FLAG_WRITE;
	unsigned long pfn;

	if (!s || nvm_fault_slot_taken(vmf))
		return VM_FAULT_SIGSEGV;
	spin_lock(&s->lock);
	if (s->owner[idx] != current) {
		spin_unlock(&s->lock);
		return VM_FAULT_SIGSEGV;
	}
	if (write)
		__set_bit(idx, &s->written);
	spin_unlock(&s->lock);
	/* The page's offset in the area is its offset in @b->kaddr. */
	pfn = vmalloc_to_pfn(b->kaddr + ((vmf->address - vma->vm_start) & PAGE_MASK));
	if (write)
		return vmf_insert_pfn_prot(vma, vmf->address & PAGE_MASK, pfn,
					   vm_get_page_prot(vma->vm_flags));
	return vmf_insert_pfn(vma, vmf->address & PAGE_MASK, pfn);
}

/* A copy of the VMA: only mremap makes one (and then undoes the move). */
static void nvm_bounce_vm_open(struct vm_area_struct *vma)
{
	struct nvm_bounce *b = vma->vm_private_data;

	kref_get(&b->ref);
	spin_lock(&b->lock);
	b->nvmas++;
	spin_unlock(&b->lock);
}

static void nvm_bounce_vm_close(struct vm_area_struct *vma)
{
	struct nvm_bounce *b = vma->vm_private_data;
	unsigned int i;

	spin_lock(&b->lock);
	if (!--b->nvmas) {
		WRITE_ONCE(b->mapped, false);
		WRITE_ONCE(b->dead, true);
	}
	spin_unlock(&b->lock);
	for (i = 0; i < b->nslots; i++)
		wake_up_all(&b->slot[i].wait);
	nvm_bounce_put_ref(b);
}

static int nvm_bounce_may_split(struct vm_area_struct *vma, unsigned long addr)
{
	return -EINVAL;
}

static int nvm_bounce_mremap(struct vm_area_struct *vma)
{
	return -EINVAL;
}

static const char *nvm_bounce_name(struct vm_area_struct *vma)
{
	return "[nvmediate-bounce]";
}

static const struct vm_operations_struct nvm_bounce_vm_ops = {
	.open		= nvm_bounce_vm_open,
	.close		= nvm_bounce_vm_close,
	.may_split	= nvm_bounce_may_split,
	.mremap		= nvm_bounce_mremap,
	.fault		= nvm_bounce_fault,
	.pfn_mkwrite	= nvm_bounce_pfn_mkwrite,
	.name		= nvm_bounce_name,
};

/*
 * The one mapping nvm_bounce_map() makes.  Any other (the file reopened
 * through /proc/PID/map_files, which takes CAP_SYS_ADMIN or
 * CAP_CHECKPOINT_RESTORE) is refused: a second mapping would lie where
 * the caller chose, unsealed, outside what nvm_bounce_overlaps() knows,
 * and keep pages a call wrote mapped.
 */
static int nvm_bounce_file_mmap(struct file *file, struct vm_area_struct *vma)
{
	struct nvm_bounce *b = file->private_data;
	bool again;

	if (vma->vm_pgoff || vma->vm_end - vma->vm_start != (unsigned long)b->npages << PAGE_SHIFT ||
	    !(vma->vm_flags & VM_SHARED))
		return -EINVAL;
	spin_lock(&b->lock);
	again = b->mmapped;
	b->mmapped = true;
	spin_unlock(&b->lock);
	if (again)
		return -EBUSY;
	nvm_vm_flags_set(vma, VM_PFNMAP | VM_IO | VM_DONTCOPY | VM_DONTEXPAND | VM_DONTDUMP);
	nvm_vm_flags_clear(vma, VM_MAYEXEC);
	vma->vm_ops = &nvm_bounce_vm_ops;
	vma->vm_private_data = b;
	kref_get(&b->ref);
	b->nvmas = 1;
	WRITE_ONCE(b->mapped, true);
	return 0;
}

static const struct file_operations nvm_bounce_fops = {
	.owner	= THIS_MODULE,
	.mmap	= nvm_bounce_file_mmap,
};

/*
 * Can the caller map its own memory at @addr?  The kernel refuses user
 * mappings below vm.mmap_min_addr without CAP_SYS_RAWIO (and the LSM's
 * own minimum); one page is tried with the caller's credentials.
 *
 * Return: 1 it can (the page was mapped), 0 it cannot (EPERM or EACCES:
 * the address check refused), or the negative errno of any other failure,
 * which says nothing about the address (vm.max_map_count reached, out of
 * memory, something mapped there already).
 */
static int nvm_bounce_probe(unsigned long addr)
{
	unsigned long r;

	r = vm_mmap(NULL, addr, PAGE_SIZE, PROT_READ, MAP_PRIVATE | MAP_ANONYMOUS |
		    MAP_FIXED_NOREPLACE, 0);
	if (r == -EPERM || r == -EACCES)
		return 0;
	if (IS_ERR_VALUE(r))
		return (int)r;
	vm_munmap(r, PAGE_SIZE);
	return 1;
}

/*
 * The area of @mm with a base (mapped, and sealed where the kernel can
 * seal), with a reference if @ref; NULL when there is none.  Needs no
 * lock.  Without a reference, only for a sealed area of current->mm:
 * its VMA holds one until the address space goes, which cannot happen
 * while the caller, one of its users, runs.
 */
static struct nvm_bounce *nvm_bounce_lookup(struct mm_struct *mm, bool ref)
{
	struct nvm_bounce *b, *found = NULL;

	rcu_read_lock();
	hash_for_each_possible_rcu(nvm_bounce_hash, b, node, (unsigned long)mm)
		if (b->mm == mm && READ_ONCE(b->base) && !READ_ONCE(b->dead) &&
		    (!ref || kref_get_unless_zero(&b->ref))) {
			found = b;
			break;
		}
	rcu_read_unlock();
	return found;
}

/*
 * The VMA of @b in @mm, under its mmap lock; NULL when @b is not mapped at
 * its base.  Between a munmap's removal of the VMA and its close (which
 * marks @b dead), the mmap lock may be held for reading by others: @b
 * then looks alive and has no VMA.
 */
static struct vm_area_struct *nvm_bounce_vma(struct mm_struct *mm, struct nvm_bounce *b)
{
	struct vm_area_struct *vma;

	mmap_assert_locked(mm);
	vma = nvm_vma_lookup(mm, b->base);
	if (!vma || vma->vm_ops != &nvm_bounce_vm_ops || vma->vm_private_data != b ||
	    vma->vm_start != b->base)
		return NULL;
	return vma;
}

/*
 * The area of @mm, with a reference, under its mmap lock; NULL when it has
 * none mapped (or not yet sealed) at its base.
 */
static struct nvm_bounce *nvm_bounce_find(struct mm_struct *mm)
{
	struct nvm_bounce *found;

	mmap_assert_locked(mm);
	found = nvm_bounce_lookup(mm, true);
	if (found && !nvm_bounce_vma(mm, found)) {
		nvm_bounce_put_ref(found);
		return NULL;
	}
	return found;
}

/*
 * Is an area of @mm other than @self unmapped and still in use, or (with
 * @creating) being made?  Under nvm_bounce_list_lock.
 */
static bool nvm_bounce_busy_locked(struct mm_struct *mm, struct nvm_bounce *self, bool creating)
{
	struct nvm_bounce *b;

	lockdep_assert_held(&nvm_bounce_list_lock);
	hash_for_each_possible(nvm_bounce_hash, b, node, (unsigned long)mm)
		if (b->mm == mm && b != self && (READ_ONCE(b->dead) || (creating && b->creating)))
			return true;
	return false;
}

static bool nvm_bounce_busy(struct mm_struct *mm, struct nvm_bounce *self, bool creating)
{
	bool busy;

	spin_lock(&nvm_bounce_list_lock);
	busy = nvm_bounce_busy_locked(mm, self, creating);
	spin_unlock(&nvm_bounce_list_lock);
	return busy;
}

/* Enter @b on the list as the one area of its mm being made; false if busy. */
static bool nvm_bounce_claim(struct nvm_bounce *b)
{
	bool busy;

	spin_lock(&nvm_bounce_list_lock);
	busy = nvm_bounce_busy_locked(b->mm, NULL, true);
	if (!busy)
		hash_add_rcu(nvm_bounce_hash, &b->node, (unsigned long)b->mm);
	spin_unlock(&nvm_bounce_list_lock);
	return !busy;
}

static struct nvm_bounce *nvm_bounce_alloc(struct mm_struct *mm)
{
	unsigned int nslots = rounddown_pow_of_two(min_t(unsigned int, nr_cpu_ids,
							  NVM_BOUNCE_SLOTS)), i;
	struct nvm_bounce *b = kzalloc(struct_size(b, slot, nslots), GFP_KERNEL_ACCOUNT);

	if (!b)
		return NULL;
	kref_init(&b->ref);
	b->mm = mm;
	INIT_HLIST_NODE(&b->node);
	b->creating = true;
	spin_lock_init(&b->lock);
	b->nslots = nslots;
	for (i = 0; i < nslots; i++) {
		spin_lock_init(&b->slot[i].lock);
		init_waitqueue_head(&b->slot[i].wait);
	}
	b->npages = nslots * NVM_SLOT_PAGES;
	/* Charged to the caller's memory cgroup, as @b is. */
	b->kaddr = __vmalloc((unsigned long)b->npages << PAGE_SHIFT,
			     GFP_KERNEL_ACCOUNT | __GFP_ZERO);
	if (!b->kaddr) {
		kfree(b);
		return NULL;
	}
	/*
	 * The area is found by its mm's address: held until the area goes,
	 * so that no later address space gets that address while a call
	 * still holds the area (one that never returns, its thread killed in
	 * the driver, holds it for good; but a lock-free call on a sealed
	 * area holds none, and that area goes with its address space).
	 */
	mmgrab(mm);
	return b;
}

/*
 * Seal the area just mapped at @addr, unless a thread of the caller unmapped
 * or changed it meanwhile: only then may calls find it (@b->base).
 */
static int nvm_bounce_seal(struct nvm_bounce *b, unsigned long addr, const char **why)
{
	unsigned long len = (unsigned long)b->npages << PAGE_SHIFT;
	struct mm_struct *mm = current->mm;
	struct vm_area_struct *vma;

	if (mmap_write_lock_killable(mm)) {
		*why = "killed while sealing the area";
		return -EINTR;
	}
	vma = nvm_vma_lookup(mm, addr);
	if (!vma || vma->vm_ops != &nvm_bounce_vm_ops || vma->vm_private_data != b ||
	    vma->vm_start != addr || vma->vm_end != addr + len || !(vma->vm_flags & VM_READ)) {
		mmap_write_unlock(mm);
		/*
		 * A thread of the caller changed it between the mapping and
		 * the seal (the mmap lock is dropped in between): it goes, so
		 * that no unsealed area stays behind, holding its memory until
		 * the process exits.  Whatever the caller mapped there since
		 * is its own.
		 */
		vm_munmap(addr, len);
		*why = "the area was unmapped or changed before it was sealed";
		return -EFAULT;
	}
	nvm_vm_flags_set(vma, NVM_VM_SEALED);
	WRITE_ONCE(b->base, addr);
	mmap_write_unlock(mm);
	return 0;
}

/*
 * Below 64 KiB: let calls find the area just mapped at @addr, unless an
 * older area of the caller, at the same addresses, is still in use.  A
 * munmap of that one may have removed its VMA, which let this one be
 * mapped, before its close marked it dead: under the mmap lock for
 * writing, that munmap is over and the older area is seen dead.  Then the
 * new one is unmapped again and the call refused, so that a driver still
 * reading an older call's payload never reads this area's pages.
 */
static int nvm_bounce_publish(struct nvm_bounce *b, unsigned long addr, const char **why)
{
	struct mm_struct *mm = current->mm;

	if (mmap_write_lock_killable(mm)) {
		vm_munmap(addr, (unsigned long)b->npages << PAGE_SHIFT);
		*why = "killed while making the area";
		return -EINTR;
	}
	if (nvm_bounce_busy(mm, b, false)) {
		mmap_write_unlock(mm);
		vm_munmap(addr, (unsigned long)b->npages << PAGE_SHIFT);
		*why = "an older area of this process was unmapped while calls still used it";
		return -EFAULT;
	}
	/* nvm_bounce_find() checks the VMA besides. */
	WRITE_ONCE(b->base, addr);
	mmap_write_unlock(mm);
	return 0;
}

/*
 * Map @b in current->mm, which has no area: sealed where the kernel places
 * it, or at NVM_BOUNCE_BASE.
 */
static int nvm_bounce_map(struct nvm_bounce *b, const char **why)
{
	unsigned long len = (unsigned long)b->npages << PAGE_SHIFT, r;
	const struct cred *old;
	struct file *file;

	file = nvm_drv_anon_file("[nvmediate-bounce]", &nvm_bounce_fops, b);
	if (IS_ERR(file)) {
		*why = "cannot make the area's file";
		return PTR_ERR(file);
	}
	/* Ours until the struct goes: nvm_bounce_revoke() zaps through it. */
	b->file = file;
	if (NVM_CAN_SEAL) {
		r = vm_mmap(file, 0, len, PROT_READ | PROT_WRITE, MAP_SHARED, 0);
	} else {
		/* Below vm.mmap_min_addr: mapped with the kernel's credentials. */
		old = override_creds(nvm_bounce_cred);
		r = vm_mmap(file, NVM_BOUNCE_BASE, len, PROT_READ | PROT_WRITE,
			    MAP_SHARED | MAP_FIXED_NOREPLACE, 0);
		revert_creds(old);
	}
	if (IS_ERR_VALUE(r)) {
		*why = r == -EEXIST ? "something is mapped at the area's addresses already" :
		       r == -ENOMEM ? "vm.max_map_count reached or out of memory while mapping the area" :
		       "cannot map the area";
		return (int)r;
	}
	if (NVM_CAN_SEAL)
		return nvm_bounce_seal(b, r, why);
	return nvm_bounce_publish(b, r, why);
}

static bool nvm_bounce_exists(struct mm_struct *mm)
{
	struct nvm_bounce *b;

	mmap_read_lock(mm);
	b = nvm_bounce_find(mm);
	mmap_read_unlock(mm);
	if (b)
		nvm_bounce_put_ref(b);
	return b;
}

/*
 * Make the area of current->mm.  One maker per address space at a time
 * (nvm_bounce_claim()); nothing is held across the mappings that another
 * address space could wait for.
 *
 * Return: 0, also when another thread made it meanwhile; -ENOSPC when the
 * caller can map memory of its own at the area's addresses; another
 * negative errno, with *@why set, when the area cannot be made.
 */
static int nvm_bounce_create(const char **why)
{
	struct mm_struct *mm = current->mm;
	unsigned long top = NVM_BOUNCE_BASE + (NVM_SLOT_PAGES - 1) * PAGE_SIZE;
	struct nvm_bounce *b;
	int ret;

	b = nvm_bounce_alloc(mm);
	if (!b) {
		*why = "out of memory for the area";
		return -ENOMEM;
	}
	/* A call may still read an unmapped, older area's addresses. */
	while (!nvm_bounce_claim(b)) {
		ret = wait_var_event_killable(mm, !nvm_bounce_busy(mm, NULL, true));
		if (ret) {
			nvm_bounce_put_ref(b);
			*why = "killed while waiting for an older area";
			return -EINTR;	/* -ERESTARTSYS: never restarted, killed */
		}
	}
	if (nvm_bounce_exists(mm)) {
		ret = 0;
	} else if (NVM_CAN_SEAL) {
		ret = nvm_bounce_map(b, why);
	} else {
		ret = nvm_bounce_probe(top);
		if (ret > 0) {
			ret = -ENOSPC;
		} else if (ret < 0) {
			*why = ret == -ENOMEM ?
			       "vm.max_map_count reached or out of memory (probe of the area's address)" :
			       "the probe of the area's address failed";
		} else {
			ret = nvm_bounce_map(b, why);
		}
	}
	spin_lock(&nvm_bounce_list_lock);
	b->creating = false;
	spin_unlock(&nvm_bounce_list_lock);
	nvm_bounce_gone(mm);
	/* Freed here unless mapped: the VMA holds its own reference. */
	nvm_bounce_put_ref(b);
	return ret;
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
static void nvm_bounce_disown(struct nvm_bounce_slot *s, unsigned int i, unsigned int n)
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
static int nvm_bounce_take(struct nvm_bounce *b, struct nvm_bounce_slot *s, unsigned int n,
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
static bool nvm_bounce_take_mapped(struct nvm_bounce *b, struct nvm_bounce_slot *s,
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
static bool nvm_bounce_may_take(struct nvm_bounce *b, struct nvm_bounce_slot *s, unsigned int n)
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
static unsigned long nvm_bounce_insert(struct nvm_bounce *b, struct nvm_bounce_slot *s,
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
static void nvm_bounce_clean(struct nvm_bounce *b, struct nvm_bounce_slot *s,
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

/**
 * nvm_bounce_get() - take bounce pages for a call of the current thread
 * @bc: the call's bounce, filled in; @bc->why explains a failure
 * @len: bytes the call needs, at most NVM_BOUNCE_MAX
 *
 * The pages are mapped read-only at @bc->uaddr; the caller writes the
 * checked bytes at @bc->kaddr before it calls the driver.
 *
 * Return: 0; -ENOSPC when the caller can map memory of its own at the
 * area's addresses (the caller decides by the bounce parameter);
 * -EOVERFLOW when the area cannot hold the call with this page size;
 * another negative errno when the area cannot be made or used (-ENOMEM
 * among them, for vm.max_map_count or memory): the call must be refused.
 */
int nvm_bounce_get(struct nvm_bounce_call *bc, size_t len)
{
	struct mm_struct *mm = current->mm;
	unsigned int n = DIV_ROUND_UP(len, PAGE_SIZE), first;
	struct vm_area_struct *vma;
	struct nvm_bounce_slot *s;
	struct nvm_bounce *b;
	bool created = false;
	unsigned long clean, present, off;
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
	for (;;) {
		mmap_read_lock(mm);
		b = nvm_bounce_find(mm);
		if (b)
			break;
		mmap_read_unlock(mm);
		if (created) {
			bc->why = "the area was unmapped as soon as it was made";
			return -EFAULT;
		}
		ret = nvm_bounce_create(&bc->why);
		if (ret)
			return ret;
		created = true;
	}

	/* The slot of the CPU the call started on, even if it moves since. */
	s = nvm_slot_here(b);
	for (;;) {
		/* The VMA is stable while the read lock is held. */
		vma = nvm_bounce_vma(mm, b);
		if (!vma) {
			ret = -EFAULT;
			break;
		}
		ret = nvm_bounce_take(b, s, n, &first, &clean);
		if (clean) {
			nvm_bounce_clean(b, s, vma, clean);
			continue;
		}
		if (ret != -EAGAIN)
			break;
		mmap_read_unlock(mm);
		/* A kill ends the wait even when it found pages at once. */
		ret = wait_event_killable(s->wait, nvm_bounce_may_take(b, s, n));
		if (ret || fatal_signal_pending(current)) {
			nvm_bounce_put_ref(b);
			bc->why = "killed while waiting for free pages";
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
		nvm_bounce_put_ref(b);
		bc->why = "the area was unmapped";
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
 * its process's area before it asks (node.c).
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
		struct mm_struct *mm = current->mm;
		struct nvm_bounce *b;

		rcu_read_lock();
		hash_for_each_possible_rcu(nvm_bounce_hash, b, node, (unsigned long)mm)
			if (b->mm == mm && READ_ONCE(b->base)) {
				start = READ_ONCE(b->base);
				end = start + (u64)b->npages * PAGE_SIZE;
				break;
			}
		rcu_read_unlock();
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
	nvm_bounce_cred = prepare_kernel_cred(&init_task);
	return nvm_bounce_cred ? 0 : -ENOMEM;
}

void nvm_bounce_exit(void)
{
	put_cred(nvm_bounce_cred);
}
