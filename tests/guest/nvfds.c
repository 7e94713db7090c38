// SPDX-License-Identifier: GPL-2.0
/*
 * nvfds: no thread and no other process ever obtains a file of the driver
 * while fd-carrying calls run through the mediated nodes (80-hard-fds.sh).
 *
 *   nvfds --ctl P --gpu P --uvm P [--calls N] [--seconds S] [--scanners K]
 *         [--no-getfd] [--trace] [--no-gpu] [--answers]
 *
 * The main thread (the thread-group leader, so that /proc/self/fd and
 * pidfd_getfd() look at its fd table) issues N fd-carrying calls, round
 * robin over every fd path: REGISTER_FD, RM_ALLOC_MEMORY and RM_MAP_MEMORY
 * with their fd, device allocation (the driver walks the caller's table for
 * the GPU file), UVM_MM_INITIALIZE's uvmFd, UVM_REGISTER_GPU's rmCtrlFd,
 * the UVM commands with rmCtrlFd the stand-in does not implement, and
 * REGISTER_FD and RM_MAP_MEMORY inside NV_ESC_IOCTL_XFER_CMD.  Meanwhile:
 *
 *  - K scanner threads sweep every fd number up to the table size with
 *    fcntl(F_GETFD), fstat() and dup() + fstat(), and read every link of
 *    /proc/self/fd; a link naming the driver is opened (O_RDWR, then
 *    O_PATH, then the O_PATH file reopened through /proc);
 *  - a child process calls pidfd_getfd() on every fd number of this one.
 *
 * A file of the driver is a character device of major 195 or of
 * nvidia-uvm's major (read from /proc/devices), or a link naming
 * /dev/nvidia* or the driver's "nvidia" dentry.  A usable file obtained
 * (dup, pidfd_getfd, an O_RDWR open) is a violation; an O_PATH handle
 * (no file operations of the driver: it can neither issue calls nor be
 * reopened) is counted and reported separately, also when a sweep or the
 * child finds one that a scanner's own O_PATH open put in the table
 * (opath_seen; only kernels whose /proc shows the private table's links
 * as the driver's name make them).
 *
 * --no-gpu (NVIDIA's driver with no GPU, 95-real.sh): no GPU node; the paths
 * that need none instead: REGISTER_FD of a second control file, OS events
 * allocated and freed with an fd, RM_ALLOC_MEMORY and RM_MAP_MEMORY with
 * their fd (no device to allocate or map on), both
 * UVM_MM_INITIALIZE cases, the UVM commands with rmCtrlFd, REGISTER_FD and
 * RM_MAP_MEMORY inside NV_ESC_IOCTL_XFER_CMD, and the NV0000 controls that
 * export and import objects through a control file's fd.  RM_ALLOC_MEMORY
 * is made on the control node there, which the driver refuses (it takes it
 * on a GPU node only): the answers still compare.
 * --answers: after the counts, one line per path and answer, "answer PATH
 * ret=R status=S xN", for comparing a run on the driver's own nodes with one
 * through the mediated nodes (with --scanners 0 --no-getfd: the driver's
 * files are in the table by design there).
 * --trace: each call's number and path on stderr before it is made.
 * --seconds: stop calling after S seconds (the counts are printed, and the
 * exit status says the run was cut short).
 *
 * Output: one line of counts; each violation on its own line.  Exit status
 * 0 iff no violation, every setup step worked and all N calls were made.
 */
#define _GNU_SOURCE
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <signal.h>
#include <stdarg.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/sysmacros.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "../nvidia-abi/nvdrv.h"

#ifndef SYS_pidfd_open
#define SYS_pidfd_open 434
#endif
#ifndef SYS_pidfd_getfd
#define SYS_pidfd_getfd 438
#endif

#define H_DEV	0xfd000001u
#define H_SUB	0xfd000002u
#define H_MEM	0xfd000003u
#define NVOS02_FLAGS_NO_MAP	0x40000000u

/* Counters shared with the pidfd_getfd child. */
struct shared {
	atomic_long getfds, getfd_hits, getfd_errs, getfd_opath;
	atomic_int stop;
	char what[256];
};

