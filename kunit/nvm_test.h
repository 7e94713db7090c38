/* SPDX-License-Identifier: GPL-2.0 */
/*
 * nvmediate: what the KUnit suites of the validator's decisions share
 * (decide_test.c, fdplan_test.c, policy_test.c): the releases they sample,
 * payload builders in each release's layout, and a profile that admits
 * every call.  Each test file is built into its unit (kunit/<unit>_test.c
 * at the end of kmod/<unit>.c), so what is here is static, inline or
 * __maybe_unused: a unit that uses part of it builds without warnings.
 */
#ifndef NVM_TEST_H
#define NVM_TEST_H

#include <kunit/test.h>
#include <linux/slab.h>
#include <linux/string.h>

#include "decide.h"
#include "policy.h"
#include "tables.h"

#define NVM_TEST_ALL_POLICY	(NVM_POLICY_ROOT | NVM_POLICY_FINN | NVM_POLICY_GSS)
#define NVM_TEST_PARAMS_PTR	0x7f0000001000ULL

/* Releases whose ABIs the table-driven cases sample: one per layout change. */
static const char *const nvm_test_releases[] __maybe_unused = {
	"515.43.04", "520.61.07", "525.60.13", "530.41.03", "535.43.02", "535.288.01",
	"550.54.14", "560.35.03", "570.86.15", "580.142", "595.45.04",
};

static inline unsigned int nvm_test_abi_of(const char *name)
{
	unsigned int i;

	for (i = 0; i < NVABI_NR_RELEASES; i++)
		if (!strcmp(nvabi_releases[i].name, name))
			return nvabi_ranges[nvabi_releases[i].range].abi;
	return U32_MAX;
}

static inline void nvm_test_release_desc(const char *const *r, char *desc)
{
	strscpy(desc, *r, KUNIT_PARAM_DESC_SIZE);
}

/* Not every file that includes this one runs a case per release. */
static const void *nvm_test_release_gen_params(const void *prev, char *desc) __maybe_unused;
KUNIT_ARRAY_PARAM(nvm_test_release, nvm_test_releases, nvm_test_release_desc);

static inline unsigned int nvm_test_param_abi(struct kunit *test)
{
	unsigned int abi = nvm_test_abi_of(*(const char *const *)test->param_value);

	KUNIT_ASSERT_LT(test, abi, (unsigned int)NVABI_NR_ABIS);
	return abi;
}

static inline void nvm_test_put32(void *p, unsigned int off, u32 x)
{
	if (off != NVABI_OFF_NONE)
		memcpy(p + off, &x, sizeof(x));
}

static inline void nvm_test_put64(void *p, unsigned int off, u64 x)
{
	if (off != NVABI_OFF_NONE)
		memcpy(p + off, &x, sizeof(x));
}

/* An NVOS54 of ABI @abi in @buf (64 bytes). */
static inline unsigned int nvm_test_ctl(void *buf, unsigned int abi, u32 cmd, u32 flags,
					u64 params, u32 psize)
{
	const struct nvabi_rmlayout *l = &nvabi_rmlayouts[nvabi_abi_rmlayout[abi]];

	memset(buf, 0, 64);
	nvm_test_put32(buf, l->ctl_cmd, cmd);
	nvm_test_put32(buf, l->ctl_flags, flags);
	nvm_test_put64(buf, l->ctl_params, params);
	nvm_test_put32(buf, l->ctl_psize, psize);
	return l->ctl_size;
}

/* An NVOS21 (@big false) or NVOS64 of ABI @abi in @buf (64 bytes). */
static inline unsigned int nvm_test_alloc(void *buf, unsigned int abi, bool big, u32 hclass,
					  u64 params)
{
	const struct nvabi_rmlayout *l = &nvabi_rmlayouts[nvabi_abi_rmlayout[abi]];

	memset(buf, 0, 64);
	nvm_test_put32(buf, big ? l->a64_class : l->a21_class, hclass);
	nvm_test_put64(buf, big ? l->a64_params : l->a21_params, params);
	return big ? l->a64_size : l->a21_size;
}

/*
 * A real profile that admits every entry of every table: all capabilities,
 * and an allow entry for each number, so that the shape checks are tested
 * through the decision production makes (decide.c) and only they refuse.
 * Made once per suite (suite_init) and freed after it.
 */
static struct nvm_profile *nvm_test_all __maybe_unused;

static inline int nvm_test_all_init(struct kunit_suite *suite)
{
	nvm_test_all = nvm_profile_admit_all();
	return nvm_test_all ? 0 : -ENOMEM;
}

static inline void nvm_test_all_exit(struct kunit_suite *suite)
{
	kfree(nvm_test_all);
	nvm_test_all = NULL;
}

/*
 * The decision on an escape whose payload the validator copied: @payload
 * holds its @size bytes.  XFER's inner payload is not modelled here (its
 * cases are in validate_test_xfer()): it counts as unreadable.
 */
static inline bool nvm_test_decide(unsigned int abi, enum nvm_kind kind, unsigned int policy,
				   unsigned int nr, unsigned int size, const void *payload,
				   struct nvm_verdict *v)
{
	struct nvm_call c = { .abi = abi, .kind = kind, .prof = nvm_test_all, .policy = policy,
			      .nr = nr, .size = size, .payload = payload };

	if (nr == NVM_NV_ESC_XFER && size == sizeof(struct nvm_xfer)) {
		c.hdr = payload;
		c.payload = NULL;
		c.payload_err = -EFAULT;
	}
	return nvm_decide(&c, v);
}

static inline enum nvm_kind nvm_test_kind_for(unsigned int node)
{
	return node == NVABI_NODE_GPU ? NVM_NODE_GPU : NVM_NODE_CTL;
}

/* Cases of nvmediate_validate that call a family check's own functions. */
void validate_test_emb_fds(struct kunit *test);

#endif /* NVM_TEST_H */
