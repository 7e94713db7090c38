/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Stand-in driver: differences between kernel versions, all in one place.
 * Force-included into every object by Kbuild.
 */
#ifndef NVS_COMPAT_H
#define NVS_COMPAT_H

#include <linux/version.h>

/* class_create() lost its owner argument in 6.4. */
#if LINUX_VERSION_CODE >= KERNEL_VERSION(6, 4, 0)
#define nvs_class_create(name)		class_create(name)
#else
#define nvs_class_create(name)		class_create(THIS_MODULE, name)
#endif

/* class->devnode takes a const struct device from 6.2. */
#if LINUX_VERSION_CODE >= KERNEL_VERSION(6, 2, 0)
#define NVS_DEVNODE_CONST const
#else
#define NVS_DEVNODE_CONST
#endif

/*
 * no_llseek is NULL from 6.0 and gone in 6.12: a NULL .llseek means the file
 * cannot seek (-ESPIPE).
 */
#if LINUX_VERSION_CODE >= KERNEL_VERSION(6, 12, 0)
#define NVS_NO_LLSEEK			NULL
#else
#define NVS_NO_LLSEEK			no_llseek
#endif

/* vm_flags are changed through vm_flags_set() from 6.3. */
#if LINUX_VERSION_CODE >= KERNEL_VERSION(6, 3, 0)
#define nvs_vm_flags_set(vma, f)	vm_flags_set(vma, f)
#else
#define nvs_vm_flags_set(vma, f)	((vma)->vm_flags |= (f))
#endif

/* A proc entry's data: PDE_DATA() until 5.17, pde_data() from it. */
#if LINUX_VERSION_CODE >= KERNEL_VERSION(5, 17, 0)
#define nvs_pde_data(inode)		pde_data(inode)
#else
#define nvs_pde_data(inode)		PDE_DATA(inode)
#endif

#endif /* NVS_COMPAT_H */
