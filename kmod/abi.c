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
 * A version outside every range may still be served: one newer than every
 * known release of its branch (its major number), where the branch has
 * had production releases for a while (the rule is tools/nvabi's, which
 * marks such branches in nvabi_branches[]), gets that branch's newest
 * ABI, as the "successor" tier: logged, counted (calls refused as unknown
 * under it, stats.c), and refused instead with successor=0.  What a
 * successor's changes can and cannot do is in docs/design.md, section 6.
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

bool nvm_serve_successor = true;
module_param_named(successor, nvm_serve_successor, bool, 0444);
MODULE_PARM_DESC(successor,
		 "Serve a driver newer than every known release of its branch, where the branch has had production releases for a while (tools/nvabi's rule: 6 minor versions known), with that branch's newest ABI (the successor tier; default Y). N: refuse it (EPROTONOSUPPORT)");

/**
 * struct nvm_branch - a branch of releases (one major number)
 * @major: the major number
 * @newest: version key of its newest known release
 * @newest_name: that release
 * @range: the range @newest is in
 * @successor: a newer version of the branch is served with @range
 */
struct nvm_branch {
	u32 major;
	u64 newest;
	const char *newest_name;
	const struct nvm_range *range;
	bool successor;
};

static struct nvm_branch *nvm_abi_branches;

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
	bool successor_ok;
	char detail[640];
} nvm_abi_state;

static u64 nvm_force_key;

static u64 nvm_abi_parse_key(const char *s)
{
	struct nvm_version v;

	if (nvm_version_parse(s, &v))
		return U64_MAX;
	return nvm_version_key(&v);
}

static u32 nvm_abi_major(u64 key)
{
	return key >> (2 * NVM_VERSION_PART_BITS);
}

/*
 * The branches of the generated tables, each with its newest release,
 * which must be the last known release of its major number.
 */
static int nvm_abi_init_branches(void)
{
	unsigned int i;

	nvm_abi_branches = kcalloc(NVABI_NR_BRANCHES, sizeof(*nvm_abi_branches), GFP_KERNEL);
	if (!nvm_abi_branches)
		return -ENOMEM;
	for (i = 0; i < NVABI_NR_BRANCHES; i++) {
		const struct nvabi_branch *src = &nvabi_branches[i];
		struct nvm_branch *b = &nvm_abi_branches[i];
		const struct nvabi_release *rel;

		if (src->newest >= NVABI_NR_RELEASES)
			goto bad;
		rel = &nvabi_releases[src->newest];
		b->major = src->major;
		b->newest = nvm_abi_parse_key(rel->name);
		b->newest_name = rel->name;
		b->range = &nvm_abi_ranges[rel->range];
		b->successor = src->successor;
		if (b->newest == U64_MAX || nvm_abi_major(b->newest) != b->major ||
		    (i && b->major <= nvm_abi_branches[i - 1].major) ||
		    (src->newest + 1 < NVABI_NR_RELEASES &&
		     nvm_abi_major(nvm_abi_parse_key(nvabi_releases[src->newest + 1].name)) ==
		     b->major))
			goto bad;
	}
	return 0;
bad:
	pr_err("generated tables: inconsistent branch list\n");
	return -EINVAL;
}

