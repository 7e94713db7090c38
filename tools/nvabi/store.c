// SPDX-License-Identifier: GPL-2.0
/*
 * nvabi: the text files under abi/.
 *
 * abi/releases/<version>.abi, one per release:
 *
 *   nvabi 1
 *   @release 595.45.04
 *   @source open-gpu-kernel-modules tag <version>
 *   esc <nr> <node> <priv> <kind> <sizes> <types> @<macro> @<handler>
 *   ctrl <cmd> <priv> [<size> <type>] [ar=<right>] [x=<flag>...] @<classes>
 *   class <id> <priv> [<none|opt|req> <size> <type>] @<macro> @<class>
 *   uvm <cmd> <node> <size> <type> @<macro>
 *
 * A record type is written NAME#HASH, where HASH names one layout in
 * abi/layouts.txt:
 *
 *   NAME#HASH struct|union <size> <align> @<header>
 *     <offset> <field> <type> <size> [ptr] [fd]
 *     uses NAME#HASH ...          (the records its fields refer to)
 *
 * Offsets are in bytes ("byte.bit" where not byte aligned); bit-fields give
 * their width as ":<bits>". HASH is a 48-bit FNV-1a of the layout's text
 * (without provenance) and the hashes it uses, so equal hashes mean equal
 * layouts all the way down.
 *
 * Tokens and lines that start with '@' are provenance: they say where a fact
 * came from and are not part of the ABI. Two releases have the same ABI when
 * their files are equal once provenance is removed.
 */
#include <ctype.h>
#include <dirent.h>
#include <limits.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "nvabi.h"

#define HASH_MASK 0xffffffffffffULL

/* ---- layouts ----------------------------------------------------------------- */

static void off_str(char *buf, size_t n, const struct field *f)
{
	if (f->bitfield || f->off % 8)
		snprintf(buf, n, "%lld.%lld", f->off / 8, f->off % 8);
	else
		snprintf(buf, n, "%lld", f->off / 8);
}

static void layout_body(struct sbuf *b, const struct layout *l)
{
	size_t i, j;
	struct pvec uses = { 0 };

	for (i = 0; i < l->nfields; i++) {
		const struct field *f = &l->fields[i];
		char off[64];

		off_str(off, sizeof(off), f);
		sb_printf(b, "  %s %s %s %s%lld%s%s\n", off, f->name, f->type,
			  f->bitfield ? ":" : "", f->size, f->flags & FLD_PTR ? " ptr" : "",
			  f->flags & FLD_FD ? " fd" : "");
		if (f->rec) {
			int dup = 0;

			for (j = 0; j < uses.n; j++)
				if (uses.v[j] == f->rec)
					dup = 1;
			if (!dup)
				pv_push(&uses, f->rec);
		}
	}
	if (uses.n) {
		sb_add(b, "  uses");
		for (j = 0; j < uses.n; j++) {
			const struct layout *u = uses.v[j];

			sb_printf(b, " %s#%012llx", u->name, (unsigned long long)u->hash);
		}
		sb_addc(b, '\n');
	}
	pv_free(&uses);
}

uint64_t layout_hash(struct layout *l)
{
	struct sbuf b = { 0 };
	size_t i;

	if (l->hashed == 2)
		return l->hash;
	if (l->hashed == 1)
		die("layout %s refers to itself", l->name);
	l->hashed = 1;
	for (i = 0; i < l->nfields; i++)
		if (l->fields[i].rec)
			layout_hash(l->fields[i].rec);
	sb_printf(&b, "%s %s %lld %lld\n", l->name, l->is_union ? "union" : "struct", l->size,
		  l->align);
	layout_body(&b, l);
	l->hash = fnv1a64(b.s, b.len, FNV_SEED) & HASH_MASK;
	l->hashed = 2;
	sb_free(&b);
	return l->hash;
}

void layout_format(struct sbuf *b, const struct layout *l)
{
	sb_printf(b, "%s#%012llx %s %lld %lld @%s\n", l->name, (unsigned long long)l->hash,
		  l->is_union ? "union" : "struct", l->size, l->align,
		  l->header ? l->header : "?");
	layout_body(b, l);
}

void layout_free(struct layout *l)
{
	size_t i;

	if (!l)
		return;
	for (i = 0; i < l->nfields; i++) {
		free(l->fields[i].name);
		free(l->fields[i].type);
		free(l->fields[i].rec_ref);
	}
	free(l->fields);
	free(l->name);
	free(l->header);
	free(l);
}

static void layout_free_v(void *p)
{
	layout_free(p);
}

static char *layout_key(const struct layout *l)
{
	return xasprintf("%s#%012llx", l->name, (unsigned long long)l->hash);
}

/* Split a line into space-separated tokens (in place). */
static int split(char *line, char **tok, int max)
{
	int n = 0;

	while (*line) {
		while (*line == ' ' || *line == '\t' || *line == '\r')
			*line++ = 0;
		if (!*line)
			break;
		if (n == max)
			return -1;
		tok[n++] = line;
		while (*line && *line != ' ' && *line != '\t' && *line != '\r')
			line++;
	}
	return n;
}

static int parse_ll(const char *s, long long *v)
{
	char *end;

	*v = strtoll(s, &end, 0);
	return *s && !*end ? 0 : -1;
}

static int parse_u32(const char *s, uint32_t *v)
{
	char *end;
	unsigned long long x = strtoull(s, &end, 0);

	if (!*s || *end || x > 0xffffffffULL)
		return -1;
	*v = (uint32_t)x;
	return 0;
}

/* Warn "WHAT:LINE: MSG", and " 'ARG'" where given, about a line read; -1. */
static int bad_line(const char *what, int lineno, const char *msg, const char *arg)
{
	if (arg)
		warnx("%s:%d: %s '%s'", what, lineno, msg, arg);
	else
		warnx("%s:%d: %s", what, lineno, msg);
	return -1;
}

