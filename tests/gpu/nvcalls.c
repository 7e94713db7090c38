// SPDX-License-Identifier: GPL-2.0
/*
 * nvcalls: a few NVIDIA-shaped ioctls on the driver's nodes, built as a
 * dynamic program so that tests/gpu/nvtrace.so can record them (guest test
 * tests/guest/96-gpu-tools.sh; it needs the driver or the stand-in, no GPU).
 *
 *   nvcalls [CTL GPU UVM]     default /dev/nvidiactl /dev/nvidia0 /dev/nvidia-uvm
 *
 * The calls, in order: CHECK_VERSION_STR (query, then strict with the
 * version it returned), CARD_INFO, RM_ALLOC of a root client (NVOS21,
 * class NV01_ROOT_CLIENT), RM_CONTROL NV0000_CTRL_CMD_GPU_GET_ATTACHED_IDS
 * directly and inside NV_ESC_IOCTL_XFER_CMD, REGISTER_FD on the GPU node,
 * RM_FREE of the client, UVM_INITIALIZE on the UVM node.  One line per call
 * with what the driver answered; exit status 0 when every call succeeded.
 *
 *   gcc -O2 -Wall -Wextra -I tests/guest -o nvcalls tests/gpu/nvcalls.c
 */
#include <errno.h>
#include <fcntl.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <sys/ioctl.h>
#include <unistd.h>

#include "../nvidia-abi/nvdrv.h"

static int failed;

/* One line: NAME ret=R [status=0x..] [text]; a failure when ret or status is not 0. */
static void report(const char *name, int ret, long status, const char *text)
{
	int bad = ret != 0 || (status >= 0 && status != NV_OK);

	printf("nvcalls: %-16s ret=%d", name, ret);
	if (status >= 0)
		printf(" status=0x%lx", status);
	printf("%s%s %s\n", text ? " " : "", text ? text : "", bad ? "FAIL" : "ok");
	failed |= bad;
}

static int nvioctl(int fd, unsigned int nr, void *arg, size_t size)
{
	return ioctl(fd, NV_IOC(nr, size), arg) < 0 ? -errno : 0;
}

static int open_node(const char *path)
{
	int fd = open(path, O_RDWR | O_CLOEXEC);

	if (fd < 0) {
		printf("nvcalls: cannot open %s: %s (is the driver loaded?)\n", path,
		       strerror(errno));
		failed = 1;
	}
	return fd;
}

int main(int argc, char **argv)
{
	const char *ctl_path = "/dev/nvidiactl", *gpu_path = "/dev/nvidia0";
	const char *uvm_path = "/dev/nvidia-uvm";
	static struct nvd_card_info cards[32];
	struct nvd_version_str v;
	struct nvd_os21 a;
	struct nvd_os54 c;
	struct nvd_xfer x;
	struct nvd_os00 f;
	struct nvd_register_fd r;
	struct nvd_uvm_initialize ui;
	uint32_t ids[32], client;
	char text[96];
	int ctl, gpu, uvm, ret, i, n;

	if (argc == 4) {
		ctl_path = argv[1];
		gpu_path = argv[2];
		uvm_path = argv[3];
	} else if (argc != 1) {
		fprintf(stderr, "usage: nvcalls [CTL GPU UVM]\n");
		return 2;
	}
	ctl = open_node(ctl_path);
	if (ctl < 0)
		return 1;

	memset(&v, 0, sizeof(v));
	v.cmd = NV_RM_API_VERSION_CMD_QUERY;
	ret = nvioctl(ctl, NV_ESC_CHECK_VERSION_STR, &v, sizeof(v));
	v.versionString[sizeof(v.versionString) - 1] = '\0';
	snprintf(text, sizeof(text), "version=%s", v.versionString);
	report("version-query", ret, -1, text);
	v.cmd = NV_RM_API_VERSION_CMD_STRICT;
	v.reply = 0;
	ret = nvioctl(ctl, NV_ESC_CHECK_VERSION_STR, &v, sizeof(v));
	snprintf(text, sizeof(text), "reply=%u", v.reply);
	report("version-check", ret || v.reply != 1 ? (ret ? ret : -EPROTO) : 0, -1, text);

	ret = nvioctl(ctl, NV_ESC_CARD_INFO, cards, sizeof(cards));
	for (i = 0, n = 0; i < 32; i++)
		n += cards[i].valid != 0;
	snprintf(text, sizeof(text), "gpus=%d", n);
	report("card-info", ret, -1, text);

	memset(&a, 0, sizeof(a));
	a.hClass = NV01_ROOT_CLIENT;
	ret = nvioctl(ctl, NV_ESC_RM_ALLOC, &a, sizeof(a));
	client = a.hObjectNew;
	report("alloc-client", ret || !client ? (ret ? ret : -EPROTO) : 0, a.status, NULL);
	if (failed)
		return 1;

	memset(&c, 0, sizeof(c));
	memset(ids, 0, sizeof(ids));
	c.hClient = client;
	c.hObject = client;
	c.cmd = NV0000_CTRL_CMD_GPU_GET_ATTACHED_IDS;
	c.params = (uintptr_t)ids;
	c.paramsSize = sizeof(ids);
	ret = nvioctl(ctl, NV_ESC_RM_CONTROL, &c, sizeof(c));
	snprintf(text, sizeof(text), "gpu0=0x%x", ids[0]);
	report("attached-ids", ret, c.status, text);

	c.status = 0;
	memset(ids, 0, sizeof(ids));
	x.cmd = NV_ESC_RM_CONTROL;
	x.size = sizeof(c);
	x.ptr = (uintptr_t)&c;
	ret = nvioctl(ctl, NV_ESC_IOCTL_XFER_CMD, &x, sizeof(x));
	snprintf(text, sizeof(text), "gpu0=0x%x", ids[0]);
	report("xfer-attached-ids", ret, c.status, text);

	gpu = open_node(gpu_path);
	if (gpu >= 0) {
		r.ctl_fd = ctl;
		ret = nvioctl(gpu, NV_ESC_REGISTER_FD, &r, sizeof(r));
		report("register-fd", ret, -1, NULL);
	}

	memset(&f, 0, sizeof(f));
	f.hRoot = client;
	f.hObjectOld = client;
	ret = nvioctl(ctl, NV_ESC_RM_FREE, &f, sizeof(f));
	report("free-client", ret, f.status, NULL);

	uvm = open_node(uvm_path);
	if (uvm >= 0) {
		memset(&ui, 0, sizeof(ui));
		ret = ioctl(uvm, UVM_INITIALIZE, &ui) < 0 ? -errno : 0;
		report("uvm-initialize", ret, ui.rmStatus, NULL);
		close(uvm);
	}
	if (gpu >= 0)
		close(gpu);
	close(ctl);
	printf("nvcalls: %s\n", failed ? "FAILED" : "ok");
	return failed;
}
