/* SPDX-License-Identifier: GPL-2.0 WITH Linux-syscall-note */
/*
 * nvabi_lookup.h - finding an entry of the generated tables for one ABI,
 * the same way in the kernel module and in user-space tools.
 *
 * NVABI_DEFINE_LOOKUP(storage, fn, type, table, count, field) defines
 *
 *	storage const type *fn(__u32 key, unsigned int abi);
 *
 * which binary-searches @table (sorted by @field) for the first entry with
 * @key, then returns the entry with that key whose set holds @abi, or NULL.
 */
#ifndef _NVABI_LOOKUP_H
#define _NVABI_LOOKUP_H

#include "nvabi_tables.h"

#define NVABI_DEFINE_LOOKUP(storage, fn, type, table, count, field)		\
storage const type *fn(__u32 key, unsigned int abi)				\
{										\
	unsigned int lo = 0, hi = (count);					\
										\
	while (lo < hi) {							\
		unsigned int mid = lo + (hi - lo) / 2;				\
										\
		if ((table)[mid].field < key)					\
			lo = mid + 1;						\
		else								\
			hi = mid;						\
	}									\
	for (; lo < (count) && (table)[lo].field == key; lo++)			\
		if (nvabi_set_has((table)[lo].set, abi))			\
			return &(table)[lo];					\
	return NULL;								\
}

#ifndef __KERNEL__
#include <errno.h>
#include <stdlib.h>

/*
 * nvabi_parse_version() - "515.57" or "570.86.15" (one to three decimal
 * parts) as an NVABI_VERSION() key.
 * Returns 0, or -1 for anything else (the kernel has its own parser,
 * kmod/version.c, that also takes surrounding white space).
 */
static inline int nvabi_parse_version(const char *s, __u64 *key)
{
	unsigned long p[3] = { 0, 0, 0 };
	int n = 0;
	char *end;

	for (;;) {
		if (n == 3 || *s < '0' || *s > '9')
			return -1;
		errno = 0;
		p[n++] = strtoul(s, &end, 10);
		if (errno || p[n - 1] >= 1UL << NVABI_VERSION_PART_BITS)
			return -1;
		s = end;
		if (!*s)
			break;
		if (*s++ != '.')
			return -1;
	}
	*key = NVABI_VERSION(p[0], p[1], p[2]);
	return 0;
}

/*
 * nvabi_find_version() - the range serving version @key, as 'nvabi show'
 * decides: a known release is "exact", a version strictly inside a range
 * "interpolated", one newer than every release of a branch that allows it
 * (nvabi_branches[]) that release's "successor", anything else "outside"
 * (NULL is returned). @release, if not NULL, is set to the release whose ABI
 * serves it.
 */
static inline const struct nvabi_range *nvabi_find_version(__u64 key, const char **tier,
							   const char **release)
{
	unsigned int i;

	for (i = 0; i < NVABI_NR_RELEASES; i++)
		if (nvabi_releases[i].version == key) {
			*tier = "exact";
			if (release)
				*release = nvabi_releases[i].name;
			return &nvabi_ranges[nvabi_releases[i].range];
		}
	for (i = 0; i < NVABI_NR_RANGES; i++)
		if (nvabi_ranges[i].first < key && key < nvabi_ranges[i].last) {
			*tier = "interpolated";
			if (release)
				*release = nvabi_ranges[i].first_name;
			return &nvabi_ranges[i];
		}
	for (i = 0; i < NVABI_NR_BRANCHES; i++) {
		const struct nvabi_release *n = &nvabi_releases[nvabi_branches[i].newest];

		if (nvabi_branches[i].major != key >> (2 * NVABI_VERSION_PART_BITS) ||
		    !nvabi_branches[i].successor || key <= n->version)
			continue;
		*tier = "successor";
		if (release)
			*release = n->name;
		return &nvabi_ranges[n->range];
	}
	*tier = "outside";
	if (release)
		*release = NULL;
	return NULL;
}
#endif /* !__KERNEL__ */

#endif /* _NVABI_LOOKUP_H */
