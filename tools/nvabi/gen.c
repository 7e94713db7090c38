// SPDX-License-Identifier: GPL-2.0
/*
 * nvabi: write the C tables the module compiles (abi/generated/).
 *
 * Input: abi/releases/, abi/layouts.txt and abi/capabilities.txt. Output:
 * nvabi_tables.h and nvabi_tables.c, plain const data in the types of
 * abi/nvabi_types.h. Identical ABIs share one ABI number, and every entry
 * is stored once with the set of ABIs it belongs to (see nvabi_types.h for
 * the lookup) and the capabilities that admit it.
 */
#include <ctype.h>
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "nvabi.h"
#include "../../abi/nvabi_types.h"
#include "../../uapi/nvmediate.h"

enum { K_ESC, K_CTRL, K_CLASS, K_UVM, K_DEP, K_EMB, NK };
static const char *const kname[NK] = { "esc", "ctrl", "class", "uvm", "dep", "emb" };

/* capabilities.txt names the kinds as the profiles do, in the same order. */
static const char *const fam_words[] = NVM_FAMILY_NAMES;
static const char *const cap_words[] = NVM_CAP_NAMES;
_Static_assert(sizeof(fam_words) / sizeof(fam_words[0]) == K_DEP, "one family per kind");
_Static_assert(sizeof(cap_words) / sizeof(cap_words[0]) == NVM_NR_CAPS, "NVM_NR_CAPS words");
_Static_assert((1 << NVM_NR_CAPS) <= NVABI_CAP_BASE && NVABI_CAP_BASE <= 0xffff,
	       "capabilities and base fit an entry's 16-bit caps");

struct pent {
	int kind;
	uint32_t key;
	char *ident;
	unsigned char *in;	/* membership per ABI */
	int first_abi;
	uint32_t size, size2, early, early2;
	int node, priv, szkind, flags, access, params, early_kind;
	char *tyname, *header;
	char *name;		/* what the driver's sources call it, "-": nothing */
	struct pvec fds;	/* (off << 8) | size */
	int fd, nfd;
	int set;
	int caps;		/* NVABI_CAP_* bits, from capabilities.txt */
	uint32_t v2, max;	/* a deprecated control: its V2, the list's maximum, */
	unsigned list_off, count_off, elem;	/* ... the list fields, element size */
	int nlist;		/* embedded lists (K_EMB): how many, and each */
	struct nvabi_emb_list emb[NVABI_EMB_LISTS];
	const char *first_rel, *last_rel;
};

/* One line of abi/capabilities.txt. */
struct capline {
	int line;
	int kind;
	uint32_t nr;
	int caps;
	char *name;
	int none;		/* "# none:": says why no release has it */
	int used;		/* some entry took it */
};

struct gctx {
	struct store *s;
	struct rangeset rs;
	int nabi;
	struct smap idx;	/* ident -> pent */
	struct pvec ents[NK];
	struct pvec sets;	/* membership strings */
	struct smap setidx;
	struct pvec fdpool;	/* (off << 8) | size, flattened */
	struct pvec rml;	/* distinct RM payload layouts, as C initializers */
	int *abi_rml;		/* per ABI: index in rml */
	int *abi_uvm_unknown;	/* per ABI: UVM_UNKNOWN_* */
	struct pvec caplines;	/* struct capline, in the file's order */
};

static int caps_fail(const char *path, int line, const char *what, const char *arg)
{
	fprintf(stderr, "%s:%d: %s%s%s\n", path, line, what, arg ? " " : "", arg ? arg : "");
	return 1;
}

/*
 * Read abi/capabilities.txt: "FAMILY NUMBER CAP[,CAP...] NAME [# why: ...]"
 * per line, the words those of uapi/nvmediate.h; "# none: ..." instead says
 * why no release in abi/releases/ has the call. Every mistake is reported
 * with its line; then gen writes nothing.
 */
static int caps_read(struct gctx *g, const char *path)
{
	char *txt = read_file(path, NULL), *line, *next;
	int n = 0, bad = 0;
	struct smap seen = { 0 };

	if (!txt)
		die("cannot read %s", path);
	for (line = txt; *line; line = next) {
		char fam[16], num[32], caps[256], name[128], *c, *end, *hash, key[48];
		struct capline *cl;
		int f, w;

		n++;
		next = strchr(line, '\n');
		if (next)
			*next++ = '\0';
		else
			next = line + strlen(line);
		hash = strchr(line, '#');
		if (hash)
			*hash++ = '\0';
		if (strspn(line, " \t") == strlen(line))
			continue;
		if (sscanf(line, "%15s %31s %255s %127s", fam, num, caps, name) != 4) {
			bad |= caps_fail(path, n, "want FAMILY NUMBER CAPS NAME:", line);
			continue;
		}
		for (f = 0; f < K_DEP && strcmp(fam, fam_words[f]); f++)
			;
		if (f == K_DEP) {
			bad |= caps_fail(path, n, "unknown family", fam);
			continue;
		}
		errno = 0;
		if (strncmp(num, "0x", 2) || !isxdigit((unsigned char)num[2]) ||
		    strtoull(num + 2, &end, 16) > UINT32_MAX || *end || errno) {
			bad |= caps_fail(path, n, "not a 32-bit hex number:", num);
			continue;
		}
		cl = xcalloc(1, sizeof(*cl));
		cl->line = n;
		cl->kind = f;
		cl->nr = (uint32_t)strtoul(num + 2, NULL, 16);
		cl->name = xstrdup(name);
		cl->none = hash && !strncmp(hash + strspn(hash, " \t"), "none:", 5);
		for (c = strtok(caps, ","); c; c = strtok(NULL, ",")) {
			if (!strcmp(c, "base")) {
				cl->caps |= NVABI_CAP_BASE;
				continue;
			}
			for (w = 0; w < NVM_NR_CAPS && strcmp(c, cap_words[w]); w++)
				;
			if (w == NVM_NR_CAPS)
				bad |= caps_fail(path, n, "unknown capability", c);
			else
				cl->caps |= 1 << w;
		}
		snprintf(key, sizeof(key), "%d %08x", f, cl->nr);
		if (smap_get(&seen, key))
			bad |= caps_fail(path, n, "listed twice:", num);
		smap_put(&seen, key, cl);
		pv_push(&g->caplines, cl);
	}
	smap_free(&seen, NULL);
	free(txt);
	return bad;
}

/*
 * Give every entry the capabilities of its line (entries of one number share
 * it across ABIs). A line that names a call no release has must say why
 * ("# none: ..."), and only such a line may: the file stays true to the
 * tables as releases are added.
 */
