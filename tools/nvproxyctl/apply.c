// SPDX-License-Identifier: GPL-2.0
/*
 * nvproxyctl apply: give a node set a profile
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

/* ---- apply -------------------------------------------------------------- */

static void usage_apply(FILE *f)
{
	fprintf(f,
		"usage: %s apply --set NAME [FILE|-]\n"
		"\n"
		"Give node set NAME the profile in FILE (default: standard input), in the\n"
		"format 'nvproxyctl profile' writes: lines 'caps CAPS', 'audit 0|1',\n"
		"'allow_root 0|1', 'allow_finn 0|1', 'allow_gss 0|1' and any number of\n"
		"'allow FAMILY NUMBER' (FAMILY esc, ctrl, alloc or uvm), 'nvidia_cap MAJOR:MINOR'\n"
		"and 'imex_channel MAJOR:MINOR' (the capability nodes and IMEX channels the\n"
		"set's callers may name, 64 in all; 'none': no node of that kind); '#' starts\n"
		"a comment.  A part the file leaves out keeps its value, except the allow\n"
		"entries: the set gets exactly those of the file; with any nvidia_cap\n"
		"(imex_channel) line, exactly those nodes.  The\n"
		"writes go to /sys/kernel/nvmediate/sets/NAME/: allow first ('clear' and the\n"
		"entries), nvidia_caps, imex_channels, then caps, allow_root, allow_finn,\n"
		"allow_gss, and audit last, so that a set leaving audit mode enforces the\n"
		"complete profile at once.\n"
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

int cmd_apply(int argc, char **argv)
{
	static const char *const knobs[] = { "caps", "allow_root", "allow_finn", "allow_gss",
					     "audit" };
	char val[5][128], buf[512], chunk[3584];
	int have[5] = { 0 }, i, ret, lineno = 0;
	const char *set = NULL, *file = NULL;
	size_t clen = 0;
	char *allow = NULL;
	size_t alen = 0;
	/* nvidia_caps, imex_channels: what the file lists, and whether it has any. */
	static const char *const nodes_word[2] = { "nvidia_cap", "imex_channel" };
	static const char *const nodes_attr[2] = { "nvidia_caps", "imex_channels" };
	char nodes[2][1536] = { "", "" };
	int have_nodes[2] = { 0 }, nnodes = 0;
	FILE *f;

	const struct opt opts[] = { { "--set", NULL, &set, NULL }, { NULL } };

	i = parse_args(argc, argv, opts, &file, 1, usage_apply);
	if (i >= 0)
		return i;
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
		for (i = 0; i < 2 && strcmp(key, nodes_word[i]); i++)
			;
		if (i < 2) {
			unsigned int ma, mi;
			char c;
			size_t l = strlen(nodes[i]);

			have_nodes[i] = 1;
			if (n == 2 && !strcmp(a, "none"))
				continue;
			/* As the module takes them: a dev_t's major and minor, 64 in all. */
			if (n != 2 || strchr(a, '-') || sscanf(a, "%u:%u%c", &ma, &mi, &c) != 2 ||
			    !ma || ma >= 4096 || mi > 0xfffff || ++nnodes > 64 ||
			    l + 24 >= sizeof(nodes[i]))
				goto bad_line;
			snprintf(nodes[i] + l, sizeof(nodes[i]) - l, "%u:%u\n", ma, mi);
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
	for (i = 0; i < 2; i++)
		if (have_nodes[i] && write_attr(set, nodes_attr[i], *nodes[i] ? nodes[i] : "none"))
			return EXIT_ERR;
	for (i = 0; i < 5; i++)
		if (have[i] && write_attr(set, knobs[i], val[i]))
			return EXIT_ERR;
	return EXIT_OK;

bad_line:
	if (f != stdin)
		fclose(f);
	free(allow);
	err("apply: %s:%d: not a profile line (caps, audit, allow_root, allow_finn, allow_gss, allow FAMILY NUMBER, nvidia_cap or imex_channel MAJOR:MINOR)",
	    file ? file : "(stdin)", lineno);
	return EXIT_USAGE;
err_write:
	free(allow);
	return EXIT_ERR;
}

