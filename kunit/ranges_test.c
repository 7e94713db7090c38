// SPDX-License-Identifier: GPL-2.0
/*
 * nvmediate: KUnit suite for the version-range tree (ranges.c), against a
 * brute-force oracle; built into it with NVM_KUNIT (the #include at its
 * end) and into tests/unit/main.c.
 */
#include <kunit/test.h>
#include <linux/prandom.h>

#define NVM_TEST_RANGES	4000
#define NVM_TEST_POINTS	20000
#define NVM_TEST_SPACE	200000

static void ranges_test_insert_rejects_overlap(struct kunit *test)
{
	struct nvm_range_tree tree = { RB_ROOT };
	struct nvm_range r[6] = {
		{ .first = 10, .last = 20 }, { .first = 30, .last = 30 },
		{ .first = 20, .last = 25 },	/* shares 20 */
		{ .first = 5, .last = 10 },	/* shares 10 */
		{ .first = 0, .last = 100 },	/* covers all */
		{ .first = 26, .last = 25 },	/* empty */
	};

	KUNIT_EXPECT_EQ(test, nvm_range_insert(&tree, &r[0]), 0);
	KUNIT_EXPECT_EQ(test, nvm_range_insert(&tree, &r[1]), 0);
	KUNIT_EXPECT_EQ(test, nvm_range_insert(&tree, &r[2]), -EEXIST);
	KUNIT_EXPECT_EQ(test, nvm_range_insert(&tree, &r[3]), -EEXIST);
	KUNIT_EXPECT_EQ(test, nvm_range_insert(&tree, &r[4]), -EEXIST);
	KUNIT_EXPECT_EQ(test, nvm_range_insert(&tree, &r[5]), -EINVAL);
	KUNIT_EXPECT_EQ(test, tree.count, 2U);
}

/*
 * Thousands of random ranges are offered; the oracle is a flat array of
 * owners per point.  Every insert decision, and every lookup with its
 * neighbours, must agree with it.
 */
static void ranges_test_random_against_oracle(struct kunit *test)
{
	struct nvm_range_tree tree = { RB_ROOT };
	struct rnd_state rnd;
	struct nvm_range *r;
	s16 *owner;
	unsigned int i, inserted = 0;
	u64 p;

	r = kunit_kcalloc(test, NVM_TEST_RANGES, sizeof(*r), GFP_KERNEL);
	owner = kunit_kmalloc_array(test, NVM_TEST_SPACE, sizeof(*owner), GFP_KERNEL);
	KUNIT_ASSERT_NOT_NULL(test, r);
	KUNIT_ASSERT_NOT_NULL(test, owner);
	memset(owner, 0xff, NVM_TEST_SPACE * sizeof(*owner));	/* -1: nobody */
	prandom_seed_state(&rnd, 0x6e766d64);

	for (i = 0; i < NVM_TEST_RANGES; i++) {
		u64 a = prandom_u32_state(&rnd) % NVM_TEST_SPACE;
		u64 len = prandom_u32_state(&rnd) % 64;
		bool free = true;
		int ret;

		r[i].first = a;
		r[i].last = min_t(u64, a + len, NVM_TEST_SPACE - 1);
		for (p = r[i].first; p <= r[i].last; p++)
			free &= owner[p] < 0;
		ret = nvm_range_insert(&tree, &r[i]);
		KUNIT_EXPECT_EQ(test, ret, free ? 0 : -EEXIST);
		if (ret)
			continue;
		inserted++;
		for (p = r[i].first; p <= r[i].last; p++)
			owner[p] = i;
	}
	KUNIT_EXPECT_EQ(test, tree.count, inserted);
	KUNIT_EXPECT_GT(test, inserted, NVM_TEST_RANGES / 4);

	for (i = 0; i < NVM_TEST_POINTS; i++) {
		const struct nvm_range *got, *below, *above;
		s64 q;

		p = prandom_u32_state(&rnd) % NVM_TEST_SPACE;
		got = nvm_range_find(&tree, p, &below, &above);
		if (owner[p] < 0)
			KUNIT_EXPECT_NULL(test, got);
		else
			KUNIT_EXPECT_PTR_EQ(test, got, &r[owner[p]]);

		/* Nearest owner strictly below/above the range (or point). */
		q = (got ? (s64)got->first : (s64)p) - 1;
		while (q >= 0 && owner[q] < 0)
			q--;
		if (q < 0)
			KUNIT_EXPECT_NULL(test, below);
		else
			KUNIT_EXPECT_PTR_EQ(test, below, &r[owner[q]]);
		q = (got ? (s64)got->last : (s64)p) + 1;
		while (q < NVM_TEST_SPACE && owner[q] < 0)
			q++;
		if (q >= NVM_TEST_SPACE)
			KUNIT_EXPECT_NULL(test, above);
		else
			KUNIT_EXPECT_PTR_EQ(test, above, &r[owner[q]]);
	}
}

