/* SPDX-License-Identifier: GPL-2.0 */
/*
 * KUnit (include/kunit/test.h) in a program: the suites, cases,
 * parameters, expectations, assertions and test-managed allocations that
 * kunit/<unit>_test.c use, run by kshim/kunit/kunit.c, which prints KTAP as
 * the kernel's KUnit prints it (lib/kunit/test.c, assert.c), so that the
 * same tools read both.  What differs: a case runs on the calling thread,
 * and an assertion ends it with longjmp() rather than by ending a kernel
 * thread.
 */
#ifndef NVM_KSHIM_KUNIT_TEST_H
#define NVM_KSHIM_KUNIT_TEST_H

#include "../kshim.h"
#include <setjmp.h>

#define KUNIT_PARAM_DESC_SIZE		128
#define KUNIT_STATUS_COMMENT_SIZE	256

enum kunit_status {
	KUNIT_SUCCESS,
	KUNIT_FAILURE,
	KUNIT_SKIPPED,
};

enum kunit_assert_type {
	KUNIT_ASSERTION,
	KUNIT_EXPECTATION,
};

struct kunit_resource;

/**
 * struct kunit - the context of one running case (one parameter of it)
 * @priv: for the case's own use
 * @name: the case's name
 * @param_value: the current parameter of a parameterized case
 * @param_index: its index
 * @status: the outcome so far
 * @status_comment: why it was skipped
 * @abort: where an assertion or kunit_skip() ends the case
 * @resources: what kunit_kmalloc() and friends allocated, freed after the case
 */
struct kunit {
	void *priv;
	const char *name;
	const void *param_value;
	int param_index;
	enum kunit_status status;
	char status_comment[KUNIT_STATUS_COMMENT_SIZE];
	jmp_buf *abort;
	struct kunit_resource *resources;
};

struct kunit_case {
	void (*run_case)(struct kunit *test);
	const char *name;
	const void *(*generate_params)(const void *prev, char *desc);
	/* set by the runner */
	enum kunit_status status;
};

struct kunit_suite {
	const char name[256];
	int (*suite_init)(struct kunit_suite *suite);
	void (*suite_exit)(struct kunit_suite *suite);
	int (*init)(struct kunit *test);
	void (*exit)(struct kunit *test);
	struct kunit_case *test_cases;
	/* set by the runner */
	char status_comment[KUNIT_STATUS_COMMENT_SIZE];
	int suite_init_err;
};

