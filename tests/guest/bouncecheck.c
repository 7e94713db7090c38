// SPDX-License-Identifier: GPL-2.0
/*
 * bouncecheck: what a process sees of nvmediate's payload bounce, and that
 * it cannot get around it.  Run without CAP_SYS_RAWIO (as a container).
 *
 * usage: bouncecheck low|sealed CTL_NODE [THREADS CALLS]
 *        bouncecheck race CTL_NODE        (low area only: unmap_race())
 *
 * Prints one line per check, "ok NAME" or "FAIL NAME: why", then
 * "bouncecheck: N ok, M failed"; exits 1 when any failed.  The checks:
 * RM_ALLOC of a client works and its handle reaches the caller; the area
 * is mapped (low: at 0x1000-0x10000; sealed: where the kernel put it,
 * marked sealed in /proc/self/smaps, 64 pages a slot, a slot per possible
 * CPU up to four); the caller cannot write it, map over
 * it, split, move or poke it; low: once unmapped it cannot put memory
 * there, and the next call maps a new area; sealed: it can neither
 * re-protect nor unmap it; a forked child gets an area of its own;
 * XFER-wrapped calls work; THREADS threads making CALLS calls each all
 * succeed.  "race": calls made while the low area is unmapped under them,
 * over and over, all return, answered or refused with EFAULT or EPERM
 * (unmap_race()).
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <setjmp.h>
#include <signal.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/mman.h>
#include <sys/wait.h>
#include <unistd.h>

#include "../nvidia-abi/nvdrv.h"

#define LOW_START	0x1000UL
#define LOW_END		0x10000UL

static int nok, nfailed;
static const char *ctl_path;

static void result(const char *name, int ok, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));

static void result(const char *name, int ok, const char *fmt, ...)
{
	va_list ap;

	if (ok) {
		printf("ok %s\n", name);
		nok++;
		return;
	}
	printf("FAIL %s: ", name);
	va_start(ap, fmt);
	vprintf(fmt, ap);
	va_end(ap);
	printf("\n");
	nfailed++;
}

/* The line of /proc/self/maps that names the area, or "" */
static void area_line(char *out, size_t len)
{
	char line[512];
	FILE *f = fopen("/proc/self/maps", "r");

	out[0] = 0;
	if (!f)
		return;
	while (fgets(line, sizeof(line), f))
		if (strstr(line, "nvmediate-bounce")) {
			line[strcspn(line, "\n")] = 0;
			snprintf(out, len, "%s", line);
			break;
		}
	fclose(f);
}

/*
 * Pages a sealed area should have: 64 per slot, a slot per possible CPU up
 * to four, rounded down to a power of two (docs/design.md section 5).
 */
static unsigned long sealed_pages(void)
{
	FILE *f = fopen("/sys/devices/system/cpu/possible", "r");
	unsigned long slots = 1;
	char buf[128], *last;

	if (f && fgets(buf, sizeof(buf), f)) {
		last = strrchr(buf, '-');
		if (!last || strrchr(buf, ',') > last)
			last = strrchr(buf, ',');
		slots = strtoul(last ? last + 1 : buf, NULL, 10) + 1;
	}
	if (f)
		fclose(f);
	slots = slots >= 4 ? 4 : slots >= 2 ? 2 : 1;
	return 64 * slots;
}

/*
 * The area's range from its maps line and whether smaps marks it sealed
 * ("sl" in VmFlags); 0 when found.
 */
static int area_range(unsigned long *start, unsigned long *end, int *sealed)
{
	char line[512];
	FILE *f = fopen("/proc/self/smaps", "r");
	int in = 0, found = 0;

	*sealed = 0;
	if (!f)
		return -1;
	while (fgets(line, sizeof(line), f)) {
		if (strstr(line, "nvmediate-bounce") &&
		    sscanf(line, "%lx-%lx", start, end) == 2) {
			in = found = 1;
			continue;
		}
		if (in && !strncmp(line, "VmFlags:", 8)) {
			*sealed = strstr(line, " sl") != NULL;
			break;
		}
	}
	fclose(f);
	return found ? 0 : -1;
}

