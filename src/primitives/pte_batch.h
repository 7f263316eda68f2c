/* SPDX-License-Identifier: MIT */
/* folio_pte_batch and its flags (models mm/internal.h; src/primitives/pte_batch.c). */
#ifndef PTSIM_PTE_BATCH_H
#define PTSIM_PTE_BATCH_H

#include "internal.h"

/* What a batch must agree on beyond the PFN run (AF is never compared). */
#define FPB_RESPECT_DIRTY		0x1u
#define FPB_RESPECT_SOFT_DIRTY		0x2u
#define FPB_RESPECT_WRITE		0x4u
/* Fold what the batch saw into the caller's template entry. */
#define FPB_MERGE_WRITE			0x8u
#define FPB_MERGE_YOUNG_DIRTY		0x10u

/*
 * folio_pte_batch_flags: how many entries from ptep map consecutive pages of
 * f with identical normalised bits (at most max_nr); *ptentp is the first
 * entry as read, merged with what FPB_MERGE_* asks for.
 */
unsigned int folio_pte_batch_flags(struct ptsim_mm *mm, const struct folio *f, pte_t *ptep,
				   pte_t *ptentp, unsigned int max_nr, unsigned int flags);

/*
 * folio_pte_batch: the batch of a caller that passes no flags (zap, mlock,
 * the lazyfree unmap, mremap before v6.18). Inline before v6.17; from v6.17
 * ("folio_pte_batch_call") an out-of-line function in mm/util.c, one call a batch.
 */
unsigned int folio_pte_batch(struct ptsim_mm *mm, const struct folio *f, pte_t *ptep, pte_t pte,
			     unsigned int max_nr);

#endif
