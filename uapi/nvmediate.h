/* SPDX-License-Identifier: GPL-2.0 WITH Linux-syscall-note */
/*
 * nvmediate: interface shared with user space.
 *
 * The mediated nodes accept the NVIDIA driver's own ioctls, mmap and poll;
 * this header names the nodes and the interface version tools can check.
 */
#ifndef _UAPI_LINUX_NVMEDIATE_H
#define _UAPI_LINUX_NVMEDIATE_H

#include <linux/types.h>

/* Bumped whenever anything user space can observe changes incompatibly. */
#define NVMEDIATE_ABI_VERSION	1

/* Node names under /dev, and their minors on nvmediate's dynamic major. */
#define NVM_NODE_NAME_CTL	"nvproxy"	/* mediates /dev/nvidiactl */
#define NVM_NODE_NAME_UVM	"nvproxy-uvm"	/* mediates /dev/nvidia-uvm */
/* GPU N: NVM_NODE_NAME_CTL followed by N, e.g. "nvproxy0", minor N. */

#define NVM_MINOR_CTL		255
#define NVM_MINOR_UVM		254
#define NVM_MAX_GPUS		254
#define NVM_MINORS		256

/*
 * The words of nvmediate's interfaces, in one place for the module, its
 * tools and nvabi gen (docs/policy.md, docs/operations.md).
 *
 * The families of calls, one vocabulary in two stable interfaces, in the
 * module's NVM_FAM_* order.  What a profile admits, as profiles, allow
 * entries, audit records and abi/capabilities.txt name the ioctl families
 * (short words), and what the counters, log lines and tracepoints count
 * in: the same families, the escapes under their long word, then the file
 * operations.  Both lists give the same family at the same index
 * (tests/tools/words.sh checks).
 */
#define NVM_FAMILY_NAMES	{ "esc", "ctrl", "alloc", "uvm" }
#define NVM_NR_FAMILIES		4
#define NVM_STAT_FAMILY_NAMES	{ "escape", "ctrl", "alloc", "uvm", "open", "mmap", "poll" }
#define NVM_NR_STAT_FAMILIES	7
/* What became of a call, as the counters name it. */
#define NVM_OUTCOME_NAMES	{ "forwarded", "refused", "answered", "audited" }
#define NVM_NR_OUTCOMES		4
/* The capabilities of a profile, bit 0 up ("base" is every profile's). */
#define NVM_CAP_NAMES		{ "compute", "utility", "graphics", "video", "profiling", \
				  "fabric-imex", "rdma", "mig" }
#define NVM_NR_CAPS		8

#endif /* _UAPI_LINUX_NVMEDIATE_H */
