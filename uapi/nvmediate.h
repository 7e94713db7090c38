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

#endif /* _UAPI_LINUX_NVMEDIATE_H */
