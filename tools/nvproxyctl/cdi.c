// SPDX-License-Identifier: GPL-2.0
/*
 * nvproxyctl cdi: a Container Device Interface spec that hands a container
 * the mediated nodes under the driver's names, for the GPUs the driver has;
 * or, with --from, another generator's spec with its device nodes replaced.
 *
 * How a node reaches the container: a device node entry whose container
 * path is the host path of the mediated node (so a runtime that cannot
 * mknod, under a user namespace, bind-mounts that same mediated node), and
 * a bind mount of the node's nvmediatefs twin (/run/nvmediate/SET/...,
 * kmod/nodefs.c: the same mediated node, which tells a container the
 * driver's device number, as NVIDIA's libraries require) onto the driver's
 * name (/dev/nvidiactl, /dev/nvidiaK, /dev/nvidia-uvm).  No entry names a
 * raw node anywhere, so no runtime can resolve one to the driver's node;
 * the device entry gives the device cgroup the mediated node's number, read
 * by the runtime from the node itself (the spec holds no numbers:
 * nvmediate's major is dynamic).  cdi mounts the twins when they are not.
 */
#define _XOPEN_SOURCE 700

#include <dirent.h>
#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "nvproxyctl.h"
#include "spec.h"
#include "driverfiles.h"
#include "nvcaps.h"

#define DRIVER_GPUS	"/proc/driver/nvidia/gpus"

struct gpu {
	int minor;
	char uuid[64];
};

/* usage_cdi()'s text after its first line, which names the program. */
static const char usage_cdi_text[] =
	"           [--imex-channels LIST] [--mig-monitor] [--mig-config]\n"
	"           [--driver-root DIR] [--lib-dirs DIR:...] [--bin-dirs DIR:...]\n"
	"           [--driver-version V] [--no-driver-files] [--no-driver-query]\n"
	"\n"
	"Write a Container Device Interface spec (kind nvmediate.io/gpu, or\n"
	"nvmediate.io/set-NAME for a node set) with one device per GPU the driver\n"
	"has and nvmediate mediates, named by its index and by its UUID, and \"all\".\n"
	"A device hands the container the mediated node under the driver's name:\n"
	"  /dev/nvproxyK (a set's /dev/nvmediate/NAME/nvidiaK) as /dev/nvidiaK,\n"
	"and every device also /dev/nvproxy as /dev/nvidiactl and /dev/nvproxy-uvm\n"
	"as /dev/nvidia-uvm: a device node at the mediated node's own path plus a\n"
	"bind mount onto the driver's name of the same node as nvmediatefs shows\n"
	"it in " NODEFS_DIR "/SET (with the driver's device numbers, which NVIDIA's\n"
	"libraries check), so that no runtime, with or without a user namespace,\n"
	"can put a raw node there.  cdi mounts " NODEFS_DIR "/SET when it is not.\n"
	"The GPUs are read from the driver (" DRIVER_GPUS "/*/information).\n"
	"\n"
	"MIG: each compute instance the driver lists (" NVCAPS_PROC "/\n"
	"gpuG/mig/giGI/ciCI) of a GPU in the spec is a device G:GI:CI of its own,\n"
	"which \"all\" does not include: the nodes of a node set of its own,\n"
	"mig-G-GI-CI (made with caps compute+utility+mig when it is not there; one\n"
	"that is keeps its caps), whose nvidia_caps cdi sets to the instance's GPU\n"
	"instance and compute instance access nodes, and those two nodes as they\n"
	"are (/dev/nvidia-caps/nvidia-capM; made as nvidia-modprobe makes them\n"
	"when missing, as root).  Give a container one MIG device, and no other\n"
	"device of the spec: two would bind two sets' nodes on /dev/nvidiactl.\n"
	"With MIG devices in the spec, the control and UVM nodes are in each\n"
	"device rather than in the spec's own edits.  Run as root with the\n"
	"driver loaded, cdi also names each MIG device by its UUID (MIG-..., as\n"
	"NVIDIA's container toolkit names it), which it asks the driver for on\n"
	"its own nodes (/dev/nvidiactl, /dev/nvidiaG: the calls of a process\n"
	"that subscribes to the instance, then NVC638_CTRL_CMD_GET_UUID); when\n"
	"that fails the device has its G:GI:CI name only, said on standard\n"
	"error.\n"
	"\n"
	"Every device also gets the driver's user space of the loaded release\n"
	"(its version from /sys/module/nvidia/version): the libraries CUDA and\n"
	"NVML load (NAME.so.VERSION: libcuda, libnvidia-ml, libnvidia-ptxjitcompiler,\n"
	"...), found where the host's dynamic linker looks (its /etc/ld.so.conf,\n"
	"then the directories of Debian's and NVIDIA's layouts), and nvidia-smi\n"
	"with NVIDIA's other programs (/usr/bin, /usr/sbin, /bin, /sbin), each\n"
	"bind-mounted read-only (libraries at their host path, programs in\n"
	"/usr/bin); a createContainer hook, 'nvproxyctl hook update-ldcache', that\n"
	"adds the libraries' directories to the container's linker cache; and\n"
	"NVIDIA_VISIBLE_DEVICES=void, so that NVIDIA's runtime, where it is the\n"
	"default, adds no raw node (with --from too).  Without libcuda of that\n"
	"release the spec names no driver file, and says so.\n"
	"cdiVersion is the lowest the content needs (0.5.0: index names).\n"
	"\n"
	"  --set NAME     the node set (default: default)\n"
	"  --gpus N       GPUs 0..N-1 by index, without asking the driver (no MIG)\n"
	"  --from FILE    start from FILE (JSON or YAML, e.g. what\n"
	"                 'nvidia-ctk cdi generate' wrote, '-' for standard input):\n"
	"                 keep its mounts, hooks and environment, replace each\n"
	"                 /dev/nvidiactl, /dev/nvidiaK, /dev/nvidia-uvm node with the\n"
	"                 mediated one, give each MIG instance (GPU:INDEX, MIG-...,\n"
	"                 or a device with /dev/nvidia-caps/ nodes) its set's nodes\n"
	"                 as above (found by its capability nodes' minors), keep\n"
	"                 capability and IMEX channel nodes and give the channels\n"
	"                 to the set of the device that has them, drop the other\n"
	"                 nodes and devices left with nothing to give (and hooks\n"
	"                 acting on /dev), saying which on standard error; a class\n"
	"                 other than gpu (imex-channel) is kept: nvmediate.io/CLASS\n"
	"  --imex-channels LIST  IMEX channels (numbers separated by commas, or\n"
	"                 'all': those whose nodes are in " IMEX_DEV ")\n"
	"                 for every device of the spec's set, which gives them\n"
	"                 (its imex_channels are set to them, and fabric-imex is\n"
	"                 added to its caps); a missing node is made, as root\n"
	"  --mig-monitor  give every device of the spec's set the MIG monitor\n"
	"                 capability's node (" NVCAPS_PROC "/\n"
	"                 mig/monitor: /dev/nvidia-caps/nvidia-capM, made when\n"
	"                 missing, as root), add it to the set's nvidia_caps (with\n"
	"                 the nodes they list) and mig to its caps: the monitor\n"
	"                 session (0xc640), which sees every instance of the GPU\n"
	"  --mig-config   the same with mig/config, and the allow entry\n"
	"                 'alloc 0xc639' (AMPERE_SMC_CONFIG_SESSION, which creates\n"
	"                 and destroys instances and which no capability admits)\n"
	"                 to the set: the container may reconfigure MIG\n"
	"  --output FILE  write the spec there, atomically (default: standard output)\n"
	"  --driver-root DIR  the driver's user space is in the tree DIR (e.g.\n"
	"                 /run/nvidia/driver), mounted at the same paths below /\n"
	"  --lib-dirs DIR:...  look for the libraries there first\n"
	"  --bin-dirs DIR:...  look for the programs there first\n"
	"  --driver-version V  the release whose files to name (default: loaded)\n"
	"  --no-driver-files   name no driver file (an image that has its own)\n"
	"  --no-driver-query   make no call to the driver (no MIG UUID names)\n"
	"\n"
	"Use it with e.g. 'podman run --device nvmediate.io/gpu=all' after writing\n"
	"it to /etc/cdi/nvmediate.json; a MIG instance: nvmediate.io/gpu=0:1:0.\n"
	"\n"
	"exit: 0 ok, 1 error (" NODEFS_DIR "/SET cannot be mounted, a node or a set's\n"
	"      channels or capability nodes cannot be made or written included),\n"
	"      2 usage or a FILE that is not a CDI spec, 3 no GPU (nvidia or\n"
	"      nvmediate not loaded) and no --gpus, 6 no such node set\n";

