// SPDX-License-Identifier: GPL-2.0
/*
 * nvbench: the cost of mediation, measured in the guest.
 *
 *   nvbench [--quick] [--iters N] [--scale-ms MS] [--reps R] [--files N]
 *           [--only OP] [--threads 1|2|4|8] [--scale-side direct|mediated|getppid]
 *
 * Defaults: 50000 calls per side of the cheap operations (fewer of the
 * dearer ones: ops[].weight), in blocks of 250 per side; thread scaling 5
 * runs of 1000 ms per thread count and kind; 10000 files.  --quick: 200
 * calls in blocks of 50, one run of 100 ms, 300 files (the guest test).
 * --only OP runs one operation, or only "scale" or "mem", or "calls": every
 * operation but neither scale nor mem.  --threads N and --scale-side SIDE
 * limit the thread scaling to that count and that side.
 *
 * Runs each operation on the driver's own nodes (/dev/nvidiactl,
 * /dev/nvidia0, /dev/nvidia-uvm: "direct") and on nvmediate's
 * (/dev/nvproxy, /dev/nvproxy0, /dev/nvproxy-uvm: "mediated"), alternating
 * blocks of calls between the two sides (direct first in even rounds,
 * mediated first in odd ones) so that drift of the machine hits both, after
 * one untimed warm-up round.  Every call is timed on its own with
 * clock_gettime(CLOCK_MONOTONIC), and its return and status are checked: a
 * failing call is counted and reported, never timed as a success.
 *
 * Operations: the clock (two clock reads with nothing between: what every
 * timed call's figure includes besides the call, so that tests/bench/run.sh
 * can take it out of the unit and the floor), getppid (the unit, run on
 * both "sides" alike as a control of the method), a write fault (the floor of a bounced call, both sides alike:
 * a byte written to a present anonymous page whose PTE clearing the
 * soft-dirty bits made read-only, so the kernel takes a minor write fault
 * that allocates nothing; the clearing before is untimed), the same fault
 * taken from kernel mode (a read from /dev/zero into that page, against the
 * same read into it writable), a small
 * RM_CONTROL (GPU_GET_ID_INFO_V2, 32 bytes), a 4 KB one (GPU_GET_PIDS, 3812 bytes), RM_ALLOC + RM_FREE of a client,
 * REGISTER_FD (carries an fd; a fresh GPU file each call, its open and
 * close untimed), a UVM call (PAGEABLE_MEM_ACCESS), open + close of the
 * control node, mmap + munmap of RM memory.  Then thread scaling: 1, 2, 4
 * and 8 threads, each with its own control file and client, doing the small
 * control for a fixed time, and getppid likewise (what the machine itself
 * scales to).  Then memory: N control files held open at once,
 * Slab and MemAvailable before and after.
 *
 * Every timed call also counts the minor faults the calling thread took
 * (getrusage(RUSAGE_THREAD) before and after, outside the timing).
 *
 * Output, one line each, for tests/bench/run.sh:
 *   NVMBENCH op=NAME side=direct|mediated n= median_ns= p99_ns= mean_ns= min_ns= minflt= fails=
 *   NVMBENCH scale side= threads= reps= calls= secs= rate= fails=
 *   NVMBENCH mem side= files= slab_kb= sunreclaim_kb= memavail_kb= fails=
 *   NVMBENCH fail ...                       the first failures, with the reason
 *   NVMBENCH end fails=N                    last
 * Exit status 0 iff every call succeeded.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/resource.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

#include "../nvidia-abi/nvdrv.h"

#define H_DEVICE	0xbe000001u
#define H_SUBDEVICE	0xbe000002u
#define H_MEMORY	0xbe000003u
#define MEM_SIZE	(64u << 10)
#define NSIDES		2

static const char *const side_name[NSIDES] = { "direct", "mediated" };
static const char *const scale_name[NSIDES + 1] = { "direct", "mediated", "getppid" };

struct paths {
	const char *ctl, *gpu, *uvm;
};

static const struct paths side_paths[NSIDES] = {
	{ "/dev/nvidiactl", "/dev/nvidia0", "/dev/nvidia-uvm" },
	{ "/dev/nvproxy", "/dev/nvproxy0", "/dev/nvproxy-uvm" },
};

/* One side's open files and RM objects, made once. */
struct side {
	int idx;
	const struct paths *p;
	int ctl, ctl_map, gpu, uvm;
	int gpu_tmp;			/* REGISTER_FD: a fresh GPU file per call */
	uint32_t client;
	void *map;			/* mmap: the current mapping */
	struct nvd_os54 ctrl;
	struct nvd_ctrl_id_info_v2 info;
	struct nvd_os54 ctrl4k;
	struct nvd_ctrl_get_pids *pids;
	uint32_t gpu_id;
};

