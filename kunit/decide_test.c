// SPDX-License-Identifier: GPL-2.0
/*
 * nvmediate: KUnit suite for the validator's decisions (escape.c, ctrl.c,
 * alloc.c, uvm.c through decide.c's nvm_decide(), the function the
 * validator calls), on kernel copies of payloads, over
 * the generated descriptors of a sample of ABIs; and a randomized property
 * test against an oracle written here from the same tables.  Built into
 * decide.c with NVM_KUNIT (the #include at its end) and into
 * tests/unit/main.c.
 */
#include <kunit/test.h>
#include <linux/prandom.h>
#include <linux/sort.h>

#include "nvm_test.h"

static bool nvm_test_user_priv(unsigned int priv)
{
	return priv == NVABI_PRIV_USER || priv == NVABI_PRIV_UNKNOWN || priv == NVABI_PRIV_ROOT;
}

/*
 * Every escape of the ABI: accepted at its size, refused at size +-1.  The
 * escapes whose payload decides further (RM_CONTROL, RM_ALLOC, and XFER's
 * inner escape) have cases of their own.
 */
static void validate_test_escape_sizes(struct kunit *test)
{
	unsigned int abi = nvm_test_param_abi(test), i, n = 0;
	u8 *buf = kunit_kzalloc(test, 16384 + 8, GFP_KERNEL);
	struct nvm_verdict v;

	KUNIT_ASSERT_NOT_NULL(test, buf);
	for (i = 0; i < NVABI_NR_ESCS; i++) {
		const struct nvabi_esc *e = &nvabi_escs[i];
		enum nvm_kind kind = nvm_test_kind_for(e->node);
		unsigned int size = e->size;
		bool ok;

		if (!nvabi_set_has(e->set, abi) || e->nr == NVM_NV_ESC_RM_CONTROL ||
		    e->nr == NVM_NV_ESC_RM_ALLOC || e->nr == NVM_NV_ESC_XFER)
			continue;
		n++;
		memset(buf, 0, size + 8);
		ok = nvm_test_decide(abi, kind, NVM_TEST_ALL_POLICY, e->nr, size, buf, &v);
		KUNIT_EXPECT_TRUE_MSG(test, ok, "esc 0x%x size %u: %s", e->nr, size, v.rule);
		if (e->priv == NVABI_PRIV_ROOT) {
			ok = nvm_test_decide(abi, kind, 0, e->nr, size, buf, &v);
			KUNIT_EXPECT_FALSE(test, ok);
			KUNIT_EXPECT_EQ_MSG(test, v.err, -EPERM, "esc 0x%x", e->nr);
		}
		if (e->kind != NVABI_SIZE_MIN) {
			ok = nvm_test_decide(abi, kind, NVM_TEST_ALL_POLICY, e->nr, size + 1, buf,
					     &v);
			KUNIT_EXPECT_FALSE_MSG(test, ok, "esc 0x%x size %u", e->nr, size + 1);
			KUNIT_EXPECT_EQ(test, v.err, -EINVAL);
		}
		ok = nvm_test_decide(abi, kind, NVM_TEST_ALL_POLICY, e->nr, size - 1, buf, &v);
		KUNIT_EXPECT_FALSE_MSG(test, ok, "esc 0x%x size %u", e->nr, size - 1);
		KUNIT_EXPECT_EQ(test, v.err, -EINVAL);
		/* On the other kind of node, where the escape is not accepted. */
		if (e->node != NVABI_NODE_ANY) {
			ok = nvm_test_decide(abi, kind == NVM_NODE_GPU ? NVM_NODE_CTL : NVM_NODE_GPU,
					     NVM_TEST_ALL_POLICY, e->nr, size, buf, &v);
			KUNIT_EXPECT_FALSE(test, ok);
			KUNIT_EXPECT_EQ(test, v.err, -EINVAL);
		}
	}
	KUNIT_EXPECT_GT(test, n, 10U);
	/* A number no release knows: -EINVAL, as the driver answers it. */
	KUNIT_EXPECT_FALSE(test, nvm_test_decide(abi, NVM_NODE_CTL, 0, 0x01, 4, buf, &v));
	KUNIT_EXPECT_EQ(test, v.err, -EINVAL);
}

/* Every control of the ABI: accepted at its params size, refused at +-1. */
static void validate_test_control_sizes(struct kunit *test)
{
	unsigned int abi = nvm_test_param_abi(test), i, n = 0;
	u8 buf[64];
	struct nvm_verdict v;

	for (i = 0; i < NVABI_NR_CTRLS; i++) {
		const struct nvabi_ctrl *e = &nvabi_ctrls[i];
		u64 p = e->size ? NVM_TEST_PARAMS_PTR : 0;
		unsigned int size;
		bool ok;

		if (!nvabi_set_has(e->set, abi))
			continue;
		size = nvm_test_ctl(buf, abi, e->cmd, 0, p, e->size);
		ok = nvm_test_decide(abi, NVM_NODE_CTL, NVM_TEST_ALL_POLICY,
				     NVM_NV_ESC_RM_CONTROL, size, buf, &v);
		if (!nvm_test_user_priv(e->priv) || e->size == NVABI_SIZE_UNKNOWN) {
			KUNIT_EXPECT_FALSE_MSG(test, ok, "ctrl 0x%08x priv %u", e->cmd, e->priv);
			KUNIT_EXPECT_TRUE(test, v.err == -EPERM || v.err == -E2BIG ||
					  v.status == NVM_NV_ERR_INVALID_ARGUMENT);
			continue;
		}
		n++;
		KUNIT_EXPECT_TRUE_MSG(test, ok, "ctrl 0x%08x size %u: %s", e->cmd, e->size, v.rule);
		KUNIT_EXPECT_EQ(test, v.nested, p);
		KUNIT_EXPECT_EQ(test, v.nested_size, e->size);
		if (e->priv == NVABI_PRIV_ROOT) {
			KUNIT_EXPECT_FALSE(test, nvm_test_decide(abi, NVM_NODE_CTL, NVM_POLICY_GSS,
								 NVM_NV_ESC_RM_CONTROL, size, buf,
								 &v));
			KUNIT_EXPECT_EQ(test, v.err, -EPERM);
		}
		/* A wrong paramsSize: answered as the driver answers it. */
		nvm_test_ctl(buf, abi, e->cmd, 0, NVM_TEST_PARAMS_PTR, e->size + 1);
		KUNIT_EXPECT_FALSE(test, nvm_test_decide(abi, NVM_NODE_CTL, NVM_TEST_ALL_POLICY,
							 NVM_NV_ESC_RM_CONTROL, size, buf, &v));
		KUNIT_EXPECT_EQ_MSG(test, v.err, 0, "ctrl 0x%08x", e->cmd);
		KUNIT_EXPECT_EQ_MSG(test, v.status, (u32)NVM_NV_ERR_INVALID_ARGUMENT,
				    "ctrl 0x%08x", e->cmd);
		if (e->size) {
			nvm_test_ctl(buf, abi, e->cmd, 0, e->size > 1 ? NVM_TEST_PARAMS_PTR : 0,
				     e->size - 1);
			KUNIT_EXPECT_FALSE(test, nvm_test_decide(abi, NVM_NODE_CTL,
								 NVM_TEST_ALL_POLICY,
								 NVM_NV_ESC_RM_CONTROL, size, buf,
								 &v));
			KUNIT_EXPECT_EQ_MSG(test, v.err, 0, "ctrl 0x%08x", e->cmd);
			KUNIT_EXPECT_EQ_MSG(test, v.status, (u32)NVM_NV_ERR_INVALID_ARGUMENT,
					    "ctrl 0x%08x", e->cmd);
		}
		/* The NVOS54 itself at +-1. */
		nvm_test_ctl(buf, abi, e->cmd, 0, p, e->size);
		KUNIT_EXPECT_FALSE(test, nvm_test_decide(abi, NVM_NODE_CTL, NVM_TEST_ALL_POLICY,
							 NVM_NV_ESC_RM_CONTROL, size + 1, buf,
							 &v));
		KUNIT_EXPECT_EQ(test, v.err, -EINVAL);
		KUNIT_EXPECT_FALSE(test, nvm_test_decide(abi, NVM_NODE_CTL, NVM_TEST_ALL_POLICY,
							 NVM_NV_ESC_RM_CONTROL, size - 1, buf,
							 &v));
		KUNIT_EXPECT_EQ(test, v.err, -EINVAL);
	}
	KUNIT_EXPECT_GT(test, n, 100U);
}

