/* SPDX-License-Identifier: MIT */
/*
 * The arm64 PTE layer as core mm sees it (models arch/arm64/include/asm/pgtable.h):
 * descriptor predicates and bit helpers with the semantics of the v6.17
 * kernel, and the contpte-aware accessors (doc/mprotect.md).
 */
#ifndef PTSIM_ASM_PGTABLE_H
#define PTSIM_ASM_PGTABLE_H

#include "internal.h"
#include "asm/pgtable-hwdef.h"

static inline bool pte_valid(pte_t pte) { return pte & PTE_VALID; }
static inline bool pte_none(pte_t pte) { return pte == 0; }
static inline bool pte_present(pte_t pte)
{
	return pte_valid(pte) || (pte & PTE_PRESENT_INVALID);
}
static inline bool pte_write(pte_t pte) { return pte & PTE_WRITE; }

/*
 * Swap entries (arm64 __swp_entry, in the model's own encoding): not present,
 * a marker bit, the swap offset from bit 12, PTE_SWP_EXCLUSIVE kept.
 */
#define SWP_MARKER	BIT64(5)

static inline bool is_swap_pte(pte_t pte)
{
	return pte && !pte_present(pte) && (pte & SWP_MARKER);
}
/* swp_entry_to_pte for swap slot `offset`, with pte_swp_mkexclusive when exclusive. */
static inline pte_t swp_entry_pte(uint64_t offset, bool exclusive)
{
	return (offset << 12) | SWP_MARKER | (exclusive ? PTE_SWP_EXCLUSIVE : 0);
}
/* swp_offset of a swap entry swp_entry_pte made. */
static inline uint64_t pte_swp_offset(pte_t pte)
{
	return pte >> 12;
}
/*
 * PTE markers (include/linux/swapops.h make_pte_marker, v6.12): a swap entry
 * of the type SWP_PTE_MARKER whose offset holds the marker bits. The model
 * puts SWP_PTE_MARKER (31 on arm64: the last of the 32 swap types) in
 * arm64's swap-type field, bits 6-10; a swap slot's entry has type 0.
 * PTE_MARKER_UFFD_WP is the only marker modelled (v6.12 mm/mprotect.c
 * change_pte_range puts it in a none entry of a uffd-wp VMA).
 */
#define SWP_PTE_MARKER		31u
#define SWP_TYPE_SHIFT		6
#define SWP_TYPE_MASK		(UINT64_C(0x1f) << SWP_TYPE_SHIFT)
#define PTE_MARKER_UFFD_WP	UINT64_C(1)

