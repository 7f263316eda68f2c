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

#endif
