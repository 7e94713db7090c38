// SPDX-License-Identifier: GPL-2.0
/*
 * nvproxyctl explain: what an ioctl number is in a driver version's ABI
 *
 * The ABI data comes from the generated tables (abi/generated/), compiled
 * in; command names come from abi/releases/<release>.abi when that
 * directory can be found.
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
#include "modcheck.h"
#include "verdict.h"

/* Escapes whose payload another family decides (abi/nvabi_fixed.h). */
#define ESC_RM_CONTROL		0x2a
#define ESC_RM_ALLOC		0x2b
#define ESC_XFER		0xd3
/* A control number's GSS-legacy bit (ctrlxxxx.h), shown as a property. */
#define CTRL_GSS_LEGACY		0x8000

static const char *const node_s[] = { "-", "control (/dev/nvidiactl)", "gpu (/dev/nvidiaN)",
				      "either (/dev/nvidiactl or /dev/nvidiaN)",
				      "uvm (/dev/nvidia-uvm)", "uvm-tools (/dev/nvidia-uvm-tools)" };
static const char *const priv_s[] = { "unknown", "user", "root", "kernel", "internal", "none" };
/*
 * The node the driver looks an fd field's number up as (struct nvabi_fd's
 * node), as show's JSON names nodes: nvidia's own, UVM, a capability node of
 * nvidia-caps, an IMEX channel; "none": the driver does not look it up.
 */
static const char *const fd_node_s[] = { "none", "control", "gpu", "either", "uvm", "uvm-tools",
					 "cap", "imex" };

