// SPDX-License-Identifier: GPL-2.0
/*
 * nvreplay: make the calls of an nvtrace record (tests/gpu/nvtrace.c) again
 * through nvmediate's nodes, each with the recorded number and size and a
 * zeroed payload, and tell for each whether nvmediate refused it by its own
 * rules or passed it to the driver.  For the guest test
 * tests/guest/96-gpu-tools.sh (a call CUDA made on a GPU host must not be
 * refused at that driver's version).
 *
 *   nvreplay [--ctl PATH] [--gpu PREFIX] [--uvm PATH] [--stats DIR] [--quiet] TRACE
 *
 * Defaults: /dev/nvproxy, /dev/nvproxy (GPU N is PREFIX followed by N),
 * /dev/nvproxy-uvm, /sys/class/nvmediate/stats.  What each recorded call
 * becomes:
 *
 *   RM_CONTROL   NVOS54 of our own client: hClient = hObject = the client,
 *                the recorded cmd, flags and paramsSize, params pointing at
 *                that many zeroed bytes
 *   RM_ALLOC     the recorded form (NVOS21, 32 bytes, or NVOS64, 48) and
 *                class, the recorded paramsSize of zeroed params; a root
 *                client class allocates a new client, any other class a new
 *                handle under our client
 *   RM_FREE      hRoot = our client, the rest zero
 *   CHECK_VERSION_STR   a query (the zeroed strict form would fail the file)
 *   other escapes, UVM commands: zeroed payloads of the recorded size (UVM:
 *                a zeroed page-aligned area the size of any UVM payload)
 *   inside NV_ESC_IOCTL_XFER_CMD when recorded so
 *
 * Before it starts, nvreplay checks the driver's version, allocates its own
 * client and opens the nodes; those calls are not counted.  nvmediate's own
 * answers are told from the driver's by its counters (docs/operations.md):
 * a call after which a <family>_refused, _answered or _audited counter moved
 * was refused by nvmediate (audited: it would have been); one after which a
 * _forwarded counter moved reached the driver, whatever the driver answered;
 * one that moved none did not pass through nvmediate.  Nothing else may make
 * mediated calls while it runs.
 *
 * Output: one line per call ("line N NODE ...: forwarded ret=R status=S" or
 * "...: REFUSED by nvmediate (ctrl_answered) ret=R status=S"), with --quiet
 * only the refused and unseen ones, then
 * "nvreplay: calls=N forwarded=F refused=R unseen=U skipped=S" (skipped:
 * calls on nodes nvmediate does not mediate, malformed lines).  Exit
 * status: 0 when no call was refused or unseen, 1 otherwise, 2 when it
 * could not start.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/mman.h>
#include <unistd.h>

#include "../nvidia-abi/nvdrv.h"

#define STRUCT_MAX	(256u << 10)		/* payloads at the start of the area */
#define PARAMS_OFF	STRUCT_MAX		/* nested params after them */
#define PARAMS_MAX	((1u << 20) + 4096)	/* nvmediate reads at most 1 MiB */
#define AREA_SIZE	(PARAMS_OFF + PARAMS_MAX)
#define MAX_GPUS	64

static const char *const families[] = { "escape", "ctrl", "alloc", "uvm" };
static const char *const verdicts[] = { "forwarded", "refused", "answered", "audited" };
#define NFAM	(sizeof(families) / sizeof(families[0]))
#define NVERD	(sizeof(verdicts) / sizeof(verdicts[0]))

static int counter_fd[NFAM][NVERD];

struct opts {
	const char *ctl, *gpu, *uvm, *stats, *trace;
	int quiet;
};

struct replay {
	int ctl, uvm, gpu[MAX_GPUS];
	uint32_t client, next_handle;
	unsigned long calls, forwarded, refused, unseen, skipped;
};

/* A recorded call, from one line of the trace. */
struct call {
	char node[64];
	int has_esc, has_req, has_xfer;
	uint32_t esc, size, xfer, xsize, cmd, flags, psize, hclass;
	unsigned long req;
};

