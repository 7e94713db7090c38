// SPDX-License-Identifier: GPL-2.0
/*
 * nvmediate: the node sets' sysfs files, /sys/kernel/nvmediate, through
 * which an administrator makes and removes sets and reads and edits their
 * profiles (docs/policy.md).  The sets themselves are sets.c's.
 *
 *   create_set, remove_set     write "name", "name:caps" or "name caps" to
 *                              make a set, its name to remove it
 *   sets/<name>/               caps, allow, audit, allow_root, allow_finn,
 *                              allow_gss, nvidia_caps, imex_channels
 *                              (writable), profile (all of it, in
 *                              the format nvproxyctl apply takes), refused
 *                              (the audit record; a write empties it),
 *                              open_files
 *
 * A write to a set's file builds a new profile from the set's, changed by
 * that write, and publishes it whole (nvm_profile_replace()); the set's
 * update_lock serializes these writers, and the readers of its profile
 * with them.  The old profile is freed once no call decides by it any
 * more, waited for with no lock held (nvm_profile_retire()).
 */
#include <linux/kernel.h>
#include <linux/kobject.h>
#include <linux/mm.h>		/* kvmalloc() before 5.16 */
#include <linux/mutex.h>
#include <linux/rcupdate.h>
#include <linux/slab.h>
#include <linux/string.h>
#include <linux/sysfs.h>

#include "setsfs.h"
#include "policy.h"
#include "sets.h"

/* The set's profile, for a writer or a sysfs reader holding its update_lock. */
static const struct nvm_profile *nvm_set_profile(struct nvm_set *set)
{
	lockdep_assert_held(&set->update_lock);
	return rcu_dereference_protected(set->profile, lockdep_is_held(&set->update_lock));
}

/* A copy of the set's profile for a writer to change and publish. */
static struct nvm_profile *nvm_profile_dup(const struct nvm_profile *old)
{
	struct nvm_profile *p = nvm_profile_alloc(old->nallow);

	if (!p)
		return NULL;
	memcpy(p, old, struct_size(old, allow, old->nallow));
	return p;
}

/*
 * The lists (allow entries, the whole profile, the audit record) can be
 * longer than a page: they are bin attributes, rendered whole into a
 * buffer and read by window.  The largest: NVM_ALLOW_MAX lines of
 * "allow alloc 0xffffffff\n" and the knobs.
 */
#define NVM_LINE_MAX	48
#define NVM_TEXT_MAX	((NVM_ALLOW_MAX + NVM_REC_MAX + NVM_FDNODES_MAX + 8) * NVM_LINE_MAX)

static size_t nvm_render_allow(const struct nvm_profile *p, char *buf, size_t size,
			       const char *prefix)
{
	size_t n = 0;
	unsigned int i;

	for (i = 0; i < p->nallow; i++)
		n += scnprintf(buf + n, size - n, "%s%s 0x%x\n", prefix,
			       nvm_family_name(p->allow[i] >> 32), (u32)p->allow[i]);
	return n;
}

static size_t nvm_render_profile(const struct nvm_profile *p, char *buf, size_t size)
{
	char caps[96];
	size_t n;

	nvm_caps_format(p->caps, caps, sizeof(caps));
	n = scnprintf(buf, size, "caps %s\naudit %d\nallow_root %d\nallow_finn %d\nallow_gss %d\n",
		      caps, p->audit, p->allow_root, p->allow_finn, p->allow_gss);
	n += nvm_fdnodes_format(p, NVM_FDNODE_CAP, "nvidia_cap ", buf + n, size - n);
	n += nvm_fdnodes_format(p, NVM_FDNODE_IMEX, "imex_channel ", buf + n, size - n);
	return n + nvm_render_allow(p, buf + n, size - n, "allow ");
}

