// SPDX-License-Identifier: GPL-2.0
/*
 * bouncev2: what the payload bounce leaves behind, and whom a stalled
 * caller can hold up (66-bounce-v2.sh).  Run without CAP_SYS_RAWIO.
 *
 *   bouncev2 lowpages CTL CALLS
 *	CALLS RM_ALLOC/RM_FREE cycles (the driver writes each payload back),
 *	then every page of 0x1000-0x10000, and every page of the bounce area
 *	wherever it lies (/proc/self/maps; sealed areas are not low), is read
 *	and written from user space: each access must fault, nothing of the
 *	calls may be left mapped there.  Prints "lowpages: area=START-END
 *	area_pages=N area_readable=N area_writable=N readable=N writable=N
 *	calls_failed=N" (area=none when there is no area).
 *
 *   bouncev2 areawrite CTL CALLS [THREADS]
 *	CALLS RM_ALLOC/RM_FREE cycles, made by THREADS threads at once (1 by
 *	default), while another thread writes the first byte of every page
 *	of the bounce area, over and over (a write that faults is counted
 *	and skipped).  Each calling thread moves to the next CPU before each
 *	cycle, so that the calls use every slot of a sealed area (one per
 *	CPU) and each slot's batches; with several threads, a slot's batch
 *	runs while other calls hold pages of the slot.  Run with the stand-in's
 *	read_twice and race_delay_us set: a write that reached a page while
 *	the driver read it shows in its reread_differ, or fails the call.
 *	Prints "areawrite: calls=N failed=N writes=N faulted=N cpus=N" (cpus:
 *	the CPUs the calls ran on).
 *
 *   bouncev2 stall CTL CAPS_FILE MS
 *	A thread makes an RM_CONTROL whose payload lies on a userfaultfd page
 *	nobody resolves for MS milliseconds; meanwhile the main thread
 *	rewrites CAPS_FILE (a set's caps, unchanged) and times the write.
 *	Prints "stall: write_ms=N call_ret=N".
 *
 *   bouncev2 rights CTL MS
 *	An NVOS64 RM_ALLOC of a root client whose access-rights mask
 *	(0x5) lies alone on a page that another thread unmaps MS
 *	milliseconds into the call (the stand-in's race_delay_us holds the
 *	driver before it reads the mask).  Prints "rights: ret=N status=0xN
 *	pointer=same|changed lead_ms=N": the status the driver answered,
 *	whether the payload came back with the caller's own pRightsRequested,
 *	and how long before the call returned the page was gone (the driver
 *	reads the mask last, so a positive lead means it read after).
 *
 *   bouncev2 grow CTL WANT STATE
 *	REGISTER_FD of a second control file on CTL, with the stand-in's
 *	grow_fd_table set to WANT (the driver installs a file of its own at
 *	a number at least WANT in the calling thread's table).  Then looks
 *	for an open fd at WANT or above and reads extra_fds from the
 *	stand-in's STATE file while the files are still open.  Prints
 *	"grow: ret=N high_fd=N extra_fds=N" (high_fd=-1: none).
 *
 *   bouncev2 waiters CTL MS
 *	A thread makes a REGISTER_FD (an fd-carrying call: nvmediate runs it
 *	with a private fd table and exec_update_lock held for writing) that
 *	the driver holds for MS milliseconds (the stand-in's ioctl_delay_ms).
 *	A fifth of the way in, a child process opens this process's
 *	/proc/PID/maps (it takes exec_update_lock, docs/security.md lists it
 *	among what waits) and times the open, while the main thread reads
 *	every link of /proc/self/task/TID/fd of the calling thread and opens
 *	each one naming an nvidia node O_RDWR, timing that too.  Prints
 *	"waiters: call_ret=N call_ms=N maps_ms=N maps_after_call_ms=N
 *	fdscan_ms=N fdscan_after_call_ms=N nvidia_links=N opened=N
 *	driver_files=N": driver_files counts opens that gave a file of the
 *	driver's major (195).
 *
 *   bouncev2 oops CTL
 *	A thread makes a REGISTER_FD through CTL that the driver oopses in
 *	(the stand-in's oops_register_fd): the thread dies inside the call,
 *	with the private fd table installed.  Once it is gone, a child
 *	process opens this process's /proc/PID/maps, which takes
 *	exec_update_lock, under a 3 s alarm.  Prints "oops: thread_gone=0|1
 *	call_returned=0|1 maps_ms=N" (maps_ms=-1: the open never returned).
 *
 *   bouncev2 oops1 CTL
 *	The same REGISTER_FD from this process's only thread: the process
 *	dies with it.  Prints nothing.
 *
 *   bouncev2 nomax CTL MS
 *	DEBUG_READ_MEMORY (a list the driver sizes by the params' length
 *	alone, allocating that much for the call) on a root client of its
 *	own, with a length of 16 that another thread raises to 64 MiB +
 *	4 KiB (over nvmediate's bound) MS milliseconds into the call (the
 *	stand-in's race_delay_us holds the driver before it reads the
 *	params).  Prints "nomax: ret=N status=0xN".
 *
 *   bouncev2 nomaxpar CTL THREADS
 *	THREADS threads at once, each a DEBUG_READ_MEMORY of 48 MiB (a list
 *	the driver allocates at the size the caller names) on a root client
 *	of its own; run with the stand-in's race_delay_us set, so that the
 *	calls are in the driver together.  Prints "nomaxpar: threads=N
 *	served=N busy=N other=N": the calls answered by the driver, those
 *	refused with EBUSY, and any other answer.
 *
 *   bouncev2 nomaxprocs CTL PROCS
 *	The same from PROCS processes forked from one, each with one call
 *	(and an address space of its own).  Prints "nomaxprocs: procs=N
 *	served=N busy=N other=N".
 *
 *   bouncev2 osdesc CTL GPU
 *	Memory objects over the bounce area: after one call has made the
 *	area, NV_ESC_RM_VID_HEAP_CONTROL with NVOS32_FUNCTION_ALLOC_OS_DESCRIPTOR
 *	on CTL and NV_ESC_RM_ALLOC_MEMORY of NV01_MEMORY_SYSTEM_OS_DESCRIPTOR
 *	on GPU name ranges that meet the area (its first page, its last, one
 *	from the page below into it, and one wrapped in XFER) and ranges that
 *	do not (a page of this process's own memory, the pages just below
 *	and just after the area, a limit of all ones, another NVOS32 function and another class
 *	over the area).  Prints "osdesc: NAME=ANSWER ..." per call, ANSWER
 *	being 0 or the errno's name, then "remap=HOW" (a second mapping of
 *	the area through /proc/self/map_files: "mapped", or the errno's name
 *	of the open, "open-E...", or of the mmap that refused it) and
 *	"area=START-END".
 *
 *   bouncev2 lockwait CTL UVM MS
 *	A child process holds its own mmap lock for MS milliseconds (the
 *	stand-in's UVM_PAGEABLE_MEM_ACCESS with mmap_lock_ms set) while one
 *	of its threads makes its first RM call; this process then makes its
 *	own first call and times it.  Prints "lockwait: first_call_ms=N ret=N".
 *
 *   bouncev2 lowstall CTL MS
 *	An RM_ALLOC of a client (the driver writes the payload back) whose
 *	payload lies on a page a userfaultfd write-protects: nvmediate's copy
 *	of the answer to it stalls until the main thread lifts the
 *	protection, MS milliseconds after the stall began.  Meanwhile the
 *	main thread writes every page of 0x1000-0x10000, over and over.
 *	Prints "lowstall: stalled=0|1 writes=N pages=N call_ret=N
 *	status=0xN" (writes: the writes that did not fault; pages: the pages
 *	they reached).
 *
 *   bouncev2 parked CTL THREADS ROUNDS
 *	Below 64 KiB only.  After a first call made the area, a thread's
 *	call holds it (its answer's copy stalls on a write-protecting
 *	userfaultfd) while the main thread unmaps it: THREADS threads then
 *	call, and wait in the making of a new area until the old one goes.
 *	Meanwhile ROUNDS child processes each make one call (making and
 *	freeing an area of their own).  Prints "parked: threads=N parked=N
 *	rounds=N wakeups=N rounds_ms=N calls_ok=N": wakeups, the voluntary
 *	context switches of the waiting threads during the rounds (0 when
 *	other processes' areas do not wake them); calls_ok, the waiting
 *	threads' calls that worked once the old area went.
 *
 *   bouncev2 areapayload CTL ITER
 *	Below 64 KiB.  A thread makes RM_ALLOC/RM_FREE cycles over and over
 *	(its payload lies in the area's first page while its call is in the
 *	driver); the main thread makes ITER RM_ALLOCs whose payload is that
 *	page, 0x1000: read while the other call holds it, and written back
 *	there after the main thread's own call, which may have the page by
 *	then.  After each, with no call in flight (the other thread waits
 *	between its cycles), 0x1000 must not be writable from user space.
 *	Prints "areapayload: iter=N ok=N efault=N writable_after=N".
 *
 *   bouncev2 uffdwp CTL CALLS
 *	After one RM_ALLOC/RM_FREE cycle (the area is made), registers the
 *	bounce area with a userfaultfd for asynchronous write protection, as
 *	an unprivileged process may (UFFD_USER_MODE_ONLY; 6.7 and later let
 *	it cover any mapping), write-protects it (empty slots get markers),
 *	then makes CALLS cycles in a thread; the main thread waits for them
 *	up to 20 s.  Prints "uffdwp: api=E register=E protect=E calls=N ok=N
 *	efault=N other=N done=0|1" (E: 0 or an errno; nothing is tried after
 *	the first that failed). *
 *   bouncev2 lockstall KIND CTL GPU UVM MS
 *	A call the driver makes with a private fd table (and so with this
 *	process's exec_update_lock held), in a thread: KIND "class", a
 *	device allocation whose class params lie on a page, "uvm", a
 *	UVM_MM_INITIALIZE whose payload lies on it, "osdesc", an
 *	RM_ALLOC_MEMORY of an OS descriptor of this process's memory, or
 *	"nomap", one of system memory not to be mapped (the driver reads no
 *	fd for either).  The page is registered with a
 *	userfaultfd and filled; 200 ms into the call (the stand-in sleeps
 *	500 ms before it reads: ioctl_delay_ms or race_delay_us, set by the
 *	caller) it is dropped (MADV_DONTNEED), so that a read of it from the
 *	driver waits until the page is given back, MS milliseconds after
 *	the call began.  700 ms in, a child process opens this process's
 *	/proc/PID/maps, which waits on that lock.  Prints "lockstall:
 *	kind=KIND ret=N maps_wait_ms=N call_ms=N". *
 *   bouncev2 sealrace CTL TRIALS
 *	From 6.10 only (a sealed area).  TRIALS child processes each make
 *	their first call, which makes and seals their area, while a thread of
 *	theirs on the same CPU, real-time, wakes every 20 us and makes the
 *	address the area will get (found by a probe mapping of its size just
 *	before) PROT_NONE: when it runs between the mapping and the seal (it
 *	preempts the caller as soon as the mapping releases the mmap lock),
 *	the seal fails and the call is refused.  Prints "sealrace:
 *	trials=N ok=N refused=N left=N other=N": left, the refused calls that
 *	left an area mapped, unsealed.
 */