/* Every class of the ABI, in both payload forms. */
static void validate_test_class_forms(struct kunit *test)
{
	unsigned int abi = nvm_test_param_abi(test), i, n = 0;
	u8 buf[64];
	struct nvm_verdict v;
	int big;

	for (i = 0; i < NVABI_NR_CLASSES; i++) {
		const struct nvabi_class *e = &nvabi_classes[i];
		bool callback = e->hclass == NVM_NV01_EVENT_KERNEL_CALLBACK ||
				e->hclass == NVM_NV01_EVENT_KERNEL_CALLBACK_EX;
		bool client = e->hclass == 0x0 || e->hclass == 0x1 || e->hclass == 0x41;

		if (!nvabi_set_has(e->set, abi))
			continue;
		for (big = 0; big < 2; big++) {
			unsigned int size = nvm_test_alloc(buf, abi, big, e->hclass,
							   NVM_TEST_PARAMS_PTR);
			bool ok = nvm_test_decide(abi, NVM_NODE_CTL, NVM_TEST_ALL_POLICY,
						  NVM_NV_ESC_RM_ALLOC, size, buf, &v);

			if (client) {	/* root-client classes: always allowed */
				KUNIT_EXPECT_TRUE_MSG(test, ok, "class 0x%x", e->hclass);
				n++;
				continue;
			}
			if (callback || !nvm_test_user_priv(e->priv) ||
			    e->size == NVABI_SIZE_UNKNOWN) {
				KUNIT_EXPECT_FALSE_MSG(test, ok, "class 0x%x", e->hclass);
				KUNIT_EXPECT_EQ(test, v.err, -EPERM);
				continue;
			}
			n++;
			KUNIT_EXPECT_TRUE_MSG(test, ok, "class 0x%x form %d: %s", e->hclass, big,
					      v.rule);
			if (e->params != NVABI_PARAMS_NONE)
				KUNIT_EXPECT_EQ(test, v.nested_size, e->size);
			KUNIT_EXPECT_FALSE(test, nvm_test_decide(abi, NVM_NODE_CTL,
								 NVM_TEST_ALL_POLICY,
								 NVM_NV_ESC_RM_ALLOC, size + 1, buf,
								 &v));
			KUNIT_EXPECT_EQ(test, v.err, -EINVAL);
			KUNIT_EXPECT_FALSE(test, nvm_test_decide(abi, NVM_NODE_CTL,
								 NVM_TEST_ALL_POLICY,
								 NVM_NV_ESC_RM_ALLOC, size - 1, buf,
								 &v));
			KUNIT_EXPECT_EQ(test, v.err, -EINVAL);
		}
	}
	KUNIT_EXPECT_GT(test, n, 50U);
}

/* Every UVM command of the ABI is known with its size; others are not. */
static void validate_test_uvm_commands(struct kunit *test)
{
	unsigned int abi = nvm_test_param_abi(test), i, n = 0;
	struct nvm_verdict v = { };
	u32 size;
	/* What the driver answers a command its UVM node does not take. */
	int lacks = nvabi_abi_uvm_unknown[abi] == NVABI_UVM_UNKNOWN_ENOSYS ? -ENOSYS : -EINVAL;

	KUNIT_EXPECT_NE(test, nvabi_abi_uvm_unknown[abi], NVABI_UVM_UNKNOWN_NONE);
	for (i = 0; i < NVABI_NR_UVMS; i++) {
		const struct nvabi_uvm *e = &nvabi_uvms[i];
		struct nvm_call c = { .abi = abi, .kind = NVM_NODE_UVM, .prof = nvm_test_all,
				      .nr = e->cmd };
		bool ok;

		if (!nvabi_set_has(e->set, abi))
			continue;
		ok = nvm_uvm_decide(&c, &v, &size);
		if (e->node == NVABI_NODE_UVM) {
			n++;
			KUNIT_EXPECT_TRUE(test, ok);
			KUNIT_EXPECT_EQ(test, size, e->size);
		} else {
			KUNIT_EXPECT_FALSE(test, ok);
			KUNIT_EXPECT_EQ(test, v.err, lacks);
		}
	}
	KUNIT_EXPECT_GT(test, n, 30U);
	/* UVM_RUN_TEST and the other test commands are not in any table. */
	for (i = 200; i < 300; i++) {
		struct nvm_call c = { .abi = abi, .kind = NVM_NODE_UVM, .prof = nvm_test_all,
				      .nr = i };

		KUNIT_EXPECT_FALSE(test, nvm_uvm_decide(&c, &v, &size));
		KUNIT_EXPECT_EQ(test, v.err, lacks);
	}
}

