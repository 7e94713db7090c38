// SPDX-License-Identifier: GPL-2.0
/*
 * nvproxyctl: the nvidia driver's capability nodes and IMEX channels, for
 * cdi, and the node sets that give them to a container's calls.
 *
 * What the driver says (kernel-open/nvidia/nv-caps.c, nv-caps-imex.c and
 * RM's os.c, 580.142): /proc/driver/nvidia/capabilities/ holds
 * gpu<N>/mig/gi<G>/access and gpu<N>/mig/gi<G>/ci<C>/access for every GPU
 * instance G and compute instance C of the GPU of minor N (gpu<N> is named
 * by the GPU's device minor, and a gpu<N>/mig directory is there whether or
 * not the GPU is in MIG mode); each file reads "DeviceFileMinor: M",
 * "DeviceFileMode: MODE" (decimal) and "DeviceFileModify: 0|1".  The node
 * is /dev/nvidia-caps/nvidia-cap<M> on the character major /proc/devices
 * names "nvidia-caps".  An IMEX channel C is /dev/nvidia-caps-imex-channels/
 * channel<C>, minor C of the major named "nvidia-caps-imex-channels" (there
 * only while NVreg_ImexChannelCount is not 0).  The driver makes none of
 * these nodes (but channel 0 with NVreg_CreateImexChannel0): nvidia-modprobe
 * does, with -f CAP-FILE and -i FIRST:COUNT, and so does node_ensure() here,
 * the same way, as root.
 *
 * A MIG instance's set (mig-G-GI-CI) gives exactly its two access nodes:
 * its nvidia_caps are written with them, and a call of its files naming
 * another instance's node is refused (fd-node-not-given).
 */
#define _XOPEN_SOURCE 700

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/sysmacros.h>
#include <sys/types.h>
#include <time.h>
#include <unistd.h>

#include "nvproxyctl.h"
#include "nvcaps.h"

/**
 * chrdev_major() - a character device major by its driver's name
 * @name: the name /proc/devices gives it ("nvidia-caps")
 *
 * Return: the major, or -1 when /proc/devices has no such character device.
 */
int chrdev_major(const char *name)
{
	char p[PATH_MAX], line[256], dev[128];
	int in = 0, major = -1, m;
	FILE *f;

	hostpath(p, sizeof(p), "/proc/devices");
	f = fopen(p, "r");
	if (!f)
		return -1;
	while (fgets(line, sizeof(line), f)) {
		if (!strcmp(line, "Character devices:\n")) {
			in = 1;
			continue;
		}
		if (!in)
			continue;
		if (line[0] == '\n' || !strncmp(line, "Block devices:", 14))
			break;
		if (sscanf(line, "%d %127s", &m, dev) == 2 && !strcmp(dev, name)) {
			major = m;
			break;
		}
	}
	fclose(f);
	return major;
}

/* The value N of a line "KEY: N" of @path into *@val; -1, *@val untouched, without one. */
int kv_read(const char *path, const char *key, long *val)
{
	char p[PATH_MAX], line[256];
	size_t n = strlen(key);
	int found = -1;
	FILE *f;

	hostpath(p, sizeof(p), path);
	f = fopen(p, "r");
	if (!f)
		return -1;
	while (fgets(line, sizeof(line), f)) {
		char *end;
		long v;

		if (strncmp(line, key, n) || line[n] != ':')
			continue;
		v = strtol(line + n + 1, &end, 10);
		if (end != line + n + 1 && (*end == '\n' || *end == '\0') && v >= 0) {
			*val = v;
			found = 0;
		}
		break;
	}
	fclose(f);
	return found;
}

/* "gpu12" -> 12 for @pre "gpu"; -1 for anything else. */
static int numbered(const char *name, const char *pre)
{
	size_t n = strlen(pre);
	char *end;
	long v;

	if (strncmp(name, pre, n) || name[n] < '0' || name[n] > '9' || (name[n] == '0' && name[n + 1]))
		return -1;
	v = strtol(name + n, &end, 10);
	if (*end || v > 1000000)
		return -1;
	return (int)v;
}

