// SPDX-License-Identifier: MIT
/*
 * Inline or call (issue 26 item 2): a primitive the kernel compiles inline is
 * priced as the inline work it is, and a call is counted exactly where the
 * kernel makes an out-of-line call. The kernel facts are v6.12's (arm64
 * PREEMPT_DYNAMIC and PREEMPT_RCU, as the distributions build it), with the
 * v6.16/v6.17 mprotect paths of mm/mprotect.c and arch/arm64/mm/mmu.c.
 */
#include "helpers.h"
#include "primitives.h"

#define VA SZ_1G
#define RO PTSIM_PROT_READ
#define RW (PTSIM_PROT_READ | PTSIM_PROT_WRITE)

static const char *klass(enum ptsim_event e)
{
	struct ptsim_cost c;

	assert_int_equal(ptsim_cost_get(PTSIM_CPU_APPLE_M3, PTSIM_GRANULE_4K, e, &c), 0);
	return c.klass;
}

/*
 * The calls a set of counts is charged for: the events of the call class,
 * each times its multiplier (a PTE_MAP is two: __pte_offset_map and the
 * unmap's __rcu_read_unlock).
 */
static double calls_charged(const struct ptsim_stats *st)
{
	double calls = 0;

	for (unsigned int e = 0; e < PTSIM_EV__COUNT; e++) {
		struct ptsim_cost c;

		assert_int_equal(ptsim_cost_get(PTSIM_CPU_APPLE_M3, PTSIM_GRANULE_4K, e, &c), 0);
		if (!strcmp(c.klass, "call"))
			calls += c.multiplier * (double)st->ev[e];
	}
	return calls;
}

/* Every single-event primitive the registry marks inline is priced as something other than a call. */
static void test_inline_entries_are_not_calls(void **state)
{
	(void)state;
	for (unsigned int p = 0; p < PRIM__COUNT; p++) {
		const struct prim_info *pi = prim_info(p);

		if (pi->linkage != PRIM_INLINE || pi->event == PRIM_EVENTS)
			continue;
		if (!strcmp(klass(pi->event), "call"))
			fail_msg("%s is inline but its event %s is priced as a call", pi->name,
				 ptsim_event_name(pi->event));
	}
	/* and the split ones: the inline wrapper is a test, the out-of-line part a call */
	assert_string_equal(klass(PTSIM_EV_PTEP_GET), "bit_test");
	assert_string_equal(klass(PTSIM_EV_CONTPTE_GATHER), "call");
	assert_string_equal(klass(PTSIM_EV_SET_PTES), "bit_test");
	assert_string_equal(klass(PTSIM_EV_SET_PTES_CHUNK), "bit_test");
	assert_string_equal(klass(PTSIM_EV_CONTPTE_UNFOLD), "call");
	assert_string_equal(klass(PTSIM_EV_PMD_ITER), "bit_test");
	assert_string_equal(klass(PTSIM_EV_COND_RESCHED), "call");
	/* the entry's tests; the per-page mapcount atomics are their own event */
	assert_string_equal(klass(PTSIM_EV_RMAP_DUP), "bit_test");
}

/*
 * mmu_notifier_invalidate_range_start with no notifiers: its tests, and
 * might_sleep's one call of dynamic_might_resched; no notifier call.
 */
static void test_notifier_range_without_notifiers(void **state)
{
	struct ptsim_machine *m = new_machine(PTSIM_GRANULE_4K, 48, PTSIM_CPU_APPLE_M3, NULL);

	(void)state;
	reset_counts(m);
	mmu_notifier_invalidate_range_start(m);
	for (unsigned int e = 0; e < PTSIM_EV__COUNT; e++)
		assert_int_equal(ev(m, e), e == PTSIM_EV_MMU_NOTIFIER_RANGE || e == PTSIM_EV_COND_RESCHED);
	assert_string_equal(klass(PTSIM_EV_MMU_NOTIFIER_RANGE), "bit_test");
	assert_string_equal(klass(PTSIM_EV_NOTIFIER_SECONDARY_TLBS), "bit_test");
	assert_string_equal(klass(PTSIM_EV_FLUSH_TLB_RANGE), "bit_test");
	assert_string_equal(klass(PTSIM_EV_FLUSH_TLB_MM), "bit_test");
	ptsim_machine_destroy(m);
}

