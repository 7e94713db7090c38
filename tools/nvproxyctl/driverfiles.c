// SPDX-License-Identifier: GPL-2.0
/*
 * nvproxyctl cdi: the driver's user space a container of CUDA or NVML needs
 * beside the nodes, for the spec cdi writes by itself.  The libraries of the
 * loaded driver's release (NAME.so.VERSION) are looked for where the host's
 * dynamic linker looks (its ld.so.conf, then the usual directories of
 * Debian's and NVIDIA's layouts), its programs in the usual directories,
 * all below --driver-root when the driver's user space lives in a tree of
 * its own.  Each is bind-mounted read-only at its path in that tree; a
 * createContainer hook (nvproxyctl hook update-ldcache, hook.c) adds their
 * directories to the container's linker cache; and NVIDIA_VISIBLE_DEVICES
 * is "void", so that NVIDIA's own runtime, where it is the default, adds
 * no raw node of its own.
 */
#define _XOPEN_SOURCE 700

#include <errno.h>
#include <glob.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "nvproxyctl.h"
#include "spec.h"
#include "driverfiles.h"

#define MAX_DIRS	64

/*
 * The libraries of the compute and utility capabilities (CUDA, NVML and
 * what they load by name), as NVIDIA's container toolkit mounts them for
 * those; a release lacks some of them (libnvidia-gpucomp before 545).
 */
static const char *const driver_libs[] = {
	"libcuda.so", "libcudadebugger.so", "libnvidia-ml.so", "libnvidia-ptxjitcompiler.so",
	"libnvidia-nvvm.so", "libnvidia-gpucomp.so", "libnvidia-opencl.so",
	"libnvidia-allocator.so", "libnvidia-cfg.so", "libnvidia-pkcs11.so",
	"libnvidia-pkcs11-openssl3.so", "libnvidia-nscq.so", NULL,
};

static const char *const driver_bins[] = {
	"nvidia-smi", "nvidia-debugdump", "nvidia-persistenced", "nvidia-cuda-mps-control",
	"nvidia-cuda-mps-server", NULL,
};

/* After the dynamic linker's configuration: Debian's, then NVIDIA's layouts. */
static const char *const lib_defaults[] = {
	"/lib/x86_64-linux-gnu", "/usr/lib/x86_64-linux-gnu",
	"/usr/lib/x86_64-linux-gnu/nvidia/current", "/lib64", "/usr/lib64", "/lib", "/usr/lib",
	NULL,
};

static const char *const bin_defaults[] = { "/usr/bin", "/usr/sbin", "/bin", "/sbin", NULL };

struct dirs {
	char *d[MAX_DIRS];
	int n;
};

/* @dir (a path in the driver's tree) once. */
static void dirs_add(struct dirs *ds, const char *dir)
{
	int i;

	if (!*dir || ds->n == MAX_DIRS)
		return;
	for (i = 0; i < ds->n; i++)
		if (!strcmp(ds->d[i], dir))
			return;
	ds->d[ds->n] = strdup(dir);
	if (ds->d[ds->n])
		ds->n++;
}

static void dirs_free(struct dirs *ds)
{
	while (ds->n)
		free(ds->d[--ds->n]);
}

/* Each DIR of "DIR:DIR...". */
static void dirs_add_list(struct dirs *ds, const char *list)
{
	char *copy = list ? strdup(list) : NULL, *save = NULL, *d;

	for (d = copy ? strtok_r(copy, ":", &save) : NULL; d; d = strtok_r(NULL, ":", &save))
		dirs_add(ds, d);
	free(copy);
}

/*
 * The directories of the linker configuration file @conf (a path in the
 * driver's tree), its "include" globs followed, @depth files deep at most.
 */
static void dirs_add_conf(struct dirs *ds, const char *root, const char *conf, int depth)
{
	char path[PATH_MAX], line[PATH_MAX];
	FILE *f;

	snprintf(path, sizeof(path), "%s%s", root, conf);
	f = depth > 0 ? fopen(path, "r") : NULL;
	if (!f)
		return;
	while (fgets(line, sizeof(line), f)) {
		char *s = line, *e;

		s[strcspn(s, "#\n")] = '\0';
		s += strspn(s, " \t");
		e = s + strlen(s);
		while (e > s && (e[-1] == ' ' || e[-1] == '\t'))
			*--e = '\0';
		if (!strncmp(s, "include", 7) && (s[7] == ' ' || s[7] == '\t')) {
			glob_t g;
			size_t i;
			char pat[PATH_MAX];

			s += 7 + strspn(s + 7, " \t");
			if (*s == '/')
				snprintf(pat, sizeof(pat), "%s%s", root, s);
			else	/* relative to the including file's directory */
				snprintf(pat, sizeof(pat), "%s/%.*s/%s", root,
					 (int)(strrchr(conf, '/') - conf), conf, s);
			if (glob(pat, 0, NULL, &g))
				continue;
			for (i = 0; i < g.gl_pathc; i++)
				dirs_add_conf(ds, root, g.gl_pathv[i] + strlen(root), depth - 1);
			globfree(&g);
		} else if (*s == '/') {
			dirs_add(ds, s);
		}
	}
	fclose(f);
}

