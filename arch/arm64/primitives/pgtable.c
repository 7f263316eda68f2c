// SPDX-License-Identifier: MIT
/*
 * Descriptor accessors and the contpte-aware PTE wrappers of
 * arch/arm64/include/asm/pgtable.h (doc/mprotect.md). Every
 * descriptor access in the model goes through read_desc/set_desc/xchg_desc,
 * which count it and show each store to the break-before-make checker.
 * Each access also reaches the data-cache model (arch/arm64/hw/dcache.c),
 * which prices loads and atomics by the level they hit.
 */
#include "asm/pgtable.h"
#include "asm/mmu_context.h"
#include "asm/tlbflush.h"

static enum ptsim_event desc_event(int level, int kind)
{
	static const enum ptsim_event ev[3][3] = {
		{ PTSIM_EV_PTE_READ, PTSIM_EV_PTE_WRITE, PTSIM_EV_PTE_XCHG },
		{ PTSIM_EV_PMD_READ, PTSIM_EV_PMD_WRITE, PTSIM_EV_PMD_XCHG },
		{ PTSIM_EV_PUD_READ, PTSIM_EV_PUD_WRITE, PTSIM_EV_PUD_WRITE },
	};
	int row = level == PTE_LEVEL ? 0 : level == PMD_LEVEL ? 1 : 2;

	return ev[row][kind];
}

pte_t read_desc(struct ptsim_mm *mm, int level, const pte_t *p)
{
	count(mm->m, desc_event(level, 0), 1);
	dcache_desc_load(mm->m, p, 1);
	return *p;
}

void set_desc(struct ptsim_mm *mm, uint64_t addr, int level, pte_t *p, pte_t val)
{
	struct ptsim_machine *m = mm->m;
	struct hw_as as = mm_as(mm);

	count(m, desc_event(level, 1), 1);
	dcache_desc_store(m, p, 1);
	bbm_check_write(m, &as, addr, level, *p, val);
	*p = val;
}

void set_desc_unlinked(struct ptsim_mm *mm, uint64_t addr, int level, pte_t *p, pte_t val)
{
	if (pte_valid(*p) || !bbm_level_untracked(mm->m, level)) {
		set_desc(mm, addr, level, p, val);
		return;
	}
	count(mm->m, desc_event(level, 1), 1);
	dcache_desc_store(mm->m, p, 1);
	*p = val;
}

/*
 * nr stores filling a table just allocated (every entry zero) that no walker
 * can reach yet: entry i gets val with its address advanced by i * step,
 * stored at addr + i * step. When no break at this level is tracked, the
 * break-before-make check has nothing to compare for any of them (nothing
 * here changes that): the nr stores are counted at once and reach the data
 * cache as one run of stores, in order, as nr set_desc_unlinked calls do.
 * Otherwise it is those nr calls. The fresh entries are not read first: a
 * read would fault the host's zero page in before the first store.
 */
void set_descs_unlinked(struct ptsim_mm *mm, uint64_t addr, int level, pte_t *p, pte_t val,
			uint64_t step, unsigned int nr)
{
	struct ptsim_machine *m = mm->m;
	const pte_t addr_mask = PTE_ADDR_MASK(m->geo.page_shift);

	if (!bbm_level_untracked(m, level)) {
		for (unsigned int i = 0; i < nr; i++, val = pte_add_to_address(val, addr_mask, step))
			set_desc_unlinked(mm, addr + i * step, level, &p[i], val);
		return;
	}
	count(m, desc_event(level, 1), nr);
	dcache_desc_store(m, p, nr);
	for (unsigned int i = 0; i < nr; i++, val = pte_add_to_address(val, addr_mask, step))
		p[i] = val;
}

/*
 * nr set_desc calls over the PTEs ptep[0..nr) of one table, entry i being pte
 * with its PFN advanced by i, at addr + i pages. The stores are counted at
 * once, reach the data cache as one run of stores, in order, and are shown
 * to the checker at once before they are made (bbm_check_set_ptes checks
 * each as set_desc does), as __set_ptes does without its chunk.
 */