/*
 * mprotect of 8 plain 4K PTEs (order-0 folios), v6.16 and v6.17: every
 * ptep_get is inline (no contpte_ptep_get), the table is mapped and locked
 * once (pte_offset_map_lock), and the calls are the ones the kernel makes:
 * per PTE ptep_modify_prot_start and ptep_modify_prot_commit (v6.16) or
 * modify_prot_start_ptes and modify_prot_commit_ptes (v6.17), the map,
 * change_pmd_range's cond_resched and the notifier's might_sleep. v6.16's
 * write upgrade calls can_change_pte_writable per PTE; v6.17's tests are inline.
 */
static void test_mprotect_plain_ptes(void **state)
{
	const char *kernels[] = { "v6.16", "v6.17" };

	(void)state;
	for (unsigned int k = 0; k < 2; k++) {
		struct ptsim_machine *m = new_machine(PTSIM_GRANULE_4K, 48, PTSIM_CPU_APPLE_M3,
						      kernels[k]);
		struct ptsim_mm *mm = new_mm_with_vma(m, VA, SZ_2M);
		struct ptsim_stats st;

		assert_int_equal(ptsim_populate(mm, VA, 8 * SZ_4K, 0, true), 0);
		for (unsigned int pass = 0; pass < 2; pass++) {
			assert_int_equal(ptsim_mprotect(mm, VA, 8 * SZ_4K, pass ? RW : RO), 0);
			st = last_stats(m);
			assert_int_equal(st.ev[PTSIM_EV_PTEP_GET], 8);
			assert_int_equal(st.ev[PTSIM_EV_CONTPTE_GATHER], 0);
			assert_int_equal(st.ev[PTSIM_EV_PTE_READ], 24);	/* ptep_get, unfold tests */
			assert_int_equal(st.ev[PTSIM_EV_SET_PTES], 8);
			assert_int_equal(st.ev[PTSIM_EV_SET_PTES_CHUNK], 8);
			/* the starts, and the merge's vm_area_free (call_rcu) */
			assert_int_equal(st.ev[PTSIM_EV_HELPER_CALL], 8 + pass);
			assert_int_equal(st.ev[PTSIM_EV_PROT_COMMIT], 8);	/* the commits */
			assert_int_equal(st.ev[PTSIM_EV_PTE_MAP], 1);
			assert_int_equal(st.ev[PTSIM_EV_PTL_LOCK], 1);
			assert_int_equal(st.ev[PTSIM_EV_PMD_ITER], 1);
			assert_int_equal(st.ev[PTSIM_EV_COND_RESCHED], 2);
			assert_int_equal(st.ev[PTSIM_EV_MMU_NOTIFIER_RANGE], 1);
			assert_int_equal(st.ev[PTSIM_EV_FLUSH_TLB_RANGE], 1);
			assert_int_equal(st.ev[PTSIM_EV_CONTPTE_UNFOLD], 0);
			assert_int_equal(st.ev[PTSIM_EV_FOLD_ATTEMPT], 0);
			/*
			 * mprotect_fixup's VMA work: the first pass splits the
			 * 32K off the 2M VMA (__split_vma), the second merges it
			 * back (vma_merge_existing_range); each stores one
			 * maple node (priced as two calls). Charged apart below.
			 */
			assert_int_equal(st.ev[PTSIM_EV_VMA_SPLIT], !pass);
			assert_int_equal(st.ev[PTSIM_EV_VMA_MERGE], pass);
			assert_int_equal(st.ev[PTSIM_EV_MAPLE_NODE_WRITE], 1);
			if (pass && k == 0) {
				assert_int_equal(st.ev[PTSIM_EV_CAN_CHANGE_WRITABLE], 8);
				assert_int_equal(st.ev[PTSIM_EV_ANON_EXCL_TEST], 8);
				/* starts, commits, can_change, 2 for the map, 2 resched points */
				assert_true(calls_charged(&st) == 8 + 8 + 8 + 2 + 2 + 1 + 2 + 1);
			} else {
				assert_int_equal(st.ev[PTSIM_EV_CAN_CHANGE_WRITABLE], 0);
				assert_int_equal(st.ev[PTSIM_EV_ANON_EXCL_TEST], pass ? 8 : 0);
				assert_true(calls_charged(&st) == 8 + 8 + 2 + 2 + 1 + 2 + pass);
			}
		}
		ptsim_machine_destroy(m);
	}
}

