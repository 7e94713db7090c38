// SPDX-License-Identifier: GPL-2.0
/*
 * nvproxyctl profile: a node set's audit record or log lines turned into a profile
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
#include "policy.h"

/* ---- profile ------------------------------------------------------------ */

static const char *const fam_names[] = NVM_FAMILY_NAMES;

/* Profiles and records say "esc"; the kernel log line says "escape". */
int fam_index(const char *s)
{
	int i;

	if (!strcmp(s, "escape"))
		return 0;
	for (i = 0; i < NVM_NR_FAMILIES; i++)
		if (!strcmp(s, fam_names[i]))
			return i;
	return -1;
}

/*
 * What admits a call its rule refused: an allow entry of the profile, one
 * of its knobs, or nothing (the rules of the call's shape).
 */
enum knob { KNOB_NONE, KNOB_ALLOW, KNOB_ROOT, KNOB_FINN, KNOB_GSS };

struct refusal {
	int fam;
	unsigned int nr;
	char rule[32];
	enum knob knob;
	unsigned long count;
};

/* Every rule's name fits a record's, and the sscanf() widths below. */
#define RULE_FITS(id, name) \
	_Static_assert(sizeof(name) <= sizeof(((struct refusal *)0)->rule), name " fits");
NVM_RULES(RULE_FITS)
#undef RULE_FITS

static enum knob knob_of(const char *rule)
{
	switch (rule_of(rule)) {
	case NVM_RULE_ESC_PROFILE:
	case NVM_RULE_CTRL_PROFILE:
	case NVM_RULE_ALLOC_PROFILE:
	case NVM_RULE_UVM_PROFILE:
		return KNOB_ALLOW;
	case NVM_RULE_ESC_ROOT:
	case NVM_RULE_CTRL_ROOT:
	case NVM_RULE_CLASS_ROOT:
		return KNOB_ROOT;
	case NVM_RULE_CTRL_FINN:
		return KNOB_FINN;
	case NVM_RULE_CTRL_GSS_LEGACY:
		return KNOB_GSS;
	default:
		return KNOB_NONE;
	}
}

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
	rs->r[rs->n].knob = knob_of(rs->r[rs->n].rule);
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

/*
 * CAPS as the sysfs attribute takes them (the module's own parser,
 * nvm_caps_parse()), normalised as it shows them; -1 on an unknown name.
 */
int caps_normalise(const char *in, char *out, size_t len)
{
	u32 caps;

	if (nvm_caps_parse(in, &caps))
		return -1;
	nvm_caps_format(caps, out, len);
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

/* profile's options. */
struct profile_opts {
	const char *set, *log, *caps_in;
	char caps[128];		/* caps_in, normalised */
};

/* The options into @o: -1 to go on, else the exit status. */
static int parse_profile_args(int argc, char **argv, struct profile_opts *o)
{
	const struct opt opts[] = {
		{ "--set", NULL, &o->set, NULL },
		{ "--log", NULL, &o->log, NULL },
		{ "--caps", NULL, &o->caps_in, NULL },
		{ NULL }
	};
	int ret;

	o->set = NULL;
	o->log = NULL;
	o->caps_in = "none";
	ret = parse_args(argc, argv, opts, NULL, 0, usage_profile);
	if (ret >= 0)
		return ret;
	if (caps_normalise(o->caps_in, o->caps, sizeof(o->caps))) {
		nvm_caps_format(NVM_CAP_ALL, o->caps, sizeof(o->caps));
		err("profile: unknown capability in '%s' (%s, none, all)", o->caps_in, o->caps);
		return EXIT_USAGE;
	}
	if (o->set && !set_name_ok(o->set)) {
		err("'%s' is not a set name", o->set);
		return EXIT_USAGE;
	}
	return -1;
}

/*
 * The audit lines of @log ('-': standard input), of @set's nodes when not
 * NULL, into @rs; EXIT_ERR when it cannot be read or a line does not parse.
 */
static int read_log(const char *log, const char *set, struct refusals *rs)
{
	FILE *f = strcmp(log, "-") ? fopen(log, "r") : stdin;
	char buf[1024];
	int bad = 0;

	if (!f) {
		err("profile: cannot read %s: %s", log, strerror(errno));
		return EXIT_ERR;
	}
	while (fgets(buf, sizeof(buf), f))
		if (parse_log_line(buf, rs, set)) {
			err("profile: cannot parse the audit line: %s", buf);
			bad = 1;
		}
	if (f != stdin)
		fclose(f);
	return bad ? EXIT_ERR : EXIT_OK;
}

/*
 * @set's audit record (its refused attribute) into @rs; the exit status of
 * a set that is not there, EXIT_ERR when it cannot be read or a line does
 * not parse.
 */
static int read_record(const char *set, struct refusals *rs)
{
	char path[PATH_MAX], *text, *line, *save;
	int ret, bad = 0;

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
		if (parse_record_line(line, rs)) {
			err("profile: cannot parse the record line: %s", line);
			bad = 1;
		}
	}
	free(text);
	return bad ? EXIT_ERR : EXIT_OK;
}