static int caps_apply(struct gctx *g, const char *path)
{
	struct smap byk = { 0 };
	size_t i;
	int k, bad = 0;
	char key[48];

	for (i = 0; i < g->caplines.n; i++) {
		struct capline *cl = g->caplines.v[i];

		snprintf(key, sizeof(key), "%d %08x", cl->kind, cl->nr);
		smap_put(&byk, key, cl);
	}
	for (k = 0; k < K_EMB; k++)
		for (i = 0; i < g->ents[k].n; i++) {
			struct pent *p = g->ents[k].v[i];
			struct capline *cl;

			snprintf(key, sizeof(key), "%d %08x", k == K_DEP ? K_CTRL : k, p->key);
			cl = smap_get(&byk, key);
			if (!cl)
				continue;
			if (k == K_DEP) {
				/* decided as the V2 control it becomes */
				fprintf(stderr, "%s:%d: ctrl 0x%x (%s) is a deprecated control the "
					"driver turns into 0x%x: the profile decides on that one; "
					"give its line these capabilities\n", path, cl->line, cl->nr,
					cl->name, p->v2);
				bad = 1;
				continue;
			}
			p->caps = cl->caps;
			cl->used = 1;
		}
	for (i = 0; i < g->caplines.n; i++) {
		struct capline *cl = g->caplines.v[i];

		if (!cl->used && !cl->none) {
			fprintf(stderr, "%s:%d: %s 0x%x (%s) is in no release's tables: "
				"say why with '# none: ...'\n", path, cl->line,
				fam_words[cl->kind], cl->nr, cl->name);
			bad = 1;
		} else if (cl->used && cl->none) {
			fprintf(stderr, "%s:%d: %s 0x%x (%s) is in the tables now: drop its "
				"'# none:'\n", path, cl->line, fam_words[cl->kind], cl->nr,
				cl->name);
			bad = 1;
		}
	}
	smap_free(&byk, NULL);
	return bad;
}

static const char *node_c(int n)
{
	static const char *const v[] = { "0", "NVABI_NODE_CTL", "NVABI_NODE_GPU", "NVABI_NODE_ANY",
					 "NVABI_NODE_UVM", "NVABI_NODE_UVM_TOOLS",
					 "NVABI_NODE_CAP", "NVABI_NODE_IMEX" };

	_Static_assert(sizeof(v) / sizeof(v[0]) == NODE_MAX + 1, "a name per node");
	return n >= 0 && n <= NODE_MAX ? v[n] : "0";
}

static const char *priv_c(int p)
{
	static const char *const v[] = { "NVABI_PRIV_UNKNOWN", "NVABI_PRIV_USER", "NVABI_PRIV_ROOT",
					 "NVABI_PRIV_KERNEL", "NVABI_PRIV_INTERNAL",
					 "NVABI_PRIV_NONE" };

	return p >= 0 && p <= PRIV_NONE ? v[p] : "NVABI_PRIV_UNKNOWN";
}

static const char *kind_c(int k)
{
	static const char *const v[] = { "NVABI_SIZE_EXACT", "NVABI_SIZE_ARRAY", "NVABI_SIZE_MIN",
					 "NVABI_SIZE_UNCHECKED" };

	return k >= 0 && k <= ESC_UNCHECKED ? v[k] : "NVABI_SIZE_UNCHECKED";
}

static void flags_c(struct sbuf *b, int f)
{
	static const char *const names[] = { "NVABI_F_PTR", "NVABI_F_FD", "NVABI_F_FD_NESTED",
					     "NVABI_F_ROOT_NO_RIGHTS", "NVABI_F_TEST_ONLY" };
	int i, first = 1;

	for (i = 0; i < 5; i++) {
		if (!(f & (1 << i)))
			continue;
		sb_printf(b, "%s%s", first ? "" : " | ", names[i]);
		first = 0;
	}
	if (first)
		sb_add(b, "0");
}

/* The node the driver wants behind fd field "record field" of @a, or NODE_NONE. */
static enum node fd_node(const struct abi *a, const char *owner)
{
	size_t i, n = strcspn(owner, " ");

	for (i = 0; i < a->fdin.n; i++) {
		struct fd_hit *h = a->fdin.v[i];

		if (strlen(h->type) == n && !strncmp(h->type, owner, n) &&
		    !strcmp(h->field, owner + n + 1))
			return h->node;
	}
	return NODE_NONE;
}

/*
 * The top-level fd fields of @t as the table holds them: offset, the node
 * the driver looks the number up as (NODE_NONE: it does not) and size,
 * "(off << 16) | (node << 8) | size".  Marks the fdin lines used in @used.
 */
static void fd_list(const struct abi *a, const struct ptype *t, struct pvec *out,
		    unsigned char *used)
{
	struct reach r;
	size_t i, j;

	reach_collect(t, &r);
	for (i = 0; i < r.fd_off.n; i++) {
		uintptr_t v = (uintptr_t)r.fd_off.v[i];
		enum node node = fd_node(a, r.fd_owner.v[i]);

		for (j = 0; used && j < a->fdin.n; j++) {
			const struct fd_hit *h = a->fdin.v[j];
			size_t n = strlen(h->type);
			const char *o = r.fd_owner.v[i];

			if (!strncmp(o, h->type, n) && o[n] == ' ' && !strcmp(o + n + 1, h->field))
				used[j] = 1;
		}
		pv_push(out, (void *)(((v >> 8) << 16) | ((uintptr_t)node << 8) | (v & 0xff)));
	}
	reach_free(&r);
}

/* What an entry's identity adds for its fd fields: " fd=OFF:NODE..." or "". */
static char *fd_ident(const struct abi *a, const struct ptype *t, int n, unsigned char *used)
{
	struct sbuf b = { 0 };
	struct pvec v = { 0 };
	size_t i;
	int k;

	for (k = 0; k < n; k++)
		fd_list(a, &t[k], &v, used);
	for (i = 0; i < v.n; i++) {
		uintptr_t x = (uintptr_t)v.v[i];

		sb_printf(&b, "%s%lu:%s", i ? "," : " fd=", (unsigned long)(x >> 16),
			  node_str((enum node)((x >> 8) & 0xff)));
	}
	pv_free(&v);
	if (!b.s)
		return xstrdup("");
	return sb_steal(&b);
}

/* Pointer and fd facts of a payload type. */
static void type_facts(struct pent *p, const struct abi *a, const struct ptype *t)
{
	struct reach r;

	if (!p->tyname) {
		p->tyname = xstrdup(t->name ? t->name : "-");
		p->header = xstrdup(t->rec && t->rec->header ? t->rec->header : "");
	}
	reach_collect(t, &r);
	if (r.ptr.n)
		p->flags |= 0x01;
	if (r.fd.n)
		p->flags |= 0x02;
	if (r.fd.n > r.fd_off.n)
		p->flags |= 0x04;
	reach_free(&r);
	if (!p->fds.n)
		fd_list(a, t, &p->fds, NULL);
}

static struct pent *pool_get(struct gctx *g, int kind, uint32_t key, const char *line, int abi,
			     int *fresh)
{
	char *id = abi_identity(line);
	char *k = xasprintf("%s %s", kname[kind], id);
	struct pent *p = smap_get(&g->idx, k);

	*fresh = 0;
	if (!p) {
		p = xcalloc(1, sizeof(*p));
		p->kind = kind;
		p->key = key;
		p->ident = xstrdup(k);
		p->in = xcalloc(g->nabi, 1);
		p->first_abi = abi;
		smap_put(&g->idx, k, p);
		pv_push(&g->ents[kind], p);
		*fresh = 1;
	}
	p->in[abi] = 1;
	free(id);
	free(k);
	return p;
}

static unsigned field_off(const struct layout *l, const char *name);
static void emb_facts(struct pent *p, const struct abi *a, void *const *ev, size_t n);

/* add_abi() under way: the pool, the ABI, its number, the fdin lines used. */
struct actx {
	struct gctx *g;
	const struct abi *a;
	int abi;
	unsigned char *used;
};

