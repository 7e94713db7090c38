/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The NVIDIA driver's user-space ABI as the guest test clients use it:
 * escape numbers, payload layouts (x86_64), classes, controls, statuses, UVM
 * commands.  Facts from NVIDIA's open-gpu-kernel-modules at 595.45.04,
 * written down here on their own, independent of the mediator's tables.
 */
#ifndef NVSTRUCT_H
#define NVSTRUCT_H

#include <stddef.h>
#include <stdint.h>
#include <sys/ioctl.h>

/* An escape: _IOWR('F', nr, size); the driver looks at nr and size only. */
#define NV_IOCTL_MAGIC		'F'
#define NV_IOC(nr, size)	_IOC(_IOC_READ | _IOC_WRITE, NV_IOCTL_MAGIC, (nr), (size))

/* kernel-open/common/inc/nv-ioctl-numbers.h */
#define NV_ESC_CARD_INFO		0xc8
#define NV_ESC_REGISTER_FD		0xc9
#define NV_ESC_ALLOC_OS_EVENT		0xce
#define NV_ESC_FREE_OS_EVENT		0xcf
#define NV_ESC_CHECK_VERSION_STR	0xd2
#define NV_ESC_IOCTL_XFER_CMD		0xd3
#define NV_ESC_WAIT_OPEN_COMPLETE	0xda

/* src/nvidia/arch/nvalloc/unix/include/nv_escape.h */
#define NV_ESC_RM_ALLOC_MEMORY		0x27
#define NV_ESC_RM_FREE			0x29
#define NV_ESC_RM_CONTROL		0x2a
#define NV_ESC_RM_ALLOC			0x2b
#define NV_ESC_RM_MAP_MEMORY		0x4e
#define NV_ESC_RM_UNMAP_MEMORY		0x4f
#define NV_ESC_RM_GET_EVENT_DATA	0x52

/* nvstatuscodes.h */
#define NV_OK				0x00
#define NV_ERR_GPU_UUID_NOT_FOUND	0x12
#define NV_ERR_ILLEGAL_ACTION		0x16
#define NV_ERR_IN_USE			0x17
#define NV_ERR_INSUFFICIENT_PERMISSIONS	0x1b
#define NV_ERR_INVALID_ARGUMENT		0x1f
#define NV_ERR_INVALID_CLASS		0x22
#define NV_ERR_INVALID_CLIENT		0x23
#define NV_ERR_INVALID_OBJECT_HANDLE	0x33
#define NV_ERR_NOT_SUPPORTED		0x56
#define NV_ERR_OBJECT_NOT_FOUND		0x57
#define NV_ERR_OPERATING_SYSTEM		0x59
#define NV_ERR_STATE_IN_USE		0x63

/* Classes (nvos.h, class/ headers). */
#define NV01_ROOT			0x00
#define NV01_ROOT_CLIENT		0x41
#define NV01_MEMORY_SYSTEM		0x3e
#define NV01_EVENT_KERNEL_CALLBACK	0x78
#define NV01_EVENT_OS_EVENT		0x79
#define NV01_DEVICE_0			0x80
#define NV20_SUBDEVICE_0		0x2080

/* Controls (ctrl/ headers). */
#define NV0000_CTRL_CMD_SYSTEM_GET_BUILD_VERSION_V2	0x0000013eu
#define NV0000_CTRL_CMD_GPU_GET_ATTACHED_IDS		0x00000201u
#define NV0000_CTRL_CMD_GPU_GET_ID_INFO_V2		0x00000205u
#define NV0080_CTRL_CMD_GPU_GET_NUM_SUBDEVICES		0x00800280u
#define NV2080_CTRL_CMD_GPU_GET_GID_INFO		0x2080014au
#define NV2080_CTRL_CMD_EVENT_SET_NOTIFICATION		0x20800301u
#define NV2080_CTRL_CMD_EVENT_SET_TRIGGER		0x20800302u
#define NV2080_EVENT_ACTION_SINGLE			1
#define NV2080_NOTIFIERS_SW				0

/* CHECK_VERSION_STR commands. */
#define NV_RM_API_VERSION_CMD_STRICT	0
#define NV_RM_API_VERSION_CMD_QUERY	'2'

/* NVOS02 flags: MAPPING 31:30 DEFAULT, ALLOC 17:16 default, PCI location. */
#define NVOS02_FLAGS_DEFAULT_MAPPED	0x00000000u

struct nv_xfer {			/* nv_ioctl_xfer_t */
	uint32_t cmd;
	uint32_t size;
	uint64_t ptr;
};

struct nv_card_info {			/* nv_ioctl_card_info_t, 72 bytes */
	uint8_t  valid;
	uint8_t  pad0[3];
	uint32_t domain;
	uint8_t  bus, slot, function, pad1;
	uint16_t vendor_id, device_id;
	uint32_t gpu_id;
	uint16_t interrupt_line;
	uint8_t  pad2[2];
	uint64_t reg_address, reg_size, fb_address, fb_size;
	uint32_t minor_number;
	uint8_t  dev_name[10];
	uint8_t  pad3[2];
};