/* Each rule of RM_CONTROL, and which answer wins. */
static void validate_test_control_rules(struct kunit *test)
{
	unsigned int abi = nvm_test_abi_of("595.45.04");
	const struct nvabi_rmlayout *l = nvm_abi_rmlayout(abi);
	const struct nvabi_ctrl *user = NULL, *kern = NULL;
	struct nvm_verdict v;
	unsigned int i, size;
	u8 buf[64];

	for (i = 0; i < NVABI_NR_CTRLS; i++) {
		const struct nvabi_ctrl *e = &nvabi_ctrls[i];

		if (!nvabi_set_has(e->set, abi) || (e->cmd & NVM_NV_CTRL_GSS_LEGACY))
			continue;
		if (!user && e->priv == NVABI_PRIV_USER && e->size && e->size < 4096)
			user = e;
		if (!kern && e->priv == NVABI_PRIV_KERNEL)
			kern = e;
	}
	KUNIT_ASSERT_NOT_NULL(test, user);
	KUNIT_ASSERT_NOT_NULL(test, kern);

#define DECIDE(pol) nvm_test_decide(abi, NVM_NODE_CTL, (pol), NVM_NV_ESC_RM_CONTROL, size, buf, &v)
	/* unknown command: NV_ERR_NOT_SUPPORTED in status, at this ABI's offset */
	size = nvm_test_ctl(buf, abi, 0x00ff0001, 0, 0, 0);
	KUNIT_EXPECT_FALSE(test, DECIDE(0));
	KUNIT_EXPECT_EQ(test, v.err, 0);
	KUNIT_EXPECT_EQ(test, v.status, (u32)NVM_NV_ERR_NOT_SUPPORTED);
	KUNIT_EXPECT_EQ(test, v.status_off, (unsigned int)l->ctl_status);
	/* flags 0x1 and 0x2: never from user space, even with every policy;
	 * answered as the driver answers them */
	size = nvm_test_ctl(buf, abi, user->cmd, NVM_NVOS54_FLAGS_IRQL_RAISED,
			    NVM_TEST_PARAMS_PTR, user->size);
	KUNIT_EXPECT_FALSE(test, DECIDE(NVM_TEST_ALL_POLICY));
	KUNIT_EXPECT_EQ(test, v.err, 0);
	KUNIT_EXPECT_EQ(test, v.status, (u32)NVM_NV_ERR_INVALID_ARGUMENT);
	KUNIT_EXPECT_STREQ(test, v.rule, "ctrl-flags");
	size = nvm_test_ctl(buf, abi, user->cmd, NVM_NVOS54_FLAGS_LOCK_BYPASS,
			    NVM_TEST_PARAMS_PTR, user->size);
	KUNIT_EXPECT_FALSE(test, DECIDE(NVM_TEST_ALL_POLICY));
	KUNIT_EXPECT_EQ(test, v.err, 0);
	KUNIT_EXPECT_EQ(test, v.status, (u32)NVM_NV_ERR_INVALID_ARGUMENT);
	/* FINN-serialized: only with allow_finn */
	size = nvm_test_ctl(buf, abi, user->cmd, NVM_NVOS54_FLAGS_FINN_SERIALIZED,
			    NVM_TEST_PARAMS_PTR, user->size + 8);
	KUNIT_EXPECT_FALSE(test, DECIDE(0));
	KUNIT_EXPECT_EQ(test, v.err, -EPERM);
	KUNIT_EXPECT_TRUE(test, DECIDE(NVM_POLICY_FINN));
	/* GSS-legacy: unknown ones get the driver's answer, known ones need allow_gss */
	size = nvm_test_ctl(buf, abi, 0x00ff0001 | NVM_NV_CTRL_GSS_LEGACY, 0, 0, 0);
	KUNIT_EXPECT_FALSE(test, DECIDE(0));
	KUNIT_EXPECT_EQ(test, v.status, (u32)NVM_NV_ERR_NOT_SUPPORTED);
	{
		unsigned int gabi = nvm_test_abi_of("535.288.01");

		/* NV2080_CTRL_CMD_GPUMON_GET_SAMPLES (0x2080a083), 24 bytes, to 550 */
		size = nvm_test_ctl(buf, gabi, 0x2080a083, 0, NVM_TEST_PARAMS_PTR, 24);
		KUNIT_EXPECT_FALSE(test, nvm_test_decide(gabi, NVM_NODE_CTL, 0,
							 NVM_NV_ESC_RM_CONTROL, size, buf, &v));
		KUNIT_EXPECT_EQ(test, v.err, -EPERM);
		KUNIT_EXPECT_TRUE(test, nvm_test_decide(gabi, NVM_NODE_CTL, NVM_POLICY_GSS,
							NVM_NV_ESC_RM_CONTROL, size, buf, &v));
	}
	/* params NULL iff size 0: the driver's answer too */
	size = nvm_test_ctl(buf, abi, user->cmd, 0, 0, user->size);
	KUNIT_EXPECT_FALSE(test, DECIDE(0));
	KUNIT_EXPECT_EQ(test, v.err, 0);
	KUNIT_EXPECT_EQ(test, v.status, (u32)NVM_NV_ERR_INVALID_ARGUMENT);
	KUNIT_EXPECT_STREQ(test, v.rule, "ctrl-params-null");
	size = nvm_test_ctl(buf, abi, user->cmd, 0, NVM_TEST_PARAMS_PTR, 0);
	KUNIT_EXPECT_FALSE(test, DECIDE(0));
	KUNIT_EXPECT_EQ(test, v.err, 0);
	KUNIT_EXPECT_EQ(test, v.status, (u32)NVM_NV_ERR_INVALID_ARGUMENT);
	/* over 1 MiB: -E2BIG, before the command is even looked up */
	size = nvm_test_ctl(buf, abi, 0x00ff0001, 0, NVM_TEST_PARAMS_PTR, NVM_PARAMS_MAX + 1);
	KUNIT_EXPECT_FALSE(test, DECIDE(0));
	KUNIT_EXPECT_EQ(test, v.err, -E2BIG);
	/* kernel-only: never, whatever the policy */
	size = nvm_test_ctl(buf, abi, kern->cmd, 0,
			    kern->size && kern->size != NVABI_SIZE_UNKNOWN ? NVM_TEST_PARAMS_PTR : 0,
			    kern->size == NVABI_SIZE_UNKNOWN ? 0 : kern->size);
	KUNIT_EXPECT_FALSE(test, DECIDE(NVM_TEST_ALL_POLICY));
	KUNIT_EXPECT_EQ(test, v.err, -EPERM);
	/* the same numbers inside XFER are checked the same way */
	{
		struct nvm_call c = { .abi = abi, .kind = NVM_NODE_CTL, .prof = nvm_test_all,
				      .nr = NVM_NV_ESC_XFER, .size = 16, .xfer = true,
				      .payload = buf };

		KUNIT_EXPECT_FALSE(test, nvm_decide(&c, &v));
		KUNIT_EXPECT_EQ(test, v.err, -EINVAL);
	}
#undef DECIDE
}

/* RM_ALLOC: the status offset of each layout, and the class rules. */
static void validate_test_alloc_rules(struct kunit *test)
{
	static const struct { const char *rel; unsigned int size21, st21, size64, st64; } t[] = {
		{ "520.61.07", 32, 24, 40, 32 },
		{ "530.41.03", 32, 24, 40, 36 },
		{ "535.43.02", 32, 28, 48, 40 },
		{ "595.45.04", 32, 28, 48, 40 },
	};
	struct nvm_verdict v;
	unsigned int i, size;
	u8 buf[64];

	for (i = 0; i < ARRAY_SIZE(t); i++) {
		unsigned int abi = nvm_test_abi_of(t[i].rel);

		KUNIT_ASSERT_LT(test, abi, (unsigned int)NVABI_NR_ABIS);
		size = nvm_test_alloc(buf, abi, false, 0xdead0001, 0);
		KUNIT_EXPECT_EQ_MSG(test, size, t[i].size21, "%s", t[i].rel);
		KUNIT_EXPECT_FALSE(test, nvm_test_decide(abi, NVM_NODE_CTL, 0,
							 NVM_NV_ESC_RM_ALLOC, size, buf, &v));
		KUNIT_EXPECT_EQ(test, v.err, 0);
		KUNIT_EXPECT_EQ(test, v.status, (u32)NVM_NV_ERR_INVALID_CLASS);
		KUNIT_EXPECT_EQ_MSG(test, v.status_off, t[i].st21, "%s", t[i].rel);
		size = nvm_test_alloc(buf, abi, true, 0xdead0001, 0);
		KUNIT_EXPECT_EQ_MSG(test, size, t[i].size64, "%s", t[i].rel);
		KUNIT_EXPECT_FALSE(test, nvm_test_decide(abi, NVM_NODE_CTL, 0,
							 NVM_NV_ESC_RM_ALLOC, size, buf, &v));
		KUNIT_EXPECT_EQ_MSG(test, v.status_off, t[i].st64, "%s", t[i].rel);
		/* kernel-callback events: never */
		size = nvm_test_alloc(buf, abi, true, NVM_NV01_EVENT_KERNEL_CALLBACK_EX,
				      NVM_TEST_PARAMS_PTR);
		KUNIT_EXPECT_FALSE(test, nvm_test_decide(abi, NVM_NODE_CTL, NVM_TEST_ALL_POLICY,
							 NVM_NV_ESC_RM_ALLOC, size, buf, &v));
		KUNIT_EXPECT_EQ(test, v.err, -EPERM);
		/* an OS event (NV01_EVENT_OS_EVENT, 0x79) needs its params */
		size = nvm_test_alloc(buf, abi, true, 0x79, 0);
		KUNIT_EXPECT_FALSE(test, nvm_test_decide(abi, NVM_NODE_CTL, 0,
							 NVM_NV_ESC_RM_ALLOC, size, buf, &v));
		KUNIT_EXPECT_EQ(test, v.err, -EINVAL);
		size = nvm_test_alloc(buf, abi, true, 0x79, NVM_TEST_PARAMS_PTR);
		KUNIT_EXPECT_TRUE(test, nvm_test_decide(abi, NVM_NODE_CTL, 0,
							NVM_NV_ESC_RM_ALLOC, size, buf, &v));
		KUNIT_EXPECT_GT(test, v.nested_size, 0U);
	}
}

/*
 * The oracle: the rules restated as plainly as possible, with linear
 * scans of the tables.  Returns true when the call is acceptable.
 */
static bool nvm_oracle_priv_ok(unsigned int priv, unsigned int policy)
{
	if (priv == NVABI_PRIV_USER || priv == NVABI_PRIV_UNKNOWN)
		return true;
	return priv == NVABI_PRIV_ROOT && (policy & NVM_POLICY_ROOT);
}

