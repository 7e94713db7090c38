/* SPDX-License-Identifier: GPL-2.0 */
/*
 * nvmediate: the registry of node sets: their creation and removal, lookup,
 * counts and profiles (sets.c; their device nodes are devnodes.c's, their
 * sysfs files setsfs.c's).
 */
#ifndef NVM_SETS_H
#define NVM_SETS_H

#include <linux/atomic.h>
#include <linux/kobject.h>
#include <linux/mutex.h>
#include <linux/rcupdate.h>
#include <linux/sysfs.h>
#include "policy.h"

#include "devnodes.h"

#define NVM_SET_NAME_MAX	32

/**
 * struct nvm_set - a set of mediated nodes with its own profile
 * @name: "default" for /dev/nvproxy*, else the name under /dev/nvmediate/
 * @index: minors index * 256 + (0 .. 255)
 * @profile: the profile, replaced whole (RCU, SRCU readers)
 * @update_lock: serializes profile writers (and the sysfs readers of the
 *	profile with them)
 * @nopen: files open on the set (changed under the sets lock, sets.c;
 *	read without it by open_files)
 * @nmounts: mounts of the set's nodes at the driver's numbers (nodefs.c;
 *	under the sets lock)
 * @kobj: /sys/kernel/nvmediate/sets/@name
 * @rec: the audit record
 * @nomax_charged: what the driver allocates at once for the set's calls in
 *	flight that carry lists it sizes by the caller's count alone (handoff.c)
 */
struct nvm_set {
	char name[NVM_SET_NAME_MAX];
	unsigned int index;
	struct nvm_profile __rcu *profile;
	struct mutex update_lock;
	unsigned int nopen;
	unsigned int nmounts;
	struct kobject kobj;
	struct nvm_record rec;
	atomic64_t nomax_charged;
};

#define to_nvm_set(k) container_of(k, struct nvm_set, kobj)

int nvm_sets_init(NVM_KTYPE_CONST struct kobj_type *ktype, const struct attribute_group *top);
void nvm_sets_exit(void);
int nvm_set_add(char *spec);
int nvm_set_del(const char *name);
void nvm_set_release(struct kobject *kobj);
struct nvm_set *nvm_set_open(unsigned int index);
void nvm_set_close(struct nvm_set *set);
struct nvm_set *nvm_set_mount(const char *name);
void nvm_set_umount(struct nvm_set *set);
extern char *nvm_sets_param;

const struct nvm_profile *nvm_profile_enter(const struct nvm_file *nf, int *idx)
	__acquires(nvm_profile_srcu);
void nvm_profile_exit(int idx) __releases(nvm_profile_srcu);
struct nvm_profile *nvm_profile_replace(struct nvm_set *set, struct nvm_profile *p);
void nvm_profile_retire(struct nvm_profile *old);

/* Module parameters (sets.c). */
extern unsigned int nvm_num_gpus;
extern bool nvm_allow_root;
extern bool nvm_allow_finn;
extern bool nvm_allow_gss;
extern bool nvm_audit;

#endif /* NVM_SETS_H */
