// SPDX-License-Identifier: GPL-2.0
/*
 * nvabi replay: what nvmediate would have done with each release before it
 * was known.
 *
 * For every release R in version order, only the releases before it are
 * known. R gets the tier those would give it (interpolated strictly inside a
 * range of them, successor by branch_successor(), else outside), and for a
 * served tier the release P whose ABI serves it. P's ABI is then compared
 * with R's, call by call, as the default profile (compute, utility and base,
 * docs/policy.md) decides:
 *
 *   same            no call differs;
 *   refused-only    only calls the default profile refuses differ;
 *   default-safe    default-profile calls differ, but every call P's ABI
 *                   forwards R's driver reads as P's ABI says, or refuses;
 *   default-unsafe  P's ABI forwards a default-profile call that R's driver
 *                   reads otherwise: R lacks the call, demands more privilege
 *                   or another node, or takes a size P accepts with another
 *                   layout, other fd lookups, another embedded list or
 *                   deprecated conversion.
 *
 * An outside release that has an earlier release of its branch is compared
 * with the newest of them all the same ("would be"), which is what choosing
 * the rule's constant needs.
 */
#include <stdlib.h>
#include <string.h>

#include "nvabi.h"

enum { D_SAME, D_REFUSED, D_SAFE, D_UNSAFE };
static const char *const class_name[] = { "same", "refused-only", "default-safe",
					  "default-unsafe" };

enum { F_ESC, F_CTRL, F_CLASS, F_UVM, F_DEP, NF };
static const char *const fam_word[NF] = { "esc", "ctrl", "alloc", "uvm", "dep" };

struct rctx {
	struct store s;
	struct pvec rel;	/* char *, by version */
	struct abi *abi;	/* per release, resolved */
	char **ident;		/* per release: identity text */
	struct smap dflt;	/* "fam key" of the calls the default profile admits */
	int min_minors;
};

/* One call's difference: "ctrl 0x20800102 layout". */
struct rdiff {
	int cls;
	char text[64];
};

struct rrow {
	const char *version, *tier, *served;
	int cls;		/* D_*, or -1 when nothing serves it */
	int would;		/* an outside release: the class as successor, or -1 */
	const char *would_as;
	struct pvec diffs;	/* struct rdiff */
};

/* ---- the default profile ------------------------------------------------ */

/*
 * The calls abi/capabilities.txt gives compute, utility or base: those the
 * default profile (caps "compute utility", kmod/policy.c) admits.
 */
static void read_default(struct rctx *x)
{
	char *p = path_join(x->s.dir, "capabilities.txt");
	char *txt = read_file(p, NULL), *line, *save = NULL;

	if (!txt)
		die("cannot read %s", p);
	for (line = strtok_r(txt, "\n", &save); line; line = strtok_r(NULL, "\n", &save)) {
		char fam[16], num[32], caps[256], key[48], *c, *cs = NULL;
		unsigned long nr;
		int yes = 0;

		if (line[0] == '#' || sscanf(line, "%15s %31s %255s", fam, num, caps) != 3)
			continue;
		nr = strtoul(num, NULL, 16);
		for (c = strtok_r(caps, ",", &cs); c; c = strtok_r(NULL, ",", &cs))
			yes |= !strcmp(c, "compute") || !strcmp(c, "utility") || !strcmp(c, "base");
		snprintf(key, sizeof(key), "%s %08lx", fam, nr);
		if (yes)
			smap_put(&x->dflt, key, (void *)1);
	}
	free(txt);
	free(p);
}

static int is_default(const struct rctx *x, int fam, uint32_t key)
{
	char k[48];

	snprintf(k, sizeof(k), "%s %08x", fam_word[fam], key);
	return smap_get(&x->dflt, k) != NULL;
}

/* ---- one call in two ABIs ----------------------------------------------- */

static void rec_names(const struct layout *l, struct pvec *out, int depth)
{
	size_t i;

	if (!l || depth > 16)
		return;
	for (i = 0; i < out->n; i++)
		if (!strcmp(out->v[i], l->name))
			return;
	pv_push(out, l->name);
	for (i = 0; i < l->nfields; i++)
		rec_names(l->fields[i].rec, out, depth + 1);
}

