/* SPDX-License-Identifier: GPL-2.0 */
/*
 * nvmediate: internal interfaces between the parts of the module.
 */
#ifndef NVM_NVM_H
#define NVM_NVM_H

#include <linux/fs.h>
#include <linux/types.h>

#include "base_fds.h"

/* The real node a mediated node stands for. */
enum nvm_kind {
	NVM_NODE_CTL,		/* /dev/nvidiactl */
	NVM_NODE_GPU,		/* /dev/nvidiaN */
	NVM_NODE_UVM,		/* /dev/nvidia-uvm */
};

/**
 * struct nvm_file - state of one open mediated file
 * @backing: the real driver's file, opened for this file alone; constant
 *	from open to release
 * @kind: which real node it mediates
 * @gpu: GPU index for %NVM_NODE_GPU
 */
struct nvm_file {
	struct file *backing;
	enum nvm_kind kind;
	unsigned int gpu;
};

/* main.c: module parameters. */
extern unsigned int nvm_num_gpus;
extern char *nvm_uvm_path;

/* node.c: the mediated device nodes. */
int nvm_node_init(void);
void nvm_node_exit(void);
struct nvm_file *nvm_file_of(struct file *file);

/* driver.c: the only code that calls into the real driver. */
struct file *nvm_drv_open(enum nvm_kind kind, unsigned int gpu, unsigned int flags);
void nvm_drv_release(struct file *backing);
long nvm_drv_ioctl(struct file *backing, unsigned int cmd, unsigned long arg, bool compat);
int nvm_drv_mmap(struct file *backing, struct vm_area_struct *vma);
__poll_t nvm_drv_poll(struct file *backing, struct poll_table_struct *wait);

/* fdplan.c: which fd numbers a call needs to find in the caller's table. */
#define NVM_FDPLAN_MAX	4

/**
 * struct nvm_fdplan - what the driver will look up in current->files
 * @swap: the call must run with a private fd table
 * @nfds: number of entries in @fds
 * @fds: fd numbers read from the payload's fd fields
 * @gpu_nodes: the call allocates a device; the driver checks that the
 *	calling process holds the GPU's node
 */
struct nvm_fdplan {
	bool swap;
	unsigned int nfds;
	int fds[NVM_FDPLAN_MAX];
	bool gpu_nodes;
};

int nvm_fdplan_build(const struct nvm_file *nf, unsigned int cmd,
		     unsigned long arg, struct nvm_fdplan *plan);
const struct nvm_fd_field *nvm_fd_fields(unsigned int *count);

/* fdctx.c: running a call with a private fd table. */
struct nvm_fdctx;

struct nvm_fdctx *nvm_fdctx_create(const struct nvm_fdplan *plan);
int nvm_fdctx_enter(struct nvm_fdctx *ctx);
void nvm_fdctx_leave(struct nvm_fdctx *ctx);
void nvm_fdctx_destroy(struct nvm_fdctx *ctx);

/* Lower-level pieces, used by the above and by the KUnit suites. */
struct nvm_fdctx *nvm_fdctx_alloc(unsigned int max_fd);
int nvm_fdctx_install(struct nvm_fdctx *ctx, unsigned int fd, struct file *file);
struct files_struct *nvm_fdctx_files(struct nvm_fdctx *ctx);
void nvm_fdctx_swap(struct nvm_fdctx *ctx);
void nvm_fdctx_unswap(struct nvm_fdctx *ctx);

#endif /* NVM_NVM_H */