/*
 * mprotect of one contpte-mapped 64K folio (16 entries). v6.16: only the
 * first ptep_get sees the cont bit (one contpte_ptep_get); its
 * ptep_get_and_clear unfolds the block (one __contpte_try_unfold and
 * contpte_convert), the last set_ptes folds it again (__contpte_try_fold and
 * contpte_convert); 16 starts and commits. v6.17: one ptep_get (the batch
 * hint covers the block), one contpte_ptep_get, and three calls besides the
 * commit: modify_prot_start_ptes, its contpte_get_and_clear_full_ptes, and
 * modify_prot_commit_ptes's contpte_set_ptes.
 */
static void test_mprotect_contpte_block(void **state)
{
	const char *kernels[] = { "v6.16", "v6.17" };

	(void)state;
	for (unsigned int k = 0; k < 2; k++) {
		struct ptsim_machine *m = new_machine(PTSIM_GRANULE_4K, 48, PTSIM_CPU_APPLE_M3,
						      kernels[k]);
		struct ptsim_mm *mm = new_mm_with_vma(m, VA, SZ_2M);
		struct ptsim_stats st;

		assert_int_equal(ptsim_populate(mm, VA, SZ_64K, 4, true), 0);
		st = last_stats(m);
		assert_int_equal(st.ev[PTSIM_EV_SET_PTES], 1);
		/*
		 * contpte_set_ptes, the fault's lock_vma_under_rcu and
		 * __folio_batch_add_and_move (the lru_add batch); v6.17 moves
		 * the large folio at once: lru_add's three folio_evictable calls
		 * and three LRU size calls; the charge's three callees, and, the
		 * machine's first, page_counter_try_charge and __refill_stock;
		 * the allocation's __alloc_pages_noprof, get_page_from_freelist,
		 * prep_new_page, post_alloc_hook and prep_compound_page (order 4
		 * comes from the buddy lists: no __rmqueue_pcplist, and
		 * __rmqueue_smallest's account_freepages)
		 */
		assert_int_equal(st.ev[PTSIM_EV_HELPER_CALL], 2 + 1 + 3 + 2 + (k ? 6 : 0) + 5 + 1);
		assert_int_equal(ptsim_mprotect(mm, VA, SZ_64K, RO), 0);
		st = last_stats(m);
		assert_int_equal(st.ev[PTSIM_EV_CONTPTE_GATHER], 1);
		assert_int_equal(st.ev[PTSIM_EV_PTE_MAP], 1);
		assert_int_equal(st.ev[PTSIM_EV_COND_RESCHED], 2);
		if (k == 0) {
			assert_int_equal(st.ev[PTSIM_EV_PTEP_GET], 16);
			assert_int_equal(st.ev[PTSIM_EV_SET_PTES], 16);
			assert_int_equal(st.ev[PTSIM_EV_SET_PTES_CHUNK], 18);
			assert_int_equal(st.ev[PTSIM_EV_CONTPTE_UNFOLD], 1);
			assert_int_equal(st.ev[PTSIM_EV_FOLD_ATTEMPT], 1);
			assert_int_equal(st.ev[PTSIM_EV_CONTPTE_FOLD], 1);
			assert_int_equal(st.ev[PTSIM_EV_CONTPTE_CONVERT], 2);
			assert_int_equal(st.ev[PTSIM_EV_HELPER_CALL], 16);
			assert_int_equal(st.ev[PTSIM_EV_PROT_COMMIT], 16);
			assert_int_equal(st.ev[PTSIM_EV_PTE_BATCH], 0);
		} else {
			assert_int_equal(st.ev[PTSIM_EV_PTEP_GET], 1);
			assert_int_equal(st.ev[PTSIM_EV_SET_PTES], 1);
			assert_int_equal(st.ev[PTSIM_EV_SET_PTES_CHUNK], 1);
			assert_int_equal(st.ev[PTSIM_EV_CONTPTE_UNFOLD], 0);
			assert_int_equal(st.ev[PTSIM_EV_CONTPTE_CONVERT], 0);
			assert_int_equal(st.ev[PTSIM_EV_HELPER_CALL], 3);
			assert_int_equal(st.ev[PTSIM_EV_PROT_COMMIT], 1);
			assert_int_equal(st.ev[PTSIM_EV_PTE_BATCH], 1);
		}
		ptsim_machine_destroy(m);
	}
}

