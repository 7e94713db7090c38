// SPDX-License-Identifier: GPL-2.0
/*
 * Stand-in nvidia driver: the resource manager.
 *
 * A small RM: clients (recording the creating process), devices,
 * subdevices, OS events and system memory, a handful of controls, mapping
 * contexts for mmap(), and the checks the real driver makes on file
 * descriptors found inside payloads.  Each handler names the real function
 * it mirrors.  Handlers get the kernel copy of the top-level payload; nested
 * parameters are read from user memory here, outside nvs.lock.
 */
#define pr_fmt(fmt) "nvidia-standin: " fmt

#include <linux/anon_inodes.h>
#include <linux/efi.h>
#include <linux/fdtable.h>
#include <linux/file.h>
#include <linux/mm.h>
#include <linux/sched.h>
#include <linux/slab.h>
#include <linux/uaccess.h>

#include "nvs.h"

#define NVS_CLIENT_BASE		0xc1d00000u	/* the real RM's client range */
#define NVS_CLIENT_LIMIT	0x00100000u
#define NVS_HANDLE_BASE		0xcaf00000u	/* handles RM picks for objects */
#define NVS_MAX_CLIENTS		4096
#define NVS_MAX_OBJECTS		1024		/* per client */
#define NVS_MAX_OS_EVENTS	65536
#define NVS_MAX_QUEUED		1024		/* events queued per file */
#define NVS_MAX_MEM_PAGES	4096		/* 16 MiB per allocation */
#define NVS_LINEAR_TOKEN	0x5a0000000000ULL

struct nvs_state nvs = {
	.lock = __MUTEX_INITIALIZER(nvs.lock),
	.files = LIST_HEAD_INIT(nvs.files),
	.clients = LIST_HEAD_INIT(nvs.clients),
	.os_events = LIST_HEAD_INIT(nvs.os_events),
};

/* nv_event_t: ALLOC_OS_EVENT's (client, fd) key and the file it names. */
struct nvs_osevent {
	struct list_head node;		/* nvs.os_events while registered */
	u32 h_client;
	u32 fd;
	struct nvs_file *file;		/* NULL once unregistered */
	bool registered;
	unsigned int refs;		/* event objects pointing here */
};

struct nvs_event_data {
	struct list_head node;
	struct nvd_unix_event ev;
};

struct nvs_client {
	struct list_head node;		/* nvs.clients */
	u32 handle;
	pid_t tgid;			/* ProcID: the creating process */
	struct nvs_file *owner;		/* OS info: the control file used */
	struct list_head objects;	/* in creation order: parents first */
	unsigned int nobjects;
	u32 next_handle;
	bool nonpriv;			/* made as NV01_ROOT_NON_PRIV: never admin */
	s32 imex_channel;		/* the IMEX channel subscribed to, or -1 */
	u32 unsub_device;		/* a device whose instance subscription went */
};

struct nvs_object {
	struct list_head node;
	u32 handle;
	u32 parent;
	u32 hclass;
	unsigned int gpu;		/* device, subdevice */
	u8 *notify;			/* subdevice: action per notifier */
	struct nvs_osevent *osev;	/* event */
	u32 ev_src;
	u32 ev_index;
	struct nvs_mem *mem;		/* memory */
	u32 client_share;		/* device: hClientShare */
	u32 device;			/* MIG subscription: the device above it */
	u32 swizz;			/* MIG subscription: the GPU instance */
	u32 ci;				/* compute instance subscription: its id */
	bool profiling;			/* GPU instance subscription: device profiling */
	int dup_fd;			/* the cap descriptor RM duplicated, or -1 */
};

union nvs_alloc_params {
	u8 raw[128];
	u32 handle;
	struct nvd_alloc_0080 dev;
	struct nvd_alloc_2080 sub;
	struct nvd_alloc_0005 ev;
	struct nvd_alloc_mem mem;
	struct nvd_alloc_c637 c637;
	struct nvd_alloc_c638 c638;
	struct nvd_alloc_c639 c639;
};

/* The class table (resource_list.h): parameter sizes come from here. */
static const struct nvs_class {
	u32 hclass;
	u16 psize;
	bool required;
} nvs_classes[] = {
	{ NV01_ROOT_CLIENT, sizeof(u32), false },
	{ NV01_DEVICE_0, sizeof(struct nvd_alloc_0080), false },
	{ NV20_SUBDEVICE_0, sizeof(struct nvd_alloc_2080), false },
	{ NV01_MEMORY_SYSTEM, sizeof(struct nvd_alloc_mem), true },
	{ NV01_EVENT_KERNEL_CALLBACK, sizeof(struct nvd_alloc_0005), true },
	{ NV01_EVENT_OS_EVENT, sizeof(struct nvd_alloc_0005), true },
	{ NV01_MEMORY_LOCAL_USER, sizeof(struct nvd_alloc_mem), true },
	{ AMPERE_SMC_PARTITION_REF, sizeof(struct nvd_alloc_c637), true },
	{ AMPERE_SMC_EXEC_PARTITION_REF, sizeof(struct nvd_alloc_c638), true },
	{ AMPERE_SMC_CONFIG_SESSION, sizeof(struct nvd_alloc_c639), true },
	{ AMPERE_SMC_MONITOR_SESSION, sizeof(struct nvd_alloc_c639), true },
};

/*
 * The call whose log line the frees done under nvs.lock add to (RM_FREE,
 * the release of a file), or NULL.  Guarded by nvs.lock.
 */
static struct nvs_call *nvs_cur_call;

static const struct nvs_class *nvs_class_find(u32 hclass)
{
	unsigned int i;

	for (i = 0; i < ARRAY_SIZE(nvs_classes); i++)
		if (nvs_classes[i].hclass == hclass)
			return &nvs_classes[i];
	return NULL;
}

/* ---- system memory ---- */

static struct nvs_mem *nvs_mem_alloc(u64 bytes, u32 *status)
{
	struct nvs_mem *mem;
	unsigned long i, n;

	if (!bytes) {
		*status = NV_ERR_INVALID_ARGUMENT;
		return NULL;
	}
	if (bytes > (u64)NVS_MAX_MEM_PAGES * PAGE_SIZE) {
		*status = NV_ERR_NO_MEMORY;
		return NULL;
	}
	n = DIV_ROUND_UP(bytes, PAGE_SIZE);
	mem = kvzalloc(struct_size(mem, pages, n), GFP_KERNEL);
	if (!mem)
		goto nomem;
	for (i = 0; i < n; i++) {
		mem->pages[i] = alloc_page(GFP_KERNEL | __GFP_ZERO);
		if (!mem->pages[i])
			goto nomem_pages;
	}
	kref_init(&mem->ref);
	mem->npages = n;
	nvs_count(NVS_CNT_MEMORY, 1);
	nvs_count(NVS_CNT_MEMORY_PAGES, n);
	return mem;

nomem_pages:
	while (i--)
		__free_page(mem->pages[i]);
	kvfree(mem);
nomem:
	*status = NV_ERR_NO_MEMORY;
	return NULL;
}

static void nvs_mem_release(struct kref *ref)
{
	struct nvs_mem *mem = container_of(ref, struct nvs_mem, ref);
	unsigned long i;

	for (i = 0; i < mem->npages; i++)
		__free_page(mem->pages[i]);
	nvs_count(NVS_CNT_MEMORY, -1);
	nvs_count(NVS_CNT_MEMORY_PAGES, -(long)mem->npages);
	kvfree(mem);
}

void nvs_mem_put(struct nvs_mem *mem)
{
	kref_put(&mem->ref, nvs_mem_release);
}

/* ---- clients and objects; all under nvs.lock ---- */

/* The OS info RM records on clients: the linked control file, or self. */
static struct nvs_file *nvs_os_info(struct nvs_file *nf)
{
	return nf->ctl_nf ? nf->ctl_nf : nf;
}

static struct nvs_client *nvs_client_find(u32 handle)
{
	struct nvs_client *cl;

	lockdep_assert_held(&nvs.lock);
	list_for_each_entry(cl, &nvs.clients, node)
		if (cl->handle == handle)
			return cl;
	return NULL;
}

/* serverutilAcquireClient() + rmclientValidate() in its strict form. */
static struct nvs_client *nvs_client_get(struct nvs_file *nf, u32 handle,
					 u32 *status)
{
	struct nvs_client *cl = nvs_client_find(handle);

	if (!cl || (nvs_strict_clients && cl->owner != nvs_os_info(nf))) {
		*status = NV_ERR_INVALID_CLIENT;
		return NULL;
	}
	return cl;
}

static struct nvs_object *nvs_obj_find(struct nvs_client *cl, u32 handle)
{
	struct nvs_object *o;

	list_for_each_entry(o, &cl->objects, node)
		if (o->handle == handle)
			return o;
	return NULL;
}

static struct nvs_osevent *nvs_osevent_find(u32 h_client, u32 fd)
{
	struct nvs_osevent *e;

	list_for_each_entry(e, &nvs.os_events, node)
		if (e->h_client == h_client && e->fd == fd)
			return e;
	return NULL;
}

static void nvs_osevent_unregister(struct nvs_osevent *e)
{
	list_del(&e->node);
	e->registered = false;
	e->file = NULL;
	nvs.nos_events--;
	nvs_count(NVS_CNT_OS_EVENTS, -1);
	if (!e->refs)
		kfree(e);
}

static void nvs_osevent_put(struct nvs_osevent *e)
{
	if (--e->refs == 0 && !e->registered)
		kfree(e);
}

static void nvs_obj_destroy(struct nvs_client *cl, struct nvs_object *o)
{
	/*
	 * The MIG subscriptions' and sessions' destructors: a profiling
	 * subscription gives the GPU's slot back; the others release the cap
	 * descriptor RM duplicated (osRmCapRelease) and, for a GPU or compute
	 * instance subscription, free what depends on it
	 * (gisubscriptionCleanupOnUnsubscribe, run once the free is done).
	 */
	if (o->profiling) {
		nvs_gpus[o->gpu].profiling = false;
	} else if (o->hclass == AMPERE_SMC_PARTITION_REF ||
		   o->hclass == AMPERE_SMC_EXEC_PARTITION_REF) {
		cl->unsub_device = o->device;
	}
	if (o->dup_fd >= 0) {
		bool closed = nvs_cap_close_fd(o->dup_fd);

		if (nvs_cur_call)
			nvs_call_add(nvs_cur_call, " %s=%d", closed ? "capclose" : "capkept",
				     o->dup_fd);
	}
	list_del(&o->node);
	cl->nobjects--;
	if (o->osev)
		nvs_osevent_put(o->osev);
	if (o->mem)
		nvs_mem_put(o->mem);
	kfree(o->notify);
	kfree(o);
	nvs_count(NVS_CNT_OBJECTS, -1);
}

/* Free @handle and everything below it.  Trees are at most 3 deep. */
static void nvs_obj_free_tree(struct nvs_client *cl, u32 handle)
{
	struct nvs_object *o;

again:
	list_for_each_entry(o, &cl->objects, node) {
		if (o->parent == handle) {
			nvs_obj_free_tree(cl, o->handle);
			goto again;
		}
	}
	o = nvs_obj_find(cl, handle);
	if (o)
		nvs_obj_destroy(cl, o);
}

static void nvs_client_destroy(struct nvs_client *cl)
{
	/* Children were created after their parents: free newest first. */
	while (!list_empty(&cl->objects))
		nvs_obj_destroy(cl, list_last_entry(&cl->objects,
						    struct nvs_object, node));
	list_del(&cl->node);
	nvs.nclients--;
	kfree(cl);
	nvs_count(NVS_CNT_CLIENTS, -1);
}

/* rm_client_free_os_events(): on RM_FREE of a client. */
static void nvs_client_free_os_events(u32 h_client)
{
	struct nvs_osevent *e, *tmp;

	list_for_each_entry_safe(e, tmp, &nvs.os_events, node)
		if (e->h_client == h_client)
			nvs_osevent_unregister(e);
}

struct nvs_match {
	unsigned int minor;
	bool own_fops;
};

/*
 * nv_match_dev_state(): from 550.40.07 a file of this driver's GPU node
 * (f_op and per-file state); before, any character device 195:minor.
 */
static int nvs_match_gpu_file(const void *data, struct file *filp,
			      unsigned int fd)
{
	const struct nvs_match *m = data;
	struct inode *inode = file_inode(filp);

	if (m->own_fops)
		return filp->f_op == &nvs_fops && filp->private_data &&
		       ((struct nvs_file *)filp->private_data)->minor == m->minor;
	return inode && S_ISCHR(inode->i_mode) &&
	       MAJOR(inode->i_rdev) == NVD_MAJOR &&
	       MINOR(inode->i_rdev) == m->minor;
}

/* nv_is_gpu_accessible(): the CALLING process holds the GPU's node open. */
static bool nvs_gpu_accessible(unsigned int gpu)
{
	struct nvs_match m = {
		.minor = gpu,
		.own_fops = nvs_version_at_least(550, 40, 7),
	};

	if (!current->files)
		return false;
	return iterate_fd(current->files, 0, nvs_match_gpu_file, &m) != 0;
}

