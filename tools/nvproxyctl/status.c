// SPDX-License-Identifier: GPL-2.0
/*
 * nvproxyctl status: module, driver version, ABI range, parameters and nodes
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
		"tier, range and version source nvmediate chose with what that means and\n"
		"what to do when the driver is not served by its own ABI (tier_detail),\n"
		"the calls refused as unknown under the successor tier, the number of\n"
		"ranges compiled in (/sys/class/nvmediate/), the module parameters\n"
		"(/sys/module/nvmediate/parameters/), the mediated nodes of the default\n"
		"set present in /dev with their device numbers, and every node set with\n"
		"its nodes, open files and profile (/sys/kernel/nvmediate/sets/), and the\n"
		"mounts of nvmediatefs (the nodes at the driver's numbers that CDI specs\n"
		"bind into containers) in this mount namespace.\n"
		"\n"
		"  --json   one JSON object; without nvmediate {\"loaded\":false}\n"
		"\n"
		"exit: 0 ok, 1 error, 2 usage, 3 nvmediate not loaded\n",
		prog);
}

static const char *const param_names[] = { "num_gpus", "uvm_path", "force_version",
					   "accept_outside", "successor", "allow_root", "allow_finn",
					   "allow_gss", "audit", "bounce", "sets" };
#define NPARAMS (sizeof(param_names) / sizeof(param_names[0]))

#define MAX_SETS	64	/* NVM_MAX_SETS */

/*
 * The mounts of nvmediatefs in this mount namespace: where, and the options
 * the module shows (set=, mode=, uid=, gid=).  Below NVPROXYCTL_ROOT (the
 * tests' fake host) the file NVPROXYCTL_ROOT/proc/self/mountinfo is read.
 */
static void status_mounts(int json)
{
	char p[PATH_MAX], mnt[PATH_MAX], opts[NODEFS_OPTS_MAX];
	FILE *f;
	int n = 0, r;

	hostpath(p, sizeof(p), "/proc/self/mountinfo");
	f = fopen(p, "r");
	while (f && (r = nodefs_next(f, mnt, opts)) >= 0) {
		if (!r)
			continue;
		if (json) {
			printf("%s{\"path\":", n ? "," : "");
			json_str(stdout, mnt);
			printf(",\"options\":");
			json_str(stdout, opts);
			printf("}");
		} else {
			printf("  %s  %s\n", mnt, opts);
		}
		n++;
	}
	if (f)
		fclose(f);
	if (!n && !json)
		printf("  (none: nvproxyctl cdi mounts a set's at " NODEFS_DIR "/SET)\n");
}

/*
 * One list of a set's, a line each: in JSON the elements of an array that
 * is open (named @json_name, opened after closing the one before, when
 * not NULL), in text "    WORD ITEM" lines.
 */
static void status_list(int json, const char *json_name, const char *word, char *items)
{
	char *line, *save;
	int n = 0;

	if (json && json_name)
		printf("],\"%s\":[", json_name);
	for (line = items ? strtok_r(items, "\n", &save) : NULL; line;
	     line = strtok_r(NULL, "\n", &save)) {
		if (json) {
			printf("%s", n ? "," : "");
			json_str(stdout, line);
		} else {
			printf("    %s %s\n", word, line);
		}
		n++;
	}
}

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
		for (k = 0; k < 3; k++) {
			static const char *const lists[3][2] = { { "allow", "allow" },
								 { "nvidia_caps", "nvidia_cap" },
								 { "imex_channels", "imex_channel" } };
			char *items;

			set_attr_path(path, sizeof(path), names[i], lists[k][0]);
			items = read_all(path);
			status_list(json, k ? lists[k][0] : NULL, lists[k][1], items);
			free(items);
		}
		if (json)
			printf("]}");
	}
}

static const char *const status_cls[] = { "driver_version", "tier", "range", "version_source",
					  "ranges" };
#define NCLS (sizeof(status_cls) / sizeof(status_cls[0]))

/* What status shows of the module, all read before anything is printed. */
struct status {
	char modver[64], vals[NCLS][128], params[NPARAMS][256], detail[768], unknown[32];
	int have[NCLS], phave[NPARAMS], have_detail, have_unknown;
	struct node nodes[2 + MAX_GPUS];
	int nn, ngpu, have_counts;
	unsigned long long counts[NFAM][NVERD], totals[NVERD];
	struct policy pol;
};