/* The fdin lines of @a that name a record of payload @t, as text. */
static char *fd_text(const struct abi *a, const struct ptype *t)
{
	struct pvec names = { 0 };
	struct sbuf b = { 0 };
	size_t i, k;

	rec_names(t->rec, &names, 0);
	for (i = 0; i < a->fdin.n; i++) {
		const struct fd_hit *h = a->fdin.v[i];

		for (k = 0; k < names.n; k++)
			if (!strcmp(names.v[k], h->type))
				sb_printf(&b, "%s.%s:%s ", h->type, h->field, node_str(h->node));
	}
	pv_free(&names);
	sb_add(&b, "");
	return sb_steal(&b);
}

static const struct ptype no_payload = { .name = "-", .size = 0 };

/* The type a payload of @s bytes is read as by escape @e, NULL: refused. */
static const struct ptype *esc_takes(const struct esc *e, long long s)
{
	if (e->early == ESC_EXACT && s != e->early_size[0] &&
	    !(e->nearly > 1 && s == e->early_size[1]))
		return NULL;
	if (e->early == ESC_ARRAY && (s <= 0 || s % e->early_size[0]))
		return NULL;
	if (!e->ntypes)
		return e->kind == ESC_UNCHECKED || !s ? &no_payload : NULL;
	switch (e->kind) {
	case ESC_EXACT:
		for (int k = 0; k < e->ntypes; k++)
			if (e->types[k].size == s)
				return &e->types[k];
		return NULL;
	case ESC_ARRAY:
		return s > 0 && e->types[0].size > 0 && !(s % e->types[0].size) ?
		       &e->types[0] : NULL;
	case ESC_MIN:
		return s >= e->types[0].size ? &e->types[0] : NULL;
	default:
		return &e->types[0];
	}
}

/* A call as the module sees it in one ABI: its gate and what it takes. */
struct rcall {
	const void *ent;	/* NULL: the ABI lacks it */
	enum priv priv;
	unsigned extra;		/* access right, CTRL_X_* */
	unsigned nodes;		/* 1 << NODE_*; 0: any node of its family */
	const struct esc *esc;	/* escapes: sizes from esc_takes() */
	const struct ptype *type;	/* others: one size ... */
	int empty_ok;		/* ... or none (optional class params) */
	char *extra_text;	/* embedded lists, deprecated conversion */
};

static unsigned node_bits(enum node n)
{
	return n == NODE_ANY ? (1u << NODE_CTL) | (1u << NODE_GPU) : 1u << n;
}

static const struct ptype *call_takes(const struct rcall *c, long long s)
{
	if (c->esc)
		return esc_takes(c->esc, s);
	if (c->type->size < 0)
		return NULL;
	if (s == c->type->size)
		return c->type;
	return c->empty_ok && !s ? &no_payload : NULL;
}

static int priv_rank(enum priv p)
{
	return p == PRIV_USER || p == PRIV_UNKNOWN ? 0 : p == PRIV_ROOT ? 1 : 2;
}

static int same_type(const struct ptype *a, const struct ptype *b)
{
	return a->size == b->size && a->hash == b->hash && !strcmp(a->name, b->name);
}

/*
 * How a call that differs between P and R counts: D_UNSAFE with the reason
 * in @why when P's ABI forwards something R's driver reads otherwise.
 */