static size_t nvm_render_record(struct nvm_record *r, char *buf, size_t size)
{
	unsigned long flags;
	unsigned int i;
	size_t n = 0;

	spin_lock_irqsave(&r->lock, flags);
	for (i = 0; i < r->n; i++)
		n += scnprintf(buf + n, size - n, "%s 0x%x %s %lu\n",
			       nvm_family_name(r->ent[i].family), r->ent[i].id, r->ent[i].rule,
			       r->ent[i].count);
	if (r->dropped)
		n += scnprintf(buf + n, size - n, "# dropped %lu\n", r->dropped);
	spin_unlock_irqrestore(&r->lock, flags);
	return n;
}

enum nvm_text { NVM_T_ALLOW, NVM_T_PROFILE, NVM_T_REFUSED };

/* Render one list of @set and copy the window [@off, @off + @count) of it. */
static ssize_t nvm_text_read(struct nvm_set *set, enum nvm_text what, char *buf, loff_t off,
			     size_t count)
{
	char *text = kvmalloc(NVM_TEXT_MAX, GFP_KERNEL);
	size_t len;

	if (!text)
		return -ENOMEM;
	if (what == NVM_T_REFUSED) {
		len = nvm_render_record(&set->rec, text, NVM_TEXT_MAX);
	} else {
		mutex_lock(&set->update_lock);
		if (what == NVM_T_ALLOW)
			len = nvm_render_allow(nvm_set_profile(set), text, NVM_TEXT_MAX, "");
		else
			len = nvm_render_profile(nvm_set_profile(set), text, NVM_TEXT_MAX);
		mutex_unlock(&set->update_lock);
	}
	if (off >= len) {
		count = 0;
	} else {
		count = min_t(size_t, count, len - off);
		memcpy(buf, text + off, count);
	}
	kvfree(text);
	return count;
}

enum nvm_attr_field {
	NVM_A_CAPS, NVM_A_ALLOW, NVM_A_AUDIT, NVM_A_ROOT, NVM_A_FINN, NVM_A_GSS,
	NVM_A_CAP_NODES, NVM_A_IMEX_NODES,
};

struct nvm_set_attr {
	struct kobj_attribute attr;
	enum nvm_attr_field field;
};

static ssize_t nvm_set_attr_show(struct kobject *kobj, struct kobj_attribute *attr, char *buf)
{
	struct nvm_set_attr *a = container_of(attr, struct nvm_set_attr, attr);
	struct nvm_set *set = to_nvm_set(kobj);
	const struct nvm_profile *p;
	ssize_t n = 0;

	mutex_lock(&set->update_lock);
	p = nvm_set_profile(set);
	switch (a->field) {
	case NVM_A_CAPS:
		n = nvm_caps_format(p->caps, buf, PAGE_SIZE - 1);
		n += sysfs_emit_at(buf, n, "\n");
		break;
	case NVM_A_ALLOW:
		break;
	case NVM_A_AUDIT:
		n = sysfs_emit(buf, "%d\n", p->audit);
		break;
	case NVM_A_ROOT:
		n = sysfs_emit(buf, "%d\n", p->allow_root);
		break;
	case NVM_A_FINN:
		n = sysfs_emit(buf, "%d\n", p->allow_finn);
		break;
	case NVM_A_GSS:
		n = sysfs_emit(buf, "%d\n", p->allow_gss);
		break;
	case NVM_A_CAP_NODES:
		n = nvm_fdnodes_format(p, NVM_FDNODE_CAP, "", buf, PAGE_SIZE);
		break;
	case NVM_A_IMEX_NODES:
		n = nvm_fdnodes_format(p, NVM_FDNODE_IMEX, "", buf, PAGE_SIZE);
		break;
	}
	mutex_unlock(&set->update_lock);
	return n;
}

