// SPDX-License-Identifier: GPL-2.0
/*
 * nvproxyctl cdi: the UUID of a MIG compute instance (MIG-...), asked of
 * the nvidia driver itself, so that cdi can name a MIG device also as
 * NVIDIA's container toolkit names it.
 *
 * The driver gives an instance's UUID only to a client subscribed to it,
 * so this makes the calls of a CUDA process that uses the instance, on the
 * driver's own nodes (as root, on the host: not through nvmediate):
 *
 *   /dev/nvidiactl: CHECK_VERSION_STR, strict, with the loaded release
 *     (/sys/module/nvidia/version); CARD_INFO (which GPU id has which
 *     device minor);
 *   /dev/nvidiaG (G the minor, as cdi and the capabilities tree name GPUs):
 *     REGISTER_FD of the control file;
 *   RM_ALLOC of a client (NV01_ROOT); RM_CONTROL GPU_GET_ID_INFO_V2 for the
 *     GPU id (its device instance, which RM numbers in the order GPUs were
 *     attached: not the minor); RM_ALLOC NV01_DEVICE_0 of that device
 *     instance with hClientShare = the client (a MIG subscription needs a
 *     VA space of the client's own), NV20_SUBDEVICE_0,
 *     AMPERE_SMC_PARTITION_REF (0xc637: the GPU instance's access node's
 *     fd, swizzId GI), AMPERE_SMC_EXEC_PARTITION_REF (0xc638: the compute
 *     instance's access node's fd, execPartitionId CI);
 *   RM_CONTROL NVC638_CTRL_CMD_GET_UUID on the compute instance's
 *     subscription; RM_FREE of the client, which frees the rest (and
 *     closes the driver's copies of the two access files).
 *
 * An escape is _IOWR('F', nr, size of its payload).  The layouts, written
 * here from NVIDIA's headers (nv-ioctl.h, nv-ioctl-numbers.h, nv_escape.h,
 * nvos.h, cl0080.h, cl2080.h, clc637.h, clc638.h, ctrlc638.h,
 * ctrl0000gpu.h; 580.142, the same in every release nvmediate knows but
 * for NVOS21): NVOS21 (RM_ALLOC, 32 bytes) holds paramsSize before its
 * status from 535.43.02; before, its status sits where paramsSize is now
 * and RM takes the params' size from the class.
 *
 * The test hook NVPROXYCTL_MIG_UUIDS ("G:GI:CI=MIG-...", separated by
 * commas or blanks) answers instead of the driver: tests only.
 */
#define _XOPEN_SOURCE 700

#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/stat.h>
#include <sys/sysmacros.h>
#include <sys/types.h>
#include <unistd.h>

#include "nvabi_lookup.h"
#include "nvproxyctl.h"
#include "nvcaps.h"

#define NV_MAJOR		195
#define NV_CTL_MINOR		255
#define NVQ_IOC(nr, size)	_IOC(_IOC_READ | _IOC_WRITE, 'F', (nr), (size))

#define NV_ESC_RM_FREE			0x29
#define NV_ESC_RM_CONTROL		0x2a
#define NV_ESC_RM_ALLOC			0x2b
#define NV_ESC_CARD_INFO		0xc8
#define NV_ESC_REGISTER_FD		0xc9
#define NV_ESC_CHECK_VERSION_STR	0xd2

#define NV01_ROOT			0x0000
#define NV01_DEVICE_0			0x0080
#define NV20_SUBDEVICE_0		0x2080
#define AMPERE_SMC_PARTITION_REF	0xc637
#define AMPERE_SMC_EXEC_PARTITION_REF	0xc638
#define NV0000_CTRL_CMD_GPU_GET_ID_INFO_V2	0x00000205u
#define NVC638_CTRL_CMD_GET_UUID	0xc6380101u

/* the object handles of each instance's client (the client's is RM's) */
#define H_DEVICE	0x6e700001u
#define H_SUBDEVICE	0x6e700002u
#define H_GI		0x6e700003u
#define H_CI		0x6e700004u

#define CARDS_MAX	64	/* CARD_INFO entries asked for: 4608 bytes */

struct nvq_version {		/* nv_ioctl_rm_api_version_t */
	uint32_t cmd;		/* 0: strict */
	uint32_t reply;
	char str[64];
};