static int judge(const struct abi *P, const struct abi *R, const struct rcall *p,
		 const struct rcall *r, const char **why)
{
	long long sizes[24];
	int n = 0, i;

	*why = "";
	if (!p->ent || priv_rank(p->priv) == 2)
		return D_SAFE;		/* P refuses it */
	if (!r->ent)
		return *why = "lacking", D_UNSAFE;
	if (priv_rank(r->priv) > priv_rank(p->priv) || (r->extra & ~p->extra))
		return *why = "privilege", D_UNSAFE;
	if (p->nodes & ~r->nodes)
		return *why = "node", D_UNSAFE;
	if (strcmp(p->extra_text, r->extra_text))
		return *why = "lists", D_UNSAFE;
	sizes[n++] = 0;
	for (i = 0; p->esc && i < p->esc->ntypes; i++) {
		sizes[n++] = p->esc->types[i].size;
		sizes[n++] = 2 * p->esc->types[i].size;
	}
	for (i = 0; r->esc && i < r->esc->ntypes; i++) {
		sizes[n++] = r->esc->types[i].size;
		sizes[n++] = r->esc->types[i].size + 1;
	}
	if (!p->esc)
		sizes[n++] = p->type->size;
	for (i = 0; i < n; i++) {
		const struct ptype *tp = call_takes(p, sizes[i]), *tr;
		char *fp, *fr;
		int differ;

		if (!tp || !(tr = call_takes(r, sizes[i])))
			continue;	/* P refuses it, or R's driver does */
		if (!same_type(tp, tr))
			return *why = "layout", D_UNSAFE;
		fp = fd_text(P, tp);
		fr = fd_text(R, tr);
		differ = strcmp(fp, fr);
		free(fp);
		free(fr);
		if (differ)
			return *why = "fd lookups", D_UNSAFE;
	}
	return D_SAFE;
}

static uint32_t ent_key(int fam, const void *e)
{
	switch (fam) {
	case F_ESC: return ((const struct esc *)e)->nr;
	case F_CTRL: return ((const struct ctrl *)e)->cmd;
	case F_CLASS: return ((const struct cls *)e)->id;
	case F_UVM: return ((const struct uvmc *)e)->cmd;
	default: return ((const struct dep *)e)->cmd;
	}
}

static const struct pvec *fam_vec(const struct abi *a, int fam)
{
	const struct pvec *v[NF] = { &a->esc, &a->ctrl, &a->cls, &a->uvm, &a->dep };

	return v[fam];
}

static const void *find_ent(const struct abi *a, int fam, uint32_t key)
{
	const struct pvec *v = fam_vec(a, fam);
	size_t lo = 0, hi = v->n;

	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;

		if (ent_key(fam, v->v[mid]) < key)
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo < v->n && ent_key(fam, v->v[lo]) == key ? v->v[lo] : NULL;
}

/* The embedded lists of control @cmd, without provenance. */
static char *emb_text(const struct abi *a, uint32_t cmd)
{
	struct sbuf b = { 0 };
	size_t i;

	for (i = 0; i < a->emb.n; i++)
		if (((struct emb *)a->emb.v[i])->cmd == cmd)
			format_emb(&b, a->emb.v[i]);
	sb_add(&b, "");
	return abi_identity(b.s);
}

/* Call @key of family @fam in @a, and its identity (NULL when lacking). */
static char *call_of(const struct abi *a, int fam, uint32_t key, struct rcall *c)
{
	struct sbuf b = { 0 };
	char *id, *fd;

	memset(c, 0, sizeof(*c));
	c->ent = find_ent(a, fam, key);
	if (!c->ent) {
		c->extra_text = xstrdup("");
		return NULL;
	}
	switch (fam) {
	case F_ESC: {
		const struct esc *e = c->ent;

		c->esc = e, c->priv = e->priv, c->nodes = node_bits(e->node);
		format_esc(&b, e);
		break;
	}
	case F_CTRL: {
		const struct ctrl *e = c->ent;

		c->type = &e->type, c->priv = e->priv, c->extra = e->extra | e->access << 8;
		format_ctrl(&b, e);
		break;
	}
	case F_CLASS: {
		const struct cls *e = c->ent;

		c->type = &e->type, c->priv = e->priv, c->empty_ok = e->params < 2;
		format_cls(&b, e);
		break;
	}
	case F_UVM: {
		const struct uvmc *e = c->ent;

		c->type = &e->type, c->priv = PRIV_USER, c->nodes = node_bits(e->node);
		format_uvm(&b, e);
		break;
	}
	default: {
		const struct dep *e = c->ent;

		c->type = &e->type, c->priv = PRIV_USER;
		format_dep(&b, e);
		break;
	}
	}
	c->extra_text = fam == F_CTRL ? emb_text(a, key) : fam == F_DEP ? abi_identity(b.s) :
			xstrdup("");
	id = abi_identity(b.s);
	fd = fd_text(a, c->esc ? &c->esc->types[0] : c->type);
	sb_free(&b);
	sb_printf(&b, "%s|%s|%s", id, fd, c->extra_text);
	free(id);
	free(fd);
	return sb_steal(&b);
}