/* The DeviceFileMinor of capability file @rel (below NVCAPS_PROC); -1 if none. */
static int cap_minor(const char *rel)
{
	char path[PATH_MAX];
	long v;

	snprintf(path, sizeof(path), NVCAPS_PROC "/%s", rel);
	if (kv_read(path, "DeviceFileMinor", &v) || v > 0xfffff)
		return -1;
	return (int)v;
}

static int mig_cmp(const void *a, const void *b)
{
	const struct mig *x = a, *y = b;

	if (x->gpu != y->gpu)
		return x->gpu < y->gpu ? -1 : 1;
	if (x->gi != y->gi)
		return x->gi < y->gi ? -1 : 1;
	return x->ci < y->ci ? -1 : x->ci > y->ci;
}

/* The subdirectories of @rel below NVCAPS_PROC named PRE<N>, by N, into @out. */
static int numbered_dirs(const char *rel, const char *pre, int *out, int max)
{
	char p[PATH_MAX], dir[PATH_MAX];
	struct dirent *d;
	DIR *dh;
	int n = 0, k;

	snprintf(dir, sizeof(dir), NVCAPS_PROC "%s%s", rel[0] ? "/" : "", rel);
	hostpath(p, sizeof(p), dir);
	dh = opendir(p);
	if (!dh)
		return -1;
	while ((d = readdir(dh)) && n < max)
		if ((k = numbered(d->d_name, pre)) >= 0)
			out[n++] = k;
	closedir(dh);
	return n;
}

/**
 * mig_list() - the driver's MIG compute instances
 * @m: filled with them, sorted by GPU, GPU instance, compute instance
 * @max: room in @m
 *
 * An instance whose access files give no minor is left out.
 *
 * Return: how many, or -1 when the driver has no capabilities tree.
 */
int mig_list(struct mig *m, int max)
{
	int gpus[256], gis[64], cis[64], ng, ngi, nci, i, j, k, n = 0;
	char rel[128];

	ng = numbered_dirs("", "gpu", gpus, 256);
	if (ng < 0)
		return -1;
	for (i = 0; i < ng; i++) {
		snprintf(rel, sizeof(rel), "gpu%d/mig", gpus[i]);
		ngi = numbered_dirs(rel, "gi", gis, 64);
		for (j = 0; j < ngi; j++) {
			int gim;

			snprintf(rel, sizeof(rel), "gpu%d/mig/gi%d/access", gpus[i], gis[j]);
			gim = cap_minor(rel);
			snprintf(rel, sizeof(rel), "gpu%d/mig/gi%d", gpus[i], gis[j]);
			nci = numbered_dirs(rel, "ci", cis, 64);
			for (k = 0; k < nci && n < max && gim >= 0; k++) {
				snprintf(rel, sizeof(rel), "gpu%d/mig/gi%d/ci%d/access", gpus[i], gis[j],
					 cis[k]);
				m[n].ci_minor = cap_minor(rel);
				if (m[n].ci_minor < 0)
					continue;
				m[n].gpu = gpus[i];
				m[n].gi = gis[j];
				m[n].ci = cis[k];
				m[n].gi_minor = gim;
				n++;
			}
		}
	}
	qsort(m, (size_t)n, sizeof(*m), mig_cmp);
	return n;
}

/* The node set of a MIG instance: mig-G-GI-CI (a set name, at most 15 characters). */
void mig_set_name(char *buf, size_t len, const struct mig *m)
{
	snprintf(buf, len, "mig-%d-%d-%d", m->gpu, m->gi, m->ci);
}

/* Its CDI device name: G:GI:CI. */
void mig_name(char *buf, size_t len, const struct mig *m)
{
	snprintf(buf, len, "%d:%d:%d", m->gpu, m->gi, m->ci);
}

