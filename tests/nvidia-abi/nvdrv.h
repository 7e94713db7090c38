/* SPDX-License-Identifier: GPL-2.0 */
/*
 * NVIDIA's driver as the tests read it: device numbers, escape numbers,
 * payload layouts (x86_64), classes, controls, statuses, UVM commands.
 *
 * Everything here is a fact about the real driver, read from NVIDIA's
 * open-gpu-kernel-modules at 595.45.04 unless a line says otherwise, and
 * written down in our own form.  It is one reading shared by the stand-in
 * driver (tests/standin/, kernel side) and the guest test clients
 * (tests/guest/, tests/bench/, tests/gpu/, user side), and it is kept apart
 * from the mediator on purpose: nothing here comes from or goes to kmod/,
 * uapi/ or abi/, as the stand-in must not share tables with the mediator it
 * is used to test.
 *
 * It compiles in both worlds: the kernel's types and headers under
 * __KERNEL__, the C library's otherwise, with the same layouts.
 */
#ifndef NVDRV_H
#define NVDRV_H

#ifdef __KERNEL__
#include <linux/ioctl.h>
#include <linux/stddef.h>
#include <linux/types.h>

typedef __u8	nvd_u8;
typedef __u16	nvd_u16;
typedef __u32	nvd_u32;
typedef __u64	nvd_u64;
typedef __s16	nvd_s16;
typedef __s32	nvd_s32;
#else
#include <stddef.h>
#include <stdint.h>
#include <sys/ioctl.h>

typedef uint8_t		nvd_u8;
typedef uint16_t	nvd_u16;
typedef uint32_t	nvd_u32;
typedef uint64_t	nvd_u64;
typedef int16_t		nvd_s16;
typedef int32_t		nvd_s32;
#endif

/* A layout check, at file scope, in either world. */
#define NVD_CHECK(cond)		_Static_assert(cond, #cond)

/* Device numbers (kernel-open/common/inc/nv.h, nv-frontend.h). */
#define NVD_MAJOR		195
#define NVD_CTL_MINOR		255

/* An escape: _IOWR('F', nr, size); the driver looks at nr and size only. */
#define NV_IOCTL_MAGIC		'F'
#define NV_IOC(nr, size)	_IOC(_IOC_READ | _IOC_WRITE, NV_IOCTL_MAGIC, (nr), (size))

/* Frontend escapes (kernel-open/common/inc/nv-ioctl-numbers.h). */
#define NV_ESC_CARD_INFO		0xc8
#define NV_ESC_REGISTER_FD		0xc9
#define NV_ESC_ALLOC_OS_EVENT		0xce
#define NV_ESC_FREE_OS_EVENT		0xcf
#define NV_ESC_STATUS_CODE		0xd1
#define NV_ESC_CHECK_VERSION_STR	0xd2
#define NV_ESC_IOCTL_XFER_CMD		0xd3
#define NV_ESC_ATTACH_GPUS_TO_FD	0xd4
#define NV_ESC_QUERY_DEVICE_INTR	0xd5
#define NV_ESC_SYS_PARAMS		0xd6
#define NV_ESC_NUMA_INFO		0xd7
#define NV_ESC_SET_NUMA_STATUS		0xd8
#define NV_ESC_EXPORT_TO_DMABUF_FD	0xd9
#define NV_ESC_WAIT_OPEN_COMPLETE	0xda	/* from 550.40.07 */

/* RM escapes (src/nvidia/arch/nvalloc/unix/include/nv_escape.h). */
#define NV_ESC_RM_ALLOC_MEMORY		0x27
#define NV_ESC_RM_ALLOC_OBJECT		0x28
#define NV_ESC_RM_FREE			0x29
#define NV_ESC_RM_CONTROL		0x2a
#define NV_ESC_RM_ALLOC			0x2b
#define NV_ESC_RM_DUP_OBJECT		0x34
#define NV_ESC_RM_SHARE			0x35
#define NV_ESC_RM_I2C_ACCESS		0x39
#define NV_ESC_RM_IDLE_CHANNELS		0x41
#define NV_ESC_RM_VID_HEAP_CONTROL	0x4a
#define NV_ESC_RM_ACCESS_REGISTRY	0x4d
#define NV_ESC_RM_MAP_MEMORY		0x4e
#define NV_ESC_RM_UNMAP_MEMORY		0x4f
#define NV_ESC_RM_GET_EVENT_DATA	0x52
#define NV_ESC_RM_ALLOC_CONTEXT_DMA2	0x54
#define NV_ESC_RM_MAP_MEMORY_DMA	0x57
#define NV_ESC_RM_UNMAP_MEMORY_DMA	0x58
#define NV_ESC_RM_BIND_CONTEXT_DMA	0x59
#define NV_ESC_RM_UPDATE_DEVICE_MAPPING_INFO 0x5e
#define NV_ESC_RM_LOCKLESS_DIAGNOSTIC	0x5f

/* NV_ABSOLUTE_MAX_IOCTL_SIZE (kernel-open/common/inc/nv.h). */
#define NVD_MAX_IOCTL_SIZE	16384
/* RMAPI_PARAM_COPY_MAX_PARAMS_SIZE (src/nvidia/inc/kernel/rmapi/param_copy.h). */
#define NVD_MAX_CTRL_PARAMS	(1024 * 1024)

