// SPDX-License-Identifier: GPL-2.0
/*
 * nvmediate: running a driver call with a private fd table.
 *
 * The driver resolves fd numbers from payloads with fget() in
 * current->files.  For the calls that need it, the calling thread's files
 * pointer is pointed, for the duration of the call only, at a private
 * files_struct that holds the backing files of the caller's mediated files
 * at the very same numbers, and nothing else.  Other threads of the process
 * keep their own pointer to the real table and never see a backing file.
 * See docs/design.md.
 *
 * Lock rules: the private table is written only by its owner before it is
 * installed and after it is removed; while installed, the kernel's own fd
 * helpers may read it (under its file_lock or RCU) in this thread, and
 * /proc/PID/task/TID/fd and fdinfo may list it (under RCU).  The swap of
 * current->files is done under task_lock(current), as the kernel's
 * unshare_files() does, with current->signal->exec_update_lock held for
 * writing for the whole driver call, so that pidfd_getfd() cannot take a
 * backing file out of the calling thread's table meanwhile.  What waits
 * for the call because of it is listed in docs/security.md.
 *
 * Lifetime: the context, and a table the kernel grew for an fd the driver
 * installed, are freed after an RCU grace period (an RCU reader of
 * /proc may still hold them); the module's exit waits for those frees
 * (rcu_barrier()).  Kernels that still have get_files_struct() (5.10)
 * let /proc hold a thread's table by its count outside RCU, across a copy
 * to user memory; one that found the private table may still hold it after
 * it was put back.  The grace period then starts only once such readers
 * are gone: a work polls for that (at doubling intervals, up to a
 * second), so that the calling thread never waits for a reader, and the
 * module's exit waits for those works.
 *
 * A thread that dies inside the driver (an oops) never returns to
 * nvm_fdctx_leave().  Every call made with a private table is listed
 * while it runs, and a probe on the scheduler's sched_process_exit
 * tracepoint, which do_exit() passes in the dying thread before
 * exit_files(), finds the thread's call there and does what
 * nvm_fdctx_leave() and nvm_fdctx_destroy() would have: puts the real
 * table back (exit_files() then drops it as for any thread), releases
 * exec_update_lock and closes and frees the private table.  The hook
 * uses only what upstream exports to modules (tracepoints are found by
 * name with for_each_kernel_tracepoint()).  The table's count starts one
 * above its users, so that a put by the kernel never frees it as if it
 * came from the kernel's files_struct cache.
 */
#include <linux/bitops.h>
#include <linux/fdtable.h>
#include <linux/file.h>
#include <linux/hash.h>
#include <linux/mm.h>
#include <linux/rcupdate.h>
#include <linux/sched/signal.h>
#include <linux/sched/task.h>
#include <linux/slab.h>
#include <linux/spinlock.h>
#include <linux/tracepoint.h>
#include <linux/wait.h>
#include <linux/workqueue.h>
#include <trace/events/sched.h>

#include "fdctx.h"
#include "nvmediate.h"

/*
 * The private table's count starts at this, one above its one user, the
 * calling thread (see "Lifetime"); at or below it, only nvmediate holds it.
 */
#define NVM_FDCTX_OWN_REFS	2

/**
 * struct nvm_fdctx - a private fd table and what it holds
 * @files: the table; @files.fdt points at @files.fdtab, whose arrays are
 *	either the embedded ones or @fd_array and @bitmaps
 * @saved: the caller's table while the private one is installed
 * @locked: exec_update_lock is held for writing
 * @task: the thread whose call installed the table, while it is listed
 * @call: in its thread's bucket of nvm_fdctx_calls while the table is
 *	installed
 * @since: jiffies when exec_update_lock was taken
 * @free_work: frees the context once counted readers are gone
 * @free_delay: jiffies until @free_work looks again
 * @max_fds: capacity of the table
 * @fd_array: the fd array when more than NR_OPEN_DEFAULT numbers are needed
 * @bitmaps: open_fds, close_on_exec and full_fds_bits, likewise
 * @grown: the table the kernel allocated when the driver grew ours, or NULL
 * @dup_fd: the number reserved in the caller's own table for the copy of a
 *	capability file the driver makes, or -1 (see nvm_fdctx_create())
 * @own: the caller's own files the private table holds (capability and
 *	IMEX channel files), each once; the table holds their references
 * @nown: number of @own
 * @rcu: frees the context after any reader of the table is gone
 */