static int uvm_major = -1;
static atomic_int stop;
static atomic_long sweeps, fstats, dups, links, link_hits, opens_refused, opath, opath_seen;
static atomic_long violations;
static struct shared *sh;

static int drv_major(unsigned int maj)
{
	return maj == 195 || (uvm_major >= 0 && maj == (unsigned int)uvm_major);
}

static int is_driver_file(const struct stat *st)
{
	return S_ISCHR(st->st_mode) && drv_major(major(st->st_rdev));
}

/* An O_PATH handle: no file operation of the driver can be reached through it. */
static int is_opath(int fd)
{
	int fl = fcntl(fd, F_GETFL);

	return fl >= 0 && (fl & O_PATH);
}

static __attribute__((format(printf, 1, 2))) void violation(const char *fmt, ...)
{
	va_list ap;

	atomic_fetch_add(&violations, 1);
	flockfile(stdout);
	printf("VIOLATION ");
	va_start(ap, fmt);
	vprintf(fmt, ap);
	va_end(ap);
	printf("\n");
	fflush(stdout);
	funlockfile(stdout);
}

static int read_uvm_major(void)
{
	FILE *f = fopen("/proc/devices", "r");
	char line[128], name[64];
	int maj;

	if (!f)
		return -1;
	while (fgets(line, sizeof(line), f))
		if (sscanf(line, "%d %63s", &maj, name) == 2 && !strcmp(name, "nvidia-uvm")) {
			fclose(f);
			return maj;
		}
	fclose(f);
	return -1;
}

/* The size of this process's fd table, from /proc/self/status. */
static int fd_table_size(void)
{
	FILE *f = fopen("/proc/self/status", "r");
	char line[128];
	int n = 256;

	if (!f)
		return n;
	while (fgets(line, sizeof(line), f))
		if (sscanf(line, "FDSize: %d", &n) == 1)
			break;
	fclose(f);
	return n;
}

static int names_driver(const char *link)
{
	return strstr(link, "/dev/nvidia") || !strcmp(link, "/nvidia") ||
	       !strncmp(link, "/nvidia ", 8) || strstr(link, "nvidia-uvm");
}

static void scan_links(void)
{
	char path[300], link[256], again[64];
	struct dirent *de;
	struct stat st;
	DIR *d;

	d = opendir("/proc/self/fd");
	if (!d)
		return;
	while ((de = readdir(d))) {
		ssize_t n;
		int fd, fd2;

		if (de->d_name[0] == '.')
			continue;
		snprintf(path, sizeof(path), "/proc/self/fd/%s", de->d_name);
		n = readlink(path, link, sizeof(link) - 1);
		if (n < 0)
			continue;
		link[n] = '\0';
		atomic_fetch_add(&links, 1);
		if (!names_driver(link))
			continue;
		atomic_fetch_add(&link_hits, 1);
		fd = open(path, O_RDWR | O_CLOEXEC);
		if (fd >= 0) {
			if (!fstat(fd, &st) && is_driver_file(&st))
				violation("open of %s gave a driver file (fd %d)", link, fd);
			close(fd);
		} else {
			atomic_fetch_add(&opens_refused, 1);
		}
		fd = open(path, O_PATH | O_CLOEXEC);
		if (fd < 0)
			continue;
		if (!fstat(fd, &st) && is_driver_file(&st)) {
			atomic_fetch_add(&opath, 1);
			snprintf(again, sizeof(again), "/proc/self/fd/%d", fd);
			fd2 = open(again, O_RDWR | O_CLOEXEC);
			if (fd2 >= 0) {
				violation("reopen of an O_PATH handle to %s gave a file (fd %d)",
					  link, fd2);
				close(fd2);
			}
		}
		close(fd);
	}
	closedir(d);
}

