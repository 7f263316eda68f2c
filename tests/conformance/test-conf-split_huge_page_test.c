// SPDX-License-Identifier: MIT
/*
 * Conformance with tools/testing/selftests/mm/split_huge_page_test.c (the
 * debugfs split_huge_pages interface: split_huge_pages_pid ->
 * split_folio_to_order), written fresh from what its tests expect, on every
 * preset. A write to the debugfs file over a range is ptsim_split_folio at
 * each mapped page of it; "the bytes are intact" is every VA still mapping
 * the PFN it mapped before; "AnonHugePages" (check_huge_anon) is the PMD
 * mappings, kpageflags' THP bit a folio of order above 0.
 *
 * Not expressible: split_pmd_zero_pages (the model keeps no page contents,
 * so it cannot see which subpages are zero-filled and map the shared zero
 * page for them, nor the RssAnon drop); split_file_backed_thp (tmpfs
 * huge=always: the model has no shmem THP) and
 * split_thp_in_pagecache_to_order (file folio splits are not modelled:
 * ptsim_split_folio refuses a file folio with -EINVAL).
 */
#include "helpers.h"

#define PAGE	SZ_4K
#define PMD	SZ_2M
#define NR_THP	4
#define LEN	(NR_THP * PMD)
#define VA	SZ_1G	/* the selftest's 1 GiB hint of split_pte_mapped_thp */

static struct ptsim_machine *machine_for(const char *preset)
{
	return new_machine(PTSIM_GRANULE_4K, 48, PTSIM_CPU_NEOVERSE_N1, preset);
}

static bool split_to_order(struct ptsim_machine *m)
{
	bool on = false;

	assert_int_equal(ptsim_feature_get(m, PTSIM_FEAT_SPLIT_TO_ORDER, &on), 0);
	return on;
}

/* Four PMD THPs at VA, written (the selftest fills them byte by byte). */
static struct ptsim_mm *thp_mm(struct ptsim_machine *m)
{
	struct ptsim_mm *mm = new_mm_with_vma(m, VA, LEN);

	assert_int_equal(ptsim_madvise(mm, VA, LEN, PTSIM_MADV_HUGEPAGE), 0);
	assert_int_equal(ptsim_populate(mm, VA, LEN, 9, true), 0);
	return mm;
}

static uint64_t *pfns_of(const struct ptsim_mm *mm, uint64_t va, uint64_t pages)
{
	uint64_t *p = calloc(pages, sizeof(*p));
	struct ptsim_translation tr;

	assert_non_null(p);
	for (uint64_t i = 0; i < pages; i++) {
		assert_int_equal(ptsim_translate(mm, va + i * PAGE, &tr), 0);
		p[i] = tr.pa >> 12;
	}
	return p;
}

/* The "bytes" are intact: every VA maps the PFN it mapped before the split. */
static void assert_same_pfns(const struct ptsim_mm *mm, uint64_t va, const uint64_t *before,
			     uint64_t pages)
{
	uint64_t *now = pfns_of(mm, va, pages);

	assert_memory_equal(now, before, pages * sizeof(*now));
	free(now);
}

/* check_huge_anon(addr, nr, pmd_pagesize): nr PMD mappings in the range. */
static unsigned int pmd_mapped(const struct ptsim_mm *mm, uint64_t va, uint64_t len)
{
	struct ptsim_translation tr;
	unsigned int n = 0;

	for (uint64_t a = va; a < va + len; a += PMD)
		n += ptsim_translate(mm, a, &tr) == 0 && tr.level == 2;
	return n;
}

static unsigned int order_at(const struct ptsim_mm *mm, uint64_t va)
{
	struct ptsim_folio_info fi;

	assert_int_equal(ptsim_folio_info(mm, va, &fi), 0);
	return fi.order;
}

/* write_debugfs(pid, start, end, order): split the folio at every page of the range. */
static void split_range(struct ptsim_mm *mm, uint64_t va, uint64_t len, unsigned int order)
{
	for (uint64_t a = va; a < va + len; a += PAGE) {
		int err = ptsim_split_folio(mm, a, order);

		/* already split to that order or below: split_huge_pages_pid skips it */
		assert_true(err == 0 || (err == -EINVAL && order_at(mm, a) <= order));
	}
}

