// SPDX-License-Identifier: GPL-2.0
/*
 * nvmediate: the KUnit suites that need nothing of a running kernel, run
 * as a program (make unit).  The units under test are compiled in from
 * kmod/ with NVM_KUNIT defined (Makefile), so each brings its suite, as
 * in nvmediate.ko (kunit/<unit>_test.c, included at the end of
 * kmod/<unit>.c); against tools/nvproxyctl/kshim/ (the kernel's
 * interfaces these units use, in C and libc, and KUnit).  The suites that
 * need kernel objects (fdctx.c's fd tables, bounceslot.c's bounce area)
 * run in the debug guest alone: their units are not here.
 */
#include <kunit/test.h>
#include <linux/slab.h>
#include <unistd.h>

#include "../../kmod/fdplan.c"
#include "../../kmod/version.c"
#include "../../kmod/ranges.c"
#include "../../kmod/tables.c"
#include "../../kmod/abi.c"
#include "../../kmod/decide.c"
#include "../../kmod/escape.c"
#include "../../kmod/ctrl.c"
#include "../../kmod/alloc.c"
#include "../../kmod/uvm.c"
#include "../../kmod/policy.c"

/* driver.c is not here: no driver answers abi.c. */
int nvm_drv_version(struct file *backing, struct nvm_version *v, const char **source)
{
	return -ENODEV;
}

const char *nvm_drv_modversion(struct file *backing)
{
	return NULL;
}

/*
 * nvm_unit [-l KERNEL_LOG] [GLOB]: the suites (GLOB: "suite" or
 * "suite.case", shell patterns, as KUnit's filter_glob) in KTAP on standard
 * output, then "N passed, N failed", counting cases as the guests count
 * them.  What the module logs goes to KERNEL_LOG, else standard error.
 */
int main(int argc, char **argv)
{
	unsigned int passed, failed, skipped;
	int opt;

	while ((opt = getopt(argc, argv, "l:")) != -1) {
		if (opt != 'l') {
			fprintf(stderr, "usage: %s [-l KERNEL_LOG] [SUITE_GLOB[.CASE_GLOB]]\n", argv[0]);
			return 2;
		}
		*kshim_log() = fopen(optarg, "w");
		if (!*kshim_log()) {
			perror(optarg);
			return 2;
		}
		setvbuf(*kshim_log(), NULL, _IOLBF, 0);
	}
	setvbuf(stdout, NULL, _IOLBF, 0);
	kunit_run_all(optind < argc ? argv[optind] : NULL, &passed, &failed, &skipped);
	if (*kshim_log())
		fclose(*kshim_log());
	if (skipped)
		printf("%u skipped\n", skipped);
	printf("%u passed, %u failed\n", passed, failed);
	if (!passed && !failed && !skipped) {
		fprintf(stderr, "%s: no case matches %s\n", argv[0], argv[optind]);
		return 1;
	}
	return failed ? 1 : 0;
}
