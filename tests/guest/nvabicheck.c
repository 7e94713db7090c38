// SPDX-License-Identifier: GPL-2.0
/*
 * nvabicheck: hold every call the stand-in driver received against the ABI
 * descriptor of its version and the default policy (82-hard-fuzz.sh).
 *
 *   nvabicheck VERSION < /sys/kernel/debug/nvidia-standin/received
 *
 * The input is the stand-in's record (tests/standin/README.md): a line
 * "total=N entries=N overflow=N", then "FAMILY A B C COUNT" per distinct
 * call.  The rules are those of docs/errors.md, read from the generated
 * tables (abi/generated/) the way the module reads them: a call that
 * reached the driver must be one the validator forwards with the default
 * parameters (no allow_root, allow_finn, allow_gss, audit).
 *
 * Output: a line per entry that breaks a rule, then
 * "checked entries=N calls=N bad_entries=N bad_calls=N overflow=N".
 * Exit status 0 iff nothing broke a rule and nothing overflowed the record.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "nvabi_lookup.h"
#include "nvabi_tables.c"

NVABI_DEFINE_LOOKUP(static, find_esc, struct nvabi_esc, nvabi_escs, NVABI_NR_ESCS, nr)
NVABI_DEFINE_LOOKUP(static, find_ctrl, struct nvabi_ctrl, nvabi_ctrls, NVABI_NR_CTRLS, cmd)
NVABI_DEFINE_LOOKUP(static, find_class, struct nvabi_class, nvabi_classes, NVABI_NR_CLASSES,
		    hclass)
NVABI_DEFINE_LOOKUP(static, find_uvm, struct nvabi_uvm, nvabi_uvms, NVABI_NR_UVMS, cmd)

#define NV_IOCTL_MAGIC		0x46	/* 'F' */
#define ESC_XFER		0xd3
#define MAX_IOCTL_SIZE		16384
#define PARAMS_MAX		(1u << 20)
#define FD_FOREIGN		4

static unsigned int abi;

static int priv_ok(unsigned int priv)
{
	return priv == NVABI_PRIV_UNKNOWN || priv == NVABI_PRIV_USER;
}

static int node_ok(unsigned int node, unsigned int got)
{
	return node == NVABI_NODE_ANY ? (got == NVABI_NODE_CTL || got == NVABI_NODE_GPU) :
					 node == got;
}

static int size_ok(const struct nvabi_esc *e, unsigned int size)
{
	switch (e->kind) {
	case NVABI_SIZE_EXACT:
		return size == e->size || (e->size2 && size == e->size2);
	case NVABI_SIZE_ARRAY:
		return e->size && size && size % e->size == 0;
	case NVABI_SIZE_MIN:
		return size >= e->size;
	default:
		return size == e->size;
	}
}

/* NULL when the entry is one the validator forwards, else the rule broken. */
static const char *check_esc(unsigned int nr, unsigned int size, unsigned int node, int xfer)
{
	const struct nvabi_esc *e = find_esc(nr, abi);

	if (!e)
		return "escape unknown to this version";
	if (xfer && nr == ESC_XFER)
		return "XFER inside XFER";
	if (xfer && size > MAX_IOCTL_SIZE)
		return "XFER inner size over 16384";
	if (!node_ok(e->node, node))
		return "escape on the wrong node";
	if (!priv_ok(e->priv))
		return "escape refused by the policy";
	if (!size_ok(e, size))
		return "escape of the wrong size";
	return NULL;
}

static const char *check_ctrl(unsigned int cmd, unsigned int psize, unsigned int flags)
{
	const struct nvabi_ctrl *e;

	if (flags & 0x3)
		return "kernel-only NVOS54 flags";
	if (psize > PARAMS_MAX)
		return "params over 1 MiB";
	e = find_ctrl(cmd, abi);
	if (!e)
		return "control unknown to this version";
	if (flags & 0x4)
		return "FINN-serialized params";
	if (cmd & 0x8000)
		return "GSS-legacy control";
	if (!priv_ok(e->priv))
		return "control refused by the policy";
	if (e->size == NVABI_SIZE_UNKNOWN)
		return "control with no known params (kernel-only)";
	if (psize != e->size)
		return "paramsSize not the control's";
	return NULL;
}