/* NV_STATUS values (src/common/sdk/nvidia/inc/nvstatuscodes.h). */
#define NV_OK				0x00000000u
#define NV_ERR_BUSY_RETRY		0x00000003u
#define NV_ERR_GPU_UUID_NOT_FOUND	0x00000012u
#define NV_ERR_ILLEGAL_ACTION		0x00000016u
#define NV_ERR_IN_USE			0x00000017u
#define NV_ERR_INSUFFICIENT_RESOURCES	0x0000001au
#define NV_ERR_INSUFFICIENT_PERMISSIONS	0x0000001bu
#define NV_ERR_INVALID_ADDRESS		0x0000001eu
#define NV_ERR_INVALID_ARGUMENT		0x0000001fu
#define NV_ERR_INVALID_CLASS		0x00000022u
#define NV_ERR_INVALID_CLIENT		0x00000023u
#define NV_ERR_INVALID_DEVICE		0x00000026u
#define NV_ERR_INVALID_EVENT		0x00000028u
#define NV_ERR_INVALID_FLAGS		0x00000029u
#define NV_ERR_INVALID_LIMIT		0x0000002eu
#define NV_ERR_INVALID_OBJECT		0x00000031u
#define NV_ERR_INVALID_OBJECT_HANDLE	0x00000033u
#define NV_ERR_INVALID_OBJECT_NEW	0x00000034u
#define NV_ERR_INVALID_OBJECT_PARENT	0x00000036u
#define NV_ERR_INVALID_PARAMETER	0x0000003bu
#define NV_ERR_INVALID_POINTER		0x0000003du
#define NV_ERR_INVALID_STATE		0x00000040u
#define NV_ERR_NO_MEMORY		0x00000051u
#define NV_ERR_NOT_SUPPORTED		0x00000056u
#define NV_ERR_OBJECT_NOT_FOUND		0x00000057u
#define NV_ERR_OPERATING_SYSTEM		0x00000059u
#define NV_ERR_PAGE_TABLE_NOT_AVAIL	0x0000005du
#define NV_ERR_STATE_IN_USE		0x00000063u
#define NV_ERR_GENERIC			0x0000ffffu
#define NV_WARN_NOTHING_TO_DO		0x00010006u

/* Classes (src/common/sdk/nvidia/inc/nvos.h and class/ headers). */
#define NV01_ROOT			0x00000000u
#define NV01_ROOT_NON_PRIV		0x00000001u
#define NV01_ROOT_CLIENT		0x00000041u
#define NV01_MEMORY_SYSTEM		0x0000003eu
#define NV01_MEMORY_SYSTEM_OS_DESCRIPTOR	0x00000071u
#define NV01_EVENT_KERNEL_CALLBACK	0x00000078u
#define NV01_EVENT_OS_EVENT		0x00000079u
#define NV01_DEVICE_0			0x00000080u
#define NV20_SUBDEVICE_0		0x00002080u
#define NV01_MEMORY_LOCAL_USER		0x00000040u	/* class/cl0040.h: video memory */
#define AMPERE_SMC_PARTITION_REF	0x0000c637u	/* clc637.h: GPU instance subscription */
#define AMPERE_SMC_EXEC_PARTITION_REF	0x0000c638u	/* clc638.h: compute instance subscription */
#define AMPERE_SMC_CONFIG_SESSION	0x0000c639u	/* clc639.h */
#define AMPERE_SMC_MONITOR_SESSION	0x0000c640u	/* clc640.h */
/* The swizzId of a device-level profiling subscription (clc637.h). */
#define NVC637_DEVICE_PROFILING_SWIZZID	0xfffffffeu

/* NVOS32 attr LOCATION 26:25 (VIDMEM 0) and the VIRTUAL alloc flag (nvos.h). */
#define NVOS32_ATTR_LOCATION(a)		(((a) >> 25) & 0x3u)
#define NVOS32_ALLOC_FLAGS_VIRTUAL	0x00080000u
/* NVOS32 functions (nvos.h): RM_VID_HEAP_CONTROL's function field. */
#define NVOS32_FUNCTION_INFO			4u
#define NVOS32_FUNCTION_ALLOC_OS_DESCRIPTOR	27u

/*
 * Capabilities (kernel-open/nvidia/nv-caps.c, the same from 525 to 595):
 * one character region "nvidia-caps" of 8192 minors, whose numbers come
 * from a table fixed at load, in this order: nvlink's fabric-mgmt, then
 * mig/config and mig/monitor, then for each of 32 GPU minors, each of 15
 * GPU instances (gi<swizzId>/access) followed by its 8 compute instances
 * (gi<swizzId>/ci<id>/access), then fabric-imex-mgmt (a table entry from
 * 550.40.07; the table before it has none).  The files RM creates
 * (arch/nvalloc/unix/src/os.c osRmCap*) find their minor by path.
 */
#define NVD_CAP_MINOR_COUNT		8192
#define NVD_CAP_MINOR_FABRIC_MGMT	0
#define NVD_CAP_MINOR_MIG_CONFIG	1
#define NVD_CAP_MINOR_MIG_MONITOR	2
#define NVD_CAP_MINOR_GPU_BASE		3
#define NVD_CAP_TABLE_GPUS		32
#define NVD_MIG_MAX_GI			15	/* swizzIds 0..14: KMIGMGR_MAX_GPU_SWIZZID */
#define NVD_MIG_MAX_CI			8	/* KMIGMGR_MAX_COMPUTE_INSTANCES */
#define NVD_CAP_MINORS_PER_GI		(1 + NVD_MIG_MAX_CI)
#define NVD_CAP_MINORS_PER_GPU		(NVD_MIG_MAX_GI * NVD_CAP_MINORS_PER_GI)
#define NVD_CAP_MINOR_FABRIC_IMEX_MGMT	(NVD_CAP_MINOR_GPU_BASE + \
					 NVD_CAP_TABLE_GPUS * NVD_CAP_MINORS_PER_GPU)
/* The modes RM gives the cap files (OS_RUSR, OS_RUGO), printed in decimal. */
#define NVD_CAP_MODE_RUSR		0400
#define NVD_CAP_MODE_RUGO		0444
#define NVD_CAP_PROC_WRITE_BUF		128	/* NV_CAP_PROCFS_WRITE_BUF_SIZE */

/*
 * IMEX channels (kernel-open/nvidia/nv-caps-imex.c, from 550.40.53 in
 * tag order): a region "nvidia-caps-imex-channels" of NVreg_ImexChannelCount
 * minors (default 2048, 0 disables), the minor is the channel; channel0's
 * node is made by the driver only with NVreg_CreateImexChannel0=1 (a
 * parameter from 555.42.02, default 0).
 */
#define NVD_IMEX_DEFAULT_CHANNELS	2048
#define NVD_IMEX_MAX_CHANNELS		(1u << 20)	/* MINORBITS */

