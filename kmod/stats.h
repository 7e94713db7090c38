/* SPDX-License-Identifier: GPL-2.0 */
/*
 * nvmediate: counters, tracepoints and the refusal log (stats.c,
 * docs/operations.md).
 */
#ifndef NVM_STATS_H
#define NVM_STATS_H

#include <linux/sysfs.h>
#include "nvm.h"

int nvm_stats_init(void);
void nvm_stats_exit(void);
int nvm_stats_attach(struct nvm_file *nf);
void nvm_stats_open(struct nvm_file *nf, enum nvm_kind kind, unsigned int gpu, int ret);
void nvm_stats_release(struct nvm_file *nf);
void nvm_stats_ioctl(struct nvm_file *nf, const struct nvm_report *r, long ret);
void nvm_stats_file_op(struct nvm_file *nf, enum nvm_family family, long ret);
extern const struct attribute_group nvm_stats_class_group;

#endif /* NVM_STATS_H */
