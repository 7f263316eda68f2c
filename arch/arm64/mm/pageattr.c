// SPDX-License-Identifier: MIT
/*
 * Permission changes over a range of the kernel linear map (models
 * arch/arm64/mm/pageattr.c, v6.18; doc/linear-map.md):
 * update_range_prot splits the two boundaries, rewrites each leaf once (a
 * partly covered block is a WARN and -EINVAL), and __change_memory_common
 * flushes the range unless pages only become valid.
 */
#include "asm/pgtable.h"
#include "asm/tlbflush.h"
#include "asm/kernel_map.h"

struct masks {
	pte_t set, clear;
};

/* The pageattr walk (pageattr_pud/pmd/pte_entry): clear, then set. */
static int pageattr_walk(struct ptsim_mm *kmm, struct pt_table *t, uint64_t base, uint64_t start,
			 uint64_t end, const struct masks *mk)
{
	const struct ptsim_geometry *g = &kmm->m->geo;
	uint64_t size = pt_level_size(g, t->level);

	for (unsigned int i = 0; i < t->entries; i++) {
		uint64_t va = base + i * size;
		pte_t d;

		if (va + size <= start || va >= end)
			continue;
		if (t->level < PTE_LEVEL && t->next[i]) {
			int err = pageattr_walk(kmm, t->next[i], va, start, end, mk);

			if (err)
				return err;
			continue;
		}
		d = read_desc(kmm, t->level, &t->desc[i]);
		if (t->level < PTE_LEVEL) {
			if (!pmd_sect(d))
				continue;	/* not a valid section: skipped (v6.18 p?d_sect) */
			if (va < start || va + size > end) {
				diag_report(kmm->m, PTSIM_DIAG_WARN, va, t->level, d, 0,
					    "pageattr: partly covered block");
				return -EINVAL;
			}
		} else if (pte_none(d)) {
			continue;
		}
		kernel_set_desc(kmm, va, t->level, &t->desc[i], (d & ~mk->clear) | mk->set);
	}
	return 0;
}

/* update_range_prot */
/*
 * "arm64: mm: Handle invalid large leaf mappings correctly" (2026): an
 * invalidated kernel leaf stays present to software (PTE_PRESENT_INVALID),
 * so split_kernel_leaf_mapping still splits it when part of it is changed
 * again; making it valid clears the marker.
 */
static struct masks invalid_leaf_fix(const struct ptsim_machine *m, struct masks mk)
{
	if (!feature(m, PTSIM_FEAT_LINEAR_MAP_INVALID_LEAF_FIX))
		return mk;
	if (mk.clear & PTE_VALID)
		mk.set |= PTE_PRESENT_INVALID;
	if (mk.set & PTE_VALID)
		mk.clear |= PTE_PRESENT_INVALID;
	return mk;
}

static int update_range_prot(struct ptsim_mm *kmm, uint64_t start, uint64_t size,
			     const struct masks *mk_in)
{
	struct masks fixed = invalid_leaf_fix(kmm->m, *mk_in);
	const struct masks *mk = &fixed;
	int err = split_kernel_leaf_mapping(kmm, start, start + size);

	if (err) {
		diag_report(kmm->m, PTSIM_DIAG_WARN, start, -1, 0, 0,
			    "update_range_prot: split failed (%d)", err);
		return err;
	}
	kernel_lazy_enter(kmm);
	err = pageattr_walk(kmm, kmm->pgd, kmm->kmap->page_offset, start, start + size, mk);
	kernel_lazy_leave(kmm);
	return err;
}

/* __change_memory_common: the flush happens even when update_range_prot failed. */
static int change_memory_common(struct ptsim_mm *kmm, uint64_t start, uint64_t size,
				const struct masks *mk)
{
	int err = update_range_prot(kmm, start, size, mk);

	if (!(mk->set == PTE_VALID && mk->clear == 0))
		flush_tlb_kernel_range(kmm->m, start, start + size);
	return err;
}

static bool valid_kernel_range(const struct ptsim_mm *kmm, uint64_t addr, uint64_t size)
{
	const struct kernel_map *k = kmm->kmap;

	return IS_ALIGNED64(addr, kmm->m->geo.page_size) && addr >= k->page_offset &&
	       size <= k->page_end - addr;
}

int ptsim_set_memory(struct ptsim_mm *kmm, uint64_t addr, uint64_t numpages,
		     enum ptsim_set_memory_op op)
{
	static const struct masks ops[] = {
		[PTSIM_SET_MEMORY_RO] = { PTE_RDONLY, PTE_WRITE },
		[PTSIM_SET_MEMORY_RW] = { PTE_WRITE, PTE_RDONLY },
		[PTSIM_SET_MEMORY_NX] = { PTE_PXN, PTE_GP },
		[PTSIM_SET_MEMORY_X] = { PTE_GP, PTE_PXN },
		[PTSIM_SET_MEMORY_VALID] = { PTE_VALID, 0 },
		[PTSIM_SET_MEMORY_INVALID] = { 0, PTE_VALID },
	};
	uint64_t size;
	int err;

	VALIDATE(kmm && kmm->kmap && (unsigned int)op <= PTSIM_SET_MEMORY_INVALID);
	REFUSE_IN_HANDLER(kmm->m);
	if (!numpages)
		return 0;
	VALIDATE(numpages <= (UINT64_C(1) << (kmm->m->geo.va_bits - kmm->m->geo.page_shift)));
	size = numpages << kmm->m->geo.page_shift;
	VALIDATE(valid_kernel_range(kmm, addr, size));
	op_begin(kmm->m);
	err = change_memory_common(kmm, addr, size, &ops[op]);
	op_end(kmm->m, 0);	/* the kernel leaves what it did, even on -EINVAL/-ENOMEM */
	return err;
}

int ptsim_set_direct_map(struct ptsim_mm *kmm, uint64_t addr, enum ptsim_direct_map_op op)
{
	static const struct masks ops[] = {
		[PTSIM_DIRECT_MAP_INVALID] = { 0, PTE_VALID },
		[PTSIM_DIRECT_MAP_DEFAULT] = { PTE_VALID | PTE_WRITE, PTE_RDONLY },
	};
	int err;

	VALIDATE(kmm && kmm->kmap && (unsigned int)op <= PTSIM_DIRECT_MAP_DEFAULT);
	REFUSE_IN_HANDLER(kmm->m);
	VALIDATE(valid_kernel_range(kmm, addr, kmm->m->geo.page_size));
	if (!can_set_direct_map(kmm))
		return 0;
	op_begin(kmm->m);
	err = update_range_prot(kmm, addr, kmm->m->geo.page_size, &ops[op]);
	op_end(kmm->m, 0);
	return err;
}
