// SPDX-License-Identifier: GPL-2.0
/*
 * nvproxyctl stats: the module's counters, per family and verdict
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

/* ---- stats -------------------------------------------------------------- */

/* docs/operations.md: /sys/class/nvmediate/stats/<family>_<verdict>. */
const char *const stat_families[NFAM] = NVM_STAT_FAMILY_NAMES;
const char *const stat_verdicts[NVERD] = NVM_OUTCOME_NAMES;

/* Read every counter; -1 when one cannot be read (no stats/ directory). */
int read_counters(unsigned long long c[NFAM][NVERD])
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
void ioctl_totals(unsigned long long c[NFAM][NVERD], unsigned long long t[NVERD])
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

/* The counters and their ioctl totals, as JSON members or a table. */
static void print_counters(unsigned long long c[NFAM][NVERD], unsigned long long t[NVERD],
			   int json)
{
	unsigned int f, v;

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
		return;
	}
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

/*
 * Every process of debugfs procs (@pf, closed here), as a JSON member or
 * text lines; EXIT_OK, or EXIT_ERR at a line that does not parse, which
 * ends the list.
 */
static int print_procs(FILE *pf, int json)
{
	char line[2048];
	int first = 1, ret = EXIT_OK;

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
	return ret;
}

/**
 * cmd_stats() - nvproxyctl stats
 * @argc: arguments after "nvproxyctl"
 * @argv: "stats" and its options
 *
 * Return: the exit status (usage_stats()).
 */
int cmd_stats(int argc, char **argv)
{
	unsigned long long c[NFAM][NVERD], t[NVERD];
	int json = 0, procs = 0, ret;
	char path[PATH_MAX];
	FILE *pf = NULL;

	const struct opt opts[] = {
		{ "--json", NULL, NULL, &json },
		{ "--procs", NULL, NULL, &procs },
		{ NULL }
	};

	ret = parse_args(argc, argv, opts, NULL, 0, usage_stats);
	if (ret >= 0)
		return ret;
	ret = need_module();
	if (ret)
		return ret;
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
	print_counters(c, t, json);
	if (pf)
		ret = print_procs(pf, json);	/* ret is EXIT_OK with pf */
	if (json)
		printf("}\n");
	return ret;
}

