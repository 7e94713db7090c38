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

#endif /* NVM_COMPAT_H */
