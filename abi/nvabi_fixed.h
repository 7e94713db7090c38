/* SPDX-License-Identifier: GPL-2.0 */
/*
 * nvabi_fixed.h - the driver's numbers that are the same in every release
 * tools/nvabi extracted and that the generated tables (nvabi_tables.h) do
 * not carry: device numbers, module names, escape and class numbers the
 * module's checks name, flag bits and status codes.  No payload layout,
 * size or offset is kept here: those come from the tables of each ABI.
 *
 * Read from NVIDIA open-gpu-kernel-modules (515.43.04 to 595.45.04):
 * kernel-open/common/inc/nv.h, nv-ioctl-numbers.h, nv_escape.h, nvos.h,
 * nvstatuscodes.h, class/cl0000.h, cl0001.h, cl0005.h, cl0041.h, cl0080.h,
 * ctrl/ctrlxxxx.h, kernel-open/nvidia-uvm/uvm_ioctl.h.
 */
#ifndef NVABI_FIXED_H
#define NVABI_FIXED_H

/* Owners of the real device files (module names, f_op->owner). */
#define NVM_NV_MODULE		"nvidia"
#define NVM_NV_UVM_MODULE	"nvidia_uvm"

/* Device numbers of the real nodes (nv.c, nv-frontend.c). */
#define NVM_NV_MAJOR		195
#define NVM_NV_CTL_MINOR	255

/* Escapes the validator treats apart (nv-ioctl-numbers.h, nv_escape.h). */
#define NVM_NV_IOCTL_MAGIC	'F'	/* NV_IOCTL_MAGIC */
#define NVM_NV_ESC_RM_CONTROL	0x2a
#define NVM_NV_ESC_RM_ALLOC	0x2b
#define NVM_NV_ESC_XFER		0xd3	/* NV_ESC_IOCTL_XFER_CMD: {u32 cmd; u32 size; u64 ptr} */
#define NVM_NV_ESC_RM_ALLOC_MEMORY	0x27
#define NVM_NV_ESC_RM_VID_HEAP_CONTROL	0x4a
#define NVM_NV_MAX_IOCTL_SIZE	16384	/* NV_ABSOLUTE_MAX_IOCTL_SIZE */

/*
 * Calls during which the driver checks that the calling process holds the
 * GPU's node open (osIsGpuAccessible() -> nv_is_gpu_accessible(), which
 * walks current->files): allocating NV01_DEVICE_0 (gpu/device.c,
 * deviceConstruct) and UVM_REGISTER_GPU (uvm_va_space.c ->
 * uvm_gpu_retain_by_uuid -> nv_gpu_ops.c nvGpuOpsGetGpuInfo).
 */
#define NVM_NV01_DEVICE_0	0x80
#define NVM_UVM_REGISTER_GPU	37

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
/*
 * NVOS64 (nvos.h): pRightsRequested, an optional RS_ACCESS_MASK the driver
 * copies in, is the pointer after pAllocParms; the mask is one 32-bit limb.
 */
#define NVM_NVOS64_RIGHTS_AFTER_PARAMS	8
/*
 * Calls that make a memory object of a range of the caller's memory
 * (escape.c of the driver: RmCreateOsDescriptor(), RmAllocOsDescriptor()):
 * NV_ESC_RM_VID_HEAP_CONTROL with NVOS32's function ALLOC_OS_DESCRIPTOR
 * (nvos.h), NV_ESC_RM_ALLOC_MEMORY of the OS-descriptor class (cl0071.h).
 */
#define NVM_NVOS32_FUNCTION_ALLOC_OS_DESCRIPTOR	27
#define NVM_NV01_MEMORY_SYSTEM_OS_DESCRIPTOR	0x71
/*
 * NV_ESC_RM_ALLOC_MEMORY maps the memory it allocates right away, on the
 * file named by the call's fd (RmIoctl(): rm_create_mmap_context()), only
 * for NV01_MEMORY_SYSTEM (cl003e.h) without NVOS02's ALLOC_NONE (flags
 * 17:16 = 1) or MAPPING_NO_MAP (31:30 = 1) flags (nvos.h).
 */
#define NVM_NV01_MEMORY_SYSTEM		0x3e
#define NVM_NVOS02_FLAGS_ALLOC(f)	(((f) >> 16) & 0x3)
#define NVM_NVOS02_FLAGS_ALLOC_NONE	1
#define NVM_NVOS02_FLAGS_MAPPING(f)	(((f) >> 30) & 0x3)
#define NVM_NVOS02_FLAGS_MAPPING_NO_MAP	1
/*
 * The memory-list classes (cl0081.h, cl0082.h, cl0083.h): for them
 * RmDeprecatedAllocMemory() copies a list from the caller's memory before
 * the driver checks the caller's privilege (administrator-only).
 */
#define NVM_NV01_MEMORY_LIST_SYSTEM	0x81
#define NVM_NV01_MEMORY_LIST_OBJECT	0x83
#define NVM_RS_ACCESS_MASK_SIZE		4
/* NV_STATUS values the driver writes into a payload (nvstatuscodes.h). */
#define NVM_NV_ERR_INVALID_ARGUMENT	0x1f
#define NVM_NV_ERR_INVALID_CLASS	0x22
#define NVM_NV_ERR_NOT_SUPPORTED	0x56
#define NVM_NV_ERR_OUT_OF_RANGE		0x5b

#endif /* NVABI_FIXED_H */
