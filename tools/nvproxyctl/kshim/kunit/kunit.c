// SPDX-License-Identifier: GPL-2.0
/*
 * KUnit's runner in a program (lib/kunit/test.c, assert.c, executor.c of
 * 6.12): the registered suites run in order, each case in turn, each
 * parameter of a parameterized case in turn, and KTAP version 1 goes to
 * standard output in the kernel's words: the same nesting, numbering,
 * "# Subtest:" lines, statistics and failure reports (file:line, the
 * expressions and their values), so that kunit.py or
 * tests/qemu/verdict.sh read it as they read the kernel's.
 */
#include "test.h"
#include <fnmatch.h>

#define KUNIT_SUBTEST_INDENT		"    "
#define KUNIT_SUBSUBTEST_INDENT		"        "

struct kunit_resource {
	struct kunit_resource *next;
	void *ptr;
};

static struct kunit_suite *const *kunit_suites[64];
static size_t kunit_nsuites[64], kunit_nsets;

void kunit_register_suites(struct kunit_suite *const *suites, size_t n)
{
	if (kunit_nsets == ARRAY_SIZE(kunit_suites)) {
		fprintf(stderr, "kunit: too many kunit_test_suites()\n");
		abort();
	}
	kunit_suites[kunit_nsets] = suites;
	kunit_nsuites[kunit_nsets++] = n;
}

void *kunit_kmalloc_array(struct kunit *test, size_t n, size_t size, unsigned int gfp)
{
	struct kunit_resource *res;

	(void)gfp;
	if (size && n > SIZE_MAX / size)
		return NULL;
	res = malloc(sizeof(*res));
	if (!res)
		return NULL;
	res->ptr = malloc(n && size ? n * size : 1);
	if (!res->ptr) {
		free(res);
		return NULL;
	}
	res->next = test->resources;
	test->resources = res;
	return res->ptr;
}

void kunit_kfree(struct kunit *test, const void *ptr)
{
	struct kunit_resource **p;

	for (p = &test->resources; *p; p = &(*p)->next) {
		struct kunit_resource *res = *p;

		if (res->ptr == ptr) {
			*p = res->next;
			free(res->ptr);
			free(res);
			return;
		}
	}
}

static void kunit_cleanup(struct kunit *test)
{
	while (test->resources) {
		struct kunit_resource *res = test->resources;

		test->resources = res->next;
		free(res->ptr);
		free(res);
	}
}

void kunit_host_abort(struct kunit *test)
{
	if (!test->abort) {
		fprintf(stderr, "kunit: %s: abort outside a test case\n", test->name);
		abort();
	}
	longjmp(*test->abort, 1);
}

/* A growing string: the kernel's string_stream. */
struct kunit_stream {
	char *buf;
	size_t len, size;
};

static void kunit_vadd(struct kunit_stream *s, const char *fmt, va_list ap)
{
	va_list aq;
	int n;

	va_copy(aq, ap);
	n = vsnprintf(NULL, 0, fmt, aq);
	va_end(aq);
	if (n < 0)
		return;
	if (s->len + (size_t)n + 1 > s->size) {
		size_t size = 2 * (s->len + (size_t)n + 1);
		char *buf = realloc(s->buf, size);

		if (!buf)
			return;
		s->buf = buf;
		s->size = size;
	}
	vsnprintf(s->buf + s->len, s->size - s->len, fmt, ap);
	s->len += (size_t)n;
}

__printf(2, 3) static void kunit_add(struct kunit_stream *s, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	kunit_vadd(s, fmt, ap);
	va_end(ap);
}

/* What printk() does with a message: one line more if it has no newline. */
static void kunit_print(const char *text)
{
	size_t n = strlen(text);

	fputs(text, stdout);
	if (!n || text[n - 1] != '\n')
		fputc('\n', stdout);
}

void kunit_host_log(struct kunit *test, const char *fmt, ...)
{
	struct kunit_stream s = { };
	va_list ap;

	kunit_add(&s, KUNIT_SUBTEST_INDENT "# %s: ", test->name);
	va_start(ap, fmt);
	kunit_vadd(&s, fmt, ap);
	va_end(ap);
	if (s.buf)
		kunit_print(s.buf);
	free(s.buf);
}

/* kunit_fail(): the report is a message of the case, then the outcome. */
static void kunit_report_end(struct kunit *test, struct kunit_stream *s)
{
	test->status = KUNIT_FAILURE;
	if (s->buf)
		kunit_host_log(test, "%s", s->buf);
	free(s->buf);
}

static void kunit_prologue(struct kunit_stream *s, enum kunit_assert_type type,
			   const char *file, int line)
{
	kunit_add(s, "%s FAILED at %s:%d\n",
		  type == KUNIT_ASSERTION ? "ASSERTION" : "EXPECTATION", file, line);
}