static void usage_cdi(FILE *f)
{
	fprintf(f, "usage: %s cdi [--set NAME] [--gpus N] [--from FILE] [--output FILE]\n", prog);
	fputs(usage_cdi_text, f);
}

/* ---- the driver's GPUs --------------------------------------------------- */

static void field(const char *line, const char *name, char *out, size_t len)
{
	size_t n = strlen(name);
	const char *v;

	if (strncmp(line, name, n) || line[n] != ':')
		return;
	v = line + n + 1;
	v += strspn(v, " \t");
	snprintf(out, len, "%s", v);
	n = strlen(out);
	while (n && (out[n - 1] == '\n' || out[n - 1] == ' ' || out[n - 1] == '\t'))
		out[--n] = '\0';
}

/*
 * The GPUs the nvidia driver has and does not exclude, by minor, from its
 * /proc/driver/nvidia/gpus/BUS/information ("Device Minor", "GPU UUID",
 * "GPU Excluded"); -1 when the driver is not loaded.
 */
static int driver_gpus(struct gpu *g, int max)
{
	char p[PATH_MAX], line[256];
	struct dirent *d;
	DIR *dir;
	int n = 0, i, j;

	hostpath(p, sizeof(p), DRIVER_GPUS);
	dir = opendir(p);
	if (!dir)
		return -1;
	while ((d = readdir(dir)) && n < max) {
		char minor[32] = "", uuid[64] = "", excl[16] = "", *end;
		char f[PATH_MAX + 300];
		FILE *fp;
		long k;

		if (d->d_name[0] == '.')
			continue;
		snprintf(f, sizeof(f), "%s/%s/information", p, d->d_name);
		fp = fopen(f, "r");
		if (!fp)
			continue;
		while (fgets(line, sizeof(line), fp)) {
			field(line, "Device Minor", minor, sizeof(minor));
			field(line, "GPU UUID", uuid, sizeof(uuid));
			field(line, "GPU Excluded", excl, sizeof(excl));
		}
		fclose(fp);
		k = strtol(minor, &end, 10);
		if (!minor[0] || *end || k < 0 || k >= MAX_GPUS || !strcmp(excl, "Yes"))
			continue;
		g[n].minor = (int)k;
		/* a UUID is a device name only if it is one: GPU-hex-... */
		if (strspn(uuid, "GPU-0123456789abcdefABCDEF") != strlen(uuid) || strncmp(uuid, "GPU-", 4))
			uuid[0] = '\0';
		snprintf(g[n].uuid, sizeof(g[n].uuid), "%s", uuid);
		n++;
	}
	closedir(dir);
	for (i = 1; i < n; i++)
		for (j = i; j > 0 && g[j - 1].minor > g[j].minor; j--) {
			struct gpu t = g[j];

			g[j] = g[j - 1];
			g[j - 1] = t;
		}
	return n;
}

/* ---- building edits ------------------------------------------------------ */

static struct jval *member(struct jval *o, const char *key, enum jtype t)
{
	struct jval *m = jv_get(o, key);

	if (m && m->t == t)
		return m;
	return jv_set(o, key, jv_new(t, NULL));
}

/*
 * The mediated node of @kind (and GPU @k) of @set as a device node entry at
 * its own path, and its nvmediatefs twin bind-mounted onto @ctr.
 */
static void add_node(struct jval *edits, const char *set, char kind, int k, const char *ctr)
{
	struct jval *dn = jv_new(J_OBJ, NULL), *mnt = jv_new(J_OBJ, NULL), *opt;
	char host[96], twin[PATH_MAX];

	set_node_path(host, sizeof(host), set, kind, k);
	set_nodefs_path(twin, sizeof(twin), set, kind, k);
	jv_set(dn, "path", jv_str(host));
	jv_set(dn, "type", jv_str("c"));
	jv_push(member(edits, "deviceNodes", J_ARR), dn);
	jv_set(mnt, "hostPath", jv_str(twin));
	jv_set(mnt, "containerPath", jv_str(ctr));
	opt = jv_set(mnt, "options", jv_new(J_ARR, NULL));
	jv_push(opt, jv_str("bind"));
	jv_push(member(edits, "mounts", J_ARR), mnt);
}

static void add_gpu(struct jval *edits, const char *set, int k)
{
	char ctr[32];

	snprintf(ctr, sizeof(ctr), "/dev/nvidia%d", k);
	add_node(edits, set, 'g', k, ctr);
}

static void add_common(struct jval *edits, const char *set)
{
	add_node(edits, set, 'c', 0, "/dev/nvidiactl");
	add_node(edits, set, 'u', 0, "/dev/nvidia-uvm");
}

static struct jval *new_device(struct jval *devices, const char *name)
{
	struct jval *d = jv_push(devices, jv_new(J_OBJ, NULL));

	jv_set(d, "name", jv_str(name));
	jv_set(d, "containerEdits", jv_new(J_OBJ, NULL));
	return d;
}

/* ---- MIG instances and IMEX channels ------------------------------------- */

#define SETS_MAX	64
#define MIGDEV_MAX	(2 * MAX_MIG)	/* a device per instance, and one by its UUID */

/* The IMEX channels one node set is to give (its imex_channels). */
struct imexset {
	char set[SET_NAME_MAX];
	int ch[SET_NODES_MAX];
	int n, limit;
};

/*
 * What cdi gathers while it builds a spec: the driver's MIG instances, the
 * devices made of them and their sets (each mounted as nvmediatefs), and
 * the IMEX channels each set is to give.
 */
struct cdictx {
	const char *set;		/* the spec's set, NULL for the default one */
	int caps_major, imex_major;	/* -2: not looked up yet, -1: none */
	struct mig mig[MAX_MIG];
	int nmig;			/* -2: not read yet, -1: no capabilities tree */
	char mounts[SETS_MAX][SET_NAME_MAX];
	int nmounts;
	const struct jval *migdev[MIGDEV_MAX];	/* G:GI:CI, and MIG-... */
	int nmigdev;
	int ask_uuids;			/* ask the driver the MIG devices' UUIDs */
	struct miguuid *mu;		/* while asking (NULL: not yet, or cannot) */
	int mu_failed;
	int migcap_minor[2];		/* --mig-monitor, --mig-config: their nodes */
	char migcap_path[2][64];
	int nmigcap, migcap_new;	/* how many, and not yet in the set's list */
	int mig_config;
	struct imexset imex[SETS_MAX];
	int nimex;
	int opt_ch[SET_NODES_MAX];	/* --imex-channels */
	int nopt;
};

static int cx_caps_major(struct cdictx *cx)
{
	if (cx->caps_major == -2) {
		cx->caps_major = chrdev_major(CAPS_MAJOR_NAME);
		if (cx->caps_major < 0)
			err("cdi: /proc/devices has no '" CAPS_MAJOR_NAME "' (the nvidia driver's capability nodes): no MIG instance can be given");
	}
	return cx->caps_major;
}

static int cx_imex_major(struct cdictx *cx)
{
	if (cx->imex_major == -2) {
		cx->imex_major = chrdev_major(IMEX_MAJOR_NAME);
		if (cx->imex_major < 0)
			err("cdi: /proc/devices has no '" IMEX_MAJOR_NAME "': the nvidia driver has no IMEX channels (NVreg_ImexChannelCount=0, or not loaded)");
	}
	return cx->imex_major;
}

