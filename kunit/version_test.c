// SPDX-License-Identifier: GPL-2.0
/*
 * nvmediate: KUnit suite for version parsing (version.c), built into it
 * with NVM_KUNIT (the #include at its end) and into tests/unit/main.c.
 */
#include <kunit/test.h>
#include <linux/ctype.h>

struct nvm_version_case {
	const char *text;
	int ret;
	u32 major, minor, patch;
	u8 parts;
};

static const struct nvm_version_case nvm_version_cases[] = {
	{ "515.57", 0, 515, 57, 0, 2 },
	{ "550.100", 0, 550, 100, 0, 2 },
	{ "570.86.15", 0, 570, 86, 15, 3 },
	{ "620.06.00", 0, 620, 6, 0, 3 },
	{ "535.43.02", 0, 535, 43, 2, 3 },
	{ " 595.45.04\n", 0, 595, 45, 4, 3 },
	{ "0.0", 0, 0, 0, 0, 2 },
	{ "1048575.1.1", 0, 1048575, 1, 1, 3 },
	{ "1048576.1.1", -EINVAL },	/* part too large */
	{ "5155555.1", -EINVAL },	/* too large */
	{ "00000001.1", -EINVAL },	/* eight digits */
	{ "0000001.1", 0, 1, 1, 0, 2 },
	{ "", -EINVAL },
	{ "   ", -EINVAL },
	{ "570", -EINVAL },		/* one part */
	{ "570.", -EINVAL },
	{ ".570.1", -EINVAL },
	{ "570..1", -EINVAL },
	{ "570.86.15.1", -EINVAL },	/* four parts */
	{ "570.86.15a", -EINVAL },
	{ "570.86 15", -EINVAL },	/* text after the version */
	{ "-570.86", -EINVAL },
	{ "v570.86", -EINVAL },
	{ "570.0x1f", -EINVAL },
};

static void nvm_version_case_desc(const struct nvm_version_case *c, char *desc)
{
	char *p;

	snprintf(desc, KUNIT_PARAM_DESC_SIZE, "\"%s\"", c->text);
	for (p = desc; *p; p++)		/* keep the KTAP line on one line */
		if (!isprint(*p))
			*p = '?';
}

KUNIT_ARRAY_PARAM(nvm_version, nvm_version_cases, nvm_version_case_desc);

static void version_test_parse(struct kunit *test)
{
	const struct nvm_version_case *c = test->param_value;
	struct nvm_version v = { };

	KUNIT_ASSERT_EQ(test, nvm_version_parse(c->text, &v), c->ret);
	if (c->ret)
		return;
	KUNIT_EXPECT_EQ(test, v.major, c->major);
	KUNIT_EXPECT_EQ(test, v.minor, c->minor);
	KUNIT_EXPECT_EQ(test, v.patch, c->patch);
	KUNIT_EXPECT_EQ(test, v.parts, c->parts);
}

static u64 nvm_test_key(const char *s)
{
	struct nvm_version v;

	if (nvm_version_parse(s, &v))
		return U64_MAX;
	return nvm_version_key(&v);
}

/* Numeric, not textual, order; leading zeros do not matter. */
static void version_test_order(struct kunit *test)
{
	static const char *const ascending[] = {
		"515.43.04", "515.57", "515.57.01", "515.65.01", "535.9.1", "535.43.02",
		"535.43.8", "535.43.28", "535.288.01", "550.40.07", "550.100",
		"550.163.01", "570.86.15", "620.06.00", "620.6.1",
	};
	unsigned int i;

	for (i = 1; i < ARRAY_SIZE(ascending); i++)
		KUNIT_EXPECT_LT_MSG(test, nvm_test_key(ascending[i - 1]), nvm_test_key(ascending[i]),
				    "%s < %s", ascending[i - 1], ascending[i]);
	KUNIT_EXPECT_EQ(test, nvm_test_key("620.06.00"), nvm_test_key("620.6.0"));
}

static void version_test_find_in_proc_line(struct kunit *test)
{
	struct nvm_version v;

	KUNIT_ASSERT_EQ(test, nvm_version_find(
		"NVRM version: NVIDIA UNIX Open Kernel Module for x86_64  595.45.04  Release Build  (dvs-builder@U16-I3-B03-4-3)  Tue Mar  3 2026",
		&v), 0);
	KUNIT_EXPECT_EQ(test, nvm_version_key(&v), nvm_test_key("595.45.04"));
	KUNIT_ASSERT_EQ(test, nvm_version_find(
		"NVRM version: NVIDIA UNIX x86_64 Kernel Module  550.100  Thu Jun  6 2024", &v), 0);
	KUNIT_EXPECT_EQ(test, nvm_version_key(&v), nvm_test_key("550.100"));
	/* "x86_64" and "U16-I3" are not versions; a line without one fails. */
	KUNIT_EXPECT_EQ(test, nvm_version_find("NVRM version: NVIDIA x86_64 1.2.3.4 x", &v),
			-ENOENT);
	KUNIT_EXPECT_EQ(test, nvm_version_find("", &v), -ENOENT);
	/* Only the first line counts. */
	KUNIT_EXPECT_EQ(test, nvm_version_find("no version here\n570.86.15", &v), -ENOENT);
}

static void version_test_format(struct kunit *test)
{
	char buf[NVM_VERSION_STR_MAX];

	nvm_version_format(nvm_test_key("570.86.5"), buf);
	KUNIT_EXPECT_STREQ(test, buf, "570.86.05");
	nvm_version_format(nvm_test_key("1048575.1048575.1048575"), buf);
	KUNIT_EXPECT_STREQ(test, buf, "1048575.1048575.1048575");
}

static struct kunit_case nvm_version_test_cases[] = {
	KUNIT_CASE_PARAM(version_test_parse, nvm_version_gen_params),
	KUNIT_CASE(version_test_order),
	KUNIT_CASE(version_test_find_in_proc_line),
	KUNIT_CASE(version_test_format),
	{}
};

static struct kunit_suite nvm_version_suite = {
	.name = "nvmediate_version",
	.test_cases = nvm_version_test_cases,
};

kunit_test_suite(nvm_version_suite);