static u32 nvs_client_new(struct nvs_file *nf, u32 *h_new, bool nonpriv)
{
	struct nvs_client *cl;
	u32 h = *h_new;

	lockdep_assert_held(&nvs.lock);
	if (nvs.nclients >= NVS_MAX_CLIENTS)
		return NV_ERR_INSUFFICIENT_RESOURCES;
	if (h) {
		if (nvs_client_find(h))
			return NV_ERR_INVALID_OBJECT_NEW;
	} else {
		/* The lowest free handle, so that a lone session is repeatable. */
		for (h = NVS_CLIENT_BASE + 1;
		     h < NVS_CLIENT_BASE + NVS_CLIENT_LIMIT; h++)
			if (!nvs_client_find(h))
				break;
		if (h == NVS_CLIENT_BASE + NVS_CLIENT_LIMIT)
			return NV_ERR_INSUFFICIENT_RESOURCES;
	}
	cl = kzalloc(sizeof(*cl), GFP_KERNEL);
	if (!cl)
		return NV_ERR_NO_MEMORY;
	cl->handle = h;
	cl->tgid = task_tgid_nr(current);
	cl->owner = nvs_os_info(nf);
	cl->next_handle = NVS_HANDLE_BASE;
	cl->nonpriv = nonpriv;
	cl->imex_channel = -1;
	INIT_LIST_HEAD(&cl->objects);
	list_add_tail(&cl->node, &nvs.clients);
	nvs.nclients++;
	nvs_count(NVS_CNT_CLIENTS, 1);
	*h_new = h;
	return NV_OK;
}

/* ---- MIG: subscriptions, sessions, what needs an instance ---- */

/* A child of @parent of class @hclass, or NULL. */
static struct nvs_object *nvs_obj_child(struct nvs_client *cl, u32 parent, u32 hclass)
{
	struct nvs_object *o;

	list_for_each_entry(o, &cl->objects, node)
		if (o->parent == parent && o->hclass == hclass)
			return o;
	return NULL;
}

/* The device @o is or is below, or NULL. */
static struct nvs_object *nvs_obj_device(struct nvs_client *cl, struct nvs_object *o)
{
	while (o && o->hclass != NV01_DEVICE_0)
		o = nvs_obj_find(cl, o->parent);
	return o;
}

/*
 * kmigmgrGetInstanceRefFromDevice(): the GPU instance subscription under
 * the device's subdevice; none for a profiling one (it has no instance).
 */
static struct nvs_object *nvs_mig_ref(struct nvs_client *cl, u32 device)
{
	struct nvs_object *sub = nvs_obj_child(cl, device, NV20_SUBDEVICE_0), *gi;

	gi = sub ? nvs_obj_child(cl, sub->handle, AMPERE_SMC_PARTITION_REF) : NULL;
	return gi && !gi->profiling ? gi : NULL;
}

/*
 * _gisubscriptionClientSharesVASCrossPartition(): the device's VA space
 * must not be shared across GPU instances.  hClientShare 0 is the global
 * VA space (refused), the client itself is fine, another client must hold
 * a device on this GPU subscribed to the same instance.
 */
static u32 nvs_mig_vas_check(struct nvs_client *cl, struct nvs_object *dev, u32 swizz)
{
	struct nvs_object *o, *ref;
	struct nvs_client *share;

	if (!dev->client_share)
		return NV_ERR_STATE_IN_USE;
	if (dev->client_share == cl->handle)
		return NV_OK;
	share = nvs_client_find(dev->client_share);
	if (!share)
		return NV_ERR_INVALID_OBJECT_HANDLE;
	list_for_each_entry(o, &share->objects, node) {
		if (o->hclass != NV01_DEVICE_0 || o->gpu != dev->gpu)
			continue;
		ref = nvs_mig_ref(share, o->handle);
		if (ref && ref->swizz == swizz)
			return NV_OK;
	}
	return NV_ERR_STATE_IN_USE;
}

/*
 * osRmCapAcquire() with nv_cap_validate_and_dup_fd(): the capDescriptor
 * (at 0 in every MIG params, read as an int) must be a cap file of @minor
 * in the caller's table; RM keeps the duplicate it installs.  The log gets
 * the number received, what it named, and the duplicate (-1: refused).
 */
static u32 nvs_cap_acquire(struct nvs_object *o, int minor, const void *params, u32 psize,
			   struct nvs_call *c)
{
	int fd = (int)*(const u64 *)params;
	char kind[NVS_KIND_LEN];
	struct file *f = fget(fd);

	nvs_rx_fd(f);
	nvs_file_kind(f, kind);
	if (f)
		fput(f);
	nvs_call_add(c, " capfd=%d fdfile=%s fsum=%016llx", fd, kind,
		     nvs_fnv1a_nofd(params, psize, 0));
	o->dup_fd = nvs_cap_validate_and_dup(fd, minor);
	nvs_call_add(c, " dupfd=%d", o->dup_fd);
	return o->dup_fd < 0 ? NV_ERR_INSUFFICIENT_PERMISSIONS : NV_OK;
}

/* gisubscriptionConstruct(): AMPERE_SMC_PARTITION_REF under a subdevice. */
static u32 nvs_gi_subscribe(struct nvs_client *cl, struct nvs_object *o,
			    const struct nvd_alloc_c637 *p, struct nvs_call *c)
{
	struct nvs_gpu *g = &nvs_gpus[o->gpu];
	struct nvs_object *dev = nvs_obj_device(cl, o);
	u32 status;

	o->swizz = p->swizzId;
	o->device = dev->handle;
	nvs_call_add(c, " swizzid=%u", p->swizzId);
	if (!g->mig)
		return NV_ERR_NOT_SUPPORTED;
	/* Device-level profiling: admins only (RmProfilingAdminOnly), one per GPU. */
	if (p->swizzId == NVC637_DEVICE_PROFILING_SWIZZID) {
		if (!capable(CAP_SYS_ADMIN) || cl->nonpriv)
			return NV_ERR_INSUFFICIENT_PERMISSIONS;
		if (g->profiling)
			return NV_ERR_INVALID_STATE;
		g->profiling = true;
		o->profiling = true;
		return NV_OK;
	}
	if (!g->gi_mask)
		return NV_ERR_NOT_SUPPORTED;
	if (p->swizzId >= NVD_MIG_MAX_GI || !(g->gi_mask & BIT(p->swizzId)))
		return NV_ERR_INVALID_ARGUMENT;
	status = nvs_mig_vas_check(cl, dev, p->swizzId);
	if (status)
		return status;
	return nvs_cap_acquire(o, nvs_cap_minor_mig(o->gpu, p->swizzId, -1), p, sizeof(*p), c);
}

/* cisubscriptionConstruct(): AMPERE_SMC_EXEC_PARTITION_REF under a GI's. */
static u32 nvs_ci_subscribe(struct nvs_object *gi, struct nvs_object *o,
			    const struct nvd_alloc_c638 *p, struct nvs_call *c)
{
	const struct nvs_gpu *g = &nvs_gpus[o->gpu];

	o->device = gi->device;
	o->swizz = gi->swizz;
	o->ci = p->execPartitionId;
	nvs_call_add(c, " execpartitionid=%u", p->execPartitionId);
	if (!g->gi_mask)
		return NV_ERR_NOT_SUPPORTED;
	if (p->execPartitionId >= NVD_MIG_MAX_CI)
		return NV_ERR_INVALID_ARGUMENT;
	if (gi->profiling)
		return NV_ERR_INVALID_STATE;
	if (!(g->ci_mask[gi->swizz] & BIT(p->execPartitionId)))
		return NV_ERR_INVALID_ARGUMENT;
	return nvs_cap_acquire(o, nvs_cap_minor_mig(o->gpu, gi->swizz, p->execPartitionId), p,
			       sizeof(*p), c);
}

/*
 * What the constructor of the class checks once the resource server has
 * placed the object, before it exists (RM's order): a status.
 */
static u32 nvs_construct(struct nvs_client *cl, struct nvs_object *parent, struct nvs_object *o,
			 union nvs_alloc_params *p, u32 mem_status, struct nvs_call *c)
{
	switch (o->hclass) {
	case AMPERE_SMC_PARTITION_REF:
		return nvs_gi_subscribe(cl, o, &p->c637, c);
	case AMPERE_SMC_EXEC_PARTITION_REF:
		return nvs_ci_subscribe(parent, o, &p->c638, c);
	case AMPERE_SMC_CONFIG_SESSION:		/* migconfigsessionConstruct() */
		return nvs_cap_acquire(o, NVD_CAP_MINOR_MIG_CONFIG, p, sizeof(p->c639), c);
	case AMPERE_SMC_MONITOR_SESSION:	/* migmonitorsessionConstruct() */
		return nvs_cap_acquire(o, NVD_CAP_MINOR_MIG_MONITOR, p, sizeof(p->c639), c);
	case NV01_MEMORY_LOCAL_USER:
		/*
		 * vidmemConstruct(): video memory only, not virtual; then the
		 * heap, which with GPU instances is the instance's the device
		 * is subscribed to (kmigmgrGetMemoryPartitionHeapFromDevice):
		 * a user client without one gets none.
		 */
		if (NVOS32_ATTR_LOCATION(p->mem.attr) != 0 ||
		    (p->mem.flags & NVOS32_ALLOC_FLAGS_VIRTUAL))
			return NV_ERR_INVALID_ARGUMENT;
		if (nvs_gpus[o->gpu].gi_mask &&
		    !nvs_mig_ref(cl, nvs_obj_device(cl, parent)->handle)) {
			nvs_call_add(c, " mig=unsubscribed");
			return NV_ERR_INVALID_STATE;
		}
		return mem_status;
	}
	return NV_OK;
}

static bool nvs_is_mem_class(u32 hclass)
{
	return hclass == NV01_MEMORY_SYSTEM || hclass == NV01_MEMORY_LOCAL_USER;
}

/*
 * gisubscriptionCleanupOnUnsubscribe(): when a GPU or compute instance
 * subscription goes, what was made below its device goes too, except
 * devices, subdevices and subscriptions.
 */
static void nvs_mig_unsubscribed(struct nvs_client *cl)
{
	struct nvs_object *o, *dev;
	u32 device = cl->unsub_device;

	cl->unsub_device = 0;
	if (!device)
		return;
again:
	list_for_each_entry(o, &cl->objects, node) {
		if (o->hclass == NV01_DEVICE_0 || o->hclass == NV20_SUBDEVICE_0 ||
		    o->hclass == AMPERE_SMC_PARTITION_REF ||
		    o->hclass == AMPERE_SMC_EXEC_PARTITION_REF)
			continue;
		dev = nvs_obj_device(cl, nvs_obj_find(cl, o->parent));
		if (dev && dev->handle == device) {
			nvs_obj_free_tree(cl, o->handle);
			goto again;
		}
	}
}

static u32 nvs_object_new(struct nvs_file *nf, u32 h_root, u32 h_parent,
			  u32 *h_new, u32 hclass, union nvs_alloc_params *p,
			  struct nvs_mem **mem, u32 mem_status, struct nvs_object **out,
			  struct nvs_call *c)
{
	struct nvs_object *parent = NULL, *o;
	struct nvs_osevent *osev = NULL;
	struct nvs_client *cl;
	u32 pclass, status, h;
	unsigned int gpu = 0;

	lockdep_assert_held(&nvs.lock);
	cl = nvs_client_get(nf, h_root, &status);
	if (!cl)
		return status;
	if (cl->nobjects >= NVS_MAX_OBJECTS)
		return NV_ERR_INSUFFICIENT_RESOURCES;
	if (h_parent == cl->handle) {
		pclass = NV01_ROOT_CLIENT;
	} else {
		parent = nvs_obj_find(cl, h_parent);
		if (!parent)
			return NV_ERR_INVALID_OBJECT_PARENT;
		pclass = parent->hclass;
	}

	switch (hclass) {
	case NV01_DEVICE_0:
		if (pclass != NV01_ROOT_CLIENT)
			return NV_ERR_INVALID_OBJECT_PARENT;
		/* gpumgrIsDeviceInstanceValid() fails as an invalid class. */
		if (p->dev.deviceId >= nvs_ngpus)
			return NV_ERR_INVALID_CLASS;
		gpu = p->dev.deviceId;
		break;
	case NV20_SUBDEVICE_0:
		if (pclass != NV01_DEVICE_0)
			return NV_ERR_INVALID_OBJECT_PARENT;
		if (p->sub.subDeviceId != 0)
			return NV_ERR_INVALID_ARGUMENT;
		gpu = parent->gpu;
		break;
	case NV01_EVENT_OS_EVENT:
		if (pclass != NV01_ROOT_CLIENT && pclass != NV01_DEVICE_0 &&
		    pclass != NV20_SUBDEVICE_0)
			return NV_ERR_INVALID_OBJECT_PARENT;
		if (p->ev.hParentClient && p->ev.hParentClient != cl->handle)
			return NV_ERR_INVALID_CLIENT;
		if (p->ev.hSrcResource && p->ev.hSrcResource != cl->handle &&
		    !nvs_obj_find(cl, p->ev.hSrcResource))
			return NV_ERR_INVALID_OBJECT_HANDLE;
		/* osUserHandleToKernelPtr(): data is the ALLOC_OS_EVENT key. */
		osev = nvs_osevent_find(cl->handle, (u32)p->ev.data);
		if (!osev)
			return NV_ERR_OBJECT_NOT_FOUND;
		break;
	case NV01_MEMORY_SYSTEM:
		if (pclass != NV01_DEVICE_0)
			return NV_ERR_INVALID_OBJECT_PARENT;
		gpu = parent->gpu;
		break;
	case NV01_MEMORY_LOCAL_USER:
		if (pclass != NV01_DEVICE_0 && pclass != NV20_SUBDEVICE_0)
			return NV_ERR_INVALID_OBJECT_PARENT;
		gpu = parent->gpu;
		break;
	/*
	 * The MIG classes are single-instance (resource_list.h): a second
	 * under the same parent is refused before the parent's class is.
	 */
	case AMPERE_SMC_PARTITION_REF:
	case AMPERE_SMC_EXEC_PARTITION_REF:
	case AMPERE_SMC_CONFIG_SESSION:
	case AMPERE_SMC_MONITOR_SESSION:
		if (nvs_obj_child(cl, h_parent, hclass))
			return NV_ERR_STATE_IN_USE;
		if (pclass != (hclass == AMPERE_SMC_PARTITION_REF ? NV20_SUBDEVICE_0 :
			       hclass == AMPERE_SMC_EXEC_PARTITION_REF ? AMPERE_SMC_PARTITION_REF :
			       NV01_ROOT_CLIENT))
			return NV_ERR_INVALID_OBJECT_PARENT;
		gpu = parent ? parent->gpu : 0;
		break;
	default:
		return NV_ERR_INVALID_CLASS;
	}