/* layouts_parse() under way: where it is, the layout it reads, all it read. */
struct lparse {
	const char *what;	/* the text's name, for messages */
	int lineno;
	struct layout *cur;	/* the layout whose fields follow */
	struct pvec fields;	/* struct field: cur's, so far */
	struct pvec all;	/* every layout read */
};

/* Hand the fields read so far to the current layout, if any. */
static void lp_finish(struct lparse *p)
{
	struct layout *cur = p->cur;
	size_t i;

	if (!cur)
		return;
	cur->nfields = p->fields.n;
	cur->fields = xcalloc(p->fields.n + 1, sizeof(struct field));
	for (i = 0; i < p->fields.n; i++) {
		cur->fields[i] = *(struct field *)p->fields.v[i];
		free(p->fields.v[i]);
	}
	p->fields.n = 0;
}

/* "NAME#HASH struct|union SIZE ALIGN [@HEADER]": the next layout begins. */
static int lp_header(struct lparse *p, char *line)
{
	char *tok[64], *hash;
	long long size, align;
	struct layout *cur;
	int n;

	lp_finish(p);
	n = split(line, tok, 64);
	if (n < 4 || n > 5 || !(hash = strchr(tok[0], '#')) ||
	    parse_ll(tok[2], &size) || parse_ll(tok[3], &align) ||
	    (strcmp(tok[1], "struct") && strcmp(tok[1], "union")))
		return bad_line(p->what, p->lineno, "bad layout header", NULL);
	cur = xcalloc(1, sizeof(*cur));
	cur->name = xstrndup(tok[0], hash - tok[0]);
	cur->hash = strtoull(hash + 1, NULL, 16);
	cur->is_union = !strcmp(tok[1], "union");
	cur->size = size;
	cur->align = align;
	cur->header = xstrdup(n == 5 && tok[4][0] == '@' ? tok[4] + 1 : "?");
	pv_push(&p->all, cur);
	p->cur = cur;
	return 0;
}

/* "uses NAME#HASH...": the records of the fields so far, by type name. */
static int lp_uses(struct lparse *p, char **tok, int n)
{
	size_t i, j;

	for (j = 1; j < (size_t)n; j++) {
		char *h = strchr(tok[j], '#');
		size_t nl;

		if (!h)
			return bad_line(p->what, p->lineno, "bad 'uses'", NULL);
		nl = h - tok[j];
		for (i = 0; i < p->fields.n; i++) {
			struct field *f = p->fields.v[i];
			size_t tl = strcspn(f->type, "[");

			if (tl == nl && !strncmp(f->type, tok[j], nl) && !f->rec_ref)
				f->rec_ref = xstrdup(tok[j]);
		}
	}
	return 0;
}

/* "OFFSET[.BIT] NAME TYPE [:]SIZE [ptr] [fd]": a field of the current layout. */
static int lp_field(struct lparse *p, char **tok, int n)
{
	struct field *f = xcalloc(1, sizeof(*f));
	char *dot;
	int k;

	if (n < 4)
		return bad_line(p->what, p->lineno, "bad field", NULL);
	dot = strchr(tok[0], '.');
	f->off = strtoll(tok[0], NULL, 10) * 8 + (dot ? strtoll(dot + 1, NULL, 10) : 0);
	f->name = xstrdup(tok[1]);
	f->type = xstrdup(tok[2]);
	if (tok[3][0] == ':') {
		f->bitfield = 1;
		f->size = strtoll(tok[3] + 1, NULL, 10);
	} else
		f->size = strtoll(tok[3], NULL, 10);
	for (k = 4; k < n; k++) {
		if (!strcmp(tok[k], "ptr"))
			f->flags |= FLD_PTR;
		else if (!strcmp(tok[k], "fd"))
			f->flags |= FLD_FD;
		else
			return bad_line(p->what, p->lineno, "unknown field flag", tok[k]);
	}
	pv_push(&p->fields, f);
	return 0;
}

/* One line that is no comment: a layout's header, a field or its "uses". */
static int lp_line(struct lparse *p, char *line)
{
	char *tok[64];
	int n;

	if (line[0] != ' ')
		return lp_header(p, line);
	if (!p->cur)
		return bad_line(p->what, p->lineno, "field outside a layout", NULL);
	n = split(line, tok, 64);
	if (n < 1)
		return 0;
	if (!strcmp(tok[0], "uses"))
		return lp_uses(p, tok, n);
	return lp_field(p, tok, n);
}

/* Parse layouts.txt-style blocks into map (key -> layout); links are by key. */
static int layouts_parse(const char *text, const char *what, struct smap *map)
{
	char *buf = xstrdup(text), *line, *save = NULL;
	struct lparse p = { .what = what };
	int err = 0;
	size_t i;

	for (line = buf;; line = NULL) {
		line = strtok_r(line, "\n", &save);
		if (!line)
			break;
		p.lineno++;
		if (line[0] == '#')
			continue;
		err = lp_line(&p, line);
		if (err)
			break;
	}
	if (!err) {
		lp_finish(&p);
		/* a key's first layout is kept */
		for (i = 0; i < p.all.n; i++) {
			struct layout *l = p.all.v[i];
			char *key = layout_key(l);

			if (!smap_get(map, key))
				smap_put(map, key, l);
			else
				layout_free(l);
			free(key);
		}
		p.all.n = 0;
	}
	for (i = 0; i < p.all.n; i++)
		layout_free(p.all.v[i]);
	for (i = 0; i < p.fields.n; i++)
		free(p.fields.v[i]);
	pv_free(&p.all);
	pv_free(&p.fields);
	free(buf);
	return err;
}

