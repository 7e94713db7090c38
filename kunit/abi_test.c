// SPDX-License-Identifier: GPL-2.0
/*
 * nvmediate: KUnit suite for the ABI selection built from the generated
 * tables (abi.c), built into it with NVM_KUNIT (the #include at its end)
 * and into tests/unit/main.c.  The cases decide for driver answers of
 * their own (nvm_abi_select_version(): the selection once the driver has
 * answered), and set abi.c's own module parameters.
 */
#include <kunit/test.h>

/* The driver's answer: this version, or this error; no module version. */
static struct nvm_version nvm_test_drv_version;
static int nvm_test_drv_ret;

static u64 nvm_test_name_key(const char *name)
{
	struct nvm_version v;

	return nvm_version_parse(name, &v) ? U64_MAX : nvm_version_key(&v);
}

/* The oracle: a linear scan of the generated lists. */
static enum nvm_tier nvm_test_oracle(u64 key, int *range)
{
	unsigned int i;

	*range = -1;
	for (i = 0; i < NVABI_NR_RELEASES; i++)
		if (nvm_test_name_key(nvabi_releases[i].name) == key) {
			*range = nvabi_releases[i].range;
			return NVM_TIER_EXACT;
		}
	for (i = 0; i < NVABI_NR_RANGES; i++)
		if (key > nvm_test_name_key(nvabi_ranges[i].first_name) &&
		    key < nvm_test_name_key(nvabi_ranges[i].last_name)) {
			*range = i;
			return NVM_TIER_INTERPOLATED;
		}
	return NVM_TIER_OUTSIDE;
}

/*
 * The cases start from the parameters' defaults and a tree built from
 * them; in nvmediate.ko, which runs the suite once it is live, the
 * parameters it was loaded with, their tree and the decision for the
 * driver as it is now (abi.c's at load) are put back after.
 */
static char *nvm_test_force_version;
static bool nvm_test_accept_outside, nvm_test_serve_successor;

static int nvm_abi_test_init(struct kunit_suite *suite)
{
	nvm_test_force_version = nvm_force_version;
	nvm_test_accept_outside = nvm_accept_outside;
	nvm_test_serve_successor = nvm_serve_successor;
	nvm_force_version = "";
	nvm_accept_outside = false;
	nvm_serve_successor = true;
	nvm_abi_exit();
	return nvm_abi_init();
}

static void nvm_abi_test_exit(struct kunit_suite *suite)
{
	nvm_force_version = nvm_test_force_version;
	nvm_accept_outside = nvm_test_accept_outside;
	nvm_serve_successor = nvm_test_serve_successor;
	nvm_abi_exit();
	if (!nvm_abi_init())
		nvm_abi_decide_now(NULL);
}

static void abi_test_tree_holds_every_range(struct kunit *test)
{
	KUNIT_EXPECT_EQ(test, nvm_abi_tree.count, (unsigned int)NVABI_NR_RANGES);
}

/*
 * Every release, and the versions just around each range's ends and each
 * release, get the tier and range the oracle gives.
 */
static void abi_test_tiers_match_oracle(struct kunit *test)
{
	static const s64 deltas[] = { -(1LL << NVM_VERSION_PART_BITS), -1, 0, 1,
				      1LL << NVM_VERSION_PART_BITS };
	unsigned int i, d, checked = 0;

	for (i = 0; i < NVABI_NR_RELEASES; i++) {
		u64 base = nvm_test_name_key(nvabi_releases[i].name);

		KUNIT_ASSERT_NE(test, base, U64_MAX);
		for (d = 0; d < ARRAY_SIZE(deltas); d++) {
			u64 key = base + deltas[d];
			const struct nvm_range *r;
			enum nvm_tier want, got;
			int want_range;

			want = nvm_test_oracle(key, &want_range);
			got = nvm_range_tier(&nvm_abi_tree, key, &r);
			KUNIT_EXPECT_EQ_MSG(test, got, want, "%s%+lld", nvabi_releases[i].name,
					    deltas[d]);
			if (want_range < 0)
				KUNIT_EXPECT_NULL(test, r);
			else
				KUNIT_EXPECT_PTR_EQ(test, r ? r->abi : NULL,
						    (const void *)&nvabi_ranges[want_range]);
			checked++;
		}
	}
	KUNIT_EXPECT_EQ(test, checked, NVABI_NR_RELEASES * (unsigned int)ARRAY_SIZE(deltas));
}

static int nvm_test_select(struct kunit *test, const char *version, const struct nvm_range **r)
{
	KUNIT_ASSERT_EQ(test, nvm_version_parse(version, &nvm_test_drv_version), 0);
	enum nvm_tier tier;

	*r = NULL;
	return nvm_abi_select_version(nvm_test_drv_ret, &nvm_test_drv_version, "test", NULL, r,
				      &tier);
}

static void abi_test_select_by_tier(struct kunit *test)
{
	const struct nvm_range *r;

	/* gVisor refused 535.161.08 while it knew 535.161.07: here both are known. */
	KUNIT_EXPECT_EQ(test, nvm_test_select(test, "535.161.08", &r), 0);
	KUNIT_EXPECT_STREQ(test, ((const struct nvabi_range *)r->abi)->first_name, "535.161.07");
	/* Never published, inside a proven range. */
	KUNIT_EXPECT_EQ(test, nvm_test_select(test, "535.171.05", &r), 0);
	KUNIT_EXPECT_EQ(test, nvm_abi_state.tier, NVM_TIER_INTERPOLATED);
	/* In a gap, before the oldest, after the newest, unknown major. */
	KUNIT_EXPECT_EQ(test, nvm_test_select(test, "515.45.01", &r), -EPROTONOSUPPORT);
	KUNIT_EXPECT_EQ(test, nvm_test_select(test, "470.256.02", &r), -EPROTONOSUPPORT);
	KUNIT_EXPECT_EQ(test, nvm_test_select(test, "999.1", &r), -EPROTONOSUPPORT);
	KUNIT_EXPECT_NULL(test, r);

	nvm_test_drv_ret = -ENOENT;
	KUNIT_EXPECT_EQ(test, nvm_test_select(test, "595.45.04", &r), -ENXIO);
	nvm_test_drv_ret = 0;
}

