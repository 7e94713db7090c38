// SPDX-License-Identifier: GPL-2.0
/*
 * nvabi: the in-memory ABI of one release, and what its layouts reach.
 */
#include <stdlib.h>
#include <string.h>

#include "nvabi.h"

static const char *const node_names[] = {
	[NODE_NONE] = "-", [NODE_CTL] = "ctl", [NODE_GPU] = "gpu", [NODE_ANY] = "any",
	[NODE_UVM] = "uvm", [NODE_UVM_TOOLS] = "uvm-tools", [NODE_CAP] = "cap", [NODE_IMEX] = "imex",
};

static const char *const priv_names[] = {
	[PRIV_UNKNOWN] = "unknown", [PRIV_USER] = "user", [PRIV_ROOT] = "root",
	[PRIV_KERNEL] = "kernel", [PRIV_INTERNAL] = "internal", [PRIV_NONE] = "none",
};

static const char *const kind_names[] = {
	[ESC_EXACT] = "exact", [ESC_ARRAY] = "array", [ESC_MIN] = "min",
	[ESC_UNCHECKED] = "unchecked",
};

const char *node_str(enum node n)
{
	return n <= NODE_MAX ? node_names[n] : "?";
}

enum node node_parse(const char *s)
{
	int i;

	for (i = 0; i <= NODE_MAX; i++)
		if (!strcmp(s, node_names[i]))
			return (enum node)i;
	return (enum node)-1;
}

const char *priv_str(enum priv p)
{
	return p <= PRIV_NONE ? priv_names[p] : "?";
}

enum priv priv_parse(const char *s)
{
	int i;

	for (i = 0; i <= PRIV_NONE; i++)
		if (!strcmp(s, priv_names[i]))
			return (enum priv)i;
	return (enum priv)-1;
}

const char *kind_str(enum esc_kind k)
{
	return k <= ESC_UNCHECKED ? kind_names[k] : "?";
}

int kind_parse(const char *s)
{
	int i;

	for (i = 0; i <= ESC_UNCHECKED; i++)
		if (!strcmp(s, kind_names[i]))
			return i;
	return -1;
}

static void ptype_free(struct ptype *t)
{
	free(t->name);
}

void fd_hit_free(struct fd_hit *h)
{
	free(h->type);
	free(h->field);
	free(h);
}

void abi_free(struct abi *a)
{
	size_t i;
	int k;

	for (i = 0; i < a->esc.n; i++) {
		struct esc *e = a->esc.v[i];

		for (k = 0; k < e->ntypes; k++)
			ptype_free(&e->types[k]);
		free(e->name);
		free(e->src);
		free(e);
	}
	for (i = 0; i < a->ctrl.n; i++) {
		struct ctrl *c = a->ctrl.v[i];

		ptype_free(&c->type);
		free(c->owners);
		free(c);
	}
	for (i = 0; i < a->cls.n; i++) {
		struct cls *c = a->cls.v[i];

		ptype_free(&c->type);
		free(c->name);
		free(c->internal);
		free(c);
	}
	for (i = 0; i < a->fdin.n; i++)
		fd_hit_free(a->fdin.v[i]);
	pv_free(&a->fdin);
	for (i = 0; i < a->uvm.n; i++) {
		struct uvmc *c = a->uvm.v[i];

		ptype_free(&c->type);
		free(c->name);
		free(c);
	}
	for (i = 0; i < a->dep.n; i++) {
		struct dep *d = a->dep.v[i];

		ptype_free(&d->type);
		ptype_free(&d->elem);
		free(d->name);
		free(d->list);
		free(d->count);
		free(d);
	}
	for (i = 0; i < a->emb.n; i++) {
		struct emb *e = a->emb.v[i];

		ptype_free(&e->type);
		ptype_free(&e->elem);
		free(e->name);
		free(e->list);
		free(e->count);
		free(e->count2);
		free(e);
	}
	pv_free(&a->emb);
	pv_free(&a->esc);
	pv_free(&a->ctrl);
	pv_free(&a->cls);
	pv_free(&a->uvm);
	pv_free(&a->dep);
	smap_free(&a->layouts, NULL);
	free(a->release);
	free(a->source);
	memset(a, 0, sizeof(*a));
}

