// SPDX-License-Identifier: MIT
/* The TLB model: fill, hit, eviction, coalescing, TLBI semantics, conflicts, HAFDBS. */
#include "helpers.h"

#define VA SZ_1G

static struct ptsim_mm *mapped(struct ptsim_machine *m, uint64_t len, unsigned int order)
{
	struct ptsim_mm *mm = new_mm_with_vma(m, VA, len);

	assert_int_equal(ptsim_populate(mm, VA, len, order, true), 0);
	return mm;
}

static uint64_t entry_size(struct ptsim_mm *mm, uint64_t va, enum ptsim_tlb_level which)
{
	unsigned int n = 0;
	uint64_t size = 0;

	if (ptsim_tlb_probe(mm, 0, va, which, &n, &size))
		return 0;
	assert_int_equal(n, 1);
	return size;
}

static void test_fill_hit_and_sizes(void **state)
{
	const enum ptsim_granule grs[] = { PTSIM_GRANULE_4K, PTSIM_GRANULE_16K, PTSIM_GRANULE_64K };

	(void)state;
	for (size_t i = 0; i < 3; i++) {
		struct ptsim_machine *m = new_machine(grs[i], 48, PTSIM_CPU_NEOVERSE_V2, NULL);
		const struct ptsim_geometry *g = &m->geo;
		struct ptsim_mm *mm = new_mm_with_vma(m, VA, 2 * g->pmd_size);
		unsigned int cont_order = (unsigned int)__builtin_ctz(g->cont_ptes);

		/* first PMD: contpte blocks; second: a PMD block */
		assert_int_equal(ptsim_populate(mm, VA, g->pmd_size, cont_order, true), 0);
		assert_int_equal(ptsim_populate(mm, VA + g->pmd_size, g->pmd_size, g->pmd_order, true), 0);
		reset_counts(m);
		assert_int_equal(ptsim_access(mm, 0, VA + 3 * g->page_size, PTSIM_ACCESS_READ, NULL), 0);
		assert_int_equal(ev(m, PTSIM_EV_TLB_WALK), 1);
		assert_int_equal(ev(m, PTSIM_EV_WALK_READ), g->levels);
		/* a contiguous run is one entry on a coalescing CPU */
		assert_int_equal(entry_size(mm, VA, PTSIM_TLB_L1D), g->cont_pte_size);
		assert_int_equal(entry_size(mm, VA, PTSIM_TLB_L2), g->cont_pte_size);
		reset_counts(m);
		assert_int_equal(ptsim_access(mm, 0, VA + g->cont_pte_size - 1, PTSIM_ACCESS_WRITE, NULL), 0);
		assert_int_equal(ev(m, PTSIM_EV_TLB_L1_HIT), 1);
		assert_int_equal(ev(m, PTSIM_EV_TLB_WALK), 0);
		/* a block */
		assert_int_equal(ptsim_access(mm, 0, VA + g->pmd_size + 5, PTSIM_ACCESS_READ, NULL), 0);
		assert_int_equal(entry_size(mm, VA + 2 * g->pmd_size - 1, PTSIM_TLB_L1D), g->pmd_size);
		/* instruction fetches use the iTLB; the heap is UXN: permission fault */
		enum ptsim_fault_kind f;
		assert_int_equal(ptsim_access(mm, 0, VA, PTSIM_ACCESS_EXEC, &f), -EFAULT);
		assert_int_equal(f, PTSIM_FAULT_PERMISSION);
		ptsim_machine_destroy(m);
	}
}

static void test_no_coalescing_on_m3(void **state)
{
	struct ptsim_machine *m = new_machine(PTSIM_GRANULE_4K, 48, PTSIM_CPU_APPLE_M3, NULL);
	struct ptsim_mm *mm = mapped(m, SZ_2M, 4);

	(void)state;
	assert_int_equal(ptsim_access(mm, 0, VA, PTSIM_ACCESS_READ, NULL), 0);
	assert_int_equal(entry_size(mm, VA, PTSIM_TLB_L1D), SZ_4K);
	assert_int_equal(entry_size(mm, VA + SZ_4K, PTSIM_TLB_L1D), 0);
	ptsim_machine_destroy(m);
}

