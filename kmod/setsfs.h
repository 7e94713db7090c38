/* SPDX-License-Identifier: GPL-2.0 */
/*
 * nvmediate: the node sets' sysfs files, /sys/kernel/nvmediate (setsfs.c);
 * main.c hands them to the registry of sets when it starts it.
 */
#ifndef NVM_SETSFS_H
#define NVM_SETSFS_H

#include <linux/kobject.h>
#include <linux/sysfs.h>

extern NVM_KTYPE_CONST struct kobj_type nvm_setsfs_ktype;
extern const struct attribute_group nvm_setsfs_top_group;

#endif /* NVM_SETSFS_H */
