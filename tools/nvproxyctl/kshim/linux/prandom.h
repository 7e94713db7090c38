/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The kernel's seeded pseudo-random numbers (include/linux/prandom.h,
 * lib/random32.c): the same generator and seeding, so that a test seeded
 * with a number meets the same sequence here as in the kernel.
 */
#ifndef NVM_KSHIM_PRANDOM_H
#define NVM_KSHIM_PRANDOM_H

#include "../kshim.h"
#include "random.h"

struct rnd_state {
	u32 s1, s2, s3, s4;
};

static inline u32 kshim_prandom_seed(u32 x, u32 m)
{
	return (x < m) ? x + m : x;
}

static inline void prandom_seed_state(struct rnd_state *state, u64 seed)
{
	u32 i = ((seed >> 32) ^ (seed << 10) ^ seed) & 0xffffffffUL;

	state->s1 = kshim_prandom_seed(i, 2U);
	state->s2 = kshim_prandom_seed(i, 8U);
	state->s3 = kshim_prandom_seed(i, 16U);
	state->s4 = kshim_prandom_seed(i, 128U);
}

static inline u32 prandom_u32_state(struct rnd_state *state)
{
#define KSHIM_TAUSWORTHE(s, a, b, c, d) ((s & c) << d) ^ (((s << a) ^ s) >> b)
	state->s1 = KSHIM_TAUSWORTHE(state->s1, 6U, 13U, 4294967294U, 18U);
	state->s2 = KSHIM_TAUSWORTHE(state->s2, 2U, 27U, 4294967288U, 2U);
	state->s3 = KSHIM_TAUSWORTHE(state->s3, 13U, 21U, 4294967280U, 7U);
	state->s4 = KSHIM_TAUSWORTHE(state->s4, 3U, 12U, 4294967168U, 13U);
#undef KSHIM_TAUSWORTHE
	return state->s1 ^ state->s2 ^ state->s3 ^ state->s4;
}

#endif /* NVM_KSHIM_PRANDOM_H */
