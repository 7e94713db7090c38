// SPDX-License-Identifier: GPL-2.0
/*
 * nvproxyctl releases: the driver releases and ABI ranges nvmediate serves,
 * per branch, from the tables compiled in (abi/generated/, the same the
 * module is built with), checked against the loaded module's own
 * (/sys/class/nvmediate/releases).
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "nvabi_tables.h"
#include "nvproxyctl.h"

static void usage_releases(FILE *f)
{
	fprintf(f,
		"usage: %s releases [--ranges] [--json]\n"
		"\n"
		"List the NVIDIA driver releases whose ABI nvmediate knows, per branch\n"
		"(major number): how many, the oldest and the newest, and whether a\n"
		"version newer than the newest is served with the newest's ABI (the\n"
		"successor tier). A version inside a range of identical releases is\n"
		"served too (interpolated). When nvmediate is loaded, its own tables\n"
		"(/sys/class/nvmediate/releases) are compared with these.\n"
		"\n"
		"  --ranges  list every range (first, last, ABI number, releases) too\n"
		"  --json    one JSON object\n"
		"\n"
		"exit: 0 ok, 1 the loaded module knows other releases, 2 usage\n",
		prog);
}

/* The releases of branch @b: first index, count. */
static unsigned int branch_first(const struct nvabi_branch *b)
{
	unsigned int i = b->newest;

	while (i > 0 && nvabi_releases[i - 1].version >> (2 * NVABI_VERSION_PART_BITS) == b->major)
		i--;
	return i;
}

/* "count first newest" as the module's sysfs file says it. */
static void tables_id(char *buf, size_t len)
{
	snprintf(buf, len, "%u %s %s", NVABI_NR_RELEASES, nvabi_releases[0].name,
		 nvabi_releases[NVABI_NR_RELEASES - 1].name);
}

static void releases_json(int ranges, const char *loaded, int same)
{
	unsigned int i;

	printf("{\"releases\":%u,\"ranges\":%u,\"branches\":[", NVABI_NR_RELEASES, NVABI_NR_RANGES);
	for (i = 0; i < NVABI_NR_BRANCHES; i++) {
		const struct nvabi_branch *b = &nvabi_branches[i];
		unsigned int first = branch_first(b);

		printf("%s{\"major\":%u,\"releases\":%u,\"oldest\":\"%s\",\"newest\":\"%s\",\"successor\":%s}",
		       i ? "," : "", b->major, b->newest - first + 1, nvabi_releases[first].name,
		       nvabi_releases[b->newest].name, b->successor ? "true" : "false");
	}
	printf("]");
	if (ranges) {
		printf(",\"range_list\":[");
		for (i = 0; i < NVABI_NR_RANGES; i++)
			printf("%s{\"first\":\"%s\",\"last\":\"%s\",\"abi\":%u,\"releases\":%u}",
			       i ? "," : "", nvabi_ranges[i].first_name, nvabi_ranges[i].last_name,
			       nvabi_ranges[i].abi, nvabi_ranges[i].releases);
		printf("]");
	}
	printf(",\"loaded\":");
	if (loaded)
		printf("{\"tables\":\"%s\",\"same\":%s}", loaded, same ? "true" : "false");
	else
		printf("null");
	printf("}\n");
}

static void releases_text(int ranges, const char *loaded, int same)
{
	unsigned int i;

	printf("%u releases in %u ranges\n", NVABI_NR_RELEASES, NVABI_NR_RANGES);
	printf("%-7s %8s  %-12s %-12s %s\n", "branch", "releases", "oldest", "newest",
	       "newer versions");
	for (i = 0; i < NVABI_NR_BRANCHES; i++) {
		const struct nvabi_branch *b = &nvabi_branches[i];
		unsigned int first = branch_first(b);

		printf("%-7u %8u  %-12s %-12s %s\n", b->major, b->newest - first + 1,
		       nvabi_releases[first].name, nvabi_releases[b->newest].name,
		       b->successor ? "served (successor)" : "refused (outside)");
	}
	if (ranges) {
		printf("ranges:\n");
		for (i = 0; i < NVABI_NR_RANGES; i++)
			printf("  %-12s %-12s abi %-3u %u release%s\n", nvabi_ranges[i].first_name,
			       nvabi_ranges[i].last_name, nvabi_ranges[i].abi, nvabi_ranges[i].releases,
			       nvabi_ranges[i].releases == 1 ? "" : "s");
	}
	if (loaded && !same)
		printf("the loaded nvmediate knows other releases (%s): it was built from other tables; rebuild and reinstall both\n",
		       loaded);
	else if (loaded)
		printf("the loaded nvmediate knows the same releases\n");
}

int cmd_releases(int argc, char **argv)
{
	char mine[128], loaded[128];
	int json = 0, ranges = 0, have, same, i;
	const struct opt opts[] = {
		{ "--json", NULL, NULL, &json },
		{ "--ranges", NULL, NULL, &ranges },
		{ NULL },
	};

	i = parse_args(argc, argv, opts, NULL, 0, usage_releases);
	if (i >= 0)
		return i;
	tables_id(mine, sizeof(mine));
	have = !read_line("/sys/class/nvmediate/releases", loaded, sizeof(loaded));
	same = have && !strcmp(loaded, mine);
	if (json)
		releases_json(ranges, have ? loaded : NULL, same);
	else
		releases_text(ranges, have ? loaded : NULL, same);
	return have && !same ? EXIT_ERR : EXIT_OK;
}
