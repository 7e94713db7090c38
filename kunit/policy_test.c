// SPDX-License-Identifier: GPL-2.0
/*
 * nvmediate: KUnit suite for the capability profiles (policy.c): the
 * capabilities of the generated tables' entries, admission per capability, explicit allow
 * entries, the default profile over the calls of a CUDA-like session, the
 * answers of a refusal, and the audit record.  Built into policy.c with
 * NVM_KUNIT (the #include at its end) and into tests/unit/main.c; the
 * payload builders are nvm_test.h's.
 */
#include <kunit/test.h>

#include "nvm_test.h"
#include "uvm.h"

static struct nvm_profile *nvm_test_profile(struct kunit *test, u32 caps, const char *allow)
{
	struct nvm_profile *empty = nvm_profile_alloc(0), *p;

	KUNIT_ASSERT_NOT_NULL(test, empty);
	empty->caps = caps;
	p = nvm_profile_edit_allow(empty, allow);
	kfree(empty);
	KUNIT_ASSERT_FALSE(test, IS_ERR_OR_NULL(p));
	return p;
}

/* One call of the generated tables, whatever its family. */
struct nvm_test_ent {
	unsigned int family;
	u32 nr;
	u16 caps;
	const char *name;
};

/* The @i-th entry over the four tables, in family order; false past the end. */
static bool nvm_test_ent(unsigned int i, struct nvm_test_ent *t)
{
	if (i < NVABI_NR_ESCS) {
		*t = (struct nvm_test_ent){ NVM_FAM_ESCAPE, nvabi_escs[i].nr, nvabi_escs[i].caps,
					    nvabi_esc_names[i] };
		return true;
	}
	i -= NVABI_NR_ESCS;
	if (i < NVABI_NR_CTRLS) {
		*t = (struct nvm_test_ent){ NVM_FAM_CTRL, nvabi_ctrls[i].cmd, nvabi_ctrls[i].caps,
					    nvabi_ctrl_names[i] };
		return true;
	}
	i -= NVABI_NR_CTRLS;
	if (i < NVABI_NR_CLASSES) {
		*t = (struct nvm_test_ent){ NVM_FAM_ALLOC, nvabi_classes[i].hclass,
					    nvabi_classes[i].caps, nvabi_class_names[i] };
		return true;
	}
	i -= NVABI_NR_CLASSES;
	if (i < NVABI_NR_UVMS) {
		*t = (struct nvm_test_ent){ NVM_FAM_UVM, nvabi_uvms[i].cmd, nvabi_uvms[i].caps,
					    nvabi_uvm_names[i] };
		return true;
	}
	return false;
}

/* The capabilities of a call's entries (0: none has it). */
static u16 nvm_test_caps_of(unsigned int family, u32 nr)
{
	struct nvm_test_ent t;
	unsigned int i;

	for (i = 0; nvm_test_ent(i, &t); i++)
		if (t.family == family && t.nr == nr)
			return t.caps;
	return 0;
}

static bool nvm_test_admits(const struct nvm_profile *p, unsigned int family, u32 nr)
{
	return nvm_profile_admits(p, family, nr, nvm_test_caps_of(family, nr));
}

/*
 * Every entry's capabilities are known bits, one number's entries (one per
 * ABI it changed in) agree, and each family has calls some capability
 * admits.
 */
static void policy_test_table_caps(struct kunit *test)
{
	unsigned int i, n[NVM_FAM_CALLS] = { };
	struct nvm_test_ent t, prev = { .family = NVM_FAM_CALLS };

	for (i = 0; nvm_test_ent(i, &t); i++) {
		KUNIT_EXPECT_EQ_MSG(test, t.caps & ~(NVM_CAP_ALL | NVM_CAP_BASE), 0, "%s", t.name);
		if (t.family == prev.family && t.nr == prev.nr)
			KUNIT_EXPECT_EQ_MSG(test, t.caps, prev.caps, "%s 0x%x", t.name, t.nr);
		else if (t.caps)
			n[t.family]++;
		prev = t;
	}
	for (i = 0; i < NVM_FAM_CALLS; i++)
		KUNIT_EXPECT_GT_MSG(test, n[i], 10U, "family %s", nvm_family_name(i));
	KUNIT_EXPECT_GT(test, n[NVM_FAM_ESCAPE] + n[NVM_FAM_CTRL] + n[NVM_FAM_ALLOC] +
			n[NVM_FAM_UVM], 300U);
	KUNIT_EXPECT_TRUE(test, nvm_test_caps_of(NVM_FAM_ESCAPE, NVM_NV_ESC_RM_CONTROL) &
				NVM_CAP_BASE);
	KUNIT_EXPECT_EQ(test, nvm_test_caps_of(NVM_FAM_ALLOC, 0x90cc), NVM_CAP_PROFILING);
	KUNIT_EXPECT_EQ(test, nvm_test_caps_of(NVM_FAM_CTRL, 0x2080dead), 0);
}

