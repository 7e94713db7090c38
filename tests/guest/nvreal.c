// SPDX-License-Identifier: GPL-2.0
/*
 * nvreal: every call that needs no GPU, as a transcript, so that the answers
 * of NVIDIA's real driver, of nvmediate in front of it and of the stand-in
 * can be compared line by line (tests/guest/95-real.sh).
 *
 *   nvreal --version V [--ctl PATH] [--gpu PATH] [--uvm PATH] [--sweep FILE]
 *
 * V: the driver's version (for CHECK_VERSION_STR and the sizes of the
 * controls that changed).  FILE: controls to make on a root client of their
 * own after the rest, one "COMMAND SIZE NAME" a line, each with SIZE zeroed
 * parameter bytes (95-real.sh: every NV0000 control the default profile
 * admits at V, the size from the release's ABI file).  One line per call: a name, the ioctl's return
 * (or errno), the status in the payload, the values that matter and "sum=",
 * an FNV-1a digest of every payload byte the call returned.  Handles the
 * driver picks are written as c1, c2... in the order it gave them (one it
 * gives again after a free is a new name) and enter the digests as those
 * numbers, so two runs compare equal exactly when the driver answered them
 * alike.  Payloads live at fixed addresses (static buffers of
 * a static program), so pointers inside them are equal run after run.
 * Exit status: 0 when every call was made (whatever it answered), 1 when a
 * node could not be opened.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <unistd.h>

#include "../nvidia-abi/nvdrv.h"

#define NV0000_CTRL_CMD_UNKNOWN			0x00000199u
#define NV_MAX_DEVICES			32

static const char *ctl_path = "/dev/nvidiactl";
static const char *gpu_path = "/dev/nvidia0";
static const char *uvm_path = "/dev/nvidia-uvm";
static char version[64];
static unsigned int vmajor;

static uint32_t handles[16];
static unsigned int nhandles;

static union {
	uint8_t bytes[16384];
	uint64_t align;
} pay, params;
static uint32_t peer_ids[32 * 32];
static struct {				/* a deprecated control's params and strings */
	struct nvd_ctrl_build_version_v1 p;
	char s[3][256];
} bv;

/*
 * The driver's handle h as c<N>, N counting the handles it gave in order:
 * a handle the driver gives again after a free (the stand-in reuses the
 * lowest, NVIDIA's driver never reuses one) is a new name, so that the
 * names, and the digests they enter, do not depend on reuse.
 */
static uint32_t hname_new(uint32_t h)
{
	if (!h)
		return 0;
	if (nhandles < sizeof(handles) / sizeof(handles[0]))
		handles[nhandles++] = h;
	return nhandles;
}

/* The name of a handle seen before (its latest), or a new one. */
static uint32_t hname(uint32_t h)
{
	unsigned int i;

	if (!h)
		return 0;
	for (i = nhandles; i > 0; i--)
		if (handles[i - 1] == h)
			return i;
	return hname_new(h);
}

static uint32_t fnv(uint32_t h, const void *p, size_t n)
{
	const uint8_t *b = p;

	while (n--)
		h = (h ^ *b++) * 16777619u;
	return h;
}

static const char *ret(int rc)
{
	static char buf[24];

	if (rc >= 0)
		snprintf(buf, sizeof(buf), "%d", rc);
	else
		snprintf(buf, sizeof(buf), "-%s", strerrorname_np(-rc) ?: "E?");
	return buf;
}

static int nv_ioctl(int fd, unsigned int nr, void *p, size_t size)
{
	return ioctl(fd, NV_IOC(nr, size), p) < 0 ? -errno : 0;
}

/* One line: NAME ret=R status=S [extra] sum=D over the payload. */
static void line(const char *name, int rc, long status, const char *extra,
		 const void *p, size_t n, const void *p2, size_t n2)
{
	uint32_t h = fnv(2166136261u, p, n);

	if (p2)
		h = fnv(h, p2, n2);
	printf("%-22s ret=%s", name, ret(rc));
	if (status >= 0)
		printf(" status=0x%lx", status);
	if (extra && *extra)
		printf(" %s", extra);
	printf(" sum=%08x\n", h);
}