struct nv_os_event {			/* nv_ioctl_alloc_os_event_t */
	uint32_t hClient, hDevice, fd, Status;
};

struct nv_version_str {			/* nv_ioctl_rm_api_version_t */
	uint32_t cmd;
	uint32_t reply;
	char versionString[64];
};

struct nv_register_fd {			/* nv_ioctl_register_fd_t */
	int32_t ctl_fd;
};

struct nv_wait_open {			/* nv_ioctl_wait_open_complete_t */
	int32_t rc;
	uint32_t adapterStatus;
};

struct nvos00 {				/* RM_FREE */
	uint32_t hRoot, hObjectParent, hObjectOld, status;
};

struct nvos02_fd {			/* RM_ALLOC_MEMORY: NVOS02 + fd */
	uint32_t hRoot, hObjectParent, hObjectNew, hClass, flags, pad0;
	uint64_t pMemory;
	uint64_t limit;
	uint32_t status, pad1;
	int32_t  fd;
	uint32_t pad2;
};

struct nvos21 {				/* RM_ALLOC */
	uint32_t hRoot, hObjectParent, hObjectNew, hClass;
	uint64_t pAllocParms;
	uint32_t paramsSize, status;
};

struct nvos64 {				/* RM_ALLOC with access rights */
	uint32_t hRoot, hObjectParent, hObjectNew, hClass;
	uint64_t pAllocParms;
	uint64_t pRightsRequested;
	uint32_t paramsSize, flags, status, pad0;
};

struct nvos33_fd {			/* RM_MAP_MEMORY: NVOS33 + fd */
	uint32_t hClient, hDevice, hMemory, pad0;
	uint64_t offset, length, pLinearAddress;
	uint32_t status, flags;
	int32_t  fd;
	uint32_t pad1;
};

struct nvos34 {				/* RM_UNMAP_MEMORY */
	uint32_t hClient, hDevice, hMemory, pad0;
	uint64_t pLinearAddress;
	uint32_t status, flags;
};

struct nvos41 {				/* RM_GET_EVENT_DATA */
	uint64_t pEvent;
	uint32_t MoreEvents, status;
};

struct nv_unix_event {			/* NvUnixEvent */
	uint32_t hObject, NotifyIndex, info32;
	uint16_t info16, pad0;
};

struct nvos54 {				/* RM_CONTROL */
	uint32_t hClient, hObject, cmd, flags;
	uint64_t params;
	uint32_t paramsSize, status;
};

struct nv0080_alloc {			/* NV0080_ALLOC_PARAMETERS */
	uint32_t deviceId, hClientShare, hTargetClient, hTargetDevice, flags, pad0;
	uint64_t vaSpaceSize, vaStartInternal, vaLimitInternal;
	uint32_t vaMode, pad1;
};

struct nv2080_alloc {			/* NV2080_ALLOC_PARAMETERS */
	uint32_t subDeviceId;
};

struct nv0005_alloc {			/* NV0005_ALLOC_PARAMETERS */
	uint32_t hParentClient, hSrcResource, hClass, notifyIndex;
	uint64_t data;
};

struct nv_attached_ids {		/* NV0000_CTRL_GPU_GET_ATTACHED_IDS_PARAMS */
	uint32_t gpuIds[32];
};

struct nv_id_info_v2 {			/* NV0000_CTRL_GPU_GET_ID_INFO_V2_PARAMS */
	uint32_t gpuId, gpuFlags, deviceInstance, subDeviceInstance;
	uint32_t sliStatus, boardId, gpuInstance;
	int32_t  numaId;
};

struct nv_num_subdevices {		/* NV0080_CTRL_GPU_GET_NUM_SUBDEVICES_PARAMS */
	uint32_t numSubDevices;
};

struct nv_gid_info {			/* NV2080_CTRL_GPU_GET_GID_INFO_PARAMS */
	uint32_t index, flags, length;
	uint8_t  data[256];
};

struct nv_set_notification {		/* NV2080_CTRL_EVENT_SET_NOTIFICATION_PARAMS */
	uint32_t event, action;
	uint8_t  bNotifyState, pad0[3];
	uint32_t info32;
	uint16_t info16;
	uint8_t  pad1[2];
};

/*
 * Deprecated controls the driver converts to their V2 (rmapi_deprecated_
 * control.c), with an embedded pointer it follows.
 */
#define NV0000_CTRL_CMD_SYSTEM_GET_BUILD_VERSION	0x00000101u
#define NV2080_CTRL_CMD_BIOS_GET_INFO		0x20800802u
#define NV2080_CTRL_CMD_BUS_GET_INFO		0x20801802u
#define NV2080_CTRL_BUS_INFO_MAX_LIST_SIZE	52
#define NV_ERR_OUT_OF_RANGE			0x5bu