struct nvq_card {		/* nv_ioctl_card_info_t */
	uint8_t valid, pad0[3];
	uint32_t domain;
	uint8_t bus, slot, function, pad1;
	uint16_t vendor_id, device_id;
	uint32_t gpu_id;
	uint16_t interrupt_line;
	uint8_t pad2[2];
	uint64_t reg_address, reg_size, fb_address, fb_size;
	uint32_t minor_number;
	uint8_t dev_name[10];
	uint8_t pad3[2];
};

struct nvq_register_fd {	/* nv_ioctl_register_fd_t */
	int32_t ctl_fd;
};

struct nvq_os00 {		/* NVOS00_PARAMETERS: RM_FREE */
	uint32_t hRoot, hObjectParent, hObjectOld, status;
};

struct nvq_os21 {		/* NVOS21_PARAMETERS: RM_ALLOC */
	uint32_t hRoot, hObjectParent, hObjectNew, hClass;
	uint64_t pAllocParms;
	uint32_t w6;		/* paramsSize from 535.43.02, before: status */
	uint32_t w7;		/* status from 535.43.02 */
};

struct nvq_os54 {		/* NVOS54_PARAMETERS: RM_CONTROL */
	uint32_t hClient, hObject, cmd, flags;
	uint64_t params;
	uint32_t paramsSize, status;
};

struct nvq_device {		/* NV0080_ALLOC_PARAMETERS */
	uint32_t deviceId, hClientShare, hTargetClient, hTargetDevice, flags, pad0;
	uint64_t vaSpaceSize, vaStartInternal, vaLimitInternal;
	uint32_t vaMode, pad1;
};

struct nvq_subdevice {		/* NV2080_ALLOC_PARAMETERS */
	uint32_t subDeviceId;
};

struct nvq_smc_ref {		/* NVC637_ / NVC638_ALLOCATION_PARAMETERS */
	uint64_t capDescriptor;
	uint32_t id;		/* swizzId, execPartitionId */
	uint32_t pad0;
};

struct nvq_id_info {		/* NV0000_CTRL_GPU_GET_ID_INFO_V2_PARAMS */
	uint32_t gpuId, gpuFlags, deviceInstance, subDeviceInstance;
	uint32_t sliStatus, boardId, gpuInstance;
	int32_t numaId;
};

struct nvq_uuid {		/* NVC638_CTRL_GET_UUID_PARAMS */
	uint8_t uuid[16];
	char str[41];		/* NV_MIG_DEVICE_UUID_STR_LENGTH */
};

_Static_assert(sizeof(struct nvq_version) == 72, "nv_ioctl_rm_api_version_t");
_Static_assert(sizeof(struct nvq_card) == 72, "nv_ioctl_card_info_t");
_Static_assert(offsetof(struct nvq_card, gpu_id) == 16, "card gpu_id");
_Static_assert(offsetof(struct nvq_card, minor_number) == 56, "card minor_number");
_Static_assert(sizeof(struct nvq_os00) == 16, "NVOS00");
_Static_assert(sizeof(struct nvq_os21) == 32, "NVOS21");
_Static_assert(sizeof(struct nvq_os54) == 32, "NVOS54");
_Static_assert(sizeof(struct nvq_device) == 56, "NV0080_ALLOC_PARAMETERS");
_Static_assert(sizeof(struct nvq_smc_ref) == 16, "NVC637/NVC638_ALLOCATION_PARAMETERS");
_Static_assert(sizeof(struct nvq_id_info) == 32, "GET_ID_INFO_V2");
_Static_assert(sizeof(struct nvq_uuid) == 57, "NVC638_CTRL_GET_UUID_PARAMS");

struct miguuid {
	const char *fake;		/* NVPROXYCTL_MIG_UUIDS, or NULL: the driver */
	int ctl;
	int new_alloc;			/* NVOS21 with paramsSize (535.43.02 on) */
	int gpu_fd[MAX_GPUS];		/* -1 not opened yet, -2 cannot be (said) */
	struct nvq_card cards[CARDS_MAX];
	int ncards;			/* -1: CARD_INFO not asked yet */
	uint32_t client;
};

/**
 * mig_uuid_ok() - is @s a MIG UUID as RM writes one
 * @s: the string
 *
 * Return: 1 for "MIG-" and a UUID in its canonical form (8-4-4-4-12 hex
 * digits), else 0.
 */
int mig_uuid_ok(const char *s)
{
	int i;

	if (strncmp(s, "MIG-", 4) || strlen(s) != 40)
		return 0;
	for (i = 4; i < 40; i++) {
		int dash = i == 12 || i == 17 || i == 22 || i == 27;
		char c = s[i];

		if (dash ? c != '-' : !((c >= '0' && c <= '9') || (c >= 'a' && c <= 'f') ||
					(c >= 'A' && c <= 'F')))
			return 0;
	}
	return 1;
}

