/* SPDX-License-Identifier: GPL-2.0 */
/*
 * nvmediate: differences between kernels, all in one place.  Force-included
 * into every object by Kbuild, after the generated nvm_conf.h.
 *
 * Each branch is decided by a probe of kmod/conftest.sh (NVM_HAVE_<NAME>),
 * a compile test against the target's own headers, never by the kernel's
 * version: distribution kernels (RHEL's above all) backport interfaces
 * without changing it, and stable series gain helpers between point
 * releases.  The release named with each branch is upstream's, for the
 * reader; tests/kernel/probes.sh checks that the probes choose on every
 * Debian kernel what the tests have proven there.
 */
#ifndef NVM_COMPAT_H
#define NVM_COMPAT_H

#ifndef NVM_HAVE_VM_FLAGS_SET
#error "nvm_conf.h is missing: build nvmediate through its Kbuild (make, or make -C KDIR M=...)"
#endif

/*
 * Tracepoints: nvmediate's own events, and the hook on sched_process_exit
 * that cleans up after a thread that dies inside the driver (fdctx.c).
 */
#ifndef CONFIG_TRACEPOINTS
#error "nvmediate needs a kernel built with CONFIG_TRACEPOINTS"
#endif

/*
 * That hook runs with preemption disabled and takes the task's and the fd
 * table's spinlocks, which sleep on a PREEMPT_RT kernel.
 */
#ifdef CONFIG_PREEMPT_RT
#error "nvmediate does not support PREEMPT_RT kernels (its exit hook takes locks that sleep there)"
#endif

/* Class callbacks and attributes take const pointers (6.4). */
#if NVM_HAVE_CLASS_ATTR_CONST
#define NVM_CLASS_CONST const
#else
#define NVM_CLASS_CONST
#endif

/* struct class has an owner (gone in 6.4). */
#if NVM_HAVE_CLASS_OWNER
#define NVM_CLASS_OWNER			.owner = THIS_MODULE,
#else
#define NVM_CLASS_OWNER
#endif

/* class->devnode takes a const struct device (6.2; RHEL 9.3). */
#if NVM_HAVE_DEVNODE_CONST
#define NVM_DEVNODE_CONST const
#else
#define NVM_DEVNODE_CONST
#endif

/* vm_flags are changed through helpers (6.3; RHEL 9.3). */
#if NVM_HAVE_VM_FLAGS_SET
#define nvm_vm_flags_set(vma, f)	vm_flags_set(vma, f)
#define nvm_vm_flags_clear(vma, f)	vm_flags_clear(vma, f)
#else
#define nvm_vm_flags_set(vma, f)	((vma)->vm_flags |= (f))
#define nvm_vm_flags_clear(vma, f)	((vma)->vm_flags &= ~(f))
#endif

/*
 * An inode's times are kept behind accessors: its ctime from 6.6 (i_ctime
 * became __i_ctime, inode_set_ctime_current()), all three from 6.7, where
 * simple_inode_init_ts() sets them to now.
 */
#if NVM_HAVE_SIMPLE_INODE_INIT_TS
#define nvm_inode_init_ts(inode)	simple_inode_init_ts(inode)
#elif NVM_HAVE_INODE_SET_CTIME_CURRENT
#define nvm_inode_init_ts(inode) \
	((inode)->i_atime = (inode)->i_mtime = inode_set_ctime_current(inode))
#else
#define nvm_inode_init_ts(inode) \
	((inode)->i_atime = (inode)->i_mtime = (inode)->i_ctime = current_time(inode))
#endif

/*
 * Inode operations that check a caller against an inode take the mount's
 * ID mapping (6.3; RHEL 9.3), its user namespace (5.12), nothing before.
 */
#if NVM_HAVE_IOP_IDMAP
#define NVM_IOP_IDMAP			struct mnt_idmap *idmap,
#elif NVM_HAVE_IOP_USERNS
#define NVM_IOP_IDMAP			struct user_namespace *mnt_userns,
#else
#define NVM_IOP_IDMAP
#endif

