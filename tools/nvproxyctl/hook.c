// SPDX-License-Identifier: GPL-2.0
/*
 * nvproxyctl hook update-ldcache DIR...: an OCI createContainer hook (named
 * by the spec cdi writes) that adds the directories of the driver's
 * libraries to the container's dynamic linker cache, so that a CUDA program
 * finds libcuda.so.1 wherever the host keeps it.
 *
 * The runtime runs it as root, with the container's state on standard
 * input, after the container's mounts (the libraries' among them) and
 * before pivot_root: runc from the container's init, in its mount
 * namespace, others from their own.  So the container's files are reached
 * in the container's mount namespace, under its root path; and since the
 * image decides what lies there (a symlink /etc -> /proc/1/root/etc would
 * reach the host's /etc through the container's init, whose root is still
 * the host's), the hook works in a mount namespace of its own, a copy of
 * the container's with every proc mount below the root detached, every
 * mount nodev and those below the root read-only, chrooted to the root:
 * no path it or ldconfig follows leads out of it, to a device the image
 * holds (ldconfig opens what a library's link points to) or to a file
 * mounted into the container (the driver's own, which a link could put
 * where ldconfig writes).  Mount points below the root are acted on by
 * name, so one whose name has an escaped character is refused.  ldconfig
 * is the host's (static, opened before the chroot), never the image's,
 * and has 60 s (a FIFO would hold its open for good).
 */
#define _GNU_SOURCE

#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <sched.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mount.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>

#include "nvproxyctl.h"
#include "spec.h"
#include "driverfiles.h"

#define LDCONFIG	"/sbin/ldconfig"
#define CONF		"/etc/ld.so.conf.d/00-nvmediate.conf"
#define STATE_MAX	(1 << 20)
#define LDCONFIG_SECONDS	60

static void usage_hook(FILE *f)
{
	fprintf(f,
		"usage: %s hook update-ldcache [--ldconfig PATH] DIR...\n"
		"\n"
		"An OCI createContainer hook, named by the spec 'nvproxyctl cdi' writes:\n"
		"reads the container's state (standard input) and its bundle's config.json,\n"
		"and in the container's root adds DIR... (where the spec mounted the\n"
		"driver's libraries) to " CONF ", where that directory\n"
		"exists, then runs the host's ldconfig (default " LDCONFIG ") there with\n"
		"DIR..., which makes the libraries' links and the linker cache.  It works\n"
		"chrooted in a copy of the container's mount namespace without its proc\n"
		"mounts, every mount nodev and those below the root read-only, so no\n"
		"link in the image leads out of the container's root, to a device or to\n"
		"a file mounted into it; ldconfig gets 60 s.\n"
		"\n"
		"exit: 0 ok, 1 error (said on standard error; the runtime then does not\n"
		"      start the container), 2 usage\n",
		prog);
}

/* All of @fd, at most STATE_MAX bytes; NULL on error. */
static char *read_fd(int fd)
{
	size_t n = 0, cap = 4096;
	char *buf = malloc(cap + 1);

	while (buf) {
		ssize_t r = read(fd, buf + n, cap - n);

		if (r < 0 && errno == EINTR)
			continue;
		if (r < 0) {
			free(buf);
			return NULL;
		}
		if (r == 0)
			break;
		n += r;
		if (n == cap) {
			char *more = cap < STATE_MAX ? realloc(buf, cap * 2 + 1) : NULL;

			if (!more) {
				free(buf);
				return NULL;
			}
			buf = more;
			cap *= 2;
		}
	}
	if (buf)
		buf[n] = '\0';
	return buf;
}

static struct jval *read_json(int fd, const char *what)
{
	char why[256];
	char *text = read_fd(fd);
	struct jval *v;

	if (!text) {
		err("hook: cannot read %s: %s", what, strerror(errno));
		return NULL;
	}
	v = jv_parse(text, why, sizeof(why));
	free(text);
	if (!v || v->t != J_OBJ) {
		err("hook: %s is not a JSON object%s%s", what, v ? "" : ": ", v ? "" : why);
		jv_free(v);
		return NULL;
	}
	return v;
}

