// SPDX-License-Identifier: GPL-2.0
/*
 * nvabi: command line.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <sys/time.h>
#include <sys/wait.h>
#include <unistd.h>

#include "nvabi.h"

static const char usage[] =
"usage: nvabi <command> [options]\n"
"\n"
"  extract [-j N] TREE...            extract releases from source trees\n"
"  extract [-j N] --git DIR TAG...   ... from tags of a git repository\n"
"  extract [-j N] --git DIR --all    ... from every version tag\n"
"  extract [-j N] --tar FILE...      ... from tarballs of releases\n"
"  add (TREE | --git DIR TAG | --tar FILE)\n"
"                                    extract one release, then ranges and gen;\n"
"                                    say what changed in its branch\n"
"  diff A B                          what changed from release A to release B\n"
"  ranges [--check]                  merge releases into ranges (abi/ranges.txt)\n"
"  gen [--check]                     write the C tables (abi/generated/)\n"
"  show --version V [--json|--table] what nvmediate uses for driver version V\n"
"                                    (exact, interpolated, successor, outside)\n"
"  check                             verify abi/ (hashes, fd lookups, ranges,\n"
"                                    tables)\n"
"  replay [--markdown]               the successor rule replayed over every\n"
"                                    release: what would have served it, and\n"
"                                    how safely (replay --help)\n"
"  fdscan --git DIR (TAG...|--all)   redo only the fd lookups (fdin lines) and\n"
"                                    the UVM answer (uvm-unknown) of releases\n"
"                                    already in abi/releases/\n"
"  --version                         the version of nvabi\n"
"\n"
"common options:\n"
"  --abi DIR    the abi/ directory (default: next to the tool, or ./abi)\n"
"  -v           say more\n"
"\n"
"A tree is a checkout of NVIDIA's open-gpu-kernel-modules at one release.\n";

static double now(void)
{
	struct timeval tv;

	gettimeofday(&tv, NULL);
	return tv.tv_sec + tv.tv_usec / 1e6;
}

/* ---- extract ------------------------------------------------------------------ */

struct job {
	const char *dir;	/* a tree, or */
	const char *git;	/* a git directory ... */
	const char *tag;	/* ... and a tag, or */
	const char *tar;	/* a tarball of one release */
	pid_t pid;
	double t0;
	int status;
};

static size_t count_reachable(struct pvec *ctrl)
{
	size_t i, n = 0;

	for (i = 0; i < ctrl->n; i++) {
		struct ctrl *c = ctrl->v[i];

		if (c->type.size >= 0)
			n++;
	}
	return n;
}

/*
 * Runs in a child (extract) or in nvabi itself (add): extract one release,
 * write its file and its layouts; @release, if not NULL, gets its version.
 */
static int run_job(struct job *j, const char *abidir, int idx, int total, char **release)
{
	struct tree t;
	struct abi a;
	struct xstats st;
	char *txt, *p, *lay, *lp, *rd;

	if (j->dir)
		tree_open_dir(&t, j->dir);
	else if (j->tar)
		tree_open_tar(&t, j->tar);
	else
		tree_open_git(&t, j->git, j->tag);
	extract_tree(&t, &a, &st);
	rd = path_join(abidir, "releases");
	if (mkdir_p(rd))
		die("cannot create %s: %s", rd, strerror(errno));
	txt = abi_format(&a);
	p = xasprintf("%s/%s.abi", rd, a.release);
	if (write_file_atomic(p, txt, strlen(txt)))
		die("cannot write %s", p);
	lay = abi_layouts_text(&a);
	lp = xasprintf("%s/.%s.layouts", rd, a.release);
	if (write_file_atomic(lp, lay, strlen(lay)))
		die("cannot write %s", lp);
	printf("[%d/%d] %s: %zu escapes, %zu controls (%zu reachable), %zu classes, "
	       "%zu UVM commands, %zu layouts, %.1f s\n", idx, total, a.release, a.esc.n,
	       a.ctrl.n, count_reachable(&a.ctrl), a.cls.n, a.uvm.n, st.nlayouts, st.secs);
	fflush(stdout);
	free(txt);
	free(lay);
	free(p);
	free(lp);
	free(rd);
	if (release)
		*release = xstrdup(a.release);
	abi_free(&a);
	tree_close(&t);
	return 0;
}

