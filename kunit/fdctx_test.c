// SPDX-License-Identifier: GPL-2.0
/*
 * nvmediate: KUnit suite for the private fd tables (fdctx.c), built into it
 * with NVM_KUNIT (the #include at its end): files, fd tables and the
 * current task's, so the debug guest alone runs it.
 */
#include <kunit/test.h>
#include <linux/anon_inodes.h>
#include <linux/delay.h>
#include <linux/fdtable.h>
#include <linux/file.h>
#include <linux/fs.h>
#include <linux/slab.h>

/*
 * Stand-ins for mediated files: anon files whose private_data is a
 * struct nvm_file with a real (anon) backing file; nvm_test_file_of()
 * tells them from other files as node.c's nvm_file_of() tells the
 * mediated ones.
 */
static const struct file_operations nvm_test_fops = { .owner = THIS_MODULE };
static const struct file_operations nvm_test_backing_fops = { .owner = THIS_MODULE };

static struct nvm_file *nvm_test_file_of(struct file *file)
{
	return file->f_op == &nvm_test_fops ? file->private_data : NULL;
}

struct nvm_test_med {
	struct nvm_file nf;
	struct file *file;
};

static struct file *nvm_test_anon(struct kunit *test, const struct file_operations *fops,
				  void *priv)
{
	struct file *f = anon_inode_getfile("nvm-test", fops, priv, O_RDWR);

	KUNIT_ASSERT_FALSE(test, IS_ERR(f));
	return f;
}

static struct nvm_test_med *nvm_test_med_new(struct kunit *test, enum nvm_kind kind)
{
	struct nvm_test_med *m = kunit_kzalloc(test, sizeof(*m), GFP_KERNEL);

	KUNIT_ASSERT_NOT_NULL(test, m);
	m->nf.kind = kind;
	m->nf.backing = nvm_test_anon(test, &nvm_test_backing_fops, NULL);
	m->file = nvm_test_anon(test, &nvm_test_fops, &m->nf);
	return m;
}

static void nvm_test_med_put(struct nvm_test_med *m)
{
	fput(m->file);
	fput(m->nf.backing);
}

/* Look a number up the way the driver does, in current->files. */
static struct file *nvm_test_lookup(unsigned int fd)
{
	struct file *f = fget(fd);

	if (f)
		fput(f);	/* identity only; the table still holds it */
	return f;
}

static void fdctx_test_install_and_lookup(struct kunit *test)
{
	struct file *a = nvm_test_anon(test, &nvm_test_backing_fops, NULL);
	struct file *b = nvm_test_anon(test, &nvm_test_backing_fops, NULL);
	struct nvm_fdctx *ctx = nvm_fdctx_alloc(5);

	KUNIT_ASSERT_FALSE(test, IS_ERR(ctx));
	KUNIT_EXPECT_EQ(test, nvm_fdctx_install(ctx, 3, a), 0);
	KUNIT_EXPECT_EQ(test, nvm_fdctx_install(ctx, 5, b), 0);
	KUNIT_EXPECT_EQ(test, nvm_fdctx_install(ctx, 5, a), -EEXIST);
	KUNIT_EXPECT_EQ(test, nvm_fdctx_install(ctx, NR_OPEN_DEFAULT, a), -EBADF);

	nvm_fdctx_swap(ctx);
	KUNIT_EXPECT_PTR_EQ(test, nvm_test_lookup(3), a);
	KUNIT_EXPECT_PTR_EQ(test, nvm_test_lookup(5), b);
	KUNIT_EXPECT_NULL(test, nvm_test_lookup(4));
	KUNIT_EXPECT_NULL(test, nvm_test_lookup(0));
	nvm_fdctx_unswap(ctx);

	/* Back in the thread's own table, the private files are gone. */
	KUNIT_EXPECT_PTR_NE(test, nvm_test_lookup(3), a);
	KUNIT_EXPECT_PTR_NE(test, nvm_test_lookup(5), b);
	nvm_fdctx_destroy(ctx);
	fput(a);
	fput(b);
}

