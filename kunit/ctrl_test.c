// SPDX-License-Identifier: GPL-2.0
/*
 * nvmediate: a case of the validator's suite (nvmediate_validate,
 * decide_test.c) that calls ctrl.c's own nvm_ctrl_emb(), for a control no
 * release has: built into ctrl.c with NVM_KUNIT (the #include at its end)
 * and into tests/unit/main.c, and listed in decide_test.c's suite
 * (nvm_test.h declares it).
 */
#include <kunit/test.h>

#include "nvm_test.h"

/*
 * A list in params that also hold fd fields: no release has such a
 * control; ctrl.c refuses one should it appear, since the driver would
 * copy the list from the caller's memory while the call holds the
 * caller's exec_update_lock (fdctx.c), bounded or not.
 */
void validate_test_emb_fds(struct kunit *test)
{
	struct nvabi_emb x = {
		.size = 16, .nlist = 1,
		.list = { { .list_off = 8, .count_off = 0, .elem = 1,
			    .flags = NVABI_EMB_IN | NVABI_EMB_NOMAX } },
	};
	struct nvm_verdict v = { .nfds = 1 };

	KUNIT_EXPECT_FALSE(test, nvm_ctrl_emb(&v, &x, false));
	KUNIT_EXPECT_STREQ(test, v.rule, "ctrl-embedded-fds");
	KUNIT_EXPECT_EQ(test, v.err, -EPERM);
	KUNIT_EXPECT_NULL(test, v.emb);

	/* Serialized: refused as before, whatever its fd fields. */
	memset(&v, 0, sizeof(v));
	v.nfds = 1;
	KUNIT_EXPECT_FALSE(test, nvm_ctrl_emb(&v, &x, true));
	KUNIT_EXPECT_STREQ(test, v.rule, "ctrl-finn-unbounded");

	/* Without fd fields it is bounced and bounded (validate.c). */
	memset(&v, 0, sizeof(v));
	KUNIT_EXPECT_TRUE(test, nvm_ctrl_emb(&v, &x, false));
	KUNIT_EXPECT_PTR_EQ(test, v.emb, &x);

	/* A list the driver bounds, beside fd fields: refused too. */
	memset(&v, 0, sizeof(v));
	v.nfds = 1;
	x.list[0].flags = NVABI_EMB_IN;
	KUNIT_EXPECT_FALSE(test, nvm_ctrl_emb(&v, &x, false));
	KUNIT_EXPECT_STREQ(test, v.rule, "ctrl-embedded-fds");

	/* The same list without fd fields: forwarded. */
	memset(&v, 0, sizeof(v));
	KUNIT_EXPECT_TRUE(test, nvm_ctrl_emb(&v, &x, false));
	KUNIT_EXPECT_PTR_EQ(test, v.emb, &x);
}
