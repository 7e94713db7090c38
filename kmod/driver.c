// SPDX-License-Identifier: GPL-2.0
/*
 * nvmediate: the only code that calls into the real NVIDIA driver.
 *
 * Backing files are opened through character-device inodes on a private,
 * never-mounted pseudo filesystem: no path in the caller's namespace is
 * looked up, the caller's device cgroup is not consulted (it allows only
 * nvmediate's nodes), and nobody can re-open a backing file by path because
 * the filesystem is SB_I_NODEV.  The driver's own open still runs in the
 * caller's context, as it would for an open of /dev/nvidiactl.
 */
#include <linux/dcache.h>
#include <linux/fs.h>
#include <linux/file.h>
#include <linux/fs_struct.h>
#include <linux/kdev_t.h>
#include <linux/mm.h>
#include <linux/module.h>
#include <linux/moduleparam.h>
#include <linux/mount.h>
#include <linux/pid.h>
#include <linux/pid_namespace.h>
#include <linux/poll.h>
#include <linux/pseudo_fs.h>
#include <linux/sched.h>
#include <linux/sched/task.h>
#include <linux/cred.h>

#include "driver.h"
#include "version.h"

#define NVM_FS_MAGIC	0x6e766d64	/* "nvmd" */

/*
 * The mount exists while backing inodes do: each pins it and its eviction
 * (when the last backing file of the inode is finally released, possibly by
 * a VMA long after the mediated files were closed) unpins it.  The superblock
 * holds a reference on this module, so nvmediate cannot be unloaded while
 * any backing file, and so any code or data of this filesystem, is in use.
 */
char *nvm_uvm_path = "/dev/nvidia-uvm";
module_param_named(uvm_path, nvm_uvm_path, charp, 0444);
MODULE_PARM_DESC(uvm_path,
		 "Host path of the real UVM node, resolved from the host's root, used only to learn its device number (default /dev/nvidia-uvm)");

static struct vfsmount *nvm_mnt;
static int nvm_mnt_count;

/* i_private of the inodes of nvm_drv_anon_file(), which pin the mount too. */
static char nvm_fs_anon_mark;

static void nvm_fs_evict_inode(struct inode *inode)
{
	truncate_inode_pages_final(&inode->i_data);
	clear_inode(inode);
	if (S_ISCHR(inode->i_mode) || inode->i_private == &nvm_fs_anon_mark)
		simple_release_fs(&nvm_mnt, &nvm_mnt_count);
}

/*
 * A backing inode is reached by path only through /proc (a VMA's
 * map_files link, the private fd table's links during a call), and only
 * to be looked at: no caller may read it (an inotify or fanotify watch
 * would hold the inode without the mount, and tell one tenant when
 * another opens or closes the node they share) nor change its mode,
 * owner or times.  dentry_open() asks neither.
 */
static int nvm_fs_permission(NVM_IOP_IDMAP struct inode *inode, int mask)
{
	return -EACCES;
}

static int nvm_fs_setattr(NVM_IOP_IDMAP struct dentry *dentry, struct iattr *attr)
{
	return -EPERM;
}

static const struct inode_operations nvm_fs_iops = {
	.permission	= nvm_fs_permission,
	.setattr	= nvm_fs_setattr,
};

static const struct super_operations nvm_fs_sops = {
	.statfs		= simple_statfs,
	.drop_inode	= nvm_inode_just_drop,
	.evict_inode	= nvm_fs_evict_inode,
};

static int nvm_fs_init_fs_context(struct fs_context *fc)
{
	struct pseudo_fs_context *ctx = init_pseudo(fc, NVM_FS_MAGIC);

	if (!ctx)
		return -ENOMEM;
	ctx->ops = &nvm_fs_sops;
	return 0;
}

static struct file_system_type nvm_fs_type = {
	.owner			= THIS_MODULE,
	.name			= "nvmediate",
	.init_fs_context	= nvm_fs_init_fs_context,
	.kill_sb		= kill_anon_super,
};