static void *scanner(void *arg)
{
	int max = fd_table_size();
	struct stat st;

	(void)arg;
	while (!atomic_load(&stop)) {
		int fd, d;

		for (fd = 0; fd < max; fd++) {
			if (fcntl(fd, F_GETFD) < 0)
				continue;
			/* The dup holds the file: fstat and F_GETFL see the same one. */
			d = dup(fd);
			if (d < 0)
				continue;
			atomic_fetch_add(&dups, 1);
			atomic_fetch_add(&fstats, 1);
			if (!fstat(d, &st) && is_driver_file(&st)) {
				if (is_opath(d))
					atomic_fetch_add(&opath_seen, 1);
				else
					violation("dup of fd %d: a usable driver file", fd);
			}
			close(d);
		}
		scan_links();
		atomic_fetch_add(&sweeps, 1);
	}
	return NULL;
}

/* The child: pidfd_getfd() on every fd number of the parent. */
static void getfd_child(pid_t parent)
{
	int pidfd = syscall(SYS_pidfd_open, parent, 0);
	int max = 1024;
	struct stat st;

	if (pidfd < 0) {
		snprintf(sh->what, sizeof(sh->what), "pidfd_open: %s", strerror(errno));
		_exit(1);
	}
	while (!atomic_load(&sh->stop)) {
		int fd, got;

		for (fd = 0; fd < max && !atomic_load(&sh->stop); fd++) {
			got = syscall(SYS_pidfd_getfd, pidfd, fd, 0);
			if (got < 0) {
				if (errno != EBADF)
					atomic_fetch_add(&sh->getfd_errs, 1);
				continue;
			}
			atomic_fetch_add(&sh->getfds, 1);
			if (!fstat(got, &st) && is_driver_file(&st)) {
				if (is_opath(got)) {
					atomic_fetch_add(&sh->getfd_opath, 1);
				} else {
					atomic_fetch_add(&sh->getfd_hits, 1);
					snprintf(sh->what, sizeof(sh->what),
						 "pidfd_getfd of fd %d gave a driver file (195/uvm major %u)",
						 fd, major(st.st_rdev));
				}
			}
			close(got);
		}
		max = 64;	/* the interesting numbers are low; sweep them faster */
	}
	_exit(0);
}

/* ---- the caller ---- */

static int ctl, ctl_map1, ctl_map2, ctl_reg, gpu = -1, uvm, uvm_mm, uvm_fresh;
static uint32_t client;
static int nogpu;

/* What each path was answered, (ret, status) pairs counted. */
#define NPATHS		16
#define NANSWERS	8
static struct answer {
	int ret;
	uint32_t status;
	long n;
} answers[NPATHS][NANSWERS];

static void answered(long i, int ret, uint32_t status)
{
	struct answer *a = answers[i % NPATHS];
	int k;

	for (k = 0; k < NANSWERS && a[k].n; k++)
		if (a[k].ret == ret && a[k].status == status)
			break;
	if (k == NANSWERS)
		k--;		/* folded into the last: tallies stay bounded */
	a[k].ret = ret;
	a[k].status = status;
	a[k].n++;
}
static uint8_t uuid[16];
static uint8_t *big;		/* payloads of UVM commands, 16 KiB */
static long calls, setup_failed;

static int nvioctl(int fd, unsigned int nr, void *arg, size_t size)
{
	return ioctl(fd, NV_IOC(nr, size), arg) < 0 ? -errno : 0;
}

static int xfer(int fd, unsigned int nr, void *arg, size_t size)
{
	struct nvd_xfer x = { .cmd = nr, .size = size, .ptr = (uintptr_t)arg };

	return nvioctl(fd, NV_ESC_IOCTL_XFER_CMD, &x, sizeof(x));
}

static void setup_fail(const char *what, int ret, uint32_t status)
{
	printf("setup: %s: ret=%d status=0x%x\n", what, ret, status);
	setup_failed++;
}

static uint32_t rm_alloc(uint32_t parent, uint32_t h, uint32_t hclass, void *params,
			 uint32_t psize)
{
	struct nvd_os64 a = { .hRoot = client, .hObjectParent = parent, .hObjectNew = h,
			    .hClass = hclass, .pAllocParms = (uintptr_t)params,
			    .paramsSize = psize };
	int ret = nvioctl(ctl, NV_ESC_RM_ALLOC, &a, sizeof(a));

	return ret ? 0xffffffffu : a.status;
}