static int cx_migs(struct cdictx *cx)
{
	if (cx->nmig == -2)
		cx->nmig = mig_list(cx->mig, MAX_MIG);
	return cx->nmig;
}

static void cx_mount(struct cdictx *cx, const char *set)
{
	int i;

	for (i = 0; i < cx->nmounts; i++)
		if (!strcmp(cx->mounts[i], set))
			return;
	if (cx->nmounts < SETS_MAX)
		snprintf(cx->mounts[cx->nmounts++], SET_NAME_MAX, "%s", set);
}

static int is_migdev(const struct cdictx *cx, const struct jval *d)
{
	int i;

	for (i = 0; i < cx->nmigdev; i++)
		if (cx->migdev[i] == d)
			return 1;
	return 0;
}

/*
 * IMEX channel @ch, to be given by @set (NULL: the default set; @mig: a MIG
 * instance's set, whose nvidia_caps hold two nodes): its node made if
 * missing and the channel added to the set's list.  -1 (said) when the
 * driver has no channels, the node cannot be made, or the set has no room.
 */
static int imex_take(struct cdictx *cx, const char *set, int mig, int ch)
{
	const char *s = set ? set : "default";
	struct imexset *is = NULL;
	char path[64];
	int i, major = cx_imex_major(cx);

	if (major < 0)
		return -1;
	for (i = 0; i < cx->nimex && !is; i++)
		if (!strcmp(cx->imex[i].set, s))
			is = &cx->imex[i];
	if (!is) {
		if (cx->nimex == SETS_MAX)
			return -1;
		is = &cx->imex[cx->nimex++];
		snprintf(is->set, sizeof(is->set), "%s", s);
		is->n = 0;
		/* the spec's own set also gets the --mig-monitor/--mig-config nodes */
		is->limit = mig ? SET_NODES_MAX - 2 : imex_limit(set) - cx->migcap_new;
	}
	for (i = 0; i < is->n; i++)
		if (is->ch[i] == ch)
			return 0;
	if (is->n >= is->limit) {
		err("cdi: node set '%s' gives at most %d nodes (nvidia_caps and imex_channels together): IMEX channel %d does not fit",
		    s, SET_NODES_MAX, ch);
		return -1;
	}
	if (imex_node(major, ch, path))
		return -1;
	is->ch[is->n++] = ch;
	return 0;
}

static void add_plain_node(struct jval *edits, const char *path)
{
	struct jval *nodes = member(edits, "deviceNodes", J_ARR), *dn, *x;

	for (x = nodes->kids; x; x = x->next)
		if (jv_gets(x, "path") && !strcmp(jv_gets(x, "path"), path))
			return;
	dn = jv_new(J_OBJ, NULL);
	jv_set(dn, "path", jv_str(path));
	jv_set(dn, "type", jv_str("c"));
	jv_push(nodes, dn);
}

/*
 * The nodes of MIG instance @m into @edits: its set's (mig-G-GI-CI) control,
 * UVM and GPU nodes in the form of add_node(), and with @caps its two access
 * nodes as they are, /dev/nvidia-caps/nvidia-capM (a runtime gives them as
 * any device; nvmediate checks, in the calls that name them, that the set
 * gives them).  The set is made when it is not there, and its nvidia_caps
 * become those two nodes.  -1 (said) when something of it is missing.
 */
static int mig_edits(struct cdictx *cx, const struct mig *m, struct jval *edits, int caps)
{
	char set[SET_NAME_MAX], gi[64], ci[64], node[96];
	int major = cx_caps_major(cx), created = 0, i;

	if (major < 0)
		return -1;
	mig_set_name(set, sizeof(set), m);
	if (mig_cap_nodes(m, major, gi, ci))
		return -1;
	/* a set already made ready for another device of the same instance is kept */
	for (i = 0; i < cx->nmounts && strcmp(cx->mounts[i], set); i++)
		;
	if (i == cx->nmounts) {
		if (mig_set_ready(set, major, m, &created))
			return -1;
		set_node_path(node, sizeof(node), set, 'g', m->gpu);
		/* a new set's nodes may come from udev, a moment later */
		if (created ? wait_set_node(set, m->gpu) : !path_exists(node)) {
			err("cdi: node set '%s' has no node %s", set, node);
			return -1;
		}
		if (created)
			fprintf(stderr, "%s: cdi: made node set '%s' (compute+utility+mig) for MIG instance %d:%d:%d\n",
				prog, set, m->gpu, m->gi, m->ci);
	}
	add_common(edits, set);
	add_gpu(edits, set, m->gpu);
	if (caps) {
		add_plain_node(edits, gi);
		add_plain_node(edits, ci);
	}
	cx_mount(cx, set);
	return 0;
}

static int has_device(const struct jval *devs, const char *name)
{
	const struct jval *d;

	for (d = devs->kids; d; d = d->next)
		if (jv_gets(d, "name") && !strcmp(jv_gets(d, "name"), name))
			return 1;
	return 0;
}

/*
 * MIG instance @m's device named by its UUID too (as NVIDIA's toolkit
 * names it), with the same @edits, when the driver says it (miguuid.c):
 * the first instance opens the driver's files, and a failure leaves the
 * name out, said on standard error.
 */
static void mig_uuid_device(struct cdictx *cx, struct jval *devs, const struct mig *m,
			    const struct jval *edits)
{
	char uuid[MIG_UUID_BUF];
	struct jval *d;

	if (!cx->ask_uuids || cx->mu_failed)
		return;
	if (!cx->mu) {
		cx->mu = miguuid_open();
		if (!cx->mu) {
			cx->mu_failed = 1;
			return;
		}
	}
	if (miguuid_get(cx->mu, m, uuid))
		return;
	if (has_device(devs, uuid)) {
		fprintf(stderr, "%s: cdi: MIG device %d:%d:%d is not named by its UUID too: another device has the name %s\n",
			prog, m->gpu, m->gi, m->ci, uuid);
		return;
	}
	d = new_device(devs, uuid);
	jv_set(d, "containerEdits", jv_copy(edits));
	cx->migdev[cx->nmigdev++] = d;
}

/*
 * A device G:GI:CI per MIG instance of the GPUs @g (minors), into @devs,
 * each also named by its UUID where the driver gives it (mig_uuid_device()).
 * Returns how many; an instance left out is said.
 */
static int mig_devices(struct cdictx *cx, struct jval *devs, const struct gpu *g, int n)
{
	int i, j, made = 0;

	if (cx_migs(cx) <= 0)
		return 0;
	for (i = 0; i < cx->nmig; i++) {
		const struct mig *m = &cx->mig[i];
		struct jval *edits, *d;
		char name[32];

		for (j = 0; j < n && g[j].minor != m->gpu; j++)
			;
		if (j == n)
			continue;
		if (cx->nmigdev + 2 > MIGDEV_MAX)
			break;
		mig_name(name, sizeof(name), m);
		edits = jv_new(J_OBJ, NULL);
		if (mig_edits(cx, m, edits, 1)) {
			fprintf(stderr, "%s: cdi: MIG instance %s left out\n", prog, name);
			jv_free(edits);
			continue;
		}
		d = new_device(devs, name);
		jv_set(d, "containerEdits", edits);
		cx->migdev[cx->nmigdev++] = d;
		made++;
		mig_uuid_device(cx, devs, m, edits);
	}
	return made;
}

static int is_nodefs_mount(const struct jval *m)
{
	const char *hp = jv_gets(m, "hostPath");

	return hp && !strncmp(hp, NODEFS_DIR "/", strlen(NODEFS_DIR) + 1);
}

