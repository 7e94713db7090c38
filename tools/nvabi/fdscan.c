// SPDX-License-Identifier: GPL-2.0
/*
 * nvabi fdscan: find again, for releases already extracted, which payload
 * fields hold fd numbers the driver looks up (scan_fds()) and what the UVM
 * driver answers a command it lacks (scan_uvm_unknown()), and rewrite only
 * the "fdin" and "uvm-unknown" lines of their files in abi/releases/.  It
 * reads the few source files those scans need straight from the git
 * repository, so that it runs in seconds per release instead of a full
 * extraction.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "nvabi.h"

/* @file of @tag, written under @dir; absent when the release lacks it. */
static void git_file(const char *gd, const char *tag, const char *dir, const char *file)
{
	char *spec = xasprintf("%s:%s", tag, file);
	char *argv[] = { "git", "--git-dir", (char *)gd, "show", spec, NULL };
	char *path = path_join(dir, file);
	char *slash = strrchr(path, '/');

	*slash = 0;
	if (mkdir_p(path))
		die("cannot create %s: %s", path, strerror(errno));
	*slash = '/';
	if (run_cmd(argv, path, 1) != 0)
		unlink(path);
	free(path);
	free(spec);
}

/* The scans' files of one tag, written under a temporary directory. */
static char *fd_tree(const char *gd, const char *tag)
{
	const char *tmpbase = getenv("TMPDIR");
	char *dir = xasprintf("%s/nvabi-fd-XXXXXX", tmpbase && *tmpbase ? tmpbase : "/tmp");
	int i;

	if (!mkdtemp(dir))
		die("mkdtemp %s: %s", dir, strerror(errno));
	for (i = 0; scan_fd_files[i]; i++)
		git_file(gd, tag, dir, scan_fd_files[i]);
	for (i = 0; scan_uvm_files[i]; i++)
		git_file(gd, tag, dir, scan_uvm_files[i]);
	return dir;
}

int cmd_fdscan(int argc, char **argv)
{
	const char *git = NULL;
	struct pvec tags = { 0 };
	struct store s;
	char *gd;
	int all = 0, i, changed = 0;
	size_t t;

	for (i = 1; i < argc; i++) {
		if (!strcmp(argv[i], "--git") && i + 1 < argc)
			git = argv[++i];
		else if (!strcmp(argv[i], "--all"))
			all = 1;
		else if (argv[i][0] == '-')
			die("fdscan: unknown option %s", argv[i]);
		else
			pv_push(&tags, argv[i]);
	}
	if (!git || (all == !!tags.n))
		die("usage: nvabi fdscan --git DIR (TAG...|--all)");
	gd = git_resolve(git);
	store_open(&s, abi_dir_default());
	if (all)
		store_releases(&s, &tags);
	for (t = 0; t < tags.n; t++) {
		const char *tag = tags.v[t];
		char *dir = fd_tree(gd, tag), *path = release_path(&s, tag), *old, *text;
		struct abi a;

		old = read_file(path, NULL);
		if (!old || abi_parse(old, path, &a))
			die("fdscan: cannot read %s", path);
		for (i = 0; i < (int)a.fdin.n; i++)
			fd_hit_free(a.fdin.v[i]);
		pv_free(&a.fdin);
		scan_fds(dir, &a.fdin);
		a.uvm_unknown = scan_uvm_unknown(dir);
		text = abi_format(&a);
		if (strcmp(text, old)) {
			if (write_file_atomic(path, text, strlen(text)))
				die("cannot write %s", path);
			changed++;
		}
		note("%s: %zu fd lookups, unknown UVM commands answered %s", tag, a.fdin.n,
		     uvm_unknown_str(a.uvm_unknown));
		rm_rf(dir);
		free(dir);
		free(path);
		free(old);
		free(text);
		abi_free(&a);
	}
	printf("fdscan: %zu releases, %d files changed\n", tags.n, changed);
	store_close(&s);
	free(gd);
	return 0;
}