/* Escape @e into the pool; its facts where the entry is new. */
static void add_esc(struct actx *x, const struct esc *e)
{
	struct sbuf b = { 0 };
	struct pent *p;
	char *fds;
	int k, fresh;

	format_esc(&b, e);
	fds = fd_ident(x->a, e->types, e->ntypes, x->used);
	sb_add(&b, fds);
	free(fds);
	p = pool_get(x->g, K_ESC, e->nr, b.s, x->abi, &fresh);
	sb_free(&b);
	if (!fresh)
		return;
	if (e->ntypes > 2 && e->kind == ESC_EXACT)
		warnx("escape 0x%02x accepts %d sizes; the table keeps two", e->nr, e->ntypes);
	p->name = xstrdup(e->name);
	p->size = e->ntypes ? (uint32_t)e->types[0].size : 0;
	p->size2 = e->ntypes > 1 && e->kind == ESC_EXACT ? (uint32_t)e->types[1].size : 0;
	p->node = e->node;
	p->priv = e->priv;
	p->szkind = e->kind;
	p->early_kind = e->early;
	if (e->early != ESC_UNCHECKED) {
		p->early = (uint32_t)e->early_size[0];
		p->early2 = e->nearly > 1 ? (uint32_t)e->early_size[1] : 0;
	}
	for (k = 0; k < e->ntypes; k++)
		type_facts(p, x->a, &e->types[k]);
	if (!e->ntypes) {
		p->tyname = xstrdup("-");
		p->header = xstrdup("");
	}
}

/* Control @c into the pool; its facts where the entry is new. */
static void add_ctrl(struct actx *x, const struct ctrl *c)
{
	struct sbuf b = { 0 };
	struct pent *p;
	char *fds;
	int fresh;

	format_ctrl(&b, c);
	fds = fd_ident(x->a, &c->type, 1, x->used);
	sb_add(&b, fds);
	free(fds);
	p = pool_get(x->g, K_CTRL, c->cmd, b.s, x->abi, &fresh);
	sb_free(&b);
	if (!fresh)
		return;
	p->name = xstrdup(c->type.name ? c->type.name : "-");
	p->size = c->type.size < 0 ? 0xffffffffU : (uint32_t)c->type.size;
	p->priv = c->priv;
	p->access = (int)c->access;
	if (c->access > 0xff)
		die("control 0x%08x: access right 0x%x does not fit the table", c->cmd,
		    c->access);
	if (c->extra & CTRL_X_PRIV_IF_NO_RIGHTS)
		p->flags |= 0x08;
	if (c->extra & CTRL_X_TEST_ONLY)
		p->flags |= 0x10;
	type_facts(p, x->a, &c->type);
}

/* Class @c into the pool; its facts where the entry is new. */
static void add_class(struct actx *x, const struct cls *c)
{
	struct sbuf b = { 0 };
	struct pent *p;
	char *fds;
	int fresh;

	format_cls(&b, c);
	fds = fd_ident(x->a, &c->type, 1, x->used);
	sb_add(&b, fds);
	free(fds);
	p = pool_get(x->g, K_CLASS, c->id, b.s, x->abi, &fresh);
	sb_free(&b);
	if (!fresh)
		return;
	p->name = xstrdup(c->name);
	p->size = c->type.size < 0 ? 0xffffffffU : (uint32_t)c->type.size;
	p->priv = c->priv;
	p->params = c->params;
	type_facts(p, x->a, &c->type);
}

/* UVM command @c into the pool; its facts where the entry is new. */
static void add_uvm(struct actx *x, const struct uvmc *c)
{
	struct sbuf b = { 0 };
	struct pent *p;
	char *fds;
	int fresh;

	format_uvm(&b, c);
	fds = fd_ident(x->a, &c->type, 1, x->used);
	sb_add(&b, fds);
	free(fds);
	p = pool_get(x->g, K_UVM, c->cmd, b.s, x->abi, &fresh);
	sb_free(&b);
	if (!fresh)
		return;
	p->name = xstrdup(c->name);
	p->size = (uint32_t)(c->type.size < 0 ? 0 : c->type.size);
	p->node = c->node;
	type_facts(p, x->a, &c->type);
}

/* Deprecated control @d into the pool; its list's offsets where it is new. */
static void add_dep(struct actx *x, const struct dep *d)
{
	struct sbuf b = { 0 };
	struct pent *p;
	int fresh;

	format_dep(&b, d);
	p = pool_get(x->g, K_DEP, d->cmd, b.s, x->abi, &fresh);
	sb_free(&b);
	if (!fresh)
		return;
	p->name = xstrdup(d->name);
	p->size = (uint32_t)d->type.size;
	p->v2 = d->v2;
	p->tyname = xstrdup(d->type.name);
	p->header = xstrdup(d->type.rec && d->type.rec->header ? d->type.rec->header : "");
	if (d->custom) {
		p->flags = NVABI_DEP_CUSTOM;
		return;
	}
	p->flags = (d->is_count ? NVABI_DEP_COUNT : 0) | (d->in ? NVABI_DEP_IN : 0) |
		   (d->out ? NVABI_DEP_OUT : 0);
	p->max = d->max;
	p->list_off = field_off(d->type.rec, d->list);
	p->count_off = field_off(d->type.rec, d->count);
	p->elem = (unsigned)d->elem.size;
	if (p->list_off == 0xff || p->count_off == 0xff || !p->elem || p->list_off % 8)
		die("%s: deprecated control 0x%08x: list %s or count %s not found in %s",
		    x->a->release, d->cmd, d->list, d->count, d->type.name);
}

/*
 * The embedded lists of one command, from x->a->emb.v[i] on, into the pool
 * as one entry. Return: the index after them.
 */
static size_t add_emb(struct actx *x, size_t i)
{
	const struct abi *a = x->a;
	const struct emb *e0 = a->emb.v[i];
	struct sbuf b = { 0 };
	struct pent *p;
	size_t j;
	int fresh;

	for (j = i; j < a->emb.n && ((struct emb *)a->emb.v[j])->cmd == e0->cmd; j++)
		format_emb(&b, a->emb.v[j]);
	p = pool_get(x->g, K_EMB, e0->cmd, b.s, x->abi, &fresh);
	sb_free(&b);
	if (fresh)
		emb_facts(p, a, a->emb.v + i, j - i);
	return j;
}

static void add_abi(struct gctx *g, struct abi *a, int abi)
{
	struct actx x = { .g = g, .a = a, .abi = abi, .used = xcalloc(a->fdin.n + 1, 1) };
	size_t i;

	for (i = 0; i < a->esc.n; i++)
		add_esc(&x, a->esc.v[i]);
	for (i = 0; i < a->ctrl.n; i++)
		add_ctrl(&x, a->ctrl.v[i]);
	for (i = 0; i < a->cls.n; i++)
		add_class(&x, a->cls.v[i]);
	for (i = 0; i < a->uvm.n; i++)
		add_uvm(&x, a->uvm.v[i]);
	for (i = 0; i < a->dep.n; i++)
		add_dep(&x, a->dep.v[i]);
	for (i = 0; i < a->emb.n;)
		i = add_emb(&x, i);
	for (i = 0; i < a->fdin.n; i++) {
		const struct fd_hit *h = a->fdin.v[i];

		if (!x.used[i])
			die("%s: the driver looks up %s.%s, which is no top-level fd field of an "
			    "entry's payload", a->release, h->type, h->field);
	}
	free(x.used);
}