static void check_version(int fd, const char *name, uint32_t cmd, const char *v)
{
	struct nvd_version_str *a = (void *)pay.bytes;
	char extra[96];
	int rc;

	memset(a, 0, sizeof(*a));
	a->cmd = cmd;
	snprintf(a->versionString, sizeof(a->versionString), "%s", v);
	rc = nv_ioctl(fd, NV_ESC_CHECK_VERSION_STR, a, sizeof(*a));
	snprintf(extra, sizeof(extra), "reply=%u driver=%.32s", a->reply, a->versionString);
	line(name, rc, -1, extra, a, sizeof(*a), NULL, 0);
}

/* An NV01_ROOT_CLIENT, the driver picking the handle; 0 on failure. */
static uint32_t alloc_client(int fd, const char *name)
{
	struct nvd_os21 *a = (void *)pay.bytes;
	char extra[32];
	uint32_t h;
	int rc;

	memset(a, 0, sizeof(*a));
	a->hClass = NV01_ROOT_CLIENT;
	rc = nv_ioctl(fd, NV_ESC_RM_ALLOC, a, sizeof(*a));
	h = a->hObjectNew;
	a->hObjectNew = rc || a->status ? hname(h) : hname_new(h);
	snprintf(extra, sizeof(extra), "client=c%u", a->hObjectNew);
	line(name, rc, a->status, extra, a, sizeof(*a), NULL, 0);
	return rc || a->status ? 0 : h;
}

/* A control of zeroed params, but for the 8 bytes at @off set to @v (@off < size). */
static void control_set(int fd, const char *name, uint32_t client, uint32_t cmd, uint32_t size,
			uint32_t want_size, uint32_t off, uint64_t v)
{
	struct nvd_os54 *a = (void *)pay.bytes;
	int rc;

	memset(a, 0, sizeof(*a));
	memset(params.bytes, 0, want_size > size ? want_size : size);
	if (off + 8 <= size)
		memcpy(params.bytes + off, &v, 8);
	a->hClient = client;
	a->hObject = client;
	a->cmd = cmd;
	a->params = (uintptr_t)params.bytes;
	a->paramsSize = size;
	rc = nv_ioctl(fd, NV_ESC_RM_CONTROL, a, sizeof(*a));
	a->hClient = a->hObject = hname(client);
	line(name, rc, a->status, NULL, a, sizeof(*a), params.bytes,
	     want_size > size ? want_size : size);
}

static void control(int fd, const char *name, uint32_t client, uint32_t cmd, uint32_t size,
		    uint32_t want_size)
{
	control_set(fd, name, client, cmd, size, want_size, size, 0);
}

/*
 * SYSTEM_GET_BUILD_VERSION, which the driver converts to its V2 control
 * before its method tables: with NULL buffers the size its three strings
 * need, then the strings, through the pointers in the V1 params.
 */
static void build_version_v1(int fd, uint32_t client)
{
	struct nvd_os54 *a = (void *)pay.bytes;
	char extra[64];
	uint32_t need;
	int rc, i;

	memset(&bv, 0, sizeof(bv));
	for (i = 0; i < 2; i++) {
		memset(a, 0, sizeof(*a));
		a->hClient = client;
		a->hObject = client;
		a->cmd = NV0000_CTRL_CMD_SYSTEM_GET_BUILD_VERSION;
		a->params = (uintptr_t)&bv.p;
		a->paramsSize = sizeof(bv.p);
		rc = nv_ioctl(fd, NV_ESC_RM_CONTROL, a, sizeof(*a));
		a->hClient = a->hObject = hname(client);
		snprintf(extra, sizeof(extra), "driver=%.32s", bv.s[0]);
		line(i ? "ctrl-dep-version" : "ctrl-dep-version-size", rc, a->status,
		     i ? extra : NULL, a, sizeof(*a), &bv, sizeof(bv));
		need = bv.p.sizeOfStrings;
		if (i || rc || a->status || need < 2 || need > sizeof(bv.s[0]))
			return;
		bv.p.pDriverVersionBuffer = (uintptr_t)bv.s[0];
		bv.p.pVersionBuffer = (uintptr_t)bv.s[1];
		bv.p.pTitleBuffer = (uintptr_t)bv.s[2];
	}
}

