/* SPDX-License-Identifier: MIT */
/*
 * Simulated results shared by the processes of one test run (issue 47): when
 * PTSIM_BENCH_SIM_CACHE names a directory, a result a process simulated is
 * kept there under its name and this executable's hash, and a later process
 * of the same executable reads it back instead of simulating it again. The
 * simulation is deterministic, so what is read is what would be computed;
 * another build has another hash and never reads it. Unset: nothing is kept.
 */
#ifndef PTSIM_BENCH_SIM_CACHE_H
#define PTSIM_BENCH_SIM_CACHE_H

#include <stdbool.h>
#include <stddef.h>

/* Fill buf (len bytes) with the kept result name; false when there is none. */
bool sim_cache_load(const char *name, void *buf, size_t len);
/* Keep buf as the result name (best effort: a failure keeps nothing). */
void sim_cache_store(const char *name, const void *buf, size_t len);

#endif