/* Byte offset of field @name in @l, or 0xff when there is none. */
static unsigned field_off(const struct layout *l, const char *name)
{
	const struct field *f = layout_field(l, name);

	if (!f || f->bitfield)
		return 0xff;
	if (f->off / 8 >= 0xff)
		die("%s.%s: offset does not fit the layout table", l->name, name);
	return (unsigned)(f->off / 8);
}

/* The table entry of the @n embedded lists @ev of one command, by slot. */
static void emb_facts(struct pent *p, const struct abi *a, void *const *ev, size_t n)
{
	const struct emb *e = ev[0];
	size_t k;

	p->name = xstrdup(e->name);
	p->size = (uint32_t)e->type.size;
	p->tyname = xstrdup(e->type.name);
	p->header = xstrdup(e->type.rec && e->type.rec->header ? e->type.rec->header : "");
	if (e->custom)
		return;
	if (n > NVABI_EMB_LISTS)
		die("%s: ctrl 0x%08x: %zu embedded lists, the table holds %d", a->release, e->cmd, n,
		    NVABI_EMB_LISTS);
	/* Offsets below the params' size fit the table's 16 bits. */
	if (e->type.size > 0xffff)
		die("%s: ctrl 0x%08x: params of %lld bytes", a->release, e->cmd, e->type.size);
	p->nlist = (int)n;
	for (k = 0; k < n; k++) {
		const struct emb *x = ev[k];
		struct nvabi_emb_list *l = &p->emb[k];
		const struct field *lf;

		if (x->slot != (int)k || x->custom)
			die("%s: ctrl 0x%08x: embedded list %zu missing", a->release, e->cmd, k);
		l->flags = (x->in ? NVABI_EMB_IN : 0) | (x->out ? NVABI_EMB_OUT : 0) |
			   (x->nomax ? NVABI_EMB_NOMAX : 0) | (x->ifptr ? NVABI_EMB_IFPTR : 0);
		if (x->count) {
			const struct field *cf = layout_field(x->type.rec, x->count);

			if (!cf || (cf->size != 4 && cf->size != 2) || cf->bitfield ||
			    cf->off % (8 * cf->size))
				die("%s: ctrl 0x%08x: count %s of %s is no aligned 2- or 4-byte "
				    "field", a->release, e->cmd, x->count, x->type.name);
			if (cf->size == 2)
				l->flags |= NVABI_EMB_COUNT16;
			l->count_off = (uint16_t)(cf->off / 8);
			if (x->count2 && strcmp(x->count2, x->count))
				die("%s: ctrl 0x%08x: a count of two fields (%s*%s) the table cannot "
				    "hold", a->release, e->cmd, x->count, x->count2);
			if (x->count2)
				l->flags |= NVABI_EMB_SQUARE;
		} else {
			if (x->cnum > 0xffff)
				die("%s: ctrl 0x%08x: constant count %u", a->release, e->cmd, x->cnum);
			l->count_off = (uint16_t)x->cnum;
			l->flags |= NVABI_EMB_CONST;
		}
		if (x->elem.size <= 0 || x->elem.size > 0xffff)
			die("%s: ctrl 0x%08x: element of %lld bytes", a->release, e->cmd,
			    x->elem.size);
		l->elem = (uint16_t)x->elem.size;
		lf = layout_field(x->type.rec, x->list);
		if (!lf || lf->bitfield || lf->size != 8 || lf->off % 64)
			die("%s: ctrl 0x%08x: list %s of %s is no aligned 8-byte pointer",
			    a->release, e->cmd, x->list, x->type.name);
		l->list_off = (uint16_t)(lf->off / 8);
	}
}

/*
 * The byte offset of @path in @l: field names joined by dots, each but the
 * last a record (struct or union) field; 0xff when a name is missing.
 */
static unsigned path_off(const struct layout *l, const char *path)
{
	const char *dot = strchr(path, '.');
	const struct field *f;
	char name[64];
	unsigned rest;

	if (!dot)
		return field_off(l, path);
	if ((size_t)(dot - path) >= sizeof(name))
		die("%s: field path too long", path);
	memcpy(name, path, (size_t)(dot - path));
	name[dot - path] = 0;
	f = layout_field(l, name);
	if (!f || f->bitfield || !f->rec)
		return 0xff;
	rest = path_off(f->rec, dot + 1);
	if (rest == 0xff)
		return 0xff;
	if (f->off / 8 + rest >= 0xff)
		die("%s.%s: offset does not fit the layout table", l->name, path);
	return (unsigned)(f->off / 8) + rest;
}

static void rml_rec(struct sbuf *b, const struct layout *l, const char *const *names)
{
	if (l && l->size >= 0xff)
		die("%s: %lld bytes do not fit the layout table", l->name, l->size);
	sb_printf(b, "%s%lld", b->len ? ", " : "", l ? l->size : 0LL);
	for (; *names; names++)
		sb_printf(b, ", %u", l ? path_off(l, *names) : 0xffU);
}

/*
 * The layouts of the RM payloads the validator reads (NVOS54 for
 * NV_ESC_RM_CONTROL, NVOS21 and NVOS64 for NV_ESC_RM_ALLOC, NVOS32 for
 * NV_ESC_RM_VID_HEAP_CONTROL, NVOS02 with its fd for NV_ESC_RM_ALLOC_MEMORY)
 * in ABI @abi: one initializer of struct nvabi_rmlayout, shared by equal
 * ABIs.
 */
static void add_rmlayout(struct gctx *g, const struct abi *a, int abi)
{
	static const char *const ctl[] = { "cmd", "flags", "params", "paramsSize", "status", NULL };
	static const char *const a21[] = { "hClass", "pAllocParms", "paramsSize", "status", NULL };
	static const char *const a64[] = { "hClass", "pAllocParms", "paramsSize", "flags",
					   "status", NULL };
	static const char *const vh[] = { "function", "data.AllocOsDesc.descriptor",
					  "data.AllocOsDesc.limit", NULL };
	static const char *const am[] = { "params.hClass", "params.pMemory", "params.limit",
					  "params.flags", NULL };
	const struct layout *l54 = NULL, *l21 = NULL, *l64 = NULL, *l32 = NULL, *l02 = NULL;
	struct sbuf b = { 0 };
	size_t i;
	int k;

	for (i = 0; i < a->esc.n; i++) {
		const struct esc *e = a->esc.v[i];

		for (k = 0; k < e->ntypes; k++) {
			const char *n = e->types[k].name ? e->types[k].name : "";

			if (e->nr == 0x2a && !strncmp(n, "NVOS54_PARAMETERS", 17))
				l54 = e->types[k].rec;
			if (e->nr == 0x2b && !strncmp(n, "NVOS21_PARAMETERS", 17))
				l21 = e->types[k].rec;
			if (e->nr == 0x2b && !strncmp(n, "NVOS64_PARAMETERS", 17))
				l64 = e->types[k].rec;
			if (e->nr == 0x4a && !strncmp(n, "NVOS32_PARAMETERS", 17))
				l32 = e->types[k].rec;
			if (e->nr == 0x27 &&
			    !strncmp(n, "nv_ioctl_nvos02_parameters_with_fd", 34))
				l02 = e->types[k].rec;
		}
	}
	/* The validator reads these two escapes' ranges (escape.c): never silently none. */
	for (i = 0; i < a->esc.n; i++) {
		const struct esc *e = a->esc.v[i];

		if ((e->nr == 0x4a && !l32) || (e->nr == 0x27 && !l02))
			die("%s: escape 0x%x has no NVOS32_PARAMETERS or nv_ioctl_nvos02_parameters_with_fd layout",
			    a->release, e->nr);
	}
	rml_rec(&b, l54, ctl);
	rml_rec(&b, l21, a21);
	rml_rec(&b, l64, a64);
	rml_rec(&b, l32, vh);
	rml_rec(&b, l02, am);
	for (i = 0; i < g->rml.n && strcmp(g->rml.v[i], b.s); i++)
		;
	if (i == g->rml.n)
		pv_push(&g->rml, xstrdup(b.s));
	g->abi_rml[abi] = (int)i;
	sb_free(&b);
}

