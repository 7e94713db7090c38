// SPDX-License-Identifier: GPL-2.0
/*
 * nvproxyctl: inspect nvmediate from user space.
 *
 *   nvproxyctl status [--json]
 *   nvproxyctl stats [--json] [--procs]
 *   nvproxyctl explain NUMBER [--version V] [--family F] [--abi DIR]
 *   nvproxyctl cdi [--set NAME] [--gpus N] [--output FILE]
 *   nvproxyctl profile [--set NAME | --log FILE] [--caps CAPS]
 *   nvproxyctl apply --set NAME [FILE]
 *
 * The ABI data comes from the generated tables (abi/generated/), compiled
 * in; command names come from abi/releases/<release>.abi when that
 * directory can be found. See README.md for the exit codes.
 */
#define _XOPEN_SOURCE 700

#include <dirent.h>
#include <errno.h>
#include <limits.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/sysmacros.h>
#include <sys/types.h>
#include <unistd.h>

#include "nvabi_lookup.h"
#include "nvproxyctl.h"


/* Numbers the validator uses besides the tables (abi/nvabi_fixed.h). */
#define ESC_RM_CONTROL		0x2a
#define ESC_RM_ALLOC		0x2b
#define ESC_XFER		0xd3
#define CTRL_GSS_LEGACY		0x8000
#define CLS_ROOT		0x0
#define CLS_ROOT_NON_PRIV	0x1
#define CLS_ROOT_CLIENT		0x41
#define CLS_EVENT_KCB		0x78
#define CLS_EVENT_KCB_EX	0x7e
#define PARAMS_MAX		(1U << 20)

const char *prog = "nvproxyctl";

/* Every path under /sys and /dev is read below this prefix (tests). */
static const char *root_prefix = "";

static const char *const node_s[] = { "-", "control (/dev/nvidiactl)", "gpu (/dev/nvidiaN)",
				      "either (/dev/nvidiactl or /dev/nvidiaN)",
				      "uvm (/dev/nvidia-uvm)", "uvm-tools (/dev/nvidia-uvm-tools)" };
static const char *const priv_s[] = { "unknown", "user", "root", "kernel", "internal", "none" };

void err(const char *fmt, ...)
{
	va_list ap;

	fprintf(stderr, "%s: ", prog);
	va_start(ap, fmt);
	vfprintf(stderr, fmt, ap);
	va_end(ap);
	fputc('\n', stderr);
}

void hostpath(char *buf, size_t len, const char *path)
{
	snprintf(buf, len, "%s%s", root_prefix, path);
}

/* Read the first line of a file into @buf; -1 when it cannot be read. */
int read_line(const char *path, char *buf, size_t len)
{
	char p[PATH_MAX];
	FILE *f;
	size_t n;

	hostpath(p, sizeof(p), path);
	f = fopen(p, "r");
	if (!f)
		return -1;
	if (!fgets(buf, (int)len, f)) {
		/* an empty file (a string parameter left empty) reads as "" */
		int bad = ferror(f);

		buf[0] = '\0';
		fclose(f);
		return bad ? -1 : 0;
	}
	fclose(f);
	n = strlen(buf);
	while (n && (buf[n - 1] == '\n' || buf[n - 1] == '\r'))
		buf[--n] = '\0';
	return 0;
}

int path_exists(const char *path)
{
	char p[PATH_MAX];
	struct stat st;

	hostpath(p, sizeof(p), path);
	return stat(p, &st) == 0;
}

int module_loaded(void)
{
	return path_exists("/sys/module/nvmediate") || path_exists("/sys/class/nvmediate");
}

/* ---- policy ------------------------------------------------------------- */

struct policy {
	int allow_root, allow_finn, allow_gss, audit;
	int from_sysfs;
};

static int read_bool_param(const char *name, int *val)
{
	char path[128], buf[32];

	snprintf(path, sizeof(path), "/sys/module/nvmediate/parameters/%s", name);
	if (read_line(path, buf, sizeof(buf)))
		return -1;
	*val = buf[0] == 'Y' || buf[0] == 'y' || buf[0] == '1';
	return 0;
}

static void read_policy(struct policy *p)
{
	memset(p, 0, sizeof(*p));
	if (read_bool_param("allow_root", &p->allow_root) ||
	    read_bool_param("allow_finn", &p->allow_finn) ||
	    read_bool_param("allow_gss", &p->allow_gss) ||
	    read_bool_param("audit", &p->audit)) {
		memset(p, 0, sizeof(*p));	/* the module's defaults: all N */
		return;
	}
	p->from_sysfs = 1;
}

/* ---- JSON output -------------------------------------------------------- */

static void json_str(FILE *f, const char *s)
{
	fputc('"', f);
	for (; s && *s; s++) {
		unsigned char c = (unsigned char)*s;

		if (c == '"' || c == '\\')
			fprintf(f, "\\%c", c);
		else if (c == '\n')
			fputs("\\n", f);
		else if (c < 0x20)
			fprintf(f, "\\u%04x", c);
		else
			fputc(c, f);
	}
	fputc('"', f);
}

/* A JSON string, or null when @s is NULL. */
static void json_str_or_null(FILE *f, const char *s)
{
	if (s)
		json_str(f, s);
	else
		fputs("null", f);
}

/* ---- versions and ranges ------------------------------------------------ */

struct lookup {
	const struct nvabi_range *range;
	const char *release;	/* the release whose .abi file describes the ABI */
	const char *tier;
};

/* As 'nvabi show' and the module decide (nvabi_lookup.h). */
static void lookup_version(__u64 key, struct lookup *lk)
{
	lk->range = nvabi_find_version(key, &lk->tier, &lk->release);
}

/* Lookups of the generated tables for one ABI, as the module does them. */
NVABI_DEFINE_LOOKUP(static, find_esc, struct nvabi_esc, nvabi_escs, NVABI_NR_ESCS, nr)
NVABI_DEFINE_LOOKUP(static, find_ctrl, struct nvabi_ctrl, nvabi_ctrls, NVABI_NR_CTRLS, cmd)
NVABI_DEFINE_LOOKUP(static, find_class, struct nvabi_class, nvabi_classes, NVABI_NR_CLASSES, hclass)
NVABI_DEFINE_LOOKUP(static, find_uvm, struct nvabi_uvm, nvabi_uvms, NVABI_NR_UVMS, cmd)

/* ---- names from abi/releases/<release>.abi ------------------------------ */

static char abi_dir[PATH_MAX];

static int is_abi_dir(const char *dir)
{
	char p[2 * PATH_MAX];
	struct stat st;

	snprintf(p, sizeof(p), "%s/releases", dir);
	return stat(p, &st) == 0 && S_ISDIR(st.st_mode);
}

/* --abi DIR, else $NVPROXYCTL_ABI, else abi/ next to the tool. */
static void find_abi_dir(const char *opt)
{
	static const char *const rel[] = { "../../abi", "../abi", "abi",
					   "../share/nvmediate/abi" };
	char exe[PATH_MAX], cand[PATH_MAX + 32];
	const char *env = getenv("NVPROXYCTL_ABI");
	ssize_t n;
	size_t i;
	char *slash;

	abi_dir[0] = '\0';
	if (opt) {
		snprintf(abi_dir, sizeof(abi_dir), "%s", opt);
		return;
	}
	if (env && *env) {
		snprintf(abi_dir, sizeof(abi_dir), "%s", env);
		return;
	}
	n = readlink("/proc/self/exe", exe, sizeof(exe) - 1);
	if (n <= 0)
		return;
	exe[n] = '\0';
	slash = strrchr(exe, '/');
	if (!slash)
		return;
	*slash = '\0';
	for (i = 0; i < sizeof(rel) / sizeof(rel[0]); i++) {
		snprintf(cand, sizeof(cand), "%s/%s", exe, rel[i]);
		if (is_abi_dir(cand)) {
			if (!realpath(cand, abi_dir) && strlen(cand) < sizeof(abi_dir))
				memcpy(abi_dir, cand, strlen(cand) + 1);
			return;
		}
	}
}

struct names {
	char name[128];		/* first @ token: escape, class or UVM command name; a control's resource */
	char params[256];	/* params type(s), without the layout hash */
	char extra[64];		/* x=... flags of a control */
};

/* Look up @family's entry @key in the release file; 0 when found. */
static int release_names(const char *release, const char *family, __u32 key, struct names *out)
{
	char path[PATH_MAX + 64], line[4096];
	FILE *f;
	int found = -1;

	memset(out, 0, sizeof(*out));
	if (!abi_dir[0] || !release)
		return -1;
	snprintf(path, sizeof(path), "%s/releases/%s.abi", abi_dir, release);
	f = fopen(path, "r");
	if (!f)
		return -1;
	while (fgets(line, sizeof(line), f)) {
		char *save = NULL, *tok, *kw, *num;
		unsigned long k;

		kw = strtok_r(line, " \t\n", &save);
		if (!kw || strcmp(kw, family))
			continue;
		num = strtok_r(NULL, " \t\n", &save);
		if (!num)
			continue;
		k = strtoul(num, NULL, 16);
		if (k != key)
			continue;
		while ((tok = strtok_r(NULL, " \t\n", &save))) {
			char *h;

			if (tok[0] == '@' && !out->name[0]) {
				snprintf(out->name, sizeof(out->name), "%s", tok + 1);
			} else if (!strncmp(tok, "x=", 2)) {
				snprintf(out->extra, sizeof(out->extra), "%s", tok + 2);
			} else if ((h = strchr(tok, '#')) && !out->params[0]) {
				/* TYPE#hash[,TYPE#hash]: keep the types */
				char *p = tok, *o = out->params;
				size_t left = sizeof(out->params) - 1;
				int skip = 0;

				for (; *p && left; p++) {
					if (*p == '#')
						skip = 1;
					else if (*p == ',') {
						skip = 0;
						*o++ = ',';
						left--;
						if (left) {
							*o++ = ' ';
							left--;
						}
					} else if (!skip) {
						*o++ = *p;
						left--;
					}
				}
				*o = '\0';
			}
		}
		found = 0;
		break;
	}
	fclose(f);
	return found;
}