static int esc(int fd, unsigned int nr, void *arg, size_t size)
{
	return ioctl(fd, NVQ_IOC(nr, size), arg) < 0 ? -errno : 0;
}

/* A driver node @path of 195:@minor, opened; -1 (errno set) when it is not one. */
static int open_node(const char *path, int flags, unsigned int minor)
{
	char p[PATH_MAX];
	struct stat st;
	int fd;

	hostpath(p, sizeof(p), path);
	fd = open(p, flags | O_CLOEXEC);
	if (fd < 0)
		return -1;
	if (fstat(fd, &st) || !S_ISCHR(st.st_mode) || major(st.st_rdev) != NV_MAJOR ||
	    minor(st.st_rdev) != minor) {
		close(fd);
		errno = ENODEV;
		return -1;
	}
	return fd;
}

static void said_off(const char *why)
{
	fprintf(stderr, "%s: cdi: the MIG devices are not named by their UUIDs too: %s\n", prog, why);
}

/**
 * miguuid_open() - get ready to ask the driver for MIG UUIDs
 *
 * As root only, with the driver loaded: the control node opened and the
 * release checked, strictly, as every client of RM's does first.  With
 * NVPROXYCTL_MIG_UUIDS set, its list answers instead (tests).
 *
 * Return: the handle, or NULL (said on standard error, one line).
 */
struct miguuid *miguuid_open(void)
{
	struct nvq_version v = { .cmd = 0 };
	struct miguuid *q = calloc(1, sizeof(*q));
	char ver[64], why[256];
	__u64 key;
	int i, r;

	if (!q) {
		said_off("out of memory");
		return NULL;
	}
	q->ctl = -1;
	q->ncards = -1;
	for (i = 0; i < MAX_GPUS; i++)
		q->gpu_fd[i] = -1;
	q->fake = getenv(MIG_UUIDS_ENV);
	if (q->fake)
		return q;
	if (geteuid()) {
		said_off("asking the driver takes root");
		goto fail;
	}
	if (read_line("/sys/module/nvidia/version", ver, sizeof(ver)) || !*ver ||
	    nvabi_parse_version(ver, &key)) {
		said_off("the nvidia module's version is not known (/sys/module/nvidia/version; not loaded?)");
		goto fail;
	}
	q->new_alloc = key >= NVABI_VERSION(535, 43, 2);
	q->ctl = open_node("/dev/nvidiactl", O_RDWR, NV_CTL_MINOR);
	if (q->ctl < 0) {
		snprintf(why, sizeof(why), "cannot open /dev/nvidiactl (the driver's, 195:255): %s",
			 strerror(errno));
		said_off(why);
		goto fail;
	}
	snprintf(v.str, sizeof(v.str), "%s", ver);
	r = esc(q->ctl, NV_ESC_CHECK_VERSION_STR, &v, sizeof(v));
	if (r) {
		v.str[sizeof(v.str) - 1] = '\0';
		snprintf(why, sizeof(why), "the driver refused release %s (CHECK_VERSION_STR: %s; it is %s)",
			 ver, strerror(-r), v.str);
		said_off(why);
		goto fail;
	}
	return q;
fail:
	miguuid_close(q);
	return NULL;
}

/**
 * miguuid_close() - close what miguuid_open() and miguuid_get() opened
 * @q: the handle, or NULL
 */
void miguuid_close(struct miguuid *q)
{
	int i;

	if (!q)
		return;
	for (i = 0; i < MAX_GPUS; i++)
		if (q->gpu_fd[i] >= 0)
			close(q->gpu_fd[i]);
	if (q->ctl >= 0)
		close(q->ctl);
	free(q);
}

/* RM_ALLOC: 0, or the ioctl's -errno or RM's status (said in @why). */
static int rm_alloc(struct miguuid *q, uint32_t parent, uint32_t *handle, uint32_t hclass,
		    void *params, uint32_t size, const char *what, char *why, size_t len)
{
	struct nvq_os21 a = {
		.hRoot = q->client, .hObjectParent = parent, .hObjectNew = *handle,
		.hClass = hclass, .pAllocParms = (uint64_t)(uintptr_t)params,
	};
	uint32_t status;
	int r;

	if (q->new_alloc)
		a.w6 = size;
	r = esc(q->ctl, NV_ESC_RM_ALLOC, &a, sizeof(a));
	status = q->new_alloc ? a.w7 : a.w6;
	if (r) {
		snprintf(why, len, "%s (RM_ALLOC of class 0x%x): %s", what, hclass, strerror(-r));
		return r;
	}
	if (status) {
		snprintf(why, len, "%s (RM_ALLOC of class 0x%x): status 0x%x", what, hclass, status);
		return (int)status;
	}
	*handle = a.hObjectNew;
	return 0;
}

