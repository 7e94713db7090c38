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

int cmd_status(int argc, char **argv)
{
	static const char *const cls[] = { "driver_version", "tier", "range", "version_source",
					   "ranges" };
	char modver[64], vals[5][128], params[NPARAMS][256], detail[768], unknown[32];
	int have[5], phave[NPARAMS], have_detail, have_unknown;
	int json = 0, i, ngpu, present[MAX_GPUS];
	struct node nodes[2 + MAX_GPUS];
	int nn = 0, have_counts;
	unsigned long long counts[NFAM][NVERD], totals[NVERD];
	struct policy pol;
	unsigned int v;

	const struct opt opts[] = { { "--json", NULL, NULL, &json }, { NULL } };

	i = parse_args(argc, argv, opts, NULL, 0, usage_status);
	if (i >= 0)
		return i;
	i = need_module();
	if (i) {
		if (json)
			printf("{\"loaded\":false}\n");
		return i;
	}
	if (read_line("/sys/module/nvmediate/version", modver, sizeof(modver)))
		snprintf(modver, sizeof(modver), "unknown");
	have_detail = !read_line("/sys/class/nvmediate/tier_detail", detail, sizeof(detail));
	have_unknown = !read_line("/sys/class/nvmediate/stats/successor_unknown", unknown,
				  sizeof(unknown));
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
		printf(",\"tier_detail\":");
		json_str_or_null(stdout, have_detail ? detail : NULL);
		printf(",\"successor_unknown\":");
		if (have_unknown && unknown[0] >= '0' && unknown[0] <= '9')
			printf("%llu", strtoull(unknown, NULL, 10));
		else
			printf("null");
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
		printf("],\"nvmediatefs\":[");
		status_mounts(1);
		printf("]}\n");
		return EXIT_OK;
	}
	printf("nvmediate %s\n", modver);
	printf("  driver version:  %s\n", have[0] ? vals[0] : "(unreadable)");
	printf("  tier:            %s\n", have[1] ? vals[1] : "(unreadable)");
	printf("  range:           %s\n", have[2] ? vals[2] : "(unreadable)");
	printf("  version source:  %s\n", have[3] ? vals[3] : "(unreadable)");
	printf("  tier detail:     %s\n", have_detail ? detail : "(unreadable)");
	if (have[1] && !strcmp(vals[1], "successor"))
		printf("  refused as unknown under the successor tier: %s\n",
		       have_unknown ? unknown : "(unreadable)");
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
	printf("nvmediatefs:\n");
	status_mounts(0);
	return EXIT_OK;
}