static int pent_cmp(const void *pa, const void *pb)
{
	const struct pent *a = *(void *const *)pa, *b = *(void *const *)pb;

	if (a->key != b->key)
		return a->key < b->key ? -1 : 1;
	if (a->first_abi != b->first_abi)
		return a->first_abi < b->first_abi ? -1 : 1;
	return strcmp(a->ident, b->ident);
}

/* Give every entry its set and fd list, in table order. */
static void finish(struct gctx *g)
{
	int k;
	size_t i, j;

	pv_push(&g->fdpool, (void *)0);	/* fd 0: no fds */
	for (k = 0; k < NK; k++) {
		qsort(g->ents[k].v, g->ents[k].n, sizeof(void *), pent_cmp);
		for (i = 0; i < g->ents[k].n; i++) {
			struct pent *p = g->ents[k].v[i];
			char *m = xcalloc(g->nabi + 1, 1);
			void *sid;
			size_t r;

			for (j = 0; j < (size_t)g->nabi; j++)
				m[j] = p->in[j] ? '1' : '0';
			sid = smap_get(&g->setidx, m);
			if (!sid) {
				pv_push(&g->sets, xstrdup(m));
				sid = (void *)(uintptr_t)g->sets.n;
				smap_put(&g->setidx, m, sid);
			}
			p->set = (int)(uintptr_t)sid - 1;
			free(m);
			if (p->set > 0xffff)
				die("too many ABI sets for a 16-bit index");
			/* the releases that have it: first and last, in version order */
			for (r = 0; r < g->rs.ranges.n; r++) {
				const struct range *rg = g->rs.ranges.v[r];

				if (!p->in[rg->abi_index])
					continue;
				if (!p->first_rel)
					p->first_rel = rg->first;
				p->last_rel = rg->last;
			}
			p->nfd = (int)p->fds.n;
			p->fd = 0;
			if (p->nfd) {
				p->fd = (int)g->fdpool.n;
				for (j = 0; j < p->fds.n; j++)
					pv_push(&g->fdpool, p->fds.v[j]);
			}
			if (p->fd > 0xffff || p->nfd > 0xff)
				die("too many fd fields for the table");
		}
	}
}

static void version_c(struct sbuf *b, const char *v)
{
	struct nvver x;

	ver_parse(v, &x);
	sb_printf(b, "NVABI_VERSION(%lu, %lu, %lu)", x.part[0], x.n > 1 ? x.part[1] : 0,
		  x.n > 2 ? x.part[2] : 0);
}

static void comment(struct sbuf *b, const struct pent *p)
{
	sb_printf(b, "\t/* %s..%s", p->first_rel, p->last_rel);
	if (p->tyname && strcmp(p->tyname, "-"))
		sb_printf(b, " %s%s%s", p->tyname, p->header && *p->header ? " " : "",
			  p->header ? p->header : "");
	sb_add(b, " */\n");
}

/*
 * The names of a table's entries, in its order: NV_ESC_*, the params type of
 * a control (the driver's control tables name nothing else), the class,
 * UVM_*; "" where the sources give none.  A parallel array, so that the
 * entries stay small for the lookups.
 */
static void names_c(struct sbuf *b, const struct gctx *g, int kind, const char *decl)
{
	size_t i;

	sb_printf(b, "\nconst char *const %s = {\n", decl);
	for (i = 0; i < g->ents[kind].n; i++) {
		const struct pent *p = g->ents[kind].v[i];

		sb_printf(b, "\t\"%s\",\n", p->name && strcmp(p->name, "-") ? p->name : "");
	}
	sb_add(b, "};\n");
}

static const char header_note[] =
	"/*\n"
	" * generated by nvabi, do not edit: run 'tools/nvabi/nvabi gen' after\n"
	" * adding a release to abi/releases/ (see abi/README.md).\n"
	" */\n";

static size_t branches_count(const struct gctx *g)
{
	size_t i, n = 0;

	for (i = 0; i < g->rs.releases.n; i++)
		n += !i || branch_of(g->rs.releases.v[i]) != branch_of(g->rs.releases.v[i - 1]);
	return n;
}

/* One entry per branch: its newest release, and whether it has successors. */
static void branches_c(struct sbuf *b, const struct gctx *g)
{
	char *const *rel = (char *const *)g->rs.releases.v;
	size_t i, n = g->rs.releases.n;

	sb_add(b, "};\n\n/* major, newest (index in nvabi_releases[]), successor, rsvd:\n"
		  " * branch_successor() in tools/nvabi/ranges.c */\n"
		  "const struct nvabi_branch nvabi_branches[NVABI_NR_BRANCHES] = {\n");
	for (i = 0; i < n; i++) {
		unsigned long major = branch_of(rel[i]);

		if (i + 1 < n && branch_of(rel[i + 1]) == major)
			continue;
		if (i > 0xffff)
			die("too many releases for nvabi_branch.newest");
		sb_printf(b, "\t{ %lu, %zu, %d, 0 },\t/* %s */\n", major, i,
			  branch_successor(rel, n, major, SUCCESSOR_MIN_MINORS), rel[i]);
	}
}

