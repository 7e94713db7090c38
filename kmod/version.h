/* SPDX-License-Identifier: GPL-2.0 */
/*
 * nvmediate: driver version strings (version.c).
 */
#ifndef NVM_VERSION_H
#define NVM_VERSION_H

#include <linux/types.h>

#define NVM_VERSION_PART_BITS	20
#define NVM_VERSION_STR_MAX	24

/**
 * struct nvm_version - a driver version, e.g. 570.86.15
 * @major: first part
 * @minor: second part
 * @patch: third part, 0 when the version has two parts
 * @parts: 2 or 3
 */
struct nvm_version {
	u32 major;
	u32 minor;
	u32 patch;
	u8 parts;
};

int nvm_version_parse(const char *s, struct nvm_version *v);
int nvm_version_find(const char *text, struct nvm_version *v);
u64 nvm_version_key(const struct nvm_version *v);
void nvm_version_format(u64 key, char *buf);

#endif /* NVM_VERSION_H */