/* ---- explain ------------------------------------------------------------ */

struct verdict {
	const char *admit;	/* "yes", "no", "root" (CAP_SYS_ADMIN callers only) */
	char why[256];
};

static void priv_verdict(unsigned int priv, const struct policy *pol, const char *rule,
			 struct verdict *v)
{
	switch (priv) {
	case NVABI_PRIV_UNKNOWN:
	case NVABI_PRIV_USER:
		v->admit = "yes";
		snprintf(v->why, sizeof(v->why), "%s",
			 priv == NVABI_PRIV_USER ? "any caller" :
			 "privilege not encoded in this release; the driver checks it");
		break;
	case NVABI_PRIV_ROOT:
		if (pol->allow_root) {
			v->admit = "root";
			snprintf(v->why, sizeof(v->why),
				 "administrator-only: forwarded for callers with CAP_SYS_ADMIN (allow_root=Y), else EPERM (%s)",
				 rule);
		} else {
			v->admit = "no";
			snprintf(v->why, sizeof(v->why),
				 "administrator-only: EPERM (%s) unless allow_root=Y and CAP_SYS_ADMIN", rule);
		}
		break;
	default:
		v->admit = "no";
		snprintf(v->why, sizeof(v->why), "%s: EPERM (kernel-only), never from user space",
			 priv < 6 ? priv_s[priv] : "?");
	}
}

static void size_desc(char *buf, size_t len, __u32 size)
{
	if (size == NVABI_SIZE_UNKNOWN)
		snprintf(buf, len, "not recorded");
	else
		snprintf(buf, len, "%u", size);
}

static void fds_desc(char *buf, size_t len, unsigned int fd, unsigned int nfd)
{
	size_t o = 0;
	unsigned int i;

	buf[0] = '\0';
	for (i = 0; i < nfd && fd + i < NVABI_NR_FDS && o < len; i++)
		o += (size_t)snprintf(buf + o, len - o, "%s%u(%u bytes)", i ? ", " : "",
				      nvabi_fds[fd + i].off, nvabi_fds[fd + i].size);
}

struct explain_out {
	int json;
	int first;	/* first entry of the JSON "entries" list */
};

static void print_flags(const struct explain_out *o, unsigned int flags, unsigned int fd,
			unsigned int nfd)
{
	char fds[512];

	fds_desc(fds, sizeof(fds), fd, nfd);
	if (o->json) {
		printf(",\"pointers\":%s,\"fds\":%s,\"fds_nested\":%s,\"fd_offsets\":[",
		       flags & NVABI_F_PTR ? "true" : "false",
		       flags & NVABI_F_FD ? "true" : "false",
		       flags & NVABI_F_FD_NESTED ? "true" : "false");
		for (unsigned int i = 0; i < nfd && fd + i < NVABI_NR_FDS; i++)
			printf("%s%u", i ? "," : "", nvabi_fds[fd + i].off);
		printf("]");
		return;
	}
	printf("  pointers:  %s\n", flags & NVABI_F_PTR ? "yes (payload holds user pointers)" : "no");
	if (flags & NVABI_F_FD)
		printf("  fds:       yes%s%s%s\n", nfd ? ", at offsets " : "", fds,
		       flags & NVABI_F_FD_NESTED ? " (some inside an array or union)" : "");
	else
		printf("  fds:       no\n");
}

static void print_names(const struct explain_out *o, const struct names *n, int have,
			const char *name_label)
{
	if (o->json) {
		printf(",\"name\":");
		json_str_or_null(stdout, have && n->name[0] ? n->name : NULL);
		printf(",\"params_type\":");
		json_str_or_null(stdout, have && n->params[0] ? n->params : NULL);
		return;
	}
	if (!have)
		return;
	if (n->name[0])
		printf("  %-10s %s\n", name_label, n->name);
	if (n->params[0])
		printf("  params:    %s\n", n->params);
}

static void entry_begin(struct explain_out *o, const char *family, __u32 number)
{
	if (o->json) {
		printf("%s{\"family\":\"%s\",\"number\":%u", o->first ? "" : ",", family, number);
		o->first = 0;
	} else {
		printf("\n%s 0x%x:\n", family, number);
	}
}

static void entry_verdict(const struct explain_out *o, const struct verdict *v)
{
	if (o->json) {
		printf(",\"admitted\":\"%s\",\"reason\":", v->admit);
		json_str(stdout, v->why);
		printf("}");
	} else {
		printf("  admitted:  %s: %s\n", v->admit, v->why);
	}
}

static void explain_esc(struct explain_out *o, const struct nvabi_esc *e, const char *release,
			const struct policy *pol)
{
	struct verdict v = { 0 };
	struct names n;
	int have = !release_names(release, "esc", e->nr, &n);
	char sz[96];

	switch (e->kind) {
	case NVABI_SIZE_EXACT:
		if (e->size2)
			snprintf(sz, sizeof(sz), "%u or %u", e->size, e->size2);
		else
			snprintf(sz, sizeof(sz), "%u", e->size);
		break;
	case NVABI_SIZE_ARRAY:
		snprintf(sz, sizeof(sz), "a non-zero multiple of %u", e->size);
		break;
	case NVABI_SIZE_MIN:
		snprintf(sz, sizeof(sz), "at least %u", e->size);
		break;
	default:
		snprintf(sz, sizeof(sz), "%u (not checked by the driver; nvmediate requires it)",
			 e->size);
	}
	priv_verdict(e->priv, pol, "esc-root", &v);
	if (!strcmp(v.admit, "yes") || !strcmp(v.admit, "root")) {
		size_t l = strlen(v.why);

		if (e->nr == ESC_RM_CONTROL)
			snprintf(v.why + l, sizeof(v.why) - l,
				 "; each RM control inside is checked too (explain --family control)");
		else if (e->nr == ESC_RM_ALLOC)
			snprintf(v.why + l, sizeof(v.why) - l,
				 "; each class allocated is checked too (explain --family class)");
		else if (e->nr == ESC_XFER)
			snprintf(v.why + l, sizeof(v.why) - l,
				 "; the inner escape is checked as a direct one (not another XFER)");
	}
	entry_begin(o, "escape", e->nr);
	if (o->json) {
		printf(",\"size\":%u,\"size2\":%u,\"size_check\":\"%s\",\"node\":\"%s\",\"privilege\":\"%s\"",
		       e->size, e->size2,
		       e->kind == NVABI_SIZE_EXACT ? "exact" : e->kind == NVABI_SIZE_ARRAY ? "array" :
		       e->kind == NVABI_SIZE_MIN ? "min" : "unchecked",
		       e->node == NVABI_NODE_CTL ? "control" : e->node == NVABI_NODE_GPU ? "gpu" :
		       e->node == NVABI_NODE_ANY ? "either" : "other",
		       e->priv < 6 ? priv_s[e->priv] : "?");
	} else {
		printf("  size:      %s\n", sz);
		printf("  node:      %s\n", e->node < 6 ? node_s[e->node] : "?");
		printf("  privilege: %s\n", e->priv < 6 ? priv_s[e->priv] : "?");
	}
	print_names(o, &n, have, "name:");
	print_flags(o, e->flags, e->fd, e->nfd);
	entry_verdict(o, &v);
}

static void explain_ctrl(struct explain_out *o, const struct nvabi_ctrl *e, const char *release,
			 const struct policy *pol)
{
	struct verdict v = { 0 };
	struct names n;
	int have = !release_names(release, "ctrl", e->cmd, &n);
	char sz[32];

	size_desc(sz, sizeof(sz), e->size);
	if ((e->cmd & CTRL_GSS_LEGACY) && !pol->allow_gss) {
		v.admit = "no";
		snprintf(v.why, sizeof(v.why),
			 "GSS-legacy command (cmd & 0x8000): EPERM (ctrl-gss-legacy) unless allow_gss=Y");
	} else {
		priv_verdict(e->priv, pol, "ctrl-root", &v);
		if (strcmp(v.admit, "no") && e->size == NVABI_SIZE_UNKNOWN) {
			v.admit = "no";
			snprintf(v.why, sizeof(v.why),
				 "params not recorded: EPERM (kernel-only)");
		} else if (strcmp(v.admit, "no")) {
			size_t l = strlen(v.why);

			snprintf(v.why + l, sizeof(v.why) - l,
				 "; paramsSize must be %u; FINN-serialized params %s", e->size,
				 pol->allow_finn ? "allowed (allow_finn=Y)" :
				 "refused with EPERM (ctrl-finn) unless allow_finn=Y");
		}
	}
	entry_begin(o, "control", e->cmd);
	if (o->json) {
		printf(",\"size\":");
		if (e->size == NVABI_SIZE_UNKNOWN)
			printf("null");
		else
			printf("%u", e->size);
		printf(",\"node\":\"control\",\"privilege\":\"%s\",\"root_without_access_rights\":%s,\"test_only\":%s,\"access_right\":%u,\"gss_legacy\":%s",
		       e->priv < 6 ? priv_s[e->priv] : "?",
		       e->flags & NVABI_F_ROOT_NO_RIGHTS ? "true" : "false",
		       e->flags & NVABI_F_TEST_ONLY ? "true" : "false", e->access,
		       e->cmd & CTRL_GSS_LEGACY ? "true" : "false");
	} else {
		printf("  size:      %s (paramsSize of NV_ESC_RM_CONTROL)\n", sz);
		printf("  node:      control (/dev/nvidiactl), inside NV_ESC_RM_CONTROL\n");
		printf("  privilege: %s%s%s\n", e->priv < 6 ? priv_s[e->priv] : "?",
		       e->flags & NVABI_F_ROOT_NO_RIGHTS ? ", root unless access rights are on" : "",
		       e->flags & NVABI_F_TEST_ONLY ? ", test only" : "");
		if (e->access)
			printf("  access:    right %u required\n", e->access);
		if (e->cmd & CTRL_GSS_LEGACY)
			printf("  gss:       GSS-legacy command\n");
	}
	print_names(o, &n, have, "resource:");
	print_flags(o, e->flags, e->fd, e->nfd);
	entry_verdict(o, &v);
}

