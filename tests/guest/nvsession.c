// SPDX-License-Identifier: GPL-2.0
/*
 * nvsession: a CUDA-like session against the NVIDIA device nodes, for the
 * guest tests.
 *
 *   nvsession [--ctl PATH] [--gpu PATH] [--uvm PATH] [--device N]
 *             [--version V] [--fork] [--procs N] [--threads M] [--loops K]
 *   nvsession [paths] --case NAME      one refusal case (--case list)
 *   --mediated: the nodes are nvmediate's; expect its answers where it
 *   refuses a call itself with an answer other than the driver's (a
 *   kernel-callback event: -EPERM).
 *
 * A session, in the order a CUDA program's context makes its calls as far
 * as the stand-in serves them: creation (version check, card info, root
 * client, GPU node + REGISTER_FD, device, subdevice, the controls CUDA and
 * NVML ask at start, among them the deprecated ones and the class list,
 * one unknown), memory allocated and mapped twice (RM_ALLOC_MEMORY,
 * RM_MAP_MEMORY, mmap of each fd, a pattern written through one and read
 * through the other), the completion path of a launch (an OS event on the
 * subdevice, triggered and polled: the stand-in has no engine to run
 * work), UVM initialise + MM fd + GPU registration + mapping, teardown
 * (frees, close).
 *
 * Output: "pid=<pid>" once, then one line per step -- name, ioctl return,
 * status, values that do not depend on pids or fd numbers -- ending in "ok"
 * or "FAIL(...)".  Every payload lives in a per-session arena at a fixed
 * address so that the bytes a driver receives are the same run after run.
 * With --procs/--threads each session runs quietly; a summary line follows.
 * Exit status 0 iff every step met its expectation.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <pthread.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/inotify.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <sys/types.h>
#include <sys/wait.h>
#include <unistd.h>

#include "../nvidia-abi/nvdrv.h"

#define ARENA_BASE	0x600000000000ULL
#define ARENA_STRIDE	0x0000010000000ULL	/* 256 MiB per session slot */
#define ARENA_SIZE	(4u << 20)		/* payloads */
#define UVM_MAP_OFF	(64u << 20)		/* UVM mapping inside the slot */
#define MEM_SIZE	(64u << 10)

/* Handles the session picks (the client handle is the driver's). */
#define H_DEVICE	0x5e550001u
#define H_SUBDEVICE	0x5e550002u
#define H_MEMORY	0x5e550003u
#define H_EVENT		0x5e550004u
#define H_BAD		0x5e5500ffu

struct opts {
	const char *ctl, *gpu, *uvm;
	int device;
	const char *version;
	int fork, procs, threads, loops;
	const char *casename;
	int mediated;		/* expect nvmediate's answers where it refuses */
};

struct sess {
	const struct opts *o;
	int slot;
	int live;			/* print lines as they come */
	int ctl, ctl2, ctl3, gpu, uvm, uvm2;
	uint8_t *arena;
	size_t used;
	char *out;
	size_t outlen, outcap;
	int failed;
	uint32_t client;
	char version[64];
	uint32_t vmaj, vmin, vpatch;
	uint8_t uuid[16];
	uint32_t gpu_id;
};

static const char *errname(int e)
{
	static const struct { int e; const char *n; } t[] = {
		{ EPERM, "EPERM" }, { ENOENT, "ENOENT" }, { ESRCH, "ESRCH" },
		{ EINTR, "EINTR" }, { EIO, "EIO" }, { ENXIO, "ENXIO" },
		{ E2BIG, "E2BIG" }, { EBADF, "EBADF" }, { EAGAIN, "EAGAIN" },
		{ ENOMEM, "ENOMEM" }, { EACCES, "EACCES" }, { EFAULT, "EFAULT" },
		{ EBUSY, "EBUSY" }, { EEXIST, "EEXIST" }, { ENODEV, "ENODEV" },
		{ EINVAL, "EINVAL" }, { ENFILE, "ENFILE" }, { EMFILE, "EMFILE" },
		{ ENOTTY, "ENOTTY" }, { ENOSPC, "ENOSPC" }, { ERANGE, "ERANGE" },
		{ ENOSYS, "ENOSYS" }, { EOPNOTSUPP, "EOPNOTSUPP" },
		{ EBADFD, "EBADFD" }, { EOVERFLOW, "EOVERFLOW" },
	};
	static __thread char buf[16];
	size_t i;

	for (i = 0; i < sizeof(t) / sizeof(t[0]); i++)
		if (t[i].e == e)
			return t[i].n;
	snprintf(buf, sizeof(buf), "E%d", e);
	return buf;
}

static const char *retstr(int ret)
{
	static __thread char buf[24];

	if (ret >= 0)
		snprintf(buf, sizeof(buf), "%d", ret);
	else
		snprintf(buf, sizeof(buf), "-%s", errname(-ret));
	return buf;
}

static void emit(struct sess *s, const char *fmt, ...)
{
	char line[512];
	va_list ap;
	int n;

	va_start(ap, fmt);
	n = vsnprintf(line, sizeof(line) - 1, fmt, ap);
	va_end(ap);
	if (n < 0)
		return;
	if (n > (int)sizeof(line) - 2)
		n = sizeof(line) - 2;
	line[n++] = '\n';
	line[n] = '\0';
	if (s->live) {
		fputs(line, stdout);
		fflush(stdout);
	}
	if (s->outlen + n + 1 > s->outcap) {
		size_t cap = s->outcap ? s->outcap * 2 : 8192;
		char *p;

		while (cap < s->outlen + n + 1)
			cap *= 2;
		p = realloc(s->out, cap);
		if (!p)
			return;
		s->out = p;
		s->outcap = cap;
	}
	memcpy(s->out + s->outlen, line, n + 1);
	s->outlen += n;
}

/*
 * One transcript line: want_status of -1 means "anything";
 * status -1 means the step has none.
 */
static int check(struct sess *s, const char *name, int ret, int want_ret,
		 long status, long want_status, const char *fmt, ...)
{
	char vals[320] = "", st[24] = "-";
	int bad = ret != want_ret ||
		  (want_status != -1 && status != want_status);
	va_list ap;

	if (fmt) {
		va_start(ap, fmt);
		vsnprintf(vals, sizeof(vals), fmt, ap);
		va_end(ap);
	}
	if (status >= 0)
		snprintf(st, sizeof(st), "0x%lx", status);
	if (bad) {
		char want[64];

		snprintf(want, sizeof(want), "%s", retstr(want_ret));
		emit(s, "%-24s ret=%s status=%s%s%s FAIL(want ret=%s status=0x%lx)",
		     name, retstr(ret), st, vals[0] ? " " : "", vals,
		     want, want_status);
		s->failed++;
	} else {
		emit(s, "%-24s ret=%s status=%s%s%s ok", name, retstr(ret), st,
		     vals[0] ? " " : "", vals);
	}
	return !bad;
}

static void *aalloc(struct sess *s, size_t size)
{
	void *p;

	s->used = (s->used + 63) & ~(size_t)63;
	if (s->used + size > ARENA_SIZE) {
		fprintf(stderr, "nvsession: arena exhausted\n");
		exit(2);
	}
	p = s->arena + s->used;
	memset(p, 0, size);
	s->used += size;
	return p;
}

static uint64_t ptr(const void *p)
{
	return (uint64_t)(uintptr_t)p;
}

static int xioctl(int fd, unsigned long req, void *arg)
{
	return ioctl(fd, req, arg) < 0 ? -errno : 0;
}

static int nvioctl(int fd, unsigned int nr, void *arg, size_t size)
{
	return xioctl(fd, NV_IOC(nr, size), arg);
}

static int version_at_least(struct sess *s, uint32_t a, uint32_t b, uint32_t c)
{
	if (s->vmaj != a)
		return s->vmaj > a;
	if (s->vmin != b)
		return s->vmin > b;
	return s->vpatch >= c;
}

static int open_node(struct sess *s, const char *what, const char *path, int *fd)
{
	*fd = open(path, O_RDWR | O_CLOEXEC);
	return check(s, what, *fd < 0 ? -errno : 0, 0, -1, -1, NULL);
}

static int arena_init(struct sess *s)
{
	void *want = (void *)(uintptr_t)(ARENA_BASE + (uint64_t)s->slot * ARENA_STRIDE);
	void *p = mmap(want, ARENA_SIZE, PROT_READ | PROT_WRITE,
		       MAP_PRIVATE | MAP_ANONYMOUS | MAP_FIXED_NOREPLACE, -1, 0);

	if (p == MAP_FAILED || p != want) {
		fprintf(stderr, "nvsession: arena at %p: %s\n", want,
			strerror(errno));
		return -1;
	}
	s->arena = p;
	s->used = 0;
	return 0;
}

static void arena_fini(struct sess *s)
{
	if (s->arena)
		munmap(s->arena, ARENA_SIZE);
	s->arena = NULL;
}