static void rm_free(uint32_t h)
{
	struct nvd_os00 f = { .hRoot = client, .hObjectParent = client, .hObjectOld = h };

	nvioctl(ctl, NV_ESC_RM_FREE, &f, sizeof(f));
}

static int setup(void)
{
	struct nvd_os21 root = { .hClass = NV01_ROOT };
	struct nvd_register_fd r = { .ctl_fd = ctl };
	struct nvd_alloc_0080 dev = { .deviceId = 0 };
	struct nvd_alloc_2080 sub = { 0 };
	struct nvd_ctrl_gid_info gid = { .flags = 2 };
	struct nvd_os54 c = { 0 };
	struct nvd_uvm_initialize in = { 0 };
	uint32_t st;
	int ret;

	ret = nvioctl(ctl, NV_ESC_RM_ALLOC, &root, sizeof(root));
	client = root.hObjectNew;
	if (ret || root.status)
		return setup_fail("root client", ret, root.status), -1;
	if (nogpu) {
		ret = ioctl(uvm, UVM_INITIALIZE, &in) < 0 ? -errno : 0;
		if (ret || in.rmStatus)
			return setup_fail("uvm-initialize", ret, in.rmStatus), -1;
		return 0;
	}
	ret = nvioctl(gpu, NV_ESC_REGISTER_FD, &r, sizeof(r));
	if (ret)
		return setup_fail("register-fd", ret, 0), -1;
	st = rm_alloc(client, H_DEV, NV01_DEVICE_0, &dev, sizeof(dev));
	if (st)
		return setup_fail("device", 0, st), -1;
	st = rm_alloc(H_DEV, H_SUB, NV20_SUBDEVICE_0, &sub, sizeof(sub));
	if (st)
		return setup_fail("subdevice", 0, st), -1;
	c.hClient = client;
	c.hObject = H_SUB;
	c.cmd = NV2080_CTRL_CMD_GPU_GET_GID_INFO;
	c.params = (uintptr_t)&gid;
	c.paramsSize = sizeof(gid);
	ret = nvioctl(ctl, NV_ESC_RM_CONTROL, &c, sizeof(c));
	if (ret || c.status)
		return setup_fail("gid-info", ret, c.status), -1;
	memcpy(uuid, gid.data, 16);
	ret = ioctl(uvm, UVM_INITIALIZE, &in) < 0 ? -errno : 0;
	if (ret || in.rmStatus)
		return setup_fail("uvm-initialize", ret, in.rmStatus), -1;
	return 0;
}