/* Build a new profile from the set's, changed by one write, and publish it. */
static ssize_t nvm_set_write(struct nvm_set *set, enum nvm_attr_field field, const char *buf,
			     size_t count)
{
	struct nvm_profile *p, *old = NULL;
	bool flag = false;
	u32 caps = 0;
	int ret = 0;

	if (field == NVM_A_CAPS)
		ret = nvm_caps_parse(buf, &caps);
	else if (field != NVM_A_ALLOW && field != NVM_A_CAP_NODES && field != NVM_A_IMEX_NODES)
		ret = kstrtobool(buf, &flag);
	if (ret)
		return -EINVAL;

	mutex_lock(&set->update_lock);
	if (field == NVM_A_ALLOW)
		p = nvm_profile_edit_allow(nvm_set_profile(set), buf);
	else
		p = nvm_profile_dup(nvm_set_profile(set)) ?: ERR_PTR(-ENOMEM);
	if (IS_ERR(p)) {
		ret = PTR_ERR(p);
		goto out;
	}
	switch (field) {
	case NVM_A_CAPS:
		p->caps = caps;
		break;
	case NVM_A_AUDIT:
		p->audit = flag;
		break;
	case NVM_A_ROOT:
		p->allow_root = flag;
		break;
	case NVM_A_FINN:
		p->allow_finn = flag;
		break;
	case NVM_A_GSS:
		p->allow_gss = flag;
		break;
	case NVM_A_CAP_NODES:
	case NVM_A_IMEX_NODES:
		ret = nvm_fdnodes_parse(p, field == NVM_A_CAP_NODES ? NVM_FDNODE_CAP :
					NVM_FDNODE_IMEX, buf);
		if (ret) {
			kfree(p);
			goto out;
		}
		break;
	default:
		break;
	}
	old = nvm_profile_replace(set, p);
out:
	mutex_unlock(&set->update_lock);
	nvm_profile_retire(old);
	return ret ?: count;
}

static ssize_t nvm_set_attr_store(struct kobject *kobj, struct kobj_attribute *attr,
				  const char *buf, size_t count)
{
	struct nvm_set_attr *a = container_of(attr, struct nvm_set_attr, attr);

	return nvm_set_write(to_nvm_set(kobj), a->field, buf, count);
}

#define NVM_SET_ATTR(_name, _field, _mode)						\
	static struct nvm_set_attr nvm_set_attr_##_name = {				\
		.attr = __ATTR(_name, _mode, nvm_set_attr_show, nvm_set_attr_store),	\
		.field = _field,							\
	}

NVM_SET_ATTR(caps, NVM_A_CAPS, 0644);
NVM_SET_ATTR(audit, NVM_A_AUDIT, 0644);
NVM_SET_ATTR(allow_root, NVM_A_ROOT, 0644);
NVM_SET_ATTR(allow_finn, NVM_A_FINN, 0644);
NVM_SET_ATTR(allow_gss, NVM_A_GSS, 0644);
NVM_SET_ATTR(nvidia_caps, NVM_A_CAP_NODES, 0644);
NVM_SET_ATTR(imex_channels, NVM_A_IMEX_NODES, 0644);

static ssize_t allow_read(struct file *file, struct kobject *kobj,
			  NVM_BIN_ATTR_CONST struct bin_attribute *attr,
			  char *buf, loff_t off, size_t count)
{
	return nvm_text_read(to_nvm_set(kobj), NVM_T_ALLOW, buf, off, count);
}

/* Each write() is one edit (kernfs hands a write of up to a page at once). */
static ssize_t allow_write(struct file *file, struct kobject *kobj,
			   NVM_BIN_ATTR_CONST struct bin_attribute *attr,
			   char *buf, loff_t off, size_t count)
{
	char *text = kmemdup_nul(buf, count, GFP_KERNEL);
	ssize_t ret;

	if (!text)
		return -ENOMEM;
	ret = nvm_set_write(to_nvm_set(kobj), NVM_A_ALLOW, text, count);
	kfree(text);
	return ret;
}

static ssize_t profile_read(struct file *file, struct kobject *kobj,
			    NVM_BIN_ATTR_CONST struct bin_attribute *attr,
			    char *buf, loff_t off, size_t count)
{
	return nvm_text_read(to_nvm_set(kobj), NVM_T_PROFILE, buf, off, count);
}

