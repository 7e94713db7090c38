/* SPDX-License-Identifier: GPL-2.0 */
/*
 * sysfs attributes: declared and filled as the kernel's are; no file
 * system shows them here.
 */
#ifndef NVM_KSHIM_SYSFS_H
#define NVM_KSHIM_SYSFS_H

#include "../kshim.h"

#define PAGE_SIZE		4096UL

struct attribute {
	const char *name;
	unsigned short mode;
};

struct attribute_group {
	const char *name;
	struct attribute **attrs;
};

/* The kernel's sysfs_emit(): into a page, the length written. */
__printf(2, 3) static inline int sysfs_emit(char *buf, const char *fmt, ...)
{
	va_list ap;
	int n;

	va_start(ap, fmt);
	n = vsnprintf(buf, PAGE_SIZE, fmt, ap);
	va_end(ap);
	if (n < 0)
		return 0;
	return (size_t)n >= PAGE_SIZE ? (int)PAGE_SIZE - 1 : n;
}

#endif /* NVM_KSHIM_SYSFS_H */