/* Merge the layouts the workers left, then drop what no release uses. */
static void merge_layouts(const char *abidir)
{
	struct store s;
	char *rd = path_join(abidir, "releases");
	char *cmd[] = { "ls", "-1a", rd, NULL };
	char *ls = run_capture(cmd, NULL, NULL), *line, *save = NULL;

	store_open(&s, abidir);
	for (line = strtok_r(ls, "\n", &save); line; line = strtok_r(NULL, "\n", &save)) {
		size_t n = strlen(line);
		char *p, *txt;

		if (line[0] != '.' || n < 9 || strcmp(line + n - 8, ".layouts"))
			continue;
		p = path_join(rd, line);
		txt = read_file(p, NULL);
		if (!txt || store_merge_text(&s, txt, p))
			die("cannot merge %s", p);
		unlink(p);
		free(txt);
		free(p);
	}
	store_prune(&s);
	store_write(&s);
	store_close(&s);
	free(ls);
	free(rd);
}

static int run_jobs(struct job *jobs, int n, int par, const char *abidir)
{
	int started = 0, done = 0, running = 0, failed = 0, i;
	double t0 = now();

	if (par < 1)
		par = 1;
	fflush(stdout);
	while (done < n) {
		while (running < par && started < n) {
			struct job *j = &jobs[started];
			pid_t pid;

			j->t0 = now();
			pid = fork();
			if (pid < 0)
				die("fork: %s", strerror(errno));
			if (pid == 0)
				_exit(run_job(j, abidir, started + 1, n, NULL));
			j->pid = pid;
			started++;
			running++;
		}
		{
			int st;
			pid_t pid = wait(&st);

			if (pid < 0)
				die("wait: %s", strerror(errno));
			for (i = 0; i < started; i++) {
				if (jobs[i].pid != pid)
					continue;
				jobs[i].status = WIFEXITED(st) ? WEXITSTATUS(st) : -1;
				if (jobs[i].status) {
					fprintf(stderr, "nvabi: %s failed\n",
						jobs[i].dir ? jobs[i].dir :
						jobs[i].tar ? jobs[i].tar : jobs[i].tag);
					failed++;
				}
			}
			running--;
			done++;
		}
	}
	merge_layouts(abidir);
	printf("extracted %d release%s in %.1f s\n", n - failed, n - failed == 1 ? "" : "s",
	       now() - t0);
	if (failed)
		fprintf(stderr, "nvabi: %d release%s failed\n", failed, failed == 1 ? "" : "s");
	return failed ? 1 : 0;
}

static int parse_common(int *argc, char **argv)
{
	int i, w = 1;

	for (i = 1; i < *argc; i++) {
		if (!strcmp(argv[i], "--abi") && i + 1 < *argc) {
			abi_dir_opt = argv[++i];
			continue;
		}
		if (!strncmp(argv[i], "--abi=", 6)) {
			abi_dir_opt = argv[i] + 6;
			continue;
		}
		if (!strcmp(argv[i], "-v")) {
			nvabi_verbose = 1;
			continue;
		}
		argv[w++] = argv[i];
	}
	*argc = w;
	argv[w] = NULL;
	return 0;
}

static int extract_args(int argc, char **argv, struct job **jobsp, int *njobs, int *par)
{
	const char *git = NULL;
	int all = 0, i, n = 0;
	struct job *jobs = xcalloc(argc + 1, sizeof(*jobs));
	struct pvec tags = { 0 };

	*par = 1;
	for (i = 1; i < argc; i++) {
		if (!strcmp(argv[i], "--git") && i + 1 < argc)
			git = argv[++i];
		else if (!strcmp(argv[i], "--tar") && i + 1 < argc)
			jobs[n++].tar = argv[++i];
		else if (!strcmp(argv[i], "--all"))
			all = 1;
		else if (!strcmp(argv[i], "-j") && i + 1 < argc)
			*par = atoi(argv[++i]);
		else if (!strncmp(argv[i], "-j", 2) && argv[i][2])
			*par = atoi(argv[i] + 2);
		else if (argv[i][0] == '-')
			die("extract: unknown option %s\n%s", argv[i], usage);
		else
			jobs[n++].dir = argv[i];
	}
	for (i = 0; i < n; i++)
		if (jobs[i].tar && (git || all))
			die("extract: --tar FILE does not go with --git or --all");
	if (git) {
		free(git_resolve(git));
		if (all) {
			if (n)
				die("extract: give tags or --all, not both");
			git_list_tags(git, &tags);
			free(jobs);
			jobs = xcalloc(tags.n + 1, sizeof(*jobs));
			for (i = 0; i < (int)tags.n; i++)
				jobs[i].tag = tags.v[i];
			n = (int)tags.n;
		} else {
			for (i = 0; i < n; i++) {
				jobs[i].tag = jobs[i].dir;
				jobs[i].dir = NULL;
			}
		}
		for (i = 0; i < n; i++)
			jobs[i].git = git;
		pv_free(&tags);
	} else if (all) {
		die("extract: --all needs --git DIR");
	}
	if (!n)
		die("extract: nothing to extract\n%s", usage);
	*jobsp = jobs;
	*njobs = n;
	return 0;
}

