// SPDX-License-Identifier: GPL-2.0
/*
 * nvfault: calls through the mediated nodes under faults (83-hard-faults.sh).
 *
 *   nvfault call KIND               one call; prints "ret=0" or "ret=-<errno>"
 *   nvfault signal KIND MS          SIGUSR1 (no SA_RESTART) to the caller
 *                                   MS ms into the call; prints ret and ms
 *   nvfault kill KIND MS            a child makes the call, SIGKILLed MS ms
 *                                   in; prints how it ended and ms
 *   nvfault failnth [MAX]           fail the Nth slab allocation
 *                                   (/proc/thread-self/fail-nth), N = 1, 2,
 *                                   .. until an operation runs without a
 *                                   fault (at most MAX), for each operation:
 *                                   open of each node, a plain ioctl, an
 *                                   fd-carrying ioctl, UVM's, mmap
 *   nvfault procs N [KILL_EVERY]    N processes open the three nodes, make
 *                                   an fd-carrying call and exit; one in
 *                                   KILL_EVERY is SIGKILLed in the middle
 *                                   of its calls or of a blocking poll()
 *
 * KIND: plain (CARD_INFO on the control node), fd (REGISTER_FD on the GPU
 * node naming the control node), uvm (UVM_INITIALIZE), uvm-fd
 * (UVM_MM_INITIALIZE naming an initialised UVM file).
 * Paths: NVM_CTL, NVM_GPU, NVM_UVM in the environment, else the mediated
 * nodes.  NVM_FAULT="COUNT ERRNO SLEEP_MS": written to the stand-in's
 * debugfs fault file after the setup calls, just before the call under test
 * (call, signal, kill).  Exit status 0 when the mode ran (the script judges the output),
 * 1 when a failnth outcome was not a clean errno.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <pthread.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/mman.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "../nvidia-abi/nvdrv.h"

static const char *pctl, *pgpu, *puvm;

static const char *errname(int e)
{
	static char buf[16];

	switch (e) {
	case 0: return "0";
	case EINVAL: return "-EINVAL";
	case ENOTTY: return "-ENOTTY";
	case EFAULT: return "-EFAULT";
	case EPERM: return "-EPERM";
	case ENOMEM: return "-ENOMEM";
	case ENOSYS: return "-ENOSYS";
	case ENXIO: return "-ENXIO";
	case EINTR: return "-EINTR";
	case EIO: return "-EIO";
	case EAGAIN: return "-EAGAIN";
	case ENFILE: return "-ENFILE";
	case ENODEV: return "-ENODEV";
	case EBUSY: return "-EBUSY";
	}
	snprintf(buf, sizeof(buf), "-E%d", e);
	return buf;
}

static long now_ms(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec * 1000 + ts.tv_nsec / 1000000;
}

static int open_node(const char *path)
{
	int fd = open(path, O_RDWR | O_CLOEXEC);

	if (fd < 0) {
		printf("open %s: %s\n", path, errname(errno));
		exit(2);
	}
	return fd;
}

struct files {
	int ctl, gpu, uvm, uvm2;
};

static void open_all(struct files *f)
{
	struct nvd_uvm_initialize in = { 0 };

	f->ctl = open_node(pctl);
	f->gpu = open_node(pgpu);
	f->uvm = open_node(puvm);
	f->uvm2 = open_node(puvm);
	ioctl(f->uvm2, UVM_INITIALIZE, &in);
}

/*
 * Arm the stand-in's fault (NVM_FAULT="COUNT ERRNO SLEEP_MS") once the
 * setup calls are made, so that it hits the call under test.
 */
static void arm_fault(void)
{
	const char *spec = getenv("NVM_FAULT");
	FILE *f;

	if (!spec)
		return;
	f = fopen("/sys/kernel/debug/nvidia-standin/fault", "w");
	if (!f || fputs(spec, f) < 0 || fclose(f)) {
		printf("cannot arm the fault %s\n", spec);
		exit(2);
	}
}

static void close_all(struct files *f)
{
	close(f->ctl);
	close(f->gpu);
	close(f->uvm);
	close(f->uvm2);
}

/* One call of @kind; 0 or -errno. */
static int do_call(const struct files *f, const char *kind)
{
	static struct nvd_card_info ci[32];
	struct nvd_register_fd r = { .ctl_fd = f->ctl };
	struct nvd_uvm_initialize in = { 0 };
	struct nvd_uvm_mm_initialize mm = { .uvmFd = f->uvm2 };
	int ret;

	if (!strcmp(kind, "plain"))
		ret = ioctl(f->ctl, NV_IOC(NV_ESC_CARD_INFO, sizeof(ci)), ci);
	else if (!strcmp(kind, "fd"))
		ret = ioctl(f->gpu, NV_IOC(NV_ESC_REGISTER_FD, sizeof(r)), &r);
	else if (!strcmp(kind, "uvm"))
		ret = ioctl(f->uvm, UVM_INITIALIZE, &in);
	else if (!strcmp(kind, "uvm-fd"))
		ret = ioctl(f->uvm, UVM_MM_INITIALIZE, &mm);
	else {
		fprintf(stderr, "nvfault: unknown kind %s\n", kind);
		exit(2);
	}
	return ret < 0 ? -errno : 0;
}

