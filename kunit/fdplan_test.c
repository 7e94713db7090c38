// SPDX-License-Identifier: GPL-2.0
/*
 * nvmediate: KUnit suite for the fd plan (fdplan.c): the fd numbers a call
 * makes the driver look up, found through the decision the validator makes
 * (nvm_decide(), nvm_uvm_decide()) in the generated tables of a sample of
 * ABIs.  What each case expects is the driver's own behaviour, read from
 * its code (escape.c, osapi.c, nv-usermap.c, uvm.c of each release), not
 * from the tables: a wrong table fails here.  Built into fdplan.c with
 * NVM_KUNIT (the #include at its end) and into tests/unit/main.c.
 */
#include <kunit/test.h>

#include "nvm_test.h"
#include "uvm.h"

/* Decide escape @nr with payload @buf of @size bytes, then plan it. */
static bool nvm_test_plan_esc(struct kunit *test, unsigned int abi, enum nvm_kind kind,
			      unsigned int nr, void *buf, unsigned int size,
			      struct nvm_fdplan *plan)
{
	struct nvm_req req = { .nr = nr, .size = size, .kbuf = buf };
	bool ok = nvm_test_decide(abi, kind, NVM_TEST_ALL_POLICY, nr, size, buf, &req.verdict);

	KUNIT_EXPECT_EQ(test, nvm_fdplan_build(&req, plan), 0);
	return ok;
}

static const struct nvabi_esc *nvm_test_esc(unsigned int abi, unsigned int nr)
{
	return nvm_abi_esc(nr, abi);
}

/*
 * Escapes whose own struct holds an fd: REGISTER_FD's ctl_fd is looked up
 * as the control node; RM_ALLOC_MEMORY's and RM_MAP_MEMORY's fd as the node
 * the memory belongs to (control or GPU); ALLOC_OS_EVENT's and
 * FREE_OS_EVENT's fd is a number the driver only keeps, and
 * EXPORT_TO_DMABUF_FD's an fd it creates: neither is looked up.
 */
static void fdplan_test_escape_fields(struct kunit *test)
{
	static const struct {
		unsigned int nr;
		u8 kinds;
	} want[] = {
		{ 0xc9, BIT(NVM_NODE_CTL) },
		{ 0x27, BIT(NVM_NODE_CTL) | BIT(NVM_NODE_GPU) },
		{ 0x4e, BIT(NVM_NODE_CTL) | BIT(NVM_NODE_GPU) },
		{ 0xce, 0 },
		{ 0xcf, 0 },
		{ 0xd9, 0 },
	};
	unsigned int abi = nvm_test_param_abi(test), i, j;
	u8 *buf = kunit_kzalloc(test, 4096, GFP_KERNEL);

	KUNIT_ASSERT_NOT_NULL(test, buf);
	for (i = 0; i < ARRAY_SIZE(want); i++) {
		const struct nvabi_esc *e = nvm_test_esc(abi, want[i].nr);
		struct nvm_fdplan plan;
		unsigned int nfd = 0;

		if (!e)
			continue;
		KUNIT_ASSERT_LE(test, e->size, 4096U);
		/* 7 in every fd-named field, looked up or not */
		memset(buf, 0, e->size);
		for (j = 0; j < e->nfd; j++) {
			u32 seven = 7;

			memcpy(buf + nvabi_fds[e->fd + j].off, &seven, sizeof(seven));
		}
		/* RM_ALLOC_MEMORY reads its fd only for system memory it maps. */
		if (e->nr == NVM_NV_ESC_RM_ALLOC_MEMORY) {
			u32 sys = NVM_NV01_MEMORY_SYSTEM;

			memcpy(buf + nvm_abi_rmlayout(abi)->am_class, &sys, sizeof(sys));
		}
		KUNIT_EXPECT_TRUE_MSG(test,
				      nvm_test_plan_esc(test, abi, nvm_test_kind_for(e->node),
							e->nr, buf, e->size, &plan),
				      "esc 0x%x", e->nr);
		if (want[i].kinds)
			nfd = 1;
		KUNIT_EXPECT_EQ_MSG(test, plan.swap, nfd > 0, "esc 0x%x", e->nr);
		KUNIT_EXPECT_EQ_MSG(test, plan.nfds, nfd, "esc 0x%x", e->nr);
		if (nfd && plan.nfds) {
			KUNIT_EXPECT_EQ(test, plan.fds[0], 7);
			KUNIT_EXPECT_EQ_MSG(test, plan.kinds[0], want[i].kinds, "esc 0x%x",
					    e->nr);
		}
		KUNIT_EXPECT_FALSE(test, plan.gpu_nodes);
	}
	/*
	 * RM_ALLOC_MEMORY of an OS descriptor: the driver reads no fd but
	 * pins the caller's memory, so no private table (nor the lock that
	 * comes with it); of system memory it maps: looked up.
	 */
	{
		const struct nvabi_rmlayout *l = nvm_abi_rmlayout(abi);
		const struct nvabi_esc *e = nvm_test_esc(abi, 0x27);
		struct nvm_fdplan plan;
		u32 seven = 7, hclass;
		u64 limit = 4095;

		KUNIT_ASSERT_NOT_NULL(test, e);
		KUNIT_ASSERT_EQ(test, l->am_size, e->size);
		memset(buf, 0, e->size);
		memcpy(buf + nvabi_fds[e->fd].off, &seven, sizeof(seven));
		memcpy(buf + l->am_limit, &limit, sizeof(limit));
		hclass = NVM_NV01_MEMORY_SYSTEM_OS_DESCRIPTOR;
		memcpy(buf + l->am_class, &hclass, sizeof(hclass));
		nvm_test_plan_esc(test, abi, NVM_NODE_GPU, 0x27, buf, e->size, &plan);
		KUNIT_EXPECT_FALSE(test, plan.swap);
		KUNIT_EXPECT_EQ(test, plan.nfds, 0U);
		hclass = NVM_NV01_MEMORY_SYSTEM;
		memcpy(buf + l->am_class, &hclass, sizeof(hclass));
		nvm_test_plan_esc(test, abi, NVM_NODE_GPU, 0x27, buf, e->size, &plan);
		KUNIT_EXPECT_TRUE(test, plan.swap);
		KUNIT_EXPECT_EQ(test, plan.nfds, 1U);
		/* Not mapped (MAPPING_NO_MAP, or ALLOC_NONE): no fd read. */
		for (j = 0; j < 2; j++) {
			u32 flags = j ? 1U << 30 : 1U << 16;

			KUNIT_ASSERT_NE(test, l->am_flags, NVABI_OFF_NONE);
			memcpy(buf + l->am_flags, &flags, sizeof(flags));
			nvm_test_plan_esc(test, abi, NVM_NODE_GPU, 0x27, buf, e->size, &plan);
			KUNIT_EXPECT_FALSE_MSG(test, plan.swap, "flags 0x%x", flags);
		}
		/* A memory list (administrator-only): no fd read either. */
		hclass = 0x81;
		memset(buf + l->am_flags, 0, sizeof(u32));
		memcpy(buf + l->am_class, &hclass, sizeof(hclass));
		nvm_test_plan_esc(test, abi, NVM_NODE_GPU, 0x27, buf, e->size, &plan);
		KUNIT_EXPECT_FALSE(test, plan.swap);
	}
	/* The offset is the release's: REGISTER_FD at 0, the memory calls at 48. */
	KUNIT_EXPECT_EQ(test, nvabi_fds[nvm_test_esc(abi, 0xc9)->fd].off, 0U);
	KUNIT_EXPECT_EQ(test, nvabi_fds[nvm_test_esc(abi, 0x27)->fd].off, 48U);
}

