// SPDX-License-Identifier: GPL-2.0
/*
 * nvcri: run one container through a CRI runtime's gRPC socket, making the
 * calls a kubelet makes for a pod with one container: RunPodSandbox,
 * CreateContainer (with CDI devices in the CDIDevice field a device plugin's
 * answer fills, or in a cdi.k8s.io/ annotation), StartContainer,
 * ContainerStatus until it has exited, then StopPodSandbox and
 * RemovePodSandbox.  Prints the container's exit code; its output is in
 * LOGDIR/c.log in the CRI log format.
 *
 *   nvcri SOCKET IMAGE LOGDIR [-d CDI-NAME] [-a CDI-NAME] [-p CDI-NAME]
 *         [-e NAME=VALUE] -- CMD...
 *
 * -d puts the name in ContainerConfig.CDI_devices, -a in the container's
 * annotation cdi.k8s.io/nvcri (where the kubelet puts a device plugin's
 * annotations), -p in that annotation of the pod (where the kubelet puts the
 * pod's own annotations); -e sets a variable in ContainerConfig.envs (where
 * the kubelet puts the pod's env).  The pod has a network namespace of its own, made by
 * whatever CNI plugin the runtime is configured with.
 *
 * The transport is written here, small: HTTP/2 without TLS over the unix
 * socket (RFC 9113), headers sent as HPACK literals (RFC 7541), gRPC's
 * length-prefixed messages, protobuf encoded by hand with the field numbers
 * of the CRI's runtime/v1 api.proto.  It reads only what it needs of the
 * answers: a call that brings no message back has failed (the runtime's log
 * says why; the trailers, Huffman-coded, are not decoded).
 */
#include <errno.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/un.h>
#include <time.h>
#include <unistd.h>

struct buf {
	uint8_t *p;
	size_t len, cap;
};

static void die(const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	fputs("nvcri: ", stderr);
	vfprintf(stderr, fmt, ap);
	va_end(ap);
	fputc('\n', stderr);
	exit(2);
}

static void put(struct buf *b, const void *p, size_t n)
{
	if (b->len + n > b->cap) {
		b->cap = (b->len + n) * 2 + 64;
		b->p = realloc(b->p, b->cap);
		if (!b->p)
			die("out of memory");
	}
	memcpy(b->p + b->len, p, n);
	b->len += n;
}

static void put8(struct buf *b, uint8_t v)
{
	put(b, &v, 1);
}

/* protobuf: varints, tags, length-delimited fields */
static void pb_varint(struct buf *b, uint64_t v)
{
	while (v >= 0x80) {
		put8(b, (uint8_t)(v | 0x80));
		v >>= 7;
	}
	put8(b, (uint8_t)v);
}

static void pb_bytes(struct buf *b, int field, const void *p, size_t n)
{
	pb_varint(b, (uint64_t)field << 3 | 2);
	pb_varint(b, n);
	put(b, p, n);
}

static void pb_str(struct buf *b, int field, const char *s)
{
	pb_bytes(b, field, s, strlen(s));
}

static void pb_msg(struct buf *b, int field, struct buf *m)
{
	pb_bytes(b, field, m->p, m->len);
	free(m->p);
	memset(m, 0, sizeof(*m));
}

static void pb_map_entry(struct buf *b, int field, const char *k, const char *v)
{
	struct buf e = { 0 };

	pb_str(&e, 1, k);
	pb_str(&e, 2, v);
	pb_msg(b, field, &e);
}

static int pb_read_varint(const uint8_t **p, const uint8_t *end, uint64_t *v)
{
	int shift = 0;

	*v = 0;
	while (*p < end && shift < 64) {
		uint8_t c = *(*p)++;

		*v |= (uint64_t)(c & 0x7f) << shift;
		if (!(c & 0x80))
			return 0;
		shift += 7;
	}
	return -1;
}

/*
 * pb_find: the last occurrence of FIELD in the message [p, end): for a
 * length-delimited field its bytes in *fp, *fn; for a varint its value in
 * *v.  Returns 0 when found.
 */