/* Link fields to records and check every hash. */
static void layouts_link(struct smap *map, const char *what)
{
	size_t b;

	for (b = 0; b < map->nb; b++) {
		struct smap_ent *e;

		for (e = map->b[b]; e; e = e->next) {
			struct layout *l = e->val;
			size_t i;

			for (i = 0; i < l->nfields; i++) {
				struct field *f = &l->fields[i];

				if (!f->rec_ref)
					continue;
				f->rec = smap_get(map, f->rec_ref);
				if (!f->rec)
					die("%s: layout %s uses %s, which is missing", what, e->key,
					    f->rec_ref);
			}
		}
	}
	for (b = 0; b < map->nb; b++) {
		struct smap_ent *e;

		for (e = map->b[b]; e; e = e->next)
			((struct layout *)e->val)->hashed = 0;
	}
	for (b = 0; b < map->nb; b++) {
		struct smap_ent *e;

		for (e = map->b[b]; e; e = e->next) {
			struct layout *l = e->val;
			const char *h = strchr(e->key, '#');
			uint64_t want = strtoull(h + 1, NULL, 16);

			if (layout_hash(l) != want)
				die("%s: layout %s does not match its hash (edited by hand?)", what,
				    e->key);
		}
	}
}

/*
 * The abi/ directory: --abi's (main.c sets abi_dir_opt), $NVABI_DIR, the one
 * next to the tool, or ./abi.
 */
const char *abi_dir_opt;

const char *abi_dir_default(void)
{
	static char buf[PATH_MAX + 16];
	char exe[PATH_MAX];
	ssize_t n;

	if (abi_dir_opt)
		return abi_dir_opt;
	if (getenv("NVABI_DIR"))
		return getenv("NVABI_DIR");
	n = readlink("/proc/self/exe", exe, sizeof(exe) - 1);
	if (n > 0) {
		char *slash;

		exe[n] = 0;
		slash = strrchr(exe, '/');
		if (slash) {
			*slash = 0;
			/* tools/nvabi/nvabi -> abi/ */
			snprintf(buf, sizeof(buf), "%s/../../abi", exe);
			if (is_dir(buf)) {
				char *r = realpath(buf, NULL);

				if (r) {
					snprintf(buf, sizeof(buf), "%s", r);
					free(r);
				}
				return buf;
			}
		}
	}
	return "abi";
}

void store_open(struct store *s, const char *dir)
{
	char *p, *txt;

	memset(s, 0, sizeof(*s));
	s->dir = xstrdup(dir);
	p = path_join(dir, "layouts.txt");
	txt = read_file(p, NULL);
	if (txt) {
		if (layouts_parse(txt, p, &s->layouts))
			die("%s does not parse", p);
		layouts_link(&s->layouts, p);
	}
	free(txt);
	free(p);
}

void store_close(struct store *s)
{
	smap_free(&s->layouts, layout_free_v);
	free(s->dir);
	memset(s, 0, sizeof(*s));
}

/* The field of @l named @name; NULL when there is none (or no @l). */
const struct field *layout_field(const struct layout *l, const char *name)
{
	size_t i;

	for (i = 0; l && i < l->nfields; i++)
		if (!strcmp(l->fields[i].name, name))
			return &l->fields[i];
	return NULL;
}

struct layout *layout_dup(const struct layout *l)
{
	struct layout *d = xcalloc(1, sizeof(*d));
	size_t i;

	*d = *l;
	d->name = xstrdup(l->name);
	d->header = xstrdup(l->header ? l->header : "?");
	d->fields = xcalloc(l->nfields + 1, sizeof(*d->fields));
	for (i = 0; i < l->nfields; i++) {
		d->fields[i] = l->fields[i];
		d->fields[i].name = xstrdup(l->fields[i].name);
		d->fields[i].type = xstrdup(l->fields[i].type);
		d->fields[i].rec_ref = l->fields[i].rec ? layout_key(l->fields[i].rec) :
				       (l->fields[i].rec_ref ? xstrdup(l->fields[i].rec_ref) : NULL);
		d->fields[i].rec = NULL;
	}
	return d;
}

/* Add a layout (and what it uses); returns 1 if it was new. */
int store_add_layout(struct store *s, struct layout *l)
{
	char *key = layout_key(l);
	int added = 0;
	size_t i;

	if (!smap_get(&s->layouts, key)) {
		struct layout *d = layout_dup(l);

		smap_put(&s->layouts, key, d);
		s->dirty = 1;
		added = 1;
		for (i = 0; i < l->nfields; i++)
			if (l->fields[i].rec)
				store_add_layout(s, l->fields[i].rec);
		for (i = 0; i < d->nfields; i++)
			if (d->fields[i].rec_ref)
				d->fields[i].rec = smap_get(&s->layouts, d->fields[i].rec_ref);
	}
	free(key);
	return added;
}

static int cmp_key(const void *a, const void *b)
{
	return strcmp(*(char *const *)a, *(char *const *)b);
}

static char *layouts_text(struct smap *map, struct smap *only)
{
	struct pvec keys = { 0 };
	struct sbuf b = { 0 };
	size_t i;

	for (i = 0; i < map->nb; i++) {
		struct smap_ent *e;

		for (e = map->b[i]; e; e = e->next)
			if (!only || smap_get(only, e->key))
				pv_push(&keys, e->key);
	}
	qsort(keys.v, keys.n, sizeof(*keys.v), cmp_key);
	sb_add(&b, "# nvabi layouts: every record layout that a file in releases/ refers to.\n"
		   "# NAME#HASH struct|union SIZE ALIGN @HEADER, then OFFSET FIELD TYPE SIZE [ptr] [fd]\n");
	for (i = 0; i < keys.n; i++) {
		sb_addc(&b, '\n');
		layout_format(&b, smap_get(map, keys.v[i]));
	}
	pv_free(&keys);
	return sb_steal(&b);
}

void store_write(struct store *s)
{
	char *p = path_join(s->dir, "layouts.txt");
	char *txt = layouts_text(&s->layouts, NULL);

	if (write_file_atomic(p, txt, strlen(txt)))
		die("cannot write %s", p);
	free(txt);
	free(p);
	s->dirty = 0;
}