static void os_event(int fd, const char *name, unsigned int nr, uint32_t client, int efd)
{
	struct nvd_os_event *a = (void *)pay.bytes;
	int rc;

	memset(a, 0, sizeof(*a));
	a->hClient = client;
	a->hDevice = client;
	a->fd = efd;
	rc = nv_ioctl(fd, nr, a, sizeof(*a));
	a->hClient = a->hDevice = hname(client);
	line(name, rc, a->Status, NULL, a, sizeof(*a), NULL, 0);
}

static void rm_free(int fd, const char *name, uint32_t client)
{
	struct nvd_os00 *a = (void *)pay.bytes;
	int rc;

	memset(a, 0, sizeof(*a));
	a->hRoot = client;
	a->hObjectOld = client;
	rc = nv_ioctl(fd, NV_ESC_RM_FREE, a, sizeof(*a));
	a->hRoot = a->hObjectOld = hname(client);
	line(name, rc, a->status, NULL, a, sizeof(*a), NULL, 0);
}

static void register_fd(int fd, const char *name, int ctl_fd)
{
	struct nvd_register_fd *a = (void *)pay.bytes;

	a->ctl_fd = ctl_fd;
	line(name, nv_ioctl(fd, NV_ESC_REGISTER_FD, a, sizeof(*a)), -1, NULL, a, sizeof(*a), NULL, 0);
}

static void uvm_call(int fd, const char *name, unsigned long cmd, void *a, size_t size,
		     uint32_t *status)
{
	int rc = ioctl(fd, cmd, a) < 0 ? -errno : 0;

	line(name, rc, *status, NULL, a, size, NULL, 0);
}

/* Each control of FILE on a client of its own; 0, or -1 if FILE is unread. */
static int sweep(int fd, const char *file)
{
	char name[96], lname[112];
	unsigned int cmd, size;
	uint32_t c;
	FILE *f;

	f = fopen(file, "r");
	if (!f) {
		perror(file);
		return -1;
	}
	c = alloc_client(fd, "alloc-client-sweep");
	while (fscanf(f, "%x %u %95s", &cmd, &size, name) == 3) {
		if (size > sizeof(params.bytes)) {
			fprintf(stderr, "%s: %s: %u bytes, more than nvreal holds\n", file, name, size);
			continue;
		}
		snprintf(lname, sizeof(lname), "sweep-%s", name);
		control(fd, lname, c, cmd, size, size);
	}
	fclose(f);
	rm_free(fd, "free-client-sweep", c);
	return 0;
}

static int open_node(const char *name, const char *path)
{
	int fd = open(path, O_RDWR | O_CLOEXEC);

	printf("%-22s ret=%s\n", name, ret(fd < 0 ? -errno : 0));
	return fd;
}