/*
 * The container's init pid and root path (in the runtime's namespace,
 * absolute), from its state and its bundle's config.json.
 */
static int container_of(int *pid, char *root, size_t len)
{
	struct jval *state = read_json(0, "the container's state (standard input)"), *cfg = NULL;
	const char *bundle, *path;
	char file[PATH_MAX];
	struct jval *p;
	int fd, ret = -1;

	if (!state)
		return -1;
	p = jv_get(state, "pid");
	bundle = jv_gets(state, "bundle");
	if (!p || p->t != J_NUM || atoi(p->s) <= 0 || !bundle || bundle[0] != '/') {
		err("hook: the state names no pid or no absolute bundle (is this run as a createContainer hook?)");
		goto out;
	}
	*pid = atoi(p->s);
	snprintf(file, sizeof(file), "%s/config.json", bundle);
	fd = open(file, O_RDONLY | O_CLOEXEC);
	if (fd < 0) {
		err("hook: %s: %s", file, strerror(errno));
		goto out;
	}
	cfg = read_json(fd, file);
	close(fd);
	path = cfg ? jv_gets(jv_get(cfg, "root"), "path") : NULL;
	if (!path || !*path) {
		if (cfg)
			err("hook: %s names no root.path", file);
		goto out;
	}
	if (path[0] == '/')
		snprintf(root, len, "%s", path);
	else
		snprintf(root, len, "%s/%s", bundle, path);
	ret = 0;
out:
	jv_free(cfg);
	jv_free(state);
	return ret;
}

/*
 * Call @fn for each mount at or below @root of this mount namespace, with
 * its mount point, options and type, as /proc/self/mountinfo lists them.
 * A mount point with an escaped character (a blank, a backslash) below the
 * root is refused: the image chose that name, and a path acted on by name
 * must be the mount's own.  Return: 0, or -1 (errno set) when a line
 * cannot be read or is refused, or @fn fails.
 */
static int each_mount_below(const char *root,
			    int (*fn)(const char *mnt, const char *opts, const char *type, void *arg),
			    void *arg)
{
	size_t rl = strlen(root), cap = 0;
	FILE *f = fopen("/proc/self/mountinfo", "r");
	char *line = NULL;
	int ret = 0;

	if (!f)
		return -1;
	while (!ret && getline(&line, &cap, f) > 0) {
		char mnt[PATH_MAX], opts[512], type[64], *sep = strstr(line, " - ");

		/* "ID PARENT MAJ:MIN ROOT MOUNTPOINT OPTIONS ... - FSTYPE ..." */
		if (!sep || sscanf(line, "%*s %*s %*s %*s %4095s %511s", mnt, opts) != 2 ||
		    sscanf(sep + 3, "%63s", type) != 1) {
			errno = EINVAL;
			ret = -1;
			break;
		}
		if (strncmp(mnt, root, rl) || (mnt[rl] && mnt[rl] != '/'))
			continue;
		if (strchr(mnt, '\\')) {
			errno = EINVAL;
			ret = -1;
			break;
		}
		ret = fn(mnt, opts, type, arg);
	}
	free(line);
	fclose(f);
	return ret;
}

/* A proc mount detached, with its submounts (whose lines are gone then). */
static int detach_proc(const char *mnt, const char *opts, const char *type, void *arg)
{
	(void)opts;
	(void)arg;
	if (strcmp(type, "proc"))
		return 0;
	return umount2(mnt, MNT_DETACH);
}

/* The flags of a mount, from its mountinfo options ("rw,nosuid,relatime"). */
static unsigned long mount_flags(const char *opts)
{
	static const struct { const char *name; unsigned long flag; } names[] = {
		{ "ro", MS_RDONLY }, { "nosuid", MS_NOSUID }, { "nodev", MS_NODEV },
		{ "noexec", MS_NOEXEC }, { "noatime", MS_NOATIME },
		{ "nodiratime", MS_NODIRATIME }, { "relatime", MS_RELATIME },
		{ "strictatime", MS_STRICTATIME },
	};
	char buf[512], *save = NULL, *o;
	unsigned long flags = 0;
	size_t i;

	snprintf(buf, sizeof(buf), "%s", opts);
	for (o = strtok_r(buf, ",", &save); o; o = strtok_r(NULL, ",", &save))
		for (i = 0; i < sizeof(names) / sizeof(names[0]); i++)
			if (!strcmp(o, names[i].name))
				flags |= names[i].flag;
	return flags;
}

