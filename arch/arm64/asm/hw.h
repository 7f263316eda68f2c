/* SPDX-License-Identifier: MIT */
/*
 * The hardware model the arch layer drives: TLB maintenance reaches the TLB
 * model and the break-before-make checker from tlbflush.c, and every
 * descriptor store reaches the checker from pgtable.c.
 */
#ifndef PTSIM_ASM_HW_H
#define PTSIM_ASM_HW_H

#include "asm/tlbflush.h"

/* tlb.c */
void tlb_invalidate(struct ptsim_machine *m, const struct tlbi_op *op);
void tlb_dsb(struct ptsim_machine *m);
/* Valid user TLB entries that grant more than the tables now do. */
uint64_t tlb_check_user_entries(struct ptsim_machine *m);

/* bbm.c */
void bbm_check_write(struct ptsim_mm *mm, uint64_t va, int level, pte_t old_desc, pte_t new_desc);
void bbm_tlbi(struct ptsim_machine *m, const struct tlbi_op *op);
void bbm_dsb(struct ptsim_machine *m);
int bbm_copy(struct bbm_state *dst, const struct bbm_state *src);
void bbm_free(struct bbm_state *b);

/* Does a valid -> valid change of one live descriptor need break-before-make on this CPU? */
const char *bbm_needs_break(const struct ptsim_machine *m, int level, pte_t old_desc,
			    pte_t new_desc);

#endif
