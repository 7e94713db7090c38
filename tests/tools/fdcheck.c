// SPDX-License-Identifier: GPL-2.0
/*
 * fdcheck: for every release in abi/releases/, every fd field of every
 * entry's payload (from abi/layouts.txt, read here on its own) is in the
 * generated tables the module compiles, at that release's offset, looked
 * up as the node the release's "fdin" lines say (none when no line names
 * it); and every "fdin" line names a field of some entry.  What the module
 * reads for the fd plan is exactly what the extractor found in the driver.
 *
 *   fdcheck ABIDIR
 *
 * Prints one line per problem and "N fd fields checked in N releases".
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "nvabi_lookup.h"

NVABI_DEFINE_LOOKUP(static, esc_of, struct nvabi_esc, nvabi_escs, NVABI_NR_ESCS, nr)
NVABI_DEFINE_LOOKUP(static, ctrl_of, struct nvabi_ctrl, nvabi_ctrls, NVABI_NR_CTRLS, cmd)
NVABI_DEFINE_LOOKUP(static, class_of, struct nvabi_class, nvabi_classes, NVABI_NR_CLASSES, hclass)
NVABI_DEFINE_LOOKUP(static, uvm_of, struct nvabi_uvm, nvabi_uvms, NVABI_NR_UVMS, cmd)

struct fld {
	long off;
	char name[256], type[256];
	int fd, size;
};

struct rec {
	char key[256];		/* NAME#HASH */
	int is_union;
	int nf, nuses;
	struct fld *f;
	char (*uses)[256];
};

static struct rec *recs;
static int nrecs, bad;

struct fdin {
	char type[256], field[256];
	int node, used;
};

static struct rec *rec_find(const char *key)
{
	int i;

	for (i = 0; i < nrecs; i++)
		if (!strcmp(recs[i].key, key))
			return &recs[i];
	return NULL;
}

static void load_layouts(const char *path)
{
	FILE *f = fopen(path, "r");
	char line[4096];
	struct rec *r = NULL;

	if (!f) {
		perror(path);
		exit(2);
	}
	while (fgets(line, sizeof(line), f)) {
		char a[256], b[256];
		long off;
		int size, rest = 0;

		if (line[0] == '#' || line[0] == '\n')
			continue;
		if (line[0] != ' ') {
			recs = realloc(recs, (nrecs + 1) * sizeof(*recs));
			r = &recs[nrecs++];
			memset(r, 0, sizeof(*r));
			sscanf(line, "%255s %255s", r->key, a);
			r->is_union = !strcmp(a, "union");
			continue;
		}
		if (!r)
			continue;
		if (!strncmp(line, "  uses ", 7)) {
			char *p = line + 7, *t;

			for (t = strtok(p, " \n"); t; t = strtok(NULL, " \n")) {
				r->uses = realloc(r->uses, (r->nuses + 1) * sizeof(*r->uses));
				snprintf(r->uses[r->nuses++], 256, "%s", t);
			}
			continue;
		}
		if (sscanf(line, " %ld %255s %255s %d%n", &off, a, b, &size, &rest) != 4)
			continue;	/* a bit-field ("OFF:BITS") or a line of another form */
		r->f = realloc(r->f, (r->nf + 1) * sizeof(*r->f));
		memset(&r->f[r->nf], 0, sizeof(r->f[0]));
		r->f[r->nf].off = off;
		snprintf(r->f[r->nf].name, sizeof(r->f[0].name), "%s", a);
		snprintf(r->f[r->nf].type, 256, "%s", b);
		r->f[r->nf].size = size;
		/* flags after the size: "ptr", "fd" */
		r->f[r->nf].fd = strstr(line + rest, " fd") != NULL;
		r->nf++;
	}
	fclose(f);
}

static int node_of(const char *s)
{
	if (!strcmp(s, "ctl"))
		return NVABI_NODE_CTL;
	if (!strcmp(s, "gpu"))
		return NVABI_NODE_GPU;
	if (!strcmp(s, "any"))
		return NVABI_NODE_ANY;
	if (!strcmp(s, "uvm"))
		return NVABI_NODE_UVM;
	if (!strcmp(s, "cap"))
		return NVABI_NODE_CAP;
	if (!strcmp(s, "imex"))
		return NVABI_NODE_IMEX;
	return -1;
}

static int checked;

