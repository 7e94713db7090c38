// SPDX-License-Identifier: GPL-2.0
/*
 * nvmediate: capability profiles (docs/policy.md).  A profile admits a
 * call when the call's table entry (its capabilities, from
 * abi/capabilities.txt) gives it a capability the profile has, or the base
 * capability every profile has, or when the profile lists the call as an
 * explicit allow entry.  The decisions are pure; the validator asks them
 * after a call's shape has passed (escape.c, ctrl.c, alloc.c, uvm.c).
 *
 * A profile is an immutable object; how a set publishes and replaces its
 * own is in sets.c.
 *
 * The audit record keeps, per set, each refused (family, number, rule)
 * once, with a count, up to NVM_REC_MAX entries.
 */
#include <linux/bsearch.h>
#include <linux/ctype.h>
#include <linux/errno.h>
#include <linux/kdev_t.h>
#include <linux/kernel.h>
#include <linux/slab.h>
#include <linux/sort.h>
#include <linux/string.h>

#include "policy.h"
#include "rules.h"
#include "nvmediate.h"
#include "tables.h"
#include "nvabi_tables.h"

static const char *const nvm_profile_family_words[] = NVM_FAMILY_NAMES;
static const char *const nvm_cap_names[] = NVM_CAP_NAMES;

static_assert(ARRAY_SIZE(nvm_profile_family_words) == NVM_FAM_CALLS);
static_assert(ARRAY_SIZE(nvm_cap_names) == NVM_NR_CAPS && NVM_CAP_ALL == (1U << NVM_NR_CAPS) - 1);
static_assert(NVM_CAP_BASE == NVABI_CAP_BASE && NVM_CAP_ALL < NVM_CAP_BASE);

/**
 * nvm_family_name() - the name of a family in logs, records and profiles
 * @family: NVM_FAM_*
 *
 * Return: "esc", "ctrl", "alloc", "uvm", or "?".
 */
const char *nvm_family_name(unsigned int family)
{
	return family < NVM_FAM_CALLS ? nvm_profile_family_words[family] : "?";
}

static int nvm_family_parse(const char *s, size_t len)
{
	unsigned int i;

	for (i = 0; i < NVM_FAM_CALLS; i++)
		if (strlen(nvm_profile_family_words[i]) == len &&
		    !strncmp(s, nvm_profile_family_words[i], len))
			return i;
	return -EINVAL;
}

static int nvm_u64_cmp(const void *a, const void *b)
{
	u64 x = *(const u64 *)a, y = *(const u64 *)b;

	return x < y ? -1 : x > y;
}

/**
 * nvm_profile_listed() - has a profile an allow entry for a call (pure)
 * @p: the profile
 * @family: NVM_FAM_*
 * @nr: the call's number in its family
 *
 * Return: true when @p lists the call.
 */
bool nvm_profile_listed(const struct nvm_profile *p, unsigned int family, u32 nr)
{
	u64 key = nvm_allow_key(family, nr);

	return p->nallow && bsearch(&key, p->allow, p->nallow, sizeof(key), nvm_u64_cmp);
}

/**
 * nvm_profile_refuse() - record the profile's refusal of a call
 * @c: the call
 * @v: verdict, given the answer: a control command, status
 *	NV_ERR_NOT_SUPPORTED (as for a command the driver does not have) at
 *	the status offset of the file's NVOS54 layout; anything else, -EPERM
 * @family: NVM_FAM_*
 *
 * Return: false.
 */
bool nvm_profile_refuse(const struct nvm_call *c, struct nvm_verdict *v, unsigned int family)
{
	switch (family) {
	case NVM_FAM_CTRL:
		return nvm_answer(v, NVM_NV_ERR_NOT_SUPPORTED, nvm_abi_rmlayout(c->abi)->ctl_status,
				  NVM_RULE(CTRL_PROFILE));
	case NVM_FAM_ESCAPE:
		return nvm_refuse(v, -EPERM, NVM_RULE(ESC_PROFILE));
	case NVM_FAM_ALLOC:
		return nvm_refuse(v, -EPERM, NVM_RULE(ALLOC_PROFILE));
	default:
		return nvm_refuse(v, -EPERM, NVM_RULE(UVM_PROFILE));
	}
}

/**
 * nvm_caps_parse() - capability names to NVM_CAP_* bits
 * @s: names separated by '+', ',', spaces or newlines; "none" or an empty
 *	string for no capability, "all" for every one
 * @caps: the bits
 *
 * Return: 0, or -EINVAL naming an unknown capability.
 */
