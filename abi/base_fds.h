/* SPDX-License-Identifier: GPL-2.0 */
/*
 * nvmediate: baseline descriptor of the NVIDIA calls whose payloads carry
 * file descriptors, and the few numbers forwarding needs.
 *
 * Read from NVIDIA open-gpu-kernel-modules 595.45.04 (x86_64):
 *   escapes:  src/nvidia/arch/nvalloc/unix/include/nv_escape.h, nv-ioctl.h,
 *             src/common/sdk/nvidia/inc/nvos.h (NVOS02/NVOS33 + fd, NVOS21/64)
 *   classes:  src/common/sdk/nvidia/inc/class/cl0080.h
 *   UVM:      kernel-open/nvidia-uvm/uvm_ioctl.h, uvm_linux_ioctl.h
 * Offsets of fd fields are byte offsets in the payload the driver copies in.
 * This table is the one every version uses until per-range tables generated
 * by tools/nvabi replace it.
 */
#ifndef NVM_ABI_BASE_FDS_H
#define NVM_ABI_BASE_FDS_H

/* Owners of the real device files (module names, f_op->owner). */
#define NVM_NV_MODULE		"nvidia"
#define NVM_NV_UVM_MODULE	"nvidia_uvm"

/* Device numbers of the real nodes (nv.c, nv-frontend.c). */
#define NVM_NV_MAJOR		195
#define NVM_NV_CTL_MINOR	255
#define NVM_NV_MAX_GPU_MINOR	247

/* NV_ESC_IOCTL_XFER_CMD: {u32 cmd; u32 size; u64 ptr} (nv-ioctl.h). */
#define NVM_NV_ESC_XFER		0xd3
#define NVM_NV_XFER_SIZE	16
#define NVM_NV_MAX_IOCTL_SIZE	16384	/* NV_ABSOLUTE_MAX_IOCTL_SIZE */

/* NV_ESC_RM_ALLOC: NVOS21 (32 B) or NVOS64 (48 B), hClass at 12 in both. */
#define NVM_NV_ESC_RM_ALLOC	0x2b
#define NVM_NV_NVOS21_SIZE	32
#define NVM_NV_NVOS64_SIZE	48
#define NVM_NV_ALLOC_HCLASS_OFF	12
/* NV01_DEVICE_0: its allocation checks the caller holds the GPU's node (550+). */
#define NVM_NV01_DEVICE_0	0x80

enum nvm_fd_family {
	NVM_FD_ESCAPE,		/* frontend escape nr on /dev/nvidiactl or /dev/nvidiaN */
	NVM_FD_UVM,		/* UVM ioctl command on /dev/nvidia-uvm */
};

/**
 * struct nvm_fd_field - one fd number inside a payload the driver resolves
 *	with fget() in the caller's fd table
 * @family: which node family the call is made on
 * @cmd: escape nr or UVM command
 * @size: payload size the driver copies at 595.45.04
 * @off: byte offset of the 32-bit fd number in the payload
 * @name: the driver's name for the call and field
 */
struct nvm_fd_field {
	unsigned char family;
	unsigned int cmd;
	unsigned int size;
	unsigned int off;
	const char *name;
};

/* Sorted by (family, cmd); a call may appear more than once (several fields). */
#define NVM_BASE_FD_FIELDS {							\
	{ NVM_FD_ESCAPE, 0x27, 56,   48,   "NV_ESC_RM_ALLOC_MEMORY.fd" },	\
	{ NVM_FD_ESCAPE, 0x4e, 56,   48,   "NV_ESC_RM_MAP_MEMORY.fd" },		\
	{ NVM_FD_ESCAPE, 0xc9, 4,    0,    "NV_ESC_REGISTER_FD.ctl_fd" },	\
	{ NVM_FD_UVM,    25,   32,   16,   "UVM_REGISTER_GPU_VASPACE.rmCtrlFd" }, \
	{ NVM_FD_UVM,    27,   56,   16,   "UVM_REGISTER_CHANNEL.rmCtrlFd" },	\
	{ NVM_FD_UVM,    33,   9264, 9248, "UVM_MAP_EXTERNAL_ALLOCATION.rmCtrlFd" }, \
	{ NVM_FD_UVM,    37,   40,   24,   "UVM_REGISTER_GPU.rmCtrlFd" },	\
	{ NVM_FD_UVM,    56,   56,   44,   "UVM_TOOLS_INIT_EVENT_TRACKER.uvmFd" }, \
	{ NVM_FD_UVM,    75,   8,    0,    "UVM_MM_INITIALIZE.uvmFd" },		\
	{ NVM_FD_UVM,    76,   56,   44,   "UVM_TOOLS_INIT_EVENT_TRACKER_V2.uvmFd" }, \
	{ NVM_FD_UVM,    78,   56,   40,   "UVM_ALLOC_DEVICE_P2P.rmCtrlFd" },	\
}

/*
 * Calls during which the driver checks that the calling process holds the
 * GPU's node open (osIsGpuAccessible() -> nv_is_gpu_accessible(), which
 * walks current->files): allocating NV01_DEVICE_0 (gpu/device.c,
 * deviceConstruct) and UVM_REGISTER_GPU (nvidia-uvm/uvm_va_space.c ->
 * uvm_gpu_retain_by_uuid -> rmapi/nv_gpu_ops.c nvGpuOpsGetGpuInfo).
 */
#define NVM_BASE_GPU_NODE_UVM_CMDS { 37 /* UVM_REGISTER_GPU */ }

/*
 * Numbers the validator needs besides the generated tables (the same in
 * every release; read from 595.45.04).
 */
#define NVM_NV_IOCTL_MAGIC	'F'	/* NV_IOCTL_MAGIC, nv-ioctl-numbers.h */
#define NVM_NV_ESC_RM_CONTROL	0x2a	/* nv_escape.h */
/* NVOS54 flags (nvos.h): set by RM's kernel callers only, and FINN. */
#define NVM_NVOS54_FLAGS_IRQL_RAISED	0x1
#define NVM_NVOS54_FLAGS_LOCK_BYPASS	0x2
#define NVM_NVOS54_FLAGS_FINN_SERIALIZED 0x4
/* Control commands of the GSS-legacy interface have this bit (ctrlxxxx.h). */
#define NVM_NV_CTRL_GSS_LEGACY	0x8000
/* Event classes whose callback runs in the kernel (cl0005.h): never from user space. */
#define NVM_NV01_EVENT_KERNEL_CALLBACK		0x78
#define NVM_NV01_EVENT_KERNEL_CALLBACK_EX	0x7e
/*
 * Root-client classes (cl0000.h, cl0001.h, cl0041.h): RmIoctl() allocates a
 * client for them on a path of its own, so the class tables record them
 * with no privilege; their params are an optional NvHandle.
 */
#define NVM_NV01_ROOT			0x0
#define NVM_NV01_ROOT_NON_PRIV		0x1
#define NVM_NV01_ROOT_CLIENT		0x41
#define NVM_NV_ROOT_PARAMS_SIZE		4
/* NV_STATUS values the driver writes into a payload (nvstatuscodes.h). */
#define NVM_NV_ERR_INVALID_CLASS	0x22
#define NVM_NV_ERR_NOT_SUPPORTED	0x56

#endif /* NVM_ABI_BASE_FDS_H */