/* kunit_assert_print_msg(): the test's own message, on a line of its own. */
static void kunit_msg(struct kunit_stream *s, const char *fmt, va_list ap)
{
	if (!fmt)
		return;
	kunit_add(s, "\n");
	kunit_vadd(s, fmt, ap);
}

/* Is @text a literal that reads @value ("5" and 5)? */
static bool kunit_is_literal(const char *text, long long value)
{
	char buf[32];

	snprintf(buf, sizeof(buf), "%lld", value);
	return !strcmp(text, buf);
}

/* Is @text the string literal of @value? */
static bool kunit_is_str_literal(const char *text, const char *value)
{
	size_t len = strlen(text);

	if (len < 2 || text[0] != '"' || text[len - 1] != '"')
		return false;
	return !strncmp(text + 1, value, len - 2);
}

void kunit_fail_report(struct kunit *test, enum kunit_assert_type type, const char *file,
		       int line, const char *fmt, ...)
{
	struct kunit_stream s = { };
	va_list ap;

	kunit_prologue(&s, type, file, line);
	va_start(ap, fmt);
	kunit_vadd(&s, fmt, ap);
	va_end(ap);
	kunit_report_end(test, &s);
}

void kunit_unary_report(struct kunit *test, enum kunit_assert_type type, const char *file,
			int line, const char *cond, bool expected_true, const char *fmt, ...)
{
	struct kunit_stream s = { };
	va_list ap;

	kunit_prologue(&s, type, file, line);
	kunit_add(&s, KUNIT_SUBTEST_INDENT "Expected %s to be %s, but is %s\n", cond,
		  expected_true ? "true" : "false", expected_true ? "false" : "true");
	va_start(ap, fmt);
	kunit_msg(&s, fmt, ap);
	va_end(ap);
	kunit_report_end(test, &s);
}

void kunit_binary_report(struct kunit *test, enum kunit_assert_type type, const char *file,
			 int line, const char *left_text, const char *op, const char *right_text,
			 long long left, long long right, const char *fmt, ...)
{
	struct kunit_stream s = { };
	va_list ap;

	kunit_prologue(&s, type, file, line);
	kunit_add(&s, KUNIT_SUBTEST_INDENT "Expected %s %s %s, but\n", left_text, op, right_text);
	if (!kunit_is_literal(left_text, left))
		kunit_add(&s, KUNIT_SUBSUBTEST_INDENT "%s == %lld (0x%llx)\n", left_text, left,
			  (unsigned long long)left);
	if (!kunit_is_literal(right_text, right))
		kunit_add(&s, KUNIT_SUBSUBTEST_INDENT "%s == %lld (0x%llx)", right_text, right,
			  (unsigned long long)right);
	va_start(ap, fmt);
	kunit_msg(&s, fmt, ap);
	va_end(ap);
	kunit_report_end(test, &s);
}

void kunit_ptr_report(struct kunit *test, enum kunit_assert_type type, const char *file,
		      int line, const char *left_text, const char *op, const char *right_text,
		      const void *left, const void *right, const char *fmt, ...)
{
	struct kunit_stream s = { };
	va_list ap;

	/* %px: the pointer's bits, in hexadecimal, as wide as a pointer */
	kunit_prologue(&s, type, file, line);
	kunit_add(&s, KUNIT_SUBTEST_INDENT "Expected %s %s %s, but\n", left_text, op, right_text);
	kunit_add(&s, KUNIT_SUBSUBTEST_INDENT "%s == %0*lx\n", left_text,
		  (int)(2 * sizeof(void *)), (unsigned long)left);
	kunit_add(&s, KUNIT_SUBSUBTEST_INDENT "%s == %0*lx", right_text,
		  (int)(2 * sizeof(void *)), (unsigned long)right);
	va_start(ap, fmt);
	kunit_msg(&s, fmt, ap);
	va_end(ap);
	kunit_report_end(test, &s);
}

void kunit_str_report(struct kunit *test, enum kunit_assert_type type, const char *file,
		      int line, const char *left_text, const char *op, const char *right_text,
		      const char *left, const char *right, const char *fmt, ...)
{
	struct kunit_stream s = { };
	va_list ap;

	kunit_prologue(&s, type, file, line);
	kunit_add(&s, KUNIT_SUBTEST_INDENT "Expected %s %s %s, but\n", left_text, op, right_text);
	if (!left || !kunit_is_str_literal(left_text, left))
		kunit_add(&s, KUNIT_SUBSUBTEST_INDENT "%s == \"%s\"\n", left_text,
			  left ? left : "(null)");
	if (!right || !kunit_is_str_literal(right_text, right))
		kunit_add(&s, KUNIT_SUBSUBTEST_INDENT "%s == \"%s\"", right_text,
			  right ? right : "(null)");
	va_start(ap, fmt);
	kunit_msg(&s, fmt, ap);
	va_end(ap);
	kunit_report_end(test, &s);
}