	h = *h_new;
	if (!h) {
		do {
			h = cl->next_handle++;
		} while (h == cl->handle || nvs_obj_find(cl, h));
	} else if (h == cl->handle || nvs_obj_find(cl, h)) {
		return NV_ERR_INVALID_OBJECT_NEW;
	}

	/* deviceConstruct(): the caller must hold the GPU node open. */
	if (hclass == NV01_DEVICE_0 && !nvs_gpu_accessible(gpu))
		return NV_ERR_INSUFFICIENT_PERMISSIONS;

	o = kzalloc(sizeof(*o), GFP_KERNEL);
	if (!o)
		return NV_ERR_NO_MEMORY;
	o->handle = h;
	o->parent = h_parent;
	o->hclass = hclass;
	o->gpu = gpu;
	o->dup_fd = -1;
	status = nvs_construct(cl, parent, o, p, mem_status, c);
	if (status) {
		kfree(o);
		return status;
	}
	if (hclass == NV20_SUBDEVICE_0) {
		o->notify = kzalloc(NV2080_NOTIFIERS_MAXCOUNT, GFP_KERNEL);
		if (!o->notify) {
			kfree(o);
			return NV_ERR_NO_MEMORY;
		}
	}
	if (hclass == NV01_DEVICE_0)
		o->client_share = p->dev.hClientShare;
	if (osev) {
		o->osev = osev;
		osev->refs++;
		o->ev_src = p->ev.hSrcResource;
		o->ev_index = p->ev.notifyIndex & 0xffff;
	}
	if (nvs_is_mem_class(hclass)) {
		o->mem = *mem;
		*mem = NULL;
		p->mem.size = (u64)o->mem->npages << PAGE_SHIFT;
		p->mem.limit = p->mem.size - 1;
	}
	list_add_tail(&o->node, &cl->objects);
	cl->nobjects++;
	nvs_count(NVS_CNT_OBJECTS, 1);
	*h_new = h;
	if (out)
		*out = o;
	return NV_OK;
}

/* Nv04AllocWithSecInfo(): a status; the object is created or not. */
static u32 nvs_alloc(struct nvs_file *nf, u32 h_root, u32 h_parent, u32 *h_new, u32 hclass,
		     bool nonpriv, u64 uparams, u64 urights, struct nvs_call *c)
{
	const struct nvs_class *k = nvs_class_find(hclass);
	union nvs_alloc_params p = {};
	struct nvs_mem *mem = NULL;
	u32 psize, status, mem_status = NV_OK;

	if (!k)
		return NV_ERR_INVALID_CLASS;
	/* rmapiGetClassAllocParamSize(): the caller's paramsSize is unused. */
	psize = (k->required || uparams) ? k->psize : 0;
	if (psize && !uparams)
		return NV_ERR_INVALID_ARGUMENT;
	if (psize) {
		if (copy_from_user(&p, u64_to_user_ptr(uparams), psize))
			return NV_ERR_INVALID_POINTER;
		nvs_call_add(c, " psize=%u psum=%016llx", psize,
			     nvs_fnv1a(NVS_FNV_INIT, &p, psize));
	}
	/* serverAllocApiCopyIn(): NVOS64's rights mask, after the params. */
	if (urights) {
		u32 mask;

		nvs_race_delay();
		if (copy_from_user(&mask, u64_to_user_ptr(urights), sizeof(mask)))
			return NV_ERR_INVALID_ADDRESS;
		nvs_call_add(c, " rights=0x%x", mask);
	}
	/* eventapiConstruct(): no ring-0 callbacks from user space. */
	if (hclass == NV01_EVENT_KERNEL_CALLBACK)
		return NV_ERR_ILLEGAL_ACTION;
	if (hclass == NV01_MEMORY_SYSTEM) {
		mem = nvs_mem_alloc(p.mem.size, &status);
		if (!mem)
			return status;
	}
	/* Video memory's size is looked at after the checks of its heap. */
	if (hclass == NV01_MEMORY_LOCAL_USER)
		mem = nvs_mem_alloc(p.mem.size, &mem_status);

	mutex_lock(&nvs.lock);
	if (hclass == NV01_ROOT_CLIENT)
		status = nvs_client_new(nf, h_new, nonpriv);
	else
		status = nvs_object_new(nf, h_root, h_parent, h_new, hclass,
					&p, &mem, mem_status, NULL, c);
	mutex_unlock(&nvs.lock);
	if (mem)
		nvs_mem_put(mem);
	if (status == NV_OK && psize &&
	    copy_to_user(u64_to_user_ptr(uparams), &p, psize))
		status = NV_ERR_INVALID_POINTER;
	return status;
}

/* ---- escapes ---- */

/*
 * The two forms of RM_ALLOC this release takes, told apart by size as
 * RmIoctl() does (nvos.h of each release): NVOS21 is 32 bytes throughout,
 * with paramsSize before its status from 535.43.02; NVOS64 is 40 bytes
 * before 535.43.02 (status at 32; from 525.47.04 a flags word before it,
 * status at 36) and 48 from 535.43.02 (paramsSize, flags, status at 40).
 * The handles, hClass and pAllocParms sit at the same offsets in all.
 * Return: the status offset for @size, or 0 for a size the release refuses.
 */
u32 nvs_alloc_status_off(u32 size)
{
	bool v535 = nvs_version_at_least(535, 43, 2);

	if (size == 32)
		return v535 ? 28 : 24;
	if (size == (v535 ? 48 : 40))
		return v535 ? 40 : nvs_version_at_least(525, 47, 4) ? 36 : 32;
	return 0;
}

static int nvs_esc_rm_alloc(struct nvs_file *nf, void *buf, u32 size,
			    struct nvs_call *c)
{
	struct nvd_os21 *a = buf;
	u32 off = nvs_alloc_status_off(size);
	bool nonpriv = a->hClass == NV01_ROOT_NON_PRIV;
	u32 *status;

	if (!off)
		return -EINVAL;
	status = buf + off;

	nvs_call_add(c, " class=0x%x", a->hClass);
	switch (a->hClass) {
	case NV01_ROOT:
	case NV01_ROOT_NON_PRIV:
	case NV01_ROOT_CLIENT:
		if (!nvs_is_ctl(nf))
			return -EINVAL;
		/* Force user-space client allocations to the _CLIENT class. */
		a->hClass = NV01_ROOT_CLIENT;
		break;
	case NV01_EVENT_OS_EVENT:
	case NV01_EVENT_KERNEL_CALLBACK:
		break;
	default:
		if (!nvs_is_ctl(nf))
			return -EINVAL;
		break;
	}
	/* Every NVOS64 form has the rights pointer after pAllocParms. */
	*status = nvs_alloc(nf, a->hRoot, a->hObjectParent, &a->hObjectNew,
			    a->hClass, nonpriv, a->pAllocParms,
			    size != 32 ? ((struct nvd_os64 *)buf)->pRightsRequested : 0, c);
	return 0;
}

static int nvs_esc_rm_free(struct nvs_file *nf, void *buf, u32 size, struct nvs_call *c)
{
	struct nvd_os00 *p = buf;
	struct nvs_client *cl;
	u32 status = NV_OK;

	if (size != sizeof(*p) || !nvs_is_ctl(nf))
		return -EINVAL;
	mutex_lock(&nvs.lock);
	nvs_cur_call = c;
	cl = nvs_client_get(nf, p->hRoot, &status);
	if (!cl) {
		/* _serverFreeClient(): a client that is not there is a bad handle */
		if (p->hObjectOld == p->hRoot)
			status = NV_ERR_INVALID_OBJECT_HANDLE;
	} else if (p->hObjectOld == p->hRoot) {
		nvs_client_free_os_events(cl->handle);
		nvs_client_destroy(cl);
	} else if (!nvs_obj_find(cl, p->hObjectOld)) {
		status = NV_ERR_INVALID_OBJECT_HANDLE;
	} else {
		nvs_obj_free_tree(cl, p->hObjectOld);
		nvs_mig_unsubscribed(cl);
	}
	nvs_cur_call = NULL;
	mutex_unlock(&nvs.lock);
	p->status = status;
	return 0;
}

/* ---- RM controls ---- */

struct nvs_ctrl {
	struct nvs_client *cl;
	struct nvs_object *obj;		/* NULL for the client itself */
	void *params;
	u32 cmd;
	struct nvs_call *c;
	bool copyout_on_error;		/* the caller gets its params back even so */
};

static void nvs_post_event(struct nvs_osevent *e, u32 h_event, u32 index)
{
	struct nvs_file *f = e->file;
	struct nvs_event_data *ed;

	lockdep_assert_held(&nvs.lock);
	if (!e->registered || !f)
		return;
	ed = kzalloc(sizeof(*ed), GFP_KERNEL);
	if (!ed)
		return;
	ed->ev.hObject = h_event;
	ed->ev.NotifyIndex = index;
	spin_lock(&f->ev_lock);
	if (f->ev_queued < NVS_MAX_QUEUED) {
		list_add_tail(&ed->node, &f->ev_queue);
		f->ev_queued++;
		nvs_count(NVS_CNT_QUEUED_EVENTS, 1);
		ed = NULL;
	}
	spin_unlock(&f->ev_lock);
	kfree(ed);
	wake_up_interruptible(&f->ev_wait);
}

static u32 nvs_ctrl_build_version(struct nvs_ctrl *x)
{
	u8 *p = x->params;
	const unsigned int n = NV_BUILD_VERSION_V2_STRING;
	bool branch = nvs_version_at_least(560, 28, 3);
	unsigned int title = branch ? 3 * n : 2 * n;
	u32 cl = 0;

	strscpy(p, nvs_version_str, n);
	strscpy(p + n, nvs_version_str, n);
	if (branch)
		snprintf(p + 2 * n, n, "r%.3s_00", nvs_version_str);
	snprintf(p + title, n,
		 "NVIDIA UNIX Open Kernel Module for x86_64  %s  Release Build  (standin)",
		 nvs_version_str);
	memcpy(p + title + n, &cl, sizeof(cl));
	memcpy(p + title + n + 4, &cl, sizeof(cl));
	return NV_OK;
}

static u32 nvs_ctrl_attached_ids(struct nvs_ctrl *x)
{
	struct nvd_ctrl_attached_ids *p = x->params;
	unsigned int i;

	for (i = 0; i < NV0000_CTRL_GPU_MAX_ATTACHED_GPUS; i++)
		p->gpuIds[i] = i < nvs_ngpus ? nvs_gpus[i].gpu_id :
					       NV0000_CTRL_GPU_INVALID_ID;
	return NV_OK;
}

/* gpumgrGetProbedGpuIds(): the GPUs, then INVALID_ID; gpuFlags past them untouched. */
static u32 nvs_ctrl_probed_ids(struct nvs_ctrl *x)
{
	struct nvd_ctrl_probed_ids *p = x->params;
	unsigned int i;

	for (i = 0; i < ARRAY_SIZE(p->gpuIds); i++) {
		p->gpuIds[i] = i < nvs_ngpus ? nvs_gpus[i].gpu_id : NV0000_CTRL_GPU_INVALID_ID;
		p->excludedGpuIds[i] = NV0000_CTRL_GPU_INVALID_ID;
		if (i < nvs_ngpus && nvs_version_at_least(580, 0, 0))
			p->gpuFlags[i] = 0;
	}
	return NV_OK;
}

/*
 * The RM describes the host's CPU from CPUID; the stand-in says only how
 * many CPUs there are, so its payload is not the driver's, its status is.
 */
static u32 nvs_ctrl_cpu_info(struct nvs_ctrl *x)
{
	struct nvd_ctrl_cpu_info *p = x->params;

	p->numLogicalCpus = num_online_cpus();
	strscpy(p->name, "nvidia-standin", sizeof(p->name));
	return NV_OK;
}

/* gpumgrGetGpuFromId(): an attached GPU by its ID. */
static const struct nvs_gpu *nvs_gpu_by_id(u32 id)
{
	unsigned int i;

	for (i = 0; i < nvs_ngpus; i++)
		if (nvs_gpus[i].gpu_id == id)
			return &nvs_gpus[i];
	return NULL;
}

/*
 * gpumgrGetGpuIdInfoV2(), which GET_ID_INFO calls too: what it says of an
 * attached GPU, in V2's layout; NV_ERR_INVALID_ARGUMENT for any other ID.
 */
static u32 nvs_gpu_id_info(u32 id, struct nvd_ctrl_id_info_v2 *p)
{
	const struct nvs_gpu *g = nvs_gpu_by_id(id);

	if (!g)
		return NV_ERR_INVALID_ARGUMENT;
	p->gpuFlags = 0;
	p->deviceInstance = g - nvs_gpus;
	p->subDeviceInstance = 0;
	p->sliStatus = 0;
	p->boardId = g->gpu_id;
	p->gpuInstance = g - nvs_gpus;
	p->numaId = -1;
	return NV_OK;
}

static u32 nvs_ctrl_id_info_v2(struct nvs_ctrl *x)
{
	struct nvd_ctrl_id_info_v2 *p = x->params;

	return nvs_gpu_id_info(p->gpuId, p);
}

/* GPU_GET_ID_INFO: V2's answer with the (unused) name pointer in the middle. */
static u32 nvs_ctrl_id_info(struct nvs_ctrl *x)
{
	struct nvd_ctrl_id_info *p = x->params;
	struct nvd_ctrl_id_info_v2 v2;
	u32 st = nvs_gpu_id_info(p->gpuId, &v2);

	if (st != NV_OK)
		return st;
	p->gpuFlags = v2.gpuFlags;
	p->deviceInstance = v2.deviceInstance;
	p->subDeviceInstance = v2.subDeviceInstance;
	p->sliStatus = v2.sliStatus;
	p->boardId = v2.boardId;
	p->gpuInstance = v2.gpuInstance;
	p->numaId = v2.numaId;
	return NV_OK;
}