static int total_fails;
static int reported_fails;

static void failf(const char *fmt, ...)
{
	va_list ap;

	total_fails++;
	if (reported_fails++ >= 20)
		return;
	fputs("NVMBENCH fail ", stdout);
	va_start(ap, fmt);
	vprintf(fmt, ap);
	va_end(ap);
	fputc('\n', stdout);
	fflush(stdout);
}

static uint64_t now_ns(void)
{
	struct timespec t;

	clock_gettime(CLOCK_MONOTONIC, &t);
	return (uint64_t)t.tv_sec * 1000000000ull + (uint64_t)t.tv_nsec;
}

static int nvioctl(int fd, unsigned int nr, void *arg, size_t size)
{
	return ioctl(fd, NV_IOC(nr, size), arg) < 0 ? -errno : 0;
}

static int rm_alloc(int ctl, uint32_t root, uint32_t parent, uint32_t *handle,
		    uint32_t hclass, void *params, uint32_t psize)
{
	struct nvd_os21 a = {
		.hRoot = root, .hObjectParent = parent, .hObjectNew = *handle,
		.hClass = hclass, .pAllocParms = (uint64_t)(uintptr_t)params,
		.paramsSize = psize,
	};
	int ret = nvioctl(ctl, NV_ESC_RM_ALLOC, &a, sizeof(a));

	if (ret || a.status != NV_OK)
		return ret ? ret : (int)a.status;
	*handle = a.hObjectNew;
	return 0;
}

static int rm_free(int ctl, uint32_t root, uint32_t parent, uint32_t handle)
{
	struct nvd_os00 f = { .hRoot = root, .hObjectParent = parent, .hObjectOld = handle };
	int ret = nvioctl(ctl, NV_ESC_RM_FREE, &f, sizeof(f));

	return ret ? ret : (int)f.status;
}

/* A control file with an RM client of its own: for the thread workers. */
static int client_open(const char *ctl_path, int *ctl, uint32_t *client)
{
	int ret;

	*client = 0;
	*ctl = open(ctl_path, O_RDWR | O_CLOEXEC);
	if (*ctl < 0)
		return -errno;
	ret = rm_alloc(*ctl, 0, 0, client, NV01_ROOT_CLIENT, NULL, 0);
	if (ret) {
		close(*ctl);
		*ctl = -1;
	}
	return ret;
}

static void ctrl_small_prepare(struct nvd_os54 *c, struct nvd_ctrl_id_info_v2 *info,
			       uint32_t client, uint32_t gpu_id)
{
	memset(c, 0, sizeof(*c));
	c->hClient = client;
	c->hObject = client;
	c->cmd = NV0000_CTRL_CMD_GPU_GET_ID_INFO_V2;
	c->params = (uint64_t)(uintptr_t)info;
	c->paramsSize = sizeof(*info);
	memset(info, 0, sizeof(*info));
	info->gpuId = gpu_id;
}

/* The small control, checked: the answer names device instance 0. */
static int ctrl_small_call(int ctl, struct nvd_os54 *c, struct nvd_ctrl_id_info_v2 *info)
{
	int ret;

	c->status = 0xffffffffu;
	info->deviceInstance = 0xffffffffu;
	ret = nvioctl(ctl, NV_ESC_RM_CONTROL, c, sizeof(*c));
	if (ret)
		return ret;
	if (c->status != NV_OK)
		return (int)c->status;
	return info->deviceInstance == 0 ? 0 : 1000;
}