/* ---- RM helpers ---- */

/*
 * NVOS21 (nvos.h) is 32 bytes in every release; paramsSize came in
 * 535.43.02, before the status, which was at 24 until then.
 */
static uint32_t nvos21_status(struct sess *s, const struct nvd_os21 *a)
{
	return version_at_least(s, 535, 43, 2) ? a->status : a->paramsSize;
}

static int rm_alloc_ret(struct sess *s, const char *name, uint32_t parent,
			uint32_t handle, uint32_t hclass, void *params,
			uint32_t psize, long want_ret, long want_status, uint32_t *out)
{
	struct nvd_os21 *a = aalloc(s, sizeof(*a));
	int ret;

	a->hRoot = s->client;
	a->hObjectParent = parent;
	a->hObjectNew = handle;
	a->hClass = hclass;
	a->pAllocParms = ptr(params);
	if (version_at_least(s, 535, 43, 2))
		a->paramsSize = psize;
	ret = nvioctl(s->ctl, NV_ESC_RM_ALLOC, a, sizeof(*a));
	if (out)
		*out = a->hObjectNew;
	return check(s, name, ret, want_ret, nvos21_status(s, a), want_status, "class=0x%x",
		     a->hClass);
}

static int rm_alloc(struct sess *s, const char *name, uint32_t parent,
		    uint32_t handle, uint32_t hclass, void *params,
		    uint32_t psize, long want_status, uint32_t *out)
{
	return rm_alloc_ret(s, name, parent, handle, hclass, params, psize, 0, want_status, out);
}

static int rm_control_ret(struct sess *s, const char *name, uint32_t obj,
			  uint32_t cmd, void *params, uint32_t psize,
			  long want_ret, long want_status, uint32_t *status)
{
	struct nvd_os54 *c = aalloc(s, sizeof(*c));
	int ret;

	c->hClient = s->client;
	c->hObject = obj;
	c->cmd = cmd;
	c->params = ptr(params);
	c->paramsSize = psize;
	ret = nvioctl(s->ctl, NV_ESC_RM_CONTROL, c, sizeof(*c));
	if (status)
		*status = c->status;
	if (!name)
		return ret == want_ret && c->status == (uint32_t)want_status;
	return check(s, name, ret, want_ret, c->status, want_status, "cmd=0x%x", cmd);
}

static int rm_control(struct sess *s, const char *name, uint32_t obj,
		      uint32_t cmd, void *params, uint32_t psize,
		      long want_status, uint32_t *status)
{
	return rm_control_ret(s, name, obj, cmd, params, psize, 0, want_status, status);
}

static int rm_free(struct sess *s, const char *name, uint32_t parent,
		   uint32_t handle)
{
	struct nvd_os00 *f = aalloc(s, sizeof(*f));
	int ret;

	f->hRoot = s->client;
	f->hObjectParent = parent;
	f->hObjectOld = handle;
	ret = nvioctl(s->ctl, NV_ESC_RM_FREE, f, sizeof(*f));
	return check(s, name, ret, 0, f->status, NV_OK, NULL);
}

static void parse_version(struct sess *s)
{
	unsigned int a = 0, b = 0, c = 0;

	sscanf(s->version, "%u.%u.%u", &a, &b, &c);
	s->vmaj = a;
	s->vmin = b;
	s->vpatch = c;
}

/* ---- the session, in steps ---- */

static int step_open(struct sess *s)
{
	int ok = 1;

	ok &= open_node(s, "open-ctl", s->o->ctl, &s->ctl);
	ok &= open_node(s, "open-ctl-map1", s->o->ctl, &s->ctl2);
	ok &= open_node(s, "open-ctl-map2", s->o->ctl, &s->ctl3);
	ok &= open_node(s, "open-gpu", s->o->gpu, &s->gpu);
	ok &= open_node(s, "open-uvm", s->o->uvm, &s->uvm);
	ok &= open_node(s, "open-uvm-mm", s->o->uvm, &s->uvm2);
	return ok;
}

static void close_all(struct sess *s)
{
	int *fds[] = { &s->uvm2, &s->uvm, &s->gpu, &s->ctl3, &s->ctl2, &s->ctl };
	size_t i;

	for (i = 0; i < sizeof(fds) / sizeof(fds[0]); i++) {
		if (*fds[i] >= 0)
			close(*fds[i]);
		*fds[i] = -1;
	}
}

static int step_version(struct sess *s)
{
	struct nvd_version_str *v = aalloc(s, sizeof(*v));
	int ret;

	if (s->o->version) {
		snprintf(s->version, sizeof(s->version), "%s", s->o->version);
	} else {
		v->cmd = NV_RM_API_VERSION_CMD_QUERY;
		ret = nvioctl(s->ctl, NV_ESC_CHECK_VERSION_STR, v, sizeof(*v));
		memcpy(s->version, v->versionString, sizeof(s->version));
		s->version[sizeof(s->version) - 1] = '\0';
		if (!check(s, "version-query", ret, 0, -1, -1, "reply=%u version=%s",
			   v->reply, s->version[0] ? s->version : "(none)"))
			return 0;
		if (!s->version[0]) {
			emit(s, "version-query: the driver returned no version; give --version");
			s->failed++;
			return 0;
		}
	}
	parse_version(s);
	v = aalloc(s, sizeof(*v));
	v->cmd = NV_RM_API_VERSION_CMD_STRICT;
	snprintf(v->versionString, sizeof(v->versionString), "%s", s->version);
	ret = nvioctl(s->ctl, NV_ESC_CHECK_VERSION_STR, v, sizeof(*v));
	return check(s, "version-check", ret, 0, -1, -1, "reply=%u", v->reply) &&
	       v->reply == 1;
}

static int step_card_info(struct sess *s)
{
	struct nvd_card_info *ci = aalloc(s, 32 * sizeof(*ci));
	int ret, n = 0, i;
	char vals[200] = "";

	ret = nvioctl(s->ctl, NV_ESC_CARD_INFO, ci, 32 * sizeof(*ci));
	for (i = 0; i < 32; i++)
		if (ci[i].valid)
			n++;
	if (n)
		snprintf(vals, sizeof(vals), "gpus=%d gpu0=0x%x bus=%u vendor=0x%04x minor=%u",
			 n, ci[0].gpu_id, ci[0].bus, ci[0].vendor_id, ci[0].minor_number);
	else
		snprintf(vals, sizeof(vals), "gpus=0");
	return check(s, "card-info", ret, 0, -1, -1, "%s", vals) && n > 0;
}

static int step_root(struct sess *s)
{
	struct nvd_os21 *a = aalloc(s, sizeof(*a));
	int ret;

	a->hClass = NV01_ROOT;
	ret = nvioctl(s->ctl, NV_ESC_RM_ALLOC, a, sizeof(*a));
	s->client = a->hObjectNew;
	/* The class comes back forced: the driver copies the struct back. */
	return check(s, "alloc-root", ret, 0, nvos21_status(s, a), NV_OK,
		     "class=0x%x client=%s", a->hClass,
		     s->client ? "set" : "zero") && s->client;
}

static int step_register_fd(struct sess *s)
{
	struct nvd_register_fd *r = aalloc(s, sizeof(*r));
	struct nvd_wait_open *w;
	int ret;

	r->ctl_fd = s->ctl;
	ret = nvioctl(s->gpu, NV_ESC_REGISTER_FD, r, sizeof(*r));
	if (!check(s, "register-fd", ret, 0, -1, -1, NULL))
		return 0;
	if (!version_at_least(s, 550, 40, 7))
		return 1;
	w = aalloc(s, sizeof(*w));
	w->rc = -1;
	ret = nvioctl(s->gpu, NV_ESC_WAIT_OPEN_COMPLETE, w, sizeof(*w));
	return check(s, "wait-open-complete", ret, 0, -1, -1, "rc=%d adapter=0x%x",
		     w->rc, w->adapterStatus) && w->rc == 0;
}

static int step_device(struct sess *s)
{
	struct nvd_os64 *a = aalloc(s, sizeof(*a));
	struct nvd_alloc_0080 *dp = aalloc(s, sizeof(*dp));
	struct nvd_alloc_2080 *sp = aalloc(s, sizeof(*sp));
	int ret;

	/*
	 * The NVOS64 form, as newer user-space libraries issue it, in this
	 * release's layout (nvos.h): 48 bytes with paramsSize and flags from
	 * 535.43.02 (status at 40); before, 40 bytes, with a flags word before
	 * the status from 525.47.04 (status at 36, else 32).
	 */
	uint32_t size = sizeof(*a), status;

	dp->deviceId = s->o->device;
	a->hRoot = s->client;
	a->hObjectParent = s->client;
	a->hObjectNew = H_DEVICE;
	a->hClass = NV01_DEVICE_0;
	a->pAllocParms = ptr(dp);
	if (version_at_least(s, 535, 43, 2))
		a->paramsSize = sizeof(*dp);
	else
		size = 40;
	ret = nvioctl(s->ctl, NV_ESC_RM_ALLOC, a, size);
	memcpy(&status, (char *)a + (size == 48 ? 40 : version_at_least(s, 525, 47, 4) ? 36 : 32),
	       sizeof(status));
	if (!check(s, "alloc-device", ret, 0, status, NV_OK, "class=0x%x nvos64=1",
		   a->hClass))
		return 0;
	return rm_alloc(s, "alloc-subdevice", H_DEVICE, H_SUBDEVICE, NV20_SUBDEVICE_0,
			sp, sizeof(*sp), NV_OK, NULL);
}

