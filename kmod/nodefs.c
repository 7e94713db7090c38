// SPDX-License-Identifier: GPL-2.0
/*
 * nvmediate: a set's mediated nodes under the driver's own names and device
 * numbers, as a filesystem (nvmediatefs).
 *
 *   mount -t nvmediatefs -o set=NAME[,mode=0666,uid=0,gid=0] nvmediate DIR
 *
 * DIR then holds nvidiactl, nvidia0 .. nvidia<num_gpus - 1> and nvidia-uvm:
 * character devices of nvmediate's own numbers (the set's minors, those of
 * its /dev nodes), so that an open of one is an open of the set's mediated
 * node, and a device cgroup that allows the mediated node allows it.
 *
 * NVIDIA's user space (libcuda, NVML) stat()s /dev/nvidiactl, /dev/nvidiaN
 * and /dev/nvidia-uvm and refuses, or as root replaces with a raw node, one
 * whose st_rdev is not the driver's: 195:255, 195:N, and the major that
 * /proc/devices gives nvidia-uvm.  So a container's stat() of these nodes
 * tells the driver's numbers.  A process of the initial pid namespace (the
 * host, where container runtimes read a node's number to make the node
 * again or to allow it in a device cgroup), or one with CAP_SYS_ADMIN in the
 * initial user namespace (a runtime run in a privileged container), is told
 * the true number: a runtime handed one of these nodes as a device makes a
 * mediated node, never a raw one.  A container is given these nodes by a
 * bind mount (nvproxyctl cdi); see docs/design.md section 1.
 *
 * The nodes' mode, owner and group are the mount's (the driver's defaults,
 * 0666 root root, unless the mount says otherwise: nvproxyctl cdi gives the
 * set's /dev nodes'); a change of them, or of the directory's, is refused
 * unless it changes nothing, which NVIDIA's user space asks for.
 * The mount holds the set: a set whose nodes are mounted cannot be removed.
 * Only the initial user namespace's CAP_SYS_ADMIN can mount it.
 */
#include <linux/fs.h>
#include <linux/fs_context.h>
#include <linux/fs_parser.h>
#include <linux/module.h>
#include <linux/namei.h>
#include <linux/pid_namespace.h>
#include <linux/seq_file.h>
#include <linux/capability.h>
#include <linux/slab.h>
#include <linux/stat.h>

#include "nodefs.h"
#include "driver.h"
#include "node.h"
#include "sets.h"
#include "nvmediate.h"

#define NVM_NODEFS_MAGIC	0x6e766e64	/* "nvnd" */

static dev_t nvm_nodefs_devt;

/**
 * struct nvm_nodefs_attrs - the nodes' attributes, a mount's options
 * @mode: permission bits of the nodes
 * @uid: their owner
 * @gid: their group
 */
struct nvm_nodefs_attrs {
	umode_t mode;
	kuid_t uid;
	kgid_t gid;
};

/**
 * struct nvm_nodefs_opts - a mount's options, as parsed
 * @set: the node set's name
 * @attrs: the nodes' attributes
 */
struct nvm_nodefs_opts {
	char set[NVM_SET_NAME_MAX];
	struct nvm_nodefs_attrs attrs;
};

enum { NVM_OPT_SET, NVM_OPT_MODE, NVM_OPT_UID, NVM_OPT_GID };

static const struct fs_parameter_spec nvm_nodefs_params[] = {
	fsparam_string("set", NVM_OPT_SET),
	fsparam_u32oct("mode", NVM_OPT_MODE),
	fsparam_u32("uid", NVM_OPT_UID),
	fsparam_u32("gid", NVM_OPT_GID),
	{}
};

/*
 * Is the caller one that is told the true number?  A process of the initial
 * pid namespace (the host), and one with CAP_SYS_ADMIN in the initial user
 * namespace wherever it runs: a container runtime, or a privileged
 * container that runs one (a kind node, Docker in Docker), reads a node's
 * number to make the node again or to allow it in a device cgroup, and must
 * make a mediated node of it, never the driver's.  A container given its
 * GPU as the CDI spec does it has neither.
 */
