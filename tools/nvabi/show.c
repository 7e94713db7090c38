// SPDX-License-Identifier: GPL-2.0
/*
 * nvabi: what nvmediate would use for a driver version.
 *
 *   exact         the version is a known release;
 *   interpolated  an unknown version strictly inside a range (between two
 *                 releases of one range, so no known release of another ABI
 *                 lies between them);
 *   successor     an unknown version newer than every known release of its
 *                 branch, where the branch allows it (branch_successor()):
 *                 served as the newest of them, in that one's range;
 *   outside       anything else: nvmediate has no ABI for it.
 *
 * Reads only abi/ (ranges.txt and the release files).
 */
#include <stdlib.h>
#include <string.h>

#include "nvabi.h"

static const char *node_json(enum node n)
{
	switch (n) {
	case NODE_CTL: return "control";
	case NODE_GPU: return "gpu";
	case NODE_ANY: return "either";
	case NODE_UVM: return "uvm";
	case NODE_UVM_TOOLS: return "uvm-tools";
	case NODE_CAP: return "cap";
	case NODE_IMEX: return "imex";
	default: return "none";
	}
}

static void json_str(struct sbuf *b, const char *s)
{
	sb_addc(b, '"');
	for (; *s; s++) {
		if (*s == '"' || *s == '\\')
			sb_addc(b, '\\');
		if ((unsigned char)*s < 0x20)
			sb_printf(b, "\\u%04x", *s);
		else
			sb_addc(b, *s);
	}
	sb_addc(b, '"');
}

static void json_size(struct sbuf *b, long long size)
{
	if (size < 0)
		sb_add(b, "null");
	else
		sb_printf(b, "%lld", size);
}

struct lookup {
	const char *version;
	const char *tier;
	const struct range *range;
	const char *release;	/* the release file whose ABI applies */
};

/* Versions compare by their NVABI_VERSION() key, as the module compares them. */
static uint64_t key_of(const char *v)
{
	struct nvver x;

	if (ver_parse(v, &x))
		return UINT64_MAX;
	return ver_key(&x);
}

/*
 * A version newer than every known release of its branch: served with the
 * newest one's range where the branch allows successors (branch_successor(),
 * the nvabi_branches[] table gen writes).
 */
static void lookup_successor(const struct rangeset *rs, const char *v, struct lookup *out)
{
	unsigned long major = branch_of(v);
	size_t i, j;

	for (i = rs->ranges.n; i-- > 0;) {
		const struct range *r = rs->ranges.v[i];

		for (j = r->releases.n; j-- > 0;) {
			const char *rel = r->releases.v[j];

			if (branch_of(rel) != major)
				continue;
			if (key_of(rel) < key_of(v) &&
			    branch_successor((char *const *)rs->releases.v, rs->releases.n, major,
					     SUCCESSOR_MIN_MINORS)) {
				out->tier = "successor";
				out->range = r;
				out->release = rel;
			}
			return;
		}
	}
}

static void lookup(const struct rangeset *rs, const char *v, struct lookup *out)
{
	uint64_t k = key_of(v);
	size_t i, j;

	memset(out, 0, sizeof(*out));
	out->version = v;
	out->tier = "outside";
	for (i = 0; i < rs->ranges.n; i++) {
		const struct range *r = rs->ranges.v[i];

		for (j = 0; j < r->releases.n; j++) {
			if (key_of(r->releases.v[j]) == k) {
				out->tier = "exact";
				out->range = r;
				out->release = r->releases.v[j];
				return;
			}
		}
		if (key_of(r->first) < k && k < key_of(r->last)) {
			out->tier = "interpolated";
			out->range = r;
			out->release = r->first;
		}
	}
	if (!out->range)
		lookup_successor(rs, v, out);
}

/* The version, its tier, range and ABI, and the release it is served as. */
static void json_lookup(struct sbuf *b, const struct lookup *lk, int abi_index)
{
	sb_add(b, "{\"version\":");
	json_str(b, lk->version);
	sb_add(b, ",\"tier\":");
	json_str(b, lk->tier);
	sb_add(b, ",\"range\":");
	if (lk->range) {
		sb_add(b, "{\"first\":");
		json_str(b, lk->range->first);
		sb_add(b, ",\"last\":");
		json_str(b, lk->range->last);
		sb_printf(b, ",\"releases\":%zu}", lk->range->releases.n);
		sb_printf(b, ",\"abi\":%d,\"served_as\":", abi_index);
		json_str(b, lk->release);
	} else
		sb_add(b, "null,\"abi\":null,\"served_as\":null");
}