static inline pte_t make_pte_marker_uffd_wp(void)
{
	return (PTE_MARKER_UFFD_WP << 12) | ((uint64_t)SWP_PTE_MARKER << SWP_TYPE_SHIFT) | SWP_MARKER;
}
/* is_pte_marker: a swap entry that names no swap slot (non_swap_entry) but a marker. */
static inline bool is_pte_marker(pte_t pte)
{
	return is_swap_pte(pte) &&
	       ((pte & SWP_TYPE_MASK) >> SWP_TYPE_SHIFT) == SWP_PTE_MARKER;
}
/* pte_marker_uffd_wp (include/linux/userfaultfd_k.h) */
static inline bool pte_marker_uffd_wp(pte_t pte)
{
	return is_pte_marker(pte) && (pte_swp_offset(pte) & PTE_MARKER_UFFD_WP);
}
/* The swap entry's uffd-wp bit (arm64 PTE_SWP_UFFD_WP, bit 3; v6.10). */
static inline bool pte_swp_uffd_wp(pte_t pte) { return pte & PTE_SWP_UFFD_WP; }
static inline pte_t pte_swp_mkuffd_wp(pte_t pte) { return pte | PTE_SWP_UFFD_WP; }
static inline pte_t pte_swp_clear_uffd_wp(pte_t pte) { return pte & ~PTE_SWP_UFFD_WP; }
/* pte_swp_uffd_wp_any: a swap entry write-protected either way (bit or marker). */
static inline bool pte_swp_uffd_wp_any(pte_t pte)
{
	return is_swap_pte(pte) && (pte_swp_uffd_wp(pte) || pte_marker_uffd_wp(pte));
}
static inline bool pte_young(pte_t pte) { return pte & PTE_AF; }
static inline bool pte_rdonly(pte_t pte) { return pte & PTE_RDONLY; }
static inline bool pte_cont(pte_t pte) { return pte & PTE_CONT; }
static inline bool pte_special(pte_t pte) { return pte & PTE_SPECIAL; }
static inline bool pte_uffd_wp(pte_t pte) { return pte & PTE_UFFD_WP; }
static inline bool pte_user(pte_t pte) { return pte & PTE_USER; }
static inline bool pte_user_exec(pte_t pte) { return !(pte & PTE_UXN); }
static inline bool pte_hw_dirty(pte_t pte) { return pte_write(pte) && !pte_rdonly(pte); }
static inline bool pte_sw_dirty(pte_t pte) { return pte & PTE_DIRTY; }
static inline bool pte_dirty(pte_t pte) { return pte_sw_dirty(pte) || pte_hw_dirty(pte); }
static inline bool pte_valid_cont(pte_t pte) { return pte_valid(pte) && pte_cont(pte); }
/* pte_accessible: the TLB may hold it (a gather in flight keeps PROT_NONE entries suspect). */
static inline bool pte_accessible(const struct ptsim_mm *mm, pte_t pte)
{
	return mm->tlb_flush_pending ? pte_present(pte) : pte_valid(pte);
}
static inline bool pte_protnone(pte_t pte)
{
	return !pte_valid(pte) && (pte & PTE_PRESENT_INVALID) && !pte_user(pte) &&
	       !pte_user_exec(pte);
}
/* Table descriptor at levels 0..2 (bits[1:0] = 0b11). */
static inline bool pmd_table(pte_t pmd) { return (pmd & PTE_TYPE_MASK) == PMD_TYPE_TABLE; }
/* Block (section) descriptor at levels 1..2 (bits[1:0] = 0b01). */
static inline bool pmd_sect(pte_t pmd) { return (pmd & PTE_TYPE_MASK) == PMD_TYPE_SECT; }

static inline pte_t pte_mkclean(pte_t pte) { return (pte & ~PTE_DIRTY) | PTE_RDONLY; }
static inline pte_t pte_mkdirty(pte_t pte)
{
	pte |= PTE_DIRTY;
	if (pte_write(pte))
		pte &= ~PTE_RDONLY;
	return pte;
}
static inline pte_t pte_wrprotect(pte_t pte)
{
	/* keep the dirty state when write permission (DBM) goes away */
	if (pte_hw_dirty(pte))
		pte |= PTE_DIRTY;
	return (pte & ~PTE_WRITE) | PTE_RDONLY;
}
/* v6.17 pte_mkwrite_novma: the result is hardware-dirty at once. */
static inline pte_t pte_mkwrite(pte_t pte) { return (pte | PTE_WRITE) & ~PTE_RDONLY; }
static inline pte_t pte_mkold(pte_t pte) { return pte & ~PTE_AF; }
static inline pte_t pte_mkyoung(pte_t pte) { return pte | PTE_AF; }
static inline pte_t pte_mkcont(pte_t pte) { return pte | PTE_CONT; }
static inline pte_t pte_mknoncont(pte_t pte) { return pte & ~PTE_CONT; }
static inline pte_t pte_mkspecial(pte_t pte) { return pte | PTE_SPECIAL; }
static inline pte_t pte_mkuffd_wp(pte_t pte) { return pte_wrprotect(pte) | PTE_UFFD_WP; }
static inline pte_t pte_clear_uffd_wp(pte_t pte) { return pte & ~PTE_UFFD_WP; }

/* pte_modify's bits: the new protection, the hardware dirty state kept. */
static inline pte_t __pte_modify(pte_t pte, pte_t newprot)
{
	if (pte_hw_dirty(pte))
		pte |= PTE_DIRTY;
	pte = (pte & ~PTE_MODIFY_MASK) | (newprot & PTE_MODIFY_MASK);
	if (pte_sw_dirty(pte))
		pte = pte_mkdirty(pte);
	return pte;
}

/* pte_modify (inline in arm64's pgtable.h): counted, as change_pte_range executes it. */
static inline pte_t pte_modify(struct ptsim_machine *m, pte_t pte, pte_t newprot)
{
	count(m, PTSIM_EV_PTE_MODIFY, 1);
	return __pte_modify(pte, newprot);
}