/* Write the layouts an ABI refers to, for a later merge (extract workers). */
char *abi_layouts_text(struct abi *a)
{
	return layouts_text(&a->layouts, NULL);
}

int store_merge_text(struct store *s, const char *text, const char *what)
{
	struct smap tmp = { 0 };
	size_t b;

	if (layouts_parse(text, what, &tmp))
		return -1;
	layouts_link(&tmp, what);
	for (b = 0; b < tmp.nb; b++) {
		struct smap_ent *e;

		for (e = tmp.b[b]; e; e = e->next)
			store_add_layout(s, e->val);
	}
	smap_free(&tmp, layout_free_v);
	return 0;
}

/* ---- releases ------------------------------------------------------------------- */

char *release_path(const struct store *s, const char *release)
{
	char *d = path_join(s->dir, "releases");
	char *f = xasprintf("%s.abi", release);
	char *p = path_join(d, f);

	free(d);
	free(f);
	return p;
}

static int cmp_ver(const void *a, const void *b)
{
	return ver_cmp_str(*(char *const *)a, *(char *const *)b);
}

void store_releases(const struct store *s, struct pvec *out)
{
	char *d = path_join(s->dir, "releases");
	DIR *dir = opendir(d);
	struct dirent *e;

	if (!dir)
		die("%s: no releases directory (run 'nvabi extract' first)", d);
	while ((e = readdir(dir))) {
		size_t n = strlen(e->d_name);
		struct nvver v;
		char *name;

		if (n < 5 || strcmp(e->d_name + n - 4, ".abi"))
			continue;
		name = xstrndup(e->d_name, n - 4);
		if (ver_parse(name, &v)) {
			warnx("%s/%s: not named after a version; ignored", d, e->d_name);
			free(name);
			continue;
		}
		pv_push(out, name);
	}
	closedir(dir);
	free(d);
	qsort(out->v, out->n, sizeof(*out->v), cmp_ver);
}

static void ptype_format(struct sbuf *b, const struct ptype *t)
{
	if (t->rec || t->hash)
		sb_printf(b, "%s#%012llx", t->name, (unsigned long long)(t->hash & HASH_MASK));
	else
		sb_add(b, t->name ? t->name : "-");
}

void format_esc(struct sbuf *b, const struct esc *e)
{
	int k;

	sb_printf(b, "esc 0x%02x %s %s %s ", e->nr, node_str(e->node), priv_str(e->priv),
		  kind_str(e->kind));
	if (!e->ntypes)
		sb_add(b, "- -");
	for (k = 0; k < e->ntypes; k++)
		sb_printf(b, "%s%lld", k ? "," : "", e->types[k].size);
	if (e->ntypes)
		sb_addc(b, ' ');
	for (k = 0; k < e->ntypes; k++) {
		if (k)
			sb_addc(b, ',');
		ptype_format(b, &e->types[k]);
	}
	if (e->early != ESC_UNCHECKED) {
		sb_printf(b, " early=%s:%lld", kind_str(e->early), e->early_size[0]);
		if (e->nearly > 1)
			sb_printf(b, ",%lld", e->early_size[1]);
	}
	sb_printf(b, " @%s @%s\n", e->name, e->src ? e->src : "-");
}

void format_ctrl(struct sbuf *b, const struct ctrl *c)
{
	sb_printf(b, "ctrl 0x%08x %s", c->cmd, priv_str(c->priv));
	if (c->type.size >= 0) {
		sb_printf(b, " %lld ", c->type.size);
		ptype_format(b, &c->type);
	}
	if (c->access)
		sb_printf(b, " ar=0x%x", c->access);
	if (c->extra & CTRL_X_PRIV_IF_NO_RIGHTS)
		sb_add(b, " x=root-without-rights");
	if (c->extra & CTRL_X_TEST_ONLY)
		sb_add(b, " x=test-only");
	sb_printf(b, " @%s\n", c->owners ? c->owners : "-");
}

void format_cls(struct sbuf *b, const struct cls *c)
{
	static const char *const pn[] = { "none", "opt", "req" };

	sb_printf(b, "class 0x%08x %s", c->id, priv_str(c->priv));
	if (c->type.size >= 0) {
		sb_printf(b, " %s %lld ", pn[c->params], c->type.size);
		ptype_format(b, &c->type);
	}
	sb_printf(b, " @%s @%s\n", c->name ? c->name : "-", c->internal ? c->internal : "-");
}

void format_uvm(struct sbuf *b, const struct uvmc *c)
{
	sb_printf(b, "uvm 0x%08x %s %lld ", c->cmd, node_str(c->node), c->type.size);
	ptype_format(b, &c->type);
	sb_printf(b, " @%s\n", c->name ? c->name : "-");
}

void format_dep(struct sbuf *b, const struct dep *d)
{
	sb_printf(b, "dep 0x%08x 0x%08x %lld ", d->cmd, d->v2, d->type.size);
	ptype_format(b, &d->type);
	if (d->custom) {
		sb_add(b, " custom");
	} else {
		sb_printf(b, " list=%s %s=%s elem=%lld:", d->list, d->is_count ? "count" : "bytes",
			  d->count, d->elem.size);
		ptype_format(b, &d->elem);
		sb_printf(b, " max=%u %s", d->max, d->in && d->out ? "inout" : d->in ? "in" :
			  d->out ? "out" : "none");
	}
	sb_printf(b, " @%s\n", d->name ? d->name : "-");
}

void format_emb(struct sbuf *b, const struct emb *e)
{
	sb_printf(b, "emb 0x%08x %d %lld ", e->cmd, e->slot, e->type.size);
	ptype_format(b, &e->type);
	if (e->custom) {
		sb_add(b, " custom");
	} else {
		sb_printf(b, " list=%s count=", e->list);
		if (e->count)
			sb_printf(b, "%s%s%s", e->count, e->count2 ? "*" : "",
				  e->count2 ? e->count2 : "");
		else
			sb_printf(b, "%u", e->cnum);
		sb_printf(b, " elem=%lld", e->elem.size);
		if (strcmp(e->elem.name, "-")) {
			sb_addc(b, ':');
			ptype_format(b, &e->elem);
		}
		sb_printf(b, " %s", e->in && e->out ? "inout" : e->in ? "in" : e->out ? "out" : "none");
		if (e->ifptr)
			sb_add(b, " ifptr");
		if (e->nomax)
			sb_add(b, " nomax");
	}
	sb_printf(b, " @%s\n", e->name ? e->name : "-");
}