/* NVOS02 flags (nvos.h): MAPPING 31:30, ALLOC 17:16. */
#define NVOS02_FLAGS_MAPPING(f)		(((f) >> 30) & 0x3u)
#define NVOS02_FLAGS_MAPPING_NO_MAP	1u
#define NVOS02_FLAGS_ALLOC(f)		(((f) >> 16) & 0x3u)
#define NVOS02_FLAGS_ALLOC_NONE		1u
/* MAPPING 31:30 DEFAULT, ALLOC 17:16 default, PCI location. */
#define NVOS02_FLAGS_DEFAULT_MAPPED	0x00000000u

/* NVOS54 flags (nvos.h). */
#define NVOS54_FLAGS_IRQL_RAISED	0x1u
#define NVOS54_FLAGS_LOCK_BYPASS	0x2u

/* RM control commands the stand-in implements and the clients call (ctrl/ headers). */
#define NV0000_CTRL_CMD_SYSTEM_GET_BUILD_VERSION_V2	0x0000013eu
/*
 * Deprecated controls (interface/deprecated/rmapi_deprecated_control.c):
 * served before the method tables, the V1 params converted to the V2
 * control, with an embedded pointer the driver follows.  BIOS/BUS_GET_INFO:
 * V1 { NvU32 listSize; NvP64 list } (16 bytes, struct nvd_ctrl_info_list_v1),
 * a list of { NvU32 index, data } (8 bytes each, struct nvd_ctrl_info); V2
 * { NvU32 listSize; list[MAX] }.  GET_BUILD_VERSION: V1 { NvU32
 * sizeOfStrings; NvP64 driverVersion, version, title; NvU32 changelist,
 * officialChangelist } (struct nvd_ctrl_build_version_v1).
 */
#define NV0000_CTRL_CMD_SYSTEM_GET_BUILD_VERSION	0x00000101u
#define NV2080_CTRL_CMD_BIOS_GET_INFO		0x20800802u
#define NV2080_CTRL_CMD_BIOS_GET_INFO_V2	0x20800810u
#define NV2080_CTRL_BIOS_INFO_MAX_SIZE		15
#define NV2080_CTRL_CMD_BUS_GET_INFO		0x20801802u
#define NV2080_CTRL_CMD_BUS_GET_INFO_V2		0x20801823u
#define NV2080_CTRL_BUS_INFO_MAX_LIST_SIZE	52
#define NV_ERR_INVALID_PARAM_STRUCT		0x0000003au
#define NV_ERR_OUT_OF_RANGE			0x0000005bu
#define NVD_INFO_LIST_V1_SIZE			16
#define NVD_BUILD_VERSION_V1_SIZE		40
#define NV0000_CTRL_CMD_GPU_GET_ATTACHED_IDS		0x00000201u
#define NV0000_CTRL_CMD_GPU_GET_ID_INFO_V2		0x00000205u
#define NV0000_CTRL_CMD_GPU_GET_PROBED_IDS		0x00000214u
#define NV0000_CTRL_CMD_SYSTEM_GET_CPU_INFO		0x00000102u
#define NV0000_CTRL_CMD_SYSTEM_GET_P2P_CAPS		0x00000127u
#define NV0000_CTRL_CMD_SYSTEM_GET_P2P_CAPS_V2		0x0000012bu
#define NV0000_CTRL_CMD_SYSTEM_GET_FABRIC_STATUS	0x00000136u
#define NV0000_CTRL_CMD_SYSTEM_GET_P2P_CAPS_MATRIX	0x0000013au
#define NV0000_CTRL_CMD_SYSTEM_GET_FEATURES		0x000001f0u
#define NV0000_CTRL_CMD_GPU_GET_ID_INFO			0x00000202u
#define NV0000_CTRL_CMD_GPU_GET_DEVICE_IDS		0x00000204u
#define NV0000_CTRL_CMD_GPU_ATTACH_IDS			0x00000215u
#define NV0000_CTRL_CMD_GPU_DETACH_IDS			0x00000216u
#define NV0000_CTRL_CMD_GPU_GET_PCI_INFO		0x0000021bu
#define NV0000_CTRL_CMD_GPU_GET_UUID_FROM_GPU_ID	0x00000275u
#define NV0000_CTRL_CMD_GPU_QUERY_DRAIN_STATE		0x00000279u
#define NV0000_CTRL_CMD_GPU_GET_MEMOP_ENABLE		0x0000027bu
#define NV0000_CTRL_CMD_GPU_GET_ACTIVE_DEVICE_IDS	0x00000288u
#define NV0000_CTRL_CMD_GPU_ASYNC_ATTACH_ID		0x00000289u
#define NV0000_CTRL_CMD_GPU_WAIT_ATTACH_ID		0x00000290u
#define NV0000_CTRL_CMD_SYNC_GPU_BOOST_GROUP_INFO	0x00000a04u
#define NV0000_CTRL_CMD_CLIENT_GET_ADDR_SPACE_TYPE	0x00000d01u
#define NV0000_CTRL_CMD_CLIENT_SET_INHERITED_SHARE_POLICY 0x00000d04u
#define NV0000_CTRL_CMD_OS_UNIX_EXPORT_OBJECT_TO_FD	0x00003d05u
#define NV0000_CTRL_CMD_OS_UNIX_IMPORT_OBJECT_FROM_FD	0x00003d06u
#define NV0000_CTRL_CMD_OS_UNIX_GET_EXPORT_OBJECT_INFO	0x00003d08u
#define NV0000_CTRL_CMD_OS_UNIX_EXPORT_OBJECTS_TO_FD	0x00003d0bu
#define NV0000_CTRL_CMD_OS_UNIX_IMPORT_OBJECTS_FROM_FD	0x00003d0cu
#define NV0080_CTRL_CMD_GPU_GET_NUM_SUBDEVICES		0x00800280u
/*
 * GPU_GET_CLASSLIST (ctrl0080gpu.h): { NvU32 numClasses; NvP64 classList }
 * (16 bytes, struct nvd_ctrl_classlist), the list of NvU32 class numbers
 * copied by RM around the method (src/kernel/rmapi/embedded_param_copy.c):
 * a control whose params point to a list the driver copies itself.
 */