static int side_setup(struct side *s, int idx)
{
	struct nvd_alloc_0080 dev = { .deviceId = 0 };
	struct nvd_alloc_2080 sub = { .subDeviceId = 0 };
	struct nvd_ctrl_attached_ids ids;
	struct nvd_os54 c = { 0 };
	struct nvd_register_fd r;
	struct nvd_os02_fd m = { 0 };
	struct nvd_uvm_initialize ui = { 0 };
	uint32_t h;
	int ret;

	memset(s, 0, sizeof(*s));
	s->idx = idx;
	s->p = &side_paths[idx];
	s->ctl = open(s->p->ctl, O_RDWR | O_CLOEXEC);
	s->ctl_map = open(s->p->ctl, O_RDWR | O_CLOEXEC);
	s->gpu = open(s->p->gpu, O_RDWR | O_CLOEXEC);
	s->uvm = open(s->p->uvm, O_RDWR | O_CLOEXEC);
	s->gpu_tmp = -1;
	if (s->ctl < 0 || s->ctl_map < 0 || s->gpu < 0 || s->uvm < 0) {
		failf("op=setup side=%s what=open errno=%d", side_name[idx], errno);
		return -1;
	}
	ret = rm_alloc(s->ctl, 0, 0, &s->client, NV01_ROOT_CLIENT, NULL, 0);
	if (ret)
		goto bad;
	r.ctl_fd = s->ctl;
	ret = nvioctl(s->gpu, NV_ESC_REGISTER_FD, &r, sizeof(r));
	if (ret)
		goto bad;
	h = H_DEVICE;
	ret = rm_alloc(s->ctl, s->client, s->client, &h, NV01_DEVICE_0, &dev, sizeof(dev));
	if (ret)
		goto bad;
	h = H_SUBDEVICE;
	ret = rm_alloc(s->ctl, s->client, H_DEVICE, &h, NV20_SUBDEVICE_0, &sub, sizeof(sub));
	if (ret)
		goto bad;

	c.hClient = s->client;
	c.hObject = s->client;
	c.cmd = NV0000_CTRL_CMD_GPU_GET_ATTACHED_IDS;
	c.params = (uint64_t)(uintptr_t)&ids;
	c.paramsSize = sizeof(ids);
	ret = nvioctl(s->ctl, NV_ESC_RM_CONTROL, &c, sizeof(c));
	if (ret || c.status)
		goto bad_status;
	s->gpu_id = ids.gpuIds[0];

	/* System memory with a mapping context on ctl_map, for mmap. */
	m.hRoot = s->client;
	m.hObjectParent = H_DEVICE;
	m.hObjectNew = H_MEMORY;
	m.hClass = NV01_MEMORY_SYSTEM;
	m.flags = NVOS02_FLAGS_DEFAULT_MAPPED;
	m.limit = MEM_SIZE - 1;
	m.fd = s->ctl_map;
	ret = nvioctl(s->gpu, NV_ESC_RM_ALLOC_MEMORY, &m, sizeof(m));
	if (ret || m.status)
		goto bad_memory;

	ret = ioctl(s->uvm, UVM_INITIALIZE, &ui) < 0 ? -errno : 0;
	if (ret || ui.rmStatus)
		goto bad_uvm;

	ctrl_small_prepare(&s->ctrl, &s->info, s->client, s->gpu_id);
	s->pids = calloc(1, sizeof(*s->pids));
	if (!s->pids)
		return -1;
	s->ctrl4k.hClient = s->client;
	s->ctrl4k.hObject = H_SUBDEVICE;
	s->ctrl4k.cmd = NV2080_CTRL_CMD_GPU_GET_PIDS;
	s->ctrl4k.params = (uint64_t)(uintptr_t)s->pids;
	s->ctrl4k.paramsSize = sizeof(*s->pids);
	return 0;

bad:
	failf("op=setup side=%s what=rm ret=%d", side_name[idx], ret);
	return -1;
bad_status:
	failf("op=setup side=%s what=attached-ids ret=%d status=0x%x", side_name[idx], ret,
	      c.status);
	return -1;
bad_memory:
	failf("op=setup side=%s what=alloc-memory ret=%d status=0x%x", side_name[idx], ret,
	      m.status);
	return -1;
bad_uvm:
	failf("op=setup side=%s what=uvm-initialize ret=%d status=0x%x", side_name[idx], ret,
	      ui.rmStatus);
	return -1;
}

static void side_teardown(struct side *s)
{
	int *fds[] = { &s->uvm, &s->gpu, &s->ctl_map, &s->ctl };
	size_t i;

	if (s->client && s->ctl >= 0) {
		int ret = rm_free(s->ctl, s->client, 0, s->client);

		if (ret)
			failf("op=teardown side=%s what=free-client ret=%d", side_name[s->idx], ret);
	}
	for (i = 0; i < sizeof(fds) / sizeof(fds[0]); i++)
		if (*fds[i] >= 0)
			close(*fds[i]);
	free(s->pids);
}

/* ---- the operations: 0 on success, else a code for the report ---- */

/* Nothing: the cost of the timing itself. */
static int op_clock(struct side *s)
{
	(void)s;
	return 0;
}

