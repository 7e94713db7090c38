// SPDX-License-Identifier: GPL-2.0
/*
 * nvproxyctl: what the commands share
 *
 * Host paths (below NVPROXYCTL_ROOT in the tests), the module's
 * parameters, JSON strings, node sets and the checks every command makes
 * the same way: its arguments, and whether nvmediate is loaded.
 */
#define _XOPEN_SOURCE 700

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/file.h>
#include <sys/mount.h>
#include <sys/stat.h>
#include <sys/sysmacros.h>
#include <sys/types.h>
#include <unistd.h>

#include "nvabi_lookup.h"
#include "nvproxyctl.h"

const char *prog = "nvproxyctl";

/* Every path under /sys and /dev is read below this prefix (tests). */
const char *root_prefix = "";


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

static int read_bool_param(const char *name, int *val)
{
	char path[128], buf[32];

	snprintf(path, sizeof(path), "/sys/module/nvmediate/parameters/%s", name);
	if (read_line(path, buf, sizeof(buf)))
		return -1;
	*val = buf[0] == 'Y' || buf[0] == 'y' || buf[0] == '1';
	return 0;
}

void read_policy(struct policy *p)
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

void json_str(FILE *f, const char *s)
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
void json_str_or_null(FILE *f, const char *s)
{
	if (s)
		json_str(f, s);
	else
		fputs("null", f);
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

void set_attr_path(char *buf, size_t len, const char *set, const char *attr)
{
	snprintf(buf, len, SETS_DIR "/%s/%s", set, attr);
}

/*
 * The nodes of a set at the driver's names and numbers: nvmediatefs mounted
 * at NODEFS_DIR/SET (kmod/nodefs.c); kind and k as set_node_path() takes them.
 */
void set_nodefs_path(char *buf, size_t len, const char *set, char kind, int k)
{
	const char *s = set ? set : "default";

	if (kind == 'c')
		snprintf(buf, len, NODEFS_DIR "/%s/nvidiactl", s);
	else if (kind == 'u')
		snprintf(buf, len, NODEFS_DIR "/%s/nvidia-uvm", s);
	else
		snprintf(buf, len, NODEFS_DIR "/%s/nvidia%d", s, k);
}

/**
 * nodefs_next() - the next mount in a mount table, and whether it is nvmediatefs
 * @f: /proc/self/mountinfo (below NVPROXYCTL_ROOT in the tests), opened
 * @mnt: set to its mount point (PATH_MAX bytes)
 * @opts: set to its superblock options, e.g. "rw,set=default,mode=0666"
 *	(NODEFS_OPTS_MAX bytes)
 *
 * Return: 1 for a mount of nvmediatefs, 0 for another, -1 at the end.
 */
int nodefs_next(FILE *f, char *mnt, char *opts)
{
	char line[4096], type[64];
	const char *sep;

	if (!fgets(line, sizeof(line), f))
		return -1;
	/* id parent maj:min root mountpoint ... - fstype source options */
	sep = strstr(line, " - ");
	if (!sep || sscanf(line, "%*s %*s %*s %*s %4095s", mnt) != 1 ||
	    sscanf(sep + 3, "%63s %*s %1023s", type, opts) != 2)
		return 0;
	return !strcmp(type, "nvmediatefs");
}

/*
 * Is the mount on top at @dir nvmediatefs of @set (this process's mount
 * table; the last entry for a path is the one on top)?
 */
static int nodefs_mounted(const char *dir, const char *set)
{
	char mnt[PATH_MAX], opts[NODEFS_OPTS_MAX], word[64], *o, *save = NULL;
	FILE *f = fopen("/proc/self/mountinfo", "r");
	int found = 0, r;

	if (!f)
		return 0;
	snprintf(word, sizeof(word), "set=%s", set);
	while ((r = nodefs_next(f, mnt, opts)) >= 0) {
		if (strcmp(mnt, dir))
			continue;
		found = 0;
		for (o = strtok_r(opts, ",", &save); r && o && !found; o = strtok_r(NULL, ",", &save))
			found = !strcmp(o, word);
	}
	fclose(f);
	return found;
}

/**
 * nodefs_ensure() - mount a set's nodes at the driver's numbers if they are not
 * @set: the set, NULL for the default one
 *
 * Below NVPROXYCTL_ROOT (the tests' fake host) nothing is mounted.
 *
 * Return: 0 when NODEFS_DIR/SET is (now) a mount of the set, 1 when
 * nvmediate is not loaded (said on standard error), -1 on an error (said).
 */
int nodefs_ensure(const char *set)
{
	const char *s = set ? set : "default";
	char dir[PATH_MAX], opts[128], node[96], dev[PATH_MAX];
	struct stat st;
	int lock, ret;

	if (*root_prefix)
		return 0;
	snprintf(dir, sizeof(dir), NODEFS_DIR "/%s", s);
	if (nodefs_mounted(dir, s))
		return 0;
	if (!module_loaded()) {
		fprintf(stderr, "%s: nvmediate is not loaded, so %s is not mounted yet: run this command again once it is\n",
			prog, dir);
		return 1;
	}
	if ((mkdir(NODEFS_DIR, 0755) && errno != EEXIST) || (mkdir(dir, 0755) && errno != EEXIST)) {
		err("cannot make %s: %s", dir, strerror(errno));
		return -1;
	}
	/* One mount at a time: two runs at once would stack two. */
	lock = open(NODEFS_DIR, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
	if (lock < 0 || flock(lock, LOCK_EX)) {
		err("cannot lock %s: %s", NODEFS_DIR, strerror(errno));
		if (lock >= 0)
			close(lock);
		return -1;
	}
	if (nodefs_mounted(dir, s)) {
		close(lock);
		return 0;
	}
	/*
	 * The nodes as permissive as the set's /dev nodes, which udev rules
	 * may have narrowed (udev/70-nvmediate.rules), and no more.
	 */
	set_node_path(node, sizeof(node), set, 'c', 0);
	hostpath(dev, sizeof(dev), node);
	if (stat(dev, &st)) {
		err("cannot read %s: %s", dev, strerror(errno));
		close(lock);
		return -1;
	}
	snprintf(opts, sizeof(opts), "set=%s,mode=%o,uid=%u,gid=%u", s,
		 (unsigned int)(st.st_mode & 0777), (unsigned int)st.st_uid, (unsigned int)st.st_gid);
	ret = mount("nvmediate", dir, "nvmediatefs", MS_NOSUID | MS_NOEXEC, opts);
	if (ret)
		err("cannot mount the nodes of set '%s' at %s: %s%s", s, dir, strerror(errno),
		    errno == ENODEV ? " (this nvmediate has no nvmediatefs: load a newer one)" :
		    errno == EPERM ? " (run as root)" : "");
	close(lock);
	return ret ? -1 : 0;
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
int set_check(const char *set)
{
	char path[PATH_MAX];
	int ret;

	if (!set_name_ok(set)) {
		err("'%s' is not a set name (a-z, 0-9, '-', '_', ending with a letter or digit; at most %d)",
		    set, SET_NAME_MAX - 1);
		return EXIT_USAGE;
	}
	ret = need_module();
	if (ret)
		return ret;
	snprintf(path, sizeof(path), SETS_DIR "/%s", set);
	if (!path_exists(path)) {
		err("no node set '%s' (%s)", set, path);
		return EXIT_NOSET;
	}
	return 0;
}

/* The set names, sorted, "default" first; returns how many. */
int set_names(char names[][SET_NAME_MAX], int max)
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
char *read_all(const char *path)
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

/* A 32-bit number, decimal or 0x-hex; -1 when it is not one. */
int parse_u32(const char *s, __u32 *out)
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

/* The rule a name the module gives stands for (kmod/rules.h); NVM_NR_RULES if none. */
enum nvm_rule rule_of(const char *name)
{
	unsigned int i;

	for (i = 0; i < NVM_NR_RULES; i++)
		if (!strcmp(name, nvm_rule_name(i)))
			return i;
	return NVM_NR_RULES;
}

/* "nvmediate is not loaded" as every command says it: EXIT_NOTLOADED, or 0. */
int need_module(void)
{
	if (module_loaded())
		return 0;
	err("nvmediate is not loaded (no /sys/module/nvmediate): load it with 'modprobe nvmediate'");
	return EXIT_NOTLOADED;
}

static const struct opt *opt_find(const struct opt *opts, const char *a, size_t n)
{
	for (; opts->name; opts++)
		if ((strlen(opts->name) == n && !strncmp(a, opts->name, n)) ||
		    (opts->alias && strlen(opts->alias) == n && !strncmp(a, opts->alias, n)))
			return opts;
	return NULL;
}

static int arg_error(const char *cmd, void (*usage)(FILE *), const char *fmt, const char *a)
{
	fprintf(stderr, "%s: %s: ", prog, cmd);
	fprintf(stderr, fmt, a);
	fputc('\n', stderr);
	usage(stderr);
	return EXIT_USAGE;
}

/**
 * parse_args() - a command's arguments, the same way for every command
 * @argc, @argv: the command's, argv[0] its name
 * @opts: its options, ended by an entry without a name: "--name VALUE" and
 *	"--name=VALUE" set *value, a flag sets *flag to 1
 * @pos: where its positional arguments go, at most @npos: anything not
 *	starting with '-', "-" (standard input) and "-" followed by a digit
 *	(a negative number, for the command to refuse with its own words)
 * @usage: prints the command's usage
 *
 * "--help" and "-h" print the usage on standard output.
 *
 * Return: -1 to go on; else the exit code: EXIT_OK after --help,
 * EXIT_USAGE after an unknown or extra argument or a missing value, with
 * the error and the usage on standard error.
 */
int parse_args(int argc, char **argv, const struct opt *opts, const char **pos, int npos,
	       void (*usage)(FILE *))
{
	const char *cmd = argv[0];
	int i, np = 0;

	for (i = 1; i < argc; i++) {
		const char *a = argv[i], *eq = strchr(a, '=');
		const struct opt *o;

		if (!strcmp(a, "--help") || !strcmp(a, "-h")) {
			usage(stdout);
			return EXIT_OK;
		}
		if (a[0] != '-' || !a[1] || (a[1] >= '0' && a[1] <= '9')) {
			if (np == npos)
				return arg_error(cmd, usage, "unexpected argument '%s'", a);
			pos[np++] = a;
			continue;
		}
		o = opt_find(opts, a, eq && a[1] == '-' ? (size_t)(eq - a) : strlen(a));
		if (!o || (eq && a[1] == '-' && !o->value))
			return arg_error(cmd, usage, "unknown argument '%s'", a);
		if (!o->value) {
			*o->flag = 1;
		} else if (eq && a[1] == '-') {
			*o->value = eq + 1;
		} else if (i + 1 < argc) {
			*o->value = argv[++i];
		} else {
			return arg_error(cmd, usage, "%s needs a value", a);
		}
	}
	return -1;
}