void set_desc_pte_run(struct ptsim_mm *mm, uint64_t addr, pte_t *ptep, pte_t pte, unsigned int nr)
{
	struct ptsim_machine *m = mm->m;
	const pte_t addr_mask = PTE_ADDR_MASK(m->geo.page_shift);
	const uint64_t page_size = m->geo.page_size;
	struct hw_as as = mm_as(mm);

	count(m, PTSIM_EV_PTE_WRITE, nr);
	dcache_desc_store(m, ptep, nr);
	bbm_check_set_ptes(m, &as, addr, ptep, pte, nr);
	for (unsigned int i = 0; i < nr; i++, pte = pte_add_to_address(pte, addr_mask, page_size))
		ptep[i] = pte;
}

/* An atomic store of val, counted as ev and shown to the checker; the old value. */
static pte_t atomic_desc(struct ptsim_mm *mm, uint64_t addr, int level, pte_t *p, pte_t val,
			 enum ptsim_event ev)
{
	struct ptsim_machine *m = mm->m;
	struct hw_as as = mm_as(mm);
	pte_t old = *p;

	count(m, ev, 1);
	dcache_desc_load(m, p, 1);
	bbm_check_write(m, &as, addr, level, old, val);
	*p = val;
	return old;
}

pte_t xchg_desc(struct ptsim_mm *mm, uint64_t addr, int level, pte_t *p, pte_t val)
{
	return atomic_desc(mm, addr, level, p, val, desc_event(level, 2));
}

pte_t cmpxchg_desc(struct ptsim_mm *mm, uint64_t addr, int level, pte_t *p, pte_t val)
{
	return atomic_desc(mm, addr, level, p, val,
			   level == PTE_LEVEL ? PTSIM_EV_PTE_CAS : desc_event(level, 2));
}

pte_t __ptep_get(struct ptsim_mm *mm, const pte_t *ptep)
{
	return read_desc(mm, PTE_LEVEL, ptep);
}

/*
 * The ptep_get loop over a run of none entries (do_zap_pte_range's skip of
 * consecutive none PTEs, mm/memory.c after v6.12): each entry is loaded as
 * ptep_get loads it, in order, each load reaching the data-cache model; the
 * reads (and, with contpte, the inline cont tests) of the run are counted at
 * once. A none entry is never contiguous, so none calls contpte_ptep_get.
 */
unsigned int ptep_get_none_run(struct ptsim_mm *mm, const pte_t *ptep, unsigned int max_nr)
{
	unsigned int nr;

	for (nr = 0; nr < max_nr && pte_none(ptep[nr]); nr++)
		dcache_desc_load(mm->m, ptep + nr, 1);
	if (!nr)
		return 0;
	if (config_arm64_contpte(mm->m))
		count(mm->m, PTSIM_EV_PTEP_GET, nr);
	count(mm->m, PTSIM_EV_PTE_READ, nr);
	return nr;
}

/*
 * The loads, in order: the span's entries from ptep once each (one batch:
 * what that many single loads in order do to the cache), then any reads
 * beyond the span again of its last entry.
 */
void __ptep_get_n(struct ptsim_mm *mm, const pte_t *ptep, unsigned int nr, unsigned int span)
{
	count(mm->m, PTSIM_EV_PTE_READ, nr);
	dcache_desc_load(mm->m, ptep, MIN(nr, span));
	for (unsigned int i = span; i < nr; i++)
		dcache_desc_load(mm->m, ptep + span - 1, 1);
}

/*
 * __set_ptes: nr plain stores, PFN advancing; one __sync_cache_and_tags per
 * call. The batch functions count their nr stores or exchanges at once, and
 * show them to the checker at once, before making them (it checks each).
 */
void __set_ptes(struct ptsim_mm *mm, uint64_t addr, pte_t *ptep, pte_t pte, unsigned int nr)
{
	struct ptsim_machine *m = mm->m;
	const pte_t addr_mask = PTE_ADDR_MASK(m->geo.page_shift);
	const uint64_t page_size = m->geo.page_size;
	struct hw_as as = mm_as(mm);

	count(m, PTSIM_EV_SET_PTES_CHUNK, 1);
	count(m, PTSIM_EV_PTE_WRITE, nr);
	dcache_desc_store(m, ptep, nr);
	bbm_check_set_ptes(m, &as, addr, ptep, pte, nr);
	for (unsigned int i = 0; i < nr; i++, pte = pte_add_to_address(pte, addr_mask, page_size))
		ptep[i] = pte;
}

pte_t __ptep_get_and_clear(struct ptsim_mm *mm, uint64_t addr, pte_t *ptep)
{
	return xchg_desc(mm, addr, PTE_LEVEL, ptep, 0);
}