/* The branch of @key's major number, or NULL. */
static const struct nvm_branch *nvm_abi_branch(u64 key)
{
	u32 major = nvm_abi_major(key);
	unsigned int i;

	for (i = 0; nvm_abi_branches && i < NVABI_NR_BRANCHES; i++)
		if (nvm_abi_branches[i].major == major)
			return &nvm_abi_branches[i];
	return NULL;
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
	ret = nvm_abi_init_branches();
	if (ret)
		goto err_free;
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
	kfree(nvm_abi_branches);
	kfree(nvm_abi_ranges);
	kfree(nvm_abi_release_keys);
	nvm_abi_branches = NULL;
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

/* The remedy for a version nvmediate does not serve by its own ABI. */
#define NVM_ABI_ADD_HINT \
	"add the release to nvmediate ('nvabi add' with NVIDIA's open-gpu-kernel-modules source at that version, then rebuild: README, \"A driver newer than nvmediate\")"

/*
 * What a decision means, with the nearest known releases and the remedy:
 * said in the log and kept for /sys/class/nvmediate/tier_detail.
 */
static void nvm_abi_explain(char *buf, size_t len, u64 key, enum nvm_tier tier,
			    const struct nvm_range *range, const struct nvm_branch *b,
			    bool accepted)
{
	const struct nvm_range *below, *above;
	char rs[2 * NVM_VERSION_STR_MAX + 4], bs[sizeof(rs)], as[sizeof(rs)];

	nvm_abi_range_str(range, rs, sizeof(rs));
	switch (tier) {
	case NVM_TIER_EXACT:
		snprintf(buf, len, "known release, ABI range %s", rs);
		return;
	case NVM_TIER_INTERPOLATED:
		snprintf(buf, len, "not a known release, but inside ABI range %s, proven unchanged between its ends; serving it",
			 rs);
		return;
	case NVM_TIER_SUCCESSOR:
		if (accepted)
			snprintf(buf, len, "newer than every known release of branch %u (newest known: %s); serving it with that release's ABI range %s (tier successor): calls whose form changed since are refused, and counted in stats/successor_unknown. To serve it by its own ABI, %s; to refuse it, load nvmediate with successor=0",
				 b->major, b->newest_name, rs, NVM_ABI_ADD_HINT);
		else
			snprintf(buf, len, "newer than every known release of branch %u (newest known: %s), and successor=0; opens of the mediated nodes fail with EPROTONOSUPPORT. To serve it, %s, or load nvmediate with successor=1 to use the ABI of %s",
				 b->major, b->newest_name, NVM_ABI_ADD_HINT, b->newest_name);
		return;
	case NVM_TIER_OUTSIDE:
		break;
	}
	nvm_range_find(&nvm_abi_tree, key, &below, &above);
	nvm_abi_range_str(below, bs, sizeof(bs));
	nvm_abi_range_str(above, as, sizeof(as));
	if (accepted)
		snprintf(buf, len, "outside every known ABI range; accept_outside=1: using the nearest lower range %s AT YOUR OWN RISK (nearest higher: %s)",
			 bs, as);
	else
		snprintf(buf, len, "outside every known ABI range (nearest lower: %s, nearest higher: %s; %s); opens of the mediated nodes fail with EPROTONOSUPPORT. To serve it, %s; or load nvmediate with accept_outside=1 to use the nearest lower range at your own risk, or force_version=<version> to treat the driver as that version",
			 bs, as,
			 !b ? "no release of its branch is known: a new major is never served as a successor" :
			 key < b->newest ? "a version between known releases that differ" :
			 "its branch has had too few releases to serve a newer one",
			 NVM_ABI_ADD_HINT);
}

/* Say once, per detected version and decision, what was found and why. */
static void nvm_abi_report(u64 key, const char *version, const char *source,
			   const char *modver, enum nvm_tier tier,
			   const struct nvm_range *range, const struct nvm_branch *b,
			   bool accepted)
{
	char why[sizeof(nvm_abi_state.detail)];
	bool changed;

	nvm_abi_explain(why, sizeof(why), key, tier, range, b, accepted);
	spin_lock(&nvm_abi_lock);
	strscpy(nvm_abi_state.modver, modver ?: "", sizeof(nvm_abi_state.modver));
	nvm_abi_state.outside_ok = nvm_accept_outside;
	nvm_abi_state.successor_ok = nvm_serve_successor;
	changed = !nvm_abi_state.valid || nvm_abi_state.key != key ||
		  nvm_abi_state.accepted != accepted;
	nvm_abi_state.valid = true;
	nvm_abi_state.key = key;
	nvm_abi_state.tier = tier;
	nvm_abi_state.accepted = accepted;
	nvm_abi_state.range = range;
	nvm_abi_state.source = source;
	strscpy(nvm_abi_state.version, version, sizeof(nvm_abi_state.version));
	strscpy(nvm_abi_state.detail, why, sizeof(nvm_abi_state.detail));
	spin_unlock(&nvm_abi_lock);
	if (!changed)
		return;
	if (!accepted)
		pr_err("driver %s (from %s) is %s\n", version, source, why);
	else if (tier == NVM_TIER_EXACT || tier == NVM_TIER_INTERPOLATED)
		pr_info("driver %s (from %s): %s\n", version, source, why);
	else
		pr_warn("driver %s (from %s) is %s\n", version, source, why);
}

/*
 * The decision of the last open, when the driver's module carries the same
 * version string it was made from: most opens, which then neither parse
 * nor search.  False when it must be made again.
 */
static bool nvm_abi_select_again(const char *modver, const struct nvm_range **range,
				 bool *accepted, enum nvm_tier *tier)
{
	bool hit;

	if (nvm_force_key || !modver)
		return false;
	spin_lock(&nvm_abi_lock);
	hit = nvm_abi_state.valid && nvm_abi_state.modver[0] &&
	      nvm_abi_state.outside_ok == nvm_accept_outside &&
	      nvm_abi_state.successor_ok == nvm_serve_successor &&
	      !strcmp(nvm_abi_state.modver, modver);
	if (hit) {
		*range = nvm_abi_state.range;
		*accepted = nvm_abi_state.accepted;
		*tier = nvm_abi_state.tier;
	}
	spin_unlock(&nvm_abi_lock);
	return hit;
}

/*
 * Decide how the driver at version @key is served, say so once and keep
 * it for sysfs.  Return: whether it is served; @range and @tier set.
 */
static bool nvm_abi_decide(u64 key, const char *version, const char *source,
			   const char *modver, const struct nvm_range **range,
			   enum nvm_tier *tier)
{
	const struct nvm_range *r, *below;
	const struct nvm_branch *b = nvm_abi_branch(key);
	enum nvm_tier t = nvm_range_tier(&nvm_abi_tree, key, &r);
	bool accepted = t != NVM_TIER_OUTSIDE;

	if (!accepted && b && b->successor && key > b->newest) {
		t = NVM_TIER_SUCCESSOR;
		r = b->range;
		accepted = nvm_serve_successor;
	}
	if (!accepted && t == NVM_TIER_OUTSIDE && nvm_accept_outside) {
		nvm_range_find(&nvm_abi_tree, key, &below, NULL);
		r = below;
		accepted = below != NULL;
	}
	nvm_abi_report(key, version, source, modver, t, r, b, accepted);
	*range = r;
	*tier = t;
	return accepted;
}

/* @v's key, and @version set to it as the driver prints it. */
static u64 nvm_abi_key_of(const struct nvm_version *v, char *version)
{
	u64 key = nvm_version_key(v);

	nvm_version_format(key, version);
	if (v->parts == 2)	/* print as the driver does */
		snprintf(version, NVM_VERSION_STR_MAX, "%u.%u", v->major, v->minor);
	return key;
}

/*
 * The version the driver's answer gives (nvm_drv_version()'s @ret, @v and
 * @source), or force_version's, which replaces it; @modver is kept only
 * when the version came from the driver's module.
 */
static int nvm_abi_version_of(int ret, const struct nvm_version *v, const char **modver,
			      u64 *key, char *version, const char **source)
{
	if (nvm_force_key) {
		*key = nvm_force_key;
		*modver = NULL;
		strscpy(version, nvm_force_version, NVM_VERSION_STR_MAX);
		*source = "force_version";
		return 0;
	}
	if (ret) {
		pr_err_ratelimited("cannot find the driver's version (%d)\n", ret);
		/* An allocation failure is not a missing driver. */
		return ret == -ENOMEM ? -ENOMEM : -ENXIO;
	}
	if (strcmp(*source, "module"))
		*modver = NULL;
	*key = nvm_abi_key_of(v, version);
	return 0;
}

/* What the driver behind @backing says its version is; under force_version, nothing asked. */
static int nvm_abi_ask(struct file *backing, struct nvm_version *v, const char **source)
{
	*source = NULL;
	return nvm_force_key ? 0 : nvm_drv_version(backing, v, source);
}

/* The version of the driver behind @backing, or force_version's. */
static int nvm_abi_version(struct file *backing, const char **modver, u64 *key,
			   char *version, const char **source)
{
	struct nvm_version v = { };
	int ret = nvm_abi_ask(backing, &v, source);

	return nvm_abi_version_of(ret, &v, modver, key, version, source);
}

/*
 * nvm_abi_select()'s decision once the driver has answered (@ret, @v,
 * @source: nvm_drv_version()'s answer, unused under force_version; @modver:
 * its module's version string, or NULL): the range and tier the version
 * is served at, said once and kept for sysfs.  Asks the driver nothing.
 */
static int nvm_abi_select_version(int ret, const struct nvm_version *v, const char *source,
				  const char *modver, const struct nvm_range **range,
				  enum nvm_tier *tier)
{
	char version[NVM_VERSION_STR_MAX];
	const struct nvm_range *r;
	enum nvm_tier t;
	u64 key;

	ret = nvm_abi_version_of(ret, v, &modver, &key, version, &source);
	if (ret)
		return ret;
	if (!nvm_abi_decide(key, version, source, modver, &r, &t))
		return -EPROTONOSUPPORT;
	*range = r;
	*tier = t;
	return 0;
}

/**
 * nvm_abi_select() - the ABI range a newly opened mediated file uses
 * @backing: the backing file just opened
 * @range: set to the range to use
 * @tier: set to the tier it is served at
 *
 * Return: 0, or -EPROTONOSUPPORT when the driver's version is outside every
 * known range and neither the successor tier (successor=1) nor
 * accept_outside serves it, -ENOMEM when reading the version ran out of
 * memory, or -ENXIO when no version can be found at all.
 */
int nvm_abi_select(struct file *backing, const struct nvm_range **range, enum nvm_tier *tier)
{
	const char *modver = nvm_drv_modversion(backing);
	struct nvm_version v = { };
	const struct nvm_range *r;
	const char *source;
	enum nvm_tier t;
	bool accepted;
	int ret;

	if (nvm_abi_select_again(modver, &r, &accepted, &t)) {
		if (!accepted)
			return -EPROTONOSUPPORT;
		*range = r;
		*tier = t;
		return 0;
	}
	ret = nvm_abi_ask(backing, &v, &source);
	return nvm_abi_select_version(ret, &v, source, modver, range, tier);
}

/* No driver to decide for (any more): sysfs says so, and why. */
static void nvm_abi_forget(const char *why)
{
	spin_lock(&nvm_abi_lock);
	nvm_abi_state.valid = false;
	nvm_abi_state.modver[0] = '\0';
	strscpy(nvm_abi_state.detail, why, sizeof(nvm_abi_state.detail));
	spin_unlock(&nvm_abi_lock);
}

/*
 * Decide for the driver as it is now, without opening it: force_version,
 * else the version its module carries (@mod, going live), else the host's
 * /proc/driver/nvidia/version.  A driver that is not there is said.
 */
static void nvm_abi_decide_now(const struct module *mod)
{
	char version[NVM_VERSION_STR_MAX];
	const struct nvm_range *r;
	const char *source, *modver = NULL;
	struct nvm_version v;
	enum nvm_tier t;
	u64 key;

	if (!nvm_force_key && mod && mod->version && !nvm_version_parse(mod->version, &v)) {
		key = nvm_abi_key_of(&v, version);
		source = "module";
		modver = mod->version;
	} else if (nvm_abi_version(NULL, &modver, &key, version, &source)) {
		nvm_abi_forget("no driver version: the nvidia driver is not loaded; decided when it is");
		return;
	}
	nvm_abi_decide(key, version, source, modver, &r, &t);
}

/*
 * The nvidia module going live or away: what sysfs says follows it, so
 * that a health check reading the tier sees a driver reloaded at another
 * version, or gone, before any open.
 */
static int nvm_abi_module_event(struct notifier_block *nb, unsigned long state, void *data)
{
	struct module *mod = data;

	if (strcmp(mod->name, NVM_NV_MODULE))
		return NOTIFY_DONE;
	if (state == MODULE_STATE_LIVE)
		nvm_abi_decide_now(mod);
	else if (state == MODULE_STATE_GOING)
		nvm_abi_forget("no driver version: the nvidia driver was unloaded; decided when it is loaded again");
	return NOTIFY_DONE;
}

static struct notifier_block nvm_abi_module_nb = {
	.notifier_call = nvm_abi_module_event,
};

/**
 * nvm_abi_start() - decide for the driver at load, and follow its module
 *
 * Return: 0 or a negative errno.
 */
int nvm_abi_start(void)
{
	int ret = register_module_notifier(&nvm_abi_module_nb);

	if (ret)
		return ret;
	nvm_abi_decide_now(NULL);
	return 0;
}

/* Undo nvm_abi_start(). */
void nvm_abi_stop(void)
{
	unregister_module_notifier(&nvm_abi_module_nb);
}

/*
 * /sys/class/nvmediate/{driver_version,tier,range,version_source,
 * tier_detail}: the decision for the driver as it is now (at load, when
 * its module goes live or away, at each open).
 */
enum nvm_abi_field {
	NVM_ABI_VERSION,
	NVM_ABI_TIER,
	NVM_ABI_RANGE,
	NVM_ABI_SOURCE,
	NVM_ABI_DETAIL,
};

static ssize_t nvm_abi_show(char *buf, enum nvm_abi_field what)
{
	char rs[2 * NVM_VERSION_STR_MAX + 4];
	ssize_t n;

	spin_lock(&nvm_abi_lock);
	if (!nvm_abi_state.valid) {
		n = sysfs_emit(buf, "%s\n", what == NVM_ABI_DETAIL && nvm_abi_state.detail[0] ?
				   nvm_abi_state.detail : "none");
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
		case NVM_ABI_DETAIL:
			n = sysfs_emit(buf, "%s\n", nvm_abi_state.detail);
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
NVM_ABI_ATTR(tier_detail, NVM_ABI_DETAIL);

static ssize_t ranges_show(NVM_CLASS_CONST struct class *c,
			   NVM_CLASS_CONST struct class_attribute *a, char *buf)
{
	return sysfs_emit(buf, "%u\n", nvm_abi_tree.count);
}

static CLASS_ATTR_RO(ranges);

/* "count oldest newest" of the releases compiled in (nvproxyctl releases). */
static ssize_t releases_show(NVM_CLASS_CONST struct class *c,
			     NVM_CLASS_CONST struct class_attribute *a, char *buf)
{
	return sysfs_emit(buf, "%u %s %s\n", NVABI_NR_RELEASES, nvabi_releases[0].name,
			  nvabi_releases[NVABI_NR_RELEASES - 1].name);
}

static CLASS_ATTR_RO(releases);

static struct attribute *nvm_abi_class_attrs[] = {
	&class_attr_driver_version.attr,
	&class_attr_tier.attr,
	&class_attr_range.attr,
	&class_attr_version_source.attr,
	&class_attr_tier_detail.attr,
	&class_attr_ranges.attr,
	&class_attr_releases.attr,
	NULL
};

const struct attribute_group nvm_abi_class_group = {
	.attrs = nvm_abi_class_attrs,
};

#ifdef NVM_KUNIT
#include "../kunit/abi_test.c"
#endif
