/* SPDX-License-Identifier: GPL-2.0 */
/*
 * nvmediate: differences between kernel versions, all in one place.
 * Force-included into every object by Kbuild.
 */
#ifndef NVM_COMPAT_H
#define NVM_COMPAT_H

#include <linux/version.h>

/* Class callbacks and attributes take const pointers from 6.4. */
#if LINUX_VERSION_CODE >= KERNEL_VERSION(6, 4, 0)
#define NVM_CLASS_CONST const
#else
#define NVM_CLASS_CONST
#endif

/* struct class has no owner from 6.4. */
#if LINUX_VERSION_CODE >= KERNEL_VERSION(6, 4, 0)
#define NVM_CLASS_OWNER
#else
#define NVM_CLASS_OWNER			.owner = THIS_MODULE,
#endif

/* class->devnode takes a const struct device from 6.2. */
#if LINUX_VERSION_CODE >= KERNEL_VERSION(6, 2, 0)
#define NVM_DEVNODE_CONST const
#else
#define NVM_DEVNODE_CONST
#endif

/* vm_flags are changed through helpers from 6.3. */
#if LINUX_VERSION_CODE >= KERNEL_VERSION(6, 3, 0)
#define nvm_vm_flags_set(vma, f)	vm_flags_set(vma, f)
#define nvm_vm_flags_clear(vma, f)	vm_flags_clear(vma, f)
#else
#define nvm_vm_flags_set(vma, f)	((vma)->vm_flags |= (f))
#define nvm_vm_flags_clear(vma, f)	((vma)->vm_flags &= ~(f))
#endif

/* __assign_str() takes only the field from 6.10. */
#if LINUX_VERSION_CODE >= KERNEL_VERSION(6, 10, 0)
#define nvm_assign_str(field, src)	__assign_str(field)
#else
#define nvm_assign_str(field, src)	__assign_str(field, src)
#endif

/*
 * An inode's times are kept behind accessors: its ctime from 6.6 (i_ctime
 * became __i_ctime), all three from 6.7, where simple_inode_init_ts() sets
 * them to now.
 */
#if LINUX_VERSION_CODE >= KERNEL_VERSION(6, 7, 0)
#define nvm_inode_init_ts(inode)	simple_inode_init_ts(inode)
#elif LINUX_VERSION_CODE >= KERNEL_VERSION(6, 6, 0)
#define nvm_inode_init_ts(inode) \
	((inode)->i_atime = (inode)->i_mtime = inode_set_ctime_current(inode))
#else
#define nvm_inode_init_ts(inode) \
	((inode)->i_atime = (inode)->i_mtime = (inode)->i_ctime = current_time(inode))
#endif

/*
 * Inode operations that check a caller against an inode take the mount's
 * ID mapping from 6.3, its user namespace from 5.12, nothing before.
 */
#if LINUX_VERSION_CODE >= KERNEL_VERSION(6, 3, 0)
#define NVM_IOP_IDMAP			struct mnt_idmap *idmap,
#elif LINUX_VERSION_CODE >= KERNEL_VERSION(5, 12, 0)
#define NVM_IOP_IDMAP			struct user_namespace *mnt_userns,
#else
#define NVM_IOP_IDMAP
#endif

/*
 * generic_fillattr() takes, like the operations above, the mount's ID
 * mapping or user namespace (the caller's parameter of that name), and the
 * request mask from 6.6.
 */
#if LINUX_VERSION_CODE >= KERNEL_VERSION(6, 6, 0)
#define nvm_generic_fillattr(mask, inode, stat)	generic_fillattr(idmap, mask, inode, stat)
#elif LINUX_VERSION_CODE >= KERNEL_VERSION(6, 3, 0)
#define nvm_generic_fillattr(mask, inode, stat)	generic_fillattr(idmap, inode, stat)
#elif LINUX_VERSION_CODE >= KERNEL_VERSION(5, 12, 0)
#define nvm_generic_fillattr(mask, inode, stat)	generic_fillattr(mnt_userns, inode, stat)
#else
#define nvm_generic_fillattr(mask, inode, stat)	generic_fillattr(inode, stat)
#endif

/*
 * vm_operations_struct's split hook was renamed may_split in 5.11; the
 * code uses the new name.
 */
#if LINUX_VERSION_CODE < KERNEL_VERSION(5, 11, 0)
#define may_split split
#endif

/* vma_set_file() (swap a VMA's file, references included) is from 5.11. */
#if LINUX_VERSION_CODE >= KERNEL_VERSION(5, 11, 0)
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
 * mmap_region() undoes a failed ->mmap by putting vma->vm_file from 5.11 (the
 * release that added vma_set_file()); before, it puts the file it was called
 * with, so a handler that gave the VMA another file must give it back when
 * it fails.
 */
#if LINUX_VERSION_CODE >= KERNEL_VERSION(5, 11, 0)
#define NVM_MMAP_UNDO_PUTS_VMA_FILE	1
#else
#define NVM_MMAP_UNDO_PUTS_VMA_FILE	0
#endif

/*
 * A VMA can be sealed (VM_SEALED, the flag mseal() sets) from 6.10, on
 * 64-bit kernels: it can then be neither unmapped, moved, re-protected nor
 * mapped over until its address space goes.
 */