static void explain_class(struct explain_out *o, const struct nvabi_class *e, const char *release,
			  const struct policy *pol)
{
	static const char *const params_s[] = { "none", "optional", "required" };
	struct verdict v = { 0 };
	struct names n;
	int have = !release_names(release, "class", e->hclass, &n);
	char sz[32];

	size_desc(sz, sizeof(sz), e->size);
	if (e->hclass == CLS_ROOT || e->hclass == CLS_ROOT_NON_PRIV || e->hclass == CLS_ROOT_CLIENT) {
		v.admit = "yes";
		snprintf(v.why, sizeof(v.why),
			 "root-client class: any caller (its optional NvHandle must be readable)");
	} else if (e->hclass == CLS_EVENT_KCB || e->hclass == CLS_EVENT_KCB_EX) {
		v.admit = "no";
		snprintf(v.why, sizeof(v.why),
			 "kernel-callback event class: EPERM (class-kernel-callback)");
	} else {
		priv_verdict(e->priv, pol, "class-root", &v);
		if (strcmp(v.admit, "no") && e->size == NVABI_SIZE_UNKNOWN) {
			v.admit = "no";
			snprintf(v.why, sizeof(v.why), "params not recorded: EPERM (kernel-only)");
		} else if (strcmp(v.admit, "no") && e->size > PARAMS_MAX) {
			v.admit = "no";
			snprintf(v.why, sizeof(v.why), "params over 1 MiB: E2BIG (class-params-too-big)");
		} else if (strcmp(v.admit, "no") && e->params == NVABI_PARAMS_REQUIRED && e->size) {
			size_t l = strlen(v.why);

			snprintf(v.why + l, sizeof(v.why) - l,
				 "; pAllocParms must not be NULL (class-params-null)");
		}
	}
	entry_begin(o, "class", e->hclass);
	if (o->json) {
		printf(",\"size\":");
		if (e->size == NVABI_SIZE_UNKNOWN)
			printf("null");
		else
			printf("%u", e->size);
		printf(",\"node\":\"control\",\"privilege\":\"%s\",\"params\":\"%s\"",
		       e->priv < 6 ? priv_s[e->priv] : "?", e->params < 3 ? params_s[e->params] : "?");
	} else {
		printf("  size:      %s (class params)\n", sz);
		printf("  node:      control (/dev/nvidiactl), allocated with NV_ESC_RM_ALLOC\n");
		printf("  privilege: %s\n", e->priv < 6 ? priv_s[e->priv] : "?");
		printf("  params:    %s\n", e->params < 3 ? params_s[e->params] : "?");
	}
	if (!o->json && have) {
		if (n.name[0])
			printf("  name:      %s\n", n.name);
		if (n.params[0])
			printf("  type:      %s\n", n.params);
	} else {
		print_names(o, &n, have, "name:");
	}
	print_flags(o, e->flags, e->fd, e->nfd);
	entry_verdict(o, &v);
}

static void explain_uvm(struct explain_out *o, const struct nvabi_uvm *e, const char *release)
{
	struct verdict v = { 0 };
	struct names n;
	int have = !release_names(release, "uvm", e->cmd, &n);

	if (e->node == NVABI_NODE_UVM) {
		v.admit = "yes";
		snprintf(v.why, sizeof(v.why), "any caller on /dev/nvproxy-uvm");
	} else {
		v.admit = "no";
		snprintf(v.why, sizeof(v.why),
			 "a command of /dev/nvidia-uvm-tools, which is not mediated: EINVAL (uvm-node)");
	}
	entry_begin(o, "uvm", e->cmd);
	if (o->json)
		printf(",\"size\":%u,\"node\":\"%s\"", e->size,
		       e->node == NVABI_NODE_UVM ? "uvm" : "uvm-tools");
	else {
		printf("  size:      %u\n", e->size);
		printf("  node:      %s\n", e->node < 6 ? node_s[e->node] : "?");
	}
	print_names(o, &n, have, "name:");
	print_flags(o, e->flags, e->fd, e->nfd);
	entry_verdict(o, &v);
}

static void usage_explain(FILE *f)
{
	fprintf(f,
		"usage: %s explain NUMBER [--version V] [--family escape|control|class|uvm]\n"
		"                  [--abi DIR] [--json]\n"
		"\n"
		"Say what NUMBER is in the ioctl ABI of driver version V: for each family\n"
		"(escape number, RM control command, RM allocation class, UVM command) where\n"
		"the number exists, its size, node, privilege, flags (pointers, fds) and\n"
		"whether nvmediate's policy admits it. NUMBER is decimal or 0x-hex.\n"
		"\n"
		"  --version V   driver version (default: /sys/class/nvmediate/driver_version)\n"
		"  --family F    only this family: escape, control, class or uvm\n"
		"  --abi DIR     abi/ directory whose releases/*.abi give command names\n"
		"                (default: $NVPROXYCTL_ABI, else abi/ next to the tool)\n"
		"  --json        one JSON object\n"
		"\n"
		"The policy is the module parameters allow_root, allow_finn, allow_gss read\n"
		"from /sys/module/nvmediate/parameters/ when nvmediate is loaded, else their\n"
		"defaults (all N).\n"
		"\n"
		"exit: 0 found, 1 error, 2 usage, 3 nvmediate not loaded (and no --version),\n"
		"      4 the number is in no family of that version, 5 the version is outside\n"
		"      every known range\n",
		prog);
}

static int parse_u32(const char *s, __u32 *out)
{
	unsigned long long x;
	char *end;

	if (!*s || *s == '-')
		return -1;
	errno = 0;
	x = strtoull(s, &end, 0);
	if (errno || *end || x > 0xffffffffULL)
		return -1;
	*out = (__u32)x;
	return 0;
}

