// SPDX-License-Identifier: GPL-2.0
/*
 * nvmig: a CUDA-like session on one MIG instance, and the refusals around
 * it, for the guest tests.
 *
 *   nvmig [--ctl PATH] [--gpu PATH] [--device N] [--version V]
 *         [--mode MODE] [--swizzid S] [--ci C]
 *         [--gi-cap PATH] [--ci-cap PATH] [--wrong-cap PATH]
 *         [--cap PATH] [--imex PATH] [--imex2 PATH] [--rounds N]
 *
 * MODE (default session):
 *   session  open the control and GPU nodes, REGISTER_FD, a client, a device
 *            (hClientShare = the client, as a MIG session must), its
 *            subdevice; AMPERE_SMC_PARTITION_REF (0xc637, swizzId S, the fd
 *            of --gi-cap), its UUID and compute instances; AMPERE_SMC_EXEC_
 *            PARTITION_REF (0xc638, execPartitionId C, the fd of --ci-cap),
 *            its UUID; video memory (0x40, which needs the subscription) and
 *            system memory (0x3e, which does not); then the frees, showing
 *            what the driver's unsubscription takes with it, and video
 *            memory refused without a subscription.
 *   wrong    0xc637 with the fd of --wrong-cap (another instance's cap), with
 *            a file that is no cap (the control node) and with a closed fd,
 *            then with --gi-cap; 0xc638 with the fd of --wrong-cap, then
 *            with --ci-cap.
 *   monitor, config
 *            AMPERE_SMC_MONITOR_SESSION (0xc640) or AMPERE_SMC_CONFIG_SESSION
 *            (0xc639) under the client with a file that is no cap (the
 *            control node), with the fd of --cap, a second one, the free.
 *   profiling  0xc637 with the device-profiling swizzId (0xfffffffe, the
 *            whole GPU) and the fd of --gi-cap, which the driver does not
 *            look at for it; freed when made (alloc_profiling,
 *            free_profiling).
 *   race     0xc637 at one fd number, --rounds times (default 300), while a
 *            second thread keeps putting the fd of --wrong-cap and that of
 *            --gi-cap at that number (dup2()); each subscription made is
 *            freed.  Counts: race_made (status 0), race_refused (-EPERM),
 *            race_denied (the driver's NV_ERR_INSUFFICIENT_PERMISSIONS:
 *            it was handed the wrong node), race_other.
 *   imex     NV0000_CTRL_CMD_CLIENT_SUBSCRIBE_TO_IMEX_CHANNEL (0xd08) with
 *            the fd of --imex, again, with a file that is no channel, with
 *            the fd of --imex2 (if given); a second client with --imex2.
 *
 * Output: key=value lines, one pair a line, names made of [a-z0-9_] and
 * values without blanks, so that a shell test can eval them or grep -x:
 * pid=, version=, client=; for each step STEP_ret (the ioctl's or open's
 * return, 0 or -ENAME) and, for RM calls, STEP_status (0x..; 0xffffffff
 * when the ioctl failed); what was read back (STEP_uuid, ctrl_ci_ids_count
 * and ctrl_ci_ids_N=ID,UUID, STEP_channel).  The capability files the
 * process holds, counted in /proc/self/fd by the major of the caps' node
 * (the driver installs a duplicate of a cap fd it accepts and closes it on
 * free): caps_before, caps_after_STEP after each allocation that presents
 * a cap, with STEP_dup_fd the number that appeared (-1: none) and
 * STEP_dup_cloexec its close-on-exec flag, caps_after_user_close (the
 * program's own cap fds closed), caps_after_free_ci, caps_after_free_gi,
 * caps_after_free, caps_after_close (everything closed).  Ends with
 * result=done.  Exit status 0 unless the command line or a node's open
 * failed: what the driver answered is for the test to judge.
 *
 * Steps, session: open_ctl version_query version_check alloc_client
 * open_gpu register_fd alloc_device alloc_subdevice open_gi_cap open_ci_cap
 * alloc_gi ctrl_gi_uuid (from 550.40.07) ctrl_ci_ids alloc_ci ctrl_ci_uuid
 * alloc_vidmem alloc_sysmem free_ci free_vidmem_after_unsub
 * alloc_vidmem_gi_only free_gi alloc_vidmem_unsubscribed
 * alloc_sysmem_unsubscribed free_client.  wrong: after alloc_subdevice,
 * open_gi_cap open_ci_cap open_wrong_cap alloc_gi_wrong alloc_gi_notcap
 * alloc_gi_badfd alloc_gi alloc_ci_wrong alloc_ci_gicap alloc_ci
 * alloc_ci_again free_client.  monitor/config: after alloc_client, open_cap
 * alloc_session_notcap alloc_session alloc_session_again free_session
 * free_client.  imex: after alloc_client, open_imex [open_imex2]
 * imex_notchannel imex_subscribe imex_again [imex_other alloc_client2
 * imex_client2 free_client2] free_client.
 *
 * The layouts are NVIDIA's (class/clc637.h .. clc640.h, ctrl/ctrlc637.h,
 * ctrlc638.h, ctrl0000client.h, cl0040.h), written here on their own.
 */