/* The loaded driver's release, from its module (or /proc/driver/nvidia). */
static int driver_version(char *v, size_t len)
{
	char line[256], *p;

	if (!read_line("/sys/module/nvidia/version", v, len) && *v)
		return 0;
	if (read_line("/proc/driver/nvidia/version", line, sizeof(line)))
		return -1;
	/* "NVRM version: NVIDIA UNIX ... Kernel Module for x86_64  550.163.01  Release ..." */
	for (p = strtok(line, " "); p; p = strtok(NULL, " "))
		if (p[0] >= '0' && p[0] <= '9' && strchr(p, '.')) {
			snprintf(v, len, "%s", p);
			return 0;
		}
	return -1;
}

static void add_mount(struct jval *edits, const char *host, const char *ctr)
{
	struct jval *m = jv_new(J_OBJ, NULL), *opt;

	jv_set(m, "hostPath", jv_str(host));
	jv_set(m, "containerPath", jv_str(ctr));
	opt = jv_set(m, "options", jv_new(J_ARR, NULL));
	jv_push(opt, jv_str("ro"));
	jv_push(opt, jv_str("nosuid"));
	jv_push(opt, jv_str("nodev"));
	jv_push(opt, jv_str("bind"));
	jv_push(jv_get(edits, "mounts") ?: jv_set(edits, "mounts", jv_new(J_ARR, NULL)), m);
}

static int is_file(const char *path)
{
	struct stat st;

	return !stat(path, &st) && S_ISREG(st.st_mode);
}

/* This program's own path, for the hook. */
static const char *self_path(void)
{
	static char self[PATH_MAX];
	ssize_t n = readlink("/proc/self/exe", self, sizeof(self) - 1);

	if (n <= 0)
		return "/usr/sbin/nvproxyctl";
	self[n] = '\0';
	return self;
}

static void add_hook(struct jval *edits, const struct dirs *folders)
{
	struct jval *h = jv_new(J_OBJ, NULL), *args;
	int i;

	jv_set(h, "hookName", jv_str("createContainer"));
	jv_set(h, "path", jv_str(self_path()));
	/* The hook gives ldconfig 60 s; the runtime's own bound above that. */
	jv_set(h, "timeout", jv_new(J_NUM, "90"));
	args = jv_set(h, "args", jv_new(J_ARR, NULL));
	jv_push(args, jv_str("nvproxyctl"));
	jv_push(args, jv_str("hook"));
	jv_push(args, jv_str("update-ldcache"));
	for (i = 0; i < folders->n; i++)
		jv_push(args, jv_str(folders->d[i]));
	jv_push(jv_get(edits, "hooks") ?: jv_set(edits, "hooks", jv_new(J_ARR, NULL)), h);
}

/*
 * Set NVIDIA_VISIBLE_DEVICES=void in @edits, replacing another value: the
 * devices come from nvmediate's spec, never from NVIDIA's runtime.
 */
void cdi_env_void(struct jval *edits)
{
	struct jval *env = jv_get(edits, "env"), *e, *next;

	if (!env)
		env = jv_set(edits, "env", jv_new(J_ARR, NULL));
	for (e = env->kids; e; e = next) {
		next = e->next;
		if (e->t == J_STR && !strncmp(e->s, "NVIDIA_VISIBLE_DEVICES=", 23))
			jv_del(env, e);
	}
	jv_push(env, jv_str("NVIDIA_VISIBLE_DEVICES=void"));
}

/*
 * The driver's libraries of release @ver, each looked for in the
 * directories @libs below @root: mounts added to @mounts' list, their
 * directories to @folders, *@have_cuda set when libcuda is among them.
 * Return: how many.
 */