/*
 * Open a file of the host, resolved from the root of the initial pid
 * namespace's init, never from the caller's root: a container has neither
 * the host's /dev nor its /proc.
 */
static struct file *nvm_drv_host_open(const char *path, int flags)
{
	struct task_struct *init;
	struct file *file;
	struct path root;
	bool found = false;

	rcu_read_lock();
	init = pid_task(find_pid_ns(1, &init_pid_ns), PIDTYPE_PID);
	if (init)
		get_task_struct(init);
	rcu_read_unlock();
	if (!init)
		return ERR_PTR(-ENXIO);

	task_lock(init);
	if (init->fs) {
		get_fs_root(init->fs, &root);
		found = true;
	}
	task_unlock(init);
	put_task_struct(init);
	if (!found)
		return ERR_PTR(-ENXIO);

	file = nvm_file_open_root(&root, path, flags, 0);
	path_put(&root);
	return file;
}

/* The UVM node has a dynamic major: read it off the host's device node. */
static int nvm_drv_uvm_devt(dev_t *devt)
{
	struct file *file;
	int ret = -ENXIO;

	/* O_PATH: a lookup only, neither the driver's open nor permissions. */
	file = nvm_drv_host_open(nvm_uvm_path, O_PATH);
	if (IS_ERR(file))
		return PTR_ERR(file) == -ENOENT ? -ENXIO : PTR_ERR(file);
	if (S_ISCHR(file_inode(file)->i_mode)) {
		*devt = file_inode(file)->i_rdev;
		ret = 0;
	}
	fput(file);
	return ret;
}

/**
 * nvm_drv_devt() - the device number of a real node
 * @kind: the node
 * @gpu: its GPU index for %NVM_NODE_GPU
 * @devt: set to the number
 *
 * 195:255 and 195:N are fixed; the UVM node's major is the host's
 * (module parameter uvm_path), read at each call.
 *
 * Return: 0, or -ENXIO when the host has no UVM node.
 */
int nvm_drv_devt(enum nvm_kind kind, unsigned int gpu, dev_t *devt)
{
	switch (kind) {
	case NVM_NODE_CTL:
		*devt = MKDEV(NVM_NV_MAJOR, NVM_NV_CTL_MINOR);
		return 0;
	case NVM_NODE_GPU:
		*devt = MKDEV(NVM_NV_MAJOR, gpu);
		return 0;
	default:
		return nvm_drv_uvm_devt(devt);
	}
}

/**
 * nvm_drv_version() - the version of the driver behind a backing file
 * @backing: file returned by nvm_drv_open(); it pins the driver's module;
 *	NULL: no file, the host's /proc/driver/nvidia/version only
 * @v: the version found
 * @source: set to "module" or "proc", where it was found
 *
 * The MODULE_VERSION of the module that owns @backing comes first; if it
 * has none (nvidia-uvm before 520), the first line of the host's
 * /proc/driver/nvidia/version.
 *
 * Return: 0, or a negative errno when neither gives a version.
 */
int nvm_drv_version(struct file *backing, struct nvm_version *v, const char **source)
{
	const struct module *owner = backing ? backing->f_op->owner : NULL;
	char line[256];
	struct file *file;
	loff_t pos = 0;
	ssize_t n;

	if (owner && owner->version && !nvm_version_parse(owner->version, v)) {
		*source = "module";
		return 0;
	}

	*source = "proc";
	file = nvm_drv_host_open("/proc/driver/nvidia/version", O_RDONLY);
	if (IS_ERR(file))
		return PTR_ERR(file);
	n = kernel_read(file, line, sizeof(line) - 1, &pos);
	fput(file);
	if (n < 0)
		return n;
	line[n] = '\0';
	return nvm_version_find(line, v);
}

/**
 * nvm_drv_modversion() - the version string of the module behind a backing file
 * @backing: file returned by nvm_drv_open(); it pins the driver's module
 *
 * Return: its MODULE_VERSION, unparsed, or NULL when it has none.
 */
const char *nvm_drv_modversion(struct file *backing)
{
	const struct module *owner = backing->f_op->owner;

	return owner ? owner->version : NULL;
}