static void fdctx_test_large_numbers(struct kunit *test)
{
	struct file *a = nvm_test_anon(test, &nvm_test_backing_fops, NULL);
	struct nvm_fdctx *ctx = nvm_fdctx_alloc(4099);

	KUNIT_ASSERT_FALSE(test, IS_ERR(ctx));
	KUNIT_EXPECT_GE(test, ctx->files.fdtab.max_fds, 4100U);
	KUNIT_EXPECT_EQ(test, nvm_fdctx_install(ctx, 4099, a), 0);
	nvm_fdctx_swap(ctx);
	KUNIT_EXPECT_PTR_EQ(test, nvm_test_lookup(4099), a);
	KUNIT_EXPECT_NULL(test, nvm_test_lookup(4098));
	nvm_fdctx_unswap(ctx);
	nvm_fdctx_destroy(ctx);
	fput(a);
}

static void fdctx_test_refcounts_restored(struct kunit *test)
{
	struct file *a = nvm_test_anon(test, &nvm_test_backing_fops, NULL);
	long before = file_count(a);
	struct nvm_fdctx *ctx = nvm_fdctx_alloc(100);

	KUNIT_ASSERT_FALSE(test, IS_ERR(ctx));
	KUNIT_EXPECT_EQ(test, nvm_fdctx_install(ctx, 7, a), 0);
	KUNIT_EXPECT_EQ(test, nvm_fdctx_install(ctx, 70, a), 0);
	KUNIT_EXPECT_EQ(test, file_count(a), before + 2);
	nvm_fdctx_destroy(ctx);
	KUNIT_EXPECT_EQ(test, file_count(a), before);
	fput(a);
}

static int nvm_test_count_fd(const void *arg, struct file *file, unsigned int fd)
{
	unsigned long *seen = (unsigned long *)arg;

	if (fd < BITS_PER_LONG)
		__set_bit(fd, seen);
	return 0;
}

static void fdctx_test_iterate_sees_only_installed(struct kunit *test)
{
	struct file *a = nvm_test_anon(test, &nvm_test_backing_fops, NULL);
	struct nvm_fdctx *ctx = nvm_fdctx_alloc(20);
	unsigned long seen = 0;

	KUNIT_ASSERT_FALSE(test, IS_ERR(ctx));
	nvm_fdctx_install(ctx, 2, a);
	nvm_fdctx_install(ctx, 17, a);
	nvm_fdctx_swap(ctx);
	iterate_fd(current->files, 0, nvm_test_count_fd, &seen);
	nvm_fdctx_unswap(ctx);
	KUNIT_EXPECT_EQ(test, seen, BIT(2) | BIT(17));
	nvm_fdctx_destroy(ctx);
	fput(a);
}

/* An fd the driver would create during the call is closed, not leaked. */
static void fdctx_test_stray_fd_closed(struct kunit *test)
{
	struct file *a = nvm_test_anon(test, &nvm_test_backing_fops, NULL);
	long before = file_count(a);
	struct nvm_fdctx *ctx = nvm_fdctx_alloc(0);
	int fd;

	KUNIT_ASSERT_FALSE(test, IS_ERR(ctx));
	nvm_fdctx_swap(ctx);
	fd = get_unused_fd_flags(O_CLOEXEC);
	KUNIT_EXPECT_GE(test, fd, 0);
	if (fd >= 0)
		fd_install(fd, get_file(a));
	nvm_fdctx_unswap(ctx);
	KUNIT_EXPECT_EQ(test, file_count(a), before + (fd >= 0));
	nvm_fdctx_destroy(ctx);
	KUNIT_EXPECT_EQ(test, file_count(a), before);
	fput(a);
}

/* The kernel grows the private table past 64 fds: still freed correctly. */
static void fdctx_test_grown_table_freed(struct kunit *test)
{
	struct file *a = nvm_test_anon(test, &nvm_test_backing_fops, NULL);
	long before = file_count(a);
	struct nvm_fdctx *ctx = nvm_fdctx_alloc(0);
	int i, fd, n = 0;

	KUNIT_ASSERT_FALSE(test, IS_ERR(ctx));
	nvm_fdctx_swap(ctx);
	for (i = 0; i < NR_OPEN_DEFAULT + 8; i++) {
		fd = get_unused_fd_flags(0);
		if (fd < 0)
			break;
		fd_install(fd, get_file(a));
		n++;
	}
	nvm_fdctx_unswap(ctx);
	KUNIT_EXPECT_EQ(test, n, NR_OPEN_DEFAULT + 8);
	KUNIT_EXPECT_PTR_NE(test, rcu_access_pointer(ctx->files.fdt),
			    &ctx->files.fdtab);
	nvm_fdctx_destroy(ctx);
	KUNIT_EXPECT_EQ(test, file_count(a), before);
	fput(a);
}