static const char *fd_node(unsigned int node)
{
	return node < sizeof(fd_node_s) / sizeof(fd_node_s[0]) ? fd_node_s[node] : "?";
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
NVABI_DEFINE_LOOKUP(static, find_dep, struct nvabi_dep, nvabi_deps, NVABI_NR_DEPS, cmd)
NVABI_DEFINE_LOOKUP(static, find_emb, struct nvabi_emb, nvabi_embs, NVABI_NR_EMBS, cmd)
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

/*
 * --abi DIR, else $NVPROXYCTL_ABI, else abi/ next to the tool.  Returns -1
 * (said) when the one named by the option or the variable holds no
 * releases/: the names it was asked for would silently be left out.
 */
static int find_abi_dir(const char *opt)
{
	static const char *const rel[] = { "../../abi", "../abi", "abi",
					   "../share/nvmediate/abi" };
	char exe[PATH_MAX], cand[PATH_MAX + 32];
	const char *env = getenv("NVPROXYCTL_ABI");
	ssize_t n;
	size_t i;
	char *slash;

	abi_dir[0] = '\0';
	if (opt || (env && *env)) {
		snprintf(abi_dir, sizeof(abi_dir), "%s", opt ? opt : env);
		if (is_abi_dir(abi_dir))
			return 0;
		err("explain: %s (%s) is no ABI data directory: it has no releases/ (the repository's abi/, or PREFIX/share/nvmediate/abi)",
		    abi_dir, opt ? "--abi" : "NVPROXYCTL_ABI");
		return -1;
	}
	n = readlink("/proc/self/exe", exe, sizeof(exe) - 1);
	if (n <= 0)
		return 0;
	exe[n] = '\0';
	slash = strrchr(exe, '/');
	if (!slash)
		return 0;
	*slash = '\0';
	for (i = 0; i < sizeof(rel) / sizeof(rel[0]); i++) {
		snprintf(cand, sizeof(cand), "%s/%s", exe, rel[i]);
		if (is_abi_dir(cand)) {
			if (!realpath(cand, abi_dir) && strlen(cand) < sizeof(abi_dir))
				memcpy(abi_dir, cand, strlen(cand) + 1);
			return 0;
		}
	}
	return 0;
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

static const char *answer_of(const struct modcheck *m, char *buf, size_t len)
{
	static const struct { int err; const char *name; } e[] = {
		{ -EPERM, "EPERM" }, { -EINVAL, "EINVAL" }, { -E2BIG, "E2BIG" },
		{ -ENOSYS, "ENOSYS" }, { -EFAULT, "EFAULT" }, { -ENOTTY, "ENOTTY" },
	};

	for (size_t i = 0; i < sizeof(e) / sizeof(e[0]); i++)
		if (m->err == e[i].err)
			return e[i].name;
	if (m->err)
		snprintf(buf, len, "errno %d", -m->err);
	else
		snprintf(buf, len, "status 0x%x in the payload", m->status);
	return buf;
}

/*
 * The module's verdict (modcheck.c) in words: who may make the call, or
 * the rule that refuses it and its answer.
 */
static void verdict_of(const struct modcheck *m, unsigned int priv, struct verdict *v)
{
	const char *rule = m->rule ? m->rule : "";
	enum nvm_rule r = rule_of(rule);
	char ans[48];

	v->admit = m->admit;
	if (!strcmp(m->admit, "yes")) {
		snprintf(v->why, sizeof(v->why), "%s",
			 priv == NVABI_PRIV_UNKNOWN ?
			 "privilege not encoded in this release; the driver checks it" : "any caller");
	} else if (!strcmp(m->admit, "root")) {
		snprintf(v->why, sizeof(v->why),
			 "administrator-only: forwarded for callers with CAP_SYS_ADMIN (allow_root=Y), else %s (%s)",
			 answer_of(m, ans, sizeof(ans)), rule);
	} else if (r == NVM_RULE_ESC_ROOT || r == NVM_RULE_CTRL_ROOT || r == NVM_RULE_CLASS_ROOT ||
		   r == NVM_RULE_ALLOC_MEMORY_ROOT) {
		snprintf(v->why, sizeof(v->why),
			 "administrator-only: %s (%s) unless allow_root=Y and CAP_SYS_ADMIN",
			 answer_of(m, ans, sizeof(ans)), rule);
	} else if (r == NVM_RULE_KERNEL_ONLY) {
		if (priv == NVABI_PRIV_USER || priv == NVABI_PRIV_UNKNOWN || priv == NVABI_PRIV_ROOT)
			snprintf(v->why, sizeof(v->why), "params not recorded: EPERM (%s)", rule);
		else
			snprintf(v->why, sizeof(v->why), "%s: EPERM (%s), never from user space",
				 priv < 6 ? priv_s[priv] : "?", rule);
	} else if (r == NVM_RULE_CTRL_GSS_LEGACY) {
		snprintf(v->why, sizeof(v->why),
			 "GSS-legacy command (cmd & 0x8000): EPERM (%s) unless allow_gss=Y", rule);
	} else if (r == NVM_RULE_CLASS_KERNEL_CALLBACK) {
		snprintf(v->why, sizeof(v->why), "kernel-callback event class: EPERM (%s)", rule);
	} else if (r == NVM_RULE_CLASS_PARAMS_TOO_BIG) {
		snprintf(v->why, sizeof(v->why), "params over 1 MiB: E2BIG (%s)", rule);
	} else if (r == NVM_RULE_UVM_NODE) {
		snprintf(v->why, sizeof(v->why),
			 "a command of /dev/nvidia-uvm-tools, which is not mediated: %s (%s)",
			 answer_of(m, ans, sizeof(ans)), rule);
	} else {
		snprintf(v->why, sizeof(v->why), "%s (%s)", answer_of(m, ans, sizeof(ans)), rule);
	}
}

/* Append to a reason. */
static void why_add(struct verdict *v, const char *fmt, ...)
{
	size_t l = strlen(v->why);
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(v->why + l, sizeof(v->why) - l, fmt, ap);
	va_end(ap);
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
	for (i = 0; i < nfd && fd + i < NVABI_NR_FDS && o < len; i++) {
		const struct nvabi_fd *f = &nvabi_fds[fd + i];

		o += (size_t)snprintf(buf + o, len - o, "%s%u(%u bytes, %s%s)", i ? ", " : "",
				      f->off, f->size, f->node ? "looked up as " : "not looked up",
				      f->node ? fd_node(f->node) : "");
	}
}

struct explain_out {
	int json;
	int first;	/* first entry of the JSON "entries" list */
};

static void print_flags(const struct explain_out *o, unsigned int flags, unsigned int fd,
			unsigned int nfd)
{
	char fds[1024];

	fds_desc(fds, sizeof(fds), fd, nfd);
	if (o->json) {
		printf(",\"pointers\":%s,\"fds\":%s,\"fds_nested\":%s,\"fd_offsets\":[",
		       flags & NVABI_F_PTR ? "true" : "false",
		       flags & NVABI_F_FD ? "true" : "false",
		       flags & NVABI_F_FD_NESTED ? "true" : "false");
		for (unsigned int i = 0; i < nfd && fd + i < NVABI_NR_FDS; i++)
			printf("%s%u", i ? "," : "", nvabi_fds[fd + i].off);
		printf("],\"fd_nodes\":[");
		for (unsigned int i = 0; i < nfd && fd + i < NVABI_NR_FDS; i++)
			printf("%s\"%s\"", i ? "," : "", fd_node(nvabi_fds[fd + i].node));
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

static void entry_verdict(const struct explain_out *o, const struct verdict *v,
			  const struct modcheck *m)
{
	if (o->json) {
		printf(",\"capabilities\":");
		json_str(stdout, m->caps ? m->caps_names : "none");
		printf(",\"admitted\":\"%s\",\"rule\":", v->admit);
		json_str_or_null(stdout, m->rule);
		printf(",\"reason\":");
		json_str(stdout, v->why);
		printf("}");
	} else {
		printf("  caps:      %s\n", m->caps ? m->caps_names :
		       "none (only a profile's allow entry admits it)");
		printf("  admitted:  %s: %s\n", v->admit, v->why);
	}
}

static void explain_esc(struct explain_out *o, unsigned int abi, const struct nvabi_esc *e,
			 const char *release,
			const struct policy *pol)
{
	struct verdict v = { 0 };
	struct modcheck m;
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
	modcheck_esc(abi, e, pol, &m);
	verdict_of(&m, e->priv, &v);
	if (strcmp(v.admit, "no")) {
		if (e->nr == ESC_RM_CONTROL)
			why_add(&v, "; each RM control inside is checked too (explain --family control)");
		else if (e->nr == ESC_RM_ALLOC)
			why_add(&v, "; each class allocated is checked too (explain --family class)");
		else if (e->nr == ESC_XFER)
			why_add(&v, "; the inner escape is checked as a direct one (not another XFER)");
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
	entry_verdict(o, &v, &m);
}

/*
 * The lists a control's params point to that the driver copies before the
 * control runs, which nvmediate checks after the decision (validate.c).
 */
static void print_embedded(const struct explain_out *o, const struct nvabi_emb *x)
{
	unsigned int i;

	if (o->json) {
		printf(",\"embedded\":");
		if (!x->nlist) {
			printf("\"custom\"");
			return;
		}
		printf("[");
	} else if (!x->nlist) {
		printf("  lists:     the driver follows a pointer in the params its own code picks "
		       "(not checked here)\n");
		return;
	}
	for (i = 0; i < x->nlist && i < NVABI_EMB_LISTS; i++) {
		const struct nvabi_emb_list *l = &x->list[i];
		const char *dir = (l->flags & NVABI_EMB_IN) && (l->flags & NVABI_EMB_OUT) ?
				  "in and out" : l->flags & NVABI_EMB_IN ? "in" :
				  l->flags & NVABI_EMB_OUT ? "out" : "neither";

		if (o->json) {
			printf("%s{\"list_offset\":%u,", i ? "," : "", l->list_off);
			if (l->flags & NVABI_EMB_CONST)
				printf("\"count\":%u", l->count_off);
			else
				printf("\"count_offset\":%u", l->count_off);
			printf(",\"squared\":%s,\"element_size\":%u,\"copied\":\"%s\","
			       "\"empty_while_null\":%s,\"max_bytes\":%u}",
			       l->flags & NVABI_EMB_SQUARE ? "true" : "false", l->elem, dir,
			       l->flags & NVABI_EMB_IFPTR ? "true" : "false",
			       l->flags & NVABI_EMB_NOMAX ? NVM_EMB_NOMAX_MAX : NVABI_EMB_MAX_BYTES);
			continue;
		}
		printf("  list:      pointer at byte %u, ", l->list_off);
		if (l->flags & NVABI_EMB_CONST)
			printf("%u", l->count_off);
		else
			printf("count at byte %u%s", l->count_off,
			       l->flags & NVABI_EMB_SQUARE ? " squared" : "");
		printf(" x %u bytes%s; the driver copies it %s around the control; at most "
		       "%u bytes%s\n", l->elem, l->flags & NVABI_EMB_IFPTR ? " (none while the "
		       "pointer is NULL)" : "", dir,
		       l->flags & NVABI_EMB_NOMAX ? NVM_EMB_NOMAX_MAX : NVABI_EMB_MAX_BYTES,
		       l->flags & NVABI_EMB_NOMAX ? " (nvmediate's bound: the driver has none)" : "");
	}
	if (o->json)
		printf("]");
}

static void explain_ctrl(struct explain_out *o, unsigned int abi, const struct nvabi_ctrl *e,
			 const char *release,
			 const struct policy *pol)
{
	const struct nvabi_emb *x;
	struct verdict v = { 0 };
	struct modcheck m;
	struct names n;
	int have = !release_names(release, "ctrl", e->cmd, &n);
	char sz[32];

	size_desc(sz, sizeof(sz), e->size);
	modcheck_ctrl(abi, e, pol, &m);
	verdict_of(&m, e->priv, &v);
	if (strcmp(v.admit, "no")) {
		why_add(&v, "; paramsSize must be %u; FINN-serialized params ", e->size);
		if (m.finn_admitted)
			why_add(&v, "allowed (allow_finn=Y)");
		else if (m.finn_never)
			why_add(&v, "refused with EPERM (%s) even with allow_finn=Y", m.finn_never);
		else
			why_add(&v, "refused with EPERM (%s) unless allow_finn=Y", m.finn_rule);
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
	x = find_emb(e->cmd, abi);
	if (x)
		print_embedded(o, x);
	entry_verdict(o, &v, &m);
}

/* A deprecated control: the driver converts it before its method tables. */
static void explain_dep(struct explain_out *o, unsigned int abi, const struct nvabi_dep *d,
			const struct policy *pol)
{
	const struct nvabi_ctrl *e2 = find_ctrl(d->v2, abi);
	const char *name = nvabi_dep_names[d - nvabi_deps];
	struct verdict v = { 0 };
	struct modcheck m;
	int custom = d->flags & NVABI_DEP_CUSTOM;
	const char *dir = (d->flags & NVABI_DEP_IN) && (d->flags & NVABI_DEP_OUT) ? "in and out" :
			  d->flags & NVABI_DEP_IN ? "in" : d->flags & NVABI_DEP_OUT ? "out" : "neither";

	modcheck_dep(abi, d, pol, &m);
	verdict_of(&m, e2 ? e2->priv : NVABI_PRIV_UNKNOWN, &v);
	if (strcmp(v.admit, "no"))
		why_add(&v, "; decided as control 0x%x (privilege, profile); paramsSize must be %u",
			d->v2, d->size);
	entry_begin(o, "control", d->cmd);
	if (o->json) {
		printf(",\"size\":%u,\"node\":\"control\",\"privilege\":\"%s\",\"name\":", d->size,
		       e2 && e2->priv < 6 ? priv_s[e2->priv] : "unknown");
		json_str(stdout, name ? name : "");
		printf(",\"deprecated\":{\"becomes\":%u,\"custom\":%s", d->v2,
		       custom ? "true" : "false");
		if (!custom)
			printf(",\"list_offset\":%u,\"count_offset\":%u,\"counts\":\"%s\","
			       "\"element_size\":%u,\"max\":%u,\"copied\":\"%s\"", d->list_off,
			       d->count_off, d->flags & NVABI_DEP_COUNT ? "elements" : "bytes", d->elem,
			       d->max, dir);
		printf("}");
	} else {
		printf("  name:      %s\n", name && *name ? name : "-");
		printf("  size:      %u (paramsSize of NV_ESC_RM_CONTROL: the V1 params)\n", d->size);
		printf("  node:      control (/dev/nvidiactl), inside NV_ESC_RM_CONTROL\n");
		printf("  becomes:   control 0x%x: a deprecated control the driver converts before "
		       "its method tables\n", d->v2);
		if (custom)
			printf("  list:      none the tables describe (the converter's own code)\n");
		else
			printf("  list:      pointer at byte %u, %s at byte %u, %u bytes each, at most "
			       "%u, copied %s\n", d->list_off,
			       d->flags & NVABI_DEP_COUNT ? "count" : "size in bytes", d->count_off,
			       d->elem, d->max, dir);
	}
	entry_verdict(o, &v, &m);
}

static void explain_class(struct explain_out *o, unsigned int abi, const struct nvabi_class *e,
			 const char *release,
			  const struct policy *pol)
{
	static const char *const params_s[] = { "none", "optional", "required" };
	struct verdict v = { 0 };
	struct modcheck m;
	struct names n;
	int have = !release_names(release, "class", e->hclass, &n);
	char sz[32];

	size_desc(sz, sizeof(sz), e->size);
	modcheck_class(abi, e, pol, &m);
	verdict_of(&m, e->priv, &v);
	if (m.root_client && !strcmp(v.admit, "yes"))
		snprintf(v.why, sizeof(v.why),
			 "root-client class: any caller (its optional NvHandle must be readable)");
	else if (strcmp(v.admit, "no") && m.null_params_rule)
		why_add(&v, "; pAllocParms must not be NULL (%s)", m.null_params_rule);
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
	entry_verdict(o, &v, &m);
}

static void explain_uvm(struct explain_out *o, unsigned int abi, const struct nvabi_uvm *e,
			const char *release, const struct policy *pol)
{
	struct verdict v = { 0 };
	struct modcheck m;
	struct names n;
	int have = !release_names(release, "uvm", e->cmd, &n);

	modcheck_uvm(abi, e, pol, &m);
	verdict_of(&m, NVABI_PRIV_USER, &v);
	if (!strcmp(v.admit, "yes"))
		snprintf(v.why, sizeof(v.why), "any caller on /dev/nvproxy-uvm");
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
	entry_verdict(o, &v, &m);
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

/* explain's arguments, and what they give. */
struct explain_opts {
	const char *number, *version, *family, *abiopt;
	__u32 num;		/* number, parsed */
	int fe, fc, fk, fu;	/* the families to look in: escape, control, class, uvm */
	char sysver[128];	/* the version sysfs gives, without --version */
};

/* The arguments into @x and @o, checked: -1 to go on, else the exit status. */
static int parse_explain_args(int argc, char **argv, struct explain_opts *x,
			      struct explain_out *o)
{
	const struct opt opts[] = {
		{ "--json", NULL, NULL, &o->json },
		{ "--version", NULL, &x->version, NULL },
		{ "--family", NULL, &x->family, NULL },
		{ "--abi", NULL, &x->abiopt, NULL },
		{ NULL }
	};
	int i;

	i = parse_args(argc, argv, opts, &x->number, 1, usage_explain);
	if (i >= 0)
		return i;
	if (!x->number) {
		err("explain: NUMBER missing");
		usage_explain(stderr);
		return EXIT_USAGE;
	}
	if (parse_u32(x->number, &x->num)) {
		err("explain: '%s' is not a number (decimal or 0x-hex, 32 bits)", x->number);
		return EXIT_USAGE;
	}
	x->fe = x->fc = x->fk = x->fu = !x->family;
	if (x->family) {
		if (!strcmp(x->family, "escape"))
			x->fe = 1;
		else if (!strcmp(x->family, "control"))
			x->fc = 1;
		else if (!strcmp(x->family, "class"))
			x->fk = 1;
		else if (!strcmp(x->family, "uvm"))
			x->fu = 1;
		else {
			err("explain: unknown family '%s' (escape, control, class or uvm)",
			    x->family);
			return EXIT_USAGE;
		}
	}
	return -1;
}

/*
 * The driver version (--version, else the one nvmediate detected) and its
 * ABI range, into @lk: 0, or the exit status.
 */
static int explain_version(struct explain_opts *x, struct lookup *lk)
{
	__u64 key;

	if (!x->version) {
		if (read_line("/sys/class/nvmediate/driver_version", x->sysver,
			      sizeof(x->sysver))) {
			err("nvmediate is not loaded (no /sys/class/nvmediate/driver_version); pass --version V");
			return EXIT_NOTLOADED;
		}
		if (!strcmp(x->sysver, "none") || !x->sysver[0]) {
			err("nvmediate has not detected the driver's version yet (driver_version is '%s'); pass --version V",
			    x->sysver);
			return EXIT_ERR;
		}
		x->version = x->sysver;
	}
	if (nvabi_parse_version(x->version, &key)) {
		err("explain: '%s' is not a driver version (e.g. 595.45.04)", x->version);
		return EXIT_USAGE;
	}
	lookup_version(key, lk);
	if (!lk->range) {
		err("driver version %s is outside every known ABI range: nvmediate refuses it",
		    x->version);
		return EXIT_OUTSIDE;
	}
	return 0;
}

/* What precedes the entries: the number, version, range and policy. */
static void explain_header(const struct explain_out *o, const struct explain_opts *x,
			   const struct lookup *lk, const struct policy *pol)
{
	unsigned int abi = lk->range->abi;

	if (o->json) {
		printf("{\"number\":%u,\"version\":", x->num);
		json_str(stdout, x->version);
		printf(",\"tier\":\"%s\",\"range\":{\"first\":", lk->tier);
		json_str(stdout, lk->range->first_name);
		printf(",\"last\":");
		json_str(stdout, lk->range->last_name);
		printf("},\"abi\":%u,\"policy\":{\"allow_root\":%s,\"allow_finn\":%s,\"allow_gss\":%s,\"source\":\"%s\"},\"entries\":[",
		       abi, pol->allow_root ? "true" : "false", pol->allow_finn ? "true" : "false",
		       pol->allow_gss ? "true" : "false", pol->from_sysfs ? "sysfs" : "defaults");
	} else {
		printf("0x%x (%u) in driver %s (%s, range %s..%s, ABI %u)\n", x->num, x->num,
		       x->version, lk->tier, lk->range->first_name, lk->range->last_name, abi);
		printf("policy: allow_root=%c allow_finn=%c allow_gss=%c (%s)%s\n",
		       pol->allow_root ? 'Y' : 'N', pol->allow_finn ? 'Y' : 'N',
		       pol->allow_gss ? 'Y' : 'N',
		       pol->from_sysfs ? "from /sys/module/nvmediate/parameters" : "defaults: nvmediate not loaded",
		       pol->audit ? "; audit=Y: refused calls are forwarded and logged" : "");
	}
}

/* An entry for the number in each family asked for where it is one; how many. */
static int explain_entries(struct explain_out *o, const struct explain_opts *x,
			   const struct lookup *lk, const struct policy *pol)
{
	unsigned int abi = lk->range->abi;
	__u32 num = x->num;
	int found = 0;

	if (x->fe && num <= 0xff) {
		const struct nvabi_esc *e = find_esc(num, abi);

		if (e) {
			explain_esc(o, abi, e, lk->release, pol);
			found++;
		}
	}
	if (x->fc) {
		const struct nvabi_dep *d = find_dep(num, abi);
		const struct nvabi_ctrl *e = find_ctrl(num, abi);

		/* The driver converts a deprecated control before its method tables. */
		if (d) {
			explain_dep(o, abi, d, pol);
			found++;
		} else if (e) {
			explain_ctrl(o, abi, e, lk->release, pol);
			found++;
		}
	}
	if (x->fk) {
		const struct nvabi_class *e = find_class(num, abi);

		if (e) {
			explain_class(o, abi, e, lk->release, pol);
			found++;
		}
	}
	if (x->fu) {
		const struct nvabi_uvm *e = find_uvm(num, abi);

		if (e) {
			explain_uvm(o, abi, e, lk->release, pol);
			found++;
		}
	}
	return found;
}

/**
 * cmd_explain() - nvproxyctl explain
 * @argc: arguments after "nvproxyctl"
 * @argv: "explain" and its options
 *
 * Return: the exit status (usage_explain()).
 */
int cmd_explain(int argc, char **argv)
{
	struct explain_opts x = { NULL };
	struct explain_out o = { 0, 1 };
	struct policy pol;
	struct lookup lk;
	int ret, found;

	ret = parse_explain_args(argc, argv, &x, &o);
	if (ret >= 0)
		return ret;
	ret = explain_version(&x, &lk);
	if (ret)
		return ret;
	read_policy(&pol);
	if (find_abi_dir(x.abiopt))
		return EXIT_ERR;

	explain_header(&o, &x, &lk, &pol);
	found = explain_entries(&o, &x, &lk, &pol);
	if (o.json)
		printf("]}\n");
	if (!found) {
		err("0x%x is not %s in driver %s's ABI", x.num,
		    x.family ? (!strcmp(x.family, "escape") ? "an escape" :
				!strcmp(x.family, "control") ? "an RM control command" :
				!strcmp(x.family, "class") ? "a class" : "a UVM command") :
		    "an escape, RM control command, class or UVM command", x.version);
		return EXIT_UNKNOWN;
	}
	return EXIT_OK;
}