static int rm_control(struct miguuid *q, uint32_t obj, uint32_t cmd, void *params, uint32_t size,
		      const char *what, char *why, size_t len)
{
	struct nvq_os54 c = {
		.hClient = q->client, .hObject = obj, .cmd = cmd,
		.params = (uint64_t)(uintptr_t)params, .paramsSize = size,
	};
	int r = esc(q->ctl, NV_ESC_RM_CONTROL, &c, sizeof(c));

	if (r)
		snprintf(why, len, "%s (RM_CONTROL 0x%x): %s", what, cmd, strerror(-r));
	else if (c.status)
		snprintf(why, len, "%s (RM_CONTROL 0x%x): status 0x%x", what, cmd, c.status);
	return r ? r : (int)c.status;
}

/* The GPU file of minor @gpu, opened and linked to the control file once. */
static int gpu_file(struct miguuid *q, int gpu, char *why, size_t len)
{
	struct nvq_register_fd reg;
	char path[32];
	int fd, r;

	if (q->gpu_fd[gpu] != -1)
		return q->gpu_fd[gpu];
	q->gpu_fd[gpu] = -2;
	snprintf(path, sizeof(path), "/dev/nvidia%d", gpu);
	fd = open_node(path, O_RDWR, (unsigned int)gpu);
	if (fd < 0) {
		snprintf(why, len, "cannot open %s (the driver's, 195:%d): %s", path, gpu,
			 strerror(errno));
		return -2;
	}
	reg.ctl_fd = q->ctl;
	r = esc(fd, NV_ESC_REGISTER_FD, &reg, sizeof(reg));
	if (r) {
		snprintf(why, len, "REGISTER_FD on %s: %s", path, strerror(-r));
		close(fd);
		return -2;
	}
	q->gpu_fd[gpu] = fd;
	return fd;
}

/* The GPU id of device minor @gpu (CARD_INFO, asked once); 0 when none. */
static uint32_t gpu_id(struct miguuid *q, int gpu, char *why, size_t len)
{
	int i, r;

	if (q->ncards < 0) {
		memset(q->cards, 0, sizeof(q->cards));
		r = esc(q->ctl, NV_ESC_CARD_INFO, q->cards, sizeof(q->cards));
		if (r) {
			snprintf(why, len, "CARD_INFO: %s", strerror(-r));
			return 0;
		}
		q->ncards = CARDS_MAX;
	}
	for (i = 0; i < q->ncards; i++)
		if (q->cards[i].valid && q->cards[i].minor_number == (uint32_t)gpu && q->cards[i].gpu_id)
			return q->cards[i].gpu_id;
	snprintf(why, len, "CARD_INFO lists no GPU of minor %d", gpu);
	return 0;
}

/*
 * A subscription (class @hclass, object @handle under @parent) with the
 * capability node of minor @minor, opened into *@capfd, and instance @id.
 */
static int subscribe(struct miguuid *q, uint32_t parent, uint32_t handle, uint32_t hclass,
		     int minor, uint32_t id, int *capfd, const char *what, char *why, size_t len)
{
	struct nvq_smc_ref ref = { 0 };
	char path[PATH_MAX], node[64];

	snprintf(node, sizeof(node), CAPS_DEV "/nvidia-cap%d", minor);
	hostpath(path, sizeof(path), node);
	*capfd = open(path, O_RDONLY | O_CLOEXEC);
	if (*capfd < 0) {
		snprintf(why, len, "cannot open %s: %s", node, strerror(errno));
		return -1;
	}
	ref.capDescriptor = (uint64_t)*capfd;
	ref.id = id;
	return rm_alloc(q, parent, &handle, hclass, &ref, sizeof(ref), what, why, len) ? -1 : 0;
}