static int cmd_explain(int argc, char **argv)
{
	const char *number = NULL, *version = NULL, *family = NULL, *abiopt = NULL;
	char sysver[128];
	struct explain_out o = { 0, 1 };
	struct policy pol;
	struct lookup lk;
	unsigned int abi;
	__u64 key;
	__u32 num;
	int i, found = 0;
	int fe, fc, fk, fu;

	for (i = 1; i < argc; i++) {
		const char *a = argv[i];

		if (!strcmp(a, "--help") || !strcmp(a, "-h")) {
			usage_explain(stdout);
			return EXIT_OK;
		} else if (!strcmp(a, "--json")) {
			o.json = 1;
		} else if (!strcmp(a, "--version") || !strcmp(a, "--family") || !strcmp(a, "--abi")) {
			if (i + 1 >= argc) {
				err("explain: %s needs a value", a);
				usage_explain(stderr);
				return EXIT_USAGE;
			}
			if (!strcmp(a, "--version"))
				version = argv[++i];
			else if (!strcmp(a, "--family"))
				family = argv[++i];
			else
				abiopt = argv[++i];
		} else if (!strncmp(a, "--version=", 10)) {
			version = a + 10;
		} else if (!strncmp(a, "--family=", 9)) {
			family = a + 9;
		} else if (!strncmp(a, "--abi=", 6)) {
			abiopt = a + 6;
		} else if (a[0] == '-' && a[1] && !(a[1] >= '0' && a[1] <= '9')) {
			err("explain: unknown option '%s'", a);
			usage_explain(stderr);
			return EXIT_USAGE;
		} else if (!number) {
			number = a;
		} else {
			err("explain: one NUMBER only ('%s')", a);
			usage_explain(stderr);
			return EXIT_USAGE;
		}
	}
	if (!number) {
		err("explain: NUMBER missing");
		usage_explain(stderr);
		return EXIT_USAGE;
	}
	if (parse_u32(number, &num)) {
		err("explain: '%s' is not a number (decimal or 0x-hex, 32 bits)", number);
		return EXIT_USAGE;
	}
	fe = fc = fk = fu = !family;
	if (family) {
		if (!strcmp(family, "escape"))
			fe = 1;
		else if (!strcmp(family, "control"))
			fc = 1;
		else if (!strcmp(family, "class"))
			fk = 1;
		else if (!strcmp(family, "uvm"))
			fu = 1;
		else {
			err("explain: unknown family '%s' (escape, control, class or uvm)", family);
			return EXIT_USAGE;
		}
	}
	if (!version) {
		if (read_line("/sys/class/nvmediate/driver_version", sysver, sizeof(sysver))) {
			err("nvmediate is not loaded (no /sys/class/nvmediate/driver_version); pass --version V");
			return EXIT_NOTLOADED;
		}
		if (!strcmp(sysver, "none") || !sysver[0]) {
			err("nvmediate has not detected the driver's version yet (driver_version is '%s'); pass --version V",
			    sysver);
			return EXIT_ERR;
		}
		version = sysver;
	}
	if (nvabi_parse_version(version, &key)) {
		err("explain: '%s' is not a driver version (e.g. 595.45.04)", version);
		return EXIT_USAGE;
	}
	lookup_version(key, &lk);
	if (!lk.range) {
		err("driver version %s is outside every known ABI range: nvmediate refuses it", version);
		return EXIT_OUTSIDE;
	}
	abi = lk.range->abi;
	read_policy(&pol);
	find_abi_dir(abiopt);

	if (o.json) {
		printf("{\"number\":%u,\"version\":", num);
		json_str(stdout, version);
		printf(",\"tier\":\"%s\",\"range\":{\"first\":", lk.tier);
		json_str(stdout, lk.range->first_name);
		printf(",\"last\":");
		json_str(stdout, lk.range->last_name);
		printf("},\"abi\":%u,\"policy\":{\"allow_root\":%s,\"allow_finn\":%s,\"allow_gss\":%s,\"source\":\"%s\"},\"entries\":[",
		       abi, pol.allow_root ? "true" : "false", pol.allow_finn ? "true" : "false",
		       pol.allow_gss ? "true" : "false", pol.from_sysfs ? "sysfs" : "defaults");
	} else {
		printf("0x%x (%u) in driver %s (%s, range %s..%s, ABI %u)\n", num, num, version, lk.tier,
		       lk.range->first_name, lk.range->last_name, abi);
		printf("policy: allow_root=%c allow_finn=%c allow_gss=%c (%s)%s\n",
		       pol.allow_root ? 'Y' : 'N', pol.allow_finn ? 'Y' : 'N',
		       pol.allow_gss ? 'Y' : 'N',
		       pol.from_sysfs ? "from /sys/module/nvmediate/parameters" : "defaults: nvmediate not loaded",
		       pol.audit ? "; audit=Y: refused calls are forwarded and logged" : "");
	}
	if (fe && num <= 0xff) {
		const struct nvabi_esc *e = find_esc(num, abi);

		if (e) {
			explain_esc(&o, e, lk.release, &pol);
			found++;
		}
	}
	if (fc) {
		const struct nvabi_ctrl *e = find_ctrl(num, abi);

		if (e) {
			explain_ctrl(&o, e, lk.release, &pol);
			found++;
		}
	}
	if (fk) {
		const struct nvabi_class *e = find_class(num, abi);

		if (e) {
			explain_class(&o, e, lk.release, &pol);
			found++;
		}
	}
	if (fu) {
		const struct nvabi_uvm *e = find_uvm(num, abi);

		if (e) {
			explain_uvm(&o, e, lk.release);
			found++;
		}
	}
	if (o.json)
		printf("]}\n");
	if (!found) {
		err("0x%x is not %s in driver %s's ABI", num,
		    family ? (!strcmp(family, "escape") ? "an escape" :
			      !strcmp(family, "control") ? "an RM control command" :
			      !strcmp(family, "class") ? "a class" : "a UVM command") :
		    "an escape, RM control command, class or UVM command", version);
		return EXIT_UNKNOWN;
	}
	return EXIT_OK;
}

/* ---- stats -------------------------------------------------------------- */

/* docs/operations.md: /sys/class/nvmediate/stats/<family>_<verdict>. */
static const char *const stat_families[] = { "escape", "ctrl", "alloc", "uvm",
					     "open", "mmap", "poll" };
static const char *const stat_verdicts[] = { "forwarded", "refused", "answered", "audited" };
#define NFAM	(sizeof(stat_families) / sizeof(stat_families[0]))
#define NVERD	(sizeof(stat_verdicts) / sizeof(stat_verdicts[0]))

/* Read every counter; -1 when one cannot be read (no stats/ directory). */
static int read_counters(unsigned long long c[NFAM][NVERD])
{
	unsigned int f, v;

	for (f = 0; f < NFAM; f++) {
		for (v = 0; v < NVERD; v++) {
			char path[96], buf[32], *end;

			snprintf(path, sizeof(path), "/sys/class/nvmediate/stats/%s_%s",
				 stat_families[f], stat_verdicts[v]);
			if (read_line(path, buf, sizeof(buf)))
				return -1;
			c[f][v] = strtoull(buf, &end, 10);
			if (end == buf || *end)
				return -1;
		}
	}
	return 0;
}

/* Totals per verdict, over the ioctl families (escape, ctrl, alloc, uvm). */
static void ioctl_totals(unsigned long long c[NFAM][NVERD], unsigned long long t[NVERD])
{
	unsigned int f, v;

	for (v = 0; v < NVERD; v++)
		for (t[v] = 0, f = 0; f < 4; f++)
			t[v] += c[f][v];
}

static void usage_stats(FILE *f)
{
	fprintf(f,
		"usage: %s stats [--json] [--procs]\n"
		"\n"
		"Show how many calls nvmediate forwarded, refused, answered in the payload\n"
		"and forwarded in audit mode, per family (escape, ctrl, alloc, uvm, open,\n"
		"mmap, poll), since it was loaded (/sys/class/nvmediate/stats/).\n"
		"\n"
		"  --procs  also the same counts per process holding mediated files\n"
		"           (/sys/kernel/debug/nvmediate/procs: root and debugfs needed)\n"
		"  --json   one JSON object\n"
		"\n"
		"exit: 0 ok, 1 error (counters or procs unreadable), 2 usage,\n"
		"      3 nvmediate not loaded\n",
		prog);
}

/* One line of debugfs procs, printed as JSON or text. */
static int print_proc(const char *line, int json, int first)
{
	char buf[2048], *tok, *save = NULL;
	int n = 0;

	snprintf(buf, sizeof(buf), "%s", line);
	if (json)
		printf("%s{", first ? "" : ",");
	for (tok = strtok_r(buf, " ", &save); tok; tok = strtok_r(NULL, " ", &save)) {
		char *eq = strchr(tok, '=');

		if (!eq)
			return -1;
		*eq = '\0';
		if (json) {
			printf("%s", n ? "," : "");
			json_str(stdout, tok);
			putchar(':');
			if (!strcmp(tok, "comm"))
				json_str(stdout, eq + 1);
			else
				printf("%llu", strtoull(eq + 1, NULL, 10));
		} else if (!strcmp(tok, "pid") || !strcmp(tok, "comm") || !strcmp(tok, "files")) {
			printf("%s%s=%s", n ? " " : "  ", tok, eq + 1);
		} else if (strcmp(eq + 1, "0")) {
			printf(" %s=%s", tok, eq + 1);
		}
		n++;
	}
	if (json)
		putchar('}');
	else
		putchar('\n');
	return 0;
}

static int cmd_stats(int argc, char **argv)
{
	unsigned long long c[NFAM][NVERD], t[NVERD];
	int json = 0, procs = 0, i, ret = EXIT_OK;
	unsigned int f, v;
	char path[PATH_MAX], line[2048];
	FILE *pf = NULL;

	for (i = 1; i < argc; i++) {
		if (!strcmp(argv[i], "--help") || !strcmp(argv[i], "-h")) {
			usage_stats(stdout);
			return EXIT_OK;
		} else if (!strcmp(argv[i], "--json")) {
			json = 1;
		} else if (!strcmp(argv[i], "--procs")) {
			procs = 1;
		} else {
			err("stats: unknown argument '%s'", argv[i]);
			usage_stats(stderr);
			return EXIT_USAGE;
		}
	}
	if (!module_loaded()) {
		err("nvmediate is not loaded (no /sys/module/nvmediate): load it with 'modprobe nvmediate'");
		return EXIT_NOTLOADED;
	}
	if (read_counters(c)) {
		err("cannot read /sys/class/nvmediate/stats/ (an nvmediate without counters?)");
		return EXIT_ERR;
	}
	if (procs) {
		hostpath(path, sizeof(path), "/sys/kernel/debug/nvmediate/procs");
		pf = fopen(path, "r");
		if (!pf) {
			err("cannot read /sys/kernel/debug/nvmediate/procs: %s (root and a mounted debugfs are needed)",
			    strerror(errno));
			ret = EXIT_ERR;
		}
	}
	ioctl_totals(c, t);
	if (json) {
		printf("{\"counters\":{");
		for (f = 0; f < NFAM; f++) {
			printf("%s\"%s\":{", f ? "," : "", stat_families[f]);
			for (v = 0; v < NVERD; v++)
				printf("%s\"%s\":%llu", v ? "," : "", stat_verdicts[v], c[f][v]);
			printf("}");
		}
		printf("},\"ioctls\":{");
		for (v = 0; v < NVERD; v++)
			printf("%s\"%s\":%llu", v ? "," : "", stat_verdicts[v], t[v]);
		printf("}");
	} else {
		printf("%-8s", "family");
		for (v = 0; v < NVERD; v++)
			printf(" %12s", stat_verdicts[v]);
		printf("\n");
		for (f = 0; f < NFAM; f++) {
			printf("%-8s", stat_families[f]);
			for (v = 0; v < NVERD; v++)
				printf(" %12llu", c[f][v]);
			printf("\n");
		}
		printf("%-8s", "ioctls");
		for (v = 0; v < NVERD; v++)
			printf(" %12llu", t[v]);
		printf("\n");
	}
	if (pf) {
		int first = 1;

		if (json)
			printf(",\"procs\":[");
		else
			printf("processes (nonzero counts):\n");
		while (fgets(line, sizeof(line), pf)) {
			line[strcspn(line, "\n")] = '\0';
			if (!line[0])
				continue;
			if (print_proc(line, json, first)) {
				err("unexpected line in procs: %s", line);
				ret = EXIT_ERR;
				break;
			}
			first = 0;
		}
		fclose(pf);
		if (json)
			printf("]");
	}
	if (json)
		printf("}\n");
	return ret;
}