int nvm_caps_parse(const char *s, u32 *caps)
{
	u32 bits = 0;

	while (*s) {
		size_t n;
		unsigned int i;

		if (*s == '+' || *s == ',' || isspace(*s)) {
			s++;
			continue;
		}
		n = strcspn(s, "+, \t\n");
		if (n == 4 && !strncmp(s, "none", 4)) {
			s += n;
			continue;
		}
		if (n == 3 && !strncmp(s, "all", 3)) {
			bits |= NVM_CAP_ALL;
			s += n;
			continue;
		}
		for (i = 0; i < ARRAY_SIZE(nvm_cap_names); i++)
			if (strlen(nvm_cap_names[i]) == n && !strncmp(s, nvm_cap_names[i], n))
				break;
		if (i == ARRAY_SIZE(nvm_cap_names))
			return -EINVAL;
		bits |= 1U << i;
		s += n;
	}
	*caps = bits;
	return 0;
}

/**
 * nvm_caps_format() - NVM_CAP_* bits to names separated by spaces
 * @caps: the bits
 * @buf: output, NUL-terminated
 * @len: size of @buf
 *
 * Return: length written, "none" for no capability.
 */
int nvm_caps_format(u32 caps, char *buf, size_t len)
{
	unsigned int i;
	int n = 0;

	buf[0] = '\0';
	for (i = 0; i < ARRAY_SIZE(nvm_cap_names); i++)
		if (caps & (1U << i))
			n += scnprintf(buf + n, len - n, "%s%s", n ? " " : "", nvm_cap_names[i]);
	if (!n)
		n = scnprintf(buf, len, "none");
	return n;
}

/**
 * nvm_profile_alloc() - a zeroed profile with room for allow entries
 * @nallow: entries
 *
 * Return: the profile, or NULL.
 */
struct nvm_profile *nvm_profile_alloc(unsigned int nallow)
{
	return kzalloc(struct_size((struct nvm_profile *)NULL, allow, nallow), GFP_KERNEL);
}

/* Parse one "FAMILY NUMBER" pair; *s advances past it. */
static int nvm_allow_parse(const char **s, u64 *key, bool *remove)
{
	const char *p = *s;
	char num[16];
	size_t n;
	int fam;
	u32 nr;

	*remove = *p == '-';
	if (*remove)
		p++;
	n = strcspn(p, " \t\n");
	fam = nvm_family_parse(p, n);
	if (fam < 0)
		return -EINVAL;
	p += n;
	p += strspn(p, " \t");
	n = strcspn(p, " \t\n");
	if (!n || n >= sizeof(num))
		return -EINVAL;
	memcpy(num, p, n);
	num[n] = '\0';
	if (kstrtou32(num, 0, &nr))
		return -EINVAL;
	*key = nvm_allow_key(fam, nr);
	*s = p + n;
	return 0;
}

/**
 * nvm_profile_admit_all() - a profile that admits every call the tables have
 *
 * Every capability, and an allow entry for each escape, control, class and
 * UVM command of every release: with it, only the rules of a call's shape
 * and the policy decide.  For the KUnit suites and nvproxyctl explain.
 *
 * Return: the profile (kfree() it), or NULL.
 */
struct nvm_profile *nvm_profile_admit_all(void)
{
	struct nvm_profile *p = nvm_profile_alloc(NVABI_NR_ESCS + NVABI_NR_CTRLS +
						  NVABI_NR_CLASSES + NVABI_NR_UVMS);
	unsigned int i, n = 0, u = 0;

	if (!p)
		return NULL;
	p->caps = NVM_CAP_ALL;
	for (i = 0; i < NVABI_NR_ESCS; i++)
		p->allow[n++] = nvm_allow_key(NVM_FAM_ESCAPE, nvabi_escs[i].nr);
	for (i = 0; i < NVABI_NR_CTRLS; i++)
		p->allow[n++] = nvm_allow_key(NVM_FAM_CTRL, nvabi_ctrls[i].cmd);
	for (i = 0; i < NVABI_NR_CLASSES; i++)
		p->allow[n++] = nvm_allow_key(NVM_FAM_ALLOC, nvabi_classes[i].hclass);
	for (i = 0; i < NVABI_NR_UVMS; i++)
		p->allow[n++] = nvm_allow_key(NVM_FAM_UVM, nvabi_uvms[i].cmd);
	sort(p->allow, n, sizeof(p->allow[0]), nvm_u64_cmp, NULL);
	for (i = 0; i < n; i++)
		if (!u || p->allow[u - 1] != p->allow[i])
			p->allow[u++] = p->allow[i];
	p->nallow = u;
	return p;
}

