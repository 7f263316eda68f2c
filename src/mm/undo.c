// SPDX-License-Identifier: MIT
/*
 * The undo log's rollback: the folios and page-table pages a failed step
 * allocated, freed as if they never existed. The log itself is core's
 * machinery (src/core/machine.c); what its entries name belongs to mm, so
 * freeing them is mm's (issue 41: core calls nothing above it).
 */
#include "internal.h"

void undo_rollback(struct ptsim_machine *m)
{
	m->undo_active = false;
	while (m->undo_len) {
		struct undo_entry *e = &m->undo[--m->undo_len];

		if (e->kind == UNDO_FOLIO) {
			folio_free(m, e->ptr);
		} else {
			/* unlink the new table from its parent without counting: it never existed */
			e->parent->desc[e->parent_idx] = 0;
			e->parent->next[e->parent_idx] = NULL;
			pt_table_free(e->mm, e->ptr);
		}
	}
	undo_shrink(m);
}
