// SPDX-License-Identifier: GPL-2.0
/*
 * nvabi: access to a tree of open-gpu-kernel-modules: a directory, one tag of
 * a git repository (bare or not), or a tarball of one release. From git and
 * from a tarball, only the files the extraction reads are copied into a
 * temporary directory.
 */
#include <ctype.h>
#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "nvabi.h"

static int has_suffix(const char *s, const char *suf)
{
	size_t a = strlen(s), b = strlen(suf);

	return a >= b && !memcmp(s + a - b, suf, b);
}

static int has_prefix(const char *s, const char *pre)
{
	return !strncmp(s, pre, strlen(pre));
}

/*
 * The files an extraction reads (see extract.c and scan.c), besides those
 * of the fd and UVM scans, which scan.c lists itself (scan_fd_files,
 * scan_uvm_files): every way of reading a tree must hand them all over.
 */
static const char *const wanted_files[] = {
	"version.mk",
	"src/nvidia/src/kernel/rmapi/resource_desc.c",
	"src/nvidia/arch/nvalloc/unix/src/escape.c",
	"src/nvidia/arch/nvalloc/unix/src/osapi.c",
	"src/nvidia/interface/deprecated/rmapi_deprecated_control.c",
	"src/nvidia/src/kernel/rmapi/embedded_param_copy.c",
	"kernel-open/nvidia/nv.c",
	"kernel-open/nvidia-uvm/uvm.c",
	"kernel-open/nvidia-uvm/uvm_tools.c",
	"kernel-open/nvidia-uvm/uvm_test.c",
	NULL,
};

static int listed(const char *const *files, const char *path)
{
	int i;

	for (i = 0; files[i]; i++)
		if (!strcmp(path, files[i]))
			return 1;
	return 0;
}

int tree_wanted(const char *path)
{
	if (listed(wanted_files, path) || listed(scan_fd_files, path) ||
	    listed(scan_uvm_files, path))
		return 1;
	if (has_prefix(path, "src/nvidia/generated/g_") && has_suffix(path, "_nvoc.c"))
		return 1;
	if (has_suffix(path, ".h") || has_suffix(path, ".inc") || has_suffix(path, ".inl"))
		return has_prefix(path, "src/common/") || has_prefix(path, "src/nvidia/") ||
		       has_prefix(path, "kernel-open/common/") ||
		       has_prefix(path, "kernel-open/nvidia-uvm/");
	return 0;
}

static char *read_version_mk(const char *root)
{
	char *p = path_join(root, "version.mk");
	char *txt = read_file(p, NULL), *line, *save = NULL, *ver = NULL;

	free(p);
	if (!txt)
		return NULL;
	for (line = strtok_r(txt, "\n", &save); line; line = strtok_r(NULL, "\n", &save)) {
		char *q = line;

		while (isspace((unsigned char)*q))
			q++;
		if (strncmp(q, "NVIDIA_VERSION", 14))
			continue;
		q += 14;
		while (isspace((unsigned char)*q) || *q == '=' || *q == ':' || *q == '?')
			q++;
		ver = xstrndup(q, strcspn(q, " \t\r"));
		break;
	}
	free(txt);
	return ver;
}

static void tree_validate(struct tree *t)
{
	static const char *const need[] = { "src/nvidia", "kernel-open", "src/common", NULL };
	int i;

	if (!is_dir(t->root))
		die("%s: no such directory", t->label);
	for (i = 0; need[i]; i++) {
		char *p = path_join(t->root, need[i]);

		if (!is_dir(p))
			die("%s does not look like a tree of open-gpu-kernel-modules: no %s/",
			    t->label, need[i]);
		free(p);
	}
	t->version = read_version_mk(t->root);
	if (!t->version)
		die("%s: no NVIDIA_VERSION in version.mk", t->label);
	{
		struct nvver v;

		if (ver_parse(t->version, &v))
			die("%s: version.mk gives '%s', not a version number", t->label,
			    t->version);
	}
}

/*
 * The provenance line names the release as NVIDIA tags it, from version.mk,
 * not the way it was read: a directory, a tag of a git repository and a
 * tarball of one release give the same release file, byte for byte.
 */
static char *tree_source(const struct tree *t)
{
	return xasprintf("open-gpu-kernel-modules tag %s", t->version);
}

/* A temporary directory for a tree read out of @what ("nvabi-WHAT-XXXXXX"). */
static char *tree_tmpdir(const char *what)
{
	const char *tmpbase = getenv("TMPDIR");
	char *safe = xstrdup(what), *p, *tmpl;

	for (p = safe; *p; p++)
		if (!isalnum((unsigned char)*p) && *p != '.' && *p != '-')
			*p = '_';
	tmpl = xasprintf("%s/nvabi-%s-XXXXXX", tmpbase && *tmpbase ? tmpbase : "/tmp", safe);
	free(safe);
	if (!mkdtemp(tmpl))
		die("mkdtemp %s: %s", tmpl, strerror(errno));
	return tmpl;
}

