/* SPDX-License-Identifier: GPL-2.0 */
/*
 * nvproxyctl: the nvidia driver's capability nodes (MIG instances) and IMEX
 * channels, and the node sets that give them (nvcaps.c).
 */
#ifndef NVPROXYCTL_NVCAPS_H
#define NVPROXYCTL_NVCAPS_H

#include <stddef.h>

#define NVCAPS_PROC	"/proc/driver/nvidia/capabilities"
#define CAPS_DEV	"/dev/nvidia-caps"
#define IMEX_DEV	"/dev/nvidia-caps-imex-channels"
#define CAPS_MAJOR_NAME	"nvidia-caps"
#define IMEX_MAJOR_NAME	"nvidia-caps-imex-channels"
#define MAX_MIG		512
/* nvidia_caps and imex_channels of one set, together (docs/policy.md) */
#define SET_NODES_MAX	64
#define IMEX_CHANNEL_MAX ((1 << 20) - 1)

/*
 * A MIG compute instance: GPU minor @gpu (the driver's gpu<N> is the GPU's
 * device minor, which cdi names GPUs by), GPU instance @gi and compute
 * instance @ci as the driver numbers them, and the minors of their access
 * capability nodes (DeviceFileMinor).
 */
struct mig {
	int gpu, gi, ci;
	int gi_minor, ci_minor;
};

int chrdev_major(const char *name);
int kv_read(const char *path, const char *key, long *val);
#define DRIVER_PARAMS	"/proc/driver/nvidia/params"
int mig_list(struct mig *m, int max);
void mig_set_name(char *buf, size_t len, const struct mig *m);
void mig_name(char *buf, size_t len, const struct mig *m);
int mig_cap_nodes(const struct mig *m, int major, char gi_path[64], char ci_path[64]);
int mig_set_ready(const char *set, int major, const struct mig *m, int *created);
int imex_node(int major, int ch, char path[64]);
int imex_present(int *ch, int max);
int imex_limit(const char *set);
int set_imex_write(const char *set, int major, const int *ch, int n);
int wait_set_node(const char *set, int gpu);
int cap_file_node(const char *rel, int major, int *minor, char path[64]);
int set_caps_nodes_add(const char *set, int major, const int *minor, int n);
int set_caps_word(const char *set, const char *word, const char *why);
int set_allow_add(const char *set, const char *entry, const char *why);
int set_caps_listed(const char *set, int major, int minor);

/* MIG UUIDs, from the driver (miguuid.c) */
#define MIG_UUID_BUF	64
/* tests only: "G:GI:CI=MIG-..." answers instead of the driver */
#define MIG_UUIDS_ENV	"NVPROXYCTL_MIG_UUIDS"
struct miguuid;
struct miguuid *miguuid_open(void);
int miguuid_get(struct miguuid *q, const struct mig *m, char uuid[MIG_UUID_BUF]);
void miguuid_close(struct miguuid *q);
int mig_uuid_ok(const char *s);

#endif