static bool nvm_nodefs_host_view(void)
{
	return task_active_pid_ns(current) == &init_pid_ns ||
	       nvm_capable_noaudit(CAP_SYS_ADMIN);
}

static int nvm_nodefs_getattr(NVM_IOP_IDMAP const struct path *path, struct kstat *stat,
			      u32 request_mask, unsigned int query_flags)
{
	struct inode *inode = d_inode(path->dentry);
	enum nvm_kind kind;
	unsigned int gpu;
	dev_t devt;

	nvm_generic_fillattr(request_mask, inode, stat);
	if (!S_ISCHR(inode->i_mode) || nvm_nodefs_host_view())
		return 0;
	/*
	 * Without a UVM node on the host there is no number to tell (nor an
	 * nvidia-uvm line in /proc/devices): the true one stays.
	 */
	if (!nvm_minor_kind(MINOR(inode->i_rdev), &kind, &gpu) && !nvm_drv_devt(kind, gpu, &devt))
		stat->rdev = devt;
	return 0;
}

static int nvm_nodefs_setattr(NVM_IOP_IDMAP struct dentry *dentry, struct iattr *attr)
{
	struct inode *inode = d_inode(dentry);

	if ((attr->ia_valid & ATTR_MODE) &&
	    (attr->ia_mode & S_IALLUGO) != (inode->i_mode & S_IALLUGO))
		return -EPERM;
	if ((attr->ia_valid & ATTR_UID) && !uid_eq(attr->ia_uid, inode->i_uid))
		return -EPERM;
	if ((attr->ia_valid & ATTR_GID) && !gid_eq(attr->ia_gid, inode->i_gid))
		return -EPERM;
	if (attr->ia_valid & ATTR_SIZE)
		return -EPERM;
	return 0;	/* times: the nodes keep those of their mount */
}

static const struct inode_operations nvm_nodefs_node_iops = {
	.getattr	= nvm_nodefs_getattr,
	.setattr	= nvm_nodefs_setattr,
};

/**
 * struct nvm_nodefs_sb - a mount: the set and the nodes' attributes
 * @set: the node set, held (nvm_set_mount())
 * @attrs: the nodes' attributes
 */
struct nvm_nodefs_sb {
	struct nvm_set *set;
	struct nvm_nodefs_attrs attrs;
};

/*
 * The root lists nvidiactl, nvidia-uvm, nvidia0 .. nvidia<num_gpus - 1>:
 * entry n, inode number n + 2.  Their inodes are made at lookup (the
 * dcache keeps them, and one made again is the same), so that the
 * superblock pins no dentry of its own.
 */
#define NVM_NODEFS_CTL		0
#define NVM_NODEFS_UVM		1
#define NVM_NODEFS_GPU0		2
#define NVM_NODEFS_INO0		2

static unsigned int nvm_nodefs_count(void)
{
	return NVM_NODEFS_GPU0 + nvm_num_gpus;
}

static void nvm_nodefs_name(unsigned int n, char *buf, size_t len)
{
	if (n == NVM_NODEFS_CTL)
		strscpy(buf, "nvidiactl", len);
	else if (n == NVM_NODEFS_UVM)
		strscpy(buf, "nvidia-uvm", len);
	else
		snprintf(buf, len, "nvidia%u", n - NVM_NODEFS_GPU0);
}

/* The entry named @name, or -1. */
static int nvm_nodefs_find(const struct qstr *name)
{
	char buf[24];
	unsigned int n;

	for (n = 0; n < nvm_nodefs_count(); n++) {
		nvm_nodefs_name(n, buf, sizeof(buf));
		if (name->len == strlen(buf) && !memcmp(name->name, buf, name->len))
			return n;
	}
	return -1;
}

static struct inode *nvm_nodefs_node(struct super_block *sb, unsigned int n)
{
	const struct nvm_nodefs_sb *fs = sb->s_fs_info;
	unsigned int minor = fs->set->index * NVM_MINORS;
	struct inode *inode;