/* RM_ALLOC of a client, then RM_FREE; 0 when both worked. */
static int client_cycle(int fd, int xfer, uint32_t *handle)
{
	struct nvd_os21 a = { .hClass = NV01_ROOT };
	struct nvd_os00 f = { 0 };
	struct nvd_xfer x = { .cmd = NV_ESC_RM_ALLOC, .size = sizeof(a),
			     .ptr = (uintptr_t)&a };
	int ret;

	if (xfer)
		ret = ioctl(fd, NV_IOC(NV_ESC_IOCTL_XFER_CMD, sizeof(x)), &x);
	else
		ret = ioctl(fd, NV_IOC(NV_ESC_RM_ALLOC, sizeof(a)), &a);
	if (ret || a.status != NV_OK || !a.hObjectNew)
		return -1;
	if (handle)
		*handle = a.hObjectNew;
	f.hRoot = a.hObjectNew;
	f.hObjectOld = a.hObjectNew;
	ret = ioctl(fd, NV_IOC(NV_ESC_RM_FREE, sizeof(f)), &f);
	return ret || f.status != NV_OK ? -1 : 0;
}

static sigjmp_buf segv_jmp;

static void on_segv(int sig)
{
	siglongjmp(segv_jmp, sig);
}

/* Does a user write to @addr fault?  1 yes, 0 no. */
static int write_faults(volatile char *addr)
{
	struct sigaction sa = { .sa_handler = on_segv }, old_segv, old_bus;
	int faulted;

	sigaction(SIGSEGV, &sa, &old_segv);
	sigaction(SIGBUS, &sa, &old_bus);
	if (sigsetjmp(segv_jmp, 1)) {
		faulted = 1;
	} else {
		*addr = 0x5a;
		faulted = 0;
	}
	sigaction(SIGSEGV, &old_segv, NULL);
	sigaction(SIGBUS, &old_bus, NULL);
	return faulted;
}

struct worker {
	pthread_t t;
	int fd;
	int calls;
	int failed;
};

static void *work(void *arg)
{
	struct worker *w = arg;
	int i;

	for (i = 0; i < w->calls; i++)
		if (client_cycle(w->fd, i & 1, NULL))
			w->failed++;
	return NULL;
}

/*
 * Low area: threads making bounced calls (an RM_FREE of a handle that does
 * not exist, which the driver answers in its status and which changes
 * nothing) while the area is unmapped under them, over and over.
 */
struct racer {
	pthread_t t;
	int fd;
	const int *stop;
	long ok, refused, other;
	int other_errno;
};

static void *race_work(void *arg)
{
	struct racer *r = arg;

	while (!__atomic_load_n(r->stop, __ATOMIC_RELAXED)) {
		struct nvd_os00 f = { .hRoot = 0xcafe0001, .hObjectOld = 0xcafe0001 };

		if (!ioctl(r->fd, NV_IOC(NV_ESC_RM_FREE, sizeof(f)), &f))
			r->ok++;
		else if (errno == EFAULT || errno == EPERM)
			r->refused++;
		else
			r->other++, r->other_errno = errno;
	}
	return NULL;
}

/*
 * 24 racers, more than the area has pages, against 40 unmaps of the area.  Each unmap takes a populated
 * mapping of nearly 4 MiB just above the area with it, so that the kernel spends
 * long between removing the area's VMA and closing it: a call woken, or
 * one making a new area, in between must be refused, not crash the kernel
 * or give a new area the old one's addresses while a driver may still
 * read them.  Every call returns; those the unmap hit fail with EFAULT (the
 * driver read no area) or EPERM (refused before it was called).
 */