/* One fd-carrying call; @i picks the path. */
static void fd_call(long i)
{
	switch (i % 12) {
	case 0: {	/* linked already after the first: the driver still resolves ctl_fd */
		struct nvd_register_fd r = { .ctl_fd = ctl };

		nvioctl(gpu, NV_ESC_REGISTER_FD, &r, sizeof(r));
		break;
	}
	case 1: {	/* memory with a mapping context on ctl_map1 (then: handle in use) */
		struct nvd_os02_fd m = { .hRoot = client, .hObjectParent = H_DEV,
				       .hObjectNew = H_MEM, .hClass = NV01_MEMORY_SYSTEM,
				       .limit = 4095, .fd = ctl_map1 };

		nvioctl(gpu, NV_ESC_RM_ALLOC_MEMORY, &m, sizeof(m));
		break;
	}
	case 2: {	/* mapping context on ctl_map2 (then: state in use) */
		struct nvd_os33_fd mp = { .hClient = client, .hDevice = H_DEV, .hMemory = H_MEM,
					.length = 4096, .fd = ctl_map2 };

		nvioctl(ctl, NV_ESC_RM_MAP_MEMORY, &mp, sizeof(mp));
		break;
	}
	case 3: {	/* device allocation: the driver walks the caller's table */
		struct nvd_alloc_0080 dev = { .deviceId = 0 };
		struct nvd_os64 a = { .hRoot = client, .hObjectParent = client,
				    .hClass = NV01_DEVICE_0, .pAllocParms = (uintptr_t)&dev,
				    .paramsSize = sizeof(dev) };

		if (!nvioctl(ctl, NV_ESC_RM_ALLOC, &a, sizeof(a)) && !a.status)
			rm_free(a.hObjectNew);
		break;
	}
	case 4: {	/* uvmFd of an uninitialised file: refused by the driver, stateless */
		struct nvd_uvm_mm_initialize mm = { .uvmFd = uvm_fresh };

		ioctl(uvm_mm, UVM_MM_INITIALIZE, &mm);
		break;
	}
	case 5: {	/* uvmFd of the va space: once, then in use */
		struct nvd_uvm_mm_initialize mm = { .uvmFd = uvm };

		ioctl(uvm_mm, UVM_MM_INITIALIZE, &mm);
		break;
	}
	case 6: {	/* register and unregister the GPU: rmCtrlFd and the GPU node */
		struct nvd_uvm_register_gpu rg = { .rmCtrlFd = ctl, .hClient = client };
		struct nvd_uvm_unregister_gpu ug;

		memcpy(rg.gpu_uuid, uuid, 16);
		if (!ioctl(uvm, UVM_REGISTER_GPU, &rg) && !rg.rmStatus) {
			memcpy(ug.gpu_uuid, uuid, 16);
			ioctl(uvm, UVM_UNREGISTER_GPU, &ug);
		}
		break;
	}
	case 7:		/* UVM_REGISTER_GPU_VASPACE.rmCtrlFd */
		memset(big, 0, 64);
		memcpy(big + 16, &ctl, 4);
		ioctl(uvm, 25, big);
		break;
	case 8:		/* UVM_REGISTER_CHANNEL.rmCtrlFd */
		memset(big, 0, 64);
		memcpy(big + 16, &ctl, 4);
		ioctl(uvm, 27, big);
		break;
	case 9:		/* UVM_ALLOC_DEVICE_P2P.rmCtrlFd */
		memset(big, 0, 64);
		memcpy(big + 40, &ctl, 4);
		ioctl(uvm, 78, big);
		break;
	case 10: {
		struct nvd_register_fd r = { .ctl_fd = ctl };

		xfer(gpu, NV_ESC_REGISTER_FD, &r, sizeof(r));
		break;
	}
	case 11: {
		struct nvd_os33_fd mp = { .hClient = client, .hDevice = H_DEV, .hMemory = H_MEM,
					.length = 4096, .fd = ctl_map2 };

		xfer(ctl, NV_ESC_RM_MAP_MEMORY, &mp, sizeof(mp));
		break;
	}
	}
	calls++;
}

