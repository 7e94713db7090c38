// SPDX-License-Identifier: GPL-2.0
/*
 * fusehold: how long a process can keep its own mmap lock, and what waits
 * for it, with and without an fd-carrying call of nvmediate's in flight.
 *
 *   fusehold CTL DIR MS
 *	Mounts a FUSE file system of its own at DIR (one file, "f"), served
 *	by a thread of this process that answers every request but a read,
 *	which it holds until MS milliseconds after the start.  Then:
 *	  - a thread makes a device allocation on CTL (a root client's
 *	    NV01_DEVICE_0 with its class params in ordinary memory): a call
 *	    made with a private fd table, so with this process's
 *	    exec_update_lock held for writing; the caller sets the stand-in's
 *	    ioctl_delay_ms to 500, so that the driver writes its answer back
 *	    500 ms in;
 *	  - 100 ms in, a thread reads this process's /proc/self/mem at a
 *	    mapped page of the FUSE file: the read faults the page in with
 *	    the mmap lock held for reading, and waits for the held read;
 *	  - 300 ms in, a thread maps memory: a writer queued on the mmap lock,
 *	    which new readers (a fault among them) now wait behind;
 *	  - 700 ms in, two other processes read this process's /proc/PID/io
 *	    (which waits on exec_update_lock only) and /proc/PID/maps (which
 *	    waits on the mmap lock too).
 *	Prints "fusehold: ret=N call_ms=N io_wait_ms=N maps_wait_ms=N
 *	mem_ms=N": the call's answer (0 or -errno), when it returned, how
 *	long each read waited, and when the read of the FUSE page returned.
 *	Exit status 2 when the set-up failed (no FUSE, say).
 *
 * The FUSE protocol is spoken directly on /dev/fuse (<linux/fuse.h>), so
 * the program stays static and needs no library.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <linux/fuse.h>
#include <pthread.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/mman.h>
#include <sys/mount.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "../nvidia-abi/nvdrv.h"

#define FILE_SIZE	8192

static long t0;
static volatile long hold_until;

static long now_ms(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec * 1000 + ts.tv_nsec / 1000000;
}

static void sleep_until(long at)
{
	long left = at - now_ms();

	if (left > 0)
		usleep(left * 1000);
}

/*
 * What the server touches during the run, touched before it (main()), and
 * after the last fork: a fault of the server's would wait on the mmap lock
 * like the others, and then nothing would ever give the held page (Debian
 * 12's 6.1 takes the lock for every fault; 6.12 not for anonymous memory).
 */
static struct {
	struct fuse_out_header h;
	char arg[FILE_SIZE];
} out;
static char in_buf[FUSE_MIN_READ_BUFFER + FILE_SIZE];
static char data[FILE_SIZE];

static void fuse_reply(int fd, uint64_t unique, int error, const void *arg, size_t len)
{
	out.h.len = sizeof(out.h) + len;
	out.h.error = error;
	out.h.unique = unique;
	if (len)
		memcpy(out.arg, arg, len);
	if (write(fd, &out, out.h.len) < 0 && errno != ENOENT)
		perror("fuse reply");
}

static void fuse_fill_attr(struct fuse_attr *a, uint64_t node)
{
	memset(a, 0, sizeof(*a));
	a->ino = node;
	a->nlink = 1;
	a->blksize = 4096;
	if (node == FUSE_ROOT_ID) {
		a->mode = S_IFDIR | 0755;
	} else {
		a->mode = S_IFREG | 0644;
		a->size = FILE_SIZE;
		a->blocks = FILE_SIZE / 512;
	}
}

/* The server's stack, as deep as it goes, faulted in before the run. */
static void __attribute__((noinline)) touch_stack(void)
{
	volatile char pad[64 << 10];
	size_t i;

	for (i = 0; i < sizeof(pad); i += 4096)
		pad[i] = 0;
}