/* A VMA over two PMD tables at VA, each with 8 order-0 pages present. */
static struct ptsim_mm *two_tables(struct ptsim_machine *m)
{
	struct ptsim_mm *mm = new_mm_with_vma(m, VA, 2 * SZ_2M);

	assert_int_equal(ptsim_populate(mm, VA, 8 * SZ_4K, 0, true), 0);
	assert_int_equal(ptsim_populate(mm, VA + SZ_2M, 8 * SZ_4K, 0, true), 0);
	return mm;
}

/*
 * munmap of two PMDs of one VMA: zap_pmd_range calls cond_resched every turn
 * (its loop condition), and the notifier range's might_sleep once more;
 * vms_clear_ptes's lru_add_drain (priced in the cond_resched class) too,
 * and free_pages_and_swap_cache's at the gather's flush.
 */
static void test_zap_cond_resched(void **state)
{
	struct ptsim_machine *m = new_machine(PTSIM_GRANULE_4K, 48, PTSIM_CPU_NEOVERSE_N1, "v6.16");
	struct ptsim_mm *mm = two_tables(m);
	struct ptsim_stats st;

	(void)state;
	assert_int_equal(ptsim_munmap(mm, VA, 2 * SZ_2M), 0);
	st = last_stats(m);
	assert_int_equal(st.ev[PTSIM_EV_PMD_ITER], 2);
	assert_int_equal(st.ev[PTSIM_EV_COND_RESCHED], 4 + 1);
	assert_int_equal(st.ev[PTSIM_EV_MMU_NOTIFIER_RANGE], 1);
	assert_int_equal(st.ev[PTSIM_EV_PTE_MAP], 2);
	assert_int_equal(st.ev[PTSIM_EV_PTL_LOCK], 2);
	assert_int_equal(st.ev[PTSIM_EV_CONTPTE_GATHER], 0);
	ptsim_machine_destroy(m);
}

/*
 * MADV_COLD over half of a 64K folio: the folio is split with the table
 * unmapped and unlocked, then madvise_cold_or_pageout_pte_range maps and
 * locks it again and re-enters lazy MMU mode (v6.12); one cond_resched at the
 * callback's end and the notifier's, and madvise_cold's lru_add_drain (the
 * primitive is priced in the cond_resched class).
 */