static bool nvm_oracle(unsigned int abi, enum nvm_kind kind, unsigned int policy,
		       unsigned int nr, unsigned int size, const u8 *p)
{
	const struct nvabi_rmlayout *l = &nvabi_rmlayouts[nvabi_abi_rmlayout[abi]];
	const struct nvabi_esc *e = NULL;
	unsigned int i;

	for (i = 0; i < NVABI_NR_ESCS; i++)
		if (nvabi_escs[i].nr == nr && nvabi_set_has(nvabi_escs[i].set, abi))
			e = &nvabi_escs[i];
	if (!e || !nvm_oracle_priv_ok(e->priv, policy))
		return false;
	if (e->node == NVABI_NODE_CTL && kind != NVM_NODE_CTL)
		return false;
	if (e->node == NVABI_NODE_GPU && kind != NVM_NODE_GPU)
		return false;
	if (e->kind == NVABI_SIZE_ARRAY ? size == 0 || size % e->size :
	    e->kind == NVABI_SIZE_MIN ? size < e->size :
	    size != e->size && !(e->kind == NVABI_SIZE_EXACT && e->size2 && size == e->size2))
		return false;

	if (nr == NVM_NV_ESC_RM_CONTROL) {
		u32 cmd, flags, psize;
		u64 params;
		const struct nvabi_ctrl *ce = NULL;
		const struct nvabi_dep *de = NULL;

		memcpy(&cmd, p + l->ctl_cmd, 4);
		memcpy(&flags, p + l->ctl_flags, 4);
		memcpy(&params, p + l->ctl_params, 8);
		memcpy(&psize, p + l->ctl_psize, 4);
		for (i = 0; i < NVABI_NR_DEPS; i++)
			if (nvabi_deps[i].cmd == cmd && nvabi_set_has(nvabi_deps[i].set, abi))
				de = &nvabi_deps[i];
		for (i = 0; i < NVABI_NR_CTRLS; i++)
			if (nvabi_ctrls[i].cmd == cmd && nvabi_set_has(nvabi_ctrls[i].set, abi))
				ce = &nvabi_ctrls[i];
		/*
		 * A deprecated control: plain, V1 size, as the V2 control it
		 * becomes; with flags, the method of the V1 number if any.
		 */
		if (de && flags && ce)
			de = NULL;
		if (de) {
			if (flags || psize != de->size || !params)
				return false;
			cmd = de->v2;
			ce = NULL;
		}
		for (i = 0; i < NVABI_NR_CTRLS && !ce; i++)
			if (nvabi_ctrls[i].cmd == cmd && nvabi_set_has(nvabi_ctrls[i].set, abi))
				ce = &nvabi_ctrls[i];
		if (!ce || (flags & 3) || psize > (1U << 20) || (params == 0) != (psize == 0))
			return false;
		if (de)
			return nvm_oracle_priv_ok(ce->priv, policy) &&
			       ce->size != NVABI_SIZE_UNKNOWN;
		if ((flags & 4) && !(policy & NVM_POLICY_FINN))
			return false;
		if ((cmd & 0x8000) && !(policy & NVM_POLICY_GSS))
			return false;
		if (!nvm_oracle_priv_ok(ce->priv, policy) || ce->size == NVABI_SIZE_UNKNOWN)
			return false;
		return (flags & 4) || psize == ce->size;
	}
	if (nr == NVM_NV_ESC_RM_ALLOC) {
		const struct nvabi_class *ce = NULL;
		unsigned int co = size == l->a21_size ? l->a21_class : l->a64_class;
		unsigned int po = size == l->a21_size ? l->a21_params : l->a64_params;
		u32 hclass;
		u64 params;

		if (size != l->a21_size && size != l->a64_size)
			return false;
		memcpy(&hclass, p + co, 4);
		memcpy(&params, p + po, 8);
		for (i = 0; i < NVABI_NR_CLASSES; i++)
			if (nvabi_classes[i].hclass == hclass &&
			    nvabi_set_has(nvabi_classes[i].set, abi))
				ce = &nvabi_classes[i];
		if (ce && (hclass == 0x0 || hclass == 0x1 || hclass == 0x41))
			return true;	/* a client: the driver's own path, any caller */
		if (!ce || hclass == 0x78 || hclass == 0x7e || ce->size == NVABI_SIZE_UNKNOWN ||
		    ce->size > (1U << 20) || !nvm_oracle_priv_ok(ce->priv, policy))
			return false;
		return params || ce->params != NVABI_PARAMS_REQUIRED || !ce->size;
	}
	return true;
}

static u32 nvm_rand(struct rnd_state *r, u32 n)
{
	return n ? prandom_u32_state(r) % n : 0;
}

/* Random calls built near the tables' entries: never admitted when the oracle refuses. */
static void validate_test_never_admits_what_oracle_refuses(struct kunit *test)
{
	u8 *buf = kunit_kzalloc(test, 16384 + 64, GFP_KERNEL);
	unsigned int i, admitted = 0, refused = 0;
	struct rnd_state rs;
	struct nvm_verdict v;

	KUNIT_ASSERT_NOT_NULL(test, buf);
	prandom_seed_state(&rs, 0x6e766d64);
	for (i = 0; i < 20000; i++) {
		unsigned int abi = nvm_rand(&rs, NVABI_NR_ABIS);
		const struct nvabi_rmlayout *l = nvm_abi_rmlayout(abi);
		enum nvm_kind kind = nvm_rand(&rs, 2) ? NVM_NODE_CTL : NVM_NODE_GPU;
		unsigned int policy = nvm_rand(&rs, 8), nr, size, pick = nvm_rand(&rs, 4);
		bool ok, oracle;

		memset(buf, 0, 64);
		if (pick == 0) {		/* any escape, size near its table sizes */
			const struct nvabi_esc *e = &nvabi_escs[nvm_rand(&rs, NVABI_NR_ESCS)];

			nr = nvm_rand(&rs, 16) ? e->nr : nvm_rand(&rs, 256);
			size = e->size + nvm_rand(&rs, 3) - 1;
			if (nvm_rand(&rs, 4) == 0)
				size = e->size * nvm_rand(&rs, 4);
			if (size > 16384)
				size = 16384;
			get_random_bytes(buf, min(size, 64U));
		} else if (pick == 1) {		/* RM_CONTROL near a table entry */
			const struct nvabi_ctrl *e = &nvabi_ctrls[nvm_rand(&rs, NVABI_NR_CTRLS)];
			u32 cmd = e->cmd, psize = e->size;

			if (!nvm_rand(&rs, 8))
				cmd ^= BIT(nvm_rand(&rs, 32));
			if (psize == NVABI_SIZE_UNKNOWN || !nvm_rand(&rs, 4))
				psize = nvm_rand(&rs, 8) ? psize + nvm_rand(&rs, 3) - 1 :
							   prandom_u32_state(&rs);
			nr = NVM_NV_ESC_RM_CONTROL;
			size = nvm_test_ctl(buf, abi, cmd, nvm_rand(&rs, 4) ? 0 : nvm_rand(&rs, 8),
					    nvm_rand(&rs, 8) ? (psize ? NVM_TEST_PARAMS_PTR : 0) :
							       NVM_TEST_PARAMS_PTR * nvm_rand(&rs, 2),
					    psize);
			size += nvm_rand(&rs, 8) ? 0 : nvm_rand(&rs, 3) - 1;
		} else if (pick == 2) {		/* RM_ALLOC near a table entry */
			const struct nvabi_class *e =
				&nvabi_classes[nvm_rand(&rs, NVABI_NR_CLASSES)];
			u32 hclass = nvm_rand(&rs, 8) ? e->hclass : prandom_u32_state(&rs);

			nr = NVM_NV_ESC_RM_ALLOC;
			size = nvm_test_alloc(buf, abi, nvm_rand(&rs, 2), hclass,
					      nvm_rand(&rs, 4) ? NVM_TEST_PARAMS_PTR : 0);
			size += nvm_rand(&rs, 8) ? 0 : nvm_rand(&rs, 3) - 1;
		} else {			/* noise */
			nr = nvm_rand(&rs, 2) ? nvm_rand(&rs, 256) :
			     (nvm_rand(&rs, 2) ? NVM_NV_ESC_RM_CONTROL : NVM_NV_ESC_RM_ALLOC);
			size = nvm_rand(&rs, 2) ? nvm_rand(&rs, 64) : l->ctl_size;
			get_random_bytes(buf, 64);
		}
		ok = nvm_test_decide(abi, kind, policy, nr, size, buf, &v);
		oracle = nvm_oracle(abi, kind, policy, nr, size, buf);
		if (ok && !oracle)
			KUNIT_FAIL(test, "admitted what the oracle refuses: abi %u kind %d policy %u nr 0x%x size %u",
				   abi, kind, policy, nr, size);
		if (!ok)
			KUNIT_EXPECT_NOT_NULL(test, v.rule);
		admitted += ok;
		refused += !ok;
	}
	kunit_info(test, "%u admitted, %u refused", admitted, refused);
	KUNIT_EXPECT_GT(test, admitted, 1000U);
	KUNIT_EXPECT_GT(test, refused, 1000U);
}