/* "escapes": each one's sizes, node, size checks and name. */
static void json_escapes(struct sbuf *b, const struct abi *a)
{
	size_t i;
	int k;

	sb_add(b, ",\"escapes\":[");
	for (i = 0; a && i < a->esc.n; i++) {
		const struct esc *e = a->esc.v[i];

		sb_printf(b, "%s{\"nr\":%u,\"size\":", i ? "," : "", e->nr);
		json_size(b, e->ntypes ? e->types[0].size : -1);
		sb_printf(b, ",\"node\":\"%s\",\"kind\":\"%s\",\"privilege\":\"%s\",\"sizes\":[",
			  node_json(e->node), kind_str(e->kind), priv_str(e->priv));
		for (k = 0; k < e->ntypes; k++)
			sb_printf(b, "%s%lld", k ? "," : "", e->types[k].size);
		sb_add(b, "],\"early\":");
		if (e->early != ESC_UNCHECKED)
			sb_printf(b, "{\"kind\":\"%s\",\"sizes\":[%lld%s%.0lld]}",
				  kind_str(e->early), e->early_size[0], e->nearly > 1 ? "," : "",
				  e->nearly > 1 ? e->early_size[1] : 0);
		else
			sb_add(b, "null");
		sb_add(b, ",\"name\":");
		json_str(b, e->name);
		sb_add(b, "}");
	}
}

/* "controls", "classes" and "uvm": number, size, privilege or node. */
static void json_calls(struct sbuf *b, const struct abi *a)
{
	static const char *const pn[] = { "none", "optional", "required" };
	size_t i;

	sb_add(b, "],\"controls\":[");
	for (i = 0; a && i < a->ctrl.n; i++) {
		const struct ctrl *c = a->ctrl.v[i];

		sb_printf(b, "%s{\"cmd\":%u,\"size\":", i ? "," : "", c->cmd);
		json_size(b, c->type.size);
		sb_printf(b, ",\"privilege\":\"%s\"}", priv_str(c->priv));
	}
	sb_add(b, "],\"classes\":[");
	for (i = 0; a && i < a->cls.n; i++) {
		const struct cls *c = a->cls.v[i];

		sb_printf(b, "%s{\"class\":%u,\"size\":", i ? "," : "", c->id);
		json_size(b, c->type.size);
		sb_printf(b, ",\"privilege\":\"%s\",\"params\":\"%s\"}", priv_str(c->priv),
			  pn[c->params]);
	}
	sb_add(b, "],\"uvm\":[");
	for (i = 0; a && i < a->uvm.n; i++) {
		const struct uvmc *c = a->uvm.v[i];

		sb_printf(b, "%s{\"cmd\":%u,\"size\":%lld,\"node\":\"%s\"}", i ? "," : "",
			  c->cmd, c->type.size, node_json(c->node));
	}
}

/* "deprecated": the V1 controls, the V2 each becomes and its list. */
static void json_deprecated(struct sbuf *b, const struct abi *a)
{
	size_t i;

	sb_add(b, "],\"deprecated\":[");
	for (i = 0; a && i < a->dep.n; i++) {
		const struct dep *d = a->dep.v[i];

		sb_printf(b, "%s{\"cmd\":%u,\"v2\":%u,\"size\":%lld,\"custom\":%s", i ? "," : "",
			  d->cmd, d->v2, d->type.size, d->custom ? "true" : "false");
		if (!d->custom) {
			sb_add(b, ",\"list\":");
			json_str(b, d->list);
			sb_add(b, ",\"count\":");
			json_str(b, d->count);
			sb_printf(b, ",\"counts\":\"%s\",\"element_size\":%lld,\"max\":%u,"
				  "\"copy_in\":%s,\"copy_out\":%s", d->is_count ? "elements" : "bytes",
				  d->elem.size, d->max, d->in ? "true" : "false",
				  d->out ? "true" : "false");
		}
		sb_add(b, ",\"name\":");
		json_str(b, d->name);
		sb_add(b, "}");
	}
}

