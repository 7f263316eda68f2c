/* SPDX-License-Identifier: MIT */
/*
 * The one pseudo-random generator of the project: Marsaglia's xorshift64
 * (shifts 13, 7, 17), for ASLR in the library and for the random scenarios
 * of tests, fuzzing and benchmarks. Deterministic from its seed; never 0
 * from a non-zero state.
 */
#ifndef PTSIM_PRNG_H
#define PTSIM_PRNG_H

#include <stdint.h>

static inline uint64_t prng_next(uint64_t *state)
{
	uint64_t x = *state;

	x ^= x << 13;
	x ^= x >> 7;
	x ^= x << 17;
	*state = x;
	return x;
}

/*
 * splitmix64 (Steele, Lea, Flood 2014): turns any seed, even consecutive
 * ones, into a well-mixed starting state for prng_next.
 */
static inline uint64_t prng_seed(uint64_t seed)
{
	uint64_t z = seed + UINT64_C(0x9e3779b97f4a7c15);

	z = (z ^ (z >> 30)) * UINT64_C(0xbf58476d1ce4e5b9);
	z = (z ^ (z >> 27)) * UINT64_C(0x94d049bb133111eb);
	z ^= z >> 31;
	return z ? z : 1;	/* xorshift must not start at 0 */
}

#endif