/*
 * What the counters, the tracepoint and the log are told: the family and
 * number a decision got to, whether it admitted the call or not, and the
 * name the generated tables give that number.
 */
static void validate_test_reports_family(struct kunit *test)
{
	unsigned int abi = nvm_test_abi_of("595.45.04");
	const struct nvabi_ctrl *c;
	const struct nvabi_class *k;
	struct nvm_verdict v;
	unsigned int size;
	u8 buf[64];

	KUNIT_ASSERT_LT(test, abi, (unsigned int)NVABI_NR_ABIS);
	/* an admitted control: NV0000_CTRL_CMD_SYSTEM_GET_CPU_INFO, 108 bytes */
	memset(&v, 0xff, sizeof(v));
	size = nvm_test_ctl(buf, abi, 0x102, 0, 0x1000, 108);
	KUNIT_EXPECT_TRUE(test, nvm_test_decide(abi, NVM_NODE_CTL, 0, NVM_NV_ESC_RM_CONTROL,
						size, buf, &v));
	KUNIT_EXPECT_EQ(test, v.family, NVM_FAM_CTRL);
	KUNIT_EXPECT_EQ(test, v.number, 0x102U);
	KUNIT_EXPECT_EQ(test, v.number_size, 108U);
	KUNIT_EXPECT_STREQ(test, v.name, "NV0000_CTRL_SYSTEM_GET_CPU_INFO_PARAMS");
	/* refused for its params size: still the control's family and number */
	size = nvm_test_ctl(buf, abi, 0x102, 0, 0x1000, 104);
	KUNIT_EXPECT_FALSE(test, nvm_test_decide(abi, NVM_NODE_CTL, 0, NVM_NV_ESC_RM_CONTROL,
						 size, buf, &v));
	KUNIT_EXPECT_EQ(test, v.family, NVM_FAM_CTRL);
	KUNIT_EXPECT_EQ(test, v.number_size, 104U);
	KUNIT_EXPECT_STREQ(test, v.rule, "ctrl-size");
	/* refused before the payload is read: the escape's family */
	KUNIT_EXPECT_FALSE(test, nvm_test_decide(abi, NVM_NODE_CTL, 0, NVM_NV_ESC_RM_CONTROL,
						 size - 1, buf, &v));
	KUNIT_EXPECT_EQ(test, v.family, NVM_FAM_ESCAPE);
	KUNIT_EXPECT_STREQ(test, v.name, "NV_ESC_RM_CONTROL");
	/* an alloc: the class */
	size = nvm_test_alloc(buf, abi, true, 0xbeef, 0);
	KUNIT_EXPECT_FALSE(test, nvm_test_decide(abi, NVM_NODE_CTL, 0, NVM_NV_ESC_RM_ALLOC,
						 size, buf, &v));
	KUNIT_EXPECT_EQ(test, v.family, NVM_FAM_ALLOC);
	KUNIT_EXPECT_EQ(test, v.number, 0xbeefU);
	KUNIT_EXPECT_STREQ(test, v.rule, "class-unknown");
	/* no entry: no name, not the escape's */
	KUNIT_EXPECT_PTR_EQ(test, v.name, (const char *)NULL);

	/* names, parallel to the entry tables */
	c = nvm_abi_ctrl(0x102, abi);
	KUNIT_ASSERT_NOT_NULL(test, c);
	KUNIT_EXPECT_STREQ(test, nvabi_ctrl_names[c - nvabi_ctrls],
			   "NV0000_CTRL_SYSTEM_GET_CPU_INFO_PARAMS");
	k = nvm_abi_class(0x0, abi);
	KUNIT_ASSERT_NOT_NULL(test, k);
	KUNIT_EXPECT_STREQ(test, nvabi_class_names[k - nvabi_classes], "NV01_ROOT");
	KUNIT_EXPECT_STREQ(test,
			   nvabi_esc_names[nvm_abi_esc(NVM_NV_ESC_RM_CONTROL, abi) - nvabi_escs],
			   "NV_ESC_RM_CONTROL");
}

/*
 * Deprecated controls: decided before the method tables (even where they
 * list the V1 number, as 535 does for BUS_GET_INFO), at the V1 size, only
 * for plain calls, and as the V2 control they become for the profile.
 */
static void validate_test_deprecated(struct kunit *test)
{
	static const char *const rels[] = { "535.288.01", "595.45.04" };
	struct nvm_profile *none = nvm_profile_alloc(0);
	struct nvm_verdict v;
	unsigned int r, size;
	u8 buf[64];

	KUNIT_ASSERT_NOT_NULL(test, none);
	for (r = 0; r < ARRAY_SIZE(rels); r++) {
		unsigned int abi = nvm_test_abi_of(rels[r]);
		const struct nvabi_dep *d = nvm_abi_dep(0x20801802, abi);
		struct nvm_call c;

		KUNIT_ASSERT_NOT_NULL_MSG(test, d, "%s", rels[r]);
		KUNIT_EXPECT_EQ(test, d->v2, 0x20801823U);
		KUNIT_EXPECT_EQ(test, d->size, 16U);
		KUNIT_EXPECT_EQ(test, d->list_off, 8U);
		KUNIT_EXPECT_EQ(test, d->count_off, 0U);
		KUNIT_EXPECT_EQ(test, d->elem, 8U);
		KUNIT_EXPECT_EQ(test, d->max, 52U);
		KUNIT_EXPECT_EQ(test, d->flags, NVABI_DEP_COUNT | NVABI_DEP_IN | NVABI_DEP_OUT);

		size = nvm_test_ctl(buf, abi, 0x20801802, 0, NVM_TEST_PARAMS_PTR, 16);
		KUNIT_EXPECT_TRUE_MSG(test, nvm_test_decide(abi, NVM_NODE_CTL, 0,
							    NVM_NV_ESC_RM_CONTROL, size, buf, &v),
				      "%s: %s", rels[r], v.rule);
		KUNIT_EXPECT_PTR_EQ(test, v.dep, d);
		KUNIT_EXPECT_EQ(test, v.number, 0x20801802U);
		KUNIT_EXPECT_EQ(test, v.nested, (u64)NVM_TEST_PARAMS_PTR);
		KUNIT_EXPECT_EQ(test, v.nested_size, 16U);
		KUNIT_EXPECT_STREQ(test, v.name, "NV2080_CTRL_CMD_BUS_GET_INFO");

		/*
		 * FINN-serialized or any other flag: not converted; a method
		 * where the tables list the V1 number (535), else nothing.
		 */
		nvm_test_ctl(buf, abi, 0x20801802, 4, NVM_TEST_PARAMS_PTR, 16);
		if (nvm_abi_ctrl(0x20801802, abi)) {
			KUNIT_EXPECT_TRUE_MSG(test, nvm_test_decide(abi, NVM_NODE_CTL,
								    NVM_POLICY_FINN,
								    NVM_NV_ESC_RM_CONTROL, size,
								    buf, &v), "%s", v.rule);
			KUNIT_EXPECT_NULL(test, v.dep);
		} else {
			KUNIT_EXPECT_FALSE(test, nvm_test_decide(abi, NVM_NODE_CTL,
								 NVM_POLICY_FINN,
								 NVM_NV_ESC_RM_CONTROL, size, buf,
								 &v));
			KUNIT_EXPECT_EQ(test, v.status, (u32)NVM_NV_ERR_NOT_SUPPORTED);
			KUNIT_EXPECT_STREQ(test, v.rule, "ctrl-deprecated-flags");
		}

		/* Another size: the driver would read 16 bytes whatever it says. */
		nvm_test_ctl(buf, abi, 0x20801802, 0, NVM_TEST_PARAMS_PTR, 24);
		KUNIT_EXPECT_FALSE(test, nvm_test_decide(abi, NVM_NODE_CTL, 0,
							 NVM_NV_ESC_RM_CONTROL, size, buf, &v));
		KUNIT_EXPECT_EQ(test, v.status, (u32)NVM_NV_ERR_INVALID_ARGUMENT);
		KUNIT_EXPECT_STREQ(test, v.rule, "ctrl-size");

		/* The profile decides on the V2 control, and the refusal names it. */
		nvm_test_ctl(buf, abi, 0x20801802, 0, NVM_TEST_PARAMS_PTR, 16);
		c = (struct nvm_call){ .abi = abi, .kind = NVM_NODE_CTL, .prof = none,
				       .nr = NVM_NV_ESC_RM_CONTROL, .size = size, .payload = buf };
		KUNIT_EXPECT_FALSE(test, nvm_decide(&c, &v));
		KUNIT_EXPECT_STREQ(test, v.rule, "ctrl-profile");
		KUNIT_EXPECT_EQ(test, v.number, 0x20801823U);
		KUNIT_EXPECT_EQ(test, v.status, (u32)NVM_NV_ERR_NOT_SUPPORTED);

		/* A custom converter: the V1 size and the V2 control only. */
		d = nvm_abi_dep(0x101, abi);
		KUNIT_ASSERT_NOT_NULL(test, d);
		KUNIT_EXPECT_EQ(test, d->v2, 0x13eU);
		KUNIT_EXPECT_TRUE(test, d->flags & NVABI_DEP_CUSTOM);
		size = nvm_test_ctl(buf, abi, 0x101, 0, NVM_TEST_PARAMS_PTR, d->size);
		KUNIT_EXPECT_TRUE_MSG(test, nvm_test_decide(abi, NVM_NODE_CTL, 0,
							    NVM_NV_ESC_RM_CONTROL, size, buf, &v),
				      "%s", v.rule);
		KUNIT_EXPECT_PTR_EQ(test, v.dep, d);
	}
	kfree(none);
}

