// SPDX-License-Identifier: GPL-2.0
/*
 * nvtrace: an LD_PRELOAD shim that records the ioctls a program makes on
 * NVIDIA device nodes, one line per call, for tests/gpu/run.sh and the
 * fixtures in tests/gpu/fixtures/.
 *
 *   gcc -shared -fPIC -O2 -o nvtrace.so nvtrace.c -ldl
 *   NVTRACE_OUT=FILE LD_PRELOAD=/path/to/nvtrace.so PROGRAM [ARGS...]
 *
 * It needs no privilege.  Each ioctl() the program makes through the C
 * library is passed on unchanged; when its fd is a character device whose
 * path (/proc/self/fd/N) is one of the driver's nodes or nvmediate's, a line
 * is appended to FILE after the call.  The line format (tests/gpu/README.md):
 *
 *   # nvtrace 1 driver=580.142 date=2025-01-31T12:00:00Z
 *   ctl esc=0xd2 size=72 ret=0
 *   ctl esc=0x2b size=32 ret=0 class=0x41 psize=0 status=0x0
 *   ctl esc=0x2a size=32 ret=0 cmd=0x201 flags=0x0 psize=128 status=0x0
 *   ctl esc=0xd3 size=16 ret=0 xfer=0x2a xsize=32 cmd=0x201 flags=0x0 psize=128 status=0x0
 *   gpu0 esc=0xc9 size=4 ret=0
 *   uvm req=0x30000001 ret=0
 *   nvidia-modeset req=0xc0106d00 ret=-22
 *
 * The node is ctl (/dev/nvidiactl, /dev/nvproxy), gpuN (/dev/nvidiaN,
 * /dev/nvproxyN), uvm (/dev/nvidia-uvm, /dev/nvproxy-uvm) or, for the
 * driver's other nodes (nvidia-uvm-tools, nvidia-modeset, nvidia-caps/...),
 * the node's file name.  ret is 0, a positive return value, or the negative
 * errno.  The header line is written when the file is empty; the driver
 * version comes from /proc/driver/nvidia/version.
 *
 * Each line is formatted on the stack and written with one write(2) to a
 * file opened O_APPEND, so threads and processes sharing FILE never
 * interleave within a line; the call path takes no lock and calls no
 * function of the C library that allocates.  errno is kept as the real
 * ioctl left it.
 */
#define _GNU_SOURCE
#include <dlfcn.h>
#include <errno.h>
#include <fcntl.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/stat.h>
#include <sys/uio.h>
#include <time.h>
#include <unistd.h>

#define NV_IOCTL_MAGIC		'F'
#define NV_ESC_RM_FREE		0x29
#define NV_ESC_RM_CONTROL	0x2a
#define NV_ESC_RM_ALLOC		0x2b
#define NV_ESC_IOCTL_XFER_CMD	0xd3

#define NVTRACE_LINE_MAX	256

typedef int (*ioctl_fn)(int fd, unsigned long request, ...);

static ioctl_fn real_ioctl;
static int out_fd = -1;
static dev_t out_dev;
static ino_t out_ino;

/* A line under construction, on the caller's stack. */
struct line {
	char buf[NVTRACE_LINE_MAX];
	size_t len;
};

static void put_str(struct line *l, const char *s)
{
	while (*s && l->len < sizeof(l->buf) - 1)
		l->buf[l->len++] = *s++;
}

static void put_hex(struct line *l, const char *key, uint64_t v)
{
	char tmp[24];
	int n = 0;

	put_str(l, key);
	put_str(l, "0x");
	do {
		tmp[n++] = "0123456789abcdef"[v & 0xf];
		v >>= 4;
	} while (v);
	while (n && l->len < sizeof(l->buf) - 1)
		l->buf[l->len++] = tmp[--n];
}

static void put_dec(struct line *l, const char *key, int64_t v)
{
	char tmp[24];
	uint64_t u = v < 0 ? -(uint64_t)v : (uint64_t)v;
	int n = 0;

	put_str(l, key);
	if (v < 0)
		put_str(l, "-");
	do {
		tmp[n++] = (char)('0' + u % 10);
		u /= 10;
	} while (u);
	while (n && l->len < sizeof(l->buf) - 1)
		l->buf[l->len++] = tmp[--n];
}

static uint32_t rd32(const void *p, size_t off)
{
	uint32_t v;

	memcpy(&v, (const char *)p + off, sizeof(v));
	return v;
}

/*
 * The node an fd is, from its path: writes the name into @l and returns 1,
 * or returns 0 for an fd that is no NVIDIA node.
 */