#define NV0080_CTRL_CMD_GPU_GET_CLASSLIST		0x00800201u
#define NVD_CLASSLIST_SIZE				16
/*
 * DEBUG_READ_MEMORY (ctrl83de/ctrl83dedebug.h): { NvHandle hMemory; NvU32
 * length; NvU64 offset; NvP64 buffer } (24 bytes), RM copying length bytes
 * back through buffer, bounded by nothing (DISABLE_MAX_SIZE_CHECK).
 */
#define NV83DE_CTRL_CMD_DEBUG_READ_MEMORY		0x83de0315u
#define NVD_DEBUG_READ_MEMORY_SIZE			24
#define NV2080_CTRL_CMD_GPU_GET_GID_INFO		0x2080014au
#define NV2080_CTRL_CMD_GPU_GET_PIDS			0x2080018du
#define NV2080_CTRL_CMD_EVENT_SET_NOTIFICATION		0x20800301u
#define NV2080_CTRL_CMD_EVENT_SET_TRIGGER		0x20800302u
/*
 * NV0000_CTRL_CMD_CLIENT_SUBSCRIBE_TO_IMEX_CHANNEL (ctrl0000client.h): from
 * 550.40.07, { NvU64 devDescriptor; NvU32 channel } (16 bytes) in every
 * release that has it.
 */
#define NV0000_CTRL_CMD_CLIENT_SUBSCRIBE_TO_IMEX_CHANNEL	0x00000d08u
/* MIG subscriptions' controls (ctrlc637.h, ctrlc638.h). */
#define NVC637_CTRL_CMD_EXEC_PARTITIONS_GET_ACTIVE_IDS	0xc6370104u
#define NVC637_CTRL_CMD_GET_UUID			0xc63701aau	/* from 550.40.07 */
#define NVC638_CTRL_CMD_GET_UUID			0xc6380101u
#define NVC637_UUID_STR_LEN				41	/* NV_MIG_DEVICE_UUID_STR_LENGTH */

#define NV0000_CTRL_GPU_MAX_ATTACHED_GPUS	32
#define NV0000_CTRL_GPU_INVALID_ID		0xffffffffu
#define NV2080_GPU_MAX_GID_LENGTH		256
#define NV2080_GPU_GID_FLAGS_FORMAT_BINARY	0x2u	/* FORMAT field 1:0 */
#define NV2080_NOTIFIERS_SW			0
#define NV2080_NOTIFIERS_MAXCOUNT		199
#define NV2080_EVENT_ACTION_DISABLE		0u
#define NV2080_EVENT_ACTION_SINGLE		1u
#define NV2080_EVENT_ACTION_REPEAT		2u
#define NV_BUILD_VERSION_V2_STRING		256

/* CHECK_VERSION_STR commands (kernel-open/common/inc/nv-ioctl.h). */
#define NV_RM_API_VERSION_CMD_STRICT		0
#define NV_RM_API_VERSION_CMD_RELAXED		'1'
#define NV_RM_API_VERSION_CMD_QUERY		'2'	/* "override" before 530.30.02 */
#define NV_RM_API_VERSION_REPLY_RECOGNIZED	1
#define NV_RM_API_VERSION_STRING_LENGTH		64

/* Payloads, x86_64 layouts. */
struct nvd_xfer {		/* nv_ioctl_xfer_t */
	nvd_u32 cmd;
	nvd_u32 size;
	nvd_u64 ptr;
};

struct nvd_card_info {		/* nv_ioctl_card_info_t */
	nvd_u8  valid;
	nvd_u8  pad0[3];
	nvd_u32 domain;		/* nv_pci_info_t starts here */
	nvd_u8  bus;
	nvd_u8  slot;
	nvd_u8  function;
	nvd_u8  pad1;
	nvd_u16 vendor_id;
	nvd_u16 device_id;
	nvd_u32 gpu_id;
	nvd_u16 interrupt_line;
	nvd_u8  pad2[2];
	nvd_u64 reg_address;
	nvd_u64 reg_size;
	nvd_u64 fb_address;
	nvd_u64 fb_size;
	nvd_u32 minor_number;
	nvd_u8  dev_name[10];
	nvd_u8  pad3[2];
};

struct nvd_os_event {		/* nv_ioctl_alloc_os_event_t, ..._free_... */
	nvd_u32 hClient;
	nvd_u32 hDevice;
	nvd_u32 fd;
	nvd_u32 Status;
};

struct nvd_version_str {	/* nv_ioctl_rm_api_version_t */
	nvd_u32 cmd;
	nvd_u32 reply;
	char    versionString[NV_RM_API_VERSION_STRING_LENGTH];
};

struct nvd_register_fd {	/* nv_ioctl_register_fd_t */
	nvd_s32 ctl_fd;
};

struct nvd_wait_open {		/* nv_ioctl_wait_open_complete_t */
	nvd_s32 rc;
	nvd_u32 adapterStatus;
};

struct nvd_os00 {		/* NVOS00_PARAMETERS: RM_FREE */
	nvd_u32 hRoot;
	nvd_u32 hObjectParent;
	nvd_u32 hObjectOld;
	nvd_u32 status;
};

struct nvd_os02_fd {		/* NVOS02_PARAMETERS + int fd: RM_ALLOC_MEMORY */
	nvd_u32 hRoot;
	nvd_u32 hObjectParent;
	nvd_u32 hObjectNew;
	nvd_u32 hClass;
	nvd_u32 flags;
	nvd_u32 pad0;
	nvd_u64 pMemory;
	nvd_u64 limit;
	nvd_u32 status;
	nvd_u32 pad1;
	nvd_s32 fd;
	nvd_u32 pad2;
};

struct nvd_os21 {		/* NVOS21_PARAMETERS: RM_ALLOC */
	nvd_u32 hRoot;
	nvd_u32 hObjectParent;
	nvd_u32 hObjectNew;
	nvd_u32 hClass;
	nvd_u64 pAllocParms;
	nvd_u32 paramsSize;
	nvd_u32 status;
};