static int op_getppid(struct side *s)
{
	(void)s;
	return syscall(SYS_getppid) > 0 ? 0 : -1;
}

/*
 * The floor: a write to a present anonymous page whose PTE was made
 * read-only, so the fault allocates and copies nothing and only makes the
 * PTE writable again, the path a bounced call's fault takes after
 * nvmediate's pfn_mkwrite, with that path in the TLB.  Clearing the
 * soft-dirty bits (4 written to /proc/self/clear_refs) write-protects the
 * process's PTEs; untimed.  The page and the file serve both sides and
 * stay for the run.  One fault per call, counted like every operation's
 * (70-bench.sh checks it).
 */
static volatile char *wf_page;
static volatile char *wf_warm;	/* another page, faulted first, untimed */
static int wf_refs = -1;
static volatile char *wf_stack_top;	/* in main()'s frame, above every caller's */

static int pre_write_fault(struct side *s)
{
	volatile char stack[8192], *q;
	size_t i;

	(void)s;
	if (!wf_page) {
		char *p = mmap(NULL, 8192, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS,
			       -1, 0);

		if (p == MAP_FAILED)
			return -errno;
		wf_page = p;
		wf_warm = p + 4096;
		wf_page[0] = 1;		/* present, and this process's own */
		wf_warm[0] = 1;
	}
	if (wf_refs < 0) {
		wf_refs = open("/proc/self/clear_refs", O_WRONLY | O_CLOEXEC);
		if (wf_refs < 0)
			return -errno;
	}
	if (write(wf_refs, "4", 1) != 1)
		return -errno;
	/*
	 * The stack lost its write permission too: write the pages below
	 * the caller's frame, where the timed code's calls (getrusage,
	 * clock_gettime) put theirs, and rewrite the callers' frames up to
	 * main()'s with their own bytes (the timed loop keeps its variables
	 * there), so that only the page faults wherever the stack lies.
	 */
	for (i = 0; i < sizeof(stack); i += 256)
		stack[i] = 0;
	q = stack + sizeof(stack);
	if (wf_stack_top && wf_stack_top >= q && wf_stack_top - q < 65536) {
		for (; q < wf_stack_top; q += 256)
			*q = *q;
		*wf_stack_top = *wf_stack_top;
	}
	/*
	 * Clearing the soft-dirty bits flushed the whole TLB, which a
	 * bounced call's fault on a sealed area does not find flushed (and
	 * which TCG refills dearly): fault on the other page first, so that
	 * the timed fault finds the fault's own path in the TLB.
	 */
	wf_warm[0]++;
	return 0;
}

static int op_write_fault(struct side *s)
{
	(void)s;
	wf_page[0]++;
	return 0;
}

/*
 * The same fault taken from kernel mode, as the driver's write back takes
 * it (x86 handles those under the mmap_lock, never the VMA lock): a byte
 * read from /dev/zero into the page, made read-only as above.  "kzero" is
 * that read into the page made read-only and writable again (by a write
 * before, untimed), so that the difference is the fault.
 */
static int wf_zero = -1;

static int zero_fd(void)
{
	if (wf_zero < 0)
		wf_zero = open("/dev/zero", O_RDONLY | O_CLOEXEC);
	return wf_zero;
}

/* As for the floor, the other page warming the path: from kernel mode. */
static int pre_kwrite_fault(struct side *s)
{
	int ret = pre_write_fault(s);

	if (!ret && (zero_fd() < 0 || read(wf_zero, (char *)wf_warm + 64, 1) != 1))
		ret = -errno ?: -EIO;
	return ret;
}

/* Read-only and flushed as for the fault, then writable again: only the fault differs. */
static int pre_kzero(struct side *s)
{
	int ret = pre_kwrite_fault(s);

	if (!ret)
		wf_page[1]++;
	return ret;
}

static int op_kzero(struct side *s)
{
	(void)s;
	return read(wf_zero, (char *)wf_page + 64, 1) == 1 ? 0 : -EIO;
}

static int op_ctrl_small(struct side *s)
{
	return ctrl_small_call(s->ctl, &s->ctrl, &s->info);
}