char *abi_format(const struct abi *a)
{
	struct sbuf b = { 0 };
	size_t i;

	sb_printf(&b, "nvabi %d\n@release %s\n@source %s\n", NVABI_FORMAT, a->release,
		  a->source ? a->source : "-");
	for (i = 0; i < a->esc.n; i++)
		format_esc(&b, a->esc.v[i]);
	for (i = 0; i < a->ctrl.n; i++)
		format_ctrl(&b, a->ctrl.v[i]);
	for (i = 0; i < a->cls.n; i++)
		format_cls(&b, a->cls.v[i]);
	for (i = 0; i < a->uvm.n; i++)
		format_uvm(&b, a->uvm.v[i]);
	for (i = 0; i < a->dep.n; i++)
		format_dep(&b, a->dep.v[i]);
	for (i = 0; i < a->emb.n; i++)
		format_emb(&b, a->emb.v[i]);
	if (a->uvm_unknown)
		sb_printf(&b, "uvm-unknown %s\n", uvm_unknown_str(a->uvm_unknown));
	for (i = 0; i < a->fdin.n; i++) {
		const struct fd_hit *h = a->fdin.v[i];

		sb_printf(&b, "fdin %s %s %s\n", h->type, h->field, node_str(h->node));
	}
	return sb_steal(&b);
}

char *abi_identity(const char *text)
{
	struct sbuf b = { 0 };
	const char *p = text;

	while (*p) {
		const char *e = strchr(p, '\n');
		size_t n = e ? (size_t)(e - p) : strlen(p);

		if (p[0] != '@') {
			const char *q = p, *end = p + n;
			int first = 1;

			while (q < end) {
				const char *t;

				while (q < end && *q == ' ')
					q++;
				t = q;
				while (q < end && *q != ' ')
					q++;
				if (q == t || *t == '@')
					continue;
				if (!first)
					sb_addc(&b, ' ');
				sb_addn(&b, t, q - t);
				first = 0;
			}
			sb_addc(&b, '\n');
		}
		p += n + (e ? 1 : 0);
	}
	return sb_steal(&b);
}

static int parse_ptype(const char *tok, long long size, struct ptype *t)
{
	const char *h = strchr(tok, '#');

	memset(t, 0, sizeof(*t));
	t->size = size;
	if (!h) {
		t->name = xstrdup(tok);
		return 0;
	}
	t->name = xstrndup(tok, h - tok);
	t->hash = strtoull(h + 1, NULL, 16);
	return 0;
}

/* A line of a release file, split: its tokens, then its provenance. */
struct aline {
	const char *what;	/* the file, for messages */
	int lineno;
	char *tok[32];
	int n;
	char *prov[8];		/* the '@' tokens after the first, without the '@' */
	int np;
};

/* Split @line into @l's tokens and provenance; the number of tokens. */
static int aline_split(struct aline *l, char *line)
{
	int n = split(line, l->tok, 32), i, m = 0;

	l->np = 0;
	if (n <= 0)
		return n;
	for (i = 0; i < n; i++) {
		if (l->tok[i][0] == '@' && i > 0) {
			if (l->np < 8)
				l->prov[l->np++] = l->tok[i] + 1;
		} else
			l->tok[m++] = l->tok[i];
	}
	l->n = m;
	return m;
}

/* The @k-th provenance token of @l, or "-". */
static const char *aline_prov(const struct aline *l, int k)
{
	return l->np > k ? l->prov[k] : "-";
}

/* bad_line() of line @l. */
static int aline_bad(const struct aline *l, const char *msg, const char *arg)
{
	return bad_line(l->what, l->lineno, msg, arg);
}

/* An escape's "early=KIND:SIZE[,SIZE]": the size check made before any other. */
static int parse_esc_early(struct esc *e, const struct aline *l)
{
	char *t = l->tok[7], *colon = strchr(t, ':'), *comma;
	int ek;

	if (strncmp(t, "early=", 6) || !colon)
		return aline_bad(l, "bad escape attribute", t);
	*colon = 0;
	comma = strchr(colon + 1, ',');
	if (comma)
		*comma = 0;
	ek = kind_parse(t + 6);
	e->nearly = comma ? 2 : 1;
	if ((ek != ESC_EXACT && ek != ESC_ARRAY) ||
	    parse_ll(colon + 1, &e->early_size[0]) ||
	    (comma && parse_ll(comma + 1, &e->early_size[1])))
		return aline_bad(l, "bad early check", NULL);
	e->early = (enum esc_kind)ek;
	return 0;
}

/* "esc NR NODE PRIV KIND SIZE,... TYPE,... [early=...]" */
static int parse_esc(struct abi *a, const struct aline *l)
{
	struct esc *e = xcalloc(1, sizeof(*e));
	char *const *tok = l->tok;
	char *s1 = NULL, *s2 = NULL, *a1, *a2;
	uint32_t nr;

	pv_push(&a->esc, e);
	if (parse_u32(tok[1], &nr) || (int)(e->node = node_parse(tok[2])) < 0 ||
	    e->node == NODE_NONE || e->node > NODE_ANY ||
	    (int)(e->priv = priv_parse(tok[3])) < 0 ||
	    (int)(e->kind = kind_parse(tok[4])) < 0)
		return aline_bad(l, "bad escape", NULL);
	e->nr = nr;
	e->early = ESC_UNCHECKED;
	if (l->n == 8 && parse_esc_early(e, l))
		return -1;
	e->name = xstrdup(aline_prov(l, 0));
	e->src = xstrdup(aline_prov(l, 1));
	if (!strcmp(tok[5], "-"))
		return 0;
	/* the sizes and the types, pairwise */
	for (a1 = strtok_r(tok[5], ",", &s1), a2 = strtok_r(tok[6], ",", &s2);
	     a1 && a2 && e->ntypes < 4;
	     a1 = strtok_r(NULL, ",", &s1), a2 = strtok_r(NULL, ",", &s2)) {
		long long v;

		if (parse_ll(a1, &v))
			return aline_bad(l, "bad size", NULL);
		parse_ptype(a2, v, &e->types[e->ntypes++]);
	}
	return 0;
}