struct nvm_fdctx {
	struct files_struct files;
	struct files_struct *saved;
	bool locked;
	struct task_struct *task;
	struct hlist_node call;
	unsigned long since;
	struct delayed_work free_work;
	unsigned long free_delay;
	unsigned int max_fds;
	struct file __rcu **fd_array;
	unsigned long *bitmaps;
	struct fdtable *grown;
	int dup_fd;
	struct file *own[NVM_FDPLAN_MAX];
	unsigned int nown;
	struct rcu_head rcu;
};

/**
 * nvm_fdctx_alloc() - an empty private table
 * @max_fd: the highest number it must be able to hold
 *
 * Return: the context, or ERR_PTR(-ENOMEM or -EBADF).
 */
static struct nvm_fdctx *nvm_fdctx_alloc(unsigned int max_fd)
{
	struct nvm_fdctx *ctx;
	struct fdtable *fdt;
	unsigned int nr, words;

	if (max_fd >= INT_MAX - BITS_PER_LONG)
		return ERR_PTR(-EBADF);
	ctx = kzalloc(sizeof(*ctx), GFP_KERNEL_ACCOUNT);
	if (!ctx)
		return ERR_PTR(-ENOMEM);

	ctx->dup_fd = -1;
	atomic_set(&ctx->files.count, NVM_FDCTX_OWN_REFS);
	init_waitqueue_head(&ctx->files.resize_wait);
	spin_lock_init(&ctx->files.file_lock);
	fdt = &ctx->files.fdtab;

	nr = max_t(unsigned int, NR_OPEN_DEFAULT, round_up(max_fd + 1, BITS_PER_LONG));
	if (nr == NR_OPEN_DEFAULT) {
		fdt->fd = &ctx->files.fd_array[0];
		fdt->close_on_exec = ctx->files.close_on_exec_init;
		fdt->open_fds = ctx->files.open_fds_init;
		fdt->full_fds_bits = ctx->files.full_fds_bits_init;
	} else {
		words = BITS_TO_LONGS(nr);
		ctx->fd_array = kvcalloc(nr, sizeof(*ctx->fd_array), GFP_KERNEL_ACCOUNT);
		ctx->bitmaps = kvcalloc(2 * words + BITS_TO_LONGS(words),
					sizeof(unsigned long), GFP_KERNEL_ACCOUNT);
		if (!ctx->fd_array || !ctx->bitmaps) {
			kvfree(ctx->fd_array);
			kvfree(ctx->bitmaps);
			kfree(ctx);
			return ERR_PTR(-ENOMEM);
		}
		fdt->fd = ctx->fd_array;
		fdt->open_fds = ctx->bitmaps;
		fdt->close_on_exec = ctx->bitmaps + words;
		fdt->full_fds_bits = ctx->bitmaps + 2 * words;
	}
	fdt->max_fds = nr;
	ctx->max_fds = nr;
	RCU_INIT_POINTER(ctx->files.fdt, fdt);
	return ctx;
}

/**
 * nvm_fdctx_install() - place a file at a number of the private table
 * @ctx: the context
 * @fd: the number
 * @file: the file
 *
 * Takes its own reference on @file.  Must not be called while the table is
 * installed.
 *
 * Return: 0, -EBADF for a number outside the table, -EEXIST when taken.
 */
