/* SPDX-License-Identifier: GPL-2.0 */
/*
 * nvmediate: what every part of the module speaks of: the real nodes, an
 * open mediated file, and what became of a call.  Each part declares its
 * own interface in its own header (abi.h, node.h, validate.h, ...).
 */
#ifndef NVM_NVM_H
#define NVM_NVM_H

#include <linux/atomic.h>
#include <linux/fs.h>
#include <linux/kobject.h>
#include <linux/list.h>
#include <linux/mutex.h>
#include <linux/rbtree.h>
#include <linux/rcupdate.h>
#include <linux/sched.h>
#include <linux/spinlock.h>
#include <linux/types.h>

#include "nvabi_fixed.h"

struct nvm_proc;

/* The real node a mediated node stands for. */
enum nvm_kind {
	NVM_NODE_CTL,		/* /dev/nvidiactl */
	NVM_NODE_GPU,		/* /dev/nvidiaN */
	NVM_NODE_UVM,		/* /dev/nvidia-uvm */
};

/* stats.c: the families and verdicts calls are counted in (docs/operations.md). */
enum nvm_family {
	NVM_FAM_ESCAPE,
	NVM_FAM_CTRL,
	NVM_FAM_ALLOC,
	NVM_FAM_UVM,
	NVM_FAM_OPEN,
	NVM_FAM_MMAP,
	NVM_FAM_POLL,
	NVM_FAM_COUNT
};

/* The families of ioctl commands a profile admits: escape to UVM. */
#define NVM_FAM_CALLS	(NVM_FAM_UVM + 1)

enum nvm_outcome {
	NVM_OUT_FORWARDED,
	NVM_OUT_REFUSED,
	NVM_OUT_ANSWERED,
	NVM_OUT_AUDITED,
	NVM_OUT_COUNT
};

/**
 * struct nvm_file - state of one open mediated file
 * @backing: the real driver's file, opened for this file alone; constant
 *	from open to release
 * @kind: which real node it mediates
 * @gpu: GPU index for %NVM_NODE_GPU
 * @abi: the ABI number of the range selected at open, which every call's
 *	checks read
 * @successor: that range serves the driver at the successor tier (abi.c)
 * @nobounce_mm: an address space last found unable to hold a bounce area
 *	(compared only; held with mmgrab() while remembered, so that its
 *	address cannot be another process's meanwhile)
 * @nobounce_until: when to try @nobounce_mm again (jiffies)
 * @warn_mm: the address space last logged for a bounce failure (compared
 *	only)
 * @warn_until: when @warn_mm may be logged again (jiffies)
 * @set: the node set the file was opened on; its profile decides every
 *	call of the file (the set cannot be removed while the file is open)
 * @proc: the counts of the process that opened it (stats.c)
 */
struct nvm_file {
	struct file *backing;
	enum nvm_kind kind;
	unsigned int gpu;
	unsigned int abi;
	bool successor;
	struct mm_struct *nobounce_mm;
	unsigned long nobounce_until;
	struct mm_struct *warn_mm;
	unsigned long warn_until;
	struct nvm_set *set;
	struct nvm_proc *proc;
};

/**
 * struct nvm_report - what became of one ioctl, for counters, trace and log
 * @family: %NVM_FAM_ESCAPE, _CTRL, _ALLOC or _UVM
 * @outcome: the verdict
 * @nr: escape number, control command, class or UVM command
 * @name: the name the driver's sources give @nr, or NULL
 * @size: payload size; for a control, its params size
 * @xfer: the escape came inside NV_ESC_IOCTL_XFER_CMD
 * @rule: the rule that refused (or would have, audited), else NULL
 * @err: the refusal's negative errno, 0 for an answer in the payload
 * @status: the NV_STATUS of an answer in the payload
 */
struct nvm_report {
	enum nvm_family family;
	enum nvm_outcome outcome;
	u32 nr;
	const char *name;
	u32 size;
	bool xfer;
	const char *rule;
	int err;
	u32 status;
};

#endif /* NVM_NVM_H */
