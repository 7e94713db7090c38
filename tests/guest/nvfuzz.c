// SPDX-License-Identifier: GPL-2.0
/*
 * nvfuzz: random calls on every mediated node (82-hard-fuzz.sh).
 *
 *   nvfuzz [--ctl P] [--gpu P|-] [--uvm P] [--calls N] [--seed S] [--reopen K]
 *          [--slow MS]
 *
 * N calls (ioctl, and now and then mmap and poll) on the control, GPU and
 * UVM nodes, drawn from a generator seeded with S (printed; the same seed
 * gives the same calls): random numbers, directions, types and sizes, and
 * payloads biased towards the shapes the driver knows -- known escapes at
 * their size or another, RM controls and allocations with known and random
 * commands, classes, sizes and flags, nested params pointers that are
 * valid, NULL, unmapped, read-only, straddling the end of a mapping, in the
 * kernel's half or non-canonical; fd fields naming mediated files, a pipe,
 * nothing; NV_ESC_IOCTL_XFER_CMD around random inner calls, XFER inside
 * XFER; UVM commands known and unknown.  Pointers only ever point into this
 * program's own fuzz arena, so the driver's write-backs cannot corrupt it.
 * With --gpu - the GPU node's calls go to a second control file (a driver
 * without a GPU).  Every K calls (default 20000) the nodes are closed and
 * opened again with a small session (client, device, subdevice), so that
 * driver state stays bounded and deeper paths stay reachable.
 *
 * Output: "seed=S", then "calls=N ioctls=N mmaps=N polls=N ok=N" and the
 * count of each errno.  With --slow MS, a "slow:" line for each ioctl that
 * took longer than MS milliseconds, and their count (slow=N).  Exit status 0 unless the setup failed; what the
 * driver received is the stand-in's to say (nvabicheck).
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/mman.h>
#include <time.h>
#include <unistd.h>

#include "../nvidia-abi/nvdrv.h"

#define ARENA_SIZE	(1u << 20)
#define PG		4096u
#define H_DEV		0xf0220001u
#define H_SUB		0xf0220002u
#define H_MEM		0xf0220003u

static uint64_t rng;

static uint64_t rnd(void)
{
	/* xorshift64* */
	rng ^= rng >> 12;
	rng ^= rng << 25;
	rng ^= rng >> 27;
	return rng * 0x2545f4914f6cdd1dULL;
}

static uint32_t below(uint32_t n)
{
	return n ? (uint32_t)(rnd() % n) : 0;
}

static int chance(unsigned int percent)
{
	return below(100) < percent;
}

static uint8_t *arena, *ro, *hole;	/* hole: an unmapped page between two mapped ones */
static int ctl, ctl2, gpu, uvm, uvm2, pipefd[2];
static uint32_t client;
static long errs[160], nok, nioctl, nmmap, npoll;

/* A pointer for @size bytes: mostly valid, else one of the bad kinds. */
static uint64_t rand_ptr(uint32_t size)
{
	uint32_t sz = size > ARENA_SIZE / 4 ? ARENA_SIZE / 4 : size;

	switch (below(20)) {
	case 0:
		return 0;
	case 1:
		return (uintptr_t)ro + below(PG);
	case 2:
		return (uintptr_t)hole + below(PG);
	case 3:		/* the end of a mapping: the read crosses into the hole */
		return (uintptr_t)hole - (sz ? 1 + below(sz) : 1);
	case 4:
		return 0xffff888000000000ULL + below(1u << 20);
	case 5:
		return 0x0000800000000000ULL + below(PG);
	case 6:
		return below(0x10000);
	default:
		return (uintptr_t)arena + PG + below(ARENA_SIZE / 2 - PG - sz + 1);
	}
}

static void fill(void *p, size_t n)
{
	uint8_t *b = p;

	while (n >= 8) {
		uint64_t v = rnd();

		memcpy(b, &v, 8);
		b += 8;
		n -= 8;
	}
	while (n--)
		*b++ = (uint8_t)rnd();
}

static int rand_fd(void)
{
	const int fds[] = { ctl, ctl2, gpu, uvm, uvm2, pipefd[0], -1, 0, 1000, 0x7fffffff };

	return fds[below(sizeof(fds) / sizeof(fds[0]))];
}