static int op_ctrl_4k(struct side *s)
{
	int ret;

	s->pids->idType = NV2080_CTRL_GPU_GET_PIDS_ID_TYPE_CLASS;
	s->pids->id = NV20_SUBDEVICE_0;
	s->pids->pidTblCount = 0;
	s->ctrl4k.status = 0xffffffffu;
	ret = nvioctl(s->ctl, NV_ESC_RM_CONTROL, &s->ctrl4k, sizeof(s->ctrl4k));
	if (ret)
		return ret;
	if (s->ctrl4k.status != NV_OK)
		return (int)s->ctrl4k.status;
	/* Both sides' clients belong to this process: one pid, ours. */
	return s->pids->pidTblCount == 1 && s->pids->pidTbl[0] == (uint32_t)getpid() ? 0 : 1000;
}

static int op_alloc_free(struct side *s)
{
	uint32_t h = 0;
	int ret = rm_alloc(s->ctl, 0, 0, &h, NV01_ROOT_CLIENT, NULL, 0);

	if (ret)
		return ret;
	if (!h)
		return 1001;
	return rm_free(s->ctl, h, 0, h);
}

static int pre_register_fd(struct side *s)
{
	s->gpu_tmp = open(s->p->gpu, O_RDWR | O_CLOEXEC);
	return s->gpu_tmp < 0 ? -errno : 0;
}

static int op_register_fd(struct side *s)
{
	struct nvd_register_fd r = { .ctl_fd = s->ctl };

	return nvioctl(s->gpu_tmp, NV_ESC_REGISTER_FD, &r, sizeof(r));
}

static int post_register_fd(struct side *s)
{
	int ret = close(s->gpu_tmp) ? -errno : 0;

	s->gpu_tmp = -1;
	return ret;
}

static int op_uvm(struct side *s)
{
	struct nvd_uvm_pageable_mem_access p = { .rmStatus = 0xffffffffu };

	if (ioctl(s->uvm, UVM_PAGEABLE_MEM_ACCESS, &p) < 0)
		return -errno;
	return (int)p.rmStatus;
}

static int op_open_close(struct side *s)
{
	int fd = open(s->p->ctl, O_RDWR | O_CLOEXEC);

	if (fd < 0)
		return -errno;
	return close(fd) ? -errno : 0;
}

static int op_mmap(struct side *s)
{
	void *p = mmap(NULL, MEM_SIZE, PROT_READ | PROT_WRITE, MAP_SHARED, s->ctl_map, 0);

	if (p == MAP_FAILED)
		return -errno;
	return munmap(p, MEM_SIZE) ? -errno : 0;
}

struct op {
	const char *name;
	int (*pre)(struct side *s);	/* untimed */
	int (*call)(struct side *s);	/* timed */
	int (*post)(struct side *s);	/* untimed */
	unsigned int weight;		/* iterations in units of --iters / 4 */
};

static const struct op ops[] = {
	{ "clock", NULL, op_clock, NULL, 4 },
	{ "getppid", NULL, op_getppid, NULL, 4 },
	{ "write-fault", pre_write_fault, op_write_fault, NULL, 4 },
	{ "kzero", pre_kzero, op_kzero, NULL, 4 },
	{ "kwrite-fault", pre_kwrite_fault, op_kzero, NULL, 4 },
	{ "ctrl-small", NULL, op_ctrl_small, NULL, 4 },
	{ "ctrl-4k", NULL, op_ctrl_4k, NULL, 4 },
	{ "alloc-free", NULL, op_alloc_free, NULL, 2 },
	{ "register-fd", pre_register_fd, op_register_fd, post_register_fd, 1 },
	{ "uvm", NULL, op_uvm, NULL, 4 },
	{ "open-close", NULL, op_open_close, NULL, 2 },
	{ "mmap-munmap", NULL, op_mmap, NULL, 2 },
};

static int cmp_u64(const void *a, const void *b)
{
	uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;

	return x < y ? -1 : x > y;
}

static long minor_faults(void)
{
	struct rusage ru;

	return getrusage(RUSAGE_THREAD, &ru) ? 0 : ru.ru_minflt;
}

/*
 * Run @n calls of @op on @s; record each time in @t (NULL: warm-up) and
 * add the minor faults of the timed calls that succeeded to @minflt.
 */
