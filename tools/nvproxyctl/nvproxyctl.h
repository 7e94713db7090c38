/* SPDX-License-Identifier: GPL-2.0 */
/*
 * nvproxyctl: what its commands share (nvproxyctl.c) and the commands kept
 * in files of their own (cdi.c).
 */
#ifndef NVPROXYCTL_H
#define NVPROXYCTL_H

#include <stddef.h>

#define EXIT_OK		0
#define EXIT_ERR	1
#define EXIT_USAGE	2
#define EXIT_NOTLOADED	3
#define EXIT_UNKNOWN	4
#define EXIT_OUTSIDE	5
#define EXIT_NOSET	6

#define MAX_GPUS	254
#define SETS_DIR	"/sys/kernel/nvmediate/sets"
#define SET_NAME_MAX	32

#ifndef NVM_VERSION
#define NVM_VERSION	"unknown"
#endif

extern const char *prog;

struct node {
	char path[96];		/* /dev/... as seen on the host */
	char mediates[32];
	int present, chr;
	unsigned int major, minor;
};

void err(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
void hostpath(char *buf, size_t len, const char *path);
int read_line(const char *path, char *buf, size_t len);
int path_exists(const char *path);
int module_loaded(void);
int set_name_ok(const char *name);
void set_node_path(char *buf, size_t len, const char *set, char kind, int k);
void stat_node(struct node *n);
int gpu_nodes(int present[MAX_GPUS], const char *set);

int cmd_cdi(int argc, char **argv);

#endif