/* The mediated nodes of the default set, each stat()ed: control, UVM, GPUs. */
static void status_read_nodes(struct status *s)
{
	int i, present[MAX_GPUS];

	s->nn = 0;
	snprintf(s->nodes[s->nn].path, sizeof(s->nodes[0].path), "/dev/nvproxy");
	snprintf(s->nodes[s->nn++].mediates, sizeof(s->nodes[0].mediates), "/dev/nvidiactl");
	snprintf(s->nodes[s->nn].path, sizeof(s->nodes[0].path), "/dev/nvproxy-uvm");
	snprintf(s->nodes[s->nn++].mediates, sizeof(s->nodes[0].mediates), "/dev/nvidia-uvm");
	s->ngpu = gpu_nodes(present, NULL);
	for (i = 0; i < MAX_GPUS; i++) {
		if (!present[i])
			continue;
		snprintf(s->nodes[s->nn].path, sizeof(s->nodes[0].path), "/dev/nvproxy%d", i);
		snprintf(s->nodes[s->nn++].mediates, sizeof(s->nodes[0].mediates), "/dev/nvidia%d",
			 i);
	}
	for (i = 0; i < s->nn; i++)
		stat_node(&s->nodes[i]);
}

/*
 * The module's state: its version, what /sys/class/nvmediate/ says of the
 * driver, its parameters, nodes, policy and call counters.
 */
static void status_read(struct status *s)
{
	int i;

	if (read_line("/sys/module/nvmediate/version", s->modver, sizeof(s->modver)))
		snprintf(s->modver, sizeof(s->modver), "unknown");
	s->have_detail = !read_line("/sys/class/nvmediate/tier_detail", s->detail,
				    sizeof(s->detail));
	s->have_unknown = !read_line("/sys/class/nvmediate/stats/successor_unknown", s->unknown,
				     sizeof(s->unknown));
	for (i = 0; i < (int)NCLS; i++) {
		char path[96];

		snprintf(path, sizeof(path), "/sys/class/nvmediate/%s", status_cls[i]);
		s->have[i] = !read_line(path, s->vals[i], sizeof(s->vals[i]));
	}
	for (i = 0; i < (int)NPARAMS; i++) {
		char path[128];

		snprintf(path, sizeof(path), "/sys/module/nvmediate/parameters/%s", param_names[i]);
		s->phave[i] = !read_line(path, s->params[i], sizeof(s->params[i]));
	}
	status_read_nodes(s);
	read_policy(&s->pol);
	s->have_counts = !read_counters(s->counts);
	if (s->have_counts)
		ioctl_totals(s->counts, s->totals);
}

/* The policy, the call totals and the nodes: JSON members, a comma before each. */
static void status_json_policy_nodes(const struct status *s)
{
	const struct policy *pol = &s->pol;
	unsigned int v;
	int i;

	printf(",\"policy\":");
	if (pol->from_sysfs)
		printf("{\"nodes\":\"all\",\"mode\":\"%s\",\"allow_root\":%s,\"allow_finn\":%s,\"allow_gss\":%s}",
		       pol->audit ? "audit" : "enforce", pol->allow_root ? "true" : "false",
		       pol->allow_finn ? "true" : "false", pol->allow_gss ? "true" : "false");
	else
		printf("null");
	printf(",\"calls\":");
	if (s->have_counts) {
		printf("{");
		for (v = 0; v < NVERD; v++)
			printf("%s\"%s\":%llu", v ? "," : "", stat_verdicts[v], s->totals[v]);
		printf(",\"open_refused\":%llu}", s->counts[4][1]);
	} else {
		printf("null");
	}
	printf(",\"gpu_nodes\":%d,\"nodes\":[", s->ngpu);
	for (i = 0; i < s->nn; i++) {
		const struct node *n = &s->nodes[i];

		printf("%s{\"path\":\"%s\",\"mediates\":\"%s\",\"present\":%s", i ? "," : "",
		       n->path, n->mediates, n->present ? "true" : "false");
		if (n->chr)
			printf(",\"major\":%u,\"minor\":%u", n->major, n->minor);
		printf("}");
	}
	printf("]");
}