static uint32_t rand_handle(void)
{
	const uint32_t h[] = { 0, client, H_DEV, H_SUB, H_MEM, 0xc1d00001u };

	return chance(85) ? h[below(6)] : (uint32_t)rnd();
}

/* Small sizes mostly, any size now and then. */
static uint32_t rand_size(uint32_t usual)
{
	switch (below(10)) {
	case 0:
		return (uint32_t)rnd();
	case 1:
		return below(1u << 21);
	case 2:
		return below(64);
	default:
		return usual;
	}
}

static const struct { uint32_t cmd, size; } ctrls[] = {
	{ 0x201, 128 }, { 0x205, 32 }, { 0x13e, 1032 }, { 0x800280, 4 }, { 0x2080014a, 268 },
	{ 0x20800301, 20 }, { 0x20800302, 0 }, { 0x102, 108 }, { 0x20101, 0 }, { 0x13c, 1 },
	{ 0x2080a083, 24 }, { 0x2080c001, 0 }, { 0x00ff0001, 4 },
};

static const uint32_t classes[] = {
	0x0, 0x1, 0x41, 0x80, 0x2080, 0x79, 0x78, 0x7e, 0x3e, 0xbeef, 0xc36f, 0x90f1,
};

/* Escapes and their usual sizes at 595. */
static const struct { uint8_t nr; uint16_t size; } escs[] = {
	{ 0x27, 56 }, { 0x28, 20 }, { 0x29, 16 }, { 0x2a, 32 }, { 0x2b, 48 }, { 0x2b, 32 },
	{ 0x34, 28 }, { 0x35, 24 }, { 0x4a, 184 }, { 0x4e, 56 }, { 0x4f, 32 }, { 0x52, 16 },
	{ 0x57, 64 }, { 0x58, 48 }, { 0x59, 16 }, { 0x5e, 40 }, { 0xc8, 72 }, { 0xc8, 144 },
	{ 0xc9, 4 }, { 0xce, 16 }, { 0xcf, 16 }, { 0xd1, 12 }, { 0xd2, 72 }, { 0xd3, 16 },
	{ 0xd4, 4 }, { 0xd5, 8 }, { 0xd6, 8 }, { 0xd7, 560 }, { 0xd8, 4 }, { 0xd9, 2608 },
	{ 0xda, 8 },
};

static const uint32_t uvms[] = {
	0x30000001, 0x30000002, 37, 38, 39, 75, 25, 27, 33, 78, 56, 76, 1, 2, 3, 4, 5, 6,
	18, 19, 21, 22, 23, 30, 44, 46, 52, 55, 57, 58, 62, 64, 69, 71, 72, 73, 74, 77, 80,
};

/* Shape a payload for escape @nr; @depth > 0 inside XFER. */
static void shape(uint8_t *p, uint32_t nr, uint32_t size, int depth);

static void shape_xfer(uint8_t *p, int depth)
{
	struct nvd_xfer x;
	uint32_t i = below(sizeof(escs) / sizeof(escs[0]));
	uint8_t *inner;

	x.cmd = chance(85) ? escs[i].nr : below(256);
	if (depth < 2 && chance(10))
		x.cmd = NV_ESC_IOCTL_XFER_CMD;
	x.size = chance(70) ? escs[i].size : rand_size(escs[i].size);
	if (x.cmd == NV_ESC_IOCTL_XFER_CMD && chance(80))
		x.size = 16;
	x.ptr = rand_ptr(x.size);
	if (x.ptr >= (uintptr_t)arena + PG && x.ptr < (uintptr_t)arena + ARENA_SIZE / 2) {
		inner = (uint8_t *)(uintptr_t)x.ptr;
		if (x.size <= ARENA_SIZE / 2)
			shape(inner, x.cmd, x.size, depth + 1);
	}
	memcpy(p, &x, sizeof(x));
}