/* "ctrl CMD PRIV [SIZE TYPE] [ar=RIGHT] [x=FLAG...]" */
static int parse_ctrl(struct abi *a, const struct aline *l)
{
	struct ctrl *c = xcalloc(1, sizeof(*c));
	char *const *tok = l->tok;
	int k = 3;

	pv_push(&a->ctrl, c);
	if (parse_u32(tok[1], &c->cmd) || (int)(c->priv = priv_parse(tok[2])) < 0)
		return aline_bad(l, "bad control", NULL);
	c->owners = xstrdup(aline_prov(l, 0));
	if (l->n >= 5 && isdigit((unsigned char)tok[3][0])) {
		long long v;

		if (parse_ll(tok[3], &v))
			return aline_bad(l, "bad size", NULL);
		parse_ptype(tok[4], v, &c->type);
		k = 5;
	} else {
		c->type.name = xstrdup("-");
		c->type.size = -1;
	}
	for (; k < l->n; k++) {
		if (!strncmp(tok[k], "ar=", 3))
			parse_u32(tok[k] + 3, &c->access);
		else if (!strcmp(tok[k], "x=root-without-rights"))
			c->extra |= CTRL_X_PRIV_IF_NO_RIGHTS;
		else if (!strcmp(tok[k], "x=test-only"))
			c->extra |= CTRL_X_TEST_ONLY;
		else
			return aline_bad(l, "unknown control attribute", tok[k]);
	}
	return 0;
}

/* "class ID PRIV [none|opt|req SIZE TYPE]" */
static int parse_class(struct abi *a, const struct aline *l)
{
	struct cls *c = xcalloc(1, sizeof(*c));
	char *const *tok = l->tok;

	pv_push(&a->cls, c);
	if (parse_u32(tok[1], &c->id) || (int)(c->priv = priv_parse(tok[2])) < 0)
		return aline_bad(l, "bad class", NULL);
	c->name = xstrdup(aline_prov(l, 0));
	c->internal = xstrdup(aline_prov(l, 1));
	if (l->n == 6) {
		long long v;

		c->params = !strcmp(tok[3], "req") ? 2 : !strcmp(tok[3], "opt") ? 1 : 0;
		if (parse_ll(tok[4], &v))
			return aline_bad(l, "bad size", NULL);
		parse_ptype(tok[5], v, &c->type);
	} else {
		c->type.name = xstrdup("-");
		c->type.size = -1;
	}
	return 0;
}

/* "uvm CMD NODE SIZE TYPE" */
static int parse_uvm(struct abi *a, const struct aline *l)
{
	struct uvmc *c = xcalloc(1, sizeof(*c));
	char *const *tok = l->tok;
	long long v;

	pv_push(&a->uvm, c);
	if (parse_u32(tok[1], &c->cmd) || (int)(c->node = node_parse(tok[2])) < 0 ||
	    (c->node != NODE_UVM && c->node != NODE_UVM_TOOLS) ||
	    parse_ll(tok[3], &v))
		return aline_bad(l, "bad UVM command", NULL);
	parse_ptype(tok[4], v, &c->type);
	c->name = xstrdup(aline_prov(l, 0));
	return 0;
}

/* A deprecated control's "list=F count|bytes=F elem=SIZE:TYPE max=N DIR". */
static int parse_dep_list(struct dep *d, const struct aline *l)
{
	char *const *tok = l->tok;
	char *eq = strchr(tok[6], '='), *colon = strchr(tok[7], ':');
	long long ev;

	if (strncmp(tok[5], "list=", 5) || !eq || strncmp(tok[7], "elem=", 5) ||
	    !colon || strncmp(tok[8], "max=", 4) || parse_u32(tok[8] + 4, &d->max))
		return aline_bad(l, "bad deprecated control list", NULL);
	*eq = 0;
	*colon = 0;
	d->list = xstrdup(tok[5] + 5);
	d->is_count = !strcmp(tok[6], "count");
	if (!d->is_count && strcmp(tok[6], "bytes"))
		return aline_bad(l, "bad list size", tok[6]);
	d->count = xstrdup(eq + 1);
	if (parse_ll(tok[7] + 5, &ev))
		return aline_bad(l, "bad element size", NULL);
	parse_ptype(colon + 1, ev, &d->elem);
	d->in = !strcmp(tok[9], "in") || !strcmp(tok[9], "inout");
	d->out = !strcmp(tok[9], "out") || !strcmp(tok[9], "inout");
	if (!d->in && !d->out && strcmp(tok[9], "none"))
		return aline_bad(l, "bad copy direction", tok[9]);
	return 0;
}

/* "dep CMD V2 SIZE TYPE" and "custom" or its list (parse_dep_list()) */
static int parse_dep(struct abi *a, const struct aline *l)
{
	struct dep *d = xcalloc(1, sizeof(*d));
	char *const *tok = l->tok;
	long long v;

	pv_push(&a->dep, d);
	d->name = xstrdup(aline_prov(l, 0));
	if (parse_u32(tok[1], &d->cmd) || parse_u32(tok[2], &d->v2) ||
	    parse_ll(tok[3], &v))
		return aline_bad(l, "bad deprecated control", NULL);
	parse_ptype(tok[4], v, &d->type);
	if (l->n != 6)
		return parse_dep_list(d, l);
	if (strcmp(tok[5], "custom"))
		return aline_bad(l, "bad deprecated control", tok[5]);
	d->custom = 1;
	d->elem.name = xstrdup("-");
	return 0;
}

