/* SPDX-License-Identifier: GPL-2.0 */
/*
 * nvproxyctl: what its commands share (common.c, and the counters of
 * stats.c) and the commands, one file each: status.c, stats.c, explain.c,
 * cdi.c, profile.c, apply.c; nvproxyctl.c dispatches.
 */
#ifndef NVPROXYCTL_H
#define NVPROXYCTL_H

#include <linux/types.h>
#include <stddef.h>
#include <stdio.h>

#include "nvmediate.h"
#include "rules.h"

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
extern const char *root_prefix;		/* NVPROXYCTL_ROOT, or "" */

struct node {
	char path[96];		/* /dev/... as seen on the host */
	char mediates[32];
	int present, chr;
	unsigned int major, minor;
};

/* The module's policy parameters, all N (its defaults) when unreadable. */
struct policy {
	int allow_root, allow_finn, allow_gss, audit;
	int from_sysfs;
};

/* docs/operations.md: /sys/class/nvmediate/stats/<family>_<verdict> */
#define NFAM	NVM_NR_STAT_FAMILIES
#define NVERD	NVM_NR_OUTCOMES
extern const char *const stat_families[NFAM];
extern const char *const stat_verdicts[NVERD];

void err(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
void hostpath(char *buf, size_t len, const char *path);
int read_line(const char *path, char *buf, size_t len);
int path_exists(const char *path);
int module_loaded(void);
int set_name_ok(const char *name);
void set_node_path(char *buf, size_t len, const char *set, char kind, int k);
#define NODEFS_DIR	"/run/nvmediate"
void set_nodefs_path(char *buf, size_t len, const char *set, char kind, int k);
int nodefs_ensure(const char *set);
#define NODEFS_OPTS_MAX	1024
int nodefs_next(FILE *f, char *mnt, char *opts);
void stat_node(struct node *n);
int gpu_nodes(int present[MAX_GPUS], const char *set);

/* A command's option, for parse_args() (common.c). */
struct opt {
	const char *name;	/* "--json" */
	const char *alias;	/* "-o", or NULL */
	const char **value;	/* where an option's value goes; NULL: a flag */
	int *flag;		/* where a flag's 1 goes */
};

int parse_args(int argc, char **argv, const struct opt *opts, const char **pos, int npos,
	       void (*usage)(FILE *));
int need_module(void);
void read_policy(struct policy *p);
void json_str(FILE *f, const char *s);
void json_str_or_null(FILE *f, const char *s);
void set_attr_path(char *buf, size_t len, const char *set, const char *attr);
int set_check(const char *set);
int set_names(char names[][SET_NAME_MAX], int max);
char *read_all(const char *path);
int parse_u32(const char *s, __u32 *out);
enum nvm_rule rule_of(const char *name);
int read_counters(unsigned long long c[NFAM][NVERD]);
void ioctl_totals(unsigned long long c[NFAM][NVERD], unsigned long long t[NVERD]);
int fam_index(const char *s);
int caps_normalise(const char *in, char *out, size_t len);

int cmd_status(int argc, char **argv);
int cmd_releases(int argc, char **argv);
int cmd_stats(int argc, char **argv);
int cmd_explain(int argc, char **argv);
int cmd_cdi(int argc, char **argv);
int cmd_profile(int argc, char **argv);
int cmd_apply(int argc, char **argv);

#endif