static void unmap_race(int fd)
{
	enum { NRACERS = 24, ROUNDS = 40 };
	/* Up to a non-PIE binary's 4 MiB. */
	const unsigned long big = (4UL << 20) - LOW_END;
	struct racer r[NRACERS] = { 0 };
	long ok = 0, refused = 0, other = 0;
	int stop = 0, i, widened = 0, other_errno = 0;

	for (i = 0; i < NRACERS; i++) {
		r[i].fd = fd;
		r[i].stop = &stop;
		pthread_create(&r[i].t, NULL, race_work, &r[i]);
	}
	for (i = 0; i < ROUNDS; i++) {
		void *p = mmap((void *)LOW_END, big, PROT_READ | PROT_WRITE,
			       MAP_PRIVATE | MAP_ANONYMOUS | MAP_FIXED_NOREPLACE | MAP_POPULATE,
			       -1, 0);

		if (p == (void *)LOW_END)
			widened++;
		else if (!i)
			printf("unmap-race: no mapping at %#lx: %s\n", LOW_END,
			       p == MAP_FAILED ? strerror(errno) : "placed elsewhere");
		munmap((void *)LOW_START, LOW_END - LOW_START + (p == (void *)LOW_END ? big : 0));
		usleep(2000);
	}
	__atomic_store_n(&stop, 1, __ATOMIC_RELAXED);
	for (i = 0; i < NRACERS; i++) {
		pthread_join(r[i].t, NULL);
		ok += r[i].ok;
		refused += r[i].refused;
		other += r[i].other;
		if (r[i].other)
			other_errno = r[i].other_errno;
	}
	printf("unmap-race: rounds=%d widened=%d ok=%ld refused=%ld other=%ld\n", ROUNDS, widened,
	       ok, refused, other);
	result("unmap-race", ok > 0 && !other,
	       "%ld calls answered, %ld refused, %ld failed otherwise (last errno %d)", ok, refused,
	       other, other_errno);
	result("alloc-after-race", !client_cycle(fd, 0, NULL), "a call after the race failed");
}

