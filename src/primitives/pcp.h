/* SPDX-License-Identifier: MIT */
/* This CPU's per-CPU page lists: their refills and drains (pcp.c). */
#ifndef PTSIM_PCP_H
#define PTSIM_PCP_H

#include "internal.h"

/* zone_set_pageset_high_and_batch (v6.12 mm/page_alloc.c): the lists' batch and marks, at boot and on a release change */
void zone_set_pageset_high_and_batch(struct ptsim_machine *m);
/* rmqueue_pcplist (v6.12 mm/page_alloc.c): a block of order off this CPU's list, refilled when empty */
void rmqueue_pcplist(struct ptsim_machine *m, unsigned int order);
/* free_unref_page_commit (v6.12 mm/page_alloc.c): a block of order onto the list, drained past the mark */
void free_unref_page_commit(struct ptsim_machine *m, unsigned int order);

#endif