static void test_eviction_lru(void **state)
{
	struct ptsim_machine *m = new_machine(PTSIM_GRANULE_4K, 48, PTSIM_CPU_NEOVERSE_N1, NULL);
	struct ptsim_mm *mm = mapped(m, SZ_2M, 0);
	unsigned int n;

	(void)state;
	/* 49 pages into a 48-entry fully associative dTLB: the first one is evicted */
	for (uint64_t i = 0; i < 49; i++)
		assert_int_equal(ptsim_access(mm, 0, VA + i * SZ_4K, PTSIM_ACCESS_READ, NULL), 0);
	assert_int_equal(ptsim_tlb_count(m, 0, PTSIM_TLB_L1D, &n), 0);
	assert_int_equal(n, 48);
	assert_int_equal(entry_size(mm, VA, PTSIM_TLB_L1D), 0);
	assert_int_equal(entry_size(mm, VA, PTSIM_TLB_L2), SZ_4K);
	reset_counts(m);
	assert_int_equal(ptsim_access(mm, 0, VA, PTSIM_ACCESS_READ, NULL), 0);
	assert_int_equal(ev(m, PTSIM_EV_TLB_L2_HIT), 1);
	ptsim_machine_destroy(m);

	/* N1 L2: 1280 entries, 5-way, so 256 sets: 6 pages 256 apart share a set */
	m = new_machine(PTSIM_GRANULE_4K, 48, PTSIM_CPU_NEOVERSE_N1, NULL);
	mm = mapped(m, 4 * SZ_2M, 0);
	for (uint64_t i = 0; i < 6; i++)
		assert_int_equal(ptsim_access(mm, 0, VA + i * 256 * SZ_4K, PTSIM_ACCESS_READ, NULL), 0);
	assert_int_equal(entry_size(mm, VA, PTSIM_TLB_L2), 0);
	assert_int_equal(entry_size(mm, VA + 256 * SZ_4K, PTSIM_TLB_L2), SZ_4K);
	ptsim_machine_destroy(m);
}

static void test_tlbi_kinds(void **state)
{
	struct ptsim_machine *m = new_machine(PTSIM_GRANULE_4K, 48, PTSIM_CPU_NEOVERSE_V2, NULL);
	struct ptsim_mm *mm = new_mm_with_vma(m, VA, 4 * SZ_2M), *other;
	unsigned int n;

	(void)state;
	assert_int_equal(ptsim_populate(mm, VA, SZ_2M, 9, true), 0);		/* a PMD block */
	assert_int_equal(ptsim_populate(mm, VA + SZ_2M, SZ_2M, 0, true), 0);	/* pages */
	assert_int_equal(ptsim_access(mm, 0, VA, PTSIM_ACCESS_READ, NULL), 0);
	for (uint64_t i = 0; i < 4; i++)
		assert_int_equal(ptsim_access(mm, 0, VA + SZ_2M + i * SZ_4K, PTSIM_ACCESS_READ, NULL), 0);
	/* a TLBI by VA of one page inside the block removes the whole block entry */
	flush_tlb_page(mm, VA + 77 * SZ_4K);
	assert_int_equal(entry_size(mm, VA, PTSIM_TLB_L2), 0);
	assert_int_equal(entry_size(mm, VA + SZ_2M, PTSIM_TLB_L2), SZ_4K);
	/* a range TLBI removes exactly its pages */
	__flush_tlb_range(mm, VA + SZ_2M, VA + SZ_2M + 2 * SZ_4K, SZ_4K, true, 3);
	assert_int_equal(entry_size(mm, VA + SZ_2M, PTSIM_TLB_L2), 0);
	assert_int_equal(entry_size(mm, VA + SZ_2M + SZ_4K, PTSIM_TLB_L2), 0);
	assert_int_equal(entry_size(mm, VA + SZ_2M + 2 * SZ_4K, PTSIM_TLB_L2), SZ_4K);
	/* an ASID TLBI spares other address spaces */
	other = new_mm_with_vma(m, VA, SZ_2M);
	assert_int_equal(ptsim_populate(other, VA, SZ_2M, 0, true), 0);
	assert_int_equal(ptsim_access(other, 0, VA, PTSIM_ACCESS_READ, NULL), 0);
	flush_tlb_mm(mm);
	assert_int_equal(entry_size(mm, VA + SZ_2M + 3 * SZ_4K, PTSIM_TLB_L2), 0);
	assert_int_equal(entry_size(other, VA, PTSIM_TLB_L2), SZ_4K);
	/* TLBI VMALLE1IS removes everything */
	flush_tlb_all(m);
	assert_int_equal(ptsim_tlb_count(m, 0, PTSIM_TLB_L2, &n), 0);
	assert_int_equal(n, 0);
	ptsim_machine_destroy(m);
}