static const u32 nvm_test_caps[] = {
	0, NVM_CAP_COMPUTE, NVM_CAP_UTILITY, NVM_CAP_GRAPHICS, NVM_CAP_VIDEO, NVM_CAP_PROFILING,
	NVM_CAP_FABRIC_IMEX, NVM_CAP_RDMA, NVM_CAP_MIG, NVM_CAP_DEFAULT, NVM_CAP_ALL,
};

static void nvm_test_caps_desc(const u32 *caps, char *desc)
{
	nvm_caps_format(*caps, desc, KUNIT_PARAM_DESC_SIZE);
}

KUNIT_ARRAY_PARAM(nvm_test_caps, nvm_test_caps, nvm_test_caps_desc);

/* Each capability admits exactly the entries that name it, and base ones. */
static void policy_test_per_capability(struct kunit *test)
{
	u32 caps = *(const u32 *)test->param_value;
	struct nvm_profile *p = nvm_test_profile(test, caps, "");
	struct nvm_test_ent t, prev = { .family = NVM_FAM_CALLS };
	unsigned int i, admitted = 0;

	for (i = 0; nvm_test_ent(i, &t); prev = t, i++) {
		bool want = t.caps & (caps | NVM_CAP_BASE);

		KUNIT_EXPECT_EQ_MSG(test, nvm_profile_admits(p, t.family, t.nr, t.caps), want,
				    "%s %s 0x%x", t.name, nvm_family_name(t.family), t.nr);
		if (t.family != prev.family || t.nr != prev.nr)
			admitted += want;
	}
	if (caps & NVM_CAP_PROFILING)
		KUNIT_EXPECT_TRUE(test, nvm_test_admits(p, NVM_FAM_ALLOC, 0x90cc));
	else
		KUNIT_EXPECT_FALSE(test, nvm_test_admits(p, NVM_FAM_ALLOC, 0x90cc));
	if (!caps) {
		/* Only the escapes every session makes. */
		KUNIT_EXPECT_TRUE(test, nvm_test_admits(p, NVM_FAM_ESCAPE, NVM_NV_ESC_RM_CONTROL));
		KUNIT_EXPECT_TRUE(test, nvm_test_admits(p, NVM_FAM_ESCAPE, NVM_NV_ESC_XFER));
		KUNIT_EXPECT_FALSE(test, nvm_test_admits(p, NVM_FAM_ESCAPE, 0x4e));
		KUNIT_EXPECT_FALSE(test, nvm_test_admits(p, NVM_FAM_UVM, 0x30000001));
		KUNIT_EXPECT_LT(test, admitted, 12U);
	}
	/* Nothing outside the table, whatever the capabilities. */
	KUNIT_EXPECT_FALSE(test, nvm_test_admits(p, NVM_FAM_CTRL, 0x2080dead));
	kfree(p);
}