struct nvd_os64 {		/* NVOS64_PARAMETERS: RM_ALLOC with access rights */
	nvd_u32 hRoot;
	nvd_u32 hObjectParent;
	nvd_u32 hObjectNew;
	nvd_u32 hClass;
	nvd_u64 pAllocParms;
	nvd_u64 pRightsRequested;
	nvd_u32 paramsSize;
	nvd_u32 flags;
	nvd_u32 status;
	nvd_u32 pad0;
};

/* NVOS32_PARAMETERS with data.AllocOsDesc, 184 bytes (nvos.h): RM_VID_HEAP_CONTROL. */
struct nvd_os32_osdesc {
	nvd_u32 hRoot;
	nvd_u32 hObjectParent;
	nvd_u32 function;
	nvd_u32 hVASpace;
	nvd_s16 ivcHeapNumber;
	nvd_u16 pad0;
	nvd_u32 status;
	nvd_u64 total;
	nvd_u64 free;
	nvd_u32 hMemory;
	nvd_u32 type;
	nvd_u32 flags;
	nvd_u32 attr;
	nvd_u32 attr2;
	nvd_u32 pad1;
	nvd_u64 descriptor;
	nvd_u64 limit;
	nvd_u32 descriptorType;
	nvd_u8  rest[184 - 84];
};

struct nvd_os33_fd {		/* NVOS33_PARAMETERS + int fd: RM_MAP_MEMORY */
	nvd_u32 hClient;
	nvd_u32 hDevice;
	nvd_u32 hMemory;
	nvd_u32 pad0;
	nvd_u64 offset;
	nvd_u64 length;
	nvd_u64 pLinearAddress;
	nvd_u32 status;
	nvd_u32 flags;
	nvd_s32 fd;
	nvd_u32 pad1;
};

struct nvd_os34 {		/* NVOS34_PARAMETERS: RM_UNMAP_MEMORY */
	nvd_u32 hClient;
	nvd_u32 hDevice;
	nvd_u32 hMemory;
	nvd_u32 pad0;
	nvd_u64 pLinearAddress;
	nvd_u32 status;
	nvd_u32 flags;
};

struct nvd_os41 {		/* NVOS41_PARAMETERS: RM_GET_EVENT_DATA */
	nvd_u64 pEvent;
	nvd_u32 MoreEvents;
	nvd_u32 status;
};

struct nvd_unix_event {		/* NvUnixEvent */
	nvd_u32 hObject;
	nvd_u32 NotifyIndex;
	nvd_u32 info32;
	nvd_u16 info16;
	nvd_u16 pad0;
};

struct nvd_os54 {		/* NVOS54_PARAMETERS: RM_CONTROL */
	nvd_u32 hClient;
	nvd_u32 hObject;
	nvd_u32 cmd;
	nvd_u32 flags;
	nvd_u64 params;
	nvd_u32 paramsSize;
	nvd_u32 status;
};

/* Alloc parameters (class/cl0080.h, cl2080.h, cl0005.h, nvos.h). */
struct nvd_alloc_0080 {		/* NV0080_ALLOC_PARAMETERS */
	nvd_u32 deviceId;
	nvd_u32 hClientShare;
	nvd_u32 hTargetClient;
	nvd_u32 hTargetDevice;
	nvd_u32 flags;
	nvd_u32 pad0;
	nvd_u64 vaSpaceSize;
	nvd_u64 vaStartInternal;
	nvd_u64 vaLimitInternal;
	nvd_u32 vaMode;
	nvd_u32 pad1;
};

struct nvd_alloc_2080 {		/* NV2080_ALLOC_PARAMETERS */
	nvd_u32 subDeviceId;
};

struct nvd_alloc_0005 {		/* NV0005_ALLOC_PARAMETERS */
	nvd_u32 hParentClient;
	nvd_u32 hSrcResource;
	nvd_u32 hClass;
	nvd_u32 notifyIndex;
	nvd_u64 data;
};

struct nvd_alloc_mem {		/* NV_MEMORY_ALLOCATION_PARAMS */
	nvd_u32 owner;
	nvd_u32 type;
	nvd_u32 flags;
	nvd_u32 width;
	nvd_u32 height;
	nvd_s32 pitch;
	nvd_u32 attr;
	nvd_u32 attr2;
	nvd_u32 format;
	nvd_u32 comprCovg;
	nvd_u32 zcullCovg;
	nvd_u32 pad0;
	nvd_u64 rangeLo;
	nvd_u64 rangeHi;
	nvd_u64 size;
	nvd_u64 alignment;
	nvd_u64 offset;
	nvd_u64 limit;
	nvd_u64 address;
	nvd_u32 ctagOffset;
	nvd_u32 hVASpace;
	nvd_u32 internalflags;
	nvd_u32 tag;
	nvd_s32 numaNode;
	nvd_u32 pad1;
};

/* MIG subscription and session alloc parameters (clc637.h .. clc640.h). */
struct nvd_alloc_c637 {		/* NVC637_ALLOCATION_PARAMETERS */
	nvd_u64 capDescriptor;	/* an fd, read as (int) */
	nvd_u32 swizzId;
	nvd_u32 pad0;
};

struct nvd_alloc_c638 {		/* NVC638_ALLOCATION_PARAMETERS */
	nvd_u64 capDescriptor;
	nvd_u32 execPartitionId;
	nvd_u32 pad0;
};

struct nvd_alloc_c639 {		/* NVC639_ and NVC640_ALLOCATION_PARAMETERS */
	nvd_u64 capDescriptor;
};

/* Control parameters (ctrl/ctrl0000, ctrl/ctrl0080, ctrl/ctrl2080 headers). */
struct nvd_ctrl_imex_subscribe {	/* NV0000_CTRL_CLIENT_SUBSCRIBE_TO_IMEX_CHANNEL_PARAMS */
	nvd_u64 devDescriptor;	/* an fd, read as (int) */
	nvd_u32 channel;
	nvd_u32 pad0;
};