static ssize_t refused_read(struct file *file, struct kobject *kobj,
			    NVM_BIN_ATTR_CONST struct bin_attribute *attr,
			    char *buf, loff_t off, size_t count)
{
	return nvm_text_read(to_nvm_set(kobj), NVM_T_REFUSED, buf, off, count);
}

static ssize_t refused_write(struct file *file, struct kobject *kobj,
			     NVM_BIN_ATTR_CONST struct bin_attribute *attr,
			     char *buf, loff_t off, size_t count)
{
	nvm_record_clear(&to_nvm_set(kobj)->rec);
	return count;
}

static BIN_ATTR_RW(allow, 0);
static BIN_ATTR_RO(profile, 0);
static BIN_ATTR_RW(refused, 0);

static NVM_BIN_ATTR_CONST struct bin_attribute *NVM_BIN_ATTR_CONST nvm_set_bin_attrs[] = {
	&bin_attr_allow,
	&bin_attr_profile,
	&bin_attr_refused,
	NULL
};

static ssize_t open_files_show(struct kobject *kobj, struct kobj_attribute *attr, char *buf)
{
	return sysfs_emit(buf, "%u\n", READ_ONCE(to_nvm_set(kobj)->nopen));
}

static struct kobj_attribute nvm_set_attr_open_files = __ATTR_RO(open_files);

static struct attribute *nvm_set_attrs[] = {
	&nvm_set_attr_caps.attr.attr,
	&nvm_set_attr_audit.attr.attr,
	&nvm_set_attr_allow_root.attr.attr,
	&nvm_set_attr_allow_finn.attr.attr,
	&nvm_set_attr_allow_gss.attr.attr,
	&nvm_set_attr_nvidia_caps.attr.attr,
	&nvm_set_attr_imex_channels.attr.attr,
	&nvm_set_attr_open_files.attr,
	NULL
};

static const struct attribute_group nvm_set_group = {
	.attrs = nvm_set_attrs,
	.bin_attrs = nvm_set_bin_attrs,
};

static const struct attribute_group *nvm_set_groups[] = {
	&nvm_set_group,
	NULL
};

/*
 * A set's directory, /sys/kernel/nvmediate/sets/<name> (nvm_sets_init()):
 * its files, and the set freed with its last reference.
 */
NVM_KTYPE_CONST struct kobj_type nvm_setsfs_ktype = {
	.release = nvm_set_release,
	.sysfs_ops = &kobj_sysfs_ops,
	.default_groups = nvm_set_groups,
};

static ssize_t create_set_store(struct kobject *kobj, struct kobj_attribute *attr,
				const char *buf, size_t count)
{
	char *spec = kstrndup(buf, count, GFP_KERNEL);
	int ret;

	if (!spec)
		return -ENOMEM;
	strim(spec);
	/* "name caps..." is taken as well as "name:caps". */
	if (strchr(spec, ' ') && !strchr(spec, ':'))
		*strchr(spec, ' ') = ':';
	ret = nvm_set_add(spec);
	kfree(spec);
	return ret ?: count;
}

static ssize_t remove_set_store(struct kobject *kobj, struct kobj_attribute *attr,
				const char *buf, size_t count)
{
	char name[NVM_SET_NAME_MAX];
	int ret;

	if (count >= sizeof(name))
		return -EINVAL;
	memcpy(name, buf, count);
	name[count] = '\0';
	strim(name);
	ret = nvm_set_del(strim(name));
	return ret ?: count;
}

static struct kobj_attribute nvm_attr_create_set = __ATTR_WO(create_set);
static struct kobj_attribute nvm_attr_remove_set = __ATTR_WO(remove_set);

static struct attribute *nvm_top_attrs[] = {
	&nvm_attr_create_set.attr,
	&nvm_attr_remove_set.attr,
	NULL
};

/* /sys/kernel/nvmediate (nvm_sets_init()). */
const struct attribute_group nvm_setsfs_top_group = {
	.attrs = nvm_top_attrs,
};