static void test_tlbi_reaches_every_cpu(void **state)
{
	struct ptsim_machine_config cfg;
	struct ptsim_machine *m;
	struct ptsim_mm *mm;

	(void)state;
	ptsim_machine_config_init(&cfg);
	cfg.nr_cpus = 4;
	m = create_machine(&cfg);
	mm = mapped(m, SZ_2M, 0);
	for (unsigned int c = 0; c < 4; c++)
		assert_int_equal(ptsim_access(mm, c, VA, PTSIM_ACCESS_READ, NULL), 0);
	flush_tlb_page(mm, VA);
	for (unsigned int c = 0; c < 4; c++) {
		unsigned int n = 0;

		assert_int_equal(ptsim_tlb_probe(mm, c, VA, PTSIM_TLB_L2, &n, NULL), -ENOENT);
	}
	assert_int_equal(ptsim_access(mm, 4, VA, PTSIM_ACCESS_READ, NULL), -EINVAL);
	ptsim_machine_destroy(m);
}

static unsigned int conflicts;
static void count_conflicts(const struct ptsim_diag *d, void *arg)
{
	(void)arg;
	conflicts += d->kind == PTSIM_DIAG_TLB_CONFLICT;
}

/* Split a PMD block in place (no TLBI), then a speculative walk caches a page entry too. */
static enum ptsim_fault_kind split_and_conflict(enum ptsim_cpu cpu)
{
	struct ptsim_machine *m = new_machine(PTSIM_GRANULE_4K, 48, cpu, NULL);
	struct ptsim_mm *mm = mapped(m, SZ_2M, 9);
	struct pt_table *pmd, *pte;
	enum ptsim_fault_kind f = PTSIM_FAULT_NONE;
	unsigned int idx, n;
	int err;

	ptsim_set_diag_handler(m, count_conflicts, NULL);
	assert_int_equal(ptsim_access(mm, 0, VA, PTSIM_ACCESS_READ, NULL), 0);
	pmd = pt_walk_table(mm, VA, PMD_LEVEL, false, &err);
	idx = pt_index(&m->geo, PMD_LEVEL, VA);
	assert_int_equal(pt_table_alloc(mm, PTE_LEVEL, &pte), 0);
	for (unsigned int i = 0; i < 512; i++)
		pte->desc[i] = pmd_leaf_to_pte(pmd->desc[idx]) + ((uint64_t)i << 12);
	set_desc(mm, VA, PMD_LEVEL, &pmd->desc[idx], pfn_pte(&m->geo, pte->pfn, PMD_TYPE_TABLE));
	pmd->next[idx] = pte;
	/* the stale 2M entry and a new 4K entry coexist */
	assert_int_equal(ptsim_tlb_fill(mm, 0, VA, PTSIM_ACCESS_READ), 0);
	assert_int_equal(ptsim_tlb_probe(mm, 0, VA, PTSIM_TLB_L1D, &n, NULL), 0);
	assert_int_equal(n, 2);
	conflicts = 0;
	ptsim_access(mm, 0, VA, PTSIM_ACCESS_READ, &f);
	assert_int_equal(conflicts, 1);
	ptsim_machine_destroy(m);
	return f;
}

