/* SPDX-License-Identifier: GPL-2.0 */
/* Device classes and their attributes, as of 6.4 (const callbacks). */
#ifndef NVM_KSHIM_DEVICE_H
#define NVM_KSHIM_DEVICE_H

#include "../kshim.h"
#include "sysfs.h"

struct class;

struct class_attribute {
	struct attribute attr;
	ssize_t (*show)(const struct class *class, const struct class_attribute *attr,
			char *buf);
	ssize_t (*store)(const struct class *class, const struct class_attribute *attr,
			 const char *buf, size_t count);
};

#define CLASS_ATTR_RO(_name) \
	struct class_attribute class_attr_##_name = { { #_name, 0444 }, _name##_show, NULL }

#endif /* NVM_KSHIM_DEVICE_H */