#define _GNU_SOURCE
#include <dirent.h>
#include <pthread.h>
#include <errno.h>
#include <fcntl.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/sysmacros.h>
#include <sys/types.h>
#include <unistd.h>

#include "../nvidia-abi/nvdrv.h"

/* Handles the program picks (the client's is the driver's). */
#define H_DEVICE	0x6d690001u
#define H_SUBDEVICE	0x6d690002u
#define H_GI		0x6d690003u
#define H_CI		0x6d690004u
#define H_VIDMEM	0x6d690005u
#define H_SYSMEM	0x6d690006u
#define H_SESSION	0x6d690007u
#define H_VIDMEM2	0x6d690008u

#define MEM_SIZE	(64u << 10)
#define MAX_FDS		1024

struct opts {
	const char *ctl, *gpu, *version, *mode;
	int device;
	unsigned int swizzid, ci;
	const char *gi_cap, *ci_cap, *wrong_cap, *cap, *imex, *imex2;
	int rounds;
};

static const struct opts *o;
static int ctl = -1, gpu = -1;
static uint32_t client;
static unsigned int vmaj, vmin, vpatch;
static unsigned int caps_major;		/* of the nvidia-caps region, 0: unknown */

__attribute__((format(printf, 2, 3)))
static void kv(const char *key, const char *fmt, ...)
{
	va_list ap;

	printf("%s=", key);
	va_start(ap, fmt);
	vprintf(fmt, ap);
	va_end(ap);
	putchar('\n');
}

__attribute__((format(printf, 3, 4)))
static void kv2(const char *step, const char *what, const char *fmt, ...)
{
	va_list ap;

	printf("%s_%s=", step, what);
	va_start(ap, fmt);
	vprintf(fmt, ap);
	va_end(ap);
	putchar('\n');
}

static const char *retstr(int ret)
{
	static char buf[24];
	const char *n = NULL;

	if (ret >= 0) {
		snprintf(buf, sizeof(buf), "%d", ret);
		return buf;
	}
	switch (-ret) {
	case EPERM: n = "EPERM"; break;
	case ENOENT: n = "ENOENT"; break;
	case ENXIO: n = "ENXIO"; break;
	case EBADF: n = "EBADF"; break;
	case EACCES: n = "EACCES"; break;
	case EFAULT: n = "EFAULT"; break;
	case ENODEV: n = "ENODEV"; break;
	case EINVAL: n = "EINVAL"; break;
	case ENOTTY: n = "ENOTTY"; break;
	case EOPNOTSUPP: n = "EOPNOTSUPP"; break;
	}
	if (n)
		snprintf(buf, sizeof(buf), "-%s", n);
	else
		snprintf(buf, sizeof(buf), "-E%d", -ret);
	return buf;
}

static int version_at_least(unsigned int a, unsigned int b, unsigned int c)
{
	if (vmaj != a)
		return vmaj > a;
	if (vmin != b)
		return vmin > b;
	return vpatch >= c;
}

static int xioctl(int fd, unsigned int nr, void *arg, size_t size)
{
	return ioctl(fd, NV_IOC(nr, size), arg) < 0 ? -errno : 0;
}

/* Open a node for a step; its return is reported, the fd or -1 returned. */
static int open_step(const char *step, const char *path, int flags)
{
	int fd = open(path, flags | O_CLOEXEC);

	kv2(step, "ret", "%s", retstr(fd < 0 ? -errno : 0));
	return fd;
}