static void test_conflict_abort_only_without_noabort(void **state)
{
	(void)state;
	assert_int_equal(split_and_conflict(PTSIM_CPU_NEOVERSE_V3), PTSIM_FAULT_NONE);
	assert_int_equal(split_and_conflict(PTSIM_CPU_NEOVERSE_V2), PTSIM_FAULT_TLB_CONFLICT);
}

/*
 * A hardware dirty update leaves the clean entry it replaced in L2 beside the
 * new one: the same translation, differing only in AP[2] and AF, which is no
 * conflict (the audit's shrunk scenario: MADV_FREE'd contpte memory, one page
 * read, then a long write sweep that pushes the new entry out of L1).
 */
static void test_dirty_update_is_no_conflict(void **state)
{
	struct ptsim_machine *m = new_machine(PTSIM_GRANULE_4K, 48, PTSIM_CPU_NEOVERSE_V2, "v6.16");
	struct ptsim_mm *mm = mapped(m, 4 * SZ_2M, 4);
	uint64_t faults;
	unsigned int n;

	(void)state;
	ptsim_set_diag_handler(m, count_conflicts, NULL);
	conflicts = 0;
	assert_int_equal(ptsim_madvise(mm, 0x40522000, 0x220000, PTSIM_MADV_FREE), 0);
	assert_int_equal(ptsim_touch(mm, 0, 0x4073e000, 0x2000, PTSIM_ACCESS_READ, &faults), 0);
	assert_int_equal(ptsim_access(mm, 0, 0x40730000, PTSIM_ACCESS_WRITE, NULL), 0);
	assert_int_equal(ptsim_tlb_probe(mm, 0, 0x40731000, PTSIM_TLB_L2, &n, NULL), 0);
	assert_int_equal(n, 2);	/* the clean entry and the dirty one */
	assert_int_equal(ptsim_touch(mm, 0, 0x40370000, 0x430000, PTSIM_ACCESS_WRITE, &faults), 0);
	assert_int_equal(faults, 0);
	assert_int_equal(conflicts, 0);
	ptsim_machine_destroy(m);
}

static void test_hafdbs(void **state)
{
	struct ptsim_machine *m = new_machine(PTSIM_GRANULE_4K, 48, PTSIM_CPU_NEOVERSE_V2, NULL);
	struct ptsim_mm *mm = mapped(m, SZ_2M, 0);
	pte_t *ptep = pte_table(mm, VA);
	struct ptsim_translation tr;
	enum ptsim_fault_kind f;

	(void)state;
	/* make the page old and clean-writable (DBM=1, RDONLY=1) */
	*ptep = pte_mkold(pte_mkclean(*ptep));
	assert_int_equal(ptsim_access(mm, 0, VA, PTSIM_ACCESS_READ, NULL), 0);
	assert_int_equal(ptsim_translate(mm, VA, &tr), 0);
	assert_true(tr.af && tr.read_only && !tr.dirty);
	assert_int_equal(ptsim_access(mm, 0, VA, PTSIM_ACCESS_WRITE, NULL), 0);
	assert_int_equal(ptsim_translate(mm, VA, &tr), 0);
	assert_true(tr.dirty && !tr.read_only);
	ptsim_machine_destroy(m);

	/* Apple M3 has no HAFDBS: an old page takes an access-flag fault */
	m = new_machine(PTSIM_GRANULE_4K, 48, PTSIM_CPU_APPLE_M3, NULL);
	mm = mapped(m, SZ_2M, 0);
	ptep = pte_table(mm, VA);
	*ptep = pte_mkold(*ptep);
	assert_int_equal(ptsim_access(mm, 0, VA, PTSIM_ACCESS_READ, &f), -EFAULT);
	assert_int_equal(f, PTSIM_FAULT_ACCESS_FLAG);
	*ptep = pte_mkclean(pte_mkyoung(*ptep));
	assert_int_equal(ptsim_access(mm, 0, VA, PTSIM_ACCESS_WRITE, &f), -EFAULT);
	assert_int_equal(f, PTSIM_FAULT_PERMISSION);
	/* unmapped: translation fault */
	assert_int_equal(ptsim_access(mm, 0, VA + 4 * SZ_2M, PTSIM_ACCESS_READ, &f), -EFAULT);
	assert_int_equal(f, PTSIM_FAULT_TRANSLATION);
	ptsim_machine_destroy(m);
}