int main(int argc, char **argv)
{
	const char *sweep_file = NULL;
	int i, ctl, ctl2, gpu, uvm, uvm2, nullfd;
	uint32_t c1, c2;
	/* Control sizes that changed: probed IDs and CPU info in 550, the
	 * build version in 560, P2P caps by 580. */
	uint32_t sz_bv, sz_probed, sz_cpu, sz_p2p;

	for (i = 1; i + 1 < argc; i += 2) {
		if (!strcmp(argv[i], "--ctl"))
			ctl_path = argv[i + 1];
		else if (!strcmp(argv[i], "--gpu"))
			gpu_path = argv[i + 1];
		else if (!strcmp(argv[i], "--uvm"))
			uvm_path = argv[i + 1];
		else if (!strcmp(argv[i], "--sweep"))
			sweep_file = argv[i + 1];
		else if (!strcmp(argv[i], "--version"))
			snprintf(version, sizeof(version), "%s", argv[i + 1]);
		else
			break;
	}
	if (i != argc || !version[0]) {
		fprintf(stderr, "usage: nvreal --version V [--ctl PATH] [--gpu PATH] [--uvm PATH]"
			" [--sweep FILE]\n");
		return 2;
	}
	vmajor = strtoul(version, NULL, 10);
	sz_bv = vmajor >= 560 ? NVD_BUILD_VERSION_V2_SIZE_NEW : NVD_BUILD_VERSION_V2_SIZE_OLD;
	sz_probed = vmajor >= 550 ? 3 * 4 * NV_MAX_DEVICES : 2 * 4 * NV_MAX_DEVICES;
	sz_cpu = vmajor >= 550 ? 108 : 104;
	sz_p2p = vmajor >= 580 ? 176 : 168;	/* a second pointer in between */
	setvbuf(stdout, NULL, _IOLBF, 0);

	ctl = open_node("open-ctl", ctl_path);
	if (ctl < 0)
		return 1;
	check_version(ctl, "version-strict", NV_RM_API_VERSION_CMD_STRICT, version);
	check_version(ctl, "version-mismatch", NV_RM_API_VERSION_CMD_STRICT, "1.2.3");
	check_version(ctl, "version-query", NV_RM_API_VERSION_CMD_QUERY, "");

	*(uint64_t *)pay.bytes = 0;
	line("sys-params", nv_ioctl(ctl, NV_ESC_SYS_PARAMS, pay.bytes, 8), -1, NULL, pay.bytes, 8,
	     NULL, 0);
	memset(pay.bytes, 0, sizeof(struct nvd_card_info) * NV_MAX_DEVICES);
	line("card-info", nv_ioctl(ctl, NV_ESC_CARD_INFO, pay.bytes,
				   sizeof(struct nvd_card_info) * NV_MAX_DEVICES),
	     -1, NULL, pay.bytes, sizeof(struct nvd_card_info) * NV_MAX_DEVICES, NULL, 0);

	c1 = alloc_client(ctl, "alloc-client");
	c2 = alloc_client(ctl, "alloc-client-2");
	control(ctl, "ctrl-build-version", c1, NV0000_CTRL_CMD_SYSTEM_GET_BUILD_VERSION_V2, sz_bv,
		sz_bv);
	build_version_v1(ctl, c1);
	control(ctl, "ctrl-attached-ids", c1, NV0000_CTRL_CMD_GPU_GET_ATTACHED_IDS,
		sizeof(struct nvd_ctrl_attached_ids), sizeof(struct nvd_ctrl_attached_ids));
	control(ctl, "ctrl-probed-ids", c1, NV0000_CTRL_CMD_GPU_GET_PROBED_IDS, sz_probed,
		sz_probed);
	control(ctl, "ctrl-cpu-info", c1, NV0000_CTRL_CMD_SYSTEM_GET_CPU_INFO, sz_cpu, sz_cpu);
	control(ctl, "ctrl-id-info-nogpu", c1, NV0000_CTRL_CMD_GPU_GET_ID_INFO_V2,
		sizeof(struct nvd_ctrl_id_info_v2), sizeof(struct nvd_ctrl_id_info_v2));
	control(ctl, "ctrl-unknown", c1, NV0000_CTRL_CMD_UNKNOWN, 16, 16);
	control(ctl, "ctrl-wrong-size", c1, NV0000_CTRL_CMD_GPU_GET_ATTACHED_IDS,
		sizeof(struct nvd_ctrl_attached_ids) - 4, sizeof(struct nvd_ctrl_attached_ids));
	control(ctl, "ctrl-other-client", c2, NV0000_CTRL_CMD_GPU_GET_ATTACHED_IDS,
		sizeof(struct nvd_ctrl_attached_ids), sizeof(struct nvd_ctrl_attached_ids));
	/* P2P_CAPS with a peer-ID array pointer (at 160) and no GPU counted:
	 * the driver cannot size the array it would copy in, fails, and gives
	 * the params back with the pointer cleared. */
	control_set(ctl, "ctrl-p2p-peer-pointer", c1, NV0000_CTRL_CMD_SYSTEM_GET_P2P_CAPS,
		    sz_p2p, sz_p2p, 160, (uintptr_t)peer_ids);

	/* OS events on the client, the event fd being the control file. */
	os_event(ctl, "os-event-alloc", NV_ESC_ALLOC_OS_EVENT, c1, ctl);
	os_event(ctl, "os-event-again", NV_ESC_ALLOC_OS_EVENT, c1, ctl);
	os_event(ctl, "os-event-free", NV_ESC_FREE_OS_EVENT, c1, ctl);
	os_event(ctl, "os-event-free-again", NV_ESC_FREE_OS_EVENT, c1, ctl);
	os_event(ctl, "os-event-bad-client", NV_ESC_ALLOC_OS_EVENT, 0x0bad0bad, ctl);

	/* A second control file registered to the first, twice; a foreign fd. */
	ctl2 = open_node("open-ctl-2", ctl_path);
	if (ctl2 >= 0) {
		register_fd(ctl2, "register-fd", ctl);
		register_fd(ctl2, "register-fd-again", ctl);
		close(ctl2);
	}
	ctl2 = open_node("open-ctl-3", ctl_path);
	nullfd = open("/dev/null", O_RDWR | O_CLOEXEC);
	if (ctl2 >= 0 && nullfd >= 0)
		register_fd(ctl2, "register-fd-foreign", nullfd);
	if (ctl2 >= 0)
		close(ctl2);
	if (nullfd >= 0)
		close(nullfd);

	/* Numbers the driver does not have: an escape, a foreign ioctl type. */
	memset(params.bytes, 0, 64);
	line("esc-unknown", nv_ioctl(ctl, 0x99, params.bytes, 16), -1, NULL, params.bytes, 16,
	     NULL, 0);
	line("ioctl-foreign", ioctl(ctl, _IOWR('X', 1, uint64_t), params.bytes) < 0 ? -errno : 0,
	     -1, NULL, params.bytes, 8, NULL, 0);

	rm_free(ctl, "free-client-2", c2);
	rm_free(ctl, "free-client-2-again", c2);
	control(ctl, "ctrl-freed-client", c2, NV0000_CTRL_CMD_GPU_GET_ATTACHED_IDS,
		sizeof(struct nvd_ctrl_attached_ids), sizeof(struct nvd_ctrl_attached_ids));
	rm_free(ctl, "free-client", c1);

	/* A GPU node without a GPU behind it. */
	gpu = open_node("open-gpu", gpu_path);
	if (gpu >= 0)
		close(gpu);

	/* UVM: initialise, again, an MM file, deinitialise. */
	uvm = open_node("open-uvm", uvm_path);
	if (uvm >= 0) {
		struct nvd_uvm_initialize *ui = (void *)pay.bytes;
		struct nvd_uvm_mm_initialize *mm = (void *)params.bytes;

		memset(ui, 0, sizeof(*ui));
		uvm_call(uvm, "uvm-initialize", UVM_INITIALIZE, ui, sizeof(*ui), &ui->rmStatus);
		memset(ui, 0, sizeof(*ui));
		uvm_call(uvm, "uvm-initialize-again", UVM_INITIALIZE, ui, sizeof(*ui),
			 &ui->rmStatus);
		uvm2 = open_node("open-uvm-2", uvm_path);
		if (uvm2 >= 0) {
			memset(mm, 0, sizeof(*mm));
			mm->uvmFd = uvm;
			uvm_call(uvm2, "uvm-mm-initialize", UVM_MM_INITIALIZE, mm, sizeof(*mm),
				 &mm->rmStatus);
			close(uvm2);
		}
		memset(params.bytes, 0, 64);
		line("uvm-unknown", ioctl(uvm, 200, params.bytes) < 0 ? -errno : 0, -1, NULL,
		     params.bytes, 64, NULL, 0);
		memset(ui, 0, sizeof(*ui));
		line("uvm-deinitialize", ioctl(uvm, UVM_DEINITIALIZE, 0) < 0 ? -errno : 0, -1,
		     NULL, NULL, 0, NULL, 0);
		close(uvm);
	}
	if (sweep_file && sweep(ctl, sweep_file))
		return 1;
	close(ctl);
	return 0;
}
