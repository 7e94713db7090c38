// SPDX-License-Identifier: GPL-2.0
/*
 * nvmediate: which ABI descriptor serves the host's driver.  What each
 * descriptor holds is read through tables.c.
 *
 * At load, the generated tables (abi/generated/) become a tree of closed
 * version ranges.  At every open of a mediated node, the version of the
 * driver behind the backing file is detected and looked up; the mediated
 * file keeps the range it was opened with for its whole life, so a driver
 * reloaded at another version serves new opens with the new range while
 * old files finish with the old one.
 *
 * Detection never trusts the caller:
 *   1. the MODULE_VERSION of the module that owns the backing file, which
 *      nvmediate holds a reference on (nvidia.ko sets it in every release;
 *      nvidia-uvm.ko from 520);
 *   2. else the first line of the host's /proc/driver/nvidia/version,
 *      read from the root of the initial pid namespace's init;
 *   3. the module parameter force_version replaces both.
 *
 * Lock rules: the tree is built in nvm_abi_init() before the nodes exist
 * and is read without locks.  nvm_abi_state is protected by nvm_abi_lock.
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/device.h>
#include <linux/module.h>
#include <linux/moduleparam.h>
#include <linux/slab.h>
#include <linux/spinlock.h>
#include <linux/string.h>

#include "abi.h"
#include "driver.h"
#include "version.h"
#include "nvabi_tables.h"

/**
 * nvm_abi_of() - the ABI number of a range
 * @range: a range of the tree, or NULL
 *
 * Return: its ABI number; 0 for NULL.
 */
unsigned int nvm_abi_of(const struct nvm_range *range)
{
	const struct nvabi_range *r = range ? range->abi : NULL;

	return r ? r->abi : 0;
}

static struct nvm_range_tree nvm_abi_tree = { RB_ROOT };
static struct nvm_range *nvm_abi_ranges;
static u64 *nvm_abi_release_keys;

char *nvm_force_version = "";
module_param_named(force_version, nvm_force_version, charp, 0444);
MODULE_PARM_DESC(force_version,
		 "Treat the host driver as this version instead of the detected one, e.g. 570.86.15 (default: detect)");

bool nvm_accept_outside;
module_param_named(accept_outside, nvm_accept_outside, bool, 0444);
MODULE_PARM_DESC(accept_outside,
		 "Serve a driver whose version is outside every known ABI range with the nearest lower range, at the administrator's risk (default N: refuse)");

/* What the last open found; shown in sysfs, and said once in the log. */
static DEFINE_SPINLOCK(nvm_abi_lock);
static struct {
	bool valid;
	u64 key;
	enum nvm_tier tier;
	bool accepted;
	const struct nvm_range *range;
	char version[NVM_VERSION_STR_MAX];
	const char *source;
	char modver[NVM_VERSION_STR_MAX];
	bool outside_ok;
} nvm_abi_state;

static u64 nvm_force_key;

static u64 nvm_abi_parse_key(const char *s)
{
	struct nvm_version v;

	if (nvm_version_parse(s, &v))
		return U64_MAX;
	return nvm_version_key(&v);
}

/**
 * nvm_abi_init() - build the version-range tree from the generated tables
 *
 * The versions are re-parsed from the names the tables carry, with the
 * same parser that reads the driver's version, so that the tree and the
 * detected version cannot disagree on ordering.
 *
 * Return: 0, -EINVAL if the tables are inconsistent (an unparsable version,
 * a release outside its range, overlapping ranges), -ENOMEM.
 */
int nvm_abi_init(void)
{
	unsigned int i, nrel[NVABI_NR_RANGES] = { };
	u64 *keys;
	int ret;

	if (nvm_force_version && *nvm_force_version) {
		nvm_force_key = nvm_abi_parse_key(nvm_force_version);
		if (nvm_force_key == U64_MAX) {
			pr_err("force_version=%s is not a driver version (e.g. 570.86.15); correct or remove it (/etc/modprobe.d/nvmediate.conf)\n",
			       nvm_force_version);
			return -EINVAL;
		}
	}

	nvm_abi_ranges = kcalloc(NVABI_NR_RANGES, sizeof(*nvm_abi_ranges), GFP_KERNEL);
	nvm_abi_release_keys = kcalloc(NVABI_NR_RELEASES, sizeof(u64), GFP_KERNEL);
	if (!nvm_abi_ranges || !nvm_abi_release_keys) {
		ret = -ENOMEM;
		goto err_free;
	}

	/* Releases are listed in version order; give each range its slice. */
	keys = nvm_abi_release_keys;
	for (i = 0; i < NVABI_NR_RANGES; i++) {
		nvm_abi_ranges[i].releases = keys;
		keys += nvabi_ranges[i].releases;
	}
	for (i = 0; i < NVABI_NR_RELEASES; i++) {
		const struct nvabi_release *rel = &nvabi_releases[i];
		struct nvm_range *r;
		u64 key = nvm_abi_parse_key(rel->name);

		if (rel->range >= NVABI_NR_RANGES ||
		    nrel[rel->range] >= nvabi_ranges[rel->range].releases || key == U64_MAX)
			goto err_table;
		r = &nvm_abi_ranges[rel->range];
		if (nrel[rel->range] && key <= r->releases[nrel[rel->range] - 1])
			goto err_table;
		((u64 *)r->releases)[nrel[rel->range]++] = key;
	}

	for (i = 0; i < NVABI_NR_RANGES; i++) {
		struct nvm_range *r = &nvm_abi_ranges[i];
		const struct nvabi_range *src = &nvabi_ranges[i];

		r->first = nvm_abi_parse_key(src->first_name);
		r->last = nvm_abi_parse_key(src->last_name);
		r->nreleases = nrel[i];
		r->abi = src;
		if (r->first == U64_MAX || r->last == U64_MAX || nrel[i] != src->releases ||
		    r->releases[0] != r->first || r->releases[nrel[i] - 1] != r->last ||
		    nvm_range_insert(&nvm_abi_tree, r)) {
			pr_err("generated tables: range %s..%s is malformed or overlaps another\n",
			       src->first_name, src->last_name);
			ret = -EINVAL;
			goto err_free;
		}
	}
	return 0;

err_table:
	pr_err("generated tables: inconsistent release list\n");
	ret = -EINVAL;
err_free:
	nvm_abi_exit();
	return ret;
}