static int find_libs(struct jval *mounts, const char *root, const struct dirs *libs,
		     const char *ver, struct dirs *folders, int *have_cuda)
{
	const char *const *name;
	char path[PATH_MAX];
	int i, n = 0;

	for (name = driver_libs; *name; name++) {
		for (i = 0; i < libs->n; i++) {
			snprintf(path, sizeof(path), "%s%s/%s.%s", root, libs->d[i], *name, ver);
			if (!is_file(path))
				continue;
			add_mount(mounts, path, path + strlen(root));
			dirs_add(folders, libs->d[i]);
			*have_cuda |= !strcmp(*name, "libcuda.so");
			n++;
			break;
		}
	}
	return n;
}

/*
 * The driver's programs, each looked for in the directories @bins below
 * @root: mounts onto /usr/bin added to @mounts' list.  Return: how many.
 */
static int find_bins(struct jval *mounts, const char *root, const struct dirs *bins)
{
	const char *const *name;
	char path[PATH_MAX];
	int i, n = 0;

	for (name = driver_bins; *name; name++) {
		for (i = 0; i < bins->n; i++) {
			char ctr[PATH_MAX];

			snprintf(path, sizeof(path), "%s%s/%s", root, bins->d[i], *name);
			if (!is_file(path))
				continue;
			/* On the container's PATH whatever the host's layout. */
			snprintf(ctr, sizeof(ctr), "/usr/bin/%s", *name);
			add_mount(mounts, path, ctr);
			n++;
			break;
		}
	}
	return n;
}

/* The mounts of @mounts' list moved, in order, to the end of @edits'. */
static void move_mounts(struct jval *edits, struct jval *mounts)
{
	struct jval *from = jv_get(mounts, "mounts"), *to = jv_get(edits, "mounts");

	if (!to)
		to = jv_set(edits, "mounts", jv_new(J_ARR, NULL));
	while (from->kids) {
		struct jval *m = from->kids;

		from->kids = m->next;
		m->next = NULL;
		jv_push(to, m);
	}
}

/**
 * cdi_driver_files() - the driver's user space, into a spec's common edits
 * @edits: the spec's top-level containerEdits
 * @o: where to look
 *
 * Return: the number of files added; 0 (said on standard error) when the
 * driver's release is not known or its libcuda is not found, the spec then
 * handing over the nodes only; -1 on a usage error (said).
 */
int cdi_driver_files(struct jval *edits, const struct driver_files_opts *o)
{
	const char *root = o->driver_root ? o->driver_root : root_prefix;
	struct dirs libs = { .n = 0 }, bins = { .n = 0 }, folders = { .n = 0 };
	char ver[64], path[PATH_MAX];
	const char *const *name;
	struct jval *mounts = NULL;
	int i, n = 0, have_cuda = 0;

	if (o->driver_root && o->driver_root[0] != '/') {
		err("cdi: --driver-root wants an absolute path, not '%s'", o->driver_root);
		return -1;
	}
	if (o->version) {
		snprintf(ver, sizeof(ver), "%s", o->version);
	} else if (driver_version(ver, sizeof(ver))) {
		fprintf(stderr, "%s: cdi: the nvidia module's version is not known (not loaded?): the spec names no driver library; pass --driver-version V\n",
			prog);
		return 0;
	}
	dirs_add_list(&libs, o->lib_dirs);
	dirs_add_conf(&libs, root, "/etc/ld.so.conf", 4);
	for (name = lib_defaults; *name; name++)
		dirs_add(&libs, *name);
	dirs_add_list(&bins, o->bin_dirs);
	for (name = bin_defaults; *name; name++)
		dirs_add(&bins, *name);

	/* Found first, added only if libcuda is among them. */
	mounts = jv_new(J_OBJ, NULL);
	n = find_libs(mounts, root, &libs, ver, &folders, &have_cuda);
	if (!have_cuda) {
		fprintf(stderr, "%s: cdi: no libcuda.so.%s below '%s' in", prog, ver, *root ? root : "/");
		for (i = 0; i < libs.n; i++)
			fprintf(stderr, " %s", libs.d[i]);
		fprintf(stderr, " (the driver's user space is not installed, or elsewhere: --lib-dirs, --driver-root): the spec names no driver file\n");
		n = 0;
		goto out;
	}
	n += find_bins(mounts, root, &bins);
	snprintf(path, sizeof(path), "%s/run/nvidia-persistenced/socket", root);
	if (!access(path, F_OK)) {
		add_mount(mounts, path, "/run/nvidia-persistenced/socket");
		n++;
	}
	move_mounts(edits, mounts);
	add_hook(edits, &folders);
out:
	jv_free(mounts);
	dirs_free(&libs);
	dirs_free(&bins);
	dirs_free(&folders);
	return n;
}