/*
 * Every mount at or below the root nodev, its other flags kept, and every
 * one below the root read-only too: a device node the image holds (a
 * library's link to one) opens nothing for ldconfig, which runs as the
 * host's root, and no file mounted into the container (the driver's, a
 * volume) is written by it; it writes only the image's own files.
 */
static int remount_one(const char *mnt, const char *opts, const char *type, void *arg)
{
	const char *root = arg;
	unsigned long flags = MS_REMOUNT | MS_BIND | MS_NODEV | mount_flags(opts);

	(void)type;
	if (strcmp(mnt, root))
		flags |= MS_RDONLY;
	return mount(NULL, mnt, NULL, flags, NULL);
}

static void write_conf(char **dirs, int n)
{
	struct stat st;
	FILE *f;
	int fd, i;

	if (lstat("/etc/ld.so.conf.d", &st) || !S_ISDIR(st.st_mode))
		return;
	/* A FIFO there would hold the open: not waited for, not written. */
	fd = open(CONF, O_WRONLY | O_CREAT | O_NOFOLLOW | O_NONBLOCK | O_CLOEXEC, 0644);
	if (fd >= 0 && (fstat(fd, &st) || !S_ISREG(st.st_mode) || ftruncate(fd, 0))) {
		close(fd);
		fd = -1;
		errno = EINVAL;
	}
	f = fd < 0 ? NULL : fdopen(fd, "w");
	if (!f) {
		fprintf(stderr, "%s: hook: %s not written: %s\n", prog, CONF, strerror(errno));
		if (fd >= 0)
			close(fd);
		return;
	}
	fprintf(f, "# The NVIDIA driver's libraries (nvproxyctl hook update-ldcache).\n");
	for (i = 0; i < n; i++)
		fprintf(f, "%s\n", dirs[i]);
	fclose(f);
}

/* In the child: into the container's files, then ldconfig. */
static void in_container(int nsfd, int ldfd, const char *root, char **dirs, int n)
{
	char *argv[64 + 2] = { "ldconfig" };
	char *envp[] = { "PATH=/usr/sbin:/usr/bin:/sbin:/bin", NULL };
	int i;

	if ((nsfd >= 0 && setns(nsfd, CLONE_NEWNS)) || unshare(CLONE_NEWNS) ||
	    mount(NULL, "/", NULL, MS_REC | MS_PRIVATE, NULL)) {
		err("hook: cannot enter a copy of the container's mount namespace: %s", strerror(errno));
		_exit(1);
	}
	if (each_mount_below(root, detach_proc, NULL)) {
		err("hook: cannot detach the proc mounts below %s: %s", root, strerror(errno));
		_exit(1);
	}
	/* The root a mount of its own (runc's is; a plain directory is not). */
	if (mount(root, root, NULL, MS_BIND | MS_REC, NULL) ||
	    each_mount_below(root, remount_one, (void *)root)) {
		err("hook: cannot make the mounts below %s nodev and read-only: %s", root,
		    strerror(errno));
		_exit(1);
	}
	if (chroot(root) || chdir("/")) {
		err("hook: cannot chroot to %s: %s", root, strerror(errno));
		_exit(1);
	}
	write_conf(dirs, n);
	for (i = 0; i < n && i < 64; i++)
		argv[i + 1] = dirs[i];
	syscall(SYS_execveat, ldfd, "", argv, envp, AT_EMPTY_PATH);
	err("hook: cannot run the host's ldconfig: %s", strerror(errno));
	_exit(1);
}

/* hook's arguments: the ldconfig to run, "update-ldcache" and the directories. */
struct hook_opts {
	const char *ldconfig;
	const char *pos[64];
	int n;			/* how many of pos */
};