static const char *nvm_drv_owner(enum nvm_kind kind)
{
	return kind == NVM_NODE_UVM ? NVM_NV_UVM_MODULE : NVM_NV_MODULE;
}

/**
 * nvm_drv_owns() - is a file one of the nvidia module's own
 * @file: an open file
 *
 * Its file operations belong to the module behind /dev/nvidiactl (its
 * capability nodes and IMEX channels are that module's too).
 *
 * Return: true if so.
 */
bool nvm_drv_owns(const struct file *file)
{
	struct module *owner = file->f_op ? file->f_op->owner : NULL;

	return owner && !strcmp(module_name(owner), NVM_NV_MODULE);
}

/**
 * struct nvm_drv_node - the backing inode of one real node, shared
 * @link: in nvm_drv_nodes
 * @kind: the real node
 * @gpu: its GPU index for %NVM_NODE_GPU
 * @users: backing files opened by nvm_drv_open() and not yet given to
 *	nvm_drv_release()
 * @path: the mount and the dentry of the inode; each holds one reference
 *
 * Every backing file of a node opened while another is open shares one
 * inode and dentry, as every open of /dev/nvidiactl shares that node's
 * inode: an open costs the driver's file and nothing else.  The entry goes
 * with its last user; backing files that outlive it (held by a VMA or by
 * the driver) keep the dentry, the inode and through it the mount.
 */
struct nvm_drv_node {
	struct list_head link;
	enum nvm_kind kind;
	unsigned int gpu;
	unsigned int users;
	struct path path;
};

/* The nodes with users; a few entries (the control node, the GPUs, UVM). */
static LIST_HEAD(nvm_drv_nodes);
static DEFINE_MUTEX(nvm_drv_nodes_lock);

/* The entry of a real node, or NULL; under nvm_drv_nodes_lock. */
static struct nvm_drv_node *nvm_drv_node_find(enum nvm_kind kind, unsigned int gpu)
{
	struct nvm_drv_node *node;

	lockdep_assert_held(&nvm_drv_nodes_lock);
	list_for_each_entry(node, &nvm_drv_nodes, link)
		if (node->kind == kind && node->gpu == gpu)
			return node;
	return NULL;
}

/* Generation of the last inode made; under nvm_drv_nodes_lock. */
static u32 nvm_drv_generation;

/* One more user of the internal mount (simple_release_fs() undoes it). */
static int nvm_fs_pin(void)
{
	int ret = simple_pin_fs(&nvm_fs_type, &nvm_mnt, &nvm_mnt_count);

	/* Device inodes here are opened by nvmediate alone, never by path. */
	if (!ret)
		nvm_mnt->mnt_sb->s_iflags |= SB_I_NODEV | SB_I_NOEXEC;
	return ret;
}

/**
 * nvm_drv_anon_file() - a file with an inode of its own on the internal mount
 * @name: its name
 * @fops: its operations (a reference on their module is taken)
 * @priv: its private_data
 *
 * anon_inode_getfile()'s files share one inode, and so one address space,
 * with every anonymous file of the kernel; this one's address space is its
 * own, so that unmap_mapping_range() on it reaches its own mappings alone,
 * without taking their process's mmap lock.  Its inode cannot be opened
 * again by path (nvm_fs_permission()).
 *
 * Return: the file, or an ERR_PTR.
 */
struct file *nvm_drv_anon_file(const char *name, const struct file_operations *fops, void *priv)
{
	struct inode *inode;
	struct file *file;
	int ret;

	if (!fops_get(fops))
		return ERR_PTR(-ENOENT);
	ret = nvm_fs_pin();
	if (ret)
		goto err_fops;
	inode = alloc_anon_inode(nvm_mnt->mnt_sb);
	if (IS_ERR(inode)) {
		simple_release_fs(&nvm_mnt, &nvm_mnt_count);
		ret = PTR_ERR(inode);
		goto err_fops;
	}
	inode->i_op = &nvm_fs_iops;
	inode->i_private = &nvm_fs_anon_mark;
	file = alloc_file_pseudo(inode, nvm_mnt, name, O_RDWR, fops);
	if (IS_ERR(file)) {
		iput(inode);	/* unpins */
		ret = PTR_ERR(file);
		goto err_fops;
	}
	file->private_data = priv;
	return file;
err_fops:
	fops_put(fops);
	return ERR_PTR(ret);
}