/* Allow entries admit their call alone, in their family alone. */
static void policy_test_allow_entries(struct kunit *test)
{
	struct nvm_profile *p = nvm_test_profile(test, 0,
						  "ctrl 0x20800a01\nalloc 0x90cc uvm 0x17 esc 0x4e");
	struct nvm_profile *q;

	KUNIT_EXPECT_EQ(test, p->nallow, 4U);
	KUNIT_EXPECT_TRUE(test, nvm_test_admits(p, NVM_FAM_CTRL, 0x20800a01));
	KUNIT_EXPECT_TRUE(test, nvm_test_admits(p, NVM_FAM_ALLOC, 0x90cc));
	KUNIT_EXPECT_TRUE(test, nvm_test_admits(p, NVM_FAM_UVM, 0x17));
	KUNIT_EXPECT_TRUE(test, nvm_test_admits(p, NVM_FAM_ESCAPE, 0x4e));
	KUNIT_EXPECT_FALSE(test, nvm_test_admits(p, NVM_FAM_ALLOC, 0x20800a01));
	KUNIT_EXPECT_FALSE(test, nvm_test_admits(p, NVM_FAM_CTRL, 0x20800a02));
	KUNIT_EXPECT_FALSE(test, nvm_test_admits(p, NVM_FAM_CTRL, 0x201));

	/* Adding twice keeps one; "-" removes; "clear" starts over. */
	q = nvm_profile_edit_allow(p, "ctrl 0x20800a01 -uvm 0x17 ctrl 513");
	KUNIT_ASSERT_FALSE(test, IS_ERR_OR_NULL(q));
	KUNIT_EXPECT_EQ(test, q->nallow, 4U);
	KUNIT_EXPECT_FALSE(test, nvm_test_admits(q, NVM_FAM_UVM, 0x17));
	KUNIT_EXPECT_TRUE(test, nvm_test_admits(q, NVM_FAM_CTRL, 0x201));
	kfree(q);
	q = nvm_profile_edit_allow(p, "clear alloc 0x3e");
	KUNIT_ASSERT_FALSE(test, IS_ERR_OR_NULL(q));
	KUNIT_EXPECT_EQ(test, q->nallow, 1U);
	KUNIT_EXPECT_FALSE(test, nvm_test_admits(q, NVM_FAM_CTRL, 0x20800a01));
	kfree(q);
	/* Text that does not parse changes nothing. */
	KUNIT_EXPECT_EQ(test, PTR_ERR(nvm_profile_edit_allow(p, "ctrl")), -EINVAL);
	KUNIT_EXPECT_EQ(test, PTR_ERR(nvm_profile_edit_allow(p, "foo 0x1")), -EINVAL);
	KUNIT_EXPECT_EQ(test, PTR_ERR(nvm_profile_edit_allow(p, "ctrl 0xzz")), -EINVAL);
	kfree(p);
}

/* The capability and IMEX channel nodes a set gives, per kind. */
static void policy_test_fdnodes(struct kunit *test)
{
	struct nvm_profile *p = nvm_test_profile(test, 0, "");
	char buf[256];

	KUNIT_ASSERT_EQ(test, nvm_fdnodes_parse(p, NVM_FDNODE_CAP, "237:3, 237:4\n237:3"), 0);
	KUNIT_ASSERT_EQ(test, nvm_fdnodes_parse(p, NVM_FDNODE_IMEX, "236:1"), 0);
	KUNIT_EXPECT_EQ(test, p->nfdnodes, 3U);
	KUNIT_EXPECT_TRUE(test, nvm_profile_gives(p, NVM_FDNODE_CAP, MKDEV(237, 4)));
	KUNIT_EXPECT_TRUE(test, nvm_profile_gives(p, NVM_FDNODE_IMEX, MKDEV(236, 1)));
	/* A node of one kind does not stand for the other kind. */
	KUNIT_EXPECT_FALSE(test, nvm_profile_gives(p, NVM_FDNODE_IMEX, MKDEV(237, 4)));
	KUNIT_EXPECT_FALSE(test, nvm_profile_gives(p, NVM_FDNODE_CAP, MKDEV(237, 5)));
	buf[nvm_fdnodes_format(p, NVM_FDNODE_CAP, "nvidia_cap ", buf, sizeof(buf))] = 0;
	KUNIT_EXPECT_STREQ(test, buf, "nvidia_cap 237:3\nnvidia_cap 237:4\n");
	/* A write replaces its kind's list only; "none" empties it. */
	KUNIT_ASSERT_EQ(test, nvm_fdnodes_parse(p, NVM_FDNODE_CAP, "none\n"), 0);
	KUNIT_EXPECT_EQ(test, p->nfdnodes, 1U);
	KUNIT_EXPECT_TRUE(test, nvm_profile_gives(p, NVM_FDNODE_IMEX, MKDEV(236, 1)));
	/* Text that does not parse changes nothing. */
	KUNIT_EXPECT_EQ(test, nvm_fdnodes_parse(p, NVM_FDNODE_IMEX, "236:2 236"), -EINVAL);
	KUNIT_EXPECT_EQ(test, nvm_fdnodes_parse(p, NVM_FDNODE_IMEX, "0:2"), -EINVAL);
	KUNIT_EXPECT_EQ(test, nvm_fdnodes_parse(p, NVM_FDNODE_IMEX, "236:x"), -EINVAL);
	KUNIT_EXPECT_EQ(test, p->nfdnodes, 1U);
	kfree(p);
}