static u32 nvs_ctrl_num_subdevices(struct nvs_ctrl *x)
{
	((struct nvd_ctrl_num_subdevices *)x->params)->numSubDevices = 1;
	return NV_OK;
}

/*
 * GPU_GET_CLASSLIST (gpuGetClassList()): without a list the number of
 * classes; with one, the classes, as many as numClasses says it holds, and
 * NV_ERR_INVALID_PARAM_STRUCT (numClasses left alone) when it is short.
 * The list is RM's kernel copy (nvs_emb_in()).
 */
static u32 nvs_ctrl_classlist(struct nvs_ctrl *x)
{
	static const u32 classes[] = {
		NV01_MEMORY_SYSTEM, NV01_EVENT_OS_EVENT, NV01_DEVICE_0, NV20_SUBDEVICE_0,
	};
	u32 *num = x->params, *list;
	unsigned int i;
	u64 p;

	memcpy(&p, x->params + 8, sizeof(p));
	list = (u32 *)(uintptr_t)p;
	if (list) {
		if (*num < ARRAY_SIZE(classes))
			return NV_ERR_INVALID_PARAM_STRUCT;
		for (i = 0; i < ARRAY_SIZE(classes); i++)
			list[i] = classes[i];
	}
	*num = ARRAY_SIZE(classes);
	return NV_OK;
}

static u32 nvs_ctrl_gid_info(struct nvs_ctrl *x)
{
	struct nvd_ctrl_gid_info *p = x->params;
	const u8 *u = nvs_gpus[x->obj->gpu].uuid;

	memset(p->data, 0, sizeof(p->data));
	if (p->flags & NV2080_GPU_GID_FLAGS_FORMAT_BINARY) {
		memcpy(p->data, u, 16);
		p->length = 16;
	} else {
		p->length = 1 + snprintf(p->data, sizeof(p->data),
					 "GPU-%*phN-%*phN-%*phN-%*phN-%*phN",
					 4, u, 2, u + 4, 2, u + 6, 2, u + 8,
					 6, u + 10);
	}
	return NV_OK;
}

/* Objects that belong to one GPU (o->gpu is meaningful). */
static bool nvs_obj_on_gpu(const struct nvs_object *o, unsigned int gpu)
{
	return (o->hclass == NV01_DEVICE_0 || o->hclass == NV20_SUBDEVICE_0 ||
		nvs_is_mem_class(o->hclass)) && o->gpu == gpu;
}

/*
 * subdeviceCtrlCmdGpuGetPids() -> gpuGetProcWithObject(): the processes
 * whose clients hold an object of class @id on this GPU, each once, as the
 * init pid namespace numbers them.  Only the class form is supported.
 */
static u32 nvs_ctrl_get_pids(struct nvs_ctrl *x)
{
	struct nvd_ctrl_get_pids *p = x->params;
	unsigned int gpu = x->obj->gpu, i, n = 0;
	struct nvs_client *cl;
	struct nvs_object *o;

	if (p->idType != NV2080_CTRL_GPU_GET_PIDS_ID_TYPE_CLASS)
		return NV_ERR_INVALID_ARGUMENT;
	memset(p->pidTbl, 0, sizeof(p->pidTbl));
	list_for_each_entry(cl, &nvs.clients, node) {
		list_for_each_entry(o, &cl->objects, node)
			if (o->hclass == p->id && nvs_obj_on_gpu(o, gpu))
				break;
		if (list_entry_is_head(o, &cl->objects, node))
			continue;
		for (i = 0; i < n && p->pidTbl[i] != (u32)cl->tgid; i++)
			;
		if (i == n && n < NV2080_CTRL_GPU_GET_PIDS_MAX_COUNT)
			p->pidTbl[n++] = cl->tgid;
	}
	p->pidTblCount = n;
	return NV_OK;
}

static u32 nvs_ctrl_set_notification(struct nvs_ctrl *x)
{
	struct nvd_ctrl_set_notification *p = x->params;

	if (p->event >= NV2080_NOTIFIERS_MAXCOUNT ||
	    p->action > NV2080_EVENT_ACTION_REPEAT)
		return NV_ERR_INVALID_ARGUMENT;
	x->obj->notify[p->event] = p->action;
	return NV_OK;
}

/*
 * subdeviceCtrlCmdEventSetTrigger(): fire NV2080_NOTIFIERS_SW.  The real RM
 * notifies every subdevice of the GPU; the stand-in only the one the
 * control names, so that concurrent sessions stay independent.
 */
static u32 nvs_ctrl_set_trigger(struct nvs_ctrl *x)
{
	struct nvs_object *sub = x->obj, *o;
	u8 action = sub->notify[NV2080_NOTIFIERS_SW];

	if (action == NV2080_EVENT_ACTION_DISABLE)
		return NV_OK;
	list_for_each_entry(o, &x->cl->objects, node)
		if (o->hclass == NV01_EVENT_OS_EVENT &&
		    o->ev_src == sub->handle &&
		    o->ev_index == NV2080_NOTIFIERS_SW)
			nvs_post_event(o->osev, o->handle, NV2080_NOTIFIERS_SW);
	if (action == NV2080_EVENT_ACTION_SINGLE)
		sub->notify[NV2080_NOTIFIERS_SW] = NV2080_EVENT_ACTION_DISABLE;
	return NV_OK;
}

/* ---- file descriptors in payloads ---- */

static bool nvs_is_our_ctl(struct file *f)
{
	return f && f->f_op == &nvs_fops && nvs_is_ctl(f->private_data);
}

/* fget() in the CALLER's fd table, named for the log. */
static struct file *nvs_fd_resolve(int fd, struct nvs_call *c,
				   const void *buf, u32 size, u32 fd_off)
{
	char kind[NVS_KIND_LEN];
	struct file *f = fget(fd);

	nvs_rx_fd(f);
	nvs_file_kind(f, kind);
	nvs_call_add(c, " fdfile=%s fsum=%016llx", kind,
		     nvs_fnv1a_nofd(buf, size, fd_off));
	return f;
}

/* ---- NV0000 system and GPU-manager controls (no GPU needed) ---- */

/*
 * The probed-GPU slots (32): a GPU's ID, or INVALID_ID with everything else
 * zero in an empty slot, which a lookup of INVALID_ID therefore finds.
 * The slot index, or -1.
 */
static int nvs_probed_slot(u32 id)
{
	const struct nvs_gpu *g = nvs_gpu_by_id(id);

	if (g)
		return g - nvs_gpus;
	if (id == NV0000_CTRL_GPU_INVALID_ID && nvs_ngpus < NV0000_CTRL_GPU_MAX_ATTACHED_GPUS)
		return nvs_ngpus;
	return -1;
}

/*
 * SYSTEM_GET_P2P_CAPS and _V2: at least one GPU and at most 32, the first
 * attached.  P2P_CAPS carries pointers to peer-ID arrays of gpuCount^2
 * entries that the RM copies in before the handler: a pointer it cannot
 * size (no GPUs counted, or over 1 MiB) fails that copy, and the caller
 * gets its params back with the pointer cleared.  Between GPUs that are
 * there, the stand-in models no peer-to-peer: NOT_SUPPORTED.
 */
static u32 nvs_ctrl_p2p_caps(struct nvs_ctrl *x)
{
	struct nvd_ctrl_p2p_caps *p = x->params;
	u64 peers = (u64)p->gpuCount * p->gpuCount * 4;

	if (x->cmd == NV0000_CTRL_CMD_SYSTEM_GET_P2P_CAPS && (!peers || peers > SZ_1M)) {
		if (p->busPeerIds) {
			p->busPeerIds = 0;
			x->copyout_on_error = true;
			return NV_ERR_INVALID_ARGUMENT;
		}
		if (nvs_version_at_least(580, 0, 0) && p->busEgmPeerIds) {
			p->busEgmPeerIds = 0;
			x->copyout_on_error = true;
			return NV_ERR_INVALID_ARGUMENT;
		}
	}
	if (!p->gpuCount || p->gpuCount > 32 || !nvs_gpu_by_id(p->gpuIds[0]))
		return NV_ERR_INVALID_ARGUMENT;
	return NV_ERR_NOT_SUPPORTED;
}

/* SYSTEM_GET_P2P_CAPS_MATRIX: group A of 1 to 8 GPUs, B of up to 8. */
static u32 nvs_ctrl_p2p_matrix(struct nvs_ctrl *x)
{
	u32 *p = x->params;	/* grpACount, grpBCount, gpuIdGrpA[8] */

	if (!p[0] || p[0] > 8 || p[1] > 8 || !nvs_gpu_by_id(p[2]))
		return NV_ERR_INVALID_ARGUMENT;
	return NV_ERR_NOT_SUPPORTED;
}

/* No NVSwitch, so the fabric is not managed from outside: SKIP. */
static u32 nvs_ctrl_fabric_status(struct nvs_ctrl *x)
{
	*(u32 *)x->params = 1;
	return NV_OK;
}

/*
 * SYSTEM_GET_FEATURES: 535 says whether the host booted through UEFI
 * (bit 1); 580 and later not.  UUID-based memory sharing (bit 3) is on
 * from 550.40.53 while there are IMEX channels (NVreg_ImexChannelCount
 * not 0; 550.40.07 had it behind a registry key, off by default).
 */
static u32 nvs_ctrl_features(struct nvs_ctrl *x)
{
	u32 *mask = x->params;

	*mask = 0;
	if (!nvs_version_at_least(580, 0, 0) && efi_enabled(EFI_BOOT))
		*mask |= 1u << 1;
	if (nvs_imex_channels)
		*mask |= 1u << 3;
	return NV_OK;
}

/* GPU_GET_DEVICE_IDS: one device instance per GPU, as ID_INFO numbers them. */
static u32 nvs_ctrl_device_ids(struct nvs_ctrl *x)
{
	*(u32 *)x->params = nvs_ngpus ? GENMASK(nvs_ngpus - 1, 0) : 0;
	return NV_OK;
}

/*
 * GPU_ATTACH_IDS and GPU_DETACH_IDS: "all" attaches or detaches every GPU;
 * otherwise each ID up to the first INVALID_ID must be a GPU (the
 * stand-in's GPUs are probed and attached at once and stay so).
 */
static u32 nvs_ctrl_attach_ids(struct nvs_ctrl *x)
{
	struct nvd_ctrl_gpu_ids *p = x->params;
	unsigned int i;

	if (p->gpuIds[0] == NV0000_CTRL_GPU_ATTACH_ALL_PROBED_IDS)
		return NV_OK;
	for (i = 0; i < 32 && p->gpuIds[i] != NV0000_CTRL_GPU_INVALID_ID; i++)
		if (!nvs_gpu_by_id(p->gpuIds[i]))
			return NV_ERR_INVALID_ARGUMENT;
	return NV_OK;
}

/* GPU_GET_PCI_INFO: from the probed slots; CARD_INFO's location. */
static u32 nvs_ctrl_pci_info(struct nvs_ctrl *x)
{
	struct nvd_ctrl_pci_info *p = x->params;
	int i = nvs_probed_slot(p->gpuId);

	if (i < 0)
		return NV_ERR_OBJECT_NOT_FOUND;
	p->domain = 0;
	p->bus = i < nvs_ngpus ? i + 1 : 0;
	p->slot = 0;
	return NV_OK;
}

/*
 * GPU_GET_UUID_FROM_GPU_ID: only attached GPUs have one, in the form
 * NV2080's GET_GID_INFO gives; a SHA-256 UUID is not there.
 */
static u32 nvs_ctrl_uuid_from_id(struct nvs_ctrl *x)
{
	u8 *p = x->params;	/* gpuId, flags, gpuUuid[256], uuidStrLen */
	const struct nvs_gpu *g = nvs_gpu_by_id(*(u32 *)p);
	u32 flags = *(u32 *)(p + 4), len;
	const u8 *u;

	if (!g)
		return NV_ERR_OBJECT_NOT_FOUND;
	if (flags & 0x4)
		return NV_ERR_INVALID_FLAGS;
	u = g->uuid;
	if ((flags & 0x3) == 0x2) {
		memcpy(p + 8, u, 16);
		len = 16;
	} else {
		len = 1 + snprintf(p + 8, 256, "GPU-%*phN-%*phN-%*phN-%*phN-%*phN",
				   4, u, 2, u + 4, 2, u + 6, 2, u + 8, 6, u + 10);
	}
	memcpy(p + 264, &len, sizeof(len));
	return NV_OK;
}

/* GPU_QUERY_DRAIN_STATE: from the probed slots; nothing is ever drained. */
static u32 nvs_ctrl_drain_state(struct nvs_ctrl *x)
{
	struct nvd_ctrl_drain_state *p = x->params;

	if (nvs_probed_slot(p->gpuId) < 0)
		return NV_ERR_OBJECT_NOT_FOUND;
	p->drainState = 0;
	p->flags = 0;
	return NV_OK;
}

/*
 * Answered from state the stand-in keeps at zero: MEMOP_ENABLE's mask (the
 * registry key that sets it is read only with a GPU), SYNC_GPU_BOOST_GROUP_INFO's
 * group count (no boost groups).  The rest of the params stays as given.
 */
static u32 nvs_ctrl_zero_u32(struct nvs_ctrl *x)
{
	*(u32 *)x->params = 0;
	return NV_OK;
}

/*
 * GPU_GET_ACTIVE_DEVICE_IDS: none with no GPU; what the RM lists for GPUs
 * (and their MIG instances) is not modelled.
 */