static int nvm_fdctx_install(struct nvm_fdctx *ctx, unsigned int fd, struct file *file)
{
	struct fdtable *fdt = &ctx->files.fdtab;

	if (WARN_ON_ONCE(ctx->saved))
		return -EBUSY;
	if (fd >= fdt->max_fds)
		return -EBADF;
	if (test_bit(fd, fdt->open_fds))
		return -EEXIST;
	__set_bit(fd, fdt->open_fds);
	if (!~fdt->open_fds[fd / BITS_PER_LONG])
		__set_bit(fd / BITS_PER_LONG, fdt->full_fds_bits);
	rcu_assign_pointer(fdt->fd[fd], get_file(file));
	return 0;
}

/**
 * nvm_fdctx_swap() - make the private table the calling thread's
 * @ctx: the context
 *
 * Only the calling thread's pointer changes; callers must hold
 * exec_update_lock for writing (nvm_fdctx_enter() does) or run where no
 * other task can look at current->files (KUnit's test threads).
 */
static void nvm_fdctx_swap(struct nvm_fdctx *ctx)
{
	task_lock(current);
	ctx->saved = current->files;
	current->files = &ctx->files;
	task_unlock(current);
}

/**
 * nvm_fdctx_unswap() - give the calling thread its own table back
 * @ctx: the context
 */
static void nvm_fdctx_unswap(struct nvm_fdctx *ctx)
{
	task_lock(current);
	WARN_ON_ONCE(current->files != &ctx->files);
	current->files = ctx->saved;
	task_unlock(current);
	ctx->saved = NULL;
}

/* How long calls held exec_update_lock (nvm_fdctx_long_holds()). */
static atomic64_t nvm_fdctx_long = ATOMIC64_INIT(0);
static atomic_t nvm_fdctx_longest_ms = ATOMIC_INIT(0);

static void nvm_fdctx_held(unsigned long held)
{
	unsigned int ms = jiffies_to_msecs(held);
	int old = atomic_read(&nvm_fdctx_longest_ms);

	if (held >= HZ)
		atomic64_inc(&nvm_fdctx_long);
	while ((int)ms > old && !atomic_try_cmpxchg(&nvm_fdctx_longest_ms, &old, ms))
		;
}

/*
 * Calls in flight with a private table, for nvm_fdctx_task_exit(), hashed
 * by thread, so that an exiting thread looks at the calls of its
 * bucket only, however many calls other processes hold in the driver.
 * Raw spinlocks: the tracepoint's probe runs with preemption disabled.
 */
#define NVM_FDCTX_CALL_BITS	6
static struct nvm_fdctx_bucket {
	raw_spinlock_t lock;
	struct hlist_head calls;
} nvm_fdctx_calls[1 << NVM_FDCTX_CALL_BITS];
static atomic_t nvm_fdctx_ncalls = ATOMIC_INIT(0);

static struct nvm_fdctx_bucket *nvm_fdctx_bucket(struct task_struct *task)
{
	return &nvm_fdctx_calls[hash_ptr(task, NVM_FDCTX_CALL_BITS)];
}

static void nvm_fdctx_list(struct nvm_fdctx *ctx)
{
	struct nvm_fdctx_bucket *bk = nvm_fdctx_bucket(current);

	ctx->task = current;
	raw_spin_lock(&bk->lock);
	hlist_add_head(&ctx->call, &bk->calls);
	raw_spin_unlock(&bk->lock);
	atomic_inc(&nvm_fdctx_ncalls);
}

static void nvm_fdctx_unlist(struct nvm_fdctx *ctx)
{
	struct nvm_fdctx_bucket *bk = nvm_fdctx_bucket(current);

	raw_spin_lock(&bk->lock);
	hlist_del_init(&ctx->call);
	raw_spin_unlock(&bk->lock);
	atomic_dec(&nvm_fdctx_ncalls);
	ctx->task = NULL;
}

