// SPDX-License-Identifier: GPL-2.0
/*
 * nvabi: driver version numbers.
 *
 * NVIDIA versions are dotted decimal numbers with two or three components
 * (515.57, 535.43.02). They are ordered numerically, component by component;
 * when all shared components are equal the shorter version sorts first.
 */
#include <ctype.h>
#include <stdlib.h>
#include <string.h>

#include "nvabi.h"

int ver_parse(const char *s, struct nvver *v)
{
	memset(v, 0, sizeof(*v));
	if (!s || !*s)
		return -1;
	for (;;) {
		unsigned long x = 0;
		int digits = 0;

		while (isdigit((unsigned char)*s)) {
			x = x * 10 + (*s++ - '0');
			if (++digits > 9)
				return -1;
		}
		if (!digits || v->n == NVV_MAXPARTS)
			return -1;
		v->part[v->n++] = x;
		if (!*s)
			break;
		if (*s++ != '.')
			return -1;
	}
	return 0;
}

int ver_cmp(const struct nvver *a, const struct nvver *b)
{
	int i;

	for (i = 0; i < a->n && i < b->n; i++) {
		if (a->part[i] != b->part[i])
			return a->part[i] < b->part[i] ? -1 : 1;
	}
	return (a->n > b->n) - (a->n < b->n);
}

int ver_cmp_str(const char *a, const char *b)
{
	struct nvver va, vb;
	int ea = ver_parse(a, &va), eb = ver_parse(b, &vb);

	if (ea || eb) {
		if (ea && eb)
			return strcmp(a, b);
		return ea ? 1 : -1;
	}
	return ver_cmp(&va, &vb);
}

/*
 * The key of NVABI_VERSION() (abi/nvabi_types.h): three 20-bit parts, a
 * missing one counts as 0; UINT64_MAX when the version does not fit.
 */
uint64_t ver_key(const struct nvver *v)
{
	uint64_t k = 0;
	int i;

	if (v->n > 3)
		return UINT64_MAX;
	for (i = 0; i < 3; i++) {
		unsigned long p = i < v->n ? v->part[i] : 0;

		if (p >= (1UL << 20))
			return UINT64_MAX;
		k = (k << 20) | p;
	}
	return k;
}