struct nvd_ctrl_mig_uuid {		/* NVC637_ and NVC638_CTRL_GET_UUID_PARAMS */
	nvd_u8  uuid[16];
	char    uuidStr[NVC637_UUID_STR_LEN];
};

struct nvd_ctrl_active_ids {		/* NVC637_CTRL_EXEC_PARTITIONS_GET_ACTIVE_IDS_PARAMS */
	nvd_u32 execPartCount;
	nvd_u32 execPartId[NVD_MIG_MAX_CI];
	char    execPartUuid[NVD_MIG_MAX_CI][NVC637_UUID_STR_LEN];
};

/* The deprecated controls' V1 params (see above), and GPU_GET_CLASSLIST's. */
struct nvd_ctrl_build_version_v1 {	/* NV0000_CTRL_SYSTEM_GET_BUILD_VERSION_PARAMS */
	nvd_u32 sizeOfStrings;
	nvd_u32 pad;
	nvd_u64 pDriverVersionBuffer;
	nvd_u64 pVersionBuffer;
	nvd_u64 pTitleBuffer;
	nvd_u32 changelistNumber;
	nvd_u32 officialChangelistNumber;
};

struct nvd_ctrl_info {			/* NV2080_CTRL_BIOS_INFO, NV2080_CTRL_BUS_INFO */
	nvd_u32 index;
	nvd_u32 data;
};

struct nvd_ctrl_info_list_v1 {		/* NV2080_CTRL_BIOS/BUS_GET_INFO_PARAMS */
	nvd_u32 listSize;
	nvd_u32 pad;
	nvd_u64 list;
};

struct nvd_ctrl_classlist {		/* NV0080_CTRL_GPU_GET_CLASSLIST_PARAMS */
	nvd_u32 numClasses;
	nvd_u32 pad;
	nvd_u64 classList;
};

struct nvd_ctrl_attached_ids {	/* NV0000_CTRL_GPU_GET_ATTACHED_IDS_PARAMS */
	nvd_u32 gpuIds[NV0000_CTRL_GPU_MAX_ATTACHED_GPUS];
};

/*
 * NV0000_CTRL_GPU_GET_PROBED_IDS_PARAMS: gpuIds and excludedGpuIds of
 * NV_MAX_DEVICES (32) each; 580.142 has a third array, gpuFlags, 535.288.01
 * not (the release between that added it is not known here).
 */
struct nvd_ctrl_probed_ids {
	nvd_u32 gpuIds[32];
	nvd_u32 excludedGpuIds[32];
	nvd_u32 gpuFlags[32];
};
#define NVD_PROBED_IDS_SIZE_OLD		256

/*
 * NV0000_CTRL_SYSTEM_GET_CPU_INFO_PARAMS: 104 bytes at 535.288.01, 108 at
 * 580.142 (a flag at the end).
 */
struct nvd_ctrl_cpu_info {
	nvd_u32 type, capabilities, clock;
	nvd_u32 L1DataCacheSize, L2DataCacheSize, dataCacheLineSize;
	nvd_u32 numLogicalCpus, numPhysicalCpus;
	nvd_u8  name[52];
	nvd_u32 family, model;
	nvd_u8  stepping, pad0[3];
	nvd_u32 coresOnDie;
	nvd_u8  bCCEnabled, pad1[3];
	nvd_u8  bSelfHostedSoc, pad2[3];
};
#define NVD_CPU_INFO_SIZE_OLD		104

struct nvd_ctrl_id_info_v2 {	/* NV0000_CTRL_GPU_GET_ID_INFO_V2_PARAMS */
	nvd_u32 gpuId;
	nvd_u32 gpuFlags;
	nvd_u32 deviceInstance;
	nvd_u32 subDeviceInstance;
	nvd_u32 sliStatus;
	nvd_u32 boardId;
	nvd_u32 gpuInstance;
	nvd_s32 numaId;
};

/* NV0000_CTRL_GPU_GET_ID_INFO_PARAMS: V2's fields with a name pointer. */
struct nvd_ctrl_id_info {
	nvd_u32 gpuId;
	nvd_u32 gpuFlags;
	nvd_u32 deviceInstance;
	nvd_u32 subDeviceInstance;
	nvd_u64 szName;		/* never used by the driver */
	nvd_u32 sliStatus;
	nvd_u32 boardId;
	nvd_u32 gpuInstance;
	nvd_s32 numaId;
};

/*
 * The NV0000 system and GPU-manager controls that answer without a GPU,
 * from the ctrl0000 headers of 535.288.01, 580.142 and 595.45.04: where a
 * size differs, 535's is the _OLD one (the release between that changed it
 * is not known here; the stand-in takes the new one from 580).
 */
#define NVD_P2P_CAPS_SIZE		176	/* busPeerIds at 160, busEgmPeerIds at 168 */
#define NVD_P2P_CAPS_SIZE_OLD		168
#define NVD_P2P_CAPS_V2_SIZE		8348
#define NVD_P2P_CAPS_V2_SIZE_OLD	4252
#define NVD_P2P_CAPS_MATRIX_SIZE	1352	/* grpACount, grpBCount, gpuIdGrpA[8] at 8 */
#define NVD_EXPORT_INFO_SIZE		80
#define NVD_EXPORT_INFO_SIZE_OLD	76

struct nvd_ctrl_p2p_caps {		/* the head of P2P_CAPS and P2P_CAPS_V2 */
	nvd_u32 gpuIds[32];
	nvd_u32 gpuCount;
	nvd_u32 p2pCaps;
	nvd_u32 p2pOptimalReadCEs;
	nvd_u32 p2pOptimalWriteCEs;
	nvd_u8  p2pCapsStatus[9];
	nvd_u8  pad0[7];
	nvd_u64 busPeerIds;	/* P2P_CAPS only: pointers */
	nvd_u64 busEgmPeerIds;	/* from 580 */
};