/*
 * A driver node at @path (below /dev, in directory @dir) of @major:@minor,
 * made the way nvidia-modprobe makes it when it is missing or is not that
 * device: the directory 0755 root's, the node mknod'ed with @mode, @uid and
 * @gid, which the driver says; not when the driver says its nodes are the
 * administrator's (@modify 0).  Making nodes takes root; without it, or
 * when the driver's nodes are not to be made, what is missing is said with
 * the nvidia-modprobe arguments (@hint) that make it.  Below NVPROXYCTL_ROOT
 * (the tests' fake host) a node that is there is taken as it is: the
 * stand-ins are links to /dev/null.
 */
static int node_ensure(const char *dir, const char *path, int major, int minor, unsigned int mode,
		       unsigned int uid, unsigned int gid, long modify, const char *hint)
{
	char p[PATH_MAX], d[PATH_MAX];
	dev_t dev = makedev((unsigned int)major, (unsigned int)minor);
	struct stat st;
	int had, made_dir = 0;

	hostpath(p, sizeof(p), path);
	hostpath(d, sizeof(d), dir);
	had = !stat(p, &st);
	if (had && (*root_prefix || (S_ISCHR(st.st_mode) && st.st_rdev == dev)))
		return 0;
	if (!modify) {
		err("cdi: %s %s, and the driver leaves its nodes to the administrator (DeviceFileModify 0): make it (c %d:%d), e.g. 'nvidia-modprobe %s'",
		    path, had ? "is not the driver's node" : "is missing", major, minor, hint);
		return -1;
	}
	if (geteuid()) {
		err("cdi: %s %s (c %d:%d): run as root to have it made, or 'nvidia-modprobe %s'",
		    path, had ? "is not the driver's node" : "is missing", major, minor, hint);
		return -1;
	}
	if (mkdir(d, 0755) == 0) {
		made_dir = 1;
		if (chmod(d, 0755) || chown(d, 0, 0)) {
			err("cdi: cannot set up %s: %s", d, strerror(errno));
			return -1;
		}
	} else if (errno != EEXIST) {
		err("cdi: cannot make %s: %s", d, strerror(errno));
		return -1;
	}
	if (had && unlink(p)) {
		err("cdi: cannot remove %s, which is not the driver's node: %s", p, strerror(errno));
		return -1;
	}
	if (mknod(p, S_IFCHR | (mode & 0777), dev)) {
		err("cdi: cannot make %s (c %d:%d): %s", p, major, minor, strerror(errno));
		if (made_dir)
			rmdir(d);
		return -1;
	}
	if (chmod(p, mode & 0777) || chown(p, uid, gid)) {
		err("cdi: cannot give %s mode %04o and owner %u:%u: %s", p, mode & 0777, uid, gid,
		    strerror(errno));
		unlink(p);
		return -1;
	}
	fprintf(stderr, "%s: cdi: made %s (c %d:%d, mode %04o), as 'nvidia-modprobe %s' does\n", prog,
		path, major, minor, mode & 0777, hint);
	return 0;
}

/* The access node of capability file @rel, made if missing (node_ensure()). */
static int cap_node(const char *rel, int major, int minor, char path[64])
{
	char file[256], hint[264];
	long mode = 0444, modify = 1;

	snprintf(file, sizeof(file), NVCAPS_PROC "/%s", rel);
	kv_read(file, "DeviceFileMode", &mode);
	kv_read(file, "DeviceFileModify", &modify);
	snprintf(path, 64, CAPS_DEV "/nvidia-cap%d", minor);
	snprintf(hint, sizeof(hint), "-f %s", file);
	return node_ensure(CAPS_DEV, path, major, minor, (unsigned int)mode, 0, 0, modify, hint);
}

/**
 * mig_cap_nodes() - the two access nodes of a MIG instance, made if missing
 * @m: the instance
 * @major: nvidia-caps's major
 * @gi_path, @ci_path: set to their paths, /dev/nvidia-caps/nvidia-capM
 *
 * Return: 0, or -1 when one is missing and cannot be made (said).
 */