static int cmp_u32(const void *a, const void *b)
{
	uint32_t x = *(const uint32_t *)a, y = *(const uint32_t *)b;

	return (x > y) - (x < y);
}

static void add_diff(struct rrow *row, int cls, int fam, uint32_t key, const char *why)
{
	struct rdiff *d = xcalloc(1, sizeof(*d));

	d->cls = cls;
	snprintf(d->text, sizeof(d->text), "%s 0x%0*x%s%s", fam_word[fam], fam == F_ESC ? 2 : 8,
		 key, *why ? " " : "", why);
	pv_push(&row->diffs, d);
	if (cls > row->cls)
		row->cls = cls;
}

/* Every call of one family in P or R: how each that differs counts. */
static void compare_fam(const struct rctx *x, const struct abi *P, const struct abi *R,
			int fam, struct rrow *row)
{
	const struct pvec *pv = fam_vec(P, fam), *rv = fam_vec(R, fam);
	uint32_t *keys = xcalloc(pv->n + rv->n + 1, sizeof(*keys));
	size_t n = 0, i;

	for (i = 0; i < pv->n; i++)
		keys[n++] = ent_key(fam, pv->v[i]);
	for (i = 0; i < rv->n; i++)
		keys[n++] = ent_key(fam, rv->v[i]);
	qsort(keys, n, sizeof(*keys), cmp_u32);
	for (i = 0; i < n; i++) {
		struct rcall p, r;
		char *ip, *ir;
		const char *why = "";
		int dflt, cls;

		if (i && keys[i] == keys[i - 1])
			continue;
		ip = call_of(P, fam, keys[i], &p);
		ir = call_of(R, fam, keys[i], &r);
		if (ip && ir && !strcmp(ip, ir))
			goto next;
		if (fam == F_DEP) {
			const struct dep *d = p.ent ? p.ent : r.ent;

			dflt = is_default(x, F_CTRL, d->v2);
		} else {
			dflt = is_default(x, fam, keys[i]);
		}
		cls = dflt ? judge(P, R, &p, &r, &why) : D_REFUSED;
		if (cls != D_UNSAFE)
			why = !p.ent ? "new" : !r.ent ? "gone" : "changed";
		add_diff(row, cls, fam, keys[i], why);
next:
		free(ip);
		free(ir);
		free(p.extra_text);
		free(r.extra_text);
	}
	free(keys);
}

static void compare_abis(const struct rctx *x, const struct abi *P, const struct abi *R,
			 struct rrow *row)
{
	int fam;

	row->cls = D_SAME;
	for (fam = 0; fam < NF; fam++)
		compare_fam(x, P, R, fam, row);
	if (P->uvm_unknown != R->uvm_unknown) {
		/* the answer nvmediate gives to UVM commands it refuses */
		struct rdiff *d = xcalloc(1, sizeof(*d));

		d->cls = D_REFUSED;
		snprintf(d->text, sizeof(d->text), "uvm-unknown %s", uvm_unknown_str(R->uvm_unknown));
		pv_push(&row->diffs, d);
		if (row->cls < D_REFUSED)
			row->cls = D_REFUSED;
	}
}

/*
 * The tier of release @i with only releases [0, i) known: the index of the
 * release whose ABI serves it in *@as, -1 when none does.
 */