/*
 * The deprecated controls a CUDA or NVML start still makes: the driver
 * converts each to its V2 control and reads and writes through the
 * pointer in the V1 params.
 */
static int step_deprecated(struct sess *s)
{
	struct nvd_ctrl_build_version_v1 *bv = aalloc(s, sizeof(*bv));
	struct nvd_ctrl_info_list_v1 *il = aalloc(s, sizeof(*il));
	struct nvd_ctrl_info *list = aalloc(s, 4 * sizeof(*list));
	char *drv, *ver, *title;
	int ok = 1, i;

	/* NULL buffers: the driver says how large they must be. */
	ok &= rm_control(s, "ctrl-dep-build-version-size", s->client,
			 NV0000_CTRL_CMD_SYSTEM_GET_BUILD_VERSION, bv, sizeof(*bv), NV_OK, NULL);
	emit(s, "%-24s sizeOfStrings=%u", "  dep-build-version", bv->sizeOfStrings);
	if (!ok || bv->sizeOfStrings < 2 || bv->sizeOfStrings > 256)
		return 0;
	drv = aalloc(s, bv->sizeOfStrings);
	ver = aalloc(s, bv->sizeOfStrings);
	title = aalloc(s, bv->sizeOfStrings);
	bv->pDriverVersionBuffer = ptr(drv);
	bv->pVersionBuffer = ptr(ver);
	bv->pTitleBuffer = ptr(title);
	ok &= rm_control(s, "ctrl-dep-build-version", s->client,
			 NV0000_CTRL_CMD_SYSTEM_GET_BUILD_VERSION, bv, sizeof(*bv), NV_OK, NULL);
	emit(s, "%-24s driver=%s version=%s", "  dep-build-version", drv, ver);
	ok &= strcmp(drv, s->version) == 0;

	/* A list of three: each entry comes back with its data. */
	for (i = 0; i < 3; i++)
		list[i] = (struct nvd_ctrl_info){ .index = (uint32_t)i + 1, .data = 0 };
	il->listSize = 3;
	il->list = ptr(list);
	ok &= rm_control(s, "ctrl-dep-bios-info", H_SUBDEVICE, NV2080_CTRL_CMD_BIOS_GET_INFO, il,
			 sizeof(*il), NV_OK, NULL);
	emit(s, "%-24s data=0x%x,0x%x,0x%x", "  dep-bios-info", list[0].data, list[1].data,
	     list[2].data);
	ok &= list[0].data != 0 && list[0].data != list[1].data;
	list[0] = (struct nvd_ctrl_info){ .index = 7, .data = 0 };
	il->listSize = 1;
	ok &= rm_control(s, "ctrl-dep-bus-info", H_SUBDEVICE, NV2080_CTRL_CMD_BUS_GET_INFO, il,
			 sizeof(*il), NV_OK, NULL);
	emit(s, "%-24s data=0x%x", "  dep-bus-info", list[0].data);
	ok &= list[0].data != 0;
	/* No list: nothing is copied. */
	il->listSize = 0;
	il->list = 0;
	ok &= rm_control(s, "ctrl-dep-bus-info-empty", H_SUBDEVICE, NV2080_CTRL_CMD_BUS_GET_INFO,
			 il, sizeof(*il), NV_OK, NULL);
	/* More entries than the V2 control holds: the driver refuses the count. */
	il->listSize = NV2080_CTRL_BUS_INFO_MAX_LIST_SIZE + 1;
	il->list = ptr(list);
	ok &= rm_control(s, "ctrl-dep-bus-info-count", H_SUBDEVICE, NV2080_CTRL_CMD_BUS_GET_INFO,
			 il, sizeof(*il), NV_ERR_OUT_OF_RANGE, NULL);
	return ok;
}

/*
 * A list the driver copies around the method, as CUDA asks for the
 * device's classes: the count first, then the list, then a list one short;
 * then a list without a count and a count without a list, which the driver
 * refuses, giving the params back with the pointer cleared.
 */
static int step_classlist(struct sess *s)
{
	struct nvd_ctrl_classlist *cl = aalloc(s, sizeof(*cl));
	uint32_t *list, n;
	int ok;

	ok = rm_control(s, "ctrl-classlist-count", H_DEVICE, NV0080_CTRL_CMD_GPU_GET_CLASSLIST, cl,
			sizeof(*cl), NV_OK, NULL);
	n = cl->numClasses;
	emit(s, "%-24s count=%u", "  classlist", n);
	if (!ok || !n || n > 4096)
		return 0;
	list = aalloc(s, n * sizeof(*list));
	cl->classList = ptr(list);
	ok &= rm_control(s, "ctrl-classlist", H_DEVICE, NV0080_CTRL_CMD_GPU_GET_CLASSLIST, cl,
			 sizeof(*cl), NV_OK, NULL);
	emit(s, "%-24s first=0x%x last=0x%x", "  classlist", list[0], list[n - 1]);
	ok &= cl->numClasses == n && list[n - 1] != 0;
	cl->numClasses = n - 1;
	ok &= rm_control(s, "ctrl-classlist-short", H_DEVICE, NV0080_CTRL_CMD_GPU_GET_CLASSLIST,
			 cl, sizeof(*cl), NV_ERR_INVALID_PARAM_STRUCT, NULL);
	cl->numClasses = 0;
	ok &= rm_control(s, "ctrl-classlist-no-count", H_DEVICE, NV0080_CTRL_CMD_GPU_GET_CLASSLIST,
			 cl, sizeof(*cl), NV_ERR_INVALID_ARGUMENT, NULL);
	emit(s, "%-24s count=%u list=0x%llx", "  classlist-no-count", cl->numClasses,
	     (unsigned long long)cl->classList);
	ok &= cl->classList == 0;
	cl->numClasses = n;
	ok &= rm_control(s, "ctrl-classlist-no-list", H_DEVICE, NV0080_CTRL_CMD_GPU_GET_CLASSLIST,
			 cl, sizeof(*cl), NV_ERR_INVALID_ARGUMENT, NULL);
	return ok;
}

