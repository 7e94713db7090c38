// SPDX-License-Identifier: GPL-2.0
/*
 * nvproxyctl: inspect nvmediate from user space.
 *
 *   nvproxyctl status [--json]
 *   nvproxyctl releases [--ranges] [--json]
 *   nvproxyctl stats [--json] [--procs]
 *   nvproxyctl explain NUMBER [--version V] [--family F] [--abi DIR]
 *   nvproxyctl cdi [--set NAME] [--gpus N] [--output FILE]
 *   nvproxyctl profile [--set NAME | --log FILE] [--caps CAPS]
 *   nvproxyctl apply --set NAME [FILE]
 *   nvproxyctl hook update-ldcache DIR...
 *
 * Each command is a file of its own (status.c, stats.c, explain.c, cdi.c,
 * profile.c, apply.c, hook.c) on what common.c shares: the argument parser, the
 * "not loaded" check, host paths, node sets.  See README.md for the exit
 * codes.
 */
#define _XOPEN_SOURCE 700

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "nvproxyctl.h"
#include "driverfiles.h"

static void usage(FILE *f)
{
	fprintf(f,
		"usage: %s COMMAND [ARGS]\n"
		"\n"
		"Inspect nvmediate, the kernel module mediating NVIDIA device nodes.\n"
		"\n"
		"commands:\n"
		"  status    module, driver version, ABI range, parameters and nodes\n"
		"  releases  the driver releases and ABI ranges nvmediate serves, per branch\n"
		"  stats     calls forwarded, refused, answered and audited, per family\n"
		"  explain   what an ioctl number is in a driver version's ABI, and the policy\n"
		"  cdi       write a Container Device Interface spec for the mediated nodes\n"
		"  profile   turn a node set's audit record (or audit log lines) into a profile\n"
		"  apply     give a node set a profile\n"
		"  hook      the OCI hook the cdi spec names (update-ldcache)\n"
		"  help      this text; 'COMMAND --help' for a command's own\n"
		"  version   the version of nvproxyctl (also --version)\n"
		"\n"
		"exit: 0 ok, 1 error, 2 usage, 3 nvmediate not loaded,\n"
		"      4 explain: unknown number, 5 explain: version outside every range,\n"
		"      6 no such node set\n",
		prog);
}

struct cmd {
	const char *name;
	int (*fn)(int argc, char **argv);
};

static const struct cmd cmds[] = {
	{ "status", cmd_status },
	{ "releases", cmd_releases },
	{ "stats", cmd_stats },
	{ "explain", cmd_explain },
	{ "cdi", cmd_cdi },
	{ "profile", cmd_profile },
	{ "apply", cmd_apply },
	{ "hook", cmd_hook },
};

int main(int argc, char **argv)
{
	const char *root = getenv("NVPROXYCTL_ROOT");
	const struct cmd *c;

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
	for (c = cmds; c < cmds + sizeof(cmds) / sizeof(cmds[0]); c++)
		if (!strcmp(argv[1], c->name))
			return c->fn(argc - 1, argv + 1);
	err("unknown command '%s'", argv[1]);
	usage(stderr);
	return EXIT_USAGE;
}
