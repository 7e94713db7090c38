/* SPDX-License-Identifier: GPL-2.0 */
/*
 * nvmediate: the only code that calls into the real driver (driver.c).
 */
#ifndef NVM_DRIVER_H
#define NVM_DRIVER_H

#include <linux/fs.h>
#include <linux/poll.h>
#include "nvm.h"
#include "version.h"

int nvm_drv_devt(enum nvm_kind kind, unsigned int gpu, dev_t *devt);
struct file *nvm_drv_open(enum nvm_kind kind, unsigned int gpu, unsigned int flags);
void nvm_drv_release(struct file *backing, enum nvm_kind kind, unsigned int gpu);
long nvm_drv_ioctl(struct file *backing, unsigned int cmd, unsigned long arg, bool compat);
int nvm_drv_mmap(struct file *backing, struct vm_area_struct *vma);
__poll_t nvm_drv_poll(struct file *backing, struct poll_table_struct *wait);
struct nvm_version;
int nvm_drv_version(struct file *backing, struct nvm_version *v, const char **source);
const char *nvm_drv_modversion(struct file *backing);
bool nvm_drv_owns(const struct file *file);
struct file *nvm_drv_anon_file(const char *name, const struct file_operations *fops, void *priv);


/* Module parameter (driver.c). */
extern char *nvm_uvm_path;

#endif /* NVM_DRIVER_H */