static u32 nvs_ctrl_active_ids(struct nvs_ctrl *x)
{
	if (nvs_ngpus)
		return NV_ERR_NOT_SUPPORTED;
	*(u32 *)x->params = 0;
	return NV_OK;
}

/* GPU_ASYNC_ATTACH_ID: the ID must be a probed GPU; no special values. */
static u32 nvs_ctrl_async_attach(struct nvs_ctrl *x)
{
	return nvs_gpu_by_id(*(u32 *)x->params) ? NV_OK : NV_ERR_INVALID_ARGUMENT;
}

static u32 nvs_ctrl_ok(struct nvs_ctrl *x)	/* GPU_WAIT_ATTACH_ID */
{
	return NV_OK;
}

/*
 * CLIENT_GET_ADDR_SPACE_TYPE: memory or GPU resources only.  The stand-in's
 * memory is system memory; what the RM says of a device or subdevice is
 * not modelled.
 */
static u32 nvs_ctrl_addr_space(struct nvs_ctrl *x)
{
	struct nvd_ctrl_addr_space_type *p = x->params;
	struct nvs_object *o;

	if (p->hObject == x->cl->handle)
		return NV_ERR_INVALID_OBJECT;
	o = nvs_obj_find(x->cl, p->hObject);
	if (!o)
		return NV_ERR_OBJECT_NOT_FOUND;
	if (o->hclass == NV01_MEMORY_SYSTEM) {
		p->addrSpaceType = 1;	/* SYSMEM */
		return NV_OK;
	}
	if (o->hclass == NV01_DEVICE_0 || o->hclass == NV20_SUBDEVICE_0)
		return NV_ERR_NOT_SUPPORTED;
	return NV_ERR_INVALID_OBJECT;
}

/*
 * CLIENT_SET_INHERITED_SHARE_POLICY: the type must be known; a policy that
 * shares with a client must name one that exists.  The stand-in keeps no
 * share policies (no object of it is shared between clients), so a valid
 * one changes nothing it answers.
 */
static u32 nvs_ctrl_share_policy(struct nvs_ctrl *x)
{
	struct nvd_ctrl_share_policy *p = x->params;

	if (p->type >= NVD_SHARE_TYPE_MAX)
		return NV_ERR_INVALID_ARGUMENT;
	if (!(p->action & NVD_SHARE_ACTION_REVOKE) && p->type == NVD_SHARE_TYPE_CLIENT &&
	    p->target != x->cl->handle && !nvs_client_find(p->target))
		return NV_ERR_INVALID_OBJECT_HANDLE;
	return NV_OK;
}

/*
 * The OS_UNIX export controls need the fd of a control file
 * (nv_get_file_private(fd, ctl)); 0 when @fd is one.  The stand-in exports
 * no objects: a file never holds exported handles.
 */
static bool nvs_ctl_fd(struct nvs_ctrl *x, int fd, u32 size, u32 fd_off)
{
	struct file *f = nvs_fd_resolve(fd, x->c, x->params, size, fd_off);
	bool ctl = nvs_is_our_ctl(f);

	if (f)
		fput(f);
	return ctl;
}

static u32 nvs_ctrl_export_object(struct nvs_ctrl *x)
{
	struct nvd_ctrl_export_object *p = x->params;

	if ((p->flags & 1) || p->type != 1 || p->fd == -1)
		return NV_ERR_INVALID_PARAMETER;
	if (p->hObject != x->cl->handle && !nvs_obj_find(x->cl, p->hObject))
		return NV_ERR_OBJECT_NOT_FOUND;
	if (!nvs_ctl_fd(x, p->fd, sizeof(*p), offsetof(typeof(*p), fd)))
		return NV_ERR_INVALID_PARAMETER;
	return NV_ERR_NOT_SUPPORTED;
}

static u32 nvs_ctrl_import_object(struct nvs_ctrl *x)
{
	struct nvd_ctrl_import_object *p = x->params;

	if (p->type != 1 || p->fd == -1)
		return NV_ERR_INVALID_PARAMETER;
	nvs_ctl_fd(x, p->fd, sizeof(*p), 0);
	return NV_ERR_INVALID_PARAMETER;	/* not a control file, or none exported */
}

/* GET_EXPORT_OBJECT_INFO and IMPORT_OBJECTS_FROM_FD: nothing exported. */
static u32 nvs_ctrl_export_info(struct nvs_ctrl *x)
{
	s32 fd = *(s32 *)x->params;

	if (fd >= 0)
		nvs_ctl_fd(x, fd, x->cmd == NV0000_CTRL_CMD_OS_UNIX_IMPORT_OBJECTS_FROM_FD ?
			   NVD_IMPORT_OBJECTS_SIZE : 4, 0);
	return NV_ERR_INVALID_PARAMETER;
}

static u32 nvs_ctrl_export_objects(struct nvs_ctrl *x)
{
	struct nvd_ctrl_export_objects *p = x->params;

	if (!nvs_ctl_fd(x, p->fd, NVD_EXPORT_OBJECTS_SIZE, 0) || !p->maxObjects)
		return NV_ERR_INVALID_PARAMETER;
	return NV_ERR_NOT_SUPPORTED;
}

/*
 * CLIENT_SUBSCRIBE_TO_IMEX_CHANNEL (cliresCtrlCmdClientSubscribeToImexChannel):
 * 550.40.07 answers channel 0 and looks at nothing.  From 550.40.53:
 * none with no IMEX channels; the devDescriptor (an int) must be an IMEX
 * channel file in the caller's table (nv_caps_imex_channel_get(): its f_op,
 * the channel its minor); a client keeps one channel for its life, the
 * same one again is fine (written back then only from 565.57.01).
 */
static u32 nvs_ctrl_imex_subscribe(struct nvs_ctrl *x)
{
	struct nvd_ctrl_imex_subscribe *p = x->params;
	int fd = (int)p->devDescriptor, ch;
	struct file *f;

	if (!nvs_version_at_least(550, 40, 53)) {
		p->channel = 0;
		return NV_OK;
	}
	if (!nvs_imex_channels)
		return NV_ERR_NOT_SUPPORTED;
	nvs_call_add(x->c, " devfd=%d", fd);
	f = nvs_fd_resolve(fd, x->c, p, sizeof(*p), 0);
	if (f)
		fput(f);
	ch = nvs_imex_channel_get(fd);
	nvs_call_add(x->c, " channel=%d held=%d", ch, x->cl->imex_channel);
	if (ch < 0)
		return NV_ERR_INSUFFICIENT_PERMISSIONS;
	if (x->cl->imex_channel == ch) {
		if (nvs_version_at_least(565, 57, 1))
			p->channel = ch;
		return NV_OK;
	}
	if (x->cl->imex_channel != -1)
		return NV_ERR_STATE_IN_USE;
	x->cl->imex_channel = ch;
	p->channel = ch;
	return NV_OK;
}

/* nvGetUuidString(): PREFIX-%08x-%04x-%04x-%04x-%012x of the bytes. */
static void nvs_mig_uuid_str(const u8 *u, char *str)
{
	snprintf(str, NVC637_UUID_STR_LEN, "MIG-%*phN-%*phN-%*phN-%*phN-%*phN",
		 4, u, 2, u + 4, 2, u + 6, 2, u + 8, 6, u + 10);
}

/* gisubscriptionCtrlCmdGetUuid(): the GPU instance's, "MIG-" made "MGI-". */
static u32 nvs_ctrl_gi_uuid(struct nvs_ctrl *x)
{
	struct nvd_ctrl_mig_uuid *p = x->params;

	if (x->obj->profiling)
		return NV_ERR_NOT_SUPPORTED;
	nvs_mig_uuid(x->obj->gpu, x->obj->swizz, 0xff, p->uuid);
	nvs_mig_uuid_str(p->uuid, p->uuidStr);
	p->uuidStr[1] = 'G';
	p->uuidStr[2] = 'I';
	return NV_OK;
}

/* cisubscriptionCtrlCmdGetUuid(): the compute instance's. */
static u32 nvs_ctrl_ci_uuid(struct nvs_ctrl *x)
{
	struct nvd_ctrl_mig_uuid *p = x->params;

	nvs_mig_uuid(x->obj->gpu, x->obj->swizz, x->obj->ci, p->uuid);
	nvs_mig_uuid_str(p->uuid, p->uuidStr);
	return NV_OK;
}

/*
 * EXEC_PARTITIONS_GET_ACTIVE_IDS: every compute instance of the GPU
 * instance, its id and UUID, whatever the client subscribed to.  On a
 * profiling subscription the driver follows a NULL instance; the stand-in
 * answers NV_ERR_INVALID_STATE.
 */
static u32 nvs_ctrl_ci_active_ids(struct nvs_ctrl *x)
{
	struct nvd_ctrl_active_ids *p = x->params;
	const struct nvs_gpu *g = &nvs_gpus[x->obj->gpu];
	u8 uuid[16];
	u32 ci, n = 0;

	if (!g->gi_mask || x->obj->profiling)
		return NV_ERR_INVALID_STATE;
	for (ci = 0; ci < NVD_MIG_MAX_CI; ci++) {
		if (!(g->ci_mask[x->obj->swizz] & BIT(ci)))
			continue;
		p->execPartId[n] = ci;
		nvs_mig_uuid(x->obj->gpu, x->obj->swizz, ci, uuid);
		nvs_mig_uuid_str(uuid, p->execPartUuid[n]);
		n++;
	}
	p->execPartCount = n;
	return NV_OK;
}

/*
 * BIOS_GET_INFO_V2, BUS_GET_INFO_V2: { NvU32 listSize; { index, data }[] }.
 * Each entry's data is made from its index, so that a caller can tell its
 * own entries came back filled; an index past the table is refused.
 */
static u32 nvs_ctrl_info_list(struct nvs_ctrl *x)
{
	u32 *p = x->params, n = p[0], i;
	u32 max = x->cmd == NV2080_CTRL_CMD_BIOS_GET_INFO_V2 ? NV2080_CTRL_BIOS_INFO_MAX_SIZE :
							     NV2080_CTRL_BUS_INFO_MAX_LIST_SIZE;

	if (n > max)
		return NV_ERR_INVALID_ARGUMENT;
	for (i = 0; i < n; i++) {
		u32 *e = &p[1 + 2 * i];

		if (e[0] >= 0x100)
			return NV_ERR_INVALID_ARGUMENT;
		e[1] = (x->cmd & 0xffff0000u) ^ (x->cmd << 8) ^ (0xa5u << 8) ^ e[0];
	}
	return NV_OK;
}

/*
 * The method table: command, class of object it runs on, params size (the
 * size before 580 where it differs), from 580 only, and cacheable (the RM
 * answers from a zeroed buffer and never reads the caller's params).
 */