/* __get_and_clear_full_ptes: nr exchanges; access/dirty OR-ed into the first. */
pte_t __get_and_clear_full_ptes(struct ptsim_mm *mm, uint64_t addr, pte_t *ptep, unsigned int nr)
{
	struct ptsim_machine *m = mm->m;
	struct hw_as as = mm_as(mm);
	pte_t pte = *ptep;

	count(m, PTSIM_EV_PTE_XCHG, nr);
	dcache_desc_load(m, ptep, nr);
	bbm_check_clear_ptes(m, &as, addr, ptep, nr);
	for (unsigned int i = 0; i < nr; i++) {
		if (i && pte_dirty(ptep[i]))
			pte = pte_mkdirty(pte);
		if (i && pte_young(ptep[i]))
			pte = pte_mkyoung(pte);
		ptep[i] = 0;
	}
	return pte;
}

void __clear_full_ptes(struct ptsim_mm *mm, uint64_t addr, pte_t *ptep, unsigned int nr)
{
	__get_and_clear_full_ptes(mm, addr, ptep, nr);
}

/*
 * ___ptep_set_wrprotect: compare-and-swap the write-protected value, starting
 * from old as the caller read it. A failed attempt (memory changed since, as
 * an unfold's gathering of access and dirty bits does) is counted and retried
 * with the value it found.
 */
static void ___ptep_set_wrprotect(struct ptsim_mm *mm, uint64_t addr, pte_t *ptep, pte_t old)
{
	struct ptsim_machine *m = mm->m;
	struct hw_as as = mm_as(mm);

	while (*ptep != old) {
		count(m, PTSIM_EV_PTE_CAS, 1);
		dcache_desc_load(m, ptep, 1);
		old = *ptep;
	}
	count(m, PTSIM_EV_PTE_CAS, 1);
	dcache_desc_load(m, ptep, 1);
	bbm_check_write(m, &as, addr, 3, old, pte_wrprotect(old));
	*ptep = pte_wrprotect(old);
}

/* __ptep_set_wrprotect: one read, then the compare-and-swap (v6.8's ptep_set_wrprotect too). */
static void __ptep_set_wrprotect(struct ptsim_mm *mm, uint64_t addr, pte_t *ptep)
{
	___ptep_set_wrprotect(mm, addr, ptep, __ptep_get(mm, ptep));
}

void __wrprotect_ptes(struct ptsim_mm *mm, uint64_t addr, pte_t *ptep, unsigned int nr)
{
	for (unsigned int i = 0; i < nr; i++, addr += mm->m->geo.page_size)
		__ptep_set_wrprotect(mm, addr, ptep + i);
}

/*
 * ptep_get (v6.12 asm/pgtable.h, static inline): the load and a test of the
 * cont bit (PTEP_GET, priced as the inline test it is); only a contiguous
 * entry calls out, to contpte_ptep_get (counted there as the call). Without
 * contpte, __ptep_get (v6.8: the generic READ_ONCE), no wrapper.
 */
pte_t ptep_get(struct ptsim_mm *mm, pte_t *ptep)
{
	pte_t pte;

	if (!config_arm64_contpte(mm->m))
		return __ptep_get(mm, ptep);
	count(mm->m, PTSIM_EV_PTEP_GET, 1);
	pte = __ptep_get(mm, ptep);
	if (!pte_valid_cont(pte))
		return pte;
	return contpte_ptep_get(mm, ptep, pte);
}

/*
 * set_ptes (v6.12 asm/pgtable.h, static __always_inline): SET_PTES is its
 * inline tests; nr == 1 stays inline (the unfold test, __set_ptes, the fold
 * pre-filter), nr > 1 calls contpte_set_ptes (counted there as the call).
 * Without contpte, __set_ptes (v6.8's arm64 set_ptes: one
 * __sync_cache_and_tags, nr stores), never a contiguous entry.
 */
