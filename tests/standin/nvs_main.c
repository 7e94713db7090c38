// SPDX-License-Identifier: GPL-2.0
/*
 * Stand-in nvidia driver: module parameters, device numbers and nodes,
 * /proc/driver/nvidia/version, /sys/module/nvidia/version (the capability
 * and MIG parameters are in nvs_caps.c).
 *
 * For tests only: it answers the ioctls a CUDA-like session issues the way
 * nvidia.ko does, on a machine without a GPU, and records every call.
 */
#define pr_fmt(fmt) "nvidia-standin: " fmt

#include <linux/cdev.h>
#include <linux/delay.h>
#include <linux/device.h>
#include <linux/module.h>
#include <linux/proc_fs.h>
#include <linux/seq_file.h>
#include <linux/string.h>

#include "nvs.h"

#define NVS_DEFAULT_VERSION "595.45.04"

static char *version = NVS_DEFAULT_VERSION;
module_param(version, charp, 0444);
MODULE_PARM_DESC(version, "driver version to act as, e.g. 535.183.01 (default " NVS_DEFAULT_VERSION ")");

static int num_gpus = 2;
module_param(num_gpus, int, 0444);
MODULE_PARM_DESC(num_gpus, "number of GPU nodes /dev/nvidia0.. (0-16, default 2)");

bool nvs_strict_clients = true;
module_param_named(strict_clients, nvs_strict_clients, bool, 0444);
MODULE_PARM_DESC(strict_clients, "RM clients usable only through the control file that created them (default on)");

int nvs_fail_open;
module_param_named(fail_open, nvs_fail_open, int, 0644);
MODULE_PARM_DESC(fail_open, "fault injection: when not 0, every open fails with -|fail_open|");

unsigned int nvs_ioctl_delay_ms;
module_param_named(ioctl_delay_ms, nvs_ioctl_delay_ms, uint, 0644);
MODULE_PARM_DESC(ioctl_delay_ms, "fault injection: sleep this long in every ioctl, after the copy-in");

bool nvs_log_calls = true;
module_param_named(log_calls, nvs_log_calls, bool, 0644);
MODULE_PARM_DESC(log_calls, "record each call in the call log (default on; off for benchmarks)");

static unsigned int race_delay_us;
module_param(race_delay_us, uint, 0644);
MODULE_PARM_DESC(race_delay_us, "tests only: sleep this long before each read of the caller's memory in an ioctl, to widen a check-to-use window (default 0: never)");

/* Honest reads unless a test asks for a wider window. */
void nvs_race_delay(void)
{
	unsigned int us = READ_ONCE(race_delay_us);

	if (us)
		usleep_range(us, us + us / 4 + 1);
}
EXPORT_SYMBOL_GPL(nvs_race_delay);

bool nvs_read_twice;
module_param_named(read_twice, nvs_read_twice, bool, 0644);
MODULE_PARM_DESC(read_twice, "tests only: read each ioctl's top-level payload a second time (after race_delay_us) and act on the second read, counting reads that differ in state reread_differ (default N: read once, as nvidia_ioctl does)");

unsigned int nvs_grow_fd_table;
module_param_named(grow_fd_table, nvs_grow_fd_table, uint, 0644);
MODULE_PARM_DESC(grow_fd_table, "tests only: when not 0, REGISTER_FD takes fd numbers in the calling thread's table until it has one at least this high (the kernel grows the table), installs a file of its own there, counted in state extra_fds until released, and frees the other numbers (default 0: never)");

bool nvs_oops_register_fd;
module_param_named(oops_register_fd, nvs_oops_register_fd, bool, 0644);
MODULE_PARM_DESC(oops_register_fd, "tests only: REGISTER_FD hits BUG(), as a driver that oopses inside a call (the calling thread dies there; the kernel stays up unless panic_on_oops is set) (default N)");

static unsigned int log_kib = 8192;
module_param(log_kib, uint, 0444);
MODULE_PARM_DESC(log_kib, "size of the call log ring in KiB (default 8192)");

/*
 * MODULE_VERSION makes the kernel create /sys/module/nvidia/version; at init
 * the module's version pointer is swung to a buffer holding the parameter
 * and swung back at exit, so that the kernel frees its own string.
 */
MODULE_VERSION(NVS_DEFAULT_VERSION);

struct nvs_gpu nvs_gpus[NVS_MAX_GPUS];
unsigned int nvs_ngpus;
const char *nvs_version_str;

static struct {
	u32 part[3];
} nvs_ver;
static char nvs_version_buf[NV_RM_API_VERSION_STRING_LENGTH];
static const char *nvs_orig_module_version;