/* ---- RM calls: NVOS21, whose status sat at 24 before 535.43.02 ---- */

static uint32_t rm_alloc(const char *step, uint32_t parent, uint32_t handle, uint32_t hclass,
			 void *params, uint32_t psize)
{
	struct nvd_os21 a = {
		.hRoot = client, .hObjectParent = parent, .hObjectNew = handle,
		.hClass = hclass, .pAllocParms = (uint64_t)(uintptr_t)params,
	};
	uint32_t status;
	int ret;

	if (version_at_least(535, 43, 2))
		a.paramsSize = psize;
	ret = xioctl(ctl, NV_ESC_RM_ALLOC, &a, sizeof(a));
	status = version_at_least(535, 43, 2) ? a.status : a.paramsSize;
	kv2(step, "ret", "%s", retstr(ret));
	kv2(step, "status", "0x%x", ret ? 0xffffffffu : status);
	if (hclass == NV01_ROOT && !ret && !status)
		client = a.hObjectNew;
	return ret ? 0xffffffffu : status;
}

static uint32_t rm_control(const char *step, uint32_t obj, uint32_t cmd, void *params,
			   uint32_t psize)
{
	struct nvd_os54 c = {
		.hClient = client, .hObject = obj, .cmd = cmd,
		.params = (uint64_t)(uintptr_t)params, .paramsSize = psize,
	};
	int ret = xioctl(ctl, NV_ESC_RM_CONTROL, &c, sizeof(c));

	kv2(step, "ret", "%s", retstr(ret));
	kv2(step, "status", "0x%x", ret ? 0xffffffffu : c.status);
	return ret ? 0xffffffffu : c.status;
}

static uint32_t rm_free(const char *step, uint32_t parent, uint32_t handle)
{
	struct nvd_os00 f = { .hRoot = client, .hObjectParent = parent, .hObjectOld = handle };
	int ret = xioctl(ctl, NV_ESC_RM_FREE, &f, sizeof(f));

	kv2(step, "ret", "%s", retstr(ret));
	kv2(step, "status", "0x%x", ret ? 0xffffffffu : f.status);
	return ret ? 0xffffffffu : f.status;
}

/* ---- the capability files this process holds ---- */

struct fdset {
	unsigned char cap[MAX_FDS];	/* 1: a file of the caps' region */
};

static void fds_scan(struct fdset *s)
{
	struct dirent *e;
	struct stat st;
	DIR *d;
	int fd;

	memset(s, 0, sizeof(*s));
	d = opendir("/proc/self/fd");
	if (!d)
		return;
	while ((e = readdir(d))) {
		if (e->d_name[0] < '0' || e->d_name[0] > '9')
			continue;
		fd = atoi(e->d_name);
		if (fd == dirfd(d) || fd >= MAX_FDS || fstat(fd, &st))
			continue;
		s->cap[fd] = caps_major && S_ISCHR(st.st_mode) && major(st.st_rdev) == caps_major;
	}
	closedir(d);
}

static int fds_count(const struct fdset *s)
{
	int fd, n = 0;

	for (fd = 0; fd < MAX_FDS; fd++)
		n += s->cap[fd];
	return n;
}

/*
 * How many cap files now: caps_WHEN, or with @before caps_after_STEP and
 * which one is new since then.
 */
static void caps_report(const char *when, const struct fdset *before, const char *step)
{
	struct fdset now;
	char key[64];
	int fd, dup = -1;

	fds_scan(&now);
	snprintf(key, sizeof(key), before ? "caps_after_%s" : "caps_%s", when);
	kv(key, "%d", fds_count(&now));
	if (!before)
		return;
	for (fd = 0; fd < MAX_FDS; fd++)
		if (now.cap[fd] && !before->cap[fd])
			dup = fd;
	kv2(step, "dup_fd", "%d", dup);
	if (dup >= 0)
		kv2(step, "dup_cloexec", "%d", !!(fcntl(dup, F_GETFD) & FD_CLOEXEC));
}

static int cap_minor(const char *path)
{
	struct stat st;

	if (!path || stat(path, &st) || !S_ISCHR(st.st_mode))
		return -1;
	caps_major = major(st.st_rdev);
	return minor(st.st_rdev);
}