void set_ptes(struct ptsim_mm *mm, uint64_t addr, pte_t *ptep, pte_t pte, unsigned int nr)
{
	if (!config_arm64_contpte(mm->m)) {
		__set_ptes(mm, addr, ptep, pte, nr);
		return;
	}
	count(mm->m, PTSIM_EV_SET_PTES, 1);
	pte = pte_mknoncont(pte);
	if (nr == 1) {
		contpte_try_unfold(mm, addr, ptep, __ptep_get(mm, ptep));
		__set_ptes(mm, addr, ptep, pte, 1);
		if (feature(mm->m, PTSIM_FEAT_CONTPTE_AUTOFOLD))
			contpte_try_fold(mm, addr, ptep, pte);
	} else {
		contpte_set_ptes(mm, addr, ptep, pte, nr);
	}
}

/* ptep_get_and_clear: without contpte, the exchange alone (no read for the unfold check). */
pte_t ptep_get_and_clear(struct ptsim_mm *mm, uint64_t addr, pte_t *ptep)
{
	if (!config_arm64_contpte(mm->m))
		return __ptep_get_and_clear(mm, addr, ptep);
	contpte_try_unfold(mm, addr, ptep, __ptep_get(mm, ptep));
	return __ptep_get_and_clear(mm, addr, ptep);
}

/*
 * The generic get_and_clear_full_ptes (include/linux/pgtable.h), used before
 * arm64 had the batch helpers: one ptep_get_and_clear_full per entry, which
 * arm64 serves with ptep_get_and_clear (unfolding a cont block at its first
 * entry; without contpte a plain exchange); access and dirty OR-ed into the
 * first.
 */
static pte_t generic_get_and_clear_full_ptes(struct ptsim_mm *mm, uint64_t addr, pte_t *ptep,
					     unsigned int nr)
{
	pte_t pte = ptep_get_and_clear(mm, addr, ptep);

	for (unsigned int i = 1; i < nr; i++) {
		pte_t tmp = ptep_get_and_clear(mm, addr + ((uint64_t)i << mm->m->geo.page_shift),
					       ptep + i);

		if (pte_dirty(tmp))
			pte = pte_mkdirty(pte);
		if (pte_young(tmp))
			pte = pte_mkyoung(pte);
	}
	return pte;
}

/*
 * get_and_clear_full_ptes: before arm64's batch helpers the generic loop;
 * since them, __get_and_clear_full_ptes itself when contpte is not built
 * in (the same exchanges as the generic loop), else the contpte version.
 */
pte_t get_and_clear_full_ptes(struct ptsim_mm *mm, uint64_t addr, pte_t *ptep, unsigned int nr,
			      int full)
{
	(void)full;	/* arm64 ignores it (contpte_clear_full_ptes) */
	if (!feature(mm->m, PTSIM_FEAT_CONTPTE_CLEAR_HELPERS))
		return generic_get_and_clear_full_ptes(mm, addr, ptep, nr);
	if (!config_arm64_contpte(mm->m))
		return __get_and_clear_full_ptes(mm, addr, ptep, nr);
	if (nr == 1) {
		contpte_try_unfold(mm, addr, ptep, __ptep_get(mm, ptep));
		return __get_and_clear_full_ptes(mm, addr, ptep, 1);
	}
	return contpte_get_and_clear_full_ptes(mm, addr, ptep, nr);
}

/* clear_full_ptes: as get_and_clear_full_ptes (without contpte, __clear_full_ptes). */
void clear_full_ptes(struct ptsim_mm *mm, uint64_t addr, pte_t *ptep, unsigned int nr, int full)
{
	(void)full;
	if (!feature(mm->m, PTSIM_FEAT_CONTPTE_CLEAR_HELPERS)) {
		generic_get_and_clear_full_ptes(mm, addr, ptep, nr);
		return;
	}
	if (!config_arm64_contpte(mm->m)) {
		__clear_full_ptes(mm, addr, ptep, nr);
		return;
	}
	if (nr == 1) {
		contpte_try_unfold(mm, addr, ptep, __ptep_get(mm, ptep));
		__clear_full_ptes(mm, addr, ptep, 1);
		return;
	}
	contpte_clear_full_ptes(mm, addr, ptep, nr);
}

/*
 * ptep_set_wrprotect: one read; the unfold's check and the CAS start from the
 * same value. Without contpte, __ptep_set_wrprotect.
 */
static void ptep_set_wrprotect(struct ptsim_mm *mm, uint64_t addr, pte_t *ptep)
{
	pte_t orig;

	if (!config_arm64_contpte(mm->m)) {
		__ptep_set_wrprotect(mm, addr, ptep);
		return;
	}
	orig = __ptep_get(mm, ptep);
	if (pte_cont(orig)) {
		contpte_try_unfold(mm, addr, ptep, orig);
		orig = pte_mknoncont(orig);
	}
	___ptep_set_wrprotect(mm, addr, ptep, orig);
}