static void usage(void)
{
	fprintf(stderr, "usage: nvreplay [--ctl PATH] [--gpu PREFIX] [--uvm PATH] [--stats DIR] "
		"[--quiet] TRACE\n");
	exit(2);
}

static int counters_open(const char *dir)
{
	char path[512];
	size_t f, v;

	for (f = 0; f < NFAM; f++) {
		for (v = 0; v < NVERD; v++) {
			snprintf(path, sizeof(path), "%s/%s_%s", dir, families[f], verdicts[v]);
			counter_fd[f][v] = open(path, O_RDONLY | O_CLOEXEC);
			if (counter_fd[f][v] < 0) {
				fprintf(stderr,
					"nvreplay: cannot open %s: %s (is nvmediate loaded?)\n",
					path, strerror(errno));
				return -1;
			}
		}
	}
	return 0;
}

static int counters_read(unsigned long long c[NFAM][NVERD])
{
	char buf[32];
	size_t f, v;
	ssize_t n;

	for (f = 0; f < NFAM; f++) {
		for (v = 0; v < NVERD; v++) {
			n = pread(counter_fd[f][v], buf, sizeof(buf) - 1, 0);
			if (n <= 0)
				return -1;
			buf[n] = '\0';
			c[f][v] = strtoull(buf, NULL, 10);
		}
	}
	return 0;
}

static void *area_new(void)
{
	void *p = mmap(NULL, AREA_SIZE, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS,
		       -1, 0);

	return p == MAP_FAILED ? NULL : p;
}

static int nvioctl(int fd, unsigned int nr, void *arg, size_t size)
{
	return ioctl(fd, NV_IOC(nr, size), arg) < 0 ? -errno : 0;
}

static int setup(struct replay *r, const struct opts *o)
{
	struct nvd_version_str v;
	struct nvd_os21 a;
	int ret, i;

	for (i = 0; i < MAX_GPUS; i++)
		r->gpu[i] = -1;
	r->uvm = -1;
	r->next_handle = 0x5e000001;
	r->ctl = open(o->ctl, O_RDWR | O_CLOEXEC);
	if (r->ctl < 0) {
		fprintf(stderr, "nvreplay: cannot open %s: %s (is nvmediate loaded?)\n", o->ctl,
			strerror(errno));
		return -1;
	}
	memset(&v, 0, sizeof(v));
	v.cmd = NV_RM_API_VERSION_CMD_QUERY;
	ret = nvioctl(r->ctl, NV_ESC_CHECK_VERSION_STR, &v, sizeof(v));
	v.versionString[sizeof(v.versionString) - 1] = '\0';
	if (!ret) {
		v.cmd = NV_RM_API_VERSION_CMD_STRICT;
		ret = nvioctl(r->ctl, NV_ESC_CHECK_VERSION_STR, &v, sizeof(v));
	}
	if (ret || v.reply != 1) {
		fprintf(stderr,
			"nvreplay: the driver's version check failed on %s: ret=%d reply=%u\n",
			o->ctl, ret, v.reply);
		return -1;
	}
	memset(&a, 0, sizeof(a));
	a.hClass = NV01_ROOT_CLIENT;
	ret = nvioctl(r->ctl, NV_ESC_RM_ALLOC, &a, sizeof(a));
	if (ret || a.status || !a.hObjectNew) {
		fprintf(stderr, "nvreplay: cannot allocate a client on %s: ret=%d status=0x%x\n",
			o->ctl, ret, a.status);
		return -1;
	}
	r->client = a.hObjectNew;
	printf("nvreplay: driver %s, client 0x%x\n", v.versionString, r->client);
	return 0;
}