/* One file, "f", whose reads are answered only once the hold is over. */
static void *fuse_serve(void *arg)
{
	char *buf = in_buf;
	int fd = *(int *)arg;

	touch_stack();

	for (;;) {
		struct fuse_in_header *in = (void *)buf;
		void *body = buf + sizeof(*in);
		ssize_t n = read(fd, buf, sizeof(in_buf));

		if (n < 0 && (errno == EINTR || errno == ENOENT))
			continue;
		if (n < (ssize_t)sizeof(*in))
			return NULL;	/* unmounted */
		switch (in->opcode) {
		case FUSE_INIT: {
			struct fuse_init_in *ii = body;
			struct fuse_init_out o = {
				.major = FUSE_KERNEL_VERSION,
				.minor = ii->minor < FUSE_KERNEL_MINOR_VERSION ? ii->minor :
					 FUSE_KERNEL_MINOR_VERSION,
				.max_write = 4096,
			};

			fuse_reply(fd, in->unique, 0, &o, sizeof(o));
			break;
		}
		case FUSE_LOOKUP: {
			struct fuse_entry_out o = { .nodeid = 2, .attr_valid = 60, .entry_valid = 60 };

			if (in->nodeid != FUSE_ROOT_ID || strcmp(body, "f")) {
				fuse_reply(fd, in->unique, -ENOENT, NULL, 0);
				break;
			}
			fuse_fill_attr(&o.attr, 2);
			fuse_reply(fd, in->unique, 0, &o, sizeof(o));
			break;
		}
		case FUSE_GETATTR: {
			struct fuse_attr_out o = { .attr_valid = 60 };

			fuse_fill_attr(&o.attr, in->nodeid);
			fuse_reply(fd, in->unique, 0, &o, sizeof(o));
			break;
		}
		case FUSE_OPEN:
		case FUSE_OPENDIR: {
			struct fuse_open_out o = { .fh = 1 };

			fuse_reply(fd, in->unique, 0, &o, sizeof(o));
			break;
		}
		case FUSE_READ: {
			struct fuse_read_in *r = body;
			size_t len = r->offset >= FILE_SIZE ? 0 : FILE_SIZE - r->offset;

			if (len > r->size)
				len = r->size;
			/* Answered once the hold is over (at once before the run). */
			if (hold_until)
				sleep_until(hold_until);
			fuse_reply(fd, in->unique, 0, data, len);
			break;
		}
		case FUSE_FORGET:
		case FUSE_BATCH_FORGET:
		case FUSE_INTERRUPT:
			break;
		case FUSE_FLUSH:
		case FUSE_RELEASE:
		case FUSE_RELEASEDIR:
			fuse_reply(fd, in->unique, 0, NULL, 0);
			break;
		default:
			fuse_reply(fd, in->unique, -ENOSYS, NULL, 0);
			break;
		}
	}
}

struct run {
	int ctl;
	uint32_t client;
	struct nvd_alloc_0080 params;
	int ret;
	long done_ms;
	char *page;
	long mem_ms;
};

static void *do_call(void *arg)
{
	struct run *r = arg;
	struct nvd_os21 a = { .hRoot = r->client, .hObjectParent = r->client,
			    .hObjectNew = 0xcafe0001, .hClass = NV01_DEVICE_0,
			    .pAllocParms = (uintptr_t)&r->params,
			    .paramsSize = sizeof(r->params) };

	r->ret = ioctl(r->ctl, NV_IOC(NV_ESC_RM_ALLOC, sizeof(a)), &a) ? -errno : 0;
	r->done_ms = now_ms();
	return NULL;
}

/* Holds the mmap lock for reading while the FUSE page is read. */
static void *do_mem_read(void *arg)
{
	struct run *r = arg;
	char c;
	int fd = open("/proc/self/mem", O_RDONLY);

	sleep_until(t0 + 100);
	if (fd < 0 || pread(fd, &c, 1, (uintptr_t)r->page) != 1)
		perror("read /proc/self/mem");
	r->mem_ms = now_ms() - t0;
	close(fd);
	return NULL;
}