/*
 * Controls whose params point to lists the driver copies around the
 * method: the forwarded verdict carries the entry (checked after the
 * decision, validate.c), for plain calls only; as the driver reads them.
 */
/*
 * NV_ESC_RM_ALLOC_MEMORY of an administrator-only class (the memory lists,
 * whose list the driver copies before it checks the caller's privilege):
 * refused without allow_root, as RM_ALLOC refuses the class; system
 * memory and OS descriptors pass.
 */
static void validate_test_alloc_memory_class(struct kunit *test)
{
	unsigned int abi = nvm_test_param_abi(test);
	const struct nvabi_rmlayout *l = nvm_abi_rmlayout(abi);
	struct nvm_verdict v;
	u8 buf[64] = { };
	u32 hclass = 0x81;

	if (!l->am_size)
		return;
	KUNIT_ASSERT_LE(test, (unsigned int)l->am_size, (unsigned int)sizeof(buf));
	/* Refused whatever the release's table says of the class's privilege. */
	memcpy(buf + l->am_class, &hclass, sizeof(hclass));
	KUNIT_EXPECT_FALSE(test, nvm_test_decide(abi, NVM_NODE_GPU, 0, NVM_NV_ESC_RM_ALLOC_MEMORY,
						 l->am_size, buf, &v));
	KUNIT_EXPECT_STREQ(test, v.rule, "alloc-memory-root");
	KUNIT_EXPECT_EQ(test, v.err, -EPERM);
	KUNIT_EXPECT_TRUE(test, nvm_test_decide(abi, NVM_NODE_GPU, NVM_POLICY_ROOT,
						NVM_NV_ESC_RM_ALLOC_MEMORY, l->am_size, buf, &v));
	hclass = 0x83;
	memcpy(buf + l->am_class, &hclass, sizeof(hclass));
	KUNIT_EXPECT_FALSE(test, nvm_test_decide(abi, NVM_NODE_GPU, 0, NVM_NV_ESC_RM_ALLOC_MEMORY,
						 l->am_size, buf, &v));
	hclass = NVM_NV01_MEMORY_SYSTEM;
	memcpy(buf + l->am_class, &hclass, sizeof(hclass));
	KUNIT_EXPECT_TRUE(test, nvm_test_decide(abi, NVM_NODE_GPU, 0, NVM_NV_ESC_RM_ALLOC_MEMORY,
						l->am_size, buf, &v));
	hclass = NVM_NV01_MEMORY_SYSTEM_OS_DESCRIPTOR;
	memcpy(buf + l->am_class, &hclass, sizeof(hclass));
	KUNIT_EXPECT_TRUE(test, nvm_test_decide(abi, NVM_NODE_GPU, 0, NVM_NV_ESC_RM_ALLOC_MEMORY,
						l->am_size, buf, &v));
}

static void validate_test_embedded(struct kunit *test)
{
	static const char *const rels[] = { "515.43.04", "535.288.01", "595.45.04" };
	struct nvm_verdict v;
	unsigned int r, size;
	u8 buf[64];

	for (r = 0; r < ARRAY_SIZE(rels); r++) {
		unsigned int abi = nvm_test_abi_of(rels[r]);
		const struct nvabi_emb *x = nvm_abi_emb(0x800201, abi);

		/* GPU_GET_CLASSLIST: { numClasses; classList }, NvU32s in and out */
		KUNIT_ASSERT_NOT_NULL_MSG(test, x, "%s", rels[r]);
		KUNIT_EXPECT_EQ(test, x->size, 16U);
		KUNIT_EXPECT_EQ(test, x->nlist, 1U);
		KUNIT_EXPECT_EQ(test, x->list[0].list_off, 8U);
		KUNIT_EXPECT_EQ(test, x->list[0].count_off, 0U);
		KUNIT_EXPECT_EQ(test, x->list[0].elem, 4U);
		KUNIT_EXPECT_EQ(test, x->list[0].flags, NVABI_EMB_IN | NVABI_EMB_OUT);
		size = nvm_test_ctl(buf, abi, 0x800201, 0, NVM_TEST_PARAMS_PTR, 16);
		KUNIT_EXPECT_TRUE_MSG(test, nvm_test_decide(abi, NVM_NODE_CTL, 0,
							    NVM_NV_ESC_RM_CONTROL, size, buf, &v),
				      "%s: %s", rels[r], v.rule);
		KUNIT_EXPECT_PTR_EQ(test, v.emb, x);
		KUNIT_EXPECT_NULL(test, v.dep);

		/* FINN-serialized params hold no pointer the driver follows. */
		nvm_test_ctl(buf, abi, 0x800201, 4, NVM_TEST_PARAMS_PTR, 16);
		KUNIT_EXPECT_TRUE_MSG(test, nvm_test_decide(abi, NVM_NODE_CTL, NVM_POLICY_FINN,
							    NVM_NV_ESC_RM_CONTROL, size, buf, &v),
				      "%s", v.rule);
		KUNIT_EXPECT_NULL(test, v.emb);

		/* A control without lists carries none. */
		size = nvm_test_ctl(buf, abi, 0x800280, 0, NVM_TEST_PARAMS_PTR, 4);
		KUNIT_EXPECT_TRUE_MSG(test, nvm_test_decide(abi, NVM_NODE_CTL, 0,
							    NVM_NV_ESC_RM_CONTROL, size, buf, &v),
				      "%s", v.rule);
		KUNIT_EXPECT_NULL(test, v.emb);

		/* P2P_CAPS: gpuCount squared, nothing while the pointer is NULL. */
		x = nvm_abi_emb(0x127, abi);
		KUNIT_ASSERT_NOT_NULL(test, x);
		KUNIT_EXPECT_EQ(test, x->list[0].flags,
				NVABI_EMB_OUT | NVABI_EMB_IFPTR | NVABI_EMB_SQUARE);
		KUNIT_EXPECT_EQ(test, x->list[0].count_off, 128U);
		/* The debugger's memory read: no 1 MiB bound in the driver. */
		x = nvm_abi_emb(0x83de0315, abi);
		KUNIT_ASSERT_NOT_NULL(test, x);
		KUNIT_EXPECT_TRUE(test, x->list[0].flags & NVABI_EMB_NOMAX);
		size = nvm_test_ctl(buf, abi, 0x83de0315, 0, NVM_TEST_PARAMS_PTR, 24);
		KUNIT_EXPECT_TRUE_MSG(test, nvm_test_decide(abi, NVM_NODE_CTL, 0,
							    NVM_NV_ESC_RM_CONTROL, size, buf, &v),
				      "%s", v.rule);
		KUNIT_EXPECT_PTR_EQ(test, v.emb, x);
		/* ... serialized, it is refused whatever allow_finn says. */
		nvm_test_ctl(buf, abi, 0x83de0315, 4, NVM_TEST_PARAMS_PTR, 24);
		KUNIT_EXPECT_FALSE(test, nvm_test_decide(abi, NVM_NODE_CTL, NVM_POLICY_FINN,
							 NVM_NV_ESC_RM_CONTROL, size, buf, &v));
		KUNIT_EXPECT_STREQ(test, v.rule, "ctrl-finn-unbounded");
		KUNIT_EXPECT_EQ(test, v.err, -EPERM);
		/* ACPI's sizes are NvU16s (from 525). */
		x = nvm_abi_emb(0x130, abi);
		if (x) {
			KUNIT_EXPECT_TRUE(test, x->list[0].flags & NVABI_EMB_COUNT16);
			KUNIT_EXPECT_TRUE(test, x->list[1].flags & NVABI_EMB_COUNT16);
		}
	}
}

