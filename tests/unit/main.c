// SPDX-License-Identifier: GPL-2.0
/*
 * nvmediate: the KUnit suites that need nothing of a running kernel, run
 * as a program (make unit).  Built as kunit/kunit_main.c builds them into
 * nvmediate_kunit.ko, from the same sources, the units under test compiled
 * in from kmod/, in the same order; against tools/nvproxyctl/kshim/ (the
 * kernel's interfaces these units use, in C and libc, and KUnit).  The
 * suites that need kernel objects (files, fd tables, the bounce area's
 * pages) run in the debug guest alone: kunit_main.c's own.
 */
#include <kunit/test.h>
#include <linux/slab.h>
#include <unistd.h>

#include "../../kmod/fdplan.c"
#include "../../kmod/version.c"
#include "../../kmod/ranges.c"
#include "../../kunit/version_test.c"
#include "../../kmod/tables.c"
#include "../../kmod/abi.c"
#include "../../kunit/abi_test.c"
#include "../../kmod/decide.c"
#include "../../kmod/escape.c"
#include "../../kmod/ctrl.c"
#include "../../kmod/alloc.c"
#include "../../kmod/uvm.c"
#include "../../kmod/policy.c"
#include "../../kunit/validate_test.c"
#include "../../kunit/policy_test.c"
#include "../../kunit/fdplan_test.c"

/* kunit_main.c's order, less the suites of kernel objects. */
kunit_test_suites(&nvm_fdplan_suite, &nvm_version_suite, &nvm_ranges_suite, &nvm_abi_suite,
		  &nvm_validate_suite, &nvm_policy_suite);

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