#define _GNU_SOURCE
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <linux/userfaultfd.h>
#include <poll.h>
#include <pthread.h>
#include <sched.h>
#include <setjmp.h>
#include <signal.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/sysmacros.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "../nvidia-abi/nvdrv.h"

#define AREA_START	0x1000UL
#define AREA_END	0x10000UL

static long now_ms(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec * 1000 + ts.tv_nsec / 1000000;
}

/* RM_ALLOC of a client, then RM_FREE; 0 when both worked, else -errno or 1. */
static int client_cycle(int fd)
{
	struct nvd_os21 a = { .hClass = NV01_ROOT };
	struct nvd_os00 f = { 0 };

	if (ioctl(fd, NV_IOC(NV_ESC_RM_ALLOC, sizeof(a)), &a))
		return -errno;
	if (a.status != NV_OK || !a.hObjectNew)
		return 1;
	f.hRoot = a.hObjectNew;
	f.hObjectOld = a.hObjectNew;
	if (ioctl(fd, NV_IOC(NV_ESC_RM_FREE, sizeof(f)), &f))
		return -errno;
	return f.status != NV_OK;
}

struct grow_later {
	volatile uint32_t *len;
	int ms;
};

static void *grow_later(void *arg)
{
	struct grow_later *g = arg;

	usleep(g->ms * 1000);
	*g->len = (64u << 20) + 4096;
	return NULL;
}

static int nomax(int fd, int ms)
{
	static uint8_t buf[4096] __attribute__((aligned(4096)));
	static struct {			/* NV83DE_CTRL_DEBUG_READ_MEMORY_PARAMS */
		uint32_t hMemory;
		uint32_t length;
		uint64_t offset;
		uint64_t buffer;
	} p;
	struct nvd_os21 a = { .hClass = NV01_ROOT_CLIENT };
	struct grow_later g = { .len = &p.length, .ms = ms };
	struct nvd_os54 c = { .cmd = 0x83de0315u, .params = (uintptr_t)&p,
			    .paramsSize = sizeof(p) };
	pthread_t th;
	int ret;

	if (ioctl(fd, NV_IOC(NV_ESC_RM_ALLOC, sizeof(a)), &a) || a.status != NV_OK)
		return 2;
	p.buffer = (uintptr_t)buf;
	p.length = 16;
	c.hClient = c.hObject = a.hObjectNew;
	pthread_create(&th, NULL, grow_later, &g);
	ret = ioctl(fd, NV_IOC(NV_ESC_RM_CONTROL, sizeof(c)), &c) ? -errno : 0;
	pthread_join(th, NULL);
	printf("nomax: ret=%d status=0x%x\n", ret, c.status);
	return 0;
}

struct nomaxpar_call {
	int fd;
	uint8_t *buf;
	int ret;
};

static void *nomaxpar_call(void *arg)
{
	struct nomaxpar_call *x = arg;
	struct {			/* NV83DE_CTRL_DEBUG_READ_MEMORY_PARAMS */
		uint32_t hMemory;
		uint32_t length;
		uint64_t offset;
		uint64_t buffer;
	} p = { .length = 48u << 20, .buffer = (uintptr_t)x->buf };
	struct nvd_os21 a = { .hClass = NV01_ROOT_CLIENT };
	struct nvd_os54 c = { .cmd = 0x83de0315u, .params = (uintptr_t)&p,
			    .paramsSize = sizeof(p) };

	if (ioctl(x->fd, NV_IOC(NV_ESC_RM_ALLOC, sizeof(a)), &a) || a.status != NV_OK) {
		x->ret = 1;
		return NULL;
	}
	c.hClient = c.hObject = a.hObjectNew;
	x->ret = ioctl(x->fd, NV_IOC(NV_ESC_RM_CONTROL, sizeof(c)), &c) ? -errno : 0;
	return NULL;
}

static int nomaxpar(int fd, int nthreads)
{
	struct nomaxpar_call *x = calloc(nthreads, sizeof(*x));
	pthread_t *ts = calloc(nthreads, sizeof(*ts));
	int i, served = 0, busy = 0, other = 0;

	if (!x || !ts)
		return 2;
	for (i = 0; i < nthreads; i++) {
		x[i].fd = fd;
		x[i].buf = mmap(NULL, 48u << 20, PROT_READ | PROT_WRITE,
				MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0);
		if (x[i].buf == MAP_FAILED)
			return 2;
	}
	for (i = 0; i < nthreads; i++)
		pthread_create(&ts[i], NULL, nomaxpar_call, &x[i]);
	for (i = 0; i < nthreads; i++) {
		pthread_join(ts[i], NULL);
		if (!x[i].ret)
			served++;
		else if (x[i].ret == -EBUSY)
			busy++;
		else
			other++;
	}
	printf("nomaxpar: threads=%d served=%d busy=%d other=%d\n", nthreads, served, busy, other);
	return 0;
}

