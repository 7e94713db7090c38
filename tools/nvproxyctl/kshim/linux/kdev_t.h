/* SPDX-License-Identifier: GPL-2.0 */
#include "../kshim.h"

/* The kernel's own encoding of a device number (include/linux/kdev_t.h). */
#ifndef MINORBITS
#define MINORBITS	20
#define MINORMASK	((1U << MINORBITS) - 1)
#define MAJOR(dev)	((unsigned int)((dev) >> MINORBITS))
#define MINOR(dev)	((unsigned int)((dev) & MINORMASK))
#define MKDEV(ma, mi)	(((u32)(ma) << MINORBITS) | (mi))
#endif
