// SPDX-License-Identifier: MIT
/* munmap, exit, fork and madvise: the counts of doc/mm-lifecycle.md, per kernel variant. */
#include "helpers.h"

#define VA SZ_1G
#define SZ_1M (SZ_2M / 2)

/* The three kernels of the zap and fork series: v6.8 loops, the v6.9 midpoint, v6.9 helpers. */
static const char *const variants[] = { "v6.8", "v6.9-midpoint", "v6.9" };
enum { B0, B1, A };

static struct ptsim_mm *populated(struct ptsim_machine *m, uint64_t len, unsigned int order)
{
	struct ptsim_mm *mm = new_mm_with_vma(m, VA, len);

	assert_int_equal(ptsim_populate(mm, VA, len, order, true), 0);
	if (order == m->geo.pmd_order)
		assert_int_equal(ptsim_split_huge_pmd(mm, VA, len), 0);
	return mm;
}

static struct ptsim_stats last(struct ptsim_machine *m)
{
	struct ptsim_stats st;

	assert_int_equal(ptsim_last_stats(m, &st), 0);
	return st;
}

/* One 64K folio per contpte block, written (young and dirty), unmapped whole: spec table 2.4. */
static void test_munmap_per_block(void **state)
{
	/* R, X, W, block flushes, rmap calls, slots; g = 16 (no early exit) */
	static const uint64_t want[3][6] = {
		[B0] = { 32 + 16, 32, 16, 1, 16, 16 },
		[B1] = { 32 + 16 * 16, 32, 16, 1, 1, 2 },
		[A] = { 1 + 16, 16, 0, 0, 1, 2 },
	};

	(void)state;
	for (int v = B0; v <= A; v++) {
		struct ptsim_machine *m = new_machine(PTSIM_GRANULE_4K, 48, PTSIM_CPU_NEOVERSE_N1,
						      variants[v]);
		struct ptsim_mm *mm = populated(m, SZ_2M, 4);
		struct ptsim_stats st;

		assert_int_equal(ptsim_munmap(mm, VA, SZ_2M), 0);
		st = last(m);
		assert_int_equal(st.ev[PTSIM_EV_PTE_READ], 32 * want[v][0]);
		assert_int_equal(st.ev[PTSIM_EV_PTE_XCHG], 32 * want[v][1]);
		assert_int_equal(st.ev[PTSIM_EV_PTE_WRITE], 32 * want[v][2]);
		assert_int_equal(st.ev[PTSIM_EV_CONTPTE_CONVERT], 32 * want[v][3]);
		assert_int_equal(st.ev[PTSIM_EV_RMAP_REMOVE], 32 * want[v][4]);
		assert_int_equal(st.ev[PTSIM_EV_TLB_BATCH_SLOT], 32 * want[v][5]);
		assert_int_equal(st.ev[PTSIM_EV_FOLIO_FREE], 32);
		/* the only VMA: its PTE, PMD and PUD tables all go */
		assert_int_equal(st.ev[PTSIM_EV_TABLE_FREE], 3);
		assert_int_equal(ptsim_translate(mm, VA, &(struct ptsim_translation){ 0 }), -ENOENT);
		assert_invariants(m);
		ptsim_mm_destroy(mm);
		ptsim_machine_destroy(m);
	}
}

/* With the v6.17 early-exit gather a young and dirty block reads 2 entries: A reads 3. */
static void test_munmap_early_exit(void **state)
{
	struct ptsim_machine *m = new_machine(PTSIM_GRANULE_4K, 48, PTSIM_CPU_NEOVERSE_N1, "v6.17");
	struct ptsim_mm *mm = populated(m, SZ_2M, 4);

	(void)state;
	assert_int_equal(ptsim_munmap(mm, VA, SZ_2M), 0);
	assert_int_equal(last(m).ev[PTSIM_EV_PTE_READ], 32 * 3);
	ptsim_mm_destroy(mm);
	ptsim_machine_destroy(m);
}

/*
 * 1 GiB on 4K (spec table 2.5): reads and slots per variant and memory, and
 * the forced flushes when the gather's page batches fill (9,678 single slots
 * or 4,849 two-slot entries per round).
 */