/*
 * generic_fillattr() takes, like the operations above, the mount's ID
 * mapping or user namespace (the caller's parameter of that name), and the
 * request mask (6.6).
 */
#if NVM_HAVE_FILLATTR_IDMAP_MASK
#define nvm_generic_fillattr(mask, inode, stat)	generic_fillattr(idmap, mask, inode, stat)
#elif NVM_HAVE_FILLATTR_IDMAP
#define nvm_generic_fillattr(mask, inode, stat)	generic_fillattr(idmap, inode, stat)
#elif NVM_HAVE_FILLATTR_USERNS
#define nvm_generic_fillattr(mask, inode, stat)	generic_fillattr(mnt_userns, inode, stat)
#else
#define nvm_generic_fillattr(mask, inode, stat)	generic_fillattr(inode, stat)
#endif

/*
 * vm_operations_struct's split hook was renamed may_split (5.11); the code
 * uses the new name.
 */
#if !NVM_HAVE_VM_OPS_MAY_SPLIT
#define may_split split
#endif

/* vma_set_file(): swap a VMA's file, references included (5.11). */
#if NVM_HAVE_VMA_SET_FILE
#define nvm_vma_set_file(vma, f)	vma_set_file(vma, f)
#else
#define nvm_vma_set_file(vma, f)			\
	do {						\
		struct file *__old = (vma)->vm_file;	\
							\
		(vma)->vm_file = get_file(f);		\
		fput(__old);				\
	} while (0)
#endif

/*
 * mmap_region() undoes a failed ->mmap by putting vma->vm_file from the
 * change that added vma_set_file() (5.11: its series made both, so that
 * handlers could swap the file); before, it puts the file it was called
 * with, so a handler that gave the VMA another file must give it back when
 * it fails.  No header shows the behaviour: the helper's presence stands
 * for it.
 */
#if NVM_HAVE_VMA_SET_FILE
#define NVM_MMAP_UNDO_PUTS_VMA_FILE	1
#else
#define NVM_MMAP_UNDO_PUTS_VMA_FILE	0
#endif

/*
 * A VMA can be sealed (VM_SEALED, the flag mseal() sets; 6.10, 64-bit
 * kernels): it can then be neither unmapped, moved, re-protected nor mapped
 * over until its address space goes.
 */
#if NVM_HAVE_VM_SEALED
#define NVM_CAN_SEAL			1
#define NVM_VM_SEALED			VM_SEALED
#else
#define NVM_CAN_SEAL			0
#define NVM_VM_SEALED			0
#endif

/*
 * Does the slot a fault handler was called for hold an entry that is not
 * empty (a marker: a userfaultfd write protection's)?  Kernels with markers
 * keep the entry the fault found (FAULT_FLAG_ORIG_PTE_VALID).  A marker on
 * a mapping such as the bounce area's takes a userfaultfd of 6.7 or later,
 * so the kernels before 6.1 that this checks no further have none to find.
 */
#if NVM_HAVE_FAULT_ORIG_PTE_VALID
#define nvm_fault_slot_taken(vmf)					\
	(((vmf)->flags & FAULT_FLAG_ORIG_PTE_VALID) && !pte_none((vmf)->orig_pte))
#else
#define nvm_fault_slot_taken(vmf)	false
#endif

/* vma_lookup(): the VMA holding an address, else NULL (5.14). */
#if NVM_HAVE_VMA_LOOKUP
#define nvm_vma_lookup(mm, addr)	vma_lookup(mm, addr)
#else
#define nvm_vma_lookup(mm, addr) ({					\
	unsigned long __nvm_a = (addr);					\
	struct vm_area_struct *__nvm_v = find_vma(mm, __nvm_a);	\
	__nvm_v && __nvm_v->vm_start <= __nvm_a ? __nvm_v : NULL;	\
})
#endif

/* file_open_root() takes the root as a struct path (5.15; RHEL 9). */
#if NVM_HAVE_FILE_OPEN_ROOT_PATH
#define nvm_file_open_root(root, name, flags, mode) \
	file_open_root(root, name, flags, mode)
