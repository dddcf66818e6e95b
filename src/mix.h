/*
 * mix.h -- splitmix64's finaliser: nearby 64-bit values spread over the
 * whole range.  The random delay (policy.c) and Jenkins' H (cronexpr.c)
 * both draw from it, so that a job's values stay what they were.
 */
#ifndef TICKD_MIX_H
#define TICKD_MIX_H

#include <stdint.h>

static inline uint64_t
mix64(uint64_t h)
{
	h ^= h >> 30;
	h *= UINT64_C(0xbf58476d1ce4e5b9);
	h ^= h >> 27;
	h *= UINT64_C(0x94d049bb133111eb);
	h ^= h >> 31;
	return h;
}

#endif /* TICKD_MIX_H */