/*
 * A version newer than every known release of its branch: served with the
 * branch's newest release's range where the generated tables mark the
 * branch (nvabi's rule), refused elsewhere and with successor=0; a version
 * in a gap of such a branch stays refused.
 */
static void abi_test_successor(struct kunit *test)
{
	unsigned int i, served = 0, refused = 0;
	const struct nvm_range *r;
	char v[NVM_VERSION_STR_MAX];

	for (i = 0; i < NVABI_NR_BRANCHES; i++) {
		const struct nvabi_branch *b = &nvabi_branches[i];
		const struct nvabi_release *rel = &nvabi_releases[b->newest];

		snprintf(v, sizeof(v), "%u.999.1", b->major);
		if (!b->successor) {
			KUNIT_EXPECT_EQ_MSG(test, nvm_test_select(test, v, &r), -EPROTONOSUPPORT,
					    "%s", v);
			KUNIT_EXPECT_EQ(test, nvm_abi_state.tier, NVM_TIER_OUTSIDE);
			refused++;
			continue;
		}
		KUNIT_EXPECT_EQ_MSG(test, nvm_test_select(test, v, &r), 0, "%s", v);
		KUNIT_EXPECT_EQ(test, nvm_abi_state.tier, NVM_TIER_SUCCESSOR);
		KUNIT_EXPECT_PTR_EQ(test, r ? r->abi : NULL,
				    (const void *)&nvabi_ranges[rel->range]);
		nvm_serve_successor = false;
		KUNIT_EXPECT_EQ_MSG(test, nvm_test_select(test, v, &r), -EPROTONOSUPPORT,
				    "%s", v);
		KUNIT_EXPECT_EQ(test, nvm_abi_state.tier, NVM_TIER_SUCCESSOR);
		KUNIT_EXPECT_NULL(test, r);
		nvm_serve_successor = true;
		served++;
	}
	/* The rule serves some branches and not others. */
	KUNIT_EXPECT_GT(test, served, 0U);
	KUNIT_EXPECT_GT(test, refused, 0U);
	/* Between two known releases of a served branch that differ: refused. */
	KUNIT_EXPECT_EQ(test, nvm_test_select(test, "515.45.01", &r), -EPROTONOSUPPORT);
	KUNIT_EXPECT_EQ(test, nvm_abi_state.tier, NVM_TIER_OUTSIDE);
}

static void abi_test_accept_outside_takes_nearest_lower(struct kunit *test)
{
	const struct nvm_range *r;

	nvm_accept_outside = true;
	KUNIT_EXPECT_EQ(test, nvm_test_select(test, "595.71.05", &r), 0);
	KUNIT_EXPECT_STREQ(test, ((const struct nvabi_range *)r->abi)->last_name, "595.45.04");
	KUNIT_EXPECT_EQ(test, nvm_test_select(test, "515.45.01", &r), 0);
	KUNIT_EXPECT_STREQ(test, ((const struct nvabi_range *)r->abi)->last_name, "515.43.04");
	/* Nothing lower than the oldest release: still refused. */
	KUNIT_EXPECT_EQ(test, nvm_test_select(test, "470.256.02", &r), -EPROTONOSUPPORT);
	nvm_accept_outside = false;
}

static void abi_test_force_version(struct kunit *test)
{
	const struct nvm_range *r;

	nvm_abi_exit();
	nvm_force_version = "570.211.01";
	KUNIT_ASSERT_EQ(test, nvm_abi_init(), 0);
	KUNIT_EXPECT_EQ(test, nvm_test_select(test, "999.1", &r), 0);
	KUNIT_EXPECT_STREQ(test, ((const struct nvabi_range *)r->abi)->last_name, "570.211.01");
	KUNIT_EXPECT_STREQ(test, nvm_abi_state.source, "force_version");

	nvm_abi_exit();
	nvm_force_version = "570.211";
	KUNIT_EXPECT_EQ(test, nvm_abi_init(), 0);
	nvm_abi_exit();
	nvm_force_version = "garbage";
	KUNIT_EXPECT_EQ(test, nvm_abi_init(), -EINVAL);
	nvm_force_version = "";
	KUNIT_EXPECT_EQ(test, nvm_abi_init(), 0);
}

static struct kunit_case nvm_abi_test_cases[] = {
	KUNIT_CASE(abi_test_tree_holds_every_range),
	KUNIT_CASE(abi_test_tiers_match_oracle),
	KUNIT_CASE(abi_test_select_by_tier),
	KUNIT_CASE(abi_test_successor),
	KUNIT_CASE(abi_test_accept_outside_takes_nearest_lower),
	KUNIT_CASE(abi_test_force_version),
	{}
};

static struct kunit_suite nvm_abi_suite = {
	.name = "nvmediate_abi",
	.suite_init = nvm_abi_test_init,
	.suite_exit = nvm_abi_test_exit,
	.test_cases = nvm_abi_test_cases,
};

kunit_test_suite(nvm_abi_suite);