static char *gen_header(struct gctx *g)
{
	struct sbuf b = { 0 };

	sb_add(&b, "/* SPDX-License-Identifier: GPL-2.0 */\n");
	sb_add(&b, header_note);
	sb_add(&b, "#ifndef _NVABI_TABLES_H\n#define _NVABI_TABLES_H\n\n"
		   "#include \"nvabi_types.h\"\n\n");
	sb_printf(&b, "#define NVABI_NR_RELEASES\t%zu\n", g->rs.releases.n);
	sb_printf(&b, "#define NVABI_NR_RANGES\t\t%zu\n", g->rs.ranges.n);
	sb_printf(&b, "#define NVABI_NR_ABIS\t\t%d\n", g->nabi);
	sb_printf(&b, "#define NVABI_SET_WORDS\t\t%d\n", (g->nabi + 63) / 64);
	sb_printf(&b, "#define NVABI_NR_SETS\t\t%zu\n", g->sets.n);
	sb_printf(&b, "#define NVABI_NR_FDS\t\t%zu\n", g->fdpool.n);
	sb_printf(&b, "#define NVABI_NR_ESCS\t\t%zu\n", g->ents[K_ESC].n);
	sb_printf(&b, "#define NVABI_NR_CTRLS\t\t%zu\n", g->ents[K_CTRL].n);
	sb_printf(&b, "#define NVABI_NR_CLASSES\t%zu\n", g->ents[K_CLASS].n);
	sb_printf(&b, "#define NVABI_NR_UVMS\t\t%zu\n", g->ents[K_UVM].n);
	sb_printf(&b, "#define NVABI_NR_DEPS\t\t%zu\n", g->ents[K_DEP].n);
	sb_printf(&b, "#define NVABI_NR_EMBS\t\t%zu\n", g->ents[K_EMB].n);
	sb_printf(&b, "#define NVABI_NR_RMLAYOUTS\t%zu\n", g->rml.n);
	sb_printf(&b, "#define NVABI_NR_BRANCHES\t%zu\n\n", branches_count(g));
	sb_add(&b,
	       "extern const struct nvabi_range nvabi_ranges[NVABI_NR_RANGES];\n"
	       "extern const struct nvabi_release nvabi_releases[NVABI_NR_RELEASES];\n"
	       "extern const struct nvabi_branch nvabi_branches[NVABI_NR_BRANCHES];\n"
	       "extern const __u64 nvabi_sets[NVABI_NR_SETS][NVABI_SET_WORDS];\n"
	       "extern const struct nvabi_fd nvabi_fds[NVABI_NR_FDS];\n"
	       "extern const struct nvabi_esc nvabi_escs[NVABI_NR_ESCS];\n"
	       "extern const struct nvabi_ctrl nvabi_ctrls[NVABI_NR_CTRLS];\n"
	       "extern const struct nvabi_class nvabi_classes[NVABI_NR_CLASSES];\n"
	       "extern const struct nvabi_uvm nvabi_uvms[NVABI_NR_UVMS];\n"
	       "extern const struct nvabi_dep nvabi_deps[NVABI_NR_DEPS];\n"
	       "extern const struct nvabi_emb nvabi_embs[NVABI_NR_EMBS];\n"
	       "extern const struct nvabi_rmlayout nvabi_rmlayouts[NVABI_NR_RMLAYOUTS];\n"
	       "extern const __u8 nvabi_abi_rmlayout[NVABI_NR_ABIS];\n"
	       "extern const __u8 nvabi_abi_uvm_unknown[NVABI_NR_ABIS];\n"
	       "extern const char *const nvabi_esc_names[NVABI_NR_ESCS];\n"
	       "extern const char *const nvabi_ctrl_names[NVABI_NR_CTRLS];\n"
	       "extern const char *const nvabi_class_names[NVABI_NR_CLASSES];\n"
	       "extern const char *const nvabi_uvm_names[NVABI_NR_UVMS];\n"
	       "extern const char *const nvabi_dep_names[NVABI_NR_DEPS];\n"
	       "extern const char *const nvabi_emb_names[NVABI_NR_EMBS];\n\n"
	       "/* Does entry set @set include ABI number @abi? */\n"
	       "static inline int nvabi_set_has(unsigned int set, unsigned int abi)\n"
	       "{\n"
	       "\treturn abi < NVABI_NR_ABIS &&\n"
	       "\t       ((nvabi_sets[set][abi / 64] >> (abi % 64)) & 1);\n"
	       "}\n\n"
	       "#endif /* _NVABI_TABLES_H */\n");
	return sb_steal(&b);
}

/* The ranges, then the releases, each with the index of its range. */
static void src_releases(struct sbuf *b, const struct gctx *g)
{
	struct pvec relrange = { 0 };
	size_t i, j;

	sb_add(b, "const struct nvabi_range nvabi_ranges[NVABI_NR_RANGES] = {\n");
	for (i = 0; i < g->rs.ranges.n; i++) {
		const struct range *r = g->rs.ranges.v[i];

		sb_add(b, "\t{ ");
		version_c(b, r->first);
		sb_add(b, ", ");
		version_c(b, r->last);
		sb_printf(b, ", \"%s\", \"%s\", %d, %zu, 0 },\n", r->first, r->last,
			  r->abi_index, r->releases.n);
		for (j = 0; j < r->releases.n; j++)
			pv_push(&relrange, (void *)(uintptr_t)i);
	}
	sb_add(b, "};\n\nconst struct nvabi_release nvabi_releases[NVABI_NR_RELEASES] = {\n");
	for (i = 0; i < g->rs.releases.n; i++) {
		sb_add(b, "\t{ ");
		version_c(b, g->rs.releases.v[i]);
		sb_printf(b, ", \"%s\", %u, 0, 0 },\n", (char *)g->rs.releases.v[i],
			  (unsigned)(uintptr_t)relrange.v[i]);
	}
	pv_free(&relrange);
}

/* The ABI sets, each a bitmap of the ABIs an entry belongs to. */
static void src_sets(struct sbuf *b, const struct gctx *g)
{
	int words = (g->nabi + 63) / 64, w;
	size_t i;

	sb_add(b, "};\n\nconst __u64 nvabi_sets[NVABI_NR_SETS][NVABI_SET_WORDS] = {\n");
	for (i = 0; i < g->sets.n; i++) {
		const char *m = g->sets.v[i];

		sb_add(b, "\t{ ");
		for (w = 0; w < words; w++) {
			unsigned long long v = 0;
			int bit;

			for (bit = 0; bit < 64 && w * 64 + bit < g->nabi; bit++)
				if (m[w * 64 + bit] == '1')
					v |= 1ULL << bit;
			sb_printf(b, "%s0x%016llxULL", w ? ", " : "", v);
		}
		sb_printf(b, " },\t/* %zu */\n", i);
	}
}

/* The fd fields of the entries' payloads: offset, size and node. */
static void src_fds(struct sbuf *b, const struct gctx *g)
{
	size_t i;

	sb_add(b, "};\n\nconst struct nvabi_fd nvabi_fds[NVABI_NR_FDS] = {\n"
		  "\t{ 0, 0, 0, 0 },\t/* none */\n");
	for (i = 1; i < g->fdpool.n; i++) {
		uintptr_t v = (uintptr_t)g->fdpool.v[i];

		sb_printf(b, "\t{ %lu, %lu, %s, 0 },\n", (unsigned long)(v >> 16),
			  (unsigned long)(v & 0xff), node_c((int)((v >> 8) & 0xff)));
	}
}

/* The escapes. */
static void src_escs(struct sbuf *b, const struct gctx *g)
{
	size_t i;

	sb_add(b, "};\n\nconst struct nvabi_esc nvabi_escs[NVABI_NR_ESCS] = {\n"
		  "\t/* size, size2, early, early2, set, fd, nr, node, priv, kind, early_kind,\n"
		  "\t * flags, nfd, rsvd8, caps, rsvd16 */\n");
	for (i = 0; i < g->ents[K_ESC].n; i++) {
		const struct pent *p = g->ents[K_ESC].v[i];

		sb_printf(b, "\t{ %u, %u, %u, %u, %d, %d, 0x%02x, %s, %s, %s, %s, ", p->size,
			  p->size2, p->early, p->early2, p->set, p->fd, p->key, node_c(p->node),
			  priv_c(p->priv), kind_c(p->szkind), kind_c(p->early_kind));
		flags_c(b, p->flags);
		sb_printf(b, ", %d, 0, 0x%04x, 0 },", p->nfd, p->caps);
		comment(b, p);
	}
}