static int step_controls(struct sess *s)
{
	uint32_t bsize = version_at_least(s, 560, 28, 3) ? NVD_BUILD_VERSION_V2_SIZE_NEW :
							      NVD_BUILD_VERSION_V2_SIZE_OLD;
	char *bv = aalloc(s, bsize);
	struct nvd_ctrl_attached_ids *ids = aalloc(s, sizeof(*ids));
	struct nvd_ctrl_id_info_v2 *info = aalloc(s, sizeof(*info));
	struct nvd_ctrl_num_subdevices *ns = aalloc(s, sizeof(*ns));
	struct nvd_ctrl_gid_info *gid = aalloc(s, sizeof(*gid));
	struct nvd_ctrl_attached_ids *ids2 = aalloc(s, sizeof(*ids2));
	struct nvd_os54 *c;
	struct nvd_xfer *x;
	int ok = 1, n = 0, i, ret;

	ok &= rm_control(s, "ctrl-build-version", s->client,
			 NV0000_CTRL_CMD_SYSTEM_GET_BUILD_VERSION_V2, bv, bsize, NV_OK, NULL);
	bv[255] = '\0';
	emit(s, "%-24s driver=%s", "  build-version", bv);
	ok &= strcmp(bv, s->version) == 0;

	ok &= rm_control(s, "ctrl-attached-ids", s->client,
			 NV0000_CTRL_CMD_GPU_GET_ATTACHED_IDS, ids, sizeof(*ids), NV_OK, NULL);
	for (i = 0; i < 32 && ids->gpuIds[i] != 0xffffffffu; i++)
		n++;
	s->gpu_id = ids->gpuIds[s->o->device < n ? s->o->device : 0];
	emit(s, "%-24s count=%d id=0x%x", "  attached-ids", n, s->gpu_id);

	info->gpuId = s->gpu_id;
	ok &= rm_control(s, "ctrl-id-info-v2", s->client,
			 NV0000_CTRL_CMD_GPU_GET_ID_INFO_V2, info, sizeof(*info), NV_OK, NULL);
	emit(s, "%-24s deviceInstance=%u numaId=%d", "  id-info", info->deviceInstance,
	     info->numaId);

	ok &= rm_control(s, "ctrl-num-subdevices", H_DEVICE,
			 NV0080_CTRL_CMD_GPU_GET_NUM_SUBDEVICES, ns, sizeof(*ns), NV_OK, NULL);
	emit(s, "%-24s num=%u", "  num-subdevices", ns->numSubDevices);

	gid->flags = 2;		/* binary */
	ok &= rm_control(s, "ctrl-gid-info", H_SUBDEVICE,
			 NV2080_CTRL_CMD_GPU_GET_GID_INFO, gid, sizeof(*gid), NV_OK, NULL);
	memcpy(s->uuid, gid->data, 16);
	{
		char hex[40];

		for (i = 0; i < 16; i++)
			sprintf(hex + 2 * i, "%02x", s->uuid[i]);
		emit(s, "%-24s length=%u uuid=%s", "  gid-info", gid->length, hex);
	}

	/* The driver answers an unknown command in the status, ioctl 0. */
	ok &= rm_control(s, "ctrl-unknown", H_SUBDEVICE, 0x2080dead, NULL, 0,
			 NV_ERR_NOT_SUPPORTED, NULL);
	/* A size other than the method table's (nvmediate answers it itself, alike). */
	ok &= rm_control(s, "ctrl-wrong-size", H_SUBDEVICE, NV2080_CTRL_CMD_GPU_GET_GID_INFO, gid,
			 100, NV_ERR_INVALID_ARGUMENT, NULL);

	/* The same control wrapped in NV_ESC_IOCTL_XFER_CMD. */
	c = aalloc(s, sizeof(*c));
	x = aalloc(s, sizeof(*x));
	c->hClient = s->client;
	c->hObject = s->client;
	c->cmd = NV0000_CTRL_CMD_GPU_GET_ATTACHED_IDS;
	c->params = ptr(ids2);
	c->paramsSize = sizeof(*ids2);
	x->cmd = NV_ESC_RM_CONTROL;
	x->size = sizeof(*c);
	x->ptr = ptr(c);
	ret = nvioctl(s->ctl, NV_ESC_IOCTL_XFER_CMD, x, sizeof(*x));
	ok &= check(s, "ctrl-via-xfer", ret, 0, c->status, NV_OK, "id=0x%x",
		    ids2->gpuIds[0]);
	ok &= step_deprecated(s);
	ok &= step_classlist(s);
	return ok;
}

static void fill(uint8_t *p, size_t n, uint32_t seed)
{
	size_t i;

	for (i = 0; i < n; i++)
		p[i] = (uint8_t)((i * 131 + seed) ^ (i >> 8));
}

static int same(const uint8_t *p, size_t n, uint32_t seed)
{
	size_t i;

	for (i = 0; i < n; i++)
		if (p[i] != (uint8_t)((i * 131 + seed) ^ (i >> 8)))
			return 0;
	return 1;
}

/*
 * Mediated: the VMA of a mapping holds nvmediate's backing file, which root
 * reaches through /proc/self/map_files.  That file's inode lets nobody watch
 * it (a watch would hold the inode and report other tenants' opens and
 * closes) or change it.
 */
static int step_backing_closed(struct sess *s, void *a)
{
	char path[64];
	int fd, ret, ok;

	snprintf(path, sizeof(path), "/proc/self/map_files/%lx-%lx", (unsigned long)a,
		 (unsigned long)a + MEM_SIZE);
	fd = inotify_init1(IN_CLOEXEC);
	ret = fd < 0 || inotify_add_watch(fd, path, IN_ALL_EVENTS) < 0 ? -errno : 0;
	if (fd >= 0)
		close(fd);
	ok = check(s, "backing-watch", ret, -EACCES, -1, -1, NULL);
	ret = chmod(path, 0666) ? -errno : 0;
	return check(s, "backing-chmod", ret, -EPERM, -1, -1, NULL) && ok;
}

static int step_memory(struct sess *s)
{
	struct nvd_os02_fd *m = aalloc(s, sizeof(*m));
	struct nvd_os33_fd *mp = aalloc(s, sizeof(*mp));
	struct nvd_os34 *um = aalloc(s, sizeof(*um));
	uint8_t *a = MAP_FAILED, *b = MAP_FAILED, *bad;
	int ok = 1, ret;

	/* System memory, mapped right away: mapping context on ctl-map1. */
	m->hRoot = s->client;
	m->hObjectParent = H_DEVICE;
	m->hObjectNew = H_MEMORY;
	m->hClass = NV01_MEMORY_SYSTEM;
	m->flags = NVOS02_FLAGS_DEFAULT_MAPPED;
	m->limit = MEM_SIZE - 1;
	m->fd = s->ctl2;
	ret = nvioctl(s->gpu, NV_ESC_RM_ALLOC_MEMORY, m, sizeof(*m));
	if (!check(s, "alloc-memory", ret, 0, m->status, NV_OK, "pMemory=0x%llx",
		   (unsigned long long)m->pMemory))
		return 0;

	a = mmap(NULL, MEM_SIZE, PROT_READ | PROT_WRITE, MAP_SHARED, s->ctl2, 0);
	ok &= check(s, "mmap-alloc", a == MAP_FAILED ? -errno : 0, 0, -1, -1, NULL);
	if (a != MAP_FAILED) {
		fill(a, MEM_SIZE, 7);
		ok &= check(s, "mmap-alloc-readback", 0, 0, -1, -1, "match=%d",
			    same(a, MEM_SIZE, 7)) && same(a, MEM_SIZE, 7);
		if (s->o->mediated && !geteuid())
			ok &= step_backing_closed(s, a);
	}

	/* A second mapping of the same memory, through ctl-map2. */
	mp->hClient = s->client;
	mp->hDevice = H_DEVICE;
	mp->hMemory = H_MEMORY;
	mp->offset = 0;
	mp->length = MEM_SIZE;
	mp->fd = s->ctl3;
	ret = nvioctl(s->ctl, NV_ESC_RM_MAP_MEMORY, mp, sizeof(*mp));
	ok &= check(s, "map-memory", ret, 0, mp->status, NV_OK, "linear=0x%llx",
		    (unsigned long long)mp->pLinearAddress);

	b = mmap(NULL, MEM_SIZE, PROT_READ | PROT_WRITE, MAP_SHARED, s->ctl3, 0);
	ok &= check(s, "mmap-map", b == MAP_FAILED ? -errno : 0, 0, -1, -1, NULL);
	if (b != MAP_FAILED && a != MAP_FAILED) {
		int m1 = same(b, MEM_SIZE, 7);

		fill(b, MEM_SIZE / 2, 99);
		ok &= check(s, "mmap-shared-pattern", 0, 0, -1, -1, "seen=%d back=%d", m1,
			    same(a, MEM_SIZE / 2, 99)) && m1 && same(a, MEM_SIZE / 2, 99);
	}
	/* vm_pgoff must be 0. */
	bad = mmap(NULL, 4096, PROT_READ, MAP_SHARED, s->ctl3, 4096);
	ok &= check(s, "mmap-offset", bad == MAP_FAILED ? -errno : 0, -EINVAL, -1, -1,
		    NULL);
	if (bad != MAP_FAILED)
		munmap(bad, 4096);

	um->hClient = s->client;
	um->hDevice = H_DEVICE;
	um->hMemory = H_MEMORY;
	um->pLinearAddress = mp->pLinearAddress;
	ret = nvioctl(s->ctl, NV_ESC_RM_UNMAP_MEMORY, um, sizeof(*um));
	ok &= check(s, "unmap-memory", ret, 0, um->status, NV_OK, NULL);
	if (a != MAP_FAILED)
		munmap(a, MEM_SIZE);
	if (b != MAP_FAILED)
		munmap(b, MEM_SIZE);
	return ok;
}