/* ---- the session's opening: version, nodes, client, device ---- */

static int start(int with_device)
{
	struct nvd_version_str v = { .cmd = NV_RM_API_VERSION_CMD_QUERY };
	struct nvd_register_fd r;
	struct nvd_alloc_0080 dp = { 0 };
	struct nvd_alloc_2080 sp = { 0 };
	int ret;

	kv("pid", "%d", (int)getpid());
	ctl = open_step("open_ctl", o->ctl, O_RDWR);
	if (ctl < 0)
		return -1;
	if (o->version) {
		snprintf(v.versionString, sizeof(v.versionString), "%s", o->version);
	} else {
		ret = xioctl(ctl, NV_ESC_CHECK_VERSION_STR, &v, sizeof(v));
		kv2("version_query", "ret", "%s", retstr(ret));
	}
	v.versionString[sizeof(v.versionString) - 1] = '\0';
	if (sscanf(v.versionString, "%u.%u.%u", &vmaj, &vmin, &vpatch) < 2) {
		fprintf(stderr, "nvmig: no driver version; give --version\n");
		return -1;
	}
	kv("version", "%s", v.versionString);
	v.cmd = NV_RM_API_VERSION_CMD_STRICT;
	ret = xioctl(ctl, NV_ESC_CHECK_VERSION_STR, &v, sizeof(v));
	kv2("version_check", "ret", "%s", retstr(ret));

	rm_alloc("alloc_client", 0, 0, NV01_ROOT, NULL, 0);
	kv("client", "0x%x", client);
	if (!with_device)
		return 0;

	gpu = open_step("open_gpu", o->gpu, O_RDWR);
	if (gpu < 0)
		return -1;
	r.ctl_fd = ctl;
	kv2("register_fd", "ret", "%s", retstr(xioctl(gpu, NV_ESC_REGISTER_FD, &r, sizeof(r))));
	/* A MIG subscription needs the device's VA space scoped to the client. */
	dp.deviceId = o->device;
	dp.hClientShare = client;
	rm_alloc("alloc_device", client, H_DEVICE, NV01_DEVICE_0, &dp, sizeof(dp));
	rm_alloc("alloc_subdevice", H_DEVICE, H_SUBDEVICE, NV20_SUBDEVICE_0, &sp, sizeof(sp));
	return 0;
}

static void finish(void)
{
	if (client)
		rm_free("free_client", 0, client);
	if (gpu >= 0)
		close(gpu);
	if (ctl >= 0)
		close(ctl);
	caps_report("after_close", NULL, NULL);
	kv("result", "done");
}

static unsigned int swizzid_override;	/* 0: --swizzid */

static uint32_t alloc_gi(const char *step, int capfd)
{
	struct nvd_alloc_c637 p = { .capDescriptor = (uint64_t)(int64_t)capfd,
				  .swizzId = swizzid_override ?: o->swizzid };
	struct fdset before;
	uint32_t st;

	fds_scan(&before);
	st = rm_alloc(step, H_SUBDEVICE, H_GI, AMPERE_SMC_PARTITION_REF, &p, sizeof(p));
	caps_report(step, &before, step);
	return st;
}

static uint32_t alloc_ci(const char *step, int capfd)
{
	struct nvd_alloc_c638 p = { .capDescriptor = (uint64_t)(int64_t)capfd,
				  .execPartitionId = o->ci };
	struct fdset before;
	uint32_t st;

	fds_scan(&before);
	st = rm_alloc(step, H_GI, H_CI, AMPERE_SMC_EXEC_PARTITION_REF, &p, sizeof(p));
	caps_report(step, &before, step);
	return st;
}

static uint32_t alloc_mem(const char *step, uint32_t handle, uint32_t hclass)
{
	struct nvd_alloc_mem m = { .size = MEM_SIZE };

	return rm_alloc(step, H_DEVICE, handle, hclass, &m, sizeof(m));
}

static void uuid_step(const char *step, uint32_t obj, uint32_t cmd)
{
	struct nvd_ctrl_mig_uuid u;

	memset(&u, 0, sizeof(u));
	if (!rm_control(step, obj, cmd, &u, sizeof(u))) {
		u.uuidStr[sizeof(u.uuidStr) - 1] = '\0';
		kv2(step, "uuid", "%s", u.uuidStr);
	}
}

