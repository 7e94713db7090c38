// SPDX-License-Identifier: GPL-2.0
/*
 * nvmediate: NVIDIA driver version strings.
 *
 * Drivers report two- or three-part versions with leading zeros
 * ("515.57", "550.100", "570.86.15", "620.06.00").  A version is compared
 * as numbers, part by part; a missing third part counts as 0.
 */
#include <linux/ctype.h>
#include <linux/errno.h>
#include <linux/kernel.h>
#include <linux/string.h>

#include "version.h"

#define NVM_VERSION_PART_MAX	((1U << NVM_VERSION_PART_BITS) - 1)

/**
 * nvm_version_parse() - parse a driver version
 * @s: the text; leading and trailing white space is ignored
 * @v: the result
 *
 * Return: 0, or -EINVAL for anything but 2 or 3 dot-separated decimal
 * parts, each of 1 to 7 digits and at most %NVM_VERSION_PART_MAX.
 */
int nvm_version_parse(const char *s, struct nvm_version *v)
{
	unsigned int part = 0, digits = 0;
	u32 val[3] = { };

	s = skip_spaces(s);
	for (; *s && !isspace(*s); s++) {
		if (*s == '.') {
			if (!digits || ++part > 2)
				return -EINVAL;
			digits = 0;
			continue;
		}
		if (!isdigit(*s) || ++digits > 7)
			return -EINVAL;
		val[part] = val[part] * 10 + (*s - '0');
		if (val[part] > NVM_VERSION_PART_MAX)
			return -EINVAL;
	}
	if (*skip_spaces(s) || !digits || part < 1)
		return -EINVAL;

	v->major = val[0];
	v->minor = val[1];
	v->patch = val[2];
	v->parts = part + 1;
	return 0;
}

/**
 * nvm_version_find() - the first dotted version number in a line of text
 * @text: e.g. the first line of /proc/driver/nvidia/version, whose wording
 *	differs between the open and the proprietary driver
 * @v: the result
 *
 * Return: 0, or -ENOENT when there is none.
 */
int nvm_version_find(const char *text, struct nvm_version *v)
{
	char tok[24];
	size_t n;

	while (*text && *text != '\n') {
		n = strspn(text, "0123456789.");
		if (n && n < sizeof(tok) && isdigit(*text) &&
		    (text[n] == '\0' || isspace(text[n]))) {
			memcpy(tok, text, n);
			tok[n] = '\0';
			if (!nvm_version_parse(tok, v))
				return 0;
		}
		text += n ? n : 1;
	}
	return -ENOENT;
}

/**
 * nvm_version_key() - a number that orders versions as the driver does
 * @v: the version
 *
 * Return: the key; equal keys mean numerically equal versions.
 */
u64 nvm_version_key(const struct nvm_version *v)
{
	return ((u64)v->major << (2 * NVM_VERSION_PART_BITS)) |
	       ((u64)v->minor << NVM_VERSION_PART_BITS) | v->patch;
}

/**
 * nvm_version_format() - print a version key as the driver does
 * @key: from nvm_version_key()
 * @buf: at least %NVM_VERSION_STR_MAX bytes
 *
 * Three parts are printed with the driver's two-digit padding of the last
 * one ("570.86.05"); a zero third part is printed too, since the key does
 * not remember how many parts the text had.
 */
void nvm_version_format(u64 key, char *buf)
{
	u32 mask = NVM_VERSION_PART_MAX;

	snprintf(buf, NVM_VERSION_STR_MAX, "%u.%02u.%02u",
		 (u32)(key >> (2 * NVM_VERSION_PART_BITS)) & mask,
		 (u32)(key >> NVM_VERSION_PART_BITS) & mask, (u32)key & mask);
}

#ifdef NVM_KUNIT
#include "../kunit/version_test.c"
#endif
