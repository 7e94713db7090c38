/* SPDX-License-Identifier: GPL-2.0 */
/*
 * nvmediate: the tree of ABI-identical version ranges (ranges.c).
 */
#ifndef NVM_RANGES_H
#define NVM_RANGES_H

#include <linux/rbtree.h>
#include <linux/types.h>

enum nvm_tier {
	NVM_TIER_EXACT,
	NVM_TIER_INTERPOLATED,
	NVM_TIER_OUTSIDE,
	NVM_TIER_SUCCESSOR,
};

/**
 * struct nvm_range - a closed range of driver versions with one ABI
 * @rb: node in &struct nvm_range_tree
 * @first: first release of the range (version key)
 * @last: last release of the range (version key)
 * @releases: sorted keys of the releases known inside the range
 * @nreleases: number of @releases
 * @abi: the descriptor every version in the range uses
 */
struct nvm_range {
	struct rb_node rb;
	u64 first;
	u64 last;
	const u64 *releases;
	unsigned int nreleases;
	const void *abi;
};

struct nvm_range_tree {
	struct rb_root root;
	unsigned int count;
};

int nvm_range_insert(struct nvm_range_tree *tree, struct nvm_range *r);
const struct nvm_range *nvm_range_find(const struct nvm_range_tree *tree, u64 key,
				       const struct nvm_range **below,
				       const struct nvm_range **above);
enum nvm_tier nvm_range_tier(const struct nvm_range_tree *tree, u64 key,
			     const struct nvm_range **range);
const char *nvm_tier_name(enum nvm_tier tier);

#endif /* NVM_RANGES_H */
