// SPDX-License-Identifier: GPL-2.0
/*
 * nvabi: what changed between two releases, and a consistency check of abi/.
 *
 * Reports added and removed entries, resized payloads, layouts that changed
 * at the same size (fields moved, retyped, renamed), command ids that were
 * renumbered or reused, privilege / node / size-check changes, pointer or
 * fd fields gained or lost anywhere inside a payload, and fd fields the
 * driver starts or stops looking up (fdin lines).
 */
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>

#include "nvabi.h"

enum cat { C_ESC, C_CTRL, C_CLASS, C_UVM, C_DEP, C_EMB, NCAT };
static const char *const cat_name[NCAT] = { "escape", "control", "class", "uvm",
					    "deprecated control", "embedded lists of control" };

struct ent {
	uint32_t key;
	const char *label;	/* provenance name, for messages */
	int ntypes;
	const struct ptype *types[4];
	char attrs[160];	/* everything else, as text */
	int matched;
};

struct dctx {
	int changes;
	int quiet;
};

static void say(struct dctx *d, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
static void say(struct dctx *d, const char *fmt, ...)
{
	va_list ap;

	d->changes++;
	if (d->quiet)
		return;
	va_start(ap, fmt);
	vprintf(fmt, ap);
	va_end(ap);
	putchar('\n');
}

static void detail(struct dctx *d, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
static void detail(struct dctx *d, const char *fmt, ...)
{
	va_list ap;

	if (d->quiet)
		return;
	fputs("    ", stdout);
	va_start(ap, fmt);
	vprintf(fmt, ap);
	va_end(ap);
	putchar('\n');
}

/* An escape as an entry: its number, node, privilege and size checks. */
static void ent_esc(struct ent *e, const struct esc *x)
{
	int k;

	e->key = x->nr;
	e->label = x->name;
	e->ntypes = x->ntypes;
	for (k = 0; k < x->ntypes; k++)
		e->types[k] = &x->types[k];
	snprintf(e->attrs, sizeof(e->attrs), "node %s, %s, size check %s",
		 node_str(x->node), priv_str(x->priv), kind_str(x->kind));
	if (x->early != ESC_UNCHECKED)
		snprintf(e->attrs + strlen(e->attrs), sizeof(e->attrs) - strlen(e->attrs),
			 ", checked up front (%s %lld%s)", kind_str(x->early),
			 x->early_size[0], x->nearly > 1 ? " or more" : "");
}

/* A control as an entry: its privilege, access right and extra flags. */
static void ent_ctrl(struct ent *e, const struct ctrl *x)
{
	e->key = x->cmd;
	e->label = x->owners;
	e->ntypes = 1;
	e->types[0] = &x->type;
	snprintf(e->attrs, sizeof(e->attrs), "%s%s%s%s", priv_str(x->priv),
		 x->access ? ", access right set" : "",
		 x->extra & CTRL_X_PRIV_IF_NO_RIGHTS ? ", root without rights" : "",
		 x->extra & CTRL_X_TEST_ONLY ? ", test only" : "");
	if (x->access)
		snprintf(e->attrs + strlen(e->attrs), sizeof(e->attrs) - strlen(e->attrs),
			 " 0x%x", x->access);
}

/* A class as an entry: its privilege and whether it takes params. */
static void ent_class(struct ent *e, const struct cls *x)
{
	static const char *const pn[] = { "no params", "optional params",
					  "required params" };

	e->key = x->id;
	e->label = x->name;
	e->ntypes = 1;
	e->types[0] = &x->type;
	snprintf(e->attrs, sizeof(e->attrs), "%s, %s", priv_str(x->priv), pn[x->params]);
}

/* A UVM command as an entry: its node. */
static void ent_uvm(struct ent *e, const struct uvmc *x)
{
	e->key = x->cmd;
	e->label = x->name;
	e->ntypes = 1;
	e->types[0] = &x->type;
	snprintf(e->attrs, sizeof(e->attrs), "node %s", node_str(x->node));
}

/* A deprecated control as an entry: the V2 control it becomes, its list. */
static void ent_dep(struct ent *e, const struct dep *x)
{
	e->key = x->cmd;
	e->label = x->name;
	e->ntypes = 1;
	e->types[0] = &x->type;
	if (x->custom)
		snprintf(e->attrs, sizeof(e->attrs), "becomes 0x%08x, custom", x->v2);
	else
		snprintf(e->attrs, sizeof(e->attrs),
			 "becomes 0x%08x, list %s of %s %s (%lld bytes each), at most "
			 "%u, copied%s%s", x->v2, x->list, x->count,
			 x->is_count ? "elements" : "bytes", x->elem.size, x->max,
			 x->in ? " in" : "", x->out ? " out" : "");
}

/*
 * The embedded lists of one command, from a->emb.v[i] on, as one entry:
 * the params, each list's element, and the lists as text. Return: the
 * index after that command's lists.
 */
static size_t ent_emb(struct ent *e, const struct abi *a, size_t i)
{
	const struct emb *x = a->emb.v[i];
	struct sbuf t = { 0 };
	size_t j;

	e->key = x->cmd;
	e->label = x->name;
	e->ntypes = 1;
	e->types[0] = &x->type;
	for (j = i; j < a->emb.n && ((struct emb *)a->emb.v[j])->cmd == x->cmd; j++) {
		const struct emb *y = a->emb.v[j];

		if (e->ntypes < 4 && strcmp(y->elem.name, "-"))
			e->types[e->ntypes++] = &y->elem;
		if (y->custom) {
			sb_printf(&t, "%scustom", j > i ? "; " : "");
			continue;
		}
		sb_printf(&t, "%s%s, ", j > i ? "; " : "", y->list);
		if (y->count)
			sb_printf(&t, "%s%s", y->count, y->count2 ? " squared" : "");
		else
			sb_printf(&t, "%u", y->cnum);
		sb_printf(&t, " x %lld bytes%s%s%s%s", y->elem.size, y->in ? " in" : "",
			  y->out ? " out" : "", y->ifptr ? " ifptr" : "",
			  y->nomax ? " nomax" : "");
	}
	snprintf(e->attrs, sizeof(e->attrs), "%s", t.s ? t.s : "");
	sb_free(&t);
	return j;
}

static size_t entries(const struct abi *a, enum cat c, struct ent **out)
{
	size_t i, n = 0, m = 0;
	struct ent *v;

	switch (c) {
	case C_ESC: n = a->esc.n; break;
	case C_CTRL: n = a->ctrl.n; break;
	case C_CLASS: n = a->cls.n; break;
	case C_UVM: n = a->uvm.n; break;
	case C_DEP: n = a->dep.n; break;
	case C_EMB: n = a->emb.n; break;	/* at most: one entry per command */
	default: break;
	}
	v = xcalloc(n + 1, sizeof(*v));
	for (i = 0; i < n; i++) {
		struct ent *e = &v[m++];

		switch (c) {
		case C_ESC: ent_esc(e, a->esc.v[i]); break;
		case C_CTRL: ent_ctrl(e, a->ctrl.v[i]); break;
		case C_CLASS: ent_class(e, a->cls.v[i]); break;
		case C_UVM: ent_uvm(e, a->uvm.v[i]); break;
		case C_DEP: ent_dep(e, a->dep.v[i]); break;
		case C_EMB: i = ent_emb(e, a, i) - 1; break;
		default: break;
		}
	}
	*out = v;
	return m;
}

static void types_str(char *buf, size_t n, const struct ent *e)
{
	size_t off = 0;
	int k;

	buf[0] = 0;
	for (k = 0; k < e->ntypes && off < n; k++) {
		const struct ptype *t = e->types[k];

		if (t->size < 0)
			off += snprintf(buf + off, n - off, "%ssize not recorded", k ? ", " : "");
		else
			off += snprintf(buf + off, n - off, "%s%s %lld bytes", k ? ", " : "",
					t->name, t->size);
	}
	if (!e->ntypes)
		snprintf(buf, n, "no size check");
}

static void fmt_off(char *b, size_t n, const struct field *f)
{
	if (f->off % 8 || f->bitfield)
		snprintf(b, n, "%lld.%lld", f->off / 8, f->off % 8);
	else
		snprintf(b, n, "%lld", f->off / 8);
}

/* Field-level differences between two layouts of a record. */
static void layout_diff(struct dctx *d, const char *path, const struct layout *a,
			const struct layout *b, int depth)
{
	size_t i;

	if (!a || !b || a->hash == b->hash || depth > 8)
		return;
	if (strcmp(a->name, b->name))
		detail(d, "%s: type %s -> %s", path, a->name, b->name);
	if (a->size != b->size)
		detail(d, "%s: size %lld -> %lld", path, a->size, b->size);
	if (a->align != b->align)
		detail(d, "%s: alignment %lld -> %lld", path, a->align, b->align);
	if (a->is_union != b->is_union)
		detail(d, "%s: %s -> %s", path, a->is_union ? "union" : "struct",
		       b->is_union ? "union" : "struct");
	for (i = 0; i < a->nfields; i++) {
		const struct field *fa = &a->fields[i], *fb = layout_field(b, fa->name);
		char oa[32], ob[32];

		if (!fb) {
			fmt_off(oa, sizeof(oa), fa);
			detail(d, "%s.%s: removed (was at offset %s, %s)", path, fa->name, oa,
			       fa->type);
			continue;
		}
		fmt_off(oa, sizeof(oa), fa);
		fmt_off(ob, sizeof(ob), fb);
		if (strcmp(oa, ob))
			detail(d, "%s.%s: offset %s -> %s", path, fa->name, oa, ob);
		if (strcmp(fa->type, fb->type))
			detail(d, "%s.%s: type %s -> %s", path, fa->name, fa->type, fb->type);
		if (fa->size != fb->size || fa->bitfield != fb->bitfield)
			detail(d, "%s.%s: size %s%lld -> %s%lld", path, fa->name,
			       fa->bitfield ? ":" : "", fa->size, fb->bitfield ? ":" : "", fb->size);
		if (fa->rec && fb->rec && fa->rec->hash != fb->rec->hash) {
			char *p = xasprintf("%s.%s", path, fa->name);

			layout_diff(d, p, fa->rec, fb->rec, depth + 1);
			free(p);
		}
	}
	for (i = 0; i < b->nfields; i++) {
		const struct field *fb = &b->fields[i];
		char ob[32];

		if (layout_field(a, fb->name))
			continue;
		fmt_off(ob, sizeof(ob), fb);
		detail(d, "%s.%s: added at offset %s (%s)", path, fb->name, ob, fb->type);
	}
}

static int has_path(const struct pvec *v, const char *p)
{
	size_t i;

	for (i = 0; i < v->n; i++)
		if (!strcmp(v->v[i], p))
			return 1;
	return 0;
}

static void reach_diff(struct dctx *d, const char *what, const struct ptype *ta,
		       const struct ptype *tb)
{
	struct reach ra, rb;
	size_t i;

	reach_collect(ta, &ra);
	reach_collect(tb, &rb);
	for (i = 0; i < rb.ptr.n; i++)
		if (!has_path(&ra.ptr, rb.ptr.v[i]))
			say(d, "%s: gained pointer field %s", what, (char *)rb.ptr.v[i]);
	for (i = 0; i < ra.ptr.n; i++)
		if (!has_path(&rb.ptr, ra.ptr.v[i]))
			say(d, "%s: lost pointer field %s", what, (char *)ra.ptr.v[i]);
	for (i = 0; i < rb.fd.n; i++)
		if (!has_path(&ra.fd, rb.fd.v[i]))
			say(d, "%s: gained fd field %s", what, (char *)rb.fd.v[i]);
	for (i = 0; i < ra.fd.n; i++)
		if (!has_path(&rb.fd, ra.fd.v[i]))
			say(d, "%s: lost fd field %s", what, (char *)ra.fd.v[i]);
	reach_free(&ra);
	reach_free(&rb);
}

static const struct ptype *type_named(const struct ent *e, const char *name)
{
	int k;

	for (k = 0; k < e->ntypes; k++)
		if (!strcmp(e->types[k]->name, name))
			return e->types[k];
	return NULL;
}

static void compare_pair(struct dctx *d, enum cat c, const struct ent *a, const struct ent *b,
			 const struct ent *bv, size_t bn)
{
	char what[96], ta[512], tb[512];
	int k;

	snprintf(what, sizeof(what), "%s 0x%0*x", cat_name[c], c == C_ESC ? 2 : 8, a->key);
	if (strcmp(a->attrs, b->attrs))
		say(d, "%s: %s -> %s", what, a->attrs, b->attrs);
	types_str(ta, sizeof(ta), a);
	types_str(tb, sizeof(tb), b);
	if (a->ntypes != b->ntypes) {
		say(d, "%s: payload %s -> %s", what, ta, tb);
		return;
	}
	for (k = 0; k < a->ntypes; k++) {
		const struct ptype *pa = a->types[k], *pb = type_named(b, pa->name);

		if (!pb && a->ntypes == 1)
			pb = b->types[0];
		if (!pb) {
			say(d, "%s: payload %s -> %s", what, ta, tb);
			return;
		}
		if (strcmp(pa->name, pb->name)) {
			size_t j;

			say(d, "%s: reused: payload %s (%lld bytes) -> %s (%lld bytes)", what,
			    pa->name, pa->size, pb->name, pb->size);
			for (j = 0; j < bn; j++)
				if (bv[j].key != b->key && strcmp(pa->name, "-") &&
				    type_named(&bv[j], pa->name))
					detail(d, "%s now at 0x%0*x", pa->name, c == C_ESC ? 2 : 8,
					       bv[j].key);
			reach_diff(d, what, pa, pb);
			continue;
		}
		if (pa->size != pb->size)
			say(d, "%s: resized %s %lld -> %lld bytes", what, pa->name, pa->size,
			    pb->size);
		else if (pa->hash != pb->hash)
			say(d, "%s: %s changed layout at the same size (%lld bytes)", what,
			    pa->name, pa->size);
		if (pa->rec && pb->rec)
			layout_diff(d, pa->name, pa->rec, pb->rec, 0);
		reach_diff(d, what, pa, pb);
	}
}

static void diff_cat(struct dctx *d, enum cat c, const struct abi *A, const struct abi *B)
{
	struct ent *av, *bv;
	size_t an = entries(A, c, &av), bn = entries(B, c, &bv), i, j;
	int w = c == C_ESC ? 2 : 8;

	/* same key: compare (entries are sorted by key; the first variant wins) */
	for (i = 0, j = 0; i < an && j < bn;) {
		if (av[i].key < bv[j].key) {
			i++;
		} else if (av[i].key > bv[j].key) {
			j++;
		} else {
			if (!av[i].matched && !bv[j].matched) {
				compare_pair(d, c, &av[i], &bv[j], bv, bn);
				av[i].matched = bv[j].matched = 1;
			}
			i++;
			j++;
		}
	}
	/* renumbered: one payload type left one key and appeared at another */
	for (i = 0; i < an; i++) {
		const char *tn;

		if (av[i].matched || av[i].ntypes != 1 || !strcmp(av[i].types[0]->name, "-"))
			continue;
		tn = av[i].types[0]->name;
		for (j = 0; j < bn; j++) {
			size_t k;
			int had = 0;

			if (bv[j].key == av[i].key || bv[j].ntypes != 1 ||
			    strcmp(tn, bv[j].types[0]->name))
				continue;
			/* not if the type was already at that key in A */
			for (k = 0; k < an; k++)
				if (av[k].key == bv[j].key && type_named(&av[k], tn))
					had = 1;
			if (had)
				continue;
			say(d, "%s 0x%0*x: renumbered to 0x%0*x (%s)", cat_name[c], w, av[i].key, w,
			    bv[j].key, tn);
			av[i].matched = 1;
			if (!bv[j].matched) {
				bv[j].matched = 1;
				compare_pair(d, c, &av[i], &bv[j], bv, bn);
			}
			break;
		}
	}
	for (i = 0; i < an; i++) {
		char t[512];

		if (av[i].matched)
			continue;
		types_str(t, sizeof(t), &av[i]);
		say(d, "%s 0x%0*x: removed (%s; %s)%s%s", cat_name[c], w, av[i].key, av[i].attrs, t,
		    av[i].label ? " " : "", av[i].label ? av[i].label : "");
	}
	for (j = 0; j < bn; j++) {
		char t[512];
		struct ptype none = { 0 };
		int k;

		if (bv[j].matched)
			continue;
		types_str(t, sizeof(t), &bv[j]);
		say(d, "%s 0x%0*x: added (%s; %s)%s%s", cat_name[c], w, bv[j].key, bv[j].attrs, t,
		    bv[j].label ? " " : "", bv[j].label ? bv[j].label : "");
		for (k = 0; k < bv[j].ntypes; k++) {
			char what[64];

			snprintf(what, sizeof(what), "%s 0x%0*x", cat_name[c], w, bv[j].key);
			none.name = "-";
			reach_diff(d, what, &none, bv[j].types[k]);
		}
	}
	free(av);
	free(bv);
}

static const struct fd_hit *fd_find(const struct abi *a, const struct fd_hit *h)
{
	size_t i;

	for (i = 0; i < a->fdin.n; i++) {
		const struct fd_hit *x = a->fdin.v[i];

		if (!strcmp(x->type, h->type) && !strcmp(x->field, h->field))
			return x;
	}
	return NULL;
}

/* The fd fields the driver looks up (fdin lines): gained, lost, other node. */
static void diff_fdin(struct dctx *d, const struct abi *A, const struct abi *B)
{
	size_t i;

	for (i = 0; i < A->fdin.n; i++) {
		const struct fd_hit *a = A->fdin.v[i], *b = fd_find(B, a);

		if (!b)
			say(d, "fd lookup %s.%s (as %s): no longer looked up", a->type, a->field,
			    node_str(a->node));
		else if (a->node != b->node)
			say(d, "fd lookup %s.%s: as %s -> as %s", a->type, a->field,
			    node_str(a->node), node_str(b->node));
	}
	for (i = 0; i < B->fdin.n; i++) {
		const struct fd_hit *b = B->fdin.v[i];

		if (!fd_find(A, b))
			say(d, "fd lookup %s.%s (as %s): now looked up", b->type, b->field,
			    node_str(b->node));
	}
}

static int diff_abis(struct abi *A, struct abi *B, int quiet)
{
	struct dctx d = { .quiet = quiet };
	int c;

	for (c = 0; c < NCAT; c++)
		diff_cat(&d, (enum cat)c, A, B);
	diff_fdin(&d, A, B);
	if (A->uvm_unknown != B->uvm_unknown)
		say(&d, "unknown UVM commands answered %s, now %s",
		    uvm_unknown_str(A->uvm_unknown), uvm_unknown_str(B->uvm_unknown));
	return d.changes;
}

int cmd_diff(int argc, char **argv)
{
	const char *a = NULL, *b = NULL;
	int i;

	for (i = 1; i < argc; i++) {
		if (argv[i][0] == '-' && argv[i][1])
			die("diff: unknown option %s", argv[i]);
		if (!a)
			a = argv[i];
		else if (!b)
			b = argv[i];
		else
			die("diff: give two releases");
	}
	if (!a || !b)
		die("diff: give two releases (versions in abi/releases, or .abi files)");
	return diff_print(abi_dir_default(), a, b) ? 1 : 0;
}

/* What changed from release @a to @b, printed; the number of changes. */
int diff_print(const char *abidir, const char *a, const char *b)
{
	struct store s;
	struct abi A, B;
	int n;

	store_open(&s, abidir);
	if (abi_load(&s, a, &A))
		die("no release %s in %s (or it does not parse)", a, s.dir);
	if (abi_load(&s, b, &B))
		die("no release %s in %s (or it does not parse)", b, s.dir);
	abi_resolve(&s, &A);
	abi_resolve(&s, &B);
	printf("--- %s\n+++ %s\n", A.release, B.release);
	n = diff_abis(&A, &B, 0);
	if (n)
		printf("%d change%s\n", n, n == 1 ? "" : "s");
	else
		printf("no changes\n");
	abi_free(&A);
	abi_free(&B);
	store_close(&s);
	return n;
}

/*
 * Payloads holding an fd that the driver looks up in every release that has
 * them: a release with one of them and no fdin line for it lost its fd scan
 * (a file the scan reads was missing), and the module would pass the number
 * to the driver unchecked.
 */
static const char *const fd_needed[] = {
	"nv_ioctl_nvos02_parameters_with_fd",		/* NV_ESC_RM_ALLOC_MEMORY */
	"nv_ioctl_nvos33_parameters_with_fd",		/* NV_ESC_RM_MAP_MEMORY */
	"nv_ioctl_register_fd",				/* NV_ESC_REGISTER_FD */
	"NV0000_CTRL_OS_UNIX_IMPORT_OBJECT_FROM_FD_PARAMS",
	"NV0000_CTRL_OS_UNIX_EXPORT_OBJECT_TO_FD_PARAMS",
	"NV00FD_CTRL_ATTACH_GPU_PARAMS",
	"NV00E0_CTRL_EXPORT_MEM_PARAMS",
	"UVM_MM_INITIALIZE_PARAMS",
	"UVM_TOOLS_INIT_EVENT_TRACKER_PARAMS",
	/* capability nodes of nvidia-caps (osRmCapAcquire()) */
	"NVC637_ALLOCATION_PARAMETERS",			/* AMPERE_SMC_PARTITION_REF */
	"NVC638_ALLOCATION_PARAMETERS",			/* AMPERE_SMC_EXEC_PARTITION_REF */
	"NVC639_ALLOCATION_PARAMETERS",			/* AMPERE_SMC_CONFIG_SESSION */
	"NVC640_ALLOCATION_PARAMETERS",			/* AMPERE_SMC_MONITOR_SESSION */
	"NV000F_ALLOCATION_PARAMETERS",			/* FABRIC_MANAGER_SESSION */
	"NV00F1_ALLOCATION_PARAMETERS",			/* NV_IMEX_SESSION */
	/*
	 * Not NV0000_CTRL_CLIENT_SUBSCRIBE_TO_IMEX_CHANNEL_PARAMS: 550.40.07
	 * has the control but answers it without looking the fd up.
	 */
	NULL,
};

static int payload_named(const struct abi *a, const char *name)
{
	const struct pvec *v[] = { &a->esc, &a->ctrl, &a->cls, &a->uvm };
	size_t i, k;
	int t;

	for (k = 0; k < 4; k++)
		for (i = 0; i < v[k]->n; i++) {
			const struct ptype *ty = k == 0 ? ((struct esc *)v[k]->v[i])->types :
				k == 1 ? &((struct ctrl *)v[k]->v[i])->type :
				k == 2 ? &((struct cls *)v[k]->v[i])->type :
				&((struct uvmc *)v[k]->v[i])->type;
			int n = k == 0 ? ((struct esc *)v[k]->v[i])->ntypes : 1;

			for (t = 0; t < n; t++)
				if (ty[t].name && !strcmp(ty[t].name, name))
					return 1;
		}
	return 0;
}

/* 0, or 1 after saying which fd lookups release @a lacks. */
static int check_fdin(const struct abi *a)
{
	int i, bad = 0;
	size_t k;

	for (i = 0; fd_needed[i]; i++) {
		int found = 0;

		if (!payload_named(a, fd_needed[i]))
			continue;
		for (k = 0; k < a->fdin.n; k++)
			found |= !strcmp(((struct fd_hit *)a->fdin.v[k])->type, fd_needed[i]);
		if (!found) {
			fprintf(stderr, "nvabi: release %s has %s but no fd lookup (fdin line) "
				"for it: its fd scan did not run on the driver's files\n",
				a->release, fd_needed[i]);
			bad = 1;
		}
	}
	return bad;
}

/* Verify abi/: every layout hash, every release resolvable, its fd
 * lookups present, ranges and generated tables up to date. */
int cmd_check(int argc, char **argv)
{
	struct store s;
	struct pvec rel = { 0 };
	size_t i;
	int r = 0;
	char *rargv[] = { "ranges", "--check", NULL }, *gargv[] = { "gen", "--check", NULL };

	(void)argc;
	(void)argv;
	store_open(&s, abi_dir_default());	/* checks every layout hash */
	store_releases(&s, &rel);
	for (i = 0; i < rel.n; i++) {
		struct abi a;
		char *txt, *again;

		if (abi_load(&s, rel.v[i], &a))
			die("release %s does not parse", (char *)rel.v[i]);
		abi_resolve(&s, &a);
		/* the file must be in canonical form */
		{
			char *p = release_path(&s, rel.v[i]);

			txt = read_file(p, NULL);
			free(p);
		}
		again = abi_format(&a);
		if (!txt || strcmp(txt, again)) {
			fprintf(stderr, "nvabi: release %s is not in canonical form\n",
				(char *)rel.v[i]);
			r = 1;
		}
		r |= check_fdin(&a);
		free(txt);
		free(again);
		abi_free(&a);
		free(rel.v[i]);
	}
	printf("%zu releases, %zu layouts: hashes and references check out\n", rel.n,
	       s.layouts.n);
	pv_free(&rel);
	store_close(&s);
	if (cmd_ranges(2, rargv))
		r = 1;
	if (cmd_gen(2, gargv))
		r = 1;
	return r;
}