/**
 * nvm_fdctx_enter() - install the private table for a driver call
 * @ctx: the context
 *
 * Return: 0, or -EINTR when a fatal signal arrived while waiting for
 * exec_update_lock (the call is then not made).
 */
int nvm_fdctx_enter(struct nvm_fdctx *ctx)
{
	int ret;

	ret = down_write_killable(&current->signal->exec_update_lock);
	if (ret)
		return ret;
	ctx->locked = true;
	ctx->since = jiffies;
	nvm_fdctx_list(ctx);
	nvm_fdctx_swap(ctx);
	return 0;
}

/**
 * nvm_fdctx_leave() - remove the private table after the driver call
 * @ctx: the context
 *
 * In the thread that entered: exec_update_lock, which nvm_fdctx_enter()
 * took for writing, is still held until this releases it.
 */
void nvm_fdctx_leave(struct nvm_fdctx *ctx)
{
	if (ctx->locked)
		lockdep_assert_held_write(&current->signal->exec_update_lock);
	nvm_fdctx_unswap(ctx);
	nvm_fdctx_unlist(ctx);
	if (ctx->locked) {
		up_write(&current->signal->exec_update_lock);
		ctx->locked = false;
		nvm_fdctx_held(jiffies - ctx->since);
	}
}

/**
 * nvm_fdctx_long_holds() - calls that held exec_update_lock a second or more
 *
 * The caller decides how long its driver call lasts (docs/security.md,
 * "What waits"): counted, for /sys/class/nvmediate/stats/.
 *
 * Return: how many since nvmediate was loaded.
 */
u64 nvm_fdctx_long_holds(void)
{
	return atomic64_read(&nvm_fdctx_long);
}

/**
 * nvm_fdctx_longest_hold_ms() - the longest hold of exec_update_lock
 *
 * Return: milliseconds, since nvmediate was loaded.
 */
unsigned int nvm_fdctx_longest_hold_ms(void)
{
	return atomic_read(&nvm_fdctx_longest_ms);
}

static void nvm_fdctx_free_rcu(struct rcu_head *rcu)
{
	struct nvm_fdctx *ctx = container_of(rcu, struct nvm_fdctx, rcu);

	if (ctx->grown) {
		/* As the kernel allocated it (alloc_fdtable()). */
		kvfree(ctx->grown->fd);
		kvfree(ctx->grown->open_fds);
		kfree(ctx->grown);
	}
	kvfree(ctx->fd_array);
	kvfree(ctx->bitmaps);
	kfree(ctx);
}

/*
 * Drop every file of the private table.  The driver is not expected to
 * create fds during a call made with a private table; should it have done
 * so, such files are closed here, never handed to anyone, and the event is
 * logged.
 */
static void nvm_fdctx_empty(struct nvm_fdctx *ctx)
{
	struct fdtable *fdt;
	unsigned int fd;

	fdt = rcu_dereference_raw(ctx->files.fdt);
	if (fdt != &ctx->files.fdtab) {
		/*
		 * The kernel grew the table for an fd the driver installed.
		 * Files past our size were the driver's and are closed below
		 * through the grown table, which is freed with the context.
		 */
		pr_warn_ratelimited("driver grew a private fd table\n");
		ctx->grown = fdt;
	}
	/*
	 * A slot is cleared under file_lock: a reader that holds the table by
	 * its count (5.10's /proc fdinfo and fd links) takes a file from it
	 * under that lock alone, and must never take one whose last reference
	 * the fput() below drops.  Only this thread writes the table now, so
	 * the slots are read without the lock.
	 */
	for (fd = 0; fd < fdt->max_fds; fd++) {
		struct file *file = rcu_dereference_raw(fdt->fd[fd]);

		if (!file)
			continue;
		spin_lock(&ctx->files.file_lock);
		RCU_INIT_POINTER(fdt->fd[fd], NULL);
		spin_unlock(&ctx->files.file_lock);
		fput(file);
	}
}

