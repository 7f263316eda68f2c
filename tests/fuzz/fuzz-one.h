/* SPDX-License-Identifier: MIT */
#ifndef PTSIM_FUZZ_ONE_H
#define PTSIM_FUZZ_ONE_H

#include <stddef.h>
#include <stdint.h>

/* Run one input through the API; aborts when a model invariant breaks. */
int fuzz_one(const uint8_t *data, size_t size);

#endif