static void test_munmap_1g(void **state)
{
	static const struct {
		int variant;
		unsigned int order;
		uint64_t reads, xchg, writes, slots, forced;
	} rows[] = {
		{ B0, 4, 786432, 524288, 262144, 262144, 27 },
		{ A, 4, 278528, 262144, 0, 32768, 3 },
		{ A, 9, 278528, 262144, 0, 1024, 0 },
		{ A, 0, 524288, 262144, 0, 262144, 27 },
		{ B0, 0, 524288, 262144, 0, 262144, 27 },
	};

	(void)state;
	for (size_t i = 0; i < sizeof(rows) / sizeof(rows[0]); i++) {
		struct ptsim_machine *m = new_machine(PTSIM_GRANULE_4K, 48, PTSIM_CPU_NEOVERSE_N1,
						      variants[rows[i].variant]);
		struct ptsim_mm *mm = populated(m, SZ_1G, rows[i].order);
		struct ptsim_stats st;

		assert_int_equal(ptsim_munmap(mm, VA, SZ_1G), 0);
		st = last(m);
		assert_int_equal(st.ev[PTSIM_EV_PTE_READ], rows[i].reads);
		assert_int_equal(st.ev[PTSIM_EV_PTE_XCHG], rows[i].xchg);
		assert_int_equal(st.ev[PTSIM_EV_PTE_WRITE], rows[i].writes);
		assert_int_equal(st.ev[PTSIM_EV_TLB_BATCH_SLOT], rows[i].slots);
		/* every forced flush frees the batch; tlb_finish_mmu frees the rest */
		assert_int_equal(st.ev[PTSIM_EV_TLB_FLUSH_MMU], rows[i].forced + 1);
		/* 512 PTE tables, a PMD and a PUD table */
		assert_int_equal(st.ev[PTSIM_EV_TABLE_FREE], 514);
		assert_invariants(m);
		ptsim_mm_destroy(mm);
		ptsim_machine_destroy(m);
	}
}

/*
 * exit_mmap: the same PTE work as munmap, but no last-level TLBI at all;
 * one ASID flush at the 509th freed table and one at the end.
 */
static void test_exit_1g(void **state)
{
	struct ptsim_machine *m = new_machine(PTSIM_GRANULE_4K, 48, PTSIM_CPU_NEOVERSE_N1, "v6.9");
	struct ptsim_mm *mm = populated(m, SZ_1G, 4);
	struct ptsim_stats st;

	(void)state;
	assert_int_equal(ptsim_mm_exit(mm), 0);
	st = last(m);
	assert_int_equal(st.ev[PTSIM_EV_PTE_READ], 278528);
	assert_int_equal(st.ev[PTSIM_EV_PTE_XCHG], 262144);
	assert_int_equal(st.ev[PTSIM_EV_TLBI_VA] + st.ev[PTSIM_EV_TLBI_RANGE], 0);
	assert_int_equal(st.ev[PTSIM_EV_FLUSH_TLB_MM], 2);
	assert_int_equal(st.ev[PTSIM_EV_TABLE_FREE], 514);
	assert_int_equal(st.ev[PTSIM_EV_FOLIO_FREE], 16384);
	assert_invariants(m);
	/* the v6.8 kernel still unfolds every block, flushing each, though the mm dies */
	ptsim_mm_destroy(mm);
	assert_int_equal(ptsim_feature_preset(m, "v6.8"), 0);
	mm = populated(m, SZ_1G, 4);
	assert_int_equal(ptsim_mm_exit(mm), 0);
	assert_int_equal(last(m).ev[PTSIM_EV_CONTPTE_CONVERT], 16384);
	assert_invariants(m);
	ptsim_mm_destroy(mm);
	ptsim_machine_destroy(m);
}

/*
 * munmap of a range inside a VMA: the VMA splits, a PMD THP an edge cuts is
 * split to PTEs, the partly covered contpte block at an edge is unfolded,
 * and a table shared with what remains is kept.
 */