/* Copies of @from's members (those @keep says) before @e's @key members. */
static void prepend_copies(struct jval *e, const char *key, const struct jval *from,
			   int (*keep)(const struct jval *))
{
	struct jval *arr = member(e, key, J_ARR), *old = arr->kids, **tail;
	const struct jval *x;

	arr->kids = NULL;
	for (x = from ? from->kids : NULL; x; x = x->next)
		if (!keep || keep(x))
			jv_push(arr, jv_copy(x));
	for (tail = &arr->kids; *tail; tail = &(*tail)->next)
		;
	*tail = old;
}

/*
 * With MIG devices in the spec, the nodes of the spec's own edits (its set's
 * control and UVM nodes, and whatever else a device of its set gets from
 * them) move into each device of that set: a spec's edits reach every
 * device of the spec, and a MIG device is to get only its own set's nodes.
 */
static void spread_top(struct cdictx *cx, struct jval *spec)
{
	struct jval *top = jv_get(spec, "containerEdits"), *nodes, *mounts, *d, *x, *next;

	nodes = jv_get(top, "deviceNodes");
	mounts = jv_get(top, "mounts");
	if (!cx->nmigdev || !top || (!nodes && !mounts))
		return;
	for (d = jv_get(spec, "devices")->kids; d; d = d->next) {
		struct jval *e = member(d, "containerEdits", J_OBJ);

		if (is_migdev(cx, d))
			continue;
		if (nodes && nodes->kids)
			prepend_copies(e, "deviceNodes", nodes, NULL);
		if (mounts)
			for (x = mounts->kids; x; x = x->next)
				if (is_nodefs_mount(x)) {
					prepend_copies(e, "mounts", mounts, is_nodefs_mount);
					break;
				}
	}
	if (nodes)
		jv_del(top, nodes);
	for (x = mounts ? mounts->kids : NULL; x; x = next) {
		next = x->next;
		if (is_nodefs_mount(x))
			jv_del(mounts, x);
	}
	if (mounts && !mounts->kids)
		jv_del(top, mounts);
}

/* --imex-channels LIST: the channels, their nodes made if missing. */
static int imex_option(struct cdictx *cx, const char *list)
{
	int ch[SET_NODES_MAX], n = 0, i, j;
	long count = -1;

	if (!strcmp(list, "all")) {
		n = imex_present(ch, SET_NODES_MAX);
		if (!n) {
			err("cdi: --imex-channels all: no channel node in " IMEX_DEV " (name the channels, e.g. --imex-channels 0)");
			return EXIT_ERR;
		}
		if (n > SET_NODES_MAX) {
			err("cdi: --imex-channels all: %d channel nodes in " IMEX_DEV ", and a node set gives at most %d: name those to give",
			    n, SET_NODES_MAX);
			return EXIT_USAGE;
		}
	} else {
		const char *p = list;

		for (;;) {
			char *end;
			long v;

			errno = 0;
			v = strtol(p, &end, 10);
			if (errno || end == p || *p < '0' || *p > '9' || v > IMEX_CHANNEL_MAX ||
			    (*end && *end != ',')) {
				err("cdi: --imex-channels wants channel numbers separated by commas, or 'all', not '%s'",
				    list);
				return EXIT_USAGE;
			}
			for (j = 0; j < n && ch[j] != v; j++)
				;
			if (j == n) {
				if (n == SET_NODES_MAX) {
					err("cdi: --imex-channels: a node set gives at most %d", SET_NODES_MAX);
					return EXIT_USAGE;
				}
				ch[n++] = (int)v;
			}
			if (!*end)
				break;
			p = end + 1;
		}
	}
	if (cx_imex_major(cx) < 0)
		return EXIT_ERR;
	kv_read(DRIVER_PARAMS, "ImexChannelCount", &count);
	for (i = 0; i < n; i++) {
		if (count >= 0 && ch[i] >= count) {
			err("cdi: --imex-channels: the driver has channels 0 to %ld (NVreg_ImexChannelCount %ld), not %d",
			    count - 1, count, ch[i]);
			return EXIT_ERR;
		}
		if (imex_take(cx, cx->set, 0, ch[i]))
			return EXIT_ERR;
		cx->opt_ch[cx->nopt++] = ch[i];
	}
	return 0;
}

/*
 * The --mig-monitor and --mig-config nodes and the --imex-channels nodes
 * to every device of the spec's own set.
 */
static void add_opt_nodes(struct cdictx *cx, struct jval *spec)
{
	struct jval *d;
	char path[64];
	int i;

	for (d = jv_get(spec, "devices")->kids; d; d = d->next) {
		if (is_migdev(cx, d))
			continue;
		for (i = 0; i < cx->nmigcap; i++)
			add_plain_node(member(d, "containerEdits", J_OBJ), cx->migcap_path[i]);
		for (i = 0; i < cx->nopt; i++) {
			snprintf(path, sizeof(path), IMEX_DEV "/channel%d", cx->opt_ch[i]);
			add_plain_node(member(d, "containerEdits", J_OBJ), path);
		}
	}
}

/*
 * --mig-monitor, --mig-config: the node of capability @rel ("mig/monitor",
 * "mig/config"), made if missing, for the spec's set.
 */
static int migcap_option(struct cdictx *cx, const char *rel)
{
	int major = cx_caps_major(cx), i = cx->nmigcap;

	if (major < 0)
		return EXIT_ERR;
	if (cap_file_node(rel, major, &cx->migcap_minor[i], cx->migcap_path[i]))
		return EXIT_ERR;
	if (!set_caps_listed(cx->set, major, cx->migcap_minor[i]))
		cx->migcap_new++;
	cx->nmigcap++;
	return 0;
}

/* The spec's set given the --mig-monitor/--mig-config nodes (and the config session). */
static int migcap_write(struct cdictx *cx)
{
	if (!cx->nmigcap)
		return 0;
	if (set_caps_nodes_add(cx->set, cx->caps_major, cx->migcap_minor, cx->nmigcap) ||
	    set_caps_word(cx->set, "mig", "the MIG monitor and config sessions need mig"))
		return -1;
	/* The config session reconfigures the GPU: in no capability, by design. */
	if (cx->mig_config &&
	    set_allow_add(cx->set, "alloc 0xc639",
			  "--mig-config: AMPERE_SMC_CONFIG_SESSION, which no capability admits"))
		return -1;
	return 0;
}

/* ---- the lowest cdiVersion ----------------------------------------------- */

static int known(const char *key, const char *const *keys)
{
	for (; *keys; keys++)
		if (!strcmp(key, *keys))
			return 1;
	return 0;
}

static const char *const spec_keys[] = { "cdiVersion", "kind", "annotations", "devices",
					 "containerEdits", NULL };
static const char *const dev_keys[] = { "name", "annotations", "containerEdits", NULL };
static const char *const edit_keys[] = { "env", "deviceNodes", "hooks", "mounts", "intelRdt",
					 "additionalGids", NULL };
static const char *const node_keys[] = { "path", "hostPath", "type", "major", "minor",
					 "fileMode", "permissions", "uid", "gid", NULL };
static const char *const mount_keys[] = { "hostPath", "containerPath", "options", "type", NULL };
static const char *const hook_keys[] = { "hookName", "path", "args", "env", "timeout", NULL };

/* Minor version needed by @e (0.x.0), or -1 for a key this tool does not know. */
static int edits_need(const struct jval *e)
{
	const struct jval *m, *x, *y;
	int need = 3;

	for (m = e ? e->kids : NULL; m; m = m->next) {
		if (!known(m->key, edit_keys))
			return -1;
		if (!strcmp(m->key, "intelRdt") || (!strcmp(m->key, "additionalGids") && m->kids))
			need = need > 7 ? need : 7;
		for (x = m->t == J_ARR ? m->kids : NULL; x; x = x->next) {
			const char *const *keys = !strcmp(m->key, "deviceNodes") ? node_keys :
						   !strcmp(m->key, "mounts") ? mount_keys :
						   !strcmp(m->key, "hooks") ? hook_keys : NULL;

			if (!keys || x->t != J_OBJ)
				continue;
			for (y = x->kids; y; y = y->next)
				if (!known(y->key, keys))
					return -1;
			if (keys == mount_keys && jv_get(x, "type") && need < 4)
				need = 4;
			if (keys == node_keys && jv_get(x, "hostPath") && need < 5)
				need = 5;
		}
	}
	return need;
}