static int pb_find(const uint8_t *p, const uint8_t *end, int field,
		   const uint8_t **fp, size_t *fn, uint64_t *v)
{
	int found = -1;

	while (p < end) {
		uint64_t tag, x;

		if (pb_read_varint(&p, end, &tag))
			return -1;
		switch (tag & 7) {
		case 0:
			if (pb_read_varint(&p, end, &x))
				return -1;
			if ((int)(tag >> 3) == field && v) {
				*v = x;
				found = 0;
			}
			break;
		case 1:
			p += 8;
			break;
		case 2:
			if (pb_read_varint(&p, end, &x) || x > (uint64_t)(end - p))
				return -1;
			if ((int)(tag >> 3) == field && fp) {
				*fp = p;
				*fn = x;
				found = 0;
			}
			p += x;
			break;
		case 5:
			p += 4;
			break;
		default:
			return -1;
		}
	}
	return p == end ? found : -1;
}

static char *pb_string(const uint8_t *p, size_t n, int field)
{
	const uint8_t *s;
	size_t sn;
	char *r;

	if (pb_find(p, p + n, field, &s, &sn, NULL))
		return NULL;
	r = malloc(sn + 1);
	if (!r)
		die("out of memory");
	memcpy(r, s, sn);
	r[sn] = 0;
	return r;
}

/* HTTP/2 */
enum { F_DATA, F_HEADERS, F_PRIORITY, F_RST, F_SETTINGS, F_PUSH, F_PING, F_GOAWAY, F_WINDOW };
#define END_STREAM 0x1
#define ACK 0x1
#define END_HEADERS 0x4

static int sock;
static uint32_t next_stream = 1;

static void xwrite(const void *p, size_t n)
{
	while (n) {
		ssize_t r = write(sock, p, n);

		if (r < 0 && errno == EINTR)
			continue;
		if (r <= 0)
			die("write to the runtime: %s", strerror(errno));
		p = (const uint8_t *)p + r;
		n -= (size_t)r;
	}
}

static void xread(void *p, size_t n)
{
	while (n) {
		ssize_t r = read(sock, p, n);

		if (r < 0 && errno == EINTR)
			continue;
		if (r <= 0)
			die("the runtime closed the connection");
		p = (uint8_t *)p + r;
		n -= (size_t)r;
	}
}

static void frame(int type, int flags, uint32_t stream, const void *p, size_t n)
{
	uint8_t h[9] = { n >> 16, n >> 8, n, type, flags,
			 stream >> 24 & 0x7f, stream >> 16, stream >> 8, stream };

	xwrite(h, sizeof(h));
	if (n)
		xwrite(p, n);
}

/* HPACK: a literal header field without indexing, new name, no Huffman */
static void hp_int7(struct buf *b, size_t v)
{
	if (v < 127) {
		put8(b, (uint8_t)v);
		return;
	}
	put8(b, 127);
	v -= 127;
	while (v >= 128) {
		put8(b, (uint8_t)(v % 128 + 128));
		v /= 128;
	}
	put8(b, (uint8_t)v);
}

static void hp_field(struct buf *b, const char *name, const char *value)
{
	put8(b, 0);
	hp_int7(b, strlen(name));
	put(b, name, strlen(name));
	hp_int7(b, strlen(value));
	put(b, value, strlen(value));
}

static void connect_runtime(const char *path)
{
	static const char preface[] = "PRI * HTTP/2.0\r\n\r\nSM\r\n\r\n";
	struct sockaddr_un a = { .sun_family = AF_UNIX };

	if (strlen(path) >= sizeof(a.sun_path))
		die("%s: path too long", path);
	strcpy(a.sun_path, path);
	sock = socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0);
	if (sock < 0 || connect(sock, (struct sockaddr *)&a, sizeof(a)))
		die("%s: %s", path, strerror(errno));
	xwrite(preface, sizeof(preface) - 1);
	frame(F_SETTINGS, 0, 0, NULL, 0);
}

/*
 * call: one unary gRPC call of METHOD (e.g. "RunPodSandbox") with the
 * request REQ; the answer's message in *resp.  Returns 0 when a message came
 * back, -1 when the stream ended without one (the call failed).
 */