static int run_block(const struct op *op, struct side *s, unsigned int n, uint64_t *t,
		     long *minflt)
{
	unsigned int i;
	int fails = 0;

	for (i = 0; i < n; i++) {
		uint64_t a, b;
		long f0, f1;
		int ret, bad = 0;

		if (t)
			t[i] = UINT64_MAX;	/* a failed call is not timed */
		if (op->pre) {
			ret = op->pre(s);
			if (ret) {
				failf("op=%s side=%s what=pre ret=%d", op->name, side_name[s->idx], ret);
				fails++;
				continue;
			}
		}
		f0 = minor_faults();
		a = now_ns();
		ret = op->call(s);
		b = now_ns();
		f1 = minor_faults();
		if (ret) {
			failf("op=%s side=%s ret=%d", op->name, side_name[s->idx], ret);
			bad = 1;
		}
		if (op->post) {
			ret = op->post(s);
			if (ret) {
				failf("op=%s side=%s what=post ret=%d", op->name, side_name[s->idx], ret);
				bad = 1;
			}
		}
		if (bad) {
			fails++;
		} else if (t) {
			t[i] = b - a;
			*minflt += f1 - f0;
		}
	}
	return fails;
}

static void report_op(const char *name, int side, uint64_t *t, unsigned int n, long minflt,
		      int fails)
{
	unsigned int i, k = 0;
	uint64_t sum = 0;

	for (i = 0; i < n; i++)
		if (t[i] != UINT64_MAX)
			t[k++] = t[i];
	qsort(t, k, sizeof(*t), cmp_u64);
	for (i = 0; i < k; i++)
		sum += t[i];
	printf("NVMBENCH op=%s side=%s n=%u median_ns=%llu p99_ns=%llu mean_ns=%llu min_ns=%llu minflt=%ld fails=%d\n",
	       name, side_name[side], k,
	       (unsigned long long)(k ? t[k / 2] : 0),
	       (unsigned long long)(k ? t[(uint64_t)k * 99 / 100] : 0),
	       (unsigned long long)(k ? sum / k : 0),
	       (unsigned long long)(k ? t[0] : 0), minflt, fails);
	fflush(stdout);
}

/* Alternating blocks of direct and mediated calls, after a warm-up round. */
static void bench_op(const struct op *op, struct side *sides, unsigned int n,
		     unsigned int block)
{
	uint64_t *t[NSIDES];
	int fails[NSIDES] = { 0 };
	long minflt[NSIDES] = { 0 };
	unsigned int done = 0, round = 0, k;
	int i;

	for (i = 0; i < NSIDES; i++) {
		t[i] = calloc(n, sizeof(uint64_t));
		if (!t[i]) {
			failf("op=%s what=calloc", op->name);
			return;
		}
		run_block(op, &sides[i], block < n ? block : n, NULL, NULL);
	}
	while (done < n) {
		unsigned int b = n - done < block ? n - done : block;

		for (k = 0; k < NSIDES; k++) {
			i = round & 1 ? NSIDES - 1 - (int)k : (int)k;
			fails[i] += run_block(op, &sides[i], b, t[i] + done, &minflt[i]);
		}
		done += b;
		round++;
	}
	for (i = 0; i < NSIDES; i++) {
		report_op(op->name, i, t[i], n, minflt[i], fails[i]);
		free(t[i]);
	}
}

/* ---- thread scaling ---- */

struct scale {
	pthread_barrier_t start;
	int stop;			/* __atomic */
	const char *ctl_path;		/* NULL: getppid, the machine's own scaling */
	uint32_t gpu_id;
};

struct worker {
	pthread_t tid;
	struct scale *sc;
	uint64_t calls;
	int fails;
	int setup_ret;
};

static void *worker_main(void *arg)
{
	struct worker *w = arg;
	struct nvd_ctrl_id_info_v2 info;
	struct nvd_os54 c;
	uint32_t client;
	int ctl, ret;

	if (!w->sc->ctl_path) {
		pthread_barrier_wait(&w->sc->start);
		while (!__atomic_load_n(&w->sc->stop, __ATOMIC_RELAXED)) {
			if (syscall(SYS_getppid) <= 0)
				w->fails++;
			w->calls++;
		}
		return NULL;
	}
	w->setup_ret = client_open(w->sc->ctl_path, &ctl, &client);
	pthread_barrier_wait(&w->sc->start);
	if (w->setup_ret)
		return NULL;
	ctrl_small_prepare(&c, &info, client, w->sc->gpu_id);
	while (!__atomic_load_n(&w->sc->stop, __ATOMIC_RELAXED)) {
		ret = ctrl_small_call(ctl, &c, &info);
		if (ret) {
			w->fails++;
			if (w->fails == 1)
				failf("op=scale ctl=%s ret=%d", w->sc->ctl_path, ret);
		}
		w->calls++;
	}
	ret = rm_free(ctl, client, 0, client);
	if (ret) {
		w->fails++;
		failf("op=scale-free ctl=%s ret=%d", w->sc->ctl_path, ret);
	}
	close(ctl);
	return NULL;
}