/*
 * Allocating NV01_DEVICE_0 makes the driver check that the process holds
 * the GPU's node, in either form of RM_ALLOC at this ABI's sizes (NVOS64 is
 * 40 bytes before 535 and 48 after); other classes do not.
 */
static void fdplan_test_device_alloc(struct kunit *test)
{
	unsigned int abi = nvm_test_param_abi(test), size;
	u8 buf[64];
	struct nvm_fdplan plan;
	int big;

	for (big = 0; big < 2; big++) {
		size = nvm_test_alloc(buf, abi, big, NVM_NV01_DEVICE_0, 0);
		if (!size)
			continue;
		KUNIT_EXPECT_TRUE(test, nvm_test_plan_esc(test, abi, NVM_NODE_CTL,
							  NVM_NV_ESC_RM_ALLOC, buf, size,
							  &plan));
		KUNIT_EXPECT_TRUE_MSG(test, plan.gpu_nodes, "size %u", size);
		KUNIT_EXPECT_TRUE(test, plan.swap);
		KUNIT_EXPECT_EQ(test, plan.nfds, 0U);

		size = nvm_test_alloc(buf, abi, big, 0x2080, NVM_TEST_PARAMS_PTR);
		nvm_test_plan_esc(test, abi, NVM_NODE_CTL, NVM_NV_ESC_RM_ALLOC, buf, size,
				  &plan);
		KUNIT_EXPECT_FALSE_MSG(test, plan.gpu_nodes, "size %u", size);
		KUNIT_EXPECT_FALSE(test, plan.swap);
	}
}

/*
 * UVM: UVM_MM_INITIALIZE's uvmFd (535 and later) is looked up as a UVM
 * file; the rmCtrlFd of the registration and mapping commands is never
 * looked up by any release (the driver keeps it for later use); during
 * UVM_REGISTER_GPU the driver checks the process holds the GPU's node.
 * The payload size is the release's: UVM_MAP_EXTERNAL_ALLOCATION is 1200
 * bytes up to 550.40.07 and 9264 after.
 */