static int call(const char *method, struct buf *req, struct buf *resp)
{
	uint32_t id = next_stream;
	struct buf h = { 0 }, d = { 0 };
	char path[128];
	int got = 0;

	next_stream += 2;
	snprintf(path, sizeof(path), "/runtime.v1.RuntimeService/%s", method);
	hp_field(&h, ":method", "POST");
	hp_field(&h, ":scheme", "http");
	hp_field(&h, ":path", path);
	hp_field(&h, ":authority", "localhost");
	hp_field(&h, "content-type", "application/grpc");
	hp_field(&h, "te", "trailers");
	frame(F_HEADERS, END_HEADERS, id, h.p, h.len);
	free(h.p);
	put8(&d, 0);
	put8(&d, req->len >> 24);
	put8(&d, req->len >> 16);
	put8(&d, req->len >> 8);
	put8(&d, req->len);
	put(&d, req->p, req->len);
	frame(F_DATA, END_STREAM, id, d.p, d.len);
	free(d.p);
	free(req->p);
	memset(req, 0, sizeof(*req));

	memset(resp, 0, sizeof(*resp));
	for (;;) {
		uint8_t fh[9], *pl;
		uint32_t n, sid;
		int type, flags;

		xread(fh, sizeof(fh));
		n = (uint32_t)fh[0] << 16 | fh[1] << 8 | fh[2];
		type = fh[3];
		flags = fh[4];
		sid = ((uint32_t)fh[5] & 0x7f) << 24 | fh[6] << 16 | fh[7] << 8 | fh[8];
		pl = malloc(n + 1);
		if (!pl)
			die("out of memory");
		xread(pl, n);
		if (type == F_SETTINGS && !(flags & ACK)) {
			frame(F_SETTINGS, ACK, 0, NULL, 0);
		} else if (type == F_PING && !(flags & ACK)) {
			frame(F_PING, ACK, 0, pl, n);
		} else if (type == F_GOAWAY) {
			die("the runtime ended the connection (GOAWAY)");
		} else if (sid == id && type == F_RST) {
			free(pl);
			return -1;
		} else if (sid == id && type == F_DATA) {
			size_t off = 0, pad = 0;

			if (flags & 0x8) {	/* PADDED */
				pad = n ? pl[0] : 0;
				off = 1;
			}
			if (off + pad <= n)
				put(resp, pl + off, n - off - pad);
			got = 1;
			if (n) {	/* give the window back, connection and stream */
				uint8_t w[4] = { n >> 24, n >> 16, n >> 8, n };

				frame(F_WINDOW, 0, 0, w, 4);
				if (!(flags & END_STREAM))
					frame(F_WINDOW, 0, id, w, 4);
			}
		}
		free(pl);
		if (sid == id && (flags & END_STREAM) && (type == F_DATA || type == F_HEADERS))
			break;
	}
	/* strip gRPC's 5-byte prefix: one uncompressed message */
	if (!got || resp->len < 5 || resp->p[0] != 0)
		return -1;
	memmove(resp->p, resp->p + 5, resp->len - 5);
	resp->len -= 5;
	return 0;
}

/*
 * NamespaceOption as field FIELD of B: network, pid and ipc POD (0, the
 * default), as most pods have.  The kubelet gives the same to the pod and
 * to each of its containers.
 */
static void ns_options(struct buf *b, int field)
{
	struct buf ns = { 0 };

	pb_msg(b, field, &ns);
}

static const char *pod_annot;	/* -p */

/* PodSandboxConfig */
static void sandbox_config(struct buf *b, const char *logdir)
{
	struct buf md = { 0 }, lin = { 0 }, sc = { 0 };

	pb_str(&md, 1, "nvcri");		/* name */
	pb_str(&md, 2, "nvcri-uid");		/* uid */
	pb_str(&md, 3, "default");		/* namespace */
	pb_msg(b, 1, &md);
	pb_str(b, 3, logdir);			/* log_directory */
	if (pod_annot)				/* annotations */
		pb_map_entry(b, 7, "cdi.k8s.io/nvcri", pod_annot);
	ns_options(&sc, 1);			/* namespace_options */
	pb_msg(&lin, 2, &sc);			/* security_context */
	pb_msg(b, 8, &lin);			/* linux */
}

static char *one_string(const char *method, struct buf *req, int field)
{
	struct buf resp;
	char *s;

	if (call(method, req, &resp))
		die("%s failed (the runtime's log says why)", method);
	s = pb_string(resp.p, resp.len, field);
	if (!s)
		die("%s: no field %d in the answer", method, field);
	free(resp.p);
	return s;
}

static void sandbox_call(const char *method, const char *pod)
{
	struct buf req = { 0 }, resp;

	pb_str(&req, 1, pod);			/* pod_sandbox_id */
	if (call(method, &req, &resp))
		die("%s failed (the runtime's log says why)", method);
	free(resp.p);
}