/* ---- node sets (docs/policy.md) ---------------------------------------- */

/*
 * What the module takes as a set name: a-z, 0-9, '-', '_', not starting
 * with '-' and ending with a letter or digit, so that "set-NAME" is a CDI
 * device class.
 */
int set_name_ok(const char *name)
{
	size_t i, n = strlen(name);

	if (!n || n >= SET_NAME_MAX || name[0] == '-' || name[0] == '.' ||
	    name[n - 1] == '-' || name[n - 1] == '_')
		return 0;
	for (i = 0; i < n; i++)
		if (!((name[i] >= 'a' && name[i] <= 'z') || (name[i] >= '0' && name[i] <= '9') ||
		      name[i] == '-' || name[i] == '_'))
			return 0;
	return 1;
}

static void set_attr_path(char *buf, size_t len, const char *set, const char *attr)
{
	snprintf(buf, len, SETS_DIR "/%s/%s", set, attr);
}

/* Host path of a set's node: kind 'c' control, 'u' uvm, 'g' GPU k. */
void set_node_path(char *buf, size_t len, const char *set, char kind, int k)
{
	int dflt = !set || !strcmp(set, "default");

	if (kind == 'c')
		snprintf(buf, len, dflt ? "/dev/nvproxy" : "/dev/nvmediate/%s/nvidiactl", set);
	else if (kind == 'u')
		snprintf(buf, len, dflt ? "/dev/nvproxy-uvm" : "/dev/nvmediate/%s/nvidia-uvm", set);
	else if (dflt)
		snprintf(buf, len, "/dev/nvproxy%d", k);
	else
		snprintf(buf, len, "/dev/nvmediate/%s/nvidia%d", set, k);
}

/* 0 when the set exists; prints why not and returns an exit code. */
static int set_check(const char *set)
{
	char path[PATH_MAX];

	if (!set_name_ok(set)) {
		err("'%s' is not a set name (a-z, 0-9, '-', '_', ending with a letter or digit; at most %d)",
		    set, SET_NAME_MAX - 1);
		return EXIT_USAGE;
	}
	if (!module_loaded()) {
		err("nvmediate is not loaded (no /sys/module/nvmediate): load it with 'modprobe nvmediate'");
		return EXIT_NOTLOADED;
	}
	snprintf(path, sizeof(path), SETS_DIR "/%s", set);
	if (!path_exists(path)) {
		err("no node set '%s' (%s)", set, path);
		return EXIT_NOSET;
	}
	return 0;
}

/* The set names, sorted, "default" first; returns how many. */
static int set_names(char names[][SET_NAME_MAX], int max)
{
	char p[PATH_MAX];
	struct dirent *d;
	DIR *dir;
	int n = 0, i, j;

	hostpath(p, sizeof(p), SETS_DIR);
	dir = opendir(p);
	if (!dir)
		return 0;
	while ((d = readdir(dir)) && n < max) {
		if (!set_name_ok(d->d_name))
			continue;
		/* set_name_ok(): shorter than SET_NAME_MAX */
		memcpy(names[n++], d->d_name, strlen(d->d_name) + 1);
	}
	closedir(dir);
	for (i = 1; i < n; i++)
		for (j = i; j > 0; j--) {
			int a = !strcmp(names[j - 1], "default"), b = !strcmp(names[j], "default");
			char t[SET_NAME_MAX];

			if (a || (!b && strcmp(names[j - 1], names[j]) <= 0))
				break;
			memcpy(t, names[j], SET_NAME_MAX);
			memcpy(names[j], names[j - 1], SET_NAME_MAX);
			memcpy(names[j - 1], t, SET_NAME_MAX);
		}
	return n;
}

/* A whole (small) sysfs file into a malloc'ed string; NULL when unreadable. */
static char *read_all(const char *path)
{
	char p[PATH_MAX];
	size_t n = 0, cap = 4096;
	char *buf = malloc(cap + 1);
	FILE *f;

	hostpath(p, sizeof(p), path);
	f = fopen(p, "r");
	if (!f || !buf) {
		if (f)
			fclose(f);
		free(buf);
		return NULL;
	}
	for (;;) {
		size_t r = fread(buf + n, 1, cap - n, f);

		n += r;
		if (n < cap)
			break;
		cap *= 2;
		buf = realloc(buf, cap + 1);
		if (!buf) {
			fclose(f);
			return NULL;
		}
	}
	if (ferror(f)) {
		fclose(f);
		free(buf);
		return NULL;
	}
	fclose(f);
	buf[n] = '\0';
	return buf;
}

/* ---- status ------------------------------------------------------------- */

void stat_node(struct node *n)
{
	char p[PATH_MAX];
	struct stat st;

	hostpath(p, sizeof(p), n->path);
	n->present = stat(p, &st) == 0;
	n->chr = n->present && S_ISCHR(st.st_mode);
	n->major = n->chr ? major(st.st_rdev) : 0;
	n->minor = n->chr ? minor(st.st_rdev) : 0;
}

/*
 * The GPU nodes present: /dev/nvproxyN for the default set (@set NULL or
 * "default"), /dev/nvmediate/SET/nvidiaN for another; returns how many.
 */
int gpu_nodes(int present[MAX_GPUS], const char *set)
{
	int dflt = !set || !strcmp(set, "default");
	const char *pre = dflt ? "nvproxy" : "nvidia";
	size_t pl = strlen(pre);
	char p[PATH_MAX], dev[PATH_MAX];
	struct dirent *d;
	DIR *dir;
	int n = 0;

	memset(present, 0, sizeof(int) * MAX_GPUS);
	if (dflt)
		snprintf(dev, sizeof(dev), "/dev");
	else
		snprintf(dev, sizeof(dev), "/dev/nvmediate/%s", set);
	hostpath(p, sizeof(p), dev);
	dir = opendir(p);
	if (!dir)
		return 0;
	while ((d = readdir(dir))) {
		const char *s = d->d_name;
		char *end;
		unsigned long k;

		if (strncmp(s, pre, pl) || s[pl] < '0' || s[pl] > '9')
			continue;
		k = strtoul(s + pl, &end, 10);
		if (*end || k >= MAX_GPUS || (s[pl] == '0' && s[pl + 1]))
			continue;
		if (!present[k])
			n++;
		present[k] = 1;
	}
	closedir(dir);
	return n;
}

static void usage_status(FILE *f)
{
	fprintf(f,
		"usage: %s status [--json]\n"
		"\n"
		"Show nvmediate's state: the module version, the host driver version, the\n"
		"tier, range and version source nvmediate chose, the number of ranges\n"
		"compiled in (/sys/class/nvmediate/), the module parameters\n"
		"(/sys/module/nvmediate/parameters/), the mediated nodes of the default\n"
		"set present in /dev with their device numbers, and every node set with\n"
		"its nodes, open files and profile (/sys/kernel/nvmediate/sets/).\n"
		"\n"
		"  --json   one JSON object\n"
		"\n"
		"exit: 0 ok, 1 error, 2 usage, 3 nvmediate not loaded\n",
		prog);
}

static const char *const param_names[] = { "num_gpus", "uvm_path", "force_version",
					   "accept_outside", "allow_root", "allow_finn",
					   "allow_gss", "audit", "sets" };
#define NPARAMS (sizeof(param_names) / sizeof(param_names[0]))

#define MAX_SETS	16

/* Every node set: JSON objects (comma-separated) or text lines. */
static void status_sets(int json)
{
	static const char *const knobs[] = { "audit", "allow_root", "allow_finn", "allow_gss" };
	char names[MAX_SETS][SET_NAME_MAX];
	int n = set_names(names, MAX_SETS), i, k;

	if (!n && !json)
		printf("  (none: /sys/kernel/nvmediate/sets is missing)\n");
	for (i = 0; i < n; i++) {
		char path[PATH_MAX], caps[128], ctl[96], opn[32], kv[4][16];
		char *allow, *line, *save;
		int na = 0;

		set_attr_path(path, sizeof(path), names[i], "caps");
		if (read_line(path, caps, sizeof(caps)))
			snprintf(caps, sizeof(caps), "?");
		set_attr_path(path, sizeof(path), names[i], "open_files");
		if (read_line(path, opn, sizeof(opn)))
			snprintf(opn, sizeof(opn), "?");
		for (k = 0; k < 4; k++) {
			set_attr_path(path, sizeof(path), names[i], knobs[k]);
			if (read_line(path, kv[k], sizeof(kv[k])))
				snprintf(kv[k], sizeof(kv[k]), "?");
		}
		set_node_path(ctl, sizeof(ctl), names[i], 'c', 0);
		set_attr_path(path, sizeof(path), names[i], "allow");
		allow = read_all(path);
		if (json) {
			printf("%s{\"name\":", i ? "," : "");
			json_str(stdout, names[i]);
			printf(",\"control_node\":");
			json_str(stdout, ctl);
			printf(",\"open_files\":%s,\"caps\":",
			       opn[0] >= '0' && opn[0] <= '9' ? opn : "null");
			json_str(stdout, caps);
			for (k = 0; k < 4; k++)
				printf(",\"%s\":%s", knobs[k],
				       !strcmp(kv[k], "1") ? "true" :
				       !strcmp(kv[k], "0") ? "false" : "null");
			printf(",\"allow\":[");
		} else {
			printf("  %-12s %s ...  open files %s\n", names[i], ctl, opn);
			printf("    caps %s; audit %s, allow_root %s, allow_finn %s, allow_gss %s\n",
			       caps, kv[0], kv[1], kv[2], kv[3]);
		}
		for (line = allow ? strtok_r(allow, "\n", &save) : NULL; line;
		     line = strtok_r(NULL, "\n", &save)) {
			if (json) {
				printf("%s", na ? "," : "");
				json_str(stdout, line);
			} else {
				printf("    allow %s\n", line);
			}
			na++;
		}
		if (json)
			printf("]}");
		free(allow);
	}
}