/* The arguments into @o, checked: -1 to go on, else the exit status. */
static int parse_hook_args(int argc, char **argv, struct hook_opts *o)
{
	const struct opt opts[] = {
		{ "--ldconfig", NULL, &o->ldconfig, NULL },
		{ NULL }
	};
	int i;

	o->ldconfig = LDCONFIG;
	memset(o->pos, 0, sizeof(o->pos));
	i = parse_args(argc, argv, opts, o->pos, 64, usage_hook);
	if (i >= 0)
		return i;
	for (o->n = 0; o->n < 64 && o->pos[o->n]; o->n++)
		;
	if (!o->n || strcmp(o->pos[0], "update-ldcache")) {
		err("hook: which hook? (update-ldcache)");
		usage_hook(stderr);
		return EXIT_USAGE;
	}
	for (i = 1; i < o->n; i++)
		if (o->pos[i][0] != '/' || strstr(o->pos[i], "\n")) {
			err("hook: '%s' is not an absolute directory", o->pos[i]);
			return EXIT_USAGE;
		}
	return -1;
}

/*
 * Wait for ldconfig, run by @child in the container's root @root; the exit
 * status.  A FIFO among the libraries would hold ldconfig's open for good
 * (and an ignored SIGALRM would outlive an alarm across the exec): the
 * child gets LDCONFIG_SECONDS, then is killed.
 */
static int wait_ldconfig(pid_t child, const char *root)
{
	int i, st;

	for (i = 0; ; i++) {
		pid_t r = waitpid(child, &st, WNOHANG);

		if (r == child)
			break;
		if (r < 0 && errno != EINTR) {
			err("hook: waitpid: %s", strerror(errno));
			return EXIT_ERR;
		}
		if (i == LDCONFIG_SECONDS * 10) {
			kill(child, SIGKILL);
			waitpid(child, &st, 0);
			err("hook: ldconfig in the container's root %s took over %d s: killed",
			    root, LDCONFIG_SECONDS);
			return EXIT_ERR;
		}
		usleep(100000);
	}
	if (!WIFEXITED(st) || WEXITSTATUS(st)) {
		err("hook: ldconfig in the container's root %s failed (status 0x%x)", root, st);
		return EXIT_ERR;
	}
	return EXIT_OK;
}

/**
 * cmd_hook() - nvproxyctl hook
 * @argc: arguments after "nvproxyctl"
 * @argv: "hook", "update-ldcache" and its options
 *
 * Return: the exit status (usage_hook()).
 */
int cmd_hook(int argc, char **argv)
{
	struct hook_opts o;
	char root[PATH_MAX], ns[64];
	int ret, pid, nsfd, ldfd;
	pid_t child;

	ret = parse_hook_args(argc, argv, &o);
	if (ret >= 0)
		return ret;
	if (o.n == 1)
		return EXIT_OK;	/* no directory: nothing to add */
	if (container_of(&pid, root, sizeof(root)))
		return EXIT_ERR;
	/*
	 * runc runs the hook from the container's init, in the container's
	 * mount namespace, and names that init by its pid in the container's
	 * pid namespace (1), which /proc, still the host's, does not know by
	 * that number: a hook whose parent is the container's init is in the
	 * right namespace already.  Others run it from their own namespaces,
	 * with the init's pid as the host sees it.
	 */
	nsfd = -1;
	if (getppid() != pid) {
		snprintf(ns, sizeof(ns), "/proc/%d/ns/mnt", pid);
		nsfd = open(ns, O_RDONLY | O_CLOEXEC);
		if (nsfd < 0) {
			err("hook: %s: %s", ns, strerror(errno));
			return EXIT_ERR;
		}
	}
	ldfd = open(o.ldconfig, O_RDONLY | O_CLOEXEC);
	if (ldfd < 0) {
		err("hook: %s: %s", o.ldconfig, strerror(errno));
		return EXIT_ERR;
	}
	child = fork();
	if (child < 0) {
		err("hook: fork: %s", strerror(errno));
		return EXIT_ERR;
	}
	if (child == 0)
		in_container(nsfd, ldfd, root, (char **)o.pos + 1, o.n - 1);
	if (nsfd >= 0)
		close(nsfd);
	close(ldfd);
	return wait_ldconfig(child, root);
}