/* One fd-carrying call that needs no GPU; @i picks the path. */
static void fd_call_nogpu(long i)
{
	int ret = 0;
	uint32_t st = 0;

	switch (i % NPATHS) {
	case 0:		/* a second control file linked to the first, */
	case 11: {	/* and inside XFER */
		struct nvd_register_fd r = { .ctl_fd = ctl };

		ret = i % NPATHS == 0 ? nvioctl(ctl_reg, NV_ESC_REGISTER_FD, &r, sizeof(r)) :
					xfer(ctl_reg, NV_ESC_REGISTER_FD, &r, sizeof(r));
		break;
	}
	case 1:		/* an OS event keyed by a control file's fd, then freed */
	case 2: {
		struct nvd_os_event e = { .hClient = client, .hDevice = client, .fd = ctl_map1 };

		ret = nvioctl(ctl, i % NPATHS == 1 ? NV_ESC_ALLOC_OS_EVENT : NV_ESC_FREE_OS_EVENT,
			      &e, sizeof(e));
		st = e.Status;
		break;
	}
	case 3: {	/* memory with a mapping context, on the control node */
		struct nvd_os02_fd m = { .hRoot = client, .hObjectParent = client,
				       .hObjectNew = H_MEM, .hClass = NV01_MEMORY_SYSTEM,
				       .limit = 4095, .fd = ctl_map1 };

		ret = nvioctl(ctl, NV_ESC_RM_ALLOC_MEMORY, &m, sizeof(m));
		st = m.status;
		break;
	}
	case 4:		/* a mapping context, directly and inside XFER */
	case 12: {
		struct nvd_os33_fd mp = { .hClient = client, .hDevice = client, .hMemory = H_MEM,
					.length = 4096, .fd = ctl_map2 };

		ret = i % NPATHS == 4 ? nvioctl(ctl, NV_ESC_RM_MAP_MEMORY, &mp, sizeof(mp)) :
					xfer(ctl, NV_ESC_RM_MAP_MEMORY, &mp, sizeof(mp));
		st = mp.status;
		break;
	}
	case 5:		/* uvmFd of an uninitialised file, then of the va space */
	case 6: {
		struct nvd_uvm_mm_initialize mm = { .uvmFd = i % NPATHS == 5 ? uvm_fresh : uvm };

		ret = ioctl(uvm_mm, UVM_MM_INITIALIZE, &mm) < 0 ? -errno : 0;
		st = mm.rmStatus;
		break;
	}
	case 7: {	/* a GPU that is not there, with rmCtrlFd */
		struct nvd_uvm_register_gpu rg = { .rmCtrlFd = ctl, .hClient = client };

		ret = ioctl(uvm, UVM_REGISTER_GPU, &rg) < 0 ? -errno : 0;
		st = rg.rmStatus;
		break;
	}
	case 8:		/* UVM_REGISTER_GPU_VASPACE, UVM_REGISTER_CHANNEL and */
	case 9:		/* UVM_ALLOC_DEVICE_P2P: rmCtrlFd */
	case 10:
		memset(big, 0, 64);
		memcpy(big + (i % NPATHS == 10 ? 40 : 16), &ctl, 4);
		ret = ioctl(uvm, i % NPATHS == 8 ? 25 : i % NPATHS == 9 ? 27 : 78, big) < 0 ?
		      -errno : 0;
		break;
	case 13:	/* NV0000 OS_UNIX_EXPORT_OBJECT_TO_FD, IMPORT_OBJECT_FROM_FD */
	case 14:	/* and EXPORT_OBJECTS_TO_FD (sizes alike in every release): */
	case 15: {	/* the fd field at 16, 0 and 0 */
		static const uint32_t cmd[] = { 0x3d05, 0x3d06, 0x3d0b };
		static const uint32_t size[] = { 24, 20, 2128 };
		static const uint32_t at[] = { 16, 0, 0 };
		unsigned int k = i % NPATHS - 13;
		struct nvd_os54 c = { .hClient = client, .hObject = client, .cmd = cmd[k],
				    .params = (uintptr_t)big, .paramsSize = size[k] };

		memset(big, 0, size[k]);
		memcpy(big + at[k], &ctl_map1, 4);
		ret = nvioctl(ctl, NV_ESC_RM_CONTROL, &c, sizeof(c));
		st = c.status;
		break;
	}
	}
	answered(i, ret, st);
	calls++;
}

static int open_node(const char *path)
{
	int fd = open(path, O_RDWR | O_CLOEXEC);

	if (fd < 0) {
		printf("setup: open %s: %s\n", path, strerror(errno));
		exit(2);
	}
	return fd;
}