/*
 * The decision on XFER and under audit, from the copies nvm_fetch() hands
 * it: XFER's header, the inner payload, or the errors reading them.
 */
static void validate_test_xfer_and_audit(struct kunit *test)
{
	unsigned int abi = nvm_test_abi_of("595.45.04"), size;
	struct nvm_profile *audit = nvm_profile_alloc(0);
	const struct nvabi_ctrl *e = nvm_abi_ctrl(0x205, abi);
	struct nvm_xfer hdr;
	struct nvm_verdict v;
	struct nvm_call c;
	u8 buf[64];

	KUNIT_ASSERT_NOT_NULL(test, audit);
	KUNIT_ASSERT_NOT_NULL(test, e);
	size = nvm_test_ctl(buf, abi, 0x102, 0, NVM_TEST_PARAMS_PTR, 108);
#define XFER(cmd_, size_) do {								\
	hdr = (struct nvm_xfer){ .cmd = (cmd_), .size = (size_), .ptr = 0x1000 };	\
	c = (struct nvm_call){ .abi = abi, .kind = NVM_NODE_CTL, .prof = nvm_test_all,	\
			       .nr = NVM_NV_ESC_XFER, .size = sizeof(hdr), .hdr = &hdr,	\
			       .payload = buf };					\
} while (0)
	/* A control inside XFER: unwrapped, checked as a control, admitted. */
	XFER(NVM_NV_ESC_RM_CONTROL, size);
	KUNIT_EXPECT_TRUE_MSG(test, nvm_decide(&c, &v), "%s", v.rule);
	KUNIT_EXPECT_TRUE(test, c.xfer);
	KUNIT_EXPECT_EQ(test, c.nr, (unsigned int)NVM_NV_ESC_RM_CONTROL);
	KUNIT_EXPECT_EQ(test, c.size, size);
	KUNIT_EXPECT_EQ(test, v.family, NVM_FAM_CTRL);
	KUNIT_EXPECT_EQ(test, v.number, 0x102U);
	/* The inner escape's size is checked as a direct call's. */
	XFER(NVM_NV_ESC_RM_CONTROL, size - 1);
	KUNIT_EXPECT_FALSE(test, nvm_decide(&c, &v));
	KUNIT_EXPECT_STREQ(test, v.rule, "esc-size");
	/* An inner size over 16384: -EINVAL, nothing copied. */
	XFER(NVM_NV_ESC_RM_CONTROL, 16385);
	c.payload = NULL;
	c.payload_err = 1;
	KUNIT_EXPECT_FALSE(test, nvm_decide(&c, &v));
	KUNIT_EXPECT_STREQ(test, v.rule, "xfer-size");
	KUNIT_EXPECT_EQ(test, v.err, -EINVAL);
	KUNIT_EXPECT_EQ(test, v.number, (u32)NVM_NV_ESC_RM_CONTROL);
	/* XFER's own size, 16: not unwrapped at any other. */
	XFER(NVM_NV_ESC_RM_CONTROL, size);
	c.size = sizeof(hdr) - 1;
	KUNIT_EXPECT_FALSE(test, nvm_decide(&c, &v));
	KUNIT_EXPECT_STREQ(test, v.rule, "esc-size");
	KUNIT_EXPECT_FALSE(test, c.xfer);
	c.size = sizeof(hdr) + 1;
	KUNIT_EXPECT_FALSE(test, nvm_decide(&c, &v));
	KUNIT_EXPECT_STREQ(test, v.rule, "esc-size");
	/* XFER inside XFER. */
	XFER(NVM_NV_ESC_XFER, sizeof(hdr));
	KUNIT_EXPECT_FALSE(test, nvm_decide(&c, &v));
	KUNIT_EXPECT_STREQ(test, v.rule, "esc-xfer-nested");
	/* The header or the inner payload could not be copied: -EFAULT. */
	XFER(NVM_NV_ESC_RM_CONTROL, size);
	c.hdr = NULL;
	c.hdr_err = -EFAULT;
	KUNIT_EXPECT_FALSE(test, nvm_decide(&c, &v));
	KUNIT_EXPECT_STREQ(test, v.rule, "esc-unreadable");
	KUNIT_EXPECT_EQ(test, v.err, -EFAULT);
	XFER(NVM_NV_ESC_RM_CONTROL, size);
	c.payload_err = -EFAULT;
	KUNIT_EXPECT_FALSE(test, nvm_decide(&c, &v));
	KUNIT_EXPECT_STREQ(test, v.rule, "esc-unreadable");
#undef XFER

	/* A profile that audits: what it refuses is kept, and the call goes on. */
	audit->audit = true;
	c = (struct nvm_call){ .abi = abi, .kind = NVM_NODE_CTL, .prof = audit,
			       .nr = NVM_NV_ESC_RM_CONTROL, .payload = buf };
	c.size = nvm_test_ctl(buf, abi, e->cmd, 0, NVM_TEST_PARAMS_PTR, e->size);
	KUNIT_EXPECT_TRUE(test, nvm_decide(&c, &v));
	KUNIT_EXPECT_TRUE(test, v.audited);
	KUNIT_EXPECT_STREQ(test, v.rule, "ctrl-profile");
	KUNIT_EXPECT_EQ(test, v.status, (u32)NVM_NV_ERR_NOT_SUPPORTED);
	/* The same control without audit: answered in the payload. */
	audit->audit = false;
	KUNIT_EXPECT_FALSE(test, nvm_decide(&c, &v));
	KUNIT_EXPECT_FALSE(test, v.audited);
	KUNIT_EXPECT_STREQ(test, v.rule, "ctrl-profile");
	/* Audited or not, a payload that could not be copied is refused. */
	audit->audit = true;
	c.payload_err = -EFAULT;
	KUNIT_EXPECT_FALSE(test, nvm_decide(&c, &v));
	KUNIT_EXPECT_FALSE(test, v.audited);
	KUNIT_EXPECT_EQ(test, v.err, -EFAULT);
	/*
	 * So is an XFER whose inner payload is not copied, over 16384 bytes
	 * or of none: the driver would read its header again from the caller.
	 */
	hdr = (struct nvm_xfer){ .cmd = NVM_NV_ESC_RM_CONTROL, .size = 16385, .ptr = 0x1000 };
	c = (struct nvm_call){ .abi = abi, .kind = NVM_NODE_CTL, .prof = audit,
			       .nr = NVM_NV_ESC_XFER, .size = sizeof(hdr), .hdr = &hdr,
			       .payload_err = 1 };
	KUNIT_EXPECT_FALSE(test, nvm_decide(&c, &v));
	KUNIT_EXPECT_FALSE(test, v.audited);
	KUNIT_EXPECT_STREQ(test, v.rule, "xfer-size");
	KUNIT_EXPECT_EQ(test, v.err, -EINVAL);
	hdr.size = 0;
	c = (struct nvm_call){ .abi = abi, .kind = NVM_NODE_CTL, .prof = audit,
			       .nr = NVM_NV_ESC_XFER, .size = sizeof(hdr), .hdr = &hdr };
	KUNIT_EXPECT_FALSE(test, nvm_decide(&c, &v));
	KUNIT_EXPECT_FALSE(test, v.audited);
	KUNIT_EXPECT_STREQ(test, v.rule, "esc-size");
	KUNIT_EXPECT_EQ(test, v.err, -EINVAL);
	/* Refused by the first check that refused it: an escape only root makes. */
	hdr.cmd = 0xd8;
	c = (struct nvm_call){ .abi = abi, .kind = NVM_NODE_GPU, .prof = audit,
			       .nr = NVM_NV_ESC_XFER, .size = sizeof(hdr), .hdr = &hdr };
	KUNIT_EXPECT_FALSE(test, nvm_decide(&c, &v));
	KUNIT_EXPECT_FALSE(test, v.audited);
	KUNIT_EXPECT_STREQ(test, v.rule, "esc-root");
	KUNIT_EXPECT_EQ(test, v.err, -EPERM);
	/* A UVM command the profile lacks: audited, forwarded at its size. */
	c = (struct nvm_call){ .abi = abi, .kind = NVM_NODE_UVM, .prof = audit,
			       .nr = 0x30000001 };
	KUNIT_EXPECT_TRUE(test, nvm_decide(&c, &v));
	KUNIT_EXPECT_TRUE(test, v.audited);
	KUNIT_EXPECT_STREQ(test, v.rule, "uvm-profile");
	kfree(audit);
}

