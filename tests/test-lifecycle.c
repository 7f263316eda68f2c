// SPDX-License-Identifier: MIT
/* munmap, exit, fork and madvise: the counts of doc/mm-lifecycle.md, per kernel variant. */
#include "helpers.h"

#define VA SZ_1G
#define SZ_1M (SZ_2M / 2)

/*
 * The kernels of the zap and fork series: v6.8 loops (no contpte), the v6.9
 * merge window after the core-mm batching (= v6.9 with CONFIG_ARM64_CONTPTE=n),
 * 4602e5757bcc that wired contpte up before the arm64 batch helpers (v6.9
 * with the four helper features off), and v6.9.
 */
static const char *const variants[] = { "v6.8", "v6.9-midpoint", "v6.9", "v6.9" };
enum { B0, B1, W, A };

/* A machine of kernel v: W switches v6.9's arm64 batch helpers off again. */
static struct ptsim_machine *variant_machine(enum ptsim_granule gr, unsigned int va_bits, int v)
{
	static const enum ptsim_feature helpers[] = {
		PTSIM_FEAT_CONTPTE_WRPROTECT_HELPER, PTSIM_FEAT_CONTPTE_CLEAR_HELPERS,
		PTSIM_FEAT_PTE_BATCH_HINT, PTSIM_FEAT_CONTPTE_AUTOFOLD,
	};
	struct ptsim_machine *m = new_machine(gr, va_bits, PTSIM_CPU_NEOVERSE_N1, variants[v]);

	for (size_t i = 0; v == W && i < sizeof(helpers) / sizeof(helpers[0]); i++)
		assert_int_equal(ptsim_feature_set(m, helpers[i], false), 0);
	return m;
}

static struct ptsim_mm *populated(struct ptsim_machine *m, uint64_t len, unsigned int order)
{
	struct ptsim_mm *mm = new_mm_with_vma(m, VA, len);

	assert_int_equal(ptsim_populate(mm, VA, len, order, true), 0);
	if (order == m->geo.pmd_order)
		assert_int_equal(ptsim_split_huge_pmd(mm, VA, len), 0);
	drain_lru_batches(mm);	/* the faults' lru_add batch: the counts below are the operation's */
	return mm;
}