int main(int argc, char **argv)
{
	const char *pctl = "/dev/nvproxy", *pgpu = "/dev/nvproxy0", *puvm = "/dev/nvproxy-uvm";
	long n = 100000, secs = 0, i;
	time_t t0;
	int nscan = 2, getfd = 1, trace = 0, show = 0, k, status = 0;
	pthread_t th[8];
	pid_t child = -1;
	void *mem;

	for (k = 1; k < argc; k++) {
		if (!strcmp(argv[k], "--ctl") && k + 1 < argc)
			pctl = argv[++k];
		else if (!strcmp(argv[k], "--gpu") && k + 1 < argc)
			pgpu = argv[++k];
		else if (!strcmp(argv[k], "--uvm") && k + 1 < argc)
			puvm = argv[++k];
		else if (!strcmp(argv[k], "--calls") && k + 1 < argc)
			n = atol(argv[++k]);
		else if (!strcmp(argv[k], "--scanners") && k + 1 < argc)
			nscan = atoi(argv[++k]);
		else if (!strcmp(argv[k], "--seconds") && k + 1 < argc)
			secs = atol(argv[++k]);
		else if (!strcmp(argv[k], "--trace"))
			trace = 1;
		else if (!strcmp(argv[k], "--no-getfd"))
			getfd = 0;
		else if (!strcmp(argv[k], "--no-gpu"))
			nogpu = 1;
		else if (!strcmp(argv[k], "--answers"))
			show = 1;
		else {
			fprintf(stderr, "usage: nvfds [--ctl P --gpu P --uvm P] [--calls N] [--seconds S] [--scanners K] [--no-getfd] [--trace] [--no-gpu] [--answers]\n");
			return 2;
		}
	}
	if (nscan < 0 || nscan > 8)
		nscan = 2;
	uvm_major = read_uvm_major();
	big = aligned_alloc(4096, 16384);
	sh = mmap(NULL, sizeof(*sh), PROT_READ | PROT_WRITE, MAP_SHARED | MAP_ANONYMOUS, -1, 0);
	if (!big || sh == MAP_FAILED)
		return 2;

	ctl = open_node(pctl);
	ctl_map1 = open_node(pctl);
	ctl_map2 = open_node(pctl);
	if (!nogpu)
		gpu = open_node(pgpu);
	ctl_reg = open_node(pctl);
	uvm = open_node(puvm);
	uvm_mm = open_node(puvm);
	uvm_fresh = open_node(puvm);
	if (setup())
		return 1;

	if (getfd) {
		pid_t parent = getpid();

		child = fork();
		if (child == 0)
			getfd_child(parent);
	}
	for (k = 0; k < nscan; k++)
		pthread_create(&th[k], NULL, scanner, NULL);

	t0 = time(NULL);
	for (i = 0; i < n; i++) {
		if (trace)
			fprintf(stderr, "call %ld path %ld\n", i, i % (nogpu ? NPATHS : 12));
		if (nogpu)
			fd_call_nogpu(i);
		else
			fd_call(i);
		if (secs && (i & 1023) == 0 && time(NULL) - t0 >= secs) {
			printf("stopped after %ld s: the time limit\n", secs);
			status = 1;
			break;
		}
	}

	/* The mapping made through ctl_map1 works: the real fd path was used. */
	mem = nogpu ? NULL : mmap(NULL, 4096, PROT_READ | PROT_WRITE, MAP_SHARED, ctl_map1, 0);
	if (nogpu) {
		;
	} else if (mem == MAP_FAILED) {
		printf("mmap of the memory allocated with fd=ctl_map1: %s\n", strerror(errno));
		status = 1;
	} else {
		memset(mem, 0x5a, 4096);
		munmap(mem, 4096);
	}

	atomic_store(&stop, 1);
	for (k = 0; k < nscan; k++)
		pthread_join(th[k], NULL);
	if (child > 0) {
		atomic_store(&sh->stop, 1);
		waitpid(child, &k, 0);
		if (!WIFEXITED(k) || WEXITSTATUS(k)) {
			printf("getfd child failed: %s\n", sh->what);
			status = 1;
		}
		if (atomic_load(&sh->getfd_hits)) {
			printf("VIOLATION %s (%ld times)\n", sh->what,
			       atomic_load(&sh->getfd_hits));
			atomic_fetch_add(&violations, atomic_load(&sh->getfd_hits));
		}
	}
	printf("calls=%ld sweeps=%ld fstats=%ld dups=%ld links=%ld link_hits=%ld opens_refused=%ld opath=%ld opath_seen=%ld getfds=%ld getfd_opath=%ld getfd_errors=%ld violations=%ld uvm_major=%d\n",
	       calls, atomic_load(&sweeps), atomic_load(&fstats), atomic_load(&dups),
	       atomic_load(&links), atomic_load(&link_hits), atomic_load(&opens_refused),
	       atomic_load(&opath), atomic_load(&opath_seen), atomic_load(&sh->getfds),
	       atomic_load(&sh->getfd_opath), atomic_load(&sh->getfd_errs),
	       atomic_load(&violations), uvm_major);
	for (i = 0; show && i < NPATHS; i++)
		for (k = 0; k < NANSWERS && answers[i][k].n; k++)
			printf("answer %ld ret=%d status=0x%x x%ld\n", i, answers[i][k].ret,
			       answers[i][k].status, answers[i][k].n);
	return status || atomic_load(&violations) || setup_failed;
}