struct kunit_stats {
	unsigned long passed, failed, skipped, total;
};

static void kunit_update_stats(struct kunit_stats *stats, enum kunit_status status)
{
	if (status == KUNIT_SUCCESS)
		stats->passed++;
	else if (status == KUNIT_SKIPPED)
		stats->skipped++;
	else
		stats->failed++;
	stats->total++;
}

static void kunit_accumulate_stats(struct kunit_stats *total, struct kunit_stats add)
{
	total->passed += add.passed;
	total->skipped += add.skipped;
	total->failed += add.failed;
	total->total += add.total;
}

/* kunit.stats_enabled=1, the default: said where there is more than one. */
static void kunit_print_stats(const char *indent, const char *name, struct kunit_stats s)
{
	if (s.total > 1)
		printf("%s# %s: pass:%lu fail:%lu skip:%lu total:%lu\n", indent, name, s.passed,
		       s.failed, s.skipped, s.total);
}

static void kunit_print_ok_not_ok(unsigned int level, enum kunit_status status, size_t n,
				  const char *description, const char *directive)
{
	printf("%*s%s %zu %s%s%s\n", 4 * level, "",
	       status == KUNIT_FAILURE ? "not ok" : "ok", n, description,
	       status == KUNIT_SKIPPED ? " # SKIP " : "",
	       status == KUNIT_SKIPPED ? directive : "");
}

/*
 * One run of a case (one parameter): the suite's init, the case, the
 * suite's exit and the cleanup, as kunit_run_case_catch_errors() does; an
 * assertion that fails ends the case but not the rest.
 */
static void kunit_run_case(struct kunit_suite *suite, struct kunit_case *test_case,
			   struct kunit *test)
{
	jmp_buf jb;

	test->abort = &jb;
	if (!setjmp(jb)) {
		int ret = suite->init ? suite->init(test) : 0;

		if (ret) {
			kunit_err(test, "failed to initialize: %d\n", ret);
			test->status = KUNIT_FAILURE;
		} else {
			test_case->run_case(test);
		}
	}
	if (!setjmp(jb)) {
		if (suite->exit)
			suite->exit(test);
	} else {
		test->status = KUNIT_FAILURE;
		kunit_err(test, "test aborted during cleanup. continuing without cleaning up\n");
	}
	test->abort = NULL;
	kunit_cleanup(test);

	if (test->status == KUNIT_FAILURE)
		test_case->status = KUNIT_FAILURE;
	else if (test_case->status != KUNIT_FAILURE && test->status == KUNIT_SUCCESS)
		test_case->status = KUNIT_SUCCESS;
}

static size_t kunit_suite_num_test_cases(const struct kunit_suite *suite)
{
	size_t n = 0;

	while (suite->test_cases[n].run_case)
		n++;
	return n;
}

static enum kunit_status kunit_suite_has_succeeded(const struct kunit_suite *suite)
{
	enum kunit_status status = KUNIT_SKIPPED;
	const struct kunit_case *c;

	if (suite->suite_init_err)
		return KUNIT_FAILURE;
	for (c = suite->test_cases; c->run_case; c++) {
		if (c->status == KUNIT_FAILURE)
			return KUNIT_FAILURE;
		if (c->status == KUNIT_SUCCESS)
			status = KUNIT_SUCCESS;
	}
	return status;
}

