// SPDX-License-Identifier: GPL-2.0
/*
 * lookup: read the generated ABI tables the way the module will, and print
 * what they give for a driver version, in the form of 'nvabi show --table'.
 * tests/tools/run.sh compares the two.
 *
 *   lookup VERSION
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "nvabi_lookup.h"

static const char *const node_s[] = { "-", "ctl", "gpu", "any", "uvm", "uvm-tools", "cap", "imex" };
static const char *const priv_s[] = { "unknown", "user", "root", "kernel", "internal", "none" };
static const char *const kind_s[] = { "exact", "array", "min", "unchecked" };

int main(int argc, char **argv)
{
	const struct nvabi_range *r;
	const char *tier;
	unsigned int i, abi, ndeps = NVABI_NR_DEPS, nembs = NVABI_NR_EMBS;
	__u64 key;

	if (argc != 2 || nvabi_parse_version(argv[1], &key)) {
		fprintf(stderr, "usage: lookup VERSION\n");
		return 2;
	}
	r = nvabi_find_version(key, &tier, NULL);
	printf("version %s\ntier %s\n", argv[1], tier);
	if (!r) {
		printf("range -\n");
		return 0;
	}
	printf("range %s %s\n", r->first_name, r->last_name);
	abi = r->abi;
	for (i = 0; i < NVABI_NR_ESCS; i++) {
		const struct nvabi_esc *e = &nvabi_escs[i];

		if (nvabi_set_has(e->set, abi))
			printf("esc 0x%02x %s %s %s %u %u %s %u %u\n", e->nr, node_s[e->node],
			       priv_s[e->priv], kind_s[e->kind], e->size, e->size2,
			       kind_s[e->early_kind], e->early, e->early2);
	}
	for (i = 0; i < NVABI_NR_CTRLS; i++) {
		const struct nvabi_ctrl *c = &nvabi_ctrls[i];

		if (!nvabi_set_has(c->set, abi))
			continue;
		if (c->size == NVABI_SIZE_UNKNOWN)
			printf("ctrl 0x%08x %s -\n", c->cmd, priv_s[c->priv]);
		else
			printf("ctrl 0x%08x %s %u\n", c->cmd, priv_s[c->priv], c->size);
	}
	for (i = 0; i < NVABI_NR_CLASSES; i++) {
		const struct nvabi_class *c = &nvabi_classes[i];

		if (!nvabi_set_has(c->set, abi))
			continue;
		if (c->size == NVABI_SIZE_UNKNOWN)
			printf("class 0x%08x %s %u -\n", c->hclass, priv_s[c->priv], c->params);
		else
			printf("class 0x%08x %s %u %u\n", c->hclass, priv_s[c->priv], c->params,
			       c->size);
	}
	for (i = 0; i < NVABI_NR_UVMS; i++) {
		const struct nvabi_uvm *c = &nvabi_uvms[i];

		if (nvabi_set_has(c->set, abi))
			printf("uvm 0x%08x %s %u\n", c->cmd, node_s[c->node], c->size);
	}
	for (i = 0; i < ndeps; i++) {	/* a table that may be empty */
		const struct nvabi_dep *d = &nvabi_deps[i];

		if (!nvabi_set_has(d->set, abi))
			continue;
		printf("dep 0x%08x 0x%08x %u", d->cmd, d->v2, d->size);
		if (d->flags & NVABI_DEP_CUSTOM)
			printf(" custom\n");
		else
			printf(" %u %u %u %u %s%s%s\n", d->list_off, d->count_off, d->elem, d->max,
			       d->flags & NVABI_DEP_COUNT ? "count" : "bytes",
			       d->flags & NVABI_DEP_IN ? ",in" : "", d->flags & NVABI_DEP_OUT ? ",out" : "");
	}
	for (i = 0; i < nembs; i++) {	/* a table that may be empty */
		const struct nvabi_emb *x = &nvabi_embs[i];
		unsigned int k;

		if (!nvabi_set_has(x->set, abi))
			continue;
		if (!x->nlist)
			printf("emb 0x%08x 0 %u custom\n", x->cmd, x->size);
		for (k = 0; k < x->nlist && k < NVABI_EMB_LISTS; k++) {
			const struct nvabi_emb_list *l = &x->list[k];

			printf("emb 0x%08x %u %u %u ", x->cmd, k, x->size, l->list_off);
			if (l->flags & NVABI_EMB_CONST)
				printf("=%u", l->count_off);
			else
				printf("%u%s%s", l->count_off, l->flags & NVABI_EMB_COUNT16 ? "/2" : "",
				       l->flags & NVABI_EMB_SQUARE ? "^2" : "");
			printf(" %u %s%s%s%s\n", l->elem, l->flags & NVABI_EMB_IN ? "in" : "-",
			       l->flags & NVABI_EMB_OUT ? ",out" : "",
			       l->flags & NVABI_EMB_IFPTR ? ",ifptr" : "",
			       l->flags & NVABI_EMB_NOMAX ? ",nomax" : "");
		}
	}
	printf("uvm-unknown %s\n", nvabi_abi_uvm_unknown[abi] == NVABI_UVM_UNKNOWN_EINVAL ? "EINVAL" :
	       nvabi_abi_uvm_unknown[abi] == NVABI_UVM_UNKNOWN_ENOSYS ? "ENOSYS" : "-");
	return 0;
}
