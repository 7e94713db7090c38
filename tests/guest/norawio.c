// SPDX-License-Identifier: GPL-2.0
/*
 * norawio: run a command without CAP_SYS_RAWIO, as a container runs.
 *
 * The guest tests run as root; a container's processes, even as root, do
 * not hold CAP_SYS_RAWIO (container runtimes drop it), and without it a
 * process cannot map memory below vm.mmap_min_addr, which is what keeps
 * nvmediate's payload bounce out of the caller's reach.  Dropped from the
 * bounding set too, so nothing the command starts gets it back.
 *
 * usage: norawio COMMAND [ARG...]
 */
#include <errno.h>
#include <linux/capability.h>
#include <stdio.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/syscall.h>
#include <unistd.h>

int main(int argc, char **argv)
{
	struct __user_cap_header_struct hdr = { .version = _LINUX_CAPABILITY_VERSION_3 };
	struct __user_cap_data_struct data[2];
	unsigned int word = CAP_SYS_RAWIO / 32, bit = 1U << (CAP_SYS_RAWIO % 32);

	if (argc < 2) {
		fprintf(stderr, "usage: norawio COMMAND [ARG...]\n");
		return 2;
	}
	if (prctl(PR_CAPBSET_DROP, CAP_SYS_RAWIO, 0, 0, 0) && errno != EINVAL) {
		perror("norawio: PR_CAPBSET_DROP");
		return 1;
	}
	if (syscall(SYS_capget, &hdr, data)) {
		perror("norawio: capget");
		return 1;
	}
	data[word].effective &= ~bit;
	data[word].permitted &= ~bit;
	data[word].inheritable &= ~bit;
	if (syscall(SYS_capset, &hdr, data)) {
		perror("norawio: capset");
		return 1;
	}
	execvp(argv[1], argv + 1);
	fprintf(stderr, "norawio: %s: %s\n", argv[1], strerror(errno));
	return 127;
}