/* Contexts whose free waits for a counted reader (see "Lifetime"). */
static atomic_t nvm_fdctx_deferred = ATOMIC_INIT(0);
static DECLARE_WAIT_QUEUE_HEAD(nvm_fdctx_deferred_wait);
static struct workqueue_struct *nvm_fdctx_wq;

static void nvm_fdctx_deferred_free_rcu(struct rcu_head *rcu)
{
	nvm_fdctx_free_rcu(rcu);
	if (atomic_dec_and_test(&nvm_fdctx_deferred))
		wake_up(&nvm_fdctx_deferred_wait);
}

/* Only nvmediate's own references left?  Nobody can take a new one. */
static bool nvm_fdctx_unread(struct nvm_fdctx *ctx)
{
	return atomic_read(&ctx->files.count) <= NVM_FDCTX_OWN_REFS;
}

static void nvm_fdctx_free_later(struct work_struct *work)
{
	struct nvm_fdctx *ctx = container_of(to_delayed_work(work), struct nvm_fdctx, free_work);

	if (nvm_fdctx_unread(ctx)) {
		call_rcu(&ctx->rcu, nvm_fdctx_deferred_free_rcu);
		return;
	}
	/* A reader that stays: looked at less and less often, up to once a second. */
	ctx->free_delay = min_t(unsigned long, 2 * ctx->free_delay, HZ);
	queue_delayed_work(nvm_fdctx_wq ?: system_wq, &ctx->free_work, ctx->free_delay);
}

static void nvm_fdctx_put(struct nvm_fdctx *ctx)
{
	if (nvm_fdctx_unread(ctx)) {
		call_rcu(&ctx->rcu, nvm_fdctx_free_rcu);
		return;
	}
	atomic_inc(&nvm_fdctx_deferred);
	INIT_DELAYED_WORK(&ctx->free_work, nvm_fdctx_free_later);
	ctx->free_delay = 1;
	queue_delayed_work(nvm_fdctx_wq ?: system_wq, &ctx->free_work, ctx->free_delay);
}

/**
 * nvm_fdctx_settle() - give the caller the copy of a capability file the
 *	driver made during the call
 * @ctx: the context, after nvm_fdctx_leave()
 *
 * The driver keeps a capability file it validated open in the caller's
 * table, at the lowest free number, for as long as the subscription lasts,
 * and closes that number when the object goes (nv_cap_close_fd()).  The
 * call ran with the private table, whose lowest free number was made the
 * number reserved in the caller's own table (nvm_fdctx_create()): the copy
 * moves there, so the caller's table ends as the driver's own node would
 * have left it, and the driver's later close finds it.
 */
void nvm_fdctx_settle(struct nvm_fdctx *ctx)
{
	struct file *file = NULL;
	struct fdtable *fdt;
	unsigned int i;

	if (IS_ERR_OR_NULL(ctx) || ctx->dup_fd < 0 || WARN_ON_ONCE(ctx->saved))
		return;
	fdt = rcu_dereference_raw(ctx->files.fdt);
	if (ctx->dup_fd < fdt->max_fds)
		file = rcu_dereference_raw(fdt->fd[ctx->dup_fd]);
	for (i = 0; file && i < ctx->nown && ctx->own[i] != file; i++)
		;
	if (!file || i == ctx->nown)
		return;
	/* As nvm_fdctx_empty() clears a slot; the reference moves. */
	spin_lock(&ctx->files.file_lock);
	RCU_INIT_POINTER(fdt->fd[ctx->dup_fd], NULL);
	spin_unlock(&ctx->files.file_lock);
	fd_install(ctx->dup_fd, file);
	ctx->dup_fd = -1;
}

/**
 * nvm_fdctx_destroy() - empty the private table and free it
 * @ctx: the context, or an ERR_PTR or NULL (ignored)
 *
 * Drops every file in it (nvm_fdctx_empty()); the context itself goes once
 * no reader holds the table (see "Lifetime").
 */