static const char *replay_tier(const struct rctx *x, size_t i, int min_minors, long *as)
{
	unsigned long major = branch_of(x->rel.v[i]);
	size_t j, first = 0;

	*as = -1;
	for (j = 1; j <= i; j++) {
		/* a run [first, j) of equal ABIs ends at j (or at i) */
		if (j < i && !strcmp(x->ident[j], x->ident[first]))
			continue;
		if (ver_cmp_str(x->rel.v[first], x->rel.v[i]) < 0 &&
		    ver_cmp_str(x->rel.v[i], x->rel.v[j - 1]) < 0)
			return *as = (long)first, "interpolated";
		first = j;
	}
	for (j = i; j-- > 0;)
		if (branch_of(x->rel.v[j]) == major) {
			*as = (long)j;
			break;
		}
	if (*as >= 0 && branch_successor((char *const *)x->rel.v, i, major, min_minors))
		return "successor";
	return "outside";
}

static int diff_cmp(const void *a, const void *b)
{
	const struct rdiff *x = *(struct rdiff *const *)a, *y = *(struct rdiff *const *)b;

	return x->cls != y->cls ? y->cls - x->cls : strcmp(x->text, y->text);
}

/* The calls that differ, worst first, at most @max of them. */
static void diffs_str(struct sbuf *b, struct rrow *row, size_t max)
{
	size_t i;

	qsort(row->diffs.v, row->diffs.n, sizeof(void *), diff_cmp);
	for (i = 0; i < row->diffs.n && i < max; i++)
		sb_printf(b, "%s%s", i ? ", " : "", ((struct rdiff *)row->diffs.v[i])->text);
	if (row->diffs.n > max)
		sb_printf(b, ", +%zu more", row->diffs.n - max);
	if (!row->diffs.n)
		sb_add(b, "-");
}

static void print_row(struct rrow *row, int md)
{
	struct sbuf b = { 0 }, c = { 0 };

	if (row->cls >= 0)
		sb_add(&c, class_name[row->cls]);
	else if (row->would >= 0)
		sb_printf(&c, "outside (as %s: %s)", row->would_as, class_name[row->would]);
	else
		sb_add(&c, "outside");
	diffs_str(&b, row, md ? 6 : 4);
	if (md)
		printf("| %s | %s | %s | %s | %s |\n", row->version, row->tier,
		       row->served ? row->served : "-", c.s, b.s);
	else
		printf("%-11s %-12s %-11s %-38s %s\n", row->version, row->tier,
		       row->served ? row->served : "-", c.s, b.s);
	sb_free(&b);
	sb_free(&c);
}

static void load_all(struct rctx *x)
{
	size_t i;

	store_releases(&x->s, &x->rel);
	x->abi = xcalloc(x->rel.n + 1, sizeof(*x->abi));
	x->ident = xcalloc(x->rel.n + 1, sizeof(*x->ident));
	for (i = 0; i < x->rel.n; i++) {
		char *p = release_path(&x->s, x->rel.v[i]), *txt = read_file(p, NULL);

		if (!txt || abi_load(&x->s, x->rel.v[i], &x->abi[i]))
			die("cannot read release %s", (char *)x->rel.v[i]);
		abi_resolve(&x->s, &x->abi[i]);
		x->ident[i] = abi_identity(txt);
		free(txt);
		free(p);
	}
	read_default(x);
}

/* Counts per class of the releases each constant would serve as successor. */
static void print_constants(const struct rctx *x, struct rrow *rows, int md)
{
	int k, c;
	size_t i;

	printf(md ? "\n| minimum distinct minors | successor: same | refused-only | default-safe "
		    "| default-unsafe | outside |\n|---|---|---|---|---|---|\n" :
		    "\nminimum distinct minors: successor same / refused-only / default-safe / "
		    "default-unsafe, outside\n");
	for (k = 1; k <= 6; k++) {
		int n[4] = { 0 }, out = 0;

		for (i = 0; i < x->rel.n; i++) {
			long as;
			const char *t = replay_tier(x, i, k, &as);

			if (!strcmp(t, "outside"))
				out++;
			else
				n[rows[i].cls >= 0 ? rows[i].cls : rows[i].would]++;
		}
		printf(md ? "| %d%s |" : "%d%s:", k, k == SUCCESSOR_MIN_MINORS ? " (the rule)" : "");
		for (c = 0; c < 4; c++)
			printf(md ? " %d |" : " %d", n[c]);
		printf(md ? " %d |\n" : ", %d\n", out);
	}
}

