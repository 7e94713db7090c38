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

#endif /* _NVABI_LOOKUP_H */
