// SPDX-License-Identifier: GPL-2.0
/*
 * nvmediate: the tree of driver-version ranges.
 *
 * Each node is a closed range [first, last] of driver versions (keys from
 * nvm_version_key()) proven ABI-identical by tools/nvabi, with the releases
 * known inside it and the ABI descriptor they share.  Ranges never overlap:
 * insertion refuses an overlapping one, so a point lies in at most one
 * range and an ordinary rbtree ordered by @first answers every lookup.
 *
 * Lock rules: the tree is built before it is published and never changed
 * afterwards; lookups take no lock.
 */
#include <linux/bsearch.h>
#include <linux/rbtree.h>

#include "ranges.h"

/**
 * nvm_range_insert() - add a range to a tree under construction
 * @tree: the tree
 * @r: the range; @r->first <= @r->last
 *
 * Return: 0, -EINVAL for an empty range, -EEXIST when it overlaps one
 * already in the tree (the tree is unchanged then).
 */
int nvm_range_insert(struct nvm_range_tree *tree, struct nvm_range *r)
{
	struct rb_node **link = &tree->root.rb_node, *parent = NULL;

	if (r->first > r->last)
		return -EINVAL;
	while (*link) {
		struct nvm_range *cur = rb_entry(*link, struct nvm_range, rb);

		parent = *link;
		if (r->last < cur->first)
			link = &(*link)->rb_left;
		else if (r->first > cur->last)
			link = &(*link)->rb_right;
		else
			return -EEXIST;
	}
	rb_link_node(&r->rb, parent, link);
	rb_insert_color(&r->rb, &tree->root);
	tree->count++;
	return 0;
}

/**
 * nvm_range_find() - the range around a version, and its neighbours
 * @tree: the tree
 * @key: the version
 * @below: if not NULL, set to the nearest range entirely below @key
 * @above: if not NULL, set to the nearest range entirely above @key
 *
 * Return: the range containing @key, or NULL.
 */
const struct nvm_range *nvm_range_find(const struct nvm_range_tree *tree, u64 key,
				       const struct nvm_range **below,
				       const struct nvm_range **above)
{
	const struct rb_node *n = tree->root.rb_node;
	const struct nvm_range *lo = NULL, *hi = NULL;

	while (n) {
		const struct nvm_range *cur = rb_entry(n, struct nvm_range, rb);

		if (key < cur->first) {
			hi = cur;
			n = n->rb_left;
		} else if (key > cur->last) {
			lo = cur;
			n = n->rb_right;
		} else {
			if (below) {
				n = rb_prev(&cur->rb);
				*below = n ? rb_entry(n, struct nvm_range, rb) : NULL;
			}
			if (above) {
				n = rb_next(&cur->rb);
				*above = n ? rb_entry(n, struct nvm_range, rb) : NULL;
			}
			return cur;
		}
	}
	if (below)
		*below = lo;
	if (above)
		*above = hi;
	return NULL;
}

static int nvm_key_cmp(const void *key, const void *elt)
{
	u64 a = *(const u64 *)key, b = *(const u64 *)elt;

	return a < b ? -1 : a > b;
}

/**
 * nvm_range_tier() - how a version relates to the known ranges
 * @tree: the tree
 * @key: the version
 * @range: set to the containing range, or NULL when outside
 *
 * Return: %NVM_TIER_EXACT for a known release, %NVM_TIER_INTERPOLATED for
 * another version strictly inside a range, %NVM_TIER_OUTSIDE otherwise.
 */
enum nvm_tier nvm_range_tier(const struct nvm_range_tree *tree, u64 key,
			     const struct nvm_range **range)
{
	const struct nvm_range *r = nvm_range_find(tree, key, NULL, NULL);

	*range = r;
	if (!r)
		return NVM_TIER_OUTSIDE;
	if (bsearch(&key, r->releases, r->nreleases, sizeof(*r->releases), nvm_key_cmp))
		return NVM_TIER_EXACT;
	return NVM_TIER_INTERPOLATED;
}

static const char *const nvm_tier_names[] = {
	[NVM_TIER_EXACT]	= "exact",
	[NVM_TIER_INTERPOLATED]	= "interpolated",
	[NVM_TIER_OUTSIDE]	= "outside",
	[NVM_TIER_SUCCESSOR]	= "successor",
};

/**
 * nvm_tier_name() - the tier's name, as `nvabi show` and sysfs spell it
 * @tier: the tier
 *
 * Return: a constant string.
 */
const char *nvm_tier_name(enum nvm_tier tier)
{
	return tier < ARRAY_SIZE(nvm_tier_names) ? nvm_tier_names[tier] : "unknown";
}

#ifdef NVM_KUNIT
#include "../kunit/ranges_test.c"
#endif