/* The fd fields of record @key at @base, against the module's entry fields. */
static void walk(const char *rel, const char *what, const char *key, long base,
		 const struct nvabi_fd *fds, unsigned int nfd, struct fdin *in, int nin, int depth)
{
	const struct rec *r = rec_find(key);
	char name[256];
	int i, k;

	if (!r || depth > 32)
		return;
	snprintf(name, sizeof(name), "%.*s", (int)strcspn(key, "#"), key);
	for (i = 0; i < r->nf; i++) {
		const struct fld *f = &r->f[i];

		if (strchr(f->type, '['))
			continue;	/* arrays: the table keeps fixed positions only */
		if (f->fd && f->size <= 8) {
			int want = 0, found = 0;
			unsigned int j;

			for (k = 0; k < nin; k++)
				if (!strcmp(in[k].type, name) && !strcmp(in[k].field, f->name)) {
					want = in[k].node;
					in[k].used = 1;
				}
			for (j = 0; j < nfd; j++)
				if (fds[j].off == (unsigned long)(base + f->off)) {
					found = 1;
					if (fds[j].node != want) {
						printf("%s: %s %s.%s: node %u in the tables, %d found\n",
						       rel, what, name, f->name, fds[j].node, want);
						bad++;
					}
				}
			if (!found) {
				printf("%s: %s %s.%s at %ld: not in the tables\n", rel, what, name,
				       f->name, base + f->off);
				bad++;
			}
			checked++;
		}
		for (k = 0; k < r->nuses && !r->is_union; k++) {
			size_t n = strlen(f->type);

			if (!strncmp(r->uses[k], f->type, n) && r->uses[k][n] == '#')
				walk(rel, what, r->uses[k], base + f->off, fds, nfd, in, nin,
				     depth + 1);
		}
	}
}

int main(int argc, char **argv)
{
	unsigned int i, abi, releases = 0;
	char path[4096], line[4096];

	if (argc != 2) {
		fprintf(stderr, "usage: fdcheck ABIDIR\n");
		return 2;
	}
	snprintf(path, sizeof(path), "%s/layouts.txt", argv[1]);
	load_layouts(path);
	for (i = 0; i < NVABI_NR_RELEASES; i++) {
		const char *rel = nvabi_releases[i].name;
		struct fdin in[64];
		int nin = 0, k;
		FILE *f;

		abi = nvabi_ranges[nvabi_releases[i].range].abi;
		snprintf(path, sizeof(path), "%s/releases/%s.abi", argv[1], rel);
		f = fopen(path, "r");
		if (!f) {
			perror(path);
			return 2;
		}
		while (fgets(line, sizeof(line), f))
			if (!strncmp(line, "fdin ", 5) && nin < 64) {
				char node[32];

				memset(&in[nin], 0, sizeof(in[0]));
				sscanf(line + 5, "%255s %255s %31s", in[nin].type, in[nin].field, node);
				in[nin].node = node_of(node);
				nin++;
			}
		rewind(f);
		while (fgets(line, sizeof(line), f)) {
			char t[8][512], what[1100];
			const struct nvabi_fd *fds = NULL;
			unsigned int key, nfd = 0;
			int n = sscanf(line, "%511s %511s %511s %511s %511s %511s %511s", t[0], t[1],
				       t[2], t[3], t[4], t[5], t[6]);
			char *types = NULL, *tok;

			if (n < 4 || sscanf(t[1], "%x", &key) != 1)
				continue;
			snprintf(what, sizeof(what), "%s %s", t[0], t[1]);
			if (!strcmp(t[0], "esc") && n >= 7) {
				const struct nvabi_esc *e = esc_of(key, abi);

				if (e) {
					fds = &nvabi_fds[e->fd];
					nfd = e->nfd;
				}
				types = t[6];
			} else if (!strcmp(t[0], "ctrl") && n >= 5 && t[4][0] != '@') {
				const struct nvabi_ctrl *e = ctrl_of(key, abi);

				if (e) {
					fds = &nvabi_fds[e->fd];
					nfd = e->nfd;
				}
				types = t[4];
			} else if (!strcmp(t[0], "class") && n >= 6 && t[5][0] != '@') {
				const struct nvabi_class *e = class_of(key, abi);

				if (e) {
					fds = &nvabi_fds[e->fd];
					nfd = e->nfd;
				}
				types = t[5];
			} else if (!strcmp(t[0], "uvm") && n >= 5) {
				const struct nvabi_uvm *e = uvm_of(key, abi);

				if (e) {
					fds = &nvabi_fds[e->fd];
					nfd = e->nfd;
				}
				types = t[4];
			}
			if (!types || !strchr(types, '#'))
				continue;
			if (!fds) {
				printf("%s: %s: no entry in the tables for this release's ABI\n", rel,
				       what);
				bad++;
				continue;
			}
			for (tok = strtok(types, ","); tok; tok = strtok(NULL, ","))
				walk(rel, what, tok, 0, fds, nfd, in, nin, 0);
		}
		fclose(f);
		for (k = 0; k < nin; k++)
			if (!in[k].used || in[k].node < 0) {
				printf("%s: fdin %s.%s names no fd field of an entry\n", rel,
				       in[k].type, in[k].field);
				bad++;
			}
		releases++;
	}
	printf("%d fd fields checked in %u releases, %d problems\n", checked, releases, bad);
	return bad ? 1 : 0;
}
