// SPDX-License-Identifier: GPL-2.0
/*
 * nvmediate: the registry of node sets: their creation and removal (their
 * device nodes are devnodes.c's); their lookup, open and mount counts; the
 * publication of their profiles; and the module parameters a new set starts
 * from.
 * Each set is a group of mediated nodes with its own profile (policy.c,
 * docs/policy.md):
 *
 *   default   /dev/nvproxy, /dev/nvproxyN, /dev/nvproxy-uvm; always there
 *   <name>    /dev/nvmediate/<name>/nvidiactl, nvidiaN, nvidia-uvm; created
 *             by the module parameter sets= or a write to
 *             /sys/kernel/nvmediate/create_set, removed by a write to
 *             /sys/kernel/nvmediate/remove_set (-EBUSY while a file of the
 *             set is open or its nodes are mounted, nodefs.c)
 *
 * Each set's profile is read and written through
 * /sys/kernel/nvmediate/sets/<name>/, whose files, and create_set and
 * remove_set, are setsfs.c's.
 *
 * A set's profile is an immutable object (policy.c), replaced whole:
 * readers hold an SRCU read lock (per-CPU counters, no shared lock on the
 * call path) for the decisions of one validation, which read no user
 * memory (validate.c copies the payload before); writers publish the new
 * object under the set's update_lock and free the old one after a grace
 * period, waited for with no lock held.
 *
 * Locking: nvm_sets_lock (a mutex) guards the table of sets, creation,
 * removal and every set's open and mount counts; it is taken at open and
 * release, at mount and unmount, never on ioctl.  A set's update_lock
 * serializes its profile writers, and the sysfs readers of its profile
 * with them; the wait for calls still deciding with the old profile comes
 * after it is released.
 */
#include <linux/ctype.h>
#include <linux/kobject.h>
#include <linux/moduleparam.h>
#include <linux/mutex.h>
#include <linux/slab.h>
#include <linux/srcu.h>
#include <linux/string.h>
#include <linux/sysfs.h>

#include "sets.h"
#include "devnodes.h"
#include "nvmediate.h"

char *nvm_sets_param = "";
module_param_named(sets, nvm_sets_param, charp, 0444);
MODULE_PARM_DESC(sets,
		 "Node sets to create at load besides the default one: name:cap+cap,name2:cap,... (caps: compute utility graphics video profiling fabric-imex rdma mig, none, all; default compute+utility)");

unsigned int nvm_num_gpus = 8;
module_param_named(num_gpus, nvm_num_gpus, uint, 0444);
MODULE_PARM_DESC(num_gpus, "Number of mediated GPU nodes /dev/nvproxy0.. (default 8, max 254)");

bool nvm_audit;
module_param_named(audit, nvm_audit, bool, 0444);
MODULE_PARM_DESC(audit,
		 "Forward the calls the validator would refuse, and log each (ratelimited) with the rule (default N: refuse)");

bool nvm_allow_root;
module_param_named(allow_root, nvm_allow_root, bool, 0444);
MODULE_PARM_DESC(allow_root,
		 "Forward the driver's administrator-only calls for callers with CAP_SYS_ADMIN (default N: refuse them with EPERM)");

bool nvm_allow_finn;
module_param_named(allow_finn, nvm_allow_finn, bool, 0444);
MODULE_PARM_DESC(allow_finn,
		 "Forward RM controls with FINN-serialized params (default N: refuse with EPERM)");

bool nvm_allow_gss;
module_param_named(allow_gss, nvm_allow_gss, bool, 0444);
MODULE_PARM_DESC(allow_gss, "Forward GSS-legacy RM controls (default N: refuse with EPERM)");

NVM_DEFINE_STATIC_SRCU(nvm_profile_srcu);
static DEFINE_MUTEX(nvm_sets_lock);
static struct nvm_set *nvm_sets[NVM_MAX_SETS];
static struct kobject *nvm_top_kobj;
static struct kobject *nvm_sets_kobj;
/* setsfs.c's, given to nvm_sets_init(). */
static NVM_KTYPE_CONST struct kobj_type *nvm_set_ktype;
static const struct attribute_group *nvm_top_group;

/* The set named @name, or NULL; under nvm_sets_lock. */
static struct nvm_set *nvm_set_named(const char *name)
{
	unsigned int i;