#define KUNIT_CASE(test_name)	{ .run_case = test_name, .name = #test_name }
#define KUNIT_CASE_PARAM(test_name, gen_params) \
	{ .run_case = test_name, .name = #test_name, .generate_params = gen_params }

#define KUNIT_ARRAY_PARAM(name, array, get_desc)					\
	static const void *name##_gen_params(const void *prev, char *desc)		\
	{										\
		__typeof__((array)[0]) *__next = prev ? ((__typeof__(__next))prev) + 1 : (array); \
		if (__next - (array) < (long)ARRAY_SIZE((array))) {			\
			void (*__get_desc)(__typeof__(__next), char *) = get_desc;	\
			if (__get_desc)							\
				__get_desc(__next, desc);				\
			return __next;							\
		}									\
		return NULL;								\
	}

/*
 * kunit_test_suites(&a, &b, ...), kunit_test_suite(a): the suites a
 * program runs, in this order, registered when it starts (the kernel's
 * module init, here a constructor; GCC runs a file's constructors in the
 * order they are defined, so the uses run in the order of the file).  Each
 * use has names of its own (__COUNTER__): a program that includes several
 * units holds several uses in one file.
 */
void kunit_register_suites(struct kunit_suite *const *suites, size_t n);
#define KUNIT_HOST_PASTE_(a, b)		a##b
#define KUNIT_HOST_PASTE(a, b)		KUNIT_HOST_PASTE_(a, b)
#define KUNIT_HOST_SUITES(id, ...)							\
	static struct kunit_suite *const KUNIT_HOST_PASTE(kunit_suites_, id)[] = {	\
		__VA_ARGS__								\
	};										\
	__attribute__((constructor)) static void KUNIT_HOST_PASTE(kunit_register_, id)(void) \
	{										\
		kunit_register_suites(KUNIT_HOST_PASTE(kunit_suites_, id),		\
				      ARRAY_SIZE(KUNIT_HOST_PASTE(kunit_suites_, id)));	\
	}
#define kunit_test_suites(...)		KUNIT_HOST_SUITES(__COUNTER__, __VA_ARGS__)
#define kunit_test_suite(suite)		kunit_test_suites(&suite)

/*
 * Run the registered suites whose names match @glob (kunit.filter_glob:
 * "suite" or "suite.case", shell patterns; NULL: all), printing KTAP.
 * Return: the number of failed cases.
 */
int kunit_run_all(const char *glob, unsigned int *passed, unsigned int *failed,
		  unsigned int *skipped);

/* Test-managed memory: freed when the case ends, however it ends. */
void *kunit_kmalloc_array(struct kunit *test, size_t n, size_t size, unsigned int gfp);
void kunit_kfree(struct kunit *test, const void *ptr);

static inline void *kunit_kmalloc(struct kunit *test, size_t size, unsigned int gfp)
{
	return kunit_kmalloc_array(test, 1, size, gfp);
}

static inline void *kunit_kzalloc(struct kunit *test, size_t size, unsigned int gfp)
{
	void *p = kunit_kmalloc(test, size, gfp);

	if (p)
		memset(p, 0, size);
	return p;
}

static inline void *kunit_kcalloc(struct kunit *test, size_t n, size_t size, unsigned int gfp)
{
	void *p = kunit_kmalloc_array(test, n, size, gfp);

	if (p)
		memset(p, 0, n * size);
	return p;
}

/* Messages of a case: "    # <case>: ..." */
__printf(2, 3) void kunit_host_log(struct kunit *test, const char *fmt, ...);
#define kunit_info(test, fmt, ...)	kunit_host_log(test, fmt, ##__VA_ARGS__)
#define kunit_warn(test, fmt, ...)	kunit_host_log(test, fmt, ##__VA_ARGS__)
#define kunit_err(test, fmt, ...)	kunit_host_log(test, fmt, ##__VA_ARGS__)

__attribute__((noreturn)) void kunit_host_abort(struct kunit *test);

#define kunit_mark_skipped(test, fmt, ...)						\
	do {										\
		(test)->status = KUNIT_SKIPPED;						\
		scnprintf((test)->status_comment, KUNIT_STATUS_COMMENT_SIZE,		\
			  fmt, ##__VA_ARGS__);						\
	} while (0)

#define kunit_skip(test, fmt, ...)							\
	do {										\
		kunit_mark_skipped((test), fmt, ##__VA_ARGS__);			\
		kunit_host_abort(test);							\
	} while (0)

/* The reports of failed checks (kunit.c), in lib/kunit/assert.c's words. */
__printf(5, 6) void kunit_fail_report(struct kunit *test, enum kunit_assert_type type,
				      const char *file, int line, const char *fmt, ...);
__printf(7, 8) void kunit_unary_report(struct kunit *test, enum kunit_assert_type type,
				       const char *file, int line, const char *cond,
				       bool expected_true, const char *fmt, ...);
__printf(10, 11) void kunit_binary_report(struct kunit *test, enum kunit_assert_type type,
					  const char *file, int line, const char *left_text,
					  const char *op, const char *right_text, long long left,
					  long long right, const char *fmt, ...);
__printf(10, 11) void kunit_ptr_report(struct kunit *test, enum kunit_assert_type type,
				       const char *file, int line, const char *left_text,
				       const char *op, const char *right_text, const void *left,
				       const void *right, const char *fmt, ...);
__printf(10, 11) void kunit_str_report(struct kunit *test, enum kunit_assert_type type,
				       const char *file, int line, const char *left_text,
				       const char *op, const char *right_text, const char *left,
				       const char *right, const char *fmt, ...);

/* An assertion that failed ends the case; an expectation lets it go on. */
#define KUNIT_HOST_END(test, type)							\
	do {										\
		if ((type) == KUNIT_ASSERTION)						\
			kunit_host_abort(test);						\
	} while (0)

#define KUNIT_FAIL_ASSERTION(test, type, fmt, ...)					\
	do {										\
		kunit_fail_report(test, type, __FILE__, __LINE__, fmt, ##__VA_ARGS__);	\
		KUNIT_HOST_END(test, type);						\
	} while (0)

#define KUNIT_UNARY_ASSERTION(test, type, condition_, expected_true_, fmt, ...)		\
	do {										\
		if (likely(!!(condition_) == !!(expected_true_)))			\
			break;								\
		kunit_unary_report(test, type, __FILE__, __LINE__, #condition_,		\
				   expected_true_, fmt, ##__VA_ARGS__);		\
		KUNIT_HOST_END(test, type);						\
	} while (0)

/*
 * As the kernel's: each side evaluated once, compared with C's own
 * conversions (the kernel builds without -Wsign-compare), printed as
 * long long.
 */
#define KUNIT_BINARY_INT_ASSERTION(test, type, left, op, right, fmt, ...)		\
	do {										\
		const __typeof__(left) __left = (left);					\
		const __typeof__(right) __right = (right);				\
		bool __ok;								\
		_Pragma("GCC diagnostic push")						\
		_Pragma("GCC diagnostic ignored \"-Wsign-compare\"")			\
		__ok = __left op __right;						\
		_Pragma("GCC diagnostic pop")						\
		if (likely(__ok))							\
			break;								\
		kunit_binary_report(test, type, __FILE__, __LINE__, #left, #op, #right,	\
				    (long long)__left, (long long)__right,	\
				    fmt, ##__VA_ARGS__);				\
		KUNIT_HOST_END(test, type);						\
	} while (0)

#define KUNIT_BINARY_PTR_ASSERTION(test, type, left, op, right, fmt, ...)		\
	do {										\
		const void *__left = (left);						\
		const void *__right = (right);						\
		if (likely(__left op __right))						\
			break;								\
		kunit_ptr_report(test, type, __FILE__, __LINE__, #left, #op, #right,	\
				 __left, __right, fmt, ##__VA_ARGS__);		\
		KUNIT_HOST_END(test, type);						\
	} while (0)

#define KUNIT_BINARY_STR_ASSERTION(test, type, left, op, right, fmt, ...)		\
	do {										\
		const char *__left = (left);						\
		const char *__right = (right);						\
		if (likely(__left && __right && (strcmp(__left, __right) op 0)))	\
			break;								\
		kunit_str_report(test, type, __FILE__, __LINE__, #left, #op, #right,	\
				 __left, __right, fmt, ##__VA_ARGS__);		\
		KUNIT_HOST_END(test, type);						\
	} while (0)

#define KUNIT_FAIL(test, fmt, ...)							\
	KUNIT_FAIL_ASSERTION(test, KUNIT_EXPECTATION, fmt, ##__VA_ARGS__)

/* Expectations. */
#define KUNIT_EXPECT_TRUE(test, c)		KUNIT_EXPECT_TRUE_MSG(test, c, NULL)
#define KUNIT_EXPECT_TRUE_MSG(test, c, fmt, ...) \
	KUNIT_UNARY_ASSERTION(test, KUNIT_EXPECTATION, c, true, fmt, ##__VA_ARGS__)
#define KUNIT_EXPECT_FALSE(test, c)		KUNIT_EXPECT_FALSE_MSG(test, c, NULL)
#define KUNIT_EXPECT_FALSE_MSG(test, c, fmt, ...) \
	KUNIT_UNARY_ASSERTION(test, KUNIT_EXPECTATION, c, false, fmt, ##__VA_ARGS__)
#define KUNIT_EXPECT_EQ(test, l, r)		KUNIT_EXPECT_EQ_MSG(test, l, r, NULL)
#define KUNIT_EXPECT_EQ_MSG(test, l, r, fmt, ...) \
	KUNIT_BINARY_INT_ASSERTION(test, KUNIT_EXPECTATION, l, ==, r, fmt, ##__VA_ARGS__)
#define KUNIT_EXPECT_NE(test, l, r)		KUNIT_EXPECT_NE_MSG(test, l, r, NULL)
#define KUNIT_EXPECT_NE_MSG(test, l, r, fmt, ...) \
	KUNIT_BINARY_INT_ASSERTION(test, KUNIT_EXPECTATION, l, !=, r, fmt, ##__VA_ARGS__)
#define KUNIT_EXPECT_LT(test, l, r)		KUNIT_EXPECT_LT_MSG(test, l, r, NULL)
#define KUNIT_EXPECT_LT_MSG(test, l, r, fmt, ...) \
	KUNIT_BINARY_INT_ASSERTION(test, KUNIT_EXPECTATION, l, <, r, fmt, ##__VA_ARGS__)
#define KUNIT_EXPECT_LE(test, l, r)		KUNIT_EXPECT_LE_MSG(test, l, r, NULL)
#define KUNIT_EXPECT_LE_MSG(test, l, r, fmt, ...) \
	KUNIT_BINARY_INT_ASSERTION(test, KUNIT_EXPECTATION, l, <=, r, fmt, ##__VA_ARGS__)
#define KUNIT_EXPECT_GT(test, l, r)		KUNIT_EXPECT_GT_MSG(test, l, r, NULL)
#define KUNIT_EXPECT_GT_MSG(test, l, r, fmt, ...) \
	KUNIT_BINARY_INT_ASSERTION(test, KUNIT_EXPECTATION, l, >, r, fmt, ##__VA_ARGS__)
#define KUNIT_EXPECT_GE(test, l, r)		KUNIT_EXPECT_GE_MSG(test, l, r, NULL)
#define KUNIT_EXPECT_GE_MSG(test, l, r, fmt, ...) \
	KUNIT_BINARY_INT_ASSERTION(test, KUNIT_EXPECTATION, l, >=, r, fmt, ##__VA_ARGS__)
#define KUNIT_EXPECT_PTR_EQ(test, l, r)		KUNIT_EXPECT_PTR_EQ_MSG(test, l, r, NULL)
#define KUNIT_EXPECT_PTR_EQ_MSG(test, l, r, fmt, ...) \
	KUNIT_BINARY_PTR_ASSERTION(test, KUNIT_EXPECTATION, l, ==, r, fmt, ##__VA_ARGS__)
#define KUNIT_EXPECT_PTR_NE(test, l, r)		KUNIT_EXPECT_PTR_NE_MSG(test, l, r, NULL)
#define KUNIT_EXPECT_PTR_NE_MSG(test, l, r, fmt, ...) \
	KUNIT_BINARY_PTR_ASSERTION(test, KUNIT_EXPECTATION, l, !=, r, fmt, ##__VA_ARGS__)
#define KUNIT_EXPECT_NULL(test, p)		KUNIT_EXPECT_NULL_MSG(test, p, NULL)
#define KUNIT_EXPECT_NULL_MSG(test, p, fmt, ...) \
	KUNIT_BINARY_PTR_ASSERTION(test, KUNIT_EXPECTATION, p, ==, NULL, fmt, ##__VA_ARGS__)
#define KUNIT_EXPECT_NOT_NULL(test, p)		KUNIT_EXPECT_NOT_NULL_MSG(test, p, NULL)
#define KUNIT_EXPECT_NOT_NULL_MSG(test, p, fmt, ...) \
	KUNIT_BINARY_PTR_ASSERTION(test, KUNIT_EXPECTATION, p, !=, NULL, fmt, ##__VA_ARGS__)
#define KUNIT_EXPECT_STREQ(test, l, r)		KUNIT_EXPECT_STREQ_MSG(test, l, r, NULL)
#define KUNIT_EXPECT_STREQ_MSG(test, l, r, fmt, ...) \
	KUNIT_BINARY_STR_ASSERTION(test, KUNIT_EXPECTATION, l, ==, r, fmt, ##__VA_ARGS__)
#define KUNIT_EXPECT_STRNEQ(test, l, r)		KUNIT_EXPECT_STRNEQ_MSG(test, l, r, NULL)
#define KUNIT_EXPECT_STRNEQ_MSG(test, l, r, fmt, ...) \
	KUNIT_BINARY_STR_ASSERTION(test, KUNIT_EXPECTATION, l, !=, r, fmt, ##__VA_ARGS__)

/* Assertions: the same checks, ending the case when they fail. */
#define KUNIT_ASSERT_FAILURE(test, fmt, ...) \
	KUNIT_FAIL_ASSERTION(test, KUNIT_ASSERTION, fmt, ##__VA_ARGS__)
#define KUNIT_ASSERT_TRUE(test, c)		KUNIT_ASSERT_TRUE_MSG(test, c, NULL)
#define KUNIT_ASSERT_TRUE_MSG(test, c, fmt, ...) \
	KUNIT_UNARY_ASSERTION(test, KUNIT_ASSERTION, c, true, fmt, ##__VA_ARGS__)
#define KUNIT_ASSERT_FALSE(test, c)		KUNIT_ASSERT_FALSE_MSG(test, c, NULL)
#define KUNIT_ASSERT_FALSE_MSG(test, c, fmt, ...) \
	KUNIT_UNARY_ASSERTION(test, KUNIT_ASSERTION, c, false, fmt, ##__VA_ARGS__)
#define KUNIT_ASSERT_EQ(test, l, r)		KUNIT_ASSERT_EQ_MSG(test, l, r, NULL)
#define KUNIT_ASSERT_EQ_MSG(test, l, r, fmt, ...) \
	KUNIT_BINARY_INT_ASSERTION(test, KUNIT_ASSERTION, l, ==, r, fmt, ##__VA_ARGS__)
#define KUNIT_ASSERT_NE(test, l, r)		KUNIT_ASSERT_NE_MSG(test, l, r, NULL)
#define KUNIT_ASSERT_NE_MSG(test, l, r, fmt, ...) \
	KUNIT_BINARY_INT_ASSERTION(test, KUNIT_ASSERTION, l, !=, r, fmt, ##__VA_ARGS__)
#define KUNIT_ASSERT_LT(test, l, r)		KUNIT_ASSERT_LT_MSG(test, l, r, NULL)
#define KUNIT_ASSERT_LT_MSG(test, l, r, fmt, ...) \
	KUNIT_BINARY_INT_ASSERTION(test, KUNIT_ASSERTION, l, <, r, fmt, ##__VA_ARGS__)
#define KUNIT_ASSERT_LE(test, l, r)		KUNIT_ASSERT_LE_MSG(test, l, r, NULL)
#define KUNIT_ASSERT_LE_MSG(test, l, r, fmt, ...) \
	KUNIT_BINARY_INT_ASSERTION(test, KUNIT_ASSERTION, l, <=, r, fmt, ##__VA_ARGS__)
#define KUNIT_ASSERT_GT(test, l, r)		KUNIT_ASSERT_GT_MSG(test, l, r, NULL)
#define KUNIT_ASSERT_GT_MSG(test, l, r, fmt, ...) \
	KUNIT_BINARY_INT_ASSERTION(test, KUNIT_ASSERTION, l, >, r, fmt, ##__VA_ARGS__)
#define KUNIT_ASSERT_GE(test, l, r)		KUNIT_ASSERT_GE_MSG(test, l, r, NULL)
#define KUNIT_ASSERT_GE_MSG(test, l, r, fmt, ...) \
	KUNIT_BINARY_INT_ASSERTION(test, KUNIT_ASSERTION, l, >=, r, fmt, ##__VA_ARGS__)
#define KUNIT_ASSERT_PTR_EQ(test, l, r)		KUNIT_ASSERT_PTR_EQ_MSG(test, l, r, NULL)
#define KUNIT_ASSERT_PTR_EQ_MSG(test, l, r, fmt, ...) \
	KUNIT_BINARY_PTR_ASSERTION(test, KUNIT_ASSERTION, l, ==, r, fmt, ##__VA_ARGS__)
#define KUNIT_ASSERT_PTR_NE(test, l, r)		KUNIT_ASSERT_PTR_NE_MSG(test, l, r, NULL)
#define KUNIT_ASSERT_PTR_NE_MSG(test, l, r, fmt, ...) \
	KUNIT_BINARY_PTR_ASSERTION(test, KUNIT_ASSERTION, l, !=, r, fmt, ##__VA_ARGS__)
#define KUNIT_ASSERT_NULL(test, p)		KUNIT_ASSERT_NULL_MSG(test, p, NULL)
#define KUNIT_ASSERT_NULL_MSG(test, p, fmt, ...) \
	KUNIT_BINARY_PTR_ASSERTION(test, KUNIT_ASSERTION, p, ==, NULL, fmt, ##__VA_ARGS__)
#define KUNIT_ASSERT_NOT_NULL(test, p)		KUNIT_ASSERT_NOT_NULL_MSG(test, p, NULL)
#define KUNIT_ASSERT_NOT_NULL_MSG(test, p, fmt, ...) \
	KUNIT_BINARY_PTR_ASSERTION(test, KUNIT_ASSERTION, p, !=, NULL, fmt, ##__VA_ARGS__)
#define KUNIT_ASSERT_STREQ(test, l, r)		KUNIT_ASSERT_STREQ_MSG(test, l, r, NULL)
#define KUNIT_ASSERT_STREQ_MSG(test, l, r, fmt, ...) \
	KUNIT_BINARY_STR_ASSERTION(test, KUNIT_ASSERTION, l, ==, r, fmt, ##__VA_ARGS__)
#define KUNIT_ASSERT_STRNEQ(test, l, r)		KUNIT_ASSERT_STRNEQ_MSG(test, l, r, NULL)
#define KUNIT_ASSERT_STRNEQ_MSG(test, l, r, fmt, ...) \
	KUNIT_BINARY_STR_ASSERTION(test, KUNIT_ASSERTION, l, !=, r, fmt, ##__VA_ARGS__)

#endif /* NVM_KSHIM_KUNIT_TEST_H */
