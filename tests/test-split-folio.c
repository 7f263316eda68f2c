// SPDX-License-Identifier: MIT
/*
 * ptsim_split_folio: splitting an anonymous THP to a chosen order
 * (split_huge_pages_pid -> split_folio_to_order ->
 * split_huge_page_to_list_to_order, mm/huge_memory.c): the kernel's checks
 * per release, what the split leaves (folio orders, mapcounts, PFNs) and
 * what it counts.
 */
#include "helpers.h"

#define VA SZ_1G
#define NR 16u	/* an order-4 folio of 4K pages: one contpte block */

static struct ptsim_mm *order4(struct ptsim_machine *m)
{
	struct ptsim_mm *mm = new_mm_with_vma(m, VA, NR * SZ_4K);

	assert_int_equal(ptsim_populate(mm, VA, NR * SZ_4K, 4, true), 0);
	return mm;
}

static struct ptsim_folio_info info(const struct ptsim_mm *mm, uint64_t va)
{
	struct ptsim_folio_info fi;

	assert_int_equal(ptsim_folio_info(mm, va, &fi), 0);
	return fi;
}

/*
 * A PTE-mapped order-4 folio split to order 2 (v6.10 on): four order-2
 * folios, each mapped by its four entries, every VA on its old PFN. Under
 * contpte (v6.9 on) the block is unfolded first (16 clears and stores, one
 * flush). unmap_folio then clears each entry with its TLBI deferred (one
 * range flush each) and writes a migration entry, try_to_unmap_flush
 * completes them with one DSB, __split_huge_page makes the three tail
 * folios (each made compound: prep_compound_page), and remap_page writes each entry back (one set_ptes each, under
 * a table lock per new folio); no new folio is large enough to fold again.
 * The split call, the folio lock and reference of split_huge_pages_pid and
 * its mmap read lock; the three new folios are unlocked by the split.
 */
static void test_split_to_order_2(void **state)
{
	static const char *const presets[] = { "v6.10", "v6.12", "v6.17" };

	(void)state;
	for (size_t p = 0; p < sizeof(presets) / sizeof(presets[0]); p++) {
		struct ptsim_machine *m = new_machine(PTSIM_GRANULE_4K, 48, PTSIM_CPU_NEOVERSE_N1,
						      presets[p]);
		struct ptsim_mm *mm = order4(m);
		uint64_t pfn = info(mm, VA).pfn;

		assert_int_equal(ptsim_split_folio(mm, VA, 2), 0);
		for (unsigned int i = 0; i < NR; i++) {
			struct ptsim_folio_info fi = info(mm, VA + i * SZ_4K);
			struct ptsim_translation tr;

			assert_int_equal(fi.order, 2);
			assert_int_equal(fi.pfn, pfn + (i & ~3u));
			assert_int_equal(fi.mapcount, 4);
			assert_int_equal(ptsim_translate(mm, VA + i * SZ_4K, &tr), 0);
			assert_int_equal(tr.pa >> 12, pfn + i);
			assert_false(tr.cont);
		}
		assert_int_equal(ev(m, PTSIM_EV_FOLIO_SPLIT), 1);
		assert_int_equal(ev(m, PTSIM_EV_PTE_XCHG), 2 * NR);
		assert_int_equal(ev(m, PTSIM_EV_PTE_WRITE), 3 * NR);
		assert_int_equal(ev(m, PTSIM_EV_CONTPTE_UNFOLD), 1);
		assert_int_equal(ev(m, PTSIM_EV_FLUSH_TLB_RANGE), 1 + NR);
		assert_int_equal(ev(m, PTSIM_EV_DSB_ISH), 2);
		assert_int_equal(ev(m, PTSIM_EV_SPLIT_PAGE_TAIL), 3);
		/* each new folio but the first made compound: three tails and the head's fields */
		assert_int_equal(ev(m, PTSIM_EV_COMPOUND_PAGE), 3 * (3 + 1));
		assert_int_equal(ev(m, PTSIM_EV_RMAP_REMOVE), NR);
		assert_int_equal(ev(m, PTSIM_EV_RMAP_ADD), NR);
		assert_int_equal(ev(m, PTSIM_EV_PTE_MAP), 1 + 4);
		assert_int_equal(ev(m, PTSIM_EV_FOLIO_TRYLOCK), 1);
		assert_int_equal(ev(m, PTSIM_EV_FOLIO_UNLOCK), 1 + 3);
		assert_int_equal(ev(m, PTSIM_EV_RWSEM), 1);
		assert_int_equal(ev(m, PTSIM_EV_FOLIO_FREE), 0);
		assert_invariants(m);
		ptsim_machine_destroy(m);
	}
}

/*
 * Before v6.10 a THP splits to order 0 only: order 2 is -EINVAL and counts
 * nothing; order 0 is split_folio's split (v6.8: no contpte layer, so 16
 * clears, 16 migration entries and 16 stores back, 16 deferred TLBIs and
 * one DSB, 15 tails made folios).
 */