static int nomaxprocs(int fd, int nprocs)
{
	int i, st, served = 0, busy = 0, other = 0;

	for (i = 0; i < nprocs; i++) {
		struct nomaxpar_call x = { .fd = fd };
		pid_t pid = fork();

		if (pid < 0)
			return 2;
		if (pid)
			continue;
		x.buf = mmap(NULL, 48u << 20, PROT_READ | PROT_WRITE,
			     MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0);
		if (x.buf == MAP_FAILED)
			_exit(3);
		nomaxpar_call(&x);
		_exit(!x.ret ? 0 : x.ret == -EBUSY ? 1 : 3);
	}
	while (wait(&st) > 0) {
		if (WIFEXITED(st) && WEXITSTATUS(st) == 0)
			served++;
		else if (WIFEXITED(st) && WEXITSTATUS(st) == 1)
			busy++;
		else
			other++;
	}
	printf("nomaxprocs: procs=%d served=%d busy=%d other=%d\n", nprocs, served, busy, other);
	return 0;
}

static sigjmp_buf segv_jmp;

static void on_segv(int sig)
{
	siglongjmp(segv_jmp, sig);
}

/* Does a user access to @addr fault?  1 yes, 0 no. */
static int access_faults(volatile char *addr, int write)
{
	struct sigaction sa = { .sa_handler = on_segv }, old_segv, old_bus;
	int faulted;

	sigaction(SIGSEGV, &sa, &old_segv);
	sigaction(SIGBUS, &sa, &old_bus);
	if (sigsetjmp(segv_jmp, 1)) {
		faulted = 1;
	} else {
		if (write)
			*addr = 0x5a;
		else
			(void)*addr;
		faulted = 0;
	}
	sigaction(SIGSEGV, &old_segv, NULL);
	sigaction(SIGBUS, &old_bus, NULL);
	return faulted;
}

/* The bounce area's range from /proc/self/maps; 0 when found. */
static int find_area(unsigned long *start, unsigned long *end)
{
	char line[512];
	FILE *f = fopen("/proc/self/maps", "r");
	int ret = -1;

	if (!f)
		return -1;
	while (ret && fgets(line, sizeof(line), f))
		if (strstr(line, "nvmediate-bounce") &&
		    sscanf(line, "%lx-%lx", start, end) == 2)
			ret = 0;
	fclose(f);
	return ret;
}

/* How many pages of [start, end) a user read, and a user write, reach. */
static void probe_pages(unsigned long start, unsigned long end, int *readable, int *writable)
{
	unsigned long a, step = sysconf(_SC_PAGESIZE);

	*readable = *writable = 0;
	for (a = start; a < end; a += step) {
		if (!access_faults((volatile char *)a, 0))
			(*readable)++;
		if (!access_faults((volatile char *)a, 1))
			(*writable)++;
	}
}

static int lowpages(int fd, int calls)
{
	int i, readable, writable, area_r = 0, area_w = 0, failed = 0;
	unsigned long start = 0, end = 0;
	char area[64] = "none";

	for (i = 0; i < calls; i++)
		if (client_cycle(fd))
			failed++;
	probe_pages(AREA_START, AREA_END, &readable, &writable);
	if (!find_area(&start, &end)) {
		snprintf(area, sizeof(area), "%lx-%lx", start, end);
		probe_pages(start, end, &area_r, &area_w);
	}
	printf("lowpages: area=%s area_pages=%lu area_readable=%d area_writable=%d readable=%d writable=%d calls_failed=%d\n",
	       area, (end - start) / sysconf(_SC_PAGESIZE), area_r, area_w, readable, writable, failed);
	return 0;
}

static volatile int aw_stop;
static __thread sigjmp_buf aw_jmp;

static void aw_segv(int sig)
{
	siglongjmp(aw_jmp, 1);
}

struct aw_range {
	unsigned long start, end;
	unsigned long writes, faulted;
};

static void *aw_writer(void *arg)
{
	struct aw_range *r = arg;
	unsigned long a, step = sysconf(_SC_PAGESIZE);

	while (!aw_stop)
		for (a = r->start; a < r->end; a += step) {
			if (sigsetjmp(aw_jmp, 1)) {
				r->faulted++;
				continue;
			}
			*(volatile char *)a = 0x5a;
			r->writes++;
		}
	return NULL;
}

struct aw_caller {
	pthread_t t;
	int fd, first, calls;
	int started, failed, moved;
};

/* Cycles of one calling thread, from CPU @first on, one CPU further each. */
static void *aw_call(void *arg)
{
	struct aw_caller *c = arg;
	int i, ncpus = sysconf(_SC_NPROCESSORS_ONLN);

	for (i = 0; i < c->calls; i++) {
		cpu_set_t one;

		CPU_ZERO(&one);
		CPU_SET((c->first + i) % ncpus, &one);
		if (!sched_setaffinity(0, sizeof(one), &one) && i < ncpus)
			c->moved++;
		if (client_cycle(c->fd))
			c->failed++;
	}
	return NULL;
}

static int areawrite(int fd, int calls, int threads)
{
	struct sigaction sa = { .sa_handler = aw_segv };
	struct aw_caller c[16] = { 0 };
	struct aw_range r = { 0 };
	int i, failed = 0, moved = 0;
	pthread_t t;

	if (threads < 1 || threads > 16 || calls % threads) {
		printf("areawrite: THREADS must be 1 to 16 and divide CALLS\n");
		return 1;
	}
	if (client_cycle(fd) || find_area(&r.start, &r.end)) {
		printf("areawrite: no bounce area after a call\n");
		return 1;
	}
	sigaction(SIGSEGV, &sa, NULL);
	sigaction(SIGBUS, &sa, NULL);
	if (pthread_create(&t, NULL, aw_writer, &r))
		return 1;
	for (i = 0; i < threads; i++) {
		c[i].fd = fd;
		c[i].first = i;
		c[i].calls = calls / threads;
		c[i].started = !pthread_create(&c[i].t, NULL, aw_call, &c[i]);
		if (!c[i].started)
			c[i].failed = c[i].calls;
	}
	for (i = 0; i < threads; i++) {
		if (c[i].started)
			pthread_join(c[i].t, NULL);
		failed += c[i].failed;
		/* The CPUs every caller reached: the fewest any did. */
		if (!i || c[i].moved < moved)
			moved = c[i].moved;
	}
	aw_stop = 1;
	pthread_join(t, NULL);
	printf("areawrite: calls=%d failed=%d writes=%lu faulted=%lu cpus=%d\n", calls, failed,
	       r.writes, r.faulted, moved);
	return 0;
}

struct stalled {
	int fd;
	void *payload;
	int ret;
	int uffd;
	int ms;
};

static void *stalled_call(void *arg)
{
	struct stalled *s = arg;

	s->ret = ioctl(s->fd, NV_IOC(NV_ESC_RM_CONTROL, sizeof(struct nvd_os54)), s->payload) ?
		 -errno : 0;
	return NULL;
}

/* Serve a missing page of @uffd's at @page: zeroes. */
static void uffd_serve(int uffd, void *page)
{
	static char src[4096] __attribute__((aligned(4096)));
	struct uffdio_copy copy = { .src = (uintptr_t)src, .len = 4096, .dst = (uintptr_t)page };

	ioctl(uffd, UFFDIO_COPY, &copy);
}