/**
 * nvm_abi_exit() - free the tree; nvm_abi_init() may build it again
 */
void nvm_abi_exit(void)
{
	nvm_abi_tree.root = RB_ROOT;
	nvm_abi_tree.count = 0;
	kfree(nvm_abi_ranges);
	kfree(nvm_abi_release_keys);
	nvm_abi_ranges = NULL;
	nvm_abi_release_keys = NULL;
	nvm_force_key = 0;
	nvm_abi_state.valid = false;
}

static void nvm_abi_range_str(const struct nvm_range *r, char *buf, size_t len)
{
	const struct nvabi_range *src = r ? r->abi : NULL;

	if (src)
		snprintf(buf, len, "%s..%s", src->first_name, src->last_name);
	else
		strscpy(buf, "none", len);
}

/* Say once, per detected version and decision, what was found and why. */
static void nvm_abi_report(u64 key, const char *version, const char *source,
			   const char *modver, enum nvm_tier tier,
			   const struct nvm_range *range, bool accepted)
{
	const struct nvm_range *below, *above;
	char rs[2 * NVM_VERSION_STR_MAX + 4], bs[sizeof(rs)], as[sizeof(rs)];
	bool changed;

	spin_lock(&nvm_abi_lock);
	strscpy(nvm_abi_state.modver, modver ?: "", sizeof(nvm_abi_state.modver));
	nvm_abi_state.outside_ok = nvm_accept_outside;
	changed = !nvm_abi_state.valid || nvm_abi_state.key != key ||
		  nvm_abi_state.accepted != accepted;
	nvm_abi_state.valid = true;
	nvm_abi_state.key = key;
	nvm_abi_state.tier = tier;
	nvm_abi_state.accepted = accepted;
	nvm_abi_state.range = range;
	nvm_abi_state.source = source;
	strscpy(nvm_abi_state.version, version, sizeof(nvm_abi_state.version));
	spin_unlock(&nvm_abi_lock);
	if (!changed)
		return;

	nvm_abi_range_str(range, rs, sizeof(rs));
	switch (tier) {
	case NVM_TIER_EXACT:
		pr_info("driver %s (from %s): known release, ABI range %s\n", version, source, rs);
		return;
	case NVM_TIER_INTERPOLATED:
		pr_info("driver %s (from %s): not a known release, but inside ABI range %s, proven unchanged between its ends; serving it\n",
			version, source, rs);
		return;
	case NVM_TIER_OUTSIDE:
		break;
	}
	nvm_range_find(&nvm_abi_tree, key, &below, &above);
	nvm_abi_range_str(below, bs, sizeof(bs));
	nvm_abi_range_str(above, as, sizeof(as));
	if (accepted)
		pr_warn("driver %s (from %s) is outside every known ABI range; accept_outside=1: using the nearest lower range %s AT YOUR OWN RISK (nearest higher: %s)\n",
			version, source, bs, as);
	else
		pr_err("driver %s (from %s) is outside every known ABI range (nearest lower: %s, nearest higher: %s); opens of the mediated nodes fail with EPROTONOSUPPORT. Update nvmediate, or load it with accept_outside=1 to use the nearest lower range at your own risk, or force_version=<version> to treat the driver as that version\n",
		       version, source, bs, as);
}

/*
 * The decision of the last open, when the driver's module carries the same
 * version string it was made from: most opens, which then neither parse
 * nor search.  False when it must be made again.
 */
