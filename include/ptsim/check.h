/* SPDX-License-Identifier: MIT */
#ifndef PTSIM_CHECK_H
#define PTSIM_CHECK_H

#include <stdint.h>
#include <ptsim/export.h>

#ifdef __cplusplus
extern "C" {
#endif

struct ptsim_machine;

/*
 * Check the model's invariants over every mm of m: table structure (table
 * descriptors and their tables agree, leaves only where the level allows
 * them), every contiguous group well formed (aligned, all or none with the
 * bit, consecutive output addresses, identical attributes), folio mapcounts
 * equal to the mappings in the tables, every anonymous folio mapped or
 * pinned (one with neither is a leak), page-table byte accounting, and no
 * user TLB entry granting more than the tables once maintenance is complete.
 * Each broken invariant is reported as a PTSIM_DIAG_INVARIANT diagnostic;
 * *violations (may be NULL) gets their number. Counts nothing.
 */
PTSIM_API int ptsim_check_invariants(struct ptsim_machine *m, uint64_t *violations);

#ifdef __cplusplus
}
#endif

#endif