/* After @ms, the page: a control of command 0, which the validator answers. */
static void *resolve_later(void *arg)
{
	struct stalled *s = arg;

	usleep(s->ms * 1000);
	uffd_serve(s->uffd, s->payload);
	return NULL;
}

static int rewrite(const char *path)
{
	char buf[256];
	ssize_t n;
	int f = open(path, O_RDWR);

	if (f < 0)
		return -errno;
	n = read(f, buf, sizeof(buf) - 1);
	if (n <= 0 || lseek(f, 0, SEEK_SET) || write(f, buf, n) != n) {
		close(f);
		return -EIO;
	}
	close(f);
	return 0;
}

static int stall(int fd, const char *caps, int ms)
{
	struct uffdio_api api = { .api = UFFD_API };
	struct uffdio_register reg = { .mode = UFFDIO_REGISTER_MODE_MISSING };
	struct stalled s = { .fd = fd, .ms = ms };
	pthread_t t, r;
	long t0, write_ms;
	char *page;
	int ret;

	s.uffd = syscall(SYS_userfaultfd, O_CLOEXEC);
	page = mmap(NULL, 4096, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	if (s.uffd < 0 || page == MAP_FAILED || ioctl(s.uffd, UFFDIO_API, &api)) {
		perror("userfaultfd");
		return 2;
	}
	reg.range.start = (uintptr_t)page;
	reg.range.len = 4096;
	if (ioctl(s.uffd, UFFDIO_REGISTER, &reg)) {
		perror("UFFDIO_REGISTER");
		return 2;
	}
	s.payload = page;
	pthread_create(&t, NULL, stalled_call, &s);
	pthread_create(&r, NULL, resolve_later, &s);
	usleep(300000);
	t0 = now_ms();
	ret = rewrite(caps);
	write_ms = now_ms() - t0;
	pthread_join(r, NULL);
	pthread_join(t, NULL);
	printf("stall: write_ms=%ld write_ret=%d call_ret=%d\n", write_ms, ret, s.ret);
	return 0;
}

struct holder {
	int uvm;
};

static void *hold_mmap_lock(void *arg)
{
	struct holder *h = arg;
	struct nvd_uvm_pageable_mem_access p = { 0 };

	ioctl(h->uvm, UVM_PAGEABLE_MEM_ACCESS, &p);
	return NULL;
}

static int lockwait(const char *ctl, const char *uvmpath, int ms)
{
	int fd = open(ctl, O_RDWR), ret, status;
	long t0, first;
	pid_t pid;

	if (fd < 0) {
		perror(ctl);
		return 2;
	}
	pid = fork();
	if (pid == 0) {
		struct holder h = { .uvm = open(uvmpath, O_RDWR) };
		pthread_t t;

		if (h.uvm < 0)
			_exit(2);
		pthread_create(&t, NULL, hold_mmap_lock, &h);
		usleep(200000);
		/* The first call of this process: it must make its area. */
		client_cycle(fd);
		pthread_join(t, NULL);
		_exit(0);
	}
	usleep(500000);
	t0 = now_ms();
	ret = client_cycle(fd);
	first = now_ms() - t0;
	waitpid(pid, &status, 0);
	printf("lockwait: first_call_ms=%ld ret=%d hold_ms=%d\n", first, ret, ms);
	return 0;
}

struct unmap_later {
	void *page;
	int ms;
	long done_ms;
};

static void *unmap_later(void *arg)
{
	struct unmap_later *u = arg;

	usleep(u->ms * 1000);
	munmap(u->page, 4096);
	u->done_ms = now_ms();
	return NULL;
}

static int rights(int fd, int ms)
{
	uint32_t *mask = mmap(NULL, 4096, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS,
			      -1, 0);
	struct nvd_os64 a = { .hClass = NV01_ROOT_CLIENT };
	struct unmap_later u = { .page = mask, .ms = ms };
	pthread_t th;
	long returned;
	int ret;

	if (mask == MAP_FAILED)
		return 2;
	*mask = 0x5;
	a.pRightsRequested = (uintptr_t)mask;
	pthread_create(&th, NULL, unmap_later, &u);
	ret = ioctl(fd, NV_IOC(NV_ESC_RM_ALLOC, sizeof(a)), &a) ? -errno : 0;
	returned = now_ms();
	pthread_join(th, NULL);
	printf("rights: ret=%d status=0x%x pointer=%s lead_ms=%ld\n", ret, a.status,
	       a.pRightsRequested == (uintptr_t)mask ? "same" : "changed", returned - u.done_ms);
	if (!ret && !a.status && a.hObjectNew) {
		struct nvd_os00 f = { .hRoot = a.hObjectNew, .hObjectOld = a.hObjectNew };

		ioctl(fd, NV_IOC(NV_ESC_RM_FREE, sizeof(f)), &f);
	}
	return 0;
}

/*
 * A child process that opens this process's /proc/PID/maps (which waits on
 * its exec_update_lock) and writes when it began and when the open
 * returned (two longs, milliseconds) to @wfd.
 */
static pid_t maps_opener(int wfd)
{
	pid_t child = fork();

	if (child == 0) {
		char name[64];
		long t[2];
		int m;

		snprintf(name, sizeof(name), "/proc/%d/maps", getppid());
		t[0] = now_ms();
		m = open(name, O_RDONLY);
		t[1] = now_ms();
		if (m >= 0)
			close(m);
		if (write(wfd, t, sizeof(t)) != sizeof(t))
			_exit(1);
		_exit(m >= 0 ? 0 : 1);
	}
	return child;
}

struct waiter_call {
	int fd;
	struct nvd_register_fd r;
	pid_t tid;
	int ret;
	long start_ms;
	long done_ms;
};

static void *waiter_call(void *arg)
{
	struct waiter_call *w = arg;

	w->tid = syscall(SYS_gettid);
	w->start_ms = now_ms();
	w->ret = ioctl(w->fd, NV_IOC(NV_ESC_REGISTER_FD, sizeof(w->r)), &w->r) ? -errno : 0;
	w->done_ms = now_ms();
	return NULL;
}

static int waiters(int fd, const char *path, int ms)
{
	struct waiter_call w = { .fd = fd };
	int links = 0, opened = 0, driver = 0, pipefd[2], status;
	long maps_ms = -1, maps_done = -1, scan_ms, scan_done;
	char dir[64], name[384], target[256];
	struct timespec ts = { .tv_sec = ms / 5 / 1000, .tv_nsec = (ms / 5 % 1000) * 1000000L };
	struct dirent *de;
	pthread_t th;
	pid_t child;
	DIR *d;

	w.r.ctl_fd = open(path, O_RDWR);
	if (w.r.ctl_fd < 0 || pipe(pipefd)) {
		perror(path);
		return 2;
	}
	pthread_create(&th, NULL, waiter_call, &w);
	nanosleep(&ts, NULL);
	child = maps_opener(pipefd[1]);
	snprintf(dir, sizeof(dir), "/proc/self/task/%d/fd", w.tid);
	scan_ms = now_ms();
	d = opendir(dir);
	while (d && (de = readdir(d))) {
		ssize_t n;
		struct stat st;
		int o;

		if (de->d_name[0] == '.')
			continue;
		snprintf(name, sizeof(name), "%s/%s", dir, de->d_name);
		n = readlink(name, target, sizeof(target) - 1);
		if (n <= 0)
			continue;
		target[n] = 0;
		if (!strstr(target, "nvidia"))
			continue;
		links++;
		o = open(name, O_RDWR);
		if (o < 0)
			continue;
		opened++;
		if (!fstat(o, &st) && S_ISCHR(st.st_mode) && major(st.st_rdev) == 195)
			driver++;
		close(o);
	}
	if (d)
		closedir(d);
	scan_done = now_ms();
	scan_ms = scan_done - scan_ms;
	if (child > 0) {
		long t[2];

		if (read(pipefd[0], t, sizeof(t)) == sizeof(t)) {
			maps_ms = t[1] - t[0];
			maps_done = t[1];
		}
		waitpid(child, &status, 0);
	}
	pthread_join(th, NULL);
	printf("waiters: call_ret=%d call_ms=%ld maps_ms=%ld maps_after_call_ms=%ld fdscan_ms=%ld fdscan_after_call_ms=%ld nvidia_links=%d opened=%d driver_files=%d\n",
	       w.ret, w.done_ms - w.start_ms, maps_ms, maps_done - w.done_ms, scan_ms,
	       scan_done - w.done_ms, links, opened, driver);
	return 0;
}

static int oops(int fd, const char *path)
{
	struct waiter_call w = { .fd = fd, .done_ms = -1 };
	char name[64];
	long maps_ms = -1, t[2];
	int gone = 0, i, pipefd[2], status;
	pthread_t th;
	pid_t child;

	w.r.ctl_fd = open(path, O_RDWR);
	if (w.r.ctl_fd < 0 || pipe(pipefd)) {
		perror(path);
		return 2;
	}
	pthread_create(&th, NULL, waiter_call, &w);
	for (i = 0; i < 100 && !__atomic_load_n(&w.tid, __ATOMIC_ACQUIRE); i++)
		usleep(10000);
	snprintf(name, sizeof(name), "/proc/self/task/%d", w.tid);
	for (i = 0; i < 500 && !gone; i++) {
		gone = access(name, F_OK) != 0;
		usleep(10000);
	}
	child = fork();
	if (child == 0) {
		int m;

		alarm(3);
		snprintf(name, sizeof(name), "/proc/%d/maps", getppid());
		t[0] = now_ms();
		m = open(name, O_RDONLY);
		t[1] = now_ms();
		if (write(pipefd[1], t, sizeof(t)) != sizeof(t))
			_exit(1);
		_exit(m >= 0 ? 0 : 1);
	}
	close(pipefd[1]);
	if (child > 0) {
		if (read(pipefd[0], t, sizeof(t)) == sizeof(t))
			maps_ms = t[1] - t[0];
		waitpid(child, &status, 0);
	}
	printf("oops: thread_gone=%d call_returned=%d maps_ms=%ld\n", gone, w.done_ms >= 0, maps_ms);
	fflush(stdout);
	_exit(0);
}

static int grow(int fd, const char *path, int want, const char *state)
{
	struct nvd_register_fd r;
	char line[128];
	int ctl, ret, high = -1, extra = -1;
	FILE *f;

	ctl = open(path, O_RDWR);
	if (ctl < 0) {
		perror(path);
		return 2;
	}
	r.ctl_fd = ctl;
	ret = ioctl(fd, NV_IOC(NV_ESC_REGISTER_FD, sizeof(r)), &r) ? -errno : 0;
	for (int i = want; i < want + 4096 && high < 0; i++)
		if (fcntl(i, F_GETFD) >= 0)
			high = i;
	f = fopen(state, "r");
	while (f && fgets(line, sizeof(line), f))
		sscanf(line, "extra_fds=%d", &extra);
	if (f)
		fclose(f);
	printf("grow: ret=%d high_fd=%d extra_fds=%d\n", ret, high, extra);
	return 0;
}

static const char *answer(int ret)
{
	switch (ret) {
	case 0:
		return "0";
	case -EPERM:
		return "EPERM";
	case -EFAULT:
		return "EFAULT";
	case -EINVAL:
		return "EINVAL";
	}
	return "other";
}

static int vid_heap(int fd, uint32_t function, uint64_t desc, uint64_t limit, int xfer)
{
	struct nvd_os32_osdesc p = {
		.function = function, .descriptor = desc, .limit = limit, .attr2 = 0,
	};
	struct nvd_xfer x = {
		.cmd = NV_ESC_RM_VID_HEAP_CONTROL, .size = sizeof(p), .ptr = (uintptr_t)&p,
	};

	_Static_assert(sizeof(p) == 184, "NVOS32_PARAMETERS is 184 bytes");
	_Static_assert(offsetof(struct nvd_os32_osdesc, descriptor) == 64, "descriptor at 64");
	if (xfer)
		return ioctl(fd, NV_IOC(NV_ESC_IOCTL_XFER_CMD, sizeof(x)), &x) ? -errno : 0;
	return ioctl(fd, NV_IOC(NV_ESC_RM_VID_HEAP_CONTROL, sizeof(p)), &p) ? -errno : 0;
}

static int alloc_memory(int fd, uint32_t hclass, uint64_t mem, uint64_t limit)
{
	struct nvd_os02_fd p = { .hClass = hclass, .pMemory = mem, .limit = limit, .fd = -1 };

	return ioctl(fd, NV_IOC(NV_ESC_RM_ALLOC_MEMORY, sizeof(p)), &p) ? -errno : 0;
}

/*
 * A second mapping of the area, through its file reopened from
 * /proc/self/map_files (root may): "mapped", or why not.
 */
static const char *remap(unsigned long start, unsigned long end)
{
	char path[64];
	void *p;
	int fd;

	snprintf(path, sizeof(path), "/proc/self/map_files/%lx-%lx", start, end);
	fd = open(path, O_RDWR);
	if (fd < 0)
		return errno == EPERM || errno == EACCES ? "noaccess" :
		       errno == ENXIO ? "open-ENXIO" : errno == ENODEV ? "open-ENODEV" :
		       errno == ENOENT ? "open-ENOENT" : "open-other";
	p = mmap(NULL, end - start, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
	close(fd);
	if (p != MAP_FAILED) {
		munmap(p, end - start);
		return "mapped";
	}
	return errno == EBUSY ? "EBUSY" : errno == ENODEV ? "ENODEV" :
	       errno == EACCES ? "EACCES" : "other";
}

static int osdesc(int ctl, const char *gpupath)
{
	unsigned long start, end, pg = sysconf(_SC_PAGESIZE);
	int gpu = open(gpupath, O_RDWR);
	char *own;

	if (gpu < 0) {
		perror(gpupath);
		return 2;
	}
	own = mmap(NULL, pg, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	if (own == MAP_FAILED || client_cycle(ctl) || find_area(&start, &end)) {
		printf("osdesc: no area\n");
		return 1;
	}
	{
		static const char *const name[] = {
			"vh_first", "vh_last", "vh_below", "vh_xfer", "am_first", "am_last",
			"vh_own", "vh_before", "vh_after", "vh_nolimit", "vh_other", "am_own",
			"am_other",
		};
		uint32_t od = NVOS32_FUNCTION_ALLOC_OS_DESCRIPTOR;
		uint64_t mine = (uintptr_t)own;
		int r[13], i = 0;

		/* Over the area. */
		r[i++] = vid_heap(ctl, od, start, pg - 1, 0);
		r[i++] = vid_heap(ctl, od, end - pg, pg - 1, 0);
		r[i++] = vid_heap(ctl, od, start - pg, 2 * pg - 1, 0);
		r[i++] = vid_heap(ctl, od, start, pg - 1, 1);
		r[i++] = alloc_memory(gpu, NV01_MEMORY_SYSTEM_OS_DESCRIPTOR, start, pg - 1);
		r[i++] = alloc_memory(gpu, NV01_MEMORY_SYSTEM_OS_DESCRIPTOR, end - pg, pg - 1);
		/* Elsewhere, or not an OS descriptor. */
		r[i++] = vid_heap(ctl, od, mine, pg - 1, 0);
		r[i++] = vid_heap(ctl, od, start - pg, pg - 1, 0);
		r[i++] = vid_heap(ctl, od, end, pg - 1, 0);
		r[i++] = vid_heap(ctl, od, start, ~0ULL, 0);
		r[i++] = vid_heap(ctl, NVOS32_FUNCTION_INFO, start, pg - 1, 0);
		r[i++] = alloc_memory(gpu, NV01_MEMORY_SYSTEM_OS_DESCRIPTOR, mine, pg - 1);
		r[i++] = alloc_memory(gpu, NV01_MEMORY_SYSTEM, start, pg - 1);
		printf("osdesc:");
		for (i = 0; i < 13; i++)
			printf(" %s=%s", name[i], answer(r[i]));
		printf(" remap=%s area=%lx-%lx\n", remap(start, end), start, end);
	}
	return 0;
}

#ifndef UFFD_USER_MODE_ONLY
#define UFFD_USER_MODE_ONLY	1
#endif
#ifndef UFFD_FEATURE_WP_ASYNC
#define UFFD_FEATURE_WP_ASYNC	(1 << 15)
#endif

struct uffdwp_run {
	int fd, calls, ok, efault, other;
	volatile int done;
};

static void *uffdwp_calls(void *arg)
{
	struct uffdwp_run *r = arg;
	int i, ret;

	for (i = 0; i < r->calls; i++) {
		ret = client_cycle(r->fd);
		if (!ret)
			r->ok++;
		else if (ret == -EFAULT)
			r->efault++;
		else
			r->other++;
	}
	r->done = 1;
	return NULL;
}

static int uffdwp(int fd, int calls)
{
	struct uffdio_api api = { .api = UFFD_API, .features = UFFD_FEATURE_WP_ASYNC };
	struct uffdio_register reg = { .mode = UFFDIO_REGISTER_MODE_WP };
	struct uffdio_writeprotect wp = { .mode = UFFDIO_WRITEPROTECT_MODE_WP };
	struct uffdwp_run r = { .fd = fd, .calls = calls };
	int uffd, e_api = 0, e_reg = 0, e_wp = 0, i;
	unsigned long start, end;
	pthread_t th;

	if (client_cycle(fd) || find_area(&start, &end)) {
		printf("uffdwp: no area\n");
		return 1;
	}
	uffd = syscall(SYS_userfaultfd, O_CLOEXEC | UFFD_USER_MODE_ONLY);
	if (uffd < 0 || ioctl(uffd, UFFDIO_API, &api))
		e_api = errno;
	reg.range.start = wp.range.start = start;
	reg.range.len = wp.range.len = end - start;
	if (!e_api && ioctl(uffd, UFFDIO_REGISTER, &reg))
		e_reg = errno;
	if (!e_api && !e_reg && ioctl(uffd, UFFDIO_WRITEPROTECT, &wp))
		e_wp = errno;
	if (!e_api && !e_reg && !e_wp) {
		pthread_create(&th, NULL, uffdwp_calls, &r);
		for (i = 0; i < 200 && !r.done; i++)
			usleep(100000);
	}
	printf("uffdwp: api=%d register=%d protect=%d calls=%d ok=%d efault=%d other=%d done=%d\n",
	       e_api, e_reg, e_wp, calls, r.ok, r.efault, r.other, r.done);
	if (r.done)
		pthread_join(th, NULL);
	return 0;
}

struct lowstall_call {
	int fd;
	struct nvd_os21 *a;
	int ret;
};

static void *lowstall_call(void *arg)
{
	struct lowstall_call *c = arg;

	c->ret = ioctl(c->fd, NV_IOC(NV_ESC_RM_ALLOC, sizeof(*c->a)), c->a) ? -errno : 0;
	return NULL;
}

/*
 * An RM_ALLOC of a client in thread @th, its payload on a page that a
 * userfaultfd write-protects; returns once nvmediate's copy of the answer
 * to it stalls there (*@stalled = 1), or after 5 s (0).  Return: the
 * userfaultfd, for stalled_release(), or -1.
 */
static int stalled_alloc(struct lowstall_call *c, pthread_t *th, int *stalled)
{
	struct uffdio_api api = { .api = UFFD_API };
	struct uffdio_register reg = { .mode = UFFDIO_REGISTER_MODE_WP };
	struct uffdio_writeprotect wp = { .mode = UFFDIO_WRITEPROTECT_MODE_WP };
	struct pollfd pfd = { .events = POLLIN };
	struct uffd_msg msg;
	char *page;
	int uffd;

	page = mmap(NULL, 4096, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	uffd = syscall(SYS_userfaultfd, O_CLOEXEC | O_NONBLOCK);
	if (page == MAP_FAILED || uffd < 0 || ioctl(uffd, UFFDIO_API, &api)) {
		perror("userfaultfd");
		return -1;
	}
	c->a = (struct nvd_os21 *)page;
	c->a->hClass = NV01_ROOT;
	reg.range.start = wp.range.start = (uintptr_t)page;
	reg.range.len = wp.range.len = 4096;
	if (ioctl(uffd, UFFDIO_REGISTER, &reg) || ioctl(uffd, UFFDIO_WRITEPROTECT, &wp)) {
		perror("UFFDIO_REGISTER/WRITEPROTECT");
		return -1;
	}
	pthread_create(th, NULL, lowstall_call, c);
	pfd.fd = uffd;
	*stalled = poll(&pfd, 1, 5000) == 1 && read(uffd, &msg, sizeof(msg)) == sizeof(msg) &&
		   msg.event == UFFD_EVENT_PAGEFAULT &&
		   (msg.arg.pagefault.flags & UFFD_PAGEFAULT_FLAG_WP);
	return uffd;
}

/* Lift stalled_alloc()'s protection and wait for its call. */
static void stalled_release(int uffd, struct lowstall_call *c, pthread_t th)
{
	struct uffdio_writeprotect wp = { .range = { .start = (uintptr_t)c->a, .len = 4096 } };

	ioctl(uffd, UFFDIO_WRITEPROTECT, &wp);
	pthread_join(th, NULL);
}

static int lowstall(int fd, int ms)
{
	struct lowstall_call c = { .fd = fd };
	unsigned long writes = 0, addr;
	int stalled, pages = 0, uffd, i;
	char hit[(AREA_END - AREA_START) / 4096] = { 0 };
	pthread_t th;
	long t0;

	uffd = stalled_alloc(&c, &th, &stalled);
	if (uffd < 0)
		return 2;
	t0 = now_ms();
	while (stalled && now_ms() - t0 < ms) {
		for (addr = AREA_START, i = 0; addr < AREA_END; addr += 4096, i++) {
			if (access_faults((volatile char *)addr, 1))
				continue;
			writes++;
			hit[i] = 1;
		}
	}
	for (i = 0; i < (int)sizeof(hit); i++)
		pages += hit[i];
	stalled_release(uffd, &c, th);
	printf("lowstall: stalled=%d writes=%lu pages=%d call_ret=%d status=0x%x\n", stalled,
	       writes, pages, c.ret, c.a->status);
	if (!c.ret && c.a->status == NV_OK) {
		struct nvd_os00 f = { .hRoot = c.a->hObjectNew, .hObjectOld = c.a->hObjectNew };

		ioctl(fd, NV_IOC(NV_ESC_RM_FREE, sizeof(f)), &f);
	}
	return 0;
}

struct parked_thread {
	int fd;
	pid_t tid;
	int ret;
};

static void *parked_call(void *arg)
{
	struct parked_thread *p = arg;

	p->tid = syscall(SYS_gettid);
	p->ret = client_cycle(p->fd);
	return NULL;
}

/* The value after @key in thread @tid's status (/proc/self/task), in @val. */
static int task_status(pid_t tid, const char *key, char *val, size_t len)
{
	char path[64], line[128];
	int found = 0;
	FILE *f;

	snprintf(path, sizeof(path), "/proc/self/task/%d/status", tid);
	f = fopen(path, "r");
	while (f && !found && fgets(line, sizeof(line), f))
		if (!strncmp(line, key, strlen(key))) {
			snprintf(val, len, "%s", line + strlen(key));
			found = 1;
		}
	if (f)
		fclose(f);
	return found;
}

/* The voluntary context switches of thread @tid of this process, or -1. */
static long ctxt_switches(pid_t tid)
{
	char v[64];

	return task_status(tid, "voluntary_ctxt_switches:", v, sizeof(v)) ? atol(v) : -1;
}

/* Is thread @tid asleep (state S or D)? */
static int sleeping(pid_t tid)
{
	char v[64];

	return task_status(tid, "State:", v, sizeof(v)) && (strchr(v, 'S') || strchr(v, 'D'));
}

static int parked(int fd, int nthreads, int rounds)
{
	struct parked_thread *p = calloc(nthreads, sizeof(*p));
	struct lowstall_call c = { .fd = fd };
	unsigned long start, end;
	long before = 0, after = 0, t0, rounds_ms;
	int uffd, i, n, ok = 0, parked = 0, stalled;
	pthread_t th, *ts = calloc(nthreads, sizeof(*ts));

	if (!p || !ts || client_cycle(fd) || find_area(&start, &end) || start >= AREA_END) {
		printf("parked: no area below 64 KiB\n");
		return 1;
	}
	/* A call that holds the area, stalled in the copy of its answer. */
	uffd = stalled_alloc(&c, &th, &stalled);
	if (uffd < 0)
		return 2;
	if (!stalled) {
		printf("parked: the call did not stall\n");
		return 1;
	}
	munmap((void *)start, end - start);
	for (i = 0; i < nthreads; i++) {
		p[i].fd = fd;
		pthread_create(&ts[i], NULL, parked_call, &p[i]);
	}
	/* Until every one sleeps, waiting for the old area (at most 10 s). */
	for (n = 0; n < 100; n++) {
		usleep(100000);
		for (parked = 0, i = 0; i < nthreads; i++)
			parked += p[i].tid && sleeping(p[i].tid);
		if (parked == nthreads)
			break;
	}
	usleep(200000);
	for (i = 0; i < nthreads; i++)
		before += ctxt_switches(p[i].tid);
	t0 = now_ms();
	for (i = 0; i < rounds; i++) {
		pid_t child = fork();

		if (child == 0)
			_exit(client_cycle(fd) ? 1 : 0);
		waitpid(child, NULL, 0);
	}
	rounds_ms = now_ms() - t0;
	for (i = 0; i < nthreads; i++)
		after += ctxt_switches(p[i].tid);
	stalled_release(uffd, &c, th);
	for (i = 0; i < nthreads; i++) {
		pthread_join(ts[i], NULL);
		ok += !p[i].ret;
	}
	printf("parked: threads=%d parked=%d rounds=%d wakeups=%ld rounds_ms=%ld calls_ok=%d\n",
	       nthreads, parked, rounds, after - before, rounds_ms, ok);
	return 0;
}

struct areapayload_run {
	int fd;
	volatile int stop, pause, paused;
};

static void *areapayload_cycles(void *arg)
{
	struct areapayload_run *r = arg;

	while (!r->stop) {
		if (r->pause) {
			r->paused = 1;
			while (r->pause && !r->stop)
				sched_yield();
			r->paused = 0;
			continue;
		}
		client_cycle(r->fd);
	}
	return NULL;
}

static int areapayload(int fd, int iter)
{
	struct areapayload_run r = { .fd = fd };
	int i, ok = 0, efault = 0, writable = 0;
	pthread_t th;

	if (client_cycle(fd))
		return 2;
	pthread_create(&th, NULL, areapayload_cycles, &r);
	for (i = 0; i < iter && !writable; i++) {
		if (!ioctl(fd, NV_IOC(NV_ESC_RM_ALLOC, sizeof(struct nvd_os21)), (void *)AREA_START))
			ok++;
		else if (errno == EFAULT)
			efault++;
		/*
		 * With no call in flight: while the other thread's call holds
		 * the page after the driver's write-back, it is writable for
		 * the process by design (docs/security.md).
		 */
		r.pause = 1;
		while (!r.paused)
			sched_yield();
		writable += !access_faults((volatile char *)AREA_START, 1);
		r.pause = 0;
		while (r.paused)
			sched_yield();
	}
	r.stop = 1;
	pthread_join(th, NULL);
	printf("areapayload: iter=%d ok=%d efault=%d writable_after=%d\n", i, ok, efault, writable);
	return 0;
}

struct lockstall_run {
	const char *kind;
	int ctl, gpu, uvm, uvm2;
	uint32_t client;
	char *page;
	int uffd;
	int ms;
	long t0;
	int ret;
	long done_ms;
};

static void *lockstall_call(void *arg)
{
	struct lockstall_run *r = arg;
	int ret;

	if (!strcmp(r->kind, "class")) {
		struct nvd_os21 a = { .hRoot = r->client, .hObjectParent = r->client,
				    .hObjectNew = 0xcafe0001, .hClass = NV01_DEVICE_0,
				    .pAllocParms = (uintptr_t)r->page,
				    .paramsSize = sizeof(struct nvd_alloc_0080) };

		ret = ioctl(r->ctl, NV_IOC(NV_ESC_RM_ALLOC, sizeof(a)), &a);
	} else if (!strcmp(r->kind, "uvm")) {
		ret = ioctl(r->uvm, UVM_MM_INITIALIZE, r->page);
	} else {
		/* An OS descriptor, or system memory not mapped (no fd read). */
		struct nvd_os02_fd p = {
			.hRoot = r->client, .hObjectParent = r->client, .hObjectNew = 0xcafe0002,
			.hClass = strcmp(r->kind, "nomap") ? NV01_MEMORY_SYSTEM_OS_DESCRIPTOR :
				  NV01_MEMORY_SYSTEM,
			.flags = 1u << 30, .pMemory = (uintptr_t)r->page, .limit = 4095,
			.fd = r->gpu,
		};

		ret = ioctl(r->gpu, NV_IOC(NV_ESC_RM_ALLOC_MEMORY, sizeof(p)), &p);
	}
	r->ret = ret ? -errno : 0;
	r->done_ms = now_ms();
	return NULL;
}

/* Give the page back, MS after the call began. */
static void *lockstall_resolve(void *arg)
{
	struct lockstall_run *r = arg;
	long left = r->t0 + r->ms - now_ms();

	if (left > 0)
		usleep(left * 1000);
	uffd_serve(r->uffd, r->page);
	return NULL;
}

static int lockstall(const char *kind, const char *ctl, const char *gpu, const char *uvm, int ms)
{
	static char src[4096] __attribute__((aligned(4096)));
	struct lockstall_run r = { .kind = kind, .ms = ms };
	struct uffdio_api api = { .api = UFFD_API };
	struct uffdio_register reg = { .mode = UFFDIO_REGISTER_MODE_MISSING };
	struct uffdio_copy copy = { .src = (uintptr_t)src, .len = 4096 };
	struct nvd_os21 a = { .hClass = NV01_ROOT };
	int pipefd[2], status;
	long t[2] = { -1, -1 };
	pthread_t th, res;
	pid_t child;

	r.ctl = open(ctl, O_RDWR);
	r.gpu = open(gpu, O_RDWR);
	r.uvm = open(uvm, O_RDWR);
	r.uvm2 = open(uvm, O_RDWR);
	if (r.ctl < 0 || r.gpu < 0 || r.uvm < 0 || r.uvm2 < 0 || pipe(pipefd)) {
		perror("open");
		return 2;
	}
	if (ioctl(r.ctl, NV_IOC(NV_ESC_RM_ALLOC, sizeof(a)), &a) || a.status) {
		perror("RM_ALLOC client");
		return 2;
	}
	r.client = a.hObjectNew;
	r.uffd = syscall(SYS_userfaultfd, O_CLOEXEC);
	r.page = mmap(NULL, 4096, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	if (r.uffd < 0 || r.page == MAP_FAILED || ioctl(r.uffd, UFFDIO_API, &api)) {
		perror("userfaultfd");
		return 2;
	}
	reg.range.start = (uintptr_t)r.page;
	reg.range.len = 4096;
	if (ioctl(r.uffd, UFFDIO_REGISTER, &reg)) {
		perror("UFFDIO_REGISTER");
		return 2;
	}
	/* The page's bytes: the params or payload the call is checked with. */
	if (!strcmp(kind, "uvm")) {
		struct nvd_uvm_mm_initialize m = { .uvmFd = r.uvm2 };

		memcpy(src, &m, sizeof(m));
	}
	copy.dst = (uintptr_t)r.page;
	if (ioctl(r.uffd, UFFDIO_COPY, &copy)) {
		perror("UFFDIO_COPY");
		return 2;
	}
	memset(src, 0, sizeof(src));
	r.t0 = now_ms();
	pthread_create(&th, NULL, lockstall_call, &r);
	pthread_create(&res, NULL, lockstall_resolve, &r);
	usleep(200000);
	madvise(r.page, 4096, MADV_DONTNEED);
	usleep(500000);
	child = maps_opener(pipefd[1]);
	if (read(pipefd[0], t, sizeof(t)) != sizeof(t))
		t[0] = t[1] = -1;
	waitpid(child, &status, 0);
	pthread_join(res, NULL);
	pthread_join(th, NULL);
	printf("lockstall: kind=%s ret=%d maps_wait_ms=%ld call_ms=%ld\n", kind, r.ret,
	       t[1] - t[0], r.done_ms - r.t0);
	return 0;
}

struct sealrace_run {
	unsigned long target, len;
	volatile int go, stop;
};

/* Real-time, on the caller's CPU: PROT_NONE at the area's address, over and over. */
static void *sealrace_protect(void *arg)
{
	struct sealrace_run *r = arg;
	struct timespec ts = { .tv_nsec = 20000 };

	while (!r->stop) {
		if (r->go)
			mprotect((void *)r->target, r->len, PROT_NONE);
		nanosleep(&ts, NULL);
	}
	return NULL;
}

/* One child's first call: 0 ok, 1 refused, 2 refused with an area left, 3 other. */
static int sealrace_one(const char *ctl, unsigned long len)
{
	struct sealrace_run r = { .len = len };
	struct sched_param sp = { .sched_priority = 1 };
	unsigned long start, end;
	pthread_attr_t attr;
	cpu_set_t cpu;
	pthread_t th;
	void *probe;
	int fd, ret;

	fd = open(ctl, O_RDWR);
	CPU_ZERO(&cpu);
	CPU_SET(0, &cpu);
	if (fd < 0 || sched_setaffinity(0, sizeof(cpu), &cpu))
		return 3;
	pthread_attr_init(&attr);
	pthread_attr_setinheritsched(&attr, PTHREAD_EXPLICIT_SCHED);
	pthread_attr_setschedpolicy(&attr, SCHED_FIFO);
	pthread_attr_setschedparam(&attr, &sp);
	pthread_attr_setaffinity_np(&attr, sizeof(cpu), &cpu);
	if (pthread_create(&th, &attr, sealrace_protect, &r))
		return 3;
	/* Where the area will go: the gap a mapping of its size gets now. */
	probe = mmap(NULL, len, PROT_NONE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	if (probe == MAP_FAILED)
		return 3;
	munmap(probe, len);
	r.target = (unsigned long)probe;
	r.go = 1;
	ret = client_cycle(fd);
	r.stop = 1;
	pthread_join(th, NULL);
	if (!ret)
		return 0;
	if (ret != -EPERM)
		return 3;
	return find_area(&start, &end) ? 1 : 2;
}

static int sealrace(const char *ctl, int trials)
{
	unsigned long start, end;
	int i, n[4] = { 0 }, fd = open(ctl, O_RDWR), status;

	/* The area's size, from one of this process's own. */
	if (fd < 0 || client_cycle(fd) || find_area(&start, &end)) {
		printf("sealrace: no area\n");
		return 1;
	}
	for (i = 0; i < trials; i++) {
		pid_t pid = fork();

		if (pid == 0)
			_exit(sealrace_one(ctl, end - start));
		if (pid < 0 || waitpid(pid, &status, 0) != pid || !WIFEXITED(status) ||
		    WEXITSTATUS(status) > 3)
			n[3]++;
		else
			n[WEXITSTATUS(status)]++;
	}
	printf("sealrace: trials=%d ok=%d refused=%d left=%d other=%d\n", trials, n[0],
	       n[1] + n[2], n[2], n[3]);
	return 0;
}

int main(int argc, char **argv)
{
	int fd;

	setvbuf(stdout, NULL, _IOLBF, 0);
	if (argc == 5 && !strcmp(argv[1], "lockwait"))
		return lockwait(argv[2], argv[3], atoi(argv[4]));
	if (argc == 7 && !strcmp(argv[1], "lockstall"))
		return lockstall(argv[2], argv[3], argv[4], argv[5], atoi(argv[6]));
	if (argc < 3)
		goto usage;
	fd = open(argv[2], O_RDWR);
	if (fd < 0) {
		perror(argv[2]);
		return 2;
	}
	if (argc == 4 && !strcmp(argv[1], "lowpages"))
		return lowpages(fd, atoi(argv[3]));
	if ((argc == 4 || argc == 5) && !strcmp(argv[1], "areawrite"))
		return areawrite(fd, atoi(argv[3]), argc == 5 ? atoi(argv[4]) : 1);
	if (argc == 5 && !strcmp(argv[1], "stall"))
		return stall(fd, argv[3], atoi(argv[4]));
	if (argc == 4 && !strcmp(argv[1], "rights"))
		return rights(fd, atoi(argv[3]));
	if (argc == 4 && !strcmp(argv[1], "nomax"))
		return nomax(fd, atoi(argv[3]));
	if (argc == 3 && !strcmp(argv[1], "oops"))
		return oops(fd, argv[2]);
	if (argc == 3 && !strcmp(argv[1], "oops1")) {
		struct waiter_call w = { .fd = fd };

		w.r.ctl_fd = open(argv[2], O_RDWR);
		waiter_call(&w);
		return 1;
	}
	if (argc == 4 && !strcmp(argv[1], "waiters"))
		return waiters(fd, argv[2], atoi(argv[3]));
	if (argc == 4 && !strcmp(argv[1], "osdesc"))
		return osdesc(fd, argv[3]);
	if (argc == 5 && !strcmp(argv[1], "grow"))
		return grow(fd, argv[2], atoi(argv[3]), argv[4]);
	if (argc == 4 && !strcmp(argv[1], "uffdwp"))
		return uffdwp(fd, atoi(argv[3]));
	if (argc == 4 && !strcmp(argv[1], "lowstall"))
		return lowstall(fd, atoi(argv[3]));
	if (argc == 4 && !strcmp(argv[1], "nomaxpar"))
		return nomaxpar(fd, atoi(argv[3]));
	if (argc == 4 && !strcmp(argv[1], "nomaxprocs"))
		return nomaxprocs(fd, atoi(argv[3]));
	if (argc == 4 && !strcmp(argv[1], "areapayload"))
		return areapayload(fd, atoi(argv[3]));
	if (argc == 4 && !strcmp(argv[1], "sealrace"))
		return sealrace(argv[2], atoi(argv[3]));
	if (argc == 5 && !strcmp(argv[1], "parked"))
		return parked(fd, atoi(argv[3]), atoi(argv[4]));
usage:
	fprintf(stderr, "usage: bouncev2 lowpages CTL CALLS | areawrite CTL CALLS [THREADS] | stall CTL CAPS_FILE MS | rights CTL MS | nomax CTL MS | grow CTL WANT STATE | osdesc CTL GPU | waiters CTL MS | oops CTL | oops1 CTL | lockwait CTL UVM MS | lockstall KIND CTL GPU UVM MS | uffdwp CTL CALLS | lowstall CTL MS | sealrace CTL TRIALS | parked CTL THREADS ROUNDS | nomaxpar CTL THREADS | nomaxprocs CTL PROCS | areapayload CTL ITER\n");
	return 2;
}