static void test_madvise_relock_after_split(void **state)
{
	struct ptsim_machine *m = new_machine(PTSIM_GRANULE_4K, 48, PTSIM_CPU_APPLE_M3, "v6.16");
	struct ptsim_mm *mm = new_mm_with_vma(m, VA, SZ_2M);
	struct ptsim_stats st;

	(void)state;
	assert_int_equal(ptsim_populate(mm, VA, SZ_64K, 4, true), 0);
	assert_int_equal(ptsim_madvise(mm, VA, SZ_64K / 2, PTSIM_MADV_COLD), 0);
	st = last_stats(m);
	assert_int_equal(st.ev[PTSIM_EV_FOLIO_SPLIT], 1);
	/*
	 * the walk's two maps and locks, and the split's: try_to_migrate_one's
	 * in the one VMA and remove_migration_ptes' per new folio (16); the
	 * deferred split queue's lock twice besides (the folio queued when its
	 * first page is unmapped, then taken off to be frozen)
	 */
	assert_int_equal(st.ev[PTSIM_EV_PTE_MAP], 2 + 1 + 16);
	assert_int_equal(st.ev[PTSIM_EV_PTL_LOCK], 2 + 1 + 16 + 2);
	assert_int_equal(st.ev[PTSIM_EV_LAZY_MMU], 2);
	/* and the might_sleep of try_to_migrate_one's notifier range */
	assert_int_equal(st.ev[PTSIM_EV_COND_RESCHED], 3 + 1);
	/* __clear_young_dirty_pte's cmpxchg: one atomic per entry made old, no exchange besides */
	assert_int_equal(st.ev[PTSIM_EV_PTE_CAS], 8);
	assert_int_equal(st.ev[PTSIM_EV_PTE_XCHG], 32);	/* the unfold's 16, the split's unmap's 16 */
	ptsim_machine_destroy(m);
}

/*
 * mlock of 1024 pages over two PMDs, 16 of them present: __get_user_pages
 * calls cond_resched before every follow_page_mask (1024, and 1008 more
 * after the faults that populate the rest), mlock_pte_range at its end
 * (2); lru_add_drain is priced in the same class (2).
 */
static void test_mlock_cond_resched(void **state)
{
	struct ptsim_machine *m = new_machine(PTSIM_GRANULE_4K, 48, PTSIM_CPU_NEOVERSE_N1, "v6.16");
	struct ptsim_mm *mm = two_tables(m);
	struct ptsim_stats st;

	(void)state;
	assert_int_equal(ptsim_mlock(mm, VA, 2 * SZ_2M), 0);
	st = last_stats(m);
	assert_int_equal(st.ev[PTSIM_EV_FAULT], 1008);
	assert_int_equal(st.ev[PTSIM_EV_COND_RESCHED], 1024 + 1008 + 2 + 2);
	assert_int_equal(st.ev[PTSIM_EV_MLOCK_FOLIO], 16);
	ptsim_machine_destroy(m);
}

/*
 * mremap of two PMD tables to a PMD-aligned address: move_page_tables
 * calls cond_resched for each extent (2), and the two notifier ranges
 * (the move's and the old range's unmap) call might_sleep (2); the old
 * range's unmap (vms_clear_ptes) calls lru_add_drain (1).
 */
static void test_mremap_cond_resched(void **state)
{
	struct ptsim_machine *m = new_machine(PTSIM_GRANULE_4K, 48, PTSIM_CPU_APPLE_M3, "v6.16");
	struct ptsim_mm *mm = two_tables(m);
	struct ptsim_stats st;
	uint64_t out = 0;

	(void)state;
	assert_int_equal(ptsim_mremap(mm, VA, 2 * SZ_2M, 2 * SZ_2M,
				      PTSIM_MREMAP_MAYMOVE | PTSIM_MREMAP_FIXED, 4 * SZ_1G, &out), 0);
	assert_true(out == 4 * SZ_1G);
	st = last_stats(m);
	assert_int_equal(st.ev[PTSIM_EV_MMU_NOTIFIER_RANGE], 2);
	assert_int_equal(st.ev[PTSIM_EV_COND_RESCHED], 5);
	assert_int_equal(st.ev[PTSIM_EV_PTE_READ], 0);	/* the tables moved whole */
	ptsim_machine_destroy(m);
}