static void test_before_v610_order_0_only(void **state)
{
	struct ptsim_machine *m = new_machine(PTSIM_GRANULE_4K, 48, PTSIM_CPU_NEOVERSE_N1, "v6.8");
	struct ptsim_mm *mm = order4(m);
	struct ptsim_stats before, after;

	(void)state;
	assert_int_equal(ptsim_total_stats(m, &before), 0);
	assert_int_equal(ptsim_split_folio(mm, VA, 2), -EINVAL);
	assert_int_equal(ptsim_total_stats(m, &after), 0);
	assert_memory_equal(&before, &after, sizeof(before));
	assert_int_equal(info(mm, VA).order, 4);
	assert_int_equal(ptsim_split_folio(mm, VA, 0), 0);
	assert_int_equal(ev(m, PTSIM_EV_PTE_XCHG), NR);
	assert_int_equal(ev(m, PTSIM_EV_PTE_WRITE), 2 * NR);
	assert_int_equal(ev(m, PTSIM_EV_FLUSH_TLB_RANGE), NR);
	assert_int_equal(ev(m, PTSIM_EV_DSB_ISH), 1);
	assert_int_equal(ev(m, PTSIM_EV_SPLIT_PAGE_TAIL), NR - 1);
	assert_int_equal(ev(m, PTSIM_EV_COMPOUND_PAGE), 0);	/* order-0 folios are not compound */
	assert_int_equal(ev(m, PTSIM_EV_FOLIO_SPLIT), 1);
	for (unsigned int i = 0; i < NR; i++)
		assert_int_equal(info(mm, VA + i * SZ_4K).order, 0);
	assert_invariants(m);
	ptsim_machine_destroy(m);
}

/* The events of a split to order 0 of a fresh order-4 folio on a preset. */
static void split_order0_events(const char *preset, uint64_t out[PTSIM_EV__COUNT])
{
	struct ptsim_machine *m = new_machine(PTSIM_GRANULE_4K, 48, PTSIM_CPU_NEOVERSE_N1, preset);
	struct ptsim_mm *mm = order4(m);

	assert_int_equal(ptsim_split_folio(mm, VA, 0), 0);
	for (unsigned int e = 0; e < PTSIM_EV__COUNT; e++)
		out[e] = ev(m, (enum ptsim_event)e);
	assert_invariants(m);
	ptsim_machine_destroy(m);
}

/*
 * "split_batch_flush" (3027c6f8eb9d, v6.8): v6.6 clears each entry with
 * ptep_clear_flush, a TLBI and a DSB per page; v6.8 issues the same 16
 * TLBIs back to back and completes them with one DSB.
 */
static void test_split_batch_flush_gate(void **state)
{
	uint64_t v66[PTSIM_EV__COUNT], v68[PTSIM_EV__COUNT];

	(void)state;
	split_order0_events("v6.6", v66);
	split_order0_events("v6.8", v68);
	assert_int_equal(v66[PTSIM_EV_TLBI_VA], NR);
	assert_int_equal(v66[PTSIM_EV_DSB_ISH], NR);
	assert_int_equal(v66[PTSIM_EV_TLBI_BACK_TO_BACK], 0);
	assert_int_equal(v68[PTSIM_EV_TLBI_VA], NR);
	assert_int_equal(v68[PTSIM_EV_DSB_ISH], 1);
	assert_int_equal(v68[PTSIM_EV_TLBI_BACK_TO_BACK], NR - 1);
	/* the rest of the split is the same work */
	assert_int_equal(v66[PTSIM_EV_SPLIT_PAGE_TAIL], v68[PTSIM_EV_SPLIT_PAGE_TAIL]);
	assert_int_equal(v66[PTSIM_EV_PTE_WRITE], v68[PTSIM_EV_PTE_WRITE]);
}

/*
 * "split_zeropage_remap" (b1f202060afe, v6.12): remap_page calls
 * pages_identical for each page of a split to order 0 (every page holds
 * data in the model, so each is mapped back); v6.11 does not. A split to
 * order 2 checks nothing on either.
 */
static void test_split_zeropage_gate(void **state)
{
	uint64_t v611[PTSIM_EV__COUNT], v612[PTSIM_EV__COUNT];

	(void)state;
	split_order0_events("v6.11", v611);
	split_order0_events("v6.12", v612);
	assert_int_equal(v612[PTSIM_EV_HELPER_CALL] - v611[PTSIM_EV_HELPER_CALL], NR);
	assert_int_equal(v612[PTSIM_EV_PTE_WRITE], v611[PTSIM_EV_PTE_WRITE]);
	assert_int_equal(v612[PTSIM_EV_RMAP_ADD], NR);
}

/*
 * The refusals, none of which changes anything: order 1 of anonymous memory
 * and an order not below the folio's (-EINVAL), an order-0 folio (-EINVAL),
 * nothing mapped (-ENOENT), a pinned folio (-EBUSY: can_split_folio).
 */
static void test_refusals(void **state)
{
	struct ptsim_machine *m = new_machine(PTSIM_GRANULE_4K, 48, PTSIM_CPU_NEOVERSE_N1, "v6.12");
	struct ptsim_mm *mm = order4(m);

	(void)state;
	assert_int_equal(ptsim_split_folio(mm, VA, 1), -EINVAL);
	assert_int_equal(ptsim_split_folio(mm, VA, 4), -EINVAL);
	assert_int_equal(ptsim_split_folio(mm, VA + NR * SZ_4K, 0), -ENOENT);
	assert_int_equal(ptsim_split_folio(NULL, VA, 0), -EINVAL);
	assert_int_equal(ptsim_folio_set_pinned(mm, VA, true), 0);
	assert_int_equal(ptsim_split_folio(mm, VA, 0), -EBUSY);
	assert_int_equal(ptsim_folio_set_pinned(mm, VA, false), 0);
	assert_int_equal(info(mm, VA).order, 4);
	assert_int_equal(ptsim_split_folio(mm, VA, 0), 0);
	assert_int_equal(ptsim_split_folio(mm, VA, 0), -EINVAL);	/* order 0 now */
	assert_invariants(m);
	ptsim_machine_destroy(m);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_split_to_order_2),
		cmocka_unit_test(test_before_v610_order_0_only),
		cmocka_unit_test(test_split_batch_flush_gate),
		cmocka_unit_test(test_split_zeropage_gate),
		cmocka_unit_test(test_refusals),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