static void on_usr1(int sig)
{
	(void)sig;
}

struct sigarg {
	pthread_t target;
	int ms;
};

static void *signaller(void *p)
{
	struct sigarg *a = p;

	usleep(a->ms * 1000);
	pthread_kill(a->target, SIGUSR1);
	return NULL;
}

static int mode_signal(const char *kind, int ms)
{
	struct sigaction sa = { .sa_handler = on_usr1 };	/* no SA_RESTART */
	struct sigarg a = { .target = pthread_self(), .ms = ms };
	struct files f;
	pthread_t th;
	long t0;
	int ret;

	sigaction(SIGUSR1, &sa, NULL);
	open_all(&f);
	arm_fault();
	t0 = now_ms();
	pthread_create(&th, NULL, signaller, &a);
	ret = do_call(&f, kind);
	printf("ret=%s ms=%ld\n", errname(-ret), now_ms() - t0);
	pthread_join(th, NULL);
	close_all(&f);
	return 0;
}

static int mode_kill(const char *kind, int ms)
{
	int pipefd[2], st;
	char c;
	long t0;
	pid_t pid;

	if (pipe(pipefd))
		return 2;
	pid = fork();
	if (pid == 0) {
		struct files f;

		open_all(&f);
		arm_fault();
		c = 1;
		if (write(pipefd[1], &c, 1) != 1)
			_exit(3);
		do_call(&f, kind);
		_exit(0);
	}
	if (read(pipefd[0], &c, 1) != 1)
		return 2;
	t0 = now_ms();
	usleep(ms * 1000);
	kill(pid, SIGKILL);
	waitpid(pid, &st, 0);
	if (WIFSIGNALED(st))
		printf("killed=%d ms=%ld\n", WTERMSIG(st), now_ms() - t0);
	else
		printf("exited=%d ms=%ld\n", WEXITSTATUS(st), now_ms() - t0);
	return 0;
}

/* ---- fail-nth ---- */

static int nth_fd = -1;

static void nth_set(int n)
{
	char buf[16];
	int len = snprintf(buf, sizeof(buf), "%d", n);

	if (pwrite(nth_fd, buf, len, 0) != len) {
		perror("fail-nth");
		exit(2);
	}
}

/* What is left of the count: 0 when the fault was injected. */
static int nth_get(void)
{
	char buf[16] = "";

	if (pread(nth_fd, buf, sizeof(buf) - 1, 0) <= 0)
		return -1;
	return atoi(buf);
}

static int op_run(const char *op, struct files *f, int n)
{
	static struct nvd_os02_fd m;
	int ret = 0, fd;
	void *p;

	if (!strncmp(op, "open-", 5)) {
		const char *path = !strcmp(op, "open-ctl") ? pctl :
				   !strcmp(op, "open-gpu") ? pgpu : puvm;

		nth_set(n);
		fd = open(path, O_RDWR | O_CLOEXEC);
		ret = fd < 0 ? -errno : 0;
		if (fd >= 0)
			close(fd);
		return ret;
	}
	if (!strcmp(op, "mmap")) {
		/* System memory with a mapping context on the control file. */
		struct nvd_os21 root = { .hClass = NV01_ROOT };
		struct nvd_register_fd r = { .ctl_fd = f->ctl };
		struct nvd_alloc_0080 dev = { .deviceId = 0 };
		struct nvd_os64 a = { .hClass = NV01_DEVICE_0, .hObjectNew = 0xdd000001u,
				    .pAllocParms = (uintptr_t)&dev };

		if (ioctl(f->ctl, NV_IOC(NV_ESC_RM_ALLOC, sizeof(root)), &root) || root.status)
			return -1000;
		ioctl(f->gpu, NV_IOC(NV_ESC_REGISTER_FD, sizeof(r)), &r);
		a.hRoot = a.hObjectParent = root.hObjectNew;
		if (ioctl(f->ctl, NV_IOC(NV_ESC_RM_ALLOC, sizeof(a)), &a) || a.status)
			return -1001;
		memset(&m, 0, sizeof(m));
		m.hRoot = root.hObjectNew;
		m.hObjectParent = 0xdd000001u;
		m.hObjectNew = 0xdd000002u;
		m.hClass = NV01_MEMORY_SYSTEM;
		m.limit = 8191;
		m.fd = f->ctl;
		if (ioctl(f->gpu, NV_IOC(NV_ESC_RM_ALLOC_MEMORY, sizeof(m)), &m) || m.status)
			return -1002;
		nth_set(n);
		p = mmap(NULL, 8192, PROT_READ | PROT_WRITE, MAP_SHARED, f->ctl, 0);
		ret = p == MAP_FAILED ? -errno : 0;
		if (p != MAP_FAILED)
			munmap(p, 8192);
		return ret;
	}
	nth_set(n);
	return do_call(f, op);
}