/* The driver's subscription calls for @m, its UUID into @uuid; -1 with @why. */
static int ask(struct miguuid *q, const struct mig *m, char *uuid, char *why, size_t len)
{
	struct nvq_id_info id = { 0 };
	struct nvq_device dev = { 0 };
	struct nvq_subdevice sub = { 0 };
	struct nvq_uuid u;
	uint32_t h;
	int gicap = -1, cicap = -1, ret = -1;

	if (gpu_file(q, m->gpu, why, len) < 0)
		return -1;
	q->client = 0;
	h = 0;
	if (rm_alloc(q, 0, &h, NV01_ROOT, NULL, 0, "a client", why, len))
		return -1;
	q->client = h;
	id.gpuId = gpu_id(q, m->gpu, why, len);
	if (!id.gpuId ||
	    rm_control(q, q->client, NV0000_CTRL_CMD_GPU_GET_ID_INFO_V2, &id, sizeof(id),
		       "the GPU's device instance", why, len))
		goto out;
	dev.deviceId = id.deviceInstance;
	dev.hClientShare = q->client;
	h = H_DEVICE;
	if (rm_alloc(q, q->client, &h, NV01_DEVICE_0, &dev, sizeof(dev), "the device", why, len))
		goto out;
	sub.subDeviceId = id.subDeviceInstance;
	h = H_SUBDEVICE;
	if (rm_alloc(q, H_DEVICE, &h, NV20_SUBDEVICE_0, &sub, sizeof(sub), "the subdevice", why,
		     len))
		goto out;
	if (subscribe(q, H_SUBDEVICE, H_GI, AMPERE_SMC_PARTITION_REF, m->gi_minor, (uint32_t)m->gi,
		      &gicap, "the GPU instance's subscription", why, len) ||
	    subscribe(q, H_GI, H_CI, AMPERE_SMC_EXEC_PARTITION_REF, m->ci_minor, (uint32_t)m->ci,
		      &cicap, "the compute instance's subscription", why, len))
		goto out;
	memset(&u, 0, sizeof(u));
	if (rm_control(q, H_CI, NVC638_CTRL_CMD_GET_UUID, &u, sizeof(u), "its UUID", why, len))
		goto out;
	u.str[sizeof(u.str) - 1] = '\0';
	snprintf(uuid, MIG_UUID_BUF, "%s", u.str);
	ret = 0;
out:
	{
		struct nvq_os00 f = { .hRoot = q->client, .hObjectOld = q->client };

		/* the client's free frees all below it */
		esc(q->ctl, NV_ESC_RM_FREE, &f, sizeof(f));
	}
	if (gicap >= 0)
		close(gicap);
	if (cicap >= 0)
		close(cicap);
	return ret;
}

/* The test hook's UUID of @name ("G:GI:CI"), copied into @uuid; -1 with @why. */
static int fake_uuid(const char *list, const char *name, char *uuid, char *why, size_t len)
{
	size_t n = strlen(name);
	const char *p = list;

	while (*p) {
		size_t w;

		p += strspn(p, ", \t\n");
		w = strcspn(p, ", \t\n");
		if (w > n && !strncmp(p, name, n) && p[n] == '=') {
			snprintf(uuid, MIG_UUID_BUF, "%.*s", (int)(w - n - 1), p + n + 1);
			return 0;
		}
		p += w;
	}
	snprintf(why, len, MIG_UUIDS_ENV " names none");
	return -1;
}

/**
 * miguuid_get() - the UUID of a MIG compute instance
 * @q: from miguuid_open()
 * @m: the instance (its access nodes there: mig_cap_nodes())
 * @uuid: set to its UUID, "MIG-..." (mig_uuid_ok())
 *
 * Return: 0, or -1 (said on standard error, one line; a GPU whose node
 * cannot be opened or linked is said once, its other instances quietly).
 */
int miguuid_get(struct miguuid *q, const struct mig *m, char uuid[MIG_UUID_BUF])
{
	char name[32], why[256] = "";
	int quiet = !q->fake && q->gpu_fd[m->gpu] == -2, r;

	mig_name(name, sizeof(name), m);
	uuid[0] = '\0';
	if (quiet)
		return -1;
	r = q->fake ? fake_uuid(q->fake, name, uuid, why, sizeof(why)) :
		      ask(q, m, uuid, why, sizeof(why));
	if (!r && !mig_uuid_ok(uuid)) {
		snprintf(why, sizeof(why), "the answer '%.48s' is not a MIG UUID", uuid);
		r = -1;
	}
	if (!r)
		return 0;
	if (!q->fake && q->gpu_fd[m->gpu] == -2)
		fprintf(stderr, "%s: cdi: the MIG devices of GPU %d are not named by their UUIDs too: %s\n",
			prog, m->gpu, why);
	else
		fprintf(stderr, "%s: cdi: MIG device %s is not named by its UUID too: %s\n", prog,
			name, why);
	uuid[0] = '\0';
	return -1;
}