#define NVS_M_NEW	0x1	/* not before 580 */
#define NVS_M_ZEROED	0x2	/* cacheable */
static const struct nvs_method {
	u32 cmd;
	u32 hclass;
	u32 size;		/* 0 when none; see nvs_method_size() */
	u32 (*fn)(struct nvs_ctrl *x);
	u32 size_old;
	u32 flags;
	u16 since[3];		/* the first release that has it, if set */
} nvs_methods[] = {
	{ NV0000_CTRL_CMD_SYSTEM_GET_BUILD_VERSION_V2, NV01_ROOT_CLIENT, 0,
	  nvs_ctrl_build_version, 0, NVS_M_ZEROED },
	{ NV0000_CTRL_CMD_SYSTEM_GET_P2P_CAPS, NV01_ROOT_CLIENT, NVD_P2P_CAPS_SIZE,
	  nvs_ctrl_p2p_caps, NVD_P2P_CAPS_SIZE_OLD },
	{ NV0000_CTRL_CMD_SYSTEM_GET_P2P_CAPS_V2, NV01_ROOT_CLIENT, NVD_P2P_CAPS_V2_SIZE,
	  nvs_ctrl_p2p_caps, NVD_P2P_CAPS_V2_SIZE_OLD },
	{ NV0000_CTRL_CMD_SYSTEM_GET_FABRIC_STATUS, NV01_ROOT_CLIENT, 4, nvs_ctrl_fabric_status },
	{ NV0000_CTRL_CMD_SYSTEM_GET_P2P_CAPS_MATRIX, NV01_ROOT_CLIENT, NVD_P2P_CAPS_MATRIX_SIZE,
	  nvs_ctrl_p2p_matrix },
	{ NV0000_CTRL_CMD_SYSTEM_GET_FEATURES, NV01_ROOT_CLIENT, 4, nvs_ctrl_features },
	{ NV0000_CTRL_CMD_GPU_GET_ID_INFO, NV01_ROOT_CLIENT, sizeof(struct nvd_ctrl_id_info),
	  nvs_ctrl_id_info },
	{ NV0000_CTRL_CMD_GPU_GET_DEVICE_IDS, NV01_ROOT_CLIENT, 4, nvs_ctrl_device_ids },
	{ NV0000_CTRL_CMD_GPU_ATTACH_IDS, NV01_ROOT_CLIENT, 132, nvs_ctrl_attach_ids },
	{ NV0000_CTRL_CMD_GPU_DETACH_IDS, NV01_ROOT_CLIENT, 128, nvs_ctrl_attach_ids },
	{ NV0000_CTRL_CMD_GPU_GET_PCI_INFO, NV01_ROOT_CLIENT, sizeof(struct nvd_ctrl_pci_info),
	  nvs_ctrl_pci_info },
	{ NV0000_CTRL_CMD_GPU_GET_UUID_FROM_GPU_ID, NV01_ROOT_CLIENT, 268, nvs_ctrl_uuid_from_id },
	{ NV0000_CTRL_CMD_GPU_QUERY_DRAIN_STATE, NV01_ROOT_CLIENT,
	  sizeof(struct nvd_ctrl_drain_state), nvs_ctrl_drain_state },
	{ NV0000_CTRL_CMD_GPU_GET_MEMOP_ENABLE, NV01_ROOT_CLIENT, 4, nvs_ctrl_zero_u32, 0,
	  NVS_M_ZEROED },
	{ NV0000_CTRL_CMD_GPU_GET_ACTIVE_DEVICE_IDS, NV01_ROOT_CLIENT, 3076, nvs_ctrl_active_ids,
	  0, NVS_M_NEW },
	{ NV0000_CTRL_CMD_GPU_ASYNC_ATTACH_ID, NV01_ROOT_CLIENT, 4, nvs_ctrl_async_attach, 0,
	  NVS_M_NEW },
	{ NV0000_CTRL_CMD_GPU_WAIT_ATTACH_ID, NV01_ROOT_CLIENT, 4, nvs_ctrl_ok, 0, NVS_M_NEW },
	{ NV0000_CTRL_CMD_SYNC_GPU_BOOST_GROUP_INFO, NV01_ROOT_CLIENT, 2244, nvs_ctrl_zero_u32 },
	{ NV0000_CTRL_CMD_CLIENT_GET_ADDR_SPACE_TYPE, NV01_ROOT_CLIENT,
	  sizeof(struct nvd_ctrl_addr_space_type), nvs_ctrl_addr_space },
	{ NV0000_CTRL_CMD_CLIENT_SET_INHERITED_SHARE_POLICY, NV01_ROOT_CLIENT,
	  sizeof(struct nvd_ctrl_share_policy), nvs_ctrl_share_policy },
	{ NV0000_CTRL_CMD_OS_UNIX_EXPORT_OBJECT_TO_FD, NV01_ROOT_CLIENT,
	  sizeof(struct nvd_ctrl_export_object), nvs_ctrl_export_object },
	{ NV0000_CTRL_CMD_OS_UNIX_IMPORT_OBJECT_FROM_FD, NV01_ROOT_CLIENT,
	  sizeof(struct nvd_ctrl_import_object), nvs_ctrl_import_object },
	{ NV0000_CTRL_CMD_OS_UNIX_GET_EXPORT_OBJECT_INFO, NV01_ROOT_CLIENT, NVD_EXPORT_INFO_SIZE,
	  nvs_ctrl_export_info, NVD_EXPORT_INFO_SIZE_OLD },
	{ NV0000_CTRL_CMD_OS_UNIX_EXPORT_OBJECTS_TO_FD, NV01_ROOT_CLIENT, NVD_EXPORT_OBJECTS_SIZE,
	  nvs_ctrl_export_objects },
	{ NV0000_CTRL_CMD_OS_UNIX_IMPORT_OBJECTS_FROM_FD, NV01_ROOT_CLIENT, NVD_IMPORT_OBJECTS_SIZE,
	  nvs_ctrl_export_info },
	{ NV0000_CTRL_CMD_GPU_GET_ATTACHED_IDS, NV01_ROOT_CLIENT,
	  sizeof(struct nvd_ctrl_attached_ids), nvs_ctrl_attached_ids },
	{ NV0000_CTRL_CMD_GPU_GET_ID_INFO_V2, NV01_ROOT_CLIENT,
	  sizeof(struct nvd_ctrl_id_info_v2), nvs_ctrl_id_info_v2 },
	{ NV0000_CTRL_CMD_GPU_GET_PROBED_IDS, NV01_ROOT_CLIENT,
	  sizeof(struct nvd_ctrl_probed_ids), nvs_ctrl_probed_ids },
	{ NV0000_CTRL_CMD_SYSTEM_GET_CPU_INFO, NV01_ROOT_CLIENT,
	  sizeof(struct nvd_ctrl_cpu_info), nvs_ctrl_cpu_info },
	{ NV0080_CTRL_CMD_GPU_GET_CLASSLIST, NV01_DEVICE_0, NVD_CLASSLIST_SIZE,
	  nvs_ctrl_classlist },
	{ NV0080_CTRL_CMD_GPU_GET_NUM_SUBDEVICES, NV01_DEVICE_0,
	  sizeof(struct nvd_ctrl_num_subdevices), nvs_ctrl_num_subdevices },
	{ NV2080_CTRL_CMD_GPU_GET_GID_INFO, NV20_SUBDEVICE_0,
	  sizeof(struct nvd_ctrl_gid_info), nvs_ctrl_gid_info },
	{ NV2080_CTRL_CMD_GPU_GET_PIDS, NV20_SUBDEVICE_0,
	  sizeof(struct nvd_ctrl_get_pids), nvs_ctrl_get_pids },
	{ NV2080_CTRL_CMD_EVENT_SET_NOTIFICATION, NV20_SUBDEVICE_0,
	  sizeof(struct nvd_ctrl_set_notification), nvs_ctrl_set_notification },
	{ NV2080_CTRL_CMD_EVENT_SET_TRIGGER, NV20_SUBDEVICE_0, 0,
	  nvs_ctrl_set_trigger },
	{ NV2080_CTRL_CMD_BIOS_GET_INFO_V2, NV20_SUBDEVICE_0,
	  4 + 8 * NV2080_CTRL_BIOS_INFO_MAX_SIZE, nvs_ctrl_info_list },
	{ NV2080_CTRL_CMD_BUS_GET_INFO_V2, NV20_SUBDEVICE_0,
	  4 + 8 * NV2080_CTRL_BUS_INFO_MAX_LIST_SIZE, nvs_ctrl_info_list },
	{ NV0000_CTRL_CMD_CLIENT_SUBSCRIBE_TO_IMEX_CHANNEL, NV01_ROOT_CLIENT,
	  sizeof(struct nvd_ctrl_imex_subscribe), nvs_ctrl_imex_subscribe, 0, 0, { 550, 40, 7 } },
	{ NVC637_CTRL_CMD_GET_UUID, AMPERE_SMC_PARTITION_REF, sizeof(struct nvd_ctrl_mig_uuid),
	  nvs_ctrl_gi_uuid, 0, 0, { 550, 40, 7 } },
	{ NVC637_CTRL_CMD_EXEC_PARTITIONS_GET_ACTIVE_IDS, AMPERE_SMC_PARTITION_REF,
	  sizeof(struct nvd_ctrl_active_ids), nvs_ctrl_ci_active_ids },
	{ NVC638_CTRL_CMD_GET_UUID, AMPERE_SMC_EXEC_PARTITION_REF,
	  sizeof(struct nvd_ctrl_mig_uuid), nvs_ctrl_ci_uuid },
};

static u32 nvs_method_size(const struct nvs_method *m)
{
	if (m->cmd == NV0000_CTRL_CMD_SYSTEM_GET_BUILD_VERSION_V2)
		return nvs_version_at_least(560, 28, 3) ?
		       NVD_BUILD_VERSION_V2_SIZE_NEW :
		       NVD_BUILD_VERSION_V2_SIZE_OLD;
	if (m->cmd == NV0000_CTRL_CMD_GPU_GET_PROBED_IDS && !nvs_version_at_least(580, 0, 0))
		return NVD_PROBED_IDS_SIZE_OLD;
	if (m->cmd == NV0000_CTRL_CMD_SYSTEM_GET_CPU_INFO && !nvs_version_at_least(580, 0, 0))
		return NVD_CPU_INFO_SIZE_OLD;
	if (m->size_old && !nvs_version_at_least(580, 0, 0))
		return m->size_old;
	return m->size;
}

static const struct nvs_method *nvs_method_find(u32 cmd)
{
	unsigned int i;

	for (i = 0; i < ARRAY_SIZE(nvs_methods); i++) {
		const struct nvs_method *m = &nvs_methods[i];

		if (m->cmd != cmd)
			continue;
		if ((m->flags & NVS_M_NEW) && !nvs_version_at_least(580, 0, 0))
			return NULL;
		if (m->since[0] && !nvs_version_at_least(m->since[0], m->since[1], m->since[2]))
			return NULL;
		return m;
	}
	return NULL;
}

/*
 * Run method @m on the object @h_object of client @h_client with kernel
 * params @params (the V2 call a deprecated control makes internally).
 */
static u32 nvs_run_method(struct nvs_file *nf, u32 h_client, u32 h_object,
			  const struct nvs_method *m, void *params, struct nvs_call *c)
{
	struct nvs_ctrl x = { .params = params, .cmd = m->cmd, .c = c };
	u32 status = NV_OK;

	mutex_lock(&nvs.lock);
	x.cl = nvs_client_get(nf, h_client, &status);
	if (x.cl && h_object != x.cl->handle) {
		x.obj = nvs_obj_find(x.cl, h_object);
		if (!x.obj)
			status = NV_ERR_INVALID_OBJECT_HANDLE;
	}
	if (status == NV_OK) {
		u32 hclass = x.obj ? x.obj->hclass : NV01_ROOT_CLIENT;

		status = m->hclass != hclass ? NV_ERR_NOT_SUPPORTED : m->fn(&x);
	}
	mutex_unlock(&nvs.lock);
	return status;
}

/*
 * GET_BUILD_VERSION, converted by the driver's own code: the V2 strings
 * first; with any of the three pointers NULL the caller learns the size
 * each buffer needs (sizeOfStrings); else each string goes to its buffer,
 * which sizeOfStrings must fit.
 */
static u32 nvs_dep_build_version(struct nvs_file *nf, struct nvd_os54 *p, struct nvs_call *c)
{
	const struct nvs_method *m = nvs_method_find(NV0000_CTRL_CMD_SYSTEM_GET_BUILD_VERSION_V2);
	const unsigned int n = NV_BUILD_VERSION_V2_STRING;
	unsigned int title = nvs_version_at_least(560, 28, 3) ? 3 * n : 2 * n, i;
	u8 v1[NVD_BUILD_VERSION_V1_SIZE], *v2;
	u32 status, len[3], need = 0, have;
	u64 ptrs[3];

	v2 = kzalloc(nvs_method_size(m), GFP_KERNEL);
	if (!v2)
		return NV_ERR_NO_MEMORY;
	status = nvs_run_method(nf, p->hClient, p->hObject, m, v2, c);
	if (status)
		goto out;
	if (copy_from_user(v1, u64_to_user_ptr(p->params), sizeof(v1))) {
		status = NV_ERR_INVALID_POINTER;
		goto out;
	}
	memcpy(ptrs, v1 + 8, sizeof(ptrs));
	memcpy(&have, v1, sizeof(have));
	for (i = 0; i < 3; i++) {
		len[i] = strnlen(v2 + (i == 2 ? title : i * n), n - 1) + 1;
		need = max(need, len[i]);
	}
	if (!ptrs[0] || !ptrs[1] || !ptrs[2]) {
		memcpy(v1, &need, sizeof(need));
	} else if (have < need) {
		status = NV_ERR_INVALID_PARAM_STRUCT;
		goto out;
	} else {
		for (i = 0; i < 3; i++)
			if (copy_to_user(u64_to_user_ptr(ptrs[i]), v2 + (i == 2 ? title : i * n),
					 len[i]))
				status = NV_ERR_INVALID_PARAM_STRUCT;
		if (status)
			goto out;
		memcpy(v1 + 32, v2 + title + n, 8);
	}
	nvs_call_add(c, " dep=0x%x strings=%u", NV0000_CTRL_CMD_SYSTEM_GET_BUILD_VERSION_V2, need);
	if (copy_to_user(u64_to_user_ptr(p->params), v1, sizeof(v1)))
		status = NV_ERR_INVALID_POINTER;
out:
	kfree(v2);
	return status;
}

/*
 * BIOS_GET_INFO, BUS_GET_INFO (CONVERT_TO_V2): the V1 params of their own
 * size (the call's paramsSize is not looked at), a count over the V2 array
 * refused, the V1 bytes then the caller's list copied into the V2 params,
 * the V2 method run, and on success the list copied back through the
 * embedded pointer.  A count of 0 copies no list.
 */
static u32 nvs_dep_info_list(struct nvs_file *nf, struct nvd_os54 *p, u32 v2cmd, u32 max,
			     struct nvs_call *c)
{
	const struct nvs_method *m = nvs_method_find(v2cmd);
	u8 v1[NVD_INFO_LIST_V1_SIZE], *v2;
	u32 count, status;
	u64 list;

	if (copy_from_user(v1, u64_to_user_ptr(p->params), sizeof(v1)))
		return NV_ERR_INVALID_POINTER;
	memcpy(&count, v1, sizeof(count));
	memcpy(&list, v1 + 8, sizeof(list));
	if (count > max)
		return NV_ERR_OUT_OF_RANGE;
	v2 = kzalloc(nvs_method_size(m), GFP_KERNEL);
	if (!v2)
		return NV_ERR_NO_MEMORY;
	memcpy(v2, v1, sizeof(v1));
	if (count && copy_from_user(v2 + 4, u64_to_user_ptr(list), 8 * count)) {
		status = NV_ERR_INVALID_POINTER;
		goto out;
	}
	nvs_call_add(c, " dep=0x%x count=%u lsum=%016llx", v2cmd, count,
		     nvs_fnv1a(NVS_FNV_INIT, v2 + 4, 8 * count));
	status = nvs_run_method(nf, p->hClient, p->hObject, m, v2, c);
	if (status == NV_OK && count && copy_to_user(u64_to_user_ptr(list), v2 + 4, 8 * count))
		status = NV_ERR_INVALID_POINTER;
out:
	kfree(v2);
	return status;
}

/* The deprecated controls the driver converts before its method tables. */
static bool nvs_deprecated(struct nvs_file *nf, struct nvd_os54 *p, struct nvs_call *c,
			   u32 *status)
{
	switch (p->cmd) {
	case NV0000_CTRL_CMD_SYSTEM_GET_BUILD_VERSION:
		*status = nvs_dep_build_version(nf, p, c);
		return true;
	case NV2080_CTRL_CMD_BIOS_GET_INFO:
		*status = nvs_dep_info_list(nf, p, NV2080_CTRL_CMD_BIOS_GET_INFO_V2,
					    NV2080_CTRL_BIOS_INFO_MAX_SIZE, c);
		return true;
	case NV2080_CTRL_CMD_BUS_GET_INFO:
		*status = nvs_dep_info_list(nf, p, NV2080_CTRL_CMD_BUS_GET_INFO_V2,
					    NV2080_CTRL_BUS_INFO_MAX_LIST_SIZE, c);
		return true;
	}
	return false;
}