static int cmd_status(int argc, char **argv)
{
	static const char *const cls[] = { "driver_version", "tier", "range", "version_source",
					   "ranges" };
	char modver[64], vals[5][128], params[NPARAMS][256];
	int have[5], phave[NPARAMS];
	int json = 0, i, ngpu, present[MAX_GPUS];
	struct node nodes[2 + MAX_GPUS];
	int nn = 0, have_counts;
	unsigned long long counts[NFAM][NVERD], totals[NVERD];
	struct policy pol;
	unsigned int v;

	for (i = 1; i < argc; i++) {
		if (!strcmp(argv[i], "--help") || !strcmp(argv[i], "-h")) {
			usage_status(stdout);
			return EXIT_OK;
		} else if (!strcmp(argv[i], "--json")) {
			json = 1;
		} else {
			err("status: unknown argument '%s'", argv[i]);
			usage_status(stderr);
			return EXIT_USAGE;
		}
	}
	if (!module_loaded()) {
		err("nvmediate is not loaded (no /sys/module/nvmediate): load it with 'modprobe nvmediate'");
		return EXIT_NOTLOADED;
	}
	if (read_line("/sys/module/nvmediate/version", modver, sizeof(modver)))
		snprintf(modver, sizeof(modver), "unknown");
	for (i = 0; i < 5; i++) {
		char path[96];

		snprintf(path, sizeof(path), "/sys/class/nvmediate/%s", cls[i]);
		have[i] = !read_line(path, vals[i], sizeof(vals[i]));
	}
	for (i = 0; i < (int)NPARAMS; i++) {
		char path[128];

		snprintf(path, sizeof(path), "/sys/module/nvmediate/parameters/%s", param_names[i]);
		phave[i] = !read_line(path, params[i], sizeof(params[i]));
	}

	snprintf(nodes[nn].path, sizeof(nodes[nn].path), "/dev/nvproxy");
	snprintf(nodes[nn++].mediates, sizeof(nodes[0].mediates), "/dev/nvidiactl");
	snprintf(nodes[nn].path, sizeof(nodes[nn].path), "/dev/nvproxy-uvm");
	snprintf(nodes[nn++].mediates, sizeof(nodes[0].mediates), "/dev/nvidia-uvm");
	ngpu = gpu_nodes(present, NULL);
	for (i = 0; i < MAX_GPUS; i++) {
		if (!present[i])
			continue;
		snprintf(nodes[nn].path, sizeof(nodes[nn].path), "/dev/nvproxy%d", i);
		snprintf(nodes[nn++].mediates, sizeof(nodes[0].mediates), "/dev/nvidia%d", i);
	}
	for (i = 0; i < nn; i++)
		stat_node(&nodes[i]);
	read_policy(&pol);
	have_counts = !read_counters(counts);
	if (have_counts)
		ioctl_totals(counts, totals);

	if (json) {
		printf("{\"loaded\":true,\"module_version\":");
		json_str(stdout, modver);
		printf(",\"driver_version\":");
		json_str_or_null(stdout, have[0] ? vals[0] : NULL);
		printf(",\"tier\":");
		json_str_or_null(stdout, have[1] ? vals[1] : NULL);
		printf(",\"range\":");
		json_str_or_null(stdout, have[2] ? vals[2] : NULL);
		printf(",\"version_source\":");
		json_str_or_null(stdout, have[3] ? vals[3] : NULL);
		printf(",\"ranges\":");
		if (have[4] && vals[4][0] >= '0' && vals[4][0] <= '9')
			printf("%lu", strtoul(vals[4], NULL, 10));
		else
			printf("null");
		printf(",\"parameters\":{");
		for (i = 0; i < (int)NPARAMS; i++) {
			printf("%s\"%s\":", i ? "," : "", param_names[i]);
			json_str_or_null(stdout, phave[i] ? params[i] : NULL);
		}
		printf("},\"policy\":");
		if (pol.from_sysfs)
			printf("{\"nodes\":\"all\",\"mode\":\"%s\",\"allow_root\":%s,\"allow_finn\":%s,\"allow_gss\":%s}",
			       pol.audit ? "audit" : "enforce", pol.allow_root ? "true" : "false",
			       pol.allow_finn ? "true" : "false", pol.allow_gss ? "true" : "false");
		else
			printf("null");
		printf(",\"calls\":");
		if (have_counts) {
			printf("{");
			for (v = 0; v < NVERD; v++)
				printf("%s\"%s\":%llu", v ? "," : "", stat_verdicts[v], totals[v]);
			printf(",\"open_refused\":%llu}", counts[4][1]);
		} else {
			printf("null");
		}
		printf(",\"gpu_nodes\":%d,\"nodes\":[", ngpu);
		for (i = 0; i < nn; i++) {
			printf("%s{\"path\":\"%s\",\"mediates\":\"%s\",\"present\":%s", i ? "," : "",
			       nodes[i].path, nodes[i].mediates, nodes[i].present ? "true" : "false");
			if (nodes[i].chr)
				printf(",\"major\":%u,\"minor\":%u", nodes[i].major, nodes[i].minor);
			printf("}");
		}
		printf("],\"sets\":[");
		status_sets(1);
		printf("]}\n");
		return EXIT_OK;
	}
	printf("nvmediate %s\n", modver);
	printf("  driver version:  %s\n", have[0] ? vals[0] : "(unreadable)");
	printf("  tier:            %s\n", have[1] ? vals[1] : "(unreadable)");
	printf("  range:           %s\n", have[2] ? vals[2] : "(unreadable)");
	printf("  version source:  %s\n", have[3] ? vals[3] : "(unreadable)");
	printf("  ranges known:    %s\n", have[4] ? vals[4] : "(unreadable)");
	printf("parameters:\n");
	for (i = 0; i < (int)NPARAMS; i++)
		printf("  %-15s  %s\n", param_names[i],
		       phave[i] ? (params[i][0] ? params[i] : "(empty)") : "(unreadable)");
	if (pol.from_sysfs)
		printf("policy (every node): %s; allow_root=%s allow_finn=%s allow_gss=%s\n",
		       pol.audit ? "audit (would-be refusals forwarded and logged)" :
		       "enforce", pol.allow_root ? "Y" : "N", pol.allow_finn ? "Y" : "N",
		       pol.allow_gss ? "Y" : "N");
	else
		printf("policy:            (unreadable)\n");
	if (have_counts)
		printf("ioctls:            %llu forwarded, %llu refused, %llu answered, %llu audited; %llu opens refused\n",
		       totals[0], totals[1], totals[2], totals[3], counts[4][1]);
	else
		printf("ioctls:            (no counters)\n");
	printf("nodes:\n");
	for (i = 0; i < nn; i++) {
		if (nodes[i].chr)
			printf("  %-18s %3u:%-3u  mediates %s\n", nodes[i].path, nodes[i].major,
			       nodes[i].minor, nodes[i].mediates);
		else
			printf("  %-18s %-7s  mediates %s\n", nodes[i].path,
			       nodes[i].present ? "not chr" : "missing", nodes[i].mediates);
	}
	printf("sets:\n");
	status_sets(0);
	return EXIT_OK;
}

/* ---- profile ------------------------------------------------------------ */

static const char *const fam_names[] = { "esc", "ctrl", "alloc", "uvm" };

/* Profiles and records say "esc"; the kernel log line says "escape". */
static int fam_index(const char *s)
{
	int i;

	if (!strcmp(s, "escape"))
		return 0;
	for (i = 0; i < 4; i++)
		if (!strcmp(s, fam_names[i]))
			return i;
	return -1;
}

struct refusal {
	int fam;
	unsigned int nr;
	char rule[32];
	unsigned long count;
};

struct refusals {
	struct refusal *r;
	int n, cap;
};

static int refusal_add(struct refusals *rs, int fam, unsigned int nr, const char *rule,
		       unsigned long count)
{
	int i;

	for (i = 0; i < rs->n; i++)
		if (rs->r[i].fam == fam && rs->r[i].nr == nr && !strcmp(rs->r[i].rule, rule)) {
			rs->r[i].count += count;
			return 0;
		}
	if (rs->n == rs->cap) {
		struct refusal *r = realloc(rs->r, sizeof(*r) * (rs->cap ? rs->cap * 2 : 64));

		if (!r)
			return -1;
		rs->r = r;
		rs->cap = rs->cap ? rs->cap * 2 : 64;
	}
	rs->r[rs->n].fam = fam;
	rs->r[rs->n].nr = nr;
	snprintf(rs->r[rs->n].rule, sizeof(rs->r[rs->n].rule), "%s", rule);
	rs->r[rs->n++].count = count;
	return 0;
}