	lockdep_assert_held(&nvm_sets_lock);
	for (i = 0; i < NVM_MAX_SETS; i++)
		if (nvm_sets[i] && !strcmp(nvm_sets[i]->name, name))
			return nvm_sets[i];
	return NULL;
}

/**
 * nvm_set_open() - take an open reference on a set
 * @index: the set's index (minor / 256)
 *
 * Return: the set, or NULL when no set has @index.
 */
struct nvm_set *nvm_set_open(unsigned int index)
{
	struct nvm_set *set = NULL;

	if (index >= NVM_MAX_SETS)
		return NULL;
	mutex_lock(&nvm_sets_lock);
	if (nvm_sets[index]) {
		set = nvm_sets[index];
		set->nopen++;
	}
	mutex_unlock(&nvm_sets_lock);
	return set;
}

/**
 * nvm_set_close() - drop an open reference nvm_set_open() gave
 * @set: the set
 */
void nvm_set_close(struct nvm_set *set)
{
	mutex_lock(&nvm_sets_lock);
	set->nopen--;
	mutex_unlock(&nvm_sets_lock);
}

/**
 * nvm_set_mount() - take a mount reference on a set, by name
 * @name: the set's name ("default" for the default set)
 *
 * A set with a mount reference cannot be removed (-EBUSY), so that the
 * device numbers a mount hands out keep naming that set.
 *
 * Return: the set, or NULL when no set has @name.
 */
struct nvm_set *nvm_set_mount(const char *name)
{
	struct nvm_set *set;

	mutex_lock(&nvm_sets_lock);
	set = nvm_set_named(name);
	if (set)
		set->nmounts++;
	mutex_unlock(&nvm_sets_lock);
	return set;
}

/**
 * nvm_set_umount() - drop a mount reference nvm_set_mount() gave
 * @set: the set
 */
void nvm_set_umount(struct nvm_set *set)
{
	mutex_lock(&nvm_sets_lock);
	set->nmounts--;
	mutex_unlock(&nvm_sets_lock);
}

/**
 * nvm_set_release() - free a set with the last reference to its kobject
 * @kobj: the set's
 */
void nvm_set_release(struct kobject *kobj)
{
	struct nvm_set *set = to_nvm_set(kobj);

	kfree(rcu_dereference_protected(set->profile, true));
	kfree(set);
}

/*
 * a-z, 0-9, '-', '_'; not starting with '-' (a path, an option), ending
 * with a letter or digit so that "set-NAME" is a valid CDI device class.
 */
static bool nvm_set_name_ok(const char *name)
{
	size_t i, n = strlen(name);

	if (!n || n >= NVM_SET_NAME_MAX || name[0] == '-' || name[0] == '.' ||
	    !isalnum(name[n - 1]))
		return false;
	for (i = 0; i < n; i++)
		if (!islower(name[i]) && !isdigit(name[i]) && name[i] != '-' && name[i] != '_')
			return false;
	return true;
}

/* Index of the set created last but the default one; under nvm_sets_lock. */
static unsigned int nvm_set_last;