/* One 64K folio per contpte block, written (young and dirty), unmapped whole: spec table 2.4. */
static void test_munmap_per_block(void **state)
{
	/* per block; g = 16 (no early exit) */
	static const struct {
		uint64_t reads, xchgs, writes, block_flushes, rmap_calls, slots;
	} want[4] = {
		/* zap_pte_range's ptep_get and ptep_get_and_clear_full, no contpte_convert */
		[B0] = { .reads = 16, .xchgs = 16, .writes = 0, .block_flushes = 0,
			 .rmap_calls = 16, .slots = 16 },
		/* folio_pte_batch reads the 15 others, the generic clear_full_ptes exchanges */
		[B1] = { .reads = 16, .xchgs = 16, .writes = 0, .block_flushes = 0,
			 .rmap_calls = 1, .slots = 2 },
		[W] = { .reads = 32 + 16 * 16, .xchgs = 32, .writes = 16, .block_flushes = 1,
			.rmap_calls = 1, .slots = 2 },
		[A] = { .reads = 1 + 16, .xchgs = 16, .writes = 0, .block_flushes = 0,
			.rmap_calls = 1, .slots = 2 },
	};

	(void)state;
	for (int v = B0; v <= A; v++) {
		struct ptsim_machine *m = variant_machine(PTSIM_GRANULE_4K, 48, v);
		struct ptsim_mm *mm = populated(m, SZ_2M, 4);
		struct ptsim_stats st;

		assert_int_equal(ptsim_munmap(mm, VA, SZ_2M), 0);
		st = last_stats(m);
		assert_int_equal(st.ev[PTSIM_EV_PTE_READ], 32 * want[v].reads);
		assert_int_equal(st.ev[PTSIM_EV_PTE_XCHG], 32 * want[v].xchgs);
		assert_int_equal(st.ev[PTSIM_EV_PTE_WRITE], 32 * want[v].writes);
		assert_int_equal(st.ev[PTSIM_EV_CONTPTE_CONVERT], 32 * want[v].block_flushes);
		assert_int_equal(st.ev[PTSIM_EV_RMAP_REMOVE], 32 * want[v].rmap_calls);
		assert_int_equal(st.ev[PTSIM_EV_TLB_BATCH_SLOT], 32 * want[v].slots);
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
	assert_int_equal(last_stats(m).ev[PTSIM_EV_PTE_READ], 32 * 3);
	ptsim_mm_destroy(mm);
	ptsim_machine_destroy(m);
}

/*
 * A sparse table: one written page in every 16, unmapped whole. v6.12's
 * zap_pte_range takes a loop turn per entry, none or not (512); v6.14's
 * skip loop ("mm: zap_pte_range: skip all consecutive none ptes") folds a
 * run of none entries into the turn of the page after it (1 + 31, and the
 * trailing run: 33). v6.8's per-PTE loop takes 512 too. The reads do not
 * change with the skip loop.
 */
static void test_munmap_sparse_none_runs(void **state)
{
	static const struct {
		const char *preset;
		uint64_t turns;
	} want[] = { { "v6.8", 512 }, { "v6.9", 512 }, { "v6.12", 512 }, { "v6.13", 512 },
		     { "v6.14", 33 }, { "v6.17", 33 } };

	(void)state;
	for (size_t i = 0; i < sizeof(want) / sizeof(want[0]); i++) {
		struct ptsim_machine *m = new_machine(PTSIM_GRANULE_4K, 48, PTSIM_CPU_NEOVERSE_N1,
						      want[i].preset);
		struct ptsim_mm *mm = new_mm_with_vma(m, VA, SZ_2M);
		struct ptsim_stats st;

		for (uint64_t a = VA; a < VA + SZ_2M; a += 16 * SZ_4K)
			assert_int_equal(ptsim_populate(mm, a, SZ_4K, 0, true), 0);
		assert_int_equal(ptsim_munmap(mm, VA, SZ_2M), 0);
		st = last_stats(m);
		assert_int_equal(st.ev[PTSIM_EV_PTE_LOOP], want[i].turns);
		/* v6.9+: contpte_try_unfold's __ptep_get before each clear, 32 more */
		assert_int_equal(st.ev[PTSIM_EV_PTE_READ], i == 0 ? 512 : 544);
		assert_int_equal(st.ev[PTSIM_EV_FOLIO_FREE], 32);
		assert_invariants(m);
		ptsim_mm_destroy(mm);
		ptsim_machine_destroy(m);
	}
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
		{ B0, 4, 262144, 262144, 0, 262144, 27 },
		{ W, 4, 786432 + 262144 * 15, 524288, 262144, 32768, 3 },
		{ A, 4, 278528, 262144, 0, 32768, 3 },
		{ A, 9, 278528, 262144, 0, 1024, 0 },
		/* contpte's unfold check reads each entry once more (ptep_get_and_clear) */
		{ A, 0, 524288, 262144, 0, 262144, 27 },
		{ B0, 0, 262144, 262144, 0, 262144, 27 },
	};

	(void)state;
	for (size_t i = 0; i < sizeof(rows) / sizeof(rows[0]); i++) {
		struct ptsim_machine *m = variant_machine(PTSIM_GRANULE_4K, 48, rows[i].variant);
		struct ptsim_mm *mm = populated(m, SZ_1G, rows[i].order);
		struct ptsim_stats st;

		assert_int_equal(ptsim_munmap(mm, VA, SZ_1G), 0);
		st = last_stats(m);
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
	st = last_stats(m);
	assert_int_equal(st.ev[PTSIM_EV_PTE_READ], 278528);
	assert_int_equal(st.ev[PTSIM_EV_PTE_XCHG], 262144);
	assert_int_equal(st.ev[PTSIM_EV_TLBI_VA] + st.ev[PTSIM_EV_TLBI_RANGE], 0);
	assert_int_equal(st.ev[PTSIM_EV_FLUSH_TLB_MM], 2);
	assert_int_equal(st.ev[PTSIM_EV_TABLE_FREE], 514);
	assert_int_equal(st.ev[PTSIM_EV_FOLIO_FREE], 16384);
	assert_invariants(m);
	/* contpte without the batch helpers (4602e5757bcc) unfolds every block, though the mm dies */
	ptsim_mm_destroy(mm);
	assert_int_equal(ptsim_feature_set(m, PTSIM_FEAT_CONTPTE_CLEAR_HELPERS, false), 0);
	mm = populated(m, SZ_1G, 4);
	assert_int_equal(ptsim_mm_exit(mm), 0);
	assert_int_equal(last_stats(m).ev[PTSIM_EV_CONTPTE_CONVERT], 16384);
	assert_invariants(m);
	ptsim_mm_destroy(mm);
	/* v6.8 has no contpte: nothing to unfold, one read and one exchange per entry */
	assert_int_equal(ptsim_feature_preset(m, "v6.8"), 0);
	mm = populated(m, SZ_1G, 4);
	assert_int_equal(ptsim_mm_exit(mm), 0);
	st = last_stats(m);
	assert_int_equal(st.ev[PTSIM_EV_CONTPTE_CONVERT], 0);
	assert_int_equal(st.ev[PTSIM_EV_PTE_READ], 262144);
	assert_int_equal(st.ev[PTSIM_EV_PTE_XCHG], 262144);
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
	assert_int_equal(last_stats(m).ev[PTSIM_EV_HUGE_PMD_SPLIT], 1);
	assert_int_equal(last_stats(m).ev[PTSIM_EV_CONTPTE_UNFOLD], 1);
	assert_int_equal(last_stats(m).ev[PTSIM_EV_TABLE_FREE], 0);	/* both PTE tables are shared */
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
	assert_int_equal(last_stats(m).ev[PTSIM_EV_TABLE_FREE], 4);
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

/* Per 64K block, private anonymous COW memory, written (spec table 3.5, g = 16). */
static void test_fork_per_block(void **state)
{
	static const struct {
		int variant;
		bool autofold;
		uint64_t r, cas, x, w, bf;
		bool child_cont, parent_cont;
	} rows[] = {
		/* copy_present_pte: ptep_get, ptep_set_wrprotect's read and CAS, set_pte_at */
		{ B0, false, 16 + 16, 16, 0, 16, 0, false, false },
		/* ptep_get, folio_pte_batch's 15, __wrprotect_ptes, one __set_ptes of 16 */
		{ B1, false, 1 + 15 + 16, 16, 0, 16, 0, false, false },
		/* 4602e5757bcc's ptep_set_wrprotect reads twice: the spec's 48 + 16g */
		{ W, false, 48 + 16 * 16, 16, 16, 32, 1, true, false },
		{ A, true, 17 + 16, 16, 0, 16, 0, true, true },
	};

	(void)state;
	for (size_t i = 0; i < sizeof(rows) / sizeof(rows[0]); i++) {
		struct ptsim_machine *m = variant_machine(PTSIM_GRANULE_4K, 48, rows[i].variant);
		struct ptsim_mm *mm, *child = NULL;
		struct ptsim_translation tp, tc;
		struct ptsim_folio_info fi;
		struct ptsim_stats st;

		ptsim_feature_set(m, PTSIM_FEAT_CONTPTE_AUTOFOLD, rows[i].autofold);
		mm = populated(m, SZ_2M, 4);
		assert_int_equal(ptsim_fork(mm, &child), 0);
		st = last_stats(m);
		assert_int_equal(st.ev[PTSIM_EV_PTE_READ], 32 * rows[i].r);
		assert_int_equal(st.ev[PTSIM_EV_PTE_CAS], 32 * rows[i].cas);
		assert_int_equal(st.ev[PTSIM_EV_PTE_XCHG], 32 * rows[i].x);
		assert_int_equal(st.ev[PTSIM_EV_PTE_WRITE], 32 * rows[i].w);
		assert_int_equal(st.ev[PTSIM_EV_CONTPTE_CONVERT], 32 * rows[i].bf);
		assert_int_equal(st.ev[PTSIM_EV_FLUSH_TLB_MM], 1);	/* dup_mmap's flush_tlb_mm */
		for (uint64_t va = VA; va < VA + SZ_2M; va += SZ_64K) {
			assert_int_equal(ptsim_translate(mm, va, &tp), 0);
			assert_int_equal(ptsim_translate(child, va, &tc), 0);
			assert_int_equal(tp.pa, tc.pa);
			assert_false(tp.write || tc.write);
			assert_int_equal(tc.cont, rows[i].child_cont);
			assert_int_equal(tp.cont, rows[i].parent_cont);
			assert_int_equal(ptsim_folio_info(mm, va, &fi), 0);
			assert_int_equal(fi.mapcount, 32);
			assert_false(fi.anon_exclusive);
		}
		assert_invariants(m);
		ptsim_mm_destroy(child);
		ptsim_mm_destroy(mm);
		ptsim_machine_destroy(m);
	}
}

/*
 * Order-0 pages: 1 CAS and 1 write per PTE in every kernel; 2 reads, a third
 * with contpte (set_ptes(1) reads the child's entry for contpte_try_unfold)
 * and a fourth at 4602e5757bcc (its ptep_set_wrprotect reads twice).
 */
static void test_fork_order0(void **state)
{
	(void)state;
	for (int v = B0; v <= A; v++) {
		struct ptsim_machine *m = variant_machine(PTSIM_GRANULE_4K, 48, v);
		struct ptsim_mm *mm = populated(m, SZ_2M, 0), *child = NULL;
		struct ptsim_stats st;

		assert_int_equal(ptsim_fork(mm, &child), 0);
		st = last_stats(m);
		assert_int_equal(st.ev[PTSIM_EV_PTE_READ], (v == W ? 4 : v == A ? 3 : 2) * 512);
		assert_int_equal(st.ev[PTSIM_EV_PTE_CAS], 512);
		assert_int_equal(st.ev[PTSIM_EV_PTE_WRITE], 512);
		assert_int_equal(st.ev[PTSIM_EV_RMAP_DUP], 512);
		assert_int_equal(st.ev[PTSIM_EV_TABLE_ALLOC], 4);	/* the child's PGD, PUD, PMD, PTE */
		assert_invariants(m);
		ptsim_mm_destroy(child);
		ptsim_mm_destroy(mm);
		ptsim_machine_destroy(m);
	}
}

/*
 * After fork, a write copies the page (the parent's folio is shared); once
 * the child has exited, the parent's folio is its own again and a write
 * reuses it: in a folded block that unfolds it and marks one page exclusive.
 */
static void test_cow_after_fork(void **state)
{
	struct ptsim_machine *m = new_machine(PTSIM_GRANULE_4K, 48, PTSIM_CPU_APPLE_M3, "v6.17");
	struct ptsim_mm *mm = populated(m, SZ_2M, 4), *child = NULL;
	struct ptsim_translation before, after;
	struct ptsim_folio_info fi;
	struct diag_log log = { { 0 } };

	(void)state;
	ptsim_set_diag_handler(m, record_diag, &log);
	assert_int_equal(ptsim_fork(mm, &child), 0);
	assert_int_equal(ptsim_translate(child, VA, &before), 0);
	assert_int_equal(ptsim_fault(child, VA, PTSIM_ACCESS_WRITE), 0);
	assert_int_equal(last_stats(m).ev[PTSIM_EV_PAGE_COPY], 1);
	assert_int_equal(ptsim_translate(child, VA, &after), 0);
	assert_true(after.write && after.pa != before.pa);
	assert_int_equal(ptsim_translate(child, VA + SZ_4K, &after), 0);
	assert_false(after.cont);	/* the block the copy broke */
	assert_int_equal(ptsim_folio_info(mm, VA, &fi), 0);
	assert_int_equal(fi.mapcount, 16 + 15);
	assert_int_equal(ptsim_mm_exit(child), 0);
	ptsim_mm_destroy(child);
	assert_int_equal(ptsim_folio_info(mm, VA, &fi), 0);
	assert_int_equal(fi.mapcount, 16);
	/* the parent's block is still folded and read-only: a write reuses the folio */
	assert_int_equal(ptsim_translate(mm, VA + SZ_64K + SZ_4K, &before), 0);
	assert_true(before.cont && !before.write);
	assert_int_equal(ptsim_fault(mm, VA + SZ_64K + SZ_4K, PTSIM_ACCESS_WRITE), 0);
	assert_int_equal(last_stats(m).ev[PTSIM_EV_PAGE_COPY], 0);
	assert_int_equal(last_stats(m).ev[PTSIM_EV_CONTPTE_UNFOLD], 1);
	assert_int_equal(ptsim_translate(mm, VA + SZ_64K + SZ_4K, &after), 0);
	assert_true(after.write && !after.cont && after.pa == before.pa);
	assert_int_equal(ptsim_folio_info(mm, VA + SZ_64K + SZ_4K, &fi), 0);
	assert_true(fi.anon_exclusive);
	assert_int_equal(ptsim_folio_info(mm, VA + SZ_64K, &fi), 0);
	assert_false(fi.anon_exclusive);
	assert_int_equal(log.count[PTSIM_DIAG_BBM_VIOLATION], 0);
	assert_invariants(m);
	ptsim_mm_destroy(mm);
	ptsim_machine_destroy(m);
}

/*
 * A pinned exclusive page is copied for the child at fork (copy_present_page);
 * the parent keeps it writable. Each costs a failed batch and a relock.
 */
static void test_fork_pinned(void **state)
{
	struct ptsim_machine *m = new_machine(PTSIM_GRANULE_4K, 48, PTSIM_CPU_NEOVERSE_N1, "v6.9");
	struct ptsim_mm *mm = populated(m, SZ_2M, 4), *child = NULL;
	struct ptsim_translation tp, tc;

	(void)state;
	assert_int_equal(ptsim_folio_set_pinned(mm, VA, true), 0);
	assert_int_equal(ptsim_fork(mm, &child), 0);
	assert_int_equal(last_stats(m).ev[PTSIM_EV_PAGE_COPY], 16);
	assert_int_equal(last_stats(m).ev[PTSIM_EV_FOLIO_ALLOC], 16);
	for (uint64_t va = VA; va < VA + SZ_64K; va += SZ_4K) {
		assert_int_equal(ptsim_translate(mm, va, &tp), 0);
		assert_int_equal(ptsim_translate(child, va, &tc), 0);
		assert_true(tp.write && tc.write && tp.pa != tc.pa && !tc.cont);
	}
	assert_int_equal(ptsim_translate(child, VA + SZ_64K, &tc), 0);
	assert_true(tc.cont && !tc.write);
	assert_invariants(m);
	ptsim_mm_destroy(child);
	ptsim_mm_destroy(mm);
	ptsim_machine_destroy(m);
}

/* PMD THPs are shared whole; a pinned one is split in the parent and copied page by page. */
static void test_fork_thp(void **state)
{
	struct ptsim_machine *m = new_machine(PTSIM_GRANULE_4K, 48, PTSIM_CPU_NEOVERSE_N1, "v6.17");
	struct ptsim_mm *mm = new_mm_with_vma(m, VA, 2 * SZ_2M), *child = NULL;
	struct ptsim_translation tp, tc;

	(void)state;
	assert_int_equal(ptsim_populate(mm, VA, 2 * SZ_2M, 9, true), 0);
	assert_int_equal(ptsim_folio_set_pinned(mm, VA + SZ_2M, true), 0);
	assert_int_equal(ptsim_fork(mm, &child), 0);
	assert_int_equal(last_stats(m).ev[PTSIM_EV_HUGE_PMD_SPLIT], 1);
	assert_int_equal(last_stats(m).ev[PTSIM_EV_PAGE_COPY], 512);
	assert_int_equal(ptsim_translate(child, VA, &tc), 0);
	assert_int_equal(ptsim_translate(mm, VA, &tp), 0);
	assert_true(tc.level == PMD_LEVEL && tp.level == PMD_LEVEL && tc.pa == tp.pa && !tp.write);
	assert_int_equal(ptsim_translate(child, VA + SZ_2M, &tc), 0);
	assert_int_equal(ptsim_translate(mm, VA + SZ_2M, &tp), 0);
	assert_true(tc.level == PTE_LEVEL && tp.level == PTE_LEVEL && tc.pa != tp.pa && tp.write);
	assert_invariants(m);
	/* a write to the shared THP in the child splits it there and copies one page */
	assert_int_equal(ptsim_fault(child, VA, PTSIM_ACCESS_WRITE), 0);
	assert_int_equal(last_stats(m).ev[PTSIM_EV_HUGE_PMD_SPLIT], 1);
	assert_int_equal(last_stats(m).ev[PTSIM_EV_PAGE_COPY], 1);
	assert_invariants(m);
	ptsim_mm_destroy(child);
	ptsim_mm_destroy(mm);
	ptsim_machine_destroy(m);
}

/* DONTFORK and WIPEONFORK VMAs; a failed allocation leaves the parent unchanged. */
static void test_fork_flags_and_failure(void **state)
{
	struct ptsim_machine *m = new_machine(PTSIM_GRANULE_4K, 48, PTSIM_CPU_NEOVERSE_N1, "v6.17");
	struct ptsim_mm *mm = populated(m, 3 * SZ_2M, 4), *child = NULL, *ref;
	struct ptsim_translation t;
	uint64_t n = 0;

	(void)state;
	assert_int_equal(ptsim_madvise(mm, VA, SZ_2M, PTSIM_MADV_DONTFORK), 0);
	assert_int_equal(ptsim_madvise(mm, VA + SZ_2M, SZ_2M, PTSIM_MADV_WIPEONFORK), 0);
	assert_int_equal(ptsim_mm_clone(mm, &ref), 0);
	for (uint64_t k = 1;; k++) {
		int err;

		assert_int_equal(ptsim_fail_nth_alloc(m, k), 0);
		err = ptsim_fork(mm, &child);
		if (!err)
			break;
		assert_int_equal(err, -ENOMEM);
		assert_same_translations(mm, ref, VA, 3 * SZ_2M, SZ_4K);
		assert_invariants(m);
		n++;
	}
	assert_true(n > 0);
	assert_int_equal(ptsim_fail_nth_alloc(m, 0), 0);
	assert_int_equal(ptsim_translate(child, VA, &t), -ENOENT);
	assert_int_equal(ptsim_fault(child, VA, PTSIM_ACCESS_WRITE), -EFAULT);	/* no VMA */
	assert_int_equal(ptsim_translate(child, VA + SZ_2M, &t), -ENOENT);	/* wiped */
	assert_int_equal(ptsim_fault(child, VA + SZ_2M, PTSIM_ACCESS_WRITE), 0);
	assert_int_equal(ptsim_translate(child, VA + 2 * SZ_2M, &t), 0);
	assert_invariants(m);
	ptsim_mm_destroy(ref);
	ptsim_mm_destroy(child);
	ptsim_mm_destroy(mm);
	ptsim_machine_destroy(m);
}

/* mremap of one 64K folio per block to a 64K-congruent place (spec table 4.3, per block). */
static void test_mremap_per_block(void **state)
{
	static const struct {
		const char *preset;
		bool autofold, early_exit;
		uint64_t r, x, w, bf;
	} rows[] = {
		{ "v6.16", true, false, 64 + 16, 48, 48, 2 },
		{ "v6.16", false, false, 48 + 16, 32, 32, 1 },
		{ "v6.17", true, false, 1 + 16, 16, 16, 0 },
		{ "v6.17", true, true, 1 + 2, 16, 16, 0 },
	};
	const uint64_t dst = 8 * SZ_1G + SZ_1M;	/* PMD-misaligned: no table moves */

	(void)state;
	for (size_t i = 0; i < sizeof(rows) / sizeof(rows[0]); i++) {
		struct ptsim_machine *m = new_machine(PTSIM_GRANULE_4K, 48, PTSIM_CPU_APPLE_M3,
						      rows[i].preset);
		struct ptsim_mm *mm;
		struct ptsim_translation t;
		struct ptsim_stats st;
		uint64_t out = 0;

		ptsim_feature_set(m, PTSIM_FEAT_CONTPTE_AUTOFOLD, rows[i].autofold);
		ptsim_feature_set(m, PTSIM_FEAT_CONTPTE_GET_EARLY_EXIT, rows[i].early_exit);
		mm = populated(m, SZ_2M, 4);
		assert_int_equal(ptsim_mremap(mm, VA, SZ_2M, SZ_2M,
					      PTSIM_MREMAP_MAYMOVE | PTSIM_MREMAP_FIXED, dst, &out), 0);
		assert_int_equal(out, dst);
		st = last_stats(m);
		/* the unmap of the emptied source reads its 512 none entries */
		assert_int_equal(st.ev[PTSIM_EV_PTE_READ], 32 * rows[i].r + 512);
		assert_int_equal(st.ev[PTSIM_EV_PTE_XCHG], 32 * rows[i].x);
		assert_int_equal(st.ev[PTSIM_EV_PTE_WRITE], 32 * rows[i].w);
		assert_int_equal(st.ev[PTSIM_EV_CONTPTE_CONVERT], 32 * rows[i].bf);
		/* two extents of 1 MiB, one non-leaf range flush each */
		assert_int_equal(st.ev[PTSIM_EV_FLUSH_TLB_RANGE] + st.ev[PTSIM_EV_FLUSH_TLB_MM] >= 2, 1);
		assert_int_equal(ptsim_translate(mm, dst, &t), 0);
		assert_int_equal(t.cont, rows[i].autofold || !strcmp(rows[i].preset, "v6.17"));
		assert_int_equal(ptsim_translate(mm, VA, &t), -ENOENT);
		assert_invariants(m);
		ptsim_mm_destroy(mm);
		ptsim_machine_destroy(m);
	}
}

/* 1 GiB of 64K folios moved by 1 MiB modulo 2 MiB (spec table 4.4): 1,024 extents. */
static void test_mremap_1g(void **state)
{
	static const struct {
		const char *preset;
		uint64_t r, x, w, bf;
	} rows[] = {
		{ "v6.16", 1310720, 786432, 786432, 32768 },
		{ "v6.17", 49152, 262144, 262144, 0 },
	};

	(void)state;
	for (size_t i = 0; i < 2; i++) {
		struct ptsim_machine *m = new_machine(PTSIM_GRANULE_4K, 48, PTSIM_CPU_APPLE_M3,
						      rows[i].preset);
		struct ptsim_mm *mm = populated(m, SZ_1G, 4);
		struct ptsim_stats st;

		assert_int_equal(ptsim_mremap(mm, VA, SZ_1G, SZ_1G,
					      PTSIM_MREMAP_MAYMOVE | PTSIM_MREMAP_FIXED,
					      8 * SZ_1G + SZ_1M, NULL), 0);
		st = last_stats(m);
		assert_int_equal(st.ev[PTSIM_EV_PTE_READ], rows[i].r + 262144);
		assert_int_equal(st.ev[PTSIM_EV_PTE_XCHG], rows[i].x);
		assert_int_equal(st.ev[PTSIM_EV_PTE_WRITE], rows[i].w);
		assert_int_equal(st.ev[PTSIM_EV_CONTPTE_CONVERT], rows[i].bf);
		assert_invariants(m);
		ptsim_mm_destroy(mm);
		ptsim_machine_destroy(m);
	}
}

/* PMD-congruent moves hand whole PTE tables over; PUD-aligned ones a whole PMD table. */
static void test_mremap_table_moves(void **state)
{
	struct ptsim_machine *m = new_machine(PTSIM_GRANULE_4K, 48, PTSIM_CPU_APPLE_M3, "v6.17");
	struct ptsim_mm *mm = populated(m, SZ_1G, 4);
	struct ptsim_translation t;
	struct ptsim_stats st;

	(void)state;
	/* 1 GiB + 2 MiB: PMD aligned, not PUD aligned: 512 PTE tables move */
	assert_int_equal(ptsim_mremap(mm, VA, SZ_1G, SZ_1G, PTSIM_MREMAP_MAYMOVE | PTSIM_MREMAP_FIXED,
				      8 * SZ_1G + SZ_2M, NULL), 0);
	st = last_stats(m);
	assert_int_equal(st.ev[PTSIM_EV_PTE_READ], 0);
	assert_int_equal(st.ev[PTSIM_EV_PTE_WRITE], 0);
	assert_int_equal(st.ev[PTSIM_EV_PMD_WRITE] >= 2 * 512, 1);
	assert_int_equal(ptsim_translate(mm, 8 * SZ_1G + SZ_2M, &t), 0);
	assert_true(t.cont);
	assert_invariants(m);
	/* to a PUD-aligned place from a PUD-unaligned one: no PUD move, PTE tables again */
	assert_int_equal(ptsim_mremap(mm, 8 * SZ_1G + SZ_2M, SZ_1G, SZ_1G,
				      PTSIM_MREMAP_MAYMOVE | PTSIM_MREMAP_FIXED, 16 * SZ_1G, NULL), 0);
	assert_int_equal(last_stats(m).ev[PTSIM_EV_PTE_READ], 0);
	/* both PUD aligned: one PUD entry moves the PMD table with everything under it */
	assert_int_equal(ptsim_mremap(mm, 16 * SZ_1G, SZ_1G, SZ_1G,
				      PTSIM_MREMAP_MAYMOVE | PTSIM_MREMAP_FIXED, 32 * SZ_1G, NULL), 0);
	st = last_stats(m);
	assert_int_equal(st.ev[PTSIM_EV_PMD_WRITE], 0);
	assert_int_equal(st.ev[PTSIM_EV_PUD_WRITE] >= 2, 1);
	assert_int_equal(ptsim_translate(mm, 32 * SZ_1G + SZ_1G - SZ_4K, &t), 0);
	assert_invariants(m);
	ptsim_mm_destroy(mm);
	ptsim_machine_destroy(m);
}

/* Shrink, grow in place, grow by moving, DONTUNMAP, and a FIXED move over a mapping. */
static void test_mremap_shapes(void **state)
{
	struct ptsim_machine *m = new_machine(PTSIM_GRANULE_4K, 48, PTSIM_CPU_NEOVERSE_N1, "v6.17");
	struct ptsim_mm *mm = populated(m, SZ_2M, 4);
	struct ptsim_translation t;
	struct diag_log log = { { 0 } };
	uint64_t out = 0;

	(void)state;
	ptsim_set_diag_handler(m, record_diag, &log);
	assert_int_equal(ptsim_mremap(mm, VA, SZ_2M, SZ_1M, 0, 0, &out), 0);
	assert_int_equal(out, VA);
	assert_int_equal(ptsim_translate(mm, VA + SZ_1M, &t), -ENOENT);
	assert_int_equal(ptsim_mremap(mm, VA, SZ_1M, SZ_2M, 0, 0, &out), 0);	/* in place */
	assert_int_equal(out, VA);
	assert_int_equal(ptsim_fault(mm, VA + SZ_1M, PTSIM_ACCESS_WRITE), 0);
	/* something after it: growing needs a move */
	assert_int_equal(ptsim_mmap(mm, VA + SZ_2M, SZ_64K, PTSIM_PROT_READ,
				    PTSIM_MAP_PRIVATE | PTSIM_MAP_ANONYMOUS, NULL), 0);
	assert_int_equal(ptsim_mremap(mm, VA, SZ_2M, 2 * SZ_2M, 0, 0, &out), -ENOMEM);
	assert_int_equal(ptsim_mremap(mm, VA, SZ_2M, 2 * SZ_2M, PTSIM_MREMAP_MAYMOVE, 0, &out), 0);
	assert_true(out != VA);
	assert_int_equal(ptsim_translate(mm, out, &t), 0);
	assert_int_equal(ptsim_translate(mm, VA, &t), -ENOENT);
	/* DONTUNMAP leaves the old VMA, empty: a fault there gets a new page */
	assert_int_equal(ptsim_mremap(mm, out, SZ_2M, SZ_2M,
				      PTSIM_MREMAP_MAYMOVE | PTSIM_MREMAP_DONTUNMAP, 0, &out), 0);
	assert_int_equal(ptsim_translate(mm, out, &t), 0);
	/* FIXED onto the 64K mapping: it is unmapped first */
	assert_int_equal(ptsim_mremap(mm, out, SZ_2M, SZ_2M, PTSIM_MREMAP_MAYMOVE | PTSIM_MREMAP_FIXED,
				      VA + SZ_2M - SZ_1M, &out), 0);
	assert_int_equal(ptsim_translate(mm, VA + SZ_2M, &t), 0);
	assert_false(t.read_only && !t.write);
	assert_int_equal(ptsim_mremap(mm, 0x1000, SZ_4K, SZ_4K, 0, 0, NULL), -EFAULT);
	assert_int_equal(ptsim_mremap(mm, out, SZ_4K, SZ_4K, PTSIM_MREMAP_FIXED, 0, NULL), -EINVAL);
	assert_int_equal(log.count[PTSIM_DIAG_BBM_VIOLATION] + log.count[PTSIM_DIAG_INVARIANT], 0);
	assert_invariants(m);
	ptsim_mm_destroy(mm);
	ptsim_machine_destroy(m);
}

/*
 * A MREMAP_FIXED move over two VMAs and the hole between them (remap_move,
 * v6.17): each VMA is moved as its own mremap_to, so the call counts what
 * moving the two in two calls counts, less one system call and one
 * mmap_lock hold; the hole is kept at the target. Before v6.17 (v6.16) it is
 * -EFAULT (vma_to_resize: "We can't remap across vm area boundaries") and
 * counts nothing.
 */
static void test_mremap_multi_vma_counts(void **state)
{
	static const char *const presets[] = { "v6.16", "v6.17", "v6.18" };
	const uint64_t part = 16 * SZ_64K, tgt = VA + 64 * SZ_2M;

	(void)state;
	for (size_t p = 0; p < sizeof(presets) / sizeof(presets[0]); p++) {
		struct ptsim_machine *m = new_machine(PTSIM_GRANULE_4K, 48, PTSIM_CPU_NEOVERSE_N1,
						      presets[p]);
		struct ptsim_mm *mm = populated(m, 3 * part, 4), *two;
		struct ptsim_stats multi, one, sum = { { 0 } }, before, after;
		struct ptsim_translation t;
		uint64_t out = 0;
		bool on;

		assert_int_equal(ptsim_feature_get(m, PTSIM_FEAT_MREMAP_MULTI_VMA, &on), 0);
		assert_true(on == (p > 0));
		assert_int_equal(ptsim_munmap(mm, VA + part, part), 0);
		assert_int_equal(ptsim_mm_clone(mm, &two), 0);
		assert_int_equal(ptsim_total_stats(m, &before), 0);
		if (!on) {
			assert_int_equal(ptsim_mremap(mm, VA, 3 * part, 3 * part,
						      PTSIM_MREMAP_MAYMOVE | PTSIM_MREMAP_FIXED, tgt,
						      &out), -EFAULT);
			assert_int_equal(ptsim_total_stats(m, &after), 0);
			assert_memory_equal(&before, &after, sizeof(before));
			assert_int_equal(ptsim_translate(mm, VA, &t), 0);
			ptsim_mm_destroy(two);
			ptsim_mm_destroy(mm);
			ptsim_machine_destroy(m);
			continue;
		}
		assert_int_equal(ptsim_mremap(mm, VA, 3 * part, 3 * part,
					      PTSIM_MREMAP_MAYMOVE | PTSIM_MREMAP_FIXED, tgt, &out), 0);
		assert_int_equal(out, tgt);
		multi = last_stats(m);
		for (int i = 0; i < 2; i++) {
			assert_int_equal(ptsim_mremap(two, VA + 2 * i * part, part, part,
						      PTSIM_MREMAP_MAYMOVE | PTSIM_MREMAP_FIXED,
						      tgt + 2 * i * part, &out), 0);
			one = last_stats(ptsim_mm_machine(two));
			for (unsigned int e = 0; e < PTSIM_EV__COUNT; e++)
				sum.ev[e] += one.ev[e];
		}
		sum.ev[PTSIM_EV_SYSCALL]--;
		sum.ev[PTSIM_EV_RWSEM]--;
		/* that hold's lines: the two mmap_lock atomics and mm_lock_seq (mmap_write_lock) */
		sum.ev[PTSIM_EV_DCACHE_OBJ_L1_HIT] -= 3;
		/*
		 * The data-cache levels are compared as one sum: the second single
		 * move finds what the first left in the caches, not what the
		 * multi-VMA move's second part finds (they price the same accesses).
		 */
		for (unsigned int e = PTSIM_EV_DCACHE_PREFETCH_HIT; e < PTSIM_EV__COUNT; e++) {
			multi.ev[PTSIM_EV_DCACHE_L1_HIT] += multi.ev[e];
			sum.ev[PTSIM_EV_DCACHE_L1_HIT] += sum.ev[e];
			multi.ev[e] = sum.ev[e] = 0;
		}
		for (unsigned int e = 0; e < PTSIM_EV__COUNT; e++)
			if (multi.ev[e] != sum.ev[e])
				fail_msg("%s: %s %llu, two single moves %llu", presets[p],
					 ptsim_event_name((enum ptsim_event)e),
					 (unsigned long long)multi.ev[e], (unsigned long long)sum.ev[e]);
		assert_int_equal(multi.ev[PTSIM_EV_SYSCALL], 1);
		assert_same_translations(mm, two, tgt, 3 * part, SZ_4K);
		assert_int_equal(ptsim_translate(mm, tgt + part, &t), -ENOENT);
		assert_int_equal(ptsim_translate(mm, VA, &t), -ENOENT);
		assert_invariants(m);
		ptsim_mm_destroy(two);
		ptsim_mm_destroy(mm);
		ptsim_machine_destroy(m);
	}
}

/* MADV_FREE per 64K block, young and dirty (spec section 5.2), and order-0 pages. */
static void test_madv_free(void **state)
{
	static const struct {
		const char *preset;
		bool arm64_helper, early_exit;
		uint64_t r, w, x, bf;
	} rows[] = {
		{ "v6.10", false, false, 49 + 16, 48, 48, 2 },	/* the generic helper */
		{ "v6.10", true, false, 19 + 16, 16, 0, 0 },
		{ "v6.17", true, true, 19 + 2, 16, 0, 0 },
	};
	struct ptsim_translation t;

	(void)state;
	for (size_t i = 0; i < sizeof(rows) / sizeof(rows[0]); i++) {
		struct ptsim_machine *m = new_machine(PTSIM_GRANULE_4K, 48, PTSIM_CPU_NEOVERSE_N1,
						      rows[i].preset);
		struct ptsim_mm *mm;
		struct ptsim_stats st;

		ptsim_feature_set(m, PTSIM_FEAT_CONTPTE_CLEAR_YOUNG_DIRTY, rows[i].arm64_helper);
		ptsim_feature_set(m, PTSIM_FEAT_CONTPTE_GET_EARLY_EXIT, rows[i].early_exit);
		mm = populated(m, SZ_2M, 4);
		assert_int_equal(ptsim_madvise(mm, VA, SZ_2M, PTSIM_MADV_FREE), 0);
		st = last_stats(m);
		assert_int_equal(st.ev[PTSIM_EV_PTE_READ], 32 * rows[i].r);
		assert_int_equal(st.ev[PTSIM_EV_PTE_WRITE], 32 * rows[i].w);
		assert_int_equal(st.ev[PTSIM_EV_PTE_XCHG], 32 * rows[i].x);
		assert_int_equal(st.ev[PTSIM_EV_CONTPTE_CONVERT], 32 * rows[i].bf);
		assert_int_equal(ptsim_translate(mm, VA + SZ_64K, &t), 0);
		assert_true(t.cont && !t.af && !t.dirty && t.write);
		assert_invariants(m);
		ptsim_mm_destroy(mm);
		ptsim_machine_destroy(m);
	}
	/* order-0: 3 R and 1 W per PTE after, 3 R, 1 X and 1 W before */
	for (int after = 0; after < 2; after++) {
		struct ptsim_machine *m = new_machine(PTSIM_GRANULE_4K, 48, PTSIM_CPU_NEOVERSE_N1,
						      after ? "v6.10" : "v6.9");
		struct ptsim_mm *mm = populated(m, SZ_2M, 0);
		struct ptsim_stats st;

		assert_int_equal(ptsim_madvise(mm, VA, SZ_2M, PTSIM_MADV_FREE), 0);
		st = last_stats(m);
		assert_int_equal(st.ev[PTSIM_EV_PTE_READ], 3 * 512);
		assert_int_equal(st.ev[PTSIM_EV_PTE_WRITE], 512);
		assert_int_equal(st.ev[PTSIM_EV_PTE_XCHG], after ? 0 : 512);
		ptsim_mm_destroy(mm);
		ptsim_machine_destroy(m);
	}
}

/* Before v6.10 MADV_FREE splits every large folio; after, only one the range cuts. */
static void test_madv_free_splits(void **state)
{
	struct ptsim_translation t;
	struct ptsim_folio_info fi;

	(void)state;
	for (int after = 0; after < 2; after++) {
		struct ptsim_machine *m = new_machine(PTSIM_GRANULE_4K, 48, PTSIM_CPU_NEOVERSE_N1,
						      after ? "v6.10" : "v6.9");
		struct ptsim_mm *mm = populated(m, SZ_2M, 4);

		assert_int_equal(ptsim_madvise(mm, VA + SZ_4K, SZ_2M - SZ_4K, PTSIM_MADV_FREE), 0);
		assert_int_equal(last_stats(m).ev[PTSIM_EV_FOLIO_SPLIT], after ? 1 : 32);
		assert_int_equal(ptsim_translate(mm, VA + SZ_64K, &t), 0);
		assert_int_equal(t.cont, after);
		assert_int_equal(ptsim_folio_info(mm, VA, &fi), 0);
		assert_int_equal(fi.order, 0);
		assert_int_equal(ptsim_translate(mm, VA, &t), 0);
		assert_true(t.af && t.dirty);	/* outside the range */
		assert_invariants(m);
		ptsim_mm_destroy(mm);
		ptsim_machine_destroy(m);
	}
}

/* MADV_COLD: one CAS per entry, no write, the block stays folded. */
static void test_madv_cold(void **state)
{
	struct ptsim_machine *m = new_machine(PTSIM_GRANULE_4K, 48, PTSIM_CPU_NEOVERSE_N1, "v6.17");
	struct ptsim_mm *mm = populated(m, SZ_2M, 4);
	struct ptsim_translation t;
	struct ptsim_stats st;

	(void)state;
	assert_int_equal(ptsim_madvise(mm, VA, SZ_2M, PTSIM_MADV_COLD), 0);
	st = last_stats(m);
	assert_int_equal(st.ev[PTSIM_EV_PTE_READ], 32 * (19 + 2));
	assert_int_equal(st.ev[PTSIM_EV_PTE_CAS], 32 * 16);
	assert_int_equal(st.ev[PTSIM_EV_PTE_WRITE], 0);
	assert_int_equal(ptsim_translate(mm, VA, &t), 0);
	assert_true(t.cont && !t.af && t.dirty);
	assert_invariants(m);
	ptsim_mm_destroy(mm);
	ptsim_machine_destroy(m);
}

/* MADV_DONTNEED: munmap's zap without freeing tables; the VMA stays and faults back in. */
static void test_madv_dontneed(void **state)
{
	struct ptsim_machine *m = new_machine(PTSIM_GRANULE_4K, 48, PTSIM_CPU_NEOVERSE_N1, "v6.17");
	struct ptsim_mm *mm = new_mm_with_vma(m, VA, 2 * SZ_2M);
	struct ptsim_translation t;

	(void)state;
	assert_int_equal(ptsim_populate(mm, VA, SZ_2M, 9, true), 0);
	assert_int_equal(ptsim_populate(mm, VA + SZ_2M, SZ_2M, 4, true), 0);
	/* per page over contpte memory: the first page unfolds its block */
	assert_int_equal(ptsim_madvise(mm, VA + SZ_2M, SZ_4K, PTSIM_MADV_DONTNEED), 0);
	assert_int_equal(last_stats(m).ev[PTSIM_EV_CONTPTE_UNFOLD], 1);
	assert_int_equal(last_stats(m).ev[PTSIM_EV_TABLE_FREE], 0);
	/* across a THP's middle: it is split, half of it zapped */
	assert_int_equal(ptsim_madvise(mm, VA + SZ_1M, SZ_1M + SZ_64K, PTSIM_MADV_DONTNEED), 0);
	assert_int_equal(last_stats(m).ev[PTSIM_EV_HUGE_PMD_SPLIT], 1);
	assert_int_equal(ptsim_translate(mm, VA + SZ_1M, &t), -ENOENT);
	assert_int_equal(ptsim_translate(mm, VA + SZ_1M - SZ_4K, &t), 0);
	assert_int_equal(ptsim_fault(mm, VA + SZ_1M, PTSIM_ACCESS_WRITE), 0);
	assert_invariants(m);
	ptsim_mm_destroy(mm);
	ptsim_machine_destroy(m);
}

/*
 * MADV_PAGEOUT of written order-0 pages: per page the walk reads the entry,
 * reclaim reads it again, clears it (1 X) with a deferred TLBI, writes the
 * swap entry, completes the flush before the write-out (the entry was
 * writable) and frees the folio. The walk clears each folio's
 * PG_referenced (folio_clear_referenced). Reclaim's per-folio work (v6.12
 * mm/vmscan.c): folio_isolate_lru (a call, PG_lru cleared, a reference,
 * the lruvec's lock, three LRU size calls), reclaim_pages' PG_active clear,
 * shrink_folio_list's cond_resched, try_to_unmap with its rmap walk
 * (rmap_walk_anon, its anon_lock folio_lock_anon_vma_read, the interval
 * tree's first and next VMA, rmap_one and done) and its
 * page_vma_mapped_walk (the call, map_pte, check_pte; from v6.15 a batch
 * that takes the whole folio ends the walk: no last call)
 * and try_to_unmap_flush_dirty's flush call; the freed folios go in
 * batches of 31, each batch and the rest at the end uncharged, flushed and
 * freed (three calls); each folio's uncharge_folio, and each batch's
 * uncharge_batch (five calls: itself, page_counter_uncharge, three
 * page_counter_cancel); each folio's free_pages_prepare,
 * get_pfnblock_flags_mask and free_unref_page_commit.
 */
static void test_madv_pageout_swap(void **state)
{
	struct ptsim_machine *m = new_machine(PTSIM_GRANULE_4K, 48, PTSIM_CPU_NEOVERSE_N1, "v6.17");
	struct ptsim_mm *mm = populated(m, SZ_2M, 0);
	struct ptsim_translation t;
	struct ptsim_folio_info fi;
	struct ptsim_stats st;

	(void)state;
	assert_int_equal(ptsim_madvise(mm, VA, SZ_2M, PTSIM_MADV_PAGEOUT), 0);
	st = last_stats(m);
	assert_int_equal(st.ev[PTSIM_EV_PTE_READ], 4 * 512);
	assert_int_equal(st.ev[PTSIM_EV_PTE_XCHG], 512);
	assert_int_equal(st.ev[PTSIM_EV_PTE_WRITE], 512);
	assert_int_equal(st.ev[PTSIM_EV_TLBI_VA], 512);
	assert_int_equal(st.ev[PTSIM_EV_DSB_ISH], 512);
	assert_int_equal(st.ev[PTSIM_EV_IO_REQUEST], 512);
	assert_int_equal(st.ev[PTSIM_EV_IO_KIB], 2048);
	assert_int_equal(st.ev[PTSIM_EV_FOLIO_FREE], 512);
	assert_int_equal(st.ev[PTSIM_EV_LRU_LOCK], 512);
	/* the isolation's reference, the swap cache's (folio_ref_add), folio_end_writeback's */
	assert_int_equal(st.ev[PTSIM_EV_FOLIO_GET], 3 * 512);
	/*
	 * PG_referenced (the walk), PG_lru, PG_active, exclusive; the swap-out's
	 * ten (test-swapout: add_to_swap 2, pageout 3, swap_writepage 3 and a
	 * zeromap bit, __delete_from_swap_cache 1)
	 */
	assert_int_equal(st.ev[PTSIM_EV_PAGE_FLAG_ATOMIC], (4 + 10) * 512);
	assert_int_equal(st.ev[PTSIM_EV_COND_RESCHED], 515 + 512);
	/*
	 * after reclaim's own, the swap-out's 33 calls a folio (test-swapout):
	 * add_to_swap 7 (xas_store, xas_create and the workingset callback
	 * among them), pageout's folio_clear_dirty_for_io 3, swap_writepage
	 * 16, shrink_folio_list's folio_mapping, __remove_mapping's
	 * folio_mapping, workingset_eviction, the xas_store's three and
	 * mem_cgroup_swapout
	 */
	assert_int_equal(st.ev[PTSIM_EV_HELPER_CALL], (1 + 3 + 1 + 1 + 2 + 1 + 1 + 1 + 1 + 3 + 3 + 1 + 33) * 512 +
						      (3 + 5) * (512 / 31) + 3 + 5);
	assert_int_equal(ptsim_translate(mm, VA, &t), -ENOENT);
	assert_invariants(m);
	/* the first walk that changes entries afterwards flushes the ASID once */
	assert_int_equal(ptsim_mprotect(mm, VA, SZ_2M, PTSIM_PROT_READ), 0);
	assert_int_equal(last_stats(m).ev[PTSIM_EV_FLUSH_TLB_MM], 1);
	assert_int_equal(ptsim_mprotect(mm, VA, SZ_2M, PTSIM_PROT_READ | PTSIM_PROT_WRITE), 0);
	assert_int_equal(last_stats(m).ev[PTSIM_EV_FLUSH_TLB_MM], 0);
	/* the swap entry kept the exclusive mark: a write fault reads the page back writable */
	assert_int_equal(ptsim_fault(mm, VA, PTSIM_ACCESS_WRITE), 0);
	assert_int_equal(last_stats(m).ev[PTSIM_EV_MAJOR_FAULT], 1);
	/* swap_vma_readahead's lru_add_drain moves the new folio onto the LRU */
	assert_int_equal(last_stats(m).ev[PTSIM_EV_LRU_LOCK], 1);
	assert_int_equal(ptsim_translate(mm, VA, &t), 0);
	assert_true(t.write);
	assert_int_equal(ptsim_folio_info(mm, VA, &fi), 0);
	assert_true(fi.anon_exclusive && fi.mapcount == 1);
	assert_invariants(m);
	ptsim_mm_destroy(mm);
	ptsim_machine_destroy(m);
}

/*
 * 64K mTHP and a PMD THP go to swap whole, but the entries are cleared one
 * at a time: the first clear of each contpte block unfolds it (one
 * contpte_convert with its own flush); the PMD is split first.
 */
static void test_madv_pageout_large(void **state)
{
	struct ptsim_machine *m = new_machine(PTSIM_GRANULE_4K, 48, PTSIM_CPU_NEOVERSE_V2, "v6.17");
	struct ptsim_mm *mm = new_mm_with_vma(m, VA, 2 * SZ_2M);
	struct ptsim_stats st;

	(void)state;
	assert_int_equal(ptsim_populate(mm, VA, SZ_2M, 4, true), 0);
	assert_int_equal(ptsim_populate(mm, VA + SZ_2M, SZ_2M, 9, true), 0);
	assert_int_equal(ptsim_madvise(mm, VA, SZ_2M, PTSIM_MADV_PAGEOUT), 0);
	st = last_stats(m);
	assert_int_equal(st.ev[PTSIM_EV_CONTPTE_UNFOLD], 32);
	assert_int_equal(st.ev[PTSIM_EV_TLBI_VA], 512);
	/* one flush for each unfold, one before each folio's write-out */
	assert_int_equal(st.ev[PTSIM_EV_DSB_ISH], 32 + 32);
	assert_int_equal(st.ev[PTSIM_EV_IO_REQUEST], 32);
	assert_int_equal(st.ev[PTSIM_EV_IO_KIB], 2048);
	assert_int_equal(st.ev[PTSIM_EV_FOLIO_FREE], 32);
	assert_invariants(m);
	assert_int_equal(ptsim_madvise(mm, VA + SZ_2M, SZ_2M, PTSIM_MADV_PAGEOUT), 0);
	st = last_stats(m);
	assert_int_equal(st.ev[PTSIM_EV_HUGE_PMD_SPLIT], 1);
	assert_int_equal(st.ev[PTSIM_EV_CONTPTE_UNFOLD], 32);
	assert_int_equal(st.ev[PTSIM_EV_IO_REQUEST], 1);
	assert_int_equal(st.ev[PTSIM_EV_IO_KIB], 2048);
	assert_int_equal(st.ev[PTSIM_EV_FOLIO_FREE], 1);
	assert_int_equal(ptsim_translate(mm, VA + SZ_2M, &(struct ptsim_translation){ 0 }), -ENOENT);
	assert_invariants(m);
	/* munmap frees the swap slots and pays the pending flush */
	assert_int_equal(ptsim_munmap(mm, VA, 2 * SZ_2M), 0);
	assert_int_equal(last_stats(m).ev[PTSIM_EV_SWAP_LOOKUP], 1024);
	assert_int_equal(last_stats(m).ev[PTSIM_EV_FLUSH_TLB_MM], 1);
	assert_invariants(m);
	ptsim_mm_destroy(mm);
	ptsim_machine_destroy(m);
}

/*
 * A PMD THP as a VMA's first anonymous fault gives the VMA its anon_vma
 * (vmf_anon_prepare). Without it the folio would carry none, and after a
 * later fault gave the VMA one, the rmap could not find the folio's own
 * mappings: MADV_COLD on part of it would take it for shared and not split it.
 */
static void test_thp_fault_prepares_anon_vma(void **state)
{
	struct ptsim_machine *m = new_machine(PTSIM_GRANULE_4K, 48, PTSIM_CPU_NEOVERSE_V2, "v6.17");
	struct ptsim_mm *mm = new_mm_with_vma(m, VA, SZ_2M + SZ_64K);
	struct ptsim_folio_info fi;

	(void)state;
	assert_int_equal(ptsim_set_thp_orders(m, UINT64_C(1) << 9), 0);
	assert_int_equal(ptsim_fault(mm, VA, PTSIM_ACCESS_WRITE), 0);
	assert_int_equal(ptsim_folio_info(mm, VA, &fi), 0);
	assert_int_equal(fi.order, 9);
	assert_int_equal(ptsim_fault(mm, VA + SZ_2M, PTSIM_ACCESS_WRITE), 0);	/* an order-0 page */
	assert_int_equal(ptsim_split_huge_pmd(mm, VA, SZ_2M), 0);
	assert_int_equal(ptsim_madvise(mm, VA, SZ_64K, PTSIM_MADV_COLD), 0);
	assert_int_equal(last_stats(m).ev[PTSIM_EV_FOLIO_SPLIT], 1);
	assert_int_equal(ptsim_folio_info(mm, VA, &fi), 0);
	assert_int_equal(fi.order, 0);
	assert_invariants(m);
	ptsim_mm_destroy(mm);
	ptsim_machine_destroy(m);
}

/*
 * Lazyfree (MADV_FREE'd) 64K folios are discarded, not swapped. Page 8 of
 * every other block (16 of 32) is written again first: that folio is dirty (the unfold
 * gathers the block's dirty bit into page 0), so its entries come back and
 * it becomes swap-backed; a second PAGEOUT swaps it. v6.16 clears a lazyfree
 * folio in one batch: no unfold, one range TLBI.
 */
static void test_madv_pageout_lazyfree(void **state)
{
	/* the first PAGEOUT, unbatched (v6.10) and batched (v6.16) */
	static const struct {
		uint64_t xchgs, tlbi_va, tlbi_range, unfolds;
	} want[2] = {
		{ .xchgs = 32 * 16 + 16 * 16 + 16, .tlbi_va = 16 * 16 + 16, .tlbi_range = 32,
		  .unfolds = 32 },
		{ .xchgs = 32 * 16, .tlbi_va = 0, .tlbi_range = 32, .unfolds = 0 },
	};

	struct ptsim_stats first[2];

	(void)state;
	for (int batched = 0; batched < 2; batched++) {
		struct ptsim_machine *m = new_machine(PTSIM_GRANULE_4K, 48, PTSIM_CPU_NEOVERSE_V2,
						      batched ? "v6.16" : "v6.10");
		struct ptsim_mm *mm = populated(m, SZ_2M, 4);
		struct ptsim_translation t;
		struct ptsim_stats st;

		assert_int_equal(ptsim_madvise(mm, VA, SZ_2M, PTSIM_MADV_FREE), 0);
		for (uint64_t va = VA + 8 * SZ_4K; va < VA + SZ_2M; va += 2 * SZ_64K)
			assert_int_equal(ptsim_access(mm, 0, va, PTSIM_ACCESS_WRITE, NULL), 0);
		assert_int_equal(ptsim_madvise(mm, VA, SZ_2M, PTSIM_MADV_PAGEOUT), 0);
		st = first[batched] = last_stats(m);
		assert_int_equal(st.ev[PTSIM_EV_PTE_XCHG], want[batched].xchgs);
		assert_int_equal(st.ev[PTSIM_EV_TLBI_VA], want[batched].tlbi_va);
		assert_int_equal(st.ev[PTSIM_EV_TLBI_RANGE], want[batched].tlbi_range);
		assert_int_equal(st.ev[PTSIM_EV_CONTPTE_UNFOLD], want[batched].unfolds);
		assert_int_equal(st.ev[PTSIM_EV_FOLIO_FREE], 16);
		assert_int_equal(st.ev[PTSIM_EV_IO_REQUEST], 0);
		assert_int_equal(st.ev[PTSIM_EV_DSB_ISH], 1 + want[batched].unfolds);
		/* the 16 written again are kept and put back on the LRU (folio_putback_lru) */
		assert_int_equal(st.ev[PTSIM_EV_LRU_ADD], 16);
		/* folio_isolate_lru's 32, and the drain of MADV_FREE's last lazyfree folio */
		assert_int_equal(st.ev[PTSIM_EV_LRU_LOCK], 32 + 1);
		assert_int_equal(ptsim_translate(mm, VA, &t), 0);
		assert_true(t.dirty && t.cont == batched);
		assert_int_equal(ptsim_translate(mm, VA + SZ_64K, &t), -ENOENT);
		assert_invariants(m);
		assert_int_equal(ptsim_madvise(mm, VA, SZ_2M, PTSIM_MADV_PAGEOUT), 0);
		assert_int_equal(last_stats(m).ev[PTSIM_EV_IO_REQUEST], 16);
		assert_int_equal(last_stats(m).ev[PTSIM_EV_FOLIO_FREE], 16);
		assert_int_equal(ptsim_translate(mm, VA, &t), -ENOENT);
		assert_invariants(m);
		ptsim_mm_destroy(mm);
		ptsim_machine_destroy(m);
	}
	/*
	 * try_to_unmap_one's discard of the 16 clean folios: per entry (v6.10)
	 * MM_ANONPAGES down and the entry's reference dropped (folio_put_refs),
	 * from v6.16 once per batch: 16 x 15 fewer of each (the written folios
	 * stop at their first entry, on both)
	 */
	assert_int_equal(first[0].ev[PTSIM_EV_FOLIO_PUT] - first[1].ev[PTSIM_EV_FOLIO_PUT], 16 * 15);
	assert_int_equal(first[0].ev[PTSIM_EV_VM_STAT] - first[1].ev[PTSIM_EV_VM_STAT], 16 * 15);
}

/*
 * A page read back from swap stays in the swap cache, clean. Shared by fork,
 * MADV_FREE in the child leaves it alone (madvise_free_pte_range: a
 * swap-cache folio whose mapcount is not its page count), so once the child
 * has gone reclaim swaps it out again instead of discarding what the parent
 * reads. Exclusive, MADV_FREE takes it out of the swap cache and reclaim
 * may discard it.
 */
static void test_madv_free_swapcache(void **state)
{
	struct ptsim_machine *m = new_machine(PTSIM_GRANULE_4K, 48, PTSIM_CPU_NEOVERSE_N1, "v6.12");
	struct ptsim_mm *mm = populated(m, SZ_64K, 0), *child;
	struct ptsim_page_info pi;

	(void)state;
	assert_int_equal(ptsim_swapout(mm, VA, SZ_64K), 0);
	assert_int_equal(ptsim_fault(mm, VA, PTSIM_ACCESS_READ), 0);
	assert_int_equal(ptsim_fault(mm, VA + SZ_4K, PTSIM_ACCESS_READ), 0);
	assert_int_equal(ptsim_fork(mm, &child), 0);
	assert_int_equal(ptsim_madvise(child, VA, SZ_4K, PTSIM_MADV_FREE), 0);
	assert_int_equal(last_stats(m).ev[PTSIM_EV_SWAP_LOOKUP], 0);
	ptsim_mm_destroy(child);
	assert_int_equal(ptsim_madvise(mm, VA, SZ_4K, PTSIM_MADV_PAGEOUT), 0);
	assert_int_equal(last_stats(m).ev[PTSIM_EV_IO_REQUEST], 1);
	assert_int_equal(ptsim_pagemap(mm, VA, &pi), 0);
	assert_int_equal(pi.state, PTSIM_PAGE_SWAP);
	/*
	 * exclusive: out of the swap cache, lazily freed, then discarded; four
	 * swap-cache calls: folio_free_swap, delete_from_swap_cache (it takes the
	 * lock), __delete_from_swap_cache, put_swap_folio
	 */
	assert_int_equal(ptsim_madvise(mm, VA + SZ_4K, SZ_4K, PTSIM_MADV_FREE), 0);
	assert_int_equal(last_stats(m).ev[PTSIM_EV_SWAP_LOOKUP], 4);
	assert_int_equal(ptsim_madvise(mm, VA + SZ_4K, SZ_4K, PTSIM_MADV_PAGEOUT), 0);
	assert_int_equal(last_stats(m).ev[PTSIM_EV_IO_REQUEST], 0);
	assert_int_equal(ptsim_pagemap(mm, VA + SZ_4K, &pi), 0);
	assert_int_equal(pi.state, PTSIM_PAGE_NONE);
	assert_invariants(m);
	ptsim_mm_destroy(mm);
	ptsim_machine_destroy(m);
}

/* Before v6.16 the per-entry unmap of a lazyfree folio discards the pages before the dirty one. */
static void test_madv_pageout_lazyfree_partial(void **state)
{
	struct ptsim_machine *m = new_machine(PTSIM_GRANULE_4K, 48, PTSIM_CPU_NEOVERSE_V2, "v6.10");
	struct ptsim_mm *mm = populated(m, SZ_64K, 4);
	struct ptsim_folio_info fi;
	struct ptsim_translation t;

	(void)state;
	/*
	 * unfolded first (not at the block's last entry, which would refold),
	 * so the write dirties page 8 alone
	 */
	assert_int_equal(ptsim_mprotect(mm, VA + 3 * SZ_4K, SZ_4K, PTSIM_PROT_READ), 0);
	assert_int_equal(ptsim_mprotect(mm, VA + 3 * SZ_4K, SZ_4K,
					PTSIM_PROT_READ | PTSIM_PROT_WRITE), 0);
	assert_int_equal(ptsim_translate(mm, VA, &t), 0);
	assert_false(t.cont);
	assert_int_equal(ptsim_madvise(mm, VA, SZ_64K, PTSIM_MADV_FREE), 0);
	assert_int_equal(ptsim_access(mm, 0, VA + 8 * SZ_4K, PTSIM_ACCESS_WRITE, NULL), 0);
	assert_int_equal(ptsim_madvise(mm, VA, SZ_64K, PTSIM_MADV_PAGEOUT), 0);
	assert_int_equal(last_stats(m).ev[PTSIM_EV_FOLIO_FREE], 0);
	for (uint64_t i = 0; i < 8; i++)
		assert_int_equal(ptsim_translate(mm, VA + i * SZ_4K, &t), -ENOENT);
	assert_int_equal(ptsim_translate(mm, VA + 8 * SZ_4K, &t), 0);
	assert_int_equal(ptsim_folio_info(mm, VA + 8 * SZ_4K, &fi), 0);
	assert_int_equal(fi.mapcount, 8);
	assert_invariants(m);
	ptsim_mm_destroy(mm);
	ptsim_machine_destroy(m);
}

/*
 * What PAGEOUT leaves alone: folios another mm maps (after fork), pinned
 * folios, locked VMAs (-EINVAL). Clean file pages leave the page cache.
 */
static void test_madv_pageout_skips_and_files(void **state)
{
	struct ptsim_machine *m = new_machine(PTSIM_GRANULE_4K, 48, PTSIM_CPU_NEOVERSE_N1, "v6.17");
	struct ptsim_mm *mm = populated(m, SZ_2M, 4), *child = NULL;
	unsigned int file, fd, order;
	uint64_t addr;

	(void)state;
	assert_int_equal(ptsim_fork(mm, &child), 0);
	assert_int_equal(ptsim_madvise(mm, VA, SZ_2M, PTSIM_MADV_PAGEOUT), 0);
	assert_int_equal(last_stats(m).ev[PTSIM_EV_FOLIO_TRYLOCK], 0);
	ptsim_mm_exit(child);
	ptsim_mm_destroy(child);
	assert_int_equal(ptsim_folio_set_pinned(mm, VA, true), 0);
	assert_int_equal(ptsim_madvise(mm, VA, SZ_64K, PTSIM_MADV_PAGEOUT), 0);
	assert_int_equal(last_stats(m).ev[PTSIM_EV_FOLIO_TRYLOCK], 1);
	assert_int_equal(last_stats(m).ev[PTSIM_EV_FOLIO_FREE], 0);
	assert_int_equal(ptsim_mlock(mm, VA, SZ_64K), 0);
	assert_int_equal(ptsim_madvise(mm, VA, SZ_64K, PTSIM_MADV_PAGEOUT), -EINVAL);

	assert_int_equal(ptsim_file_create(m, SZ_64K, 0, &file), 0);
	assert_int_equal(ptsim_file_open(m, file, &fd), 0);
	assert_int_equal(ptsim_mmap_file(mm, 0, SZ_64K, PTSIM_PROT_READ, fd, 0, &addr), 0);
	assert_int_equal(ptsim_fault(mm, addr, PTSIM_ACCESS_READ), 0);
	assert_int_equal(ptsim_file_cached(m, file, 0, &order), 0);
	assert_int_equal(ptsim_madvise(mm, addr, SZ_64K, PTSIM_MADV_PAGEOUT), 0);
	assert_int_equal(last_stats(m).ev[PTSIM_EV_IO_REQUEST], 0);
	assert_true(last_stats(m).ev[PTSIM_EV_FOLIO_FREE] > 0);
	assert_int_equal(ptsim_file_cached(m, file, 0, &order), -ENOENT);
	assert_int_equal(ptsim_translate(mm, addr, &(struct ptsim_translation){ 0 }), -ENOENT);
	assert_int_equal(ptsim_fault(mm, addr, PTSIM_ACCESS_READ), 0);
	assert_int_equal(last_stats(m).ev[PTSIM_EV_MAJOR_FAULT], 1);
	assert_invariants(m);
	ptsim_mm_destroy(mm);
	ptsim_machine_destroy(m);
}

/*
 * munlock's walk per 64K block in Xavier Xia's three states (spec table 6.2):
 * 2 (1 + g) reads, g from the early-exit gather.
 */
static void test_mlock_states(void **state)
{
	/* PTE reads per block in each state: mapped, lazyfree and re-read, lazyfree and cold */
	static const struct {
		uint64_t reads[3];
	} want[2] = { [0] = { .reads = { 34, 34, 34 } }, [1] = { .reads = { 6, 34, 34 } } };

	(void)state;
	for (int v617 = 0; v617 < 2; v617++) {
		for (int st = 0; st < 3; st++) {
			struct ptsim_machine *m = new_machine(PTSIM_GRANULE_4K, 48, PTSIM_CPU_NEOVERSE_N1,
							      v617 ? "v6.17" : "v6.16");
			struct ptsim_mm *mm = populated(m, SZ_2M, 4);
			struct ptsim_folio_info fi;

			if (st > 0)
				assert_int_equal(ptsim_madvise(mm, VA, SZ_2M, PTSIM_MADV_FREE), 0);
			if (st == 1) {
				for (uint64_t va = VA + 8 * SZ_4K; va < VA + SZ_2M; va += SZ_64K)
					assert_int_equal(ptsim_access(mm, 0, va, PTSIM_ACCESS_READ, NULL), 0);
			}
			if (st == 2)
				assert_int_equal(ptsim_madvise(mm, VA, SZ_2M, PTSIM_MADV_COLD), 0);
			assert_int_equal(ptsim_mlock(mm, VA, SZ_2M), 0);
			assert_int_equal(ptsim_folio_info(mm, VA, &fi), 0);
			assert_int_equal(ptsim_munlock(mm, VA, SZ_2M), 0);
			assert_int_equal(last_stats(m).ev[PTSIM_EV_PTE_READ], 32 * want[v617].reads[st]);
			assert_int_equal(last_stats(m).ev[PTSIM_EV_MLOCK_FOLIO], 32);
			assert_int_equal(last_stats(m).ev[PTSIM_EV_PTE_WRITE], 0);
			assert_invariants(m);
			ptsim_mm_destroy(mm);
			ptsim_machine_destroy(m);
		}
	}
}

/* mlock populates what is missing; a large folio only partly in the range is not locked. */
static void test_mlock_populate(void **state)
{
	struct ptsim_machine *m = new_machine(PTSIM_GRANULE_4K, 48, PTSIM_CPU_NEOVERSE_N1, "v6.17");
	struct ptsim_mm *mm = new_mm_with_vma(m, VA, SZ_2M);
	struct ptsim_translation t;

	(void)state;
	assert_int_equal(ptsim_populate(mm, VA, SZ_64K, 4, true), 0);
	assert_int_equal(ptsim_mlock(mm, VA + SZ_4K, SZ_64K), 0);
	assert_int_equal(last_stats(m).ev[PTSIM_EV_MLOCK_FOLIO], 0);	/* the folio is cut */
	assert_int_equal(ptsim_translate(mm, VA + SZ_64K, &t), 0);	/* faulted in */
	assert_int_equal(ptsim_madvise(mm, VA, SZ_64K, PTSIM_MADV_DONTNEED), -EINVAL);
	assert_int_equal(ptsim_munlock(mm, VA, SZ_2M), 0);
	assert_int_equal(ptsim_madvise(mm, VA, SZ_64K, PTSIM_MADV_DONTNEED), 0);
	assert_int_equal(ptsim_mlock(mm, VA + SZ_2M, SZ_4K), -ENOMEM);
	assert_invariants(m);
	ptsim_mm_destroy(mm);
	ptsim_machine_destroy(m);
}

/* Anonymous faults with mTHP orders enabled (spec section 7.1). */
static void test_anon_mthp_faults(void **state)
{
	struct ptsim_machine *m = new_machine(PTSIM_GRANULE_4K, 48, PTSIM_CPU_NEOVERSE_N1, "v6.17");
	struct ptsim_mm *mm = new_mm_with_vma(m, VA, SZ_1G);
	struct ptsim_translation t;
	struct ptsim_folio_info fi;
	struct ptsim_stats st;

	(void)state;
	assert_int_equal(ptsim_set_thp_orders(m, 1u << 4), 0);
	/* first touch of 1 GiB, one write per 64K: 16,384 faults */
	assert_int_equal(ptsim_total_stats(m, &st), 0);
	uint64_t r0 = st.ev[PTSIM_EV_PTE_READ], w0 = st.ev[PTSIM_EV_PTE_WRITE];

	for (uint64_t va = VA; va < VA + SZ_1G; va += SZ_64K)
		assert_int_equal(ptsim_fault(mm, va + 5 * SZ_4K, PTSIM_ACCESS_WRITE), 0);
	assert_int_equal(ptsim_total_stats(m, &st), 0);
	/* 33 R and 16 W a fault; the first fault of each PTE table has no entry to read */
	assert_int_equal(st.ev[PTSIM_EV_PTE_READ] - r0, 16384 * 33 - 512);
	assert_int_equal(st.ev[PTSIM_EV_PTE_WRITE] - w0, 262144);
	assert_int_equal(ptsim_translate(mm, VA, &t), 0);
	assert_true(t.cont);
	assert_int_equal(ptsim_folio_info(mm, VA, &fi), 0);
	assert_int_equal(fi.order, 4);
	assert_int_equal(ptsim_munmap(mm, VA, SZ_1G), 0);
	/* order 0 only: 3 R and 1 W */
	assert_int_equal(ptsim_set_thp_orders(m, 0), 0);
	assert_int_equal(ptsim_mmap(mm, VA, SZ_2M, PTSIM_PROT_READ | PTSIM_PROT_WRITE,
				    PTSIM_MAP_PRIVATE | PTSIM_MAP_ANONYMOUS, NULL), 0);
	assert_int_equal(ptsim_fault(mm, VA, PTSIM_ACCESS_WRITE), 0);
	assert_int_equal(ptsim_fault(mm, VA + SZ_4K, PTSIM_ACCESS_WRITE), 0);
	assert_int_equal(last_stats(m).ev[PTSIM_EV_PTE_READ], 3);
	assert_int_equal(last_stats(m).ev[PTSIM_EV_PTE_WRITE], 1);
	/* 32K folios never get the contiguous bit, and do not fold together */
	assert_int_equal(ptsim_set_thp_orders(m, 1u << 3), 0);
	for (uint64_t va = VA + SZ_64K; va < VA + 2 * SZ_64K; va += SZ_64K / 2)
		assert_int_equal(ptsim_fault(mm, va, PTSIM_ACCESS_WRITE), 0);
	assert_int_equal(ptsim_translate(mm, VA + SZ_64K, &t), 0);
	assert_false(t.cont);
	/* a used entry in the aligned range: the fault falls back to a smaller order */
	assert_int_equal(ptsim_fault(mm, VA + 9 * SZ_4K, PTSIM_ACCESS_WRITE), 0);
	assert_int_equal(ptsim_folio_info(mm, VA + 9 * SZ_4K, &fi), 0);
	assert_int_equal(fi.order, 3);
	assert_int_equal(ptsim_fault(mm, VA + 2 * SZ_4K, PTSIM_ACCESS_WRITE), 0);
	assert_int_equal(ptsim_folio_info(mm, VA + 2 * SZ_4K, &fi), 0);
	assert_int_equal(fi.order, 0);
	/* the PMD order maps a PMD THP where the VMA covers the aligned 2 MiB */
	assert_int_equal(ptsim_set_thp_orders(m, 1u << 9), 0);
	assert_int_equal(ptsim_mmap(mm, 4 * SZ_1G, SZ_2M, PTSIM_PROT_READ | PTSIM_PROT_WRITE,
				    PTSIM_MAP_PRIVATE | PTSIM_MAP_ANONYMOUS, NULL), 0);
	assert_int_equal(ptsim_fault(mm, 4 * SZ_1G + SZ_64K, PTSIM_ACCESS_WRITE), 0);
	assert_int_equal(ptsim_translate(mm, 4 * SZ_1G, &t), 0);
	assert_int_equal(t.level, 2);
	assert_int_equal(ptsim_set_thp_orders(m, 1u << 10), -EINVAL);
	assert_invariants(m);
	ptsim_mm_destroy(mm);
	ptsim_machine_destroy(m);
}

/*
 * v6.17's batched move_ptes lets one batch span entries whose write bits
 * differ and writes the first entry's permission to all of them ("mm/mremap:
 * honour writable bit in mremap pte batching" fixed it in v6.18). After a
 * fork, the child's exit and a write that reuses page 0 of a 64K folio, only
 * page 0 is writable; moving the folio makes all 16 writable on v6.17.
 */
static void test_mremap_respect_write(void **state)
{
	(void)state;
	for (int fixed = 0; fixed < 2; fixed++) {
		struct ptsim_machine *m = new_machine(PTSIM_GRANULE_4K, 48, PTSIM_CPU_NEOVERSE_N1,
						      fixed ? "v6.18" : "v6.17");
		struct ptsim_mm *mm = populated(m, SZ_2M, 4), *child = NULL;
		struct ptsim_translation t;
		const uint64_t dst = 8 * SZ_1G;

		assert_int_equal(ptsim_fork(mm, &child), 0);
		assert_int_equal(ptsim_mm_exit(child), 0);
		ptsim_mm_destroy(child);
		assert_int_equal(ptsim_fault(mm, VA, PTSIM_ACCESS_WRITE), 0);	/* reuse */
		assert_int_equal(ptsim_translate(mm, VA + SZ_4K, &t), 0);
		assert_false(t.write);
		assert_int_equal(ptsim_mremap(mm, VA, SZ_64K, SZ_64K,
					      PTSIM_MREMAP_MAYMOVE | PTSIM_MREMAP_FIXED, dst, NULL), 0);
		assert_int_equal(ptsim_translate(mm, dst, &t), 0);
		assert_true(t.write);
		assert_int_equal(ptsim_translate(mm, dst + SZ_4K, &t), 0);
		assert_int_equal(t.write, !fixed);
		assert_invariants(m);
		ptsim_mm_destroy(mm);
		ptsim_machine_destroy(m);
	}
}

/*
 * The general forms on 16K and 64K pages (G entries per block, g = G reads
 * per gather before the early exit): munmap A 1 + g reads and G exchanges per
 * block, v6.8 (no contpte) G reads and G exchanges; fork A 1 + g + G reads, G
 * CAS and G stores, v6.8 2G reads, G CAS and G stores; no block flush but A's.
 */
static void test_other_granules(void **state)
{
	static const struct {
		enum ptsim_granule gr;
		unsigned int va_bits, order;
	} grs[] = { { PTSIM_GRANULE_16K, 47, 7 }, { PTSIM_GRANULE_64K, 48, 5 } };

	(void)state;
	for (size_t k = 0; k < 2; k++) {
		for (int v617 = 0; v617 < 2; v617++) {
			struct ptsim_machine *m = new_machine(grs[k].gr, grs[k].va_bits, PTSIM_CPU_NEOVERSE_N1,
							      v617 ? "v6.9" : "v6.8");
			const uint64_t G = m->geo.cont_ptes, g = G, len = m->geo.pmd_size;
			const uint64_t blocks = len / m->geo.cont_pte_size;
			struct ptsim_mm *mm = new_mm_with_vma(m, VA, len), *child = NULL;
			struct ptsim_stats st;

			ptsim_feature_set(m, PTSIM_FEAT_CONTPTE_AUTOFOLD, true);
			assert_int_equal(ptsim_populate(mm, VA, len, grs[k].order, true), 0);
			assert_int_equal(ptsim_munmap(mm, VA, len), 0);
			st = last_stats(m);
			assert_int_equal(st.ev[PTSIM_EV_PTE_READ], blocks * (v617 ? 1 + g : G));
			assert_int_equal(st.ev[PTSIM_EV_PTE_XCHG], blocks * G);
			assert_int_equal(st.ev[PTSIM_EV_PTE_WRITE], 0);
			assert_int_equal(st.ev[PTSIM_EV_CONTPTE_CONVERT], 0);
			assert_int_equal(ptsim_mmap(mm, VA, len, PTSIM_PROT_READ | PTSIM_PROT_WRITE,
						    PTSIM_MAP_PRIVATE | PTSIM_MAP_ANONYMOUS, NULL), 0);
			assert_int_equal(ptsim_populate(mm, VA, len, grs[k].order, true), 0);
			assert_int_equal(ptsim_fork(mm, &child), 0);
			st = last_stats(m);
			assert_int_equal(st.ev[PTSIM_EV_PTE_READ], blocks * (v617 ? 1 + g + G : 2 * G));
			assert_int_equal(st.ev[PTSIM_EV_PTE_CAS], blocks * G);
			assert_int_equal(st.ev[PTSIM_EV_PTE_XCHG], 0);
			assert_int_equal(st.ev[PTSIM_EV_PTE_WRITE], blocks * G);
			assert_int_equal(st.ev[PTSIM_EV_CONTPTE_CONVERT], 0);
			ptsim_mm_destroy(child);
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
		cmocka_unit_test(test_munmap_sparse_none_runs),
		cmocka_unit_test(test_munmap_1g),
		cmocka_unit_test(test_exit_1g),
		cmocka_unit_test(test_munmap_partial),
		cmocka_unit_test(test_teardown_no_stale_tlb),
		cmocka_unit_test(test_fork_per_block),
		cmocka_unit_test(test_fork_order0),
		cmocka_unit_test(test_cow_after_fork),
		cmocka_unit_test(test_fork_pinned),
		cmocka_unit_test(test_fork_thp),
		cmocka_unit_test(test_fork_flags_and_failure),
		cmocka_unit_test(test_mremap_per_block),
		cmocka_unit_test(test_mremap_1g),
		cmocka_unit_test(test_mremap_table_moves),
		cmocka_unit_test(test_mremap_shapes),
		cmocka_unit_test(test_mremap_multi_vma_counts),
		cmocka_unit_test(test_mremap_respect_write),
		cmocka_unit_test(test_madv_free),
		cmocka_unit_test(test_madv_free_splits),
		cmocka_unit_test(test_madv_cold),
		cmocka_unit_test(test_madv_dontneed),
		cmocka_unit_test(test_madv_pageout_swap),
		cmocka_unit_test(test_madv_pageout_large),
		cmocka_unit_test(test_thp_fault_prepares_anon_vma),
		cmocka_unit_test(test_madv_pageout_lazyfree),
		cmocka_unit_test(test_madv_free_swapcache),
		cmocka_unit_test(test_madv_pageout_lazyfree_partial),
		cmocka_unit_test(test_madv_pageout_skips_and_files),
		cmocka_unit_test(test_mlock_states),
		cmocka_unit_test(test_mlock_populate),
		cmocka_unit_test(test_anon_mthp_faults),
		cmocka_unit_test(test_other_granules),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