/**
 * nvm_profile_edit_allow() - a copy of a profile with its allow list edited
 * @old: the profile to copy
 * @text: "FAMILY NUMBER" pairs to add, "-FAMILY NUMBER" to remove, and the
 *	word "clear" to start from an empty list; separated by spaces or
 *	newlines; FAMILY is esc, ctrl, alloc or uvm, NUMBER decimal or 0x hex
 *
 * Return: the new profile (not yet published), or ERR_PTR(-EINVAL) for
 * text that does not parse, ERR_PTR(-ENOSPC) beyond NVM_ALLOW_MAX entries,
 * ERR_PTR(-ENOMEM).
 */
struct nvm_profile *nvm_profile_edit_allow(const struct nvm_profile *old, const char *text)
{
	struct nvm_profile *p;
	unsigned int i, n = old->nallow;
	const char *s = text;
	u64 *keys;
	int ret = 0;

	keys = kcalloc(NVM_ALLOW_MAX, sizeof(*keys), GFP_KERNEL);
	if (!keys)
		return ERR_PTR(-ENOMEM);
	memcpy(keys, old->allow, n * sizeof(*keys));
	for (;;) {
		bool remove;
		u64 key;

		s += strspn(s, " \t\n");
		if (!*s)
			break;
		if (!strncmp(s, "clear", 5) && (!s[5] || isspace(s[5]))) {
			n = 0;
			s += 5;
			continue;
		}
		ret = nvm_allow_parse(&s, &key, &remove);
		if (ret)
			goto out;
		for (i = 0; i < n && keys[i] != key; i++)
			;
		if (remove && i < n)
			keys[i] = keys[--n];
		if (remove || i < n)
			continue;
		if (n == NVM_ALLOW_MAX) {
			ret = -ENOSPC;
			goto out;
		}
		keys[n++] = key;
	}
	sort(keys, n, sizeof(*keys), nvm_u64_cmp, NULL);
	p = nvm_profile_alloc(n);
	if (!p) {
		ret = -ENOMEM;
		goto out;
	}
	p->caps = old->caps;
	p->audit = old->audit;
	p->allow_root = old->allow_root;
	p->allow_finn = old->allow_finn;
	p->allow_gss = old->allow_gss;
	p->nfdnodes = old->nfdnodes;
	memcpy(p->fdnodes, old->fdnodes, sizeof(p->fdnodes));
	p->nallow = n;
	memcpy(p->allow, keys, n * sizeof(*keys));
	kfree(keys);
	return p;
out:
	kfree(keys);
	return ERR_PTR(ret);
}

static const char *const nvm_fdnode_names[NVM_FDNODE_KINDS] = {
	[NVM_FDNODE_CAP] = "nvidia_cap",
	[NVM_FDNODE_IMEX] = "imex_channel",
};

/**
 * nvm_fdnode_name() - the word of a kind of fd node, in profiles
 * @kind: enum nvm_fdnode_kind
 *
 * Return: "nvidia_cap" or "imex_channel".
 */
const char *nvm_fdnode_name(enum nvm_fdnode_kind kind)
{
	return kind < NVM_FDNODE_KINDS ? nvm_fdnode_names[kind] : "?";
}

/**
 * nvm_profile_gives() - may a set's caller name this node in an fd field
 * @p: the set's profile
 * @kind: the node's kind, as the driver looks the field up
 * @dev: the node's device number
 *
 * Return: true when @dev is one of @p's nodes of @kind.
 */
bool nvm_profile_gives(const struct nvm_profile *p, enum nvm_fdnode_kind kind, u32 dev)
{
	unsigned int i;

	for (i = 0; i < p->nfdnodes; i++)
		if (p->fdnodes[i].kind == kind && p->fdnodes[i].dev == dev)
			return true;
	return false;
}

/* One "MAJOR:MINOR"; *s advances past it. */
static int nvm_fdnode_parse_one(const char **s, u32 *dev)
{
	char word[24], *colon;
	size_t n = strcspn(*s, " \t\n,");
	u32 major, minor;

	if (!n || n >= sizeof(word))
		return -EINVAL;
	memcpy(word, *s, n);
	word[n] = '\0';
	*s += n;
	colon = strchr(word, ':');
	if (!colon)
		return -EINVAL;
	*colon = '\0';
	if (kstrtou32(word, 10, &major) || kstrtou32(colon + 1, 10, &minor) ||
	    !major || major >= (1U << (32 - MINORBITS)) || minor > MINORMASK)
		return -EINVAL;
	*dev = MKDEV(major, minor);
	return 0;
}

