#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# Synthetic source trees for the nvabi tests: small, written from scratch, laid
# out like open-gpu-kernel-modules (the same paths, the same shape of method
# table, resource list and dispatch code), so nvabi reads them as it reads a
# real release.
#
#   fixture_tree DIR VERSION [FEATURE...]
#
# Features change the base ABI:
#   resize    a control's params grow (8 -> 16 bytes)
#   relayout  NVOS21_PARAMETERS keeps 32 bytes, status moves from 24 to 28
#   addctl    a control is added
#   dropctl   a control is removed
#   reuse     0x20800120 now takes the params 0x20800121 took; 0x20800121 goes
#   ptr       a params struct turns a NvU64 into a NvP64 (same size)
#   fd        a params struct gains an fd field (same size)
#   early     nv.c checks sizes up front, in a table (as 595.44 does)
#   emb       RM copies lists the params of two controls point to
#             (embedded_param_copy.c): a count field, a helper, and a case
#             under an #ifdef the build does not define
#   embbad    ... and one more case whose count nvabi cannot read
#   caps      the driver looks FIX_CHANNEL's capDescriptor up as a capability
#             node of nvidia-caps (as a class that subscribes to a MIG
#             instance does) and, with fd, NV2080_CTRL_FIX_FD_PARAMS' memFd
#             as an IMEX channel; and closes a duplicate of its own
#   capsbad   ... and passes osRmCapAcquire() a descriptor nvabi cannot follow
#   bad       a header no longer compiles

fixture_has() {
	_w=$1
	shift
	for _f in "$@"; do
		[ "$_f" = "$_w" ] && return 0
	done
	return 1
}