/* One "FAMILY 0xNUMBER RULE COUNT" line of a set's refused attribute. */
static int parse_record_line(const char *line, struct refusals *rs)
{
	char fam[16], num[24], rule[32];
	unsigned long count;
	unsigned int nr;
	int f;

	if (line[0] == '#' || line[0] == '\0')
		return 0;
	if (sscanf(line, "%15s %23s %31s %lu", fam, num, rule, &count) != 4)
		return -1;
	f = fam_index(fam);
	if (f < 0 || parse_u32(num, &nr))
		return -1;
	return refusal_add(rs, f, nr, rule, count);
}

/* The value of " key=VALUE" in a log line, into @buf. */
static int log_field(const char *line, const char *key, char *buf, size_t len)
{
	size_t kl = strlen(key), n;
	const char *p = line;

	while ((p = strstr(p, key))) {
		if ((p == line || p[-1] == ' ') && p[kl] == '=') {
			p += kl + 1;
			n = strcspn(p, " \n");
			if (n >= len)
				return -1;
			memcpy(buf, p, n);
			buf[n] = '\0';
			return 0;
		}
		p += kl;
	}
	return -1;
}

/* An audit log line ("nvmediate: audit pid=... family=F nr=N ... rule=R ..."). */
static int parse_log_line(const char *line, struct refusals *rs, const char *set)
{
	char fam[16], num[24], rule[32], node[96];
	unsigned int nr;
	int f;

	if (!strstr(line, "nvmediate: audit "))
		return 0;
	if (log_field(line, "family", fam, sizeof(fam)) ||
	    log_field(line, "nr", num, sizeof(num)) ||
	    log_field(line, "rule", rule, sizeof(rule)) ||
	    log_field(line, "node", node, sizeof(node)))
		return -1;
	if (set) {
		char prefix[SET_NAME_MAX + 16];
		int dflt = !strcmp(set, "default");

		snprintf(prefix, sizeof(prefix), "nvmediate/%s/", set);
		if (dflt ? !strncmp(node, "nvmediate/", 10) : strncmp(node, prefix, strlen(prefix)))
			return 0;
	}
	f = fam_index(fam);
	if (f < 0 || parse_u32(num, &nr))
		return -1;
	return refusal_add(rs, f, nr, rule, 1);
}

static int cmp_refusal(const void *a, const void *b)
{
	const struct refusal *x = a, *y = b;

	if (x->fam != y->fam)
		return x->fam - y->fam;
	return x->nr < y->nr ? -1 : x->nr > y->nr;
}

static int rule_is_profile(const char *rule)
{
	size_t n = strlen(rule);

	return n > 8 && !strcmp(rule + n - 8, "-profile");
}

static int rule_is_root(const char *rule)
{
	return !strcmp(rule, "esc-root") || !strcmp(rule, "ctrl-root") ||
	       !strcmp(rule, "class-root");
}

static const char *const cap_names[] = { "compute", "utility", "graphics", "video",
					 "profiling", "fabric-imex", "rdma" };

/* CAPS as the sysfs attribute takes them, normalised; -1 on an unknown name. */
static int caps_normalise(const char *in, char *out, size_t len)
{
	unsigned int bits = 0, i;
	const char *s = in;
	size_t n;

	while (*s) {
		if (*s == '+' || *s == ',' || *s == ' ' || *s == '\t' || *s == '\n') {
			s++;
			continue;
		}
		n = strcspn(s, "+, \t\n");
		if (n == 4 && !strncmp(s, "none", 4)) {
			s += n;
			continue;
		}
		if (n == 3 && !strncmp(s, "all", 3)) {
			bits = 0x7f;
			s += n;
			continue;
		}
		for (i = 0; i < 7; i++)
			if (strlen(cap_names[i]) == n && !strncmp(s, cap_names[i], n))
				break;
		if (i == 7)
			return -1;
		bits |= 1U << i;
		s += n;
	}
	out[0] = '\0';
	for (i = 0, n = 0; i < 7; i++)
		if (bits & (1U << i))
			n += snprintf(out + n, len - n, "%s%s", n ? " " : "", cap_names[i]);
	if (!n)
		snprintf(out, len, "none");
	return 0;
}

static void usage_profile(FILE *f)
{
	fprintf(f,
		"usage: %s profile [--set NAME | --log FILE|-] [--caps CAPS]\n"
		"\n"
		"Turn what a node set in audit mode would have refused into a profile that\n"
		"admits exactly those calls, written to standard output in the format\n"
		"'nvproxyctl apply' takes (and /sys/kernel/nvmediate/sets/NAME/profile shows):\n"
		"  caps CAPS, audit 0, allow_root/allow_finn/allow_gss 0|1,\n"
		"  one 'allow FAMILY 0xNUMBER' per call a profile refused.\n"
		"Refusals by allow_root, allow_finn and allow_gss set that knob to 1; refusals\n"
		"by the other (shape) rules cannot be admitted by any profile: they are listed\n"
		"as '#' comments and on standard error.\n"
		"\n"
		"  --set NAME   read the set's audit record, /sys/kernel/nvmediate/sets/NAME/refused\n"
		"               (default: the set 'default')\n"
		"  --log FILE   read nvmediate's audit log lines from FILE ('-': standard input),\n"
		"               e.g. dmesg; with --set too, only the lines of that set's nodes\n"
		"  --caps CAPS  the capabilities of the profile (default: none, so that it admits\n"
		"               the calls of the run and the base calls only)\n"
		"\n"
		"exit: 0 ok, 1 error (unreadable record or log, a line that does not parse),\n"
		"      2 usage, 3 nvmediate not loaded, 6 no such set\n",
		prog);
}

static int cmd_profile(int argc, char **argv)
{
	const char *set = NULL, *log = NULL, *caps_in = "none";
	struct refusals rs = { NULL, 0, 0 };
	int root = 0, finn = 0, gss = 0, nshape = 0, bad = 0, i, ret;
	char caps[128], *text, *line, *save;
	char path[PATH_MAX];

	for (i = 1; i < argc; i++) {
		const char *a = argv[i];

		if (!strcmp(a, "--help") || !strcmp(a, "-h")) {
			usage_profile(stdout);
			return EXIT_OK;
		} else if ((!strcmp(a, "--set") || !strcmp(a, "--log") || !strcmp(a, "--caps")) &&
			   i + 1 < argc) {
			if (!strcmp(a, "--set"))
				set = argv[++i];
			else if (!strcmp(a, "--log"))
				log = argv[++i];
			else
				caps_in = argv[++i];
		} else {
			err("profile: unknown argument or missing value '%s'", a);
			usage_profile(stderr);
			return EXIT_USAGE;
		}
	}
	if (caps_normalise(caps_in, caps, sizeof(caps))) {
		err("profile: unknown capability in '%s' (compute utility graphics video profiling fabric-imex rdma, none, all)",
		    caps_in);
		return EXIT_USAGE;
	}
	if (set && !set_name_ok(set)) {
		err("'%s' is not a set name", set);
		return EXIT_USAGE;
	}
	if (log) {
		FILE *f = strcmp(log, "-") ? fopen(log, "r") : stdin;
		char buf[1024];

		if (!f) {
			err("profile: cannot read %s: %s", log, strerror(errno));
			return EXIT_ERR;
		}
		while (fgets(buf, sizeof(buf), f))
			if (parse_log_line(buf, &rs, set)) {
				err("profile: cannot parse the audit line: %s", buf);
				bad = 1;
			}
		if (f != stdin)
			fclose(f);
	} else {
		if (!set)
			set = "default";
		ret = set_check(set);
		if (ret)
			return ret;
		set_attr_path(path, sizeof(path), set, "refused");
		text = read_all(path);
		if (!text) {
			err("profile: cannot read %s%s: %s", root_prefix, path, strerror(errno));
			return EXIT_ERR;
		}
		for (line = strtok_r(text, "\n", &save); line; line = strtok_r(NULL, "\n", &save)) {
			if (!strncmp(line, "# dropped", 9))
				fprintf(stderr, "%s: warning: the record was full (%s): the profile misses calls; empty it (write to refused) and run again\n",
					prog, line + 2);
			if (parse_record_line(line, &rs)) {
				err("profile: cannot parse the record line: %s", line);
				bad = 1;
			}
		}
		free(text);
	}
	if (bad) {
		free(rs.r);
		return EXIT_ERR;
	}
	qsort(rs.r, rs.n, sizeof(*rs.r), cmp_refusal);
	for (i = 0; i < rs.n; i++) {
		if (!strcmp(rs.r[i].rule, "ctrl-finn"))
			finn = 1;
		else if (!strcmp(rs.r[i].rule, "ctrl-gss-legacy"))
			gss = 1;
		else if (rule_is_root(rs.r[i].rule))
			root = 1;
	}
	printf("# nvmediate profile, from %s%s%s\n", log ? "the audit log " : "the audit record of set ",
	       log ? (strcmp(log, "-") ? log : "(stdin)") : set,
	       log && set ? " (that set's lines)" : "");
	printf("caps %s\naudit 0\nallow_root %d\nallow_finn %d\nallow_gss %d\n", caps, root, finn,
	       gss);
	for (i = 0; i < rs.n; i++) {
		if (!rule_is_profile(rs.r[i].rule))
			continue;
		if (i && rs.r[i - 1].fam == rs.r[i].fam && rs.r[i - 1].nr == rs.r[i].nr &&
		    rule_is_profile(rs.r[i - 1].rule))
			continue;
		printf("allow %s 0x%x\n", fam_names[rs.r[i].fam], rs.r[i].nr);
	}
	for (i = 0; i < rs.n; i++) {
		const char *r = rs.r[i].rule;

		if (rule_is_profile(r) || rule_is_root(r) || !strcmp(r, "ctrl-finn") ||
		    !strcmp(r, "ctrl-gss-legacy"))
			continue;
		if (!nshape++) {
			printf("# refused by rules no profile can change (docs/errors.md):\n");
			fprintf(stderr, "%s: note: refusals no profile admits (shape rules):\n", prog);
		}
		printf("#   %s 0x%x %s (%lu)\n", fam_names[rs.r[i].fam], rs.r[i].nr, r,
		       rs.r[i].count);
		fprintf(stderr, "  %s 0x%x %s (%lu)\n", fam_names[rs.r[i].fam], rs.r[i].nr, r,
			rs.r[i].count);
	}
	free(rs.r);
	if (fflush(stdout)) {
		err("profile: cannot write: %s", strerror(errno));
		return EXIT_ERR;
	}
	return EXIT_OK;
}

