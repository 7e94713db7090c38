/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Stand-in nvidia driver: what nvidia.ko exports to nvidia-uvm.ko.
 *
 * The real nvidia-uvm calls into nvidia.ko through the nvUvmInterface*
 * exports; the stand-in needs far less: a shared call log, shared counters,
 * a way to name a file it was handed, and the RM-side checks of
 * UVM_REGISTER_GPU.
 */
#ifndef NVS_EXPORT_H
#define NVS_EXPORT_H

#include <linux/types.h>
#include <linux/fs.h>

/* Counters shown in debugfs nvidia-standin/state. */
enum nvs_counter {
	NVS_CNT_OPEN_FILES,	/* open nvidia files (control and GPU) */
	NVS_CNT_CLIENTS,	/* live RM clients */
	NVS_CNT_OBJECTS,	/* live RM objects below clients */
	NVS_CNT_OS_EVENTS,	/* ALLOC_OS_EVENT registrations */
	NVS_CNT_QUEUED_EVENTS,	/* events queued on files, not yet read */
	NVS_CNT_MEMORY,		/* memory backings (memory objects and mappings) */
	NVS_CNT_MEMORY_PAGES,	/* pages held by those backings */
	NVS_CNT_MAP_CONTEXTS,	/* mapping contexts (one per file at most) */
	NVS_CNT_VMAS,		/* live VMAs of nvidia mappings */
	NVS_CNT_UVM_FILES,	/* open nvidia-uvm files */
	NVS_CNT_UVM_VA_SPACES,	/* UVM files after UVM_INITIALIZE */
	NVS_CNT_UVM_GPUS,	/* GPUs registered in UVM va spaces */
	NVS_CNT_UVM_VMAS,	/* live VMAs of nvidia-uvm mappings */
	NVS_CNT_UVM_PAGES,	/* pages backing those mappings */
	NVS_CNT_REREAD_DIFFER,	/* read_twice: second reads that differed */
	NVS_CNT_EXTRA_FDS,	/* grow_fd_table: its files not yet released */
	NVS_CNT_NR
};

/* Longest kind name: "foreign". */
#define NVS_KIND_LEN	12

void nvs_count(enum nvs_counter c, long delta);

/**
 * nvs_log_call() - append one line to the call log.
 * @kind: the file the call arrived on ("ctl", "gpu0", "uvm")
 * @fmt: the rest of the line, starting with "op="
 *
 * The line gets "seq=N tgid=T file=KIND " in front.  Process context only.
 */
__printf(2, 3) void nvs_log_call(const char *kind, const char *fmt, ...);

/**
 * nvs_file_kind() - name a file for the log.
 * @filp: a file, or NULL
 * @buf: at least NVS_KIND_LEN bytes
 *
 * "ctl", "gpuN", "uvm", "capN" (a capability file of minor N), "imexN"
 * (IMEX channel N) or "foreign"; "badf" for NULL.
 */
void nvs_file_kind(struct file *filp, char *buf);

/**
 * nvs_register_uvm_fops() - tell nvidia.ko which file_operations are UVM's.
 * @fops: nvidia-uvm's fops, or NULL when nvidia-uvm goes away
 */
void nvs_register_uvm_fops(const struct file_operations *fops);

/**
 * nvs_uvm_check_gpu() - the RM side of UVM_REGISTER_GPU.
 * @uuid: 16-byte GPU UUID from the caller
 * @h_client: an RM client that must belong to the calling process
 * @gpu: out, the GPU's index
 *
 * The command's rmCtrlFd is not an argument: no release of nvidia-uvm
 * looks it up (uvm_api_register_gpu() stores it, and nothing reads it).
 *
 * Return: an NV_STATUS.
 */
u32 nvs_uvm_check_gpu(const u8 *uuid, u32 h_client, unsigned int *gpu);

/* Does the stand-in act as release major.minor.patch or later? */
bool nvs_version_at_least(u32 major, u32 minor, u32 patch);

/* The index of the GPU with this 16-byte UUID, or -1. */
int nvs_gpu_by_uuid(const u8 *uuid);

/*
 * The record of received calls and the watch list (nvs_rx.c, debugfs
 * received and watch): the fields of each family.
 */
enum nvs_rx_family {
	NVS_RX_ESC,	/* escape: a=_IOC_NR b=_IOC_SIZE c=node<<8|_IOC_TYPE */
	NVS_RX_XFER,	/* inside NV_ESC_IOCTL_XFER_CMD: a=cmd b=size c=node<<8 */
	NVS_RX_CTRL,	/* NVOS54: a=cmd b=paramsSize c=flags */
	NVS_RX_CLASS,	/* NVOS21/NVOS64: a=hClass b=payload size c=node<<8 */
	NVS_RX_UVM,	/* UVM ioctl: a=command */
	NVS_RX_FD,	/* an fd field resolved: a=NVS_RX_FD_* */
	NVS_RX_NR
};

/* Nodes in the c field: the values of the ABI tables' NVABI_NODE_*. */
#define NVS_RX_NODE_CTL		1
#define NVS_RX_NODE_GPU		2

/* What an fd number found in a payload named in the caller's fd table. */
#define NVS_RX_FD_BADF		0	/* nothing */
#define NVS_RX_FD_CTL		1	/* nvidia's control file */
#define NVS_RX_FD_GPU		2	/* a GPU file of nvidia */
#define NVS_RX_FD_UVM		3	/* nvidia-uvm's file */
#define NVS_RX_FD_FOREIGN	4	/* a file of anyone else */

void nvs_rx(enum nvs_rx_family fam, u32 a, u32 b, u32 c);
void nvs_rx_fd(struct file *filp);

/**
 * nvs_fault_take() - the fault injected into this ioctl (debugfs fault)
 *
 * Return: 0 to answer normally, else the negative errno to return.
 */
int nvs_fault_take(void);

/* race_delay_us: sleep before each read of the caller's memory (0: never). */
void nvs_race_delay(void);

/* FNV-1a, 64 bits, as the log prints it. */
#define NVS_FNV_INIT	0xcbf29ce484222325ULL
static inline u64 nvs_fnv1a(u64 h, const void *data, size_t len)
{
	const u8 *p = data;

	while (len--) {
		h ^= *p++;
		h *= 0x100000001b3ULL;
	}
	return h;
}

/* FNV-1a of @len bytes with the 4 bytes at @fd_off counted as zero. */
static inline u64 nvs_fnv1a_nofd(const void *data, size_t len, size_t fd_off)
{
	static const u8 zero[4];
	u64 h = nvs_fnv1a(NVS_FNV_INIT, data, fd_off);

	h = nvs_fnv1a(h, zero, sizeof(zero));
	return nvs_fnv1a(h, (const u8 *)data + fd_off + 4, len - fd_off - 4);
}

#endif /* NVS_EXPORT_H */