static void test_touch(void **state)
{
	struct ptsim_machine *m = new_machine(PTSIM_GRANULE_4K, 48, PTSIM_CPU_APPLE_M3, NULL);
	struct ptsim_mm *mm = mapped(m, SZ_2M, 4);
	struct ptsim_stats st;
	uint64_t faults = 99;

	(void)state;
	assert_int_equal(ptsim_touch(mm, 0, VA, SZ_2M, PTSIM_ACCESS_WRITE, &faults), 0);
	assert_int_equal(faults, 0);
	ptsim_last_stats(m, &st);
	assert_int_equal(st.ev[PTSIM_EV_USER_PAGE_WRITE], 512);
	assert_int_equal(st.ev[PTSIM_EV_TLB_WALK], 512);	/* M3: one entry per 4K page */
	assert_int_equal(ptsim_mprotect(mm, VA, SZ_2M, PTSIM_PROT_READ), 0);
	assert_int_equal(ptsim_touch(mm, 0, VA, SZ_2M, PTSIM_ACCESS_WRITE, &faults), 0);
	assert_int_equal(faults, 512);
	assert_int_equal(ptsim_touch(mm, 0, VA, 0, PTSIM_ACCESS_WRITE, &faults), -EINVAL);
	assert_int_equal(ptsim_touch(mm, 0, VA, SZ_4K, PTSIM_ACCESS_EXEC, &faults), -EINVAL);
	ptsim_machine_destroy(m);
}

/*
 * ASID reuse (arch/arm64/mm/context.c): with 8-bit ASIDs the 256th mm finds
 * the bitmap full, rolls the generation over and flushes every CPU's TLB, so
 * it cannot use the entries an earlier mm left under the same ASID number.
 */
static void test_asid_rollover_flushes(void **state)
{
	struct ptsim_machine *m = new_machine(PTSIM_GRANULE_4K, 48, PTSIM_CPU_APPLE_M3, NULL);
	struct ptsim_mm *a = mapped(m, SZ_2M, 0), *b;
	enum ptsim_fault_kind f = PTSIM_FAULT_NONE;
	unsigned int asid_a, asid_b;
	struct ptsim_stats s;

	(void)state;
	assert_int_equal(m->cpu->asid_bits, 8);
	assert_int_equal(ptsim_access(a, 0, VA, PTSIM_ACCESS_WRITE, NULL), 0);
	assert_int_equal(ptsim_mm_asid(a, &asid_a), 0);
	assert_int_equal(asid_a, 1);
	/* ASIDs 2..255 for 254 more mms, without a rollover */
	for (int i = 0; i < 254; i++) {
		assert_int_equal(ptsim_mm_create(m, &b), 0);
		ptsim_last_stats(m, &s);
		assert_int_equal(s.ev[PTSIM_EV_TLBI_LOCAL_ALL], 0);
	}
	/* the 256th: a new generation, one local TLBI VMALLE1 per CPU */
	assert_int_equal(ptsim_mm_create(m, &b), 0);
	ptsim_last_stats(m, &s);
	assert_int_equal(s.ev[PTSIM_EV_TLBI_LOCAL_ALL], 1);
	assert_int_equal(ptsim_mm_asid(b, &asid_b), 0);
	assert_int_equal(asid_b, asid_a);
	/* b never mapped VA: a translation fault, not a's stale writable entry */
	assert_int_equal(ptsim_access(b, 0, VA, PTSIM_ACCESS_WRITE, &f), -EFAULT);
	assert_int_equal(f, PTSIM_FAULT_TRANSLATION);
	/* a runs again with an ASID of the new generation, not b's */
	assert_int_equal(ptsim_access(a, 0, VA, PTSIM_ACCESS_WRITE, NULL), 0);
	assert_int_equal(ptsim_mm_asid(a, &asid_a), 0);
	assert_int_not_equal(asid_a, asid_b);
	ptsim_machine_destroy(m);
}