	if (n == NVM_NODEFS_CTL)
		minor += NVM_MINOR_CTL;
	else if (n == NVM_NODEFS_UVM)
		minor += NVM_MINOR_UVM;
	else
		minor += n - NVM_NODEFS_GPU0;
	inode = new_inode(sb);
	if (!inode)
		return ERR_PTR(-ENOMEM);
	inode->i_ino = NVM_NODEFS_INO0 + n;
	init_special_inode(inode, S_IFCHR | fs->attrs.mode, MKDEV(MAJOR(nvm_nodefs_devt), minor));
	inode->i_op = &nvm_nodefs_node_iops;
	inode->i_uid = fs->attrs.uid;
	inode->i_gid = fs->attrs.gid;
	nvm_inode_init_ts(inode);
	return inode;
}

static struct dentry *nvm_nodefs_lookup(struct inode *dir, struct dentry *dentry,
					unsigned int flags)
{
	int n = nvm_nodefs_find(&dentry->d_name);
	struct inode *inode = NULL;

	if (n >= 0) {
		inode = nvm_nodefs_node(dir->i_sb, n);
		if (IS_ERR(inode))
			return ERR_CAST(inode);
	}
	return d_splice_alias(inode, dentry);
}

static int nvm_nodefs_readdir(struct file *file, struct dir_context *ctx)
{
	char name[24];

	if (!dir_emit_dots(file, ctx))
		return 0;
	for (; ctx->pos < 2 + nvm_nodefs_count(); ctx->pos++) {
		unsigned int n = ctx->pos - 2;

		nvm_nodefs_name(n, name, sizeof(name));
		if (!dir_emit(ctx, name, strlen(name), NVM_NODEFS_INO0 + n, DT_CHR))
			return 0;
	}
	return 0;
}

static const struct inode_operations nvm_nodefs_dir_iops = {
	.lookup		= nvm_nodefs_lookup,
	.setattr	= nvm_nodefs_setattr,
};

static const struct file_operations nvm_nodefs_dir_fops = {
	.read		= generic_read_dir,
	.iterate_shared	= nvm_nodefs_readdir,
	.llseek		= generic_file_llseek,
};

/* The options in /proc/mounts, so that a mount's set can be told. */
static int nvm_nodefs_show_options(struct seq_file *m, struct dentry *root)
{
	const struct nvm_nodefs_sb *fs = root->d_sb->s_fs_info;
	const struct nvm_nodefs_attrs *a = &fs->attrs;

	seq_printf(m, ",set=%s,mode=%04o", fs->set->name, a->mode);
	if (!uid_eq(a->uid, GLOBAL_ROOT_UID))
		seq_printf(m, ",uid=%u", from_kuid_munged(&init_user_ns, a->uid));
	if (!gid_eq(a->gid, GLOBAL_ROOT_GID))
		seq_printf(m, ",gid=%u", from_kgid_munged(&init_user_ns, a->gid));
	return 0;
}

static const struct super_operations nvm_nodefs_sops = {
	.statfs		= simple_statfs,
	.drop_inode	= nvm_inode_just_drop,
	.show_options	= nvm_nodefs_show_options,
};

static int nvm_nodefs_fill_super(struct super_block *sb, struct fs_context *fc)
{
	struct inode *root;

	sb->s_magic = NVM_NODEFS_MAGIC;
	sb->s_op = &nvm_nodefs_sops;
	sb->s_time_gran = 1;
	sb->s_iflags |= SB_I_NOEXEC;

	root = new_inode(sb);
	if (!root)
		return -ENOMEM;
	root->i_ino = 1;
	root->i_mode = S_IFDIR | 0755;
	root->i_op = &nvm_nodefs_dir_iops;
	root->i_fop = &nvm_nodefs_dir_fops;
	set_nlink(root, 2);
	nvm_inode_init_ts(root);
	sb->s_root = d_make_root(root);
	return sb->s_root ? 0 : -ENOMEM;
}