static int step_event(struct sess *s)
{
	struct nvd_os_event *e = aalloc(s, sizeof(*e));
	struct nvd_alloc_0005 *ep = aalloc(s, sizeof(*ep));
	struct nvd_ctrl_set_notification *sn = aalloc(s, sizeof(*sn));
	struct nvd_os41 *gd = aalloc(s, sizeof(*gd));
	struct nvd_unix_event *ue = aalloc(s, sizeof(*ue));
	struct pollfd pfd = { .fd = s->ctl, .events = POLLIN | POLLPRI };
	int ok = 1, ret;

	/* The fd is only a key: the ctl fd's own number, as libraries do. */
	e->hClient = s->client;
	e->hDevice = H_DEVICE;
	e->fd = s->ctl;
	ret = nvioctl(s->ctl, NV_ESC_ALLOC_OS_EVENT, e, sizeof(*e));
	ok &= check(s, "alloc-os-event", ret, 0, e->Status, NV_OK, NULL);

	ep->hParentClient = s->client;
	ep->hSrcResource = H_SUBDEVICE;
	ep->hClass = NV01_EVENT_OS_EVENT;
	ep->notifyIndex = NV2080_NOTIFIERS_SW;
	ep->data = (uint64_t)s->ctl;
	ok &= rm_alloc(s, "alloc-event", H_SUBDEVICE, H_EVENT, NV01_EVENT_OS_EVENT, ep,
		       sizeof(*ep), NV_OK, NULL);

	sn->event = NV2080_NOTIFIERS_SW;
	sn->action = NV2080_EVENT_ACTION_SINGLE;
	ok &= rm_control(s, "ctrl-set-notification", H_SUBDEVICE,
			 NV2080_CTRL_CMD_EVENT_SET_NOTIFICATION, sn, sizeof(*sn), NV_OK, NULL);

	ret = poll(&pfd, 1, 0);
	ok &= check(s, "poll-before", ret < 0 ? -errno : ret, 0, -1, -1, "revents=0x%x",
		    pfd.revents);

	ok &= rm_control(s, "ctrl-set-trigger", H_SUBDEVICE,
			 NV2080_CTRL_CMD_EVENT_SET_TRIGGER, NULL, 0, NV_OK, NULL);

	pfd.revents = 0;
	ret = poll(&pfd, 1, 5000);
	ok &= check(s, "poll-after", ret < 0 ? -errno : ret, 1, -1, -1, "revents=0x%x",
		    pfd.revents) && pfd.revents == (POLLIN | POLLPRI);

	gd->pEvent = ptr(ue);
	ret = nvioctl(s->ctl, NV_ESC_RM_GET_EVENT_DATA, gd, sizeof(*gd));
	ok &= check(s, "get-event-data", ret, 0, gd->status, NV_OK,
		    "hObject=0x%x index=%u more=%u", ue->hObject, ue->NotifyIndex,
		    gd->MoreEvents) && ue->hObject == H_EVENT;

	gd = aalloc(s, sizeof(*gd));
	gd->pEvent = ptr(ue);
	ret = nvioctl(s->ctl, NV_ESC_RM_GET_EVENT_DATA, gd, sizeof(*gd));
	ok &= check(s, "get-event-data-empty", ret, 0, gd->status,
		    NV_ERR_OPERATING_SYSTEM, NULL);
	return ok;
}

static int step_refused_allocs(struct sess *s)
{
	struct nvd_alloc_0005 *ep = aalloc(s, sizeof(*ep));
	int ok = 1;

	ep->hParentClient = s->client;
	ep->hSrcResource = H_SUBDEVICE;
	ep->hClass = NV01_EVENT_KERNEL_CALLBACK;
	/* nvmediate refuses kernel-callback events itself: -EPERM. */
	ok &= rm_alloc_ret(s, "alloc-kernel-callback", H_SUBDEVICE, H_BAD,
			   NV01_EVENT_KERNEL_CALLBACK, ep, sizeof(*ep), s->o->mediated ? -EPERM : 0,
			   s->o->mediated ? 0 : 0x16 /* NV_ERR_ILLEGAL_ACTION */, NULL);
	ok &= rm_alloc(s, "alloc-unknown-class", H_DEVICE, H_BAD, 0xbeef, NULL, 0,
		       NV_ERR_INVALID_CLASS, NULL);
	return ok;
}

static int step_uvm(struct sess *s)
{
	struct nvd_uvm_initialize *in = aalloc(s, sizeof(*in));
	struct nvd_uvm_mm_initialize *mm = aalloc(s, sizeof(*mm));
	struct nvd_uvm_register_gpu *rg = aalloc(s, sizeof(*rg));
	struct nvd_uvm_unregister_gpu *ug = aalloc(s, sizeof(*ug));
	void *want = s->arena + UVM_MAP_OFF, *p;
	int ok = 1, ret;

	ret = xioctl(s->uvm, UVM_INITIALIZE, in);
	ok &= check(s, "uvm-initialize", ret, 0, in->rmStatus, NV_OK, NULL);

	/* UVM_MM_INITIALIZE exists from 535.43.02 (uvm_ioctl.h). */
	if (version_at_least(s, 535, 43, 2)) {
		mm->uvmFd = s->uvm;
		ret = xioctl(s->uvm2, UVM_MM_INITIALIZE, mm);
		ok &= check(s, "uvm-mm-initialize", ret, 0, mm->rmStatus, NV_OK, NULL);
	}

	memcpy(rg->gpu_uuid, s->uuid, 16);
	rg->rmCtrlFd = s->ctl;
	rg->hClient = s->client;
	ret = xioctl(s->uvm, UVM_REGISTER_GPU, rg);
	ok &= check(s, "uvm-register-gpu", ret, 0, rg->rmStatus, NV_OK,
		    "numa=%u node=%d", rg->numaEnabled, rg->numaNodeId);

	/* UVM mappings have offset == address. */
	p = mmap(want, MEM_SIZE, PROT_READ | PROT_WRITE,
		 MAP_SHARED | MAP_FIXED_NOREPLACE, s->uvm, (off_t)(uintptr_t)want);
	ok &= check(s, "uvm-mmap", p == MAP_FAILED ? -errno : 0, 0, -1, -1,
		    "at-offset=%d", p == want);
	if (p != MAP_FAILED) {
		fill(p, MEM_SIZE, 3);
		ok &= check(s, "uvm-mmap-readback", 0, 0, -1, -1, "match=%d",
			    same(p, MEM_SIZE, 3)) && same(p, MEM_SIZE, 3);
		munmap(p, MEM_SIZE);
	}

	memcpy(ug->gpu_uuid, s->uuid, 16);
	ret = xioctl(s->uvm, UVM_UNREGISTER_GPU, ug);
	ok &= check(s, "uvm-unregister-gpu", ret, 0, ug->rmStatus, NV_OK, NULL);
	ret = xioctl(s->uvm, UVM_DEINITIALIZE, NULL);
	ok &= check(s, "uvm-deinitialize", ret, 0, -1, -1, NULL);
	return ok;
}

static int step_frees(struct sess *s)
{
	struct nvd_os_event *e = aalloc(s, sizeof(*e));
	int ok = 1, ret;

	e->hClient = s->client;
	e->hDevice = H_DEVICE;
	e->fd = s->ctl;
	ret = nvioctl(s->ctl, NV_ESC_FREE_OS_EVENT, e, sizeof(*e));
	ok &= check(s, "free-os-event", ret, 0, e->Status, NV_OK, NULL);
	ok &= rm_free(s, "free-device", s->client, H_DEVICE);
	ok &= rm_free(s, "free-client", 0, s->client);
	return ok;
}

static int session_body(struct sess *s)
{
	int ok = step_version(s) && step_card_info(s) && step_root(s) &&
		 step_register_fd(s) && step_device(s) && step_controls(s) &&
		 step_memory(s) && step_event(s) && step_refused_allocs(s) &&
		 step_uvm(s);

	/* Free what was made even after a failure: the log shows the frees. */
	if (s->client)
		ok &= step_frees(s);
	return ok;
}

static void sess_init(struct sess *s, const struct opts *o, int slot, int live)
{
	memset(s, 0, sizeof(*s));
	s->o = o;
	s->slot = slot;
	s->live = live;
	s->ctl = s->ctl2 = s->ctl3 = s->gpu = s->uvm = s->uvm2 = -1;
}

/* One whole session in this process: open, steps, close. */
static int run_session(struct sess *s)
{
	int ok;

	s->outlen = 0;
	if (arena_init(s))
		return 0;
	ok = step_open(s) && session_body(s);
	close_all(s);
	arena_fini(s);
	return ok && !s->failed;
}

/* ---- concurrency ---- */

struct worker {
	pthread_t tid;
	const struct opts *o;
	int slot;
	int failed;
	uint64_t digest;
	char *first_fail;
};

static uint64_t fnv(const char *p, size_t n)
{
	uint64_t h = 0xcbf29ce484222325ULL;

	while (n--) {
		h ^= (uint8_t)*p++;
		h *= 0x100000001b3ULL;
	}
	return h;
}

static void *worker_main(void *arg)
{
	struct worker *w = arg;
	struct sess s;
	int l;

	sess_init(&s, w->o, w->slot, 0);
	for (l = 0; l < w->o->loops; l++) {
		s.failed = 0;
		if (!run_session(&s)) {
			w->failed++;
			if (!w->first_fail && s.out)
				w->first_fail = strndup(s.out, s.outlen);
		}
		if (l == 0)
			w->digest = fnv(s.out ? s.out : "", s.outlen);
	}
	free(s.out);
	return NULL;
}

struct proc_result {
	int failed;
	int sessions;
	uint64_t digest;
	int consistent;
};

static struct proc_result run_threads(const struct opts *o, int proc)
{
	struct proc_result r = { .consistent = 1 };
	struct worker *w = calloc(o->threads, sizeof(*w));
	int t;