/*
 * The memory an OS-descriptor call names (node.c refuses it over the
 * bounce area): NVOS32's ALLOC_OS_DESCRIPTOR and RM_ALLOC_MEMORY of class
 * 0x71, plain, in XFER and audited; nothing for other functions, other
 * classes or a limit of all ones.
 */
static void validate_test_osdesc(struct kunit *test)
{
	static const char *const rel[] = { "515.43.04", "535.288.01", "580.142", "595.45.04" };
	struct nvm_profile *audit = nvm_profile_alloc(0);
	struct nvm_verdict v;
	struct nvm_xfer hdr;
	struct nvm_call c;
	unsigned int i;
	u8 buf[184];

	KUNIT_ASSERT_NOT_NULL(test, audit);
	audit->audit = true;
	for (i = 0; i < ARRAY_SIZE(rel); i++) {
		unsigned int abi = nvm_test_abi_of(rel[i]);
		const struct nvabi_rmlayout *l = nvm_abi_rmlayout(abi);

		KUNIT_ASSERT_EQ_MSG(test, l->vh_size, 184, "%s", rel[i]);
		KUNIT_ASSERT_EQ_MSG(test, l->am_size, 56, "%s", rel[i]);
#define VH(fn_, addr_, limit_) do {							\
	memset(buf, 0, sizeof(buf));							\
	nvm_test_put32(buf, l->vh_function, (fn_));					\
	nvm_test_put64(buf, l->vh_desc, (addr_));					\
	nvm_test_put64(buf, l->vh_limit, (limit_));					\
	c = (struct nvm_call){ .abi = abi, .kind = NVM_NODE_CTL, .prof = nvm_test_all,	\
			       .nr = NVM_NV_ESC_RM_VID_HEAP_CONTROL, .size = l->vh_size,	\
			       .payload = buf };					\
} while (0)
		VH(NVM_NVOS32_FUNCTION_ALLOC_OS_DESCRIPTOR, 0x7f0000001000ULL, 0x2fff);
		KUNIT_EXPECT_TRUE_MSG(test, nvm_decide(&c, &v), "%s: %s", rel[i], v.rule);
		KUNIT_EXPECT_EQ(test, v.osdesc, 0x7f0000001000ULL);
		KUNIT_EXPECT_EQ(test, v.osdesc_len, 0x3000ULL);
		VH(4, 0x7f0000001000ULL, 0x2fff);
		KUNIT_EXPECT_TRUE(test, nvm_decide(&c, &v));
		KUNIT_EXPECT_EQ(test, v.osdesc_len, 0ULL);
		VH(NVM_NVOS32_FUNCTION_ALLOC_OS_DESCRIPTOR, 0x1000, U64_MAX);
		KUNIT_EXPECT_TRUE(test, nvm_decide(&c, &v));
		KUNIT_EXPECT_EQ(test, v.osdesc_len, 0ULL);
		/* Audited (the profile admits nothing): still named. */
		VH(NVM_NVOS32_FUNCTION_ALLOC_OS_DESCRIPTOR, 0x1000, 0xfff);
		c.prof = audit;
		KUNIT_EXPECT_TRUE(test, nvm_decide(&c, &v));
		KUNIT_EXPECT_TRUE(test, v.audited);
		KUNIT_EXPECT_EQ(test, v.osdesc, 0x1000ULL);
		KUNIT_EXPECT_EQ(test, v.osdesc_len, 0x1000ULL);
		/* Audited at a size the driver refuses: no range. */
		c.size -= 8;
		KUNIT_EXPECT_TRUE(test, nvm_decide(&c, &v));
		KUNIT_EXPECT_STREQ(test, v.rule, "esc-size");
		KUNIT_EXPECT_EQ(test, v.osdesc_len, 0ULL);
		/* Inside XFER. */
		VH(NVM_NVOS32_FUNCTION_ALLOC_OS_DESCRIPTOR, 0x2000, 0xfff);
		hdr = (struct nvm_xfer){ .cmd = NVM_NV_ESC_RM_VID_HEAP_CONTROL,
					 .size = l->vh_size, .ptr = 0x1000 };
		c.nr = NVM_NV_ESC_XFER;
		c.size = sizeof(hdr);
		c.hdr = &hdr;
		KUNIT_EXPECT_TRUE(test, nvm_decide(&c, &v));
		KUNIT_EXPECT_EQ(test, v.osdesc, 0x2000ULL);
		KUNIT_EXPECT_EQ(test, v.osdesc_len, 0x1000ULL);
#undef VH
		/* RM_ALLOC_MEMORY, on a GPU node: class 0x71 only. */
		memset(buf, 0, sizeof(buf));
		nvm_test_put32(buf, l->am_class, NVM_NV01_MEMORY_SYSTEM_OS_DESCRIPTOR);
		nvm_test_put64(buf, l->am_memory, 0x10000);
		nvm_test_put64(buf, l->am_limit, 0);
		c = (struct nvm_call){ .abi = abi, .kind = NVM_NODE_GPU, .prof = nvm_test_all,
				       .nr = NVM_NV_ESC_RM_ALLOC_MEMORY, .size = l->am_size,
				       .payload = buf };
		KUNIT_EXPECT_TRUE_MSG(test, nvm_decide(&c, &v), "%s: %s", rel[i], v.rule);
		KUNIT_EXPECT_EQ(test, v.osdesc, 0x10000ULL);
		KUNIT_EXPECT_EQ(test, v.osdesc_len, 1ULL);
		nvm_test_put32(buf, l->am_class, 0x3e);
		KUNIT_EXPECT_TRUE(test, nvm_decide(&c, &v));
		KUNIT_EXPECT_EQ(test, v.osdesc_len, 0ULL);
	}
	kfree(audit);
}

static struct kunit_case nvm_validate_cases[] = {
	KUNIT_CASE_PARAM(validate_test_escape_sizes, nvm_test_release_gen_params),
	KUNIT_CASE_PARAM(validate_test_control_sizes, nvm_test_release_gen_params),
	KUNIT_CASE_PARAM(validate_test_class_forms, nvm_test_release_gen_params),
	KUNIT_CASE_PARAM(validate_test_uvm_commands, nvm_test_release_gen_params),
	KUNIT_CASE(validate_test_control_rules),
	KUNIT_CASE(validate_test_alloc_rules),
	KUNIT_CASE(validate_test_never_admits_what_oracle_refuses),
	KUNIT_CASE(validate_test_reports_family),
	KUNIT_CASE(validate_test_xfer_and_audit),
	KUNIT_CASE(validate_test_deprecated),
	KUNIT_CASE(validate_test_embedded),
	KUNIT_CASE(validate_test_emb_fds),
	KUNIT_CASE_PARAM(validate_test_alloc_memory_class, nvm_test_release_gen_params),
	KUNIT_CASE(validate_test_osdesc),
	{}
};

static struct kunit_suite nvm_validate_suite = {
	.name = "nvmediate_validate",
	.suite_init = nvm_test_all_init,
	.suite_exit = nvm_test_all_exit,
	.test_cases = nvm_validate_cases,
};

kunit_test_suite(nvm_validate_suite);