/*
 * wrprotect_ptes: without contpte, __wrprotect_ptes (v6.9+), or before the
 * batch helper the generic loop of ptep_set_wrprotect: the same read and
 * CAS per entry either way.
 */
void wrprotect_ptes(struct ptsim_mm *mm, uint64_t addr, pte_t *ptep, unsigned int nr)
{
	if (!config_arm64_contpte(mm->m)) {
		__wrprotect_ptes(mm, addr, ptep, nr);
		return;
	}
	if (!feature(mm->m, PTSIM_FEAT_CONTPTE_WRPROTECT_HELPER)) {
		/*
		 * The generic loop over the ptep_set_wrprotect of 4602e5757bcc
		 * ("arm64/mm: wire up PTE_CONT for user mappings"): the unfold
		 * check reads the entry, then __ptep_set_wrprotect reads it again.
		 */
		for (unsigned int i = 0; i < nr; i++, addr += mm->m->geo.page_size) {
			contpte_try_unfold(mm, addr, ptep + i, __ptep_get(mm, ptep + i));
			__ptep_set_wrprotect(mm, addr, ptep + i);
		}
		return;
	}
	if (nr == 1) {
		ptep_set_wrprotect(mm, addr, ptep);	/* arm64's one-entry form, one read */
		return;
	}
	contpte_wrprotect_ptes(mm, addr, ptep, nr);
}

/* The entry with what flags (CYDP_CLEAR_YOUNG, CYDP_CLEAR_DIRTY) ask cleared. */
static pte_t pte_clear_young_dirty(pte_t pte, unsigned int flags)
{
	if (flags & CYDP_CLEAR_YOUNG)
		pte = pte_mkold(pte);
	if (flags & CYDP_CLEAR_DIRTY)
		pte = pte_mkclean(pte);
	return pte;
}

/*
 * __clear_young_dirty_ptes: clearing both is one plain store per entry;
 * clearing one is a compare-and-swap loop (hardware may set the other).
 */
void __clear_young_dirty_ptes(struct ptsim_mm *mm, uint64_t addr, pte_t *ptep, unsigned int nr,
			      unsigned int flags)
{
	for (unsigned int i = 0; i < nr; i++, addr += mm->m->geo.page_size) {
		pte_t val = pte_clear_young_dirty(__ptep_get(mm, ptep + i), flags);

		if (flags == (CYDP_CLEAR_YOUNG | CYDP_CLEAR_DIRTY))
			set_desc(mm, addr, PTE_LEVEL, ptep + i, val);
		else	/* __clear_young_dirty_pte: one cmpxchg, no race */
			cmpxchg_desc(mm, addr, PTE_LEVEL, ptep + i, val);
	}
}

/*
 * __ptep_test_and_clear_young (v6.12 asm/pgtable.h, inline): the entry read,
 * then its AF cleared with cmpxchg_relaxed, which it issues whether or not
 * the entry is young (a loop that retries when hardware changed the entry
 * between; the model's entries do not change under it).
 */
bool __ptep_test_and_clear_young(struct ptsim_mm *mm, uint64_t addr, pte_t *ptep)
{
	pte_t pte = __ptep_get(mm, ptep);

	cmpxchg_desc(mm, addr, PTE_LEVEL, ptep, pte_mkold(pte));
	return pte_young(pte);
}

/* __ptep_clear_flush_young (inline): a young entry's TLBI, the trailing DSB elided */
bool __ptep_clear_flush_young(struct ptsim_mm *mm, uint64_t addr, pte_t *ptep)
{
	bool young = __ptep_test_and_clear_young(mm, addr, ptep);

	if (young)
		flush_tlb_page_nosync(mm, addr);
	return young;
}

/*
 * ptep_clear_flush_young (v6.12 asm/pgtable.h, inline): with contpte, the
 * entry read first and a contiguous one handed to
 * contpte_ptep_clear_flush_young; without (v6.8), __ptep_clear_flush_young.
 */