static const char replay_usage[] =
"usage: nvabi replay [--abi DIR] [--markdown] [--min-minors K]\n"
"\n"
"For every release R of abi/releases, in version order, with only the\n"
"releases before it known: the tier R would have had (interpolated,\n"
"successor, outside), the release whose ABI would have served it, and how\n"
"that ABI differs from R's for the calls of the default profile (compute,\n"
"utility, base): same, refused-only, default-safe or default-unsafe (see\n"
"docs/abi-replay.md). An outside release with an earlier release of its\n"
"branch shows what serving it as that one's successor would have been.\n"
"Then the counts per class for each value of the successor rule's constant.\n"
"\n"
"  --markdown      the tables in Markdown (docs/abi-replay.md)\n"
"  --min-minors K  replay the successor rule with K distinct minors instead\n"
"                  of the rule's own constant (to see what another gives)\n"
"\n"
"exit: 0 no release the rule serves is default-unsafe, 1 some is, 2 usage\n";

static int replay_args(int argc, char **argv, int *md, int *k)
{
	int i;

	*md = 0;
	*k = SUCCESSOR_MIN_MINORS;
	for (i = 1; i < argc; i++) {
		if (!strcmp(argv[i], "--markdown")) {
			*md = 1;
		} else if (!strcmp(argv[i], "--min-minors") && i + 1 < argc && atoi(argv[i + 1]) > 0) {
			*k = atoi(argv[++i]);
		} else if (!strcmp(argv[i], "--help") || !strcmp(argv[i], "-h")) {
			fputs(replay_usage, stdout);
			return 0;
		} else {
			fprintf(stderr, "nvabi: error: replay: unknown argument %s\n%s", argv[i],
				replay_usage);
			return 2;
		}
	}
	return -1;
}

int cmd_replay(int argc, char **argv)
{
	struct rctx x;
	struct rrow *rows;
	int md, unsafe = 0, r, k, n[4] = { 0 }, out = 0;
	size_t i;

	r = replay_args(argc, argv, &md, &k);
	if (r >= 0)
		return r;
	memset(&x, 0, sizeof(x));
	x.min_minors = k;
	store_open(&x.s, abi_dir_default());
	load_all(&x);
	rows = xcalloc(x.rel.n + 1, sizeof(*rows));
	if (md)
		printf("| release | tier | served as | class | calls that differ |\n"
		       "|---|---|---|---|---|\n");
	for (i = 0; i < x.rel.n; i++) {
		struct rrow *row = &rows[i];
		long as;

		row->version = x.rel.v[i];
		row->tier = replay_tier(&x, i, x.min_minors, &as);
		row->cls = row->would = -1;
		if (as >= 0) {
			compare_abis(&x, &x.abi[as], &x.abi[i], row);
			if (!strcmp(row->tier, "outside")) {
				row->would = row->cls;
				row->would_as = x.rel.v[as];
				row->cls = -1;
			} else {
				row->served = x.rel.v[as];
				n[row->cls]++;
				unsafe |= row->cls == D_UNSAFE;
			}
		}
		out += row->cls < 0;
		print_row(row, md);
	}
	printf(md ? "\nWith %d distinct minors: %d same, %d refused-only, %d default-safe, "
		    "%d default-unsafe, %d outside.\n" :
		    "\nwith %d distinct minors: %d same, %d refused-only, %d default-safe, "
		    "%d default-unsafe, %d outside\n", x.min_minors, n[0], n[1], n[2], n[3], out);
	print_constants(&x, rows, md);
	if (unsafe)
		fprintf(stderr, "nvabi: replay: a release served by the rule is default-unsafe\n");
	return unsafe;
}
