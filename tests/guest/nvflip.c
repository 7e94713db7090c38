// SPDX-License-Identifier: GPL-2.0
/*
 * nvflip: rewrite a payload between the mediator's check and the driver's
 * use (81-hard-flip.sh).
 *
 *   nvflip --field NAME [--ctl P] [--uvm P] [--calls N] [--flippers K] [--fill-maps]
 *   nvflip --list
 *
 * The main thread issues N calls whose payload, as written, is allowed;
 * K flipper threads rewrite one field of it in a tight loop, alternating
 * an allowed value and a value the validator refuses (or, for fd fields, a
 * number that is not a mediated file).  Whether the driver ever received
 * a refused value is the stand-in's to say (debugfs watch); this program
 * counts the flips (stores of a new value) and what the calls returned:
 * 0, the refusal the validator gives for the refused value, or another
 * answer (for the command fields, made on a root client of its own, also a
 * call that returned 0 with a status other than NV_OK: the driver answered
 * a command it was not allowed to get, which a driver that keeps no record,
 * NVIDIA's own, shows only this way).
 *
 * With --fill-maps the process first fills its vm.max_map_count with
 * one-page mappings, so that nvmediate cannot map anything more into it.
 *
 * Output: "field=NAME calls=N flips=N ok=N refused=N other=N enomem=N"
 * (enomem: calls answered -ENOMEM, counted in other too).
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/mman.h>
#include <unistd.h>

#include "../nvidia-abi/nvdrv.h"

#define CMD_ALLOWED	NV0000_CTRL_CMD_GPU_GET_ATTACHED_IDS	/* user, 128 bytes */
#define CMD_REFUSED	0x00020101u	/* kernel-only at 595: -EPERM */

struct field {
	const char *name;
	const char *what;
};

static const struct field fields[] = {
	{ "ctrl-cmd", "NVOS54.cmd: GET_ATTACHED_IDS / a kernel-only command (EPERM)" },
	{ "ctrl-psize", "NVOS54.paramsSize: 128 / 64 (status INVALID_ARGUMENT)" },
	{ "ctrl-flags", "NVOS54.flags: 0 / IRQL_RAISED (status INVALID_ARGUMENT)" },
	{ "class-nvos64", "NVOS64.hClass: OS event 0x79 / kernel callback 0x78 (EPERM)" },
	{ "class-nvos21", "NVOS21.hClass: OS event 0x79 / kernel callback 0x78 (EPERM)" },
	{ "xfer-cmd", "XFER.cmd: RM_CONTROL / unknown escape 0x01 (EINVAL)" },
	{ "xfer-size", "XFER.size: 32 / 24 (EINVAL)" },
	{ "xfer-inner-cmd", "NVOS54.cmd inside XFER: GET_ATTACHED_IDS / kernel-only (EPERM)" },
	{ "uvm-mm-fd", "UVM_MM_INITIALIZE.uvmFd: a mediated UVM fd / a pipe" },
	{ "uvm-register-fd", "UVM_REGISTER_GPU.rmCtrlFd: the mediated ctl fd / a pipe" },
};

static volatile uint32_t *target;
static uint32_t val_a, val_b;
static atomic_int stop;
static atomic_long flips;

static void *flipper(void *arg)
{
	volatile uint32_t *p = target;
	const uint32_t a = val_a, b = val_b;
	long n = 0;

	(void)arg;
	while (!atomic_load_explicit(&stop, memory_order_relaxed)) {
		int i;

		for (i = 0; i < 256; i++) {
			*p = b;
			*p = a;
		}
		n += 512;
	}
	atomic_fetch_add(&flips, n);
	return NULL;
}

/* Mappings until the kernel refuses one: alternate protections never merge. */
static long fill_maps(void)
{
	long n = 0;

	while (mmap(NULL, 4096, n & 1 ? PROT_READ : PROT_NONE, MAP_PRIVATE | MAP_ANONYMOUS,
		    -1, 0) != MAP_FAILED)
		n++;
	return n;
}

static int xioctl(int fd, unsigned long req, void *arg)
{
	return ioctl(fd, req, arg) < 0 ? -errno : 0;
}