/* ---- apply -------------------------------------------------------------- */

static void usage_apply(FILE *f)
{
	fprintf(f,
		"usage: %s apply --set NAME [FILE|-]\n"
		"\n"
		"Give node set NAME the profile in FILE (default: standard input), in the\n"
		"format 'nvproxyctl profile' writes: lines 'caps CAPS', 'audit 0|1',\n"
		"'allow_root 0|1', 'allow_finn 0|1', 'allow_gss 0|1' and any number of\n"
		"'allow FAMILY NUMBER' (FAMILY esc, ctrl, alloc or uvm); '#' starts a comment.\n"
		"A part the file leaves out keeps its value, except the allow entries: the\n"
		"set gets exactly those of the file.  The writes go to\n"
		"/sys/kernel/nvmediate/sets/NAME/: allow first ('clear' and the entries),\n"
		"then caps, allow_root, allow_finn, allow_gss, and audit last, so that a set\n"
		"leaving audit mode enforces the complete profile at once.\n"
		"\n"
		"exit: 0 ok, 1 a write failed (e.g. not root), 2 usage or a line that does not\n"
		"      parse (nothing written), 3 nvmediate not loaded, 6 no such set\n",
		prog);
}

static int write_attr(const char *set, const char *attr, const char *val)
{
	char path[PATH_MAX], p[PATH_MAX];
	FILE *f;

	set_attr_path(path, sizeof(path), set, attr);
	hostpath(p, sizeof(p), path);
	f = fopen(p, "w");
	if (!f) {
		err("apply: cannot open %s: %s", p, strerror(errno));
		return -1;
	}
	if (fputs(val, f) == EOF || fflush(f)) {
		err("apply: writing '%.40s' to %s: %s", val, p, strerror(errno));
		fclose(f);
		return -1;
	}
	if (fclose(f)) {
		err("apply: writing '%.40s' to %s: %s", val, p, strerror(errno));
		return -1;
	}
	return 0;
}

static int cmd_apply(int argc, char **argv)
{
	static const char *const knobs[] = { "caps", "allow_root", "allow_finn", "allow_gss",
					     "audit" };
	char val[5][128], buf[512], chunk[3584];
	int have[5] = { 0 }, i, ret, lineno = 0;
	const char *set = NULL, *file = NULL;
	size_t clen = 0;
	char *allow = NULL;
	size_t alen = 0;
	FILE *f;

	for (i = 1; i < argc; i++) {
		if (!strcmp(argv[i], "--help") || !strcmp(argv[i], "-h")) {
			usage_apply(stdout);
			return EXIT_OK;
		} else if (!strcmp(argv[i], "--set") && i + 1 < argc) {
			set = argv[++i];
		} else if (!file && (argv[i][0] != '-' || !strcmp(argv[i], "-"))) {
			file = argv[i];
		} else {
			err("apply: unknown argument '%s'", argv[i]);
			usage_apply(stderr);
			return EXIT_USAGE;
		}
	}
	if (!set) {
		err("apply: which set? (--set NAME)");
		usage_apply(stderr);
		return EXIT_USAGE;
	}
	ret = set_check(set);
	if (ret)
		return ret;
	f = !file || !strcmp(file, "-") ? stdin : fopen(file, "r");
	if (!f) {
		err("apply: cannot read %s: %s", file, strerror(errno));
		return EXIT_ERR;
	}
	/* Parse everything first: nothing is written for a file with a bad line. */
	while (fgets(buf, sizeof(buf), f)) {
		char key[32], a[64], b[64], extra[8];
		int n;

		lineno++;
		buf[strcspn(buf, "#\n")] = '\0';
		n = sscanf(buf, "%31s %63s %63s %7s", key, a, b, extra);
		if (n <= 0)
			continue;
		if (!strcmp(key, "allow") && n == 3) {
			unsigned int nr;
			char *na;

			if (fam_index(a) < 0 || parse_u32(b, &nr))
				goto bad_line;
			na = realloc(allow, alen + 32);
			if (!na)
				goto bad_line;
			allow = na;
			alen += snprintf(allow + alen, 32, "%s 0x%x\n", a, nr);
			continue;
		}
		for (i = 0; i < 5; i++)
			if (!strcmp(key, knobs[i]))
				break;
		if (i == 5 || n < 2)
			goto bad_line;
		if (i == 0) {
			char *rest = buf + strspn(buf, " \t") + 4;

			if (caps_normalise(rest, val[0], sizeof(val[0])))
				goto bad_line;
		} else {
			if (n != 2 || (strcmp(a, "0") && strcmp(a, "1")))
				goto bad_line;
			snprintf(val[i], sizeof(val[i]), "%s", a);
		}
		have[i] = 1;
	}
	if (f != stdin)
		fclose(f);

	/* allow: "clear" and the entries, in writes of less than a page. */
	memcpy(chunk, "clear\n", 7);
	clen = 6;
	for (i = 0; allow && (size_t)i < alen;) {
		size_t l = strcspn(allow + i, "\n") + 1;

		if (clen + l >= sizeof(chunk)) {
			if (write_attr(set, "allow", chunk))
				goto err_write;
			clen = 0;
		}
		memcpy(chunk + clen, allow + i, l);
		clen += l;
		chunk[clen] = '\0';
		i += l;
	}
	if (write_attr(set, "allow", chunk))
		goto err_write;
	free(allow);
	for (i = 0; i < 5; i++)
		if (have[i] && write_attr(set, knobs[i], val[i]))
			return EXIT_ERR;
	return EXIT_OK;

bad_line:
	if (f != stdin)
		fclose(f);
	free(allow);
	err("apply: %s:%d: not a profile line (caps, audit, allow_root, allow_finn, allow_gss, allow FAMILY NUMBER)",
	    file ? file : "(stdin)", lineno);
	return EXIT_USAGE;
err_write:
	free(allow);
	return EXIT_ERR;
}

/* ---- main --------------------------------------------------------------- */

static void usage(FILE *f)
{
	fprintf(f,
		"usage: %s COMMAND [ARGS]\n"
		"\n"
		"Inspect nvmediate, the kernel module mediating NVIDIA device nodes.\n"
		"\n"
		"commands:\n"
		"  status    module, driver version, ABI range, parameters and nodes\n"
		"  stats     calls forwarded, refused, answered and audited, per family\n"
		"  explain   what an ioctl number is in a driver version's ABI, and the policy\n"
		"  cdi       write a Container Device Interface spec for the mediated nodes\n"
		"  profile   turn a node set's audit record (or audit log lines) into a profile\n"
		"  apply     give a node set a profile\n"
		"  help      this text; 'COMMAND --help' for a command's own\n"
		"  version   the version of nvproxyctl (also --version)\n"
		"\n"
		"exit: 0 ok, 1 error, 2 usage, 3 nvmediate not loaded,\n"
		"      4 explain: unknown number, 5 explain: version outside every range,\n"
		"      6 no such node set\n",
		prog);
}

int main(int argc, char **argv)
{
	const char *root = getenv("NVPROXYCTL_ROOT");

	if (root)
		root_prefix = root;
	if (argc < 2) {
		usage(stderr);
		return EXIT_USAGE;
	}
	if (!strcmp(argv[1], "--help") || !strcmp(argv[1], "-h") || !strcmp(argv[1], "help")) {
		usage(stdout);
		return EXIT_OK;
	}
	if (!strcmp(argv[1], "--version") || !strcmp(argv[1], "version")) {
		printf("nvproxyctl %s\n", NVM_VERSION);
		return EXIT_OK;
	}
	if (!strcmp(argv[1], "status"))
		return cmd_status(argc - 1, argv + 1);
	if (!strcmp(argv[1], "explain"))
		return cmd_explain(argc - 1, argv + 1);
	if (!strcmp(argv[1], "stats"))
		return cmd_stats(argc - 1, argv + 1);
	if (!strcmp(argv[1], "cdi"))
		return cmd_cdi(argc - 1, argv + 1);
	if (!strcmp(argv[1], "profile"))
		return cmd_profile(argc - 1, argv + 1);
	if (!strcmp(argv[1], "apply"))
		return cmd_apply(argc - 1, argv + 1);
	err("unknown command '%s'", argv[1]);
	usage(stderr);
	return EXIT_USAGE;
}