static int nvm_nodefs_get_tree(struct fs_context *fc)
{
	const struct nvm_nodefs_opts *o = fc->fs_private;
	struct nvm_nodefs_sb *fs;
	int ret;

	fs = kzalloc(sizeof(*fs), GFP_KERNEL);
	if (!fs)
		return -ENOMEM;
	fs->set = nvm_set_mount(o->set);
	if (!fs->set) {
		kfree(fs);
		return invalf(fc, "nvmediatefs: no node set '%s' (/sys/kernel/nvmediate/sets)", o->set);
	}
	fs->attrs = o->attrs;
	/*
	 * The set goes with the superblock, which gives it back at kill_sb;
	 * until a superblock has it, it is ours to give back.
	 */
	fc->s_fs_info = fs;
	ret = get_tree_nodev(fc, nvm_nodefs_fill_super);
	if (fc->s_fs_info) {	/* no superblock took it */
		nvm_set_umount(fs->set);
		kfree(fs);
		fc->s_fs_info = NULL;
	}
	return ret;
}

static int nvm_nodefs_parse_param(struct fs_context *fc, struct fs_parameter *param)
{
	struct nvm_nodefs_opts *o = fc->fs_private;
	struct fs_parse_result result;
	int opt;

	opt = fs_parse(fc, nvm_nodefs_params, param, &result);
	if (opt < 0)
		return opt;
	switch (opt) {
	case NVM_OPT_SET:
		if (strscpy(o->set, param->string, sizeof(o->set)) < 0)
			return invalf(fc, "nvmediatefs: set name too long");
		break;
	case NVM_OPT_MODE:
		if (result.uint_32 & ~0777u)
			return invalf(fc, "nvmediatefs: mode takes permission bits only");
		o->attrs.mode = result.uint_32;
		break;
	case NVM_OPT_UID:
		o->attrs.uid = make_kuid(fc->user_ns, result.uint_32);
		if (!uid_valid(o->attrs.uid))
			return invalf(fc, "nvmediatefs: uid %u is not mapped", result.uint_32);
		break;
	case NVM_OPT_GID:
		o->attrs.gid = make_kgid(fc->user_ns, result.uint_32);
		if (!gid_valid(o->attrs.gid))
			return invalf(fc, "nvmediatefs: gid %u is not mapped", result.uint_32);
		break;
	}
	return 0;
}

static void nvm_nodefs_free_fc(struct fs_context *fc)
{
	kfree(fc->fs_private);
}

static const struct fs_context_operations nvm_nodefs_context_ops = {
	.parse_param	= nvm_nodefs_parse_param,
	.get_tree	= nvm_nodefs_get_tree,
	.free		= nvm_nodefs_free_fc,
};

static int nvm_nodefs_init_fs_context(struct fs_context *fc)
{
	struct nvm_nodefs_opts *o = kzalloc(sizeof(*o), GFP_KERNEL);

	if (!o)
		return -ENOMEM;
	strscpy(o->set, "default", sizeof(o->set));
	o->attrs.mode = 0666;
	o->attrs.uid = GLOBAL_ROOT_UID;
	o->attrs.gid = GLOBAL_ROOT_GID;
	fc->fs_private = o;
	fc->ops = &nvm_nodefs_context_ops;
	return 0;
}

static void nvm_nodefs_kill_sb(struct super_block *sb)
{
	struct nvm_nodefs_sb *fs = sb->s_fs_info;

	kill_anon_super(sb);
	if (fs) {
		nvm_set_umount(fs->set);
		kfree(fs);
	}
}

static struct file_system_type nvm_nodefs_type = {
	.owner			= THIS_MODULE,
	.name			= "nvmediatefs",
	.init_fs_context	= nvm_nodefs_init_fs_context,
	.parameters		= nvm_nodefs_params,
	.kill_sb		= nvm_nodefs_kill_sb,
};

/**
 * nvm_nodefs_init() - register nvmediatefs
 * @devt: the first of nvmediate's device numbers (node.c)
 *
 * Return: 0 or a negative errno.
 */
int nvm_nodefs_init(dev_t devt)
{
	nvm_nodefs_devt = devt;
	return register_filesystem(&nvm_nodefs_type);
}

/* Undo nvm_nodefs_init(); a mount holds the module, so none is left. */
void nvm_nodefs_exit(void)
{
	unregister_filesystem(&nvm_nodefs_type);
}