/* A writer queued on the mmap lock. */
static void *do_map(void *arg)
{
	void *p;

	(void)arg;
	sleep_until(t0 + 300);
	p = mmap(NULL, 4096, PROT_READ, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	if (p != MAP_FAILED)
		munmap(p, 4096);
	return NULL;
}

/*
 * Another process: how long a read of /proc/PPID/@what waits, 700 ms after
 * the start, which it reads from @go.  Forked before anything else: a fork
 * makes the parent's memory copy-on-write, and a write of the server's
 * after it would fault, and wait on the mmap lock (see out).
 */
static pid_t monitor(const char *what, int go, int wfd)
{
	pid_t child = fork();

	if (child == 0) {
		char name[64], buf[4096];
		long t[2];
		int fd;

		if (read(go, &t0, sizeof(t0)) != sizeof(t0))
			_exit(1);
		snprintf(name, sizeof(name), "/proc/%d/%s", getppid(), what);
		sleep_until(t0 + 700);
		t[0] = now_ms();
		fd = open(name, O_RDONLY);
		if (fd >= 0)
			while (read(fd, buf, sizeof(buf)) > 0)
				;
		t[1] = now_ms();
		if (write(wfd, t, sizeof(t)) != sizeof(t))
			_exit(1);
		_exit(fd >= 0 ? 0 : 1);
	}
	return child;
}

int main(int argc, char **argv)
{
	struct nvd_os21 a = { .hClass = NV01_ROOT };
	struct run r = { 0 };
	pthread_t srv, call, mem, map;
	int fuse, pio[2], pmaps[2], pgo[2], f;
	long tio[2] = { -1, -1 }, tmaps[2] = { -1, -1 };
	pid_t mio, mmaps;
	char opts[128], file[256];

	if (argc != 4) {
		fprintf(stderr, "usage: fusehold CTL DIR MS\n");
		return 2;
	}
	if (pipe(pio) || pipe(pmaps) || pipe(pgo)) {
		perror("pipe");
		return 2;
	}
	mio = monitor("io", pgo[0], pio[1]);
	mmaps = monitor("maps", pgo[0], pmaps[1]);
	memset(&out, 0, sizeof(out));
	memset(in_buf, 0, sizeof(in_buf));
	memset(data, 'n', sizeof(data));
	r.ctl = open(argv[1], O_RDWR);
	if (r.ctl < 0 || ioctl(r.ctl, NV_IOC(NV_ESC_RM_ALLOC, sizeof(a)), &a) || a.status) {
		perror("root client");
		return 2;
	}
	r.client = a.hObjectNew;
	fuse = open("/dev/fuse", O_RDWR);
	if (fuse < 0) {
		perror("/dev/fuse");
		return 2;
	}
	snprintf(opts, sizeof(opts), "fd=%d,rootmode=40000,user_id=0,group_id=0", fuse);
	mkdir(argv[2], 0755);
	if (mount("fusehold", argv[2], "fuse", MS_NOSUID | MS_NODEV, opts)) {
		perror("mount fuse");
		return 2;
	}
	pthread_create(&srv, NULL, fuse_serve, &fuse);
	snprintf(file, sizeof(file), "%s/f", argv[2]);
	f = open(file, O_RDONLY);
	r.page = f < 0 ? MAP_FAILED : mmap(NULL, FILE_SIZE, PROT_READ, MAP_SHARED, f, 0);
	if (r.page == MAP_FAILED) {
		perror("open and map the FUSE file");
		umount2(argv[2], MNT_DETACH);
		return 2;
	}
	/* Everything that maps memory (stacks) before the run. */
	t0 = now_ms() + 200;
	hold_until = t0 + atoi(argv[3]);
	if (write(pgo[1], &t0, sizeof(t0)) != sizeof(t0) ||
	    write(pgo[1], &t0, sizeof(t0)) != sizeof(t0))
		return 2;
	pthread_create(&mem, NULL, do_mem_read, &r);
	pthread_create(&map, NULL, do_map, &r);
	sleep_until(t0);
	pthread_create(&call, NULL, do_call, &r);
	pthread_join(call, NULL);
	pthread_join(mem, NULL);
	pthread_join(map, NULL);
	if (read(pio[0], tio, sizeof(tio)) != sizeof(tio))
		tio[0] = tio[1] = -1;
	if (read(pmaps[0], tmaps, sizeof(tmaps)) != sizeof(tmaps))
		tmaps[0] = tmaps[1] = -1;
	waitpid(mio, NULL, 0);
	waitpid(mmaps, NULL, 0);
	printf("fusehold: ret=%d call_ms=%ld io_wait_ms=%ld maps_wait_ms=%ld mem_ms=%ld\n",
	       r.ret, r.done_ms - t0, tio[1] - tio[0], tmaps[1] - tmaps[0], r.mem_ms);
	munmap(r.page, FILE_SIZE);
	close(f);
	umount2(argv[2], MNT_DETACH);
	return 0;
}
