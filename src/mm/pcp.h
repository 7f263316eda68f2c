/* SPDX-License-Identifier: MIT */
/* The page allocator's side of a folio: this CPU's per-CPU lists and the buddy's (pcp.c). */
#ifndef PTSIM_PCP_H
#define PTSIM_PCP_H

#include "internal.h"

/* zone_set_pageset_high_and_batch (v6.12 mm/page_alloc.c): the lists' batch and marks, at boot and on a release change */
void zone_set_pageset_high_and_batch(struct ptsim_machine *m);
/*
 * rmqueue (v6.12 mm/page_alloc.c): a block of 1 << order page frames for a
 * folio, off this CPU's list for an order pcp_allowed_order admits (refilled
 * when empty), else off the buddy lists (rmqueue_buddy); 0 or -ENOMEM.
 */
int rmqueue(struct ptsim_machine *m, unsigned int order, uint64_t *pfn);
/* The model's undo of rmqueue for a folio that was never made: the block back, uncounted. */
void rmqueue_undo(struct ptsim_machine *m, uint64_t pfn, unsigned int order);
/*
 * free_the_page (v6.8 mm/page_alloc.c; v6.12 free_unref_page's choice): a
 * freed folio's block onto this CPU's list (drained past the mark), or one
 * the lists do not take to the buddy lists (free_one_page).
 */
void free_the_page(struct ptsim_machine *m, uint64_t pfn, unsigned int order);

#endif