/* The fd for a recorded node, opened on first use; -1 for one we do not mediate. */
static int node_fd(struct replay *r, const struct opts *o, const char *node)
{
	char path[512], *end;
	unsigned long n;

	if (!strcmp(node, "ctl"))
		return r->ctl;
	if (!strcmp(node, "uvm")) {
		if (r->uvm < 0)
			r->uvm = open(o->uvm, O_RDWR | O_CLOEXEC);
		if (r->uvm < 0)
			fprintf(stderr, "nvreplay: cannot open %s: %s\n", o->uvm, strerror(errno));
		return r->uvm;
	}
	if (strncmp(node, "gpu", 3) || !node[3])
		return -1;
	n = strtoul(node + 3, &end, 10);
	if (*end || n >= MAX_GPUS)
		return -1;
	if (r->gpu[n] < 0) {
		snprintf(path, sizeof(path), "%s%lu", o->gpu, n);
		r->gpu[n] = open(path, O_RDWR | O_CLOEXEC);
		if (r->gpu[n] < 0)
			fprintf(stderr, "nvreplay: cannot open %s: %s\n", path, strerror(errno));
	}
	return r->gpu[n];
}

static int get_u32(const char *val, uint32_t *out)
{
	char *end;
	unsigned long long v;

	errno = 0;
	v = strtoull(val, &end, 0);
	if (errno || *end || end == val || v > UINT32_MAX)
		return -1;
	*out = (uint32_t)v;
	return 0;
}

/* Parse "NODE key=value ..."; 0 on success. */
static int parse(char *line, struct call *c)
{
	char *tok, *save = NULL, *eq;
	int bad = 0;

	memset(c, 0, sizeof(*c));
	tok = strtok_r(line, " \t\n", &save);
	if (!tok || strlen(tok) >= sizeof(c->node))
		return -1;
	strcpy(c->node, tok);
	while ((tok = strtok_r(NULL, " \t\n", &save))) {
		eq = strchr(tok, '=');
		if (!eq)
			return -1;
		*eq++ = '\0';
		if (!strcmp(tok, "esc"))
			bad |= get_u32(eq, &c->esc), c->has_esc = 1;
		else if (!strcmp(tok, "size"))
			bad |= get_u32(eq, &c->size);
		else if (!strcmp(tok, "xfer"))
			bad |= get_u32(eq, &c->xfer), c->has_xfer = 1;
		else if (!strcmp(tok, "xsize"))
			bad |= get_u32(eq, &c->xsize);
		else if (!strcmp(tok, "cmd"))
			bad |= get_u32(eq, &c->cmd);
		else if (!strcmp(tok, "flags"))
			bad |= get_u32(eq, &c->flags);
		else if (!strcmp(tok, "psize"))
			bad |= get_u32(eq, &c->psize);
		else if (!strcmp(tok, "class"))
			bad |= get_u32(eq, &c->hclass);
		else if (!strcmp(tok, "req"))
			c->req = strtoul(eq, NULL, 0), c->has_req = 1;
		/* ret=, status=: what the driver answered then, not needed here */
	}
	if (bad || (c->has_esc == c->has_req))
		return -1;
	return 0;
}

static int is_client_class(uint32_t hclass)
{
	return hclass == NV01_ROOT || hclass == 0x01 || hclass == NV01_ROOT_CLIENT;
}

/*
 * Fill the payload of escape @nr, @size bytes at @p, for call @c; where a
 * status comes back, *@status_off is its offset, else -1.
 */