bool ptep_clear_flush_young(struct ptsim_mm *mm, uint64_t addr, pte_t *ptep)
{
	if (config_arm64_contpte(mm->m) && pte_valid_cont(__ptep_get(mm, ptep)))
		return contpte_ptep_clear_flush_young(mm, addr, ptep);
	return __ptep_clear_flush_young(mm, addr, ptep);
}

/*
 * The generic clear_young_dirty_ptes (include/linux/pgtable.h), before
 * arm64's override: clear and rewrite each entry, which unfolds a block at
 * its first entry and may fold it again at its last.
 */
static void generic_clear_young_dirty_ptes(struct ptsim_mm *mm, uint64_t addr, pte_t *ptep,
					   unsigned int nr, unsigned int flags)
{
	for (unsigned int i = 0; i < nr; i++, addr += mm->m->geo.page_size) {
		pte_t pte = ptep_get_and_clear(mm, addr, ptep + i);

		set_ptes(mm, addr, ptep + i, pte_clear_young_dirty(pte, flags), 1);	/* set_pte_at */
	}
}

/*
 * clear_young_dirty_ptes: arm64 defines it since v6.10 ("contpte_clear_young_dirty"):
 * without contpte as __clear_young_dirty_ptes, else the contpte version;
 * before v6.10 the generic loop.
 */
void clear_young_dirty_ptes(struct ptsim_mm *mm, uint64_t addr, pte_t *ptep, unsigned int nr,
			    unsigned int flags)
{
	if (!feature(mm->m, PTSIM_FEAT_CONTPTE_CLEAR_YOUNG_DIRTY))
		generic_clear_young_dirty_ptes(mm, addr, ptep, nr, flags);
	else if (!config_arm64_contpte(mm->m))
		__clear_young_dirty_ptes(mm, addr, ptep, nr, flags);
	else if (nr == 1 && !pte_cont(__ptep_get(mm, ptep)))
		__clear_young_dirty_ptes(mm, addr, ptep, 1, flags);
	else
		contpte_clear_young_dirty_ptes(mm, addr, ptep, nr, flags);
}

/* Tables are allocated aligned to their size, so the pointer gives the index (as in the kernel). */
static unsigned int ptep_index_in_block(const struct ptsim_geometry *g, const pte_t *ptep)
{
	return (unsigned int)(((uintptr_t)ptep / sizeof(pte_t)) & (g->cont_ptes - 1));
}

unsigned int pte_batch_hint(struct ptsim_mm *mm, const pte_t *ptep, pte_t pte)
{
	const struct ptsim_geometry *g = &mm->m->geo;

	/* the generic pte_batch_hint without contpte or before arm64's (v6.9) */
	if (!config_arm64_contpte(mm->m) || !pte_valid_cont(pte) ||
	    !feature(mm->m, PTSIM_FEAT_PTE_BATCH_HINT))
		return 1;
	return g->cont_ptes - ptep_index_in_block(g, ptep);
}

void set_pmd_at(struct ptsim_mm *mm, uint64_t addr, pmd_t *pmdp, pmd_t pmd)
{
	set_desc(mm, addr, PMD_LEVEL, pmdp, pmd);
}

pmd_t pmdp_huge_get_and_clear(struct ptsim_mm *mm, uint64_t addr, pmd_t *pmdp)
{
	return xchg_desc(mm, addr, PMD_LEVEL, pmdp, 0);
}

pmd_t pmdp_huge_clear_flush(struct ptsim_mm *mm, uint64_t addr, pmd_t *pmdp)
{
	pmd_t old = pmdp_huge_get_and_clear(mm, addr, pmdp);

	flush_pmd_tlb_range(mm, addr, addr + mm->m->geo.pmd_size);
	return old;
}

pmd_t pmdp_invalidate(struct ptsim_mm *mm, uint64_t addr, pmd_t *pmdp, pmd_t pmd)
{
	pmd_t old = xchg_desc(mm, addr, PMD_LEVEL, pmdp, (pmd & ~PTE_VALID) | PTE_PRESENT_INVALID);

	flush_pmd_tlb_range(mm, addr, addr + mm->m->geo.pmd_size);
	return old;
}

void pmdp_set_wrprotect(struct ptsim_mm *mm, uint64_t addr, pmd_t *pmdp)
{
	pmd_t pmd = read_desc(mm, PMD_LEVEL, pmdp);

	xchg_desc(mm, addr, PMD_LEVEL, pmdp, pte_wrprotect(pmd));
}