/*
 * A new inode and dentry for @devt, with a reference on the mount; under
 * nvm_drv_nodes_lock (nvm_drv_generation).
 */
static int nvm_drv_node_make(struct nvm_drv_node *node, dev_t devt)
{
	static const struct qstr name = QSTR_INIT("nvidia", 6);
	struct inode *inode;
	int ret;

	lockdep_assert_held(&nvm_drv_nodes_lock);
	ret = nvm_fs_pin();
	if (ret)
		return ret;
	/*
	 * Our own reference on the mount, dropped after our dentry reference
	 * (path_put order): the inode's eviction unpins the mount, and must
	 * never be the last mntput, which would unmount from inside the
	 * dentry's destruction.
	 */
	node->path.mnt = mntget(nvm_mnt);

	inode = new_inode(node->path.mnt->mnt_sb);
	if (!inode) {
		simple_release_fs(&nvm_mnt, &nvm_mnt_count);
		mntput(node->path.mnt);
		return -ENOMEM;
	}
	/*
	 * One number for every inode of a real node: it shows in the
	 * /proc/PID/maps of a process that maps a backing file, and a new
	 * number per inode would tell a container whether another had held
	 * the node open between two of its own opens.  The generation tells
	 * the inodes apart.
	 */
	inode->i_ino = new_encode_dev(devt);
	inode->i_generation = ++nvm_drv_generation;
	init_special_inode(inode, S_IFCHR | 0600, devt);
	inode->i_op = &nvm_fs_iops;
	nvm_inode_init_ts(inode);

	node->path.dentry = d_alloc(node->path.mnt->mnt_sb->s_root, &name);
	if (!node->path.dentry) {
		iput(inode);	/* unpins */
		mntput(node->path.mnt);
		return -ENOMEM;
	}
	d_instantiate(node->path.dentry, inode);
	return 0;
}

/* The shared inode of a real node, one more user; ERR_PTR on failure. */
static struct nvm_drv_node *nvm_drv_node_get(enum nvm_kind kind, unsigned int gpu)
{
	struct nvm_drv_node *node;
	dev_t devt;
	int ret;

	mutex_lock(&nvm_drv_nodes_lock);
	node = nvm_drv_node_find(kind, gpu);
	if (node)
		goto found;

	/*
	 * UVM's number is read while no UVM file is open: the backing files
	 * of one hold nvidia-uvm, so its major cannot change under them.
	 */
	ret = nvm_drv_devt(kind, gpu, &devt);
	if (ret)
		goto err;
	node = kzalloc(sizeof(*node), GFP_KERNEL);
	if (!node) {
		ret = -ENOMEM;
		goto err;
	}
	ret = nvm_drv_node_make(node, devt);
	if (ret) {
		kfree(node);
		goto err;
	}
	node->kind = kind;
	node->gpu = gpu;
	list_add(&node->link, &nvm_drv_nodes);
found:
	node->users++;
	mutex_unlock(&nvm_drv_nodes_lock);
	return node;
err:
	mutex_unlock(&nvm_drv_nodes_lock);
	return ERR_PTR(ret);
}

/* One user less of the shared inode of a real node; the last frees it. */
static void nvm_drv_node_put(enum nvm_kind kind, unsigned int gpu)
{
	struct nvm_drv_node *node, *last = NULL;

	mutex_lock(&nvm_drv_nodes_lock);
	node = nvm_drv_node_find(kind, gpu);
	if (node && !--node->users) {
		list_del(&node->link);
		last = node;
	}
	mutex_unlock(&nvm_drv_nodes_lock);
	if (last) {
		path_put(&last->path);
		kfree(last);
	}
}