/*
 * The lowest cdiVersion the content of @spec needs, by the rules of the
 * CDI specification's version history: 0.4.0 mount types, 0.5.0 device
 * names starting with a digit and device node host paths, 0.6.0
 * annotations and dots in the class, 0.7.0 intelRdt and additionalGids.
 * NULL when the spec has a field not listed there.
 */
static const char *min_version(const struct jval *spec)
{
	static const char *const v[] = { "0.3.0", "0.3.0", "0.3.0", "0.3.0", "0.4.0", "0.5.0",
					 "0.6.0", "0.7.0" };
	const struct jval *m, *d;
	const char *kind = jv_gets(spec, "kind"), *slash;
	int need, n;

	need = edits_need(jv_get(spec, "containerEdits"));
	for (m = spec->kids; m && need >= 0; m = m->next) {
		if (!known(m->key, spec_keys))
			return NULL;
		if (!strcmp(m->key, "annotations") && m->kids && need < 6)
			need = 6;
	}
	for (d = jv_get(spec, "devices") ? jv_get(spec, "devices")->kids : NULL; d && need >= 0;
	     d = d->next) {
		const char *name = jv_gets(d, "name");

		for (m = d->kids; m; m = m->next)
			if (!known(m->key, dev_keys))
				return NULL;
		if (name && name[0] >= '0' && name[0] <= '9' && need < 5)
			need = 5;
		if (jv_get(d, "annotations") && jv_get(d, "annotations")->kids && need < 6)
			need = 6;
		n = edits_need(jv_get(d, "containerEdits"));
		if (n < 0)
			return NULL;
		need = n > need ? n : need;
	}
	if (need < 0)
		return NULL;
	slash = kind ? strchr(kind, '/') : NULL;
	if (slash && strchr(slash, '.') && need < 6)
		need = 6;
	return v[need];
}

/* ---- --from -------------------------------------------------------------- */

struct from {
	struct cdictx *cx;
	const char *set;
	int present[MAX_GPUS];
	char dropped[64][96];	/* paths of the nodes dropped, each said once */
	int ndropped;
	int missing;		/* this device had a GPU nvmediate has no node for */
};

static void said_dropped(struct from *fr, const char *path, const char *why)
{
	int i;

	for (i = 0; i < fr->ndropped; i++)
		if (!strcmp(fr->dropped[i], path))
			return;
	if (fr->ndropped < 64)
		snprintf(fr->dropped[fr->ndropped++], sizeof(fr->dropped[0]), "%s", path);
	fprintf(stderr, "%s: cdi: dropped %s: %s\n", prog, path, why);
}

/* 'c', 'u' or 'g' (with *@k) for a driver node nvmediate mediates, else 0. */
static char mediated(const char *path, int *k)
{
	char *end;
	long n;

	if (!strcmp(path, "/dev/nvidiactl"))
		return 'c';
	if (!strcmp(path, "/dev/nvidia-uvm"))
		return 'u';
	if (strncmp(path, "/dev/nvidia", 11) || path[11] < '0' || path[11] > '9')
		return 0;
	n = strtol(path + 11, &end, 10);
	if (*end || n >= MAX_GPUS || (path[11] == '0' && path[12]))
		return 0;
	*k = (int)n;
	return 'g';
}

/* N of @path PREFIX<N> (no leading zero), -1 for another N, -2 for another path. */
static int numbered_node(const char *path, const char *prefix)
{
	size_t n = strlen(prefix);
	char *end;
	long v;

	if (strncmp(path, prefix, n))
		return -2;
	if (path[n] < '0' || path[n] > '9' || (path[n] == '0' && path[n + 1]))
		return -1;
	v = strtol(path + n, &end, 10);
	return *end || v > IMEX_CHANNEL_MAX ? -1 : (int)v;
}

/* The minor of a capability node (-1: not one of the driver's names), -2 for another path. */
static int cap_path(const char *path)
{
	int m = numbered_node(path, CAPS_DEV "/nvidia-cap");

	if (m == -2 && !strncmp(path, CAPS_DEV "/", strlen(CAPS_DEV) + 1))
		return -1;
	return m;
}

static int imex_path(const char *path)
{
	int c = numbered_node(path, IMEX_DEV "/channel");

	if (c == -2 && !strncmp(path, IMEX_DEV "/", strlen(IMEX_DEV) + 1))
		return -1;
	return c;
}

/*
 * A hook with an argument naming a path under /dev (symlinks to DRM nodes,
 * chmod of /dev/dri) acts on device nodes the spec no longer gives: drop it.
 */
static const char *hook_names_dev(const struct jval *hook)
{
	const struct jval *args = jv_get(hook, "args"), *a;

	for (a = args && args->t == J_ARR ? args->kids : NULL; a; a = a->next)
		if (a->t == J_STR && strstr(a->s, "/dev/"))
			return a->s;
	return NULL;
}

/* Drop the mounts of raw nvidia nodes from @e. */
static void drop_raw_mounts(struct from *fr, struct jval *e)
{
	struct jval *mounts = jv_get(e, "mounts"), *x, *next;

	for (x = mounts && mounts->t == J_ARR ? mounts->kids : NULL; x; x = next) {
		const char *hp = jv_gets(x, "hostPath"), *cp = jv_gets(x, "containerPath");

		next = x->next;
		if ((hp && !strncmp(hp, "/dev/nvidia", 11)) || (cp && !strncmp(cp, "/dev/nvidia", 11))) {
			said_dropped(fr, hp ? hp : cp, "a mount of a raw nvidia node");
			jv_del(mounts, x);
		}
	}
}

/* @e's device nodes become @keep's, and @keep's mounts are added to @e's. */
static void merge_edits(struct jval *e, struct jval *keep)
{
	struct jval *nodes = jv_get(e, "deviceNodes"), *x, *next;

	if (nodes)
		jv_del(e, nodes);
	for (x = keep->kids; x; x = next) {
		struct jval *to = member(e, x->key, J_ARR), *y, *ynext;

		next = x->next;
		for (y = x->kids; y; y = ynext) {
			ynext = y->next;
			y->next = NULL;
			jv_push(to, y);
		}
		x->kids = NULL;
	}
	jv_free(keep);
}

/*
 * An IMEX channel's node @x of @e, for @set: kept as it is (into @keep)
 * when the set takes the channel, else dropped.
 */
static void from_imex(struct from *fr, const struct jval *x, int ch, const char *set, int mig,
		      struct jval *keep)
{
	const char *path = jv_gets(x, "path");

	if (ch < 0) {
		said_dropped(fr, path, "not an IMEX channel the driver names");
		return;
	}
	if (imex_take(fr->cx, set, mig, ch)) {
		said_dropped(fr, path, "its node set cannot give it (above)");
		return;
	}
	jv_push(member(keep, "deviceNodes", J_ARR), jv_copy(x));
}

/*
 * Replace each mediated node of @e (device @dev's edits, or the spec's own
 * when NULL) with nvmediate's, keep IMEX channels' nodes for the spec's
 * set, drop the other nodes and any mount of a raw nvidia node.  Returns
 * how many GPU nodes @e ends with.
 */