/*
 * A reader holding the table by its count (get_files_struct(), 5.10) when
 * the call ends: the table is emptied at once (the files go back to their
 * owners) and nvm_fdctx_destroy() returns, but the context is freed only
 * once the reader lets go (reading it meanwhile is no use after free:
 * KASAN watches).
 */
static void fdctx_test_waits_for_counted_reader(struct kunit *test)
{
	struct file *a = nvm_test_anon(test, &nvm_test_backing_fops, NULL);
	long before = file_count(a);
	struct nvm_fdctx *ctx = nvm_fdctx_alloc(3);
	struct files_struct *files;
	int i;

	KUNIT_ASSERT_FALSE(test, IS_ERR(ctx));
	KUNIT_EXPECT_EQ(test, nvm_fdctx_install(ctx, 3, a), 0);
	files = &ctx->files;
	atomic_inc(&files->count);
	nvm_fdctx_destroy(ctx);
	KUNIT_EXPECT_EQ(test, file_count(a), before);
	KUNIT_EXPECT_EQ(test, atomic_read(&nvm_fdctx_deferred), 1);
	msleep(50);
	KUNIT_EXPECT_EQ(test, atomic_read(&files->count), 3);
	KUNIT_EXPECT_EQ(test, atomic_read(&nvm_fdctx_deferred), 1);
	atomic_dec(&files->count);
	for (i = 0; i < 500 && atomic_read(&nvm_fdctx_deferred); i++)
		msleep(10);
	KUNIT_EXPECT_EQ(test, atomic_read(&nvm_fdctx_deferred), 0);
	fput(a);
}

/*
 * nvm_fdctx_create() run from a "caller" table holding mediated, foreign
 * and GPU files: only mediated files named by the plan, and with gpu_nodes
 * one mediated file of each GPU (the lowest number), reach the private
 * table, as backing files.
 */
#define NVM_TEST_ANY_NODE	(BIT(NVM_NODE_CTL) | BIT(NVM_NODE_GPU) | BIT(NVM_NODE_UVM))