static void shape(uint8_t *p, uint32_t nr, uint32_t size, int depth)
{
	uint32_t k;

	if ((uintptr_t)p + size > (uintptr_t)arena + ARENA_SIZE / 2)
		return;
	fill(p, size);
	switch (nr) {
	case NV_ESC_RM_CONTROL:
		if (size >= sizeof(struct nvd_os54)) {
			struct nvd_os54 *c = (void *)p;

			k = below(sizeof(ctrls) / sizeof(ctrls[0]));
			c->hClient = rand_handle();
			c->hObject = rand_handle();
			c->cmd = chance(90) ? ctrls[k].cmd : (uint32_t)rnd();
			c->flags = chance(80) ? 0 : below(16);
			c->paramsSize = rand_size(ctrls[k].size);
			c->params = chance(5) ? 0 : rand_ptr(c->paramsSize);
			if (c->params >= (uintptr_t)arena && c->paramsSize < ARENA_SIZE / 4 &&
			    c->params + c->paramsSize <= (uintptr_t)arena + ARENA_SIZE / 2)
				fill((void *)(uintptr_t)c->params, c->paramsSize);
		}
		break;
	case NV_ESC_RM_ALLOC:
		if (size >= sizeof(struct nvd_os21)) {
			struct nvd_os21 *a = (void *)p;

			a->hRoot = rand_handle();
			a->hObjectParent = rand_handle();
			a->hObjectNew = chance(50) ? 0 : rand_handle();
			a->hClass = chance(90) ? classes[below(sizeof(classes) / 4)] : (uint32_t)rnd();
			a->pAllocParms = chance(10) ? 0 : rand_ptr(64);
			if (size >= sizeof(struct nvd_os64))
				((struct nvd_os64 *)p)->pRightsRequested = chance(80) ? 0 : rand_ptr(64);
		}
		break;
	case NV_ESC_RM_ALLOC_MEMORY:
		if (size >= sizeof(struct nvd_os02_fd)) {
			struct nvd_os02_fd *m = (void *)p;

			m->hRoot = rand_handle();
			m->hObjectParent = rand_handle();
			m->hObjectNew = chance(30) ? H_MEM : rand_handle();
			m->hClass = chance(80) ? NV01_MEMORY_SYSTEM : (uint32_t)rnd();
			m->limit = chance(90) ? below(65536) : rnd();
			m->fd = rand_fd();
		}
		break;
	case NV_ESC_RM_MAP_MEMORY:
		if (size >= sizeof(struct nvd_os33_fd)) {
			struct nvd_os33_fd *mp = (void *)p;

			mp->hClient = rand_handle();
			mp->hDevice = rand_handle();
			mp->hMemory = rand_handle();
			mp->offset = chance(80) ? 0 : rnd();
			mp->length = chance(80) ? PG : rnd();
			mp->fd = rand_fd();
		}
		break;
	case NV_ESC_REGISTER_FD:
		if (size >= 4) {
			int fd = rand_fd();

			memcpy(p, &fd, 4);
		}
		break;
	case NV_ESC_ALLOC_OS_EVENT:
	case NV_ESC_FREE_OS_EVENT:
		if (size >= sizeof(struct nvd_os_event)) {
			struct nvd_os_event *e = (void *)p;

			e->hClient = rand_handle();
			e->fd = rand_fd();
		}
		break;
	case NV_ESC_RM_GET_EVENT_DATA:
		if (size >= sizeof(struct nvd_os41))
			((struct nvd_os41 *)p)->pEvent = rand_ptr(16);
		break;
	case NV_ESC_CHECK_VERSION_STR:
		if (size >= sizeof(struct nvd_version_str) && chance(50)) {
			((struct nvd_version_str *)p)->cmd = chance(50) ? '2' : 0;
			memcpy(((struct nvd_version_str *)p)->versionString, "595.45.04", 10);
		}
		break;
	case NV_ESC_IOCTL_XFER_CMD:
		if (size >= sizeof(struct nvd_xfer))
			shape_xfer(p, depth);
		break;
	}
}

/* --slow MS: each call that took longer is printed, with what it was. */
static long slow_ms;
static long nslow;

static long now_ms(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec * 1000 + ts.tv_nsec / 1000000;
}