static void payload(struct replay *r, const struct call *c, unsigned int nr, uint32_t size,
		    char *p, char *params, int *status_off)
{
	uint32_t u32;
	uint64_t u64 = (uintptr_t)params;

	*status_off = -1;
	if (nr == NV_ESC_RM_CONTROL && size == sizeof(struct nvd_os54)) {
		struct nvd_os54 *s = (struct nvd_os54 *)p;

		s->hClient = r->client;
		s->hObject = r->client;
		s->cmd = c->cmd;
		s->flags = c->flags;
		s->params = c->psize ? u64 : 0;
		s->paramsSize = c->psize;
		*status_off = offsetof(struct nvd_os54, status);
	} else if (nr == NV_ESC_RM_ALLOC && (size == 32 || size == 48)) {
		int client = is_client_class(c->hclass);

		u32 = client ? 0 : r->client;
		memcpy(p + 0, &u32, 4);			/* hRoot */
		memcpy(p + 4, &u32, 4);			/* hObjectParent */
		u32 = client ? 0 : r->next_handle++;
		memcpy(p + 8, &u32, 4);			/* hObjectNew */
		memcpy(p + 12, &c->hclass, 4);
		memcpy(p + 16, &u64, 8);		/* pAllocParms */
		if (size == 32) {
			memcpy(p + 24, &c->psize, 4);
			*status_off = 28;
		} else {
			memcpy(p + 32, &c->psize, 4);	/* after pRightsRequested = 0 */
			memcpy(p + 36, &c->flags, 4);
			*status_off = 40;
		}
	} else if (nr == NV_ESC_RM_FREE && size == sizeof(struct nvd_os00)) {
		memcpy(p, &r->client, 4);
		*status_off = offsetof(struct nvd_os00, status);
	} else if (nr == NV_ESC_CHECK_VERSION_STR && size == sizeof(struct nvd_version_str)) {
		((struct nvd_version_str *)p)->cmd = NV_RM_API_VERSION_CMD_QUERY;
	}
}

static const char *errname(int e)
{
	static char buf[16];

	switch (e) {
	case 0: return "0";
	case -EPERM: return "-EPERM";
	case -ENOENT: return "-ENOENT";
	case -EINTR: return "-EINTR";
	case -ENXIO: return "-ENXIO";
	case -EBADF: return "-EBADF";
	case -ENOMEM: return "-ENOMEM";
	case -EFAULT: return "-EFAULT";
	case -EBUSY: return "-EBUSY";
	case -EINVAL: return "-EINVAL";
	case -ENOTTY: return "-ENOTTY";
	case -E2BIG: return "-E2BIG";
	case -ENOSYS: return "-ENOSYS";
	case -EOPNOTSUPP: return "-EOPNOTSUPP";
	default:
		snprintf(buf, sizeof(buf), "%d", e);
		return buf;
	}
}

/* Make one recorded call; the verdict from the counters. */
static void replay_call(struct replay *r, const struct opts *o, unsigned long lineno,
			const char *text, const struct call *c)
{
	unsigned long long before[NFAM][NVERD], after[NFAM][NVERD];
	char moved[64] = "", *area, *p, *params;
	unsigned int nr;
	uint32_t size, status = 0;
	int fd, ret, status_off = -1, fwd = 0, own = 0;
	size_t f, v;

	fd = node_fd(r, o, c->node);
	if (fd < 0) {
		r->skipped++;
		if (!o->quiet)
			printf("line %lu %s: skipped (no mediated node for it)\n", lineno, text);
		return;
	}
	area = area_new();
	if (!area) {
		fprintf(stderr, "nvreplay: out of memory\n");
		exit(2);
	}
	params = area + PARAMS_OFF;
	if (counters_read(before) < 0) {
		fprintf(stderr, "nvreplay: cannot read nvmediate's counters\n");
		exit(2);
	}
	if (c->has_req) {
		/* UVM's plain command numbers (or another ioctl): a zeroed area. */
		ret = ioctl(fd, c->req, area) < 0 ? -errno : 0;
	} else if (c->has_xfer) {
		struct nvd_xfer *x = (struct nvd_xfer *)area;

		nr = c->xfer;
		size = c->xsize < STRUCT_MAX - 64 ? c->xsize : STRUCT_MAX - 64;
		p = area + 64;
		payload(r, c, nr, size, p, params, &status_off);
		x->cmd = nr;
		x->size = c->xsize;
		x->ptr = (uintptr_t)p;
		ret = nvioctl(fd, NV_ESC_IOCTL_XFER_CMD, x, c->size ? c->size : sizeof(*x));
		if (status_off >= 0)
			memcpy(&status, p + status_off, 4);
	} else {
		nr = c->esc;
		size = c->size;
		p = area;
		payload(r, c, nr, size, p, params, &status_off);
		ret = nvioctl(fd, nr, p, size);
		if (status_off >= 0)
			memcpy(&status, p + status_off, 4);
	}
	if (counters_read(after) < 0) {
		fprintf(stderr, "nvreplay: cannot read nvmediate's counters\n");
		exit(2);
	}
	munmap(area, AREA_SIZE);
	for (f = 0; f < NFAM; f++) {
		for (v = 0; v < NVERD; v++) {
			if (after[f][v] == before[f][v])
				continue;
			if (v == 0) {
				fwd = 1;
			} else if (!own++) {
				snprintf(moved, sizeof(moved), "%s_%s", families[f], verdicts[v]);
			}
		}
	}
	r->calls++;
	if (own) {
		r->refused++;
		printf("line %lu %s: REFUSED by nvmediate (%s) ret=%s", lineno, text, moved,
		       errname(ret));
	} else if (fwd) {
		r->forwarded++;
		if (o->quiet)
			return;
		printf("line %lu %s: forwarded ret=%s", lineno, text, errname(ret));
	} else {
		r->unseen++;
		printf("line %lu %s: NOT SEEN by nvmediate (no counter moved) ret=%s", lineno, text,
		       errname(ret));
	}
	if (status_off >= 0)
		printf(" status=0x%x", status);
	printf("\n");
}

