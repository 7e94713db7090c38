// SPDX-License-Identifier: GPL-2.0
/*
 * nvabi: small helpers (errors, memory, strings, files, processes).
 */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "nvabi.h"

int nvabi_verbose;

void die(const char *fmt, ...)
{
	va_list ap;

	fflush(stdout);
	fputs("nvabi: error: ", stderr);
	va_start(ap, fmt);
	vfprintf(stderr, fmt, ap);
	va_end(ap);
	fputc('\n', stderr);
	exit(1);
}

void warnx(const char *fmt, ...)
{
	va_list ap;

	fflush(stdout);
	fputs("nvabi: warning: ", stderr);
	va_start(ap, fmt);
	vfprintf(stderr, fmt, ap);
	va_end(ap);
	fputc('\n', stderr);
}

void note(const char *fmt, ...)
{
	va_list ap;

	if (!nvabi_verbose)
		return;
	fputs("nvabi: ", stderr);
	va_start(ap, fmt);
	vfprintf(stderr, fmt, ap);
	va_end(ap);
	fputc('\n', stderr);
}

void *xmalloc(size_t n)
{
	void *p = malloc(n ? n : 1);

	if (!p)
		die("out of memory");
	return p;
}

void *xcalloc(size_t n, size_t m)
{
	void *p = calloc(n ? n : 1, m ? m : 1);

	if (!p)
		die("out of memory");
	return p;
}

void *xrealloc(void *p, size_t n)
{
	p = realloc(p, n ? n : 1);
	if (!p)
		die("out of memory");
	return p;
}

char *xstrdup(const char *s)
{
	return xstrndup(s, strlen(s));
}

char *xstrndup(const char *s, size_t n)
{
	char *p = xmalloc(n + 1);

	memcpy(p, s, n);
	p[n] = 0;
	return p;
}

char *xasprintf(const char *fmt, ...)
{
	va_list ap;
	char *p;
	int n;

	va_start(ap, fmt);
	n = vsnprintf(NULL, 0, fmt, ap);
	va_end(ap);
	p = xmalloc(n + 1);
	va_start(ap, fmt);
	vsnprintf(p, n + 1, fmt, ap);
	va_end(ap);
	return p;
}

static void sb_grow(struct sbuf *b, size_t n)
{
	if (b->len + n + 1 <= b->cap)
		return;
	b->cap = (b->len + n + 1) * 2;
	if (b->cap < 256)
		b->cap = 256;
	b->s = xrealloc(b->s, b->cap);
}

void sb_addn(struct sbuf *b, const char *s, size_t n)
{
	sb_grow(b, n);
	memcpy(b->s + b->len, s, n);
	b->len += n;
	b->s[b->len] = 0;
}

void sb_add(struct sbuf *b, const char *s)
{
	sb_addn(b, s, strlen(s));
}

void sb_addc(struct sbuf *b, char c)
{
	sb_addn(b, &c, 1);
}

void sb_printf(struct sbuf *b, const char *fmt, ...)
{
	va_list ap;
	int n;

	va_start(ap, fmt);
	n = vsnprintf(NULL, 0, fmt, ap);
	va_end(ap);
	sb_grow(b, n);
	va_start(ap, fmt);
	vsnprintf(b->s + b->len, n + 1, fmt, ap);
	va_end(ap);
	b->len += n;
}

void sb_free(struct sbuf *b)
{
	free(b->s);
	b->s = NULL;
	b->len = b->cap = 0;
}

char *sb_steal(struct sbuf *b)
{
	char *s = b->s ? b->s : xstrdup("");

	b->s = NULL;
	b->len = b->cap = 0;
	return s;
}

char *read_file(const char *path, size_t *lenp)
{
	struct sbuf b = { 0 };
	char buf[65536];
	ssize_t n;
	int fd = open(path, O_RDONLY);

	if (fd < 0)
		return NULL;
	while ((n = read(fd, buf, sizeof(buf))) > 0)
		sb_addn(&b, buf, n);
	close(fd);
	if (n < 0) {
		sb_free(&b);
		return NULL;
	}
	if (lenp)
		*lenp = b.len;
	return sb_steal(&b);
}

int write_file_atomic(const char *path, const char *data, size_t len)
{
	char *tmp = xasprintf("%s.tmp.%d", path, (int)getpid());
	int fd = open(tmp, O_WRONLY | O_CREAT | O_TRUNC, 0644);
	size_t off = 0;

	if (fd < 0) {
		free(tmp);
		return -1;
	}
	while (off < len) {
		ssize_t n = write(fd, data + off, len - off);

		if (n <= 0) {
			close(fd);
			unlink(tmp);
			free(tmp);
			return -1;
		}
		off += n;
	}
	if (close(fd) || rename(tmp, path)) {
		unlink(tmp);
		free(tmp);
		return -1;
	}
	free(tmp);
	return 0;
}

int path_exists(const char *path)
{
	struct stat st;

	return stat(path, &st) == 0;
}

int is_dir(const char *path)
{
	struct stat st;

	return stat(path, &st) == 0 && S_ISDIR(st.st_mode);
}

int mkdir_p(const char *path)
{
	char *p = xstrdup(path), *q;

	for (q = p + 1; *q; q++) {
		if (*q != '/')
			continue;
		*q = 0;
		if (mkdir(p, 0755) && errno != EEXIST) {
			free(p);
			return -1;
		}
		*q = '/';
	}
	if (mkdir(p, 0755) && errno != EEXIST) {
		free(p);
		return -1;
	}
	free(p);
	return 0;
}