/* Tiers at every boundary of two ranges with releases inside. */
static void ranges_test_tier_boundaries(struct kunit *test)
{
	static const u64 rel_a[] = { 100, 105, 110 };
	static const u64 rel_b[] = { 200, 250 };
	struct nvm_range a = { .first = 100, .last = 110, .releases = rel_a, .nreleases = 3 };
	struct nvm_range b = { .first = 200, .last = 250, .releases = rel_b, .nreleases = 2 };
	struct nvm_range_tree tree = { RB_ROOT };
	static const struct { u64 key; enum nvm_tier tier; int range; } cases[] = {
		{ 0, NVM_TIER_OUTSIDE, -1 },   { 99, NVM_TIER_OUTSIDE, -1 },
		{ 100, NVM_TIER_EXACT, 0 },    { 101, NVM_TIER_INTERPOLATED, 0 },
		{ 105, NVM_TIER_EXACT, 0 },    { 109, NVM_TIER_INTERPOLATED, 0 },
		{ 110, NVM_TIER_EXACT, 0 },    { 111, NVM_TIER_OUTSIDE, -1 },
		{ 199, NVM_TIER_OUTSIDE, -1 }, { 200, NVM_TIER_EXACT, 1 },
		{ 201, NVM_TIER_INTERPOLATED, 1 }, { 249, NVM_TIER_INTERPOLATED, 1 },
		{ 250, NVM_TIER_EXACT, 1 },    { 251, NVM_TIER_OUTSIDE, -1 },
		{ U64_MAX, NVM_TIER_OUTSIDE, -1 },
	};
	const struct nvm_range *ranges[] = { &a, &b }, *got;
	unsigned int i;

	KUNIT_ASSERT_EQ(test, nvm_range_insert(&tree, &b), 0);
	KUNIT_ASSERT_EQ(test, nvm_range_insert(&tree, &a), 0);
	for (i = 0; i < ARRAY_SIZE(cases); i++) {
		KUNIT_EXPECT_EQ_MSG(test, nvm_range_tier(&tree, cases[i].key, &got), cases[i].tier,
				    "key %llu", cases[i].key);
		if (cases[i].range < 0)
			KUNIT_EXPECT_NULL(test, got);
		else
			KUNIT_EXPECT_PTR_EQ(test, got, ranges[cases[i].range]);
	}
	KUNIT_EXPECT_STREQ(test, nvm_tier_name(NVM_TIER_INTERPOLATED), "interpolated");
}

static struct kunit_case nvm_ranges_test_cases[] = {
	KUNIT_CASE(ranges_test_insert_rejects_overlap),
	KUNIT_CASE(ranges_test_random_against_oracle),
	KUNIT_CASE(ranges_test_tier_boundaries),
	{}
};

static struct kunit_suite nvm_ranges_suite = {
	.name = "nvmediate_ranges",
	.test_cases = nvm_ranges_test_cases,
};

kunit_test_suite(nvm_ranges_suite);