struct nvd_ctrl_gpu_ids {		/* ATTACH_IDS, DETACH_IDS (ATTACH_IDS adds failedId) */
	nvd_u32 gpuIds[32];
};
#define NV0000_CTRL_GPU_ATTACH_ALL_PROBED_IDS	0x0000ffffu

struct nvd_ctrl_pci_info {		/* NV0000_CTRL_GPU_GET_PCI_INFO_PARAMS */
	nvd_u32 gpuId;
	nvd_u32 domain;
	nvd_u16 bus;
	nvd_u16 slot;
};

struct nvd_ctrl_drain_state {		/* NV0000_CTRL_GPU_QUERY_DRAIN_STATE_PARAMS */
	nvd_u32 gpuId;
	nvd_u32 drainState;
	nvd_u32 flags;
};

struct nvd_ctrl_addr_space_type {	/* NV0000_CTRL_CLIENT_GET_ADDR_SPACE_TYPE_PARAMS */
	nvd_u32 hObject;
	nvd_u32 mapFlags;
	nvd_u32 addrSpaceType;
};

struct nvd_ctrl_share_policy {		/* NV0000_CTRL_CLIENT_SET_INHERITED_SHARE_POLICY_PARAMS */
	nvd_u32 target;
	nvd_u32 accessMask;
	nvd_u16 type;
	nvd_u8  action;
	nvd_u8  pad0;
};
#define NVD_SHARE_TYPE_CLIENT		3
#define NVD_SHARE_TYPE_MAX		8
#define NVD_SHARE_ACTION_REVOKE		0x1

/* OS_UNIX_*: the fields checked before any object is exported or imported. */
struct nvd_ctrl_export_object {		/* EXPORT_OBJECT_TO_FD */
	nvd_u32 type;		/* 1: an RM object */
	nvd_u32 hDevice, hParent, hObject;
	nvd_s32 fd;
	nvd_u32 flags;		/* bit 0: EMPTY_FD */
};

struct nvd_ctrl_import_object {		/* IMPORT_OBJECT_FROM_FD */
	nvd_s32 fd;
	nvd_u32 type;
	nvd_u32 hDevice, hParent, hObject;
};

struct nvd_ctrl_export_objects {	/* EXPORT_OBJECTS_TO_FD: the head */
	nvd_s32 fd;
	nvd_u32 hDevice;
	nvd_u16 maxObjects;
};
#define NVD_EXPORT_OBJECTS_SIZE		2128
#define NVD_IMPORT_OBJECTS_SIZE		652

struct nvd_ctrl_num_subdevices { /* NV0080_CTRL_GPU_GET_NUM_SUBDEVICES_PARAMS */
	nvd_u32 numSubDevices;
};

struct nvd_ctrl_gid_info {	/* NV2080_CTRL_GPU_GET_GID_INFO_PARAMS */
	nvd_u32 index;
	nvd_u32 flags;
	nvd_u32 length;
	nvd_u8  data[NV2080_GPU_MAX_GID_LENGTH];
};

/* NV2080_CTRL_GPU_GET_PIDS_PARAMS (ctrl2080gpu.h): 3812 bytes in every release. */
#define NV2080_CTRL_GPU_GET_PIDS_MAX_COUNT	950
#define NV2080_CTRL_GPU_GET_PIDS_ID_TYPE_CLASS	0

struct nvd_ctrl_get_pids {
	nvd_u32 idType;
	nvd_u32 id;
	nvd_u32 pidTblCount;
	nvd_u32 pidTbl[NV2080_CTRL_GPU_GET_PIDS_MAX_COUNT];
};

struct nvd_ctrl_set_notification { /* NV2080_CTRL_EVENT_SET_NOTIFICATION_PARAMS */
	nvd_u32 event;
	nvd_u32 action;
	nvd_u8  bNotifyState;
	nvd_u8  pad0[3];
	nvd_u32 info32;
	nvd_u16 info16;
	nvd_u8  pad1[2];
};

/*
 * NV0000_CTRL_SYSTEM_GET_BUILD_VERSION_V2_PARAMS: four 256-byte strings and
 * two u32 from 560.28.03 (driverBranch added as the third string): 1032
 * bytes; three strings before: 776.  The stand-in builds it by offset
 * (nvs_rm.c).
 */
#define NVD_BUILD_VERSION_V2_SIZE_OLD	(3 * NV_BUILD_VERSION_V2_STRING + 8)
#define NVD_BUILD_VERSION_V2_SIZE_NEW	(4 * NV_BUILD_VERSION_V2_STRING + 8)

/* UVM (kernel-open/nvidia-uvm/uvm_ioctl.h, uvm_linux_ioctl.h): plain numbers. */
#define UVM_INITIALIZE			0x30000001u
#define UVM_DEINITIALIZE		0x30000002u
#define UVM_REGISTER_GPU		37u
#define UVM_UNREGISTER_GPU		38u
#define UVM_PAGEABLE_MEM_ACCESS		39u
#define UVM_MM_INITIALIZE		75u

struct nvd_uvm_initialize {	/* UVM_INITIALIZE_PARAMS */
	nvd_u64 flags;
	nvd_u32 rmStatus;
	nvd_u32 pad0;
};

struct nvd_uvm_register_gpu {	/* UVM_REGISTER_GPU_PARAMS */
	nvd_u8  gpu_uuid[16];
	nvd_u8  numaEnabled;
	nvd_u8  pad0[3];
	nvd_s32 numaNodeId;
	nvd_s32 rmCtrlFd;
	nvd_u32 hClient;
	nvd_u32 hSmcPartRef;
	nvd_u32 rmStatus;
};

struct nvd_uvm_unregister_gpu {	/* UVM_UNREGISTER_GPU_PARAMS */
	nvd_u8  gpu_uuid[16];
	nvd_u32 rmStatus;
};

struct nvd_uvm_pageable_mem_access { /* UVM_PAGEABLE_MEM_ACCESS_PARAMS */
	nvd_u8  pageableMemAccess;
	nvd_u8  pad0[3];
	nvd_u32 rmStatus;
};

struct nvd_uvm_mm_initialize {	/* UVM_MM_INITIALIZE_PARAMS */
	nvd_s32 uvmFd;
	nvd_u32 rmStatus;
};