#if LINUX_VERSION_CODE >= KERNEL_VERSION(6, 10, 0) && defined(CONFIG_64BIT)
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
#if LINUX_VERSION_CODE >= KERNEL_VERSION(6, 1, 0)
#define nvm_fault_slot_taken(vmf)					\
	(((vmf)->flags & FAULT_FLAG_ORIG_PTE_VALID) && !pte_none((vmf)->orig_pte))
#else
#define nvm_fault_slot_taken(vmf)	false
#endif

/* vma_lookup() (the VMA holding an address, else NULL) is from 5.14. */
#if LINUX_VERSION_CODE >= KERNEL_VERSION(5, 14, 0)
#define nvm_vma_lookup(mm, addr)	vma_lookup(mm, addr)
#else
#define nvm_vma_lookup(mm, addr) ({					\
	unsigned long __nvm_a = (addr);					\
	struct vm_area_struct *__nvm_v = find_vma(mm, __nvm_a);	\
	__nvm_v && __nvm_v->vm_start <= __nvm_a ? __nvm_v : NULL;	\
})
#endif

/* file_open_root() takes the root as a struct path from 5.15. */
#if LINUX_VERSION_CODE >= KERNEL_VERSION(5, 15, 0)
#define nvm_file_open_root(root, name, flags, mode) \
	file_open_root(root, name, flags, mode)
#else
#define nvm_file_open_root(root, name, flags, mode) \
	file_open_root((root)->dentry, (root)->mnt, name, flags, mode)
#endif

/*
 * fault_in_readable() (bytes left unreadable) replaced
 * fault_in_pages_readable() (0 or -EFAULT) in 5.16; both touch every page
 * and are non-zero when some byte cannot be read.
 */
#if LINUX_VERSION_CODE >= KERNEL_VERSION(5, 16, 0)
#define nvm_fault_in_readable(p, size)	fault_in_readable(p, size)
#else
#define nvm_fault_in_readable(p, size)	fault_in_pages_readable(p, size)
#endif

/*
 * kobject_init_and_add() takes a const kobj_type after 5.10 (6.1 is the
 * oldest kernel tested with it); before, the type cannot be const.
 */
#if LINUX_VERSION_CODE >= KERNEL_VERSION(6, 1, 0)
#define NVM_KTYPE_CONST const
#else
#define NVM_KTYPE_CONST
#endif

/*
 * has_capability_noaudit() is not exported to modules in 5.10 (it is by 6.1,
 * the oldest kernel tested with it).  ns_capable_noaudit() on the initial
 * namespace answers the same for current, but also marks the task as having
 * used a privilege (PF_SUPERPRIV) when it answers yes.
 */
#if LINUX_VERSION_CODE >= KERNEL_VERSION(6, 1, 0)
#define nvm_capable_noaudit(cap)	has_capability_noaudit(current, cap)
#else
#define nvm_capable_noaudit(cap)	ns_capable_noaudit(&init_user_ns, cap)
#endif

/* call_mmap() was renamed vfs_mmap() in 6.17. */
#if LINUX_VERSION_CODE >= KERNEL_VERSION(6, 17, 0)
#define nvm_vfs_mmap(file, vma)		vfs_mmap(file, vma)
#else
#define nvm_vfs_mmap(file, vma)		call_mmap(file, vma)
#endif

/*
 * generic_delete_inode() (drop the inode at its last reference) was renamed
 * inode_just_drop() in 6.18.
 */
#if LINUX_VERSION_CODE >= KERNEL_VERSION(6, 18, 0)
#define nvm_inode_just_drop		inode_just_drop
#else
#define nvm_inode_just_drop		generic_delete_inode
#endif

/*
 * zap_vma_ptes() (unmap part of a VM_PFNMAP area) was renamed
 * zap_special_vma_range() in 7.2.
 */
#if LINUX_VERSION_CODE >= KERNEL_VERSION(7, 2, 0)
#define nvm_zap_special_vma_range(vma, addr, size) \
	zap_special_vma_range(vma, addr, size)
#else
#define nvm_zap_special_vma_range(vma, addr, size) \
	zap_vma_ptes(vma, addr, size)
#endif

/*
 * sysfs binary attributes are const from 6.16: the read()/write()
 * callbacks take a const struct bin_attribute and attribute_group's
 * bin_attrs is an array of const pointers.
 */
#if LINUX_VERSION_CODE >= KERNEL_VERSION(6, 16, 0)
#define NVM_BIN_ATTR_CONST const
#else
#define NVM_BIN_ATTR_CONST
#endif

/*
 * DEFINE_STATIC_SRCU() in a module defines a pointer __srcu_struct_<name>
 * that 5.10 leaves undeclared, which sparse reports; 6.1 (the oldest kernel
 * tested with it) declares it first, as done here for older ones.
 */
#if LINUX_VERSION_CODE >= KERNEL_VERSION(6, 1, 0)
#define NVM_DEFINE_STATIC_SRCU(name)	DEFINE_STATIC_SRCU(name)
#else
#define NVM_DEFINE_STATIC_SRCU(name)					\
	extern struct srcu_struct * const __srcu_struct_##name;	\
	DEFINE_STATIC_SRCU(name)
#endif

#endif /* NVM_COMPAT_H */