/* ---- modes ---- */

static int mode_session(void)
{
	struct nvd_ctrl_active_ids ids;
	int gicap, cicap;
	uint32_t i;

	cap_minor(o->gi_cap);
	gicap = open_step("open_gi_cap", o->gi_cap, O_RDONLY);
	cicap = open_step("open_ci_cap", o->ci_cap, O_RDONLY);
	caps_report("before", NULL, NULL);

	alloc_gi("alloc_gi", gicap);
	if (version_at_least(550, 40, 7))
		uuid_step("ctrl_gi_uuid", H_GI, NVC637_CTRL_CMD_GET_UUID);
	memset(&ids, 0, sizeof(ids));
	if (!rm_control("ctrl_ci_ids", H_GI, NVC637_CTRL_CMD_EXEC_PARTITIONS_GET_ACTIVE_IDS, &ids,
			sizeof(ids))) {
		kv2("ctrl_ci_ids", "count", "%u", ids.execPartCount);
		for (i = 0; i < ids.execPartCount && i < 8; i++) {
			char key[32];

			ids.execPartUuid[i][NVC637_UUID_STR_LEN - 1] = '\0';
			snprintf(key, sizeof(key), "ctrl_ci_ids_%u", i);
			kv(key, "%u,%s", ids.execPartId[i], ids.execPartUuid[i]);
		}
	}
	alloc_ci("alloc_ci", cicap);
	uuid_step("ctrl_ci_uuid", H_CI, NVC638_CTRL_CMD_GET_UUID);

	/* What a CUDA context allocates: video memory needs the instance. */
	alloc_mem("alloc_vidmem", H_VIDMEM, NV01_MEMORY_LOCAL_USER);
	alloc_mem("alloc_sysmem", H_SYSMEM, NV01_MEMORY_SYSTEM);

	/* The cap fds given are the program's to close; the driver keeps its own. */
	if (gicap >= 0)
		close(gicap);
	if (cicap >= 0)
		close(cicap);
	caps_report("after_user_close", NULL, NULL);

	/*
	 * Unsubscribing frees what hangs below the device (memory), not the
	 * device, the subdevice or the other subscription: the memory handles
	 * are gone after the compute instance's free.
	 */
	rm_free("free_ci", H_GI, H_CI);
	caps_report("after_free_ci", NULL, NULL);
	rm_free("free_vidmem_after_unsub", H_DEVICE, H_VIDMEM);
	alloc_mem("alloc_vidmem_gi_only", H_VIDMEM2, NV01_MEMORY_LOCAL_USER);
	rm_free("free_gi", H_SUBDEVICE, H_GI);
	caps_report("after_free_gi", NULL, NULL);
	alloc_mem("alloc_vidmem_unsubscribed", H_VIDMEM, NV01_MEMORY_LOCAL_USER);
	alloc_mem("alloc_sysmem_unsubscribed", H_SYSMEM, NV01_MEMORY_SYSTEM);
	return 0;
}

static int mode_wrong(void)
{
	int gicap, cicap, wrong, closed;

	cap_minor(o->gi_cap);
	gicap = open_step("open_gi_cap", o->gi_cap, O_RDONLY);
	cicap = open_step("open_ci_cap", o->ci_cap, O_RDONLY);
	wrong = open_step("open_wrong_cap", o->wrong_cap, O_RDONLY);
	caps_report("before", NULL, NULL);

	alloc_gi("alloc_gi_wrong", wrong);
	alloc_gi("alloc_gi_notcap", ctl);
	closed = dup(ctl);
	if (closed >= 0)
		close(closed);
	alloc_gi("alloc_gi_badfd", closed);
	alloc_gi("alloc_gi", gicap);
	alloc_ci("alloc_ci_wrong", wrong);
	alloc_ci("alloc_ci_gicap", gicap);
	alloc_ci("alloc_ci", cicap);
	/* Single instance: a second subscription under the same parent. */
	alloc_ci("alloc_ci_again", cicap);
	return 0;
}

/* The device-profiling subscription: the whole GPU, no instance. */
static int mode_profiling(void)
{
	int gicap = open_step("open_gi_cap", o->gi_cap, O_RDONLY);

	swizzid_override = NVC637_DEVICE_PROFILING_SWIZZID;
	if (!alloc_gi("alloc_profiling", gicap))
		rm_free("free_profiling", H_SUBDEVICE, H_GI);
	return 0;
}