/*
 * A list the params point to that RM copies around the method itself
 * (embeddedParamCopyIn/Out), before it looks the object up: for
 * GPU_GET_CLASSLIST its classList, numClasses NvU32s, copied in and back;
 * for DEBUG_READ_MEMORY its buffer, length bytes, not copied in, and with
 * no bound on the length.  A pointer without a size, a size without a
 * pointer or over 1 MiB (where bounded) is NV_ERR_INVALID_ARGUMENT, and a
 * list that cannot be read NV_ERR_INVALID_ADDRESS: then RM gives the
 * params back, its copy of the pointer cleared where the list copy failed.
 * Else the list is copied into a kernel buffer (zeroed when not copied in)
 * that the method sees in place of the pointer, and back to the caller
 * after it succeeds, when a failed copy becomes the status.  The log adds
 * " emb=BYTES" before the buffer is allocated, and ":SUM" of what was
 * copied in.
 */
struct nvs_emb {
	u64 user;
	void *kbuf;
	u32 bytes;
	u32 ptr_off;
	bool out;
};

static u32 nvs_emb_in(struct nvd_os54 *p, void *params, struct nvs_emb *e, struct nvs_call *c)
{
	u32 num, count_off, elem;
	bool in, bounded;

	if (p->cmd == NV0080_CTRL_CMD_GPU_GET_CLASSLIST && p->paramsSize == NVD_CLASSLIST_SIZE) {
		count_off = 0;
		e->ptr_off = 8;
		elem = 4;
		in = e->out = bounded = true;
	} else if (p->cmd == NV83DE_CTRL_CMD_DEBUG_READ_MEMORY &&
		   p->paramsSize == NVD_DEBUG_READ_MEMORY_SIZE) {
		count_off = 4;
		e->ptr_off = 16;
		elem = 1;
		in = bounded = false;
		e->out = true;
	} else {
		return NV_OK;
	}
	memcpy(&num, params + count_off, sizeof(num));
	memcpy(&e->user, params + e->ptr_off, sizeof(e->user));
	if ((u64)num * elem > U32_MAX || (bounded && (u64)num * elem > SZ_1M) ||
	    !e->user != !num)
		return NV_ERR_INVALID_ARGUMENT;
	if (!num)
		return NV_OK;
	e->bytes = num * elem;
	nvs_call_add(c, " emb=%u", e->bytes);
	e->kbuf = kvzalloc(e->bytes, GFP_KERNEL);
	if (!e->kbuf)
		return NV_ERR_NO_MEMORY;
	if (in) {
		if (copy_from_user(e->kbuf, u64_to_user_ptr(e->user), e->bytes))
			return NV_ERR_INVALID_ADDRESS;
		nvs_call_add(c, ":%016llx", nvs_fnv1a(NVS_FNV_INIT, e->kbuf, e->bytes));
	}
	*(u64 *)(params + e->ptr_off) = (u64)(uintptr_t)e->kbuf;
	return NV_OK;
}

static u32 nvs_emb_out(void *params, struct nvs_emb *e, u32 status)
{
	if (!e->kbuf)
		return status;
	*(u64 *)(params + e->ptr_off) = e->user;
	if (status == NV_OK && e->out &&
	    copy_to_user(u64_to_user_ptr(e->user), e->kbuf, e->bytes))
		status = NV_ERR_INVALID_ADDRESS;
	kvfree(e->kbuf);
	e->kbuf = NULL;
	return status;
}

/* rmapiControlWithSecInfo(), serverControl(): checks in the real order. */
static int nvs_esc_rm_control(struct nvs_file *nf, void *buf, u32 size,
			     struct nvs_call *c)
{
	struct nvd_os54 *p = buf;
	const struct nvs_method *m;
	struct nvs_ctrl x = {};
	struct nvs_emb emb = {};
	void *params = NULL;
	u32 status = NV_OK, mstatus;

	if (size != sizeof(*p) || !nvs_is_ctl(nf))
		return -EINVAL;
	nvs_call_add(c, " cmd=0x%x psize=%u", p->cmd, p->paramsSize);

	if (p->paramsSize > NVD_MAX_CTRL_PARAMS) {
		status = NV_ERR_INVALID_ARGUMENT;
		goto out;
	}
	mutex_lock(&nvs.lock);
	nvs_client_get(nf, p->hClient, &status);
	mutex_unlock(&nvs.lock);
	if (status)
		goto out;
	/* Plain calls of a deprecated control are converted first. */
	if (!p->flags && nvs_deprecated(nf, p, c, &status))
		goto out;
	/* Raised-IRQL and lock-bypass calls are for kernel clients only. */
	if (p->flags & (NVOS54_FLAGS_IRQL_RAISED | NVOS54_FLAGS_LOCK_BYPASS)) {
		status = NV_ERR_INVALID_ARGUMENT;
		goto out;
	}
	m = nvs_method_find(p->cmd);
	if ((p->paramsSize != 0) != (p->params != 0) ||
	    (m && p->paramsSize != nvs_method_size(m))) {
		status = NV_ERR_INVALID_ARGUMENT;
		goto out;
	}
	/* The nested read: RM copies the params in itself, after the escape. */
	if (p->paramsSize) {
		nvs_race_delay();
		params = kvzalloc(p->paramsSize, GFP_KERNEL);
		if (!params) {
			status = NV_ERR_NO_MEMORY;
			goto out;
		}
		if (copy_from_user(params, u64_to_user_ptr(p->params),
				   p->paramsSize)) {
			status = NV_ERR_INVALID_POINTER;
			goto out;
		}
		nvs_call_add(c, " psum=%016llx",
			     nvs_fnv1a(NVS_FNV_INIT, params, p->paramsSize));
		status = nvs_emb_in(p, params, &emb, c);
		if (status) {
			memset(params + emb.ptr_off, 0, 8);
			if (copy_to_user(u64_to_user_ptr(p->params), params, p->paramsSize))
				status = NV_ERR_INVALID_POINTER;
			goto out;
		}
	}

	mutex_lock(&nvs.lock);
	x.cl = nvs_client_get(nf, p->hClient, &status);
	if (x.cl && p->hObject != x.cl->handle) {
		x.obj = nvs_obj_find(x.cl, p->hObject);
		if (!x.obj)
			status = NV_ERR_INVALID_OBJECT_HANDLE;
	}
	if (status == NV_OK) {
		u32 hclass = x.obj ? x.obj->hclass : NV01_ROOT_CLIENT;

		if (!m || m->hclass != hclass) {
			status = NV_ERR_NOT_SUPPORTED;
		} else {
			if (m->flags & NVS_M_ZEROED)
				memset(params, 0, p->paramsSize);
			x.params = params;
			x.cmd = p->cmd;
			x.c = c;
			status = m->fn(&x);
		}
	}
	mutex_unlock(&nvs.lock);
	/* A list that cannot go back fails the call; the params still do. */
	mstatus = status;
	status = nvs_emb_out(params, &emb, status);

	/* Params go back on success only, unless the copy-in itself failed. */
	if ((mstatus == NV_OK || x.copyout_on_error) && p->paramsSize &&
	    copy_to_user(u64_to_user_ptr(p->params), params, p->paramsSize))
		status = NV_ERR_INVALID_POINTER;
out:
	kvfree(emb.kbuf);
	kvfree(params);
	p->status = status;
	return 0;
}

/* ---- OS events ---- */

/* allocate_os_event(): the fd is only a key; events go to THIS file. */
static int nvs_esc_alloc_os_event(struct nvs_file *nf, void *buf, u32 size)
{
	struct nvd_os_event *p = buf;
	struct nvs_osevent *e;

	if (size != sizeof(*p))
		return -EINVAL;
	e = kzalloc(sizeof(*e), GFP_KERNEL);
	mutex_lock(&nvs.lock);
	if (!e || nvs.nos_events >= NVS_MAX_OS_EVENTS ||
	    nvs_osevent_find(p->hClient, p->fd)) {
		p->Status = NV_ERR_INSUFFICIENT_RESOURCES;
	} else {
		e->h_client = p->hClient;
		e->fd = p->fd;
		e->file = nf;
		e->registered = true;
		list_add_tail(&e->node, &nvs.os_events);
		nvs.nos_events++;
		nvs_count(NVS_CNT_OS_EVENTS, 1);
		p->Status = NV_OK;
		e = NULL;
	}
	mutex_unlock(&nvs.lock);
	kfree(e);
	return 0;
}

/* free_os_event() */
static int nvs_esc_free_os_event(void *buf, u32 size)
{
	struct nvd_os_event *p = buf;
	struct nvs_osevent *e;

	if (size != sizeof(*p))
		return -EINVAL;
	mutex_lock(&nvs.lock);
	e = nvs_osevent_find(p->hClient, p->fd);
	if (e)
		nvs_osevent_unregister(e);
	mutex_unlock(&nvs.lock);
	p->Status = e ? NV_OK : NV_ERR_INVALID_EVENT;
	return 0;
}

/* get_os_event_data(): dequeue one event of this file. */
static int nvs_esc_get_event_data(struct nvs_file *nf, void *buf, u32 size)
{
	struct nvd_os41 *p = buf;
	struct nvs_event_data *ed;
	unsigned int more;

	if (size != sizeof(*p))
		return -EINVAL;
	spin_lock(&nf->ev_lock);
	ed = list_first_entry_or_null(&nf->ev_queue, struct nvs_event_data,
				      node);
	if (ed) {
		list_del(&ed->node);
		nf->ev_queued--;
	}
	more = nf->ev_queued;
	spin_unlock(&nf->ev_lock);

	p->MoreEvents = more ? 1 : 0;
	if (!ed) {
		p->status = NV_ERR_OPERATING_SYSTEM;
		return 0;
	}
	nvs_count(NVS_CNT_QUEUED_EVENTS, -1);
	if (copy_to_user(u64_to_user_ptr(p->pEvent), &ed->ev, sizeof(ed->ev)))
		p->status = NV_ERR_INVALID_ADDRESS;
	else
		p->status = NV_OK;
	kfree(ed);
	return 0;
}

unsigned int nvs_rm_events_pending(struct nvs_file *nf)
{
	unsigned int n;

	spin_lock(&nf->ev_lock);
	n = nf->ev_queued;
	spin_unlock(&nf->ev_lock);
	return n;
}

static int nvs_extra_release(struct inode *inode, struct file *file)
{
	nvs_count(NVS_CNT_EXTRA_FDS, -1);
	return 0;
}

static const struct file_operations nvs_extra_fops = {
	.owner = THIS_MODULE,
	.release = nvs_extra_release,
};

/*
 * grow_fd_table: a driver that creates an fd in the caller's table during a
 * call (as EXPORT_TO_DMABUF_FD does), at a number the table does not have
 * yet, so that the kernel grows it.  Numbers are taken lowest first, as
 * the kernel hands them out, until one is at least @want.
 */
static void nvs_grow_fds(unsigned int want)
{
	struct file *file;
	unsigned int i, n = 0;
	int *fds, fd = -1;

	want = min(want, 4096U);
	fds = kcalloc(want + 1, sizeof(*fds), GFP_KERNEL);
	if (!fds)
		return;
	while (n <= want) {
		fd = get_unused_fd_flags(O_CLOEXEC);
		if (fd < 0)
			break;
		fds[n++] = fd;
		if (fd >= want)
			break;
	}
	if (fd >= 0 && fd >= want) {
		file = anon_inode_getfile("[nvidia-standin-extra]", &nvs_extra_fops, NULL, O_RDWR);
		if (!IS_ERR(file)) {
			nvs_count(NVS_CNT_EXTRA_FDS, 1);
			fd_install(fd, file);
			n--;
		}
	}
	for (i = 0; i < n; i++)
		put_unused_fd(fds[i]);
	kfree(fds);
}

/* Escape NV_ESC_REGISTER_FD in RmIoctl(): link this file to a control file. */
static int nvs_esc_register_fd(struct nvs_file *nf, void *buf, u32 size,
			       struct nvs_call *c)
{
	struct nvd_register_fd *p = buf;
	struct nvs_file *tnf;
	struct file *t;
	int ret = -EINVAL;

	if (size != sizeof(*p))
		return -EINVAL;
	if (READ_ONCE(nvs_grow_fd_table))
		nvs_grow_fds(READ_ONCE(nvs_grow_fd_table));
	BUG_ON(READ_ONCE(nvs_oops_register_fd));
	t = nvs_fd_resolve(p->ctl_fd, c, buf, size, 0);
	mutex_lock(&nvs.lock);
	if (nf->ctl_link || !nvs_is_our_ctl(t))
		goto unlock;
	tnf = t->private_data;
	/* No self links, no links to files that are themselves linked. */
	if (tnf == nf || tnf->ctl_link)
		goto unlock;
	nf->ctl_link = t;
	nf->ctl_nf = tnf;
	t = NULL;
	ret = 0;
unlock:
	mutex_unlock(&nvs.lock);
	if (t)
		fput(t);
	return ret;
}

/*
 * rm_create_mmap_context() + nv_add_mapping_context_to_file(): the client
 * must be the caller's, @t a control file (system memory), one per file.
 */
static u32 nvs_mapctx_create(struct nvs_client *cl, struct nvs_object *mo,
			     struct file *t, u64 offset, u64 length)
{
	struct nvs_mapctx *ctx;
	struct nvs_file *tnf;