int cmd_extract(int argc, char **argv)
{
	struct job *jobs;
	int n, par, r;
	const char *abidir = abi_dir_default();

	extract_args(argc, argv, &jobs, &n, &par);
	if (mkdir_p(abidir))
		die("cannot create %s: %s", abidir, strerror(errno));
	r = run_jobs(jobs, n, par, abidir);
	free(jobs);
	return r;
}

/*
 * One release, by any way of reading it: extract it here, merge its layouts,
 * re-range, regenerate, then say what changed against the newest earlier
 * release of its branch.
 */
int cmd_add(int argc, char **argv)
{
	struct job *jobs;
	int n, par, r;
	const char *abidir = abi_dir_default();
	char *rargv[] = { "ranges", NULL }, *gargv[] = { "gen", NULL };
	char *rel = NULL, *prev;

	extract_args(argc, argv, &jobs, &n, &par);
	if (n != 1)
		die("add: one release at a time (extract takes several)\n%s", usage);
	if (mkdir_p(abidir))
		die("cannot create %s: %s", abidir, strerror(errno));
	run_job(&jobs[0], abidir, 1, 1, &rel);
	merge_layouts(abidir);
	free(jobs);
	r = cmd_ranges(1, rargv);
	if (!r)
		r = cmd_gen(1, gargv);
	if (r) {
		free(rel);
		return r;
	}
	prev = branch_previous(abidir, rel);
	if (prev) {
		printf("changes from %s, the newest earlier release of branch %lu:\n", prev,
		       branch_of(rel));
		diff_print(abidir, prev, rel);
	} else {
		printf("%s is the first release of branch %lu in %s/releases\n", rel,
		       branch_of(rel), abidir);
	}
	free(prev);
	free(rel);
	return 0;
}

int main(int argc, char **argv)
{
	const char *cmd;

	setvbuf(stdout, NULL, _IOLBF, 0);
	if (argc < 2 || !strcmp(argv[1], "-h") || !strcmp(argv[1], "--help") ||
	    !strcmp(argv[1], "help")) {
		fputs(usage, argc < 2 ? stderr : stdout);
		return argc < 2 ? 2 : 0;
	}
	if (!strcmp(argv[1], "--version") || !strcmp(argv[1], "version")) {
		printf("nvabi %s\n", NVM_VERSION);
		return 0;
	}
	cmd = argv[1];
	argc--;
	argv++;
	parse_common(&argc, argv);
	if (!strcmp(cmd, "extract"))
		return cmd_extract(argc, argv);
	if (!strcmp(cmd, "add"))
		return cmd_add(argc, argv);
	if (!strcmp(cmd, "diff"))
		return cmd_diff(argc, argv);
	if (!strcmp(cmd, "ranges"))
		return cmd_ranges(argc, argv);
	if (!strcmp(cmd, "gen"))
		return cmd_gen(argc, argv);
	if (!strcmp(cmd, "show"))
		return cmd_show(argc, argv);
	if (!strcmp(cmd, "check"))
		return cmd_check(argc, argv);
	if (!strcmp(cmd, "fdscan"))
		return cmd_fdscan(argc, argv);
	if (!strcmp(cmd, "replay"))
		return cmd_replay(argc, argv);
	fprintf(stderr, "nvabi: unknown command '%s'\n%s", cmd, usage);
	return 2;
}