/* The line without ret= and status=: what identifies the call. */
static void call_text(const char *line, char *text, size_t len)
{
	const char *p = line, *e;
	size_t n = 0, w;

	text[0] = '\0';
	while (*p) {
		p += strspn(p, " \t");
		e = p + strcspn(p, " \t");
		w = (size_t)(e - p);
		if (w && strncmp(p, "ret=", 4) && strncmp(p, "status=", 7) && n + w + 2 < len) {
			if (n)
				text[n++] = ' ';
			memcpy(text + n, p, w);
			n += w;
			text[n] = '\0';
		}
		p = e;
	}
}

int main(int argc, char **argv)
{
	struct opts o = { "/dev/nvproxy", "/dev/nvproxy", "/dev/nvproxy-uvm",
			  "/sys/class/nvmediate/stats", NULL, 0 };
	struct replay r;
	char line[1024], text[1024];
	unsigned long lineno = 0;
	struct call c;
	FILE *in;
	int i;

	memset(&r, 0, sizeof(r));
	for (i = 1; i < argc; i++) {
		if (!strcmp(argv[i], "--quiet")) {
			o.quiet = 1;
		} else if (i + 1 < argc && !strcmp(argv[i], "--ctl")) {
			o.ctl = argv[++i];
		} else if (i + 1 < argc && !strcmp(argv[i], "--gpu")) {
			o.gpu = argv[++i];
		} else if (i + 1 < argc && !strcmp(argv[i], "--uvm")) {
			o.uvm = argv[++i];
		} else if (i + 1 < argc && !strcmp(argv[i], "--stats")) {
			o.stats = argv[++i];
		} else if (argv[i][0] == '-' || o.trace) {
			usage();
		} else {
			o.trace = argv[i];
		}
	}
	if (!o.trace)
		usage();
	in = fopen(o.trace, "r");
	if (!in) {
		fprintf(stderr, "nvreplay: cannot read %s: %s\n", o.trace, strerror(errno));
		return 2;
	}
	if (counters_open(o.stats) < 0 || setup(&r, &o) < 0)
		return 2;
	while (fgets(line, sizeof(line), in)) {
		lineno++;
		if (line[0] == '#') {
			if (!strncmp(line, "# nvtrace ", 10))
				printf("nvreplay: %s: %s", o.trace, line + 2);
			continue;
		}
		line[strcspn(line, "\n")] = '\0';
		if (!line[0])
			continue;
		call_text(line, text, sizeof(text));
		if (parse(line, &c) < 0) {
			r.skipped++;
			printf("line %lu: skipped, not a call: %s\n", lineno, text);
			continue;
		}
		replay_call(&r, &o, lineno, text, &c);
	}
	fclose(in);
	printf("nvreplay: calls=%lu forwarded=%lu refused=%lu unseen=%lu skipped=%lu\n", r.calls,
	       r.forwarded, r.refused, r.unseen, r.skipped);
	return r.refused || r.unseen ? 1 : 0;
}