void nvm_fdctx_destroy(struct nvm_fdctx *ctx)
{
	if (IS_ERR_OR_NULL(ctx))
		return;
	if (WARN_ON_ONCE(ctx->saved))
		nvm_fdctx_leave(ctx);
	if (ctx->dup_fd >= 0)
		put_unused_fd(ctx->dup_fd);
	ctx->dup_fd = -1;
	nvm_fdctx_empty(ctx);
	nvm_fdctx_put(ctx);
}

/*
 * sched_process_exit, in the dying thread before exit_files(), with
 * preemption disabled: a thread that is listed died inside its driver call
 * (see "Lifetime").  Nothing here sleeps: fput() defers the final release.
 */
static void nvm_fdctx_task_exit(void *data, struct task_struct *task
				NVM_SCHED_EXIT_EXTRA_ARGS)
{
	struct nvm_fdctx_bucket *bk;
	struct nvm_fdctx *ctx = NULL, *c;

	/* A thread sees its own listing: others' do not matter here. */
	if (!atomic_read(&nvm_fdctx_ncalls) || task != current)
		return;
	bk = nvm_fdctx_bucket(current);
	raw_spin_lock(&bk->lock);
	hlist_for_each_entry(c, &bk->calls, call) {
		if (c->task == current) {
			ctx = c;
			break;
		}
	}
	raw_spin_unlock(&bk->lock);
	if (!ctx)
		return;
	pr_warn("a thread died inside the driver with a private fd table: cleaning up\n");
	nvm_fdctx_leave(ctx);
	nvm_fdctx_destroy(ctx);
}

static struct tracepoint *nvm_fdctx_exit_tp;

static void nvm_fdctx_find_tp(struct tracepoint *tp, void *priv)
{
	if (!strcmp(tp->name, "sched_process_exit"))
		*(struct tracepoint **)priv = tp;
}

/**
 * nvm_fdctx_init() - the exit hook, and the workqueue of frees that wait
 *	for readers
 *
 * Return: 0, -ENOENT when the kernel has no sched_process_exit tracepoint,
 * or another errno.
 */
int nvm_fdctx_init(void)
{
	unsigned int i;
	int ret;

	/* The hook's prototype is the tracepoint's (a mismatch would not build). */
	check_trace_callback_type_sched_process_exit(nvm_fdctx_task_exit);
	for (i = 0; i < ARRAY_SIZE(nvm_fdctx_calls); i++) {
		raw_spin_lock_init(&nvm_fdctx_calls[i].lock);
		INIT_HLIST_HEAD(&nvm_fdctx_calls[i].calls);
	}
	for_each_kernel_tracepoint(nvm_fdctx_find_tp, &nvm_fdctx_exit_tp);
	if (!nvm_fdctx_exit_tp) {
		pr_err("the kernel has no tracepoint sched_process_exit, which nvmediate needs to clean up after a thread that dies inside the driver\n");
		return -ENOENT;
	}
	nvm_fdctx_wq = alloc_workqueue("nvmediate_fdctx", WQ_UNBOUND, 0);
	if (!nvm_fdctx_wq)
		return -ENOMEM;
	ret = tracepoint_probe_register(nvm_fdctx_exit_tp, (void *)nvm_fdctx_task_exit, NULL);
	if (ret) {
		pr_err("cannot attach to the tracepoint sched_process_exit: %d\n", ret);
		destroy_workqueue(nvm_fdctx_wq);
	}
	return ret;
}

/**
 * nvm_fdctx_exit() - detach the exit hook, wait for the frees that wait
 *	for readers
 *
 * A reader stuck with a table (a /proc read into user memory that never
 * resolves) holds the module's exit until it lets go.  Callers run
 * rcu_barrier() after this.
 */