static dev_t nvs_devt;
static struct cdev nvs_cdev;
static struct class *nvs_class;
static struct proc_dir_entry *nvs_proc_dir;

/*
 * Is the version parameter at least major.minor.patch?  Numerically; a
 * two-part version such as 550.100 compares as 550.100.0.
 */
bool nvs_version_at_least(u32 major, u32 minor, u32 patch)
{
	const u32 want[3] = { major, minor, patch };
	int i;

	for (i = 0; i < 3; i++) {
		if (nvs_ver.part[i] != want[i])
			return nvs_ver.part[i] > want[i];
	}
	return true;
}
EXPORT_SYMBOL_GPL(nvs_version_at_least);

/* "N.N" or "N.N.N", decimal, at most 6 digits a part, like the releases. */
static int nvs_parse_version(const char *s)
{
	unsigned int parts = 0, digits = 0;
	u32 val = 0;
	const char *p;

	if (!s || !*s || strlen(s) >= NV_RM_API_VERSION_STRING_LENGTH)
		return -EINVAL;
	memset(&nvs_ver, 0, sizeof(nvs_ver));
	for (p = s; ; p++) {
		if (*p >= '0' && *p <= '9') {
			if (++digits > 6)
				return -EINVAL;
			val = val * 10 + (*p - '0');
			continue;
		}
		if ((*p != '.' && *p != '\0') || digits == 0 || parts == 3)
			return -EINVAL;
		nvs_ver.part[parts++] = val;
		val = 0;
		digits = 0;
		if (*p == '\0')
			break;
	}
	return parts >= 2 ? 0 : -EINVAL;
}

static char *nvs_devnode(NVS_DEVNODE_CONST struct device *dev, umode_t *mode)
{
	if (mode)
		*mode = 0666;
	return NULL;
}

static int nvs_proc_version_show(struct seq_file *m, void *v)
{
	seq_printf(m, "NVRM version: NVIDIA UNIX Open Kernel Module for x86_64  %s  Release Build  (standin)\n",
		   nvs_version_str);
	seq_puts(m, "GCC version:  not applicable (stand-in driver for tests)\n");
	return 0;
}

/*
 * /proc/driver/nvidia/gpus/BUS/information, as nv-procfs.c writes it: the
 * lines tools read (UUID, minor, excluded) in the driver's format.
 */
static int nvs_proc_gpu_show(struct seq_file *m, void *v)
{
	const struct nvs_gpu *g = m->private;

	seq_puts(m, "Model: \t\t NVIDIA stand-in\n");
	seq_printf(m, "GPU UUID: \t GPU-%4phN-%2phN-%2phN-%2phN-%6phN\n", g->uuid, g->uuid + 4,
		   g->uuid + 6, g->uuid + 8, g->uuid + 10);
	seq_puts(m, "Bus Type: \t PCIe\n");
	seq_printf(m, "Bus Location: \t 0000:%02x:00.0\n", g->gpu_id >> 8);
	seq_printf(m, "Device Minor: \t %u\n", g->index);
	seq_puts(m, "GPU Excluded:\t No\n");
	return 0;
}

static int nvs_proc_gpus_create(void)
{
	struct proc_dir_entry *gpus, *dir;
	char bus[20];
	unsigned int i;

	gpus = proc_mkdir("gpus", nvs_proc_dir);
	if (!gpus)
		return -ENOMEM;
	for (i = 0; i < nvs_ngpus; i++) {
		snprintf(bus, sizeof(bus), "0000:%02x:00.0", nvs_gpus[i].gpu_id >> 8);
		dir = proc_mkdir(bus, gpus);
		if (!dir || !proc_create_single_data("information", 0444, dir, nvs_proc_gpu_show,
						     &nvs_gpus[i]))
			return -ENOMEM;
	}
	return 0;
}

static void nvs_gpus_init(void)
{
	unsigned int i, j;

	for (i = 0; i < nvs_ngpus; i++) {
		nvs_gpus[i].index = i;
		/* Real gpu ids encode the PCI location; one bus per GPU here. */
		nvs_gpus[i].gpu_id = (i + 1) << 8;
		for (j = 0; j < 15; j++)
			nvs_gpus[i].uuid[j] = 0xa0 + j;
		nvs_gpus[i].uuid[15] = i;
	}
}

/* The GPU with this 16-byte UUID: its index, or -1. */
int nvs_gpu_by_uuid(const u8 *uuid)
{
	unsigned int i;

	for (i = 0; i < nvs_ngpus; i++)
		if (!memcmp(nvs_gpus[i].uuid, uuid, 16))
			return i;
	return -1;
}
EXPORT_SYMBOL_GPL(nvs_gpu_by_uuid);