/* "embedded": the lists RM copies around a control, one per slot. */
static void json_embedded(struct sbuf *b, const struct abi *a)
{
	size_t i;

	sb_add(b, "],\"embedded\":[");
	for (i = 0; a && i < a->emb.n; i++) {
		const struct emb *e = a->emb.v[i];

		sb_printf(b, "%s{\"cmd\":%u,\"slot\":%d,\"size\":%lld,\"custom\":%s", i ? "," : "",
			  e->cmd, e->slot, e->type.size, e->custom ? "true" : "false");
		if (!e->custom) {
			sb_add(b, ",\"list\":");
			json_str(b, e->list);
			sb_add(b, ",\"count\":");
			if (e->count)
				json_str(b, e->count);
			else
				sb_printf(b, "%u", e->cnum);
			sb_printf(b, ",\"squared\":%s,\"element_size\":%lld,\"copy_in\":%s,"
				  "\"copy_out\":%s,\"null_when_empty\":%s,\"max_bytes\":%s",
				  e->count2 ? "true" : "false", e->elem.size, e->in ? "true" : "false",
				  e->out ? "true" : "false", e->ifptr ? "true" : "false",
				  e->nomax ? "null" : "1048576");
		}
		sb_add(b, ",\"name\":");
		json_str(b, e->name);
		sb_add(b, "}");
	}
}

static void show_json(struct store *s, const struct lookup *lk, struct abi *a, int abi_index)
{
	struct sbuf b = { 0 };

	json_lookup(&b, lk, abi_index);
	json_escapes(&b, a);
	json_calls(&b, a);
	json_deprecated(&b, a);
	json_embedded(&b, a);
	sb_printf(&b, "],\"uvm_unknown\":\"%s\"}\n", a ? uvm_unknown_str(a->uvm_unknown) : "-");
	fputs(b.s, stdout);
	sb_free(&b);
	(void)s;
}

/* The byte offset of field @name of @l, or -1. */
static long long field_byte(const struct layout *l, const char *name)
{
	const struct field *f = layout_field(l, name);

	return f ? f->off / 8 : -1;
}

/* A plain listing, in the form tests/tools/lookup.c prints from the tables. */
static void show_table(const struct lookup *lk, struct abi *a)
{
	size_t i;

	printf("version %s\ntier %s\n", lk->version, lk->tier);
	if (!lk->range) {
		printf("range -\n");
		return;
	}
	printf("range %s %s\n", lk->range->first, lk->range->last);
	for (i = 0; i < a->esc.n; i++) {
		const struct esc *e = a->esc.v[i];

		printf("esc 0x%02x %s %s %s %lld %lld %s %lld %lld\n", e->nr, node_str(e->node),
		       priv_str(e->priv), kind_str(e->kind), e->ntypes ? e->types[0].size : 0,
		       e->ntypes > 1 && e->kind == ESC_EXACT ? e->types[1].size : 0,
		       kind_str(e->early), e->early != ESC_UNCHECKED ? e->early_size[0] : 0,
		       e->early != ESC_UNCHECKED && e->nearly > 1 ? e->early_size[1] : 0);
	}
	for (i = 0; i < a->ctrl.n; i++) {
		const struct ctrl *c = a->ctrl.v[i];

		if (c->type.size < 0)
			printf("ctrl 0x%08x %s -\n", c->cmd, priv_str(c->priv));
		else
			printf("ctrl 0x%08x %s %lld\n", c->cmd, priv_str(c->priv), c->type.size);
	}
	for (i = 0; i < a->cls.n; i++) {
		const struct cls *c = a->cls.v[i];

		if (c->type.size < 0)
			printf("class 0x%08x %s %d -\n", c->id, priv_str(c->priv), c->params);
		else
			printf("class 0x%08x %s %d %lld\n", c->id, priv_str(c->priv), c->params,
			       c->type.size);
	}
	for (i = 0; i < a->uvm.n; i++) {
		const struct uvmc *c = a->uvm.v[i];

		printf("uvm 0x%08x %s %lld\n", c->cmd, node_str(c->node), c->type.size);
	}
	for (i = 0; i < a->dep.n; i++) {
		const struct dep *d = a->dep.v[i];

		printf("dep 0x%08x 0x%08x %lld", d->cmd, d->v2, d->type.size);
		if (d->custom)
			printf(" custom\n");
		else
			printf(" %lld %lld %lld %u %s%s%s\n", field_byte(d->type.rec, d->list),
			       field_byte(d->type.rec, d->count), d->elem.size, d->max,
			       d->is_count ? "count" : "bytes", d->in ? ",in" : "",
			       d->out ? ",out" : "");
	}
	for (i = 0; i < a->emb.n; i++) {
		const struct emb *e = a->emb.v[i];

		printf("emb 0x%08x %d %lld", e->cmd, e->slot, e->type.size);
		if (e->custom) {
			printf(" custom\n");
			continue;
		}
		printf(" %lld ", field_byte(e->type.rec, e->list));
		if (e->count) {
			const struct field *cf = layout_field(e->type.rec, e->count);

			printf("%lld%s%s", field_byte(e->type.rec, e->count),
			       cf && cf->size == 2 ? "/2" : "", e->count2 ? "^2" : "");
		}
		else
			printf("=%u", e->cnum);
		printf(" %lld %s%s%s%s\n", e->elem.size, e->in ? "in" : "-", e->out ? ",out" : "",
		       e->ifptr ? ",ifptr" : "", e->nomax ? ",nomax" : "");
	}
	printf("uvm-unknown %s\n", uvm_unknown_str(a->uvm_unknown));
}

