/* SPDX-License-Identifier: GPL-2.0 */
/*
 * kshim.h - what the module's pure code (kmod/decide.c, the family
 * checks, policy.c, tables.c; and for the KUnit suites that tests/unit/
 * runs as a program, version.c, ranges.c, abi.c, fdplan.c) takes from the
 * kernel, in C11 and libc, so that nvproxyctl and those suites run that
 * very code.  Each linux/<name>.h here includes this file; kunit/test.h is
 * KUnit's.  Nothing here may decide anything for the module: only types,
 * allocation, sorting, searching, logging, and the kernel's services with
 * the kernel's meaning.
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

/* As the kernel's asm-generic/int-ll64.h: 64 bits are long long everywhere. */
typedef uint8_t u8;
typedef uint16_t u16;
typedef uint32_t u32;
typedef unsigned long long u64;
typedef int8_t s8;
typedef int16_t s16;
typedef int32_t s32;
typedef long long s64;

/* The compiler annotations of compiler_types.h and compiler_attributes.h. */
#ifndef __user
#define __user
#endif
#define __aligned(x)		__attribute__((__aligned__(x)))
#define __printf(a, b)		__attribute__((__format__(printf, a, b)))
#define __maybe_unused		__attribute__((__unused__))
#define fallthrough		__attribute__((__fallthrough__))
#define likely(x)		__builtin_expect(!!(x), 1)
#define unlikely(x)		__builtin_expect(!!(x), 0)

#define BIT(n)			(1UL << (n))
#define ARRAY_SIZE(a)		(sizeof(a) / sizeof((a)[0]))
#define WARN_ON_ONCE(c)		(!!(c))
#define U32_MAX			UINT32_MAX
#define U64_MAX			((u64)~0ULL)
#define struct_size(p, member, n) (sizeof(*(p)) + sizeof((p)->member[0]) * (n))
#define BITS_PER_LONG		(__SIZEOF_LONG__ * 8)
#define min(x, y)		({ __typeof__(x) _x = (x); __typeof__(y) _y = (y); _x < _y ? _x : _y; })
#define max(x, y)		({ __typeof__(x) _x = (x); __typeof__(y) _y = (y); _x > _y ? _x : _y; })
#define min_t(type, x, y)	({ type _x = (x); type _y = (y); _x < _y ? _x : _y; })
#define max_t(type, x, y)	({ type _x = (x); type _y = (y); _x > _y ? _x : _y; })

#define GFP_KERNEL		0
#define kzalloc(size, gfp)	calloc(1, (size))
#define kcalloc(n, size, gfp)	calloc((n), (size))
#define kfree(p)		free((void *)(p))

/* The kernel's sort() takes a swap function, NULL for the generic one. */
#define sort(base, num, size, cmp, swap) qsort((base), (num), (size), (cmp))

/* One thread: no lock is ever contended here. */
typedef struct { int unused; } spinlock_t;
#define DEFINE_SPINLOCK(x)		spinlock_t x = { 0 }
#define spin_lock_init(l)		((void)(l))
#define spin_lock(l)			((void)(l))
#define spin_unlock(l)			((void)(l))
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

/* The kernel's strscpy(): the length copied, or -E2BIG when truncated. */
static inline long strscpy(char *dst, const char *src, size_t size)
{
	size_t i;

	for (i = 0; i < size; i++) {
		dst[i] = src[i];
		if (!src[i])
			return (long)i;
	}
	if (size)
		dst[size - 1] = '\0';
	return -E2BIG;
}

static inline char *skip_spaces(const char *s)
{
	while (isspace((unsigned char)*s))
		s++;
	return (char *)s;
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
 * The kernel log is standard error here, or the file a program names in
 * *kshim_log(); each message ends as printk() ends it, with a newline.
 * pr_fmt() is the caller's, as in the kernel.
 */
#ifndef pr_fmt
#define pr_fmt(fmt)		fmt
#endif
static inline FILE **kshim_log(void)
{
	static FILE *log;	/* a program may send it elsewhere */

	return &log;
}

__printf(1, 2) static inline void kshim_printk(const char *fmt, ...)
{
	FILE *log = *kshim_log() ? *kshim_log() : stderr;
	size_t n = strlen(fmt);
	va_list ap;

	va_start(ap, fmt);
	vfprintf(log, fmt, ap);
	va_end(ap);
	if (!n || fmt[n - 1] != '\n')
		fputc('\n', log);
}
#define pr_err(fmt, ...)	kshim_printk(pr_fmt(fmt), ##__VA_ARGS__)
#define pr_warn(fmt, ...)	kshim_printk(pr_fmt(fmt), ##__VA_ARGS__)
#define pr_notice(fmt, ...)	kshim_printk(pr_fmt(fmt), ##__VA_ARGS__)
#define pr_info(fmt, ...)	kshim_printk(pr_fmt(fmt), ##__VA_ARGS__)
#define pr_err_ratelimited(fmt, ...) kshim_printk(pr_fmt(fmt), ##__VA_ARGS__)
#define pr_warn_ratelimited(fmt, ...) kshim_printk(pr_fmt(fmt), ##__VA_ARGS__)
#define pr_debug(fmt, ...)	do { if (0) kshim_printk(pr_fmt(fmt), ##__VA_ARGS__); } while (0)

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
struct file;
struct file_operations;
struct mm_struct;
struct poll_table_struct;
struct vm_area_struct;
#define TASK_COMM_LEN		16
typedef struct { long long counter; } atomic64_t;
struct list_head { struct list_head *next, *prev; };

#endif /* NVM_KSHIM_H */