/* The RM controls. */
static void src_ctrls(struct sbuf *b, const struct gctx *g)
{
	size_t i;

	sb_add(b, "};\n\nconst struct nvabi_ctrl nvabi_ctrls[NVABI_NR_CTRLS] = {\n"
		  "\t/* cmd, size, set, fd, priv, flags, nfd, access, caps, rsvd16 */\n");
	for (i = 0; i < g->ents[K_CTRL].n; i++) {
		const struct pent *p = g->ents[K_CTRL].v[i];

		sb_printf(b, "\t{ 0x%08x, ", p->key);
		if (p->size == 0xffffffffU)
			sb_add(b, "NVABI_SIZE_UNKNOWN");
		else
			sb_printf(b, "%u", p->size);
		sb_printf(b, ", %d, %d, %s, ", p->set, p->fd, priv_c(p->priv));
		flags_c(b, p->flags);
		sb_printf(b, ", %d, %d, 0x%04x, 0 },", p->nfd, p->access, p->caps);
		comment(b, p);
	}
}

/* The allocation classes. */
static void src_classes(struct sbuf *b, const struct gctx *g)
{
	static const char *const pn[] = { "NVABI_PARAMS_NONE", "NVABI_PARAMS_OPTIONAL",
					  "NVABI_PARAMS_REQUIRED" };
	size_t i;

	sb_add(b, "};\n\nconst struct nvabi_class nvabi_classes[NVABI_NR_CLASSES] = {\n"
		  "\t/* hclass, size, set, fd, priv, flags, nfd, params, caps, rsvd16 */\n");
	for (i = 0; i < g->ents[K_CLASS].n; i++) {
		const struct pent *p = g->ents[K_CLASS].v[i];

		sb_printf(b, "\t{ 0x%08x, ", p->key);
		if (p->size == 0xffffffffU)
			sb_add(b, "NVABI_SIZE_UNKNOWN");
		else
			sb_printf(b, "%u", p->size);
		sb_printf(b, ", %d, %d, %s, ", p->set, p->fd, priv_c(p->priv));
		flags_c(b, p->flags);
		sb_printf(b, ", %d, %s, 0x%04x, 0 },", p->nfd, pn[p->params], p->caps);
		comment(b, p);
	}
}

/* The UVM commands. */
static void src_uvms(struct sbuf *b, const struct gctx *g)
{
	size_t i;

	sb_add(b, "};\n\nconst struct nvabi_uvm nvabi_uvms[NVABI_NR_UVMS] = {\n"
		  "\t/* cmd, size, set, fd, node, flags, nfd, rsvd8, caps, rsvd16 */\n");
	for (i = 0; i < g->ents[K_UVM].n; i++) {
		const struct pent *p = g->ents[K_UVM].v[i];

		sb_printf(b, "\t{ 0x%08x, %u, %d, %d, %s, ", p->key, p->size, p->set, p->fd,
			  node_c(p->node));
		flags_c(b, p->flags);
		sb_printf(b, ", %d, 0, 0x%04x, 0 },", p->nfd, p->caps);
		comment(b, p);
	}
}

/* The deprecated controls: the V2 each becomes, its list's fields. */
static void src_deps(struct sbuf *b, const struct gctx *g)
{
	size_t i;

	sb_add(b, "};\n\nconst struct nvabi_dep nvabi_deps[NVABI_NR_DEPS] = {\n"
		  "\t/* cmd, v2, size, max, set, list_off, count_off, elem, flags, rsvd8, rsvd16 */\n");
	for (i = 0; i < g->ents[K_DEP].n; i++) {
		const struct pent *p = g->ents[K_DEP].v[i];
		struct sbuf f = { 0 };

		if (p->flags & NVABI_DEP_CUSTOM)
			sb_add(&f, "NVABI_DEP_CUSTOM");
		if (p->flags & NVABI_DEP_COUNT)
			sb_printf(&f, "%sNVABI_DEP_COUNT", f.len ? " | " : "");
		if (p->flags & NVABI_DEP_IN)
			sb_printf(&f, "%sNVABI_DEP_IN", f.len ? " | " : "");
		if (p->flags & NVABI_DEP_OUT)
			sb_printf(&f, "%sNVABI_DEP_OUT", f.len ? " | " : "");
		sb_printf(b, "\t{ 0x%08x, 0x%08x, %u, %u, %d, %u, %u, %u, %s, 0, 0 },", p->key, p->v2,
			  p->size, p->max, p->set, p->list_off, p->count_off, p->elem,
			  f.len ? f.s : "0");
		sb_free(&f);
		comment(b, p);
	}
}

/* The controls whose embedded lists RM copies, a slot per list. */
static void src_embs(struct sbuf *b, const struct gctx *g)
{
	size_t i;

	sb_add(b, "};\n\nconst struct nvabi_emb nvabi_embs[NVABI_NR_EMBS] = {\n"
		  "\t/* cmd, size, set, nlist, rsvd, { list_off, count_off, elem, flags } */\n");
	for (i = 0; i < g->ents[K_EMB].n; i++) {
		const struct pent *p = g->ents[K_EMB].v[i];
		int k;

		sb_printf(b, "\t{ 0x%08x, %u, %d, %d, 0, {", p->key, p->size, p->set, p->nlist);
		for (k = 0; k < p->nlist; k++)
			sb_printf(b, "%s { %u, %u, %u, 0x%02x, 0 }", k ? "," : "",
				  p->emb[k].list_off, p->emb[k].count_off, p->emb[k].elem,
				  p->emb[k].flags);
		sb_add(b, p->nlist ? " } }," : " } },");
		comment(b, p);
	}
}

/* The RM payload layouts, then per ABI its layout and its UVM answer. */
static void src_per_abi(struct sbuf *b, const struct gctx *g)
{
	size_t i;

	sb_add(b, "};\n\n/* NVOS54, NVOS21, NVOS64, NVOS32 (src/common/sdk/nvidia/inc/nvos.h),\n"
		  " * nv_ioctl_nvos02_parameters_with_fd: size, then\n"
		  " * the offsets of the fields struct nvabi_rmlayout names */\n"
		  "const struct nvabi_rmlayout nvabi_rmlayouts[NVABI_NR_RMLAYOUTS] = {\n");
	for (i = 0; i < g->rml.n; i++)
		sb_printf(b, "\t{ %s },\n", (char *)g->rml.v[i]);
	sb_add(b, "};\n\nconst __u8 nvabi_abi_rmlayout[NVABI_NR_ABIS] = {");
	for (i = 0; i < (size_t)g->nabi; i++)
		sb_printf(b, "%s%d", !i ? "\n\t" : i % 16 ? ", " : ",\n\t", g->abi_rml[i]);
	sb_add(b, "\n};\n\n/* What UVM answers a command it lacks (uvm_test.c) */\n"
		  "const __u8 nvabi_abi_uvm_unknown[NVABI_NR_ABIS] = {");
	for (i = 0; i < (size_t)g->nabi; i++)
		sb_printf(b, "%s%s", !i ? "\n\t" : i % 4 ? ", " : ",\n\t",
			  g->abi_uvm_unknown[i] == UVM_UNKNOWN_EINVAL ? "NVABI_UVM_UNKNOWN_EINVAL" :
			  g->abi_uvm_unknown[i] == UVM_UNKNOWN_ENOSYS ? "NVABI_UVM_UNKNOWN_ENOSYS" :
			  "NVABI_UVM_UNKNOWN_NONE");
	sb_add(b, "\n};\n");
}