/* Create a set; nvm_sets_lock held.  Index 0 is the default set. */
static int nvm_set_create(const char *name, u32 caps)
{
	struct nvm_profile *p;
	struct nvm_set *set;
	unsigned int i;
	int ret;

	lockdep_assert_held(&nvm_sets_lock);
	if (!nvm_set_name_ok(name))
		return -EINVAL;
	if (nvm_set_named(name))
		return -EEXIST;
	/*
	 * The default set takes index 0.  The others take the first free one
	 * after the index taken last, wrapping: a removed set's device numbers
	 * go to a new set only once every other free index has been used, so
	 * that a container still holding a removed set's node (or a device
	 * cgroup rule allowing its numbers) is unlikely to find another set's
	 * profile behind them.
	 */
	if (!strcmp(name, "default")) {
		i = 0;
	} else {
		unsigned int n;

		for (n = 0; n < NVM_MAX_SETS - 1; n++) {
			i = 1 + (nvm_set_last + n) % (NVM_MAX_SETS - 1);
			if (!nvm_sets[i])
				break;
		}
		if (n == NVM_MAX_SETS - 1)
			return -ENOSPC;
		nvm_set_last = i;
	}

	set = kzalloc(sizeof(*set), GFP_KERNEL);
	p = nvm_profile_alloc(0);
	if (!set || !p) {
		kfree(set);
		kfree(p);
		return -ENOMEM;
	}
	strscpy(set->name, name, sizeof(set->name));
	set->index = i;
	mutex_init(&set->update_lock);
	nvm_record_init(&set->rec);
	p->caps = caps;
	p->audit = nvm_audit;
	p->allow_root = nvm_allow_root;
	p->allow_finn = nvm_allow_finn;
	p->allow_gss = nvm_allow_gss;
	RCU_INIT_POINTER(set->profile, p);

	ret = kobject_init_and_add(&set->kobj, nvm_set_ktype, nvm_sets_kobj, "%s", name);
	if (ret)
		goto err_kobj;
	ret = nvm_devnodes_add(set->index, set->name, nvm_num_gpus);
	if (ret)
		goto err_kobj;
	nvm_sets[i] = set;
	kobject_uevent(&set->kobj, KOBJ_ADD);
	return 0;

err_kobj:
	kobject_put(&set->kobj);
	return ret;
}

/* Remove a set; nvm_sets_lock held. */
static int nvm_set_remove(const char *name)
{
	struct nvm_set *set = nvm_set_named(name);

	lockdep_assert_held(&nvm_sets_lock);
	if (!set)
		return -ENOENT;
	if (!set->index)
		return -EPERM;
	if (set->nopen || set->nmounts)
		return -EBUSY;
	nvm_sets[set->index] = NULL;
	nvm_devnodes_del(set->index, nvm_num_gpus);
	kobject_del(&set->kobj);
	kobject_put(&set->kobj);
	return 0;
}

/* "name" or "name:caps" (caps as nvm_caps_parse() takes them). */
static int nvm_set_create_spec(char *spec)
{
	char *caps_s = strchr(spec, ':');
	u32 caps = NVM_CAP_DEFAULT;

	if (caps_s) {
		*caps_s++ = '\0';
		if (nvm_caps_parse(caps_s, &caps))
			return -EINVAL;
	}
	return nvm_set_create(spec, caps);
}

/**
 * nvm_set_add() - create a set
 * @spec: "name" or "name:caps" (caps as nvm_caps_parse() takes them);
 *	changed
 *
 * Return: 0 or a negative errno: -EINVAL (a bad name or caps), -EEXIST,
 * -ENOSPC (every index taken), -ENOMEM, or the device core's.
 */
int nvm_set_add(char *spec)
{
	int ret;

	mutex_lock(&nvm_sets_lock);
	ret = nvm_set_create_spec(spec);
	mutex_unlock(&nvm_sets_lock);
	return ret;
}

/**
 * nvm_set_del() - remove a set
 * @name: its name
 *
 * Return: 0 or a negative errno: -ENOENT (no such set), -EPERM (the
 * default set), -EBUSY (a file of the set is open or its nodes are
 * mounted).
 */
int nvm_set_del(const char *name)
{
	int ret;

	mutex_lock(&nvm_sets_lock);
	ret = nvm_set_remove(name);
	mutex_unlock(&nvm_sets_lock);
	return ret;
}

static void nvm_sets_remove_all(void)
{
	unsigned int i;

	mutex_lock(&nvm_sets_lock);
	for (i = NVM_MAX_SETS; i--;) {
		struct nvm_set *set = nvm_sets[i];

		if (!set)
			continue;
		nvm_sets[i] = NULL;
		nvm_devnodes_del(set->index, nvm_num_gpus);
		kobject_del(&set->kobj);
		kobject_put(&set->kobj);
	}
	mutex_unlock(&nvm_sets_lock);
}

/**
 * nvm_sets_init() - the default set, the sets of the module parameter, and
 * /sys/kernel/nvmediate
 * @ktype: the type of a set's directory /sys/kernel/nvmediate/sets/NAME,
 *	its files (setsfs.c); its release is nvm_set_release()
 * @top: the attributes of /sys/kernel/nvmediate, create_set and remove_set
 *	(setsfs.c)
 *
 * Return: 0 or a negative errno; nothing is left on failure.
 */