void tree_open_dir(struct tree *t, const char *dir)
{
	memset(t, 0, sizeof(*t));
	t->root = realpath(dir, NULL);
	if (!t->root)
		die("%s: %s", dir, strerror(errno));
	t->label = xstrdup(dir);
	tree_validate(t);
	t->source = tree_source(t);
}

void git_check(const char *gitdir)
{
	char *argv[] = { "git", "--git-dir", (char *)gitdir, "rev-parse", "--git-dir", NULL };
	int st = run_cmd(argv, NULL, 1);

	if (st == 127)
		die("cannot run git (is it installed?)");
	if (st != 0)
		die("%s is not a git directory", gitdir);
}

char *git_resolve(const char *gitdir)
{
	char *dotgit = path_join(gitdir, ".git");
	char *r;

	/* Accept a work tree as well as the git directory itself. */
	if (is_dir(dotgit))
		r = dotgit;
	else {
		free(dotgit);
		r = xstrdup(gitdir);
	}
	git_check(r);
	return r;
}

/* The blobs of a tag that nvabi reads, as "git ls-tree" lists them. */
struct blobs {
	char *ls;		/* ls-tree's output, which paths and modes point into */
	struct pvec paths;
	struct pvec modes;	/* "<mode> <type> <sha>" */
	struct pvec shas;	/* the object ids, allocated */
	struct sbuf ids;	/* the object ids, one a line: cat-file's input */
};

/* The wanted blobs of TAG (tree_wanted()) into @bl. */
static void git_wanted(const char *gitdir, const char *tag, struct blobs *bl)
{
	char *spec = xasprintf("%s^{tree}", tag);
	char *ls_argv[] = { "git", "--git-dir", (char *)gitdir, "ls-tree", "-r", "-z",
			    "--full-tree", spec, NULL };
	size_t len, off = 0;
	int st;

	bl->ls = run_capture(ls_argv, &len, &st);
	if (st != 0)
		die("git ls-tree %s failed in %s", tag, gitdir);
	while (off < len) {
		char *ent = bl->ls + off, *tab = strchr(ent, '\t');
		size_t elen = strlen(ent);

		off += elen + 1;
		if (!tab)
			continue;
		/* "<mode> <type> <sha>\t<path>" */
		if (strncmp(ent + 7, "blob ", 5) && strncmp(ent + 6, "blob ", 5))
			continue;
		if (!tree_wanted(tab + 1))
			continue;
		pv_push(&bl->paths, tab + 1);
		pv_push(&bl->modes, ent);
		pv_push(&bl->shas, xstrndup(tab - 40, 40));
		sb_printf(&bl->ids, "%s\n", (char *)bl->shas.v[bl->shas.n - 1]);
	}
	if (!bl->paths.n)
		die("tag %s of %s holds none of the files nvabi reads", tag, gitdir);
	free(spec);
}

/* The next object "git cat-file --batch" writes to @in, as @path under @dir. */
static void git_write_blob(FILE *in, const char *dir, const char *path, int link)
{
	char hdr[256], *full, *slash, *buf;
	unsigned long size;
	int fd;

	if (!fgets(hdr, sizeof(hdr), in))
		die("git cat-file ended early at %s", path);
	if (sscanf(hdr, "%*s blob %lu", &size) != 1)
		die("git cat-file: unexpected '%s'", hdr);
	buf = xmalloc(size + 1);
	if (size && fread(buf, 1, size, in) != size)
		die("git cat-file: short read for %s", path);
	fgetc(in);	/* the newline after the object */
	buf[size] = 0;
	full = path_join(dir, path);
	slash = strrchr(full, '/');
	*slash = 0;
	if (mkdir_p(full))
		die("cannot create %s: %s", full, strerror(errno));
	*slash = '/';
	if (link) {
		if (symlink(buf, full))
			die("cannot create %s: %s", full, strerror(errno));
	} else {
		fd = open(full, O_WRONLY | O_CREAT | O_TRUNC, 0644);
		if (fd < 0 || (size && write(fd, buf, size) != (ssize_t)size) || close(fd))
			die("cannot write %s: %s", full, strerror(errno));
	}
	free(full);
	free(buf);
}

/* Copy the blobs of @bl, their ids in file @list, out of git into @dir. */
static void git_cat_blobs(const char *gitdir, const char *list, const char *dir,
			  const struct blobs *bl)
{
	int fds[2], st;
	size_t i;
	pid_t pid;
	FILE *in;

	if (pipe(fds))
		die("pipe: %s", strerror(errno));
	pid = fork();
	if (pid < 0)
		die("fork: %s", strerror(errno));
	if (pid == 0) {
		int lfd = open(list, O_RDONLY);

		if (lfd < 0)
			_exit(127);
		dup2(lfd, 0);
		dup2(fds[1], 1);
		close(fds[0]);
		close(fds[1]);
		execlp("git", "git", "--git-dir", gitdir, "cat-file", "--batch", (char *)NULL);
		_exit(127);
	}
	close(fds[1]);
	in = fdopen(fds[0], "r");
	if (!in)
		die("fdopen: %s", strerror(errno));
	for (i = 0; i < bl->paths.n; i++)
		git_write_blob(in, dir, bl->paths.v[i], !strncmp(bl->modes.v[i], "120000", 6));
	fclose(in);
	waitpid(pid, &st, 0);
}