static int timed_ioctl(int fd, unsigned long req, void *arg, const char *node)
{
	long t0 = slow_ms ? now_ms() : 0;
	int ret = ioctl(fd, req, arg);
	int err = errno;

	if (slow_ms && now_ms() - t0 > slow_ms) {
		nslow++;
		printf("slow: %s req=0x%lx nr=0x%x size=%u ret=%d errno=%d %ld ms\n", node, req,
		       (unsigned int)_IOC_NR(req), (unsigned int)_IOC_SIZE(req), ret, ret < 0 ? err : 0,
		       now_ms() - t0);
		fflush(stdout);
	}
	errno = err;
	return ret;
}

static void count(int ret)
{
	if (ret >= 0)
		nok++;
	else
		errs[errno < 160 ? errno : 0]++;
}

static void fuzz_escape(void)
{
	int fd = chance(65) ? (chance(50) ? ctl : ctl2) : gpu;
	uint8_t *p = arena + PG + below(64) * 8;
	unsigned long req;
	uint32_t nr, size, dir, type = NV_IOCTL_MAGIC;
	uint64_t arg = (uintptr_t)p;

	if (chance(15)) {	/* anything */
		nr = below(256);
		size = below(1u << 14);
		dir = below(4);
		if (chance(30))
			type = below(256);
		fill(p, size < ARENA_SIZE / 4 ? size : 64);
	} else {
		uint32_t i = below(sizeof(escs) / sizeof(escs[0]));

		nr = escs[i].nr;
		size = chance(80) ? escs[i].size : below(1u << 14);
		dir = chance(90) ? 3 : below(4);
		shape(p, nr, size, 0);
	}
	if (chance(10))
		arg = rand_ptr(size);
	req = _IOC(dir, type, nr, size);
	nioctl++;
	count(timed_ioctl(fd, req, (void *)(uintptr_t)arg, fd == gpu ? "gpu" : "ctl"));
}

static void fuzz_uvm(void)
{
	uint32_t cmd = chance(85) ? uvms[below(sizeof(uvms) / 4)] :
		       (chance(50) ? below(256) : (uint32_t)rnd());
	uint8_t *p = arena + PG + below(64) * 8;
	uint64_t arg = (uintptr_t)p;
	unsigned int i;

	fill(p, 16384);
	/* fd fields at the offsets the UVM commands have them */
	for (i = 0; i < 4; i++) {
		const unsigned int offs[] = { 0, 16, 24, 40, 44, 9248 };
		int fd = rand_fd();

		memcpy(p + offs[below(6)], &fd, 4);
	}
	if (cmd == UVM_REGISTER_GPU && chance(50))
		memcpy(p, "\xa0\xa1\xa2\xa3\xa4\xa5\xa6\xa7\xa8\xa9\xaa\xab\xac\xad\xae\x00", 16);
	if (chance(10))
		arg = rand_ptr(64);
	nioctl++;
	count(timed_ioctl(chance(70) ? uvm : uvm2, cmd, (void *)(uintptr_t)arg, "uvm"));
}

static void fuzz_mmap(void)
{
	const int fds[] = { ctl, ctl2, gpu, uvm, uvm2 };
	const int prots[] = { PROT_READ, PROT_READ | PROT_WRITE, PROT_NONE, PROT_EXEC };
	int fd = fds[below(5)];
	size_t len = (1 + below(16)) * PG;
	off_t off = chance(50) ? 0 : (off_t)below(64) * PG;
	void *m;

	nmmap++;
	m = mmap(NULL, len, prots[below(4)], chance(80) ? MAP_SHARED : MAP_PRIVATE, fd, off);
	count(m == MAP_FAILED ? -1 : 0);
	if (m != MAP_FAILED)
		munmap(m, len);
}

static void fuzz_poll(void)
{
	const int fds[] = { ctl, ctl2, gpu, uvm };
	struct pollfd pfd = { .fd = fds[below(4)], .events = (short)below(0x10000) };

	npoll++;
	count(poll(&pfd, 1, 0));
}

static int open_node(const char *path)
{
	int fd = open(path, O_RDWR | O_CLOEXEC);

	if (fd < 0) {
		printf("open %s: %s\n", path, strerror(errno));
		exit(2);
	}
	return fd;
}

static const char *pctl = "/dev/nvproxy", *pgpu = "/dev/nvproxy0", *puvm = "/dev/nvproxy-uvm";

