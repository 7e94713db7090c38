/* SPDX-License-Identifier: GPL-2.0 */
/*
 * nvproxyctl: the driver's user space in the spec cdi writes (driverfiles.c),
 * and the hook that gives it to the container's dynamic linker (hook.c).
 */
#ifndef NVPROXYCTL_DRIVERFILES_H
#define NVPROXYCTL_DRIVERFILES_H

#include "spec.h"

struct driver_files_opts {
	const char *driver_root;	/* --driver-root, or NULL: the host's own */
	const char *lib_dirs;		/* --lib-dirs DIR:DIR, looked in first */
	const char *bin_dirs;		/* --bin-dirs DIR:DIR, looked in first */
	const char *version;		/* --driver-version, or NULL: the loaded one's */
};

int cdi_driver_files(struct jval *edits, const struct driver_files_opts *o);
void cdi_env_void(struct jval *edits);
int cmd_hook(int argc, char **argv);

#endif