void nvm_fdctx_exit(void)
{
	tracepoint_probe_unregister(nvm_fdctx_exit_tp, (void *)nvm_fdctx_task_exit, NULL);
	tracepoint_synchronize_unregister();
	wait_event(nvm_fdctx_deferred_wait, !atomic_read(&nvm_fdctx_deferred));
	destroy_workqueue(nvm_fdctx_wq);
}

/*
 * The driver's device allocation asks whether the caller holds any file of
 * the GPU (nv_is_gpu_accessible() walks the table): one file per GPU, the
 * lowest number, is all it needs, however many the caller holds.
 */
struct nvm_gpu_scan {
	nvm_mediated_fn mediated;
	unsigned int n;
	DECLARE_BITMAP(seen, NVM_MAX_GPUS);
	unsigned int fd[NVM_MAX_GPUS];
	struct file *backing[NVM_MAX_GPUS];
};

/* iterate_fd() callback, under the caller table's file_lock: no sleeping. */
static int nvm_fdctx_scan_gpu(const void *arg, struct file *file, unsigned int fd)
{
	struct nvm_gpu_scan *scan = (struct nvm_gpu_scan *)arg;
	struct nvm_file *nf = scan->mediated(file);

	if (!nf || nf->kind != NVM_NODE_GPU || nf->gpu >= NVM_MAX_GPUS ||
	    test_and_set_bit(nf->gpu, scan->seen))
		return 0;
	scan->fd[scan->n] = fd;
	scan->backing[scan->n] = get_file(nf->backing);
	scan->n++;
	return 0;
}

/*
 * The files a private table is to hold at @plan's numbers, into @backing
 * (a reference each, which the caller puts whatever this returns), and the
 * highest of those numbers into *@max_fd.
 *
 * Return: 0, or %NVM_FDCTX_NOT_GIVEN.
 */
static int nvm_fdctx_gather(const struct nvm_fdplan *plan, nvm_mediated_fn mediated,
			    struct file **backing, unsigned int *max_fd)
{
	u8 own = NVM_FDPLAN_CAP | NVM_FDPLAN_IMEX;
	unsigned int i;

	for (i = 0; i < plan->nfds; i++) {
		struct file *file = plan->fds[i] >= 0 ? fget(plan->fds[i]) : NULL;
		struct nvm_file *nf = file && !(plan->kinds[i] & own) ? mediated(file) : NULL;

		if (plan->kinds[i] & own) {
			/*
			 * Only a file of a node the set gives: with no file,
			 * a driver without capability support (no nv-caps)
			 * would skip its own check.
			 */
			if (!file || !plan->given ||
			    !plan->given(plan->given_priv, file, plan->kinds[i])) {
				if (file)
					fput(file);
				return NVM_FDCTX_NOT_GIVEN;
			}
			/* The caller's own file, as it is: the reference moves. */
			backing[i] = file;
			*max_fd = max_t(unsigned int, *max_fd, plan->fds[i]);
			continue;
		}
		if (nf && nvm_fdplan_kind_ok(plan, i, nf->kind)) {
			backing[i] = get_file(nf->backing);
			*max_fd = max_t(unsigned int, *max_fd, plan->fds[i]);
		}
		if (file)
			fput(file);
	}
	return 0;
}

/*
 * Put @backing (@plan's) and @scan's files into the empty table of @ctx,
 * and the number reserved for the driver's copy, @dup_fd (or -1), as its
 * lowest free one.
 */
static void nvm_fdctx_fill(struct nvm_fdctx *ctx, const struct nvm_fdplan *plan,
			   struct file **backing, const struct nvm_gpu_scan *scan, int dup_fd)
{
	u8 own = NVM_FDPLAN_CAP | NVM_FDPLAN_IMEX;
	unsigned int i;

