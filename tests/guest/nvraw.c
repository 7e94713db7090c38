// SPDX-License-Identifier: GPL-2.0
/*
 * nvraw: issue one ioctl, given on the command line, on a node, for the
 * guest tests of the validator (50-validate.sh).
 *
 *   nvraw PATH NR SIZE [FIELD...]          escape NR, _IOC_SIZE SIZE
 *   nvraw --xfer PATH NR SIZE [FIELD...]   the same inside NV_ESC_IOCTL_XFER_CMD
 *   nvraw --uvm PATH CMD SIZE [FIELD...]   UVM command CMD, SIZE-byte payload
 *   nvraw --bad PATH NR SIZE               the payload pointer is unmapped
 *   nvraw --type C ...                     the ioctl's type is the character C,
 *                                          not 'F' (XFER's outer one too)
 *   nvraw --ro ...                         the payload is mapped read-only
 *                                          when the fields are written
 *   nvraw --repeat N ...                   make the call N times (default 1)
 *   nvraw --hold FILE ...                  after the calls, keep the node
 *                                          open until FILE exists (30 s at most)
 *   nvraw --reopen --hold FILE ...         the same, but the node is opened
 *                                          again and the first file closed
 *                                          before the wait
 *
 * FIELD: OFF=VAL (u32), OFF=q:VAL (u64), OFF=buf:N (u64 pointer to N
 * zeroed bytes), OFF=ro:N (the same, N at most 4096, mapped read-only when
 * the fields are written), OFF=bad (u64 pointer to an unmapped page), st=OFF (print the
 * u32 at OFF after the call).  +OFF=... writes at OFF of the buffer the
 * last buf: or ro: made instead of the payload (a control's params, and
 * a list they point to).  Numbers in C notation.  Payloads live at fixed
 * addresses, so the same command line gives the same bytes.
 *
 * Output: "ret=0" or "ret=-EINVAL" etc. (of the last call), then
 * " status=0x.." with st=.
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
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#define ARENA		((void *)0x500000000000ULL)
#define ARENA_SIZE	(4u << 20)
#define BAD_PTR		0x10ULL

static const char *errname(int e)
{
	static char buf[16];

	switch (e) {
	case EINVAL: return "EINVAL";
	case ENOTTY: return "ENOTTY";
	case EFAULT: return "EFAULT";
	case E2BIG: return "E2BIG";
	case EPERM: return "EPERM";
	case ENOMEM: return "ENOMEM";
	case ENOSYS: return "ENOSYS";
	case ENXIO: return "ENXIO";
	}
	snprintf(buf, sizeof(buf), "E%d", e);
	return buf;
}

static void usage(void)
{
	fprintf(stderr, "usage: nvraw [--xfer|--uvm|--bad|--ro|--type C|--repeat N|--hold FILE|--reopen] PATH NR SIZE [[+]OFF=VAL|[+]OFF=q:VAL|[+]OFF=buf:N|[+]OFF=ro:N|[+]OFF=bad|st=OFF]...\n");
	exit(2);
}

int main(int argc, char **argv)
{
	int xfer = 0, uvm = 0, bad = 0, reopen = 0, rop = 0, type = 'F', fd, ret, i = 1;
	unsigned long repeat = 1, r;
	const char *hold = NULL, *path;
	long st = -1;
	unsigned long nr, size, cmd;
	uint8_t *arena, *payload, *extra, *last = NULL, *ro[8];
	size_t used = 0, nro = 0, lastsize = 0;

	for (; i < argc && argv[i][0] == '-' && argv[i][1] == '-'; i++) {
		if (!strcmp(argv[i], "--xfer"))
			xfer = 1;
		else if (!strcmp(argv[i], "--uvm"))
			uvm = 1;
		else if (!strcmp(argv[i], "--bad"))
			bad = 1;
		else if (!strcmp(argv[i], "--ro"))
			rop = 1;
		else if (!strcmp(argv[i], "--type") && i + 1 < argc && argv[i + 1][0])
			type = (unsigned char)argv[++i][0];
		else if (!strcmp(argv[i], "--repeat") && i + 1 < argc)
			repeat = strtoul(argv[++i], NULL, 0);
		else if (!strcmp(argv[i], "--hold") && i + 1 < argc)
			hold = argv[++i];
		else if (!strcmp(argv[i], "--reopen"))
			reopen = 1;
		else
			usage();
	}
	if (argc - i < 3)
		usage();
	arena = mmap(ARENA, ARENA_SIZE, PROT_READ | PROT_WRITE,
		     MAP_PRIVATE | MAP_ANONYMOUS | MAP_FIXED_NOREPLACE, -1, 0);
	if (arena == MAP_FAILED) {
		perror("mmap");
		return 2;
	}
	path = argv[i];
	fd = open(path, O_RDWR);
	if (fd < 0) {
		perror(path);
		return 2;
	}
	nr = strtoul(argv[i + 1], NULL, 0);
	size = strtoul(argv[i + 2], NULL, 0);
	if (size > 65536)
		usage();
	payload = arena;
	used = (size + 4095) & ~4095UL;
	extra = arena + (1u << 20);
	for (i += 3; i < argc; i++) {
		char *eq = strchr(argv[i], '=');
		unsigned long off;
		uint64_t v64;
		uint32_t v32;

		if (!eq)
			usage();
		if (!strncmp(argv[i], "st=", 3)) {
			st = strtol(eq + 1, NULL, 0);
			continue;
		}
		{
			uint8_t *base = payload;
			size_t room = used;

			if (argv[i][0] == '+') {
				if (!last)
					usage();
				base = last;
				room = lastsize;
			}
			off = strtoul(argv[i] + (argv[i][0] == '+'), NULL, 0);
			if (off + 8 > room + (base == payload ? 4096 : 0))
				usage();
			if (!strncmp(eq + 1, "q:", 2)) {
				v64 = strtoull(eq + 3, NULL, 0);
				memcpy(base + off, &v64, 8);
			} else if (!strncmp(eq + 1, "buf:", 4) || !strncmp(eq + 1, "ro:", 3)) {
				int is_ro = eq[1] == 'r';

				last = extra;
				lastsize = (strtoul(eq + (is_ro ? 4 : 5), NULL, 0) + 4095) & ~4095UL;
				if (!lastsize || (is_ro && (nro == 8 || lastsize != 4096)))
					usage();
				if (is_ro)
					ro[nro++] = extra;
				extra += lastsize;
				v64 = (uint64_t)(uintptr_t)last;
				memcpy(base + off, &v64, 8);
			} else if (!strcmp(eq + 1, "bad")) {
				v64 = BAD_PTR;
				memcpy(base + off, &v64, 8);
			} else {
				v32 = (uint32_t)strtoul(eq + 1, NULL, 0);
				memcpy(base + off, &v32, 4);
			}
		}
	}

	if (rop && mprotect(payload, used ? used : 4096, PROT_READ)) {
		perror("mprotect");
		return 2;
	}
	while (nro)
		if (mprotect(ro[--nro], 4096, PROT_READ)) {
			perror("mprotect");
			return 2;
		}
	ret = 0;
	for (r = 0; r < repeat; r++) {
		if (uvm) {
			cmd = nr;
			ret = ioctl(fd, cmd, bad ? (void *)BAD_PTR : payload);
		} else if (xfer) {
			struct { uint32_t cmd, size; uint64_t ptr; } *x = (void *)(arena + (3u << 20));

			x->cmd = (uint32_t)nr;
			x->size = (uint32_t)size;
			x->ptr = bad ? BAD_PTR : (uint64_t)(uintptr_t)payload;
			cmd = _IOC(_IOC_READ | _IOC_WRITE, type, 0xd3, sizeof(*x));
			ret = ioctl(fd, cmd, x);
		} else {
			cmd = _IOC(_IOC_READ | _IOC_WRITE, type, nr, size);
			ret = ioctl(fd, cmd, bad ? (void *)BAD_PTR : payload);
		}
	}
	if (ret < 0)
		printf("ret=-%s", errname(errno));
	else
		printf("ret=%d", ret);
	if (st >= 0) {
		uint32_t v;

		memcpy(&v, payload + st, 4);
		printf(" status=0x%x", v);
	}
	printf("\n");
	fflush(stdout);
	if (hold) {
		struct timespec ts = { 0, 10 * 1000 * 1000 };
		struct stat sb;
		int n;

		if (reopen) {
			int fd2 = open(path, O_RDWR);

			if (fd2 < 0) {
				perror(path);
				return 2;
			}
			close(fd);
			fd = fd2;
			printf("reopened\n");
			fflush(stdout);
		}
		for (n = 0; n < 3000 && stat(hold, &sb); n++)
			nanosleep(&ts, NULL);
	}
	close(fd);
	return 0;
}