static void fdctx_test_create_mirrors_mediated_only(struct kunit *test)
{
	struct nvm_test_med *ctl = nvm_test_med_new(test, NVM_NODE_CTL);
	struct nvm_test_med *gpu0 = nvm_test_med_new(test, NVM_NODE_GPU);
	struct nvm_test_med *gpu1 = nvm_test_med_new(test, NVM_NODE_GPU);
	struct nvm_test_med *gpu0b = nvm_test_med_new(test, NVM_NODE_GPU);
	struct file *foreign = nvm_test_anon(test, &nvm_test_backing_fops, NULL);
	struct nvm_fdctx *caller = nvm_fdctx_alloc(200);
	struct nvm_fdplan plan = { .swap = true, .nfds = 3, .fds = { 4, 9, 11 },
				   .kinds = { BIT(NVM_NODE_CTL), NVM_TEST_ANY_NODE, NVM_TEST_ANY_NODE } };
	struct nvm_fdctx *ctx;
	int ret;

	KUNIT_ASSERT_FALSE(test, IS_ERR(caller));
	gpu1->nf.gpu = 1;
	nvm_fdctx_install(caller, 4, ctl->file);
	nvm_fdctx_install(caller, 9, foreign);
	nvm_fdctx_install(caller, 150, gpu0->file);
	nvm_fdctx_install(caller, 12, gpu1->file);
	nvm_fdctx_install(caller, 170, gpu0b->file);
	nvm_fdctx_swap(caller);

	/* No assertion may abort the test thread while a table is swapped in. */
	ret = nvm_fdctx_create(&plan, nvm_test_file_of, &ctx);
	if (ret) {
		KUNIT_FAIL(test, "nvm_fdctx_create: %d", ret);
		goto out;
	}
	nvm_fdctx_swap(ctx);
	KUNIT_EXPECT_PTR_EQ(test, nvm_test_lookup(4), ctl->nf.backing);
	KUNIT_EXPECT_NULL(test, nvm_test_lookup(9));	/* foreign: not mirrored */
	KUNIT_EXPECT_NULL(test, nvm_test_lookup(11));	/* empty in the caller */
	KUNIT_EXPECT_NULL(test, nvm_test_lookup(12));	/* GPU, but not asked for */
	KUNIT_EXPECT_NULL(test, nvm_test_lookup(150));
	nvm_fdctx_unswap(ctx);
	nvm_fdctx_destroy(ctx);

	/* The driver wants a UVM file at 4: the control file is left out. */
	plan.kinds[0] = BIT(NVM_NODE_UVM);
	ret = nvm_fdctx_create(&plan, nvm_test_file_of, &ctx);
	if (ret) {
		KUNIT_FAIL(test, "nvm_fdctx_create: %d", ret);
		goto out;
	}
	nvm_fdctx_swap(ctx);
	KUNIT_EXPECT_NULL(test, nvm_test_lookup(4));
	nvm_fdctx_unswap(ctx);
	nvm_fdctx_destroy(ctx);

	plan.gpu_nodes = true;
	plan.nfds = 0;
	ret = nvm_fdctx_create(&plan, nvm_test_file_of, &ctx);
	if (ret) {
		KUNIT_FAIL(test, "nvm_fdctx_create: %d", ret);
		goto out;
	}
	nvm_fdctx_swap(ctx);
	KUNIT_EXPECT_PTR_EQ(test, nvm_test_lookup(150), gpu0->nf.backing);
	KUNIT_EXPECT_PTR_EQ(test, nvm_test_lookup(12), gpu1->nf.backing);
	KUNIT_EXPECT_NULL(test, nvm_test_lookup(170));	/* GPU 0 has one at 150 */
	KUNIT_EXPECT_NULL(test, nvm_test_lookup(4));	/* control: not a GPU node */
	nvm_fdctx_unswap(ctx);
	nvm_fdctx_destroy(ctx);
out:
	nvm_fdctx_unswap(caller);
	nvm_fdctx_destroy(caller);
	nvm_test_med_put(ctl);
	nvm_test_med_put(gpu0);
	nvm_test_med_put(gpu1);
	nvm_test_med_put(gpu0b);
	fput(foreign);
}

/* The given-check of fdctx_test_own_file: gives @priv's file only. */
static bool nvm_test_given(const void *priv, struct file *file, u8 kind)
{
	return file == priv && kind == NVM_FDPLAN_CAP;
}

/*
 * A capability field: the caller's own file stands at its number when the
 * set gives it, the call is refused when not (or when the number names
 * nothing); the driver's copy, made at the private table's lowest free
 * number, moves to the number reserved in the caller's table.
 */
static void fdctx_test_own_file(struct kunit *test)
{
	struct file *cap = nvm_test_anon(test, &nvm_test_backing_fops, NULL);
	struct file *other = nvm_test_anon(test, &nvm_test_backing_fops, NULL);
	struct nvm_fdctx *caller = nvm_fdctx_alloc(64);
	struct nvm_fdplan plan = { .swap = true, .nfds = 1, .fds = { 7 },
				   .kinds = { NVM_FDPLAN_CAP }, .cap_dup = true,
				   .given = nvm_test_given };
	struct nvm_fdctx *ctx;
	long before = file_count(cap);
	int i, ret, dup = -1, reserved = -1;

	KUNIT_ASSERT_FALSE(test, IS_ERR(caller));
	plan.given_priv = cap;
	/* The caller holds 0..6 (other) and the capability at 7. */
	for (i = 0; i < 7; i++)
		nvm_fdctx_install(caller, i, other);
	nvm_fdctx_install(caller, 7, cap);
	nvm_fdctx_swap(caller);

	ret = nvm_fdctx_create(&plan, nvm_test_file_of, &ctx);
	if (ret) {
		KUNIT_FAIL(test, "nvm_fdctx_create: %d", ret);
		goto out;
	}
	reserved = ctx->dup_fd;
	nvm_fdctx_swap(ctx);
	KUNIT_EXPECT_PTR_EQ(test, nvm_test_lookup(7), cap);	/* the caller's own */
	/* What the driver does: its copy at the lowest free number. */
	dup = get_unused_fd_flags(O_CLOEXEC);
	if (dup >= 0)
		fd_install(dup, get_file(cap));
	nvm_fdctx_unswap(ctx);
	KUNIT_EXPECT_EQ(test, reserved, 8);
	KUNIT_EXPECT_EQ(test, dup, reserved);
	nvm_fdctx_settle(ctx);
	nvm_fdctx_destroy(ctx);
	/* Back in the caller's table: the copy at the reserved number. */
	KUNIT_EXPECT_PTR_EQ(test, nvm_test_lookup(8), cap);
	KUNIT_EXPECT_EQ(test, file_count(cap), before + 2);

	/* Not given: refused, nothing reserved left behind. */
	plan.given_priv = other;
	ret = nvm_fdctx_create(&plan, nvm_test_file_of, &ctx);
	KUNIT_EXPECT_EQ(test, ret, NVM_FDCTX_NOT_GIVEN);
	if (!ret)
		nvm_fdctx_destroy(ctx);
	/* A number that names nothing: refused too. */
	plan.given_priv = cap;
	plan.fds[0] = 40;
	ret = nvm_fdctx_create(&plan, nvm_test_file_of, &ctx);
	KUNIT_EXPECT_EQ(test, ret, NVM_FDCTX_NOT_GIVEN);
	if (!ret)
		nvm_fdctx_destroy(ctx);
	KUNIT_EXPECT_EQ(test, get_unused_fd_flags(0), 9);	/* 9: nothing held */
	put_unused_fd(9);
out:
	nvm_fdctx_unswap(caller);
	nvm_fdctx_destroy(caller);
	KUNIT_EXPECT_EQ(test, file_count(cap), before);
	fput(cap);
	fput(other);
}