int main(int argc, char **argv)
{
	int fd, threads = 8, calls = 500, i, memfd, status, want_sealed, sealed = 0;
	unsigned long start = 0, end = 0, len, start2 = 0, end2 = 0;
	char line[512];
	uint32_t handle = 0;
	void *p;
	pid_t pid;
	long r;

	if (argc == 3 && !strcmp(argv[1], "race")) {
		setvbuf(stdout, NULL, _IOLBF, 0);
		fd = open(argv[2], O_RDWR);
		if (fd < 0) {
			perror(argv[2]);
			return 2;
		}
		unmap_race(fd);
		close(fd);
		printf("bouncecheck: %d ok, %d failed\n", nok, nfailed);
		return nfailed ? 1 : 0;
	}
	if ((argc != 3 && argc != 5) || (strcmp(argv[1], "low") && strcmp(argv[1], "sealed"))) {
		fprintf(stderr, "usage: bouncecheck low|sealed CTL_NODE [THREADS CALLS]\n"
			"       bouncecheck race CTL_NODE\n");
		return 2;
	}
	want_sealed = !strcmp(argv[1], "sealed");
	ctl_path = argv[2];
	if (argc == 5) {
		threads = atoi(argv[3]);
		calls = atoi(argv[4]);
	}
	setvbuf(stdout, NULL, _IOLBF, 0);
	fd = open(ctl_path, O_RDWR);
	if (fd < 0) {
		perror(ctl_path);
		return 2;
	}

	area_line(line, sizeof(line));
	result("no-area-before-call", !line[0], "mapped before any call: %s", line);

	result("alloc-client", !client_cycle(fd, 0, &handle), "RM_ALLOC/RM_FREE of a client failed");
	result("handle-written-back", handle != 0, "the driver's handle did not reach the caller");

	area_line(line, sizeof(line));
	if (area_range(&start, &end, &sealed) || start >= end) {
		result("area-mapped", 0, "no area in /proc/self/smaps; maps says '%s'", line);
		printf("bouncecheck: %d ok, %d failed\n", nok, nfailed);
		return 1;
	}
	len = end - start;
	if (want_sealed) {
		result("area-mapped-sealed", sealed && start >= 0x10000,
		       "want a sealed area above 64 KiB, smaps says sealed=%d for '%s'", sealed, line);
		result("area-sealed-size", len == sealed_pages() * sysconf(_SC_PAGESIZE),
		       "want %lu pages (64 a CPU's slot), maps says '%s'", sealed_pages(), line);
	} else
		result("area-mapped", start == LOW_START && end == LOW_END && !sealed,
		       "want the area at 00001000-00010000, not sealed; maps says '%s' (sealed=%d)",
		       line, sealed);

	/*
	 * Between calls no page of the area is mapped (every page of it:
	 * 66-bounce-v2.sh; writes during a call: 81-hard-flip.sh).
	 */
	result("write-faults", write_faults((volatile char *)(end - 1)),
	       "a user write to the area's last page did not fault");

	memfd = open("/proc/self/mem", O_RDWR);
	if (memfd >= 0) {
		char c = 0x5a;

		r = pwrite(memfd, &c, 1, start);
		result("proc-mem-write-refused", r != 1, "/proc/self/mem wrote into the area");
		close(memfd);
	}

	p = mmap((void *)(start + 0x1000), 0x1000, PROT_READ | PROT_WRITE,
		 MAP_PRIVATE | MAP_ANONYMOUS | MAP_FIXED, -1, 0);
	result("map-over-refused", p == MAP_FAILED && (errno == EPERM || errno == EACCES),
	       "mmap MAP_FIXED over the area: %s", p == MAP_FAILED ? strerror(errno) : "mapped");
	if (p != MAP_FAILED)
		munmap(p, 0x1000);

	result("split-unmap-refused", munmap((void *)(start + 0x1000), 0x1000) != 0,
	       "unmapping one page of the area worked");
	result("split-mprotect-refused",
	       mprotect((void *)(start + 0x1000), 0x1000, PROT_READ) != 0,
	       "changing one page's protection worked");

	p = mremap((void *)start, len, len, MREMAP_MAYMOVE | MREMAP_FIXED,
		   (void *)0x7e0000000000UL);
	result("move-refused", p == MAP_FAILED, "mremap moved the area");

	if (want_sealed)
		result("mprotect-whole-refused",
		       mprotect((void *)start, len, PROT_NONE) != 0 && errno == EPERM,
		       "mprotect of the whole sealed area: %s", strerror(errno));
	else
		result("mprotect-whole", mprotect((void *)start, len, PROT_READ | PROT_WRITE) == 0,
		       "mprotect of the whole area: %s", strerror(errno));
	result("write-faults-after-mprotect", write_faults((volatile char *)(end - 1)),
	       "after mprotect, a user write did not fault");
	result("alloc-after-mprotect", !client_cycle(fd, 0, NULL), "a call after mprotect failed");

	if (want_sealed) {
		result("unmap-whole-refused", munmap((void *)start, len) != 0 && errno == EPERM,
		       "munmap of the whole sealed area: %s", strerror(errno));
		p = mmap((void *)start, len, PROT_READ | PROT_WRITE,
			 MAP_PRIVATE | MAP_ANONYMOUS | MAP_FIXED, -1, 0);
		result("map-over-whole-refused", p == MAP_FAILED,
		       "mapped memory of its own over the whole sealed area");
	} else {
		result("unmap-whole", munmap((void *)start, len) == 0,
		       "munmap of the whole area: %s", strerror(errno));
		p = mmap((void *)start, 0x1000, PROT_READ | PROT_WRITE,
			 MAP_PRIVATE | MAP_ANONYMOUS | MAP_FIXED, -1, 0);
		result("map-after-unmap-refused", p == MAP_FAILED,
		       "mapped memory of its own at the area's address");
	}
	result("alloc-after-unmap", !client_cycle(fd, 0, NULL), "a call after munmap failed");
	area_line(line, sizeof(line));
	result("area-remapped", !area_range(&start2, &end2, &sealed) && start2 == start &&
	       end2 == end && sealed == want_sealed,
	       "after munmap and a call, maps says '%s' (sealed=%d)", line, sealed);

	result("xfer-alloc", !client_cycle(fd, 1, NULL), "XFER-wrapped RM_ALLOC failed");

	pid = fork();
	if (pid == 0) {
		area_line(line, sizeof(line));
		if (line[0])
			_exit(3);
		if (client_cycle(fd, 0, NULL))
			_exit(4);
		area_line(line, sizeof(line));
		_exit(line[0] ? 0 : 5);
	}
	waitpid(pid, &status, 0);
	result("fork-own-area", WIFEXITED(status) && WEXITSTATUS(status) == 0,
	       "child: status %d (3 inherited the area, 4 call failed, 5 no area of its own)",
	       WIFEXITED(status) ? WEXITSTATUS(status) : -1);

	{
		struct worker *w = calloc(threads, sizeof(*w));
		int failed = 0;

		for (i = 0; i < threads; i++) {
			w[i].fd = fd;
			w[i].calls = calls;
			pthread_create(&w[i].t, NULL, work, &w[i]);
		}
		for (i = 0; i < threads; i++) {
			pthread_join(w[i].t, NULL);
			failed += w[i].failed;
		}
		result("threads", !failed, "%d of %d client alloc/free cycles failed", failed,
		       threads * calls);
		free(w);
	}

	close(fd);
	printf("bouncecheck: %d ok, %d failed\n", nok, nfailed);
	return nfailed ? 1 : 0;
}