/*
 * A control whose params point to a list the driver copies itself around
 * the method (src/kernel/rmapi/embedded_param_copy.c).
 */
#define NV0080_CTRL_CMD_GPU_GET_CLASSLIST	0x00800201u
#define NV_ERR_INVALID_PARAM_STRUCT		0x3au

struct nv_classlist {			/* NV0080_CTRL_GPU_GET_CLASSLIST_PARAMS */
	uint32_t numClasses;
	uint32_t pad;
	uint64_t classList;
};

struct nv_build_version_v1 {		/* NV0000_CTRL_SYSTEM_GET_BUILD_VERSION_PARAMS */
	uint32_t sizeOfStrings;
	uint32_t pad;
	uint64_t pDriverVersionBuffer;
	uint64_t pVersionBuffer;
	uint64_t pTitleBuffer;
	uint32_t changelistNumber;
	uint32_t officialChangelistNumber;
};

struct nv_info {			/* NV2080_CTRL_BIOS_INFO, NV2080_CTRL_BUS_INFO */
	uint32_t index;
	uint32_t data;
};

struct nv_info_list_v1 {		/* NV2080_CTRL_BIOS/BUS_GET_INFO_PARAMS */
	uint32_t listSize;
	uint32_t pad;
	uint64_t list;
};

/* NV0000_CTRL_SYSTEM_GET_BUILD_VERSION_V2_PARAMS: 1032 bytes from 560.28.03, 776 before. */
#define NV_BUILD_VERSION_V2_SIZE_NEW	1032
#define NV_BUILD_VERSION_V2_SIZE_OLD	776

/* UVM (kernel-open/nvidia-uvm/uvm_ioctl.h, uvm_linux_ioctl.h): plain numbers. */
#define UVM_INITIALIZE		0x30000001u
#define UVM_DEINITIALIZE	0x30000002u
#define UVM_REGISTER_GPU	37u
#define UVM_UNREGISTER_GPU	38u
#define UVM_MM_INITIALIZE	75u

struct uvm_initialize {
	uint64_t flags;
	uint32_t rmStatus, pad0;
};

struct uvm_register_gpu {
	uint8_t  gpu_uuid[16];
	uint8_t  numaEnabled, pad0[3];
	int32_t  numaNodeId;
	int32_t  rmCtrlFd;
	uint32_t hClient, hSmcPartRef, rmStatus;
};

struct uvm_unregister_gpu {
	uint8_t  gpu_uuid[16];
	uint32_t rmStatus;
};

struct uvm_mm_initialize {
	int32_t  uvmFd;
	uint32_t rmStatus;
};

#define NVS_CHECK(cond) _Static_assert(cond, #cond)
NVS_CHECK(sizeof(struct nv_xfer) == 16);
NVS_CHECK(sizeof(struct nv_card_info) == 72);
NVS_CHECK(offsetof(struct nv_card_info, minor_number) == 56);
NVS_CHECK(sizeof(struct nv_os_event) == 16);
NVS_CHECK(sizeof(struct nv_version_str) == 72);
NVS_CHECK(sizeof(struct nvos00) == 16);
NVS_CHECK(sizeof(struct nvos02_fd) == 56);
NVS_CHECK(offsetof(struct nvos02_fd, fd) == 48);
NVS_CHECK(sizeof(struct nvos21) == 32);
NVS_CHECK(sizeof(struct nvos64) == 48);
NVS_CHECK(sizeof(struct nvos33_fd) == 56);
NVS_CHECK(offsetof(struct nvos33_fd, fd) == 48);
NVS_CHECK(sizeof(struct nvos34) == 32);
NVS_CHECK(sizeof(struct nvos41) == 16);
NVS_CHECK(sizeof(struct nvos54) == 32);
NVS_CHECK(sizeof(struct nv0080_alloc) == 56);
NVS_CHECK(sizeof(struct nv0005_alloc) == 24);
NVS_CHECK(sizeof(struct nv_gid_info) == 268);
NVS_CHECK(sizeof(struct nv_build_version_v1) == 40);
NVS_CHECK(sizeof(struct nv_info_list_v1) == 16);
NVS_CHECK(sizeof(struct nv_set_notification) == 20);
NVS_CHECK(sizeof(struct uvm_initialize) == 16);
NVS_CHECK(sizeof(struct uvm_register_gpu) == 40);
NVS_CHECK(offsetof(struct uvm_register_gpu, rmCtrlFd) == 24);
NVS_CHECK(sizeof(struct uvm_unregister_gpu) == 20);
NVS_CHECK(sizeof(struct uvm_mm_initialize) == 8);

#endif /* NVSTRUCT_H */