/* The race's second thread: the number names one node, then the other. */
static volatile int race_stop;
static int race_fd, race_right, race_wrong;

static void *race_swapper(void *arg)
{
	(void)arg;
	while (!race_stop) {
		dup2(race_wrong, race_fd);
		dup2(race_right, race_fd);
	}
	return NULL;
}

static int mode_race(void)
{
	unsigned int made = 0, refused = 0, denied = 0, other = 0;
	pthread_t t;
	int i;

	race_right = open_step("open_gi_cap", o->gi_cap, O_RDONLY);
	race_wrong = open_step("open_wrong_cap", o->wrong_cap, O_RDONLY);
	race_fd = dup(race_right);
	if (race_right < 0 || race_wrong < 0 || race_fd < 0 ||
	    pthread_create(&t, NULL, race_swapper, NULL))
		return 1;
	for (i = 0; i < o->rounds; i++) {
		struct nvd_alloc_c637 p = { .capDescriptor = (uint64_t)race_fd,
					  .swizzId = o->swizzid };
		struct nvd_os21 a = {
			.hRoot = client, .hObjectParent = H_SUBDEVICE, .hObjectNew = H_GI,
			.hClass = AMPERE_SMC_PARTITION_REF, .pAllocParms = (uint64_t)(uintptr_t)&p,
		};
		uint32_t status;
		int ret;

		if (version_at_least(535, 43, 2))
			a.paramsSize = sizeof(p);
		ret = xioctl(ctl, NV_ESC_RM_ALLOC, &a, sizeof(a));
		status = version_at_least(535, 43, 2) ? a.status : a.paramsSize;
		if (ret == -EPERM) {
			refused++;
		} else if (ret) {
			other++;
		} else if (status == 0) {
			struct nvd_os00 f = { .hRoot = client, .hObjectParent = H_SUBDEVICE,
					    .hObjectOld = H_GI };

			made++;
			xioctl(ctl, NV_ESC_RM_FREE, &f, sizeof(f));
		} else if (status == 0x1b) {
			denied++;
		} else {
			other++;
		}
	}
	race_stop = 1;
	pthread_join(t, NULL);
	kv("race_made", "%u", made);
	kv("race_refused", "%u", refused);
	kv("race_denied", "%u", denied);
	kv("race_other", "%u", other);
	return 0;
}

static int mode_session_class(uint32_t hclass)
{
	struct nvd_alloc_c639 p;
	struct fdset before;
	int capfd;

	cap_minor(o->cap);
	capfd = open_step("open_cap", o->cap, O_RDONLY);
	caps_report("before", NULL, NULL);
	p.capDescriptor = (uint64_t)(int64_t)ctl;
	rm_alloc("alloc_session_notcap", client, H_SESSION, hclass, &p, sizeof(p));
	p.capDescriptor = (uint64_t)(int64_t)capfd;
	fds_scan(&before);
	rm_alloc("alloc_session", client, H_SESSION, hclass, &p, sizeof(p));
	caps_report("alloc_session", &before, "alloc_session");
	/* Single instance under the client. */
	rm_alloc("alloc_session_again", client, H_SESSION + 0x100, hclass, &p, sizeof(p));
	rm_free("free_session", client, H_SESSION);
	caps_report("after_free", NULL, NULL);
	if (capfd >= 0)
		close(capfd);
	return 0;
}

static void imex_step(const char *step, uint32_t cl, int fd)
{
	struct nvd_ctrl_imex_subscribe p = { .devDescriptor = (uint64_t)(int64_t)fd,
				       .channel = 0xffffffffu };
	uint32_t save = client;

	client = cl;
	if (!rm_control(step, cl, NV0000_CTRL_CMD_CLIENT_SUBSCRIBE_TO_IMEX_CHANNEL, &p,
			sizeof(p)))
		kv2(step, "channel", "%d", (int)p.channel);
	client = save;
}