static void nvs_devices_destroy(void)
{
	unsigned int i;

	device_destroy(nvs_class, MKDEV(NVD_MAJOR, NVD_CTL_MINOR));
	for (i = 0; i < nvs_ngpus; i++)
		device_destroy(nvs_class, MKDEV(NVD_MAJOR, i));
}

static int nvs_devices_create(void)
{
	struct device *dev;
	unsigned int i;

	for (i = 0; i < nvs_ngpus; i++) {
		dev = device_create(nvs_class, NULL, MKDEV(NVD_MAJOR, i), NULL,
				    "nvidia%u", i);
		if (IS_ERR(dev))
			goto err;
	}
	dev = device_create(nvs_class, NULL, MKDEV(NVD_MAJOR, NVD_CTL_MINOR),
			    NULL, "nvidiactl");
	if (IS_ERR(dev))
		goto err;
	return 0;
err:
	/* device_destroy() of a node never created is a no-op. */
	nvs_devices_destroy();
	return PTR_ERR(dev);
}

static int __init nvs_init(void)
{
	int err;

	if (nvs_parse_version(version)) {
		pr_err("version=\"%s\" is not a driver version (want N.N or N.N.N, e.g. %s)\n",
		       version ? version : "", NVS_DEFAULT_VERSION);
		return -EINVAL;
	}
	if (num_gpus < 0 || num_gpus > NVS_MAX_GPUS) {
		pr_err("num_gpus=%d out of range 0..%d\n", num_gpus, NVS_MAX_GPUS);
		return -EINVAL;
	}
	strscpy(nvs_version_buf, version, sizeof(nvs_version_buf));
	nvs_version_str = nvs_version_buf;
	nvs_ngpus = num_gpus;
	nvs_gpus_init();

	err = nvs_log_init(log_kib);
	if (err)
		return err;

	nvs_devt = MKDEV(NVD_MAJOR, 0);
	err = register_chrdev_region(nvs_devt, NVD_CTL_MINOR + 1, "nvidia");
	if (err) {
		pr_err("major %d is taken (%d): is the real nvidia driver loaded?\n",
		       NVD_MAJOR, err);
		goto err_log;
	}

	cdev_init(&nvs_cdev, &nvs_fops);
	nvs_cdev.owner = THIS_MODULE;
	err = cdev_add(&nvs_cdev, nvs_devt, NVD_CTL_MINOR + 1);
	if (err)
		goto err_region;

	nvs_class = nvs_class_create("nvidia");
	if (IS_ERR(nvs_class)) {
		err = PTR_ERR(nvs_class);
		goto err_cdev;
	}
	nvs_class->devnode = nvs_devnode;

	err = nvs_devices_create();
	if (err)
		goto err_class;

	err = -ENOMEM;
	nvs_proc_dir = proc_mkdir("driver/nvidia", NULL);
	if (!nvs_proc_dir)
		goto err_devices;
	if (!proc_create_single("version", 0444, nvs_proc_dir,
				nvs_proc_version_show))
		goto err_proc;
	err = nvs_proc_gpus_create();
	if (err)
		goto err_proc;
	err = nvs_caps_init(nvs_proc_dir);
	if (err)
		goto err_proc;

	nvs_orig_module_version = THIS_MODULE->version;
	THIS_MODULE->version = nvs_version_buf;

	pr_info("acting as NVIDIA driver %s with %u GPU(s)\n", nvs_version_str,
		nvs_ngpus);
	return 0;

err_proc:
	proc_remove(nvs_proc_dir);
err_devices:
	nvs_devices_destroy();
err_class:
	class_destroy(nvs_class);
err_cdev:
	cdev_del(&nvs_cdev);
err_region:
	unregister_chrdev_region(nvs_devt, NVD_CTL_MINOR + 1);
err_log:
	nvs_log_exit();
	return err;
}

static void __exit nvs_exit(void)
{
	THIS_MODULE->version = nvs_orig_module_version;
	nvs_caps_exit();
	proc_remove(nvs_proc_dir);
	nvs_devices_destroy();
	class_destroy(nvs_class);
	cdev_del(&nvs_cdev);
	unregister_chrdev_region(nvs_devt, NVD_CTL_MINOR + 1);
	nvs_log_exit();
}

module_init(nvs_init);
module_exit(nvs_exit);

MODULE_LICENSE("GPL");
MODULE_DESCRIPTION("Stand-in for the NVIDIA driver, for tests without a GPU");