/*
 * An embedded list's "list=F count=C elem=SIZE[:TYPE] DIR [ifptr] [nomax]",
 * C a number, a field or "F*F".
 */
static int parse_emb_list(struct emb *e, const struct aline *l)
{
	char *const *tok = l->tok;
	char *colon, *star;
	long long ev;
	int k;

	e->list = xstrdup(tok[5] + 5);
	if (isdigit((unsigned char)tok[6][6])) {
		if (parse_u32(tok[6] + 6, &e->cnum))
			return aline_bad(l, "bad count", tok[6]);
	} else {
		star = strchr(tok[6] + 6, '*');
		if (star)
			*star++ = 0;
		e->count = xstrdup(tok[6] + 6);
		e->count2 = star ? xstrdup(star) : NULL;
	}
	colon = strchr(tok[7], ':');
	if (colon)
		*colon = 0;
	if (parse_ll(tok[7] + 5, &ev))
		return aline_bad(l, "bad element size", NULL);
	if (colon) {
		parse_ptype(colon + 1, ev, &e->elem);
	} else {
		e->elem.name = xstrdup("-");
		e->elem.size = ev;
	}
	e->in = !strcmp(tok[8], "in") || !strcmp(tok[8], "inout");
	e->out = !strcmp(tok[8], "out") || !strcmp(tok[8], "inout");
	if (!e->in && !e->out && strcmp(tok[8], "none"))
		return aline_bad(l, "bad copy direction", tok[8]);
	for (k = 9; k < l->n; k++) {
		if (!strcmp(tok[k], "ifptr"))
			e->ifptr = 1;
		else if (!strcmp(tok[k], "nomax"))
			e->nomax = 1;
		else
			return aline_bad(l, "unknown list attribute", tok[k]);
	}
	return 0;
}

/* "emb CMD SLOT SIZE TYPE" and "custom" or its list (parse_emb_list()) */
static int parse_emb(struct abi *a, const struct aline *l)
{
	struct emb *e = xcalloc(1, sizeof(*e));
	char *const *tok = l->tok;
	long long v, ev;

	pv_push(&a->emb, e);
	e->name = xstrdup(aline_prov(l, 0));
	if (parse_u32(tok[1], &e->cmd) || parse_ll(tok[2], &v) || v < 0 || v > 3 ||
	    parse_ll(tok[3], &ev))
		return aline_bad(l, "bad embedded list", NULL);
	e->slot = (int)v;
	parse_ptype(tok[4], ev, &e->type);
	if (l->n == 6 && !strcmp(tok[5], "custom")) {
		e->custom = 1;
		e->elem.name = xstrdup("-");
		return 0;
	}
	if (l->n < 9 || strncmp(tok[5], "list=", 5) || strncmp(tok[6], "count=", 6) ||
	    strncmp(tok[7], "elem=", 5))
		return aline_bad(l, "bad embedded list", NULL);
	return parse_emb_list(e, l);
}

/* "fdin TYPE FIELD NODE" */
static int parse_fdin(struct abi *a, const struct aline *l)
{
	struct fd_hit *h = xcalloc(1, sizeof(*h));

	pv_push(&a->fdin, h);
	h->type = xstrdup(l->tok[1]);
	h->field = xstrdup(l->tok[2]);
	h->node = node_parse(l->tok[3]);
	if ((int)h->node < 0 || h->node == NODE_NONE || h->node == NODE_UVM_TOOLS)
		return aline_bad(l, "bad fd lookup", NULL);
	return 0;
}

/* "@source WORDS...": the words, or "-" */
static void parse_source(struct abi *a, const struct aline *l)
{
	struct sbuf sb = { 0 };
	int i;

	for (i = 1; i < l->n; i++)
		sb_printf(&sb, "%s%s", i > 1 ? " " : "", l->tok[i]);
	a->source = sb.len ? sb_steal(&sb) : xstrdup("-");
}

/* Line @l of a release file into @a, by its first word; -1 (said) if wrong. */
static int abi_line(struct abi *a, const struct aline *l, int *have_magic)
{
	const char *w = l->tok[0];
	int n = l->n;

	if (!strcmp(w, "nvabi")) {
		if (n != 2 || atoi(l->tok[1]) != NVABI_FORMAT) {
			warnx("%s:%d: format %s, this nvabi reads %d", l->what, l->lineno,
			      n > 1 ? l->tok[1] : "?", NVABI_FORMAT);
			return -1;
		}
		*have_magic = 1;
	} else if (!strcmp(w, "@release") && n == 2) {
		a->release = xstrdup(l->tok[1]);
	} else if (!strcmp(w, "@source")) {
		parse_source(a, l);
	} else if (!strcmp(w, "esc") && (n == 7 || n == 8)) {
		return parse_esc(a, l);
	} else if (!strcmp(w, "ctrl") && n >= 3) {
		return parse_ctrl(a, l);
	} else if (!strcmp(w, "class") && (n == 3 || n == 6)) {
		return parse_class(a, l);
	} else if (!strcmp(w, "uvm") && n == 5) {
		return parse_uvm(a, l);
	} else if (!strcmp(w, "dep") && (n == 6 || n == 10)) {
		return parse_dep(a, l);
	} else if (!strcmp(w, "emb") && n >= 6) {
		return parse_emb(a, l);
	} else if (!strcmp(w, "uvm-unknown") && n == 2) {
		a->uvm_unknown = uvm_unknown_parse(l->tok[1]);
		if (a->uvm_unknown <= 0)
			return aline_bad(l, "bad UVM answer", l->tok[1]);
	} else if (!strcmp(w, "fdin") && n == 4) {
		return parse_fdin(a, l);
	} else {
		return aline_bad(l, "cannot read", w);
	}
	return 0;
}