static int mode_failnth(int max)
{
	static const char *const ops[] = {
		"open-ctl", "open-gpu", "open-uvm", "plain", "fd", "uvm", "uvm-fd", "mmap",
	};
	unsigned int i;
	int unclean = 0;

	nth_fd = open("/proc/thread-self/fail-nth", O_RDWR);
	if (nth_fd < 0) {
		printf("no /proc/thread-self/fail-nth: %s\n", errname(errno));
		return 2;
	}
	for (i = 0; i < sizeof(ops) / sizeof(ops[0]); i++) {
		long ok = 0, enomem = 0, other = 0;
		char others[128] = "";
		int n, ret, left = 0;

		for (n = 1; n <= max; n++) {
			struct files f;

			open_all(&f);
			ret = op_run(ops[i], &f, n);
			left = nth_get();
			nth_set(0);
			close_all(&f);
			if (ret <= -1000) {
				printf("op=%s setup step %d failed\n", ops[i], -ret - 1000);
				return 2;
			}
			if (left > 0)	/* ran to its end without reaching the Nth */
				break;
			if (ret == 0)
				ok++;
			else if (ret == -ENOMEM)
				enomem++;
			else {
				other++;
				if (strlen(others) < sizeof(others) - 24)
					snprintf(others + strlen(others),
						 sizeof(others) - strlen(others), " n%d:%s", n,
						 errname(-ret));
			}
		}
		printf("op=%s faults=%d ok=%ld enomem=%ld other=%ld%s%s\n", ops[i], n - 1,
		       ok, enomem, other, others, left > 0 ? "" : " (MAX reached)");
		unclean += other;
	}
	return unclean ? 1 : 0;
}

/* ---- many processes ---- */

static void child_body(int killed)
{
	struct files f;
	long i;

	/* The three nodes and one fd-carrying call; exit closes them. */
	f.ctl = open_node(pctl);
	f.gpu = open_node(pgpu);
	f.uvm = open_node(puvm);
	f.uvm2 = -1;
	do_call(&f, "fd");
	if (killed) {
		struct pollfd pfd = { .fd = f.ctl, .events = POLLIN };

		/* Calls until the parent kills us; every 4th child blocks in poll. */
		if (getpid() % 4 == 0)
			poll(&pfd, 1, -1);
		for (i = 0; ; i++)
			do_call(&f, i % 2 ? "fd" : "plain");
	}
	_exit(0);
}

static int mode_procs(long n, long kill_every)
{
	long started = 0, exited = 0, killed = 0, failed = 0, live = 0;
	const long maxlive = 8;
	pid_t pids[8] = { 0 };
	int st, k;

	while (started < n || live) {
		while (started < n && live < maxlive) {
			int kill_it = kill_every && started % kill_every == 0;
			pid_t pid = fork();

			if (pid < 0) {
				perror("fork");
				break;
			}
			if (pid == 0)
				child_body(kill_it);
			started++;
			live++;
			if (kill_it) {
				usleep(rand() % 3000);
				kill(pid, SIGKILL);
			}
			for (k = 0; k < maxlive; k++)
				if (!pids[k]) {
					pids[k] = pid;
					break;
				}
		}
		{
			pid_t pid = wait(&st);

			if (pid < 0)
				break;
			live--;
			for (k = 0; k < maxlive; k++)
				if (pids[k] == pid)
					pids[k] = 0;
			if (WIFSIGNALED(st) && WTERMSIG(st) == SIGKILL)
				killed++;
			else if (WIFEXITED(st) && WEXITSTATUS(st) == 0)
				exited++;
			else
				failed++;
		}
	}
	printf("procs=%ld exited=%ld killed=%ld failed=%ld\n", started, exited, killed, failed);
	return 0;
}

int main(int argc, char **argv)
{
	pctl = getenv("NVM_CTL") ? getenv("NVM_CTL") : "/dev/nvproxy";
	pgpu = getenv("NVM_GPU") ? getenv("NVM_GPU") : "/dev/nvproxy0";
	puvm = getenv("NVM_UVM") ? getenv("NVM_UVM") : "/dev/nvproxy-uvm";
	setvbuf(stdout, NULL, _IOLBF, 0);

	if (argc == 3 && !strcmp(argv[1], "call")) {
		struct files f;
		int ret;

		open_all(&f);
		arm_fault();
		ret = do_call(&f, argv[2]);
		printf("ret=%s\n", errname(-ret));
		close_all(&f);
		return 0;
	}
	if (argc == 4 && !strcmp(argv[1], "signal"))
		return mode_signal(argv[2], atoi(argv[3]));
	if (argc == 4 && !strcmp(argv[1], "kill"))
		return mode_kill(argv[2], atoi(argv[3]));
	if (argc >= 2 && !strcmp(argv[1], "failnth"))
		return mode_failnth(argc > 2 ? atoi(argv[2]) : 300);
	if (argc >= 3 && !strcmp(argv[1], "procs"))
		return mode_procs(atol(argv[2]), argc > 3 ? atol(argv[3]) : 10);
	fprintf(stderr, "usage: nvfault call|signal|kill KIND [MS] | failnth [MAX] | procs N [KILL_EVERY]\n");
	return 2;
}