static bool nvm_abi_select_again(const char *modver, const struct nvm_range **range,
				 bool *accepted)
{
	bool hit;

	if (nvm_force_key || !modver)
		return false;
	spin_lock(&nvm_abi_lock);
	hit = nvm_abi_state.valid && nvm_abi_state.modver[0] &&
	      nvm_abi_state.outside_ok == nvm_accept_outside &&
	      !strcmp(nvm_abi_state.modver, modver);
	if (hit) {
		*range = nvm_abi_state.range;
		*accepted = nvm_abi_state.accepted;
	}
	spin_unlock(&nvm_abi_lock);
	return hit;
}

/**
 * nvm_abi_select() - the ABI range a newly opened mediated file uses
 * @backing: the backing file just opened
 * @range: set to the range to use
 *
 * Return: 0, or -EPROTONOSUPPORT when the driver's version is outside every
 * known range and accept_outside is not set, -ENOMEM when reading the
 * version ran out of memory, or -ENXIO when no version can be found at all.
 */
int nvm_abi_select(struct file *backing, const struct nvm_range **range)
{
	const char *modver = nvm_drv_modversion(backing);
	char version[NVM_VERSION_STR_MAX];
	const struct nvm_range *r, *below;
	const char *source;
	enum nvm_tier tier;
	bool accepted;
	u64 key;

	if (nvm_abi_select_again(modver, &r, &accepted))
		goto out;
	if (nvm_force_key) {
		key = nvm_force_key;
		modver = NULL;
		strscpy(version, nvm_force_version, sizeof(version));
		source = "force_version";
	} else {
		struct nvm_version v;
		int ret = nvm_drv_version(backing, &v, &source);

		if (ret) {
			pr_err_ratelimited("cannot find the driver's version (%d)\n", ret);
			/* An allocation failure is not a missing driver. */
			return ret == -ENOMEM ? -ENOMEM : -ENXIO;
		}
		if (strcmp(source, "module"))
			modver = NULL;
		key = nvm_version_key(&v);
		nvm_version_format(key, version);
		if (v.parts == 2)	/* print as the driver does */
			snprintf(version, sizeof(version), "%u.%u", v.major, v.minor);
	}

	tier = nvm_range_tier(&nvm_abi_tree, key, &r);
	accepted = tier != NVM_TIER_OUTSIDE;
	if (!accepted && nvm_accept_outside) {
		nvm_range_find(&nvm_abi_tree, key, &below, NULL);
		r = below;
		accepted = below != NULL;
	}
	nvm_abi_report(key, version, source, modver, tier, r, accepted);
out:
	if (!accepted)
		return -EPROTONOSUPPORT;
	*range = r;
	return 0;
}

/* /sys/class/nvmediate/{driver_version,tier,range,version_source}: the last open's view. */
enum nvm_abi_field {
	NVM_ABI_VERSION,
	NVM_ABI_TIER,
	NVM_ABI_RANGE,
	NVM_ABI_SOURCE,
};

static ssize_t nvm_abi_show(char *buf, enum nvm_abi_field what)
{
	char rs[2 * NVM_VERSION_STR_MAX + 4];
	ssize_t n;

	spin_lock(&nvm_abi_lock);
	if (!nvm_abi_state.valid) {
		n = sysfs_emit(buf, "none\n");
	} else {
		switch (what) {
		case NVM_ABI_VERSION:
			n = sysfs_emit(buf, "%s\n", nvm_abi_state.version);
			break;
		case NVM_ABI_TIER:
			n = sysfs_emit(buf, "%s\n", nvm_tier_name(nvm_abi_state.tier));
			break;
		case NVM_ABI_RANGE:
			nvm_abi_range_str(nvm_abi_state.accepted ? nvm_abi_state.range : NULL,
					  rs, sizeof(rs));
			n = sysfs_emit(buf, "%s\n", rs);
			break;
		default:
			n = sysfs_emit(buf, "%s\n", nvm_abi_state.source);
			break;
		}
	}
	spin_unlock(&nvm_abi_lock);
	return n;
}

#define NVM_ABI_ATTR(_name, _what)						\
static ssize_t _name##_show(NVM_CLASS_CONST struct class *c,			\
			    NVM_CLASS_CONST struct class_attribute *a, char *buf)	\
{										\
	return nvm_abi_show(buf, _what);					\
}										\
static CLASS_ATTR_RO(_name)

NVM_ABI_ATTR(driver_version, NVM_ABI_VERSION);
NVM_ABI_ATTR(tier, NVM_ABI_TIER);
NVM_ABI_ATTR(range, NVM_ABI_RANGE);
NVM_ABI_ATTR(version_source, NVM_ABI_SOURCE);

static ssize_t ranges_show(NVM_CLASS_CONST struct class *c,
			   NVM_CLASS_CONST struct class_attribute *a, char *buf)
{
	return sysfs_emit(buf, "%u\n", nvm_abi_tree.count);
}

static CLASS_ATTR_RO(ranges);

static struct attribute *nvm_abi_class_attrs[] = {
	&class_attr_driver_version.attr,
	&class_attr_tier.attr,
	&class_attr_range.attr,
	&class_attr_version_source.attr,
	&class_attr_ranges.attr,
	NULL
};

const struct attribute_group nvm_abi_class_group = {
	.attrs = nvm_abi_class_attrs,
};