	if (!w) {
		r.failed = o->threads * o->loops;
		return r;
	}
	for (t = 0; t < o->threads; t++) {
		w[t].o = o;
		w[t].slot = proc * o->threads + t;
		if (pthread_create(&w[t].tid, NULL, worker_main, &w[t])) {
			w[t].tid = 0;
			w[t].failed = o->loops;
		}
	}
	for (t = 0; t < o->threads; t++) {
		if (w[t].tid)
			pthread_join(w[t].tid, NULL);
		r.failed += w[t].failed;
		r.sessions += o->loops;
		if (t == 0)
			r.digest = w[t].digest;
		else if (w[t].digest != r.digest)
			r.consistent = 0;
		if (w[t].first_fail) {
			fprintf(stderr, "--- process %d thread %d failed:\n%s", proc, t,
				w[t].first_fail);
			free(w[t].first_fail);
		}
	}
	free(w);
	return r;
}

static int run_many(const struct opts *o)
{
	int pipefd[2], p, failed = 0, sessions = 0, consistent = 1, got = 0;
	struct proc_result r;
	uint64_t digest = 0;
	pid_t *pids;

	printf("pid=%d\n", getpid());
	fflush(stdout);
	if (pipe(pipefd) < 0) {
		perror("nvsession: pipe");
		return 1;
	}
	pids = calloc(o->procs, sizeof(*pids));
	if (!pids)
		return 1;
	for (p = 0; p < o->procs; p++) {
		pids[p] = fork();
		if (pids[p] < 0) {
			fprintf(stderr, "nvsession: fork: %s\n", errname(errno));
			continue;
		}
		if (pids[p] == 0) {
			close(pipefd[0]);
			r = run_threads(o, p);
			if (write(pipefd[1], &r, sizeof(r)) != sizeof(r))
				_exit(3);
			_exit(r.failed ? 1 : 0);
		}
	}
	close(pipefd[1]);
	while (read(pipefd[0], &r, sizeof(r)) == sizeof(r)) {
		if (got++ == 0)
			digest = r.digest;
		else if (r.digest != digest)
			consistent = 0;
		consistent &= r.consistent;
		failed += r.failed;
		sessions += r.sessions;
	}
	for (p = 0; p < o->procs; p++) {
		int st;

		if (pids[p] > 0 && waitpid(pids[p], &st, 0) > 0 &&
		    (!WIFEXITED(st) || WEXITSTATUS(st) > 1))
			failed++;
	}
	free(pids);
	failed += (o->procs - got) * o->threads * o->loops;
	printf("sessions=%d passed=%d failed=%d procs=%d threads=%d loops=%d transcripts=%s\n",
	       o->procs * o->threads * o->loops, sessions - (failed < sessions ? failed : sessions),
	       failed, o->procs, o->threads, o->loops, consistent ? "identical" : "DIFFER");
	return failed || !consistent;
}

/* --fork: the parent opens the files, a child runs the session on them. */
static int run_forked(const struct opts *o)
{
	struct sess s;
	pid_t pid;
	int st, ok;

	sess_init(&s, o, 0, 1);
	printf("parent=%d\n", getpid());
	fflush(stdout);
	ok = step_open(&s);
	pid = fork();
	if (pid < 0) {
		perror("nvsession: fork");
		return 1;
	}
	if (pid == 0) {
		printf("pid=%d\n", getpid());
		fflush(stdout);
		if (arena_init(&s))
			_exit(1);
		ok = ok && session_body(&s);
		close_all(&s);
		_exit(ok && !s.failed ? 0 : 1);
	}
	close_all(&s);
	if (waitpid(pid, &st, 0) < 0 || !WIFEXITED(st))
		return 1;
	return WEXITSTATUS(st);
}

static int run_single(const struct opts *o)
{
	struct sess s;
	int l, failed = 0;

	printf("pid=%d\n", getpid());
	fflush(stdout);
	sess_init(&s, o, 0, 1);
	for (l = 0; l < o->loops; l++) {
		s.failed = 0;
		if (!run_session(&s))
			failed++;
		s.live = 0;
	}
	free(s.out);
	if (o->loops > 1)
		printf("loops=%d failed=%d\n", o->loops, failed);
	return failed != 0;
}

/* ---- refusal cases: the driver's answers when a check must fail ---- */

struct rcase {
	const char *name;
	const char *what;
	int (*fn)(struct sess *s);
};

static int open_quiet(const char *path)
{
	return open(path, O_RDWR | O_CLOEXEC);
}

/* Version, root client; the control file only. */
static int case_prologue(struct sess *s)
{
	s->ctl = open_quiet(s->o->ctl);
	if (s->ctl < 0) {
		emit(s, "open %s: %s", s->o->ctl, errname(errno));
		return 0;
	}
	return step_version(s) && step_root(s);
}

static int case_device_without_gpu_file(struct sess *s)
{
	struct nvd_alloc_0080 *dp;

	if (!case_prologue(s))
		return 0;
	/*
	 * The caller must hold the GPU node open itself: a file of nvidia's
	 * from 550.40.07, any character device 195:minor before.
	 */
	dp = aalloc(s, sizeof(*dp));
	dp->deviceId = s->o->device;
	return rm_alloc(s, "alloc-device-no-gpu-file", s->client, H_DEVICE,
			NV01_DEVICE_0, dp, sizeof(*dp), NV_ERR_INSUFFICIENT_PERMISSIONS,
			NULL);
}

static int case_device_with_gpu_file(struct sess *s)
{
	struct nvd_alloc_0080 *dp;

	if (!case_prologue(s))
		return 0;
	s->gpu = open_quiet(s->o->gpu);
	dp = aalloc(s, sizeof(*dp));
	dp->deviceId = s->o->device;
	return rm_alloc(s, "alloc-device-gpu-file", s->client, H_DEVICE, NV01_DEVICE_0,
			dp, sizeof(*dp), NV_OK, NULL);
}

/*
 * NV01_DEVICE_0 of GPU 0 while holding 70 files of the other GPU, opened
 * first (lower numbers), and one of GPU 0: the driver finds GPU 0's file
 * however many others come before it.  Needs a second GPU node, named as
 * the first with its last digit 1.
 */
static int case_device_many_gpu_files(struct sess *s)
{
	struct nvd_alloc_0080 *dp;
	char other[256];
	size_t n = strlen(s->o->gpu);
	int i, fd;

	if (!case_prologue(s))
		return 0;
	if (!n || n >= sizeof(other) || s->o->gpu[n - 1] != '0') {
		fprintf(stderr, "nvsession: device-many-gpu-files wants a GPU node ending in 0\n");
		return 0;
	}
	memcpy(other, s->o->gpu, n + 1);
	other[n - 1] = '1';
	for (i = 0; i < 70; i++) {
		fd = open(other, O_RDWR | O_CLOEXEC);
		if (fd < 0) {
			fprintf(stderr, "nvsession: open %s: %s\n", other, strerror(errno));
			return 0;
		}
	}
	s->gpu = open_quiet(s->o->gpu);
	dp = aalloc(s, sizeof(*dp));
	dp->deviceId = 0;
	return rm_alloc(s, "alloc-device-many-gpu-files", s->client, H_DEVICE, NV01_DEVICE_0,
			dp, sizeof(*dp), NV_OK, NULL);
}

static int case_register_fd_foreign(struct sess *s)
{
	struct nvd_register_fd *r;
	int nullfd, ret;

	s->gpu = open_quiet(s->o->gpu);
	nullfd = open("/dev/null", O_RDWR | O_CLOEXEC);
	if (s->gpu < 0 || nullfd < 0)
		return 0;
	r = aalloc(s, sizeof(*r));
	r->ctl_fd = nullfd;
	ret = nvioctl(s->gpu, NV_ESC_REGISTER_FD, r, sizeof(*r));
	close(nullfd);
	return check(s, "register-fd-foreign", ret, -EINVAL, -1, -1, NULL);
}

static int case_register_fd_badf(struct sess *s)
{
	struct nvd_register_fd *r;
	int ret;

	s->gpu = open_quiet(s->o->gpu);
	if (s->gpu < 0)
		return 0;
	r = aalloc(s, sizeof(*r));
	r->ctl_fd = 1000;
	ret = nvioctl(s->gpu, NV_ESC_REGISTER_FD, r, sizeof(*r));
	return check(s, "register-fd-badf", ret, -EINVAL, -1, -1, NULL);
}

static int case_register_fd_gpu(struct sess *s)
{
	struct nvd_register_fd *r;
	int gpu2, ret;

	s->gpu = open_quiet(s->o->gpu);
	gpu2 = open_quiet(s->o->gpu);
	if (s->gpu < 0 || gpu2 < 0)
		return 0;
	r = aalloc(s, sizeof(*r));
	r->ctl_fd = gpu2;	/* a GPU file is not a control file */
	ret = nvioctl(s->gpu, NV_ESC_REGISTER_FD, r, sizeof(*r));
	close(gpu2);
	return check(s, "register-fd-gpu-file", ret, -EINVAL, -1, -1, NULL);
}

