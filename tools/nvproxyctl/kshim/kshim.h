/* SPDX-License-Identifier: GPL-2.0 */
/*
 * kshim.h - what the module's pure decision code (kmod/decide.c, the
 * family checks, policy.c, tables.c) takes from the kernel,
 * in C11 and libc, so that nvproxyctl runs that very code.  Each
 * linux/<name>.h here includes this file.  Nothing here may decide
 * anything: only types, allocation, sorting and searching.
 */
#ifndef NVM_KSHIM_H
#define NVM_KSHIM_H

#include <assert.h>
#include <ctype.h>
#include <errno.h>
#include <limits.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <linux/types.h>

typedef uint8_t u8;
typedef uint16_t u16;
typedef uint32_t u32;
typedef uint64_t u64;
typedef int32_t s32;
typedef int64_t s64;

#define BIT(n)			(1UL << (n))
#define ARRAY_SIZE(a)		(sizeof(a) / sizeof((a)[0]))
#define WARN_ON_ONCE(c)		(!!(c))
#define U32_MAX			UINT32_MAX
#define U64_MAX			UINT64_MAX
#define struct_size(p, member, n) (sizeof(*(p)) + sizeof((p)->member[0]) * (n))

#define GFP_KERNEL		0
#define kzalloc(size, gfp)	calloc(1, (size))
#define kcalloc(n, size, gfp)	calloc((n), (size))
#define kfree(p)		free((void *)(p))

/* The kernel's sort() takes a swap function, NULL for the generic one. */
#define sort(base, num, size, cmp, swap) qsort((base), (num), (size), (cmp))

/* One thread: the audit record's lock is never contended here. */
typedef struct { int unused; } spinlock_t;
#define spin_lock_init(l)		((void)(l))
#define spin_lock_irqsave(l, flags)	((void)(l), (flags) = 0)
#define spin_unlock_irqrestore(l, flags) ((void)(l), (void)(flags))

static inline int kstrtou32(const char *s, unsigned int base, u32 *res)
{
	unsigned long v;
	char *end;

	if (!*s || isspace((unsigned char)*s) || *s == '-')
		return -EINVAL;
	errno = 0;
	v = strtoul(s, &end, base);
	if (*end == '\n')
		end++;
	if (*end)
		return -EINVAL;
	if (errno || v > U32_MAX)
		return -ERANGE;
	*res = (u32)v;
	return 0;
}

/* The kernel's scnprintf(): the length written, not the length wanted. */
static inline int scnprintf(char *buf, size_t size, const char *fmt, ...)
{
	va_list ap;
	int n;

	if (!size)
		return 0;
	va_start(ap, fmt);
	n = vsnprintf(buf, size, fmt, ap);
	va_end(ap);
	if (n < 0)
		return 0;
	return (size_t)n >= size ? (int)size - 1 : n;
}

/*
 * Lock assertions and might_sleep(): one thread, no lockdep, nothing to
 * check.  The arguments are still evaluated for their type, as the
 * kernel's !CONFIG_LOCKDEP stubs do.
 */
#ifndef lockdep_assert_held
#define lockdep_assert_held(l)		do { (void)(l); } while (0)
#endif
#ifndef lockdep_assert_held_read
#define lockdep_assert_held_read(l)	do { (void)(l); } while (0)
#endif
#ifndef lockdep_assert_held_write
#define lockdep_assert_held_write(l)	do { (void)(l); } while (0)
#endif
#ifndef lockdep_assert_not_held
#define lockdep_assert_not_held(l)	do { (void)(l); } while (0)
#endif
#ifndef mmap_assert_locked
#define mmap_assert_locked(mm)		do { (void)(mm); } while (0)
#endif
#ifndef mmap_assert_write_locked
#define mmap_assert_write_locked(mm)	do { (void)(mm); } while (0)
#endif
#ifndef might_sleep
#define might_sleep()			do { } while (0)
#endif

#define MAX_ERRNO		4095
static inline void *ERR_PTR(long err)
{
	return (void *)err;
}

static inline long PTR_ERR(const void *p)
{
	return (long)p;
}

static inline bool IS_ERR(const void *p)
{
	return (unsigned long)p >= (unsigned long)-MAX_ERRNO;
}

static inline bool IS_ERR_OR_NULL(const void *p)
{
	return !p || IS_ERR(p);
}

/* What the module's shared types (kmod/nvm.h) name but this code never uses. */
#define TASK_COMM_LEN		16
typedef struct { long long counter; } atomic64_t;
struct list_head { struct list_head *next, *prev; };

#endif /* NVM_KSHIM_H */