static int from_nodes(struct from *fr, struct jval *e, const char *dev)
{
	struct jval *nodes = jv_get(e, "deviceNodes"), *x;
	struct jval *keep = jv_new(J_OBJ, NULL);
	int gpus = 0, c, caps = 0;

	for (x = nodes && nodes->t == J_ARR ? nodes->kids : NULL; x; x = x->next) {
		const char *path = jv_gets(x, "path");
		int k = 0;
		char kind = path ? mediated(path, &k) : 0;

		if (path && cap_path(path) != -2) {
			if (!dev)
				said_dropped(fr, path, "a capability node in the spec's own edits would reach every device");
			caps++;
			continue;
		}
		if (path && (c = imex_path(path)) != -2) {
			from_imex(fr, x, c, fr->set, 0, keep);
			continue;
		}
		if (!kind) {
			said_dropped(fr, path ? path : "(a node without a path)",
				     "nvmediate does not mediate it");
			continue;
		}
		if (kind == 'g' && !fr->present[k]) {
			char why[128];

			snprintf(why, sizeof(why), "GPU %d has no mediated node (num_gpus?)", k);
			said_dropped(fr, path, why);
			fr->missing = 1;
			continue;
		}
		if (kind == 'g') {
			add_gpu(keep, fr->set, k);
			gpus++;
		} else {
			add_node(keep, fr->set, kind, 0, path);
		}
	}
	if (caps && dev)
		fprintf(stderr, "%s: cdi: dropped the %d capability node%s of the device '%s': it gives whole GPUs (a MIG instance is a device of its own)\n",
			prog, caps, caps > 1 ? "s" : "", dev);
	drop_raw_mounts(fr, e);
	merge_edits(e, keep);
	return gpus;
}

static void from_hooks(struct jval *e)
{
	struct jval *hooks = jv_get(e, "hooks"), *h, *next;

	for (h = hooks && hooks->t == J_ARR ? hooks->kids : NULL; h; h = next) {
		const char *which = hook_names_dev(h), *path = jv_gets(h, "path");

		next = h->next;
		if (which) {
			fprintf(stderr, "%s: cdi: dropped a hook (%s): its argument '%s' names a path under /dev\n",
				prog, path ? path : "no path", which);
			jv_del(hooks, h);
		}
	}
}

static struct jval *read_spec(const char *file, int *rc)
{
	FILE *f = strcmp(file, "-") ? fopen(file, "r") : stdin;
	size_t n = 0, cap = 1 << 16;
	char *buf = malloc(cap + 1), why[256];
	struct jval *spec;

	*rc = EXIT_ERR;
	if (!f || !buf) {
		err("cdi: cannot read %s: %s", file, strerror(errno));
		free(buf);
		return NULL;
	}
	for (;;) {
		size_t got = fread(buf + n, 1, cap - n, f);

		n += got;
		if (n < cap)
			break;
		cap *= 2;
		buf = realloc(buf, cap + 1);
		if (!buf || cap > (64u << 20)) {
			err("cdi: %s is too large", file);
			free(buf);
			if (f != stdin)
				fclose(f);
			return NULL;
		}
	}
	if (ferror(f)) {
		err("cdi: cannot read %s", file);
		free(buf);
		if (f != stdin)
			fclose(f);
		return NULL;
	}
	if (f != stdin)
		fclose(f);
	buf[n] = '\0';
	spec = jv_parse(buf, why, sizeof(why));
	free(buf);
	*rc = EXIT_USAGE;
	if (!spec) {
		err("cdi: %s: %s", file, why);
		return NULL;
	}
	if (spec->t != J_OBJ || !jv_gets(spec, "kind") || !jv_get(spec, "devices") ||
	    jv_get(spec, "devices")->t != J_ARR) {
		err("cdi: %s is not a CDI spec (no kind or devices)", file);
		jv_free(spec);
		return NULL;
	}
	return spec;
}

/*
 * Is @d a MIG instance (nvidia-ctk names them GPU:MIG-INDEX or by a MIG-...
 * UUID, and gives them /dev/nvidia-caps/ nodes)?  Not 'all', whose
 * capability nodes are dropped: it gives the whole GPUs.
 */
static int is_mig(const struct jval *d)
{
	const struct jval *nodes = jv_get(jv_get(d, "containerEdits"), "deviceNodes"), *x;
	const char *name = jv_gets(d, "name");

	if (name && !strcmp(name, "all"))
		return 0;
	if (name && (strchr(name, ':') || !strncmp(name, "MIG-", 4)))
		return 1;
	for (x = nodes && nodes->t == J_ARR ? nodes->kids : NULL; x; x = x->next) {
		const char *path = jv_gets(x, "path");

		if (path && cap_path(path) != -2)
			return 1;
	}
	return 0;
}

/*
 * MIG instance device @d of another generator's spec: the instance found by
 * its capability nodes' minors among the driver's (the GPU instance's and
 * the compute instance's access nodes), its GPU node replaced by its own
 * set's nodes (mig_edits()), its capability nodes and IMEX channels' nodes
 * kept, the channels given to its set.  -1 (said) when it cannot be.
 */
static int from_mig(struct from *fr, struct jval *d)
{
	struct jval *e = member(d, "containerEdits", J_OBJ), *nodes = jv_get(e, "deviceNodes");
	struct jval *keep = jv_new(J_OBJ, NULL), *x;
	const char *name = jv_gets(d, "name");
	int capm[2], ncap = 0, gpu = -1, i, k, bad = 0;
	const struct mig *m = NULL;
	char set[SET_NAME_MAX], why[256] = "";

	if (!name)
		name = "?";
	for (x = nodes && nodes->t == J_ARR ? nodes->kids : NULL; x; x = x->next) {
		const char *path = jv_gets(x, "path");
		int c = path ? cap_path(path) : -2;

		if (c == -1 || (c >= 0 && ncap == 2)) {
			snprintf(why, sizeof(why), "its capability nodes are not a GPU instance's and a compute instance's access nodes (%s)",
				 path);
			bad = 1;
		} else if (c >= 0) {
			capm[ncap++] = c;
		} else if (path && mediated(path, &k) == 'g') {
			if (gpu >= 0 && gpu != k) {
				snprintf(why, sizeof(why), "it names two GPUs' nodes");
				bad = 1;
			}
			gpu = k;
		}
	}
	if (!bad && ncap < 2)
		snprintf(why, sizeof(why), "it names %s of its instance's two capability nodes: its GPU node alone would give the whole GPU",
			 ncap ? "one" : "none");
	else if (!bad && cx_migs(fr->cx) <= 0)
		snprintf(why, sizeof(why), "the driver lists no MIG instance (" NVCAPS_PROC ")");
	for (i = 0; !bad && ncap == 2 && fr->cx->nmig > 0 && i < fr->cx->nmig && !m; i++) {
		const struct mig *c = &fr->cx->mig[i];

		if ((c->gi_minor == capm[0] && c->ci_minor == capm[1]) ||
		    (c->gi_minor == capm[1] && c->ci_minor == capm[0]))
			m = c;
	}
	if (!m && !why[0])
		snprintf(why, sizeof(why), "its capability nodes (minors %d, %d) are no MIG instance's the driver lists (" NVCAPS_PROC ")",
			 capm[0], capm[1]);
	else if (m && gpu >= 0 && gpu != m->gpu)
		snprintf(why, sizeof(why), "its GPU node /dev/nvidia%d is not that of its MIG instance %d:%d:%d",
			 gpu, m->gpu, m->gi, m->ci);
	if (why[0] || !m) {
		fprintf(stderr, "%s: cdi: dropped the device '%s': a MIG instance, and %s\n", prog, name,
			why);
		jv_free(keep);
		return -1;
	}
	if (mig_edits(fr->cx, m, keep, 0)) {
		fprintf(stderr, "%s: cdi: dropped the device '%s': MIG instance %d:%d:%d cannot be given (above)\n",
			prog, name, m->gpu, m->gi, m->ci);
		jv_free(keep);
		return -1;
	}
	mig_set_name(set, sizeof(set), m);
	for (x = nodes->kids; x; x = x->next) {
		const char *path = jv_gets(x, "path");
		int c;

		if (!path) {
			said_dropped(fr, "(a node without a path)", "nvmediate does not mediate it");
		} else if (cap_path(path) >= 0) {
			jv_push(member(keep, "deviceNodes", J_ARR), jv_copy(x));
		} else if ((c = imex_path(path)) != -2) {
			from_imex(fr, x, c, set, 1, keep);
		} else if (!mediated(path, &k)) {
			said_dropped(fr, path, "nvmediate does not mediate it");
		}
	}
	drop_raw_mounts(fr, e);
	merge_edits(e, keep);
	return 0;
}