/* The escapes, controls, classes and UVM commands nvsession makes. */
static const u32 nvm_test_session_esc[] = { 0xc8, 0xc9, 0xce, 0xcf, 0xd2, 0xd3, 0xda, 0x27, 0x29,
					    0x2a, 0x2b, 0x4e, 0x4f, 0x52 };
static const u32 nvm_test_session_ctrl[] = { 0x13e, 0x201, 0x205, 0x800280, 0x2080014a,
					     0x20800301, 0x20800302 };
static const u32 nvm_test_session_class[] = { 0x0, 0x41, 0x3e, 0x79, 0x80, 0x2080 };
static const u32 nvm_test_session_uvm[] = { 0x30000001, 0x30000002, 37, 38, 75 };

/* compute + utility, the default, admits the session at three majors. */
static void policy_test_default_admits_session(struct kunit *test)
{
	static const char *const rels[] = { "535.288.01", "550.163.01", "595.45.04" };
	struct nvm_profile *p = nvm_test_profile(test, NVM_CAP_DEFAULT, "");
	struct nvm_verdict v;
	unsigned int r, i;
	u8 buf[64];

	for (i = 0; i < ARRAY_SIZE(nvm_test_session_esc); i++)
		KUNIT_EXPECT_TRUE_MSG(test, nvm_test_admits(p, NVM_FAM_ESCAPE,
							    nvm_test_session_esc[i]),
				      "esc 0x%x", nvm_test_session_esc[i]);
	for (i = 0; i < ARRAY_SIZE(nvm_test_session_uvm); i++)
		KUNIT_EXPECT_TRUE(test, nvm_test_admits(p, NVM_FAM_UVM, nvm_test_session_uvm[i]));

	/* Through the whole decision, in each release's layout. */
	for (r = 0; r < ARRAY_SIZE(rels); r++) {
		unsigned int abi = nvm_test_abi_of(rels[r]);

		KUNIT_ASSERT_LT(test, abi, (unsigned int)NVABI_NR_ABIS);
		for (i = 0; i < ARRAY_SIZE(nvm_test_session_ctrl); i++) {
			const struct nvabi_ctrl *e = nvm_abi_ctrl(nvm_test_session_ctrl[i], abi);
			struct nvm_call c = { .abi = abi, .kind = NVM_NODE_CTL, .prof = p,
					      .nr = NVM_NV_ESC_RM_CONTROL, .payload = buf };

			KUNIT_ASSERT_NOT_NULL(test, e);
			c.size = nvm_test_ctl(buf, abi, e->cmd, 0,
					      e->size ? NVM_TEST_PARAMS_PTR : 0, e->size);
			KUNIT_EXPECT_TRUE_MSG(test, nvm_decide(&c, &v), "%s ctrl 0x%x: %s",
					      rels[r], e->cmd, v.rule);
		}
		for (i = 0; i < ARRAY_SIZE(nvm_test_session_class); i++) {
			struct nvm_call c = { .abi = abi, .kind = NVM_NODE_CTL, .prof = p,
					      .nr = NVM_NV_ESC_RM_ALLOC, .payload = buf };

			c.size = nvm_test_alloc(buf, abi, true, nvm_test_session_class[i],
						NVM_TEST_PARAMS_PTR);
			KUNIT_EXPECT_TRUE_MSG(test, nvm_decide(&c, &v), "%s class 0x%x: %s",
					      rels[r], nvm_test_session_class[i], v.rule);
		}
	}
	kfree(p);
}