/* TTBR0 and TTBR1 entries never match each other, and the kernel's go with its tables. */
static void test_kernel_and_user_entries_never_alias(void **state)
{
	struct ptsim_mem_range r = { 4 * SZ_1G, 64 * SZ_2M };
	struct ptsim_kernel_config kc = { .ranges = &r, .nr_ranges = 1 };
	struct ptsim_machine *m = new_machine(PTSIM_GRANULE_4K, 48, PTSIM_CPU_APPLE_M3, NULL);
	enum ptsim_fault_kind f = PTSIM_FAULT_NONE;
	struct ptsim_mm *k, *mm;
	uint64_t lm, uva, size = 0;
	unsigned int n = 0;

	(void)state;
	assert_int_equal(ptsim_kernel_boot(m, &kc, &k), 0);
	assert_int_equal(ptsim_kernel_lm_addr(k, 4 * SZ_1G + 16 * SZ_2M, &lm), 0);
	uva = lm & ((UINT64_C(1) << 48) - 1);	/* the same low 48 bits */
	mm = new_mm_with_vma(m, uva, SZ_2M);
	assert_int_equal(ptsim_populate(mm, uva, SZ_2M, 0, true), 0);
	assert_int_equal(ptsim_access(k, 0, lm, PTSIM_ACCESS_READ, NULL), 0);
	assert_int_equal(ptsim_access(mm, 0, uva, PTSIM_ACCESS_WRITE, &f), 0);
	assert_int_equal(f, PTSIM_FAULT_NONE);
	assert_int_equal(ptsim_tlb_probe(mm, 0, uva, PTSIM_TLB_L2, &n, &size), 0);
	assert_int_equal(n, 1);
	assert_int_equal(size, SZ_4K);
	assert_int_equal(ptsim_tlb_probe(k, 0, lm, PTSIM_TLB_L2, &n, NULL), 0);
	assert_int_equal(n, 1);
	/* the kernel mm goes: its global entries go with it, the user's stays */
	ptsim_mm_destroy(k);
	assert_int_equal(ptsim_tlb_count(m, 0, PTSIM_TLB_L2, &n), 0);
	assert_int_equal(n, 1);
	ptsim_machine_destroy(m);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_fill_hit_and_sizes),
		cmocka_unit_test(test_no_coalescing_on_m3),
		cmocka_unit_test(test_eviction_lru),
		cmocka_unit_test(test_tlbi_kinds),
		cmocka_unit_test(test_tlbi_reaches_every_cpu),
		cmocka_unit_test(test_conflict_abort_only_without_noabort),
		cmocka_unit_test(test_dirty_update_is_no_conflict),
		cmocka_unit_test(test_hafdbs),
		cmocka_unit_test(test_touch),
		cmocka_unit_test(test_asid_rollover_flushes),
		cmocka_unit_test(test_kernel_and_user_entries_never_alias),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