/* kunit_run_tests(): one suite; its cases' outcomes added to the counts. */
static void kunit_run_suite(struct kunit_suite *suite, size_t number, unsigned int *passed,
			    unsigned int *failed, unsigned int *skipped)
{
	char param_desc[KUNIT_PARAM_DESC_SIZE];
	struct kunit_stats suite_stats = { }, total_stats = { };
	struct kunit_case *test_case;

	suite->status_comment[0] = '\0';
	suite->suite_init_err = 0;
	if (suite->suite_init) {
		suite->suite_init_err = suite->suite_init(suite);
		if (suite->suite_init_err) {
			/* kunit_err() on the suite: its name, then the message */
			printf(KUNIT_SUBTEST_INDENT "# %s: " KUNIT_SUBTEST_INDENT
			       "# failed to initialize (%d)\n", suite->name, suite->suite_init_err);
			(*failed)++;
			goto suite_end;
		}
	}

	printf(KUNIT_SUBTEST_INDENT "KTAP version 1\n");
	printf(KUNIT_SUBTEST_INDENT "# Subtest: %s\n", suite->name);
	printf(KUNIT_SUBTEST_INDENT "1..%zu\n", kunit_suite_num_test_cases(suite));

	for (test_case = suite->test_cases; test_case->run_case; test_case++) {
		struct kunit test = { .name = test_case->name, .status = KUNIT_SUCCESS };
		struct kunit_stats param_stats = { };

		test_case->status = KUNIT_SKIPPED;
		if (!test_case->generate_params) {
			kunit_run_case(suite, test_case, &test);
			kunit_update_stats(&param_stats, test.status);
		} else {
			param_desc[0] = '\0';
			test.param_value = test_case->generate_params(NULL, param_desc);
			printf(KUNIT_SUBTEST_INDENT KUNIT_SUBTEST_INDENT "KTAP version 1\n");
			printf(KUNIT_SUBTEST_INDENT KUNIT_SUBTEST_INDENT "# Subtest: %s\n",
			       test_case->name);
			while (test.param_value) {
				kunit_run_case(suite, test_case, &test);
				if (param_desc[0] == '\0')
					snprintf(param_desc, sizeof(param_desc), "param-%d",
						 test.param_index);
				kunit_print_ok_not_ok(2, test.status, test.param_index + 1,
						      param_desc, test.status_comment);
				kunit_update_stats(&param_stats, test.status);

				param_desc[0] = '\0';
				test.param_value = test_case->generate_params(test.param_value,
									      param_desc);
				test.param_index++;
				test.status = KUNIT_SUCCESS;
				test.status_comment[0] = '\0';
				test.priv = NULL;
			}
		}

		kunit_print_stats(KUNIT_SUBTEST_INDENT, test.name, param_stats);
		kunit_print_ok_not_ok(1, test_case->status,
				      (size_t)(test_case - suite->test_cases) + 1,
				      test_case->name, test.status_comment);
		kunit_update_stats(&suite_stats, test_case->status);
		kunit_accumulate_stats(&total_stats, param_stats);
		if (test_case->status == KUNIT_SUCCESS)
			(*passed)++;
		else if (test_case->status == KUNIT_FAILURE)
			(*failed)++;
		else
			(*skipped)++;
	}

	if (suite->suite_exit)
		suite->suite_exit(suite);
	kunit_print_stats("", suite->name, suite_stats);
	kunit_print_stats("", "Totals", total_stats);
suite_end:
	kunit_print_ok_not_ok(0, kunit_suite_has_succeeded(suite), number, suite->name,
			      suite->status_comment);
}

/*
 * kunit.filter_glob: "suite" or "suite.case", shell patterns.  A copy of
 * @suite with the cases that match, NULL when none does.
 */
static struct kunit_suite *kunit_filter(struct kunit_suite *suite, const char *glob)
{
	const char *dot = glob ? strchr(glob, '.') : NULL;
	char sglob[256];
	struct kunit_suite *copy;
	struct kunit_case *cases;
	size_t i, n = 0;

	if (!glob)
		return suite;
	snprintf(sglob, sizeof(sglob), "%.*s", dot ? (int)(dot - glob) : (int)strlen(glob), glob);
	if (fnmatch(sglob, suite->name, 0))
		return NULL;
	if (!dot)
		return suite;
	copy = malloc(sizeof(*copy));
	cases = calloc(kunit_suite_num_test_cases(suite) + 1, sizeof(*cases));
	if (!copy || !cases) {
		fprintf(stderr, "kunit: out of memory\n");
		exit(2);
	}
	memcpy(copy, suite, sizeof(*copy));
	for (i = 0; suite->test_cases[i].run_case; i++)
		if (!fnmatch(dot + 1, suite->test_cases[i].name, 0))
			cases[n++] = suite->test_cases[i];
	copy->test_cases = cases;
	if (n)
		return copy;
	free(cases);
	free(copy);
	return NULL;
}

static void kunit_filter_free(struct kunit_suite *filtered, struct kunit_suite *suite)
{
	if (filtered == suite)
		return;
	free(filtered->test_cases);
	free(filtered);
}

int kunit_run_all(const char *glob, unsigned int *passed, unsigned int *failed,
		  unsigned int *skipped)
{
	struct kunit_suite *suite, *filtered;
	size_t i, j, n = 0, number = 1;

	*passed = *failed = *skipped = 0;
	for (i = 0; i < kunit_nsets; i++)
		for (j = 0; j < kunit_nsuites[i]; j++) {
			suite = kunit_suites[i][j];
			filtered = kunit_filter(suite, glob);
			if (filtered) {
				n++;
				kunit_filter_free(filtered, suite);
			}
		}
	printf("KTAP version 1\n");
	printf("1..%zu\n", n);
	for (i = 0; i < kunit_nsets; i++)
		for (j = 0; j < kunit_nsuites[i]; j++) {
			suite = kunit_suites[i][j];
			filtered = kunit_filter(suite, glob);
			if (!filtered)
				continue;
			kunit_run_suite(filtered, number++, passed, failed, skipped);
			kunit_filter_free(filtered, suite);
			fflush(stdout);
		}
	return (int)*failed;
}
