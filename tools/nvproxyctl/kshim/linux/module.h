/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Modules: what kmod/abi.c names.  No module loads into a program, so a
 * notifier registered here is never called.
 */
#ifndef NVM_KSHIM_MODULE_H
#define NVM_KSHIM_MODULE_H

#include "../kshim.h"
#include "moduleparam.h"

enum module_state {
	MODULE_STATE_LIVE,
	MODULE_STATE_COMING,
	MODULE_STATE_GOING,
	MODULE_STATE_UNFORMED,
};

struct module {
	enum module_state state;
	char name[56];
	const char *version;
};

#define THIS_MODULE		((struct module *)0)
#define MODULE_DESCRIPTION(s)
#define MODULE_LICENSE(s)
#define MODULE_VERSION(s)

#define NOTIFY_DONE		0x0000
#define NOTIFY_OK		0x0001

struct notifier_block {
	int (*notifier_call)(struct notifier_block *nb, unsigned long action, void *data);
	struct notifier_block *next;
	int priority;
};

static inline int register_module_notifier(struct notifier_block *nb)
{
	(void)nb;
	return 0;
}

static inline int unregister_module_notifier(struct notifier_block *nb)
{
	(void)nb;
	return 0;
}

#endif /* NVM_KSHIM_MODULE_H */