int main(int argc, char **argv)
{
	const char *cdi_field = NULL, *cdi_annot = NULL, *env = NULL, *image, *logdir;
	struct buf req = { 0 }, cfg = { 0 }, m = { 0 }, sc = { 0 }, resp;
	char *pod, *ctr;
	int i, opt, rc = -1;
	time_t limit;

	if (argc < 4)
		die("usage: nvcri SOCKET IMAGE LOGDIR [-d CDI-NAME] [-a CDI-NAME] [-p CDI-NAME] [-e NAME=VALUE] -- CMD...");
	image = argv[2];
	logdir = argv[3];
	optind = 4;
	while ((opt = getopt(argc, argv, "d:a:p:e:")) != -1) {
		switch (opt) {
		case 'e':
			env = optarg;
			if (!strchr(env, '='))
				die("-e wants NAME=VALUE");
			break;
		case 'd':
			cdi_field = optarg;
			break;
		case 'a':
			cdi_annot = optarg;
			break;
		case 'p':
			pod_annot = optarg;
			break;
		default:
			return 2;
		}
	}
	if (optind >= argc)
		die("no command");
	connect_runtime(argv[1]);

	/* RunPodSandbox { config = 1 } -> { pod_sandbox_id = 1 } */
	sandbox_config(&cfg, logdir);
	pb_msg(&req, 1, &cfg);
	pod = one_string("RunPodSandbox", &req, 1);
	printf("pod %s\n", pod);

	/* CreateContainer { pod_sandbox_id = 1, config = 2, sandbox_config = 3 } */
	pb_str(&req, 1, pod);
	pb_str(&m, 1, "c");			/* ContainerMetadata.name */
	pb_msg(&cfg, 1, &m);
	pb_str(&m, 1, image);			/* ImageSpec.image */
	pb_msg(&cfg, 2, &m);
	for (i = optind; i < argc; i++)
		pb_str(&cfg, 3, argv[i]);	/* command */
	if (env) {				/* envs { key = 1, value = 2 } */
		char *k = strndup(env, strchr(env, '=') - env);

		pb_str(&m, 1, k);
		pb_str(&m, 2, strchr(env, '=') + 1);
		pb_msg(&cfg, 6, &m);
		free(k);
	}
	if (cdi_annot)				/* annotations */
		pb_map_entry(&cfg, 10, "cdi.k8s.io/nvcri", cdi_annot);
	pb_str(&cfg, 11, "c.log");		/* log_path, under log_directory */
	if (cdi_field) {			/* CDI_devices { name = 1 } */
		pb_str(&m, 1, cdi_field);
		pb_msg(&cfg, 17, &m);
	}
	ns_options(&m, 3);	/* LinuxContainerSecurityContext */
	pb_msg(&sc, 2, &m);			/* LinuxContainerConfig */
	pb_msg(&cfg, 15, &sc);			/* linux */
	pb_msg(&req, 2, &cfg);
	sandbox_config(&cfg, logdir);
	pb_msg(&req, 3, &cfg);
	ctr = one_string("CreateContainer", &req, 1);
	printf("container %s\n", ctr);

	pb_str(&req, 1, ctr);			/* StartContainer { container_id } */
	if (call("StartContainer", &req, &resp))
		die("StartContainer failed (the runtime's log says why)");
	free(resp.p);

	/* ContainerStatus { container_id } -> { status { state = 3, exit_code = 7 } } */
	limit = time(NULL) + 120;
	while (time(NULL) < limit) {
		const uint8_t *st;
		size_t sn;
		uint64_t state = 0, code = 0;

		pb_str(&req, 1, ctr);
		if (call("ContainerStatus", &req, &resp))
			die("ContainerStatus failed (the runtime's log says why)");
		if (pb_find(resp.p, resp.p + resp.len, 1, &st, &sn, NULL) ||
		    pb_find(st, st + sn, 3, NULL, NULL, &state))
			state = 0;			/* CONTAINER_CREATED: absent */
		if (state == 2) {			/* CONTAINER_EXITED */
			pb_find(st, st + sn, 7, NULL, NULL, &code);
			rc = (int)(int32_t)code;
			free(resp.p);
			break;
		}
		free(resp.p);
		usleep(100 * 1000);
	}
	sandbox_call("StopPodSandbox", pod);
	sandbox_call("RemovePodSandbox", pod);
	if (rc < 0 && time(NULL) >= limit)
		die("the container did not exit within 120 s");
	printf("exit %d\n", rc);
	return 0;
}