	/* A number listed twice is installed once; -EEXIST is expected then. */
	for (i = 0; i < plan->nfds; i++)
		if (backing[i] && !nvm_fdctx_install(ctx, plan->fds[i], backing[i]) &&
		    (plan->kinds[i] & own))
			ctx->own[ctx->nown++] = backing[i];
	for (i = 0; scan && i < scan->n; i++)
		nvm_fdctx_install(ctx, scan->fd[i], scan->backing[i]);
	if (dup_fd >= 0) {
		/*
		 * The driver takes the lowest free number at or above next_fd
		 * (alloc_fd()); the reserved number is free here, since every
		 * number of this table held a file of the caller's table after
		 * the number was reserved there.
		 */
		ctx->files.next_fd = dup_fd;
		ctx->dup_fd = dup_fd;
	}
}

/**
 * nvm_fdctx_create() - the private table a call needs
 * @plan: the fd numbers the driver will look up, from nvm_fdplan_build()
 * @mediated: the mediated state of a file, NULL when it is not one of
 *	nvmediate's (node.c's nvm_file_of())
 * @ctxp: set to the context on success
 *
 * Every number in @plan that names a mediated file of the kind the driver
 * wants there (nvm_fdplan_kind_ok()) in the caller's table gets that file's
 * backing file at the same number; numbers that name anything else stay
 * empty.  When @plan->gpu_nodes is set, the backing file of one mediated
 * file of each GPU node the caller holds is added at its number.  A number
 * the driver looks up as a capability node or IMEX channel gets the
 * caller's own file, when @plan->given says the node set gives its node;
 * if it does not, or the number names no file, no table is made and the
 * call is to be refused.  When the driver will copy a capability file
 * into the table, a number is reserved for the copy in the caller's own
 * table first (nvm_fdctx_settle()).
 *
 * Return: 0; %NVM_FDCTX_NOT_GIVEN for a capability node or IMEX channel
 * the node set does not give; -ENOMEM, or -EMFILE when the caller's table
 * has no number left for the driver's copy.
 */
int nvm_fdctx_create(const struct nvm_fdplan *plan, nvm_mediated_fn mediated,
		     struct nvm_fdctx **ctxp)
{
	struct file *backing[NVM_FDPLAN_MAX] = { };
	struct nvm_gpu_scan *scan = NULL;
	struct nvm_fdctx *ctx;
	unsigned int i, max_fd = 0;
	int dup_fd = -1, ret;

	if (plan->cap_dup) {
		/*
		 * Where the driver's copy of a capability file will go
		 * (nvm_fdctx_settle()).  Reserved first: a number the caller
		 * closes meanwhile can then never be both this one and one
		 * the private table holds.
		 */
		dup_fd = get_unused_fd_flags(O_CLOEXEC);
		if (dup_fd < 0)
			return dup_fd;
		max_fd = dup_fd;
	}
	ret = nvm_fdctx_gather(plan, mediated, backing, &max_fd);
	if (ret)
		goto out;
	if (plan->gpu_nodes) {
		scan = kzalloc(sizeof(*scan), GFP_KERNEL);
		if (!scan) {
			ret = -ENOMEM;
			goto out;
		}
		scan->mediated = mediated;
		iterate_fd(current->files, 0, nvm_fdctx_scan_gpu, scan);
		for (i = 0; i < scan->n; i++)
			max_fd = max(max_fd, scan->fd[i]);
	}
	ctx = nvm_fdctx_alloc(max_fd);
	if (IS_ERR(ctx)) {
		ret = PTR_ERR(ctx);
		goto out;
	}
	nvm_fdctx_fill(ctx, plan, backing, scan, dup_fd);
	*ctxp = ctx;
	dup_fd = -1;
out:
	if (dup_fd >= 0)
		put_unused_fd(dup_fd);
	for (i = 0; i < plan->nfds; i++)
		if (backing[i])
			fput(backing[i]);
	for (i = 0; scan && i < scan->n; i++)
		fput(scan->backing[i]);
	kfree(scan);
	return ret;
}

#ifdef NVM_KUNIT
#include "../kunit/fdctx_test.c"
#endif