int nvm_sets_init(NVM_KTYPE_CONST struct kobj_type *ktype, const struct attribute_group *top)
{
	char *specs, *p, *spec;
	int ret;

	nvm_set_ktype = ktype;
	nvm_top_group = top;
	nvm_top_kobj = kobject_create_and_add("nvmediate", kernel_kobj);
	if (!nvm_top_kobj)
		return -ENOMEM;
	nvm_sets_kobj = kobject_create_and_add("sets", nvm_top_kobj);
	if (!nvm_sets_kobj) {
		ret = -ENOMEM;
		goto err_top;
	}
	ret = sysfs_create_group(nvm_top_kobj, nvm_top_group);
	if (ret)
		goto err_sets;

	specs = kstrdup(nvm_sets_param ?: "", GFP_KERNEL);
	if (!specs) {
		ret = -ENOMEM;
		goto err_group;
	}
	mutex_lock(&nvm_sets_lock);
	ret = nvm_set_create("default", NVM_CAP_DEFAULT);
	for (p = specs; !ret && (spec = strsep(&p, ",")) != NULL;) {
		if (!*strim(spec))
			continue;
		ret = nvm_set_create_spec(spec);
		if (ret)
			pr_err("sets=: cannot create set '%s': %d\n", spec, ret);
	}
	mutex_unlock(&nvm_sets_lock);
	kfree(specs);
	if (ret)
		goto err_group;
	return 0;

err_group:
	/*
	 * As in nvm_sets_exit(): create_set is gone (a write in progress
	 * waited for) before the sets it may have made are removed.
	 */
	sysfs_remove_group(nvm_top_kobj, nvm_top_group);
	nvm_sets_remove_all();
err_sets:
	kobject_put(nvm_sets_kobj);
err_top:
	kobject_put(nvm_top_kobj);
	return ret;
}

/**
 * nvm_sets_exit() - remove every set and /sys/kernel/nvmediate
 *
 * No file is open (each holds a reference on the module).
 */
void nvm_sets_exit(void)
{
	/* create_set and remove_set first: a write in progress is waited for. */
	sysfs_remove_group(nvm_top_kobj, nvm_top_group);
	nvm_sets_remove_all();
	kobject_put(nvm_sets_kobj);
	kobject_put(nvm_top_kobj);
}

/**
 * nvm_profile_enter() - the profile deciding a call of @nf
 * @nf: the mediated file
 * @idx: set to the SRCU read-side index for nvm_profile_exit()
 *
 * The profile stays valid until nvm_profile_exit(); the caller may sleep.
 *
 * Return: the profile of the set @nf was opened on.
 */
const struct nvm_profile *nvm_profile_enter(const struct nvm_file *nf, int *idx)
	__acquires(nvm_profile_srcu)
{
	*idx = srcu_read_lock(&nvm_profile_srcu);
	return srcu_dereference(nf->set->profile, &nvm_profile_srcu);
}

/**
 * nvm_profile_exit() - end the use of a profile nvm_profile_enter() gave
 * @idx: its index
 */
void nvm_profile_exit(int idx)
	__releases(nvm_profile_srcu)
{
	srcu_read_unlock(&nvm_profile_srcu, idx);
}

/**
 * nvm_profile_replace() - publish a new profile for a set
 * @set: the set; its update_lock is held by the caller
 * @p: the new profile, never NULL (every call of the set's files reads
 *	one); owned by the set from now on
 *
 * Calls already being validated finish with the old profile; every call
 * that starts after this returns uses @p.
 *
 * Return: the old profile, for nvm_profile_retire() once update_lock is
 * released.
 */
struct nvm_profile *nvm_profile_replace(struct nvm_set *set, struct nvm_profile *p)
{
	lockdep_assert_held(&set->update_lock);
	return rcu_replace_pointer(set->profile, p, lockdep_is_held(&set->update_lock));
}

/**
 * nvm_profile_retire() - free a replaced profile once no reader holds it
 * @old: from nvm_profile_replace(), or NULL
 *
 * Waits for the calls being validated; call it with no lock held, so that
 * no other writer waits with it.
 */
void nvm_profile_retire(struct nvm_profile *old)
{
	if (!old)
		return;
	synchronize_srcu(&nvm_profile_srcu);
	kfree(old);
}