/**
 * nvm_drv_open() - open the real device file behind a mediated node
 * @kind: which real node
 * @gpu: GPU index for %NVM_NODE_GPU
 * @flags: open flags of the mediated file (access mode, O_NONBLOCK)
 *
 * Return: the backing file, or ERR_PTR: -ENXIO when the driver or the GPU is
 * not there or the device number belongs to another module, or the driver's
 * own error from its open.
 */
struct file *nvm_drv_open(enum nvm_kind kind, unsigned int gpu, unsigned int flags)
{
	struct nvm_drv_node *node;
	struct file *file;

	node = nvm_drv_node_get(kind, gpu);
	if (IS_ERR(node))
		return ERR_CAST(node);

	file = dentry_open(&node->path, flags, current_cred());
	if (IS_ERR(file))
		goto err;
	if (!file->f_op->owner ||
	    strcmp(module_name(file->f_op->owner), nvm_drv_owner(kind))) {
		pr_warn_ratelimited("device %u:%u does not belong to %s\n",
				    imajor(file_inode(file)), iminor(file_inode(file)),
				    nvm_drv_owner(kind));
		fput(file);
		file = ERR_PTR(-ENXIO);
		goto err;
	}
	return file;
err:
	nvm_drv_node_put(kind, gpu);
	return file;
}

/**
 * nvm_drv_release() - drop a backing file; the driver's close runs when its
 *	last reference goes, in the caller's context where possible
 * @backing: file returned by nvm_drv_open(), given here once
 * @kind: the node it was opened for
 * @gpu: its GPU index
 */
void nvm_drv_release(struct file *backing, enum nvm_kind kind, unsigned int gpu)
{
	fput(backing);
	nvm_drv_node_put(kind, gpu);
}

/**
 * nvm_drv_ioctl() - issue an ioctl on the backing file
 * @backing: file returned by nvm_drv_open()
 * @cmd: the caller's command
 * @arg: the caller's own argument, passed unchanged
 * @compat: the call came in through compat_ioctl
 *
 * Runs in the caller's context.  Return: the driver's answer; -ENOTTY
 * when the real file has no such entry point.
 */
long nvm_drv_ioctl(struct file *backing, unsigned int cmd, unsigned long arg, bool compat)
{
	long ret;

	if (compat) {
		if (!backing->f_op->compat_ioctl)
			return -ENOTTY;
		ret = backing->f_op->compat_ioctl(backing, cmd, arg);
	} else {
		if (!backing->f_op->unlocked_ioctl)
			return -ENOTTY;
		ret = backing->f_op->unlocked_ioctl(backing, cmd, arg);
	}
	return ret == -ENOIOCTLCMD ? -ENOTTY : ret;
}

/**
 * nvm_drv_mmap() - hand a VMA to the backing file
 * @backing: file returned by nvm_drv_open()
 * @vma: the VMA being set up on the mediated file
 *
 * The driver finds its per-file state through vma->vm_file, so the VMA is
 * given the backing file before the driver's mmap runs (as dma_buf_mmap()
 * does).  From then on the mapping belongs to the driver alone.
 */
int nvm_drv_mmap(struct file *backing, struct vm_area_struct *vma)
{
	struct file *mediated = vma->vm_file;
	int ret;

	if (!backing->f_op->mmap)
		return -ENODEV;
	get_file(mediated);
	nvm_vma_set_file(vma, backing);
	ret = nvm_vfs_mmap(backing, vma);
	/*
	 * Kernels before 5.11 put the file mmap_region() was called with when
	 * ->mmap fails, not vma->vm_file: give the mediated file back then,
	 * or it would be put twice and the backing file never.
	 */
	if (ret && !NVM_MMAP_UNDO_PUTS_VMA_FILE)
		nvm_vma_set_file(vma, mediated);
	fput(mediated);
	return ret;
}

/**
 * nvm_drv_poll() - poll the backing file
 * @backing: file returned by nvm_drv_open()
 * @wait: the caller's poll table
 *
 * Return: the driver's event mask.
 */
__poll_t nvm_drv_poll(struct file *backing, struct poll_table_struct *wait)
{
	return vfs_poll(backing, wait);
}