static int ptype_cmp(const struct ptype *a, const struct ptype *b)
{
	int r = strcmp(a->name ? a->name : "", b->name ? b->name : "");

	if (r)
		return r;
	if (a->size != b->size)
		return a->size < b->size ? -1 : 1;
	return (a->hash > b->hash) - (a->hash < b->hash);
}

static int esc_cmp(const void *pa, const void *pb)
{
	const struct esc *a = *(void *const *)pa, *b = *(void *const *)pb;

	if (a->nr != b->nr)
		return a->nr < b->nr ? -1 : 1;
	return strcmp(a->name, b->name);
}

static int ctrl_cmp(const void *pa, const void *pb)
{
	const struct ctrl *a = *(void *const *)pa, *b = *(void *const *)pb;
	int r;

	if (a->cmd != b->cmd)
		return a->cmd < b->cmd ? -1 : 1;
	if (a->priv != b->priv)
		return a->priv < b->priv ? -1 : 1;
	if (a->access != b->access)
		return a->access < b->access ? -1 : 1;
	if (a->extra != b->extra)
		return a->extra < b->extra ? -1 : 1;
	r = ptype_cmp(&a->type, &b->type);
	return r ? r : strcmp(a->owners, b->owners);
}

static int cls_cmp(const void *pa, const void *pb)
{
	const struct cls *a = *(void *const *)pa, *b = *(void *const *)pb;
	int r;

	if (a->id != b->id)
		return a->id < b->id ? -1 : 1;
	if (a->priv != b->priv)
		return a->priv < b->priv ? -1 : 1;
	if (a->params != b->params)
		return a->params < b->params ? -1 : 1;
	r = ptype_cmp(&a->type, &b->type);
	return r ? r : strcmp(a->internal, b->internal);
}

static int uvm_cmp(const void *pa, const void *pb)
{
	const struct uvmc *a = *(void *const *)pa, *b = *(void *const *)pb;

	if (a->cmd != b->cmd)
		return a->cmd < b->cmd ? -1 : 1;
	if (a->node != b->node)
		return a->node < b->node ? -1 : 1;
	return ptype_cmp(&a->type, &b->type);
}

static int dep_cmp(const void *pa, const void *pb)
{
	const struct dep *a = *(void *const *)pa, *b = *(void *const *)pb;

	return a->cmd < b->cmd ? -1 : a->cmd > b->cmd;
}

static int emb_cmp(const void *pa, const void *pb)
{
	const struct emb *a = *(void *const *)pa, *b = *(void *const *)pb;

	if (a->cmd != b->cmd)
		return a->cmd < b->cmd ? -1 : 1;
	return a->slot - b->slot;
}

static int owners_has(const char *list, const char *o)
{
	size_t n = strlen(o);
	const char *p = list;

	while ((p = strstr(p, o))) {
		if ((p == list || p[-1] == ',') && (p[n] == 0 || p[n] == ','))
			return 1;
		p += n;
	}
	return 0;
}

static char *owners_merge(char *a, const char *b)
{
	struct pvec parts = { 0 };
	char *all = xasprintf("%s,%s", a, b), *tok, *save = NULL;
	struct sbuf out = { 0 };
	size_t i;

	for (tok = strtok_r(all, ",", &save); tok; tok = strtok_r(NULL, ",", &save)) {
		int dup = 0;

		for (i = 0; i < parts.n; i++)
			if (!strcmp(parts.v[i], tok))
				dup = 1;
		if (!dup)
			pv_push(&parts, tok);
	}
	for (i = 1; i < parts.n; i++) {	/* insertion sort: the lists are short */
		size_t j = i;

		while (j > 0 && strcmp(parts.v[j - 1], parts.v[j]) > 0) {
			void *t = parts.v[j];

			parts.v[j] = parts.v[j - 1];
			parts.v[j - 1] = t;
			j--;
		}
	}
	for (i = 0; i < parts.n; i++) {
		if (i)
			sb_addc(&out, ',');
		sb_add(&out, parts.v[i]);
	}
	pv_free(&parts);
	free(all);
	free(a);
	return sb_steal(&out);
}