int main(int argc, char **argv)
{
	const char *pctl = "/dev/nvproxy", *puvm = "/dev/nvproxy-uvm", *name = NULL;
	static uint8_t params[4096] __attribute__((aligned(64)));
	static struct nvd_os54 c __attribute__((aligned(64)));
	static struct nvd_os64 a64 __attribute__((aligned(64)));
	static struct nvd_os21 a21 __attribute__((aligned(64)));
	static struct nvd_xfer x __attribute__((aligned(64)));
	static struct nvd_uvm_mm_initialize mm __attribute__((aligned(64)));
	static struct nvd_uvm_register_gpu rg __attribute__((aligned(64)));
	long calls = 20000, i, ok = 0, refused = 0, other = 0, enomem = 0, filled = -1;
	int fill = 0, nflip = 1, k, ctl, uvm = -1, uvm2 = -1, pipefd[2], want_refused = 0, f;
	unsigned long req = 0;
	uint32_t *want_status = NULL;	/* set: a refusal answered in this status */
	int check_status = 0;		/* set: an allowed call's status is NV_OK */
	void *arg = NULL;
	int fd = -1;
	pthread_t th[8];

	for (k = 1; k < argc; k++) {
		if (!strcmp(argv[k], "--list")) {
			for (f = 0; f < (int)(sizeof(fields) / sizeof(fields[0])); f++)
				printf("%s\t%s\n", fields[f].name, fields[f].what);
			return 0;
		} else if (!strcmp(argv[k], "--field") && k + 1 < argc) {
			name = argv[++k];
		} else if (!strcmp(argv[k], "--ctl") && k + 1 < argc) {
			pctl = argv[++k];
		} else if (!strcmp(argv[k], "--uvm") && k + 1 < argc) {
			puvm = argv[++k];
		} else if (!strcmp(argv[k], "--calls") && k + 1 < argc) {
			calls = atol(argv[++k]);
		} else if (!strcmp(argv[k], "--flippers") && k + 1 < argc) {
			nflip = atoi(argv[++k]);
		} else if (!strcmp(argv[k], "--fill-maps")) {
			fill = 1;
		} else {
			name = NULL;
			break;
		}
	}
	if (!name || nflip < 1 || nflip > 8) {
		fprintf(stderr, "usage: nvflip --field NAME [--ctl P] [--uvm P] [--calls N] [--flippers K] [--fill-maps] | --list\n");
		return 2;
	}
	ctl = open(pctl, O_RDWR | O_CLOEXEC);
	if (ctl < 0 || pipe(pipefd)) {
		perror(pctl);
		return 2;
	}

	/*
	 * A root client for the controls, so that the allowed value gets
	 * status 0 from the driver and a refused command that reached it
	 * would show as another status (counted in other).
	 */
	if (!fill) {	/* with --fill-maps the first call must be the one under test */
		struct nvd_os21 root = { .hClass = NV01_ROOT_CLIENT };

		if (!xioctl(ctl, NV_IOC(NV_ESC_RM_ALLOC, sizeof(root)), &root) && !root.status)
			c.hClient = c.hObject = root.hObjectNew;
	}
	/* An allowed control: GET_ATTACHED_IDS with its 128-byte params. */
	c.cmd = CMD_ALLOWED;
	c.params = (uintptr_t)params;
	c.paramsSize = 128;
	/* An allowed allocation: an OS event with its 24-byte params. */
	a64.hClass = NV01_EVENT_OS_EVENT;
	a64.pAllocParms = (uintptr_t)params;
	a64.paramsSize = 24;
	a21.hClass = NV01_EVENT_OS_EVENT;
	a21.pAllocParms = (uintptr_t)params;
	a21.paramsSize = 24;
	x.cmd = NV_ESC_RM_CONTROL;
	x.size = sizeof(c);
	x.ptr = (uintptr_t)&c;

	if (!strcmp(name, "ctrl-cmd") || !strcmp(name, "xfer-inner-cmd")) {
		target = &c.cmd, val_a = CMD_ALLOWED, val_b = CMD_REFUSED, want_refused = -EPERM;
		check_status = c.hClient != 0;
		fd = ctl;
		if (name[0] == 'x')
			req = NV_IOC(NV_ESC_IOCTL_XFER_CMD, sizeof(x)), arg = &x;
		else
			req = NV_IOC(NV_ESC_RM_CONTROL, sizeof(c)), arg = &c;
	} else if (!strcmp(name, "ctrl-psize")) {
		target = &c.paramsSize, val_a = 128, val_b = 64;
		want_status = &c.status;
		fd = ctl, req = NV_IOC(NV_ESC_RM_CONTROL, sizeof(c)), arg = &c;
	} else if (!strcmp(name, "ctrl-flags")) {
		target = &c.flags, val_a = 0, val_b = 1;
		want_status = &c.status;
		fd = ctl, req = NV_IOC(NV_ESC_RM_CONTROL, sizeof(c)), arg = &c;
	} else if (!strcmp(name, "class-nvos64")) {
		target = &a64.hClass, val_a = NV01_EVENT_OS_EVENT;
		val_b = NV01_EVENT_KERNEL_CALLBACK, want_refused = -EPERM;
		fd = ctl, req = NV_IOC(NV_ESC_RM_ALLOC, sizeof(a64)), arg = &a64;
	} else if (!strcmp(name, "class-nvos21")) {
		target = &a21.hClass, val_a = NV01_EVENT_OS_EVENT;
		val_b = NV01_EVENT_KERNEL_CALLBACK, want_refused = -EPERM;
		fd = ctl, req = NV_IOC(NV_ESC_RM_ALLOC, sizeof(a21)), arg = &a21;
	} else if (!strcmp(name, "xfer-cmd")) {
		target = &x.cmd, val_a = NV_ESC_RM_CONTROL, val_b = 0x01, want_refused = -EINVAL;
		fd = ctl, req = NV_IOC(NV_ESC_IOCTL_XFER_CMD, sizeof(x)), arg = &x;
	} else if (!strcmp(name, "xfer-size")) {
		target = &x.size, val_a = sizeof(c), val_b = 24, want_refused = -EINVAL;
		fd = ctl, req = NV_IOC(NV_ESC_IOCTL_XFER_CMD, sizeof(x)), arg = &x;
	} else if (!strcmp(name, "uvm-mm-fd") || !strcmp(name, "uvm-register-fd")) {
		struct nvd_uvm_initialize in = { 0 };

		uvm = open(puvm, O_RDWR | O_CLOEXEC);
		uvm2 = open(puvm, O_RDWR | O_CLOEXEC);
		if (uvm < 0 || uvm2 < 0) {
			perror(puvm);
			return 2;
		}
		if (name[4] == 'm') {
			/* uvm2 stays uninitialised: the driver answers, state unchanged. */
			mm.uvmFd = uvm2;
			target = (volatile uint32_t *)&mm.uvmFd;
			val_a = uvm2, val_b = pipefd[0];
			fd = uvm, req = UVM_MM_INITIALIZE, arg = &mm;
		} else {
			if (xioctl(uvm, UVM_INITIALIZE, &in) || in.rmStatus) {
				fprintf(stderr, "UVM_INITIALIZE failed\n");
				return 2;
			}
			rg.rmCtrlFd = ctl;	/* no client: the driver answers, state unchanged */
			target = (volatile uint32_t *)&rg.rmCtrlFd;
			val_a = ctl, val_b = pipefd[0];
			fd = uvm, req = UVM_REGISTER_GPU, arg = &rg;
		}
	} else {
		fprintf(stderr, "nvflip: unknown field %s (--list)\n", name);
		return 2;
	}

	for (k = 0; k < nflip; k++)
		pthread_create(&th[k], NULL, flipper, NULL);
	if (fill)
		filled = fill_maps();
	for (i = 0; i < calls; i++) {
		int ret;

		*target = val_a;
		c.status = 0;
		if (want_status)
			*want_status = 0;
		ret = xioctl(fd, req, arg);
		if (ret == 0 && want_status && *want_status == NV_ERR_INVALID_ARGUMENT)
			refused++;	/* answered as the driver answers it */
		else if (ret == 0 && check_status && c.status != NV_OK)
			other++;	/* the driver answered another command */
		else if (ret == 0)
			ok++;
		else if (want_refused && ret == want_refused)
			refused++;
		else
			other++;
		if (ret == -ENOMEM)
			enomem++;
	}
	atomic_store(&stop, 1);
	for (k = 0; k < nflip; k++)
		pthread_join(th[k], NULL);
	printf("field=%s calls=%ld flips=%ld ok=%ld refused=%ld other=%ld enomem=%ld", name, calls,
	       atomic_load(&flips), ok, refused, other, enomem);
	if (fill)
		printf(" mappings=%ld", filled);
	printf("\n");
	return 0;
}
