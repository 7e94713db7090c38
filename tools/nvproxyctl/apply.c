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

static const char *const knobs[] = { "caps", "allow_root", "allow_finn", "allow_gss", "audit" };
#define NKNOBS (sizeof(knobs) / sizeof(knobs[0]))
/* nvidia_caps, imex_channels: the word of their lines, their attribute. */
static const char *const nodes_word[2] = { "nvidia_cap", "imex_channel" };
static const char *const nodes_attr[2] = { "nvidia_caps", "imex_channels" };

/* What a profile file gives a set, all of it parsed before any write. */
struct apply_profile {
	char val[NKNOBS][128];
	int have[NKNOBS];
	char *allow;		/* an "FAMILY 0xNUMBER\n" per allow line */
	size_t alen;
	/* nvidia_caps, imex_channels: what the file lists, and whether it has any. */
	char nodes[2][1536];
	int have_nodes[2], nnodes;
};

/* An allow line's FAMILY @a and NUMBER @b, added to @p->allow; -1: bad. */
static int apply_allow(struct apply_profile *p, const char *a, const char *b)
{
	unsigned int nr;
	char *na;

	if (fam_index(a) < 0 || parse_u32(b, &nr))
		return -1;
	na = realloc(p->allow, p->alen + 32);
	if (!na)
		return -1;
	p->allow = na;
	p->alen += snprintf(p->allow + p->alen, 32, "%s 0x%x\n", a, nr);
	return 0;
}

/* A nvidia_cap (@i 0) or imex_channel (1) line of @n words; -1: bad. */
static int apply_node(struct apply_profile *p, int i, const char *a, int n)
{
	unsigned int ma, mi;
	char c;
	size_t l = strlen(p->nodes[i]);

	p->have_nodes[i] = 1;
	if (n == 2 && !strcmp(a, "none"))
		return 0;
	/* As the module takes them: a dev_t's major and minor, 64 in all. */
	if (n != 2 || strchr(a, '-') || sscanf(a, "%u:%u%c", &ma, &mi, &c) != 2 ||
	    !ma || ma >= 4096 || mi > 0xfffff || ++p->nnodes > 64 ||
	    l + 24 >= sizeof(p->nodes[i]))
		return -1;
	snprintf(p->nodes[i] + l, sizeof(p->nodes[i]) - l, "%u:%u\n", ma, mi);
	return 0;
}

/* One line of a profile, its comment cut off, into @p; -1: it does not parse. */
static int apply_line(struct apply_profile *p, const char *buf)
{
	char key[32], a[64], b[64], extra[8];
	int n, i;

	n = sscanf(buf, "%31s %63s %63s %7s", key, a, b, extra);
	if (n <= 0)
		return 0;
	if (!strcmp(key, "allow") && n == 3)
		return apply_allow(p, a, b);
	for (i = 0; i < 2 && strcmp(key, nodes_word[i]); i++)
		;
	if (i < 2)
		return apply_node(p, i, a, n);
	for (i = 0; i < (int)NKNOBS; i++)
		if (!strcmp(key, knobs[i]))
			break;
	if (i == (int)NKNOBS || n < 2)
		return -1;
	if (i == 0) {
		const char *rest = buf + strspn(buf, " \t") + 4;

		if (caps_normalise(rest, p->val[0], sizeof(p->val[0])))
			return -1;
	} else {
		if (n != 2 || (strcmp(a, "0") && strcmp(a, "1")))
			return -1;
		snprintf(p->val[i], sizeof(p->val[i]), "%s", a);
	}
	p->have[i] = 1;
	return 0;
}

/* Every line of @f into @p: 0, or the number of the first that does not parse. */
static int apply_read(FILE *f, struct apply_profile *p)
{
	char buf[512];
	int lineno = 0;

	while (fgets(buf, sizeof(buf), f)) {
		lineno++;
		buf[strcspn(buf, "#\n")] = '\0';
		if (apply_line(p, buf))
			return lineno;
	}
	return 0;
}

/* allow: "clear" and the entries, in writes of less than a page. */
static int write_allow(const char *set, const char *allow, size_t alen)
{
	char chunk[3584];
	size_t clen;
	int i;

	memcpy(chunk, "clear\n", 7);
	clen = 6;
	for (i = 0; allow && (size_t)i < alen;) {
		size_t l = strcspn(allow + i, "\n") + 1;

		if (clen + l >= sizeof(chunk)) {
			if (write_attr(set, "allow", chunk))
				return -1;
			clen = 0;
		}
		memcpy(chunk + clen, allow + i, l);
		clen += l;
		chunk[clen] = '\0';
		i += l;
	}
	return write_attr(set, "allow", chunk);
}

/* @p's writes, in the order usage_apply() gives: allow first, audit last. */
static int apply_write(const char *set, const struct apply_profile *p)
{
	int i;

	if (write_allow(set, p->allow, p->alen))
		return EXIT_ERR;
	for (i = 0; i < 2; i++)
		if (p->have_nodes[i] &&
		    write_attr(set, nodes_attr[i], *p->nodes[i] ? p->nodes[i] : "none"))
			return EXIT_ERR;
	for (i = 0; i < (int)NKNOBS; i++)
		if (p->have[i] && write_attr(set, knobs[i], p->val[i]))
			return EXIT_ERR;
	return EXIT_OK;
}

/**
 * cmd_apply() - nvproxyctl apply
 * @argc: arguments after "nvproxyctl"
 * @argv: "apply" and its options
 *
 * Return: the exit status (usage_apply()).
 */
int cmd_apply(int argc, char **argv)
{
	struct apply_profile p = { .allow = NULL };
	const char *set = NULL, *file = NULL;
	int ret, bad;
	FILE *f;

	const struct opt opts[] = { { "--set", NULL, &set, NULL }, { NULL } };

	ret = parse_args(argc, argv, opts, &file, 1, usage_apply);
	if (ret >= 0)
		return ret;
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
	bad = apply_read(f, &p);
	if (f != stdin)
		fclose(f);
	if (bad) {
		free(p.allow);
		err("apply: %s:%d: not a profile line (caps, audit, allow_root, allow_finn, allow_gss, allow FAMILY NUMBER, nvidia_cap or imex_channel MAJOR:MINOR)",
		    file ? file : "(stdin)", bad);
		return EXIT_USAGE;
	}
	ret = apply_write(set, &p);
	free(p.allow);
	return ret;
}