/* UVM_MM_INITIALIZE naming the control file: the driver wants a UVM file. */
static int case_mm_init_ctl(struct sess *s)
{
	struct nvd_uvm_initialize *in;
	struct nvd_uvm_mm_initialize *mm;
	int ret, ok;

	s->ctl = open_quiet(s->o->ctl);
	s->uvm = open_quiet(s->o->uvm);
	s->uvm2 = open_quiet(s->o->uvm);
	if (s->ctl < 0 || s->uvm < 0 || s->uvm2 < 0)
		return 0;
	in = aalloc(s, sizeof(*in));
	mm = aalloc(s, sizeof(*mm));
	ret = xioctl(s->uvm, UVM_INITIALIZE, in);
	ok = check(s, "uvm-initialize", ret, 0, in->rmStatus, NV_OK, NULL);
	mm->uvmFd = s->ctl;
	ret = xioctl(s->uvm2, UVM_MM_INITIALIZE, mm);
	return ok && check(s, "uvm-mm-init-ctl", ret, 0, mm->rmStatus,
			   NV_ERR_INVALID_ARGUMENT, NULL);
}

static int case_mm_init_foreign(struct sess *s)
{
	struct nvd_uvm_initialize *in;
	struct nvd_uvm_mm_initialize *mm;
	int nullfd, ret, ok;

	s->uvm = open_quiet(s->o->uvm);
	s->uvm2 = open_quiet(s->o->uvm);
	nullfd = open("/dev/null", O_RDWR | O_CLOEXEC);
	if (s->uvm < 0 || s->uvm2 < 0 || nullfd < 0)
		return 0;
	in = aalloc(s, sizeof(*in));
	mm = aalloc(s, sizeof(*mm));
	ret = xioctl(s->uvm, UVM_INITIALIZE, in);
	ok = check(s, "uvm-initialize", ret, 0, in->rmStatus, NV_OK, NULL);
	mm->uvmFd = nullfd;
	ret = xioctl(s->uvm2, UVM_MM_INITIALIZE, mm);
	close(nullfd);
	return ok && check(s, "uvm-mm-init-foreign", ret, 0, mm->rmStatus,
			   NV_ERR_INVALID_ARGUMENT, NULL);
}

static int case_mm_init_same_fd(struct sess *s)
{
	struct nvd_uvm_initialize *in;
	struct nvd_uvm_mm_initialize *mm;
	int ret, ok;

	s->uvm = open_quiet(s->o->uvm);
	if (s->uvm < 0)
		return 0;
	in = aalloc(s, sizeof(*in));
	mm = aalloc(s, sizeof(*mm));
	ret = xioctl(s->uvm, UVM_INITIALIZE, in);
	ok = check(s, "uvm-initialize", ret, 0, in->rmStatus, NV_OK, NULL);
	mm->uvmFd = s->uvm;
	ret = xioctl(s->uvm, UVM_MM_INITIALIZE, mm);
	return ok && check(s, "uvm-mm-init-same-fd", ret, 0, mm->rmStatus, NV_ERR_IN_USE,
			   NULL);
}

static int case_uvm_before_init(struct sess *s)
{
	struct nvd_uvm_register_gpu *rg;
	int ret;

	s->uvm = open_quiet(s->o->uvm);
	if (s->uvm < 0)
		return 0;
	rg = aalloc(s, sizeof(*rg));
	ret = xioctl(s->uvm, UVM_REGISTER_GPU, rg);
	return check(s, "uvm-register-before-init", ret, 0, rg->rmStatus,
		     NV_ERR_ILLEGAL_ACTION, NULL);
}

static int case_uvm_unknown(struct sess *s)
{
	char *buf;
	int ret;

	s->uvm = open_quiet(s->o->uvm);
	if (s->uvm < 0)
		return 0;
	buf = aalloc(s, 64);
	ret = xioctl(s->uvm, 200, buf);		/* a UVM_TEST_* number */
	return check(s, "uvm-unknown-command", ret, -ENOSYS, -1, -1, NULL);
}

/* Session up to the device, for the cases about memory. */
static int case_device(struct sess *s)
{
	struct nvd_register_fd *r;

	if (!case_prologue(s))
		return 0;
	s->gpu = open_quiet(s->o->gpu);
	if (s->gpu < 0)
		return 0;
	r = aalloc(s, sizeof(*r));
	r->ctl_fd = s->ctl;
	if (nvioctl(s->gpu, NV_ESC_REGISTER_FD, r, sizeof(*r)))
		return 0;
	return step_device(s);
}

static int alloc_unmapped_memory(struct sess *s)
{
	struct nvd_os02_fd *m = aalloc(s, sizeof(*m));
	int ret;

	m->hRoot = s->client;
	m->hObjectParent = H_DEVICE;
	m->hObjectNew = H_MEMORY;
	m->hClass = NV01_MEMORY_SYSTEM;
	m->flags = 1u << 30;		/* MAPPING_NO_MAP: no context */
	m->limit = MEM_SIZE - 1;
	m->fd = -1;
	ret = nvioctl(s->gpu, NV_ESC_RM_ALLOC_MEMORY, m, sizeof(*m));
	return check(s, "alloc-memory-nomap", ret, 0, m->status, NV_OK, NULL);
}

static int map_memory_fd(struct sess *s, const char *name, int fd, long want)
{
	struct nvd_os33_fd *mp = aalloc(s, sizeof(*mp));
	int ret;

	mp->hClient = s->client;
	mp->hDevice = H_DEVICE;
	mp->hMemory = H_MEMORY;
	mp->length = MEM_SIZE;
	mp->fd = fd;
	ret = nvioctl(s->ctl, NV_ESC_RM_MAP_MEMORY, mp, sizeof(*mp));
	return check(s, name, ret, 0, mp->status, want, NULL);
}

static int case_map_memory_foreign(struct sess *s)
{
	int nullfd, ok;

	if (!case_device(s) || !alloc_unmapped_memory(s))
		return 0;
	nullfd = open("/dev/null", O_RDWR | O_CLOEXEC);
	ok = map_memory_fd(s, "map-memory-foreign-fd", nullfd, NV_ERR_INVALID_ARGUMENT);
	close(nullfd);
	return ok;
}

static int case_map_memory_twice(struct sess *s)
{
	int ok;

	if (!case_device(s) || !alloc_unmapped_memory(s))
		return 0;
	s->ctl2 = open_quiet(s->o->ctl);
	ok = map_memory_fd(s, "map-memory", s->ctl2, NV_OK);
	/* One mapping context per file. */
	return ok && map_memory_fd(s, "map-memory-same-file", s->ctl2,
				   NV_ERR_STATE_IN_USE);
}

static int case_map_memory_other_process(struct sess *s)
{
	pid_t pid;
	int st;

	if (!case_device(s) || !alloc_unmapped_memory(s))
		return 0;
	s->ctl2 = open_quiet(s->o->ctl);
	fflush(stdout);
	pid = fork();
	if (pid == 0) {
		s->live = 1;
		/* The client is the parent's: no mapping context for a child. */
		_exit(map_memory_fd(s, "map-memory-child", s->ctl2,
				    NV_ERR_INVALID_CLIENT) ? 0 : 1);
	}
	if (pid < 0 || waitpid(pid, &st, 0) < 0)
		return 0;
	return WIFEXITED(st) && WEXITSTATUS(st) == 0;
}

static int case_mmap_without_context(struct sess *s)
{
	void *p;

	s->ctl = open_quiet(s->o->ctl);
	if (s->ctl < 0)
		return 0;
	p = mmap(NULL, 4096, PROT_READ, MAP_SHARED, s->ctl, 0);
	if (p != MAP_FAILED)
		munmap(p, 4096);
	return check(s, "mmap-no-context", p == MAP_FAILED ? -errno : 0, -EINVAL, -1, -1,
		     NULL);
}

static int case_ctl_escape_on_gpu(struct sess *s)
{
	struct nvd_os54 *c;
	int ret;

	s->gpu = open_quiet(s->o->gpu);
	if (s->gpu < 0)
		return 0;
	c = aalloc(s, sizeof(*c));
	/* RM_CONTROL is valid on the control node only: -EINVAL. */
	ret = nvioctl(s->gpu, NV_ESC_RM_CONTROL, c, sizeof(*c));
	return check(s, "control-on-gpu-node", ret, -EINVAL, -1, -1, NULL);
}

