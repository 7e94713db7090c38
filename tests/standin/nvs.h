/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Stand-in nvidia driver: shared declarations of nvidia.ko's files.
 *
 * Lock rules:
 *  - nvs.lock (mutex) guards the driver state: the file list, RM clients and
 *    their objects, OS event registrations, mapping contexts, REGISTER_FD
 *    links.  Nothing that can fault on user memory or take mmap_lock runs
 *    under it (mmap() takes it with mmap_lock held).
 *  - nvs_file.ev_lock (spinlock) guards one file's queue of events; taken
 *    under nvs.lock when an event is posted.
 *  - the call log has its own mutex, a leaf lock.
 */
#ifndef NVS_H
#define NVS_H

#include <linux/fs.h>
#include <linux/kref.h>
#include <linux/list.h>
#include <linux/mutex.h>
#include <linux/spinlock.h>
#include <linux/wait.h>

#include "../nvidia-abi/nvdrv.h"
#include "nvs_export.h"

/* GPUs the stand-in models (num_gpus=); the real driver allows minors 0..247. */
#define NVS_MAX_GPUS		16

struct nvs_gpu {
	unsigned int index;
	u32 gpu_id;
	u8 uuid[16];
	/* MIG (parameter mig=): fixed at load, guarded by nvs.lock after. */
	bool mig;			/* MIG mode on: IS_MIG_ENABLED */
	u16 gi_mask;			/* GPU instances by swizzId: IS_MIG_IN_USE if any */
	u8 ci_mask[NVD_MIG_MAX_GI];	/* each one's compute instances by id */
	bool profiling;			/* a device-profiling subscription is held */
};

/* Pages standing in for a system-memory allocation; shared by refcount. */
struct nvs_mem {
	struct kref ref;
	unsigned long npages;
	struct page *pages[];
};

/* What RM_MAP_MEMORY / RM_ALLOC_MEMORY left on a file for mmap(). */
struct nvs_mapctx {
	struct nvs_mem *mem;
	unsigned long pgoff;	/* first page of @mem */
	unsigned long npages;	/* pages the context covers */
};

/* One open /dev/nvidiactl or /dev/nvidiaN. */
struct nvs_file {
	struct list_head node;		/* nvs.files */
	unsigned int minor;
	struct file *ctl_link;		/* REGISTER_FD target, reference held */
	struct nvs_file *ctl_nf;	/* its nvs_file */
	struct nvs_mapctx *mapctx;
	spinlock_t ev_lock;
	wait_queue_head_t ev_wait;
	struct list_head ev_queue;	/* struct nvs_event_data */
	unsigned int ev_queued;
};

struct nvs_state {
	struct mutex lock;
	struct list_head files;
	struct list_head clients;
	struct list_head os_events;
	unsigned int nclients;
	unsigned int nos_events;
};

extern struct nvs_state nvs;
extern const struct file_operations nvs_fops;
extern struct nvs_gpu nvs_gpus[NVS_MAX_GPUS];
extern unsigned int nvs_ngpus;
extern const char *nvs_version_str;
extern bool nvs_strict_clients;
extern unsigned int nvs_ioctl_delay_ms;
extern bool nvs_read_twice;
extern unsigned int nvs_grow_fd_table;
extern bool nvs_oops_register_fd;
extern bool nvs_log_calls;
extern int nvs_fail_open;
extern unsigned int nvs_imex_channels;	/* NVreg_ImexChannelCount as the release has it */

/* nvs_main.c */
bool nvs_version_at_least(u32 major, u32 minor, u32 patch);
u32 nvs_alloc_status_off(u32 size);	/* RM_ALLOC's status in this release, or 0 */

struct proc_dir_entry;

/* nvs_caps.c: capability files, MIG instances, IMEX channels */
int nvs_caps_init(struct proc_dir_entry *nvidia_dir);
void nvs_caps_exit(void);
void nvs_caps_file_kind(struct file *filp, char *buf);	/* "capN", "imexN" or "" */
int nvs_cap_validate_and_dup(int fd, int minor);
bool nvs_cap_close_fd(int fd);
int nvs_imex_channel_get(int fd);
void nvs_mig_uuid(unsigned int gpu, u32 swizz, u32 ci, u8 *uuid);

/* The caps' minors (nv-caps.c's table); ci -1 for the GPU instance. */
static inline int nvs_cap_minor_mig(unsigned int gpu, u32 swizz, int ci)
{
	return NVD_CAP_MINOR_GPU_BASE + gpu * NVD_CAP_MINORS_PER_GPU +
	       swizz * NVD_CAP_MINORS_PER_GI + 1 + ci;
}

/* nvs_rx.c */
struct dentry;
int nvs_rx_init(struct dentry *dir);
void nvs_rx_exit(void);

/* nvs_log.c */
int nvs_log_init(unsigned int kib);
void nvs_log_exit(void);
const struct file_operations *nvs_uvm_fops_get(void);

/* Extra "key=value" text a handler adds to its log line. */
struct nvs_call {
	char extra[192];
	int len;
};
__printf(2, 3) void nvs_call_add(struct nvs_call *c, const char *fmt, ...);

/* nvs_rm.c */
int nvs_rm_ioctl(struct nvs_file *nf, u32 nr, void *buf, u32 size,
		 struct nvs_call *c);
struct file *nvs_rm_file_release(struct nvs_file *nf, struct nvs_call *c);
int nvs_rm_mmap(struct vm_area_struct *vma, struct nvs_call *c);
unsigned int nvs_rm_events_pending(struct nvs_file *nf);
void nvs_mem_put(struct nvs_mem *mem);

static inline bool nvs_is_ctl(const struct nvs_file *nf)
{
	return nf->minor == NVD_CTL_MINOR;
}

static inline void nvs_kind_of_minor(unsigned int minor, char *buf)
{
	if (minor == NVD_CTL_MINOR)
		strscpy(buf, "ctl", NVS_KIND_LEN);
	else
		snprintf(buf, NVS_KIND_LEN, "gpu%u", minor);
}

#endif /* NVS_H */
