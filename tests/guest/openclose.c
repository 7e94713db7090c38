// SPDX-License-Identifier: GPL-2.0
/*
 * openclose: open and close a device node many times.
 *
 *   openclose --path P [--count N] [--expect OK|ENXIO|...] [--hold]
 *
 * Prints "path=P count=N ok=N failed=N errno=NAME" (errno of the first
 * failure, "none" without one).  --expect names the outcome every open must
 * have (default OK).  --hold opens once and waits for a line on stdin before
 * closing, for tests that need a file held open in another process.
 * Exit status 0 iff every open had the expected outcome.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

static const struct { int e; const char *n; } names[] = {
	{ 0, "OK" }, { EPERM, "EPERM" }, { ENOENT, "ENOENT" }, { EIO, "EIO" },
	{ ENXIO, "ENXIO" }, { EBADF, "EBADF" }, { EAGAIN, "EAGAIN" },
	{ ENOMEM, "ENOMEM" }, { EACCES, "EACCES" }, { EBUSY, "EBUSY" },
	{ ENODEV, "ENODEV" }, { EINVAL, "EINVAL" }, { ENFILE, "ENFILE" },
	{ EMFILE, "EMFILE" }, { ENOTTY, "ENOTTY" }, { ENOSYS, "ENOSYS" },
	{ EOPNOTSUPP, "EOPNOTSUPP" }, { EPROTONOSUPPORT, "EPROTONOSUPPORT" },
};

static const char *errname(int e)
{
	static char buf[16];
	size_t i;

	for (i = 0; i < sizeof(names) / sizeof(names[0]); i++)
		if (names[i].e == e)
			return names[i].n;
	snprintf(buf, sizeof(buf), "E%d", e);
	return buf;
}

static int errnum(const char *name)
{
	size_t i;

	for (i = 0; i < sizeof(names) / sizeof(names[0]); i++)
		if (!strcmp(names[i].n, name))
			return names[i].e;
	fprintf(stderr, "openclose: unknown errno name %s\n", name);
	exit(2);
}

int main(int argc, char **argv)
{
	const char *path = NULL;
	long count = 1, i, ok = 0, failed = 0, mismatch = 0;
	int expect = 0, hold = 0, first = -1, fd;

	for (i = 1; i < argc; i++) {
		if (!strcmp(argv[i], "--hold")) {
			hold = 1;
		} else if (i + 1 < argc && !strcmp(argv[i], "--path")) {
			path = argv[++i];
		} else if (i + 1 < argc && !strcmp(argv[i], "--count")) {
			count = atol(argv[++i]);
		} else if (i + 1 < argc && !strcmp(argv[i], "--expect")) {
			expect = errnum(argv[++i]);
		} else {
			fprintf(stderr, "usage: openclose --path P [--count N] [--expect OK|ENXIO|...] [--hold]\n");
			return 2;
		}
	}
	if (!path || count < 1)
		return 2;

	if (hold) {
		char line[16];

		fd = open(path, O_RDWR | O_CLOEXEC);
		printf("path=%s held=%s\n", path, fd < 0 ? errname(errno) : "OK");
		fflush(stdout);
		if (fd < 0)
			return 1;
		if (!fgets(line, sizeof(line), stdin))
			line[0] = '\0';
		close(fd);
		return 0;
	}

	for (i = 0; i < count; i++) {
		int e = 0;

		fd = open(path, O_RDWR | O_CLOEXEC);
		if (fd < 0)
			e = errno;
		else if (close(fd) < 0)
			e = errno;
		if (e == 0)
			ok++;
		else if (failed++ == 0)
			first = e;
		if (e != expect)
			mismatch++;
	}
	printf("path=%s count=%ld ok=%ld failed=%ld errno=%s\n", path, count, ok, failed,
	       first < 0 ? "none" : errname(first));
	return mismatch != 0;
}