/* pmd_modify: pte_modify's bits on a PMD leaf (not counted apart: change_huge_pmd's cost). */
static inline pte_t pmd_modify(pte_t pmd, pte_t newprot)
{
	return __pte_modify(pmd, newprot);
}

static inline uint64_t pte_pfn(const struct ptsim_geometry *g, pte_t pte)
{
	return (pte & PTE_ADDR_MASK(g->page_shift)) >> g->page_shift;
}
static inline pte_t pte_pgprot(const struct ptsim_geometry *g, pte_t pte)
{
	return pte & ~PTE_ADDR_MASK(g->page_shift);
}
static inline pte_t pfn_pte(const struct ptsim_geometry *g, uint64_t pfn, pte_t prot)
{
	return (prot & ~PTE_ADDR_MASK(g->page_shift)) |
	       ((pfn << g->page_shift) & PTE_ADDR_MASK(g->page_shift));
}
/*
 * pfn_pte(pte_pfn(pte) + nr, pte_pgprot(pte)), added in place: the address
 * field is contiguous and nothing below it carries into it.
 */
static inline pte_t pte_add_to_address(pte_t pte, pte_t addr_mask, uint64_t bytes)
{
	return (pte & ~addr_mask) | ((pte + bytes) & addr_mask);
}
static inline pte_t pte_advance_pfn(const struct ptsim_geometry *g, pte_t pte, uint64_t nr)
{
	return pte_add_to_address(pte, PTE_ADDR_MASK(g->page_shift), nr << g->page_shift);
}
/* A PMD leaf from a page protection: the block type replaces the page type. */
static inline pte_t pte_to_pmd_leaf(pte_t pte) { return (pte & ~PTE_TABLE_BIT); }
static inline pte_t pmd_leaf_to_pte(pte_t pmd) { return pmd | PTE_TABLE_BIT; }

/*
 * pte_needs_flush / huge_pmd_needs_flush: does changing old into new need a
 * TLB flush? Generic: always. arm64 with "arm64_pte_needs_flush" (v6.19): not
 * when old was not valid (nothing can be cached), else only when a bit other
 * than the software bits changed.
 */
static inline bool pte_needs_flush(const struct ptsim_machine *m, pte_t old, pte_t new)
{
	if (!m->features[PTSIM_FEAT_ARM64_PTE_NEEDS_FLUSH])
		return true;
	if (!pte_valid(old))
		return false;
	return ((old ^ new) & ~PTE_SWBITS_MASK) != 0;
}

/* ---- raw accessors (arch/arm64/pgtable.c): every descriptor access is counted ---- */
pte_t __ptep_get(struct ptsim_mm *mm, const pte_t *ptep);
/*
 * nr __ptep_get reads the caller made itself in one loop over the span
 * entries from ptep (contpte_ptep_get), counted at once.
 */
void __ptep_get_n(struct ptsim_mm *mm, const pte_t *ptep, unsigned int nr, unsigned int span);
void __set_ptes(struct ptsim_mm *mm, uint64_t addr, pte_t *ptep, pte_t pte, unsigned int nr);
pte_t __ptep_get_and_clear(struct ptsim_mm *mm, uint64_t addr, pte_t *ptep);
pte_t __get_and_clear_full_ptes(struct ptsim_mm *mm, uint64_t addr, pte_t *ptep, unsigned int nr);
void __clear_full_ptes(struct ptsim_mm *mm, uint64_t addr, pte_t *ptep, unsigned int nr);
void __wrprotect_ptes(struct ptsim_mm *mm, uint64_t addr, pte_t *ptep, unsigned int nr);
/* Write one descriptor at any level: the single place descriptor stores happen. */
void set_desc(struct ptsim_mm *mm, uint64_t addr, int level, pte_t *p, pte_t val);
/*
 * set_desc for an entry of a table no walker can reach yet: counted the same;
 * the break-before-make check is skipped when it has nothing to compare (the
 * entry was invalid and no break at this level is tracked).
 */
void set_desc_unlinked(struct ptsim_mm *mm, uint64_t addr, int level, pte_t *p, pte_t val);
/*
 * nr set_desc_unlinked calls over p[0..nr) of a table page just allocated
 * (pt_table_alloc: every entry zero), entry i being val with its address
 * advanced by i * step bytes (the PFN-advancing loop of split_pmd /
 * split_pud), at addr + i * step.
 */