static int case_alloc_memory_on_ctl(struct sess *s)
{
	struct nvd_os02_fd *m;
	int ret;

	s->ctl = open_quiet(s->o->ctl);
	if (s->ctl < 0)
		return 0;
	m = aalloc(s, sizeof(*m));
	ret = nvioctl(s->ctl, NV_ESC_RM_ALLOC_MEMORY, m, sizeof(*m));
	return check(s, "alloc-memory-on-ctl", ret, -EINVAL, -1, -1, NULL);
}

static int case_version_mismatch(struct sess *s)
{
	struct nvd_version_str *v;
	int ret;

	s->ctl = open_quiet(s->o->ctl);
	if (s->ctl < 0)
		return 0;
	v = aalloc(s, sizeof(*v));
	strcpy(v->versionString, "1.2.3");
	ret = nvioctl(s->ctl, NV_ESC_CHECK_VERSION_STR, v, sizeof(*v));
	/* -EINVAL, and the struct still comes back with the driver's string. */
	return check(s, "version-mismatch", ret, -EINVAL, -1, -1, "reply=%u driver=%s",
		     v->reply, v->versionString) && v->reply == 1 &&
	       strcmp(v->versionString, "1.2.3") != 0;
}

static int case_wrong_size(struct sess *s)
{
	struct nvd_os54 *c;
	int ret;

	s->ctl = open_quiet(s->o->ctl);
	if (s->ctl < 0)
		return 0;
	c = aalloc(s, 64);
	ret = nvioctl(s->ctl, NV_ESC_RM_CONTROL, c, 31);
	return check(s, "control-size-31", ret, -EINVAL, -1, -1, NULL);
}

static int case_xfer_oversize(struct sess *s)
{
	struct nvd_xfer *x;
	int ret;

	s->ctl = open_quiet(s->o->ctl);
	if (s->ctl < 0)
		return 0;
	x = aalloc(s, sizeof(*x));
	x->cmd = NV_ESC_RM_CONTROL;
	x->size = 16385;
	x->ptr = ptr(aalloc(s, 16385));
	ret = nvioctl(s->ctl, NV_ESC_IOCTL_XFER_CMD, x, sizeof(*x));
	return check(s, "xfer-16385", ret, -EINVAL, -1, -1, NULL);
}

static int case_client_other_file(struct sess *s)
{
	struct nvd_os54 *c;
	struct nvd_ctrl_attached_ids *ids;
	int ctlb, ret;

	if (!case_prologue(s))
		return 0;
	ctlb = open_quiet(s->o->ctl);
	c = aalloc(s, sizeof(*c));
	ids = aalloc(s, sizeof(*ids));
	c->hClient = s->client;
	c->hObject = s->client;
	c->cmd = NV0000_CTRL_CMD_GPU_GET_ATTACHED_IDS;
	c->params = ptr(ids);
	c->paramsSize = sizeof(*ids);
	/* A client is used through the control file that created it. */
	ret = nvioctl(ctlb, NV_ESC_RM_CONTROL, c, sizeof(*c));
	close(ctlb);
	return check(s, "client-other-ctl-file", ret, 0, c->status, NV_ERR_INVALID_CLIENT,
		     NULL);
}

static const struct rcase cases[] = {
	{ "device-without-gpu-file", "NV01_DEVICE_0 while not holding the GPU node",
	  case_device_without_gpu_file },
	{ "device-with-gpu-file", "NV01_DEVICE_0 while holding the GPU node",
	  case_device_with_gpu_file },
	{ "device-many-gpu-files", "NV01_DEVICE_0 of GPU 0 after 70 files of GPU 1",
	  case_device_many_gpu_files },
	{ "register-fd-foreign", "REGISTER_FD naming /dev/null", case_register_fd_foreign },
	{ "register-fd-badf", "REGISTER_FD naming no open fd", case_register_fd_badf },
	{ "register-fd-gpu", "REGISTER_FD naming a GPU file", case_register_fd_gpu },
	{ "mm-init-foreign", "UVM_MM_INITIALIZE naming /dev/null", case_mm_init_foreign },
	{ "mm-init-ctl", "UVM_MM_INITIALIZE naming the control file", case_mm_init_ctl },
	{ "mm-init-same-fd", "UVM_MM_INITIALIZE on the va-space fd itself",
	  case_mm_init_same_fd },
	{ "uvm-before-init", "UVM_REGISTER_GPU before UVM_INITIALIZE", case_uvm_before_init },
	{ "uvm-unknown", "a UVM test ioctl number", case_uvm_unknown },
	{ "map-memory-foreign", "RM_MAP_MEMORY with fd naming /dev/null",
	  case_map_memory_foreign },
	{ "map-memory-twice", "two mapping contexts on one file", case_map_memory_twice },
	{ "map-memory-other-process", "RM_MAP_MEMORY from a process not the client's",
	  case_map_memory_other_process },
	{ "mmap-without-context", "mmap of a control file without context",
	  case_mmap_without_context },
	{ "ctl-escape-on-gpu", "RM_CONTROL on a GPU node", case_ctl_escape_on_gpu },
	{ "alloc-memory-on-ctl", "RM_ALLOC_MEMORY on the control node",
	  case_alloc_memory_on_ctl },
	{ "version-mismatch", "CHECK_VERSION_STR with another version",
	  case_version_mismatch },
	{ "wrong-size", "RM_CONTROL with a 31-byte payload", case_wrong_size },
	{ "xfer-oversize", "XFER of 16385 bytes", case_xfer_oversize },
	{ "client-other-file", "a client used through another control file",
	  case_client_other_file },
};

static int run_case(const struct opts *o)
{
	struct sess s;
	size_t i;
	int ok;

	if (!strcmp(o->casename, "list")) {
		for (i = 0; i < sizeof(cases) / sizeof(cases[0]); i++)
			printf("%-26s %s\n", cases[i].name, cases[i].what);
		return 0;
	}
	for (i = 0; i < sizeof(cases) / sizeof(cases[0]); i++)
		if (!strcmp(cases[i].name, o->casename))
			break;
	if (i == sizeof(cases) / sizeof(cases[0])) {
		fprintf(stderr, "nvsession: no case %s (--case list)\n", o->casename);
		return 2;
	}
	printf("pid=%d\n", getpid());
	fflush(stdout);
	sess_init(&s, o, 0, 1);
	if (arena_init(&s))
		return 1;
	ok = cases[i].fn(&s) && !s.failed;
	close_all(&s);
	arena_fini(&s);
	free(s.out);
	printf("case %s %s\n", o->casename, ok ? "ok" : "FAIL");
	return ok ? 0 : 1;
}

static void usage(void)
{
	fprintf(stderr,
		"usage: nvsession [--ctl PATH] [--gpu PATH] [--uvm PATH] [--device N]\n"
		"                 [--version V] [--fork] [--procs N] [--threads M] [--loops K]\n"
		"       nvsession [paths] --case NAME|list\n");
	exit(2);
}

static int trailing_number(const char *path)
{
	const char *p = path + strlen(path);

	while (p > path && p[-1] >= '0' && p[-1] <= '9')
		p--;
	return *p ? atoi(p) : 0;
}

int main(int argc, char **argv)
{
	struct opts o = {
		.ctl = "/dev/nvidiactl", .gpu = "/dev/nvidia0", .uvm = "/dev/nvidia-uvm",
		.device = -1, .procs = 0, .threads = 0, .loops = 1,
	};
	int i;

	for (i = 1; i < argc; i++) {
		const char *a = argv[i], *v = i + 1 < argc ? argv[i + 1] : NULL;

		if (!strcmp(a, "--fork")) {
			o.fork = 1;
			continue;
		}
		if (!strcmp(a, "--mediated")) {
			o.mediated = 1;
			continue;
		}
		if (!v)
			usage();
		i++;
		if (!strcmp(a, "--ctl"))
			o.ctl = v;
		else if (!strcmp(a, "--gpu"))
			o.gpu = v;
		else if (!strcmp(a, "--uvm"))
			o.uvm = v;
		else if (!strcmp(a, "--device"))
			o.device = atoi(v);
		else if (!strcmp(a, "--version"))
			o.version = v;
		else if (!strcmp(a, "--procs"))
			o.procs = atoi(v);
		else if (!strcmp(a, "--threads"))
			o.threads = atoi(v);
		else if (!strcmp(a, "--loops"))
			o.loops = atoi(v);
		else if (!strcmp(a, "--case"))
			o.casename = v;
		else
			usage();
	}
	if (o.device < 0)
		o.device = trailing_number(o.gpu);
	if (o.loops < 1 || o.procs < 0 || o.threads < 0 || o.procs > 64 || o.threads > 64)
		usage();
	setvbuf(stdout, NULL, _IOLBF, 0);

	if (o.casename)
		return run_case(&o);
	if (o.procs || o.threads) {
		if (!o.procs)
			o.procs = 1;
		if (!o.threads)
			o.threads = 1;
		return run_many(&o);
	}
	if (o.fork)
		return run_forked(&o);
	return run_single(&o);
}