static char *gen_source(struct gctx *g)
{
	struct sbuf b = { 0 };

	sb_add(&b, "// SPDX-License-Identifier: GPL-2.0\n");
	sb_add(&b, header_note);
	sb_printf(&b, "/*\n * NVIDIA driver ioctl ABIs: %zu releases, %d distinct ABIs, %zu ranges.\n"
		      " * Each entry's comment gives the first and last release that has it and\n"
		      " * the header declaring its payload, in NVIDIA's open-gpu-kernel-modules.\n"
		      " */\n#include \"nvabi_tables.h\"\n\n",
		  g->rs.releases.n, g->nabi, g->rs.ranges.n);
	src_releases(&b, g);
	branches_c(&b, g);
	src_sets(&b, g);
	src_fds(&b, g);
	src_escs(&b, g);
	src_ctrls(&b, g);
	src_classes(&b, g);
	src_uvms(&b, g);
	src_deps(&b, g);
	src_embs(&b, g);
	src_per_abi(&b, g);
	names_c(&b, g, K_ESC, "nvabi_esc_names[NVABI_NR_ESCS]");
	names_c(&b, g, K_CTRL, "nvabi_ctrl_names[NVABI_NR_CTRLS]");
	names_c(&b, g, K_CLASS, "nvabi_class_names[NVABI_NR_CLASSES]");
	names_c(&b, g, K_UVM, "nvabi_uvm_names[NVABI_NR_UVMS]");
	names_c(&b, g, K_DEP, "nvabi_dep_names[NVABI_NR_DEPS]");
	names_c(&b, g, K_EMB, "nvabi_emb_names[NVABI_NR_EMBS]");
	return sb_steal(&b);
}

static int write_or_check(const char *path, const char *txt, int check)
{
	char *old;
	int r = 0;

	if (!check) {
		if (write_file_atomic(path, txt, strlen(txt)))
			die("cannot write %s", path);
		return 0;
	}
	old = read_file(path, NULL);
	if (!old || strcmp(old, txt)) {
		fprintf(stderr, "nvabi: %s is out of date; run 'nvabi gen'\n", path);
		r = 1;
	}
	free(old);
	return r;
}

/* Every release must have a version key (NVABI_VERSION()) of its own. */
static void check_version_keys(const struct gctx *g)
{
	size_t k;

	for (k = 1; k < g->rs.releases.n; k++) {
		struct nvver x, y;

		ver_parse(g->rs.releases.v[k - 1], &x);
		ver_parse(g->rs.releases.v[k], &y);
		if (ver_key(&x) == UINT64_MAX || ver_key(&y) == UINT64_MAX)
			die("release %s or %s does not fit a version key",
			    (char *)g->rs.releases.v[k - 1], (char *)g->rs.releases.v[k]);
		if (ver_key(&x) == ver_key(&y))
			die("releases %s and %s have the same version key",
			    (char *)g->rs.releases.v[k - 1], (char *)g->rs.releases.v[k]);
	}
}

/* Every distinct ABI into the pool, as the first release of a range of it has it. */
static void add_abis(struct gctx *g)
{
	size_t k;
	int a;

	for (a = 0; a < g->nabi; a++) {
		struct abi ab;
		const struct range *rg = NULL;

		for (k = 0; k < g->rs.ranges.n && !rg; k++)
			if (((struct range *)g->rs.ranges.v[k])->abi_index == a)
				rg = g->rs.ranges.v[k];
		if (abi_load(g->s, rg->first, &ab))
			die("cannot read release %s", rg->first);
		abi_resolve(g->s, &ab);
		add_abi(g, &ab, a);
		add_rmlayout(g, &ab, a);
		g->abi_uvm_unknown[a] = ab.uvm_unknown;
		abi_free(&ab);
	}
}

/* What gen wrote (or found up to date), and about how much data the tables hold. */
static void gen_report(const struct gctx *g, int check)
{
	size_t bytes = g->rs.ranges.n * 32 + g->rs.releases.n * 24 +
		       g->sets.n * 8 * ((g->nabi + 63) / 64) + g->fdpool.n * 8 +
		       g->ents[K_ESC].n * 20 + g->ents[K_CTRL].n * 20 +
		       g->ents[K_CLASS].n * 20 + g->ents[K_UVM].n * 16 +
		       g->ents[K_DEP].n * 28 + g->ents[K_EMB].n * sizeof(struct nvabi_emb);

	printf("%s %zu ranges, %d ABIs, %zu escapes, %zu controls, %zu classes, "
	       "%zu UVM commands, %zu deprecated controls, %zu controls with embedded "
	       "lists, %zu sets: about %zu KiB of data\n",
	       check ? "up to date:" : "wrote", g->rs.ranges.n, g->nabi, g->ents[K_ESC].n,
	       g->ents[K_CTRL].n, g->ents[K_CLASS].n, g->ents[K_UVM].n, g->ents[K_DEP].n,
	       g->ents[K_EMB].n, g->sets.n,
	       (bytes + 1023) / 1024);
}

int cmd_gen(int argc, char **argv)
{
	struct store s;
	struct gctx g;
	int check = 0, i, r = 0;
	char *dir, *p, *h, *c;
	size_t k;

	for (i = 1; i < argc; i++) {
		if (!strcmp(argv[i], "--check"))
			check = 1;
		else
			die("gen: unknown argument %s", argv[i]);
	}
	memset(&g, 0, sizeof(g));
	store_open(&s, abi_dir_default());
	g.s = &s;
	ranges_compute(&s, &g.rs);
	g.nabi = (int)g.rs.ndistinct;
	if (g.nabi > 0xffff)
		die("too many ABIs");
	g.abi_rml = xcalloc((size_t)g.nabi + 1, sizeof(int));
	g.abi_uvm_unknown = xcalloc((size_t)g.nabi + 1, sizeof(int));
	check_version_keys(&g);
	add_abis(&g);
	finish(&g);
	p = path_join(s.dir, "capabilities.txt");
	if (caps_read(&g, p) | caps_apply(&g, p))
		die("gen: %s has mistakes (above); nothing written", p);
	free(p);
	h = gen_header(&g);
	c = gen_source(&g);
	dir = path_join(s.dir, "generated");
	if (!check && mkdir_p(dir))
		die("cannot create %s", dir);
	p = path_join(dir, "nvabi_tables.h");
	r |= write_or_check(p, h, check);
	free(p);
	p = path_join(dir, "nvabi_tables.c");
	r |= write_or_check(p, c, check);
	free(p);
	if (!r)
		gen_report(&g, check);
	for (k = 0; k < g.rml.n; k++)
		free(g.rml.v[k]);
	pv_free(&g.rml);
	free(g.abi_rml);
	free(g.abi_uvm_unknown);
	free(dir);
	free(h);
	free(c);
	ranges_free(&g.rs);
	store_close(&s);
	return r;
}