/* A refusal by the profile: its answer per family, after the shape checks. */
static void policy_test_answers(struct kunit *test)
{
	unsigned int abi = nvm_test_abi_of("595.45.04");
	const struct nvabi_rmlayout *l = nvm_abi_rmlayout(abi);
	struct nvm_profile *p = nvm_test_profile(test, 0, "ctrl 0x201");
	const struct nvabi_ctrl *e = nvm_abi_ctrl(0x205, abi);
	struct nvm_call c = { .abi = abi, .kind = NVM_NODE_CTL, .prof = p };
	struct nvm_verdict v;
	u8 buf[64];
	u32 size;

	KUNIT_ASSERT_NOT_NULL(test, e);
	/* A control outside the profile: status NV_ERR_NOT_SUPPORTED. */
	c.nr = NVM_NV_ESC_RM_CONTROL;
	c.payload = buf;
	c.size = nvm_test_ctl(buf, abi, e->cmd, 0, NVM_TEST_PARAMS_PTR, e->size);
	KUNIT_EXPECT_FALSE(test, nvm_decide(&c, &v));
	KUNIT_EXPECT_STREQ(test, v.rule, "ctrl-profile");
	KUNIT_EXPECT_EQ(test, v.err, 0);
	KUNIT_EXPECT_EQ(test, v.status, (u32)NVM_NV_ERR_NOT_SUPPORTED);
	KUNIT_EXPECT_EQ(test, v.status_off, (unsigned int)l->ctl_status);
	KUNIT_EXPECT_EQ(test, (unsigned int)v.family, (unsigned int)NVM_FAM_CTRL);
	KUNIT_EXPECT_EQ(test, v.number, 0x205U);
	/* The shape is checked first: a wrong size is still the driver's answer. */
	nvm_test_ctl(buf, abi, e->cmd, 0, NVM_TEST_PARAMS_PTR, e->size + 1);
	KUNIT_EXPECT_FALSE(test, nvm_decide(&c, &v));
	KUNIT_EXPECT_STREQ(test, v.rule, "ctrl-size");
	/* The allowed one passes. */
	e = nvm_abi_ctrl(0x201, abi);
	KUNIT_ASSERT_NOT_NULL(test, e);
	nvm_test_ctl(buf, abi, e->cmd, 0, NVM_TEST_PARAMS_PTR, e->size);
	KUNIT_EXPECT_TRUE(test, nvm_decide(&c, &v));

	/* A class: -EPERM, root clients included. */
	c.nr = NVM_NV_ESC_RM_ALLOC;
	c.size = nvm_test_alloc(buf, abi, true, 0x80, NVM_TEST_PARAMS_PTR);
	KUNIT_EXPECT_FALSE(test, nvm_decide(&c, &v));
	KUNIT_EXPECT_EQ(test, v.err, -EPERM);
	KUNIT_EXPECT_STREQ(test, v.rule, "alloc-profile");
	c.size = nvm_test_alloc(buf, abi, true, 0x0, 0);
	KUNIT_EXPECT_FALSE(test, nvm_decide(&c, &v));
	KUNIT_EXPECT_EQ(test, v.err, -EPERM);
	/* An unknown class is still answered as the driver does. */
	c.size = nvm_test_alloc(buf, abi, true, 0xbeef, 0);
	KUNIT_EXPECT_FALSE(test, nvm_decide(&c, &v));
	KUNIT_EXPECT_STREQ(test, v.rule, "class-unknown");

	/* An escape: -EPERM. */
	c.nr = 0xd6;	/* NV_ESC_SYS_PARAMS */
	c.size = 8;
	memset(buf, 0, sizeof(buf));
	KUNIT_EXPECT_FALSE(test, nvm_decide(&c, &v));
	KUNIT_EXPECT_EQ(test, v.err, -EPERM);
	KUNIT_EXPECT_STREQ(test, v.rule, "esc-profile");

	/* A UVM command: -EPERM. */
	c.kind = NVM_NODE_UVM;
	c.nr = 0x30000001;
	KUNIT_EXPECT_FALSE(test, nvm_uvm_decide(&c, &v, &size));
	KUNIT_EXPECT_EQ(test, v.err, -EPERM);
	KUNIT_EXPECT_STREQ(test, v.rule, "uvm-profile");
	/* ... after the shape: an unknown command is still the driver's answer. */
	c.nr = 201;
	KUNIT_EXPECT_FALSE(test, nvm_uvm_decide(&c, &v, &size));
	KUNIT_EXPECT_STREQ(test, v.rule, "uvm-unknown");
	KUNIT_EXPECT_EQ(test, v.err, nvabi_abi_uvm_unknown[abi] == NVABI_UVM_UNKNOWN_ENOSYS ?
			-ENOSYS : -EINVAL);
	kfree(p);
}