void set_descs_unlinked(struct ptsim_mm *mm, uint64_t addr, int level, pte_t *p, pte_t val,
			uint64_t step, unsigned int nr);
/*
 * nr set_desc calls over PTEs ptep[0..nr) of one table, entry i being pte
 * with its PFN advanced by i, at addr + i pages (init_pte's loop of
 * __set_pte_nosync, over entries of one CONT state).
 */
void set_desc_pte_run(struct ptsim_mm *mm, uint64_t addr, pte_t *ptep, pte_t pte, unsigned int nr);
pte_t xchg_desc(struct ptsim_mm *mm, uint64_t addr, int level, pte_t *p, pte_t val);
/*
 * A compare-and-swap of one descriptor that succeeds at once (the cmpxchg
 * loops of __ptep_set_access_flags and __clear_young_dirty_pte, v6.12
 * arch/arm64/mm/fault.c and asm/pgtable.h): one atomic, counted once, as a
 * PTE_CAS for an L3 descriptor and a PMD_XCHG (the L2 atomic) for a PMD.
 */
pte_t cmpxchg_desc(struct ptsim_mm *mm, uint64_t addr, int level, pte_t *p, pte_t val);
pte_t read_desc(struct ptsim_mm *mm, int level, const pte_t *p);

/*
 * ---- contpte-aware wrappers (arch/arm64/pgtable.c, contpte.c) ----
 * Without CONFIG_ARM64_CONTPTE (feature "arm64_contpte" off: v6.8 and before,
 * or a v6.9+ kernel built without it) the header's #else branch makes each of
 * them the plain helper: ptep_get is __ptep_get, set_ptes __set_ptes, and so
 * on; the wrappers below then do exactly what that helper does.
 */
static inline bool config_arm64_contpte(const struct ptsim_machine *m)
{
	return m->features[PTSIM_FEAT_ARM64_CONTPTE];
}
pte_t ptep_get(struct ptsim_mm *mm, pte_t *ptep);
/*
 * ptep_get of the none entries from ptep, up to max_nr: how many there are
 * (the entry after them, if any, is not read). Counts what that many
 * ptep_get calls of none entries count.
 */
unsigned int ptep_get_none_run(struct ptsim_mm *mm, const pte_t *ptep, unsigned int max_nr);

/* ---- PMD-level helpers (a PMD entry is a descriptor like any other) ---- */
typedef pte_t pmd_t;
/* set_pmd_at: one store of a PMD entry. */
void set_pmd_at(struct ptsim_mm *mm, uint64_t addr, pmd_t *pmdp, pmd_t pmd);
/* pmdp_huge_get_and_clear: the PMD leaf exchanged for none; the old entry. */
pmd_t pmdp_huge_get_and_clear(struct ptsim_mm *mm, uint64_t addr, pmd_t *pmdp);
/* pmdp_huge_clear_flush: pmdp_huge_get_and_clear, then flush_pmd_tlb_range. */
pmd_t pmdp_huge_clear_flush(struct ptsim_mm *mm, uint64_t addr, pmd_t *pmdp);
/*
 * pmdp_invalidate: the leaf made invalid to the hardware and still present to
 * software (pmd_mkinvalid, one exchange: pmdp_establish), then
 * flush_pmd_tlb_range. pmd is the entry as the caller read it (the kernel's
 * load of *pmdp inside is the caller's read here).
 */
pmd_t pmdp_invalidate(struct ptsim_mm *mm, uint64_t addr, pmd_t *pmdp, pmd_t pmd);
/* pmdp_set_wrprotect: one read, then the compare-and-swap, as for a PTE. */
void pmdp_set_wrprotect(struct ptsim_mm *mm, uint64_t addr, pmd_t *pmdp);
void set_ptes(struct ptsim_mm *mm, uint64_t addr, pte_t *ptep, pte_t pte, unsigned int nr);
pte_t ptep_get_and_clear(struct ptsim_mm *mm, uint64_t addr, pte_t *ptep);
pte_t get_and_clear_full_ptes(struct ptsim_mm *mm, uint64_t addr, pte_t *ptep, unsigned int nr,
			      int full);