	lockdep_assert_held(&nvs.lock);
	if (cl->tgid != task_tgid_nr(current))
		return NV_ERR_INVALID_CLIENT;
	if (!nvs_is_our_ctl(t))
		return NV_ERR_INVALID_ARGUMENT;
	tnf = t->private_data;
	if (tnf->mapctx)
		return NV_ERR_STATE_IN_USE;
	ctx = kzalloc(sizeof(*ctx), GFP_KERNEL);
	if (!ctx)
		return NV_ERR_NO_MEMORY;
	ctx->pgoff = offset >> PAGE_SHIFT;
	ctx->npages = DIV_ROUND_UP(offset_in_page(offset) + length, PAGE_SIZE);
	ctx->mem = mo->mem;
	kref_get(&ctx->mem->ref);
	tnf->mapctx = ctx;
	nvs_count(NVS_CNT_MAP_CONTEXTS, 1);
	return NV_OK;
}

/* RmIoctl() NV_ESC_RM_ALLOC_MEMORY: GPU nodes only. */
static int nvs_esc_rm_alloc_memory(struct nvs_file *nf, void *buf, u32 size,
				   struct nvs_call *c)
{
	struct nvd_os02_fd *p = buf;
	union nvs_alloc_params ap = {};
	struct nvs_object *mo = NULL;
	struct nvs_mem *mem = NULL;
	struct file *t = NULL;
	u32 status, h;
	int ret = 0;

	if (size != sizeof(*p) || nvs_is_ctl(nf))
		return -EINVAL;
	nvs_call_add(c, " class=0x%x", p->hClass);
	/*
	 * RmIoctl() looks the fd up only to map the NV01_MEMORY_SYSTEM object
	 * it made (below); RmAllocOsDescriptor() pins the caller's memory and
	 * reads no fd.  The stand-in models neither OS descriptors nor the
	 * other classes RmDeprecatedAllocMemory() makes.
	 */
	if (p->hClass != NV01_MEMORY_SYSTEM) {
		p->status = NV_ERR_INVALID_CLASS;
		goto out;
	}
	if (p->limit == U64_MAX) {
		p->status = NV_ERR_INVALID_LIMIT;
		goto out;
	}
	mem = nvs_mem_alloc(p->limit + 1, &status);
	if (!mem) {
		p->status = status;
		goto out;
	}
	ap.mem.size = p->limit + 1;

	mutex_lock(&nvs.lock);
	h = p->hObjectNew;
	status = nvs_object_new(nf, p->hRoot, p->hObjectParent, &h,
				NV01_MEMORY_SYSTEM, &ap, &mem, NV_OK, &mo, c);
	p->status = status;
	if (status == NV_OK) {
		p->hObjectNew = h;
		p->pMemory = 0;
		/* Mapped right away unless told not to: context on @fd. */
		if (NVOS02_FLAGS_ALLOC(p->flags) != NVOS02_FLAGS_ALLOC_NONE &&
		    NVOS02_FLAGS_MAPPING(p->flags) != NVOS02_FLAGS_MAPPING_NO_MAP) {
			t = nvs_fd_resolve(p->fd, c, buf, size, offsetof(struct nvd_os02_fd, fd));
			if (nvs_mapctx_create(nvs_client_find(p->hRoot), mo, t, 0,
					      p->limit + 1) != NV_OK)
				ret = -EINVAL;
		}
	}
	mutex_unlock(&nvs.lock);
out:
	if (mem)
		nvs_mem_put(mem);
	if (t)
		fput(t);
	return ret;
}

/* RmIoctl() NV_ESC_RM_MAP_MEMORY: Nv04MapMemory + rm_create_mmap_context. */
static int nvs_esc_rm_map_memory(struct nvs_file *nf, void *buf, u32 size,
				 struct nvs_call *c)
{
	struct nvd_os33_fd *p = buf;
	struct nvs_object *dev, *mo;
	struct nvs_client *cl;
	u32 status = NV_OK;
	struct file *t;
	u64 bytes;

	if (size != sizeof(*p) || !nvs_is_ctl(nf))
		return -EINVAL;
	t = nvs_fd_resolve(p->fd, c, buf, size, offsetof(struct nvd_os33_fd, fd));

	mutex_lock(&nvs.lock);
	cl = nvs_client_get(nf, p->hClient, &status);
	if (!cl)
		goto unlock;
	if (p->hDevice != cl->handle) {
		dev = nvs_obj_find(cl, p->hDevice);
		if (!dev || (dev->hclass != NV01_DEVICE_0 &&
			     dev->hclass != NV20_SUBDEVICE_0)) {
			status = NV_ERR_INVALID_OBJECT_HANDLE;
			goto unlock;
		}
	}
	mo = nvs_obj_find(cl, p->hMemory);
	if (!mo || !mo->mem) {
		status = NV_ERR_INVALID_OBJECT_HANDLE;
		goto unlock;
	}
	bytes = (u64)mo->mem->npages << PAGE_SHIFT;
	if (!p->length || p->offset >= bytes || p->length > bytes - p->offset) {
		status = NV_ERR_INVALID_LIMIT;
		goto unlock;
	}
	status = nvs_mapctx_create(cl, mo, t, p->offset, p->length);
	if (status == NV_OK)
		p->pLinearAddress = NVS_LINEAR_TOKEN + p->offset;
unlock:
	mutex_unlock(&nvs.lock);
	p->status = status;
	if (t)
		fput(t);
	return 0;
}

/* Nv04UnmapMemory: the mapping context stays on its file until close. */
static int nvs_esc_rm_unmap_memory(struct nvs_file *nf, void *buf, u32 size)
{
	struct nvd_os34 *p = buf;
	struct nvs_object *mo = NULL;
	struct nvs_client *cl;
	u32 status = NV_OK;

	if (size != sizeof(*p) || !nvs_is_ctl(nf))
		return -EINVAL;
	mutex_lock(&nvs.lock);
	cl = nvs_client_get(nf, p->hClient, &status);
	if (cl)
		mo = nvs_obj_find(cl, p->hMemory);
	if (cl && (!mo || !mo->mem))
		status = NV_ERR_INVALID_OBJECT_HANDLE;
	mutex_unlock(&nvs.lock);
	p->status = status;
	return 0;
}

/**
 * nvs_rm_ioctl() - the escapes rm_ioctl() and RmIoctl() handle.
 * @nf: the file the ioctl arrived on
 * @nr: escape number
 * @buf: kernel copy of the payload, copied back by the caller
 * @size: its size
 * @c: log extras
 *
 * Return: 0, with any failure in the payload's status; -EINVAL where RmIoctl
 * returns an error (wrong size, wrong node, unknown escape).
 */
int nvs_rm_ioctl(struct nvs_file *nf, u32 nr, void *buf, u32 size,
		 struct nvs_call *c)
{
	switch (nr) {
	case NV_ESC_ALLOC_OS_EVENT:
		return nvs_esc_alloc_os_event(nf, buf, size);
	case NV_ESC_FREE_OS_EVENT:
		return nvs_esc_free_os_event(buf, size);
	case NV_ESC_RM_GET_EVENT_DATA:
		return nvs_esc_get_event_data(nf, buf, size);
	case NV_ESC_REGISTER_FD:
		return nvs_esc_register_fd(nf, buf, size, c);
	case NV_ESC_RM_ALLOC:
		return nvs_esc_rm_alloc(nf, buf, size, c);
	case NV_ESC_RM_FREE:
		return nvs_esc_rm_free(nf, buf, size, c);
	case NV_ESC_RM_CONTROL:
		return nvs_esc_rm_control(nf, buf, size, c);
	case NV_ESC_RM_ALLOC_MEMORY:
		return nvs_esc_rm_alloc_memory(nf, buf, size, c);
	case NV_ESC_RM_MAP_MEMORY:
		return nvs_esc_rm_map_memory(nf, buf, size, c);
	case NV_ESC_RM_UNMAP_MEMORY:
		return nvs_esc_rm_unmap_memory(nf, buf, size);
	}
	return -EINVAL;
}

/**
 * nvs_rm_file_release() - what closing a file undoes (RmFreeUnusedClients()).
 * @nf: the file, already unreachable from user space
 * @c: log extras (the cap descriptors the frees closed)
 *
 * Return: the control file REGISTER_FD linked it to, for the caller to fput.
 */
struct file *nvs_rm_file_release(struct nvs_file *nf, struct nvs_call *c)
{
	struct nvs_event_data *ed, *edt;
	struct nvs_osevent *e, *et;
	struct nvs_client *cl, *t;
	struct file *ctl;

	mutex_lock(&nvs.lock);
	nvs_cur_call = c;
	list_del(&nf->node);
	list_for_each_entry_safe(cl, t, &nvs.clients, node)
		if (cl->owner == nf)
			nvs_client_destroy(cl);
	list_for_each_entry_safe(e, et, &nvs.os_events, node)
		if (e->file == nf)
			nvs_osevent_unregister(e);
	if (nf->mapctx) {
		nvs_mem_put(nf->mapctx->mem);
		kfree(nf->mapctx);
		nf->mapctx = NULL;
		nvs_count(NVS_CNT_MAP_CONTEXTS, -1);
	}
	ctl = nf->ctl_link;
	nf->ctl_link = NULL;
	nf->ctl_nf = NULL;
	nvs_cur_call = NULL;
	mutex_unlock(&nvs.lock);

	list_for_each_entry_safe(ed, edt, &nf->ev_queue, node) {
		list_del(&ed->node);
		kfree(ed);
		nvs_count(NVS_CNT_QUEUED_EVENTS, -1);
	}
	nf->ev_queued = 0;
	return ctl;
}

/* ---- mmap ---- */

struct nvs_vmpriv {
	struct kref ref;
	struct nvs_mem *mem;
	unsigned long base;	/* page of mem at vm_pgoff 0 */
	unsigned long npages;
};

static void nvs_vmpriv_release(struct kref *ref)
{
	struct nvs_vmpriv *priv = container_of(ref, struct nvs_vmpriv, ref);

	nvs_mem_put(priv->mem);
	kfree(priv);
}

static void nvs_vm_open(struct vm_area_struct *vma)
{
	struct nvs_vmpriv *priv = vma->vm_private_data;

	kref_get(&priv->ref);
	nvs_count(NVS_CNT_VMAS, 1);
}

static void nvs_vm_close(struct vm_area_struct *vma)
{
	struct nvs_vmpriv *priv = vma->vm_private_data;

	nvs_count(NVS_CNT_VMAS, -1);
	kref_put(&priv->ref, nvs_vmpriv_release);
}

static vm_fault_t nvs_vm_fault(struct vm_fault *vmf)
{
	struct nvs_vmpriv *priv = vmf->vma->vm_private_data;
	struct page *page;

	/* The driver's state is found through the VMA's file. */
	if (!vmf->vma->vm_file || vmf->vma->vm_file->f_op != &nvs_fops ||
	    vmf->pgoff >= priv->npages)
		return VM_FAULT_SIGBUS;
	page = priv->mem->pages[priv->base + vmf->pgoff];
	get_page(page);
	vmf->page = page;
	return 0;
}

static const struct vm_operations_struct nvs_vm_ops = {
	.open = nvs_vm_open,
	.close = nvs_vm_close,
	.fault = nvs_vm_fault,
};

/**
 * nvs_rm_mmap() - nvidia_mmap_helper() for system memory.
 * @vma: the new mapping; its vm_file names the file whose context is used
 * @c: log extras
 *
 * Return: 0, -EINVAL without a context on that file or with vm_pgoff != 0,
 * -ERANGE past the allocation.
 */
int nvs_rm_mmap(struct vm_area_struct *vma, struct nvs_call *c)
{
	struct file *vf = vma->vm_file;
	char kind[NVS_KIND_LEN];
	struct nvs_vmpriv *priv;
	struct nvs_mapctx *ctx;
	struct nvs_file *tnf;
	int ret = 0;

	nvs_file_kind(vf, kind);
	nvs_call_add(c, " vmfile=%s", kind);
	if (!vf || vf->f_op != &nvs_fops)
		return -EINVAL;
	tnf = vf->private_data;
	priv = kzalloc(sizeof(*priv), GFP_KERNEL);
	if (!priv)
		return -ENOMEM;

	mutex_lock(&nvs.lock);
	ctx = tnf->mapctx;
	if (!ctx || vma->vm_pgoff != 0) {
		ret = -EINVAL;
	} else if (ctx->pgoff + vma_pages(vma) > ctx->mem->npages) {
		ret = -ERANGE;
	} else {
		priv->mem = ctx->mem;
		kref_get(&priv->mem->ref);
		priv->base = ctx->pgoff;
		priv->npages = vma_pages(vma);
	}
	mutex_unlock(&nvs.lock);
	if (ret) {
		kfree(priv);
		return ret;
	}
	kref_init(&priv->ref);
	nvs_vm_flags_set(vma, VM_DONTEXPAND | VM_DONTDUMP);
	vma->vm_private_data = priv;
	vma->vm_ops = &nvs_vm_ops;
	nvs_count(NVS_CNT_VMAS, 1);
	return 0;
}

/* ---- for nvidia-uvm ---- */

u32 nvs_uvm_check_gpu(const u8 *uuid, u32 h_client, unsigned int *gpu)
{
	int g = nvs_gpu_by_uuid(uuid);
	struct nvs_client *cl;
	u32 status = NV_OK;

	if (g < 0) {
		status = NV_ERR_GPU_UUID_NOT_FOUND;
	} else if (!nvs_gpu_accessible(g)) {
		status = NV_ERR_INSUFFICIENT_PERMISSIONS;
	} else {
		mutex_lock(&nvs.lock);
		cl = nvs_client_find(h_client);
		if (!cl || cl->tgid != task_tgid_nr(current))
			status = NV_ERR_INVALID_CLIENT;
		mutex_unlock(&nvs.lock);
		*gpu = g;
	}
	return status;
}
EXPORT_SYMBOL_GPL(nvs_uvm_check_gpu);