static void test_munmap_partial(void **state)
{
	struct ptsim_machine *m = new_machine(PTSIM_GRANULE_4K, 48, PTSIM_CPU_APPLE_M3, "v6.17");
	struct ptsim_mm *mm = new_mm_with_vma(m, VA, 3 * SZ_2M);
	struct ptsim_translation tr;
	struct ptsim_folio_info fi;
	struct diag_log log = { { 0 } };

	(void)state;
	ptsim_set_diag_handler(m, record_diag, &log);
	assert_int_equal(ptsim_populate(mm, VA, SZ_2M, 9, true), 0);	/* a PMD THP */
	assert_int_equal(ptsim_populate(mm, VA + SZ_2M, SZ_2M, 4, true), 0);
	/* from the middle of the THP to 8 pages into the first 64K folio of the next PMD */
	assert_int_equal(ptsim_munmap(mm, VA + SZ_1M, SZ_1M + 8 * SZ_4K), 0);
	assert_int_equal(last(m).ev[PTSIM_EV_HUGE_PMD_SPLIT], 1);
	assert_int_equal(last(m).ev[PTSIM_EV_CONTPTE_UNFOLD], 1);
	assert_int_equal(last(m).ev[PTSIM_EV_TABLE_FREE], 0);	/* both PTE tables are shared */
	assert_int_equal(ptsim_translate(mm, VA + SZ_1M - SZ_4K, &tr), 0);
	assert_int_equal(ptsim_translate(mm, VA + SZ_1M, &tr), -ENOENT);
	assert_int_equal(ptsim_translate(mm, VA + SZ_2M + 7 * SZ_4K, &tr), -ENOENT);
	assert_int_equal(ptsim_translate(mm, VA + SZ_2M + 8 * SZ_4K, &tr), 0);
	assert_false(tr.cont);	/* the rest of the cut block stays non-cont */
	assert_int_equal(ptsim_folio_info(mm, VA + SZ_2M + 8 * SZ_4K, &fi), 0);
	assert_int_equal(fi.mapcount, 8);
	assert_int_equal(ptsim_translate(mm, VA + SZ_2M + SZ_64K, &tr), 0);
	assert_true(tr.cont);
	assert_int_equal(log.count[PTSIM_DIAG_BBM_VIOLATION], 0);
	assert_invariants(m);
	/* unmapping the rest frees every table; a second munmap of nothing is fine */
	assert_int_equal(ptsim_munmap(mm, VA, 3 * SZ_2M), 0);
	assert_int_equal(last(m).ev[PTSIM_EV_TABLE_FREE], 4);
	assert_int_equal(ptsim_munmap(mm, VA, 3 * SZ_2M), 0);
	assert_invariants(m);
	ptsim_mm_destroy(mm);
	ptsim_machine_destroy(m);
}

/* Every CPU and granule: munmap and exit leave no stale translation and no BBM report. */
static void test_teardown_no_stale_tlb(void **state)
{
	(void)state;
	for (int cpu = 0; cpu < PTSIM_CPU__COUNT; cpu++) {
		for (int gr = PTSIM_GRANULE_4K; gr <= PTSIM_GRANULE_64K; gr += 2) {
			unsigned int va_bits = gr == PTSIM_GRANULE_16K ? 47 : 48;
			struct ptsim_machine *m = new_machine((enum ptsim_granule)gr, va_bits,
							      (enum ptsim_cpu)cpu, "v6.17");
			uint64_t cont = m->geo.cont_pte_size, len = 4 * m->geo.pmd_size;
			struct ptsim_mm *mm = new_mm_with_vma(m, VA, len);
			struct diag_log log = { { 0 } };
			enum ptsim_fault_kind f;

			ptsim_set_diag_handler(m, record_diag, &log);
			assert_int_equal(ptsim_populate(mm, VA, len, (unsigned int)__builtin_ctz(m->geo.cont_ptes), true), 0);
			assert_int_equal(ptsim_touch(mm, 0, VA, len, PTSIM_ACCESS_WRITE, NULL), 0);
			assert_int_equal(ptsim_munmap(mm, VA + cont / 2, len / 2), 0);
			assert_int_equal(ptsim_access(mm, 0, VA + cont, PTSIM_ACCESS_READ, &f), -EFAULT);
			assert_int_equal(f, PTSIM_FAULT_TRANSLATION);
			assert_int_equal(ptsim_access(mm, 0, VA, PTSIM_ACCESS_READ, &f), 0);
			assert_int_equal(f, PTSIM_FAULT_NONE);
			assert_int_equal(ptsim_mm_exit(mm), 0);
			assert_int_equal(log.count[PTSIM_DIAG_BBM_VIOLATION], 0);
			assert_invariants(m);
			ptsim_mm_destroy(mm);
			ptsim_machine_destroy(m);
		}
	}
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_munmap_per_block),
		cmocka_unit_test(test_munmap_early_exit),
		cmocka_unit_test(test_munmap_1g),
		cmocka_unit_test(test_exit_1g),
		cmocka_unit_test(test_munmap_partial),
		cmocka_unit_test(test_teardown_no_stale_tlb),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