/*
 * split_huge_page_test.c split_pmd_thp_to_order(order), order 0 and 2..8
 * (order 1 is not supported for anonymous THP): four THPs are there
 * ("No THP is allocated" otherwise), the split leaves no AnonHugePages and
 * every byte intact. Before v6.10 only order 0 exists: a higher one is
 * -EINVAL and changes nothing.
 */
static void test_split_pmd_thp_to_order(void **state)
{
	(void)state;
	for (unsigned int i = 0; ptsim_preset_name(i); i++) {
		for (unsigned int order = 0; order <= 8; order++) {
			struct ptsim_machine *m;
			struct ptsim_mm *mm;
			uint64_t *before;

			if (order == 1)
				continue;
			m = machine_for(ptsim_preset_name(i));
			mm = thp_mm(m);
			assert_int_equal(pmd_mapped(mm, VA, LEN), NR_THP);
			before = pfns_of(mm, VA, LEN / PAGE);
			if (order && !split_to_order(m)) {
				assert_int_equal(ptsim_split_folio(mm, VA, order), -EINVAL);
				assert_int_equal(pmd_mapped(mm, VA, LEN), NR_THP);
			} else {
				split_range(mm, VA, LEN, order);
				assert_int_equal(pmd_mapped(mm, VA, LEN), 0);
				for (uint64_t a = VA; a < VA + LEN; a += PAGE)
					assert_int_equal(order_at(mm, a), order);
			}
			assert_same_pfns(mm, VA, before, LEN / PAGE);
			free(before);
			assert_invariants(m);
			ptsim_mm_destroy(mm);
			ptsim_machine_destroy(m);
		}
	}
}

/*
 * split_pmd_thp_to_order skips i == 1: anonymous memory cannot be split to
 * order 1 (split_huge_page_to_list_to_order's -EINVAL), and nothing changes.
 */
static void test_no_anon_order_1(void **state)
{
	(void)state;
	for (unsigned int i = 0; ptsim_preset_name(i); i++) {
		struct ptsim_machine *m = machine_for(ptsim_preset_name(i));
		struct ptsim_mm *mm = thp_mm(m);

		assert_int_equal(ptsim_split_folio(mm, VA, 1), -EINVAL);
		assert_int_equal(pmd_mapped(mm, VA, LEN), NR_THP);
		assert_int_equal(order_at(mm, VA), 9);
		ptsim_mm_destroy(mm);
		ptsim_machine_destroy(m);
	}
}

/*
 * split_huge_page_test.c split_pte_mapped_thp: the first page of the first
 * THP is mremap'ed (MAYMOVE) elsewhere and page i of THP i (FIXED) next to
 * it; the four pages there are each backed by a THP ("Some THPs are missing
 * during mremap" otherwise); splitting those four pages leaves none backed
 * by a THP, every byte intact.
 */
static void test_split_pte_mapped_thp(void **state)
{
	(void)state;
	for (unsigned int i = 0; ptsim_preset_name(i); i++) {
		struct ptsim_machine *m = machine_for(ptsim_preset_name(i));
		struct ptsim_mm *mm = thp_mm(m);
		uint64_t pte_mapped = 0, out = 0, *before;

		assert_int_equal(ptsim_mremap(mm, VA, PAGE, PAGE, PTSIM_MREMAP_MAYMOVE, 0,
					      &pte_mapped), 0);
		for (uint64_t t = 1; t < NR_THP; t++) {
			assert_int_equal(ptsim_mremap(mm, VA + PMD * t + PAGE * t, PAGE, PAGE,
						      PTSIM_MREMAP_MAYMOVE | PTSIM_MREMAP_FIXED,
						      pte_mapped + PAGE * t, &out), 0);
			assert_int_equal(out, pte_mapped + PAGE * t);
		}
		for (uint64_t t = 0; t < NR_THP; t++)
			assert_int_equal(order_at(mm, pte_mapped + PAGE * t), 9);
		before = pfns_of(mm, pte_mapped, NR_THP);
		split_range(mm, pte_mapped, NR_THP * PAGE, 0);
		for (uint64_t t = 0; t < NR_THP; t++)
			assert_int_equal(order_at(mm, pte_mapped + PAGE * t), 0);
		assert_same_pfns(mm, pte_mapped, before, NR_THP);
		free(before);
		assert_invariants(m);
		ptsim_mm_destroy(mm);
		ptsim_machine_destroy(m);
	}
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_split_pmd_thp_to_order),
		cmocka_unit_test(test_no_anon_order_1),
		cmocka_unit_test(test_split_pte_mapped_thp),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