/*
 * The spec from --from @file, changed in place: nodes replaced, MIG
 * instances given their own sets, devices without a mediated GPU and those
 * left with nothing to give left out.
 */
static struct jval *from_spec(const char *file, struct cdictx *cx, int *rc)
{
	struct jval *spec = read_spec(file, rc), *devs, *d, *next, *top;
	struct from fr = { .cx = cx, .set = cx->set };
	int kept = 0;

	if (!spec)
		return NULL;
	gpu_nodes(fr.present, cx->set);
	top = member(spec, "containerEdits", J_OBJ);
	if (from_nodes(&fr, top, NULL))
		fprintf(stderr, "%s: cdi: %s: GPU nodes in the spec's own edits are given to every device\n",
			prog, file);
	devs = jv_get(spec, "devices");
	for (d = devs->kids; d; d = next) {
		struct jval *e = member(d, "containerEdits", J_OBJ);
		const char *name = jv_gets(d, "name");

		next = d->next;
		if (is_mig(d)) {
			if (cx->nmigdev == MIGDEV_MAX || from_mig(&fr, d)) {
				jv_del(devs, d);
				continue;
			}
			cx->migdev[cx->nmigdev++] = d;
			kept++;
			continue;
		}
		fr.missing = 0;
		if (!from_nodes(&fr, e, name ? name : "?") && fr.missing) {
			fprintf(stderr, "%s: cdi: dropped the device '%s': none of its GPUs is mediated\n",
				prog, name ? name : "?");
			jv_del(devs, d);
			continue;
		}
		if (!e->kids) {
			/* a claim's device, or a channel's that could not be kept */
			fprintf(stderr, "%s: cdi: dropped the device '%s': nothing it gives is mediated\n",
				prog, name ? name : "?");
			jv_del(devs, d);
			continue;
		}
		kept++;
	}
	from_hooks(top);
	for (d = devs->kids; d; d = d->next)
		from_hooks(jv_get(d, "containerEdits"));
	if (!kept) {
		err("cdi: %s: no device is left that nvmediate mediates", file);
		jv_free(spec);
		*rc = EXIT_NOTLOADED;
		return NULL;
	}
	return spec;
}

/* ---- the command --------------------------------------------------------- */

/*
 * The GPUs of the spec into @g: 0..N-1 with --gpus N (@gpus_opt), else
 * the driver's that have a mediated node of @set (NULL: the default set).
 * Return: how many, or 0 with *@rc the exit status (said).
 */
static int spec_gpus(const char *set, const char *gpus_opt, struct gpu g[MAX_GPUS], int *rc)
{
	int present[MAX_GPUS];
	int n, i, nodes, have, k;

	nodes = gpu_nodes(present, set);
	if (gpus_opt) {
		char *end;
		long v;

		errno = 0;
		v = strtol(gpus_opt, &end, 10);
		if (errno || !*gpus_opt || *end || v < 1 || v > MAX_GPUS) {
			err("cdi: --gpus wants a number from 1 to %d, not '%s'", MAX_GPUS, gpus_opt);
			*rc = EXIT_USAGE;
			return 0;
		}
		n = (int)v;
		for (i = 0; i < n; i++) {
			g[i].minor = i;
			g[i].uuid[0] = '\0';
		}
		return n;
	}
	have = driver_gpus(g, MAX_GPUS);
	*rc = EXIT_NOTLOADED;
	if (!nodes) {
		if (set)
			err("cdi: no /dev/nvmediate/%s/nvidiaN node found (is the set there?); pass --gpus N",
			    set);
		else
			err("cdi: no /dev/nvproxyN node found (is nvmediate loaded?); pass --gpus N");
		return 0;
	}
	if (have < 0) {
		err("cdi: no %s: the nvidia driver is not loaded, so there is no GPU to name; pass --gpus N",
		    DRIVER_GPUS);
		return 0;
	}
	for (i = 0, n = 0; i < have; i++) {
		k = g[i].minor;
		if (!present[k]) {
			fprintf(stderr, "%s: cdi: GPU %d (%s) has no mediated node (num_gpus?): left out\n",
				prog, k, g[i].uuid[0] ? g[i].uuid : "no UUID");
			continue;
		}
		g[n++] = g[i];
	}
	if (!n)
		err("cdi: none of the driver's %d GPUs has a mediated node", have);
	return n;
}

/*
 * The spec cdi makes by itself: a device per GPU by index and by UUID,
 * the MIG instances' (but with --gpus, which asks the driver nothing),
 * "all", and the nodes and driver files (@files, NULL: none) all share.
 * Return: it, or NULL with *@rc the exit status (said).
 */
static struct jval *own_spec(struct cdictx *cx, const char *gpus_opt,
			     const struct driver_files_opts *files, int *rc)
{
	const char *set = cx->set;
	struct jval *spec, *devs, *all;
	struct gpu g[MAX_GPUS];
	int n, i;
	char name[16];

	n = spec_gpus(set, gpus_opt, g, rc);
	if (!n)
		return NULL;
	spec = jv_new(J_OBJ, NULL);
	jv_set(spec, "cdiVersion", jv_str("0.3.0"));
	if (set) {
		char kind[64];

		snprintf(kind, sizeof(kind), "nvmediate.io/set-%s", set);
		jv_set(spec, "kind", jv_str(kind));
	} else {
		jv_set(spec, "kind", jv_str("nvmediate.io/gpu"));
	}
	devs = jv_set(spec, "devices", jv_new(J_ARR, NULL));
	for (i = 0; i < n; i++) {
		snprintf(name, sizeof(name), "%d", g[i].minor);
		add_gpu(jv_get(new_device(devs, name), "containerEdits"), set, g[i].minor);
		if (g[i].uuid[0])
			add_gpu(jv_get(new_device(devs, g[i].uuid), "containerEdits"), set,
				g[i].minor);
	}
	/* the MIG instances, but with --gpus, which asks the driver nothing */
	if (!gpus_opt)
		mig_devices(cx, devs, g, n);
	all = jv_get(new_device(devs, "all"), "containerEdits");
	for (i = 0; i < n; i++)
		add_gpu(all, set, g[i].minor);
	add_common(jv_set(spec, "containerEdits", jv_new(J_OBJ, NULL)), set);
	if (files && cdi_driver_files(jv_get(spec, "containerEdits"), files) < 0) {
		jv_free(spec);
		*rc = EXIT_USAGE;
		return NULL;
	}
	return spec;
}

static int write_spec(const struct jval *spec, const char *output)
{
	char tmp[PATH_MAX + 16];
	FILE *f = stdout;

	if (output) {
		snprintf(tmp, sizeof(tmp), "%s.tmp", output);
		f = fopen(tmp, "w");
		if (!f) {
			err("cdi: cannot write %s: %s", tmp, strerror(errno));
			return EXIT_ERR;
		}
	}
	jv_print(f, spec, 0);
	fputc('\n', f);
	if (!output) {
		if (fflush(stdout)) {
			err("cdi: cannot write the spec: %s", strerror(errno));
			return EXIT_ERR;
		}
		return EXIT_OK;
	}
	if (fflush(f) || ferror(f)) {
		err("cdi: cannot write %s: %s", tmp, strerror(errno));
		fclose(f);
		unlink(tmp);
		return EXIT_ERR;
	}
	if (fclose(f) || rename(tmp, output)) {
		err("cdi: cannot write %s: %s", output, strerror(errno));
		unlink(tmp);
		return EXIT_ERR;
	}
	return EXIT_OK;
}

/* cdi's options. */
struct cdi_opts {
	const char *output, *gpus, *set, *from, *imex;
	struct driver_files_opts files;
	int nofiles, noquery, monitor, config;
};