static void reopen(void)
{
	struct nvd_os21 root = { .hClass = NV01_ROOT };
	struct nvd_register_fd r;
	struct nvd_alloc_0080 dev = { .deviceId = 0 };
	struct nvd_alloc_2080 sub = { 0 };
	struct nvd_os64 a = { 0 };

	if (ctl > 0) {
		close(ctl);
		close(ctl2);
		close(gpu);
		close(uvm);
		close(uvm2);
	}
	ctl = open_node(pctl);
	ctl2 = open_node(pctl);
	gpu = open_node(strcmp(pgpu, "-") ? pgpu : pctl);
	uvm = open_node(puvm);
	uvm2 = open_node(puvm);
	client = 0;
	if (ioctl(ctl, NV_IOC(NV_ESC_RM_ALLOC, sizeof(root)), &root) || root.status)
		return;
	client = root.hObjectNew;
	r.ctl_fd = ctl;
	ioctl(gpu, NV_IOC(NV_ESC_REGISTER_FD, sizeof(r)), &r);
	a.hRoot = client;
	a.hObjectParent = client;
	a.hObjectNew = H_DEV;
	a.hClass = NV01_DEVICE_0;
	a.pAllocParms = (uintptr_t)&dev;
	ioctl(ctl, NV_IOC(NV_ESC_RM_ALLOC, sizeof(a)), &a);
	a.hObjectParent = H_DEV;
	a.hObjectNew = H_SUB;
	a.hClass = NV20_SUBDEVICE_0;
	a.pAllocParms = (uintptr_t)&sub;
	ioctl(ctl, NV_IOC(NV_ESC_RM_ALLOC, sizeof(a)), &a);
}

int main(int argc, char **argv)
{
	long n = 100000, every = 20000, i;
	uint64_t seed = 0;
	uint8_t *m;
	int k;

	for (k = 1; k < argc; k++) {
		if (!strcmp(argv[k], "--ctl") && k + 1 < argc)
			pctl = argv[++k];
		else if (!strcmp(argv[k], "--gpu") && k + 1 < argc)
			pgpu = argv[++k];
		else if (!strcmp(argv[k], "--uvm") && k + 1 < argc)
			puvm = argv[++k];
		else if (!strcmp(argv[k], "--calls") && k + 1 < argc)
			n = atol(argv[++k]);
		else if (!strcmp(argv[k], "--seed") && k + 1 < argc)
			seed = strtoull(argv[++k], NULL, 0);
		else if (!strcmp(argv[k], "--reopen") && k + 1 < argc)
			every = atol(argv[++k]);
		else if (!strcmp(argv[k], "--slow") && k + 1 < argc)
			slow_ms = atol(argv[++k]);
		else {
			fprintf(stderr, "usage: nvfuzz [--ctl P --gpu P|- --uvm P] [--calls N] [--seed S] [--reopen K] [--slow MS]\n");
			return 2;
		}
	}
	if (!seed)
		seed = (uint64_t)time(NULL) ^ ((uint64_t)getpid() << 32);
	rng = seed;
	printf("seed=%llu\n", (unsigned long long)seed);
	fflush(stdout);

	/* arena | ro page | hole | guard */
	m = mmap(NULL, ARENA_SIZE + 3 * PG, PROT_READ | PROT_WRITE,
		 MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	if (m == MAP_FAILED || pipe(pipefd))
		return 2;
	arena = m;
	ro = m + ARENA_SIZE;
	hole = ro + PG;
	fill(ro, PG);
	mprotect(ro, PG, PROT_READ);
	munmap(hole, PG);
	/* The end of the arena's lower half abuts nothing of use: shapes stay below it. */

	reopen();
	for (i = 0; i < n; i++) {
		uint32_t what = below(100);

		if (every && i && i % every == 0)
			reopen();
		if (what < 2)
			fuzz_mmap();
		else if (what < 4)
			fuzz_poll();
		else if (what < 35)
			fuzz_uvm();
		else
			fuzz_escape();
	}
	printf("calls=%ld ioctls=%ld mmaps=%ld polls=%ld ok=%ld", n, nioctl, nmmap, npoll, nok);
	if (slow_ms)
		printf(" slow=%ld", nslow);
	for (k = 0; k < 160; k++)
		if (errs[k])
			printf(" errno%d=%ld", k, errs[k]);
	printf("\n");
	return 0;
}