/**
 * nvm_fdnodes_parse() - replace a profile's nodes of one kind
 * @p: a profile being built (not yet published)
 * @kind: the kind the text lists
 * @text: "MAJOR:MINOR" items separated by blanks, commas or newlines; empty
 *	or "none" for no node of @kind
 *
 * A node listed twice is kept once.  @p is left as it was on error.
 *
 * Return: 0, -EINVAL for a malformed item, -ENOSPC over %NVM_FDNODES_MAX
 * nodes in all.
 */
int nvm_fdnodes_parse(struct nvm_profile *p, enum nvm_fdnode_kind kind, const char *text)
{
	struct nvm_fdnode nodes[NVM_FDNODES_MAX];
	unsigned int i, n = 0;
	const char *s = text;

	for (i = 0; i < p->nfdnodes; i++)
		if (p->fdnodes[i].kind != kind)
			nodes[n++] = p->fdnodes[i];
	s += strspn(s, " \t\n,");
	if (!strncmp(s, "none", 4) && !s[4 + strspn(s + 4, " \t\n")])
		s += strlen(s);
	while (*s) {
		u32 dev;
		int ret = nvm_fdnode_parse_one(&s, &dev);

		if (ret)
			return ret;
		s += strspn(s, " \t\n,");
		for (i = 0; i < n && !(nodes[i].kind == kind && nodes[i].dev == dev); i++)
			;
		if (i < n)
			continue;
		if (n == NVM_FDNODES_MAX)
			return -ENOSPC;
		nodes[n++] = (struct nvm_fdnode){ .dev = dev, .kind = kind };
	}
	memcpy(p->fdnodes, nodes, n * sizeof(*nodes));
	p->nfdnodes = n;
	return 0;
}

/**
 * nvm_fdnodes_format() - a profile's nodes of one kind, one per line
 * @p: the profile
 * @kind: the kind
 * @prefix: written before each "MAJOR:MINOR" (a profile line's word), or ""
 * @buf: the output
 * @size: its size
 *
 * Return: the length written.
 */
size_t nvm_fdnodes_format(const struct nvm_profile *p, enum nvm_fdnode_kind kind,
			  const char *prefix, char *buf, size_t size)
{
	unsigned int i;
	size_t n = 0;

	for (i = 0; i < p->nfdnodes; i++)
		if (p->fdnodes[i].kind == kind)
			n += scnprintf(buf + n, size - n, "%s%u:%u\n", prefix,
				       MAJOR(p->fdnodes[i].dev), MINOR(p->fdnodes[i].dev));
	return n;
}

/**
 * nvm_record_init() - an empty audit record
 * @r: the record
 */
void nvm_record_init(struct nvm_record *r)
{
	spin_lock_init(&r->lock);
	r->n = 0;
	r->dropped = 0;
}

/**
 * nvm_record_add() - count a refusal in the audit record
 * @r: the record
 * @v: the refusal (@v->family, @v->number, @v->rule)
 *
 * Called for refusals in audit mode only, so the lock never sits on the
 * path of a call the profile admits.
 */
void nvm_record_add(struct nvm_record *r, const struct nvm_verdict *v)
{
	unsigned long flags;
	unsigned int i;

	spin_lock_irqsave(&r->lock, flags);
	for (i = 0; i < r->n; i++) {
		struct nvm_rec *e = &r->ent[i];

		if (e->family == v->family && e->id == v->number && !strcmp(e->rule, v->rule)) {
			e->count++;
			goto out;
		}
	}
	if (r->n < NVM_REC_MAX)
		r->ent[r->n++] = (struct nvm_rec){ v->family, v->number, v->rule, 1 };
	else
		r->dropped++;
out:
	spin_unlock_irqrestore(&r->lock, flags);
}

/**
 * nvm_record_clear() - empty the audit record
 * @r: the record
 */
void nvm_record_clear(struct nvm_record *r)
{
	unsigned long flags;

	spin_lock_irqsave(&r->lock, flags);
	r->n = 0;
	r->dropped = 0;
	spin_unlock_irqrestore(&r->lock, flags);
}

#ifdef NVM_KUNIT
#include "../kunit/policy_test.c"
#endif