int rm_rf(const char *path)
{
	struct stat st;
	DIR *d;
	struct dirent *e;

	if (lstat(path, &st))
		return errno == ENOENT ? 0 : -1;
	if (!S_ISDIR(st.st_mode))
		return unlink(path);
	d = opendir(path);
	if (!d)
		return -1;
	while ((e = readdir(d))) {
		char *c;

		if (!strcmp(e->d_name, ".") || !strcmp(e->d_name, ".."))
			continue;
		c = path_join(path, e->d_name);
		rm_rf(c);
		free(c);
	}
	closedir(d);
	return rmdir(path);
}

char *path_join(const char *a, const char *b)
{
	size_t la = strlen(a);

	if (la && a[la - 1] == '/')
		return xasprintf("%s%s", a, b);
	return xasprintf("%s/%s", a, b);
}

const char *path_base(const char *p)
{
	const char *s = strrchr(p, '/');

	return s ? s + 1 : p;
}

uint64_t fnv1a64(const void *data, size_t n, uint64_t h)
{
	const unsigned char *p = data;

	while (n--) {
		h ^= *p++;
		h *= 0x100000001b3ULL;
	}
	return h;
}

void pv_push(struct pvec *p, void *x)
{
	if (p->n == p->cap) {
		p->cap = p->cap ? p->cap * 2 : 16;
		p->v = xrealloc(p->v, p->cap * sizeof(*p->v));
	}
	p->v[p->n++] = x;
}

void pv_free(struct pvec *p)
{
	free(p->v);
	p->v = NULL;
	p->n = p->cap = 0;
}

static size_t smap_slot(const struct smap *m, const char *key)
{
	return fnv1a64(key, strlen(key), FNV_SEED) & (m->nb - 1);
}

void *smap_get(const struct smap *m, const char *key)
{
	struct smap_ent *e;

	if (!m->nb)
		return NULL;
	for (e = m->b[smap_slot(m, key)]; e; e = e->next)
		if (!strcmp(e->key, key))
			return e->val;
	return NULL;
}

void smap_put(struct smap *m, const char *key, void *val)
{
	struct smap_ent *e;
	size_t i;

	if (m->n * 2 >= m->nb) {
		size_t nb = m->nb ? m->nb * 4 : 256;
		struct smap_ent **b = xcalloc(nb, sizeof(*b));

		for (i = 0; i < m->nb; i++) {
			while ((e = m->b[i])) {
				size_t s;

				m->b[i] = e->next;
				s = fnv1a64(e->key, strlen(e->key), FNV_SEED) & (nb - 1);
				e->next = b[s];
				b[s] = e;
			}
		}
		free(m->b);
		m->b = b;
		m->nb = nb;
	}
	i = smap_slot(m, key);
	for (e = m->b[i]; e; e = e->next) {
		if (!strcmp(e->key, key)) {
			e->val = val;
			return;
		}
	}
	e = xmalloc(sizeof(*e));
	e->key = xstrdup(key);
	e->val = val;
	e->next = m->b[i];
	m->b[i] = e;
	m->n++;
}

void smap_free(struct smap *m, void (*fv)(void *))
{
	size_t i;

	for (i = 0; i < m->nb; i++) {
		struct smap_ent *e = m->b[i], *n;

		for (; e; e = n) {
			n = e->next;
			if (fv)
				fv(e->val);
			free(e->key);
			free(e);
		}
	}
	free(m->b);
	m->b = NULL;
	m->nb = m->n = 0;
}

int run_cmd(char *const argv[], const char *stdout_path, int quiet)
{
	pid_t pid = fork();
	int st;

	if (pid < 0)
		return -1;
	if (pid == 0) {
		if (stdout_path) {
			int fd = open(stdout_path, O_WRONLY | O_CREAT | O_TRUNC, 0644);

			if (fd < 0)
				_exit(127);
			dup2(fd, 1);
			close(fd);
		}
		if (quiet) {
			int fd = open("/dev/null", O_WRONLY);

			if (fd >= 0) {
				dup2(fd, 2);
				if (!stdout_path)
					dup2(fd, 1);
				close(fd);
			}
		}
		execvp(argv[0], argv);
		_exit(127);
	}
	if (waitpid(pid, &st, 0) < 0)
		return -1;
	return WIFEXITED(st) ? WEXITSTATUS(st) : -1;
}

char *run_capture(char *const argv[], size_t *len, int *status)
{
	int fds[2];
	pid_t pid;
	struct sbuf b = { 0 };
	char buf[65536];
	ssize_t n;
	int st;

	if (pipe(fds))
		die("pipe: %s", strerror(errno));
	pid = fork();
	if (pid < 0)
		die("fork: %s", strerror(errno));
	if (pid == 0) {
		int nul = open("/dev/null", O_WRONLY);

		dup2(fds[1], 1);
		if (nul >= 0)
			dup2(nul, 2);
		close(fds[0]);
		close(fds[1]);
		execvp(argv[0], argv);
		_exit(127);
	}
	close(fds[1]);
	while ((n = read(fds[0], buf, sizeof(buf))) > 0)
		sb_addn(&b, buf, n);
	close(fds[0]);
	waitpid(pid, &st, 0);
	if (status)
		*status = WIFEXITED(st) ? WEXITSTATUS(st) : -1;
	if (len)
		*len = b.len;
	return sb_steal(&b);
}