void clear_full_ptes(struct ptsim_mm *mm, uint64_t addr, pte_t *ptep, unsigned int nr, int full);
void wrprotect_ptes(struct ptsim_mm *mm, uint64_t addr, pte_t *ptep, unsigned int nr);
unsigned int pte_batch_hint(struct ptsim_mm *mm, const pte_t *ptep, pte_t pte);
/* clear_young_dirty_ptes flags (CYDP_*) */
#define CYDP_CLEAR_YOUNG	0x1u
#define CYDP_CLEAR_DIRTY	0x2u
void clear_young_dirty_ptes(struct ptsim_mm *mm, uint64_t addr, pte_t *ptep, unsigned int nr,
			    unsigned int flags);
void __clear_young_dirty_ptes(struct ptsim_mm *mm, uint64_t addr, pte_t *ptep, unsigned int nr,
			      unsigned int flags);
/*
 * __ptep_test_and_clear_young: the entry's AF cleared by a compare-and-swap
 * (issued even when it is old); true when it was young.
 * __ptep_clear_flush_young: and a young entry's TLBI, with no DSB after it
 * (the next context switch completes it). ptep_clear_flush_young: the
 * contpte wrapper, which hands a contiguous entry to
 * contpte_ptep_clear_flush_young.
 */
bool __ptep_test_and_clear_young(struct ptsim_mm *mm, uint64_t addr, pte_t *ptep);
bool __ptep_clear_flush_young(struct ptsim_mm *mm, uint64_t addr, pte_t *ptep);
bool ptep_clear_flush_young(struct ptsim_mm *mm, uint64_t addr, pte_t *ptep);

/*
 * mmu.c: ptep_modify_prot_start/commit (v6.12 arch/arm64/mm/mmu.c, out of
 * line): ptep_get_and_clear and set_pte_at, each recording its body's turn
 * when the entry takes the priced path (doc/loop-prices.md).
 */
pte_t ptep_modify_prot_start(struct ptsim_mm *mm, uint64_t addr, pte_t *ptep);
void ptep_modify_prot_commit(struct ptsim_mm *mm, uint64_t addr, pte_t *ptep, pte_t pte);
/* v6.17's batched forms: one entry is priced as the v6.12 bodies above */
pte_t modify_prot_start_ptes(struct ptsim_mm *mm, uint64_t addr, pte_t *ptep, unsigned int nr);
void modify_prot_commit_ptes(struct ptsim_mm *mm, uint64_t addr, pte_t *ptep, pte_t pte,
			     unsigned int nr);

/* contpte.c */
/* contpte_try_fold's inline pre-filter: whether it calls __contpte_try_fold */
bool contpte_try_fold_calls(const struct ptsim_geometry *g, uint64_t addr, pte_t pte);
void contpte_try_fold(struct ptsim_mm *mm, uint64_t addr, pte_t *ptep, pte_t pte);
void contpte_try_unfold(struct ptsim_mm *mm, uint64_t addr, pte_t *ptep, pte_t pte);
void __contpte_try_fold(struct ptsim_mm *mm, uint64_t addr, pte_t *ptep, pte_t pte);
void __contpte_try_unfold(struct ptsim_mm *mm, uint64_t addr, pte_t *ptep, pte_t pte);
pte_t contpte_ptep_get(struct ptsim_mm *mm, pte_t *ptep, pte_t orig_pte);
void contpte_set_ptes(struct ptsim_mm *mm, uint64_t addr, pte_t *ptep, pte_t pte,
		      unsigned int nr);
pte_t contpte_get_and_clear_full_ptes(struct ptsim_mm *mm, uint64_t addr, pte_t *ptep,
				      unsigned int nr);
void contpte_clear_full_ptes(struct ptsim_mm *mm, uint64_t addr, pte_t *ptep, unsigned int nr);
void contpte_wrprotect_ptes(struct ptsim_mm *mm, uint64_t addr, pte_t *ptep, unsigned int nr);
void contpte_clear_young_dirty_ptes(struct ptsim_mm *mm, uint64_t addr, pte_t *ptep,
				    unsigned int nr, unsigned int flags);
bool contpte_ptep_clear_flush_young(struct ptsim_mm *mm, uint64_t addr, pte_t *ptep);

#endif