static int put_node(struct line *l, int fd)
{
	char link[32], path[256];
	struct line tmp = { .len = 0 };
	struct stat st;
	const char *name;
	ssize_t n;

	if (fstat(fd, &st) < 0 || !S_ISCHR(st.st_mode))
		return 0;
	put_dec(&tmp, "/proc/self/fd/", fd);
	tmp.buf[tmp.len] = '\0';
	memcpy(link, tmp.buf, tmp.len + 1);
	n = readlink(link, path, sizeof(path) - 1);
	if (n <= 0)
		return 0;
	path[n] = '\0';
	if (strncmp(path, "/dev/", 5) != 0)
		return 0;
	name = path + 5;
	if (!strcmp(name, "nvidiactl") || !strcmp(name, "nvproxy")) {
		put_str(l, "ctl");
	} else if (!strcmp(name, "nvidia-uvm") || !strcmp(name, "nvproxy-uvm")) {
		put_str(l, "uvm");
	} else if ((!strncmp(name, "nvidia", 6) && name[6] >= '0' && name[6] <= '9' &&
		    strspn(name + 6, "0123456789") == strlen(name + 6)) ||
		   (!strncmp(name, "nvproxy", 7) && name[7] >= '0' && name[7] <= '9' &&
		    strspn(name + 7, "0123456789") == strlen(name + 7))) {
		put_str(l, "gpu");
		put_str(l, name + (name[2] == 'i' ? 6 : 7));
	} else if (!strncmp(name, "nvidia", 6) || !strncmp(name, "nvproxy", 7)) {
		put_str(l, name);	/* nvidia-modeset, nvidia-caps/..., ... */
	} else {
		return 0;
	}
	return 1;
}

/*
 * Copy @n bytes of the caller's memory at @src without faulting on a bad
 * pointer (a call the driver refused with EFAULT has one): through
 * process_vm_readv() on ourselves; where that is not allowed (a seccomp
 * filter), directly when the driver accepted the call (@ok), else not.
 */
static int peek(void *dst, uint64_t src, size_t n, int ok)
{
	struct iovec local = { dst, n };
	struct iovec remote = { (void *)(uintptr_t)src, n };
	ssize_t got;

	if (!src || !n)
		return 0;
	got = process_vm_readv(getpid(), &local, 1, &remote, 1, 0);
	if (got == (ssize_t)n)
		return 1;
	if (got < 0 && errno != EFAULT && ok) {
		memcpy(dst, (const void *)(uintptr_t)src, n);
		return 1;
	}
	return 0;
}

/* The fields of an RM escape's struct at @arg, after the call. */
static void put_rm(struct line *l, unsigned int nr, unsigned int size, uint64_t arg, int ok)
{
	unsigned char p[48];

	if (nr != NV_ESC_RM_CONTROL && nr != NV_ESC_RM_ALLOC && nr != NV_ESC_RM_FREE)
		return;
	if (!peek(p, arg, size < sizeof(p) ? size : sizeof(p), ok))
		return;
	switch (nr) {
	case NV_ESC_RM_CONTROL:		/* NVOS54 */
		if (size < 32)
			return;
		put_hex(l, " cmd=", rd32(p, 8));
		put_hex(l, " flags=", rd32(p, 12));
		put_dec(l, " psize=", rd32(p, 24));
		put_hex(l, " status=", rd32(p, 28));
		break;
	case NV_ESC_RM_ALLOC:		/* NVOS21 (32 bytes) or NVOS64 (48) */
		if (size < 16)
			return;
		put_hex(l, " class=", rd32(p, 12));
		if (size == 32) {
			put_dec(l, " psize=", rd32(p, 24));
			put_hex(l, " status=", rd32(p, 28));
		} else if (size == 48) {
			put_dec(l, " psize=", rd32(p, 32));
			put_hex(l, " flags=", rd32(p, 36));
			put_hex(l, " status=", rd32(p, 40));
		}
		break;
	case NV_ESC_RM_FREE:		/* NVOS00 */
		if (size == 16)
			put_hex(l, " status=", rd32(p, 12));
		break;
	default:
		break;
	}
}

/* Open FILE, or find that it was closed or replaced under us. */
static int trace_fd(void)
{
	struct stat st;

	if (out_fd >= 0 && fstat(out_fd, &st) == 0 && st.st_dev == out_dev &&
	    st.st_ino == out_ino)
		return out_fd;
	return -1;
}