/* Layout checks against the sizes in the facts file. */
NVD_CHECK(sizeof(struct nvd_xfer) == 16);
NVD_CHECK(sizeof(struct nvd_card_info) == 72);
NVD_CHECK(offsetof(struct nvd_card_info, gpu_id) == 16);
NVD_CHECK(offsetof(struct nvd_card_info, minor_number) == 56);
NVD_CHECK(sizeof(struct nvd_os_event) == 16);
NVD_CHECK(sizeof(struct nvd_version_str) == 72);
NVD_CHECK(sizeof(struct nvd_register_fd) == 4);
NVD_CHECK(sizeof(struct nvd_wait_open) == 8);
NVD_CHECK(sizeof(struct nvd_os00) == 16);
NVD_CHECK(sizeof(struct nvd_os02_fd) == 56);
NVD_CHECK(offsetof(struct nvd_os02_fd, status) == 40);
NVD_CHECK(offsetof(struct nvd_os02_fd, fd) == 48);
NVD_CHECK(sizeof(struct nvd_os21) == 32);
NVD_CHECK(offsetof(struct nvd_os21, status) == 28);
NVD_CHECK(sizeof(struct nvd_os64) == 48);
NVD_CHECK(offsetof(struct nvd_os64, paramsSize) == 32);
NVD_CHECK(offsetof(struct nvd_os64, status) == 40);
NVD_CHECK(sizeof(struct nvd_os32_osdesc) == 184);
NVD_CHECK(sizeof(struct nvd_os33_fd) == 56);
NVD_CHECK(offsetof(struct nvd_os33_fd, status) == 40);
NVD_CHECK(offsetof(struct nvd_os33_fd, fd) == 48);
NVD_CHECK(sizeof(struct nvd_os34) == 32);
NVD_CHECK(sizeof(struct nvd_os41) == 16);
NVD_CHECK(sizeof(struct nvd_unix_event) == 16);
NVD_CHECK(sizeof(struct nvd_os54) == 32);
NVD_CHECK(offsetof(struct nvd_os54, status) == 28);
NVD_CHECK(sizeof(struct nvd_alloc_0080) == 56);
NVD_CHECK(sizeof(struct nvd_alloc_2080) == 4);
NVD_CHECK(sizeof(struct nvd_alloc_0005) == 24);
NVD_CHECK(sizeof(struct nvd_alloc_mem) == 128);
NVD_CHECK(offsetof(struct nvd_alloc_mem, size) == 64);
NVD_CHECK(offsetof(struct nvd_alloc_mem, limit) == 88);
NVD_CHECK(sizeof(struct nvd_alloc_c637) == 16);
NVD_CHECK(sizeof(struct nvd_alloc_c638) == 16);
NVD_CHECK(sizeof(struct nvd_alloc_c639) == 8);
NVD_CHECK(sizeof(struct nvd_ctrl_imex_subscribe) == 16);
NVD_CHECK(sizeof(struct nvd_ctrl_mig_uuid) == 57);
NVD_CHECK(sizeof(struct nvd_ctrl_active_ids) == 364);
NVD_CHECK(NVD_CAP_MINOR_FABRIC_IMEX_MGMT == 4323);
NVD_CHECK(sizeof(struct nvd_ctrl_build_version_v1) == NVD_BUILD_VERSION_V1_SIZE);
NVD_CHECK(sizeof(struct nvd_ctrl_info) == 8);
NVD_CHECK(sizeof(struct nvd_ctrl_info_list_v1) == NVD_INFO_LIST_V1_SIZE);
NVD_CHECK(sizeof(struct nvd_ctrl_classlist) == NVD_CLASSLIST_SIZE);
NVD_CHECK(sizeof(struct nvd_ctrl_attached_ids) == 128);
NVD_CHECK(sizeof(struct nvd_ctrl_id_info_v2) == 32);
NVD_CHECK(sizeof(struct nvd_ctrl_probed_ids) == 384);
NVD_CHECK(sizeof(struct nvd_ctrl_cpu_info) == 108);
NVD_CHECK(sizeof(struct nvd_ctrl_id_info) == 40);
NVD_CHECK(sizeof(struct nvd_ctrl_p2p_caps) == NVD_P2P_CAPS_SIZE);
NVD_CHECK(offsetof(struct nvd_ctrl_p2p_caps, busPeerIds) == 160);
NVD_CHECK(sizeof(struct nvd_ctrl_pci_info) == 12);
NVD_CHECK(sizeof(struct nvd_ctrl_drain_state) == 12);
NVD_CHECK(sizeof(struct nvd_ctrl_addr_space_type) == 12);
NVD_CHECK(sizeof(struct nvd_ctrl_share_policy) == 12);
NVD_CHECK(sizeof(struct nvd_ctrl_export_object) == 24);
NVD_CHECK(sizeof(struct nvd_ctrl_import_object) == 20);
NVD_CHECK(sizeof(struct nvd_ctrl_num_subdevices) == 4);
NVD_CHECK(sizeof(struct nvd_ctrl_gid_info) == 268);
NVD_CHECK(sizeof(struct nvd_ctrl_get_pids) == 3812);
NVD_CHECK(sizeof(struct nvd_ctrl_set_notification) == 20);
NVD_CHECK(NVD_BUILD_VERSION_V2_SIZE_OLD == 776);
NVD_CHECK(NVD_BUILD_VERSION_V2_SIZE_NEW == 1032);
NVD_CHECK(sizeof(struct nvd_uvm_initialize) == 16);
NVD_CHECK(sizeof(struct nvd_uvm_register_gpu) == 40);
NVD_CHECK(offsetof(struct nvd_uvm_register_gpu, rmCtrlFd) == 24);
NVD_CHECK(sizeof(struct nvd_uvm_unregister_gpu) == 20);
NVD_CHECK(sizeof(struct nvd_uvm_pageable_mem_access) == 8);
NVD_CHECK(sizeof(struct nvd_uvm_mm_initialize) == 8);

#endif /* NVDRV_H */