static void show_text(const struct lookup *lk, struct abi *a, int abi_index)
{
	printf("version  %s\ntier     %s\n", lk->version, lk->tier);
	if (!lk->range) {
		printf("range    none: nvmediate has no ABI for this version\n");
		return;
	}
	printf("range    [%s, %s] (%zu releases, ABI %d)\n", lk->range->first, lk->range->last,
	       lk->range->releases.n, abi_index);
	if (!strcmp(lk->tier, "successor"))
		printf("served as %s, the newest known release of branch %lu\n", lk->release,
		       branch_of(lk->release));
	printf("ABI of   %s\n", lk->release);
	printf("escapes %zu, controls %zu, classes %zu, UVM commands %zu, deprecated controls %zu, "
	       "embedded lists %zu\n", a->esc.n, a->ctrl.n, a->cls.n, a->uvm.n, a->dep.n, a->emb.n);
	printf("unknown UVM commands: %s\n", uvm_unknown_str(a->uvm_unknown));
}

static const char show_usage[] =
"usage: nvabi show [--abi DIR] --version V [--json|--table]\n"
"\n"
"What nvmediate uses for driver version V, from abi/ alone: its tier (exact,\n"
"interpolated, successor, outside), its range, the release it is served as\n"
"and the ABI's entries (--json: all of them; --table: one line per entry,\n"
"as the module's tables have them).\n"
"\n"
"exit: 0 V is served (exact, interpolated or successor), 5 V is outside\n"
"      every range (what nvmediate refuses), 1 error, 2 usage\n";

/* A usage error of show: said with the usage, exit 2. */
static int show_usage_error(const char *fmt, const char *arg)
{
	fputs("nvabi: error: show: ", stderr);
	fprintf(stderr, fmt, arg);
	fprintf(stderr, "\n%s", show_usage);
	return 2;
}

int cmd_show(int argc, char **argv)
{
	const char *v = NULL;
	int json = 0, table = 0, i;
	struct store s;
	struct rangeset rs;
	struct lookup lk;
	struct abi a;
	struct nvver vv;

	for (i = 1; i < argc; i++) {
		if (!strcmp(argv[i], "--version") && i + 1 < argc)
			v = argv[++i];
		else if (!strncmp(argv[i], "--version=", 10))
			v = argv[i] + 10;
		else if (!strcmp(argv[i], "--json"))
			json = 1;
		else if (!strcmp(argv[i], "--table"))
			table = 1;
		else if (!strcmp(argv[i], "--help") || !strcmp(argv[i], "-h")) {
			fputs(show_usage, stdout);
			return 0;
		} else if (!v && argv[i][0] != '-')
			v = argv[i];
		else
			return show_usage_error("unknown argument %s", argv[i]);
	}
	if (!v)
		return show_usage_error("give --version V%s", "");
	if (ver_parse(v, &vv) || ver_key(&vv) == UINT64_MAX)
		return show_usage_error("'%s' is not a version number (major.minor[.patch])", v);
	memset(&s, 0, sizeof(s));
	s.dir = xstrdup(abi_dir_default());
	ranges_load(&s, &rs);
	lookup(&rs, v, &lk);
	memset(&a, 0, sizeof(a));
	if (lk.release && abi_load(&s, lk.release, &a))
		die("cannot read release %s", lk.release);
	if (table && a.dep.n) {
		/* the offsets of the deprecated controls' fields: their layouts */
		struct store full;

		store_open(&full, s.dir);
		abi_resolve(&full, &a);
		show_table(&lk, &a);
		abi_free(&a);
		store_close(&full);
		memset(&a, 0, sizeof(a));
	} else if (table)
		show_table(&lk, &a);
	else if (json)
		show_json(&s, &lk, lk.release ? &a : NULL,
			  lk.range ? lk.range->abi_index : -1);
	else
		show_text(&lk, &a, lk.range ? lk.range->abi_index : -1);
	i = lk.range ? 0 : 5;	/* outside: what nvmediate refuses */
	if (lk.release)
		abi_free(&a);
	ranges_free(&rs);
	free(s.dir);
	return i;
}