static void record(int fd, unsigned long request, void *arg, int ret, int err)
{
	struct line l = { .len = 0 };
	unsigned int nr = _IOC_NR(request), size = _IOC_SIZE(request);
	int ofd = trace_fd();

	if (ofd < 0 || !put_node(&l, fd))
		return;
	if (l.buf[0] == 'u' || _IOC_TYPE(request) != NV_IOCTL_MAGIC) {
		put_hex(&l, " req=", request);
	} else {
		put_hex(&l, " esc=", nr);
		put_dec(&l, " size=", size);
	}
	put_dec(&l, " ret=", ret < 0 ? -err : ret);
	if (l.buf[0] != 'u' && _IOC_TYPE(request) == NV_IOCTL_MAGIC) {
		unsigned char x[16];

		if (nr == NV_ESC_IOCTL_XFER_CMD && size == 16 &&
		    peek(x, (uintptr_t)arg, sizeof(x), ret == 0)) {
			uint32_t inner = rd32(x, 0), isize = rd32(x, 4);
			uint64_t ptr;

			memcpy(&ptr, x + 8, sizeof(ptr));
			put_hex(&l, " xfer=", inner);
			put_dec(&l, " xsize=", isize);
			put_rm(&l, inner, isize, ptr, ret == 0);
		} else if (nr != NV_ESC_IOCTL_XFER_CMD) {
			put_rm(&l, nr, size, (uintptr_t)arg, ret == 0);
		}
	}
	put_str(&l, "\n");
	if (write(ofd, l.buf, l.len) < 0) {
		/* nothing to do: the program's own errno is restored below */
	}
}

int ioctl(int fd, unsigned long request, ...)
{
	va_list ap;
	void *arg;
	int ret, err;

	va_start(ap, request);
	arg = va_arg(ap, void *);
	va_end(ap);
	if (!real_ioctl) {
		real_ioctl = (ioctl_fn)dlsym(RTLD_NEXT, "ioctl");
		if (!real_ioctl) {
			errno = ENOSYS;
			return -1;
		}
	}
	ret = real_ioctl(fd, request, arg);
	err = errno;
	if (out_fd >= 0)
		record(fd, request, arg, ret, err);
	errno = err;
	return ret;
}

/* The version in /proc/driver/nvidia/version's first line, or "unknown". */
static void driver_version(char *v, size_t len)
{
	char buf[512], *p, *e;
	ssize_t n;
	int fd;

	strncpy(v, "unknown", len);
	fd = open("/proc/driver/nvidia/version", O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return;
	n = read(fd, buf, sizeof(buf) - 1);
	close(fd);
	if (n <= 0)
		return;
	buf[n] = '\0';
	e = strchr(buf, '\n');
	if (e)
		*e = '\0';
	/* "NVRM version: NVIDIA UNIX ... Kernel Module  580.142  Release ..." */
	for (p = buf; *p; p++) {
		size_t w = strspn(p, "0123456789.");

		if ((p == buf || p[-1] == ' ') && w > 2 && memchr(p, '.', w) &&
		    (p[w] == ' ' || p[w] == '\0') && p[0] != '.') {
			if (w >= len)
				w = len - 1;
			memcpy(v, p, w);
			v[w] = '\0';
			return;
		}
	}
}

__attribute__((constructor)) static void nvtrace_init(void)
{
	const char *path = getenv("NVTRACE_OUT");
	char ver[64], date[32], hdr[160];
	struct stat st;
	time_t now;
	struct tm tm;
	int fd, n;

	real_ioctl = (ioctl_fn)dlsym(RTLD_NEXT, "ioctl");
	if (!path || !*path)
		return;
	fd = open(path, O_WRONLY | O_APPEND | O_CREAT | O_CLOEXEC, 0644);
	if (fd < 0)
		return;
	/* Out of the way of programs that reuse low fd numbers. */
	n = fcntl(fd, F_DUPFD_CLOEXEC, 500);
	if (n >= 0) {
		close(fd);
		fd = n;
	}
	if (fstat(fd, &st) < 0) {
		close(fd);
		return;
	}
	out_dev = st.st_dev;
	out_ino = st.st_ino;
	if (st.st_size == 0) {
		driver_version(ver, sizeof(ver));
		now = time(NULL);
		gmtime_r(&now, &tm);
		strftime(date, sizeof(date), "%Y-%m-%dT%H:%M:%SZ", &tm);
		n = snprintf(hdr, sizeof(hdr), "# nvtrace 1 driver=%s date=%s\n", ver, date);
		if (n > 0 && write(fd, hdr, (size_t)n) < 0) {
			close(fd);
			return;
		}
	}
	out_fd = fd;
}