static void fdplan_test_uvm(struct kunit *test)
{
	unsigned int abi = nvm_test_param_abi(test), k;
	static const unsigned int cmds[] = { 25, 27, 33, 37, 75, 78 };
	struct nvm_call c = { .abi = abi, .kind = NVM_NODE_UVM, .prof = nvm_test_all };
	struct nvm_verdict v;
	u32 size;

	for (k = 0; k < ARRAY_SIZE(cmds); k++) {
		const struct nvabi_uvm *e = nvm_abi_uvm(cmds[k], abi);
		struct nvm_req req = { };
		struct nvm_fdplan plan;
		unsigned int i, looked = 0;

		if (!e)
			continue;
		c.nr = cmds[k];
		memset(&v, 0, sizeof(v));
		KUNIT_EXPECT_TRUE(test, nvm_uvm_decide(&c, &v, &size));
		KUNIT_EXPECT_EQ(test, v.payload_size, size);
		for (i = 0; i < v.nfds; i++)
			if (v.fds[i].node) {
				looked++;
				KUNIT_EXPECT_EQ_MSG(test, cmds[k], 75U, "uvm %u", cmds[k]);
				KUNIT_EXPECT_EQ(test, v.fds[i].node, NVABI_NODE_UVM);
				KUNIT_EXPECT_EQ(test, v.fds[i].off, 0U);
			}
		KUNIT_EXPECT_EQ_MSG(test, looked, cmds[k] == 75 ? 1U : 0U, "uvm %u", cmds[k]);
		if (cmds[k] == 33)
			KUNIT_EXPECT_TRUE_MSG(test, size == 1200 || size == 9264, "size %u", size);
		req.verdict = v;
		KUNIT_EXPECT_EQ(test, nvm_fdplan_wanted(&v), looked || cmds[k] == NVM_UVM_REGISTER_GPU);
		/* The copy the validator keeps for the bounce (nvm_req_keep()). */
		if (looked) {
			u32 seven = 7;

			req.kbuf = kunit_kzalloc(test, size, GFP_KERNEL);
			KUNIT_ASSERT_NOT_NULL(test, req.kbuf);
			memcpy(req.kbuf, &seven, sizeof(seven));
			req.size = size;
		}
		KUNIT_EXPECT_EQ(test, nvm_fdplan_build(&req, &plan), 0);
		KUNIT_EXPECT_EQ(test, plan.gpu_nodes, cmds[k] == NVM_UVM_REGISTER_GPU);
		KUNIT_EXPECT_EQ(test, plan.swap, looked || cmds[k] == NVM_UVM_REGISTER_GPU);
		if (looked) {
			KUNIT_EXPECT_EQ(test, plan.nfds, 1U);
			KUNIT_EXPECT_EQ(test, plan.fds[0], 7);
			KUNIT_EXPECT_EQ(test, plan.kinds[0], (u8)BIT(NVM_NODE_UVM));
		}
	}
}

/* Every fd field of every entry lies inside the entry's payload. */
static void fdplan_test_fields_inside(struct kunit *test)
{
	unsigned int i, j;

	for (i = 0; i < NVABI_NR_ESCS; i++)
		for (j = 0; j < nvabi_escs[i].nfd; j++)
			KUNIT_EXPECT_LE_MSG(test, nvabi_fds[nvabi_escs[i].fd + j].off + 4,
					    nvabi_escs[i].size, "esc 0x%x", nvabi_escs[i].nr);
	for (i = 0; i < NVABI_NR_CTRLS; i++)
		for (j = 0; j < nvabi_ctrls[i].nfd; j++)
			KUNIT_EXPECT_LE_MSG(test, nvabi_fds[nvabi_ctrls[i].fd + j].off + 4,
					    nvabi_ctrls[i].size, "ctrl 0x%x", nvabi_ctrls[i].cmd);
	for (i = 0; i < NVABI_NR_CLASSES; i++)
		for (j = 0; j < nvabi_classes[i].nfd; j++)
			KUNIT_EXPECT_LE_MSG(test, nvabi_fds[nvabi_classes[i].fd + j].off + 4,
					    nvabi_classes[i].size, "class 0x%x",
					    nvabi_classes[i].hclass);
	for (i = 0; i < NVABI_NR_UVMS; i++)
		for (j = 0; j < nvabi_uvms[i].nfd; j++)
			KUNIT_EXPECT_LE_MSG(test, nvabi_fds[nvabi_uvms[i].fd + j].off + 4,
					    nvabi_uvms[i].size, "uvm %u", nvabi_uvms[i].cmd);
	for (i = 1; i < NVABI_NR_FDS; i++)
		KUNIT_EXPECT_TRUE(test, nvabi_fds[i].size == 4 || nvabi_fds[i].size == 8);
}

static struct kunit_case nvm_fdplan_cases[] = {
	KUNIT_CASE_PARAM(fdplan_test_escape_fields, nvm_test_release_gen_params),
	KUNIT_CASE_PARAM(fdplan_test_device_alloc, nvm_test_release_gen_params),
	KUNIT_CASE_PARAM(fdplan_test_uvm, nvm_test_release_gen_params),
	KUNIT_CASE(fdplan_test_fields_inside),
	{}
};

static struct kunit_suite nvm_fdplan_suite = {
	.name = "nvmediate_fdplan",
	.suite_init = nvm_test_all_init,
	.suite_exit = nvm_test_all_exit,
	.test_cases = nvm_fdplan_cases,
};

kunit_test_suite(nvm_fdplan_suite);