/*
 * @threads workers for @ms milliseconds: calls per second, -1 on failure.
 * Side NSIDES is getppid.
 */
static double scale_once(int side, int threads, unsigned int ms, uint32_t gpu_id, int *fails)
{
	struct scale sc = { .ctl_path = side < NSIDES ? side_paths[side].ctl : NULL,
			    .gpu_id = gpu_id };
	struct worker w[8];
	struct timespec d = { .tv_sec = ms / 1000, .tv_nsec = (long)(ms % 1000) * 1000000 };
	uint64_t a, b, calls = 0;
	int i, bad = 0;

	pthread_barrier_init(&sc.start, NULL, threads + 1);
	for (i = 0; i < threads; i++) {
		memset(&w[i], 0, sizeof(w[i]));
		w[i].sc = &sc;
		if (pthread_create(&w[i].tid, NULL, worker_main, &w[i])) {
			failf("op=scale what=pthread_create");
			exit(1);
		}
	}
	pthread_barrier_wait(&sc.start);
	a = now_ns();
	nanosleep(&d, NULL);
	__atomic_store_n(&sc.stop, 1, __ATOMIC_RELAXED);
	b = now_ns();
	for (i = 0; i < threads; i++) {
		pthread_join(w[i].tid, NULL);
		if (w[i].setup_ret) {
			failf("op=scale side=%s what=setup ret=%d", scale_name[side],
			      w[i].setup_ret);
			bad = 1;
		}
		calls += w[i].calls;
		*fails += w[i].fails;
	}
	pthread_barrier_destroy(&sc.start);
	if (bad) {
		(*fails)++;
		return -1;
	}
	return (double)calls * 1e9 / (double)(b - a);
}

static int cmp_double(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;

	return x < y ? -1 : x > y;
}

/*
 * For each thread count, @reps rounds of: direct, mediated, getppid (the
 * order rotating by round); the median rate of each.  @threads: 0 for 1,
 * 2, 4 and 8 threads, else that count only; @only_side: a side's index,
 * or -1 for every side.
 */
static void bench_scale(unsigned int ms, int reps, uint32_t gpu_id, int threads, int only_side)
{
	static const int counts[] = { 1, 2, 4, 8 };
	double rate[NSIDES + 1][16];
	unsigned int c;
	int r, k, i;

	for (c = 0; c < sizeof(counts) / sizeof(counts[0]); c++) {
		int fails[NSIDES + 1] = { 0 };

		if (threads && counts[c] != threads)
			continue;
		for (r = 0; r < reps; r++)
			for (k = 0; k <= NSIDES; k++) {
				i = (k + r) % (NSIDES + 1);
				if (only_side < 0 || i == only_side)
					rate[i][r] = scale_once(i, counts[c], ms, gpu_id, &fails[i]);
			}
		for (i = 0; i <= NSIDES; i++) {
			if (only_side >= 0 && i != only_side)
				continue;
			qsort(rate[i], reps, sizeof(double), cmp_double);
			printf("NVMBENCH scale side=%s threads=%d reps=%d ms=%u rate=%.0f min=%.0f max=%.0f fails=%d\n",
			       scale_name[i], counts[c], reps, ms, rate[i][reps / 2], rate[i][0],
			       rate[i][reps - 1], fails[i]);
		}
		fflush(stdout);
	}
}

/* ---- memory per open file ---- */

static long meminfo_kb(const char *key)
{
	char line[256];
	size_t n = strlen(key);
	long v = -1;
	FILE *f = fopen("/proc/meminfo", "r");

	if (!f)
		return -1;
	while (fgets(line, sizeof(line), f))
		if (!strncmp(line, key, n) && line[n] == ':') {
			v = strtol(line + n + 1, NULL, 10);
			break;
		}
	fclose(f);
	return v;
}

static void settle(void)
{
	struct timespec d = { .tv_sec = 1 };

	/* Closed files are freed after an RCU grace period. */
	sync();
	nanosleep(&d, NULL);
}