fixture_tree() {
	d=$1
	v=$2
	shift 2
	mkdir -p "$d/src/common/sdk/nvidia/inc/ctrl" "$d/src/nvidia/generated" \
		"$d/src/nvidia/inc/libraries/nvoc" "$d/src/nvidia/inc/kernel/rmapi" \
		"$d/src/nvidia/src/kernel/rmapi" "$d/src/nvidia/arch/nvalloc/unix/include" \
		"$d/src/nvidia/arch/nvalloc/unix/src" "$d/kernel-open/common/inc" \
		"$d/kernel-open/nvidia" "$d/kernel-open/nvidia-uvm"

	printf 'NVIDIA_VERSION = %s\n' "$v" >"$d/version.mk"

	cat >"$d/src/common/sdk/nvidia/inc/nvtypes.h" <<'EOF'
/* fixture: basic types */
#ifndef FIX_NVTYPES_H
#define FIX_NVTYPES_H
typedef unsigned char NvU8;
typedef unsigned short NvU16;
typedef unsigned int NvU32;
typedef unsigned long long NvU64;
typedef int NvS32;
typedef NvU8 NvBool;
typedef NvU32 NvHandle;
typedef NvU32 NvV32;
typedef NvU32 NV_STATUS;
typedef void *NvP64;
#define NV_ALIGN_BYTES(n) __attribute__((aligned(n)))
#endif
EOF
	cp "$d/src/common/sdk/nvidia/inc/nvtypes.h" "$d/kernel-open/common/inc/nvtypes.h"
	: >"$d/src/common/sdk/nvidia/inc/cpuopsys.h"

	if fixture_has relayout "$@"; then
		nvos21='    NvP64 pAllocParms NV_ALIGN_BYTES(8);
    NvU32 paramsSize;
    NvV32 status;'
	else
		nvos21='    NvP64 pAllocParms NV_ALIGN_BYTES(8);
    NvV32 status;'
	fi
	cat >"$d/src/common/sdk/nvidia/inc/nvos.h" <<EOF
/* fixture: RM entry point parameters */
#ifndef FIX_NVOS_H
#define FIX_NVOS_H
#include "nvtypes.h"
typedef struct {
    NvHandle hRoot;
    NvHandle hObjectParent;
    NvHandle hObjectNew;
    NvV32 hClass;
$nvos21
} NVOS21_PARAMETERS;
typedef struct {
    NvHandle hRoot;
    NvHandle hObjectParent;
    NvHandle hObjectNew;
    NvV32 hClass;
    NvP64 pAllocParms NV_ALIGN_BYTES(8);
    NvP64 pRightsRequested NV_ALIGN_BYTES(8);
    NvU32 paramsSize;
    NvU32 flags;
    NvV32 status;
} NVOS64_PARAMETERS;
typedef struct {
    NvHandle hClient;
    NvHandle hObject;
    NvV32 cmd;
    NvU32 flags;
    NvP64 params NV_ALIGN_BYTES(8);
    NvU32 paramsSize;
    NvV32 status;
} NVOS54_PARAMETERS;
typedef struct {
    NvHandle hRoot;
    NvHandle hObjectParent;
    NvHandle hObjectNew;
    NvV32 hClass;
    NvV32 flags;
    NvP64 pMemory NV_ALIGN_BYTES(8);
    NvU64 limit NV_ALIGN_BYTES(8);
    NvV32 status;
} NVOS02_PARAMETERS;
EOF
	if fixture_has bad "$@"; then
		echo 'typedef struct { NvUndeclaredType broken; } NVOS_BROKEN;' >>"$d/src/common/sdk/nvidia/inc/nvos.h"
	fi
	echo '#endif' >>"$d/src/common/sdk/nvidia/inc/nvos.h"

	if fixture_has resize "$@"; then
		info='    NvU32 a;
    NvU32 b;
    NvU32 c[2];'
	else
		info='    NvU32 a;
    NvU32 b;'
	fi
	if fixture_has ptr "$@"; then
		ptrf='    NvP64 data NV_ALIGN_BYTES(8);'
	else
		ptrf='    NvU64 data NV_ALIGN_BYTES(8);'
	fi
	if fixture_has fd "$@"; then
		fdf='    NvS32 memFd;'
	else
		fdf='    NvU32 rsvd;'
	fi
	cat >"$d/src/common/sdk/nvidia/inc/ctrl/ctrl2080fix.h" <<EOF
/* fixture: control params */
#ifndef FIX_CTRL2080_H
#define FIX_CTRL2080_H
#include "nvtypes.h"
typedef struct NV2080_CTRL_FIX_GET_INFO_PARAMS {
$info
} NV2080_CTRL_FIX_GET_INFO_PARAMS;
typedef struct NV2080_CTRL_FIX_SET_PARAMS {
    NvU32 x;
    NvU32 y;
    NvU64 z NV_ALIGN_BYTES(8);
} NV2080_CTRL_FIX_SET_PARAMS;
typedef struct NV2080_CTRL_FIX_OLD_PARAMS {
    NvU32 old;
} NV2080_CTRL_FIX_OLD_PARAMS;
#define NV2080_CTRL_CMD_FIX_SET 0x20800102u
#define NV2080_CTRL_CMD_FIX_PTR 0x20800110u
#define NV2080_CTRL_CMD_FIX_FD 0x20800111u
typedef struct NV2080_CTRL_FIX_PTR_PARAMS {
    NvU32 count;
    NvU32 pad;
$ptrf
} NV2080_CTRL_FIX_PTR_PARAMS;
typedef struct NV2080_CTRL_FIX_FD_PARAMS {
    NvU32 flags;
$fdf
} NV2080_CTRL_FIX_FD_PARAMS;
typedef struct NV2080_CTRL_FIX_INFOROM_PARAMS {
    NvBool supported;
} NV2080_CTRL_FIX_INFOROM_PARAMS;
typedef struct NV2080_CTRL_FIX_ENCRYPTION_PARAMS {
    NvU32 status;
    NvU32 mode;
} NV2080_CTRL_FIX_ENCRYPTION_PARAMS;
typedef struct NV2080_CTRL_FIX_NEW_PARAMS {
    NvU64 value NV_ALIGN_BYTES(8);
} NV2080_CTRL_FIX_NEW_PARAMS;
typedef struct {
    NvU32 sub;
    union {
        NvU32 word;
        NvU8 bytes[4];
    } u;
    NvU32 bits : 3;
    NvU32 more : 5;
} NV2080_CTRL_FIX_NESTED_PARAMS;
#endif
EOF

	cat >"$d/src/nvidia/inc/libraries/nvoc/runtime.h" <<'EOF'
/* fixture: exported method table entry */
#ifndef FIX_RUNTIME_H
#define FIX_RUNTIME_H
#include "nvtypes.h"
struct NVOC_EXPORTED_METHOD_DEF {
    void (*pFunc)(void);
    NvU32 flags;
    NvU32 accessRight;
    NvU32 methodId;
    NvU32 paramSize;
    const void *pClassInfo;
#if NV_PRINTF_STRINGS_ALLOWED
    const char *func;
#endif
};
#endif
EOF
	cat >"$d/src/nvidia/inc/kernel/rmapi/control.h" <<'EOF'
/* fixture: method flags */
#ifndef FIX_CONTROL_H
#define FIX_CONTROL_H
#define RMCTRL_FLAGS_NONE              0x0
#define RMCTRL_FLAGS_KERNEL_PRIVILEGED 0x0
#define RMCTRL_FLAGS_NO_GPUS_LOCK      0x1
#define RMCTRL_FLAGS_PRIVILEGED        0x4
#define RMCTRL_FLAGS_NON_PRIVILEGED    0x8
#define RMCTRL_FLAGS_INTERNAL          0x80
#endif
EOF

	{
		cat <<'EOF'
/* fixture: generated class file with an exported method table */
#include "nvoc/runtime.h"
#include "ctrl/ctrl2080fix.h"
extern const int __nvoc_class_def_Subdevice;
#define M(fl, id, ty, fn) \
    { (void (*)(void)) 0, fl, 0x0u, id, ty, &__nvoc_class_def_Subdevice, fn }
static const struct NVOC_EXPORTED_METHOD_DEF __nvoc_exported_method_def_Subdevice[] = {
    M(0x9u, 0x20800101u, sizeof(NV2080_CTRL_FIX_GET_INFO_PARAMS), "subdeviceCtrlCmdFixGetInfo"),
    M(0x4u, 0x20800102u, sizeof(NV2080_CTRL_FIX_SET_PARAMS), "subdeviceCtrlCmdFixSet"),
EOF
		fixture_has dropctl "$@" ||
			echo '    M(0x8u, 0x20800103u, sizeof(NV2080_CTRL_FIX_OLD_PARAMS), "subdeviceCtrlCmdFixOld"),'
		cat <<'EOF'
    M(0x8u, 0x20800110u, sizeof(NV2080_CTRL_FIX_PTR_PARAMS), "subdeviceCtrlCmdFixPtr"),
    M(0x8u, 0x20800111u, sizeof(NV2080_CTRL_FIX_FD_PARAMS), "subdeviceCtrlCmdFixFd"),
    M(0x8u, 0x20800112u, sizeof(NV2080_CTRL_FIX_NESTED_PARAMS), "subdeviceCtrlCmdFixNested"),
EOF
		if fixture_has reuse "$@"; then
			echo '    M(0x8u, 0x20800120u, sizeof(NV2080_CTRL_FIX_ENCRYPTION_PARAMS), "subdeviceCtrlCmdFixEnc"),'
		else
			echo '    M(0x8u, 0x20800120u, sizeof(NV2080_CTRL_FIX_INFOROM_PARAMS), "subdeviceCtrlCmdFixInforom"),'
			echo '    M(0x8u, 0x20800121u, sizeof(NV2080_CTRL_FIX_ENCRYPTION_PARAMS), "subdeviceCtrlCmdFixEnc"),'
		fi
		fixture_has addctl "$@" &&
			echo '    M(0x8u, 0x20800130u, sizeof(NV2080_CTRL_FIX_NEW_PARAMS), "subdeviceCtrlCmdFixNew"),'
		cat <<'EOF'
    M(0x80u, 0x20800a01u, 0, "subdeviceCtrlCmdFixInternal"),
    M(0x0u, 0x20800a02u, sizeof(NV2080_CTRL_FIX_OLD_PARAMS), "subdeviceCtrlCmdFixKernel"),
};
EOF
	} >"$d/src/nvidia/generated/g_subdevice_nvoc.c"
	cat >"$d/src/nvidia/generated/g_subdevice_nvoc.h" <<'EOF'
/* fixture: nothing here */
EOF

	cat >"$d/src/nvidia/src/kernel/rmapi/resource_desc.h" <<'EOF'
/* fixture: resource descriptor */
#ifndef FIX_RESOURCE_DESC_H
#define FIX_RESOURCE_DESC_H
#include "nvtypes.h"
typedef struct RS_RESOURCE_DESC {
    NvU32 externalClassId;
    NvU32 internalClassId;
    const void *pClassInfo;
    NvU32 allocParamSize;
    NvBool bParamRequired;
    NvBool bMultiInstance;
    NvU32 flags;
} RS_RESOURCE_DESC;
#define RS_FLAGS_INTERNAL_ONLY        (1u << 7)
#define RS_FLAGS_ALLOC_NON_PRIVILEGED (1u << 8)
#define RS_FLAGS_ALLOC_PRIVILEGED     (1u << 9)
#define RS_FLAGS_ALLOC_KERNEL_PRIVILEGED (1u << 10)
#endif
EOF
	cat >"$d/src/nvidia/src/kernel/rmapi/resource_list.h" <<'EOF'
/* fixture: the class list */
RS_ENTRY(NV01_ROOT, RmClientResource, RS_OPTIONAL(NvHandle), RS_FLAGS_ALLOC_NON_PRIVILEGED)
RS_ENTRY(FIX_CHANNEL, KernelChannel, RS_REQUIRED(FIX_CHANNEL_ALLOC_PARAMS), RS_FLAGS_ALLOC_NON_PRIVILEGED)
RS_ENTRY(FIX_ADMIN, AdminObject, RS_NONE, RS_FLAGS_ALLOC_PRIVILEGED)
RS_ENTRY(FIX_SECRET, SecretObject, RS_REQUIRED(NvU32), RS_FLAGS_INTERNAL_ONLY)
EOF
	cat >"$d/src/nvidia/src/kernel/rmapi/resource_desc.c" <<'EOF'
/* fixture: the resource descriptor table, expanded from resource_list.h */
#include "resource_desc.h"
#define NV01_ROOT   (0x00000000)
#define FIX_CHANNEL (0x0000c06f)
#define FIX_ADMIN   (0x000000f0)
#define FIX_SECRET  (0x000000f1)
typedef struct {
    NvU32 hObjectError;
    NvU32 engineType;
    NvS32 capDescriptor;
    NvU32 rsvd;
} FIX_CHANNEL_ALLOC_PARAMS;
#define RS_REQUIRED(t) sizeof(t), 1
#define RS_OPTIONAL(t) sizeof(t), 0
#define RS_NONE 0, 0
#define RS_ENTRY(cls, internal, params, flags) \
    extern const int __nvoc_class_def_##internal;
#include "resource_list.h"
#undef RS_ENTRY
#define RS_ENTRY(cls, internal, params, flags) \
    { cls, 0, &__nvoc_class_def_##internal, params, 0, flags },
static RS_RESOURCE_DESC g_RsResourceDescList[] = {
#include "resource_list.h"
};
EOF

	cat >"$d/src/nvidia/arch/nvalloc/unix/include/nv_escape.h" <<'EOF'
/* fixture: RM escape numbers */
#ifndef FIX_NV_ESCAPE_H
#define FIX_NV_ESCAPE_H
#define NV_ESC_RM_ALLOC_MEMORY 0x27
#define NV_ESC_RM_CONTROL      0x2A
#define NV_ESC_RM_ALLOC        0x2B
#endif
EOF
	cat >"$d/src/nvidia/arch/nvalloc/unix/include/nv-unix-nvos-params-wrappers.h" <<'EOF'
/* fixture: parameters with an fd */
#ifndef FIX_WRAPPERS_H
#define FIX_WRAPPERS_H
#include <nvos.h>
typedef struct {
    NVOS02_PARAMETERS params;
    int fd;
} nv_ioctl_nvos02_parameters_with_fd;
#endif
EOF
	cat >"$d/src/nvidia/arch/nvalloc/unix/src/escape.c" <<'EOF'
/* fixture: the RM escape dispatcher */
#include <nv_escape.h>
#include <nvos.h>
#include <nv-unix-nvos-params-wrappers.h>
#include "nv-ioctl.h"

#define NV_CTL_DEVICE_ONLY(nv) do { if (!(nv)) goto done; } while (0)
#define NV_ACTUAL_DEVICE_ONLY(nv) do { if (nv) goto done; } while (0)

int RmIoctl(void *nv, void *nvfp, NvU32 cmd, void *data, NvU32 dataSize)
{
    int rmStatus = 0;

    switch (cmd)
    {
        case NV_ESC_RM_ALLOC_MEMORY:
        {
            nv_ioctl_nvos02_parameters_with_fd *pApi = data;
            void *mem_nvfp;

            if (dataSize != sizeof(*pApi))
                goto done;
            NV_ACTUAL_DEVICE_ONLY(nv);
            mem_nvfp = nv_get_file_private(pApi->fd, nv == NULL, NULL);
            break;
        }
        case NV_ESC_RM_ALLOC:
        {
            NVOS21_PARAMETERS *pApi = data;
            NVOS64_PARAMETERS *pApiAccess = data;

            if ((dataSize != sizeof(*pApi)) && (dataSize != sizeof(*pApiAccess)))
                goto done;
            switch (pApi->hClass)
            {
                case 0:
                    NV_CTL_DEVICE_ONLY(nv);
                    break;
                default:
                    NV_CTL_DEVICE_ONLY(nv);
                    break;
            }
            break;
        }
        case NV_ESC_RM_CONTROL:
        {
            NVOS54_PARAMETERS *pApi = data;

            NV_CTL_DEVICE_ONLY(nv);
            if (dataSize != sizeof(NVOS54_PARAMETERS))
                goto done;
            break;
        }
        case NV_ESC_REGISTER_FD:
        {
            nv_ioctl_register_fd_t *params = data;
            void *ctl_nvfp;

            if (dataSize != sizeof(*params))
                goto done;
            ctl_nvfp = nv_get_file_private(params->ctl_fd, NV_TRUE, NULL);
            break;
        }
        default:
            break;
    }
done:
    return rmStatus;
}
EOF
	cat >"$d/src/nvidia/arch/nvalloc/unix/src/osapi.c" <<'EOF'
/* fixture: the OS layer's ioctl entry */
#include <nv_escape.h>
#include "nv-ioctl.h"

int RmIoctl(void *nv, void *nvfp, NvU32 cmd, void *data, NvU32 dataSize);

int rm_ioctl(void *sp, void *nv, void *nvfp, NvU32 Command, void *pData, NvU32 dataSize)
{
    switch (Command)
    {
        case NV_ESC_ALLOC_OS_EVENT:
        {
            nv_ioctl_alloc_os_event_t *pApi = pData;

            if (dataSize != sizeof(nv_ioctl_alloc_os_event_t))
                return -1;
            break;
        }
        default:
            return RmIoctl(nv, nvfp, Command, pData, dataSize);
    }
    return 0;
}

static int check_version(void *pData, NvU32 size)
{
    if (size != sizeof(nv_ioctl_rm_api_version_t))
        return -1;
    return 0;
}

int rm_perform_version_check(void *sp, void *pData, NvU32 dataSize)
{
    return check_version(pData, dataSize);
}
EOF

	cat >"$d/kernel-open/common/inc/nv-ioctl-numbers.h" <<'EOF'
/* fixture: frontend escape numbers */
#ifndef FIX_NV_IOCTL_NUMBERS_H
#define FIX_NV_IOCTL_NUMBERS_H
#define NV_IOCTL_MAGIC 'F'
#define NV_IOCTL_BASE 200
#define NV_ESC_CARD_INFO         (NV_IOCTL_BASE + 0)
#define NV_ESC_REGISTER_FD       (NV_IOCTL_BASE + 1)
#define NV_ESC_ALLOC_OS_EVENT    (NV_IOCTL_BASE + 6)
#define NV_ESC_CHECK_VERSION_STR (NV_IOCTL_BASE + 10)
#define NV_ESC_IOCTL_XFER_CMD    (NV_IOCTL_BASE + 11)
#define NV_ESC_WAIT_OPEN_COMPLETE (NV_IOCTL_BASE + 18)
#endif
EOF
	cat >"$d/kernel-open/common/inc/nv-ioctl.h" <<'EOF'
/* fixture: frontend payloads */
#ifndef FIX_NV_IOCTL_H
#define FIX_NV_IOCTL_H
#include <nv-ioctl-numbers.h>
#include <nvtypes.h>
typedef struct nv_ioctl_xfer {
    NvU32 cmd;
    NvU32 size;
    NvP64 ptr NV_ALIGN_BYTES(8);
} nv_ioctl_xfer_t;
typedef struct nv_ioctl_card_info {
    NvBool valid;
    NvU32 gpu_id;
    NvU64 reg_address NV_ALIGN_BYTES(8);
} nv_ioctl_card_info_t;
typedef struct nv_ioctl_register_fd {
    int ctl_fd;
} nv_ioctl_register_fd_t;
typedef struct nv_ioctl_alloc_os_event {
    NvHandle hClient;
    NvHandle hDevice;
    NvU32 fd;
    NvU32 Status;
} nv_ioctl_alloc_os_event_t;
typedef struct nv_ioctl_wait_open_complete {
    int rc;
    NvU32 adapterStatus;
} nv_ioctl_wait_open_complete_t;
typedef struct nv_ioctl_rm_api_version {
    NvU32 cmd;
    NvU32 reply;
    char versionString[64];
} nv_ioctl_rm_api_version_t;
#endif
EOF
	cat >"$d/kernel-open/nvidia/nv.c" <<'EOF'
/* fixture: the kernel module's ioctl entry */
#include <linux/kernel.h>
#include "nv-ioctl.h"

#define NV_CTL_DEVICE_ONLY(nv) do { if (!(nv)) goto done; } while (0)
EOF
	if fixture_has early "$@"; then
		cat >>"$d/kernel-open/nvidia/nv.c" <<'EOF'

static int validate(unsigned int cmd)
{
    static const struct { unsigned int nr; size_t size; int array; } table[] = {
#define _FIX_IOCTL_ENTRY(c, t, a) { (c), sizeof(t), (a) }
        _FIX_IOCTL_ENTRY(NV_ESC_CARD_INFO, nv_ioctl_card_info_t, NV_TRUE),
        _FIX_IOCTL_ENTRY(NV_ESC_IOCTL_XFER_CMD, nv_ioctl_xfer_t, NV_FALSE),
    };
    return table[0].size;
}
EOF
	fi
	cat >>"$d/kernel-open/nvidia/nv.c" <<'EOF'

static int
nvidia_ioctl(struct inode *inode, struct file *file, unsigned int cmd, unsigned long i_arg)
{
    int status = 0;
    size_t arg_size = _IOC_SIZE(cmd);
    int arg_cmd = _IOC_NR(cmd);
    void *arg_copy = 0;

    if (arg_cmd == NV_ESC_IOCTL_XFER_CMD)
    {
        if (arg_size != sizeof(nv_ioctl_xfer_t))
            return -EINVAL;
    }

    if (arg_cmd == NV_ESC_WAIT_OPEN_COMPLETE)
    {
        nv_ioctl_wait_open_complete_t *params = arg_copy;
        params->rc = 0;
        goto done;
    }

    switch (arg_cmd)
    {
        case NV_ESC_CARD_INFO:
        {
            size_t n = arg_size / sizeof(nv_ioctl_card_info_t);

            NV_CTL_DEVICE_ONLY(nv);
            break;
        }
        case NV_ESC_CHECK_VERSION_STR:
        {
            NV_CTL_DEVICE_ONLY(nv);
            status = rm_perform_version_check(sp, arg_copy, arg_size);
            break;
        }
        default:
            status = rm_ioctl(sp, nv, nvfp, arg_cmd, arg_copy, arg_size);
            break;
    }
done:
    return status;
}
EOF

	cat >"$d/kernel-open/nvidia-uvm/uvm_ioctl.h" <<'EOF'
/* fixture: UVM commands */
#ifndef FIX_UVM_IOCTL_H
#define FIX_UVM_IOCTL_H
#include "nvtypes.h"
#define UVM_REGISTER_GPU UVM_IOCTL_BASE(37)
typedef struct {
    NvU8 gpu_uuid[16];
    NvBool numaEnabled;
    NvS32 numaNodeId;
    NvS32 rmCtrlFd;
    NvHandle hClient;
    NvHandle hSmcPartRef;
    NV_STATUS rmStatus;
} UVM_REGISTER_GPU_PARAMS;
#define UVM_TOOLS_FLUSH_EVENTS UVM_IOCTL_BASE(64)
typedef struct {
    NV_STATUS rmStatus;
} UVM_TOOLS_FLUSH_EVENTS_PARAMS;
#endif
EOF
	cat >"$d/kernel-open/nvidia-uvm/uvm_linux_ioctl.h" <<'EOF'
/* fixture: UVM on Linux */
#ifndef FIX_UVM_LINUX_IOCTL_H
#define FIX_UVM_LINUX_IOCTL_H
#define UVM_IOCTL_BASE(i) i
#include "uvm_ioctl.h"
#define UVM_INITIALIZE 0x30000001
typedef struct {
    NvU64 flags NV_ALIGN_BYTES(8);
    NV_STATUS rmStatus;
} UVM_INITIALIZE_PARAMS;
#define UVM_DEINITIALIZE 0x30000002
#endif
EOF
	if fixture_has emb "$@" || fixture_has embbad "$@"; then
		{
			cat <<'EOF'
/* fixture: lists RM copies around a control */
#include "ctrl/ctrl2080fix.h"
static NvBool _fixCopyIn(RMAPI_PARAM_COPY *paramCopies, RmCtrlParams *pRmCtrlParams)
{
    return NV_FALSE;
}
NV_STATUS embeddedParamCopyIn(RMAPI_PARAM_COPY *paramCopies, RmCtrlParams *pRmCtrlParams)
{
    void *pParams = pRmCtrlParams->pParams;

    switch (pRmCtrlParams->cmd)
    {
        case NV2080_CTRL_CMD_FIX_PTR:
        {
            CHECK_PARAMS_OR_RETURN(pRmCtrlParams, NV2080_CTRL_FIX_PTR_PARAMS);
            RMAPI_PARAM_COPY_INIT(paramCopies[0],
                ((NV2080_CTRL_FIX_PTR_PARAMS*)pParams)->data,
                ((NV2080_CTRL_FIX_PTR_PARAMS*)pParams)->data,
                ((NV2080_CTRL_FIX_PTR_PARAMS*)pParams)->count, sizeof(NvU32));
            paramCopies[0].flags |= RMAPI_PARAM_COPY_FLAGS_SKIP_COPYIN;
            break;
        }
#ifdef FIX_NOT_BUILT
        case NV2080_CTRL_CMD_FIX_SET:
        {
            RMAPI_PARAM_COPY_INIT(paramCopies[0], p->z, p->z, mystery(p), 1);
            break;
        }
#endif
        case NV2080_CTRL_CMD_FIX_FD:
        {
            CHECK_PARAMS_OR_RETURN(pRmCtrlParams, NV2080_CTRL_FIX_FD_PARAMS);
            if (!_fixCopyIn(paramCopies, pRmCtrlParams))
                return NV_OK;
            break;
        }
EOF
			if fixture_has embbad "$@"; then
				cat <<'EOF'
        case NV2080_CTRL_CMD_FIX_SET:
        {
            RMAPI_PARAM_COPY_INIT(paramCopies[0],
                ((NV2080_CTRL_FIX_SET_PARAMS*)pParams)->z,
                ((NV2080_CTRL_FIX_SET_PARAMS*)pParams)->z,
                mystery(pParams), 1);
            break;
        }
EOF
			fi
			cat <<'EOF'
        default:
            return NV_OK;
    }
    return NV_OK;
}
EOF
		} >"$d/src/nvidia/src/kernel/rmapi/embedded_param_copy.c"
	fi

	cat >"$d/kernel-open/nvidia-uvm/uvm.c" <<'EOF'
/* fixture: the UVM ioctl entry */
#include "uvm_linux_ioctl.h"

static long uvm_ioctl(struct file *filp, unsigned int cmd, unsigned long arg)
{
    switch (cmd)
    {
        case UVM_DEINITIALIZE:
            return 0;

        UVM_ROUTE_CMD_STACK_NO_INIT_CHECK(UVM_INITIALIZE, uvm_api_initialize);
        UVM_ROUTE_CMD_STACK_INIT_CHECK(UVM_REGISTER_GPU, uvm_api_register_gpu);
    }
    return -EINVAL;
}
EOF
	cat >"$d/kernel-open/nvidia-uvm/uvm_tools.c" <<'EOF'
/* fixture: the UVM tools ioctl entry */
#include "uvm_linux_ioctl.h"

static long uvm_tools_unlocked_ioctl(struct file *filp, unsigned int cmd, unsigned long arg)
{
    switch (cmd)
    {
        UVM_ROUTE_CMD_STACK_NO_INIT_CHECK(UVM_TOOLS_FLUSH_EVENTS, uvm_api_tools_flush_events);
    }
    return -EINVAL;
}
EOF
	if fixture_has caps "$@" || fixture_has capsbad "$@"; then
		fixture_capnodes "$d" "$@"
	fi
}

# The lookups of nvidia-caps and IMEX channel nodes, from the fget() back to
# the payloads (features caps, capsbad).
fixture_capnodes() {
	d=$1
	shift
	mkdir -p "$d/src/nvidia/src/kernel/gpu/mig_mgr"
	cat >"$d/kernel-open/nvidia/nv-caps.c" <<'EOF'
/* fixture: capability nodes */
static struct file_operations g_nv_cap_drv_fops;

int NV_API_CALL nv_cap_validate_and_dup_fd(const nv_cap_t *cap, int fd)
{
    struct file *file;
    int dup_fd;

    file = fget(fd);
    if (file == NULL || file->f_op != &g_nv_cap_drv_fops)
        return -1;
    dup_fd = get_unused_fd_flags(O_CLOEXEC);
    fd_install(dup_fd, file);
    return dup_fd;
}

void NV_API_CALL nv_cap_close_fd(int fd)
{
    struct file *file = fget(fd);

    if (file != NULL && file->f_op == &g_nv_cap_drv_fops)
        close_fd(fd);
}
EOF
	cat >"$d/kernel-open/nvidia/nv-caps-imex.c" <<'EOF'
/* fixture: IMEX channels */
int NV_API_CALL nv_caps_imex_channel_get(int fd)
{
    struct file *file;
    int channel = -1;

    file = fget(fd);
    if (file == NULL)
        return channel;
    if (file->f_op == &g_nv_caps_imex_fops)
        channel = MINOR(file->f_inode->i_rdev);
    fput(file);
    return channel;
}
EOF
	cat >"$d/kernel-open/nvidia/os-interface.c" <<'EOF'
/* fixture: the OS interface */
int NV_API_CALL os_nv_cap_validate_and_dup_fd
(
    const nv_cap_t *cap,
    int fd
)
{
    return nv_cap_validate_and_dup_fd(cap, fd);
}

void NV_API_CALL os_nv_cap_close_fd
(
    int fd
)
{
    nv_cap_close_fd(fd);
}

NvS32 NV_API_CALL os_imex_channel_get
(
    NvU64 descriptor
)
{
    return nv_caps_imex_channel_get((int)descriptor);
}
EOF
	cat >"$d/src/nvidia/arch/nvalloc/unix/src/os.c" <<'EOF'
/* fixture: RM's OS layer */
NV_STATUS
osRmCapAcquire
(
    OS_RM_CAPS *pOsRmCaps,
    NvU32       rmCap,
    NvU64       capDescriptor,
    NvU64      *dupedCapDescriptor
)
{
    int fd = (int)capDescriptor;
    int duped_fd;

    duped_fd = os_nv_cap_validate_and_dup_fd(pOsRmCaps->caps[rmCap], fd);
    if (duped_fd < 0)
        return NV_ERR_INSUFFICIENT_PERMISSIONS;
    *dupedCapDescriptor = duped_fd;
    return NV_OK;
}

void
osRmCapRelease
(
    NvU64 dupedCapDescriptor
)
{
    os_nv_cap_close_fd((int)dupedCapDescriptor);
}

NvS32
osImexChannelGet(NvU64 descriptor)
{
    return os_imex_channel_get(descriptor);
}
EOF
	if fixture_has capsbad "$@"; then
		desc='fixDescriptorOf(pUserParams)'
	else
		desc='pUserParams->capDescriptor'
	fi
	cat >"$d/src/nvidia/src/kernel/gpu/mig_mgr/gpu_instance_subscription.c" <<EOF
/* fixture: a class that subscribes to a MIG instance */
NV_STATUS
gisubscriptionConstruct_IMPL
(
    GPUInstanceSubscription      *pGPUInstanceSubscription,
    CALL_CONTEXT                 *pCallContext,
    RS_RES_ALLOC_PARAMS_INTERNAL *pRmAllocParams
)
{
    FIX_CHANNEL_ALLOC_PARAMS *pUserParams = pRmAllocParams->pAllocParams;

    return osRmCapAcquire(pGPUInstanceSubscription->pOsRmCaps, 1,
                          $desc,
                          &pGPUInstanceSubscription->dupedCapDescriptor);
}

void
gisubscriptionDestruct_IMPL
(
    GPUInstanceSubscription *pGPUInstanceSubscription
)
{
    osRmCapRelease(pGPUInstanceSubscription->dupedCapDescriptor);
}
EOF
	if fixture_has fd "$@"; then
		cat >"$d/src/nvidia/src/kernel/rmapi/client_resource.c" <<'EOF'
/* fixture: a control that subscribes to an IMEX channel */
NV_STATUS
subdeviceCtrlCmdFixFd_IMPL
(
    Subdevice *pSubdevice,
    NV2080_CTRL_FIX_FD_PARAMS *pParams
)
{
    NvS32 channel = osImexChannelGet(pParams->memFd);

    return channel < 0 ? NV_ERR_INSUFFICIENT_PERMISSIONS : NV_OK;
}
EOF
	fi
}