int abi_parse(const char *text, const char *what, struct abi *a)
{
	char *buf = xstrdup(text), *line, *save = NULL;
	struct aline l = { .what = what };
	int err = 0, have_magic = 0;

	memset(a, 0, sizeof(*a));
	for (line = buf;; line = NULL) {
		line = strtok_r(line, "\n", &save);
		if (!line)
			break;
		l.lineno++;
		if (line[0] == '#' || aline_split(&l, line) <= 0)
			continue;
		err = abi_line(a, &l, &have_magic);
		if (err)
			break;
	}
	if (!err && !have_magic) {
		warnx("%s: not an nvabi file", what);
		err = -1;
	} else if (!err && !a->release) {
		warnx("%s: no @release line", what);
		err = -1;
	}
	free(buf);
	if (err)
		abi_free(a);
	return err;
}

static void resolve_ptype(struct store *s, struct ptype *t, const char *what)
{
	char *key;

	if (!t->hash)
		return;
	key = xasprintf("%s#%012llx", t->name, (unsigned long long)t->hash);
	t->rec = smap_get(&s->layouts, key);
	if (!t->rec)
		die("%s: layout %s is not in %s/layouts.txt", what, key, s->dir);
	free(key);
}

void abi_resolve(struct store *s, struct abi *a)
{
	size_t i;
	int k;

	for (i = 0; i < a->esc.n; i++) {
		struct esc *e = a->esc.v[i];

		for (k = 0; k < e->ntypes; k++)
			resolve_ptype(s, &e->types[k], a->release);
	}
	for (i = 0; i < a->ctrl.n; i++)
		resolve_ptype(s, &((struct ctrl *)a->ctrl.v[i])->type, a->release);
	for (i = 0; i < a->cls.n; i++)
		resolve_ptype(s, &((struct cls *)a->cls.v[i])->type, a->release);
	for (i = 0; i < a->uvm.n; i++)
		resolve_ptype(s, &((struct uvmc *)a->uvm.v[i])->type, a->release);
	for (i = 0; i < a->dep.n; i++) {
		resolve_ptype(s, &((struct dep *)a->dep.v[i])->type, a->release);
		resolve_ptype(s, &((struct dep *)a->dep.v[i])->elem, a->release);
	}
	for (i = 0; i < a->emb.n; i++) {
		resolve_ptype(s, &((struct emb *)a->emb.v[i])->type, a->release);
		resolve_ptype(s, &((struct emb *)a->emb.v[i])->elem, a->release);
	}
}

/* Load a release by version (from abi/releases) or by file path. */
int abi_load(struct store *s, const char *name, struct abi *a)
{
	char *p, *txt;
	int r;

	if (strchr(name, '/') || (strlen(name) > 4 && !strcmp(name + strlen(name) - 4, ".abi")))
		p = xstrdup(name);
	else
		p = release_path(s, name);
	txt = read_file(p, NULL);
	if (!txt) {
		free(p);
		return -1;
	}
	r = abi_parse(txt, p, a);
	free(txt);
	free(p);
	return r;
}

/* Drop layouts that no release file refers to, directly or through others. */
static void mark(struct store *s, struct smap *keep, const char *key)
{
	struct layout *l;
	size_t i;

	if (smap_get(keep, key))
		return;
	l = smap_get(&s->layouts, key);
	if (!l)
		return;
	smap_put(keep, key, l);
	for (i = 0; i < l->nfields; i++)
		if (l->fields[i].rec) {
			char *k = layout_key(l->fields[i].rec);

			mark(s, keep, k);
			free(k);
		}
}

static void mark_ptype(struct store *s, struct smap *keep, const struct ptype *t)
{
	char *key;

	if (!t->hash)
		return;
	key = xasprintf("%s#%012llx", t->name, (unsigned long long)t->hash);
	mark(s, keep, key);
	free(key);
}

void store_prune(struct store *s)
{
	struct pvec rel = { 0 };
	struct smap keep = { 0 };
	size_t i, j, b;
	int k;

	store_releases(s, &rel);
	for (i = 0; i < rel.n; i++) {
		struct abi a;

		if (abi_load(s, rel.v[i], &a))
			die("cannot read release %s", (char *)rel.v[i]);
		for (j = 0; j < a.esc.n; j++) {
			struct esc *e = a.esc.v[j];

			for (k = 0; k < e->ntypes; k++)
				mark_ptype(s, &keep, &e->types[k]);
		}
		for (j = 0; j < a.ctrl.n; j++)
			mark_ptype(s, &keep, &((struct ctrl *)a.ctrl.v[j])->type);
		for (j = 0; j < a.cls.n; j++)
			mark_ptype(s, &keep, &((struct cls *)a.cls.v[j])->type);
		for (j = 0; j < a.uvm.n; j++)
			mark_ptype(s, &keep, &((struct uvmc *)a.uvm.v[j])->type);
		for (j = 0; j < a.dep.n; j++) {
			mark_ptype(s, &keep, &((struct dep *)a.dep.v[j])->type);
			mark_ptype(s, &keep, &((struct dep *)a.dep.v[j])->elem);
		}
		for (j = 0; j < a.emb.n; j++) {
			mark_ptype(s, &keep, &((struct emb *)a.emb.v[j])->type);
			mark_ptype(s, &keep, &((struct emb *)a.emb.v[j])->elem);
		}
		abi_free(&a);
		free(rel.v[i]);
	}
	pv_free(&rel);
	for (b = 0; b < s->layouts.nb; b++) {
		struct smap_ent **pp = &s->layouts.b[b], *e;

		while ((e = *pp)) {
			if (!smap_get(&keep, e->key)) {
				*pp = e->next;
				layout_free(e->val);
				free(e->key);
				free(e);
				s->layouts.n--;
				s->dirty = 1;
				continue;
			}
			pp = &e->next;
		}
	}
	smap_free(&keep, NULL);
}