#else
#define nvm_file_open_root(root, name, flags, mode) \
	file_open_root((root)->dentry, (root)->mnt, name, flags, mode)
#endif

/*
 * fault_in_readable() (bytes left unreadable) replaced
 * fault_in_pages_readable() (0 or -EFAULT) in 5.16, and in 5.15's stable
 * series; both touch every page and are non-zero when some byte cannot be
 * read.
 */
#if NVM_HAVE_FAULT_IN_READABLE
#define nvm_fault_in_readable(p, size)	fault_in_readable(p, size)
#else
#define nvm_fault_in_readable(p, size)	fault_in_pages_readable(p, size)
#endif

/*
 * kobject_init_and_add() takes a const kobj_type (6.1 has it, 5.10 not);
 * before, the type cannot be const.
 */
#if NVM_HAVE_KTYPE_CONST
#define NVM_KTYPE_CONST const
#else
#define NVM_KTYPE_CONST
#endif

/*
 * has_capability_noaudit() is exported to modules by 6.1 to 7.2, not by
 * 5.10 nor 7.3 (a probe of the kernel's Module.symvers).  Without it,
 * ns_capable_noaudit() on the initial namespace answers the same for
 * current, but also marks the task as having used a privilege
 * (PF_SUPERPRIV) when it answers yes.
 */
#if NVM_HAVE_HAS_CAPABILITY_NOAUDIT_EXPORT
#define nvm_capable_noaudit(cap)	has_capability_noaudit(current, cap)
#else
#define nvm_capable_noaudit(cap)	ns_capable_noaudit(&init_user_ns, cap)
#endif

/* call_mmap() was renamed vfs_mmap() (6.17). */
#if NVM_HAVE_VFS_MMAP
#define nvm_vfs_mmap(file, vma)		vfs_mmap(file, vma)
#else
#define nvm_vfs_mmap(file, vma)		call_mmap(file, vma)
#endif

/*
 * generic_delete_inode() (drop the inode at its last reference) was renamed
 * inode_just_drop() (6.18).
 */
#if NVM_HAVE_INODE_JUST_DROP
#define nvm_inode_just_drop		inode_just_drop
#else
#define nvm_inode_just_drop		generic_delete_inode
#endif

/*
 * zap_vma_ptes() (unmap part of a VM_PFNMAP area) was renamed
 * zap_special_vma_range() (7.2).
 */
#if NVM_HAVE_ZAP_SPECIAL_VMA_RANGE
#define nvm_zap_special_vma_range(vma, addr, size) \
	zap_special_vma_range(vma, addr, size)
#else
#define nvm_zap_special_vma_range(vma, addr, size) \
	zap_vma_ptes(vma, addr, size)
#endif

/*
 * sysfs binary attributes are const (6.16): the read()/write() callbacks
 * take a const struct bin_attribute and attribute_group's bin_attrs is an
 * array of const pointers.
 */
#if NVM_HAVE_BIN_ATTR_CONST
#define NVM_BIN_ATTR_CONST const
#else
#define NVM_BIN_ATTR_CONST
#endif

/*
 * DEFINE_STATIC_SRCU() in a module defines a pointer __srcu_struct_<name>
 * that 5.10 leaves undeclared, which sparse reports.  Declaring it first is
 * a harmless repetition where the kernel declares it (6.1 on) and names
 * nothing where the kernel defines no such pointer.
 */
#define NVM_DEFINE_STATIC_SRCU(name)					\
	extern struct srcu_struct * const __srcu_struct_##name;	\
	DEFINE_STATIC_SRCU(name)

/*
 * The sched_process_exit tracepoint passes whether the thread group died
 * with the thread (after 6.12; 7.2 does): the hook's parameters must match
 * the call's.
 */
#if NVM_HAVE_SCHED_EXIT_GROUP_DEAD
#define NVM_SCHED_EXIT_EXTRA_ARGS	, bool group_dead
#else
#define NVM_SCHED_EXIT_EXTRA_ARGS
#endif

#endif /* NVM_COMPAT_H */