static void bench_mem(unsigned int files)
{
	struct rlimit rl = { files + 64, files + 64 };
	int *fds = calloc(files, sizeof(int));
	unsigned int i, n;
	int side;

	if (!fds || setrlimit(RLIMIT_NOFILE, &rl)) {
		failf("op=mem what=setrlimit errno=%d", errno);
		free(fds);
		return;
	}
	for (side = 0; side < NSIDES; side++) {
		long slab0, sun0, avail0;
		int fails = 0;

		settle();
		slab0 = meminfo_kb("Slab");
		sun0 = meminfo_kb("SUnreclaim");
		avail0 = meminfo_kb("MemAvailable");
		for (n = 0; n < files; n++) {
			fds[n] = open(side_paths[side].ctl, O_RDWR | O_CLOEXEC);
			if (fds[n] < 0) {
				failf("op=mem side=%s what=open n=%u errno=%d", side_name[side], n,
				      errno);
				fails++;
				break;
			}
		}
		printf("NVMBENCH mem side=%s files=%u slab_kb=%ld sunreclaim_kb=%ld memavail_kb=%ld fails=%d\n",
		       side_name[side], n, meminfo_kb("Slab") - slab0,
		       meminfo_kb("SUnreclaim") - sun0, avail0 - meminfo_kb("MemAvailable"), fails);
		fflush(stdout);
		for (i = 0; i < n; i++)
			close(fds[i]);
	}
	free(fds);
}

static void usage(void)
{
	fprintf(stderr, "usage: nvbench [--quick] [--iters N] [--scale-ms MS] [--reps R] [--files N] [--only OP]\n"
		"               [--threads 1|2|4|8] [--scale-side direct|mediated|getppid]\n");
	exit(2);
}

int main(int argc, char **argv)
{
	unsigned int iters = 50000, scale_ms = 1000, files = 10000, block = 250;
	struct side sides[NSIDES];
	const char *only = NULL;
	int reps = 5, i, ok = 1, threads = 0, scale_side = -1;
	volatile char top = 0;
	size_t k;

	wf_stack_top = &top;

	for (i = 1; i < argc; i++) {
		if (!strcmp(argv[i], "--quick")) {
			iters = 200;
			block = 50;
			scale_ms = 100;
			reps = 1;
			files = 300;
		} else if (!strcmp(argv[i], "--iters") && i + 1 < argc) {
			iters = strtoul(argv[++i], NULL, 0);
		} else if (!strcmp(argv[i], "--scale-ms") && i + 1 < argc) {
			scale_ms = strtoul(argv[++i], NULL, 0);
		} else if (!strcmp(argv[i], "--reps") && i + 1 < argc) {
			reps = atoi(argv[++i]);
		} else if (!strcmp(argv[i], "--files") && i + 1 < argc) {
			files = strtoul(argv[++i], NULL, 0);
		} else if (!strcmp(argv[i], "--only") && i + 1 < argc) {
			only = argv[++i];
		} else if (!strcmp(argv[i], "--threads") && i + 1 < argc) {
			threads = atoi(argv[++i]);
			if (threads != 1 && threads != 2 && threads != 4 && threads != 8)
				usage();
		} else if (!strcmp(argv[i], "--scale-side") && i + 1 < argc) {
			for (scale_side = NSIDES; scale_side >= 0; scale_side--)
				if (!strcmp(argv[i + 1], scale_name[scale_side]))
					break;
			if (scale_side < 0)
				usage();
			i++;
		} else {
			usage();
		}
	}
	if (iters < 4 || reps < 1 || reps > 16)
		usage();
	if (block > iters / 4)
		block = iters / 4;

	printf("NVMBENCH info iters=%u block=%u scale_ms=%u reps=%d files=%u cpus=%ld\n",
	       iters, block, scale_ms, reps, files, sysconf(_SC_NPROCESSORS_ONLN));
	fflush(stdout);
	for (i = 0; i < NSIDES; i++)
		if (side_setup(&sides[i], i))
			ok = 0;
	if (ok) {
		for (k = 0; k < sizeof(ops) / sizeof(ops[0]); k++) {
			if (only && strcmp(only, "calls") && strcmp(only, ops[k].name))
				continue;
			bench_op(&ops[k], sides, iters * ops[k].weight / 4,
				 block * ops[k].weight / 4);
		}
	}
	for (i = 0; i < NSIDES; i++)
		side_teardown(&sides[i]);
	if (ok && (!only || !strcmp(only, "scale")))
		bench_scale(scale_ms, reps, sides[0].gpu_id, threads, scale_side);
	if (ok && (!only || !strcmp(only, "mem")))
		bench_mem(files);
	printf("NVMBENCH end fails=%d\n", total_fails);
	return total_fails ? 1 : 0;
}