static const char *check_class(unsigned int hclass, unsigned int size)
{
	const struct nvabi_rmlayout *l = &nvabi_rmlayouts[nvabi_abi_rmlayout[abi]];
	const struct nvabi_class *e;

	if (!((l->a21_size && size == l->a21_size) || (l->a64_size && size == l->a64_size)))
		return "allocation payload of neither NVOS21's nor NVOS64's size";
	e = find_class(hclass, abi);
	if (!e)
		return "class unknown to this version";
	if (hclass == 0x0 || hclass == 0x1 || hclass == 0x41)
		return NULL;
	if (hclass == 0x78 || hclass == 0x7e)
		return "kernel-callback event class";
	if (!priv_ok(e->priv))
		return "class refused by the policy";
	if (e->size == NVABI_SIZE_UNKNOWN)
		return "class with no known params (kernel-only)";
	if (e->size > PARAMS_MAX)
		return "class params over 1 MiB";
	return NULL;
}

static const char *check_uvm(unsigned int cmd)
{
	const struct nvabi_uvm *e = find_uvm(cmd, abi);

	if (!e)
		return "UVM command unknown to this version";
	if (e->node != NVABI_NODE_UVM)
		return "UVM command of another node";
	return NULL;
}

int main(int argc, char **argv)
{
	unsigned long long total = 0, overflow = 0, count, calls = 0, bad_calls = 0;
	unsigned int entries = 0, bad = 0, a, b, c;
	const struct nvabi_range *r;
	const char *tier, *why;
	char fam[16], line[256];
	__u64 key;

	if (argc != 2 || nvabi_parse_version(argv[1], &key)) {
		fprintf(stderr, "usage: nvabicheck VERSION < received\n");
		return 2;
	}
	r = nvabi_find_version(key, &tier, NULL);
	if (!r) {
		fprintf(stderr, "nvabicheck: %s is outside every range\n", argv[1]);
		return 2;
	}
	abi = r->abi;
	while (fgets(line, sizeof(line), stdin)) {
		if (sscanf(line, "total=%llu entries=%*u overflow=%llu", &total, &overflow) == 2)
			continue;
		if (sscanf(line, "%15s %x %x %x %llu", fam, &a, &b, &c, &count) != 5) {
			fprintf(stderr, "nvabicheck: cannot read: %s", line);
			return 2;
		}
		entries++;
		calls += count;
		if (!strcmp(fam, "esc"))
			why = (c & 0xff) != NV_IOCTL_MAGIC ? "not an NVIDIA ioctl" :
			      check_esc(a, b, c >> 8, 0);
		else if (!strcmp(fam, "xfer"))
			why = check_esc(a, b, c >> 8, 1);
		else if (!strcmp(fam, "ctrl"))
			why = check_ctrl(a, b, c);
		else if (!strcmp(fam, "class"))
			why = check_class(a, b);
		else if (!strcmp(fam, "uvm"))
			why = check_uvm(a);
		else if (!strcmp(fam, "fd"))
			why = a == FD_FOREIGN ? "an fd field resolved to a file that is not the driver's" :
						NULL;
		else
			why = "unknown family";
		if (why) {
			bad++;
			bad_calls += count;
			printf("BAD %s 0x%x 0x%x 0x%x x%llu: %s\n", fam, a, b, c, count, why);
		}
	}
	printf("checked version=%s abi=%u entries=%u calls=%llu total=%llu bad_entries=%u bad_calls=%llu overflow=%llu\n",
	       argv[1], abi, entries, calls, total, bad, bad_calls, overflow);
	return bad || overflow || !entries;
}