/*
 * A capability field refused after an earlier field of the plan took its
 * file (here a mediated control file, whose backing file is taken): every
 * reference taken is put back, and only once.
 */
static void fdctx_test_not_given_after_others(struct kunit *test)
{
	struct nvm_test_med *ctl = nvm_test_med_new(test, NVM_NODE_CTL);
	struct file *cap = nvm_test_anon(test, &nvm_test_backing_fops, NULL);
	struct nvm_fdctx *caller = nvm_fdctx_alloc(16);
	struct nvm_fdplan plan = { .swap = true, .nfds = 2, .fds = { 3, 5 },
				   .kinds = { BIT(NVM_NODE_CTL), NVM_FDPLAN_CAP },
				   .given = nvm_test_given, .given_priv = NULL };
	long backing_before, cap_before;
	struct nvm_fdctx *ctx;
	int ret;

	KUNIT_ASSERT_FALSE(test, IS_ERR(caller));
	nvm_fdctx_install(caller, 3, ctl->file);
	nvm_fdctx_install(caller, 5, cap);
	backing_before = file_count(ctl->nf.backing);
	cap_before = file_count(cap);
	nvm_fdctx_swap(caller);
	ret = nvm_fdctx_create(&plan, nvm_test_file_of, &ctx);
	nvm_fdctx_unswap(caller);
	KUNIT_EXPECT_EQ(test, ret, NVM_FDCTX_NOT_GIVEN);
	if (!ret)
		nvm_fdctx_destroy(ctx);
	KUNIT_EXPECT_EQ(test, file_count(ctl->nf.backing), backing_before);
	KUNIT_EXPECT_EQ(test, file_count(cap), cap_before);
	nvm_fdctx_destroy(caller);
	fput(cap);
	nvm_test_med_put(ctl);
}

static struct kunit_case nvm_fdctx_cases[] = {
	KUNIT_CASE(fdctx_test_install_and_lookup),
	KUNIT_CASE(fdctx_test_large_numbers),
	KUNIT_CASE(fdctx_test_refcounts_restored),
	KUNIT_CASE(fdctx_test_iterate_sees_only_installed),
	KUNIT_CASE(fdctx_test_stray_fd_closed),
	KUNIT_CASE(fdctx_test_grown_table_freed),
	KUNIT_CASE(fdctx_test_waits_for_counted_reader),
	KUNIT_CASE(fdctx_test_create_mirrors_mediated_only),
	KUNIT_CASE(fdctx_test_own_file),
	KUNIT_CASE(fdctx_test_not_given_after_others),
	{}
};

static struct kunit_suite nvm_fdctx_suite = {
	.name = "nvmediate_fdctx",
	.test_cases = nvm_fdctx_cases,
};

kunit_test_suite(nvm_fdctx_suite);