/* Sort every table by key, and merge control entries that differ only in the
 * class that exports them. */
void abi_sort(struct abi *a)
{
	size_t i, w;

	qsort(a->esc.v, a->esc.n, sizeof(void *), esc_cmp);
	qsort(a->ctrl.v, a->ctrl.n, sizeof(void *), ctrl_cmp);
	for (i = 0, w = 0; i < a->ctrl.n; i++) {
		struct ctrl *c = a->ctrl.v[i];

		if (w) {
			struct ctrl *p = a->ctrl.v[w - 1];

			if (p->cmd == c->cmd && p->priv == c->priv && p->access == c->access &&
			    p->extra == c->extra && !ptype_cmp(&p->type, &c->type)) {
				if (!owners_has(p->owners, c->owners))
					p->owners = owners_merge(p->owners, c->owners);
				free(c->type.name);
				free(c->owners);
				free(c);
				continue;
			}
		}
		a->ctrl.v[w++] = c;
	}
	a->ctrl.n = w;
	qsort(a->cls.v, a->cls.n, sizeof(void *), cls_cmp);
	qsort(a->uvm.v, a->uvm.n, sizeof(void *), uvm_cmp);
	qsort(a->dep.v, a->dep.n, sizeof(void *), dep_cmp);
	qsort(a->emb.v, a->emb.n, sizeof(void *), emb_cmp);
}

/* ---- pointer and fd fields ------------------------------------------------ */

static void reach_walk(const struct layout *l, const char *prefix, long long base, int in_array,
		       struct reach *r, int depth)
{
	size_t i;

	if (!l || depth > 32)
		return;
	for (i = 0; i < l->nfields; i++) {
		const struct field *f = &l->fields[i];
		int arr = strchr(f->type, '[') != NULL;
		char *path = xasprintf("%s%s%s%s", prefix, *prefix ? "." : "", f->name,
				       arr ? "[]" : "");
		long long off = base + (f->bitfield ? 0 : f->off / 8);

		if (f->flags & FLD_PTR)
			pv_push(&r->ptr, xstrdup(path));
		if (f->flags & FLD_FD) {
			pv_push(&r->fd, xstrdup(path));
			if (!in_array && !arr && !l->is_union && f->size > 0 && f->size <= 8) {
				pv_push(&r->fd_off, (void *)(uintptr_t)((off << 8) | f->size));
				pv_push(&r->fd_owner, xasprintf("%s %s", l->name, f->name));
			}
		}
		if (f->rec)
			reach_walk(f->rec, path, off, in_array || arr || l->is_union, r, depth + 1);
		free(path);
	}
}

void reach_collect(const struct ptype *t, struct reach *r)
{
	memset(r, 0, sizeof(*r));
	if (t->rec)
		reach_walk(t->rec, "", 0, 0, r, 0);
}

void reach_free(struct reach *r)
{
	size_t i;

	for (i = 0; i < r->ptr.n; i++)
		free(r->ptr.v[i]);
	for (i = 0; i < r->fd.n; i++)
		free(r->fd.v[i]);
	for (i = 0; i < r->fd_owner.n; i++)
		free(r->fd_owner.v[i]);
	pv_free(&r->fd_owner);
	pv_free(&r->ptr);
	pv_free(&r->fd);
	pv_free(&r->fd_off);
}

const char *uvm_unknown_str(int u)
{
	return u == UVM_UNKNOWN_EINVAL ? "EINVAL" : u == UVM_UNKNOWN_ENOSYS ? "ENOSYS" : "-";
}

int uvm_unknown_parse(const char *s)
{
	if (!strcmp(s, "EINVAL"))
		return UVM_UNKNOWN_EINVAL;
	if (!strcmp(s, "ENOSYS"))
		return UVM_UNKNOWN_ENOSYS;
	return -1;
}