/* The state as one JSON object, the sets and mounts read as printed. */
static void status_json(const struct status *s)
{
	int i;

	printf("{\"loaded\":true,\"module_version\":");
	json_str(stdout, s->modver);
	printf(",\"driver_version\":");
	json_str_or_null(stdout, s->have[0] ? s->vals[0] : NULL);
	printf(",\"tier\":");
	json_str_or_null(stdout, s->have[1] ? s->vals[1] : NULL);
	printf(",\"range\":");
	json_str_or_null(stdout, s->have[2] ? s->vals[2] : NULL);
	printf(",\"version_source\":");
	json_str_or_null(stdout, s->have[3] ? s->vals[3] : NULL);
	printf(",\"tier_detail\":");
	json_str_or_null(stdout, s->have_detail ? s->detail : NULL);
	printf(",\"successor_unknown\":");
	if (s->have_unknown && s->unknown[0] >= '0' && s->unknown[0] <= '9')
		printf("%llu", strtoull(s->unknown, NULL, 10));
	else
		printf("null");
	printf(",\"ranges\":");
	if (s->have[4] && s->vals[4][0] >= '0' && s->vals[4][0] <= '9')
		printf("%lu", strtoul(s->vals[4], NULL, 10));
	else
		printf("null");
	printf(",\"parameters\":{");
	for (i = 0; i < (int)NPARAMS; i++) {
		printf("%s\"%s\":", i ? "," : "", param_names[i]);
		json_str_or_null(stdout, s->phave[i] ? s->params[i] : NULL);
	}
	printf("}");
	status_json_policy_nodes(s);
	printf(",\"sets\":[");
	status_sets(1);
	printf("],\"nvmediatefs\":[");
	status_mounts(1);
	printf("]}\n");
}

/* The state as text, the sets and mounts read as printed. */
static void status_text(const struct status *s)
{
	const struct policy *pol = &s->pol;
	int i;

	printf("nvmediate %s\n", s->modver);
	printf("  driver version:  %s\n", s->have[0] ? s->vals[0] : "(unreadable)");
	printf("  tier:            %s\n", s->have[1] ? s->vals[1] : "(unreadable)");
	printf("  range:           %s\n", s->have[2] ? s->vals[2] : "(unreadable)");
	printf("  version source:  %s\n", s->have[3] ? s->vals[3] : "(unreadable)");
	printf("  tier detail:     %s\n", s->have_detail ? s->detail : "(unreadable)");
	if (s->have[1] && !strcmp(s->vals[1], "successor"))
		printf("  refused as unknown under the successor tier: %s\n",
		       s->have_unknown ? s->unknown : "(unreadable)");
	printf("  ranges known:    %s\n", s->have[4] ? s->vals[4] : "(unreadable)");
	printf("parameters:\n");
	for (i = 0; i < (int)NPARAMS; i++)
		printf("  %-15s  %s\n", param_names[i],
		       s->phave[i] ? (s->params[i][0] ? s->params[i] : "(empty)") : "(unreadable)");
	if (pol->from_sysfs)
		printf("policy (every node): %s; allow_root=%s allow_finn=%s allow_gss=%s\n",
		       pol->audit ? "audit (would-be refusals forwarded and logged)" :
		       "enforce", pol->allow_root ? "Y" : "N", pol->allow_finn ? "Y" : "N",
		       pol->allow_gss ? "Y" : "N");
	else
		printf("policy:            (unreadable)\n");
	if (s->have_counts)
		printf("ioctls:            %llu forwarded, %llu refused, %llu answered, %llu audited; %llu opens refused\n",
		       s->totals[0], s->totals[1], s->totals[2], s->totals[3], s->counts[4][1]);
	else
		printf("ioctls:            (no counters)\n");
	printf("nodes:\n");
	for (i = 0; i < s->nn; i++) {
		const struct node *n = &s->nodes[i];

		if (n->chr)
			printf("  %-18s %3u:%-3u  mediates %s\n", n->path, n->major, n->minor,
			       n->mediates);
		else
			printf("  %-18s %-7s  mediates %s\n", n->path,
			       n->present ? "not chr" : "missing", n->mediates);
	}
	printf("sets:\n");
	status_sets(0);
	printf("nvmediatefs:\n");
	status_mounts(0);
}

/**
 * cmd_status() - nvproxyctl status
 * @argc: arguments after "nvproxyctl"
 * @argv: "status" and its options
 *
 * Return: the exit status (usage_status()).
 */
int cmd_status(int argc, char **argv)
{
	struct status s;
	int json = 0, ret;

	const struct opt opts[] = { { "--json", NULL, NULL, &json }, { NULL } };

	ret = parse_args(argc, argv, opts, NULL, 0, usage_status);
	if (ret >= 0)
		return ret;
	ret = need_module();
	if (ret) {
		if (json)
			printf("{\"loaded\":false}\n");
		return ret;
	}
	status_read(&s);
	if (json)
		status_json(&s);
	else
		status_text(&s);
	return EXIT_OK;
}