int mig_cap_nodes(const struct mig *m, int major, char gi_path[64], char ci_path[64])
{
	char rel[128];

	snprintf(rel, sizeof(rel), "gpu%d/mig/gi%d/access", m->gpu, m->gi);
	if (cap_node(rel, major, m->gi_minor, gi_path))
		return -1;
	snprintf(rel, sizeof(rel), "gpu%d/mig/gi%d/ci%d/access", m->gpu, m->gi, m->ci);
	return cap_node(rel, major, m->ci_minor, ci_path);
}

/*
 * Write @val to the sysfs file @path (below NVPROXYCTL_ROOT) in one write;
 * errno kept.  @append 1 for create_set (a fake one keeps every line), 2
 * for a set's allow (an edit of the list; a fake one keeps every line and
 * is made when missing), else the file is opened as apply opens a set's
 * attributes (a fake one holds the last write).
 */
static int sys_write(const char *path, const char *val, int append)
{
	char p[PATH_MAX];
	size_t n = strlen(val);
	int fd, e;
	ssize_t w;

	hostpath(p, sizeof(p), path);
	fd = append == 1 ? open(p, O_WRONLY | O_APPEND | O_CLOEXEC) :
	     append == 2 ? open(p, O_WRONLY | O_APPEND | O_CREAT | O_CLOEXEC, 0644) :
			   open(p, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
	if (fd < 0)
		return -1;
	w = write(fd, val, n);
	e = errno;
	if (close(fd) && w == (ssize_t)n)
		return -1;
	errno = e;
	if (w != (ssize_t)n) {
		if (w >= 0)
			errno = EIO;
		return -1;
	}
	return 0;
}

/* @s with its blanks and newlines made single blanks, none at the ends. */
static void words(char *s)
{
	char *w = s, *r;

	for (r = s; *r; r++) {
		if (*r == ' ' || *r == '\n' || *r == '\t') {
			if (w != s && w[-1] != ' ')
				*w++ = ' ';
		} else {
			*w++ = *r;
		}
	}
	if (w != s && w[-1] == ' ')
		w--;
	*w = '\0';
}

/*
 * Replace set attribute @attr with @val.  A list of nodes (@list) that held
 * others is said: what another run or an administrator gave the set is gone.
 */
static int set_write(const char *set, const char *attr, const char *val, int list)
{
	char path[PATH_MAX], *old = NULL, *now = NULL;

	set_attr_path(path, sizeof(path), set, attr);
	if (list) {
		old = read_all(path);
		now = strdup(val);
		if (old && now) {
			words(old);
			words(now);
			if (old[0] && strcmp(old, "none") && strcmp(old, now))
				fprintf(stderr, "%s: cdi: node set '%s': %s were '%s', now '%s'\n", prog,
					set, attr, old, now);
		}
		free(old);
		free(now);
	}
	if (sys_write(path, val, 0)) {
		err("cdi: cannot write '%.*s' to %s: %s%s", (int)strcspn(val, "\n"), val, path,
		    strerror(errno), errno == EACCES || errno == EPERM ? " (run as root)" : "");
		return -1;
	}
	return 0;
}

static int has_word(const char *list, const char *word)
{
	size_t n = strlen(word);
	const char *s;

	for (s = list; (s = strstr(s, word)); s += n)
		if ((s == list || s[-1] == ' ') && (s[n] == '\0' || s[n] == ' ' || s[n] == '\n'))
			return 1;
	return 0;
}

/**
 * mig_set_ready() - the node set of a MIG instance, giving its two nodes
 * @set: its name (mig_set_name())
 * @major: nvidia-caps's major
 * @m: the instance
 * @created: set to 1 when the set was made now
 *
 * A set that is not there is made with "compute+utility+mig"; one that is
 * keeps its capabilities (said when they lack mig, which the instance's
 * subscription calls need).  Its nvidia_caps become exactly the instance's
 * GPU instance and compute instance access nodes.
 *
 * Return: 0, or -1 (said).
 */
int mig_set_ready(const char *set, int major, const struct mig *m, int *created)
{
	char path[PATH_MAX], caps[256], val[128];

	*created = 0;
	set_attr_path(path, sizeof(path), set, "caps");
	if (!read_line(path, caps, sizeof(caps))) {
		if (!has_word(caps, "mig"))
			fprintf(stderr, "%s: cdi: node set '%s' is there with caps '%s', kept: without 'mig' the calls that use MIG instance %d:%d:%d are refused\n",
				prog, set, caps, m->gpu, m->gi, m->ci);
	} else {
		if (!module_loaded()) {
			err("cdi: nvmediate is not loaded: no node set '%s' can be made", set);
			return -1;
		}
		snprintf(val, sizeof(val), "%s compute+utility+mig\n", set);
		if (sys_write("/sys/kernel/nvmediate/create_set", val, 1)) {
			int e = errno;

			err("cdi: cannot make node set '%s' (/sys/kernel/nvmediate/create_set): %s%s", set,
			    strerror(e),
			    e == EINVAL ? " (does this nvmediate know the capability 'mig'? load a newer one)" :
			    e == ENOSPC ? " (64 sets already)" :
			    e == EACCES || e == EPERM ? " (run as root)" : "");
			return -1;
		}
		*created = 1;
	}
	snprintf(val, sizeof(val), "%d:%d %d:%d\n", major, m->gi_minor, major, m->ci_minor);
	return set_write(set, "nvidia_caps", val, !*created);
}

/**
 * wait_set_node() - wait for a set's GPU node, made by devtmpfs or udev
 * @set: the set
 * @gpu: the GPU minor
 *
 * Return: 0 when /dev/nvmediate/SET/nvidiaGPU is there (within 2 s), else -1.
 */
int wait_set_node(const char *set, int gpu)
{
	struct timespec ts = { 0, 50 * 1000 * 1000 };
	char node[96];
	int i;

	set_node_path(node, sizeof(node), set, 'g', gpu);
	for (i = 0; i < 40; i++) {
		if (path_exists(node))
			return 0;
		nanosleep(&ts, NULL);
	}
	return -1;
}

/**
 * imex_node() - the node of IMEX channel @ch, made if missing
 * @major: nvidia-caps-imex-channels's major
 * @ch: the channel (its minor)
 * @path: set to /dev/nvidia-caps-imex-channels/channelCH
 *
 * Made as nvidia-modprobe -i makes it, with the driver's DeviceFileMode,
 * DeviceFileUID, DeviceFileGID and ModifyDeviceFiles (/proc/driver/nvidia/params).
 *
 * Return: 0, or -1 (said).
 */
int imex_node(int major, int ch, char path[64])
{
	long mode = 0666, uid = 0, gid = 0, modify = 1;
	char hint[32];

	kv_read(DRIVER_PARAMS, "DeviceFileMode", &mode);
	kv_read(DRIVER_PARAMS, "DeviceFileUID", &uid);
	kv_read(DRIVER_PARAMS, "DeviceFileGID", &gid);
	kv_read(DRIVER_PARAMS, "ModifyDeviceFiles", &modify);
	snprintf(path, 64, IMEX_DEV "/channel%d", ch);
	snprintf(hint, sizeof(hint), "-i %d:1", ch);
	return node_ensure(IMEX_DEV, path, major, ch, (unsigned int)mode, (unsigned int)uid,
			   (unsigned int)gid, modify, hint);
}

static int int_cmp(const void *a, const void *b)
{
	int x = *(const int *)a, y = *(const int *)b;

	return x < y ? -1 : x > y;
}

/**
 * imex_present() - the IMEX channels whose nodes are on the host
 * @ch: filled with them, sorted (at most @max)
 * @max: room in @ch
 *
 * Return: how many there are (more than @max when they do not fit).
 */
int imex_present(int *ch, int max)
{
	char p[PATH_MAX];
	struct dirent *d;
	DIR *dh;
	int n = 0, k;

	hostpath(p, sizeof(p), IMEX_DEV);
	dh = opendir(p);
	if (!dh)
		return 0;
	while ((d = readdir(dh)))
		if ((k = numbered(d->d_name, "channel")) >= 0 && k <= IMEX_CHANNEL_MAX) {
			if (n < max)
				ch[n] = k;
			n++;
		}
	closedir(dh);
	qsort(ch, (size_t)(n < max ? n : max), sizeof(*ch), int_cmp);
	return n;
}

/* How many IMEX channels set @set has room for beside its nvidia_caps. */
int imex_limit(const char *set)
{
	char path[PATH_MAX], *s, *l, *save = NULL;
	int n = 0;

	set_attr_path(path, sizeof(path), set ? set : "default", "nvidia_caps");
	s = read_all(path);
	for (l = s ? strtok_r(s, "\n", &save) : NULL; l; l = strtok_r(NULL, "\n", &save))
		if (strchr(l, ':'))
			n++;
	free(s);
	return n > SET_NODES_MAX ? 0 : SET_NODES_MAX - n;
}

/**
 * set_imex_write() - give a set IMEX channels
 * @set: the set, NULL for the default one
 * @major: nvidia-caps-imex-channels's major
 * @ch, @n: the channels, which replace the set's imex_channels
 *
 * fabric-imex is added to the set's caps when they lack it: the calls that
 * use a channel need it.
 *
 * Return: 0, or -1 (said).
 */
int set_imex_write(const char *set, int major, const int *ch, int n)
{
	const char *s = set ? set : "default";
	char *val = malloc((size_t)n * 24 + 2);
	size_t len = 0;
	int i, ret;

	if (!val)
		return -1;
	for (i = 0; i < n; i++)
		len += (size_t)sprintf(val + len, "%s%d:%d", i ? " " : "", major, ch[i]);
	strcpy(val + len, "\n");
	ret = set_write(s, "imex_channels", val, 1);
	free(val);
	if (ret)
		return -1;
	return set_caps_word(s, "fabric-imex", "IMEX channels need fabric-imex");
}

/**
 * set_caps_word() - add a capability to a set's caps when they lack it
 * @set: the set, NULL for the default one
 * @word: the capability (docs/policy.md)
 * @why: said with the caps it now has
 *
 * Return: 0, or -1 (said).
 */
int set_caps_word(const char *set, const char *word, const char *why)
{
	const char *s = set ? set : "default", *now;
	char path[PATH_MAX], caps[256], add[300];

	set_attr_path(path, sizeof(path), s, "caps");
	if (read_line(path, caps, sizeof(caps))) {
		err("cdi: cannot read %s", path);
		return -1;
	}
	if (has_word(caps, word))
		return 0;
	snprintf(add, sizeof(add), "%s %s\n", strcmp(caps, "none") ? caps : "", word);
	now = add[0] == ' ' ? add + 1 : add;
	if (set_write(s, "caps", now, 0))
		return -1;
	fprintf(stderr, "%s: cdi: node set '%s': caps now '%.*s' (%s)\n", prog, s,
		(int)strcspn(now, "\n"), now, why);
	return 0;
}

/* The MAJOR:MINOR items of a set's nvidia_caps, blank-separated, into @out. */
static void caps_nodes(const char *set, char *out, size_t len)
{
	char path[PATH_MAX], *s, *w, *save = NULL;
	size_t n = 0;

	out[0] = '\0';
	set_attr_path(path, sizeof(path), set, "nvidia_caps");
	s = read_all(path);
	for (w = s ? strtok_r(s, " ,\t\n", &save) : NULL; w; w = strtok_r(NULL, " ,\t\n", &save))
		if (strchr(w, ':') && n + strlen(w) + 2 < len)
			n += (size_t)snprintf(out + n, len - n, "%s%s", n ? " " : "", w);
	free(s);
}

/**
 * set_caps_listed() - does a set's nvidia_caps list a node
 * @set: the set, NULL for the default one
 * @major, @minor: the node's numbers
 *
 * Return: 1 or 0.
 */
int set_caps_listed(const char *set, int major, int minor)
{
	char list[SET_NODES_MAX * 24], item[24];

	caps_nodes(set ? set : "default", list, sizeof(list));
	snprintf(item, sizeof(item), "%d:%d", major, minor);
	return has_word(list, item);
}

/**
 * set_caps_nodes_add() - add capability nodes to a set's nvidia_caps
 * @set: the set, NULL for the default one
 * @major: nvidia-caps's major
 * @minor, @n: the nodes' minors
 *
 * A write of nvidia_caps replaces the list: the nodes it lists are written
 * again with the new ones.
 *
 * Return: 0, or -1 (said).
 */
int set_caps_nodes_add(const char *set, int major, const int *minor, int n)
{
	const char *s = set ? set : "default";
	char list[SET_NODES_MAX * 24 + 64], item[24];
	size_t len;
	int i, added = 0;

	caps_nodes(s, list, sizeof(list) - 64);
	for (i = 0; i < n; i++) {
		snprintf(item, sizeof(item), "%d:%d", major, minor[i]);
		if (has_word(list, item))
			continue;
		len = strlen(list);
		snprintf(list + len, sizeof(list) - len, "%s%s", len ? " " : "", item);
		added++;
	}
	if (!added)
		return 0;
	len = strlen(list);
	snprintf(list + len, sizeof(list) - len, "\n");
	if (set_write(s, "nvidia_caps", list, 0))
		return -1;
	fprintf(stderr, "%s: cdi: node set '%s': nvidia_caps now '%.*s'\n", prog, s,
		(int)strcspn(list, "\n"), list);
	return 0;
}

/**
 * set_allow_add() - add an allow entry to a set's profile
 * @set: the set, NULL for the default one
 * @entry: "FAMILY 0xNUMBER", as the set's allow shows it
 * @why: said when it is added
 *
 * A write of allow edits the list: the entries it has are kept.
 *
 * Return: 0, or -1 (said).
 */
int set_allow_add(const char *set, const char *entry, const char *why)
{
	const char *s = set ? set : "default";
	char path[PATH_MAX], val[64], *old, *l, *save = NULL;
	int have = 0;

	set_attr_path(path, sizeof(path), s, "allow");
	old = read_all(path);
	for (l = old ? strtok_r(old, "\n", &save) : NULL; l && !have; l = strtok_r(NULL, "\n", &save))
		have = !strcmp(l, entry);
	free(old);
	if (have)
		return 0;
	snprintf(val, sizeof(val), "%s\n", entry);
	if (sys_write(path, val, 2)) {
		err("cdi: cannot write '%s' to %s: %s%s", entry, path, strerror(errno),
		    errno == EACCES || errno == EPERM ? " (run as root)" : "");
		return -1;
	}
	fprintf(stderr, "%s: cdi: node set '%s': allow entry '%s' added (%s)\n", prog, s, entry, why);
	return 0;
}

/**
 * cap_file_node() - a capability's node, by its file, made if missing
 * @rel: its file below NVCAPS_PROC ("mig/monitor")
 * @major: nvidia-caps's major
 * @minor: set to its DeviceFileMinor
 * @path: set to /dev/nvidia-caps/nvidia-capM
 *
 * Return: 0, or -1 (said) when the driver has no such file or the node is
 * missing and cannot be made.
 */
int cap_file_node(const char *rel, int major, int *minor, char path[64])
{
	*minor = cap_minor(rel);
	if (*minor < 0) {
		err("cdi: the driver has no capability %s (no DeviceFileMinor in " NVCAPS_PROC "/%s; not loaded, or a release without MIG?)",
		    rel, rel);
		return -1;
	}
	return cap_node(rel, major, *minor, path);
}