static int mode_imex(void)
{
	uint32_t first, second = 0;
	int ch, ch2 = -1;

	ch = open_step("open_imex", o->imex, O_RDONLY);
	if (o->imex2)
		ch2 = open_step("open_imex2", o->imex2, O_RDONLY);
	first = client;
	imex_step("imex_notchannel", first, ctl);
	imex_step("imex_subscribe", first, ch);
	imex_step("imex_again", first, ch);
	if (o->imex2) {
		imex_step("imex_other", first, ch2);
		client = 0;
		rm_alloc("alloc_client2", 0, 0, NV01_ROOT, NULL, 0);
		second = client;
		client = first;
		imex_step("imex_client2", second, ch2);
		if (second) {
			client = second;
			rm_free("free_client2", 0, second);
			client = first;
		}
	}
	if (ch >= 0)
		close(ch);
	if (ch2 >= 0)
		close(ch2);
	return 0;
}

static void usage(void)
{
	fprintf(stderr,
		"usage: nvmig [--ctl PATH] [--gpu PATH] [--device N] [--version V]\n"
		"             [--mode session|wrong|race|profiling|monitor|config|imex] [--swizzid S] [--ci C]\n"
		"             [--gi-cap PATH] [--ci-cap PATH] [--wrong-cap PATH] [--cap PATH]\n"
		"             [--imex PATH] [--imex2 PATH] [--rounds N]\n");
	exit(2);
}

int main(int argc, char **argv)
{
	static struct opts opt = {
		.ctl = "/dev/nvidiactl", .gpu = "/dev/nvidia0", .mode = "session",
		.device = 0, .swizzid = 0, .ci = 0, .rounds = 300,
	};
	int i, rc;

	for (i = 1; i < argc; i++) {
		const char *a = argv[i], *v = i + 1 < argc ? argv[i + 1] : NULL;

		if (!v)
			usage();
		i++;
		if (!strcmp(a, "--ctl"))
			opt.ctl = v;
		else if (!strcmp(a, "--gpu"))
			opt.gpu = v;
		else if (!strcmp(a, "--device"))
			opt.device = atoi(v);
		else if (!strcmp(a, "--version"))
			opt.version = v;
		else if (!strcmp(a, "--mode"))
			opt.mode = v;
		else if (!strcmp(a, "--swizzid"))
			opt.swizzid = strtoul(v, NULL, 0);
		else if (!strcmp(a, "--ci"))
			opt.ci = strtoul(v, NULL, 0);
		else if (!strcmp(a, "--gi-cap"))
			opt.gi_cap = v;
		else if (!strcmp(a, "--ci-cap"))
			opt.ci_cap = v;
		else if (!strcmp(a, "--wrong-cap"))
			opt.wrong_cap = v;
		else if (!strcmp(a, "--cap"))
			opt.cap = v;
		else if (!strcmp(a, "--imex"))
			opt.imex = v;
		else if (!strcmp(a, "--imex2"))
			opt.imex2 = v;
		else if (!strcmp(a, "--rounds"))
			opt.rounds = atoi(v);
		else
			usage();
	}
	o = &opt;
	setvbuf(stdout, NULL, _IOLBF, 0);

	if (!strcmp(opt.mode, "race")) {
		if (!opt.gi_cap || !opt.wrong_cap)
			usage();
		if (start(1))
			return 1;
		rc = mode_race();
	} else if (!strcmp(opt.mode, "profiling")) {
		if (!opt.gi_cap)
			usage();
		if (start(1))
			return 1;
		rc = mode_profiling();
	} else if (!strcmp(opt.mode, "session") || !strcmp(opt.mode, "wrong")) {
		if (!opt.gi_cap || !opt.ci_cap || (!strcmp(opt.mode, "wrong") && !opt.wrong_cap))
			usage();
		if (start(1))
			return 1;
		rc = !strcmp(opt.mode, "session") ? mode_session() : mode_wrong();
	} else if (!strcmp(opt.mode, "monitor") || !strcmp(opt.mode, "config")) {
		if (!opt.cap)
			usage();
		if (start(0))
			return 1;
		rc = mode_session_class(!strcmp(opt.mode, "monitor") ? AMPERE_SMC_MONITOR_SESSION :
							       AMPERE_SMC_CONFIG_SESSION);
	} else if (!strcmp(opt.mode, "imex")) {
		if (!opt.imex)
			usage();
		if (start(0))
			return 1;
		rc = mode_imex();
	} else {
		usage();
		return 2;
	}
	finish();
	return rc;
}
