/* SPDX-License-Identifier: GPL-2.0 */
/* get_random_bytes(): the kernel's random bytes, from the host kernel's. */
#ifndef NVM_KSHIM_RANDOM_H
#define NVM_KSHIM_RANDOM_H

#include "../kshim.h"
#include <sys/random.h>

static inline void get_random_bytes(void *buf, size_t len)
{
	u8 *p = buf;

	while (len) {
		ssize_t n = getrandom(p, len, 0);

		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0) {	/* the kernel's never fails */
			perror("getrandom");
			abort();
		}
		p += n;
		len -= (size_t)n;
	}
}

#endif /* NVM_KSHIM_RANDOM_H */
