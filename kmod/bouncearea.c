// SPDX-License-Identifier: GPL-2.0
/*
 * nvmediate: the bounce areas: one per address space, made on its first
 * bounced call, mapped into it (sealed from 6.10, below 64 KiB before),
 * found by its address space, and gone with its last user.  This file
 * holds an area's life and its mapping: the registry, the making and
 * sealing, the VMA's operations and faults, which grant a page to the
 * thread whose call owns it.  Which call owns which page is the slots'
 * (bounceslot.c); the whole design is in bounce.c.
 */
#include <linux/cred.h>
#include <linux/file.h>
#include <linux/hashtable.h>
#include <linux/kref.h>
#include <linux/log2.h>
#include <linux/mm.h>
#include <linux/mman.h>
#include <linux/module.h>
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

#include "bouncearea.h"
#include "driver.h"

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

void nvm_bounce_put_ref(struct nvm_bounce *b)
{
	kref_put(&b->ref, nvm_bounce_free);
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
struct nvm_bounce *nvm_bounce_lookup(struct mm_struct *mm, bool ref)
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
struct vm_area_struct *nvm_bounce_vma(struct mm_struct *mm, struct nvm_bounce *b)
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
struct nvm_bounce *nvm_bounce_find(struct mm_struct *mm)
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
 * Return: 0, also when another thread made it meanwhile; %NVM_AREA_EXPOSED
 * when the caller can map memory of its own at the area's addresses; a
 * negative errno, with *@why set, when the area cannot be made.
 */
int nvm_bounce_create(const char **why)
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
			ret = NVM_AREA_EXPOSED;
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

/**
 * nvm_bounce_span() - where the area of an address space lies
 * @mm: the address space
 * @start: set to the area's first address, 0 when it has none with a base
 * @end: set to the address after its last page, 0 likewise
 *
 * Needs no lock: an area keeps its base for as long as it lives.
 */
void nvm_bounce_span(struct mm_struct *mm, u64 *start, u64 *end)
{
	struct nvm_bounce *b;

	*start = 0;
	*end = 0;
	rcu_read_lock();
	hash_for_each_possible_rcu(nvm_bounce_hash, b, node, (unsigned long)mm)
		if (b->mm == mm && READ_ONCE(b->base)) {
			*start = READ_ONCE(b->base);
			*end = *start + (u64)b->npages * PAGE_SIZE;
			break;
		}
	rcu_read_unlock();
}

int nvm_bounce_area_init(void)
{
	nvm_bounce_cred = prepare_kernel_cred(&init_task);
	return nvm_bounce_cred ? 0 : -ENOMEM;
}

void nvm_bounce_area_exit(void)
{
	put_cred(nvm_bounce_cred);
}