static void policy_test_caps_names(struct kunit *test)
{
	char buf[96];
	u32 caps;

	KUNIT_EXPECT_EQ(test, nvm_caps_parse("compute+utility", &caps), 0);
	KUNIT_EXPECT_EQ(test, caps, (u32)NVM_CAP_DEFAULT);
	KUNIT_EXPECT_EQ(test, nvm_caps_parse("video, rdma\n", &caps), 0);
	KUNIT_EXPECT_EQ(test, caps, (u32)(NVM_CAP_VIDEO | NVM_CAP_RDMA));
	KUNIT_EXPECT_EQ(test, nvm_caps_parse("none", &caps), 0);
	KUNIT_EXPECT_EQ(test, caps, 0U);
	KUNIT_EXPECT_EQ(test, nvm_caps_parse("all", &caps), 0);
	KUNIT_EXPECT_EQ(test, caps, (u32)NVM_CAP_ALL);
	KUNIT_EXPECT_EQ(test, nvm_caps_parse("compute+base", &caps), -EINVAL);
	KUNIT_EXPECT_EQ(test, nvm_caps_parse("computer", &caps), -EINVAL);
	nvm_caps_format(NVM_CAP_ALL, buf, sizeof(buf));
	KUNIT_EXPECT_STREQ(test, buf,
			   "compute utility graphics video profiling fabric-imex rdma mig");
	KUNIT_EXPECT_EQ(test, nvm_caps_parse(buf, &caps), 0);
	KUNIT_EXPECT_EQ(test, caps, (u32)NVM_CAP_ALL);
	nvm_caps_format(0, buf, sizeof(buf));
	KUNIT_EXPECT_STREQ(test, buf, "none");
}

/* The audit record: one entry per (family, number, rule), counted, bounded. */
static void policy_test_record(struct kunit *test)
{
	struct nvm_record *r = kunit_kzalloc(test, sizeof(*r), GFP_KERNEL);
	struct nvm_verdict v = { .rule = "ctrl-profile", .family = NVM_FAM_CTRL, .number = 0x201 };
	unsigned int i;

	KUNIT_ASSERT_NOT_NULL(test, r);
	nvm_record_init(r);
	nvm_record_add(r, &v);
	nvm_record_add(r, &v);
	v.rule = "ctrl-size";
	nvm_record_add(r, &v);
	KUNIT_EXPECT_EQ(test, r->n, 2U);
	KUNIT_EXPECT_EQ(test, r->ent[0].count, 2UL);
	KUNIT_EXPECT_EQ(test, r->ent[1].count, 1UL);
	for (i = 0; i < NVM_REC_MAX + 5; i++) {
		v.number = 0x1000 + i;
		nvm_record_add(r, &v);
	}
	KUNIT_EXPECT_EQ(test, r->n, (unsigned int)NVM_REC_MAX);
	KUNIT_EXPECT_EQ(test, r->dropped, 7UL);
	nvm_record_clear(r);
	KUNIT_EXPECT_EQ(test, r->n, 0U);
	KUNIT_EXPECT_EQ(test, r->dropped, 0UL);
}

static struct kunit_case nvm_policy_cases[] = {
	KUNIT_CASE(policy_test_table_caps),
	KUNIT_CASE_PARAM(policy_test_per_capability, nvm_test_caps_gen_params),
	KUNIT_CASE(policy_test_allow_entries),
	KUNIT_CASE(policy_test_fdnodes),
	KUNIT_CASE(policy_test_default_admits_session),
	KUNIT_CASE(policy_test_answers),
	KUNIT_CASE(policy_test_caps_names),
	KUNIT_CASE(policy_test_record),
	{}
};

static struct kunit_suite nvm_policy_suite = {
	.name = "nvmediate_policy",
	.test_cases = nvm_policy_cases,
};

kunit_test_suite(nvm_policy_suite);