/* Copy the wanted blobs of TAG into dir. */
static void git_materialise(const char *gitdir, const char *tag, const char *dir)
{
	char *list = path_join(dir, ".nvabi-objects");
	struct blobs bl = { 0 };
	size_t i;

	git_wanted(gitdir, tag, &bl);
	if (write_file_atomic(list, bl.ids.s, bl.ids.len))
		die("cannot write %s", list);
	sb_free(&bl.ids);
	git_cat_blobs(gitdir, list, dir, &bl);
	unlink(list);
	free(list);
	for (i = 0; i < bl.shas.n; i++)
		free(bl.shas.v[i]);
	pv_free(&bl.shas);
	pv_free(&bl.paths);
	pv_free(&bl.modes);
	free(bl.ls);
}

void tree_open_git(struct tree *t, const char *gitdir, const char *tag)
{
	char *gd = git_resolve(gitdir);
	char *spec = xasprintf("%s^{tree}", tag);
	char *argv[] = { "git", "--git-dir", gd, "rev-parse", "-q", "--verify", spec, NULL };

	memset(t, 0, sizeof(*t));
	if (run_cmd(argv, NULL, 1) != 0)
		die("no tag '%s' in %s", tag, gitdir);
	t->tmp = tree_tmpdir(tag);
	t->root = xstrdup(t->tmp);
	t->label = xasprintf("%s@%s", gitdir, tag);
	git_materialise(gd, tag, t->root);
	tree_validate(t);
	t->source = tree_source(t);
	if (strcmp(t->version, tag) != 0)
		warnx("tag %s holds version %s (version.mk); using %s", tag, t->version,
		      t->version);
	free(spec);
	free(gd);
}

/*
 * The wanted members of a tarball of one release (GitHub's archive of a tag,
 * NVIDIA's: everything under one top directory), as "DIR/path" lines.
 */
static char *tar_members(const char *file, size_t *n)
{
	char *argv[] = { "tar", "-tf", (char *)file, NULL };
	struct sbuf b = { 0 };
	int st;
	char *ls = run_capture(argv, NULL, &st), *line, *save = NULL;

	if (st == 127)
		die("cannot run tar (is it installed?)");
	if (st != 0)
		die("%s: tar cannot list it", file);
	*n = 0;
	for (line = strtok_r(ls, "\n", &save); line; line = strtok_r(NULL, "\n", &save)) {
		const char *rel = strchr(line, '/');

		if (!rel || !tree_wanted(rel + 1))
			continue;
		sb_printf(&b, "%s\n", line);
		(*n)++;
	}
	free(ls);
	return sb_steal(&b);
}

/* A tarball of open-gpu-kernel-modules (.tar.xz, .tar.gz, ...: tar decides). */
void tree_open_tar(struct tree *t, const char *file)
{
	char *list, *lp;
	size_t n;
	char *argv[] = { "tar", "-xf", (char *)file, "-C", NULL, "--strip-components=1",
			 "-T", NULL, NULL };

	memset(t, 0, sizeof(*t));
	if (!path_exists(file))
		die("%s: no such file", file);
	list = tar_members(file, &n);
	if (!n)
		die("%s holds none of the files nvabi reads (not a tarball of "
		    "open-gpu-kernel-modules?)", file);
	t->tmp = tree_tmpdir(path_base(file));
	t->root = xstrdup(t->tmp);
	t->label = xstrdup(file);
	lp = path_join(t->tmp, ".nvabi-members");
	if (write_file_atomic(lp, list, strlen(list)))
		die("cannot write %s", lp);
	argv[4] = t->root;
	argv[7] = lp;
	if (run_cmd(argv, NULL, 0) != 0)
		die("%s: tar cannot unpack it", file);
	unlink(lp);
	free(lp);
	free(list);
	tree_validate(t);
	t->source = tree_source(t);
}

void tree_close(struct tree *t)
{
	if (t->tmp && !getenv("NVABI_KEEP_TREE"))
		rm_rf(t->tmp);
	free(t->tmp);
	free(t->root);
	free(t->label);
	free(t->version);
	free(t->source);
	memset(t, 0, sizeof(*t));
}

static int cmp_ver_ptr(const void *a, const void *b)
{
	return ver_cmp_str(*(char *const *)a, *(char *const *)b);
}

void git_list_tags(const char *gitdir, struct pvec *out)
{
	char *gd = git_resolve(gitdir);
	char *argv[] = { "git", "--git-dir", gd, "tag", "-l", NULL };
	int st;
	char *txt = run_capture(argv, NULL, &st), *line, *save = NULL;

	if (st != 0)
		die("git tag -l failed in %s", gitdir);
	for (line = strtok_r(txt, "\n", &save); line; line = strtok_r(NULL, "\n", &save)) {
		struct nvver v;

		if (ver_parse(line, &v)) {
			note("skipping tag %s: not a version number", line);
			continue;
		}
		pv_push(out, xstrdup(line));
	}
	qsort(out->v, out->n, sizeof(*out->v), cmp_ver_ptr);
	free(txt);
	free(gd);
}