/*
 * The events of one operation on two 64K folios at VA (set up identically),
 * on preset with the out-of-line folio_pte_batch (v6.17) on or off.
 */
enum batch_op { BATCH_MUNMAP, BATCH_MLOCK, BATCH_MREMAP };

static struct ptsim_stats batch_op_stats(const char *preset, bool call, enum batch_op op)
{
	struct ptsim_machine *m = new_machine(PTSIM_GRANULE_4K, 48, PTSIM_CPU_NEOVERSE_N1, preset);
	struct ptsim_mm *mm;
	struct ptsim_stats st;
	uint64_t out = 0;

	assert_int_equal(ptsim_feature_set(m, PTSIM_FEAT_FOLIO_PTE_BATCH_CALL, call), 0);
	mm = new_mm_with_vma(m, VA, SZ_2M);
	assert_int_equal(ptsim_populate(mm, VA, 2 * SZ_64K, 4, true), 0);
	if (op == BATCH_MUNMAP)
		assert_int_equal(ptsim_munmap(mm, VA, 2 * SZ_64K), 0);
	else if (op == BATCH_MLOCK)
		assert_int_equal(ptsim_mlock(mm, VA, 2 * SZ_64K), 0);
	else
		assert_int_equal(ptsim_mremap(mm, VA, 2 * SZ_64K, 2 * SZ_64K,
					      PTSIM_MREMAP_MAYMOVE | PTSIM_MREMAP_FIXED,
					      4 * SZ_1G + SZ_64K, &out), 0);
	st = last_stats(m);
	ptsim_machine_destroy(m);
	return st;
}

/*
 * v6.17's folio_pte_batch (mm/util.c) is a call for the callers without
 * flags: zap_present_ptes, folio_mlock_step and v6.17's
 * mremap_folio_pte_batch each make one per batch (two folios: two), and
 * nothing else moves. v6.18's mremap respects the write bit through the
 * inline folio_pte_batch_flags: no call.
 */
static void test_folio_pte_batch_call(void **state)
{
	static const struct {
		const char *preset;
		enum batch_op op;
		uint64_t calls;
	} rows[] = {
		{ "v6.17", BATCH_MUNMAP, 2 }, { "v6.17", BATCH_MLOCK, 2 },
		{ "v6.17", BATCH_MREMAP, 2 }, { "v6.18", BATCH_MREMAP, 0 },
	};

	(void)state;
	for (size_t i = 0; i < sizeof(rows) / sizeof(rows[0]); i++) {
		struct ptsim_stats on = batch_op_stats(rows[i].preset, true, rows[i].op);
		struct ptsim_stats off = batch_op_stats(rows[i].preset, false, rows[i].op);

		assert_int_equal(on.ev[PTSIM_EV_PTE_BATCH], off.ev[PTSIM_EV_PTE_BATCH]);
		assert_true(on.ev[PTSIM_EV_PTE_BATCH] >= rows[i].calls);
		for (unsigned int e = 0; e < PTSIM_EV__COUNT; e++)
			if (e != PTSIM_EV_HELPER_CALL)
				assert_int_equal(on.ev[e], off.ev[e]);
		assert_int_equal(on.ev[PTSIM_EV_HELPER_CALL] - off.ev[PTSIM_EV_HELPER_CALL],
				 rows[i].calls);
	}
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_inline_entries_are_not_calls),
		cmocka_unit_test(test_notifier_range_without_notifiers),
		cmocka_unit_test(test_mprotect_plain_ptes),
		cmocka_unit_test(test_mprotect_contpte_block),
		cmocka_unit_test(test_zap_cond_resched),
		cmocka_unit_test(test_madvise_relock_after_split),
		cmocka_unit_test(test_mlock_cond_resched),
		cmocka_unit_test(test_mremap_cond_resched),
		cmocka_unit_test(test_folio_pte_batch_call),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