/*
 * The profile admitting the sorted refusals @rs, on standard output; the
 * refusals no profile admits as comments there, and on standard error.
 */
static void print_profile(const struct refusals *rs, const struct profile_opts *o)
{
	int root = 0, finn = 0, gss = 0, nshape = 0, i;
	const struct refusal *r = rs->r;

	for (i = 0; i < rs->n; i++) {
		finn |= r[i].knob == KNOB_FINN;
		gss |= r[i].knob == KNOB_GSS;
		root |= r[i].knob == KNOB_ROOT;
	}
	printf("# nvmediate profile, from %s%s%s\n",
	       o->log ? "the audit log " : "the audit record of set ",
	       o->log ? (strcmp(o->log, "-") ? o->log : "(stdin)") : o->set,
	       o->log && o->set ? " (that set's lines)" : "");
	printf("caps %s\naudit 0\nallow_root %d\nallow_finn %d\nallow_gss %d\n", o->caps, root,
	       finn, gss);
	for (i = 0; i < rs->n; i++) {
		if (r[i].knob != KNOB_ALLOW)
			continue;
		if (i && r[i - 1].fam == r[i].fam && r[i - 1].nr == r[i].nr &&
		    r[i - 1].knob == KNOB_ALLOW)
			continue;
		printf("allow %s 0x%x\n", fam_names[r[i].fam], r[i].nr);
	}
	for (i = 0; i < rs->n; i++) {
		if (r[i].knob != KNOB_NONE)
			continue;
		if (!nshape++) {
			printf("# refused by rules no profile can change (docs/errors.md):\n");
			fprintf(stderr, "%s: note: refusals no profile admits (shape rules):\n", prog);
		}
		printf("#   %s 0x%x %s (%lu)\n", fam_names[r[i].fam], r[i].nr, r[i].rule,
		       r[i].count);
		fprintf(stderr, "  %s 0x%x %s (%lu)\n", fam_names[r[i].fam], r[i].nr, r[i].rule,
			r[i].count);
	}
}

/**
 * cmd_profile() - nvproxyctl profile
 * @argc: arguments after "nvproxyctl"
 * @argv: "profile" and its options
 *
 * Return: the exit status (usage_profile()).
 */
int cmd_profile(int argc, char **argv)
{
	struct refusals rs = { NULL, 0, 0 };
	struct profile_opts o;
	int ret;

	ret = parse_profile_args(argc, argv, &o);
	if (ret >= 0)
		return ret;
	if (!o.log && !o.set)
		o.set = "default";
	ret = o.log ? read_log(o.log, o.set, &rs) : read_record(o.set, &rs);
	if (ret) {
		free(rs.r);
		return ret;
	}
	qsort(rs.r, rs.n, sizeof(*rs.r), cmp_refusal);
	print_profile(&rs, &o);
	free(rs.r);
	if (fflush(stdout)) {
		err("profile: cannot write: %s", strerror(errno));
		return EXIT_ERR;
	}
	return EXIT_OK;
}