/*
 * The options into @c, checked; the set "default" becomes NULL.  Return:
 * -1 to go on, else the exit status.
 */
static int parse_cdi_args(int argc, char **argv, struct cdi_opts *c)
{
	const struct opt opts[] = {
		{ "--gpus", NULL, &c->gpus, NULL },
		{ "--output", "-o", &c->output, NULL },
		{ "--set", NULL, &c->set, NULL },
		{ "--from", NULL, &c->from, NULL },
		{ "--imex-channels", NULL, &c->imex, NULL },
		{ "--driver-root", NULL, &c->files.driver_root, NULL },
		{ "--lib-dirs", NULL, &c->files.lib_dirs, NULL },
		{ "--bin-dirs", NULL, &c->files.bin_dirs, NULL },
		{ "--driver-version", NULL, &c->files.version, NULL },
		{ "--no-driver-files", NULL, NULL, &c->nofiles },
		{ "--no-driver-query", NULL, NULL, &c->noquery },
		{ "--mig-monitor", NULL, NULL, &c->monitor },
		{ "--mig-config", NULL, NULL, &c->config },
		{ NULL }
	};
	int i;

	memset(c, 0, sizeof(*c));
	i = parse_args(argc, argv, opts, NULL, 0, usage_cdi);
	if (i >= 0)
		return i;
	if (c->set && !set_name_ok(c->set)) {
		err("cdi: '%s' is not a set name (a-z, 0-9, '-', '_', ending with a letter or digit)",
		    c->set);
		return EXIT_USAGE;
	}
	if (c->set && !strcmp(c->set, "default"))
		c->set = NULL;
	/* A set nvmediate does not have is a set error, as for profile and apply. */
	if (c->set && module_loaded()) {
		char path[PATH_MAX];

		snprintf(path, sizeof(path), SETS_DIR "/%s", c->set);
		if (!path_exists(path)) {
			err("cdi: no node set '%s' (%s)", c->set, path);
			return EXIT_NOSET;
		}
	}
	if (c->from && c->gpus) {
		err("cdi: --from takes the GPUs from FILE: no --gpus with it");
		return EXIT_USAGE;
	}
	if (c->from && (c->files.driver_root || c->files.lib_dirs || c->files.bin_dirs ||
			c->files.version || c->nofiles)) {
		err("cdi: --from keeps FILE's driver files: no --driver-root, --lib-dirs, --bin-dirs, --driver-version or --no-driver-files with it");
		return EXIT_USAGE;
	}
	return -1;
}

/*
 * The context of a run with the options @c, with the nodes of
 * --mig-monitor, --mig-config and --imex-channels found.  Return: it, or
 * NULL with *@rc the exit status (said).
 */
static struct cdictx *cdi_ctx(const struct cdi_opts *c, int *rc)
{
	struct cdictx *cx = calloc(1, sizeof(*cx));

	if (!cx) {
		err("cdi: out of memory");
		*rc = EXIT_ERR;
		return NULL;
	}
	cx->set = c->set;
	cx->caps_major = cx->imex_major = cx->nmig = -2;
	/*
	 * The MIG UUIDs are the driver's to say: not with --gpus (which asks it
	 * nothing) or --no-driver-query, nor on the tests' fake host unless
	 * its test hook answers.
	 */
	cx->ask_uuids = !c->gpus && !c->noquery && (!*root_prefix || getenv(MIG_UUIDS_ENV));
	cx->mig_config = c->config;
	if ((c->monitor && (*rc = migcap_option(cx, "mig/monitor"))) ||
	    (c->config && (*rc = migcap_option(cx, "mig/config"))) ||
	    (c->imex && (*rc = imex_option(cx, c->imex)))) {
		free(cx);
		return NULL;
	}
	return cx;
}

/*
 * The kind of a spec made from another's: nvidia.com/gpu becomes
 * nvmediate.io/gpu (set-NAME); another class (nvidia-ctk's imex-channel)
 * is kept, so that the spec made of it does not name the same devices as
 * the GPUs' one.
 */
static void from_kind(struct jval *spec, const char *set)
{
	const char *in = jv_gets(spec, "kind"), *cls = strrchr(in, '/');
	char kind[128];

	cls = cls ? cls + 1 : in;
	if (!strcmp(cls, "gpu"))
		snprintf(kind, sizeof(kind), set ? "nvmediate.io/set-%s" : "nvmediate.io/gpu", set);
	else if (set)
		snprintf(kind, sizeof(kind), "nvmediate.io/set-%s-%s", set, cls);
	else
		snprintf(kind, sizeof(kind), "nvmediate.io/%s", cls);
	jv_set(spec, "kind", jv_str(kind));
}

/*
 * cdiVersion: the lowest the content needs, else the input's, else 0.5.0;
 * first, as specs are read by people too.
 */
static void spec_version(struct jval *spec)
{
	const char *ver = min_version(spec);
	struct jval **p, *v;

	if (ver)
		jv_set(spec, "cdiVersion", jv_str(ver));
	else if (!jv_gets(spec, "cdiVersion"))
		jv_set(spec, "cdiVersion", jv_str("0.5.0"));
	p = &spec->kids;
	v = jv_get(spec, "cdiVersion");
	while (*p != v)
		p = &(*p)->next;
	*p = v->next;
	v->next = spec->kids;
	spec->kids = v;
}

/*
 * The spec, made or read (@from), made whole: the nodes of its own edits
 * spread to the devices that need them, the options' nodes added, NVIDIA's
 * runtime told to add none, its kind and cdiVersion.
 */
static void finish_spec(struct cdictx *cx, struct jval *spec, int from)
{
	struct jval *edits;

	spread_top(cx, spec);
	add_opt_nodes(cx, spec);
	edits = jv_get(spec, "containerEdits");
	if (!edits)
		edits = jv_set(spec, "containerEdits", jv_new(J_OBJ, NULL));
	cdi_env_void(edits);
	if (from)
		from_kind(spec, cx->set);
	spec_version(spec);
}

/*
 * What the spec needs on the host, then the spec to @output: the channels
 * its devices carry given by their sets, the MIG capability nodes listed
 * by the spec's set, the nvmediatefs it mounts.  Return: the exit status.
 */
static int cdi_write(struct cdictx *cx, const struct jval *spec, const char *output)
{
	int i;

	/* The channels the spec's devices carry, given by their sets. */
	for (i = 0; i < cx->nimex; i++)
		if (set_imex_write(strcmp(cx->imex[i].set, "default") ? cx->imex[i].set : NULL,
				   cx->imex_major, cx->imex[i].ch, cx->imex[i].n))
			return EXIT_ERR;
	if (migcap_write(cx))
		return EXIT_ERR;
	/* The nodes the spec mounts must be there when a container starts. */
	if (nodefs_ensure(cx->set) < 0)
		return EXIT_ERR;
	for (i = 0; i < cx->nmounts; i++)
		if (nodefs_ensure(cx->mounts[i]) < 0)
			return EXIT_ERR;
	return write_spec(spec, output);
}

/**
 * cmd_cdi() - nvproxyctl cdi
 * @argc: arguments after "nvproxyctl"
 * @argv: "cdi" and its options
 *
 * Return: the exit status (usage_cdi()).
 */
int cmd_cdi(int argc, char **argv)
{
	struct cdi_opts c;
	struct jval *spec;
	struct cdictx *cx;
	int rc;

	rc = parse_cdi_args(argc, argv, &c);
	if (rc >= 0)
		return rc;
	cx = cdi_ctx(&c, &rc);
	if (!cx)
		return rc;
	spec = c.from ? from_spec(c.from, cx, &rc) :
	       own_spec(cx, c.gpus, c.nofiles ? NULL : &c.files, &rc);
	miguuid_close(cx->mu);
	cx->mu = NULL;
	if (!spec) {
		free(cx);
		return rc;
	}
	finish_spec(cx, spec, c.from != NULL);
	rc = cdi_write(cx, spec, c.output);
	jv_free(spec);
	free(cx);
	return rc;
}
